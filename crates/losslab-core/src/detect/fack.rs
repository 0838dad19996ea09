//! Linux-style FACK loss detection (Mathis and Mahdavi, "Forward
//! Acknowledgment", SIGCOMM 1996, as Linux used it until 4.15; PRR/ER paper
//! section 3.2).
//!
//! - Threshold retransmission: fast recovery starts as soon as the highest
//!   SACKed segment lies more than DupThresh segments above snd.una, even
//!   on the very first duplicate ACK (in the paper's Figure 2, the first 4
//!   segments are dropped and the first SACK, of segment 5, starts
//!   recovery). Linux's test is `fackets_out > reordering`, with
//!   fackets_out counting snd.una up to and including the highest SACKed
//!   segment, which enters one segment earlier (three holes below a SACK);
//!   we follow the paper's "more than DupThresh segments are missing".
//! - Once in recovery, every un-SACKed hole below the highest SACK is lost
//!   (FACK assumes the network does not reorder).
//! - Once reordering has been seen on the connection, FACK is off and
//!   detection falls back to RFC 6675 DupThresh (Linux tcp_disable_fack()
//!   from tcp_update_reordering()).
//!
//! The RFC 6675 rules (`dupthresh.rs`) apply throughout: FACK only ever
//! marks more, never less, and without SACK it is plain DupThresh.

use super::{DetectCtx, DupThresh, LossDetector};
use crate::scoreboard::{Scoreboard, SegMeta, LOST};

#[derive(Clone, Debug)]
pub struct Fack {
    rfc6675: DupThresh,
    dupthresh: u32,
    /// Linux's test, fackets_out > reordering, instead of the paper's
    /// "more than DupThresh segments missing" (one segment earlier).
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
        let enter = self.rfc6675.on_ack(ctx, board, on_mark);
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
        if in_recovery || reach > u64::from(self.dupthresh) {
            // Every hole below the highest SACK is lost (amortised O(1)
            // per segment through the scoreboard's scan cursor).
            board.mark_lost_below(top, &mut *on_mark);
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
        // segment 4, four segments above snd.una: recovery at once, and
        // all four holes are lost.
        let mut d = Fack::new(3);
        let mut b = board(20);
        sack(&mut b, 4, 5);
        assert_eq!(marks(&mut d, &ctx(1), &mut b), (true, vec![0, 1, 2, 3]));
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
        assert_eq!(marks(&mut d, &ctx(2), &mut b), (true, vec![0, 1, 2]));
    }

    #[test]
    fn in_recovery_every_hole_below_the_highest_sack_is_lost() {
        let mut d = Fack::new(3);
        let mut b = board(20);
        sack(&mut b, 1, 2);
        sack(&mut b, 5, 6);
        let mut c = ctx(2);
        c.in_fast_recovery = true;
        // RFC 6675 IsLost() would mark nothing: two runs, 2000 bytes.
        assert_eq!(
            marks(&mut d, &c, &mut b),
            (true, vec![0, 2, 3, 4]),
            "holes 0, 2, 3, 4"
        );
        // A SACK further up makes the new holes lost at once.
        sack(&mut b, 9, 10);
        assert_eq!(marks(&mut d, &c, &mut b).1, vec![6, 7, 8]);
        assert_eq!(b.lost_out(), 7);
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
