//! FACK against RFC 6675 DupThresh on the PRR paper's Figure 2 setup
//! (Dukkipati et al., IMC 2011, section 4.1): 100 ms RTT, 1.2 Mbit/s,
//! MSS 1000 bytes, the application writes 20 kB at 0 ms and 10 kB at
//! 500 ms, the first 4 segments are dropped. "Since TCP uses FACK, ... TCP
//! enters fast recovery after receiving first dupack": the first ACK to
//! come back SACKs segment 5, four segments above snd.una. DupThresh waits
//! for the third duplicate ACK. (Initial window 20, so that the 20 kB leave
//! at once and ssthresh is 10 as in the paper.)

use crate::common;

use common::*;
use losslab_core::time::{Time, MS};
use losslab_sim::results::FlowResults;
use losslab_sim::scenario::*;
use losslab_sim::sim::{Body, Packet, PacketFate, Tracer};
use losslab_sim::Simulation;
use std::cell::RefCell;
use std::rc::Rc;

/// Arrival times of ACKs at the sender, and retransmissions sent.
#[derive(Default)]
struct Log {
    acks: Vec<Time>,
    retransmitted: Vec<(Time, u64)>,
}

struct Recorder(Rc<RefCell<Log>>);

impl Tracer for Recorder {
    fn packet(&mut self, at: Time, pkt: &Packet, fate: PacketFate) {
        let mut log = self.0.borrow_mut();
        match (&pkt.body, fate) {
            (Body::Ack(_), PacketFate::Delivered) => log.acks.push(at),
            (Body::Data(s), PacketFate::Sent) if s.tx_count > 1 => {
                log.retransmitted.push((at, s.seg_no))
            }
            _ => {}
        }
    }
}

fn figure2(detection: &str) -> (FlowResults, Log) {
    let loss = LossModel::Drop {
        flow: "a".into(),
        which: DropSpec::Segments(vec![1, 2, 3, 4]),
    };
    let mut f = FlowSpec::new("a");
    f.detection = detection.into();
    f.mss = 1000;
    f.init_cwnd = 20;
    f.app = AppSpec::Writes(vec![(0, 20_000), (500 * MS, 10_000)]);
    let sc = scenario("figure2", 10, path(1_200_000, 50, loss), vec![f]);
    let mut sim = Simulation::new(&sc).unwrap();
    let log = Rc::new(RefCell::new(Log::default()));
    sim.set_tracer(Box::new(Recorder(log.clone())));
    sim.run();
    let f = sim.results().flows[0].clone();
    drop(sim);
    let log = Rc::try_unwrap(log).ok().unwrap().into_inner();
    (f, log)
}

fn secs(t: Time) -> f64 {
    t as f64 / 1e9
}

#[test]
fn fack_enters_recovery_on_the_first_duplicate_ack() {
    let (f, log) = figure2("fack");
    assert_eq!(f.bytes_delivered, 30_000);
    assert_eq!((f.fast_recoveries, f.timeouts), (1, 0), "{f:?}");
    // No ACK comes back before the first duplicate: segments 1-4 are lost,
    // so the first ACK is the one SACKing segment 5.
    let first_ack = log.acks[0];
    assert!(
        (f.recoveries[0].start_s - secs(first_ack)).abs() < 1e-9,
        "recovery at {} s, first ACK at {} s",
        f.recoveries[0].start_s,
        secs(first_ack)
    );
    assert_eq!(
        (f.recoveries[0].cwnd_before, f.recoveries[0].ssthresh),
        (20, 10)
    );
    // All four holes were marked lost at once and each is retransmitted
    // exactly once, the first one on that first duplicate ACK.
    let mut rtx: Vec<u64> = log.retransmitted.iter().map(|r| r.1).collect();
    assert_eq!(log.retransmitted[0], (first_ack, 0));
    rtx.sort_unstable();
    rtx.dedup();
    assert_eq!(&rtx[..4], &[0, 1, 2, 3]);
    assert_eq!(f.lost_retransmissions, 0);
    assert_eq!(f.reordering_events, 0);
}

#[test]
fn dupthresh_needs_the_third_duplicate_ack() {
    let (f, log) = figure2("dupthresh");
    assert_eq!((f.fast_recoveries, f.timeouts), (1, 0), "{f:?}");
    let third_ack = log.acks[2];
    assert!(
        (f.recoveries[0].start_s - secs(third_ack)).abs() < 1e-9,
        "recovery at {} s, third ACK at {} s",
        f.recoveries[0].start_s,
        secs(third_ack)
    );
    assert!(log.acks[0] < third_ack);
}

#[test]
fn fack_finishes_the_transfer_no_later_than_dupthresh() {
    let (fack, _) = figure2("fack");
    let (dupthresh, _) = figure2("dupthresh");
    // Two ACK clocks (2 x 7 ms at 1.2 Mbit/s) earlier into recovery.
    assert!(fack.fct_s.unwrap() <= dupthresh.fct_s.unwrap());
    assert_eq!(
        fack.spurious_retransmissions,
        dupthresh.spurious_retransmissions
    );
}

#[test]
fn fack_falls_back_to_dupthresh_once_reordering_is_seen() {
    // A reordering path: FACK's first spurious fast retransmits reveal the
    // reordering (DSACKs, late originals), after which it behaves like
    // DupThresh; over the whole run it cannot be far worse than DupThresh.
    let run = |detection: &str| {
        let (mut p, r) = path(10_000_000, 20, LossModel::None);
        p.reorder = Reorder {
            p: 0.01,
            delay: 5 * MS,
        };
        let mut f = FlowSpec::new("a");
        f.detection = detection.into();
        f.app = AppSpec::Bytes(3_000_000);
        let sc = scenario("reorder", 30, (p, r), vec![f]);
        let mut sim = Simulation::new(&sc).unwrap();
        sim.run();
        sim.results().flows[0].clone()
    };
    let fack = run("fack");
    let dupthresh = run("dupthresh");
    assert!(fack.reordering_events > 0, "{fack:?}");
    assert_eq!(fack.bytes_delivered, 3_000_000);
    assert!(
        fack.spurious_retransmissions <= dupthresh.spurious_retransmissions + 3,
        "fack {} dupthresh {}",
        fack.spurious_retransmissions,
        dupthresh.spurious_retransmissions
    );
}
