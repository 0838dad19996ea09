//! Delivery-rate sampling, after Linux net/ipv4/tcp_rate.c and
//! draft-cheng-iccrg-delivery-rate-estimation-02.
//!
//! Every transmission snapshots the connection's delivery state
//! (`delivered`, `delivered_time`, `first_tx_time`, app-limited); when an
//! ACK delivers segments, the most recently sent of them gives the
//! sample: segments delivered since it was sent, over the longer of the
//! send phase (its send time less the send time of the segment delivered
//! before it was sent) and the ACK phase (now less the delivery time it
//! saw). A sample whose interval is shorter than min_rtt is invalid, as in
//! Linux (an ACK-compressed or spurious-retransmission artefact).
//!
//! The snapshots live in a ring beside the scoreboard, indexed by segment
//! number, so the scoreboard stays small for controllers that never ask
//! for samples (`CongestionControl::wants_rate_samples`).

use std::collections::VecDeque;

use crate::time::Time;

/// One ACK's delivery-rate sample (Linux `struct rate_sample`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RateSample {
    /// Segments delivered over `interval`; None when the sample is
    /// invalid (no timing yet, or interval below min_rtt).
    pub delivered: Option<u64>,
    /// The sampling interval (max of send and ACK phases), nanoseconds.
    pub interval: Time,
    /// The connection's `delivered` when the sampled segment was sent.
    pub prior_delivered: u64,
    /// Segments newly delivered by this ACK (Linux acked_sacked).
    pub acked_sacked: u64,
    /// Segments newly marked lost on this ACK.
    pub losses: u64,
    /// The sampled segment was sent while the application had nothing
    /// more to send, so the sample may understate the path's rate.
    pub is_app_limited: bool,
    /// The sampled segment was a retransmission.
    pub is_retrans: bool,
    /// Connection totals after this ACK (Linux tp->delivered,
    /// tp->delivered_mstamp, tp->lost, tp->app_limited != 0), which BBR's
    /// round counting and long-term sampling read.
    pub total_delivered: u64,
    pub delivered_time: Time,
    pub total_lost: u64,
    pub app_limited_now: bool,
}

impl RateSample {
    /// Delivery rate in bits per second for `mss`-byte segments.
    pub fn bps(&self, mss: u32) -> Option<u64> {
        let d = self.delivered?;
        (self.interval > 0)
            .then(|| (d as u128 * mss as u128 * 8 * 1_000_000_000 / self.interval as u128) as u64)
    }
}

/// Snapshot taken when a segment was (re)transmitted (Linux
/// `TCP_SKB_CB(skb)->tx`).
#[derive(Clone, Copy, Debug, Default)]
struct TxStamp {
    sent: Time,
    first_tx_time: Time,
    delivered_time: Time,
    delivered: u64,
    app_limited: bool,
    retrans: bool,
    /// Cleared once SACKed, so the later cumulative ACK does not sample it
    /// again (Linux zeroes tx.delivered_mstamp).
    live: bool,
}

/// The connection-wide state of tcp_rate.c and the per-segment snapshots.
#[derive(Clone, Debug, Default)]
pub struct RateSampler {
    /// Segment number of `stamps[0]`.
    base: u64,
    stamps: VecDeque<TxStamp>,
    /// Linux tp->delivered: segments delivered so far.
    delivered: u64,
    /// Linux tp->delivered_mstamp: when `delivered` last grew.
    delivered_time: Time,
    /// Linux tp->first_tx_mstamp: send time of the most recently
    /// delivered segment (start of the next send phase).
    first_tx_time: Time,
    /// Linux tp->app_limited: 0, or the `delivered` count at which the
    /// app-limited bubble is gone.
    app_limited: u64,
    /// Linux tp->lost: segments marked lost so far.
    lost: u64,
}

/// The segment an ACK chose to sample (Linux rs->prior_* fields).
#[derive(Clone, Copy, Debug)]
pub struct Chosen {
    seg_no: u64,
}

impl RateSampler {
    pub fn new() -> Self {
        Self::default()
    }

    /// Segments delivered so far (Linux tp->delivered).
    pub fn delivered(&self) -> u64 {
        self.delivered
    }
    /// Segments marked lost so far (Linux tp->lost).
    pub fn lost(&self) -> u64 {
        self.lost
    }
    /// Whether the connection is in an app-limited bubble.
    pub fn is_app_limited(&self) -> bool {
        self.app_limited != 0
    }

    /// Linux tcp_rate_skb_sent(): `packets_out` is what was outstanding
    /// before this transmission.
    pub fn on_sent(&mut self, seg_no: u64, now: Time, packets_out: u64, retrans: bool) {
        if packets_out == 0 {
            self.first_tx_time = now;
            self.delivered_time = now;
        }
        let stamp = TxStamp {
            sent: now,
            first_tx_time: self.first_tx_time,
            delivered_time: self.delivered_time,
            delivered: self.delivered,
            app_limited: self.app_limited != 0,
            retrans,
            live: true,
        };
        if self.stamps.is_empty() && seg_no >= self.base {
            self.base = seg_no;
        }
        let Some(i) = seg_no.checked_sub(self.base).map(|i| i as usize) else {
            return;
        };
        while self.stamps.len() <= i {
            self.stamps.push_back(TxStamp::default());
        }
        self.stamps[i] = stamp;
    }

    /// The newly delivered segment an ACK samples: the most recently sent
    /// of them (Linux tcp_rate_skb_delivered() keeps the latest by send
    /// time). `sacked` marks it off for a later cumulative ACK.
    pub fn choose(&mut self, seg_no: u64, sacked: bool) -> Option<Chosen> {
        let i = seg_no.checked_sub(self.base)? as usize;
        let st = self.stamps.get_mut(i)?;
        if !st.live {
            return None;
        }
        if sacked {
            st.live = false;
        }
        Some(Chosen { seg_no })
    }

    /// Segments marked lost on this ACK or timer (Linux tp->lost).
    pub fn on_lost(&mut self, n: u64) {
        self.lost += n;
    }

    /// Linux tcp_rate_gen(): the sample of one ACK that newly delivered
    /// `delivered` segments and marked `losses` lost. `una_seg` is the
    /// scoreboard's first segment after the ACK: snapshots below it are
    /// dropped.
    // Inline: returned through memory, the sample was read back in loads
    // wider than its stores, where perf put 1% of a BBR flow's samples
    // (issue 33; BENCHMARKS.md has what removing such stalls gave).
    #[inline]
    pub fn generate(
        &mut self,
        now: Time,
        delivered: u64,
        losses: u64,
        chosen: Option<Chosen>,
        min_rtt: Option<Time>,
        una_seg: u64,
    ) -> RateSample {
        self.delivered += delivered;
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        // The chosen segment's snapshot, read before the ring is trimmed.
        let stamp = chosen
            .and_then(|c| self.stamps.get((c.seg_no - self.base) as usize))
            .copied();
        if delivered > 0 {
            self.delivered_time = now;
        }
        while self.base < una_seg && !self.stamps.is_empty() {
            self.stamps.pop_front();
            self.base += 1;
        }
        if self.stamps.is_empty() {
            self.base = self.base.max(una_seg);
        }
        let mut rs = RateSample {
            acked_sacked: delivered,
            losses,
            total_delivered: self.delivered,
            delivered_time: self.delivered_time,
            total_lost: self.lost,
            app_limited_now: self.app_limited != 0,
            ..RateSample::default()
        };
        let Some(st) = stamp else {
            return rs;
        };
        // The send phase runs from the snapshot's first_tx_time to this
        // segment's send time, which starts the next send phase.
        self.first_tx_time = st.sent;
        rs.prior_delivered = st.delivered;
        rs.is_app_limited = st.app_limited;
        rs.is_retrans = st.retrans;
        let snd = st.sent.saturating_sub(st.first_tx_time);
        let ack = now.saturating_sub(st.delivered_time);
        rs.interval = snd.max(ack);
        if min_rtt.is_some_and(|m| rs.interval < m) {
            return rs;
        }
        rs.delivered = Some(self.delivered - st.delivered);
        rs
    }

    /// Linux tcp_rate_check_app_limited(): the application has less than
    /// a segment to send, cwnd is not full and every lost segment has been
    /// retransmitted: samples until the data in flight now is delivered
    /// are app-limited.
    pub fn check_app_limited(&mut self, in_flight: u64, cwnd: u64, unrepaired_loss: bool) {
        if in_flight < cwnd && !unrepaired_loss {
            self.app_limited = (self.delivered + in_flight).max(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    /// Hand-worked: 10 segments sent back to back at t=0 on an idle
    /// connection, delivered one per ms from t=100 ms. The ACK at 109 ms
    /// delivers segment 9: delivered since it was sent = 10, send phase 0,
    /// ACK phase 109 - 0 = 109 ms (the delivery time snapshot is the idle
    /// start), so 10 segments in 109 ms.
    #[test]
    fn first_window_sample() {
        let mut r = RateSampler::new();
        for i in 0..10 {
            r.on_sent(i, 0, i, false);
        }
        let mut last = RateSample::default();
        for i in 0..10 {
            let c = r.choose(i, false);
            last = r.generate((100 + i) * MS, 1, 0, c, Some(100 * MS), i + 1);
        }
        assert_eq!(last.delivered, Some(10));
        assert_eq!(last.interval, 109 * MS);
        assert_eq!(last.bps(1000), Some(10 * 8000 * 1000 / 109));
    }

    /// Steady state: segment 20 sent at 200 ms, when 10 were delivered and
    /// the last delivery was at 190 ms; the segment delivered just before
    /// it was sent had been sent at 150 ms (first_tx_time). Its ACK at
    /// 300 ms, with 20 delivered: 10 segments over max(200 - 150, 300 -
    /// 190) = 110 ms.
    #[test]
    fn send_and_ack_phases() {
        let mut r = RateSampler {
            base: 20,
            delivered: 10,
            delivered_time: 190 * MS,
            first_tx_time: 150 * MS,
            ..RateSampler::default()
        };
        r.on_sent(20, 200 * MS, 5, false);
        r.delivered = 19;
        let c = r.choose(20, false);
        let rs = r.generate(300 * MS, 1, 0, c, Some(100 * MS), 21);
        assert_eq!(rs.delivered, Some(10));
        assert_eq!(rs.interval, 110 * MS);
        assert_eq!(r.first_tx_time, 200 * MS);
    }

    /// An interval below min_rtt is no sample (Linux pr_debug branch).
    #[test]
    fn short_interval_is_invalid() {
        let mut r = RateSampler::new();
        r.on_sent(0, 0, 0, false);
        let c = r.choose(0, false);
        let rs = r.generate(50 * MS, 1, 0, c, Some(100 * MS), 1);
        assert_eq!(rs.delivered, None);
        assert_eq!(rs.acked_sacked, 1);
    }

    /// A SACKed segment is sampled once: the cumulative ACK that later
    /// covers it finds no live snapshot.
    #[test]
    fn sacked_segment_sampled_once() {
        let mut r = RateSampler::new();
        r.on_sent(0, 0, 0, false);
        r.on_sent(1, 0, 1, false);
        assert!(r.choose(1, true).is_some());
        r.generate(100 * MS, 1, 0, None, None, 0);
        assert!(r.choose(1, false).is_none());
    }

    /// App-limited: the bubble lasts until what was in flight is
    /// delivered, and samples of segments sent inside it say so.
    #[test]
    fn app_limited_bubble() {
        let mut r = RateSampler::new();
        r.on_sent(0, 0, 0, false);
        r.check_app_limited(1, 10, false);
        assert!(r.is_app_limited());
        r.on_sent(1, MS, 1, false);
        let c = r.choose(0, false);
        r.generate(100 * MS, 1, 0, c, None, 1);
        assert!(r.is_app_limited(), "delivered 1, bubble ends after 1");
        let c = r.choose(1, false);
        let rs = r.generate(101 * MS, 1, 0, c, None, 2);
        assert!(rs.is_app_limited);
        assert!(!r.is_app_limited());
    }
}
