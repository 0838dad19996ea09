//! Scenario builders shared by the integration tests.
#![allow(dead_code)]

use losslab_core::time::MS;
use losslab_sim::scenario::*;

pub fn path(rate_bps: u64, one_way_ms: u64, loss: LossModel) -> (PathSpec, ReverseSpec) {
    let delay = one_way_ms * MS;
    (
        PathSpec::new(rate_bps, delay, QueueLimit::Packets(1000), loss),
        ReverseSpec::lossless(delay),
    )
}

pub fn scenario(
    name: &str,
    secs: u64,
    path: (PathSpec, ReverseSpec),
    flows: Vec<FlowSpec>,
) -> Scenario {
    Scenario {
        reverse: path.1,
        ..Scenario::single_path(name, secs * 1_000_000_000, path.0, flows)
    }
}
