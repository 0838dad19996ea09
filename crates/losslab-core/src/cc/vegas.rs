//! TCP Vegas as Linux runs it (net/ipv4/tcp_vegas.c, tcp_vegas.h; Brakmo
//! and Peterson, "TCP Vegas: End to end congestion avoidance on a global
//! internet", IEEE JSAC 13(8), 1995).
//!
//! Once per RTT Vegas compares the window with what the path carries
//! without a queue: diff = cwnd (RTT - BaseRTT) / BaseRTT is about the
//! number of its segments sitting in the bottleneck queue (BaseRTT the
//! smallest RTT ever seen, RTT the smallest of the last round, which
//! filters out delayed ACKs). In congestion avoidance cwnd grows by one
//! when diff < alpha (2), shrinks by one when diff > beta (4), and holds
//! otherwise, so the flow keeps a few segments queued and no more. Slow
//! start is Reno's (every RTT, not Arizona's every other) and ends as soon
//! as diff > gamma (1), with cwnd set to what the measured rate needs
//! (cwnd BaseRTT / RTT, plus one). The loss response is Reno's
//! (tcp_reno_ssthresh: half of cwnd).
//!
//! RTTs are microseconds plus one, as in Linux, so the integer
//! truncations are Linux's. Until a round has more than two samples (one
//! ACK per RTT would be delayed ACKs), and out of the Open state, Vegas
//! behaves like Reno.
//!
//! Hook mapping: `on_ack` is pkts_acked(); `on_state` is set_state()
//! (enable on Open, disable otherwise); `on_tx_start` is
//! cwnd_event(CA_EVENT_TX_START), which re-initialises Vegas (the engine
//! has no separate CA_EVENT_CWND_RESTART). Linux calls set_state() after
//! pkts_acked() on the ACK that ends a recovery and vegas_enable() wipes
//! the round, that ACK's sample included; `on_state(Open)` comes before
//! `on_ack` here, so the enable is held until `on_ack` has taken the sample.
//! It also needs snd.nxt, which `on_state` and `on_tx_start` do not carry:
//! the enable takes it from the ACK it is applied on, and a transmission
//! after idle starts from the last snd.una seen (nothing is in flight
//! then, so snd.nxt equals it).
//!
//! Which ACKs reach `cong_avoid` (`[flow.vegas] gate`, `VegasGate`): by
//! default the engine's, only while cwnd-limited, like every controller.
//! Linux's tcp_cong_avoid() hands tcp_vegas_cong_avoid() every ACK that
//! may raise cwnd, and only its Reno fallback (tcp_reno_cong_avoid())
//! tests tcp_is_cwnd_limited(): the once-per-round adjustment and slow
//! start run for an application-limited flow too (read at 3.10.105; 6.x
//! is the same).
//!
//! Gaps: the engine has no Disorder state, so duplicate ACKs
//! before a recovery do not disable Vegas as Linux's Open -> Disorder
//! transition does; there is no cwnd clamp (`snd_cwnd_clamp`).

use super::veno::vrtt_us;
use super::{grow_in_slow_start, in_slow_start, CaState, CcCtx, CongestionControl, Reno};
use crate::time::Time;
use crate::window::Window;

/// Linux's "no sample yet" RTT (0x7fffffff microseconds).
const NO_RTT: u64 = 0x7fff_ffff;

/// Which ACKs Vegas adjusts cwnd on (`[flow.vegas] gate`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VegasGate {
    /// Only while the flow is cwnd-limited, the sender's test for every
    /// controller (the behaviour before the key).
    #[default]
    CwndLimited,
    /// Linux's: every ACK that may raise cwnd; only the Reno fallback
    /// asks tcp_is_cwnd_limited().
    Linux,
}

impl VegasGate {
    pub const NAMES: &'static [&'static str] = &["cwnd-limited", "linux"];
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "cwnd-limited" => Some(VegasGate::CwndLimited),
            "linux" => Some(VegasGate::Linux),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            VegasGate::CwndLimited => "cwnd-limited",
            VegasGate::Linux => "linux",
        }
    }
}

/// ssthresh when Vegas lowers cwnd (`[flow.vegas] ssthresh`):
/// tcp_vegas_ssthresh() on the window just set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VegasSsthresh {
    /// min(ssthresh, cwnd): Linux 5.x-6.x (read at 5.2 and 6.x), and the
    /// behaviour before the key.
    #[default]
    Cwnd,
    /// min(ssthresh, cwnd - 1): Linux up to 4.10 at least (read at
    /// 3.10.105 and 4.10.17), so a per-ACK slow-start test (cwnd <=
    /// ssthresh) stays false after a decrease.
    CwndMinusOne,
}

impl VegasSsthresh {
    pub const NAMES: &'static [&'static str] = &["cwnd", "cwnd-1"];
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "cwnd" => Some(VegasSsthresh::Cwnd),
            "cwnd-1" => Some(VegasSsthresh::CwndMinusOne),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            VegasSsthresh::Cwnd => "cwnd",
            VegasSsthresh::CwndMinusOne => "cwnd-1",
        }
    }

    /// tcp_vegas_ssthresh() on `w`'s new cwnd.
    fn apply(self, w: &Window) -> u64 {
        match self {
            VegasSsthresh::Cwnd => w.ssthresh.min(w.cwnd),
            VegasSsthresh::CwndMinusOne => w.ssthresh.min(w.cwnd.saturating_sub(1)),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Vegas {
    /// Module parameters: lower and upper bound of the backlog in
    /// congestion avoidance, and the slow-start exit threshold, segments.
    alpha: u64,
    beta: u64,
    gamma: u64,
    doing_vegas_now: bool,
    /// snd.nxt when the current round began; the round ends when snd.una
    /// passes it.
    beg_snd_nxt: u64,
    /// Samples this round, their minimum, and the minimum of all time
    /// (microseconds plus one).
    cnt_rtt: u64,
    min_rtt: u64,
    base_rtt: u64,
    /// set_state(Open) arrived; applied after this ACK's sample.
    enable_pending: bool,
    /// snd.una of the last ACK.
    last_snd_una: u64,
    gate: VegasGate,
    ssthresh_rule: VegasSsthresh,
}

impl Default for Vegas {
    fn default() -> Self {
        Self::new()
    }
}

impl Vegas {
    /// Linux's defaults: alpha = 2, beta = 4, gamma = 1.
    pub fn new() -> Self {
        Self::with_params(2, 4, 1)
    }

    /// Linux tcp_vegas_init() with the module parameters given.
    pub fn with_params(alpha: u64, beta: u64, gamma: u64) -> Self {
        Vegas {
            alpha,
            beta,
            gamma,
            doing_vegas_now: true,
            beg_snd_nxt: 0,
            cnt_rtt: 0,
            min_rtt: NO_RTT,
            base_rtt: NO_RTT,
            enable_pending: false,
            last_snd_una: 0,
            gate: VegasGate::CwndLimited,
            ssthresh_rule: VegasSsthresh::Cwnd,
        }
    }

    /// Which tcp_vegas_ssthresh() (`VegasSsthresh`).
    pub fn with_ssthresh(mut self, rule: VegasSsthresh) -> Self {
        self.ssthresh_rule = rule;
        self
    }

    /// Which ACKs reach the adjustment (`VegasGate`).
    pub fn with_gate(mut self, gate: VegasGate) -> Self {
        self.gate = gate;
        self
    }

    /// tcp_reno_cong_avoid(), which returns unless tcp_is_cwnd_limited().
    /// Under the engine's gate the sender asked already.
    fn reno(&self, w: &mut Window, acked: u64, ctx: &CcCtx) {
        if self.gate == VegasGate::CwndLimited || ctx.cwnd_limited {
            Reno.cong_avoid(w, acked, ctx);
        }
    }

    /// BaseRTT in microseconds plus one (None before a sample).
    pub fn base_rtt_us(&self) -> Option<u64> {
        (self.base_rtt != NO_RTT).then_some(self.base_rtt)
    }

    /// Linux vegas_enable().
    fn enable(&mut self, snd_nxt: u64) {
        self.doing_vegas_now = true;
        self.beg_snd_nxt = snd_nxt;
        self.cnt_rtt = 0;
        self.min_rtt = NO_RTT;
    }

    /// The once-per-round decision (the body of tcp_vegas_cong_avoid()
    /// with enough samples).
    fn adjust(&mut self, w: &mut Window, acked: u64, ctx: &CcCtx) {
        let rtt = self.min_rtt;
        let base = self.base_rtt;
        // The window the measured rate needs: (actual rate) x BaseRTT.
        let target = (w.cwnd as u128 * base as u128 / rtt as u128) as u64;
        // Arizona's Diff: segments of ours in the queue.
        let diff = (w.cwnd as u128 * rtt.saturating_sub(base) as u128 / base as u128) as u64;
        if diff > self.gamma && in_slow_start(w, ctx) {
            // Going too fast: match the measured rate, plus one for the
            // integer truncation, and leave slow start.
            w.cwnd = w.cwnd.min(target + 1);
            w.ssthresh = self.ssthresh_rule.apply(w);
        } else if in_slow_start(w, ctx) {
            grow_in_slow_start(w, acked, ctx);
        } else if diff > self.beta {
            w.cwnd -= 1;
            w.ssthresh = self.ssthresh_rule.apply(w);
        } else if diff < self.alpha {
            w.cwnd += 1;
        }
        w.cwnd = w.cwnd.max(2);
        // tcp_current_ssthresh() outside a cwnd reduction: at least 3/4 of
        // cwnd, so a decrease does not send the flow back to slow start.
        w.ssthresh = w.ssthresh.max((w.cwnd >> 1) + (w.cwnd >> 2));
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> String {
        "vegas".into()
    }

    /// Linux 3.2-3.14 tcp_vegas: `.flags = TCP_CONG_RTT_STAMP`.
    fn rtt_stamp(&self, _tick: Time) -> bool {
        true
    }

    /// Linux tcp_reno_ssthresh(): max(cwnd / 2, 2).
    fn ssthresh(&mut self, w: &Window, _flight_size: u64) -> u64 {
        (w.cwnd / 2).max(2)
    }

    /// Linux tcp_vegas_cong_avoid().
    fn cong_avoid(&mut self, w: &mut Window, acked: u64, ctx: &CcCtx) {
        if !self.doing_vegas_now {
            self.reno(w, acked, ctx);
            return;
        }
        if ctx.snd_una > self.beg_snd_nxt {
            // A round is over: the next ends when this ACK's snd.nxt is
            // acknowledged.
            self.beg_snd_nxt = ctx.snd_nxt;
            if self.cnt_rtt <= 2 {
                // Two samples a round are one delayed-ACK pair: not enough
                // to tell queueing from ACK delay. Reno.
                self.reno(w, acked, ctx);
            } else {
                self.adjust(w, acked, ctx);
            }
            self.cnt_rtt = 0;
            self.min_rtt = NO_RTT;
        } else if in_slow_start(w, ctx) {
            grow_in_slow_start(w, acked, ctx);
        }
    }

    fn tests_cwnd_limited(&self) -> bool {
        self.gate == VegasGate::Linux
    }

    /// Linux tcp_vegas_pkts_acked().
    fn on_ack(&mut self, _w: &mut Window, ctx: &CcCtx) {
        if let Some(r) = ctx.rtt_sample {
            let vrtt = vrtt_us(r);
            self.base_rtt = self.base_rtt.min(vrtt);
            self.min_rtt = self.min_rtt.min(vrtt);
            self.cnt_rtt += 1;
        }
        if std::mem::take(&mut self.enable_pending) {
            self.enable(ctx.snd_nxt);
        }
        self.last_snd_una = ctx.snd_una;
    }

    /// Linux tcp_vegas_state().
    fn on_state(&mut self, state: CaState, _w: &Window) {
        if state == CaState::Open {
            self.enable_pending = true;
        } else {
            self.enable_pending = false;
            self.doing_vegas_now = false;
        }
    }

    /// Linux tcp_vegas_cwnd_event(CA_EVENT_TX_START) -> tcp_vegas_init():
    /// forget BaseRTT and start a round at the idle snd.nxt.
    fn on_tx_start(&mut self, _now: Time, _last_send: Time) {
        self.base_rtt = NO_RTT;
        self.enable_pending = false;
        self.enable(self.last_snd_una);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{rtt_ack as ack, window};
    use super::*;

    /// One round: `n` ACKs with RTT `rtt_ms` that do not pass the round's
    /// beg_snd_nxt, then the ACK that does. Returns cwnd after.
    fn round(v: &mut Vegas, w: &mut Window, rtt_ms: u64, n: u64) -> u64 {
        let beg = v.beg_snd_nxt;
        for _ in 0..n {
            let a = ack(Some(rtt_ms), beg, beg + 500);
            v.on_ack(&mut Window::new(10), &a);
            v.cong_avoid(w, 1, &a);
        }
        let a = ack(Some(rtt_ms), beg + 1, beg + 1000);
        v.on_ack(&mut Window::new(10), &a);
        v.cong_avoid(w, 1, &a);
        assert_eq!(v.beg_snd_nxt, beg + 1000);
        w.cwnd
    }

    /// Vegas whose BaseRTT is 100 ms (100 001 us) and whose current round
    /// ends at snd.una > 1000.
    fn primed() -> Vegas {
        let mut v = Vegas::new();
        v.beg_snd_nxt = 1000;
        v.on_ack(&mut Window::new(10), &ack(Some(100), 0, 1000));
        v.cnt_rtt = 0;
        v.min_rtt = NO_RTT;
        v
    }

    #[test]
    fn increase_hold_decrease_by_hand() {
        // cwnd 20 in congestion avoidance, BaseRTT 100 001 us.
        // RTT 105 ms (105 001 us): diff = 20 x 5 000 / 100 001 = 0
        // (0.99995) < alpha 2: +1. tcp_current_ssthresh() then lifts
        // ssthresh to max(10, 21/2 + 21/4) = 10 + 5 = 15.
        let mut v = primed();
        let mut w = window(20, 10);
        assert_eq!(round(&mut v, &mut w, 105, 5), 21);
        assert_eq!(w.ssthresh, 15);
        // Inside a round nothing moves (no Reno growth in avoidance).
        assert_eq!(w.cwnd_cnt, 0);
        // RTT 115 ms: diff = 21 x 15 000 / 100 001 = 3 (3.1499): between
        // alpha and beta: hold.
        assert_eq!(round(&mut v, &mut w, 115, 5), 21);
        // RTT 125 ms: diff = 21 x 25 000 / 100 001 = 5 (5.2499) > beta 4:
        // -1, ssthresh = min(15, 20) = 15 (tcp_vegas_ssthresh() of 5.x+),
        // then max(15, 20/2 + 20/4 = 15).
        assert_eq!(round(&mut v, &mut w, 125, 5), 20);
        assert_eq!(w.ssthresh, 15);
        // The +1 in the microsecond RTT counts: at cwnd 20, 120 ms gives
        // 20 x 20 000 / 100 001 = 3 (3.99996), not 4: hold, where 4.0
        // would still hold (the decrease needs > 4).
        assert_eq!(round(&mut v, &mut w, 120, 5), 20);
    }

    #[test]
    fn slow_start_ends_when_diff_exceeds_gamma() {
        // Slow start, cwnd 32; three in-round ACKs take it to 35. RTT 104
        // ms (104 001 us): diff = 35 x 4 000 / 100 001 = 1 (1.39999): not
        // > gamma, slow start goes on (the round-end ACK grows cwnd too:
        // 36).
        let mut v = primed();
        let mut w = window(32, u64::MAX / 4);
        assert_eq!(round(&mut v, &mut w, 104, 3), 36);
        // RTT 110 ms (110 001 us) at cwnd 39 (3 more in-round ACKs):
        // diff = 39 x 10 000 / 100 001 = 3 > 1: exit. target = 39 x
        // 100 001 / 110 001 = 35 (35.45): cwnd = min(39, 36) = 36,
        // ssthresh = min(inf, 36) = 36 (5.x+), then max(36, 18 + 9) = 36;
        // up to 4.10 min(inf, 36 - 1) = 35, then max(35, 27) = 35.
        let mut v4 = v.clone().with_ssthresh(VegasSsthresh::CwndMinusOne);
        let mut w4 = w;
        assert_eq!(round(&mut v, &mut w, 110, 3), 36);
        assert_eq!(w.ssthresh, 36);
        assert_eq!(round(&mut v4, &mut w4, 110, 3), 36);
        assert_eq!(w4.ssthresh, 35);
        assert!(!w.in_slow_start());
    }

    #[test]
    fn reno_with_too_few_samples() {
        // Two samples in the round: the round-end ACK is Reno's (CA: one
        // segment per cwnd ACKs), never Vegas's +1/-1.
        let mut v = primed();
        let mut w = window(20, 10);
        let mut r = window(20, 10);
        // A huge queue (RTT 300 ms) would make Vegas decrease.
        for k in 0..1 {
            let a = ack(Some(300), k, 1000);
            v.on_ack(&mut Window::new(10), &a);
            v.cong_avoid(&mut w, 1, &a);
        }
        let a = ack(Some(300), 1001, 2000);
        v.on_ack(&mut Window::new(10), &a);
        v.cong_avoid(&mut w, 1, &a);
        Reno.cong_avoid(&mut r, 1, &a);
        assert_eq!((w.cwnd, w.cwnd_cnt), (r.cwnd, r.cwnd_cnt));
        assert_eq!(w.cwnd, 20);
        // The next round starts at the round-end ACK's snd.nxt.
        assert_eq!(v.beg_snd_nxt, 2000);
        // Without any RTT samples at all, likewise.
        let mut v = Vegas::new();
        let mut w = window(4, 100);
        let a = ack(None, 1000, 5000);
        v.on_ack(&mut Window::new(10), &a);
        v.cong_avoid(&mut w, 2, &a);
        assert_eq!(w.cwnd, 6);
    }

    #[test]
    fn disabled_out_of_open_and_re_enabled_with_a_fresh_round() {
        let mut v = primed();
        let mut w = window(20, 10);
        v.on_state(CaState::Recovery, &w);
        assert!(!v.doing_vegas_now);
        // Out of Open (e.g. in Loss) growth is Reno's.
        v.on_state(CaState::Loss, &w);
        let a = ack(Some(100), 5000, 9000);
        v.on_ack(&mut Window::new(10), &a);
        v.cong_avoid(&mut w, 20, &a);
        assert_eq!(w.cwnd, 21);
        // Back in Open: the enable waits for the ACK's sample, then wipes
        // the round and starts the next at this ACK's snd.nxt.
        v.on_state(CaState::Open, &w);
        v.on_ack(&mut Window::new(10), &ack(Some(100), 9000, 12_000));
        assert!(v.doing_vegas_now);
        assert_eq!((v.cnt_rtt, v.min_rtt, v.beg_snd_nxt), (0, NO_RTT, 12_000));
    }

    #[test]
    fn decrease_keeps_ssthresh_below_the_new_window_up_to_4_10() {
        // cwnd 12, ssthresh 11 (just left slow start): RTT 150 ms, diff =
        // 12 x 50 000 / 100 001 = 5 > beta: cwnd 11, ssthresh = min(11,
        // 11 - 1) = 10, then max(10, 5 + 2) = 10 (3.10, 4.10). 5.x+ keeps
        // min(11, 11) = 11 = cwnd, where its cwnd < ssthresh test stays
        // false too.
        let mut v = primed().with_ssthresh(VegasSsthresh::CwndMinusOne);
        let mut w = window(12, 11);
        assert_eq!(round(&mut v, &mut w, 150, 5), 11);
        assert_eq!(w.ssthresh, 10);
        let mut v = primed();
        let mut w = window(12, 11);
        assert_eq!(round(&mut v, &mut w, 150, 5), 11);
        assert_eq!(w.ssthresh, 11);
    }

    #[test]
    fn linux_gate_adjusts_an_application_limited_flow() {
        // Not cwnd-limited: the sender still calls cong_avoid() under the
        // Linux gate. The round's +1 is Vegas's own; the Reno fallback
        // (too few samples) asks tcp_is_cwnd_limited() and holds.
        let limited = |mut a: CcCtx, l: bool| {
            a.cwnd_limited = l;
            a
        };
        let mut v = primed().with_gate(VegasGate::Linux);
        assert!(v.tests_cwnd_limited());
        assert!(!primed().tests_cwnd_limited());
        let mut w = window(20, 10);
        let beg = v.beg_snd_nxt;
        for k in 0..3 {
            let a = limited(ack(Some(105), beg - 3 + k, beg + 500), false);
            v.on_ack(&mut Window::new(10), &a);
            v.cong_avoid(&mut w, 1, &a);
        }
        let a = limited(ack(Some(105), beg + 1, beg + 1000), false);
        v.on_ack(&mut Window::new(10), &a);
        v.cong_avoid(&mut w, 1, &a);
        assert_eq!(w.cwnd, 21);
        // Next round, two samples only: Reno's fallback, not limited.
        let beg = v.beg_snd_nxt;
        let a = limited(ack(Some(105), beg, beg), false);
        v.on_ack(&mut Window::new(10), &a);
        v.cong_avoid(&mut w, 1, &a);
        let a = limited(ack(Some(105), beg + 1, beg + 2000), false);
        v.on_ack(&mut Window::new(10), &a);
        let before = (w.cwnd, w.cwnd_cnt);
        v.cong_avoid(&mut w, 1, &a);
        assert_eq!((w.cwnd, w.cwnd_cnt), before);
        // The same ACK while cwnd-limited counts for Reno.
        let mut v2 = v.clone();
        v2.beg_snd_nxt = beg;
        let mut w2 = w;
        v2.cong_avoid(&mut w2, 1, &limited(a, true));
        assert_eq!(w2.cwnd_cnt, before.1 + 1);
    }

    #[test]
    fn tx_start_forgets_base_rtt() {
        let mut v = primed();
        v.on_ack(&mut Window::new(10), &ack(Some(100), 7000, 7000));
        v.on_tx_start(0, 0);
        assert_eq!(v.base_rtt_us(), None);
        assert_eq!(v.beg_snd_nxt, 7000);
        v.on_ack(&mut Window::new(10), &ack(Some(80), 8000, 9000));
        assert_eq!(v.base_rtt_us(), Some(80_001));
        // Custom parameters.
        let v = Vegas::with_params(1, 3, 2);
        assert_eq!((v.alpha, v.beta, v.gamma), (1, 3, 2));
    }
}
