//! ns-2's `Agent/TCP/Sack1` fast recovery (Fall and Floyd, "Simulation-
//! based Comparisons of Tahoe, Reno, and SACK TCP", CCR 1996; ns-2.35
//! tcp/tcp-sack1.cc with its defaults), the "SACK" of the LE paper's
//! simulations (section 3). Not an RFC: RFC 6675 counts pipe from the
//! scoreboard, Sack1 estimates it from ACK arrivals, which is what makes
//! its recovery fail where the LE paper says (section 3.1.1).
//!
//! - Entry (`dupack_action()`, on the DupThresh-th duplicate ACK): cwnd and
//!   ssthresh halved by the controller; pipe_ = maxseq_ - highest_ack_ -
//!   numdupacks_, the segments outstanding less the three the duplicate
//!   ACKs say have left (ns-2's `LimTransmitFix_` is false by default). The
//!   fast retransmit itself is not counted in pipe_.
//! - Every later ACK of the recovery takes one from pipe_; a partial ACK a
//!   second one (`partial_ack_` false: "so that we never do worse than
//!   slow-start").
//! - `send_much()`: while pipe_ < cwnd_, the next hole below the highest
//!   SACK (detect/ns2_sack1.rs marks them all), else new data; each adds
//!   one to pipe_.
//! - The ACK at or above `recover_` (HighData at entry) ends it, cwnd =
//!   the halved value. No rescue retransmission.
//!
//! The engine sends while its own pipe < cwnd, so cwnd here is Sack1's
//! cwnd_ shifted by the difference of the two pipes, which each
//! transmission moves alike; it may fall to 0 (Sack1's pipe_ >= cwnd_
//! with nothing in flight: Sack1 then sends nothing until the RTO).

use super::{RecoveryCtx, RecoveryOps};
use crate::window::Window;

#[derive(Clone, Debug, Default)]
pub struct Ns2Sack1 {
    /// Sack1's pipe_.
    pipe: i64,
    /// The fast retransmit is about to leave, uncounted.
    uncounted: bool,
    dupthresh: i64,
}

impl Ns2Sack1 {
    pub fn new(dupthresh: u32) -> Self {
        Ns2Sack1 {
            dupthresh: i64::from(dupthresh),
            ..Default::default()
        }
    }

    fn apply(&self, w: &mut Window, ctx: &RecoveryCtx) {
        let cwnd = w.ssthresh as i64 + ctx.pipe as i64 - self.pipe;
        w.cwnd = cwnd.max(0) as u64;
    }
}

impl RecoveryOps for Ns2Sack1 {
    fn name(&self) -> &'static str {
        "ns2-sack1"
    }
    fn init_cwnd_reduction(&mut self, w: &mut Window, ctx: &RecoveryCtx) {
        self.pipe = ctx.packets_out as i64 - self.dupthresh;
        self.uncounted = true;
        w.cwnd_cnt = 0;
        self.apply(w, ctx);
    }
    fn cwnd_reduction(
        &mut self,
        w: &mut Window,
        ctx: &RecoveryCtx,
        _newly_acked_sacked: u64,
        fast_rexmit: bool,
    ) {
        if !fast_rexmit {
            self.pipe -= 1;
            if ctx.snd_una_advanced {
                self.pipe -= 1;
            }
        }
        self.apply(w, ctx);
    }
    fn end_cwnd_reduction(&mut self, w: &mut Window, _ctx: &RecoveryCtx) {
        w.cwnd = w.ssthresh;
    }
    fn on_sent(&mut self, segments: u64) {
        let counted = if std::mem::take(&mut self.uncounted) {
            segments.saturating_sub(1)
        } else {
            segments
        };
        self.pipe += counted as i64;
    }
    fn rescue_retransmission(&self) -> bool {
        false
    }
    fn entry_on_islost(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The LE paper's section 3.1 case by hand: a window of 32 plus two
    /// limited-transmit segments (ns-2's `singledup_` is on), N of the 32
    /// lost: 34 - N duplicate ACKs, the third starting the recovery with
    /// pipe_ = 34 - 3. ns-2's Sack1 sends again only while pipe_ < 16.
    fn sends_after_dupacks(n: i64) -> i64 {
        let mut s = Ns2Sack1::new(3);
        let mut w = Window {
            cwnd: 32,
            ssthresh: 16,
            cwnd_cnt: 0,
        };
        let ctx = |pipe| RecoveryCtx {
            pipe,
            packets_out: 34,
            ..Default::default()
        };
        s.init_cwnd_reduction(&mut w, &ctx(20));
        s.cwnd_reduction(&mut w, &ctx(20), 1, true);
        s.on_sent(1); // the fast retransmit
        for _ in 0..(31 - n) {
            s.cwnd_reduction(&mut w, &ctx(20), 1, false);
        }
        16 - s.pipe
    }

    #[test]
    fn pipe_follows_ack_arrivals() {
        // pipe_ = 31 - (31 - N) = N after the duplicate ACKs: room for
        // 16 - N segments against the N - 1 holes left after the fast
        // retransmit, so all in one RTT for N <= 8 (the paper's cwnd/4).
        assert_eq!(sends_after_dupacks(8), 8);
        assert_eq!(sends_after_dupacks(9), 7);
        // From 16 losses nothing leaves until the fast retransmit's ACK
        // (a partial ACK, two off pipe_): from 18 not even then, and the
        // RTO ends it (the paper: beyond cwnd/2 + 2).
        assert_eq!(sends_after_dupacks(18), -2);
    }

    #[test]
    fn the_engine_window_is_shifted_by_the_pipe_difference() {
        let mut s = Ns2Sack1::new(3);
        let mut w = Window {
            cwnd: 32,
            ssthresh: 16,
            cwnd_cnt: 0,
        };
        let ctx = RecoveryCtx {
            pipe: 10,
            packets_out: 34,
            ..Default::default()
        };
        s.init_cwnd_reduction(&mut w, &ctx);
        // pipe_ 31 against the engine's 10: nothing may leave.
        assert_eq!(w.cwnd, 0);
        s.pipe = 12;
        s.apply(&mut w, &ctx);
        assert_eq!(w.cwnd, 14);
        s.end_cwnd_reduction(&mut w, &ctx);
        assert_eq!(w.cwnd, 16);
    }
}
