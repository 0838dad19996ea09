//! Regression tests for the defects the RFC audit of issue 10 found, each
//! driven by hand-made ACKs so the numbers can be checked against the RFC
//! text by hand.

use losslab_core::app::App;
use losslab_core::time::MS;
use losslab_core::wire::{Ack, Range, SackBlocks, Segment};
use losslab_core::{Algorithms, Sender, SenderConfig};

const MSS: u64 = 1000;

fn sender_with(segments: u64, init_cwnd: u64, alg: Algorithms) -> Sender {
    let cfg = SenderConfig {
        mss: MSS as u32,
        init_cwnd,
        app: App::Bytes(segments * MSS),
        initial_rwnd: 1 << 20,
        ..SenderConfig::default()
    };
    Sender::new(cfg, alg, 0)
}

fn sender(segments: u64, init_cwnd: u64, recovery: &str, detection: &str) -> Sender {
    let alg = Algorithms::by_name("newreno", recovery, detection, "rto", 3).unwrap();
    sender_with(segments, init_cwnd, alg)
}

fn send_all(s: &mut Sender, now: u64) -> Vec<u64> {
    std::iter::from_fn(|| s.poll_transmit(now))
        .map(|seg: Segment| seg.seg_no)
        .collect()
}

/// An ACK up to segment `cum` (exclusive) with SACK blocks of segment
/// ranges, echoing `ts_ecr`.
fn ack(cum: u64, blocks: &[(u64, u64)], ts_ecr: u64) -> Ack {
    let mut sack = SackBlocks::new();
    for &(a, b) in blocks {
        sack.push(Range::new(a * MSS, b * MSS));
    }
    Ack {
        ack: cum * MSS,
        window: 1 << 20,
        sack,
        dsack: blocks.first().is_some_and(|b| b.1 <= cum),
        ts_val: 1,
        ts_ecr,
    }
}

/// Defect 2: RFC 6675 section 5 step (4.3) sets RescueRxt with HighRxt at
/// the fast retransmit, so NextSeg() rule 4 waits until the fast
/// retransmit is acknowledged. Ten segments, the 3rd and the 10th (0-based
/// 2 and 9) dropped, quick ACKs, no more data to send.
#[test]
fn rescue_retransmission_waits_for_the_fast_retransmit_to_be_acked() {
    let mut s = sender(10, 10, "rfc6675", "dupthresh");
    assert_eq!(send_all(&mut s, 0).len(), 10);
    s.on_ack(40 * MS, &ack(1, &[], 1));
    s.on_ack(40 * MS, &ack(2, &[], 1));
    // Segments 3, 4, 5 SACKed: IsLost(2); the fast retransmit goes.
    for k in 3..6 {
        s.on_ack(41 * MS + k, &ack(2, &[(3, k + 1)], 1));
    }
    assert!(s.in_recovery());
    assert_eq!(send_all(&mut s, 46 * MS), vec![2]);
    // More duplicate ACKs (SACKs of 6, 7, 8): pipe falls below cwnd, but
    // there is no new data and no hole below the highest SACK: rule 4
    // must not fire while HighACK <= RescueRxt (the fast retransmit's
    // last byte, 2999).
    for k in 6..9 {
        s.on_ack(47 * MS + k, &ack(2, &[(3, k + 1)], 1));
        assert_eq!(
            send_all(&mut s, 47 * MS + k),
            Vec::<u64>::new(),
            "dupack {k}"
        );
    }
    // The fast retransmit arrives: a partial ACK up to segment 9. Now the
    // rescue retransmits the highest un-SACKed segment, 9.
    s.on_ack(86 * MS, &ack(9, &[], 1));
    assert_eq!(send_all(&mut s, 86 * MS), vec![9]);
    assert_eq!(s.stats().retransmissions, 2);
}
