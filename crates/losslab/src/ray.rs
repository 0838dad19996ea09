//! The Ray backend of `losslab sweep --ray ADDRESS` and of
//! `losslab.sweep(..., backend="ray")`: a sweep's points become Ray tasks
//! that call the Python package (python/losslab/_ray.py), so the runs
//! happen on the cluster's nodes with the same engine code. Ray's API is
//! Python, so this side starts a small Python driver
//! (python/losslab/_ray_driver.py) and speaks JSON lines with it:
//!
//! 1. the driver connects (`ray.init(address)`) and says
//!    `{"ready": true, "cpus": N}` or `{"error": "..."}`;
//! 2. we send the base scenario `{"origin": ..., "scenario": TEXT,
//!    "engine": ID}` (our `losslab_sim::ENGINE_ID`, which every task
//!    checks against its node's before it runs anything), then
//!    one line per point `{"point": P, "overrides": [...], "seeds": [...]}`
//!    and close its input; a point with a `"scenario": TEXT` of its own
//!    runs that instead of the base (`losslab reproduce --ray`, whose
//!    runs are each a different scenario);
//! 3. it answers `{"point": P, "seed": S, "results": {...}}` per run as
//!    tasks finish, `{"point": P, "error": "..."}` for a task that failed,
//!    and `{"done": true}` at the end.
//!
//! The results documents are the engine's own JSON, passed through as
//! text, and the sweep writes them exactly as it writes local runs; so a
//! sweep's files are the same whichever backend ran it.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

use serde_json::{json, Value};

use crate::Failure;

/// How long a head that accepts TCP may take to answer `ray.init`.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(120);

/// A point's runs for one Ray task.
pub struct PointTask {
    pub point: usize,
    /// The point's `--set` overrides; the worker adds `seed=N`.
    pub overrides: Vec<String>,
    pub seeds: Vec<u64>,
    /// A scenario of the point's own, instead of the base.
    pub scenario: Option<String>,
}

/// A driver connected to a cluster.
pub struct Driver {
    child: Child,
    input: Option<ChildStdin>,
    lines: Receiver<String>,
    address: String,
    /// CPUs the cluster offers.
    pub cpus: f64,
    /// SIGPIPE's disposition before `connect`.
    #[cfg(unix)]
    sigpipe: libc::sighandler_t,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // No pipe to the driver is left: SIGPIPE goes back to what it was
        // (main.rs's default, so `losslab ... | head` ends quietly; a
        // Python host's own).
        #[cfg(unix)]
        // SAFETY: changing a signal's disposition has no memory effects.
        unsafe {
            libc::signal(libc::SIGPIPE, self.sigpipe);
        }
    }
}

/// How a caller names its tasks and what it keeps when some fail, for
/// `Driver::run`'s errors.
pub struct Wording<'a> {
    /// The task with this `point`, e.g. "point 3" or a scenario's name.
    pub task: &'a dyn Fn(usize) -> String,
    /// What happens to the finished runs, e.g. "finished runs are kept;
    /// --resume reruns the rest".
    pub kept: &'a str,
}

/// Checks that something listens at a `host:port` (or `ray://host:port`)
/// address, so that a wrong address fails in seconds rather than after
/// Ray's own minutes of retries. `auto` and `local` are Ray's words for
/// the cluster started on this machine and for a new one in-process.
fn check_reachable(address: &str) -> Result<(), Failure> {
    if address == "auto" || address == "local" {
        return Ok(());
    }
    let hp = address.strip_prefix("ray://").unwrap_or(address);
    let bad = |why: String| {
        Failure::BadInput(format!(
            "--ray {address}: {why}; give the head's host:port (the address `ray start --head` prints), ray://host:port, or auto"
        ))
    };
    let addrs: Vec<_> = hp
        .to_socket_addrs()
        .map_err(|e| bad(format!("not a host:port address ({e})")))?
        .collect();
    let Some(first) = addrs.first() else {
        return Err(bad("the host has no address".into()));
    };
    TcpStream::connect_timeout(first, Duration::from_secs(3))
        .map(drop)
        .map_err(|e| bad(format!("cannot reach a Ray cluster there ({e})")))
}

/// The interpreter that runs the driver: `--python`, else
/// $LOSSLAB_PYTHON, else python3.
pub fn python(given: Option<String>) -> String {
    given
        .or_else(|| std::env::var("LOSSLAB_PYTHON").ok())
        .unwrap_or_else(|| "python3".into())
}

/// Starts `python -m losslab._ray_driver ADDRESS` and waits until it is
/// connected. Every way this can fail is the user's setting (an address,
/// an interpreter, a missing package), so it is bad input, reported
/// before any run starts.
pub fn connect(address: &str, python: &str) -> Result<Driver, Failure> {
    check_reachable(address)?;
    // A driver that dies while we write to it must be an error we report,
    // not a SIGPIPE that ends losslab silently (main.rs restores SIGPIPE's
    // default for the sake of `losslab ... | head`).
    #[cfg(unix)]
    // SAFETY: changing a signal's disposition has no memory effects.
    let sigpipe = unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    let mut child = Command::new(python)
        .args(["-m", "losslab._ray_driver", address])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| {
            #[cfg(unix)]
            // SAFETY: as above.
            unsafe {
                libc::signal(libc::SIGPIPE, sigpipe);
            }
            Failure::BadInput(format!(
                "--ray {address}: cannot start the Python driver with {python} ({e}); name an interpreter that has losslab's package with --python or LOSSLAB_PYTHON"
            ))
        })?;
    let input = child.stdin.take().expect("piped");
    let output = child.stdout.take().expect("piped");
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(output).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut d = Driver {
        child,
        input: Some(input),
        lines,
        address: address.to_string(),
        cpus: 0.0,
        #[cfg(unix)]
        sigpipe,
    };
    let first = match d.lines.recv_timeout(CONNECT_TIMEOUT) {
        Ok(l) => l,
        Err(RecvTimeoutError::Timeout) => {
            return Err(Failure::BadInput(format!(
                "--ray {address}: no answer from Ray within {} s",
                CONNECT_TIMEOUT.as_secs()
            )))
        }
        Err(RecvTimeoutError::Disconnected) => {
            let status = d.child.wait().map(|s| s.to_string()).unwrap_or_default();
            return Err(Failure::BadInput(format!(
                "--ray {address}: the Python driver ended before connecting ({status}); is losslab's package installed for {python}? (pip install '.[ray]' in the repository)"
            )));
        }
    };
    let v: Value = serde_json::from_str(&first).unwrap_or(Value::Null);
    if let Some(e) = v["error"].as_str() {
        return Err(Failure::BadInput(format!("--ray {address}: {e}")));
    }
    d.cpus = v["cpus"].as_f64().ok_or_else(|| {
        Failure::BadInput(format!(
            "--ray {address}: the Python driver said {first:?}, not that it was ready"
        ))
    })?;
    Ok(d)
}

impl Driver {
    /// Runs the tasks and hands every finished run to `done(point, seed,
    /// results)` as it arrives. When `stop` is raised the driver is ended
    /// (Ray cancels its tasks when its driver goes) and what arrived is
    /// kept.
    pub fn run(
        mut self,
        origin: &str,
        text: &str,
        tasks: &[PointTask],
        stop: &AtomicBool,
        wording: &Wording,
        done: &mut dyn FnMut(usize, u64, Value),
    ) -> Result<(), Failure> {
        // The workers refuse to run with another engine than ours
        // (python/losslab/_ray.py): a cluster with an older wheel would
        // otherwise give other numbers under our name.
        let mut batch =
            json!({ "origin": origin, "scenario": text, "engine": losslab_sim::ENGINE_ID })
                .to_string();
        batch.push('\n');
        for t in tasks {
            let mut line = json!({ "point": t.point, "overrides": t.overrides, "seeds": t.seeds });
            if let Some(text) = &t.scenario {
                line["scenario"] = Value::String(text.clone());
            }
            batch.push_str(&line.to_string());
            batch.push('\n');
        }
        // Written from a thread: the driver may answer before it has read
        // everything, and both pipes are finite.
        let mut input = self.input.take().expect("run once");
        let writer = std::thread::spawn(move || {
            let _ = input.write_all(batch.as_bytes());
        });
        let mut failed: Vec<String> = Vec::new();
        let mut finished_cleanly = false;
        loop {
            match self.lines.recv_timeout(Duration::from_millis(100)) {
                Ok(line) => {
                    let Ok(v) = serde_json::from_str::<Value>(&line) else {
                        failed.push(format!("unreadable line from the driver: {line:.200}"));
                        continue;
                    };
                    if v["done"].as_bool() == Some(true) {
                        finished_cleanly = true;
                        break;
                    }
                    let p = v["point"].as_u64().unwrap_or(u64::MAX) as usize;
                    if let Some(e) = v["error"].as_str() {
                        failed.push(format!("{}: {e}", (wording.task)(p)));
                    } else if let (Some(seed), Some(r)) = (v["seed"].as_u64(), v.get("results")) {
                        done(p, seed, r.clone());
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                }
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        let _ = writer.join();
        if stop.load(Ordering::SeqCst) {
            return Ok(());
        }
        if !failed.is_empty() {
            let more = match failed.len() {
                n if n > 3 => format!(" and {} more", n - 3),
                _ => String::new(),
            };
            failed.truncate(3);
            return Err(Failure::Runtime(format!(
                "Ray at {}: {}{more} ({})",
                self.address,
                failed.join("; "),
                wording.kept
            )));
        }
        if !finished_cleanly {
            let status = self.child.wait().map(|s| s.to_string()).unwrap_or_default();
            return Err(Failure::Runtime(format!(
                "Ray at {}: the driver ended early ({status}); {}",
                self.address, wording.kept
            )));
        }
        Ok(())
    }
}
