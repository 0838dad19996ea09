//! What the PRR paper's three experiments share (prr.rs: section 4's
//! testbed and section 4.3; prr_er.rs: early retransmit; prr_web.rs: the
//! web workload), so that none of them imports another.

use losslab_core::time::Time;
use losslab_sim::scenario::{CcSpec, FlowSpec};

use super::common::FlowTrace;

/// A flow of the paper's Linux 3.2-era sender (profile `linux-3.2`) with
/// congestion control `cc` and recovery `recovery`.
pub(super) fn linux32(name: &str, cc: &str, recovery: &str) -> FlowSpec {
    let mut f = FlowSpec::new(name);
    assert!(losslab_sim::profile::apply("linux-3.2", &mut f));
    f.cc = CcSpec::Named(cc.into());
    f.recovery = recovery.into();
    f
}

/// Largest number of segments released at one instant in [from, to].
pub(super) fn largest_burst(t: &FlowTrace, from: Time, to: Time) -> usize {
    t.sent
        .iter()
        .filter(|x| x.t >= from && x.t <= to)
        .map(|x| t.sent_at(x.t))
        .max()
        .unwrap_or(0)
}
