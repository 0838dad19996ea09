//! Helpers for the `losslab reproduce` tests.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::Value;
use tempfile::TempDir;

/// Runs `losslab reproduce PAPER --quick --json EXTRA...` into a fresh
/// directory; returns the directory and the paper's experiments.
pub fn reproduce_quick(paper: &str, extra: &[&str]) -> (TempDir, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_losslab"))
        .args(["reproduce", paper, "--quick", "--json", "--out"])
        .arg(dir.path())
        .args(extra)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let exps = v[0]["experiments"].as_array().unwrap().clone();
    (dir, exps)
}

/// With `LOSSLAB_KEEP_QUICK` set (.ci/run sets it), keeps the paper's
/// results.json as `$LOSSLAB_KEEP_QUICK/<paper>/results.json`, where the
/// page check (scripts/reproductions.py --quick-dir) reads it, so CI runs
/// each quick reproduction once. Called by the one test per paper whose
/// run is the plain `reproduce <paper> --quick` (flags that change no
/// result, such as --timings or --export, allowed).
pub fn keep_for_page(dir: &Path, paper: &str) {
    let Some(keep) = std::env::var_os("LOSSLAB_KEEP_QUICK") else {
        return;
    };
    let to = Path::new(&keep).join(paper);
    std::fs::create_dir_all(&to).unwrap();
    std::fs::copy(
        dir.join(paper).join("results.json"),
        to.join("results.json"),
    )
    .unwrap();
}

/// With `LOSSLAB_KEEP_QUICK` set, keeps the whole of the paper's output
/// but its `.losslab` bookkeeping under `$LOSSLAB_KEEP_QUICK/<paper>/`,
/// and beside it `<paper>.binary-sha256`, the SHA-256 of the binary that
/// made it: python/tests/test_reproduce_ray.py then compares `reproduce
/// --ray` with this run instead of making the same local run again,
/// when its binary is this one (issue 33: CI's time).
pub fn keep_whole_run(dir: &Path, paper: &str) {
    use sha2::{Digest, Sha256};
    let Some(keep) = std::env::var_os("LOSSLAB_KEEP_QUICK") else {
        return;
    };
    fn copy_tree(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            let name = e.file_name();
            if name == ".losslab" {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                copy_tree(&e.path(), &to.join(&name));
            } else {
                std::fs::copy(e.path(), to.join(&name)).unwrap();
            }
        }
    }
    let keep = Path::new(&keep);
    copy_tree(&dir.join(paper), &keep.join(paper));
    let binary = std::fs::read(env!("CARGO_BIN_EXE_losslab")).unwrap();
    let sha: String = Sha256::digest(&binary)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    std::fs::write(keep.join(format!("{paper}.binary-sha256")), sha).unwrap();
}

/// The experiments' ids, in order.
pub fn ids(exps: &[Value]) -> Vec<&str> {
    exps.iter().map(|e| e["id"].as_str().unwrap()).collect()
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
                    "inconclusive",
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
            if ["differs", "contradicted"].contains(&verdict) {
                // Supported by an experiment, or saying which tests
                // rejected what was tried: never a bare assertion.
                let why = c["explanation"].as_str().unwrap();
                assert!(
                    (why.starts_with("Explained") || why.starts_with("not yet explained"))
                        && why.to_lowercase().contains("test"),
                    "a {verdict} row whose explanation names no test: {}: {why}",
                    c["statement"]
                );
            }
        }
    }
    let csv = std::fs::read_to_string(dir.join(paper).join("claims.csv")).unwrap();
    assert!(csv.starts_with(
        "paper,experiment,id,statement,paper_value,n,mean,ci95_low,ci95_high,verdict,explanation,seeds_to_decide,verdict_v1,band_lo,band_hi,headline,measurement\n"
    ));
    assert_eq!(csv.lines().count(), 1 + n);
    n
}

/// The band a value or effect claim is judged against, from its JSON.
fn band(expect: &Value) -> [f64; 2] {
    let paper = expect["paper"].as_f64().unwrap();
    let b = &expect["band"];
    match b["kind"].as_str().unwrap() {
        "relative" => {
            let r = b["r"].as_f64().unwrap();
            let (x, y) = (paper * (1.0 - r), paper * (1.0 + r));
            [x.min(y), x.max(y)]
        }
        "absolute" => {
            let d = b["d"].as_f64().unwrap();
            [paper - d, paper + d]
        }
        k => panic!("unknown band {k}"),
    }
}

/// Independently of claims.rs: a `reproduced` row's CI meets the paper's
/// band (a value or effect) or lies wholly on the paper's side of zero
/// (an order), and an effect that reproduces excludes zero.
pub fn assert_reproduced_rows_meet_their_bands(exps: &[Value]) {
    for e in exps {
        for c in e["claims"].as_array().unwrap() {
            if c["verdict"] != "reproduced" {
                continue;
            }
            let [lo, hi] = [0, 1].map(|i| c["ours"]["ci95"][i].as_f64().unwrap());
            let x = &c["expect"];
            // Version 2 of the rules (docs/REPRODUCTIONS.md): the whole
            // interval inside the band, not merely meeting it.
            let ok = match x["kind"].as_str().unwrap() {
                "value" => {
                    let [a, b] = band(x);
                    a <= lo && hi <= b
                }
                "at-least" => {
                    let [a, _] = band(x);
                    lo >= a
                }
                "effect" => {
                    let [a, b] = band(x);
                    let paper = x["paper"].as_f64().unwrap();
                    a <= lo
                        && hi <= b
                        && (paper == 0.0 || (lo > 0.0 && paper > 0.0) || (hi < 0.0 && paper < 0.0))
                }
                "order" => {
                    if x["paper_positive"] == true {
                        lo > 0.0
                    } else {
                        hi < 0.0
                    }
                }
                k => panic!("unknown claim kind {k}"),
            };
            assert!(
                ok,
                "reproduced, but its CI [{lo}, {hi}] is not inside the paper's band: {c}"
            );
            // The band the row reports (claims.csv's band_lo, band_hi)
            // holds the interval too: null is an open side.
            let lo_ok = c["band_lo"].as_f64().is_none_or(|a| a <= lo);
            let hi_ok = c["band_hi"].as_f64().is_none_or(|b| hi <= b);
            assert!(
                lo_ok && hi_ok,
                "reproduced, but its CI [{lo}, {hi}] leaves its reported band: {c}"
            );
        }
    }
}

/// The paper's headline rows come first, in a table of their own, each
/// of HEADLINES.md's `items` items (1..=items) has a row, and every row
/// names the measurement it judges.
pub fn assert_headlines_first(exps: &[Value], items: u32) {
    let heads = &exps[0];
    assert_eq!(
        heads["id"], "headline",
        "the first table is the headline claims"
    );
    let rows = heads["claims"].as_array().unwrap();
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|c| c["headline"] == true));
    for n in 1..=items {
        assert!(
            rows.iter().any(|c| c["statement"]
                .as_str()
                .unwrap()
                .starts_with(&format!("Headline {n}:"))),
            "no row for headline {n}"
        );
    }
    for e in &exps[1..] {
        for c in e["claims"].as_array().unwrap() {
            assert_eq!(
                c["headline"], false,
                "a headline row outside the first table: {c}"
            );
            assert!(!c["measurement"].as_str().unwrap().is_empty());
        }
    }
}

/// The recorded verdicts (crates/losslab/tests/verdicts.csv, written by
/// scripts/reproductions.py): paper/id -> (quick, full, why they differ).
pub fn recorded_verdicts() -> BTreeMap<String, (String, String, String)> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/verdicts.csv"))
        .expect("tests/verdicts.csv: run scripts/reproductions.py");
    let mut rdr = text.lines();
    assert_eq!(rdr.next(), Some("paper,id,quick,full,why_quick_differs"));
    rdr.map(|l| {
        let f = split_csv(l);
        assert_eq!(f.len(), 5, "{l}");
        (
            format!("{}/{}", f[0], f[1]),
            (f[2].clone(), f[3].clone(), f[4].clone()),
        )
    })
    .collect()
}

/// One CSV line's fields (quoted fields may hold commas and "").
fn split_csv(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                out.last_mut().unwrap().push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(String::new()),
            _ => out.last_mut().unwrap().push(c),
        }
    }
    out
}

/// The quick run's verdicts are those recorded, row for row, and every row
/// whose recorded quick verdict differs from the full run's says why.
pub fn assert_recorded_verdicts(paper: &str, exps: &[Value]) {
    let rec = recorded_verdicts();
    let mut seen = Vec::new();
    let mut wrong = Vec::new();
    for e in exps {
        for c in e["claims"].as_array().unwrap() {
            let key = format!("{paper}/{}", c["id"].as_str().unwrap());
            let got = c["verdict"].as_str().unwrap().replace('-', " ");
            match rec.get(&key) {
                None => wrong.push(format!("{key}: not in tests/verdicts.csv")),
                Some((quick, _, _)) if *quick != got => {
                    wrong.push(format!("{key}: quick verdict {got}, recorded {quick}"))
                }
                _ => {}
            }
            seen.push(key);
        }
    }
    for (key, (quick, full, why)) in &rec {
        if key.starts_with(&format!("{paper}/")) {
            if !seen.contains(key) {
                wrong.push(format!("{key}: recorded but no longer measured"));
            }
            if quick != full && why.is_empty() {
                wrong.push(format!(
                    "{key}: --quick says {quick}, the full run {full}, and the row does not say why"
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "verdicts changed (rerun scripts/reproductions.py and explain):\n{}",
        wrong.join("\n")
    );
}

/// Every file under `dir`, relative and sorted, losslab's own `.losslab`
/// left out.
pub fn files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if e.file_name() == ".losslab" {
                continue;
            }
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

/// [`files`] with their bytes.
pub fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    files(dir)
        .into_iter()
        .map(|f| {
            let b = std::fs::read(dir.join(&f)).unwrap();
            (f, b)
        })
        .collect()
}
