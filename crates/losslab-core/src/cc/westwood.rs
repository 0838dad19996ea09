//! TCP Westwood+ as Linux runs it (net/ipv4/tcp_westwood.c), and the
//! original Westwood estimator as a named option (`westwood-original`).
//!
//! Both grow cwnd like Reno (Linux `tcp_reno_cong_avoid`) and differ from
//! it only in the loss response: after a loss the window is set to the
//! bandwidth estimate (BWE) times the smallest RTT seen, the pipe the path
//! holds without a queue, rather than to half of cwnd. A random loss on an
//! uncongested path then costs little, since BWE x RTTmin is about the
//! window the flow had.
//!
//! The two differ in the estimator:
//! - Westwood+ (Grieco and Mascolo, "Performance evaluation and comparison
//!   of Westwood+, New Reno, and Vegas TCP congestion control", ACM CCR
//!   34(2), 2004; Linux): one sample per RTT-long interval, bytes
//!   acknowledged over the interval's length, through a constant 7/8 EWMA
//!   applied twice. Sampling once per RTT is what makes it robust to ACK
//!   compression.
//! - Original Westwood (Mascolo, Casetti, Gerla, Sanadidi, Wang, "TCP
//!   Westwood: Bandwidth estimation for enhanced transport over wireless
//!   links", ACM MobiCom 2001, section 2.2): one sample per ACK, b_k = d_k
//!   / (t_k - t_{k-1}), through the Tustin discretisation of a first-order
//!   low-pass filter, b^_k = a_k b^_{k-1} + (1 - a_k) / 2 (b_k + b_{k-1})
//!   with a_k = (2 tau - D_k) / (2 tau + D_k), D_k = t_k - t_{k-1}. We use
//!   tau = 0.5 s (a 2 rad/s cutoff) and the paper's virtual null samples
//!   (a b = 0 sample every tau / m without an ACK, m = 2, the smallest the
//!   paper's Nyquist argument allows). Simplified: ACKs arriving at the same
//!   instant are merged into one sample (D_k = 0 has no rate), the first
//!   ACK only starts the clock, and d_k is counted exactly as Westwood+
//!   counts it (`acked_count`, which is the paper's section 2.1 rule for
//!   duplicate and delayed ACKs).
//!
//! Units: the estimate is kept in bytes per second, integer for
//! Westwood+ (Linux keeps bytes per jiffy; its truncation of bk / delta to
//! whole bytes per jiffy is below 0.1% at the rates we simulate) and
//! deterministic f64 (basic IEEE 754 operations only) for the original.
//! Times are the engine's nanoseconds. `with_hz(N)` (`[flow.westwood] hz
//! = N`) runs Westwood+ in Linux 6.x's jiffies at HZ = N instead: every
//! time tcp_westwood.c keeps is a u32 jiffy count: `w->rtt` =
//! usecs_to_jiffies(rtt_us) (tcp_westwood_pkts_acked(), rounding up),
//! `rtt_min`, `rtt_win_sx` and the interval `delta` from tcp_jiffies32
//! (westwood_update_window()), TCP_WESTWOOD_RTT_MIN = HZ / 20 jiffies (48
//! ms at HZ = 250), TCP_WESTWOOD_INIT_RTT = 20 HZ; westwood_filter()
//! divides bk by delta in jiffies (bytes per jiffy, truncated) and
//! tcp_westwood_bw_rttmin() is `(bw_est * rtt_min) / mss_cache` in u32.
//!
//! How Linux's events map onto our hooks:
//! - `in_ack_event()` and `pkts_acked()` are both `on_ack` (every ACK, in
//!   recovery too). Linux's tcp_ack() calls in_ack_event before
//!   tcp_clean_rtx_queue() calls pkts_acked, so the RTT-min update and the
//!   interval test see the previous ACK's RTT sample; `on_ack` keeps that
//!   order. Linux's header-prediction fast path (`westwood_fast_bw`, a pure
//!   advancing ACK) skips the duplicate-ACK credit `accounted`; we always
//!   take the slow path (`westwood_acked_count`), which gives the same
//!   count whenever `accounted` is 0, i.e. except on the first ACKs after
//!   duplicates, where Linux's slow path (they carry SACK blocks) runs too.
//! - CA_EVENT_LOSS (tcp_enter_loss(), a timeout that opens an episode:
//!   ssthresh = BWE x RTTmin, RTTmin re-learnt from the next ACK) is
//!   `ssthresh` followed by `on_timeout`.
//! - CA_EVENT_COMPLETE_CWR (tcp_end_cwnd_reduction(): leaving Recovery or
//!   CWR, cwnd = ssthresh = BWE x RTTmin) would be `on_state(Open)` from
//!   Recovery or Cwr, but `on_state` may not change the window. Linux's
//!   `ssthresh` is tcp_reno_ssthresh (cwnd / 2) and the Westwood value
//!   replaces it at the end of the reduction; ours returns BWE x RTTmin
//!   from `ssthresh` already, which the RecoveryOps' end_cwnd_reduction
//!   (cwnd = ssthresh) turns into the same cwnd = ssthresh = BWE x RTTmin
//!   at the end of recovery. `with_complete_cwr(true)` (`[flow.westwood]
//!   complete_cwr = true`) takes the event itself through the
//!   `complete_cwr` hook, for recoveries that never ask for ssthresh
//!   (QARR, BARR), where the stand-in leaves Westwood inert. What
//!   differs: the estimate is the one at the start of recovery, not at
//!   its end, and PRR steers toward BWE x RTTmin
//!   during the recovery rather than toward cwnd / 2. This is also what the
//!   MobiCom paper specifies (ssthresh = BWE x RTTmin / seg_size on three
//!   duplicate ACKs).
//! - CA_EVENT_CWND_RESTART and TX_START: Linux's westwood ignores both;
//!   `on_tx_start` only starts the first sampling interval (Linux starts
//!   it at tcp_westwood_init(), which the engine has no hook for).

use super::{CaState, CcCtx, CongestionControl, Reno};

/// Where Westwood's ssthresh comes from at a congestion signal
/// (`[flow.westwood] ssthresh`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WestwoodSsthresh {
    /// BWE x RTTmin at once (the Westwood+ papers, and the mobile paper's
    /// section II.B; the behaviour before the key).
    #[default]
    Bwe,
    /// Linux (tcp_westwood.c, read at 3.10.105; 6.x the same):
    /// `.ssthresh = tcp_reno_ssthresh`, max(cwnd / 2, 2), at every
    /// congestion signal; on a timeout CA_EVENT_LOSS then sets BWE x
    /// RTTmin; at the end of a recovery CA_EVENT_COMPLETE_CWR does
    /// (`complete_cwr`, which Linux's Westwood pairs with this).
    Linux,
}

impl WestwoodSsthresh {
    pub const NAMES: &'static [&'static str] = &["bwe", "linux"];
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "bwe" => Some(WestwoodSsthresh::Bwe),
            "linux" => Some(WestwoodSsthresh::Linux),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            WestwoodSsthresh::Bwe => "bwe",
            WestwoodSsthresh::Linux => "linux",
        }
    }
}
use crate::time::{usecs_to_jiffies, Time, MS, SEC, US};
use crate::window::Window;

/// `TCP_WESTWOOD_RTT_MIN`: no bandwidth sample over a shorter interval.
pub const RTT_MIN: Time = 50 * MS;
/// `TCP_WESTWOOD_INIT_RTT`: the RTT assumed before any sample, "too
/// conservative" on purpose so the first real one replaces it.
pub const INIT_RTT: Time = 20 * SEC;
/// Time constant of the original Westwood filter (seconds).
pub const TAU: f64 = 0.5;

/// Which bandwidth estimator runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Estimator {
    /// Westwood+: one sample per RTT-long interval (Linux).
    PerRtt,
    /// Original Westwood: one sample per ACK, Tustin low-pass filter.
    PerAck,
}

/// The original Westwood filter's state.
#[derive(Clone, Debug, Default)]
struct PerAckFilter {
    /// b^_{k-1} and b_{k-1}, bytes per second.
    est: f64,
    last_sample: f64,
    /// t_{k-1}: the last ACK (or virtual null sample).
    last: Option<Time>,
    /// Bytes of ACKs that arrived at t_{k-1} itself, carried into the next
    /// sample.
    pending: u64,
}

impl PerAckFilter {
    fn step(&mut self, sample: f64, dt: f64) {
        let a = (2.0 * TAU - dt) / (2.0 * TAU + dt);
        self.est = a * self.est + (1.0 - a) / 2.0 * (sample + self.last_sample);
        self.last_sample = sample;
    }

    fn on_ack(&mut self, now: Time, bytes: u64) {
        let Some(mut last) = self.last else {
            self.last = Some(now);
            return;
        };
        // Virtual null samples (MobiCom 2001 section 2.2): every tau / 2
        // without an ACK the link is assumed to have delivered nothing, so
        // the estimate decays during silences instead of holding the last
        // burst's rate. After 64 of them (0.6^64 of the estimate left) the
        // rest change nothing measurable.
        let step = (TAU * SEC as f64 / 2.0) as Time;
        let mut n = 0;
        while now.saturating_sub(last) > step && n < 64 {
            last += step;
            self.step(0.0, TAU / 2.0);
            n += 1;
        }
        if now.saturating_sub(last) > step {
            last = now - step;
        }
        let bytes = bytes + std::mem::take(&mut self.pending);
        if now <= last {
            self.pending = bytes;
            self.last = Some(last);
            return;
        }
        let dt = (now - last) as f64 / SEC as f64;
        self.step(bytes as f64 / dt, dt);
        self.last = Some(now);
    }
}

#[derive(Clone, Debug)]
pub struct Westwood {
    estimator: Estimator,
    /// Linux `bw_ns_est` and `bw_est`, bytes per second.
    bw_ns_est: u64,
    bw_est: u64,
    /// Linux `rtt_win_sx`: start of the current sampling interval (None
    /// before the first transmission or ACK).
    rtt_win_sx: Option<Time>,
    /// Bytes counted in the current interval.
    bk: u64,
    /// snd.una as last seen (None until the first ACK: Linux `first_ack`).
    snd_una: Option<u64>,
    cumul_ack: u64,
    /// Bytes already credited to duplicate ACKs that the cumulative ACK
    /// ending them will cover again.
    accounted: u64,
    /// Latest RTT sample and the smallest since the last reset.
    rtt: Time,
    rtt_min: Time,
    reset_rtt_min: bool,
    mss: u32,
    /// `ssthresh` was just asked (to tell a timeout that opens an episode,
    /// Linux CA_EVENT_LOSS, from a repeated one).
    ssthresh_asked: bool,
    per_ack: PerAckFilter,
    /// Linux's CA_EVENT_COMPLETE_CWR taken as Linux takes it
    /// (`with_complete_cwr`).
    complete_cwr: bool,
    /// Linux's ssthresh rule (`with_ssthresh`).
    ssthresh_rule: WestwoodSsthresh,
    /// The last timeout asked for ssthresh: Linux raised CA_EVENT_LOSS.
    loss_event: bool,
    /// HZ of Linux's jiffies (`with_hz`); 0: nanoseconds. When set,
    /// `rtt`, `rtt_min` and `rtt_win_sx` hold jiffies and `bw_ns_est`,
    /// `bw_est` bytes per jiffy.
    hz: u32,
}

impl Default for Westwood {
    fn default() -> Self {
        Self::new()
    }
}

impl Westwood {
    /// Westwood+ (Linux `westwood`).
    pub fn new() -> Self {
        Self::with_estimator(Estimator::PerRtt)
    }

    /// The original Westwood estimator of the MobiCom 2001 paper.
    pub fn original() -> Self {
        Self::with_estimator(Estimator::PerAck)
    }

    /// Linux tcp_westwood_init().
    pub fn with_estimator(estimator: Estimator) -> Self {
        Westwood {
            estimator,
            bw_ns_est: 0,
            bw_est: 0,
            rtt_win_sx: None,
            bk: 0,
            snd_una: None,
            cumul_ack: 0,
            accounted: 0,
            rtt: INIT_RTT,
            rtt_min: INIT_RTT,
            reset_rtt_min: true,
            mss: 1448,
            ssthresh_asked: false,
            per_ack: PerAckFilter::default(),
            complete_cwr: false,
            ssthresh_rule: WestwoodSsthresh::Bwe,
            loss_event: false,
            hz: 0,
        }
    }

    /// Where ssthresh comes from at a congestion signal (`[flow.westwood]
    /// ssthresh`; see `WestwoodSsthresh`).
    pub fn with_ssthresh(mut self, rule: WestwoodSsthresh) -> Self {
        self.ssthresh_rule = rule;
        self
    }

    /// Westwood+ in Linux's jiffies at HZ = `hz` (0: exact nanoseconds,
    /// the default); see the module comment. tcp_westwood_init() sets
    /// rtt = rtt_min = TCP_WESTWOOD_INIT_RTT = 20 HZ jiffies.
    pub fn with_hz(mut self, hz: u32) -> Self {
        self.hz = hz;
        if hz > 0 {
            self.rtt = 20 * u64::from(hz);
            self.rtt_min = self.rtt;
        }
        self
    }

    /// The clock in the estimator's unit: now, or tcp_jiffies32 (jiffies
    /// counted from the run's start).
    fn clock(&self, now: Time) -> Time {
        match self.hz {
            0 => now,
            hz => now / (SEC / u64::from(hz)),
        }
    }

    /// TCP_WESTWOOD_RTT_MIN in the estimator's unit (HZ / 20 jiffies).
    fn rtt_floor(&self) -> Time {
        match self.hz {
            0 => RTT_MIN,
            hz => u64::from(hz / 20),
        }
    }

    /// The interval's bandwidth sample: bytes per second, or Linux's `bk
    /// / delta` in whole bytes per jiffy.
    fn sample(&self, delta: Time) -> u64 {
        match self.hz {
            0 => (self.bk as u128 * SEC as u128 / delta as u128) as u64,
            _ => u64::from((self.bk as u32) / (delta as u32)),
        }
    }

    /// With `on`, the end of every window reduction sets cwnd = ssthresh
    /// = BWE x RTTmin from the estimate at that moment, as Linux 3.10+'s
    /// tcp_westwood_event() does on CA_EVENT_COMPLETE_CWR. Off (the
    /// default), `ssthresh` at the start stands in for it (module notes);
    /// the two differ where the recovery does not ask for ssthresh at all
    /// (QARR and BARR, `RecoveryOps::sets_ssthresh`), which Linux's
    /// event does not care about: it fires at tcp_end_cwnd_reduction()
    /// whichever rule steered the window during the recovery.
    pub fn with_complete_cwr(mut self, on: bool) -> Self {
        self.complete_cwr = on;
        self
    }

    /// The bandwidth estimate, bytes per second (bytes per jiffy x HZ
    /// with `with_hz`).
    pub fn bw_est(&self) -> u64 {
        match self.estimator {
            Estimator::PerRtt => self.bw_est * u64::from(self.hz.max(1)),
            Estimator::PerAck => self.per_ack.est as u64,
        }
    }

    /// The smallest RTT since the last reset (Linux `rtt_min`; whole
    /// jiffies with `with_hz`).
    pub fn rtt_min(&self) -> Time {
        match self.hz {
            0 => self.rtt_min,
            hz => self.rtt_min * (SEC / u64::from(hz)),
        }
    }

    /// Linux tcp_westwood_bw_rttmin(): BWE x RTTmin in segments, at least
    /// two; with `with_hz`, `max_t(u32, (w->bw_est * w->rtt_min) /
    /// tp->mss_cache, 2)` in the kernel's u32 bytes per jiffy and jiffies.
    pub fn bw_rttmin(&self) -> u64 {
        if self.hz > 0 && self.estimator == Estimator::PerRtt {
            let bdp = (self.bw_est as u32).wrapping_mul(self.rtt_min as u32);
            return u64::from((bdp / self.mss.max(1)).max(2));
        }
        let bdp = self.bw_est() as u128 * self.rtt_min as u128 / SEC as u128;
        ((bdp / self.mss.max(1) as u128) as u64).max(2)
    }

    /// Linux westwood_filter(): the first sample fills both stages, later
    /// ones go through the 7/8 EWMA twice.
    fn filter(&mut self, delta: Time) {
        let sample = self.sample(delta);
        if self.bw_ns_est == 0 && self.bw_est == 0 {
            self.bw_ns_est = sample;
            self.bw_est = sample;
        } else {
            self.bw_ns_est = do_filter(self.bw_ns_est, sample);
            self.bw_est = do_filter(self.bw_est, self.bw_ns_est);
        }
    }

    /// Linux westwood_update_window(): close the interval once it is
    /// longer than both the RTT and 50 ms (shorter intervals keep
    /// building the sample).
    fn update_window(&mut self, now: Time) {
        let now = self.clock(now);
        let start = *self.rtt_win_sx.get_or_insert(now);
        let delta = now.saturating_sub(start);
        if self.rtt > 0 && delta > self.rtt.max(self.rtt_floor()) {
            self.filter(delta);
            self.bk = 0;
            self.rtt_win_sx = Some(now);
        }
    }

    /// Linux westwood_acked_count(): bytes this ACK stands for. A
    /// duplicate ACK stands for one segment that arrived out of order
    /// (credited now, remembered in `accounted`); the cumulative ACK that
    /// later covers it counts only what was not credited already (or one
    /// segment, if the credit covers it all).
    fn acked_count(&mut self, snd_una: u64) -> u64 {
        let mss = self.mss as u64;
        let prev = self.snd_una.unwrap_or(snd_una);
        self.cumul_ack = snd_una.saturating_sub(prev);
        if self.cumul_ack == 0 {
            self.accounted += mss;
            self.cumul_ack = mss;
        }
        if self.cumul_ack > mss {
            if self.accounted >= self.cumul_ack {
                self.accounted -= self.cumul_ack;
                self.cumul_ack = mss;
            } else {
                self.cumul_ack -= self.accounted;
                self.accounted = 0;
            }
        }
        self.snd_una = Some(snd_una);
        self.cumul_ack
    }

    /// Linux update_rtt_min(), with the latest RTT sample.
    fn update_rtt_min(&mut self) {
        if self.reset_rtt_min {
            self.rtt_min = self.rtt;
            self.reset_rtt_min = false;
        } else {
            self.rtt_min = self.rtt_min.min(self.rtt);
        }
    }
}

/// Linux westwood_do_filter(): (7 a + b) / 8.
fn do_filter(a: u64, b: u64) -> u64 {
    (7 * a + b) >> 3
}

impl CongestionControl for Westwood {
    fn name(&self) -> String {
        match self.estimator {
            Estimator::PerRtt => "westwood".into(),
            Estimator::PerAck => "westwood-original".into(),
        }
    }

    /// BWE x RTTmin (see the module comment for why at the start of
    /// recovery rather than, as Linux, at its end), or with
    /// `WestwoodSsthresh::Linux` Linux's `.ssthresh = tcp_reno_ssthresh`:
    /// max(cwnd / 2, 2).
    fn ssthresh(&mut self, w: &Window, flight_size: u64) -> u64 {
        self.ssthresh_asked = true;
        match self.ssthresh_rule {
            WestwoodSsthresh::Bwe => self.bw_rttmin(),
            WestwoodSsthresh::Linux => Reno.ssthresh(w, flight_size),
        }
    }

    /// Linux tcp_reno_cong_avoid().
    fn cong_avoid(&mut self, w: &mut Window, acked: u64, ctx: &CcCtx) {
        Reno.cong_avoid(w, acked, ctx);
    }

    /// CA_EVENT_LOSS: ssthresh was set just before; RTTmin is re-learnt
    /// from the next ACK, since the path may have changed. A repeated
    /// timeout (no `ssthresh` asked) raises no event in Linux either.
    fn on_timeout(&mut self, _now: Time) {
        if std::mem::take(&mut self.ssthresh_asked) {
            self.reset_rtt_min = true;
            self.loss_event = true;
        }
    }

    /// tcp_westwood_event(), CA_EVENT_LOSS, which tcp_enter_loss() raises
    /// right after asking ssthresh: `tp->snd_ssthresh =
    /// tcp_westwood_bw_rttmin(sk)` (RTTmin not yet reset: that waits for
    /// the next ACK). Only with `WestwoodSsthresh::Linux`; otherwise
    /// `ssthresh` gave BWE x RTTmin already.
    fn ssthresh_after_timeout(&mut self, ssthresh: u64) -> u64 {
        let loss = std::mem::take(&mut self.loss_event);
        if loss && self.ssthresh_rule == WestwoodSsthresh::Linux {
            self.bw_rttmin()
        } else {
            ssthresh
        }
    }

    fn on_state(&mut self, _state: CaState, _w: &Window) {
        self.ssthresh_asked = false;
    }

    /// tcp_westwood_event(), CA_EVENT_COMPLETE_CWR: `tp->snd_cwnd =
    /// tp->snd_ssthresh = tcp_westwood_bw_rttmin(sk)`. The `cwnd =
    /// ssthresh` that tcp_end_cwnd_reduction() does just before raising
    /// the event is overwritten here, both values, so Westwood's result
    /// does not depend on whether the recovery took that step.
    fn complete_cwr(&mut self, w: &mut Window) {
        if self.complete_cwr {
            let win = self.bw_rttmin();
            w.cwnd = win;
            w.ssthresh = win;
        }
    }

    fn on_tx_start(&mut self, now: Time, _last_send: Time) {
        let now = self.clock(now);
        self.rtt_win_sx.get_or_insert(now);
    }

    /// Linux tcp_westwood_ack() (slow path), then
    /// tcp_westwood_pkts_acked().
    fn on_ack(&mut self, _w: &mut Window, ctx: &CcCtx) {
        self.ssthresh_asked = false;
        self.mss = ctx.mss.max(1);
        if self.snd_una.is_none() {
            // Linux's first_ack: the counting starts from the ACK point
            // before this ACK (Linux's init runs before the connection's
            // sequence numbers settle; here the controller does not see
            // them before the first ACK).
            self.snd_una = Some(ctx.snd_una.saturating_sub(ctx.bytes_acked));
        }
        match self.estimator {
            Estimator::PerRtt => {
                self.update_window(ctx.now);
                let b = self.acked_count(ctx.snd_una);
                self.bk += b;
            }
            Estimator::PerAck => {
                let b = self.acked_count(ctx.snd_una);
                self.per_ack.on_ack(ctx.now, b);
            }
        }
        self.update_rtt_min();
        if let Some(r) = ctx.rtt_sample.filter(|&r| r > 0) {
            match self.hz {
                0 => self.rtt = r,
                // tcp_westwood_pkts_acked(): `if (sample->rtt_us > 0)
                // w->rtt = usecs_to_jiffies(sample->rtt_us);`, rounding
                // up (exact for an HZ dividing 10^6).
                hz => {
                    let us = r / US;
                    if us > 0 {
                        self.rtt = usecs_to_jiffies(us, u64::from(hz));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn ack(now_ms: u64, una: u64, acked: u64, rtt_ms: Option<u64>) -> CcCtx {
        CcCtx {
            now: now_ms * MS,
            snd_una: una,
            bytes_acked: acked,
            rtt_sample: rtt_ms.map(|r| r * MS),
            mss: MSS as u32,
            ..Default::default()
        }
    }

    #[test]
    fn per_rtt_estimate_is_the_double_ewma_by_hand() {
        // RTT 100 ms. The interval opens at t = 0 (first transmission).
        // ACKs of 10 000 bytes every 10 ms; an interval closes on the
        // first ACK more than 100 ms after it opened, before that ACK's
        // bytes are added.
        let mut w = Westwood::new();
        w.on_tx_start(0, 0);
        let mut una = 0;
        // t = 10..100 ms: ten ACKs, 100 000 bytes. The t = 10 ms ACK
        // carries the first RTT sample; until then the 20 s initial RTT
        // keeps the interval open.
        for k in 1..=10 {
            una += 10_000;
            w.on_ack(&mut Window::new(10), &ack(10 * k, una, 10_000, Some(100)));
        }
        assert_eq!(w.bw_est(), 0);
        // t = 110 ms: delta 110 ms > 100 ms: the first sample, 100 000 B /
        // 0.110 s = 909 090 B/s, fills both stages.
        una += 10_000;
        w.on_ack(&mut Window::new(10), &ack(110, una, 10_000, Some(100)));
        assert_eq!((w.bw_ns_est, w.bw_est), (909_090, 909_090));
        // Next interval: 110 ms .. 220 ms. Slower ACKs: 5 000 bytes every
        // 10 ms, t = 120..210 (plus the 10 000 of t = 110 counted into this
        // interval): 10 000 + 10 x 5 000 = 60 000 bytes.
        for k in 1..=10 {
            una += 5_000;
            w.on_ack(
                &mut Window::new(10),
                &ack(110 + 10 * k, una, 5_000, Some(100)),
            );
        }
        // t = 221 ms: delta 111 ms. Sample 60 000 / 0.111 = 540 540 B/s.
        // bw_ns_est = (7 x 909 090 + 540 540) >> 3 = 6 904 170 >> 3
        //           = 863 021; bw_est = (7 x 909 090 + 863 021) >> 3
        //           = 7 226 651 >> 3 = 903 331.
        una += 5_000;
        w.on_ack(&mut Window::new(10), &ack(221, una, 5_000, Some(100)));
        assert_eq!(w.bw_ns_est, 863_021);
        assert_eq!(w.bw_est, 903_331);
    }

    #[test]
    fn intervals_are_at_least_50_ms() {
        // RTT 20 ms: the interval still runs to just past 50 ms.
        let mut w = Westwood::new();
        w.on_tx_start(0, 0);
        let mut una = 0;
        for k in 1..=5 {
            una += 1_000;
            w.on_ack(&mut Window::new(10), &ack(10 * k, una, 1_000, Some(20)));
        }
        // t = 50 ms: delta = 50 ms, not > 50 ms.
        assert_eq!(w.bw_est(), 0);
        una += 1_000;
        w.on_ack(&mut Window::new(10), &ack(51, una, 1_000, Some(20)));
        // 5 000 bytes / 0.051 s = 98 039 B/s.
        assert_eq!(w.bw_est(), 98_039);
    }

    #[test]
    fn duplicate_acks_count_one_segment_and_are_not_counted_twice() {
        let mut w = Westwood::new();
        w.on_tx_start(0, 0);
        // First ACK: 2 segments.
        w.on_ack(&mut Window::new(10), &ack(1, 2_000, 2_000, Some(50)));
        assert_eq!(w.bk, 2_000);
        // Three duplicate ACKs: one MSS each, remembered in `accounted`.
        for t in 2..=4 {
            w.on_ack(&mut Window::new(10), &ack(t, 2_000, 0, None));
        }
        assert_eq!((w.bk, w.accounted), (5_000, 3_000));
        // The retransmission fills the hole: snd.una jumps 5 segments
        // (the lost one and the 3 dupacked ones, plus one more). Of the
        // 5 000 bytes, 3 000 were credited: 2 000 count.
        w.on_ack(&mut Window::new(10), &ack(5, 7_000, 5_000, None));
        assert_eq!((w.bk, w.accounted), (7_000, 0));
        // A partial ACK smaller than the credit: one MSS counts, the
        // rest of the credit stays.
        for t in 6..=9 {
            w.on_ack(&mut Window::new(10), &ack(t, 7_000, 0, None));
        }
        assert_eq!(w.accounted, 4_000);
        w.on_ack(&mut Window::new(10), &ack(10, 9_000, 2_000, None));
        assert_eq!((w.bk, w.accounted), (7_000 + 4_000 + 1_000, 2_000));
        // An ACK of exactly one MSS never touches the credit.
        w.on_ack(&mut Window::new(10), &ack(11, 10_000, 1_000, None));
        assert_eq!((w.bk, w.accounted), (13_000, 2_000));
    }

    #[test]
    fn complete_cwr_sets_both_to_the_estimate_at_the_end_only_when_asked() {
        let mut w = Westwood::new();
        w.bw_est = 2_500_000; // 20 Mbit/s
        w.rtt_min = 100 * MS;
        w.mss = 1448;
        // 2 500 000 B/s x 0.100 s = 250 000 B; / 1448 = 172.65 -> 172.
        let mut win = Window::new(300);
        win.ssthresh = 1000;
        w.complete_cwr(&mut win);
        assert_eq!((win.cwnd, win.ssthresh), (300, 1000), "off by default");
        let mut w = w.with_complete_cwr(true);
        w.complete_cwr(&mut win);
        assert_eq!((win.cwnd, win.ssthresh), (172, 172));
        // It lowers and raises alike: Linux assigns.
        let mut win = Window::new(50);
        w.complete_cwr(&mut win);
        assert_eq!((win.cwnd, win.ssthresh), (172, 172));
    }

    /// The estimate of the test above, 172 segments, at cwnd 300. Linux's
    /// rule: fast recovery's ssthresh is Reno's 300 / 2 = 150; a timeout
    /// that asked for ssthresh gets 150 first, then CA_EVENT_LOSS's 172; a
    /// repeated timeout (none asked) keeps what the sender holds. "bwe":
    /// 172 at every signal.
    #[test]
    fn linux_ssthresh_is_renos_then_the_estimate_after_a_timeout() {
        let est = |rule: WestwoodSsthresh| {
            let mut w = Westwood::new().with_ssthresh(rule);
            w.bw_est = 2_500_000;
            w.rtt_min = 100 * MS;
            w.mss = 1448;
            w
        };
        let win = Window::new(300);
        let mut w = est(WestwoodSsthresh::Linux);
        assert_eq!(w.ssthresh(&win, 300), 150);
        w.on_state(CaState::Open, &win);
        let asked = w.ssthresh(&win, 300);
        w.on_timeout(0);
        assert_eq!((asked, w.ssthresh_after_timeout(asked)), (150, 172));
        w.on_timeout(0);
        assert_eq!(w.ssthresh_after_timeout(90), 90, "a repeated timeout");
        let mut w = est(WestwoodSsthresh::Bwe);
        assert_eq!(w.ssthresh(&win, 300), 172);
        w.on_timeout(0);
        assert_eq!(w.ssthresh_after_timeout(172), 172);
        // Floor: max(cwnd / 2, 2).
        let mut w = est(WestwoodSsthresh::Linux);
        assert_eq!(w.ssthresh(&Window::new(3), 3), 2);
    }

    #[test]
    fn ssthresh_is_bwe_times_rtt_min() {
        let mut w = Westwood::new();
        w.bw_est = 1_250_000; // 10 Mbit/s
        w.rtt_min = 80 * MS;
        w.mss = 1448;
        // 1 250 000 B/s x 0.080 s = 100 000 B; / 1448 = 69.06 -> 69.
        let win = Window::new(200);
        assert_eq!(w.ssthresh(&win, 200), 69);
        // Whatever cwnd was (Reno would give 100).
        assert_eq!(w.bw_rttmin(), 69);
        // The two-segment floor, e.g. before any estimate.
        assert_eq!(Westwood::new().ssthresh(&win, 200), 2);
    }

    #[test]
    fn rtt_min_follows_samples_and_a_timeout_resets_it() {
        let mut w = Westwood::new();
        // Linux's order: the interval and RTT-min use the sample of the
        // ACK before (INIT_RTT on the first).
        w.on_ack(&mut Window::new(10), &ack(0, 1_000, 1_000, Some(60)));
        assert_eq!(w.rtt_min(), INIT_RTT);
        w.on_ack(&mut Window::new(10), &ack(1, 2_000, 1_000, Some(40)));
        assert_eq!(w.rtt_min(), 60 * MS);
        w.on_ack(&mut Window::new(10), &ack(2, 3_000, 1_000, Some(90)));
        assert_eq!(w.rtt_min(), 40 * MS);
        w.on_ack(&mut Window::new(10), &ack(3, 4_000, 1_000, None));
        assert_eq!(w.rtt_min(), 40 * MS);
        // A timeout that opens an episode (ssthresh asked first):
        // RTT-min restarts from the latest sample, 90 ms.
        let win = Window::new(10);
        w.ssthresh(&win, 10);
        w.on_timeout(0);
        w.on_ack(&mut Window::new(10), &ack(4, 4_000, 0, None));
        assert_eq!(w.rtt_min(), 90 * MS);
        // A repeated timeout (no ssthresh asked) keeps it.
        w.on_ack(&mut Window::new(10), &ack(5, 5_000, 1_000, Some(70)));
        w.on_timeout(0);
        w.on_ack(&mut Window::new(10), &ack(6, 5_000, 0, None));
        assert_eq!(w.rtt_min(), 70 * MS);
    }

    #[test]
    fn grows_like_reno() {
        let (mut a, mut b) = (Window::new(10), Window::new(10));
        a.ssthresh = 20;
        b.ssthresh = 20;
        let mut w = Westwood::new();
        for acked in [8, 5, 1, 1, 1, 30, 2, 1] {
            w.cong_avoid(&mut a, acked, &CcCtx::default());
            Reno.cong_avoid(&mut b, acked, &CcCtx::default());
            assert_eq!(a, b);
        }
    }

    #[test]
    fn original_filter_by_hand() {
        // tau = 0.5 s. ACKs of 1000 bytes 10 ms apart: b_k = 100 000 B/s,
        // a = (1 - 0.01) / (1 + 0.01) = 0.99 / 1.01.
        let mut w = Westwood::original();
        w.on_ack(&mut Window::new(10), &ack(0, 1_000, 1_000, Some(50))); // starts the clock
        assert_eq!(w.bw_est(), 0);
        w.on_ack(&mut Window::new(10), &ack(10, 2_000, 1_000, Some(50)));
        // b^_1 = (1 - a)/2 x (100 000 + 0) = (0.02/1.01)/2 x 100 000
        //      = 990.099...
        let a: f64 = 0.99 / 1.01;
        let e1 = (1.0 - a) / 2.0 * 100_000.0;
        assert!((w.per_ack.est - e1).abs() < 1e-6);
        assert_eq!(w.bw_est(), 990);
        // b^_2 = a b^_1 + (1 - a)/2 x (100 000 + 100 000)
        //      = 970.49 + 1980.20 = 2950.69.
        w.on_ack(&mut Window::new(10), &ack(20, 3_000, 1_000, Some(50)));
        let e2 = a * e1 + (1.0 - a) * 100_000.0;
        assert!((w.per_ack.est - e2).abs() < 1e-6);
        assert_eq!(w.bw_est(), 2950);
        // Held long enough, the estimate converges to the rate.
        let mut una = 3_000;
        for k in 3..=1000 {
            una += 1_000;
            w.on_ack(&mut Window::new(10), &ack(10 * k, una, 1_000, Some(50)));
        }
        assert!((w.bw_est() as f64 - 100_000.0).abs() < 10.0);
        assert_eq!(w.name(), "westwood-original");
    }

    #[test]
    fn original_filter_decays_through_virtual_null_samples() {
        // After a silence of 600 ms (> tau / 2 = 250 ms): two virtual null
        // samples at +250 and +500 ms, each with a = (1 - 0.25)/(1 + 0.25)
        // = 0.6 and (b_k + b_{k-1}) / 2 = (0 + b_{k-1}) / 2.
        let mut f = PerAckFilter {
            est: 100_000.0,
            last_sample: 100_000.0,
            last: Some(0),
            pending: 0,
        };
        f.on_ack(600 * MS, 0);
        // First null: 0.6 x 100 000 + 0.4/2 x 100 000 = 80 000.
        // Second:     0.6 x 80 000 + 0.2 x 0 = 48 000.
        // The ACK itself (0 bytes, dt = 100 ms, a = 0.9/1.1):
        //             0.8182 x 48 000 = 39 272.7.
        let a = 0.9 / 1.1;
        assert!((f.est - a * 48_000.0).abs() < 1e-6, "{}", f.est);
        // Two ACKs at the same instant make one sample.
        f.on_ack(610 * MS, 1_000);
        let before = f.est;
        f.on_ack(610 * MS, 1_000);
        assert_eq!(f.est, before);
        assert_eq!(f.pending, 1_000);
    }

    /// `with_hz(250)` (4 ms jiffies), worked in tcp_westwood.c's units:
    /// the interval opens at jiffy 0 (first transmission); ACKs of 10 000
    /// bytes every 10 ms carry 101 ms samples, w->rtt =
    /// usecs_to_jiffies(101000) = (101000 + 3999) / 4000 = 26 jiffies (25.25
    /// rounded up). The t = 10 ms ACK judges against the initial 20 HZ =
    /// 5000 jiffies and rtt_min becomes 5000 (reset), then 26 from the next
    /// ACK. An interval closes when delta > max(26, HZ / 20 = 12): jiffy
    /// 27, the ACK at 110 ms (110 / 4 = 27; at 100 ms, 25). bk = the ten
    /// ACKs of 10..100 ms = 100000 bytes, sample 100000 / 27 = 3703 bytes
    /// per jiffy (3703.7), the first, so bw_est = 3703 (x 250 = 925750
    /// B/s). BWE x RTTmin = 3703 x 26 / 1000 = 96278 / 1000 = 96 segments.
    /// In nanoseconds (hz 0) the same ACKs give 100000 B / 0.110 s =
    /// 909090 B/s and 909090 x 0.101 / 1000 = 91.8 -> 91.
    #[test]
    fn linux_jiffies_at_hz_250() {
        let run = |hz: u32| {
            let mut w = Westwood::new().with_hz(hz);
            w.on_tx_start(0, 0);
            for k in 1..=11u64 {
                w.on_ack(
                    &mut Window::new(10),
                    &ack(k * 10, k * 10_000, 10_000, Some(101)),
                );
            }
            w
        };
        let w = run(250);
        assert_eq!(w.bw_est, 3703);
        assert_eq!(w.bw_est(), 925_750);
        assert_eq!(w.rtt, 26);
        assert_eq!(w.rtt_min(), 26 * 4 * MS);
        assert_eq!(w.bw_rttmin(), 96);
        assert_eq!(w.rtt_win_sx, Some(27));
        let w = run(0);
        assert_eq!(w.bw_est(), 909_090);
        assert_eq!(w.bw_rttmin(), 91);
        // TCP_WESTWOOD_RTT_MIN is HZ / 20 jiffies: 12 (48 ms) at 250.
        assert_eq!(Westwood::new().with_hz(250).rtt_floor(), 12);
        assert_eq!(Westwood::new().with_hz(250).rtt_min(), 20 * SEC);
    }
}
