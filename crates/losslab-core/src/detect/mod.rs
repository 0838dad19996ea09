//! LossDetector: which segments are lost, and when fast recovery starts.

mod dupthresh;

pub use dupthresh::DupThresh;

use crate::scoreboard::{Scoreboard, SegMeta};
use crate::time::Time;

/// Names accepted by `by_name`.
pub const NAMES: &[&str] = &["dupthresh"];

#[derive(Clone, Copy, Debug, Default)]
pub struct DetectCtx {
    pub now: Time,
    /// RFC 6675 DupAcks (or RFC 5681 duplicate ACKs without SACK).
    pub dupacks: u32,
    /// The peer has sent SACK information on this connection.
    pub sack_seen: bool,
    /// The cumulative ACK advanced on this ACK.
    pub cum_advanced: bool,
    pub in_fast_recovery: bool,
    /// After an RTO and until RecoveryPoint is acknowledged.
    pub in_loss: bool,
    pub mss: u32,
    pub srtt: Option<Time>,
}

pub trait LossDetector {
    fn name(&self) -> &'static str;
    /// After the scoreboard absorbed an ACK: mark lost segments through
    /// the scoreboard (`on_mark` is told of each) and say whether fast
    /// recovery should start, if it has not already.
    fn on_ack(
        &mut self,
        ctx: &DetectCtx,
        board: &mut Scoreboard,
        on_mark: &mut dyn FnMut(u64, &SegMeta),
    ) -> bool;
    /// A timer of the detector's own (RACK's reordering window, ER's delay).
    fn poll_timeout(&self) -> Option<Time> {
        None
    }
    fn on_timeout(
        &mut self,
        _ctx: &DetectCtx,
        _board: &mut Scoreboard,
        _on_mark: &mut dyn FnMut(u64, &SegMeta),
    ) -> bool {
        false
    }
}

pub fn by_name(name: &str, dupthresh: u32) -> Option<Box<dyn LossDetector>> {
    match name {
        "dupthresh" => Some(Box::new(DupThresh::new(dupthresh))),
        _ => None,
    }
}
