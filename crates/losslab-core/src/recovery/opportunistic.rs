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
}

impl Opportunistic {
    pub fn new(inner: Box<dyn RecoveryOps>) -> Self {
        Opportunistic { inner }
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
    /// segments once the retransmissions are received.
    fn awnd_extension(&self, ctx: &AwndCtx) -> u64 {
        if ctx.in_recovery {
            ctx.holes + ctx.sacked
        } else {
            0
        }
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recovery::Prr;

    #[test]
    fn extends_by_holes_plus_sacked_only_in_recovery() {
        let o = Opportunistic::new(Box::new(Prr::new()));
        let mut ctx = AwndCtx {
            in_recovery: true,
            holes: 10,
            sacked: 150,
        };
        assert_eq!(o.awnd_extension(&ctx), 160);
        ctx.in_recovery = false;
        assert_eq!(o.awnd_extension(&ctx), 0);
        assert_eq!(o.name(), "prr");
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
