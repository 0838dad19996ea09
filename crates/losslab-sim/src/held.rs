//! Packets the path holds back (a flow's own access delay, reordering,
//! duplication) until they arrive, released in (arrival time, order held)
//! order: a tie in time goes to the packet held first, as the ordered map
//! keyed by (arrival, counter) that this replaces gave.
//!
//! Most of them are the packets of flows with their own delay: at one
//! constant delay, and held in the event loop's time order, a flow's
//! packets in one direction arrive in the order held. Each such *lane*
//! is then a FIFO, and only its head needs ordering against the others:
//! a heap of a few dozen 24-byte keys instead of a map node per packet
//! with the packet inside, moved on every insertion and removal: a
//! tail-loss `sec32` run (30+ flows, each with its own delay) takes 12%
//! fewer instructions in all. Packets that arrive out of their lane's
//! order (reordered ones) wait in a slab, each with its own key in that
//! heap.

use std::cmp::Reverse;
use std::collections::binary_heap::PeekMut;
use std::collections::{BinaryHeap, VecDeque};

use losslab_core::time::Time;

use crate::trace::Packet;

#[derive(Debug, Default)]
pub(crate) struct Held {
    /// Per lane, packets in (arrival, counter) order.
    lanes: Vec<VecDeque<(Time, u64, Packet)>>,
    /// Packets in no lane, by slot; `free` lists the slots not in use.
    slab: Vec<Packet>,
    free: Vec<u32>,
    /// (arrival, counter, tag) of every non-empty lane's head (tag: the
    /// lane) and of every slab packet (tag: lanes + its slot). The
    /// counter is unique, so the heap's order is total.
    heads: BinaryHeap<Reverse<(Time, u64, u32)>>,
    /// Packets held so far.
    seq: u64,
}

impl Held {
    pub(crate) fn new(lanes: usize) -> Self {
        Held {
            lanes: (0..lanes).map(|_| VecDeque::new()).collect(),
            ..Default::default()
        }
    }

    /// Holds `p` until `at`. `lane`: the FIFO it may join (None: it
    /// arrives out of order). A packet due before its lane's last one
    /// goes to the slab, so the order never depends on the caller's
    /// claim that the lane's arrivals do not decrease.
    pub(crate) fn push(&mut self, at: Time, lane: Option<usize>, p: Packet) {
        self.seq += 1;
        let seq = self.seq;
        if let Some(l) = lane {
            let line = &mut self.lanes[l];
            match line.back() {
                None => self.heads.push(Reverse((at, seq, l as u32))),
                Some(&(last, _, _)) if last <= at => {}
                Some(_) => return self.push_slab(at, seq, p),
            }
            line.push_back((at, seq, p));
            return;
        }
        self.push_slab(at, seq, p);
    }

    fn push_slab(&mut self, at: Time, seq: u64, p: Packet) {
        let slot = match self.free.pop() {
            Some(s) => {
                self.slab[s as usize] = p;
                s
            }
            None => {
                self.slab.push(p);
                (self.slab.len() - 1) as u32
            }
        };
        let tag = self.lanes.len() as u32 + slot;
        self.heads.push(Reverse((at, seq, tag)));
    }

    /// When the next packet arrives.
    #[inline]
    pub(crate) fn next_at(&self) -> Option<Time> {
        self.heads.peek().map(|Reverse((t, _, _))| *t)
    }

    /// The next packet to arrive.
    pub(crate) fn pop(&mut self) -> Option<Packet> {
        let mut head = self.heads.peek_mut()?;
        let tag = head.0 .2;
        let Some(slot) = (tag as usize).checked_sub(self.lanes.len()) else {
            let line = &mut self.lanes[tag as usize];
            let (_, _, p) = line.pop_front().expect("a head's lane holds it");
            match line.front() {
                // The lane's next packet takes its place among the heads.
                Some(&(t, n, _)) => *head = Reverse((t, n, tag)),
                None => {
                    PeekMut::pop(head);
                }
            }
            return Some(p);
        };
        PeekMut::pop(head);
        self.free.push(slot as u32);
        Some(self.slab[slot])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Body;
    use losslab_core::Ack;
    use std::collections::BTreeMap;

    /// A packet that names itself by `index`.
    fn packet(index: u64) -> Packet {
        Packet {
            flow: 0,
            index,
            wire_bytes: 52,
            body: Body::Ack(Ack::default()),
        }
    }

    fn drain(h: &mut Held) -> Vec<u64> {
        std::iter::from_fn(|| h.pop().map(|p| p.index)).collect()
    }

    #[test]
    fn ties_go_to_the_packet_held_first() {
        let mut h = Held::new(2);
        assert_eq!(h.next_at(), None);
        // Held in this order (counter in brackets): lane 1 at 10 [1];
        // lane 0 at 10 [2], 20 [3]; out of order at 10 [4], 5 [5]; lane 1
        // at 7 [6], before its last: it leaves before [1] all the same.
        h.push(10, Some(1), packet(1));
        h.push(10, Some(0), packet(2));
        h.push(20, Some(0), packet(3));
        h.push(10, None, packet(4));
        h.push(5, None, packet(5));
        h.push(7, Some(1), packet(6));
        assert_eq!(h.next_at(), Some(5));
        assert_eq!(drain(&mut h), [5, 6, 1, 2, 4, 3]);
        assert_eq!(h.next_at(), None);
    }

    proptest::proptest! {
        /// The lanes and the slab give the order of the ordered map they
        /// replaced, keyed by (arrival, counter), for any interleaving of
        /// holds and arrivals. A hold is in a lane or not, and due either
        /// a little after the last one held there (the usual case, with
        /// many equal times) or at any time: before the lane's last, or
        /// before the current head.
        #[test]
        fn held_leaves_in_the_maps_order(
            ops in proptest::collection::vec(
                (0u8..4, proptest::option::of(0usize..3), 0u64..12), 0..300),
        ) {
            let mut h = Held::new(3);
            let mut map = BTreeMap::new();
            let mut seq = 0u64;
            // The last arrival held per lane, and out of any lane.
            let mut last = [0u64; 4];
            for (k, &(op, lane, x)) in ops.iter().enumerate() {
                if op == 0 {
                    let want = map.pop_first().map(|(_, v)| v);
                    proptest::prop_assert_eq!(h.pop().map(|p| p.index), want);
                } else {
                    let l = lane.unwrap_or(3);
                    let at = if op == 1 { x } else { last[l] + x % 3 };
                    last[l] = at;
                    seq += 1;
                    map.insert((at, seq), k as u64);
                    h.push(at, lane, packet(k as u64));
                }
                proptest::prop_assert_eq!(h.next_at(), map.first_key_value().map(|(&(t, _), _)| t));
            }
            let rest: Vec<_> = std::iter::from_fn(|| map.pop_first().map(|(_, v)| v)).collect();
            proptest::prop_assert_eq!(drain(&mut h), rest);
        }
    }
}
