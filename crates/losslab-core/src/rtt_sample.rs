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
//!
//! The older kernels' samples (`rtt_sample = "linux-3.2"` and
//! `"linux-3.15"`, read in Linux 3.2.7, 3.10.105 and 3.17.0
//! net/ipv4/tcp_input.c) are `linux_3_2()` and `linux_3_15()` below. Both
//! time every original the cumulative ACK frees, SACKed earlier or not
//! (4.x added the TCPCB_SACKED_ACKED test), and give the congestion
//! controller a sample of the cumulative part only. Linux 3.x had no
//! min_rtt; the engine's (RACK, BBR, the detectors) keeps its meaning
//! under these values: the RTT of the newest original the cumulative ACK
//! freed, exact and under Karn's rule (nothing it freed was ever
//! retransmitted), so a jiffy-rounded or ambiguous sample never becomes
//! the minimum.

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

/// What the 3.x functions read of one ACK besides the scoreboard.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OldAck {
    pub now: Time,
    /// The flow's jiffy (1 s / `timer_hz`); 0: no jiffies, exact samples.
    pub tick: Time,
    /// It advanced snd_una (FLAG_ACKED).
    pub acked: bool,
    /// Some segment it cumulatively acknowledged was ever retransmitted
    /// (FLAG_RETRANS_DATA_ACKED).
    pub retrans_acked: bool,
    /// When the segment whose timestamp it echoes was sent (TSecr - 1 in
    /// the engine's clock); None without one (rcv_tsecr == 0).
    pub tsecr_sent: Option<Time>,
    /// The controller has TCP_CONG_RTT_STAMP (3.2-3.14 only): its sample
    /// is taken from skb->tstamp in microseconds rather than in jiffies.
    pub ca_rtt_stamp: bool,
}

/// One ACK's samples under Linux 3.x, each for its own consumer: unlike
/// 4.x they need not come together.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OldAckRtt {
    /// For the RTO estimator (tcp_rtt_estimator()'s mrtt).
    pub seq_rtt: Option<Time>,
    /// For the congestion controller's pkts_acked() (and, in the engine,
    /// the detectors).
    pub ca_rtt: Option<Time>,
    /// For the engine's min_rtt (see the module's comment); only ever
    /// present with a `seq_rtt`.
    pub min_rtt: Option<Time>,
}

/// `tcp_time_stamp - stamp` when the stamp was taken at `sent`: both are
/// jiffies, so the kernel subtracts two clocks each floored to a tick (a
/// 0.9 ms RTT may read 0 or 1 jiffy). Returned in the engine's time.
fn jiffies_since(sent: Time, now: Time, tick: Time) -> Time {
    if tick == 0 {
        return now.saturating_sub(sent);
    }
    (now / tick).saturating_sub(sent / tick) * tick
}

/// Linux 3.2 to 3.14: tcp_clean_rtx_queue(), tcp_ack_update_rtt(),
/// tcp_ack_saw_tstamp() and tcp_ack_no_tstamp() (tcp_input.c; identical
/// in 3.2.7 and 3.10.105). Every sample is taken inside `if (flag &
/// FLAG_ACKED)`: a SACK-only ACK gives none.
///
/// The estimator prefers TSecr whenever the ACK echoes one, with no Karn
/// test: the echo names the transmission that arrived, and the kernel
/// also resets the backoff on it (tcp_valid_rtt_meas()). Without one,
/// tcp_ack_no_tstamp() returns on FLAG_RETRANS_DATA_ACKED, so seq_rtt
/// only counts when every freed segment was an original, and it is then
/// the oldest of them. The controller gets `ca_seq_rtt`, the newest freed
/// original, and -1 whenever retransmitted data was freed.
///
/// Units: `scb->when` and TSecr are tcp_time_stamp, i.e. jiffies, so
/// with a tick both samples are whole jiffies (`jiffies_since()`).
/// jiffies_to_usecs() is an exact multiplication at HZ = 1000 and 250
/// (USEC_PER_SEC / HZ per jiffy), so the controller's sample is that
/// many whole jiffies. tcp_rtt_estimator() turns a 0-jiffy measurement
/// into 1 jiffy (`if (m == 0) m = 1`), which the engine's microsecond
/// estimator would not, so seq_rtt is at least one tick here. A
/// controller with TCP_CONG_RTT_STAMP (`ca_rtt_stamp`) instead gets
/// ktime_us_delta(ktime_get_real(), skb->tstamp): exact here.
// Out of line: the modern-stack benchmark (m100) never runs it, and
// inlined it spread the per-ACK code over more cache lines; where a run
// takes it per ACK, it adds a call (issue 33, docs/BENCHMARKS.md).
#[inline(never)]
pub fn linux_3_2(a: &OldAck, d: &Delivered) -> OldAckRtt {
    if !a.acked {
        return OldAckRtt::default();
    }
    let (now, tick) = (a.now, a.tick);
    let cum = d.cum_acked_original_sent.filter(|_| !a.retrans_acked);
    // tcp_ack_update_rtt(): "if (tp->rx_opt.saw_tstamp &&
    // tp->rx_opt.rcv_tsecr)" first, then "else if (seq_rtt >= 0)".
    let seq_rtt = match a.tsecr_sent {
        Some(ts) => Some(jiffies_since(ts, now, tick)),
        None => cum.map(|(first, _)| jiffies_since(first, now, tick)),
    }
    .map(|r| r.max(tick));
    let ca_rtt = cum.map(|(_, last)| {
        if a.ca_rtt_stamp {
            now.saturating_sub(last)
        } else {
            jiffies_since(last, now, tick)
        }
    });
    OldAckRtt {
        seq_rtt,
        ca_rtt,
        min_rtt: cum.map(|(_, last)| now.saturating_sub(last)),
    }
}

/// Linux 3.15 to 3.17: tcp_clean_rtx_queue(), tcp_sacktag_one() and
/// tcp_ack_update_rtt() (3.17.0 tcp_input.c), in skb_mstamp microseconds.
///
/// seq_rtt is first_ackt's age, the oldest freed original (SACKed before
/// or not), voided by FLAG_RETRANS_DATA_ACKED; then sack_rtt, the first
/// never-retransmitted skb newly SACKed (tcp_sacktag_one()'s
/// `state->rtt_us`, on any ACK); then, on FLAG_ACKED only, TSecr, still
/// in jiffies (`jiffies_to_usecs(tcp_time_stamp - rcv_tsecr)`). The
/// controller gets ca_seq_rtt_us, last_ackt's age, on every FLAG_ACKED
/// ACK that freed an original, even when other freed data was
/// retransmitted (pkts_acked() is not told FLAG_RETRANS_DATA_ACKED); no
/// SACK sample and no TSecr reach it. `ca_rtt_stamp` does not apply: the
/// flag was removed with the move to skb_mstamp.
// Out of line: the modern-stack benchmark (m100) never runs it, and
// inlined it spread the per-ACK code over more cache lines; where a run
// takes it per ACK, it adds a call (issue 33, docs/BENCHMARKS.md).
#[inline(never)]
pub fn linux_3_15(a: &OldAck, d: &Delivered) -> OldAckRtt {
    let now = a.now;
    let age = |t: Time| now.saturating_sub(t);
    let cum = d.cum_acked_original_sent.filter(|_| a.acked);
    let karn = cum.filter(|_| !a.retrans_acked);
    let seq_rtt = karn
        .map(|(first, _)| age(first))
        .or(d.sacked_original_sent.map(|(first, _)| age(first)))
        .or(a
            .tsecr_sent
            .filter(|_| a.acked)
            .map(|ts| jiffies_since(ts, now, a.tick)));
    OldAckRtt {
        seq_rtt,
        ca_rtt: cum.map(|(_, last)| age(last)),
        min_rtt: karn.map(|(_, last)| age(last)),
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

    // ---- Linux 3.x (`linux-3.2`, `linux-3.15`) ------------------------

    use crate::time::US;

    /// HZ = 1000 and HZ = 250: a jiffy of 1 ms and of 4 ms.
    const HZ1000: Time = MS;
    const HZ250: Time = 4 * MS;

    fn old(now: Time, tick: Time, acked: bool, retrans_acked: bool, ts: Option<Time>) -> OldAck {
        OldAck {
            now,
            tick,
            acked,
            retrans_acked,
            tsecr_sent: ts,
            ca_rtt_stamp: false,
        }
    }

    /// What 3.x reads: the cumulative ACK freed originals sent at
    /// `cum_all` (oldest, newest), SACKed earlier ones included, and newly
    /// SACKed originals `sacked`. The 4.x+ span leaves out the one sent at
    /// 40 ms, which was SACKed before this ACK.
    fn freed(cum_all: Option<(Time, Time)>, sacked: Option<(Time, Time)>) -> Delivered {
        Delivered {
            cum_original_sent: cum_all.map(|(lo, hi)| (lo.max(41 * MS), hi)),
            cum_acked_original_sent: cum_all,
            sacked_original_sent: sacked,
            ..Default::default()
        }
    }

    fn rtts(seq: Option<Time>, ca: Option<Time>, min: Option<Time>) -> OldAckRtt {
        OldAckRtt {
            seq_rtt: seq,
            ca_rtt: ca,
            min_rtt: min,
        }
    }

    const NOW: Time = 142 * MS + 500 * US;

    #[test]
    fn linux_3_2_cumulative_ack_of_originals() {
        // Originals sent at 40 (SACKed before), 41, 42 and 43 ms freed at
        // 142.5 ms; the ACK echoes the TSval of the one sent at 43 ms.
        let d = freed(Some((40 * MS, 43 * MS)), None);
        let ts = Some(43 * MS);
        // No jiffies: seq = 142.5 - 43 = 99.5 (TSecr), ca = 142.5 - 43 =
        // 99.5 (newest freed original), min = 99.5.
        let exact = Some(99 * MS + 500 * US);
        assert_eq!(
            linux_3_2(&old(NOW, 0, true, false, ts), &d),
            rtts(exact, exact, exact)
        );
        // HZ = 1000: tcp_time_stamp = 142, TSecr = scb->when = 43:
        // seq = ca = 142 - 43 = 99 jiffies = 99 ms; min stays exact.
        assert_eq!(
            linux_3_2(&old(NOW, HZ1000, true, false, ts), &d),
            rtts(Some(99 * MS), Some(99 * MS), exact)
        );
        // HZ = 250: 142.5 / 4 = 35 (floor), 43 / 4 = 10: 25 jiffies =
        // 100 ms for both.
        assert_eq!(
            linux_3_2(&old(NOW, HZ250, true, false, ts), &d),
            rtts(Some(100 * MS), Some(100 * MS), exact)
        );
        // TCP_CONG_RTT_STAMP (cubic at HZ < 1000): the controller gets
        // ktime_us_delta(now, skb->tstamp) = 99.5 ms, the estimator still
        // 25 jiffies.
        let stamped = OldAck {
            ca_rtt_stamp: true,
            ..old(NOW, HZ250, true, false, ts)
        };
        assert_eq!(linux_3_2(&stamped, &d), rtts(Some(100 * MS), exact, exact));
        // No timestamps, HZ = 1000: tcp_ack_no_tstamp()'s seq_rtt is the
        // oldest freed original, SACKed before or not: 142 - 40 = 102.
        assert_eq!(
            linux_3_2(&old(NOW, HZ1000, true, false, None), &d),
            rtts(Some(102 * MS), Some(99 * MS), exact)
        );
    }

    #[test]
    fn linux_3_2_ack_of_a_retransmission() {
        // The same originals plus a retransmission sent at 120 ms, whose
        // TSval the ACK echoes. HZ = 1000: the estimator takes TSecr with
        // no Karn test, 142 - 120 = 22 ms; FLAG_RETRANS_DATA_ACKED gives
        // the controller rtt_us = -1 and min_rtt nothing.
        let d = freed(Some((40 * MS, 43 * MS)), None);
        assert_eq!(
            linux_3_2(&old(NOW, HZ1000, true, true, Some(120 * MS)), &d),
            rtts(Some(22 * MS), None, None)
        );
        // HZ = 250: 35 - 30 = 5 jiffies = 20 ms.
        assert_eq!(
            linux_3_2(&old(NOW, HZ250, true, true, Some(120 * MS)), &d),
            rtts(Some(20 * MS), None, None)
        );
        // Without a timestamp tcp_ack_no_tstamp() returns: nothing at all.
        assert_eq!(
            linux_3_2(&old(NOW, HZ1000, true, true, None), &d),
            OldAckRtt::default()
        );
    }

    #[test]
    fn linux_3_2_sack_only_ack_gives_nothing() {
        // Newly SACKed originals sent at 100 and 110 ms, snd_una unchanged,
        // a TSecr of 120 ms: every sample sits under FLAG_ACKED.
        let d = freed(None, Some((100 * MS, 110 * MS)));
        assert_eq!(
            linux_3_2(&old(NOW, HZ1000, false, false, Some(120 * MS)), &d),
            OldAckRtt::default()
        );
    }

    #[test]
    fn linux_3_2_jiffy_rounding() {
        // One original sent at 10.2 ms, freed at 10.9 ms, TSecr its TSval.
        let d = freed(Some((10 * MS + 200 * US, 10 * MS + 200 * US)), None);
        let ts = Some(10 * MS + 200 * US);
        let now = 10 * MS + 900 * US;
        // HZ = 1000: both stamps read jiffy 10: 0 jiffies.
        // tcp_rtt_estimator() makes m = 0 one jiffy (1 ms); the
        // controller gets jiffies_to_usecs(0) = 0; min_rtt 0.7 ms.
        assert_eq!(
            linux_3_2(&old(now, HZ1000, true, false, ts), &d),
            rtts(Some(MS), Some(0), Some(700 * US))
        );
        // HZ = 250: 10.2 / 4 = 2, 10.9 / 4 = 2: 0 jiffies again, so 4 ms
        // and 0. Freed at 12.1 ms instead: 12.1 / 4 = 3, one jiffy =
        // 4 ms for both, where the exact RTT is 1.9 ms.
        assert_eq!(
            linux_3_2(&old(now, HZ250, true, false, ts), &d),
            rtts(Some(4 * MS), Some(0), Some(700 * US))
        );
        let now = 12 * MS + 100 * US;
        assert_eq!(
            linux_3_2(&old(now, HZ250, true, false, ts), &d),
            rtts(Some(4 * MS), Some(4 * MS), Some(MS + 900 * US))
        );
    }

    #[test]
    fn linux_3_15_cumulative_ack_of_originals() {
        // As in linux_3_2_cumulative_ack_of_originals, HZ = 1000. seq_rtt
        // is first_ackt's age in microseconds, the original sent at 40 ms
        // that was SACKed before: 142.5 - 40 = 102.5 ms (TSecr unused).
        // ca = 142.5 - 43 = 99.5 = min.
        let d = freed(Some((40 * MS, 43 * MS)), None);
        let exact = Some(99 * MS + 500 * US);
        assert_eq!(
            linux_3_15(&old(NOW, HZ1000, true, false, Some(43 * MS)), &d),
            rtts(Some(102 * MS + 500 * US), exact, exact)
        );
        // Linux 4.x+ leaves the SACKed one out: 142.5 - 41 = 101.5.
        assert_eq!(
            linux(NOW, &d, true, false, Some(99 * MS)).map(|s| s.seq_rtt),
            Some(101 * MS + 500 * US)
        );
    }

    #[test]
    fn linux_3_15_ack_of_a_retransmission() {
        let d = freed(Some((40 * MS, 43 * MS)), None);
        let ca = Some(99 * MS + 500 * US);
        // FLAG_RETRANS_DATA_ACKED voids seq_rtt; no SACK sample; TSecr
        // (retransmission sent at 120 ms) in jiffies: HZ = 1000, 142 -
        // 120 = 22 ms; HZ = 250, 35 - 30 = 5 jiffies = 20 ms; no jiffies,
        // 22.5 ms. The controller still gets last_ackt's age, 99.5 ms;
        // min_rtt (Karn) nothing.
        for (tick, seq) in [(HZ1000, 22 * MS), (HZ250, 20 * MS), (0, 22 * MS + 500 * US)] {
            assert_eq!(
                linux_3_15(&old(NOW, tick, true, true, Some(120 * MS)), &d),
                rtts(Some(seq), ca, None),
                "tick {tick}"
            );
        }
        // A SACK part (originals sent at 100 and 110 ms) comes first:
        // sack_rtt = 142.5 - 100 = 42.5 ms.
        let d = freed(Some((40 * MS, 43 * MS)), Some((100 * MS, 110 * MS)));
        assert_eq!(
            linux_3_15(&old(NOW, HZ1000, true, true, Some(120 * MS)), &d),
            rtts(Some(42 * MS + 500 * US), ca, None)
        );
        // No timestamp and no SACK: the estimator gets nothing, the
        // controller its 99.5 ms all the same.
        let d = freed(Some((40 * MS, 43 * MS)), None);
        assert_eq!(
            linux_3_15(&old(NOW, HZ1000, true, true, None), &d),
            rtts(None, ca, None)
        );
    }

    #[test]
    fn linux_3_15_sack_only_ack() {
        // snd_una unchanged; originals sent at 100 and 110 ms newly SACKed:
        // sack_rtt = 142.5 - 100 = 42.5 ms for the estimator, nothing for
        // the controller (pkts_acked() needs FLAG_ACKED) or min_rtt.
        let d = freed(None, Some((100 * MS, 110 * MS)));
        assert_eq!(
            linux_3_15(&old(NOW, HZ1000, false, false, Some(120 * MS)), &d),
            rtts(Some(42 * MS + 500 * US), None, None)
        );
        // Without a SACK sample TSecr would need FLAG_ACKED: nothing.
        assert_eq!(
            linux_3_15(
                &old(NOW, HZ1000, false, false, Some(120 * MS)),
                &freed(None, None)
            ),
            OldAckRtt::default()
        );
    }

    #[test]
    fn linux_3_15_jiffy_rounding() {
        // Only the TSecr fallback is in jiffies. A retransmission sent at
        // 10.2 ms, acked at 10.9 ms: HZ = 1000, jiffy 10 - 10 = 0 and
        // jiffies_to_usecs(0) = 0 (3.15's microsecond estimator has no
        // `m == 0` fix); HZ = 250, 2 - 2 = 0. Acked at 12.1 ms instead:
        // HZ = 1000, 12 - 10 = 2 ms; HZ = 250, 3 - 2 = 1 jiffy = 4 ms.
        let d = freed(None, None);
        let ts = Some(10 * MS + 200 * US);
        for (now, tick, seq) in [
            (10 * MS + 900 * US, HZ1000, 0),
            (10 * MS + 900 * US, HZ250, 0),
            (12 * MS + 100 * US, HZ1000, 2 * MS),
            (12 * MS + 100 * US, HZ250, 4 * MS),
        ] {
            assert_eq!(
                linux_3_15(&old(now, tick, true, true, ts), &d),
                rtts(Some(seq), None, None),
                "now {now} tick {tick}"
            );
        }
    }
}
