//! `losslab reproduce or3 --quick`: the headline rows come first, every
//! experiment leaves its claims,
//! measured over seeds (the Pantheon ones say why they are not), the
//! bubbles experiment its example run's pictures, the verdicts are the
//! recorded ones (tests/verdicts.csv) and a reproduced row really meets
//! the paper's band.

use crate::common::*;

#[test]
fn or3_quick_claims_and_verdicts() {
    let (dir, exps) = reproduce_quick("or3", &[]);
    keep_for_page(dir.path(), "or3");
    assert_eq!(
        ids(&exps),
        [
            "headline", "bubbles", "kmax", "parallel", "buffers", "fig8", "sack", "pantheon",
            "setup"
        ]
    );
    assert_headlines_first(&exps, 4);
    for e in &exps {
        // The setup table measures our choices, not the paper's claims.
        if e["id"] == "setup" {
            assert_eq!(e["rows"].as_array().unwrap().len(), 7);
            assert!(e["claims"].as_array().unwrap().is_empty());
            continue;
        }
        let claims = e["claims"].as_array().unwrap();
        assert!(!claims.is_empty(), "{} claims nothing", e["id"]);
        assert_pictures(dir.path(), "or3", e);
        for c in claims {
            if c["experiment"] == "pantheon" {
                assert_eq!(c["verdict"], "not-measured");
                continue;
            }
            assert!(c["ours"]["n"].as_u64().unwrap() >= 2, "{}", c["id"]);
        }
    }
    let bubbles = exps.iter().find(|e| e["id"] == "bubbles").unwrap();
    assert!(!bubbles["pictures"].as_array().unwrap().is_empty());
    assert!(assert_claim_rows(dir.path(), "or3", &exps) >= 40);
    assert_reproduced_rows_meet_their_bands(&exps);
    assert_recorded_verdicts("or3", &exps);
}
