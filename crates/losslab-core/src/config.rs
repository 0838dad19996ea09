//! Static configuration of the two ends of a connection.

use crate::time::{Time, MS, SEC};

/// How the receiver acknowledges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckMode {
    /// RFC 5681 section 4.2 / RFC 1122 4.2.3.2: an ACK for at least every
    /// second full-sized segment, within `delack_timeout`; immediately on
    /// out-of-order data, on data that fills a gap, and on duplicates.
    Delayed,
    /// Every segment is acknowledged at once (Linux "quick ACK" mode).
    Quick,
}

#[derive(Clone, Debug)]
pub struct ReceiverConfig {
    pub ack_mode: AckMode,
    /// Delayed-ACK timer when `linux_delack` is off (200 ms: the papers'
    /// worst case, RFC 1122's usual value).
    pub delack_timeout: Time,
    /// Linux's delayed-ACK engine instead of the fixed timer (receiver.rs,
    /// `LinuxDelack`): quick ACKs for the first segments, then a timeout
    /// that adapts to the arrival pattern (40 ms upwards) and stays below
    /// the RTT.
    pub linux_delack: bool,
    /// Linux's rcv_ssthresh (receiver.rs `GrowWindow`): the advertised
    /// window opens from tcp_select_initial_window()'s first window as
    /// segments arrive, and every segment that opens it is ACKed at once.
    /// Off: the whole buffer is offered from the start, as before the key.
    pub grow_window: bool,
    /// Linux's receive-buffer autotuning (autotune.rs, `Drs`): the buffer
    /// starts at tcp_rmem[1]'s window and grows once per receiver-measured
    /// RTT toward `rcvbuf`, with window_clamp following it. Off: the
    /// buffer is `rcvbuf` from the start, as before the key.
    pub autotune: bool,
    /// SACK blocks per ACK (0 disables SACK; RFC 2018 allows 3 with the
    /// timestamps option, 4 without).
    pub sack_blocks: u8,
    /// Report duplicates with DSACK (RFC 2883).
    pub dsack: bool,
    /// Receive buffer in bytes: out-of-order plus in-order-but-unread data.
    pub rcvbuf: u64,
    /// Application read rate in bytes per second; `None` reads instantly.
    pub read_rate: Option<u64>,
    /// How long after data becomes in order the application can read it
    /// (its scheduling delay); 0 reads at once, at `read_rate`.
    pub read_delay: Time,
    /// Largest window the receiver advertises (`None`: as large as the
    /// free buffer). Linux's tp->window_clamp, which bounds the offered
    /// window in __tcp_select_window() (net/ipv4/tcp_output.c) while the
    /// buffer behind it may be larger, so out-of-order data can be held
    /// without shrinking the next window.
    pub window_clamp: Option<u64>,
    /// Sender's MSS, used for "full-sized segment" and window-update rules.
    pub mss: u32,
    /// Echo the transmission order of the segment that triggered each ACK
    /// (`Ack::echo_order`): the LE paper's Linux receiver (section 4.2).
    pub echo_order: bool,
}

impl Default for ReceiverConfig {
    fn default() -> Self {
        ReceiverConfig {
            ack_mode: AckMode::Delayed,
            delack_timeout: 200 * MS,
            linux_delack: true,
            grow_window: false,
            autotune: false,
            sack_blocks: 3,
            dsack: true,
            rcvbuf: 16_000_000,
            read_rate: None,
            read_delay: 0,
            window_clamp: None,
            mss: 1448,
            echo_order: false,
        }
    }
}

/// How the RTO is computed from SRTT and RTTVAR.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RtoFormula {
    /// RFC 6298 section 2: RTO = max(min_rto, SRTT + max(G, 4 * RTTVAR)).
    #[default]
    Rfc6298,
    /// Linux (tcp_set_rto / tcp_rtt_estimator, net/ipv4/tcp_input.c):
    /// RTO = SRTT + max(4 * RTTVAR, min_rto). The floor applies to the
    /// variance term, not to the sum, so the RTO is always at least one
    /// SRTT above min_rto. Only the formula: the estimator under it is
    /// RFC 6298's (see `LinuxKernel` for the whole of Linux's).
    Linux,
    /// Linux's whole estimator, tcp_rtt_estimator() and __tcp_set_rto()
    /// (net/ipv4/tcp_input.c, include/net/tcp.h; 3.15 onwards in
    /// microseconds, as the tail-loss paper's 3.17 hosts), in the kernel's
    /// integer arithmetic: a falling RTT moves the deviation with gain
    /// 1/32 instead of 1/4, and the variance term (rttvar_us, at least
    /// min_rto) rises at once but falls only once per RTT (when snd_una
    /// passes rtt_seq), by a quarter of its distance to that RTT's largest
    /// deviation. RTO = SRTT + rttvar_us.
    LinuxKernel,
}

impl RtoFormula {
    /// Names in scenarios (`rto_formula = "linux"`).
    pub const NAMES: &'static [&'static str] = &["rfc6298", "linux", "linux-kernel"];

    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "rfc6298" => Some(RtoFormula::Rfc6298),
            "linux" => Some(RtoFormula::Linux),
            "linux-kernel" => Some(RtoFormula::LinuxKernel),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            RtoFormula::Rfc6298 => "rfc6298",
            RtoFormula::Linux => "linux",
            RtoFormula::LinuxKernel => "linux-kernel",
        }
    }
}

/// ssthresh on a retransmission timeout that fires during fast recovery.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RtoSsthresh {
    /// Linux tcp_enter_loss(): ssthresh is recomputed only when the RTO
    /// starts a new episode (state below Recovery); a timeout in fast recovery keeps the ssthresh the
    /// fast recovery set, whose reduction already answered this loss.
    #[default]
    Linux,
    /// RFC 5681 section 3.1: "When a TCP sender detects segment loss using
    /// the retransmission timer and the given segment has not yet been
    /// resent by way of the retransmission timer, the value of ssthresh
    /// MUST be set to no more than the value given in equation (4)": a
    /// timeout during fast recovery halves FlightSize again; a repeated
    /// timeout keeps ssthresh.
    Rfc5681,
}

impl RtoSsthresh {
    pub const NAMES: &'static [&'static str] = &["linux", "rfc5681"];
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "linux" => Some(RtoSsthresh::Linux),
            "rfc5681" => Some(RtoSsthresh::Rfc5681),
            _ => None,
        }
    }
}

/// When fast or RTO recovery ends without SACK.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RecoveryExit {
    /// RFC 6582 section 3.2 step 3 (and RFC 6675 section 5 with SACK):
    /// the ACK that covers the recovery point ends recovery, and cwnd
    /// goes to ssthresh there.
    #[default]
    Rfc6582,
    /// Linux tcp_try_undo_recovery() / tcp_is_non_sack_preventing_reopen()
    /// (net/ipv4/tcp_input.c): without SACK, an ACK of exactly the
    /// recovery point (high_seq) holds the recovery state "until
    /// something *above* high_seq is ACKed" (RFC 2582's guard against
    /// false fast retransmits); the cwnd reduction goes on for that ACK
    /// (tcp_cong_control() calls tcp_cwnd_reduction() in Recovery), and
    /// the next ACK above the point ends it. With SACK both are the same.
    Linux,
}

impl RecoveryExit {
    pub const NAMES: &'static [&'static str] = &["rfc6582", "linux"];
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "rfc6582" => Some(RecoveryExit::Rfc6582),
            "linux" => Some(RecoveryExit::Linux),
            _ => None,
        }
    }
}

/// RFC 6298 estimator bounds.
#[derive(Clone, Copy, Debug)]
pub struct RtoConfig {
    /// Lower bound on the RTO. RFC 6298 (2.4) says 1 s; Linux uses 200 ms,
    /// which is the default here as in the papers' testbeds.
    pub min_rto: Time,
    /// Upper bound (RFC 6298 2.5: at least 60 s).
    pub max_rto: Time,
    /// RTO before the first RTT sample (RFC 6298 2.1).
    pub initial_rto: Time,
    /// Clock granularity G of RFC 6298 (2.2/2.3).
    pub granularity: Time,
    pub formula: RtoFormula,
    /// The timer tick (a kernel's jiffy, 1 s / HZ; 0: exact timers). With
    /// a tick the RTO is rounded up to whole ticks (usecs_to_jiffies())
    /// and timers expire on a tick (the sender floors its deadlines).
    pub tick: Time,
}

impl Default for RtoConfig {
    fn default() -> Self {
        RtoConfig {
            min_rto: 200 * MS,
            max_rto: 60 * SEC,
            initial_rto: SEC,
            granularity: MS,
            formula: RtoFormula::Rfc6298,
            tick: 0,
        }
    }
}

/// Whether the sender paces (`pacing` key).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Pacing {
    /// Pace when the congestion controller sets a pacing rate (BBR, as
    /// Linux's bbr_init() asks for SK_PACING_NEEDED); otherwise `Off`.
    #[default]
    Auto,
    /// Segments leave as soon as cwnd and the receive window allow.
    Off,
    /// Linux's internal/fq pacing: each burst of segments (one TSO-sized
    /// skb) leaves at the departure time its predecessors earned at the
    /// pacing rate (sender/transmit.rs `Pacer`).
    Rate,
}

impl Pacing {
    pub const NAMES: &'static [&'static str] = &["auto", "off", "rate"];
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "auto" => Some(Pacing::Auto),
            "off" => Some(Pacing::Off),
            "rate" => Some(Pacing::Rate),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Pacing::Auto => "auto",
            Pacing::Off => "off",
            Pacing::Rate => "rate",
        }
    }
}

/// Which data segment first moves the pacing departure time
/// (`pacing_start` key; pacing.rs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PacingStart {
    /// The first eleven segments leave unpaced: the departure time first
    /// moves on the eleventh, so the first paced gap follows it (the
    /// engine's rule before the key).
    #[default]
    After11,
    /// net/ipv4/tcp_output.c: __tcp_transmit_skb() adds the skb to
    /// tp->data_segs_out before tcp_update_skb_after_send() tests
    /// `data_segs_out >= 10`, so the segment that brings the count to ten
    /// already moves tcp_wstamp_ns and the eleventh waits for it.
    Linux,
}

impl PacingStart {
    pub const NAMES: &'static [&'static str] = &["after-11", "linux"];
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "after-11" => Some(PacingStart::After11),
            "linux" => Some(PacingStart::Linux),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            PacingStart::After11 => "after-11",
            PacingStart::Linux => "linux",
        }
    }
}

/// When cwnd may grow: how "the flow used its cwnd" is judged (Linux
/// tcp_is_cwnd_limited(); `cwnd_validation` key).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CwndValidation {
    /// Linux since the 2022 fix that keeps a cwnd-limited window
    /// (cwnd_use.rs): the largest flight since the window was last
    /// filled; in slow start cwnd may grow while below twice it. Judged
    /// after every send burst.
    #[default]
    Linux,
    /// Linux 4.3 to 5.10 (cwnd_use.rs): a larger flight renews the
    /// window's record even when it was cwnd-limited, only bursts that
    /// sent new data count, and a burst is cwnd-limited when the flight
    /// fills cwnd at its end.
    Linux43,
    /// Linux 3.16 to 4.2 (cwnd_use.rs): as `Linux43`, with slow start
    /// taken as cwnd <= ssthresh and a burst cwnd-limited when queued
    /// data found the flight filling cwnd.
    Linux316,
    /// Linux 3.10 (tcp_cong.c tcp_is_cwnd_limited(), checked on each ACK
    /// with the flight before it): limited when the flight fills cwnd, or
    /// leaves at most 3 segments unused (tcp_max_tso_deferred_mss()), or,
    /// with GSO, when the unused part is under cwnd / tcp_tso_win_divisor
    /// (3) and under 64 KB. A receive-window-limited flow stops growing
    /// cwnd near its flight (the mobile paper's "CWnd limited by AWnd").
    Linux310,
    /// Linux 3.10 without GSO: only the 3-segment rule.
    Linux310NoGso,
}

/// Which RTT samples an ACK gives the estimator and the rest (`rtt_sample`
/// key).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RttSampling {
    /// now - TSecr on a cumulative ACK of nothing ever retransmitted (Karn's
    /// rule), one sample for every consumer: what every flow written before
    /// the key does.
    #[default]
    Tsecr,
    /// Linux tcp_clean_rtx_queue() and tcp_ack_update_rtt() (tcp_input.c):
    /// the estimator gets the RTT of the oldest newly acknowledged original
    /// (SACKed ones too), min_rtt, the controllers and the detectors that of
    /// the newest; TSecr only when neither exists.
    Linux,
    /// Linux 3.2 to 3.14 tcp_ack_update_rtt() and tcp_clean_rtx_queue():
    /// the estimator gets now - TSecr on every ACK that advances snd_una,
    /// retransmitted data acknowledged or not; the controller the newest
    /// cumulatively acknowledged original, none when retransmitted data
    /// was acknowledged; whole jiffies with `timer_hz` (rtt_sample.rs).
    Linux32,
    /// Linux 3.15 to 3.17: microsecond seq_rtt from the cumulative ACK,
    /// sack_rtt, then TSecr in jiffies for the estimator; the controller
    /// the newest cumulatively acknowledged original on every ACK that
    /// advances snd_una (rtt_sample.rs).
    Linux315,
}

impl RttSampling {
    pub const NAMES: &'static [&'static str] = &["tsecr", "linux", "linux-3.2", "linux-3.15"];
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "tsecr" => Some(RttSampling::Tsecr),
            "linux" => Some(RttSampling::Linux),
            "linux-3.2" => Some(RttSampling::Linux32),
            "linux-3.15" => Some(RttSampling::Linux315),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            RttSampling::Tsecr => "tsecr",
            RttSampling::Linux => "linux",
            RttSampling::Linux32 => "linux-3.2",
            RttSampling::Linux315 => "linux-3.15",
        }
    }
}

/// Which ACKs may grow cwnd outside a reduction (`cwnd_growth` key).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CwndGrowth {
    /// Only an ACK that advances the cumulative ACK (RFC 5681 section 3.1
    /// counts ACKs of new data).
    #[default]
    Rfc5681,
    /// Linux tcp_may_raise_cwnd() (tcp_input.c): once the reordering degree
    /// exceeds sysctl_tcp_reordering, an ACK that only SACKs new data grows
    /// cwnd too.
    Linux,
}

impl CwndGrowth {
    pub const NAMES: &'static [&'static str] = &["rfc5681", "linux"];
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "rfc5681" => Some(CwndGrowth::Rfc5681),
            "linux" => Some(CwndGrowth::Linux),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            CwndGrowth::Rfc5681 => "rfc5681",
            CwndGrowth::Linux => "linux",
        }
    }
}

impl CwndValidation {
    pub const NAMES: &'static [&'static str] = &[
        "linux",
        "linux-4.3",
        "linux-3.16",
        "linux-3.10",
        "linux-3.10-nogso",
    ];
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "linux" => Some(CwndValidation::Linux),
            "linux-4.3" => Some(CwndValidation::Linux43),
            "linux-3.16" => Some(CwndValidation::Linux316),
            "linux-3.10" => Some(CwndValidation::Linux310),
            "linux-3.10-nogso" => Some(CwndValidation::Linux310NoGso),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            CwndValidation::Linux => "linux",
            CwndValidation::Linux43 => "linux-4.3",
            CwndValidation::Linux316 => "linux-3.16",
            CwndValidation::Linux310 => "linux-3.10",
            CwndValidation::Linux310NoGso => "linux-3.10-nogso",
        }
    }

    /// The engine's `linux` rule renews its record at the end of every
    /// burst; the older rules only after bursts of new data.
    pub fn judges_every_burst(self) -> bool {
        self == CwndValidation::Linux
    }

    /// Linux 3.10's per-ACK test rather than a per-window record.
    pub fn is_310(self) -> bool {
        matches!(
            self,
            CwndValidation::Linux310 | CwndValidation::Linux310NoGso
        )
    }

    /// Linux 3.10's test, given the flight before the ACK.
    pub fn limited_310(self, cwnd: u64, in_flight: u64, mss: u32) -> bool {
        if in_flight >= cwnd {
            return true;
        }
        let left = cwnd - in_flight;
        let gso =
            self == CwndValidation::Linux310 && left * 3 < cwnd && left * u64::from(mss) < 65_536;
        gso || left <= 3
    }
}
