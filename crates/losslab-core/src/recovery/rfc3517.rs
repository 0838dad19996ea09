//! RFC 3517, the predecessor of RFC 6675, named apart: the same cwnd rule
//! (cwnd = ssthresh at entry, then send while pipe < cwnd), but fast
//! recovery starts only on DupThresh duplicate ACKs (RFC 3517 section 5;
//! RFC 6675 added the IsLost(HighACK + 1) trigger) and NextSeg() has no
//! rule 4, the rescue retransmission (added by RFC 6675 section 4). The
//! PRR paper compares against this one.

use super::{RecoveryCtx, RecoveryOps, Rfc6675};
use crate::window::Window;

#[derive(Clone, Debug, Default)]
pub struct Rfc3517;

impl RecoveryOps for Rfc3517 {
    fn name(&self) -> &'static str {
        "rfc3517"
    }
    // The cwnd rule is RFC 6675's (section 5 step 4.2 there, step 2 here).
    fn init_cwnd_reduction(&mut self, w: &mut Window, ctx: &RecoveryCtx) {
        Rfc6675.init_cwnd_reduction(w, ctx);
    }
    fn cwnd_reduction(&mut self, w: &mut Window, c: &RecoveryCtx, n: u64, f: bool) {
        Rfc6675.cwnd_reduction(w, c, n, f);
    }
    fn end_cwnd_reduction(&mut self, w: &mut Window, ctx: &RecoveryCtx) {
        Rfc6675.end_cwnd_reduction(w, ctx);
    }
    fn rescue_retransmission(&self) -> bool {
        false
    }
    fn entry_on_islost(&self) -> bool {
        false
    }
}
