//! Lost-retransmission detection (PRR/ER paper section 3.2, Linux
//! tcp_mark_lost_retrans()): "If any new data sent after a retransmission
//! is later SACKed, the retransmission is deemed to have been lost". With
//! it, losing the fast retransmit costs another round trip; without it, a
//! timeout (the paper's section 2.1: "With lost retransmission detection,
//! lost retransmissions cause additional RTTs in recovery. Without it,
//! they cause timeouts.").

use crate::common;

use common::*;
use losslab_sim::results::FlowResults;
use losslab_sim::scenario::*;
use losslab_sim::sim::{Body, Packet, PacketFate};
use losslab_sim::{Simulation, Tracer};
use std::cell::Cell;
use std::rc::Rc;

fn flow(detection: &str, detect_lost_retransmissions: bool) -> FlowSpec {
    let mut f = FlowSpec::new("a");
    f.app = AppSpec::Bytes(200 * 1448);
    f.detection = detection.into();
    // Quick ACKs keep the 200 ms delayed-ACK timer from racing the RTO.
    f.receiver.ack = AckSpec::Quick;
    f.lost_retransmission_detection = detect_lost_retransmissions;
    f
}

/// Data-packet index (1-based) of the first retransmission of `seg_no`.
fn retransmission_index(sc: &Scenario, seg_no: u64) -> u64 {
    struct Find(u64, Rc<Cell<u64>>);
    impl Tracer for Find {
        fn packet(&mut self, _at: u64, p: &Packet, fate: PacketFate) {
            if let (PacketFate::Sent, Body::Data(s)) = (fate, p.body) {
                if s.seg_no == self.0 && s.tx_count == 2 && self.1.get() == 0 {
                    self.1.set(p.index);
                }
            }
        }
    }
    let found = Rc::new(Cell::new(0));
    let mut sim = Simulation::new(sc).unwrap();
    sim.set_tracer(Box::new(Find(seg_no, found.clone())));
    sim.run();
    assert!(found.get() > 0, "segment {seg_no} was never retransmitted");
    found.get()
}

/// Segment 50 (1-based) and its first retransmission are both dropped.
fn lose_the_fast_retransmit(detection: &str, detect: bool) -> FlowResults {
    let once = LossModel::Drop {
        flow: "a".into(),
        which: DropSpec::Segments(vec![50]),
    };
    let probe = scenario(
        "probe",
        20,
        path(10_000_000, 20, once),
        vec![flow(detection, detect)],
    );
    let idx = retransmission_index(&probe, 49);
    let twice = LossModel::Drop {
        flow: "a".into(),
        which: DropSpec::Packets(vec![50, idx]),
    };
    let sc = scenario(
        "rtx-lost",
        20,
        path(10_000_000, 20, twice),
        vec![flow(detection, detect)],
    );
    let mut sim = Simulation::new(&sc).unwrap();
    sim.run();
    let f = sim.results().flows[0].clone();
    assert_eq!(f.bytes_delivered, 200 * 1448);
    assert_eq!(f.max_retransmissions_of_one_segment, 2, "{f:?}");
    f
}

#[test]
fn a_lost_retransmission_is_repaired_without_a_timeout() {
    let f = lose_the_fast_retransmit("dupthresh", true);
    assert_eq!((f.fast_recoveries, f.timeouts), (1, 0), "{f:?}");
    assert_eq!(f.lost_retransmissions, 1);
    // Segment 50 twice; nothing else needed retransmitting.
    assert_eq!(f.retransmissions, 2);
    assert_eq!(f.spurious_retransmissions, 0);
    assert!(f.recoveries[0].end_s.is_some());
}

#[test]
fn without_detection_the_lost_retransmission_needs_the_timeout() {
    let on = lose_the_fast_retransmit("dupthresh", true);
    let off = lose_the_fast_retransmit("dupthresh", false);
    assert_eq!((off.fast_recoveries, off.timeouts), (1, 1), "{off:?}");
    assert_eq!(off.lost_retransmissions, 0);
    assert_eq!(off.recoveries[1].kind, "timeout");
    // The timeout comes about the 200 ms minimum RTO after the last
    // cumulative ACK before the fast retransmit; with detection, recovery
    // is over one round trip (40 ms) later than it would be without the
    // second loss, well before that.
    let fast = &off.recoveries[0];
    let timeout = &off.recoveries[1];
    assert!(timeout.start_s - fast.start_s >= 0.15, "{off:?}");
    assert!(on.recoveries[0].end_s.unwrap() < timeout.start_s);
    assert!(on.recoveries[0].end_s.unwrap() - on.recoveries[0].start_s < 0.15);
    assert!(on.fct_s.unwrap() < off.fct_s.unwrap());
}

#[test]
fn every_detector_benefits() {
    for d in ["fack", "early-retransmit", "rack"] {
        let f = lose_the_fast_retransmit(d, true);
        assert_eq!((f.fast_recoveries, f.timeouts), (1, 0), "{d}: {f:?}");
        assert_eq!(f.lost_retransmissions, 1, "{d}");
    }
}

#[test]
fn rack_finds_the_lost_retransmission_by_itself() {
    // RACK applies its time rule to retransmissions too (RFC 8985 section
    // 3.3): the sender's own detection is not needed.
    let f = lose_the_fast_retransmit("rack", false);
    assert_eq!((f.fast_recoveries, f.timeouts), (1, 0), "{f:?}");
    assert_eq!(f.lost_retransmissions, 1);
}
