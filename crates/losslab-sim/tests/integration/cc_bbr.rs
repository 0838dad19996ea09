//! BBR v1 (losslab-core cc/bbr.rs) in whole simulations: its signature
//! behaviour against CUBIC on the same paths.

use crate::common;

use std::cell::RefCell;
use std::rc::Rc;

use common::*;
use losslab_core::event::{Event, Timed};
use losslab_core::time::{Time, SEC};
use losslab_sim::results::RunResults;
use losslab_sim::scenario::*;
use losslab_sim::sim::Side;
use losslab_sim::{Simulation, Tracer};

fn flow(cc: &str) -> FlowSpec {
    let mut f = FlowSpec::new("a");
    f.cc = CcSpec::Named(cc.into());
    f
}

/// (time, cwnd) after every ACK flow 0's sender processed.
#[derive(Default)]
struct CwndTrace(Rc<RefCell<Vec<(Time, u64)>>>);

impl Tracer for CwndTrace {
    fn wants_endpoint_events(&self) -> bool {
        true
    }
    fn endpoint(&mut self, flow: usize, side: Side, ev: &Timed) {
        if let (0, Side::Sender, Event::AckProcessed { state, .. }) = (flow, side, &ev.event) {
            self.0.borrow_mut().push((ev.at, state.cwnd));
        }
    }
}

/// A run's results and flow 0's (time, cwnd) after every ACK.
type Run = (RunResults, Vec<(Time, u64)>);

/// 20 Mbit/s, 100 ms RTT, a one-BDP queue (250 kB), `loss`, `secs`
/// seconds; the results and the cwnd after every ACK.
fn run(cc: &str, loss: LossModel, secs: u64, seed: u64) -> Run {
    let (mut p, r) = path(20_000_000, 50, loss);
    p.queue = QueueLimit::Bytes(250_000);
    let mut sc = scenario(cc, secs, (p, r), vec![flow(cc)]);
    sc.seed = seed;
    let mut sim = Simulation::new(&sc).unwrap();
    let trace = CwndTrace::default();
    let cwnds = trace.0.clone();
    sim.set_tracer(Box::new(trace));
    sim.run_until(secs * SEC);
    let res = sim.results();
    let cwnds = cwnds.borrow().clone();
    (res, cwnds)
}

fn side_by_side(loss: LossModel, secs: u64) -> (Run, Run) {
    std::thread::scope(|s| {
        let l = loss.clone();
        let b = s.spawn(move || run("bbr", l, secs, 1));
        let c = s.spawn(move || run("cubic", loss, secs, 1));
        (b.join().unwrap(), c.join().unwrap())
    })
}

/// (a) 20 Mbit/s, 100 ms RTT, one-BDP queue, 1% random loss, 30 s.
/// BBR does not treat loss as congestion: its model (max delivery rate
/// over 10 rounds, min RTT over 10 s) barely moves when 1 segment in 100
/// is lost, so it keeps pacing at the link rate. CUBIC cuts cwnd on every
/// loss and settles in its Reno-friendly region, about 1.22 / sqrt(p) =
/// 12 segments per 100 ms (1.4 Mbit/s) against a 170-segment BDP.
/// Linux 6.18 BBR measured 18.3 Mbit/s on this path; the bound, 80% of
/// the link, is the brief's "keeps the link busy" and is not tuned to
/// the measurement, nor is "at least 5x CUBIC". Measured when written:
/// BBR 18.21 Mbit/s (151 fast recoveries, no timeout), CUBIC 1.56
/// Mbit/s.
#[test]
fn bbr_keeps_the_link_busy_under_random_loss() {
    let ((b, _), (c, _)) = side_by_side(LossModel::Bernoulli { p: 0.01 }, 30);
    let (bbr, cubic) = (b.flows[0].goodput_bps, c.flows[0].goodput_bps);
    assert_eq!(b.flows[0].cc, "bbr");
    assert!(b.flows[0].fast_recoveries > 50, "{:?}", b.flows[0]);
    assert!(bbr > 0.8 * 20e6, "bbr {bbr:.0} b/s");
    assert!(
        bbr > 5.0 * cubic,
        "bbr {bbr:.0} b/s vs cubic {cubic:.0} b/s"
    );
}

/// (b) The same path without random loss, 35 s. CUBIC fills the
/// one-BDP queue every cycle, so its RTT sits between 100 and 200 ms;
/// BBR keeps about one BDP in flight (the queue only grows in STARTUP
/// and in the 1.25 phase, one round in eight), so its RTT stays near the
/// 100 ms propagation delay, at the same goodput. Measured when written:
/// mean RTT BBR 107.1 ms (p99 146.8) vs CUBIC 172.0 ms (p99 200.3);
/// goodput BBR 18.49 Mbit/s, CUBIC 19.05. Both overflow the queue once
/// (BBR in STARTUP, 330 drops; CUBIC 491), so max_queue_bytes is 249000
/// for both and says nothing: the mean RTT is the measure. Asserted:
/// BBR's queueing delay (mean RTT less min RTT) is under a quarter of
/// CUBIC's, and BBR's goodput over 85% of the link.
#[test]
fn bbr_keeps_the_queue_small_on_a_loss_free_path() {
    let ((b, _), (c, _)) = side_by_side(LossModel::None, 35);
    let delay = |r: &RunResults| {
        let rtt = &r.flows[0].rtt_ms;
        rtt.mean.unwrap() - rtt.min.unwrap()
    };
    let (bq, cq) = (delay(&b), delay(&c));
    assert!(
        bq < cq / 4.0,
        "queueing delay bbr {bq:.1} ms, cubic {cq:.1} ms"
    );
    assert!(bq < 20.0, "bbr queueing delay {bq:.1} ms");
    let bbr = b.flows[0].goodput_bps;
    assert!(bbr > 0.85 * 20e6, "bbr {bbr:.0} b/s");
}

/// Times cwnd fell to BBR's PROBE_RTT cwnd of 4 (from above it).
fn probe_rtt_dips(trace: &[(Time, u64)]) -> Vec<f64> {
    let mut prev = u64::MAX;
    let mut dips = vec![];
    for &(t, w) in trace {
        if w <= 4 && prev > 4 {
            dips.push(t as f64 / 1e9);
        }
        prev = w;
    }
    dips
}

/// (c) PROBE_RTT: a bulk flow never goes idle, so nothing lowers min_rtt
/// for 10 s after it was last refreshed and BBR dips to cwnd 4 for at
/// least 200 ms and a round. tcp_bbr.c's bbr_update_min_rtt() (Linux
/// 5.10 and 6.x) refreshes min_rtt only on a sample below it (`rs->rtt_us
/// < bbr->min_rtt_us`), so the samples equal to min_rtt that this
/// jitter-free path gives whenever PROBE_BW's 0.75 phase empties the
/// queue do not postpone the next dip; the 10 s restart at the end of
/// each dip (bbr_check_probe_rtt_done() restamps min_rtt), so the period
/// is 10 s + 200 ms + about one RTT. Measured: dips at 10.201, 20.503 and
/// 30.807 s (no loss, no timeout), 10.30 s apart. (With `<=`, issue 32's
/// mistaken rule, there was one dip, at 10.312 s.)
#[test]
fn probe_rtt_about_every_ten_seconds() {
    let (res, trace) = run("bbr", LossModel::None, 35, 1);
    assert_eq!(res.flows[0].timeouts, 0);
    let dips = probe_rtt_dips(&trace);
    assert_eq!(dips.len(), 3, "{dips:?}");
    assert!(dips[0] > 10.0 && dips[0] < 10.5, "{dips:?}");
    for p in dips.windows(2) {
        let gap = p[1] - p[0];
        assert!(gap > 10.2 && gap < 10.5, "{dips:?}");
    }
}

/// (d) Determinism: the same scenario seed gives the same run to the
/// ACK; BBR's only randomness is the gain cycle's starting phase, drawn
/// from the flow's own cc seed (losslab-sim cc_seed), so on a loss-free
/// path (no other random draw) another seed may change the run and
/// nothing else. Measured when written: seeds 1, 2, 3 and 4 gave 3
/// distinct 10 s cwnd traces (the phase takes one of 7 values, so two
/// seeds may draw the same).
#[test]
fn same_seed_same_run() {
    let loss = LossModel::Bernoulli { p: 0.01 };
    let (a, at) = run("bbr", loss.clone(), 10, 1);
    let (b, bt) = run("bbr", loss, 10, 1);
    assert_eq!(a, b);
    assert_eq!(at, bt);
    let traces: Vec<_> = (1..=4)
        .map(|seed| run("bbr", LossModel::None, 10, seed).1)
        .collect();
    let mut distinct = traces.clone();
    distinct.sort();
    distinct.dedup();
    assert!(distinct.len() > 1);
}
