//! OR3's opportunism and redundancy (recovery/or3.rs, redundancy.rs):
//! retransmissions beyond cwnd and the extra copies' own queue.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::event::Event;
use crate::time::Time;
use crate::wire::Segment;

use super::{Sender, State};

/// OR3's extra copies of retransmissions, in a queue of their own.
#[derive(Debug, Default)]
pub(super) struct Replicas {
    /// Waiting to leave: (due time, order queued, segment).
    pub(super) queue: BinaryHeap<Reverse<(Time, u64, u64)>>,
    pub(super) queued: u64,
    /// Scratch for `Redundancy::copies`.
    pub(super) delays: Vec<u32>,
}

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
        self.replicas.delays.clear();
        self.alg.redundancy.copies(i, &mut self.replicas.delays);
        if self.replicas.delays.is_empty() {
            return;
        }
        let cycle = self.sending_cycle();
        for &d in &self.replicas.delays {
            self.replicas.queued += 1;
            self.replicas.queue.push(Reverse((
                now + u64::from(d) * cycle,
                self.replicas.queued,
                seg_no,
            )));
        }
    }

    /// The next extra copy due by `now` whose retransmission is still
    /// outstanding (one SACKed, acknowledged or declared lost since needs
    /// no copy). Copies ignore cwnd and the peer's window (they carry data
    /// already inside it); the pacer spaces them.
    #[inline]
    pub(super) fn next_replica(&mut self, now: Time) -> Option<Segment> {
        match self.replicas.queue.peek() {
            Some(&Reverse((due, _, _))) if due <= now => self.send_replica(now),
            _ => None,
        }
    }

    // Out of line: copies are OR3's alone, and rare even there (issue 33:
    // the per-send path's code on fewer cache lines).
    #[inline(never)]
    fn send_replica(&mut self, now: Time) -> Option<Segment> {
        while let Some(&Reverse((due, _, seg_no))) = self.replicas.queue.peek() {
            if due > now {
                return None;
            }
            self.replicas.queue.pop();
            let Some(s) = self.board.on_replica(seg_no, now, self.tx_order + 1) else {
                continue;
            };
            self.tx_order += 1;
            self.alg.detect.on_sent(seg_no, self.tx_order);
            self.last_send = now;
            self.measure.stats.segments_sent += 1;
            self.measure.stats.redundant_copies += 1;
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
