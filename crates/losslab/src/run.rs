//! `losslab run FILE`: simulate, print a table (or JSON), write results.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use losslab_sim::parse::load_scenario;
use losslab_sim::{RunResults, Simulation};

use crate::timeseries::TimeSeries;
use crate::Failure;

#[derive(Args)]
pub struct RunArgs {
    /// Scenario file (TOML, see docs/SCENARIO.md).
    pub file: PathBuf,
    /// Override the scenario's seed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Override one key, e.g. --set path.delay=100ms or
    /// --set flow.a.recovery=rfc6675 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Output directory [default: out/<scenario name>].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print the results document on stdout and nothing else.
    #[arg(long)]
    pub json: bool,
    /// Also write a per-ACK time series (cwnd, ssthresh, pipe, srtt,
    /// inflight) to OUT/timeseries.csv.
    #[arg(long)]
    pub timeseries: bool,
    /// Never show a progress bar.
    #[arg(long)]
    pub no_progress: bool,
}

pub fn run(a: RunArgs) -> Result<(), Failure> {
    let mut overrides = a.set.clone();
    if let Some(seed) = a.seed {
        overrides.push(format!("seed={seed}"));
    }
    let scenario =
        load_scenario(&a.file, &overrides).map_err(|e| Failure::BadInput(e.to_string()))?;
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| Path::new("out").join(&scenario.name));
    let mut sim = Simulation::new(&scenario)
        .map_err(|e| Failure::BadInput(format!("{}: {e}", a.file.display())))?;
    fs::create_dir_all(&out)
        .map_err(|e| Failure::Runtime(format!("cannot create {}: {e}", out.display())))?;
    if a.timeseries {
        let path = out.join("timeseries.csv");
        let ts = TimeSeries::create(&path, &sim)
            .map_err(|e| Failure::Runtime(format!("cannot write {}: {e}", path.display())))?;
        sim.set_tracer(Box::new(ts));
    }

    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        // A second Ctrl-C while results are being written kills the process.
        let _ = ctrlc::set_handler(move || {
            if stop.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
        });
    }

    let wall = Instant::now();
    let end = sim.end_time();
    let step = (end / 500).max(1_000_000);
    let mut bar: Option<ProgressBar> = None;
    let show_progress =
        !a.no_progress && !a.json && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut interrupted = false;
    loop {
        let target = sim.now().saturating_add(step);
        if sim.run_until(target) {
            break;
        }
        if stop.load(Ordering::SeqCst) {
            interrupted = true;
            break;
        }
        if show_progress && bar.is_none() && wall.elapsed() > Duration::from_secs(1) {
            let b = ProgressBar::new(end / 1_000_000);
            b.set_style(
                ProgressStyle::with_template(
                    "{spinner} simulated {pos}/{len} ms [{bar:40}] {eta} left",
                )
                .expect("valid template")
                .progress_chars("=> "),
            );
            bar = Some(b);
        }
        if let Some(b) = &bar {
            b.set_position(sim.now() / 1_000_000);
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let mut results: RunResults = sim.results();
    results.wall_time_s = wall.elapsed().as_secs_f64();
    results.interrupted = interrupted;
    if let Some(mut t) = sim.take_tracer() {
        t.finish()
            .map_err(|e| Failure::Runtime(format!("cannot write the trace: {e}")))?;
    }

    let json = serde_json::to_string_pretty(&results).expect("results serialise");
    let summary = out.join("summary.json");
    fs::write(&summary, format!("{json}\n"))
        .map_err(|e| Failure::Runtime(format!("cannot write {}: {e}", summary.display())))?;
    if a.json {
        let mut so = std::io::stdout().lock();
        let _ = writeln!(so, "{json}");
    } else {
        print!("{}", crate::table::render(&results));
        println!("results: {}", summary.display());
        if a.timeseries {
            println!("time series: {}", out.join("timeseries.csv").display());
        }
    }
    if interrupted {
        eprintln!(
            "interrupted at {:.3} s simulated: partial results written",
            results.sim_time_s
        );
        return Err(Failure::Interrupted);
    }
    Ok(())
}
