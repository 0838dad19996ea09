//! packets.csv from a real run with one known drop, parsed back.

use crate::common;

use std::path::PathBuf;

use common::*;
use losslab_sim::packet_log::{PacketLog, HEADER};
use losslab_sim::scenario::*;
use losslab_sim::Simulation;

const MSS: u64 = 1448;

struct Row {
    time_s: f64,
    flow: String,
    dir: String,
    event: String,
    seq: Option<u64>,
    len: Option<u64>,
    tx: Option<u64>,
    ack: Option<u64>,
    win: Option<u64>,
    sack: Vec<(u64, u64)>,
    dsack: Option<u8>,
}

fn num(s: &str) -> Option<u64> {
    if s.is_empty() {
        None
    } else {
        Some(s.parse().unwrap_or_else(|_| panic!("not a number: {s:?}")))
    }
}

fn parse(text: &str) -> Vec<Row> {
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(HEADER));
    lines
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            assert_eq!(c.len(), 11, "row {l:?}");
            let (_, frac) = c[0].split_once('.').expect("decimal point");
            assert_eq!(frac.len(), 9, "ns precision in {l:?}");
            Row {
                time_s: c[0].parse().unwrap(),
                flow: c[1].to_string(),
                dir: c[2].to_string(),
                event: c[3].to_string(),
                seq: num(c[4]),
                len: num(c[5]),
                tx: num(c[6]),
                ack: num(c[7]),
                win: num(c[8]),
                sack: c[9]
                    .split(' ')
                    .filter(|b| !b.is_empty())
                    .map(|b| {
                        let (s, e) = b.split_once('-').expect("start-end");
                        (s.parse().unwrap(), e.parse().unwrap())
                    })
                    .collect(),
                dsack: num(c[10]).map(|d| d as u8),
            }
        })
        .collect()
}

fn temp_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("losslab-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("packets.csv")
}

#[test]
fn a_single_drop_shows_as_loss_drop_retransmission_and_sacked_dupacks() {
    // Segment 40 (1-based) is dropped once; the flow recovers by fast
    // retransmit.
    let loss = LossModel::Drop {
        flow: "a".into(),
        which: DropSpec::Segments(vec![40]),
    };
    let mut f = FlowSpec::new("a");
    f.app = AppSpec::Bytes(300 * MSS);
    let sc = scenario("trace", 20, path(10_000_000, 20, loss), vec![f]);
    let mut sim = Simulation::new(&sc).unwrap();
    let out = temp_path("packet-log");
    sim.set_tracer(Box::new(PacketLog::create(&out, sim.flow_names()).unwrap()));
    sim.run();
    sim.take_tracer().unwrap().finish().unwrap();
    let res = sim.results();
    let text = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_dir_all(out.parent().unwrap());
    let rows = parse(&text);

    assert!(rows.iter().all(|r| r.flow == "a"));
    assert!(rows.windows(2).all(|w| w[0].time_s <= w[1].time_s));
    for r in &rows {
        match r.dir.as_str() {
            "data" => {
                assert!(r.seq.is_some() && r.len.is_some() && r.tx.is_some());
                assert!(r.ack.is_none() && r.win.is_none() && r.sack.is_empty());
                assert!(r.dsack.is_none());
            }
            "ack" => {
                assert!(r.seq.is_none() && r.len.is_none() && r.tx.is_none());
                assert!(r.ack.is_some() && r.win.is_some() && r.dsack.is_some());
                assert_ne!(r.event, "queue_drop", "ACKs bypass the queue");
            }
            d => panic!("dir {d}"),
        }
    }

    let lost_seq = 39 * MSS;
    let drops: Vec<&Row> = rows
        .iter()
        .filter(|r| r.dir == "data" && r.event.ends_with("_drop"))
        .collect();
    assert_eq!(drops.len(), 1);
    assert_eq!(drops[0].event, "loss_drop");
    assert_eq!(drops[0].seq, Some(lost_seq));
    assert_eq!(drops[0].tx, Some(1));
    assert_eq!(drops[0].len, Some(MSS));

    let rtx: Vec<&Row> = rows
        .iter()
        .filter(|r| r.dir == "data" && r.event == "sent" && r.tx == Some(2))
        .collect();
    assert_eq!(rtx.len(), 1);
    assert_eq!(rtx[0].seq, Some(lost_seq));
    assert!(rtx[0].time_s > drops[0].time_s);
    assert!(rows.iter().any(|r| r.dir == "data"
        && r.event == "delivered"
        && r.seq == Some(lost_seq)
        && r.tx == Some(2)));

    // Every transmission the sender counted is one `sent` row.
    let sent = rows
        .iter()
        .filter(|r| r.dir == "data" && r.event == "sent")
        .count() as u64;
    assert_eq!(sent, res.flows[0].segments_sent);
    let acks_sent = rows
        .iter()
        .filter(|r| r.dir == "ack" && r.event == "sent")
        .count() as u64;
    assert_eq!(acks_sent, res.flows[0].acks_sent);

    // Duplicate ACKs at the sender before the retransmission carry SACK
    // blocks above the hole, most recent first.
    let dupacks: Vec<&Row> = rows
        .iter()
        .filter(|r| {
            r.dir == "ack"
                && r.event == "delivered"
                && r.ack == Some(lost_seq)
                && r.time_s <= rtx[0].time_s
        })
        .collect();
    assert!(dupacks.len() >= 3, "{} dupacks", dupacks.len());
    for d in &dupacks[1..] {
        assert!(!d.sack.is_empty(), "dupack without SACK");
        assert_eq!(d.dsack, Some(0));
        for &(s, e) in &d.sack {
            assert!(s >= lost_seq + MSS && e > s, "block {s}-{e}");
        }
    }
    let last = dupacks.last().unwrap();
    assert!(last.sack[0].1 >= lost_seq + 3 * MSS);
}

#[test]
fn queue_drops_are_logged() {
    // A 5-packet queue at 2 Mbit/s overflows during slow start.
    let (mut p, r) = path(2_000_000, 20, LossModel::None);
    p.queue = QueueLimit::Packets(5);
    let mut f = FlowSpec::new("x");
    f.app = AppSpec::Bytes(200 * MSS);
    let sc = scenario("qd", 30, (p, r), vec![f]);
    let mut sim = Simulation::new(&sc).unwrap();
    let out = temp_path("packet-log-qd");
    sim.set_tracer(Box::new(PacketLog::create(&out, sim.flow_names()).unwrap()));
    sim.run();
    sim.take_tracer().unwrap().finish().unwrap();
    let res = sim.results();
    let text = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_dir_all(out.parent().unwrap());
    let rows = parse(&text);
    let qd = rows.iter().filter(|r| r.event == "queue_drop").count() as u64;
    assert!(qd > 0);
    assert_eq!(qd, res.path.queue_drops);
    assert!(rows.iter().all(|r| r.flow == "x"));
}
