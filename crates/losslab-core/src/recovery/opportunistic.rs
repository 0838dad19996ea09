//! Opportunistic retransmission (mobile opportunistic-retransmission paper,
//! section IV): during loss recovery, once the known holes have been
//! retransmitted, the sender may send new segments beyond the receiver's
//! advertised window, up to n1 + n2 of them, n1 being the holes and n2 the
//! out-of-order segments the SACK blocks report. Still under pipe <= cwnd.
//!
//! Why it is safe to exceed the window: if the retransmissions arrive, the
//! receiver passes the n1 + n2 segments to the application at once
//! (section IV: modern receivers drain their buffer faster than the path
//! fills it), so the window opens by n1 + n2 just before the opportunistic
//! segments get there. If a retransmission is lost again, they land beyond
//! the window and are discarded (section VIII); Hack 1 (detect/hack1.rs)
//! addresses the timeout that follows.
//!
//! It wraps any recovery algorithm (the paper's `get_awnd_extension`
//! handler, defined per module; here one wrapper serves every module):
//! every other hook is the wrapped algorithm's. "After the holes are
//! retransmitted" needs no code here: the sender's NextSeg() (RFC 6675
//! section 4) sends lost segments before new data.

use super::{AwndCtx, RecoveryCtx, RecoveryOps};
use crate::time::Time;
use crate::window::Window;

pub struct Opportunistic {
    inner: Box<dyn RecoveryOps>,
    /// OR3's opportunism (OR3 paper section IV, recovery/or3.rs) also
    /// retransmits lost segments "beyond the min{CWND, RWND}".
    lost_beyond_cwnd: bool,
    /// OR3's `overbooking` (recovery/or3.rs): `FreeBuffer` takes the
    /// SACKed segments above the first unfilled hole off the extension.
    free_buffer: bool,
    /// OR3's `overbooking = "off"`: no extension at all.
    extends: bool,
}

impl Opportunistic {
    pub fn new(inner: Box<dyn RecoveryOps>) -> Self {
        Opportunistic {
            inner,
            lost_beyond_cwnd: false,
            free_buffer: false,
            extends: true,
        }
    }
    /// OR3's opportunism: this extension, and lost segments retransmitted
    /// whatever cwnd says.
    pub fn or3(inner: Box<dyn RecoveryOps>, overbooking: super::Overbooking) -> Self {
        Opportunistic {
            inner,
            lost_beyond_cwnd: true,
            free_buffer: overbooking == super::Overbooking::FreeBuffer,
            extends: overbooking != super::Overbooking::Off,
        }
    }
}

impl RecoveryOps for Opportunistic {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn init_cwnd_reduction(&mut self, w: &mut Window, ctx: &RecoveryCtx) {
        self.inner.init_cwnd_reduction(w, ctx)
    }
    fn cwnd_reduction(
        &mut self,
        w: &mut Window,
        ctx: &RecoveryCtx,
        newly_acked_sacked: u64,
        fast_rexmit: bool,
    ) {
        self.inner
            .cwnd_reduction(w, ctx, newly_acked_sacked, fast_rexmit)
    }
    fn end_cwnd_reduction(&mut self, w: &mut Window, ctx: &RecoveryCtx) {
        self.inner.end_cwnd_reduction(w, ctx)
    }
    fn pkts_acked(&mut self, now: Time, num_acked: u64, rtt: Option<Time>) {
        self.inner.pkts_acked(now, num_acked, rtt)
    }
    /// Section IV, second bullet: the window will advance by n1 + n2
    /// segments once the retransmissions are received. Counted only up
    /// to the first hole no retransmission is filling yet (a loss not yet
    /// detected, or detected and not yet resent): the receiver cannot
    /// pass that one to the application, so the window stops there and
    /// segments sent past it would only be discarded. With one burst, as
    /// in the paper's analysis, that is every hole.
    fn awnd_extension(&self, ctx: &AwndCtx<'_>) -> u64 {
        if !ctx.in_recovery || !self.extends {
            return 0;
        }
        let b = ctx.board;
        let fack = b.fack().max(b.base());
        let unfilled = [b.next_to_retransmit(), b.first_unsacked_unlost(None, fack)]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(fack);
        let released = (unfilled - b.base()) + ctx.reno_sacked;
        if !self.free_buffer {
            return released;
        }
        // OR3 `overbooking = "free-buffer"` (ours; OR3 paper section IV
        // gives no bound): once the holes below `unfilled` are filled the
        // receiver hands the data below it to the application, but every
        // segment above it that is SACKed or on its way (sent and not
        // waiting for a retransmission) stays in the buffer out of order
        // and takes its space (receiver.rs `potential_right`), so the
        // right edge moves by the release less those segments.
        // A hole at `unfilled` holds nothing; `unfilled` = fack (no hole
        // below it) is itself on its way.
        let from = if unfilled < fack {
            unfilled + 1
        } else {
            unfilled
        };
        let sent_above = b.next_seg_no().saturating_sub(from);
        let above = sent_above.saturating_sub(b.to_retransmit_from(from));
        released.saturating_sub(above)
    }
    fn rescue_retransmission(&self) -> bool {
        self.inner.rescue_retransmission()
    }
    fn entry_on_islost(&self) -> bool {
        self.inner.entry_on_islost()
    }
    fn on_sent(&mut self, segments: u64) {
        self.inner.on_sent(segments)
    }
    fn sets_ssthresh(&self) -> bool {
        self.inner.sets_ssthresh()
    }
    fn congestion_event(&mut self, ctx: &RecoveryCtx, entering: bool) -> bool {
        self.inner.congestion_event(ctx, entering)
    }
    fn retransmit_beyond_cwnd(&self) -> bool {
        self.lost_beyond_cwnd || self.inner.retransmit_beyond_cwnd()
    }
    fn exits_on_partial_ack(&self) -> bool {
        self.inner.exits_on_partial_ack()
    }
    fn rto_restart_on_partial_ack(&self, nth: u64) -> bool {
        self.inner.rto_restart_on_partial_ack(nth)
    }
    fn partial_ack_retransmits_at_once(&self) -> bool {
        self.inner.partial_ack_retransmits_at_once()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recovery::Prr;

    /// Segments 0-9 lost, 10-159 SACKed: n1 + n2 = 160 once the holes
    /// are retransmitted; before that, nothing past the first hole still
    /// waiting; never outside recovery.
    #[test]
    fn extends_by_holes_plus_sacked_up_to_the_first_unfilled_hole() {
        use crate::scoreboard::Scoreboard;
        use crate::wire::Range;
        let o = Opportunistic::new(Box::new(Prr::new()));
        let mut b = Scoreboard::new();
        for i in 0..200 {
            b.push_new(i * 1000, 1000, 0, i + 1);
        }
        b.on_sack_block(Range::new(10_000, 160_000));
        let ctx = |b: &Scoreboard, in_recovery| {
            o.awnd_extension(&AwndCtx {
                in_recovery,
                board: b,
                reno_sacked: 0,
            })
        };
        // Holes not yet marked lost: the receiver cannot advance.
        assert_eq!(ctx(&b, true), 0);
        for n in 0..10 {
            b.mark_lost(n);
        }
        for n in 0..4 {
            b.on_retransmit(n, 0, 300 + n);
        }
        assert_eq!(ctx(&b, true), 4, "up to the first hole not resent");
        for n in 4..10 {
            b.on_retransmit(n, 0, 300 + n);
        }
        assert_eq!(ctx(&b, true), 160);
        assert_eq!(ctx(&b, false), 0);
        assert_eq!(o.name(), "prr");
    }

    /// OR3's `overbooking = "free-buffer"`, by hand: segments 0-9 lost
    /// and resent, 10-159 SACKed, 160-169 lost and not yet resent,
    /// 170-199 SACKed. The first unfilled hole is 160: the release is
    /// 0-159 (n1 + n2 = 160, the paper's rule), but the 30 SACKed
    /// segments 170-199 stay in the receiver's buffer (161-169 wait for
    /// their retransmission and hold nothing), so the free space grows by
    /// 160 - 30 = 130. Once 160-169 are resent too, the first unfilled
    /// segment is 200 (past the highest SACKed): 200 either way; then
    /// segments 200-209 sent and on their way will take 10 of it: 190.
    #[test]
    fn free_buffer_overbooking_takes_off_the_sacked_data_above_the_hole() {
        use crate::recovery::Overbooking;
        use crate::scoreboard::Scoreboard;
        use crate::wire::Range;
        let mut b = Scoreboard::new();
        for i in 0..200 {
            b.push_new(i * 1000, 1000, 0, i + 1);
        }
        b.on_sack_block(Range::new(10_000, 160_000));
        b.on_sack_block(Range::new(170_000, 200_000));
        for n in (0..10).chain(160..170) {
            b.mark_lost(n);
        }
        for n in 0..10 {
            b.on_retransmit(n, 0, 300 + n);
        }
        let ext = |o: &Opportunistic, b: &Scoreboard| {
            o.awnd_extension(&AwndCtx {
                in_recovery: true,
                board: b,
                reno_sacked: 0,
            })
        };
        let paper = Opportunistic::or3(Box::new(Prr::new()), Overbooking::Released);
        let ours = Opportunistic::or3(Box::new(Prr::new()), Overbooking::FreeBuffer);
        assert_eq!(ext(&paper, &b), 160);
        assert_eq!(ext(&ours, &b), 130);
        for n in 160..170 {
            b.on_retransmit(n, 0, 400 + n);
        }
        assert_eq!((ext(&paper, &b), ext(&ours, &b)), (200, 200));
        for i in 200..210 {
            b.push_new(i * 1000, 1000, 0, i + 1);
        }
        assert_eq!((ext(&paper, &b), ext(&ours, &b)), (200, 190));
        // "off" keeps the retransmissions beyond cwnd and sends nothing
        // past the window.
        let off = Opportunistic::or3(Box::new(Prr::new()), Overbooking::Off);
        assert_eq!(ext(&off, &b), 0);
        assert!(off.retransmit_beyond_cwnd() && paper.retransmit_beyond_cwnd());
    }

    #[test]
    fn delegates_the_cwnd_rule() {
        let mut a = Opportunistic::new(Box::new(Prr::new()));
        let mut b = Prr::new();
        let mut wa = Window::new(100);
        wa.ssthresh = 70;
        let mut wb = wa;
        let ctx = RecoveryCtx {
            pipe: 90,
            packets_out: 100,
            sacked_out: 5,
            mss: 1448,
            ..RecoveryCtx::default()
        };
        a.init_cwnd_reduction(&mut wa, &ctx);
        b.init_cwnd_reduction(&mut wb, &ctx);
        a.cwnd_reduction(&mut wa, &ctx, 3, true);
        b.cwnd_reduction(&mut wb, &ctx, 3, true);
        assert_eq!(wa.cwnd, wb.cwnd);
    }
}
