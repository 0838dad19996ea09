//! Why a sender retransmitted data its receiver already held (OR3 paper
//! section III-B: SACK reports lost with ACKs). The simulator sees both
//! ends: for each flow it keeps what the ACKs that reached the sender
//! reported and what the ACKs the reverse path dropped reported, and
//! judges each retransmission at the moment it is sent.

use losslab_core::seqset::SeqSet;
use losslab_core::wire::SackBlocks;
use losslab_core::{Ack, Receiver, Segment};

/// Bytes reported by a set of ACKs: below the highest cumulative ACK, or
/// inside one of their SACK blocks (DSACK blocks included: they too tell
/// the sender the receiver holds those bytes).
#[derive(Clone, Debug, Default)]
struct Reported {
    cum: u64,
    blocks: SeqSet,
    /// The previous ACK's blocks, each of them (above `cum`) still in
    /// `blocks`. A SACK receiver repeats most blocks from one ACK to the
    /// next (RFC 2018 section 4), and inserting a held range again, a
    /// search through the runs, was 8% of a 3%-loss OR3 run's
    /// instructions (issue 33).
    last: SackBlocks,
}

impl Reported {
    fn add(&mut self, ack: &Ack) {
        self.cum = self.cum.max(ack.ack);
        for b in ack.sack.as_slice() {
            if b.end > self.cum && !self.last.as_slice().contains(b) {
                self.blocks.insert(b.start.max(self.cum), b.end);
            }
        }
        self.last = ack.sack;
        self.forget_below(self.cum);
    }

    fn forget_below(&mut self, v: u64) {
        if v > self.cum && !self.last.as_slice().is_empty() {
            // Values above `cum` go: a repeated block may no longer be held.
            self.last = SackBlocks::new();
        }
        if !self.blocks.is_empty() {
            self.blocks.remove_below(v);
        }
    }

    fn covers(&self, start: u64, end: u64) -> bool {
        end <= self.cum || self.blocks.covers(start.max(self.cum), end)
    }
}

/// One flow's ACK reports and the counts they explain.
#[derive(Clone, Debug, Default)]
pub(crate) struct AckReports {
    delivered: Reported,
    dropped: Reported,
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
        self.dropped.forget_below(self.delivered.cum);
    }

    /// The reverse path dropped an ACK of the flow.
    pub fn on_dropped(&mut self, ack: &Ack) {
        self.dropped.add(ack);
        self.dropped.forget_below(self.delivered.cum);
    }

    /// The sender transmits `seg` again now, `rx` being the receiver as it
    /// is at this moment. A retransmission of data the sender had been
    /// told of (a reneging, or a timeout's clearing of its SACK
    /// information) is counted in neither.
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
    use losslab_core::wire::Range;
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
        /// Skipping the blocks the previous ACK carried answers every
        /// question as inserting them again would, also after a
        /// `forget_below` above the set's own cumulative ACK (the dropped
        /// reports forget below the delivered ones').
        #[test]
        fn repeated_blocks_change_nothing(
            steps in proptest::collection::vec(
                (0u64..60, proptest::collection::vec((0u64..80, 1u64..12), 0..4), 0u64..3),
                1..40,
            ),
            queries in proptest::collection::vec((0u64..90, 1u64..10), 1..20),
        ) {
            let (mut r, mut n) = (Reported::default(), Naive::default());
            let mut prev: Option<Ack> = None;
            for (cum, blocks, kind) in steps {
                let a = match (kind, prev) {
                    // The previous ACK again, or with its cumulative ACK
                    // moved (after a forgetting, for kind 2).
                    (0 | 2, Some(p)) => Ack { ack: p.ack.max(cum / 2), ..p },
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
                for &(s, len) in &queries {
                    prop_assert_eq!(r.covers(s, s + len), n.covers(s, s + len), "[{}, {})", s, s + len);
                }
            }
        }
    }
}
