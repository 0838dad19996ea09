//! `losslab reproduce tail --quick`: the tail-loss paper's controlled
//! findings hold (RTOR's one-RTT saving with quick ACKs, TLPR best or
//! equal, RTOR's limit beyond three lost segments).

use std::process::Command;

#[test]
fn tail_quick_reproduces_the_controlled_findings() {
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_losslab"))
        .args(["reproduce", "tail", "--quick", "--json", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let exps = v[0]["experiments"].as_array().unwrap();
    assert_eq!(exps.len(), 2);
    let mut failed = vec![];
    for e in exps {
        let checks = e["checks"].as_array().unwrap();
        assert!(!checks.is_empty());
        for c in checks {
            if c["holds"] != true {
                failed.push(format!("{}: {} ({})", e["id"], c["claim"], c["detail"]));
            }
        }
    }
    assert!(
        failed.is_empty(),
        "findings that differ:\n{}",
        failed.join("\n")
    );
}
