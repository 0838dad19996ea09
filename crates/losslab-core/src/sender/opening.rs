//! The handshake while the connection opens (handshake.rs): the SYN's
//! transmissions, its timer and the ACK that establishes the connection.

use crate::event::{Event, TimerKind};
use crate::handshake::{Handshake, FALLBACK_RTO};
use crate::time::Time;
use crate::wire::{Ack, Segment};

use super::Sender;

impl Sender {
    /// The SYN (Active) or SYN-ACK (Passive) when one is due; nothing else
    /// leaves before the connection is established.
    // Cold: out of the per-ACK and per-send paths so their hot code
    // stays on fewer cache lines (issue 33, docs/BENCHMARKS.md).
    #[cold]
    #[inline(never)]
    pub(super) fn opening_transmit(&mut self, now: Time) -> Option<Segment> {
        let op = self.opening.as_mut()?;
        if !op.due || op.failed {
            return None;
        }
        op.due = false;
        op.sent += 1;
        op.timer = Some(now + self.rtt.rto());
        let tx_count = op.sent;
        if tx_count > 1 {
            self.measure.stats.syn_retransmissions += 1;
        }
        self.tx_order += 1;
        self.events.emit(now, || Event::Sent {
            seq: 0,
            len: 0,
            seg_no: 0,
            tx_count,
        });
        Some(Segment {
            seq: 0,
            len: 0,
            ts_val: now + 1,
            ts_ecr: self.peer.ts_recent,
            seg_no: 0,
            tx_count,
            tx_order: self.tx_order,
            probe: false,
            syn: true,
            replica: false,
        })
    }

    /// RFC 6298 (5.5)-(5.6) for the SYN: back off and send it again.
    pub(super) fn opening_on_timeout(&mut self, now: Time) {
        let Some(op) = self.opening.as_mut() else {
            return;
        };
        if op.timer.is_none_or(|t| t > now) {
            return;
        }
        op.on_timeout();
        if !op.failed {
            self.rtt.back_off();
        }
        self.events.emit(now, || Event::TimerFired {
            kind: TimerKind::Rto,
        });
    }

    // Cold: out of the per-ACK and per-send paths so their hot code
    // stays on fewer cache lines (issue 33, docs/BENCHMARKS.md).
    #[cold]
    #[inline(never)]
    pub(super) fn opening_on_ack(&mut self, now: Time, ack: &Ack) {
        let Some(op) = self.opening.as_mut() else {
            return;
        };
        if ack.ts_val > self.peer.ts_recent {
            self.peer.ts_recent = ack.ts_val;
        }
        match op.mode {
            Handshake::Active if ack.syn => self.establish(now, ack),
            // A (retransmitted) SYN: answer it with a SYN-ACK now; the
            // SYN-ACK's own timer covers its loss.
            Handshake::Passive if ack.syn => {
                op.syn_seen = true;
                op.due = true;
            }
            Handshake::Passive if op.sent > 0 => self.establish(now, ack),
            _ => {}
        }
    }

    /// The handshake completed with `ack` (handshake.rs for the rules).
    pub(super) fn establish(&mut self, now: Time, ack: &Ack) {
        let Some(op) = self.opening.take() else {
            return;
        };
        let retransmissions = op.retransmissions();
        let rules = self.cfg.handshake_rules;
        self.established_at = Some(now);
        self.peer.rwnd = ack.window;
        self.peer.max_rwnd = self.peer.max_rwnd.max(ack.window);
        // The SYN (SYN-ACK) carried TSval = send time + 1 and the answer
        // echoes the transmission it answers.
        let sample = (ack.ts_ecr > 0 && ack.ts_ecr <= now + 1).then(|| now + 1 - ack.ts_ecr);
        match sample {
            Some(r) if retransmissions == 0 || rules.samples_after_retransmission() => {
                self.rtt.on_sample_at(r, self.snd_una, self.snd_nxt);
                self.measure.stats.rtt.record(r);
                let (srtt, rto) = (self.rtt.srtt().unwrap_or(0), self.rtt.rto());
                self.events
                    .emit(now, || Event::RttSample { rtt: r, srtt, rto });
            }
            _ if retransmissions > 0 => self.rtt.fallback(FALLBACK_RTO),
            _ => self.rtt.reset_backoff(),
        }
        if rules.cuts_iw(retransmissions) {
            self.win.cwnd = 1;
        }
        self.app_write(now);
        self.emit_cwnd(now);
    }
}
