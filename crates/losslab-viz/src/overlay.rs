//! Linux beside the simulator: the time series `losslab linux --compare`
//! writes (timeseries.csv from TCP_INFO, sim-timeseries.csv from the
//! simulated twin) drawn on shared axes, cwnd in one picture and the
//! pacing rate in another (docs/FIDELITY.md).

use std::path::{Path, PathBuf};

use crate::draw::{self, C_BLUE, VERMILLION};
use crate::series::{Line, TimeLines};
use crate::VizError;

/// (time, cwnd, pacing Mbit/s): one row of one flow.
type Row = (f64, f64, Option<f64>);
type Rows = Vec<Row>;
/// Which value of a row a picture draws.
type Pick<'a> = &'a dyn Fn(&Row) -> Option<f64>;

fn read(path: &Path, flow: &str) -> Result<Rows, VizError> {
    let text = crate::load::read_trace_text(path)?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name);
    let (Some(t), Some(f), Some(c)) = (col("time_s"), col("flow"), col("cwnd")) else {
        return Err(VizError(format!(
            "{}: not a timeseries.csv (no time_s, flow and cwnd columns)",
            path.display()
        )));
    };
    let pacing = col("pacing_mbps");
    let mut rows = Vec::new();
    for (n, l) in lines.enumerate() {
        let v: Vec<&str> = l.split(',').collect();
        if v.get(f) != Some(&flow) {
            continue;
        }
        // `inf` and `NaN` parse, but no losslab or TCP_INFO series has
        // them: as in load.rs, the file was damaged.
        let num = |i: usize| -> Result<f64, VizError> {
            v.get(i)
                .and_then(|s| s.parse::<f64>().ok())
                .filter(|x| x.is_finite())
                .ok_or_else(|| {
                    VizError(format!(
                        "{} line {}: column {} is not a finite number",
                        path.display(),
                        n + 2,
                        header[i]
                    ))
                })
        };
        // Optional: a row without a pacing rate has none to draw.
        let p = pacing
            .and_then(|i| v.get(i))
            .and_then(|s| s.parse::<f64>().ok())
            .filter(|x| x.is_finite());
        rows.push((num(t)?, num(c)?, p));
    }
    Ok(rows)
}

/// `flow`'s file stem among the run's flows (summary.json), as
/// `plot_run` and the pcaps name it; a directory without summary.json
/// has this flow alone.
fn stem_of(dir: &Path, flow: &str) -> Result<String, VizError> {
    let names = match crate::load::flow_names(dir) {
        Ok(names) => names,
        Err(_) if !dir.join("summary.json").exists() => vec![flow.to_string()],
        Err(e) => return Err(e),
    };
    let stems = losslab_core::stem::file_stems(&names);
    Ok(names
        .iter()
        .position(|n| n == flow)
        .map_or_else(|| losslab_core::stem::file_safe(flow), |i| stems[i].clone()))
}

/// Draws overlay-cwnd and overlay-pacing for `flow` from DIR's
/// timeseries.csv (Linux) and sim-timeseries.csv into `out`.
pub fn linux_overlay(dir: &Path, flow: &str, out: &Path) -> Result<Vec<PathBuf>, VizError> {
    let linux = read(&dir.join("timeseries.csv"), flow)?;
    let sim = read(&dir.join("sim-timeseries.csv"), flow)?;
    if linux.is_empty() || sim.is_empty() {
        return Err(VizError(format!(
            "{}: flow {flow} has no rows in timeseries.csv or sim-timeseries.csv",
            dir.display()
        )));
    }
    std::fs::create_dir_all(out)
        .map_err(|e| VizError(format!("cannot create {}: {e}", out.display())))?;
    let t1 = linux
        .last()
        .map(|r| r.0)
        .unwrap_or(0.0)
        .max(sim.last().map(|r| r.0).unwrap_or(0.0));
    let picture = |what: &str, y: &'static str, pick: Pick| {
        let line = |label: &'static str, colour, rows: &Rows| Line {
            label,
            colour,
            width: 2,
            samples: rows
                .iter()
                .filter_map(|r| pick(r).map(|v| (r.0, v)))
                .collect(),
        };
        TimeLines {
            title: format!("flow {flow}: {what}, Linux and simulator"),
            subtitle: format!("{}", dir.display()),
            y_desc: y,
            lines: vec![
                line("Linux (TCP_INFO)", C_BLUE, &linux),
                line("simulator", VERMILLION, &sim),
            ],
            recoveries: &[],
            t0: 0.0,
            t1,
        }
    };
    let stem = stem_of(dir, flow)?;
    let mut files = draw::save(
        &picture("congestion window", "segments", &|r| Some(r.1)),
        &out.join(format!("overlay-cwnd-{stem}")),
    )?;
    files.extend(draw::save(
        &picture("pacing rate", "Mbit/s", &|r| r.2),
        &out.join(format!("overlay-pacing-{stem}")),
    )?);
    Ok(files)
}
