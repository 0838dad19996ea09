//! RFC 3517, the predecessor of RFC 6675, named apart: the same cwnd rule
//! (cwnd = ssthresh at entry, then send while pipe < cwnd), but fast
//! recovery starts only on DupThresh duplicate ACKs (RFC 3517 section 5;
//! RFC 6675 added the IsLost(HighACK + 1) trigger) and NextSeg() has no
//! rule 4, the rescue retransmission (added by RFC 6675 section 4). The
//! PRR paper compares against this one.

use super::{RecoveryCtx, RecoveryOps};
use crate::window::Window;

#[derive(Clone, Debug, Default)]
pub struct Rfc3517;

impl RecoveryOps for Rfc3517 {
    fn name(&self) -> &'static str {
        "rfc3517"
    }
    fn init_cwnd_reduction(&mut self, w: &mut Window, _ctx: &RecoveryCtx) {
        // Section 5 step (2): cwnd = ssthresh = FlightSize / 2 at once.
        w.cwnd = w.ssthresh;
        w.cwnd_cnt = 0;
    }
    fn cwnd_reduction(&mut self, _w: &mut Window, _c: &RecoveryCtx, _n: u64, _f: bool) {}
    fn end_cwnd_reduction(&mut self, w: &mut Window, _ctx: &RecoveryCtx) {
        w.cwnd = w.ssthresh;
    }
    fn rescue_retransmission(&self) -> bool {
        false
    }
    fn entry_on_islost(&self) -> bool {
        false
    }
}
