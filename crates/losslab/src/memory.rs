//! The memory guard in front of every simulation the command line starts
//! (`run`, `run --seeds`, `sweep`): the scenario's estimate
//! (losslab-sim memory.rs), times the runs held at once, against a limit
//! (`--max-memory`, default the smaller of 8 GB and half the machine's
//! memory).

use losslab_sim::memory::{estimate, human};
use losslab_sim::units::parse_size;
use losslab_sim::Scenario;

/// The default limit: the smaller of 8 GB and half of MemTotal.
pub fn default_limit() -> u64 {
    const CAP: u64 = 8_000_000_000;
    let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|t| {
        t.lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map(|kb| kb.saturating_mul(1024))
    });
    total.map_or(CAP, |t| CAP.min(t / 2))
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
        let e = estimate(sc, self.traces_loaded);
        let at_once = self.at_once;
        let total = e.bytes.saturating_mul(at_once as u64);
        if total <= self.limit {
            return Ok(());
        }
        let times = if at_once > 1 {
            format!(" x {at_once} runs at once (--jobs)")
        } else {
            String::new()
        };
        Err(format!(
            "the run would need about {}{times}, over the limit of {}: estimated {}; \
             make the scenario smaller, or raise the limit with --max-memory (e.g. --max-memory {})",
            human(total),
            human(self.limit),
            e.describe(),
            human(total.saturating_add(1_000_000_000)).replace(' ', "")
        ))
    }
}
