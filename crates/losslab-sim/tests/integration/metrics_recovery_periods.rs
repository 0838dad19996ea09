//! Loss-recovery periods measured at the bottleneck (the mobile paper's
//! section III, Fig. 1 and eq. 8), and the receiver's measurements in the
//! results (read delay, buffer occupancy, out-of-window discards).

use crate::common;

use common::*;
use losslab_core::time::MS;
use losslab_sim::scenario::*;
use losslab_sim::Simulation;

const MSS: u64 = 1448;
/// 1448 B of payload + 52 B of headers at 20 Mbit/s.
const SER: f64 = 1500.0 * 8.0 / 20e6;

fn one_burst(at: u64, length: u64) -> LossModel {
    LossModel::Drop {
        flow: "a".into(),
        which: DropSpec::Bursts(vec![Burst {
            at: BurstStart::Packet(at),
            length,
        }]),
    }
}

/// 20 Mbit/s, 100 ms RTT, a receive buffer of one BDP (250,000 B).
fn window_bound(loss: LossModel, cc: CcSpec) -> Scenario {
    let mut f = FlowSpec::new("a");
    f.cc = cc;
    f.receiver.rcvbuf = 250_000;
    scenario("window-bound", 6, path(20_000_000, 50, loss), vec![f])
}

#[test]
fn a_burst_of_ten_gives_the_period_computed_by_hand() {
    // A fixed window of 400 segments never binds and never shrinks, so the
    // receive window (250,000 B, 172.6 segments, above the 166.7-packet
    // BDP) is the only limit and the period has the shape of the paper's
    // Fig. 1:
    // - The sender is window-bound when the ACK of the packet before the
    //   burst arrives, and sends nothing new while 10 silent slots and the
    //   3 duplicate ACKs follow (7.8 ms), which drains the standing queue
    //   of about 6 packets (3.6 ms). The fast retransmission therefore
    //   starts serialisation at once: T2 = the recovery's start.
    // - Out-of-order data holds the buffer, so the window cannot move
    //   until the last hole is filled; each later duplicate ACK (one per
    //   0.6 ms, the bottleneck's pace 100 ms before) releases one more
    //   retransmission (ssthresh 400 is above pipe, so PRR sends what is
    //   delivered): the 10 retransmissions leave the link back to back,
    //   10 x 0.6 ms.
    // - The last one fills the last hole 50 ms later; the receiver's
    //   immediate ACK reaches the sender 50 ms after that, the window
    //   opens and the first new segment is serialised into an idle link:
    //   0.6 ms.
    // Period: 10 x 0.6 + 100 + 0.6 = 106.6 ms; busy 11 x 0.6 = 6.6 ms;
    // idle 100 ms; utilization 6.6 / 106.6 = 0.06191, which is eq. 8,
    // n / (C I + n), with n = 11 packets, C = 1666.7 packets/s and
    // I = 0.1 s. Every delay here is a whole number of nanoseconds, so the
    // tolerance, 1 us on times and 1e-6 on the ratio, only absorbs the
    // conversion to seconds.
    let sc = window_bound(one_burst(3000, 10), CcSpec::Fixed(400));
    let mut sim = Simulation::new(&sc).unwrap();
    sim.run();
    let f = &sim.results().flows[0];
    assert_eq!(
        (f.retransmissions, f.fast_recoveries, f.timeouts),
        (10, 1, 0)
    );
    assert_eq!(f.recovery_periods.len(), 1, "{:#?}", f.recovery_periods);
    let p = &f.recovery_periods[0];
    let close = |a: f64, b: f64, tol: f64, what: &str| {
        assert!((a - b).abs() <= tol, "{what}: measured {a}, expected {b}");
    };
    close(p.start_s, f.recoveries[0].start_s, 1e-6, "T2");
    let end = p.end_s.expect("closed");
    let duration = 10.0 * SER + 0.100 + SER;
    close(end - p.start_s, duration, 1e-6, "period");
    close(p.idle_s.unwrap(), 0.100, 1e-6, "idle");
    let util = 11.0 * SER / duration;
    close(p.utilization.unwrap(), util, 1e-6, "utilization");
    let c = 1.0 / SER;
    close(util, 11.0 / (c * 0.1 + 11.0), 1e-12, "eq. 8");
    assert_eq!((p.packets, p.retransmissions), (11, 10));
    close(f.recovery_period_utilization.unwrap(), util, 1e-6, "flow");
    close(f.link_idle_in_recovery_s, 0.100, 1e-6, "flow idle");
    // The buffer held the window's out-of-order data: the window less the
    // 10 holes and less than two segments of rounding and delayed ACK.
    let occ = f.max_rcvbuf_occupancy_bytes;
    assert!((250_000 - 12 * MSS..=250_000).contains(&occ), "{occ}");
    assert_eq!(f.receiver_out_of_window_drops, 0);
}

#[test]
fn a_reducing_controller_lengthens_the_period() {
    // NewReno halves its window: PRR spaces the retransmissions (one per
    // two duplicate ACKs), which adds idle time between them, so the same
    // burst costs more than the 100 ms above.
    let sc = window_bound(one_burst(3000, 10), CcSpec::NewReno);
    let mut sim = Simulation::new(&sc).unwrap();
    sim.run();
    let f = &sim.results().flows[0];
    let p = &f.recovery_periods[0];
    assert_eq!((p.packets, p.retransmissions), (11, 10));
    let idle = p.idle_s.unwrap();
    assert!(idle > 0.1 && idle < 0.11, "{idle}");
    assert!(p.utilization.unwrap() < 6.6 / 106.6);
}

#[test]
fn a_loss_free_run_has_no_period() {
    let sc = window_bound(LossModel::None, CcSpec::NewReno);
    let mut sim = Simulation::new(&sc).unwrap();
    sim.run();
    let r = sim.results();
    let f = &r.flows[0];
    assert_eq!(f.retransmissions, 0);
    assert!(f.recovery_periods.is_empty());
    assert_eq!(f.recovery_period_utilization, None);
    assert_eq!(f.link_idle_in_recovery_s, 0.0);
    assert_eq!(f.recovery_periods_omitted, 0);
    let v = serde_json::to_value(f).unwrap();
    assert!(v.get("recovery_periods_omitted").is_none());
    assert_eq!(v["recovery_period_utilization"], serde_json::Value::Null);
    // Instant reading with no loss: nothing waits in the buffer longer
    // than its own arrival.
    assert_eq!(f.max_rcvbuf_occupancy_bytes, 0);
}

#[test]
fn a_period_without_new_data_after_it_stays_open() {
    // The last segments of a sized flow: their retransmissions are
    // followed by no new data, so the period never closes and is reported
    // open, outside the flow's ratio.
    let loss = LossModel::Drop {
        flow: "a".into(),
        which: DropSpec::Tail(3),
    };
    let mut f = FlowSpec::new("a");
    f.app = AppSpec::Bytes(300 * MSS);
    let sc = scenario("tail", 10, path(10_000_000, 20, loss), vec![f]);
    let mut sim = Simulation::new(&sc).unwrap();
    sim.run();
    let f = &sim.results().flows[0];
    assert!(f.retransmissions >= 3);
    assert_eq!(f.recovery_periods.len(), 1);
    let p = &f.recovery_periods[0];
    assert_eq!((p.end_s, p.utilization, p.idle_s), (None, None, None));
    assert_eq!(p.retransmissions, f.retransmissions);
    assert_eq!(f.recovery_period_utilization, None);
}

#[test]
fn read_delay_slows_a_window_bound_flow_as_one_more_round_trip_would() {
    // A 64,000 B buffer over a 100 ms RTT: the sender is window-bound and
    // can send rcvbuf per RTT plus the time the data waits to be read,
    // because only the read frees the window. The window update after
    // the delayed read must wake the sender: waiting for a probe instead
    // would be far slower.
    let run = |read_delay| {
        let mut f = FlowSpec::new("a");
        f.app = AppSpec::Bytes(4_000_000);
        f.receiver.rcvbuf = 64_000;
        f.receiver.read_delay = read_delay;
        let sc = scenario("rd", 60, path(20_000_000, 50, LossModel::None), vec![f]);
        let mut sim = Simulation::new(&sc).unwrap();
        sim.run();
        sim.results().flows[0].clone()
    };
    for delay_ms in [0, 50, 100, 200] {
        let f = run(delay_ms * MS);
        assert_eq!((f.timeouts, f.retransmissions), (0, 0), "{delay_ms} ms");
        let bound = 64_000.0 * 8.0 / ((100 + delay_ms) as f64 / 1000.0);
        let ratio = f.goodput_bps / bound;
        assert!(
            (0.9..=1.0).contains(&ratio),
            "{delay_ms} ms: goodput {} is {ratio:.3} of {bound}",
            f.goodput_bps
        );
        if delay_ms > 0 {
            // Unread data sits in the buffer while it waits.
            assert!(f.max_rcvbuf_occupancy_bytes > 16 * MSS, "{delay_ms} ms");
        }
    }
}

#[test]
fn read_delay_is_a_receiver_duration() {
    let text = |v: &str| {
        format!("[path]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[[flow]]\nname = \"a\"\nreceiver = {{ read_delay = {v} }}\n")
    };
    let parse = |v: &str| losslab_sim::parse::parse_scenario("test.toml", &text(v), &[]);
    assert_eq!(
        parse("\"0ms\"").unwrap().flows[0].receiver,
        ReceiverSpec::default()
    );
    assert_eq!(
        parse("\"5ms\"").unwrap().flows[0].receiver.read_delay,
        5 * MS
    );
    expect_parse_error(
        parse("5"),
        "flow.a.receiver.read_delay",
        &["needs a unit", "\"5ms\""],
    );
    expect_parse_error(parse("\"soon\""), "flow.a.receiver.read_delay", &["soon"]);
}

#[test]
fn window_clamp_is_a_receiver_size_or_none() {
    let text = |v: &str| {
        format!("[path]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[[flow]]\nname = \"a\"\nreceiver = {{ window_clamp = {v} }}\n")
    };
    let parse = |v: &str| losslab_sim::parse::parse_scenario("test.toml", &text(v), &[]);
    assert_eq!(
        parse("\"none\"").unwrap().flows[0].receiver,
        ReceiverSpec::default()
    );
    assert_eq!(
        parse("\"64KiB\"").unwrap().flows[0].receiver.window_clamp,
        Some(65_536)
    );
    expect_parse_error(
        parse("\"0B\""),
        "flow.a.receiver.window_clamp",
        &["at least 1B"],
    );
    expect_parse_error(
        parse("\"wide\""),
        "flow.a.receiver.window_clamp",
        &["\"none\""],
    );
    expect_parse_error(parse("true"), "flow.a.receiver.window_clamp", &["expected"]);
}

#[test]
fn window_clamp_bounds_a_window_bound_flow_below_its_buffer() {
    // As `read_delay_slows_...`: a window-bound flow sends one window per
    // RTT. A clamp of 64,000 B under a 1 MB buffer makes the window the
    // clamp's (goodput near 64,000 B per 100 ms), and a clamp at or above
    // the buffer changes nothing.
    let run = |rcvbuf, clamp| {
        let mut f = FlowSpec::new("a");
        f.app = AppSpec::Bytes(4_000_000);
        f.receiver.rcvbuf = rcvbuf;
        f.receiver.window_clamp = clamp;
        let sc = scenario("wc", 60, path(20_000_000, 50, LossModel::None), vec![f]);
        let mut sim = Simulation::new(&sc).unwrap();
        sim.run();
        sim.results().flows[0].clone()
    };
    let clamped = run(1_000_000, Some(64_000));
    let bound = 64_000.0 * 8.0 / 0.1;
    let ratio = clamped.goodput_bps / bound;
    assert!(
        (0.9..=1.0).contains(&ratio),
        "goodput {} is {ratio:.3} of {bound}",
        clamped.goodput_bps
    );
    assert_eq!(run(64_000, Some(1_000_000)), run(64_000, None));
}
