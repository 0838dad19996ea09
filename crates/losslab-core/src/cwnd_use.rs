//! Whether the flow used its cwnd, so that cwnd may grow (RFC 7661's
//! spirit; Linux tcp_cwnd_validate() in tcp_output.c and
//! tcp_is_cwnd_limited() in include/net/tcp.h). Linux's
//! measurement-based rule came with 3.16 (commit ca8a22634381, "tcp: make
//! cwnd-limited checks measurement-based, and gentler"); the paper
//! reproductions run kernels of several of its generations
//! (`cwnd_validation` key; 3.10's per-ACK test is
//! `CwndValidation::limited_310`):
//!
//! - `linux-3.16` (3.16 to 4.2, read in 3.17.0): slow start is
//!   `snd_cwnd <= snd_ssthresh`; tcp_write_xmit() calls
//!   tcp_cwnd_validate() only after a burst that sent data, with
//!   is_cwnd_limited set when tcp_cwnd_test() failed for queued data; the
//!   window's record is renewed when snd_una passes its right edge or
//!   packets_out exceeds its maximum, and a renewal overwrites
//!   is_cwnd_limited either way.
//! - `linux-4.3` (4.3 to 5.10 in mainline, read in 4.10.17): slow start
//!   is tcp_in_slow_start()'s `<`, and is_cwnd_limited is also set when
//!   the flight fills cwnd at the burst's end (`is_cwnd_limited |=
//!   tcp_packets_in_flight(tp) >= snd_cwnd`); otherwise as 3.16.
//! - Not modelled: 5.11 to 6.0 (commit 299bcb55ecd1 validated bursts that
//!   sent nothing but were cwnd-limited, and renewed on every such burst).
//! - `linux` (the engine's rule since the key existed; Linux since the
//!   September 2022 fix "tcp: fix tcp_cwnd_validate() to not forget
//!   is_cwnd_limited"): a cwnd-limited burst always renews the record, a
//!   larger flight only while the window was not cwnd-limited, and a
//!   cwnd-limited window lets cwnd grow in slow start too. The engine
//!   judges it after every burst, limited when the flight fills cwnd with
//!   something left to send; 6.x skips a burst that sent nothing and was
//!   not cwnd-limited and takes the flight alone, as 4.3 does
//!   (docs/LINUX-VERSIONS.md).
//!
//! Both fixes went to stable kernels too (299bcb55ecd1 to 5.4.y,
//! the 2022 fix to 6.0.y), so a distribution's kernel may hold a newer
//! rule than its version number says.

use crate::config::CwndValidation;

/// Linux's per-window record (tp->max_packets_out, max_packets_seq /
/// cwnd_usage_seq, is_cwnd_limited).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CwndUse {
    pub max_packets_out: u64,
    /// The right edge of the window the record covers (snd_nxt when it
    /// was renewed).
    pub usage_seq: u64,
    pub is_limited: bool,
}

/// What one send burst did, as tcp_write_xmit() knows it at its end.
#[derive(Clone, Copy, Debug)]
pub struct Burst {
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub packets_out: u64,
    /// Data waited for cwnd (tcp_write_xmit()'s is_cwnd_limited).
    pub cwnd_limited: bool,
    /// The burst sent new data (sent_pkts > 0).
    pub sent_new: bool,
}

impl CwndUse {
    /// tcp_cwnd_validate()'s record keeping at the end of a send burst.
    pub fn on_burst_end(&mut self, rule: CwndValidation, b: Burst) {
        let renew = match rule {
            CwndValidation::Linux => {
                b.snd_una >= self.usage_seq
                    || b.cwnd_limited
                    || (!self.is_limited && b.packets_out > self.max_packets_out)
            }
            CwndValidation::Linux43 | CwndValidation::Linux316 => {
                b.sent_new && (b.snd_una >= self.usage_seq || b.packets_out > self.max_packets_out)
            }
            // 3.10's test reads the flight before each ACK instead.
            CwndValidation::Linux310 | CwndValidation::Linux310NoGso => false,
        };
        if renew {
            self.is_limited = b.cwnd_limited;
            self.max_packets_out = b.packets_out;
            self.usage_seq = b.snd_nxt;
        }
    }

    /// tcp_is_cwnd_limited(): in slow start cwnd may grow while below
    /// twice the window's largest flight; otherwise only if the window
    /// was cwnd-limited. Not for the 3.10 rules.
    pub fn limited(&self, rule: CwndValidation, cwnd: u64, ssthresh: u64) -> bool {
        let slow_start = match rule {
            CwndValidation::Linux => {
                if self.is_limited {
                    return true;
                }
                cwnd < ssthresh
            }
            CwndValidation::Linux43 => cwnd < ssthresh,
            CwndValidation::Linux316 => cwnd <= ssthresh,
            CwndValidation::Linux310 | CwndValidation::Linux310NoGso => {
                unreachable!("3.10's test is limited_310")
            }
        };
        if slow_start {
            cwnd < 2 * self.max_packets_out
        } else {
            self.is_limited
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use CwndValidation::{Linux, Linux316, Linux43};

    fn burst(snd_una: u64, snd_nxt: u64, packets_out: u64, cwnd_limited: bool) -> Burst {
        Burst {
            snd_una,
            snd_nxt,
            packets_out,
            cwnd_limited,
            sent_new: true,
        }
    }

    /// The sequence of the 2022 fix's commit message: (a) a cwnd-limited
    /// burst with a small flight opens a window, (b) later in it a larger
    /// flight that is not cwnd-limited (pacing or the application held
    /// it). Sequence numbers in segments.
    fn a_then_b(rule: CwndValidation) -> CwndUse {
        let mut u = CwndUse::default();
        u.on_burst_end(rule, burst(0, 10, 10, true)); // snd_una 0 >= 0: renewed
        u.on_burst_end(rule, burst(2, 14, 12, false)); // inside the window
        u
    }

    #[test]
    fn before_the_2022_fix_a_larger_flight_forgets_the_limited_window() {
        // 3.17/4.10: packets_out 12 > max 10 renews: is_cwnd_limited
        // false, max 12, edge 14. In congestion avoidance (cwnd 20,
        // ssthresh 10) cwnd may no longer grow.
        for rule in [Linux316, Linux43] {
            let u = a_then_b(rule);
            let want = CwndUse {
                max_packets_out: 12,
                usage_seq: 14,
                is_limited: false,
            };
            assert_eq!(u, want, "{rule:?}");
            assert!(!u.limited(rule, 20, 10), "{rule:?}");
        }
        // Since the fix: a limited window is kept (12 > 10 is not asked
        // while is_cwnd_limited), and cwnd may grow.
        let u = a_then_b(Linux);
        let want = CwndUse {
            max_packets_out: 10,
            usage_seq: 10,
            is_limited: true,
        };
        assert_eq!(u, want);
        assert!(u.limited(Linux, 20, 10));
    }

    #[test]
    fn at_cwnd_equal_to_ssthresh_only_3_16_counts_slow_start() {
        // A window whose largest flight was 6 and was not cwnd-limited;
        // cwnd = ssthresh = 10 (as a recovery leaves it). 3.17's
        // `snd_cwnd <= snd_ssthresh` takes slow start: 10 < 2 x 6, cwnd
        // may grow. 4.3+'s `<` does not: is_cwnd_limited is false.
        let mut u = CwndUse::default();
        for rule in [Linux316, Linux43, Linux] {
            u.on_burst_end(rule, burst(0, 6, 6, false));
        }
        assert!(u.limited(Linux316, 10, 10));
        assert!(!u.limited(Linux43, 10, 10));
        assert!(!u.limited(Linux, 10, 10));
        // Below ssthresh all three agree; at 12 = 2 x 6 none grows.
        for rule in [Linux316, Linux43, Linux] {
            assert!(u.limited(rule, 9, 10), "{rule:?}");
            assert!(!u.limited(rule, 12, 20), "{rule:?}");
        }
    }

    #[test]
    fn before_5_11_a_burst_without_new_data_keeps_the_record() {
        // The window [0, 10) was cwnd-limited. snd_una reaches its edge
        // on an ACK after which nothing new is sent (the application has
        // nothing, or only retransmissions go out): tcp_write_xmit() sent
        // no packet, so 3.17 and 4.10 keep the record; the engine's
        // `linux` renews it as not limited.
        for (rule, kept) in [(Linux316, true), (Linux43, true), (Linux, false)] {
            let mut u = CwndUse::default();
            u.on_burst_end(rule, burst(0, 10, 10, true));
            u.on_burst_end(
                rule,
                Burst {
                    sent_new: false,
                    ..burst(10, 10, 0, false)
                },
            );
            assert_eq!(u.is_limited, kept, "{rule:?}");
        }
    }

    #[test]
    fn since_the_fix_a_limited_burst_renews_inside_the_window() {
        // A burst limited at a smaller flight inside the window: the 2022
        // rule renews (cwnd_limited), the older ones do not (neither
        // snd_una past the edge nor a larger flight).
        for (rule, edge) in [(Linux316, 10), (Linux43, 10), (Linux, 12)] {
            let mut u = CwndUse::default();
            u.on_burst_end(rule, burst(0, 10, 10, false));
            u.on_burst_end(rule, burst(4, 12, 8, true));
            assert_eq!(u.usage_seq, edge, "{rule:?}");
        }
    }
}
