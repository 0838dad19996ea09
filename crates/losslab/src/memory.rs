//! The memory guard in front of every simulation the command line starts
//! (`run`, `run --seeds`, `sweep`): the scenario's estimate
//! (losslab-sim memory.rs), times the runs held at once, against a limit
//! (`--max-memory`, default the smaller of 8 GB and half the machine's
//! memory).

use losslab_sim::memory::{estimate, human, suggested_limit};
use losslab_sim::units::parse_size;
use losslab_sim::Scenario;

/// The default limit: 8 GB, or half of the memory this process may have
/// if that is less: the machine's (MemTotal), its cgroup's (memory.max, a
/// container's) and its address-space limit (RLIMIT_AS), the smallest.
pub fn default_limit() -> u64 {
    const CAP: u64 = 8_000_000_000;
    let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|t| {
        t.lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map(|kb| kb.saturating_mul(1024))
    });
    let cgroup = std::fs::read_to_string("/sys/fs/cgroup/memory.max")
        .ok()
        .and_then(|t| t.trim().parse::<u64>().ok());
    let rlimit = address_space_limit();
    [total, cgroup, rlimit]
        .into_iter()
        .flatten()
        .fold(CAP, |cap, m| cap.min(m / 2))
}

#[cfg(unix)]
fn address_space_limit() -> Option<u64> {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct we pass.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut r) } == 0;
    #[allow(clippy::unnecessary_cast)] // rlim_t is not u64 on every target
    let cur = r.rlim_cur as u64;
    (ok && r.rlim_cur != libc::RLIM_INFINITY).then_some(cur)
}

#[cfg(not(unix))]
fn address_space_limit() -> Option<u64> {
    None
}

/// `--max-memory` as bytes; None: the default.
pub fn limit(arg: Option<&str>) -> Result<u64, String> {
    match arg {
        None => Ok(default_limit()),
        Some(s) => match parse_size(s) {
            Ok(0) => Err(format!("--max-memory {s}: must be more than 0")),
            Ok(b) => Ok(b),
            Err(e) => Err(format!("--max-memory {s}: {e}")),
        },
    }
}

/// The guard's settings for one command: the limit, how many runs are
/// held at once, whether traces are read back.
#[derive(Clone, Debug)]
pub struct Guard {
    pub limit: u64,
    pub at_once: usize,
    pub traces_loaded: bool,
}

impl Default for Guard {
    /// The default limit, one run at a time (the Python package's runs).
    fn default() -> Self {
        Guard {
            limit: default_limit(),
            at_once: 1,
            traces_loaded: false,
        }
    }
}

impl Guard {
    /// From `--max-memory` (None: the default limit).
    pub fn new(
        max_memory: Option<&str>,
        at_once: usize,
        traces_loaded: bool,
    ) -> Result<Guard, String> {
        Ok(Guard {
            limit: limit(max_memory)?,
            at_once: at_once.max(1),
            traces_loaded,
        })
    }

    /// Refuses `sc` when `at_once` runs of it would need more than the
    /// limit, with the estimate's terms. Called before the simulation is
    /// built: building it is what a bomb would blow up.
    pub fn check(&self, sc: &Scenario) -> Result<(), String> {
        self.check_with(sc, ("", 0))
    }

    /// As [`Guard::check`], with `extra` bytes the command holds besides
    /// its runs (a sweep's tables), named for the message.
    pub fn check_with(&self, sc: &Scenario, extra: (&str, u64)) -> Result<(), String> {
        let mut e = estimate(sc, self.traces_loaded);
        let at_once = self.at_once;
        let total = e
            .bytes
            .saturating_mul(at_once as u64)
            .saturating_add(extra.1);
        if extra.1 > 0 {
            e.terms.push((extra.0.to_string(), extra.1));
        }
        if total <= self.limit {
            return Ok(());
        }
        let (what, each) = if at_once > 1 {
            (
                "runs",
                format!("{at_once} runs at once (--jobs), each estimated"),
            )
        } else {
            ("run", "estimated".to_string())
        };
        Err(format!(
            "the {what} would need about {}, over the limit of {}: {each} {}; \
             make the scenario smaller, or raise the limit with --max-memory (e.g. --max-memory {})",
            human(total),
            human(self.limit),
            e.describe(),
            suggested_limit(total)
        ))
    }
}
