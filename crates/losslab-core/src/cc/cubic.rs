//! CUBIC congestion control, RFC 9438 (which obsoletes RFC 8312), with the
//! per-ACK mechanics of Linux net/ipv4/tcp_cubic.c (`bictcp_update()`,
//! `cubictcp_recalc_ssthresh()`): the window grows toward a target through
//! `cwnd_cnt`, one segment per `cnt` segments acknowledged.
//!
//! Units: windows in segments (RFC 9438 section 4.1 works in segments too),
//! time in seconds as f64. The arithmetic is f64 with only IEEE 754 basic
//! operations (+ - * / and comparisons; the cube root is our own Newton
//! iteration, not libm's `cbrt`), so a run is bit-for-bit reproducible on
//! any platform with IEEE 754 doubles. Linux uses fixed point with a
//! 1/1024 s clock and a table-driven cube root; the curves agree to well
//! under one segment at the windows we simulate.
//!
//! Slow start is RFC 5681's (RFC 9438 section 4.10 allows it) unless a
//! slow-start exit is asked for (`with_slow_start_exit`, scenario
//! `[flow.cubic] hystart`): the older HyStart (hystart.rs `HyStart`,
//! `true` or `"linux"`, a blend of kernel versions), Linux 6.x's HyStart
//! (hystart.rs `HyStartLinux6`, `"linux-6"`, the code `cubic-linux`
//! runs, fed every ACK through `on_ack` as Linux's pkts_acked() is),
//! Linux 4.10's or 3.x's (hystart.rs `HyStartOld`, `"linux-4.10"`,
//! `"linux-3"`, also through `on_ack`, its round restarted in
//! `cong_avoid` as bictcp_cong_avoid() does) or
//! HyStart++ (RFC 9406, which section 4.10 prefers;
//! hystart_plus_plus.rs, `"hystart++"`).
//!
//! Against Linux tcp_cubic.c: fast convergence (`bictcp_recalc_ssthresh`),
//! the Reno-friendly region (`tcp_friendliness`), the at-most-1.5-cwnd
//! clamp (`cnt >= 2`), the 5%-per-RTT floor while W_max is unknown
//! (`last_max_cwnd == 0`, cnt <= 20), the idle shift of the epoch
//! (`cubictcp_cwnd_event(CA_EVENT_TX_START)`) and the undo
//! (`tcp_reno_undo_cwnd`, the trait's default) are all here. The
//! Reno-friendly estimate is RFC 9438's (alpha_cubic, then 1 once W_est
//! passes cwnd_prior); Linux's `ack_cnt` / `tcp_cwnd` counts one segment
//! per cwnd * 15 / 8 ACKs (beta_scale 15, about alpha 0.53) and never
//! switches to 1. Not implemented: the spurious-congestion undo of RFC
//! 9438 section 4.9 (a DSACK undo restores cwnd and ssthresh only; Linux
//! does the same) and ECN.

use super::cubic_linux::{jiffies32, HZ};
use super::{
    additive_increase, grow_in_slow_start, in_slow_start, CaState, CcCtx, CongestionControl,
    HyStart, HyStartLinux6, HyStartMode, HyStartOld, HyStartPlusPlus, OldKernel,
};
use crate::time::{Time, SEC};
use crate::window::Window;

/// RFC 9438 section 4.6: beta_cubic = 0.7, kept as a fraction so ssthresh
/// is exact integer arithmetic.
const BETA_NUM: u64 = 7;
const BETA_DEN: u64 = 10;
/// beta_cubic as f64.
pub const BETA: f64 = 0.7;
/// RFC 9438 section 5.1: C = 0.4 segments / s^3 ("SHOULD be set to 0.4").
pub const C: f64 = 0.4;
/// RFC 9438 section 4.3: alpha_cubic = 3 (1 - beta) / (1 + beta) = 9/17,
/// the additive factor that gives AIMD(alpha, beta) Reno's average window.
pub const ALPHA: f64 = 3.0 * (1.0 - BETA) / (1.0 + BETA);

/// Linux bictcp_update(): while W_max is unknown (`last_max_cwnd == 0`:
/// before the first loss, e.g. after HyStart ended slow start, and after a
/// timeout) cwnd grows at least one segment per 20 acknowledged, 5% per
/// RTT; the cubic curve from K = 0 would be nearly flat for seconds.
pub const UNKNOWN_W_MAX_CNT: u64 = 20;

/// The slow-start exit in use.
#[derive(Clone, Debug)]
enum SlowStartExit {
    Standard,
    Linux(HyStart),
    Linux6(HyStartLinux6),
    Old(HyStartOld),
    PlusPlus(HyStartPlusPlus),
}

/// One congestion-avoidance stage (RFC 9438 section 4.2 "epoch").
#[derive(Clone, Debug)]
struct Epoch {
    /// t: seconds of the stage so far, in nanoseconds, counting only time
    /// the sender was cwnd-limited (see `cong_avoid`).
    elapsed: Time,
    /// When `cong_avoid` last ran in this stage.
    last: Time,
    /// K, seconds.
    k: f64,
    /// The W_max this stage's curve is centred on (Linux
    /// `bic_origin_point`); cwnd_epoch when that is above W_max.
    origin: f64,
    /// W_est, segments (section 4.3).
    w_est: f64,
}

#[derive(Clone, Debug)]
pub struct Cubic {
    /// RFC 9438 section 4.7; on by default as in Linux. The section says
    /// to disable it for a lone flow, which a sender cannot know.
    fast_convergence: bool,
    /// RFC 9438 section 4.3 (Linux `tcp_friendliness`); off only to study
    /// the pure cubic curve.
    reno_friendly: bool,
    /// W_max, segments; 0 when unknown (before the first congestion event
    /// and after a timeout, section 4.8).
    w_max: f64,
    /// cwnd_prior: cwnd when ssthresh was last set (section 4.1).
    cwnd_prior: f64,
    /// None until the next congestion-avoidance ACK starts a stage.
    epoch: Option<Epoch>,
    /// The slow-start exit (RFC 5681 slow start by default).
    hystart: SlowStartExit,
}

impl Default for Cubic {
    fn default() -> Self {
        Self::new()
    }
}

impl Cubic {
    /// CUBIC as Linux runs it by default: fast convergence and the
    /// Reno-friendly region both on.
    pub fn new() -> Self {
        Self::with_options(true, true)
    }

    pub fn with_options(fast_convergence: bool, reno_friendly: bool) -> Self {
        Cubic {
            fast_convergence,
            reno_friendly,
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch: None,
            hystart: SlowStartExit::Standard,
        }
    }

    /// With Linux's HyStart ending slow start (hystart.rs).
    pub fn with_hystart(self) -> Self {
        self.with_slow_start_exit(HyStartMode::Linux)
    }

    /// With the given slow-start exit (`Off`: RFC 5681 slow start).
    pub fn with_slow_start_exit(mut self, mode: HyStartMode) -> Self {
        self.hystart = match mode {
            HyStartMode::Off => SlowStartExit::Standard,
            HyStartMode::Linux => SlowStartExit::Linux(HyStart::default()),
            HyStartMode::Linux6 => SlowStartExit::Linux6(HyStartLinux6::new()),
            HyStartMode::Linux410 => SlowStartExit::Old(HyStartOld::new(OldKernel::Linux410)),
            HyStartMode::Linux3 => SlowStartExit::Old(HyStartOld::new(OldKernel::Linux3)),
            HyStartMode::PlusPlus => SlowStartExit::PlusPlus(HyStartPlusPlus::default()),
        };
        self
    }

    /// W_max in segments (0 when unknown).
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// cwnd_prior in segments.
    pub fn cwnd_prior(&self) -> f64 {
        self.cwnd_prior
    }

    /// K of the current congestion-avoidance stage, seconds.
    pub fn k(&self) -> Option<f64> {
        self.epoch.as_ref().map(|e| e.k)
    }

    /// W_est of the current congestion-avoidance stage, segments.
    pub fn w_est(&self) -> Option<f64> {
        self.epoch.as_ref().map(|e| e.w_est)
    }

    /// W_cubic(t) of the current stage, t in seconds from its start.
    pub fn w_cubic(&self, t: f64) -> Option<f64> {
        self.epoch.as_ref().map(|e| w_cubic(t, e.k, e.origin))
    }

    /// ACKs per one-segment increase for this ACK (Linux `ca->cnt`).
    fn update(&mut self, cwnd: u64, acked: u64, now: Time, rtt: Time) -> u64 {
        let w_max = self.w_max;
        let cwnd_f = cwnd as f64;
        let e = self.epoch.get_or_insert_with(|| {
            // RFC 9438 eq. 2: K = cbrt((W_max - cwnd_epoch) / C). A stage
            // starting at or above W_max (W_max unknown after a timeout,
            // or lowered by fast convergence) centres the curve on
            // cwnd_epoch with K = 0: section 4.8 for timeouts, Linux
            // bictcp_update() `last_max_cwnd <= cwnd` in general.
            let (k, origin) = if w_max > cwnd_f {
                (cube_root((w_max - cwnd_f) / C), w_max)
            } else {
                (0.0, cwnd_f)
            };
            Epoch {
                elapsed: 0,
                last: now,
                k,
                origin,
                // Section 4.3: W_est = cwnd_epoch at the stage's start.
                w_est: cwnd_f,
            }
        });

        // RFC 9438 section 4.2: t MUST NOT include periods in which cwnd
        // was not updated because the flow was application-limited
        // (section 5.8). The sender calls us only while cwnd-limited, and a
        // cwnd-limited flow gets an ACK at least about once per RTT; so a
        // longer silence is an application-limited (or idle) spell and only
        // one RTT of it counts. Linux does the idle case in
        // cubictcp_cwnd_event(CA_EVENT_TX_START) by shifting epoch_start.
        e.elapsed += now.saturating_sub(e.last).min(rtt);
        e.last = now;

        let t = e.elapsed as f64 / SEC as f64;
        let rtt_s = rtt as f64 / SEC as f64;
        // Section 4.2: the target is W_cubic one RTT ahead, held between
        // cwnd (growth never negative) and 1.5 cwnd (never faster than
        // slow start).
        let target = w_cubic(t + rtt_s, e.k, e.origin).clamp(cwnd_f, 1.5 * cwnd_f);
        // Sections 4.4 and 4.5: (target - cwnd) / cwnd per segment
        // acknowledged, i.e. one segment per cwnd / (target - cwnd).
        // Linux's 100 cwnd stands for "no growth" when target <= cwnd.
        let mut cnt = ack_count(cwnd_f, target);
        // Linux bictcp_update(): `if (ca->last_max_cwnd == 0 && ca->cnt >
        // 20) ca->cnt = 20;` (not in RFC 9438).
        if w_max == 0.0 {
            cnt = cnt.min(UNKNOWN_W_MAX_CNT);
        }

        if self.reno_friendly {
            // Section 4.3 eq. 4, with alpha_cubic switched to 1 once W_est
            // reaches cwnd_prior (Reno's AIMD(1, 0.5) rate from there).
            let alpha = if e.w_est >= self.cwnd_prior {
                1.0
            } else {
                ALPHA
            };
            e.w_est += alpha * acked as f64 / cwnd_f;
            // "cwnd SHOULD be set to W_est" when W_est is the larger: as
            // Linux does, by taking the faster of the two ACK counts, so
            // cwnd follows max(W_cubic, W_est).
            if e.w_est > cwnd_f {
                cnt = cnt.min(ack_count(cwnd_f, e.w_est));
            }
        }
        // At most one segment per two acknowledged (1.5 cwnd per RTT, the
        // section 4.2 bound; Linux `ca->cnt = max(ca->cnt, 2U)`).
        cnt.max(2)
    }
}

/// RFC 9438 eq. 1: W_cubic(t) = C (t - K)^3 + W_max.
fn w_cubic(t: f64, k: f64, w_max: f64) -> f64 {
    let d = t - k;
    C * d * d * d + w_max
}

/// Segments to acknowledge per one-segment increase to move cwnd to
/// `target` in one window's worth of ACKs.
fn ack_count(cwnd: f64, target: f64) -> u64 {
    let no_growth = 100.0 * cwnd;
    if target > cwnd {
        // `as` saturates, and huge quotients are capped anyway.
        (cwnd / (target - cwnd)).min(no_growth) as u64
    } else {
        no_growth as u64
    }
}

/// Cube root of x >= 0 by Newton's method from an exponent-based first
/// guess; basic IEEE operations only, so identical on every platform
/// (libm's cbrt need not be).
fn cube_root(x: f64) -> f64 {
    if x <= 0.0 || !x.is_finite() {
        return 0.0;
    }
    // Dividing the bit pattern by 3 divides the exponent by 3; the
    // constant restores the bias: 1023 * 2/3 = 682 in the exponent field.
    let mut y = f64::from_bits(x.to_bits() / 3 + (682u64 << 52));
    for _ in 0..8 {
        y = (2.0 * y + x / (y * y)) / 3.0;
    }
    y
}

impl CongestionControl for Cubic {
    /// Grows only in cong_avoid; Linux's HyStart (6.x, 4.10, 3.x)
    /// measures in cubictcp_acked() / bictcp_acked(), on every ACK.
    fn observes_every_ack(&self) -> bool {
        matches!(
            self.hystart,
            SlowStartExit::Linux6(_) | SlowStartExit::Old(_)
        )
    }

    /// Linux 6.x's hystart_ack_delay() reads sk_pacing_rate.
    fn wants_pacing_rate(&self) -> bool {
        matches!(self.hystart, SlowStartExit::Linux6(_))
    }

    /// Linux 3.2-3.14 cubictcp_register(): "hystart needs ms clock
    /// resolution", so `if (hystart && HZ < 1000)` the module asks for
    /// TCP_CONG_RTT_STAMP.
    fn rtt_stamp(&self, tick: Time) -> bool {
        !matches!(self.hystart, SlowStartExit::Standard) && tick > SEC / 1000
    }

    /// cubictcp_acked() for `hystart = "linux-6"`. This controller's stage
    /// stands in for Linux's epoch: it began `elapsed` before its last
    /// update (its clock skips idle spells as cubictcp_cwnd_event() moves
    /// epoch_start), and samples within HZ jiffies of that are dropped.
    /// The same for `"linux-4.10"` and `"linux-3"` (bictcp_acked()).
    fn on_ack(&mut self, w: &mut Window, ctx: &CcCtx) {
        let fresh_epoch = self.epoch.as_ref().is_some_and(|e| {
            let start = jiffies32(e.last.saturating_sub(e.elapsed));
            (jiffies32(ctx.now).wrapping_sub(start) as i32) < HZ as i32
        });
        match &mut self.hystart {
            SlowStartExit::Linux6(h) => h.acked(w, ctx, fresh_epoch, true),
            SlowStartExit::Old(h) => h.acked(w, ctx, fresh_epoch, true),
            _ => {}
        }
    }

    /// cubictcp_state(TCP_CA_Loss) for `hystart = "linux-6"`: delay_min
    /// and found forgotten, a round from the timeout.
    fn on_state(&mut self, state: CaState, _w: &Window) {
        if state == CaState::Loss {
            match &mut self.hystart {
                SlowStartExit::Linux6(h) => h.on_loss(),
                SlowStartExit::Old(h) => h.on_loss(),
                _ => {}
            }
        }
    }

    fn name(&self) -> String {
        match &self.hystart {
            SlowStartExit::Standard => "cubic".into(),
            SlowStartExit::Linux(_) => "cubic+hystart".into(),
            SlowStartExit::Linux6(_) => "cubic+hystart-linux-6".into(),
            SlowStartExit::Old(h) => match h.kernel() {
                OldKernel::Linux410 => "cubic+hystart-linux-4.10".into(),
                OldKernel::Linux3 => "cubic+hystart-linux-3".into(),
            },
            SlowStartExit::PlusPlus(_) => "cubic+hystart++".into(),
        }
    }

    /// RFC 9438 sections 4.6 and 4.7 (Linux cubictcp_recalc_ssthresh()).
    ///
    /// ssthresh = max(cwnd * beta_cubic, 2). Section 4.6 writes flight_size
    /// but allows cwnd, as Linux and Windows use, provided cwnd cannot
    /// grow while the flow is not using it; the sender's
    /// tcp_is_cwnd_limited() gate on `cong_avoid` is that measure. With
    /// cwnd, an application-limited flow is not punished twice.
    fn ssthresh(&mut self, w: &Window, _flight_size: u64) -> u64 {
        // A congestion event ends the stage (Linux `epoch_start = 0`); the
        // next congestion-avoidance ACK starts one from the reduced cwnd.
        self.epoch = None;
        // RFC 9406 section 4.2: a loss in slow start or CSS ends HyStart++.
        if let SlowStartExit::PlusPlus(h) = &mut self.hystart {
            h.on_loss();
        }
        let cwnd = w.cwnd as f64;
        // Section 4.7: below the previous W_max the saturation point has
        // fallen, so release more: W_max = cwnd (1 + beta) / 2 (17/20).
        self.w_max = if self.fast_convergence && cwnd < self.w_max {
            cwnd * 17.0 / 20.0
        } else {
            cwnd
        };
        self.cwnd_prior = cwnd;
        (w.cwnd * BETA_NUM / BETA_DEN).max(2)
    }

    fn cong_avoid(&mut self, w: &mut Window, acked: u64, ctx: &CcCtx) {
        let mut acked = acked;
        match &mut self.hystart {
            // Linux 6.x's HyStart ran in on_ack.
            SlowStartExit::Standard | SlowStartExit::Linux6(_) => {}
            // 3.x and 4.10 start a round here, in bictcp_cong_avoid(),
            // after bictcp_acked() judged this ACK.
            SlowStartExit::Old(h) => h.cong_avoid_round(w, ctx, true),
            SlowStartExit::Linux(h) => {
                h.on_ack(w, ctx);
            }
            SlowStartExit::PlusPlus(h) => {
                h.on_ack(w, ctx);
                // HyStart++ grows cwnd itself while it governs slow start
                // (the L limit and CSS); whatever it leaves below ssthresh
                // is not carried into congestion avoidance.
                if h.active() && w.in_slow_start() {
                    h.grow(w, acked);
                    return;
                }
            }
        }
        // RFC 9438 section 4.10: slow start while cwnd < ssthresh (RFC
        // 5681's; HyStart only sets ssthresh, see the module comment).
        if in_slow_start(w, ctx) {
            acked = grow_in_slow_start(w, acked, ctx);
            if acked == 0 {
                return;
            }
        }
        // Section 4.1: RTT is the smoothed RTT (Linux uses delay_min).
        // Without any sample the curve has no time base; grow as Reno
        // (RFC 5681) until one arrives.
        let Some(rtt) = ctx.srtt.or(ctx.min_rtt) else {
            additive_increase(w, w.cwnd, acked);
            return;
        };
        let cnt = self.update(w.cwnd, acked, ctx.now, rtt);
        additive_increase(w, cnt, acked);
    }

    /// RFC 9438 section 4.8: after a timeout the next stage uses K = 0 and
    /// W_max = cwnd at its start, and W_est starts there too. Linux
    /// cubictcp_state(TCP_CA_Loss) resets the same way (bictcp_reset()).
    /// ssthresh was already set by `ssthresh` (section 4.8: beta_cubic, as
    /// in 4.6) unless this timeout repeats one.
    fn on_timeout(&mut self, now: Time) {
        self.epoch = None;
        self.w_max = 0.0;
        // HyStart++ is over already (the timeout's `ssthresh` ended it):
        // RFC 9406 section 4.3 uses it for the initial slow start only.
        match &mut self.hystart {
            SlowStartExit::Linux(h) => h.reset(),
            SlowStartExit::Linux6(h) => h.on_timeout(now),
            SlowStartExit::Old(h) => h.on_timeout(now),
            _ => {}
        }
    }

    /// Linux cubictcp_cwnd_event(CA_EVENT_TX_START): after an idle spell
    /// (nothing in flight) the epoch is shifted by the idle time, so t
    /// keeps following the cubic curve instead of jumping ahead. Linux
    /// shifts by the time since the last send; here the stage's clock
    /// restarts at this send, so the time with nothing in flight (from
    /// the last ACK to now) never counts. Without this, `update` would
    /// still count one RTT of the gap (its cap for application-limited
    /// spells).
    fn on_tx_start(&mut self, now: Time, _last_send: Time) {
        if let Some(e) = &mut self.epoch {
            e.last = e.last.max(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{MS, SEC};

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn constants() {
        // alpha = 3 * 0.3 / 1.7 = 0.9 / 1.7 = 0.529411...
        assert!(close(ALPHA, 9.0 / 17.0, 1e-12), "{ALPHA}");
    }

    #[test]
    fn cube_root_is_accurate() {
        for x in [1e-9, 0.001, 0.5, 1.0, 8.0, 15.0, 75.0, 750.0, 27e9, 1e15] {
            let y = cube_root(x);
            assert!(((y * y * y) - x).abs() <= x * 1e-14, "cbrt({x}) = {y}");
            assert!(close(y, x.cbrt(), x.cbrt() * 1e-14));
        }
        assert_eq!(cube_root(0.0), 0.0);
        assert_eq!(cube_root(64.0), 4.0);
    }

    /// W_max = 100, cwnd_epoch = 70: K = cbrt(30 / 0.4) = cbrt(75) =
    /// 4.2172 s; W(0) = 70; W(1) = 100 + 0.4 (1 - 4.2172)^3 = 100 - 0.4 x
    /// 33.298 = 86.68; W(K) = W_max = 100; W(2K) = 130 (odd symmetry).
    #[test]
    fn k_and_the_curve_by_hand() {
        let k = cube_root((100.0 - 70.0) / C);
        assert!(close(k, 4.2172, 1e-4), "K {k}");
        assert!(close(w_cubic(0.0, k, 100.0), 70.0, 1e-9));
        assert!(close(w_cubic(1.0, k, 100.0), 86.681, 1e-3));
        assert!(close(w_cubic(k, k, 100.0), 100.0, 1e-12));
        assert!(close(w_cubic(2.0 * k, k, 100.0), 130.0, 1e-9));
    }

    #[test]
    fn ssthresh_is_seven_tenths_of_cwnd_and_sets_w_max() {
        let mut cc = Cubic::new();
        let w = Window::new(100);
        // flight size does not matter (cwnd variant of section 4.6).
        assert_eq!(cc.ssthresh(&w, 40), 70);
        assert_eq!(cc.w_max(), 100.0);
        assert_eq!(cc.cwnd_prior(), 100.0);
        // floor(0.7 x 7) = 4; the floor of 2 segments.
        assert_eq!(Cubic::new().ssthresh(&Window::new(7), 7), 4);
        assert_eq!(Cubic::new().ssthresh(&Window::new(2), 2), 2);
        assert_eq!(Cubic::new().ssthresh(&Window::new(1), 1), 2);
    }

    #[test]
    fn fast_convergence_lowers_w_max_below_the_previous_one() {
        let mut cc = Cubic::new();
        cc.ssthresh(&Window::new(100), 100);
        // A loss at cwnd 80 < W_max 100: W_max = 80 x 0.85 = 68.
        assert_eq!(cc.ssthresh(&Window::new(80), 80), 56);
        assert_eq!(cc.w_max(), 68.0);
        assert_eq!(cc.cwnd_prior(), 80.0);
        // At or above the previous W_max: W_max = cwnd.
        cc.ssthresh(&Window::new(90), 90);
        assert_eq!(cc.w_max(), 90.0);
        // Without fast convergence W_max is cwnd either way.
        let mut plain = Cubic::with_options(false, true);
        plain.ssthresh(&Window::new(100), 100);
        plain.ssthresh(&Window::new(80), 80);
        assert_eq!(plain.w_max(), 80.0);
    }

    #[test]
    fn the_stage_starts_on_the_first_avoidance_ack() {
        let mut cc = Cubic::new();
        let mut w = Window::new(100);
        w.ssthresh = cc.ssthresh(&w, 100);
        w.cwnd = w.ssthresh;
        assert_eq!(cc.k(), None);
        let ctx = CcCtx {
            now: 5 * SEC,
            srtt: Some(100 * MS),
            min_rtt: Some(100 * MS),
            packets_out: 70,
            ..Default::default()
        };
        cc.cong_avoid(&mut w, 1, &ctx);
        assert!(close(cc.k().unwrap(), 4.2172, 1e-4));
        assert!(close(cc.w_est().unwrap(), 70.0 + ALPHA / 70.0, 1e-12));
        // A new congestion event ends the stage.
        cc.ssthresh(&w, 70);
        assert_eq!(cc.k(), None);
    }

    #[test]
    fn after_a_timeout_k_is_zero_and_w_max_is_cwnd_epoch() {
        let mut cc = Cubic::new();
        let mut w = Window::new(100);
        w.ssthresh = cc.ssthresh(&w, 100);
        cc.on_timeout(0);
        assert_eq!(cc.w_max(), 0.0);
        // Slow start from 1 to ssthresh = 70, then avoidance.
        w.cwnd = 70;
        let ctx = CcCtx {
            now: SEC,
            srtt: Some(100 * MS),
            min_rtt: Some(100 * MS),
            packets_out: 70,
            ..Default::default()
        };
        cc.cong_avoid(&mut w, 1, &ctx);
        assert_eq!(cc.k(), Some(0.0));
        assert_eq!(cc.w_cubic(0.0), Some(70.0));
        assert!(close(cc.w_cubic(1.0).unwrap(), 70.4, 1e-9));
    }

    #[test]
    fn without_an_rtt_sample_it_grows_like_reno() {
        let mut cc = Cubic::new();
        let mut w = Window::new(10);
        w.ssthresh = 10;
        for _ in 0..10 {
            cc.cong_avoid(&mut w, 1, &CcCtx::default());
        }
        assert_eq!(w.cwnd, 11);
        assert_eq!(cc.k(), None);
    }

    #[test]
    fn application_limited_gaps_do_not_advance_t() {
        let mut cc = Cubic::with_options(true, false);
        let mut w = Window::new(100);
        w.ssthresh = cc.ssthresh(&w, 100);
        w.cwnd = 70;
        let rtt = 100 * MS;
        let ctx = |now| CcCtx {
            now,
            srtt: Some(rtt),
            min_rtt: Some(rtt),
            packets_out: 70,
            ..Default::default()
        };
        cc.cong_avoid(&mut w, 1, &ctx(SEC));
        // Ten idle seconds, then ACKs again: t moved by one RTT only.
        cc.cong_avoid(&mut w, 1, &ctx(11 * SEC));
        let e = cc.epoch.as_ref().unwrap();
        assert_eq!(e.elapsed, rtt);
        // So the target is still in the concave start, not past K.
        let cwnd = w.cwnd;
        for i in 0..70 {
            cc.cong_avoid(&mut w, 1, &ctx(11 * SEC + i * MS));
        }
        assert!(w.cwnd <= cwnd + 4, "cwnd {} after one RTT", w.cwnd);
    }

    /// Linux's cnt <= 20 while W_max is unknown. After a timeout (W_max
    /// 0) at cwnd 70 with srtt 100 ms the curve starts at K = 0, origin
    /// 70: the target one RTT ahead is 70 + 0.4 x 0.1^3 = 70.0004, cnt =
    /// 70 / 0.0004 = 175000, capped at 100 x 70 = 7000 ("no growth"); the
    /// Reno-friendly W_est = 70 + (9/17) / 70 = 70.0076 gives 70 / 0.0076
    /// = 9210. So cnt would be 7000 (no growth in 70 ACKs); the clamp
    /// makes it 20: 70 ACKs give +1 at 20, 40 and 60, cwnd 73 with 10 of
    /// credit.
    #[test]
    fn unknown_w_max_grows_five_percent_per_rtt() {
        let ctx = CcCtx {
            now: SEC,
            srtt: Some(100 * MS),
            min_rtt: Some(100 * MS),
            ..Default::default()
        };
        for reno_friendly in [false, true] {
            let mut cc = Cubic::with_options(true, reno_friendly);
            let mut w = Window::new(100);
            w.ssthresh = cc.ssthresh(&w, 100);
            cc.on_timeout(0);
            w.cwnd = 70;
            for _ in 0..70 {
                cc.cong_avoid(&mut w, 1, &ctx);
            }
            assert_eq!((w.cwnd, w.cwnd_cnt), (73, 10), "friendly {reno_friendly}");
        }
        // With W_max known (100, K = 4.2 s) the curve decides: at t = 0
        // the target W(0.1) = 100 - 0.4 x 4.1172^3 = 72.08, cnt = 70 /
        // 2.08 = 33: cwnd 71 after 33 ACKs; then cnt = 71 / 1.08 = 65 and
        // the 37 ACKs left do not reach it (all ACKs at one instant, so
        // the target stays 72.08).
        let mut cc = Cubic::with_options(true, false);
        let mut w = Window::new(100);
        w.ssthresh = cc.ssthresh(&w, 100);
        w.cwnd = 70;
        for _ in 0..70 {
            cc.cong_avoid(&mut w, 1, &ctx);
        }
        assert_eq!((w.cwnd, w.cwnd_cnt), (71, 37));
    }

    /// TX_START after idle: the stage's clock restarts at the send. Stage
    /// at t = 1 s, idle until 11 s, the first ACK after the restart at
    /// 11.05 s: t advances by 50 ms (the time data was in flight), not by
    /// the 100 ms the application-limited cap would allow.
    #[test]
    fn tx_start_after_idle_shifts_the_epoch() {
        let mut cc = Cubic::with_options(true, false);
        let mut w = Window::new(100);
        w.ssthresh = cc.ssthresh(&w, 100);
        w.cwnd = 70;
        let ctx = |now| CcCtx {
            now,
            srtt: Some(100 * MS),
            min_rtt: Some(100 * MS),
            ..Default::default()
        };
        cc.cong_avoid(&mut w, 1, &ctx(SEC));
        cc.on_tx_start(11 * SEC, 0);
        cc.cong_avoid(&mut w, 1, &ctx(11 * SEC + 50 * MS));
        assert_eq!(cc.epoch.as_ref().unwrap().elapsed, 50 * MS);
        // Without a stage there is nothing to shift.
        let mut fresh = Cubic::new();
        fresh.on_tx_start(SEC, 0);
        assert!(fresh.epoch.is_none());
    }

    /// Linux cubic's undo_cwnd is tcp_reno_undo_cwnd(): max(cwnd, prior).
    #[test]
    fn undo_restores_the_larger_window() {
        let mut cc = Cubic::new();
        assert_eq!(cc.undo_cwnd(&Window::new(70), 100), 100);
        assert_eq!(cc.undo_cwnd(&Window::new(120), 100), 120);
    }

    /// HyStart++ grows cwnd in slow start by at most L = 8 per ACK, and a
    /// loss ends it: slow start after a timeout is RFC 5681's again.
    #[test]
    fn with_hystart_plus_plus() {
        let mut cc = Cubic::new().with_slow_start_exit(HyStartMode::PlusPlus);
        assert_eq!(cc.name(), "cubic+hystart++");
        let mut w = Window::new(10);
        // A stretch ACK for 20 segments: 10 + 8 = 18.
        cc.cong_avoid(&mut w, 20, &CcCtx::default());
        assert_eq!(w.cwnd, 18);
        w.ssthresh = cc.ssthresh(&w, 18);
        cc.on_timeout(0);
        w.cwnd = 1;
        // 1 + 20 = 21, capped at ssthresh floor(0.7 x 18) = 12.
        cc.cong_avoid(&mut w, 20, &CcCtx::default());
        assert_eq!(w.cwnd, 12);
        assert_eq!(Cubic::new().with_hystart().name(), "cubic+hystart");
        assert_eq!(
            Cubic::new().with_slow_start_exit(HyStartMode::Off).name(),
            "cubic"
        );
    }

    fn linux6(cc: &Cubic) -> &HyStartLinux6 {
        match &cc.hystart {
            SlowStartExit::Linux6(h) => h,
            _ => panic!("not linux-6"),
        }
    }

    /// `hystart = "linux-6"` runs hystart.rs's HyStartLinux6 from on_ack
    /// (every ACK), with the pacing rate, and not from cong_avoid.
    /// cubictcp_acked() drops samples while the epoch is younger than HZ
    /// = 1000 jiffies: a loss at cwnd 40 (ssthresh 28), cwnd 28, a stage
    /// started by cong_avoid at 10 s; a 20 ms sample at 10.999 s (999
    /// jiffies) is dropped, one at 11.000 s (1000, not < 1000) becomes
    /// delay_min. A timeout then zeroes delay_min (cubictcp_state()).
    #[test]
    fn with_linux6_hystart() {
        let mut cc = Cubic::new().with_slow_start_exit(HyStartMode::Linux6);
        assert_eq!(cc.name(), "cubic+hystart-linux-6");
        assert!(cc.observes_every_ack() && cc.wants_pacing_rate());
        assert!(!Cubic::new().with_hystart().observes_every_ack());
        let sample = |now: Time, rtt_ms: u64| CcCtx {
            now,
            rtt_sample: Some(rtt_ms * MS),
            srtt: Some(40 * MS),
            snd_una: 1,
            snd_nxt: 1000,
            ..Default::default()
        };
        let mut w = Window::new(40);
        cc.on_ack(&mut w, &sample(5 * SEC, 40));
        assert_eq!(linux6(&cc).delay_min(), 40_000);
        // cong_avoid leaves HyStart alone.
        cc.cong_avoid(&mut w, 1, &sample(6 * SEC, 10));
        assert_eq!(linux6(&cc).delay_min(), 40_000);
        w.ssthresh = cc.ssthresh(&w, 40);
        w.cwnd = 28;
        cc.cong_avoid(&mut w, 1, &sample(10 * SEC, 40));
        cc.on_ack(&mut w, &sample(10 * SEC + 999 * MS, 20));
        assert_eq!(linux6(&cc).delay_min(), 40_000);
        cc.on_ack(&mut w, &sample(11 * SEC, 20));
        assert_eq!(linux6(&cc).delay_min(), 20_000);
        cc.on_timeout(12 * SEC);
        cc.on_state(CaState::Loss, &w);
        assert_eq!(linux6(&cc).delay_min(), 0);
    }
}
