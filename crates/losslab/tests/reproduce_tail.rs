//! `losslab reproduce tail --quick`: the tail-loss paper's controlled
//! findings hold (RTOR's one-RTT saving with quick ACKs, TLPR best or
//! equal, RTOR's limit beyond three lost segments), and the experiments
//! with background traffic and web pages run and measure something. Their
//! checks are statistical and the quick variants are small, so they are
//! reported, not asserted.

mod common;

use common::{assert_claim_rows, assert_pictures, failed_checks, ids, reproduce_quick};

#[test]
fn tail_quick_reproduces_the_controlled_findings() {
    let (dir, exps) = reproduce_quick("tail");
    assert_eq!(ids(&exps), ["fig1", "fig2", "sec32", "sec33"]);
    for e in &exps[2..] {
        assert!(!e["checks"].as_array().unwrap().is_empty());
        // Every configuration found flows to measure, and drew its CDF.
        let rows = e["rows"].as_array().unwrap();
        let medians: Vec<&str> = rows
            .iter()
            .filter(|r| r["metric"].as_str().unwrap().contains("median"))
            .map(|r| r["ours"].as_str().unwrap())
            .collect();
        assert!(!medians.is_empty());
        for m in &medians {
            assert!(!m.contains("n = 0"), "{}: {m}", e["id"]);
        }
        assert_pictures(dir.path(), "tail", e);
    }
    let mut failed = vec![];
    for e in &exps[..2] {
        assert_pictures(dir.path(), "tail", e);
        failed.extend(failed_checks(e));
    }
    assert!(
        failed.is_empty(),
        "findings that differ:\n{}",
        failed.join("\n")
    );
}

#[test]
fn the_web_page_claims_are_rows_with_computed_verdicts() {
    let (dir, exps) = reproduce_quick("tail");
    assert_eq!(assert_claim_rows(dir.path(), "tail", &exps), 12);
}
