//! `losslab run FILE --seeds 1..20 [--jobs N]`: the scenario once per seed,
//! in parallel, and every metric as mean, standard deviation and 95%
//! confidence interval (losslab-sim stats.rs). Runs are independent and
//! each deterministic, and they are aggregated in seed order, so the
//! output is the same whatever `--jobs` is.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use losslab_sim::parse::{parse_limit, parse_scenario_within};
use losslab_sim::stats::{
    aggregate, group, rows_of, summarize_metric, tidy_rows, Rows, ScopeSummary, Summary,
};
use losslab_sim::{RunResults, Scenario, Simulation};

use crate::memory::Guard;
use crate::outdir::OutDir;
use crate::pool;
use serde_json::{json, Value};

use crate::run::RunArgs;
use crate::Failure;

/// A bar over `n` runs with the time left.
pub fn progress_bar(n: u64, what: &str) -> ProgressBar {
    let b = ProgressBar::new(n);
    b.set_style(
        ProgressStyle::with_template(&format!(
            "{{spinner}} {what} {{pos}}/{{len}} [{{bar:40}}] {{eta}} left"
        ))
        .expect("valid template")
        .progress_chars("=> "),
    );
    b
}

/// `run --seeds`: every seed's results go to a spool file as they finish
/// and only their place in it is kept, so memory does not grow with the
/// number of seeds (docs/RELIABILITY.md, "Memory"); the tables are then
/// built from the spool in seed order (`stream_tables`).
pub fn run_seeds(
    a: &RunArgs,
    text: &str,
    seeds: &[u64],
    dir: OutDir,
    guard: &Guard,
) -> Result<(), Failure> {
    let origin = a.file.display().to_string();
    // Seeds change nothing but the seed: the first seed's scenario,
    // checked now, is every seed's with its own seed set as it runs
    // (building them all first cost memory per seed).
    let first = scenarios_for(&origin, text, &a.overrides.list(), &seeds[..1], guard)?.remove(0);
    let jobs = pool::jobs(a.jobs, seeds.len());
    let stop = pool::ctrl_c_flag();
    let show_progress =
        !a.no_progress && !a.json && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let bar = show_progress.then(|| progress_bar(seeds.len() as u64, "seeds"));

    let wall = Instant::now();
    let scratch = dir.scratch();
    let mut spool = Spool::create(&scratch.join("seeds.jsonl"), seeds.len())?;
    pool::run_all(
        seeds.len(),
        jobs,
        &stop,
        |i| {
            let mut sc = first.clone();
            sc.seed = seeds[i];
            pool::simulate(&sc, &stop)
        },
        |i, r| {
            spool.push(i, &results_value(&r));
            if let Some(b) = &bar {
                b.inc(1);
            }
        },
    );
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let spool = spool.finish()?;
    let interrupted = spool.count() < seeds.len();
    let stage = dir.stage();
    let summary = stage.join("summary.json");
    let agg = stream_tables(
        &spool,
        seeds,
        &first.name,
        interrupted,
        &scratch.join("values.bin"),
        &summary,
        &stage.join("runs.csv"),
    )?;
    let finished: Vec<u64> = spool.finished().map(|i| seeds[i]).collect();
    if a.json {
        let mut so = std::io::stdout().lock();
        let mut f = fs::File::open(&summary).map_err(|e| cannot(&summary, e))?;
        let _ = std::io::copy(&mut f, &mut so);
    } else {
        print!(
            "{}",
            render(
                &first.name,
                &finished,
                &agg,
                jobs,
                wall.elapsed().as_secs_f64()
            )
        );
    }
    let root = dir.root().to_path_buf();
    dir.commit()?;
    if !a.json {
        println!("wrote {}", root.join("summary.json").display());
        println!("wrote {}", root.join("runs.csv").display());
    }
    if interrupted {
        eprintln!(
            "interrupted: {} of {} seeds finished; their results are written",
            finished.len(),
            seeds.len()
        );
        return Err(Failure::Interrupted);
    }
    Ok(())
}

fn cannot(p: &Path, e: impl std::fmt::Display) -> Failure {
    Failure::Runtime(format!("cannot write {}: {e}", p.display()))
}

/// Finished runs' results documents, one compact JSON line each, in the
/// order they finished; where each seed's line is.
pub struct Spool {
    path: PathBuf,
    file: Option<std::io::BufWriter<fs::File>>,
    at: u64,
    /// By seed index: (offset, length) of its line.
    lines: Vec<Option<(u64, u32)>>,
    error: Option<std::io::Error>,
}

impl Spool {
    pub fn create(path: &Path, n: usize) -> Result<Spool, Failure> {
        if let Some(d) = path.parent() {
            fs::create_dir_all(d).map_err(|e| cannot(d, e))?;
        }
        let f = fs::File::create(path).map_err(|e| cannot(path, e))?;
        Ok(Spool {
            path: path.to_path_buf(),
            file: Some(std::io::BufWriter::new(f)),
            at: 0,
            lines: vec![None; n],
            error: None,
        })
    }

    /// Appends seed `i`'s document. A write error is kept for
    /// [`Spool::finish`], so that the runs still in flight can end.
    pub fn push(&mut self, i: usize, doc: &Value) {
        let line = format!("{doc}\n");
        if self.error.is_some() {
            return;
        }
        let Some(f) = self.file.as_mut() else { return };
        match f.write_all(line.as_bytes()) {
            Ok(()) => {
                self.lines[i] = Some((self.at, line.len() as u32));
                self.at += line.len() as u64;
            }
            Err(e) => self.error = Some(e),
        }
    }

    /// Closes the spool for reading.
    pub fn finish(mut self) -> Result<Spool, Failure> {
        if let Some(e) = self.error.take() {
            return Err(cannot(&self.path, e));
        }
        if let Some(mut f) = self.file.take() {
            f.flush().map_err(|e| cannot(&self.path, e))?;
        }
        Ok(self)
    }

    pub fn count(&self) -> usize {
        self.lines.iter().flatten().count()
    }

    /// Indices of the finished seeds, in seed-list order.
    pub fn finished(&self) -> impl Iterator<Item = usize> + '_ {
        self.lines
            .iter()
            .enumerate()
            .filter_map(|(i, l)| l.map(|_| i))
    }

    /// The documents of the finished seeds, in seed-list order.
    fn documents(
        &self,
    ) -> Result<impl Iterator<Item = Result<(usize, Value), Failure>> + '_, Failure> {
        use std::io::{Read, Seek, SeekFrom};
        let mut f = fs::File::open(&self.path).map_err(|e| cannot(&self.path, e))?;
        let path = self.path.clone();
        Ok(self.lines.iter().enumerate().filter_map(move |(i, l)| {
            let (at, len) = (*l)?;
            let mut buf = vec![0u8; len as usize];
            let r = f
                .seek(SeekFrom::Start(at))
                .and_then(|_| f.read_exact(&mut buf))
                .map_err(|e| cannot(&path, e))
                .and_then(|_| serde_json::from_slice::<Value>(&buf).map_err(|e| cannot(&path, e)));
            Some(r.map(|v| (i, v)))
        }))
    }
}

/// Every run's numbers on disk as (metric, value) records of 12 bytes,
/// the metrics numbered by first appearance: what `run --seeds` and
/// `sweep` build their tables from without holding the runs in memory.
pub struct Values {
    path: PathBuf,
    w: Option<std::io::BufWriter<fs::File>>,
    /// (scope, metric) by number.
    pub names: Vec<(String, String)>,
    numbers: HashMap<(String, String), u32>,
}

impl Values {
    pub fn create(path: &Path) -> Result<Values, Failure> {
        let f = fs::File::create(path).map_err(|e| cannot(path, e))?;
        Ok(Values {
            path: path.to_path_buf(),
            w: Some(std::io::BufWriter::new(f)),
            names: Vec::new(),
            numbers: HashMap::new(),
        })
    }

    /// Records one row; returns the metric's number.
    pub fn push(&mut self, scope: String, metric: String, x: f64) -> Result<u32, Failure> {
        let key = (scope, metric);
        let k = match self.numbers.get(&key) {
            Some(&k) => k,
            None => {
                self.names.push(key.clone());
                let k = self.names.len() as u32 - 1;
                self.numbers.insert(key, k);
                k
            }
        };
        let w = self.w.as_mut().expect("open until finish");
        w.write_all(&k.to_le_bytes())
            .and_then(|_| w.write_all(&x.to_le_bytes()))
            .map_err(|e| cannot(&self.path, e))?;
        Ok(k)
    }

    /// Ends writing; the records can then be read with [`Values::records`].
    pub fn finish(&mut self) -> Result<(), Failure> {
        if let Some(mut w) = self.w.take() {
            w.flush().map_err(|e| cannot(&self.path, e))?;
        }
        self.numbers = HashMap::new();
        Ok(())
    }

    /// The records in the order they were pushed.
    pub fn records(&self) -> Result<Records, Failure> {
        let f = fs::File::open(&self.path).map_err(|e| cannot(&self.path, e))?;
        Ok(Records {
            path: self.path.clone(),
            r: std::io::BufReader::new(f),
        })
    }
}

/// Reads a [`Values`] file back: (metric number, value) records.
pub struct Records {
    path: PathBuf,
    r: std::io::BufReader<fs::File>,
}

impl Iterator for Records {
    type Item = Result<(usize, f64), Failure>;

    fn next(&mut self) -> Option<Self::Item> {
        use std::io::Read;
        let mut rec = [0u8; 12];
        match self.r.read_exact(&mut rec) {
            Ok(()) => {
                let k = u32::from_le_bytes(rec[..4].try_into().expect("4 bytes")) as usize;
                let x = f64::from_le_bytes(rec[4..].try_into().expect("8 bytes"));
                Some(Ok((k, x)))
            }
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => None,
            Err(e) => Some(Err(Failure::Runtime(format!(
                "{}: {e}",
                self.path.display()
            )))),
        }
    }
}

/// Memory for one group of metric columns while the aggregate is built:
/// the columns are read back from the values file a group at a time.
const COLUMN_BUDGET: usize = 64 << 20;

/// Writes runs.csv and summary.json from the spool, in seed order, and
/// returns the aggregate. Memory: the (scope, metric) names and one group
/// of columns of at most [`COLUMN_BUDGET`] bytes; the values go through
/// `values` (a file of (metric, value) records) in between. The numbers
/// and bytes are those of [`aggregate`] and [`document`] over the same
/// runs (a test checks it).
pub fn stream_tables(
    spool: &Spool,
    seeds: &[u64],
    name: &str,
    interrupted: bool,
    values: &Path,
    summary: &Path,
    csv: &Path,
) -> Result<Vec<ScopeSummary>, Failure> {
    use std::io::BufWriter;
    let mut out = BufWriter::new(fs::File::create(csv).map_err(|e| cannot(csv, e))?);
    let mut vals = Values::create(values)?;
    out.write_all(b"seed,flow,metric,value\n")
        .map_err(|e| cannot(csv, e))?;
    for doc in spool.documents()? {
        let (i, v) = doc?;
        for (seed, scope, metric, x) in rows_of(seeds[i], &v) {
            writeln!(out, "{seed},{scope},{metric},{x}").map_err(|e| cannot(csv, e))?;
            vals.push(scope, metric, x)?;
        }
    }
    out.flush().map_err(|e| cannot(csv, e))?;
    vals.finish()?;

    let names = &vals.names;
    let runs = spool.count().max(1);
    let group_size = (COLUMN_BUDGET / (8 * runs)).max(1);
    let mut summaries = Vec::with_capacity(names.len());
    for first in (0..names.len()).step_by(group_size) {
        let last = (first + group_size).min(names.len());
        let mut cols: Vec<Vec<f64>> = vec![Vec::new(); last - first];
        for rec in vals.records()? {
            let (k, x) = rec?;
            if (first..last).contains(&k) {
                cols[k - first].push(x);
            }
        }
        for (j, col) in cols.into_iter().enumerate() {
            let (scope, metric) = &names[first + j];
            summaries.push((
                scope.clone(),
                metric.clone(),
                summarize_metric(scope, metric, &col),
            ));
        }
    }
    let agg = group(summaries);

    // summary.json as `to_string_pretty(&document(..))` prints it, one run
    // at a time (serde_json sorts the keys).
    let mut w = BufWriter::new(fs::File::create(summary).map_err(|e| cannot(summary, e))?);
    let finished: Vec<u64> = spool.finished().map(|i| seeds[i]).collect();
    let io = |e: std::io::Error| cannot(summary, e);
    write!(
        w,
        "{{\n  \"aggregate\": {},\n  \"finished_seeds\": {},\n  \"interrupted\": {interrupted},\n  \"runs\": ",
        indent(&pretty(&aggregate_json(&agg)), 2),
        indent(&pretty(&json!(finished)), 2),
    )
    .map_err(io)?;
    drop(finished);
    if spool.count() == 0 {
        w.write_all(b"[]").map_err(io)?;
    } else {
        w.write_all(b"[").map_err(io)?;
        for (n, doc) in spool.documents()?.enumerate() {
            let (_, v) = doc?;
            write!(
                w,
                "{}\n    {}",
                if n == 0 { "" } else { "," },
                indent(&pretty(&v), 4)
            )
            .map_err(io)?;
        }
        w.write_all(b"\n  ]").map_err(io)?;
    }
    writeln!(
        w,
        ",\n  \"scenario\": {},\n  \"seeds\": {}\n}}",
        pretty(&json!(name)),
        indent(&pretty(&json!(seeds)), 2)
    )
    .map_err(io)?;
    w.flush().map_err(io)?;
    Ok(agg)
}

/// `pretty`'s lines after the first, moved right by `n` spaces: a value
/// printed on its own, as it prints nested in a document.
pub fn indent(pretty: &str, n: usize) -> String {
    pretty.replace('\n', &format!("\n{}", " ".repeat(n)))
}

pub fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).expect("serialises")
}

/// A scenario from its TOML `text` with `overrides` applied, checked as
/// the simulator would build it: the one gate in front of the runs of
/// `run --seeds`, `sweep`, the Python package and its Ray workers. Errors
/// name `origin`.
pub fn checked_scenario(
    origin: &str,
    text: &str,
    overrides: &[String],
    guard: &Guard,
) -> Result<Scenario, String> {
    // The Python package's text never went through read_text (nor set the
    // process's parse limit): its parse is held to this guard's limit too.
    let limit = guard.limit.min(parse_limit());
    let sc = parse_scenario_within(origin, text, overrides, limit).map_err(|e| e.to_string())?;
    guard.check(&sc).map_err(|e| format!("{origin}: {e}"))?;
    Simulation::new(&sc).map_err(|e| format!("{origin}: {e}"))?;
    Ok(sc)
}

/// The scenario once per seed (`overrides`, then `seed=N`), each checked
/// as the simulator would build it, before any run starts. `origin` names
/// the text in messages.
pub fn scenarios_for(
    origin: &str,
    text: &str,
    overrides: &[String],
    seeds: &[u64],
    guard: &Guard,
) -> Result<Vec<Scenario>, Failure> {
    let mut out = Vec::with_capacity(seeds.len());
    for &s in seeds {
        let mut o = overrides.to_vec();
        o.push(format!("seed={s}"));
        out.push(checked_scenario(origin, text, &o, guard).map_err(Failure::BadInput)?);
    }
    Ok(out)
}

/// What a list of seeds gave: the finished runs in seed order, their
/// tidy rows and the aggregate.
pub struct SeedRuns {
    pub runs: Vec<RunResults>,
    pub rows: Rows,
    pub agg: Vec<ScopeSummary>,
    /// Ctrl-C (or the caller's `stop`) came before every seed finished.
    pub interrupted: bool,
}

/// Runs each scenario (one per seed) on `jobs` threads until `stop`, and
/// aggregates the finished runs in the scenarios' order, so that neither
/// `jobs` nor the finishing order shows. `tick` is called as each run
/// ends.
pub fn run_seed_list(
    scenarios: &[Scenario],
    jobs: usize,
    stop: &AtomicBool,
    mut tick: impl FnMut() + Send,
) -> SeedRuns {
    let mut done: Vec<Option<RunResults>> = vec![None; scenarios.len()];
    pool::run_all(
        scenarios.len(),
        jobs,
        stop,
        |i| pool::simulate(&scenarios[i], stop),
        |i, r| {
            done[i] = Some(r);
            tick();
        },
    );
    let runs: Vec<RunResults> = done.into_iter().flatten().collect();
    let interrupted = runs.len() < scenarios.len();
    let rows = tidy_rows(&runs);
    let agg = aggregate(&rows);
    SeedRuns {
        runs,
        rows,
        agg,
        interrupted,
    }
}

/// A run's results document without its wall-clock time, which is the
/// only part that depends on the machine: what summary.json, a sweep's
/// results.jsonl and the Ray workers keep.
pub fn results_value(r: &RunResults) -> Value {
    let mut v = serde_json::to_value(r).expect("results serialise");
    if let Some(o) = v.as_object_mut() {
        o.remove("wall_time_s");
    }
    v
}

/// The multi-seed results document (docs/SCENARIO.md, "Several seeds").
/// Wall-clock times are left out of it so that it depends only on the
/// scenario and the seeds.
pub fn document(
    name: &str,
    seeds: &[u64],
    runs: &[RunResults],
    agg: &[ScopeSummary],
    interrupted: bool,
) -> Value {
    let aggregate = aggregate_json(agg);
    let per_seed: Vec<Value> = runs.iter().map(results_value).collect();
    json!({
        "scenario": name,
        "seeds": seeds,
        "finished_seeds": runs.iter().map(|r| r.seed).collect::<Vec<_>>(),
        "interrupted": interrupted,
        "aggregate": aggregate,
        "runs": per_seed,
    })
}

/// The aggregate as summary.json writes it: a list of scopes, each with
/// its metrics by name.
pub fn aggregate_json(agg: &[ScopeSummary]) -> Value {
    Value::Array(
        agg.iter()
            .map(|s| {
                let metrics: serde_json::Map<String, Value> = s
                    .metrics
                    .iter()
                    .map(|(m, x)| (m.clone(), serde_json::to_value(x).expect("serialises")))
                    .collect();
                json!({ "scope": s.scope, "metrics": metrics })
            })
            .collect(),
    )
}

/// The metrics the table shows (all of them are in summary.json and
/// runs.csv), with how to print them.
const SHOWN: &[(&str, &str, f64)] = &[
    ("goodput_bps", "goodput Mbit/s", 1e-6),
    ("fct_s", "FCT s", 1.0),
    ("retransmissions", "retransmissions", 1.0),
    ("spurious_retransmissions", "spurious retx", 1.0),
    ("timeouts", "timeouts", 1.0),
    ("fast_recoveries", "fast recoveries", 1.0),
    ("rtt_ms.mean", "RTT mean ms", 1.0),
    ("rtt_ms.p99", "RTT p99 ms", 1.0),
    ("utilization", "utilization", 1.0),
    ("queue_drops", "queue drops", 1.0),
    ("loss_drops", "loss drops", 1.0),
];

fn render(name: &str, finished: &[u64], agg: &[ScopeSummary], jobs: usize, wall: f64) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "scenario {name}: {} seeds ({}..{}), {jobs} at a time, {wall:.2} s wall",
        finished.len(),
        finished.first().copied().unwrap_or(0),
        finished.last().copied().unwrap_or(0),
    );
    let _ = writeln!(s, "mean ± half-width of the 95% CI (sd; n seeds)");
    for scope in agg {
        let _ = writeln!(
            s,
            "{}:",
            if scope.scope == "path" {
                "path".to_string()
            } else {
                format!("flow {}", scope.scope)
            }
        );
        for (key, label, k) in SHOWN {
            let Some((_, x)) = scope.metrics.iter().find(|(m, _)| m == key) else {
                continue;
            };
            let _ = writeln!(s, "  {label:<18} {}", cell(x, *k));
        }
    }
    s
}

fn cell(x: &Summary, k: f64) -> String {
    let digits = |v: f64| {
        let a = (v * k).abs();
        if a >= 100.0 || a == 0.0 {
            0
        } else if a >= 1.0 {
            2
        } else {
            4
        }
    };
    match x.ci95 {
        Some([lo, hi]) => {
            let (m, h) = (x.mean * k, (hi - lo) / 2.0 * k);
            // Two significant digits of the half-width set the precision.
            let d = if h > 0.0 {
                (1 - h.log10().floor() as i32).clamp(0, 4) as usize
            } else {
                digits(x.mean)
            };
            let asym = if x.ci_method == "bootstrap" {
                format!(" [{:.d$}, {:.d$}]", lo * k, hi * k)
            } else {
                String::new()
            };
            format!("{m:.d$} ± {h:.d$}{asym}  (sd {:.d$}; n {})", x.sd * k, x.n)
        }
        None => {
            let d = digits(x.mean);
            format!("{:.d$}  (n {})", x.mean * k, x.n)
        }
    }
}
