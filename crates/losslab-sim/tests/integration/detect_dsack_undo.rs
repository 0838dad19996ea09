//! DSACK-based undo (Linux tcp_try_undo_dsack(), RFC 3708's spirit): on a
//! path that reorders but never drops, every fast recovery is spurious;
//! when the DSACKs for its retransmissions come back, cwnd and ssthresh
//! return to their values before the reduction.

use crate::common;

use common::*;
use losslab_core::event::{Event, Timed};
use losslab_core::time::{Time, MS};
use losslab_sim::results::{FlowResults, RunResults};
use losslab_sim::scenario::*;
use losslab_sim::sim::{Packet, PacketFate, Side};
use losslab_sim::{Simulation, Tracer};
use std::cell::RefCell;
use std::rc::Rc;

/// (time, restored cwnd, restored ssthresh) of every undo.
struct Undos(Rc<RefCell<Vec<(Time, u64, u64)>>>);

impl Tracer for Undos {
    fn wants_endpoint_events(&self) -> bool {
        true
    }
    fn endpoint(&mut self, _flow: usize, side: Side, ev: &Timed) {
        if let (Side::Sender, Event::Undo { cwnd, ssthresh }) = (side, ev.event) {
            self.0.borrow_mut().push((ev.at, cwnd, ssthresh));
        }
    }
    fn packet(&mut self, _at: Time, _p: &Packet, _f: PacketFate) {}
}

fn reordering(detection: &str, undo: bool) -> (RunResults, Vec<(Time, u64, u64)>) {
    let (mut p, r) = path(10_000_000, 20, LossModel::None);
    p.reorder = Reorder {
        p: 0.01,
        delay: 5 * MS,
    };
    let mut f = FlowSpec::new("a");
    f.detection = detection.into();
    f.dsack_undo = undo;
    f.app = AppSpec::Bytes(3_000_000);
    let sc = scenario("reorder", 30, (p, r), vec![f]);
    let mut sim = Simulation::new(&sc).unwrap();
    let log = Rc::new(RefCell::new(Vec::new()));
    sim.set_tracer(Box::new(Undos(log.clone())));
    sim.run();
    let res = sim.results();
    drop(sim);
    let undos = Rc::try_unwrap(log).ok().unwrap().into_inner();
    (res, undos)
}

fn fast_recoveries_undone(f: &FlowResults) -> usize {
    f.recoveries
        .iter()
        .filter(|r| r.kind == "fast" && r.undone)
        .count()
}

#[test]
fn undo_restores_cwnd_after_a_reordering_induced_fast_recovery() {
    let (res, undos) = reordering("dupthresh", true);
    let f = &res.flows[0];
    assert_eq!(res.path.drops, 0);
    assert_eq!(f.bytes_delivered, 3_000_000);
    assert!(f.fast_recoveries > 0);
    assert_eq!(f.retransmissions, f.spurious_retransmissions);
    assert!(f.undos > 0, "{f:?}");
    assert_eq!(f.undos as usize, undos.len());
    assert!(f.undos <= f.fast_recoveries);
    // One record per episode here, so each undo marks one recovery.
    assert_eq!(fast_recoveries_undone(f), undos.len());
    // Each undo gives back the window the recovery started from: the
    // reduction answered no loss.
    for &(at, cwnd, _) in &undos {
        let t = at as f64 / 1e9;
        let r = f
            .recoveries
            .iter()
            .rev()
            .find(|r| r.start_s <= t)
            .expect("an undo follows a recovery");
        assert!(r.undone, "{r:?}");
        assert_eq!(cwnd, r.cwnd_before, "undo at {t} s of {r:?}");
        assert!(cwnd > r.ssthresh);
    }
}

#[test]
fn without_undo_the_reductions_stay() {
    let (with, _) = reordering("dupthresh", true);
    let (without, undos) = reordering("dupthresh", false);
    let (with, without) = (&with.flows[0], &without.flows[0]);
    assert!(undos.is_empty());
    assert_eq!(without.undos, 0);
    assert_eq!(fast_recoveries_undone(without), 0);
    assert!(without.fast_recoveries > 0);
    // Spurious halvings cost throughput.
    assert!(
        with.fct_s.unwrap() < without.fct_s.unwrap(),
        "with undo {:?}, without {:?}",
        with.fct_s,
        without.fct_s
    );
}

#[test]
fn real_losses_are_not_undone() {
    // Three drops: every retransmission is needed, no DSACK, no undo.
    let loss = LossModel::Drop {
        flow: "a".into(),
        which: DropSpec::Segments(vec![40, 42, 44]),
    };
    let mut f = FlowSpec::new("a");
    f.app = AppSpec::Bytes(300 * 1448);
    let sc = scenario("multi", 20, path(10_000_000, 20, loss), vec![f]);
    let mut sim = Simulation::new(&sc).unwrap();
    sim.run();
    let f = &sim.results().flows[0];
    assert_eq!((f.fast_recoveries, f.undos), (1, 0), "{f:?}");
    assert!(!f.recoveries[0].undone);
}

#[test]
fn figure2_repairs_four_losses_with_four_retransmissions() {
    // The PRR paper's Figure 2: the first four segments of a 20-segment
    // window are lost and nothing new can be sent. RFC 6675 (4.3) sets
    // RescueRxt at the fast retransmit, so NextSeg()'s rescue waits for the
    // fast retransmit's ACK; by then every un-SACKed segment has been
    // retransmitted (none lies above HighRxt) and no rescue goes out.
    // (Before issue 10 the rescue fired on the next duplicate ACK and
    // repeated the last segment, which the receiver reported as a DSACK.)
    // How one DSACK among several retransmissions leaves the reduction in
    // place: losslab-core/tests/integration/detect_sender.rs.
    let loss = LossModel::Drop {
        flow: "a".into(),
        which: DropSpec::Segments(vec![1, 2, 3, 4]),
    };
    let mut f = FlowSpec::new("a");
    f.mss = 1000;
    f.init_cwnd = 20;
    f.app = AppSpec::Writes(vec![(0, 20_000), (500 * MS, 10_000)]);
    let sc = scenario("figure2", 10, path(1_200_000, 50, loss), vec![f]);
    let mut sim = Simulation::new(&sc).unwrap();
    sim.run();
    let f = &sim.results().flows[0];
    assert_eq!(f.retransmissions, 4, "{f:?}");
    assert_eq!(f.rescue_retransmissions, 0);
    assert_eq!(f.spurious_retransmissions, 0);
    assert_eq!(f.dsacks_received, 0);
    assert_eq!((f.undos, f.reordering_events, f.timeouts), (0, 0, 0));
}

#[test]
fn undo_works_with_every_detector() {
    for d in ["fack", "early-retransmit", "rack"] {
        let (res, undos) = reordering(d, true);
        let f = &res.flows[0];
        assert_eq!(f.bytes_delivered, 3_000_000, "{d}");
        assert_eq!(f.undos as usize, undos.len(), "{d}");
        assert!(f.reordering_events > 0, "{d}");
        if f.fast_recoveries > 0 && f.dsacks_received > 0 {
            assert!(f.undos > 0, "{d}: {f:?}");
        }
    }
}
