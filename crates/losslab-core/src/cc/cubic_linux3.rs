//! `cubic-linux-3`: CUBIC as Linux 3.x ran it, net/ipv4/tcp_cubic.c read
//! at 3.10.105 and 3.17.0 (the same file but for bictcp_cong_avoid()'s
//! slow-start call), in the kernel's integer arithmetic, with its HyStart
//! (hystart.rs `HyStartOld`, `"linux-3"`). A port written from the
//! kernel's code, function by function; the expressions are the kernel's,
//! the text is ours.
//!
//! Why a third CUBIC: Linux 4.x rewrote the growth around "segments
//! acknowledged" (bictcp_update(ca, cwnd, acked), 2015). 3.x counted
//! ACKs instead and corrected for delayed ACKs with a running ratio, so
//! a 3.x sender grows differently whenever an ACK covers more than one
//! segment. Against `cubic-linux` (6.x):
//! - `ack_cnt++` per ACK (the Reno-friendly estimate counts ACKs), and
//!   tcp_cong_avoid_ai(tp, cnt) adds one to cwnd_cnt per ACK, raising
//!   cwnd once cwnd_cnt has reached cnt (so cnt + 1 ACKs per segment);
//! - `cnt = (cnt << ACK_RATIO_SHIFT) / delayed_ack`, where delayed_ack is
//!   the packets-per-ACK ratio x 16 kept by bictcp_acked() in TCP_CA_Open
//!   (an EWMA with gain 1/16, clamped to 1..32 << 4, 2 << 4 at start),
//!   and cnt >= 1 (6.x: cnt >= 2);
//! - the HZ/32 refresh returns early, friendliness included (no
//!   once-per-jiffy `goto tcp_friendliness`);
//! - no cwnd_event: the epoch does not move after idle;
//! - cnt <= 20 while last_max_cwnd == 0 (3.10-3.17; 3.2.7 tests
//!   `loss_cwnd == 0` instead, and zeroes loss_cwnd in bictcp_reset(), so
//!   it differs only after a timeout that follows a loss: not modelled);
//! - undo returns max(cwnd, loss_cwnd) (bictcp_undo_cwnd(); 3.2.7:
//!   last_max_cwnd);
//! - the curve's t adds `msecs_to_jiffies(delay_min >> 3)`, delay_min in
//!   1/8 ms (3.2.7 does this sum in u32: the same below 2^22 jiffies);
//! - slow start while `snd_cwnd <= snd_ssthresh`: 3.17's
//!   tcp_slow_start(tp, acked) (cwnd + acked, at most ssthresh + 1, no
//!   carry into avoidance) with `slow_start = "per-segment"`, 3.10's
//!   tcp_slow_start(tp) (one segment per ACK) with `"per-ack"`.
//!
//! Clocks as in cubic_linux.rs: jiffies at HZ = 1000 (`jiffies32`);
//! HyStart's bictcp_clock() is the same millisecond count.

use super::cubic_linux::{
    cubic_root, jiffies32, BETA, BETA_SCALE, BICTCP_BETA_SCALE, BICTCP_HZ, CUBE_FACTOR,
    CUBE_RTT_SCALE, HZ,
};
use super::hystart::{HyStartOld, OldKernel};
use super::{
    cong_avoid_ai_per_ack, slow_start_linux314, slow_start_per_ack, CaState, CcCtx,
    CongestionControl, HyStartMode, SlowStart,
};
use crate::time::Time;
use crate::window::Window;

/// `ACK_RATIO_SHIFT`: delayed_ack holds packets per ACK x 16.
pub const ACK_RATIO_SHIFT: u32 = 4;
/// `ACK_RATIO_LIMIT`: `32u << ACK_RATIO_SHIFT`.
pub const ACK_RATIO_LIMIT: u32 = 32 << ACK_RATIO_SHIFT;
/// bictcp_reset()'s `ca->delayed_ack = 2 << ACK_RATIO_SHIFT`.
pub const DELAYED_ACK_INIT: u32 = 2 << ACK_RATIO_SHIFT;

/// Linux 3.x CUBIC: its `struct bictcp` and module switches.
#[derive(Clone, Debug)]
pub struct CubicLinux3 {
    /// Module parameters `hystart`, `fast_convergence`,
    /// `tcp_friendliness` (all 1).
    hystart: bool,
    fast_convergence: bool,
    tcp_friendliness: bool,
    cnt: u32,
    last_max_cwnd: u32,
    /// cwnd at the last loss (bictcp_recalc_ssthresh()), for undo.
    loss_cwnd: u32,
    last_cwnd: u32,
    last_time: u32,
    bic_origin_point: u32,
    bic_k: u32,
    epoch_start: u32,
    /// ACKs (not segments) counted for the Reno-friendly estimate.
    ack_cnt: u32,
    tcp_cwnd: u32,
    /// Packets per ACK << ACK_RATIO_SHIFT (a u16 in the kernel; the
    /// clamp keeps it at most 512).
    delayed_ack: u32,
    /// HyStart and delay_min (1/8 ms).
    hy: HyStartOld,
}

impl Default for CubicLinux3 {
    fn default() -> Self {
        Self::new()
    }
}

impl CubicLinux3 {
    /// bictcp_init(): bictcp_reset(), loss_cwnd = 0 and
    /// bictcp_hystart_reset(), with 3.x's HyStart.
    pub fn new() -> Self {
        CubicLinux3 {
            hystart: true,
            fast_convergence: true,
            tcp_friendliness: true,
            cnt: 0,
            last_max_cwnd: 0,
            loss_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            bic_origin_point: 0,
            bic_k: 0,
            epoch_start: 0,
            ack_cnt: 0,
            tcp_cwnd: 0,
            delayed_ack: DELAYED_ACK_INIT,
            hy: HyStartOld::new(OldKernel::Linux3),
        }
    }

    /// Another HyStart in 1/8 ms units: `Linux3` (the default) or
    /// `Linux410`; None for any other mode (Linux 6.x's counts
    /// microseconds, which this delay_min does not).
    pub fn with_hystart_mode(mut self, mode: HyStartMode) -> Option<Self> {
        self.hy = match mode {
            HyStartMode::Linux3 => HyStartOld::new(OldKernel::Linux3),
            HyStartMode::Linux410 => HyStartOld::new(OldKernel::Linux410),
            _ => return None,
        };
        Some(self)
    }

    /// ACKs per one-segment increase (`ca->cnt`, after the delayed-ACK
    /// scaling).
    pub fn cnt(&self) -> u32 {
        self.cnt
    }
    /// `ca->delayed_ack` (packets per ACK x 16).
    pub fn delayed_ack(&self) -> u32 {
        self.delayed_ack
    }
    pub fn last_max_cwnd(&self) -> u32 {
        self.last_max_cwnd
    }
    /// The Reno-friendly estimate and its ACK count.
    pub fn tcp_cwnd(&self) -> (u32, u32) {
        (self.tcp_cwnd, self.ack_cnt)
    }
    /// `ca->delay_min`, 1/8 ms.
    pub fn delay_min(&self) -> u32 {
        self.hy.delay_min()
    }
    pub fn found(&self) -> bool {
        self.hy.found()
    }

    /// bictcp_reset() without its delay_min and found (`HyStartOld::
    /// on_loss`); loss_cwnd survives (3.10: only bictcp_init() clears it).
    fn bictcp_reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0;
        self.bic_origin_point = 0;
        self.bic_k = 0;
        self.epoch_start = 0;
        self.delayed_ack = DELAYED_ACK_INIT;
        self.ack_cnt = 0;
        self.tcp_cwnd = 0;
    }

    /// bictcp_update(ca, cwnd) of 3.10: `ca->cnt` for this ACK; `now` in
    /// jiffies.
    fn bictcp_update(&mut self, cwnd: u32, now: u32) {
        // One per ACK, whatever it acknowledges.
        self.ack_cnt = self.ack_cnt.wrapping_add(1);

        // The HZ/32 refresh leaves everything, friendliness and the
        // delayed-ACK scaling included, as the last computation set it.
        if self.last_cwnd == cwnd && (now.wrapping_sub(self.last_time) as i32) <= (HZ / 32) as i32 {
            return;
        }
        self.last_cwnd = cwnd;
        self.last_time = now;

        if self.epoch_start == 0 {
            self.epoch_start = now;
            self.ack_cnt = 1;
            self.tcp_cwnd = cwnd;
            if self.last_max_cwnd <= cwnd {
                self.bic_k = 0;
                self.bic_origin_point = cwnd;
            } else {
                self.bic_k =
                    cubic_root(CUBE_FACTOR.wrapping_mul(u64::from(self.last_max_cwnd - cwnd)));
                self.bic_origin_point = self.last_max_cwnd;
            }
        }

        // `t = (s32)(tcp_time_stamp - ca->epoch_start); t +=
        // msecs_to_jiffies(ca->delay_min >> 3); t <<= BICTCP_HZ; do_div(t,
        // HZ);` (HZ = 1000: msecs are jiffies).
        let mut t = i64::from(now.wrapping_sub(self.epoch_start) as i32) as u64;
        t = t.wrapping_add(u64::from(self.hy.delay_min() >> 3));
        t <<= BICTCP_HZ;
        t /= u64::from(HZ);

        let k = u64::from(self.bic_k);
        let offs = k.abs_diff(t);
        let delta = (u64::from(CUBE_RTT_SCALE)
            .wrapping_mul(offs)
            .wrapping_mul(offs)
            .wrapping_mul(offs)
            >> (10 + 3 * BICTCP_HZ)) as u32;
        let bic_target = if t < k {
            self.bic_origin_point.wrapping_sub(delta)
        } else {
            self.bic_origin_point.wrapping_add(delta)
        };
        self.cnt = if bic_target > cwnd {
            cwnd / (bic_target - cwnd)
        } else {
            cwnd.wrapping_mul(100)
        };
        // 5% per RTT while the saturation point is unknown.
        if self.last_max_cwnd == 0 && self.cnt > 20 {
            self.cnt = 20;
        }

        if self.tcp_friendliness {
            // One tcp_cwnd per (cwnd x 15) >> 3 ACKs (at least 1 for
            // cwnd >= 1; the kernel's loop never ends for cwnd 0).
            let delta = (cwnd.wrapping_mul(BETA_SCALE) >> 3).max(1);
            while self.ack_cnt > delta {
                self.ack_cnt -= delta;
                self.tcp_cwnd = self.tcp_cwnd.wrapping_add(1);
            }
            if self.tcp_cwnd > cwnd {
                let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
                if self.cnt > max_cnt {
                    self.cnt = max_cnt;
                }
            }
        }

        // cnt counts ACKs: scale the per-segment count by segments per
        // ACK (x 16 / delayed_ack), never below one ACK.
        self.cnt = (self.cnt << ACK_RATIO_SHIFT) / self.delayed_ack.max(1);
        if self.cnt == 0 {
            self.cnt = 1;
        }
    }
}

impl CongestionControl for CubicLinux3 {
    fn name(&self) -> String {
        match self.hy.kernel() {
            OldKernel::Linux3 => "cubic-linux-3".into(),
            OldKernel::Linux410 => "cubic-linux-3+hystart-linux-4.10".into(),
        }
    }

    /// bictcp_recalc_ssthresh() of 3.10.
    fn ssthresh(&mut self, w: &Window, _flight_size: u64) -> u64 {
        let cwnd = w.cwnd.min(u64::from(u32::MAX)) as u32;
        self.epoch_start = 0;
        self.last_max_cwnd = if cwnd < self.last_max_cwnd && self.fast_convergence {
            cwnd.wrapping_mul(BICTCP_BETA_SCALE + BETA) / (2 * BICTCP_BETA_SCALE)
        } else {
            cwnd
        };
        self.loss_cwnd = cwnd;
        u64::from((cwnd.wrapping_mul(BETA) / BICTCP_BETA_SCALE).max(2))
    }

    /// bictcp_cong_avoid() of 3.10/3.17 (the sender checks
    /// tcp_is_cwnd_limited()): slow start while cwnd <= ssthresh, with
    /// the round reset before it; otherwise bictcp_update() and
    /// tcp_cong_avoid_ai(), once per ACK.
    fn cong_avoid(&mut self, w: &mut Window, acked: u64, ctx: &CcCtx) {
        if w.cwnd <= w.ssthresh {
            self.hy.cong_avoid_round(w, ctx, self.hystart);
            match ctx.slow_start {
                // 3.10's module under the per-segment default runs
                // 3.14-4.2's tcp_slow_start(tp, acked), as `linux-3.14`.
                SlowStart::PerSegment | SlowStart::Linux314 => slow_start_linux314(w, acked),
                SlowStart::PerAck => slow_start_per_ack(w),
            }
            return;
        }
        let cwnd = w.cwnd.min(u64::from(u32::MAX)) as u32;
        self.bictcp_update(cwnd, jiffies32(ctx.now));
        cong_avoid_ai_per_ack(w, u64::from(self.cnt));
    }

    /// bictcp_acked(sk, cnt, rtt_us) of 3.10, which tcp_clean_rtx_queue()
    /// calls only when the cumulative ACK advanced (FLAG_ACKED), with cnt
    /// the segments it acknowledged. In TCP_CA_Open (here: the state
    /// after this ACK; the engine has no Disorder state) the ratio moves
    /// 1/16 of the way to cnt: `ratio = delayed_ack - (delayed_ack >> 4) +
    /// cnt`, clamped to 1..ACK_RATIO_LIMIT. Then HyStart's part.
    fn on_ack(&mut self, w: &mut Window, ctx: &CcCtx) {
        if ctx.bytes_acked > 0 && ctx.state == CaState::Open {
            let pkts = if ctx.mss > 0 {
                ctx.bytes_acked.div_ceil(u64::from(ctx.mss))
            } else {
                ctx.delivered
            };
            let pkts = pkts.min(u64::from(u32::MAX)) as u32;
            let ratio = self.delayed_ack - (self.delayed_ack >> ACK_RATIO_SHIFT);
            self.delayed_ack = ratio.saturating_add(pkts).clamp(1, ACK_RATIO_LIMIT);
        }
        let now = jiffies32(ctx.now);
        let fresh_epoch =
            self.epoch_start != 0 && (now.wrapping_sub(self.epoch_start) as i32) < HZ as i32;
        self.hy.acked(w, ctx, fresh_epoch, self.hystart);
    }

    fn observes_every_ack(&self) -> bool {
        true
    }

    fn on_timeout(&mut self, now: Time) {
        self.hy.on_timeout(now);
    }

    /// bictcp_state(TCP_CA_Loss): bictcp_reset() and
    /// bictcp_hystart_reset().
    fn on_state(&mut self, state: CaState, _w: &Window) {
        if state == CaState::Loss {
            self.bictcp_reset();
            self.hy.on_loss();
        }
    }

    /// bictcp_undo_cwnd() of 3.10: `max(snd_cwnd, loss_cwnd)`.
    fn undo_cwnd(&mut self, w: &Window, _prior_cwnd: u64) -> u64 {
        w.cwnd.max(u64::from(self.loss_cwnd))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{MS, SEC};

    fn window(cwnd: u64, ssthresh: u64) -> Window {
        super::super::testing::window(cwnd, ssthresh)
    }

    /// An ACK at `now` that advanced the cumulative ACK by `bytes` (mss
    /// 1000), in `state`, with per-segment slow start unless `per_ack`.
    fn ack(now: Time, bytes: u64, state: CaState) -> CcCtx {
        CcCtx {
            now,
            bytes_acked: bytes,
            delivered: bytes.div_ceil(1000),
            mss: 1000,
            state,
            ..Default::default()
        }
    }

    /// The delayed-ACK ratio x 16 of bictcp_acked(), `ratio = da - (da >>
    /// 4) + cnt`, from 2 << 4 = 32:
    /// - one segment per ACK: 32 - 2 + 1 = 31, then 31 - 1 + 1 = 31: it
    ///   sticks at 31 (every value 16..31 is a fixed point for 1);
    /// - 4 segments: 31 - 1 + 4 = 34; 2 segments (1500 bytes at mss 1000:
    ///   ceil = 2): 34 - 2 + 2 = 34;
    /// - not in Open, or no cumulative advance: unchanged;
    /// - 1000 segments: 34 - 2 + 1000 = 1032, clamped to 32 << 4 = 512;
    /// - a timeout's bictcp_reset(): back to 32.
    #[test]
    fn delayed_ack_ratio() {
        let mut cc = CubicLinux3::new();
        let mut w = window(10, 5);
        let mut steps = vec![];
        for (bytes, state) in [
            (1000, CaState::Open),
            (1000, CaState::Open),
            (4000, CaState::Open),
            (1500, CaState::Open),
            (4000, CaState::Recovery),
            (0, CaState::Open),
            (1_000_000, CaState::Open),
        ] {
            cc.on_ack(&mut w, &ack(SEC, bytes, state));
            steps.push(cc.delayed_ack());
        }
        assert_eq!(steps, [31, 31, 34, 34, 34, 34, 512]);
        cc.on_state(CaState::Loss, &w);
        assert_eq!(cc.delayed_ack(), 32);
    }

    /// cnt = (cnt << 4) / delayed_ack, at least 1. W_max 100, cwnd 70
    /// (ssthresh 60, avoidance), K = 4316 (cubic_linux.rs's hand
    /// calculation), one ACK each at T, T + 1000, T + 1031, T + 1032 ms.
    /// The raw counts are cubic_linux.rs's: T: target 71, 70 / 1 = 70;
    /// T + 1000: delta 13, target 87, 70 / 17 = 4; T + 1031: within HZ/32
    /// of the last computation with cwnd unchanged: nothing recomputed;
    /// T + 1032: recomputed (t = 1056, delta 12, target 88).
    /// tcp_cong_avoid_ai() per ACK: the ACK that finds cwnd_cnt >= cnt
    /// adds one and zeroes the count, else the count goes up by one.
    /// - delayed_ack 32 (two segments per ACK): 70 x 16 / 32 = 35, 4 x
    ///   16 / 32 = 2, (kept) 2; cwnd_cnt 1, 2, then 2 >= 2: cwnd 71 on the
    ///   third; the fourth recomputes for cwnd 71: 71 / 17 = 4 -> 2.
    /// - 16 (one segment per ACK): 70, 4, 4, then 70 / 18 = 3 -> 3;
    ///   cwnd_cnt 1, 2, 3, and 3 >= 3 on the fourth: cwnd 71.
    /// - 512 (the clamp): 1120 / 512 = 2, 64 / 512 = 0 -> 1 (cwnd_cnt 1,
    ///   which reaches 1: cwnd 71), the third recomputes (new cwnd): 71 /
    ///   17 = 4, to 0, to 1, the fourth keeps it: cwnd 72.
    #[test]
    fn cnt_is_scaled_by_the_delayed_ack_ratio() {
        for (da, want, cwnd) in [
            (32, [35, 2, 2, 2], 71),
            (16, [70, 4, 4, 3], 71),
            (512, [2, 1, 1, 1], 72),
        ] {
            let mut cc = CubicLinux3::new();
            cc.delayed_ack = da;
            let mut w = window(100, 0);
            cc.ssthresh(&w, 100);
            w.cwnd = 70;
            w.ssthresh = 60;
            let t0 = 10 * SEC;
            let mut cnts = vec![];
            for ms in [0, 1000, 1031, 1032] {
                cc.cong_avoid(&mut w, 2, &ack(t0 + ms * MS, 2000, CaState::Open));
                cnts.push(cc.cnt());
            }
            assert_eq!(cnts, want, "delayed_ack {da}");
            assert_eq!(w.cwnd, cwnd, "delayed_ack {da}");
            assert_eq!(cc.bic_k, 4316);
        }
    }

    /// ack_cnt counts ACKs, not segments. A loss at cwnd 8 (W_max 8,
    /// ssthresh 8 x 717 / 1024 = 5), cwnd back at 8: K = 0, origin 8, and
    /// for the first 1.35 s the curve is flat (410 x 491^3 >> 40 = 0 at t =
    /// 480 ms = 491 ticks), so the raw cnt is 100 x 8 = 800 -> 800 x 16 /
    /// 32 = 400. The Reno estimate needs (8 x 15) >> 3 = 15 ACKs per
    /// segment: ACKs of four segments, 32 ms apart (each recomputes): at
    /// ACK 15, (tcp_cwnd, ack_cnt) = (8, 15); at ACK 16, 16 > 15: (9, 1),
    /// max_cnt = 8 / (9 - 8) = 8 -> 8 x 16 / 32 = 4, and cwnd_cnt 15 >= 4:
    /// cwnd 9. ACK 17 (cwnd 9): target 8 < 9, raw 900, ack_cnt 2 <= (9 x
    /// 15) >> 3 = 16: cnt 450. Linux 4.x+ counting segments would have
    /// reached tcp_cwnd 9 at ACK 4 (16 segments > 15).
    #[test]
    fn reno_estimate_counts_acks() {
        let mut cc = CubicLinux3::new();
        let mut w = window(8, 0);
        w.ssthresh = cc.ssthresh(&w, 8);
        assert_eq!(w.ssthresh, 5);
        let t0 = 10 * SEC;
        let mut cnts = vec![];
        for k in 1..=17u64 {
            cc.cong_avoid(&mut w, 4, &ack(t0 + (k - 1) * 32 * MS, 4000, CaState::Open));
            cnts.push(cc.cnt());
            if k == 15 {
                assert_eq!((cc.tcp_cwnd(), w.cwnd), ((8, 15), 8));
            }
            if k == 16 {
                assert_eq!((cc.tcp_cwnd(), w.cwnd), ((9, 1), 9));
            }
        }
        assert_eq!(cnts[0], 400);
        assert_eq!(cnts[14], 400);
        assert_eq!(&cnts[15..], [4, 450]);
    }

    /// While W_max is unknown the raw cnt is capped at 20, before the
    /// scaling: cwnd 20 in avoidance with no loss yet: target 20, 2000 ->
    /// 20 -> 20 x 16 / 32 = 10. After a loss at 20 (W_max 20): 2000 x 16 /
    /// 32 = 1000. Undo is max(cwnd, loss_cwnd) = max(14, 20) = 20, a
    /// timeout (bictcp_reset()) keeps loss_cwnd.
    #[test]
    fn cap_and_undo() {
        let mut cc = CubicLinux3::new();
        let mut w = window(20, 10);
        cc.cong_avoid(&mut w, 1, &ack(SEC, 1000, CaState::Open));
        assert_eq!(cc.cnt(), 10);
        let mut cc = CubicLinux3::new();
        assert_eq!(cc.ssthresh(&w, 20), 14);
        assert_eq!(cc.last_max_cwnd(), 20);
        w.cwnd = 20;
        cc.cong_avoid(&mut w, 1, &ack(SEC, 1000, CaState::Open));
        assert_eq!(cc.cnt(), 1000);
        w.cwnd = 14;
        cc.on_state(CaState::Loss, &w);
        assert_eq!(cc.last_max_cwnd(), 0);
        assert_eq!(cc.undo_cwnd(&w, 0), 20);
    }

    /// Slow start while cwnd <= ssthresh. Per segment (3.17's
    /// tcp_slow_start(tp, acked)): cwnd 8, ssthresh 10, 4 acked: 12 > 10
    /// -> ssthresh + 1 = 11, and the rest is dropped (the next ACK is
    /// avoidance: cnt capped at 20 -> 10, cwnd_cnt 0 -> 1). Per ACK
    /// (3.10's tcp_slow_start(tp)): 8 -> 9 whatever was acked, and at
    /// cwnd 10 = ssthresh one more: 11.
    #[test]
    fn slow_start_of_3x() {
        let mut cc = CubicLinux3::new();
        let mut w = window(8, 10);
        cc.cong_avoid(&mut w, 4, &ack(SEC, 4000, CaState::Open));
        assert_eq!((w.cwnd, w.cwnd_cnt), (11, 0));
        cc.cong_avoid(&mut w, 4, &ack(SEC, 4000, CaState::Open));
        assert_eq!((w.cwnd, w.cwnd_cnt, cc.cnt()), (11, 1, 10));

        let mut cc = CubicLinux3::new();
        let mut w = window(8, 10);
        let mut c = ack(SEC, 4000, CaState::Open);
        c.slow_start = SlowStart::PerAck;
        cc.cong_avoid(&mut w, 4, &c);
        assert_eq!(w.cwnd, 9);
        w.cwnd = 10;
        cc.cong_avoid(&mut w, 4, &c);
        assert_eq!(w.cwnd, 11);
    }

    #[test]
    fn names_and_registry() {
        assert_eq!(CubicLinux3::new().name(), "cubic-linux-3");
        let cc = super::super::by_name("cubic-linux-3").unwrap();
        assert_eq!(cc.name(), "cubic-linux-3");
        assert!(super::super::NAMES.contains(&"cubic-linux-3"));
        let p = super::super::CcParams {
            hystart: HyStartMode::Linux410,
            ..Default::default()
        };
        assert_eq!(
            super::super::build("cubic-linux-3", &p).unwrap().name(),
            "cubic-linux-3+hystart-linux-4.10"
        );
        assert!(CubicLinux3::new()
            .with_hystart_mode(HyStartMode::Linux6)
            .is_none());
    }
}
