//! LE (Loss rEsilience): loss detection by transmission order, after the LE
//! paper (../shared/papers/le-transmission-order.txt), section 2.
//!
//! The paper keeps every outstanding transmission in WAITLIST in the order
//! it left (2.1); each ACK that acknowledges a later transmission but not an
//! entry raises the entry's dupCnt, and at dupThresh the entry is lost and
//! moves to RTXLIST (2.2.1). Here:
//! - WAITLIST is a FIFO of (transmission order, segment) pushed by
//!   `on_sent`. Entries whose segment has since been acknowledged, SACKed,
//!   sent again or declared lost are stale; they leave when they reach the
//!   front (lazy deletion), so each transmission is pushed and popped once.
//! - dupCnt need not be stored. An entry's dupCnt is the number of ACKs
//!   that identified a transmission sent after it (an ACK that acknowledged
//!   the entry removed it). So it reaches dupThresh exactly when its order
//!   is below the dupThresh-th largest order any ACK has identified; that
//!   bound, K, only grows, and everything in front of it is lost. The
//!   paper's per-ACK list scan is its description; this is the same rule in
//!   O(dupThresh) per ACK plus O(1) amortised per transmission.
//! - RTXLIST is the scoreboard's retransmission queue: NextSeg() sends lost
//!   segments before new data (RFC 6675 rule 1), the paper's
//!   retransmission-first transmission (2.2.2). A retransmission enters
//!   WAITLIST again with its new order, so a lost retransmission is found by
//!   the same rule (2.3.3) without waiting for the RTO.
//!
//! Which transmission an ACK identifies (`LeOrder`): the paper's ns-2 sink
//! echoes the triggering packet's timestamp (2.2.1) and its Linux version
//! echoes the transmission order in the ACK (4.2, `echo`); without a
//! receiver change the sender infers it from what the ACK newly delivered,
//! cumulatively or by SACK (4.2's first proposal, `sack`, the default).
//! With `sack` and no SACK from the peer a duplicate ACK identifies
//! nothing, so LE falls back to `dupthresh` there, as FACK and RACK do.
//! With `echo` and no SACK, each echoed order also tells which segment
//! arrived, which the sender remembers so that delivered segments above
//! the cumulative ACK are not declared lost.

use std::collections::{BTreeSet, VecDeque};

use super::{mark, DetectCtx, DupThresh, LossDetector};
use crate::scoreboard::{Scoreboard, SegMeta, RETRANS, SACKED};

/// Where LE takes the transmission an ACK was triggered by
/// (`[flow.le] order`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LeOrder {
    /// The newest transmission the ACK newly delivered, cumulatively or by
    /// SACK (section 4.2, "the variations in cumulative ACK number and SACK
    /// blocks"). No receiver change.
    #[default]
    Sack,
    /// The order the receiver echoes (section 4.2, the paper's Linux
    /// implementation; `ReceiverConfig::echo_order`).
    Echo,
}

impl LeOrder {
    pub const NAMES: &'static [&'static str] = &["sack", "echo"];
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "sack" => Some(LeOrder::Sack),
            "echo" => Some(LeOrder::Echo),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            LeOrder::Sack => "sack",
            LeOrder::Echo => "echo",
        }
    }
}

pub struct Le {
    dupthresh: u32,
    order: LeOrder,
    /// WAITLIST: (transmission order, segment number) in transmission order.
    waitlist: VecDeque<(u64, u64)>,
    /// The largest transmission orders ACKs have identified, at most
    /// dupThresh of them, ascending: once full, `top[0]` is K.
    top: Vec<u64>,
    /// `echo` without SACK: transmissions the receiver said it got whose
    /// segment is still above the cumulative ACK (an implicit SACK).
    echoed: BTreeSet<u64>,
    /// Duplicate ACKs without SACK and without an echo identify nothing.
    fallback: DupThresh,
}

impl Le {
    pub fn new(dupthresh: u32, order: LeOrder) -> Self {
        Le {
            dupthresh: dupthresh.max(1),
            order,
            waitlist: VecDeque::new(),
            top: Vec::with_capacity(dupthresh.max(1) as usize),
            echoed: BTreeSet::new(),
            fallback: DupThresh::new(dupthresh),
        }
    }

    /// The transmission this ACK identifies (0: none): the echoed one, or
    /// the most recently sent of those it newly delivered, cumulatively or
    /// by SACK. A retransmitted segment delivered sooner than the minimum
    /// RTT after its retransmission was its original arriving late (RFC
    /// 8985 6.2 step 2's test, applied to each retransmission as the RFC
    /// does): it identifies no transmission, and does not hide an older
    /// one that passes.
    fn identified(&self, ctx: &DetectCtx, board: &Scoreboard) -> u64 {
        if self.order == LeOrder::Echo && ctx.echo_order > 0 {
            return ctx.echo_order;
        }
        let d = board.delivered();
        let min_rtt = ctx.min_rtt.unwrap_or(0);
        let rtx = board
            .delivered_retransmitted()
            .newest(|x| ctx.now.saturating_sub(x.sent) >= min_rtt);
        [d.latest_original, rtx]
            .into_iter()
            .flatten()
            .map(|x| x.tx_order)
            .max()
            .unwrap_or(0)
    }

    /// Counts one ACK that identified transmission `t`.
    fn count(&mut self, t: u64) {
        let n = self.dupthresh as usize;
        if self.top.len() < n {
            let at = self.top.partition_point(|&x| x < t);
            self.top.insert(at, t);
        } else if t > self.top[0] {
            self.top.remove(0);
            let at = self.top.partition_point(|&x| x < t);
            self.top.insert(at, t);
        }
    }

    /// Orders below this have dupCnt >= dupThresh.
    fn bound(&self) -> Option<u64> {
        (self.top.len() == self.dupthresh as usize).then(|| self.top[0])
    }
}

impl LossDetector for Le {
    fn name(&self) -> &'static str {
        "le"
    }

    fn on_sent(&mut self, seg_no: u64, tx_order: u64) {
        self.waitlist.push_back((tx_order, seg_no));
    }

    fn on_ack(
        &mut self,
        ctx: &DetectCtx,
        board: &mut Scoreboard,
        on_mark: &mut dyn FnMut(u64, &SegMeta),
    ) -> bool {
        let echo = self.order == LeOrder::Echo && ctx.echo_order > 0;
        if !ctx.sack_seen && !echo {
            // WAITLIST is not consulted here; it keeps only what is
            // outstanding.
            while self
                .waitlist
                .front()
                .is_some_and(|&(_, n)| n < board.base())
            {
                self.waitlist.pop_front();
            }
            return self.fallback.on_ack(ctx, board, on_mark);
        }
        let t = self.identified(ctx, board);
        if t == 0 {
            return false;
        }
        if echo && !ctx.sack_seen {
            self.echoed.insert(t);
        }
        self.count(t);
        let Some(k) = self.bound() else {
            return false;
        };
        let mut marked = false;
        while let Some(&(o, n)) = self.waitlist.front() {
            if o >= k {
                break;
            }
            self.waitlist.pop_front();
            let delivered = self.echoed.remove(&o);
            if n < board.base() || delivered {
                continue;
            }
            let Some(s) = board.get(n) else { continue };
            // Stale: sent again since (a later entry stands for it), or
            // already SACKed or waiting in RTXLIST.
            if s.tx_order != o || s.is(SACKED) {
                continue;
            }
            if s.is(RETRANS) {
                if board.mark_retransmission_lost(n) {
                    on_mark(n, board.get(n).expect("present"));
                    marked = true;
                }
            } else {
                marked |= mark(board, n, on_mark);
            }
        }
        // The implicit SACKs of segments the cumulative ACK has passed.
        if !self.echoed.is_empty() {
            let base_order = self.waitlist.front().map_or(u64::MAX, |&(o, _)| o);
            self.echoed = self.echoed.split_off(&base_order);
        }
        marked
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::testing::{board, ctx, sack};

    /// An ACK SACKing segments [lo, hi): it identifies the newest one it
    /// newly delivered.
    fn acked(le: &mut Le, b: &mut Scoreboard, lo: u64, hi: u64) -> Vec<u64> {
        b.begin_ack();
        sack(b, lo, hi);
        let mut m = Vec::new();
        le.on_ack(&ctx(1), b, &mut |n, _| m.push(n));
        m
    }

    fn sent(le: &mut Le, n: u64) {
        for i in 0..n {
            le.on_sent(i, i + 1);
        }
    }

    #[test]
    fn figure_2_three_later_acks_mark_the_three_lost_packets() {
        // Paper Figure 2 with segments 0-based: 16, 17, 18 lost; ACKs due
        // to 19, 20 and 21 raise their dupCnt to 3 and all three are lost
        // at the third, where sequence-based RFC 6675 would mark only the
        // first (IsLost needs DupThresh SACKed segments above each).
        let mut b = board(22);
        let mut le = Le::new(3, LeOrder::Sack);
        sent(&mut le, 22);
        b.on_cum_ack(16 * 1000);
        for (i, seg) in [19u64, 20].iter().enumerate() {
            assert!(acked(&mut le, &mut b, 19, seg + 1).is_empty(), "ACK {i}");
        }
        assert_eq!(acked(&mut le, &mut b, 19, 22), vec![16, 17, 18]);
    }

    #[test]
    fn a_lost_retransmission_is_found_by_later_acks_not_the_rto() {
        // Section 2.3.3: segment 0 lost, retransmitted as transmission 11;
        // three ACKs of transmissions after it (12, 13, 14) mark the
        // retransmission lost too.
        let mut b = board(10);
        let mut le = Le::new(3, LeOrder::Sack);
        sent(&mut le, 10);
        for seg in 1..4 {
            let m = acked(&mut le, &mut b, 1, seg + 1);
            assert_eq!(m, if seg == 3 { vec![0] } else { vec![] });
        }
        b.on_retransmit(0, 0, 11);
        le.on_sent(0, 11);
        for (i, order) in [12u64, 13, 14].into_iter().enumerate() {
            b.push_new((9 + i as u64) * 1000 + 1000, 1000, 0, order);
            le.on_sent(10 + i as u64, order);
        }
        // ACKs of 4-9 (orders 5-10) count nothing against order 11.
        for seg in 4..10 {
            assert!(acked(&mut le, &mut b, 1, seg + 1).is_empty());
        }
        // Segments 10-12 were sent as transmissions 12-14.
        for (i, seg) in (10..13).enumerate() {
            let m = acked(&mut le, &mut b, 10, seg + 1);
            assert_eq!(m, if i == 2 { vec![0] } else { vec![] }, "ACK {i}");
        }
        assert!(b.get(0).is_some_and(|s| s.is(crate::scoreboard::LOST)));
        assert_eq!(b.next_to_retransmit(), Some(0));
    }

    #[test]
    fn acks_of_older_transmissions_count_nothing_against_newer_ones() {
        // A late ACK identifying transmission 2 does not lower K.
        let mut le = Le::new(3, LeOrder::Sack);
        for t in [5, 6, 7, 2] {
            le.count(t);
        }
        assert_eq!(le.bound(), Some(5));
        le.count(9);
        assert_eq!(le.bound(), Some(6));
    }

    #[test]
    fn echo_without_sack_does_not_declare_delivered_segments_lost() {
        // No SACK: segment 3 is lost; the receiver echoes the orders of
        // 4, 5, 6, 7, 8 as they arrive. Only 3 is lost, not 4 and 5,
        // which later ACKs also follow.
        let mut b = board(10);
        let mut le = Le::new(3, LeOrder::Echo);
        sent(&mut le, 10);
        b.on_cum_ack(3 * 1000);
        let mut marked = Vec::new();
        for seg in 4..9u64 {
            let c = DetectCtx {
                sack_seen: false,
                echo_order: seg + 1,
                duplicate_ack: true,
                ..ctx(seg as u32 - 3)
            };
            le.on_ack(&c, &mut b, &mut |n, _| marked.push(n));
        }
        assert_eq!(marked, vec![3]);
    }
}
