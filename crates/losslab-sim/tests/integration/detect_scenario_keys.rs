//! The scenario keys and result fields added with the detectors:
//! `[flow.early-retransmit] mitigation`, `lost_retransmission_detection`,
//! `dsack_undo`; per flow `lost_retransmissions`, `undos`,
//! `reordering_events`, per recovery `undone` (docs/SCENARIO.md,
//! "losslab's additions").

use crate::common;

use losslab_core::detect::ErMitigation;
use losslab_sim::parse::{parse_scenario, ScenarioError, COMMAND_LINE};
use losslab_sim::scenario::{FlowSpec, Scenario};
use losslab_sim::Simulation;

fn flow(extra: &str) -> String {
    format!("[path]\nrate = \"10Mbps\"\ndelay = \"20ms\"\n\n[[flow]]\nname = \"a\"\n{extra}\n")
}

fn parse(text: &str, overrides: &[&str]) -> Result<Scenario, ScenarioError> {
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    parse_scenario("test.toml", text, &overrides)
}

#[track_caller]
fn error(text: &str, key: &str, needles: &[&str]) {
    common::expect_parse_error(parse(text, &[]), key, needles);
}

#[test]
fn defaults_switch_both_sender_features_on() {
    let s = parse(&flow(""), &[]).unwrap();
    let f = &s.flows[0];
    assert!(f.lost_retransmission_detection && f.dsack_undo);
    assert_eq!(f.early_retransmit.mitigation, ErMitigation::None);
    assert_eq!(f, &FlowSpec::new("a"));
}

#[test]
fn every_detector_name_is_accepted() {
    for name in losslab_core::detect::NAMES {
        let s = parse(&flow(&format!("detection = {name:?}")), &[]).unwrap();
        assert_eq!(&s.flows[0].detection, name);
    }
}

/// tcp_mark_lost_retrans() left Linux in 4.4: the `linux-6` and, since
/// issue 32's eleventh step, `linux-4.10` profiles switch it off; the 3.x
/// profiles keep it; the key restores it under a profile.
#[test]
fn the_profiles_set_lost_retransmission_detection() {
    for (profile, want) in [
        ("linux-6", false),
        ("linux-4.10", false),
        ("linux-3.17", true),
        ("linux-3.10", true),
        ("linux-3.2", true),
    ] {
        let s = parse(&flow(&format!("profile = {profile:?}")), &[]).unwrap();
        assert_eq!(s.flows[0].lost_retransmission_detection, want, "{profile}");
    }
    let s = parse(
        &flow("profile = \"linux-4.10\"\nlost_retransmission_detection = true"),
        &[],
    )
    .unwrap();
    assert!(s.flows[0].lost_retransmission_detection);
}

#[test]
fn switches_are_booleans() {
    let s = parse(
        &flow("lost_retransmission_detection = false\ndsack_undo = false"),
        &[],
    )
    .unwrap();
    assert!(!s.flows[0].lost_retransmission_detection && !s.flows[0].dsack_undo);
    error(
        &flow("dsack_undo = \"no\""),
        "flow.a.dsack_undo",
        &["expected true or false", "\"no\""],
    );
    error(
        &flow("lost_retransmission_detection = 1"),
        "flow.a.lost_retransmission_detection",
        &["expected true or false"],
    );
    // Misspelt: a hint, not a silent default.
    error(
        &flow("dsack_undos = true"),
        "flow.a.dsack_undos",
        &["unknown key", "did you mean \"dsack_undo\"?"],
    );
}

#[test]
fn early_retransmit_mitigations() {
    for (name, m) in [
        ("none", ErMitigation::None),
        ("reordering", ErMitigation::Reordering),
        ("delay", ErMitigation::Delay),
        ("both", ErMitigation::Both),
    ] {
        let text = flow(&format!(
            "detection = \"early-retransmit\"\n\n[flow.early-retransmit]\nmitigation = {name:?}"
        ));
        assert_eq!(
            parse(&text, &[]).unwrap().flows[0]
                .early_retransmit
                .mitigation,
            m
        );
    }
    // The table with no key keeps RFC 5827 as written.
    let text = flow("detection = \"early-retransmit\"\n[flow.early-retransmit]");
    let f = &parse(&text, &[]).unwrap().flows[0];
    assert_eq!(f.early_retransmit.mitigation, ErMitigation::None);
    // As an inline table too.
    let text =
        flow("detection = \"early-retransmit\"\nearly-retransmit = { mitigation = \"delay\" }");
    let f = &parse(&text, &[]).unwrap().flows[0];
    assert_eq!(f.early_retransmit.mitigation, ErMitigation::Delay);
}

#[test]
fn early_retransmit_table_errors() {
    let er = |table: &str| flow(&format!("detection = \"early-retransmit\"\n{table}"));
    error(
        &er("[flow.early-retransmit]\nmitigation = \"always\""),
        "flow.a.early-retransmit.mitigation",
        &[
            "unknown early-retransmit mitigation \"always\"",
            "none, reordering, delay, both",
        ],
    );
    error(
        &er("[flow.early-retransmit]\nmitigation = 2"),
        "flow.a.early-retransmit.mitigation",
        &[
            "expected one of none, reordering, delay, both",
            "the integer 2",
        ],
    );
    error(
        &er("[flow.early-retransmit]\nmitigations = \"both\""),
        "flow.a.early-retransmit.mitigations",
        &[
            "unknown key",
            "allowed in [flow.early-retransmit]: mitigation",
        ],
    );
    error(
        &er("early-retransmit = \"both\""),
        "flow.a.early-retransmit",
        &["expected a table like [flow.early-retransmit] mitigation = \"both\""],
    );
    // Parameters for a detector the flow does not use would be ignored.
    error(
        &flow("[flow.early-retransmit]\nmitigation = \"both\""),
        "flow.a.early-retransmit",
        &[
            "parameters for early-retransmit given but this flow's detection is \"dupthresh\"",
            "detection = \"early-retransmit\"",
        ],
    );
    // Two other detectors take no parameters (`[flow.rack] reo_timer`
    // is tests/integration/linux_jiffies_keys.rs's).
    for name in ["fack", "dupthresh"] {
        error(
            &flow(&format!("detection = {name:?}\n[flow.{name}]\nx = 1")),
            &format!("flow.a.{name}"),
            &[&format!(
                "{name} takes no parameters in this version of losslab"
            )],
        );
    }
}

#[test]
fn overrides_reach_the_new_keys() {
    let text = flow("");
    let s = parse(
        &text,
        &[
            "flow.a.detection=early-retransmit",
            "flow.a.early-retransmit.mitigation=both",
            "flow.a.dsack_undo=false",
        ],
    )
    .unwrap();
    let f = &s.flows[0];
    assert_eq!(f.early_retransmit.mitigation, ErMitigation::Both);
    assert!(!f.dsack_undo && f.lost_retransmission_detection);
    let e = parse(
        &text,
        &[
            "flow.a.detection=early-retransmit",
            "flow.a.early-retransmit.mitigation=sometimes",
        ],
    )
    .unwrap_err();
    assert_eq!(e.file, COMMAND_LINE);
    assert_eq!(e.key, "--set flow.a.early-retransmit.mitigation=sometimes");
    assert!(e.message.contains("unknown early-retransmit mitigation"));
}

#[test]
fn results_carry_the_new_fields() {
    let text = flow(
        "detection = \"rack\"\napp = { kind = \"bytes\", size = \"200kB\" }\n\
         lost_retransmission_detection = false",
    )
    .replace(
        "delay = \"20ms\"",
        "delay = \"20ms\"\nloss = { model = \"drop\", flow = \"a\", segments = [20] }",
    );
    let sc = parse(&text, &[]).unwrap();
    let mut sim = Simulation::new(&sc).unwrap();
    sim.run();
    let json = serde_json::to_value(sim.results()).unwrap();
    let f = &json["flows"][0];
    assert_eq!(f["detection"], "rack");
    for key in ["lost_retransmissions", "undos", "reordering_events"] {
        assert_eq!(f[key], 0, "{key}: {f}");
    }
    assert_eq!(f["fast_recoveries"], 1);
    assert_eq!(f["recoveries"][0]["undone"], false);
}
