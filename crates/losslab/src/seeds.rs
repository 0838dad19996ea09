//! `losslab run FILE --seeds 1..20 [--jobs N]`: the scenario once per seed,
//! in parallel, and every metric as mean, standard deviation and 95%
//! confidence interval (losslab-sim stats.rs). Runs are independent and
//! each deterministic, and they are aggregated in seed order, so the
//! output is the same whatever `--jobs` is.

use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use losslab_sim::parse::parse_scenario;
use losslab_sim::stats::{aggregate, parse_seeds, tidy_rows, Rows, ScopeSummary, Summary};
use losslab_sim::{RunResults, Scenario, Simulation};

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

pub fn run_seeds(a: &RunArgs, spec: &str, out: &Path) -> Result<(), Failure> {
    let seeds = parse_seeds(spec).map_err(|e| Failure::BadInput(format!("--seeds {spec}: {e}")))?;
    let origin = a.file.display().to_string();
    let text = fs::read_to_string(&a.file)
        .map_err(|e| Failure::BadInput(format!("{origin}: cannot read the scenario: {e}")))?;
    let scenarios = scenarios_for(&origin, &text, &a.overrides.list(), &seeds)?;
    let jobs = pool::jobs(a.jobs, seeds.len());
    let stop = pool::ctrl_c_flag();
    let show_progress =
        !a.no_progress && !a.json && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let bar = show_progress.then(|| progress_bar(seeds.len() as u64, "seeds"));

    let wall = Instant::now();
    let SeedRuns {
        runs,
        rows,
        agg,
        interrupted,
    } = run_seed_list(&scenarios, jobs, &stop, || {
        if let Some(b) = &bar {
            b.inc(1);
        }
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let doc = document(&scenarios[0].name, &seeds, &runs, &agg, interrupted);
    let text = serde_json::to_string_pretty(&doc).expect("serialises");
    let cannot = |p: &Path, e: std::io::Error| {
        Failure::Runtime(format!("cannot write {}: {e}", p.display()))
    };
    let summary = out.join("summary.json");
    fs::write(&summary, format!("{text}\n")).map_err(|e| cannot(&summary, e))?;
    let csv = out.join("runs.csv");
    let mut body = String::from("seed,flow,metric,value\n");
    for (seed, scope, metric, x) in &rows {
        let _ = writeln!(body, "{seed},{scope},{metric},{x}");
    }
    fs::write(&csv, body).map_err(|e| cannot(&csv, e))?;

    if a.json {
        let _ = writeln!(std::io::stdout().lock(), "{text}");
    } else {
        print!(
            "{}",
            render(
                &scenarios[0].name,
                &runs,
                &agg,
                jobs,
                wall.elapsed().as_secs_f64()
            )
        );
        println!("wrote {}", summary.display());
        println!("wrote {}", csv.display());
    }
    if interrupted {
        eprintln!(
            "interrupted: {} of {} seeds finished; their results are written",
            runs.len(),
            seeds.len()
        );
        return Err(Failure::Interrupted);
    }
    Ok(())
}

/// A scenario from its TOML `text` with `overrides` applied, checked as
/// the simulator would build it: the one gate in front of the runs of
/// `run --seeds`, `sweep`, the Python package and its Ray workers. Errors
/// name `origin`.
pub fn checked_scenario(
    origin: &str,
    text: &str,
    overrides: &[String],
) -> Result<Scenario, String> {
    let sc = parse_scenario(origin, text, overrides).map_err(|e| e.to_string())?;
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
) -> Result<Vec<Scenario>, Failure> {
    let mut out = Vec::with_capacity(seeds.len());
    for &s in seeds {
        let mut o = overrides.to_vec();
        o.push(format!("seed={s}"));
        out.push(checked_scenario(origin, text, &o).map_err(Failure::BadInput)?);
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

fn render(name: &str, runs: &[RunResults], agg: &[ScopeSummary], jobs: usize, wall: f64) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "scenario {name}: {} seeds ({}..{}), {jobs} at a time, {wall:.2} s wall",
        runs.len(),
        runs.first().map_or(0, |r| r.seed),
        runs.last().map_or(0, |r| r.seed),
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
