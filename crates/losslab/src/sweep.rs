//! `losslab sweep SWEEP.toml`: a base scenario run over a grid (or a zip)
//! of `--set` values, each point over a list of seeds, on every core or
//! as tasks on a Ray cluster (ray.rs). Finished runs stream to
//! OUT/results.jsonl as they come, so Ctrl-C keeps them and `--resume`
//! continues; the tables are built from that file in (point, seed) order,
//! so they do not depend on `--jobs`, the backend or on how often the
//! sweep was resumed. Only numbers are kept in memory once a run is on
//! disk, so a sweep's memory grows with its table, not with its results
//! documents. The file format is docs/SCENARIO.md, "Sweeps"; the Python
//! package (crates/losslab-py) calls [`parse_sweep`] and [`execute`].

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::fs;
use std::io::{BufRead, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use clap::Args;
use losslab_sim::parse::parse_scenario;
use losslab_sim::stats::{aggregate, parse_seeds, rows_of, Rows, ScopeSummary};
use losslab_sim::Scenario;
use serde_json::{json, Value};

use crate::pool;
use crate::ray;
use crate::seeds::{aggregate_json, checked_scenario, progress_bar, results_value};
use crate::tables::{Column, Table};
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
    /// Run the points as tasks on the Ray cluster whose head is at
    /// ADDRESS (host:port, ray://host:port, or auto for the one `ray
    /// start --head` started on this machine) instead of on this
    /// machine's cores. Needs losslab's Python package and Ray there.
    #[arg(long, value_name = "ADDRESS", conflicts_with = "jobs")]
    pub ray: Option<String>,
    /// With --ray: the Python interpreter that has losslab's package and
    /// Ray [default: $LOSSLAB_PYTHON, else python3].
    #[arg(long, value_name = "PYTHON", requires = "ray")]
    pub python: Option<String>,
}

/// A parsed sweep.
pub struct Sweep {
    /// Names the sweep in messages: its file, or what the Python caller
    /// passed.
    pub origin: String,
    /// The sweep's text, kept as OUT/sweep.toml; `--resume` checks it.
    pub text: String,
    /// Names the base scenario (its path, or `<origin> [scenario]` when
    /// the sweep holds it inline).
    pub scenario_origin: String,
    pub scenario_text: String,
    /// Never empty: without a `seeds` key, the scenario's own seed.
    pub seeds: Vec<u64>,
    /// Axis keys in file order, with their values as `--set` text.
    pub axes: Vec<(String, Vec<String>)>,
    pub zip: bool,
    /// `--set` overrides for every point.
    pub set: Vec<String>,
}

/// Where the runs go.
pub enum Backend {
    /// Threads on this machine (`jobs`, default every core).
    Local { jobs: Option<u64> },
    /// Tasks on a Ray cluster, through the Python driver of ray.rs.
    Ray { address: String, python: String },
}

pub struct SweepOptions {
    pub out: PathBuf,
    pub backend: Backend,
    pub resume: bool,
    pub fail_fast: bool,
    pub progress: bool,
}

/// What a sweep left: its printout, the files it wrote, its tables.
pub struct Outcome {
    pub report: String,
    pub written: Vec<PathBuf>,
    /// Runs started this time, and how many of them finished.
    pub tasks: usize,
    pub finished: usize,
    pub interrupted: bool,
    /// One row per point x finished seed (runs.csv, runs.parquet).
    pub runs: Table,
    /// Where summary.json is.
    pub summary_json: PathBuf,
    pub results_jsonl: PathBuf,
}

fn bad(origin: &str, key: &str, msg: impl std::fmt::Display) -> Failure {
    Failure::BadInput(format!("{origin}: {key}: {msg}"))
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

/// Reads and parses a sweep file; a relative `scenario` path is taken
/// from the file's folder.
pub fn parse_sweep_file(file: &Path) -> Result<Sweep, Failure> {
    let text = fs::read_to_string(file)
        .map_err(|e| Failure::BadInput(format!("{}: cannot read: {e}", file.display())))?;
    parse_sweep(
        &file.display().to_string(),
        &text,
        file.parent().unwrap_or(Path::new(".")),
    )
}

/// Parses sweep TOML. `origin` names it in messages; a relative
/// `scenario` path is taken from `base`. Everything is checked here, the
/// base scenario included, so that a bad sweep stops before any run.
pub fn parse_sweep(origin: &str, text: &str, base: &Path) -> Result<Sweep, Failure> {
    let doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e| Failure::BadInput(format!("{origin}: not TOML: {e}")))?;
    const KEYS: &[&str] = &["scenario", "seeds", "mode", "set", "axes"];
    for (k, _) in doc.iter() {
        if !KEYS.contains(&k) {
            return Err(bad(
                origin,
                k,
                format!("unknown key (allowed: {})", KEYS.join(", ")),
            ));
        }
    }
    let (scenario_origin, scenario_text) = match doc.get("scenario") {
        Some(item) if item.is_str() => {
            let rel = item.as_str().expect("a string");
            let path = if Path::new(rel).is_absolute() {
                PathBuf::from(rel)
            } else {
                base.join(rel)
            };
            let text = fs::read_to_string(&path).map_err(|e| {
                bad(
                    origin,
                    "scenario",
                    format!("cannot read {}: {e}", path.display()),
                )
            })?;
            (path.display().to_string(), text)
        }
        Some(item) if item.is_table_like() => {
            // The scenario itself, inline: written out as a scenario file.
            let mut table = toml_edit::Table::new();
            for (k, v) in item.as_table_like().expect("a table").iter() {
                table.insert(k, v.clone());
            }
            let mut scen = toml_edit::DocumentMut::new();
            *scen.as_table_mut() = table;
            (format!("{origin} [scenario]"), scen.to_string())
        }
        _ => {
            return Err(bad(
                origin,
                "scenario",
                "expected the base scenario's path (a string) or the scenario itself (a table)",
            ))
        }
    };
    let seeds = match doc.get("seeds") {
        None => None,
        Some(v) => Some(if let Some(s) = v.as_str() {
            parse_seeds(s).map_err(|e| bad(origin, "seeds", e))?
        } else if let Some(n) = v.as_integer() {
            parse_seeds(&n.to_string()).map_err(|e| bad(origin, "seeds", e))?
        } else if let Some(a) = v.as_array() {
            let list: Option<Vec<String>> = a
                .iter()
                .map(|x| x.as_integer().map(|i| i.to_string()))
                .collect();
            let list = list.ok_or_else(|| bad(origin, "seeds", "a list of whole numbers"))?;
            parse_seeds(&list.join(",")).map_err(|e| bad(origin, "seeds", e))?
        } else {
            return Err(bad(
                origin,
                "seeds",
                "expected a range \"1..20\", a count or a list of seeds",
            ));
        }),
    };
    let zip = match doc.get("mode").map(|v| v.as_str()) {
        None | Some(Some("grid")) => false,
        Some(Some("zip")) => true,
        _ => return Err(bad(origin, "mode", "expected \"grid\" or \"zip\"")),
    };
    let set = match doc.get("set") {
        None => vec![],
        Some(v) => v
            .as_array()
            .and_then(|a| a.iter().map(|x| x.as_str().map(String::from)).collect())
            .ok_or_else(|| bad(origin, "set", "expected a list of \"KEY=VALUE\" strings"))?,
    };
    let axes_table = doc
        .get("axes")
        .and_then(|v| v.as_table_like())
        .ok_or_else(|| bad(origin, "axes", "expected a table of KEY = [values]"))?;
    let mut axes = Vec::new();
    for (k, v) in axes_table.iter() {
        let key = format!("axes.\"{k}\"");
        let arr = v
            .as_array()
            .ok_or_else(|| bad(origin, &key, "expected a list of values"))?;
        if arr.is_empty() {
            return Err(bad(origin, &key, "the list of values is empty"));
        }
        let vals: Option<Vec<String>> = arr.iter().map(set_text).collect();
        let vals =
            vals.ok_or_else(|| bad(origin, &key, "values must be strings, numbers or booleans"))?;
        axes.push((k.to_string(), vals));
    }
    if axes.is_empty() {
        return Err(bad(origin, "axes", "no axis: name at least one key"));
    }
    if zip {
        let n = axes[0].1.len();
        if let Some((k, v)) = axes.iter().find(|(_, v)| v.len() != n) {
            return Err(bad(
                origin,
                &format!("axes.\"{k}\""),
                format!(
                    "mode = \"zip\" needs lists of one length: {} values, not {n}",
                    v.len()
                ),
            ));
        }
    }
    let base_scenario = parse_scenario(&scenario_origin, &scenario_text, &set)
        .map_err(|e| Failure::BadInput(format!("{e} (scenario of {origin})")))?;
    Ok(Sweep {
        origin: origin.to_string(),
        text: text.to_string(),
        scenario_origin,
        scenario_text,
        seeds: seeds.unwrap_or_else(|| vec![base_scenario.seed]),
        axes,
        zip,
        set,
    })
}

/// A point: one (key, value) per axis.
type Point = Vec<(String, String)>;

/// The points, the first axis varying slowest.
fn points(s: &Sweep) -> Vec<Point> {
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
    let mut out: Vec<Point> = vec![vec![]];
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

/// A point's `--set` overrides, before the seed: the sweep's `set`, then
/// its coordinates.
fn point_overrides(s: &Sweep, p: &Point) -> Vec<String> {
    let mut o = s.set.clone();
    o.extend(p.iter().map(|(k, v)| format!("{k}={v}")));
    o
}

/// The scenario of a point and a seed, checked as the simulator would
/// build it.
fn scenario(s: &Sweep, p: &Point, seed: u64) -> Result<Scenario, String> {
    let mut o = point_overrides(s, p);
    o.push(format!("seed={seed}"));
    checked_scenario(&s.scenario_origin, &s.scenario_text, &o)
}

/// Files a sweep writes into its output directory.
const OWNED: &[&str] = &[
    "sweep.toml",
    "results.jsonl",
    "runs.csv",
    "runs.parquet",
    "summary.csv",
    "summary.parquet",
    "summary.json",
];

/// `losslab sweep`.
pub fn sweep(a: SweepArgs) -> Result<(), Failure> {
    let s = parse_sweep_file(&a.file)?;
    let stem = a
        .file
        .file_stem()
        .map_or("sweep".into(), |x| x.to_string_lossy().to_string());
    let backend = match a.ray {
        Some(address) => Backend::Ray {
            address,
            python: a
                .python
                .or_else(|| std::env::var("LOSSLAB_PYTHON").ok())
                .unwrap_or_else(|| "python3".into()),
        },
        None => Backend::Local { jobs: a.jobs },
    };
    let o = SweepOptions {
        out: a.out.unwrap_or_else(|| Path::new("out").join(&stem)),
        backend,
        resume: a.resume,
        fail_fast: a.fail_fast,
        progress: !a.no_progress && std::io::IsTerminal::is_terminal(&std::io::stderr()),
    };
    let stop = pool::ctrl_c_flag();
    let r = execute(&s, &o, &stop)?;
    print!("{}", r.report);
    for w in &r.written {
        println!("wrote {}", w.display());
    }
    if r.interrupted {
        eprintln!(
            "interrupted: {} of {} runs this time; finished runs are in {} (continue with --resume)",
            r.finished,
            r.tasks,
            r.results_jsonl.display()
        );
        return Err(Failure::Interrupted);
    }
    Ok(())
}

/// Runs a sweep into `o.out` until it is done or `stop` is raised, then
/// writes its tables from every run finished so far.
pub fn execute(s: &Sweep, o: &SweepOptions, stop: &AtomicBool) -> Result<Outcome, Failure> {
    let pts = points(s);
    // Every point is built, and so checked, before any run starts.
    let valid: Vec<Result<(), String>> = pts
        .iter()
        .map(|p| {
            s.seeds
                .iter()
                .try_for_each(|&k| scenario(s, p, k).map(drop))
        })
        .collect();
    if let Some(e) = valid.iter().find_map(|x| x.as_ref().err()) {
        if o.fail_fast || valid.iter().all(|x| x.is_err()) {
            return Err(Failure::BadInput(format!("{}: {e}", s.origin)));
        }
    }
    // A cluster that cannot be reached is bad input, found before the
    // output directory is touched.
    let driver = match &o.backend {
        Backend::Ray { address, python } => Some(ray::connect(address, python)?),
        Backend::Local { .. } => None,
    };

    prepare(&o.out, o.resume, &s.origin, &s.text)?;
    let jsonl = o.out.join("results.jsonl");
    let done_before: HashSet<(usize, u64)> = collect(&jsonl)?.runs.into_keys().collect();
    let tasks: Vec<(usize, u64)> = (0..pts.len())
        .filter(|&p| valid[p].is_ok())
        .flat_map(|p| s.seeds.iter().map(move |&k| (p, k)))
        .filter(|t| !done_before.contains(t))
        .collect();
    let bar = o.progress.then(|| progress_bar(tasks.len() as u64, "runs"));
    let mut sink = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&jsonl)
        .map_err(|e| Failure::Runtime(format!("cannot write {}: {e}", jsonl.display())))?;
    let wall = Instant::now();
    let mut write_err = None;
    let mut finished = 0usize;
    let mut record = |p: usize, seed: u64, results: Value| {
        let line = json!({ "point": p, "seed": seed, "results": results });
        if let Err(e) = writeln!(sink, "{line}") {
            write_err.get_or_insert(e);
        }
        finished += 1;
        if let Some(b) = &bar {
            b.inc(1);
        }
    };
    let how = match (&o.backend, driver) {
        (Backend::Local { jobs }, _) => {
            let jobs = pool::jobs(*jobs, tasks.len());
            pool::run_all(
                tasks.len(),
                jobs,
                stop,
                |i| {
                    let (p, seed) = tasks[i];
                    let sc = scenario(s, &pts[p], seed).ok()?;
                    pool::simulate(&sc, stop)
                },
                |i, r| record(tasks[i].0, r.seed, results_value(&r)),
            );
            format!("{jobs} at a time")
        }
        (Backend::Ray { address, .. }, Some(d)) => {
            let cpus = d.cpus;
            // One Ray task per point, with the seeds it still lacks.
            let mut by_point: BTreeMap<usize, Vec<u64>> = BTreeMap::new();
            for &(p, seed) in &tasks {
                by_point.entry(p).or_default().push(seed);
            }
            let work: Vec<ray::PointTask> = by_point
                .into_iter()
                .map(|(p, seeds)| ray::PointTask {
                    point: p,
                    overrides: point_overrides(s, &pts[p]),
                    seeds,
                })
                .collect();
            d.run(
                &s.scenario_origin,
                &s.scenario_text,
                &work,
                stop,
                &mut record,
            )?;
            format!("{} tasks on Ray at {address} ({cpus} CPUs)", work.len())
        }
        (Backend::Ray { .. }, None) => unreachable!("connected above"),
    };
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
    let c = collect(&jsonl)?;
    let runs = runs_table(s, &pts, &c);
    let mut written = Vec::new();
    let summary_json = o.out.join("summary.json");
    let (summary_table, lines) = summarise(s, &pts, &valid, &c, &summary_json)?;
    for (table, name) in [(&runs, "runs"), (&summary_table, "summary")] {
        for (ext, csv) in [("csv", true), ("parquet", false)] {
            let path = o.out.join(format!("{name}.{ext}"));
            let r = if csv {
                table.write_csv(&path)
            } else {
                table.write_parquet(&path)
            };
            r.map_err(Failure::Runtime)?;
            written.push(path);
        }
    }
    written.push(summary_json.clone());
    let report = render(
        s,
        &pts,
        &valid,
        &c,
        &lines,
        wall.elapsed().as_secs_f64(),
        &how,
    );
    Ok(Outcome {
        report,
        written,
        tasks: tasks.len(),
        finished,
        interrupted,
        runs,
        summary_json,
        results_jsonl: jsonl,
    })
}

/// Makes the output directory. Without `resume`, files of an earlier
/// sweep there are removed; with it, the sweep must be the one that
/// started the sweep there.
fn prepare(out: &Path, resume: bool, origin: &str, text: &str) -> Result<(), Failure> {
    let copy = out.join("sweep.toml");
    if resume {
        return match fs::read_to_string(&copy) {
            Ok(old) if old == text => Ok(()),
            Ok(_) => Err(Failure::BadInput(format!(
                "--resume: {origin} changed since the sweep in {} started; run it without --resume or with another --out",
                out.display()
            ))),
            Err(_) => Err(Failure::BadInput(format!(
                "--resume: {} holds no sweep to continue",
                out.display()
            ))),
        };
    }
    crate::run::prepare_out(out, OWNED)?;
    fs::write(&copy, text)
        .map_err(|e| Failure::Runtime(format!("cannot write {}: {e}", copy.display())))
}

/// The numbers of every finished run in results.jsonl, by (point, seed):
/// each run's (scope, metric) pairs, interned, with their values in the
/// results document's order.
#[derive(Default)]
struct Collected {
    names: Vec<(String, String)>,
    runs: BTreeMap<(usize, u64), Vec<(usize, f64)>>,
}

impl Collected {
    /// A point's rows over its finished seeds, in seed order.
    fn point_rows(&self, p: usize) -> Rows {
        self.runs
            .range((p, 0)..=(p, u64::MAX))
            .flat_map(|(&(_, seed), v)| {
                v.iter().map(move |&(k, x)| {
                    let (scope, metric) = &self.names[k];
                    (seed, scope.clone(), metric.clone(), x)
                })
            })
            .collect()
    }

    fn seeds_of(&self, p: usize) -> Vec<u64> {
        self.runs
            .range((p, 0)..=(p, u64::MAX))
            .map(|(k, _)| k.1)
            .collect()
    }
}

/// Reads results.jsonl a line at a time, keeping only numbers. A last
/// line cut by a kill is ignored.
fn collect(jsonl: &Path) -> Result<Collected, Failure> {
    let mut c = Collected::default();
    let Ok(f) = fs::File::open(jsonl) else {
        return Ok(c);
    };
    let mut index: HashMap<(String, String), usize> = HashMap::new();
    for line in std::io::BufReader::new(f).lines() {
        let line = line.map_err(|e| Failure::Runtime(format!("{}: {e}", jsonl.display())))?;
        let Ok(v) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let (Some(p), Some(seed), Some(r)) =
            (v["point"].as_u64(), v["seed"].as_u64(), v.get("results"))
        else {
            continue;
        };
        let vals = rows_of(seed, r)
            .into_iter()
            .map(|(_, scope, metric, x)| {
                let key = (scope, metric);
                let k = match index.get(&key) {
                    Some(&k) => k,
                    None => {
                        c.names.push(key.clone());
                        index.insert(key, c.names.len() - 1);
                        c.names.len() - 1
                    }
                };
                (k, x)
            })
            .collect();
        c.runs.insert((p as usize, seed), vals);
    }
    Ok(c)
}

/// An axis value as the tables show it (the `--set` text, unquoted).
fn shown(v: &str) -> String {
    v.trim_matches('"').to_string()
}

/// An axis's column: numbers when every value is one, else text.
fn axis_column(vals: &[&str]) -> Column {
    let nums: Option<Vec<Option<f64>>> = vals
        .iter()
        .map(|v| {
            (!v.starts_with('"'))
                .then(|| v.parse::<f64>().ok().map(Some))
                .flatten()
        })
        .collect();
    match nums {
        Some(n) => Column::Float(n),
        None => Column::Text(vals.iter().map(|v| Some(shown(v))).collect()),
    }
}

/// runs.csv and runs.parquet: one row per point x finished seed, a column
/// per axis and per scope.metric (in the order they first appear).
fn runs_table(s: &Sweep, pts: &[Point], c: &Collected) -> Table {
    let mut order: Vec<usize> = Vec::new();
    let mut seen = vec![false; c.names.len()];
    for vals in c.runs.values() {
        for &(k, _) in vals {
            if !seen[k] {
                seen[k] = true;
                order.push(k);
            }
        }
    }
    let keys: Vec<&(usize, u64)> = c.runs.keys().collect();
    let mut columns = vec![
        (
            "point".to_string(),
            Column::UInt(keys.iter().map(|k| k.0 as u64).collect()),
        ),
        (
            "seed".to_string(),
            Column::UInt(keys.iter().map(|k| k.1).collect()),
        ),
    ];
    for (i, (axis, _)) in s.axes.iter().enumerate() {
        let vals: Vec<&str> = keys.iter().map(|k| pts[k.0][i].1.as_str()).collect();
        columns.push((axis.clone(), axis_column(&vals)));
    }
    let mut cells: Vec<Vec<Option<f64>>> = vec![Vec::with_capacity(keys.len()); c.names.len()];
    for v in c.runs.values() {
        let mut row = vec![None; c.names.len()];
        for &(k, x) in v {
            row[k] = Some(x);
        }
        for (k, x) in row.into_iter().enumerate() {
            cells[k].push(x);
        }
    }
    for k in order {
        let (scope, metric) = &c.names[k];
        columns.push((
            format!("{scope}.{metric}"),
            Column::Float(std::mem::take(&mut cells[k])),
        ));
    }
    Table { columns }
}

/// `pretty`'s lines after the first, moved right by `n` spaces: a value
/// printed on its own, as it prints nested in a document.
fn indent(pretty: &str, n: usize) -> String {
    pretty.replace('\n', &format!("\n{}", " ".repeat(n)))
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).expect("serialises")
}

/// Each point's statistics, computed once and dropped once used:
/// summary.json is written a point at a time (the same bytes
/// `to_string_pretty` gives for the whole document, whose keys serde_json
/// sorts), the rows of summary.csv / summary.parquet (a row per point x
/// scope x metric) are gathered, and each point's line of the printout is
/// returned. So the documents of a thousand points are never in memory
/// together.
fn summarise(
    s: &Sweep,
    pts: &[Point],
    valid: &[Result<(), String>],
    c: &Collected,
    json_path: &Path,
) -> Result<(Table, Vec<String>), Failure> {
    let cannot =
        |e: std::io::Error| Failure::Runtime(format!("cannot write {}: {e}", json_path.display()));
    let mut w = std::io::BufWriter::new(fs::File::create(json_path).map_err(cannot)?);
    let axes: Value = s
        .axes
        .iter()
        .map(|(k, v)| json!({"key": k, "values": v.iter().map(|x| shown(x)).collect::<Vec<_>>()}))
        .collect();
    let mode = json!(if s.zip { "zip" } else { "grid" });
    write!(
        w,
        "{{\n  \"axes\": {},\n  \"mode\": {},\n  \"points\": [",
        indent(&pretty(&axes), 2),
        pretty(&mode)
    )
    .map_err(cannot)?;

    let mut point = Vec::new();
    let mut coords: Vec<Vec<&str>> = vec![Vec::new(); s.axes.len()];
    let (mut scope, mut metric, mut n, mut mean, mut sd, mut lo, mut hi, mut method) = (
        vec![],
        vec![],
        vec![],
        vec![],
        vec![],
        vec![],
        vec![],
        vec![],
    );
    let mut lines = Vec::with_capacity(pts.len());
    for (p, at) in pts.iter().enumerate() {
        let agg = aggregate(&c.point_rows(p));
        for sc in &agg {
            for (m, x) in &sc.metrics {
                point.push(p as u64);
                for (i, (_, v)) in at.iter().enumerate() {
                    coords[i].push(v.as_str());
                }
                scope.push(Some(sc.scope.clone()));
                metric.push(Some(m.clone()));
                n.push(x.n as u64);
                mean.push(Some(x.mean));
                sd.push(Some(x.sd));
                lo.push(x.ci95.map(|c| c[0]));
                hi.push(x.ci95.map(|c| c[1]));
                method.push(Some(x.ci_method.to_string()));
            }
        }
        let coordinates: serde_json::Map<String, Value> = at
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
        let doc = json!({
            "point": p,
            "coordinates": coordinates,
            "error": valid[p].as_ref().err(),
            "finished_seeds": c.seeds_of(p),
            "aggregate": aggregate_json(&agg),
        });
        write!(
            w,
            "{}\n    {}",
            if p == 0 { "" } else { "," },
            indent(&pretty(&doc), 4)
        )
        .map_err(cannot)?;
        lines.push(point_line(&agg));
    }
    writeln!(
        w,
        "\n  ],\n  \"scenario\": {},\n  \"seeds\": {}\n}}",
        pretty(&json!(s.scenario_origin)),
        indent(&pretty(&json!(s.seeds)), 2)
    )
    .map_err(cannot)?;
    w.flush().map_err(cannot)?;

    let mut columns = vec![("point".to_string(), Column::UInt(point))];
    for ((axis, _), vals) in s.axes.iter().zip(&coords) {
        columns.push((axis.clone(), axis_column(vals)));
    }
    columns.extend([
        ("scope".to_string(), Column::Text(scope)),
        ("metric".to_string(), Column::Text(metric)),
        ("n".to_string(), Column::UInt(n)),
        ("mean".to_string(), Column::Float(mean)),
        ("sd".to_string(), Column::Float(sd)),
        ("ci95_low".to_string(), Column::Float(lo)),
        ("ci95_high".to_string(), Column::Float(hi)),
        ("ci_method".to_string(), Column::Text(method)),
    ]);
    Ok((Table { columns }, lines))
}

/// A point's cells in the printout: each flow's goodput and
/// retransmissions as mean ± CI half-width.
fn point_line(agg: &[ScopeSummary]) -> String {
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
    cells.join(", ")
}

/// One line per point: its coordinates and its cells (or why it is
/// invalid).
fn render(
    s: &Sweep,
    pts: &[Point],
    valid: &[Result<(), String>],
    c: &Collected,
    lines: &[String],
    wall: f64,
    how: &str,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "sweep of {}: {} points x {} seeds, {} runs done, {how}, {wall:.2} s wall",
        s.scenario_origin,
        pts.len(),
        s.seeds.len(),
        c.runs.len()
    );
    let _ = writeln!(out, "mean ± half-width of the 95% CI over the seeds");
    for (p, coords) in pts.iter().enumerate() {
        let label: Vec<String> = coords
            .iter()
            .map(|(k, v)| format!("{k}={}", shown(v)))
            .collect();
        if let Err(e) = &valid[p] {
            let _ = writeln!(out, "  [{p}] {}: invalid: {e}", label.join(" "));
            continue;
        }
        let n = c.seeds_of(p).len();
        let _ = writeln!(out, "  [{p}] {} (n {n}): {}", label.join(" "), lines[p]);
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
