//! RFC 6675 section 5 standard recovery: on entry cwnd = ssthresh =
//! FlightSize / 2 at once (step 4.2), then the sender transmits whenever
//! cwnd - pipe >= 1 segment (step C). Nothing changes per ACK: pipe alone
//! paces the recovery, which is why RFC 6675 stays silent for about half
//! an RTT after the fast retransmit (PRR paper, section 3).

use super::{RecoveryCtx, RecoveryOps};
use crate::window::Window;

#[derive(Clone, Debug, Default)]
pub struct Rfc6675;

impl RecoveryOps for Rfc6675 {
    fn name(&self) -> &'static str {
        "rfc6675"
    }
    fn init_cwnd_reduction(&mut self, w: &mut Window, _ctx: &RecoveryCtx) {
        w.cwnd = w.ssthresh;
        w.cwnd_cnt = 0;
    }
    fn cwnd_reduction(&mut self, _w: &mut Window, _c: &RecoveryCtx, _n: u64, _f: bool) {}
    fn end_cwnd_reduction(&mut self, w: &mut Window, _ctx: &RecoveryCtx) {
        // RFC 6582 section 3.2 step 3 / RFC 6675: leave with cwnd = ssthresh.
        w.cwnd = w.ssthresh;
    }
}
