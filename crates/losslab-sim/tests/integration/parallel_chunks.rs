//! Parallel TCP over one chunked file (`app = { kind = "chunks" }`, the
//! OR3 paper's section III-C): chunks handed out in file order, each
//! connection taking the next as soon as it has sent what it took, and
//! the file's results (`files`: CCT, ΔCCT, completion).

use crate::common;

use common::parse;
use common::run;
use common::*;
use losslab_sim::parse::parse_scenario;
use losslab_sim::results::FileResults;
use losslab_sim::scenario::*;
use losslab_sim::RunResults;

const RATE: u64 = 100_000_000;
/// One way; the base RTT is 20 ms.
const DELAY_MS: u64 = 10;
const FILE: u64 = 20_000_000;
const CHUNK: u64 = 1_000_000;
/// Serialising one byte of payload at RATE, wire headers included
/// (1448 B of payload travel in 1500 B), seconds.
const WIRE_S_PER_BYTE: f64 = 8.0 / RATE as f64 * 1500.0 / 1448.0;

/// `n` connections with fixed windows of `window` segments each, quick
/// ACKs (no delayed ACK holds back a chunk's last ACK), no loss unless
/// `loss` says so.
fn scenario_of(n: u32, window: u64, file: u64, loss: LossModel, secs: u64) -> Scenario {
    let (p, r) = path(RATE, DELAY_MS, loss);
    let mut f = FlowSpec::new("a");
    f.cc = CcSpec::Fixed(window);
    f.receiver.ack = AckSpec::Quick;
    f.app = AppSpec::Chunks { file, chunk: CHUNK };
    f.count = n;
    scenario("chunks", secs, (p, r), vec![f])
}

fn file_of(r: &RunResults) -> &FileResults {
    assert_eq!(r.files.len(), 1);
    &r.files[0]
}

/// Loss-free, N connections whose windows add up to 200 segments, about
/// 34 packets more than the 20 ms x 100 Mbit/s pipe (166.7 packets of
/// 1500 B), so the link never idles and no packet is dropped.
///
/// Hand bound on ΔCCT = mean CCT - (RTT + N x chunk x 8 / rate). A chunk
/// shares the link with N - 1 others, so it is on the wire for N x chunk
/// bytes' worth of link time with headers, N x chunk x WIRE_S_PER_BYTE
/// (3.6% above the paper's payload-only term). Its first byte waits at
/// most behind every packet the windows allow in the queue (200 x 1500 B
/// = 24 ms), and its last byte's ACK returns one base RTT after leaving
/// the link (quick ACKs, no reverse queue). So
///   header share <= ΔCCT <= header share + 24 ms,
/// the lower end exact for N = 1 (a lone connection cannot beat the
/// link); for N > 1 every connection has the same window, so each gets a
/// quarter of the link and the same lower end holds.
fn loss_free(n: u32) {
    let r = run(&scenario_of(
        n,
        200 / u64::from(n),
        FILE,
        LossModel::None,
        30,
    ));
    assert_eq!(r.path.drops, 0);
    let f = file_of(&r);
    assert_eq!(f.flow, "a");
    assert_eq!(f.connections, n);
    assert_eq!((f.file_bytes, f.chunk_bytes), (FILE, CHUNK));
    assert_eq!(f.chunks, FILE / CHUNK);
    assert_eq!(f.chunks_completed, FILE / CHUNK);
    assert_eq!(f.timeouts, 0);
    let headers = f64::from(n) * CHUNK as f64 * (WIRE_S_PER_BYTE - 8.0 / RATE as f64);
    let delta = f.delta_cct_s.unwrap();
    assert!(
        delta >= headers && delta <= headers + 0.024,
        "N = {n}: ΔCCT {delta} outside [{headers}, {}]",
        headers + 0.024
    );
    let ideal = 0.020 + f64::from(n) * CHUNK as f64 * 8.0 / RATE as f64;
    assert!((f.mean_cct_s.unwrap() - ideal - delta).abs() < 1e-12);
    // The file: a handshake (one RTT), the whole file through the link,
    // the last ACK's round trip, and at most the queue's 24 ms.
    let least = 0.040 + FILE as f64 * WIRE_S_PER_BYTE;
    let fct = f.fct_s.unwrap();
    assert!(fct >= least && fct <= least + 0.025, "fct {fct}");
    // Every byte of the file went over exactly one connection, in whole
    // chunks; with equal windows the connections took turns evenly.
    assert_eq!(r.flows.len(), n as usize);
    let total: u64 = r.flows.iter().map(|c| c.bytes_delivered).sum();
    assert_eq!(total, FILE);
    for c in &r.flows {
        assert_eq!(c.bytes_delivered, FILE / u64::from(n), "{}", c.name);
        assert!(c.fct_s.is_some(), "{}", c.name);
        assert_eq!(c.retransmissions, 0);
    }
}

#[test]
fn one_connection_sends_every_chunk_within_the_bound() {
    loss_free(1);
}

#[test]
fn four_connections_share_the_file_within_the_bound() {
    loss_free(4);
}

#[test]
fn connections_beyond_the_chunks_get_nothing_and_finish() {
    // Two chunks, four connections: a.1 and a.2 take one each when they
    // open; a.3 and a.4 open to an empty queue and end at once.
    let r = run(&scenario_of(4, 50, 2 * CHUNK, LossModel::None, 30));
    let f = file_of(&r);
    assert_eq!((f.chunks, f.chunks_completed), (2, 2));
    let bytes: Vec<u64> = r.flows.iter().map(|c| c.bytes_delivered).collect();
    assert_eq!(bytes, [CHUNK, CHUNK, 0, 0]);
    for c in &r.flows[2..] {
        assert_eq!(c.segments_sent, 0);
        // Finished when the handshake opened the connection.
        assert!((c.fct_s.unwrap() - 0.020).abs() < 0.001, "{:?}", c.fct_s);
    }
    // The run ended when the last chunk's ACK arrived, long before 30 s.
    assert!(r.sim_time_s < 1.0);
}

#[test]
fn a_short_last_chunk_and_a_chunk_larger_than_the_file() {
    let mut sc = scenario_of(1, 100, 2_500_000, LossModel::None, 30);
    let r = run(&sc);
    let f = file_of(&r);
    assert_eq!((f.chunks, f.chunks_completed), (3, 3));
    assert_eq!(r.flows[0].bytes_delivered, 2_500_000);
    sc.flows[0].app = AppSpec::Chunks {
        file: 500_000,
        chunk: CHUNK,
    };
    let r = run(&sc);
    let f = file_of(&r);
    assert_eq!((f.chunks, f.chunks_completed), (1, 1));
    assert_eq!(r.flows[0].bytes_delivered, 500_000);
}

#[test]
fn a_run_cut_short_reports_the_chunks_it_completed() {
    // 1.2 s of a transfer that needs about 1.7 s.
    let mut sc = scenario_of(4, 50, FILE, LossModel::None, 30);
    sc.duration = 1_200_000_000;
    let r = run(&sc);
    let f = file_of(&r);
    assert_eq!(f.fct_s, None);
    assert!(
        f.chunks_completed > 0 && f.chunks_completed < f.chunks,
        "{f:?}"
    );
    assert!(f.mean_cct_s.is_some() && f.delta_cct_s.is_some());
    assert!(r.flows.iter().all(|c| c.fct_s.is_none()));
}

#[test]
fn a_timeout_on_one_connection_is_counted_and_slows_its_chunk() {
    // A whole window of a.2 (its packets 60 to 109, 50 in flight) lost:
    // nothing comes back to a.2, so only its retransmission timer
    // recovers, while the others go on with the file.
    let loss = LossModel::Drop {
        flow: "a.2".into(),
        which: DropSpec::Bursts(vec![Burst {
            at: BurstStart::Packet(60),
            length: 50,
        }]),
    };
    let r = run(&scenario_of(4, 50, FILE, loss, 30));
    let f = file_of(&r);
    assert_eq!(f.chunks_completed, f.chunks);
    let per_connection: u64 = r.flows.iter().map(|c| c.timeouts).sum();
    assert!(r.flows[1].timeouts >= 1, "{:?}", r.flows[1]);
    assert_eq!(f.timeouts, per_connection);
    // The stalled chunk takes longer; the others gain part of that back
    // from the link a.2 left them, so the mean rises by less than the
    // RTO would suggest, but it rises.
    let clean = run(&scenario_of(4, 50, FILE, LossModel::None, 30));
    assert!(f.delta_cct_s.unwrap() > file_of(&clean).delta_cct_s.unwrap());
    let total: u64 = r.flows.iter().map(|c| c.bytes_delivered).sum();
    assert_eq!(total, FILE);
}

#[test]
fn scenarios_without_chunks_have_no_files() {
    let (p, r) = path(RATE, DELAY_MS, LossModel::None);
    let mut f = FlowSpec::new("a");
    f.app = AppSpec::Bytes(100_000);
    let res = run(&scenario("bytes", 10, (p, r), vec![f]));
    assert!(res.files.is_empty());
    let json = serde_json::to_value(&res).unwrap();
    assert!(json.get("files").is_none());
}

// ---- the scenario keys ----------------------------------------------------

fn flow_with(app: &str, extra: &str) -> String {
    format!(
        "[path]\nrate = \"10Mbps\"\ndelay = \"20ms\"\n\n[[flow]]\nname = \"a\"\napp = {app}\n{extra}\n"
    )
}

#[test]
fn chunks_app_parses_with_count_or_connections() {
    let app = r#"{ kind = "chunks", file = "1GB", chunk = "1MB" }"#;
    let s = parse(&flow_with(app, "count = 4")).unwrap();
    assert_eq!(
        s.flows[0].app,
        AppSpec::Chunks {
            file: 1_000_000_000,
            chunk: 1_000_000
        }
    );
    assert_eq!(s.flows[0].count, 4);
    let app4 = r#"{ kind = "chunks", file = "1GB", chunk = "1MB", connections = 4 }"#;
    assert_eq!(parse(&flow_with(app4, "")).unwrap(), s);
    assert_eq!(parse(&flow_with(app4, "count = 4")).unwrap(), s);
    let one = parse(&flow_with(app, "")).unwrap();
    assert_eq!(one.flows[0].count, 1);
    // --set reaches into the app table like any other key.
    let set = parse_scenario(
        "test.toml",
        &flow_with(app, ""),
        &["flow.a.app.connections=4".to_string()],
    )
    .unwrap();
    assert_eq!(set, s);
}

#[test]
fn bad_chunk_keys_are_errors_naming_the_key() {
    let cases: &[(&str, &str, &str, &[&str])] = &[
        (
            r#"{ kind = "chunks", chunk = "1MB" }"#,
            "",
            "flow.a.app.file",
            &["missing", "1GB"],
        ),
        (
            r#"{ kind = "chunks", file = "1GB" }"#,
            "",
            "flow.a.app.chunk",
            &["missing", "1MB"],
        ),
        (
            r#"{ kind = "chunks", file = "1GB", chunk = "0B" }"#,
            "",
            "flow.a.app.chunk",
            &["at least 1B"],
        ),
        (
            r#"{ kind = "chunks", file = 1000, chunk = "1MB" }"#,
            "",
            "flow.a.app.file",
            &["needs a unit"],
        ),
        (
            r#"{ kind = "chunks", file = "1GB", chunk = "1MB", connections = 0 }"#,
            "",
            "flow.a.app.connections",
            &["from 1 to"],
        ),
        (
            r#"{ kind = "chunks", file = "1GB", chunk = "1MB", connections = "4" }"#,
            "",
            "flow.a.app.connections",
            &["integer"],
        ),
        (
            r#"{ kind = "chunks", file = "1GB", chunk = "1MB", connections = 4 }"#,
            "count = 3",
            "flow.a.app.connections",
            &["connections = 4", "count = 3"],
        ),
        (
            r#"{ kind = "chunks", file = "1GB", chunk = "1MB", chunks = 4 }"#,
            "",
            "flow.a.app.chunks",
            &[
                "unknown key",
                "file, chunk, connections",
                "did you mean \"chunk\"",
            ],
        ),
        (
            r#"{ kind = "chunk", file = "1GB", chunk = "1MB" }"#,
            "",
            "flow.a.app.kind",
            &["unknown app kind", "chunks"],
        ),
    ];
    for (app, extra, key, needles) in cases {
        common::expect_parse_error(parse(&flow_with(app, extra)), key, needles);
    }
}

#[test]
fn a_tail_drop_on_a_chunked_file_is_refused() {
    let text = r#"
[path]
rate = "10Mbps"
delay = "20ms"
loss = { model = "drop", flow = "a.2", tail = 1 }

[[flow]]
name = "a"
count = 2
app = { kind = "chunks", file = "10MB", chunk = "1MB" }
"#;
    common::expect_parse_error(parse(text), "path.loss.tail", &["chunked file"]);
}
