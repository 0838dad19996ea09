//! `profile = "..."`: a flow's parts and constants set the way one stack
//! did, explicit keys on top; and every profile pays one retransmission
//! for one drop.

use crate::common;

use common::*;
use losslab_core::detect::ErVariant;
use losslab_core::time::SEC;
use losslab_core::RtoFormula;
use losslab_sim::scenario::*;
use losslab_sim::Simulation;

fn flow(extra: &str) -> String {
    format!("[path]\nrate = \"10Mbps\"\ndelay = \"20ms\"\n\n[[flow]]\nname = \"a\"\n{extra}\n")
}

#[test]
fn a_profile_sets_the_parts_and_explicit_keys_override_it() {
    let f = &parse(&flow("profile = \"linux-3.17\"")).unwrap().flows[0];
    assert_eq!(f.profile.as_deref(), Some("linux-3.17"));
    assert_eq!(
        (
            f.cc.name(),
            f.recovery.as_str(),
            f.detection.as_str(),
            f.timers.as_str()
        ),
        (
            "cubic-linux-3".to_string(),
            "prr-linux-3",
            "early-retransmit",
            "tlp"
        )
    );
    assert_eq!(f.hystart, losslab_core::cc::HyStartMode::Linux3);
    assert_eq!(f.early_retransmit.variant, ErVariant::Linux);
    assert_eq!(f.rto_formula, RtoFormula::LinuxKernel);
    assert_eq!(f.timer_hz, 1000);
    assert!(f.slow_start_after_idle);
    // 3.14-4.2's slow start for every controller; the key written after
    // the profile restores the old one (docs/SCENARIO.md "Changed
    // defaults").
    assert_eq!(f.slow_start, losslab_core::cc::SlowStart::Linux314);
    let f = &parse(&flow(
        "profile = \"linux-3.17\"\ncc = \"reno\"\nslow_start = \"per-segment\"",
    ))
    .unwrap()
    .flows[0];
    assert_eq!(f.slow_start, losslab_core::cc::SlowStart::PerSegment);
    // Explicit keys win, whatever their order in the table.
    let f = &parse(&flow(
        "cc = \"newreno\"\nprofile = \"linux-6\"\nmin_rto = \"1s\"",
    ))
    .unwrap()
    .flows[0];
    assert_eq!(
        (f.cc.name(), f.detection.as_str()),
        ("newreno".to_string(), "rack")
    );
    assert_eq!(f.min_rto, SEC);
    // The rfc profile: RFC 6298's 1 s floor, RFC 3390's initial window
    // from the flow's MSS (536 B: 4 segments), unless init_cwnd is given.
    let f = &parse(&flow("profile = \"rfc\"\nmss = \"536B\""))
        .unwrap()
        .flows[0];
    assert_eq!((f.min_rto, f.init_cwnd), (SEC, 4));
    assert_eq!(f.rto_formula, RtoFormula::Rfc6298);
    let f = &parse(&flow("profile = \"rfc\"\ninit_cwnd = 10"))
        .unwrap()
        .flows[0];
    assert_eq!(f.init_cwnd, 10);
    // Parameter tables follow the profile's parts.
    let f = &parse(&flow(
        "profile = \"linux-3.10\"\n[flow.early-retransmit]\nmitigation = \"none\"",
    ))
    .unwrap()
    .flows[0];
    assert_eq!(f.early_retransmit.variant, ErVariant::Linux);
}

#[test]
fn an_unknown_profile_is_an_error_naming_the_choices() {
    expect_parse_error(
        parse(&flow("profile = \"linux-7\"")),
        "flow.a.profile",
        &["unknown profile \"linux-7\"", "linux-6", "rfc"],
    );
}

#[test]
fn every_profile_repairs_one_drop_with_one_retransmission() {
    for name in losslab_sim::profile::NAMES {
        for sack in [true, false] {
            let (p, r) = path(
                10_000_000,
                20,
                LossModel::Drop {
                    flow: "a".into(),
                    which: DropSpec::Segments(vec![100]),
                },
            );
            let mut f = FlowSpec::new("a");
            assert!(losslab_sim::profile::apply(name, &mut f));
            f.app = AppSpec::Bytes(300 * 1448);
            f.receiver.sack_blocks = if sack { 3 } else { 0 };
            let sc = scenario("profile", 30, (p, r), vec![f]);
            let mut sim = Simulation::new(&sc).unwrap();
            sim.run();
            let res = sim.results();
            let fl = &res.flows[0];
            let what = format!("{name}, sack {sack}: {fl:?}");
            assert_eq!(fl.profile.as_deref(), Some(*name));
            assert_eq!(fl.retransmissions, 1, "{what}");
            assert_eq!(fl.spurious_retransmissions, 0, "{what}");
            assert_eq!(fl.timeouts, 0, "{what}");
            assert!(fl.fct_s.is_some_and(|t| t < 2.0), "{what}");
        }
    }
}

#[test]
fn recovery_exit_is_linux_in_linux_profiles_and_rfc6582_otherwise() {
    use losslab_core::RecoveryExit;
    let exit = |extra: &str| parse(&flow(extra)).unwrap().flows[0].recovery_exit;
    assert_eq!(exit(""), RecoveryExit::Rfc6582);
    assert_eq!(exit("profile = \"linux-2.6.17\""), RecoveryExit::Linux);
    assert_eq!(exit("profile = \"linux-6\""), RecoveryExit::Linux);
    assert_eq!(exit("profile = \"rfc\""), RecoveryExit::Rfc6582);
    assert_eq!(
        exit("profile = \"linux-6\"\nrecovery_exit = \"rfc6582\""),
        RecoveryExit::Rfc6582
    );
    expect_parse_error(
        parse(&flow("recovery_exit = \"bsd\"")),
        "flow.a.recovery_exit",
        &["unknown recovery_exit \"bsd\"", "rfc6582", "linux"],
    );
}

#[test]
fn a_receiver_table_keeps_what_the_profile_set_and_it_leaves_out() {
    // The rfc profile's receiver: RFC 1122's fixed 200 ms delayed ACK,
    // not Linux's engine. A table that sets only the buffer keeps it (it
    // fell back to the defaults before issue 32).
    let f = &parse(&flow("profile = \"rfc\"\nreceiver = { rcvbuf = \"1MB\" }"))
        .unwrap()
        .flows[0];
    assert_eq!(f.receiver.rcvbuf, 1_000_000);
    assert!(!f.receiver.linux_delack);
    // Without a profile the table starts from the defaults, as before.
    let f = &parse(&flow("receiver = { rcvbuf = \"1MB\" }"))
        .unwrap()
        .flows[0];
    assert!(f.receiver.linux_delack);
}
