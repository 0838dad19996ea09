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

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::io::{BufRead, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use clap::Args;
use losslab_sim::parse::{parse_scenario, read_text};
use losslab_sim::stats::{aggregate, parse_seeds, rows_of, Rows, ScopeSummary};
use losslab_sim::Scenario;
use serde_json::{json, Value};

use crate::memory::Guard;
use crate::outdir::{self, Mode, Options, OutDir};
use crate::pool;
use crate::ray;
use crate::seeds::{
    aggregate_json, checked_scenario, indent, pretty, progress_bar, results_value, Values,
};
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
    /// Write into an output folder losslab did not make (or replace a
    /// result file changed since losslab wrote it). Files of yours with
    /// other names are never deleted either way; the sweep and scenario
    /// files are never replaced.
    #[arg(long)]
    pub force: bool,
    /// Refuse a sweep whose runs at once would need more memory than this
    /// (e.g. 8GB) [default: 8GB or half the machine's memory, the smaller].
    #[arg(long, value_name = "SIZE")]
    pub max_memory: Option<String>,
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
    /// Files the sweep reads (the sweep file, the base scenario's file):
    /// never written over.
    pub inputs: Vec<PathBuf>,
    /// The most connections a point runs (a `[[flow]]` of `count = N` is N
    /// of them, each with its own rows), to weigh the tables.
    pub connections: u64,
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
    /// `--force` (outdir.rs).
    pub force: bool,
    /// `--max-memory`; None: the default (memory.rs).
    pub max_memory: Option<String>,
    /// Keep runs.csv's table in memory for the caller ([`Outcome::runs`]);
    /// the command line does not, so its memory does not grow with the runs.
    pub keep_runs: bool,
}

/// What a sweep left: its printout, the files it wrote, its tables.
pub struct Outcome {
    pub report: String,
    pub written: Vec<PathBuf>,
    /// Runs started this time, and how many of them finished.
    pub tasks: usize,
    pub finished: usize,
    pub interrupted: bool,
    /// One row per point x finished seed (runs.csv, runs.parquet), with
    /// [`SweepOptions::keep_runs`]; else empty.
    pub runs: Table,
    /// Where summary.json is.
    pub summary_json: PathBuf,
    pub results_jsonl: PathBuf,
}

/// The scenario's origin as a Ray worker must see it: a worker parses
/// the text again in a working folder of Ray's, and a relative link
/// trace (issue 34) is read from the scenario file's folder, so a file's
/// path goes absolute. Nodes must see the files at those paths.
fn absolute_origin(origin: &str) -> String {
    let p = Path::new(origin);
    match std::path::absolute(p) {
        Ok(a) if p.is_file() => a.display().to_string(),
        _ => origin.to_string(),
    }
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
    let text = read_text(file)
        .map_err(|e| Failure::BadInput(format!("{}: cannot read: {e}", file.display())))?;
    let mut s = parse_sweep(
        &file.display().to_string(),
        &text,
        file.parent().unwrap_or(Path::new(".")),
    )?;
    s.inputs.push(file.to_path_buf());
    Ok(s)
}

/// Parses sweep TOML. `origin` names it in messages; a relative
/// `scenario` path is taken from `base`. Everything is checked here, the
/// base scenario included, so that a bad sweep stops before any run.
pub fn parse_sweep(origin: &str, text: &str, base: &Path) -> Result<Sweep, Failure> {
    let doc: toml_edit::DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
        // Cut to the error's surroundings: a long line is not echoed whole.
        let e = losslab_sim::parse::toml_error(text, e.span(), e.message());
        Failure::BadInput(format!("{origin}: not TOML: {e}"))
    })?;
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
    let mut inputs = Vec::new();
    let (scenario_origin, scenario_text) = match doc.get("scenario") {
        Some(item) if item.is_str() => {
            let rel = item.as_str().expect("a string");
            let path = if Path::new(rel).is_absolute() {
                PathBuf::from(rel)
            } else {
                base.join(rel)
            };
            let text = read_text(&path).map_err(|e| {
                bad(
                    origin,
                    "scenario",
                    format!("cannot read {}: {e}", path.display()),
                )
            })?;
            inputs.push(path.clone());
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
    // The sweep sets each run's seed from `seeds` (after every other
    // override), so a seed given elsewhere would be silently replaced.
    let seed_key = |k: &str| k.trim().trim_matches('"') == "seed";
    if axes.iter().any(|(k, _)| seed_key(k)) {
        return Err(bad(
            origin,
            "axes.\"seed\"",
            "the sweep's `seeds` key gives the seeds (seeds = [5, 6]), not an axis",
        ));
    }
    if set
        .iter()
        .any(|o| o.split_once('=').is_some_and(|(k, _)| seed_key(k)))
    {
        return Err(bad(
            origin,
            "set",
            "the sweep's `seeds` key gives the seeds, not `set`",
        ));
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
    refuse_dead_overrides(origin, &scenario_text, &set, &axes)?;
    let base_scenario = parse_scenario(&scenario_origin, &scenario_text, &set)
        .map_err(|e| Failure::BadInput(format!("{e} (scenario of {origin})")))?;
    let connections = most_connections(
        &scenario_origin,
        &scenario_text,
        &set,
        &axes,
        &base_scenario,
    );
    Ok(Sweep {
        origin: origin.to_string(),
        text: text.to_string(),
        scenario_origin,
        scenario_text,
        connections,
        seeds: seeds.unwrap_or_else(|| vec![base_scenario.seed]),
        axes,
        zip,
        set,
        inputs,
    })
}

/// Refuses an override that a later one always replaces: the points'
/// labels (or the `set` line) would then claim a value no run used. A
/// point applies `set` first, then the axes in order, so an override is
/// dead when a later axis writes the same key, however spelled
/// (`flow.a.mss`, ` flow[0].mss`), or a table holding it (`path.loss`
/// over `path.loss.p`). A later key inside an earlier axis's table
/// (`path.loss` then `path.loss.p`) only refines it and is kept.
fn refuse_dead_overrides(
    origin: &str,
    scenario_text: &str,
    set: &[String],
    axes: &[(String, Vec<String>)],
) -> Result<(), Failure> {
    // (how the sweep file names it, the key as written)
    let mut named: Vec<(String, &str)> = set
        .iter()
        .filter_map(|o| o.split_once('='))
        .map(|(k, _)| (format!("set \"{k}=...\""), k))
        .collect();
    let first_axis = named.len();
    named.extend(
        axes.iter()
            .map(|(k, _)| (format!("axes.\"{k}\""), k.as_str())),
    );
    let keys: Vec<&str> = named.iter().map(|n| n.1).collect();
    let targets = losslab_sim::parse::override_targets(scenario_text, &keys);
    for j in first_axis..named.len() {
        let Some(later) = &targets[j] else { continue };
        for i in 0..j {
            let Some(earlier) = &targets[i] else { continue };
            if !earlier.starts_with(later) {
                continue;
            }
            let same = if earlier.len() == later.len() {
                "name the same key"
            } else {
                "overlap"
            };
            let what = if i < first_axis {
                format!(
                    "{} and {} {same} ({}): the axis replaces the `set` value in every point, so it would never be used; drop one of them",
                    named[i].0,
                    named[j].0,
                    later.join(".").replace(".[", "[")
                )
            } else {
                format!(
                    "{} and {} {same} ({}): the later axis would replace the earlier one's value in every run while the tables label runs with both; give the key once",
                    named[i].0,
                    named[j].0,
                    later.join(".").replace(".[", "[")
                )
            };
            return Err(Failure::BadInput(format!("{origin}: {what}")));
        }
    }
    Ok(())
}

/// The most connections any point runs: each flow's largest `count`
/// (or a chunks app's `connections`) over the base scenario and each
/// value of an axis that could change it, summed over the flows. An
/// upper bound, as the memory estimate must be; values that make no
/// valid scenario are left to the points that fail on them.
fn most_connections(
    scenario_origin: &str,
    scenario_text: &str,
    set: &[String],
    axes: &[(String, Vec<String>)],
    base: &Scenario,
) -> u64 {
    let mut most: Vec<u64> = base.flows.iter().map(|f| u64::from(f.count)).collect();
    let keys: Vec<&str> = axes.iter().map(|(k, _)| k.as_str()).collect();
    let targets = losslab_sim::parse::override_targets(scenario_text, &keys);
    for ((k, vals), target) in axes.iter().zip(&targets) {
        // Only a key that is, or holds, a flow's count needs each value
        // parsed: the others leave the count as the base scenario has it.
        let may_count = target.as_ref().is_none_or(|t| {
            t.first().is_some_and(|f| f == "flow")
                && (t.len() <= 3 || t.last().is_some_and(|l| l == "count" || l == "connections"))
        });
        if !may_count {
            continue;
        }
        for v in vals {
            let mut o = set.to_vec();
            o.push(format!("{k}={v}"));
            let Ok(sc) = parse_scenario(scenario_origin, scenario_text, &o) else {
                continue;
            };
            if sc.flows.len() > most.len() {
                most.resize(sc.flows.len(), 0);
            }
            for (m, f) in most.iter_mut().zip(&sc.flows) {
                *m = (*m).max(u64::from(f.count));
            }
        }
    }
    most.iter().sum::<u64>().max(1)
}

/// A point: one (key, value) per axis.
pub type Point = Vec<(String, String)>;

/// How many points the sweep has, saturating.
fn point_count(s: &Sweep) -> u64 {
    if s.zip {
        return s.axes[0].1.len() as u64;
    }
    s.axes
        .iter()
        .fold(1u64, |n, (_, v)| n.saturating_mul(v.len() as u64))
}

/// Rows of a point in summary.csv (scope x metric), and metric columns of
/// runs.csv: at most 60 metrics per connection (35 measured) and 20 for
/// the path (6 measured). A counted flow's connections each have theirs.
fn summary_rows(s: &Sweep) -> u64 {
    s.connections.saturating_mul(60).saturating_add(20)
}

/// Memory the sweep itself holds besides its runs: the points with their
/// coordinates, the run list, the summary table (a row per point x
/// metric: 705 bytes a row measured with its CSV and Arrow copies, 800
/// counted) and runs.parquet's writer, whose cost is per metric column
/// (22 kB measured, 24 kB counted), however few the runs.
fn bookkeeping_bytes(s: &Sweep) -> u64 {
    let coords: u64 = s
        .axes
        .iter()
        .map(|(k, v)| (k.len() + 48 + v.iter().map(String::len).max().unwrap_or(0)) as u64)
        .sum();
    let points = point_count(s);
    let rows = summary_rows(s);
    points
        .saturating_mul((coords + 64).saturating_add(rows.saturating_mul(800)))
        .saturating_add(
            points
                .saturating_mul(s.seeds.len() as u64)
                .saturating_mul(48),
        )
        .saturating_add(rows.saturating_mul(24_000))
}

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
/// build it (and, before that, weighed by `guard`).
fn scenario(s: &Sweep, p: &Point, seed: u64, guard: &Guard) -> Result<Scenario, String> {
    let mut o = point_overrides(s, p);
    o.push(format!("seed={seed}"));
    checked_scenario(&s.scenario_origin, &s.scenario_text, &o, guard)
}

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
            python: ray::python(a.python),
        },
        None => Backend::Local { jobs: a.jobs },
    };
    let o = SweepOptions {
        out: a
            .out
            .unwrap_or_else(|| Path::new("out").join(outdir::folder_name(&stem))),
        backend,
        resume: a.resume,
        fail_fast: a.fail_fast,
        progress: !a.no_progress && std::io::IsTerminal::is_terminal(&std::io::stderr()),
        force: a.force,
        max_memory: a.max_memory,
        keep_runs: false,
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
    // The grid is weighed before it is listed: eight axes of ten values
    // are 10^8 points, which the list alone would not survive.
    let bookkeeping = bookkeeping_bytes(s);
    let limit = crate::memory::limit(o.max_memory.as_deref()).map_err(Failure::BadInput)?;
    if bookkeeping > limit {
        return Err(Failure::BadInput(format!(
            "{}: {} points x {} seeds would need about {} for the sweep's own lists and tables, \
             over the limit of {}; sweep fewer values, or raise the limit with --max-memory",
            s.origin,
            point_count(s),
            s.seeds.len(),
            losslab_sim::memory::human(bookkeeping),
            losslab_sim::memory::human(limit)
        )));
    }
    let pts = points(s);
    // Every point is built, and so checked, before any run starts: each
    // weighed alone first (a point that cannot fit is invalid), then the
    // heaviest times the runs held at once.
    let one = Guard {
        limit,
        at_once: 1,
        traces_loaded: false,
    };
    let mut heaviest: Option<(u64, Scenario)> = None;
    let valid: Vec<Result<(), String>> = pts
        .iter()
        .map(|p| {
            s.seeds.iter().try_for_each(|&k| {
                let sc = scenario(s, p, k, &one)?;
                let b = losslab_sim::memory::estimate(&sc, false).bytes;
                if heaviest.as_ref().is_none_or(|h| b > h.0) {
                    heaviest = Some((b, sc));
                }
                Ok(())
            })
        })
        .collect();
    if let Some(e) = valid.iter().find_map(|x| x.as_ref().err()) {
        if o.fail_fast || valid.iter().all(|x| x.is_err()) {
            return Err(Failure::BadInput(format!("{}: {e}", s.origin)));
        }
    }
    let runs_total = valid.iter().filter(|v| v.is_ok()).count() * s.seeds.len();
    if let (Some((_, sc)), Backend::Local { jobs }) = (&heaviest, &o.backend) {
        let at_once = pool::jobs(*jobs, runs_total);
        Guard {
            at_once: at_once.max(1),
            ..one
        }
        .check_with(sc, ("the sweep's own lists and tables", bookkeeping))
        .map_err(|e| Failure::BadInput(format!("{}: {e}", s.origin)))?;
    }
    // A cluster that cannot be reached is bad input, found before the
    // output directory is touched.
    let driver = match &o.backend {
        Backend::Ray { address, python } => Some(ray::connect(address, python)?),
        Backend::Local { .. } => None,
    };

    let inputs: Vec<&Path> = s.inputs.iter().map(PathBuf::as_path).collect();
    let mut dir = OutDir::open(
        &o.out,
        Options {
            flag: "--out",
            mode: if o.resume { Mode::Add } else { Mode::Fresh },
            force: o.force,
            inputs: &inputs,
        },
    )?;
    let id = sweep_id(s);
    let identity = identity(s, &id);
    if o.resume {
        // The sweep's own record stays as it is, and results.jsonl is
        // checked line by line below; only the tables are replaced.
        dir.claim(&TABLES[3..])?;
        check_resumable(&o.out, s, &identity)?;
    } else {
        dir.claim(TABLES)?;
        // A new sweep starts from nothing: an earlier sweep's runs and
        // tables go now, so a kill leaves this sweep's runs alone, never
        // a mix.
        dir.clear_earlier()?;
        dir.put("sweep.toml", s.text.as_bytes())?;
        dir.put(INPUTS, format!("{}\n", pretty(&identity)).as_bytes())?;
    }
    // Resuming, results.jsonl is read as the record of this sweep's runs,
    // every line checked, before it is appended to again; a new sweep
    // makes its own.
    let jsonl = if o.resume {
        let p = o.out.join("results.jsonl");
        if fs::symlink_metadata(&p).is_ok_and(|m| !m.file_type().is_file()) {
            return Err(Failure::BadInput(format!(
                "--resume: {} is not a file (a link or a folder)",
                p.display()
            )));
        }
        // Truncating a cut line or appending must not reach through a hard
        // link into a backup (`cp -al`) of the folder.
        outdir::unshare(&p)
            .or_else(|e| match e.kind() {
                std::io::ErrorKind::NotFound => Ok(false),
                _ => Err(e),
            })
            .map_err(|e| {
                Failure::Runtime(format!(
                    "cannot copy {} to unlink it from its other names: {e}",
                    p.display()
                ))
            })?;
        p
    } else {
        dir.live("results.jsonl", false)?
    };
    let before = read_results(&jsonl, &pts, &valid, &s.seeds, &id, true)?;
    if o.resume {
        dir.live("results.jsonl", true)?;
    }
    if before.dropped_bytes > 0 {
        eprintln!(
            "note: {}: dropped a cut last line ({} bytes; a run that was being written when the sweep stopped) before resuming",
            jsonl.display(),
            before.dropped_bytes
        );
    }
    let tasks: Vec<(usize, u64)> = (0..pts.len())
        .filter(|&p| valid[p].is_ok())
        .flat_map(|p| s.seeds.iter().map(move |&k| (p, k)))
        .filter(|t| !before.runs.contains_key(t))
        .collect();
    drop(before);
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
        // A whole line in one write: a kill leaves at most one cut line,
        // at the end, which the next --resume drops.
        let line = format!(
            "{}\n",
            json!({ "point": p, "seed": seed, "results": results, "sweep": id })
        );
        if write_err.is_none() {
            if let Err(e) = sink.write_all(line.as_bytes()) {
                write_err = Some(e);
            }
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
                    let sc = scenario(s, &pts[p], seed, &one).ok()?;
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
                    scenario: None,
                })
                .collect();
            d.run(
                &absolute_origin(&s.scenario_origin),
                &s.scenario_text,
                &work,
                stop,
                &ray::Wording {
                    task: &|p| format!("point {p}"),
                    kept: "finished runs are kept; --resume reruns the rest",
                },
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
    sink.sync_all()
        .map_err(|e| Failure::Runtime(format!("cannot write {}: {e}", jsonl.display())))?;
    drop(sink);
    let interrupted = finished < tasks.len();
    let index = read_results(&jsonl, &pts, &valid, &s.seeds, &id, false)?;
    let stage = dir.stage();
    let t = write_tables(
        s,
        &pts,
        &valid,
        &jsonl,
        &index,
        &stage,
        &dir.scratch(),
        o.keep_runs,
    )?;
    let report = render(
        s,
        &pts,
        &valid,
        &index,
        &t.lines,
        wall.elapsed().as_secs_f64(),
        &how,
    );
    let root = dir.root().to_path_buf();
    dir.commit()?;
    let written = [
        "runs.csv",
        "runs.parquet",
        "summary.csv",
        "summary.parquet",
        "summary.json",
    ]
    .iter()
    .map(|n| root.join(n))
    .collect();
    Ok(Outcome {
        report,
        written,
        tasks: tasks.len(),
        finished,
        interrupted,
        runs: t.runs,
        summary_json: root.join("summary.json"),
        results_jsonl: jsonl,
    })
}

/// The tables a sweep writes from results.jsonl at its end.
const TABLES: &[&str] = &[
    "sweep.toml",
    INPUTS,
    "results.jsonl",
    "runs.csv",
    "runs.parquet",
    "summary.csv",
    "summary.parquet",
    "summary.json",
];

/// What a sweep's runs were made from: `--resume` continues only the same.
const INPUTS: &str = "inputs.json";

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The losslab that ran the runs: a resume by another version would put
/// two engines' runs in one table.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The engine that ran them: the version stays the same from commit to
/// commit, the engine id does not (losslab_sim::ENGINE_ID).
const ENGINE: &str = losslab_sim::ENGINE_ID;

/// Names the sweep in every results.jsonl line, so that `--resume` takes
/// only lines this sweep wrote: the first 16 hex digits of the SHA-256 of
/// the sweep text, the base scenario's hash, the losslab version and the
/// engine id. Deterministic, so two sweeps of identical inputs by the same
/// engine share it, which is harmless: their runs are identical.
pub fn sweep_id(s: &Sweep) -> String {
    let text = format!(
        "losslab {VERSION}\nengine {ENGINE}\nscenario sha256 {}\nsweep\n{}",
        sha256_hex(s.scenario_text.as_bytes()),
        s.text
    );
    sha256_hex(text.as_bytes())[..16].to_string()
}

/// The content hashes of every text the sweep's runs depend on: the sweep
/// file and the base scenario (the file, or the sweep's inline table), the
/// losslab version and the sweep id ([`sweep_id`]) made of them.
fn identity(s: &Sweep, sweep_id: &str) -> Value {
    json!({
        "sweep": { "origin": s.origin, "sha256": sha256_hex(s.text.as_bytes()) },
        "scenario": { "origin": s.scenario_origin, "sha256": sha256_hex(s.scenario_text.as_bytes()) },
        "losslab": VERSION,
        "engine": ENGINE,
        "sweep_id": sweep_id,
    })
}

/// `--resume` continues only the sweep that started in `out`: the same
/// sweep text and the same base scenario, byte for byte.
fn check_resumable(out: &Path, s: &Sweep, identity: &Value) -> Result<(), Failure> {
    let shown = out.display();
    match fs::read_to_string(out.join("sweep.toml")) {
        Ok(old) if old == s.text => {}
        Ok(_) => {
            return Err(Failure::BadInput(format!(
                "--resume: {} changed since the sweep in {shown} started; run it without --resume or with another --out",
                s.origin
            )))
        }
        Err(_) => {
            return Err(Failure::BadInput(format!(
                "--resume: {shown} holds no sweep to continue"
            )))
        }
    }
    let recorded: Option<Value> = fs::read_to_string(out.join(INPUTS))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    let Some(recorded) = recorded else {
        return Err(Failure::BadInput(format!(
            "--resume: {shown}/{INPUTS} is missing or unreadable, so losslab cannot tell whether the base scenario changed; run the sweep again without --resume"
        )));
    };
    if recorded["scenario"]["sha256"] != identity["scenario"]["sha256"] {
        return Err(Failure::BadInput(format!(
            "--resume: the base scenario {} changed since the sweep in {shown} started (its content hash differs); \
             its finished runs would sit in one table with runs of the new one: run it without --resume or with another --out",
            s.scenario_origin
        )));
    }
    // Same texts, so a different id is a different losslab or engine.
    if recorded["sweep_id"] != identity["sweep_id"] {
        let by = match (recorded["losslab"].as_str(), recorded["engine"].as_str()) {
            (None, _) => "an earlier losslab, which recorded no version".to_string(),
            (Some(v), None) => format!("losslab {v}, which recorded no engine id"),
            (Some(v), Some(e)) => format!("losslab {v} (engine {e})"),
        };
        return Err(Failure::BadInput(format!(
            "--resume: the sweep in {shown} was started by {by}, this is losslab {VERSION} (engine {ENGINE}); \
             its finished runs would sit in one table with runs of another engine: \
             run it without --resume or with another --out"
        )));
    }
    Ok(())
}

/// What results.jsonl holds: where each finished run's line is.
#[derive(Debug, Default)]
pub struct ResultsIndex {
    /// By (point, seed): the line's byte offset and length.
    pub runs: BTreeMap<(usize, u64), (u64, u64)>,
    /// Bytes of a cut last line that were dropped.
    pub dropped_bytes: u64,
}

/// One line of results.jsonl, checked against the sweep: a JSON object
/// with exactly `point` (a point of the sweep, and a valid one), `seed` (one
/// of its seeds), `results` (an object) and `sweep` (the sweep's id,
/// [`sweep_id`]). The error says what is wrong.
pub fn parse_results_line(
    line: &[u8],
    points: usize,
    valid: &[Result<(), String>],
    seeds: &[u64],
    sweep: &str,
) -> Result<(usize, u64), String> {
    let v: Value = serde_json::from_slice(line).map_err(|e| format!("not JSON ({e})"))?;
    let o = v.as_object().ok_or(
        "not a JSON object like {\"point\": P, \"seed\": S, \"results\": {...}, \"sweep\": ID}",
    )?;
    if let Some(k) = o
        .keys()
        .find(|k| !["point", "seed", "results", "sweep"].contains(&k.as_str()))
    {
        return Err(format!("unknown key {k:?}"));
    }
    // A line that is valid for this sweep's points and seeds may still be
    // another sweep's run (another duration, another engine).
    match o.get("sweep") {
        Some(Value::String(id)) if id == sweep => {}
        Some(Value::String(id)) => {
            return Err(format!(
                "it is a run of another sweep or another losslab version (sweep id {id:?}, this sweep's is {sweep:?})"
            ))
        }
        Some(_) => return Err("\"sweep\" is not a sweep id (a string)".into()),
        None => {
            return Err(
                "it has no \"sweep\" id, so it is a run of another sweep or of another losslab version".into(),
            )
        }
    }
    let p = o
        .get("point")
        .and_then(Value::as_u64)
        .ok_or("no \"point\" (a whole number)")?;
    let p = usize::try_from(p)
        .ok()
        .filter(|&p| p < points)
        .ok_or_else(|| format!("point {p} is not one of this sweep's {points} points"))?;
    if let Some(Err(e)) = valid.get(p) {
        return Err(format!("point {p} is invalid in this sweep ({e})"));
    }
    let seed = o
        .get("seed")
        .and_then(Value::as_u64)
        .ok_or("no \"seed\" (a whole number)")?;
    if !seeds.contains(&seed) {
        return Err(format!("seed {seed} is not one of this sweep's seeds"));
    }
    let Some(r) = o.get("results").filter(|r| r.is_object()) else {
        return Err("no \"results\" object".into());
    };
    // A run's document names its own seed: one that says otherwise is not
    // this run's.
    if r.get("seed").and_then(Value::as_u64) != Some(seed) {
        return Err(format!(
            "its results are not those of a run with seed {seed}"
        ));
    }
    Ok((p, seed))
}

/// Reads and checks every line of results.jsonl. A last line without its
/// line break was cut by a kill or a full disk: with `repair` it is
/// truncated away (the run is done again); otherwise, and for any other
/// line that is not a run of this sweep or repeats one, the error names
/// the line.
pub fn read_results(
    jsonl: &Path,
    pts: &[Point],
    valid: &[Result<(), String>],
    seeds: &[u64],
    sweep: &str,
    repair: bool,
) -> Result<ResultsIndex, Failure> {
    use std::io::Read;
    let mut idx = ResultsIndex::default();
    let Ok(f) = fs::File::open(jsonl) else {
        return Ok(idx);
    };
    let shown = jsonl.display();
    let mut r = std::io::BufReader::new(f);
    let mut line = Vec::new();
    let mut at = 0u64;
    let mut n = 0usize;
    loop {
        line.clear();
        let got = r
            .by_ref()
            .read_until(b'\n', &mut line)
            .map_err(|e| Failure::Runtime(format!("{shown}: {e}")))?;
        if got == 0 {
            break;
        }
        n += 1;
        if line.last() != Some(&b'\n') {
            // What a kill cuts is the start of a run's line (serde_json
            // writes "point" first); anything else is not losslab's to drop.
            const START: &[u8] = b"{\"point\":";
            let ours = line.starts_with(START) || START.starts_with(&line);
            if !repair || !ours {
                return Err(Failure::BadInput(format!(
                    "{shown}: line {n} is cut (no line break at its end)"
                )));
            }
            drop(r);
            let f = fs::OpenOptions::new()
                .write(true)
                .open(jsonl)
                .map_err(|e| Failure::Runtime(format!("{shown}: {e}")))?;
            f.set_len(at)
                .and_then(|_| f.sync_all())
                .map_err(|e| Failure::Runtime(format!("cannot truncate {shown}: {e}")))?;
            idx.dropped_bytes = got as u64;
            return Ok(idx);
        }
        let key = parse_results_line(&line, pts.len(), valid, seeds, sweep).map_err(|e| {
            Failure::BadInput(format!(
                "{shown}: line {n}: {e}; this file is not (only) this sweep's runs: \
                 run the sweep without --resume, or with another --out"
            ))
        })?;
        if idx.runs.insert(key, (at, got as u64)).is_some() {
            return Err(Failure::BadInput(format!(
                "{shown}: line {n}: point {} seed {} is there twice; run the sweep without --resume, or with another --out",
                key.0, key.1
            )));
        }
        at += got as u64;
    }
    Ok(idx)
}

/// Reads run `key`'s results document from results.jsonl.
fn read_run(f: &mut fs::File, jsonl: &Path, (at, len): (u64, u64)) -> Result<Value, Failure> {
    use std::io::{Read, Seek, SeekFrom};
    let mut buf = vec![0u8; len as usize];
    f.seek(SeekFrom::Start(at))
        .and_then(|_| f.read_exact(&mut buf))
        .map_err(|e| Failure::Runtime(format!("{}: {e}", jsonl.display())))?;
    let mut v: Value = serde_json::from_slice(&buf)
        .map_err(|e| Failure::Runtime(format!("{}: {e}", jsonl.display())))?;
    Ok(v["results"].take())
}

/// What [`write_tables`] leaves beside the files.
struct Tables {
    /// runs.csv as a table, when the caller keeps it (Python).
    runs: Table,
    /// Each point's cells in the printout.
    lines: Vec<String>,
}

/// Rows of runs.parquet per batch.
const BATCH: usize = 4096;

/// Writes runs.csv, runs.parquet, summary.csv, summary.parquet and
/// summary.json into `stage` from results.jsonl, in (point, seed) order,
/// whatever order the runs finished in. Memory: the metric names, one
/// point's rows, a batch of runs and the summary table (a row per point x
/// metric); every run's numbers go through a file in `scratch` between
/// the two passes (the first finds the columns, the second writes rows).
#[allow(clippy::too_many_arguments)]
fn write_tables(
    s: &Sweep,
    pts: &[Point],
    valid: &[Result<(), String>],
    jsonl: &Path,
    index: &ResultsIndex,
    stage: &Path,
    scratch: &Path,
    keep_runs: bool,
) -> Result<Tables, Failure> {
    // Pass 1: every run's numbers as (metric, value) records, the metrics
    // numbered in the order they first appear in (point, seed) order.
    let mut values = Values::create(&scratch.join("sweep-values.bin"))?;
    let mut lens: Vec<u32> = Vec::with_capacity(index.runs.len());
    {
        let mut src = fs::File::open(jsonl)
            .map_err(|e| Failure::Runtime(format!("{}: {e}", jsonl.display())))?;
        for (&(_, seed), &at) in &index.runs {
            let r = read_run(&mut src, jsonl, at)?;
            let rows = rows_of(seed, &r);
            lens.push(rows.len() as u32);
            for (_, scope, metric, x) in rows {
                values.push(scope, metric, x)?;
            }
        }
        values.finish()?;
    }
    let names = &values.names;

    // Pass 2: runs.csv and runs.parquet a batch at a time, and each
    // point's statistics from its own runs.
    let ran: Vec<usize> = index.runs.keys().map(|k| k.0).collect();
    let axis_types: Vec<bool> = (0..s.axes.len())
        .map(|i| {
            let vals: Vec<&str> = ran.iter().map(|&p| pts[p][i].1.as_str()).collect();
            matches!(axis_column(&vals), Column::Float(_))
        })
        .collect();
    let mut runs_out = RunsWriter::create(
        &stage.join("runs.csv"),
        &stage.join("runs.parquet"),
        s,
        &axis_types,
        names,
        keep_runs,
    )?;
    let summary_json = stage.join("summary.json");
    let mut summary = SummaryWriter::create(s, &summary_json)?;
    let mut records = values.records()?;
    let mut keys = index.runs.keys().zip(&lens).peekable();
    let mut lines = Vec::with_capacity(pts.len());
    for (p, at) in pts.iter().enumerate() {
        let mut point_rows: Rows = Vec::new();
        let mut seeds = Vec::new();
        while let Some((&(q, seed), &n)) = keys.peek() {
            if q != p {
                break;
            }
            keys.next();
            seeds.push(seed);
            let mut row = vec![None; names.len()];
            for _ in 0..n {
                let (k, x) = records.next().ok_or_else(|| {
                    Failure::Runtime("the sweep's values spool ended early".into())
                })??;
                row[k] = Some(x);
                let (scope, metric) = &names[k];
                point_rows.push((seed, scope.clone(), metric.clone(), x));
            }
            runs_out.push(p, seed, at, row)?;
        }
        let agg = aggregate(&point_rows);
        summary.point(p, at, valid[p].as_ref().err(), &seeds, &agg)?;
        lines.push(point_line(&agg));
    }
    let runs = runs_out.finish()?;
    summary.finish(&stage.join("summary.csv"), &stage.join("summary.parquet"))?;
    Ok(Tables { runs, lines })
}

/// runs.csv and runs.parquet, written a row at a time: one row per point x
/// finished seed, a column per axis and per scope.metric.
struct RunsWriter {
    csv_path: PathBuf,
    parquet_path: PathBuf,
    csv: std::io::BufWriter<fs::File>,
    parquet: parquet::arrow::ArrowWriter<fs::File>,
    axis_numeric: Vec<bool>,
    names: Vec<String>,
    batch: Table,
    kept: Option<Table>,
}

impl RunsWriter {
    fn create(
        csv: &Path,
        parquet: &Path,
        s: &Sweep,
        axis_numeric: &[bool],
        names: &[(String, String)],
        keep: bool,
    ) -> Result<RunsWriter, Failure> {
        let cannot = |p: &Path, e: &dyn std::fmt::Display| {
            Failure::Runtime(format!("cannot write {}: {e}", p.display()))
        };
        let mut batch = Table::default();
        batch.columns.push(("point".into(), Column::UInt(vec![])));
        batch.columns.push(("seed".into(), Column::UInt(vec![])));
        for ((axis, _), &num) in s.axes.iter().zip(axis_numeric) {
            let c = if num {
                Column::Float(vec![])
            } else {
                Column::Text(vec![])
            };
            batch.columns.push((axis.clone(), c));
        }
        let names: Vec<String> = names.iter().map(|(s, m)| format!("{s}.{m}")).collect();
        for n in &names {
            batch.columns.push((n.clone(), Column::Float(vec![])));
        }
        let mut w = std::io::BufWriter::new(fs::File::create(csv).map_err(|e| cannot(csv, &e))?);
        w.write_all(batch.to_csv().as_bytes())
            .map_err(|e| cannot(csv, &e))?;
        let schema = batch.to_arrow().map_err(Failure::Runtime)?.schema();
        let f = fs::File::create(parquet).map_err(|e| cannot(parquet, &e))?;
        let pq = parquet::arrow::ArrowWriter::try_new(f, schema, None)
            .map_err(|e| cannot(parquet, &e))?;
        Ok(RunsWriter {
            csv_path: csv.to_path_buf(),
            parquet_path: parquet.to_path_buf(),
            csv: w,
            parquet: pq,
            axis_numeric: axis_numeric.to_vec(),
            names,
            kept: keep.then(|| batch.clone()),
            batch,
        })
    }

    fn push(
        &mut self,
        p: usize,
        seed: u64,
        at: &Point,
        row: Vec<Option<f64>>,
    ) -> Result<(), Failure> {
        let cols = &mut self.batch.columns;
        let mut push_u = |i: usize, v: u64| {
            if let Column::UInt(c) = &mut cols[i].1 {
                c.push(v)
            }
        };
        push_u(0, p as u64);
        push_u(1, seed);
        for (i, ((_, v), &num)) in at.iter().zip(&self.axis_numeric).enumerate() {
            match &mut cols[2 + i].1 {
                Column::Float(c) if num => c.push(v.parse::<f64>().ok()),
                Column::Text(c) => c.push(Some(shown(v))),
                _ => {}
            }
        }
        let base = 2 + at.len();
        for (k, x) in row.into_iter().enumerate() {
            if let Column::Float(c) = &mut cols[base + k].1 {
                c.push(x);
            }
        }
        if self.batch.rows() >= BATCH {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), Failure> {
        if self.batch.rows() == 0 {
            return Ok(());
        }
        let csv = self.batch.to_csv();
        // The header line is written once, at the start.
        let body = csv.split_once('\n').map_or("", |x| x.1);
        self.csv.write_all(body.as_bytes()).map_err(|e| {
            Failure::Runtime(format!("cannot write {}: {e}", self.csv_path.display()))
        })?;
        let b = self.batch.to_arrow().map_err(Failure::Runtime)?;
        self.parquet.write(&b).map_err(|e| {
            Failure::Runtime(format!("cannot write {}: {e}", self.parquet_path.display()))
        })?;
        for (i, (_, c)) in self.batch.columns.iter_mut().enumerate() {
            if let Some(k) = &mut self.kept {
                k.columns[i].1.append(c);
            }
            c.clear();
        }
        let _ = &self.names;
        Ok(())
    }

    fn finish(mut self) -> Result<Table, Failure> {
        self.flush()?;
        self.csv.flush().map_err(|e| {
            Failure::Runtime(format!("cannot write {}: {e}", self.csv_path.display()))
        })?;
        self.parquet.close().map_err(|e| {
            Failure::Runtime(format!("cannot write {}: {e}", self.parquet_path.display()))
        })?;
        Ok(self.kept.unwrap_or_default())
    }
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

/// summary.json a point at a time (the same bytes `to_string_pretty` gives
/// for the whole document, whose keys serde_json sorts), and the rows of
/// summary.csv / summary.parquet (a row per point x scope x metric).
struct SummaryWriter<'a> {
    s: &'a Sweep,
    path: PathBuf,
    w: std::io::BufWriter<fs::File>,
    point: Vec<u64>,
    coords: Vec<Vec<String>>,
    scope: Vec<Option<String>>,
    metric: Vec<Option<String>>,
    n: Vec<u64>,
    mean: Vec<Option<f64>>,
    sd: Vec<Option<f64>>,
    lo: Vec<Option<f64>>,
    hi: Vec<Option<f64>>,
    method: Vec<Option<String>>,
}

impl<'a> SummaryWriter<'a> {
    fn create(s: &'a Sweep, path: &Path) -> Result<SummaryWriter<'a>, Failure> {
        let mut w = std::io::BufWriter::new(
            fs::File::create(path)
                .map_err(|e| Failure::Runtime(format!("cannot write {}: {e}", path.display())))?,
        );
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
        .map_err(|e| Failure::Runtime(format!("cannot write {}: {e}", path.display())))?;
        Ok(SummaryWriter {
            s,
            path: path.to_path_buf(),
            w,
            point: vec![],
            coords: vec![Vec::new(); s.axes.len()],
            scope: vec![],
            metric: vec![],
            n: vec![],
            mean: vec![],
            sd: vec![],
            lo: vec![],
            hi: vec![],
            method: vec![],
        })
    }

    fn point(
        &mut self,
        p: usize,
        at: &Point,
        error: Option<&String>,
        seeds: &[u64],
        agg: &[ScopeSummary],
    ) -> Result<(), Failure> {
        for sc in agg {
            for (m, x) in &sc.metrics {
                self.point.push(p as u64);
                for (i, (_, v)) in at.iter().enumerate() {
                    self.coords[i].push(v.clone());
                }
                self.scope.push(Some(sc.scope.clone()));
                self.metric.push(Some(m.clone()));
                self.n.push(x.n as u64);
                self.mean.push(Some(x.mean));
                self.sd.push(Some(x.sd));
                self.lo.push(x.ci95.map(|c| c[0]));
                self.hi.push(x.ci95.map(|c| c[1]));
                self.method.push(Some(x.ci_method.to_string()));
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
            "error": error,
            "finished_seeds": seeds,
            "aggregate": aggregate_json(agg),
        });
        write!(
            self.w,
            "{}\n    {}",
            if p == 0 { "" } else { "," },
            indent(&pretty(&doc), 4)
        )
        .map_err(|e| Failure::Runtime(format!("cannot write {}: {e}", self.path.display())))
    }

    fn finish(mut self, csv: &Path, parquet: &Path) -> Result<(), Failure> {
        let s = self.s;
        writeln!(
            self.w,
            "\n  ],\n  \"scenario\": {},\n  \"seeds\": {}\n}}",
            pretty(&json!(s.scenario_origin)),
            indent(&pretty(&json!(s.seeds)), 2)
        )
        .and_then(|_| self.w.flush())
        .map_err(|e| Failure::Runtime(format!("cannot write {}: {e}", self.path.display())))?;
        let mut columns = vec![("point".to_string(), Column::UInt(self.point))];
        for ((axis, _), vals) in s.axes.iter().zip(&self.coords) {
            let v: Vec<&str> = vals.iter().map(String::as_str).collect();
            columns.push((axis.clone(), axis_column(&v)));
        }
        columns.extend([
            ("scope".to_string(), Column::Text(self.scope)),
            ("metric".to_string(), Column::Text(self.metric)),
            ("n".to_string(), Column::UInt(self.n)),
            ("mean".to_string(), Column::Float(self.mean)),
            ("sd".to_string(), Column::Float(self.sd)),
            ("ci95_low".to_string(), Column::Float(self.lo)),
            ("ci95_high".to_string(), Column::Float(self.hi)),
            ("ci_method".to_string(), Column::Text(self.method)),
        ]);
        let t = Table { columns };
        t.write_csv(csv).map_err(Failure::Runtime)?;
        t.write_parquet(parquet).map_err(Failure::Runtime)
    }
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
    c: &ResultsIndex,
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
        let n = c.runs.range((p, 0)..=(p, u64::MAX)).count();
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
    // Scopes are flow names, which may hold `/` and clash once made
    // file-safe: the stems of the pcaps and a run's pictures.
    let stems = losslab_core::stem::file_stems(&scopes);
    let mut written = Vec::new();
    for (scope, stem) in scopes.iter().zip(&stems) {
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
            let base = plots.join(format!("sweep-{stem}-{}", metric.replace('.', "-")));
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn points(n: usize) -> Vec<Point> {
        (0..n)
            .map(|i| vec![("path.loss.p".to_string(), i.to_string())])
            .collect()
    }

    fn valid(n: usize) -> Vec<Result<(), String>> {
        (0..n)
            .map(|p| if p == 3 { Err("bad".into()) } else { Ok(()) })
            .collect()
    }

    const ID: &str = "0123456789abcdef";

    fn line(p: i64, seed: u64) -> String {
        format!("{{\"point\":{p},\"seed\":{seed},\"results\":{{\"seed\":{seed},\"flows\":[]}},\"sweep\":\"{ID}\"}}\n")
    }

    #[test]
    fn a_results_line_is_checked_against_the_sweep() {
        let v = valid(8);
        let ok = |l: &str| parse_results_line(l.as_bytes(), 8, &v, &[1, 2], ID);
        assert_eq!(ok(&line(0, 2)), Ok((0, 2)));
        for (bad, what) in [
            (line(8, 1), "point 8"),
            (line(3, 1), "invalid"),
            (line(-1, 1), "point"),
            (line(0, 3), "seed 3"),
            (
                line(0, 1).replace("\"seed\":1,\"flows", "\"seed\":2,\"flows"),
                "not those of a run with seed 1",
            ),
            (
                format!("{{\"point\":0,\"seed\":1,\"sweep\":\"{ID}\"}}"),
                "results",
            ),
            (
                "{\"point\":0,\"seed\":1,\"results\":{},\"x\":1}".into(),
                "unknown key",
            ),
            // Valid point and seed, but not this sweep's: another sweep's
            // id, none (an older losslab), or not an id.
            (
                line(0, 1).replace(ID, "fedcba9876543210"),
                "another sweep or another losslab version",
            ),
            (
                line(0, 1).replace(&format!(",\"sweep\":\"{ID}\""), ""),
                "another sweep or of another losslab version",
            ),
            (
                line(0, 1).replace(&format!("\"{ID}\""), "7"),
                "not a sweep id",
            ),
            ("[]".into(), "object"),
            ("{".into(), "not JSON"),
            (
                format!(
                    "{{\"point\":{},\"seed\":1,\"results\":{{}},\"sweep\":\"{ID}\"}}",
                    u64::MAX
                ),
                "point",
            ),
        ] {
            let e = ok(&bad).unwrap_err();
            assert!(e.contains(what), "{bad}: {e}");
        }
    }

    /// A sweep of an inline scenario with one flow of `count` connections.
    fn sweep_with(count: u32, rest: &str) -> Result<Sweep, Failure> {
        let text = format!(
            "{rest}[scenario]\nduration = \"50ms\"\n[scenario.path]\nrate = \"10Mbps\"\ndelay = \"5ms\"\n\
             [[scenario.flow]]\nname = \"a\"\ncount = {count}\napp = {{ kind = \"bulk\" }}\n"
        );
        parse_sweep("t.toml", &text, Path::new("."))
    }

    /// The estimate counts every connection of a counted flow: a row
    /// bound per connection at least what one connection really makes
    /// (measured by running it), times the connections, also when an axis
    /// raises the count.
    #[test]
    fn the_memory_estimate_counts_connections() {
        let axis = "[axes]\n\"path.delay\" = [\"5ms\", \"6ms\"]\n";
        let one = sweep_with(1, axis).unwrap();
        let d = tempfile::tempdir().unwrap();
        let o = SweepOptions {
            out: d.path().join("o"),
            backend: Backend::Local { jobs: Some(1) },
            resume: false,
            fail_fast: true,
            progress: false,
            force: false,
            max_memory: None,
            keep_runs: false,
        };
        execute(&one, &o, &AtomicBool::new(false)).unwrap();
        let csv = fs::read_to_string(d.path().join("o/summary.csv")).unwrap();
        let rows = |scope: &str| {
            csv.lines()
                .filter(|l| l.starts_with("0,") && l.split(',').nth(2) == Some(scope))
                .count() as u64
        };
        let (conn, path) = (rows("a"), rows("path"));
        assert!(conn > 20 && path > 0, "{conn} {path}");
        assert!(summary_rows(&one) >= conn + path);

        let many = sweep_with(1000, axis).unwrap();
        assert_eq!(many.connections, 1000);
        assert!(summary_rows(&many) >= 1000 * conn + path);
        assert!(bookkeeping_bytes(&many) >= 1000 * bookkeeping_bytes(&one) / 2);
        assert!(bookkeeping_bytes(&many) >= 2 * (1000 * conn + path) * 705);
        // The largest count an axis gives, through either of its keys.
        for k in ["flow.a.count", "flow[0].count"] {
            let s = sweep_with(1, &format!("[axes]\n\"{k}\" = [1, 1000, 3]\n")).unwrap();
            assert_eq!(s.connections, 1000, "{k}");
            assert!(bookkeeping_bytes(&s) > bookkeeping_bytes(&many));
        }
        let s = sweep_with(1, &format!("set = [\"flow.a.count=1000\"]\n{axis}")).unwrap();
        assert_eq!(s.connections, 1000);
    }

    /// One key named twice (however spelled), or an axis that is also in
    /// `set`, is refused naming both; distinct keys, and a later key
    /// inside an earlier one's table, are not.
    #[test]
    fn a_key_named_twice_is_refused() {
        for (rest, names) in [
            (
                "[axes]\n\"path.loss.p\" = [0.001, 0.05]\n\" path.loss.p\" = [0.2]\n",
                ["axes.\"path.loss.p\"", "axes.\" path.loss.p\""],
            ),
            (
                "[axes]\n\"flow.a.mss\" = [1000]\n\"flow.\\\"a\\\".mss\" = [1200]\n",
                ["axes.\"flow.a.mss\"", "axes.\"flow.\"a\".mss\""],
            ),
            (
                "[axes]\n\"flow[0].mss\" = [1000]\n\"flow.a.mss\" = [1200]\n",
                ["axes.\"flow[0].mss\"", "axes.\"flow.a.mss\""],
            ),
            (
                "set = [\"flow.a.mss=900\"]\n[axes]\n\"flow[0].mss\" = [1000]\n",
                ["set \"flow.a.mss=...\"", "axes.\"flow[0].mss\""],
            ),
            (
                "set = [\"path.loss.p=0.1\"]\n[axes]\n\"path.loss\" = [\"x\"]\n",
                ["set \"path.loss.p=...\"", "axes.\"path.loss\""],
            ),
        ] {
            let e = match sweep_with(1, rest) {
                Err(Failure::BadInput(e)) => e,
                Err(e) => panic!("{rest}: {e}"),
                Ok(_) => panic!("{rest}: accepted"),
            };
            assert!(e.starts_with("t.toml: "), "{e}");
            for n in names {
                assert!(e.contains(n), "{n}: {e}");
            }
        }
        for rest in [
            "[axes]\n\"path.loss.p\" = [0.001]\n\"flow.a.mss\" = [1000]\n",
            "set = [\"path.loss={model=\\\"bernoulli\\\", p=0.1}\"]\n[axes]\n\"path.loss.p\" = [0.001]\n",
        ] {
            if let Err(e) = sweep_with(1, rest) {
                panic!("{rest}: {e}");
            }
        }
    }

    /// A file of `n` good lines, then `tail` (the bytes a kill or a hostile
    /// editor left).
    fn file(dir: &Path, lines: &[String], tail: &[u8]) -> PathBuf {
        let p = dir.join("results.jsonl");
        let mut b = lines.concat().into_bytes();
        b.extend_from_slice(tail);
        fs::write(&p, b).unwrap();
        p
    }

    #[test]
    fn a_cut_last_line_is_dropped_and_only_with_repair() {
        let d = tempfile::tempdir().unwrap();
        let good = vec![line(0, 1), line(1, 2)];
        let cut = b"{\"point\":2,\"se";
        let p = file(d.path(), &good, cut);
        let e = read_results(&p, &points(8), &valid(8), &[1, 2], ID, false).unwrap_err();
        assert!(e.to_string().contains("line 3 is cut"), "{e}");
        let idx = read_results(&p, &points(8), &valid(8), &[1, 2], ID, true).unwrap();
        assert_eq!(idx.runs.len(), 2);
        assert_eq!(idx.dropped_bytes, cut.len() as u64);
        assert_eq!(fs::read_to_string(&p).unwrap(), good.concat());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Whatever follows the good lines, reading never panics: the
        /// index holds exactly the good runs plus those the tail validly
        /// adds, or the error names a line; with `repair`, a tail with no
        /// line break is dropped and the file is the good lines again.
        #[test]
        fn the_resume_reader_never_panics_or_miscounts(
            keep in 0usize..6,
            tail in proptest::collection::vec(any::<u8>(), 0..200),
            repair in any::<bool>(),
        ) {
            let d = tempfile::tempdir().unwrap();
            let good: Vec<String> = (0..keep).map(|i| line(if i >= 3 { i as i64 + 1 } else { i as i64 }, 1)).collect();
            let p = file(d.path(), &good, &tail);
            match read_results(&p, &points(8), &valid(8), &[1, 2], ID, repair) {
                Ok(idx) => {
                    prop_assert!(idx.runs.len() >= keep);
                    prop_assert!(idx.runs.keys().all(|&(p, s)| p < 8 && p != 3 && s <= 2));
                    if !tail.contains(&b'\n') && !tail.is_empty() {
                        prop_assert!(repair);
                        prop_assert_eq!(idx.runs.len(), keep);
                        prop_assert_eq!(fs::read_to_string(&p).unwrap(), good.concat());
                    }
                }
                Err(e) => prop_assert!(e.to_string().contains("line "), "{}", e),
            }
        }

        /// Arbitrary lines that parse are runs of the sweep; the rest are
        /// errors that say why.
        #[test]
        fn a_line_parses_only_as_a_run_of_the_sweep(
            p in -3i64..12, seed in 0u64..5, junk in "[ -~]{0,40}",
        ) {
            let v = valid(8);
            let l = line(p, seed);
            let r = parse_results_line(l.trim_end().as_bytes(), 8, &v, &[1, 2], ID);
            prop_assert_eq!(r.is_ok(), (0..8).contains(&p) && p != 3 && (1..=2).contains(&seed));
            let r = parse_results_line(junk.as_bytes(), 8, &v, &[1, 2], ID);
            if let Err(e) = r {
                prop_assert!(!e.is_empty());
            }
        }
    }
}
