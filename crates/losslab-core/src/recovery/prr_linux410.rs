//! Proportional Rate Reduction as Linux 4.10 ran it: tcp_init_cwnd_reduction(),
//! tcp_cwnd_reduction(sk, newly_acked_sacked, flag) and
//! tcp_end_cwnd_reduction() in net/ipv4/tcp_input.c, called from
//! tcp_cong_control() on every ACK in Recovery (the entering one included,
//! after tcp_fastretrans_alert()), in segments as the kernel counts them.
//!
//! Shared with 6.x (`prr-linux`): the prior_cwnd divisor, the return on an
//! ACK that delivers nothing, the floor MAX(sndcnt, prr_out ? 0 : 1) that
//! lets the fast retransmit out, cwnd = ssthresh at the end. Where 4.10
//! differs, below ssthresh (delta >= 0):
//! - the slow-start bound MIN(delta, MAX(prr_delivered - prr_out,
//!   newly_acked_sacked) + 1) applies only when the ACK cumulatively
//!   acknowledged retransmitted data (FLAG_RETRANS_DATA_ACKED) and marked
//!   no retransmission lost (FLAG_LOST_RETRANS, from tcp_rack_mark_lost()
//!   in tcp_fastretrans_alert()); 6.x asks for FLAG_SND_UNA_ADVANCED and
//!   no newly lost segment;
//! - otherwise MIN(delta, newly_acked_sacked): no catch-up of what earlier
//!   ACKs banked (6.x takes MAX(prr_delivered - prr_out, ...) there too).
//!
//! in_flight is the engine's RFC 6675 pipe: tcp_packets_in_flight() is
//! packets_out - (sacked_out + lost_out) + retrans_out, the segments pipe
//! counts. The engine has no CWR state: the Recovery path only.

use super::prr_linux::PriorCwndPrr;
use super::{RecoveryCtx, RecoveryOps};
use crate::window::Window;

#[derive(Clone, Debug, Default)]
pub struct PrrLinux410 {
    s: PriorCwndPrr,
}

impl PrrLinux410 {
    pub fn new() -> Self {
        Self::default()
    }
}

/// The counters' accessors (prior_cwnd(), prr_out(), ...).
impl std::ops::Deref for PrrLinux410 {
    type Target = PriorCwndPrr;
    fn deref(&self) -> &PriorCwndPrr {
        &self.s
    }
}

impl RecoveryOps for PrrLinux410 {
    fn name(&self) -> &'static str {
        "prr-linux-4.10"
    }

    /// 4.10's tcp_xmit_retransmit_queue() retransmits marked losses and
    /// FACK's forward retransmissions, which stop at the highest SACK
    /// (tcp_highest_sack_seq()): nothing like RFC 6675's rescue
    /// retransmission (NextSeg() rule 4).
    fn rescue_retransmission(&self) -> bool {
        false
    }

    fn init_cwnd_reduction(&mut self, w: &mut Window, _ctx: &RecoveryCtx) {
        // tcp_init_cwnd_reduction().
        self.s.enter(w);
    }

    fn cwnd_reduction(
        &mut self,
        w: &mut Window,
        ctx: &RecoveryCtx,
        newly_acked_sacked: u64,
        _fast_rexmit: bool,
    ) {
        // 4.10 has no RACK reordering timer; a detector timer's entry is
        // early retransmit's (tcp_resume_early_retransmit()), which makes
        // no reduction step: cwnd stays prior_cwnd until an ACK delivers.
        // An ACK that delivers nothing returns here too.
        if ctx.timer_entry || newly_acked_sacked == 0 || !self.s.entered() {
            return;
        }
        let in_flight = ctx.pipe as i64;
        let delta = w.ssthresh as i64 - in_flight;
        let acked = newly_acked_sacked as i64;
        self.s.deliver(newly_acked_sacked);
        let mut sndcnt = if delta < 0 {
            self.s.proportional(w.ssthresh)
        } else if ctx.retrans_data_acked && !ctx.lost_retrans {
            // A repaired hole whose repair was not itself lost: slow start
            // back towards ssthresh, catching up on what was banked.
            delta.min(self.s.banked().max(acked) + 1)
        } else {
            // Packet conservation on this ACK alone.
            delta.min(acked)
        };
        // The fast retransmit must go even when the arithmetic says 0; the
        // same max() clips a negative count to 0 once something was sent.
        sndcnt = sndcnt.max(if self.s.prr_out() > 0 { 0 } else { 1 });
        self.s.set_cwnd(w, in_flight, sndcnt);
    }

    fn end_cwnd_reduction(&mut self, w: &mut Window, _ctx: &RecoveryCtx) {
        PriorCwndPrr::end(w);
    }

    fn on_sent(&mut self, segments: u64) {
        self.s.sent(segments);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recovery::{eight_acks, run_acks, PrrLinux, PrrLinux3};

    fn ctx(pipe: u64, packets_out: u64) -> RecoveryCtx {
        RecoveryCtx::flight(pipe, packets_out, 0)
    }

    #[test]
    fn eight_acks_with_zero_delivery_acks_return_early() {
        // prior_cwnd 20, ssthresh 14, 20 out; entry in_flight 16. The
        // sequence of prr_linux3.rs's test of the same name;
        // dividend = 14 pd + 19, divided by 20:
        // E  in_flight 16, delta -2, pd 1: 33 / 20 = 1 - 0 = 1: cwnd 17,
        //    sends 1 (po 1, in_flight 17).
        // 2  in_flight 16, pd 2: 47 / 20 = 2 - 1 = 1: cwnd 17, sends 1.
        // 3  delivers 0 (one marked lost, in_flight 16): returns; cwnd
        //    stays 17, so 1 goes (po 3). prr-linux-3 set 16 and sent 0.
        // 4  in_flight 16, pd 3: 61 / 20 = 3 - 3 = 0: cwnd 16.
        // 5  in_flight 15, pd 4: 75 / 20 = 3 - 3 = 0: cwnd 15.
        // 6  delivers 2 with FLAG_RETRANS_DATA_ACKED, in_flight 13, pd 6,
        //    delta 1: min(1, max(6 - 3, 2) + 1) = 1: cwnd 14, sends 1.
        // 7  delivers 0 (one lost, in_flight 13): returns; cwnd 14, sends
        //    1 (po 5).
        // 8  in_flight 13, pd 7, no flags: min(1, 1) = 1: cwnd 14, sends 1.
        // End: cwnd = ssthresh = 14.
        let acks = eight_acks();
        let mut p = PrrLinux410::new();
        let got = run_acks(&mut p, 20, 14, 20, 16, &acks);
        assert_eq!(
            got,
            (
                vec![1, 1, 1, 0, 0, 1, 1, 1],
                vec![17, 17, 17, 16, 15, 14, 14, 14],
                14
            )
        );
        assert_eq!((p.prior_cwnd(), p.prr_delivered(), p.prr_out()), (20, 7, 6));
        // 6.x agrees on this sequence: on ACK 6 it adds its 1 for
        // SND_UNA_ADVANCED without new loss (min(1, 4) = 1), on ACK 8
        // min(1, max(7 - 5, 1)) = 1.
        assert_eq!(run_acks(&mut PrrLinux::new(), 20, 14, 20, 16, &acks), got);
    }

    #[test]
    fn the_extra_segment_needs_retransmitted_data_acked_and_no_lost_retransmission() {
        // prior_cwnd 20, ssthresh 10, heavy loss: in_flight 4. Entry
        // (SACKs 1, no flags): pd 1, delta 6, min(6, 1) = 1: cwnd 5 in both
        // kernels; the fast retransmit makes po 1, in_flight 5.
        // Next ACK delivers 1, in_flight 4: pd 2, delta 6; the SSRB bound
        // is min(6, max(2 - 1, 1) + 1) = 2, the plain one min(6, 1) = 1.
        // 4.10 takes SSRB on RETRANS_DATA_ACKED && !LOST_RETRANS; 6.x on
        // SND_UNA_ADVANCED && newly_lost == 0.
        // (retrans acked, retrans lost, una advanced, newly lost) -> (4.10, 6.x)
        let cases = [
            ((false, false, false, 0), (1, 1)),
            ((true, false, true, 0), (2, 2)),
            // A partial ACK of original data (the hole arrived late).
            ((false, false, true, 0), (1, 2)),
            // The repair acked, but a retransmission was found lost.
            ((true, true, true, 1), (1, 1)),
            // The repair acked; another original segment marked lost.
            ((true, false, true, 1), (2, 1)),
        ];
        for ((retrans, lost_retrans, una, newly_lost), (want_410, want_6)) in cases {
            let what = format!("{retrans} {lost_retrans} {una} {newly_lost}");
            let next = RecoveryCtx {
                retrans_data_acked: retrans,
                lost_retrans,
                ack_una_advanced: una,
                newly_lost,
                ..ctx(4, 20)
            };
            let mut p = PrrLinux410::new();
            let mut q = PrrLinux::new();
            for (alg, want) in [
                (&mut p as &mut dyn RecoveryOps, want_410),
                (&mut q as &mut dyn RecoveryOps, want_6),
            ] {
                let mut w = Window::new(20);
                w.ssthresh = 10;
                alg.init_cwnd_reduction(&mut w, &ctx(4, 20));
                alg.cwnd_reduction(&mut w, &ctx(4, 20), 1, true);
                assert_eq!(w.cwnd, 5, "{} {what}", alg.name());
                alg.on_sent(1);
                alg.cwnd_reduction(&mut w, &next, 1, false);
                assert_eq!(w.cwnd, 4 + want, "{} {what}", alg.name());
            }
            assert_eq!(p.last_sndcnt(), want_410 as i64, "{what}");
        }
    }

    #[test]
    fn without_the_flags_nothing_banked_is_caught_up() {
        // prior_cwnd 20, ssthresh 14, in_flight 8; the entering ACK SACKs
        // 3: pd 3, delta 6, min(6, 3) = 3 (6.x: min(6, max(3, 3)) = 3):
        // cwnd 11 in both. Only the fast retransmit goes (po 1, in_flight
        // 9). The next ACK SACKs 1, in_flight 8: pd 4, delta 6.
        // 4.10: min(6, 1) = 1, cwnd 9. 6.x: min(6, max(4 - 1, 1)) = 3,
        // cwnd 11.
        for (alg, want) in [
            (&mut PrrLinux410::new() as &mut dyn RecoveryOps, 9),
            (&mut PrrLinux::new() as &mut dyn RecoveryOps, 11),
        ] {
            let mut w = Window::new(20);
            w.ssthresh = 14;
            alg.init_cwnd_reduction(&mut w, &ctx(8, 20));
            alg.cwnd_reduction(&mut w, &ctx(8, 20), 3, true);
            assert_eq!(w.cwnd, 11, "{}", alg.name());
            alg.on_sent(1);
            alg.cwnd_reduction(&mut w, &ctx(8, 20), 1, false);
            assert_eq!(w.cwnd, want, "{}", alg.name());
        }
    }

    #[test]
    fn the_floor_follows_prr_out_not_the_entering_ack() {
        // prior_cwnd 20, ssthresh 14, in_flight 15 at entry: pd 1,
        // (14 + 19) / 20 = 1: cwnd 16 in 4.10 and 3.x. Nothing is sent
        // (po 0). The next ACK SACKs 1, in_flight 14, pd 2, delta 0:
        // 4.10: min(0, 1) = 0, max(0, prr_out ? 0 : 1) = 1: cwnd 15.
        // 3.x: min(0, max(2, 1) + 1) = 0, max(0, fast_rexmit ? 1 : 0) = 0:
        // cwnd 14.
        for (alg, want) in [
            (&mut PrrLinux410::new() as &mut dyn RecoveryOps, 15),
            (&mut PrrLinux3::new() as &mut dyn RecoveryOps, 14),
        ] {
            let mut w = Window::new(20);
            w.ssthresh = 14;
            alg.init_cwnd_reduction(&mut w, &ctx(15, 20));
            alg.cwnd_reduction(&mut w, &ctx(15, 20), 1, true);
            assert_eq!(w.cwnd, 16, "{}", alg.name());
            alg.cwnd_reduction(&mut w, &ctx(14, 20), 1, false);
            assert_eq!(w.cwnd, want, "{}", alg.name());
        }
    }

    #[test]
    fn a_timer_entry_or_an_empty_ack_leaves_cwnd_alone() {
        // tcp_resume_early_retransmit() makes no reduction step, and
        // tcp_cwnd_reduction() returns on newly_acked_sacked <= 0: cwnd
        // stays prior_cwnd 20 and prr_delivered 0, whatever the flags;
        // the end still sets ssthresh 14.
        let entry = RecoveryCtx {
            timer_entry: true,
            retrans_data_acked: true,
            ..ctx(16, 20)
        };
        let mut p = PrrLinux410::new();
        let mut w = Window::new(20);
        w.ssthresh = 14;
        p.init_cwnd_reduction(&mut w, &entry);
        p.cwnd_reduction(&mut w, &entry, 1, true);
        p.cwnd_reduction(&mut w, &ctx(16, 20), 0, false);
        assert_eq!((w.cwnd, p.prr_delivered()), (20, 0));
        p.end_cwnd_reduction(&mut w, &ctx(0, 0));
        assert_eq!(w.cwnd, 14);
    }
}
