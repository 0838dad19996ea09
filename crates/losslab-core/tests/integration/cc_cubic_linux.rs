//! cubic-linux through the sender: a flow over a 1 segment/ms bottleneck
//! with 40 ms of propagation delay and a receiver that ACKs every
//! segment, no losses. Linux's HyStart (on by default) ends slow start
//! by the ACK train, worked by hand:
//! - round 1: 10 segments leave at 1..10 ms, ACKs at 41..50 ms (RTT 41
//!   ms = delay_min); cwnd 10 -> 20; the first ACK starts a round ending
//!   at segment 10 (cwnd below 16: no test).
//! - round 2: the 20 segments sent on those ACKs leave at 42..61 ms, ACKs
//!   82..101 ms; the ACK at 82 (snd_una past segment 10) starts a round
//!   ending at segment 30. The threshold is (delay_min + ack delay) >> 1
//!   = (41000 + 1000) >> 1 = 21000 us (unpaced; the ack delay is
//!   min(1 ms, 4 x 65536 B / a pacing rate of a few MB/s) = 1 ms); a
//!   train of 101 - 82 = 19 ms is not longer. cwnd 20 -> 40.
//! - round 3: ACKs from 123 ms, 1 ms apart (the gap from 101 to 123 ms
//!   breaks the train; the ACK at 123 starts the round). The ACK at 145
//!   ms is the first 22 ms (> 21) into the round: the 23rd of the round,
//!   when cwnd = 40 + 22 = 62: ssthresh = 62. The delay signal stays
//!   quiet: the round's RTTs start at 41 ms (two segments per ACK, so
//!   they rise 1 ms every two ACKs), the minimum of the first 8 is 41 ms,
//!   below 41 + clamp(41000 >> 3 us, 4, 16 ms) = 46.125 ms.

use std::collections::VecDeque;

use losslab_core::time::{Time, MS};
use losslab_core::Sender;

use crate::common;

use common::{ack, bytes_sender, MSS};

/// Runs `segments` segments; returns the sender at the end.
fn run(cc: &str, segments: u64) -> Sender {
    let mut s = bytes_sender(segments, 10, cc, "prr", "dupthresh");
    // (arrival time of the ACK, cumulative segment, ts_ecr)
    let mut acks: VecDeque<(Time, u64, u64)> = VecDeque::new();
    let mut link_free: Time = 0;
    let mut now: Time = 0;
    for _ in 0..1_000_000 {
        while let Some(seg) = s.poll_transmit(now) {
            let depart = link_free.max(now) + MS;
            link_free = depart;
            let cum = (seg.seq + u64::from(seg.len)) / MSS;
            acks.push_back((depart + 40 * MS, cum, seg.ts_val));
        }
        if s.is_finished() {
            return s;
        }
        let next_ack = acks.front().map(|a| a.0);
        let next = match (next_ack, s.poll_timeout()) {
            (Some(a), Some(t)) => a.min(t),
            (Some(a), None) => a,
            (None, Some(t)) => t,
            (None, None) => panic!("stuck at {now}"),
        };
        now = now.max(next);
        if next_ack == Some(next) {
            let (_, cum, ts) = acks.pop_front().unwrap();
            s.on_ack(now, &ack(cum, &[], ts));
        } else {
            s.on_timeout(now);
        }
    }
    panic!("did not finish");
}

#[test]
fn hystart_ends_slow_start_without_a_loss() {
    let s = run("cubic-linux", 600);
    assert_eq!(s.stats().retransmissions, 0);
    assert_eq!(s.stats().timeouts, 0);
    let w = s.window();
    assert_eq!(w.ssthresh, 62, "cwnd {}", w.cwnd);
    // RFC 9438 cubic without HyStart never leaves slow start here.
    let plain = run("cubic", 600);
    assert!(plain.window().ssthresh > 1_000_000);
}
