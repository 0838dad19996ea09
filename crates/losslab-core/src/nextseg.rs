//! RFC 6675 section 4, NextSeg(): what fast recovery sends next, as a
//! pure function of the scoreboard so it can be checked by hand.

use crate::scoreboard::{Scoreboard, RETRANS};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextSeg {
    /// Rule 1: retransmit a segment IsLost() marked lost.
    Lost(u64),
    /// Rule 2: send new data.
    NewData,
    /// Rule 3: retransmit an un-SACKed segment below the highest SACK that
    /// is not (yet) deemed lost.
    Unsacked(u64),
    /// Rule 4: the rescue retransmission of the highest outstanding
    /// un-SACKed segment.
    Rescue(u64),
    Nothing,
}

/// Recovery-phase variables of RFC 6675 section 3 (as segment numbers,
/// except RescueRxt and HighACK, which are bytes).
#[derive(Clone, Copy, Debug, Default)]
pub struct RecoveryVars {
    pub high_rxt: Option<u64>,
    pub rescue_rxt: Option<u64>,
    pub high_ack: u64,
    /// Whether rule 4 is enabled (RFC 6675 added it; RFC 3517 has none).
    pub rescue_enabled: bool,
}

/// Chooses the next segment. `new_data` says whether rule 2 can send
/// (data available and the receive window open).
pub fn next_seg(board: &Scoreboard, v: &RecoveryVars, new_data: bool) -> NextSeg {
    // Rule 1. Segments wait in the retransmission queue in order; with
    // IsLost() the lost ones are all un-SACKed segments below a boundary,
    // so the lowest waiting one is the first S2 > HighRxt the RFC asks for.
    if let Some(n) = board.next_to_retransmit() {
        return NextSeg::Lost(n);
    }
    if new_data {
        return NextSeg::NewData;
    }
    if let Some(top) = board.highest_sacked_end() {
        if let Some(n) = board.first_unsacked_unlost(v.high_rxt, top) {
            return NextSeg::Unsacked(n);
        }
    }
    // Rule 4: once per recovery (RescueRxt undefined or below HighACK),
    // for an un-SACKed S3 > HighRxt.
    if v.rescue_enabled && v.rescue_rxt.is_none_or(|r| v.high_ack > r) {
        if let Some(n) = highest_unsacked(board) {
            let above_high_rxt = v.high_rxt.is_none_or(|h| n > h);
            if above_high_rxt && !board.get(n).is_some_and(|s| s.is(RETRANS)) {
                return NextSeg::Rescue(n);
            }
        }
    }
    NextSeg::Nothing
}

/// The highest outstanding segment that is not SACKed.
pub fn highest_unsacked(board: &Scoreboard) -> Option<u64> {
    let top = board.next_seg_no().checked_sub(1)?;
    if top < board.base() {
        return None;
    }
    match board.sacked_runs().containing(top) {
        None => Some(top),
        Some(r) => r.start.checked_sub(1).filter(|&n| n >= board.base()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::Range;

    fn board(n: u64) -> Scoreboard {
        let mut b = Scoreboard::new();
        for i in 0..n {
            b.push_new(i * 1000, 1000, 0, i);
        }
        b
    }
    fn vars() -> RecoveryVars {
        RecoveryVars {
            rescue_enabled: true,
            ..Default::default()
        }
    }

    #[test]
    fn rule1_lost_segments_first_in_order() {
        let mut b = board(10);
        b.on_sack_block(Range::new(3000, 7000));
        b.mark_lost_below(3, |_, _| {});
        assert_eq!(next_seg(&b, &vars(), true), NextSeg::Lost(0));
        b.on_retransmit(0, 1, 11);
        assert_eq!(next_seg(&b, &vars(), true), NextSeg::Lost(1));
    }

    #[test]
    fn rule2_new_data_before_rules_3_and_4() {
        let mut b = board(10);
        b.on_sack_block(Range::new(3000, 4000));
        assert_eq!(next_seg(&b, &vars(), true), NextSeg::NewData);
    }

    #[test]
    fn rule3_unsacked_below_highest_sack_above_high_rxt() {
        // 0 lost and retransmitted (HighRxt = 0); 1, 2 un-SACKed but not
        // lost (only 1 SACKed segment above); 3 SACKed; 4.. in flight.
        let mut b = board(6);
        b.on_sack_block(Range::new(3000, 4000));
        b.mark_lost(0);
        b.on_retransmit(0, 1, 7);
        let v = RecoveryVars {
            high_rxt: Some(0),
            ..vars()
        };
        assert_eq!(next_seg(&b, &v, false), NextSeg::Unsacked(1));
        b.on_retransmit(1, 2, 8);
        let v = RecoveryVars {
            high_rxt: Some(1),
            ..v
        };
        assert_eq!(next_seg(&b, &v, false), NextSeg::Unsacked(2));
    }

    #[test]
    fn rule4_rescue_once_per_recovery() {
        // Tail: 0..4 sent, 0 and 1 SACKed? No: 2 SACKed, 3 and 4 not.
        let mut b = board(5);
        b.on_sack_block(Range::new(2000, 3000));
        b.mark_lost(0);
        b.mark_lost(1);
        b.on_retransmit(0, 1, 6);
        b.on_retransmit(1, 1, 7);
        let v = RecoveryVars {
            high_rxt: Some(1),
            high_ack: 0,
            ..vars()
        };
        // Nothing lost waits, no new data, nothing un-SACKed below the
        // highest SACK (segment 2) above HighRxt: rescue the highest
        // un-SACKed segment, 4.
        assert_eq!(next_seg(&b, &v, false), NextSeg::Rescue(4));
        // RescueRxt set to RecoveryPoint (5000): no second rescue until
        // HighACK passes it.
        let v2 = RecoveryVars {
            rescue_rxt: Some(5000),
            high_ack: 0,
            ..v
        };
        assert_eq!(next_seg(&b, &v2, false), NextSeg::Nothing);
        // RFC 3517 has no rescue retransmission.
        let v3 = RecoveryVars {
            rescue_enabled: false,
            ..v
        };
        assert_eq!(next_seg(&b, &v3, false), NextSeg::Nothing);
    }

    #[test]
    fn highest_unsacked_skips_a_sacked_tail() {
        let mut b = board(6);
        b.on_sack_block(Range::new(4000, 6000));
        assert_eq!(highest_unsacked(&b), Some(3));
        b.on_sack_block(Range::new(0, 4000));
        assert_eq!(highest_unsacked(&b), None);
    }
}
