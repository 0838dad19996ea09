//! `flow.nic_rate` (docs/SCENARIO.md): the sending host's interface rate.
//! A window sent at once reaches the bottleneck spaced by the interface,
//! so a bottleneck as fast as the interface never queues it; without the
//! key the whole window arrives at the same instant.

use crate::common;

use common::parse;
use common::run;
use losslab_core::time::Time;
use losslab_sim::sim::{Body, Packet, PacketFate, Tracer};

fn scenario(nic: &str) -> String {
    // A bulk flow whose initial window of 100 segments and every later
    // window is sent in one instant; a 20-packet queue cannot hold it.
    format!(
        "duration = \"3s\"\n[path]\nrate = \"100Mbps\"\ndelay = \"20ms\"\nqueue = \"20pkt\"\n\n\
         [[flow]]\nname = \"a\"\ninit_cwnd = 100\napp = {{ kind = \"bytes\", size = \"2MB\" }}\n{nic}\n"
    )
}

#[test]
fn the_interface_spaces_a_window_so_an_equal_bottleneck_does_not_queue_it() {
    let without = run(&parse(&scenario("")).unwrap());
    assert!(
        without.path.queue_drops > 0,
        "a window of 100 segments at once overflows 20 packets: {:?}",
        without.path
    );
    let with = run(&parse(&scenario("nic_rate = \"100Mbps\"")).unwrap());
    assert_eq!(with.path.queue_drops, 0, "{:?}", with.path);
    // One packet in service, at most one waiting while the next arrives.
    assert!(with.path.max_queue_bytes <= 2 * 1500, "{:?}", with.path);
    let f = &with.flows[0];
    assert_eq!(f.bytes_delivered, 2_000_000, "every byte arrives");
    // A faster interface still queues at the bottleneck, less than none.
    let fast = run(&parse(&scenario("nic_rate = \"1Gbps\"")).unwrap());
    assert!(fast.path.max_queue_bytes > with.path.max_queue_bytes);
}

#[test]
fn nic_rate_reads_writes_and_refuses_zero() {
    let sc = parse(&scenario("nic_rate = \"950Mbps\"")).unwrap();
    assert_eq!(sc.flows[0].nic_rate, Some(950_000_000));
    assert_eq!(parse(&scenario("")).unwrap().flows[0].nic_rate, None);
    let text = losslab_sim::emit::to_toml(&sc).unwrap();
    assert!(text.contains("nic_rate = \"950Mbps\""), "{text}");
    assert_eq!(parse(&text).unwrap().flows[0].nic_rate, Some(950_000_000));
    common::expect_parse_error(
        parse(&scenario("nic_rate = \"0Mbps\"")),
        "flow.a.nic_rate",
        &["greater than 0"],
    );
    common::expect_parse_error(
        parse(&scenario("nic_rate = 5")),
        "flow.a.nic_rate",
        &["unit"],
    );
}

/// `tsq_limit`: with an interface slower than the bottleneck, the host
/// holds what the sender hands it; TCP Small Queues keeps all but the
/// limit unsent, so the RTT samples no longer carry the host's queue.
#[test]
fn tcp_small_queues_keep_the_host_queue_out_of_the_rtt() {
    let slow =
        |extra: &str| run(&parse(&scenario(&format!("nic_rate = \"10Mbps\"\n{extra}"))).unwrap());
    let without = slow("");
    let with = slow("tsq_limit = \"16KB\"");
    for r in [&without, &with] {
        assert_eq!(r.flows[0].bytes_delivered, 2_000_000, "every byte arrives");
    }
    let p99 = |r: &losslab_sim::results::RunResults| r.flows[0].rtt_ms.p99.unwrap();
    // 100 segments at 10 Mbit/s are 120 ms in the host; 16 KB is 13 ms.
    assert!(p99(&without) > 40.0 + 100.0, "{}", p99(&without));
    assert!(p99(&with) < 40.0 + 20.0, "{}", p99(&with));
    // The interface stays as busy: the transfer takes as long.
    let g = |r: &losslab_sim::results::RunResults| r.flows[0].goodput_bps;
    assert!(
        (g(&with) / g(&without) - 1.0).abs() < 0.05,
        "{} {}",
        g(&with),
        g(&without)
    );
}

#[test]
fn tsq_limit_reads_writes_and_needs_an_interface() {
    let sc = parse(&scenario("nic_rate = \"1Gbps\"\ntsq_limit = \"128KiB\"")).unwrap();
    assert_eq!(sc.flows[0].tsq_limit, Some(131_072));
    let text = losslab_sim::emit::to_toml(&sc).unwrap();
    assert_eq!(parse(&text).unwrap().flows[0].tsq_limit, Some(131_072));
    common::expect_parse_error(
        parse(&scenario("tsq_limit = \"128KiB\"")),
        "flow.a.tsq_limit",
        &["needs nic_rate"],
    );
    common::expect_parse_error(
        parse(&scenario("nic_rate = \"1Gbps\"\ntsq_limit = \"0B\"")),
        "flow.a.tsq_limit",
        &["at least 1B"],
    );
}

/// Records the flow and segment number of each data segment entering the
/// bottleneck.
struct Entries(std::rc::Rc<std::cell::RefCell<Vec<(u32, u64)>>>);

impl Tracer for Entries {
    fn packet(&mut self, _at: Time, p: &Packet, fate: PacketFate) {
        if let (Body::Data(s), PacketFate::Sent) = (&p.body, fate) {
            self.0.borrow_mut().push((p.flow, s.seg_no));
        }
    }
}

/// Two hosts whose interfaces finish segments at the same instants: the
/// segment handed to its host first reaches the bottleneck first, not
/// the one of the lower flow index (issue 33 kept this order when the
/// ordered map of segments in hosts became one FIFO per flow).
#[test]
fn equal_exit_times_from_two_hosts_keep_the_order_handed_over() {
    // 1448 + 52 bytes at 1 Gbit/s: 12 us per segment. Flow b (index 1)
    // hands over its 4 segments at 0, leaving at 12, 24, 36 and 48 us;
    // flow a (index 0) hands over its 4 at 12 us, leaving at 24, 36, 48
    // and 60 us. At 24, 36 and 48 us b's segment, handed over first,
    // goes first.
    let text =
        "duration = \"100ms\"\n[path]\nrate = \"10Gbps\"\ndelay = \"20ms\"\nqueue = \"100pkt\"\n\n\
         [[flow]]\nname = \"a\"\nstart = \"12us\"\nhandshake = false\ninit_cwnd = 4\n\
         nic_rate = \"1Gbps\"\napp = { kind = \"bytes\", size = \"100KB\" }\n\n\
         [[flow]]\nname = \"b\"\nhandshake = false\ninit_cwnd = 4\n\
         nic_rate = \"1Gbps\"\napp = { kind = \"bytes\", size = \"100KB\" }\n";
    let sc = parse(text).unwrap();
    let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let mut sim = losslab_sim::Simulation::new(&sc).unwrap();
    sim.set_tracer(Box::new(Entries(seen.clone())));
    // Before any ACK returns (40 ms): only the initial windows.
    sim.run_until(losslab_core::time::MS);
    let (a, b) = (0, 1);
    assert_eq!(
        *seen.borrow(),
        [
            (b, 0),
            (b, 1),
            (a, 0),
            (b, 2),
            (a, 1),
            (b, 3),
            (a, 2),
            (a, 3)
        ]
    );
}
