//! `losslab reproduce prr --quick`: the paper's qualitative findings hold
//! on our runs (who wins, which property holds), and every experiment
//! leaves its table and pictures.

mod common;

use std::process::Command;

use common::{assert_claim_rows, assert_pictures, failed_checks, ids, reproduce_quick};

#[test]
fn prr_quick_reproduces_the_papers_findings() {
    let (dir, exps) = reproduce_quick("prr");
    assert_eq!(ids(&exps), ["fig2", "fig3", "fig4", "web", "er"]);
    let mut failed = vec![];
    for e in &exps {
        assert!(
            !e["rows"].as_array().unwrap().is_empty(),
            "{} has no table",
            e["id"]
        );
        failed.extend(failed_checks(e));
        assert_pictures(dir.path(), "prr", e);
    }
    assert!(
        failed.is_empty(),
        "findings that differ:\n{}",
        failed.join("\n")
    );
    assert!(dir.path().join("prr/index.html").exists());
    assert!(dir.path().join("prr/results.json").exists());
}

#[test]
fn unknown_paper_is_bad_input() {
    let o = Command::new(env!("CARGO_BIN_EXE_losslab"))
        .args(["reproduce", "nosuchpaper", "--quick"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("nosuchpaper"));
}

#[test]
fn the_web_claims_are_rows_with_computed_verdicts() {
    let (dir, exps) = reproduce_quick("prr");
    assert_eq!(assert_claim_rows(dir.path(), "prr", &exps), 14);
    let web = exps.iter().find(|e| e["id"] == "web").unwrap();
    for c in web["claims"].as_array().unwrap() {
        // Ten seeds run; an effect skips the seeds whose baseline is zero.
        assert!(c["ours"]["n"].as_u64().unwrap() >= 7, "{c}");
    }
}
