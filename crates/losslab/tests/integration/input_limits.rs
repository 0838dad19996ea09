//! Inputs held to the memory limit before they are read or parsed, and
//! error messages of bounded size (docs/RELIABILITY.md, "Memory" and "Bad
//! input"). None of these measures memory: each checks that the refusal
//! happens, with the file, its size and `--max-memory` named.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn losslab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_losslab"))
        .args(args)
        .output()
        .unwrap()
}

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

fn tail_drop() -> String {
    std::fs::read_to_string(examples().join("tail-drop.toml")).unwrap()
}

/// `n` small integers: the input that costs most per element to parse.
fn ints(n: usize) -> String {
    let mut s = String::from("[");
    for i in 0..n {
        if i > 0 {
            s.push(',');
        }
        s.push('1');
    }
    s.push(']');
    s
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_scenario_too_costly_to_parse_is_refused_before_the_parse() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    let file = d.join("bigx.toml");
    // 1 MB of TOML: about 400 MB to parse at worst, over 100 MB.
    std::fs::write(&file, format!("x = {}\n{}", ints(500_000), tail_drop())).unwrap();
    let o = losslab(&[
        "run",
        file.to_str().unwrap(),
        "--max-memory",
        "100MB",
        "--out",
        d.join("out").to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("bigx.toml"), "{e}");
    assert!(e.contains("1.0 MB of TOML"), "{e}");
    assert!(e.contains("--max-memory"), "{e}");
    assert!(e.contains("100.0 MB"), "{e}");
    // The same file under a limit that affords it gets as far as its keys.
    let o = losslab(&[
        "run",
        file.to_str().unwrap(),
        "--max-memory",
        "2GB",
        "--out",
        d.join("out").to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("unknown key \"x\""), "{e}");
}

#[test]
fn a_large_set_value_is_held_to_the_limit() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    let set = format!(
        "path.loss={{model=\"drop\", flow=\"a\", packets={}}}",
        ints(60_000)
    );
    let o = losslab(&[
        "run",
        examples().join("tail-drop.toml").to_str().unwrap(),
        "--set",
        &set,
        "--max-memory",
        "20MB",
        "--out",
        d.join("out").to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("of TOML would take"), "{e}");
}

#[test]
fn a_sweep_file_too_costly_to_parse_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    let file = d.join("big-sweep.toml");
    let scenario = examples().join("tail-drop.toml");
    std::fs::write(
        &file,
        format!(
            "scenario = {:?}\nseeds = \"1..2\"\n[axes]\nseed = {}\n",
            scenario.to_str().unwrap(),
            ints(100_000)
        ),
    )
    .unwrap();
    let o = losslab(&[
        "sweep",
        file.to_str().unwrap(),
        "--max-memory",
        "20MB",
        "--out",
        d.join("out").to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("big-sweep.toml"), "{e}");
    assert!(e.contains("--max-memory"), "{e}");
}

#[test]
fn a_long_bad_line_gives_a_short_message() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    let file = d.join("long.toml");
    // 300 kB on one line, broken at its end.
    let mut bad = format!("x = {}", ints(150_000));
    bad.pop();
    bad.push_str(",,]\n");
    std::fs::write(&file, bad).unwrap();
    let o = losslab(&[
        "run",
        file.to_str().unwrap(),
        "--out",
        d.join("out").to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.len() < 2048,
        "{} bytes: {}",
        e.len(),
        &e[..e.len().min(3000)]
    );
    assert!(e.contains("long.toml"), "{e}");
    assert!(e.contains("line 1, column"), "{e}");
    assert!(e.contains("..."), "{e}");
    // A sweep file's own syntax error too.
    let sweep = d.join("long-sweep.toml");
    std::fs::write(
        &sweep,
        format!("scenario = \"s.toml\"\nx = [{}, ]]\n", "1,".repeat(150_000)),
    )
    .unwrap();
    let o = losslab(&[
        "sweep",
        sweep.to_str().unwrap(),
        "--out",
        d.join("sw").to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.len() < 2048 && e.contains("long-sweep.toml") && e.contains("line 2, column"),
        "{e}"
    );
}

/// A finished run with its packet trace, to plot.
fn traced_run(d: &Path) -> PathBuf {
    let out = d.join("run");
    let o = losslab(&[
        "run",
        examples().join("tail-drop.toml").to_str().unwrap(),
        "--trace",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.join("packets.csv").exists());
    out
}

#[test]
fn plot_refuses_a_trace_without_line_breaks() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    let run = traced_run(d);
    // A file zero-filled after a crash: 2 MB and not one newline.
    std::fs::write(run.join("packets.csv"), vec![0u8; 2 << 20]).unwrap();
    let o = losslab(&[
        "plot",
        run.to_str().unwrap(),
        "--out",
        d.join("pics").to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("packets.csv:1"), "{e}");
    assert!(e.contains("longer than 1 MiB"), "{e}");
}

#[test]
fn plot_refuses_traces_over_its_memory_limit() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    let run = traced_run(d);
    let size = std::fs::metadata(run.join("packets.csv")).unwrap().len();
    // Half of the trace's size: under what drawing it takes.
    let limit = format!("{}B", size / 2);
    let o = losslab(&[
        "plot",
        run.to_str().unwrap(),
        "--max-memory",
        &limit,
        "--out",
        d.join("pics").to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("packets.csv"), "{e}");
    assert!(e.contains("--max-memory"), "{e}");
    let o = losslab(&[
        "plot",
        run.to_str().unwrap(),
        "--out",
        d.join("pics").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}
