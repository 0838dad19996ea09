//! OR3's opportunism and redundancy (recovery/or3.rs, redundancy.rs):
//! retransmissions beyond cwnd and the extra copies' own queue.

use std::cmp::Reverse;

use crate::event::Event;
use crate::time::Time;
use crate::wire::Segment;

use super::{Sender, State};

impl Sender {
    /// OR3's opportunism: the lost segment that may be retransmitted in
    /// recovery although pipe >= cwnd, if any.
    pub(super) fn lost_beyond_cwnd(&self) -> Option<u64> {
        if self.state == State::Open || !self.alg.recovery.retransmit_beyond_cwnd() {
            return None;
        }
        self.board.next_to_retransmit()
    }

    /// One sending cycle: the time one segment takes at the pacing rate
    /// (Linux's formula from cwnd and srtt for an unpaced flow; nothing
    /// before the first RTT sample).
    pub(super) fn sending_cycle(&self) -> Time {
        match self.pacing_rate() {
            Some(r) if r > 0 => u64::from(self.cfg.mss) * 8 * crate::time::SEC / r,
            _ => 0,
        }
    }

    /// The `i`-th retransmission of `seg_no` just left: the redundancy
    /// policy says which extra copies follow, and when.
    pub(super) fn queue_replicas(&mut self, now: Time, seg_no: u64, i: u32) {
        self.replica_delays.clear();
        self.alg.redundancy.copies(i, &mut self.replica_delays);
        if self.replica_delays.is_empty() {
            return;
        }
        let cycle = self.sending_cycle();
        for &d in &self.replica_delays {
            self.replicas_queued += 1;
            self.replicas.push(Reverse((
                now + u64::from(d) * cycle,
                self.replicas_queued,
                seg_no,
            )));
        }
    }

    /// The next extra copy due by `now` whose retransmission is still
    /// outstanding (one SACKed, acknowledged or declared lost since needs
    /// no copy). Copies ignore cwnd and the peer's window (they carry data
    /// already inside it); the pacer spaces them.
    pub(super) fn next_replica(&mut self, now: Time) -> Option<Segment> {
        while let Some(&Reverse((due, _, seg_no))) = self.replicas.peek() {
            if due > now {
                return None;
            }
            self.replicas.pop();
            let Some(s) = self.board.on_replica(seg_no, now, self.tx_order + 1) else {
                continue;
            };
            self.tx_order += 1;
            self.alg.detect.on_sent(seg_no, self.tx_order);
            self.last_send = now;
            self.stats.segments_sent += 1;
            self.stats.redundant_copies += 1;
            self.events.emit(now, || Event::Sent {
                seq: s.seq,
                len: s.len,
                seg_no,
                tx_count: s.tx_count,
            });
            return Some(self.resent(now, seg_no, &s, true));
        }
        None
    }
}
