//! The view of a run the simulator hands over when asked for results
//! (`Simulation::results`): what results.rs reads, and nothing it would have
//! to reach back into the simulator for.

use losslab_core::time::Time;
use losslab_core::{Receiver, Sender};

use crate::chunks::FileRt;
use crate::rbb::RbbMeter;
use crate::scenario::{FlowSpec, Scenario};

/// The whole run at the instant results are taken.
pub(crate) struct RunView<'a> {
    pub scenario: &'a Scenario,
    pub now: Time,
    pub events: u64,
    pub link: LinkStats,
    pub flows: Vec<FlowView<'a>>,
    pub files: &'a [FileRt],
}

/// A loss-recovery period as the mobile paper measures it at the
/// bottleneck (section III, Fig. 1; section IV.B measures Tables 1-2 this
/// way): from T2, when the flow's first retransmission starts
/// serialisation, until the first segment of new data, above everything
/// the flow had sent through the link before T2, has been serialised.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RecoveryPeriod {
    pub start: Time,
    /// None while still open.
    pub end: Option<Time>,
    /// Time the link spent serialising packets of any flow inside the
    /// period (eq. 8's numerator, as time).
    pub busy: Time,
    /// Packets of any flow the link finished inside the period.
    pub packets: u64,
    /// Of those, the flow's own retransmissions.
    pub retransmissions: u64,
}

pub(crate) struct FlowView<'a> {
    pub name: &'a str,
    pub spec: &'a FlowSpec,
    pub start: Time,
    pub sender: Option<&'a Sender>,
    pub receiver: &'a Receiver,
    pub fct_at: Option<Time>,
    pub epoch_link_bytes: &'a [(Time, u64)],
    pub spurious: u64,
    pub retransmissions_of_discarded: u64,
    pub objects: Option<ObjectsView<'a>>,
    /// Closed loss-recovery periods (listed ones), how many more closed,
    /// the one still open, and the busy and total time of all closed ones.
    pub periods: &'a [RecoveryPeriod],
    pub periods_omitted: u64,
    pub open_period: Option<RecoveryPeriod>,
    pub period_busy: Time,
    pub period_time: Time,
    pub rbb: &'a RbbMeter,
    pub spurious_after_ack_loss: u64,
    pub spurious_unreported: u64,
    pub discard_head: [u64; 2],
}

pub(crate) struct LinkStats {
    pub rate_bps: u64,
    pub link_bytes: u64,
    pub queue_drops: u64,
    pub loss_drops: u64,
    pub ack_drops: u64,
    pub max_queue_bytes: u64,
}

/// A request/response application's objects: sizes, and when each was
/// requested and completed (so far).
#[derive(Clone, Copy)]
pub(crate) struct ObjectsView<'a> {
    pub sizes: &'a [u64],
    pub requested: &'a [Time],
    pub completed: &'a [Time],
}
