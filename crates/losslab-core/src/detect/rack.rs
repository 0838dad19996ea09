//! RACK loss detection (RFC 8985 sections 6.1-6.2; TLP is not here).
//!
//! "A segment is lost if a segment sent sufficiently later has been
//! delivered": RACK remembers the transmission time of the most recently
//! sent segment that was delivered (RACK.xmit_ts) and the RTT it measured
//! (RACK.rtt); any un-SACKed segment sent before it is lost once
//! now >= its transmission time + RACK.rtt + RACK.reo_wnd. Segments that are
//! not yet so old arm the reordering timer for the remainder.
//!
//! The reordering window (section 6.2 step 4, RACK_update_reo_wnd() and
//! RACK_calc_reo_wnd()): zero while no reordering has been seen and either
//! the sender is in recovery or DupThresh segments are SACKed (so RACK is
//! at least as fast as RFC 6675); otherwise
//! min(RACK.min_RTT / 4 * reo_wnd_mult, SRTT). reo_wnd_mult grows by one
//! per round trip in which a DSACK arrives and returns to 1 after 16
//! recoveries without one (reo_wnd_persist).
//!
//! Shape after Linux net/ipv4/tcp_recovery.c (tcp_rack_detect_loss(),
//! tcp_rack_advance(), tcp_rack_update_reo_wnd()). As there, the
//! reordering timer is armed for the latest remaining expiry (RFC 8985
//! RACK_detect_loss(): `min_timeout = max(min_timeout, remaining)`; Linux
//! `*reo_timeout = max_t(u32, *reo_timeout, remaining)`), so one timer
//! event declares every waiting segment lost together. RACK.min_RTT is a
//! windowed minimum (RFC 8985 6.2 step 1) of the sender's RTT samples and
//! RACK's own unambiguous ones (SACKed segments sent once), over Linux's
//! tcp_min_rtt_wlen of 300 s. Difference: transmissions are ordered by the
//! sender-wide transmission counter (`tx_order`), which is strictly
//! monotonic, instead of (time, end_seq).
//!
//! The timer fires at that expiry by default. `with_reo_timer(mode, hz)`
//! (`[flow.rack] reo_timer`, with the flow's `timer_hz`) arms it as
//! Linux's tcp_rack_mark_lost() does, in jiffies from the current one,
//! then inet_csk_reset_xmit_timer(): since the October 2023 fix "tcp: fix
//! excessive TLP and RACK timeouts from HZ rounding" (6.6, so every 6.x
//! from 6.6) `usecs_to_jiffies(timeout + TCP_TIMEOUT_MIN_US)`, 2 ms
//! before rounding up (`"linux"`); before it
//! `usecs_to_jiffies(timeout) + TCP_TIMEOUT_MIN`, 2 jiffies after
//! (`"linux-2-jiffies"`, 8 ms at HZ = 250).
//!
//! Without SACK, RACK has nothing to go on before the cumulative ACK moves,
//! so the connection falls back to RFC 6675 DupThresh / RFC 6582.
//!
//! Cost: never-retransmitted segments are visited in sequence order from a
//! cursor that only moves forward; retransmissions in flight in the order
//! they were sent (`Scoreboard::oldest_retransmission_in_flight`). Each
//! call stops at the first segment that is not yet lost, so the work per
//! ACK is amortised O(1) plus O(log n) per segment declared lost.

use super::{mark, DetectCtx, DupThresh, LossDetector};
use crate::minmax::MinFilter;
use crate::scoreboard::{
    later, DeliveredRetransmitted, DeliveredSeg, Scoreboard, SegMeta, EVER_RETRANS, LOST,
};
use crate::time::{jiffy_deadline, usecs_to_jiffies, Time, SEC, US};

/// RFC 8985: reo_wnd_mult persists for 16 recoveries after a DSACK.
pub const REO_WND_PERSIST: u32 = 16;
/// The window of RACK.min_RTT's filter: Linux's tcp_min_rtt_wlen default.
pub const MIN_RTT_WINDOW: Time = 300 * SEC;
/// include/net/tcp.h TCP_TIMEOUT_MIN: the shortest TCP timer, jiffies.
pub const TCP_TIMEOUT_MIN: u64 = 2;
/// include/net/tcp.h TCP_TIMEOUT_MIN_US (Linux 6.6 and later), usecs.
pub const TCP_TIMEOUT_MIN_US: u64 = 2000;

/// How the reordering timer is armed (`[flow.rack] reo_timer`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReoTimer {
    /// At the latest expiry itself (the behaviour before the key).
    #[default]
    Exact,
    /// Linux 6.6+ tcp_rack_mark_lost(): the wait plus TCP_TIMEOUT_MIN_US
    /// in jiffies of the flow's `timer_hz`, rounded up.
    Linux,
    /// tcp_rack_mark_lost() before 6.6: the wait in jiffies, rounded up,
    /// plus TCP_TIMEOUT_MIN.
    LinuxTwoJiffies,
}

impl ReoTimer {
    pub const NAMES: &'static [&'static str] = &["exact", "linux", "linux-2-jiffies"];

    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "exact" => Some(ReoTimer::Exact),
            "linux" => Some(ReoTimer::Linux),
            "linux-2-jiffies" => Some(ReoTimer::LinuxTwoJiffies),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ReoTimer::Exact => "exact",
            ReoTimer::Linux => "linux",
            ReoTimer::LinuxTwoJiffies => "linux-2-jiffies",
        }
    }
}

/// Which delivered retransmissions may move RACK.xmit_ts (`[flow.rack]
/// advance`). Which copy arrived is ambiguous; the two guard it apart.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RackAdvance {
    /// RFC 8985 section 6.2 step 2 (RACK_update()): only if the ACK echoes
    /// a timestamp not older than the retransmission and the RTT is not
    /// below RACK.min_RTT, for SACKed and cumulatively acknowledged ones
    /// alike (the behaviour before the key).
    #[default]
    Rfc8985,
    /// Linux (net/ipv4/tcp_recovery.c tcp_rack_advance(), read at 4.10.17
    /// and the same in 6.x): a SACKed retransmission if its RTT is not
    /// below tcp_min_rtt(), whatever the ACK echoes (tcp_sacktag_one()
    /// calls it for every newly SACKed segment); a cumulatively
    /// acknowledged one only if tcp_skb_spurious_retrans() also finds the
    /// echo not older than the retransmission (tcp_clean_rtx_queue()). A
    /// receiver echoes the segment that last advanced its window (RFC 7323
    /// section 4.3), so a retransmission SACKed above a hole never passes
    /// RFC 8985's test, and a lost retransmission below it waits for the
    /// RTO where Linux's RACK marks it lost.
    Linux,
}

impl RackAdvance {
    pub const NAMES: &'static [&'static str] = &["rfc8985", "linux"];

    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "rfc8985" => Some(RackAdvance::Rfc8985),
            "linux" => Some(RackAdvance::Linux),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            RackAdvance::Rfc8985 => "rfc8985",
            RackAdvance::Linux => "linux",
        }
    }

    /// The most recently sent of the retransmissions this ACK delivered
    /// that may move RACK.xmit_ts, given what `ctx` echoes and `min_rtt`
    /// (None: no minimum yet, Linux's ~0U, so none may). Each is checked
    /// on its own and the newest that passes counts (RFC 8985 6.2 step 2
    /// walks every newly acknowledged segment and skips one that fails;
    /// Linux calls tcp_rack_advance() per skb, which returns early for
    /// one that fails), so one retransmission too recent to count does
    /// not hide an older one that does. Linux's rack.rtt_us is the RTT of
    /// the last skb it took, in its walk's order (SACKed before
    /// cumulatively acknowledged); RACK.rtt here is the newest's, which
    /// differs only when an ACK delivers both and an older one comes last.
    pub fn pick(
        self,
        d: &DeliveredRetransmitted,
        ctx: &DetectCtx,
        min_rtt: Option<Time>,
    ) -> Option<DeliveredSeg> {
        let aged = |r: &DeliveredSeg| min_rtt.is_some_and(|m| ctx.now.saturating_sub(r.sent) >= m);
        let echoed = |r: &DeliveredSeg| ctx.echo_not_before(r.sent);
        match self {
            RackAdvance::Rfc8985 => d.newest(|r| echoed(r) && aged(r)),
            RackAdvance::Linux => later(
                d.newest_sacked(aged),
                d.newest_cum(|r| echoed(r) && aged(r)),
            ),
        }
    }
}

/// When Linux's reordering timer fires for an expiry `due` computed at
/// `now`, at HZ = `hz` (tcp_rack_mark_lost()): the remaining wait in
/// microseconds (rounded up: Linux's are differences of microsecond
/// stamps, ours of nanoseconds), to jiffies by usecs_to_jiffies()
/// (rounding up; exact for an HZ that divides 10^6, as 100, 250 and
/// 1000 do), with the floor `mode` says, counted from the jiffy `now`
/// falls in. `Exact`: `due`.
pub fn linux_reo_deadline(mode: ReoTimer, now: Time, due: Time, hz: u32) -> Time {
    let hz = u64::from(hz.max(1));
    let remaining_us = due.saturating_sub(now).div_ceil(US);
    let jiffies = match mode {
        ReoTimer::Exact => return due,
        ReoTimer::Linux => usecs_to_jiffies(remaining_us + TCP_TIMEOUT_MIN_US, hz),
        ReoTimer::LinuxTwoJiffies => usecs_to_jiffies(remaining_us, hz) + TCP_TIMEOUT_MIN,
    };
    jiffy_deadline(now, jiffies, hz)
}

#[derive(Clone, Debug)]
pub struct Rack {
    /// Without SACK.
    fallback: DupThresh,
    dupthresh: u32,
    /// RACK.xmit_ts and the transmission order of that segment (the
    /// ordering key that replaces RACK.end_seq).
    xmit_ts: Time,
    tx_order: Option<u64>,
    /// RACK.rtt.
    rtt: Time,
    /// RACK.min_RTT: windowed minimum of the sender's RTT samples and
    /// RACK's own unambiguous ones.
    min_rtt: MinFilter,
    reo_wnd_mult: u32,
    reo_wnd_persist: u32,
    /// RACK.dsack_round: SND.NXT when reo_wnd_mult last grew.
    dsack_round: Option<u64>,
    /// RACK.reo_wnd as last computed.
    reo_wnd: Time,
    /// The lowest never-retransmitted segment that may still be declared
    /// lost (below it every such segment is SACKed, acknowledged or lost).
    scan: u64,
    timer: Option<Time>,
    /// How the reordering timer is armed, and the HZ of its jiffies.
    reo_timer: ReoTimer,
    timer_hz: u32,
    /// Which delivered retransmissions may move RACK.xmit_ts.
    advance: RackAdvance,
}

impl Rack {
    pub fn new(dupthresh: u32) -> Self {
        Rack {
            fallback: DupThresh::new(dupthresh),
            dupthresh: dupthresh.max(1),
            xmit_ts: 0,
            tx_order: None,
            rtt: 0,
            min_rtt: MinFilter::min(MIN_RTT_WINDOW),
            reo_wnd_mult: 1,
            reo_wnd_persist: REO_WND_PERSIST,
            dsack_round: None,
            reo_wnd: 0,
            scan: 0,
            timer: None,
            reo_timer: ReoTimer::Exact,
            timer_hz: 0,
            advance: RackAdvance::Rfc8985,
        }
    }

    /// Lets delivered retransmissions move RACK.xmit_ts as `advance` says.
    pub fn with_advance(mut self, advance: RackAdvance) -> Self {
        self.advance = advance;
        self
    }

    /// Arms the reordering timer as `mode` says, in jiffies at HZ =
    /// `hz`; with `hz` 0 (exact timers) at the expiry whatever the mode.
    pub fn with_reo_timer(mut self, mode: ReoTimer, hz: u32) -> Self {
        self.reo_timer = if hz == 0 { ReoTimer::Exact } else { mode };
        self.timer_hz = hz;
        self
    }

    pub fn reo_wnd_mult(&self) -> u32 {
        self.reo_wnd_mult
    }
    pub fn reo_wnd(&self) -> Time {
        self.reo_wnd
    }
    /// RACK.rtt.
    pub fn rtt(&self) -> Time {
        self.rtt
    }
    /// RACK.xmit_ts, once a segment has been delivered.
    pub fn xmit_ts(&self) -> Option<Time> {
        self.tx_order.map(|_| self.xmit_ts)
    }

    /// RACK.min_RTT; before any sample of its own, the sender's minimum.
    fn min_rtt(&self, ctx: &DetectCtx) -> Option<Time> {
        self.min_rtt.get().or(ctx.min_rtt)
    }

    /// Step 2, RACK_update(): the most recently sent segment this ACK
    /// delivered, with RFC 8985's checks for retransmitted ones (the ACK
    /// must echo a timestamp not older than the retransmission, and the
    /// RTT must not be below RACK.min_RTT, else the original may be what
    /// arrived).
    fn update(&mut self, ctx: &DetectCtx, board: &Scoreboard) {
        let d = *board.delivered();
        let mut best = d.latest_original;
        // Step 1: RACK.min_RTT from the ACK's RTT sample and from an
        // unambiguous sample of RACK's own.
        if let Some(r) = ctx.rtt_sample {
            self.min_rtt.update(ctx.now, r);
        }
        if let Some(o) = d.latest_original {
            self.min_rtt.update(ctx.now, ctx.now.saturating_sub(o.sent));
        }
        let min_rtt = self.min_rtt(ctx);
        if let Some(r) = self
            .advance
            .pick(board.delivered_retransmitted(), ctx, min_rtt)
        {
            if best.is_none_or(|b| b.tx_order < r.tx_order) {
                best = Some(r);
            }
        }
        if let Some(b) = best {
            self.rtt = ctx.now.saturating_sub(b.sent);
            if self.tx_order.is_none_or(|o| o < b.tx_order) {
                self.tx_order = Some(b.tx_order);
                self.xmit_ts = b.sent;
            }
        }
    }

    /// Step 4, RACK_update_reo_wnd().
    fn update_reo_wnd(&mut self, ctx: &DetectCtx, board: &Scoreboard) {
        if self.dsack_round.is_some_and(|r| ctx.snd_una >= r) {
            self.dsack_round = None;
        }
        if self.dsack_round.is_none() && ctx.dsack {
            self.dsack_round = Some(ctx.snd_nxt);
            self.reo_wnd_mult = self.reo_wnd_mult.saturating_add(1);
            self.reo_wnd_persist = REO_WND_PERSIST;
        } else if ctx.exiting_recovery {
            self.reo_wnd_persist = self.reo_wnd_persist.saturating_sub(1);
            if self.reo_wnd_persist == 0 {
                self.reo_wnd_mult = 1;
            }
        }
        self.reo_wnd = self.calc_reo_wnd(ctx, board);
    }

    /// RACK_calc_reo_wnd().
    fn calc_reo_wnd(&self, ctx: &DetectCtx, board: &Scoreboard) -> Time {
        if !ctx.reordering_seen
            && (ctx.in_fast_recovery
                || ctx.in_loss
                || board.sacked_out() >= u64::from(self.dupthresh))
        {
            return 0;
        }
        let Some(min_rtt) = self.min_rtt(ctx) else {
            return 0;
        };
        let w = (min_rtt / 4).saturating_mul(u64::from(self.reo_wnd_mult));
        ctx.srtt.map_or(w, |s| w.min(s))
    }

    /// Step 5, RACK_detect_loss_and_arm_timer(): declares lost every
    /// segment sent before RACK.xmit_ts whose time is up, and arms the
    /// timer for the latest expiry among those whose time is not. Returns
    /// how many it declared lost.
    fn detect_loss(
        &mut self,
        now: Time,
        board: &mut Scoreboard,
        on_mark: &mut dyn FnMut(u64, &SegMeta),
    ) -> u64 {
        self.timer = None;
        let Some(rack_order) = self.tx_order else {
            return 0;
        };
        let wait = self.rtt.saturating_add(self.reo_wnd);
        let mut marked = 0;
        // Retransmissions in flight, in the order they were sent; those
        // not yet due are the later ones, and the last of them sent before
        // RACK.xmit_ts expires last.
        while let Some((order, n)) = board.oldest_retransmission_in_flight() {
            if order >= rack_order {
                break;
            }
            let sent = board.get(n).expect("in flight").last_sent;
            if sent.saturating_add(wait) > now {
                break;
            }
            board.mark_retransmission_lost(n);
            let s = *board.get(n).expect("present");
            on_mark(n, &s);
            marked += 1;
        }
        let mut latest: Option<Time> = board
            .latest_retransmission_in_flight_before(rack_order)
            .map(|(_, n)| board.get(n).expect("in flight").last_sent + wait);
        // Segments sent once, in sequence (which is transmission) order.
        // Lost ones wait for their retransmission; retransmitted ones were
        // handled above.
        let mut n = self.scan.max(board.base());
        let end = board.next_seg_no();
        // A SACKed run is skipped whole (`skip_sacked`: one search per run,
        // none per hole). Marking segments lost leaves the runs alone.
        while n < end {
            let past = board.skip_sacked(n);
            if past != n {
                n = past;
                continue;
            }
            let s = *board.get(n).expect("present");
            if s.flags & (LOST | EVER_RETRANS) != 0 {
                n += 1;
                continue;
            }
            if s.tx_order >= rack_order {
                break;
            }
            if s.last_sent.saturating_add(wait) > now {
                break;
            }
            mark(board, n, on_mark);
            marked += 1;
            n += 1;
        }
        self.scan = n;
        // Segments sent once were sent in sequence order, so from the first
        // one not yet due every later one waits too, up to RACK's own: the
        // last of them expires last.
        let mut m = n;
        while m < end {
            let past = board.skip_sacked(m);
            if past != m {
                m = past;
                continue;
            }
            let s = *board.get(m).expect("present");
            m += 1;
            if s.flags & (LOST | EVER_RETRANS) != 0 {
                continue;
            }
            if s.tx_order >= rack_order {
                break;
            }
            let due = s.last_sent.saturating_add(wait);
            latest = Some(latest.map_or(due, |t| t.max(due)));
        }
        self.timer = latest
            .filter(|&t| t > now)
            .map(|due| linux_reo_deadline(self.reo_timer, now, due, self.timer_hz));
        marked
    }
}

impl LossDetector for Rack {
    fn name(&self) -> &'static str {
        "rack"
    }

    fn on_ack(
        &mut self,
        ctx: &DetectCtx,
        board: &mut Scoreboard,
        on_mark: &mut dyn FnMut(u64, &SegMeta),
    ) -> bool {
        if !ctx.sack_seen {
            self.timer = None;
            return self.fallback.on_ack(ctx, board, on_mark);
        }
        self.update(ctx, board);
        self.update_reo_wnd(ctx, board);
        self.detect_loss(ctx.now, board, on_mark);
        // Recovery starts while any segment is marked lost, retransmitted
        // or not (Linux tcp_time_to_recover(): `if (tp->lost_out) return
        // true`): a recovery that ends with lost retransmissions still
        // unacknowledged starts the next one on the same ACK, as
        // tcp_fastretrans_alert() does after tcp_try_undo_recovery() set
        // the state to Open.
        board.lost_out() > 0
    }

    /// RFC 8985 section 6.3, RACK_mark_losses_on_RTO(): the first
    /// unacknowledged segment, and every other one sent at least RACK.rtt
    /// plus RACK.reo_wnd ago; the rest may still be on their way. (Linux
    /// tcp_timeout_mark_lost() uses a reordering window of 0 here.)
    fn on_rto(&mut self, ctx: &DetectCtx, board: &mut Scoreboard) {
        if !ctx.sack_seen {
            board.mark_all_lost();
            return;
        }
        self.timer = None;
        self.reo_wnd = self.calc_reo_wnd(ctx, board);
        let wait = self.rtt.saturating_add(self.reo_wnd);
        let base = board.base();
        for n in base..board.next_seg_no() {
            let old = board
                .get(n)
                .is_some_and(|s| s.last_sent.saturating_add(wait) <= ctx.now);
            if n == base || old {
                board.mark_lost_on_rto(n);
            }
        }
    }

    fn poll_timeout(&self) -> Option<Time> {
        self.timer
    }

    /// The reordering timer (RFC 8985 section 6.2, RACK_detect_loss_and_
    /// arm_timer() again; Linux tcp_rack_reo_timeout()).
    fn on_timeout(
        &mut self,
        ctx: &DetectCtx,
        board: &mut Scoreboard,
        on_mark: &mut dyn FnMut(u64, &SegMeta),
    ) -> bool {
        self.timer = None;
        if !ctx.sack_seen {
            return false;
        }
        self.reo_wnd = self.calc_reo_wnd(ctx, board);
        self.detect_loss(ctx.now, board, on_mark) > 0 && board.next_to_retransmit().is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{board_sent_at, ctx, sack};
    use super::*;
    use crate::time::{MS, US};

    /// Segment i sent at i ms; min RTT and SRTT 100 ms.
    fn setup() -> (Rack, Scoreboard) {
        (Rack::new(3), board_sent_at(10, |i| i * MS))
    }
    fn at(now: Time) -> DetectCtx {
        DetectCtx {
            now,
            min_rtt: Some(100 * MS),
            rtt_sample: Some(100 * MS),
            srtt: Some(100 * MS),
            snd_nxt: 10_000,
            ..ctx(1)
        }
    }
    fn on_ack(r: &mut Rack, c: &DetectCtx, b: &mut Scoreboard) -> (bool, Vec<u64>) {
        let mut m = vec![];
        let enter = r.on_ack(c, b, &mut |n, _| m.push(n));
        b.check_invariants().unwrap();
        (enter, m)
    }
    fn on_timeout(r: &mut Rack, c: &DetectCtx, b: &mut Scoreboard) -> (bool, Vec<u64>) {
        let mut m = vec![];
        let enter = r.on_timeout(c, b, &mut |n, _| m.push(n));
        b.check_invariants().unwrap();
        (enter, m)
    }

    #[test]
    fn lost_when_a_later_segment_is_delivered_and_the_window_has_passed() {
        let (mut r, mut b) = setup();
        // Segment 2 (sent at 2 ms) is SACKed at 102 ms: RACK.rtt = 100 ms.
        b.begin_ack();
        sack(&mut b, 2, 3);
        assert_eq!(on_ack(&mut r, &at(102 * MS), &mut b), (false, vec![]));
        assert_eq!(r.rtt(), 100 * MS);
        // One SACKed segment, no reordering seen, not in recovery:
        // reo_wnd = min(min_RTT / 4, SRTT) = 25 ms. Segment 0 is lost at
        // 0 + 100 + 25 ms, segment 1 (sent 1 ms later) at 126 ms; the timer
        // is armed for the latest of them (RFC 8985 RACK_detect_loss()).
        assert_eq!(r.reo_wnd(), 25 * MS);
        assert_eq!(r.poll_timeout(), Some(126 * MS));
        // An early call declares only what is due and re-arms.
        assert_eq!(on_timeout(&mut r, &at(125 * MS), &mut b), (true, vec![0]));
        assert_eq!(r.poll_timeout(), Some(126 * MS));
        assert_eq!(on_timeout(&mut r, &at(126 * MS), &mut b), (true, vec![1]));
        // Nothing sent before segment 2 is left; 3.. were sent after it.
        assert_eq!(r.poll_timeout(), None);
        assert_eq!(b.lost_out(), 2);
    }

    #[test]
    fn an_ack_late_enough_marks_at_once() {
        let (mut r, mut b) = setup();
        b.begin_ack();
        sack(&mut b, 3, 4);
        // Segment 3 sent at 3 ms, SACKed at 130 ms: RACK.rtt = 127 ms, and
        // segments 0..2 are due at 152..154 ms.
        assert_eq!(on_ack(&mut r, &at(130 * MS), &mut b).1, Vec::<u64>::new());
        b.begin_ack();
        sack(&mut b, 4, 5);
        // Segment 4 SACKed at 200 ms (RACK.rtt 196 ms): 0, 1 and 2 are due
        // at 0..2 + 196 + 25 ms = 221..223 ms, 3 is SACKed; the timer waits
        // for the latest, 223 ms.
        assert_eq!(on_ack(&mut r, &at(200 * MS), &mut b).1, Vec::<u64>::new());
        assert_eq!(r.poll_timeout(), Some(223 * MS));
        b.begin_ack();
        assert_eq!(
            on_ack(&mut r, &at(222 * MS), &mut b),
            (true, vec![0, 1]),
            "an ACK without new deliveries still runs detection"
        );
        assert_eq!(r.poll_timeout(), Some(223 * MS));
    }

    #[test]
    fn dupthresh_sacked_segments_or_recovery_close_the_window() {
        let (mut r, mut b) = setup();
        b.begin_ack();
        sack(&mut b, 3, 6);
        // Three SACKed segments and no reordering seen: reo_wnd = 0 and the
        // segments sent before the latest delivered one are lost now.
        assert_eq!(on_ack(&mut r, &at(105 * MS), &mut b), (true, vec![0, 1, 2]));
        assert_eq!(r.reo_wnd(), 0);
        // With reordering seen the window stays open, even in recovery.
        let (mut r, mut b) = setup();
        b.begin_ack();
        sack(&mut b, 3, 6);
        let c = DetectCtx {
            reordering_seen: true,
            in_fast_recovery: true,
            ..at(105 * MS)
        };
        assert_eq!(on_ack(&mut r, &c, &mut b), (false, vec![]));
        assert_eq!(r.reo_wnd(), 25 * MS);
    }

    #[test]
    fn a_lost_retransmission_is_detected_too() {
        let (mut r, mut b) = setup();
        // Segment 0 was lost and retransmitted at 50 ms (order 11); then
        // new segment 10 went out at 60 ms (order 12) and is SACKed at
        // 160 ms. The retransmission, sent earlier, is lost at
        // 50 + 100 + 0 ms (in recovery): the segment waits again.
        b.mark_lost(0);
        b.on_retransmit(0, 50 * MS, 11);
        b.push_new(10_000, 1000, 60 * MS, 12);
        b.begin_ack();
        sack(&mut b, 1, 11);
        let c = DetectCtx {
            in_fast_recovery: true,
            ..at(160 * MS)
        };
        assert_eq!(on_ack(&mut r, &c, &mut b), (true, vec![0]));
        assert_eq!(b.next_to_retransmit(), Some(0));
        assert_eq!(b.retrans_out(), 0);
    }

    /// The WAN case of docs/FIDELITY.md: segments 0 and 5 of 0..9 (sent
    /// at i ms) are lost, both marked at 105 ms and retransmitted at 110
    /// and 120 ms (orders 11 and 12); 0's retransmission is lost too. At
    /// 220 ms 5's retransmission is SACKed; the ACK echoes the timestamp
    /// of segment 0's first copy (TSval 0 + 1), the receiver's TS.Recent
    /// while 0 is missing (RFC 7323 section 4.3). Its RTT, 100 ms, is not
    /// below min_RTT: Linux's tcp_rack_advance() moves RACK to 120 ms, and
    /// 0's retransmission, due at 110 + 100 + 0 ms (in recovery), is lost
    /// now. RFC 8985's echo test refuses the sample, and 0 waits for the
    /// RTO. A cumulative ACK of a retransmission with such an echo moves
    /// neither (tcp_skb_spurious_retrans()).
    #[test]
    fn a_sacked_retransmission_moves_linux_rack_whatever_the_echo() {
        let run = |advance: RackAdvance| {
            let (r, mut b) = setup();
            let mut r = r.with_advance(advance);
            b.begin_ack();
            sack(&mut b, 1, 5);
            sack(&mut b, 6, 10);
            let c = DetectCtx {
                in_fast_recovery: true,
                ..at(105 * MS)
            };
            assert_eq!(on_ack(&mut r, &c, &mut b), (true, vec![0, 5]));
            b.on_retransmit(0, 110 * MS, 11);
            b.on_retransmit(5, 120 * MS, 12);
            b.begin_ack();
            sack(&mut b, 5, 6);
            let c = DetectCtx {
                in_fast_recovery: true,
                ts_ecr: 1,
                ..at(220 * MS)
            };
            let got = on_ack(&mut r, &c, &mut b).1;
            (got, r.xmit_ts())
        };
        assert_eq!(run(RackAdvance::Linux), (vec![0], Some(120 * MS)));
        assert_eq!(run(RackAdvance::Rfc8985), (vec![], Some(9 * MS)));

        // Cumulatively: segment 0's retransmission (order 11, 110 ms)
        // acknowledged at 215 ms, RTT 105 ms: with the old echo neither
        // takes it; with an echo from after the retransmission both do.
        let cum = |advance: RackAdvance, ts_ecr: Time| {
            let (r, mut b) = setup();
            let mut r = r.with_advance(advance);
            b.begin_ack();
            sack(&mut b, 1, 10);
            let c = DetectCtx {
                in_fast_recovery: true,
                ..at(105 * MS)
            };
            assert_eq!(on_ack(&mut r, &c, &mut b), (true, vec![0]));
            b.on_retransmit(0, 110 * MS, 11);
            b.begin_ack();
            b.on_cum_ack(10_000);
            let c = DetectCtx {
                ts_ecr,
                ..at(215 * MS)
            };
            on_ack(&mut r, &c, &mut b);
            r.xmit_ts()
        };
        for advance in [RackAdvance::Linux, RackAdvance::Rfc8985] {
            assert_eq!(cum(advance, 1), Some(9 * MS), "{advance:?}");
            assert_eq!(cum(advance, 110 * MS + 1), Some(110 * MS), "{advance:?}");
        }
    }

    #[test]
    fn min_rtt_is_a_windowed_minimum() {
        // RFC 8985 6.2 step 1: RACK.min_RTT follows the path when its RTT
        // rises for longer than the filter's window (300 s).
        let (mut r, mut b) = setup();
        b.begin_ack();
        sack(&mut b, 1, 2);
        on_ack(&mut r, &at(101 * MS), &mut b);
        assert_eq!((r.reo_wnd(), r.min_rtt.get()), (25 * MS, Some(100 * MS)));
        // Four minutes later the RTT is 400 ms; six minutes later the
        // 100 ms sample has left the window and reo_wnd is 400 / 4 ms.
        let late = |now| DetectCtx {
            rtt_sample: Some(400 * MS),
            min_rtt: Some(100 * MS),
            srtt: Some(400 * MS),
            ..at(now)
        };
        b.begin_ack();
        on_ack(&mut r, &late(240 * SEC), &mut b);
        assert_eq!(r.min_rtt.get(), Some(100 * MS));
        b.begin_ack();
        on_ack(&mut r, &late(360 * SEC), &mut b);
        assert_eq!(r.min_rtt.get(), Some(400 * MS));
        assert_eq!(r.reo_wnd(), 100 * MS);
    }

    #[test]
    fn an_ambiguous_retransmission_does_not_advance_rack() {
        let (mut r, mut b) = setup();
        b.begin_ack();
        sack(&mut b, 1, 2);
        on_ack(&mut r, &at(101 * MS), &mut b);
        assert_eq!(r.xmit_ts(), Some(MS));
        // Segment 3 retransmitted at 150 ms and SACKed 10 ms later: faster
        // than the minimum RTT, so the original must have arrived.
        b.mark_lost(3);
        b.on_retransmit(3, 150 * MS, 11);
        b.begin_ack();
        sack(&mut b, 3, 4);
        on_ack(&mut r, &at(160 * MS), &mut b);
        assert_eq!(r.xmit_ts(), Some(MS));
        assert_eq!(r.rtt(), 100 * MS);
    }

    #[test]
    fn a_too_recent_retransmission_does_not_hide_an_older_one() {
        // Segments 3 and 5 retransmitted at 110 and 190 ms; one ACK at 215
        // ms SACKs both (echoing 191 ms). 5's copy is 25 ms old, under the
        // minimum RTT (100 ms): ambiguous, skipped. 3's is 105 ms old and
        // counts, in both variants: RACK.xmit_ts 110 ms, RACK.rtt 105 ms
        // (RFC 8985 6.2 step 2 skips a failing segment and goes on; Linux
        // tcp_rack_advance() returns for that skb only). Before, the newest
        // alone was checked and RACK stayed at 1 ms.
        for advance in [RackAdvance::Linux, RackAdvance::Rfc8985] {
            let (r, mut b) = setup();
            let mut r = r.with_advance(advance);
            b.begin_ack();
            sack(&mut b, 1, 2);
            on_ack(&mut r, &at(101 * MS), &mut b);
            assert_eq!(r.xmit_ts(), Some(MS));
            b.mark_lost(3);
            b.on_retransmit(3, 110 * MS, 11);
            b.mark_lost(5);
            b.on_retransmit(5, 190 * MS, 12);
            b.begin_ack();
            sack(&mut b, 3, 4);
            sack(&mut b, 5, 6);
            let c = DetectCtx {
                ts_ecr: 190 * MS + 1,
                ..at(215 * MS)
            };
            on_ack(&mut r, &c, &mut b);
            assert_eq!(
                (r.xmit_ts(), r.rtt()),
                (Some(110 * MS), 105 * MS),
                "{advance:?}"
            );
        }
    }

    #[test]
    fn reo_wnd_mult_grows_once_per_round_with_dsacks_and_decays() {
        let (mut r, mut b) = setup();
        b.begin_ack();
        sack(&mut b, 1, 2);
        let c = DetectCtx {
            reordering_seen: true,
            ..at(101 * MS)
        };
        on_ack(&mut r, &c, &mut b);
        assert_eq!((r.reo_wnd_mult(), r.reo_wnd()), (1, 25 * MS));
        // A DSACK: one more quarter of min_RTT, until SND.UNA passes the
        // SND.NXT of that moment (10_000).
        let d = DetectCtx { dsack: true, ..c };
        on_ack(&mut r, &d, &mut b);
        assert_eq!((r.reo_wnd_mult(), r.reo_wnd()), (2, 50 * MS));
        on_ack(&mut r, &d, &mut b);
        assert_eq!(r.reo_wnd_mult(), 2, "same round");
        let next_round = DetectCtx {
            snd_una: 10_000,
            snd_nxt: 20_000,
            ..d
        };
        on_ack(&mut r, &next_round, &mut b);
        assert_eq!((r.reo_wnd_mult(), r.reo_wnd()), (3, 75 * MS));
        // Bounded by SRTT.
        for k in 0..3 {
            let d = DetectCtx {
                snd_una: 20_000 + 10_000 * k,
                snd_nxt: 30_000 + 10_000 * k,
                ..next_round
            };
            on_ack(&mut r, &d, &mut b);
        }
        assert_eq!((r.reo_wnd_mult(), r.reo_wnd()), (6, 100 * MS));
        // 16 recoveries without DSACK bring it back to 1.
        let exit = DetectCtx {
            exiting_recovery: true,
            snd_una: 60_000,
            snd_nxt: 70_000,
            ..c
        };
        for _ in 0..15 {
            on_ack(&mut r, &exit, &mut b);
        }
        assert_eq!(r.reo_wnd_mult(), 6);
        on_ack(&mut r, &exit, &mut b);
        assert_eq!((r.reo_wnd_mult(), r.reo_wnd()), (1, 25 * MS));
    }

    #[test]
    fn without_sack_it_is_dupthresh() {
        let (mut r, mut b) = setup();
        let c = DetectCtx {
            sack_seen: false,
            ..at(MS)
        };
        assert_eq!(
            on_ack(&mut r, &DetectCtx { dupacks: 3, ..c }, &mut b),
            (true, vec![0])
        );
    }

    /// The reordering timer in jiffies at HZ = 250 (4000 us each): as in
    /// the first test, segment 2 is SACKed at 102 ms and segments 0 and 1
    /// expire at 125 and 126 ms; Linux keeps the largest remaining wait,
    /// 126 - 102 = 24 ms = 24000 us, and counts from jiffy 102 / 4 = 25:
    /// - `linux-2-jiffies`: usecs_to_jiffies(24000) = (24000 + 3999) /
    ///   4000 = 6, + TCP_TIMEOUT_MIN 2 = 8 (8 ms): jiffy 33, 132 ms;
    /// - `linux` (6.6+): usecs_to_jiffies(24000 + 2000) = (26000 + 3999) /
    ///   4000 = 7: jiffy 32, 128 ms.
    ///
    /// At HZ = 1000 both give jiffy 102 + 26 = 128 ms. A wait of 24001 us:
    /// 2 jiffies: (24001 + 3999) / 4000 = 7 + 2 = 9, 136 ms; 6.6+: (26001 +
    /// 3999) / 4000 = 7, 128 ms. The timer then marks both segments.
    #[test]
    fn linux_reo_timer_in_jiffies() {
        use ReoTimer::*;
        let d = |mode, due, hz| linux_reo_deadline(mode, 102 * MS, due, hz);
        assert_eq!(d(LinuxTwoJiffies, 126 * MS, 250), 132 * MS);
        assert_eq!(d(Linux, 126 * MS, 250), 128 * MS);
        assert_eq!(d(LinuxTwoJiffies, 126 * MS, 1000), 128 * MS);
        assert_eq!(d(Linux, 126 * MS, 1000), 128 * MS);
        assert_eq!(d(LinuxTwoJiffies, 126 * MS + US, 250), 136 * MS);
        assert_eq!(d(Linux, 126 * MS + US, 250), 128 * MS);
        assert_eq!(d(Exact, 126 * MS, 250), 126 * MS);
        for (mode, fires) in [(LinuxTwoJiffies, 132), (Linux, 128), (Exact, 126)] {
            let (r, mut b) = setup();
            let mut r = r.with_reo_timer(mode, 250);
            b.begin_ack();
            sack(&mut b, 2, 3);
            assert_eq!(on_ack(&mut r, &at(102 * MS), &mut b), (false, vec![]));
            assert_eq!(r.poll_timeout(), Some(fires * MS), "{mode:?}");
            assert_eq!(
                on_timeout(&mut r, &at(fires * MS), &mut b),
                (true, vec![0, 1])
            );
            assert_eq!(r.poll_timeout(), None);
        }
        // Exact timers (hz 0) leave the expiry alone whatever the mode.
        let (r, mut b) = setup();
        let mut r = r.with_reo_timer(Linux, 0);
        b.begin_ack();
        sack(&mut b, 2, 3);
        on_ack(&mut r, &at(102 * MS), &mut b);
        assert_eq!(r.poll_timeout(), Some(126 * MS));
        assert_eq!(
            ReoTimer::from_name("linux-2-jiffies"),
            Some(LinuxTwoJiffies)
        );
        assert_eq!(ReoTimer::from_name("jiffies"), None);
    }
}
