//! `losslab plot DIR`: re-draw a finished run's pictures (and report)
//! from its output directory, without simulating again.

use std::path::PathBuf;

use clap::Args;

use losslab_sim::memory::{human, suggested_limit};

use crate::outdir::{Mode, Options, OutDir};
use crate::Failure;

#[derive(Args)]
pub struct PlotArgs {
    /// A run's output directory (holding summary.json), or a sweep's:
    /// then each metric is drawn against the sweep's first axis, one line
    /// per value of the others, with 95% CI bands.
    pub dir: PathBuf,
    /// Only this flow.
    #[arg(long)]
    pub flow: Option<String>,
    /// Start of the time window, seconds.
    #[arg(long, value_name = "SECONDS")]
    pub from: Option<f64>,
    /// End of the time window, seconds.
    #[arg(long, value_name = "SECONDS")]
    pub to: Option<f64>,
    /// Also (re)write DIR/index.html.
    #[arg(long)]
    pub report: bool,
    /// Write the pictures into this directory instead of DIR/plots.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write into a folder losslab did not make (a run directory of an
    /// older losslab, say). Files of yours are never deleted.
    #[arg(long)]
    pub force: bool,
    /// Refuse traces whose drawing would need more memory than this (e.g.
    /// 8GB, 500MB) [default: 8GB or half the machine's memory, the smaller].
    #[arg(long, value_name = "SIZE")]
    pub max_memory: Option<String>,
}

/// Peak memory per byte of the traces `plot` reads back (timeseries.csv,
/// packets.csv, the Linux twin's series), measured on a 190 MB
/// packets.csv and timeseries.csv (184 MB drawn at a 207 MB peak, 1.1 per
/// byte; docs/BENCHMARKS.md, "Memory"), with room above it.
pub const PLOT_BYTES_PER_TRACE_BYTE: u64 = 2;

/// The traces of a run directory `plot` reads back.
const TRACES: &[&str] = &["timeseries.csv", "packets.csv", "sim-timeseries.csv"];

/// Refuses a run directory whose traces would take more than `limit` to
/// draw, before any is read. A file that is not a regular one (a device)
/// has no size here; the loaders cap its lines instead.
pub fn check_traces(dir: &std::path::Path, limit: u64) -> Result<(), String> {
    let mut total = 0u64;
    let mut listed = Vec::new();
    for name in TRACES {
        if let Ok(m) = std::fs::metadata(dir.join(name)) {
            if m.is_file() {
                total = total.saturating_add(m.len());
                listed.push(format!("{name} {}", human(m.len())));
            }
        }
    }
    let need = total.saturating_mul(PLOT_BYTES_PER_TRACE_BYTE);
    if need <= limit {
        return Ok(());
    }
    Err(format!(
        "{}: drawing its traces ({}) would take about {} of memory, over the limit of {}; \
         raise the limit with --max-memory (e.g. --max-memory {})",
        dir.display(),
        listed.join(", "),
        human(need),
        human(limit),
        suggested_limit(need)
    ))
}

pub fn plot(a: PlotArgs) -> Result<(), Failure> {
    if let (Some(f), Some(t)) = (a.from, a.to) {
        if f >= t {
            return Err(Failure::BadInput(format!(
                "--from {f} must be before --to {t}"
            )));
        }
    }
    // Pictures go into DIR/plots, or into --out, through an output folder
    // (outdir.rs): staged, then moved into place; nothing else is touched.
    let (root, sub) = match &a.out {
        Some(o) => (o.clone(), PathBuf::new()),
        None => (a.dir.clone(), PathBuf::from("plots")),
    };
    let open = || {
        OutDir::open(
            &root,
            Options {
                flag: if a.out.is_some() { "--out" } else { "DIR" },
                mode: Mode::Add,
                force: a.force,
                inputs: &[],
            },
        )
    };
    if is_sweep(&a.dir) {
        let dir = open()?;
        let into = dir.stage().join(&sub);
        crate::sweep::plot_sweep(&a.dir, Some(&into))?;
        for f in dir.commit()? {
            println!("wrote {}", f.display());
        }
        return Ok(());
    }
    if !a.dir.join("summary.json").exists() {
        return Err(Failure::BadInput(format!(
            "{}: no summary.json here; give the output directory of `losslab run`",
            a.dir.display()
        )));
    }
    let limit = crate::memory::limit(a.max_memory.as_deref()).map_err(Failure::BadInput)?;
    check_traces(&a.dir, limit).map_err(Failure::BadInput)?;
    let dir = open()?;
    let into = dir.stage().join(&sub);
    let opts = losslab_viz::PlotOptions {
        flow: a.flow.clone(),
        from_s: a.from,
        to_s: a.to,
        out: Some(into.clone()),
    };
    losslab_viz::plot_run(&a.dir, &opts).map_err(|e| Failure::BadInput(e.to_string()))?;
    // `losslab linux --compare` left the simulated twin's series too:
    // overlay the two.
    if a.dir.join("sim-timeseries.csv").exists() {
        let run = losslab_viz::load_run(&a.dir).map_err(|e| Failure::BadInput(e.to_string()))?;
        for f in run
            .flows
            .iter()
            .filter(|f| a.flow.as_ref().is_none_or(|n| *n == f.name))
        {
            losslab_viz::linux_overlay(&a.dir, &f.name, &into)
                .map_err(|e| Failure::BadInput(e.to_string()))?;
        }
    }
    for f in dir.commit()? {
        println!("wrote {}", f.display());
    }
    if a.report {
        // The page lists the pictures now in place, so it comes after them.
        let dir = OutDir::open(
            &a.dir,
            Options {
                flag: "DIR",
                mode: Mode::Add,
                force: a.force,
                inputs: &[],
            },
        )?;
        crate::report::write(&a.dir, &dir.stage().join("index.html")).map_err(Failure::Runtime)?;
        for f in dir.commit()? {
            println!("wrote {}", f.display());
        }
    }
    Ok(())
}

/// A `losslab sweep` output directory.
fn is_sweep(dir: &std::path::Path) -> bool {
    dir.join("sweep.toml").exists() && dir.join("summary.json").exists()
}
