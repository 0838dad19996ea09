//! `losslab reproduce prr --quick`: the paper's qualitative findings hold
//! on our runs (who wins, which property holds), and every experiment
//! leaves its table and pictures.

use std::process::Command;

#[test]
fn prr_quick_reproduces_the_papers_findings() {
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_losslab"))
        .args(["reproduce", "prr", "--quick", "--json", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let exps = v[0]["experiments"].as_array().unwrap();
    let ids: Vec<&str> = exps.iter().map(|e| e["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["fig2", "fig3", "fig4", "web", "er"]);
    let mut failed = vec![];
    for e in exps {
        assert!(
            !e["rows"].as_array().unwrap().is_empty(),
            "{} has no table",
            e["id"]
        );
        let checks = e["checks"].as_array().unwrap();
        assert!(!checks.is_empty(), "{} checks nothing", e["id"]);
        for c in checks {
            if c["holds"] != true {
                failed.push(format!("{}: {} ({})", e["id"], c["claim"], c["detail"]));
            }
        }
        for p in e["pictures"].as_array().unwrap() {
            let f = dir.path().join("prr").join(p.as_str().unwrap());
            assert!(f.exists(), "missing picture {}", f.display());
        }
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
