//! The retransmission timer around a fast retransmission: RFC 6298 runs it
//! from the last ACK of new data (5.3); Linux restarts it, a full RTO,
//! when it retransmits the first outstanding segment
//! (tcp_xmit_retransmit_queue()), `rto_rearm_on_head_retransmit`.

use losslab_core::app::App;
use losslab_core::time::MS;
use losslab_core::wire::{Ack, Range, SackBlocks};
use losslab_core::{Algorithms, Sender, SenderConfig};

const MSS: u64 = 1000;

/// `segments` segments of MSS bytes, IW 10, NewReno with PRR and RTO
/// timers, the two re-arm keys as given.
fn sender(segments: u64, rearm_on_head: bool, rearm_on_sack: bool) -> Sender {
    let cfg = SenderConfig {
        mss: MSS as u32,
        init_cwnd: 10,
        app: App::Bytes(segments * MSS),
        initial_rwnd: 1 << 20,
        rto_rearm_on_head_retransmit: rearm_on_head,
        rto_rearm_on_sack: rearm_on_sack,
        ..SenderConfig::default()
    };
    let alg = Algorithms::by_name("newreno", "prr", "dupthresh", "rto", 3).unwrap();
    Sender::new(cfg, alg, 0)
}

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
    let mut s = sender(10, rearm, false);
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

/// `rto_rearm_on_sack` (Linux tcp_clean_rtx_queue(), 3.13 on): after the
/// head's retransmission at 300 ms, an ACK that only SACKs restarts the
/// timer if it SACKs an original sent before that retransmission.
/// Thirty segments, IW 10: segments 0..9 at 0 ms; the ACK of segment 0
/// at 100 ms lets slow start send 10 and 11; segment 1 is lost and three
/// SACKs at 300 ms start fast recovery, which retransmits it and sends
/// new data behind it.
fn sack_after_head_retransmit(rearm_on_sack: bool) -> (Sender, Vec<u64>) {
    let mut s = sender(30, true, rearm_on_sack);
    assert_eq!(std::iter::from_fn(|| s.poll_transmit(0)).count(), 10);
    s.on_ack(100 * MS, &ack(1, None));
    let at_100: Vec<_> = std::iter::from_fn(|| s.poll_transmit(100 * MS)).collect();
    assert_eq!(
        at_100.iter().map(|x| x.seq / MSS).collect::<Vec<_>>(),
        [10, 11]
    );
    for top in 3..=5 {
        s.on_ack(300 * MS, &ack(1, Some((2, top))));
    }
    let sent: Vec<_> = std::iter::from_fn(|| s.poll_transmit(300 * MS))
        .map(|x| x.seq / MSS)
        .collect();
    assert_eq!(s.poll_timeout(), Some(300 * MS + s.rtt().rto()));
    (s, sent)
}

#[test]
fn linux_restarts_the_timer_on_a_sack_of_data_sent_before_the_head() {
    // Segment 5 left at 0 ms, before the head's retransmission at 300 ms:
    // Linux's sack_rtt_us (400 ms) exceeds the head's age (100 ms).
    for (rearm, want) in [(true, 400 * MS), (false, 300 * MS)] {
        let (mut s, sent) = sack_after_head_retransmit(rearm);
        assert_eq!(sent[0], 1, "{sent:?}");
        s.on_ack(400 * MS, &ack(1, Some((2, 6))));
        assert_eq!(s.poll_timeout(), Some(want + s.rtt().rto()), "{rearm}");
    }
}

#[test]
fn a_sack_of_data_sent_after_the_head_leaves_the_timer() {
    // At 350 ms segments 5..11 (sent at 0 and 100 ms) are SACKed: the timer
    // restarts and PRR sends new data behind the retransmission. At 450
    // ms an ACK SACKs only the first of those new segments, sent at 350
    // ms, after the head's last transmission (300 ms): Linux's test is
    // false (sack_rtt_us 100 ms, the head's age 150 ms) and the timer
    // stays at 350 ms + RTO.
    let (mut s, _) = sack_after_head_retransmit(true);
    s.on_ack(350 * MS, &ack(1, Some((2, 12))));
    let restarted = 350 * MS + s.rtt().rto();
    assert_eq!(s.poll_timeout(), Some(restarted));
    let sent: Vec<_> = std::iter::from_fn(|| s.poll_transmit(350 * MS))
        .map(|x| (x.seq / MSS, x.tx_count))
        .collect();
    let new = sent
        .iter()
        .find(|x| x.1 == 1)
        .expect("new data at 350 ms")
        .0;
    assert!(new >= 12, "{sent:?}");
    s.on_ack(450 * MS, &ack(1, Some((new, new + 1))));
    assert_eq!(s.poll_timeout(), Some(restarted));
}

#[test]
fn one_sack_of_both_older_and_newer_data_restarts_it() {
    // Linux times the first segment the ACK newly SACKs (first_sackt):
    // at 450 ms one block SACKs segments 10 and 11 (sent at 100 ms, before
    // the head's retransmission at 300 ms) and 12 (sent at 350 ms, after
    // it). The test holds for 10, so the timer restarts; timed from the
    // newest (12) it would not.
    let (mut s, _) = sack_after_head_retransmit(true);
    s.on_ack(350 * MS, &ack(1, Some((2, 10))));
    let sent: Vec<_> = std::iter::from_fn(|| s.poll_transmit(350 * MS))
        .map(|x| (x.seq / MSS, x.tx_count))
        .collect();
    assert!(sent.contains(&(12, 1)), "{sent:?}");
    s.on_ack(450 * MS, &ack(1, Some((10, 13))));
    assert_eq!(s.poll_timeout(), Some(450 * MS + s.rtt().rto()));
}

#[test]
fn an_old_ack_never_restarts_it() {
    // An ACK below snd_una (reordered on its way back) that SACKs segment
    // 5, sent before the head's retransmission: tcp_ack()'s old_ack path
    // tags the SACK but never reaches tcp_clean_rtx_queue().
    let (mut s, _) = sack_after_head_retransmit(true);
    let mut old = ack(0, Some((2, 6)));
    old.ack = MSS / 2;
    s.on_ack(400 * MS, &old);
    assert_eq!(s.poll_timeout(), Some(300 * MS + s.rtt().rto()));
}

#[test]
fn after_a_timeout_sacks_of_older_data_restart_it() {
    // Ten segments at 0 ms, no ACK: the RTO fires and resends segment 0.
    // An ACK SACKing segments 3 and 4 (sent at 0 ms) then restarts the
    // timer in the Loss state too (Linux's test does not look at the
    // state); without the key it stays where the timeout set it.
    for rearm in [true, false] {
        let mut s = sender(10, true, rearm);
        assert_eq!(std::iter::from_fn(|| s.poll_transmit(0)).count(), 10);
        let fire = s.poll_timeout().unwrap();
        s.on_timeout(fire);
        let sent: Vec<_> = std::iter::from_fn(|| s.poll_transmit(fire))
            .map(|x| (x.seq / MSS, x.tx_count))
            .collect();
        assert_eq!(sent.first(), Some(&(0, 2)), "{sent:?}");
        let armed = s.poll_timeout().unwrap();
        let at = fire + 50 * MS;
        s.on_ack(at, &ack(0, Some((3, 5))));
        let want = if rearm { at + s.rtt().rto() } else { armed };
        assert_eq!(s.poll_timeout(), Some(want), "{rearm}");
    }
}
