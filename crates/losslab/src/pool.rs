//! Independent simulations on several threads, for `run --seeds` and
//! `sweep`. Each simulation is deterministic on its own; callers put the
//! results in a fixed order, so the thread count never shows in output.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use losslab_sim::{RunResults, Scenario, Simulation};

/// Events per slice between looks at Ctrl-C: well under a millisecond of
/// wall time in a release build, and still little with the engine's
/// invariant checks on (they make an event cost O(window)), which the
/// workspace's tests build with.
pub const SLICE_EVENTS: u64 = 5_000;

/// The number of threads: `jobs` if given, else every core, at most `n`.
pub fn jobs(jobs: Option<u64>, n: usize) -> usize {
    jobs.map(|j| usize::try_from(j).unwrap_or(usize::MAX))
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, n.max(1))
}

/// Simulates `sc` to its end; None when `stop` was raised first (a run
/// cut short would pull an average toward zero, so it is not returned).
pub fn simulate(sc: &Scenario, stop: &AtomicBool) -> Option<RunResults> {
    let mut sim = Simulation::new(sc).ok()?;
    let end = sim.end_time();
    loop {
        if sim.run_until_budget(end, SLICE_EVENTS) {
            return Some(sim.results());
        }
        if stop.load(Ordering::SeqCst) {
            return None;
        }
    }
}

/// Runs `work(i)` for every i in `0..n` on `threads` threads until `stop`
/// is raised, and hands each `Some` result to `done` as it comes (one at a
/// time, in whatever order the runs finish).
pub fn run_all<T: Send>(
    n: usize,
    threads: usize,
    stop: &AtomicBool,
    work: impl Fn(usize) -> Option<T> + Sync,
    done: impl FnMut(usize, T) + Send,
) {
    let next = AtomicUsize::new(0);
    let done = Mutex::new(done);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= n || stop.load(Ordering::SeqCst) {
                    break;
                }
                if let Some(r) = work(i) {
                    (done.lock().expect("no panic while held"))(i, r);
                }
            });
        }
    });
}

/// A flag that Ctrl-C raises; a second Ctrl-C ends the process.
pub fn ctrl_c_flag() -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    let _ = ctrlc::set_handler(move || {
        if s.swap(true, Ordering::SeqCst) {
            // Not while results move into place (outdir.rs).
            if !crate::outdir::committing() {
                std::process::exit(130);
            }
        }
    });
    stop
}
