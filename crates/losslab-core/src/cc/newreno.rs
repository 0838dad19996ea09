//! NewReno congestion control: RFC 5681 slow start and congestion
//! avoidance with RFC 6582's loss response (the fast-recovery part of RFC
//! 6582 lives in the RecoveryOps and the sender's partial-ACK handling).

use super::{avoid, grow_in_slow_start, in_slow_start, CcCtx, CongestionControl};
use crate::window::Window;

#[derive(Clone, Debug, Default)]
pub struct NewReno;

impl CongestionControl for NewReno {
    /// Grows only in cong_avoid (no `on_ack`).
    fn observes_every_ack(&self) -> bool {
        false
    }

    fn name(&self) -> String {
        "newreno".into()
    }

    /// RFC 5681 equation (4): ssthresh = max(FlightSize / 2, 2 * SMSS).
    /// (Linux halves cwnd instead; that variant will be `reno`.)
    fn ssthresh(&mut self, _w: &Window, flight_size: u64) -> u64 {
        (flight_size / 2).max(2)
    }

    fn cong_avoid(&mut self, w: &mut Window, acked: u64, ctx: &CcCtx) {
        let mut acked = acked;
        if in_slow_start(w, ctx) {
            acked = grow_in_slow_start(w, acked, ctx);
            if acked == 0 {
                return;
            }
        }
        // RFC 5681 section 3.1: about one segment per RTT (Linux 3.x:
        // per cwnd + 1 ACKs, `avoidance = "per-ack"`).
        avoid(w, w.cwnd, acked, ctx);
    }
}

#[cfg(test)]
mod tests {
    use super::super::Avoidance;
    use super::*;

    #[test]
    fn slow_start_then_linear() {
        let mut cc = NewReno;
        let mut w = Window::new(10);
        w.ssthresh = 20;
        cc.cong_avoid(&mut w, 8, &CcCtx::default());
        assert_eq!(w.cwnd, 18);
        // Crossing ssthresh: 2 go to slow start, 3 become CA credit.
        cc.cong_avoid(&mut w, 5, &CcCtx::default());
        assert_eq!(w.cwnd, 20);
        assert_eq!(w.cwnd_cnt, 3);
        // One full window of ACKs adds one segment.
        for _ in 0..17 {
            cc.cong_avoid(&mut w, 1, &CcCtx::default());
        }
        assert_eq!(w.cwnd, 21);
    }

    /// cwnd 10 above ssthresh 5, delayed ACKs of 2 segments each. Per
    /// segment: the credit reaches 10 on the 5th ACK, cwnd 11; then 11 on
    /// the 11th (credit 0 + 2 x 6 = 12, 1 left), cwnd 12. Per ACK (Linux
    /// 3.x tcp_cong_avoid_ai(tp, w)): the count reaches 10 on the 10th
    /// ACK, the 11th raises cwnd to 11 and restarts it; 12 more ACKs (the
    /// 23rd) to 12, whatever each acknowledges.
    #[test]
    fn avoidance_per_ack_needs_cwnd_plus_one_acks() {
        let run = |avoidance: Avoidance, acks: usize| {
            let ctx = CcCtx {
                avoidance,
                ..CcCtx::default()
            };
            let mut w = Window::new(10);
            w.ssthresh = 5;
            for _ in 0..acks {
                NewReno.cong_avoid(&mut w, 2, &ctx);
            }
            w.cwnd
        };
        assert_eq!(
            [4, 5, 10, 11].map(|n| run(Avoidance::PerSegment, n)),
            [10, 11, 11, 12]
        );
        assert_eq!(
            [10, 11, 22, 23].map(|n| run(Avoidance::PerAck, n)),
            [10, 11, 11, 12]
        );
    }

    #[test]
    fn ssthresh_halves_flight_size_with_floor() {
        let mut cc = NewReno;
        let w = Window::new(10);
        assert_eq!(cc.ssthresh(&w, 31), 15);
        assert_eq!(cc.ssthresh(&w, 1), 2);
    }
}
