//! Defaults that do not lie: on a path that loses nothing, a flow with
//! every setting at its default takes no timeout and sends no spurious
//! retransmission, for any RTT from 1 ms to 1 s (issue 10: the RFC 6298
//! formula with a 200 ms floor, no handshake and a fixed 200 ms delayed ACK
//! raced each other into spurious timeouts).

use crate::common;

use common::*;
use losslab_sim::scenario::*;
use losslab_sim::Simulation;

#[test]
fn no_timeout_and_no_spurious_retransmission_at_any_rtt() {
    for rtt_us in [1_000u64, 10_000, 100_000, 1_000_000] {
        for (rate, app) in [
            (20_000_000u64, AppSpec::Bytes(3_000_000)),
            (20_000_000, AppSpec::Bytes(14_480)),
            (20_000_000, AppSpec::Bytes(1_448 * 11)),
            (5_000_000, AppSpec::Bulk),
            (
                100_000_000,
                AppSpec::Objects {
                    sizes: vec![30_000, 1_448, 2_000, 100_000],
                    after: None,
                },
            ),
        ] {
            let (mut p, r) = path(rate, 0, LossModel::None);
            p.delay = rtt_us * 500;
            let r = ReverseSpec {
                delay: p.delay,
                ..r
            };
            // A queue no flow can fill: nothing is lost.
            p.queue = QueueLimit::Packets(100_000);
            let mut f = FlowSpec::new("a");
            f.app = app.clone();
            let sc = scenario("loss-free", 30, (p, r), vec![f]);
            let mut sim = Simulation::new(&sc).unwrap();
            sim.run();
            let res = sim.results();
            let fl = &res.flows[0];
            let what = format!("RTT {rtt_us} us, {app:?}: {fl:?}");
            assert_eq!(res.path.drops, 0, "{what}");
            assert_eq!(fl.timeouts, 0, "{what}");
            assert_eq!(fl.retransmissions, 0, "{what}");
            assert_eq!(fl.spurious_retransmissions, 0, "{what}");
            assert_eq!(fl.tail_probes, 0, "{what}");
        }
    }
}

#[test]
fn a_lost_syn_costs_the_initial_rto_and_linux_keeps_its_sample() {
    // 40 ms RTT. The first SYN is dropped: the second leaves at 1 s
    // (RFC 6298 2.1), the handshake completes at 1.04 s; Linux's rules
    // take the timestamp sample of the second SYN and keep IW 10, RFC's
    // fall back to RTO 3 s and IW 1.
    let text = |rules: &str| {
        format!(
            "[path]\nrate = \"10Mbps\"\ndelay = \"20ms\"\nloss = {{ model = \"drop\", flow = \"a\", syns = [1] }}\n[[flow]]\nname = \"a\"\nhandshake_rules = \"{rules}\"\napp = {{ kind = \"bytes\", size = \"14480B\" }}\n"
        )
    };
    for (rules, rtt_samples_min) in [("linux", Some(40.0)), ("rfc", None::<f64>)] {
        let sc = losslab_sim::parse::parse_scenario("t.toml", &text(rules), &[]).unwrap();
        let mut sim = Simulation::new(&sc).unwrap();
        sim.run();
        let res = sim.results();
        let fl = &res.flows[0];
        assert_eq!(fl.syn_retransmissions, 1, "{rules}: {fl:?}");
        let hs = fl.handshake_s.unwrap();
        assert!((hs - 1.040).abs() < 0.001, "{rules}: {hs}");
        assert_eq!((fl.timeouts, fl.retransmissions), (0, 0), "{rules}");
        // Linux: IW 10 in one round (FCT about 1.04 + 0.02 + 10 x 1.2 ms
        // + 0.02); RFC: IW 1, then slow start over four rounds.
        let fct = fl.fct_s.unwrap();
        match rtt_samples_min {
            Some(m) => {
                assert!((fl.rtt_ms.min.unwrap() - m).abs() < 0.5, "{fl:?}");
                assert!(fct < 1.10, "{rules}: {fct}");
            }
            None => assert!(fct > 1.15, "{rules}: {fct}"),
        }
    }
    // A drop list of SYNs needs a flow that sends one.
    let bad = text("linux").replace("app =", "handshake = false\napp =");
    let e = losslab_sim::parse::parse_scenario("t.toml", &bad, &[]).unwrap_err();
    assert!(e.to_string().contains("handshake = false"), "{e}");
}
