//! The application's side: the send buffer (sndbuf.rs), writes, and how
//! much new data the peer's window and the buffer allow.

use crate::sndbuf::FreedAck;
use crate::time::Time;

use super::Sender;

impl Sender {
    /// What the send buffer lets the application have written beyond
    /// snd_una (None: no limit).
    pub(super) fn sndbuf_cap(&self) -> Option<u64> {
        match &self.sndbuf {
            Some(b) => Some(b.cap(self.snd_una)),
            None => self.cfg.sndbuf,
        }
    }

    /// The application writes what it has, as far as the send buffer
    /// allows, and (Linux model) sleeps if it wanted more.
    pub(super) fn app_write(&mut self, now: Time) {
        if let Some(b) = &mut self.sndbuf {
            b.refill(self.snd_una, now);
        }
        let cap = self.sndbuf_cap();
        self.app.advance(now, self.snd_una, cap);
        if let Some(b) = &mut self.sndbuf {
            b.after_write(self.app.wants_more());
        }
    }

    /// The ACK's last step: the send buffer frees what it acknowledged
    /// (and may grow and wake the writer), then the application writes.
    pub(super) fn application(&mut self, now: Time, cum_advanced: bool) {
        if cum_advanced && self.sndbuf.is_some() {
            self.sndbuf_on_ack(now);
        }
        self.app_write(now);
    }

    /// The send buffer frees what the ACK acknowledged (mobile paper
    /// section VI's growth).
    // Out of line: only a send buffer's runs come here, and inlined it
    // sat in every run's per-ACK path (issue 33, docs/BENCHMARKS.md).
    #[inline(never)]
    fn sndbuf_on_ack(&mut self, now: Time) {
        if let Some(b) = &mut self.sndbuf {
            let written = self
                .app
                .written_end()
                .unwrap_or(self.snd_una + b.cap(self.snd_una));
            b.on_ack_freed(FreedAck {
                now,
                snd_una: self.snd_una,
                written,
                in_flight: self.board.pipe(),
                cwnd: self.win.cwnd,
                reordering: u64::from(self.reorder.degree.max(self.cfg.dupthresh)),
                mss: self.cfg.mss,
                init_cwnd: self.cfg.init_cwnd,
            });
        }
    }

    /// The right edge new data may reach: the peer's window, extended
    /// during recovery by the recovery algorithm (opportunistic
    /// retransmission).
    pub(super) fn peer_window_right(&self) -> u64 {
        let ext = self.alg.recovery.awnd_extension(&self.awnd_ctx());
        self.snd_una + self.peer.rwnd + ext * u64::from(self.cfg.mss)
    }

    /// Length of the next new segment the application and the peer's
    /// window allow (0: none).
    pub(super) fn new_data_len(&self) -> u32 {
        let avail = self
            .app
            .available(self.snd_nxt, self.snd_una, self.sndbuf_cap());
        if avail == 0 {
            return 0;
        }
        let want = avail.min(self.cfg.mss as u64);
        // The extension only adds to the window, so when the advertised
        // window alone fits the segment it is not asked for: it walks the
        // scoreboard (opportunistic.rs), and this runs several times an
        // ACK (issue 33: 9% of an OR3 run's instructions).
        if (self.snd_una + self.peer.rwnd).saturating_sub(self.snd_nxt) >= want {
            return want as u32;
        }
        let right = self.peer_window_right();
        let usable = right.saturating_sub(self.snd_nxt);
        if usable >= want {
            return want as u32;
        }
        // RFC 1122 4.2.3.4 (sender SWS avoidance): a shorter segment only
        // when the usable window is at least half the largest window the
        // peer has offered, so a small receive buffer still moves data.
        if usable > 0 && usable >= self.peer.max_rwnd / 2 {
            return usable as u32;
        }
        0
    }
}
