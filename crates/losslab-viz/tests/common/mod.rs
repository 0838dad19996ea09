//! Builds run directories like `losslab run --timeseries --trace` does,
//! without the CLI: summary.json, timeseries.csv and packets.csv.
#![allow(dead_code)]

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use losslab_core::event::{Event, Timed};
use losslab_core::time::MS;
use losslab_sim::packet_log::PacketLog;
use losslab_sim::scenario::*;
use losslab_sim::sim::{Side, Tee};
use losslab_sim::{Scenario, Simulation, Tracer};

/// The same columns as the CLI's timeseries.csv (crates/losslab/src/timeseries.rs).
pub struct Series {
    out: BufWriter<File>,
    names: Vec<String>,
}

impl Series {
    pub fn create(path: &Path, names: Vec<String>) -> Self {
        let mut out = BufWriter::new(File::create(path).unwrap());
        writeln!(
            out,
            "time_s,flow,cwnd,ssthresh,pipe,inflight,srtt_ms,rto_ms,snd_una,snd_nxt"
        )
        .unwrap();
        Series { out, names }
    }
}

impl Tracer for Series {
    fn wants_endpoint_events(&self) -> bool {
        true
    }
    fn endpoint(&mut self, flow: usize, side: Side, ev: &Timed) {
        if side != Side::Sender {
            return;
        }
        if let Event::AckProcessed { state: s, .. } = ev.event {
            let ssthresh = if s.ssthresh >= u64::MAX / 8 {
                String::new()
            } else {
                s.ssthresh.to_string()
            };
            writeln!(
                self.out,
                "{:.6},{},{},{},{},{},{:.3},{:.3},{},{}",
                ev.at as f64 / 1e9,
                self.names[flow],
                s.cwnd,
                ssthresh,
                s.pipe,
                s.inflight,
                s.srtt as f64 / 1e6,
                s.rto as f64 / 1e6,
                s.snd_una,
                s.snd_nxt
            )
            .unwrap();
        }
    }
    fn finish(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

pub struct Files {
    pub timeseries: bool,
    pub packets: bool,
}

pub const ALL: Files = Files {
    timeseries: true,
    packets: true,
};

/// Runs `sc` and writes its run directory into `dir`.
pub fn write_run(dir: &Path, sc: &Scenario, files: Files) {
    std::fs::create_dir_all(dir).unwrap();
    let mut sim = Simulation::new(sc).unwrap();
    let names = sim.flow_names();
    let mut tee = Tee::default();
    if files.timeseries {
        tee.0.push(Box::new(Series::create(
            &dir.join("timeseries.csv"),
            names.clone(),
        )));
    }
    if files.packets {
        tee.0.push(Box::new(
            PacketLog::create(&dir.join("packets.csv"), names).unwrap(),
        ));
    }
    sim.set_tracer(Box::new(tee));
    sim.run();
    sim.take_tracer().unwrap().finish().unwrap();
    let json = serde_json::to_string_pretty(&sim.results()).unwrap();
    std::fs::write(dir.join("summary.json"), json).unwrap();
}

pub fn path(rate_bps: u64, one_way_ms: u64, loss: LossModel) -> (PathSpec, ReverseSpec) {
    (
        PathSpec {
            rate: rate_bps,
            delay: one_way_ms * MS,
            queue: QueueLimit::Packets(1000),
            loss,
            protect_retransmissions: false,
            reorder: Reorder::default(),
            duplicate: 0.0,
        },
        ReverseSpec {
            delay: one_way_ms * MS,
            loss: LossModel::None,
            reorder: Reorder::default(),
            duplicate: 0.0,
        },
    )
}

pub fn scenario(
    name: &str,
    secs: u64,
    path: (PathSpec, ReverseSpec),
    flows: Vec<FlowSpec>,
) -> Scenario {
    Scenario {
        name: name.into(),
        duration: secs * 1_000_000_000,
        seed: 1,
        path: path.0,
        reverse: path.1,
        flows,
    }
}

/// The brief's example: 10 Mbit/s, 40 ms RTT, 300 segments, segments 40,
/// 42 and 44 dropped once.
pub fn three_drops() -> Scenario {
    let loss = LossModel::Drop {
        flow: "a".into(),
        which: DropSpec::Segments(vec![40, 42, 44]),
    };
    let mut f = FlowSpec::new("a");
    f.app = AppSpec::Bytes(300 * 1448);
    scenario("three-drops", 20, path(10_000_000, 20, loss), vec![f])
}

/// A bulk flow with 1% random loss.
pub fn bulk_lossy(secs: u64) -> Scenario {
    let f = FlowSpec::new("bulk");
    scenario(
        "bulk-1pct",
        secs,
        path(10_000_000, 20, LossModel::Bernoulli { p: 0.01 }),
        vec![f],
    )
}

/// A fresh scratch directory under the system's temp dir.
pub fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("losslab-viz-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A long bulk flow: 100 Mbit/s, 40 ms RTT, 0.002% loss and a 400-packet queue; about 8,500 data
/// packets per simulated second.
pub fn big(secs: u64) -> Scenario {
    let mut p = path(100_000_000, 20, LossModel::Bernoulli { p: 0.00002 });
    p.0.queue = QueueLimit::Packets(400);
    scenario("big", secs, p, vec![FlowSpec::new("big")])
}

/// Reordering without loss: spurious fast retransmits and DSACKs.
pub fn reordering() -> Scenario {
    let mut p = path(10_000_000, 20, LossModel::None);
    p.0.reorder = Reorder {
        p: 0.01,
        delay: 8 * MS,
    };
    let mut f = FlowSpec::new("r");
    f.app = AppSpec::Bytes(2000 * 1448);
    scenario("reordering", 20, p, vec![f])
}
