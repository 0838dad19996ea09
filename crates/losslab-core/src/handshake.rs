//! The three-way handshake of the data sender (RFC 9293 3.5), simulated so
//! that, as on every real host, an RTT sample exists before data flows and
//! a lost SYN or SYN-ACK has its real cost.
//!
//! - Active (the data sender connects): SYN, retransmitted on the
//!   retransmission timer from the initial RTO (RFC 6298 2.1: 1 s) with
//!   exponential backoff, at most `SYN_RETRIES` times (Linux
//!   tcp_syn_retries = 6); the SYN-ACK establishes.
//! - Passive (the peer connects, as a browser does to a web server): the
//!   peer's SYN is answered with a SYN-ACK, retransmitted likewise; the
//!   peer's final ACK (or any later ACK) establishes.
//!
//! What the handshake leaves behind differs between the RFCs and Linux,
//! named apart (`HandshakeRules`):
//! - `Rfc`: Karn's rule, so no RTT sample when the SYN (SYN-ACK) was
//!   retransmitted, and then RTO = 3 s (RFC 6298 5.7); the initial window is
//!   one segment after any loss of the SYN or SYN-ACK (RFC 5681 3.1,
//!   RFC 6928 section 2).
//! - `Linux`: the timestamp echo gives a sample even after a retransmission
//!   (tcp_ack_update_rtt()), and the 3 s fallback (TCP_TIMEOUT_FALLBACK,
//!   tcp_init_metrics()) applies only without one; the initial window is
//!   one segment only after more than one retransmission
//!   (tcp_init_transfer(): `total_retrans > 1`).
//!
//! The SYN consumes no engine sequence number: data starts at 0 and an
//! encoder at the wire edge adds one.

use crate::time::{Time, SEC};

/// Who opens the connection, from the data sender's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Handshake {
    /// Start established (no handshake is simulated).
    #[default]
    None,
    /// The data sender sends the SYN.
    Active,
    /// The peer sends the SYN; the data sender answers with a SYN-ACK.
    Passive,
}

/// RFC or Linux consequences of a handshake (module comment).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HandshakeRules {
    #[default]
    Linux,
    Rfc,
}

impl HandshakeRules {
    pub const NAMES: &'static [&'static str] = &["linux", "rfc"];
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "linux" => Some(HandshakeRules::Linux),
            "rfc" => Some(HandshakeRules::Rfc),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            HandshakeRules::Linux => "linux",
            HandshakeRules::Rfc => "rfc",
        }
    }
    /// The initial window is one segment after `retransmissions` SYN or
    /// SYN-ACK retransmissions.
    pub fn cuts_iw(self, retransmissions: u32) -> bool {
        match self {
            HandshakeRules::Rfc => retransmissions >= 1,
            HandshakeRules::Linux => retransmissions > 1,
        }
    }
    /// Whether the handshake's RTT sample counts after retransmissions.
    pub fn samples_after_retransmission(self) -> bool {
        self == HandshakeRules::Linux
    }
}

/// Linux tcp_syn_retries (and, for the SYN-ACK, close to
/// tcp_synack_retries = 5; one limit is used for both).
pub const SYN_RETRIES: u32 = 6;
/// RFC 6298 5.7 / Linux TCP_TIMEOUT_FALLBACK.
pub const FALLBACK_RTO: Time = 3 * SEC;

/// The opening of one connection, until established.
#[derive(Clone, Debug)]
pub(crate) struct Opening {
    pub mode: Handshake,
    /// A SYN (Active) or SYN-ACK (Passive) is due on the next poll.
    pub due: bool,
    /// Transmissions of it so far.
    pub sent: u32,
    pub timer: Option<Time>,
    /// Passive: the peer's SYN has arrived.
    pub syn_seen: bool,
    /// Retransmissions exhausted: the connection never opened.
    pub failed: bool,
}

impl Opening {
    pub fn new(mode: Handshake) -> Option<Self> {
        (mode != Handshake::None).then_some(Opening {
            mode,
            due: mode == Handshake::Active,
            sent: 0,
            timer: None,
            syn_seen: false,
            failed: false,
        })
    }

    pub fn retransmissions(&self) -> u32 {
        self.sent.saturating_sub(1)
    }

    /// The retransmission timer fired: send again, or give up.
    pub fn on_timeout(&mut self) {
        self.timer = None;
        if self.sent > SYN_RETRIES {
            self.failed = true;
        } else {
            self.due = true;
        }
    }
}
