//! `probe_gate` (docs/SCENARIO.md): parsed, refused with the key named,
//! defaulted by the timer policy, set by the Linux profiles, written back
//! by the emitter, and reaching the simulation.

use crate::common;

use common::{expect_parse_error, forty_objects, parse, run};
use losslab_core::timers::ProbeGate;

#[test]
fn parsed_and_refused() {
    let s = parse(&forty_objects("timers = \"tlp\"")).unwrap();
    assert_eq!(s.flows[0].probe_gate, None);
    for (v, want) in [
        ("linux", ProbeGate::Linux),
        ("rfc8985", ProbeGate::Rfc8985),
        ("recovery", ProbeGate::Recovery),
    ] {
        for timers in ["tlp", "tlpr", "rack-tlp"] {
            let s = parse(&forty_objects(&format!(
                "timers = {timers:?}\nprobe_gate = {v:?}"
            )))
            .unwrap();
            assert_eq!(s.flows[0].probe_gate, Some(want), "{timers} {v}");
        }
    }
    expect_parse_error(
        parse(&forty_objects("timers = \"tlp\"\nprobe_gate = \"open\"")),
        "flow.a.probe_gate",
        &["unknown probe_gate \"open\"", "linux, rfc8985, recovery"],
    );
    expect_parse_error(
        parse(&forty_objects("timers = \"tlp\"\nprobe_gate = true")),
        "flow.a.probe_gate",
        &["expected one of linux, rfc8985, recovery"],
    );
    for timers in ["rto", "rtor"] {
        expect_parse_error(
            parse(&forty_objects(&format!(
                "timers = {timers:?}\nprobe_gate = \"linux\""
            ))),
            "flow.a.probe_gate",
            &[
                "read only with timers = \"tlp\", \"tlpr\" or \"rack-tlp\"",
                &format!("timers is {timers:?}"),
            ],
        );
    }
}

#[test]
fn the_profiles_set_it() {
    for (profile, want) in [
        ("linux-6", Some(ProbeGate::Linux)),
        ("linux-4.10", Some(ProbeGate::Linux)),
        ("linux-3.17", Some(ProbeGate::Linux)),
        // Since issue 32's twelfth step, with the mobile paper's rerun.
        ("linux-3.10", Some(ProbeGate::Linux)),
    ] {
        let s = parse(&forty_objects(&format!("profile = {profile:?}"))).unwrap();
        assert_eq!(s.flows[0].probe_gate, want, "{profile}");
    }
    // linux-3.17 took its kernel's cwnd validation and SACK re-arm in the
    // same step, linux-4.10 with the OR3 rerun; linux-3.10 and linux-6
    // keep theirs.
    use losslab_core::CwndValidation::*;
    for (profile, cv, rearm) in [
        ("linux-4.10", Linux43, true),
        ("linux-3.17", Linux316, true),
        ("linux-3.10", Linux310, false),
        ("linux-6", Linux, true),
    ] {
        let f = &parse(&forty_objects(&format!("profile = {profile:?}")))
            .unwrap()
            .flows[0];
        assert_eq!(
            (f.cwnd_validation, f.rto_rearm_on_sack),
            (cv, rearm),
            "{profile}"
        );
    }
    // The key restores the engine before it under a profile.
    let s = parse(&forty_objects(
        "profile = \"linux-3.17\"\nprobe_gate = \"recovery\"",
    ))
    .unwrap();
    assert_eq!(s.flows[0].probe_gate, Some(ProbeGate::Recovery));
}

#[test]
fn written_back() {
    for extra in [
        "timers = \"tlp\"\nprobe_gate = \"rfc8985\"",
        "timers = \"rack-tlp\"\nprobe_gate = \"linux\"",
        "profile = \"linux-3.17\"\nprobe_gate = \"recovery\"",
    ] {
        let s = parse(&forty_objects(extra)).unwrap();
        let out = losslab_sim::emit::to_toml(&s).unwrap();
        assert!(out.contains("probe_gate = "), "{extra}:\n{out}");
        assert_eq!(
            parse(&out).unwrap().flows[0].probe_gate,
            s.flows[0].probe_gate
        );
    }
    // Unset, or as the profile has it: not written.
    for extra in ["timers = \"tlp\"", "profile = \"linux-3.17\""] {
        let s = parse(&forty_objects(extra)).unwrap();
        let out = losslab_sim::emit::to_toml(&s).unwrap();
        assert!(!out.contains("probe_gate"), "{extra}:\n{out}");
    }
}

/// Short objects over 2% loss: tails with a SACK hole before the last
/// segment are common, and the gates arm different timers there.
#[test]
fn reaches_the_simulation() {
    for timers in ["tlp", "rack-tlp"] {
        let runs: Vec<_> = ["linux", "rfc8985", "recovery"]
            .iter()
            .map(|g| {
                let r = run(&parse(&forty_objects(&format!(
                    "timers = {timers:?}\nprobe_gate = {g:?}"
                )))
                .unwrap());
                (r.flows[0].tail_probes, r.flows[0].timeouts)
            })
            .collect();
        assert!(
            runs[2].0 > runs[0].0 && runs[2].0 > runs[1].0,
            "{timers}: the old gate probes more often: {runs:?}"
        );
        // Unset: the timer's own document's gate.
        let own = if timers == "tlp" { 0 } else { 1 };
        let r = run(&parse(&forty_objects(&format!("timers = {timers:?}"))).unwrap());
        assert_eq!(
            (r.flows[0].tail_probes, r.flows[0].timeouts),
            runs[own],
            "{timers}"
        );
    }
}
