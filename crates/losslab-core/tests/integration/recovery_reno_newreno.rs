//! Reno (RFC 5681 section 3.2) and NewReno (RFC 6582 section 3.2) without
//! SACK, driven by hand-made ACKs so that every number can be checked
//! against the RFC text.
//!
//! The case: 20 segments, cwnd 10, segments 0 and 5 lost, quick ACKs.
//! Duplicate ACKs 1 and 2 (segments 1, 2 arriving) send 10 and 11 by
//! limited transmit (RFC 3042); the third (segment 3) fast-retransmits 0
//! with ssthresh = max(10 / 2, 2) = 5 (limited transmit excluded, RFC
//! 5681 step 2). Segments 4 and 6-11 bring seven more: n = 10 duplicate
//! ACKs in all. RFC 5681 sends while FlightSize 12 < ssthresh + n, so at
//! n = 8, 9, 10: segments 12, 13, 14.

use losslab_core::app::App;
use losslab_core::cc::CcParams;
use losslab_core::detect::DetectParams;
use losslab_core::recovery::{NewRenoVariant, RecoveryParams};
use losslab_core::time::MS;
use losslab_core::timers::TimerParams;
use losslab_core::{Algorithms, Sender, SenderConfig};

use crate::common;

use common::{ack, MSS};

fn sender(recovery: &str) -> Sender {
    let cfg = SenderConfig {
        mss: MSS as u32,
        init_cwnd: 10,
        app: App::Bytes(20 * MSS),
        initial_rwnd: 1 << 20,
        ..SenderConfig::default()
    };
    let alg = Algorithms::by_name("newreno", recovery, "dupthresh", "rto", 3).unwrap();
    Sender::new(cfg, alg, 0)
}

fn send_all(s: &mut Sender, now: u64) -> Vec<u64> {
    common::send_all(s, now).iter().map(|x| x.seg_no).collect()
}

/// Runs the case up to the ACK of 0's retransmission, a partial ACK of
/// 0-4, and returns what the sender sends on it.
fn up_to_the_partial_ack(s: &mut Sender) -> Vec<u64> {
    assert_eq!(send_all(s, 0), (0..10).collect::<Vec<_>>());
    let mut sent = vec![];
    for (n, t) in (1..=10u64).zip(41..) {
        s.on_ack(t * MS, &ack(0, &[], 1));
        sent.push(send_all(s, t * MS));
        if n == 3 {
            assert!(s.in_recovery());
            assert_eq!(s.window().ssthresh, 5);
            assert_eq!(
                s.window().cwnd,
                5,
                "cwnd = ssthresh; the 3 dupacks are the inflation"
            );
        }
    }
    let want: Vec<Vec<u64>> = vec![
        vec![10],
        vec![11],
        vec![0],
        vec![],
        vec![],
        vec![],
        vec![],
        vec![12],
        vec![13],
        vec![14],
    ];
    assert_eq!(sent, want);
    s.on_ack(90 * MS, &ack(5, &[], 1));
    send_all(s, 90 * MS)
}

#[test]
fn reno_leaves_on_the_partial_ack_and_needs_three_new_dupacks() {
    let mut s = sender("reno");
    // RFC 5681 step 6: the ACK of new data deflates cwnd to ssthresh and
    // ends recovery; FlightSize 10 (5-14) >= cwnd 5 sends nothing, and
    // segment 5 is not retransmitted.
    assert_eq!(up_to_the_partial_ack(&mut s), Vec::<u64>::new());
    assert!(!s.in_recovery());
    assert_eq!(s.window().cwnd, 5);
    assert_eq!(s.pipe(), 10, "the duplicates no longer count as delivered");
    // 12, 13, 14 arrive above the hole at 5: the first two duplicate ACKs
    // send nothing (limited transmit only while FlightSize <= cwnd + 2,
    // RFC 3042 section 2: 10 > 7), the third is a new fast retransmit of
    // 5 (RFC 5681 keeps no recovery point to forbid it), ssthresh =
    // max(10 / 2, 2) = 5 again.
    let mut sent = vec![];
    for t in 91..94 {
        s.on_ack(t * MS, &ack(5, &[], 1));
        sent.push(send_all(&mut s, t * MS));
    }
    assert_eq!(sent, vec![vec![], vec![], vec![5]]);
    assert!(s.in_recovery());
    assert_eq!(s.stats().fast_recoveries, 2);
    assert_eq!(s.stats().retransmissions, 2);
    assert_eq!(s.window().ssthresh, 5);
}

#[test]
fn newreno_retransmits_the_next_hole_on_the_partial_ack() {
    let mut s = sender("newreno");
    // RFC 6582 step 4: retransmit 5; cwnd = 5 + 10 - 5 + 1 = 11 against
    // FlightSize 10 leaves room for one new segment, 15. The engine: pipe
    // = 10 segments out - (10 - 4) duplicates still counted = 4 with 5
    // resent, < cwnd 5: the same one new segment.
    assert_eq!(up_to_the_partial_ack(&mut s), vec![5, 15]);
    assert!(s.in_recovery());
    assert_eq!(s.window().cwnd, 5);
    assert_eq!(s.stats().fast_recoveries, 1);
    // The full ACK (5's retransmission fills the last hole; 6-15 are
    // there): pipe 0, so cwnd = min(5, max(0, 1) + 1) = 2 (option 1).
    s.on_ack(130 * MS, &ack(16, &[], 1));
    assert!(!s.in_recovery());
    let r = s.recoveries().last().unwrap();
    assert_eq!(r.cwnd_after, Some(2), "option (1); rfc6675 leaves 5");
    // Slow start resumes from there on the same ACK (ssthresh 5).
    assert!(s.window().cwnd <= 5);
    assert_eq!(s.stats().retransmissions, 2);
}

fn newreno_with(variant: NewRenoVariant) -> Sender {
    let cfg = SenderConfig {
        mss: MSS as u32,
        init_cwnd: 10,
        app: App::Bytes(20 * MSS),
        initial_rwnd: 1 << 20,
        ..SenderConfig::default()
    };
    let alg = Algorithms::by_name_with(
        "newreno",
        "newreno",
        "dupthresh",
        "rto",
        &DetectParams::default(),
        &TimerParams::default(),
        &CcParams::default(),
        &RecoveryParams {
            newreno_variant: variant,
            ..RecoveryParams::default()
        },
    )
    .unwrap();
    Sender::new(cfg, alg, 0)
}

#[test]
fn impatient_restarts_the_rto_on_the_first_partial_ack_only() {
    // Segments 0, 2 and 4 lost of 0-9. Three duplicate ACKs (1, 3, 5)
    // fast-retransmit 0; its ACK covers 0-1 (first partial ACK, 2 is
    // resent at once although pipe = 10 out - 1 lost - 2 duplicates still
    // counted = 7 >= cwnd 5: step 4 retransmits whatever cwnd says), the
    // next covers 2-3 (second partial ACK, 4 is resent).
    // RFC 6298 (5.3), slow-but-steady: each restarts the RTO. Impatient
    // (RFC 6582 3.2 step 4): only the first does; the second leaves the
    // deadline where the first put it.
    let mut deadlines = vec![];
    for variant in [NewRenoVariant::SlowButSteady, NewRenoVariant::Impatient] {
        let mut s = newreno_with(variant);
        assert_eq!(send_all(&mut s, 0).len(), 10);
        for t in 41..44 {
            s.on_ack(t * MS, &ack(0, &[], 1));
            send_all(&mut s, t * MS);
        }
        assert!(s.in_recovery());
        s.on_ack(100 * MS, &ack(2, &[], 1));
        assert!(send_all(&mut s, 100 * MS).contains(&2));
        let first = s.poll_timeout().unwrap();
        s.on_ack(150 * MS, &ack(4, &[], 1));
        assert!(send_all(&mut s, 150 * MS).contains(&4));
        assert!(s.in_recovery());
        deadlines.push((first, s.poll_timeout().unwrap()));
    }
    let [(steady_first, steady_second), (impatient_first, impatient_second)] = deadlines[..] else {
        unreachable!()
    };
    assert_eq!(steady_first, impatient_first);
    assert_eq!(steady_second, steady_first + 50 * MS);
    assert_eq!(impatient_second, impatient_first);
}
