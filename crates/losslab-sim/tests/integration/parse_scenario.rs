//! The scenario contract (docs/SCENARIO.md) as the parser reads it: every
//! documented key, the defaults, every class of error, and `--set`.

use losslab_core::time::{MS, SEC};
use losslab_sim::parse::{
    apply_override, load_scenario, parse_scenario, ScenarioError, COMMAND_LINE,
};
use losslab_sim::scenario::{
    AckSpec, AppSpec, CcSpec, DropSpec, FlowSpec, LossModel, QueueLimit, ReceiverSpec, Reorder,
    Scenario,
};

/// The example of SCENARIO.md, verbatim except for its three algorithm
/// names, which this version does not implement yet (see
/// `contract_example_names_unimplemented_algorithms`).
const EXAMPLE: &str = r#"
name = "cubic-prr-20mbps"
duration = "200s"          # stop time; a run also ends when every flow has finished
seed = 1

[path]                     # the bottleneck, data direction
rate = "20Mbps"
delay = "50ms"             # one-way propagation delay; base RTT = 2 x delay unless [reverse] says otherwise
queue = "4.3MB"            # drop-tail buffer: a size, or packets as "300pkt"
loss = { model = "bernoulli", p = 0.001 }
# loss = { model = "none" }
# loss = { model = "gilbert-elliott", p_gb = 0.005, p_bg = 0.3, loss_good = 0.0, loss_bad = 0.5 }
# loss = { model = "drop", flow = "a", packets = [17, 18, 19] }   # data packets of flow "a", 1-based, counted in order of transmission
# loss = { model = "drop", flow = "a", segments = [9, 10] }       # the first transmission of data segments 9 and 10 (1-based)
# loss = { model = "drop", flow = "a", tail = 2 }                 # the first transmission of the last 2 segments of a sized flow
protect_retransmissions = false   # true: the loss model never drops a retransmission
reorder = { p = 0.0, delay = "0ms" }  # hold a packet back by `delay` with probability p

[reverse]                  # ACK direction (optional)
delay = "50ms"
loss = { model = "none" }

[[flow]]
name = "a"
start = "0s"
cc = "cubic"               # reno, newreno, cubic, westwood, veno, vegas, bbr, tcp-rr, fixed:32 (fixed window of 32 segments)
recovery = "prr"           # rfc6675 (alias rfc3517), rate-halving, prr (RFC 9937), prr-6937, qarr, barr, le
detection = "rack"         # dupthresh, fack, early-retransmit, rack, le
timers = "rto"             # rto, rtor, tlp, tlpr, rack-tlp
extensions = []            # e.g. ["opportunistic", "sndbuf-factor-3", "hack1", "or3"]
mss = "1448B"
init_cwnd = 10             # segments
min_rto = "200ms"
app = { kind = "bulk" }    # or { kind = "bytes", size = "50MB" }
                           # or { kind = "writes", writes = [["0ms", "20kB"], ["500ms", "10kB"]] }
sndbuf = "auto"            # or a size
receiver = { ack = "delayed", sack_blocks = 3, rcvbuf = "16MB", read_rate = "inf" }
                           # ack = "delayed" (every 2nd full segment or 200 ms, immediate on out-of-order) or "quick"
count = 1                  # N identical flows (parallel connections), named a.1 .. a.N
"#;

const BERNOULLI: &str = r#"loss = { model = "bernoulli", p = 0.001 }"#;
const BULK: &str = r#"app = { kind = "bulk" }"#;

const MINIMAL: &str = r#"
[path]
rate = "10Mbps"
delay = "20ms"

[[flow]]
"#;

fn parse(text: &str) -> Scenario {
    parse_scenario("test.toml", text, &[]).unwrap_or_else(|e| panic!("{e}"))
}

fn parse_with(text: &str, overrides: &[&str]) -> Result<Scenario, ScenarioError> {
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    parse_scenario("test.toml", text, &overrides)
}

/// Parses `text`, expects an error in the file at `key` whose message
/// contains every one of `needles`, and returns it.
#[track_caller]
fn file_error(text: &str, key: &str, needles: &[&str]) -> ScenarioError {
    let e = match parse_scenario("test.toml", text, &[]) {
        Ok(s) => panic!("expected an error at {key}, got {s:#?}"),
        Err(e) => e,
    };
    let shown = e.to_string();
    assert_eq!(e.file, "test.toml", "{shown}");
    assert_eq!(e.key, key, "{shown}");
    assert!(shown.starts_with(&format!("test.toml: {key}: ")), "{shown}");
    for needle in needles {
        assert!(shown.contains(needle), "{shown:?} lacks {needle:?}");
    }
    e
}

/// `MINIMAL` with `path_extra` appended to [path] and `flow_extra` to
/// the flow, which is named "a" unless `flow_extra` names it.
fn minimal_with(path_extra: &str, flow_extra: &str) -> String {
    let name = if flow_extra.starts_with("name") {
        ""
    } else {
        "name = \"a\"\n"
    };
    format!(
        "[path]\nrate = \"10Mbps\"\ndelay = \"20ms\"\n{path_extra}\n\n[[flow]]\n{name}{flow_extra}\n"
    )
}

#[test]
fn contract_example_parses() {
    let s = parse(EXAMPLE);
    assert_eq!(s.name, "cubic-prr-20mbps");
    assert_eq!(s.duration, 200 * SEC);
    assert_eq!(s.seed, 1);
    assert_eq!(s.path.rate, 20_000_000);
    assert_eq!(s.path.delay, 50 * MS);
    assert_eq!(s.path.queue, QueueLimit::Bytes(4_300_000));
    assert_eq!(s.path.loss, LossModel::Bernoulli { p: 0.001 });
    assert!(!s.path.protect_retransmissions);
    assert_eq!(s.path.reorder, Reorder { p: 0.0, delay: 0 });
    assert_eq!(s.path.duplicate, 0.0);
    assert_eq!(s.reverse.delay, 50 * MS);
    assert_eq!(s.reverse.loss, LossModel::None);
    assert_eq!(s.reverse.reorder, Reorder::default());
    assert_eq!(s.reverse.duplicate, 0.0);
    assert_eq!(s.flows.len(), 1);
    let f = &s.flows[0];
    // The contract's example verbatim: every algorithm it names exists.
    // Apart from those, what it sets equals the engine defaults.
    assert_eq!(f.cc, CcSpec::Named("cubic".into()));
    assert_eq!(f.recovery, "prr");
    assert_eq!(f.detection, "rack");
    let mut expected = FlowSpec::new("a");
    expected.cc = CcSpec::Named("cubic".into());
    expected.detection = "rack".into();
    assert_eq!(f, &expected);
    assert_eq!(f.timers, "rto");
    assert_eq!(f.mss, 1448);
    assert_eq!(f.init_cwnd, 10);
    assert_eq!(f.min_rto, 200 * MS);
    assert_eq!(f.app, AppSpec::Bulk);
    assert_eq!(f.sndbuf, None);
    assert_eq!(f.receiver, ReceiverSpec::default());
    assert_eq!(f.count, 1);
}

#[test]
fn contract_example_with_le_parses_and_typos_list_every_algorithm() {
    // Issue 16 implemented `le`, the contract's last algorithm names: the
    // example with LE's detection and recovery parses, and a name outside
    // the contract is "unknown" with the implemented ones listed.
    let le = EXAMPLE
        .replace(r#"recovery = "prr"  "#, r#"recovery = "le""#)
        .replace(r#"detection = "rack" "#, r#"detection = "le""#);
    let sc = parse(&le);
    assert_eq!(
        (
            sc.flows[0].recovery.as_str(),
            sc.flows[0].detection.as_str()
        ),
        ("le", "le")
    );
    let cases = [
        (
            r#"recovery = "prr""#,
            r#"recovery = "lee""#,
            "flow.a.recovery",
            format!(
                r#"unknown recovery algorithm "lee" (expected one of: {})"#,
                losslab_core::recovery::NAMES.join(", ")
            ),
        ),
        (
            r#"detection = "rack""#,
            r#"detection = "lee""#,
            "flow.a.detection",
            format!(
                r#"(expected one of: {})"#,
                losslab_core::detect::NAMES.join(", ")
            ),
        ),
    ];
    for (from, to, key, message) in cases {
        file_error(&EXAMPLE.replace(from, to), key, &[message.as_str()]);
    }
}

#[test]
fn contract_congestion_controllers_all_parse() {
    for cc in [
        "reno",
        "newreno",
        "cubic",
        "cubic-linux",
        "westwood",
        "westwood-original",
        "veno",
        "vegas",
        "bbr",
        "tcp-rr",
        "fixed:32",
    ] {
        let text = EXAMPLE.replace(r#"cc = "cubic""#, &format!(r#"cc = "{cc}""#));
        let sc = parse(&text);
        assert_eq!(sc.flows[0].cc.name(), cc);
    }
}

#[test]
fn contract_example_loss_alternatives() {
    let sized = EXAMPLE.replace(BULK, r#"app = { kind = "bytes", size = "50MB" }"#);
    let cases: [(&str, LossModel); 5] = [
        (r#"loss = { model = "none" }"#, LossModel::None),
        (
            r#"loss = { model = "gilbert-elliott", p_gb = 0.005, p_bg = 0.3, loss_good = 0.0, loss_bad = 0.5 }"#,
            LossModel::GilbertElliott {
                p_gb: 0.005,
                p_bg: 0.3,
                loss_good: 0.0,
                loss_bad: 0.5,
            },
        ),
        (
            r#"loss = { model = "drop", flow = "a", packets = [17, 18, 19] }"#,
            LossModel::Drop {
                flow: "a".into(),
                which: DropSpec::Packets(vec![17, 18, 19]),
            },
        ),
        (
            r#"loss = { model = "drop", flow = "a", segments = [9, 10] }"#,
            LossModel::Drop {
                flow: "a".into(),
                which: DropSpec::Segments(vec![9, 10]),
            },
        ),
        (
            r#"loss = { model = "drop", flow = "a", tail = 2 }"#,
            LossModel::Drop {
                flow: "a".into(),
                which: DropSpec::Tail(2),
            },
        ),
    ];
    for (line, model) in cases {
        let s = parse(&sized.replace(BERNOULLI, line));
        assert_eq!(s.path.loss, model, "{line}");
    }
    // The tail of a bulk flow does not exist.
    file_error(
        &EXAMPLE.replace(
            BERNOULLI,
            r#"loss = { model = "drop", flow = "a", tail = 2 }"#,
        ),
        "path.loss.tail",
        &["bulk"],
    );
}

#[test]
fn contract_example_app_kinds_and_fixed_window() {
    let cases = [
        (
            r#"app = { kind = "bytes", size = "50MB" }"#,
            AppSpec::Bytes(50_000_000),
        ),
        (
            r#"app = { kind = "writes", writes = [["0ms", "20kB"], ["500ms", "10kB"]] }"#,
            AppSpec::Writes(vec![(0, 20_000), (500 * MS, 10_000)]),
        ),
        (BULK, AppSpec::Bulk),
    ];
    for (line, app) in cases {
        assert_eq!(
            parse(&EXAMPLE.replace(BULK, line)).flows[0].app,
            app,
            "{line}"
        );
    }
    let s = parse(&EXAMPLE.replace(r#"cc = "cubic""#, r#"cc = "fixed:32""#));
    assert_eq!(s.flows[0].cc, CcSpec::Fixed(32));
    assert_eq!(s.flows[0].cc.name(), "fixed:32");
}

#[test]
fn minimal_scenario_gets_the_defaults() {
    let s = parse_scenario("dir/bulk.toml", MINIMAL, &[]).unwrap();
    assert_eq!(s.name, "bulk");
    assert_eq!(s.duration, 60 * SEC);
    assert_eq!(s.seed, 1);
    assert_eq!(s.path.queue, QueueLimit::Packets(1000));
    assert_eq!(s.path.loss, LossModel::None);
    assert!(!s.path.protect_retransmissions);
    assert_eq!(s.path.reorder, Reorder::default());
    assert_eq!(s.path.duplicate, 0.0);
    // Without [reverse], ACKs see the forward delay and nothing else.
    assert_eq!(s.reverse.delay, 20 * MS);
    assert_eq!(s.reverse.loss, LossModel::None);
    assert_eq!(s.reverse.reorder, Reorder::default());
    assert_eq!(s.reverse.duplicate, 0.0);
    assert_eq!(s.flows, vec![FlowSpec::new("a")]);
}

#[test]
fn unnamed_flows_are_named_by_position() {
    let text = format!("{MINIMAL}\n[[flow]]\n[[flow]]\nname = \"x\"\n[[flow]]\n");
    let names: Vec<String> = parse(&text).flows.into_iter().map(|f| f.name).collect();
    assert_eq!(names, ["a", "b", "x", "d"]);
}

#[test]
fn added_and_optional_keys() {
    let text = r#"
duration = "1.5m"
seed = 42
[path]
rate = "1Gbps"
delay = "10ms"
queue = "300pkt"
protect_retransmissions = true
reorder = { p = 0.01, delay = "3ms" }
duplicate = 0.001
[reverse]
loss = { model = "bernoulli", p = 1 }
reorder = { p = 0.5, delay = "1ms" }
duplicate = 0
[[flow]]
name = "bulk"
start = "2s"
extensions = []
mss = "9000B"
init_cwnd = 4
min_rto = "1s"
sndbuf = "4MiB"
receiver = { ack = "quick", sack_blocks = 0, rcvbuf = "64KiB", read_rate = "10Mbps" }
count = 4
[[flow]]
receiver = { sack_blocks = 4 }
"#;
    let s = parse(text);
    assert_eq!(s.duration, 90 * SEC);
    assert_eq!(s.seed, 42);
    assert_eq!(s.path.queue, QueueLimit::Packets(300));
    assert!(s.path.protect_retransmissions);
    assert_eq!(
        s.path.reorder,
        Reorder {
            p: 0.01,
            delay: 3 * MS
        }
    );
    assert_eq!(s.path.duplicate, 0.001);
    assert_eq!(s.reverse.delay, 10 * MS, "[reverse] without delay");
    assert_eq!(s.reverse.loss, LossModel::Bernoulli { p: 1.0 });
    assert_eq!(s.reverse.reorder, Reorder { p: 0.5, delay: MS });
    let f = &s.flows[0];
    assert_eq!(f.start, 2 * SEC);
    assert_eq!(f.mss, 9000);
    assert_eq!(f.init_cwnd, 4);
    assert_eq!(f.min_rto, SEC);
    assert_eq!(f.sndbuf, Some(4 << 20));
    assert_eq!(
        f.receiver,
        ReceiverSpec {
            ack: AckSpec::Quick,
            sack_blocks: 0,
            rcvbuf: 65_536,
            read_rate: Some(1_250_000),
            ..ReceiverSpec::default()
        }
    );
    assert_eq!(f.count, 4);
    assert_eq!(s.flows[1].name, "b");
    assert_eq!(s.flows[1].receiver.sack_blocks, 4);
    assert_eq!(s.flows[1].receiver.ack, AckSpec::Delayed);
}

#[test]
fn implemented_algorithm_names_are_accepted() {
    for (key, names) in [
        ("recovery", losslab_core::recovery::NAMES),
        ("detection", losslab_core::detect::NAMES),
        ("timers", losslab_core::timers::NAMES),
    ] {
        for name in names {
            let s = parse(&minimal_with("", &format!("{key} = {name:?}")));
            let got = match key {
                "recovery" => &s.flows[0].recovery,
                "detection" => &s.flows[0].detection,
                _ => &s.flows[0].timers,
            };
            assert_eq!(got, name);
        }
    }
    // Every congestion control losslab-core implements is accepted.
    for name in losslab_core::cc::NAMES {
        let name = name.replace(":N", ":7");
        parse(&minimal_with("", &format!("cc = {name:?}")));
    }
}

#[test]
fn old_linux_prr_values_parse_and_their_near_misses_name_the_key() {
    // Issue 32: `prr-linux-3` (Linux 3.2-3.17) and `prr-linux-4.10`; the
    // default stays `prr`.
    for good in ["prr-linux-3", "prr-linux-4.10"] {
        let s = parse(&minimal_with("", &format!("recovery = {good:?}")));
        assert_eq!(s.flows[0].recovery, good);
    }
    for bad in [
        "prr-linux-3.2",
        "prr-linux-4",
        "prr-linux-4.1",
        "prr-linux-410",
        "prr-linux-4_10",
        "PRR-linux-3",
    ] {
        file_error(
            &minimal_with("", &format!("recovery = {bad:?}")),
            "flow.a.recovery",
            &[
                &format!("unknown recovery algorithm {bad:?}"),
                "prr-linux, prr-linux-3, prr-linux-4.10,",
            ],
        );
    }
}

#[test]
fn prr_linux_parses_and_its_near_misses_name_the_key() {
    // Issue 32: `prr-linux` is Linux 6.x's tcp_cwnd_reduction(); `prr`
    // stays RFC 9937's and remains the default.
    let s = parse(&minimal_with("", "recovery = \"prr-linux\""));
    assert_eq!(s.flows[0].recovery, "prr-linux");
    assert_eq!(parse(&minimal_with("", "")).flows[0].recovery, "prr");
    for bad in ["prr_linux", "PRR-linux", "prr-linux-6", "linux-prr", ""] {
        file_error(
            &minimal_with("", &format!("recovery = {bad:?}")),
            "flow.a.recovery",
            &[
                &format!("unknown recovery algorithm {bad:?}"),
                "prr, prr-linux,",
            ],
        );
    }
    file_error(
        &minimal_with("", "recovery = 1"),
        "flow.a.recovery",
        &["expected a recovery algorithm name, got the integer 1"],
    );
}

#[test]
fn toml_syntax_error_names_the_file_and_position() {
    let e = parse_scenario("broken.toml", "[path\nrate = 1", &[]).unwrap_err();
    assert_eq!(e.key, "");
    let shown = e.to_string();
    assert!(shown.starts_with("broken.toml: "), "{shown}");
    assert!(shown.contains("line 1"), "{shown}");
}

#[test]
fn unreadable_file() {
    let e = load_scenario(std::path::Path::new("/nonexistent/x.toml"), &[]).unwrap_err();
    assert_eq!(e.file, "/nonexistent/x.toml");
    assert_eq!(e.key, "");
    assert!(e
        .to_string()
        .starts_with("/nonexistent/x.toml: cannot read"));
}

#[test]
fn load_scenario_reads_a_file() {
    let dir = std::env::temp_dir().join(format!("losslab-parse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("lossy.toml");
    std::fs::write(&file, MINIMAL).unwrap();
    let s = load_scenario(
        &file,
        &["path.loss.model=bernoulli".into(), "path.loss.p=0.5".into()],
    )
    .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(s.name, "lossy");
    assert_eq!(s.path.loss, LossModel::Bernoulli { p: 0.5 });
}

#[test]
fn display_format() {
    let e = ScenarioError {
        file: "bulk.toml".into(),
        key: "path.rate".into(),
        message: "expected a rate like \"20Mbps\", got \"fast\"".into(),
    };
    assert_eq!(
        e.to_string(),
        "bulk.toml: path.rate: expected a rate like \"20Mbps\", got \"fast\""
    );
    let boxed: Box<dyn std::error::Error> = Box::new(e);
    assert!(boxed.to_string().starts_with("bulk.toml"));
}

#[test]
fn unknown_keys_are_named_with_what_is_allowed() {
    file_error(
        &format!("colour = 1\n{MINIMAL}"),
        "colour",
        &[
            "unknown key \"colour\"",
            "name, duration, seed, path, reverse, flow",
        ],
    );
    file_error(
        &minimal_with("bandwith = \"1Mbps\"", ""),
        "path.bandwith",
        &["unknown key", "rate, delay, queue, loss"],
    );
    file_error(
        &minimal_with("", "recovey = \"rfc6675\""),
        "flow.a.recovey",
        &["unknown key \"recovey\"", "did you mean \"recovery\"?"],
    )
    .to_string();
    file_error(
        &minimal_with("", "receiver = { ack = \"quick\", sack = 3 }"),
        "flow.a.receiver.sack",
        &["ack, sack_blocks, rcvbuf, read_rate"],
    );
    file_error(
        &minimal_with("loss = { model = \"bernoulli\", p = 0.1, q = 0.2 }", ""),
        "path.loss.q",
        &["unknown key", "model, p"],
    );
    file_error(
        &minimal_with(
            "reorder = { p = 0.1, delay = \"1ms\", jitter = \"1ms\" }",
            "",
        ),
        "path.reorder.jitter",
        &["p, delay"],
    );
    file_error(
        &format!("{MINIMAL}\n[reverse]\nbandwidth = \"1Mbps\"\n"),
        "reverse.bandwidth",
        &["delay, loss, reorder, duplicate, rate, queue"],
    );
    file_error(
        &minimal_with("", "app = { kind = \"bulk\", size = \"1MB\" }"),
        "flow.a.app.size",
        &["unknown key", "kind"],
    );
    // A flow without a name is shown by index.
    file_error(
        &format!("{MINIMAL}\n[[flow]]\nmsss = \"1B\"\n"),
        "flow[1].msss",
        &["unknown key"],
    );
}

#[test]
fn algorithm_parameter_tables() {
    // LE's table: its one key, its names, and only with detection = "le".
    let text = format!("{}\n[flow.le]\norder = \"echo\"\n", minimal_with("", ""));
    file_error(
        &text,
        "flow.a.le",
        &[r#"parameters for le given but this flow's detection is "dupthresh""#],
    );
    let le = |table: &str| {
        format!(
            "{}\n[flow.le]\n{table}\n",
            minimal_with("", "detection = \"le\"")
        )
    };
    file_error(&le("x = 5"), "flow.a.le.x", &["unknown key", "order"]);
    file_error(
        &le("order = \"ts\""),
        "flow.a.le.order",
        &[r#"unknown order "ts" (expected one of: sack, echo)"#],
    );
    assert_eq!(
        parse(&le("order = \"echo\"")).flows[0].le_order,
        losslab_core::detect::LeOrder::Echo
    );
    // grow_in_recovery belongs to the le recovery, not the detector.
    file_error(
        &le("grow_in_recovery = true"),
        "flow.a.le.grow_in_recovery",
        &[r#"read only with recovery = "le", and this flow's recovery is "prr""#],
    );
    file_error(
        &format!(
            "{}\n[flow.le]\ngrow_in_recovery = 1\n",
            minimal_with("", "recovery = \"le\"")
        ),
        "flow.a.le.grow_in_recovery",
        &["expected true or false"],
    );
    let grow = parse(&format!(
        "{}\n[flow.le]\ngrow_in_recovery = true\n",
        minimal_with("", "recovery = \"le\"")
    ));
    assert!(grow.flows[0].le_grow_in_recovery);
    assert_eq!(grow.flows[0].le_order, losslab_core::detect::LeOrder::Sack);
    // OR3's table: its keys, their ranges, and only with the extension.
    let text = format!("{}\n[flow.or3]\nx = 5\n", minimal_with("", ""));
    file_error(
        &text,
        "flow.a.or3.x",
        &["unknown key \"x\"", "max_replicas"],
    );
    let text = format!("{}\n[flow.or3]\nmax_replicas = 7\n", minimal_with("", ""));
    file_error(
        &text,
        "flow.a.or3",
        &["parameters for or3 given but this flow's extensions do not include \"or3\""],
    );
    let or3 = minimal_with("", "extensions = [\"or3\"]\n");
    for (body, key, want) in [
        (
            "max_replicas = 0",
            "max_replicas",
            "copies of one retransmission",
        ),
        (
            "max_replicas = 256",
            "max_replicas",
            "copies of one retransmission",
        ),
        ("spread_cycles = 0", "spread_cycles", "sending cycles"),
        ("redundancy = 1", "redundancy", "expected true or false"),
        (
            "overbooking = \"lots\"",
            "overbooking",
            "expected \"released\", \"free-buffer\" or \"off\"",
        ),
    ] {
        file_error(
            &format!("{or3}\n[flow.or3]\n{body}\n"),
            &format!("flow.a.or3.{key}"),
            &[want],
        );
    }
    let text = format!("{}\n[flow.rfc6675]\nx = 5\n", minimal_with("", ""));
    file_error(&text, "flow.a.rfc6675", &["takes no parameters"]);
    for alg in ["qarr", "barr"] {
        let text = format!("{}\n[flow.{alg}]\nx = 5\n", minimal_with("", ""));
        file_error(
            &text,
            &format!("flow.a.{alg}.x"),
            &["unknown key \"x\"", "rtt_source"],
        );
    }
}

#[test]
fn qarr_and_barr_parse_with_and_without_their_tables() {
    use losslab_core::recovery::AckRtt;
    let flow = |extra: &str| parse(&minimal_with("", extra)).flows[0].clone();
    // Without a table: the paper's defaults (section VI).
    for alg in ["qarr", "barr"] {
        let f = flow(&format!("recovery = \"{alg}\""));
        assert_eq!(f.recovery, alg);
        assert_eq!(f.qarr_queue_len_threshold, 5);
        assert_eq!(f.barr_slide_wnd_size, 200);
        assert_eq!(f.recovery_rtt_source, AckRtt::Delivered);
    }
    // The paper's key names and the contract's aliases.
    for key in ["queue_len_threshold", "target_queue"] {
        let f = flow(&format!("recovery = \"qarr\"\n[flow.qarr]\n{key} = 9"));
        assert_eq!(
            (f.qarr_queue_len_threshold, f.barr_slide_wnd_size),
            (9, 200)
        );
    }
    for key in ["slide_wnd_size", "window"] {
        let f = flow(&format!(
            "recovery = \"barr\"\n[flow.barr]\n{key} = 4294967295"
        ));
        assert_eq!(
            (f.qarr_queue_len_threshold, f.barr_slide_wnd_size),
            (5, u32::MAX)
        );
    }
    let f = flow("recovery = \"barr\"\n[flow.barr]\nrtt_source = \"delivered\"");
    assert_eq!(f.recovery_rtt_source, AckRtt::Delivered);
    let f = flow("recovery = \"qarr\"\n[flow.qarr]\nrtt_source = \"tsecr\"\ntarget_queue = 1");
    assert_eq!(
        (f.recovery_rtt_source, f.qarr_queue_len_threshold),
        (AckRtt::TsEcr, 1)
    );
    // How eq. 2 is applied: the text's per-ACK reading by default.
    use losslab_core::recovery::QarrUpdate;
    assert_eq!(flow("recovery = \"qarr\"").qarr_update, QarrUpdate::PerAck);
    for (name, u) in [
        ("per-ack", QarrUpdate::PerAck),
        ("per-rtt", QarrUpdate::PerRtt),
        ("pipe", QarrUpdate::Pipe),
    ] {
        let f = flow(&format!(
            "recovery = \"qarr\"\n[flow.qarr]\nupdate = \"{name}\""
        ));
        assert_eq!(f.qarr_update, u);
    }
    file_error(
        &minimal_with(
            "",
            "recovery = \"qarr\"\n[flow.qarr]\nupdate = \"per-round\"",
        ),
        "flow.a.qarr.update",
        &["per-ack", "per-rtt", "pipe"],
    );
    file_error(
        &minimal_with("", "recovery = \"barr\"\n[flow.barr]\nupdate = \"pipe\""),
        "flow.a.barr.update",
        &["unknown key \"update\""],
    );
    // An empty table is the defaults too.
    assert_eq!(
        flow("recovery = \"qarr\"\n[flow.qarr]"),
        flow("recovery = \"qarr\"")
    );

    for v in ["0", "-1", "4294967296", "2.5", "\"5\"", "true"] {
        file_error(
            &minimal_with(
                "",
                &format!("recovery = \"qarr\"\n[flow.qarr]\ntarget_queue = {v}"),
            ),
            "flow.a.qarr.target_queue",
            &["expected an integer from 1 to 4294967295 (segments of queue)"],
        );
        file_error(
            &minimal_with(
                "",
                &format!("recovery = \"barr\"\n[flow.barr]\nslide_wnd_size = {v}"),
            ),
            "flow.a.barr.slide_wnd_size",
            &["expected an integer from 1 to 4294967295 (ACKs)"],
        );
    }
    file_error(
        &minimal_with(
            "",
            "recovery = \"qarr\"\n[flow.qarr]\nqueue_len_threshold = 5\ntarget_queue = 5",
        ),
        "flow.a.qarr.target_queue",
        &["target_queue is another name for queue_len_threshold; give one of them"],
    );
    file_error(
        &minimal_with(
            "",
            "recovery = \"barr\"\n[flow.barr]\nrtt_source = \"rack\"",
        ),
        "flow.a.barr.rtt_source",
        &["unknown rtt_source \"rack\" (expected one of: tsecr, delivered)"],
    );
    file_error(
        &minimal_with("", "recovery = \"barr\"\nbarr = 200"),
        "flow.a.barr",
        &["a table like [flow.barr] slide_wnd_size = 200"],
    );
    // A table for an algorithm the flow does not use, as for the others.
    file_error(
        &minimal_with("", "[flow.qarr]\ntarget_queue = 5"),
        "flow.a.qarr",
        &["parameters for qarr given but this flow's recovery is \"prr\"; set recovery = \"qarr\" or remove [flow.qarr]"],
    );
    file_error(
        &minimal_with("", "recovery = \"qarr\"\n[flow.barr]\nwindow = 200"),
        "flow.a.barr",
        &["parameters for barr given but this flow's recovery is \"qarr\""],
    );
}

#[test]
fn wrong_types_say_what_was_expected() {
    let e = file_error(
        &minimal_with("", "").replace("\"10Mbps\"", "\"fast\""),
        "path.rate",
        &[r#"expected a rate like "20Mbps""#, r#"got "fast""#],
    );
    assert!(e
        .to_string()
        .starts_with(r#"test.toml: path.rate: expected a rate like "20Mbps""#));
    // Numbers where a unit is required.
    file_error(
        &minimal_with("", "").replace("\"20ms\"", "50"),
        "path.delay",
        &["expected a string like", "needs a unit", "\"50ms\""],
    );
    file_error(
        &minimal_with("", "").replace("\"10Mbps\"", "20"),
        "path.rate",
        &[r#"expected a string like "20Mbps""#],
    );
    file_error(
        &minimal_with("", "mss = 1448"),
        "flow.a.mss",
        &["needs a unit"],
    );
    file_error(
        &minimal_with("queue = 300", ""),
        "path.queue",
        &["needs a unit"],
    );
    file_error(
        &minimal_with("", "sndbuf = 100"),
        "flow.a.sndbuf",
        &["needs a unit"],
    );
    file_error(
        &minimal_with("", "init_cwnd = \"10\""),
        "flow.a.init_cwnd",
        &["expected an integer"],
    );
    file_error(
        &minimal_with("", "init_cwnd = 10.0"),
        "flow.a.init_cwnd",
        &["expected an integer"],
    );
    file_error(
        &minimal_with("", "count = 1.5"),
        "flow.a.count",
        &["expected an integer"],
    );
    file_error(
        &format!("seed = \"3\"\n{MINIMAL}"),
        "seed",
        &["expected an integer"],
    );
    file_error(
        &format!("seed = -3\n{MINIMAL}"),
        "seed",
        &["expected an integer"],
    );
    file_error(
        &format!("name = 3\n{MINIMAL}"),
        "name",
        &["expected a string"],
    );
    file_error(
        &minimal_with("protect_retransmissions = \"yes\"", ""),
        "path.protect_retransmissions",
        &["expected true or false"],
    );
    file_error(
        &minimal_with("loss = \"none\"", ""),
        "path.loss",
        &["expected a table"],
    );
    file_error(
        &minimal_with("loss = { p = 0.1 }", ""),
        "path.loss.model",
        &["missing"],
    );
    file_error(
        &minimal_with("duplicate = \"0.1\"", ""),
        "path.duplicate",
        &["expected a probability"],
    );
    file_error(
        &minimal_with("", "cc = 3"),
        "flow.a.cc",
        &["expected a congestion control name"],
    );
    file_error(
        &minimal_with("", "extensions = \"hack1\""),
        "flow.a.extensions",
        &["expected an array"],
    );
    file_error(
        &minimal_with("", "extensions = [1]"),
        "flow.a.extensions[0]",
        &["expected an extension name"],
    );
    file_error(
        &minimal_with("", "app = \"bulk\""),
        "flow.a.app",
        &["expected a table"],
    );
    file_error(
        &minimal_with("", "app = { size = \"1MB\" }"),
        "flow.a.app.kind",
        &["missing"],
    );
    file_error(
        &minimal_with("", "receiver = { ack = true }"),
        "flow.a.receiver.ack",
        &["\"delayed\" or \"quick\""],
    );
    file_error(
        &minimal_with("", "receiver = { read_rate = \"fast\" }"),
        "flow.a.receiver.read_rate",
        &[r#"expected "inf" or a rate like"#],
    );
    file_error(
        &minimal_with("", "sndbuf = \"big\""),
        "flow.a.sndbuf",
        &[r#"expected "auto" or a size like"#],
    );
    file_error(
        &minimal_with(
            "",
            "app = { kind = \"writes\", writes = [\"0ms\", \"1kB\"] }",
        ),
        "flow.a.app.writes[0]",
        &["[time, size] pair"],
    );
    file_error(
        &minimal_with(
            "",
            "app = { kind = \"writes\", writes = [[\"0ms\", 1000]] }",
        ),
        "flow.a.app.writes[0][1]",
        &["needs a unit"],
    );
    file_error(
        &MINIMAL.replace("[[flow]]", "[flow]"),
        "flow",
        &["[[flow]]"],
    );
    file_error(
        &format!("flow = 3\n{}", MINIMAL.replace("[[flow]]", "")),
        "flow",
        &["expected an array"],
    );
}

#[test]
fn impossible_values() {
    let p = |line: &str, key: &str, needle: &str| {
        file_error(&minimal_with(line, ""), key, &[needle]);
    };
    p(
        "loss = { model = \"bernoulli\", p = 1.5 }",
        "path.loss.p",
        "from 0 to 1",
    );
    p(
        "loss = { model = \"bernoulli\", p = -0.1 }",
        "path.loss.p",
        "from 0 to 1",
    );
    p(
        "loss = { model = \"bernoulli\", p = 2 }",
        "path.loss.p",
        "from 0 to 1",
    );
    p(
        "loss = { model = \"bernoulli\", p = nan }",
        "path.loss.p",
        "from 0 to 1",
    );
    p("loss = { model = \"bernoulli\" }", "path.loss.p", "missing");
    p(
        "loss = { model = \"gilbert-elliott\", p_gb = 0.1, p_bg = 1.1, loss_good = 0, loss_bad = 1 }",
        "path.loss.p_bg",
        "from 0 to 1",
    );
    p(
        "loss = { model = \"gilbert-elliott\", p_gb = 0.1, p_bg = 0.1, loss_bad = 1 }",
        "path.loss.loss_good",
        "missing",
    );
    p(
        "reorder = { p = 1.01, delay = \"1ms\" }",
        "path.reorder.p",
        "from 0 to 1",
    );
    p("reorder = { p = 0.1 }", "path.reorder.delay", "missing");
    p("duplicate = 1.5", "path.duplicate", "from 0 to 1");
    p(
        "loss = { model = \"uniform\", p = 0.1 }",
        "path.loss.model",
        "unknown loss model \"uniform\" (expected one of: none, bernoulli, gilbert-elliott, drop)",
    );
    p("queue = \"0pkt\"", "path.queue", "at least one packet");
    p(
        "loss = { model = \"drop\", flow = \"a\" }",
        "path.loss",
        "needs one of: packets, segments, tail",
    );
    p(
        "loss = { model = \"drop\", flow = \"a\", packets = [1], tail = 2 }",
        "path.loss.tail",
        "only one of",
    );
    p(
        "loss = { model = \"drop\", flow = \"a\", segments = [1], packets = [2] }",
        "path.loss.segments",
        "only one of",
    );
    p(
        "loss = { model = \"drop\", flow = \"a\", packets = [3, 0] }",
        "path.loss.packets[1]",
        "1-based",
    );
    p(
        "loss = { model = \"drop\", flow = \"a\", segments = [0] }",
        "path.loss.segments[0]",
        "1-based",
    );
    p(
        "loss = { model = \"drop\", flow = \"a\", tail = 0 }",
        "path.loss.tail",
        "at least 1",
    );
    p(
        "loss = { model = \"drop\", flow = \"zz\", packets = [1] }",
        "path.loss.flow",
        "no flow named \"zz\" (flows: \"a\")",
    );
    p(
        "loss = { model = \"drop\", packets = [1] }",
        "path.loss.flow",
        "missing",
    );

    let text = minimal_with("", "").replace("\"10Mbps\"", "\"0Mbps\"");
    file_error(&text, "path.rate", &["greater than 0"]);
    file_error(
        &MINIMAL.replace("rate = \"10Mbps\"\n", ""),
        "path.rate",
        &["missing"],
    );
    file_error(
        &MINIMAL.replace("delay = \"20ms\"\n", ""),
        "path.delay",
        &["missing"],
    );
    file_error("[[flow]]\n", "path", &["missing"]);
    file_error(
        &format!("duration = \"0s\"\n{MINIMAL}"),
        "duration",
        &["greater than 0"],
    );
    file_error(
        &format!("duration = \"-1s\"\n{MINIMAL}"),
        "duration",
        &["negative"],
    );

    let f = |line: &str, key: &str, needle: &str| {
        file_error(&minimal_with("", line), key, &[needle]);
    };
    f("mss = \"0B\"", "flow.a.mss", "from 1B to 65535B");
    f("mss = \"65536B\"", "flow.a.mss", "from 1B to 65535B");
    f("init_cwnd = 0", "flow.a.init_cwnd", "at least 1");
    f("count = 0", "flow.a.count", "from 1 to");
    f("count = 5000000000", "flow.a.count", "from 1 to");
    f(
        "receiver = { sack_blocks = 5 }",
        "flow.a.receiver.sack_blocks",
        "from 0 to 4",
    );
    f(
        "receiver = { sack_blocks = -1 }",
        "flow.a.receiver.sack_blocks",
        "from 0 to 4",
    );
    f(
        "receiver = { rcvbuf = \"0B\" }",
        "flow.a.receiver.rcvbuf",
        "at least 1B",
    );
    f(
        "receiver = { read_rate = \"1bps\" }",
        "flow.a.receiver.read_rate",
        "at least 8bps",
    );
    f(
        "receiver = { ack = \"lazy\" }",
        "flow.a.receiver.ack",
        "unknown ack mode",
    );
    f("sndbuf = \"0B\"", "flow.a.sndbuf", "at least 1B");
    f("start = \"60s\"", "flow.a.start", "already ended");
    f("app = { kind = \"bytes\" }", "flow.a.app.size", "missing");
    f(
        "app = { kind = \"bytes\", size = \"0B\" }",
        "flow.a.app.size",
        "at least 1B",
    );
    f(
        "app = { kind = \"stream\" }",
        "flow.a.app.kind",
        "unknown app kind \"stream\"",
    );
    f(
        "app = { kind = \"writes\", writes = [] }",
        "flow.a.app.writes",
        "at least one write",
    );
    f(
        "app = { kind = \"writes\", writes = [[\"500ms\", \"1kB\"], [\"100ms\", \"1kB\"]] }",
        "flow.a.app.writes[1][0]",
        "in time order",
    );
    f(
        "app = { kind = \"writes\", writes = [[\"0ms\", \"0B\"]] }",
        "flow.a.app.writes[0][1]",
        "at least 1B",
    );
    f("name = \"\"", "flow[0].name", "bad flow name");
    f("name = \"a.b\"", "flow[0].name", "bad flow name");
}

#[test]
fn algorithm_names() {
    let f = |line: &str, key: &str, needle: &str| {
        file_error(&minimal_with("", line), key, &[needle]);
    };
    let contract = [
        "reno", "newreno", "cubic", "westwood", "veno", "vegas", "bbr", "tcp-rr",
    ];
    for name in contract
        .iter()
        .filter(|n| !losslab_core::cc::NAMES.contains(n))
    {
        f(
            &format!("cc = {name:?}"),
            "flow.a.cc",
            &format!(
                "cc {name:?} is not implemented in this version of losslab (available: {})",
                losslab_core::cc::NAMES.join(", ")
            ),
        );
    }
    f(
        "cc = \"foo\"",
        "flow.a.cc",
        "unknown congestion control \"foo\" (expected one of: reno, newreno, cubic",
    );
    f("cc = \"fixed:0\"", "flow.a.cc", "fixed:N");
    f("cc = \"fixed:x\"", "flow.a.cc", "fixed:N");
    f("cc = \"fixed\"", "flow.a.cc", "fixed:N");
    let parts: [(&str, &[&str], &[&str]); 3] = [
        (
            "recovery",
            &[
                "rfc6675",
                "rfc3517",
                "rate-halving",
                "prr",
                "prr-6937",
                "prr-linux",
                "prr-linux-3",
                "prr-linux-4.10",
                "qarr",
                "barr",
                "le",
            ],
            losslab_core::recovery::NAMES,
        ),
        (
            "detection",
            &["dupthresh", "fack", "early-retransmit", "rack", "le"],
            losslab_core::detect::NAMES,
        ),
        (
            "timers",
            &["rto", "rtor", "tlp", "tlpr", "rack-tlp"],
            losslab_core::timers::NAMES,
        ),
    ];
    for (key, contract, implemented) in parts {
        for name in contract.iter().filter(|n| !implemented.contains(n)) {
            f(
                &format!("{key} = {name:?}"),
                &format!("flow.a.{key}"),
                &format!(
                    "{key} {name:?} is not implemented in this version of losslab (available: {})",
                    implemented.join(", ")
                ),
            );
        }
        f(
            &format!("{key} = \"nope\""),
            &format!("flow.a.{key}"),
            "unknown",
        );
        f(
            &format!("{key} = \"nope\""),
            &format!("flow.a.{key}"),
            contract[1],
        );
    }
    for ext in ["opportunistic", "sndbuf-factor-3", "hack1", "or3"]
        .iter()
        .filter(|e| !losslab_core::sender::EXTENSIONS.contains(e))
    {
        f(
            &format!("extensions = [{ext:?}]"),
            "flow.a.extensions[0]",
            &format!("extension {ext:?} is not implemented in this version of losslab"),
        );
    }
    f(
        "extensions = [\"turbo\"]",
        "flow.a.extensions[0]",
        "unknown extension \"turbo\"",
    );
}

#[test]
fn flow_set_errors() {
    file_error(
        &MINIMAL.replace("[[flow]]", ""),
        "flow",
        &["missing", "[[flow]]"],
    );
    file_error(
        &format!("flow = []\n{}", MINIMAL.replace("[[flow]]", "")),
        "flow",
        &["at least one [[flow]]"],
    );
    let text = format!("{MINIMAL}name = \"x\"\n[[flow]]\nname = \"x\"\n");
    file_error(&text, "flow.x.name", &["\"x\" is already used by flow.x"]);
    // The second flow defaults to "b", which the first already took.
    let text = format!("{MINIMAL}name = \"b\"\n[[flow]]\n");
    file_error(
        &text,
        "flow[1].name",
        &["named \"b\" by its position", "already used by flow.b"],
    );
}

#[test]
fn drop_targets_with_count() {
    let base = minimal_with(
        "loss = { model = \"drop\", flow = \"a.2\", packets = [1] }",
        "count = 3",
    );
    let s = parse(&base);
    assert_eq!(s.flows[0].count, 3);
    assert!(matches!(&s.path.loss, LossModel::Drop { flow, .. } if flow == "a.2"));
    file_error(
        &base.replace("\"a.2\"", "\"a\""),
        "path.loss.flow",
        &["count = 3", "\"a.1\" .. \"a.3\""],
    );
    file_error(
        &base.replace("\"a.2\"", "\"a.4\""),
        "path.loss.flow",
        &["no flow named \"a.4\""],
    );
    // In [reverse] a drop model counts the flow's ACKs, so only packets.
    let text = format!(
        "{MINIMAL}\n[reverse]\nloss = {{ model = \"drop\", flow = \"a\", packets = [2, 1, 2] }}\n"
    );
    assert_eq!(
        parse(&text).reverse.loss,
        LossModel::Drop {
            flow: "a".into(),
            which: DropSpec::Packets(vec![1, 2])
        }
    );
    let text = format!(
        "{MINIMAL}\n[reverse]\nloss = {{ model = \"drop\", flow = \"a\", segments = [1] }}\n"
    );
    file_error(&text, "reverse.loss.segments", &["unknown key", "ACKs"]);
}

#[test]
fn overrides() {
    let s = parse_with(
        EXAMPLE,
        &[
            "path.delay=100ms",
            "path.loss.p=0.01",
            "flow.a.recovery=rfc3517",
            "flow.a.receiver.ack=quick",
            "seed=3",
            "flow.a.app={ kind = \"bytes\", size = \"1MB\" }",
            "path.reorder.p = 0.5",
            "path.reorder.delay=2ms",
            "flow.a.receiver.read_rate=inf",
            "flow[0].init_cwnd=4",
            "name=\"quoted\"",
            "reverse.duplicate=0.25",
        ],
    )
    .unwrap();
    assert_eq!(s.path.delay, 100 * MS);
    assert_eq!(s.path.loss, LossModel::Bernoulli { p: 0.01 });
    assert_eq!(s.flows[0].recovery, "rfc3517");
    assert_eq!(s.flows[0].receiver.ack, AckSpec::Quick);
    assert_eq!(s.flows[0].receiver.read_rate, None);
    assert_eq!(s.flows[0].init_cwnd, 4);
    assert_eq!(s.flows[0].app, AppSpec::Bytes(1_000_000));
    assert_eq!(s.seed, 3);
    assert_eq!(s.name, "quoted");
    assert_eq!(
        s.path.reorder,
        Reorder {
            p: 0.5,
            delay: 2 * MS
        }
    );
    assert_eq!(s.reverse.duplicate, 0.25);
    // [reverse] in the example states its own delay.
    assert_eq!(s.reverse.delay, 50 * MS);

    // Missing tables are created, and unnamed flows go by their default name.
    let s = parse_with(
        MINIMAL,
        &[
            "path.loss.model=gilbert-elliott",
            "path.loss.p_gb=0.01",
            "path.loss.p_bg=0.5",
            "path.loss.loss_good=0",
            "path.loss.loss_bad=1",
            "reverse.delay=5ms",
            "flow.a.receiver.sack_blocks=1",
            "flow.a.name=first",
            "flow.first.cc=fixed:8",
        ],
    )
    .unwrap();
    assert_eq!(
        s.path.loss,
        LossModel::GilbertElliott {
            p_gb: 0.01,
            p_bg: 0.5,
            loss_good: 0.0,
            loss_bad: 1.0
        }
    );
    assert_eq!(s.reverse.delay, 5 * MS);
    assert_eq!(s.flows[0].name, "first");
    assert_eq!(s.flows[0].receiver.sack_blocks, 1);
    assert_eq!(s.flows[0].cc, CcSpec::Fixed(8));

    // Flows are chosen by name, not position.
    let two = format!("{MINIMAL}name = \"x\"\n[[flow]]\nname = \"y\"\n");
    let s = parse_with(&two, &["flow.y.mss=1000B"]).unwrap();
    assert_eq!((s.flows[0].mss, s.flows[1].mss), (1448, 1000));
}

#[track_caller]
fn override_error(text: &str, overrides: &[&str], spec: &str, needle: &str) {
    let e = parse_with(text, overrides).unwrap_err();
    let shown = e.to_string();
    assert_eq!(e.file, COMMAND_LINE, "{shown}");
    assert_eq!(e.key, format!("--set {spec}"), "{shown}");
    assert!(
        shown.starts_with(&format!("<command line>: --set {spec}: ")),
        "{shown}"
    );
    assert!(shown.contains(needle), "{shown:?} lacks {needle:?}");
}

#[test]
fn override_errors_name_the_override() {
    override_error(
        MINIMAL,
        &["path.delay=x"],
        "path.delay=x",
        "expected a duration like",
    );
    override_error(MINIMAL, &["path.delay=50"], "path.delay=50", "needs a unit");
    override_error(
        MINIMAL,
        &["path.delay=1ms", "flow.a.recovery=lee"],
        "flow.a.recovery=lee",
        "unknown recovery",
    );
    override_error(
        &format!("{MINIMAL}name = \"x\"\n[[flow]]\nname = \"y\"\n"),
        &["flow.zz.mss=1000B"],
        "flow.zz.mss=1000B",
        "no flow named \"zz\" (flows: \"x\", \"y\")",
    );
    override_error(
        &MINIMAL.replace("[[flow]]", ""),
        &["flow.a.mss=1000B"],
        "flow.a.mss=1000B",
        "no [[flow]]",
    );
    override_error(
        MINIMAL,
        &["path.speed=1Mbps"],
        "path.speed=1Mbps",
        "unknown key \"speed\"",
    );
    override_error(MINIMAL, &["seed"], "seed", "expected KEY=VALUE");
    override_error(MINIMAL, &["=3"], "=3", "expected KEY=VALUE");
    override_error(MINIMAL, &["path..delay=1ms"], "path..delay=1ms", "bad key");
    override_error(MINIMAL, &["path.rate.x=1"], "path.rate.x=1", "not a table");
    override_error(
        MINIMAL,
        &["flow[3].mss=1B"],
        "flow[3].mss=1B",
        "has 1 entries",
    );
    override_error(MINIMAL, &["seed=-1"], "seed=-1", "expected an integer");
    // Inside an inline table given by --set, the message says where.
    override_error(
        MINIMAL,
        &["path.loss={ model = \"bernoulli\", p = 2 }"],
        "path.loss={ model = \"bernoulli\", p = 2 }",
        "path.loss.p: expected a probability",
    );
    // A table that only the override created is the override's fault too.
    override_error(
        MINIMAL,
        &["flow.a.qarr.target_queue=5"],
        "flow.a.qarr.target_queue=5",
        "parameters for qarr given but this flow's recovery is \"prr\"",
    );
    // An error that the override did not write stays the file's.
    let e = parse_with(&MINIMAL.replace("\"20ms\"", "\"x\""), &["path.rate=1Mbps"]).unwrap_err();
    assert_eq!(
        (e.file.as_str(), e.key.as_str()),
        ("test.toml", "path.delay")
    );
}

#[test]
fn apply_override_on_a_table() {
    let mut t: toml::Table = toml::from_str(MINIMAL).unwrap();
    apply_override(&mut t, "path.loss.p=0.5").unwrap();
    apply_override(&mut t, "flow.a.cc=fixed:3").unwrap();
    apply_override(&mut t, "flow.a.extensions=[]").unwrap();
    apply_override(&mut t, "x.y=true").unwrap();
    apply_override(&mut t, "x.n=nan").unwrap();
    apply_override(&mut t, "x.d=2024-01-01").unwrap();
    assert_eq!(t["path"]["loss"]["p"].as_float(), Some(0.5));
    assert_eq!(t["flow"][0]["cc"].as_str(), Some("fixed:3"));
    assert_eq!(t["flow"][0]["extensions"].as_array().map(Vec::len), Some(0));
    assert_eq!(t["x"]["y"].as_bool(), Some(true));
    assert_eq!(t["x"]["n"].as_str(), Some("nan"));
    assert!(t["x"]["d"].is_datetime());
    // A failed override changes nothing.
    let before = t.clone();
    assert!(apply_override(&mut t, "a.b.c.path=1").is_ok());
    let mut t2 = before.clone();
    assert!(apply_override(&mut t2, "path.rate.deeper.still=1").is_err());
    assert_eq!(t2, before);
}

#[test]
fn parsing_is_deterministic() {
    let overrides: Vec<String> = vec!["path.loss.p=0.02".into(), "seed=9".into()];
    let a = parse_scenario("x.toml", EXAMPLE, &overrides).unwrap();
    let b = parse_scenario("x.toml", EXAMPLE, &overrides).unwrap();
    assert_eq!(a, b);
    let e1 = parse_scenario("x.toml", "a = 1\nb = 2\n", &[]).unwrap_err();
    let e2 = parse_scenario("x.toml", "a = 1\nb = 2\n", &[]).unwrap_err();
    assert_eq!(e1, e2);
}

#[test]
fn mobile_extensions_and_the_linux_send_buffer_parse() {
    use losslab_core::sndbuf::LinuxSndbuf;
    let sc = parse_scenario(
        "m.toml",
        &minimal_with(
            "",
            "extensions = [\"opportunistic\", \"hack1\"]\nsndbuf = \"linux\"",
        ),
        &[],
    )
    .unwrap();
    let f = &sc.flows[0];
    assert_eq!(f.extensions, vec!["opportunistic", "hack1"]);
    assert_eq!(f.sndbuf_model, Some(LinuxSndbuf::default()));
    assert_eq!(f.sndbuf, None);
    let sc = parse_scenario("m.toml", &minimal_with(
            "",
            "sndbuf = { model = \"linux\", grow_factor = 2.5, wmem = [\"4kB\", \"16kB\", \"64MB\"] }",
        ), &[])
    .unwrap();
    let m = sc.flows[0].sndbuf_model.unwrap();
    assert_eq!(
        (m.grow_factor, m.wmem_min, m.wmem_default, m.wmem_max),
        (2.5, 4000, 16000, 64_000_000)
    );
    // sndbuf-factor-3 alone implies the Linux buffer at factor 3 (sim.rs).
    let sc = parse_scenario(
        "m.toml",
        &minimal_with("", "extensions = [\"sndbuf-factor-3\"]"),
        &[],
    )
    .unwrap();
    assert_eq!(sc.flows[0].sndbuf_model, None);
    let f = |line: &str, key: &str, needle: &str| {
        file_error(&minimal_with("", line), key, &[needle]);
    };
    f(
        "extensions = [\"sndbuf-factor-3\"]\nsndbuf = \"1MB\"",
        "flow.a.extensions",
        "fixed size",
    );
    f(
        "extensions = [\"sndbuf-factor-3\"]\nsndbuf = { model = \"linux\", grow_factor = 4 }",
        "flow.a.extensions",
        "grow_factor is 4",
    );
    f(
        "sndbuf = { model = \"bsd\" }",
        "flow.a.sndbuf.model",
        "\"linux\"",
    );
    f(
        "sndbuf = { model = \"linux\", grow_factor = 0.5 }",
        "flow.a.sndbuf.grow_factor",
        "at least 1",
    );
    f(
        "sndbuf = { model = \"linux\", wmem = [\"4kB\", \"16kB\"] }",
        "flow.a.sndbuf.wmem",
        "three sizes",
    );
    f(
        "sndbuf = { model = \"linux\", wmem = [\"4kB\", \"16kB\", \"8kB\"] }",
        "flow.a.sndbuf.wmem",
        "min <= default <= max",
    );
    f(
        "sndbuf = { model = \"linux\", size = \"1MB\" }",
        "flow.a.sndbuf.size",
        "unknown",
    );
}

#[test]
fn newreno_recovery_and_its_variant_table() {
    use losslab_core::recovery::NewRenoVariant;
    let flow = |extra: &str| parse(&minimal_with("", extra)).flows[0].clone();
    // Recovery names apart from the congestion controllers of the same
    // names.
    let f = flow("recovery = \"reno\"\ncc = \"newreno\"");
    assert_eq!(
        (f.recovery.as_str(), f.cc.name().as_str()),
        ("reno", "newreno")
    );
    let f = flow("recovery = \"newreno\"\ncc = \"reno\"");
    assert_eq!(
        (f.recovery.as_str(), f.cc.name().as_str()),
        ("newreno", "reno")
    );
    assert_eq!(f.newreno_variant, NewRenoVariant::SlowButSteady);
    let with_table = |body: &str, recovery: &str| {
        format!(
            "{}\n[flow.newreno]\n{body}\n",
            minimal_with("", &format!("recovery = \"{recovery}\""))
        )
    };
    for (name, want) in [
        ("impatient", NewRenoVariant::Impatient),
        ("slow-but-steady", NewRenoVariant::SlowButSteady),
    ] {
        let s = parse(&with_table(&format!("variant = \"{name}\""), "newreno"));
        assert_eq!(s.flows[0].newreno_variant, want);
    }
    file_error(
        &with_table("variant = \"careful\"", "newreno"),
        "flow.a.newreno.variant",
        &[
            "unknown variant \"careful\"",
            "expected one of: slow-but-steady, impatient",
        ],
    );
    file_error(
        &with_table("x = 1", "newreno"),
        "flow.a.newreno.x",
        &["unknown key \"x\"", "variant"],
    );
    // With another recovery the table would be a silent default; the
    // default cc is newreno, and the message says that one takes nothing.
    file_error(
        &with_table("variant = \"impatient\"", "prr"),
        "flow.a.newreno",
        &[
            "this flow's recovery is \"prr\"",
            "cc = \"newreno\" takes no parameters",
            "set recovery = \"newreno\" or remove [flow.newreno]",
        ],
    );
    let text = format!(
        "{}\n[flow.newreno]\nvariant = \"impatient\"\n",
        minimal_with("", "recovery = \"prr\"\ncc = \"cubic\"")
    );
    file_error(
        &text,
        "flow.a.newreno",
        &["parameters for newreno given but this flow's recovery is \"prr\""],
    );
    // `[flow.reno]` is no table of either.
    let text = format!(
        "{}\n[flow.reno]\nx = 1\n",
        minimal_with("", "recovery = \"reno\"")
    );
    file_error(&text, "flow.a.reno", &["takes no parameters"]);
}

/// A seed is a TOML integer, so 9223372036854775807 is the largest; the
/// file, `--set seed=` and (through it) `--seed` and `--seeds` all say
/// so, rather than "got the string" or "number too large".
#[test]
fn seeds_past_the_largest_toml_integer_say_the_largest() {
    let max = "9223372036854775807";
    assert_eq!(
        parse(&format!("seed = {max}\n{MINIMAL}")).seed,
        i64::MAX as u64
    );
    let e = parse_with(&format!("seed = 9223372036854775808\n{MINIMAL}"), &[]).unwrap_err();
    assert_eq!(e.file, "test.toml");
    assert!(e.to_string().contains(max), "{e}");
    assert!(e.to_string().contains("largest seed"), "{e}");
    override_error(
        MINIMAL,
        &["seed=9223372036854775808"],
        "seed=9223372036854775808",
        "the largest seed allowed is 9223372036854775807",
    );
    override_error(
        MINIMAL,
        &["seed=-1"],
        "seed=-1",
        "expected an integer from 0 to 9223372036854775807",
    );
    assert_eq!(
        parse_with(MINIMAL, &[&format!("seed={max}")]).unwrap().seed,
        i64::MAX as u64
    );
}

#[test]
fn rtt_sample_linux_3x_values() {
    use losslab_core::RttSampling;
    for (value, want) in [
        ("linux-3.2", RttSampling::Linux32),
        ("linux-3.15", RttSampling::Linux315),
    ] {
        let text = minimal_with("", &format!("rtt_sample = \"{value}\""));
        assert_eq!(parse(&text).flows[0].rtt_sample, want, "{value}");
        let set = format!("flow.a.rtt_sample=\"{value}\"");
        let s = parse_with(&minimal_with("", ""), &[set.as_str()]).unwrap();
        assert_eq!(s.flows[0].rtt_sample, want, "--set {value}");
        assert_eq!(want.name(), value);
    }
    // A kernel the values do not name (3.10 is "linux-3.2"'s range): the
    // error names the key and lists every value.
    file_error(
        &minimal_with("", "rtt_sample = \"linux-3.10\""),
        "flow.a.rtt_sample",
        &[
            "unknown rtt_sample \"linux-3.10\"",
            "tsecr, linux, linux-3.2, linux-3.15",
        ],
    );
}

#[test]
fn rtt_sample_and_cwnd_growth_keys() {
    use losslab_core::{CwndGrowth, RttSampling};
    // Absent: today's behaviour (TSecr samples, growth on cumulative ACKs).
    let f = &parse(&minimal_with("", "")).flows[0];
    assert_eq!(
        (f.rtt_sample, f.cwnd_growth),
        (RttSampling::Tsecr, CwndGrowth::Rfc5681)
    );
    let f = &parse(&minimal_with(
        "",
        "rtt_sample = \"linux\"\ncwnd_growth = \"linux\"",
    ))
    .flows[0];
    assert_eq!(
        (f.rtt_sample, f.cwnd_growth),
        (RttSampling::Linux, CwndGrowth::Linux)
    );
    let f = &parse(&minimal_with(
        "",
        "rtt_sample = \"tsecr\"\ncwnd_growth = \"rfc5681\"",
    ))
    .flows[0];
    assert_eq!(
        (f.rtt_sample, f.cwnd_growth),
        (RttSampling::Tsecr, CwndGrowth::Rfc5681)
    );
    // --set reaches them too.
    let s = parse_with(&minimal_with("", ""), &["flow.a.rtt_sample=\"linux\""]).unwrap();
    assert_eq!(s.flows[0].rtt_sample, RttSampling::Linux);
    // Bad values name the key and the choices.
    file_error(
        &minimal_with("", "rtt_sample = \"karn\""),
        "flow.a.rtt_sample",
        &["unknown rtt_sample \"karn\"", "tsecr", "linux"],
    );
    file_error(
        &minimal_with("", "rtt_sample = 1"),
        "flow.a.rtt_sample",
        &["tsecr, linux"],
    );
    file_error(
        &minimal_with("", "cwnd_growth = \"rfc3465\""),
        "flow.a.cwnd_growth",
        &["unknown cwnd_growth \"rfc3465\"", "rfc5681", "linux"],
    );
}

/// `slow_start = "per-segment" | "per-ack"`: absent is today's per
/// segment; bad values name the key and the choices.
#[test]
fn slow_start_key() {
    use losslab_core::cc::SlowStart;
    let f = &parse(&minimal_with("", "")).flows[0];
    assert_eq!(f.slow_start, SlowStart::PerSegment);
    let f = &parse(&minimal_with("", "slow_start = \"per-ack\"")).flows[0];
    assert_eq!(f.slow_start, SlowStart::PerAck);
    let s = parse_with(&minimal_with("", ""), &["flow.a.slow_start=\"per-ack\""]).unwrap();
    assert_eq!(s.flows[0].slow_start, SlowStart::PerAck);
    file_error(
        &minimal_with("", "slow_start = \"abc\""),
        "flow.a.slow_start",
        &["unknown slow_start \"abc\"", "per-segment", "per-ack"],
    );
    file_error(
        &minimal_with("", "slow_start = true"),
        "flow.a.slow_start",
        &["per-segment, per-ack"],
    );
}

/// `avoidance = "per-segment" | "per-ack"`: absent is today's per
/// segment; bad values name the key and the choices.
#[test]
fn avoidance_key() {
    use losslab_core::cc::Avoidance;
    let f = &parse(&minimal_with("", "")).flows[0];
    assert_eq!(f.avoidance, Avoidance::PerSegment);
    let f = &parse(&minimal_with("", "avoidance = \"per-ack\"")).flows[0];
    assert_eq!(f.avoidance, Avoidance::PerAck);
    let s = parse_with(&minimal_with("", ""), &["flow.a.avoidance=\"per-ack\""]).unwrap();
    assert_eq!(s.flows[0].avoidance, Avoidance::PerAck);
    file_error(
        &minimal_with("", "avoidance = \"w+1\""),
        "flow.a.avoidance",
        &["unknown avoidance \"w+1\"", "per-segment", "per-ack"],
    );
}

/// `[flow.westwood] ssthresh = "bwe" | "linux"`: absent is BWE x RTTmin;
/// bad values and other controllers name the key.
#[test]
fn westwood_ssthresh_key() {
    use losslab_core::cc::WestwoodSsthresh;
    let ww = "cc = \"westwood\"";
    let f = &parse(&minimal_with("", ww)).flows[0];
    assert_eq!(f.westwood_ssthresh, WestwoodSsthresh::Bwe);
    let f = &parse(&minimal_with(
        "",
        &format!("{ww}\n[flow.westwood]\nssthresh = \"linux\""),
    ))
    .flows[0];
    assert_eq!(f.westwood_ssthresh, WestwoodSsthresh::Linux);
    file_error(
        &minimal_with("", &format!("{ww}\n[flow.westwood]\nssthresh = \"reno\"")),
        "flow.a.westwood.ssthresh",
        &["unknown ssthresh \"reno\"", "bwe", "linux"],
    );
    file_error(
        &minimal_with("", "cc = \"reno\"\n[flow.westwood]\nssthresh = \"linux\""),
        "flow.a.westwood",
        &["parameters for westwood given but this flow's cc is \"reno\""],
    );
}

#[test]
fn vegas_gate_key() {
    use losslab_core::cc::VegasGate;
    let vg = "cc = \"vegas\"";
    let f = &parse(&minimal_with("", vg)).flows[0];
    assert_eq!(f.vegas_gate, VegasGate::CwndLimited);
    let f = &parse(&minimal_with(
        "",
        &format!("{vg}\n[flow.vegas]\ngate = \"linux\""),
    ))
    .flows[0];
    assert_eq!(f.vegas_gate, VegasGate::Linux);
    file_error(
        &minimal_with("", &format!("{vg}\n[flow.vegas]\ngate = \"always\"")),
        "flow.a.vegas.gate",
        &["unknown gate \"always\"", "cwnd-limited", "linux"],
    );
    file_error(
        &minimal_with("", &format!("{vg}\n[flow.vegas]\nalpha = 3")),
        "flow.a.vegas.alpha",
        &["unknown key \"alpha\"", "gate"],
    );
    file_error(
        &minimal_with("", "cc = \"reno\"\n[flow.vegas]\ngate = \"linux\""),
        "flow.a.vegas",
        &["parameters for vegas given but this flow's cc is \"reno\""],
    );
}
