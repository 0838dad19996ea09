//! Timers: the retransmission timeout (RFC 6298, RFC 6675 section 5.1),
//! the loss probes of the tail-loss policies (RFC 8985 section 7; Linux
//! tcp_timer.c) and the zero-window probe (persist, RFC 9293 3.8.6.1).

use crate::cc::CaState;
use crate::config::RtoSsthresh;
use crate::event::{Event, RecoveryKind, TimerKind};
use crate::frto::{Frto, FrtoMode};
use crate::pacing::Pacer;
use crate::scoreboard::SegMeta;
use crate::sndbuf::SendBuffer;
use crate::time::{earliest, Time};
use crate::timers::{Deadline, TimerCtx};
use crate::wire::{Ack, Segment};

use super::recovery::EntryEvent;
use super::{AckRtts, Marks, Sender, State, TlpAckInfo, TlpEpisode};

impl Sender {
    /// The earliest time `on_timeout` must be called.
    // Inline: the simulator asks after every ACK and timer event, and the
    // call across the crates was a measurable part of m100's and g1's
    // time (docs/BENCHMARKS.md, issue 33).
    #[inline]
    pub fn poll_timeout(&self) -> Option<Time> {
        if let Some(op) = &self.opening {
            return op.timer;
        }
        // Folded pairwise (`earliest`) rather than through an iterator
        // over an array: this runs after every ACK and timer event.
        let mut t = earliest(self.timer.map(|t| t.0), self.probes.persist);
        t = earliest(t, self.alg.detect.poll_timeout());
        t = earliest(t, self.app.next_write_time());
        // A writer woken with `wake_delay` refills then.
        t = earliest(t, self.sndbuf.as_ref().and_then(SendBuffer::wake_at));
        match self.pacer.as_ref().and_then(Pacer::wake_at) {
            Some(p) => Some(t.map_or(p, |t| t.min(p))),
            // A copy due while the pacer waits leaves at its wake-up.
            None => earliest(t, self.replicas.queue.peek().map(|r| r.0 .0)),
        }
    }

    pub fn on_timeout(&mut self, now: Time) {
        if self.opening.is_some() {
            self.opening_on_timeout(now);
            return;
        }
        self.measure.close_stall(now);
        self.measure.close_starvation(now);
        let woken = self
            .sndbuf
            .as_ref()
            .and_then(SendBuffer::wake_at)
            .is_some_and(|t| t <= now);
        if woken || self.app.next_write_time().is_some_and(|t| t <= now) {
            self.app_write(now);
        }
        if let Some(p) = &mut self.pacer {
            p.clear_wait(now);
        }
        if self.alg.detect.poll_timeout().is_some_and(|t| t <= now) {
            self.events.emit(now, || Event::TimerFired {
                kind: TimerKind::Detector,
            });
            let ctx = self.detect_ctx(now, false);
            let mut marks = Marks::default();
            let enter = {
                let events = &mut self.events;
                let mut on_mark = |n: u64, s: &SegMeta| marks.on_mark(events, now, n, s);
                self.alg
                    .detect
                    .on_timeout(&ctx, &mut self.board, &mut on_mark)
            };
            self.measure.stats.lost_retransmissions += marks.lost_retransmissions;
            if let Some(r) = &mut self.rate {
                r.on_lost(marks.marked);
            }
            if enter && self.state == State::Open {
                // No ACK is being processed: no RTTs of one.
                // Linux tcp_rack_reo_timeout(): tcp_cwnd_reduction(sk, 1,
                // tp->lost - lost, 0), a delivery of one and no flags.
                let entry = EntryEvent {
                    una_advanced: false,
                    newly_lost: marks.marked,
                    timer: true,
                    retrans_data_acked: false,
                    lost_retrans: false,
                };
                self.enter_fast_recovery(now, 0, AckRtts::default(), entry);
            }
        }
        if self.probes.persist.is_some_and(|t| t <= now) {
            self.probes.persist = None;
            self.events.emit(now, || Event::TimerFired {
                kind: TimerKind::Persist,
            });
            self.rtt.back_off();
            // Zero-window probe: the peer's ACK carries its current window.
            if self.board.is_empty() {
                self.probes.zero_window_pending = true;
            }
        }
        if let Some((t, kind)) = self.timer {
            if t <= now {
                self.timer = None;
                self.events.emit(now, || Event::TimerFired { kind });
                if kind == TimerKind::Probe {
                    self.on_probe_timeout(now);
                } else {
                    self.on_rto(now);
                }
            }
        }
    }

    /// The probe timeout of a TLP policy (tail-loss paper 2.2, RFC 8985
    /// 7.3; Linux tcp_send_loss_probe()): a probe goes out on the next
    /// poll_transmit, outside the congestion window, if the sender is still
    /// in Open state with no probe of this tail in flight. Either way the
    /// RTO is armed now, not the PTO (RFC 8985 7.3), so a probe that cannot
    /// be sent leaves the RTO running.
    pub(super) fn on_probe_timeout(&mut self, now: Time) {
        if self.board.is_empty() {
            return;
        }
        self.timer = self.on_tick(now, Some((now + self.rtt.rto(), TimerKind::Rto)));
        if self.state == State::Open && self.probes.tlp.is_none() {
            self.probes.tlp_pending = true;
        }
    }

    /// RFC 6298 5.4-5.6, RFC 5681 section 3.1 and RFC 6675 section 5.1.
    pub(super) fn on_rto(&mut self, now: Time) {
        if self.board.is_empty() {
            return;
        }
        self.measure.stats.timeouts += 1;
        // RFC 8985 7.1: RTO recovery ends a TLP episode.
        self.probes.tlp = None;
        self.probes.tlp_pending = false;
        self.close_recovery_record(now);
        // RFC 5681 equation (4) on a new loss episode. A repeated timeout
        // keeps ssthresh (RFC 5681 section 3.1: only a segment not yet
        // resent by the timer). A timeout during fast recovery: Linux
        // keeps the ssthresh the fast recovery set (tcp_enter_loss()
        // recomputes only when icsk_ca_state < TCP_CA_Recovery), RFC 5681
        // recomputes it (`rto_ssthresh`).
        let new_episode = self.state == State::Open;
        let in_fast = matches!(self.state, State::Fast { .. });
        if new_episode {
            // A new episode (Linux tcp_enter_loss() -> tcp_init_undo());
            // a timeout inside one keeps what it would undo to.
            self.begin_undo_episode(self.win.cwnd, self.win.ssthresh);
        }
        if new_episode || (in_fast && self.cfg.rto_ssthresh == RtoSsthresh::Rfc5681) {
            let flight = self.board.packets_out();
            self.win.ssthresh = self.alg.cc.ssthresh(&self.win, flight);
        }
        // F-RTO on a timeout that starts an episode or repeats one, not on
        // a first timeout in fast recovery (tcp_enter_loss(): `new_recovery
        // || icsk_retransmits`).
        let repeated = matches!(self.state, State::Loss { .. });
        self.frto = (self.cfg.frto != FrtoMode::Off && (new_episode || repeated))
            .then(|| Frto::new(self.snd_nxt, self.board.next_seg_no()));
        self.alg.cc.on_timeout(now);
        self.win.ssthresh = self.alg.cc.ssthresh_after_timeout(self.win.ssthresh);
        let cwnd_before = self.win.cwnd;
        self.win.cwnd = self.alg.cc.loss_window();
        self.win.cwnd_cnt = 0;
        let dctx = self.detect_ctx(now, false);
        let lost_before = self.board.lost_out();
        self.alg.detect.on_rto(&dctx, &mut self.board);
        if let Some(r) = &mut self.rate {
            r.on_lost(self.board.lost_out().saturating_sub(lost_before));
        }
        self.rexmit.rto_pending = true;
        self.dupacks.count = 0;
        self.dupacks.reno_sacked = 0;
        self.rexmit.high_rxt = None;
        self.rexmit.rescue_rxt = None;
        self.rexmit.fast_pending = false;
        self.state = State::Loss {
            recovery_point: self.snd_nxt,
        };
        self.rexmit.recover = self.snd_nxt;
        self.alg.cc.on_state(CaState::Loss, &self.win);
        self.rtt.back_off();
        // RFC 6298 (5.6) and Linux tcp_retransmit_timer(), whose last act is
        // inet_csk_reset_xmit_timer(ICSK_TIME_RETRANS, icsk_rto): the
        // backed-off timer runs from the expiry. Left to the
        // retransmission's own send, a pacer holding it and an ACK that
        // undid the timeout before it left (F-RTO) kept the flow with data
        // in flight and no timer. Linux's retransmission passes no pacing
        // check; when it cannot go (tcp_retransmit_skb() fails, e.g. a
        // copy still in the host queue) Linux arms min(RTO, 500 ms)
        // without backing off, which is not modelled: a pacer that holds
        // the retransmission past the backed-off RTO here times out again.
        self.timer = self.on_tick(now, Some((now + self.rtt.rto(), TimerKind::Rto)));
        self.open_recovery_record(now, RecoveryKind::Timeout, cwnd_before);
        self.emit_cwnd(now);
    }

    /// A deadline on the kernel's timer tick when the flow has one
    /// (`RtoConfig::tick`): Linux arms a timer at jiffies + a whole number
    /// of jiffies (the RTO is already rounded up to whole ticks) and the
    /// timer wheel fires it on that tick, so a deadline computed from an
    /// exact send or ACK time fires at the tick at or before it; never
    /// before `now`.
    pub(super) fn on_tick(&self, now: Time, d: Deadline) -> Deadline {
        let tick = self.cfg.rto.tick;
        match d {
            Some((t, kind)) if tick > 0 => Some(((t / tick * tick).max(now), kind)),
            d => d,
        }
    }

    // Built once per segment sent and once per ACK. Forced inline: a
    // plain #[inline] left it a call (with LTO), whose struct went back
    // through memory; inlined, on_ack and poll_transmit fill it in place
    // (issue 33: 110 M of 7.9 G instructions in bench --modern's 100 ms
    // case).
    #[inline(always)]
    pub(super) fn timer_ctx(&self, now: Time) -> TimerCtx {
        let (sacked_out, disorder) = self.gate_state();
        let rto = self.rtt.rto();
        TimerCtx {
            now,
            rto,
            srtt: self.rtt.srtt(),
            packets_out: self.board.packets_out(),
            oldest_sent: self.board.first().map(|s| s.last_sent),
            newest_sent: (!self.board.is_empty()).then_some(self.last_send),
            has_unsent: self.new_data_len() > 0,
            in_recovery: self.state != State::Open,
            probe_in_flight: self.probes.tlp.is_some(),
            rtt_since_probe: self.probes.rtt_since_probe,
            sacked_out,
            disorder,
            cwnd_room_and_queue: self.cwnd_room_and_queue(),
            old_ack: false,
            prior_rto: rto,
        }
    }

    /// What a loss probe's gate reads, for a policy that arms probes
    /// (zero otherwise): the segments SACKed (without SACK, the duplicate
    /// ACKs counted as SACKed), and Linux's test for CA_Disorder
    /// (`timers::ca_disorder`) from the scoreboard as it stands. Linux
    /// re-evaluates its state only on ACKs that are "dubious"
    /// (tcp_ack_is_dubious(); every ACK outside Open and every ACK with
    /// new SACK blocks is); the one state that leaves stale, Open after a
    /// loss probe's retransmission, is a probe episode, in which the
    /// engine arms no probe (`probe_in_flight`) while 3.x-4.x's
    /// tcp_schedule_loss_probe(), which does not look at tlp_high_seq,
    /// arms one again (a difference that predates the gate;
    /// docs/LINUX-VERSIONS.md). In the engine a segment marked lost or
    /// retransmitted outside recovery is otherwise rare: the SACK term
    /// decides.
    fn gate_state(&self) -> (u64, bool) {
        if !self.probes.gated {
            return (0, false);
        }
        let sacked = self.board.sacked_out() + self.dupacks.reno_sacked;
        let disorder = crate::timers::ca_disorder(
            sacked + self.board.lost_out(),
            self.board.retrans_out(),
            self.board.first().is_some_and(|s| s.tx_count > 1),
        );
        (sacked, disorder)
    }

    /// cwnd exceeds the packets in flight and data is queued (3.10-4.x
    /// tcp_schedule_loss_probe()'s refusal), for the policies that read it.
    fn cwnd_room_and_queue(&self) -> bool {
        self.probes.reads_room
            && self.win.cwnd > self.pipe()
            && self
                .app
                .available(self.snd_nxt, self.snd_una, self.sndbuf_cap())
                > 0
    }

    /// Linux tcp_check_probe_timer() (tcp.h), from
    /// __tcp_push_pending_frames() when nothing could be sent: nothing in
    /// flight, no timer pending, and data waiting arms the probe timer.
    /// Two cases reach it: the receive window is shut, or it is open and
    /// cwnd is 0 (a recovery whose own pipe estimate exceeds cwnd with
    /// nothing in flight, as ns-2's Sack1 held in Linux's non-SACK
    /// recovery exit can be). Without the timer either would wait
    /// forever: no ACK is coming.
    // The test inline, the rest out of line: called on every ACK and at
    // the end of every burst, it nearly always returns at the test, and
    // the call cost more than the test (issue 33).
    #[inline]
    pub(super) fn maybe_arm_persist(&mut self, now: Time) {
        if self.board.is_empty() && self.probes.persist.is_none() {
            self.arm_persist_if_shut(now);
        }
    }

    #[inline(never)]
    fn arm_persist_if_shut(&mut self, now: Time) {
        let window_shut = self.new_data_len() == 0
            && self
                .app
                .available(self.snd_nxt, self.snd_una, self.sndbuf_cap())
                > 0;
        let cwnd_shut = self.new_data_len() > 0 && !self.window_open();
        if window_shut || cwnd_shut {
            self.probes.persist = Some(now + self.rtt.rto());
        }
    }

    /// The probe timer's data-carrying probe (Linux tcp_write_wakeup(),
    /// from tcp_send_probe0()): with the receive window open, the next
    /// new segment goes out whatever cwnd says; its ACK restarts the ACK
    /// clock.
    pub(super) fn wakeup_due(&self) -> bool {
        self.probes.zero_window_pending
            && self.board.is_empty()
            && self.new_data_len() > 0
            && !self.window_open()
    }

    /// A zero-window probe as Linux sends it (tcp_xmit_probe_skb(), from
    /// tcp_send_probe0()): no data, sequence number snd.una - 1, so the
    /// peer finds it old and answers with an ACK carrying its window.
    /// Nothing is put in flight, so no retransmission timer runs on it: the
    /// persist timer, backed off on each expiry, sends the next one. RFC
    /// 9293 3.8.6.1 has the probe carry one octet of new data instead;
    /// such a probe sits in flight under the retransmission timer, which,
    /// while the window stays shut, fires and collapses cwnd (our earlier
    /// probe did that; docs/ALGORITHMS.md).
    // Cold: out of the per-ACK and per-send paths so their hot code
    // stays on fewer cache lines (issue 33, docs/BENCHMARKS.md).
    #[cold]
    #[inline(never)]
    pub(super) fn send_probe(&mut self, now: Time) -> Option<Segment> {
        self.probes.zero_window_pending = false;
        let avail = self
            .app
            .available(self.snd_nxt, self.snd_una, self.sndbuf_cap());
        if avail == 0 || !self.board.is_empty() {
            return None;
        }
        // Linux leaves lsndtime alone for a probe (tcp_event_data_sent()
        // runs for data only), so it does not delay restart after idle.
        Some(Segment {
            seq: self.snd_una.saturating_sub(1),
            len: 0,
            ts_val: now + 1,
            ts_ecr: self.peer.ts_recent,
            seg_no: self.board.next_seg_no(),
            tx_count: 1,
            tx_order: self.tx_order,
            probe: true,
            syn: false,
            replica: false,
        })
    }

    /// One loss probe (tail-loss paper 2.2, RFC 8985 7.3, Linux
    /// tcp_send_loss_probe()): a new segment if there is one and the
    /// receive window allows it, regardless of cwnd; otherwise a
    /// retransmission of the highest-sequence segment sent (RFC 8985 7.3
    /// "the highest-sequence segment sent so far"; Linux takes the last
    /// skb of the retransmission queue). Deviation: when that segment is
    /// SACKed, RFC and Linux still resend it (its only effect is a DSACK,
    /// which ends the episode); our scoreboard never resends SACKed data,
    /// so the highest un-SACKed segment goes instead. Opens the TLP
    /// episode. None when everything outstanding is SACKed; the RTO armed
    /// when the probe timer fired stays.
    // Cold: out of the per-ACK and per-send paths so their hot code
    // stays on fewer cache lines (issue 33, docs/BENCHMARKS.md).
    #[cold]
    #[inline(never)]
    pub(super) fn send_loss_probe(&mut self, now: Time) -> Option<Segment> {
        let len = self.new_data_len();
        let (mut seg, retrans) = if len > 0 {
            (self.send_new(now, len), None)
        } else {
            let n = crate::nextseg::highest_unsacked(&self.board)?;
            let s = self.retransmit(now, n);
            (s, Some((s.seq, s.seq + s.len as u64)))
        };
        seg.probe = true;
        self.measure.stats.tail_probes += 1;
        self.probes.tlp = Some(TlpEpisode {
            end_seq: self.snd_nxt,
            retrans,
        });
        self.probes.rtt_since_probe = false;
        self.check_invariants();
        let tctx = self.timer_ctx(now);
        let d = self.alg.timers.on_send(&tctx, self.timer);
        self.timer = self.on_tick(now, d);
        Some(seg)
    }

    /// RFC 8985 7.4.2: the probe repaired a loss; reduce cwnd once.
    // Cold: once per TLP episode, and inlined it sat in the per-ACK path
    // (issue 33, docs/BENCHMARKS.md).
    #[cold]
    #[inline(never)]
    fn tlp_repaired_loss(&mut self, now: Time, prior_out: u64) {
        // Linux enters and leaves CWR at once; a controller that owns
        // cwnd keeps it (tcp_end_cwnd_reduction() returns early).
        self.win.ssthresh = self.alg.cc.ssthresh(&self.win, prior_out);
        self.alg.cc.on_state(CaState::Cwr, &self.win);
        if !self.cc_caps.owns_cwnd {
            self.win.cwnd = self.win.ssthresh.max(1);
            self.win.cwnd_cnt = 0;
            self.alg.cc.complete_cwr(&mut self.win);
        }
        self.alg.cc.on_state(CaState::Open, &self.win);
        self.emit_cwnd(now);
    }

    /// RFC 8985 section 7.4.2 (Linux tcp_process_tlp_ack()): once the ACK
    /// reaches TLP.end_seq the episode is over. A probe of new data, or any
    /// probe of a policy without loss inference, says nothing more. A
    /// retransmitted probe answered by a DSACK for it, or by a TLP
    /// duplicate ACK, found the original delivered; an ACK beyond
    /// TLP.end_seq without either means the original was lost and the
    /// probe repaired it: reduce cwnd once (enter and leave CWR). A TLP
    /// duplicate ACK is Linux's `is_tlp_dupack`: the ACK is exactly
    /// TLP.end_seq, does not advance snd.una, SACKs no new data and does
    /// not update the window (FLAG_SND_UNA_ADVANCED, FLAG_DATA_SACKED,
    /// FLAG_NOT_DUP); SACK blocks that only repeat old information do not
    /// disqualify it. Any other ACK of exactly TLP.end_seq waits. The
    /// reduction takes FlightSize as it was when this ACK arrived.
    pub(super) fn process_tlp_ack(&mut self, now: Time, ack: &Ack, a: TlpAckInfo) {
        let TlpAckInfo {
            dsack,
            cum_advanced,
            newly_sacked,
            window_update,
            prior_out,
        } = a;
        let Some(ep) = self.probes.tlp else {
            return;
        };
        if self.state != State::Open {
            // RFC 8985 7.1: fast or RTO recovery resets the episode.
            self.probes.tlp = None;
            return;
        }
        if ack.ack < ep.end_seq {
            return;
        }
        let Some((lo, hi)) = ep
            .retrans
            .filter(|_| self.alg.timers.infers_loss_from_probe())
        else {
            self.probes.tlp = None;
            return;
        };
        let blocks = ack.sack.as_slice();
        let dsack_for_probe = dsack && blocks[0].start < hi && blocks[0].end > lo;
        if dsack_for_probe {
            self.probes.tlp = None;
        } else if ack.ack > ep.end_seq {
            self.probes.tlp = None;
            self.tlp_repaired_loss(now, prior_out);
        } else if !cum_advanced && newly_sacked == 0 && !window_update {
            self.probes.tlp = None;
        }
    }
}
