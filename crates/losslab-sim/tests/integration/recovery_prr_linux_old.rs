//! `recovery = "prr-linux-3"` (Linux 3.2-3.17) and `"prr-linux-4.10"` in
//! whole runs: one loss in a bulk transfer costs one retransmission and one
//! fast recovery, no timeout, every byte arrives once, and cwnd leaves the
//! recovery at ssthresh (tcp_end_cwnd_reduction(), 3.2's
//! tcp_complete_cwr()). The random-loss runs are in recovery_random_loss.rs.

use crate::common;

use common::*;
use losslab_sim::scenario::*;

#[test]
fn one_loss_costs_one_retransmission_and_every_byte_arrives_once() {
    const BYTES: u64 = 300 * 1448;
    for recovery in ["prr-linux-3", "prr-linux-4.10"] {
        for detection in ["dupthresh", "rack"] {
            let loss = LossModel::Drop {
                flow: "a".into(),
                which: DropSpec::Segments(vec![60]),
            };
            let mut f = FlowSpec::new("a");
            f.recovery = recovery.into();
            f.detection = detection.into();
            f.app = AppSpec::Bytes(BYTES);
            let sc = scenario("one", 30, path(10_000_000, 20, loss), vec![f]);
            let fl = run(&sc).flows[0].clone();
            let what = format!("{recovery} {detection}");
            assert_eq!(fl.recovery, recovery);
            assert_eq!(fl.bytes_delivered, BYTES, "{what}");
            assert_eq!(
                (fl.timeouts, fl.fast_recoveries, fl.retransmissions),
                (0, 1, 1),
                "{what}: {fl:?}"
            );
            assert_eq!(fl.spurious_retransmissions, 0, "{what}");
            let r = &fl.recoveries[0];
            assert_eq!(r.cwnd_after, Some(r.ssthresh), "{what}: {r:?}");
            assert!(r.ssthresh < r.cwnd_before, "{what}: {r:?}");
        }
    }
}
