//! Receive-buffer bubbles (the OR3 paper's section III-B, Fig. 2): the
//! out-of-order runs a receiver holds, sampled once per base RTT from the
//! flow's start, and the receive buffer's occupancy beside them.

use crate::common;

use std::cell::RefCell;
use std::rc::Rc;

use common::*;
use losslab_core::time::{Time, MS};
use losslab_sim::scenario::*;
use losslab_sim::{RunResults, Simulation, Tracer};

/// (time, flow, bubbles, bytes) of every sample.
type Samples = Rc<RefCell<Vec<(Time, usize, u64, u64)>>>;

struct Collect(Samples);

impl Tracer for Collect {
    fn rbb_sample(&mut self, at: Time, flow: usize, bubbles: u64, bytes: u64) {
        self.0.borrow_mut().push((at, flow, bubbles, bytes));
    }
}

fn run_collect(sc: &Scenario) -> (RunResults, Vec<(Time, usize, u64, u64)>) {
    let mut sim = Simulation::new(sc).unwrap();
    let log: Samples = Default::default();
    sim.set_tracer(Box::new(Collect(log.clone())));
    sim.run();
    let r = sim.results();
    drop(sim);
    (r, Rc::try_unwrap(log).ok().unwrap().into_inner())
}

const MSS: u64 = 1448;

/// A fixed window of 20 segments, 100 segments in all, over a 100 ms
/// round trip at 100 Mbit/s (a segment takes 0.12 ms on the link), quick
/// ACKs, no handshake: the first 20 segments leave at t = 0 (the fixed
/// window holds from the first ACK on, the initial window before it).
fn twenty_window(loss: LossModel) -> Scenario {
    let (p, r) = path(100_000_000, 50, loss);
    let mut f = FlowSpec::new("a");
    f.cc = CcSpec::Fixed(20);
    f.init_cwnd = 20;
    f.handshake = false;
    f.receiver.ack = AckSpec::Quick;
    f.app = AppSpec::Bytes(100 * MSS);
    scenario("rbb", 10, (p, r), vec![f])
}

#[test]
fn one_drop_makes_one_bubble_for_one_sample() {
    // Packet 5 is lost. Segments 6..20 reach the receiver between 50 and
    // 53 ms and wait above the hole: one bubble, 15 segments held. At the
    // first sample, t = 100 ms, no ACK has reached the sender yet (the
    // first returns at 100.12 ms), so that is what the sample sees. The
    // third duplicate ACK (about 101 ms) sends the retransmission, which
    // fills the hole at about 151 ms; the new data sent meanwhile arrives
    // in order behind it, so every later sample finds no bubble and, the
    // application reading at once, an empty buffer.
    let loss = LossModel::Drop {
        flow: "a".into(),
        which: DropSpec::Packets(vec![5]),
    };
    let (r, samples) = run_collect(&twenty_window(loss));
    let f = &r.flows[0];
    assert_eq!(f.retransmissions, 1);
    assert_eq!(samples[0], (100 * MS, 0, 1, 15 * MSS));
    for (k, s) in samples.iter().enumerate() {
        assert_eq!(s.0, (k as u64 + 1) * 100 * MS, "one sample per RTT");
        if k > 0 {
            assert_eq!((s.2, s.3), (0, 0), "sample {k}");
        }
    }
    // Sampled until the flow finished (its last ACK reached the sender):
    // the last sample is the last RTT boundary before that.
    let fct = (f.fct_s.unwrap() * 1e9) as u64;
    let done = fct + 50 * MS;
    assert!(samples.last().unwrap().0 < done);
    assert!(samples.last().unwrap().0 + 100 * MS >= done);
    let rbb = &f.rbb;
    assert_eq!(rbb.samples, samples.len() as u64);
    assert_eq!(rbb.nonzero_samples, 1);
    assert_eq!(rbb.mean_nonzero, Some(1.0));
    assert_eq!(
        (rbb.p50_nonzero, rbb.p95_nonzero, rbb.max),
        (Some(1), Some(1), 1)
    );
    let mean = f.mean_rcvbuf_occupancy_bytes.unwrap();
    assert_eq!(mean, (15 * MSS) as f64 / samples.len() as f64);
    // The largest holding, seen at arrivals, is at least what the
    // samples saw: 15 segments, then the new data behind the hole.
    assert!(f.max_rcvbuf_occupancy_bytes >= 15 * MSS);
    assert!(mean <= f.max_rcvbuf_occupancy_bytes as f64);
}

#[test]
fn two_separate_drops_make_two_bubbles() {
    // Packets 5 and 10: runs 6..9 and 11..20 above two holes at 100 ms.
    let loss = LossModel::Drop {
        flow: "a".into(),
        which: DropSpec::Packets(vec![5, 10]),
    };
    let (r, samples) = run_collect(&twenty_window(loss));
    assert_eq!(samples[0], (100 * MS, 0, 2, 14 * MSS));
    assert_eq!(r.flows[0].rbb.max, 2);
    assert_eq!(r.flows[0].rbb.nonzero_samples, 1);
    assert_eq!(r.flows[0].rbb.p50_nonzero, Some(2));
}

#[test]
fn a_loss_free_flow_has_samples_and_no_bubbles() {
    let (r, samples) = run_collect(&twenty_window(LossModel::None));
    let rbb = &r.flows[0].rbb;
    // 100 segments at 20 per RTT: five windows, each clocked out by the
    // previous one's ACKs a round trip later (100 ms plus 0.12 ms of link
    // per packet ahead), the last ACK returning just after 500 ms (at
    // 400 ms + 20 x 0.12 ms + 100 ms + a few packet times): samples at
    // 100, 200, 300, 400 and 500 ms.
    let times: Vec<Time> = samples.iter().map(|s| s.0).collect();
    assert_eq!(times, [100, 200, 300, 400, 500].map(|t| t * MS));
    assert!(r.sim_time_s > 0.5 && r.sim_time_s < 0.6);
    assert_eq!(rbb.samples, 5);
    assert_eq!(rbb.nonzero_samples, 0);
    assert_eq!(
        (rbb.mean_nonzero, rbb.p50_nonzero, rbb.p95_nonzero),
        (None, None, None)
    );
    assert_eq!(rbb.max, 0);
    assert_eq!(r.flows[0].mean_rcvbuf_occupancy_bytes, Some(0.0));
}

#[test]
fn unread_data_counts_in_the_occupancy() {
    // The application reads 1 Mbit/s (125 kB/s): far slower than the data
    // arrives, so in-order data waits in the buffer.
    let mut sc = twenty_window(LossModel::None);
    sc.flows[0].receiver.read_rate = Some(125_000);
    let (r, samples) = run_collect(&sc);
    // At 100 ms the first 20 segments (28,960 B) arrived from 50 ms on and
    // the application has read for at most 50 ms: at most 6,250 B.
    let (t, _, bubbles, bytes) = samples[0];
    assert_eq!((t, bubbles), (100 * MS, 0));
    assert!((20 * MSS - 6_250..20 * MSS).contains(&bytes), "{bytes}");
    let f = &r.flows[0];
    assert!(f.mean_rcvbuf_occupancy_bytes.unwrap() > 0.0);
    assert!(f.mean_rcvbuf_occupancy_bytes.unwrap() <= f.max_rcvbuf_occupancy_bytes as f64);
}

#[test]
fn sampling_changes_nothing_else() {
    // Samples are taken between events: the same run with a tracer that
    // sees them and without one gives the same results.
    let loss = LossModel::Bernoulli { p: 0.01 };
    let (p, rv) = path(20_000_000, 30, loss);
    let mut f = FlowSpec::new("a");
    f.app = AppSpec::Bulk;
    let sc = scenario("rbb-bulk", 20, (p, rv), vec![f]);
    let (with, samples) = run_collect(&sc);
    let mut sim = Simulation::new(&sc).unwrap();
    sim.run();
    let without = sim.results();
    assert_eq!(with, without);
    // A bulk flow never finishes: one sample per 60 ms up to 20 s.
    assert_eq!(samples.len(), 333);
    assert_eq!(with.flows[0].rbb.samples, 333);
    assert!(with.flows[0].rbb.nonzero_samples > 0);
}

#[test]
fn each_flow_is_sampled_on_its_own_round_trip() {
    let (p, r) = path(100_000_000, 10, LossModel::None);
    let mut a = FlowSpec::new("a");
    a.app = AppSpec::Bulk;
    let mut b = FlowSpec::new("b");
    b.app = AppSpec::Bulk;
    b.start = 5 * MS;
    b.delay = 15 * MS; // base RTT 20 + 30 = 50 ms
    let sc = scenario("two", 1, (p, r), vec![a, b]);
    let (res, samples) = run_collect(&sc);
    let times =
        |f: usize| -> Vec<Time> { samples.iter().filter(|s| s.1 == f).map(|s| s.0).collect() };
    let a_times = times(0);
    let b_times = times(1);
    assert_eq!(a_times.len(), 50);
    assert_eq!(a_times[..2], [20 * MS, 40 * MS]);
    assert_eq!(*a_times.last().unwrap(), 1000 * MS);
    // From 5 ms every 50 ms: 55, 105, ..., 955 ms.
    assert_eq!(b_times.len(), 19);
    assert_eq!(b_times[0], 55 * MS);
    assert_eq!(res.flows[1].rbb.samples, 19);
}

#[test]
fn many_flows_are_each_sampled_once_per_their_own_rtt_in_flow_order() {
    // Five flows of four round trips (100 ms of path plus twice each
    // flow's own delay) and three starts, two of them with the same start
    // and round trip: every flow is sampled at start + k x its RTT, and
    // samples due at the same time come in flow order (the order the
    // tracer and the meters see, whatever keeps the schedule).
    let (p, r) = path(100_000_000, 50, LossModel::None);
    let shape = [(0, 0), (7, 0), (3, 13), (7, 0), (20, 5)];
    let flows = shape
        .iter()
        .enumerate()
        .map(|(i, &(delay_ms, start_ms))| {
            let mut f = FlowSpec::new(&format!("f{i}"));
            f.cc = CcSpec::Fixed(4);
            f.init_cwnd = 4;
            f.handshake = false;
            f.receiver.ack = AckSpec::Quick;
            f.delay = delay_ms * MS;
            f.start = start_ms * MS;
            f.app = AppSpec::Bytes(10_000 * MSS);
            f
        })
        .collect();
    let (r, samples) = run_collect(&scenario("rbb-many", 3, (p, r), flows));
    assert!(
        r.flows.iter().all(|f| f.fct_s.is_none()),
        "all still sending"
    );
    let horizon = 2_900 * MS;
    let mut want = Vec::new();
    for (i, &(delay_ms, start_ms)) in shape.iter().enumerate() {
        let rtt = (100 + 2 * delay_ms) * MS;
        let mut t = start_ms * MS + rtt;
        while t <= horizon {
            want.push((t, i));
            t += rtt;
        }
    }
    want.sort();
    let got: Vec<(Time, usize)> = samples
        .iter()
        .map(|s| (s.0, s.1))
        .filter(|s| s.0 <= horizon)
        .collect();
    assert_eq!(got, want);
    for (i, f) in r.flows.iter().enumerate() {
        let n = samples.iter().filter(|s| s.1 == i).count() as u64;
        assert_eq!(f.rbb.samples, n, "flow {i}");
    }
}
