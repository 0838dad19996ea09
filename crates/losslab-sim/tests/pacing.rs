//! Pacing in whole simulations (docs/ALGORITHMS.md, "Pacing").

mod common;

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
