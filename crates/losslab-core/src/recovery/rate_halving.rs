//! Rate-halving as Linux ran it in fast recovery before 3.2, when PRR
//! replaced it: `tcp_cwnd_down()` and `tcp_complete_cwr()` in
//! net/ipv4/tcp_input.c of Linux 2.6.x-3.1, described in section 3.2 of
//! the PRR paper (Dukkipati et al., IMC 2011) and section II.B of the
//! mobile opportunistic-retransmission paper.
//!
//! The window is not cut on entry; it shrinks by one segment every second
//! ACK that shows progress while it is above the congestion module's floor
//! (tcp_cwnd_min(): ssthresh, or ssthresh / 2 for Reno), and on every such ACK
//! it is clipped to pipe + 1, so at most one segment leaves per ACK. Nothing
//! ever raises it inside recovery. When pipe falls (heavy losses, or an
//! application with nothing to send) cwnd follows it down, which is why
//! Linux left recovery with cwnd close to pipe + 1 and then slow-started
//! (PRR paper, figure 2 middle; RFC 6937 section 3.1, "Rate-Halving
//! (Linux)" tables).
//!
//! Only the window rule is Linux's: which segment goes next is still RFC
//! 6675 NextSeg(), so a comparison with `prr` or `rfc6675` isolates the
//! window rule.
//!
//! Two kernels' versions, named apart:
//! - `rate-halving` is the later 2.6 and 3.0-3.1 tcp_cwnd_down(sk, flag)
//!   (read at 3.2.7, where it still served the CWR state): only ACKs with
//!   FLAG_ANY_PROGRESS or FLAG_DSACKING_ACK, or a duplicate ACK without
//!   SACK, count.
//! - `rate-halving-linux-2.6.17` is tcp_cwnd_down(sk) of 2.6.17-2.6.18
//!   (read at 2.6.18): tcp_fastretrans_alert() calls it on every ACK it
//!   sees in Recovery, and tcp_ack_is_dubious() sends it every ACK while
//!   the state is not Open, so an ACK that shows no progress (a
//!   duplicated or reordered ACK, a DSACK-only one) still counts toward
//!   the decrement and clips cwnd to pipe + 1.

use super::{RecoveryCtx, RecoveryOps};
use crate::window::Window;

#[derive(Clone, Debug, Default)]
pub struct RateHalving {
    /// 2.6.17's tcp_cwnd_down(): no progress test.
    every_ack: bool,
}

impl RateHalving {
    pub fn new() -> Self {
        RateHalving { every_ack: false }
    }

    /// Linux 2.6.17-2.6.18's rule (`rate-halving-linux-2.6.17`).
    pub fn linux_2617() -> Self {
        RateHalving { every_ack: true }
    }
}

impl RecoveryOps for RateHalving {
    /// Linux never implemented RFC 6675's rescue retransmission.
    fn rescue_retransmission(&self) -> bool {
        false
    }
    fn name(&self) -> &'static str {
        if self.every_ack {
            "rate-halving-linux-2.6.17"
        } else {
            "rate-halving"
        }
    }

    fn init_cwnd_reduction(&mut self, w: &mut Window, _ctx: &RecoveryCtx) {
        // Linux 3.0 tcp_fastretrans_alert(), entering TCP_CA_Recovery:
        // ssthresh from the congestion module, `snd_cwnd_cnt = 0`, and
        // snd_cwnd left alone. The reduction happens per ACK.
        w.cwnd_cnt = 0;
    }

    fn cwnd_reduction(
        &mut self,
        w: &mut Window,
        ctx: &RecoveryCtx,
        newly_acked_sacked: u64,
        fast_rexmit: bool,
    ) {
        // tcp_cwnd_down() acts only on ACKs with FLAG_ANY_PROGRESS (data
        // newly SACKed or cumulatively acknowledged, or snd_una moved) or
        // FLAG_DSACKING_ACK; the sender's duplicate ACKs without SACK arrive
        // here as one delivered segment (tcp_add_reno_sack()). DSACK-only
        // ACKs are not visible in RecoveryCtx and count as no progress.
        let progress = self.every_ack || newly_acked_sacked > 0 || ctx.snd_una_advanced;
        if !progress {
            if fast_rexmit {
                // Linux entered recovery only from an ACK that made
                // progress; an entry without one (a detector timer) still
                // gets the pipe + 1 clip so the old window cannot burst.
                w.cwnd = w.cwnd.min(ctx.pipe + 1);
            }
            return;
        }
        // The snd_cwnd_cnt trick: the parity bit of the ACK count decides
        // whether this ACK takes one segment off, so cwnd falls by one
        // every second ACK, reaching half a window after one RTT of ACKs
        // (the "rate halving" proper). It stops at tcp_cwnd_min(), the
        // congestion module's choice: ssthresh by default, ssthresh / 2 for
        // Reno (tcp_reno_min_cwnd()), so a long Reno recovery keeps
        // shrinking cwnd below ssthresh.
        let floor = ctx.min_cwnd.unwrap_or(w.ssthresh);
        let decr = w.cwnd_cnt + 1;
        w.cwnd_cnt = decr & 1;
        let decr = decr >> 1;
        if decr > 0 && w.cwnd > floor {
            w.cwnd -= decr;
        }
        // At most one segment per ACK: the burst guard that also drags cwnd
        // down with pipe and never lets it climb back (PRR paper 3.2,
        // "reducing cwnd to pipe+1 on every ACK that reduces pipe").
        w.cwnd = w.cwnd.min(ctx.pipe + 1);
    }

    fn end_cwnd_reduction(&mut self, w: &mut Window, _ctx: &RecoveryCtx) {
        // Pre-3.2 tcp_complete_cwr(): snd_cwnd = min(snd_cwnd, snd_ssthresh).
        // It only ever lowers cwnd, so a window that followed pipe down
        // stays small and the flow slow-starts out of recovery.
        w.cwnd = w.cwnd.min(w.ssthresh).max(1);
        // The parity bit is Linux's snd_cwnd_cnt, shared with additive
        // increase; leaving it would hand congestion avoidance a free ACK.
        w.cwnd_cnt = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(pipe: u64) -> RecoveryCtx {
        RecoveryCtx {
            pipe,
            ..Default::default()
        }
    }

    #[test]
    fn one_decrement_every_second_progress_ack() {
        let mut rh = RateHalving::new();
        let mut w = Window::new(20);
        w.ssthresh = 10;
        rh.init_cwnd_reduction(&mut w, &ctx(30));
        let mut seen = vec![];
        for i in 0..6 {
            rh.cwnd_reduction(&mut w, &ctx(30), 1, i == 0);
            seen.push(w.cwnd);
        }
        assert_eq!(seen, [20, 19, 19, 18, 18, 17]);
        // An ACK without progress leaves cwnd and the parity alone.
        rh.cwnd_reduction(&mut w, &ctx(30), 0, false);
        assert_eq!((w.cwnd, w.cwnd_cnt), (17, 0));
    }

    #[test]
    fn never_below_ssthresh_by_decrement_but_follows_pipe() {
        let mut rh = RateHalving::new();
        let mut w = Window::new(12);
        w.ssthresh = 10;
        rh.init_cwnd_reduction(&mut w, &ctx(30));
        for _ in 0..10 {
            rh.cwnd_reduction(&mut w, &ctx(30), 1, false);
        }
        assert_eq!(w.cwnd, 10);
        rh.cwnd_reduction(&mut w, &ctx(2), 1, false);
        assert_eq!(w.cwnd, 3);
        // Pipe recovering does not raise it.
        rh.cwnd_reduction(&mut w, &ctx(9), 1, false);
        assert_eq!(w.cwnd, 3);
        rh.end_cwnd_reduction(&mut w, &ctx(9));
        assert_eq!(w.cwnd, 3);
    }

    /// Linux tcp_cwnd_down() with Reno's tcp_reno_min_cwnd(): cwnd 12,
    /// ssthresh 10, pipe never binding. One segment off every second
    /// progress ACK while cwnd > floor: 12 11 11 10 10 9 9 8 8 7 7 6 6 5,
    /// then 5 > 5 fails, so it rests at 5 = 10 / 2; with the default floor
    /// (ssthresh, CUBIC's) it rests at 10.
    #[test]
    fn reno_floor_lets_the_decrement_reach_half_ssthresh() {
        use crate::cc::{CongestionControl, Cubic, Reno};
        let mut w0 = Window::new(12);
        w0.ssthresh = 10;
        for (floor, rests_at) in [(Reno.min_cwnd(&w0), 5), (Cubic::new().min_cwnd(&w0), 10)] {
            let mut rh = RateHalving::new();
            let mut w = Window::new(12);
            w.ssthresh = 10;
            let c = RecoveryCtx {
                pipe: 30,
                min_cwnd: Some(floor),
                ..Default::default()
            };
            rh.init_cwnd_reduction(&mut w, &c);
            let mut seen = vec![];
            for _ in 0..20 {
                rh.cwnd_reduction(&mut w, &c, 1, false);
                seen.push(w.cwnd);
            }
            assert_eq!(*seen.last().unwrap(), rests_at, "{seen:?}");
            if rests_at == 5 {
                assert_eq!(
                    seen[..16],
                    [12, 11, 11, 10, 10, 9, 9, 8, 8, 7, 7, 6, 6, 5, 5, 5]
                );
            }
            // The exit keeps the lower of cwnd and ssthresh
            // (tcp_complete_cwr()): Reno leaves recovery at 5.
            rh.end_cwnd_reduction(&mut w, &c);
            assert_eq!(w.cwnd, rests_at);
        }
    }

    /// tcp_cwnd_down(sk) of 2.6.18 by hand, cwnd 20, ssthresh 10, pipe 30
    /// (never binding) then 12. ACKs: progress, none, progress, none.
    /// snd_cwnd_cnt 0 -> decr 1: cnt 1, decr >> 1 = 0, cwnd 20;
    /// cnt 1 -> decr 2: cnt 0, 1 off, 19 (the later kernels skip this
    /// ACK: 20, cnt stays 1); cnt 0 -> 19, cnt 1; cnt 1 -> 18, cnt 0.
    /// Then an ACK without progress at pipe 12: cnt 0 -> decr 1, no
    /// decrement, min(18, 12 + 1) = 13 (later kernels: 18 unchanged).
    #[test]
    fn linux_2617_counts_and_clips_on_every_ack() {
        for (mut rh, want) in [
            (RateHalving::linux_2617(), [20, 19, 19, 18, 13]),
            (RateHalving::new(), [20, 20, 19, 19, 19]),
        ] {
            let mut w = Window::new(20);
            w.ssthresh = 10;
            rh.init_cwnd_reduction(&mut w, &ctx(30));
            let mut seen = vec![];
            for (i, acked) in [1, 0, 1, 0].into_iter().enumerate() {
                rh.cwnd_reduction(&mut w, &ctx(30), acked, i == 0);
                seen.push(w.cwnd);
            }
            rh.cwnd_reduction(&mut w, &ctx(12), 0, false);
            seen.push(w.cwnd);
            assert_eq!(seen, want, "{}", rh.name());
        }
    }

    #[test]
    fn entry_without_progress_still_clips_to_pipe_plus_one() {
        let mut rh = RateHalving::new();
        let mut w = Window::new(20);
        w.ssthresh = 10;
        rh.init_cwnd_reduction(&mut w, &ctx(6));
        rh.cwnd_reduction(&mut w, &ctx(6), 0, true);
        assert_eq!(w.cwnd, 7);
    }
}
