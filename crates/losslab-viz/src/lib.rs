//! Pictures from losslab run directories, as SVG and PNG.
//!
//! A run directory holds `summary.json` (always), `timeseries.csv`
//! (`losslab run --timeseries`) and `packets.csv` (`losslab run --trace`).
//! [`plot_run`] draws every picture the files allow into `DIR/plots/`:
//!
//! | file | needs | shows |
//! |---|---|---|
//! | `tsg-<flow>.{svg,png}` | packets.csv | time-sequence graph at the sender |
//! | `cwnd-<flow>.{svg,png}` | timeseries.csv | cwnd, ssthresh, pipe |
//! | `rtt-<flow>.{svg,png}` | timeseries.csv | srtt and RTO |
//!
//! `<flow>` is the flow's file stem (`losslab_core::stem::file_stems`),
//! the same as its pcaps'.
//!
//! Recovery periods (from summary.json) are shaded on all three. A picture
//! whose file is missing is skipped, not an error: [`plot_run_report`]
//! says why, [`plot_run`] prints that to stderr. Only when neither CSV
//! file exists is there nothing to draw, and that is an error.
//!
//! Text is drawn with an embedded DejaVu Sans (assets/), so PNGs look the
//! same on every machine and nothing links fontconfig or freetype.

use std::path::{Path, PathBuf};

pub mod charts;
mod draw;
mod load;
mod overlay;
mod series;
mod tsg;

#[cfg(test)]
mod hostile_tests;

pub use load::{AckEvent, DataEvent, Fate, FlowData, Recovery, RunData, SeriesRow};
pub use overlay::linux_overlay;

#[derive(Debug, Clone, PartialEq)]
pub struct VizError(pub String);

impl std::fmt::Display for VizError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for VizError {}

/// Reads a run directory: summary.json is required; timeseries.csv and
/// packets.csv are optional (see `RunData::timeseries_missing` and
/// `packets_missing`), but malformed ones are errors naming file and line.
pub fn load_run(dir: &Path) -> Result<RunData, VizError> {
    load::load(dir, None)
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlotOptions {
    /// Only this flow (by its name in summary.json); all flows when None.
    pub flow: Option<String>,
    /// Crop the time axis to [from_s, to_s] (seconds of simulated time).
    pub from_s: Option<f64>,
    pub to_s: Option<f64>,
    /// Where the pictures go; DIR/plots when None.
    pub out: Option<PathBuf>,
}

/// What [`plot_run_report`] did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlotReport {
    /// Files written, each picture as .svg then .png.
    pub files: Vec<PathBuf>,
    /// Pictures not drawn and why, one sentence each.
    pub skipped: Vec<String>,
}

/// Draws every picture the data allows into DIR/plots/, both .svg and
/// .png; returns the files written. Pictures that could not be drawn are
/// named on stderr (use [`plot_run_report`] to get them instead).
pub fn plot_run(dir: &Path, opts: &PlotOptions) -> Result<Vec<PathBuf>, VizError> {
    let report = plot_run_report(dir, opts)?;
    for s in &report.skipped {
        eprintln!("losslab-viz: {s}");
    }
    Ok(report.files)
}

/// As [`plot_run`], returning what was skipped instead of printing it.
pub fn plot_run_report(dir: &Path, opts: &PlotOptions) -> Result<PlotReport, VizError> {
    for (name, v) in [("from", opts.from_s), ("to", opts.to_s)] {
        if v.is_some_and(|v| !v.is_finite()) {
            return Err(VizError(format!(
                "{name} must be a finite number of seconds"
            )));
        }
    }
    if let (Some(a), Some(b)) = (opts.from_s, opts.to_s) {
        if a >= b {
            return Err(VizError(format!(
                "empty time window: from {a} s is not before to {b} s"
            )));
        }
    }
    let run = load::load(dir, opts.flow.as_deref())?;
    if let (Some(t), Some(p)) = (&run.timeseries_missing, &run.packets_missing) {
        return Err(VizError(format!("nothing to plot: {t}; {p}")));
    }
    let out = opts.out.clone().unwrap_or_else(|| dir.join("plots"));
    std::fs::create_dir_all(&out)
        .map_err(|e| VizError(format!("cannot create {}: {e}", out.display())))?;
    let mut report = PlotReport::default();
    if let Some(why) = &run.packets_missing {
        report
            .skipped
            .push(format!("time-sequence graphs skipped: {why}"));
    }
    if let Some(why) = &run.timeseries_missing {
        report
            .skipped
            .push(format!("cwnd and RTT plots skipped: {why}"));
    }
    for f in &run.flows {
        let stem = &f.stem;
        if run.has_packets() {
            if f.data.is_empty() {
                report.skipped.push(format!(
                    "tsg-{stem}: flow {} sent no data packets in packets.csv",
                    f.name
                ));
            } else {
                let (t0, t1, note) = tsg::window(f, opts.from_s, opts.to_s, run.sim_time_s);
                let pic = tsg::Tsg {
                    flow: f,
                    scenario: &run.scenario,
                    t0,
                    t1,
                    note,
                };
                report
                    .files
                    .extend(draw::save(&pic, &out.join(format!("tsg-{stem}")))?);
            }
        }
        if run.has_timeseries() {
            if f.series.is_empty() {
                report.skipped.push(format!(
                    "cwnd-{stem}, rtt-{stem}: flow {} has no rows in timeseries.csv",
                    f.name
                ));
            } else {
                let (t0, t1) = series::time_range(f, opts.from_s, opts.to_s);
                let pic = series::cwnd(&run.scenario, f, t0, t1);
                report
                    .files
                    .extend(draw::save(&pic, &out.join(format!("cwnd-{stem}")))?);
                let pic = series::rtt(&run.scenario, f, t0, t1);
                report
                    .files
                    .extend(draw::save(&pic, &out.join(format!("rtt-{stem}")))?);
            }
        }
    }
    Ok(report)
}
