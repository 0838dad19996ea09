//! Scenario builders shared by the integration tests.
#![allow(dead_code)]

use losslab_core::time::MS;
use losslab_sim::scenario::*;

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
