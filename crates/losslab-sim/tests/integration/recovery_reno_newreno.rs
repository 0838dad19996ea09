//! Reno (RFC 5681 section 3.2) and NewReno (RFC 6582) without SACK, with
//! deterministic drops.
//!
//! The path is efficiency.rs's: 10 Mbit/s, 40 ms RTT, a queue that never
//! drops, a 300-segment flow, quick ACKs, `sack_blocks = 0`. The newreno
//! congestion controller throughout, so the only difference between runs
//! is the recovery algorithm.
//!
//! Where the drops fall: slow start from 10 segments reaches 49 segments
//! of cwnd (51 in flight) when segment 40's loss is detected, and 89 (91
//! in flight) when segment 80's is.

use crate::common;

use common::*;
use losslab_core::recovery::NewRenoVariant;
use losslab_sim::results::FlowResults;
use losslab_sim::scenario::*;
use losslab_sim::Simulation;

const SEGMENTS: u64 = 300;

fn run(recovery: &str, variant: NewRenoVariant, drops: &[u64]) -> FlowResults {
    let (p, r) = path(
        10_000_000,
        20,
        LossModel::Drop {
            flow: "a".into(),
            which: DropSpec::Segments(drops.to_vec()),
        },
    );
    let mut f = FlowSpec::new("a");
    f.app = AppSpec::Bytes(SEGMENTS * 1448);
    f.recovery = recovery.into();
    f.newreno_variant = variant;
    f.receiver.sack_blocks = 0;
    f.receiver.ack = AckSpec::Quick;
    let sc = scenario("reno-newreno", 30, (p, r), vec![f]);
    let mut sim = Simulation::new(&sc).unwrap();
    sim.run();
    let res = sim.results();
    assert_eq!(
        res.path.loss_drops,
        drops.len() as u64,
        "the drops happened"
    );
    assert_eq!(res.path.queue_drops, 0, "no queue overflow");
    let fl = res.flows[0].clone();
    assert_eq!(fl.bytes_delivered, SEGMENTS * 1448, "{recovery}: {fl:?}");
    fl
}

/// Seconds of the only fast recovery, divided by the losses it repaired,
/// in units of the flow's smallest RTT.
fn rtts_per_loss(fl: &FlowResults, losses: u64) -> f64 {
    assert_eq!(fl.recoveries.len(), 1, "{:?}", fl.recoveries);
    let r = &fl.recoveries[0];
    let secs = r.end_s.expect("recovery ended") - r.start_s;
    let min_rtt_s = fl.rtt_ms.min.expect("RTT measured") / 1e3;
    secs / losses as f64 / min_rtt_s
}

#[test]
fn one_loss_one_fast_retransmit_for_both() {
    // Measured: both finish at 0.5416 s, one recovery 0.1780-0.2356 s,
    // cwnd 49 -> 24 (ssthresh 24), as rfc6675 does without SACK.
    let mut fcts = vec![];
    for rec in ["reno", "newreno"] {
        let fl = run(rec, NewRenoVariant::SlowButSteady, &[40]);
        assert_eq!(fl.retransmissions, 1, "{rec}: {fl:?}");
        assert_eq!(fl.spurious_retransmissions, 0, "{rec}");
        assert_eq!(fl.fast_recoveries, 1, "{rec}");
        assert_eq!(fl.timeouts, 0, "{rec}");
        let r = &fl.recoveries[0];
        assert_eq!(r.cwnd_after, Some(r.ssthresh), "{rec}: {r:?}");
        fcts.push(fl.fct_s.unwrap());
    }
    let rfc6675 = run("rfc6675", NewRenoVariant::SlowButSteady, &[40]);
    assert_eq!(fcts, vec![rfc6675.fct_s.unwrap(); 2]);
}

/// Four losses in the window of 51 segments that follows segment 40.
const FOUR: [u64; 4] = [40, 43, 46, 49];

#[test]
fn four_losses_newreno_repairs_one_per_rtt_in_one_recovery() {
    // RFC 6582 step 4: each partial ACK retransmits the next hole, one
    // per RTT. Measured: 4 retransmissions, one recovery of 0.180 s
    // (1.12 min-RTTs of 40.05 ms per loss), done at 0.578 s.
    let fl = run("newreno", NewRenoVariant::SlowButSteady, &FOUR);
    assert_eq!(fl.retransmissions, 4, "{fl:?}");
    assert_eq!(fl.spurious_retransmissions, 0);
    assert_eq!(fl.fast_recoveries, 1);
    assert_eq!(fl.timeouts, 0);
    let per_loss = rtts_per_loss(&fl, 4);
    assert!((0.9..1.5).contains(&per_loss), "{per_loss}");
    // Four partial ACKs are too few for Impatient's RTO to fire.
    let imp = run("newreno", NewRenoVariant::Impatient, &FOUR);
    assert_eq!((imp.retransmissions, imp.timeouts), (4, 0));
    assert_eq!(imp.fct_s, fl.fct_s);
}

#[test]
fn four_losses_reno_needs_two_fast_retransmits_and_a_timeout() {
    // RFC 5681 by hand. Segment 40's third duplicate ACK (from 44, after
    // 41 and 42 and two limited-transmit segments) fast-retransmits 40
    // with ssthresh = 49 / 2 = 24. The 47 duplicate ACKs of the window
    // inflate cwnd to 24 + 47 = 71 against a FlightSize of 51, so about 20
    // new segments go out. The ACK of 40's retransmission covers 40-42
    // only: a partial ACK, which for Reno ends recovery (step 6), cwnd =
    // 24 against a FlightSize of about 68, so nothing is sent and 43 is
    // not retransmitted.
    // The ~20 new segments then arrive above the hole at 43: duplicate
    // ACKs again, a second fast retransmit (of 43) with ssthresh =
    // FlightSize / 2 = 34, higher than the first, since FlightSize counts
    // the segments the receiver holds above the holes. Its ~20 duplicate
    // ACKs inflate cwnd to about 54, below the FlightSize of 68: nothing
    // new is sent. The ACK of 43 covers 43-45, ends the second recovery
    // with nothing in flight that could bring duplicate ACKs, and 46 and
    // 49 wait for the RTO.
    // Measured: recoveries fast 0.1792-0.2356 (ssthresh 24), fast
    // 0.2552-0.2964 (ssthresh 34, flight 68), timeout 0.5423-0.6247, and
    // after it a fourth, fast, recovery: the go-back-N resends segments
    // the receiver holds, whose duplicate ACKs make a false fast
    // retransmit (RFC 6582 section 4's problem, which Reno does not
    // guard against). 8 retransmissions, 4 of them spurious, done at
    // 1.0055 s against NewReno's 0.578.
    let fl = run("reno", NewRenoVariant::SlowButSteady, &FOUR);
    let kinds: Vec<&str> = fl.recoveries.iter().map(|r| r.kind.as_str()).collect();
    assert_eq!(
        &kinds[..3],
        ["fast", "fast", "timeout"],
        "{:?}",
        fl.recoveries
    );
    let (first, second) = (&fl.recoveries[0], &fl.recoveries[1]);
    // The first ended before the second began: on the partial ACK.
    assert!(first.end_s.unwrap() < second.start_s, "{:?}", fl.recoveries);
    assert_eq!(first.cwnd_after, Some(first.ssthresh));
    assert!(second.ssthresh > first.ssthresh, "{:?}", fl.recoveries);
    assert!(second.flight_at_start > first.flight_at_start);
    assert_eq!(fl.timeouts, 1);
    assert!(fl.fast_recoveries >= 2);
    assert!(fl.retransmissions > 4, "{fl:?}");
    let newreno = run("newreno", NewRenoVariant::SlowButSteady, &FOUR);
    assert!(fl.fct_s.unwrap() > newreno.fct_s.unwrap() + 0.2);
}

#[test]
fn after_a_partial_ack_three_new_dupacks_start_another_reno_recovery() {
    // Two losses in one window: the ~20 segments the inflated window
    // sent during the first recovery bring three duplicate ACKs for the
    // second hole after the partial ACK ended that recovery (RFC 5681 has
    // no recovery point to forbid it). Measured: fast 0.1792-0.2356 s
    // (ssthresh 24), fast 0.2528-0.2940 s (ssthresh 35), done at 0.5396 s,
    // as fast as NewReno here.
    let fl = run("reno", NewRenoVariant::SlowButSteady, &[40, 43]);
    assert_eq!(fl.fast_recoveries, 2, "{:?}", fl.recoveries);
    assert_eq!(fl.timeouts, 0);
    assert_eq!(fl.retransmissions, 2);
    let newreno = run("newreno", NewRenoVariant::SlowButSteady, &[40, 43]);
    assert_eq!((newreno.fast_recoveries, newreno.retransmissions), (1, 2));
}

#[test]
fn ns2_reno_waits_for_the_timeout_where_rfc_reno_fast_retransmits_again() {
    // The same two losses with ns-2's Reno (`bug_fix_`, RFC 6582 section
    // 4.1's recover check): the partial ACK ends the first recovery and
    // the three new duplicate ACKs for segment 43 arrive while snd.una is
    // still below recover (HighData at the first fast retransmit), so no
    // second fast retransmit: segment 43 waits for the RTO.
    let rfc = run("reno", NewRenoVariant::SlowButSteady, &[40, 43]);
    let fl = run("ns2-reno", NewRenoVariant::SlowButSteady, &[40, 43]);
    let kinds: Vec<&str> = fl.recoveries.iter().map(|r| r.kind.as_str()).collect();
    assert_eq!(&kinds[..2], ["fast", "timeout"], "{:?}", fl.recoveries);
    assert_eq!((fl.fast_recoveries, fl.timeouts), (1, 1), "{fl:?}");
    assert!(fl.fct_s.unwrap() > rfc.fct_s.unwrap() + 0.1, "{fl:?}");
    // One loss: the guard is never consulted, and both are the same run.
    let one = run("ns2-reno", NewRenoVariant::SlowButSteady, &[40]);
    let one_rfc = run("reno", NewRenoVariant::SlowButSteady, &[40]);
    assert_eq!(one.fct_s, one_rfc.fct_s);
    assert_eq!((one.fast_recoveries, one.retransmissions), (1, 1));
}

/// Ten losses in the window of 91 segments that follows segment 80.
fn ten() -> Vec<u64> {
    (80..120).step_by(4).collect()
}

#[test]
fn many_losses_impatient_times_out_slow_but_steady_does_not() {
    // The RTO (Linux's formula, the default, at least 200 ms above SRTT)
    // is several RTTs. Slow-but-steady restarts it on every partial ACK
    // and repairs a hole per RTT: 10 retransmissions, one recovery.
    // Impatient restarts it only on the first partial ACK, so it fires
    // with holes left, and the timeout repairs the rest by slow start
    // (go-back-N, some of it spurious), which with ten holes finishes
    // sooner. Six holes (40..64 step 4, after segment 40) are too few
    // here: the recovery ends before the RTO.
    // Measured: slow-but-steady 10 retransmissions, no timeout, recovery
    // 0.2260-0.7084 s (1.20 min-RTTs per loss), done at 0.6884 s;
    // impatient's RTO fired at 0.5857 s, 24 retransmissions (14
    // spurious), done at 0.6520 s.
    let drops = ten();
    let steady = run("newreno", NewRenoVariant::SlowButSteady, &drops);
    assert_eq!(steady.retransmissions, 10, "{steady:?}");
    assert_eq!(steady.timeouts, 0);
    assert_eq!(steady.fast_recoveries, 1);
    assert_eq!(steady.spurious_retransmissions, 0);
    let per_loss = rtts_per_loss(&steady, 10);
    assert!((0.9..1.5).contains(&per_loss), "{per_loss}");
    let impatient = run("newreno", NewRenoVariant::Impatient, &drops);
    assert_eq!(impatient.timeouts, 1, "{impatient:?}");
    assert_eq!(impatient.fast_recoveries, 1);
    assert!(impatient.retransmissions > 10);
    let kinds: Vec<&str> = impatient
        .recoveries
        .iter()
        .map(|r| r.kind.as_str())
        .collect();
    assert_eq!(kinds, ["fast", "timeout"]);
    assert!(impatient.fct_s.unwrap() < steady.fct_s.unwrap());
}
