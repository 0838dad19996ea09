//! `losslab compare DIR...`: finished runs side by side. Each DIR is a
//! `losslab run` output (one seed, or `--seeds`) or a `losslab sweep`
//! output (each of its points a column). Every column shows each metric's
//! mean and 95% CI half-width and its ratio to the first column; a
//! difference from the first column is marked significant when Welch's
//! t-test gives p < 0.05 (it needs two seeds or more on both sides).

use std::collections::BTreeMap;
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

/// What a JSON value is, for messages.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// Why `run` (at `at`, "" for the document itself) is not one run's
/// results document: it needs a whole-number `seed` and a list of
/// `flows`, each an object with a `name`.
fn run_problem(run: &Value, at: &str) -> Option<String> {
    let at = if at.is_empty() {
        String::new()
    } else {
        format!("{at}: ")
    };
    let Some(obj) = run.as_object() else {
        return Some(format!(
            "{at}{}, not a run's results (an object)",
            kind(run)
        ));
    };
    if !obj.get("seed").is_some_and(Value::is_u64) {
        return Some(format!("{at}no whole-number \"seed\""));
    }
    let Some(flows) = obj.get("flows").and_then(Value::as_array) else {
        return Some(format!("{at}no list of \"flows\""));
    };
    flows
        .iter()
        .position(|f| !f.get("name").is_some_and(Value::is_string))
        .map(|i| format!("{at}flows[{i}] has no \"name\""))
}

fn read(dir: &Path) -> Result<Vec<Column>, Failure> {
    let file = dir.join("summary.json");
    let text = fs::read_to_string(&file).map_err(|e| {
        Failure::BadInput(format!(
            "{}: {e} (expected the output directory of losslab run or losslab sweep)",
            file.display()
        ))
    })?;
    let doc: Value = serde_json::from_str(&text)
        .map_err(|e| Failure::BadInput(format!("{}: not JSON: {e}", file.display())))?;
    let not_ours = |why: String| {
        Failure::BadInput(format!(
            "{}: not a losslab results document ({why}); expected the summary.json of \
             losslab run or losslab sweep",
            file.display()
        ))
    };
    if !doc.is_object() {
        return Err(not_ours(format!("{}, not an object", kind(&doc))));
    }
    let name = dir.display().to_string();
    if let Some(points) = doc.get("points") {
        // A sweep: its points, from results.jsonl for the seeds' values.
        let Some(points) = points.as_array() else {
            return Err(not_ours(format!(
                "\"points\" is {}, not a list",
                kind(points)
            )));
        };
        for (i, pt) in points.iter().enumerate() {
            if !pt.get("point").is_some_and(Value::is_u64) {
                return Err(not_ours(format!(
                    "points[{i}] has no whole-number \"point\""
                )));
            }
            if !pt.get("coordinates").is_some_and(Value::is_object) {
                return Err(not_ours(format!(
                    "points[{i}] has no \"coordinates\" object"
                )));
            }
        }
        let per_point = sweep_runs(&dir.join("results.jsonl"), points.len())?;
        return Ok(points
            .iter()
            .zip(per_point)
            .map(|(pt, runs)| {
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
    let runs: Vec<(u64, Value)> = match doc.get("runs") {
        // run --seeds
        Some(runs) => {
            let Some(runs) = runs.as_array() else {
                return Err(not_ours(format!("\"runs\" is {}, not a list", kind(runs))));
            };
            if let Some(why) = runs
                .iter()
                .enumerate()
                .find_map(|(i, r)| run_problem(r, &format!("runs[{i}]")))
            {
                return Err(not_ours(why));
            }
            if runs.is_empty() {
                return Err(Failure::BadInput(format!(
                    "{}: no finished runs to compare (the seeds were interrupted before any finished)",
                    file.display()
                )));
            }
            runs.iter()
                .map(|r| (r["seed"].as_u64().unwrap_or(0), r.clone()))
                .collect()
        }
        // a single run
        None => {
            if let Some(why) = run_problem(&doc, "") {
                return Err(not_ours(why));
            }
            vec![(doc["seed"].as_u64().unwrap_or(0), doc.clone())]
        }
    };
    let rows = runs.iter().flat_map(|(s, v)| rows_of(*s, v)).collect();
    Ok(vec![Column {
        label: name,
        scopes: aggregate(&rows),
    }])
}

/// A sweep's finished runs from its results.jsonl, per point (of
/// `points`) in seed order. Every line must be a run record; only a last
/// line without its newline, cut by a kill, is skipped, as the sweep
/// itself does. A run recorded twice counts once (the later record), as
/// in the sweep's own tables.
fn sweep_runs(file: &Path, points: usize) -> Result<Vec<Vec<(u64, Value)>>, Failure> {
    let text = fs::read_to_string(file).map_err(|e| {
        Failure::BadInput(format!(
            "{}: {e} (a sweep's output holds results.jsonl beside summary.json)",
            file.display()
        ))
    })?;
    let cut = !text.is_empty() && !text.ends_with('\n');
    let lines: Vec<&str> = text.split_terminator('\n').collect();
    let mut runs: BTreeMap<(usize, u64), Value> = BTreeMap::new();
    for (i, line) in lines.iter().enumerate() {
        let bad = |why: String| {
            Failure::BadInput(format!(
                "{}:{}: not a run record of losslab sweep ({why})",
                file.display(),
                i + 1
            ))
        };
        let v: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(_) if cut && i + 1 == lines.len() => continue,
            Err(e) => return Err(bad(format!("not JSON: {e}"))),
        };
        let Some(p) = v.get("point").and_then(Value::as_u64) else {
            return Err(bad("no whole-number \"point\"".into()));
        };
        let Some(p) = usize::try_from(p).ok().filter(|&p| p < points) else {
            return Err(bad(format!(
                "point {p}, but summary.json lists {points} point{}",
                if points == 1 { "" } else { "s" }
            )));
        };
        let Some(seed) = v.get("seed").and_then(Value::as_u64) else {
            return Err(bad("no whole-number \"seed\"".into()));
        };
        let results = v.get("results").unwrap_or(&Value::Null);
        if let Some(why) = run_problem(results, "results") {
            return Err(bad(why));
        }
        runs.insert((p, seed), results.clone());
    }
    let mut per_point = vec![Vec::new(); points];
    for ((p, seed), r) in runs {
        per_point[p].push((seed, r));
    }
    Ok(per_point)
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
