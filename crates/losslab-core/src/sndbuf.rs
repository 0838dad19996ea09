//! Linux's send buffer, as the mobile opportunistic-retransmission paper
//! describes it (section V.A-B) and Linux implements it.
//!
//! - The buffer holds every byte written and not yet cumulatively
//!   acknowledged. Its size starts at tcp_wmem's default and grows with
//!   cwnd: size = grow_factor x max(cwnd, reordering + 1, initial window)
//!   x MSS, capped at tcp_wmem's maximum (Linux tcp_sndbuf_expand(), in
//!   3.10 tcp_new_space(); grow factor 2 there, the `2 *` of
//!   `sndmem *= 2 * demanded`). It grows only on an ACK that freed data
//!   while the writer sleeps (tcp_check_space(): SOCK_QUEUE_SHRUNK and
//!   SOCK_NOSPACE) and only when the flow is not cwnd-limited
//!   (tcp_should_expand_sndbuf(): in-flight < cwnd). It never shrinks
//!   (no memory pressure is modelled).
//! - An application that writes as fast as it is allowed fills the buffer
//!   and sleeps; it is woken only when the free space reaches a third of
//!   the buffer (sk_stream_write_space(): free >= queued / 2), and then
//!   fills it again at once.
//! - The paper's fix (section V.C, Theorem 11) is a grow factor of 3.
//! - With `wake_delay` the woken writer is not instant: section V.A's
//!   tcp_sendmsg() sleeps on SOCK_NOSPACE, tcp_write_space() /
//!   sk_stream_write_space() wakes it, and the process must then be
//!   scheduled and copy its data in. A wake-up decided at t fills the
//!   buffer at t + wake_delay, to snd_una + size as they are then.
//!
//! Sizes are payload bytes: Linux counts each segment's truesize (payload
//! plus headers and sk_buff, about 1.5 to 2 times a 1448-byte payload) in
//! both the buffer size and its occupancy, so the ratios above are the
//! same; only tcp_wmem's limits, given here in payload bytes, differ from
//! the sysctl values by that factor. The paper models it the same way
//! (sndbuf = 2 CW).

use crate::time::Time;

/// The send-buffer model's parameters (scenario `sndbuf = { model =
/// "linux", ... }`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinuxSndbuf {
    /// sndbuf = grow_factor x cwnd x MSS (Linux: 2; the paper: 3).
    pub grow_factor: f64,
    /// tcp_wmem min, default, max, in payload bytes.
    pub wmem_min: u64,
    pub wmem_default: u64,
    pub wmem_max: u64,
    /// From the wake-up (free space a third of the buffer) until the
    /// writer has refilled the buffer; 0 refills at once.
    pub wake_delay: Time,
}

impl Default for LinuxSndbuf {
    /// Linux 3.10's tcp_wmem, 4096 16384 4194304.
    fn default() -> Self {
        LinuxSndbuf {
            grow_factor: 2.0,
            wmem_min: 4096,
            wmem_default: 16384,
            wmem_max: 4 << 20,
            wake_delay: 0,
        }
    }
}

/// The buffer's state.
#[derive(Clone, Debug)]
pub struct SendBuffer {
    cfg: LinuxSndbuf,
    size: u64,
    /// How far the application may have written (absolute byte): the end
    /// of the buffer when it last woke.
    fill_to: u64,
    /// The writer is asleep on a full buffer (SOCK_NOSPACE).
    asleep: bool,
    /// A writer woken but not yet run (`wake_delay`): when it refills.
    /// It is no longer asleep (sk_stream_write_space() cleared
    /// SOCK_NOSPACE, so ACKs until then neither grow the buffer nor wake
    /// it again), but it writes nothing before this time.
    wake_at: Option<Time>,
}

impl SendBuffer {
    /// At connection start (tcp_init_buffer_space(): the buffer is sized
    /// for the initial window at once).
    pub fn new(cfg: LinuxSndbuf, mss: u32, init_cwnd: u64) -> Self {
        let mut b = SendBuffer {
            cfg,
            size: cfg
                .wmem_default
                .clamp(cfg.wmem_min, cfg.wmem_max.max(cfg.wmem_min)),
            fill_to: 0,
            asleep: false,
            wake_at: None,
        };
        b.expand(init_cwnd, 0, mss, init_cwnd);
        b.fill_to = b.size;
        b
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    /// Bytes the application may have written beyond `snd_una` now.
    pub fn cap(&self, snd_una: u64) -> u64 {
        self.fill_to.saturating_sub(snd_una)
    }

    /// The writer is blocked on a full buffer.
    pub fn writer_asleep(&self) -> bool {
        self.asleep
    }

    /// When a woken writer refills the buffer, if it is waiting to run.
    pub fn wake_at(&self) -> Option<Time> {
        self.wake_at
    }

    fn expand(&mut self, cwnd: u64, reordering: u64, mss: u32, init_cwnd: u64) {
        let segs = cwnd.max(reordering + 1).max(init_cwnd);
        let want = (self.cfg.grow_factor * (segs * u64::from(mss)) as f64) as u64;
        let want = want.min(self.cfg.wmem_max);
        self.size = self.size.max(want);
    }

    /// An ACK advanced the cumulative ACK to `snd_una`; `written` is the
    /// end of what the application wrote, `in_flight` RFC 6675 pipe.
    pub fn on_ack_freed(&mut self, a: FreedAck) {
        if !self.asleep {
            return;
        }
        if a.in_flight < a.cwnd {
            self.expand(a.cwnd, a.reordering, a.mss, a.init_cwnd);
        }
        let queued = a.written.saturating_sub(a.snd_una);
        let free = self.size.saturating_sub(queued);
        if 3 * free >= self.size {
            self.asleep = false;
            if self.cfg.wake_delay > 0 {
                self.wake_at = Some(a.now.saturating_add(self.cfg.wake_delay));
            }
        }
    }

    /// Before the application writes at `now`: a writer that is awake, and
    /// has run since its wake-up, may fill the buffer.
    pub fn refill(&mut self, snd_una: u64, now: Time) {
        if self.asleep {
            return;
        }
        match self.wake_at {
            Some(t) if now < t => return,
            Some(_) => self.wake_at = None,
            None => {}
        }
        self.fill_to = self.fill_to.max(snd_una + self.size);
    }

    /// After the application wrote: it sleeps if it wanted more than fit.
    /// A writer still waiting to run wrote nothing and cannot go back to
    /// sleep before it has run.
    pub fn after_write(&mut self, wants_more: bool) {
        if self.wake_at.is_none() {
            self.asleep = wants_more;
        }
    }
}

/// What `on_ack_freed` reads.
#[derive(Clone, Copy, Debug)]
pub struct FreedAck {
    /// When the ACK arrived (a delayed wake-up runs from it).
    pub now: Time,
    pub snd_una: u64,
    pub written: u64,
    pub in_flight: u64,
    pub cwnd: u64,
    pub reordering: u64,
    pub mss: u32,
    pub init_cwnd: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn freed(snd_una: u64, written: u64, in_flight: u64, cwnd: u64) -> FreedAck {
        FreedAck {
            now: 0,
            snd_una,
            written,
            in_flight,
            cwnd,
            reordering: 3,
            mss: 1000,
            init_cwnd: 10,
        }
    }

    #[test]
    fn starts_at_twice_the_initial_window() {
        // 2 x 10 x 1000 = 20,000 > tcp_wmem default 16,384.
        let b = SendBuffer::new(LinuxSndbuf::default(), 1000, 10);
        assert_eq!(b.size(), 20_000);
        assert_eq!(b.cap(0), 20_000);
    }

    #[test]
    fn wakes_only_when_a_third_is_free() {
        let mut b = SendBuffer::new(LinuxSndbuf::default(), 1000, 10);
        b.after_write(true);
        // 20,000 written; 6,000 acknowledged: free 6,000 < 20,000 / 3.
        // cwnd-limited (in flight = cwnd), so no growth either.
        b.on_ack_freed(freed(6_000, 20_000, 14, 14));
        assert!(b.writer_asleep());
        b.refill(6_000, 0);
        assert_eq!(b.cap(6_000), 14_000);
        // 7,000 acknowledged: free 7,000 >= 6,667: wakes and fills.
        b.on_ack_freed(freed(7_000, 20_000, 13, 13));
        assert!(!b.writer_asleep());
        b.refill(7_000, 0);
        assert_eq!(b.cap(7_000), 20_000);
    }

    #[test]
    fn a_delayed_writer_fills_the_buffer_as_of_when_it_runs() {
        use crate::time::{MS, US};
        let cfg = LinuxSndbuf {
            wake_delay: MS,
            ..LinuxSndbuf::default()
        };
        let mut b = SendBuffer::new(cfg, 1000, 10);
        b.after_write(true);
        // At 10 ms, 7,000 of 20,000 acknowledged: free 7,000 >= 20,000 / 3,
        // so the writer is woken, to run at 11 ms.
        let at = |now, f: FreedAck| FreedAck { now, ..f };
        b.on_ack_freed(at(10 * MS, freed(7_000, 20_000, 13, 13)));
        assert!(!b.writer_asleep());
        assert_eq!(b.wake_at(), Some(11 * MS));
        // Until it runs it writes nothing and stays woken: the buffer still
        // ends at 20,000, and the application's wanting more does not put
        // it back to sleep.
        b.refill(7_000, 10 * MS);
        b.after_write(true);
        assert_eq!(b.cap(7_000), 13_000);
        // An ACK at 10.5 ms (9,000) that is not cwnd-limited would grow an
        // asleep writer's buffer to 2 x 30 x 1000; a woken one's no more
        // (SOCK_NOSPACE is clear).
        b.on_ack_freed(at(10 * MS + 500 * US, freed(9_000, 20_000, 5, 30)));
        assert_eq!(b.size(), 20_000);
        b.refill(9_000, 10 * MS + 500 * US);
        assert_eq!(b.cap(9_000), 11_000);
        // At 11 ms it runs, with snd_una 9,500: the buffer ends at 9,500 +
        // 20,000 = 29,500, and it may sleep again.
        b.refill(9_500, 11 * MS);
        assert_eq!((b.cap(9_500), b.wake_at()), (20_000, None));
        b.after_write(true);
        assert!(b.writer_asleep());
        // Without the delay the same wake-up fills at 10 ms, to 27,000.
        let mut now = SendBuffer::new(LinuxSndbuf::default(), 1000, 10);
        now.after_write(true);
        now.on_ack_freed(at(10 * MS, freed(7_000, 20_000, 13, 13)));
        assert_eq!(now.wake_at(), None);
        now.refill(7_000, 10 * MS);
        assert_eq!(now.cap(7_000), 20_000);
    }

    #[test]
    fn grows_with_cwnd_only_when_not_cwnd_limited() {
        let mut b = SendBuffer::new(LinuxSndbuf::default(), 1000, 10);
        b.after_write(true);
        b.on_ack_freed(freed(1_000, 20_000, 30, 30));
        assert_eq!(b.size(), 20_000);
        b.on_ack_freed(freed(2_000, 20_000, 29, 30));
        assert_eq!(b.size(), 60_000);
        let mut f3 = SendBuffer::new(
            LinuxSndbuf {
                grow_factor: 3.0,
                ..LinuxSndbuf::default()
            },
            1000,
            10,
        );
        f3.after_write(true);
        f3.on_ack_freed(freed(2_000, 30_000, 29, 30));
        assert_eq!(f3.size(), 90_000);
    }

    #[test]
    fn capped_at_wmem_max() {
        let mut b = SendBuffer::new(LinuxSndbuf::default(), 1000, 10);
        b.after_write(true);
        b.on_ack_freed(freed(1_000, 20_000, 10, 100_000));
        assert_eq!(b.size(), 4 << 20);
    }
}
