//! `recovery = "prr-linux"` (Linux 6.x tcp_cwnd_reduction()) in whole
//! runs: a recovery entered by RACK's reordering timer, where Linux counts
//! one delivery (tcp_rack_reo_timeout()), repairs the hole without a
//! timeout, and every byte arrives once. The random-loss runs are in
//! recovery_random_loss.rs.

use crate::common;

use common::*;
use losslab_core::event::{Event, Timed, TimerKind};
use losslab_sim::results::FlowResults;
use losslab_sim::scenario::*;
use losslab_sim::sim::Side;
use losslab_sim::{Simulation, Tracer};
use std::cell::RefCell;
use std::rc::Rc;

fn run_flow(sc: &Scenario) -> FlowResults {
    run(sc).flows[0].clone()
}

/// The sender's events in order, as (detector timer fired, recovery
/// entered, cwnd set) marks.
#[derive(Debug, PartialEq)]
enum Mark {
    DetectorTimer,
    Entered,
    Cwnd(u64),
}

struct Recorder(Rc<RefCell<Vec<Mark>>>);

impl Tracer for Recorder {
    fn wants_endpoint_events(&self) -> bool {
        true
    }
    fn endpoint(&mut self, _flow: usize, side: Side, ev: &Timed) {
        let mark = match (side, ev.event) {
            (
                Side::Sender,
                Event::TimerFired {
                    kind: TimerKind::Detector,
                },
            ) => Mark::DetectorTimer,
            (Side::Sender, Event::RecoveryEntered { .. }) => Mark::Entered,
            (Side::Sender, Event::CwndChanged { cwnd, .. }) => Mark::Cwnd(cwnd),
            _ => return,
        };
        self.0.borrow_mut().push(mark);
    }
}

/// The flow's results and the cwnd the recovery algorithm set on entering
/// (the first cwnd after the entry mark), with whether a detector timer
/// fired just before that entry.
fn run_traced(sc: &Scenario) -> (FlowResults, bool, u64) {
    let mut sim = Simulation::new(sc).unwrap();
    let log = Rc::new(RefCell::new(Vec::new()));
    sim.set_tracer(Box::new(Recorder(log.clone())));
    sim.run();
    let f = sim.results().flows[0].clone();
    drop(sim);
    let marks = Rc::try_unwrap(log).ok().unwrap().into_inner();
    let at = marks.iter().position(|m| *m == Mark::Entered).unwrap();
    let by_timer = at > 0 && marks[at - 1] == Mark::DetectorTimer;
    let cwnd = marks[at..]
        .iter()
        .find_map(|m| match m {
            Mark::Cwnd(c) => Some(*c),
            _ => None,
        })
        .unwrap();
    (f, by_timer, cwnd)
}

#[test]
fn a_reordering_timer_entry_repairs_the_hole_without_a_timeout() {
    // Segment 1 of 3 lost: two SACKs, fewer than DupThresh, so only the
    // reordering timer can declare it lost (detect_rack.rs shows the timer
    // firing at the entry); under dupthresh the same loss waits for the
    // RTO, which is what makes the timer entry visible here.
    let sc = |detection: &str| {
        let loss = LossModel::Drop {
            flow: "a".into(),
            which: DropSpec::Segments(vec![1]),
        };
        let mut f = FlowSpec::new("a");
        f.recovery = "prr-linux".into();
        f.detection = detection.into();
        f.app = AppSpec::Bytes(3 * 1448);
        scenario("short", 10, path(10_000_000, 20, loss), vec![f])
    };
    let (rack, by_timer, entry_cwnd) = run_traced(&sc("rack"));
    assert_eq!(rack.recovery, "prr-linux");
    // tcp_rack_reo_timeout()'s count of one reaches the algorithm: packets
    // out 3, SACKed 2, lost 1, in_flight 0; delta = ssthresh - 0 >= 0,
    // sndcnt = min(delta, max(1 - 0, 1)) = 1, cwnd = 0 + 1 = 1. Counting
    // the sender's 0 instead, tcp_cwnd_reduction() would return and leave
    // cwnd at its pre-loss 10.
    assert!(by_timer);
    assert_eq!(entry_cwnd, 1);
    assert_eq!(rack.bytes_delivered, 3 * 1448, "{rack:?}");
    assert_eq!(
        (rack.timeouts, rack.fast_recoveries, rack.retransmissions),
        (0, 1, 1),
        "{rack:?}"
    );
    let dupthresh = run_flow(&sc("dupthresh"));
    assert_eq!(dupthresh.bytes_delivered, 3 * 1448);
    assert_eq!(
        (dupthresh.timeouts, dupthresh.fast_recoveries),
        (1, 0),
        "{dupthresh:?}"
    );
}

#[test]
fn lossy_bulk_flows_deliver_every_byte_once_with_and_without_sack() {
    // 1% random loss, CUBIC, RACK and plain DupThresh, SACK and not: the
    // engine's invariant checks run (losslab-sim's dev build) and every
    // byte reaches the application once and in order. (cwnd = ssthresh at
    // each recovery's end is checked in recovery_random_loss.rs.)
    const BYTES: u64 = 2_000_000;
    for detection in ["rack", "dupthresh"] {
        for sack in [3u8, 0] {
            if detection == "rack" && sack == 0 {
                continue;
            }
            let mut f = FlowSpec::new("a");
            f.recovery = "prr-linux".into();
            f.detection = detection.into();
            f.receiver.sack_blocks = sack;
            f.app = AppSpec::Bytes(BYTES);
            let mut sc = scenario(
                "random",
                120,
                path(20_000_000, 20, LossModel::Bernoulli { p: 0.01 }),
                vec![f],
            );
            sc.seed = 7;
            let fl = run_flow(&sc);
            let what = format!("{detection} sack={sack}");
            assert_eq!(fl.bytes_delivered, BYTES, "{what}");
            assert!(fl.fast_recoveries > 0, "{what}: {fl:?}");
            assert!(fl.retransmissions > 0, "{what}");
        }
    }
}
