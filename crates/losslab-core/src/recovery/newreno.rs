//! NewReno, RFC 6582 section 3.2: Reno's fast recovery (recovery/reno.rs)
//! that stays in recovery until the cumulative ACK covers `recover`, the
//! HighData of the entry (the engine's RecoveryPoint), and repairs one hole
//! per partial ACK.
//!
//! Step 2-3 (entry): as Reno, cwnd = ssthresh with the duplicate ACKs
//! counted as delivered standing for the "+ 3 * SMSS" and step 4's
//! inflation (reno.rs shows the equivalence).
//!
//! Step 4 (partial ACK): retransmit the first unacknowledged segment (the
//! detector marks it lost, detect/dupthresh.rs; it leaves whatever cwnd
//! says, `partial_ack_retransmits_at_once`), deflate cwnd by the data
//! acknowledged and add back one SMSS. The engine does this with its
//! accounting, not with cwnd: an ACK of k segments removes k from
//! FlightSize and k - 1 from the duplicates counted as delivered (Linux
//! tcp_remove_reno_sacks()), so with d duplicates before it
//!   RFC:    FlightSize - k < ssthresh + d - k + 1
//!   engine: (FlightSize - k) - (d - (k - 1)) < ssthresh
//! are the same inequality. (An ACK of more segments than d + 1, possible
//! only when duplicate ACKs were lost, would take the RFC's cwnd below
//! ssthresh; the engine stops at ssthresh.)
//!
//! Step 3 (full ACK): leave with cwnd = min(ssthresh, max(FlightSize,
//! SMSS) + SMSS), RFC 6582's option (1), which sends at most one segment
//! beyond what is in flight instead of a burst; option (2), cwnd =
//! ssthresh, is what `rfc6675` does. FlightSize here is pipe, the amount
//! the engine holds against cwnd.
//!
//! The retransmit timer: RFC 6582 section 3.2 step 4 resets it on the
//! first partial ACK; RFC 6298 (5.3) restarts it on every ACK of new data,
//! so every partial ACK. The two variants, under Floyd and Henderson's
//! names (RFC 3782 section 4), are `NewRenoVariant`.
//!
//! With SACK the same rules hold on the SACK scoreboard (the cwnd rule is
//! RFC 6675's with exit option (1)); the partial-ACK retransmission is
//! then IsLost()'s business. The intended use is `sack_blocks = 0`.

use super::{RecoveryCtx, RecoveryOps};
use crate::window::Window;

/// When NewReno restarts the retransmission timer on a partial ACK.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NewRenoVariant {
    /// On every partial ACK (RFC 6298 (5.3)): one hole per RTT however
    /// many there are, never a timeout while partial ACKs come.
    #[default]
    SlowButSteady,
    /// Only on the first partial ACK of a recovery: with many holes the
    /// RTO fires and repairs the rest by slow start, instead of one RTT
    /// per hole.
    Impatient,
}

impl NewRenoVariant {
    pub const NAMES: &'static [&'static str] = &["slow-but-steady", "impatient"];
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "slow-but-steady" => Some(NewRenoVariant::SlowButSteady),
            "impatient" => Some(NewRenoVariant::Impatient),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            NewRenoVariant::SlowButSteady => "slow-but-steady",
            NewRenoVariant::Impatient => "impatient",
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct NewReno {
    variant: NewRenoVariant,
}

impl NewReno {
    pub fn new(variant: NewRenoVariant) -> Self {
        NewReno { variant }
    }
}

impl RecoveryOps for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }
    fn init_cwnd_reduction(&mut self, w: &mut Window, _ctx: &RecoveryCtx) {
        w.cwnd = w.ssthresh;
        w.cwnd_cnt = 0;
    }
    // Step 4's deflation is the engine's accounting (module comment).
    fn cwnd_reduction(&mut self, _w: &mut Window, _c: &RecoveryCtx, _n: u64, _f: bool) {}
    fn end_cwnd_reduction(&mut self, w: &mut Window, ctx: &RecoveryCtx) {
        // Step 3, option (1).
        w.cwnd = w.ssthresh.min(ctx.pipe.max(1) + 1);
        w.cwnd_cnt = 0;
    }
    // NextSeg() rule 4 is RFC 6675's.
    fn rescue_retransmission(&self) -> bool {
        false
    }
    // Step 1: DupThresh duplicate ACKs, not IsLost() alone.
    fn entry_on_islost(&self) -> bool {
        false
    }
    // Step 4: the hole goes out at once; only new data waits for cwnd.
    fn partial_ack_retransmits_at_once(&self) -> bool {
        true
    }
    fn rto_restart_on_partial_ack(&self, nth: u64) -> bool {
        match self.variant {
            NewRenoVariant::SlowButSteady => true,
            NewRenoVariant::Impatient => nth <= 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(pipe: u64) -> RecoveryCtx {
        RecoveryCtx {
            pipe,
            ..Default::default()
        }
    }

    #[test]
    fn entry_sets_cwnd_to_ssthresh() {
        let mut r = NewReno::default();
        let mut w = Window {
            cwnd: 20,
            ssthresh: 10,
            cwnd_cnt: 3,
        };
        r.init_cwnd_reduction(&mut w, &ctx(17));
        assert_eq!((w.cwnd, w.cwnd_cnt), (10, 0));
        assert!(!r.exits_on_partial_ack());
        assert!(!r.entry_on_islost());
        assert!(r.partial_ack_retransmits_at_once());
    }

    #[test]
    fn partial_ack_deflation_is_the_engines_accounting() {
        // FlightSize 20 with holes at segments 0 and 5; ssthresh 10;
        // d = 18 duplicate ACKs (segments 1-4 and 6-19). The retransmission
        // of 0 is ACKed: k = 5 segments (0-4), a partial ACK.
        // RFC 6582 step 4: cwnd = 10 + 18 - 5 + 1 = 24, FlightSize 15.
        // Engine: cwnd 10, duplicates still counted 18 - 4 = 14, pipe =
        // 15 - 14 = 1 (segment 5 in it
        // counted once, whether lost or retransmitted). Room: RFC 24 - 15 =
        // 9, engine 10 - 1 = 9.
        let (ssthresh, flight, d, k) = (10u64, 20u64, 18u64, 5u64);
        let rfc_cwnd = ssthresh + d - k + 1;
        let rfc_room = rfc_cwnd - (flight - k);
        let mut r = NewReno::default();
        let mut w = Window {
            cwnd: ssthresh,
            ssthresh,
            cwnd_cnt: 0,
        };
        let pipe = (flight - k) - (d - (k - 1));
        r.cwnd_reduction(&mut w, &ctx(pipe), k, false);
        assert_eq!(w.cwnd, ssthresh);
        assert_eq!(w.cwnd - pipe, rfc_room);
        assert_eq!(rfc_room, 9);
    }

    #[test]
    fn full_ack_takes_option_one() {
        let mut r = NewReno::default();
        let mut w = Window {
            cwnd: 10,
            ssthresh: 10,
            cwnd_cnt: 0,
        };
        // Little in flight: one segment beyond it.
        r.end_cwnd_reduction(&mut w, &ctx(3));
        assert_eq!(w.cwnd, 4);
        // Nothing in flight: max(FlightSize, SMSS) + SMSS = 2.
        w.cwnd = 10;
        r.end_cwnd_reduction(&mut w, &ctx(0));
        assert_eq!(w.cwnd, 2);
        // Much in flight: ssthresh.
        w.cwnd = 10;
        r.end_cwnd_reduction(&mut w, &ctx(12));
        assert_eq!(w.cwnd, 10);
    }

    #[test]
    fn variants_restart_the_timer_on_every_or_only_the_first_partial_ack() {
        let steady = NewReno::new(NewRenoVariant::SlowButSteady);
        let impatient = NewReno::new(NewRenoVariant::Impatient);
        for nth in 1..5 {
            assert!(steady.rto_restart_on_partial_ack(nth));
            assert_eq!(impatient.rto_restart_on_partial_ack(nth), nth == 1);
        }
        for name in NewRenoVariant::NAMES {
            assert_eq!(NewRenoVariant::from_name(name).unwrap().name(), *name);
        }
        assert_eq!(NewRenoVariant::default(), NewRenoVariant::SlowButSteady);
        assert_eq!(NewRenoVariant::from_name("careful"), None);
    }
}
