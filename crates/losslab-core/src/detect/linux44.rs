//! Linux 4.4 to 4.10's loss detection (`detection = "linux-4.4"`), the
//! OR3 paper's hosts (Linux 4.10, `tcp_recovery = 1`): RACK had joined
//! the older detectors but did not yet replace them.
//!
//! - Recovery starts as in 3.x: tcp_time_to_recover() with FACK ("Trick#1"
//!   over fackets_out) and early retransmit ("Trick#6", tcp_early_retrans
//!   = 3: delayed by max(SRTT/4, 2 ms)), the engine's `early-retransmit`
//!   detector with its Linux variant, which this one wraps.
//! - RACK as 4.4 to 4.10 had it (net/ipv4/tcp_recovery.c,
//!   tcp_rack_mark_lost() and tcp_rack_advance(), read at 4.10.17): it
//!   marks only once recovery or a timeout recovery is under way
//!   (`icsk_ca_state < TCP_CA_Recovery` returns), only when an ACK moved
//!   RACK's send time forward (`rack.advanced`), and with no timer: a
//!   segment is lost when one sent more than reo_wnd after it was
//!   delivered, comparing the two send times, not the time since. reo_wnd
//!   is 1 ms, or max(min_rtt / 4, 1 ms) once reordering was seen
//!   (`rack.reord`).
//!
//! RFC 8985's RACK (`rack`) differs in each of these: it starts recovery
//! itself, waits RACK.rtt + reo_wnd from the send time, arms a reordering
//! timer, and its reo_wnd is 0 in recovery until reordering is seen and
//! adapts to DSACKs. The reordering timer came in 4.11, the same release
//! that removed early retransmit.

use super::{mark, DetectCtx, EarlyRetransmit, ErMitigation, ErVariant, LossDetector, RackAdvance};
use crate::scoreboard::{Scoreboard, SegMeta, EVER_RETRANS, LOST};
use crate::time::{Time, MS};

/// tcp_rack_mark_lost()'s floor of the reordering window, 1000 µs.
const REO_WND_MIN: Time = MS;

#[derive(Clone, Debug)]
pub struct Linux44 {
    er: EarlyRetransmit,
    /// rack.mstamp: the latest send time among the segments delivered so
    /// far (None before the first).
    xmit_ts: Option<Time>,
    /// rack.advanced: `xmit_ts` moved since the last marking pass.
    advanced: bool,
    /// Below it every never-retransmitted segment is SACKed, acknowledged,
    /// lost or retransmitted: the marking walk starts here (the kernel
    /// walks from the head; RACK's send time only grows, so what it passed
    /// once it passes again).
    scan: u64,
}

impl Linux44 {
    pub fn new(dupthresh: u32) -> Self {
        Linux44 {
            er: EarlyRetransmit::with_variant(dupthresh, ErMitigation::Delay, ErVariant::Linux),
            xmit_ts: None,
            advanced: false,
            scan: 0,
        }
    }

    /// tcp_rack_advance() over what this ACK delivered: the send time of
    /// the most recently sent segment. A retransmitted one counts only
    /// when sent at least min_rtt ago ("we assume the original can be
    /// delayed up to aRTT + min_rtt"; before a min_rtt, tcp_min_rtt() is
    /// ~0U and none counts) and, when acknowledged cumulatively, when the
    /// ACK does not echo a timestamp from before the retransmission
    /// (tcp_skb_spurious_retrans() in tcp_clean_rtx_queue();
    /// tcp_sacktag_one() has no such test): `RackAdvance::Linux`.
    fn advance(&mut self, ctx: &DetectCtx, board: &Scoreboard) {
        let d = board.delivered();
        let original = d.latest_original.map(|o| o.sent);
        let retransmitted = RackAdvance::Linux
            .pick(board.delivered_retransmitted(), ctx, ctx.min_rtt)
            .map(|r| r.sent);
        let Some(sent) = original.max(retransmitted) else {
            return;
        };
        if self.xmit_ts.is_none_or(|t| sent > t) {
            self.xmit_ts = Some(sent);
            self.advanced = true;
        }
    }

    /// tcp_rack_mark_lost() of 4.10: returns how many it marked.
    fn mark_lost(
        &mut self,
        ctx: &DetectCtx,
        board: &mut Scoreboard,
        on_mark: &mut dyn FnMut(u64, &SegMeta),
    ) -> u64 {
        if !(ctx.in_fast_recovery || ctx.in_loss) || !self.advanced {
            return 0;
        }
        self.advanced = false;
        let Some(rack) = self.xmit_ts else {
            return 0;
        };
        let reo_wnd = match ctx.min_rtt {
            Some(m) if ctx.reordering_seen => (m / 4).max(REO_WND_MIN),
            _ => REO_WND_MIN,
        };
        // A segment is lost when rack - sent > reo_wnd.
        let lost = |sent: Time| sent.saturating_add(reo_wnd) < rack;
        let mut marked = 0;
        // Retransmissions in flight, oldest first.
        while let Some((_, n)) = board.oldest_retransmission_in_flight() {
            let sent = board.get(n).expect("in flight").last_sent;
            if !lost(sent) {
                break;
            }
            board.mark_retransmission_lost(n);
            let s = *board.get(n).expect("present");
            on_mark(n, &s);
            marked += 1;
        }
        // Segments sent once, in sequence (which is send-time) order: the
        // first that is not lost ends the walk ("Original data are sent
        // sequentially so stop early").
        let mut n = self.scan.max(board.base());
        let end = board.next_seg_no();
        while n < end {
            let past = board.skip_sacked(n);
            if past != n {
                n = past;
                continue;
            }
            let s = *board.get(n).expect("present");
            if s.flags & (LOST | EVER_RETRANS) == 0 {
                if !lost(s.last_sent) {
                    break;
                }
                mark(board, n, on_mark);
                marked += 1;
            }
            n += 1;
        }
        self.scan = n;
        marked
    }
}

impl LossDetector for Linux44 {
    fn name(&self) -> &'static str {
        "linux-4.4"
    }

    /// tcp_fastretrans_alert() of 4.10: RACK marks first (in recovery), then
    /// tcp_time_to_recover() and tcp_update_scoreboard() (FACK, ER).
    fn on_ack(
        &mut self,
        ctx: &DetectCtx,
        board: &mut Scoreboard,
        on_mark: &mut dyn FnMut(u64, &SegMeta),
    ) -> bool {
        // tcp_rack_advance() is called only for SACK connections.
        if ctx.sack_seen {
            self.advance(ctx, board);
            self.mark_lost(ctx, board, on_mark);
        }
        self.er.on_ack(ctx, board, on_mark)
    }

    fn on_rto(&mut self, ctx: &DetectCtx, board: &mut Scoreboard) {
        self.er.on_rto(ctx, board);
    }

    /// Early retransmit's delay; RACK had no timer yet.
    fn poll_timeout(&self) -> Option<Time> {
        self.er.poll_timeout()
    }

    fn on_timeout(
        &mut self,
        ctx: &DetectCtx,
        board: &mut Scoreboard,
        on_mark: &mut dyn FnMut(u64, &SegMeta),
    ) -> bool {
        self.er.on_timeout(ctx, board, on_mark)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{board_sent_at, ctx, sack};
    use super::*;

    fn on_ack(d: &mut Linux44, c: &DetectCtx, b: &mut Scoreboard) -> (bool, Vec<u64>) {
        let mut marked = Vec::new();
        let enter = d.on_ack(c, b, &mut |n, _| marked.push(n));
        (enter, marked)
    }

    /// Ten segments sent 1 ms apart (segment i at i ms), min_rtt 50 ms.
    fn setup() -> (Linux44, Scoreboard) {
        (Linux44::new(3), board_sent_at(10, |i| i * MS))
    }

    fn at(now: Time, recovering: bool) -> DetectCtx {
        DetectCtx {
            now,
            min_rtt: Some(50 * MS),
            cwnd: 10,
            in_fast_recovery: recovering,
            ..ctx(0)
        }
    }

    #[test]
    fn rack_marks_only_in_recovery() {
        // Segment 4 (sent at 4 ms) SACKed at 60 ms: rack = 4 ms, but outside
        // recovery RACK marks nothing. fackets_out 5 > reordering 3: FACK
        // starts recovery and marks the first 5 - 3 = 2 (tcp_mark_head_lost()).
        let (mut d, mut b) = setup();
        b.begin_ack();
        sack(&mut b, 4, 5);
        let (enter, marked) = on_ack(&mut d, &at(60 * MS, false), &mut b);
        assert!(enter);
        assert_eq!(marked, vec![0, 1]);
        // In recovery the next SACK (segment 5, sent at 5 ms) advances rack
        // to 5 ms; reo_wnd 1 ms: 5 - sent > 1 for the holes sent at 2 and
        // 3 ms (0 and 1 are lost already); FACK's 6 - 3 = 3 adds none.
        b.begin_ack();
        sack(&mut b, 5, 6);
        let (_, marked) = on_ack(&mut d, &at(61 * MS, true), &mut b);
        assert_eq!(marked, vec![2, 3]);
    }

    #[test]
    fn reo_wnd_compares_send_times_and_widens_after_reordering() {
        // In recovery, segment 9 (sent at 9 ms) SACKed. reo_wnd 1 ms: every
        // hole sent before 8 ms is lost (9 - 8 = 1 is not > 1): 0-7.
        let (mut d, mut b) = setup();
        b.begin_ack();
        sack(&mut b, 9, 10);
        let (_, marked) = on_ack(&mut d, &at(70 * MS, true), &mut b);
        assert_eq!(marked, (0..8).collect::<Vec<_>>());
        // After reordering, reo_wnd = max(50 / 4, 1) = 12.5 ms: nothing of
        // these ten is more than 12.5 ms older than segment 9.
        let (mut d, mut b) = setup();
        b.begin_ack();
        sack(&mut b, 9, 10);
        let c = DetectCtx {
            reordering_seen: true,
            ..at(70 * MS, true)
        };
        let (_, marked) = on_ack(&mut d, &c, &mut b);
        assert!(marked.is_empty());
        assert_eq!(d.xmit_ts, Some(9 * MS));
    }

    #[test]
    fn no_mark_without_an_advance_and_no_timer() {
        let (mut d, mut b) = setup();
        b.begin_ack();
        sack(&mut b, 5, 6);
        on_ack(&mut d, &at(60 * MS, true), &mut b);
        // The same rack time again: `advanced` is clear, nothing to do,
        // and no reordering timer is ever armed (early retransmit's delay
        // needs fewer than four segments out).
        b.begin_ack();
        let mut marked = Vec::new();
        let c = at(500 * MS, true);
        d.advance(&c, &b);
        assert_eq!(d.mark_lost(&c, &mut b, &mut |n, _| marked.push(n)), 0);
        assert_eq!(d.poll_timeout(), None);
    }

    #[test]
    fn a_retransmission_counts_only_after_min_rtt() {
        // Segment 0 retransmitted at 100 ms and SACKed at 120 ms: 20 ms is
        // under min_rtt 50 ms, so the original may be what arrived; rack
        // does not move.
        let (mut d, mut b) = setup();
        b.on_retransmit(0, 100 * MS, 11);
        b.begin_ack();
        sack(&mut b, 0, 1);
        d.advance(&at(120 * MS, true), &b);
        assert_eq!(d.xmit_ts, None);
        // At 150 ms (50 ms after) it counts.
        let (mut d, mut b) = setup();
        b.on_retransmit(0, 100 * MS, 11);
        b.begin_ack();
        sack(&mut b, 0, 1);
        d.advance(&at(150 * MS, true), &b);
        assert_eq!(d.xmit_ts, Some(100 * MS));
    }

    #[test]
    fn a_lost_retransmission_is_marked_again() {
        // Segment 0 lost and retransmitted at 70 ms; segment 1 retransmitted
        // at 80 ms is SACKed at 140 ms (60 ms later, past min_rtt): rack =
        // 80 ms, 80 - 70 > 1, so segment 0's retransmission is lost.
        let (mut d, mut b) = setup();
        b.mark_lost(0);
        b.mark_lost(1);
        b.on_retransmit(0, 70 * MS, 11);
        b.on_retransmit(1, 80 * MS, 12);
        b.begin_ack();
        sack(&mut b, 1, 2);
        let (_, marked) = on_ack(&mut d, &at(140 * MS, true), &mut b);
        assert_eq!(marked[0], 0);
        assert!(b.get(0).is_some_and(|s| s.is(LOST)));
    }
}
