//! RACK (RFC 8985) in whole runs: its reordering timer repairs losses that
//! no duplicate-ACK count would (what made Linux drop early retransmit),
//! and its DSACK-grown reordering window keeps it from retransmitting
//! spuriously on a reordering path where DupThresh keeps doing so.

use crate::common;

use common::*;
use losslab_core::event::{Event, Timed, TimerKind};
use losslab_core::time::{Time, MS};
use losslab_sim::results::FlowResults;
use losslab_sim::scenario::*;
use losslab_sim::sim::{Body, Packet, PacketFate, Side};
use losslab_sim::{Simulation, Tracer};
use std::cell::RefCell;
use std::rc::Rc;

#[derive(Default)]
struct Log {
    detector_timer: Vec<Time>,
    recovery_entered: Vec<Time>,
    acks: Vec<Time>,
}

struct Recorder(Rc<RefCell<Log>>);

impl Tracer for Recorder {
    fn wants_endpoint_events(&self) -> bool {
        true
    }
    fn endpoint(&mut self, _flow: usize, side: Side, ev: &Timed) {
        let mut log = self.0.borrow_mut();
        match (side, ev.event) {
            (
                Side::Sender,
                Event::TimerFired {
                    kind: TimerKind::Detector,
                },
            ) => log.detector_timer.push(ev.at),
            (Side::Sender, Event::RecoveryEntered { .. }) => log.recovery_entered.push(ev.at),
            _ => {}
        }
    }
    fn packet(&mut self, at: Time, p: &Packet, fate: PacketFate) {
        if let (Body::Ack(_), PacketFate::Delivered) = (p.body, fate) {
            self.0.borrow_mut().acks.push(at);
        }
    }
}

fn run(sc: &Scenario) -> (FlowResults, Log) {
    let mut sim = Simulation::new(sc).unwrap();
    let log = Rc::new(RefCell::new(Log::default()));
    sim.set_tracer(Box::new(Recorder(log.clone())));
    sim.run();
    let f = sim.results().flows[0].clone();
    drop(sim);
    (f, Rc::try_unwrap(log).ok().unwrap().into_inner())
}

#[test]
fn the_reordering_timer_repairs_a_short_flow_without_a_timeout() {
    // Segment 1 of 3 lost: two SACKs, fewer than DupThresh, so the
    // reordering window stays open (RACK.min_RTT / 4) and the timer, not
    // an ACK, declares segment 1 lost.
    let sc = |detection: &str| {
        let loss = LossModel::Drop {
            flow: "a".into(),
            which: DropSpec::Segments(vec![1]),
        };
        let mut f = FlowSpec::new("a");
        f.detection = detection.into();
        f.app = AppSpec::Bytes(3 * 1448);
        scenario("short", 10, path(10_000_000, 20, loss), vec![f])
    };
    let (rack, log) = run(&sc("rack"));
    assert_eq!((rack.timeouts, rack.fast_recoveries), (0, 1), "{rack:?}");
    assert_eq!(rack.retransmissions, 1);
    assert_eq!(log.recovery_entered.len(), 1);
    assert_eq!(log.detector_timer, log.recovery_entered);
    // The timer fired a quarter of the RTT (40 ms path, plus
    // serialisation) after the last SACK arrived, for the remainder of
    // segment 1's RACK.rtt + reo_wnd.
    let wait = log.recovery_entered[0] - log.acks[1];
    assert!(wait > 0 && wait <= 12 * MS, "waited {wait} ns");
    let (rfc, _) = run(&sc("dupthresh"));
    assert_eq!(rfc.timeouts, 1);
    assert!(rack.fct_s.unwrap() + 0.1 < rfc.fct_s.unwrap());
}

#[test]
fn dsacks_widen_the_window_and_spare_spurious_retransmissions() {
    let sc = |detection: &str| {
        let (mut p, r) = path(10_000_000, 20, LossModel::None);
        p.reorder = Reorder {
            p: 0.01,
            delay: 5 * MS,
        };
        let mut f = FlowSpec::new("a");
        f.detection = detection.into();
        f.app = AppSpec::Bytes(3_000_000);
        scenario("reorder", 30, (p, r), vec![f])
    };
    let (rack, _) = run(&sc("rack"));
    let (rfc, _) = run(&sc("dupthresh"));
    assert_eq!(rack.bytes_delivered, 3_000_000);
    assert_eq!(rack.retransmissions, rack.spurious_retransmissions);
    assert!(rack.reordering_events > 0);
    assert!(
        rack.spurious_retransmissions * 4 <= rfc.spurious_retransmissions,
        "rack {} dupthresh {}",
        rack.spurious_retransmissions,
        rfc.spurious_retransmissions
    );
}

#[test]
fn several_losses_in_one_window_recover_in_one_episode() {
    let loss = LossModel::Drop {
        flow: "a".into(),
        which: DropSpec::Segments(vec![40, 42, 44, 46]),
    };
    let mut f = FlowSpec::new("a");
    f.detection = "rack".into();
    f.app = AppSpec::Bytes(300 * 1448);
    let (f, _) = run(&scenario("multi", 20, path(10_000_000, 20, loss), vec![f]));
    assert_eq!((f.fast_recoveries, f.timeouts), (1, 0), "{f:?}");
    assert_eq!(f.retransmissions, 4);
    assert_eq!(f.spurious_retransmissions, 0);
}
