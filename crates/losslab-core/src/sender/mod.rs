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
//!
//! The sender is a folder of rooms, one concern each (docs/ARCHITECTURE.md):
//! - `mod.rs`: `Sender`, its state and its public API;
//! - `config.rs`: `SenderConfig` and the pluggable parts (`Algorithms`);
//! - `ack.rs`: `on_ack`, one ACK as a page of named steps, and the facts
//!   read from it (cumulative, SACK, DSACK, reordering, RTT, delivered);
//! - `recovery.rs`: the recovery state machine (entry, exit, partial ACKs,
//!   undo, F-RTO);
//! - `congestion.rs`: congestion control and cwnd validation on each ACK;
//! - `timeouts.rs`: the RTO, loss probes and the persist timer;
//! - `transmit.rs`: what to send next, pacing, and the segments themselves;
//! - `redundancy.rs`: OR3's opportunistic retransmissions and extra copies;
//! - `application.rs`: the send buffer and the application's writes;
//! - `opening.rs`: the handshake;
//! - `measure.rs`: statistics and measurements that never steer.

mod ack;
mod application;
mod config;
mod congestion;
mod measure;
mod opening;
mod recovery;
mod redundancy;
mod timeouts;
mod transmit;

use crate::app::AppState;
use crate::config::Pacing;
use crate::cwnd_use::CwndUse;
use crate::event::{Event, EventLog, Timed, WindowState};
use crate::frto::Frto;
use crate::handshake::{Handshake, Opening};
use crate::pacing::Pacer;
use crate::rate::RateSampler;
use crate::recovery_log::RecoveryLog;
pub use crate::recovery_log::RecoveryRecord;
use crate::rtt::RttEstimator;
use crate::scoreboard::{Scoreboard, SegMeta, LOST, RETRANS};
use crate::sndbuf::SendBuffer;
use crate::time::Time;
use crate::timers::Deadline;
use crate::window::Window;

pub use config::{Algorithms, ExtensionParams, SenderConfig, EXTENSIONS};
use measure::Measure;
pub use measure::SenderStats;
use redundancy::Replicas;

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

/// How often the `invariants` feature recounts the board. The recount
/// walks every segment in flight, so doing it on every send and ACK made
/// a run's cost grow with its window: a test build's 170-segment HSPA+
/// runs spent three quarters of their time in it, and windows above 256
/// segments went unchecked. Now the recounts spend a budget of segment
/// visits: `START` to begin with, which covers every step of the property
/// tests' flows (at most 150 segments, a few thousand calls), and `EARN`
/// more on each call, so a long run at any window is recounted as often
/// as that pays for (a 25,000-segment board about every 6,250 calls).
/// `EARN` was 16 until the recount still took a quarter of the test
/// build's quick mobile reproduction; at 4 that run's CPU fell to 0.74
/// (docs/BENCHMARKS.md "CI's time").
#[cfg(feature = "invariants")]
struct CheckBudget {
    visits: u64,
}

#[cfg(feature = "invariants")]
impl Default for CheckBudget {
    fn default() -> Self {
        Self {
            visits: Self::START,
        }
    }
}

#[cfg(feature = "invariants")]
impl CheckBudget {
    const START: u64 = 1 << 20;
    const EARN: u64 = 4;

    /// Whether this call recounts a board of `segments`.
    fn due(&mut self, segments: u64) -> bool {
        self.visits += Self::EARN;
        let due = self.visits >= segments;
        if due {
            self.visits -= segments;
        }
        due
    }
}

/// Linux's sysctl_tcp_max_reordering default: the cap on tp->reordering.
const MAX_REORDERING: u64 = 300;

/// The facts of one ACK a congestion controller's context is built from.
#[derive(Clone, Copy)]
struct AckFacts {
    rtt_sample: Option<Time>,
    bytes_acked: u64,
    /// Segments this ACK newly SACKed (Linux FLAG_DATA_SACKED when > 0).
    newly_sacked: u64,
    delivered: u64,
    losses: u64,
    prior_in_flight: u64,
    /// Linux FLAG_RETRANS_DATA_ACKED and FLAG_LOST_RETRANS of this ACK
    /// (RecoveryCtx::retrans_data_acked, lost_retrans).
    retrans_data_acked: bool,
    lost_retrans: bool,
}

/// What `on_ack` read of one ACK (ack.rs), for the steps after it.
#[derive(Clone, Copy)]
struct AckRead {
    prior_una: u64,
    /// Segments outstanding before the ACK (FlightSize for ssthresh).
    prior_out: u64,
    prior_in_flight: u64,
    prior_rwnd: u64,
    /// Below snd_una: says nothing of the window.
    old_ack: bool,
    dsack: bool,
    cum_advanced: bool,
    /// Segments the cumulative ACK removed.
    newly_acked: u64,
    newly_sacked: u64,
    rtt_sample: Option<Time>,
    rtts: AckRtts,
    /// Segments delivered (cumulatively, SACKed, or counted by a duplicate
    /// ACK without SACK).
    delivered: u64,
    /// A duplicate ACK without SACK counted as one delivered segment.
    reno_dup: u64,
    /// The cumulative part acknowledged a segment ever retransmitted
    /// (Linux FLAG_RETRANS_DATA_ACKED).
    retrans_data_acked: bool,
    /// Loss detection marked a retransmission in flight lost (Linux
    /// FLAG_LOST_RETRANS); set after detect_losses().
    lost_retrans: bool,
}

/// The ACK being processed's own RTTs for QARR and BARR
/// (`RecoveryCtx::ack_rtt`, `delivered_rtt`), handed down the ACK's steps
/// into the recovery context: never kept, none outside an ACK.
#[derive(Clone, Copy, Default)]
struct AckRtts {
    /// now - TSecr, whatever Karn's rule says.
    ack: Option<Time>,
    /// From the send time of the latest segment sent once and delivered.
    delivered: Option<Time>,
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

pub struct Sender {
    cfg: SenderConfig,
    /// The handshake while the connection opens (None once established,
    /// or when none is simulated).
    opening: Option<Opening>,
    /// When the handshake completed.
    established_at: Option<Time>,
    alg: Algorithms,
    /// The controller's static answers, asked once.
    cc_caps: CcCaps,
    rec_caps: RecCaps,
    app: AppState,
    /// Linux's send buffer, when modelled.
    sndbuf: Option<SendBuffer>,
    board: Scoreboard,
    rtt: RttEstimator,
    win: Window,
    state: State,
    snd_una: u64,
    snd_nxt: u64,
    tx_order: u64,
    /// Time of the latest transmission (TLPR's T_last and friends).
    last_send: Time,
    peer: Peer,
    dupacks: DupAcks,
    reorder: Reordering,
    rexmit: Rexmit,
    /// The current (or last) reduction that a DSACK may still undo.
    undo: Option<UndoEpisode>,
    /// An F-RTO episode after a timeout (frto.rs).
    frto: Option<Frto>,
    timer: Deadline,
    probes: Probes,
    /// Whether the flow used its cwnd (Linux tcp_cwnd_validate()).
    cwnd_use: CwndUse,
    /// New data went out since the last send burst ended (Linux
    /// tcp_write_xmit()'s sent_pkts).
    sent_new_in_burst: bool,
    /// Delivery-rate sampling, for controllers that ask for it (rate.rs).
    rate: Option<RateSampler>,
    /// Departure times, when the flow paces (pacing.rs).
    pacer: Option<Pacer>,
    /// OR3's extra copies waiting to leave (redundancy.rs).
    replicas: Replicas,
    events: EventLog,
    /// What is measured and never steers (measure.rs).
    measure: Measure,
    #[cfg(feature = "invariants")]
    check: CheckBudget,
}

/// The controller's static answers (`owns_cwnd`, `observes_every_ack`).
#[derive(Clone, Copy, Debug)]
struct CcCaps {
    owns_cwnd: bool,
    observes_acks: bool,
    wants_pacing_rate: bool,
    /// The controller asks tcp_is_cwnd_limited() itself.
    tests_cwnd_limited: bool,
    /// TCP_CONG_RTT_STAMP at this flow's tick (`rtt_sample = "linux-3.2"`).
    rtt_stamp: bool,
}

/// The recovery algorithm's static answers, read once: the sender asked
/// them through its `dyn RecoveryOps` on every ACK or segment, a call
/// apiece for a constant (issue 33).
#[derive(Clone, Copy, Debug)]
struct RecCaps {
    rescue_retransmission: bool,
    entry_on_islost: bool,
    fast_retransmit_below_recover: bool,
}

/// What the peer has told the sender of itself.
#[derive(Clone, Copy, Debug, Default)]
struct Peer {
    /// Peer's receive window, relative to snd_una.
    rwnd: u64,
    /// Largest window the peer has offered (RFC 1122 4.2.3.4's Max(SND.WND)).
    max_rwnd: u64,
    /// Latest TSval seen from the peer, echoed in TSecr.
    ts_recent: Time,
    /// The peer has sent a SACK or DSACK block.
    sack_seen: bool,
}

/// Duplicate ACKs and what they let the sender do.
#[derive(Clone, Copy, Debug, Default)]
struct DupAcks {
    count: u32,
    /// Segments sent by RFC 3042 limited transmit since the cumulative ACK
    /// last advanced: they MUST NOT count in the FlightSize that sets
    /// ssthresh (RFC 5681 section 3.2 step 2).
    limited_transmit_out: u64,
    /// Duplicate ACKs counted as delivered segments when the peer sends no
    /// SACK (Linux tcp_add_reno_sack()), so pipe still falls.
    reno_sacked: u64,
}

/// Reordering seen on this connection.
#[derive(Clone, Copy, Debug, Default)]
struct Reordering {
    /// Reordering has been seen on this connection.
    seen: bool,
    /// Linux tp->reordering (see `DetectCtx::reordering`).
    degree: u32,
}

/// The retransmission variables of RFC 6675 and RFC 6582.
#[derive(Clone, Copy, Debug, Default)]
struct Rexmit {
    /// Partial ACKs (RFC 6582 section 2: new data acknowledged, RecoveryPoint
    /// not reached) in the current fast recovery, for the recovery
    /// algorithm's say on the retransmission timer.
    partial_acks: u64,
    /// RFC 6582 section 4's recover: HighData (snd.nxt) when the last
    /// fast retransmit or timeout began; read only for a recovery
    /// algorithm without `fast_retransmit_below_recover`.
    recover: u64,
    /// RFC 6675 HighRxt and RescueRxt (segment number / byte).
    high_rxt: Option<u64>,
    rescue_rxt: Option<u64>,
    fast_pending: bool,
    /// RFC 6298 (5.4): the RTO's retransmission of the earliest segment
    /// is due, whatever cwnd and pipe say (Linux tcp_retransmit_timer()
    /// retransmits the head directly).
    rto_pending: bool,
}

/// Probes: the zero-window (persist) timer and the tail-loss probes.
#[derive(Clone, Copy, Debug)]
struct Probes {
    persist: Option<Time>,
    /// The probe timer fired: a zero-window probe, or new data if only
    /// cwnd holds it back, is due on the next poll_transmit.
    zero_window_pending: bool,
    /// A loss probe is due on the next poll_transmit (TLP and relatives).
    tlp_pending: bool,
    /// The current TLP episode: one probe per tail.
    tlp: Option<TlpEpisode>,
    /// An RTT sample was taken since the last loss probe (RFC 8985 7.3).
    rtt_since_probe: bool,
    /// The timer policy arms loss probes (`TimerPolicy::arms_probes`):
    /// only then does the timer context carry the state they are gated
    /// on, which costs a look at the scoreboard per send and ACK.
    gated: bool,
    /// The policy reads `TimerCtx::cwnd_room_and_queue`
    /// (`TimerPolicy::reads_cwnd_room`).
    reads_room: bool,
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
            cc_caps: CcCaps {
                owns_cwnd: alg.cc.owns_cwnd(),
                observes_acks: alg.cc.observes_every_ack(),
                wants_pacing_rate: alg.cc.wants_pacing_rate(),
                tests_cwnd_limited: alg.cc.tests_cwnd_limited(),
                rtt_stamp: alg.cc.rtt_stamp(cfg.rto.tick),
            },
            rec_caps: RecCaps {
                rescue_retransmission: alg.recovery.rescue_retransmission(),
                entry_on_islost: alg.recovery.entry_on_islost(),
                fast_retransmit_below_recover: alg.recovery.fast_retransmit_below_recover(),
            },
            app: AppState::new(cfg.app.clone()),
            sndbuf: cfg
                .sndbuf_model
                .map(|m| SendBuffer::new(m, cfg.mss, cfg.init_cwnd)),
            board: Scoreboard::new(),
            rtt: RttEstimator::new(cfg.rto),
            win: Window::new(cfg.init_cwnd),
            state: State::Open,
            snd_una: 0,
            snd_nxt: 0,
            tx_order: 0,
            last_send: 0,
            peer: Peer {
                rwnd: cfg.initial_rwnd,
                max_rwnd: cfg.initial_rwnd,
                ts_recent: 0,
                sack_seen: false,
            },
            dupacks: DupAcks::default(),
            reorder: Reordering::default(),
            rexmit: Rexmit::default(),
            undo: None,
            frto: None,
            timer: None,
            probes: Probes {
                persist: None,
                zero_window_pending: false,
                tlp_pending: false,
                tlp: None,
                rtt_since_probe: true,
                gated: alg.timers.arms_probes(),
                reads_room: alg.timers.reads_cwnd_room(),
            },
            cwnd_use: CwndUse::default(),
            sent_new_in_burst: false,
            rate: alg.cc.wants_rate_samples().then(RateSampler::new),
            pacer: match cfg.pacing {
                Pacing::Rate => Some(Pacer::new(cfg.pacing_start)),
                Pacing::Auto => alg.cc.pacing_rate().map(|_| Pacer::new(cfg.pacing_start)),
                Pacing::Off => None,
            },
            replicas: Replicas::default(),
            events: EventLog::default(),
            measure: Measure::default(),
            #[cfg(feature = "invariants")]
            check: CheckBudget::default(),
            cfg,
            alg,
        };
        s.rtt.set_factor(s.alg.cc.rto_factor());
        s.app_write(now);
        s
    }

    pub fn set_tracing(&mut self, on: bool) {
        self.events.set_enabled(on);
    }

    pub fn poll_event(&mut self) -> Option<Timed> {
        self.events.pop()
    }

    pub fn stats(&self) -> &SenderStats {
        &self.measure.stats
    }

    /// The first `recovery_log::KEEP` recovery episodes.
    pub fn recoveries(&self) -> &[RecoveryRecord] {
        self.measure.recoveries.kept()
    }

    /// Every recovery episode's count and time, beyond those kept.
    pub fn recovery_log(&self) -> &RecoveryLog {
        &self.measure.recoveries
    }

    pub fn recovery_epoch(&self) -> u64 {
        self.measure.recovery_epoch
    }

    pub fn scoreboard(&self) -> &Scoreboard {
        &self.board
    }

    /// The per-window record cwnd growth is judged by (cwnd_use.rs).
    pub fn cwnd_use(&self) -> CwndUse {
        self.cwnd_use
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
            State::Open if self.dupacks.count > 0 || self.board.sacked_out() > 0 => 1,
            State::Open => 0,
            State::Fast { .. } => 3,
            State::Loss { .. } => 4,
        }
    }

    /// Linux's sacked_out: SACKed segments, or without SACK the duplicate
    /// ACKs counted as delivered segments (tcp_add_reno_sack()).
    pub fn sacked_out(&self) -> u64 {
        self.board.sacked_out() + self.dupacks.reno_sacked
    }

    /// Linux's tp->reordering: DupThresh, or the largest reordering
    /// degree measured since.
    pub fn reordering(&self) -> u32 {
        self.reorder.degree.max(self.cfg.dupthresh)
    }

    /// Reordering has been detected on this connection.
    pub fn reordering_seen(&self) -> bool {
        self.reorder.seen
    }

    /// RFC 6675 pipe, in segments.
    pub fn pipe(&self) -> u64 {
        self.board.pipe().saturating_sub(self.dupacks.reno_sacked)
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

    #[inline]
    fn check_invariants(&mut self) {
        #[cfg(feature = "invariants")]
        {
            if self.check.due(self.board.packets_out()) {
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
