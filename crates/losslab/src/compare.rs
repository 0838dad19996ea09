//! `losslab compare DIR...`: finished runs side by side. Each DIR is a
//! `losslab run` output (one seed, or `--seeds`) or a `losslab sweep`
//! output (each of its points a column). Every column shows each metric's
//! mean and 95% CI half-width and its ratio to the first column; a
//! difference from the first column is marked significant when Welch's
//! t-test gives p < 0.05 (it needs two seeds or more on both sides).

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use clap::Args;
use losslab_sim::stats::{aggregate, rows_of, welch_p, ScopeSummary, Summary};
use serde_json::Value;

use crate::Failure;

#[derive(Args)]
pub struct CompareArgs {
    /// Output directories of `losslab run` or `losslab sweep`.
    #[arg(required = true, num_args = 1..)]
    pub dirs: Vec<PathBuf>,
    /// Metrics to show, as in runs.csv (`goodput_bps`, `rtt_ms.p99`, ...;
    /// repeatable) [default: goodput, FCT, retransmissions, spurious
    /// retransmissions, timeouts, fast recoveries, RTT p99].
    #[arg(long = "metric", value_name = "NAME")]
    pub metrics: Vec<String>,
}

const DEFAULT: &[&str] = &[
    "goodput_bps",
    "fct_s",
    "retransmissions",
    "spurious_retransmissions",
    "timeouts",
    "fast_recoveries",
    "rtt_ms.p99",
];

/// One column: a label and its per-scope summaries.
struct Column {
    label: String,
    scopes: Vec<ScopeSummary>,
}

fn read(dir: &Path) -> Result<Vec<Column>, Failure> {
    let file = dir.join("summary.json");
    let text = fs::read_to_string(&file).map_err(|e| {
        Failure::BadInput(format!(
            "{}: {e} (expected the output directory of losslab run or losslab sweep)",
            file.display()
        ))
    })?;
    let doc: Value = serde_json::from_str(&text).map_err(|e| {
        Failure::BadInput(format!("{}: not a results document: {e}", file.display()))
    })?;
    let name = dir.display().to_string();
    if let Some(points) = doc.get("points").and_then(Value::as_array) {
        // A sweep: its points, from results.jsonl for the seeds' values.
        let jsonl = fs::read_to_string(dir.join("results.jsonl")).unwrap_or_default();
        let mut per_point: Vec<Vec<(u64, Value)>> = vec![Vec::new(); points.len()];
        for line in jsonl.lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            if let (Some(p), Some(seed)) = (v["point"].as_u64(), v["seed"].as_u64()) {
                if let Some(slot) = per_point.get_mut(p as usize) {
                    slot.push((seed, v["results"].clone()));
                }
            }
        }
        return Ok(points
            .iter()
            .zip(per_point)
            .map(|(pt, mut runs)| {
                runs.sort_by_key(|r| r.0);
                let coords = pt["coordinates"]
                    .as_object()
                    .map(|m| {
                        m.iter()
                            .map(|(k, v)| {
                                format!("{k}={}", v.as_str().map_or(v.to_string(), String::from))
                            })
                            .collect::<Vec<_>>()
                            .join(" ")
                    })
                    .unwrap_or_default();
                let rows = runs.iter().flat_map(|(s, v)| rows_of(*s, v)).collect();
                Column {
                    label: format!("{name} [{}] {coords}", pt["point"]),
                    scopes: aggregate(&rows),
                }
            })
            .collect());
    }
    let runs: Vec<(u64, Value)> = match doc.get("runs").and_then(Value::as_array) {
        // run --seeds
        Some(runs) => runs
            .iter()
            .map(|r| (r["seed"].as_u64().unwrap_or(0), r.clone()))
            .collect(),
        // a single run
        None => vec![(doc["seed"].as_u64().unwrap_or(0), doc.clone())],
    };
    if runs.iter().all(|(_, r)| r.get("flows").is_none()) {
        return Err(Failure::BadInput(format!(
            "{}: no flows: not the output of losslab run or losslab sweep",
            file.display()
        )));
    }
    let rows = runs.iter().flat_map(|(s, v)| rows_of(*s, v)).collect();
    Ok(vec![Column {
        label: name,
        scopes: aggregate(&rows),
    }])
}

fn find<'a>(c: &'a Column, scope: &str, metric: &str) -> Option<&'a Summary> {
    c.scopes
        .iter()
        .find(|s| s.scope == scope)?
        .metrics
        .iter()
        .find(|(m, _)| m == metric)
        .map(|(_, x)| x)
}

fn cell(x: &Summary) -> String {
    let h = x.ci95.map(|[l, h]| (h - l) / 2.0);
    let mag = x.mean.abs().max(h.unwrap_or(0.0));
    let d = if mag >= 1000.0 || mag == 0.0 {
        0
    } else if mag >= 10.0 {
        1
    } else if mag >= 0.1 {
        3
    } else {
        5
    };
    match h {
        Some(h) => format!("{:.d$} ± {:.d$} (n {})", x.mean, h, x.n),
        None => format!("{:.d$} (n {})", x.mean, x.n),
    }
}

pub fn compare(a: CompareArgs) -> Result<(), Failure> {
    let mut cols = Vec::new();
    for d in &a.dirs {
        cols.extend(read(d)?);
    }
    let metrics: Vec<String> = if a.metrics.is_empty() {
        DEFAULT.iter().map(|s| s.to_string()).collect()
    } else {
        a.metrics.clone()
    };
    let mut scopes: Vec<String> = Vec::new();
    for c in &cols {
        for s in &c.scopes {
            if s.scope != "path" && !scopes.contains(&s.scope) {
                scopes.push(s.scope.clone());
            }
        }
    }
    let mut out = String::new();
    for (i, c) in cols.iter().enumerate() {
        let _ = writeln!(out, "({}) {}", i + 1, c.label);
    }
    let _ = writeln!(
        out,
        "mean ± 95% CI half-width; ratio to (1); * p < 0.05 (Welch's t-test against (1))"
    );
    let mut any = false;
    for scope in &scopes {
        let _ = writeln!(out, "flow {scope}:");
        for m in &metrics {
            let Some(first) = find(&cols[0], scope, m) else {
                continue;
            };
            any = true;
            let mut line = format!("  {m:<26} (1) {}", cell(first));
            for (i, c) in cols.iter().enumerate().skip(1) {
                match find(c, scope, m) {
                    Some(x) => {
                        let ratio = if first.mean != 0.0 {
                            format!("x{:.3}", x.mean / first.mean)
                        } else {
                            "x-".into()
                        };
                        let sig = match welch_p(first, x) {
                            Some(p) if p < 0.05 => format!(" * p={p:.3}"),
                            Some(p) => format!(" p={p:.2}"),
                            None => " (no test: one seed)".into(),
                        };
                        let _ = write!(line, " | ({}) {} {ratio}{sig}", i + 1, cell(x));
                    }
                    None => {
                        let _ = write!(line, " | ({}) -", i + 1);
                    }
                }
            }
            let _ = writeln!(out, "{line}");
        }
    }
    if !any {
        return Err(Failure::BadInput(format!(
            "none of the metrics {} is in {}",
            metrics.join(", "),
            a.dirs[0].display()
        )));
    }
    print!("{out}");
    Ok(())
}
