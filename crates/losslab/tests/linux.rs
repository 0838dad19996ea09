//! `losslab linux` as a user runs it. The runs need root and
//! /dev/net/tun and say loudly when they are skipped; refusals do not.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_losslab"))
}

const SCENARIO: &str = r#"
name = "linux-cli"
duration = "20s"
[path]
rate = "20Mbps"
delay = "10ms"
queue = "200pkt"
loss = { model = "drop", flow = "a", packets = [30, 31] }
[[flow]]
name = "a"
cc = "cubic"
app = { kind = "bytes", size = "1448000B" }
"#;

/// The runs need root and /dev/net/tun; without them a test says so
/// loudly and passes.
fn skipped() -> bool {
    match losslab_net::unavailable() {
        Some(why) => {
            eprintln!("!!!!!! SKIPPED: losslab linux needs root and /dev/net/tun ({why}) !!!!!!");
            true
        }
        None => false,
    }
}

/// `losslab linux` on SCENARIO in `dir`, results in `dir/out`, with the
/// extra arguments.
fn run_linux(dir: &Path, extra: &[&str]) -> std::process::Output {
    bin()
        .arg("linux")
        .arg(write(dir, SCENARIO))
        .arg("--out")
        .arg(dir.join("out"))
        .args(extra)
        .output()
        .unwrap()
}

fn write(dir: &Path, text: &str) -> std::path::PathBuf {
    let p = dir.join("s.toml");
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn what_linux_cannot_express_is_exit_2_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    for (set, word) in [
        ("flow.a.recovery=rate-halving", "rate-halving"),
        ("flow.a.detection=fack", "fack"),
        ("flow.a.timers=rtor", "rtor"),
        ("flow.a.cc=fixed:20", "fixed"),
    ] {
        let o = bin()
            .arg("linux")
            .arg(write(dir.path(), SCENARIO))
            .args(["--set", set])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{set}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("flow a") && err.contains(word) && err.contains("Linux"),
            "{set}: {err}"
        );
    }
}

#[test]
fn strict_refuses_a_comparison_of_unlike_stacks_by_key_and_offers_the_profile() {
    // Refused before anything needs root: this runs everywhere.
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), SCENARIO);
    let o = bin()
        .arg("linux")
        .arg(&file)
        .args(["--compare", "--strict"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--strict")
            && err.contains("flow a: cc: sim cubic")
            && err.contains("flow a: recovery: sim prr")
            && err.contains("rto_rearm_on_head_retransmit")
            && err.contains("add profile = \"linux-6\"")
            && err.contains("--set flow.a.profile=linux-6"),
        "{err}"
    );
    // --strict is a --compare flag.
    let o = bin()
        .arg("linux")
        .arg(&file)
        .arg("--strict")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--compare"));
}

/// Every key path of a JSON document (array elements merged).
fn keys(v: &serde_json::Value, prefix: &str, out: &mut BTreeSet<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                let p = format!("{prefix}.{k}");
                out.insert(p.clone());
                keys(x, &p, out);
            }
        }
        serde_json::Value::Array(a) => {
            for x in a {
                keys(x, &format!("{prefix}[]"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn a_sized_flow_runs_through_linux_and_reports_in_the_run_shape() {
    if skipped() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = run_linux(dir.path(), &["--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let linux: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let sim = bin()
        .arg("run")
        .arg(dir.path().join("s.toml"))
        .arg("--out")
        .arg(dir.path().join("sim"))
        .arg("--json")
        .output()
        .unwrap();
    assert!(sim.status.success());
    let sim: serde_json::Value = serde_json::from_slice(&sim.stdout).unwrap();
    // The same document shape as `losslab run` (recoveries and the
    // bottleneck's recovery periods are not reported for Linux, so those
    // lists are empty).
    let (mut kl, mut ks) = (BTreeSet::new(), BTreeSet::new());
    keys(&linux, "", &mut kl);
    keys(&sim, "", &mut ks);
    ks.retain(|k| {
        !k.starts_with(".flows[].recoveries[]") && !k.starts_with(".flows[].recovery_periods[]")
    });
    assert_eq!(kl, ks);
    let f = &linux["flows"][0];
    assert_eq!(f["bytes_delivered"], 1_448_000);
    assert!(f["fct_s"].as_f64().unwrap() > 0.0);
    // Two data packets were dropped by the path: Linux retransmitted them.
    assert_eq!(linux["path"]["loss_drops"], 2);
    assert!(f["retransmissions"].as_u64().unwrap() >= 2, "{f}");
    let rtt = f["rtt_ms"]["min"].as_f64().unwrap();
    assert!((20.0..25.0).contains(&rtt), "min rtt {rtt}");
    // cwnd over time, in the simulator's timeseries.csv columns.
    let ts = std::fs::read_to_string(out.join("timeseries.csv")).unwrap();
    let mut lines = ts.lines();
    assert_eq!(
        lines.next().unwrap(),
        "time_s,flow,cwnd,ssthresh,pipe,inflight,srtt_ms,rto_ms,snd_una,snd_nxt,pacing_mbps"
    );
    let rows: Vec<&str> = lines.collect();
    assert!(rows.len() > 10);
    assert!(rows
        .iter()
        .all(|r| r.split(',').nth(1) == Some("a") && r.split(',').count() == 11));
    assert!(out.join("emulator.csv").exists() && out.join("health.json").exists());
}

#[test]
fn compare_prints_linux_and_the_simulator_side_by_side() {
    if skipped() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let o = run_linux(dir.path(), &["--compare"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(
        s.contains("linux/sim") && s.contains("goodput Mbit/s") && s.contains("retransmissions"),
        "{s}"
    );
    // The differences before the results, the divergence after them.
    let (diffs, rest) = s.split_once("scenario linux-cli").unwrap();
    assert!(
        diffs.contains("differ in 10 setting(s)")
            && diffs.contains("flow a: cc: sim cubic")
            && diffs.contains("[--set flow.a.cc=cubic-linux]"),
        "{diffs}"
    );
    assert!(
        rest.contains("flow a: data transmissions linux ")
            && (rest.contains("first divergence at transmission")
                || rest.contains("no divergence")),
        "{rest}"
    );
    assert!(dir.path().join("out/sim-summary.json").exists());
}

#[test]
fn compare_names_the_differences_and_reports_the_first_divergence() {
    if skipped() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let pcap = dir.path().join("out/pcap");
    let o = run_linux(
        dir.path(),
        &["--compare", "--json", "--pcap", pcap.to_str().unwrap()],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Without --strict the differences are a warning on stderr.
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("warning") && err.contains("flow a: rtt_sample"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["linux"].is_object() && v["sim"].is_object());
    let keys: Vec<&str> = v["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["key"].as_str().unwrap())
        .collect();
    assert!(
        keys.contains(&"cc") && keys.contains(&"receiver.grow_window"),
        "{keys:?}"
    );
    assert!(v["model_differences"].is_array());
    let d = &v["divergence"][0];
    assert_eq!(d["flow"], "a");
    assert!(d["linux_transmissions"].as_u64().unwrap() >= 1000, "{d}");
    assert!(d["sim_transmissions"].as_u64().unwrap() >= 1000, "{d}");
    for k in ["matched_share", "seq_matched_share"] {
        let share = d[k].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&share), "{k} {share}");
    }
    // With --pcap the kernel's ACK point comes from the ACKs themselves:
    // whole segments here (1,000 of 1,448 bytes).
    assert_eq!(d["linux_snd_una_from"], "pcap");
    let first = d.get("first_divergence").expect("first_divergence");
    if !first.is_null() {
        assert!(
            first["index"].is_u64() && first["reason"].is_string(),
            "{first}"
        );
        for side in ["linux", "sim"] {
            let x = &first[side];
            assert!(
                x.is_null() || (x["seq"].is_u64() && x["time_s"].is_f64()),
                "{x}"
            );
            if let Some(una) = x["snd_una"].as_u64() {
                assert_eq!(una % 1448, 0, "{side}: {x}");
            }
        }
    }
    assert!((d["tolerance_s"].as_f64().unwrap() - 0.0006).abs() < 1e-9);
}

/// Issue 34: the emulator plays a trace, in both directions, and
/// `--compare` sets the simulator beside Linux on the same varying link.
/// The data path carries 12.032 Mbit/s for 300 ms, then nothing for
/// 200 ms (7.2 Mbit/s on average); the ACKs have a 2 Mbit/s trace of their
/// own. Linux's goodput cannot pass the trace's mean, nor can the
/// simulator's; a run at the scenario's nominal constant rate would.
#[test]
fn compare_runs_both_stacks_over_the_same_trace() {
    if skipped() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let data: String = (201..=500).map(|m| format!("{m}\n")).collect();
    std::fs::write(dir.path().join("data.trace"), &data).unwrap();
    let acks: String = (1..=100)
        .filter(|m| m % 6 == 0)
        .map(|m| format!("{m}\n"))
        .collect();
    std::fs::write(dir.path().join("acks.trace"), &acks).unwrap();
    let sc = r#"
name = "linux-trace"
duration = "20s"
[path]
rate = { trace = "data.trace" }
delay = "10ms"
queue = "100pkt"
[reverse]
rate = { trace = "acks.trace" }
[[flow]]
name = "a"
profile = "linux-6"
app = { kind = "bytes", size = "4MB" }
"#;
    let o = bin()
        .arg("linux")
        .arg(write(dir.path(), sc))
        .arg("--out")
        .arg(dir.path().join("out"))
        .arg("--compare")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(
        s.contains("linux/sim") && s.contains("goodput Mbit/s"),
        "{s}"
    );
    let doc = |name: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("out").join(name)).unwrap())
            .unwrap()
    };
    let (linux, sim) = (doc("summary.json"), doc("sim-summary.json"));
    for d in [&linux, &sim] {
        let f = &d["flows"][0];
        assert_eq!(f["bytes_delivered"], 4_000_000, "{f}");
        let g = f["goodput_bps"].as_f64().unwrap();
        // 300 opportunities per 500 ms: 7.22 Mbit/s of wire bytes.
        assert!((3e6..7.3e6).contains(&g), "goodput {g}");
        assert!(d["path"]["config"]["trace"]
            .as_str()
            .unwrap()
            .ends_with("data.trace"));
        assert_eq!(d["path"]["config"]["reverse_rate_bps"], 2_005_333);
    }
}

#[test]
fn ctrl_c_writes_partial_results_exits_130_and_removes_the_namespaces() {
    if skipped() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        &SCENARIO.replace("app = { kind = \"bytes\", size = \"1448000B\" }", ""),
    );
    let out = dir.path().join("out");
    let mut child = bin()
        .arg("linux")
        .arg(&file)
        .arg("--out")
        .arg(&out)
        .spawn()
        .unwrap();
    let pid = child.id();
    let t = std::time::Instant::now();
    // Data has flowed once the emulator's log has written its first
    // buffer (1 MiB of records, about 2 s at 20 Mbit/s), however long the
    // start took; the deadline only guards against a hang. Results are
    // staged until the command ends (docs/RELIABILITY.md).
    let log = out.join(".losslab/stage/emulator.csv");
    while !std::fs::metadata(&log).is_ok_and(|m| m.len() > 0) {
        assert!(child.try_wait().unwrap().is_none(), "linux exited early");
        assert!(t.elapsed().as_secs() < 120, "no packets after 120 s");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // SAFETY: signalling our own child.
    unsafe { libc::kill(pid as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert!(losslab_net::netns::our_netns(Some(pid)).is_empty());
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(s["interrupted"], true);
    // A bulk flow stopped before its 20 s.
    let secs = s["sim_time_s"].as_f64().unwrap();
    assert!(secs < 20.0, "ran {secs} s");
    assert!(s["flows"][0]["bytes_delivered"].as_u64().unwrap() > 0);
}
