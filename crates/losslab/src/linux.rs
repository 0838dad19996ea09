//! `losslab linux FILE`: the scenario's flows through real Linux TCP
//! across the emulator, reported like `losslab run`; `--compare` also
//! simulates it and prints both side by side.

use std::fmt::Write as _;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use losslab_net::fidelity::{self, Difference, SendRecorder, SeqComparison};
use losslab_net::linux::{self, LinuxOptions, TIMESERIES_HEADER};
use losslab_net::{sys, EmuError};
use losslab_sim::timeseries::TimeSeries;
use losslab_sim::trace::Tee;
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
    /// Also simulate the scenario and print both with ratios, the
    /// settings the two sides do not share, and where their data
    /// transmissions part.
    #[arg(long)]
    pub compare: bool,
    /// With --compare: refuse (exit 2) when the simulator's flow differs
    /// from what the kernel runs in a setting a key can change.
    #[arg(long, requires = "compare")]
    pub strict: bool,
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
    let planned = linux::plan(&scenario)
        .map_err(|e| Failure::BadInput(format!("{}: {e}", a.file.display())))?;
    // What the two sides of --compare do not share, named before the run.
    let (diffs, model_diffs) = if a.compare {
        (
            fidelity::differences(&scenario),
            fidelity::model_differences(&scenario),
        )
    } else {
        (Vec::new(), Vec::new())
    };
    if a.strict && !diffs.is_empty() {
        let keys: Vec<String> = diffs
            .iter()
            .map(|d| format!("flow {}: {}", d.flow, d.key))
            .collect();
        return Err(Failure::BadInput(format!(
            "{}: --strict: the simulator and the kernel would run different settings ({}):\n{}fix: {}",
            a.file.display(),
            keys.join(", "),
            fidelity::render(&diffs),
            fidelity::fix_hint(&scenario)
        )));
    }
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
    if a.compare {
        let text = differences_text(&scenario, &diffs, &model_diffs);
        if a.json {
            if !diffs.is_empty() {
                eprint!("warning: {text}");
            }
        } else {
            print!("{text}");
            let _ = std::io::stdout().flush();
        }
    }
    // The simulated twin, with its own time series beside Linux's
    // (sim-timeseries.csv) so the two can be overlaid, and its data
    // transmissions kept for the divergence report.
    let mut sim_names = Vec::new();
    let mut sim_tx = Vec::new();
    let sim = if a.compare {
        let mut s = Simulation::new(&scenario)
            .map_err(|e| Failure::BadInput(format!("{}: {e}", a.file.display())))?;
        let p = out.join("sim-timeseries.csv");
        sim_names = s.flow_names();
        let ts = TimeSeries::create(&p, s.flow_names()).map_err(|e| cannot(&p, e))?;
        let rec = SendRecorder::new(sim_names.len());
        s.set_tracer(Box::new(Tee(vec![Box::new(ts), Box::new(rec.clone())])));
        s.run();
        if let Some(mut t) = s.take_tracer() {
            t.finish().map_err(|e| cannot(&p, e))?;
        }
        sim_tx = rec.take();
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
        // What the run's numbers depend on beyond the scenario: the
        // kernel, and the sysctls set from the scenario (tcp_rmem's
        // mapping depends on the kernel's version).
        "kernel": {
            "release": std::fs::read_to_string("/proc/sys/kernel/osrelease")
                .map(|r| r.trim().to_string())
                .ok(),
            "sysctls": planned.sysctls.iter().cloned().collect::<std::collections::BTreeMap<_, _>>(),
        },
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
    // Where the two runs' data transmissions part, from emulator.csv
    // (read before the stage moves into place). Not reading it costs the
    // report, not the results.
    let csv = out.join("emulator.csv");
    let kernel = match sim {
        Some(_) => fidelity::kernel_transmissions(&csv)
            .map_err(|e| {
                eprintln!(
                    "warning: cannot read {}: {e}; no divergence report",
                    csv.display()
                )
            })
            .ok(),
        None => None,
    };
    // With --pcap, the exact ACKs delivered to the sender (a.pcap).
    let acks = match (&kernel, &pcap_dir) {
        (Some(_), Some(d)) => fidelity::first_ab_enqueue(&csv)
            .ok()
            .flatten()
            .and_then(|t0| {
                fidelity::kernel_acks(&d.join("a.pcap"), t0, linux::BASE_PORT, sim_names.len())
                    .map_err(|e| {
                        eprintln!("warning: cannot read a.pcap: {e}; snd_una from TCP_INFO")
                    })
                    .ok()
            }),
        _ => None,
    };
    let divergence = if let Some(mut kernel) = kernel {
        let mss: Vec<u32> = losslab_sim::sim::expand_flows(&scenario.flows)
            .iter()
            .map(|f| f.mss)
            .collect();
        let mut v = Vec::new();
        for (i, name) in sim_names.iter().enumerate() {
            let mut l = kernel.remove(name).unwrap_or_default();
            let samples: Vec<(u64, u64, u64)> = o
                .state_samples
                .iter()
                .filter(|x| &x.0 == name)
                .map(|x| (x.1, x.2, x.3))
                .collect();
            fidelity::attach_samples(&mut l, &samples);
            let from_pcap = acks.as_ref().and_then(|a| a.get(i));
            if let Some(a) = from_pcap {
                fidelity::attach_acks(&mut l, a);
            }
            let tol =
                fidelity::packet_time_ns(mss.get(i).copied().unwrap_or(1448), scenario.path.rate);
            let s_tx = sim_tx.get(i).map_or(&[][..], |x| &x[..]);
            let mut c = fidelity::compare_sequences(&l, s_tx, tol);
            if from_pcap.is_some() {
                c.linux_snd_una_from = "pcap".into();
            }
            v.push((name.clone(), c));
        }
        v
    } else {
        Vec::new()
    };
    dir.commit_with(pcap_own)?;
    if a.json {
        let doc = match &sim {
            Some(s) => {
                let div: Vec<serde_json::Value> = divergence
                    .iter()
                    .map(|(n, c)| {
                        let mut v = serde_json::to_value(c).expect("json");
                        v["flow"] = serde_json::json!(n);
                        v
                    })
                    .collect();
                serde_json::to_string_pretty(&serde_json::json!({
                    "linux": o.results,
                    "sim": s,
                    "differences": diffs,
                    "model_differences": model_diffs,
                    "divergence": div,
                }))
                .expect("json")
            }
            None => json,
        };
        let _ = writeln!(std::io::stdout().lock(), "{doc}");
    } else {
        match &sim {
            Some(s) => {
                print!("{}", compare_table(&o.results, s));
                for (n, c) in &divergence {
                    print!("{}", divergence_text(n, c));
                }
            }
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

/// The differences list printed before a --compare run.
pub fn differences_text(sc: &losslab_sim::Scenario, d: &[Difference], m: &[Difference]) -> String {
    let mut t = String::new();
    if d.is_empty() {
        t.push_str("the simulator runs the settings the kernel runs (no differences; --strict would run)\n");
    } else {
        let _ = writeln!(
            t,
            "the simulator and the kernel differ in {} setting(s); the comparison is of unlike stacks:",
            d.len()
        );
        t.push_str(&fidelity::render(d));
        let _ = writeln!(t, "fix: {}", fidelity::fix_hint(sc));
        t.push_str("(--strict refuses to run while any of these remain)\n");
    }
    if !m.is_empty() {
        t.push_str("model differences no key removes (or the profile keeps):\n");
        t.push_str(&fidelity::render(m));
    }
    let _ = writeln!(
        t,
        "followed by the kernel (sysctls, route, socket options): {}",
        fidelity::FOLLOWED.join(", ")
    );
    t
}

/// The first divergence and the matched share, for the text output.
pub fn divergence_text(flow: &str, c: &SeqComparison) -> String {
    let mut t = String::new();
    let share = c
        .matched_share
        .map_or("-".into(), |x| format!("{:.1}%", x * 100.0));
    let _ = writeln!(
        t,
        "flow {flow}: data transmissions linux {} / sim {}; {} match position by position (same seq, within {:.0} us): {share}; same seq at the same position: {} ({})",
        c.linux_transmissions,
        c.sim_transmissions,
        c.matched,
        c.tolerance_s * 1e6,
        c.seq_matched,
        c.seq_matched_share
            .map_or("-".into(), |x| format!("{:.1}%", x * 100.0))
    );
    if c.truncated {
        let _ = writeln!(
            t,
            "flow {flow}: compared over the first {} transmissions of each side only",
            fidelity::MAX_TX
        );
    }
    match &c.first_divergence {
        None => {
            let _ = writeln!(t, "flow {flow}: no divergence");
        }
        Some(d) => {
            let side = |x: &Option<fidelity::TxAt>| match x {
                None => "sent no more".to_string(),
                Some(x) => {
                    let opt = |v: Option<u64>| v.map_or("-".into(), |v| v.to_string());
                    format!(
                        "t {:.6} s seq {} len {} (snd_una {}, cwnd {}, state {} ms old)",
                        x.time_s,
                        x.seq,
                        x.len,
                        opt(x.snd_una),
                        opt(x.cwnd),
                        x.state_age_s
                            .map_or("-".into(), |a| format!("{:.1}", a * 1e3))
                    )
                }
            };
            let _ = writeln!(
                t,
                "flow {flow}: first divergence at transmission {} ({}):\n  linux {}\n  sim   {}",
                d.index,
                d.reason,
                side(&d.linux),
                side(&d.sim)
            );
            let _ = writeln!(
                t,
                "  (linux: snd_una from {}, cwnd from TCP_INFO; sim: the last ACK processed)",
                if c.linux_snd_una_from == "pcap" {
                    "the ACKs in a.pcap"
                } else {
                    "TCP_INFO (--pcap gives the exact ACKs)"
                }
            );
        }
    }
    t
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
