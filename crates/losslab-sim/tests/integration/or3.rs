//! OR3 (OR3 paper section IV; losslab-core recovery/or3.rs) in the
//! simulator: the 2i - 1 rule counted from the results, copies kept apart
//! from retransmissions, seeded randomisation, and the switches.

use crate::common;

use common::{path, scenario};
use losslab_core::recovery::{or3_copies, Or3Params};
use losslab_sim::results::FlowResults;
use losslab_sim::scenario::*;
use losslab_sim::sim::Simulation;

/// 2 MB over 20 Mbit/s and 40 ms with heavy loss, so that segments are
/// retransmitted up to five or six times.
fn run(or3: Option<Or3Params>, seed: u64, loss: f64) -> FlowResults {
    let mut f = FlowSpec::new("a");
    f.app = AppSpec::Bytes(2_000_000);
    f.cc = CcSpec::Named("bbr".into());
    f.recovery = "prr".into();
    f.detection = "rack".into();
    if let Some(p) = or3 {
        f.extensions = vec!["or3".into()];
        f.or3 = p;
    }
    let mut sc = scenario(
        "or3",
        600,
        path(20_000_000, 20, LossModel::Bernoulli { p: loss }),
        vec![f],
    );
    sc.seed = seed;
    let mut sim = Simulation::new(&sc).unwrap();
    sim.run();
    sim.results().flows.remove(0)
}

/// Copies the 2i - 1 rule asks for, from the histogram of retransmission
/// counts: a segment retransmitted k times had retransmissions i = 1..k.
fn expected_copies(f: &FlowResults, max: u32) -> u64 {
    f.segments_by_retransmissions
        .iter()
        .enumerate()
        .map(|(k, &n)| {
            n * (1..=k as u32)
                .map(|i| u64::from(or3_copies(i, max) - 1))
                .sum::<u64>()
        })
        .sum()
}

/// Without randomisation every copy leaves at once, so none can be
/// skipped for a SACK that overtook it: the copies sent are exactly what
/// the rule asks for, and the stream still arrives whole.
#[test]
fn copies_follow_the_two_i_minus_one_rule() {
    for seed in 1..=3 {
        let p = Or3Params {
            randomization: false,
            ..Or3Params::default()
        };
        let f = run(Some(p), seed, 0.2);
        assert_eq!(f.bytes_delivered, 2_000_000);
        assert!(f.max_retransmissions_of_one_segment >= 2, "{f:?}");
        assert_eq!(f.redundant_copies, expected_copies(&f, 7), "seed {seed}");
        assert!(f.redundant_copies > 0);
        let capped = run(
            Some(Or3Params {
                max_replicas: 3,
                ..p
            }),
            seed,
            0.2,
        );
        assert_eq!(capped.redundant_copies, expected_copies(&capped, 3));
    }
}

/// Copies are neither retransmissions nor spurious ones: the counters
/// keep them apart, and DSACKs they cause are matched to them.
#[test]
fn copies_are_counted_apart() {
    let f = run(Some(Or3Params::default()), 4, 0.2);
    let plain = run(None, 4, 0.2);
    assert_eq!(f.bytes_delivered, 2_000_000);
    assert_eq!(plain.redundant_copies, 0);
    assert!(f.redundant_copies > 0);
    assert!(
        f.redundant_duplicates > 0,
        "some copies arrive after their retransmission"
    );
    assert!(f.redundant_duplicates <= f.redundant_copies);
    assert!(f.spurious_retransmissions <= f.retransmissions);
    let originals: u64 = f.segments_by_retransmissions.iter().sum();
    assert_eq!(originals, 2_000_000u64.div_ceil(1448));
    // Every transmission is an original, a retransmission or a copy
    // (loss probes of new data are originals).
    assert_eq!(
        f.segments_sent,
        originals + f.retransmissions + f.redundant_copies
    );
}

/// The random delays come from the scenario's seed: the same seed gives
/// the same run, another seed another one; without redundancy no copy.
#[test]
fn randomisation_is_seeded_and_principles_switch_off() {
    let p = Or3Params::default();
    let a = run(Some(p), 7, 0.15);
    assert_eq!(a, run(Some(p), 7, 0.15));
    let flat = run(
        Some(Or3Params {
            randomization: false,
            ..p
        }),
        7,
        0.15,
    );
    assert_ne!(
        (a.segments_sent, a.fct_s),
        (flat.segments_sent, flat.fct_s),
        "spreading the copies changes the run"
    );
    let none = run(
        Some(Or3Params {
            redundancy: false,
            ..p
        }),
        7,
        0.15,
    );
    assert_eq!(none.redundant_copies, 0);
    assert_eq!(none.bytes_delivered, 2_000_000);
}

/// A single loss costs one retransmission with OR3 too: the first
/// retransmission of a segment is sent once (rule 1).
#[test]
fn a_single_loss_costs_one_retransmission() {
    let mut f = FlowSpec::new("a");
    f.app = AppSpec::Bytes(300 * 1448);
    f.extensions = vec!["or3".into()];
    let sc = scenario(
        "or3-one",
        60,
        path(
            10_000_000,
            20,
            LossModel::Drop {
                flow: "a".into(),
                which: DropSpec::Segments(vec![100]),
            },
        ),
        vec![f],
    );
    let mut sim = Simulation::new(&sc).unwrap();
    sim.run();
    let r = &sim.results().flows[0];
    assert_eq!(r.retransmissions, 1);
    assert_eq!(r.redundant_copies, 0);
    assert_eq!(r.segments_by_retransmissions, vec![299, 1]);
}
