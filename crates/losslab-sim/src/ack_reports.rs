//! Why a sender retransmitted data its receiver already held (OR3 paper
//! section III-B: SACK reports lost with ACKs). The simulator sees both
//! ends: for each flow it keeps what the ACKs that reached the sender
//! reported and what the ACKs the reverse path dropped reported, and
//! judges each retransmission at the moment it is sent.

use losslab_core::seqset::SeqSet;
use losslab_core::{Ack, Receiver, Segment};

/// Bytes reported by a set of ACKs: below the highest cumulative ACK, or
/// inside one of their SACK blocks (DSACK blocks included: they too tell
/// the sender the receiver holds those bytes).
#[derive(Clone, Debug, Default)]
struct Reported {
    cum: u64,
    blocks: SeqSet,
}

impl Reported {
    fn add(&mut self, ack: &Ack) {
        self.cum = self.cum.max(ack.ack);
        for b in ack.sack.as_slice() {
            if b.end > self.cum {
                self.blocks.insert(b.start.max(self.cum), b.end);
            }
        }
        self.forget_below(self.cum);
    }

    fn forget_below(&mut self, v: u64) {
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
