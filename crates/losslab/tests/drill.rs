//! `losslab drill`: the corpus in tests/packetdrill gives the verdicts
//! recorded in tests/packetdrill/EXPECTED, and a broken expectation fails.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn drill(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_losslab"))
        .arg("drill")
        .args(args)
        .current_dir(root())
        .output()
        .expect("runs")
}

#[test]
fn the_corpus_gives_the_recorded_verdicts() {
    let o = drill(&[
        "tests/packetdrill",
        "--expected",
        "tests/packetdrill/EXPECTED",
    ]);
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn a_script_the_engine_does_not_follow_fails_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("tests/packetdrill/fast-retransmit-sack.pkt"))
        .unwrap()
        .replace(
            "assert tcpi_snd_ssthresh == 7",
            "assert tcpi_snd_ssthresh == 5",
        );
    let p = dir.path().join("wrong.pkt");
    std::fs::write(&p, text).unwrap();
    let o = drill(&[p.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("FAIL") && out.contains("wrong.pkt:"), "{out}");
    assert!(out.contains("tcpi_snd_ssthresh = 7"), "{out}");
    assert_eq!(o.status.code(), Some(1));
    // An unreadable path is bad input.
    let o = drill(&["no/such/dir"]);
    assert_eq!(o.status.code(), Some(2));
}
