//! What to send next (`poll_transmit`): the pacing gate, RFC 6675
//! NextSeg() in recovery, RFC 3042 limited transmit, new data; and the
//! segments themselves (Linux tcp_output.c).

use crate::config::CwndValidation;
use crate::event::{Event, TimerKind};
use crate::nextseg::{next_seg, NextSeg, RecoveryVars};
use crate::pacing::{burst_segments, default_rate};
use crate::scoreboard::SegMeta;
use crate::time::Time;
use crate::wire::Segment;

use super::{Sender, State};

impl Sender {
    /// The next segment to put on the wire now, if any. Call until None.
    pub fn poll_transmit(&mut self, now: Time) -> Option<Segment> {
        if self.opening.is_some() {
            return self.opening_transmit(now);
        }
        if !self.pacing_allows(now) {
            // tcp_write_xmit() ends a burst at the pacing check as well;
            // the older kernels' validation counts it if it sent new data.
            // The engine's `linux` rule is judged at the burst's end only.
            if self.sent_new_in_burst && !self.cfg.cwnd_validation.judges_every_burst() {
                let limited = self.burst_cwnd_limited(self.pipe());
                self.validate_cwnd(limited);
            }
            // tcp_write_xmit() stops at the pacing check (4.13 on; before,
            // fq paced a segment already counted in flight, under the RTO)
            // as at any other and still returns "nothing in flight, data
            // queued", on which __tcp_push_pending_frames() arms the probe
            // timer. The pacer asks for no wake-up when the window is what
            // holds the data (pacing_allows), so without this a window left
            // shut by a lost update would wait forever.
            self.maybe_arm_persist(now);
            return None;
        }
        if self.probes.tlp_pending {
            self.probes.tlp_pending = false;
            if self.state == State::Open && !self.board.is_empty() {
                if let Some(seg) = self.send_loss_probe(now) {
                    // A new-data probe leaves through tcp_write_xmit().
                    self.sent_new_in_burst |= seg.tx_count == 1;
                    self.on_paced_send(now, seg.len);
                    return Some(seg);
                }
            }
        }
        if let Some(seg) = self.next_replica(now) {
            self.on_paced_send(now, seg.len);
            return Some(seg);
        }
        // Linux tp->lsndtime before this transmission moves it.
        let last_send = self.last_send;
        // Linux tcp_write_wakeup() sends its window probe outside
        // tcp_write_xmit(), so it does not count as a burst of new data.
        let mut through_write_xmit = true;
        let seg = match self.state {
            _ if self.wakeup_due() => {
                through_write_xmit = false;
                Some(self.send_wakeup(now))
            }
            State::Open => self.next_open(now),
            State::Fast { .. } => self.next_fast(now),
            State::Loss { .. } => self.next_loss(now),
        };
        // The segment is read in place and returned as built: moved out of
        // the match, it was copied at once in wide loads over the narrow
        // stores that had just built it, and a sampling profile put a fifth
        // of poll_transmit's time in bench --modern's 100 ms case on that
        // copy (by the look of it a store the store buffer could not
        // forward; issue 33).
        match &seg {
            Some(s) => {
                self.check_invariants();
                // Linux sends new data from tcp_write_xmit(), which ends
                // in tcp_cwnd_validate(); retransmissions and window
                // probes take other paths.
                self.sent_new_in_burst |= through_write_xmit && s.tx_count == 1 && !s.probe;
                if self.state != State::Open {
                    self.alg.recovery.on_sent(1);
                }
                // Every transmission adds one to pipe: this one left an
                // empty pipe (Linux tcp_event_data_sent(): TX_START when
                // nothing was in flight).
                if self.pipe() == 1 {
                    self.alg.cc.on_tx_start(now, last_send);
                }
                if self.pacer.is_some() {
                    self.on_paced_send(now, s.len);
                }
                let tctx = self.timer_ctx(now);
                let d = self.alg.timers.on_send(&tctx, self.timer);
                self.timer = self.on_tick(now, d);
                if self.cfg.rto_rearm_on_head_retransmit && s.tx_count > 1 && s.seq == self.snd_una
                {
                    self.timer = self.on_tick(now, Some((now + self.rtt.rto(), TimerKind::Rto)));
                }
                seg
            }
            None => {
                // The same measure the sending rule used: FlightSize in
                // Open state, pipe during recovery.
                let used = match self.state {
                    State::Open => self.board.packets_out(),
                    _ => self.pipe(),
                };
                let limited = self.burst_cwnd_limited(used);
                self.validate_cwnd(limited);
                self.check_app_limited(used);
                self.note_stall(now);
                self.note_starvation(now);
                self.maybe_arm_persist(now);
                if self.probes.zero_window_pending {
                    return self.send_probe(now);
                }
                None
            }
        }
    }

    /// The probe timer's data-carrying probe (`wakeup_due`).
    // Cold: its own copy of the inlined `send_new` stays off the per-send
    // path's cache lines (issue 33, docs/BENCHMARKS.md).
    #[cold]
    #[inline(never)]
    fn send_wakeup(&mut self, now: Time) -> Segment {
        self.probes.zero_window_pending = false;
        let len = self.new_data_len();
        self.send_new(now, len)
    }

    /// The pacing gate (pacing.rs): closed until the departure time the
    /// last burst earned. A closed gate with something to send asks for a
    /// wake-up then.
    pub(super) fn pacing_allows(&mut self, now: Time) -> bool {
        let Some(p) = &self.pacer else {
            return true;
        };
        if p.may_send(now) {
            return true;
        }
        // Most calls with the gate shut come between a block and its
        // wake-up (ACKs arriving while the next departure waits): the
        // wake-up is asked for already, and `window_open` walks the
        // scoreboard (issue 33: 1.05 M such calls in `bench --modern`'s
        // 100 ms case).
        if p.waiting_for_next() {
            return false;
        }
        if self.probes.tlp_pending || self.window_open() {
            if let Some(p) = &mut self.pacer {
                p.block(now);
            }
        }
        false
    }

    /// Whether the sending rules would let a segment out now.
    pub(super) fn window_open(&self) -> bool {
        if self.rexmit.rto_pending || self.rexmit.fast_pending {
            return true;
        }
        if self.replicas.queue.peek().is_some() {
            // A copy may be due; the pacer's wake-up will tell.
            return true;
        }
        let room = match self.state {
            State::Open => {
                let allowance = if self.cfg.limited_transmit {
                    self.dupacks.count.min(2) as u64
                } else {
                    0
                };
                self.board.packets_out() < self.win.cwnd + allowance
            }
            _ => self.pipe() < self.win.cwnd || self.lost_beyond_cwnd().is_some(),
        };
        room && self.has_something_to_send()
    }

    /// The pacing rate in bits per second: the controller's, or Linux's
    /// tcp_update_pacing_rate() from cwnd and srtt (none before an RTT
    /// sample: Linux starts unpaced, sk_pacing_rate = ~0).
    pub fn pacing_rate(&self) -> Option<u64> {
        self.alg.cc.pacing_rate().or_else(|| {
            self.rtt.srtt().map(|srtt| {
                default_rate(
                    self.cfg.mss,
                    self.win.cwnd,
                    self.win.ssthresh,
                    self.board.packets_out(),
                    srtt,
                )
            })
        })
    }

    pub(super) fn on_paced_send(&mut self, now: Time, len: u32) {
        if self.pacer.is_none() {
            return;
        }
        let rate = self.pacing_rate().unwrap_or(0);
        let (mss, min_rtt) = (self.cfg.mss, self.rtt.min_rtt());
        let cc = &self.alg.cc;
        if let Some(p) = &mut self.pacer {
            p.on_sent(now, len, rate, || {
                burst_segments(rate, mss, min_rtt, cc.min_tso_segs())
            });
        }
    }

    /// Linux tcp_rate_check_app_limited(), when a send burst ends: less
    /// than a segment of application data is waiting.
    pub(super) fn check_app_limited(&mut self, in_flight: u64) {
        let cap = self.sndbuf_cap();
        let Some(r) = &mut self.rate else {
            return;
        };
        let waiting = self.app.available(self.snd_nxt, self.snd_una, cap);
        if waiting < self.cfg.mss as u64 {
            let unrepaired = self.board.next_to_retransmit().is_some();
            r.check_app_limited(in_flight, self.win.cwnd, unrepaired);
        }
    }

    /// Whether the burst that ends now waited for cwnd: tcp_write_xmit()'s
    /// is_cwnd_limited. `used` is the measure the sending rule used.
    fn burst_cwnd_limited(&self, used: u64) -> bool {
        match self.cfg.cwnd_validation {
            // 4.3 on: `is_cwnd_limited |= tcp_packets_in_flight(tp) >=
            // snd_cwnd` after a burst that sent (4.10.17 tcp_write_xmit()).
            CwndValidation::Linux43 => self.pipe() >= self.win.cwnd,
            // 3.16-4.2: set when tcp_cwnd_test() fails for data queued
            // and unsent; the receive-window test comes after it, and
            // retransmissions take tcp_xmit_retransmit_queue().
            CwndValidation::Linux316 => {
                self.pipe() >= self.win.cwnd
                    && self
                        .app
                        .available(self.snd_nxt, self.snd_una, self.sndbuf_cap())
                        > 0
            }
            // The engine's rule before the older ones were told apart
            // (6.x sets it from the flight alone, as 4.3 does:
            // docs/SCENARIO.md, `cwnd_validation`).
            _ => used >= self.win.cwnd && self.has_something_to_send(),
        }
    }

    pub(super) fn has_something_to_send(&self) -> bool {
        self.board.next_to_retransmit().is_some() || self.new_data_len() > 0
    }

    pub(super) fn next_open(&mut self, now: Time) -> Option<Segment> {
        // RFC 5681: FlightSize < cwnd; RFC 3042 allows one more segment on
        // each of the first two duplicate ACKs.
        let allowance = if self.cfg.limited_transmit {
            self.dupacks.count.min(2) as u64
        } else {
            0
        };
        if self.board.packets_out() >= self.win.cwnd + allowance {
            return None;
        }
        let len = self.new_data_len();
        if len > 0 && self.cfg.restart_after_idle {
            self.restart_if_idle(now);
        }
        if len > 0 && self.board.packets_out() >= self.win.cwnd {
            self.dupacks.limited_transmit_out += 1;
        }
        (len > 0).then(|| self.send_new(now, len))
    }

    /// RFC 5681 section 4.1: nothing was sent for more than an RTO and
    /// nothing is outstanding, so the ACK clock is gone: cwnd falls to
    /// the restart window RW = min(IW, cwnd). ssthresh is kept.
    pub(super) fn restart_if_idle(&mut self, now: Time) {
        if self.snd_nxt == 0 || !self.board.is_empty() {
            return;
        }
        if now.saturating_sub(self.last_send) > self.rtt.rto() {
            let rw = self.cfg.init_cwnd.min(self.win.cwnd);
            if rw < self.win.cwnd {
                self.win.cwnd = rw;
                self.win.cwnd_cnt = 0;
            }
        }
    }

    // Out of line: only a timeout's recovery sends from here, and inlined
    // it spread every send's code over more cache lines (issue 33,
    // docs/BENCHMARKS.md).
    #[inline(never)]
    pub(super) fn next_loss(&mut self, now: Time) -> Option<Segment> {
        if std::mem::take(&mut self.rexmit.rto_pending) {
            if let Some(n) = self.board.next_to_retransmit() {
                return Some(self.retransmit(now, n));
            }
        }
        if self.pipe() >= self.win.cwnd {
            return self.lost_beyond_cwnd().map(|n| self.retransmit(now, n));
        }
        // F-RTO step 2.b (Linux REXMIT_NEW): new data probes whether the
        // timeout was spurious before anything else is retransmitted.
        if self.frto.is_some_and(|f| f.send_new) {
            let len = self.new_data_len();
            return (len > 0).then(|| self.send_new(now, len));
        }
        if let Some(n) = self.board.next_to_retransmit() {
            return Some(self.retransmit(now, n));
        }
        let len = self.new_data_len();
        (len > 0).then(|| self.send_new(now, len))
    }

    /// RFC 6675 section 5 step (C) with NextSeg() of section 4.
    pub(super) fn next_fast(&mut self, now: Time) -> Option<Segment> {
        if self.rexmit.fast_pending {
            // Step 4.3: the first lost segment goes out regardless of cwnd.
            self.rexmit.fast_pending = false;
            if let Some(n) = self.board.next_to_retransmit() {
                self.rexmit.high_rxt = Some(self.rexmit.high_rxt.map_or(n, |h| h.max(n)));
                let seg = self.retransmit(now, n);
                // "To prevent repeated retransmission of the same data or a
                // premature rescue retransmission, set both HighRxt and
                // RescueRxt to the highest sequence number in the
                // retransmitted segment": rule 4 waits until the fast
                // retransmit itself is acknowledged.
                self.rexmit.rescue_rxt = Some(seg.seq + u64::from(seg.len) - 1);
                return Some(seg);
            }
        }
        if self.pipe() >= self.win.cwnd {
            let n = self.lost_beyond_cwnd()?;
            self.rexmit.high_rxt = Some(self.rexmit.high_rxt.map_or(n, |h| h.max(n)));
            return Some(self.retransmit(now, n));
        }
        let vars = RecoveryVars {
            high_rxt: self.rexmit.high_rxt,
            rescue_rxt: self.rexmit.rescue_rxt,
            high_ack: self.snd_una,
            // Rule 4 is defined on SACK scoreboards only.
            rescue_enabled: self.peer.sack_seen && self.rec_caps.rescue_retransmission,
        };
        let new_len = self.new_data_len();
        match next_seg(&self.board, &vars, new_len > 0) {
            NextSeg::Lost(n) | NextSeg::Unsacked(n) => {
                self.rexmit.high_rxt = Some(self.rexmit.high_rxt.map_or(n, |h| h.max(n)));
                Some(self.retransmit(now, n))
            }
            NextSeg::NewData => Some(self.send_new(now, new_len)),
            NextSeg::Rescue(n) => {
                // RescueRxt = RecoveryPoint; HighRxt is not updated.
                if let State::Fast { recovery_point } = self.state {
                    self.rexmit.rescue_rxt = Some(recovery_point);
                }
                self.measure.stats.rescue_retransmissions += 1;
                Some(self.retransmit(now, n))
            }
            NextSeg::Nothing => None,
        }
    }

    // Forced inline: a call per new segment, its Segment returned through
    // memory; inlining saves 0.6% of bench --modern's 100 ms case's
    // instructions and about 1% of its time (issue 33).
    #[inline(always)]
    pub(super) fn send_new(&mut self, now: Time, len: u32) -> Segment {
        let seq = self.snd_nxt;
        if seq + u64::from(len) > self.snd_una + self.peer.rwnd {
            self.measure.stats.beyond_window_segments += 1;
        }
        self.tx_order += 1;
        self.last_send = now;
        let packets_out = self.board.packets_out();
        let seg_no = self.board.push_new(seq, len, now, self.tx_order);
        self.alg.detect.on_sent(seg_no, self.tx_order);
        if let Some(r) = &mut self.rate {
            r.on_sent(seg_no, now, packets_out, false);
        }
        self.snd_nxt += len as u64;
        self.measure.stats.segments_sent += 1;
        self.measure.stats.max_tx_count = self.measure.stats.max_tx_count.max(1);
        self.events.emit(now, || Event::Sent {
            seq,
            len,
            seg_no,
            tx_count: 1,
        });
        Segment {
            seq,
            len,
            ts_val: now + 1,
            ts_ecr: self.peer.ts_recent,
            seg_no,
            tx_count: 1,
            tx_order: self.tx_order,
            probe: false,
            syn: false,
            replica: false,
        }
    }

    pub(super) fn retransmit(&mut self, now: Time, seg_no: u64) -> Segment {
        self.tx_order += 1;
        self.last_send = now;
        let s = self.board.on_retransmit(seg_no, now, self.tx_order);
        self.alg.detect.on_sent(seg_no, self.tx_order);
        if let Some(r) = &mut self.rate {
            r.on_sent(seg_no, now, self.board.packets_out(), true);
        }
        self.measure.stats.segments_sent += 1;
        self.measure.stats.retransmissions += 1;
        if let Some(u) = &mut self.undo {
            u.retransmissions += 1;
        }
        self.measure.stats.max_tx_count = self.measure.stats.max_tx_count.max(s.tx_count);
        self.events.emit(now, || Event::Sent {
            seq: s.seq,
            len: s.len,
            seg_no,
            tx_count: s.tx_count,
        });
        self.queue_replicas(now, seg_no, s.tx_count - 1);
        self.resent(now, seg_no, &s, false)
    }

    /// The wire segment of a transmission of `seg_no` after its first (a
    /// retransmission or an extra copy of one).
    pub(super) fn resent(&self, now: Time, seg_no: u64, s: &SegMeta, replica: bool) -> Segment {
        Segment {
            seq: s.seq,
            len: s.len,
            ts_val: now + 1,
            ts_ecr: self.peer.ts_recent,
            seg_no,
            tx_count: s.tx_count,
            tx_order: self.tx_order,
            probe: false,
            syn: false,
            replica,
        }
    }
}
