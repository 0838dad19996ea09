//! OR3, opportunistic random redundant retransmission (OR3 paper, section
//! IV: Xie and Li, "Revisiting Loss Recovery for High-Speed
//! Transmission"), as a sender-side retransmission policy usable with any
//! congestion controller and recovery algorithm (TCP-OR3 is OR3 with BBR).
//! Its three principles, each switchable (`Or3Params`):
//!
//! - Opportunism: during loss recovery the sender may retransmit "beyond
//!   min{CWND, RWND}". Two parts, both in recovery/opportunistic.rs
//!   (`Opportunistic::or3`): a segment marked lost is retransmitted even
//!   when pipe >= cwnd (pacing still spaces it), and new data may go past
//!   the receive window by the segments the retransmissions will release,
//!   the mobile paper's opportunistic retransmission, which OR3 cites for
//!   the idea ([24]).
//! - Redundancy: "the i-th retransmission should generate 2i - 1
//!   replicas": the first retransmission is sent once, the second three
//!   times, the third five, ... capped at `max_replicas` copies in all.
//! - Randomisation: the extra copies "are sent out in a random number of
//!   sending cycles", so that one loss burst does not take them all. The
//!   paper gives no range; each copy here waits an independent uniform
//!   number of cycles in 1..=`spread_cycles`. Without randomisation the
//!   copies follow the retransmission back to back (delay 0: the pacer
//!   spaces them one cycle apart).
//!
//! The draws come from a splitmix64 stream seeded by the caller (the
//! simulator derives it from the scenario seed and the flow's name), so a
//! run is reproducible.

use crate::redundancy::Redundancy;

/// How far past the receive window opportunism lets new data go
/// (`[flow.or3] overbooking`). Section IV says only that "the sender is
/// allowed to send more data than the limit of receive buffer. Since a
/// large volume of receive buffer might be released once the opportunism
/// retransmission succeeds, overbooking the receiving buffer in advance
/// can improve bandwidth utilization", citing [24] (the mobile paper).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Overbooking {
    /// The volume the retransmissions release: the holes and SACKed
    /// segments below the first hole no retransmission is filling (the
    /// mobile paper's n1 + n2, [24]), on top of the advertised window.
    /// Overbooking: the SACKed data above that hole still occupies the
    /// buffer after the release. The paper's rule as we read it, and the
    /// default.
    #[default]
    Released,
    /// Ours: the same, less the segments above that hole which are
    /// SACKed or on their way, so that the right edge stays within the
    /// buffer space free once the holes below it are filled (the receiver
    /// counts out-of-order data as occupying its buffer, receiver.rs
    /// `potential_right`).
    FreeBuffer,
    /// Ours, for an experiment: no new data past the advertised window;
    /// opportunism's other part, lost segments retransmitted beyond cwnd,
    /// stays. It tells the two parts' effects apart (issue 33's review of
    /// the OR3 paper: `opportunism = false` turns off both).
    Off,
}

impl Overbooking {
    pub fn name(self) -> &'static str {
        match self {
            Overbooking::Released => "released",
            Overbooking::FreeBuffer => "free-buffer",
            Overbooking::Off => "off",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "released" => Some(Overbooking::Released),
            "free-buffer" => Some(Overbooking::FreeBuffer),
            "off" => Some(Overbooking::Off),
            _ => None,
        }
    }
}

/// `[flow.or3]`: OR3's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Or3Params {
    /// The most copies one retransmission is sent as (the contract
    /// example: 7, reached by the 4th retransmission).
    pub max_replicas: u32,
    pub opportunism: bool,
    pub redundancy: bool,
    pub randomization: bool,
    /// Largest random delay of a copy, in sending cycles (our choice; the
    /// paper names none).
    pub spread_cycles: u32,
    /// How far opportunism lets new data past the window.
    pub overbooking: Overbooking,
}

impl Default for Or3Params {
    fn default() -> Self {
        Or3Params {
            max_replicas: 7,
            opportunism: true,
            redundancy: true,
            randomization: true,
            spread_cycles: 32,
            overbooking: Overbooking::Released,
        }
    }
}

/// Copies of the i-th retransmission, itself included: 2i - 1, at most
/// `max` (section IV, rules (1) and (2)).
pub fn copies_of(i: u32, max: u32) -> u32 {
    i.saturating_mul(2).saturating_sub(1).clamp(1, max.max(1))
}

/// OR3's redundancy and randomisation.
pub struct Or3Redundancy {
    params: Or3Params,
    rng: u64,
}

impl Or3Redundancy {
    pub fn new(params: Or3Params, seed: u64) -> Self {
        Or3Redundancy { params, rng: seed }
    }

    fn below(&mut self, n: u64) -> u64 {
        crate::draw::below(&mut self.rng, n)
    }
}

impl Redundancy for Or3Redundancy {
    fn name(&self) -> &'static str {
        "or3"
    }
    fn copies(&mut self, i: u32, delays: &mut Vec<u32>) {
        let extra = copies_of(i, self.params.max_replicas) - 1;
        for _ in 0..extra {
            let d = if self.params.randomization {
                1 + self.below(u64::from(self.params.spread_cycles.max(1))) as u32
            } else {
                0
            };
            delays.push(d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Section IV's example: the i-th retransmission sends 2i - 1 copies;
    /// the cap holds.
    #[test]
    fn copies_follow_two_i_minus_one_up_to_the_cap() {
        let got: Vec<u32> = (1..=6).map(|i| copies_of(i, 7)).collect();
        assert_eq!(got, [1, 3, 5, 7, 7, 7]);
        assert_eq!(copies_of(3, 4), 4);
        assert_eq!(copies_of(1, 0), 1);
    }

    #[test]
    fn random_delays_are_seeded_in_range_and_zero_without_randomisation() {
        let p = Or3Params {
            spread_cycles: 5,
            ..Or3Params::default()
        };
        let draw = |seed, p| {
            let mut r = Or3Redundancy::new(p, seed);
            let mut d = vec![];
            for i in 1..=40 {
                r.copies(i, &mut d);
            }
            d
        };
        let a = draw(1, p);
        assert_eq!(a, draw(1, p), "same seed, same delays");
        assert_ne!(a, draw(2, p));
        // 0 + 2 + 4 + 6 + 36 x 6 extra copies.
        assert_eq!(a.len(), 12 + 36 * 6);
        assert!(a.iter().all(|&d| (1..=5).contains(&d)));
        assert!((1..=5).all(|v| a.contains(&v)), "every delay drawn");
        let flat = draw(
            1,
            Or3Params {
                randomization: false,
                ..p
            },
        );
        assert!(flat.iter().all(|&d| d == 0));
        let none = draw(
            1,
            Or3Params {
                max_replicas: 1,
                ..p
            },
        );
        assert!(none.is_empty());
    }
}
