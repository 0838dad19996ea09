//! The retransmission timer around a fast retransmission: RFC 6298 runs it
//! from the last ACK of new data (5.3); Linux restarts it, a full RTO,
//! when it retransmits the first outstanding segment
//! (tcp_xmit_retransmit_queue()), `rto_rearm_on_head_retransmit`.

use losslab_core::app::App;
use losslab_core::time::MS;
use losslab_core::wire::{Ack, Range, SackBlocks};
use losslab_core::{Algorithms, Sender, SenderConfig};

const MSS: u64 = 1000;

fn ack(cum: u64, sacked: Option<(u64, u64)>) -> Ack {
    let mut sack = SackBlocks::new();
    if let Some((a, b)) = sacked {
        sack.push(Range::new(a * MSS, b * MSS));
    }
    Ack {
        ack: cum * MSS,
        window: 1 << 20,
        sack,
        dsack: false,
        ts_val: 1,
        ts_ecr: 0,
        syn: false,
        echo_order: 0,
    }
}

/// Ten segments at 0; segment 0 acknowledged at 100 ms (the timer restarts
/// to 100 ms + RTO); segment 1 lost, and three SACKs at 300 ms start fast
/// recovery, whose retransmission of segment 1 goes out at 300 ms.
/// Returns the sender's RTO and its timer after that retransmission.
fn fast_retransmit(rearm: bool) -> (u64, u64, u64) {
    let cfg = SenderConfig {
        mss: MSS as u32,
        init_cwnd: 10,
        app: App::Bytes(10 * MSS),
        initial_rwnd: 1 << 20,
        rto_rearm_on_head_retransmit: rearm,
        ..SenderConfig::default()
    };
    let alg = Algorithms::by_name("newreno", "prr", "dupthresh", "rto", 3).unwrap();
    let mut s = Sender::new(cfg, alg, 0);
    assert_eq!(std::iter::from_fn(|| s.poll_transmit(0)).count(), 10);
    s.on_ack(100 * MS, &ack(1, None));
    let rto_at_100 = s.rtt().rto();
    assert_eq!(s.poll_timeout(), Some(100 * MS + rto_at_100));
    for top in 3..=5 {
        s.on_ack(300 * MS, &ack(1, Some((2, top))));
    }
    let sent: Vec<_> = std::iter::from_fn(|| s.poll_transmit(300 * MS)).collect();
    assert_eq!((sent[0].seq, sent[0].tx_count), (MSS, 2), "{sent:?}");
    (rto_at_100, s.rtt().rto(), s.poll_timeout().unwrap())
}

#[test]
fn rfc6298_keeps_the_timer_of_the_last_new_ack() {
    let (rto_at_100, _, timer) = fast_retransmit(false);
    assert_eq!(timer, 100 * MS + rto_at_100);
}

#[test]
fn linux_restarts_the_timer_on_retransmitting_the_head() {
    let (_, rto, timer) = fast_retransmit(true);
    assert_eq!(timer, 300 * MS + rto);
}
