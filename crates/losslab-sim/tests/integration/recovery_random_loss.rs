//! The recovery algorithms under random loss, with and without SACK, with
//! the engine's invariant checks on (losslab-sim's dev build enables
//! losslab-core's `invariants`): every byte arrives, and each fast recovery
//! that ends by reaching RecoveryPoint (not by a timeout) leaves cwnd where
//! the algorithm says.

use crate::common;

use common::*;
use losslab_sim::results::RecoveryResult;
use losslab_sim::scenario::*;
use losslab_sim::Simulation;

const BYTES: u64 = 3_000_000;

fn run(recovery: &str, sack_blocks: u8, seed: u64) -> losslab_sim::results::FlowResults {
    let mut f = FlowSpec::new("a");
    f.recovery = recovery.into();
    f.app = AppSpec::Bytes(BYTES);
    f.receiver.sack_blocks = sack_blocks;
    let mut sc = scenario(
        "random",
        120,
        path(20_000_000, 20, LossModel::Bernoulli { p: 0.01 }),
        vec![f],
    );
    sc.seed = seed;
    let mut sim = Simulation::new(&sc).unwrap();
    sim.run();
    sim.results().flows[0].clone()
}

/// Fast recoveries that ended at RecoveryPoint: a timeout closes the record
/// at the instant the next one (kind "timeout") opens.
fn completed_fast(recs: &[RecoveryResult]) -> Vec<&RecoveryResult> {
    recs.iter()
        .enumerate()
        .filter(|(i, r)| {
            r.kind == "fast"
                && r.end_s.is_some()
                && recs
                    .get(i + 1)
                    .is_none_or(|n| n.kind == "fast" || Some(n.start_s) != r.end_s)
        })
        .map(|(_, r)| r)
        .collect()
}

#[test]
fn every_algorithm_delivers_under_random_loss() {
    for recovery in [
        "prr",
        "prr-6937",
        "prr-linux",
        "prr-linux-3",
        "prr-linux-4.10",
        "rate-halving",
    ] {
        for sack in [3, 0] {
            for seed in 1..=3 {
                let f = run(recovery, sack, seed);
                let what = format!("{recovery} sack={sack} seed={seed}");
                assert_eq!(f.bytes_delivered, BYTES, "{what}");
                assert_eq!(f.recovery, recovery);
                let done = completed_fast(&f.recoveries);
                assert!(!done.is_empty(), "{what}: no fast recovery completed");
                for r in done {
                    let after = r.cwnd_after.unwrap();
                    match recovery {
                        // RFC 9937 6.4 / Algorithm 2 / Linux
                        // tcp_end_cwnd_reduction() (3.2: tcp_complete_cwr()
                        // with undo_marker): exactly ssthresh.
                        "prr" | "prr-6937" | "prr-linux" | "prr-linux-3" | "prr-linux-4.10" => {
                            assert_eq!(after, r.ssthresh, "{what}: {r:?}")
                        }
                        // tcp_complete_cwr(): never above ssthresh.
                        _ => assert!(after <= r.ssthresh, "{what}: {r:?}"),
                    }
                }
            }
        }
    }
}
