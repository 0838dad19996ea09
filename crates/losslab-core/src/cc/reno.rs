//! Reno as Linux runs it (net/ipv4/tcp_cong.c, `tcp_reno_ops`): the same
//! slow start and congestion avoidance as `newreno`, but the loss response
//! halves cwnd (tcp_reno_ssthresh()) where RFC 5681 equation (4), which
//! `newreno` implements, halves FlightSize.
//!
//! The two are kept apart on purpose: they differ whenever FlightSize is
//! not cwnd, e.g. an application- or receiver-window-limited flow (cwnd
//! halving keeps more). Segments sent by RFC 3042 limited transmit make
//! no difference: RFC 5681 section 3.2 step 2 leaves them out of the
//! FlightSize the sender passes in.

use super::{CcCtx, CongestionControl, NewReno};
use crate::window::Window;

#[derive(Clone, Debug, Default)]
pub struct Reno;

impl CongestionControl for Reno {
    /// Grows only in cong_avoid (no `on_ack`).
    fn observes_every_ack(&self) -> bool {
        false
    }

    fn name(&self) -> String {
        "reno".into()
    }

    /// Linux tcp_reno_ssthresh(): max(cwnd >> 1, 2). Halving cwnd rather
    /// than FlightSize is safe there because Linux lets cwnd grow only
    /// while cwnd-limited (tcp_is_cwnd_limited(), which our sender applies
    /// too), so cwnd stays a window the flow has actually used.
    fn ssthresh(&mut self, w: &Window, _flight_size: u64) -> u64 {
        (w.cwnd / 2).max(2)
    }

    /// Linux 2.6.x-3.1 tcp_reno_min_cwnd() (net/ipv4/tcp_cong.c, tcp_reno's
    /// .min_cwnd until min_cwnd left tcp_congestion_ops): snd_ssthresh / 2,
    /// so rate-halving's decrement may take a Reno window below ssthresh
    /// where modules without one (CUBIC, BIC) stop at ssthresh.
    fn min_cwnd(&self, w: &Window) -> u64 {
        w.ssthresh / 2
    }

    /// Linux tcp_reno_cong_avoid(): tcp_slow_start() then
    /// tcp_cong_avoid_ai(tp, cwnd, acked), which is exactly NewReno's
    /// RFC 5681 growth.
    fn cong_avoid(&mut self, w: &mut Window, acked: u64, ctx: &CcCtx) {
        NewReno.cong_avoid(w, acked, ctx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ssthresh_halves_cwnd_not_flight_size() {
        let mut w = Window::new(20);
        // Application-limited: 10 segments out of a 20-segment cwnd.
        assert_eq!(Reno.ssthresh(&w, 10), 10);
        assert_eq!(NewReno.ssthresh(&w, 10), 5);
        // A full window: the two agree (the sender's FlightSize leaves out
        // limited-transmit segments, RFC 5681 section 3.2 step 2).
        w.cwnd = 21;
        assert_eq!(Reno.ssthresh(&w, 21), 10);
        assert_eq!(NewReno.ssthresh(&w, 21), 10);
        // The two-segment floor.
        w.cwnd = 3;
        assert_eq!(Reno.ssthresh(&w, 3), 2);
    }

    #[test]
    fn min_cwnd_is_half_ssthresh_rounded_down() {
        let mut w = Window::new(20);
        w.ssthresh = 10;
        assert_eq!(Reno.min_cwnd(&w), 5);
        w.ssthresh = 7;
        assert_eq!(Reno.min_cwnd(&w), 3);
        // Others keep Linux's default, ssthresh.
        assert_eq!(NewReno.min_cwnd(&w), 7);
    }

    #[test]
    fn grows_like_newreno() {
        let (mut a, mut b) = (Window::new(10), Window::new(10));
        a.ssthresh = 20;
        b.ssthresh = 20;
        for acked in [8, 5, 1, 1, 1, 30, 2, 1] {
            Reno.cong_avoid(&mut a, acked, &CcCtx::default());
            NewReno.cong_avoid(&mut b, acked, &CcCtx::default());
            assert_eq!(a, b);
        }
        assert!(a.cwnd > 20);
    }
}
