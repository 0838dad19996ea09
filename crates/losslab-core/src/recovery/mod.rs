//! RecoveryOps: how cwnd evolves while losses are repaired.
//!
//! The trait mirrors `struct tcp_retrans_ops` of the mobile
//! opportunistic-retransmission paper (section VI): `init_cwnd_reduction`,
//! `cwnd_reduction(newly_acked_sacked, fast_rexmit)`, `end_cwnd_reduction`,
//! `pkts_acked` and `get_awnd_extension`. Every algorithm expresses itself
//! through cwnd; the sender transmits while pipe < cwnd (RFC 6675 step C).

mod barr;
mod le;
mod newreno;
mod ns2_sack1;
mod opportunistic;
mod or3;
mod prr;
mod prr6937;
mod prr_linux;
mod prr_linux3;
mod prr_linux410;
mod qarr;
mod rate_halving;
mod reno;
mod rfc3517;
mod rfc6675;

pub use barr::Barr;
pub use le::Le;
pub use newreno::{NewReno, NewRenoVariant};
pub use ns2_sack1::Ns2Sack1;
pub use opportunistic::Opportunistic;
pub use or3::{copies_of as or3_copies, Or3Params, Or3Redundancy, Overbooking};
pub use prr::Prr;
pub use prr6937::{Prr6937, ReductionBound};
pub use prr_linux::PrrLinux;
pub use prr_linux3::PrrLinux3;
pub use prr_linux410::PrrLinux410;
pub use qarr::{Qarr, QarrUpdate, FLOOR as QARR_FLOOR};
pub use rate_halving::RateHalving;
pub use reno::Reno;
pub use rfc3517::Rfc3517;
pub use rfc6675::Rfc6675;

use crate::time::Time;
use crate::window::Window;

/// Names accepted by `by_name`.
pub const NAMES: &[&str] = &[
    "rfc6675",
    "rfc3517",
    "rate-halving",
    "rate-halving-linux-2.6.17",
    "prr-6937",
    "prr",
    "prr-linux",
    "prr-linux-3",
    "prr-linux-4.10",
    "qarr",
    "barr",
    "le",
    "reno",
    "newreno",
    "ns2-sack1",
    "ns2-reno",
];

/// QARR's target queue Q_T by default, in segments (mobile paper section
/// VI, `queue_len_threshold`).
pub const QUEUE_LEN_THRESHOLD: u32 = 5;
/// BARR's sliding window M by default, in ACKs (section VI,
/// `slide_wnd_size`).
pub const SLIDE_WND_SIZE: u32 = 200;

/// The tunables of the recovery algorithms that have any (the paper's proc
/// interfaces, section VI); each algorithm reads only its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecoveryParams {
    /// QARR's Q_T, segments.
    pub queue_len_threshold: u32,
    /// BARR's M, ACKs; 0 is taken as 1.
    pub slide_wnd_size: u32,
    /// Which of an ACK's RTTs QARR and BARR take as RTT_i.
    pub rtt_source: AckRtt,
    /// How QARR applies eq. 2 (`[flow.qarr] update`).
    pub qarr_update: QarrUpdate,
    /// NewReno's retransmit-timer variant (`[flow.newreno] variant`).
    pub newreno_variant: NewRenoVariant,
    /// LE lets the congestion controller grow cwnd during its recovery
    /// (`[flow.le] grow_in_recovery`, recovery/le.rs).
    pub le_grow_in_recovery: bool,
}

impl Default for RecoveryParams {
    fn default() -> Self {
        RecoveryParams {
            queue_len_threshold: QUEUE_LEN_THRESHOLD,
            slide_wnd_size: SLIDE_WND_SIZE,
            rtt_source: AckRtt::TsEcr,
            qarr_update: QarrUpdate::PerAck,
            newreno_variant: NewRenoVariant::SlowButSteady,
            le_grow_in_recovery: false,
        }
    }
}

/// RTT_i of QARR (eq. 1) and BARR (eq. 4): the RTT of the i-th ACK or
/// duplicate ACK.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AckRtt {
    /// `RecoveryCtx::ack_rtt`, now - TSecr: the paper's wording ("using
    /// the TCP timestamp option appended in the received ACK/DUPACK").
    TsEcr,
    /// `RecoveryCtx::delivered_rtt`: from the send time of a segment the
    /// ACK newly delivered, which a duplicate ACK's TSecr (RFC 7323 4.3)
    /// does not give. The default: the paper's results need it
    /// (docs/ALGORITHMS.md, "QARR").
    #[default]
    Delivered,
}

impl AckRtt {
    pub const NAMES: &'static [&'static str] = &["tsecr", "delivered"];
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "tsecr" => Some(AckRtt::TsEcr),
            "delivered" => Some(AckRtt::Delivered),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            AckRtt::TsEcr => "tsecr",
            AckRtt::Delivered => "delivered",
        }
    }
    /// This ACK's RTT_i, if it has one.
    pub fn of(self, ctx: &RecoveryCtx) -> Option<Time> {
        match self {
            AckRtt::TsEcr => ctx.ack_rtt,
            AckRtt::Delivered => ctx.delivered_rtt,
        }
    }
}

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
    /// This ACK's RTT from its echoed timestamp, now - TSecr, on every ACK
    /// with a timestamp: no Karn filter, so duplicate ACKs and ACKs of
    /// retransmissions give one too. By RFC 7323 section 4.3 a duplicate
    /// ACK echoes the last segment that advanced the receiver's window, so
    /// during a recovery the sample grows with the time since the hole.
    /// None outside an ACK (an entry from a detector timer) or without a
    /// timestamp.
    pub ack_rtt: Option<Time>,
    /// now minus the send time of the most recently sent segment that this
    /// ACK newly delivered (cumulatively or by SACK) and that was never
    /// retransmitted, so that which transmission arrived is certain (RFC
    /// 8985 6.2 step 2; Linux's SACK RTT is of this kind). None when the
    /// ACK delivered no such segment (a duplicate ACK without SACK, an ACK
    /// of retransmissions only) and outside an ACK.
    pub delivered_rtt: Option<Time>,
    /// The smallest RTT sample of the connection (Karn-filtered, the
    /// handshake's included); None before the first.
    pub min_rtt: Option<Time>,
    /// RFC 6298 SRTT; None before the first sample.
    pub srtt: Option<Time>,
    /// The congestion controller's floor for rate-halving's decrement
    /// (CongestionControl::min_cwnd, Linux tcp_cwnd_min()); None outside
    /// the sender, read as ssthresh, Linux's default.
    pub min_cwnd: Option<u64>,
    /// Segments the detector newly marked lost on this ACK or timer (Linux
    /// `rs->losses`; `tp->lost - lost` in tcp_rack_reo_timeout()). A count
    /// where `new_loss` is a flag, and not forced on the entering ACK as
    /// `new_loss` is, whose convention the older algorithms were tuned
    /// with.
    pub newly_lost: u64,
    /// This ACK advanced snd.una (Linux FLAG_SND_UNA_ADVANCED), on the ACK
    /// that starts recovery too, where `snd_una_advanced` is false by
    /// convention; false outside an ACK.
    pub ack_una_advanced: bool,
    /// Recovery is starting on the detector's timer (RACK's reordering
    /// timer, Linux tcp_rack_reo_timeout()), not on an ACK: true only in
    /// the context of that entry's init_cwnd_reduction() and
    /// cwnd_reduction().
    pub timer_entry: bool,
    /// This ACK cumulatively acknowledged a segment that was ever
    /// retransmitted, SACKed before or not (Linux FLAG_RETRANS_DATA_ACKED,
    /// set by tcp_clean_rtx_queue() on TCPCB_RETRANS; the same test as
    /// Karn's rule in the RTT samples). Set on the contexts of an ACK's
    /// cwnd_reduction(), the entering one included; false elsewhere
    /// (timer entries, exits, undos). Read by `prr-linux-4.10` only.
    pub retrans_data_acked: bool,
    /// This ACK marked lost a segment whose retransmission was in flight
    /// (Linux 4.4-4.x FLAG_LOST_RETRANS, which tcp_fastretrans_alert() sets
    /// when tcp_rack_mark_lost() took retransmissions out of retrans_out):
    /// by the lost-retransmission detection (`lost_retransmission_detection`)
    /// or by the detector. Set and read as `retrans_data_acked`.
    pub lost_retrans: bool,
}

/// One ACK of a hand-worked recovery episode (`run_acks`).
#[cfg(test)]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct TestAck {
    pub delivered: u64,
    pub newly_lost: u64,
    pub una_advanced: bool,
    pub retrans_data_acked: bool,
    pub lost_retrans: bool,
}

#[cfg(test)]
impl TestAck {
    /// Delivers `delivered` segments by SACK and marks `newly_lost`.
    pub(crate) fn sack(delivered: u64, newly_lost: u64) -> Self {
        TestAck {
            delivered,
            newly_lost,
            ..Default::default()
        }
    }
}

/// The ACK sequence of the old-kernel PRR tests (prr_linux3.rs,
/// prr_linux410.rs): prior_cwnd 20, ssthresh 14, 20 out; the entering ACK
/// SACKs one segment and the detector marks one lost (in_flight 20 - 3 -
/// 1 = 16).
#[cfg(test)]
pub(crate) fn eight_acks() -> [TestAck; 8] {
    [
        TestAck::sack(1, 1),
        TestAck::sack(1, 0),
        // Delivers nothing, marks one more lost.
        TestAck::sack(0, 1),
        TestAck::sack(1, 0),
        TestAck::sack(1, 0),
        // The cumulative ACK covers the retransmitted hole and one segment
        // never SACKed: two delivered, snd.una advances.
        TestAck {
            delivered: 2,
            una_advanced: true,
            retrans_data_acked: true,
            ..Default::default()
        },
        TestAck::sack(0, 1),
        TestAck::sack(1, 0),
    ]
}

/// Drives `alg` through one recovery as the sender would: entry with cwnd
/// `prior_cwnd` and `ssthresh`, `packets_out` segments outstanding (RFC
/// 6937's RecoverFS), the first of `acks` being the entering ACK with
/// in_flight `entry_pipe` (after its delivery and loss marks);
/// every later ACK lowers pipe by what it delivered and marked lost.
/// After each ACK the sender sends cwnd - pipe (data is always there).
/// Returns what each ACK let out, cwnd after each ACK, and cwnd after
/// end_cwnd_reduction().
#[cfg(test)]
pub(crate) fn run_acks(
    alg: &mut dyn RecoveryOps,
    prior_cwnd: u64,
    ssthresh: u64,
    packets_out: u64,
    entry_pipe: u64,
    acks: &[TestAck],
) -> (Vec<u64>, Vec<u64>, u64) {
    let mut w = Window::new(prior_cwnd);
    w.ssthresh = ssthresh;
    let mut pipe = entry_pipe;
    let (mut sent, mut cwnds) = (vec![], vec![]);
    for (i, a) in acks.iter().enumerate() {
        if i > 0 {
            pipe -= a.delivered + a.newly_lost;
        }
        let ctx = RecoveryCtx {
            pipe,
            packets_out,
            new_loss: a.newly_lost > 0,
            newly_lost: a.newly_lost,
            snd_una_advanced: i > 0 && a.una_advanced,
            ack_una_advanced: a.una_advanced,
            retrans_data_acked: a.retrans_data_acked,
            lost_retrans: a.lost_retrans,
            ..Default::default()
        };
        if i == 0 {
            alg.init_cwnd_reduction(&mut w, &ctx);
        }
        alg.cwnd_reduction(&mut w, &ctx, a.delivered, i == 0);
        let n = w.cwnd.saturating_sub(pipe);
        alg.on_sent(n);
        pipe += n;
        sent.push(n);
        cwnds.push(w.cwnd);
    }
    alg.end_cwnd_reduction(&mut w, &RecoveryCtx::default());
    (sent, cwnds, w.cwnd)
}

#[cfg(test)]
impl RecoveryCtx {
    /// An ACK's context with only the flight counts set, for the PRR
    /// variants' hand-worked tests.
    pub(crate) fn flight(pipe: u64, packets_out: u64, sacked_out: u64) -> Self {
        RecoveryCtx {
            pipe,
            packets_out,
            sacked_out,
            ..Default::default()
        }
    }
}

/// What `awnd_extension` may look at: the scoreboard, from which the
/// paper's n1 (holes) and n2 (SACKed segments) come (section IV).
#[derive(Clone, Copy, Debug)]
pub struct AwndCtx<'a> {
    /// In fast recovery.
    pub in_recovery: bool,
    pub board: &'a crate::scoreboard::Scoreboard,
    /// Without SACK: duplicate ACKs counted as delivered segments.
    pub reno_sacked: u64,
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
    /// Whether a loss detected now is a new congestion event: asked on
    /// entering fast recovery (`entering`) and on every later ACK of the
    /// recovery that marks a loss. On yes the congestion controller sets
    /// ssthresh (when `sets_ssthresh`) and `init_cwnd_reduction` runs; in
    /// recovery RecoveryPoint also moves to HighData. RFC 6675 section 5
    /// and RFC 6582: on entry only, one reduction per window of data. LE:
    /// when the last reduction is more than an RTT old (recovery/le.rs).
    fn congestion_event(&mut self, _ctx: &RecoveryCtx, entering: bool) -> bool {
        entering
    }
    /// Leaving fast recovery (the cumulative ACK reached RecoveryPoint).
    fn end_cwnd_reduction(&mut self, w: &mut Window, ctx: &RecoveryCtx);
    /// Every ACK that delivered data, in or out of recovery, before the
    /// ACK's cwnd_reduction(): `num_acked` segments newly cumulatively
    /// acknowledged or SACKed (DeliveredData), `rtt` the latest
    /// Karn-filtered RTT sample.
    fn pkts_acked(&mut self, _now: Time, _num_acked: u64, _rtt: Option<Time>) {}
    /// Segments the sender may send beyond the receive window
    /// (opportunistic retransmission); none by default.
    fn awnd_extension(&self, _ctx: &AwndCtx<'_>) -> u64 {
        0
    }
    /// Whether NextSeg() rule 4, the rescue retransmission, is used (RFC
    /// 6675 added it; RFC 3517 has none). Read once, when the sender is
    /// built, as are `entry_on_islost` and
    /// `fast_retransmit_below_recover`: constants of the algorithm.
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
    /// Whether entering recovery asks the congestion controller for a
    /// new ssthresh (the `set_ssthresh` argument of the mobile paper's
    /// `init_cwnd_reduction`). QARR and BARR do not: "their
    /// CWnd/ssthreshs are unaffected by packet losses" (section VII.C).
    fn sets_ssthresh(&self) -> bool {
        true
    }
    /// Whether a segment marked lost may be retransmitted in recovery
    /// when pipe >= cwnd (OR3's opportunism, recovery/or3.rs); the
    /// pacing rate still spaces it. No by default (RFC 6675 section 5
    /// step C: only while pipe < cwnd).
    fn retransmit_beyond_cwnd(&self) -> bool {
        false
    }
    /// Whether any ACK of new data ends fast recovery, a partial one
    /// included, and leaves the next hole to new duplicate ACKs (Reno, RFC
    /// 5681 section 3.2 step 6). No by default: recovery lasts until the
    /// cumulative ACK reaches RecoveryPoint (RFC 6582 section 3.2 step 3,
    /// RFC 6675 section 5), and without SACK a partial ACK retransmits
    /// the next hole (RFC 6582 section 3.2 step 4, detect/dupthresh.rs).
    fn exits_on_partial_ack(&self) -> bool {
        false
    }
    /// Whether the `nth` partial ACK of this fast recovery (1 for the
    /// first) restarts the retransmission timer as any ACK of new data
    /// does (RFC 6298 (5.3)). Yes by default; NewReno's Impatient variant
    /// says no after the first (RFC 6582 section 3.2 step 4).
    fn rto_restart_on_partial_ack(&self, _nth: u64) -> bool {
        true
    }
    /// Whether the congestion controller's growth goes on during fast
    /// recovery, on every ACK of new data, as outside it. No by default:
    /// every RFC recovery owns cwnd until RecoveryPoint. LE with
    /// `grow_in_recovery` says yes (the paper's LE "has no discrete
    /// states", recovery/le.rs).
    fn grows_in_recovery(&self) -> bool {
        false
    }
    /// Whether DupThresh duplicate ACKs may start a fast retransmit while
    /// the cumulative ACK has not passed `recover`, HighData when the last
    /// fast retransmit or timeout began. Yes by default: only an algorithm
    /// that leaves recovery before RecoveryPoint (Reno) can see such
    /// duplicates in the open state. No for ns-2's Reno with `bug_fix_`
    /// (RFC 6582 section 4.1's check; recovery/reno.rs): the sender then
    /// hides them from the detector.
    fn fast_retransmit_below_recover(&self) -> bool {
        true
    }
    /// Whether, without SACK, the segment a partial ACK shows lost is
    /// retransmitted at once whatever cwnd says, as the fast retransmit is
    /// (RFC 6582 section 3.2 step 4: "retransmit the first unacknowledged
    /// segment", and only then "send a new segment if permitted by the
    /// new value of cwnd"). No by default: it waits for pipe < cwnd like
    /// any lost segment (RFC 6675 section 5 step C).
    fn partial_ack_retransmits_at_once(&self) -> bool {
        false
    }
}

pub fn by_name(name: &str, params: &RecoveryParams) -> Option<Box<dyn RecoveryOps>> {
    match name {
        // RFC 3517 and RFC 6675 share the cwnd rule; RFC 3517 lacks the
        // rescue retransmission (and the IsLost(HighACK+1) entry, which
        // the detector will distinguish).
        "rfc6675" => Some(Box::new(Rfc6675)),
        "rfc3517" => Some(Box::new(Rfc3517)),
        // Linux before 3.2 (tcp_cwnd_down()).
        "rate-halving" => Some(Box::new(RateHalving::new())),
        // Linux 2.6.17-2.6.18 tcp_cwnd_down(sk): every Recovery ACK.
        "rate-halving-linux-2.6.17" => Some(Box::new(RateHalving::linux_2617())),
        // RFC 6937 / PRR paper Algorithm 2: PRR-SSRB on every ACK.
        "prr-6937" => Some(Box::new(Prr6937::ssrb())),
        // RFC 9937, which obsoletes RFC 6937.
        "prr" => Some(Box::new(Prr::new())),
        // Linux 6.x tcp_cwnd_reduction(): RFC 9937's rules over prior_cwnd.
        "prr-linux" => Some(Box::new(PrrLinux::new())),
        // Linux 3.2-3.17 (tcp_update_cwnd_in_recovery(), then
        // tcp_cwnd_reduction()): prior_cwnd, SSRB on every ACK.
        "prr-linux-3" => Some(Box::new(PrrLinux3::new())),
        // Linux 4.10 tcp_cwnd_reduction(): SSRB only when retransmitted
        // data is acked and no retransmission was found lost.
        "prr-linux-4.10" => Some(Box::new(PrrLinux410::new())),
        // Mobile opportunistic-retransmission paper, sections II.D and II.E.
        "qarr" => Some(Box::new(
            Qarr::new(params.queue_len_threshold, params.rtt_source).update(params.qarr_update),
        )),
        "barr" => Some(Box::new(Barr::new(
            params.slide_wnd_size,
            params.rtt_source,
        ))),
        // LE paper sections 2.2.2-2.2.3.
        "le" => Some(Box::new(Le::new(params.le_grow_in_recovery))),
        // RFC 5681 section 3.2 and RFC 6582, for peers without SACK.
        "reno" => Some(Box::new(Reno::rfc5681())),
        // ns-2.35's Reno agent with bug_fix_ (recovery/reno.rs).
        "ns2-reno" => Some(Box::new(Reno::ns2())),
        "newreno" => Some(Box::new(NewReno::new(params.newreno_variant))),
        // The LE paper's simulated SACK: ns-2's Sack1 with numdupacks_ 3.
        "ns2-sack1" => Some(Box::new(Ns2Sack1::new(3))),
        _ => None,
    }
}
