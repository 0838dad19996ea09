//! `losslab plot DIR`: re-draw a finished run's pictures (and report)
//! from its output directory, without simulating again.

use std::path::PathBuf;

use clap::Args;

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
