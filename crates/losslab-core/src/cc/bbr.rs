//! BBR v1 congestion control, ported function by function from Linux
//! net/ipv4/tcp_bbr.c (as of 6.x; Cardwell et al., "BBR: Congestion-Based
//! Congestion Control", ACM Queue 14(5), 2016).
//!
//! On every ACK (`cong_control`, Linux bbr_main()) BBR updates its model
//! of the path, a windowed max of delivery-rate samples (10 packet-timed
//! rounds) and a windowed min RTT (10 s), then sets the pacing rate to
//! pacing_gain x bw and cwnd to cwnd_gain x bw x min_rtt. Losses do not
//! shrink the model; they only cost cwnd the segments marked lost, with
//! packet conservation for the first round of a recovery, and a
//! long-term sampler detects token-bucket policers.
//!
//! Units and scaling. Linux's fixed point is kept as it is, in u64/u128
//! instead of u32 so nothing wraps: bandwidth is segments per microsecond
//! << BW_SCALE (24), gains are fractions << BBR_SCALE (8), min_rtt is in
//! microseconds (the ns sample truncated, as Linux's tcp_clock_us()), and
//! the pacing rate is kept in bytes per second (sk_pacing_rate) and
//! handed to the sender in bits per second. Two places use our finer
//! clock: a bandwidth sample divides by the interval in nanoseconds
//! (delivered x BW_UNIT x 1000 / interval_ns, the same unit without the
//! microsecond truncation), and timestamps compared with the 10 s and
//! 200 ms windows are nanoseconds rather than jiffies. Every step is
//! integer arithmetic; the only randomness (bbr_cycle_rand) comes from a
//! splitmix64 seeded by `CcParams::seed`.
//!
//! What the engine cannot express, and what stands in for it:
//! - rs->is_ack_delayed is not sampled: taken as false (every RTT sample
//!   may refresh an expired min_rtt).
//! - tp->tcp_wstamp_ns (the pacer's next departure time) is not visible:
//!   bbr_packets_in_net_at_edt() takes EDT = now, so nothing is credited
//!   as drained before the next departure.
//! - BBR's PROBE_RTT writes tp->app_limited; our sampler is the engine's,
//!   so BBR keeps the same bubble itself and treats samples of segments
//!   sent inside it as app-limited (`ProbeRttBubble`).
//! - Linux bbr_init() runs after the handshake with srtt, mss and the
//!   initial cwnd known; ours runs at construction, so the first pacing
//!   rate assumes TCP_INIT_CWND = 10, a 1448-byte MSS and Linux's 1 ms
//!   default RTT, and the real srtt and cwnd take over on the first ACK
//!   (the has_seen_rtt path of bbr_set_pacing_rate()).
//! - CA_EVENT_TX_START gives no window, so bbr_check_probe_rtt_done()
//!   from it restores cwnd on the next ACK; tp->app_limited there is the
//!   value the last ACK's rate sample carried.
//! - bbr_set_state(TCP_CA_Loss) reads tp->delivered and tp->lost as the
//!   last ACK's sample left them: the segments the RTO itself marks lost
//!   reach BBR with the next sample.
//! - tp->snd_cwnd_clamp and sk_max_pacing_rate are unlimited (Linux
//!   defaults); bbr_tso_segs_goal() caps bursts at 64 KB less a header
//!   (GSO_LEGACY_MAX_SIZE, as pacing.rs's TSO autosizing) and at 127
//!   segments (`0x7FU`).

use super::{CaState, CcCtx, CongestionControl};
use crate::minmax::MaxFilter;
use crate::rate::RateSample;
use crate::time::{mul_div, Time, MS, SEC, US};
use crate::window::Window;

/// Bandwidth unit: segments per microsecond << 24 (Linux BW_SCALE).
pub const BW_SCALE: u32 = 24;
pub const BW_UNIT: u64 = 1 << BW_SCALE;
/// Gains are fractions << 8 (Linux BBR_SCALE).
pub const BBR_SCALE: u32 = 8;
pub const BBR_UNIT: u64 = 1 << BBR_SCALE;

/// The state machine (Linux enum bbr_mode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Ramp up the sending rate rapidly to fill the pipe.
    Startup,
    /// Drain the queue STARTUP created.
    Drain,
    /// Discover and share bandwidth: pace around the estimate.
    ProbeBw,
    /// Cut inflight to the minimum to measure min_rtt.
    ProbeRtt,
}

/// Phases in a pacing-gain cycle.
const CYCLE_LEN: usize = 8;
/// Window of the bandwidth filter, rounds (bbr_bw_rtts).
const BW_RTTS: u64 = CYCLE_LEN as u64 + 2;
/// Window of the min_rtt filter (bbr_min_rtt_win_sec).
const MIN_RTT_WIN: Time = 10 * SEC;
/// Least time at 4 segments in PROBE_RTT (bbr_probe_rtt_mode_ms).
const PROBE_RTT_MODE: Time = 200 * MS;
/// Below this pacing rate, bits/s, bursts may be a single segment
/// (bbr_min_tso_rate).
const MIN_TSO_RATE: u64 = 1_200_000;
/// Pace about 1% below the estimate to keep the queue low
/// (bbr_pacing_margin_percent).
const PACING_MARGIN_PERCENT: u64 = 1;
/// 2/ln 2, the smallest gain that doubles the sending rate every round
/// like slow start: 256 x 2885 / 1000 + 1 = 738 + 1 = 739 (2.887).
pub const HIGH_GAIN: u64 = BBR_UNIT * 2885 / 1000 + 1;
/// 1/high_gain, to drain STARTUP's queue in about a round: 88 (0.344).
pub const DRAIN_GAIN: u64 = BBR_UNIT * 1000 / 2885;
/// Steady-state cwnd gain, to tolerate delayed and stretched ACKs.
pub const CWND_GAIN: u64 = BBR_UNIT * 2;
/// PROBE_BW's pacing gains: probe at 1.25, drain at 0.75, cruise at 1.
pub const PACING_GAIN: [u64; CYCLE_LEN] = [
    BBR_UNIT * 5 / 4,
    BBR_UNIT * 3 / 4,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
];
/// The gain cycle starts at a random one of this many phases
/// (bbr_cycle_rand).
const CYCLE_RAND: u64 = 7;
/// Fewest segments BBR keeps in flight (bbr_cwnd_min_target).
pub const CWND_MIN_TARGET: u64 = 4;
/// STARTUP is over after 3 rounds without 25% bandwidth growth
/// (bbr_full_bw_thresh, bbr_full_bw_cnt).
const FULL_BW_THRESH: u64 = BBR_UNIT * 5 / 4;
const FULL_BW_CNT: u32 = 3;
/// Long-term (policer) sampling: intervals of at least 4 rounds
/// (bbr_lt_intvl_min_rtts) with lost/delivered >= 50/256 = 19.5%
/// (bbr_lt_loss_thresh); two intervals are consistent when their bw
/// differ by at most 1/8 (bbr_lt_bw_ratio) or 4 kbit/s (bbr_lt_bw_diff,
/// bytes/s); then lt_bw is used for 48 rounds (bbr_lt_bw_max_rtts).
const LT_INTVL_MIN_RTTS: u32 = 4;
const LT_LOSS_THRESH: u64 = 50;
const LT_BW_RATIO: u64 = BBR_UNIT / 8;
const LT_BW_DIFF: u64 = 4000 / 8;
const LT_BW_MAX_RTTS: u32 = 48;
/// ACK aggregation (bbr_extra_acked_gain, bbr_extra_acked_win_rtts,
/// bbr_ack_epoch_acked_reset_thresh, bbr_extra_acked_max_us).
const EXTRA_ACKED_GAIN: u64 = BBR_UNIT;
const EXTRA_ACKED_WIN_RTTS: u32 = 5;
const ACK_EPOCH_ACKED_RESET_THRESH: u64 = 1 << 20;
const EXTRA_ACKED_MAX_US: u64 = 100 * 1000;
/// Linux TCP_INIT_CWND.
const TCP_INIT_CWND: u64 = 10;
/// GSO_LEGACY_MAX_SIZE - 1 - MAX_TCP_HEADER (320 on x86-64), the burst
/// cap of bbr_tso_segs_generic().
const TSO_MAX_BYTES: u64 = 65_536 - 1 - 320;
/// bbr_tso_segs_goal()'s `0x7FU` cap on the goal, segments.
const TSO_SEGS_GOAL_MAX: u64 = 0x7F;
/// sk_pacing_shift: TSO bursts hold about 1 ms (2^-10 s) of data.
const PACING_SHIFT: u32 = 10;
/// MSS assumed until the first ACK tells the real one.
const DEFAULT_MSS: u32 = 1448;
/// min_rtt_us before any sample (Linux ~0U).
const NO_RTT: u64 = u64::MAX;

/// What Linux reads from the socket (tp->delivered, delivered_mstamp,
/// lost, app_limited), as of the last rate sample.
#[derive(Clone, Copy, Debug, Default)]
struct Totals {
    delivered: u64,
    delivered_time: Time,
    lost: u64,
    app_limited: bool,
}

/// The app-limited bubble PROBE_RTT sets (Linux writes tp->app_limited =
/// delivered + inflight): segments sent from `start` (tp->delivered when
/// set) until delivered passes `end` are sampled as app-limited.
#[derive(Clone, Copy, Debug)]
struct ProbeRttBubble {
    start: u64,
    end: u64,
    active: bool,
}

/// One ACK's inputs in Linux's terms (struct rate_sample plus the
/// tcp_sock fields bbr_main() reads).
#[derive(Clone, Copy, Debug)]
struct Rs {
    now: Time,
    /// Valid delivered count (Linux rs->delivered >= 0 and interval > 0).
    delivered: Option<u64>,
    interval: Time,
    prior_delivered: u64,
    acked_sacked: u64,
    losses: u64,
    is_app_limited: bool,
    /// Linux rs->delivered > 0, including samples whose interval fell
    /// below min_rtt (there Linux keeps delivered and voids the interval).
    delivered_any: bool,
    rtt_us: Option<u64>,
    prior_in_flight: u64,
    in_flight: u64,
    state: CaState,
    srtt: Option<Time>,
}

/// Which samples refresh min_rtt and its stamp (`[flow.bbr]
/// min_rtt_refresh`): bbr_update_min_rtt()'s comparison, which Linux
/// changed in 5.10 (upstream commit 1b9e2a8c99a5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MinRttRefresh {
    /// Linux 5.10 and later: `rs->rtt_us < bbr->min_rtt_us`.
    #[default]
    Lower,
    /// Linux 4.9 to 5.9: `rs->rtt_us <= bbr->min_rtt_us`, so a sample
    /// equal to the minimum postpones PROBE_RTT too.
    LowerOrEqual,
}

impl MinRttRefresh {
    pub const NAMES: &'static [&'static str] = &["lower", "lower-or-equal"];

    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "lower" => Some(MinRttRefresh::Lower),
            "lower-or-equal" => Some(MinRttRefresh::LowerOrEqual),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            MinRttRefresh::Lower => "lower",
            MinRttRefresh::LowerOrEqual => "lower-or-equal",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Bbr {
    min_rtt_us: u64,
    min_rtt_refresh: MinRttRefresh,
    min_rtt_stamp: Time,
    /// End of PROBE_RTT (probe_rtt_done_stamp; None = 0).
    probe_rtt_done_stamp: Option<Time>,
    /// Max recent delivery rate, BW_UNIT, over round counts.
    bw: MaxFilter,
    rtt_cnt: u64,
    next_rtt_delivered: u64,
    cycle_mstamp: Time,
    mode: Mode,
    prev_ca_state: CaState,
    packet_conservation: bool,
    round_start: bool,
    idle_restart: bool,
    probe_rtt_round_done: bool,
    lt_is_sampling: bool,
    lt_rtt_cnt: u32,
    lt_use_bw: bool,
    lt_bw: u64,
    lt_last_delivered: u64,
    /// Milliseconds, as Linux.
    lt_last_stamp: u64,
    lt_last_lost: u64,
    pacing_gain: u64,
    cwnd_gain: u64,
    full_bw_reached: bool,
    full_bw_cnt: u32,
    cycle_idx: usize,
    has_seen_rtt: bool,
    prior_cwnd: u64,
    full_bw: u64,
    ack_epoch_mstamp: Time,
    extra_acked: [u64; 2],
    ack_epoch_acked: u64,
    extra_acked_win_rtts: u32,
    extra_acked_win_idx: usize,
    /// sk_pacing_rate, bytes per second.
    pacing_rate: u64,
    mss: u32,
    tp: Totals,
    bubble: Option<ProbeRttBubble>,
    /// bbr_check_probe_rtt_done() ran from TX_START, without a window.
    restore_cwnd_pending: bool,
    rng: u64,
    /// Times PROBE_RTT was entered (for tests and traces).
    probe_rtt_count: u64,
}

impl Bbr {
    /// Linux bbr_init(); `seed` drives the random gain-cycle phase.
    pub fn new(seed: u64) -> Self {
        let mut b = Bbr {
            min_rtt_us: NO_RTT,
            min_rtt_refresh: MinRttRefresh::Lower,
            min_rtt_stamp: 0,
            probe_rtt_done_stamp: None,
            bw: MaxFilter::max(BW_RTTS),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            cycle_mstamp: 0,
            mode: Mode::Startup,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            round_start: false,
            idle_restart: false,
            probe_rtt_round_done: false,
            lt_is_sampling: false,
            lt_rtt_cnt: 0,
            lt_use_bw: false,
            lt_bw: 0,
            lt_last_delivered: 0,
            lt_last_stamp: 0,
            lt_last_lost: 0,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            full_bw_reached: false,
            full_bw_cnt: 0,
            cycle_idx: 0,
            has_seen_rtt: false,
            prior_cwnd: 0,
            full_bw: 0,
            ack_epoch_mstamp: 0,
            extra_acked: [0; 2],
            ack_epoch_acked: 0,
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
            pacing_rate: 0,
            mss: DEFAULT_MSS,
            tp: Totals::default(),
            bubble: None,
            restore_cwnd_pending: false,
            rng: seed,
            probe_rtt_count: 0,
        };
        b.init_pacing_rate_from_rtt(TCP_INIT_CWND, None);
        b.reset_lt_bw_sampling();
        b
    }

    /// bbr_update_min_rtt()'s comparison as Linux before 5.10 or after.
    pub fn with_min_rtt_refresh(mut self, r: MinRttRefresh) -> Self {
        self.min_rtt_refresh = r;
        self
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }
    pub fn pacing_gain(&self) -> u64 {
        self.pacing_gain
    }
    pub fn cwnd_gain(&self) -> u64 {
        self.cwnd_gain
    }
    /// The model's bandwidth (lt_bw when policed), segments/us << 24.
    pub fn bandwidth(&self) -> u64 {
        self.bw()
    }
    /// min_rtt, microseconds (None before a sample).
    pub fn min_rtt_us(&self) -> Option<u64> {
        (self.min_rtt_us != NO_RTT).then_some(self.min_rtt_us)
    }
    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }
    pub fn cycle_idx(&self) -> usize {
        self.cycle_idx
    }
    pub fn prior_cwnd(&self) -> u64 {
        self.prior_cwnd
    }
    pub fn lt_use_bw(&self) -> bool {
        self.lt_use_bw
    }
    pub fn lt_bw(&self) -> u64 {
        self.lt_bw
    }
    /// How many times PROBE_RTT was entered.
    pub fn probe_rtt_count(&self) -> u64 {
        self.probe_rtt_count
    }

    /// get_random_u32_below(n) (draw.rs).
    fn random_below(&mut self, n: u64) -> u64 {
        crate::draw::below(&mut self.rng, n)
    }

    /// bbr_max_bw().
    fn max_bw(&self) -> u64 {
        self.bw.get().unwrap_or(0)
    }

    /// bbr_bw(): the policed rate while it is in use.
    fn bw(&self) -> u64 {
        if self.lt_use_bw {
            self.lt_bw
        } else {
            self.max_bw()
        }
    }

    /// bbr_extra_acked(): max extra acked over the last 5-10 rounds.
    fn extra_acked(&self) -> u64 {
        self.extra_acked[0].max(self.extra_acked[1])
    }

    /// bbr_rate_bytes_per_sec(): rate x mss x gain, less the pacing
    /// margin, in bytes per second.
    fn rate_bytes_per_sec(&self, rate: u64, gain: u64) -> u64 {
        let mut r = rate as u128 * self.mss as u128;
        r *= gain as u128;
        r >>= BBR_SCALE;
        r *= (1_000_000 / 100 * (100 - PACING_MARGIN_PERCENT)) as u128;
        (r >> BW_SCALE) as u64
    }

    /// bbr_bw_to_pacing_rate() (sk_max_pacing_rate is unlimited).
    fn bw_to_pacing_rate(&self, bw: u64, gain: u64) -> u64 {
        self.rate_bytes_per_sec(bw, gain)
    }

    /// bbr_init_pacing_rate_from_rtt(): high_gain x cwnd / srtt, or over
    /// a nominal 1 ms before any RTT sample.
    // Out of line: the modern-stack benchmark (m100) seldom or never runs
    // it, and inlined it spread the hot path's code over more cache lines;
    // where a run takes it per packet, it adds a call (issue 33,
    // docs/BENCHMARKS.md).
    #[inline(never)]
    fn init_pacing_rate_from_rtt(&mut self, cwnd: u64, srtt: Option<Time>) {
        let rtt_us = match srtt {
            Some(s) => {
                self.has_seen_rtt = true;
                (s / US).max(1)
            }
            None => 1000,
        };
        let bw = cwnd * BW_UNIT / rtt_us;
        self.pacing_rate = self.bw_to_pacing_rate(bw, HIGH_GAIN);
    }

    /// bbr_set_pacing_rate(): never slow down before the pipe is full.
    fn set_pacing_rate(&mut self, bw: u64, gain: u64, cwnd: u64, srtt: Option<Time>) {
        let rate = self.bw_to_pacing_rate(bw, gain);
        if !self.has_seen_rtt && srtt.is_some() {
            self.init_pacing_rate_from_rtt(cwnd, srtt);
        }
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// bbr_tso_segs_goal() (net/ipv4/tcp_bbr.c, Linux 6.x): segments of a
    /// burst at the pacing rate, `min(segs, 0x7FU)`: the kernel keeps the
    /// goal within 7 bits, which binds only when the 65,215-byte cap
    /// holds more than 127 segments (an MSS under 514 bytes).
    fn tso_segs_goal(&self) -> u64 {
        let bytes = (self.pacing_rate >> PACING_SHIFT).min(TSO_MAX_BYTES);
        (bytes / self.mss.max(1) as u64)
            .max(self.min_tso_segs() as u64)
            .min(TSO_SEGS_GOAL_MAX)
    }

    /// bbr_save_cwnd(): the last known good cwnd, kept across recovery
    /// and PROBE_RTT.
    // Out of line: the modern-stack benchmark (m100) seldom or never runs
    // it, and inlined it spread the hot path's code over more cache lines;
    // where a run takes it per packet, it adds a call (issue 33,
    // docs/BENCHMARKS.md).
    #[inline(never)]
    fn save_cwnd(&mut self, cwnd: u64) {
        if self.prev_ca_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(cwnd);
        }
    }

    /// bbr_bdp(): ceil(bw x min_rtt x gain), segments.
    fn bdp(&self, bw: u64, gain: u64) -> u64 {
        if self.min_rtt_us == NO_RTT {
            return TCP_INIT_CWND;
        }
        let w = bw as u128 * self.min_rtt_us as u128;
        // Gain applied, BW_SCALE removed, rounded up (a rounded-down BDP
        // would feed back into ever smaller estimates).
        ((w * gain as u128) >> BBR_SCALE).div_ceil(BW_UNIT as u128) as u64
    }

    /// bbr_quantization_budget(): room for three full bursts, an even
    /// cwnd for delayed ACKs, and 2 more while probing so a small BDP
    /// still gets above it.
    fn quantization_budget(&self, cwnd: u64) -> u64 {
        let mut cwnd = cwnd + 3 * self.tso_segs_goal();
        cwnd = (cwnd + 1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            cwnd += 2;
        }
        cwnd
    }

    /// bbr_inflight().
    fn inflight(&self, bw: u64, gain: u64) -> u64 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// bbr_packets_in_net_at_edt(). The sender's next departure time is
    /// not visible here: EDT = now, so nothing drains before it.
    fn packets_in_net_at_edt(&self, inflight_now: u64) -> u64 {
        let edt_minus_now_us: u64 = 0;
        let interval_delivered = (self.bw() * edt_minus_now_us) >> BW_SCALE;
        let mut inflight_at_edt = inflight_now;
        if self.pacing_gain > BBR_UNIT {
            inflight_at_edt += self.tso_segs_goal();
        }
        inflight_at_edt.saturating_sub(interval_delivered)
    }

    /// bbr_ack_aggregation_cwnd(): extra cwnd for ACK aggregation, at
    /// most 100 ms at bw.
    fn ack_aggregation_cwnd(&self) -> u64 {
        if EXTRA_ACKED_GAIN == 0 || !self.full_bw_reached {
            return 0;
        }
        let max_aggr_cwnd = self.bw() * EXTRA_ACKED_MAX_US / BW_UNIT;
        let aggr_cwnd = (EXTRA_ACKED_GAIN * self.extra_acked()) >> BBR_SCALE;
        aggr_cwnd.min(max_aggr_cwnd)
    }

    /// bbr_set_cwnd_to_recover_or_restore(): cwnd less this ACK's losses;
    /// packet conservation in the first round of recovery; the cwnd from
    /// before recovery back on leaving it. Returns (conserving, cwnd).
    fn set_cwnd_to_recover_or_restore(&mut self, rs: &Rs, acked: u64, cwnd: u64) -> (bool, u64) {
        let prev_state = self.prev_ca_state;
        let state = rs.state;
        let mut cwnd = cwnd;
        // An ACK for P segments releases at most 2P: losses come off
        // here, bbr_set_cwnd() then slow-starts back toward the target.
        if rs.losses > 0 {
            cwnd = cwnd.saturating_sub(rs.losses).max(1);
        }
        if state == CaState::Recovery && prev_state != CaState::Recovery {
            // First round of recovery: packet conservation, and the round
            // starts now.
            self.packet_conservation = true;
            self.next_rtt_delivered = self.tp.delivered;
            // Cut cwnd the application, TSQ or TSO deferral left unused.
            cwnd = rs.in_flight + acked;
        } else if prev_state >= CaState::Recovery && state < CaState::Recovery {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            return (true, cwnd.max(rs.in_flight + acked));
        }
        (false, cwnd)
    }

    /// bbr_set_cwnd(): slow-start toward the target, or snap down to it
    /// once the pipe was full; 4 segments in PROBE_RTT.
    fn set_cwnd(&mut self, w: &mut Window, rs: &Rs, acked: u64, bw: u64, gain: u64) {
        let mut cwnd = w.cwnd;
        if acked > 0 {
            let (conserving, c) = self.set_cwnd_to_recover_or_restore(rs, acked, cwnd);
            cwnd = c;
            if !conserving {
                let mut target = self.bdp(bw, gain);
                target += self.ack_aggregation_cwnd();
                target = self.quantization_budget(target);
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || self.tp.delivered < TCP_INIT_CWND {
                    cwnd += acked;
                }
                cwnd = cwnd.max(CWND_MIN_TARGET);
            }
        }
        w.cwnd = cwnd;
        if self.mode == Mode::ProbeRtt {
            w.cwnd = w.cwnd.min(CWND_MIN_TARGET);
        }
    }

    /// bbr_is_next_cycle_phase(): a phase lasts min_rtt, and a probing
    /// phase until inflight reached 1.25 BDP (or a loss), a draining one
    /// until inflight fell to the BDP.
    fn is_next_cycle_phase(&self, rs: &Rs) -> bool {
        let is_full_length = self.min_rtt_us != NO_RTT
            && self.tp.delivered_time.saturating_sub(self.cycle_mstamp) / US > self.min_rtt_us;
        if self.pacing_gain == BBR_UNIT {
            return is_full_length;
        }
        let inflight = self.packets_in_net_at_edt(rs.prior_in_flight);
        let bw = self.max_bw();
        if self.pacing_gain > BBR_UNIT {
            return is_full_length
                && (rs.losses > 0 || inflight >= self.inflight(bw, self.pacing_gain));
        }
        is_full_length || inflight <= self.inflight(bw, BBR_UNIT)
    }

    /// bbr_advance_cycle_phase().
    fn advance_cycle_phase(&mut self) {
        self.cycle_idx = (self.cycle_idx + 1) & (CYCLE_LEN - 1);
        self.cycle_mstamp = self.tp.delivered_time;
    }

    /// bbr_update_cycle_phase().
    fn update_cycle_phase(&mut self, rs: &Rs) {
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(rs) {
            self.advance_cycle_phase();
        }
    }

    /// bbr_reset_probe_bw_mode(): a random phase other than the 0.75 one.
    // Out of line: the modern-stack benchmark (m100) seldom or never runs
    // it, and inlined it spread the hot path's code over more cache lines;
    // where a run takes it per packet, it adds a call (issue 33,
    // docs/BENCHMARKS.md).
    #[inline(never)]
    fn reset_probe_bw_mode(&mut self) {
        self.mode = Mode::ProbeBw;
        self.cycle_idx = CYCLE_LEN - 1 - self.random_below(CYCLE_RAND) as usize;
        self.advance_cycle_phase();
    }

    /// bbr_reset_mode().
    fn reset_mode(&mut self) {
        if !self.full_bw_reached {
            self.mode = Mode::Startup;
        } else {
            self.reset_probe_bw_mode();
        }
    }

    /// bbr_reset_lt_bw_sampling_interval().
    fn reset_lt_bw_sampling_interval(&mut self) {
        self.lt_last_stamp = self.tp.delivered_time / MS;
        self.lt_last_delivered = self.tp.delivered;
        self.lt_last_lost = self.tp.lost;
        self.lt_rtt_cnt = 0;
    }

    /// bbr_reset_lt_bw_sampling().
    fn reset_lt_bw_sampling(&mut self) {
        self.lt_bw = 0;
        self.lt_use_bw = false;
        self.lt_is_sampling = false;
        self.reset_lt_bw_sampling_interval();
    }

    /// bbr_lt_bw_interval_done(): two consistent lossy intervals mean a
    /// policer; use their average.
    // Out of line: the modern-stack benchmark (m100) seldom or never runs
    // it, and inlined it spread the hot path's code over more cache lines;
    // where a run takes it per packet, it adds a call (issue 33,
    // docs/BENCHMARKS.md).
    #[inline(never)]
    fn lt_bw_interval_done(&mut self, bw: u64) {
        if self.lt_bw != 0 {
            let diff = bw.abs_diff(self.lt_bw);
            if diff * BBR_UNIT <= LT_BW_RATIO * self.lt_bw
                || self.rate_bytes_per_sec(diff, BBR_UNIT) <= LT_BW_DIFF
            {
                self.lt_bw = (bw + self.lt_bw) >> 1;
                self.lt_use_bw = true;
                self.pacing_gain = BBR_UNIT;
                self.lt_rtt_cnt = 0;
                return;
            }
        }
        self.lt_bw = bw;
        self.reset_lt_bw_sampling_interval();
    }

    /// bbr_lt_bw_sampling(): the long-term (policer) estimator.
    fn lt_bw_sampling(&mut self, losses: u64, is_app_limited: bool) {
        if self.lt_use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt_rtt_cnt += 1;
                if self.lt_rtt_cnt >= LT_BW_MAX_RTTS {
                    self.reset_lt_bw_sampling();
                    self.reset_probe_bw_mode();
                }
            }
            return;
        }
        // Start at the first loss, once the policer's tokens are gone.
        if !self.lt_is_sampling {
            if losses == 0 {
                return;
            }
            self.reset_lt_bw_sampling_interval();
            self.lt_is_sampling = true;
        }
        if is_app_limited {
            self.reset_lt_bw_sampling();
            return;
        }
        if self.round_start {
            self.lt_rtt_cnt += 1;
        }
        if self.lt_rtt_cnt < LT_INTVL_MIN_RTTS {
            return;
        }
        if self.lt_rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            self.reset_lt_bw_sampling();
            return;
        }
        // End the interval on a loss: the tokens were exhausted.
        if losses == 0 {
            return;
        }
        let lost = self.tp.lost - self.lt_last_lost;
        let delivered = self.tp.delivered - self.lt_last_delivered;
        if delivered == 0 || (lost << BBR_SCALE) < LT_LOSS_THRESH * delivered {
            return;
        }
        let t = (self.tp.delivered_time / MS) as i64 - self.lt_last_stamp as i64;
        if t < 1 {
            return;
        }
        if t as u64 >= u32::MAX as u64 / 1000 {
            self.reset_lt_bw_sampling();
            return;
        }
        let bw = delivered * BW_UNIT / (t as u64 * 1000);
        self.lt_bw_interval_done(bw);
    }

    /// bbr_update_bw(): round counting and the max filter.
    fn update_bw(&mut self, rs: &Rs) {
        self.round_start = false;
        let Some(delivered) = rs.delivered.filter(|_| rs.interval > 0) else {
            return;
        };
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = self.tp.delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_bw_sampling(rs.losses, rs.is_app_limited);
        let bw = mul_div(delivered, BW_UNIT * 1000, rs.interval);
        // App-limited samples only when they are no lower than the model.
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw.update(self.rtt_cnt, bw);
        }
    }

    /// bbr_update_ack_aggregation(): the windowed max of data ACKed
    /// beyond what bw predicts over the epoch.
    fn update_ack_aggregation(&mut self, rs: &Rs, cwnd: u64) {
        if EXTRA_ACKED_GAIN == 0
            || rs.acked_sacked == 0
            || rs.delivered.is_none()
            || rs.interval == 0
        {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1f);
            if self.extra_acked_win_rtts >= EXTRA_ACKED_WIN_RTTS {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx ^= 1;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        let epoch_us = self.tp.delivered_time.saturating_sub(self.ack_epoch_mstamp) / US;
        let mut expected_acked = (self.bw() as u128 * epoch_us as u128 / BW_UNIT as u128) as u64;
        if self.ack_epoch_acked <= expected_acked
            || self.ack_epoch_acked + rs.acked_sacked >= ACK_EPOCH_ACKED_RESET_THRESH
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_mstamp = self.tp.delivered_time;
            expected_acked = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + rs.acked_sacked).min(0xfffff);
        let extra = self
            .ack_epoch_acked
            .saturating_sub(expected_acked)
            .min(cwnd);
        let slot = &mut self.extra_acked[self.extra_acked_win_idx];
        if extra > *slot {
            *slot = extra;
        }
    }

    /// bbr_check_full_bw_reached(): STARTUP filled the pipe when three
    /// rounds in a row grew bw by less than 25%.
    fn check_full_bw_reached(&mut self, rs: &Rs) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let bw_thresh = (self.full_bw * FULL_BW_THRESH) >> BBR_SCALE;
        if self.max_bw() >= bw_thresh {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_CNT;
    }

    /// bbr_check_drain(): STARTUP -> DRAIN -> PROBE_BW once inflight is
    /// down to the BDP.
    fn check_drain(&mut self, w: &mut Window, rs: &Rs) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            w.ssthresh = self.inflight(self.max_bw(), BBR_UNIT);
        }
        if self.mode == Mode::Drain
            && self.packets_in_net_at_edt(rs.in_flight) <= self.inflight(self.max_bw(), BBR_UNIT)
        {
            self.reset_probe_bw_mode();
        }
    }

    /// bbr_check_probe_rtt_done(): after 200 ms and a round at 4
    /// segments, restore cwnd and go back to STARTUP or PROBE_BW.
    // Out of line: the modern-stack benchmark (m100) seldom or never runs
    // it, and inlined it spread the hot path's code over more cache lines;
    // where a run takes it per packet, it adds a call (issue 33,
    // docs/BENCHMARKS.md).
    #[inline(never)]
    fn check_probe_rtt_done(&mut self, now: Time, cwnd: Option<&mut u64>) {
        if self.probe_rtt_done_stamp.is_none_or(|d| now <= d) {
            return;
        }
        self.min_rtt_stamp = now;
        match cwnd {
            Some(c) => *c = (*c).max(self.prior_cwnd),
            None => self.restore_cwnd_pending = true,
        }
        self.reset_mode();
    }

    /// bbr_update_min_rtt(): the 10 s min filter and PROBE_RTT.
    fn update_min_rtt(&mut self, w: &mut Window, rs: &Rs) {
        let now = rs.now;
        let filter_expired = now > self.min_rtt_stamp + MIN_RTT_WIN;
        // rs->is_ack_delayed is not sampled by the engine: false.
        let is_ack_delayed = false;
        if let Some(rtt_us) = rs.rtt_us {
            // bbr_update_min_rtt() (net/ipv4/tcp_bbr.c, Linux 5.10 and
            // every 6.x): `rs->rtt_us < bbr->min_rtt_us`. Only a lower
            // sample postpones PROBE_RTT: with `<=` (before upstream
            // commit 1b9e2a8c99a5, "tcp: only postpone PROBE_RTT if RTT
            // is < current min_rtt estimate") samples that merely repeat
            // the minimum, as ms-granular timestamps during recovery do,
            // kept a flow out of PROBE_RTT for good. Linux 4.9-5.9 had
            // `<=` (`MinRttRefresh::LowerOrEqual`).
            let lower = match self.min_rtt_refresh {
                MinRttRefresh::Lower => rtt_us < self.min_rtt_us,
                MinRttRefresh::LowerOrEqual => rtt_us <= self.min_rtt_us,
            };
            if lower || (filter_expired && !is_ack_delayed) {
                self.min_rtt_us = rtt_us;
                self.min_rtt_stamp = now;
            }
        }
        if PROBE_RTT_MODE > 0 && filter_expired && !self.idle_restart && self.mode != Mode::ProbeRtt
        {
            self.mode = Mode::ProbeRtt;
            self.probe_rtt_count += 1;
            self.save_cwnd(w.cwnd);
            self.probe_rtt_done_stamp = None;
        }
        if self.mode == Mode::ProbeRtt {
            self.probe_rtt(w, rs);
        }
        // Restart after idle ends with the first S/ACK of new data.
        if rs.delivered_any {
            self.idle_restart = false;
        }
    }

    /// bbr_update_min_rtt()'s PROBE_RTT part: hold the flight at
    /// CWND_MIN_TARGET for PROBE_RTT_MODE and a round.
    // Out of line: the modern-stack benchmark (m100) seldom or never runs
    // it, and inlined it spread the hot path's code over more cache lines;
    // where a run takes it per packet, it adds a call (issue 33,
    // docs/BENCHMARKS.md).
    #[inline(never)]
    fn probe_rtt(&mut self, w: &mut Window, rs: &Rs) {
        let now = rs.now;
        // Ignore low-rate samples: tp->app_limited = delivered +
        // inflight (kept here, see ProbeRttBubble).
        let end = (self.tp.delivered + rs.in_flight).max(1);
        let start = match self.bubble {
            Some(b) if b.active => b.start,
            _ => self.tp.delivered,
        };
        self.bubble = Some(ProbeRttBubble {
            start,
            end,
            active: true,
        });
        if self.probe_rtt_done_stamp.is_none() && rs.in_flight <= CWND_MIN_TARGET {
            self.probe_rtt_done_stamp = Some(now + PROBE_RTT_MODE);
            self.probe_rtt_round_done = false;
            self.next_rtt_delivered = self.tp.delivered;
        } else if self.probe_rtt_done_stamp.is_some() {
            if self.round_start {
                self.probe_rtt_round_done = true;
            }
            if self.probe_rtt_round_done {
                self.check_probe_rtt_done(now, Some(&mut w.cwnd));
            }
        }
    }

    /// bbr_update_gains().
    fn update_gains(&mut self) {
        let (pacing, cwnd) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw => (
                if self.lt_use_bw {
                    BBR_UNIT
                } else {
                    PACING_GAIN[self.cycle_idx]
                },
                CWND_GAIN,
            ),
            Mode::ProbeRtt => (BBR_UNIT, BBR_UNIT),
        };
        self.pacing_gain = pacing;
        self.cwnd_gain = cwnd;
    }

    /// bbr_update_model().
    fn update_model(&mut self, w: &mut Window, rs: &Rs) {
        self.update_bw(rs);
        self.update_ack_aggregation(rs, w.cwnd);
        self.update_cycle_phase(rs);
        self.check_full_bw_reached(rs);
        self.check_drain(w, rs);
        self.update_min_rtt(w, rs);
        self.update_gains();
    }

    /// This ACK in Linux's terms, with the connection totals the sample
    /// carries and BBR's own PROBE_RTT bubble applied.
    fn take_sample(&mut self, ctx: &CcCtx) -> Rs {
        let r: RateSample = ctx.rate.unwrap_or(RateSample {
            acked_sacked: ctx.delivered,
            losses: ctx.losses,
            total_delivered: self.tp.delivered,
            delivered_time: self.tp.delivered_time,
            total_lost: self.tp.lost,
            ..RateSample::default()
        });
        self.tp = Totals {
            delivered: r.total_delivered,
            delivered_time: r.delivered_time,
            lost: r.total_lost,
            app_limited: r.app_limited_now,
        };
        let mut in_bubble = false;
        if let Some(b) = &mut self.bubble {
            // The sampler clears tp->app_limited once delivered passes it.
            if b.active && self.tp.delivered > b.end {
                b.active = false;
            }
            in_bubble = r.prior_delivered >= b.start && r.prior_delivered <= b.end;
            if !b.active && r.prior_delivered > b.end {
                self.bubble = None;
            }
        }
        // The engine voids both "no timing" and "interval below min_rtt";
        // Linux keeps delivered in the second case, which a sampled
        // segment (a nonzero interval or snapshot) tells apart.
        let delivered_any = match r.delivered {
            Some(d) => d > 0,
            None => {
                (r.interval > 0 || r.prior_delivered > 0) && r.total_delivered > r.prior_delivered
            }
        };
        Rs {
            now: ctx.now,
            delivered: r.delivered,
            interval: r.interval,
            prior_delivered: r.prior_delivered,
            acked_sacked: r.acked_sacked,
            losses: r.losses,
            is_app_limited: r.is_app_limited || in_bubble,
            delivered_any,
            rtt_us: ctx.rtt_sample.map(|t| t / US),
            prior_in_flight: ctx.prior_in_flight,
            in_flight: ctx.in_flight,
            state: ctx.state,
            srtt: ctx.srtt,
        }
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> String {
        "bbr".into()
    }

    /// bbr_ssthresh(): entering recovery, save cwnd to restore on exit;
    /// ssthresh stays what BBR set.
    fn ssthresh(&mut self, w: &Window, _flight_size: u64) -> u64 {
        self.save_cwnd(w.cwnd);
        w.ssthresh
    }

    fn cong_avoid(&mut self, _w: &mut Window, _acked: u64, _ctx: &CcCtx) {}

    fn owns_cwnd(&self) -> bool {
        true
    }

    // BBR reads every ACK in cong_control; it has no on_ack, which the
    // sender would otherwise call, empty, on every ACK.
    fn observes_every_ack(&self) -> bool {
        false
    }

    /// bbr_main().
    fn cong_control(&mut self, w: &mut Window, ctx: &CcCtx) {
        self.mss = ctx.mss;
        if self.restore_cwnd_pending {
            self.restore_cwnd_pending = false;
            w.cwnd = w.cwnd.max(self.prior_cwnd);
        }
        let rs = self.take_sample(ctx);
        self.update_model(w, &rs);
        let bw = self.bw();
        self.set_pacing_rate(bw, self.pacing_gain, w.cwnd, rs.srtt);
        self.set_cwnd(w, &rs, rs.acked_sacked, bw, self.cwnd_gain);
    }

    /// bbr_set_state(): an RTO ends a round and may end a long-term
    /// interval.
    fn on_state(&mut self, state: CaState, _w: &Window) {
        if state == CaState::Loss {
            self.prev_ca_state = CaState::Loss;
            self.full_bw = 0;
            self.round_start = true;
            self.lt_bw_sampling(1, false);
        }
    }

    /// bbr_undo_cwnd(): a spurious slow-down; restart full-pipe
    /// detection and long-term sampling, keep cwnd.
    fn undo_cwnd(&mut self, w: &Window, _prior_cwnd: u64) -> u64 {
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.reset_lt_bw_sampling();
        w.cwnd
    }

    /// bbr_cwnd_event_tx_start(): restarting from app-limited idle.
    fn on_tx_start(&mut self, now: Time, _last_send: Time) {
        let app_limited = self.tp.app_limited || self.bubble.is_some_and(|b| b.active);
        if !app_limited {
            return;
        }
        self.idle_restart = true;
        self.ack_epoch_mstamp = now;
        self.ack_epoch_acked = 0;
        // Pace at the estimate: no need for more speed after idle.
        if self.mode == Mode::ProbeBw {
            self.set_pacing_rate(self.bw(), BBR_UNIT, 0, None);
        } else if self.mode == Mode::ProbeRtt {
            self.check_probe_rtt_done(now, None);
        }
    }

    fn pacing_rate(&self) -> Option<u64> {
        Some(self.pacing_rate * 8)
    }

    fn wants_rate_samples(&self) -> bool {
        true
    }

    /// bbr_min_tso_segs(): single-segment bursts below 1.2 Mbit/s.
    fn min_tso_segs(&self) -> u32 {
        if self.pacing_rate < MIN_TSO_RATE >> 3 {
            1
        } else {
            2
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    /// An ACK at `now_ms` that brings tp->delivered to `total`, sampling a
    /// segment sent when `prior` were delivered, over 100 ms: the sample
    /// is `total - prior` segments per 100 ms. RTT sample 100 ms.
    fn ack(now_ms: u64, total: u64, prior: u64, acked: u64) -> CcCtx {
        CcCtx {
            now: now_ms * MS,
            srtt: Some(100 * MS),
            min_rtt: Some(100 * MS),
            rtt_sample: Some(100 * MS),
            delivered: acked,
            in_flight: 100,
            prior_in_flight: 100,
            mss: MSS,
            rate: Some(RateSample {
                delivered: Some(total - prior),
                interval: 100 * MS,
                prior_delivered: prior,
                acked_sacked: acked,
                total_delivered: total,
                delivered_time: now_ms * MS,
                ..RateSample::default()
            }),
            ..CcCtx::default()
        }
    }

    /// An ACK without a valid rate sample or RTT sample: it moves the
    /// clock and tp->delivered only.
    fn bare(now_ms: u64, total: u64, acked: u64) -> CcCtx {
        let mut c = ack(now_ms, total, 0, acked);
        c.rtt_sample = None;
        if let Some(r) = &mut c.rate {
            r.delivered = None;
            r.interval = 0;
        }
        c
    }

    /// A BBR already in PROBE_BW at `bw` (BW_UNIT) and a 100 ms min_rtt
    /// measured at t = 0, gain-cycle phase `idx`, MSS 1000.
    fn cruising(bw: u64, idx: usize) -> Bbr {
        let mut b = Bbr::new(1);
        b.mss = MSS;
        b.full_bw_reached = true;
        b.mode = Mode::ProbeBw;
        b.cycle_idx = idx;
        b.update_gains();
        b.bw.update(0, bw);
        b.min_rtt_us = 100_000;
        b.min_rtt_stamp = 0;
        b.has_seen_rtt = true;
        b.pacing_rate = b.bw_to_pacing_rate(bw, b.pacing_gain);
        b
    }

    #[test]
    fn startup_gains_and_initial_pacing_rate() {
        let mut b = Bbr::new(0);
        // 2/ln 2 = 2.885: 256 x 2885 / 1000 = 738.56 -> 738, + 1 = 739
        // (739 / 256 = 2.887); drain 256 x 1000 / 2885 = 88.7 -> 88.
        assert_eq!((HIGH_GAIN, DRAIN_GAIN, CWND_GAIN), (739, 88, 512));
        assert_eq!(b.mode(), Mode::Startup);
        assert_eq!((b.pacing_gain(), b.cwnd_gain()), (739, 739));
        // bbr_init without an RTT: 10 segments per 1 ms = 10 x 2^24 / 1000
        // = 167772 (BW_UNIT); x 1448 = 242_933_856; x 739 =
        // 179_528_119_584; >> 8 = 701_281_717; x 990_000 =
        // 694_268_899_830_000; >> 24 = 41_381_651 B/s (331 Mbit/s).
        assert_eq!(b.pacing_rate(), Some(41_381_651 * 8));
        // The first ACK brings srtt = 100 ms: 10 x 2^24 / 100_000 = 1677;
        // x 1000 x 739 = 1_239_303_000; >> 8 = 4_841_027; x 990_000 >> 24
        // = 285_662 B/s. The sample (10 segments / 100 ms) is the same
        // 1677, so it does not raise it.
        let mut w = Window::new(10);
        b.cong_control(&mut w, &ack(100, 10, 0, 10));
        assert_eq!(b.pacing_rate(), Some(285_662 * 8));
        assert_eq!((b.pacing_gain(), b.cwnd_gain()), (739, 739));
        // Startup slow-starts: cwnd + acked.
        assert_eq!(w.cwnd, 20);
        assert_eq!(b.min_rtt_us(), Some(100_000));
    }

    #[test]
    fn bdp_and_target_cwnd() {
        // 20 Mbit/s of 1000-byte segments = 2500 segments/s = 0.0025 per
        // us; x 2^24 = 41943.04 -> 41943. min_rtt 100 ms.
        let mut b = cruising(41_943, 2);
        // bdp = ceil(41943 x 100_000 / 2^24) = ceil(249.9998) = 250;
        // x 2 (cwnd_gain): ceil(499.9995) = 500.
        assert_eq!(b.bdp(41_943, BBR_UNIT), 250);
        assert_eq!(b.bdp(41_943, CWND_GAIN), 500);
        // Pacing 2.5 MB/s: 2_500_000 >> 10 = 2441 bytes = 2 segments per
        // burst (min_tso_segs is 2 too); budget 3 x 2 = 6: 506, even.
        b.pacing_rate = 2_500_000;
        assert_eq!(b.tso_segs_goal(), 2);
        assert_eq!(b.inflight(41_943, CWND_GAIN), 506);
        // The 1.25 phase gets 2 more.
        b.cycle_idx = 0;
        assert_eq!(b.inflight(41_943, CWND_GAIN), 508);
        b.cycle_idx = 2;
        // A full pipe snaps a larger cwnd down to the target.
        let mut w = Window::new(600);
        let rs = b.take_sample(&ack(50, 1000, 990, 1));
        b.set_cwnd(&mut w, &rs, 1, 41_943, CWND_GAIN);
        assert_eq!(w.cwnd, 506);
        // No RTT sample yet: TCP_INIT_CWND.
        b.min_rtt_us = NO_RTT;
        assert_eq!(b.bdp(41_943, CWND_GAIN), 10);
    }

    /// bbr_tso_segs_goal()'s `min(segs, 0x7FU)`: at 1 Gbit/s pacing
    /// (125_000_000 B/s >> 10 = 122_070 bytes, above the 65_536 - 1 -
    /// 320 = 65_215 cap) a 1000-byte MSS gives 65_215 / 1000 = 65
    /// segments, under the cap; a 500-byte MSS gives 65_215 / 500 = 130,
    /// cut to 127; 100 bytes: 652 -> 127. Below 150_000 B/s (1.2 Mbit/s)
    /// bbr_min_tso_segs() is 1: 100_000 >> 10 = 97 bytes / 1000 = 0 -> 1.
    #[test]
    fn tso_segs_goal_is_capped_at_127() {
        let mut b = cruising(6710, 2);
        b.pacing_rate = 125_000_000;
        for (mss, want) in [(1000, 65), (600, 108), (500, 127), (100, 127)] {
            b.mss = mss;
            assert_eq!(b.tso_segs_goal(), want, "mss {mss}");
        }
        b.mss = 1000;
        b.pacing_rate = 100_000;
        assert_eq!(b.tso_segs_goal(), 1);
    }

    #[test]
    fn full_bw_after_three_rounds_without_growth_then_drain_then_probe_bw() {
        let mut b = Bbr::new(0);
        let mut w = Window::new(10);
        // One ACK per round (each samples a segment sent at the previous
        // round's end), delivering 10, 20, 40, 40, 40, 40 per 100 ms:
        // bw 1677, 3355, 6710 (x 2^24 / 100_000).
        let mut total = 0;
        let mut t = 0;
        let mut round = |b: &mut Bbr, w: &mut Window, n: u64| {
            t += 100;
            let prior = total;
            total += n;
            b.cong_control(w, &ack(t, total, prior, n));
        };
        // Round 1: full_bw 0 -> 1677. Round 2: 3355 >= 1677 x 1.25 =
        // 2096 -> 3355. Round 3: 6710 >= 4193 -> 6710.
        for n in [10, 20, 40] {
            round(&mut b, &mut w, n);
            assert!(!b.full_bw_reached());
        }
        assert_eq!(b.full_bw, 6710);
        // Rounds 4, 5: 6710 < 6710 x 1.25 = 8387: count 1, 2.
        round(&mut b, &mut w, 40);
        round(&mut b, &mut w, 40);
        assert_eq!((b.full_bw_cnt, b.mode()), (2, Mode::Startup));
        // Round 6: the third: full, DRAIN. ssthresh = inflight(6710, 1) =
        // ceil(6710 x 100_000 / 2^24 = 39.99) = 40, + 3 x 2 = 46.
        round(&mut b, &mut w, 40);
        assert!(b.full_bw_reached());
        assert_eq!(b.mode(), Mode::Drain);
        assert_eq!(w.ssthresh, 46);
        assert_eq!((b.pacing_gain(), b.cwnd_gain()), (DRAIN_GAIN, HIGH_GAIN));
        // Pacing at the drain gain, 6710 x 1000 x 88 >> 8 = 2_306_562;
        // x 990_000 = 2_283_496_380_000; >> 24 = 136_106 B/s, below 1.2
        // Mbit/s = 150_000 B/s: single-segment bursts, so the drain target
        // is 40 + 3 x 1 = 43, rounded up to even: 44. DRAIN holds at 45 ...
        assert_eq!(b.pacing_rate, 136_106);
        assert_eq!(b.inflight(6710, BBR_UNIT), 44);
        let mut c = bare(650, total + 1, 1);
        c.in_flight = 45;
        b.cong_control(&mut w, &c);
        assert_eq!(b.mode(), Mode::Drain);
        // ... and ends at 44, into PROBE_BW at a random phase other than
        // the 0.75 one, with cwnd_gain 2.
        let mut c = bare(660, total + 2, 1);
        c.in_flight = 44;
        b.cong_control(&mut w, &c);
        assert_eq!(b.mode(), Mode::ProbeBw);
        assert_ne!(b.cycle_idx(), 1);
        assert_eq!(b.pacing_gain(), PACING_GAIN[b.cycle_idx()]);
        assert_eq!(b.cwnd_gain(), CWND_GAIN);
    }

    #[test]
    fn gain_cycle() {
        // bw 6710 (40 segments / 100 ms), min_rtt 100 ms, phase 0 from
        // t = 0. Pacing stays under 1 MB/s, so bursts are 2 segments.
        let mut b = cruising(6710, 0);
        b.cycle_mstamp = 0;
        let mut w = Window::new(50);
        let mut gains = vec![b.pacing_gain()];
        let step = |b: &mut Bbr, w: &mut Window, ms: u64, prior_in_flight: u64| {
            let mut c = bare(ms, ms, 1);
            c.prior_in_flight = prior_in_flight;
            b.cong_control(w, &c);
            b.pacing_gain()
        };
        assert_eq!(gains[0], 320);
        // 1.25: over min_rtt (101 ms > 100 ms) but inflight short of
        // inflight(bw, 1.25): bdp ceil(6710 x 100_000 x 1.25 / 2^24 =
        // 49.99) = 50, + 6 = 56, + 2 (phase 0) = 58; in the network at
        // EDT: 40 + 2 (the next burst, gain > 1) = 42 < 58: stay.
        assert_eq!(step(&mut b, &mut w, 101, 40), 320);
        // 56 + 2 = 58 >= 58: on to 0.75.
        gains.push(step(&mut b, &mut w, 102, 56));
        // 0.75: until inflight falls to inflight(bw, 1) = 40 + 6 = 46
        // (or min_rtt passes): 50 stays, 46 ends it early (60 ms in).
        assert_eq!(step(&mut b, &mut w, 150, 50), 192);
        gains.push(step(&mut b, &mut w, 162, 46));
        // Six phases at 1.0, each exactly longer than min_rtt: at
        // +100 ms it stays, at +101 ms it moves on.
        let mut start = 162;
        for _ in 0..6 {
            assert_eq!(step(&mut b, &mut w, start + 100, 46), 256);
            start += 101;
            gains.push(step(&mut b, &mut w, start, 46));
        }
        assert_eq!(gains, [320, 192, 256, 256, 256, 256, 256, 256, 320]);
        assert_eq!(b.cycle_idx(), 0);
    }

    #[test]
    fn random_phase_is_seeded_and_never_the_drain_phase() {
        let phases = |seed| {
            let mut b = Bbr::new(seed);
            (0..50)
                .map(|_| {
                    b.reset_probe_bw_mode();
                    b.cycle_idx()
                })
                .collect::<Vec<_>>()
        };
        let a = phases(7);
        assert_eq!(a, phases(7));
        assert_ne!(a, phases(8));
        // 7 - [0, 7) = 1..=7, advanced by one: 2..=7 and 0.
        let mut seen = a.clone();
        seen.sort();
        seen.dedup();
        assert_eq!(seen, [0, 2, 3, 4, 5, 6, 7]);
    }

    #[test]
    fn probe_rtt_after_ten_seconds_without_a_lower_min_rtt() {
        let mut b = cruising(6710, 2);
        let mut w = Window::new(60);
        // 10 s after the 100 ms min_rtt (at t = 0), samples of 100 ms (not
        // lower) leave the filter expiring only after 10 s: at 10.000 s
        // nothing happens (not after the window) ...
        let mut c = bare(10_000, 5000, 1);
        c.rtt_sample = Some(120 * MS);
        b.cong_control(&mut w, &c);
        assert_eq!(b.mode(), Mode::ProbeBw);
        // (cwnd grew 60 + 1 = 61 toward the target 80 + 6 = 86) ...
        assert_eq!(w.cwnd, 61);
        // ... at 10.001 s PROBE_RTT: the expired filter takes the 120 ms
        // sample, cwnd 61 is saved and cwnd drops to 4.
        let mut c = bare(10_001, 5001, 1);
        c.rtt_sample = Some(120 * MS);
        b.cong_control(&mut w, &c);
        assert_eq!(b.mode(), Mode::ProbeRtt);
        assert_eq!(b.probe_rtt_count(), 1);
        assert_eq!(b.min_rtt_us(), Some(120_000));
        assert_eq!(b.prior_cwnd(), 61);
        assert_eq!(w.cwnd, 4);
        assert_eq!((b.pacing_gain(), b.cwnd_gain()), (BBR_UNIT, BBR_UNIT));
        // Inflight reaches 4 at 10.050 s: 200 ms from here, and a round.
        let mut c = bare(10_050, 5002, 1);
        c.in_flight = 4;
        b.cong_control(&mut w, &c);
        assert_eq!(b.probe_rtt_done_stamp, Some(10_250 * MS));
        // A round ends at 10.150 s (a sample of a segment sent after
        // 10.050 s), with a 100 ms RTT: min_rtt back to 100 ms; 200 ms
        // not over yet.
        let mut c = ack(10_150, 5010, 5002, 8);
        c.in_flight = 4;
        b.cong_control(&mut w, &c);
        assert_eq!((b.mode(), w.cwnd), (Mode::ProbeRtt, 4));
        assert_eq!(b.min_rtt_us(), Some(100_000));
        // After 10.250 s: back to PROBE_BW with cwnd restored to 61 (and
        // + 1 acked, below the target 86).
        let mut c = bare(10_251, 5011, 1);
        c.in_flight = 4;
        b.cong_control(&mut w, &c);
        assert_eq!(b.mode(), Mode::ProbeBw);
        assert_eq!(w.cwnd, 62);
        assert_eq!(b.min_rtt_stamp, 10_251 * MS);
    }

    #[test]
    fn packet_conservation_in_recovery_and_restore_on_exit() {
        // Target cwnd: ceil(6710 x 2 x 100_000 / 2^24 = 79.99) = 80, + 6
        // = 86.
        let mut b = cruising(6710, 2);
        let mut w = Window::new(80);
        // Recovery entry: bbr_ssthresh saves cwnd 80, leaves ssthresh.
        assert_eq!(b.ssthresh(&w, 80), w.ssthresh);
        assert_eq!(b.prior_cwnd(), 80);
        b.on_state(CaState::Recovery, &w);
        // First ACK in recovery: 2 delivered, 3 marked lost, 60 in
        // flight: 80 - 3 = 77, then conservation cwnd = inflight + acked
        // = 62.
        let mut c = bare(1000, 1000, 2);
        c.state = CaState::Recovery;
        c.in_flight = 60;
        c.rate.as_mut().unwrap().losses = 3;
        b.cong_control(&mut w, &c);
        assert_eq!(w.cwnd, 62);
        // Next ACK: one in, one out: max(62, 62 + 1) = 63.
        let mut c = bare(1010, 1001, 1);
        c.state = CaState::Recovery;
        c.in_flight = 62;
        b.cong_control(&mut w, &c);
        assert_eq!(w.cwnd, 63);
        // A round later (a sample sent after recovery began, delivered
        // 1000 then) conservation ends: slow start toward the target,
        // 63 + 2 = 65.
        let mut c = ack(1100, 1003, 1000, 2);
        c.state = CaState::Recovery;
        c.in_flight = 62;
        b.cong_control(&mut w, &c);
        assert_eq!(w.cwnd, 65);
        // Exit: cwnd back to the 80 from before, + 1 acked = 81 (< 86).
        let mut c = bare(1110, 1004, 1);
        c.state = CaState::Open;
        b.on_state(CaState::Open, &w);
        b.cong_control(&mut w, &c);
        assert_eq!(w.cwnd, 81);
    }

    /// ACKs of rounds of 100 ms, each delivering 80 segments and marking
    /// `lost` lost, in PROBE_BW with a max-filter bw of 20000.
    fn policed(lost: u64, rounds: u64) -> Bbr {
        let mut b = cruising(20_000, 2);
        let mut w = Window::new(100);
        for k in 1..=rounds {
            let mut c = ack(k * 100, 80 * k, 80 * (k - 1), 80);
            c.rtt_sample = None;
            let r = c.rate.as_mut().unwrap();
            r.losses = lost;
            r.total_lost = lost * k;
            b.cong_control(&mut w, &c);
        }
        b
    }

    #[test]
    fn long_term_sampling_detects_a_policer() {
        // Round 1 loses: sampling starts (interval opens at round 1's
        // totals, which counts as its first round). Round 4 is the fourth
        // round: lost 3 x 20 = 60 of 3 x 80 = 240 delivered (25% >= 50 /
        // 256 = 19.5%) over 300 ms: lt_bw = 240 x 2^24 / 300_000 = 13421.
        let b = policed(20, 4);
        assert_eq!((b.lt_bw(), b.lt_use_bw()), (13_421, false));
        // Rounds 5-8: 320 delivered, 80 lost, 400 ms: 13421 again, within
        // 1/8: policed. bw is lt_bw (not the filter's 20000), gain 1.
        let b = policed(20, 8);
        assert!(b.lt_use_bw());
        assert_eq!((b.bandwidth(), b.max_bw()), (13_421, 20_000));
        assert_eq!(b.pacing_gain(), BBR_UNIT);
        // 16 of 80 (20%): 48 x 256 = 12288 >= 50 x 240 = 12000, policed.
        assert!(policed(16, 8).lt_use_bw());
        // 15 of 80 (18.75%): 45 x 256 = 11520 < 12000, never enough; an
        // interval past 16 rounds starts over.
        let b = policed(15, 30);
        assert_eq!((b.lt_bw(), b.lt_use_bw()), (0, false));
    }

    /// An ACK at `now_ms` bringing tp->delivered to `total`, `acked` newly
    /// delivered, whose rate sample is 10 segments per 100 ms (1677) and
    /// starts no round (prior 990 is below the round's end after the
    /// first round at total 1000).
    fn aggregated(now_ms: u64, total: u64, acked: u64) -> CcCtx {
        let mut c = ack(now_ms, total, 990, acked);
        c.rate.as_mut().unwrap().delivered = Some(10);
        c
    }

    #[test]
    fn ack_aggregation_credit_and_its_window() {
        // bbr_update_ack_aggregation() and bbr_ack_aggregation_cwnd():
        // bw 6710 (0.4 segments/ms), min_rtt 100 ms, ack epoch from t = 0.
        let mut b = cruising(6710, 2);
        let mut w = Window::new(100);
        // t = 100 ms, 10 acked, a round start (extra_acked_win_rtts 1):
        // expected = 6710 x 100_000 / 2^24 = 39.99 -> 39 >= ack_epoch_acked
        // 0, so the epoch restarts at 100 ms with expected 0: extra =
        // min(10, cwnd) = 10.
        b.cong_control(&mut w, &ack(100, 1000, 990, 10));
        assert_eq!(b.extra_acked, [10, 0]);
        // Target = bdp ceil(6710 x 2 x 100_000 / 2^24 = 79.99) = 80, +
        // min(10 x 256 >> 8, max_aggr 6710 x 100_000 / 2^24 = 39) = 90;
        // pacing 1.0: 6710 x 1000 x 256 >> 8 = 6_710_000, x 990_000 >> 24
        // = 395_947 B/s, >> 10 = 386 B = 0 segments, min_tso_segs 2: + 3
        // x 2 = 96, even. Full pipe: min(100 + 10, 96) = 96.
        assert_eq!(w.cwnd, 96);
        // t = 110 ms, 30 more in a burst: epoch 10_000 us, expected
        // 6710 x 10_000 / 2^24 = 3.99 -> 3 < 10, epoch kept: acked 40,
        // extra 40 - 3 = 37 (< cwnd 96). Target 80 + 37 + 6 = 123 -> 124;
        // cwnd min(96 + 30, 124) = 124 (86 without the credit).
        b.cong_control(&mut w, &aggregated(110, 1030, 30));
        assert_eq!(b.extra_acked, [37, 0]);
        assert_eq!(w.cwnd, 124);
        // t = 111 ms, 60 more: epoch 11_000 us, expected 4.39 -> 4: acked
        // 100, extra 96 (< cwnd 124). The credit is capped at 100 ms of
        // bw, 39: target 80 + 39 + 6 = 125 -> 126 = min(124 + 60, 126).
        b.cong_control(&mut w, &aggregated(111, 1090, 60));
        assert_eq!(b.extra_acked(), 96);
        assert_eq!(b.ack_aggregation_cwnd(), 39);
        assert_eq!(w.cwnd, 126);
        // Rounds 2..10, one ACK of 4 segments each 100 ms. Round 2 (t =
        // 300): epoch 200_000 us, expected 79 < 100: extra 104 - 79 = 25.
        // Later rounds restart the epoch (acked <= expected): extra 4.
        // extra_acked_win_rtts reaches 5 at round 5: slot 1 is cleared and
        // takes 4, slot 0 keeps 96 until round 10 clears it (5-10 rounds).
        let mut total = 1090;
        for k in 1..=9u64 {
            b.cong_control(&mut w, &ack(200 + 100 * k, total + 4, total, 4));
            total += 4;
            let round = k + 1;
            let want = match round {
                2..=4 => [96, 0],
                5..=9 => [96, 4],
                _ => [4, 4],
            };
            assert_eq!((b.rtt_cnt, b.extra_acked), (round, want), "round {round}");
        }
        assert_eq!(b.extra_acked(), 4);
    }

    #[test]
    fn idle_restart_paces_at_the_estimate_and_skips_probe_rtt() {
        // bbr_cwnd_event(CA_EVENT_TX_START) in PROBE_BW's 1.25 phase:
        // 6710 x 1000 x 320 >> 8 = 8_387_500, x 990_000 >> 24 = 494_934.
        let mut b = cruising(6710, 0);
        assert_eq!(b.pacing_rate, 494_934);
        // Not app-limited (tp->app_limited == 0): nothing happens.
        b.ack_epoch_acked = 50;
        b.on_tx_start(10_000 * MS, 0);
        assert!(!b.idle_restart);
        assert_eq!((b.pacing_rate, b.ack_epoch_acked), (494_934, 50));
        // App-limited: idle_restart, the ack epoch restarts now, and the
        // pacing rate is set at gain 1: 6710 x 1000 x 256 >> 8 =
        // 6_710_000, x 990_000 = 6_642_900_000_000, >> 24 = 395_947 B/s.
        // The gain (1.25) itself is left for the next ACK.
        b.tp.app_limited = true;
        b.on_tx_start(10_000 * MS, 0);
        assert!(b.idle_restart);
        assert_eq!((b.ack_epoch_mstamp, b.ack_epoch_acked), (10_000 * MS, 0));
        assert_eq!(b.pacing_rate, 395_947);
        assert_eq!(b.pacing_gain(), 320);
        // The min_rtt filter (stamp 0) expired at 10 s, but
        // bbr_update_min_rtt() enters PROBE_RTT only if !idle_restart. An
        // ACK without delivery (rs->delivered < 0) keeps idle_restart ...
        let mut w = Window::new(60);
        b.cong_control(&mut w, &bare(10_001, 5000, 0));
        assert_eq!(b.mode(), Mode::ProbeBw);
        assert!(b.idle_restart);
        // ... the first delivering ACK is still seen as a restart (the
        // flag clears after the check): no PROBE_RTT; the expired filter
        // takes its 120 ms sample and the stamp moves to now.
        let mut c = ack(10_002, 5010, 5000, 10);
        c.rtt_sample = Some(120 * MS);
        b.cong_control(&mut w, &c);
        assert!(!b.idle_restart);
        assert_eq!(b.mode(), Mode::ProbeBw);
        assert_eq!(b.probe_rtt_count(), 0);
        assert_eq!(b.min_rtt_us(), Some(120_000));
        assert_eq!(b.min_rtt_stamp, 10_002 * MS);
    }

    #[test]
    fn max_bw_sample_ages_out_after_ten_rounds() {
        // minmax_running_max(&bbr->bw, bbr_bw_rtts = 10, rtt_cnt, bw): the
        // 6710 of round 0 is kept while rtt_cnt - 0 <= 10 and dropped at
        // round 11 (dt 11 > 10) for the later samples, 20 segments per
        // 100 ms = 20 x 2^24 / 100_000 = 3355.
        let mut b = cruising(6710, 2);
        let mut w = Window::new(60);
        for k in 1..=11u64 {
            b.cong_control(&mut w, &ack(k * 100, 20 * k, 20 * (k - 1), 20));
            let want = if k <= 10 { 6710 } else { 3355 };
            assert_eq!((b.rtt_cnt, b.max_bw()), (k, want), "round {k}");
        }
    }

    #[test]
    fn app_limited_samples_only_raise_the_max() {
        // bbr_update_bw(): `if (!rs->is_app_limited || bw >= bbr_max_bw())`.
        let mut b = cruising(6710, 2);
        let mut w = Window::new(60);
        // Eleven rounds of app-limited samples of 3355 (< 6710) never
        // reach the filter, so even past its 10 rounds the max is 6710
        // (the previous test shows the same samples, not app-limited,
        // replacing it at round 11).
        for k in 1..=11u64 {
            let mut c = ack(k * 100, 20 * k, 20 * (k - 1), 20);
            c.rate.as_mut().unwrap().is_app_limited = true;
            b.cong_control(&mut w, &c);
        }
        assert_eq!((b.rtt_cnt, b.max_bw()), (11, 6710));
        // An app-limited sample above it is taken: 60 segments per 100 ms
        // = 60 x 2^24 / 100_000 = 10066.3 -> 10066.
        let mut c = ack(1200, 280, 220, 60);
        c.rate.as_mut().unwrap().is_app_limited = true;
        b.cong_control(&mut w, &c);
        assert_eq!(b.max_bw(), 10_066);
    }

    #[test]
    fn only_a_lower_min_rtt_sample_postpones_probe_rtt() {
        // bbr_update_min_rtt() (Linux 6.x): `rs->rtt_us < bbr->min_rtt_us`.
        // cruising() measured min_rtt = 100_000 us at t = 0 (stamp 0).
        // At 5 s an equal 100 ms sample: 100_000 < 100_000 is false and
        // the filter has not expired (5 s <= 0 + 10 s), so the stamp
        // stays 0. (With `<=` it would move to 5 s and the PROBE_RTT
        // below would wait until 15 s.)
        let mut b = cruising(6710, 2);
        let mut w = Window::new(60);
        b.cong_control(&mut w, &ack(5000, 5000, 4990, 10));
        assert_eq!(b.min_rtt_us(), Some(100_000));
        assert_eq!(b.min_rtt_stamp, 0);
        // At 10.001 s: expired (10.001 s > 0 + 10 s), so the 120 ms
        // sample replaces min_rtt (is_ack_delayed is false) and is
        // stamped now, and BBR enters PROBE_RTT once.
        let mut c = ack(10_001, 5010, 5000, 10);
        c.rtt_sample = Some(120 * MS);
        b.cong_control(&mut w, &c);
        assert_eq!(b.mode(), Mode::ProbeRtt);
        assert_eq!(b.probe_rtt_count(), 1);
        assert_eq!(b.min_rtt_us(), Some(120_000));
        assert_eq!(b.min_rtt_stamp, 10_001 * MS);
        // A lower sample, 99_999 us < 120_000, is taken at once.
        let mut c = ack(10_050, 5020, 5010, 10);
        c.rtt_sample = Some(99_999 * US);
        b.cong_control(&mut w, &c);
        assert_eq!(b.min_rtt_us(), Some(99_999));
        assert_eq!(b.min_rtt_stamp, 10_050 * MS);
    }

    #[test]
    fn before_5_10_an_equal_sample_refreshes_the_stamp() {
        // Linux 4.9-5.9 bbr_update_min_rtt(): `rs->rtt_us <=
        // bbr->min_rtt_us` takes an equal sample and moves min_rtt_stamp.
        let mut b = cruising(6710, 2).with_min_rtt_refresh(MinRttRefresh::LowerOrEqual);
        let mut w = Window::new(60);
        // min_rtt 100 ms from t = 0; at 5 s a 100 ms sample: stamp 5 s.
        b.cong_control(&mut w, &ack(5000, 5000, 4990, 10));
        assert_eq!(b.min_rtt_us(), Some(100_000));
        assert_eq!(b.min_rtt_stamp, 5000 * MS);
        // At 10.001 s the filter has not expired (10.001 < 5 + 10 s): no
        // PROBE_RTT, and a 120 ms sample does not replace 100 ms.
        let mut c = ack(10_001, 5010, 5000, 10);
        c.rtt_sample = Some(120 * MS);
        b.cong_control(&mut w, &c);
        assert_eq!(b.mode(), Mode::ProbeBw);
        assert_eq!(b.probe_rtt_count(), 0);
        assert_eq!(b.min_rtt_us(), Some(100_000));
        for n in MinRttRefresh::NAMES {
            assert_eq!(MinRttRefresh::from_name(n).unwrap().name(), *n);
        }
        assert_eq!(MinRttRefresh::from_name("le"), None);
    }
}
