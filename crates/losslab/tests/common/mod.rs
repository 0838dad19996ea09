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
