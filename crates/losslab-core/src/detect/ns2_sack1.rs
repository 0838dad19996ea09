//! ns-2's `Agent/TCP/Sack1` loss detection (ns-2.35 tcp/tcp-sack1.cc and
//! tcp/scoreboard-rq.cc), the LE paper's simulated "SACK" (section 3), with
//! recovery/ns2_sack1.rs. Not RFC 6675: fast recovery starts on the
//! DupThresh-th duplicate ACK that SACKs new data (`dupack_action()`), and
//! from then on every hole below the highest SACKed segment is
//! retransmittable (`ScoreBoardRQ::GetNextRetran()`), however few SACKed
//! segments lie above it, where RFC 6675 IsLost() waits for DupThresh of
//! them. Without SACK: `dupthresh`.

use super::{DetectCtx, DupThresh, LossDetector};
use crate::scoreboard::{Scoreboard, SegMeta};

pub struct Ns2Sack1 {
    dupthresh: u32,
    fallback: DupThresh,
}

impl Ns2Sack1 {
    pub fn new(dupthresh: u32) -> Self {
        Ns2Sack1 {
            dupthresh,
            fallback: DupThresh::new(dupthresh),
        }
    }
}

impl LossDetector for Ns2Sack1 {
    fn name(&self) -> &'static str {
        "ns2-sack1"
    }

    fn on_ack(
        &mut self,
        ctx: &DetectCtx,
        board: &mut Scoreboard,
        on_mark: &mut dyn FnMut(u64, &SegMeta),
    ) -> bool {
        if !ctx.sack_seen {
            return self.fallback.on_ack(ctx, board, on_mark);
        }
        let entering = !ctx.in_fast_recovery && !ctx.in_loss && ctx.dupacks >= self.dupthresh;
        if entering || ctx.in_fast_recovery {
            let fack = board.fack();
            board.mark_lost_below(fack, |n, s| on_mark(n, s));
        }
        entering
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::testing::{board, ctx, sack};

    #[test]
    fn every_hole_below_the_highest_sack_once_in_recovery() {
        // Segments 0-9 sent; 3 and 8 SACKed: RFC 6675 would mark nothing
        // (two SACKed segments above any hole); Sack1 waits for the third
        // duplicate ACK, then takes every hole below 8.
        let mut b = board(10);
        sack(&mut b, 3, 4);
        sack(&mut b, 8, 9);
        let mut d = Ns2Sack1::new(3);
        let mut m = Vec::new();
        assert!(!d.on_ack(&ctx(2), &mut b, &mut |n, _| m.push(n)));
        assert!(m.is_empty());
        assert!(d.on_ack(&ctx(3), &mut b, &mut |n, _| m.push(n)));
        assert_eq!(m, vec![0, 1, 2, 4, 5, 6, 7]);
    }
}
