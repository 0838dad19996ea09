//! Simplified TCP-RR, as the LE paper runs it (section 5.2.2 "Simplified
//! TCP-RR"; its reference [14], which our copy of the paper does not
//! list; it is likely RR-TCP: M. Zhang, B. Karp, S. Floyd, L. Peterson,
//! "RR-TCP: A Reordering-Robust TCP with DSACK", ICNP 2003).
//!
//! The paper's summary: "TCP-RR assumes that only RTO expiry is equivalent
//! to packet loss due to network congestion. Multiple duplicate ACKs are
//! due to wireless transmission error. However, to maintain the fairness
//! with another TCP, the time of RTO expiry is less than the traditional
//! RTO expiry." So:
//! - a fast-recovery entry (or a TLP that repaired a loss) is a random
//!   loss: `ssthresh` returns cwnd, and the recovery algorithm keeps the
//!   window while it repairs the hole;
//! - a retransmission timeout is congestion: ssthresh = max(FlightSize /
//!   2, 2) (RFC 5681 equation 4) and cwnd = the loss window (one segment);
//! - every RTO is multiplied by `rto_factor` (< 1: a shorter timer);
//! - growth is Reno's (RFC 5681 slow start and congestion avoidance).
//!
//! What is simplified against RR-TCP: RR-TCP keeps the usual cwnd halving
//! on fast retransmit and instead avoids *spurious* fast retransmits,
//! adapting the duplicate-ACK threshold (dupthresh) from DSACK reports of
//! needless retransmissions and undoing their cwnd reductions. The LE
//! paper's version drops all of that: dupthresh stays 3 and duplicate ACKs
//! never reduce cwnd at all; only the shortened RTO limits the damage.
//!
//! Telling a timeout from a fast-recovery entry: the sender asks
//! `ssthresh` on both (and on a TLP-repaired loss), and only on a timeout
//! then calls `on_timeout` and `ssthresh_after_timeout` (sender/timeouts.rs on_rto;
//! enter_fast_recovery does neither). `ssthresh` remembers the FlightSize
//! and answers "random loss"; `ssthresh_after_timeout` replaces that
//! answer with the congestion one before cwnd drops to the loss window
//! and before the timeout's recovery record is written.

use super::{CcCtx, CongestionControl, NewReno};
use crate::window::Window;

/// The RTO factor without `[flow.tcp-rr] rto_factor`. The LE paper gives
/// no value ("less than the traditional RTO expiry"). One half: every
/// timer at its floor (Linux's 200 ms min RTO is ten RTTs at the paper's
/// 20 ms) still lasts several RTTs, so a timeout still means the ACK clock
/// stopped rather than a delayed ACK; and on a timer backed off once it
/// fires when an unscaled one would have fired the first time, which keeps
/// its backoff no more aggressive than the standard timer's first try.
pub const DEFAULT_RTO_FACTOR: f64 = 0.5;

#[derive(Clone, Debug)]
pub struct TcpRr {
    rto_factor: f64,
    /// FlightSize given to the last `ssthresh` call: the timeout's own
    /// call on a new episode, or the fast-recovery entry's when the
    /// sender keeps that ssthresh on a timeout (Linux tcp_enter_loss()).
    last_flight: u64,
}

impl Default for TcpRr {
    fn default() -> Self {
        Self::new(DEFAULT_RTO_FACTOR)
    }
}

impl TcpRr {
    /// `rto_factor` in (0, 1] (the scenario parser checks the range).
    pub fn new(rto_factor: f64) -> Self {
        TcpRr {
            rto_factor,
            last_flight: 0,
        }
    }
}

impl CongestionControl for TcpRr {
    /// Grows only in cong_avoid (no `on_ack`).
    fn observes_every_ack(&self) -> bool {
        false
    }

    fn name(&self) -> String {
        "tcp-rr".into()
    }

    /// A duplicate-ACK (or TLP) loss signal is a random loss: ssthresh =
    /// cwnd, so PRR and the other RecoveryOps keep the window (the floor
    /// of two segments is RFC 5681's). On a timeout `on_timeout` follows
    /// and `ssthresh_after_timeout` replaces this with the congestion
    /// response.
    fn ssthresh(&mut self, w: &Window, flight_size: u64) -> u64 {
        self.last_flight = flight_size;
        w.cwnd.max(2)
    }

    fn cong_avoid(&mut self, w: &mut Window, acked: u64, ctx: &CcCtx) {
        NewReno.cong_avoid(w, acked, ctx);
    }

    /// Only a timeout is congestion: RFC 5681 equation (4), ssthresh =
    /// max(FlightSize / 2, 2), FlightSize as given to the last `ssthresh`
    /// call; cwnd goes to `loss_window` (one segment) as for every
    /// controller. A repeated timeout gets the same value from the same
    /// FlightSize (RFC 5681 keeps ssthresh then); a timeout in fast
    /// recovery whose ssthresh the sender keeps (Linux tcp_enter_loss())
    /// halves the FlightSize of the recovery's entry, which had kept the
    /// window.
    fn ssthresh_after_timeout(&mut self, _ssthresh: u64) -> u64 {
        (self.last_flight / 2).max(2)
    }

    fn rto_factor(&self) -> f64 {
        self.rto_factor
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::window;
    use super::*;

    /// What sender/timeouts.rs on_rto does with the controller on a timeout that
    /// starts an episode.
    fn timeout(cc: &mut TcpRr, w: &mut Window, flight: u64) {
        w.ssthresh = cc.ssthresh(w, flight);
        cc.on_timeout(0);
        w.ssthresh = cc.ssthresh_after_timeout(w.ssthresh);
        w.cwnd = cc.loss_window();
    }

    #[test]
    fn duplicate_acks_keep_the_window() {
        let mut cc = TcpRr::default();
        // Fast recovery entry at cwnd 20 with 18 in flight: ssthresh 20
        // (Reno would say 10, NewReno 9).
        let w = window(20, 100);
        assert_eq!(cc.ssthresh(&w, 18), 20);
        // The floor of two segments.
        assert_eq!(cc.ssthresh(&window(1, 100), 1), 2);
        // After the recovery, growth from the kept window is Reno's 1/cwnd
        // in congestion avoidance (credit 1 of 20).
        let mut w = window(20, 20);
        cc.cong_avoid(&mut w, 1, &CcCtx::default());
        assert_eq!(
            w,
            Window {
                cwnd: 20,
                ssthresh: 20,
                cwnd_cnt: 1
            }
        );
    }

    #[test]
    fn a_timeout_halves_flight_size() {
        let mut cc = TcpRr::default();
        // cwnd 20, FlightSize 18: ssthresh 18 / 2 = 9, cwnd 1.
        let mut w = window(20, 100);
        timeout(&mut cc, &mut w, 18);
        assert_eq!((w.cwnd, w.ssthresh), (1, 9));
        // Reno's slow start up to it: 1 + 1 = 2; then 2 + 10 = 12, capped
        // at 9, the 3 left over becoming congestion-avoidance credit (Linux
        // tcp_slow_start() returns it).
        cc.cong_avoid(&mut w, 1, &CcCtx::default());
        assert_eq!((w.cwnd, w.ssthresh), (2, 9));
        cc.cong_avoid(&mut w, 10, &CcCtx::default());
        assert_eq!((w.cwnd, w.ssthresh, w.cwnd_cnt), (9, 9, 3));
        // Floor: FlightSize 3 gives max(1, 2) = 2.
        let mut w = window(3, 100);
        timeout(&mut cc, &mut w, 3);
        assert_eq!((w.cwnd, w.ssthresh), (1, 2));
    }

    #[test]
    fn timeouts_without_their_own_ssthresh_call() {
        let mut cc = TcpRr::default();
        let mut w = window(20, 100);
        timeout(&mut cc, &mut w, 18);
        // A repeated timeout: the sender does not ask `ssthresh` again;
        // the same 18 / 2 = 9.
        cc.on_timeout(1);
        assert_eq!(cc.ssthresh_after_timeout(w.ssthresh), 9);
        // A timeout in fast recovery under Linux's rule: the entry's
        // ssthresh(cwnd 30, FlightSize 28) kept the window (30); the
        // timeout makes it 28 / 2 = 14.
        let mut cc = TcpRr::default();
        let kept = cc.ssthresh(&window(30, 100), 28);
        assert_eq!(kept, 30);
        cc.on_timeout(0);
        assert_eq!(cc.ssthresh_after_timeout(kept), 14);
    }

    #[test]
    fn the_rto_factor() {
        assert_eq!(TcpRr::default().rto_factor(), 0.5);
        assert_eq!(TcpRr::new(0.25).rto_factor(), 0.25);
        assert_eq!(TcpRr::default().name(), "tcp-rr");
    }
}
