//! Proportional Rate Reduction as Linux 3.2 to 3.17 ran it, in segments as
//! the kernel counts them (net/ipv4/tcp_input.c):
//! - 3.2: `tcp_update_cwnd_in_recovery(sk, newly_acked_sacked, fast_rexmit,
//!   flag)` at the end of tcp_fastretrans_alert() in TCP_CA_Recovery, with
//!   prior_cwnd, prr_delivered and prr_out set where that function enters
//!   recovery, and `tcp_complete_cwr()` at the end;
//! - 3.10 to 3.17: `tcp_init_cwnd_reduction()`, `tcp_cwnd_reduction(sk,
//!   newly_acked_sacked, fast_rexmit)` (3.17 passes prior_unsacked and
//!   derives the count inside) and `tcp_end_cwnd_reduction()`.
//!
//! The arithmetic is the same in all of them, and it is the PRR paper's
//! Algorithm 2 (`prr-6937`) with two changes: the proportional part
//! divides by `tp->prior_cwnd`, cwnd when recovery began, not RecoverFS;
//! and the count is floored at 1 on the ACK that enters recovery only
//! (`fast_rexmit`), at 0 on every other. What sets it apart from the later
//! kernels (`prr-linux-4.10`, `prr-linux`):
//! - no early return: an ACK that delivers nothing still runs, so in the
//!   SSRB branch it releases one segment (MAX(prr_delivered - prr_out, 0)
//!   + 1) whenever in_flight is below ssthresh;
//! - SSRB on every ACK below ssthresh, whatever the ACK acknowledged.
//!
//! in_flight is the engine's RFC 6675 pipe: tcp_packets_in_flight() in
//! these kernels is packets_out - (sacked_out + lost_out) + retrans_out,
//! the segments pipe counts. The engine has no CWR state, so only the
//! Recovery path is modelled.

use super::prr_linux::PriorCwndPrr;
use super::{RecoveryCtx, RecoveryOps};
use crate::window::Window;

#[derive(Clone, Debug, Default)]
pub struct PrrLinux3 {
    s: PriorCwndPrr,
}

impl PrrLinux3 {
    pub fn new() -> Self {
        Self::default()
    }
}

/// The counters' accessors (prior_cwnd(), prr_out(), ...).
impl std::ops::Deref for PrrLinux3 {
    type Target = PriorCwndPrr;
    fn deref(&self) -> &PriorCwndPrr {
        &self.s
    }
}

impl RecoveryOps for PrrLinux3 {
    fn name(&self) -> &'static str {
        "prr-linux-3"
    }

    /// tcp_xmit_retransmit_queue() of these kernels retransmits marked
    /// losses and, with FACK, forward retransmissions below the highest
    /// SACK; nothing like RFC 6675's rescue retransmission (NextSeg() rule
    /// 4), which `prr-6937` leaves out for the same reason.
    fn rescue_retransmission(&self) -> bool {
        false
    }

    fn init_cwnd_reduction(&mut self, w: &mut Window, _ctx: &RecoveryCtx) {
        // 3.10-3.17 tcp_init_cwnd_reduction(), 3.2's entry block in
        // tcp_fastretrans_alert().
        self.s.enter(w);
    }

    fn cwnd_reduction(
        &mut self,
        w: &mut Window,
        ctx: &RecoveryCtx,
        newly_acked_sacked: u64,
        fast_rexmit: bool,
    ) {
        // A detector timer's entry is early retransmit's delayed timer
        // (3.5+ tcp_resume_early_retransmit()): tcp_enter_recovery() and the
        // retransmission, with no reduction step, so cwnd stays prior_cwnd
        // until the next ACK. (3.x has no RACK reordering timer.)
        if ctx.timer_entry || !self.s.entered() {
            return;
        }
        let in_flight = ctx.pipe as i64;
        let ssthresh = w.ssthresh as i64;
        self.s.deliver(newly_acked_sacked);
        let mut sndcnt = if in_flight > ssthresh {
            self.s.proportional(w.ssthresh)
        } else {
            // Slow start back towards ssthresh on every ACK, one that
            // delivered nothing included: what is banked, or this ACK's
            // delivery, plus one.
            (ssthresh - in_flight).min(self.s.banked().max(newly_acked_sacked as i64) + 1)
        };
        // Only the entering ACK forces a segment (the fast retransmit);
        // elsewhere the max() just clips a proportional overshoot to 0.
        sndcnt = sndcnt.max(i64::from(fast_rexmit));
        self.s.set_cwnd(w, in_flight, sndcnt);
    }

    fn end_cwnd_reduction(&mut self, w: &mut Window, _ctx: &RecoveryCtx) {
        // 3.10-3.17 tcp_end_cwnd_reduction(), 3.2 tcp_complete_cwr().
        PriorCwndPrr::end(w);
    }

    fn on_sent(&mut self, segments: u64) {
        self.s.sent(segments);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recovery::{eight_acks, run_acks, Prr6937, PrrLinux410, TestAck};

    fn ctx(pipe: u64, packets_out: u64) -> RecoveryCtx {
        RecoveryCtx::flight(pipe, packets_out, 0)
    }

    #[test]
    fn eight_acks_with_zero_delivery_acks_run_every_time() {
        // dividend = 14 * prr_delivered + 19, divided by 20; "pd", "po"
        // are prr_delivered and prr_out; sent = cwnd - in_flight.
        // E  in_flight 16 > 14, pd 1: 33 / 20 = 1 - 0 = 1 (floor 1 too):
        //    cwnd 17, sends 1 (po 1, in_flight 17).
        // 2  delivers 1, in_flight 16, pd 2: 47 / 20 = 2 - 1 = 1: cwnd 17,
        //    sends 1 (po 2, in_flight 17).
        // 3  delivers 0, one marked lost, in_flight 16, pd 2: 2 - 2 = 0:
        //    cwnd 16, sends 0. (4.10 and 6.x return here: cwnd stays 17.)
        // 4  in_flight 15, pd 3: 61 / 20 = 3 - 2 = 1: cwnd 16, sends 1
        //    (po 3, in_flight 16).
        // 5  in_flight 15, pd 4: 75 / 20 = 3 - 3 = 0: cwnd 15.
        // 6  delivers 2, in_flight 13 <= 14, pd 6: SSRB min(14 - 13,
        //    max(6 - 3, 2) + 1) = min(1, 4) = 1: cwnd 14, sends 1 (po 4).
        // 7  delivers 0, one marked lost, in_flight 13, pd 6:
        //    min(1, max(6 - 4, 0) + 1) = 1: cwnd 14, sends 1 (po 5).
        // 8  in_flight 13, pd 7: min(1, max(7 - 5, 1) + 1) = 1: cwnd 14,
        //    sends 1. End: cwnd = ssthresh = 14.
        let mut p = PrrLinux3::new();
        let got = run_acks(&mut p, 20, 14, 20, 16, &eight_acks());
        assert_eq!(
            got,
            (
                vec![1, 1, 0, 1, 0, 1, 1, 1],
                vec![17, 17, 16, 16, 15, 14, 14, 14],
                14
            )
        );
        assert_eq!((p.prior_cwnd(), p.prr_delivered(), p.prr_out()), (20, 7, 6));
    }

    #[test]
    fn divides_by_prior_cwnd_where_prr_6937_divides_by_recover_fs() {
        // prior_cwnd 20, Reno's ssthresh 20 / 2 = 10, the receive window
        // holding the flight at 16: 16 out, 3 SACKed, 1 lost, in_flight
        // 12. Every ACK SACKs one segment.
        // prr-linux-3, (10 pd + 19) / 20 - po:
        //   1: 29 / 20 = 1 - 0 = 1, cwnd 13, sends 1 (po 1, in_flight 13);
        //   2: in_flight 12, 39 / 20 = 1 - 1 = 0, cwnd 12;
        //   3: in_flight 11, 49 / 20 = 2 - 1 = 1, cwnd 12, sends 1 (po 2);
        //   4: in_flight 11, 59 / 20 = 2 - 2 = 0, cwnd 11;
        //   5: in_flight 10, not above 10: min(0, .) = 0, cwnd 10.
        // prr-6937, RecoverFS = 16, CEIL(10 pd / 16) - po:
        //   1: CEIL(10/16) = 1 - 0 = 1, cwnd 13, sends 1 (in_flight 13);
        //   2: in_flight 12, CEIL(20/16) = 2 - 1 = 1, cwnd 13, sends 1;
        //   3: in_flight 12, CEIL(30/16) = 2 - 2 = 0, cwnd 12;
        //   4: in_flight 11, CEIL(40/16) = 3 - 2 = 1, cwnd 12, sends 1;
        //   5: in_flight 11, CEIL(50/16) = 4 - 3 = 1, cwnd 12, sends 1.
        // Both end at ssthresh 10.
        let mut acks = [TestAck::sack(1, 0); 5];
        acks[0].newly_lost = 1;
        let linux = run_acks(&mut PrrLinux3::new(), 20, 10, 16, 12, &acks);
        let rfc = run_acks(&mut Prr6937::ssrb(), 20, 10, 16, 12, &acks);
        assert_eq!(linux, (vec![1, 0, 1, 0, 0], vec![13, 12, 12, 11, 10], 10));
        assert_eq!(rfc, (vec![1, 1, 0, 1, 1], vec![13, 13, 12, 12, 12], 10));
        // With the window full (20 out, in_flight 16) RecoverFS is
        // prior_cwnd and (a + b - 1) / b is CEIL(a / b): the same steps,
        // (10 pd + 19) / 20 = 1, 1, 2, 2, 3 for pd = 1..5:
        //   cwnd 17 (sends 1), 16, 16 (sends 1), 15, 15 (sends 1).
        let linux = run_acks(&mut PrrLinux3::new(), 20, 10, 20, 16, &acks);
        let rfc = run_acks(&mut Prr6937::ssrb(), 20, 10, 20, 16, &acks);
        assert_eq!(linux, (vec![1, 0, 1, 0, 1], vec![17, 16, 16, 15, 15], 10));
        assert_eq!(rfc, linux);
    }

    #[test]
    fn an_ack_that_delivers_nothing_still_earns_a_segment_below_ssthresh() {
        // prior_cwnd 20, ssthresh 14, heavy loss: in_flight 8 at entry.
        // E: pd 1, min(14 - 8, max(1 - 0, 1) + 1) = 2: cwnd 10, sends 2
        //    (po 2, in_flight 10).
        // 2: delivers nothing, marks nothing: pd 1, min(4, max(1 - 2, 0)
        //    + 1) = 1: cwnd 11, sends 1 (po 3).
        // 3: the same: min(3, max(1 - 3, 0) + 1) = 1: cwnd 12, sends 1.
        // prr-linux-4.10 returns on both (newly_acked_sacked <= 0) after
        // an entry of min(6, 1) = 1 (no RETRANS_DATA_ACKED): cwnd 9.
        let acks = [
            TestAck::sack(1, 1),
            TestAck::sack(0, 0),
            TestAck::sack(0, 0),
        ];
        let old = run_acks(&mut PrrLinux3::new(), 20, 14, 20, 8, &acks);
        let new = run_acks(&mut PrrLinux410::new(), 20, 14, 20, 8, &acks);
        assert_eq!(old, (vec![2, 1, 1], vec![10, 11, 12], 14));
        assert_eq!(new, (vec![1, 0, 0], vec![9, 9, 9], 14));
    }

    #[test]
    fn a_negative_proportional_count_is_clipped_to_zero() {
        // prior_cwnd 20, ssthresh 14, in_flight 18 at entry: pd 1,
        // (14 + 19) / 20 = 1, cwnd 19. Three segments go (po 3, in_flight
        // 21). Next ACK delivers 1, in_flight 20: pd 2, 47 / 20 = 2,
        // 2 - 3 = -1, max(-1, fast_rexmit ? 1 : 0) = 0: cwnd 20.
        let mut p = PrrLinux3::new();
        let mut w = Window::new(20);
        w.ssthresh = 14;
        p.init_cwnd_reduction(&mut w, &ctx(18, 20));
        p.cwnd_reduction(&mut w, &ctx(18, 20), 1, true);
        assert_eq!((p.last_sndcnt(), w.cwnd), (1, 19));
        p.on_sent(3);
        p.cwnd_reduction(&mut w, &ctx(20, 20), 1, false);
        assert_eq!((p.last_sndcnt(), w.cwnd), (0, 20));
    }

    #[test]
    fn an_early_retransmit_timer_entry_leaves_cwnd_at_prior_cwnd() {
        // tcp_resume_early_retransmit() enters recovery without a
        // reduction step: cwnd stays 20, prr_delivered 0. The next ACK
        // (delivers 1, in_flight 15 > 14 after the retransmission made
        // po 1): (14 + 19) / 20 = 1 - 1 = 0, floor 0: cwnd 15.
        let entry = RecoveryCtx {
            timer_entry: true,
            ..ctx(15, 20)
        };
        let mut p = PrrLinux3::new();
        let mut w = Window::new(20);
        w.ssthresh = 14;
        p.init_cwnd_reduction(&mut w, &entry);
        p.cwnd_reduction(&mut w, &entry, 0, true);
        assert_eq!((w.cwnd, p.prr_delivered()), (20, 0));
        p.on_sent(1);
        p.cwnd_reduction(&mut w, &ctx(15, 20), 1, false);
        assert_eq!((p.last_sndcnt(), w.cwnd), (0, 15));
    }
}
