//! Linux's RTT samples of one ACK (`rtt_sample = "linux"`): Linux 6.x
//! tcp_clean_rtx_queue(), tcp_sacktag_one() and tcp_ack_update_rtt()
//! (net/ipv4/tcp_input.c).
//!
//! An ACK gives two samples. seq_rtt, for tcp_rtt_estimator(), is timed
//! from the oldest segment it newly delivers; ca_rtt, for
//! tcp_update_rtt_min() and the congestion controller (`struct
//! rate_sample.rtt_us`, which tcp_clean_rtx_queue() hands to pkts_acked()
//! as `ack_sample.rtt_us` and BBR reads in bbr_update_min_rtt()), from the
//! newest. Only segments sent once count (Karn's rule without TSecr): the
//! cumulative part's (first_ackt, last_ackt) when nothing it acknowledges
//! was ever retransmitted (FLAG_RETRANS_DATA_ACKED voids both), the SACK
//! part's (first_sackt, last_sackt) otherwise or besides. A SACK sample
//! takes ca_rtt over the cumulative one, and stands in for seq_rtt only
//! when the cumulative part gave none. Only when neither part gave one
//! and the ACK advanced snd_una (FLAG_ACKED) does TSecr serve for both,
//! retransmitted data or not: the echoed timestamp says which
//! transmission arrived.
//!
//! Linux keeps these in microseconds (tcp_stamp_us_delta()); here they are
//! the engine's nanoseconds, and the estimator truncates to microseconds
//! where its formula is the kernel's.

use crate::scoreboard::Delivered;
use crate::time::Time;

/// One ACK's two samples (both or neither exist: ca_rtt is taken only
/// alongside a seq_rtt or a sack_rtt).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckRtt {
    /// For the RTO estimator (tcp_rtt_estimator()'s mrtt_us).
    pub seq_rtt: Time,
    /// For min_rtt and the congestion controller (ca_rtt_us).
    pub ca_rtt: Time,
}

/// The samples of an ACK at `now` that newly delivered `d`. `acked`: it
/// advanced the cumulative ACK (FLAG_ACKED); `retrans_acked`: some segment
/// it cumulatively acknowledged was ever retransmitted
/// (FLAG_RETRANS_DATA_ACKED, SACKed before or not); `tsecr`: now - TSecr
/// when the ACK echoed a timestamp.
pub fn linux(
    now: Time,
    d: &Delivered,
    acked: bool,
    retrans_acked: bool,
    tsecr: Option<Time>,
) -> Option<AckRtt> {
    let age = |t: Time| now.saturating_sub(t);
    // tcp_clean_rtx_queue(): "if (likely(first_ackt) &&
    // !(flag & FLAG_RETRANS_DATA_ACKED))".
    let cum = d
        .cum_original_sent
        .filter(|_| !retrans_acked)
        .map(|(first, last)| (age(first), age(last)));
    // "if (sack->first_sackt)": sack_rtt, and ca_rtt from last_sackt.
    let sack = d
        .sacked_original_sent
        .map(|(first, last)| (age(first), age(last)));
    // tcp_ack_update_rtt(): seq_rtt falls back to sack_rtt.
    let seq_rtt = cum.or(sack).map(|(first, _)| first);
    let ca_rtt = sack.or(cum).map(|(_, last)| last);
    match (seq_rtt, ca_rtt) {
        (Some(seq_rtt), Some(ca_rtt)) => Some(AckRtt { seq_rtt, ca_rtt }),
        // RFC 7323's RTTM rule: TSecr only on an ACK of new data.
        _ => tsecr.filter(|_| acked).map(|r| AckRtt {
            seq_rtt: r,
            ca_rtt: r,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::MS;

    fn delivered(cum: Option<(Time, Time)>, sacked: Option<(Time, Time)>) -> Delivered {
        Delivered {
            cum_original_sent: cum,
            sacked_original_sent: sacked,
            ..Default::default()
        }
    }

    #[test]
    fn cumulative_and_sack_parts() {
        // Cum-acks a segment sent at 5 ms and SACKs ones sent at 10, 20
        // and 30 ms; now = 110 ms. seq_rtt = 110 - first_ackt (5) = 105;
        // ca_rtt = 110 - last_sackt (30) = 80 (the SACK part's last_sackt
        // overrides last_ackt = 5, which would give 105).
        let d = delivered(Some((5 * MS, 5 * MS)), Some((10 * MS, 30 * MS)));
        assert_eq!(
            linux(110 * MS, &d, true, false, Some(999 * MS)),
            Some(AckRtt {
                seq_rtt: 105 * MS,
                ca_rtt: 80 * MS
            })
        );
    }

    #[test]
    fn cumulative_only_oldest_and_newest() {
        // Cum-acks originals sent at 40, 41 and 42 ms at now = 142 ms:
        // seq_rtt = 142 - 40 = 102, ca_rtt = 142 - 42 = 100. TSecr (here
        // 101 ms) is not used when an original timed the ACK.
        let d = delivered(Some((40 * MS, 42 * MS)), None);
        assert_eq!(
            linux(142 * MS, &d, true, false, Some(101 * MS)),
            Some(AckRtt {
                seq_rtt: 102 * MS,
                ca_rtt: 100 * MS
            })
        );
    }

    #[test]
    fn sack_only_ack_gives_a_sample() {
        // No cumulative advance (FLAG_ACKED clear), SACKs originals sent
        // at 10 and 20 ms, now = 120 ms: sack_rtt = 110 becomes seq_rtt,
        // ca_rtt = 120 - 20 = 100.
        let d = delivered(None, Some((10 * MS, 20 * MS)));
        assert_eq!(
            linux(120 * MS, &d, false, false, Some(50 * MS)),
            Some(AckRtt {
                seq_rtt: 110 * MS,
                ca_rtt: 100 * MS
            })
        );
    }

    #[test]
    fn retransmitted_data_acked_voids_the_cumulative_part() {
        // The cumulative part also took an original sent at 5 ms, but a
        // retransmitted segment was among what it acknowledged: no
        // seq_rtt from it. With a SACK part (sent at 30 ms, now 110):
        // seq_rtt = sack_rtt = 80, ca_rtt = 80.
        let d = delivered(Some((5 * MS, 5 * MS)), Some((30 * MS, 30 * MS)));
        assert_eq!(
            linux(110 * MS, &d, true, true, Some(60 * MS)),
            Some(AckRtt {
                seq_rtt: 80 * MS,
                ca_rtt: 80 * MS
            })
        );
        // Without one, TSecr serves both (now - TSecr = 60 ms): Linux takes
        // it even though retransmitted data was acknowledged.
        let d = delivered(Some((5 * MS, 5 * MS)), None);
        assert_eq!(
            linux(110 * MS, &d, true, true, Some(60 * MS)),
            Some(AckRtt {
                seq_rtt: 60 * MS,
                ca_rtt: 60 * MS
            })
        );
        // And without a timestamp, nothing.
        assert_eq!(linux(110 * MS, &d, true, true, None), None);
    }

    #[test]
    fn tsecr_only_on_an_ack_of_new_data() {
        // A duplicate ACK (nothing newly delivered, snd_una unchanged)
        // echoing a timestamp gives no sample: the RTTM rule.
        let d = delivered(None, None);
        assert_eq!(linux(110 * MS, &d, false, false, Some(60 * MS)), None);
        assert_eq!(
            linux(110 * MS, &d, true, false, Some(60 * MS)),
            Some(AckRtt {
                seq_rtt: 60 * MS,
                ca_rtt: 60 * MS
            })
        );
    }
}
