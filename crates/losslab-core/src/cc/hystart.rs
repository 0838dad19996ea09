//! HyStart, the slow-start exit Linux's CUBIC has used since 2.6.29 (Ha
//! and Rhee, "Taming the elephants: New TCP slow start", Computer
//! Networks 55(9), 2011; net/ipv4/tcp_cubic.c `hystart_update()`,
//! `bictcp_hystart_reset()`). It is not HyStart++ (RFC 9406), which RFC
//! 9438 section 4.10 prefers; it is here to compare with Linux. Three
//! versions:
//!
//! `HyStartLinux6` (`[flow.cubic] hystart = "linux-6"`, and `cubic-linux`'s
//! default) is Linux 6.x's, in the kernel's u32 microseconds:
//! cubictcp_acked() on every ACK (delay_min, the samples discarded for a
//! second after an epoch starts), hystart_update() with the round
//! started before the `hystart_low_window` check (the January 2025 fix
//! that moved it there; from 5.16 to that fix the check was in
//! cubictcp_acked() and gated the round start too), the ACK-train
//! threshold delay_min + hystart_ack_delay() halved when the flow does
//! not pace, the delay threshold delay_min + clamp(delay_min >> 3, 4000,
//! 16000) us judged against the round's minimum over all its samples once
//! it has eight, and cubictcp_state(TCP_CA_Loss)'s bictcp_reset() (found
//! and delay_min forgotten) with bictcp_hystart_reset().
//!
//! `HyStart` (`hystart = true` or `"linux"`, the older key value, which
//! the reproductions use and which stays as it is) follows no single
//! kernel; it mixes versions:
//! - ACK train: ACKs at most 2 ms apart lasting more than half the
//!   minimum RTT since the round began, in nanoseconds (Linux up to 5.6:
//!   `delay_min >> 4` in 1/8 ms units, a millisecond clock; 5.7 and
//!   later: (delay_min + hystart_ack_delay()) / 2 unpaced, and without the
//!   halving when paced);
//! - delay increase: the round's smallest sample over all its samples,
//!   from the ninth on, above the minimum RTT by clamp(min/8, 4 ms, 16 ms)
//!   (4.10 and later, read at 4.10.17's `delay_min >> 3` of 1/8 ms units;
//!   3.10-3.17 clamped min/16, `delay_min >> 4`, and 3.x kept the
//!   smallest of the first eight samples only);
//! - rounds start again after the ACK is judged, in the controller's
//!   cong_avoid (the order of Linux up to 5.15's bictcp_cong_avoid());
//! - it is fed only the ACKs on which CUBIC grows (cwnd-limited, outside
//!   recovery), where Linux's pkts_acked() sees every ACK, and without
//!   cubictcp_acked()'s one-second discard after an epoch starts;
//! - a timeout re-arms it but keeps delay_min (every Linux since 2.6.29
//!   zeroes delay_min in bictcp_reset() on TCP_CA_Loss).
//!
//! It is not Linux 3.10's either: that is `HyStartOld` (`hystart =
//! "linux-3"`, `cubic-linux-3`'s), with Linux 4.10's (`"linux-4.10"`):
//! bictcp_clock() in ms, delays in 1/8 ms, curr_rtt the minimum of the
//! first eight samples, clamp(min/16) or clamp(min/8), delay_min reset at
//! a timeout (see its comment).

use super::CcCtx;
use crate::pacing::GSO_MAX_SIZE;
use crate::time::{Time, MS, US};
use crate::window::Window;

/// `hystart_low_window`.
pub const LOW_WINDOW: u64 = 16;
/// `hystart_ack_delta_us`.
pub const ACK_DELTA: Time = 2 * MS;
/// `HYSTART_MIN_SAMPLES`.
pub const MIN_SAMPLES: u32 = 8;

/// `HYSTART_DELAY_THRESH`: clamp(delay_min / 8, 4 ms, 16 ms).
pub fn delay_threshold(delay_min: Time) -> Time {
    (delay_min / 8).clamp(4 * MS, 16 * MS)
}

/// The `"linux"` HyStart (see the module comment for what it is not).
#[derive(Clone, Debug, Default)]
pub struct HyStart {
    /// Slow start was ended by HyStart (until a timeout resets it).
    found: bool,
    /// A round is being tracked.
    started: bool,
    round_start: Time,
    last_ack: Time,
    /// snd.nxt when the round started.
    end_seq: u64,
    /// Smallest RTT sample of this round.
    curr_rtt: Time,
    sample_cnt: u32,
    /// Smallest RTT sample of the connection (Linux `delay_min`).
    delay_min: Option<Time>,
}

impl HyStart {
    pub fn found(&self) -> bool {
        self.found
    }

    fn start_round(&mut self, ctx: &CcCtx) {
        self.started = true;
        self.round_start = ctx.now;
        self.last_ack = ctx.now;
        self.end_seq = ctx.snd_nxt;
        self.curr_rtt = Time::MAX;
        self.sample_cnt = 0;
    }

    /// On an ACK while the controller runs; sets ssthresh = cwnd and
    /// returns true when slow start should end now.
    pub fn on_ack(&mut self, w: &mut Window, ctx: &CcCtx) -> bool {
        if !self.started {
            self.start_round(ctx);
        }
        let mut exit = false;
        if let Some(delay) = ctx.rtt_sample {
            let delay = delay.max(1);
            let min = self.delay_min.map_or(delay, |m| m.min(delay));
            self.delay_min = Some(min);
            if !self.found && w.in_slow_start() && w.cwnd >= LOW_WINDOW {
                exit = self.update(ctx.now, delay, min);
                if exit {
                    self.found = true;
                    w.ssthresh = w.cwnd;
                }
            }
        }
        // Linux resets the round in cong_avoid, after pkts_acked has
        // judged this ACK against the round it closes.
        if ctx.snd_una > self.end_seq {
            self.start_round(ctx);
        }
        exit
    }

    fn update(&mut self, now: Time, delay: Time, delay_min: Time) -> bool {
        let mut found = false;
        if now.saturating_sub(self.last_ack) <= ACK_DELTA {
            self.last_ack = now;
            if now.saturating_sub(self.round_start) > delay_min / 2 {
                found = true;
            }
        }
        self.curr_rtt = self.curr_rtt.min(delay);
        if self.sample_cnt < MIN_SAMPLES {
            self.sample_cnt += 1;
        } else if self.curr_rtt > delay_min + delay_threshold(delay_min) {
            found = true;
        }
        found
    }

    /// A retransmission timeout: slow start may be left again (Linux
    /// `cubictcp_state(TCP_CA_Loss)`).
    pub fn reset(&mut self) {
        self.found = false;
        self.started = false;
    }
}

/// Module parameter `hystart_low_window` (Linux 6.x tcp_cubic.c).
pub const HYSTART_LOW_WINDOW: u64 = 16;
/// Module parameter `hystart_ack_delta_us`.
pub const HYSTART_ACK_DELTA_US: i32 = 2000;
/// `HYSTART_MIN_SAMPLES`.
pub const HYSTART_MIN_SAMPLES: u8 = 8;
/// `HYSTART_DELAY_MIN`, `HYSTART_DELAY_MAX` (usecs).
pub const HYSTART_DELAY_MIN: u32 = 4000;
pub const HYSTART_DELAY_MAX: u32 = 16000;
const USEC_PER_MSEC: u64 = 1000;
const USEC_PER_SEC: u64 = 1_000_000;

/// bictcp_clock_us(): tp->tcp_mstamp (microseconds) as u32.
pub fn clock_us(now: Time) -> u32 {
    (now / US) as u32
}

/// include/net/tcp.h after(): sequence `a` is after `b`, mod 2^32.
pub(super) fn after(a: u32, b: u32) -> bool {
    (b.wrapping_sub(a) as i32) < 0
}

/// hystart_ack_delay(): `min_t(u64, USEC_PER_MSEC, div64_ul((u64)
/// sk->sk_gso_max_size * 4 * USEC_PER_SEC, rate))`, 0 without a rate;
/// sk_pacing_rate is in bytes per second, `pacing_rate_bps` in bits.
/// sk_gso_max_size is GSO_LEGACY_MAX_SIZE, 65536 (pacing.rs).
pub fn hystart_ack_delay(pacing_rate_bps: Option<u64>) -> u32 {
    let rate = pacing_rate_bps.unwrap_or(0) / 8;
    if rate == 0 {
        return 0;
    }
    USEC_PER_MSEC.min(GSO_MAX_SIZE * 4 * USEC_PER_SEC / rate) as u32
}

/// Linux 6.x HyStart: the HyStart fields of `struct bictcp` and its
/// delay_min, shared by `cubic` (`hystart = "linux-6"`) and
/// `cubic-linux`, so both run the same code.
#[derive(Clone, Debug)]
pub struct HyStartLinux6 {
    /// Minimum delay, usecs (0: none yet).
    pub(super) delay_min: u32,
    /// HyStart ended slow start (`ca->found`).
    pub(super) found: bool,
    /// Samples of this round, round start and last close ACK (usecs),
    /// snd_nxt at the round's start (mod 2^32), the round's minimum RTT
    /// (usecs).
    pub(super) sample_cnt: u8,
    pub(super) round_start: u32,
    pub(super) end_seq: u32,
    pub(super) last_ack: u32,
    pub(super) curr_rtt: u32,
    /// The engine's part: the time of the last timeout, for the
    /// bictcp_hystart_reset() of cubictcp_state(TCP_CA_Loss), which
    /// `on_loss` runs and which has no clock.
    timeout_at: Time,
    /// bictcp_hystart_reset() sets end_seq = snd_nxt; at a timeout the
    /// controller does not see snd_nxt, so the first ACK after it
    /// supplies it (the engine never moves snd_nxt back, and after a
    /// timeout with cwnd 1 nothing new is sent before that ACK).
    end_seq_pending: bool,
}

impl Default for HyStartLinux6 {
    fn default() -> Self {
        Self::new()
    }
}

impl HyStartLinux6 {
    /// cubictcp_init()'s state. Its bictcp_hystart_reset() ends the round
    /// at snd_nxt = 0, the first byte, so the first ACK starts a round.
    pub fn new() -> Self {
        HyStartLinux6 {
            delay_min: 0,
            found: false,
            sample_cnt: 0,
            round_start: 0,
            end_seq: 0,
            last_ack: 0,
            curr_rtt: u32::MAX,
            timeout_at: 0,
            end_seq_pending: false,
        }
    }

    /// `ca->delay_min`, usecs (0 before the first sample).
    pub fn delay_min(&self) -> u32 {
        self.delay_min
    }

    /// HyStart ended slow start (`ca->found`).
    pub fn found(&self) -> bool {
        self.found
    }

    /// bictcp_hystart_reset(): a new round from now to snd_nxt.
    fn hystart_reset(&mut self, now_us: u32, snd_nxt: u32) {
        self.round_start = now_us;
        self.last_ack = now_us;
        self.end_seq = snd_nxt;
        self.curr_rtt = u32::MAX;
        self.sample_cnt = 0;
    }

    /// cubictcp_acked(), on every ACK. `fresh_epoch` is the controller's
    /// `ca->epoch_start && (s32)(tcp_jiffies32 - ca->epoch_start) < HZ`
    /// (delay samples right after fast recovery are discarded); `enabled`
    /// the module parameter `hystart`.
    pub fn acked(&mut self, w: &mut Window, ctx: &CcCtx, fresh_epoch: bool, enabled: bool) {
        // The snd_nxt of the timeout's bictcp_hystart_reset(), from the
        // first ACK after it (with or without an RTT sample: the
        // retransmissions' ACKs have none, and new data may follow them).
        if self.end_seq_pending {
            self.end_seq = ctx.snd_nxt as u32;
            self.end_seq_pending = false;
        }
        // `if (sample->rtt_us < 0) return;`
        let Some(rtt) = ctx.rtt_sample else {
            return;
        };
        if fresh_epoch {
            return;
        }
        let mut delay = (rtt / US).min(u64::from(u32::MAX)) as u32;
        if delay == 0 {
            delay = 1;
        }
        if self.delay_min == 0 || self.delay_min > delay {
            self.delay_min = delay;
        }
        if !self.found && w.in_slow_start() && enabled {
            self.hystart_update(w, ctx, delay);
        }
    }

    /// hystart_update(), with cwnd and ssthresh from the window.
    fn hystart_update(&mut self, w: &mut Window, ctx: &CcCtx, delay: u32) {
        // `if (after(tp->snd_una, ca->end_seq)) bictcp_hystart_reset(sk);`
        // then the `hystart_low_window` check (the 2025 order).
        if after(ctx.snd_una as u32, self.end_seq) {
            self.hystart_reset(clock_us(ctx.now), ctx.snd_nxt as u32);
        }
        if w.cwnd < HYSTART_LOW_WINDOW {
            return;
        }

        // HYSTART_ACK_TRAIN.
        let now = clock_us(ctx.now);
        if (now.wrapping_sub(self.last_ack) as i32) <= HYSTART_ACK_DELTA_US {
            self.last_ack = now;
            // `threshold = ca->delay_min + hystart_ack_delay(sk);` and
            // `if (sk->sk_pacing_status == SK_PACING_NONE) threshold >>=
            // 1;`
            let mut threshold = self
                .delay_min
                .wrapping_add(hystart_ack_delay(ctx.pacing_rate));
            if !ctx.paced {
                threshold >>= 1;
            }
            // `(s32)(now - ca->round_start) > threshold`: an s32 against
            // a u32 compares as u32.
            if now.wrapping_sub(self.round_start) > threshold {
                self.found = true;
                w.ssthresh = w.cwnd;
            }
        }

        // HYSTART_DELAY.
        if self.curr_rtt > delay {
            self.curr_rtt = delay;
        }
        if self.sample_cnt < HYSTART_MIN_SAMPLES {
            self.sample_cnt += 1;
        } else if self.curr_rtt > self.delay_min.wrapping_add(delay_thresh_us(self.delay_min)) {
            self.found = true;
            w.ssthresh = w.cwnd;
        }
    }

    /// A retransmission timeout at `now` (before `on_loss`).
    pub fn on_timeout(&mut self, now: Time) {
        self.timeout_at = now;
    }

    /// cubictcp_state(TCP_CA_Loss): bictcp_reset()'s part here (found and
    /// delay_min zeroed) and bictcp_hystart_reset() at the timeout.
    pub fn on_loss(&mut self) {
        self.delay_min = 0;
        self.found = false;
        self.hystart_reset(clock_us(self.timeout_at), self.end_seq);
        self.end_seq_pending = true;
    }
}

/// `HYSTART_DELAY_THRESH(ca->delay_min >> 3)`: clamp(delay_min / 8, 4000,
/// 16000) us.
pub fn delay_thresh_us(delay_min: u32) -> u32 {
    (delay_min >> 3).clamp(HYSTART_DELAY_MIN, HYSTART_DELAY_MAX)
}

/// Which pre-5.x HyStart `HyStartOld` runs (`[flow.cubic] hystart =
/// "linux-4.10" | "linux-3"`). Read in 4.10.17, 3.17.0, 3.10.105 and
/// 3.2.7 net/ipv4/tcp_cubic.c; the two differ in the delay threshold's
/// divisor, the slow-start test and which ACKs reach bictcp_acked().
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OldKernel {
    /// Linux 4.x before 5.7 (read at 4.10.17).
    Linux410,
    /// Linux 3.x (read at 3.10.105 and 3.17.0; 3.2.7 differs in its
    /// sample discard, see `HyStartOld::acked`).
    Linux3,
}

/// `HYSTART_DELAY_MIN` and `HYSTART_DELAY_MAX` of the pre-5.7 kernels:
/// `(4U<<3)` and `(16U<<3)`, in the 1/8 ms units of their delay_min.
pub const OLD_DELAY_MIN: u32 = 4 << 3;
pub const OLD_DELAY_MAX: u32 = 16 << 3;
/// Module parameter `hystart_ack_delta` of the pre-5.7 kernels: 2 ms (a
/// millisecond count, not hystart_ack_delta_us).
pub const OLD_ACK_DELTA_MS: i32 = 2;

/// bictcp_clock() of the pre-5.7 kernels at HZ = 1000:
/// `jiffies_to_msecs(jiffies)`, which is jiffies itself (tcp_cubic.c
/// reads ktime only when HZ < 1000).
pub fn clock_ms(now: Time) -> u32 {
    super::jiffies::jiffies32(now)
}

/// The pre-5.7 `HYSTART_DELAY_THRESH()` of `delay_min` (1/8 ms): Linux
/// 4.10's `clamp(delay_min >> 3, 32, 128)` (min/8, 4 to 16 ms) and 3.x's
/// `clamp(delay_min >> 4, 32, 128)` (min/16).
pub fn old_delay_thresh(kernel: OldKernel, delay_min: u32) -> u32 {
    let shift = match kernel {
        OldKernel::Linux410 => 3,
        OldKernel::Linux3 => 4,
    };
    (delay_min >> shift).clamp(OLD_DELAY_MIN, OLD_DELAY_MAX)
}

/// Linux 3.x / 4.10 HyStart: the HyStart fields of their `struct bictcp`
/// and its delay_min (1/8 ms), shared by `cubic` (`hystart =
/// "linux-4.10"` or `"linux-3"`), `cubic-linux` with those values and
/// `cubic-linux-3`. Differences from `HyStartLinux6`, each in the
/// kernels' own code:
/// - a millisecond clock (bictcp_clock()), delays in 1/8 ms (`delay =
///   (rtt_us << 3) / USEC_PER_MSEC`);
/// - the ACK train is `now - round_start > delay_min >> 4` (half the
///   minimum RTT in ms), no pacing allowance;
/// - curr_rtt is the minimum of the round's first HYSTART_MIN_SAMPLES
///   samples only; from the ninth sample on each is judged against
///   that, never folded in;
/// - the round restarts in bictcp_cong_avoid(), after bictcp_acked()
///   judged the ACK and only on ACKs that may grow cwnd in slow start
///   (`cong_avoid_round`).
#[derive(Clone, Debug)]
pub struct HyStartOld {
    kernel: OldKernel,
    /// `ca->delay_min`, 1/8 ms (0: none yet).
    pub(super) delay_min: u32,
    /// `ca->found` (non-zero once a detector fired).
    pub(super) found: bool,
    pub(super) sample_cnt: u8,
    /// Round start and last close ACK (bictcp_clock(), ms), snd_nxt at
    /// the round's start, the first samples' minimum (1/8 ms, 0: none).
    pub(super) round_start: u32,
    pub(super) end_seq: u32,
    pub(super) last_ack: u32,
    pub(super) curr_rtt: u32,
    /// As `HyStartLinux6`: the timeout's time and snd_nxt for the
    /// bictcp_hystart_reset() of bictcp_state(TCP_CA_Loss).
    timeout_at: Time,
    end_seq_pending: bool,
}

impl HyStartOld {
    /// bictcp_init()'s bictcp_hystart_reset(): the round from the
    /// connection's start (engine time 0) to snd_nxt = 0.
    pub fn new(kernel: OldKernel) -> Self {
        let now = clock_ms(0);
        HyStartOld {
            kernel,
            delay_min: 0,
            found: false,
            sample_cnt: 0,
            round_start: now,
            end_seq: 0,
            last_ack: now,
            curr_rtt: 0,
            timeout_at: 0,
            end_seq_pending: false,
        }
    }

    pub fn kernel(&self) -> OldKernel {
        self.kernel
    }

    /// `ca->delay_min`, 1/8 ms.
    pub fn delay_min(&self) -> u32 {
        self.delay_min
    }

    pub fn found(&self) -> bool {
        self.found
    }

    /// The slow-start test these kernels apply around HyStart: 3.x's
    /// `snd_cwnd <= snd_ssthresh`, 4.10's tcp_in_slow_start()
    /// (`snd_cwnd < snd_ssthresh`).
    fn in_slow_start(&self, w: &Window) -> bool {
        match self.kernel {
            OldKernel::Linux410 => w.cwnd < w.ssthresh,
            OldKernel::Linux3 => w.cwnd <= w.ssthresh,
        }
    }

    /// bictcp_hystart_reset(): `curr_rtt = 0` marks "no sample yet".
    fn hystart_reset(&mut self, now_ms: u32, snd_nxt: u32) {
        self.round_start = now_ms;
        self.last_ack = now_ms;
        self.end_seq = snd_nxt;
        self.curr_rtt = 0;
        self.sample_cnt = 0;
    }

    /// The delay part of bictcp_acked(), on the ACKs that reach it: every
    /// ACK in 4.10 (tcp_clean_rtx_queue() calls pkts_acked()
    /// unconditionally), only cumulative advances in 3.x (its call sits
    /// under `flag & FLAG_ACKED`). `fresh_epoch` is the controller's
    /// `ca->epoch_start && (s32)(tcp_time_stamp - ca->epoch_start) < HZ`
    /// (3.10 and later; 3.2.7 drops the `epoch_start &&`, so before the
    /// first epoch its discard depends on the host's uptime: not
    /// modelled).
    pub fn acked(&mut self, w: &mut Window, ctx: &CcCtx, fresh_epoch: bool, enabled: bool) {
        if self.end_seq_pending {
            self.end_seq = ctx.snd_nxt as u32;
            self.end_seq_pending = false;
        }
        if self.kernel == OldKernel::Linux3 && ctx.bytes_acked == 0 {
            return;
        }
        let Some(rtt) = ctx.rtt_sample else {
            return;
        };
        if fresh_epoch {
            return;
        }
        // `delay = (rtt_us << 3) / USEC_PER_MSEC`, at least 1; rtt_us is
        // an s32 in the kernel.
        let rtt_us = (rtt / US).min(i32::MAX as u64) as u32;
        let mut delay = rtt_us.wrapping_shl(3) / USEC_PER_MSEC as u32;
        if delay == 0 {
            delay = 1;
        }
        if self.delay_min == 0 || self.delay_min > delay {
            self.delay_min = delay;
        }
        if enabled && self.in_slow_start(w) && w.cwnd >= HYSTART_LOW_WINDOW {
            self.hystart_update(w, ctx, delay);
        }
    }

    /// hystart_update() of 3.10-4.10.
    fn hystart_update(&mut self, w: &mut Window, ctx: &CcCtx, delay: u32) {
        if self.found {
            return;
        }
        let now = clock_ms(ctx.now);
        // HYSTART_ACK_TRAIN: `(s32)(now - ca->last_ack) <=
        // hystart_ack_delta`, then `(s32)(now - ca->round_start) >
        // ca->delay_min >> 4` (s32 against u32: compared as u32).
        if (now.wrapping_sub(self.last_ack) as i32) <= OLD_ACK_DELTA_MS {
            self.last_ack = now;
            if now.wrapping_sub(self.round_start) > self.delay_min >> 4 {
                self.found = true;
            }
        }
        // HYSTART_DELAY: the first eight samples make curr_rtt; later
        // ones only test it.
        if self.sample_cnt < HYSTART_MIN_SAMPLES {
            if self.curr_rtt == 0 || self.curr_rtt > delay {
                self.curr_rtt = delay;
            }
            self.sample_cnt += 1;
        } else if self.curr_rtt
            > self
                .delay_min
                .wrapping_add(old_delay_thresh(self.kernel, self.delay_min))
        {
            self.found = true;
        }
        if self.found {
            w.ssthresh = w.cwnd;
        }
    }

    /// bictcp_cong_avoid()'s `if (hystart && after(ack, ca->end_seq))
    /// bictcp_hystart_reset(sk);`, run by the controller on an ACK that
    /// may grow cwnd, before its slow start, and only in slow start.
    pub fn cong_avoid_round(&mut self, w: &Window, ctx: &CcCtx, enabled: bool) {
        if enabled && self.in_slow_start(w) && after(ctx.snd_una as u32, self.end_seq) {
            self.hystart_reset(clock_ms(ctx.now), ctx.snd_nxt as u32);
        }
    }

    /// A retransmission timeout at `now` (before `on_loss`).
    pub fn on_timeout(&mut self, now: Time) {
        self.timeout_at = now;
    }

    /// bictcp_state(TCP_CA_Loss): bictcp_reset()'s `delay_min = 0` and
    /// `found = 0`, and bictcp_hystart_reset() at the timeout (snd_nxt
    /// from the next ACK, as `HyStartLinux6::on_loss`).
    pub fn on_loss(&mut self) {
        self.delay_min = 0;
        self.found = false;
        self.hystart_reset(clock_ms(self.timeout_at), self.end_seq);
        self.end_seq_pending = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A window in slow start with no ssthresh yet.
    fn window(cwnd: u64) -> Window {
        super::super::testing::window(cwnd, u64::MAX)
    }

    fn ack(now_us: u64, rtt_ms: Option<u64>, una: u64, nxt: u64) -> CcCtx {
        CcCtx {
            now: now_us * 1000,
            rtt_sample: rtt_ms.map(|r| r * MS),
            snd_una: una,
            snd_nxt: nxt,
            ..Default::default()
        }
    }

    #[test]
    fn thresholds() {
        assert_eq!(delay_threshold(10 * MS), 4 * MS);
        assert_eq!(delay_threshold(80 * MS), 10 * MS);
        assert_eq!(delay_threshold(200 * MS), 16 * MS);
    }

    #[test]
    fn ack_train_longer_than_half_the_min_rtt_ends_slow_start() {
        // Min RTT 40 ms; a round starts at t = 0 with 100 segments out;
        // ACKs every 1 ms (< 2 ms apart) all carry a 40 ms sample, so the
        // delay signal stays quiet and the train exits once it has lasted
        // more than 20 ms.
        let mut h = HyStart::default();
        let mut w = window(32);
        assert!(!h.on_ack(&mut w, &ack(0, Some(40), 0, 100_000)));
        for t in 1..=20u64 {
            assert!(!h.on_ack(&mut w, &ack(t * 1000, Some(40), t * 1000, 100_000)));
        }
        assert!(h.on_ack(&mut w, &ack(21_000, Some(40), 21_000, 100_000)));
        assert_eq!(w.ssthresh, 32);
        assert!(h.found());
        // Found stays found: no second exit.
        assert!(!h.on_ack(&mut w, &ack(22_000, Some(40), 22_000, 100_000)));
    }

    #[test]
    fn a_gap_in_the_train_and_small_windows_do_not_trigger() {
        let mut h = HyStart::default();
        // Below 16 segments nothing is judged.
        let mut w = window(15);
        for t in 0..=30u64 {
            assert!(!h.on_ack(&mut w, &ack(t * 1000, Some(40), t, 100_000)));
        }
        // ACKs 3 ms apart never extend the train.
        let mut h = HyStart::default();
        let mut w = window(32);
        for t in 0..=30u64 {
            assert!(!h.on_ack(&mut w, &ack(t * 3000, Some(40), t, 100_000)));
        }
    }

    #[test]
    fn rising_delay_ends_slow_start_after_eight_samples() {
        // Min RTT 40 ms (threshold 5 ms). A new round whose samples are all
        // 46 ms: after eight samples the ninth judges 46 > 45.
        let mut h = HyStart::default();
        let mut w = window(32);
        assert!(!h.on_ack(&mut w, &ack(0, Some(40), 1, 1000)));
        // Round 2 starts (snd_una passed 1000); ACKs 5 ms apart.
        assert!(!h.on_ack(&mut w, &ack(5_000, Some(46), 1001, 50_000)));
        let mut exits = vec![];
        for k in 1..=9u64 {
            exits.push(h.on_ack(&mut w, &ack(5_000 + k * 5_000, Some(46), 1001 + k, 50_000)));
        }
        // The round-opening ACK counted in the round it closed; samples
        // k = 1..8 are collected and the ninth, the first judged, exits.
        assert_eq!(exits.iter().position(|&x| x), Some(8));
        // A timeout lets HyStart act again.
        h.reset();
        assert!(!h.found());
    }

    /// An ACK at `now_us` for the Linux 6.x HyStart, with its pacing.
    fn ack6(now_us: u64, rtt_us: u64, una: u64, nxt: u64, paced: bool, rate: Option<u64>) -> CcCtx {
        CcCtx {
            now: now_us * 1000,
            rtt_sample: Some(rtt_us * 1000),
            snd_una: una,
            snd_nxt: nxt,
            paced,
            pacing_rate: rate,
            ..Default::default()
        }
    }

    /// HYSTART_DELAY_THRESH(delay_min >> 3) in us: 10000 >> 3 = 1250 ->
    /// 4000; 40000 >> 3 = 5000; 200000 >> 3 = 25000 -> 16000. And
    /// hystart_ack_delay() = min(1000, 65536 x 4 x 10^6 / (bps / 8)):
    /// 100 Mbit/s: 262144000000 / 12500000 = 20971 -> 1000; 10 Gbit/s:
    /// 262144000000 / 1250000000 = 209 (209.7 truncated).
    #[test]
    fn linux6_thresholds() {
        assert_eq!(delay_thresh_us(10_000), 4000);
        assert_eq!(delay_thresh_us(40_000), 5000);
        assert_eq!(delay_thresh_us(200_000), 16_000);
        assert_eq!(hystart_ack_delay(Some(100_000_000)), 1000);
        assert_eq!(hystart_ack_delay(Some(10_000_000_000)), 209);
        assert_eq!(hystart_ack_delay(None), 0);
    }

    /// The ACK train of Linux 6.x: delay_min 40000 us, cwnd 32, a round
    /// from t = 0 (the first ACK passes end_seq 0), ACKs 500 us apart
    /// (<= 2000) carrying 40 ms samples, so only the train can fire. The
    /// threshold is delay_min + ack_delay, >> 1 when the flow does not
    /// pace, and the exit is the first ACK with now - round_start above
    /// it:
    /// - unpaced, no rate: 40000 >> 1 = 20000: 20500 (20000 is not >);
    /// - unpaced, 100 Mbit/s: 41000 >> 1 = 20500: 21000;
    /// - paced, 100 Mbit/s: 41000: 41500;
    /// - paced, 10 Gbit/s: 40000 + 209 = 40209: 40500.
    ///
    /// The `"linux"` HyStart exits at 20500 in all four (delay_min / 2 =
    /// 20 ms, no allowance, no pacing).
    #[test]
    fn linux6_ack_train_paced_and_unpaced() {
        for (paced, rate, exit_us) in [
            (false, None, 20_500),
            (false, Some(100_000_000), 21_000),
            (true, Some(100_000_000), 41_500),
            (true, Some(10_000_000_000), 40_500),
        ] {
            let mut h = HyStartLinux6::new();
            let mut w = window(32);
            let mut exit = None;
            for k in 0..=200u64 {
                let t = k * 500;
                h.acked(
                    &mut w,
                    &ack6(t, 40_000, 1 + k, 1_000_000, paced, rate),
                    false,
                    true,
                );
                if h.found() {
                    exit = Some(t);
                    break;
                }
            }
            assert_eq!(exit, Some(exit_us), "paced {paced} rate {rate:?}");
            assert_eq!(w.ssthresh, 32);
            assert_eq!(h.delay_min(), 40_000);
        }
    }

    /// The delay signal: delay_min 40000, threshold 40000 + 5000 = 45000
    /// us. Round 1 at t = 0 (one 40 ms sample); round 2 from the ACK at
    /// 10 ms that passes end_seq 1000; ACKs 5 ms apart (no train).
    /// Samples of 45000 us never exit (45000 is not > 45000); samples of
    /// 45001: the round-opening ACK is sample 1, samples 1..8 are
    /// counted, the 9th (t = 10 + 8 x 5 = 50 ms) is judged and exits.
    #[test]
    fn linux6_delay_increase() {
        for (rtt, exit) in [(45_000, None), (45_001, Some(50_000))] {
            let mut h = HyStartLinux6::new();
            let mut w = window(32);
            h.acked(&mut w, &ack6(0, 40_000, 1, 1000, false, None), false, true);
            let mut found = None;
            for k in 0..20u64 {
                let t = 10_000 + k * 5000;
                h.acked(
                    &mut w,
                    &ack6(t, rtt, 1001 + k, 50_000, false, None),
                    false,
                    true,
                );
                if h.found() {
                    found = Some(t);
                    break;
                }
            }
            assert_eq!(found, exit, "samples of {rtt} us");
        }
    }

    /// Linux 6.x starts the round in hystart_update() before judging the
    /// ACK (and below hystart_low_window too); the `"linux"` HyStart
    /// judges the ACK against the round it closes. delay_min 40000,
    /// unpaced, no rate: threshold 20000 us. A round from t = 0 to snd_nxt
    /// 100000, ACKs 1 ms apart; at t = 21 ms snd_una passes 100000:
    /// - linux-6: a new round at 21000, 21000 - 21000 = 0: no exit; the
    ///   train goes on and exits at 21000 + 21000 = 42000 (21000 > 20000);
    /// - linux: 21000 us > delay_min / 2 = 20 ms against the old round:
    ///   exit at 21 ms.
    ///
    /// With cwnd 8 (below 16) linux-6 still moves the round.
    #[test]
    fn linux6_round_starts_before_the_ack_is_judged() {
        let una = |t: u64| if t < 21 { 1 + t } else { 100_001 + t };
        let mut h = HyStartLinux6::new();
        let mut w = window(32);
        let mut exit = None;
        for t in 0..=60u64 {
            h.acked(
                &mut w,
                &ack6(
                    t * 1000,
                    40_000,
                    una(t),
                    100_000 + 1000 * t.min(21),
                    false,
                    None,
                ),
                false,
                true,
            );
            if t == 21 {
                assert_eq!((h.round_start, h.end_seq), (21_000, 121_000));
            }
            if h.found() {
                exit = Some(t);
                break;
            }
        }
        assert_eq!(exit, Some(42));

        let mut old = HyStart::default();
        let mut w = window(32);
        let mut exit = None;
        for t in 0..=60u64 {
            let ctx = ack(t * 1000, Some(40), una(t), 100_000 + 1000 * t.min(21));
            if old.on_ack(&mut w, &ctx) {
                exit = Some(t);
                break;
            }
        }
        assert_eq!(exit, Some(21));

        let mut h = HyStartLinux6::new();
        let mut w = window(8);
        h.acked(
            &mut w,
            &ack6(5000, 40_000, 1, 7000, false, None),
            false,
            true,
        );
        assert_eq!((h.round_start, h.end_seq), (5000, 7000));
    }

    /// cubictcp_state(TCP_CA_Loss): delay_min and found zeroed, a round
    /// from the timeout (12 s = 12000000 us) whose end_seq is the snd_nxt
    /// of the next ACK; that ACK's 30 ms sample becomes delay_min (40 ms
    /// before). A discarded sample (fresh epoch) changes nothing.
    #[test]
    fn linux6_timeout_forgets_delay_min() {
        let mut h = HyStartLinux6::new();
        let mut w = window(32);
        h.acked(
            &mut w,
            &ack6(10_000_000, 40_000, 1, 5000, false, None),
            false,
            true,
        );
        assert_eq!(h.delay_min(), 40_000);
        h.found = true;
        h.on_timeout(12 * crate::time::SEC);
        h.on_loss();
        assert_eq!((h.delay_min(), h.found()), (0, false));
        assert_eq!((h.round_start, h.last_ack), (12_000_000, 12_000_000));
        let mut w = window(1);
        h.acked(
            &mut w,
            &ack6(12_050_000, 20_000, 4000, 9000, false, None),
            true,
            true,
        );
        assert_eq!((h.delay_min(), h.end_seq), (0, 9000));
        h.acked(
            &mut w,
            &ack6(12_100_000, 30_000, 4000, 9000, false, None),
            false,
            true,
        );
        assert_eq!(h.delay_min(), 30_000);
    }
    /// An ACK at `now_ms` for the 3.x / 4.10 HyStart: `rtt_us` sample,
    /// cumulative ACK at `una` (having advanced `bytes_acked`), snd_nxt.
    fn ack_old(now_ms: u64, rtt_us: Option<u64>, una: u64, nxt: u64, bytes_acked: u64) -> CcCtx {
        CcCtx {
            now: now_ms * MS,
            rtt_sample: rtt_us.map(|r| r * US),
            snd_una: una,
            snd_nxt: nxt,
            bytes_acked,
            ..Default::default()
        }
    }

    /// The pre-5.7 HYSTART_DELAY_THRESH in 1/8 ms: delay_min 40 ms = 320.
    /// 3.x: clamp(320 >> 4 = 20, 32, 128) = 32 (4 ms): exit above 320 + 32
    /// = 352 (44 ms). 4.10: 320 >> 3 = 40 (5 ms): above 360 (45 ms).
    /// 200 ms = 1600: 3.x 100 (12.5 ms), 4.10 200 -> 128 (16 ms). 10 ms =
    /// 80: 5 and 10, both -> 32 (4 ms). The sample conversion: 45 ms =
    /// (45000 << 3) / 1000 = 360; 999 us = 7992 / 1000 = 7; 100 us = 0
    /// -> 1.
    #[test]
    fn old_thresholds() {
        use OldKernel::*;
        assert_eq!(320 + old_delay_thresh(Linux3, 320), 352);
        assert_eq!(320 + old_delay_thresh(Linux410, 320), 360);
        assert_eq!(old_delay_thresh(Linux3, 1600), 100);
        assert_eq!(old_delay_thresh(Linux410, 1600), 128);
        assert_eq!(old_delay_thresh(Linux3, 80), 32);
        assert_eq!(old_delay_thresh(Linux410, 80), 32);
        for (rtt_us, want) in [(45_000, 360), (999, 7), (100, 1)] {
            let mut h = HyStartOld::new(Linux410);
            h.acked(
                &mut window(2),
                &ack_old(1, Some(rtt_us), 1, 2, 1),
                false,
                true,
            );
            assert_eq!(h.delay_min(), want, "{rtt_us} us");
        }
    }

    /// Drives a 3.x / 4.10 HyStart as a controller does (bictcp_acked(),
    /// then bictcp_cong_avoid()'s round check) with cwnd 32 and ssthresh
    /// `ssthresh`: ACK 0 at 10 s with a 40 ms sample (delay_min 320)
    /// opens a round; ACK k comes `gap_ms` x k later with `rtts_ms[k-1]`.
    /// Returns the k whose ACK ended slow start.
    fn drive_old(kernel: OldKernel, ssthresh: u64, gap_ms: u64, rtts_ms: &[u64]) -> Option<usize> {
        let mut h = HyStartOld::new(kernel);
        let mut w = super::super::testing::window(32, ssthresh);
        let c = ack_old(10_000, Some(40_000), 1, 1000, 1448);
        h.acked(&mut w, &c, false, true);
        h.cong_avoid_round(&w, &c, true);
        if h.in_slow_start(&w) {
            assert_eq!(
                (h.delay_min(), h.round_start),
                (320, clock_ms(10 * 1000 * MS))
            );
        }
        for (i, &rtt) in rtts_ms.iter().enumerate() {
            let k = i as u64 + 1;
            let c = ack_old(10_000 + gap_ms * k, Some(rtt * 1000), 1 + k, 1000, 1448);
            h.acked(&mut w, &c, false, true);
            if h.found() {
                assert_eq!(w.ssthresh, 32);
                return Some(k as usize);
            }
            h.cong_avoid_round(&w, &c, true);
        }
        None
    }

    /// curr_rtt is the minimum of the round's FIRST eight samples: ACKs 3
    /// ms apart (the train needs <= 2), samples 50, then seven of 45 ms:
    /// curr_rtt = min(400, 360) = 360. The ninth (40 ms) is judged, not
    /// folded in: 3.x 360 > 352 exits there; 4.10 360 > 360 does not,
    /// and twelve more samples of 60 ms (480) never move curr_rtt, so it
    /// never exits (Linux 6.x's minimum over all samples would stay 360
    /// as well, but the `"linux"` blend's and 6.x's fold the 40 ms in).
    #[test]
    fn old_delay_uses_the_first_eight_samples() {
        let mut rtts = vec![50, 45, 45, 45, 45, 45, 45, 45, 40];
        rtts.extend([60; 12]);
        assert_eq!(drive_old(OldKernel::Linux3, u64::MAX, 3, &rtts), Some(9));
        assert_eq!(drive_old(OldKernel::Linux410, u64::MAX, 3, &rtts), None);
        // Eight samples are not enough to judge: 46 ms (368 > 360) from
        // the first exits 4.10 on the ninth.
        assert_eq!(
            drive_old(OldKernel::Linux410, u64::MAX, 3, &[46; 12]),
            Some(9)
        );
    }

    /// The ACK train: ACKs 1 ms apart (<= 2), 40 ms samples, delay_min
    /// 320: it fires when now - round_start > 320 >> 4 = 20 ms, at ACK 21
    /// (20 is not > 20), in both kernels, with no pacing term. At cwnd =
    /// ssthresh = 32, 3.x still judges (`snd_cwnd <= snd_ssthresh`) and
    /// 4.10 does not (tcp_in_slow_start(): `<`).
    #[test]
    fn old_ack_train_and_the_slow_start_test() {
        let rtts = [40; 30];
        assert_eq!(drive_old(OldKernel::Linux3, u64::MAX, 1, &rtts), Some(21));
        assert_eq!(drive_old(OldKernel::Linux410, u64::MAX, 1, &rtts), Some(21));
        assert_eq!(drive_old(OldKernel::Linux3, 32, 1, &rtts), Some(21));
        assert_eq!(drive_old(OldKernel::Linux410, 32, 1, &rtts), None);
    }

    /// Which ACKs reach it: 3.x's bictcp_acked() runs only when the
    /// cumulative ACK advanced, 4.10's on every ACK. A SACK-only ACK with a
    /// 30 ms sample: 3.x keeps delay_min 0, 4.10 takes 240. A sample in
    /// the second after an epoch began (`fresh_epoch`) is dropped by both.
    /// A timeout: delay_min and found zeroed, a round from the timeout's
    /// millisecond to the snd_nxt of the next ACK.
    #[test]
    fn old_samples_discards_and_the_timeout() {
        let sack_only = ack_old(5_000, Some(30_000), 0, 5000, 0);
        let mut h3 = HyStartOld::new(OldKernel::Linux3);
        h3.acked(&mut window(2), &sack_only, false, true);
        assert_eq!(h3.delay_min(), 0);
        let mut h4 = HyStartOld::new(OldKernel::Linux410);
        h4.acked(&mut window(2), &sack_only, false, true);
        assert_eq!(h4.delay_min(), 240);
        h4.acked(
            &mut window(2),
            &ack_old(5_001, Some(20_000), 10, 5000, 10),
            true,
            true,
        );
        assert_eq!(h4.delay_min(), 240);

        h4.found = true;
        h4.on_timeout(7 * 1000 * MS);
        h4.on_loss();
        assert_eq!((h4.delay_min(), h4.found()), (0, false));
        assert_eq!(h4.round_start, clock_ms(7000 * MS));
        h4.acked(
            &mut window(1),
            &ack_old(7_100, None, 10, 9000, 0),
            false,
            true,
        );
        assert_eq!(h4.end_seq, 9000);
    }
}
