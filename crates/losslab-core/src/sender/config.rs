//! How a sender is set up: its configuration and its pluggable parts
//! (congestion control, recovery, loss detection, timers, redundancy),
//! chosen by name in scenarios.

use crate::app::App;
use crate::cc::{Avoidance, CcParams, CongestionControl, SlowStart};
use crate::config::{
    CwndGrowth, CwndValidation, Pacing, PacingStart, RecoveryExit, RtoConfig, RtoSsthresh,
    RttSampling,
};
use crate::detect::{DetectParams, LossDetector};
use crate::frto::FrtoMode;
use crate::handshake::{Handshake, HandshakeRules};
use crate::recovery::{RecoveryOps, RecoveryParams};
use crate::redundancy::{NoRedundancy, Redundancy};
use crate::sndbuf::LinuxSndbuf;
use crate::timers::{TimerParams, TimerPolicy};

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
    /// Restart the retransmission timer on an ACK that advances nothing
    /// but SACKs an original segment sent before the first outstanding
    /// segment's last transmission (Linux tcp_clean_rtx_queue() since
    /// 3.13, "tcp: do not rearm RTO when future data are sacked": the
    /// sack_rtt_us test). RFC 6298 restarts it only on an ACK of new
    /// data (5.3).
    pub rto_rearm_on_sack: bool,
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
    /// Which segment first moves the departure time (pacing.rs).
    pub pacing_start: PacingStart,
    /// How cwnd growth is gated on use (Linux tcp_is_cwnd_limited()).
    pub cwnd_validation: CwndValidation,
    /// Which RTT samples an ACK yields, and to whom (`rtt_sample`).
    pub rtt_sample: RttSampling,
    /// Whether an ACK that only SACKs may grow cwnd (`cwnd_growth`).
    pub cwnd_growth: CwndGrowth,
    /// Slow start per segment acknowledged or per ACK (`slow_start`).
    pub slow_start: SlowStart,
    /// Congestion avoidance counted per segment or per ACK (`avoidance`).
    pub avoidance: Avoidance,
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
            rto_rearm_on_sack: false,
            restart_after_idle: false,
            handshake: Handshake::None,
            handshake_rules: HandshakeRules::Linux,
            rto_ssthresh: RtoSsthresh::Linux,
            frto: FrtoMode::Off,
            recovery_exit: RecoveryExit::Rfc6582,
            pacing: Pacing::Auto,
            pacing_start: PacingStart::After11,
            cwnd_validation: CwndValidation::Linux,
            rtt_sample: RttSampling::Tsecr,
            cwnd_growth: CwndGrowth::Rfc5681,
            slow_start: SlowStart::PerSegment,
            avoidance: Avoidance::PerSegment,
        }
    }
}

/// Extensions implemented (scenario `extensions = [...]`).
pub const EXTENSIONS: &[&str] = &["opportunistic", "sndbuf-factor-3", "hack1", "or3"];

/// What an extension may need beside its name.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExtensionParams {
    pub dupthresh: u32,
    /// `hack1`: the count starts over after firing (detect/hack1.rs).
    pub hack1_refire: bool,
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
                self.detect = Box::new(
                    crate::detect::Hack1::new(self.detect, p.dupthresh).refire(p.hack1_refire),
                );
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
