//! `losslab reproduce tail --quick`: the tail-loss paper's controlled
//! findings hold (RTOR's one-RTT saving with quick ACKs, TLPR best or
//! equal, RTOR's limit beyond three lost segments), and the experiments
//! with background traffic and web pages run and measure something. Their
//! checks are statistical and the quick variants are small, so they are
//! reported, not asserted.

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
    let ids: Vec<&str> = exps.iter().map(|e| e["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["fig1", "fig2", "sec32", "sec33"]);
    let mut failed = vec![];
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
        for p in e["pictures"].as_array().unwrap() {
            let f = dir.path().join("tail").join(p.as_str().unwrap());
            assert!(f.exists(), "{} missing", f.display());
        }
    }
    for e in &exps[..2] {
        for p in e["pictures"].as_array().unwrap() {
            let f = dir.path().join("tail").join(p.as_str().unwrap());
            assert!(f.exists(), "{} missing", f.display());
        }
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
