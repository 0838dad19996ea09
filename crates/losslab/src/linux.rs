//! `losslab linux FILE`: the scenario's flows through real Linux TCP
//! across the emulator, reported like `losslab run`; `--compare` also
//! simulates it and prints both side by side.

use std::fmt::Write as _;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use losslab_net::linux::{self, LinuxOptions, TIMESERIES_HEADER};
use losslab_net::{sys, EmuError};
use losslab_sim::timeseries::TimeSeries;
use losslab_sim::{RunResults, Simulation};

use crate::scenario_args::{real_path_out, Overrides};
use crate::Failure;

#[derive(Args)]
pub struct LinuxArgs {
    /// Scenario file (TOML, see docs/SCENARIO.md).
    pub file: PathBuf,
    #[command(flatten)]
    pub overrides: Overrides,
    /// Output directory [default: out/<scenario name>-linux].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print the results document on stdout and nothing else (with
    /// --compare: {"linux": ..., "sim": ...}).
    #[arg(long)]
    pub json: bool,
    /// Also simulate the scenario and print both with ratios.
    #[arg(long)]
    pub compare: bool,
    /// Write a.pcap and b.pcap into DIR.
    #[arg(long, value_name = "DIR")]
    pub pcap: Option<PathBuf>,
    /// Emulator threads: 1 (both directions) or 2 (one per direction).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=2))]
    pub emu_threads: Option<u8>,
    /// TCP_INFO sampling period for timeseries.csv, in milliseconds.
    #[arg(long, default_value_t = 10)]
    pub sample_ms: u64,
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

pub fn linux(a: LinuxArgs) -> Result<(), Failure> {
    let scenario = a.overrides.load(&a.file)?;
    // Refuse what Linux cannot express before asking for root.
    linux::plan(&scenario).map_err(|e| Failure::BadInput(format!("{}: {e}", a.file.display())))?;
    let inputs = [a.file.as_path()];
    let dir = real_path_out("linux", a.out.as_deref(), &scenario, a.force, &inputs)?;
    dir.claim(&[
        "summary.json",
        "timeseries.csv",
        "health.json",
        "emulator.csv",
        "sim-summary.json",
        "sim-timeseries.csv",
    ])?;
    let (pcap_dir, pcap_own) = dir.nested(a.pcap.as_deref(), "--pcap", a.force, &inputs)?;
    let root = dir.root().to_path_buf();
    // Everything is written into the stage and moved into place at the end.
    let out = dir.stage();
    let cannot = |p: &Path, e: std::io::Error| {
        Failure::Runtime(format!("cannot write {}: {e}", p.display()))
    };
    // The simulated twin, with its own time series beside Linux's
    // (sim-timeseries.csv) so the two can be overlaid.
    let sim = if a.compare {
        let mut s = Simulation::new(&scenario)
            .map_err(|e| Failure::BadInput(format!("{}: {e}", a.file.display())))?;
        let p = out.join("sim-timeseries.csv");
        let ts = TimeSeries::create(&p, s.flow_names()).map_err(|e| cannot(&p, e))?;
        s.set_tracer(Box::new(ts));
        s.run();
        if let Some(mut t) = s.take_tracer() {
            t.finish().map_err(|e| cannot(&p, e))?;
        }
        Some(s.results())
    } else {
        None
    };
    sys::install_stop_handler();
    let opts = LinuxOptions {
        csv: Some(out.join("emulator.csv")),
        pcap_dir: pcap_dir.clone(),
        spin_ns: None,
        threads: a.emu_threads.map(|t| t as usize),
        sample_ns: a.sample_ms.max(1) * 1_000_000,
    };
    let o = linux::run(&scenario, &opts).map_err(emu_err)?;
    let summary = out.join("summary.json");
    let json = serde_json::to_string_pretty(&o.results).expect("results serialise");
    fs::write(&summary, format!("{json}\n")).map_err(|e| cannot(&summary, e))?;
    let ts = out.join("timeseries.csv");
    let mut text = format!("{TIMESERIES_HEADER}\n");
    for r in &o.timeseries {
        text.push_str(r);
        text.push('\n');
    }
    fs::write(&ts, text).map_err(|e| cannot(&ts, e))?;
    let health = out.join("health.json");
    let h = serde_json::json!({
        "emulator": o.emulator,
        "netstat_a": o.counters.iter().cloned().collect::<std::collections::BTreeMap<_, _>>(),
        "notes": o.notes,
    });
    fs::write(
        &health,
        format!("{}\n", serde_json::to_string_pretty(&h).expect("json")),
    )
    .map_err(|e| cannot(&health, e))?;
    if let Some(s) = &sim {
        let p = out.join("sim-summary.json");
        fs::write(
            &p,
            format!("{}\n", serde_json::to_string_pretty(s).expect("json")),
        )
        .map_err(|e| cannot(&p, e))?;
    }
    dir.commit_with(pcap_own)?;
    if a.json {
        let doc = match &sim {
            Some(s) => {
                serde_json::to_string_pretty(&serde_json::json!({"linux": o.results, "sim": s}))
                    .expect("json")
            }
            None => json,
        };
        let _ = writeln!(std::io::stdout().lock(), "{doc}");
    } else {
        match &sim {
            Some(s) => print!("{}", compare_table(&o.results, s)),
            None => print!("{}", crate::table::render(&o.results)),
        }
        print!("{}", o.emulator.render());
        for n in &o.notes {
            println!("note: {n}");
        }
        for w in [
            "summary.json",
            "timeseries.csv",
            "emulator.csv",
            "health.json",
        ] {
            println!("wrote {}", root.join(w).display());
        }
    }
    if o.emulator.health.log_records_lost > 0 {
        eprintln!(
            "warning: {} records are missing from emulator.csv and the pcaps: the logging thread fell behind",
            o.emulator.health.log_records_lost
        );
    }
    if o.emulator.kernel_drops() > 0 {
        eprintln!(
            "warning: the kernel dropped {} packets on the TUN devices: Linux saw losses the scenario did not ask for",
            o.emulator.kernel_drops()
        );
    }
    if o.results.interrupted {
        eprintln!("interrupted: partial results written");
        return Err(Failure::Interrupted);
    }
    Ok(())
}

fn ratio(l: f64, s: f64) -> String {
    if s == 0.0 {
        if l == 0.0 {
            "1.00".into()
        } else {
            "-".into()
        }
    } else {
        format!("{:.2}", l / s)
    }
}

/// Linux and the simulator side by side, flow by flow, with linux/sim.
pub fn compare_table(l: &RunResults, s: &RunResults) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "scenario {} (seed {}): real Linux vs losslab simulator",
        l.scenario, l.seed
    );
    let _ = writeln!(
        t,
        "{:<10} {:<22} {:>12} {:>12} {:>9}",
        "flow", "metric", "linux", "sim", "linux/sim"
    );
    for (fl, fs) in l.flows.iter().zip(&s.flows) {
        let rows: Vec<(&str, f64, f64, usize)> = vec![
            (
                "goodput Mbit/s",
                fl.goodput_bps / 1e6,
                fs.goodput_bps / 1e6,
                2,
            ),
            (
                "fct s",
                fl.fct_s.unwrap_or(f64::NAN),
                fs.fct_s.unwrap_or(f64::NAN),
                3,
            ),
            (
                "retransmissions",
                fl.retransmissions as f64,
                fs.retransmissions as f64,
                0,
            ),
            ("timeouts", fl.timeouts as f64, fs.timeouts as f64, 0),
            (
                "fast recoveries",
                fl.fast_recoveries as f64,
                fs.fast_recoveries as f64,
                0,
            ),
            (
                "tail probes",
                fl.tail_probes as f64,
                fs.tail_probes as f64,
                0,
            ),
            (
                "rtt mean ms",
                fl.rtt_ms.mean.unwrap_or(f64::NAN),
                fs.rtt_ms.mean.unwrap_or(f64::NAN),
                1,
            ),
        ];
        for (name, a, b, prec) in rows {
            if a.is_nan() && b.is_nan() {
                continue;
            }
            let r = if a.is_nan() || b.is_nan() {
                "-".into()
            } else {
                ratio(a, b)
            };
            let _ = writeln!(
                t,
                "{:<10} {:<22} {:>12.p$} {:>12.p$} {:>9}",
                fl.name,
                name,
                a,
                b,
                r,
                p = prec
            );
        }
    }
    let _ = writeln!(
        t,
        "{:<10} {:<22} {:>12} {:>12} {:>9}",
        "path",
        "data drops",
        l.path.drops,
        s.path.drops,
        ratio(l.path.drops as f64, s.path.drops as f64)
    );
    t
}
