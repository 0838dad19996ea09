//! Measurements that observe and never steer: the statistics, recovery
//! records, application stall, receive-buffer starvation and the RTT spike
//! after a recovery.

use crate::event::{Event, RecoveryKind};
use crate::recovery_log::{RecoveryLog, RecoveryRecord};
use crate::stats::Histogram;
use crate::time::Time;

use super::{Sender, State};

#[derive(Clone, Debug, Default)]
pub struct SenderStats {
    /// Every data transmission, retransmissions included.
    pub segments_sent: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub tail_probes: u64,
    pub max_tx_count: u32,
    pub dsacks_received: u64,
    pub acks_received: u64,
    /// ACKs for data never sent, ignored (RFC 793 / RFC 5961).
    pub invalid_acks: u64,
    pub bytes_acked: u64,
    pub rtt: Histogram,
    /// Retransmissions declared lost and queued again (lost-retransmission
    /// detection, or a detector such as RACK).
    pub lost_retransmissions: u64,
    /// Cwnd reductions undone by DSACKs.
    pub undos: u64,
    /// ACKs on which reordering was detected.
    pub reordering_events: u64,
    /// Retransmissions of the SYN (or SYN-ACK) of the handshake.
    pub syn_retransmissions: u32,
    /// Timeouts F-RTO found spurious (and undid).
    pub spurious_rtos: u64,
    /// RFC 6675 NextSeg() rule 4 retransmissions. They are speculative by
    /// design: the rule retransmits the highest un-SACKed segment even when
    /// it is only still in flight.
    pub rescue_retransmissions: u64,
    /// Fast-recovery time during which the send buffer was empty while
    /// the windows allowed new data (application stall).
    pub app_stall: Time,
    /// Segments sent beyond the peer's window by opportunistic
    /// retransmission.
    pub beyond_window_segments: u64,
    /// Extra copies of retransmissions sent (OR3's redundancy); counted in
    /// `segments_sent`, not in `retransmissions`.
    pub redundant_copies: u64,
    /// DSACKs matched to those copies (not spurious retransmissions).
    pub redundant_duplicates: u64,
    /// Receive-buffer starvation (OR3 paper section III-B): time during
    /// which the application had data and cwnd had room, but the peer's
    /// window stopped new data while the receiver held out-of-order data
    /// (bubbles) waiting for retransmissions.
    pub rcvbuf_starvation: Time,
}

/// What the sender measures: it observes and never steers.
#[derive(Debug, Default)]
pub(super) struct Measure {
    pub(super) stats: SenderStats,
    pub(super) recoveries: RecoveryLog,
    /// Since when the sender has been starved by its send buffer.
    pub(super) stall_since: Option<Time>,
    /// The RTT-spike watch after a recovery: (record, end of recovery,
    /// end of the RTT after it).
    pub(super) spike_watch: Option<(u64, Time, Time)>,
    /// Since when the receive buffer has starved the sender.
    pub(super) starved_since: Option<Time>,
    /// Bumped on every recovery entry and exit, so a driver can notice
    /// without tracing.
    pub(super) recovery_epoch: u64,
}

impl Measure {
    /// Ends an application stall (`Sender::note_stall`) at the next ACK or
    /// timer.
    pub(super) fn close_stall(&mut self, now: Time) {
        if let Some(t) = self.stall_since.take() {
            let d = now.saturating_sub(t);
            self.stats.app_stall += d;
            if let Some(r) = self.recoveries.last_mut() {
                r.app_stall += d;
            }
        }
    }

    /// The RTT spike after a recovery (mobile paper section VII.E): the
    /// largest RTT of segments sent within one RTT after it ended.
    pub(super) fn watch_rtt_spike(&mut self, sent_at: Time, rtt: Time) {
        let Some((i, from, until)) = self.spike_watch else {
            return;
        };
        if sent_at > until {
            self.spike_watch = None;
        } else if sent_at >= from {
            if let Some(r) = self.recoveries.get_mut(i) {
                r.rtt_after_max = Some(r.rtt_after_max.map_or(rtt, |m| m.max(rtt)));
            }
        }
    }

    /// Ends a receive-buffer starvation (`Sender::note_starvation`) at the
    /// next ACK or timer.
    pub(super) fn close_starvation(&mut self, now: Time) {
        if let Some(t) = self.starved_since.take() {
            self.stats.rcvbuf_starvation += now.saturating_sub(t);
        }
    }
}

impl Sender {
    /// Application stall (mobile paper Definition 1), measured as the time
    /// in fast recovery during which cwnd and the peer's window (with any
    /// opportunistic extension) allowed a new segment, nothing waited for
    /// retransmission, and the send buffer held no unsent byte although
    /// the application wanted to write more. Checked when the sender stops
    /// sending; the stall lasts until the next ACK or timer.
    pub(super) fn note_stall(&mut self, now: Time) {
        if self.measure.stall_since.is_some() || self.sndbuf_cap().is_none() {
            return;
        }
        let starved = matches!(self.state, State::Fast { .. })
            && self.pipe() < self.win.cwnd
            && self.board.next_to_retransmit().is_none()
            && self.app.wants_more()
            && self
                .app
                .available(self.snd_nxt, self.snd_una, self.sndbuf_cap())
                == 0
            && self.peer_window_right() >= self.snd_nxt + u64::from(self.cfg.mss);
        if starved {
            self.measure.stall_since = Some(now);
        }
    }

    /// Receive-buffer starvation (OR3 paper III-B, "the sender blocked by
    /// rwnd while bubbles wait for retransmissions"): checked when the
    /// sender stops sending; lasts until the next ACK or timer.
    pub(super) fn note_starvation(&mut self, now: Time) {
        if self.measure.starved_since.is_some() {
            return;
        }
        let starved = self.board.sacked_out() > 0
            && self.pipe() < self.win.cwnd
            && self
                .app
                .available(self.snd_nxt, self.snd_una, self.sndbuf_cap())
                > 0
            && self.new_data_len() == 0;
        if starved {
            self.measure.starved_since = Some(now);
        }
    }

    // Out of line: run once or a few times per recovery episode, so the
    // per-ACK path's code stays on fewer cache lines (issue 33,
    // docs/BENCHMARKS.md).
    #[inline(never)]
    pub(super) fn open_recovery_record(&mut self, now: Time, kind: RecoveryKind, cwnd_before: u64) {
        self.measure.recovery_epoch += 1;
        self.measure.recoveries.push(RecoveryRecord {
            kind,
            start: now,
            end: None,
            cwnd_before,
            cwnd_after: None,
            cwnd_before_exit: None,
            ssthresh: self.win.ssthresh,
            pipe_minus_ssthresh_at_start: self.pipe() as i64 - self.win.ssthresh as i64,
            flight_at_start: self.board.packets_out(),
            lost_at_start: self.board.lost_out(),
            undone: false,
            app_stall: 0,
            rtt_before: self.rtt.latest(),
            rtt_after_max: None,
        });
        let state = self.window_state();
        self.events
            .emit(now, || Event::RecoveryEntered { kind, state });
    }

    // Out of line: run once or a few times per recovery episode, so the
    // per-ACK path's code stays on fewer cache lines (issue 33,
    // docs/BENCHMARKS.md).
    #[inline(never)]
    pub(super) fn close_recovery_record(&mut self, now: Time) {
        let last = self.measure.recoveries.total().saturating_sub(1);
        if let Some(r) = self.measure.recoveries.last_mut() {
            if r.end.is_none() {
                r.end = Some(now);
                r.cwnd_after = Some(self.win.cwnd);
                r.cwnd_before_exit = r.cwnd_before_exit.or(r.cwnd_after);
                self.measure.recovery_epoch += 1;
                self.measure.spike_watch = r.rtt_before.map(|rtt| (last, now, now + rtt));
                let kind = r.kind;
                let state = self.window_state();
                self.events
                    .emit(now, || Event::RecoveryExited { kind, state });
            }
        }
    }
}
