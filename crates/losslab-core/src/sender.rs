//! The TCP sender: segmentation, the scoreboard, RFC 6675 loss recovery
//! driven by pluggable parts, RFC 6298 timers, RFC 3042 limited transmit,
//! and the loss probes of the tail-loss timer policies (`tlp`, `tlpr`,
//! `rack-tlp`: `on_probe_timeout`, `send_loss_probe`, `process_tlp_ack`).
//!
//! Sans-IO (after quinn-proto's `Connection`): `on_ack`, `poll_transmit`,
//! `poll_timeout`, `on_timeout`; the caller owns time and the network.
//!
//! Recovery states, after Linux's tcp_ca_state:
//! - Open: no known loss; new data only, while packets_out < cwnd (plus
//!   RFC 3042's two segments on the first duplicate ACKs).
//! - Fast: RFC 6675 section 5 fast recovery until the cumulative ACK
//!   reaches RecoveryPoint; NextSeg() rules 1-4 while pipe < cwnd.
//! - Loss: after an RTO (RFC 6675 section 5.1) until RecoveryPoint is
//!   acknowledged: lost segments first, then new data, while pipe < cwnd,
//!   with cwnd growing by slow start from one segment.
//!
//! Beside the pluggable detector, the sender itself (both switchable):
//! - detects lost retransmissions: a retransmission is lost when a segment
//!   transmitted after it has been delivered (Linux tcp_mark_lost_retrans(),
//!   PRR/ER paper section 3.2), and retransmits it again;
//! - undoes a cwnd reduction that DSACKs prove spurious (Linux
//!   tcp_try_undo_dsack(), RFC 3708's spirit): when every retransmission of
//!   the episode was reported as a duplicate, cwnd and ssthresh go back to
//!   their values before the reduction.
//!
//! It also computes the reordering signal every detector sees
//! (`DetectCtx::reordering_seen`): a never-retransmitted segment delivered
//! below the highest segment already delivered (Linux
//! tcp_check_sack_reordering(), RFC 8985 RACK_detect_reordering()), or a
//! DSACK for a segment sent exactly twice, the second time because a loss
//! detector had marked it lost (the original was late, not lost).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::app::{App, AppState};
use crate::cc::{CaState, CcCtx, CcParams, CongestionControl};
use crate::config::{CwndValidation, Pacing, RecoveryExit, RtoConfig, RtoSsthresh};
use crate::detect::{DetectCtx, DetectParams, LossDetector};
use crate::event::{Event, EventLog, RecoveryKind, Timed, TimerKind, WindowState};
use crate::frto::{Frto, FrtoAck, FrtoMode, FrtoVerdict};
use crate::handshake::{Handshake, HandshakeRules, Opening, FALLBACK_RTO};
use crate::nextseg::{next_seg, NextSeg, RecoveryVars};
use crate::pacing::{burst_segments, default_rate, Pacer};
use crate::rate::{Chosen, RateSampler};
use crate::recovery::{AwndCtx, RecoveryCtx, RecoveryOps, RecoveryParams};
use crate::recovery_log::RecoveryLog;
pub use crate::recovery_log::RecoveryRecord;
use crate::redundancy::{NoRedundancy, Redundancy};
use crate::rtt::RttEstimator;
use crate::scoreboard::{Scoreboard, SegMeta, LOST, RETRANS};
use crate::sndbuf::{FreedAck, LinuxSndbuf, SendBuffer};
use crate::stats::Histogram;
use crate::time::Time;
use crate::timers::{Deadline, TimerCtx, TimerParams, TimerPolicy};
use crate::window::Window;
use crate::wire::{Ack, Segment};

#[derive(Clone, Debug)]
pub struct SenderConfig {
    pub mss: u32,
    /// Initial window, segments (RFC 6928 allows 10).
    pub init_cwnd: u64,
    /// The largest cwnd growth may reach, segments (Linux snd_cwnd_clamp,
    /// ns-2's maxcwnd_; u64::MAX: none).
    pub max_cwnd: u64,
    pub rto: RtoConfig,
    pub app: App,
    /// Send buffer limit on written-but-unacknowledged bytes; None: no limit.
    pub sndbuf: Option<u64>,
    /// Linux's growing send buffer and its writer wake-up rule (sndbuf.rs);
    /// when set, it replaces `sndbuf`.
    pub sndbuf_model: Option<LinuxSndbuf>,
    /// RFC 3042 limited transmit.
    pub limited_transmit: bool,
    /// Receive window assumed before the first ACK (the SYN-ACK's window).
    pub initial_rwnd: u64,
    /// RFC 6675 DupThresh.
    pub dupthresh: u32,
    /// Retransmit again a retransmission that later-sent data overtook.
    pub lost_retransmission_detection: bool,
    /// Undo a cwnd reduction that DSACKs show was spurious.
    pub dsack_undo: bool,
    /// Restart the retransmission timer, a full RTO, whenever the first
    /// outstanding segment is retransmitted (Linux
    /// tcp_xmit_retransmit_queue(): inet_csk_reset_xmit_timer(..., icsk_rto)
    /// when skb == tcp_write_queue_head(sk), every version since 2.6).
    /// RFC 6298 restarts it only on an ACK of new data (5.3).
    pub rto_rearm_on_head_retransmit: bool,
    /// RFC 5681 section 4.1: after an idle period longer than the RTO,
    /// start again from the restart window, min(IW, cwnd) (Linux
    /// tcp_slow_start_after_idle, on by default there).
    pub restart_after_idle: bool,
    /// Whether a handshake opens the connection, and who starts it.
    pub handshake: Handshake,
    /// RFC or Linux consequences of a lost SYN or SYN-ACK.
    pub handshake_rules: HandshakeRules,
    /// ssthresh on a timeout during fast recovery.
    pub rto_ssthresh: RtoSsthresh,
    /// F-RTO (RFC 5682) after a retransmission timeout.
    pub frto: FrtoMode,
    /// Without SACK, whether an ACK of exactly the recovery point ends
    /// recovery (RFC 6582) or holds it for one more ACK (Linux).
    pub recovery_exit: RecoveryExit,
    /// Pace transmissions at the controller's rate (pacing.rs).
    pub pacing: Pacing,
    /// How cwnd growth is gated on use (Linux tcp_is_cwnd_limited()).
    pub cwnd_validation: CwndValidation,
}

impl Default for SenderConfig {
    fn default() -> Self {
        SenderConfig {
            mss: 1448,
            init_cwnd: 10,
            max_cwnd: u64::MAX,
            rto: RtoConfig::default(),
            app: App::Bulk,
            sndbuf: None,
            sndbuf_model: None,
            limited_transmit: true,
            initial_rwnd: 65535,
            dupthresh: 3,
            lost_retransmission_detection: true,
            dsack_undo: true,
            rto_rearm_on_head_retransmit: false,
            restart_after_idle: false,
            handshake: Handshake::None,
            handshake_rules: HandshakeRules::Linux,
            rto_ssthresh: RtoSsthresh::Linux,
            frto: FrtoMode::Off,
            recovery_exit: RecoveryExit::Rfc6582,
            pacing: Pacing::Auto,
            cwnd_validation: CwndValidation::Linux,
        }
    }
}

/// Extensions implemented (scenario `extensions = [...]`).
pub const EXTENSIONS: &[&str] = &["opportunistic", "sndbuf-factor-3", "hack1", "or3"];

/// What an extension may need beside its name.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExtensionParams {
    pub dupthresh: u32,
    pub or3: crate::recovery::Or3Params,
    /// Seed of the extension's own random draws (OR3's randomisation).
    pub seed: u64,
}

/// The pluggable parts, chosen by name in scenarios.
pub struct Algorithms {
    pub cc: Box<dyn CongestionControl>,
    pub recovery: Box<dyn RecoveryOps>,
    pub detect: Box<dyn LossDetector>,
    pub timers: Box<dyn TimerPolicy>,
    /// Extra copies of retransmissions (none unless an extension adds them).
    pub redundancy: Box<dyn Redundancy>,
}

impl Algorithms {
    /// Builds the parts from their names; the error names the bad one.
    pub fn by_name(
        cc: &str,
        recovery: &str,
        detection: &str,
        timers: &str,
        dupthresh: u32,
    ) -> Result<Self, String> {
        let params = DetectParams {
            dupthresh,
            ..DetectParams::default()
        };
        Self::by_name_with(
            cc,
            recovery,
            detection,
            timers,
            &params,
            &TimerParams::default(),
            &CcParams::default(),
            &RecoveryParams::default(),
        )
    }

    /// As `by_name`, with each part's parameters.
    // One name and one parameter set per pluggable part.
    #[allow(clippy::too_many_arguments)]
    pub fn by_name_with(
        cc: &str,
        recovery: &str,
        detection: &str,
        timers: &str,
        detect: &DetectParams,
        timer_params: &TimerParams,
        cc_params: &CcParams,
        recovery_params: &RecoveryParams,
    ) -> Result<Self, String> {
        Ok(Algorithms {
            cc: crate::cc::build(cc, cc_params).ok_or_else(|| format!("unknown cc {cc:?}"))?,
            recovery: crate::recovery::by_name(recovery, recovery_params)
                .ok_or_else(|| format!("unknown recovery {recovery:?}"))?,
            detect: crate::detect::build(detection, detect)
                .ok_or_else(|| format!("unknown detection {detection:?}"))?,
            timers: crate::timers::build(timers, timer_params)
                .ok_or_else(|| format!("unknown timers {timers:?}"))?,
            redundancy: Box::new(NoRedundancy),
        })
    }

    /// Applies an extension that changes a part (the mobile paper's
    /// `opportunistic` and `hack1`, the OR3 paper's `or3`);
    /// `sndbuf-factor-3` changes the configuration instead
    /// (`SenderConfig::sndbuf_model`), so it leaves the parts alone.
    pub fn with_extension(mut self, name: &str, p: &ExtensionParams) -> Result<Self, String> {
        match name {
            "opportunistic" => {
                self.recovery = Box::new(crate::recovery::Opportunistic::new(self.recovery));
            }
            "hack1" => {
                self.detect = Box::new(crate::detect::Hack1::new(self.detect, p.dupthresh));
            }
            "or3" => {
                if p.or3.opportunism {
                    self.recovery = Box::new(crate::recovery::Opportunistic::or3(
                        self.recovery,
                        p.or3.overbooking,
                    ));
                }
                if p.or3.redundancy {
                    self.redundancy = Box::new(crate::recovery::Or3Redundancy::new(p.or3, p.seed));
                }
            }
            "sndbuf-factor-3" => {}
            _ => return Err(format!("unknown extension {name:?}")),
        }
        Ok(self)
    }

    /// NewReno, RFC 6675 recovery, DupThresh detection, RFC 6298 timer.
    pub fn baseline() -> Self {
        Self::by_name("newreno", "rfc6675", "dupthresh", "rto", 3).expect("baseline exists")
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Open,
    Fast { recovery_point: u64 },
    Loss { recovery_point: u64 },
}

/// A TLP episode (RFC 8985 section 7.4; Linux tlp_high_seq,
/// tlp_retrans): from a loss probe until its outcome is known.
#[derive(Clone, Copy, Debug)]
struct TlpEpisode {
    /// TLP.end_seq: snd_nxt when the probe was sent.
    end_seq: u64,
    /// TLP.is_retrans: the byte range the probe retransmitted, if it did.
    retrans: Option<(u64, u64)>,
}

/// The largest board the `invariants` feature recounts on every send.
#[cfg(feature = "invariants")]
const FULL_CHECK_SEGMENTS: u64 = 256;

/// Linux's sysctl_tcp_max_reordering default: the cap on tp->reordering.
const MAX_REORDERING: u64 = 300;

/// The facts of one ACK a congestion controller's context is built from.
#[derive(Clone, Copy)]
struct AckFacts {
    rtt_sample: Option<Time>,
    bytes_acked: u64,
    delivered: u64,
    losses: u64,
    prior_in_flight: u64,
}

/// What the TLP episode logic needs to know of an ACK.
#[derive(Clone, Copy, Debug)]
struct TlpAckInfo {
    dsack: bool,
    cum_advanced: bool,
    newly_sacked: u64,
    window_update: bool,
    /// Segments outstanding before the ACK (FlightSize for ssthresh).
    prior_out: u64,
}

/// What a DSACK-based undo needs (Linux undo_marker, undo_retrans,
/// prior_cwnd, prior_ssthresh).
#[derive(Clone, Copy, Debug)]
struct UndoEpisode {
    prior_cwnd: u64,
    prior_ssthresh: u64,
    /// Transmission order when the episode began: later transmissions
    /// belong to it.
    marker: u64,
    /// Retransmissions sent in the episode, and how many of them DSACKs
    /// have reported unnecessary.
    retransmissions: u64,
    dsacked: u64,
    /// Index of the episode's first recovery record.
    first_record: u64,
}

#[derive(Clone, Debug, Default)]
pub struct SenderStats {
    /// Every data transmission, retransmissions included.
    pub segments_sent: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub tail_probes: u64,
    pub max_tx_count: u32,
    pub dsacks_received: u64,
    pub acks_received: u64,
    /// ACKs for data never sent, ignored (RFC 793 / RFC 5961).
    pub invalid_acks: u64,
    pub bytes_acked: u64,
    pub rtt: Histogram,
    /// Retransmissions declared lost and queued again (lost-retransmission
    /// detection, or a detector such as RACK).
    pub lost_retransmissions: u64,
    /// Cwnd reductions undone by DSACKs.
    pub undos: u64,
    /// ACKs on which reordering was detected.
    pub reordering_events: u64,
    /// Retransmissions of the SYN (or SYN-ACK) of the handshake.
    pub syn_retransmissions: u32,
    /// Timeouts F-RTO found spurious (and undid).
    pub spurious_rtos: u64,
    /// RFC 6675 NextSeg() rule 4 retransmissions. They are speculative by
    /// design: the rule retransmits the highest un-SACKed segment even when
    /// it is only still in flight.
    pub rescue_retransmissions: u64,
    /// Fast-recovery time during which the send buffer was empty while
    /// the windows allowed new data (application stall).
    pub app_stall: Time,
    /// Segments sent beyond the peer's window by opportunistic
    /// retransmission.
    pub beyond_window_segments: u64,
    /// Extra copies of retransmissions sent (OR3's redundancy); counted in
    /// `segments_sent`, not in `retransmissions`.
    pub redundant_copies: u64,
    /// DSACKs matched to those copies (not spurious retransmissions).
    pub redundant_duplicates: u64,
    /// Receive-buffer starvation (OR3 paper section III-B): time during
    /// which the application had data and cwnd had room, but the peer's
    /// window stopped new data while the receiver held out-of-order data
    /// (bubbles) waiting for retransmissions.
    pub rcvbuf_starvation: Time,
}

pub struct Sender {
    cfg: SenderConfig,
    /// The handshake while the connection opens (None once established,
    /// or when none is simulated).
    opening: Option<Opening>,
    /// When the handshake completed.
    established_at: Option<Time>,
    alg: Algorithms,
    app: AppState,
    board: Scoreboard,
    rtt: RttEstimator,
    win: Window,
    state: State,
    snd_una: u64,
    snd_nxt: u64,
    /// Peer's receive window, relative to snd_una.
    rwnd: u64,
    /// Largest window the peer has offered (RFC 1122 4.2.3.4's Max(SND.WND)).
    max_rwnd: u64,
    dupacks: u32,
    /// Segments sent by RFC 3042 limited transmit since the cumulative ACK
    /// last advanced: they MUST NOT count in the FlightSize that sets
    /// ssthresh (RFC 5681 section 3.2 step 2).
    limited_transmit_out: u64,
    /// Duplicate ACKs counted as delivered segments when the peer sends no
    /// SACK (Linux tcp_add_reno_sack()), so pipe still falls.
    reno_sacked: u64,
    /// Partial ACKs (RFC 6582 section 2: new data acknowledged, RecoveryPoint
    /// not reached) in the current fast recovery, for the recovery
    /// algorithm's say on the retransmission timer.
    partial_acks: u64,
    /// RFC 6582 section 4's recover: HighData (snd.nxt) when the last
    /// fast retransmit or timeout began; read only for a recovery
    /// algorithm without `fast_retransmit_below_recover`.
    recover: u64,
    sack_seen: bool,
    /// RFC 6675 HighRxt and RescueRxt (segment number / byte).
    high_rxt: Option<u64>,
    rescue_rxt: Option<u64>,
    fast_rexmit_pending: bool,
    /// RFC 6298 (5.4): the RTO's retransmission of the earliest segment
    /// is due, whatever cwnd and pipe say (Linux tcp_retransmit_timer()
    /// retransmits the head directly).
    rto_rexmit_pending: bool,
    timer: Deadline,
    persist: Option<Time>,
    tx_order: u64,
    /// Time of the latest transmission (TLPR's T_last and friends).
    last_send: Time,
    /// A zero-window probe is due on the next poll_transmit.
    probe_pending: bool,
    /// A loss probe is due on the next poll_transmit (TLP and relatives).
    tlp_pending: bool,
    /// The current TLP episode: one probe per tail.
    tlp: Option<TlpEpisode>,
    /// An RTT sample was taken since the last loss probe (RFC 8985 7.3).
    rtt_since_probe: bool,
    /// Latest TSval seen from the peer, echoed in TSecr.
    ts_recent: Time,
    /// The ACK being processed's own RTTs for QARR and BARR
    /// (`RecoveryCtx::ack_rtt`, `delivered_rtt`); None between ACKs.
    ack_rtt: Option<Time>,
    delivered_rtt: Option<Time>,
    // Linux tcp_cwnd_validate() state (RFC 7661 spirit): grow cwnd only
    // when the flow actually used it.
    max_packets_out: u64,
    cwnd_usage_seq: u64,
    is_cwnd_limited: bool,
    events: EventLog,
    stats: SenderStats,
    recoveries: RecoveryLog,
    /// Bumped on every recovery entry and exit, so a driver can notice
    /// without tracing.
    recovery_epoch: u64,
    /// Reordering has been seen on this connection.
    reordering_seen: bool,
    /// Linux tp->reordering (see `DetectCtx::reordering`).
    reordering: u32,
    /// The current (or last) reduction that a DSACK may still undo.
    undo: Option<UndoEpisode>,
    /// An F-RTO episode after a timeout (frto.rs).
    frto: Option<Frto>,
    /// Delivery-rate sampling, for controllers that ask for it (rate.rs).
    rate: Option<RateSampler>,
    /// Departure times, when the flow paces (pacing.rs).
    pacer: Option<Pacer>,
    /// The controller's static answers (`owns_cwnd`,
    /// `observes_every_ack`), asked once.
    cc_owns_cwnd: bool,
    cc_observes_acks: bool,
    /// Linux's send buffer, when modelled.
    sndbuf: Option<SendBuffer>,
    /// Since when the sender has been starved by its send buffer.
    stall_since: Option<Time>,
    /// The RTT-spike watch after a recovery: (record, end of recovery,
    /// end of the RTT after it).
    spike_watch: Option<(u64, Time, Time)>,
    /// Extra copies waiting to leave: (due time, order queued, segment).
    replicas: BinaryHeap<Reverse<(Time, u64, u64)>>,
    replicas_queued: u64,
    /// Scratch for `Redundancy::copies`.
    replica_delays: Vec<u32>,
    /// Since when the receive buffer has starved the sender.
    starved_since: Option<Time>,
}

/// Counts the loss marks of one ACK or timer call and traces them.
#[derive(Default)]
struct Marks {
    marked: u64,
    lost_retransmissions: u64,
}

impl Marks {
    fn on_mark(&mut self, events: &mut EventLog, now: Time, n: u64, s: &SegMeta) {
        self.marked += 1;
        // A mark that sends a retransmitted segment back to the queue
        // declares its retransmission lost.
        if s.tx_count > 1 && s.is(LOST) && !s.is(RETRANS) {
            self.lost_retransmissions += 1;
        }
        events.emit(now, || Event::LossMarked {
            seg_no: n,
            seq: s.seq,
        });
    }
}

impl Sender {
    pub fn new(cfg: SenderConfig, alg: Algorithms, now: Time) -> Self {
        let mut s = Sender {
            opening: Opening::new(cfg.handshake),
            established_at: (cfg.handshake == Handshake::None).then_some(now),
            app: AppState::new(cfg.app.clone()),
            board: Scoreboard::new(),
            rtt: RttEstimator::new(cfg.rto),
            win: Window::new(cfg.init_cwnd),
            state: State::Open,
            snd_una: 0,
            snd_nxt: 0,
            rwnd: cfg.initial_rwnd,
            max_rwnd: cfg.initial_rwnd,
            dupacks: 0,
            limited_transmit_out: 0,
            reno_sacked: 0,
            partial_acks: 0,
            recover: 0,
            sack_seen: false,
            high_rxt: None,
            rescue_rxt: None,
            fast_rexmit_pending: false,
            rto_rexmit_pending: false,
            timer: None,
            persist: None,
            tx_order: 0,
            last_send: 0,
            probe_pending: false,
            tlp_pending: false,
            tlp: None,
            rtt_since_probe: true,
            ts_recent: 0,
            ack_rtt: None,
            delivered_rtt: None,
            max_packets_out: 0,
            cwnd_usage_seq: 0,
            is_cwnd_limited: false,
            events: EventLog::default(),
            stats: SenderStats::default(),
            recoveries: RecoveryLog::default(),
            recovery_epoch: 0,
            reordering_seen: false,
            reordering: 0,
            frto: None,
            undo: None,
            rate: alg.cc.wants_rate_samples().then(RateSampler::new),
            pacer: match cfg.pacing {
                Pacing::Rate => Some(Pacer::default()),
                Pacing::Auto => alg.cc.pacing_rate().map(|_| Pacer::default()),
                Pacing::Off => None,
            },
            cc_owns_cwnd: alg.cc.owns_cwnd(),
            cc_observes_acks: alg.cc.observes_every_ack(),
            sndbuf: cfg
                .sndbuf_model
                .map(|m| SendBuffer::new(m, cfg.mss, cfg.init_cwnd)),
            stall_since: None,
            spike_watch: None,
            replicas: BinaryHeap::new(),
            replicas_queued: 0,
            replica_delays: Vec::new(),
            starved_since: None,
            cfg,
            alg,
        };
        s.rtt.set_factor(s.alg.cc.rto_factor());
        s.app_write(now);
        s
    }

    // ---- observation -----------------------------------------------------

    pub fn set_tracing(&mut self, on: bool) {
        self.events.set_enabled(on);
    }
    pub fn poll_event(&mut self) -> Option<Timed> {
        self.events.pop()
    }
    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }
    /// The first `recovery_log::KEEP` recovery episodes.
    pub fn recoveries(&self) -> &[RecoveryRecord] {
        self.recoveries.kept()
    }
    /// Every recovery episode's count and time, beyond those kept.
    pub fn recovery_log(&self) -> &RecoveryLog {
        &self.recoveries
    }
    pub fn recovery_epoch(&self) -> u64 {
        self.recovery_epoch
    }
    pub fn scoreboard(&self) -> &Scoreboard {
        &self.board
    }
    pub fn window(&self) -> Window {
        self.win
    }
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }
    pub fn in_recovery(&self) -> bool {
        self.state != State::Open
    }
    /// The handshake is over (or none was simulated).
    pub fn is_established(&self) -> bool {
        self.opening.is_none()
    }
    /// When the connection was established (the sender's creation time
    /// when no handshake is simulated).
    pub fn established_at(&self) -> Option<Time> {
        self.established_at
    }
    /// The SYN (or SYN-ACK) was retransmitted to the limit without an
    /// answer: the connection never opened.
    pub fn handshake_failed(&self) -> bool {
        self.opening.as_ref().is_some_and(|o| o.failed)
    }
    /// Linux's tcp_ca_state as tcp_info reports it: 0 Open, 1 Disorder
    /// (Open with duplicate ACKs or SACKed data), 3 Recovery, 4 Loss. CWR
    /// (2) is entered and left within one ACK here, so never seen.
    pub fn ca_state(&self) -> u8 {
        match self.state {
            State::Open if self.dupacks > 0 || self.board.sacked_out() > 0 => 1,
            State::Open => 0,
            State::Fast { .. } => 3,
            State::Loss { .. } => 4,
        }
    }
    /// Linux's sacked_out: SACKed segments, or without SACK the duplicate
    /// ACKs counted as delivered segments (tcp_add_reno_sack()).
    pub fn sacked_out(&self) -> u64 {
        self.board.sacked_out() + self.reno_sacked
    }
    /// Linux's tp->reordering: DupThresh, or the largest reordering
    /// degree measured since.
    pub fn reordering(&self) -> u32 {
        self.reordering.max(self.cfg.dupthresh)
    }
    /// Reordering has been detected on this connection.
    pub fn reordering_seen(&self) -> bool {
        self.reordering_seen
    }
    /// RFC 6675 pipe, in segments.
    pub fn pipe(&self) -> u64 {
        self.board.pipe().saturating_sub(self.reno_sacked)
    }
    pub fn total_bytes(&self) -> Option<u64> {
        self.app.total()
    }
    /// Every byte the application will write has been acknowledged.
    pub fn is_finished(&self) -> bool {
        self.app.all_written() && self.snd_una >= self.app.total().unwrap_or(u64::MAX)
    }
    pub fn names(&self) -> (String, &'static str, &'static str, &'static str) {
        (
            self.alg.cc.name(),
            self.alg.recovery.name(),
            self.alg.detect.name(),
            self.alg.timers.name(),
        )
    }

    pub fn window_state(&self) -> WindowState {
        WindowState {
            cwnd: self.win.cwnd,
            ssthresh: self.win.ssthresh,
            pipe: self.pipe(),
            inflight: self.board.packets_out(),
            srtt: self.rtt.srtt().unwrap_or(0),
            rto: self.rtt.rto(),
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            pacing_bps: self.pacing_rate(),
        }
    }

    // ---- application -----------------------------------------------------

    /// The application writes `bytes` now (`App::OnDemand`: a server
    /// answering a request). Call `poll_transmit` afterwards.
    pub fn write(&mut self, now: Time, bytes: u64) {
        self.app.push(bytes);
        self.app_write(now);
    }

    /// The application will write nothing more (`AppState::close`).
    pub fn close_stream(&mut self) {
        self.app.close();
    }

    // ---- time ------------------------------------------------------------

    /// The earliest time `on_timeout` must be called.
    pub fn poll_timeout(&self) -> Option<Time> {
        if let Some(op) = &self.opening {
            return op.timer;
        }
        let earliest = [
            self.timer.map(|t| t.0),
            self.persist,
            self.alg.detect.poll_timeout(),
            self.app.next_write_time(),
            // A writer woken with `wake_delay` refills then.
            self.sndbuf.as_ref().and_then(SendBuffer::wake_at),
        ]
        .into_iter()
        .flatten()
        .min();
        match self.pacer.as_ref().and_then(Pacer::wake_at) {
            Some(p) => Some(earliest.map_or(p, |t| t.min(p))),
            // A copy due while the pacer waits leaves at its wake-up.
            None => [earliest, self.replicas.peek().map(|r| r.0 .0)]
                .into_iter()
                .flatten()
                .min(),
        }
    }

    pub fn on_timeout(&mut self, now: Time) {
        if self.opening.is_some() {
            self.opening_on_timeout(now);
            return;
        }
        self.close_stall(now);
        self.close_starvation(now);
        let woken = self
            .sndbuf
            .as_ref()
            .and_then(SendBuffer::wake_at)
            .is_some_and(|t| t <= now);
        if woken || self.app.next_write_time().is_some_and(|t| t <= now) {
            self.app_write(now);
        }
        if let Some(p) = &mut self.pacer {
            p.clear_wait(now);
        }
        if self.alg.detect.poll_timeout().is_some_and(|t| t <= now) {
            self.events.emit(now, || Event::TimerFired {
                kind: TimerKind::Detector,
            });
            let ctx = self.detect_ctx(now, false);
            let mut marks = Marks::default();
            let enter = {
                let events = &mut self.events;
                let mut on_mark = |n: u64, s: &SegMeta| marks.on_mark(events, now, n, s);
                self.alg
                    .detect
                    .on_timeout(&ctx, &mut self.board, &mut on_mark)
            };
            self.stats.lost_retransmissions += marks.lost_retransmissions;
            if let Some(r) = &mut self.rate {
                r.on_lost(marks.marked);
            }
            if enter && self.state == State::Open {
                self.enter_fast_recovery(now, 0);
            }
        }
        if self.persist.is_some_and(|t| t <= now) {
            self.persist = None;
            self.events.emit(now, || Event::TimerFired {
                kind: TimerKind::Persist,
            });
            self.rtt.back_off();
            // Zero-window probe: the peer's ACK carries its current window.
            if self.board.is_empty() {
                self.probe_pending = true;
            }
        }
        if let Some((t, kind)) = self.timer {
            if t <= now {
                self.timer = None;
                self.events.emit(now, || Event::TimerFired { kind });
                if kind == TimerKind::Probe {
                    self.on_probe_timeout(now);
                } else {
                    self.on_rto(now);
                }
            }
        }
    }

    /// The probe timeout of a TLP policy (tail-loss paper 2.2, RFC 8985
    /// 7.3; Linux tcp_send_loss_probe()): a probe goes out on the next
    /// poll_transmit, outside the congestion window, if the sender is still
    /// in Open state with no probe of this tail in flight. Either way the
    /// RTO is armed now, not the PTO (RFC 8985 7.3), so a probe that cannot
    /// be sent leaves the RTO running.
    fn on_probe_timeout(&mut self, now: Time) {
        if self.board.is_empty() {
            return;
        }
        self.timer = self.on_tick(now, Some((now + self.rtt.rto(), TimerKind::Rto)));
        if self.state == State::Open && self.tlp.is_none() {
            self.tlp_pending = true;
        }
    }

    /// RFC 6298 5.4-5.6, RFC 5681 section 3.1 and RFC 6675 section 5.1.
    fn on_rto(&mut self, now: Time) {
        if self.board.is_empty() {
            return;
        }
        self.stats.timeouts += 1;
        // RFC 8985 7.1: RTO recovery ends a TLP episode.
        self.tlp = None;
        self.tlp_pending = false;
        self.close_recovery_record(now);
        // RFC 5681 equation (4) on a new loss episode. A repeated timeout
        // keeps ssthresh (RFC 5681 section 3.1: only a segment not yet
        // resent by the timer). A timeout during fast recovery: Linux
        // keeps the ssthresh the fast recovery set (tcp_enter_loss()
        // recomputes only when icsk_ca_state < TCP_CA_Recovery), RFC 5681
        // recomputes it (`rto_ssthresh`).
        let new_episode = self.state == State::Open;
        let in_fast = matches!(self.state, State::Fast { .. });
        if new_episode {
            // A new episode (Linux tcp_enter_loss() -> tcp_init_undo());
            // a timeout inside one keeps what it would undo to.
            self.begin_undo_episode(self.win.cwnd, self.win.ssthresh);
        }
        if new_episode || (in_fast && self.cfg.rto_ssthresh == RtoSsthresh::Rfc5681) {
            let flight = self.board.packets_out();
            self.win.ssthresh = self.alg.cc.ssthresh(&self.win, flight);
        }
        // F-RTO on a timeout that starts an episode or repeats one, not on
        // a first timeout in fast recovery (tcp_enter_loss(): `new_recovery
        // || icsk_retransmits`).
        let repeated = matches!(self.state, State::Loss { .. });
        self.frto = (self.cfg.frto != FrtoMode::Off && (new_episode || repeated))
            .then(|| Frto::new(self.snd_nxt, self.board.next_seg_no()));
        self.alg.cc.on_timeout(now);
        self.win.ssthresh = self.alg.cc.ssthresh_after_timeout(self.win.ssthresh);
        let cwnd_before = self.win.cwnd;
        self.win.cwnd = self.alg.cc.loss_window();
        self.win.cwnd_cnt = 0;
        let dctx = self.detect_ctx(now, false);
        let lost_before = self.board.lost_out();
        self.alg.detect.on_rto(&dctx, &mut self.board);
        if let Some(r) = &mut self.rate {
            r.on_lost(self.board.lost_out().saturating_sub(lost_before));
        }
        self.rto_rexmit_pending = true;
        self.dupacks = 0;
        self.reno_sacked = 0;
        self.high_rxt = None;
        self.rescue_rxt = None;
        self.fast_rexmit_pending = false;
        self.state = State::Loss {
            recovery_point: self.snd_nxt,
        };
        self.recover = self.snd_nxt;
        self.alg.cc.on_state(CaState::Loss, &self.win);
        self.rtt.back_off();
        self.open_recovery_record(now, RecoveryKind::Timeout, cwnd_before);
        self.emit_cwnd(now);
    }

    // ---- handshake (handshake.rs) ------------------------------------------

    /// The SYN (Active) or SYN-ACK (Passive) when one is due; nothing else
    /// leaves before the connection is established.
    fn opening_transmit(&mut self, now: Time) -> Option<Segment> {
        let op = self.opening.as_mut()?;
        if !op.due || op.failed {
            return None;
        }
        op.due = false;
        op.sent += 1;
        op.timer = Some(now + self.rtt.rto());
        let tx_count = op.sent;
        if tx_count > 1 {
            self.stats.syn_retransmissions += 1;
        }
        self.tx_order += 1;
        self.events.emit(now, || Event::Sent {
            seq: 0,
            len: 0,
            seg_no: 0,
            tx_count,
        });
        Some(Segment {
            seq: 0,
            len: 0,
            ts_val: now + 1,
            ts_ecr: self.ts_recent,
            seg_no: 0,
            tx_count,
            tx_order: self.tx_order,
            probe: false,
            syn: true,
            replica: false,
        })
    }

    /// RFC 6298 (5.5)-(5.6) for the SYN: back off and send it again.
    fn opening_on_timeout(&mut self, now: Time) {
        let Some(op) = self.opening.as_mut() else {
            return;
        };
        if op.timer.is_none_or(|t| t > now) {
            return;
        }
        op.on_timeout();
        if !op.failed {
            self.rtt.back_off();
        }
        self.events.emit(now, || Event::TimerFired {
            kind: TimerKind::Rto,
        });
    }

    fn opening_on_ack(&mut self, now: Time, ack: &Ack) {
        let Some(op) = self.opening.as_mut() else {
            return;
        };
        if ack.ts_val > self.ts_recent {
            self.ts_recent = ack.ts_val;
        }
        match op.mode {
            Handshake::Active if ack.syn => self.establish(now, ack),
            // A (retransmitted) SYN: answer it with a SYN-ACK now; the
            // SYN-ACK's own timer covers its loss.
            Handshake::Passive if ack.syn => {
                op.syn_seen = true;
                op.due = true;
            }
            Handshake::Passive if op.sent > 0 => self.establish(now, ack),
            _ => {}
        }
    }

    /// The handshake completed with `ack` (handshake.rs for the rules).
    fn establish(&mut self, now: Time, ack: &Ack) {
        let Some(op) = self.opening.take() else {
            return;
        };
        let retransmissions = op.retransmissions();
        let rules = self.cfg.handshake_rules;
        self.established_at = Some(now);
        self.rwnd = ack.window;
        self.max_rwnd = self.max_rwnd.max(ack.window);
        // The SYN (SYN-ACK) carried TSval = send time + 1 and the answer
        // echoes the transmission it answers.
        let sample = (ack.ts_ecr > 0 && ack.ts_ecr <= now + 1).then(|| now + 1 - ack.ts_ecr);
        match sample {
            Some(r) if retransmissions == 0 || rules.samples_after_retransmission() => {
                self.rtt.on_sample_at(r, self.snd_una, self.snd_nxt);
                self.stats.rtt.record(r);
                let (srtt, rto) = (self.rtt.srtt().unwrap_or(0), self.rtt.rto());
                self.events
                    .emit(now, || Event::RttSample { rtt: r, srtt, rto });
            }
            _ if retransmissions > 0 => self.rtt.fallback(FALLBACK_RTO),
            _ => self.rtt.reset_backoff(),
        }
        if rules.cuts_iw(retransmissions) {
            self.win.cwnd = 1;
        }
        self.app_write(now);
        self.emit_cwnd(now);
    }

    // ---- ACK processing ----------------------------------------------------

    pub fn on_ack(&mut self, now: Time, ack: &Ack) {
        self.stats.acks_received += 1;
        if self.opening.is_some() {
            self.opening_on_ack(now, ack);
            return;
        }
        self.close_stall(now);
        self.close_starvation(now);
        if ack.ack > self.snd_nxt {
            self.stats.invalid_acks += 1;
            return;
        }
        if ack.ts_val > self.ts_recent {
            self.ts_recent = ack.ts_val;
        }
        let prior_una = self.snd_una;
        let prior_out = self.board.packets_out();
        // Only a controller that reads every ACK's context, and Linux
        // 3.10's cwnd validation, need it.
        let prior_in_flight = if self.cc_owns_cwnd
            || self.cc_observes_acks
            || self.cfg.cwnd_validation != CwndValidation::Linux
        {
            self.pipe()
        } else {
            0
        };
        let old_ack = ack.ack < prior_una;
        let blocks = ack.sack.as_slice();

        // RFC 2883 section 4: the first block is a DSACK when it lies below
        // the cumulative ACK or inside the second block.
        let dsack = blocks.first().is_some_and(|b0| {
            b0.end <= ack.ack || blocks.get(1).is_some_and(|b1| b1.contains_range(b0))
        });
        if dsack {
            self.stats.dsacks_received += 1;
        }
        let sack_blocks = if dsack { &blocks[1..] } else { blocks };
        if !sack_blocks.is_empty() || dsack {
            self.sack_seen = true;
        }

        let prior_rwnd = self.rwnd;
        if !old_ack {
            self.rwnd = ack.window;
            self.max_rwnd = self.max_rwnd.max(ack.window);
        }
        self.board.begin_ack();
        let prior_fack = self.board.fack();

        // Cumulative part.
        let cum = if ack.ack > prior_una {
            self.snd_una = ack.ack;
            let c = self.board.on_cum_ack(ack.ack);
            self.stats.bytes_acked += ack.ack - prior_una;
            c
        } else {
            Default::default()
        };
        let cum_advanced = ack.ack > prior_una;

        // SACK part.
        let mut newly_sacked = 0;
        for b in sack_blocks {
            if b.end > self.snd_una && b.start < self.snd_nxt {
                newly_sacked += self.board.on_sack_block(*b);
            }
        }

        // DSACK part (RFC 2883 section 4, RFC 3708): which transmissions
        // the receiver got twice. Each reported segment counts once per
        // extra transmission at most (`fresh`), so a duplicated ACK cannot
        // count twice.
        let mut dsack_reordering = false;
        if dsack {
            let marker = self.undo.map(|u| u.marker);
            let mut unnecessary = 0;
            let mut copies = 0;
            self.board.on_dsack_block(blocks[0], |d| {
                copies += u64::from(d.replica);
                if !d.fresh {
                    return;
                }
                // Sent twice, the second time because a detector had
                // declared it lost, and received twice: the original was
                // late, not lost. (Speculative retransmissions, NextSeg()
                // rules 3 and 4, and those after an RTO say nothing.)
                dsack_reordering |= d.tx_count == 2 && d.loss_driven;
                if marker.is_some_and(|m| d.tx_order > m) {
                    unnecessary += 1;
                }
            });
            if let Some(u) = &mut self.undo {
                u.dsacked += unnecessary;
            }
            self.stats.redundant_duplicates += copies;
        }

        // Reordering (Linux tcp_check_sack_reordering(), RFC 8985
        // RACK_detect_reordering()): a segment sent once was delivered
        // below one delivered before it.
        let sack_reordering = self
            .board
            .delivered()
            .lowest_original
            .is_some_and(|n| n < prior_fack);
        if sack_reordering || dsack_reordering {
            self.stats.reordering_events += 1;
            self.reordering_seen = true;
            // Linux tcp_check_sack_reordering() / tcp_update_reordering():
            // the degree is how far below the highest SACK the late segment
            // was, capped at sysctl_tcp_max_reordering (300).
            if let Some(low) = self.board.delivered().lowest_original {
                let metric = prior_fack.saturating_sub(low).min(MAX_REORDERING);
                self.reordering = self.reordering.max(metric as u32);
            }
            self.events.emit(now, || Event::ReorderingDetected);
        }

        // RTT sample from the echoed timestamp, under Karn's rule: none
        // when any newly acknowledged segment was ever retransmitted.
        let mut rtt_sample = None;
        if cum.segments > 0 && !cum.any_retransmitted && ack.ts_ecr > 0 && ack.ts_ecr <= now + 1 {
            let r = now + 1 - ack.ts_ecr;
            rtt_sample = Some(r);
            // After snd_una moved, as tcp_clean_rtx_queue() follows
            // tcp_snd_una_update() in Linux's tcp_ack().
            self.rtt.on_sample_at(r, self.snd_una, self.snd_nxt);
            self.rtt_since_probe = true;
            self.stats.rtt.record(r);
            self.watch_rtt_spike(ack.ts_ecr - 1, r);
            let (srtt, rto) = (self.rtt.srtt().unwrap_or(0), self.rtt.rto());
            self.events
                .emit(now, || Event::RttSample { rtt: r, srtt, rto });
        }

        // RTT_i for QARR and BARR, whatever Karn's rule says above.
        self.ack_rtt = (ack.ts_ecr > 0 && ack.ts_ecr <= now + 1).then(|| now + 1 - ack.ts_ecr);
        self.delivered_rtt = self.board.delivered().latest_original.map(|d| now - d.sent);

        // Duplicate ACK accounting. With SACK, RFC 6675 section 2 counts
        // an ACK as duplicate when it SACKs new data; without SACK, RFC
        // 5681 section 2 (same ACK, same window, data outstanding).
        let mut reno_dup = 0;
        let mut cum_delivered = cum.newly_delivered;
        if cum_advanced {
            // Without SACK each duplicate ACK was already counted as one
            // delivered segment, so the cumulative ACK that follows k of
            // them delivers its advance minus k (RFC 6937 section 3, RFC
            // 9937 section 6.2), and at least the hole it filled (Linux
            // tcp_remove_reno_sacks(): max(acked - sacked_out, 1)).
            if self.reno_sacked > 0 {
                cum_delivered = cum.newly_delivered.saturating_sub(self.reno_sacked).max(1);
            }
            self.dupacks = 0;
            self.limited_transmit_out = 0;
            // Outside recovery a new ACK forgets the duplicates before it
            // (RFC 5681 section 2's counter; Linux tcp_reset_reno_sack() in
            // tcp_fastretrans_alert()'s Open/Disorder case); in recovery
            // the hole's ACK eats one and the rest stay counted (Linux
            // tcp_remove_reno_sacks()).
            self.reno_sacked = match self.state {
                State::Open => 0,
                _ => self
                    .reno_sacked
                    .saturating_sub(cum.segments.saturating_sub(1)),
            };
        } else if !old_ack && !self.board.is_empty() {
            if newly_sacked > 0 {
                self.dupacks += 1;
            } else if !self.sack_seen && blocks.is_empty() && ack.window == prior_rwnd {
                self.dupacks += 1;
                if self.reno_sacked + 1 < self.board.packets_out() {
                    self.reno_sacked += 1;
                    reno_dup = 1;
                }
            }
        }
        self.reno_sacked = self
            .reno_sacked
            .min(self.board.packets_out().saturating_sub(1));
        let delivered = cum_delivered + newly_sacked + reno_dup;
        if delivered > 0 {
            self.alg
                .recovery
                .pkts_acked(now, delivered, self.rtt.latest());
        }

        // Lost-retransmission detection (PRR/ER paper section 3.2, Linux
        // tcp_mark_lost_retrans()): while recovering, a retransmission
        // sent before a transmission that has now been delivered is lost.
        let mut marks = Marks::default();
        if self.cfg.lost_retransmission_detection && self.state != State::Open {
            // Only a segment sent once says which transmission arrived: a
            // SACKed retransmitted segment may be its original (Linux
            // likewise waits for new data sent after the retransmission).
            if let Some(latest) = self.board.delivered().latest_original {
                let events = &mut self.events;
                self.board
                    .mark_retransmissions_lost_before(latest.tx_order, |n, s| {
                        marks.on_mark(events, now, n, s)
                    });
            }
        }

        // Loss detection.
        let mut ctx = self.detect_ctx(now, cum_advanced);
        ctx.ts_ecr = ack.ts_ecr;
        ctx.rtt_sample = rtt_sample;
        ctx.dsack = dsack;
        ctx.newly_sacked = newly_sacked;
        ctx.duplicate_ack = !cum_advanced && !old_ack && !self.board.is_empty();
        ctx.echo_order = ack.echo_order;
        ctx.exiting_recovery = self.recovery_over(cum_advanced);
        // While Linux holds a non-SACK recovery at its point it returns from
        // tcp_fastretrans_alert() before any loss detection: duplicate ACKs
        // of data sent during the recovery mark nothing.
        let wants_recovery = !self.recovery_held() && {
            let events = &mut self.events;
            let mut on_mark = |n: u64, s: &SegMeta| marks.on_mark(events, now, n, s);
            self.alg.detect.on_ack(&ctx, &mut self.board, &mut on_mark)
        };
        self.stats.lost_retransmissions += marks.lost_retransmissions;
        let new_loss = marks.marked > 0;

        // F-RTO (frto.rs) while the timeout's recovery lasts.
        // An undone timeout leaves nothing lost: what the detector said
        // before the undo no longer holds (Linux returns from
        // tcp_fastretrans_alert() there).
        let rto_undone = self.frto_on_ack(now, cum_advanced, newly_sacked > 0 || reno_dup > 0);
        let wants_recovery = wants_recovery && !rto_undone;

        // Recovery state machine.
        match self.state {
            State::Fast { .. } if self.recovery_over(cum_advanced) && !self.recovery_held() => {
                self.exit_fast_recovery(now, cum_advanced, new_loss);
            }
            State::Loss { recovery_point }
                if self.snd_una >= recovery_point && !self.recovery_held() =>
            {
                self.state = State::Open;
                self.alg.cc.on_state(CaState::Open, &self.win);
                self.high_rxt = None;
                self.close_recovery_record(now);
            }
            _ => {}
        }
        self.partial_ack_retransmission(cum_advanced);
        // On every ACK, as Linux in Recovery: the last DSACK may have come
        // while a segment was still marked lost whose original has now
        // arrived.
        self.try_undo_dsack(now, cum_advanced, new_loss);
        let entering = self.state == State::Open && wants_recovery;
        if entering {
            self.enter_fast_recovery(now, delivered);
        } else if new_loss {
            self.repeat_congestion_event(now, cum_advanced);
        }

        // Congestion control (Linux tcp_rate_gen() then
        // tcp_cong_control()).
        self.congestion_control(
            now,
            AckFacts {
                rtt_sample,
                bytes_acked: ack.ack.saturating_sub(prior_una),
                delivered,
                losses: marks.marked,
                prior_in_flight,
            },
            entering,
            cum_advanced,
            new_loss,
        );

        self.process_tlp_ack(
            now,
            ack,
            TlpAckInfo {
                dsack,
                cum_advanced,
                newly_sacked,
                window_update: ack.window != prior_rwnd,
                prior_out,
            },
        );

        // Timers (RFC 6298 section 5 through the policy).
        // A partial ACK that the recovery holds (NewReno Impatient) is,
        // for every timer policy, an ACK without new data.
        let restarts = cum_advanced && !self.partial_ack_holds_rto(cum_advanced);
        let tctx = self.timer_ctx(now);
        let d = self.alg.timers.on_ack(&tctx, restarts, self.timer);
        self.timer = self.on_tick(now, d);
        if self.rwnd > 0 || !self.board.is_empty() {
            self.persist = None;
        }
        self.application(now, cum_advanced);

        self.check_invariants();
        if self.events.enabled() {
            let state = self.window_state();
            let newly_acked = cum.segments;
            self.events.emit(now, || Event::AckProcessed {
                ack: ack.ack,
                newly_acked,
                newly_sacked,
                dsack,
                state,
            });
        }
        self.ack_rtt = None;
        self.delivered_rtt = None;
    }

    /// What a congestion controller sees of this ACK, with its
    /// delivery-rate sample when the controller takes them.
    #[inline]
    fn cc_ctx(&mut self, now: Time, f: AckFacts) -> CcCtx {
        let rate = self.rate.as_mut().map(|r| {
            // The most recently sent of the newly delivered segments
            // (Linux tcp_rate_skb_delivered()); one still on the
            // scoreboard was SACKed.
            let d = self.board.delivered();
            let chosen: Option<Chosen> = [d.latest_original, d.latest_retransmitted]
                .into_iter()
                .flatten()
                .max_by_key(|x| x.tx_order)
                .and_then(|x| r.choose(x.seg_no, x.seg_no >= self.board.base()));
            r.on_lost(f.losses);
            r.generate(
                now,
                f.delivered,
                f.losses,
                chosen,
                self.rtt.min_rtt(),
                self.board.base(),
            )
        });
        CcCtx {
            now,
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt(),
            packets_out: self.board.packets_out(),
            rtt_sample: f.rtt_sample,
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            bytes_acked: f.bytes_acked,
            delivered: f.delivered,
            losses: f.losses,
            prior_in_flight: f.prior_in_flight,
            in_flight: self.pipe(),
            state: self.cc_state(),
            cwnd_limited: self.cwnd_limited_at(f.prior_in_flight),
            mss: self.cfg.mss,
            rate,
        }
    }

    fn cc_state(&self) -> CaState {
        match self.state {
            State::Open => CaState::Open,
            State::Fast { .. } => CaState::Recovery,
            State::Loss { .. } => CaState::Loss,
        }
    }

    /// The controller's samples, then cwnd on this ACK: a controller that
    /// owns cwnd sets it (Linux cong_control()); otherwise the
    /// RecoveryOps during fast recovery (the entering ACK was handled by
    /// enter_fast_recovery), and the controller's growth outside it while
    /// the flow is cwnd-limited. The context is built only when someone
    /// reads it.
    fn congestion_control(
        &mut self,
        now: Time,
        f: AckFacts,
        entering: bool,
        cum_advanced: bool,
        new_loss: bool,
    ) {
        let grows = !self.cc_owns_cwnd
            && cum_advanced
            && (matches!(self.state, State::Open | State::Loss { .. })
                || (!entering && self.alg.recovery.grows_in_recovery()))
            && self.cwnd_limited_at(f.prior_in_flight);
        if self.cc_owns_cwnd || self.cc_observes_acks || grows {
            let cctx = self.cc_ctx(now, f);
            if self.cc_observes_acks {
                self.alg.cc.on_ack(&cctx);
            }
            if self.cc_owns_cwnd {
                self.alg.cc.cong_control(&mut self.win, &cctx);
                self.win.cwnd = self.win.cwnd.max(1);
                return;
            }
            if grows {
                // What this ACK delivered, less the duplicates that
                // already counted (Linux tcp_cong_control()'s acked_sacked
                // from tcp_newly_delivered()).
                self.alg.cc.cong_avoid(&mut self.win, cctx.delivered, &cctx);
                // Linux tcp_cong_avoid_ai() and tcp_slow_start() stop at
                // snd_cwnd_clamp.
                self.win.cwnd = self.win.cwnd.min(self.cfg.max_cwnd.max(1));
            }
        }
        if !entering && matches!(self.state, State::Fast { .. }) {
            let rctx = self.recovery_ctx(now, cum_advanced, new_loss);
            self.alg
                .recovery
                .cwnd_reduction(&mut self.win, &rctx, f.delivered, false);
        }
    }

    /// RFC 8985 section 7.4.2 (Linux tcp_process_tlp_ack()): once the ACK
    /// reaches TLP.end_seq the episode is over. A probe of new data, or any
    /// probe of a policy without loss inference, says nothing more. A
    /// retransmitted probe answered by a DSACK for it, or by a TLP
    /// duplicate ACK, found the original delivered; an ACK beyond
    /// TLP.end_seq without either means the original was lost and the
    /// probe repaired it: reduce cwnd once (enter and leave CWR). A TLP
    /// duplicate ACK is Linux's `is_tlp_dupack`: the ACK is exactly
    /// TLP.end_seq, does not advance snd.una, SACKs no new data and does
    /// not update the window (FLAG_SND_UNA_ADVANCED, FLAG_DATA_SACKED,
    /// FLAG_NOT_DUP); SACK blocks that only repeat old information do not
    /// disqualify it. Any other ACK of exactly TLP.end_seq waits. The
    /// reduction takes FlightSize as it was when this ACK arrived.
    fn process_tlp_ack(&mut self, now: Time, ack: &Ack, a: TlpAckInfo) {
        let TlpAckInfo {
            dsack,
            cum_advanced,
            newly_sacked,
            window_update,
            prior_out,
        } = a;
        let Some(ep) = self.tlp else {
            return;
        };
        if self.state != State::Open {
            // RFC 8985 7.1: fast or RTO recovery resets the episode.
            self.tlp = None;
            return;
        }
        if ack.ack < ep.end_seq {
            return;
        }
        let Some((lo, hi)) = ep
            .retrans
            .filter(|_| self.alg.timers.infers_loss_from_probe())
        else {
            self.tlp = None;
            return;
        };
        let blocks = ack.sack.as_slice();
        let dsack_for_probe = dsack && blocks[0].start < hi && blocks[0].end > lo;
        if dsack_for_probe {
            self.tlp = None;
        } else if ack.ack > ep.end_seq {
            self.tlp = None;
            // Linux enters and leaves CWR at once; a controller that owns
            // cwnd keeps it (tcp_end_cwnd_reduction() returns early).
            self.win.ssthresh = self.alg.cc.ssthresh(&self.win, prior_out);
            self.alg.cc.on_state(CaState::Cwr, &self.win);
            if !self.cc_owns_cwnd {
                self.win.cwnd = self.win.ssthresh.max(1);
                self.win.cwnd_cnt = 0;
            }
            self.alg.cc.on_state(CaState::Open, &self.win);
            self.emit_cwnd(now);
        } else if !cum_advanced && newly_sacked == 0 && !window_update {
            self.tlp = None;
        }
    }

    /// Whether this ACK ends the recovery: the cumulative ACK reached
    /// RecoveryPoint (RFC 6582 section 3.2 step 3, RFC 6675 section 5), or,
    /// for a fast recovery whose algorithm says so, it acknowledged any new
    /// data (Reno, RFC 5681 section 3.2 step 6). `recovery_held` may still
    /// keep it.
    fn recovery_over(&self, cum_advanced: bool) -> bool {
        match self.state {
            State::Open => false,
            State::Fast { recovery_point } => {
                self.snd_una >= recovery_point
                    || (cum_advanced && self.alg.recovery.exits_on_partial_ack())
            }
            State::Loss { recovery_point } => self.snd_una >= recovery_point,
        }
    }

    /// After the recovery state machine, without SACK: a partial ACK of
    /// the fast recovery still going on showed the next hole lost (RFC
    /// 6582 section 3.2 step 4, detect/dupthresh.rs); the recovery
    /// algorithm says whether it leaves at once, as the fast retransmit.
    fn partial_ack_retransmission(&mut self, cum_advanced: bool) {
        let hole_lost = self.board.next_to_retransmit() == Some(self.board.base());
        if cum_advanced
            && !self.sack_seen
            && matches!(self.state, State::Fast { .. })
            && hole_lost
            && self.alg.recovery.partial_ack_retransmits_at_once()
        {
            self.fast_rexmit_pending = true;
        }
    }

    /// After the recovery state machine: whether this ACK, a partial ACK
    /// of the fast recovery still going on, must not restart the
    /// retransmission timer because the recovery algorithm says so
    /// (NewReno's Impatient variant, RFC 6582 section 3.2 step 4). Counts
    /// the partial ACKs.
    fn partial_ack_holds_rto(&mut self, cum_advanced: bool) -> bool {
        if !cum_advanced || !matches!(self.state, State::Fast { .. }) {
            return false;
        }
        self.partial_acks += 1;
        !self
            .alg
            .recovery
            .rto_restart_on_partial_ack(self.partial_acks)
    }

    /// A recovery that snd.una has reached the point of but that goes on
    /// (`RecoveryExit::Linux`): without SACK, Linux holds the state while
    /// snd.una is exactly at the point; RFC 6582 never holds it.
    fn recovery_held(&self) -> bool {
        match self.state {
            State::Open => false,
            State::Fast { recovery_point } | State::Loss { recovery_point } => {
                self.cfg.recovery_exit == RecoveryExit::Linux
                    && !self.sack_seen
                    && self.snd_una == recovery_point
            }
        }
    }

    fn enter_fast_recovery(&mut self, now: Time, delivered: u64) {
        // RFC 8985 7.1: fast recovery ends a TLP episode.
        self.tlp = None;
        self.tlp_pending = false;
        let cwnd_before = self.win.cwnd;
        self.begin_undo_episode(cwnd_before, self.win.ssthresh);
        // RFC 5681 section 3.2 step 2 and RFC 6675 section 5 step (4.2):
        // data sent by limited transmit does not count in this FlightSize.
        let flight = self
            .board
            .packets_out()
            .saturating_sub(self.limited_transmit_out);
        self.limited_transmit_out = 0;
        // RFC 6675 step 4.1-4.2: RecoveryPoint = HighData; ssthresh from the
        // congestion controller (unless the RecoveryOps keeps it, or finds
        // this loss part of an earlier congestion event); the RecoveryOps
        // sets cwnd.
        let event = self
            .alg
            .recovery
            .congestion_event(&self.recovery_ctx(now, false, true), true);
        if event && self.alg.recovery.sets_ssthresh() {
            self.win.ssthresh = self.alg.cc.ssthresh(&self.win, flight);
        }
        self.state = State::Fast {
            recovery_point: self.snd_nxt,
        };
        self.recover = self.snd_nxt;
        self.high_rxt = None;
        self.rescue_rxt = None;
        self.fast_rexmit_pending = true;
        self.partial_acks = 0;
        self.stats.fast_recoveries += 1;
        self.alg.cc.on_state(CaState::Recovery, &self.win);
        let rctx = self.recovery_ctx(now, false, true);
        let owns = self.cc_owns_cwnd;
        if !owns {
            self.alg.recovery.init_cwnd_reduction(&mut self.win, &rctx);
        }
        self.open_recovery_record(now, RecoveryKind::Fast, cwnd_before);
        if !owns {
            self.alg
                .recovery
                .cwnd_reduction(&mut self.win, &rctx, delivered, true);
        }
        self.emit_cwnd(now);
    }

    /// A loss marked during fast recovery that the RecoveryOps counts as
    /// a new congestion event (LE's once-per-RTT reduction): a new
    /// ssthresh and reduction, and RecoveryPoint = HighData, as on entry
    /// (RFC 6675 step 4.1), without leaving the recovery.
    fn repeat_congestion_event(&mut self, now: Time, cum_advanced: bool) {
        if !matches!(self.state, State::Fast { .. }) || self.cc_owns_cwnd {
            return;
        }
        let rctx = self.recovery_ctx(now, cum_advanced, true);
        if !self.alg.recovery.congestion_event(&rctx, false) {
            return;
        }
        if self.alg.recovery.sets_ssthresh() {
            let flight = self.board.packets_out();
            self.win.ssthresh = self.alg.cc.ssthresh(&self.win, flight);
        }
        self.state = State::Fast {
            recovery_point: self.snd_nxt,
        };
        self.alg.recovery.init_cwnd_reduction(&mut self.win, &rctx);
        self.emit_cwnd(now);
    }

    fn exit_fast_recovery(&mut self, now: Time, cum_advanced: bool, new_loss: bool) {
        let rctx = self.recovery_ctx(now, cum_advanced, new_loss);
        if let Some(r) = self.recoveries.last_mut().filter(|r| r.end.is_none()) {
            r.cwnd_before_exit = Some(self.win.cwnd);
        }
        if !self.cc_owns_cwnd {
            self.alg.recovery.end_cwnd_reduction(&mut self.win, &rctx);
        }
        if self.alg.recovery.exits_on_partial_ack() {
            // RFC 5681 section 3.2 step 6 deflates the window to ssthresh
            // against the whole FlightSize: the duplicate ACKs stop
            // counting as delivered, or the inflation would outlive the
            // recovery.
            self.reno_sacked = 0;
        }
        self.state = State::Open;
        self.alg.cc.on_state(CaState::Open, &self.win);
        self.high_rxt = None;
        self.rescue_rxt = None;
        self.fast_rexmit_pending = false;
        self.close_recovery_record(now);
        self.emit_cwnd(now);
    }

    /// F-RTO's verdict on an ACK after a timeout (frto.rs); a spurious
    /// timeout is undone with the undo machinery DSACKs use.
    fn frto_on_ack(&mut self, now: Time, una_advanced: bool, sacked_or_dupack: bool) -> bool {
        let Some(mut f) = self.frto else {
            return false;
        };
        if !matches!(self.state, State::Loss { .. }) {
            self.frto = None;
            return false;
        }
        let a = FrtoAck {
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            una_advanced,
            lowest_original: self.board.delivered().lowest_original,
            next_seg: self.board.next_seg_no(),
            sacked_or_dupack,
            can_send_new: self.new_data_len() > 0,
        };
        let verdict = f.on_ack(&a);
        self.frto = (verdict == FrtoVerdict::Continue).then_some(f);
        if verdict != FrtoVerdict::Spurious {
            return false;
        }
        self.stats.spurious_rtos += 1;
        let Some(u) = self.undo.take() else {
            return false;
        };
        // Linux tcp_try_undo_loss(sk, true): the reduction is undone and
        // nothing is lost after all.
        self.board.unmark_lost();
        self.undo_reduction(now, u, true, false, false);
        true
    }

    /// Remembers what a DSACK-based undo would restore (Linux
    /// tcp_init_undo(), prior_cwnd and prior_ssthresh).
    fn begin_undo_episode(&mut self, cwnd: u64, ssthresh: u64) {
        self.undo = Some(UndoEpisode {
            prior_cwnd: cwnd,
            prior_ssthresh: ssthresh,
            marker: self.tx_order,
            retransmissions: 0,
            dsacked: 0,
            first_record: self.recoveries.total(),
        });
    }

    /// Linux tcp_try_undo_dsack() (RFC 3708's spirit): when DSACKs have
    /// reported every retransmission of the episode as unnecessary, the
    /// reduction answered no loss. Restore cwnd and ssthresh (never
    /// lowering them, as tcp_undo_cwnd_reduction() does) and, when nothing
    /// else is lost or being retransmitted, leave recovery at once.
    fn try_undo_dsack(&mut self, now: Time, cum_advanced: bool, new_loss: bool) {
        let Some(u) = self.undo.filter(|_| self.cfg.dsack_undo) else {
            return;
        };
        if u.retransmissions == 0 || u.dsacked < u.retransmissions {
            return;
        }
        let leaving = self.state != State::Open;
        if leaving && (self.board.lost_out() > 0 || self.board.retrans_out() > 0) {
            return;
        }
        self.undo = None;
        self.undo_reduction(now, u, leaving, cum_advanced, new_loss);
    }

    /// Restores cwnd and ssthresh from before the episode's reduction
    /// (never lowering them, as Linux tcp_undo_cwnd_reduction()), leaves
    /// recovery when `leaving`, and marks the episode's records undone.
    fn undo_reduction(
        &mut self,
        now: Time,
        u: UndoEpisode,
        leaving: bool,
        cum_advanced: bool,
        new_loss: bool,
    ) {
        if let State::Fast { .. } = self.state {
            // Let the recovery algorithm finish its bookkeeping; its cwnd
            // is replaced just below.
            if !self.cc_owns_cwnd {
                let rctx = self.recovery_ctx(now, cum_advanced, new_loss);
                self.alg.recovery.end_cwnd_reduction(&mut self.win, &rctx);
            }
        }
        self.win.cwnd = self.alg.cc.undo_cwnd(&self.win, u.prior_cwnd).max(1);
        self.win.ssthresh = self.win.ssthresh.max(u.prior_ssthresh);
        self.win.cwnd_cnt = 0;
        if leaving {
            self.state = State::Open;
            self.alg.cc.on_state(CaState::Open, &self.win);
            self.high_rxt = None;
            self.rescue_rxt = None;
            self.fast_rexmit_pending = false;
            self.close_recovery_record(now);
        }
        for r in self.recoveries.from_mut(u.first_record) {
            r.undone = true;
        }
        self.stats.undos += 1;
        let (cwnd, ssthresh) = (self.win.cwnd, self.win.ssthresh);
        self.events.emit(now, || Event::Undo { cwnd, ssthresh });
        self.emit_cwnd(now);
    }

    fn open_recovery_record(&mut self, now: Time, kind: RecoveryKind, cwnd_before: u64) {
        self.recovery_epoch += 1;
        self.recoveries.push(RecoveryRecord {
            kind,
            start: now,
            end: None,
            cwnd_before,
            cwnd_after: None,
            cwnd_before_exit: None,
            ssthresh: self.win.ssthresh,
            pipe_minus_ssthresh_at_start: self.pipe() as i64 - self.win.ssthresh as i64,
            flight_at_start: self.board.packets_out(),
            lost_at_start: self.board.lost_out(),
            undone: false,
            app_stall: 0,
            rtt_before: self.rtt.latest(),
            rtt_after_max: None,
        });
        let state = self.window_state();
        self.events
            .emit(now, || Event::RecoveryEntered { kind, state });
    }

    fn close_recovery_record(&mut self, now: Time) {
        let last = self.recoveries.total().saturating_sub(1);
        if let Some(r) = self.recoveries.last_mut() {
            if r.end.is_none() {
                r.end = Some(now);
                r.cwnd_after = Some(self.win.cwnd);
                r.cwnd_before_exit = r.cwnd_before_exit.or(r.cwnd_after);
                self.recovery_epoch += 1;
                self.spike_watch = r.rtt_before.map(|rtt| (last, now, now + rtt));
                let kind = r.kind;
                let state = self.window_state();
                self.events
                    .emit(now, || Event::RecoveryExited { kind, state });
            }
        }
    }

    fn emit_cwnd(&mut self, now: Time) {
        let (cwnd, ssthresh) = (self.win.cwnd, self.win.ssthresh);
        self.events
            .emit(now, || Event::CwndChanged { cwnd, ssthresh });
    }

    fn detect_ctx(&self, now: Time, cum_advanced: bool) -> DetectCtx {
        DetectCtx {
            now,
            dupacks: self.detector_dupacks(),
            sack_seen: self.sack_seen,
            cum_advanced,
            in_fast_recovery: matches!(self.state, State::Fast { .. }),
            in_loss: matches!(self.state, State::Loss { .. }),
            mss: self.cfg.mss,
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt(),
            rtt_sample: None,
            reordering_seen: self.reordering_seen,
            reordering: self.reordering.max(self.cfg.dupthresh),
            cwnd: self.win.cwnd,
            can_send_new: self.new_data_len() > 0,
            ts_ecr: 0,
            dsack: false,
            newly_sacked: 0,
            duplicate_ack: false,
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            exiting_recovery: false,
            dupack_entry_only: !self.alg.recovery.entry_on_islost(),
            echo_order: 0,
        }
    }

    /// The duplicate ACKs the detector counts: none in the open state
    /// while the cumulative ACK has not passed `recover`, when the
    /// recovery algorithm allows one fast retransmit per window of data
    /// (RFC 6582 section 4.1: "do not enter the Fast Retransmit and Fast
    /// Recovery procedure"; ns-2 tcp-reno.cc `dupack_action()` with
    /// `bug_fix_`, where `highest_ack_ > recover_` is snd.una >= recover
    /// in bytes).
    fn detector_dupacks(&self) -> u32 {
        let guarded = !self.alg.recovery.fast_retransmit_below_recover();
        if guarded && self.state == State::Open && self.snd_una < self.recover {
            0
        } else {
            self.dupacks
        }
    }

    fn recovery_ctx(&self, now: Time, snd_una_advanced: bool, new_loss: bool) -> RecoveryCtx {
        RecoveryCtx {
            now,
            pipe: self.pipe(),
            packets_out: self.board.packets_out(),
            sacked_out: self.board.sacked_out() + self.reno_sacked,
            snd_una_advanced,
            new_loss,
            mss: self.cfg.mss,
            ack_rtt: self.ack_rtt,
            delivered_rtt: self.delivered_rtt,
            min_rtt: self.rtt.min_rtt(),
            srtt: self.rtt.srtt(),
            min_cwnd: Some(self.alg.cc.min_cwnd(&self.win)),
        }
    }

    /// A deadline on the kernel's timer tick when the flow has one
    /// (`RtoConfig::tick`): Linux arms a timer at jiffies + a whole number
    /// of jiffies (the RTO is already rounded up to whole ticks) and the
    /// timer wheel fires it on that tick, so a deadline computed from an
    /// exact send or ACK time fires at the tick at or before it; never
    /// before `now`.
    fn on_tick(&self, now: Time, d: Deadline) -> Deadline {
        let tick = self.cfg.rto.tick;
        match d {
            Some((t, kind)) if tick > 0 => Some(((t / tick * tick).max(now), kind)),
            d => d,
        }
    }

    fn timer_ctx(&self, now: Time) -> TimerCtx {
        TimerCtx {
            now,
            rto: self.rtt.rto(),
            srtt: self.rtt.srtt(),
            packets_out: self.board.packets_out(),
            oldest_sent: self.board.first().map(|s| s.last_sent),
            newest_sent: (!self.board.is_empty()).then_some(self.last_send),
            has_unsent: self.new_data_len() > 0,
            in_recovery: self.state != State::Open,
            probe_in_flight: self.tlp.is_some(),
            rtt_since_probe: self.rtt_since_probe,
        }
    }

    /// Linux tcp_is_cwnd_limited(): in slow start, cwnd may grow while it is
    /// below twice what was in flight; otherwise only if cwnd was filled.
    /// Linux 3.10's variant (`cwnd_validation`) judges the flight before
    /// the ACK instead.
    fn cwnd_limited_at(&self, prior_in_flight: u64) -> bool {
        if self.cfg.cwnd_validation != CwndValidation::Linux {
            return self.cfg.cwnd_validation.limited_310(
                self.win.cwnd,
                prior_in_flight,
                self.cfg.mss,
            );
        }
        if self.is_cwnd_limited {
            return true;
        }
        self.win.in_slow_start() && self.win.cwnd < 2 * self.max_packets_out
    }

    /// Linux tcp_cwnd_validate(), called when a send burst ends.
    fn validate_cwnd(&mut self, limited: bool) {
        let packets_out = self.board.packets_out();
        if self.snd_una >= self.cwnd_usage_seq
            || limited
            || (!self.is_cwnd_limited && packets_out > self.max_packets_out)
        {
            self.is_cwnd_limited = limited;
            self.max_packets_out = packets_out;
            self.cwnd_usage_seq = self.snd_nxt;
        }
    }

    // ---- send buffer and application --------------------------------------

    /// What the send buffer lets the application have written beyond
    /// snd_una (None: no limit).
    fn sndbuf_cap(&self) -> Option<u64> {
        match &self.sndbuf {
            Some(b) => Some(b.cap(self.snd_una)),
            None => self.cfg.sndbuf,
        }
    }

    /// The application writes what it has, as far as the send buffer
    /// allows, and (Linux model) sleeps if it wanted more.
    fn app_write(&mut self, now: Time) {
        if let Some(b) = &mut self.sndbuf {
            b.refill(self.snd_una, now);
        }
        let cap = self.sndbuf_cap();
        self.app.advance(now, self.snd_una, cap);
        if let Some(b) = &mut self.sndbuf {
            b.after_write(self.app.wants_more());
        }
    }

    /// The ACK's last step: the send buffer frees what it acknowledged
    /// (and may grow and wake the writer), then the application writes.
    fn application(&mut self, now: Time, cum_advanced: bool) {
        if cum_advanced {
            if let Some(b) = &mut self.sndbuf {
                let written = self
                    .app
                    .written_end()
                    .unwrap_or(self.snd_una + b.cap(self.snd_una));
                b.on_ack_freed(FreedAck {
                    now,
                    snd_una: self.snd_una,
                    written,
                    in_flight: self.board.pipe(),
                    cwnd: self.win.cwnd,
                    reordering: u64::from(self.reordering.max(self.cfg.dupthresh)),
                    mss: self.cfg.mss,
                    init_cwnd: self.cfg.init_cwnd,
                });
            }
        }
        self.app_write(now);
    }

    /// Application stall (mobile paper Definition 1), measured as the time
    /// in fast recovery during which cwnd and the peer's window (with any
    /// opportunistic extension) allowed a new segment, nothing waited for
    /// retransmission, and the send buffer held no unsent byte although
    /// the application wanted to write more. Checked when the sender stops
    /// sending; the stall lasts until the next ACK or timer.
    fn note_stall(&mut self, now: Time) {
        if self.stall_since.is_some() || self.sndbuf_cap().is_none() {
            return;
        }
        let starved = matches!(self.state, State::Fast { .. })
            && self.pipe() < self.win.cwnd
            && self.board.next_to_retransmit().is_none()
            && self.app.wants_more()
            && self
                .app
                .available(self.snd_nxt, self.snd_una, self.sndbuf_cap())
                == 0
            && self.peer_window_right() >= self.snd_nxt + u64::from(self.cfg.mss);
        if starved {
            self.stall_since = Some(now);
        }
    }

    fn close_stall(&mut self, now: Time) {
        if let Some(t) = self.stall_since.take() {
            let d = now.saturating_sub(t);
            self.stats.app_stall += d;
            if let Some(r) = self.recoveries.last_mut() {
                r.app_stall += d;
            }
        }
    }

    /// The RTT spike after a recovery (mobile paper section VII.E): the
    /// largest RTT of segments sent within one RTT after it ended.
    fn watch_rtt_spike(&mut self, sent_at: Time, rtt: Time) {
        let Some((i, from, until)) = self.spike_watch else {
            return;
        };
        if sent_at > until {
            self.spike_watch = None;
        } else if sent_at >= from {
            if let Some(r) = self.recoveries.get_mut(i) {
                r.rtt_after_max = Some(r.rtt_after_max.map_or(rtt, |m| m.max(rtt)));
            }
        }
    }

    /// The right edge new data may reach: the peer's window, extended
    /// during recovery by the recovery algorithm (opportunistic
    /// retransmission).
    fn peer_window_right(&self) -> u64 {
        let ext = self.alg.recovery.awnd_extension(&self.awnd_ctx());
        self.snd_una + self.rwnd + ext * u64::from(self.cfg.mss)
    }

    fn awnd_ctx(&self) -> AwndCtx<'_> {
        AwndCtx {
            in_recovery: matches!(self.state, State::Fast { .. }),
            board: &self.board,
            reno_sacked: self.reno_sacked,
        }
    }

    // ---- transmission ------------------------------------------------------

    /// Length of the next new segment the application and the peer's
    /// window allow (0: none).
    fn new_data_len(&self) -> u32 {
        let avail = self
            .app
            .available(self.snd_nxt, self.snd_una, self.sndbuf_cap());
        if avail == 0 {
            return 0;
        }
        let want = avail.min(self.cfg.mss as u64);
        let right = self.peer_window_right();
        let usable = right.saturating_sub(self.snd_nxt);
        if usable >= want {
            return want as u32;
        }
        // RFC 1122 4.2.3.4 (sender SWS avoidance): a shorter segment only
        // when the usable window is at least half the largest window the
        // peer has offered, so a small receive buffer still moves data.
        if usable > 0 && usable >= self.max_rwnd / 2 {
            return usable as u32;
        }
        0
    }

    /// The next segment to put on the wire now, if any. Call until None.
    pub fn poll_transmit(&mut self, now: Time) -> Option<Segment> {
        if self.opening.is_some() {
            return self.opening_transmit(now);
        }
        if !self.pacing_allows(now) {
            return None;
        }
        if self.tlp_pending {
            self.tlp_pending = false;
            if self.state == State::Open && !self.board.is_empty() {
                if let Some(seg) = self.send_loss_probe(now) {
                    self.on_paced_send(now, seg.len);
                    return Some(seg);
                }
            }
        }
        if let Some(seg) = self.next_replica(now) {
            self.on_paced_send(now, seg.len);
            return Some(seg);
        }
        let seg = match self.state {
            State::Open => self.next_open(now),
            State::Fast { .. } => self.next_fast(now),
            State::Loss { .. } => self.next_loss(now),
        };
        match seg {
            Some(s) => {
                self.check_invariants();
                if self.state != State::Open {
                    self.alg.recovery.on_sent(1);
                }
                // Every transmission adds one to pipe: this one left an
                // empty pipe (Linux tcp_event_data_sent(): TX_START when
                // nothing was in flight).
                if self.pipe() == 1 {
                    self.alg.cc.on_tx_start(now);
                }
                if self.pacer.is_some() {
                    self.on_paced_send(now, s.len);
                }
                let tctx = self.timer_ctx(now);
                let d = self.alg.timers.on_send(&tctx, self.timer);
                self.timer = self.on_tick(now, d);
                if self.cfg.rto_rearm_on_head_retransmit && s.tx_count > 1 && s.seq == self.snd_una
                {
                    self.timer = self.on_tick(now, Some((now + self.rtt.rto(), TimerKind::Rto)));
                }
                Some(s)
            }
            None => {
                // The same measure the sending rule used: FlightSize in
                // Open state, pipe during recovery.
                let used = match self.state {
                    State::Open => self.board.packets_out(),
                    _ => self.pipe(),
                };
                let limited = used >= self.win.cwnd && self.has_something_to_send();
                self.validate_cwnd(limited);
                self.check_app_limited(used);
                self.note_stall(now);
                self.note_starvation(now);
                self.maybe_arm_persist(now);
                if self.probe_pending {
                    return self.send_probe(now);
                }
                None
            }
        }
    }

    /// The pacing gate (pacing.rs): closed until the departure time the
    /// last burst earned. A closed gate with something to send asks for a
    /// wake-up then.
    fn pacing_allows(&mut self, now: Time) -> bool {
        let Some(mut p) = self.pacer else {
            return true;
        };
        if p.may_send(now) {
            return true;
        }
        if self.tlp_pending || self.window_open() {
            p.block(now);
            self.pacer = Some(p);
        }
        false
    }

    /// Whether the sending rules would let a segment out now.
    fn window_open(&self) -> bool {
        if self.rto_rexmit_pending || self.fast_rexmit_pending {
            return true;
        }
        if self.replicas.peek().is_some() {
            // A copy may be due; the pacer's wake-up will tell.
            return true;
        }
        let room = match self.state {
            State::Open => {
                let allowance = if self.cfg.limited_transmit {
                    self.dupacks.min(2) as u64
                } else {
                    0
                };
                self.board.packets_out() < self.win.cwnd + allowance
            }
            _ => self.pipe() < self.win.cwnd || self.lost_beyond_cwnd().is_some(),
        };
        room && self.has_something_to_send()
    }

    /// The pacing rate in bits per second: the controller's, or Linux's
    /// tcp_update_pacing_rate() from cwnd and srtt (none before an RTT
    /// sample: Linux starts unpaced, sk_pacing_rate = ~0).
    pub fn pacing_rate(&self) -> Option<u64> {
        self.alg.cc.pacing_rate().or_else(|| {
            self.rtt.srtt().map(|srtt| {
                default_rate(
                    self.cfg.mss,
                    self.win.cwnd,
                    self.win.ssthresh,
                    self.board.packets_out(),
                    srtt,
                )
            })
        })
    }

    fn on_paced_send(&mut self, now: Time, len: u32) {
        if self.pacer.is_none() {
            return;
        }
        let rate = self.pacing_rate().unwrap_or(0);
        let burst = burst_segments(
            rate,
            self.cfg.mss,
            self.rtt.min_rtt(),
            self.alg.cc.min_tso_segs(),
        );
        if let Some(p) = &mut self.pacer {
            p.on_sent(now, len, rate, burst);
        }
    }

    /// Linux tcp_rate_check_app_limited(), when a send burst ends: less
    /// than a segment of application data is waiting.
    fn check_app_limited(&mut self, in_flight: u64) {
        let cap = self.sndbuf_cap();
        let Some(r) = &mut self.rate else {
            return;
        };
        let waiting = self.app.available(self.snd_nxt, self.snd_una, cap);
        if waiting < self.cfg.mss as u64 {
            let unrepaired = self.board.next_to_retransmit().is_some();
            r.check_app_limited(in_flight, self.win.cwnd, unrepaired);
        }
    }

    fn has_something_to_send(&self) -> bool {
        self.board.next_to_retransmit().is_some() || self.new_data_len() > 0
    }

    fn maybe_arm_persist(&mut self, now: Time) {
        if self.board.is_empty()
            && self.persist.is_none()
            && self.new_data_len() == 0
            && self
                .app
                .available(self.snd_nxt, self.snd_una, self.sndbuf_cap())
                > 0
        {
            self.persist = Some(now + self.rtt.rto());
        }
    }

    /// A zero-window probe as Linux sends it (tcp_xmit_probe_skb(), from
    /// tcp_send_probe0()): no data, sequence number snd.una - 1, so the
    /// peer finds it old and answers with an ACK carrying its window.
    /// Nothing is put in flight, so no retransmission timer runs on it: the
    /// persist timer, backed off on each expiry, sends the next one. RFC
    /// 9293 3.8.6.1 has the probe carry one octet of new data instead;
    /// such a probe sits in flight under the retransmission timer, which,
    /// while the window stays shut, fires and collapses cwnd (our earlier
    /// probe did that; docs/ALGORITHMS.md).
    fn send_probe(&mut self, now: Time) -> Option<Segment> {
        self.probe_pending = false;
        let avail = self
            .app
            .available(self.snd_nxt, self.snd_una, self.sndbuf_cap());
        if avail == 0 || !self.board.is_empty() {
            return None;
        }
        // Linux leaves lsndtime alone for a probe (tcp_event_data_sent()
        // runs for data only), so it does not delay restart after idle.
        Some(Segment {
            seq: self.snd_una.saturating_sub(1),
            len: 0,
            ts_val: now + 1,
            ts_ecr: self.ts_recent,
            seg_no: self.board.next_seg_no(),
            tx_count: 1,
            tx_order: self.tx_order,
            probe: true,
            syn: false,
            replica: false,
        })
    }

    /// One loss probe (tail-loss paper 2.2, RFC 8985 7.3, Linux
    /// tcp_send_loss_probe()): a new segment if there is one and the
    /// receive window allows it, regardless of cwnd; otherwise a
    /// retransmission of the highest-sequence segment sent (RFC 8985 7.3
    /// "the highest-sequence segment sent so far"; Linux takes the last
    /// skb of the retransmission queue). Deviation: when that segment is
    /// SACKed, RFC and Linux still resend it (its only effect is a DSACK,
    /// which ends the episode); our scoreboard never resends SACKed data,
    /// so the highest un-SACKed segment goes instead. Opens the TLP
    /// episode. None when everything outstanding is SACKed; the RTO armed
    /// when the probe timer fired stays.
    fn send_loss_probe(&mut self, now: Time) -> Option<Segment> {
        let len = self.new_data_len();
        let (mut seg, retrans) = if len > 0 {
            (self.send_new(now, len), None)
        } else {
            let n = crate::nextseg::highest_unsacked(&self.board)?;
            let s = self.retransmit(now, n);
            (s, Some((s.seq, s.seq + s.len as u64)))
        };
        seg.probe = true;
        self.stats.tail_probes += 1;
        self.tlp = Some(TlpEpisode {
            end_seq: self.snd_nxt,
            retrans,
        });
        self.rtt_since_probe = false;
        self.check_invariants();
        let tctx = self.timer_ctx(now);
        let d = self.alg.timers.on_send(&tctx, self.timer);
        self.timer = self.on_tick(now, d);
        Some(seg)
    }

    fn next_open(&mut self, now: Time) -> Option<Segment> {
        // RFC 5681: FlightSize < cwnd; RFC 3042 allows one more segment on
        // each of the first two duplicate ACKs.
        let allowance = if self.cfg.limited_transmit {
            self.dupacks.min(2) as u64
        } else {
            0
        };
        if self.board.packets_out() >= self.win.cwnd + allowance {
            return None;
        }
        let len = self.new_data_len();
        if len > 0 && self.cfg.restart_after_idle {
            self.restart_if_idle(now);
        }
        if len > 0 && self.board.packets_out() >= self.win.cwnd {
            self.limited_transmit_out += 1;
        }
        (len > 0).then(|| self.send_new(now, len))
    }

    /// RFC 5681 section 4.1: nothing was sent for more than an RTO and
    /// nothing is outstanding, so the ACK clock is gone: cwnd falls to
    /// the restart window RW = min(IW, cwnd). ssthresh is kept.
    fn restart_if_idle(&mut self, now: Time) {
        if self.snd_nxt == 0 || !self.board.is_empty() {
            return;
        }
        if now.saturating_sub(self.last_send) > self.rtt.rto() {
            let rw = self.cfg.init_cwnd.min(self.win.cwnd);
            if rw < self.win.cwnd {
                self.win.cwnd = rw;
                self.win.cwnd_cnt = 0;
            }
        }
    }

    fn next_loss(&mut self, now: Time) -> Option<Segment> {
        if std::mem::take(&mut self.rto_rexmit_pending) {
            if let Some(n) = self.board.next_to_retransmit() {
                return Some(self.retransmit(now, n));
            }
        }
        if self.pipe() >= self.win.cwnd {
            return self.lost_beyond_cwnd().map(|n| self.retransmit(now, n));
        }
        // F-RTO step 2.b (Linux REXMIT_NEW): new data probes whether the
        // timeout was spurious before anything else is retransmitted.
        if self.frto.is_some_and(|f| f.send_new) {
            let len = self.new_data_len();
            return (len > 0).then(|| self.send_new(now, len));
        }
        if let Some(n) = self.board.next_to_retransmit() {
            return Some(self.retransmit(now, n));
        }
        let len = self.new_data_len();
        (len > 0).then(|| self.send_new(now, len))
    }

    /// RFC 6675 section 5 step (C) with NextSeg() of section 4.
    fn next_fast(&mut self, now: Time) -> Option<Segment> {
        if self.fast_rexmit_pending {
            // Step 4.3: the first lost segment goes out regardless of cwnd.
            self.fast_rexmit_pending = false;
            if let Some(n) = self.board.next_to_retransmit() {
                self.high_rxt = Some(self.high_rxt.map_or(n, |h| h.max(n)));
                let seg = self.retransmit(now, n);
                // "To prevent repeated retransmission of the same data or a
                // premature rescue retransmission, set both HighRxt and
                // RescueRxt to the highest sequence number in the
                // retransmitted segment": rule 4 waits until the fast
                // retransmit itself is acknowledged.
                self.rescue_rxt = Some(seg.seq + u64::from(seg.len) - 1);
                return Some(seg);
            }
        }
        if self.pipe() >= self.win.cwnd {
            let n = self.lost_beyond_cwnd()?;
            self.high_rxt = Some(self.high_rxt.map_or(n, |h| h.max(n)));
            return Some(self.retransmit(now, n));
        }
        let vars = RecoveryVars {
            high_rxt: self.high_rxt,
            rescue_rxt: self.rescue_rxt,
            high_ack: self.snd_una,
            // Rule 4 is defined on SACK scoreboards only.
            rescue_enabled: self.sack_seen && self.alg.recovery.rescue_retransmission(),
        };
        let new_len = self.new_data_len();
        match next_seg(&self.board, &vars, new_len > 0) {
            NextSeg::Lost(n) | NextSeg::Unsacked(n) => {
                self.high_rxt = Some(self.high_rxt.map_or(n, |h| h.max(n)));
                Some(self.retransmit(now, n))
            }
            NextSeg::NewData => Some(self.send_new(now, new_len)),
            NextSeg::Rescue(n) => {
                // RescueRxt = RecoveryPoint; HighRxt is not updated.
                if let State::Fast { recovery_point } = self.state {
                    self.rescue_rxt = Some(recovery_point);
                }
                self.stats.rescue_retransmissions += 1;
                Some(self.retransmit(now, n))
            }
            NextSeg::Nothing => None,
        }
    }

    fn send_new(&mut self, now: Time, len: u32) -> Segment {
        let seq = self.snd_nxt;
        if seq + u64::from(len) > self.snd_una + self.rwnd {
            self.stats.beyond_window_segments += 1;
        }
        self.tx_order += 1;
        self.last_send = now;
        let packets_out = self.board.packets_out();
        let seg_no = self.board.push_new(seq, len, now, self.tx_order);
        self.alg.detect.on_sent(seg_no, self.tx_order);
        if let Some(r) = &mut self.rate {
            r.on_sent(seg_no, now, packets_out, false);
        }
        self.snd_nxt += len as u64;
        self.stats.segments_sent += 1;
        self.stats.max_tx_count = self.stats.max_tx_count.max(1);
        self.events.emit(now, || Event::Sent {
            seq,
            len,
            seg_no,
            tx_count: 1,
        });
        Segment {
            seq,
            len,
            ts_val: now + 1,
            ts_ecr: self.ts_recent,
            seg_no,
            tx_count: 1,
            tx_order: self.tx_order,
            probe: false,
            syn: false,
            replica: false,
        }
    }

    fn retransmit(&mut self, now: Time, seg_no: u64) -> Segment {
        self.tx_order += 1;
        self.last_send = now;
        let s = self.board.on_retransmit(seg_no, now, self.tx_order);
        self.alg.detect.on_sent(seg_no, self.tx_order);
        if let Some(r) = &mut self.rate {
            r.on_sent(seg_no, now, self.board.packets_out(), true);
        }
        self.stats.segments_sent += 1;
        self.stats.retransmissions += 1;
        if let Some(u) = &mut self.undo {
            u.retransmissions += 1;
        }
        self.stats.max_tx_count = self.stats.max_tx_count.max(s.tx_count);
        self.events.emit(now, || Event::Sent {
            seq: s.seq,
            len: s.len,
            seg_no,
            tx_count: s.tx_count,
        });
        self.queue_replicas(now, seg_no, s.tx_count - 1);
        self.resent(now, seg_no, &s, false)
    }

    /// The wire segment of a transmission of `seg_no` after its first (a
    /// retransmission or an extra copy of one).
    fn resent(&self, now: Time, seg_no: u64, s: &SegMeta, replica: bool) -> Segment {
        Segment {
            seq: s.seq,
            len: s.len,
            ts_val: now + 1,
            ts_ecr: self.ts_recent,
            seg_no,
            tx_count: s.tx_count,
            tx_order: self.tx_order,
            probe: false,
            syn: false,
            replica,
        }
    }

    // ---- redundancy and opportunism (OR3, recovery/or3.rs) -----------------

    /// OR3's opportunism: the lost segment that may be retransmitted in
    /// recovery although pipe >= cwnd, if any.
    fn lost_beyond_cwnd(&self) -> Option<u64> {
        if self.state == State::Open || !self.alg.recovery.retransmit_beyond_cwnd() {
            return None;
        }
        self.board.next_to_retransmit()
    }

    /// One sending cycle: the time one segment takes at the pacing rate
    /// (Linux's formula from cwnd and srtt for an unpaced flow; nothing
    /// before the first RTT sample).
    fn sending_cycle(&self) -> Time {
        match self.pacing_rate() {
            Some(r) if r > 0 => u64::from(self.cfg.mss) * 8 * crate::time::SEC / r,
            _ => 0,
        }
    }

    /// The `i`-th retransmission of `seg_no` just left: the redundancy
    /// policy says which extra copies follow, and when.
    fn queue_replicas(&mut self, now: Time, seg_no: u64, i: u32) {
        self.replica_delays.clear();
        self.alg.redundancy.copies(i, &mut self.replica_delays);
        if self.replica_delays.is_empty() {
            return;
        }
        let cycle = self.sending_cycle();
        for &d in &self.replica_delays {
            self.replicas_queued += 1;
            self.replicas.push(Reverse((
                now + u64::from(d) * cycle,
                self.replicas_queued,
                seg_no,
            )));
        }
    }

    /// The next extra copy due by `now` whose retransmission is still
    /// outstanding (one SACKed, acknowledged or declared lost since needs
    /// no copy). Copies ignore cwnd and the peer's window (they carry data
    /// already inside it); the pacer spaces them.
    fn next_replica(&mut self, now: Time) -> Option<Segment> {
        while let Some(&Reverse((due, _, seg_no))) = self.replicas.peek() {
            if due > now {
                return None;
            }
            self.replicas.pop();
            let Some(s) = self.board.on_replica(seg_no, now, self.tx_order + 1) else {
                continue;
            };
            self.tx_order += 1;
            self.alg.detect.on_sent(seg_no, self.tx_order);
            self.last_send = now;
            self.stats.segments_sent += 1;
            self.stats.redundant_copies += 1;
            self.events.emit(now, || Event::Sent {
                seq: s.seq,
                len: s.len,
                seg_no,
                tx_count: s.tx_count,
            });
            return Some(self.resent(now, seg_no, &s, true));
        }
        None
    }

    /// Receive-buffer starvation (OR3 paper III-B, "the sender blocked by
    /// rwnd while bubbles wait for retransmissions"): checked when the
    /// sender stops sending; lasts until the next ACK or timer.
    fn note_starvation(&mut self, now: Time) {
        if self.starved_since.is_some() {
            return;
        }
        let starved = self.board.sacked_out() > 0
            && self.pipe() < self.win.cwnd
            && self
                .app
                .available(self.snd_nxt, self.snd_una, self.sndbuf_cap())
                > 0
            && self.new_data_len() == 0;
        if starved {
            self.starved_since = Some(now);
        }
    }

    fn close_starvation(&mut self, now: Time) {
        if let Some(t) = self.starved_since.take() {
            self.stats.rcvbuf_starvation += now.saturating_sub(t);
        }
    }

    #[inline]
    fn check_invariants(&self) {
        #[cfg(feature = "invariants")]
        {
            // The recount walks the whole board on every transmission: the
            // property tests' windows (at most 150 segments) afford it; the
            // reproductions' windows (thousands of segments, 25,000 at
            // 1 Gbit/s) made every test build of the workspace, where the
            // feature is on, crawl.
            if self.board.packets_out() <= FULL_CHECK_SEGMENTS {
                if let Err(e) = self.board.check_invariants() {
                    panic!("scoreboard invariant broken: {e}");
                }
            }
            assert!(self.snd_una <= self.snd_nxt);
            assert_eq!(
                self.board.first().map_or(self.snd_nxt, |s| s.seq),
                self.snd_una,
                "scoreboard must start at snd_una"
            );
            // Only a recovery that models an estimate of its own may close
            // the window entirely (ns-2's Sack1, recovery/ns2_sack1.rs).
            assert!(
                self.win.cwnd >= 1 || matches!(self.state, State::Fast { .. }),
                "cwnd fell to zero"
            );
        }
    }
}
