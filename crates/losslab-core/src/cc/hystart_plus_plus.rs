//! HyStart++, RFC 9406 section 4: the slow-start exit RFC 9438 section
//! 4.10 recommends for CUBIC (scenario `[flow.cubic] hystart =
//! "hystart++"`). Linux has none (it runs the older HyStart, hystart.rs).
//!
//! Per round (a round ends when snd.una reaches the snd.nxt of its start,
//! section 4.2 `windowEnd`) the sender keeps the smallest RTT sample. Once
//! a round has N_RTT_SAMPLE samples and the previous round had one, a
//! rise of the round's minimum by RttThresh = clamp(lastRoundMinRTT / 8,
//! 4 ms, 16 ms) ends standard slow start and starts Conservative Slow
//! Start (CSS): growth divided by CSS_GROWTH_DIVISOR. If the minimum falls
//! back below the RTT that started CSS, the rise was jitter and slow start
//! resumes; after CSS_ROUNDS rounds of CSS, ssthresh = cwnd and congestion
//! avoidance begins. Each ACK adds at most L segments (L = 8 for an
//! unpaced sender; section 4.2 allows infinity for a paced one, which this
//! engine does not tell its controllers, so L is always 8). A loss ends
//! HyStart++ for good (section 4.2: "enter congestion avoidance"), and
//! section 4.3 uses it only for the initial slow start, so a later slow
//! start (after a timeout) is RFC 5681's.
//!
//! Two choices the RFC leaves open: an ACK that closes a round starts the
//! next one first and its RTT sample counts in the new round (the
//! round's samples are then all of packets sent in it or just before);
//! and the round in which CSS begins counts as its first round, as quiche
//! and neqo count, so CSS lasts CSS_ROUNDS - 1 full rounds after the one
//! it began in.

use super::CcCtx;
use crate::time::{Time, MS};
use crate::window::Window;

/// Section 4.3 constants.
pub const MIN_RTT_THRESH: Time = 4 * MS;
pub const MAX_RTT_THRESH: Time = 16 * MS;
pub const MIN_RTT_DIVISOR: Time = 8;
pub const N_RTT_SAMPLE: u32 = 8;
pub const CSS_GROWTH_DIVISOR: u64 = 4;
pub const CSS_ROUNDS: u32 = 5;
/// L for a sender that does not pace (section 4.3: "L = 8").
pub const L: u64 = 8;

/// Section 4.2: RttThresh = max(MIN_RTT_THRESH, min(lastRoundMinRTT /
/// MIN_RTT_DIVISOR, MAX_RTT_THRESH)).
pub fn rtt_thresh(last_round_min_rtt: Time) -> Time {
    (last_round_min_rtt / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH)
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Phase {
    /// Standard slow start with the L limit.
    #[default]
    SlowStart,
    /// Conservative Slow Start: `rounds` counts the rounds begun in CSS,
    /// the one it started in included.
    Css { baseline: Time, rounds: u32 },
    /// Congestion avoidance was entered (CSS ended or a loss): slow start
    /// from now on is RFC 5681's.
    Done,
}

#[derive(Clone, Debug, Default)]
pub struct HyStartPlusPlus {
    phase: Phase,
    /// A round is being tracked (`windowEnd` is set).
    started: bool,
    /// `windowEnd`: snd.nxt when the round started, bytes.
    window_end: u64,
    /// `lastRoundMinRTT` and `currentRoundMinRTT`; None is the RFC's
    /// infinity.
    last_round_min: Option<Time>,
    current_round_min: Option<Time>,
    /// `rttSampleCount`.
    samples: u32,
    /// CSS growth credit: segments acknowledged not yet turned into cwnd
    /// (cwnd += acked / CSS_GROWTH_DIVISOR, in whole segments).
    css_credit: u64,
}

impl HyStartPlusPlus {
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// HyStart++ still governs slow start.
    pub fn active(&self) -> bool {
        self.phase != Phase::Done
    }

    /// Section 4.2, "at the start of each round during standard slow start
    /// and CSS". Ends CSS after CSS_ROUNDS rounds (ssthresh = cwnd).
    fn start_round(&mut self, w: &mut Window, ctx: &CcCtx) {
        if self.started {
            self.last_round_min = self.current_round_min;
        }
        self.started = true;
        self.window_end = ctx.snd_nxt;
        self.current_round_min = None;
        self.samples = 0;
        if let Phase::Css { rounds, .. } = &mut self.phase {
            *rounds += 1;
            if *rounds >= CSS_ROUNDS {
                w.ssthresh = w.cwnd;
                self.phase = Phase::Done;
            }
        }
    }

    /// Every ACK in slow start, before `grow`: rounds and RTT samples, and
    /// the phase changes they cause.
    pub fn on_ack(&mut self, w: &mut Window, ctx: &CcCtx) {
        if !self.active() {
            return;
        }
        if !w.in_slow_start() {
            // ssthresh was reached another way (a loss, whose `on_loss`
            // already ended us, or an ssthresh the path set).
            self.phase = Phase::Done;
            return;
        }
        if !self.started || ctx.snd_una >= self.window_end {
            self.start_round(w, ctx);
            if !self.active() {
                return;
            }
        }
        let Some(rtt) = ctx.rtt_sample else {
            return;
        };
        let cur = self.current_round_min.map_or(rtt, |m| m.min(rtt));
        self.current_round_min = Some(cur);
        self.samples += 1;
        let Some(last) = self.last_round_min else {
            return;
        };
        if self.samples < N_RTT_SAMPLE {
            return;
        }
        match self.phase {
            Phase::SlowStart if cur >= last + rtt_thresh(last) => {
                self.phase = Phase::Css {
                    baseline: cur,
                    rounds: 0,
                };
                self.css_credit = 0;
            }
            Phase::Css { baseline, .. } if cur < baseline => {
                // The rise was a spurious one (jitter): back to slow start.
                self.phase = Phase::SlowStart;
            }
            _ => {}
        }
    }

    /// cwnd growth in slow start for `acked` newly delivered segments:
    /// min(acked, L), divided by CSS_GROWTH_DIVISOR in CSS, never past
    /// ssthresh.
    pub fn grow(&mut self, w: &mut Window, acked: u64) {
        let inc = acked.min(L);
        let inc = match self.phase {
            Phase::Css { .. } => {
                self.css_credit += inc;
                let whole = self.css_credit / CSS_GROWTH_DIVISOR;
                self.css_credit -= whole * CSS_GROWTH_DIVISOR;
                whole
            }
            _ => inc,
        };
        w.cwnd = (w.cwnd + inc).min(w.ssthresh.max(w.cwnd));
    }

    /// A loss (or any congestion response) during slow start or CSS: the
    /// controller's ssthresh takes over and HyStart++ is over.
    pub fn on_loss(&mut self) {
        self.phase = Phase::Done;
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::rtt_ack as ack;
    use super::*;

    /// A window in slow start with no ssthresh yet.
    fn window(cwnd: u64) -> Window {
        super::super::testing::window(cwnd, u64::MAX)
    }

    /// Eight ACKs with `rtt` samples inside a round that started at
    /// `start` (snd.una below `end`), after an ACK that opens it.
    fn round(h: &mut HyStartPlusPlus, w: &mut Window, start: u64, end: u64, rtt: u64) {
        for k in 0..8 {
            h.on_ack(w, &ack(Some(rtt), start + k, end));
        }
    }

    #[test]
    fn the_rtt_threshold() {
        // 20 ms / 8 = 2.5 ms -> 4 ms; 80 / 8 = 10 ms; 200 / 8 = 25 -> 16.
        assert_eq!(rtt_thresh(20 * MS), 4 * MS);
        assert_eq!(rtt_thresh(80 * MS), 10 * MS);
        assert_eq!(rtt_thresh(200 * MS), 16 * MS);
    }

    #[test]
    fn growth_is_limited_to_l_per_ack_and_quartered_in_css() {
        let mut h = HyStartPlusPlus::default();
        let mut w = window(10);
        // A stretch ACK for 20 segments adds L = 8, not 20.
        h.grow(&mut w, 20);
        assert_eq!(w.cwnd, 18);
        h.grow(&mut w, 3);
        assert_eq!(w.cwnd, 21);
        // In CSS: 3 acked -> credit 3, +0; 3 more -> 6, +1 (credit 2);
        // 20 more -> min(20, 8) = 8 -> credit 10, +2 (credit 2).
        h.phase = Phase::Css {
            baseline: 50 * MS,
            rounds: 0,
        };
        h.grow(&mut w, 3);
        assert_eq!(w.cwnd, 21);
        h.grow(&mut w, 3);
        assert_eq!(w.cwnd, 22);
        h.grow(&mut w, 20);
        assert_eq!(w.cwnd, 24);
        // Never past ssthresh.
        let mut w = Window {
            cwnd: 10,
            ssthresh: 12,
            cwnd_cnt: 0,
        };
        HyStartPlusPlus::default().grow(&mut w, 8);
        assert_eq!(w.cwnd, 12);
    }

    #[test]
    fn a_delay_rise_enters_css_after_eight_samples() {
        // Round 1 (snd.nxt 1000): min RTT 40 ms. Round 2: samples of
        // 45 ms. RttThresh = max(4, 40 / 8 = 5) = 5 ms, and 45 >= 40 + 5,
        // so the eighth sample of round 2 enters CSS with baseline 45 ms.
        let mut h = HyStartPlusPlus::default();
        let mut w = window(32);
        round(&mut h, &mut w, 0, 1000, 40);
        // The ACK that reaches 1000 opens round 2 and is its first sample.
        for k in 0..7 {
            h.on_ack(&mut w, &ack(Some(45), 1000 + k, 2000));
            assert_eq!(h.phase(), Phase::SlowStart, "sample {}", k + 1);
        }
        h.on_ack(&mut w, &ack(Some(45), 1007, 2000));
        assert_eq!(
            h.phase(),
            Phase::Css {
                baseline: 45 * MS,
                rounds: 0
            }
        );
        assert_eq!(w.ssthresh, u64::MAX, "CSS is still slow start");
    }

    #[test]
    fn a_rise_below_the_threshold_or_with_few_samples_does_not() {
        // 44 ms < 40 + 5: no exit however many samples.
        let mut h = HyStartPlusPlus::default();
        let mut w = window(32);
        round(&mut h, &mut w, 0, 1000, 40);
        for k in 0..30 {
            h.on_ack(&mut w, &ack(Some(44), 1000 + k, 2000));
        }
        assert_eq!(h.phase(), Phase::SlowStart);
        // 60 ms but only seven samples in the round.
        let mut h = HyStartPlusPlus::default();
        round(&mut h, &mut w, 0, 1000, 40);
        for k in 0..7 {
            h.on_ack(&mut w, &ack(Some(60), 1000 + k, 2000));
        }
        h.on_ack(&mut w, &ack(None, 1007, 2000));
        assert_eq!(h.phase(), Phase::SlowStart);
        // The first round has no lastRoundMinRTT to compare with.
        let mut h = HyStartPlusPlus::default();
        for k in 0..30 {
            h.on_ack(&mut w, &ack(Some(40 + k), k, 1000));
        }
        assert_eq!(h.phase(), Phase::SlowStart);
    }

    #[test]
    fn a_lower_rtt_in_css_resumes_slow_start() {
        let mut h = HyStartPlusPlus::default();
        let mut w = window(32);
        round(&mut h, &mut w, 0, 1000, 40);
        round(&mut h, &mut w, 1000, 2000, 50);
        assert!(matches!(h.phase(), Phase::Css { baseline, .. } if baseline == 50 * MS));
        // Round 3: RTTs 44 ms < baseline 50 ms: after eight samples the
        // rise is judged spurious.
        round(&mut h, &mut w, 2000, 3000, 44);
        assert_eq!(h.phase(), Phase::SlowStart);
    }

    #[test]
    fn css_ends_in_congestion_avoidance_after_five_rounds() {
        let mut h = HyStartPlusPlus::default();
        let mut w = window(32);
        round(&mut h, &mut w, 0, 1000, 40);
        round(&mut h, &mut w, 1000, 2000, 50);
        // CSS began in round 2 (rounds = 0); rounds 3..6 open with
        // rounds = 1..4, round 7 opens with 5 = CSS_ROUNDS and ends CSS.
        // RTTs stay at the 50 ms baseline (not below it).
        for r in 3..=6u64 {
            round(&mut h, &mut w, r * 1000 - 1000, r * 1000, 50);
            assert!(matches!(h.phase(), Phase::Css { rounds, .. } if u64::from(rounds) == r - 2));
        }
        w.cwnd = 70;
        h.on_ack(&mut w, &ack(Some(50), 6000, 7000));
        assert_eq!(h.phase(), Phase::Done);
        assert_eq!(w.ssthresh, 70);
    }

    #[test]
    fn a_loss_ends_it_for_good() {
        let mut h = HyStartPlusPlus::default();
        let mut w = window(32);
        round(&mut h, &mut w, 0, 1000, 40);
        h.on_loss();
        assert!(!h.active());
        // A later slow start (cwnd 1 after a timeout) is RFC 5681's: no
        // rounds, no L limit (the controller grows cwnd itself).
        let mut w = Window {
            cwnd: 1,
            ssthresh: 20,
            cwnd_cnt: 0,
        };
        round(&mut h, &mut w, 1000, 2000, 80);
        assert_eq!(h.phase(), Phase::Done);
        assert_eq!(w.ssthresh, 20);
    }
}
