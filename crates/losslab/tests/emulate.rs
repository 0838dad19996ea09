//! `losslab emulate` as a user runs it: exit codes, cleanup after Ctrl-C
//! and after SIGKILL. The namespace tests need root and /dev/net/tun and
//! say loudly when they are skipped.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::Mutex;
use std::time::{Duration, Instant};

static SERIAL: Mutex<()> = Mutex::new(());

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_losslab"))
}

const SCENARIO: &str = r#"
name = "emu-cli"
duration = "30s"
[path]
rate = "10Mbps"
delay = "5ms"
[[flow]]
name = "a"
"#;

fn scenario(dir: &Path) -> PathBuf {
    let p = dir.join("s.toml");
    std::fs::write(&p, SCENARIO).unwrap();
    p
}

fn skip() -> bool {
    if let Some(why) = losslab_net::unavailable() {
        eprintln!(
            "!!!!!! SKIPPED: losslab emulate tests need root and /dev/net/tun ({why}) !!!!!!"
        );
        return true;
    }
    false
}

fn namespaces_of(pid: u32) -> Vec<String> {
    losslab_net::netns::our_netns(Some(pid))
}

/// Only guards against a hang: nothing waits this long unless broken.
const DEADLINE: Duration = Duration::from_secs(120);

/// The processes in network namespace `ns` (`ip netns pids`): the
/// emulator's own threads that enter it are not processes, so in A's
/// namespace these are the A command and its children.
fn pids_in(ns: &str) -> Vec<String> {
    let o = Command::new("ip")
        .args(["netns", "pids", ns])
        .output()
        .unwrap();
    String::from_utf8_lossy(&o.stdout)
        .split_whitespace()
        .map(String::from)
        .collect()
}

fn a_namespace(names: &[String]) -> &str {
    names.iter().find(|n| n.ends_with("-a")).unwrap()
}

/// Waits until the emulator of `child` has created its namespaces and
/// started the A command in A's, however long that takes.
fn wait_for_the_a_command(child: &mut Child) -> Vec<String> {
    let t = Instant::now();
    loop {
        let n = namespaces_of(child.id());
        if n.len() == 2 && !pids_in(a_namespace(&n)).is_empty() {
            return n;
        }
        assert!(child.try_wait().unwrap().is_none(), "emulate exited early");
        assert!(
            t.elapsed() < DEADLINE,
            "the A command never started: namespaces {n:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn start(dir: &Path, a_cmd: &str) -> Child {
    bin()
        .args(["emulate"])
        .arg(scenario(dir))
        .args(["--a", a_cmd, "--out"])
        .arg(dir.join("out"))
        .spawn()
        .unwrap()
}

#[test]
fn a_bad_scenario_is_exit_2_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bad.toml");
    std::fs::write(
        &p,
        "[path]\nrate = \"fast\"\ndelay = \"5ms\"\n[[flow]]\nname = \"a\"\n",
    )
    .unwrap();
    let o = bin().arg("emulate").arg(&p).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("path.rate"), "{err}");
}

#[test]
fn the_a_command_runs_across_the_path_and_everything_is_removed() {
    if skip() {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    // A writes a file that proves {a} and {b} were substituted.
    let o = bin()
        .arg("emulate")
        .arg(scenario(dir.path()))
        .args(["--a", "echo {a} {b} > marker; exit 3", "--out"])
        .arg(dir.path().join("out"))
        .current_dir(dir.path())
        .output()
        .unwrap();
    // A's failure is a runtime failure of the run.
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("marker"))
            .unwrap()
            .trim(),
        "10.77.0.1 10.77.0.2"
    );
    let health: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("out/health.json")).unwrap())
            .unwrap();
    assert!(health["health"]["a_tx_dropped"].is_u64());
    assert!(losslab_net::netns::our_root_devices().is_empty());
}

#[test]
fn ctrl_c_stops_with_130_and_removes_everything() {
    if skip() {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let mut child = start(dir.path(), "sleep 60");
    let pid = child.id();
    wait_for_the_a_command(&mut child);
    // SAFETY: signalling our own child.
    unsafe { libc::kill(pid as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert!(
        namespaces_of(pid).is_empty(),
        "namespaces left: {:?}",
        namespaces_of(pid)
    );
    assert!(losslab_net::netns::our_root_devices().is_empty());
    assert!(
        dir.path().join("out/health.json").exists(),
        "partial results written"
    );
}

#[test]
fn a_killed_run_leaves_nothing_after_the_next_run_or_cleanup() {
    if skip() {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for next in ["cleanup", "run"] {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("alive");
        // The A command keeps touching a file while it lives.
        let mut child = start(
            dir.path(),
            &format!(
                "while true; do touch {}; sleep 0.05; done",
                marker.display()
            ),
        );
        let pid = child.id();
        let names = wait_for_the_a_command(&mut child);
        let t = Instant::now();
        while !marker.exists() {
            assert!(
                t.elapsed() < DEADLINE,
                "the A command never touched {marker:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        // SAFETY: signalling our own child.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        child.wait().unwrap();
        // The TUN devices died with the process's fds.
        assert!(losslab_net::netns::our_root_devices().is_empty());
        // The command inside died with its parent (PR_SET_PDEATHSIG): A's
        // namespace empties (its last `sleep 0.05` ends by itself); a
        // command that outlived the emulator would keep it busy.
        let t = Instant::now();
        while !pids_in(a_namespace(&names)).is_empty() {
            assert!(
                t.elapsed() < DEADLINE,
                "the A command outlived the killed emulator: {:?}",
                pids_in(a_namespace(&names))
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        // Only the namespaces remain, until the next run or --cleanup.
        assert_eq!(namespaces_of(pid), names);
        let o = if next == "cleanup" {
            bin().args(["emulate", "--cleanup"]).output().unwrap()
        } else {
            bin()
                .arg("emulate")
                .arg(scenario(dir.path()))
                .args(["--a", "true", "--out"])
                .arg(dir.path().join("out2"))
                .output()
                .unwrap()
        };
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(
            namespaces_of(pid).is_empty(),
            "after {next}: {:?}",
            namespaces_of(pid)
        );
    }
}
