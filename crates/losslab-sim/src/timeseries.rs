//! timeseries.csv (docs/TRACES.md): one row per ACK a sender processed.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use losslab_core::event::{Event, Timed};

use crate::trace::{Side, Tracer};

pub struct TimeSeries {
    out: BufWriter<File>,
    names: Vec<String>,
    error: Option<std::io::Error>,
}

impl TimeSeries {
    /// `flow_names` in flow-index order (`Simulation::flow_names`).
    pub fn create(path: &Path, flow_names: Vec<String>) -> std::io::Result<Self> {
        let mut out = BufWriter::new(File::create(path)?);
        writeln!(
            out,
            "time_s,flow,cwnd,ssthresh,pipe,inflight,srtt_ms,rto_ms,snd_una,snd_nxt,pacing_mbps"
        )?;
        Ok(TimeSeries {
            out,
            names: flow_names,
            error: None,
        })
    }
}

impl Tracer for TimeSeries {
    /// Rows come from the sender's events alone.
    fn wants_packets(&self) -> bool {
        false
    }
    fn wants_endpoint_events(&self) -> bool {
        true
    }
    fn endpoint(&mut self, flow: usize, side: Side, ev: &Timed) {
        if side != Side::Sender || self.error.is_some() {
            return;
        }
        if let Event::AckProcessed { state: s, .. } = ev.event {
            // An ssthresh that was never set prints as empty.
            let ssthresh = if s.ssthresh >= u64::MAX / 8 {
                String::new()
            } else {
                s.ssthresh.to_string()
            };
            let pacing = s
                .pacing_bps
                .map_or(String::new(), |b| format!("{:.3}", b as f64 / 1e6));
            let r = writeln!(
                self.out,
                "{:.6},{},{},{},{},{},{:.3},{:.3},{},{},{}",
                ev.at as f64 / 1e9,
                self.names[flow],
                s.cwnd,
                ssthresh,
                s.pipe,
                s.inflight,
                s.srtt as f64 / 1e6,
                s.rto as f64 / 1e6,
                s.snd_una,
                s.snd_nxt,
                pacing
            );
            if let Err(e) = r {
                self.error = Some(e);
            }
        }
    }
    fn finish(&mut self) -> std::io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()
    }
}
