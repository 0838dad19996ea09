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
//!
//! Two variants (`ErVariant`), named apart because they differ:
//! - `rfc5827`: the RFC's ER_thresh = oflight - 1 over RFC 6675 DupThresh.
//! - `linux`: Linux 3.5 to 4.9's tcp_time_to_recover() (net/ipv4/
//!   tcp_input.c, "Trick#6"), which the tail-loss paper's Linux 3.17 hosts
//!   ran: with fewer than four segments out and nothing new to send, ANY
//!   SACKed segment (one duplicate ACK without SACK) triggers, whatever
//!   oflight is; detection underneath is FACK with Linux's test
//!   fackets_out > reordering ("Trick#1", tcp_fack on by default); the
//!   delay mitigation waits max(SRTT/4, 2 ms) (tcp_pause_early_retransmit,
//!   tcp_early_retrans = 2 or 3). This is what lets a tail loss probe's
//!   single SACK repair two or three lost tail segments (tail-loss paper
//!   section 3.1, "ER if 2-3 segments are lost", FACK for four or more).

use super::{mark, DetectCtx, DupThresh, ErMitigation, ErVariant, Fack, LossDetector};
use crate::scoreboard::{Scoreboard, SegMeta, LOST};
use crate::time::{Time, MS};

/// The PRR/ER paper's ER delay: SRTT/4 bounded to [25 ms, 500 ms].
pub fn er_delay(srtt: Time) -> Time {
    (srtt / 4).clamp(25 * MS, 500 * MS)
}

/// Linux's ER delay (tcp_pause_early_retransmit): max(SRTT/4, 2 ms).
pub fn er_delay_linux(srtt: Time) -> Time {
    (srtt / 4).max(2 * MS)
}

/// The detection ER sits on.
#[derive(Clone, Debug)]
enum Base {
    Rfc6675(DupThresh),
    Fack(Fack),
}

#[derive(Clone, Debug)]
pub struct EarlyRetransmit {
    base: Base,
    variant: ErVariant,
    mitigation: ErMitigation,
    /// A delayed early retransmit is pending until then.
    timer: Option<Time>,
}

impl EarlyRetransmit {
    pub fn new(dupthresh: u32, mitigation: ErMitigation) -> Self {
        Self::with_variant(dupthresh, mitigation, ErVariant::Rfc5827)
    }

    pub fn with_variant(dupthresh: u32, mitigation: ErMitigation, variant: ErVariant) -> Self {
        let base = match variant {
            ErVariant::Rfc5827 => Base::Rfc6675(DupThresh::new(dupthresh)),
            ErVariant::Linux => Base::Fack(Fack::linux(dupthresh)),
        };
        EarlyRetransmit {
            base,
            variant,
            mitigation,
            timer: None,
        }
    }

    pub fn variant(&self) -> ErVariant {
        self.variant
    }

    pub fn mitigation(&self) -> ErMitigation {
        self.mitigation
    }

    /// RFC 5827 ER_thresh when early retransmit applies to this state.
    pub fn er_thresh(&self, ctx: &DetectCtx, board: &Scoreboard) -> Option<u64> {
        if ctx.in_fast_recovery || ctx.in_loss {
            return None;
        }
        // Linux turns ER off for good once it sees reordering
        // (tcp_update_reordering() -> tcp_disable_early_retrans()); the RFC
        // only with the reordering mitigation.
        let off_after_reordering =
            self.mitigation.off_after_reordering() || self.variant == ErVariant::Linux;
        if off_after_reordering && ctx.reordering_seen {
            return None;
        }
        // (2.a) fewer than four segments outstanding; (2.b) no new segment
        // can be sent: RFC 5827 means the application or the receive
        // window; Linux asks tcp_may_send_now(), where cwnd counts too.
        let oflight = board.packets_out();
        let can_send = match self.variant {
            ErVariant::Rfc5827 => ctx.can_send_new,
            ErVariant::Linux => ctx.can_send_new && oflight < ctx.cwnd,
        };
        if !(2..4).contains(&oflight) || can_send || board.retrans_out() > 0 {
            return None;
        }
        Some(match self.variant {
            ErVariant::Rfc5827 => oflight - 1,
            // tp->sacked_out != 0 (and, implied by the SACKs, fewer SACKed
            // than outstanding).
            ErVariant::Linux => 1,
        })
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
        let enter = match &mut self.base {
            Base::Rfc6675(d) => d.on_ack(ctx, board, on_mark),
            Base::Fack(d) => d.on_ack(ctx, board, on_mark),
        };
        if enter || board.is_empty() || !self.triggered(ctx, board) {
            return enter;
        }
        if self.mitigation.delays() {
            if let Some(srtt) = ctx.srtt {
                let delay = match self.variant {
                    ErVariant::Rfc5827 => er_delay(srtt),
                    ErVariant::Linux => er_delay_linux(srtt),
                };
                self.timer = Some(ctx.now + delay);
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

    fn linux(m: ErMitigation) -> EarlyRetransmit {
        EarlyRetransmit::with_variant(3, m, ErVariant::Linux)
    }

    #[test]
    fn linux_triggers_on_one_sack_with_three_out() {
        // Tail-loss paper section 3.2: segments 8-10 of 10 lost, the loss
        // probe retransmits 10 and its SACK alone starts recovery of 8.
        // RFC 5827 would want two (ER_thresh = oflight - 1 = 2).
        let mut b = board(3);
        sack(&mut b, 2, 3);
        assert_eq!(
            on_ack(&mut er(ErMitigation::None), &ctx(1), &mut b.clone()),
            (false, vec![])
        );
        let mut d = linux(ErMitigation::None);
        assert_eq!(d.er_thresh(&ctx(1), &b), Some(1));
        assert_eq!(on_ack(&mut d, &ctx(1), &mut b), (true, vec![0]));
    }

    #[test]
    fn linux_uses_fackets_for_four_or_more_out() {
        // Four outstanding, the probe's SACK of the fourth: fackets_out 4 >
        // reordering 3 starts recovery (Linux "Trick#1") and marks the
        // first fackets_out - reordering = 1 segment.
        let mut b = board(4);
        sack(&mut b, 3, 4);
        let mut d = linux(ErMitigation::None);
        assert_eq!(d.er_thresh(&ctx(1), &b), None);
        assert_eq!(on_ack(&mut d, &ctx(1), &mut b), (true, vec![0]));
        // RFC 5827 over DupThresh does nothing here.
        let mut b = board(4);
        sack(&mut b, 3, 4);
        assert_eq!(
            on_ack(&mut er(ErMitigation::None), &ctx(1), &mut b),
            (false, vec![])
        );
    }

    #[test]
    fn linux_counts_cwnd_in_no_new_data_and_stops_after_reordering() {
        // Three out, one SACKed, new data waiting but cwnd (3) full: Linux's
        // tcp_may_send_now() says no, so early retransmit applies; RFC 5827
        // only looks at the application and the receive window.
        let mut b = board(3);
        sack(&mut b, 2, 3);
        let full = DetectCtx {
            can_send_new: true,
            cwnd: 3,
            ..ctx(1)
        };
        assert_eq!(linux(ErMitigation::None).er_thresh(&full, &b), Some(1));
        assert_eq!(er(ErMitigation::None).er_thresh(&full, &b), None);
        let open = DetectCtx { cwnd: 10, ..full };
        assert_eq!(linux(ErMitigation::None).er_thresh(&open, &b), None);
        // After reordering Linux never early-retransmits again, whatever
        // the mitigation setting.
        let reordered = DetectCtx {
            reordering_seen: true,
            ..full
        };
        assert_eq!(linux(ErMitigation::None).er_thresh(&reordered, &b), None);
    }

    #[test]
    fn linux_delay_is_a_quarter_srtt_at_least_2_ms() {
        assert_eq!(er_delay_linux(4 * MS), 2 * MS);
        assert_eq!(er_delay_linux(80 * MS), 20 * MS);
        let mut d = linux(ErMitigation::Delay);
        let mut b = board(3);
        sack(&mut b, 2, 3);
        let c = DetectCtx {
            now: 1000 * MS,
            srtt: Some(80 * MS),
            ..ctx(1)
        };
        assert_eq!(on_ack(&mut d, &c, &mut b), (false, vec![]));
        assert_eq!(d.poll_timeout(), Some(1020 * MS));
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
