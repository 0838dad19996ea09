//! `losslab run FILE`: simulate, print a table (or JSON), write results.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use losslab_sim::packet_log::PacketLog;
use losslab_sim::pcap::{PcapTracer, Sides};
use losslab_sim::rbb::RbbCsv;
use losslab_sim::sim::{expand_flows, Tee};
use losslab_sim::timeseries::TimeSeries;
use losslab_sim::{RunResults, Simulation, Tracer};

use crate::memory::Guard;
use crate::outdir::{self, Mode, Options, OutDir};
use crate::scenario_args::Overrides;
use crate::Failure;
use losslab_sim::stats::parse_seeds;

#[derive(Args)]
pub struct RunArgs {
    /// Scenario file (TOML, see docs/SCENARIO.md).
    pub file: PathBuf,
    #[command(flatten)]
    pub overrides: Overrides,
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
    /// Write a pcap per flow, as captured at the sender, into DIR (open
    /// them in Wireshark).
    #[arg(long, value_name = "DIR")]
    pub pcap: Option<PathBuf>,
    /// With --pcap, also write the capture at each receiver, which lacks
    /// the packets the path dropped.
    #[arg(long, requires = "pcap")]
    pub pcap_receiver: bool,
    /// Write every packet event (sent, dropped, delivered) to OUT/packets.csv.
    #[arg(long)]
    pub trace: bool,
    /// Draw the pictures (time-sequence graph, cwnd, RTT) into OUT/plots/;
    /// implies --timeseries and --trace.
    #[arg(long)]
    pub plot: bool,
    /// Write OUT/index.html with the scenario, results and pictures;
    /// implies --plot.
    #[arg(long)]
    pub report: bool,
    /// Never show a progress bar.
    #[arg(long)]
    pub no_progress: bool,
    /// Run once per seed and report every metric as mean, sd and 95%
    /// confidence interval: a range 1..20, a count 20 (seeds 1 to 20) or a
    /// list 3,7,11. Writes OUT/summary.json and OUT/runs.csv.
    #[arg(
        long,
        value_name = "SEEDS",
        conflicts_with_all = ["seed", "timeseries", "pcap", "trace", "plot", "report"]
    )]
    pub seeds: Option<String>,
    /// With --seeds: how many runs at once [default: every core].
    #[arg(long, value_name = "N", requires = "seeds", value_parser = clap::value_parser!(u64).range(1..))]
    pub jobs: Option<u64>,
    /// Write into an output folder losslab did not make (or replace a
    /// result file changed since losslab wrote it). Files of yours with
    /// other names are never deleted either way; the scenario file is
    /// never replaced.
    #[arg(long)]
    pub force: bool,
    /// Refuse a scenario whose estimated memory exceeds this (e.g. 8GB,
    /// 500MB) [default: 8GB or the machine's memory, the smaller].
    #[arg(long, value_name = "SIZE")]
    pub max_memory: Option<String>,
}

/// More than a simulated day is almost always a typo (a unit): say so.
fn warn_if_absurd(sc: &losslab_sim::Scenario) {
    const DAY: u64 = 86_400_000_000_000;
    if sc.duration > DAY {
        eprintln!(
            "warning: duration is {:.0} s of simulated time (over a day); Ctrl-C stops the run and keeps partial results",
            sc.duration as f64 / 1e9
        );
    }
}

/// Every trace writer at once, for benchmarks: time series, packet log and
/// pcap at both ends, into `dir`.
pub fn all_writers(
    sim: &Simulation,
    dir: &Path,
    receiver: bool,
) -> std::io::Result<Box<dyn Tracer>> {
    fs::create_dir_all(dir)?;
    let flows = expand_flows(&sim.scenario().flows);
    let sides = if receiver { Sides::Both } else { Sides::Sender };
    Ok(Box::new(Tee(vec![
        Box::new(TimeSeries::create(
            &dir.join("timeseries.csv"),
            sim.flow_names(),
        )?),
        Box::new(PacketLog::create(
            &dir.join("packets.csv"),
            sim.flow_names(),
        )?),
        Box::new(PcapTracer::create(dir, &flows, sides)?),
    ])))
}

/// `run --seeds`: how a run of many seeds is done once the scenario is
/// checked and the folder claimed (seeds.rs's `run_seeds`, which main.rs
/// passes in: a single run does not need to know it).
pub type ManySeeds = fn(&RunArgs, &str, &[u64], OutDir, &Guard) -> Result<(), Failure>;

pub fn run(a: RunArgs, many_seeds: ManySeeds) -> Result<(), Failure> {
    let (scenario, original) = a.overrides.load_text(&a.file)?;
    // The scenario's name is a label: the default folder is made from it,
    // always one level below out/ (outdir::folder_name).
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| outdir::default_folder(&scenario.name, ""));
    let seeds = match &a.seeds {
        Some(spec) => {
            Some(parse_seeds(spec).map_err(|e| Failure::BadInput(format!("--seeds {spec}: {e}")))?)
        }
        None => None,
    };
    let plot = a.plot || a.report;
    let at_once = seeds
        .as_ref()
        .map_or(1, |s| crate::pool::jobs(a.jobs, s.len()));
    let bad = |e: String| Failure::BadInput(format!("{}: {e}", a.file.display()));
    // Weighed before the simulation is built: building it is what a bomb
    // (a million flows) would blow up.
    let guard = Guard::new(a.max_memory.as_deref(), at_once, plot).map_err(Failure::BadInput)?;
    guard.check(&scenario).map_err(bad)?;
    let mut sim = Simulation::new(&scenario).map_err(|e| bad(e.to_string()))?;
    let timeseries = a.timeseries || plot;
    let trace = a.trace || plot;
    // A directory asked for by name gets the per-RTT receive-buffer
    // samples; the default one does not, so that a plain run writes
    // what it wrote before.
    let rbb = a.out.is_some() && a.seeds.is_none();
    let inputs = [a.file.as_path()];
    let dir = OutDir::open(
        &out,
        Options {
            flag: "--out",
            mode: Mode::Fresh,
            force: a.force,
            inputs: &inputs,
        },
    )?;
    let mut names = vec!["summary.json", "scenario.toml"];
    for (on, name) in [
        (seeds.is_some(), "runs.csv"),
        (timeseries, "timeseries.csv"),
        (trace, "packets.csv"),
        (rbb, "rbb.csv"),
        (a.report, "index.html"),
    ] {
        if on {
            names.push(name);
        }
    }
    dir.claim(&names)?;
    let (pcap_dir, pcap_own) = dir.nested(a.pcap.as_deref(), "--pcap", a.force, &inputs)?;
    let stage = dir.stage();
    warn_if_absurd(&scenario);
    let cannot = |p: &Path, e: std::io::Error| {
        Failure::Runtime(format!("cannot write {}: {e}", p.display()))
    };
    let mut tracers: Vec<Box<dyn Tracer>> = Vec::new();
    if timeseries {
        let path = stage.join("timeseries.csv");
        tracers.push(Box::new(
            TimeSeries::create(&path, sim.flow_names()).map_err(|e| cannot(&path, e))?,
        ));
    }
    if trace {
        let path = stage.join("packets.csv");
        tracers.push(Box::new(
            PacketLog::create(&path, sim.flow_names()).map_err(|e| cannot(&path, e))?,
        ));
    }
    if rbb {
        let path = stage.join("rbb.csv");
        tracers.push(Box::new(
            RbbCsv::create(&path, sim.flow_names()).map_err(|e| cannot(&path, e))?,
        ));
    }
    if let Some(dir) = &pcap_dir {
        fs::create_dir_all(dir).map_err(|e| cannot(dir, e))?;
        let sides = if a.pcap_receiver {
            Sides::Both
        } else {
            Sides::Sender
        };
        let flows = expand_flows(&scenario.flows);
        tracers.push(Box::new(
            PcapTracer::create(dir, &flows, sides).map_err(|e| cannot(dir, e))?,
        ));
    }
    if !tracers.is_empty() {
        sim.set_tracer(Box::new(Tee(tracers)));
    }
    // The scenario as run (overrides applied), so the directory says
    // exactly what ran and how to run it again.
    let scenario_copy = stage.join("scenario.toml");
    let mut header = format!("# as run by: losslab run {}", a.file.display());
    for o in &a.overrides.list() {
        header.push_str(&format!(" --set {o}"));
    }
    let effective = losslab_sim::parse::effective_toml(&original, &a.overrides.list())
        .map_err(|e| Failure::BadInput(format!("{}: {e}", a.file.display())))?;
    fs::write(
        &scenario_copy,
        format!("{header}\n# (the file with these overrides applied)\n{effective}"),
    )
    .map_err(|e| cannot(&scenario_copy, e))?;
    if let Some(seeds) = &seeds {
        return many_seeds(&a, &original, seeds, dir, &guard);
    }

    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        // A second Ctrl-C while results are being written kills the process.
        let _ = ctrlc::set_handler(move || {
            if stop.swap(true, Ordering::SeqCst) {
                // Not while results move into place (outdir.rs).
                if !crate::outdir::committing() {
                    std::process::exit(130);
                }
            }
        });
    }

    let wall = Instant::now();
    let end = sim.end_time();
    // Slices of at most SLICE_EVENTS events (under a millisecond of wall
    // time): Ctrl-C is noticed at once whatever the scenario's duration
    // or event rate (a fixed share of the duration took 84 s to notice
    // it in a 1e9 s scenario).
    use crate::pool::SLICE_EVENTS;
    let mut bar: Option<ProgressBar> = None;
    let show_progress =
        !a.no_progress && !a.json && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut interrupted = false;
    loop {
        if sim.run_until_budget(end, SLICE_EVENTS) {
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
        t.finish().map_err(|e| {
            Failure::Runtime(format!(
                "cannot write the traces into {}: {e}",
                out.display()
            ))
        })?;
    }

    let json = serde_json::to_string_pretty(&results).expect("results serialise");
    let summary = stage.join("summary.json");
    fs::write(&summary, format!("{json}\n")).map_err(|e| cannot(&summary, e))?;
    let mut written = vec![out.join("summary.json")];
    if timeseries {
        written.push(out.join("timeseries.csv"));
    }
    if trace {
        written.push(out.join("packets.csv"));
    }
    if rbb {
        written.push(out.join("rbb.csv"));
    }
    if let Some(dir) = &a.pcap {
        written.push(dir.clone());
    }
    if plot {
        let files = losslab_viz::plot_run(&stage, &losslab_viz::PlotOptions::default())
            .map_err(|e| Failure::Runtime(e.to_string()))?;
        if !files.is_empty() {
            written.push(out.join("plots"));
        }
    }
    if a.report {
        crate::report::write(&stage, &stage.join("index.html")).map_err(Failure::Runtime)?;
        written.push(out.join("index.html"));
    }
    // Results move into place whole (outdir.rs), Ctrl-C or not.
    dir.commit_with(pcap_own)?;
    if a.json {
        let mut so = std::io::stdout().lock();
        let _ = writeln!(so, "{json}");
    } else {
        print!("{}", crate::table::render(&results));
        for w in &written {
            println!("wrote {}", w.display());
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
