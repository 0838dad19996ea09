//! The sender's own detection features, driven by hand-made ACKs: the
//! reordering signal, lost-retransmission detection and DSACK-based undo.

use losslab_core::app::App;
use losslab_core::time::MS;
use losslab_core::{Algorithms, Sender, SenderConfig};

use crate::common;

use common::{ack, bytes_sender, send_all, MSS};

fn sender(segments: u64, detection: &str) -> Sender {
    bytes_sender(segments, 20, "newreno", "rfc6675", detection)
}

#[test]
fn a_segment_delivered_below_a_sacked_one_is_reordering() {
    let mut s = sender(10, "dupthresh");
    send_all(&mut s, 0);
    s.on_ack(100 * MS, &ack(0, &[(5, 6)], 1));
    assert!(!s.reordering_seen());
    // Segment 3, sent once and before 5, arrives after it.
    s.on_ack(101 * MS, &ack(0, &[(3, 4), (5, 6)], 1));
    assert!(s.reordering_seen());
    assert_eq!(s.stats().reordering_events, 1);
}

#[test]
fn in_order_and_lost_then_retransmitted_segments_are_not_reordering() {
    let mut s = sender(10, "dupthresh");
    send_all(&mut s, 0);
    s.on_ack(100 * MS, &ack(2, &[], 1));
    for k in 3..6 {
        s.on_ack(100 * MS + k, &ack(2, &[(3, k + 1)], 1));
    }
    // Segment 2 was declared lost and retransmitted; its arrival (the
    // cumulative ACK jumps) is not reordering.
    assert!(s.in_recovery());
    let rtx = send_all(&mut s, 101 * MS);
    assert_eq!(rtx[0].seg_no, 2);
    s.on_ack(150 * MS, &ack(6, &[], 1));
    assert!(!s.reordering_seen());
}

/// Segments 0..10 out; segment 0 late: SACKs of 1, 2, 3 start a fast
/// recovery that retransmits it. Returns the sender at 110 ms.
fn spurious_fast_retransmit(detection: &str) -> Sender {
    let mut s = sender(10, detection);
    assert_eq!(send_all(&mut s, 0).len(), 10);
    for k in 1..4 {
        s.on_ack(100 * MS + k, &ack(0, &[(1, k + 1)], 1));
    }
    assert!(s.in_recovery());
    assert_eq!(s.recoveries()[0].cwnd_before, 20);
    let rtx = send_all(&mut s, 100 * MS + 3);
    assert_eq!((rtx[0].seg_no, rtx[0].tx_count), (0, 2));
    s
}

#[test]
fn dsack_of_the_only_retransmission_undoes_the_reduction() {
    let mut s = spurious_fast_retransmit("dupthresh");
    let reduced = s.window();
    assert!(reduced.cwnd < 20 && reduced.ssthresh < 20, "{reduced:?}");
    // The original arrives late: everything is acknowledged; recovery ends
    // with the reduced window.
    s.on_ack(105 * MS, &ack(10, &[], 1));
    assert!(!s.in_recovery());
    assert_eq!(s.stats().undos, 0);
    // Then the retransmission arrives: the receiver reports a duplicate.
    s.on_ack(200 * MS, &ack(10, &[(0, 1)], 1));
    assert_eq!(s.stats().dsacks_received, 1);
    assert_eq!(s.stats().undos, 1);
    let w = s.window();
    assert_eq!(w.cwnd, 20, "cwnd back to its value before the reduction");
    assert!(w.ssthresh > 20, "ssthresh back to 'infinite' (slow start)");
    assert!(s.recoveries()[0].undone);
    // Sent once, retransmitted because it was declared lost, received
    // twice: that is reordering too.
    assert!(s.reordering_seen());
    // A duplicated ACK cannot undo twice.
    s.on_ack(201 * MS, &ack(10, &[(0, 1)], 1));
    assert_eq!(s.stats().undos, 1);
}

#[test]
fn undo_during_recovery_leaves_recovery() {
    let mut s = spurious_fast_retransmit("dupthresh");
    // The original of 0 and the SACKed data so far arrive; RecoveryPoint
    // (segment 10) is still ahead.
    s.on_ack(104 * MS, &ack(4, &[], 1));
    assert!(s.in_recovery());
    // The DSACK of segment 0, inside the window.
    s.on_ack(106 * MS, &ack(4, &[(0, 1)], 1));
    assert_eq!(s.stats().undos, 1);
    assert!(!s.in_recovery());
    assert_eq!(s.window().cwnd, 20);
    assert_eq!(s.recoveries()[0].cwnd_after, Some(20));
}

#[test]
fn a_dsack_for_one_of_two_retransmissions_is_not_enough() {
    // Segment 0 is late and segment 1 lost: SACKs of 2, 3, 4 make both
    // lost by IsLost(); with 2..7 SACKed, pipe (10 - 6 SACKed - 2 lost + 1
    // retransmitted = 3) is below cwnd (5) and both are retransmitted.
    let mut s = sender(10, "dupthresh");
    assert_eq!(send_all(&mut s, 0).len(), 10);
    for k in 2..8 {
        s.on_ack(100 * MS + k, &ack(0, &[(2, k + 1)], 1));
    }
    let rtx: Vec<u64> = send_all(&mut s, 105 * MS)
        .iter()
        .filter(|x| x.tx_count > 1)
        .map(|x| x.seg_no)
        .collect();
    assert_eq!(rtx, vec![0, 1]);
    // The original of 0 arrives, then its retransmission: a DSACK for one
    // of the episode's two retransmissions. Segment 1's was needed.
    s.on_ack(110 * MS, &ack(1, &[(2, 8)], 1));
    s.on_ack(200 * MS, &ack(1, &[(0, 1), (2, 8)], 1));
    assert_eq!(s.stats().dsacks_received, 1);
    assert_eq!(s.stats().undos, 0);
    s.on_ack(201 * MS, &ack(10, &[], 1));
    assert_eq!(s.stats().undos, 0);
    assert!(!s.recoveries()[0].undone);
}

#[test]
fn no_undo_with_dsack_undo_off() {
    let cfg = SenderConfig {
        mss: MSS as u32,
        init_cwnd: 20,
        app: App::Bytes(10 * MSS),
        initial_rwnd: 1 << 20,
        dsack_undo: false,
        ..SenderConfig::default()
    };
    let alg = Algorithms::by_name("newreno", "rfc6675", "dupthresh", "rto", 3).unwrap();
    let mut s = Sender::new(cfg, alg, 0);
    send_all(&mut s, 0);
    for k in 1..4 {
        s.on_ack(100 * MS + k, &ack(0, &[(1, k + 1)], 1));
    }
    send_all(&mut s, 100 * MS + 3);
    s.on_ack(105 * MS, &ack(10, &[], 1));
    s.on_ack(200 * MS, &ack(10, &[(0, 1)], 1));
    assert_eq!(s.stats().undos, 0);
    assert!(s.window().cwnd < 20);
}

#[test]
fn a_retransmission_overtaken_by_new_data_is_lost_again() {
    // 30 segments to send, 20 at first; segment 0 lost.
    let mut s = sender(30, "dupthresh");
    assert_eq!(send_all(&mut s, 0).len(), 20);
    for k in 1..4 {
        s.on_ack(100 * MS + k, &ack(0, &[(1, k + 1)], 1));
    }
    let out = send_all(&mut s, 100 * MS + 3);
    assert_eq!((out[0].seg_no, out[0].tx_count), (0, 2));
    // More SACKs let new data (segments 20..) out after the retransmission.
    let mut sent_new = vec![];
    for k in 4..20 {
        s.on_ack(100 * MS + k, &ack(0, &[(1, k + 1)], 1));
        sent_new.extend(send_all(&mut s, 100 * MS + k));
    }
    let first_new = sent_new.iter().find(|x| x.tx_count == 1).expect("new data");
    assert!(first_new.tx_order > out[0].tx_order);
    assert_eq!(s.stats().lost_retransmissions, 0);
    // That new segment is SACKed while 0's retransmission is not: lost.
    let n = first_new.seg_no;
    s.on_ack(200 * MS, &ack(0, &[(n, n + 1), (1, 20)], 1));
    assert_eq!(s.stats().lost_retransmissions, 1);
    let again = send_all(&mut s, 200 * MS);
    assert_eq!((again[0].seg_no, again[0].tx_count), (0, 3));
}

#[test]
fn lost_retransmission_detection_can_be_switched_off() {
    let cfg = SenderConfig {
        mss: MSS as u32,
        init_cwnd: 20,
        app: App::Bytes(30 * MSS),
        initial_rwnd: 1 << 20,
        lost_retransmission_detection: false,
        ..SenderConfig::default()
    };
    let alg = Algorithms::by_name("newreno", "rfc6675", "dupthresh", "rto", 3).unwrap();
    let mut s = Sender::new(cfg, alg, 0);
    send_all(&mut s, 0);
    for k in 1..20 {
        s.on_ack(100 * MS + k, &ack(0, &[(1, k + 1)], 1));
        send_all(&mut s, 100 * MS + k);
    }
    s.on_ack(200 * MS, &ack(0, &[(20, 21), (1, 20)], 1));
    assert_eq!(s.stats().lost_retransmissions, 0);
    assert!(send_all(&mut s, 200 * MS).iter().all(|x| x.seg_no != 0));
}
