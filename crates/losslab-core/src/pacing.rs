//! Pacing, as Linux does it since 4.20 (EDT: earliest departure time).
//!
//! Linux gives every skb a departure time `tcp_wstamp_ns` and advances it
//! by the skb's length at the pacing rate (tcp_output.c
//! tcp_update_skb_after_send()); the fq qdisc, or TCP's own hrtimer
//! without fq (tcp_pacing_check()), holds the skb until then. Three
//! details shape the departures and are modelled:
//! - an skb carries several segments: tcp_tso_autosize() sizes it to about
//!   1 ms of data at the pacing rate (`pacing_rate >> sk_pacing_shift`,
//!   shift 10), plus `gso_max_size >> (min_rtt_us >> 9)` on short paths,
//!   at most 64 KB and at least `min_tso_segs` segments; its segments leave
//!   back to back (`burst_segments`);
//! - the first 10 data segments are not paced (`data_segs_out >= 10`, "the
//!   original sch_fq does not pace first 10 MSS"); by default the engine
//!   also sends the eleventh unpaced, `PacingStart::Linux` paces from the
//!   segment that brings the count to ten, as tcp_update_skb_after_send()
//!   does (tcp_output.c; __tcp_transmit_skb() counts the skb first);
//! - a sender that comes late gets up to half a packet time of credit
//!   (`len_ns -= min(len_ns / 2, credit)`, "take into account OS jitter").
//!
//! Not modelled: TSQ (TCP small queues) limits how much sits in the qdisc
//! to about 1 ms of data or two skbs; with departure times held by the
//! gate here nothing queues below TCP, so TSQ never binds. At 10 Gbit/s
//! Linux's real skbs reach the 64 KB cap (45 segments of 1448 bytes);
//! the model sends the same 45-segment bursts.

use crate::config::PacingStart;
use crate::time::{mul_div, Time, SEC};

/// The departure-time state of one paced flow.
#[derive(Clone, Copy, Debug, Default)]
pub struct Pacer {
    /// Linux tcp_wstamp_ns: when the next skb may leave.
    next: Time,
    /// Segments the current skb may still carry (sent at `burst_at`).
    quota: u32,
    burst_at: Time,
    /// Where the current skb's departure time started and the credit it
    /// got, so its length can grow segment by segment.
    burst_base: Time,
    burst_credit: Time,
    burst_ns: Time,
    /// Data segments sent (Linux data_segs_out).
    segs_out: u64,
    /// When the sender asked to be woken to send (None: not waiting).
    wait: Option<Time>,
    /// `PacingStart::Linux`: the tenth segment already moves the
    /// departure time (false, the default: the eleventh).
    linux_start: bool,
}

/// Data segments Linux leaves unpaced at the start of a connection.
const UNPACED_SEGMENTS: u64 = 10;
/// GSO's largest skb (sk_gso_max_size).
pub(crate) const GSO_MAX_SIZE: u64 = 65_536;

impl Pacer {
    pub fn new(start: PacingStart) -> Self {
        Pacer {
            linux_start: start == PacingStart::Linux,
            ..Pacer::default()
        }
    }

    /// Whether a segment may leave at `now`. When not, the sender should
    /// arm `wake_at()` if it has something to send.
    pub fn may_send(&self, now: Time) -> bool {
        if self.segs_out < UNPACED_SEGMENTS || (self.quota > 0 && self.burst_at == now) {
            return true;
        }
        now >= self.next
    }

    /// The sender had something to send at `now` but the gate was shut.
    pub fn block(&mut self, now: Time) {
        if now < self.next {
            self.wait = Some(self.next);
        }
    }

    /// A wake-up is already asked for the departure time the gate waits
    /// for, so `block` would change nothing.
    pub fn waiting_for_next(&self) -> bool {
        self.wait == Some(self.next)
    }

    /// When `on_timeout` must be called to send the paced segment.
    pub fn wake_at(&self) -> Option<Time> {
        self.wait
    }

    /// The wake-up came (or is no longer needed).
    pub fn clear_wait(&mut self, now: Time) {
        if self.wait.is_some_and(|t| t <= now) {
            self.wait = None;
        }
    }

    /// One data segment of `len` bytes left at `now`, paced at `rate` bits
    /// per second in skbs of `burst()` segments (`burst_segments`). The
    /// skb's size is asked for only when a segment begins one: at 1
    /// Gbit/s an skb holds about 45 segments, and sizing it
    /// (tcp_tso_autosize()'s divisions and the controller's
    /// min_tso_segs) for each of them was a send's largest cost after the
    /// pacer's own arithmetic (issue 33).
    pub fn on_sent(&mut self, now: Time, len: u32, rate: u64, burst: impl FnOnce() -> u32) {
        self.segs_out += 1;
        if self.linux_start {
            self.on_sent_linux(now, len, rate, burst);
            return;
        }
        if self.segs_out <= UNPACED_SEGMENTS || rate == 0 {
            return;
        }
        if self.quota == 0 || self.burst_at != now {
            self.begin_skb(now, burst());
        }
        self.quota -= 1;
        self.burst_ns += mul_div(u64::from(len), 8 * SEC, rate);
        let credit = self.burst_credit.min(self.burst_ns / 2);
        self.next = self.burst_base + self.burst_ns - credit;
    }
}

impl Pacer {
    /// A new skb of up to `burst` segments: tcp_transmit_skb() moves the
    /// departure time up to now, and the credit (tcp_wstamp_ns -
    /// prior_wstamp) is how late the sender came.
    fn begin_skb(&mut self, now: Time, burst: u32) {
        self.quota = burst.max(1);
        self.burst_at = now;
        self.burst_base = self.next.max(now);
        self.burst_credit = now.saturating_sub(self.next);
        self.burst_ns = 0;
    }

    /// `PacingStart::Linux`. Every skb is sized (tcp_tso_autosize()) and
    /// moves tcp_wstamp_ns up to now (__tcp_transmit_skb()), paced or
    /// not, so the unpaced first segments are grouped into skbs too and
    /// the departure time follows the clock through them. The skb whose
    /// segments bring data_segs_out to ten (it is counted before
    /// tcp_update_skb_after_send() tests `>= 10`) is the first to move the
    /// departure time past now, by its whole length.
    fn on_sent_linux(&mut self, now: Time, len: u32, rate: u64, burst: impl FnOnce() -> u32) {
        if self.quota == 0 || self.burst_at != now {
            self.begin_skb(now, burst());
        }
        self.quota -= 1;
        if rate > 0 {
            self.burst_ns += mul_div(u64::from(len), 8 * SEC, rate);
        }
        if self.segs_out < UNPACED_SEGMENTS || rate == 0 {
            self.next = self.burst_base;
            return;
        }
        let credit = self.burst_credit.min(self.burst_ns / 2);
        self.next = self.burst_base + self.burst_ns - credit;
    }
}

/// Segments per skb at `rate` bits per second (Linux tcp_tso_autosize()).
pub fn burst_segments(rate: u64, mss: u32, min_rtt: Option<Time>, min_tso_segs: u32) -> u32 {
    let mut bytes = (rate / 8) >> 10;
    // tcp_tso_rtt_log (9): on paths under ~16 ms, bigger skbs.
    if let Some(r) = min_rtt.map(|t| (t / 1000) >> 9) {
        if r < 32 {
            bytes += GSO_MAX_SIZE >> r;
        }
    }
    let segs = (bytes.min(GSO_MAX_SIZE) / mss.max(1) as u64) as u32;
    segs.max(min_tso_segs).max(1)
}

/// Linux tcp_update_pacing_rate() for controllers that set no rate: 200%
/// of cwnd x mss / srtt while cwnd < ssthresh / 2, 120% after
/// (sysctl_tcp_pacing_ss_ratio, _ca_ratio), in bits per second.
// Out of line: the modern-stack benchmark (m100) never runs it, and
// inlined it spread the per-ACK code over more cache lines; where a run
// takes it per ACK, it adds a call (issue 33, docs/BENCHMARKS.md).
#[inline(never)]
pub fn default_rate(mss: u32, cwnd: u64, ssthresh: u64, packets_out: u64, srtt: Time) -> u64 {
    let ratio = if cwnd < ssthresh / 2 { 200 } else { 120 };
    let bytes_per_s = mss as u128 * ratio * cwnd.max(packets_out) as u128 * 1_000_000_000
        / 100
        / srtt.max(1) as u128;
    (bytes_per_s * 8).min(u64::MAX as u128) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::MS;

    const US: Time = 1000;

    /// Hand-worked: 12 Mbit/s and 1500-byte segments make 1 ms per
    /// segment; after the 10 free segments, 2-segment skbs leave 2 ms
    /// apart.
    #[test]
    fn spacing_after_the_first_ten() {
        let mut p = Pacer::default();
        for _ in 0..10 {
            assert!(p.may_send(0));
            p.on_sent(0, 1500, 12_000_000, || 2);
        }
        assert!(p.may_send(0));
        p.on_sent(0, 1500, 12_000_000, || 2);
        assert!(p.may_send(0), "second segment of the skb");
        p.on_sent(0, 1500, 12_000_000, || 2);
        assert!(!p.may_send(0));
        assert!(!p.may_send(2 * MS - 1));
        assert!(p.may_send(2 * MS));
    }

    /// The sender skips `block` when `waiting_for_next` says it would
    /// change nothing: only while the wake-up asked for is the departure
    /// the gate waits for, and not once a segment moved that departure.
    #[test]
    fn waiting_for_next_is_what_block_would_set() {
        let mut p = Pacer::default();
        for _ in 0..11 {
            p.on_sent(0, 1500, 12_000_000, || 1);
        }
        assert!(!p.may_send(0) && !p.waiting_for_next());
        p.block(0);
        assert!(p.waiting_for_next());
        let asked = p.wake_at();
        p.block(MS / 2);
        assert_eq!(p.wake_at(), asked, "a second block sets the same wake-up");
        p.clear_wait(MS);
        assert!(!p.waiting_for_next());
        p.block(MS);
        assert!(
            !p.waiting_for_next(),
            "a gate open at `next` asks for nothing"
        );
        p.on_sent(MS, 1500, 12_000_000, || 1);
        p.block(MS);
        assert!(p.waiting_for_next());
        p.on_sent(2 * MS, 1500, 12_000_000, || 1);
        assert!(
            !p.waiting_for_next(),
            "a departure moved: block would set a new one"
        );
    }

    /// Hand-worked, 12 Mbit/s, 1500-byte segments (1 ms each), one
    /// segment per skb, all offered at time 0. Linux: __tcp_transmit_skb()
    /// makes data_segs_out 10 on the tenth, tcp_update_skb_after_send()
    /// sees 10 >= 10 and moves tcp_wstamp_ns to 1 ms, so the eleventh
    /// waits until 1 ms. The default (`after-11`) sends eleven at 0 and
    /// the twelfth at 1 ms.
    #[test]
    fn pacing_start_linux_paces_the_tenth() {
        let first_wait = |start| {
            let mut p = Pacer::new(start);
            let mut sent = 0;
            while p.may_send(0) {
                p.on_sent(0, 1500, 12_000_000, || 1);
                sent += 1;
            }
            assert!(p.may_send(MS) && !p.may_send(MS - 1));
            sent
        };
        assert_eq!(first_wait(PacingStart::Linux), 10);
        assert_eq!(first_wait(PacingStart::After11), 11);
        // Two-segment skbs: Linux's are [1,2] .. [9,10]; the fifth brings
        // data_segs_out to 10 and moves tcp_wstamp_ns by 2 x 1 ms, so the
        // eleventh waits until 2 ms. The default counts skbs from the
        // eleventh: [11,12] leaves at 0 and the thirteenth waits 2 ms.
        let burst2 = |start| {
            let mut p = Pacer::new(start);
            let mut sent = 0;
            while p.may_send(0) {
                p.on_sent(0, 1500, 12_000_000, || 2);
                sent += 1;
            }
            assert!(p.may_send(2 * MS) && !p.may_send(2 * MS - 1));
            sent
        };
        assert_eq!(burst2(PacingStart::Linux), 10);
        assert_eq!(burst2(PacingStart::After11), 12);
        // Pacer::default() is the engine's rule before the key.
        let mut p = Pacer::default();
        for _ in 0..11 {
            assert!(p.may_send(0));
            p.on_sent(0, 1500, 12_000_000, || 1);
        }
        assert!(!p.may_send(0));
    }

    /// A late sender gets half a packet time of credit at most.
    #[test]
    fn late_sender_credit() {
        let mut p = Pacer {
            segs_out: 10,
            ..Pacer::default()
        };
        p.on_sent(0, 1500, 12_000_000, || 1);
        assert_eq!(p.next, MS);
        // 5 ms late: credit min(0.5 ms, 5 ms); departs 5 ms + 0.5 ms.
        p.on_sent(6 * MS, 1500, 12_000_000, || 1);
        assert_eq!(p.next, 6 * MS + 500 * US);
    }

    /// tcp_tso_autosize(): 1 ms of data at the rate, 64 KB at most.
    #[test]
    fn autosize() {
        // 100 Mbit/s: 12.5 MB/s >> 10 = 12207 bytes = 8 segments of 1448.
        assert_eq!(burst_segments(100_000_000, 1448, Some(100 * MS), 2), 8);
        // 10 Gbit/s: capped at 65536 bytes = 45 segments.
        assert_eq!(burst_segments(10_000_000_000, 1448, Some(100 * MS), 2), 45);
        // 1 Mbit/s: under one segment, min_tso_segs.
        assert_eq!(burst_segments(1_000_000, 1448, Some(100 * MS), 2), 2);
        // 1 ms min RTT: r = 1, + 32 KB.
        assert_eq!(burst_segments(1_000_000, 1448, Some(MS), 2), 22);
    }

    /// 10 segments of 1000 bytes over 100 ms at 120%: 960 kbit/s.
    #[test]
    fn linux_default_rate() {
        assert_eq!(default_rate(1000, 10, 10, 10, 100 * MS), 960_000);
        assert_eq!(default_rate(1000, 10, 100, 10, 100 * MS), 1_600_000);
    }
}
