//! Linux-style FACK loss detection (Mathis and Mahdavi, "Forward
//! Acknowledgment", SIGCOMM 1996, as Linux used it until 4.15; PRR/ER paper
//! section 3.2). Linux's rules (net/ipv4/tcp_input.c of 3.x-4.14), with
//! tp->reordering the sender's measured reordering degree
//! (`DetectCtx::reordering`, at least DupThresh):
//!
//! - Threshold retransmission: fast recovery starts as soon as the highest
//!   SACKed segment lies far enough above snd.una, even on the very first
//!   duplicate ACK (tcp_time_to_recover() "Trick#1"). In the paper's
//!   Figure 2 the first 4 segments are dropped and the first SACK, of
//!   segment 5, starts recovery. Linux's test is `fackets_out >
//!   reordering` (`Fack::linux`), fackets_out counting snd.una up to and
//!   including the highest SACKed segment; `fack` follows the paper's
//!   wording, "more than reordering segments are missing below it", one
//!   segment later.
//! - Marking (tcp_update_scoreboard(), FACK branch): the first
//!   `fackets_out - reordering` segments from snd.una (at least one) are
//!   lost when not SACKed; the `reordering` segments just below the
//!   highest SACK still get the benefit of the doubt.
//! - Once reordering has been seen, FACK is off (tcp_disable_fack() from
//!   tcp_update_reordering()) and detection is Linux's SACK rule: a hole is
//!   lost below `reordering` SACKed segments (tcp_update_scoreboard()'s
//!   `sacked_out - reordering`), which is RFC 6675 IsLost() with DupThresh
//!   raised to tp->reordering.
//!
//! The RFC 6675 rules (`dupthresh.rs`, with tp->reordering as the
//! threshold) apply throughout: FACK only ever marks more, and without
//! SACK it is plain DupThresh.

use super::{DetectCtx, DupThresh, LossDetector};
use crate::scoreboard::{Scoreboard, SegMeta, LOST};

#[derive(Clone, Debug)]
pub struct Fack {
    rfc6675: DupThresh,
    /// The initial tp->reordering (DupThresh).
    dupthresh: u32,
    /// Linux's test, fackets_out > reordering, instead of the paper's
    /// "more than reordering segments missing" (one segment earlier).
    linux_fackets: bool,
}

impl Fack {
    pub fn new(dupthresh: u32) -> Self {
        Fack {
            rfc6675: DupThresh::new(dupthresh),
            dupthresh: dupthresh.max(1),
            linux_fackets: false,
        }
    }

    /// FACK as Linux tested it (tcp_time_to_recover() "Trick#1",
    /// tcp_dupack_heuristics() = fackets_out).
    pub fn linux(dupthresh: u32) -> Self {
        Fack {
            linux_fackets: true,
            ..Self::new(dupthresh)
        }
    }

    /// How far above snd.una the highest SACKed segment lies, in segments.
    pub fn forward_distance(board: &Scoreboard) -> Option<u64> {
        board.highest_sacked_end().map(|end| end - 1 - board.base())
    }
}

impl LossDetector for Fack {
    fn name(&self) -> &'static str {
        "fack"
    }

    fn on_ack(
        &mut self,
        ctx: &DetectCtx,
        board: &mut Scoreboard,
        on_mark: &mut dyn FnMut(u64, &SegMeta),
    ) -> bool {
        let reordering = ctx.reordering.max(self.dupthresh);
        let enter = self
            .rfc6675
            .detect_with_threshold(ctx, board, on_mark, reordering);
        if ctx.reordering_seen || !ctx.sack_seen || board.is_empty() {
            return enter;
        }
        let (Some(top), Some(distance)) =
            (board.highest_sacked_end(), Self::forward_distance(board))
        else {
            return enter;
        };
        let in_recovery = ctx.in_fast_recovery || ctx.in_loss;
        // fackets_out = distance + 1.
        let reach = distance + u64::from(self.linux_fackets);
        if in_recovery || reach > u64::from(reordering) {
            // tcp_mark_head_lost(sk, fackets_out - reordering): the holes
            // among the first max(fackets_out - reordering, 1) segments
            // (amortised O(1) per segment through the scan cursor).
            let base = board.base();
            let end = top.saturating_sub(u64::from(reordering)).max(base + 1);
            board.mark_lost_below(end, &mut *on_mark);
        }
        enter || board.get(board.base()).is_some_and(|s| s.is(LOST))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{board, ctx, sack};
    use super::*;

    fn marks(d: &mut Fack, c: &DetectCtx, b: &mut Scoreboard) -> (bool, Vec<u64>) {
        let mut m = vec![];
        let enter = d.on_ack(c, b, &mut |n, _| m.push(n));
        b.check_invariants().unwrap();
        (enter, m)
    }

    #[test]
    fn threshold_retransmission_on_the_first_sack() {
        // PRR paper Figure 2: segments 0..3 lost, the first ACK SACKs
        // segment 4, four segments above snd.una: recovery at once. Linux
        // marks the first fackets_out - reordering = 5 - 3 = 2 segments;
        // 2 and 3 get the benefit of the doubt until the SACKs move on.
        let mut d = Fack::new(3);
        let mut b = board(20);
        sack(&mut b, 4, 5);
        assert_eq!(marks(&mut d, &ctx(1), &mut b), (true, vec![0, 1]));
        sack(&mut b, 5, 6);
        assert_eq!(marks(&mut d, &ctx(2), &mut b), (true, vec![2]));
        sack(&mut b, 6, 7);
        assert_eq!(marks(&mut d, &ctx(3), &mut b), (true, vec![3]));
        // DupThresh alone waits for two more duplicate ACKs.
        let mut b = board(20);
        sack(&mut b, 4, 5);
        assert!(!DupThresh::new(3).on_ack(&ctx(1), &mut b, &mut |_, _| {}));
    }

    #[test]
    fn three_segments_above_is_not_yet_more_than_dupthresh() {
        let mut d = Fack::new(3);
        let mut b = board(20);
        sack(&mut b, 3, 4);
        assert_eq!(marks(&mut d, &ctx(1), &mut b), (false, vec![]));
        sack(&mut b, 4, 5);
        // fackets_out 5 - reordering 3: the first two.
        assert_eq!(marks(&mut d, &ctx(2), &mut b), (true, vec![0, 1]));
    }

    #[test]
    fn in_recovery_holes_more_than_reordering_below_the_highest_sack_are_lost() {
        let mut d = Fack::new(3);
        let mut b = board(20);
        sack(&mut b, 1, 2);
        sack(&mut b, 5, 6);
        let mut c = ctx(2);
        c.in_fast_recovery = true;
        // RFC 6675 IsLost() would mark nothing (two runs, 2000 bytes).
        // fackets_out 6 - reordering 3: holes among segments 0..2.
        assert_eq!(marks(&mut d, &c, &mut b), (true, vec![0, 2]), "holes 0, 2");
        // A SACK further up: fackets_out 10, the holes below 7.
        sack(&mut b, 9, 10);
        assert_eq!(marks(&mut d, &c, &mut b).1, vec![3, 4, 6]);
        assert_eq!(b.lost_out(), 5);
        // A larger measured reordering (tp->reordering 5) leaves more of
        // them alone.
        let mut b = board(20);
        sack(&mut b, 9, 10);
        c.reordering = 5;
        assert_eq!(marks(&mut d, &c, &mut b).1, vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn after_reordering_the_threshold_is_the_measured_degree() {
        // FACK off (reordering seen) and tp->reordering raised to 6: Linux
        // marks a hole only below 6 SACKed segments (sacked_out -
        // reordering), where RFC 6675's DupThresh of 3 would mark 0..3.
        let mut d = Fack::new(3);
        let mut b = board(20);
        for s in [4u64, 6, 8] {
            sack(&mut b, s, s + 1);
        }
        let c = DetectCtx {
            reordering_seen: true,
            reordering: 6,
            ..ctx(3)
        };
        assert_eq!(marks(&mut d, &c, &mut b), (false, vec![]));
        for s in [10u64, 12, 14] {
            sack(&mut b, s, s + 1);
        }
        assert_eq!(marks(&mut d, &c, &mut b), (true, vec![0, 1, 2, 3]));
    }

    #[test]
    fn reordering_turns_fack_into_dupthresh() {
        let mut d = Fack::new(3);
        let mut b = board(20);
        sack(&mut b, 4, 5);
        let mut c = ctx(1);
        c.reordering_seen = true;
        assert_eq!(marks(&mut d, &c, &mut b), (false, vec![]));
        // In recovery only IsLost() marks: with runs {4}, {6}, {8} the
        // segments below the third run from the top (4) are lost.
        c.in_fast_recovery = true;
        sack(&mut b, 6, 7);
        sack(&mut b, 8, 9);
        assert_eq!(marks(&mut d, &c, &mut b).1, vec![0, 1, 2, 3]);
    }

    #[test]
    fn without_sack_it_is_dupthresh() {
        let mut d = Fack::new(3);
        let mut b = board(5);
        let c = DetectCtx {
            sack_seen: false,
            ..ctx(2)
        };
        assert_eq!(marks(&mut d, &c, &mut b), (false, vec![]));
        let c = DetectCtx {
            sack_seen: false,
            ..ctx(3)
        };
        assert_eq!(marks(&mut d, &c, &mut b), (true, vec![0]));
    }
}
