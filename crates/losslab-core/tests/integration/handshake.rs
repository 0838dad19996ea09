//! The simulated three-way handshake (handshake.rs), hand-worked timings.

use losslab_core::app::App;
use losslab_core::config::{AckMode, ReceiverConfig};
use losslab_core::time::{MS, SEC};
use losslab_core::wire::{Ack, SackBlocks};
use losslab_core::{Algorithms, Handshake, HandshakeRules, Receiver, Sender, SenderConfig};

fn sender(mode: Handshake, rules: HandshakeRules) -> Sender {
    let cfg = SenderConfig {
        mss: 1000,
        init_cwnd: 10,
        app: App::Bytes(20_000),
        initial_rwnd: 1 << 20,
        handshake: mode,
        handshake_rules: rules,
        ..SenderConfig::default()
    };
    Sender::new(cfg, Algorithms::baseline(), 0)
}

/// The peer's SYN-ACK (or SYN) echoing `ts_ecr`.
fn syn(ts_ecr: u64) -> Ack {
    Ack {
        ack: 0,
        window: 1 << 20,
        sack: SackBlocks::new(),
        dsack: false,
        ts_val: 1,
        ts_ecr,
        syn: true,
        echo_order: 0,
    }
}

#[test]
fn active_open_gives_an_rtt_sample_before_data() {
    let mut s = sender(Handshake::Active, HandshakeRules::Linux);
    let synseg = s.poll_transmit(0).unwrap();
    assert!(synseg.syn && synseg.len == 0);
    assert!(s.poll_transmit(0).is_none(), "no data before the SYN-ACK");
    assert_eq!(s.poll_timeout(), Some(SEC), "RFC 6298 2.1: 1 s");
    s.on_ack(100 * MS, &syn(synseg.ts_val));
    assert!(s.is_established());
    // RFC 6298 2.2: SRTT 100 ms, RTTVAR 50 ms, RTO 100 + 4 x 50 = 300 ms.
    assert_eq!(s.rtt().srtt(), Some(100 * MS));
    assert_eq!(s.rtt().rto(), 300 * MS);
    assert_eq!(s.established_at(), Some(100 * MS));
    let data: Vec<_> = std::iter::from_fn(|| s.poll_transmit(100 * MS)).collect();
    assert_eq!(data.len(), 10, "the initial window");
    assert!(data.iter().all(|d| !d.syn && d.seq % 1000 == 0));
}

/// The SYN is lost once: the second leaves at 1 s, its SYN-ACK arrives at
/// 1.1 s echoing it.
fn after_one_lost_syn(rules: HandshakeRules) -> Sender {
    let mut s = sender(Handshake::Active, rules);
    s.poll_transmit(0).unwrap();
    s.on_timeout(SEC);
    let second = s.poll_transmit(SEC).unwrap();
    assert_eq!((second.syn, second.tx_count), (true, 2));
    assert_eq!(s.poll_timeout(), Some(3 * SEC), "backed off to 2 s");
    s.on_ack(1100 * MS, &syn(second.ts_val));
    assert!(s.is_established());
    assert_eq!(s.stats().syn_retransmissions, 1);
    s
}

#[test]
fn linux_samples_the_echo_after_a_lost_syn_and_keeps_the_initial_window() {
    // Linux tcp_ack_update_rtt(): the timestamp echo of the second SYN is
    // a valid sample (100 ms); one retransmission does not cut the IW.
    let s = after_one_lost_syn(HandshakeRules::Linux);
    assert_eq!(s.rtt().srtt(), Some(100 * MS));
    assert_eq!(s.rtt().rto(), 300 * MS);
    assert_eq!(s.window().cwnd, 10);
}

#[test]
fn rfc_falls_back_to_three_seconds_and_one_segment() {
    // Karn: no sample after the retransmitted SYN, so RFC 6298 5.7's 3 s;
    // RFC 5681 3.1: IW = 1 segment after the SYN's loss.
    let mut s = after_one_lost_syn(HandshakeRules::Rfc);
    assert_eq!(s.rtt().srtt(), None);
    assert_eq!(s.rtt().rto(), 3 * SEC);
    assert_eq!(s.window().cwnd, 1);
    let data: Vec<_> = std::iter::from_fn(|| s.poll_transmit(1100 * MS)).collect();
    assert_eq!(data.len(), 1);
    assert_eq!(s.poll_timeout(), Some(4100 * MS));
}

#[test]
fn linux_cuts_the_initial_window_after_two_lost_syns() {
    let mut s = sender(Handshake::Active, HandshakeRules::Linux);
    s.poll_transmit(0).unwrap();
    s.on_timeout(SEC);
    s.poll_transmit(SEC).unwrap();
    s.on_timeout(3 * SEC);
    let third = s.poll_transmit(3 * SEC).unwrap();
    assert_eq!(third.tx_count, 3);
    s.on_ack(3100 * MS, &syn(third.ts_val));
    assert_eq!(s.window().cwnd, 1);
    assert_eq!(s.rtt().srtt(), Some(100 * MS));
}

#[test]
fn a_connection_that_never_opens_gives_up_after_six_retries() {
    let mut s = sender(Handshake::Active, HandshakeRules::Linux);
    let mut t = 0;
    for k in 0..7 {
        let seg = s.poll_transmit(t).expect("a SYN");
        assert_eq!(seg.tx_count, k + 1);
        t = s.poll_timeout().unwrap();
        // 1, 2, 4, 8, 16, 32, 64 s apart (capped at 60 s).
        s.on_timeout(t);
    }
    assert!(s.handshake_failed());
    assert_eq!(s.poll_transmit(t), None);
    assert_eq!(s.poll_timeout(), None);
}

#[test]
fn passive_open_answers_the_syn_and_samples_the_final_ack() {
    let mut s = sender(Handshake::Passive, HandshakeRules::Linux);
    assert!(s.poll_transmit(0).is_none(), "waits for the peer's SYN");
    assert_eq!(s.poll_timeout(), None);
    s.on_ack(50 * MS, &syn(0));
    let synack = s.poll_transmit(50 * MS).unwrap();
    assert!(synack.syn);
    let fin = Ack {
        syn: false,
        ts_ecr: synack.ts_val,
        ..syn(0)
    };
    s.on_ack(130 * MS, &fin);
    assert!(s.is_established());
    assert_eq!(s.rtt().srtt(), Some(80 * MS));
}

#[test]
fn the_receiver_answers_a_syn_and_opens_a_connection_itself() {
    let cfg = ReceiverConfig {
        ack_mode: AckMode::Delayed,
        mss: 1000,
        ..ReceiverConfig::default()
    };
    // Passive side: a SYN gets a SYN-ACK at once, echoing it.
    let mut s = sender(Handshake::Active, HandshakeRules::Linux);
    let mut r = Receiver::new(cfg.clone());
    let synseg = s.poll_transmit(0).unwrap();
    r.on_segment(10 * MS, &synseg);
    let a = r.poll_transmit(10 * MS).unwrap();
    assert!(a.syn && a.ts_ecr == synseg.ts_val && a.ack == 0);
    assert_eq!(r.stats().segments_received, 0);
    // Active side: SYN now, again at 1 s, established by the SYN-ACK.
    let mut c = Receiver::new(cfg);
    c.connect(0);
    assert!(!c.is_established());
    assert!(c.poll_transmit(0).unwrap().syn);
    assert_eq!(c.poll_timeout(), Some(SEC));
    c.on_timeout(SEC);
    assert!(c.poll_transmit(SEC).unwrap().syn);
    let mut srv = sender(Handshake::Passive, HandshakeRules::Linux);
    srv.on_ack(SEC + 20 * MS, &syn(0));
    let synack = srv.poll_transmit(SEC + 20 * MS).unwrap();
    c.on_segment(SEC + 40 * MS, &synack);
    assert!(c.is_established());
    let last = c.poll_transmit(SEC + 40 * MS).unwrap();
    assert!(!last.syn);
    assert_eq!(c.poll_timeout(), None);
    srv.on_ack(SEC + 60 * MS, &last);
    assert_eq!(srv.rtt().srtt(), Some(40 * MS));
}
