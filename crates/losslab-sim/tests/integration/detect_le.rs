//! LE (detect/le.rs, recovery/le.rs) on the LE paper's section 3.1 setup:
//! 1 kB packets, window at most 32 segments, quick ACKs (ns-2's sink),
//! retransmissions never lost, N of one window's 32 segments dropped.
//! The paper's Observation (2.2.4): as long as three duplicate ACKs arrive,
//! LE recovers every loss without an RTO; RFC 3517-style SACK falls into
//! the RTO beyond cwnd/2 + 2 losses (section 3.1.1).

use crate::common;

use common::*;
use losslab_sim::results::FlowResults;
use losslab_sim::scenario::*;
use losslab_sim::Simulation;

/// Segments 201-232 (1-based) are one full window of 32; `kept` of them
/// (1-based positions within it) arrive, the rest are dropped.
fn window_loss(kept: &[u64]) -> Vec<u64> {
    (1..=32)
        .filter(|p| !kept.contains(p))
        .map(|p| 200 + p)
        .collect()
}

fn run(detection: &str, recovery: &str, sack: bool, order: &str, dropped: Vec<u64>) -> FlowResults {
    run_lt(detection, recovery, sack, order, dropped, true)
}

fn run_lt(
    detection: &str,
    recovery: &str,
    sack: bool,
    order: &str,
    dropped: Vec<u64>,
    limited_transmit: bool,
) -> FlowResults {
    let loss = LossModel::Drop {
        flow: "a".into(),
        which: DropSpec::Segments(dropped),
    };
    let mut f = FlowSpec::new("a");
    f.cc = CcSpec::Named("reno".into());
    f.detection = detection.into();
    f.recovery = recovery.into();
    if order == "echo" {
        f.le_order = losslab_core::detect::LeOrder::Echo;
    }
    f.mss = 1000;
    f.app = AppSpec::Bytes(400_000);
    f.receiver.ack = AckSpec::Quick;
    f.max_cwnd = Some(32);
    f.limited_transmit = limited_transmit;
    f.receiver.sack_blocks = if sack { 3 } else { 0 };
    let mut sc = scenario("le", 60, path(10_000_000, 50, loss), vec![f]);
    sc.path.protect_retransmissions = true;
    let mut sim = Simulation::new(&sc).unwrap();
    sim.run();
    sim.results().flows[0].clone()
}

#[test]
fn le_recovers_29_of_32_losses_without_a_timeout_where_sack_cannot() {
    // Three segments of the window arrive: three duplicate ACKs.
    let dropped = window_loss(&[5, 17, 30]);
    assert_eq!(dropped.len(), 29);
    let le = run("le", "le", true, "sack", dropped.clone());
    assert_eq!(le.bytes_delivered, 400_000);
    assert_eq!(le.timeouts, 0, "{le:?}");
    assert_eq!(le.retransmissions, 29, "{le:?}");
    // RFC 3517 without limited transmit, as ns-2's Sack1: pipe stays
    // above cwnd = 16 until the RTO. With RFC 3042 limited transmit the two
    // new segments' SACKs let IsLost() mark the rest, and it recovers.
    let sack = run_lt("dupthresh", "rfc3517", true, "sack", dropped.clone(), false);
    assert_eq!(sack.bytes_delivered, 400_000);
    assert!(sack.timeouts >= 1, "{sack:?}");
    assert!(le.fct_s.unwrap() < sack.fct_s.unwrap());
    let sack_lt = run("dupthresh", "rfc3517", true, "sack", dropped);
    assert_eq!(sack_lt.timeouts, 0, "{sack_lt:?}");
}

#[test]
fn le_needs_no_limited_transmit() {
    let le = run_lt("le", "le", true, "sack", window_loss(&[5, 17, 30]), false);
    assert_eq!((le.timeouts, le.retransmissions), (0, 29), "{le:?}");
}

#[test]
fn le_with_the_echoed_order_recovers_without_sack() {
    // Section 4.2's receiver echoes the transmission order; no SACK.
    let dropped = window_loss(&[5, 17, 30]);
    let le = run("le", "le", false, "echo", dropped);
    assert_eq!(le.bytes_delivered, 400_000);
    assert_eq!(le.timeouts, 0, "{le:?}");
    assert_eq!(le.retransmissions, 29, "{le:?}");
    assert_eq!(le.spurious_retransmissions, 0, "{le:?}");
}

#[test]
fn one_loss_costs_one_retransmission_in_every_order_mode() {
    for (sack, order) in [
        (true, "sack"),
        (true, "echo"),
        (false, "echo"),
        (false, "sack"),
    ] {
        let f = run("le", "le", sack, order, vec![210]);
        assert_eq!(f.bytes_delivered, 400_000);
        assert_eq!(
            (f.retransmissions, f.timeouts, f.fast_recoveries),
            (1, 0, 1),
            "sack {sack} order {order}: {f:?}"
        );
    }
}

/// `kept` evenly spread positions of the window arrive.
fn spread(n_lost: u64) -> Vec<u64> {
    let kept = 32 - n_lost;
    let positions: Vec<u64> = (0..kept).map(|i| 1 + i * 32 / kept.max(1)).collect();
    window_loss(&positions)
}

#[test]
fn ns2_sack1_takes_the_rto_from_18_losses_of_32() {
    // Section 3.1.1: ns-2's SACK "suffers from RTO expiry" when more than
    // cwnd/2 + 2 = 18 of 32 are lost. Sack1's pipe_ counts ACK arrivals:
    // after the duplicate ACKs it equals N (recovery/ns2_sack1.rs), so from
    // 16 losses only the fast retransmit's partial ACK (two off pipe_) can
    // reopen the window, and from 18 it cannot: the RTO, one loss earlier
    // than the paper's count (ns-2's limited transmit and the fast
    // retransmit's accounting decide that one). RFC 3517 on the same
    // drops never times out while three segments of the window arrive
    // (with limited transmit).
    for n in 1..=31u64 {
        let f = run("ns2-sack1", "ns2-sack1", true, "sack", spread(n));
        assert_eq!(f.bytes_delivered, 400_000);
        assert_eq!(f.timeouts > 0, n >= 18, "{n} losses: {f:?}");
        if n <= 29 {
            let rfc = run("dupthresh", "rfc3517", true, "sack", spread(n));
            assert_eq!(rfc.timeouts, 0, "{n} losses: {rfc:?}");
        }
    }
}

/// `[flow.le] grow_in_recovery` (recovery/le.rs): the paper's LE "has no
/// discrete states", so AIMD may grow cwnd while the losses are repaired.
/// 29 of the window's 32 segments lost: LE halves once (cwnd 16) and,
/// frozen, leaves its recovery at 16; growing, AIMD adds one segment per
/// cwnd's worth of segments newly acknowledged (29 holes filled over
/// about two RTTs, cwnd_cnt reaching 16 once), so it leaves at 17.
#[test]
fn le_grows_in_recovery_only_when_asked() {
    let dropped = window_loss(&[5, 17, 30]);
    let go = |grow: bool| {
        let loss = LossModel::Drop {
            flow: "a".into(),
            which: DropSpec::Segments(dropped.clone()),
        };
        let mut f = FlowSpec::new("a");
        f.cc = CcSpec::Named("reno".into());
        f.detection = "le".into();
        f.recovery = "le".into();
        f.le_grow_in_recovery = grow;
        f.mss = 1000;
        f.app = AppSpec::Bytes(400_000);
        f.receiver.ack = AckSpec::Quick;
        f.max_cwnd = Some(32);
        let mut sc = scenario("le-grow", 60, path(10_000_000, 50, loss), vec![f]);
        sc.path.protect_retransmissions = true;
        let mut sim = Simulation::new(&sc).unwrap();
        sim.run();
        sim.results().flows[0].clone()
    };
    let (frozen, growing) = (go(false), go(true));
    for fl in [&frozen, &growing] {
        assert_eq!(fl.bytes_delivered, 400_000);
        assert_eq!((fl.timeouts, fl.retransmissions), (0, 29), "{fl:?}");
    }
    let exit = |fl: &FlowResults| fl.recoveries[0].cwnd_before_exit.unwrap();
    assert_eq!(frozen.recoveries[0].ssthresh, 16);
    assert_eq!(exit(&frozen), 16, "{:?}", frozen.recoveries);
    assert_eq!(exit(&growing), 17, "{:?}", growing.recoveries);
}
