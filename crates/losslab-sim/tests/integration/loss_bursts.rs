//! Burst loss placement (`burst` / `bursts` in a `drop` model; the mobile
//! paper's bursts of 10 to 100 packets, Tables 1-2 and 4-5) and
//! `protect_retransmissions` (its section VIII "Optimal": the network
//! never drops a retransmission).

use crate::common;

use std::cell::RefCell;
use std::rc::Rc;

use common::*;
use losslab_core::time::{Time, MS, SEC};
use losslab_sim::parse::{parse_scenario, ScenarioError};
use losslab_sim::scenario::*;
use losslab_sim::sim::{Body, Packet, PacketFate};
use losslab_sim::{Simulation, Tracer};

/// Data packets of flow 0 as the path saw them: (time handed to the path,
/// index, tx_count) for each sent, and (index, tx_count) for each lost.
#[derive(Default)]
struct Log {
    sent: Vec<(Time, u64, u32)>,
    lost: Vec<(u64, u32)>,
}

struct Recorder(Rc<RefCell<Log>>);

impl Tracer for Recorder {
    fn packet(&mut self, at: Time, p: &Packet, fate: PacketFate) {
        let Body::Data(s) = p.body else { return };
        let mut log = self.0.borrow_mut();
        match fate {
            PacketFate::Sent => log.sent.push((at, p.index, s.tx_count)),
            PacketFate::LossDrop => log.lost.push((p.index, s.tx_count)),
            _ => {}
        }
    }
}

fn run(sc: &Scenario) -> (Log, losslab_sim::RunResults) {
    let log = Rc::new(RefCell::new(Log::default()));
    let mut sim = Simulation::new(sc).unwrap();
    sim.set_tracer(Box::new(Recorder(log.clone())));
    sim.run();
    let res = sim.results();
    drop(sim);
    (Rc::try_unwrap(log).ok().unwrap().into_inner(), res)
}

fn drop_model(which: DropSpec) -> LossModel {
    LossModel::Drop {
        flow: "a".into(),
        which,
    }
}

/// 20 Mbit/s, 100 ms RTT, one BDP of receive buffer (the window binds).
fn window_bound(loss: LossModel, protect: bool) -> Scenario {
    let mut f = FlowSpec::new("a");
    f.receiver.rcvbuf = 250_000;
    let (mut p, r) = path(20_000_000, 50, loss);
    p.protect_retransmissions = protect;
    scenario("bursts", 8, (p, r), vec![f])
}

#[test]
fn a_burst_drops_consecutive_packets_from_the_given_one() {
    let loss = drop_model(DropSpec::Bursts(vec![
        Burst {
            at: BurstStart::Packet(2000),
            length: 50,
        },
        Burst {
            at: BurstStart::Packet(6000),
            length: 10,
        },
    ]));
    let (log, res) = run(&window_bound(loss, false));
    let want: Vec<u64> = (2000..2050).chain(6000..6010).collect();
    let got: Vec<u64> = log.lost.iter().map(|l| l.0).collect();
    assert_eq!(got, want);
    assert_eq!(res.path.loss_drops, 60);
    assert_eq!(
        res.path.config.loss,
        r#"{ model = "drop", flow = "a", bursts = [{ at = 2000, length = 50 }, { at = 6000, length = 10 }] }"#
    );
}

#[test]
fn a_timed_burst_starts_with_the_first_packet_entering_at_or_after_its_time() {
    let at = 2 * SEC + 300 * MS;
    let loss = drop_model(DropSpec::Bursts(vec![Burst {
        at: BurstStart::Time(at),
        length: 100,
    }]));
    let (log, res) = run(&window_bound(loss, false));
    assert_eq!(res.path.queue_drops, 0, "every packet handed over entered");
    let first = log.sent.iter().find(|s| s.0 >= at).expect("sent after").1;
    let got: Vec<u64> = log.lost.iter().map(|l| l.0).collect();
    assert_eq!(got, (first..first + 100).collect::<Vec<_>>());
    assert_eq!(
        res.path.config.loss,
        r#"{ model = "drop", flow = "a", burst = { at = "2.3s", length = 100 } }"#
    );
}

#[test]
fn protect_retransmissions_never_drops_a_retransmission() {
    // Bernoulli at 3% and a burst of 400, four times the window's worth
    // beyond what the flow had sent, which the timeout's retransmissions
    // run into: without protection some retransmissions are lost, with it
    // none, whatever the model.
    let models = [
        LossModel::Bernoulli { p: 0.03 },
        drop_model(DropSpec::Bursts(vec![Burst {
            at: BurstStart::Packet(2000),
            length: 400,
        }])),
    ];
    for m in models {
        let (log, res) = run(&window_bound(m.clone(), false));
        let lost_rtx = log.lost.iter().filter(|l| l.1 > 1).count();
        assert!(
            lost_rtx > 0,
            "{m:?}: the test needs a retransmission at risk"
        );
        assert!(res.flows[0].retransmissions > 0);

        let (log, res) = run(&window_bound(m.clone(), true));
        assert!(!log.lost.is_empty());
        assert!(res.flows[0].retransmissions > 0);
        assert!(
            log.lost.iter().all(|l| l.1 == 1),
            "{m:?}: a retransmission was dropped"
        );
        // Every retransmission the sender made reached the receiver.
        let sent_rtx = log.sent.iter().filter(|s| s.2 > 1).count() as u64;
        assert_eq!(sent_rtx, res.flows[0].retransmissions);
        assert_eq!(res.path.loss_drops as usize, log.lost.len());
        if let LossModel::Drop { .. } = m {
            // The burst spans indices 2000..2400; the retransmissions in
            // it passed, so fewer than 400 were lost.
            assert!(log.lost.len() < 400, "{}", log.lost.len());
            assert!(log.lost.iter().all(|l| (2000..2400).contains(&l.0)));
        }
    }
}

fn parse(loss: &str) -> Result<Scenario, ScenarioError> {
    let text = format!(
        "[path]\nrate = \"20Mbps\"\ndelay = \"50ms\"\nloss = {loss}\n[[flow]]\nname = \"a\"\n"
    );
    parse_scenario("test.toml", &text, &[])
}

#[test]
fn burst_syntax() {
    let which = |s: Scenario| match s.path.loss {
        LossModel::Drop { which, .. } => which,
        other => panic!("{other:?}"),
    };
    let b = |at, length| Burst { at, length };
    assert_eq!(
        which(
            parse(r#"{ model = "drop", flow = "a", burst = { at = 5000, length = 50 } }"#).unwrap()
        ),
        DropSpec::Bursts(vec![b(BurstStart::Packet(5000), 50)])
    );
    assert_eq!(
        which(
            parse(r#"{ model = "drop", flow = "a", burst = { at = "20s", length = 10 } }"#)
                .unwrap()
        ),
        DropSpec::Bursts(vec![b(BurstStart::Time(20 * SEC), 10)])
    );
    assert_eq!(
        which(
            parse(
                r#"{ model = "drop", flow = "a", bursts = [{ at = 100, length = 1 }, { length = 2, at = "1.5s" }] }"#
            )
            .unwrap()
        ),
        DropSpec::Bursts(vec![
            b(BurstStart::Packet(100), 1),
            b(BurstStart::Time(1500 * MS), 2)
        ])
    );
    // Through --set as well.
    let text = "[path]\nrate = \"20Mbps\"\ndelay = \"50ms\"\n[[flow]]\nname = \"a\"\n";
    let s = parse_scenario(
        "test.toml",
        text,
        &[r#"path.loss={model="drop", flow="a", burst={at=7, length=3}}"#.to_string()],
    )
    .unwrap();
    assert_eq!(
        which(s),
        DropSpec::Bursts(vec![b(BurstStart::Packet(7), 3)])
    );
}

#[test]
fn burst_errors_name_the_key_and_the_expected_form() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            r#"{ model = "drop", flow = "a", burst = { length = 5 } }"#,
            "path.loss.burst.at",
            &["missing", "packet number like 5000", "\"20s\""],
        ),
        (
            r#"{ model = "drop", flow = "a", burst = { at = 5 } }"#,
            "path.loss.burst.length",
            &["missing", "consecutive packets"],
        ),
        (
            r#"{ model = "drop", flow = "a", burst = { at = 0, length = 5 } }"#,
            "path.loss.burst.at",
            &["at least 1", "1-based", "got 0"],
        ),
        (
            r#"{ model = "drop", flow = "a", burst = { at = 5, length = 0 } }"#,
            "path.loss.burst.length",
            &["at least 1", "got 0"],
        ),
        (
            r#"{ model = "drop", flow = "a", burst = { at = true, length = 5 } }"#,
            "path.loss.burst.at",
            &["packet number like 5000", "got the boolean true"],
        ),
        (
            r#"{ model = "drop", flow = "a", burst = { at = "20", length = 5 } }"#,
            "path.loss.burst.at",
            &["20"],
        ),
        (
            r#"{ model = "drop", flow = "a", burst = { at = 5, length = 5, every = 9 } }"#,
            "path.loss.burst.every",
            &["unknown key \"every\"", "at, length"],
        ),
        (
            r#"{ model = "drop", flow = "a", burst = [5, 6] }"#,
            "path.loss.burst",
            &["{ at = 5000, length = 50 }", "got an array"],
        ),
        (
            r#"{ model = "drop", flow = "a", bursts = { at = 5, length = 5 } }"#,
            "path.loss.bursts",
            &["an array of bursts like [{ at = 5000, length = 50 }]"],
        ),
        (
            r#"{ model = "drop", flow = "a", bursts = [{ at = 5, length = 5 }, { at = 1 }] }"#,
            "path.loss.bursts[1].length",
            &["missing"],
        ),
        (
            r#"{ model = "drop", flow = "a", packets = [1], burst = { at = 5, length = 5 } }"#,
            "path.loss.burst",
            &["only one of", "packets and burst"],
        ),
    ];
    for (loss, key, needles) in cases {
        expect_parse_error(parse(loss), key, needles);
    }
    // The ACK direction has no data packets to burst.
    let text = "[path]\nrate = \"20Mbps\"\ndelay = \"50ms\"\n[reverse]\nloss = { model = \"drop\", flow = \"a\", burst = { at = 5, length = 5 } }\n[[flow]]\nname = \"a\"\n";
    expect_parse_error(
        parse_scenario("test.toml", text, &[]),
        "reverse.loss.burst",
        &["unknown key \"burst\"", "packets, syns"],
    );
}
