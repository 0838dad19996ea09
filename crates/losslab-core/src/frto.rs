//! F-RTO: detecting spurious retransmission timeouts (RFC 5682), as Linux
//! runs it with tcp_frto = 2 (net/ipv4/tcp_input.c tcp_enter_loss() and
//! tcp_process_loss(), the SACK-enhanced algorithm of RFC 5682 section 3
//! that Linux applies with and without SACK since 4.11).
//!
//! After an RTO the sender retransmits the first unacknowledged segment as
//! usual. Then, ACK by ACK:
//! - step 3.b: an ACK that acknowledges or SACKs data that was never
//!   retransmitted (FLAG_ORIG_SACK_ACKED) shows that the original flight
//!   was delivered: the timeout was spurious, undo its reduction;
//! - step 2.b: the first ACK that advances snd.una without reaching the
//!   RTO's recovery point lets the sender send new data instead of
//!   retransmitting (Linux REXMIT_NEW), if it has any and the receive
//!   window allows; otherwise F-RTO ends;
//! - step 3.a: once that new data is out, an ACK that SACKs data or is a
//!   duplicate means the loss was real: conventional recovery (retransmit
//!   what is marked lost).
//!
//! F-RTO starts on an RTO from the Open state and on repeated RTOs, not on
//! a first RTO during fast recovery (tcp_enter_loss(): `new_recovery ||
//! icsk_retransmits`). The basic (non-SACK) algorithm of RFC 5682 section
//! 2 is not implemented separately: Linux uses this one for both.

/// `frto = "off" | "linux"` in scenarios.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FrtoMode {
    #[default]
    Off,
    Linux,
}

impl FrtoMode {
    pub const NAMES: &'static [&'static str] = &["off", "linux"];
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "off" => Some(FrtoMode::Off),
            "linux" => Some(FrtoMode::Linux),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            FrtoMode::Off => "off",
            FrtoMode::Linux => "linux",
        }
    }
}

/// An F-RTO episode in progress (Linux tp->frto with tp->high_seq).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frto {
    /// Linux high_seq: snd.nxt at the RTO, moved to snd.nxt at step 2.b.
    pub high_seq: u64,
    /// The same boundary in segment numbers: only originals below it count
    /// for step 3.b (Linux sets FLAG_ORIG_SACK_ACKED only for data ending
    /// at or below high_seq, so the new data of step 2.b does not).
    pub high_seg: u64,
    /// Step 2.b passed: send new data rather than retransmissions.
    pub send_new: bool,
}

/// What an ACK means to F-RTO.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrtoVerdict {
    /// Keep going (nothing decided yet, or new data goes next).
    Continue,
    /// Step 3.b: the RTO was spurious; undo.
    Spurious,
    /// Step 3.a (or no new data to probe with): the loss was real; F-RTO
    /// is over and conventional recovery continues.
    Real,
}

/// What the ACK told (Linux's flags for tcp_process_loss()).
#[derive(Clone, Copy, Debug, Default)]
pub struct FrtoAck {
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// FLAG_SND_UNA_ADVANCED.
    pub una_advanced: bool,
    /// The lowest never-retransmitted segment this ACK acknowledged or
    /// SACKed, if any (FLAG_ORIG_SACK_ACKED when below `high_seg`).
    pub lowest_original: Option<u64>,
    /// The segment number the next new segment will get.
    pub next_seg: u64,
    /// FLAG_DATA_SACKED or a duplicate ACK.
    pub sacked_or_dupack: bool,
    /// New data could be sent (application and receive window).
    pub can_send_new: bool,
}

impl Frto {
    pub fn new(snd_nxt: u64, next_seg: u64) -> Self {
        Frto {
            high_seq: snd_nxt,
            high_seg: next_seg,
            send_new: false,
        }
    }

    /// tcp_process_loss(), the F-RTO part.
    pub fn on_ack(&mut self, a: &FrtoAck) -> FrtoVerdict {
        if a.lowest_original.is_some_and(|n| n < self.high_seg) {
            return FrtoVerdict::Spurious;
        }
        let recovered = a.snd_una >= self.high_seq;
        if a.snd_nxt > self.high_seq {
            if a.sacked_or_dupack {
                return FrtoVerdict::Real;
            }
        } else if a.una_advanced && !recovered {
            self.high_seq = a.snd_nxt;
            self.high_seg = a.next_seg;
            if a.can_send_new {
                self.send_new = true;
                return FrtoVerdict::Continue;
            }
            return FrtoVerdict::Real;
        }
        FrtoVerdict::Continue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(una: u64, nxt: u64) -> FrtoAck {
        FrtoAck {
            snd_una: una,
            snd_nxt: nxt,
            next_seg: nxt / 1000,
            una_advanced: true,
            can_send_new: true,
            ..Default::default()
        }
    }

    #[test]
    fn original_data_acknowledged_means_spurious() {
        // RTO with 10 segments (0..10000) out; segment 0 retransmitted.
        // The next ACK covers 0..3000: segments 1 and 2 were never
        // retransmitted, so their originals arrived (step 3.b).
        let mut f = Frto::new(10_000, 10);
        let a = FrtoAck {
            lowest_original: Some(1),
            ..ack(3000, 10_000)
        };
        assert_eq!(f.on_ack(&a), FrtoVerdict::Spurious);
    }

    #[test]
    fn new_data_then_a_duplicate_means_real() {
        let mut f = Frto::new(10_000, 10);
        // Only the retransmission arrived: step 2.b, send new data.
        assert_eq!(f.on_ack(&ack(1000, 10_000)), FrtoVerdict::Continue);
        assert!(f.send_new);
        // The new segment 10 is SACKed: it lies above high_seq, so its
        // arrival is no sign of the old flight's (not spurious), and a SACK
        // with the hole still there means the loss was real (3.a).
        let mut g = f;
        let sacked_new = FrtoAck {
            una_advanced: false,
            lowest_original: Some(10),
            sacked_or_dupack: true,
            ..ack(1000, 12_000)
        };
        assert_eq!(g.on_ack(&sacked_new), FrtoVerdict::Real);
        // Two new segments went out (snd.nxt 12000); a duplicate ACK with
        // SACK of one of them: the old segments are really lost (3.a).
        let dup = FrtoAck {
            una_advanced: false,
            sacked_or_dupack: true,
            ..ack(1000, 12_000)
        };
        assert_eq!(f.on_ack(&dup), FrtoVerdict::Real);
        // Had the next ACK acknowledged the new (never retransmitted)
        // segments alone, orig_acked would call it spurious instead.
    }

    #[test]
    fn nothing_new_to_send_ends_f_rto() {
        let mut f = Frto::new(10_000, 10);
        let a = FrtoAck {
            can_send_new: false,
            ..ack(1000, 10_000)
        };
        assert_eq!(f.on_ack(&a), FrtoVerdict::Real);
    }
}
