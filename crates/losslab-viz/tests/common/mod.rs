//! Builds run directories like `losslab run --timeseries --trace` does,
//! without the CLI: summary.json, timeseries.csv and packets.csv.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use losslab_core::time::MS;
use losslab_sim::packet_log::PacketLog;
use losslab_sim::scenario::*;
use losslab_sim::sim::Tee;
use losslab_sim::timeseries::TimeSeries;
use losslab_sim::{Scenario, Simulation};

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
        tee.0.push(Box::new(
            TimeSeries::create(&dir.join("timeseries.csv"), names.clone()).unwrap(),
        ));
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

/// A 1000-packet bottleneck; the ACK path is lossless with the same delay
/// (`Scenario::single_path`).
pub fn path(rate_bps: u64, one_way_ms: u64, loss: LossModel) -> PathSpec {
    PathSpec::new(rate_bps, one_way_ms * MS, QueueLimit::Packets(1000), loss)
}

pub fn scenario(name: &str, secs: u64, path: PathSpec, flows: Vec<FlowSpec>) -> Scenario {
    Scenario::single_path(name, secs * 1_000_000_000, path, flows)
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
    p.queue = QueueLimit::Packets(400);
    scenario("big", secs, p, vec![FlowSpec::new("big")])
}

/// Reordering without loss: spurious fast retransmits and DSACKs.
pub fn reordering() -> Scenario {
    let mut p = path(10_000_000, 20, LossModel::None);
    p.reorder = Reorder {
        p: 0.01,
        delay: 8 * MS,
    };
    let mut f = FlowSpec::new("r");
    f.app = AppSpec::Bytes(2000 * 1448);
    scenario("reordering", 20, p, vec![f])
}
