//! `losslab sweep SWEEP.toml`: a base scenario run over a grid (or a zip)
//! of `--set` values, each point over a list of seeds, on every core.
//! Finished runs stream to OUT/results.jsonl as they come, so Ctrl-C keeps
//! them and `--resume` continues; the tables are built from that file in
//! (point, seed) order, so they do not depend on `--jobs` or on how often
//! the sweep was resumed. The file format is docs/SCENARIO.md, "Sweeps".

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::fs;
use std::io::{BufRead, Write as _};
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use losslab_sim::parse::load_scenario;
use losslab_sim::stats::{aggregate, parse_seeds, rows_of, Rows, ScopeSummary};
use losslab_sim::{Scenario, Simulation};
use serde_json::{json, Value};

use crate::pool;
use crate::seeds::{aggregate_json, progress_bar};
use crate::Failure;

#[derive(Args)]
pub struct SweepArgs {
    /// Sweep file (TOML, see docs/SCENARIO.md, "Sweeps").
    pub file: PathBuf,
    /// Output directory [default: out/<sweep file name>].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Runs at once [default: every core].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub jobs: Option<u64>,
    /// Continue an interrupted sweep in the same --out: runs already in
    /// OUT/results.jsonl are not run again.
    #[arg(long)]
    pub resume: bool,
    /// Stop at the first point whose scenario is invalid (exit 2) instead
    /// of reporting it and going on.
    #[arg(long)]
    pub fail_fast: bool,
    /// Never show a progress bar.
    #[arg(long)]
    pub no_progress: bool,
}

/// A parsed sweep file.
struct Sweep {
    scenario: PathBuf,
    seeds: Vec<u64>,
    /// Axis keys in file order, with their values as `--set` text.
    axes: Vec<(String, Vec<String>)>,
    zip: bool,
    /// `--set` overrides for every point.
    set: Vec<String>,
}

fn bad(file: &Path, key: &str, msg: impl std::fmt::Display) -> Failure {
    Failure::BadInput(format!("{}: {key}: {msg}", file.display()))
}

/// A TOML value as `--set` writes it: strings quoted, so that "10" stays a
/// string and `prr` needs no quotes.
fn set_text(v: &toml_edit::Value) -> Option<String> {
    use toml_edit::Value as V;
    Some(match v {
        V::String(s) => toml_edit::Value::from(s.value().as_str())
            .decorated("", "")
            .to_string(),
        V::Integer(i) => i.value().to_string(),
        V::Float(f) => f.value().to_string(),
        V::Boolean(b) => b.value().to_string(),
        _ => return None,
    })
}

fn parse_sweep(file: &Path) -> Result<Sweep, Failure> {
    let text = fs::read_to_string(file)
        .map_err(|e| Failure::BadInput(format!("{}: cannot read: {e}", file.display())))?;
    let doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e| Failure::BadInput(format!("{}: not TOML: {e}", file.display())))?;
    const KEYS: &[&str] = &["scenario", "seeds", "mode", "set", "axes"];
    for (k, _) in doc.iter() {
        if !KEYS.contains(&k) {
            return Err(bad(
                file,
                k,
                format!("unknown key (allowed: {})", KEYS.join(", ")),
            ));
        }
    }
    let scenario = doc
        .get("scenario")
        .and_then(|v| v.as_str())
        .ok_or_else(|| {
            bad(
                file,
                "scenario",
                "expected the base scenario's path, a string",
            )
        })?;
    let base = file.parent().unwrap_or(Path::new("."));
    let scenario = if Path::new(scenario).is_absolute() {
        PathBuf::from(scenario)
    } else {
        base.join(scenario)
    };
    let seeds = match doc.get("seeds") {
        None => None,
        Some(v) => Some(if let Some(s) = v.as_str() {
            parse_seeds(s).map_err(|e| bad(file, "seeds", e))?
        } else if let Some(n) = v.as_integer() {
            parse_seeds(&n.to_string()).map_err(|e| bad(file, "seeds", e))?
        } else if let Some(a) = v.as_array() {
            let list: Option<Vec<String>> = a
                .iter()
                .map(|x| x.as_integer().map(|i| i.to_string()))
                .collect();
            let list = list.ok_or_else(|| bad(file, "seeds", "a list of whole numbers"))?;
            parse_seeds(&list.join(",")).map_err(|e| bad(file, "seeds", e))?
        } else {
            return Err(bad(
                file,
                "seeds",
                "expected a range \"1..20\", a count or a list of seeds",
            ));
        }),
    };
    let zip = match doc.get("mode").map(|v| v.as_str()) {
        None | Some(Some("grid")) => false,
        Some(Some("zip")) => true,
        _ => return Err(bad(file, "mode", "expected \"grid\" or \"zip\"")),
    };
    let set = match doc.get("set") {
        None => vec![],
        Some(v) => v
            .as_array()
            .and_then(|a| a.iter().map(|x| x.as_str().map(String::from)).collect())
            .ok_or_else(|| bad(file, "set", "expected a list of \"KEY=VALUE\" strings"))?,
    };
    let axes_table = doc
        .get("axes")
        .and_then(|v| v.as_table_like())
        .ok_or_else(|| bad(file, "axes", "expected a table of KEY = [values]"))?;
    let mut axes = Vec::new();
    for (k, v) in axes_table.iter() {
        let key = format!("axes.\"{k}\"");
        let arr = v
            .as_array()
            .ok_or_else(|| bad(file, &key, "expected a list of values"))?;
        if arr.is_empty() {
            return Err(bad(file, &key, "the list of values is empty"));
        }
        let vals: Option<Vec<String>> = arr.iter().map(set_text).collect();
        let vals =
            vals.ok_or_else(|| bad(file, &key, "values must be strings, numbers or booleans"))?;
        axes.push((k.to_string(), vals));
    }
    if axes.is_empty() {
        return Err(bad(file, "axes", "no axis: name at least one key"));
    }
    if zip {
        let n = axes[0].1.len();
        if let Some((k, v)) = axes.iter().find(|(_, v)| v.len() != n) {
            return Err(bad(
                file,
                &format!("axes.\"{k}\""),
                format!(
                    "mode = \"zip\" needs lists of one length: {} values, not {n}",
                    v.len()
                ),
            ));
        }
    }
    Ok(Sweep {
        scenario,
        seeds: seeds.unwrap_or_default(),
        axes,
        zip,
        set,
    })
}

/// The points: one (key, value) per axis, the first axis varying slowest.
fn points(s: &Sweep) -> Vec<Vec<(String, String)>> {
    if s.zip {
        return (0..s.axes[0].1.len())
            .map(|i| {
                s.axes
                    .iter()
                    .map(|(k, v)| (k.clone(), v[i].clone()))
                    .collect()
            })
            .collect();
    }
    let mut out: Vec<Vec<(String, String)>> = vec![vec![]];
    for (k, vals) in &s.axes {
        out = out
            .into_iter()
            .flat_map(|p| {
                vals.iter().map(move |v| {
                    let mut q = p.clone();
                    q.push((k.clone(), v.clone()));
                    q
                })
            })
            .collect();
    }
    out
}

/// Files a sweep writes into its output directory.
const OWNED: &[&str] = &[
    "sweep.toml",
    "results.jsonl",
    "runs.csv",
    "summary.csv",
    "summary.json",
];

pub fn sweep(a: SweepArgs) -> Result<(), Failure> {
    let s = parse_sweep(&a.file)?;
    let stem = a
        .file
        .file_stem()
        .map_or("sweep".into(), |x| x.to_string_lossy().to_string());
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| Path::new("out").join(&stem));
    let pts = points(&s);
    // Every point is built, and so checked, before any run starts.
    let base_seed = load_scenario(&s.scenario, &s.set)
        .map_err(|e| {
            Failure::BadInput(format!(
                "{} (scenario of {}): {e}",
                s.scenario.display(),
                a.file.display()
            ))
        })?
        .seed;
    let seeds = if s.seeds.is_empty() {
        vec![base_seed]
    } else {
        s.seeds.clone()
    };
    let mut scen: Vec<Result<Vec<Scenario>, String>> = Vec::with_capacity(pts.len());
    for p in &pts {
        let mut list = Vec::with_capacity(seeds.len());
        let mut err = None;
        for &seed in &seeds {
            let mut o = s.set.clone();
            o.extend(p.iter().map(|(k, v)| format!("{k}={v}")));
            o.push(format!("seed={seed}"));
            match load_scenario(&s.scenario, &o).and_then(|sc| {
                Simulation::new(&sc)
                    .map(|_| sc)
                    .map_err(|e| losslab_sim::parse::ScenarioError {
                        file: s.scenario.display().to_string(),
                        key: String::new(),
                        message: e.to_string(),
                    })
            }) {
                Ok(sc) => list.push(sc),
                Err(e) => {
                    err = Some(e.to_string());
                    break;
                }
            }
        }
        scen.push(match err {
            Some(e) => Err(e),
            None => Ok(list),
        });
    }
    if let Some(e) = scen.iter().find_map(|x| x.as_ref().err()) {
        if a.fail_fast || scen.iter().all(|x| x.is_err()) {
            return Err(Failure::BadInput(format!("{}: {e}", a.file.display())));
        }
    }

    prepare(&out, &a, &fs::read_to_string(&a.file).unwrap_or_default())?;
    let jsonl = out.join("results.jsonl");
    let done_before = read_done(&jsonl)?;
    let tasks: Vec<(usize, usize)> = (0..pts.len())
        .filter(|&p| scen[p].is_ok())
        .flat_map(|p| (0..seeds.len()).map(move |k| (p, k)))
        .filter(|&(p, k)| !done_before.contains(&(p, seeds[k])))
        .collect();
    let jobs = pool::jobs(a.jobs, tasks.len());
    let stop = pool::ctrl_c_flag();
    let show = !a.no_progress && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let bar = show.then(|| progress_bar(tasks.len() as u64, "runs"));
    let mut sink = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&jsonl)
        .map_err(|e| Failure::Runtime(format!("cannot write {}: {e}", jsonl.display())))?;
    let wall = Instant::now();
    let mut write_err = None;
    let mut finished = 0usize;
    pool::run_all(
        tasks.len(),
        jobs,
        &stop,
        |i| {
            let (p, k) = tasks[i];
            let sc = &scen[p].as_ref().expect("only valid points are tasks")[k];
            pool::simulate(sc, &stop)
        },
        |i, r| {
            let (p, _) = tasks[i];
            let mut v = serde_json::to_value(&r).expect("serialises");
            if let Some(o) = v.as_object_mut() {
                o.remove("wall_time_s");
            }
            let line = json!({ "point": p, "seed": r.seed, "results": v });
            if let Err(e) = writeln!(sink, "{line}") {
                write_err.get_or_insert(e);
            }
            finished += 1;
            if let Some(b) = &bar {
                b.inc(1);
            }
        },
    );
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if let Some(e) = write_err {
        return Err(Failure::Runtime(format!(
            "cannot write {}: {e}",
            jsonl.display()
        )));
    }
    let interrupted = finished < tasks.len();
    let all = read_all(&jsonl)?;
    // Each point's statistics, once, for the tables and the printout.
    let aggs: Vec<Vec<ScopeSummary>> = (0..pts.len())
        .map(|p| aggregate(&point_rows(&all, p)))
        .collect();
    let written = write_tables(&out, &s, &pts, &seeds, &scen, &all, &aggs)?;
    print!(
        "{}",
        render(
            &s,
            &pts,
            &scen,
            &all,
            &aggs,
            wall.elapsed().as_secs_f64(),
            jobs
        )
    );
    for w in written {
        println!("wrote {}", w.display());
    }
    if interrupted {
        eprintln!(
            "interrupted: {} of {} runs this time; finished runs are in {} (continue with --resume)",
            finished,
            tasks.len(),
            jsonl.display()
        );
        return Err(Failure::Interrupted);
    }
    Ok(())
}

/// Makes the output directory. Without --resume, files of an earlier
/// sweep there are removed; with it, the sweep file must be the one that
/// started the sweep.
fn prepare(out: &Path, a: &SweepArgs, text: &str) -> Result<(), Failure> {
    let copy = out.join("sweep.toml");
    let rt = |p: &Path, e: std::io::Error| Failure::Runtime(format!("{}: {e}", p.display()));
    if a.resume {
        match fs::read_to_string(&copy) {
            Ok(old) if old == text => return Ok(()),
            Ok(_) => {
                return Err(Failure::BadInput(format!(
                    "--resume: {} changed since the sweep in {} started; run it without --resume or with another --out",
                    a.file.display(),
                    out.display()
                )))
            }
            Err(_) => {
                return Err(Failure::BadInput(format!(
                    "--resume: {} holds no sweep to continue",
                    out.display()
                )))
            }
        }
    }
    crate::run::prepare_out(out, OWNED)?;
    fs::write(&copy, text).map_err(|e| rt(&copy, e))
}

/// (point, seed) pairs already in results.jsonl.
fn read_done(jsonl: &Path) -> Result<HashSet<(usize, u64)>, Failure> {
    Ok(read_all(jsonl)?.keys().copied().collect())
}

/// Every finished run in results.jsonl by (point, seed). A last line cut
/// by a kill is ignored.
fn read_all(jsonl: &Path) -> Result<BTreeMap<(usize, u64), Value>, Failure> {
    let mut out = BTreeMap::new();
    let Ok(f) = fs::File::open(jsonl) else {
        return Ok(out);
    };
    for line in std::io::BufReader::new(f).lines() {
        let line = line.map_err(|e| Failure::Runtime(format!("{}: {e}", jsonl.display())))?;
        let Ok(v) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let (Some(p), Some(seed), Some(r)) = (
            v["point"].as_u64(),
            v["seed"].as_u64(),
            v.get("results").cloned(),
        ) else {
            continue;
        };
        out.insert((p as usize, seed), r);
    }
    Ok(out)
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// An axis value as the tables show it (the `--set` text, unquoted).
fn shown(v: &str) -> String {
    v.trim_matches('"').to_string()
}

fn write_tables(
    out: &Path,
    s: &Sweep,
    pts: &[Vec<(String, String)>],
    seeds: &[u64],
    scen: &[Result<Vec<Scenario>, String>],
    all: &BTreeMap<(usize, u64), Value>,
    aggs: &[Vec<ScopeSummary>],
) -> Result<Vec<PathBuf>, Failure> {
    let cannot = |p: &Path, e: std::io::Error| {
        Failure::Runtime(format!("cannot write {}: {e}", p.display()))
    };
    let axis_cols: String = s
        .axes
        .iter()
        .map(|(k, _)| format!(",{}", csv_field(k)))
        .collect();
    // runs.csv: one row per point x seed, a column per scope.metric.
    let mut columns: Vec<String> = Vec::new();
    let mut rows: Vec<(usize, u64, BTreeMap<String, f64>)> = Vec::new();
    for (&(p, seed), r) in all {
        let mut m = BTreeMap::new();
        for (_, scope, metric, x) in rows_of(seed, r) {
            let c = format!("{scope}.{metric}");
            if !columns.contains(&c) {
                columns.push(c.clone());
            }
            m.insert(c, x);
        }
        rows.push((p, seed, m));
    }
    let mut body = format!(
        "point,seed{axis_cols}{}\n",
        columns
            .iter()
            .map(|c| format!(",{}", csv_field(c)))
            .collect::<String>()
    );
    for (p, seed, m) in &rows {
        let _ = write!(body, "{p},{seed}");
        for (_, v) in &pts[*p] {
            let _ = write!(body, ",{}", csv_field(&shown(v)));
        }
        for c in &columns {
            match m.get(c) {
                Some(x) => {
                    let _ = write!(body, ",{x}");
                }
                None => body.push(','),
            }
        }
        body.push('\n');
    }
    let runs = out.join("runs.csv");
    fs::write(&runs, body).map_err(|e| cannot(&runs, e))?;

    // summary.csv and summary.json: per point, the seeds' aggregate.
    let mut csv = format!("point{axis_cols},scope,metric,n,mean,sd,ci95_low,ci95_high,ci_method\n");
    let mut points_json = Vec::new();
    for (p, coords) in pts.iter().enumerate() {
        let finished: Vec<u64> = all
            .range((p, 0)..=(p, u64::MAX))
            .map(|(k, _)| k.1)
            .collect();
        let agg = &aggs[p];
        let coord_cells: String = coords
            .iter()
            .map(|(_, v)| format!(",{}", csv_field(&shown(v))))
            .collect();
        for scope in agg {
            for (metric, x) in &scope.metrics {
                let (lo, hi) = x.ci95.map_or((String::new(), String::new()), |[l, h]| {
                    (l.to_string(), h.to_string())
                });
                let _ = writeln!(
                    csv,
                    "{p}{coord_cells},{},{},{},{},{},{lo},{hi},{}",
                    csv_field(&scope.scope),
                    csv_field(metric),
                    x.n,
                    x.mean,
                    x.sd,
                    x.ci_method
                );
            }
        }
        let coordinates: serde_json::Map<String, Value> = coords
            .iter()
            .map(|(k, v)| {
                let val = toml::from_str::<toml::Table>(&format!("v = {v}"))
                    .ok()
                    .and_then(|mut t| t.remove("v"))
                    .map_or(Value::String(shown(v)), |t| {
                        serde_json::to_value(t).unwrap_or(Value::Null)
                    });
                (k.clone(), val)
            })
            .collect();
        points_json.push(json!({
            "point": p,
            "coordinates": coordinates,
            "error": scen[p].as_ref().err(),
            "finished_seeds": finished,
            "aggregate": aggregate_json(agg),
        }));
    }
    let summary_csv = out.join("summary.csv");
    fs::write(&summary_csv, csv).map_err(|e| cannot(&summary_csv, e))?;
    let doc = json!({
        "scenario": s.scenario.display().to_string(),
        "mode": if s.zip { "zip" } else { "grid" },
        "axes": s.axes.iter().map(|(k, v)| json!({"key": k, "values": v.iter().map(|x| shown(x)).collect::<Vec<_>>()})).collect::<Vec<_>>(),
        "seeds": seeds,
        "points": points_json,
    });
    let summary = out.join("summary.json");
    let text = serde_json::to_string_pretty(&doc).expect("serialises");
    fs::write(&summary, format!("{text}\n")).map_err(|e| cannot(&summary, e))?;
    Ok(vec![runs, summary_csv, summary])
}

/// A point's rows over its finished seeds, in seed order.
fn point_rows(all: &BTreeMap<(usize, u64), Value>, p: usize) -> Rows {
    all.range((p, 0)..=(p, u64::MAX))
        .flat_map(|(&(_, seed), v)| rows_of(seed, v))
        .collect()
}

/// One line per point: its coordinates and each flow's goodput and
/// retransmissions as mean ± CI half-width.
fn render(
    s: &Sweep,
    pts: &[Vec<(String, String)>],
    scen: &[Result<Vec<Scenario>, String>],
    all: &BTreeMap<(usize, u64), Value>,
    aggs: &[Vec<ScopeSummary>],
    wall: f64,
    jobs: usize,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "sweep of {}: {} points x {} seeds, {} runs done, {jobs} at a time, {wall:.2} s wall",
        s.scenario.display(),
        pts.len(),
        s.seeds.len().max(1),
        all.len()
    );
    let _ = writeln!(out, "mean ± half-width of the 95% CI over the seeds");
    for (p, coords) in pts.iter().enumerate() {
        let label: Vec<String> = coords
            .iter()
            .map(|(k, v)| format!("{k}={}", shown(v)))
            .collect();
        if let Err(e) = &scen[p] {
            let _ = writeln!(out, "  [{p}] {}: invalid: {e}", label.join(" "));
            continue;
        }
        let n = all.range((p, 0)..=(p, u64::MAX)).count();
        let agg = &aggs[p];
        let mut cells = Vec::new();
        for scope in agg.iter().filter(|x| x.scope != "path") {
            for (m, name, k) in [
                ("goodput_bps", "goodput Mbit/s", 1e-6),
                ("retransmissions", "retx", 1.0),
            ] {
                if let Some((_, x)) = scope.metrics.iter().find(|(n, _)| n == m) {
                    let h = x.ci95.map_or(0.0, |[l, h]| (h - l) / 2.0);
                    cells.push(format!(
                        "{} {name} {:.3} ± {:.3}",
                        scope.scope,
                        x.mean * k,
                        h * k
                    ));
                }
            }
        }
        let _ = writeln!(
            out,
            "  [{p}] {} (n {n}): {}",
            label.join(" "),
            cells.join(", ")
        );
    }
    out
}

/// The metrics `losslab plot` draws for a sweep, with their axis labels
/// and scale.
const PLOTTED: &[(&str, &str, f64)] = &[
    ("goodput_bps", "goodput (Mbit/s)", 1e-6),
    ("fct_s", "flow completion time (s)", 1.0),
    ("retransmissions", "retransmissions", 1.0),
    ("timeouts", "timeouts", 1.0),
    ("rtt_ms.p99", "RTT p99 (ms)", 1.0),
];

/// `losslab plot` on a sweep directory: each metric of each flow against
/// the first axis, one line per combination of the other axes, with the
/// 95% CI as a band. Into `out` (default DIR/plots).
pub fn plot_sweep(dir: &Path, out: Option<&Path>) -> Result<Vec<PathBuf>, Failure> {
    let file = dir.join("summary.json");
    let doc: Value = fs::read_to_string(&file)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .ok_or_else(|| Failure::BadInput(format!("{}: not a sweep summary", file.display())))?;
    let axes: Vec<String> = doc["axes"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x["key"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let Some(first) = axes.first() else {
        return Err(Failure::BadInput(format!("{}: no axes", file.display())));
    };
    let points = doc["points"].as_array().cloned().unwrap_or_default();
    let text = |v: &Value| v.as_str().map_or(v.to_string(), String::from);
    // The first axis: numeric when every value is a number.
    let xs: Vec<String> = doc["axes"][0]["values"]
        .as_array()
        .map(|a| a.iter().map(text).collect())
        .unwrap_or_default();
    let numeric = points.iter().all(|p| p["coordinates"][first].is_number());
    let categories: Vec<String> = if numeric { vec![] } else { xs.clone() };
    let plots = out.map_or_else(|| dir.join("plots"), Path::to_path_buf);
    fs::create_dir_all(&plots)
        .map_err(|e| Failure::Runtime(format!("cannot create {}: {e}", plots.display())))?;
    let mut scopes: Vec<String> = Vec::new();
    for p in &points {
        for s in p["aggregate"].as_array().into_iter().flatten() {
            let name = text(&s["scope"]);
            if name != "path" && !scopes.contains(&name) {
                scopes.push(name);
            }
        }
    }
    let mut written = Vec::new();
    for scope in &scopes {
        for (metric, label, k) in PLOTTED {
            let mut series: Vec<losslab_viz::charts::BandSeries> = Vec::new();
            for p in &points {
                let c = &p["coordinates"];
                let x = if numeric {
                    c[first].as_f64().unwrap_or(f64::NAN)
                } else {
                    xs.iter().position(|v| *v == text(&c[first])).unwrap_or(0) as f64
                };
                let Some(m) = p["aggregate"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|s| text(&s["scope"]) == *scope)
                    .map(|s| &s["metrics"][*metric])
                    .filter(|m| m.is_object())
                else {
                    continue;
                };
                let mean = m["mean"].as_f64().unwrap_or(f64::NAN) * k;
                let (lo, hi) = match m["ci95"].as_array() {
                    Some(ci) => (
                        ci[0].as_f64().unwrap_or(f64::NAN) * k,
                        ci[1].as_f64().unwrap_or(f64::NAN) * k,
                    ),
                    None => (f64::NAN, f64::NAN),
                };
                let name = if axes.len() > 1 {
                    axes[1..]
                        .iter()
                        .map(|a| format!("{a}={}", text(&c[a])))
                        .collect::<Vec<_>>()
                        .join(", ")
                } else {
                    "mean".to_string()
                };
                match series.iter_mut().find(|s| s.0 == name) {
                    Some(s) => s.1.push((x, mean, lo, hi)),
                    None => series.push((name, vec![(x, mean, lo, hi)])),
                }
            }
            if series.is_empty() {
                continue;
            }
            for s in &mut series {
                s.1.sort_by(|a, b| a.0.total_cmp(&b.0));
            }
            let base = plots.join(format!("sweep-{scope}-{}", metric.replace('.', "-")));
            let files = losslab_viz::charts::lines_with_bands(
                &base,
                &format!("flow {scope}: {label}"),
                first,
                label,
                &categories,
                &series,
            )
            .map_err(|e| Failure::Runtime(e.to_string()))?;
            written.extend(files);
        }
    }
    Ok(written)
}
