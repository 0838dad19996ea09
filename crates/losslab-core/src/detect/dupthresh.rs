//! RFC 6675 IsLost() with DupThresh (3 by default), plus RFC 6582's
//! partial-ACK rule when the peer sends no SACK.
//!
//! RFC 6675 section 4, IsLost(SeqNum): true when DupThresh discontiguous
//! SACKed sequences lie above SeqNum, or more than (DupThresh - 1) * SMSS
//! SACKed bytes do. Both counts only grow as SeqNum falls, so the lost
//! segments are exactly the un-SACKed ones below a boundary: the start of
//! the first SACKed run, walking down from the highest, at which either
//! count is met. Finding it touches at most DupThresh runs; marking is
//! amortised O(1) per segment (Scoreboard::mark_lost_below).

use super::{DetectCtx, LossDetector};
use crate::scoreboard::{Scoreboard, SegMeta};

#[derive(Clone, Debug)]
pub struct DupThresh {
    dupthresh: u32,
}

impl DupThresh {
    pub fn new(dupthresh: u32) -> Self {
        DupThresh {
            dupthresh: dupthresh.max(1),
        }
    }

    /// One past the highest lost segment number by IsLost(), if any.
    pub fn lost_boundary(&self, board: &Scoreboard, mss: u32) -> Option<u64> {
        lost_boundary(board, mss, self.dupthresh)
    }

    /// The detection of `on_ack` with a threshold other than DupThresh
    /// (Linux's FACK falls back to it with tp->reordering).
    pub fn detect_with_threshold(
        &self,
        ctx: &DetectCtx,
        board: &mut Scoreboard,
        on_mark: &mut dyn FnMut(u64, &SegMeta),
        thresh: u32,
    ) -> bool {
        if board.is_empty() {
            return false;
        }
        let thresh = thresh.max(1);
        let base = board.base();
        if let Some(end) = lost_boundary(board, ctx.mss, thresh) {
            board.mark_lost_below(end, &mut *on_mark);
        }
        // RFC 6675 section 5 (and RFC 5681 without SACK): DupThresh
        // duplicate ACKs mean HighACK + 1 is lost even when the SACK
        // blocks alone do not say so yet.
        if ctx.dupacks >= thresh && !ctx.in_loss && board.mark_lost(base) {
            let s = *board.get(base).expect("base present");
            on_mark(base, &s);
        }
        // RFC 6582 section 3.2 step 4 (no SACK): a partial ACK during
        // recovery means the next hole is lost too. Only a partial one: the
        // full ACK (step 3, it reaches RecoveryPoint) ends recovery, and
        // marking the next segment there would start a new recovery on
        // data that was never lost.
        let partial_ack = ctx.cum_advanced && !ctx.exiting_recovery;
        if !ctx.sack_seen && ctx.in_fast_recovery && partial_ack && board.mark_lost(base) {
            let s = *board.get(base).expect("base present");
            on_mark(base, &s);
        }
        // Enter recovery on DupThresh dupacks or IsLost(HighACK + 1); RFC
        // 3517 knows only the former.
        if ctx.dupack_entry_only && ctx.dupacks < thresh {
            return false;
        }
        board
            .get(base)
            .is_some_and(|s| s.is(crate::scoreboard::LOST))
    }
}

/// RFC 6675 IsLost() boundary for threshold `thresh`: one past the highest
/// lost segment number, if any.
fn lost_boundary(board: &Scoreboard, mss: u32, thresh: u32) -> Option<u64> {
    let limit_bytes = (thresh as u64 - 1) * mss as u64;
    let (mut runs, mut bytes) = (0u32, 0u64);
    for r in board.sacked_runs().iter().rev() {
        runs += 1;
        bytes += board.bytes_of(r.start, r.end);
        if runs >= thresh || bytes > limit_bytes {
            return Some(r.start);
        }
    }
    None
}

impl LossDetector for DupThresh {
    fn name(&self) -> &'static str {
        "dupthresh"
    }

    fn on_ack(
        &mut self,
        ctx: &DetectCtx,
        board: &mut Scoreboard,
        on_mark: &mut dyn FnMut(u64, &SegMeta),
    ) -> bool {
        self.detect_with_threshold(ctx, board, on_mark, self.dupthresh)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::Range;

    fn board(n: u64) -> Scoreboard {
        let mut b = Scoreboard::new();
        for i in 0..n {
            b.push_new(i * 1000, 1000, 0, i);
        }
        b
    }
    fn ctx(dupacks: u32) -> DetectCtx {
        DetectCtx {
            dupacks,
            sack_seen: true,
            mss: 1000,
            ..Default::default()
        }
    }

    #[test]
    fn three_sacked_segments_above_make_a_hole_lost() {
        let mut d = DupThresh::new(3);
        let mut b = board(10);
        b.on_sack_block(Range::new(1000, 3000)); // segments 1, 2
        assert!(!d.on_ack(&ctx(2), &mut b, &mut |_, _| {}));
        assert_eq!(b.lost_out(), 0);
        b.on_sack_block(Range::new(3000, 4000)); // 3 segments above 0
        let mut marked = vec![];
        assert!(d.on_ack(&ctx(3), &mut b, &mut |n, _| marked.push(n)));
        assert_eq!(marked, vec![0]);
    }

    #[test]
    fn discontiguous_runs_count_even_when_bytes_do_not() {
        // Segments of 1000 bytes with MSS 1448: 2 SACKed segments = 2000
        // bytes <= 2896, but three separate runs still make IsLost true.
        let mut d = DupThresh::new(3);
        let mut b = board(10);
        for s in [2u64, 4, 6] {
            b.on_sack_block(Range::new(s * 1000, s * 1000 + 1000));
        }
        let c = DetectCtx {
            mss: 1448,
            ..ctx(0)
        };
        let mut marked = vec![];
        d.on_ack(&c, &mut b, &mut |n, _| marked.push(n));
        // Only segments below the third run from the top (segment 2) are
        // lost: 0 and 1. Segment 3 has two runs and 2000 bytes above it.
        assert_eq!(marked, vec![0, 1]);
        assert_eq!(d.lost_boundary(&b, 1448), Some(2));
    }

    #[test]
    fn bytes_rule_with_one_long_run() {
        let mut d = DupThresh::new(3);
        let mut b = board(10);
        b.on_sack_block(Range::new(5000, 8000)); // 3000 > 2 * 1000 bytes
        let mut marked = vec![];
        assert!(d.on_ack(&ctx(1), &mut b, &mut |n, _| marked.push(n)));
        assert_eq!(marked, vec![0, 1, 2, 3, 4]);
        b.check_invariants().unwrap();
    }

    #[test]
    fn rfc3517_entry_waits_for_dupthresh_dupacks() {
        // Three SACKed segments above a hole make IsLost(HighACK + 1) true
        // on the first duplicate ACK that carries them: RFC 6675 enters,
        // RFC 3517 waits for the third duplicate ACK.
        let mut d = DupThresh::new(3);
        let mut b = board(10);
        b.on_sack_block(Range::new(1000, 4000));
        assert!(d.on_ack(&ctx(1), &mut b, &mut |_, _| {}));
        let only = DetectCtx {
            dupack_entry_only: true,
            ..ctx(1)
        };
        assert!(!d.on_ack(&only, &mut b, &mut |_, _| {}));
        let third = DetectCtx {
            dupack_entry_only: true,
            ..ctx(3)
        };
        assert!(d.on_ack(&third, &mut b, &mut |_, _| {}));
    }

    #[test]
    fn without_sack_a_partial_ack_marks_the_next_hole_but_the_full_ack_does_not() {
        // RFC 6582 section 3.2: step 4 (partial ACK) retransmits the first
        // unacknowledged segment; step 3 (full ACK) ends recovery.
        let mut d = DupThresh::new(3);
        let mut b = board(10);
        b.begin_ack();
        b.on_cum_ack(2000);
        let partial = DetectCtx {
            sack_seen: false,
            in_fast_recovery: true,
            cum_advanced: true,
            ..ctx(0)
        };
        let mut marked = vec![];
        d.on_ack(&partial, &mut b, &mut |n, _| marked.push(n));
        assert_eq!(marked, vec![2]);
        let mut b = board(10);
        b.begin_ack();
        b.on_cum_ack(2000);
        let full = DetectCtx {
            exiting_recovery: true,
            ..partial
        };
        let mut marked = vec![];
        assert!(!d.on_ack(&full, &mut b, &mut |n, _| marked.push(n)));
        assert_eq!(marked, Vec::<u64>::new());
    }

    #[test]
    fn dupacks_without_sack_mark_only_the_first_segment() {
        let mut d = DupThresh::new(3);
        let mut b = board(5);
        let c = DetectCtx {
            sack_seen: false,
            ..ctx(3)
        };
        assert!(d.on_ack(&c, &mut b, &mut |_, _| {}));
        assert_eq!(b.lost_out(), 1);
    }
}
