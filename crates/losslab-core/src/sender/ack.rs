//! `on_ack`: one ACK, as a page of named steps (after Linux tcp_ack()).

use crate::config::RttSampling;
use crate::detect::DetectCtx;
use crate::event::Event;
use crate::rtt_sample;
use crate::scoreboard::{CumAcked, SegMeta};
use crate::time::Time;
use crate::wire::{Ack, Range};

use super::{AckFacts, AckRead, AckRtts, Marks, Sender, State, TlpAckInfo, MAX_REORDERING};

impl Sender {
    /// One ACK, in the order of Linux tcp_ack(): read it, detect losses,
    /// run the recovery state machine, congestion control, then the probes
    /// and timers, and let the application write.
    pub fn on_ack(&mut self, now: Time, ack: &Ack) {
        self.measure.stats.acks_received += 1;
        if self.opening.is_some() {
            self.opening_on_ack(now, ack);
            return;
        }
        self.measure.close_stall(now);
        self.measure.close_starvation(now);
        // An ACK for data never sent is ignored (RFC 793, RFC 5961).
        if ack.ack > self.snd_nxt {
            self.measure.stats.invalid_acks += 1;
            return;
        }
        // Linux 3.10-4.x tcp_ack() re-arms a pending probe's RTO before
        // tcp_clean_rtx_queue() takes this ACK's RTT sample.
        let prior_rto = self.rtt.rto();
        let mut a = self.read_ack(now, ack);
        let (marks, wants_recovery) = self.detect_losses(now, ack, &a);
        a.lost_retrans = marks.lost_retransmissions > 0;
        let new_loss = marks.marked > 0;
        let entering = self.recovery_state_machine(now, &a, wants_recovery, marks.marked);
        // Congestion control (Linux tcp_rate_gen() then
        // tcp_cong_control()).
        self.congestion_control(
            now,
            AckFacts {
                rtt_sample: a.rtt_sample,
                bytes_acked: ack.ack.saturating_sub(a.prior_una),
                newly_sacked: a.newly_sacked,
                delivered: a.delivered,
                losses: marks.marked,
                prior_in_flight: a.prior_in_flight,
                retrans_data_acked: a.retrans_data_acked,
                lost_retrans: a.lost_retrans,
            },
            entering,
            a.cum_advanced,
            new_loss,
            a.rtts,
        );
        // Probes and timers: the TLP episode's outcome (RFC 8985 7.4), then
        // the timer policy (RFC 6298 section 5).
        self.process_tlp_ack(
            now,
            ack,
            TlpAckInfo {
                dsack: a.dsack,
                cum_advanced: a.cum_advanced,
                newly_sacked: a.newly_sacked,
                window_update: ack.window != a.prior_rwnd,
                prior_out: a.prior_out,
            },
        );
        self.rearm_timers(now, a.cum_advanced, a.old_ack, prior_rto);
        // The application writes into what the ACK freed (Linux
        // tcp_new_space()).
        self.application(now, a.cum_advanced);

        self.check_invariants();
        if self.events.enabled() {
            let state = self.window_state();
            let (newly_acked, newly_sacked, dsack) = (a.newly_acked, a.newly_sacked, a.dsack);
            self.events.emit(now, || Event::AckProcessed {
                ack: ack.ack,
                newly_acked,
                newly_sacked,
                dsack,
                state,
            });
        }
    }

    /// Reads one ACK into facts and updates what it says directly: the
    /// peer's window, the cumulative and selective acknowledgments, DSACKs,
    /// reordering, the RTT and the count of delivered segments.
    // Called once, from on_ack: forced inline so that `AckRead` is filled
    // in on_ack's frame instead of copied out (issue 33).
    #[inline(always)]
    fn read_ack(&mut self, now: Time, ack: &Ack) -> AckRead {
        if ack.ts_val > self.peer.ts_recent {
            self.peer.ts_recent = ack.ts_val;
        }
        let prior_una = self.snd_una;
        let prior_out = self.board.packets_out();
        // Only a controller that reads every ACK's context, and Linux
        // 3.10's cwnd validation, need it.
        let prior_in_flight = if self.cc_caps.owns_cwnd
            || self.cc_caps.observes_acks
            || self.cfg.cwnd_validation.is_310()
        {
            self.pipe()
        } else {
            0
        };
        let old_ack = ack.ack < prior_una;
        let blocks = ack.sack.as_slice();

        // RFC 2883 section 4: the first block is a DSACK when it lies below
        // the cumulative ACK or inside the second block.
        let dsack = blocks.first().is_some_and(|b0| {
            b0.end <= ack.ack || blocks.get(1).is_some_and(|b1| b1.contains_range(b0))
        });
        if dsack {
            self.measure.stats.dsacks_received += 1;
        }
        let sack_blocks = if dsack { &blocks[1..] } else { blocks };
        if !sack_blocks.is_empty() || dsack {
            self.peer.sack_seen = true;
        }

        let prior_rwnd = self.peer.rwnd;
        if !old_ack {
            self.peer.rwnd = ack.window;
            self.peer.max_rwnd = self.peer.max_rwnd.max(ack.window);
        }
        self.board.begin_ack();
        let prior_fack = self.board.fack();

        // Cumulative part.
        let cum = if ack.ack > prior_una {
            self.snd_una = ack.ack;
            let c = self.board.on_cum_ack(ack.ack);
            self.measure.stats.bytes_acked += ack.ack - prior_una;
            c
        } else {
            Default::default()
        };
        let cum_advanced = ack.ack > prior_una;

        // SACK part.
        let mut newly_sacked = 0;
        for b in sack_blocks {
            if b.end > self.snd_una && b.start < self.snd_nxt {
                newly_sacked += self.board.on_sack_block(*b);
            }
        }
        let dsack_reordering = dsack && self.read_dsack(blocks[0]);
        self.note_reordering(now, prior_fack, dsack_reordering);
        let rtt_sample = self.take_rtt_sample(now, ack, &cum, cum_advanced);

        // RTT_i for QARR and BARR, whatever Karn's rule says above.
        let rtts = AckRtts {
            ack: (ack.ts_ecr > 0 && ack.ts_ecr <= now + 1).then(|| now + 1 - ack.ts_ecr),
            delivered: self.board.delivered().latest_original.map(|d| now - d.sent),
        };

        let mut a = AckRead {
            prior_una,
            prior_out,
            prior_in_flight,
            prior_rwnd,
            old_ack,
            dsack,
            cum_advanced,
            newly_acked: cum.segments,
            newly_sacked,
            rtt_sample,
            rtts,
            delivered: 0,
            reno_dup: 0,
            retrans_data_acked: cum.any_retransmitted,
            lost_retrans: false,
        };
        self.count_delivered(now, ack, &cum, &mut a);
        a
    }

    /// The DSACK block (RFC 2883 section 4, RFC 3708): which transmissions
    /// the receiver got twice. Each reported segment counts once per extra
    /// transmission at most (`fresh`), so a duplicated ACK cannot count
    /// twice. Returns whether it shows reordering.
    // Out of line: only an ACK with a DSACK comes here, and inlined it
    // spread every ACK's code over more cache lines (issue 33,
    // docs/BENCHMARKS.md).
    #[inline(never)]
    fn read_dsack(&mut self, block: Range) -> bool {
        let mut dsack_reordering = false;
        let marker = self.undo.map(|u| u.marker);
        let mut unnecessary = 0;
        let mut copies = 0;
        self.board.on_dsack_block(block, |d| {
            copies += u64::from(d.replica);
            if !d.fresh {
                return;
            }
            // Sent twice, the second time because a detector had
            // declared it lost, and received twice: the original was
            // late, not lost. (Speculative retransmissions, NextSeg()
            // rules 3 and 4, and those after an RTO say nothing.)
            dsack_reordering |= d.tx_count == 2 && d.loss_driven;
            if marker.is_some_and(|m| d.tx_order > m) {
                unnecessary += 1;
            }
        });
        if let Some(u) = &mut self.undo {
            u.dsacked += unnecessary;
        }
        self.measure.stats.redundant_duplicates += copies;
        dsack_reordering
    }

    /// Reordering (Linux tcp_check_sack_reordering(), RFC 8985
    /// RACK_detect_reordering()): a segment sent once was delivered below
    /// one delivered before it.
    fn note_reordering(&mut self, now: Time, prior_fack: u64, dsack_reordering: bool) {
        let sack_reordering = self
            .board
            .delivered()
            .lowest_original
            .is_some_and(|n| n < prior_fack);
        if sack_reordering || dsack_reordering {
            self.measure.stats.reordering_events += 1;
            self.reorder.seen = true;
            // Linux tcp_check_sack_reordering() / tcp_update_reordering():
            // the degree is how far below the highest SACK the late segment
            // was, capped at sysctl_tcp_max_reordering (300).
            if let Some(low) = self.board.delivered().lowest_original {
                let metric = prior_fack.saturating_sub(low).min(MAX_REORDERING);
                self.reorder.degree = self.reorder.degree.max(metric as u32);
            }
            self.events.emit(now, || Event::ReorderingDetected);
        }
    }

    /// This ACK's RTT samples. The estimator takes one; the sample
    /// returned is the one the detectors and the congestion controller
    /// get. `rtt_sample = "tsecr"`: one sample from the echoed timestamp,
    /// under Karn's rule (none when any newly acknowledged segment was ever
    /// retransmitted), for everyone, min_rtt too; `"linux"`: Linux's
    /// seq_rtt for the estimator and ca_rtt for the rest; `"linux-3.2"`
    /// and `"linux-3.15"`: Linux 3.x's, where the estimator and the
    /// controller may each have a sample without the other, and min_rtt
    /// takes the Karn-filtered one of its own (rtt_sample.rs).
    fn take_rtt_sample(
        &mut self,
        now: Time,
        ack: &Ack,
        cum: &CumAcked,
        cum_advanced: bool,
    ) -> Option<Time> {
        let tsecr = (ack.ts_ecr > 0 && ack.ts_ecr <= now + 1).then(|| now + 1 - ack.ts_ecr);
        let (r, min, ca) = match self.cfg.rtt_sample {
            RttSampling::Tsecr => {
                let r = tsecr.filter(|_| cum.segments > 0 && !cum.any_retransmitted)?;
                (r, r, Some(r))
            }
            RttSampling::Linux => {
                let d = self.board.delivered();
                let s = rtt_sample::linux(now, d, cum_advanced, cum.any_retransmitted, tsecr)?;
                (s.seq_rtt, s.ca_rtt, Some(s.ca_rtt))
            }
            RttSampling::Linux32 | RttSampling::Linux315 => {
                let a = rtt_sample::OldAck {
                    now,
                    tick: self.cfg.rto.tick,
                    acked: cum_advanced,
                    retrans_acked: cum.any_retransmitted,
                    tsecr_sent: tsecr.map(|r| now - r),
                    ca_rtt_stamp: self.cc_caps.rtt_stamp,
                };
                let d = self.board.delivered();
                let s = if self.cfg.rtt_sample == RttSampling::Linux32 {
                    rtt_sample::linux_3_2(&a, d)
                } else {
                    rtt_sample::linux_3_15(&a, d)
                };
                let Some(r) = s.seq_rtt else {
                    return s.ca_rtt;
                };
                // Time::MAX leaves the minimum as it was.
                (r, s.min_rtt.unwrap_or(Time::MAX), s.ca_rtt)
            }
        };
        // After snd_una moved, as tcp_clean_rtx_queue() follows
        // tcp_snd_una_update() in Linux's tcp_ack().
        self.rtt.on_samples_at(r, min, self.snd_una, self.snd_nxt);
        self.probes.rtt_since_probe = true;
        self.measure.stats.rtt.record(r);
        // The sampled segment's send time (TSecr - 1 for a timestamp).
        self.measure.watch_rtt_spike(now - r, r);
        let (srtt, rto) = (self.rtt.srtt().unwrap_or(0), self.rtt.rto());
        self.events
            .emit(now, || Event::RttSample { rtt: r, srtt, rto });
        ca
    }

    /// Duplicate ACK accounting and the segments this ACK delivered. With
    /// SACK, RFC 6675 section 2 counts an ACK as duplicate when it SACKs
    /// new data; without SACK, RFC 5681 section 2 (same ACK, same window,
    /// data outstanding).
    fn count_delivered(&mut self, now: Time, ack: &Ack, cum: &CumAcked, a: &mut AckRead) {
        let mut reno_dup = 0;
        let mut cum_delivered = cum.newly_delivered;
        if a.cum_advanced {
            // Without SACK each duplicate ACK was already counted as one
            // delivered segment, so the cumulative ACK that follows k of
            // them delivers its advance minus k (RFC 6937 section 3, RFC
            // 9937 section 6.2), and at least the hole it filled (Linux
            // tcp_remove_reno_sacks(): max(acked - sacked_out, 1)).
            if self.dupacks.reno_sacked > 0 {
                cum_delivered = cum
                    .newly_delivered
                    .saturating_sub(self.dupacks.reno_sacked)
                    .max(1);
            }
            self.dupacks.count = 0;
            self.dupacks.limited_transmit_out = 0;
            // Outside recovery a new ACK forgets the duplicates before it
            // (RFC 5681 section 2's counter; Linux tcp_reset_reno_sack() in
            // tcp_fastretrans_alert()'s Open/Disorder case); in recovery
            // the hole's ACK eats one and the rest stay counted (Linux
            // tcp_remove_reno_sacks()).
            self.dupacks.reno_sacked = match self.state {
                State::Open => 0,
                _ => self
                    .dupacks
                    .reno_sacked
                    .saturating_sub(cum.segments.saturating_sub(1)),
            };
        } else if !a.old_ack && !self.board.is_empty() {
            if a.newly_sacked > 0 {
                self.dupacks.count += 1;
            } else if !self.peer.sack_seen
                && ack.sack.as_slice().is_empty()
                && ack.window == a.prior_rwnd
            {
                self.dupacks.count += 1;
                if self.dupacks.reno_sacked + 1 < self.board.packets_out() {
                    self.dupacks.reno_sacked += 1;
                    reno_dup = 1;
                }
            }
        }
        self.dupacks.reno_sacked = self
            .dupacks
            .reno_sacked
            .min(self.board.packets_out().saturating_sub(1));
        let delivered = cum_delivered + a.newly_sacked + reno_dup;
        if delivered > 0 {
            self.alg
                .recovery
                .pkts_acked(now, delivered, self.rtt.latest());
        }
        a.delivered = delivered;
        a.reno_dup = reno_dup;
    }

    /// Marks what this ACK shows lost: lost retransmissions, then the
    /// pluggable detector. Returns the marks and whether the detector asks
    /// for a recovery (F-RTO's undo may still veto it).
    fn detect_losses(&mut self, now: Time, ack: &Ack, a: &AckRead) -> (Marks, bool) {
        // Lost-retransmission detection (PRR/ER paper section 3.2, Linux
        // tcp_mark_lost_retrans()): while recovering, a retransmission
        // sent before a transmission that has now been delivered is lost.
        let mut marks = Marks::default();
        if self.cfg.lost_retransmission_detection && self.state != State::Open {
            // Only a segment sent once says which transmission arrived: a
            // SACKed retransmitted segment may be its original (Linux
            // likewise waits for new data sent after the retransmission).
            if let Some(latest) = self.board.delivered().latest_original {
                let events = &mut self.events;
                self.board
                    .mark_retransmissions_lost_before(latest.tx_order, |n, s| {
                        marks.on_mark(events, now, n, s)
                    });
            }
        }

        // Loss detection.
        let cum_advanced = a.cum_advanced;
        let mut ctx = self.detect_ctx(now, cum_advanced);
        ctx.ts_ecr = ack.ts_ecr;
        ctx.rtt_sample = a.rtt_sample;
        ctx.dsack = a.dsack;
        ctx.newly_sacked = a.newly_sacked;
        ctx.duplicate_ack = !cum_advanced && !a.old_ack && !self.board.is_empty();
        ctx.echo_order = ack.echo_order;
        ctx.exiting_recovery = self.recovery_over(cum_advanced);
        // While Linux holds a non-SACK recovery at its point it returns from
        // tcp_fastretrans_alert() before any loss detection: duplicate ACKs
        // of data sent during the recovery mark nothing.
        let wants_recovery = !self.recovery_held() && {
            let events = &mut self.events;
            let mut on_mark = |n: u64, s: &SegMeta| marks.on_mark(events, now, n, s);
            self.alg.detect.on_ack(&ctx, &mut self.board, &mut on_mark)
        };
        self.measure.stats.lost_retransmissions += marks.lost_retransmissions;
        (marks, wants_recovery)
    }

    /// Timers (RFC 6298 section 5 through the policy). A partial ACK that
    /// the recovery holds (NewReno Impatient) is, for every timer policy,
    /// an ACK without new data.
    fn rearm_timers(&mut self, now: Time, cum_advanced: bool, old_ack: bool, prior_rto: Time) {
        let restarts = if cum_advanced {
            !self.partial_ack_holds_rto(cum_advanced)
        } else {
            // An ACK below snd_una goes to tcp_ack()'s old_ack path, which
            // SACK-tags but never reaches tcp_clean_rtx_queue().
            !old_ack && self.cfg.rto_rearm_on_sack && self.sack_predates_head()
        };
        let mut tctx = self.timer_ctx(now);
        tctx.old_ack = old_ack;
        tctx.prior_rto = prior_rto;
        let d = self.alg.timers.on_ack(&tctx, restarts, self.timer);
        self.timer = self.on_tick(now, d);
        if self.peer.rwnd > 0 || !self.board.is_empty() {
            self.probes.persist = None;
        }
    }

    /// Linux tcp_clean_rtx_queue() on an ACK that acknowledges nothing
    /// cumulatively: `sack_rtt_us > now - head's skb_mstamp`, that is, the
    /// first original this ACK newly SACKed (first_sackt) left before the
    /// head's latest transmission. The timer is then restarted
    /// (tcp_rearm_rto(); since 4.13 FLAG_SET_XMIT_TIMER and
    /// tcp_set_xmit_timer()). SACKs of data sent after the head's
    /// retransmission say nothing of it and leave the timer alone, so
    /// that the timeout cannot keep extending in recovery.
    fn sack_predates_head(&self) -> bool {
        let first_sackt = self.board.delivered().sacked_original_sent.map(|(t, _)| t);
        match (first_sackt, self.board.first()) {
            (Some(t), Some(head)) => t < head.last_sent,
            _ => false,
        }
    }

    // Built once per ACK (and per detector timeout). Forced inline as
    // `timer_ctx` is: the struct is then filled in the caller's frame
    // instead of returned through memory (issue 33).
    #[inline(always)]
    pub(super) fn detect_ctx(&self, now: Time, cum_advanced: bool) -> DetectCtx {
        DetectCtx {
            now,
            dupacks: self.detector_dupacks(),
            sack_seen: self.peer.sack_seen,
            cum_advanced,
            in_fast_recovery: matches!(self.state, State::Fast { .. }),
            in_loss: matches!(self.state, State::Loss { .. }),
            mss: self.cfg.mss,
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt(),
            rtt_sample: None,
            reordering_seen: self.reorder.seen,
            reordering: self.reorder.degree.max(self.cfg.dupthresh),
            cwnd: self.win.cwnd,
            can_send_new: self.new_data_len() > 0,
            ts_ecr: 0,
            dsack: false,
            newly_sacked: 0,
            duplicate_ack: false,
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            exiting_recovery: false,
            dupack_entry_only: !self.rec_caps.entry_on_islost,
            echo_order: 0,
        }
    }

    /// The duplicate ACKs the detector counts: none in the open state
    /// while the cumulative ACK has not passed `recover`, when the
    /// recovery algorithm allows one fast retransmit per window of data
    /// (RFC 6582 section 4.1: "do not enter the Fast Retransmit and Fast
    /// Recovery procedure"; ns-2 tcp-reno.cc `dupack_action()` with
    /// `bug_fix_`, where `highest_ack_ > recover_` is snd.una >= recover
    /// in bytes).
    pub(super) fn detector_dupacks(&self) -> u32 {
        let guarded = !self.rec_caps.fast_retransmit_below_recover;
        if guarded && self.state == State::Open && self.snd_una < self.rexmit.recover {
            0
        } else {
            self.dupacks.count
        }
    }
}
