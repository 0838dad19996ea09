//! LossDetector: which segments are lost, and when fast recovery starts.
//!
//! | name | file | marks lost | starts recovery |
//! |---|---|---|---|
//! | `dupthresh` | dupthresh.rs | RFC 6675 IsLost() | DupThresh dupacks or IsLost(HighACK+1) |
//! | `fack` | fack.rs | Linux FACK: every hole below the highest SACK once in recovery | the highest SACK more than DupThresh segments above snd.una |
//! | `early-retransmit` | early_retransmit.rs | as dupthresh | also on oflight - 1 dupacks with < 4 segments out (RFC 5827) |
//! | `rack` | rack.rs | RFC 8985: a later-sent segment was delivered RTT + reo_wnd ago | when RACK marks a loss |
//! | `le` | le.rs | LE paper 2.2.1: DupThresh ACKs identified transmissions sent after it | when LE marks a loss |
//! | `linux-4.4` | linux44.rs | Linux 4.4-4.10: FACK, and in recovery RACK without its timer (send time more than reo_wnd before a delivered one's) | as `early-retransmit` with Linux's variant and delay |
//! | `ns2-sack1` | ns2_sack1.rs | ns-2 Sack1: every hole below the highest SACK, once in recovery | DupThresh duplicate ACKs |
//!
//! `Hack1` (hack1.rs, the `hack1` extension) wraps any of them: in
//! recovery, more than DupThresh duplicate ACKs without new SACK
//! information retransmit the first unacknowledged segment again.
//!
//! Detectors read, besides the scoreboard, the sender's view of the
//! connection in `DetectCtx`; in particular `reordering_seen`, the shared
//! reordering signal the sender computes for every detector (Linux
//! tcp_check_sack_reordering(): a never-retransmitted segment delivered
//! below the highest segment already delivered; or a DSACK for a segment
//! sent exactly twice, the second time because a detector marked it lost).

mod dupthresh;
mod early_retransmit;
mod fack;
mod hack1;
mod le;
mod linux44;
mod ns2_sack1;
mod rack;

pub use dupthresh::DupThresh;
pub use early_retransmit::{er_delay, er_delay_linux, EarlyRetransmit};
pub use fack::Fack;
pub use hack1::Hack1;
pub use le::{Le, LeOrder};
pub use linux44::Linux44;
pub use ns2_sack1::Ns2Sack1;
pub use rack::{Rack, RackAdvance, ReoTimer, TCP_TIMEOUT_MIN, TCP_TIMEOUT_MIN_US};

use crate::scoreboard::{Scoreboard, SegMeta};
use crate::time::Time;

/// Names accepted by `by_name`.
pub const NAMES: &[&str] = &[
    "dupthresh",
    "fack",
    "early-retransmit",
    "rack",
    "le",
    "ns2-sack1",
    "linux-4.4",
];

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
    /// The sender's minimum RTT sample over the connection.
    pub min_rtt: Option<Time>,
    /// This ACK's RTT sample, if it gave one (RFC 8985 6.2 step 1 feeds
    /// RACK.min_RTT's windowed filter with it).
    pub rtt_sample: Option<Time>,
    /// Reordering has been detected on this connection (sticky).
    pub reordering_seen: bool,
    /// Linux's tp->reordering: the largest reordering degree seen, in
    /// segments (a segment sent once delivered that many below the highest
    /// delivered before it), at least DupThresh, at most 300
    /// (sysctl_tcp_max_reordering). The Linux-named detectors use it where
    /// the RFC ones use a fixed DupThresh.
    pub reordering: u32,
    /// Congestion window, segments (Linux early retransmit asks whether
    /// new data may be sent now, cwnd included: tcp_may_send_now()).
    pub cwnd: u64,
    /// New data could be sent now: the application has some and the
    /// peer's window allows it (RFC 5827 section 2 condition (2.b) is its
    /// negation). Congestion window not considered.
    pub can_send_new: bool,
    /// TSecr of the ACK (0: none, and on timer calls).
    pub ts_ecr: Time,
    /// The ACK carried a DSACK block.
    pub dsack: bool,
    /// Segments this ACK SACKed for the first time.
    pub newly_sacked: u64,
    /// The ACK repeats the cumulative ACK while data is outstanding (not
    /// an older ACK). With SACK it may or may not carry new SACK blocks.
    pub duplicate_ack: bool,
    /// Bytes: the cumulative ACK point and the next byte to send.
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// This ACK ends a fast or timeout recovery (it reaches RecoveryPoint).
    pub exiting_recovery: bool,
    /// Fast recovery may start only on DupThresh duplicate ACKs, not on
    /// IsLost(HighACK + 1) alone (RFC 3517 section 5; RFC 6675 added the
    /// IsLost trigger). Asked by the recovery algorithm.
    pub dupack_entry_only: bool,
    /// The transmission order the receiver echoed (`Ack::echo_order`;
    /// 0: none).
    pub echo_order: u64,
}

impl DetectCtx {
    /// The ACK echoes no timestamp, or one from after `sent`: a
    /// retransmission sent then may be what it acknowledges (RFC 8985
    /// 6.2 step 2; Linux tcp_skb_spurious_retrans()). TSval is the send
    /// time + 1 (wire.rs); 0 means no echo.
    pub fn echo_not_before(&self, sent: Time) -> bool {
        self.ts_ecr == 0 || self.ts_ecr > sent
    }
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
    /// A segment left, first or again (RFC 6675 transmissions and loss
    /// probes alike), as transmission `tx_order`: for detectors that keep
    /// their own record of transmission order (LE's WAITLIST).
    fn on_sent(&mut self, _seg_no: u64, _tx_order: u64) {}
    /// A retransmission timeout fired: mark what it declares lost. RFC
    /// 6675 section 5.1 and RFC 5681: every segment not SACKed.
    fn on_rto(&mut self, _ctx: &DetectCtx, board: &mut Scoreboard) {
        board.mark_all_lost();
    }
    /// A timer of the detector's own (RACK's reordering window, ER's delay).
    fn poll_timeout(&self) -> Option<Time> {
        None
    }
    /// Called when `poll_timeout` has passed; must disarm or move the timer.
    fn on_timeout(
        &mut self,
        _ctx: &DetectCtx,
        _board: &mut Scoreboard,
        _on_mark: &mut dyn FnMut(u64, &SegMeta),
    ) -> bool {
        false
    }
}

/// The early-retransmit mitigations of the PRR/ER paper, section 6 (after
/// RFC 5827's appendix).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ErMitigation {
    /// RFC 5827 as written.
    #[default]
    None,
    /// No early retransmit once reordering has been detected.
    Reordering,
    /// Early retransmit waits SRTT/4, bounded to [25 ms, 500 ms]; any ACK
    /// in between cancels it.
    Delay,
    /// Both.
    Both,
}

impl ErMitigation {
    /// Names in scenarios (`[flow.early-retransmit] mitigation = "both"`).
    pub const NAMES: &'static [&'static str] = &["none", "reordering", "delay", "both"];

    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "none" => ErMitigation::None,
            "reordering" => ErMitigation::Reordering,
            "delay" => ErMitigation::Delay,
            "both" => ErMitigation::Both,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            ErMitigation::None => "none",
            ErMitigation::Reordering => "reordering",
            ErMitigation::Delay => "delay",
            ErMitigation::Both => "both",
        }
    }
    pub fn off_after_reordering(self) -> bool {
        matches!(self, ErMitigation::Reordering | ErMitigation::Both)
    }
    pub fn delays(self) -> bool {
        matches!(self, ErMitigation::Delay | ErMitigation::Both)
    }
}

/// Which early retransmit (`[flow.early-retransmit] variant`): the RFC or
/// what Linux 3.5 to 4.9 did (see early_retransmit.rs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ErVariant {
    /// RFC 5827 section 3.2: ER_thresh = oflight - 1, over RFC 6675.
    #[default]
    Rfc5827,
    /// Linux 3.17 tcp_time_to_recover(): one SACK suffices, over FACK.
    Linux,
}

impl ErVariant {
    pub const NAMES: &'static [&'static str] = &["rfc5827", "linux"];

    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "rfc5827" => Some(ErVariant::Rfc5827),
            "linux" => Some(ErVariant::Linux),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            ErVariant::Rfc5827 => "rfc5827",
            ErVariant::Linux => "linux",
        }
    }
}

/// Parameters a detector may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DetectParams {
    /// RFC 6675 DupThresh.
    pub dupthresh: u32,
    /// early-retransmit only.
    pub er_mitigation: ErMitigation,
    pub er_variant: ErVariant,
    /// le only: where an ACK's transmission order comes from.
    pub le_order: LeOrder,
    /// rack only: how the reordering timer is armed (`[flow.rack]
    /// reo_timer`) and the HZ of its jiffies (the flow's `timer_hz`; 0:
    /// exact timers, the expiry itself).
    pub rack_reo_timer: ReoTimer,
    pub rack_timer_hz: u32,
    /// rack only: which delivered retransmissions move RACK.xmit_ts
    /// (`[flow.rack] advance`).
    pub rack_advance: RackAdvance,
}

impl Default for DetectParams {
    fn default() -> Self {
        DetectParams {
            dupthresh: 3,
            er_mitigation: ErMitigation::None,
            er_variant: ErVariant::Rfc5827,
            le_order: LeOrder::Sack,
            rack_reo_timer: ReoTimer::Exact,
            rack_timer_hz: 0,
            rack_advance: RackAdvance::Rfc8985,
        }
    }
}

pub fn by_name(name: &str, dupthresh: u32) -> Option<Box<dyn LossDetector>> {
    build(
        name,
        &DetectParams {
            dupthresh,
            ..DetectParams::default()
        },
    )
}

/// Builds a detector by name with its parameters.
pub fn build(name: &str, p: &DetectParams) -> Option<Box<dyn LossDetector>> {
    match name {
        "dupthresh" => Some(Box::new(DupThresh::new(p.dupthresh))),
        "fack" => Some(Box::new(Fack::new(p.dupthresh))),
        "early-retransmit" => Some(Box::new(EarlyRetransmit::with_variant(
            p.dupthresh,
            p.er_mitigation,
            p.er_variant,
        ))),
        "rack" => Some(Box::new(
            Rack::new(p.dupthresh)
                .with_reo_timer(p.rack_reo_timer, p.rack_timer_hz)
                .with_advance(p.rack_advance),
        )),
        "le" => Some(Box::new(Le::new(p.dupthresh, p.le_order))),
        "ns2-sack1" => Some(Box::new(Ns2Sack1::new(p.dupthresh))),
        "linux-4.4" => Some(Box::new(Linux44::new(p.dupthresh))),
        _ => None,
    }
}

/// Segment `n` is lost and its mark is new: tell `on_mark`.
fn mark(board: &mut Scoreboard, n: u64, on_mark: &mut dyn FnMut(u64, &SegMeta)) -> bool {
    if board.mark_lost(n) {
        let s = *board.get(n).expect("marked segment present");
        on_mark(n, &s);
        true
    } else {
        false
    }
}

#[cfg(test)]
pub(crate) mod testing {
    use super::DetectCtx;
    use crate::scoreboard::Scoreboard;
    use crate::time::Time;
    use crate::wire::Range;

    /// `n` segments of 1000 bytes, segment i sent at `sent(i)` with
    /// transmission order i + 1.
    pub fn board_sent_at(n: u64, sent: impl Fn(u64) -> Time) -> Scoreboard {
        let mut b = Scoreboard::new();
        for i in 0..n {
            b.push_new(i * 1000, 1000, sent(i), i + 1);
        }
        b
    }

    pub fn board(n: u64) -> Scoreboard {
        board_sent_at(n, |_| 0)
    }

    /// SACKs segments [lo, hi) as a fresh ACK would.
    pub fn sack(b: &mut Scoreboard, lo: u64, hi: u64) -> u64 {
        b.on_sack_block(Range::new(lo * 1000, hi * 1000))
    }

    pub fn ctx(dupacks: u32) -> DetectCtx {
        DetectCtx {
            dupacks,
            sack_seen: true,
            mss: 1000,
            ..Default::default()
        }
    }
}
