//! Loss probes driven by hand-made ACKs: when the probe timer fires, what
//! the probe carries, one probe per tail, and RACK-TLP's loss inference
//! from the probe's ACK (RFC 8985 section 7.4).

use losslab_core::app::App;
use losslab_core::time::{MS, SEC};
use losslab_core::wire::{Ack, Range, SackBlocks, Segment};
use losslab_core::{Algorithms, Sender, SenderConfig};

const MSS: u64 = 1000;

fn sender(app: App, cc: &str, timers: &str) -> Sender {
    sender_iw(app, cc, timers, 20)
}

fn sender_iw(app: App, cc: &str, timers: &str, init_cwnd: u64) -> Sender {
    sender_alg(
        app,
        init_cwnd,
        Algorithms::by_name(cc, "prr", "dupthresh", timers, 3).unwrap(),
    )
}

fn sender_alg(app: App, init_cwnd: u64, alg: Algorithms) -> Sender {
    let cfg = SenderConfig {
        mss: MSS as u32,
        init_cwnd,
        app,
        initial_rwnd: 1 << 20,
        ..SenderConfig::default()
    };
    Sender::new(cfg, alg, 0)
}

fn send_all(s: &mut Sender, now: u64) -> Vec<Segment> {
    std::iter::from_fn(|| s.poll_transmit(now)).collect()
}

fn ack(cum: u64, dsack: Option<(u64, u64)>, ts_ecr: u64) -> Ack {
    let mut sack = SackBlocks::new();
    if let Some((a, b)) = dsack {
        sack.push(Range::new(a * MSS, b * MSS));
    }
    Ack {
        ack: cum * MSS,
        window: 1 << 20,
        sack,
        dsack: dsack.is_some(),
        ts_val: 1,
        ts_ecr,
        syn: false,
        echo_order: 0,
    }
}

/// Ten segments at 0, the first nine acknowledged one by one at 100 ms
/// (RTT samples of exactly 100 ms), the tenth outstanding; then the probe
/// timer fires and the probe is returned.
fn tail_of_ten(s: &mut Sender) -> (u64, Segment) {
    assert_eq!(send_all(s, 0).len(), 10);
    for n in 1..=9 {
        s.on_ack(100 * MS, &ack(n, None, 1));
    }
    assert_eq!(s.rtt().srtt(), Some(100 * MS));
    let t = s.poll_timeout().unwrap();
    s.on_timeout(t);
    let probe = send_all(s, t);
    assert_eq!(probe.len(), 1, "{probe:?}");
    (t, probe[0])
}

#[test]
fn rack_tlp_probes_the_last_segment_once() {
    let mut s = sender(App::Bytes(10 * MSS), "newreno", "rack-tlp");
    let (t, p) = tail_of_ten(&mut s);
    // RTO = max(200 ms, 100 + 4 RTTVAR) = 200 ms here; PTO = 2 SRTT +
    // 200 ms (one in flight) = 400 ms, capped by the RTO: 300 ms.
    assert_eq!(s.rtt().rto(), 200 * MS);
    assert_eq!(t, 300 * MS);
    assert_eq!((p.seq, p.tx_count, p.probe), (9 * MSS, 2, true));
    assert_eq!(s.stats().tail_probes, 1);
    assert_eq!(s.stats().timeouts, 0);
    // After the probe the RTO runs; no second probe for this tail.
    assert_eq!(s.poll_timeout(), Some(500 * MS));
    s.on_timeout(500 * MS);
    assert_eq!(s.stats().timeouts, 1);
    assert_eq!(s.stats().tail_probes, 1);
}

#[test]
fn tlp_probe_timer_follows_the_paper() {
    let mut s = sender(App::Bytes(10 * MSS), "newreno", "tlp");
    let (t, p) = tail_of_ten(&mut s);
    // Equation (2): max(200, 150 + 200) = 350 ms, capped by the 200 ms RTO.
    assert_eq!(t, 300 * MS);
    assert_eq!((p.seq, p.tx_count), (9 * MSS, 2));
    // TLPR as the paper defines it (2.3): the last segment was sent at 0,
    // so PTO - T_last lands at 350 ms, capped by the RTO restarted at the
    // last ACK (300 ms), as TLP's is.
    let mut s = sender(App::Bytes(10 * MSS), "newreno", "tlpr");
    let (t, _) = tail_of_ten(&mut s);
    assert_eq!(t, 300 * MS);
    // Our `rtor_cap` variant caps it by RTO - T_earliest = 0 + 200 ms.
    let mut alg = Algorithms::by_name("newreno", "prr", "dupthresh", "tlpr", 3).unwrap();
    alg.timers = Box::new(losslab_core::timers::Tlpr::default().with_rtor_cap(true));
    let mut s = sender_alg(App::Bytes(10 * MSS), 20, alg);
    let (t, _) = tail_of_ten(&mut s);
    assert_eq!(t, 200 * MS);
}

#[test]
fn a_probe_sends_new_data_outside_cwnd() {
    // cwnd fixed at 2: segments 0 and 1 go out, segment 0's ACK at 100 ms
    // lets segment 2 out; segment 3 waits for cwnd.
    let mut s = sender_iw(App::Bytes(4 * MSS), "fixed:2", "tlp", 2);
    assert_eq!(send_all(&mut s, 0).len(), 2);
    s.on_ack(100 * MS, &ack(1, None, 1));
    assert_eq!(send_all(&mut s, 100 * MS).len(), 1);
    // Two outstanding: PTO = 2 SRTT = 200 ms (RTO 300 ms after one sample).
    let t = s.poll_timeout().unwrap();
    assert_eq!(t, 300 * MS);
    s.on_timeout(t);
    let p = send_all(&mut s, t);
    assert_eq!(p.len(), 1);
    assert_eq!((p[0].seq, p[0].tx_count, p[0].probe), (3 * MSS, 1, true));
    assert_eq!(s.stats().retransmissions, 0);
}

/// The tail probe of ten, the probe's ACK (`dsack`: the original arrived
/// too and the receiver reported the probe as a duplicate), then one more
/// segment written at 1 s and acknowledged beyond TLP.end_seq.
fn loss_inference(dsack: bool) -> Sender {
    let app = App::Writes(vec![(0, 10 * MSS), (SEC, MSS)]);
    let mut s = sender(app, "newreno", "rack-tlp");
    let (t, p) = tail_of_ten(&mut s);
    s.on_ack(t + 100 * MS, &ack(10, None, p.ts_val));
    if dsack {
        s.on_ack(t + 101 * MS, &ack(10, Some((9, 10)), p.ts_val));
    }
    // An ACK of exactly TLP.end_seq without a DSACK is ambiguous: no
    // reduction yet.
    assert_eq!(s.window().cwnd, 20);
    s.on_timeout(SEC);
    let seg = send_all(&mut s, SEC);
    assert_eq!(seg.len(), 1);
    s.on_ack(SEC + 100 * MS, &ack(11, None, seg[0].ts_val));
    assert!(s.is_finished());
    s
}

#[test]
fn rack_tlp_reduces_cwnd_when_the_probe_repaired_a_loss() {
    let s = loss_inference(false);
    // newreno: ssthresh = max(FlightSize / 2, 2) with the one segment in
    // flight; cwnd = ssthresh (CWR entered and left at once).
    assert_eq!((s.window().cwnd, s.window().ssthresh), (2, 2));
    assert_eq!(s.stats().fast_recoveries + s.stats().timeouts, 0);
}

#[test]
fn rack_tlp_keeps_cwnd_when_a_dsack_shows_the_probe_unneeded() {
    let s = loss_inference(true);
    assert_eq!(s.window().cwnd, 20);
}

/// Defect 7 of issue 10: TLP infers loss from its probe as Linux has done
/// since 3.10 (tcp_process_tlp_ack()), for `tlp` and `tlpr` alike; the
/// probe-only behaviour before it stays reachable as `loss_inference =
/// false`.
fn tlp_tail(timers: &str, loss_inference: bool) -> Sender {
    let cfg = SenderConfig {
        mss: MSS as u32,
        init_cwnd: 20,
        app: App::Writes(vec![(0, 10 * MSS), (SEC, MSS)]),
        initial_rwnd: 1 << 20,
        ..SenderConfig::default()
    };
    let tp = losslab_core::timers::TimerParams {
        tlp_loss_inference: loss_inference,
        ..Default::default()
    };
    let alg = Algorithms::by_name_with(
        "newreno",
        "prr",
        "dupthresh",
        timers,
        &Default::default(),
        &tp,
        &Default::default(),
        &Default::default(),
    )
    .unwrap();
    let mut s = Sender::new(cfg, alg, 0);
    let (t, p) = tail_of_ten(&mut s);
    s.on_ack(t + 100 * MS, &ack(10, None, p.ts_val));
    s.on_timeout(SEC);
    let seg = send_all(&mut s, SEC);
    s.on_ack(SEC + 100 * MS, &ack(11, None, seg[0].ts_val));
    s
}

#[test]
fn tlp_and_tlpr_infer_loss_from_the_probe() {
    for timers in ["tlp", "tlpr"] {
        let s = tlp_tail(timers, true);
        // As RACK-TLP above: ssthresh = max(1 / 2, 2), cwnd = ssthresh.
        assert_eq!((s.window().cwnd, s.window().ssthresh), (2, 2), "{timers}");
        let s = tlp_tail(timers, false);
        assert_eq!(s.window().cwnd, 20, "{timers} without loss inference");
    }
}

/// Defect 8: a TLP duplicate ACK is one of exactly TLP.end_seq that
/// SACKs no new data (Linux is_tlp_dupack), whatever old SACK blocks it
/// repeats. Ten segments, 0..8 acknowledged; the probe resends 9 (end_seq
/// = segment 10); the original 9 arrives late (ACK of 10); two new
/// segments go out, 10 is late, 11 SACKed; then the probe's copy of 9
/// arrives at a receiver without DSACK: the same ACK again, SACKing
/// nothing new. The original was delivered: no reduction, even when the
/// ACK of everything finally passes end_seq.
#[test]
fn a_tlp_dupack_may_repeat_old_sack_blocks() {
    let app = App::Writes(vec![(0, 10 * MSS), (350 * MS, 2 * MSS)]);
    let mut s = sender(app, "newreno", "tlp");
    let (t, p) = tail_of_ten(&mut s);
    assert_eq!((t, p.seg_no, p.tx_count), (300 * MS, 9, 2));
    s.on_timeout(350 * MS);
    assert_eq!(send_all(&mut s, 350 * MS).len(), 2);
    s.on_ack(360 * MS, &ack(10, None, 1));
    let with_sack = || {
        let mut sack = SackBlocks::new();
        sack.push(Range::new(11 * MSS, 12 * MSS));
        Ack {
            ack: 10 * MSS,
            window: 1 << 20,
            sack,
            dsack: false,
            ts_val: 1,
            ts_ecr: 1,
            syn: false,
            echo_order: 0,
        }
    };
    s.on_ack(450 * MS, &with_sack());
    s.on_ack(460 * MS, &with_sack());
    s.on_ack(470 * MS, &ack(12, None, 1));
    assert!(s.is_finished());
    assert_eq!(s.stats().timeouts + s.stats().fast_recoveries, 0);
    assert_eq!(s.window().cwnd, 20, "no reduction");
}
