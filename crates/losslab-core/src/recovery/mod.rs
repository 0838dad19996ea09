//! RecoveryOps: how cwnd evolves while losses are repaired.
//!
//! The trait mirrors `struct tcp_retrans_ops` of the mobile
//! opportunistic-retransmission paper (section VI): `init_cwnd_reduction`,
//! `cwnd_reduction(newly_acked_sacked, fast_rexmit)`, `end_cwnd_reduction`,
//! `pkts_acked` and `get_awnd_extension`. Every algorithm expresses itself
//! through cwnd; the sender transmits while pipe < cwnd (RFC 6675 step C).

mod opportunistic;
mod prr;
mod prr6937;
mod rate_halving;
mod rfc3517;
mod rfc6675;

pub use opportunistic::Opportunistic;
pub use prr::Prr;
pub use prr6937::{Prr6937, ReductionBound};
pub use rate_halving::RateHalving;
pub use rfc3517::Rfc3517;
pub use rfc6675::Rfc6675;

use crate::time::Time;
use crate::window::Window;

/// Names accepted by `by_name`.
pub const NAMES: &[&str] = &["rfc6675", "rfc3517", "rate-halving", "prr-6937", "prr"];

/// What a recovery algorithm may look at.
#[derive(Clone, Copy, Debug, Default)]
pub struct RecoveryCtx {
    pub now: Time,
    /// RFC 6675 pipe after the ACK was processed, in segments.
    pub pipe: u64,
    /// Segments sent and not cumulatively acknowledged.
    pub packets_out: u64,
    /// Segments SACKed at this moment.
    pub sacked_out: u64,
    /// The cumulative ACK advanced on this ACK.
    pub snd_una_advanced: bool,
    /// The detector marked new losses on this ACK.
    pub new_loss: bool,
    pub mss: u32,
}

/// What `awnd_extension` may look at: the paper's n1 and n2 (section IV).
#[derive(Clone, Copy, Debug, Default)]
pub struct AwndCtx {
    /// In fast recovery.
    pub in_recovery: bool,
    /// n1: segments not SACKed below the highest SACKed one.
    pub holes: u64,
    /// n2: out-of-order segments the receiver reported by SACK.
    pub sacked: u64,
}

pub trait RecoveryOps {
    fn name(&self) -> &'static str;
    /// Entering fast recovery; `w.ssthresh` was just set by the congestion
    /// controller and `w.cwnd` still holds the value before the loss.
    fn init_cwnd_reduction(&mut self, w: &mut Window, ctx: &RecoveryCtx);
    /// On every ACK during fast recovery, the entering one included
    /// (`fast_rexmit` is true on that one, as in Linux).
    fn cwnd_reduction(
        &mut self,
        w: &mut Window,
        ctx: &RecoveryCtx,
        newly_acked_sacked: u64,
        fast_rexmit: bool,
    );
    /// Leaving fast recovery (the cumulative ACK reached RecoveryPoint).
    fn end_cwnd_reduction(&mut self, w: &mut Window, ctx: &RecoveryCtx);
    /// Every ACK that delivered data, in or out of recovery.
    fn pkts_acked(&mut self, _num_acked: u64, _rtt: Option<Time>) {}
    /// Segments the sender may send beyond the receive window
    /// (opportunistic retransmission); none by default.
    fn awnd_extension(&self, _ctx: &AwndCtx) -> u64 {
        0
    }
    /// Whether NextSeg() rule 4, the rescue retransmission, is used (RFC
    /// 6675 added it; RFC 3517 has none).
    fn rescue_retransmission(&self) -> bool {
        true
    }
    /// Whether fast recovery may start on IsLost(HighACK + 1) before
    /// DupThresh duplicate ACKs (RFC 6675 section 5 step 1; not RFC 3517).
    /// Detectors with their own entry rule (FACK, RACK) ignore it.
    fn entry_on_islost(&self) -> bool {
        true
    }
    /// Every segment (re)transmitted while in fast recovery.
    fn on_sent(&mut self, _segments: u64) {}
}

pub fn by_name(name: &str) -> Option<Box<dyn RecoveryOps>> {
    match name {
        // RFC 3517 and RFC 6675 share the cwnd rule; RFC 3517 lacks the
        // rescue retransmission (and the IsLost(HighACK+1) entry, which
        // the detector will distinguish).
        "rfc6675" => Some(Box::new(Rfc6675)),
        "rfc3517" => Some(Box::new(Rfc3517)),
        // Linux before 3.2 (tcp_cwnd_down()).
        "rate-halving" => Some(Box::new(RateHalving::new())),
        // RFC 6937 / PRR paper Algorithm 2: PRR-SSRB on every ACK.
        "prr-6937" => Some(Box::new(Prr6937::ssrb())),
        // RFC 9937, which obsoletes RFC 6937.
        "prr" => Some(Box::new(Prr::new())),
        _ => None,
    }
}
