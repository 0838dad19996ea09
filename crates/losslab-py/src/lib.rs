//! `losslab._native`: the engine and the command line's run and sweep
//! code, called in-process from Python (PyO3). The public API and its
//! documentation are in python/losslab/__init__.py; this module only
//! moves text in and out: scenarios and sweeps arrive as TOML text,
//! results leave as the same JSON `losslab run --json` prints, so the
//! Python numbers are the command line's numbers by construction of one
//! code path, not by a second implementation.
//!
//! Long calls run on a thread of their own while the calling thread
//! waits without the GIL and looks for Ctrl-C (`check_signals`), so
//! other Python threads keep running and a KeyboardInterrupt stops a
//! sweep the way Ctrl-C stops `losslab sweep`: finished runs are kept
//! and written.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use losslab::memory::Guard;
use losslab::pyconv::{at, push_index, push_key, to_toml, too_deep, value_to_toml, Data};
use losslab::seeds::{checked_scenario, document, results_value, run_seed_list, scenarios_for};
use losslab::sweep::{execute, parse_sweep, Backend, SweepOptions};
use losslab::tables::Column;
use losslab::{pool, Failure};
use losslab_sim::stats::parse_seeds;
use losslab_sim::RunResults;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

fn to_py(e: Failure) -> PyErr {
    match e {
        Failure::BadInput(m) => PyValueError::new_err(m),
        Failure::Runtime(m) => PyRuntimeError::new_err(m),
        Failure::Interrupted => PyKeyboardInterrupt::new_err("interrupted"),
    }
}

/// Runs `f` on its own thread and waits for it without the GIL, raising
/// the stop flag when Python has a signal pending (Ctrl-C). The signal's
/// exception is raised once `f` has returned, so whatever `f` writes when
/// stopped early is on disk first.
fn interruptible<T: Send>(py: Python<'_>, f: impl FnOnce(&AtomicBool) -> T + Send) -> PyResult<T> {
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|s| {
        let stop = &stop;
        s.spawn(move || {
            let _ = tx.send(f(stop));
        });
        let mut signal: Option<PyErr> = None;
        let mut rx = rx;
        loop {
            // The receiver goes into the GIL-free closure and back out:
            // it may move between threads but not be shared.
            let (got, back) = py.detach(move || {
                let got = rx.recv_timeout(Duration::from_millis(50));
                (got, rx)
            });
            rx = back;
            match got {
                Ok(v) => return signal.map_or(Ok(v), Err),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if signal.is_none() {
                        if let Err(e) = py.check_signals() {
                            stop.store(true, Ordering::SeqCst);
                            signal = Some(e);
                        }
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(PyRuntimeError::new_err("losslab: the run panicked"))
                }
            }
        }
    })
}

/// One run of a scenario (TOML `text`, named `origin` in messages) with
/// `overrides` applied, to its end.
fn simulate_text(
    py: Python<'_>,
    origin: &str,
    text: &str,
    overrides: &[String],
) -> PyResult<RunResults> {
    let sc = checked_scenario(origin, text, overrides, &Guard::default())
        .map_err(PyValueError::new_err)?;
    interruptible(py, |stop| pool::simulate(&sc, stop))?
        .ok_or_else(|| PyKeyboardInterrupt::new_err("interrupted"))
}

/// One run's results document as `losslab run --json` prints it (pretty
/// JSON, wall time included).
#[pyfunction]
#[pyo3(signature = (origin, text, overrides))]
fn run_one(py: Python<'_>, origin: &str, text: &str, overrides: Vec<String>) -> PyResult<String> {
    let r = simulate_text(py, origin, text, &overrides)?;
    Ok(serde_json::to_string_pretty(&r).expect("results serialise"))
}

/// One run with its time series: the results document (as `run_one`),
/// timeseries.csv's text (one row per ACK the sender processed, the file
/// `losslab run --timeseries` writes) and, with `packets`, packets.csv's
/// (`--trace`). The files are written by the command line's own writers
/// into a folder of this call's own under the system's temporary folder,
/// read back and removed; the memory check counts them as loaded.
#[pyfunction]
#[pyo3(signature = (origin, text, overrides, packets))]
fn run_series(
    py: Python<'_>,
    origin: &str,
    text: &str,
    overrides: Vec<String>,
    packets: bool,
) -> PyResult<(String, String, Option<String>)> {
    use losslab_sim::packet_log::PacketLog;
    use losslab_sim::sim::{Simulation, Tee, Tracer};
    use losslab_sim::timeseries::TimeSeries;
    let guard = Guard {
        traces_loaded: true,
        ..Guard::default()
    };
    let sc = checked_scenario(origin, text, &overrides, &guard).map_err(PyValueError::new_err)?;
    // A folder of this call's own (a fresh name, made here, removed with
    // what this call wrote in it when `tmp` drops).
    let tmp = tempfile::Builder::new()
        .prefix("losslab-py-series-")
        .tempdir()
        .map_err(|e| PyRuntimeError::new_err(format!("cannot make a temporary folder: {e}")))?;
    let dir = tmp.path().to_path_buf();
    let io = |e: std::io::Error| PyRuntimeError::new_err(format!("{}: {e}", dir.display()));
    let written = [dir.join("timeseries.csv"), dir.join("packets.csv")];
    let result = (|| {
        // The simulation is built on the run's own thread: it is not Send.
        let r = interruptible(py, |stop| -> Option<Result<RunResults, String>> {
            let run = || -> Result<Option<RunResults>, String> {
                let mut sim = Simulation::new(&sc).map_err(|e| e.to_string())?;
                let shown = |e: std::io::Error| format!("{}: {e}", dir.display());
                let mut tracers: Vec<Box<dyn Tracer>> = vec![Box::new(
                    TimeSeries::create(&written[0], sim.flow_names()).map_err(shown)?,
                )];
                if packets {
                    tracers.push(Box::new(
                        PacketLog::create(&written[1], sim.flow_names()).map_err(shown)?,
                    ));
                }
                sim.set_tracer(Box::new(Tee(tracers)));
                let end = sim.end_time();
                while !sim.run_until_budget(end, pool::SLICE_EVENTS) {
                    if stop.load(Ordering::SeqCst) {
                        return Ok(None);
                    }
                }
                let mut t = sim.take_tracer().expect("set above");
                t.finish().map_err(shown)?;
                Ok(Some(sim.results()))
            };
            run().transpose()
        })?
        .ok_or_else(|| PyKeyboardInterrupt::new_err("interrupted"))?
        .map_err(PyRuntimeError::new_err)?;
        let read = |p: &PathBuf| std::fs::read_to_string(p).map_err(io);
        let series = read(&written[0])?;
        let log = if packets {
            Some(read(&written[1])?)
        } else {
            None
        };
        Ok((
            serde_json::to_string_pretty(&r).expect("results serialise"),
            series,
            log,
        ))
    })();
    drop(tmp);
    result
}

/// The same run's document without its wall time, compact: what a Ray
/// worker returns and a sweep's results.jsonl holds.
#[pyfunction]
#[pyo3(signature = (origin, text, overrides))]
fn run_json(py: Python<'_>, origin: &str, text: &str, overrides: Vec<String>) -> PyResult<String> {
    let r = simulate_text(py, origin, text, &overrides)?;
    Ok(results_value(&r).to_string())
}

/// The scenario once per seed of `seeds` (a `--seeds` spec), in parallel;
/// the document of `losslab run --seeds` (summary.json) as JSON. With
/// `interrupted` true in it when Ctrl-C came first.
#[pyfunction]
#[pyo3(signature = (origin, text, overrides, seeds, jobs=None))]
fn run_seeds(
    py: Python<'_>,
    origin: &str,
    text: &str,
    overrides: Vec<String>,
    seeds: &str,
    jobs: Option<u64>,
) -> PyResult<String> {
    let jobs = checked_jobs(jobs)?;
    let seeds = parse_seeds(seeds).map_err(|e| PyValueError::new_err(format!("seeds: {e}")))?;
    let scenarios =
        scenarios_for(origin, text, &overrides, &seeds, &Guard::default()).map_err(to_py)?;
    let jobs = pool::jobs(jobs, seeds.len());
    let r = interruptible(py, |stop| run_seed_list(&scenarios, jobs, stop, || {}))?;
    let doc = document(&scenarios[0].name, &seeds, &r.runs, &r.agg, r.interrupted);
    Ok(serde_json::to_string_pretty(&doc).expect("serialises"))
}

/// A sweep (TOML `text`; relative scenario paths from `base`) into the
/// directory `out`. Returns a dict: `columns` (name -> list, the runs
/// table), `summary` (summary.json as JSON text), `report`, `written`,
/// `interrupted`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (origin, text, base, out, jobs=None, ray_address=None, python=None, resume=false, fail_fast=false, progress=false))]
fn sweep<'py>(
    py: Python<'py>,
    origin: &str,
    text: &str,
    base: PathBuf,
    out: PathBuf,
    jobs: Option<u64>,
    ray_address: Option<String>,
    python: Option<String>,
    resume: bool,
    fail_fast: bool,
    progress: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let jobs = checked_jobs(jobs)?;
    let s = parse_sweep(origin, text, &base).map_err(to_py)?;
    let backend = match ray_address {
        Some(address) => Backend::Ray {
            address,
            python: python.unwrap_or_else(|| "python3".into()),
        },
        None => Backend::Local { jobs },
    };
    let o = SweepOptions {
        out,
        backend,
        resume,
        fail_fast,
        progress,
        force: false,
        max_memory: None,
        keep_runs: true,
    };
    let r = interruptible(py, |stop| execute(&s, &o, stop))?.map_err(to_py)?;
    let columns = PyDict::new(py);
    for (name, c) in &r.runs.columns {
        let list = match c {
            Column::UInt(v) => PyList::new(py, v)?,
            Column::Float(v) => PyList::new(py, v)?,
            Column::Text(v) => PyList::new(py, v)?,
        };
        columns.set_item(name, list)?;
    }
    let d = PyDict::new(py);
    d.set_item("columns", columns)?;
    let summary = std::fs::read_to_string(&r.summary_json).map_err(|e| {
        PyRuntimeError::new_err(format!("cannot read {}: {e}", r.summary_json.display()))
    })?;
    d.set_item("summary", summary)?;
    d.set_item("report", r.report)?;
    d.set_item(
        "written",
        r.written
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>(),
    )?;
    d.set_item("interrupted", r.interrupted)?;
    Ok(d)
}

/// A `--seeds` spec ("1..20", "20", "3,7,11") as the list of seeds.
#[pyfunction]
fn seeds_of(spec: &str) -> PyResult<Vec<u64>> {
    parse_seeds(spec).map_err(|e| PyValueError::new_err(format!("seeds: {e}")))
}

/// A Python value as a [`Data`] tree: str, bool, int, float, and lists,
/// tuples and dicts of them, dicts keeping their order. Refused with a
/// ValueError naming the key path: a list or dict that holds itself (the
/// ids of the containers on the way down are `on_path`), nesting deeper
/// than [`MAX_DEPTH`], keys that are not strings, integers outside
/// TOML's 64 bits, and any other type. Non-finite floats go into the
/// tree; [`to_toml`] refuses them, as it must for a tree from anywhere.
fn data_of(
    v: &Bound<'_, PyAny>,
    path: &str,
    depth: usize,
    on_path: &mut Vec<usize>,
) -> PyResult<Data> {
    let bad = |m: String| PyValueError::new_err(format!("{}: {m}", at(path)));
    if let Ok(s) = v.cast::<PyString>() {
        return match s.to_cow() {
            Ok(s) => Ok(Data::Str(s.into_owned())),
            Err(_) => Err(bad(
                "a string that is not valid Unicode (a lone surrogate)".into()
            )),
        };
    }
    if v.is_instance_of::<PyBool>() {
        return Ok(Data::Bool(v.extract()?));
    }
    if v.is_instance_of::<PyInt>() {
        return v.extract::<i64>().map(Data::Int).map_err(|_| {
            bad(format!(
                "{v} is outside TOML's integers ({} to {})",
                i64::MIN,
                i64::MAX
            ))
        });
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(Data::Float(v.extract()?));
    }
    let list = v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>();
    let dict = v.cast::<PyDict>().ok();
    if !list && dict.is_none() {
        let ty = v.get_type().name()?;
        let hint = if v.is_none() {
            " (leave the key out for its default)"
        } else {
            ""
        };
        return Err(bad(format!(
            "TOML cannot hold {} ({ty}){hint}: give a str, bool, int, float, list or dict",
            v.repr()?
        )));
    }
    let id = v.as_ptr() as usize;
    if on_path.contains(&id) {
        return Err(bad(format!(
            "this {} contains itself (a cycle), which TOML cannot hold",
            if list { "list" } else { "dict" }
        )));
    }
    if let Some(m) = too_deep(path, depth) {
        return Err(PyValueError::new_err(m));
    }
    on_path.push(id);
    let out = match dict {
        Some(d) => {
            let mut entries = Vec::with_capacity(d.len());
            for (k, x) in d.iter() {
                let Ok(k) = k.cast::<PyString>() else {
                    return Err(bad(format!(
                        "keys must be strings, got {} ({})",
                        k.repr()?,
                        k.get_type().name()?
                    )));
                };
                let Ok(k) = k.to_cow() else {
                    return Err(bad(
                        "a key that is not valid Unicode (a lone surrogate)".into()
                    ));
                };
                let sub = data_of(&x, &push_key(path, &k), depth + 1, on_path)?;
                entries.push((k.into_owned(), sub));
            }
            Data::Dict(entries)
        }
        None => {
            let mut items = Vec::new();
            for (i, x) in v.try_iter()?.enumerate() {
                items.push(data_of(&x?, &push_index(path, i), depth + 1, on_path)?);
            }
            Data::List(items)
        }
    };
    on_path.pop();
    Ok(out)
}

/// A dict as a TOML document (a scenario or a sweep written as Python
/// data), keys in the dict's order.
#[pyfunction]
fn toml_of(d: &Bound<'_, PyDict>) -> PyResult<String> {
    let data = data_of(d.as_any(), "", 1, &mut Vec::new())?;
    to_toml(&data).map_err(PyValueError::new_err)
}

/// A Python value as `--set` text: `KEY=` followed by this. Errors name
/// it `set.KEY`.
#[pyfunction]
fn set_text(key: &str, v: &Bound<'_, PyAny>) -> PyResult<String> {
    let path = push_key("set", key);
    let data = data_of(v, &path, 1, &mut Vec::new())?;
    value_to_toml(&data, &path).map_err(PyValueError::new_err)
}

/// `jobs` as the command line's `--jobs` takes it: 1 or more.
fn checked_jobs(jobs: Option<u64>) -> PyResult<Option<u64>> {
    match jobs {
        Some(0) => Err(PyValueError::new_err(
            "jobs: expected 1 or more threads, got 0",
        )),
        j => Ok(j),
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("ENGINE_ID", losslab_sim::ENGINE_ID)?;
    m.add_function(wrap_pyfunction!(run_one, m)?)?;
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(run_series, m)?)?;
    m.add_function(wrap_pyfunction!(run_seeds, m)?)?;
    m.add_function(wrap_pyfunction!(sweep, m)?)?;
    m.add_function(wrap_pyfunction!(seeds_of, m)?)?;
    m.add_function(wrap_pyfunction!(toml_of, m)?)?;
    m.add_function(wrap_pyfunction!(set_text, m)?)?;
    Ok(())
}
