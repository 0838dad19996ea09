//! What crosses the network between a sender and a receiver.
//!
//! Sequence numbers are u64 byte offsets from the start of the flow; they
//! never wrap inside the engine. Only encoders at the wire edge (pcap, UDP)
//! reduce them to 32 bits.

use crate::time::Time;

/// Maximum SACK blocks an ACK can carry (RFC 2018 section 3: 4 without the
/// timestamps option, 3 with it; the receiver chooses its limit).
pub const MAX_SACK_BLOCKS: usize = 4;

/// A half-open byte range `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Range {
    pub start: u64,
    pub end: u64,
}

impl Range {
    pub fn new(start: u64, end: u64) -> Self {
        debug_assert!(start <= end);
        Range { start, end }
    }
    pub fn len(&self) -> u64 {
        self.end - self.start
    }
    pub fn is_empty(&self) -> bool {
        self.start >= self.end
    }
    pub fn contains_range(&self, other: &Range) -> bool {
        self.start <= other.start && other.end <= self.end
    }
}

/// SACK blocks in the order the receiver put them on the wire: most recent
/// first (RFC 2018 section 4), with a DSACK block first when present
/// (RFC 2883 section 4). Fixed capacity: no heap allocation per ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SackBlocks {
    blocks: [Range; MAX_SACK_BLOCKS],
    len: u8,
}

impl SackBlocks {
    pub const fn new() -> Self {
        SackBlocks {
            blocks: [Range { start: 0, end: 0 }; MAX_SACK_BLOCKS],
            len: 0,
        }
    }
    /// Appends a block; returns false (and drops it) when full.
    pub fn push(&mut self, r: Range) -> bool {
        if (self.len as usize) < MAX_SACK_BLOCKS {
            self.blocks[self.len as usize] = r;
            self.len += 1;
            true
        } else {
            false
        }
    }
    pub fn as_slice(&self) -> &[Range] {
        &self.blocks[..self.len as usize]
    }
    pub fn len(&self) -> usize {
        self.len as usize
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn clear(&mut self) {
        self.len = 0;
    }
    /// Every slot and the length, for a copy laid out by hand that
    /// `from_parts` turns back into the same value (the simulator's ACKs
    /// in flight, issue 33).
    pub fn to_parts(&self) -> ([Range; MAX_SACK_BLOCKS], u8) {
        (self.blocks, self.len)
    }
    /// The blocks `to_parts` gave; a length past the slots is cut to
    /// them.
    pub fn from_parts(blocks: [Range; MAX_SACK_BLOCKS], len: u8) -> Self {
        SackBlocks {
            blocks,
            len: len.min(MAX_SACK_BLOCKS as u8),
        }
    }
}

/// A data segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    /// First byte carried.
    pub seq: u64,
    /// Payload bytes (never zero for data).
    pub len: u32,
    /// TSval (RFC 7323): the sender's send time in engine nanoseconds plus
    /// one, so that 0 keeps meaning "no timestamp to echo" at time zero.
    pub ts_val: Time,
    /// TSecr: the peer's timestamp being echoed (0 when none yet).
    pub ts_ecr: Time,
    /// Metadata the wire would not carry but every observer wants: the
    /// segment's index in the sender's scoreboard (0-based, in sequence
    /// order) and which transmission of it this is (1 = original).
    pub seg_no: u64,
    pub tx_count: u32,
    /// Sender-wide transmission counter (LE and RACK order transmissions by it).
    pub tx_order: u64,
    /// True when this segment is a zero-window probe or otherwise sent
    /// outside the congestion window; informational only.
    pub probe: bool,
    /// The data sender's SYN (it connects) or SYN-ACK (it accepts): no
    /// payload, `seq` 0 (the SYN takes no engine sequence number).
    pub syn: bool,
    /// An extra copy of a retransmission (OR3's redundancy, or3.rs): the
    /// same bytes and `tx_count` as the retransmission it copies, sent
    /// later. Observers count copies apart from retransmissions.
    pub replica: bool,
}

impl Segment {
    pub fn end(&self) -> u64 {
        self.seq + self.len as u64
    }
    pub fn is_retransmission(&self) -> bool {
        self.tx_count > 1
    }
}

/// An acknowledgment. The default is an empty one (ACK 0, window 0, no
/// blocks), for tests that set only the fields they read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Ack {
    /// Cumulative ACK: the next byte the receiver expects.
    pub ack: u64,
    /// Advertised receive window in bytes, relative to `ack`.
    pub window: u64,
    /// SACK blocks (a leading DSACK block when `dsack` is set).
    pub sack: SackBlocks,
    /// The first block reports a duplicate (RFC 2883). The wire carries no
    /// such flag; the sender re-derives it by the RFC 2883 section 4 rules
    /// and this field exists so tests and traces can check both agree.
    pub dsack: bool,
    /// TSval of the receiver (its own clock) and TSecr echoed to the sender.
    pub ts_val: Time,
    pub ts_ecr: Time,
    /// The peer's SYN-ACK (to a connecting sender) or SYN (to an accepting
    /// one); `ack` is then 0.
    pub syn: bool,
    /// The transmission order (`Segment::tx_order`) of the data segment
    /// that triggered this ACK, echoed by a receiver that runs the LE
    /// paper's section 4.2 option (`ReceiverConfig::echo_order`); 0 when
    /// not echoed. No standard TCP option carries it.
    pub echo_order: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sack_blocks_come_back_from_their_parts_and_a_length_past_the_slots_is_cut() {
        let mut b = SackBlocks::new();
        b.push(Range::new(10, 20));
        b.push(Range::new(30, 40));
        b.clear();
        b.push(Range::new(50, 60));
        let (slots, len) = b.to_parts();
        assert_eq!(SackBlocks::from_parts(slots, len), b);
        assert_eq!(slots[1], Range::new(30, 40), "a cleared slot is kept");
        let full = SackBlocks::from_parts(slots, u8::MAX);
        assert_eq!(full.len(), MAX_SACK_BLOCKS);
    }
}
