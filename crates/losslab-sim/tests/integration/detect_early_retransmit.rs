//! Early Retransmit (RFC 5827) and the PRR/ER paper's mitigations
//! (section 6): a loss in a flow too short for three duplicate ACKs is
//! repaired by fast retransmit instead of the RTO; on a reordering path
//! naive ER retransmits spuriously, and disabling it after reordering or
//! delaying it by SRTT/4 avoids most of that.

use crate::common;

use common::*;
use losslab_core::detect::ErMitigation;
use losslab_core::time::MS;
use losslab_sim::results::FlowResults;
use losslab_sim::scenario::*;
use losslab_sim::Simulation;

fn run(sc: &Scenario) -> FlowResults {
    let mut sim = Simulation::new(sc).unwrap();
    sim.run();
    sim.results().flows[0].clone()
}

/// A 3-segment flow whose `lost`-th segment (1-based) is dropped once.
fn three_segments(detection: &str, mitigation: ErMitigation, lost: u64) -> FlowResults {
    let loss = LossModel::Drop {
        flow: "a".into(),
        which: DropSpec::Segments(vec![lost]),
    };
    let mut f = FlowSpec::new("a");
    f.detection = detection.into();
    f.early_retransmit.mitigation = mitigation;
    f.app = AppSpec::Bytes(3 * 1448);
    run(&scenario("short", 10, path(10_000_000, 20, loss), vec![f]))
}

#[test]
fn early_retransmit_repairs_a_three_segment_flow_without_a_timeout() {
    for lost in [1, 2] {
        let rfc = three_segments("dupthresh", ErMitigation::None, lost);
        assert_eq!(rfc.bytes_delivered, 3 * 1448);
        // Two duplicate ACKs at most: DupThresh never fires.
        assert_eq!((rfc.timeouts, rfc.fast_recoveries), (1, 0), "{rfc:?}");
        for m in [
            ErMitigation::None,
            ErMitigation::Reordering,
            ErMitigation::Delay,
            ErMitigation::Both,
        ] {
            let er = three_segments("early-retransmit", m, lost);
            assert_eq!(er.bytes_delivered, 3 * 1448, "{m:?}");
            assert_eq!(
                (er.timeouts, er.fast_recoveries, er.retransmissions),
                (0, 1, 1),
                "segment {lost}, {m:?}: {er:?}"
            );
            assert_eq!(er.spurious_retransmissions, 0);
            assert!(
                er.fct_s.unwrap() + 0.1 < rfc.fct_s.unwrap(),
                "ER {:?} vs RTO {:?}",
                er.fct_s,
                rfc.fct_s
            );
        }
    }
}

#[test]
fn the_delay_mitigation_waits_a_quarter_srtt() {
    // Segment 2 of 3 lost: segment 1's ACK gives an RTT sample (40 ms
    // path), so the delayed ER waits max(SRTT/4, 25 ms) = 25 ms after the
    // duplicate ACK; naive ER retransmits on the duplicate ACK itself.
    let naive = three_segments("early-retransmit", ErMitigation::None, 2);
    let delayed = three_segments("early-retransmit", ErMitigation::Delay, 2);
    let wait = delayed.recoveries[0].start_s - naive.recoveries[0].start_s;
    assert!((wait - 0.025).abs() < 1e-6, "waited {wait} s");
    assert!((delayed.fct_s.unwrap() - naive.fct_s.unwrap() - 0.025).abs() < 1e-6);
}

/// 100 transactions of 3 segments, 300 ms apart, over a path that holds
/// back 10% of the data packets by 10 ms (100 ms RTT).
fn transactions(detection: &str, mitigation: ErMitigation) -> FlowResults {
    let (mut p, r) = path(10_000_000, 50, LossModel::None);
    p.reorder = Reorder {
        p: 0.1,
        delay: 10 * MS,
    };
    let mut f = FlowSpec::new("a");
    f.detection = detection.into();
    f.early_retransmit.mitigation = mitigation;
    f.app = AppSpec::Writes((0..100).map(|i| (i * 300 * MS, 3 * 1448)).collect());
    let fr = run(&scenario("transactions", 60, (p, r), vec![f]));
    assert_eq!(fr.bytes_delivered, 300 * 1448);
    fr
}

#[test]
fn under_reordering_naive_er_retransmits_spuriously_and_mitigations_help() {
    let rfc = transactions("dupthresh", ErMitigation::None);
    let naive = transactions("early-retransmit", ErMitigation::None);
    let off_after_reordering = transactions("early-retransmit", ErMitigation::Reordering);
    let delayed = transactions("early-retransmit", ErMitigation::Delay);
    let both = transactions("early-retransmit", ErMitigation::Both);
    let spurious = |f: &FlowResults| f.spurious_retransmissions;
    // Nothing is lost: every retransmission is spurious.
    for f in [&rfc, &naive, &off_after_reordering, &delayed, &both] {
        assert_eq!(f.retransmissions, f.spurious_retransmissions);
        assert_eq!(f.timeouts, 0);
    }
    assert_eq!(spurious(&rfc), 0, "three duplicate ACKs never come");
    assert!(spurious(&naive) >= 10, "naive ER: {naive:?}");
    assert!(naive.reordering_events > 0);
    // The first reordering event turns ER off for good.
    assert!(
        spurious(&off_after_reordering) * 5 <= spurious(&naive),
        "{} vs {}",
        spurious(&off_after_reordering),
        spurious(&naive)
    );
    // A 10 ms hold is shorter than the 25 ms delay: the late segment's ACK
    // cancels every pending early retransmit.
    assert!(spurious(&delayed) * 5 <= spurious(&naive));
    assert!(spurious(&both) <= spurious(&delayed).min(spurious(&off_after_reordering)));
    // DSACK undo gave the cwnd back after each spurious episode.
    assert_eq!(naive.undos, naive.fast_recoveries);
}
