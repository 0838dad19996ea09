//! Nothing of the user's is lost or overwritten (docs/RELIABILITY.md): the
//! regression tests of issue 26, each against the binary as a user runs
//! it. None depends on the machine's speed: concurrency is tested with a
//! lock this test holds, a full disk with RLIMIT_FSIZE, a kill with a cut
//! line written by hand.

use crate::common::files;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use losslab::outdir::{Mode, Options, OutDir};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn example(name: &str) -> PathBuf {
    root().join("examples").join(name)
}

/// `losslab ARGS` with `cwd` as the working folder (and no progress bar
/// for the commands that draw one).
fn losslab(cwd: &Path, args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_losslab"));
    c.args(args);
    if matches!(args.first(), Some(&"run") | Some(&"sweep")) {
        c.arg("--no-progress");
    }
    c.current_dir(cwd).output().expect("runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A disk that is full after 2 kB: the child may write no file past
/// 2,048 bytes, and a write past it fails (EFBIG) instead of killing it.
fn full_disk(c: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec, only async-signal-safe calls.
    unsafe {
        c.pre_exec(|| {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let lim = libc::rlimit {
                rlim_cur: 2048,
                rlim_max: 2048,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// A copy of `examples/NAME` in `dir` with its first `name = ...` line
/// (the scenario's) replaced.
fn renamed(dir: &Path, name: &str, label: &str) -> PathBuf {
    let text = fs::read_to_string(example(name)).unwrap();
    let mut done = false;
    let out: Vec<String> = text
        .lines()
        .map(|l| {
            if !done && l.starts_with("name = ") {
                done = true;
                format!("name = {label:?}")
            } else {
                l.to_string()
            }
        })
        .collect();
    let p = dir.join(format!("renamed-{}", name));
    fs::write(&p, out.join("\n") + "\n").unwrap();
    p
}

/// Defect 1: a scenario's name is a label: with `/abs/dir` or `../../x`
/// the run writes under out/ only and deletes nothing outside it.
#[test]
fn a_scenario_name_never_reaches_outside_out() {
    let t = tempfile::tempdir().unwrap();
    let work = t.path().join("a/b");
    fs::create_dir_all(&work).unwrap();
    let victim = t.path().join("victim");
    fs::create_dir_all(victim.join("plots")).unwrap();
    fs::write(victim.join("plots/thesis.tex"), "years of work").unwrap();
    fs::write(victim.join("summary.json"), "mine").unwrap();
    let before_victim = files(&victim);
    for label in [
        s(&victim).to_string(),
        "../../victim".to_string(),
        "..".into(),
    ] {
        let sc = renamed(&work, "three-drops.toml", &label);
        let o = losslab(&work, &["run", s(&sc), "--report"]);
        assert!(o.status.success(), "{label}: {}", stderr(&o));
        let out = String::from_utf8_lossy(&o.stdout);
        for line in out.lines().filter(|l| l.starts_with("wrote ")) {
            let p = Path::new(line.trim_start_matches("wrote "));
            assert!(p.starts_with("out"), "{label}: {line}");
        }
    }
    assert_eq!(files(&victim), before_victim);
    assert_eq!(
        fs::read_to_string(victim.join("plots/thesis.tex")).unwrap(),
        "years of work"
    );
    // Everything written is one level below out/.
    for f in files(&work) {
        assert!(
            f.starts_with("out/") || f.starts_with("renamed-"),
            "written outside out/: {f}"
        );
    }
}

/// Defect 2: `--out` on a folder of the user's is refused, untouched;
/// with --force the user's files survive, and every later command too.
#[test]
fn a_user_file_in_out_survives_every_command() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path().join("d");
    fs::create_dir_all(d.join("plots")).unwrap();
    fs::write(d.join("plots/fig.svg"), "my figure").unwrap();
    fs::write(d.join("notes.md"), "my notes").unwrap();
    let sc = example("three-drops.toml");
    let o = losslab(t.path(), &["run", s(&sc), "--out", s(&d), "--plot"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--force"), "{}", stderr(&o));
    assert_eq!(files(&d), ["notes.md", "plots/fig.svg"], "nothing written");
    assert!(!d.join(".losslab").exists());

    let sweep = t.path().join("sw.toml");
    fs::write(
        &sweep,
        format!(
            "scenario = {:?}\nset = [\"duration=2s\"]\n[axes]\n\"path.loss.p\" = [0.01, 0.02]\n",
            s(&example("bulk-20mbps.toml"))
        ),
    )
    .unwrap();
    let pcap = d.join("pcap");
    let commands: Vec<Vec<&str>> = vec![
        vec![
            "run",
            s(&sc),
            "--out",
            s(&d),
            "--plot",
            "--report",
            "--force",
        ],
        vec!["run", s(&sc), "--out", s(&d), "--plot", "--timeseries"],
        vec!["run", s(&sc), "--out", s(&d), "--seeds", "1..3"],
        vec!["run", s(&sc), "--out", s(&d), "--pcap", s(&pcap), "--plot"],
        vec!["plot", s(&d)],
        vec!["sweep", s(&sweep), "--out", s(&d)],
        vec!["run", s(&sc), "--out", s(&d), "--report"],
        vec!["plot", s(&d), "--report"],
    ];
    for c in &commands {
        let o = losslab(t.path(), c);
        assert!(o.status.success(), "{c:?}: {}", stderr(&o));
        assert_eq!(
            fs::read_to_string(d.join("plots/fig.svg")).unwrap(),
            "my figure",
            "{c:?}"
        );
        assert_eq!(fs::read_to_string(d.join("notes.md")).unwrap(), "my notes");
    }
    // A result file the user changed is theirs: refused, not replaced.
    fs::write(d.join("summary.json"), "edited").unwrap();
    let o = losslab(t.path(), &["run", s(&sc), "--out", s(&d)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        fs::read_to_string(d.join("summary.json")).unwrap(),
        "edited"
    );
}

/// Defect 2: the scenario being run is never written over, --force or not.
#[test]
fn the_input_scenario_is_never_overwritten() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path().join("d");
    let sc = example("three-drops.toml");
    let o = losslab(t.path(), &["run", s(&sc), "--out", s(&d)]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The user edits the copy losslab wrote and runs it from there.
    let mine = d.join("scenario.toml");
    let text = fs::read_to_string(&mine).unwrap() + "# my comment\n";
    fs::write(&mine, &text).unwrap();
    for extra in [&[][..], &["--force"][..]] {
        let mut args = vec!["run", s(&mine), "--out", s(&d), "--set", "seed=3"];
        args.extend_from_slice(extra);
        let o = losslab(t.path(), &args);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("reads"), "{}", stderr(&o));
        assert_eq!(fs::read_to_string(&mine).unwrap(), text);
    }
}

/// Defect 3: a second command into a busy folder exits 2 and writes
/// nothing; the lock is held here, so no timing decides it.
#[test]
fn concurrent_commands_into_one_folder_fail_cleanly() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path().join("d");
    let sc = example("three-drops.toml");
    let o = losslab(t.path(), &["run", s(&sc), "--out", s(&d)]);
    assert!(o.status.success());
    let summary = fs::read_to_string(d.join("summary.json")).unwrap();
    let held = OutDir::open(
        &d,
        Options {
            flag: "--out",
            mode: Mode::Add,
            force: false,
            inputs: &[],
        },
    )
    .unwrap();
    let sweep = t.path().join("sw.toml");
    fs::write(
        &sweep,
        format!(
            "scenario = {:?}\n[axes]\n\"path.delay\" = [\"10ms\", \"20ms\"]\n",
            s(&sc)
        ),
    )
    .unwrap();
    for args in [
        vec!["run", s(&sc), "--out", s(&d), "--seed", "2"],
        vec!["run", s(&sc), "--out", s(&d), "--seeds", "2"],
        vec!["sweep", s(&sweep), "--out", s(&d)],
        vec!["plot", s(&d)],
    ] {
        let o = losslab(t.path(), &args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("another losslab command is writing"),
            "{}",
            stderr(&o)
        );
    }
    // Nor into a folder inside it (a `--pcap` or `--out` there).
    let other = t.path().join("other");
    for args in [
        vec!["run", s(&sc), "--out", s(&other), "--pcap", "d/caps"],
        vec!["run", s(&sc), "--out", "d/sub"],
    ] {
        let o = losslab(t.path(), &args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("which holds this folder"),
            "{}",
            stderr(&o)
        );
    }
    assert!(!other.exists() && !d.join("caps").exists() && !d.join("sub").exists());
    assert_eq!(fs::read_to_string(d.join("summary.json")).unwrap(), summary);
    drop(held);
    let o = losslab(t.path(), &["run", s(&sc), "--out", s(&d), "--seed", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// Defect 3: runs one after another into one folder never mix: nothing
/// of seed 1's run is left beside seed 2's results.
#[test]
fn a_later_run_leaves_nothing_of_the_earlier_one() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path().join("d");
    let sc = example("three-drops.toml");
    let o = losslab(
        t.path(),
        &["run", s(&sc), "--out", s(&d), "--seed", "1", "--plot"],
    );
    assert!(o.status.success());
    assert!(d.join("timeseries.csv").exists() && d.join("plots").exists());
    let o = losslab(t.path(), &["run", s(&sc), "--out", s(&d), "--seed", "2"]);
    assert!(o.status.success());
    assert_eq!(
        files(&d),
        ["rbb.csv", "scenario.toml", "summary.json"],
        "the earlier run's traces and pictures are gone"
    );
    let v: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(d.join("summary.json")).unwrap()).unwrap();
    assert_eq!(v["seed"], 2);
}

fn sweep_file(dir: &Path) -> PathBuf {
    let base = dir.join("base.toml");
    fs::copy(example("bulk-20mbps.toml"), &base).unwrap();
    let sweep = dir.join("sw.toml");
    fs::write(
        &sweep,
        "scenario = \"base.toml\"\nseeds = \"1..3\"\nset = [\"duration=3s\"]\n[axes]\n\"path.loss.p\" = [0.005, 0.02]\n\"flow.a.recovery\" = [\"prr\", \"rate-halving\"]\n",
    )
    .unwrap();
    sweep
}

const TABLES: &[&str] = &[
    "runs.csv",
    "runs.parquet",
    "summary.csv",
    "summary.parquet",
    "summary.json",
];

/// Defect 4: a kill that cut the last line of results.jsonl: --resume
/// drops the cut line, runs that run again, and the tables are those of
/// the sweep that was never interrupted.
#[test]
fn a_resumed_sweep_after_a_cut_line_equals_the_uninterrupted_one() {
    let t = tempfile::tempdir().unwrap();
    let sweep = sweep_file(t.path());
    let full = t.path().join("full");
    let cut = t.path().join("cut");
    for d in [&full, &cut] {
        let o = losslab(t.path(), &["sweep", s(&sweep), "--out", s(d)]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let jsonl = cut.join("results.jsonl");
    let text = fs::read(&jsonl).unwrap();
    let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    for keep in [0usize, 5, 11] {
        let mut b: Vec<u8> = Vec::new();
        for l in &lines[..keep] {
            b.extend_from_slice(l);
            b.push(b'\n');
        }
        b.extend_from_slice(&lines[keep][..lines[keep].len() / 2]);
        fs::write(&jsonl, &b).unwrap();
        let o = losslab(
            t.path(),
            &["sweep", s(&sweep), "--out", s(&cut), "--resume"],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("dropped a cut last line"),
            "{}",
            stderr(&o)
        );
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.contains("12 runs done"), "{out}");
        for f in TABLES {
            assert_eq!(
                fs::read(full.join(f)).unwrap(),
                fs::read(cut.join(f)).unwrap(),
                "{f} after a cut at line {keep}"
            );
        }
    }
}

/// Defect 4: foreign or impossible lines are an error naming the line,
/// never a panic or a count.
#[test]
fn resume_refuses_lines_that_are_not_this_sweeps_runs() {
    let t = tempfile::tempdir().unwrap();
    let sweep = sweep_file(t.path());
    let d = t.path().join("d");
    let o = losslab(t.path(), &["sweep", s(&sweep), "--out", s(&d)]);
    assert!(o.status.success());
    let jsonl = d.join("results.jsonl");
    let good = fs::read_to_string(&jsonl).unwrap();
    let first = good.lines().next().unwrap().to_string();
    let id = sweep_id_of(&first);
    let dup = format!("{good}{first}\n");
    for (bad, what) in [
        (
            format!("{good}{{\"point\":999,\"seed\":1,\"results\":{{}},\"sweep\":\"{id}\"}}\n"),
            "point 999",
        ),
        (
            format!("{good}{{\"point\":0,\"seed\":77,\"results\":{{}},\"sweep\":\"{id}\"}}\n"),
            "seed 77",
        ),
        (
            format!("{good}{{\"point\":0,\"seed\":1,\"sweep\":\"{id}\"}}\n"),
            "results",
        ),
        (
            format!(
                "{good}{{\"point\":1,\"seed\":3,\"results\":{{\"seed\":99}},\"sweep\":\"{id}\"}}\n"
            ),
            "not those of a run with seed 3",
        ),
        (format!("not json\n{good}"), "not JSON"),
        (format!("{good}[1,2]\n"), "object"),
        (
            format!("{good}{{\"point\":-1,\"seed\":1,\"results\":{{}},\"sweep\":\"{id}\"}}\n"),
            "point",
        ),
        (dup, "twice"),
    ] {
        fs::write(&jsonl, &bad).unwrap();
        let o = losslab(t.path(), &["sweep", s(&sweep), "--out", s(&d), "--resume"]);
        assert_eq!(o.status.code(), Some(2), "{what}: {}", stderr(&o));
        assert!(stderr(&o).contains("line "), "{}", stderr(&o));
        assert!(stderr(&o).contains(what), "{what}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"));
    }
}

fn sweep_id_of(line: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    v["sweep"].as_str().expect("a sweep id").to_string()
}

/// Review 4, item 3: a line whose point and seed are valid here but that
/// another sweep wrote (a 1 s sweep's, appended to a 3 s sweep's file) is
/// refused naming the line, not tabulated; so is one of an older losslab,
/// which wrote no id.
#[test]
fn resume_refuses_a_valid_looking_line_of_another_sweep() {
    let t = tempfile::tempdir().unwrap();
    let sweep = sweep_file(t.path());
    let short = t.path().join("short.toml");
    fs::write(
        &short,
        fs::read_to_string(&sweep)
            .unwrap()
            .replace("duration=3s", "duration=1s"),
    )
    .unwrap();
    let (d, other) = (t.path().join("d"), t.path().join("other"));
    for (f, out) in [(&sweep, &d), (&short, &other)] {
        let o = losslab(t.path(), &["sweep", s(f), "--out", s(out)]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let jsonl = d.join("results.jsonl");
    let good = fs::read_to_string(&jsonl).unwrap();
    let theirs = fs::read_to_string(other.join("results.jsonl")).unwrap();
    let foreign = theirs.lines().next().unwrap();
    assert_ne!(
        sweep_id_of(foreign),
        sweep_id_of(good.lines().next().unwrap())
    );
    // Make room for it: drop this sweep's run of the same point and seed.
    let v: serde_json::Value = serde_json::from_str(foreign).unwrap();
    let same = |l: &&str| {
        let w: serde_json::Value = serde_json::from_str(l).unwrap();
        w["point"] == v["point"] && w["seed"] == v["seed"]
    };
    let kept: String = good
        .lines()
        .filter(|l| !same(l))
        .map(|l| format!("{l}\n"))
        .collect();
    let unmarked = foreign.replace(&format!(",\"sweep\":\"{}\"", sweep_id_of(foreign)), "");
    assert_ne!(unmarked, foreign);
    for (line, n) in [(foreign, 12), (unmarked.as_str(), 12)] {
        fs::write(&jsonl, format!("{kept}{line}\n")).unwrap();
        let o = losslab(t.path(), &["sweep", s(&sweep), "--out", s(&d), "--resume"]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains(&format!("line {n}")), "{e}");
        assert!(e.contains("another sweep or"), "{e}");
        assert!(e.contains("another losslab version"), "{e}");
    }
}

/// A sweep run to the end in `dir/d`: its file, its output folder, its
/// inputs.json and what that holds, for a test to alter and resume.
fn finished_sweep(dir: &Path) -> (PathBuf, PathBuf, PathBuf, serde_json::Value) {
    let sweep = sweep_file(dir);
    let d = dir.join("d");
    let o = losslab(dir, &["sweep", s(&sweep), "--out", s(&d)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let inputs = d.join("inputs.json");
    let v = serde_json::from_str(&fs::read_to_string(&inputs).unwrap()).unwrap();
    (sweep, d, inputs, v)
}

/// Review 4, item 3: a sweep started by another losslab version is not
/// resumed (inputs.json records the version): the runs would mix engines.
#[test]
fn resume_refuses_a_sweep_of_another_losslab_version() {
    let t = tempfile::tempdir().unwrap();
    let (sweep, d, inputs, mut v) = finished_sweep(t.path());
    assert_eq!(v["losslab"], env!("CARGO_PKG_VERSION"));
    v["losslab"] = "0.0.9".into();
    v["sweep_id"] = "0000000000000000".into();
    fs::write(&inputs, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let o = losslab(t.path(), &["sweep", s(&sweep), "--out", s(&d), "--resume"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("losslab 0.0.9"), "{}", stderr(&o));
}

/// Issue 33: the version stays the same from commit to commit, so a sweep
/// started by another build of the engine (inputs.json's `engine`, which
/// the sweep id includes) is not resumed either; the error names both.
#[test]
fn resume_refuses_a_sweep_of_another_engine() {
    let t = tempfile::tempdir().unwrap();
    let (sweep, d, inputs, mut v) = finished_sweep(t.path());
    let ours = v["engine"].as_str().unwrap().to_string();
    assert_eq!(ours.len(), 16, "{ours}");
    let id = v["sweep_id"].as_str().unwrap().to_string();
    // What the same sweep by another engine recorded: its id differs.
    v["engine"] = "0123456789abcdef".into();
    v["sweep_id"] = "fedcba9876543210".into();
    fs::write(&inputs, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let o = losslab(t.path(), &["sweep", s(&sweep), "--out", s(&d), "--resume"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("engine 0123456789abcdef") && e.contains(&format!("engine {ours}")),
        "{e}"
    );
    // The results lines carry the id that names this engine's sweep.
    let lines = fs::read_to_string(d.join("results.jsonl")).unwrap();
    assert!(lines.lines().all(|l| sweep_id_of(l) == id));
    let o = losslab(t.path(), &["--version"]);
    assert!(o.status.success());
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!("losslab {} (engine {ours})\n", env!("CARGO_PKG_VERSION"))
    );
}

/// Review 4, item 4: results.jsonl hard-linked into a backup (`cp -al`):
/// a resume that truncates a cut line and appends runs leaves the
/// backup's copy as it was, and the tables are the uninterrupted ones.
#[cfg(unix)]
#[test]
fn resume_does_not_write_through_a_hard_link() {
    let t = tempfile::tempdir().unwrap();
    let sweep = sweep_file(t.path());
    let (d, full) = (t.path().join("d"), t.path().join("full"));
    for out in [&d, &full] {
        let o = losslab(t.path(), &["sweep", s(&sweep), "--out", s(out)]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let jsonl = d.join("results.jsonl");
    let text = fs::read_to_string(&jsonl).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let cut = format!(
        "{}\n{}",
        lines[..5].join("\n"),
        &lines[5][..lines[5].len() / 2]
    );
    fs::write(&jsonl, &cut).unwrap();
    let backup = t.path().join("backup.jsonl");
    fs::hard_link(&jsonl, &backup).unwrap();
    let o = losslab(t.path(), &["sweep", s(&sweep), "--out", s(&d), "--resume"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(fs::read_to_string(&backup).unwrap(), cut);
    assert_eq!(fs::read_to_string(&jsonl).unwrap().lines().count(), 12);
    for f in TABLES {
        assert_eq!(
            fs::read(full.join(f)).unwrap(),
            fs::read(d.join(f)).unwrap(),
            "{f}"
        );
    }
}

/// Review 4, item 2: two axes that are one key spelled two ways, or an
/// axis that is also in `set`, exit 2 naming both spellings; the runs
/// would use one value while the tables label them with another.
#[test]
fn a_key_given_twice_is_refused() {
    let t = tempfile::tempdir().unwrap();
    fs::copy(example("bulk-20mbps.toml"), t.path().join("base.toml")).unwrap();
    let f = t.path().join("twice.toml");
    for (body, names, why) in [
        (
            "[axes]\n\"path.loss.p\" = [0.001, 0.05]\n\" path.loss.p\" = [0.2]\n",
            ["axes.\"path.loss.p\"", "axes.\" path.loss.p\""],
            "give the key once",
        ),
        (
            "[axes]\n\"flow.a.recovery\" = [\"prr\"]\n\"flow[0].recovery\" = [\"rfc6675\"]\n",
            ["axes.\"flow.a.recovery\"", "axes.\"flow[0].recovery\""],
            "give the key once",
        ),
        (
            "set = [\"path.loss.p = 0.3\"]\n[axes]\n\"path.loss.p\" = [0.001]\n",
            ["set \"path.loss.p =...\"", "axes.\"path.loss.p\""],
            "never be used",
        ),
    ] {
        fs::write(&f, format!("scenario = \"base.toml\"\n{body}")).unwrap();
        let out = t.path().join("o");
        let o = losslab(t.path(), &["sweep", s(&f), "--out", s(&out)]);
        assert_eq!(o.status.code(), Some(2), "{body}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains("twice.toml"), "{e}");
        for n in names {
            assert!(e.contains(n), "{n}: {e}");
        }
        assert!(e.contains(why), "{e}");
        assert!(!out.exists());
    }
}

/// Defect 4: --resume checks the base scenario, not only the sweep file.
#[test]
fn resume_refuses_a_changed_base_scenario() {
    let t = tempfile::tempdir().unwrap();
    let sweep = sweep_file(t.path());
    let d = t.path().join("d");
    let o = losslab(t.path(), &["sweep", s(&sweep), "--out", s(&d)]);
    assert!(o.status.success());
    let base = t.path().join("base.toml");
    let text = fs::read_to_string(&base)
        .unwrap()
        .replace("20Mbps", "100Mbps");
    fs::write(&base, text).unwrap();
    let before = fs::read(d.join("runs.csv")).unwrap();
    let o = losslab(t.path(), &["sweep", s(&sweep), "--out", s(&d), "--resume"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("base scenario"), "{}", stderr(&o));
    assert_eq!(fs::read(d.join("runs.csv")).unwrap(), before);
}

/// Defect 5: a write that fails (the disk is full: here a file-size limit
/// on the process) leaves the previous results whole, never part of them.
#[cfg(unix)]
#[test]
fn a_full_disk_leaves_the_previous_results_whole() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path().join("d");
    let sc = example("bulk-20mbps.toml");
    let o = losslab(
        t.path(),
        &["run", s(&sc), "--out", s(&d), "--set", "duration=5s"],
    );
    assert!(o.status.success());
    let summary = fs::read(d.join("summary.json")).unwrap();
    assert!(summary.len() > 2048);
    let mut c = Command::new(env!("CARGO_BIN_EXE_losslab"));
    c.args([
        "run",
        s(&sc),
        "--out",
        s(&d),
        "--no-progress",
        "--seed",
        "9",
    ])
    .args(["--set", "duration=5s"])
    .current_dir(t.path());
    full_disk(&mut c);
    let o = c.output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot write"), "{}", stderr(&o));
    assert_eq!(fs::read(d.join("summary.json")).unwrap(), summary);
    serde_json::from_slice::<serde_json::Value>(&summary).unwrap();
    assert_eq!(files(&d), ["rbb.csv", "scenario.toml", "summary.json"]);
}

/// Defect 6: scenarios that cannot fit are refused up front, with the
/// estimate and what to do, before any run (so at once, whatever the
/// machine).
#[test]
fn memory_bombs_are_refused_up_front() {
    let t = tempfile::tempdir().unwrap();
    let sc = example("bulk-20mbps.toml");
    let cases: &[(&[&str], &str)] = &[
        (&["flow.a.count=1000000"], "connections"),
        (
            &["flow.a.count=5000", "duration=100000s"],
            "recovery episodes",
        ),
        (
            &[
                "flow.a.receiver={rcvbuf=\"1000GB\"}",
                "path.rate=1000Gbps",
                "path.queue=\"1000GB\"",
            ],
            "segments in flight",
        ),
    ];
    for (sets, what) in cases {
        let mut args = vec!["run", s(&sc)];
        for set in *sets {
            args.extend(["--set", set]);
        }
        let o = losslab(t.path(), &args);
        assert_eq!(o.status.code(), Some(2), "{sets:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(what), "{sets:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("--max-memory"), "{}", stderr(&o));
        assert!(!t.path().join("out").exists(), "nothing written");
    }
    // --seeds weighs the runs held at once.
    let o = losslab(
        t.path(),
        &[
            "run",
            s(&sc),
            "--seeds",
            "1..8",
            "--jobs",
            "8",
            "--max-memory",
            "40MB",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("8 runs at once (--jobs), each estimated"),
        "{}",
        stderr(&o)
    );
    let o = losslab(t.path(), &["run", s(&sc), "--max-memory", "lots"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--max-memory lots"), "{}", stderr(&o));
}

/// Defect 6: `--seeds` streams each seed's results to disk: the files are
/// the in-memory aggregate's, byte for byte (the streamed path keeps no
/// seed's results; its peak RSS is in docs/BENCHMARKS.md).
#[test]
fn streamed_seeds_give_the_documents_bytes() {
    let t = tempfile::tempdir().unwrap();
    let sc = example("web-page.toml");
    let text = fs::read_to_string(&sc).unwrap();
    let seeds: Vec<u64> = (1..=40).collect();
    let scenarios = losslab::seeds::scenarios_for(
        "x",
        &text,
        &["duration=2s".into()],
        &seeds,
        &losslab::memory::Guard::default(),
    )
    .unwrap();
    let stop = std::sync::atomic::AtomicBool::new(false);
    let r = losslab::seeds::run_seed_list(&scenarios, 2, &stop, || {});
    let doc = losslab::seeds::document(&scenarios[0].name, &seeds, &r.runs, &r.agg, false);
    let want = serde_json::to_string_pretty(&doc).unwrap() + "\n";
    let d = t.path().join("d");
    let o = losslab(
        t.path(),
        &[
            "run",
            s(&sc),
            "--out",
            s(&d),
            "--seeds",
            "1..40",
            "--set",
            "duration=2s",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(fs::read_to_string(d.join("summary.json")).unwrap(), want);
    let mut csv = String::from("seed,flow,metric,value\n");
    for (seed, scope, metric, x) in &r.rows {
        csv.push_str(&format!("{seed},{scope},{metric},{x}\n"));
    }
    assert_eq!(fs::read_to_string(d.join("runs.csv")).unwrap(), csv);
}

// The hostile review of issue 26's first version (its items, in its
// numbering), each a way a user's file was lost or a bomb got through.

/// Review 1: a `.losslab` that is a link (to the user's folder) or holds
/// a link for its lock is refused, and nothing it points to is touched.
#[cfg(unix)]
#[test]
fn a_linked_losslab_folder_or_lock_is_refused() {
    use std::os::unix::fs::symlink;
    let t = tempfile::tempdir().unwrap();
    let sc = example("three-drops.toml");
    let docs = t.path().join("mydocs");
    fs::create_dir_all(docs.join("stage")).unwrap();
    fs::write(docs.join("stage/ch1.tex"), "chapter").unwrap();
    fs::write(docs.join("lock"), "notes").unwrap();
    let v1 = t.path().join("v1");
    fs::create_dir(&v1).unwrap();
    symlink(&docs, v1.join(".losslab")).unwrap();
    let o = losslab(t.path(), &["run", s(&sc), "--out", s(&v1), "--force"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        fs::read_to_string(docs.join("stage/ch1.tex")).unwrap(),
        "chapter"
    );
    assert_eq!(fs::read_to_string(docs.join("lock")).unwrap(), "notes");
    let notes = t.path().join("notes.txt");
    fs::write(&notes, "precious").unwrap();
    for manifest in [false, true] {
        let v2 = t.path().join(format!("v2-{manifest}"));
        fs::create_dir_all(v2.join(".losslab")).unwrap();
        if manifest {
            fs::write(
                v2.join(".losslab/manifest.json"),
                "{\"format\":1,\"files\":{}}",
            )
            .unwrap();
        }
        symlink(&notes, v2.join(".losslab/lock")).unwrap();
        let o = losslab(t.path(), &["run", s(&sc), "--out", s(&v2), "--force"]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert_eq!(fs::read_to_string(&notes).unwrap(), "precious");
    }
}

/// Review 2: a hand-made manifest naming files outside the folder (or
/// absolute ones) is refused; nothing it names is deleted.
#[test]
fn a_manifest_naming_files_outside_the_folder_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let sc = example("three-drops.toml");
    let outside = t.path().join("outside.txt");
    fs::write(&outside, "k").unwrap();
    let abs = t.path().join("abs.txt");
    fs::write(&abs, "k").unwrap();
    fs::create_dir(t.path().join("emptydir")).unwrap();
    for (files, dirs) in [
        (
            "\"../outside.txt\":{\"live\":true}".to_string(),
            "[]".to_string(),
        ),
        (format!("{:?}:{{\"live\":true}}", s(&abs)), "[]".into()),
        (
            "\"fig.svg\":{\"live\":true}".into(),
            "[\"../emptydir\"]".into(),
        ),
        ("\".losslab/stage/x\":{\"live\":true}".into(), "[]".into()),
    ] {
        let v = t.path().join("v");
        let _ = fs::remove_dir_all(&v);
        fs::create_dir_all(v.join(".losslab")).unwrap();
        fs::write(
            v.join(".losslab/manifest.json"),
            format!("{{\"format\":1,\"files\":{{{files}}},\"dirs\":{dirs}}}"),
        )
        .unwrap();
        let o = losslab(t.path(), &["run", s(&sc), "--out", s(&v)]);
        assert_eq!(o.status.code(), Some(2), "{files}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("not a losslab manifest"),
            "{}",
            stderr(&o)
        );
    }
    assert!(outside.exists() && abs.exists() && t.path().join("emptydir").exists());
}

/// Review 3: a sweep's results.jsonl the user rewrote after the sweep is
/// theirs: a later run does not delete it.
#[test]
fn a_rewritten_results_jsonl_is_the_users() {
    let t = tempfile::tempdir().unwrap();
    let sweep = sweep_file(t.path());
    let d = t.path().join("d");
    let o = losslab(t.path(), &["sweep", s(&sweep), "--out", s(&d)]);
    assert!(o.status.success(), "{}", stderr(&o));
    fs::write(d.join("results.jsonl"), "my notes\n").unwrap();
    let o = losslab(
        t.path(),
        &["run", s(&example("three-drops.toml")), "--out", s(&d)],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        fs::read_to_string(d.join("results.jsonl")).unwrap(),
        "my notes\n"
    );
    let o = losslab(t.path(), &["sweep", s(&sweep), "--out", s(&d)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        fs::read_to_string(d.join("results.jsonl")).unwrap(),
        "my notes\n"
    );
}

/// Review 4: a new sweep that fails part-way (here its first results line
/// cannot be written) leaves its own sweep, never its sweep.toml beside
/// an earlier sweep's tables.
#[cfg(unix)]
#[test]
fn a_new_sweep_that_fails_never_sits_beside_the_old_tables() {
    let t = tempfile::tempdir().unwrap();
    let sweep = sweep_file(t.path());
    let d = t.path().join("d");
    let o = losslab(t.path(), &["sweep", s(&sweep), "--out", s(&d)]);
    assert!(o.status.success());
    let other = t.path().join("other.toml");
    fs::write(
        &other,
        "scenario = \"base.toml\"\nset = [\"duration=3s\"]\n[axes]\n\"path.loss.p\" = [0.01]\n",
    )
    .unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_losslab"));
    c.args(["sweep", s(&other), "--out", s(&d), "--no-progress"])
        .current_dir(t.path());
    full_disk(&mut c);
    let o = c.output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        fs::read_to_string(d.join("sweep.toml")).unwrap(),
        fs::read_to_string(&other).unwrap()
    );
    for f in TABLES {
        assert!(
            !d.join(f).exists(),
            "{f} of the earlier sweep is still there"
        );
    }
}

/// Review 6: a sub-folder the user replaced by a link (to their thesis's
/// figures) is never written or deleted through.
#[cfg(unix)]
#[test]
fn nothing_is_written_or_deleted_through_a_link_in_the_folder() {
    use std::os::unix::fs::symlink;
    let t = tempfile::tempdir().unwrap();
    let sc = example("three-drops.toml");
    let d = t.path().join("d");
    let o = losslab(t.path(), &["run", s(&sc), "--out", s(&d), "--plot"]);
    assert!(o.status.success());
    let figs = t.path().join("thesis/figs");
    fs::create_dir_all(t.path().join("thesis")).unwrap();
    fs::rename(d.join("plots"), &figs).unwrap();
    symlink(&figs, d.join("plots")).unwrap();
    let before = files(&figs);
    assert!(!before.is_empty());
    let o = losslab(t.path(), &["run", s(&sc), "--out", s(&d)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(files(&figs), before, "deleted through the link");
    let o = losslab(t.path(), &["run", s(&sc), "--out", s(&d), "--plot"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("link"), "{}", stderr(&o));
    assert_eq!(files(&figs), before);
}

/// Review 7: a scenario kept inside losslab's own folder is refused, not
/// cleared away with it.
#[test]
fn an_input_inside_the_losslab_folder_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let sc = example("three-drops.toml");
    let d = t.path().join("d");
    assert!(losslab(t.path(), &["run", s(&sc), "--out", s(&d)])
        .status
        .success());
    let mine = d.join(".losslab/mine.toml");
    fs::copy(&sc, &mine).unwrap();
    let o = losslab(t.path(), &["run", s(&mine), "--out", s(&d)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(mine.exists());
}

/// Review 8, 11, 15: a sweep grid of 10^8 points, a scenario that never
/// ends (/dev/zero) and a seed axis are bad input, at once.
#[test]
fn grids_endless_files_and_seed_axes_are_refused() {
    let t = tempfile::tempdir().unwrap();
    let sc = example("three-drops.toml");
    let mut bomb = format!("scenario = {:?}\n[axes]\n", s(&sc));
    for i in 0..8 {
        bomb.push_str(&format!("\"flow.a.k{i}\" = [0,1,2,3,4,5,6,7,8,9]\n"));
    }
    let f = t.path().join("bomb.toml");
    fs::write(&f, bomb).unwrap();
    let o = losslab(t.path(), &["sweep", s(&f), "--out", "b"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("100000000 points"), "{}", stderr(&o));
    if Path::new("/dev/zero").exists() {
        let o = losslab(t.path(), &["run", "/dev/zero"]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("MiB"), "{}", stderr(&o));
    }
    let seeds = t.path().join("seeds.toml");
    fs::write(
        &seeds,
        format!(
            "scenario = {:?}\nseeds = [1, 2]\n[axes]\n\"seed\" = [5, 6]\n",
            s(&sc)
        ),
    )
    .unwrap();
    let o = losslab(t.path(), &["sweep", s(&seeds), "--out", "x"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("seeds"), "{}", stderr(&o));
}

/// Review 12 and 17: an ordinary sized flow with pictures is not refused,
/// and the limit a refusal suggests is one --max-memory reads.
#[test]
fn the_guard_passes_ordinary_runs_and_suggests_a_readable_limit() {
    let t = tempfile::tempdir().unwrap();
    let sc = example("tail-drop.toml");
    let o = losslab(
        t.path(),
        &[
            "run",
            s(&sc),
            "--set",
            "path.rate=10Gbps",
            "--set",
            "duration=60s",
            "--plot",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = losslab(
        t.path(),
        &[
            "run",
            s(&example("bulk-20mbps.toml")),
            "--set",
            "flow.a.count=1000000",
        ],
    );
    let e = stderr(&o);
    let suggested = e
        .split("--max-memory ")
        .nth(2)
        .unwrap()
        .trim_end_matches([')', '\n']);
    let o2 = losslab(
        t.path(),
        &["run", s(&sc), "--max-memory", suggested, "--out", "ok"],
    );
    assert!(o2.status.success(), "{suggested}: {}", stderr(&o2));
}

/// Second review: a file name that is not UTF-8 is a name like any other
/// (it panicked), and no output folder lies in a `.losslab`.
#[test]
fn odd_names_and_losslab_folders_as_outputs() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let t = tempfile::tempdir().unwrap();
    let sc = t.path().join(OsStr::from_bytes(b"sc\xe9n.toml"));
    fs::copy(example("three-drops.toml"), &sc).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_losslab"))
        .arg("run")
        .arg(&sc)
        .arg("--out")
        .arg(OsStr::from_bytes(b"nu\xfe"))
        .arg("--no-progress")
        .current_dir(t.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(t
        .path()
        .join(OsStr::from_bytes(b"nu\xfe/summary.json"))
        .exists());
    // A --pcap folder inside --out must be nameable in the manifest.
    let o = Command::new(env!("CARGO_BIN_EXE_losslab"))
        .arg("run")
        .arg(&sc)
        .args(["--out", "nu", "--pcap"])
        .arg(OsStr::from_bytes(b"nu/\xff"))
        .current_dir(t.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));

    let sc = example("three-drops.toml");
    let o = losslab(t.path(), &["run", s(&sc), "--out", "pb"]);
    assert!(o.status.success(), "{}", stderr(&o));
    fs::create_dir(t.path().join("lk")).unwrap();
    std::os::unix::fs::symlink(t.path().join("pb"), t.path().join("lk/pb")).unwrap();
    for pcap in [
        "pb/.losslab",
        "pb/.losslab/scratch",
        "lk/pb/.losslab/x",
        "o/.losslab/stage",
    ] {
        for force in [false, true] {
            let mut args = vec!["run", s(&sc), "--out", "o", "--pcap", pcap];
            if force {
                args.push("--force");
            }
            let o = losslab(t.path(), &args);
            assert_eq!(o.status.code(), Some(2), "{pcap}: {}", stderr(&o));
            assert!(stderr(&o).contains("a .losslab folder"), "{}", stderr(&o));
        }
    }
    assert!(!t.path().join("o").exists());
    assert_eq!(
        files(&t.path().join("pb/.losslab")),
        ["lock", "manifest.json"]
    );
}

/// Second review: a conflict in the `--pcap` folder is found before the
/// run's own results move, so they are not left new beside old pcaps.
#[test]
fn every_folder_of_a_command_is_checked_before_any_moves() {
    let t = tempfile::tempdir().unwrap();
    let sc = example("three-drops.toml");
    let run = |seed: &str| {
        losslab(
            t.path(),
            &["run", s(&sc), "--out", "o", "--pcap", "p", "--seed", seed],
        )
    };
    assert!(run("1").status.success());
    let summary = fs::read(t.path().join("o/summary.json")).unwrap();
    let pcap = fs::read_dir(t.path().join("p"))
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().ends_with(".pcap"))
        .unwrap()
        .path();
    fs::OpenOptions::new()
        .append(true)
        .open(&pcap)
        .unwrap()
        .write_all(b"x")
        .unwrap();
    let o = run("2");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("is not the file losslab wrote"),
        "{}",
        stderr(&o)
    );
    assert_eq!(fs::read(t.path().join("o/summary.json")).unwrap(), summary);
}

/// Second review: a manifest of a later format is not read as this one's
/// (and rewritten), and a broken one says how to go on.
#[test]
fn a_manifest_losslab_cannot_read_is_refused_with_a_way_out() {
    let t = tempfile::tempdir().unwrap();
    let sc = example("three-drops.toml");
    assert!(losslab(t.path(), &["run", s(&sc), "--out", "o"])
        .status
        .success());
    let m = t.path().join("o/.losslab/manifest.json");
    let text = fs::read_to_string(&m).unwrap();
    let later = text.replacen("\"format\": 1", "\"format\": 999", 1);
    assert_ne!(later, text);
    fs::write(&m, &later).unwrap();
    let o = losslab(t.path(), &["run", s(&sc), "--out", "o", "--seed", "2"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("newer losslab"), "{}", stderr(&o));
    assert_eq!(fs::read_to_string(&m).unwrap(), later);
    fs::write(&m, "{").unwrap();
    let o = losslab(t.path(), &["run", s(&sc), "--out", "o", "--seed", "2"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("move .losslab out of the folder"),
        "{}",
        stderr(&o)
    );
}
