//! `losslab plot DIR`: re-draw a finished run's pictures (and report)
//! from its output directory, without simulating again.

use std::path::PathBuf;

use clap::Args;

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
}

pub fn plot(a: PlotArgs) -> Result<(), Failure> {
    if let (Some(f), Some(t)) = (a.from, a.to) {
        if f >= t {
            return Err(Failure::BadInput(format!(
                "--from {f} must be before --to {t}"
            )));
        }
    }
    if is_sweep(&a.dir) {
        for f in crate::sweep::plot_sweep(&a.dir, a.out.as_deref())? {
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
    let opts = losslab_viz::PlotOptions {
        flow: a.flow.clone(),
        from_s: a.from,
        to_s: a.to,
        out: a.out.clone(),
    };
    let files =
        losslab_viz::plot_run(&a.dir, &opts).map_err(|e| Failure::BadInput(e.to_string()))?;
    for f in &files {
        println!("wrote {}", f.display());
    }
    // `losslab linux --compare` left the simulated twin's series too:
    // overlay the two.
    if a.dir.join("sim-timeseries.csv").exists() {
        let run = losslab_viz::load_run(&a.dir).map_err(|e| Failure::BadInput(e.to_string()))?;
        let out = a.out.clone().unwrap_or_else(|| a.dir.join("plots"));
        for f in run
            .flows
            .iter()
            .filter(|f| a.flow.as_ref().is_none_or(|n| *n == f.name))
        {
            for p in losslab_viz::linux_overlay(&a.dir, &f.name, &out)
                .map_err(|e| Failure::BadInput(e.to_string()))?
            {
                println!("wrote {}", p.display());
            }
        }
    }
    if a.report {
        let r = crate::report::write(&a.dir).map_err(Failure::Runtime)?;
        println!("wrote {}", r.display());
    }
    Ok(())
}

/// A `losslab sweep` output directory.
fn is_sweep(dir: &std::path::Path) -> bool {
    dir.join("sweep.toml").exists() && dir.join("summary.json").exists()
}
