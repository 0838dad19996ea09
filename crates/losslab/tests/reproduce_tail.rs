//! `losslab reproduce tail --quick`: every experiment leaves its claims
//! and pictures, the verdicts are the recorded ones (tests/verdicts.csv),
//! and a reproduced row really meets the paper's band.

mod common;

use common::*;

#[test]
fn tail_quick_claims_and_pictures() {
    let (dir, exps) = reproduce_quick("tail", &[]);
    assert_eq!(ids(&exps), ["headline", "fig1", "fig2", "sec32", "sec33"]);
    assert_headlines_first(&exps, 4);
    for e in &exps {
        assert!(
            !e["claims"].as_array().unwrap().is_empty(),
            "{} claims nothing",
            e["id"]
        );
        assert_pictures(dir.path(), "tail", e);
    }
    // Every configuration of sections 3.2 and 3.3 found flows to measure.
    for e in &exps[3..] {
        for r in e["rows"].as_array().unwrap() {
            let m = r["ours"].as_str().unwrap();
            assert!(!m.contains("n = 0 "), "{}: {m}", e["id"]);
        }
    }
    assert!(assert_claim_rows(dir.path(), "tail", &exps) >= 40);
    assert_reproduced_rows_meet_their_bands(&exps);
    assert_recorded_verdicts("tail", &exps);
}
