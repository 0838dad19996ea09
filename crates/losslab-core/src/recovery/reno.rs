//! Reno fast retransmit / fast recovery, RFC 5681 section 3.2, for peers
//! without SACK.
//!
//! Step 2 (ssthresh = max(FlightSize / 2, 2 * SMSS)) is the congestion
//! controller's; step 3 (retransmit the first unacknowledged segment) is
//! the detector's mark of HighACK + 1 after DupThresh duplicate ACKs.
//! Steps 4 and 5 inflate cwnd by one SMSS per duplicate ACK, and the
//! sender may send while FlightSize < ssthresh + dupacks. This engine
//! keeps cwnd = ssthresh and counts each duplicate ACK as one delivered
//! segment instead (sender/ack.rs `reno_sacked`, Linux tcp_add_reno_sack()),
//! so it sends while pipe = FlightSize - dupacks < ssthresh: the same
//! inequality, hence no inflation here.
//!
//! Step 6: the first ACK of new data "deflates the window", cwnd =
//! ssthresh, and ends fast recovery, even when it is a partial ACK
//! (RFC 6582 section 1 calls this Reno's weakness). Nothing retransmits
//! the next hole then: three new duplicate ACKs start another fast
//! retransmit and halve ssthresh again, or the RTO fires. RFC 5681 keeps
//! no recovery point, so that second fast retransmit is allowed (the
//! guard of RFC 6582 section 4 is NewReno's). The engine forgets the
//! duplicates counted as delivered when Reno leaves (`exits_on_partial_ack`),
//! so the deflated window is measured against the whole FlightSize.
//!
//! With SACK the same rules hold: the scoreboard's SACK information
//! paces pipe as RFC 6675 would, and the first ACK of new data still
//! ends recovery; when the scoreboard already shows the next hole lost
//! (IsLost()), the same ACK starts the next fast recovery. The intended
//! use is `sack_blocks = 0`.
//!
//! `ns2-reno` is ns-2.35's `Agent/TCP/Reno` with its default `bug_fix_`
//! (tcp-reno.cc `RenoTcpAgent::dupack_action()`: a third duplicate ACK
//! fast-retransmits only when `highest_ack_ > recover_`, and `recover_` is
//! `maxseq_` at the last fast retransmit or timeout; "avoids problems with
//! multiple fast retransmits in one window of data"). The same guard is
//! RFC 6582 section 4.1's "recover" check (RFC 2582 section 6 took it from
//! ns-2). After a partial ACK ends the recovery, the next hole of that
//! window waits for the RTO. ns-2's Reno still inflates its window on
//! those duplicate ACKs (`dupwnd_`); here they still count as delivered
//! segments (`reno_sacked`), the same effect.

use super::{RecoveryCtx, RecoveryOps};
use crate::window::Window;

#[derive(Clone, Debug, Default)]
pub struct Reno {
    /// ns-2's `bug_fix_`: one fast retransmit per window of data.
    bug_fix: bool,
}

impl Reno {
    /// RFC 5681 section 3.2 (`reno`).
    pub fn rfc5681() -> Self {
        Reno { bug_fix: false }
    }
    /// ns-2.35's Reno agent with `bug_fix_` true (`ns2-reno`).
    pub fn ns2() -> Self {
        Reno { bug_fix: true }
    }
}

impl RecoveryOps for Reno {
    fn name(&self) -> &'static str {
        if self.bug_fix {
            "ns2-reno"
        } else {
            "reno"
        }
    }
    fn fast_retransmit_below_recover(&self) -> bool {
        !self.bug_fix
    }
    fn init_cwnd_reduction(&mut self, w: &mut Window, _ctx: &RecoveryCtx) {
        // Step 4 without the "+ 3 * SMSS": the three duplicate ACKs are
        // already counted as delivered (module comment).
        w.cwnd = w.ssthresh;
        w.cwnd_cnt = 0;
    }
    // Step 5's inflation is the engine's per-duplicate-ACK accounting.
    fn cwnd_reduction(&mut self, _w: &mut Window, _c: &RecoveryCtx, _n: u64, _f: bool) {}
    fn end_cwnd_reduction(&mut self, w: &mut Window, _ctx: &RecoveryCtx) {
        // Step 6: "deflating" the window.
        w.cwnd = w.ssthresh;
        w.cwnd_cnt = 0;
    }
    // NextSeg() rule 4 is RFC 6675's, not RFC 5681's.
    fn rescue_retransmission(&self) -> bool {
        false
    }
    // Step 1-2: only DupThresh duplicate ACKs start fast retransmit.
    fn entry_on_islost(&self) -> bool {
        false
    }
    fn exits_on_partial_ack(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn win(cwnd: u64, ssthresh: u64) -> Window {
        Window {
            cwnd,
            ssthresh,
            cwnd_cnt: 7,
        }
    }

    #[test]
    fn entry_sets_cwnd_to_ssthresh_and_the_dupacks_do_the_inflation() {
        // FlightSize 20, ssthresh 10 (from the controller). RFC 5681: cwnd
        // = 10 + 3 = 13 after the third duplicate ACK, and FlightSize 20 >=
        // 13 sends nothing; here cwnd = 10 and pipe = 20 - 3 = 17 >= 10.
        // Each further duplicate ACK: RFC cwnd 14, 15, ...; pipe 16, 15, ...
        // The RFC sends its first new segment once FlightSize < 10 + n,
        // n = 11 duplicate ACKs; pipe = 20 - 11 = 9 < 10 at the same one.
        let mut r = Reno::rfc5681();
        let mut w = win(20, 10);
        let c = RecoveryCtx::default();
        r.init_cwnd_reduction(&mut w, &c);
        assert_eq!((w.cwnd, w.ssthresh, w.cwnd_cnt), (10, 10, 0));
        for n in 3..=11u64 {
            r.cwnd_reduction(&mut w, &c, 1, n == 3);
            let (rfc_cwnd, flight, pipe) = (10 + n, 20, 20 - n);
            assert_eq!(flight < rfc_cwnd, pipe < w.cwnd, "n = {n}");
        }
        assert_eq!(w.cwnd, 10);
    }

    #[test]
    fn a_partial_ack_ends_recovery_and_deflates() {
        let mut r = Reno::rfc5681();
        assert!(r.exits_on_partial_ack());
        assert!(!r.entry_on_islost());
        assert!(!r.rescue_retransmission());
        // No partial ACK reaches it in recovery.
        assert!(!r.partial_ack_retransmits_at_once());
        let mut w = win(13, 10);
        r.end_cwnd_reduction(&mut w, &RecoveryCtx::default());
        assert_eq!((w.cwnd, w.ssthresh), (10, 10));
    }

    #[test]
    fn every_partial_ack_restarts_the_timer() {
        // Reno leaves on the first one, so the question never matters; it
        // keeps the default.
        assert!(Reno::rfc5681().rto_restart_on_partial_ack(1));
        assert!(Reno::rfc5681().rto_restart_on_partial_ack(2));
    }

    #[test]
    fn only_ns2_reno_refuses_a_second_fast_retransmit_in_one_window() {
        assert!(Reno::rfc5681().fast_retransmit_below_recover());
        assert!(!Reno::ns2().fast_retransmit_below_recover());
        assert_eq!(Reno::ns2().name(), "ns2-reno");
        assert_eq!(Reno::rfc5681().name(), "reno");
    }
}
