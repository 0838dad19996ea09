//! Bandwidth Adaptive Rate Reduction (BARR), section II.E of the mobile
//! opportunistic-retransmission paper (docs/mobile-opportunistic-
//! retransmission-sndbuf.txt), built there after the rate-based recovery
//! of its references [3], [5], [6], [9]-[11]; M is its `slide_wnd_size`
//! (section VI, 200 ACKs by default).
//!
//! - No ssthresh convergence: entering recovery keeps cwnd.
//! - On every ACK, in recovery or not, the receiving rate over the last M
//!   ACKs (eq. 3): B_i = (ack_i - ack_{i-M}) / (t_i - t_{i-M}).
//! - On every ACK in recovery, the entering one included, cwnd = B_i x
//!   RTT_i (eq. 4).
//! - Leaving recovery keeps cwnd as eq. 4 last set it; ssthresh is not
//!   touched (`sets_ssthresh`).
//!
//! Interpretations:
//! - ack_i counts what the receiver reports received, cumulatively
//!   acknowledged or newly SACKed (the sender's DeliveredData, in
//!   segments, added up; without SACK a duplicate ACK counts one segment).
//!   The cumulative ACK number alone would give every duplicate ACK, and
//!   so most of a recovery, zero bandwidth.
//! - The samples are the ACKs that deliver something (`pkts_acked`); one
//!   that delivers nothing (a window update, a DSACK alone) carries no
//!   data and would only stretch the interval.
//! - With fewer than M intervals seen, eq. 3 spans what there is; with
//!   fewer than 2 samples, or all at one instant, there is no estimate and
//!   the ACK leaves cwnd alone, as it does without RTT_i.
//! - RTT_i is chosen as for QARR (qarr.rs, `[flow.barr] rtt_source`): by
//!   default now - TSecr of this ACK, which duplicate ACKs have and which
//!   during a recovery grows with the time since the hole (RFC 7323
//!   section 4.3), so W_i overshoots the path's BDP by up to the
//!   recovery's length, more with every recovery when the queue does not
//!   drain (measured in tests/integration/recovery_qarr_barr.rs); `"delivered"` takes
//!   the RTT of a segment the ACK newly delivered. It includes the queue
//!   either way (eq. 4 has RTT_i, where Westwood's ssthresh takes
//!   RTTmin), so W_i keeps whatever queue there is.
//! - W_i is in segments, rounded down, at least 1.
//! - Which segment goes next is RFC 6675 NextSeg() as for `prr`.
//!
//! O(1) per ACK: the M + 1 samples live in a ring buffer.

use std::collections::VecDeque;

use super::{AckRtt, RecoveryCtx, RecoveryOps};
use crate::time::Time;
use crate::window::Window;

#[derive(Clone, Debug)]
pub struct Barr {
    /// M.
    window: usize,
    /// (t_j, ack_j) of the latest M + 1 ACKs, oldest first.
    samples: VecDeque<(Time, u64)>,
    /// ack_i: segments delivered since the connection began.
    delivered: u64,
    rtt_source: AckRtt,
}

impl Barr {
    pub fn new(slide_wnd_size: u32, rtt_source: AckRtt) -> Self {
        Barr {
            window: (slide_wnd_size as usize).max(1),
            samples: VecDeque::new(),
            delivered: 0,
            rtt_source,
        }
    }

    /// II.E eq. 3, B_i = (ack_i - ack_{i-M}) / (t_i - t_{i-M}), as
    /// (segments, interval).
    pub fn bandwidth(&self) -> Option<(u64, Time)> {
        let (&(t0, a0), &(t1, a1)) = (self.samples.front()?, self.samples.back()?);
        (t1 > t0).then_some((a1 - a0, t1 - t0))
    }

    /// II.E eq. 4, W_i = B_i x RTT_i in segments (rounded down, at least
    /// 1).
    pub fn window_for(&self, rtt: Time) -> Option<u64> {
        let (segments, interval) = self.bandwidth()?;
        let w = u128::from(segments) * u128::from(rtt) / u128::from(interval);
        Some(w.clamp(1, u128::from(u64::MAX)) as u64)
    }

    /// Samples held (at most M + 1).
    pub fn samples(&self) -> usize {
        self.samples.len()
    }
}

impl RecoveryOps for Barr {
    /// Section II.D/II.E: no ssthresh; section VII.C: "their
    /// CWnd/ssthreshs are unaffected by packet losses". The congestion
    /// controller is not asked (so CUBIC's curve, W_max and epoch go on
    /// as if there had been no loss).
    fn sets_ssthresh(&self) -> bool {
        false
    }
    fn name(&self) -> &'static str {
        "barr"
    }

    fn init_cwnd_reduction(&mut self, _w: &mut Window, _ctx: &RecoveryCtx) {
        // cwnd is kept; the entering ACK's cwnd_reduction() sets W_1.
    }

    fn cwnd_reduction(
        &mut self,
        w: &mut Window,
        ctx: &RecoveryCtx,
        _newly_acked_sacked: u64,
        _fast_rexmit: bool,
    ) {
        if let Some(win) = self.rtt_source.of(ctx).and_then(|r| self.window_for(r)) {
            w.cwnd = win;
        }
    }

    fn end_cwnd_reduction(&mut self, w: &mut Window, _ctx: &RecoveryCtx) {
        // cwnd stays W_i; the additive-increase credit belonged to the
        // window before the loss.
        w.cwnd = w.cwnd.max(1);
        w.cwnd_cnt = 0;
    }

    fn pkts_acked(&mut self, now: Time, num_acked: u64, _rtt: Option<Time>) {
        self.delivered += num_acked;
        if self.samples.len() > self.window {
            self.samples.pop_front();
        }
        self.samples.push_back((now, self.delivered));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::MS;

    fn ctx(rtt_ms: u64) -> RecoveryCtx {
        RecoveryCtx {
            ack_rtt: Some(rtt_ms * MS),
            ..Default::default()
        }
    }

    #[test]
    fn eq_3_and_4_by_hand() {
        // 201 ACKs 1 ms apart, 2 segments each: over the last M = 200 ACKs
        // B = 400 segments / 200 ms; RTT 50 ms gives W = 100.
        let mut b = Barr::new(200, AckRtt::TsEcr);
        for i in 0..=200 {
            b.pkts_acked(i * MS, 2, None);
        }
        assert_eq!(b.bandwidth(), Some((400, 200 * MS)));
        let mut w = Window::new(300);
        w.ssthresh = 210;
        b.init_cwnd_reduction(&mut w, &ctx(50));
        assert_eq!(w.cwnd, 300);
        b.cwnd_reduction(&mut w, &ctx(50), 2, true);
        assert_eq!((w.cwnd, w.ssthresh), (100, 210));
        // 0.004 segments per ms x 70 ms = 140.
        b.cwnd_reduction(&mut w, &ctx(70), 0, false);
        assert_eq!(w.cwnd, 140);
        b.end_cwnd_reduction(&mut w, &ctx(70));
        assert_eq!((w.cwnd, w.ssthresh), (140, 210));
    }

    #[test]
    fn the_window_slides_and_holds_m_plus_one_samples() {
        let mut b = Barr::new(4, AckRtt::TsEcr);
        // 1 segment per ms for 10 ACKs, then 3 per ms.
        let mut t = 0;
        for _ in 0..10 {
            t += MS;
            b.pkts_acked(t, 1, None);
        }
        assert_eq!(b.bandwidth(), Some((4, 4 * MS)));
        for _ in 0..4 {
            t += MS;
            b.pkts_acked(t, 3, None);
        }
        // Only the last 4 intervals count.
        assert_eq!(b.bandwidth(), Some((12, 4 * MS)));
        assert_eq!(b.samples(), 5);
    }

    #[test]
    fn fewer_than_m_samples_use_what_there_is() {
        let mut b = Barr::new(200, AckRtt::TsEcr);
        let mut w = Window::new(50);
        b.pkts_acked(0, 1, None);
        // One sample is no rate: cwnd kept.
        b.cwnd_reduction(&mut w, &ctx(100), 1, true);
        assert_eq!((b.bandwidth(), w.cwnd), (None, 50));
        // Two at one instant are none either.
        b.pkts_acked(0, 1, None);
        assert_eq!(b.bandwidth(), None);
        b.pkts_acked(10 * MS, 3, None);
        // What came after the first sample: 4 segments in 10 ms, over
        // 100 ms 40.
        assert_eq!(b.bandwidth(), Some((4, 10 * MS)));
        b.cwnd_reduction(&mut w, &ctx(100), 3, false);
        assert_eq!(w.cwnd, 40);
    }

    #[test]
    fn rounded_down_floored_at_one_and_kept_without_an_rtt() {
        let mut b = Barr::new(200, AckRtt::TsEcr);
        b.pkts_acked(0, 1, None);
        b.pkts_acked(100 * MS, 1, None);
        let mut w = Window::new(20);
        // 1 segment per 100 ms: 1.99 over 199 ms, 0.5 over 50 ms.
        b.cwnd_reduction(&mut w, &ctx(199), 1, true);
        assert_eq!(w.cwnd, 1);
        let mut w = Window::new(20);
        b.cwnd_reduction(&mut w, &ctx(50), 1, true);
        assert_eq!(w.cwnd, 1);
        let no_rtt = RecoveryCtx {
            ack_rtt: None,
            ..ctx(0)
        };
        b.cwnd_reduction(&mut w, &no_rtt, 1, false);
        assert_eq!(w.cwnd, 1);
        let mut w = Window::new(20);
        b.cwnd_reduction(&mut w, &no_rtt, 1, false);
        assert_eq!(w.cwnd, 20);
    }

    #[test]
    fn the_rtt_source_picks_the_acks_sample() {
        let mut b = Barr::new(200, AckRtt::Delivered);
        b.pkts_acked(0, 1, None);
        b.pkts_acked(10 * MS, 10, None);
        let c = RecoveryCtx {
            ack_rtt: Some(300 * MS),
            delivered_rtt: Some(100 * MS),
            ..Default::default()
        };
        let mut w = Window::new(7);
        b.cwnd_reduction(&mut w, &c, 10, true);
        assert_eq!(w.cwnd, 100);
        let mut b = Barr {
            rtt_source: AckRtt::TsEcr,
            ..b
        };
        b.cwnd_reduction(&mut w, &c, 0, false);
        assert_eq!(w.cwnd, 300);
    }

    #[test]
    fn m_zero_is_one() {
        let mut b = Barr::new(0, AckRtt::TsEcr);
        for (t, n) in [(1, 5), (2, 7), (4, 1)] {
            b.pkts_acked(t * MS, n, None);
        }
        assert_eq!(b.bandwidth(), Some((1, 2 * MS)));
    }
}
