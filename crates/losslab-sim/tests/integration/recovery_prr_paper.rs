//! The PRR paper's figure 2 and 3 setup (Dukkipati et al., IMC 2011,
//! section 4.1): 100 ms RTT, 1.2 Mbit/s, MSS 1000 bytes, the application
//! writes 20 kB at 0 ms and 10 kB at 500 ms, Reno-style ssthresh (half the
//! window: NewReno here), the first 4 segments dropped (figure 2) or
//! segments 1-4 and 11-16 (figure 3). The paper's senders used FACK and
//! entered recovery on the first duplicate ACK; detection here is RFC 6675
//! DupThresh, so recovery starts two ACKs later. The initial window is 20
//! so that the 20 kB leave at once and ssthresh is 10, as in the paper.

use crate::common;

use common::*;
use losslab_core::time::{Time, MS};
use losslab_sim::results::FlowResults;
use losslab_sim::scenario::*;
use losslab_sim::sim::{Body, Packet, PacketFate, Tracer};
use losslab_sim::Simulation;
use std::cell::RefCell;
use std::rc::Rc;

const ALGORITHMS: [&str; 4] = ["prr", "prr-6937", "rate-halving", "rfc6675"];

fn paper_flow(recovery: &str) -> FlowSpec {
    let mut f = FlowSpec::new("a");
    f.recovery = recovery.into();
    f.cc = CcSpec::NewReno;
    f.detection = "dupthresh".into();
    f.mss = 1000;
    f.init_cwnd = 20;
    f.app = AppSpec::Writes(vec![(0, 20_000), (500 * MS, 10_000)]);
    // The paper's traces are of open connections: data at 0, the second
    // write 500 ms later, worked out by hand without a handshake.
    f.handshake = false;
    f
}

/// What the sender put on the wire and when ACKs reached it.
#[derive(Default)]
struct Log {
    /// (time, segment number, transmission count) of data sent.
    sent: Vec<(Time, u64, u32)>,
    /// Arrival times of ACKs at the sender.
    acks: Vec<Time>,
}

struct Recorder(Rc<RefCell<Log>>);

impl Tracer for Recorder {
    fn packet(&mut self, at: Time, pkt: &Packet, fate: PacketFate) {
        let mut log = self.0.borrow_mut();
        match (&pkt.body, fate) {
            (Body::Data(s), PacketFate::Sent) => log.sent.push((at, s.seg_no, s.tx_count)),
            (Body::Ack(_), PacketFate::Delivered) => log.acks.push(at),
            _ => {}
        }
    }
}

fn run(recovery: &str, drops: Vec<u64>) -> (FlowResults, Log) {
    let loss = LossModel::Drop {
        flow: "a".into(),
        which: DropSpec::Segments(drops),
    };
    let sc = scenario(
        "prr-paper",
        10,
        path(1_200_000, 50, loss),
        vec![paper_flow(recovery)],
    );
    let mut sim = Simulation::new(&sc).unwrap();
    let log = Rc::new(RefCell::new(Log::default()));
    sim.set_tracer(Box::new(Recorder(log.clone())));
    sim.run();
    let res = sim.results().flows[0].clone();
    drop(sim);
    let log = Rc::try_unwrap(log).ok().unwrap().into_inner();
    (res, log)
}

const FIGURE2: [u64; 4] = [1, 2, 3, 4];
const FIGURE3: [u64; 10] = [1, 2, 3, 4, 11, 12, 13, 14, 15, 16];

fn recovery_window(f: &FlowResults) -> (Time, Time) {
    assert_eq!(f.recoveries.len(), 1, "{:?}", f.recoveries);
    let r = &f.recoveries[0];
    let secs = |s: f64| (s * 1e9).round() as Time;
    (secs(r.start_s), secs(r.end_s.expect("recovery ended")))
}

/// For each retransmission of the segments in `segs`, how many ACKs had
/// reached the sender when it left (the sender transmits at the instant an
/// ACK arrives, so this names the ACK that released it).
fn ack_index_of_retransmissions(log: &Log, segs: std::ops::Range<u64>) -> Vec<usize> {
    log.sent
        .iter()
        .filter(|(_, n, tx)| *tx > 1 && segs.contains(n))
        .map(|(t, _, _)| log.acks.iter().filter(|a| **a <= *t).count())
        .collect()
}

/// The most segments released by one ACK during recovery.
fn largest_burst(log: &Log, (start, end): (Time, Time)) -> usize {
    let mut best = 0;
    let mut i = 0;
    let sent: Vec<Time> = log
        .sent
        .iter()
        .map(|s| s.0)
        .filter(|t| (start..=end).contains(t))
        .collect();
    while i < sent.len() {
        let j = sent[i..].iter().take_while(|t| **t == sent[i]).count();
        best = best.max(j);
        i += j;
    }
    best
}

fn new_segments_sent_at(log: &Log, at: Time) -> usize {
    log.sent
        .iter()
        .filter(|(t, n, tx)| *t == at && *tx == 1 && *n >= 20)
        .count()
}

#[test]
fn figure2_prr_leaves_recovery_at_ssthresh_rate_halving_far_below() {
    let mut fct = std::collections::HashMap::new();
    for alg in ALGORITHMS {
        let (f, log) = run(alg, FIGURE2.to_vec());
        assert_eq!(f.bytes_delivered, 30_000, "{alg}");
        assert_eq!((f.timeouts, f.fast_recoveries), (0, 1), "{alg}");
        let r = &f.recoveries[0];
        assert_eq!((r.cwnd_before, r.ssthresh), (20, 10), "{alg}");
        let burst_at_500ms = new_segments_sent_at(&log, 500 * MS);
        if alg == "rate-halving" {
            // cwnd followed pipe down (pipe + 1 on every ACK) and
            // tcp_complete_cwr() only takes min(cwnd, ssthresh): with the
            // application idle the window is about pipe + 1 at the end.
            let after = r.cwnd_after.unwrap();
            assert!(after <= 3, "rate-halving left with cwnd {after}");
            // So the 10 kB written at 500 ms go out in slow start (one more
            // segment of cwnd came from the ACKs still arriving after the
            // exit).
            assert!(burst_at_500ms <= 3, "{alg}: {burst_at_500ms}");
        } else {
            // RFC 9937 6.4, the paper's Algorithm 2 and RFC 6675 (cwnd set
            // to ssthresh at the start and never moved): ssthresh.
            assert_eq!(r.cwnd_after, Some(10), "{alg}");
            // "the segments are sent in one RTT".
            assert_eq!(burst_at_500ms, 10, "{alg}");
        }
        fct.insert(alg, f.fct_s.unwrap());
    }
    // The small window costs rate-halving more than one extra round trip
    // for the second write (the paper's figure 2, middle).
    for alg in ["prr", "prr-6937", "rfc6675"] {
        assert!(
            fct["rate-halving"] > fct[alg] + 0.1,
            "rate-halving {} vs {alg} {}",
            fct["rate-halving"],
            fct[alg]
        );
    }
}

#[test]
fn figure2_prr_spreads_retransmissions_rfc6675_falls_silent() {
    let gaps = |alg: &str| {
        let (_, log) = run(alg, FIGURE2.to_vec());
        let at = ack_index_of_retransmissions(&log, 0..4);
        assert_eq!(at.len(), 4, "{alg}: one retransmission per lost segment");
        at.windows(2).map(|w| w[1] - w[0]).collect::<Vec<_>>()
    };
    // PRR-SSRB with RecoverFS = FlightSize = 20 and ssthresh 10: a
    // retransmission every other ACK while pipe > ssthresh; the last waits
    // one ACK more because pipe has reached ssthresh by then.
    assert_eq!(gaps("prr-6937"), [2, 2, 3]);
    // Rate-halving, one segment every second ACK as cwnd comes down.
    assert_eq!(gaps("rate-halving"), [2, 2, 2]);
    // RFC 9937 leaves the two segments SACKed before the third duplicate
    // ACK out of RecoverFS (18, not 20), so the proportional part runs at
    // 10/18: the second retransmission goes one ACK earlier, then every
    // other ACK.
    assert_eq!(gaps("prr"), [1, 2, 2]);
    // RFC 6675 sets cwnd = ssthresh = 10 at once with pipe at 14 after the
    // fast retransmit: nothing more until pipe < cwnd, five ACKs later (the
    // paper's "half RTT silence", here a third of the 100 ms RTT since
    // only 4 of 20 segments were lost), then one per ACK.
    let g = gaps("rfc6675");
    assert!(g[0] >= 4, "RFC 6675 gaps {g:?}");
    assert_eq!(g[1..], [1, 1]);
}

#[test]
fn figure3_heavy_losses() {
    let mut bursts = std::collections::HashMap::new();
    for alg in ALGORITHMS {
        let (f, log) = run(alg, FIGURE3.to_vec());
        assert_eq!(f.bytes_delivered, 30_000, "{alg}");
        assert_eq!((f.timeouts, f.fast_recoveries), (0, 1), "{alg}");
        let after = f.recoveries[0].cwnd_after.unwrap();
        if alg == "rate-halving" {
            assert!(after <= 3, "rate-halving left with cwnd {after}");
        } else {
            assert_eq!(after, 10, "{alg}");
        }
        let window = recovery_window(&f);
        bursts.insert(alg, largest_burst(&log, window));
        if alg == "prr-6937" {
            // "after the second cluster of losses when pipe falls below
            // ssthresh, PRR operates in slow start part and transmits two
            // segments for every ACK".
            let twos = log
                .sent
                .iter()
                .filter(|s| (window.0..=window.1).contains(&s.0))
                .fold(std::collections::BTreeMap::new(), |mut m, s| {
                    *m.entry(s.0).or_insert(0) += 1;
                    m
                });
            assert!(twos.values().any(|&n| n == 2), "{twos:?}");
        }
    }
    // RFC 6675 answers the ACK that reveals the second cluster with a burst
    // up to cwnd; PRR-SSRB catches up what it banked plus one; RFC 9937's
    // PRR, on that ACK which reports new losses, only what was banked
    // (CRB); rate-halving one segment per ACK.
    assert!(bursts["rfc6675"] > bursts["prr-6937"], "{bursts:?}");
    assert!(bursts["prr-6937"] > bursts["prr"], "{bursts:?}");
    assert!(bursts["prr"] > bursts["rate-halving"], "{bursts:?}");
    assert_eq!(bursts["rate-halving"], 1, "{bursts:?}");
}
