//! Hand-made ACKs and transmission helpers shared by the sender tests.

use losslab_core::app::App;
use losslab_core::wire::{Ack, Range, SackBlocks, Segment};
use losslab_core::{Algorithms, Sender, SenderConfig};

/// Segment size of the hand-worked examples.
pub const MSS: u64 = 1000;

/// A sender of `segments` segments of MSS bytes with the given initial
/// window and algorithms (RTO timers, DupThresh 3), a 1 MB peer window.
pub fn bytes_sender(
    segments: u64,
    init_cwnd: u64,
    cc: &str,
    recovery: &str,
    detection: &str,
) -> Sender {
    let alg = Algorithms::by_name(cc, recovery, detection, "rto", 3).unwrap();
    Sender::new(bytes_config(segments, init_cwnd), alg, 0)
}

/// The configuration of `bytes_sender`, for tests that change a key of
/// it.
pub fn bytes_config(segments: u64, init_cwnd: u64) -> SenderConfig {
    SenderConfig {
        mss: MSS as u32,
        init_cwnd,
        app: App::Bytes(segments * MSS),
        initial_rwnd: 1 << 20,
        ..SenderConfig::default()
    }
}

/// Everything the sender wants to send now.
pub fn send_all(s: &mut Sender, now: u64) -> Vec<Segment> {
    std::iter::from_fn(|| s.poll_transmit(now)).collect()
}

/// An ACK up to segment `cum` with SACK blocks of segment ranges (a DSACK
/// first if it lies below `cum`), echoing `ts_ecr`.
pub fn ack(cum: u64, blocks: &[(u64, u64)], ts_ecr: u64) -> Ack {
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
        syn: false,
        echo_order: 0,
    }
}
