//! Why a sender retransmitted data its receiver already held (OR3 paper
//! section III-B: SACK reports lost with ACKs). The simulator sees both
//! ends: for each flow it keeps what the ACKs that reached the sender
//! reported and what the ACKs the reverse path dropped reported, and
//! judges each retransmission at the moment it is sent.

use losslab_core::seqset::SeqSet;
use losslab_core::wire::{Range, SackBlocks};
use losslab_core::{Ack, Receiver, Segment};

/// Bytes reported by a set of ACKs: below the highest cumulative ACK, or
/// inside one of their SACK blocks (DSACK blocks included: they too tell
/// the sender the receiver holds those bytes).
///
/// Only a spurious retransmission asks (`covers`), a few times a run, while
/// every ACK adds. So `add` only notes the new blocks in `pending` and
/// `settle` merges them into `blocks` when asked, or when `PENDING` fill:
/// inserting each ACK's blocks at once into the runs was 2.5% of the
/// modern stack's instructions at 1 Gbit/s (issue 33). The set answers as
/// eagerly kept: what it holds above the cumulative ACK is the union of
/// every block's part above it, whenever that part was added.
#[derive(Clone, Debug, Default)]
struct Reported {
    cum: u64,
    blocks: SeqSet,
    /// Blocks noted since the last `settle`, at most `PENDING`. A block
    /// growing at its top from one ACK to the next (the newest, RFC 2018
    /// section 4) grows its entry here instead of adding one.
    pending: Vec<Range>,
    /// The previous ACK's blocks, each of them (above `cum`) already in
    /// `blocks` or `pending`. A SACK receiver repeats most blocks from one
    /// ACK to the next (RFC 2018 section 4), and inserting a held range
    /// again, a search through the runs, was 8% of a 3%-loss OR3 run's
    /// instructions (issue 33).
    last: SackBlocks,
}

/// Blocks `Reported` notes before merging them: bounds its memory. Most
/// ACKs only grow the newest entry; a new one comes with a new block (the
/// 1 Gbit/s modern case, 8 s: 15,229 entries merged over 438,794 ACKs).
const PENDING: usize = if cfg!(test) { 4 } else { 64 };

impl Reported {
    fn add(&mut self, ack: &Ack) {
        self.cum = self.cum.max(ack.ack);
        for b in ack.sack.as_slice() {
            if b.end > self.cum && !self.last.as_slice().contains(b) {
                match self.pending.last_mut() {
                    Some(top) if top.start == b.start => top.end = top.end.max(b.end),
                    _ => {
                        if self.pending.len() == PENDING {
                            self.settle();
                        }
                        self.pending.push(*b);
                    }
                }
            }
        }
        self.last = ack.sack;
    }

    /// Merges `pending` into `blocks` and forgets what lies below `cum`.
    fn settle(&mut self) {
        for r in self.pending.drain(..) {
            if r.end > self.cum {
                self.blocks.insert(r.start.max(self.cum), r.end);
            }
        }
        if !self.blocks.is_empty() {
            self.blocks.remove_below(self.cum);
        }
    }

    fn forget_below(&mut self, v: u64) {
        if v <= self.cum {
            // Nothing `covers` reads: it asks above `cum` only.
            return;
        }
        // Blocks added after this must not bring back what it forgets,
        // but may cover it again, as a new report: settle first.
        if !self.pending.is_empty() {
            self.settle();
        }
        if !self.last.as_slice().is_empty() {
            // Values above `cum` go: a repeated block may no longer be held.
            self.last = SackBlocks::new();
        }
        if !self.blocks.is_empty() {
            self.blocks.remove_below(v);
        }
    }

    fn covers(&mut self, start: u64, end: u64) -> bool {
        if end <= self.cum {
            return true;
        }
        self.settle();
        self.blocks.covers(start.max(self.cum), end)
    }
}

/// One flow's ACK reports and the counts they explain.
#[derive(Clone, Debug, Default)]
pub(crate) struct AckReports {
    delivered: Reported,
    dropped: Reported,
    /// Whether `dropped` was ever added to: until then it has nothing to
    /// forget (most runs drop no ACK).
    any_dropped: bool,
    /// Retransmissions of held data that some dropped ACK had reported
    /// and no delivered ACK had.
    pub after_ack_loss: u64,
    /// Retransmissions of held data no ACK had reported yet, neither
    /// delivered nor dropped (the block limit left it out, or the reports
    /// were still on their way).
    pub unreported: u64,
}

impl AckReports {
    /// An ACK of the flow reached its sender.
    pub fn on_delivered(&mut self, ack: &Ack) {
        self.delivered.add(ack);
        // Below what the sender knows, dropped reports explain nothing.
        if self.any_dropped {
            self.dropped.forget_below(self.delivered.cum);
        }
    }

    /// The reverse path dropped an ACK of the flow.
    pub fn on_dropped(&mut self, ack: &Ack) {
        self.any_dropped = true;
        self.dropped.add(ack);
        self.dropped.forget_below(self.delivered.cum);
    }

    /// The sender transmits `seg` again now, `rx` being the receiver as it
    /// is at this moment. A retransmission of data the sender had been
    /// told of (a reneging, or a timeout's clearing of its SACK
    /// information) is counted in neither.
    // Out of line: the modern-stack benchmark (m100) seldom or never runs
    // it, and inlined it spread the hot path's code over more cache lines;
    // where a run takes it per packet, it adds a call (issue 33,
    // docs/BENCHMARKS.md).
    #[inline(never)]
    pub fn on_retransmission(&mut self, seg: &Segment, rx: &Receiver) {
        let (start, end) = (seg.seq, seg.end());
        if !rx.holds(start, end) || self.delivered.covers(start, end) {
            return;
        }
        if self.dropped.covers(start, end) {
            self.after_ack_loss += 1;
        } else {
            self.unreported += 1;
        }
    }
}

/// Which data packets the split counts: retransmissions of payload. The
/// one place to leave out extra copies of a segment (OR3's replicas), so
/// that each retransmission counts once.
pub(crate) fn counts_as_retransmission(seg: &Segment) -> bool {
    seg.tx_count > 1 && !seg.syn && seg.len > 0 && !seg.replica
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What `Reported` stands for, kept the slow way: every block of every
    /// ACK, and the forgetting, on a plain list of values.
    #[derive(Default)]
    struct Naive {
        cum: u64,
        held: std::collections::BTreeSet<u64>,
    }

    impl Naive {
        fn add(&mut self, ack: &Ack) {
            self.cum = self.cum.max(ack.ack);
            for b in ack.sack.as_slice() {
                self.held.extend(b.start.max(self.cum)..b.end);
            }
            self.forget_below(self.cum);
        }
        fn forget_below(&mut self, v: u64) {
            self.held = self.held.split_off(&v);
        }
        fn covers(&self, start: u64, end: u64) -> bool {
            end <= self.cum || (start.max(self.cum)..end).all(|x| self.held.contains(&x))
        }
    }

    fn ack(cum: u64, blocks: &[(u64, u64)]) -> Ack {
        let mut sack = SackBlocks::new();
        for &(s, len) in blocks {
            sack.push(Range::new(s, s + len));
        }
        Ack {
            ack: cum,
            sack,
            ..Ack::default()
        }
    }

    proptest! {
        /// Skipping the blocks the previous ACK carried, growing the newest
        /// block in place and merging late answer every question as
        /// inserting each block at once would, also after a `forget_below`
        /// above the set's own cumulative ACK (the dropped reports forget
        /// below the delivered ones'). Questions come at some steps only,
        /// so that blocks wait to be merged, and `PENDING` is 4 here.
        #[test]
        fn repeated_blocks_change_nothing(
            steps in proptest::collection::vec(
                (
                    0u64..60,
                    proptest::collection::vec((0u64..80, 1u64..12), 0..4),
                    0u64..4,
                    proptest::bool::weighted(0.3),
                ),
                1..60,
            ),
            queries in proptest::collection::vec((0u64..90, 1u64..10), 1..20),
        ) {
            let (mut r, mut n) = (Reported::default(), Naive::default());
            let mut prev: Option<Ack> = None;
            let last = steps.len() - 1;
            for (i, (cum, blocks, kind, ask)) in steps.into_iter().enumerate() {
                let a = match (kind, prev) {
                    // The previous ACK again, or with its cumulative ACK
                    // moved (after a forgetting, for kind 2).
                    (0 | 2, Some(p)) => Ack { ack: p.ack.max(cum / 2), ..p },
                    // The previous ACK with its first block grown at the
                    // top, as the newest block grows from ACK to ACK.
                    (3, Some(p)) if !p.sack.as_slice().is_empty() => {
                        let mut sack = SackBlocks::new();
                        for (k, b) in p.sack.as_slice().iter().enumerate() {
                            let grow = if k == 0 { 1 + cum % 7 } else { 0 };
                            sack.push(Range::new(b.start, b.end + grow));
                        }
                        Ack { sack, ..p }
                    }
                    _ => ack(cum, &blocks),
                };
                if kind == 2 {
                    let v = a.ack + cum / 4;
                    r.forget_below(v);
                    n.forget_below(v);
                }
                r.add(&a);
                n.add(&a);
                prev = Some(a);
                if ask || i == last {
                    for &(s, len) in &queries {
                        prop_assert_eq!(r.covers(s, s + len), n.covers(s, s + len), "[{}, {})", s, s + len);
                    }
                }
            }
        }
    }
}
