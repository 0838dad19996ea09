//! TimerPolicy: when the retransmission timer is armed (RFC 6298 section 5
//! and its successors: RTO Restart, TLP, TLPR, RACK-TLP).

mod rto;

pub use rto::Rfc6298;

use crate::event::TimerKind;
use crate::time::Time;

/// Names accepted by `by_name`.
pub const NAMES: &[&str] = &["rto"];

/// What a timer policy may look at.
#[derive(Clone, Copy, Debug, Default)]
pub struct TimerCtx {
    pub now: Time,
    /// The current RTO, backoff included.
    pub rto: Time,
    pub srtt: Option<Time>,
    pub packets_out: u64,
    /// Send time of the earliest outstanding segment's latest transmission.
    pub oldest_sent: Option<Time>,
    /// Send time of the latest transmission of any outstanding segment.
    pub newest_sent: Option<Time>,
    /// Unsent data is ready and the windows allow sending it.
    pub has_unsent: bool,
    pub in_recovery: bool,
}

/// A deadline and what happens when it passes.
pub type Deadline = Option<(Time, TimerKind)>;

pub trait TimerPolicy {
    fn name(&self) -> &'static str;
    /// After a segment was (re)transmitted.
    fn on_send(&mut self, ctx: &TimerCtx, current: Deadline) -> Deadline;
    /// After an ACK; `acked_new` when it acknowledged new data.
    fn on_ack(&mut self, ctx: &TimerCtx, acked_new: bool, current: Deadline) -> Deadline;
}

pub fn by_name(name: &str) -> Option<Box<dyn TimerPolicy>> {
    match name {
        "rto" => Some(Box::new(Rfc6298)),
        _ => None,
    }
}
