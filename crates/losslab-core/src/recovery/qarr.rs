//! Queue-length Adaptive Rate Reduction (QARR), section II.D of the mobile
//! opportunistic-retransmission paper (docs/mobile-opportunistic-
//! retransmission-sndbuf.txt), which built it after the queue-length
//! controllers of its references [4], [7], [8]; Q_T is its
//! `queue_len_threshold` (section VI, 5 segments by default).
//!
//! - No ssthresh convergence: entering recovery keeps cwnd, W_0 = the
//!   window before the loss.
//! - On every ACK or duplicate ACK in recovery, the entering one included,
//!   the Vegas/Veno backlog estimate (eq. 1) and a cut by its excess over
//!   Q_T (eq. 2).
//! - Leaving recovery keeps cwnd as eq. 2 left it. ssthresh is not
//!   touched: the congestion controller is not asked for one on entry
//!   (`sets_ssthresh`), so a flow in slow start stays there.
//!
//! Interpretations:
//! - RTT_i is by default (`AckRtt::TsEcr`, `[flow.qarr] rtt_source =
//!   "tsecr"`) `RecoveryCtx::ack_rtt`, now - TSecr of this very ACK, the
//!   paper's "TCP timestamp option appended in the received ACK/DUPACK";
//!   Karn's rule, which the sender applies to its own estimator, would
//!   leave duplicate ACKs without one. The price: RFC 7323 section 4.3
//!   has a duplicate ACK echo the last segment that advanced the
//!   receiver's window, so RTT_i grows through a recovery with the time
//!   since the hole, queue or not: with a window of W segments the k-th
//!   duplicate ACK reads about RTT (1 + k / W), Q_i about W k / (W + k),
//!   and eq. 2 takes the window to the floor within a few dozen duplicate
//!   ACKs even on an empty queue (tests/integration/recovery_qarr_barr.rs measures
//!   it). `AckRtt::Delivered` (`rtt_source = "delivered"`) takes the RTT
//!   of a segment the ACK newly delivered instead
//!   (`RecoveryCtx::delivered_rtt`), which a duplicate ACK with SACK has
//!   and which does not grow; an ACK without one (a duplicate ACK without
//!   SACK) then changes nothing.
//! - baseRTT is the connection's minimum RTT sample
//!   (`RecoveryCtx::min_rtt`); an RTT_i below it counts as no queue.
//! - pipe_i is RFC 6675 pipe after this ACK, in segments.
//! - W_i is kept exactly, to a millionth of a segment: cwnd is W_i rounded
//!   up and the fraction eq. 2 has taken but cwnd not yet shown waits in
//!   `debt`, so an excess of 0.4 segment on every ACK takes a segment off
//!   every 2.5 ACKs instead of nothing (truncating each ACK's cut).
//! - W_i is floored at 2 segments (RFC 5681's least ssthresh), where the
//!   fraction owed is forgotten; a smaller window (after a timeout) is not
//!   raised to it. At 1 segment a flow without SACK stalls:
//!   pipe counts duplicate ACKs conservatively and stays at 1 after a
//!   partial ACK, so the next hole's retransmission waits for the RTO
//!   (2083 of 43120 one- and two-drop cases of tests/integration/efficiency.rs's
//!   property timed out with a floor of 1, none with 2).
//! - Without RTT_i or baseRTT (an entry from a detector timer, no
//!   timestamps, no sample yet) the ACK leaves cwnd alone.
//! - Which segment goes next is RFC 6675 NextSeg() as for `prr`, rescue
//!   retransmission included, so that a comparison with `prr` isolates the
//!   window rule.
//!
//! How eq. 2 is applied (`QarrUpdate`, `[flow.qarr] update`). The text
//! is explicit that it runs per ACK: QARR estimates the queue "for every
//! received ACK/DUPACK" and W_i is "the CWnd after receiving the ith
//! ACK/DUPACK" (section II.D), so `PerAck` is the default. Read that way
//! the same standing queue is cut once per ACK for about a round trip
//! before the cut can show in RTT_i, which is why two other readings are
//! kept, named apart, for the reproduction to test:
//! - `PerRtt`: eq. 2 at most once per round trip, as Vegas and Veno (the
//!   estimators eq. 1 comes from) adjust once per RTT: the first ACK with
//!   an RTT_i cuts, the next cut waits for an ACK at least that RTT_i
//!   later (the time the cut takes to show in the queue).
//! - `Pipe`: W_i = pipe_i - max(Q_i - Q_T, 0), pipe_i being what was in
//!   flight when the ACK's RTT was measured, i.e. before this ACK (RFC
//!   6675 pipe after it plus the segments it newly delivered): with no
//!   excess the window keeps the flight as it was, one segment out per
//!   segment delivered, and an excess takes that much off it once, not
//!   on every ACK (the same excess read again gives the same window), the
//!   reading under which QARR "regulates the queue length around a
//!   target". (pipe after the ACK would leave cwnd at or below what is in
//!   flight, so nothing would be sent and the window would drain to the
//!   floor with no queue at all.) Floored at 2 segments as above; it may
//!   exceed W_{i-1} when the flight does (opportunistic segments past the
//!   receive window).
//!
//! Discrepancy in the paper: section VII.C says that when the flow-control
//! bottleneck keeps QARR from sending, Q_i drains below Q_T and "QARR
//! observes it and fills that queue up by increasing its CWnd". Eq. 2 can
//! only lower cwnd (max(Q_i - Q_T, 0) >= 0). This is eq. 2 as written: a
//! queue below Q_T leaves cwnd where it is.

use super::{AckRtt, RecoveryCtx, RecoveryOps};
use crate::time::Time;
use crate::window::Window;

/// Queue lengths and the debt are in millionths of a segment.
const UNIT: u128 = 1_000_000;
/// The least W_i, segments.
pub const FLOOR: u64 = 2;

/// How eq. 2 is applied; see the module comment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum QarrUpdate {
    /// W_i = W_{i-1} - max(Q_i - Q_T, 0) on every ACK (the text).
    #[default]
    PerAck,
    /// The same cut, at most once per round trip.
    PerRtt,
    /// W_i = pipe_i - max(Q_i - Q_T, 0).
    Pipe,
}

impl QarrUpdate {
    pub const NAMES: &'static [&'static str] = &["per-ack", "per-rtt", "pipe"];
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "per-ack" => Some(QarrUpdate::PerAck),
            "per-rtt" => Some(QarrUpdate::PerRtt),
            "pipe" => Some(QarrUpdate::Pipe),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            QarrUpdate::PerAck => "per-ack",
            QarrUpdate::PerRtt => "per-rtt",
            QarrUpdate::Pipe => "pipe",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Qarr {
    /// Q_T in millionths of a segment.
    target: u128,
    rtt_source: AckRtt,
    /// W_i = cwnd - debt / UNIT; always below one segment.
    debt: u128,
    /// Q_i of the latest ACK that had one, in millionths of a segment.
    last_queue: Option<u64>,
    update: QarrUpdate,
    /// `PerRtt`: no cut before this time.
    next_cut: Option<Time>,
}

impl Qarr {
    pub fn new(queue_len_threshold: u32, rtt_source: AckRtt) -> Self {
        Qarr {
            target: u128::from(queue_len_threshold) * UNIT,
            rtt_source,
            debt: 0,
            last_queue: None,
            update: QarrUpdate::PerAck,
            next_cut: None,
        }
    }

    /// The same QARR applying eq. 2 as `update` says.
    pub fn update(mut self, update: QarrUpdate) -> Self {
        self.update = update;
        self
    }

    /// II.D eq. 1, Q_i = pipe_i (RTT_i - baseRTT) / RTT_i, in millionths
    /// of a segment, rounded down.
    pub fn queue_estimate(pipe: u64, rtt: Time, base_rtt: Time) -> u64 {
        if rtt == 0 {
            return 0;
        }
        let q =
            u128::from(pipe) * u128::from(rtt.saturating_sub(base_rtt)) * UNIT / u128::from(rtt);
        // pipe x UNIT bounds it; beyond u64 only for absurd windows.
        q.min(u128::from(u64::MAX)) as u64
    }

    /// Q_i of the latest ACK in recovery that had an RTT, in millionths of
    /// a segment.
    pub fn last_queue(&self) -> Option<u64> {
        self.last_queue
    }

    /// The part of a segment eq. 2 has taken off W_i that cwnd does not
    /// show yet, in millionths of a segment.
    pub fn debt(&self) -> u64 {
        self.debt as u64
    }
}

impl Qarr {
    /// `QarrUpdate::Pipe`: W_i = pipe_i - excess, exact (cwnd rounded up,
    /// the rest owed in `debt`), floored at `FLOOR` unless cwnd already
    /// is below it.
    fn set_to_pipe(&mut self, w: &mut Window, pipe: u64, excess: u128) {
        if w.cwnd < FLOOR {
            self.debt = 0;
            return;
        }
        let exact = u128::from(pipe) * UNIT;
        if exact <= excess + u128::from(FLOOR) * UNIT {
            w.cwnd = FLOOR;
            self.debt = 0;
            return;
        }
        let wi = exact - excess;
        let cwnd = wi.div_ceil(UNIT);
        w.cwnd = cwnd as u64;
        self.debt = cwnd * UNIT - wi;
    }
}

impl RecoveryOps for Qarr {
    /// Section II.D/II.E: no ssthresh; section VII.C: "their
    /// CWnd/ssthreshs are unaffected by packet losses". The congestion
    /// controller is not asked (so CUBIC's curve, W_max and epoch go on
    /// as if there had been no loss).
    fn sets_ssthresh(&self) -> bool {
        false
    }
    fn name(&self) -> &'static str {
        "qarr"
    }

    fn init_cwnd_reduction(&mut self, _w: &mut Window, _ctx: &RecoveryCtx) {
        // W_0 is the window before the loss: cwnd is not touched (and no
        // ssthresh was set, `sets_ssthresh`).
        self.debt = 0;
        self.last_queue = None;
        self.next_cut = None;
    }

    fn cwnd_reduction(
        &mut self,
        w: &mut Window,
        ctx: &RecoveryCtx,
        newly_acked_sacked: u64,
        _fast_rexmit: bool,
    ) {
        let (Some(rtt), Some(base)) = (self.rtt_source.of(ctx), ctx.min_rtt) else {
            return;
        };
        // II.D eq. 1: Q_i = pipe_i (RTT_i - baseRTT) / RTT_i.
        let q = Self::queue_estimate(ctx.pipe, rtt, base);
        self.last_queue = Some(q);
        let excess = u128::from(q).saturating_sub(self.target);
        match self.update {
            QarrUpdate::PerAck => {}
            QarrUpdate::PerRtt => {
                if self.next_cut.is_some_and(|t| ctx.now < t) {
                    return;
                }
                self.next_cut = Some(ctx.now.saturating_add(rtt));
            }
            QarrUpdate::Pipe => {
                let before = ctx.pipe.saturating_add(newly_acked_sacked);
                self.set_to_pipe(w, before, excess);
                return;
            }
        }
        // II.D eq. 2: W_i = W_{i-1} - max(Q_i - Q_T, 0), whole segments
        // off cwnd as the exact cut adds up to them.
        let owed = self.debt + excess;
        if w.cwnd <= FLOOR {
            // The floor is not a target: a smaller window (after a
            // timeout) is not raised.
            self.debt = 0;
            return;
        }
        let whole = owed / UNIT;
        self.debt = owed % UNIT;
        if u128::from(w.cwnd) <= whole + u128::from(FLOOR) {
            // W_i at or below the floor, with nothing more owed.
            w.cwnd = FLOOR;
            self.debt = 0;
        } else {
            w.cwnd -= whole as u64;
        }
    }

    fn end_cwnd_reduction(&mut self, w: &mut Window, _ctx: &RecoveryCtx) {
        // cwnd stays W_i. The additive-increase credit was earned at the
        // window before the loss; the window the controller now grows from
        // is another.
        w.cwnd_cnt = 0;
        self.debt = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::MS;

    fn ctx(pipe: u64, rtt_ms: u64, base_ms: u64) -> RecoveryCtx {
        RecoveryCtx {
            pipe,
            ack_rtt: Some(rtt_ms * MS),
            min_rtt: Some(base_ms * MS),
            ..Default::default()
        }
    }

    fn entered(cwnd: u64, ssthresh: u64) -> (Qarr, Window) {
        let mut q = Qarr::new(5, AckRtt::TsEcr);
        let mut w = Window::new(cwnd);
        w.ssthresh = ssthresh;
        q.init_cwnd_reduction(&mut w, &ctx(cwnd, 100, 100));
        (q, w)
    }

    #[test]
    fn entry_keeps_the_window_before_the_loss() {
        let (_, w) = entered(200, 140);
        assert_eq!((w.cwnd, w.ssthresh), (200, 140));
    }

    #[test]
    fn eq_1_and_2_by_hand() {
        // pipe 100, RTT 120 ms, baseRTT 100 ms: Q = 100 x 20 / 120 = 16.67
        // segments; Q_T = 5 takes 11.67 off W.
        assert_eq!(Qarr::queue_estimate(100, 120 * MS, 100 * MS), 16_666_666);
        let (mut q, mut w) = entered(200, 140);
        q.cwnd_reduction(&mut w, &ctx(100, 120, 100), 1, true);
        // W_1 = 188.33: cwnd 189 (rounded up), 0.67 segment owed.
        assert_eq!(q.last_queue(), Some(16_666_666));
        assert_eq!((w.cwnd, q.debt()), (189, 666_666));
        // pipe 100, RTT 125 ms: Q = 20 exactly, 15 off W_1 = 188.33.
        q.cwnd_reduction(&mut w, &ctx(100, 125, 100), 1, false);
        assert_eq!((w.cwnd, q.debt()), (174, 666_666));
        // ssthresh is neither read nor written.
        assert_eq!(w.ssthresh, 140);
    }

    #[test]
    fn fractions_add_up_instead_of_truncating_to_nothing() {
        // pipe 54, RTT 100 ms, baseRTT 90 ms: Q = 5.4, 0.4 over Q_T per
        // ACK: after 5 ACKs W = 20 - 2.0.
        let (mut q, mut w) = entered(20, 14);
        let mut seen = vec![];
        for i in 0..5 {
            q.cwnd_reduction(&mut w, &ctx(54, 100, 90), 1, i == 0);
            seen.push(w.cwnd);
        }
        assert_eq!(seen, [20, 20, 19, 19, 18]);
        assert_eq!(q.debt(), 0);
    }

    #[test]
    fn a_queue_at_or_below_the_target_changes_nothing_and_never_raises() {
        // Eq. 2 as written; the paper's section VII.C text would raise cwnd
        // here.
        let (mut q, mut w) = entered(30, 21);
        q.cwnd_reduction(&mut w, &ctx(25, 125, 100), 1, true); // Q = 5
        assert_eq!(w.cwnd, 30);
        q.cwnd_reduction(&mut w, &ctx(10, 100, 100), 1, false); // Q = 0
        assert_eq!(w.cwnd, 30);
        // An RTT below baseRTT is no queue, not a negative one.
        q.cwnd_reduction(&mut w, &ctx(10, 90, 100), 1, false);
        assert_eq!((w.cwnd, q.last_queue()), (30, Some(0)));
    }

    #[test]
    fn floored_at_two_segments_and_nothing_owed_below_it() {
        let (mut q, mut w) = entered(10, 7);
        // pipe 100, RTT 200 ms, baseRTT 100 ms: Q = 50, 45 off a window of
        // 10.
        q.cwnd_reduction(&mut w, &ctx(100, 200, 100), 1, true);
        assert_eq!((w.cwnd, q.debt()), (2, 0));
        // At the floor a fraction is not owed either.
        q.cwnd_reduction(&mut w, &ctx(54, 100, 90), 1, false);
        assert_eq!((w.cwnd, q.debt()), (2, 0));
        // W = 3 - 1.4 = 1.6: floored.
        let (mut q, mut w) = entered(3, 2);
        q.cwnd_reduction(&mut w, &ctx(64, 100, 90), 1, true); // Q = 6.4
        assert_eq!((w.cwnd, q.debt()), (2, 0));
        // A window below the floor is not raised to it.
        let (mut q, mut w) = entered(1, 2);
        q.cwnd_reduction(&mut w, &ctx(64, 100, 90), 1, true);
        assert_eq!((w.cwnd, q.debt()), (1, 0));
    }

    #[test]
    fn the_rtt_source_picks_the_acks_sample() {
        // A duplicate ACK echoing a timestamp from before the hole (RTT_i
        // 150 ms) while the segment it SACKs took 100 ms.
        let c = RecoveryCtx {
            delivered_rtt: Some(100 * MS),
            ..ctx(100, 150, 100)
        };
        let (mut q, mut w) = entered(200, 140);
        q.cwnd_reduction(&mut w, &c, 1, true);
        // Q = 33.3: 28.3 off.
        assert_eq!((w.cwnd, q.last_queue()), (172, Some(33_333_333)));
        let mut q = Qarr::new(5, AckRtt::Delivered);
        let mut w = Window::new(200);
        q.init_cwnd_reduction(&mut w, &c);
        q.cwnd_reduction(&mut w, &c, 1, true);
        assert_eq!((w.cwnd, q.last_queue()), (200, Some(0)));
        // Without a delivered segment's RTT, nothing.
        let c = RecoveryCtx {
            delivered_rtt: None,
            ..c
        };
        q.cwnd_reduction(&mut w, &c, 1, false);
        assert_eq!((w.cwnd, q.last_queue()), (200, Some(0)));
    }

    #[test]
    fn without_an_rtt_or_a_base_the_ack_changes_nothing() {
        let (mut q, mut w) = entered(40, 28);
        let no_rtt = RecoveryCtx {
            ack_rtt: None,
            ..ctx(100, 200, 100)
        };
        q.cwnd_reduction(&mut w, &no_rtt, 0, true);
        let no_base = RecoveryCtx {
            min_rtt: None,
            ..ctx(100, 200, 100)
        };
        q.cwnd_reduction(&mut w, &no_base, 1, false);
        assert_eq!((w.cwnd, q.last_queue()), (40, None));
    }

    #[test]
    fn exit_keeps_cwnd_and_the_controllers_ssthresh() {
        let (mut q, mut w) = entered(200, 140);
        q.cwnd_reduction(&mut w, &ctx(100, 120, 100), 1, true);
        w.cwnd_cnt = 7;
        q.end_cwnd_reduction(&mut w, &ctx(100, 120, 100));
        assert_eq!((w.cwnd, w.ssthresh, w.cwnd_cnt), (189, 140, 0));
    }

    #[test]
    fn the_target_is_a_parameter() {
        let mut q = Qarr::new(0, AckRtt::TsEcr);
        let mut w = Window::new(200);
        q.init_cwnd_reduction(&mut w, &ctx(200, 100, 100));
        q.cwnd_reduction(&mut w, &ctx(100, 125, 100), 1, true); // Q = 20
        assert_eq!(w.cwnd, 180);
    }

    fn at(now_ms: u64, pipe: u64, rtt_ms: u64, base_ms: u64) -> RecoveryCtx {
        RecoveryCtx {
            now: now_ms * MS,
            ..ctx(pipe, rtt_ms, base_ms)
        }
    }

    #[test]
    fn per_rtt_cuts_once_per_round_trip() {
        // Q = 100 x 20 / 120 = 16.666666 (millionths, rounded down) on
        // every ACK: per ACK, three ACKs within the round trip take
        // 34.999998 segments off 200, cwnd 165.000002 rounded up.
        let mut per_ack = Qarr::new(5, AckRtt::TsEcr);
        let mut w = Window::new(200);
        per_ack.init_cwnd_reduction(&mut w, &at(0, 200, 100, 100));
        for t in [0, 40, 80] {
            per_ack.cwnd_reduction(&mut w, &at(t, 100, 120, 100), 1, t == 0);
        }
        assert_eq!(w.cwnd, 166);
        // Once per RTT_i (120 ms): the ACKs at 40 and 80 ms are inside
        // the round trip of the cut at 0; the one at 120 ms cuts again.
        let mut q = Qarr::new(5, AckRtt::TsEcr).update(QarrUpdate::PerRtt);
        let mut w = Window::new(200);
        q.init_cwnd_reduction(&mut w, &at(0, 200, 100, 100));
        let mut seen = vec![];
        for t in [0, 40, 80, 120] {
            q.cwnd_reduction(&mut w, &at(t, 100, 120, 100), 1, t == 0);
            seen.push(w.cwnd);
        }
        // 200 - 11.67 = 188.33 (cwnd 189), then 176.67 (cwnd 177).
        assert_eq!(seen, [189, 189, 189, 177]);
        // A new recovery starts a new round.
        q.init_cwnd_reduction(&mut w, &at(130, 177, 100, 100));
        q.cwnd_reduction(&mut w, &at(130, 100, 120, 100), 1, true);
        assert_eq!(w.cwnd, 166);
    }

    #[test]
    fn pipe_sets_the_window_and_does_not_compound() {
        // pipe 99 after an ACK that delivered 1 (100 before it), Q =
        // 99 x 20 / 120 = 16.5: W = 100 - 11.5 = 88.5 on every such ACK,
        // however many.
        let mut q = Qarr::new(5, AckRtt::TsEcr).update(QarrUpdate::Pipe);
        let mut w = Window::new(200);
        q.init_cwnd_reduction(&mut w, &at(0, 200, 100, 100));
        for t in [0, 1, 2] {
            q.cwnd_reduction(&mut w, &at(t, 99, 120, 100), 1, t == 0);
            assert_eq!((w.cwnd, q.debt()), (89, 500_000));
        }
        // No excess: W = the flight before the ACK, so one segment goes
        // out for the one delivered (pipe 59 after it, cwnd 60).
        q.cwnd_reduction(&mut w, &at(3, 59, 100, 100), 1, false);
        assert_eq!((w.cwnd, q.debt()), (60, 0));
        // W = pipe - Q + Q_T never falls below Q_T (Q < pipe), so only a
        // target below the floor reaches it: Q_T 0, pipe 10, Q = 9.
        let mut q0 = Qarr::new(0, AckRtt::TsEcr).update(QarrUpdate::Pipe);
        q0.cwnd_reduction(&mut w, &at(4, 10, 1000, 100), 1, false);
        assert_eq!(w.cwnd, FLOOR);
        // A window below the floor is not raised.
        let mut w = Window::new(1);
        q.cwnd_reduction(&mut w, &at(5, 60, 100, 100), 1, false);
        assert_eq!(w.cwnd, 1);
    }

    #[test]
    fn update_names_round_trip() {
        for n in QarrUpdate::NAMES {
            assert_eq!(QarrUpdate::from_name(n).map(QarrUpdate::name), Some(*n));
        }
        assert_eq!(QarrUpdate::default(), QarrUpdate::PerAck);
        assert_eq!(QarrUpdate::from_name("per-rtt "), None);
    }
}
