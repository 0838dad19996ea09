//! The `losslab` binary as a user runs it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_losslab"))
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run(args: &[&str]) -> Output {
    bin().args(args).current_dir(root()).output().expect("runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn run_writes_summary_and_prints_a_table() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = run(&[
        "run",
        "examples/bulk-20mbps.toml",
        "--out",
        out,
        "--timeseries",
        "--set",
        "duration=5s",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("newreno/rfc6675/dupthresh/rto"), "{stdout}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("summary.json")).unwrap())
            .unwrap();
    // Every documented field of SCENARIO.md's results document.
    for k in [
        "scenario",
        "seed",
        "sim_time_s",
        "wall_time_s",
        "events",
        "path",
        "flows",
    ] {
        assert!(summary.get(k).is_some(), "missing {k}");
    }
    for k in ["utilization", "drops", "max_queue_bytes"] {
        assert!(summary["path"].get(k).is_some(), "missing path.{k}");
    }
    let f = &summary["flows"][0];
    for k in [
        "name",
        "cc",
        "recovery",
        "detection",
        "timers",
        "bytes_delivered",
        "goodput_bps",
        "fct_s",
        "segments_sent",
        "retransmissions",
        "spurious_retransmissions",
        "timeouts",
        "fast_recoveries",
        "tail_probes",
        "max_retransmissions_of_one_segment",
        "rtt_ms",
        "recoveries",
    ] {
        assert!(f.get(k).is_some(), "missing flows[0].{k}");
    }
    for k in ["min", "mean", "p99"] {
        assert!(f["rtt_ms"].get(k).is_some());
    }
    let rec = &f["recoveries"][0];
    for k in [
        "start_s",
        "end_s",
        "kind",
        "cwnd_before",
        "cwnd_after",
        "ssthresh",
        "pipe_minus_ssthresh_at_start",
        "link_utilization",
    ] {
        assert!(rec.get(k).is_some(), "missing recoveries[0].{k}");
    }
    assert_eq!(summary["sim_time_s"], 5.0);
    let ts = std::fs::read_to_string(dir.path().join("timeseries.csv")).unwrap();
    let mut lines = ts.lines();
    assert_eq!(
        lines.next().unwrap(),
        "time_s,flow,cwnd,ssthresh,pipe,inflight,srtt_ms,rto_ms,snd_una,snd_nxt,pacing_mbps"
    );
    assert!(lines.count() > 100);
}

#[test]
fn json_flag_prints_only_json_and_is_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let go = || {
        let o = run(&[
            "run",
            "examples/gilbert-elliott.toml",
            "--json",
            "--out",
            out,
            "--seed",
            "7",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let mut v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("pure JSON");
        v["wall_time_s"] = 0.into();
        v
    };
    let a = go();
    assert_eq!(a["seed"], 7);
    assert_eq!(a, go());
}

#[test]
fn set_overrides_change_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = run(&[
        "run",
        "examples/tail-drop.toml",
        "--json",
        "--out",
        out,
        "--set",
        "flow.a.receiver.ack=quick",
        "--set",
        "path.delay=40ms",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let min = v["flows"][0]["rtt_ms"]["min"].as_f64().unwrap();
    assert!((80.0..90.0).contains(&min), "RTT follows path.delay: {min}");
}

fn bad(args: &[&str], must_mention: &[&str]) {
    let o = run(args);
    assert_eq!(o.status.code(), Some(2), "args {args:?}: {}", stderr(&o));
    let e = stderr(&o);
    for m in must_mention {
        assert!(
            e.contains(m),
            "stderr for {args:?} should mention {m:?}: {e}"
        );
    }
    assert!(!e.contains("panicked"), "{e}");
}

#[test]
fn bad_input_exits_2_naming_file_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let base = "[path]\nrate = \"10Mbps\"\ndelay = \"10ms\"\n[[flow]]\nname = \"a\"\n";
    let f = write("unit.toml", &base.replace("10Mbps", "10 furlongs"));
    bad(&["run", &f], &["unit.toml", "path.rate"]);
    let f = write("unknown.toml", &format!("{base}colour = \"red\"\n"));
    bad(&["run", &f], &["unknown.toml", "colour"]);
    let f = write("alg.toml", &format!("{base}recovery = \"nonsense\"\n"));
    bad(&["run", &f], &["alg.toml", "recovery"]);
    let f = write(
        "prob.toml",
        &base.replace(
            "delay = \"10ms\"",
            "delay = \"10ms\"\nloss = { model = \"bernoulli\", p = 1.5 }",
        ),
    );
    bad(&["run", &f], &["prob.toml", "path.loss.p"]);
    let f = write(
        "chunks.toml",
        &base.replace(
            "name = \"a\"\n",
            "name = \"a\"\napp = { kind = \"chunks\", file = \"1GB\", chunk = \"1 MB per chunk\" }\n",
        ),
    );
    bad(&["run", &f], &["chunks.toml", "flow.a.app.chunk"]);
    let f = write("syntax.toml", "[path\nrate=");
    bad(&["run", &f], &["syntax.toml"]);
    bad(&["run", "does/not/exist.toml"], &["does/not/exist.toml"]);
    let f = write("ok.toml", base);
    bad(&["run", &f, "--set", "path.delay=soon"], &["path.delay"]);
    bad(&["run", &f, "--set", "flow.zz.mss=1000B"], &["zz"]);
}

#[test]
fn scenario_md_example_keys_parse() {
    // The contract's example as SCENARIO.md gives it.
    let text = r#"
name = "cubic-prr-20mbps"
duration = "2s"
seed = 1
[path]
rate = "20Mbps"
delay = "50ms"
queue = "4.3MB"
loss = { model = "bernoulli", p = 0.001 }
protect_retransmissions = false
reorder = { p = 0.0, delay = "0ms" }
[reverse]
delay = "50ms"
loss = { model = "none" }
[[flow]]
name = "a"
start = "0s"
cc = "cubic"
recovery = "prr"
detection = "rack"
timers = "rto"
extensions = []
mss = "1448B"
init_cwnd = 10
min_rto = "200ms"
app = { kind = "bulk" }
sndbuf = "auto"
receiver = { ack = "delayed", sack_blocks = 3, rcvbuf = "16MB", read_rate = "inf" }
count = 1
"#;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("contract.toml");
    std::fs::write(&p, text).unwrap();
    let o = run(&[
        "run",
        p.to_str().unwrap(),
        "--json",
        "--out",
        dir.path().join("out").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn bench_reference_runs() {
    let o = run(&["bench", "--seconds", "2", "--reference-only", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v[0]["packets_per_s"].as_f64().unwrap() > 0.0);
    assert!(v[0]["data_packets"].as_u64().unwrap() > 500);
}

#[test]
fn model_prints_the_papers_table_1_column_and_the_stall_bounds() {
    // The defaults are the paper's Numerical parameters at n = 10.
    let o = run(&["model"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    let line = |start: &str| {
        text.lines()
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("no line {start:?}: {text}"))
            .to_string()
    };
    // Table 1, n = 10: every original 0.054; with OR RH 0.75, QARR 1.
    assert!(line("prr ").contains("0.054"), "{text}");
    assert!(line("rate-halving").contains("94.60"), "{text}");
    assert!(text.contains("w/ OR        25.00        0.750"), "{text}");
    assert!(text.contains("Theorem 9"), "{text}");
    assert!(text.contains("83.33 < b_free <= 111.11 packets"), "{text}");
    // Theorem 10's 55% for CUBIC, Table 1's RH at n = 100 (ours 0.400).
    let o = run(&["model", "--beta", "0.7", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("pure JSON");
    assert!((v["stall"]["share"].as_f64().unwrap() - 0.55).abs() < 1e-9);
    assert!((v["stall"]["min_grow_factor"].as_f64().unwrap() - 2.55).abs() < 1e-9);
    let o = run(&["model", "--burst", "100", "--awnd", "250kB", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rh = &v["algorithms"][1];
    assert_eq!(rh["name"], "rate-halving");
    assert!((rh["original"]["utilization"].as_f64().unwrap() - 0.4).abs() < 1e-9);
    assert!(
        (v["algorithms"][2]["original"]["utilization"]
            .as_f64()
            .unwrap()
            - 0.594)
            .abs()
            < 1e-9
    );
}

#[test]
fn model_bad_flags_exit_2_naming_the_flag_and_form() {
    bad(
        &["model", "--burst", "ten"],
        &["--burst \"ten\"", "whole number"],
    );
    bad(&["model", "--rate", "20Mbit"], &["--rate", "\"20Mbps\""]);
    bad(&["model", "--beta", "0"], &["--beta", "(0, 1]"]);
    bad(&["model", "--awnd", "100pkt"], &["--awnd", "AW >= C*U"]);
    bad(&["model", "--delay", "fast"], &["--delay", "200ms"]);
}

/// A scenario no machine runs to its end during a test: 10 Gbit/s
/// loss-free for 20 simulated hours (60 s of it take several wall
/// seconds), so Ctrl-C always finds it unfinished, however fast the
/// machine. Under a day: no warning.
fn long_scenario(dir: &Path) -> PathBuf {
    let sc = dir.join("long.toml");
    std::fs::write(
        &sc,
        "duration = \"20h\"\n[path]\nrate = \"10Gbps\"\ndelay = \"50ms\"\nqueue = \"125MB\"\n\
         [[flow]]\nname = \"a\"\nreceiver = { rcvbuf = \"500MB\" }\n",
    )
    .unwrap();
    sc
}

/// Only guards against a hang: nothing waits this long unless broken.
const DEADLINE: std::time::Duration = std::time::Duration::from_secs(120);

/// Waits until process `pid` catches SIGINT (its Ctrl-C handler is in
/// place: /proc's SigCgt mask has bit SIGINT - 1), so that Ctrl-C stops
/// the run rather than killing the process, however slowly it started.
fn wait_for_ctrl_c_handler(child: &mut std::process::Child) {
    let status = format!("/proc/{}/status", child.id());
    let started = std::time::Instant::now();
    loop {
        let caught = std::fs::read_to_string(&status)
            .ok()
            .and_then(|s| {
                let mask = s.lines().find_map(|l| l.strip_prefix("SigCgt:"))?;
                u64::from_str_radix(mask.trim(), 16).ok()
            })
            .is_some_and(|mask| mask & (1 << (libc::SIGINT - 1)) != 0);
        if caught {
            return;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "exited before catching Ctrl-C"
        );
        assert!(
            started.elapsed() < DEADLINE,
            "no Ctrl-C handler after {DEADLINE:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Runs losslab with `args`, sends Ctrl-C once its handler is in place
/// (and `ready` says the run got far enough), and waits.
fn interrupted(args: &[&str], ready: impl Fn() -> bool) -> Output {
    let mut child = bin()
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_ctrl_c_handler(&mut child);
    let started = std::time::Instant::now();
    while !ready() {
        assert!(child.try_wait().unwrap().is_none(), "exited early");
        assert!(started.elapsed() < DEADLINE, "not ready after {DEADLINE:?}");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    child.wait_with_output().unwrap()
}

#[test]
fn interrupt_writes_partial_results() {
    let dir = tempfile::tempdir().unwrap();
    let sc = long_scenario(dir.path());
    let out = dir.path().join("out");
    // Data has flowed once the time series has written its first
    // buffer (it is written as the run goes, into the folder's stage
    // until the run ends: docs/RELIABILITY.md).
    let ts = out.join(".losslab/stage/timeseries.csv");
    let o = interrupted(
        &[
            "run",
            sc.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--timeseries",
        ],
        || std::fs::metadata(&ts).is_ok_and(|m| m.len() > 0),
    );
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    assert!(stderr(&o).contains("partial results"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(v["interrupted"], true);
    let t = v["sim_time_s"].as_f64().unwrap();
    assert!(t > 0.0 && t < 72_000.0, "stopped part-way: {t}");
    assert!(v["flows"][0]["bytes_delivered"].as_u64().unwrap() > 0);
}

#[test]
fn report_pcap_and_replot() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let pcap = dir.path().join("pcap");
    let o = run(&[
        "run",
        "examples/tail-drop.toml",
        "--out",
        out.to_str().unwrap(),
        "--pcap",
        pcap.to_str().unwrap(),
        "--pcap-receiver",
        "--report",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for f in [
        "summary.json",
        "scenario.toml",
        "timeseries.csv",
        "packets.csv",
        "index.html",
        "plots/tsg-a.svg",
        "plots/tsg-a.png",
        "plots/cwnd-a.svg",
        "plots/rtt-a.png",
    ] {
        let p = out.join(f);
        assert!(
            p.metadata().map(|m| m.len() > 0).unwrap_or(false),
            "missing or empty {f}"
        );
    }
    for f in ["a.sender.pcap", "a.receiver.pcap"] {
        assert!(pcap.join(f).exists(), "missing {f}");
    }
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("plots/tsg-a.svg") && html.contains("tail-drop"));
    let sc = std::fs::read_to_string(out.join("scenario.toml")).unwrap();
    assert!(sc.starts_with("# as run by: losslab run examples/tail-drop.toml"));
    // The packet log shows the tail drop and its retransmission.
    let log = std::fs::read_to_string(out.join("packets.csv")).unwrap();
    assert!(
        log.lines()
            .any(|l| l.contains(",data,loss_drop,13032,1448,1,")),
        "drop row"
    );
    assert!(
        log.lines().any(|l| l.contains(",data,sent,13032,1448,2,")),
        "retransmission row"
    );

    // Re-plot a window of the finished run without simulating again.
    std::fs::remove_dir_all(out.join("plots")).unwrap();
    let o = run(&[
        "plot",
        out.to_str().unwrap(),
        "--flow",
        "a",
        "--from",
        "0",
        "--to",
        "0.3",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.join("plots/tsg-a.png").exists());
    // Bad requests exit 2 with the reason.
    bad(
        &["plot", out.to_str().unwrap(), "--flow", "nope"],
        &["nope"],
    );
    bad(
        &["plot", out.to_str().unwrap(), "--from", "2", "--to", "1"],
        &["--from"],
    );
    bad(&["plot", dir.path().to_str().unwrap()], &["summary.json"]);
}

#[test]
fn plot_without_traces_says_which_flag_to_use() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let o = run(&[
        "run",
        "examples/tail-drop.toml",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    bad(
        &["plot", out.to_str().unwrap()],
        &["--trace", "--timeseries"],
    );
}

/// tshark is installed by .ci/run; elsewhere set LOSSLAB_SKIP_TSHARK to skip.
fn tshark_available() -> bool {
    if Command::new("tshark").arg("-v").output().is_ok() {
        return true;
    }
    if std::env::var_os("LOSSLAB_SKIP_TSHARK").is_some() {
        return false;
    }
    panic!("install tshark: apt-get install -y tshark (or set LOSSLAB_SKIP_TSHARK)");
}

#[test]
fn every_example_gives_pcaps_wireshark_reads_cleanly() {
    if !tshark_available() {
        return;
    }
    for ex in std::fs::read_dir(root().join("examples")).unwrap() {
        let ex = ex.unwrap().path();
        // examples/sweeps holds sweep files, not scenarios.
        if ex.is_dir() {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let pcap = dir.path().join("pcap");
        let o = run(&[
            "run",
            ex.to_str().unwrap(),
            "--json",
            "--out",
            dir.path().to_str().unwrap(),
            "--pcap",
            pcap.to_str().unwrap(),
            "--pcap-receiver",
            "--set",
            "duration=5s",
        ]);
        assert!(o.status.success(), "{}: {}", ex.display(), stderr(&o));
        let res: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        for f in res["flows"].as_array().unwrap() {
            let name = f["name"].as_str().unwrap();
            for side in ["sender", "receiver"] {
                let file = pcap.join(format!("{name}.{side}.pcap"));
                let bad = Command::new("tshark")
                    .args(["-r", file.to_str().unwrap(), "-o", "ip.check_checksum:TRUE"])
                    .args(["-Y", "_ws.malformed || _ws.expert.severity == error"])
                    .output()
                    .unwrap();
                assert!(
                    bad.status.success(),
                    "{}",
                    String::from_utf8_lossy(&bad.stderr)
                );
                assert!(
                    bad.stdout.is_empty(),
                    "{}: {}",
                    file.display(),
                    String::from_utf8_lossy(&bad.stdout)
                );
            }
            // Wireshark counts the same retransmissions as the engine.
            let rtx = Command::new("tshark")
                .args(["-r", pcap.join(format!("{name}.sender.pcap")).to_str().unwrap()])
                .args(["-Y", "tcp.analysis.retransmission || tcp.analysis.fast_retransmission || tcp.analysis.spurious_retransmission || tcp.analysis.out_of_order"])
                .output()
                .unwrap();
            let flagged = String::from_utf8_lossy(&rtx.stdout).lines().count() as u64;
            assert_eq!(
                flagged,
                f["retransmissions"].as_u64().unwrap(),
                "{} flow {name}",
                ex.display()
            );
        }
    }
}

/// Issue 10, found as a new user: a reused --out kept the earlier run's
/// trace and pictures, which `losslab plot` then drew under the new run.
#[test]
fn a_reused_out_directory_keeps_nothing_of_the_earlier_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let o = run(&[
        "run",
        "examples/tail-drop.toml",
        "--out",
        out.to_str().unwrap(),
        "--plot",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.join("packets.csv").exists() && out.join("plots").is_dir());
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let o = run(&[
        "run",
        "examples/tail-drop.toml",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.join("summary.json").exists());
    for stale in ["packets.csv", "timeseries.csv", "plots"] {
        assert!(
            !out.join(stale).exists(),
            "{stale} left from the earlier run"
        );
    }
    assert!(
        out.join("notes.txt").exists(),
        "files losslab does not own stay"
    );
    // `losslab plot --out` puts the pictures elsewhere.
    let o = run(&[
        "run",
        "examples/tail-drop.toml",
        "--out",
        out.to_str().unwrap(),
        "--trace",
        "--timeseries",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let pics = dir.path().join("pics");
    let o = run(&[
        "plot",
        out.to_str().unwrap(),
        "--out",
        pics.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read_dir(&pics).unwrap().count() > 0);
    assert!(!out.join("plots").exists());
}

#[test]
fn the_effective_scenario_and_the_path_are_stored() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let o = run(&[
        "run",
        "examples/tail-drop.toml",
        "--out",
        out.to_str().unwrap(),
        "--set",
        "path.delay=77ms",
        "--seed",
        "9",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let stored = std::fs::read_to_string(out.join("scenario.toml")).unwrap();
    assert!(stored.contains("delay = \"77ms\""), "{stored}");
    assert!(stored.contains("seed = 9"), "{stored}");
    // It runs again as it is.
    let again = dir.path().join("again");
    let o = run(&[
        "run",
        out.join("scenario.toml").to_str().unwrap(),
        "--out",
        again.to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let c = &v["path"]["config"];
    assert_eq!(c["rate_bps"], 10_000_000);
    assert!((c["delay_s"].as_f64().unwrap() - 0.077).abs() < 1e-9);
    assert_eq!(c["queue"], "100pkt");
    assert!(c["loss"].as_str().unwrap().contains("tail = 1"), "{c}");
}

#[test]
fn output_piped_into_a_closed_reader_ends_quietly() {
    use std::io::Read;
    let out = tempfile::tempdir().unwrap();
    let mut child = bin()
        .args([
            "run",
            "examples/bulk-20mbps.toml",
            "--set",
            "duration=5s",
            "--out",
        ])
        .arg(out.path())
        .current_dir(root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The reader goes away before the table is printed, as `| head -0`.
    drop(child.stdout.take());
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(!err.contains("panicked"), "{err}");
    assert_ne!(status.code(), Some(101), "{err}");
}

#[test]
fn an_absurd_duration_warns_and_ctrl_c_stops_it_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let sc = dir.path().join("forever.toml");
    std::fs::write(
        &sc,
        "duration = \"1000000000s\"\n[path]\nrate = \"1Gbps\"\ndelay = \"10ms\"\n[[flow]]\nname = \"a\"\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let mut child = bin()
        .args(["run", sc.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_ctrl_c_handler(&mut child);
    let sent = std::time::Instant::now();
    assert!(Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap()
        .success());
    let o = child.wait_with_output().unwrap();
    let took = sent.elapsed();
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    // Noticed within 5,000 events, well under a millisecond; the bound
    // only tells that from the old defect (84 s, a share of the duration),
    // with room for a machine under any load.
    assert!(
        took < std::time::Duration::from_secs(60),
        "stopped after {took:?}"
    );
    assert!(stderr(&o).contains("over a day"), "{}", stderr(&o));
    let summary = std::fs::metadata(out.join("summary.json")).unwrap().len();
    assert!(summary < 1_000_000, "{summary} bytes");
}

#[test]
fn unknown_names_offer_only_what_runs() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(&[
        "run",
        "examples/tail-drop.toml",
        "--out",
        dir.path().to_str().unwrap(),
        "--set",
        "flow.a.recovery=prr-classic",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("rate-halving") && e.contains("prr-6937"), "{e}");
    assert!(e.contains("qarr") && e.contains("barr"), "{e}");
    // Every name the contract reserved runs since issue 16, LE's last.
    for name in ["reno", "newreno", "le"] {
        assert!(e.contains(name), "{e} lacks {name}");
    }
}

/// `--seeds`: one run per seed, aggregated in seed order, so the output
/// is byte-identical whatever `--jobs` is; every seed's results are kept
/// and agree with a single run of that seed.
#[test]
fn seeds_give_statistics_that_do_not_depend_on_jobs() {
    let dirs: Vec<_> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
    for (d, jobs) in dirs.iter().zip(["1", "3"]) {
        let o = run(&[
            "run",
            "examples/bulk-20mbps.toml",
            "--seeds",
            "1..6",
            "--jobs",
            jobs,
            "--set",
            "duration=5s",
            "--out",
            d.path().to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(
            stdout.contains("6 seeds") && stdout.contains("95% CI"),
            "{stdout}"
        );
    }
    for f in ["summary.json", "runs.csv"] {
        let a = std::fs::read(dirs[0].path().join(f)).unwrap();
        let b = std::fs::read(dirs[1].path().join(f)).unwrap();
        assert!(a == b, "{f} differs between --jobs 1 and 3");
    }
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dirs[0].path().join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(doc["seeds"], serde_json::json!([1, 2, 3, 4, 5, 6]));
    assert_eq!(doc["runs"].as_array().unwrap().len(), 6);
    // The aggregate's goodput is the mean of the per-seed goodputs, inside
    // its own interval.
    let per_seed: Vec<f64> = doc["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["flows"][0]["goodput_bps"].as_f64().unwrap())
        .collect();
    let flow = doc["aggregate"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["scope"] == "a")
        .unwrap();
    let g = &flow["metrics"]["goodput_bps"];
    let mean = per_seed.iter().sum::<f64>() / 6.0;
    assert!((g["mean"].as_f64().unwrap() - mean).abs() < 1e-6 * mean);
    assert_eq!(g["n"], 6);
    let ci = g["ci95"].as_array().unwrap();
    assert!(ci[0].as_f64().unwrap() < mean && mean < ci[1].as_f64().unwrap());
    assert_eq!(g["ci_method"], "student-t");
    assert_eq!(flow["metrics"]["rtt_ms.p99"]["ci_method"], "bootstrap");
    // Seed 4 of the set equals a run with --seed 4 (but for wall time).
    let one = run(&[
        "run",
        "examples/bulk-20mbps.toml",
        "--seed",
        "4",
        "--set",
        "duration=5s",
        "--json",
    ]);
    let mut single: serde_json::Value = serde_json::from_slice(&one.stdout).unwrap();
    single.as_object_mut().unwrap().remove("wall_time_s");
    assert_eq!(doc["runs"][3], single);
    // The tidy table: a header and one row per seed x scope x metric.
    let csv = std::fs::read_to_string(dirs[0].path().join("runs.csv")).unwrap();
    assert!(csv.starts_with("seed,flow,metric,value\n"));
    assert!(csv.contains("\n4,a,goodput_bps,"), "{csv}");
}

#[test]
fn bad_seed_lists_exit_2_before_any_run() {
    bad(
        &["run", "examples/bulk-20mbps.toml", "--seeds", "5..1"],
        &["--seeds 5..1", "empty"],
    );
    bad(
        &["run", "examples/bulk-20mbps.toml", "--seeds", "0"],
        &["--seeds"],
    );
    bad(
        &[
            "run",
            "examples/bulk-20mbps.toml",
            "--seeds",
            "3",
            "--seed",
            "4",
        ],
        &["--seed"],
    );
    bad(
        &[
            "run",
            "examples/bulk-20mbps.toml",
            "--seeds",
            "3",
            "--jobs",
            "0",
        ],
        &["--jobs"],
    );
    bad(&["reproduce", "prr", "--quick", "--jobs", "0"], &["--jobs"]);
}

#[test]
fn interrupted_seeds_keep_the_finished_ones() {
    // No seed of the long scenario finishes: Ctrl-C comes before any,
    // whatever the machine.
    let dir = tempfile::tempdir().unwrap();
    let sc = long_scenario(dir.path());
    let out = dir.path().join("out");
    let o = interrupted(
        &[
            "run",
            sc.to_str().unwrap(),
            "--seeds",
            "1..4",
            // One thread: the test binary runs other tests beside this
            // one on CI's two cores.
            "--jobs",
            "1",
            "--out",
            out.to_str().unwrap(),
        ],
        || true,
    );
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    assert!(stderr(&o).contains("seeds finished"), "{}", stderr(&o));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(v["interrupted"], true);
    // Runs cut short are not averaged in.
    assert_eq!(v["runs"].as_array().unwrap().len(), 0);
    assert_eq!(v["finished_seeds"].as_array().unwrap().len(), 0);
}

/// Writes a sweep file over examples/bulk-20mbps.toml into `dir`.
fn sweep_file(dir: &Path, body: &str) -> PathBuf {
    let base = root().join("examples/bulk-20mbps.toml");
    let p = dir.join("s.toml");
    std::fs::write(
        &p,
        format!(
            "scenario = {:?}\nset = [\"duration=3s\"]\n{body}",
            base.to_str().unwrap()
        ),
    )
    .unwrap();
    p
}

#[test]
fn a_sweep_runs_the_grid_over_seeds_whatever_the_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let f = sweep_file(
        dir.path(),
        "seeds = \"1..3\"\n[axes]\n\"path.loss.p\" = [0.0005, 0.002]\n\"flow.a.recovery\" = [\"prr\", \"rate-halving\"]\n",
    );
    let outs: Vec<PathBuf> = ["1", "2"]
        .iter()
        .map(|jobs| {
            let out = dir.path().join(format!("out{jobs}"));
            let o = run(&[
                "sweep",
                f.to_str().unwrap(),
                "--jobs",
                jobs,
                "--out",
                out.to_str().unwrap(),
            ]);
            assert!(o.status.success(), "{}", stderr(&o));
            let stdout = String::from_utf8_lossy(&o.stdout);
            assert!(
                stdout.contains("4 points x 3 seeds, 12 runs done"),
                "{stdout}"
            );
            out
        })
        .collect();
    for name in [
        "runs.csv",
        "runs.parquet",
        "summary.csv",
        "summary.parquet",
        "summary.json",
    ] {
        let a = std::fs::read(outs[0].join(name)).unwrap();
        let b = std::fs::read(outs[1].join(name)).unwrap();
        assert!(a == b, "{name} differs between --jobs 1 and 2");
        if name.ends_with(".parquet") {
            assert!(a.starts_with(b"PAR1") && a.ends_with(b"PAR1"), "{name}");
        }
    }
    let runs = std::fs::read_to_string(outs[0].join("runs.csv")).unwrap();
    assert!(
        runs.starts_with("point,seed,path.loss.p,flow.a.recovery,"),
        "{runs}"
    );
    assert_eq!(runs.lines().count(), 1 + 4 * 3);
    // The first axis varies slowest.
    assert!(runs
        .lines()
        .nth(4)
        .unwrap()
        .starts_with("1,1,0.0005,rate-halving,"));
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(outs[0].join("summary.json")).unwrap()).unwrap();
    let p3 = &doc["points"][3];
    assert_eq!(p3["coordinates"]["path.loss.p"], 0.002);
    assert_eq!(p3["coordinates"]["flow.a.recovery"], "rate-halving");
    assert_eq!(p3["finished_seeds"], serde_json::json!([1, 2, 3]));
    // A point's aggregate is that of `run --seeds` with the same values.
    let o = run(&[
        "run",
        "examples/bulk-20mbps.toml",
        "--seeds",
        "1..3",
        "--set",
        "duration=3s",
        "--set",
        "path.loss.p=0.002",
        "--set",
        "flow.a.recovery=rate-halving",
        "--json",
    ]);
    let single: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(p3["aggregate"], single["aggregate"]);
    // compare shows each point as a column.
    let o = run(&["compare", outs[0].to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("(4) ") && text.contains("[3]"), "{text}");
}

#[test]
fn a_zip_sweep_pairs_the_values() {
    let dir = tempfile::tempdir().unwrap();
    let f = sweep_file(
        dir.path(),
        "mode = \"zip\"\nseeds = 2\n[axes]\n\"path.loss.p\" = [0.0005, 0.002]\n\"path.delay\" = [\"20ms\", \"80ms\"]\n",
    );
    let out = dir.path().join("out");
    let o = run(&["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let runs = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    assert_eq!(runs.lines().count(), 1 + 2 * 2);
    assert!(runs.contains("\n1,2,0.002,80ms,"), "{runs}");
    // Its plots: each metric against the first axis, with CI bands.
    let o = run(&["plot", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    for f in [
        "sweep-a-goodput_bps.png",
        "sweep-a-goodput_bps.svg",
        "sweep-a-rtt_ms-p99.png",
    ] {
        let p = out.join("plots").join(f);
        assert!(
            std::fs::metadata(&p)
                .map(|m| m.len() > 1000)
                .unwrap_or(false),
            "{}",
            p.display()
        );
    }
}

#[test]
fn bad_sweeps_exit_2_naming_the_file_and_key() {
    let dir = tempfile::tempdir().unwrap();
    for (body, mention) in [
        ("[axes]\n\"path.nonsense\" = [1, 2]\n", "nonsense"),
        ("[axes]\n\"path.loss.p\" = []\n", "empty"),
        (
            "seeds = \"5..1\"\n[axes]\n\"path.loss.p\" = [0.01]\n",
            "seeds",
        ),
        (
            "mode = \"zip\"\n[axes]\n\"path.loss.p\" = [0.01, 0.02]\n\"path.delay\" = [\"20ms\"]\n",
            "one length",
        ),
        ("colour = 1\n[axes]\n\"path.loss.p\" = [0.01]\n", "colour"),
    ] {
        let f = sweep_file(dir.path(), body);
        bad(
            &["sweep", f.to_str().unwrap()],
            &[f.to_str().unwrap(), mention],
        );
    }
    // A Ray head nobody runs (port 1 on loopback): exit 2 naming the
    // address, before anything is written.
    let f = sweep_file(dir.path(), "[axes]\n\"path.loss.p\" = [0.01]\n");
    let out = dir.path().join("never");
    bad(
        &[
            "sweep",
            f.to_str().unwrap(),
            "--ray",
            "127.0.0.1:1",
            "--out",
            out.to_str().unwrap(),
        ],
        &["--ray 127.0.0.1:1", "cannot reach"],
    );
    assert!(!out.exists());
}

#[test]
fn a_sweep_may_hold_its_scenario_inline() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("inline.toml");
    std::fs::write(
        &f,
        "seeds = 2\n[axes]\n\"flow.a.recovery\" = [\"prr\", \"rfc6675\"]\n\n\
         [scenario]\nname = \"inline\"\nduration = \"2s\"\n\
         path = { rate = \"10Mbps\", delay = \"20ms\", queue = \"100pkt\", loss = { model = \"bernoulli\", p = 0.01 } }\n\
         flow = [{ name = \"a\", app = { kind = \"bulk\" } }]\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let o = run(&["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let runs = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    assert_eq!(runs.lines().count(), 1 + 2 * 2, "{runs}");
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert!(doc["scenario"]
        .as_str()
        .unwrap()
        .ends_with("inline.toml [scenario]"));
}

#[test]
fn an_invalid_point_is_reported_and_the_sweep_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let f = sweep_file(
        dir.path(),
        "[axes]\n\"path.rate\" = [\"0Mbps\", \"20Mbps\"]\n",
    );
    let out = dir.path().join("out");
    let o = run(&["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("[0] path.rate=0Mbps: invalid"), "{stdout}");
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert!(doc["points"][0]["error"].is_string());
    assert_eq!(
        doc["points"][1]["finished_seeds"].as_array().unwrap().len(),
        1
    );
    bad(
        &[
            "sweep",
            f.to_str().unwrap(),
            "--fail-fast",
            "--out",
            out.to_str().unwrap(),
        ],
        &["path.rate"],
    );
}

#[test]
fn a_resumed_sweep_runs_only_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let f = sweep_file(
        dir.path(),
        "seeds = \"1..2\"\n[axes]\n\"path.loss.p\" = [0.0005, 0.002]\n",
    );
    let out = dir.path().join("out");
    let full = dir.path().join("full");
    for o in [&out, &full] {
        let r = run(&["sweep", f.to_str().unwrap(), "--out", o.to_str().unwrap()]);
        assert!(r.status.success(), "{}", stderr(&r));
    }
    // As if Ctrl-C had come after two runs: keep two lines.
    let jsonl = out.join("results.jsonl");
    let text = std::fs::read_to_string(&jsonl).unwrap();
    let kept: Vec<&str> = text.lines().take(2).collect();
    std::fs::write(&jsonl, format!("{}\n", kept.join("\n"))).unwrap();
    let r = run(&[
        "sweep",
        f.to_str().unwrap(),
        "--resume",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", stderr(&r));
    for name in ["runs.csv", "summary.csv", "summary.json"] {
        assert_eq!(
            std::fs::read(out.join(name)).unwrap(),
            std::fs::read(full.join(name)).unwrap(),
            "{name}"
        );
    }
    assert_eq!(std::fs::read_to_string(&jsonl).unwrap().lines().count(), 4);
    // A changed sweep file is not resumed.
    std::fs::write(
        &f,
        std::fs::read_to_string(&f)
            .unwrap()
            .replace("0.002", "0.003"),
    )
    .unwrap();
    bad(
        &[
            "sweep",
            f.to_str().unwrap(),
            "--resume",
            "--out",
            out.to_str().unwrap(),
        ],
        &["--resume", "changed"],
    );
}

#[test]
fn compare_puts_runs_side_by_side_and_marks_significant_differences() {
    let dir = tempfile::tempdir().unwrap();
    let mut outs = Vec::new();
    for loss in ["0.0005", "0.02"] {
        let out = dir.path().join(loss);
        let o = run(&[
            "run",
            "examples/bulk-20mbps.toml",
            "--seeds",
            "1..5",
            "--set",
            "duration=5s",
            "--set",
            &format!("path.loss.p={loss}"),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        outs.push(out);
    }
    let o = run(&[
        "compare",
        outs[0].to_str().unwrap(),
        outs[1].to_str().unwrap(),
        "--metric",
        "goodput_bps",
        "--metric",
        "retransmissions",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    // 40x the loss: far fewer bytes through, and a significant difference.
    let line = text.lines().find(|l| l.contains("goodput_bps")).unwrap();
    assert!(line.contains("(n 5)") && line.contains(" * p="), "{text}");
    let ratio: f64 = line
        .split(" x")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(ratio < 0.5, "{text}");
    // A directory that holds no results: exit 2 naming it.
    bad(
        &["compare", dir.path().to_str().unwrap()],
        &["summary.json"],
    );
}

#[test]
fn run_with_out_writes_rbb_csv_and_the_files_results() {
    let dir = tempfile::tempdir().unwrap();
    let sc = dir.path().join("chunks.toml");
    std::fs::write(
        &sc,
        r#"
duration = "20s"
[path]
rate = "50Mbps"
delay = "20ms"
loss = { model = "bernoulli", p = 0.002 }
[[flow]]
name = "a"
app = { kind = "chunks", file = "20MB", chunk = "1MB", connections = 3 }
"#,
    )
    .unwrap();
    let out = dir.path().join("out");
    let o = run(&["run", sc.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("file a: 20.00 MB in 20 chunks"), "{stdout}");
    assert!(stdout.contains("rbb.csv"), "{stdout}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let file = &summary["files"][0];
    assert_eq!(file["flow"], "a");
    assert_eq!(file["connections"], 3);
    assert_eq!(file["chunks_completed"], 20);
    let csv = std::fs::read_to_string(out.join("rbb.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("time_s,flow,bubbles,rcvbuf_bytes"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert!(rows.iter().all(|r| r.len() == 4));
    // One row per sample of each connection, as the results count them.
    for (i, f) in summary["flows"].as_array().unwrap().iter().enumerate() {
        let name = format!("a.{}", i + 1);
        assert_eq!(f["name"], name.as_str());
        let n = rows.iter().filter(|r| r[1] == name).count() as u64;
        assert_eq!(f["rbb"]["samples"].as_u64(), Some(n), "{name}");
        let nonzero = rows.iter().filter(|r| r[1] == name && r[2] != "0").count() as u64;
        assert_eq!(
            f["rbb"]["nonzero_samples"].as_u64(),
            Some(nonzero),
            "{name}"
        );
    }
    // The first sample of every flow is one base RTT (40 ms) after start.
    assert_eq!(rows[0][0], "0.040000000");
}

/// Seeds are TOML integers, so 9223372036854775807 is the largest: every
/// way of giving one past it exits 2 saying so, naming what gave it
/// (before, `--seeds` passed them on to fail with "got the string").
#[test]
fn seeds_past_the_largest_exit_2_saying_the_largest() {
    let dir = tempfile::tempdir().unwrap();
    let max = "9223372036854775807";
    let sc = "examples/three-drops.toml";
    bad(
        &[
            "run",
            sc,
            "--seeds",
            "9223372036854775807..9223372036854775808",
        ],
        &["--seeds", "largest seed allowed is 9223372036854775807"],
    );
    bad(
        &["run", sc, "--seeds", "1,9223372036854775808"],
        &["--seeds", "largest seed allowed is 9223372036854775807"],
    );
    bad(
        &["run", sc, "--seed", "9223372036854775808"],
        &["--seed", max],
    );
    bad(
        &["run", sc, "--set", "seed=9223372036854775808"],
        &["--set seed=9223372036854775808", "largest seed allowed"],
    );
    let f = dir.path().join("big-seed.toml");
    let text = std::fs::read_to_string(root().join(sc)).unwrap();
    std::fs::write(&f, format!("seed = 9223372036854775808\n{text}")).unwrap();
    bad(
        &["run", f.to_str().unwrap()],
        &["big-seed.toml", "largest seed allowed", max],
    );
    // The largest itself runs, given either way.
    for args in [["--seed", max], ["--seeds", "9223372036854775807,1"]] {
        let out = dir.path().join(args[0]);
        let o = run(&["run", sc, args[0], args[1], "--out", out.to_str().unwrap()]);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    }
}

/// `--rate 1bps --awnd 1pkt --burst 1` printed a utilization of -60000:
/// a window of under one packet after the reduction is outside the
/// model, and refused naming the flag and the least window.
#[test]
fn model_refuses_a_window_below_one_packet_after_the_reduction() {
    bad(
        &["model", "--rate", "1bps", "--awnd", "1pkt", "--burst", "1"],
        &["--awnd \"1pkt\"", "beta*AW >= 1", "AW >= 2.00 packets"],
    );
    bad(
        &["model", "--rate", "1bps"],
        &["--rate \"1bps\"", "--delay", "beta*AW >= 1"],
    );
    let o = run(&[
        "model", "--rate", "1bps", "--awnd", "2pkt", "--burst", "1", "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// A summary.json or results.jsonl that is not losslab's exits 2 naming
/// the file (and the line) and what is wrong, instead of a column of "-".
#[test]
fn compare_refuses_malformed_results_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good");
    let o = run(&[
        "run",
        "examples/three-drops.toml",
        "--out",
        good.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let good = good.to_str().unwrap();
    for (i, (summary, why)) in [
        (
            r#"{"runs": [{"flows": 1}]}"#,
            "runs[0]: no whole-number \"seed\"",
        ),
        (
            r#"{"runs": [{"seed": 1, "flows": 1}]}"#,
            "runs[0]: no list of \"flows\"",
        ),
        (
            r#"{"points": [{}]}"#,
            "points[0] has no whole-number \"point\"",
        ),
        (r#"{"points": 3}"#, "\"points\" is a number"),
        (r#"{"seed": 1, "flows": [{}]}"#, "flows[0] has no \"name\""),
        (r#"{"flows": []}"#, "no whole-number \"seed\""),
        ("[1, 2]", "a list, not an object"),
        (r#"{"scenario": "x", "se"#, "not JSON"),
    ]
    .into_iter()
    .enumerate()
    {
        let bad_dir = dir.path().join(format!("bad{i}"));
        std::fs::create_dir(&bad_dir).unwrap();
        std::fs::write(bad_dir.join("summary.json"), summary).unwrap();
        let named = format!("bad{i}/summary.json");
        bad(
            &["compare", good, bad_dir.to_str().unwrap()],
            &[&named, why],
        );
    }

    // A sweep: its results.jsonl is read the same way.
    let f = sweep_file(
        dir.path(),
        "seeds = \"1..2\"\n[axes]\n\"path.loss.p\" = [0.001]\n",
    );
    let sweep = dir.path().join("sweep");
    let o = run(&[
        "sweep",
        f.to_str().unwrap(),
        "--out",
        sweep.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let jsonl = sweep.join("results.jsonl");
    let records = std::fs::read_to_string(&jsonl).unwrap();
    let first = records.lines().next().unwrap().to_string();
    let sweep = sweep.to_str().unwrap();
    let ok = run(&["compare", good, sweep]);
    assert!(ok.status.success(), "{}", stderr(&ok));
    // A last line cut by a kill is skipped, as the sweep's --resume does.
    std::fs::write(&jsonl, format!("{records}{}", &first[..first.len() / 2])).unwrap();
    let cut = run(&["compare", good, sweep]);
    assert!(cut.status.success(), "{}", stderr(&cut));
    assert_eq!(cut.stdout, ok.stdout);
    for (text, why) in [
        (
            format!("garbage\n{records}"),
            ":1: not a run record of losslab sweep (not JSON",
        ),
        (
            format!("{records}{{\"point\": 5, \"seed\": 1, \"results\": {{}}}}\n"),
            ":3: not a run record of losslab sweep (point 5, but summary.json lists 1 point)",
        ),
        (
            format!("{records}{{\"point\": 0, \"seed\": 1}}\n"),
            ":3: not a run record of losslab sweep (results: null",
        ),
    ] {
        std::fs::write(&jsonl, text).unwrap();
        bad(&["compare", good, sweep], &["results.jsonl", why]);
    }
    std::fs::remove_file(&jsonl).unwrap();
    bad(&["compare", good, sweep], &["results.jsonl"]);
}

/// `run`, failing if the command has not ended after two minutes: a
/// guard against a hang (the old `losslab plot` looped forever on an
/// infinite value), not a measure of speed.
fn run_or_hang(args: &[&str]) -> Output {
    let mut child = bin()
        .args(args)
        .current_dir(root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("losslab {args:?} hangs");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn plot_refuses_a_number_that_is_not_finite_naming_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let o = run(&[
        "run",
        "examples/three-drops.toml",
        "--out",
        out.to_str().unwrap(),
        "--plot",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let ts = out.join("timeseries.csv");
    let clean = std::fs::read_to_string(&ts).unwrap();
    let mut lines: Vec<String> = clean.lines().map(String::from).collect();
    let mut f: Vec<&str> = lines[63].split(',').collect();
    f[7] = "inf";
    lines[63] = f.join(",");
    std::fs::write(&ts, lines.join("\n") + "\n").unwrap();
    let o = run_or_hang(&["plot", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("timeseries.csv:64: column rto_ms") && e.contains("not a finite number"),
        "{e}"
    );
    // The folder is not left locked: with the file mended, it plots.
    std::fs::write(&ts, clean).unwrap();
    let o = run_or_hang(&["plot", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn a_sweep_plots_flows_named_with_slashes_and_absurd_intervals() {
    let dir = tempfile::tempdir().unwrap();
    // `a/b` and `a_b` are both valid names, and both `a_b` as files.
    let sc = dir.path().join("slash.toml");
    std::fs::write(
        &sc,
        "name = \"slash\"\nduration = \"2s\"\n[path]\nrate = \"20Mbps\"\ndelay = \"20ms\"\nqueue = \"100pkt\"\nloss = { model = \"bernoulli\", p = 0.001 }\n[[flow]]\nname = \"a/b\"\napp = { kind = \"bytes\", size = \"200000B\" }\n[[flow]]\nname = \"a_b\"\napp = { kind = \"bytes\", size = \"200000B\" }\n",
    )
    .unwrap();
    let sw = dir.path().join("s.toml");
    std::fs::write(
        &sw,
        format!(
            "scenario = {:?}\nseeds = 2\n[axes]\n\"path.loss.p\" = [0.0, 0.01]\n",
            sc.to_str().unwrap()
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    let o = run(&[
        "sweep",
        sw.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run_or_hang(&["plot", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let plots = out.join("plots");
    let svg = |stem: &str| {
        std::fs::read_to_string(plots.join(format!("sweep-{stem}-goodput_bps.svg")))
            .unwrap_or_else(|e| panic!("sweep-{stem}-goodput_bps.svg: {e}"))
    };
    // The file-safe name keeps itself; the other gets its index.
    assert!(svg("a_b").contains("flow a_b:"));
    assert!(svg("a_b-0").contains("flow a/b:"));

    // A CI as wide as f64 allows on every metric (goodput's is scaled
    // to Mbit/s; retransmissions' is drawn as it is): the band is not
    // drawn, the picture is.
    let path = out.join("summary.json");
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for p in doc["points"].as_array_mut().unwrap() {
        for s in p["aggregate"].as_array_mut().unwrap() {
            for m in s["metrics"].as_object_mut().unwrap().values_mut() {
                if m.get("ci95").is_some() {
                    m["ci95"] = serde_json::json!([-1e308, 1e308]);
                }
            }
        }
    }
    std::fs::write(&path, serde_json::to_string(&doc).unwrap()).unwrap();
    let o = run_or_hang(&["plot", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(svg("a_b").contains("flow a_b:"));
    assert!(plots.join("sweep-a_b-retransmissions.png").exists());
}

/// A bad mahimahi trace (issue 34) stops the run with exit 2, naming the
/// scenario's key, the trace's file and its line.
#[test]
fn a_bad_trace_exits_2_naming_its_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("drive.trace");
    std::fs::write(&trace, "1\n2\n2\n1\n").unwrap();
    let sc = dir.path().join("s.toml");
    std::fs::write(
        &sc,
        "duration = \"1s\"\n[path]\nrate = { trace = \"drive.trace\" }\ndelay = \"10ms\"\n[[flow]]\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    bad(
        &["run", sc.to_str().unwrap(), "--out", out.to_str().unwrap()],
        &["path.rate.trace", "drive.trace, line 4", "1 ms after 2 ms"],
    );
    assert!(!out.exists(), "nothing written for a refused scenario");
}

/// `losslab trace generate` makes the traces shipped in traces/ byte for
/// byte (their README gives each command), refuses to overwrite a file,
/// and `losslab trace info` reads one back.
#[test]
fn shipped_traces_are_what_trace_generate_makes() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &[&str]); 4] = [
        (
            "constant-12mbps.trace",
            &["constant", "--rate", "12Mbps", "--duration", "10s"],
        ),
        (
            "on-off-24mbps.trace",
            &[
                "on-off",
                "--rate",
                "24Mbps",
                "--on",
                "800ms",
                "--off",
                "200ms",
                "--duration",
                "10s",
            ],
        ),
        (
            "lte-markov-1.trace",
            &["markov", "--seed", "1", "--duration", "30s"],
        ),
        (
            "lte-markov-2.trace",
            &["markov", "--seed", "2", "--duration", "30s"],
        ),
    ];
    for (name, args) in cases {
        let out = dir.path().join(name);
        let mut all = vec!["trace", "generate"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--out", out.to_str().unwrap()]);
        let o = run(&all);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let shipped = std::fs::read(root().join("traces").join(name)).unwrap();
        assert!(
            std::fs::read(&out).unwrap() == shipped,
            "{name} differs from traces/{name}"
        );
        // The file exists now: a second run refuses and leaves it alone.
        bad(&all, &["exists"]);
        assert!(std::fs::read(&out).unwrap() == shipped);
    }
    let o = run(&["trace", "info", "traces/lte-markov-1.trace", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["opportunities"], 28_082);
    assert_eq!(v["length_s"], 30.0);
    assert_eq!(v["min_rate_bps"], 0);
    // A trace whose text would pass the 64 MiB losslab reads is refused
    // before a byte is written (7.2 million lines of ten-digit times).
    let big = dir.path().join("big.trace");
    bad(
        &[
            "trace",
            "generate",
            "constant",
            "--rate",
            "24kbps",
            "--duration",
            "1000h",
            "--out",
            big.to_str().unwrap(),
        ],
        &["MiB"],
    );
    assert!(!big.exists());
    let broken = dir.path().join("broken.trace");
    std::fs::write(&broken, "5\n4\n").unwrap();
    bad(
        &["trace", "info", broken.to_str().unwrap()],
        &["broken.trace, line 2"],
    );
}
