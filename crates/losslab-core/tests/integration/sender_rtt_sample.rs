//! `rtt_sample` and `cwnd_growth` on a sender driven by hand-made ACKs:
//! which ACKs give the estimator and min_rtt a sample, and which grow cwnd.

use losslab_core::time::{Time, MS};
use losslab_core::{Algorithms, CwndGrowth, RttSampling, Sender, SenderConfig};

use crate::common;

use common::{ack, bytes_config, send_all};

fn sender(segments: u64, rtt_sample: RttSampling, cwnd_growth: CwndGrowth) -> Sender {
    let cfg = SenderConfig {
        rtt_sample,
        cwnd_growth,
        ..bytes_config(segments, 10)
    };
    let alg = Algorithms::by_name("newreno", "rfc6675", "dupthresh", "rto", 3).unwrap();
    Sender::new(cfg, alg, 0)
}

/// Sends one segment at each of `times`; returns their TSvals.
fn send_at(s: &mut Sender, times: &[Time]) -> Vec<Time> {
    times
        .iter()
        .map(|&t| s.poll_transmit(t).expect("window open").ts_val)
        .collect()
}

/// Segments 0..5 sent at 5, 7, 10, 20 and 30 ms; at 110 ms an ACK of
/// segment 0 (cumulative) that SACKs segments 2..5, echoing segment 0's
/// TSval.
fn mixed_ack(rtt_sample: RttSampling) -> Sender {
    let mut s = sender(5, rtt_sample, CwndGrowth::Rfc5681);
    let ts = send_at(&mut s, &[5 * MS, 7 * MS, 10 * MS, 20 * MS, 30 * MS]);
    s.on_ack(110 * MS, &ack(1, &[(2, 5)], ts[0]));
    s
}

#[test]
fn linux_times_the_estimator_from_the_oldest_and_min_rtt_from_the_newest() {
    // Linux: seq_rtt = now - first_ackt = 110 - 5 = 105 ms (segment 0,
    // cumulatively acked); ca_rtt = now - last_sackt = 110 - 30 = 80 ms
    // (segment 4, the newest SACKed). The first sample sets SRTT = 105 ms
    // (RFC 6298 2.2); min_rtt = 80 ms; the stats record the estimator's.
    let s = mixed_ack(RttSampling::Linux);
    assert_eq!(s.rtt().srtt(), Some(105 * MS));
    assert_eq!(s.rtt().latest(), Some(105 * MS));
    assert_eq!(s.rtt().min_rtt(), Some(80 * MS));
    assert_eq!(s.stats().rtt.count(), 1);
    assert_eq!(s.stats().rtt.max(), Some(105 * MS));
    // TSecr: now + 1 - TSecr = 110 + 1 - (5 + 1) = 105 ms for both.
    let s = mixed_ack(RttSampling::Tsecr);
    assert_eq!(s.rtt().srtt(), Some(105 * MS));
    assert_eq!(s.rtt().min_rtt(), Some(105 * MS));
}

#[test]
fn a_sack_only_ack_gives_a_sample_with_linux_and_none_with_tsecr() {
    // Segment 0 sent at 0 ms, segments 1..4 at 10, 11, 12 ms. At 100 ms
    // an ACK SACKs segments 1 and 2 (no cumulative advance), echoing
    // segment 2's TSval. Linux: sack_rtt = 100 - 10 = 90 ms for the
    // estimator (first_sackt), ca_rtt = 100 - 11 = 89 ms for min_rtt.
    for (mode, want) in [
        (RttSampling::Linux, Some((90 * MS, 89 * MS))),
        (RttSampling::Tsecr, None),
    ] {
        let mut s = sender(4, mode, CwndGrowth::Rfc5681);
        let ts = send_at(&mut s, &[0, 10 * MS, 11 * MS, 12 * MS]);
        s.on_ack(100 * MS, &ack(0, &[(1, 3)], ts[2]));
        let got = s.rtt().srtt().zip(s.rtt().min_rtt());
        assert_eq!(got, want, "{mode:?}");
        assert_eq!(s.stats().rtt.count(), u64::from(want.is_some()), "{mode:?}");
    }
}

#[test]
fn retransmitted_data_falls_back_to_tsecr_with_linux_only() {
    // Segments 0..5 at 0 ms; SACKs of 1, 1..2, 1..3 at 100, 101, 102 ms
    // start a fast recovery that retransmits segment 0 at 102 ms. At 152
    // ms the cumulative ACK of everything echoes the retransmission's
    // TSval (102 ms + 1). It newly delivers only segment 0, retransmitted
    // (FLAG_RETRANS_DATA_ACKED), and SACKs nothing: no seq_rtt, no
    // sack_rtt, so Linux takes TSecr: 152 + 1 - (102 + 1) = 50 ms. Karn's
    // rule ("tsecr") takes nothing.
    for mode in [RttSampling::Linux, RttSampling::Tsecr] {
        let mut s = sender(5, mode, CwndGrowth::Rfc5681);
        assert_eq!(send_all(&mut s, 0).len(), 5);
        for k in 1..4 {
            s.on_ack(100 * MS + (k - 1) * MS, &ack(0, &[(1, k + 1)], 1));
        }
        assert!(s.in_recovery(), "{mode:?}");
        let rtx = send_all(&mut s, 102 * MS);
        assert_eq!((rtx[0].seg_no, rtx[0].tx_count), (0, 2));
        let before = s.stats().rtt.count();
        s.on_ack(152 * MS, &ack(5, &[], rtx[0].ts_val));
        let after = s.stats().rtt.count();
        match mode {
            RttSampling::Linux => {
                assert_eq!(after, before + 1);
                assert_eq!(s.rtt().latest(), Some(50 * MS));
            }
            _ => assert_eq!(after, before),
        }
    }
}

#[test]
fn linux_3x_take_tsecr_from_an_ack_of_a_retransmission_but_min_rtt_nothing() {
    // The recovery of retransmitted_data_falls_back_to_tsecr_with_linux_only.
    // The three SACK-only ACKs: "linux-3.2" samples only on FLAG_ACKED,
    // so none; "linux-3.15" takes sack_rtt from each newly SACKed
    // original (sent at 0): 100, 101 and 102 ms, for the estimator only.
    // The final ACK frees segment 0 (retransmitted) and 1..4 (originals
    // SACKed before): 3.2 takes TSecr, 152 + 1 - 103 = 50 ms, without
    // Karn's test; 3.15 voids seq_rtt (FLAG_RETRANS_DATA_ACKED), has no
    // new SACK, and falls back to the same TSecr. min_rtt never had a
    // Karn-clean sample: None, though the estimator has samples.
    for (mode, sack_samples) in [(RttSampling::Linux32, 0), (RttSampling::Linux315, 3)] {
        let mut s = sender(5, mode, CwndGrowth::Rfc5681);
        assert_eq!(send_all(&mut s, 0).len(), 5);
        for k in 1..4 {
            s.on_ack(100 * MS + (k - 1) * MS, &ack(0, &[(1, k + 1)], 1));
        }
        assert_eq!(s.stats().rtt.count(), sack_samples, "{mode:?}");
        if sack_samples > 0 {
            assert_eq!(s.stats().rtt.max(), Some(102 * MS));
        }
        let rtx = send_all(&mut s, 102 * MS);
        assert_eq!((rtx[0].seg_no, rtx[0].tx_count), (0, 2));
        s.on_ack(152 * MS, &ack(5, &[], rtx[0].ts_val));
        assert_eq!(s.stats().rtt.count(), sack_samples + 1, "{mode:?}");
        assert_eq!(s.rtt().latest(), Some(50 * MS), "{mode:?}");
        assert_eq!(s.rtt().min_rtt(), None, "{mode:?}");
    }
}

#[test]
fn linux_3_2_counts_whole_jiffies_of_the_flow_tick() {
    // HZ = 250 (a 4 ms tick). Segments 0..2 sent at 1 ms (TSval 1 ms +
    // 1); at 102.5 ms the ACK of both echoes it. tcp_time_stamp = 102.5 /
    // 4 = 25 jiffies, TSecr = 1 / 4 = 0: 25 jiffies = 100 ms for the
    // estimator (its first sample, so SRTT = 100 ms); min_rtt the exact
    // 101.5 ms. "linux-3.15" takes first_ackt's exact age, 101.5 ms.
    for (mode, seq) in [
        (RttSampling::Linux32, 100 * MS),
        (RttSampling::Linux315, 101 * MS + 500_000),
    ] {
        let mut cfg = SenderConfig {
            rtt_sample: mode,
            ..bytes_config(2, 10)
        };
        cfg.rto.tick = 4 * MS;
        let alg = Algorithms::by_name("newreno", "rfc6675", "dupthresh", "rto", 3).unwrap();
        let mut s = Sender::new(cfg, alg, 0);
        let ts = send_at(&mut s, &[MS, MS]);
        s.on_ack(102 * MS + 500_000, &ack(2, &[], ts[0]));
        assert_eq!(s.rtt().latest(), Some(seq), "{mode:?}");
        assert_eq!(s.rtt().srtt(), Some(seq), "{mode:?}");
        assert_eq!(s.rtt().min_rtt(), Some(101 * MS + 500_000), "{mode:?}");
    }
}

/// Ten segments out at 0 ms (cwnd 10, slow start). At 100 ms an ACK
/// SACKs segment 5; at 101 ms one SACKs segment `late` as well, sent
/// before 5 and delivered after it: reordering of degree fack - late =
/// 6 - late (Linux tcp_check_sack_reordering()). Neither ACK advances
/// the cumulative ACK; returns cwnd after each.
fn sack_only_growth(late: u64, growth: CwndGrowth) -> (u32, u64, u64) {
    let mut s = sender(10, RttSampling::Tsecr, growth);
    assert_eq!(send_all(&mut s, 0).len(), 10);
    s.on_ack(100 * MS, &ack(0, &[(5, 6)], 1));
    let first = s.window().cwnd;
    s.on_ack(101 * MS, &ack(0, &[(late, late + 1), (5, 6)], 1));
    assert!(!s.in_recovery());
    (s.reordering(), first, s.window().cwnd)
}

#[test]
fn linux_grows_cwnd_on_a_sack_only_ack_once_reordering_exceeds_three() {
    // Segment 2 late: degree 6 - 2 = 4 > sysctl_tcp_reordering (3), so
    // tcp_may_raise_cwnd() takes FLAG_FORWARD_PROGRESS: the ACK that SACKs
    // it (1 segment delivered) grows cwnd 10 -> 11 in slow start. The
    // first SACK, before any reordering, did not.
    assert_eq!(sack_only_growth(2, CwndGrowth::Linux), (4, 10, 11));
    // Segment 3 late: degree 3, not above 3: FLAG_DATA_ACKED only, no
    // growth.
    assert_eq!(sack_only_growth(3, CwndGrowth::Linux), (3, 10, 10));
    // RFC 5681 (the default): never on a SACK-only ACK.
    assert_eq!(sack_only_growth(2, CwndGrowth::Rfc5681), (4, 10, 10));
}
