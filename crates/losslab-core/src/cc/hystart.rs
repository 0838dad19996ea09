//! HyStart, the slow-start exit Linux's CUBIC has used since 2.6.29 (Ha
//! and Rhee, "Taming the elephants: New TCP slow start", Computer
//! Networks 55(9), 2011; net/ipv4/tcp_cubic.c `hystart_update()`,
//! `bictcp_hystart_reset()`). It is not HyStart++ (RFC 9406), which RFC
//! 9438 section 4.10 prefers; this one is here to compare with Linux.
//!
//! From a window of 16 segments, slow start ends (ssthresh = cwnd) when
//! either signal fires within a round (a round ends when snd.una passes
//! the snd.nxt of its start):
//! - ACK train: ACKs keep arriving at most 2 ms apart for longer than
//!   half the minimum RTT since the round began: the window already
//!   fills half the path.
//! - Delay increase: the smallest of the round's first eight RTT samples
//!   exceeds the connection's minimum RTT by clamp(min/8, 4 ms, 16 ms):
//!   a queue is building.
//!
//! Linux adds an estimate of the receiver's ACK delay to the ACK-train
//! threshold when it paces; the engine does not pace, so it is left out.

use super::CcCtx;
use crate::time::{Time, MS};
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
}
