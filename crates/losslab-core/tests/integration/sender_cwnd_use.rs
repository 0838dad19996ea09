//! `cwnd_validation` on a sender driven by hand-made ACKs: which send
//! bursts renew the per-window record (Linux tcp_cwnd_validate(), called
//! from tcp_write_xmit() only, and before 5.11 only when it sent data).

use losslab_core::cwnd_use::CwndUse;
use losslab_core::time::MS;
use losslab_core::{Algorithms, CwndValidation, Sender, SenderConfig};

use crate::common;

use common::{ack, bytes_config, send_all, MSS};

/// Fifteen segments, cwnd fixed at 10 (`max_cwnd`). Segments 0..9 at 0
/// ms; the cumulative ACKs of 1..5 at 100-140 ms each let one new segment
/// out (10..14: the flight stays at 10, the record's largest). At 200 ms
/// everything below segment 10 is acknowledged and 11 is SACKed; segment
/// 10 was lost, and the SACKs of 12 and 13 at 210 and 220 ms start a fast
/// recovery (three segments SACKed above it) whose only transmission is
/// segment 10 again.
fn run(rule: CwndValidation) -> Vec<(u64, CwndUse)> {
    let cfg = SenderConfig {
        max_cwnd: 10,
        cwnd_validation: rule,
        ..bytes_config(15, 10)
    };
    let alg = Algorithms::by_name("newreno", "prr", "dupthresh", "rto", 3).unwrap();
    let mut s = Sender::new(cfg, alg, 0);
    let mut log = Vec::new();
    assert_eq!(send_all(&mut s, 0).len(), 10);
    log.push((0, s.cwnd_use()));
    for (i, cum) in (1..=5).enumerate() {
        let t = (100 + 10 * i as u64) * MS;
        s.on_ack(t, &ack(cum, &[], 0));
        assert_eq!(send_all(&mut s, t).len(), 1);
        log.push((t, s.cwnd_use()));
    }
    for (t, top) in [(200, 12), (210, 13), (220, 14)] {
        s.on_ack(t * MS, &ack(10, &[(11, top)], 0));
        let sent = send_all(&mut s, t * MS);
        if t == 220 {
            let what: Vec<_> = sent.iter().map(|x| (x.seq / MSS, x.tx_count)).collect();
            assert_eq!(what, [(10, 2)], "only the retransmission");
        } else {
            assert!(sent.is_empty(), "{t} ms: {sent:?}");
        }
        log.push((t * MS, s.cwnd_use()));
    }
    log
}

#[test]
fn before_5_11_only_bursts_of_new_data_renew_the_record() {
    // 3.16 and 4.3: the first burst (snd_una 0 at the edge 0) renews it,
    // cwnd-limited with data queued; the bursts of one new segment each
    // neither pass the edge (10 segments) nor exceed the largest flight;
    // from 200 ms snd_una is at the edge, but no burst sends new data,
    // the retransmission included, so the record stays.
    let first = CwndUse {
        max_packets_out: 10,
        usage_seq: 10 * MSS,
        is_limited: true,
    };
    for rule in [CwndValidation::Linux316, CwndValidation::Linux43] {
        for (t, u) in run(rule) {
            assert_eq!(u, first, "{rule:?} at {t}");
        }
    }
}

#[test]
fn since_the_2022_fix_a_cwnd_limited_burst_renews_inside_the_window() {
    // `linux`: each burst at 100-130 ms fills cwnd with data still queued
    // and renews the record at its snd_nxt; the one at 140 ms sends the
    // last segment and is not cwnd-limited (nothing left), and snd_una
    // never reaches 14 segments, so the record stays from there on.
    let log = run(CwndValidation::Linux);
    let limited_at = |seq: u64| CwndUse {
        max_packets_out: 10,
        usage_seq: seq * MSS,
        is_limited: true,
    };
    let want = [10, 11, 12, 13, 14, 14, 14, 14, 14];
    let got: Vec<_> = log.iter().map(|x| x.1).collect();
    let want: Vec<_> = want.iter().map(|&s| limited_at(s)).collect();
    assert_eq!(got, want);
}
