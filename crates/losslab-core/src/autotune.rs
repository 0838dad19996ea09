//! Linux's receive-buffer autotuning, dynamic right-sizing (DRS), as
//! Linux 6.18 runs it (net/ipv4/tcp_input.c): the receiver measures its
//! own RTT, counts what the application read in each such RTT, and grows
//! sk_rcvbuf and tp->window_clamp so the window it advertises keeps ahead
//! of a sender that doubles its rate every round.
//!
//! The buffer starts at the sysctl tcp_rmem[1] (131072 B) and grows
//! toward tcp_rmem[2], never shrinking. The receiver (receiver.rs) calls
//! in at four places, each the kernel's:
//! - `on_timestamp`: tcp_rcv_rtt_measure_ts(), every segment;
//! - `on_in_order`: tcp_rcv_rtt_measure(), from tcp_event_data_recv();
//! - `on_out_of_order`: tcp_rcvbuf_grow(rcvq_space.space) at the end of
//!   tcp_data_queue_ofo();
//! - `on_read`: tcp_rcv_space_adjust(), which tcp_recvmsg_locked() calls
//!   after each copy to the application.
//!
//! Every quantity is in the kernel's units: bytes of buffer memory
//! (sk_rcvbuf, tcp_rmem) or of window, microseconds, the RTT estimate
//! eight times its value. The engine has no skb truesize, so buffer and
//! window convert at the TCP_DEFAULT_SCALING_RATIO tcp_init_sock() starts
//! with (half of the memory is window). Linux 6.6+ replaces that ratio
//! with len * 256 / truesize once tcp_measure_rcv_mss() sees the first
//! full segment (and then drops the one-segment reservation below from
//! window_clamp); with this one fixed ratio that never changes anything,
//! and a window computed by tcp_rcvbuf_grow() converts to memory and back
//! to itself at any ratio, so only the first window and the cap depend on
//! it.
//!
//! O(1) per call: a few integer operations, no history.

use crate::time::Time;

/// The sysctl tcp_rmem[1], every socket's sk_rcvbuf when it is created
/// (tcp_init_sock()) and the buffer autotuning grows from.
pub const TCP_RMEM_DEFAULT: u64 = 131_072;
/// TCP_DEFAULT_SCALING_RATIO (include/net/tcp.h: one shifted left by
/// TCP_RMEM_TO_WIN_SCALE less one): half of a buffer's bytes count as
/// window until tcp_measure_rcv_mss() has seen a segment's truesize.
/// Linux 6.6 to 6.10 used 1200 / SKB_TRUESIZE(4096), about a quarter.
pub const SCALING_RATIO: u64 = 128;
pub const TCP_RMEM_TO_WIN_SCALE: u32 = 8;
/// TCP_INIT_CWND: tcp_init_buffer_space() expects the sender's first
/// flight to be ten segments.
const TCP_INIT_CWND: u64 = 10;

/// __tcp_win_from_space() (include/net/tcp.h): the window a buffer of
/// `space` bytes backs at the scaling ratio.
pub fn win_from_space(space: u64) -> u64 {
    space.saturating_mul(SCALING_RATIO) >> TCP_RMEM_TO_WIN_SCALE
}

/// __tcp_space_from_win() (include/net/tcp.h): the buffer a window of
/// `win` bytes needs, (win << TCP_RMEM_TO_WIN_SCALE) / scaling_ratio.
pub fn space_from_win(win: u64) -> u64 {
    win.saturating_mul(1 << TCP_RMEM_TO_WIN_SCALE) / SCALING_RATIO
}

/// One connection's autotuning state: sk_rcvbuf, tp->window_clamp,
/// tp->rcvq_space and tp->rcv_rtt_est.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Drs {
    /// tp->advmss after the handshake: the MSS option less the 12 bytes
    /// of timestamp option (TCPOLEN_TSTAMP_ALIGNED), which Linux 6.16+
    /// takes off before tcp_init_buffer_space() on both sides (commit
    /// "tcp: fix initial tp->rcvq_space.space value for passive TS
    /// enabled flows"): the engine's MSS.
    advmss: u64,
    /// sysctl tcp_rmem[2], the most sk_rcvbuf may grow to.
    rmem_max: u64,
    sk_rcvbuf: u64,
    window_clamp: u64,
    /// rcvq_space.space: bytes the application read in the last measured
    /// RTT (the base the next growth is measured against).
    space: u64,
    /// rcvq_space.seq and .time: the read position and time (us) at the
    /// start of the current measurement.
    space_seq: u64,
    space_time: u64,
    /// rcv_rtt_est.rtt_us (eight times the RTT in us; 0: none yet), and
    /// the window-based measurement's target sequence and start (us;
    /// None: rcv_rtt_est.time == 0, not started).
    rtt_us8: u64,
    rtt_seq: u64,
    rtt_time: Option<u64>,
    /// tp->rcv_rtt_last_tsecr, in the timestamp clock's milliseconds.
    last_tsecr_ms: u64,
}

fn us(t: Time) -> u64 {
    t / 1_000
}

/// The timestamp clock: tcp_time_stamp_ts() counts milliseconds
/// (TCP_TS_HZ = 1000) unless usec timestamps were negotiated, which
/// takes a route feature (tcp_usec_ts) no run here sets.
fn ms(t: Time) -> u64 {
    t / 1_000_000
}

impl Drs {
    /// tcp_init_buffer_space() at the start of the connection (t = 0).
    /// `max_window` is the most the window may reach (the scenario's
    /// `rcvbuf`, already in window bytes): tcp_rmem[2] is the buffer
    /// that backs it. `first_window` is the window the handshake
    /// advertised (tp->rcv_wnd, and rcv_ssthresh's value before this).
    ///
    /// sk_rcvbuf starts at tcp_rmem[1], or at tcp_rmem[2] if that is
    /// smaller (the kernel would let a small tcp_rmem[2] stand below
    /// tcp_rmem[1] until the first growth; here the scenario's `rcvbuf`
    /// is the most the window may ever be). window_clamp starts at
    /// tcp_full_space() less one segment ("Force reservation of one
    /// segment", tcp_app_win = 31), and rcvq_space.space at
    /// min3(rcv_ssthresh, rcv_wnd, TCP_INIT_CWND * advmss).
    pub fn new(max_window: u64, mss: u32, first_window: u64) -> Drs {
        let advmss = u64::from(mss.max(1));
        let rmem_max = space_from_win(max_window);
        let sk_rcvbuf = TCP_RMEM_DEFAULT.min(rmem_max);
        let maxwin = win_from_space(sk_rcvbuf);
        let window_clamp = if maxwin > 2 * advmss {
            (maxwin - advmss).max(2 * advmss)
        } else {
            maxwin
        };
        Drs {
            advmss,
            rmem_max,
            sk_rcvbuf,
            window_clamp,
            space: first_window
                .min(window_clamp)
                .min(TCP_INIT_CWND * advmss)
                .max(1),
            space_seq: 0,
            space_time: 0,
            rtt_us8: 0,
            rtt_seq: 0,
            rtt_time: None,
            last_tsecr_ms: 0,
        }
    }

    /// tcp_full_space(): the window the whole buffer backs.
    pub fn buffer_window(&self) -> u64 {
        win_from_space(self.sk_rcvbuf)
    }

    /// tp->window_clamp: the largest window __tcp_select_window() offers.
    pub fn window_clamp(&self) -> u64 {
        self.window_clamp
    }

    pub fn sk_rcvbuf(&self) -> u64 {
        self.sk_rcvbuf
    }

    /// rcv_rtt_est.rtt_us, eight times the receiver's RTT in us (0: none).
    pub fn rtt_us8(&self) -> u64 {
        self.rtt_us8
    }

    pub fn space(&self) -> u64 {
        self.space
    }

    /// tcp_rcv_rtt_update() as Linux 6.16+ has it: a sample below the
    /// estimate (or the first) is taken at once; a larger window-based
    /// one (`win_dep`) is ignored, and a larger timestamp one is averaged
    /// in with gain 1/8 only while the application has read everything
    /// (`queue_empty`: rcv_nxt == copied_seq), since unread data would
    /// make the receiver time its own application.
    fn rtt_update(&mut self, sample_us: u64, win_dep: bool, queue_empty: bool) {
        let m = sample_us << 3;
        if self.rtt_us8 == 0 || m < self.rtt_us8 {
            self.rtt_us8 = m;
        } else if !win_dep && queue_empty {
            self.rtt_us8 = self.rtt_us8 - (self.rtt_us8 >> 3) + sample_us;
        }
    }

    /// tcp_rcv_rtt_measure_ts(): a segment of `len` bytes arrived at
    /// `now` echoing `ts_ecr` (the engine's TSval of one of our ACKs, 0:
    /// none). Once per distinct echo, and only from a segment of at least
    /// rcv_mss bytes (here the MSS, what tcp_measure_rcv_mss() settles
    /// on), the RTT is the timestamp clock's milliseconds since that ACK;
    /// a zero difference is no sample (tcp_rtt_tsopt_us() with
    /// min_delta 0, Linux 6.16+).
    pub fn on_timestamp(&mut self, now: Time, len: u32, ts_ecr: Time, queue_empty: bool) {
        // A sender that has seen no ACK echoes nothing (the engine's 0);
        // the kernel's sender always echoes once the handshake is done.
        if ts_ecr == 0 {
            return;
        }
        let tsecr = ms(ts_ecr);
        if tsecr == self.last_tsecr_ms {
            return;
        }
        self.last_tsecr_ms = tsecr;
        if u64::from(len) >= self.advmss {
            let delta = ms(now).saturating_sub(tsecr);
            if delta > 0 {
                self.rtt_update(delta * 1_000, false, queue_empty);
            }
        }
    }

    /// tcp_rcv_rtt_measure(): in-order data moved rcv_nxt at `now`. A
    /// measurement runs from when rcv_nxt stood one advertised window
    /// (`rcv_wnd`) earlier to when it passes that point: the time to
    /// receive one window, an RTT when the sender is window-limited and
    /// an overestimate otherwise, so only a smaller sample is taken.
    pub fn on_in_order(&mut self, now: Time, rcv_nxt: u64, rcv_wnd: u64, queue_empty: bool) {
        let now_us = us(now);
        if let Some(t) = self.rtt_time {
            if rcv_nxt < self.rtt_seq {
                return;
            }
            let delta = now_us.saturating_sub(t).max(1);
            self.rtt_update(delta, true, queue_empty);
        }
        self.rtt_seq = rcv_nxt.saturating_add(rcv_wnd);
        self.rtt_time = Some(now_us);
    }

    /// tcp_data_queue_ofo() ends with tcp_rcvbuf_grow(sk,
    /// rcvq_space.space) (Linux 6.16+, "tcp: adjust rcvbuf in presence of
    /// reorders"): out-of-order data reaching `ooo_span` bytes past
    /// rcv_nxt needs that much buffer on top of two measured RTTs' worth.
    pub fn on_out_of_order(&mut self, ooo_span: u64) {
        self.grow(self.space, ooo_span);
    }

    /// tcp_rcv_space_adjust(): the application has read up to `copied_seq`
    /// at `now`, in-order data reaching `rcv_nxt`. At most once per
    /// receiver RTT (none before the first sample), what was read since
    /// the last measurement, less what still waits in the queue (Linux
    /// 6.16+, "tcp: add receive queue awareness in
    /// tcp_rcv_space_adjust()"), is compared with the last RTT's; only
    /// more grows the buffer. Either way a new measurement starts.
    pub fn on_read(&mut self, now: Time, copied_seq: u64, rcv_nxt: u64, ooo_span: u64) {
        let now_us = us(now);
        let time = now_us.saturating_sub(self.space_time);
        if time < self.rtt_us8 >> 3 || self.rtt_us8 == 0 {
            return;
        }
        // Signed in the kernel (int copied, inq): unread data can make it
        // negative, which is simply not more than rcvq_space.space.
        let read = copied_seq.saturating_sub(self.space_seq);
        let inq = rcv_nxt.saturating_sub(copied_seq);
        let copied = read.saturating_sub(inq);
        if read > inq && copied > self.space {
            self.grow(copied, ooo_span);
        }
        self.space_seq = copied_seq;
        self.space_time = now_us;
    }

    /// tcp_rcvbuf_grow(sk, newval), Linux 6.18 (with "tcp: fix too slow
    /// tcp_rcvbuf_grow() action"): rcvq_space.space becomes `newval`; the
    /// window wanted is twice it ("DRS is always one RTT late"), plus
    /// twice as much again times the relative growth over the last RTT
    /// (so a sender doubling its rate finds room for the next round),
    /// plus the out-of-order span. sk_rcvbuf grows to the memory that
    /// window needs, at most tcp_rmem[2], and window_clamp follows it.
    /// The kernel's rcvwin is a u32 that would wrap beyond 4 GiB; here it
    /// saturates, which the tcp_rmem[2] cap makes the same below it.
    fn grow(&mut self, newval: u64, ooo_span: u64) {
        let oldval = self.space.max(1);
        self.space = newval;
        let mut rcvwin = newval.saturating_mul(2);
        let grow =
            u128::from(rcvwin) * u128::from(newval.saturating_sub(oldval)) / u128::from(oldval);
        let grow = u64::try_from(grow).unwrap_or(u64::MAX);
        rcvwin = rcvwin.saturating_add(grow.saturating_mul(2));
        rcvwin = rcvwin.saturating_add(ooo_span);
        let rcvbuf = space_from_win(rcvwin).min(self.rmem_max);
        if rcvbuf > self.sk_rcvbuf {
            self.sk_rcvbuf = rcvbuf;
            self.window_clamp = win_from_space(rcvbuf);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::MS;

    const MSS: u32 = 1448;
    /// The scenario's default rcvbuf, 16 MB of window: tcp_rmem[2] 32 MB.
    const MAX_WINDOW: u64 = 16_000_000;
    /// tcp_select_initial_window()'s 64 KiB at the default ratio, in
    /// whole segments: 45 * 1448.
    const FIRST_WINDOW: u64 = 65_160;

    #[test]
    fn init_buffer_space_reserves_one_segment_and_expects_ten() {
        let d = Drs::new(MAX_WINDOW, MSS, FIRST_WINDOW);
        // sk_rcvbuf = tcp_rmem[1] = 131072; tcp_full_space() =
        // 131072 * 128 >> 8 = 65536; 65536 > 2 * 1448, so window_clamp =
        // max(65536 - 1448, 2896) = 64088.
        assert_eq!(d.sk_rcvbuf(), 131_072);
        assert_eq!(d.buffer_window(), 65_536);
        assert_eq!(d.window_clamp(), 64_088);
        // space = min3(rcv_ssthresh = min(65160, 64088) = 64088, rcv_wnd =
        // 65160, 10 * 1448 = 14480) = 14480.
        assert_eq!(d.space(), 14_480);
        // tcp_rmem[2] = (16000000 << 8) / 128 = 32000000 at this fixed
        // ratio (`losslab linux` sets 256/160 x rcvbuf on 6.6+ kernels,
        // whose measured ratio is 160: the same largest window).
        assert_eq!(d.rmem_max, 32_000_000);
        // A buffer below tcp_rmem[1]: rcvbuf 4000 B of window, tcp_rmem[2]
        // = 8000; sk_rcvbuf = 8000, full space 4000 > 2896, clamp =
        // max(4000 - 1448, 2896) = 2896; space = min(4000, 2896, 14480).
        let small = Drs::new(4_000, MSS, 4_000);
        assert_eq!(
            (small.sk_rcvbuf(), small.window_clamp(), small.space()),
            (8_000, 2_896, 2_896)
        );
    }

    #[test]
    fn one_adjust_step_from_14480_with_40000_read() {
        let mut d = Drs::new(MAX_WINDOW, MSS, FIRST_WINDOW);
        // A receiver RTT of 100 ms: rtt_us = 100000 << 3 = 800000.
        d.on_in_order(0, 0, 65_160, true);
        d.on_in_order(100 * MS, 65_160, 65_160, true);
        assert_eq!(d.rtt_us8(), 800_000);
        // 99 ms after the measurement began: time 99000 us < 800000 >> 3
        // = 100000, nothing happens, not even a new measurement.
        d.on_read(99 * MS, 40_000, 40_000, 0);
        assert_eq!((d.space(), d.space_time), (14_480, 0));
        // At 100 ms, 40000 B read, none queued: copied = 40000 - 0 -
        // (40000 - 40000) = 40000 > 14480, so tcp_rcvbuf_grow(40000):
        //   rcvwin = 40000 << 1 = 80000
        //   grow   = 80000 * (40000 - 14480) / 14480
        //          = 2041600000 / 14480 = 140994 (140994.47 truncated)
        //   rcvwin = 80000 + (140994 << 1) = 361988
        //   rcvbuf = min((361988 << 8) / 128, 32000000) = 723976
        //   723976 > 131072: sk_rcvbuf = 723976,
        //   window_clamp = 723976 * 128 >> 8 = 361988.
        d.on_read(100 * MS, 40_000, 40_000, 0);
        assert_eq!(d.space(), 40_000);
        assert_eq!(d.sk_rcvbuf(), 723_976);
        assert_eq!(d.window_clamp(), 361_988);
        assert_eq!(d.buffer_window(), 361_988);
        assert_eq!((d.space_seq, d.space_time), (40_000, 100_000));
        // The next RTT reads only 30000 more: not above 40000, so no
        // growth, but the measurement restarts (rcvq_space.seq = 70000).
        d.on_read(200 * MS, 70_000, 70_000, 0);
        assert_eq!((d.space(), d.sk_rcvbuf()), (40_000, 723_976));
        assert_eq!(d.space_seq, 70_000);
    }

    #[test]
    fn unread_data_counts_against_the_growth_and_the_cap_holds() {
        let mut d = Drs::new(100_000, MSS, FIRST_WINDOW);
        // tcp_rmem[2] = (100000 << 8) / 128 = 200000.
        d.on_in_order(0, 0, 65_160, true);
        d.on_in_order(50 * MS, 65_160, 65_160, true);
        // Read 30000 of 50000 received: copied = 30000 - 20000 = 10000,
        // not above 14480: no growth.
        d.on_read(50 * MS, 30_000, 50_000, 0);
        assert_eq!((d.space(), d.sk_rcvbuf()), (14_480, 131_072));
        // Next RTT: read to 90000 of 90000: copied = 60000 - 0 > 14480.
        // rcvwin = 120000 + 2 * (120000 * 45520 / 14480 = 377237) =
        // 874474, plus 5000 of out-of-order span = 879474; (879474 << 8)
        // / 128 = 1758948, capped at 200000; window_clamp = 100000.
        d.on_read(100 * MS, 90_000, 90_000, 5_000);
        assert_eq!(
            (d.space(), d.sk_rcvbuf(), d.window_clamp()),
            (60_000, 200_000, 100_000)
        );
    }

    #[test]
    fn out_of_order_data_grows_the_buffer_by_its_span() {
        let mut d = Drs::new(MAX_WINDOW, MSS, FIRST_WINDOW);
        // tcp_rcvbuf_grow(space = 14480) with 100000 B of span: rcvwin =
        // 28960 + 0 + 100000 = 128960; (128960 << 8) / 128 = 257920 >
        // 131072: window_clamp = 128960. space stays 14480.
        d.on_out_of_order(100_000);
        assert_eq!(
            (d.sk_rcvbuf(), d.window_clamp(), d.space()),
            (257_920, 128_960, 14_480)
        );
        // A smaller span wants 28960 + 1000 = 29960, buffer 59920: no
        // change (the buffer never shrinks).
        d.on_out_of_order(1_000);
        assert_eq!(d.sk_rcvbuf(), 257_920);
    }

    #[test]
    fn rtt_estimate_latches_lower_samples_and_smooths_higher_timestamp_ones() {
        let mut d = Drs::new(MAX_WINDOW, MSS, FIRST_WINDOW);
        // No echo yet (0 ms equals the initial last_tsecr): nothing.
        d.on_timestamp(100 * MS, MSS, 0, true);
        assert_eq!(d.rtt_us8(), 0);
        // Echo of an ACK sent at 50.3 ms (50 on the ms clock), seen at
        // 150.9 ms (150): 100 ms, rtt_us = 100000 << 3 = 800000.
        d.on_timestamp(150_900_000, MSS, 50_300_000, true);
        assert_eq!(d.rtt_us8(), 800_000);
        // The same echo again: skipped even with another RTT.
        d.on_timestamp(300 * MS, MSS, 50_300_000, true);
        assert_eq!(d.rtt_us8(), 800_000);
        // A short segment: its echo is recorded but not sampled.
        d.on_timestamp(300 * MS, 100, 60 * MS, true);
        assert_eq!(d.rtt_us8(), 800_000);
        // 120 ms with data still unread: skipped (Linux 6.16+).
        d.on_timestamp(190 * MS, MSS, 70 * MS, false);
        assert_eq!(d.rtt_us8(), 800_000);
        // 120 ms, queue empty: 800000 - (800000 >> 3) + 120000 = 820000.
        d.on_timestamp(200 * MS, MSS, 80 * MS, true);
        assert_eq!(d.rtt_us8(), 820_000);
        // 90 ms: lower, latched at once: 90000 << 3 = 720000.
        d.on_timestamp(200 * MS, MSS, 110 * MS, true);
        assert_eq!(d.rtt_us8(), 720_000);
        // Same millisecond: delta 0 is no sample.
        d.on_timestamp(210_500_000, MSS, 210_100_000, true);
        assert_eq!(d.rtt_us8(), 720_000);
        // A window-based sample above the estimate is ignored; one below
        // is taken: 50 ms -> 400000.
        d.on_in_order(1_000 * MS, 0, 10_000, true);
        d.on_in_order(1_200 * MS, 10_000, 10_000, true);
        assert_eq!(d.rtt_us8(), 720_000);
        d.on_in_order(1_250 * MS, 20_000, 10_000, true);
        assert_eq!(d.rtt_us8(), 400_000);
        // rcv_nxt short of rtt_seq (20000 + 10000): no sample, no restart.
        d.on_in_order(1_260 * MS, 29_999, 10_000, true);
        assert_eq!((d.rtt_us8(), d.rtt_seq), (400_000, 30_000));
    }

    #[test]
    fn no_growth_before_the_first_rtt_sample() {
        let mut d = Drs::new(MAX_WINDOW, MSS, FIRST_WINDOW);
        d.on_read(500 * MS, 1_000_000, 1_000_000, 0);
        assert_eq!(
            (d.space(), d.sk_rcvbuf(), d.space_seq),
            (14_480, 131_072, 0)
        );
    }
}
