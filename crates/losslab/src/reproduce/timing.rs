//! `reproduce --timings` (issue 33): where the main job's time goes, per
//! experiment: how many runs it made, the packets they simulated (data
//! segments and ACKs), the time the engine spent on them summed over
//! threads, and the experiment's wall and CPU time. The file is the one
//! output that depends on the machine, so it is written only when asked
//! and never beside a run's comparable files by default.
//!
//! Experiments run one after another and only their runs run in parallel,
//! so a process-wide tally read before and after an experiment gives its
//! share; `experiment` wraps each experiment of each paper.
//!
//! A run taken from an earlier identical one (common.rs `Memo`) is not
//! counted as a run: it cost no engine time. The `reused` column counts
//! those.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use losslab_sim::RunResults;

use serde::{Deserialize, Serialize};

use super::{resume, Ctx, Experiment};

#[derive(Clone, Copy)]
struct Tally {
    runs: u64,
    packets: u64,
    engine: Duration,
    reused: u64,
}

static TALLY: Mutex<Tally> = Mutex::new(Tally {
    runs: 0,
    packets: 0,
    engine: Duration::ZERO,
    reused: 0,
});
static ROWS: Mutex<Vec<Row>> = Mutex::new(Vec::new());

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic elsewhere leaves the numbers as they were: still usable.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// One experiment's cost.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Row {
    pub experiment: String,
    pub runs: u64,
    pub packets: u64,
    /// Time the engine spent on the runs, summed over threads.
    pub engine_s: f64,
    pub wall_s: f64,
    /// User and system time of the whole process while it ran.
    pub cpu_s: f64,
    /// Runs taken from an earlier run of the same scenario instead of run
    /// (added by issue 33; absent from rows kept before it: zero).
    #[serde(default)]
    pub reused: u64,
}

/// Counts one finished run that took `took` on its thread.
pub fn count(r: &RunResults, took: Duration) {
    let packets = packets(r);
    let mut t = lock(&TALLY);
    t.runs += 1;
    t.packets += packets;
    t.engine += took;
}

/// The packets a run simulated: its data segments and ACKs.
pub fn packets(r: &RunResults) -> u64 {
    r.flows.iter().map(|f| f.segments_sent + f.acks_sent).sum()
}

/// Counts `n` runs taken from earlier identical ones.
pub fn count_reused(n: u64) {
    lock(&TALLY).reused += n;
}

/// Runs an experiment and keeps what it cost under its id after
/// `prefix` (a variant's or a setup alternative's). With a resume store
/// (resume.rs) the experiment is kept when it ends, and one kept by a
/// stopped run is taken back instead of run.
pub fn experiment(
    ctx: &Ctx,
    prefix: &str,
    f: impl FnOnce() -> Result<Experiment, String>,
) -> Result<Experiment, String> {
    let slot = match &ctx.resume {
        Some(store) => match store.take(prefix)? {
            (n, Some((e, row))) => {
                let row: Row = serde_json::from_value(row)
                    .map_err(|err| format!("kept experiment {n}: its timing row: {err}"))?;
                lock(&ROWS).push(row);
                return Ok(e);
            }
            (n, None) => Some((store, n)),
        },
        None => None,
    };
    if resume::stopping() {
        return Err(resume::STOPPED.into());
    }
    let before = *lock(&TALLY);
    let (wall0, cpu0) = (Instant::now(), cpu_seconds());
    let e = f()?;
    let after = *lock(&TALLY);
    let row = Row {
        experiment: format!("{prefix}{}", e.id),
        runs: after.runs - before.runs,
        packets: after.packets - before.packets,
        engine_s: (after.engine - before.engine).as_secs_f64(),
        wall_s: wall0.elapsed().as_secs_f64(),
        cpu_s: cpu_seconds() - cpu0,
        reused: after.reused - before.reused,
    };
    // An experiment a Ctrl-C cut short is not kept: its numbers are
    // partial (its batches return an error, but a batch that ended
    // before the stop and an experiment that ignored it must not count).
    if let Some((store, n)) = slot {
        if !resume::stopping() {
            let value = serde_json::to_value(&row).expect("a row serialises");
            store.keep(n, prefix, &e, &value)?;
        }
    }
    lock(&ROWS).push(row);
    Ok(e)
}

/// The rows kept since the last call.
pub fn take() -> Vec<Row> {
    std::mem::take(&mut *lock(&ROWS))
}

/// `timings.csv`: one line per experiment, then the paper's total.
pub fn to_csv(paper: &str, rows: &[Row]) -> String {
    let mut s = String::from(
        "paper,experiment,runs,packets,engine_s,engine_ns_per_packet,wall_s,cpu_s,reused\n",
    );
    let line = |s: &mut String, name: &str, r: &Row| {
        let ns = if r.packets > 0 {
            format!("{:.0}", r.engine_s * 1e9 / r.packets as f64)
        } else {
            String::new()
        };
        s.push_str(&format!(
            "{paper},{name},{},{},{:.3},{ns},{:.3},{:.3},{}\n",
            r.runs, r.packets, r.engine_s, r.wall_s, r.cpu_s, r.reused
        ));
    };
    let mut total = Row {
        experiment: "total".into(),
        runs: 0,
        packets: 0,
        engine_s: 0.0,
        wall_s: 0.0,
        cpu_s: 0.0,
        reused: 0,
    };
    for r in rows {
        line(&mut s, &r.experiment, r);
        total.runs += r.runs;
        total.packets += r.packets;
        total.engine_s += r.engine_s;
        total.wall_s += r.wall_s;
        total.cpu_s += r.cpu_s;
        total.reused += r.reused;
    }
    line(&mut s, "total", &total);
    s
}

/// User plus system time of this process, every thread.
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage fills the struct it is given and nothing else.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) } != 0 {
        return 0.0;
    }
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(u.ru_utime) + tv(u.ru_stime)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_add_up_to_the_total() {
        let rows = vec![
            Row {
                experiment: "a".into(),
                runs: 2,
                packets: 1000,
                engine_s: 0.5,
                wall_s: 0.3,
                cpu_s: 0.6,
                reused: 0,
            },
            Row {
                experiment: "b".into(),
                runs: 1,
                packets: 0,
                engine_s: 0.0,
                wall_s: 0.1,
                cpu_s: 0.1,
                reused: 4,
            },
        ];
        let csv = to_csv("p", &rows);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[1], "p,a,2,1000,0.500,500000,0.300,0.600,0");
        assert_eq!(lines[2], "p,b,1,0,0.000,,0.100,0.100,4");
        assert_eq!(lines[3], "p,total,3,1000,0.500,500000,0.400,0.700,4");
    }
}
