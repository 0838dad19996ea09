//! Trace-driven links (`rate = { trace = "FILE" }`, docs/SCENARIO.md;
//! mahimahi's format, losslab-sim's link.rs): the trace's capacity, its
//! equivalence with a constant rate, the ACK direction's own link, the
//! written-out scenario, and the errors a bad trace gets.

use crate::common;

use std::path::PathBuf;

use common::{parse, run};
use losslab_core::time::SEC;
use losslab_sim::Simulation;

/// A trace file in a folder of this test's own, removed on drop.
struct Traces(PathBuf);

impl Traces {
    fn new(tag: &str) -> Self {
        let d =
            std::env::temp_dir().join(format!("losslab-link-trace-{}-{tag}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        Traces(d)
    }

    fn write(&self, name: &str, text: &str) -> String {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    }
}

impl Drop for Traces {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A bulk NewReno flow whose packets are 1500 bytes on the wire (MSS
/// 1448 with timestamps): one opportunity each, as a 1500-byte MTU gives
/// under mahimahi.
fn scenario(rate: &str, extra: &str) -> String {
    format!(
        "duration = \"20s\"\n[path]\nrate = {rate}\ndelay = \"20ms\"\nqueue = \"100pkt\"\n{extra}\n\
         [[flow]]\nname = \"a\"\ncc = \"newreno\"\nmss = \"1448B\"\n"
    )
}

#[test]
fn a_one_line_trace_is_a_12_mbit_link() {
    let t = Traces::new("capacity");
    let file = t.write("12mbit.trace", "1\n");
    let sc = parse(&scenario(&format!("{{ trace = {file:?} }}"), "")).unwrap();
    // One opportunity of 1504 bytes a millisecond.
    assert_eq!(sc.path.rate, 12_032_000);
    let mut sim = Simulation::new(&sc).unwrap();
    sim.run_until(2 * SEC);
    let b0 = sim.link_bytes();
    sim.run_until(12 * SEC);
    let bytes = sim.link_bytes() - b0;
    // With a standing queue every byte of every opportunity is used: a
    // 1500-byte packet leaves 4 bytes of its opportunity to the next one.
    // 10 s carry 10,000 x 1504 bytes, 12.032 Mbit/s, to within the packet
    // in flight at either end.
    assert!(bytes.abs_diff(10_000 * 1504) <= 1500, "{bytes}");
}

#[test]
fn a_constant_trace_gives_the_equal_fixed_rates_goodput_within_1_percent() {
    let t = Traces::new("equal");
    let file = t.write("12mbit.trace", "1\n");
    // 1504 bytes a millisecond, backlogged, as the trace.
    for extra in ["", "loss = { model = \"bernoulli\", p = 0.001 }"] {
        let fixed = run(&parse(&scenario("\"12032kbps\"", extra)).unwrap());
        let traced = run(&parse(&scenario(&format!("{{ trace = {file:?} }}"), extra)).unwrap());
        let (g0, g1) = (fixed.flows[0].goodput_bps, traced.flows[0].goodput_bps);
        assert!(
            (g1 / g0 - 1.0).abs() < 0.01,
            "{extra}: fixed {g0}, trace {g1}"
        );
        assert!(g0 > 9e6, "{g0}");
    }
}

#[test]
fn an_on_off_trace_carries_only_while_on_and_loops() {
    let t = Traces::new("onoff");
    // 100 ms on at one opportunity a millisecond, 100 ms off, looping.
    let mut text: String = (1..=100).map(|m| format!("{m}\n")).collect();
    text.push_str("200\n");
    let file = t.write("onoff.trace", &text);
    let sc = parse(&scenario(&format!("{{ trace = {file:?} }}"), "")).unwrap();
    assert_eq!(sc.path.rate, 101 * 1504 * 8 * 5);
    let mut sim = Simulation::new(&sc).unwrap();
    sim.run_until(2 * SEC);
    let b0 = sim.link_bytes();
    sim.run_until(12 * SEC);
    // 101 opportunities of 1504 bytes per 200 ms, all used: the queue
    // never empties while on.
    let bytes = sim.link_bytes() - b0;
    assert!(bytes.abs_diff(50 * 101 * 1504) <= 1500, "{bytes}");
    // The offset moves the run's start into the off phase: nothing gets
    // through in the first 100 ms, so the first RTT sample is later.
    let late = parse(&scenario(
        &format!("{{ trace = {file:?}, trace_offset = \"100ms\" }}"),
        "",
    ))
    .unwrap();
    let r0 = run(&sc);
    let r1 = run(&late);
    assert!(r1.flows[0].handshake_s.unwrap() > r0.flows[0].handshake_s.unwrap() + 0.05);
}

#[test]
fn the_ack_direction_has_a_link_of_its_own() {
    let base = "duration = \"30s\"\n[path]\nrate = \"100Mbps\"\ndelay = \"20ms\"\n";
    let flow = "[[flow]]\nname = \"a\"\ncc = \"newreno\"\n";
    let free = run(&parse(&format!("{base}{flow}")).unwrap());
    let thin = run(&parse(&format!("{base}[reverse]\nrate = \"100kbps\"\n{flow}")).unwrap());
    assert_eq!(free.path.ack_drops, 0);
    // 100 kbit/s carries a 52-byte ACK every 4.16 ms: at most 7,212 in
    // 30 s, plus what its 1,000-packet queue holds at the end. The rest
    // overflow the queue.
    let f = &thin.flows[0];
    let accepted = f.acks_sent - thin.path.ack_drops;
    assert!(thin.path.ack_drops > 0, "{:?}", thin.path);
    assert!(
        (7_000..=7_212 + 1_001).contains(&accepted),
        "{accepted} of {} ACKs accepted",
        f.acks_sent
    );
    assert!(
        f.goodput_bps < free.flows[0].goodput_bps / 2.0,
        "{}",
        f.goodput_bps
    );
    // A sized transfer over a 2-packet ACK queue still completes.
    let sized = format!(
        "{base}[reverse]\nrate = \"100kbps\"\nqueue = \"2pkt\"\n{flow}app = {{ kind = \"bytes\", size = \"4MB\" }}\n"
    );
    let dropping = run(&parse(&sized).unwrap());
    assert!(dropping.path.ack_drops > 0, "{:?}", dropping.path);
    assert_eq!(dropping.flows[0].bytes_delivered, 4_000_000);
    // The results say which link it was.
    assert_eq!(thin.path.config.reverse_rate_bps, Some(100_000));
    assert_eq!(thin.path.config.reverse_queue.as_deref(), Some("1000pkt"));
    assert_eq!(free.path.config.reverse_rate_bps, None);
}

#[test]
fn a_trace_scenario_is_written_and_read_back_with_its_file() {
    let t = Traces::new("emit");
    let file = t.write("a.trace", "1\n1\n3\n");
    let sc = parse(&scenario(
        &format!("{{ trace = {file:?}, trace_offset = \"1ms\" }}"),
        &format!("\n[reverse]\nrate = {{ trace = {file:?} }}\nqueue = \"50pkt\""),
    ))
    .unwrap();
    let text = losslab_sim::emit::to_toml(&sc).unwrap();
    assert!(
        text.contains(&format!(
            "rate = {{ trace = {file:?}, trace_offset = \"1ms\" }}"
        )),
        "{text}"
    );
    assert!(text.contains("queue = \"50pkt\""), "{text}");
    assert_eq!(parse(&text).unwrap(), sc);
    let r = run(&sc);
    assert_eq!(r.path.config.trace.as_deref(), Some(file.as_str()));
    assert_eq!(r.path.config.trace_offset_s, Some(0.001));
    assert_eq!(r.path.config.reverse_trace.as_deref(), Some(file.as_str()));
    // A constant-rate run's document has none of the added keys.
    let plain =
        serde_json::to_string(&run(&parse(&scenario("\"10Mbps\"", "")).unwrap()).path).unwrap();
    assert!(
        !plain.contains("trace") && !plain.contains("reverse_rate"),
        "{plain}"
    );
}

#[test]
fn a_relative_trace_is_read_beside_the_scenario_file() {
    let t = Traces::new("relative");
    t.write("beside.trace", "1\n");
    let toml = t.0.join("s.toml");
    std::fs::write(&toml, scenario("{ trace = \"beside.trace\" }", "")).unwrap();
    let sc = losslab_sim::parse::load_scenario(&toml, &[]).unwrap();
    let tr = sc.path.trace.as_ref().unwrap();
    assert_eq!(PathBuf::from(&tr.file), t.0.join("beside.trace"));
}

#[test]
fn bad_traces_are_refused_naming_the_file_and_line() {
    let t = Traces::new("bad");
    let cases: [(&str, &str, &[&str]); 6] = [
        (
            "empty.trace",
            "",
            &["empty.trace", "no delivery opportunities"],
        ),
        (
            "down.trace",
            "1\n5\n3\n",
            &["down.trace, line 3", "3 ms after 5 ms"],
        ),
        (
            "text.trace",
            "1\n2\nfast\n",
            &["text.trace, line 3", "\"fast\""],
        ),
        (
            "zero.trace",
            "0\n0\n",
            &["zero.trace, line 2", "lasts 0 ms"],
        ),
        (
            "blank.trace",
            "1\n\n2\n",
            &["blank.trace, line 2", "empty line"],
        ),
        ("frac.trace", "1.5\n", &["frac.trace, line 1"]),
    ];
    for (name, text, needles) in cases {
        let file = t.write(name, text);
        common::expect_parse_error(
            parse(&scenario(&format!("{{ trace = {file:?} }}"), "")),
            "path.rate.trace",
            needles,
        );
    }
    common::expect_parse_error(
        parse(&scenario("{ trace = \"/nonexistent/x.trace\" }", "")),
        "path.rate.trace",
        &["cannot read the trace /nonexistent/x.trace"],
    );
    common::expect_parse_error(
        parse(&scenario("{ trace = \"x\", offset = \"1s\" }", "")),
        "path.rate.offset",
        &["trace_offset"],
    );
    common::expect_parse_error(
        parse(&scenario("{ trace_offset = \"1s\" }", "")),
        "path.rate.trace",
        &["missing"],
    );
    common::expect_parse_error(
        parse(&scenario("\"10Mbps\"", "\n[reverse]\nqueue = \"5pkt\"")),
        "reverse.queue",
        &["reverse.rate"],
    );
}

/// mahimahi counts a packet against the queue's limit until its first
/// opportunity (it leaves `packet_queue_` only then). The first window,
/// 10 segments handed to an idle trace-driven link at one instant with a
/// 1-packet queue: one waits for the next opportunity and nine are
/// dropped (a constant-rate link would be sending the first at once and
/// keep one more).
#[test]
fn a_packet_counts_against_the_queue_until_its_first_opportunity() {
    let t = Traces::new("head");
    let file = t.write("1ms.trace", "1\n");
    let text = format!(
        "duration = \"10s\"\n[path]\nrate = {{ trace = {file:?} }}\ndelay = \"20ms\"\nqueue = \"1pkt\"\n\
         [[flow]]\nname = \"a\"\ncc = \"newreno\"\nmss = \"1448B\"\ninit_cwnd = 10\n\
         app = {{ kind = \"bytes\", size = \"14480B\" }}\n"
    );
    let mut sim = Simulation::new(&parse(&text).unwrap()).unwrap();
    // The handshake takes 1 ms on the link and 40 ms of delay; the window
    // is sent when the SYN-ACK arrives, at 41 ms.
    sim.run_until(45 * losslab_core::time::MS);
    assert_eq!(sim.results().path.queue_drops, 9);
    sim.run();
    assert_eq!(sim.results().flows[0].bytes_delivered, 14_480);
    let fixed = text.replace(&format!("{{ trace = {file:?} }}"), "\"12032kbps\"");
    let mut sim = Simulation::new(&parse(&fixed).unwrap()).unwrap();
    sim.run_until(45 * losslab_core::time::MS);
    assert_eq!(sim.results().path.queue_drops, 8);
}

/// The ACKs' time on the reverse path (sent to delivered), from the
/// packet events.
#[derive(Default)]
struct AckTransit {
    sent: std::collections::HashMap<u64, u64>,
    shortest: Option<u64>,
    seen: u64,
}

struct Shared(std::rc::Rc<std::cell::RefCell<AckTransit>>);

impl losslab_sim::Tracer for Shared {
    fn packet(
        &mut self,
        at: u64,
        p: &losslab_sim::sim::Packet,
        fate: losslab_sim::sim::PacketFate,
    ) {
        use losslab_sim::sim::{Body, PacketFate};
        if !matches!(p.body, Body::Ack(_)) {
            return;
        }
        let mut w = self.0.borrow_mut();
        match fate {
            PacketFate::Sent => {
                w.sent.insert(p.index, at);
            }
            PacketFate::Delivered => {
                if let Some(s) = w.sent.get(&p.index).copied() {
                    w.shortest = Some(w.shortest.map_or(at - s, |x: u64| x.min(at - s)));
                    w.seen += 1;
                }
            }
            _ => {}
        }
    }
}

/// An ACK sent at the instant of an opportunity misses it, also when the
/// ACK before it leaves at that instant. Data leaves a 1-ms trace on
/// whole milliseconds and is ACKed at once, so every ACK is sent at the
/// instant the one before it leaves the reverse link's 1-ms trace: each
/// must wait a whole millisecond there, 21 ms on the reverse path with
/// its 20 ms of delay; an ACK let through on the opportunity it arrived
/// at would take 20.
#[test]
fn an_ack_sent_as_the_one_before_leaves_waits_for_the_next_opportunity() {
    use losslab_core::time::MS;
    let t = Traces::new("tie");
    let file = t.write("1ms.trace", "1\n");
    let text = format!(
        "duration = \"5s\"\n[path]\nrate = {{ trace = {file:?} }}\ndelay = \"20ms\"\nqueue = \"100pkt\"\n\
         [reverse]\nrate = {{ trace = {file:?} }}\n\
         [[flow]]\nname = \"a\"\ncc = \"fixed:60\"\nmss = \"1448B\"\n\
         receiver = {{ ack = \"quick\" }}\napp = {{ kind = \"bytes\", size = \"1MB\" }}\n"
    );
    let mut sim = Simulation::new(&parse(&text).unwrap()).unwrap();
    let w = std::rc::Rc::new(std::cell::RefCell::new(AckTransit::default()));
    sim.set_tracer(Box::new(Shared(w.clone())));
    sim.run();
    assert_eq!(sim.results().flows[0].bytes_delivered, 1_000_000);
    let w = w.borrow();
    assert!(w.seen > 600, "{}", w.seen);
    assert_eq!(w.shortest, Some(21 * MS));
}
