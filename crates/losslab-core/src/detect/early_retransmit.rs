//! Early Retransmit (RFC 5827) on top of RFC 6675 DupThresh, with the two
//! mitigations of the PRR/ER paper, section 6.
//!
//! RFC 5827 section 2: when fewer than four segments are outstanding and no
//! new segment can be sent (no unsent data, or the peer's window forbids
//! it), there can never be DupThresh duplicate ACKs, so the threshold drops
//! to ER_thresh = oflight - 1 (section 3.2, segment-based): one duplicate
//! ACK with 2 segments out, two with 3. With SACK the count is of SACKed
//! segments. Like Linux (tcp_time_to_recover(), 3.5 to 4.9), ER is not used
//! while a retransmission is outstanding.
//!
//! Mitigations (`ErMitigation`, paper section 6, after RFC 5827's
//! appendix):
//! - `reordering`: no early retransmit once the connection has seen
//!   reordering;
//! - `delay`: the early retransmit waits SRTT/4, bounded to [25 ms,
//!   500 ms], on the detector's timer, and any ACK in between cancels it
//!   (it is re-armed afresh if the ACK still meets the conditions, as
//!   Linux's tcp_pause_early_retransmit() did on every ACK). Without an
//!   SRTT there is nothing to scale by and ER is not delayed, as in Linux.

use super::{mark, DetectCtx, DupThresh, ErMitigation, LossDetector};
use crate::scoreboard::{Scoreboard, SegMeta, LOST};
use crate::time::{Time, MS};

/// The paper's ER delay: SRTT/4 bounded to [25 ms, 500 ms].
pub fn er_delay(srtt: Time) -> Time {
    (srtt / 4).clamp(25 * MS, 500 * MS)
}

#[derive(Clone, Debug)]
pub struct EarlyRetransmit {
    rfc6675: DupThresh,
    mitigation: ErMitigation,
    /// A delayed early retransmit is pending until then.
    timer: Option<Time>,
}

impl EarlyRetransmit {
    pub fn new(dupthresh: u32, mitigation: ErMitigation) -> Self {
        EarlyRetransmit {
            rfc6675: DupThresh::new(dupthresh),
            mitigation,
            timer: None,
        }
    }

    pub fn mitigation(&self) -> ErMitigation {
        self.mitigation
    }

    /// RFC 5827 ER_thresh when early retransmit applies to this state.
    pub fn er_thresh(&self, ctx: &DetectCtx, board: &Scoreboard) -> Option<u64> {
        if ctx.in_fast_recovery || ctx.in_loss {
            return None;
        }
        if self.mitigation.off_after_reordering() && ctx.reordering_seen {
            return None;
        }
        // (2.a) fewer than four segments outstanding; (2.b) no new segment
        // can be sent. One outstanding segment can get no duplicate ACK.
        let oflight = board.packets_out();
        if !(2..4).contains(&oflight) || ctx.can_send_new || board.retrans_out() > 0 {
            return None;
        }
        Some(oflight - 1)
    }

    fn triggered(&self, ctx: &DetectCtx, board: &Scoreboard) -> bool {
        let Some(thresh) = self.er_thresh(ctx, board) else {
            return false;
        };
        let count = if ctx.sack_seen {
            board.sacked_out()
        } else {
            u64::from(ctx.dupacks)
        };
        count >= thresh
    }

    /// The early retransmit itself: HighACK + 1 is lost.
    fn fire(board: &mut Scoreboard, on_mark: &mut dyn FnMut(u64, &SegMeta)) -> bool {
        let base = board.base();
        mark(board, base, on_mark);
        board.get(base).is_some_and(|s| s.is(LOST))
    }
}

impl LossDetector for EarlyRetransmit {
    fn name(&self) -> &'static str {
        "early-retransmit"
    }

    fn on_ack(
        &mut self,
        ctx: &DetectCtx,
        board: &mut Scoreboard,
        on_mark: &mut dyn FnMut(u64, &SegMeta),
    ) -> bool {
        // Any ACK cancels a pending delayed early retransmit (paper
        // section 6); the conditions are checked afresh below.
        self.timer = None;
        let enter = self.rfc6675.on_ack(ctx, board, on_mark);
        if enter || board.is_empty() || !self.triggered(ctx, board) {
            return enter;
        }
        if self.mitigation.delays() {
            if let Some(srtt) = ctx.srtt {
                self.timer = Some(ctx.now + er_delay(srtt));
                return false;
            }
        }
        Self::fire(board, on_mark)
    }

    fn poll_timeout(&self) -> Option<Time> {
        self.timer
    }

    fn on_timeout(
        &mut self,
        ctx: &DetectCtx,
        board: &mut Scoreboard,
        on_mark: &mut dyn FnMut(u64, &SegMeta),
    ) -> bool {
        self.timer = None;
        if ctx.in_fast_recovery || ctx.in_loss || board.is_empty() {
            return false;
        }
        Self::fire(board, on_mark)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{board, ctx, sack};
    use super::*;

    fn er(m: ErMitigation) -> EarlyRetransmit {
        EarlyRetransmit::new(3, m)
    }

    fn on_ack(d: &mut EarlyRetransmit, c: &DetectCtx, b: &mut Scoreboard) -> (bool, Vec<u64>) {
        let mut m = vec![];
        let enter = d.on_ack(c, b, &mut |n, _| m.push(n));
        b.check_invariants().unwrap();
        (enter, m)
    }

    #[test]
    fn three_outstanding_segments_need_two_duplicate_acks() {
        // RFC 5827 section 3.2: oflight 3, ER_thresh 2.
        let mut d = er(ErMitigation::None);
        let mut b = board(3);
        sack(&mut b, 1, 2);
        assert_eq!(d.er_thresh(&ctx(1), &b), Some(2));
        assert_eq!(on_ack(&mut d, &ctx(1), &mut b), (false, vec![]));
        sack(&mut b, 2, 3);
        assert_eq!(on_ack(&mut d, &ctx(2), &mut b), (true, vec![0]));
    }

    #[test]
    fn two_outstanding_segments_need_one_duplicate_ack() {
        let mut d = er(ErMitigation::None);
        let mut b = board(2);
        sack(&mut b, 1, 2);
        assert_eq!(d.er_thresh(&ctx(1), &b), Some(1));
        assert_eq!(on_ack(&mut d, &ctx(1), &mut b), (true, vec![0]));
    }

    #[test]
    fn duplicate_acks_count_without_sack() {
        let mut d = er(ErMitigation::None);
        let mut b = board(3);
        let c = |n| DetectCtx {
            sack_seen: false,
            ..ctx(n)
        };
        assert_eq!(on_ack(&mut d, &c(1), &mut b), (false, vec![]));
        assert_eq!(on_ack(&mut d, &c(2), &mut b), (true, vec![0]));
    }

    #[test]
    fn not_with_four_segments_out_or_new_data_to_send() {
        let mut d = er(ErMitigation::None);
        let mut b = board(4);
        sack(&mut b, 1, 3);
        assert_eq!(d.er_thresh(&ctx(2), &b), None);
        assert_eq!(on_ack(&mut d, &ctx(2), &mut b), (false, vec![]));
        let mut b = board(3);
        sack(&mut b, 1, 3);
        let c = DetectCtx {
            can_send_new: true,
            ..ctx(2)
        };
        assert_eq!(on_ack(&mut d, &c, &mut b), (false, vec![]));
    }

    #[test]
    fn reordering_mitigation_turns_it_off() {
        let mut b = board(2);
        sack(&mut b, 1, 2);
        let c = DetectCtx {
            reordering_seen: true,
            ..ctx(1)
        };
        assert!(!er(ErMitigation::Reordering).on_ack(&c, &mut b.clone(), &mut |_, _| {}));
        assert!(!er(ErMitigation::Both).on_ack(&c, &mut b.clone(), &mut |_, _| {}));
        assert!(er(ErMitigation::Delay).on_ack(&c, &mut b.clone(), &mut |_, _| {}));
        assert!(er(ErMitigation::None).on_ack(&c, &mut b, &mut |_, _| {}));
    }

    #[test]
    fn delay_is_a_quarter_srtt_within_25_and_500_ms() {
        assert_eq!(er_delay(40 * MS), 25 * MS);
        assert_eq!(er_delay(100 * MS), 25 * MS);
        assert_eq!(er_delay(101 * MS), 25 * MS + 250_000);
        assert_eq!(er_delay(1000 * MS), 250 * MS);
        assert_eq!(er_delay(2000 * MS), 500 * MS);
        assert_eq!(er_delay(10_000 * MS), 500 * MS);
    }

    #[test]
    fn delayed_early_retransmit_fires_on_the_timer() {
        let mut d = er(ErMitigation::Delay);
        let mut b = board(3);
        sack(&mut b, 1, 3);
        let c = DetectCtx {
            now: 1000 * MS,
            srtt: Some(400 * MS),
            ..ctx(2)
        };
        assert_eq!(on_ack(&mut d, &c, &mut b), (false, vec![]));
        assert_eq!(d.poll_timeout(), Some(1100 * MS));
        let t = DetectCtx {
            now: 1100 * MS,
            ..c
        };
        let mut m = vec![];
        assert!(d.on_timeout(&t, &mut b, &mut |n, _| m.push(n)));
        assert_eq!(m, vec![0]);
        assert_eq!(d.poll_timeout(), None);
    }

    #[test]
    fn an_ack_cancels_the_delayed_early_retransmit() {
        let mut d = er(ErMitigation::Both);
        let mut b = board(3);
        sack(&mut b, 1, 3);
        let c = DetectCtx {
            now: 1000 * MS,
            srtt: Some(100 * MS),
            ..ctx(2)
        };
        on_ack(&mut d, &c, &mut b);
        assert_eq!(d.poll_timeout(), Some(1025 * MS));
        // The late segment arrives: the cumulative ACK covers everything.
        b.begin_ack();
        b.on_cum_ack(3000);
        let c = DetectCtx {
            now: 1010 * MS,
            cum_advanced: true,
            ..ctx(0)
        };
        assert_eq!(on_ack(&mut d, &c, &mut b), (false, vec![]));
        assert_eq!(d.poll_timeout(), None);
    }

    #[test]
    fn without_srtt_the_delay_mitigation_does_not_wait() {
        let mut d = er(ErMitigation::Delay);
        let mut b = board(2);
        sack(&mut b, 1, 2);
        assert_eq!(on_ack(&mut d, &ctx(1), &mut b), (true, vec![0]));
    }
}
