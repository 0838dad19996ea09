//! CUBIC and Reno in whole simulations.

mod common;

use common::*;
use losslab_core::time::SEC;
use losslab_sim::scenario::*;
use losslab_sim::Simulation;

fn flow(cc: &str) -> FlowSpec {
    let mut f = FlowSpec::new("a");
    f.cc = CcSpec::Named(cc.into());
    f
}

fn sized(cc: &str, bytes: u64) -> FlowSpec {
    let mut f = flow(cc);
    f.app = AppSpec::Bytes(bytes);
    f
}

/// 100 Mbit/s, 100 ms RTT, one-BDP queue, random loss 1e-5, 60 s.
/// Reno-style AIMD averages about 1.22 / sqrt(p) = 386 segments against a
/// BDP of about 860; CUBIC's average window at this loss rate and RTT
/// (RFC 9438 section 5.1: (C (3 + beta) / (4 (1 - beta)))^(1/4) x
/// RTT^(3/4) / p^(3/4)) is about 1050 segments, enough to keep the link
/// busy. (Measured when written: CUBIC 93 Mbit/s, NewReno 46 Mbit/s.)
fn long_fat_run(cc: &str) -> (f64, u64) {
    let (mut p, r) = path(100_000_000, 50, LossModel::Bernoulli { p: 1e-5 });
    p.queue = QueueLimit::Bytes(1_250_000);
    let sc = scenario(cc, 60, (p, r), vec![flow(cc)]);
    let mut sim = Simulation::new(&sc).unwrap();
    sim.run_until(60 * SEC);
    let res = sim.results();
    let f = &res.flows[0];
    (f.goodput_bps, f.fast_recoveries)
}

#[test]
fn cubic_beats_newreno_on_a_long_fat_lossy_path() {
    // Two independent runs of several seconds each: side by side.
    let ((cubic, cubic_fr), (newreno, newreno_fr)) = std::thread::scope(|s| {
        let c = s.spawn(|| long_fat_run("cubic"));
        let n = s.spawn(|| long_fat_run("newreno"));
        (c.join().unwrap(), n.join().unwrap())
    });
    assert!(cubic_fr > 0 && newreno_fr > 0);
    assert!(
        cubic > 1.5 * newreno && cubic > 80e6,
        "cubic {cubic:.0} b/s vs newreno {newreno:.0} b/s"
    );
}

/// One drop: the recovery record's ssthresh is floor(0.7 cwnd_before)
/// (RFC 9438 section 4.6 on cwnd), and the rfc6675 recovery leaves cwnd
/// at ssthresh.
fn single_loss(cc: &str) -> losslab_sim::results::RecoveryResult {
    let loss = LossModel::Drop {
        flow: "a".into(),
        which: DropSpec::Segments(vec![60]),
    };
    let sc = scenario(
        "one-loss",
        30,
        path(10_000_000, 20, loss),
        vec![sized(cc, 400 * 1448)],
    );
    let mut sim = Simulation::new(&sc).unwrap();
    sim.run();
    let f = &sim.results().flows[0];
    assert_eq!(f.fast_recoveries, 1, "{cc}");
    assert_eq!(f.timeouts, 0, "{cc}");
    assert_eq!(f.retransmissions, 1, "{cc}");
    assert_eq!(f.bytes_delivered, 400 * 1448, "{cc}");
    f.recoveries[0].clone()
}

#[test]
fn cubic_reduces_to_seven_tenths_of_cwnd_on_a_single_loss() {
    let rec = single_loss("cubic");
    assert!(rec.cwnd_before >= 20, "cwnd_before {}", rec.cwnd_before);
    assert_eq!(rec.ssthresh, rec.cwnd_before * 7 / 10, "{rec:?}");
    let ratio = rec.ssthresh as f64 / rec.cwnd_before as f64;
    assert!((ratio - 0.7).abs() < 0.05, "{rec:?}");
    assert_eq!(rec.cwnd_after, Some(rec.ssthresh));
}

#[test]
fn reno_halves_cwnd_on_a_single_loss() {
    let rec = single_loss("reno");
    assert_eq!(rec.ssthresh, rec.cwnd_before / 2, "{rec:?}");
    assert_eq!(rec.cwnd_after, Some(rec.ssthresh));
}

/// Linux's HyStart leaves slow start before the queue overflows: 20
/// Mbit/s, 100 ms RTT, a one-BDP queue, no random loss. Without it slow
/// start doubles into the full queue and loses a large part of a window
/// (about 480 packets when written); with it a handful at most, as the
/// real Linux CUBIC of docs/FIDELITY.md did.
#[test]
fn hystart_avoids_the_slow_start_overshoot() {
    let drops = |hystart: bool| {
        let (mut p, r) = path(20_000_000, 50, LossModel::None);
        p.queue = QueueLimit::Bytes(250_000);
        let mut f = flow("cubic");
        f.hystart = hystart;
        let sc = scenario("hystart", 20, (p, r), vec![f]);
        let mut sim = Simulation::new(&sc).unwrap();
        sim.run();
        let res = sim.results();
        assert!(
            res.flows[0].goodput_bps > 15e6,
            "{}",
            res.flows[0].goodput_bps
        );
        (res.path.queue_drops, res.flows[0].cc.clone())
    };
    let (plain, name) = drops(false);
    assert_eq!(name, "cubic");
    let (hy, name) = drops(true);
    assert_eq!(name, "cubic+hystart");
    assert!(plain > 100, "slow start overshoots: {plain} drops");
    assert!(hy * 10 < plain, "HyStart {hy} vs {plain}");
}

#[test]
fn cubic_parameter_table() {
    let text = |extra: &str| {
        format!("[path]\nrate = \"10Mbps\"\ndelay = \"20ms\"\n\n[[flow]]\nname = \"a\"\n{extra}\n")
    };
    let parse = |t: &str| losslab_sim::parse::parse_scenario("test.toml", t, &[]);
    let s = parse(&text("cc = \"cubic\"\n[flow.cubic]\nhystart = true")).unwrap();
    assert!(s.flows[0].hystart);
    assert!(!parse(&text("cc = \"cubic\"")).unwrap().flows[0].hystart);
    expect_parse_error(
        parse(&text("[flow.cubic]\nhystart = true")),
        "flow.a.cubic",
        &["parameters for cubic given but this flow's cc is \"newreno\""],
    );
    expect_parse_error(
        parse(&text("cc = \"cubic\"\n[flow.cubic]\nhystart = \"yes\"")),
        "flow.a.cubic.hystart",
        &["true or false"],
    );
    expect_parse_error(
        parse(&text("cc = \"cubic\"\n[flow.cubic]\nhyst = true")),
        "flow.a.cubic.hyst",
        &["unknown key", "hystart"],
    );
}
