//! HyStart, the slow-start exit Linux's CUBIC has used since 2.6.29 (Ha
//! and Rhee, "Taming the elephants: New TCP slow start", Computer
//! Networks 55(9), 2011; net/ipv4/tcp_cubic.c `hystart_update()`,
//! `bictcp_hystart_reset()`). It is not HyStart++ (RFC 9406), which RFC
//! 9438 section 4.10 prefers; it is here to compare with Linux. Two
//! versions:
//!
//! `HyStartLinux6` (`[flow.cubic] hystart = "linux-6"`, and always in
//! `cubic-linux`) is Linux 6.x's, in the kernel's u32 microseconds:
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
//! It is not Linux 3.10's either (bictcp_clock() in ms, delays in 1/8 ms,
//! the delay threshold clamp(min/16, 4, 16 ms), curr_rtt the minimum of
//! the first eight samples, delay_min reset at a timeout, the delayed-ACK
//! ratio of bictcp_acked()), so no `"linux-3.10"` value is offered.

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
}
