//! Pacing in whole simulations (docs/ALGORITHMS.md, "Pacing").

use crate::common;

use common::*;
use losslab_core::time::SEC;
use losslab_core::Pacing;
use losslab_sim::scenario::*;
use losslab_sim::Simulation;

/// A transfer that ends in slow start before cwnd reaches the path's
/// BDP (250 kB): rounds of 10, 20, 40 and 68 segments.
const BYTES: u64 = 200_000;

/// CUBIC's slow start on a 20 Mbit/s, 100 ms path with a 4-BDP queue and
/// no loss, paced or not.
fn run(pacing: Pacing) -> losslab_sim::RunResults {
    let (mut p, r) = path(20_000_000, 50, LossModel::None);
    p.queue = QueueLimit::Bytes(1_000_000);
    let mut f = FlowSpec::new("a");
    f.cc = CcSpec::Named("cubic".into());
    f.pacing = pacing;
    f.app = AppSpec::Bytes(BYTES);
    let sc = scenario("pacing", 20, (p, r), vec![f]);
    let mut sim = Simulation::new(&sc).unwrap();
    sim.run_until(20 * SEC);
    sim.results()
}

/// Unpaced, each slow-start round leaves as one burst (the simulated
/// sender has no access link) and queues at the bottleneck; paced at
/// Linux's 200% of cwnd x MSS / srtt, a round below the BDP leaves slower
/// than the bottleneck drains it, so only the unpaced first 10 segments
/// and each skb's two segments queue. The queue is the signature, not the
/// completion time (pacing spreads each round over its RTT either way).
/// Measured when written: max queue 52,500 B unpaced, 13,500 B paced;
/// completion 0.493 s and 0.512 s.
#[test]
fn pacing_spreads_slow_start_and_keeps_the_queue_shorter() {
    let (off, rate) = (run(Pacing::Off), run(Pacing::Rate));
    assert_eq!(off.flows[0].bytes_delivered, BYTES);
    assert_eq!(rate.flows[0].bytes_delivered, BYTES);
    assert!(
        (rate.path.max_queue_bytes as f64) < 0.5 * off.path.max_queue_bytes as f64,
        "paced max queue {} B, unpaced {} B",
        rate.path.max_queue_bytes,
        off.path.max_queue_bytes
    );
}

/// "auto" paces only controllers with their own rate: CUBIC under auto
/// is exactly CUBIC unpaced.
#[test]
fn auto_leaves_cubic_unpaced() {
    let (off, auto) = (run(Pacing::Off), run(Pacing::Auto));
    assert_eq!(off.flows[0].fct_s, auto.flows[0].fct_s);
    assert_eq!(off.path.max_queue_bytes, auto.path.max_queue_bytes);
    assert_eq!(off.flows[0].segments_sent, auto.flows[0].segments_sent);
}

/// `pacing_start`: "after-11" (the default, the engine's rule before the
/// key) or "linux"; anything else is an error naming the key.
#[test]
fn pacing_start_parses_and_names_the_key_on_error() {
    let text = |v: &str| {
        format!("[path]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[[flow]]\nname = \"a\"\npacing_start = {v}\n")
    };
    let absent =
        parse("[path]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[[flow]]\nname = \"a\"\n").unwrap();
    assert_eq!(
        absent.flows[0].pacing_start,
        losslab_core::PacingStart::After11
    );
    assert_eq!(
        parse(&text("\"linux\"")).unwrap().flows[0].pacing_start,
        losslab_core::PacingStart::Linux
    );
    expect_parse_error(
        parse(&text("\"10\"")),
        "flow.a.pacing_start",
        &["unknown pacing_start \"10\"", "after-11, linux"],
    );
}

/// Records when each data segment was handed to the path.
struct SendTimes(std::rc::Rc<std::cell::RefCell<Vec<u64>>>);

impl losslab_sim::Tracer for SendTimes {
    fn packet(
        &mut self,
        at: u64,
        pkt: &losslab_sim::trace::Packet,
        fate: losslab_sim::trace::PacketFate,
    ) {
        if let (losslab_sim::trace::Body::Data(s), losslab_sim::trace::PacketFate::Sent) =
            (&pkt.body, fate)
        {
            if !s.syn && s.len > 0 {
                self.0.borrow_mut().push(at);
            }
        }
    }
}

/// Paced CUBIC slow start (the runs above, with the handshake's RTT
/// sample, so Linux's default rate is set before the first data, and an
/// initial window of 20, two-segment skbs at this rate): the first
/// burst leaves at one instant, twelve segments by default (ten unpaced,
/// then the skb [11, 12]), ten with "linux" (the skb [9, 10] brings
/// data_segs_out to ten and tcp_update_skb_after_send() moves
/// tcp_wstamp_ns by it); the next segment waits for the departure time.
#[test]
fn pacing_start_linux_sends_ten_back_to_back() {
    let first_burst = |start| {
        let (mut p, r) = path(20_000_000, 50, LossModel::None);
        p.queue = QueueLimit::Bytes(1_000_000);
        let mut f = FlowSpec::new("a");
        f.cc = CcSpec::Named("cubic".into());
        f.pacing = Pacing::Rate;
        f.pacing_start = start;
        // An initial window above ten, so that cwnd does not end the
        // first burst before pacing does.
        f.init_cwnd = 20;
        f.app = AppSpec::Bytes(BYTES);
        let sc = scenario("pacing", 20, (p, r), vec![f]);
        let mut sim = Simulation::new(&sc).unwrap();
        let times = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        sim.set_tracer(Box::new(SendTimes(times.clone())));
        sim.run_until(20 * SEC);
        assert_eq!(sim.results().flows[0].bytes_delivered, BYTES);
        let t = times.borrow();
        t.iter().take_while(|&&x| x == t[0]).count()
    };
    assert_eq!(first_burst(losslab_core::PacingStart::After11), 12);
    assert_eq!(first_burst(losslab_core::PacingStart::Linux), 10);
}
