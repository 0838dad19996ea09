//! The recovery state machine: entry, exit, partial ACKs (RFC 6582),
//! DSACK undo (RFC 3708, Linux tcp_try_undo_dsack()) and F-RTO (RFC 5682,
//! frto.rs); Linux tcp_recovery.c and tcp_fastretrans_alert().

use crate::cc::CaState;
use crate::config::RecoveryExit;
use crate::event::{Event, RecoveryKind};
use crate::frto::{Frto, FrtoAck, FrtoVerdict};
use crate::recovery::{AwndCtx, RecoveryCtx};
use crate::time::Time;

use super::{AckRead, AckRtts, Sender, State, UndoEpisode};

/// The event that starts a fast recovery as Linux's tcp_cwnd_reduction()
/// is told of it: from tcp_cong_control() on an ACK (its flag's
/// FLAG_SND_UNA_ADVANCED, FLAG_RETRANS_DATA_ACKED and FLAG_LOST_RETRANS,
/// `rs->losses`), or from tcp_rack_reo_timeout() on
/// the reordering timer (flag 0, `tp->lost - lost`).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct EntryEvent {
    pub una_advanced: bool,
    pub newly_lost: u64,
    pub timer: bool,
    /// FLAG_RETRANS_DATA_ACKED and FLAG_LOST_RETRANS of the entering ACK
    /// (false on a timer).
    pub retrans_data_acked: bool,
    pub lost_retrans: bool,
}

impl Sender {
    /// Whether this ACK ends the recovery: the cumulative ACK reached
    /// RecoveryPoint (RFC 6582 section 3.2 step 3, RFC 6675 section 5), or,
    /// for a fast recovery whose algorithm says so, it acknowledged any new
    /// data (Reno, RFC 5681 section 3.2 step 6). `recovery_held` may still
    /// keep it.
    pub(super) fn recovery_over(&self, cum_advanced: bool) -> bool {
        match self.state {
            State::Open => false,
            State::Fast { recovery_point } => {
                self.snd_una >= recovery_point
                    || (cum_advanced && self.alg.recovery.exits_on_partial_ack())
            }
            State::Loss { recovery_point } => self.snd_una >= recovery_point,
        }
    }

    /// After the recovery state machine, without SACK: a partial ACK of
    /// the fast recovery still going on showed the next hole lost (RFC
    /// 6582 section 3.2 step 4, detect/dupthresh.rs); the recovery
    /// algorithm says whether it leaves at once, as the fast retransmit.
    pub(super) fn partial_ack_retransmission(&mut self, cum_advanced: bool) {
        let hole_lost = self.board.next_to_retransmit() == Some(self.board.base());
        if cum_advanced
            && !self.peer.sack_seen
            && matches!(self.state, State::Fast { .. })
            && hole_lost
            && self.alg.recovery.partial_ack_retransmits_at_once()
        {
            self.rexmit.fast_pending = true;
        }
    }

    /// After the recovery state machine: whether this ACK, a partial ACK
    /// of the fast recovery still going on, must not restart the
    /// retransmission timer because the recovery algorithm says so
    /// (NewReno's Impatient variant, RFC 6582 section 3.2 step 4). Counts
    /// the partial ACKs.
    pub(super) fn partial_ack_holds_rto(&mut self, cum_advanced: bool) -> bool {
        if !cum_advanced || !matches!(self.state, State::Fast { .. }) {
            return false;
        }
        self.rexmit.partial_acks += 1;
        !self
            .alg
            .recovery
            .rto_restart_on_partial_ack(self.rexmit.partial_acks)
    }

    /// A recovery that snd.una has reached the point of but that goes on
    /// (`RecoveryExit::Linux`): without SACK, Linux holds the state while
    /// snd.una is exactly at the point; RFC 6582 never holds it.
    pub(super) fn recovery_held(&self) -> bool {
        match self.state {
            State::Open => false,
            State::Fast { recovery_point } | State::Loss { recovery_point } => {
                self.cfg.recovery_exit == RecoveryExit::Linux
                    && !self.peer.sack_seen
                    && self.snd_una == recovery_point
            }
        }
    }

    /// `entry` is what Linux hands tcp_cwnd_reduction() on this event
    /// (RecoveryCtx::ack_una_advanced, newly_lost, timer_entry,
    /// retrans_data_acked, lost_retrans); the
    /// older algorithms see `snd_una_advanced` false and `new_loss` true
    /// here, as always.
    // Out of line: run once or a few times per recovery episode, so the
    // per-ACK path's code stays on fewer cache lines (issue 33,
    // docs/BENCHMARKS.md).
    #[inline(never)]
    pub(super) fn enter_fast_recovery(
        &mut self,
        now: Time,
        delivered: u64,
        rtts: AckRtts,
        entry: EntryEvent,
    ) {
        // RFC 8985 7.1: fast recovery ends a TLP episode.
        self.probes.tlp = None;
        self.probes.tlp_pending = false;
        let cwnd_before = self.win.cwnd;
        self.begin_undo_episode(cwnd_before, self.win.ssthresh);
        // RFC 5681 section 3.2 step 2 and RFC 6675 section 5 step (4.2):
        // data sent by limited transmit does not count in this FlightSize.
        let flight = self
            .board
            .packets_out()
            .saturating_sub(self.dupacks.limited_transmit_out);
        self.dupacks.limited_transmit_out = 0;
        // RFC 6675 step 4.1-4.2: RecoveryPoint = HighData; ssthresh from the
        // congestion controller (unless the RecoveryOps keeps it, or finds
        // this loss part of an earlier congestion event); the RecoveryOps
        // sets cwnd.
        let event = self
            .alg
            .recovery
            .congestion_event(&self.recovery_ctx(now, false, true, rtts), true);
        if event && self.alg.recovery.sets_ssthresh() {
            self.win.ssthresh = self.alg.cc.ssthresh(&self.win, flight);
        }
        self.state = State::Fast {
            recovery_point: self.snd_nxt,
        };
        self.rexmit.recover = self.snd_nxt;
        self.rexmit.high_rxt = None;
        self.rexmit.rescue_rxt = None;
        self.rexmit.fast_pending = true;
        self.rexmit.partial_acks = 0;
        self.measure.stats.fast_recoveries += 1;
        self.alg.cc.on_state(CaState::Recovery, &self.win);
        let rctx = RecoveryCtx {
            newly_lost: entry.newly_lost,
            ack_una_advanced: entry.una_advanced,
            timer_entry: entry.timer,
            retrans_data_acked: entry.retrans_data_acked,
            lost_retrans: entry.lost_retrans,
            ..self.recovery_ctx(now, false, true, rtts)
        };
        let owns = self.cc_caps.owns_cwnd;
        if !owns {
            self.alg.recovery.init_cwnd_reduction(&mut self.win, &rctx);
        }
        self.open_recovery_record(now, RecoveryKind::Fast, cwnd_before);
        if !owns {
            self.alg
                .recovery
                .cwnd_reduction(&mut self.win, &rctx, delivered, true);
        }
        self.emit_cwnd(now);
    }

    /// A loss marked during fast recovery that the RecoveryOps counts as
    /// a new congestion event (LE's once-per-RTT reduction): a new
    /// ssthresh and reduction, and RecoveryPoint = HighData, as on entry
    /// (RFC 6675 step 4.1), without leaving the recovery.
    // Out of line: only an ACK that marks a loss during fast recovery
    // comes here, and inlined it spread every ACK's code over more cache
    // lines (issue 33, docs/BENCHMARKS.md).
    #[inline(never)]
    pub(super) fn repeat_congestion_event(&mut self, now: Time, cum_advanced: bool, rtts: AckRtts) {
        if !matches!(self.state, State::Fast { .. }) || self.cc_caps.owns_cwnd {
            return;
        }
        let rctx = self.recovery_ctx(now, cum_advanced, true, rtts);
        if !self.alg.recovery.congestion_event(&rctx, false) {
            return;
        }
        if self.alg.recovery.sets_ssthresh() {
            let flight = self.board.packets_out();
            self.win.ssthresh = self.alg.cc.ssthresh(&self.win, flight);
        }
        self.state = State::Fast {
            recovery_point: self.snd_nxt,
        };
        self.alg.recovery.init_cwnd_reduction(&mut self.win, &rctx);
        self.emit_cwnd(now);
    }

    // Out of line: run once or a few times per recovery episode, so the
    // per-ACK path's code stays on fewer cache lines (issue 33,
    // docs/BENCHMARKS.md).
    #[inline(never)]
    pub(super) fn exit_fast_recovery(
        &mut self,
        now: Time,
        cum_advanced: bool,
        new_loss: bool,
        rtts: AckRtts,
    ) {
        let rctx = self.recovery_ctx(now, cum_advanced, new_loss, rtts);
        if let Some(r) = self
            .measure
            .recoveries
            .last_mut()
            .filter(|r| r.end.is_none())
        {
            r.cwnd_before_exit = Some(self.win.cwnd);
        }
        if !self.cc_caps.owns_cwnd {
            self.alg.recovery.end_cwnd_reduction(&mut self.win, &rctx);
            // tcp_end_cwnd_reduction() raises CA_EVENT_COMPLETE_CWR after
            // the recovery's own last word, whichever recovery it was.
            self.alg.cc.complete_cwr(&mut self.win);
        }
        if self.alg.recovery.exits_on_partial_ack() {
            // RFC 5681 section 3.2 step 6 deflates the window to ssthresh
            // against the whole FlightSize: the duplicate ACKs stop
            // counting as delivered, or the inflation would outlive the
            // recovery.
            self.dupacks.reno_sacked = 0;
        }
        self.back_to_open(now);
        self.emit_cwnd(now);
    }

    /// A recovery is over, fast or a timeout's, by its end or an undo
    /// (Linux tcp_set_ca_state(TCP_CA_Open)): the controller is told, the
    /// RFC 6675 retransmission marks go and the recovery's record closes.
    // Out of line: once per recovery (issue 33, docs/BENCHMARKS.md).
    #[inline(never)]
    fn back_to_open(&mut self, now: Time) {
        self.state = State::Open;
        self.alg.cc.on_state(CaState::Open, &self.win);
        self.rexmit.high_rxt = None;
        self.rexmit.rescue_rxt = None;
        self.rexmit.fast_pending = false;
        self.close_recovery_record(now);
    }

    /// F-RTO's verdict on an ACK after a timeout (frto.rs); a spurious
    /// timeout is undone with the undo machinery DSACKs use.
    #[inline]
    pub(super) fn frto_on_ack(
        &mut self,
        now: Time,
        una_advanced: bool,
        sacked_or_dupack: bool,
        rtts: AckRtts,
    ) -> bool {
        match self.frto {
            Some(f) => self.frto_verdict(f, now, una_advanced, sacked_or_dupack, rtts),
            None => false,
        }
    }

    // Out of line: F-RTO runs only after a timeout, so the per-ACK path's
    // code stays on fewer cache lines (issue 33, docs/BENCHMARKS.md).
    #[inline(never)]
    fn frto_verdict(
        &mut self,
        mut f: Frto,
        now: Time,
        una_advanced: bool,
        sacked_or_dupack: bool,
        rtts: AckRtts,
    ) -> bool {
        if !matches!(self.state, State::Loss { .. }) {
            self.frto = None;
            return false;
        }
        let a = FrtoAck {
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            una_advanced,
            lowest_original: self.board.delivered().lowest_original,
            next_seg: self.board.next_seg_no(),
            sacked_or_dupack,
            can_send_new: self.new_data_len() > 0,
        };
        let verdict = f.on_ack(&a);
        self.frto = (verdict == FrtoVerdict::Continue).then_some(f);
        if verdict != FrtoVerdict::Spurious {
            return false;
        }
        self.measure.stats.spurious_rtos += 1;
        let Some(u) = self.undo.take() else {
            return false;
        };
        // Linux tcp_try_undo_loss(sk, true): the reduction is undone and
        // nothing is lost after all.
        self.board.unmark_lost();
        self.undo_reduction(now, u, true, false, false, rtts);
        true
    }

    /// Remembers what a DSACK-based undo would restore (Linux
    /// tcp_init_undo(), prior_cwnd and prior_ssthresh).
    pub(super) fn begin_undo_episode(&mut self, cwnd: u64, ssthresh: u64) {
        self.undo = Some(UndoEpisode {
            prior_cwnd: cwnd,
            prior_ssthresh: ssthresh,
            marker: self.tx_order,
            retransmissions: 0,
            dsacked: 0,
            first_record: self.measure.recoveries.total(),
        });
    }

    /// Linux tcp_try_undo_dsack() (RFC 3708's spirit): when DSACKs have
    /// reported every retransmission of the episode as unnecessary, the
    /// reduction answered no loss. Restore cwnd and ssthresh (never
    /// lowering them, as tcp_undo_cwnd_reduction() does) and, when nothing
    /// else is lost or being retransmitted, leave recovery at once.
    pub(super) fn try_undo_dsack(
        &mut self,
        now: Time,
        cum_advanced: bool,
        new_loss: bool,
        rtts: AckRtts,
    ) {
        let Some(u) = self.undo.filter(|_| self.cfg.dsack_undo) else {
            return;
        };
        if u.retransmissions == 0 || u.dsacked < u.retransmissions {
            return;
        }
        let leaving = self.state != State::Open;
        if leaving && (self.board.lost_out() > 0 || self.board.retrans_out() > 0) {
            return;
        }
        self.undo = None;
        self.undo_reduction(now, u, leaving, cum_advanced, new_loss, rtts);
    }

    /// Restores cwnd and ssthresh from before the episode's reduction
    /// (never lowering them, as Linux tcp_undo_cwnd_reduction()), leaves
    /// recovery when `leaving`, and marks the episode's records undone.
    // Out of line: run once or a few times per recovery episode, so the
    // per-ACK path's code stays on fewer cache lines (issue 33,
    // docs/BENCHMARKS.md).
    #[inline(never)]
    pub(super) fn undo_reduction(
        &mut self,
        now: Time,
        u: UndoEpisode,
        leaving: bool,
        cum_advanced: bool,
        new_loss: bool,
        rtts: AckRtts,
    ) {
        if let State::Fast { .. } = self.state {
            // Let the recovery algorithm finish its bookkeeping; its cwnd
            // is replaced just below.
            if !self.cc_caps.owns_cwnd {
                let rctx = self.recovery_ctx(now, cum_advanced, new_loss, rtts);
                self.alg.recovery.end_cwnd_reduction(&mut self.win, &rctx);
            }
        }
        self.win.cwnd = self.alg.cc.undo_cwnd(&self.win, u.prior_cwnd).max(1);
        self.win.ssthresh = self.win.ssthresh.max(u.prior_ssthresh);
        self.win.cwnd_cnt = 0;
        if leaving {
            self.back_to_open(now);
        }
        for r in self.measure.recoveries.from_mut(u.first_record) {
            r.undone = true;
        }
        self.measure.stats.undos += 1;
        let (cwnd, ssthresh) = (self.win.cwnd, self.win.ssthresh);
        self.events.emit(now, || Event::Undo { cwnd, ssthresh });
        self.emit_cwnd(now);
    }

    pub(super) fn recovery_ctx(
        &self,
        now: Time,
        snd_una_advanced: bool,
        new_loss: bool,
        rtts: AckRtts,
    ) -> RecoveryCtx {
        RecoveryCtx {
            now,
            pipe: self.pipe(),
            packets_out: self.board.packets_out(),
            sacked_out: self.board.sacked_out() + self.dupacks.reno_sacked,
            snd_una_advanced,
            new_loss,
            mss: self.cfg.mss,
            ack_rtt: rtts.ack,
            delivered_rtt: rtts.delivered,
            min_rtt: self.rtt.min_rtt(),
            srtt: self.rtt.srtt(),
            min_cwnd: Some(self.alg.cc.min_cwnd(&self.win)),
            newly_lost: 0,
            ack_una_advanced: snd_una_advanced,
            timer_entry: false,
            retrans_data_acked: false,
            lost_retrans: false,
        }
    }

    pub(super) fn awnd_ctx(&self) -> AwndCtx<'_> {
        AwndCtx {
            in_recovery: matches!(self.state, State::Fast { .. }),
            board: &self.board,
            reno_sacked: self.dupacks.reno_sacked,
        }
    }

    /// The recovery state machine on one ACK (Linux tcp_fastretrans_alert()):
    /// F-RTO first, then exit, partial ACKs, DSACK undo, and entry or a
    /// repeated congestion event. Returns whether a recovery began.
    pub(super) fn recovery_state_machine(
        &mut self,
        now: Time,
        a: &AckRead,
        wants_recovery: bool,
        newly_lost: u64,
    ) -> bool {
        let new_loss = newly_lost > 0;
        let cum_advanced = a.cum_advanced;
        // F-RTO (frto.rs) while the timeout's recovery lasts.
        // An undone timeout leaves nothing lost: what the detector said
        // before the undo no longer holds (Linux returns from
        // tcp_fastretrans_alert() there).
        let rto_undone = self.frto_on_ack(
            now,
            cum_advanced,
            a.newly_sacked > 0 || a.reno_dup > 0,
            a.rtts,
        );
        let wants_recovery = wants_recovery && !rto_undone;

        match self.state {
            State::Fast { .. } if self.recovery_over(cum_advanced) && !self.recovery_held() => {
                self.exit_fast_recovery(now, cum_advanced, new_loss, a.rtts);
            }
            State::Loss { recovery_point }
                if self.snd_una >= recovery_point && !self.recovery_held() =>
            {
                // The timeout cleared the marks only fast recovery sets
                // (on_rto), so leaving is fast recovery's way out too.
                debug_assert!(self.rexmit.rescue_rxt.is_none() && !self.rexmit.fast_pending);
                self.back_to_open(now);
            }
            _ => {}
        }
        self.partial_ack_retransmission(cum_advanced);
        // On every ACK, as Linux in Recovery: the last DSACK may have come
        // while a segment was still marked lost whose original has now
        // arrived.
        self.try_undo_dsack(now, cum_advanced, new_loss, a.rtts);
        let entering = self.state == State::Open && wants_recovery;
        if entering {
            let entry = EntryEvent {
                una_advanced: cum_advanced,
                newly_lost,
                timer: false,
                retrans_data_acked: a.retrans_data_acked,
                lost_retrans: a.lost_retrans,
            };
            self.enter_fast_recovery(now, a.delivered, a.rtts, entry);
        } else if new_loss {
            self.repeat_congestion_event(now, cum_advanced, a.rtts);
        }
        entering
    }
}
