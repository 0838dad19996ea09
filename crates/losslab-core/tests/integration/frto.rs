//! F-RTO (RFC 5682 section 3 as Linux tcp_process_loss() runs it), driven
//! by hand-made ACKs. Ten segments at 0 (cwnd 10), no ACK: the RTO fires
//! at 1 s (the initial RTO) and segment 0 is retransmitted.

use losslab_core::app::App;
use losslab_core::time::{MS, SEC};
use losslab_core::wire::{Ack, Range, SackBlocks, Segment};
use losslab_core::{Algorithms, FrtoMode, Sender, SenderConfig};

const MSS: u64 = 1000;

fn after_rto(frto: FrtoMode, segments: u64) -> Sender {
    let cfg = SenderConfig {
        mss: MSS as u32,
        init_cwnd: 10,
        app: App::Bytes(segments * MSS),
        initial_rwnd: 1 << 20,
        frto,
        ..SenderConfig::default()
    };
    let mut s = Sender::new(cfg, Algorithms::baseline(), 0);
    assert_eq!(send(&mut s, 0).len(), 10);
    assert_eq!(s.poll_timeout(), Some(SEC));
    s.on_timeout(SEC);
    let rtx = send(&mut s, SEC);
    assert_eq!(
        rtx.iter()
            .map(|x| (x.seg_no, x.tx_count))
            .collect::<Vec<_>>(),
        [(0, 2)]
    );
    s
}

fn send(s: &mut Sender, now: u64) -> Vec<Segment> {
    std::iter::from_fn(|| s.poll_transmit(now)).collect()
}

fn ack(cum: u64, sack: Option<(u64, u64)>) -> Ack {
    let mut b = SackBlocks::new();
    if let Some((a, z)) = sack {
        b.push(Range::new(a * MSS, z * MSS));
    }
    Ack {
        ack: cum * MSS,
        window: 1 << 20,
        sack: b,
        dsack: false,
        ts_val: 1,
        ts_ecr: 0,
        syn: false,
        echo_order: 0,
    }
}

#[test]
fn a_spurious_timeout_is_undone() {
    // The original flight was only delayed: its ACK (up to segment 5)
    // arrives after the timeout. Segments 1..4 were never retransmitted:
    // step 3.b, the timeout was spurious. cwnd and ssthresh return to
    // their values before it and nothing more is retransmitted.
    let mut s = after_rto(FrtoMode::Linux, 10);
    s.on_ack(SEC + 10 * MS, &ack(5, None));
    assert_eq!(s.stats().spurious_rtos, 1);
    assert!(!s.in_recovery());
    // cwnd back to 10, then slow start as before the timeout: + 5.
    assert_eq!(s.window().cwnd, 15);
    assert!(
        s.window().ssthresh > 1000,
        "ssthresh back to its initial value"
    );
    assert!(send(&mut s, SEC + 10 * MS).is_empty(), "5..9 are in flight");
    s.on_ack(SEC + 20 * MS, &ack(10, None));
    assert!(s.is_finished());
    assert_eq!(s.stats().retransmissions, 1);
    assert!(s.recoveries()[0].undone);
}

#[test]
fn without_f_rto_the_same_delay_costs_retransmissions() {
    let mut s = after_rto(FrtoMode::Off, 10);
    s.on_ack(SEC + 10 * MS, &ack(5, None));
    // Still in loss recovery, cwnd slow-started from 1 to 6 by the five
    // segments acknowledged: 5..9, all still on their way, are resent.
    assert!(s.in_recovery());
    let rtx = send(&mut s, SEC + 10 * MS);
    assert_eq!(
        rtx.iter().map(|x| x.seg_no).collect::<Vec<_>>(),
        [5, 6, 7, 8, 9]
    );
    assert_eq!(s.stats().spurious_rtos, 0);
}

#[test]
fn a_real_loss_falls_back_to_conventional_recovery() {
    // Everything was lost. The retransmission of 0 is acknowledged alone:
    // step 2.b sends new data (10 and 11, cwnd 2) instead of resending 1.
    let mut s = after_rto(FrtoMode::Linux, 20);
    s.on_ack(SEC + 100 * MS, &ack(1, None));
    let new = send(&mut s, SEC + 100 * MS);
    assert_eq!(
        new.iter()
            .map(|x| (x.seg_no, x.tx_count))
            .collect::<Vec<_>>(),
        [(10, 1), (11, 1)]
    );
    // A duplicate ACK SACKing segment 10: the old segments are really
    // lost (step 3.a); retransmissions resume from segment 1, and the
    // reduction stands.
    s.on_ack(SEC + 200 * MS, &ack(1, Some((10, 11))));
    assert_eq!(s.stats().spurious_rtos, 0);
    assert!(s.in_recovery());
    let rtx = send(&mut s, SEC + 200 * MS);
    assert_eq!(rtx.first().map(|x| (x.seg_no, x.tx_count)), Some((1, 2)));
    assert!(s.window().ssthresh < 1000);
}
