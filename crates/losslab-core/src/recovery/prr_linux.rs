//! Proportional Rate Reduction as Linux 6.x runs it: tcp_init_cwnd_reduction(),
//! tcp_cwnd_reduction() and tcp_end_cwnd_reduction() in net/ipv4/tcp_input.c,
//! in segments as the kernel counts them.
//!
//! The rules are RFC 9937's (`prr.rs`): CRB, SSRB's extra segment only when
//! snd.una advances with no new loss, nothing on an ACK that delivers
//! nothing, one segment forced while prr_out is 0, cwnd = ssthresh at the
//! end. Where Linux parts from the RFC, and so from `prr`:
//! 1. The proportional part divides by `tp->prior_cwnd`, cwnd when recovery
//!    began, where RFC 9937 divides by RecoverFS (the flight). When the
//!    application or the receive window held the flight below cwnd, Linux
//!    releases ssthresh/prior_cwnd of what is delivered, less than the
//!    RFC's ssthresh/RecoverFS, for as long as in_flight > ssthresh.
//! 2. Recovery entered by RACK's reordering timer (tcp_rack_reo_timeout()
//!    in net/ipv4/tcp_recovery.c) calls tcp_cwnd_reduction(sk, 1,
//!    tp->lost - lost, 0): prr_delivered starts at 1 though nothing was
//!    delivered, so each later proportional step is one delivery ahead.
//! 3. tcp_init_cwnd_reduction() leaves cwnd alone; cwnd changes only in
//!    tcp_cwnd_reduction(), which returns at once when nothing was
//!    delivered.
//!
//! Where the sender calls from: Linux 6.x calls tcp_cwnd_reduction() from
//! tcp_cong_control() on every ACK in CWR or Recovery (the ACK that enters
//! included, after tcp_fastretrans_alert() has run tcp_enter_recovery()),
//! with `rs->losses` as newly_lost; the sender's cwnd_reduction() calls sit
//! at the same two places (enter_fast_recovery() and congestion_control()).
//! The engine has no CWR state.

use super::{RecoveryCtx, RecoveryOps};
use crate::window::Window;

/// Window::new()'s ssthresh before any loss: the engine's
/// TCP_INFINITE_SSTHRESH, which tcp_end_cwnd_reduction() tests against.
pub(super) const INFINITE_SSTHRESH: u64 = u64::MAX / 4;

/// What Linux's PRRs share, 3.2 to 6.x (`prr-linux-3`, `prr-linux-4.10`,
/// `prr-linux`): tcp_init_cwnd_reduction()'s counters, the proportional
/// part's round-up division by prior_cwnd, setting cwnd from in_flight,
/// tcp_end_cwnd_reduction() and prr_out's count. The variants differ in
/// when a step runs and in the count below ssthresh.
#[derive(Clone, Debug, Default)]
pub struct PriorCwndPrr {
    /// tp->prior_cwnd.
    prior_cwnd: u64,
    /// tp->prr_delivered.
    prr_delivered: u64,
    /// tp->prr_out.
    prr_out: u64,
    last_sndcnt: i64,
}

impl PriorCwndPrr {
    pub fn prior_cwnd(&self) -> u64 {
        self.prior_cwnd
    }
    pub fn prr_delivered(&self) -> u64 {
        self.prr_delivered
    }
    pub fn prr_out(&self) -> u64 {
        self.prr_out
    }
    /// sndcnt of the latest reduction step that ran, after its floor.
    pub fn last_sndcnt(&self) -> i64 {
        self.last_sndcnt
    }

    /// tcp_init_cwnd_reduction(). The sender has already asked the
    /// controller for ssthresh and left cwnd as it was, which is what
    /// prior_cwnd must capture: the divisor is the window, not what the
    /// application put in it.
    pub(super) fn enter(&mut self, w: &mut Window) {
        *self = PriorCwndPrr {
            prior_cwnd: w.cwnd,
            ..Default::default()
        };
        w.cwnd_cnt = 0;
    }

    /// The kernels' WARN_ON_ONCE(!tp->prior_cwnd) bail-out (the engine
    /// keeps cwnd >= 1, so only before an entry).
    pub(super) fn entered(&self) -> bool {
        self.prior_cwnd > 0
    }

    /// `tp->prr_delivered += newly_acked_sacked`.
    pub(super) fn deliver(&mut self, segments: u64) {
        self.prr_delivered += segments;
    }

    /// prr_delivered - prr_out: what conservation still owes.
    pub(super) fn banked(&self) -> i64 {
        self.prr_delivered as i64 - self.prr_out as i64
    }

    /// The proportional part while in_flight > ssthresh: `(ssthresh *
    /// prr_delivered + prior_cwnd - 1) / prior_cwnd - prr_out`, the
    /// kernel's round-up division, so the entering ACK already releases a
    /// segment.
    pub(super) fn proportional(&self, ssthresh: u64) -> i64 {
        let dividend = ssthresh as u128 * self.prr_delivered as u128 + self.prior_cwnd as u128 - 1;
        (dividend / self.prior_cwnd as u128) as i64 - self.prr_out as i64
    }

    /// `tp->snd_cwnd = tcp_packets_in_flight(tp) + sndcnt`. Linux would
    /// set 0 (and WARN) with nothing in flight and nothing due; the engine
    /// keeps one segment.
    pub(super) fn set_cwnd(&mut self, w: &mut Window, in_flight: i64, sndcnt: i64) {
        self.last_sndcnt = sndcnt;
        w.cwnd = (in_flight + sndcnt).max(1) as u64;
    }

    /// tcp_end_cwnd_reduction() (3.2: tcp_complete_cwr()): cwnd = ssthresh
    /// when ssthresh is finite and the episode has an undo marker (always,
    /// for a Recovery the sender ends rather than undoes; an undo
    /// overwrites cwnd after this).
    pub(super) fn end(w: &mut Window) {
        if w.ssthresh < INFINITE_SSTHRESH {
            w.cwnd = w.ssthresh.max(1);
        }
    }

    /// tcp_write_xmit() and the retransmit path: prr_out += pcount for new
    /// data and retransmissions alike while in cwnd reduction.
    pub(super) fn sent(&mut self, segments: u64) {
        self.prr_out += segments;
    }
}

#[derive(Clone, Debug, Default)]
pub struct PrrLinux {
    s: PriorCwndPrr,
}

impl PrrLinux {
    pub fn new() -> Self {
        Self::default()
    }
}

/// The counters' accessors (prior_cwnd(), prr_out(), ...).
impl std::ops::Deref for PrrLinux {
    type Target = PriorCwndPrr;
    fn deref(&self) -> &PriorCwndPrr {
        &self.s
    }
}

impl RecoveryOps for PrrLinux {
    fn name(&self) -> &'static str {
        "prr-linux"
    }

    fn init_cwnd_reduction(&mut self, w: &mut Window, _ctx: &RecoveryCtx) {
        self.s.enter(w);
    }

    fn cwnd_reduction(
        &mut self,
        w: &mut Window,
        ctx: &RecoveryCtx,
        newly_acked_sacked: u64,
        _fast_rexmit: bool,
    ) {
        // tcp_rack_reo_timeout() passes newly_acked_sacked = 1 and flag = 0;
        // an ACK passes what it delivered and its own flag.
        let (acked, una_advanced) = if ctx.timer_entry {
            (1, false)
        } else {
            (newly_acked_sacked, ctx.ack_una_advanced)
        };
        if acked == 0 || !self.s.entered() {
            return;
        }
        let in_flight = ctx.pipe as i64;
        let delta = w.ssthresh as i64 - in_flight;
        self.s.deliver(acked);
        let mut sndcnt = if delta < 0 {
            self.s.proportional(w.ssthresh)
        } else {
            // Conservation, at least what this ACK delivered...
            let mut s = self.s.banked().max(acked as i64);
            // ...and a slow-start segment more only when the hole is
            // filling and nothing new was found lost.
            if una_advanced && ctx.newly_lost == 0 {
                s += 1;
            }
            delta.min(s)
        };
        // The fast retransmit must go even when the arithmetic says 0; the
        // same max() turns a negative count into 0 once something was sent.
        sndcnt = sndcnt.max(if self.s.prr_out() > 0 { 0 } else { 1 });
        self.s.set_cwnd(w, in_flight, sndcnt);
    }

    fn end_cwnd_reduction(&mut self, w: &mut Window, _ctx: &RecoveryCtx) {
        // Linux leaves snd_cwnd_cnt alone here; it was zeroed at the start
        // and nothing grew it since.
        PriorCwndPrr::end(w);
    }

    fn on_sent(&mut self, segments: u64) {
        self.s.sent(segments);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recovery::Prr;

    fn ctx(pipe: u64, packets_out: u64, sacked_out: u64) -> RecoveryCtx {
        RecoveryCtx::flight(pipe, packets_out, sacked_out)
    }

    /// Drives `alg` from entry through `acks` ACKs that each SACK one new
    /// segment (no snd.una advance, no new loss), sending sndcnt segments
    /// after each (the application has data again by then). The first ACK
    /// is the entering one, which newly SACKed one segment and made the
    /// detector mark one lost. Returns each ACK's cwnd - pipe and the
    /// final cwnd.
    fn sack_run(
        alg: &mut dyn RecoveryOps,
        prior_cwnd: u64,
        ssthresh: u64,
        entry: RecoveryCtx,
        acks: usize,
    ) -> (Vec<u64>, u64) {
        let mut w = Window::new(prior_cwnd);
        w.ssthresh = ssthresh;
        let entry = RecoveryCtx {
            newly_lost: 1,
            new_loss: true,
            ..entry
        };
        alg.init_cwnd_reduction(&mut w, &entry);
        let mut pipe = entry.pipe;
        let mut sent = vec![];
        for i in 0..acks {
            let c = if i == 0 {
                entry
            } else {
                pipe -= 1;
                ctx(pipe, entry.packets_out, entry.sacked_out + i as u64)
            };
            alg.cwnd_reduction(&mut w, &c, 1, i == 0);
            let n = w.cwnd.saturating_sub(pipe);
            alg.on_sent(n);
            pipe += n;
            sent.push(n);
        }
        (sent, w.cwnd)
    }

    #[test]
    fn app_limited_entry_below_ssthresh_leaves_both_on_the_same_counts() {
        // prior_cwnd 20, CUBIC's ssthresh 20 * 717 / 1024 = 14340 / 1024 =
        // 14; the application held the flight to 12. Segment 1 lost,
        // segments 2-4 SACKed, the third SACK entering recovery:
        // packets_out 12, sacked_out 3, lost 1, in_flight = 12 - 3 - 1 = 8.
        // RFC 9937's RecoverFS = 12 - 3 + 1 = 10, Linux's divisor 20; but
        // in_flight 8 < ssthresh 14, so the proportional branch (the only
        // one that divides) never runs and the two agree:
        // ACK 1: prr_delivered 1, delta = 14 - 8 = 6 >= 0,
        //        sndcnt = min(6, max(1 - 0, 1)) = 1 (no SND_UNA_ADVANCED);
        //        cwnd = 8 + 1 = 9; the fast retransmit makes in_flight 9.
        // ACK k (2..5): in_flight 9 - 1 = 8, prr_delivered k, prr_out k - 1,
        //        sndcnt = min(6, max(k - (k - 1), 1)) = 1, cwnd 9.
        let entry = ctx(8, 12, 3);
        let linux = sack_run(&mut PrrLinux::new(), 20, 14, entry, 5);
        let rfc = sack_run(&mut Prr::new(), 20, 14, entry, 5);
        assert_eq!(linux, (vec![1, 1, 1, 1, 1], 9));
        assert_eq!(rfc, linux);
    }

    #[test]
    fn app_limited_entry_above_ssthresh_divides_by_prior_cwnd_not_recover_fs() {
        // prior_cwnd 20, ssthresh 14, flight 19 (the application one short
        // of cwnd): packets_out 19, sacked_out 3, lost 1, in_flight 15.
        // prr-linux, dividend = 14 * prr_delivered + 19, divided by 20:
        // ACK 1: in_flight 15, delta -1: (14 + 19) / 20 = 1, - 0 -> 1;
        //        cwnd 16, in_flight 16 after the fast retransmit.
        // ACK 2: in_flight 15: (28 + 19) / 20 = 47 / 20 = 2, - 1 -> 1.
        // ACK 3: in_flight 15: (42 + 19) / 20 = 61 / 20 = 3, - 2 -> 1.
        // ACK 4: in_flight 15: (56 + 19) / 20 = 75 / 20 = 3, - 3 -> 0;
        //        cwnd 15, nothing sent.
        // ACK 5: in_flight 14, delta 0: min(0, max(5 - 3, 1)) = 0; cwnd 14.
        // prr (RFC 9937), RecoverFS = 19 - 3 + 1 = 17, CEIL(14 pd / 17):
        // ACK 1: CEIL(14/17) = 1 - 0 = 1.  ACK 2: CEIL(28/17) = 2 - 1 = 1.
        // ACK 3: CEIL(42/17) = 3 - 2 = 1.  ACK 4: CEIL(56/17) = 4 - 3 = 1.
        // ACK 5: CEIL(70/17) = 5 - 4 = 1; in_flight stays 15, cwnd 16.
        let entry = ctx(15, 19, 3);
        let mut linux_alg = PrrLinux::new();
        let linux = sack_run(&mut linux_alg, 20, 14, entry, 5);
        let rfc = sack_run(&mut Prr::new(), 20, 14, entry, 5);
        assert_eq!(linux, (vec![1, 1, 1, 0, 0], 14));
        assert_eq!(rfc, (vec![1, 1, 1, 1, 1], 16));
        assert_eq!(
            (
                linux_alg.prior_cwnd(),
                linux_alg.prr_delivered(),
                linux_alg.prr_out()
            ),
            (20, 5, 3)
        );
    }

    #[test]
    fn snd_una_advanced_without_new_loss_adds_one() {
        // ssthresh 10, heavy loss: in_flight 4. Entry ACK: prr_delivered 1,
        // delta 6, sndcnt = min(6, max(1, 1)) = 1, cwnd 5; the fast
        // retransmit makes prr_out 1, in_flight 5.
        // Next ACK delivers 1, in_flight 4: prr_delivered 2,
        // max(2 - 1, 1) = 1, + 1 only if FLAG_SND_UNA_ADVANCED and
        // newly_lost == 0, then min(10 - 4 = 6, .): 2 or 1; cwnd 6 or 5.
        for (advanced, newly_lost, want) in
            [(false, 0, 1), (true, 0, 2), (true, 1, 1), (false, 1, 1)]
        {
            let mut p = PrrLinux::new();
            let mut w = Window::new(20);
            w.ssthresh = 10;
            let c = RecoveryCtx {
                newly_lost: 1,
                ..ctx(4, 20, 0)
            };
            p.init_cwnd_reduction(&mut w, &c);
            p.cwnd_reduction(&mut w, &c, 1, true);
            assert_eq!(w.cwnd, 5);
            p.on_sent(1);
            let c = RecoveryCtx {
                ack_una_advanced: advanced,
                newly_lost,
                ..ctx(4, 20, 0)
            };
            p.cwnd_reduction(&mut w, &c, 1, false);
            let what = format!("advanced {advanced} newly_lost {newly_lost}");
            assert_eq!(p.last_sndcnt(), want, "{what}");
            assert_eq!(w.cwnd, 4 + want as u64, "{what}");
        }
    }

    #[test]
    fn nothing_sent_yet_forces_one_and_afterwards_floors_at_zero() {
        // ssthresh 14, in_flight 14 at entry: delta 0, prr_delivered 1,
        // min(0, max(1 - 0, 1)) = 0, then max(0, prr_out ? 0 : 1) = 1:
        // cwnd 15, room for the fast retransmit.
        let mut p = PrrLinux::new();
        let mut w = Window::new(20);
        w.ssthresh = 14;
        p.init_cwnd_reduction(&mut w, &ctx(14, 20, 0));
        p.cwnd_reduction(&mut w, &ctx(14, 20, 0), 1, true);
        assert_eq!((p.last_sndcnt(), w.cwnd), (1, 15));
        // The retransmission goes (prr_out 1, in_flight 15); the next ACK
        // delivers 1, in_flight 14: prr_delivered 2, delta 0,
        // min(0, max(2 - 1, 1)) = 0, max(0, prr_out ? 0 : 1) = 0: cwnd 14.
        p.on_sent(1);
        p.cwnd_reduction(&mut w, &ctx(14, 20, 0), 1, false);
        assert_eq!((p.last_sndcnt(), w.cwnd), (0, 14));
    }

    #[test]
    fn a_negative_proportional_count_is_floored_at_zero() {
        // prior_cwnd 20, ssthresh 14, in_flight 18 at entry: prr_delivered
        // 1, (14 * 1 + 19) / 20 = 1, - 0 -> 1, cwnd 19. Three segments go
        // out (more than sndcnt: retransmissions the engine lets out
        // beyond cwnd), prr_out 3, in_flight 21. The next ACK delivers 1,
        // in_flight 20: prr_delivered 2, (28 + 19) / 20 = 2, 2 - 3 = -1,
        // max(-1, prr_out ? 0 : 1) = 0: cwnd 20, not 19.
        let mut p = PrrLinux::new();
        let mut w = Window::new(20);
        w.ssthresh = 14;
        p.init_cwnd_reduction(&mut w, &ctx(18, 20, 1));
        p.cwnd_reduction(&mut w, &ctx(18, 20, 1), 1, true);
        assert_eq!((p.last_sndcnt(), w.cwnd), (1, 19));
        p.on_sent(3);
        p.cwnd_reduction(&mut w, &ctx(20, 20, 2), 1, false);
        assert_eq!((p.last_sndcnt(), w.cwnd), (0, 20));
    }

    #[test]
    fn reordering_timer_entry_counts_one_delivery() {
        // prior_cwnd 20, ssthresh 14. RACK's reordering timer marks
        // segments 1-2 lost with 3-4 SACKed: packets_out 20, sacked_out 2,
        // lost 2, in_flight 16. The sender passes 0 delivered; Linux's
        // tcp_rack_reo_timeout() passes 1 with flag 0:
        // entry: prr_delivered 1, delta -2: (14 * 1 + 19) / 20 = 33 / 20
        //        = 1, - 0 -> 1; cwnd 17; the retransmission of segment 1
        //        makes prr_out 1, in_flight 17.
        // ACK (SACKs segment 5), in_flight 16: prr_delivered 2,
        //        (28 + 19) / 20 = 47 / 20 = 2, - 1 -> 1; cwnd 17.
        // Counting from 0 instead, the entry would return at once (cwnd
        // left at 20) and this ACK would give (14 + 19) / 20 = 1, - 1 -> 0.
        // prr (RFC 9937) does not count the timer: entry cwnd = in_flight
        // = 16; on the ACK RecoverFS = 20 - 2 = 18, CEIL(14 / 18) = 1,
        // - 1 -> 0, cwnd 16.
        let entry = RecoveryCtx {
            timer_entry: true,
            newly_lost: 2,
            new_loss: true,
            ..ctx(16, 20, 2)
        };
        let mut p = PrrLinux::new();
        let mut w = Window::new(20);
        w.ssthresh = 14;
        p.init_cwnd_reduction(&mut w, &entry);
        p.cwnd_reduction(&mut w, &entry, 0, true);
        assert_eq!((p.prr_delivered(), p.last_sndcnt(), w.cwnd), (1, 1, 17));
        p.on_sent(1);
        p.cwnd_reduction(&mut w, &ctx(16, 20, 3), 1, false);
        assert_eq!((p.prr_delivered(), p.last_sndcnt(), w.cwnd), (2, 1, 17));

        let mut r = Prr::new();
        let mut w = Window::new(20);
        w.ssthresh = 14;
        r.init_cwnd_reduction(&mut w, &entry);
        r.cwnd_reduction(&mut w, &entry, 0, true);
        assert_eq!(w.cwnd, 16);
        r.on_sent(1);
        r.cwnd_reduction(&mut w, &ctx(16, 20, 3), 1, false);
        assert_eq!((r.last_sndcnt(), w.cwnd), (0, 16));
    }

    #[test]
    fn an_ack_that_delivers_nothing_leaves_cwnd_where_it_was() {
        // tcp_cwnd_reduction() returns before touching anything when
        // newly_acked_sacked <= 0, and tcp_init_cwnd_reduction() never
        // writes cwnd: an entry that delivered nothing keeps prior_cwnd.
        let mut p = PrrLinux::new();
        let mut w = Window::new(20);
        w.ssthresh = 14;
        p.init_cwnd_reduction(&mut w, &ctx(16, 20, 2));
        p.cwnd_reduction(&mut w, &ctx(16, 20, 2), 0, true);
        assert_eq!((w.cwnd, p.prr_delivered()), (20, 0));
        p.end_cwnd_reduction(&mut w, &ctx(0, 0, 0));
        assert_eq!(w.cwnd, 14);
    }
}
