//! The engine's observable decisions.
//!
//! Both ends keep a queue of events that is only filled when tracing was
//! switched on (`set_tracing(true)`), so an untraced run pays one
//! predictable branch per decision. The caller drains the queue with
//! `poll_event`, in the sans-IO style of quinn-proto.

use crate::time::Time;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoveryKind {
    /// Fast recovery (RFC 6675 section 5).
    Fast,
    /// Loss recovery after a retransmission timeout (RFC 6675 section 5.1).
    Timeout,
}

impl RecoveryKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RecoveryKind::Fast => "fast",
            RecoveryKind::Timeout => "timeout",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerKind {
    /// Retransmission timeout (RFC 6298).
    Rto,
    /// A loss probe (TLP and its relatives).
    Probe,
    /// Zero-window probe.
    Persist,
    /// Delayed-ACK timer at the receiver.
    DelAck,
    /// A loss detector's own timer (RACK reordering window, ER delay).
    Detector,
}

/// A snapshot of the sender's window state, attached to several events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct WindowState {
    /// Segments.
    pub cwnd: u64,
    pub ssthresh: u64,
    /// RFC 6675 pipe, in segments.
    pub pipe: u64,
    /// Segments sent and not yet cumulatively acknowledged.
    pub inflight: u64,
    /// Smoothed RTT (0 before the first sample).
    pub srtt: Time,
    pub rto: Time,
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// The pacing rate the sender computes, bits per second, whether or
    /// not the flow paces (Linux reports sk_pacing_rate either way); None
    /// before an RTT sample for controllers without their own rate.
    pub pacing_bps: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A data segment left the sender.
    Sent {
        seq: u64,
        len: u32,
        seg_no: u64,
        tx_count: u32,
    },
    /// An ACK was processed; the state is the one after processing.
    AckProcessed {
        ack: u64,
        newly_acked: u64,
        newly_sacked: u64,
        dsack: bool,
        state: WindowState,
    },
    /// The loss detector marked a segment lost.
    LossMarked {
        seg_no: u64,
        seq: u64,
    },
    RecoveryEntered {
        kind: RecoveryKind,
        state: WindowState,
    },
    RecoveryExited {
        kind: RecoveryKind,
        state: WindowState,
    },
    TimerFired {
        kind: TimerKind,
    },
    /// cwnd or ssthresh changed.
    CwndChanged {
        cwnd: u64,
        ssthresh: u64,
    },
    /// DSACKs showed a reduction spurious and it was undone; the values
    /// restored.
    Undo {
        cwnd: u64,
        ssthresh: u64,
    },
    /// The sender detected reordering (a segment sent once delivered below
    /// one delivered earlier, or a DSACK for a segment sent twice).
    ReorderingDetected,
    /// An RTT sample was taken.
    RttSample {
        rtt: Time,
        srtt: Time,
        rto: Time,
    },
    /// Receiver side: a data segment arrived.
    DataReceived {
        seq: u64,
        len: u32,
        duplicate: bool,
        in_order: bool,
    },
    /// Receiver side: an ACK was emitted.
    AckSent {
        ack: u64,
        sack_blocks: u8,
        dsack: bool,
    },
}

/// An event with its time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timed {
    pub at: Time,
    pub event: Event,
}

/// The per-endpoint event queue.
#[derive(Debug, Default)]
pub struct EventLog {
    on: bool,
    queue: std::collections::VecDeque<Timed>,
}

impl EventLog {
    pub fn set_enabled(&mut self, on: bool) {
        self.on = on;
        if !on {
            self.queue.clear();
        }
    }
    #[inline]
    pub fn enabled(&self) -> bool {
        self.on
    }
    /// Records an event; `make` only runs when tracing is on.
    #[inline]
    pub fn emit(&mut self, at: Time, make: impl FnOnce() -> Event) {
        if self.on {
            self.queue.push_back(Timed { at, event: make() });
        }
    }
    pub fn pop(&mut self) -> Option<Timed> {
        self.queue.pop_front()
    }
}
