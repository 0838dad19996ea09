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
//!
//! Sizes are payload bytes: Linux counts each segment's truesize (payload
//! plus headers and sk_buff, about 1.5 to 2 times a 1448-byte payload) in
//! both the buffer size and its occupancy, so the ratios above are the
//! same; only tcp_wmem's limits, given here in payload bytes, differ from
//! the sysctl values by that factor. The paper models it the same way
//! (sndbuf = 2 CW).

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
}

impl Default for LinuxSndbuf {
    /// Linux 3.10's tcp_wmem, 4096 16384 4194304.
    fn default() -> Self {
        LinuxSndbuf {
            grow_factor: 2.0,
            wmem_min: 4096,
            wmem_default: 16384,
            wmem_max: 4 << 20,
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
        }
    }

    /// Before the application writes: a writer that is awake may fill the
    /// buffer.
    pub fn refill(&mut self, snd_una: u64) {
        if !self.asleep {
            self.fill_to = self.fill_to.max(snd_una + self.size);
        }
    }

    /// After the application wrote: it sleeps if it wanted more than fit.
    pub fn after_write(&mut self, wants_more: bool) {
        self.asleep = wants_more;
    }
}

/// What `on_ack_freed` reads.
#[derive(Clone, Copy, Debug)]
pub struct FreedAck {
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
        b.refill(6_000);
        assert_eq!(b.cap(6_000), 14_000);
        // 7,000 acknowledged: free 7,000 >= 6,667: wakes and fills.
        b.on_ack_freed(freed(7_000, 20_000, 13, 13));
        assert!(!b.writer_asleep());
        b.refill(7_000);
        assert_eq!(b.cap(7_000), 20_000);
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
