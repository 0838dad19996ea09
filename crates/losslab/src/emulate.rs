//! `losslab emulate FILE`: the scenario's path between two network
//! namespaces, through TUN devices this process holds (losslab-net).

use std::fs;
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Args;
use losslab_net::emu::kill_tree;
use losslab_net::{netns, sys, EmuConfig, EmuError, Emulator, Host};

use crate::scenario_args::{real_path_out, Overrides};
use crate::Failure;

#[derive(Args)]
pub struct EmulateArgs {
    /// Scenario file (TOML, see docs/SCENARIO.md): its [path] and
    /// [reverse] sections are applied; flows name connections in the order
    /// they are first seen.
    #[arg(required_unless_present = "cleanup")]
    pub file: Option<PathBuf>,
    /// Command run in namespace A (the data sender's side) by `sh -c`,
    /// with {a} and {b} replaced by the addresses; the run ends when it
    /// exits. Without it the run lasts the scenario's duration.
    #[arg(long = "a", value_name = "CMD")]
    pub a: Option<String>,
    /// Command run in namespace B before A's starts (e.g. a server); it is
    /// stopped when the run ends.
    #[arg(long = "b", value_name = "CMD")]
    pub b: Option<String>,
    #[command(flatten)]
    pub overrides: Overrides,
    /// Output directory for emulator.csv and health.json
    /// [default: out/<scenario name>-emulate].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write a.pcap and b.pcap (as captured on each namespace's device)
    /// into DIR.
    #[arg(long, value_name = "DIR")]
    pub pcap: Option<PathBuf>,
    /// Print the report as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Wait this long after starting B's command before starting A's.
    #[arg(long, default_value = "200ms", value_name = "DURATION")]
    pub b_head_start: String,
    /// Spin this many microseconds before each deadline instead of
    /// trusting the timer's wake-up.
    #[arg(long, default_value_t = 100)]
    pub spin_us: u64,
    /// Emulator threads: 1 (both directions) or 2 (one per direction).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=2))]
    pub emu_threads: Option<u8>,
    /// Do not ask for SCHED_FIFO for the emulator thread.
    #[arg(long)]
    pub no_realtime: bool,
    /// Remove namespaces left behind by killed losslab runs, then exit.
    #[arg(long)]
    pub cleanup: bool,
    /// Write into an output folder losslab did not make. Files of yours
    /// are never deleted; the scenario file is never replaced.
    #[arg(long)]
    pub force: bool,
}

fn emu_err(e: EmuError) -> Failure {
    match e {
        EmuError::BadInput(m) => Failure::BadInput(m),
        EmuError::Runtime(m) => Failure::Runtime(m),
    }
}

pub fn emulate(a: EmulateArgs) -> Result<(), Failure> {
    if a.cleanup {
        for n in netns::sweep_stale() {
            println!("removed namespace {n}");
        }
        return Ok(());
    }
    let Some(file) = a.file.as_deref() else {
        return Err(Failure::BadInput(
            "a scenario FILE is required (or --cleanup)".into(),
        ));
    };
    let scenario = a.overrides.load(file)?;
    let head_start = losslab_sim::units::parse_duration(&a.b_head_start)
        .map_err(|e| Failure::BadInput(format!("--b-head-start: {e}")))?;
    let inputs = [file];
    let dir = real_path_out("emulate", a.out.as_deref(), &scenario, a.force, &inputs)?;
    dir.claim(&["emulator.csv", "health.json"])?;
    let (pcap_dir, pcap_own) = dir.nested(a.pcap.as_deref(), "--pcap", a.force, &inputs)?;
    let root = dir.root().to_path_buf();
    let out = dir.stage();
    let duration = scenario.duration;
    let mut cfg = EmuConfig::new(scenario);
    cfg.csv = Some(out.join("emulator.csv"));
    cfg.pcap_dir = pcap_dir;
    cfg.spin_ns = a.spin_us * 1000;
    cfg.realtime = !a.no_realtime;
    if let Some(t) = a.emu_threads {
        cfg.threads = t as usize;
    }
    sys::install_stop_handler();
    let emu = Emulator::start(cfg).map_err(emu_err)?;
    let res = drive(&emu, &a, head_start, duration);
    let report = emu.stop().map_err(emu_err)?;
    let json = serde_json::to_string_pretty(&report).expect("report serialises");
    let health = out.join("health.json");
    fs::write(&health, format!("{json}\n"))
        .map_err(|e| Failure::Runtime(format!("cannot write {}: {e}", health.display())))?;
    dir.commit_with(pcap_own)?;
    if a.json {
        let _ = writeln!(std::io::stdout().lock(), "{json}");
    } else {
        print!("{}", report.render());
        println!("wrote {}", root.join("emulator.csv").display());
        println!("wrote {}", root.join("health.json").display());
        if let Some(d) = &a.pcap {
            println!("wrote {}", d.display());
        }
    }
    if report.health.log_records_lost > 0 {
        eprintln!(
            "warning: {} records are missing from emulator.csv and the pcaps: the logging thread fell behind",
            report.health.log_records_lost
        );
    }
    if report.kernel_drops() > 0 {
        eprintln!(
            "warning: the kernel dropped {} packets on the TUN devices: the results include losses the scenario did not ask for",
            report.kernel_drops()
        );
    }
    res
}

/// Runs the commands; returns once A's exits, the duration passes, or a
/// signal arrives.
fn drive(emu: &Emulator, a: &EmulateArgs, head_start: u64, duration: u64) -> Result<(), Failure> {
    let spawn = |h: Host, cmd: &str| {
        emu.command(h, cmd)
            .and_then(|mut c| c.spawn())
            .map_err(|e| {
                Failure::Runtime(format!(
                    "cannot start {cmd:?} in namespace {}: {e}",
                    emu.ns_name(h)
                ))
            })
    };
    let mut b = match &a.b {
        Some(cmd) => Some(spawn(Host::B, cmd)?),
        None => None,
    };
    let start = Instant::now();
    if b.is_some() {
        while start.elapsed() < Duration::from_nanos(head_start) && sys::stop_signal() == 0 {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    let mut child = match &a.a {
        Some(cmd) if sys::stop_signal() == 0 => Some(spawn(Host::A, cmd)?),
        _ => None,
    };
    let mut status = None;
    loop {
        if sys::stop_signal() != 0 {
            break;
        }
        if let Some(c) = child.as_mut() {
            if let Ok(Some(s)) = c.try_wait() {
                status = Some(s);
                break;
            }
        } else if start.elapsed() >= Duration::from_nanos(duration) {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    if let Some(c) = child.as_mut() {
        kill_tree(c, Duration::from_millis(500));
    }
    if let Some(c) = b.as_mut() {
        kill_tree(c, Duration::from_millis(500));
    }
    if sys::stop_signal() != 0 {
        eprintln!("interrupted: partial results written");
        return Err(Failure::Interrupted);
    }
    match status {
        Some(s) if !s.success() => Err(Failure::Runtime(format!("the A command exited with {s}"))),
        _ => Ok(()),
    }
}
