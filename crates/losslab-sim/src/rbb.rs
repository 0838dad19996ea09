//! Receive-buffer bubbles (RBBs), the OR3 paper's section III-B: the gaps
//! in sequence space between the non-contiguous blocks a receiver holds,
//! one per out-of-order run above `rcv_nxt`. The paper records them once
//! per RTT (Fig. 2) and plots the non-zero records only; `RbbMeter` keeps
//! those samples per flow, with the receive buffer's occupancy beside
//! them (Fig. 7's buffer), and `RbbCsv` writes them as rbb.csv
//! (docs/TRACES.md).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use losslab_core::time::Time;
use serde::Serialize;

use crate::trace::Tracer;

/// One flow's samples, taken every `period` from its start.
#[derive(Clone, Debug, Default)]
pub(crate) struct RbbMeter {
    /// The flow's propagation round trip; 0 takes no samples.
    pub period: Time,
    /// Time of the next sample (`Time::MAX`: no more).
    pub next: Time,
    samples: u64,
    /// How many samples saw each bubble count (index 0 unused).
    nonzero: Vec<u64>,
    max: u64,
    /// Sum of the sampled receive-buffer occupancies, bytes.
    occupancy: u128,
}

impl RbbMeter {
    pub fn new(start: Time, period: Time) -> Self {
        RbbMeter {
            period,
            next: if period == 0 {
                Time::MAX
            } else {
                start.saturating_add(period)
            },
            ..Default::default()
        }
    }

    pub fn record(&mut self, bubbles: u64, occupancy: u64) {
        self.samples += 1;
        self.occupancy += u128::from(occupancy);
        self.max = self.max.max(bubbles);
        if bubbles > 0 {
            let i = bubbles as usize;
            if self.nonzero.len() <= i {
                self.nonzero.resize(i + 1, 0);
            }
            self.nonzero[i] += 1;
        }
        self.next = self.next.saturating_add(self.period);
    }

    pub fn stop(&mut self) {
        self.next = Time::MAX;
    }

    /// The smallest bubble count at or above the `q` quantile of the
    /// non-zero samples (nearest rank).
    fn quantile(&self, n: u64, q: f64) -> Option<u64> {
        if n == 0 {
            return None;
        }
        let rank = ((q * n as f64).ceil() as u64).clamp(1, n);
        let mut seen = 0;
        for (bubbles, &k) in self.nonzero.iter().enumerate() {
            seen += k;
            if seen >= rank {
                return Some(bubbles as u64);
            }
        }
        None
    }

    pub fn results(&self) -> RbbResults {
        let n: u64 = self.nonzero.iter().sum();
        let sum: u64 = self
            .nonzero
            .iter()
            .enumerate()
            .map(|(b, &k)| b as u64 * k)
            .sum();
        RbbResults {
            samples: self.samples,
            nonzero_samples: n,
            mean_nonzero: (n > 0).then(|| sum as f64 / n as f64),
            p50_nonzero: self.quantile(n, 0.50),
            p95_nonzero: self.quantile(n, 0.95),
            max: self.max,
            // The receiver's own measurement (results::collect).
            starvation_s: None,
        }
    }

    /// Mean of the sampled occupancies (None without a sample).
    pub fn mean_occupancy(&self) -> Option<f64> {
        (self.samples > 0).then(|| self.occupancy as f64 / self.samples as f64)
    }
}

/// A flow's `rbb` in the results document.
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize, PartialEq)]
pub struct RbbResults {
    pub samples: u64,
    pub nonzero_samples: u64,
    pub mean_nonzero: Option<f64>,
    pub p50_nonzero: Option<u64>,
    pub p95_nonzero: Option<u64>,
    pub max: u64,
    /// Added (issue 27): receive-buffer starvation measured at the
    /// receiver (OR3 paper section III-B; `Receiver::starvation_at`),
    /// seconds during which a bubble sat at the head of the receive
    /// buffer while less than one MSS of the advertised window lay above
    /// the highest byte held; not a sample, the whole run. Null where not
    /// measured (`losslab linux`).
    pub starvation_s: Option<f64>,
}

/// rbb.csv: one row per sample.
pub struct RbbCsv {
    out: BufWriter<File>,
    names: Vec<String>,
    error: Option<std::io::Error>,
}

impl RbbCsv {
    /// `flow_names` in flow-index order (`Simulation::flow_names`).
    pub fn create(path: &Path, flow_names: Vec<String>) -> std::io::Result<Self> {
        let mut out = BufWriter::new(File::create(path)?);
        writeln!(out, "time_s,flow,bubbles,rcvbuf_bytes")?;
        Ok(RbbCsv {
            out,
            names: flow_names,
            error: None,
        })
    }
}

impl Tracer for RbbCsv {
    fn wants_packets(&self) -> bool {
        false
    }
    fn rbb_sample(&mut self, at: Time, flow: usize, bubbles: u64, rcvbuf_bytes: u64) {
        if self.error.is_some() {
            return;
        }
        let r = writeln!(
            self.out,
            "{}.{:09},{},{bubbles},{rcvbuf_bytes}",
            at / 1_000_000_000,
            at % 1_000_000_000,
            self.names[flow]
        );
        if let Err(e) = r {
            self.error = Some(e);
        }
    }
    fn finish(&mut self) -> std::io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_nonzero_samples() {
        let mut m = RbbMeter::new(0, 10);
        assert_eq!(m.next, 10);
        for b in [0, 1, 0, 3, 1, 2, 0, 1, 5, 1] {
            m.record(b, 100);
        }
        assert_eq!(m.next, 110);
        let r = m.results();
        assert_eq!(r.samples, 10);
        assert_eq!(r.nonzero_samples, 7);
        // 1, 1, 1, 1, 2, 3, 5
        assert_eq!(r.mean_nonzero, Some(14.0 / 7.0));
        assert_eq!(r.p50_nonzero, Some(1));
        assert_eq!(r.p95_nonzero, Some(5));
        assert_eq!(r.max, 5);
        assert_eq!(m.mean_occupancy(), Some(100.0));
        let none = RbbMeter::new(5, 0);
        assert_eq!(none.next, Time::MAX);
        assert_eq!(none.results().mean_nonzero, None);
        assert_eq!(none.mean_occupancy(), None);
    }
}
