//! Hack 1 of the mobile opportunistic-retransmission paper (section VIII).
//!
//! With opportunistic retransmission, a retransmission lost again leaves
//! the segments sent past the window to be discarded by the receiver, and
//! each discard is answered by a duplicate ACK that carries no new SACK
//! information. Ordinary SACK loss detection ignores such ACKs (they
//! deliver nothing), so only the retransmission timer would repair the
//! hole. Hack 1 counts them while in recovery and, past DupThresh,
//! retransmits the first unacknowledged segment again.
//!
//! The paper's words are "the latest unacknowledged TCP packet"; the
//! segment the discarded data waits for is the first unacknowledged one,
//! and that is what is retransmitted here.
//!
//! After it fires, the paper does not say when it may fire again. Two
//! readings, named apart (`[flow.hack1] refire`):
//! - `refire = true` (the default, our first reading): the count starts
//!   over, so every further dupthresh + 1 such ACKs retransmit the head
//!   again. A window of discards answers with hundreds of them within one
//!   round trip, while the retransmission is still in flight, so one
//!   segment can be sent hundreds of times.
//! - `refire = false`: once per run of such ACKs, as classic fast
//!   retransmit fires once when the duplicate ACKs reach DupThresh (RFC
//!   5681 section 3.2); only new SACK information, a cumulative ACK or
//!   leaving recovery starts a new count.
//!
//! A wrapper, so that it works with every detector.

use super::{DetectCtx, LossDetector};
use crate::scoreboard::{Scoreboard, SegMeta, RETRANS};
use crate::time::Time;

pub struct Hack1 {
    inner: Box<dyn LossDetector>,
    dupthresh: u32,
    /// Duplicate ACKs without new SACK information since the cumulative
    /// ACK or the SACK scoreboard last moved.
    count: u32,
    /// The count starts over after firing (module notes).
    refire: bool,
}

impl Hack1 {
    pub fn new(inner: Box<dyn LossDetector>, dupthresh: u32) -> Self {
        Hack1 {
            inner,
            dupthresh,
            count: 0,
            refire: true,
        }
    }

    /// `refire = false`: fires once per run of duplicate ACKs without new
    /// SACK information.
    pub fn refire(mut self, refire: bool) -> Self {
        self.refire = refire;
        self
    }

    fn count_dupack(&mut self, ctx: &DetectCtx, board: &mut Scoreboard) -> Option<u64> {
        if !ctx.in_fast_recovery || ctx.cum_advanced || ctx.newly_sacked > 0 {
            self.count = 0;
            return None;
        }
        if !ctx.duplicate_ack || ctx.dsack {
            return None;
        }
        self.count = self.count.saturating_add(1);
        // "if the count exceeds dupthresh"
        // count >= 1 here, so `count - 1` cannot wrap (nor can dupthresh
        // + 1 overflow for a library caller's u32::MAX).
        if self.count - 1 != self.dupthresh {
            return None;
        }
        if self.refire {
            self.count = 0;
        }
        let head = board.base();
        let s = board.get(head)?;
        let marked = if s.is(RETRANS) {
            board.mark_retransmission_lost(head)
        } else {
            board.mark_lost(head)
        };
        marked.then_some(head)
    }
}

impl LossDetector for Hack1 {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn on_ack(
        &mut self,
        ctx: &DetectCtx,
        board: &mut Scoreboard,
        on_mark: &mut dyn FnMut(u64, &SegMeta),
    ) -> bool {
        let enter = self.inner.on_ack(ctx, board, on_mark);
        if let Some(head) = self.count_dupack(ctx, board) {
            if let Some(s) = board.get(head) {
                on_mark(head, s);
            }
        }
        enter
    }
    fn on_sent(&mut self, seg_no: u64, tx_order: u64) {
        self.inner.on_sent(seg_no, tx_order)
    }
    fn on_rto(&mut self, ctx: &DetectCtx, board: &mut Scoreboard) {
        self.count = 0;
        self.inner.on_rto(ctx, board)
    }
    fn poll_timeout(&self) -> Option<Time> {
        self.inner.poll_timeout()
    }
    fn on_timeout(
        &mut self,
        ctx: &DetectCtx,
        board: &mut Scoreboard,
        on_mark: &mut dyn FnMut(u64, &SegMeta),
    ) -> bool {
        self.inner.on_timeout(ctx, board, on_mark)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::testing::{board, ctx, sack};
    use crate::detect::DupThresh;

    /// Segment 0 lost and retransmitted, segments 1..10 SACKed; the
    /// retransmission is lost again and four opportunistic segments land
    /// beyond the window: four duplicate ACKs without new SACK.
    #[test]
    fn retransmits_the_head_again_after_more_than_dupthresh_empty_dupacks() {
        let mut h = Hack1::new(Box::new(DupThresh::new(3)), 3);
        let mut b = board(12);
        sack(&mut b, 1, 11);
        assert!(b.mark_lost(0));
        b.on_retransmit(0, 0, 13);
        assert_eq!(b.next_to_retransmit(), None);
        let mut c = ctx(10);
        c.in_fast_recovery = true;
        c.duplicate_ack = true;
        let mut marked = vec![];
        for _ in 0..3 {
            h.on_ack(&c, &mut b, &mut |n, _| marked.push(n));
        }
        assert!(marked.is_empty(), "three is not more than DupThresh");
        h.on_ack(&c, &mut b, &mut |n, _| marked.push(n));
        assert_eq!(marked, vec![0]);
        assert_eq!(b.next_to_retransmit(), Some(0));
    }

    #[test]
    fn refire_false_fires_once_until_new_sack_information() {
        let mut h = Hack1::new(Box::new(DupThresh::new(3)), 3).refire(false);
        let mut b = board(12);
        sack(&mut b, 1, 11);
        assert!(b.mark_lost(0));
        b.on_retransmit(0, 0, 13);
        let mut c = ctx(10);
        c.in_fast_recovery = true;
        c.duplicate_ack = true;
        let mut marked = vec![];
        for _ in 0..20 {
            h.on_ack(&c, &mut b, &mut |n, _| marked.push(n));
        }
        assert_eq!(marked, vec![0], "once: the 4th of 20");
        // The retransmission goes out again; new SACK information starts a
        // new count, and the 4th empty duplicate ACK after it fires again.
        b.on_retransmit(0, 0, 14);
        c.newly_sacked = 1;
        h.on_ack(&c, &mut b, &mut |n, _| marked.push(n));
        c.newly_sacked = 0;
        for _ in 0..4 {
            h.on_ack(&c, &mut b, &mut |n, _| marked.push(n));
        }
        assert_eq!(marked, vec![0, 0]);
        // The default fires every 4th: 20 ACKs, 5 marks (each marks the
        // head again once its retransmission has gone out).
        b.on_retransmit(0, 0, 15);
        let mut h = Hack1::new(Box::new(DupThresh::new(3)), 3);
        let mut fired = 0;
        for i in 0..20 {
            let mut now = false;
            h.on_ack(&c, &mut b, &mut |_, _| now = true);
            if now {
                fired += 1;
                b.on_retransmit(0, 0, 20 + i);
            }
        }
        assert_eq!(fired, 5);
    }

    #[test]
    fn new_sack_information_or_leaving_recovery_resets_the_count() {
        let mut h = Hack1::new(Box::new(DupThresh::new(3)), 3);
        let mut b = board(12);
        sack(&mut b, 1, 11);
        b.mark_lost(0);
        b.on_retransmit(0, 0, 13);
        let mut c = ctx(10);
        c.in_fast_recovery = true;
        c.duplicate_ack = true;
        let mut marked = vec![];
        for i in 0..8 {
            // Every third ACK brings new SACK information.
            c.newly_sacked = u64::from(i % 3 == 2);
            h.on_ack(&c, &mut b, &mut |n, _| marked.push(n));
        }
        assert!(marked.is_empty());
        c.newly_sacked = 0;
        c.in_fast_recovery = false;
        for _ in 0..8 {
            h.on_ack(&c, &mut b, &mut |n, _| marked.push(n));
        }
        assert!(marked.is_empty(), "only counted in recovery");
    }
}
