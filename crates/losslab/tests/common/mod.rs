//! Helpers for the `losslab reproduce` tests.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

use serde_json::Value;
use tempfile::TempDir;

/// Runs `losslab reproduce PAPER --quick --json` into a fresh directory;
/// returns the directory and the paper's experiments.
pub fn reproduce_quick(paper: &str) -> (TempDir, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_losslab"))
        .args(["reproduce", paper, "--quick", "--json", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let exps = v[0]["experiments"].as_array().unwrap().clone();
    (dir, exps)
}

/// The experiments' ids, in order.
pub fn ids(exps: &[Value]) -> Vec<&str> {
    exps.iter().map(|e| e["id"].as_str().unwrap()).collect()
}

/// "id: claim (detail)" for every check of `e` that does not hold;
/// asserts that `e` checks something.
pub fn failed_checks(e: &Value) -> Vec<String> {
    let checks = e["checks"].as_array().unwrap();
    assert!(!checks.is_empty(), "{} checks nothing", e["id"]);
    checks
        .iter()
        .filter(|c| c["holds"] != true)
        .map(|c| format!("{}: {} ({})", e["id"], c["claim"], c["detail"]))
        .collect()
}

/// Every picture `e` lists exists under DIR/PAPER.
pub fn assert_pictures(dir: &Path, paper: &str, e: &Value) {
    for p in e["pictures"].as_array().unwrap() {
        let f = dir.join(paper).join(p.as_str().unwrap());
        assert!(f.exists(), "missing picture {}", f.display());
    }
}

/// Every claim row of the paper's experiments has a known verdict, an
/// explanation where its verdict needs one, and a line in claims.csv.
/// Returns how many claims there are.
pub fn assert_claim_rows(dir: &Path, paper: &str, exps: &[Value]) -> usize {
    let mut n = 0;
    for e in exps {
        for c in e["claims"].as_array().unwrap() {
            n += 1;
            let verdict = c["verdict"].as_str().unwrap();
            assert!(
                [
                    "reproduced",
                    "same-direction",
                    "differs",
                    "contradicted",
                    "not-measured"
                ]
                .contains(&verdict),
                "{verdict}"
            );
            if ["differs", "contradicted", "not-measured"].contains(&verdict) {
                assert!(
                    !c["explanation"].as_str().unwrap().is_empty(),
                    "a {verdict} row without an explanation: {}",
                    c["statement"]
                );
            }
        }
    }
    let csv = std::fs::read_to_string(dir.join(paper).join("claims.csv")).unwrap();
    assert!(csv.starts_with(
        "paper,experiment,id,statement,paper_value,n,mean,ci95_low,ci95_high,verdict,explanation\n"
    ));
    assert_eq!(csv.lines().count(), 1 + n);
    n
}
