//! F-RTO in a whole run: the last three ACKs of a 20-segment write are
//! lost, so the RTO fires although every segment arrived (a spurious
//! timeout). Without SACK (so no DSACK undo either), F-RTO sees the
//! original flight acknowledged after the timeout's retransmission and
//! undoes the reduction: the next write, 2 s later, leaves with the full
//! window instead of slow-starting from one segment.

use crate::common;

use common::*;
use losslab_core::time::MS;
use losslab_core::FrtoMode;
use losslab_sim::results::FlowResults;
use losslab_sim::scenario::*;
use losslab_sim::Simulation;

fn run(frto: FrtoMode) -> FlowResults {
    let (p, mut r) = path(10_000_000, 20, LossModel::None);
    r.loss = LossModel::Drop {
        flow: "a".into(),
        which: DropSpec::Packets(vec![18, 19, 20]),
    };
    let mut f = FlowSpec::new("a");
    f.app = AppSpec::Writes(vec![(0, 20 * 1448), (2000 * MS, 10 * 1448)]);
    f.receiver.ack = AckSpec::Quick;
    f.receiver.sack_blocks = 0;
    f.frto = frto;
    let sc = scenario("frto", 30, (p, r), vec![f]);
    let mut sim = Simulation::new(&sc).unwrap();
    sim.run();
    sim.results().flows[0].clone()
}

#[test]
fn f_rto_undoes_a_spurious_timeout() {
    let with = run(FrtoMode::Linux);
    let without = run(FrtoMode::Off);
    for f in [&with, &without] {
        assert_eq!((f.timeouts, f.retransmissions), (1, 1), "{f:?}");
        assert_eq!(f.spurious_retransmissions, 1);
    }
    assert_eq!((with.spurious_rtos, with.undos), (1, 1));
    assert!(with.recoveries[0].undone);
    assert_eq!(
        with.recoveries[0].cwnd_after,
        Some(with.recoveries[0].cwnd_before)
    );
    assert_eq!((without.spurious_rtos, without.undos), (0, 0));
    assert_eq!(without.recoveries[0].cwnd_after, Some(1));
    // The second write: one round with the restored window, several from
    // one segment without.
    assert!(with.fct_s.unwrap() + 0.05 < without.fct_s.unwrap());
}
