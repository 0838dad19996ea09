//! Spurious retransmissions split by why the sender did not know the
//! receiver held the data (the OR3 paper's section III-B): the ACKs that
//! reported it were lost (`spurious_after_ack_loss`), or no ACK had
//! reported it yet (`spurious_unreported`).

use crate::common;

use common::*;
use losslab_core::time::MS;
use losslab_sim::parse::parse_scenario;
use losslab_sim::results::FlowResults;
use losslab_sim::scenario::*;
use losslab_sim::Simulation;

const MSS: u64 = 1448;

fn run(sc: &Scenario) -> FlowResults {
    let mut sim = Simulation::new(sc).unwrap();
    sim.run();
    sim.results().flows.remove(0)
}

/// Data packets 5 and 10 of 40 lost, one SACK block per ACK, a fixed
/// window of 20 segments from the start, a quick ACK for every segment, no
/// handshake (so the flow's ACKs are numbered from its first data), 100
/// ms round trip at 100 Mbit/s; `ack_drops` lists the flow's ACKs the
/// reverse path drops.
///
/// The first window's ACKs (numbered like the segments that caused them,
/// minus the two lost): #1-#4 acknowledge segments 1-4; segments 6-9
/// arrive above the first hole and #5-#8 carry the single block 6-9
/// (growing); segments 11-20 arrive above the second hole and #9-#18
/// carry only the newest block, 11-20, so from #9 on no ACK mentions 6-9.
fn two_holes_one_block(ack_drops: Vec<u64>) -> Scenario {
    let data_loss = LossModel::Drop {
        flow: "a".into(),
        which: DropSpec::Packets(vec![5, 10]),
    };
    let (p, mut r) = path(100_000_000, 50, data_loss);
    if !ack_drops.is_empty() {
        r.loss = LossModel::Drop {
            flow: "a".into(),
            which: DropSpec::Packets(ack_drops),
        };
    }
    let mut f = FlowSpec::new("a");
    f.cc = CcSpec::Fixed(20);
    f.init_cwnd = 20;
    f.handshake = false;
    f.receiver.ack = AckSpec::Quick;
    f.receiver.sack_blocks = 1;
    f.app = AppSpec::Bytes(40 * MSS);
    scenario("sack-block-lost", 10, (p, r), vec![f])
}

#[test]
fn sack_blocks_lost_with_their_acks_cause_spurious_retransmissions() {
    // #5-#8, the only ACKs that reported segments 6-9, are dropped. The
    // sender sees segments 11 and up SACKed above 5-10, so by RFC 6675
    // (three SACKed segments above) it takes all of 5-10 for lost and
    // retransmits them within the round trip, before the retransmission
    // of 5 comes back: 6, 7, 8 and 9, which the receiver held, are four
    // retransmissions caused by the lost ACKs.
    let f = run(&two_holes_one_block(vec![5, 6, 7, 8]));
    assert_eq!(f.retransmissions, 6);
    assert_eq!(f.spurious_retransmissions, 4);
    assert_eq!(f.spurious_after_ack_loss, 4);
    assert_eq!(f.spurious_unreported, 0);
}

#[test]
fn the_same_losses_without_ack_loss_retransmit_only_the_holes() {
    // #5-#8 arrive: the sender knows 6-9 are held and retransmits only 5
    // and 10. Its third retransmission is RFC 6675's rescue
    // retransmission of the last segment, sent while the original was
    // still on its way: spurious by the ground truth, but the receiver
    // did not hold it yet, so neither split counts it.
    let f = run(&two_holes_one_block(vec![]));
    assert_eq!(f.retransmissions, 3);
    assert_eq!(f.rescue_retransmissions, 1);
    assert_eq!(f.spurious_retransmissions, 1);
    assert_eq!(f.spurious_after_ack_loss, 0);
    assert_eq!(f.spurious_unreported, 0);
}

#[test]
fn dropping_acks_that_repeat_nothing_new_changes_nothing() {
    // #9 and #10 report 11-12, which #11-#18 report again: the sender
    // learns the same, and no retransmission is attributed to ACK loss.
    let f = run(&two_holes_one_block(vec![9, 10]));
    assert_eq!(f.spurious_after_ack_loss, 0);
    assert_eq!(f.spurious_unreported, 0);
}

#[test]
fn data_no_ack_has_reported_yet_is_unreported() {
    // One segment; the receiver holds its ACK for a fixed 500 ms delayed-
    // ACK timer, while the sender's RTO, from the handshake's 20 ms RTT,
    // is 20 ms + max(4 x 10 ms, 200 ms) = 220 ms. The timeout, at about
    // 240 ms, retransmits a segment the receiver has held since 30 ms
    // and never acknowledged: no ACK was lost, none had been sent.
    let (p, r) = path(100_000_000, 10, LossModel::None);
    let mut f = FlowSpec::new("a");
    f.receiver.linux_delack = false;
    f.receiver.delack_timeout = 500 * MS;
    f.app = AppSpec::Bytes(MSS);
    let res = run(&scenario("unreported", 10, (p, r), vec![f]));
    assert_eq!(res.timeouts, 1);
    assert_eq!(res.retransmissions, 1);
    assert_eq!(res.spurious_retransmissions, 1);
    assert_eq!(res.spurious_unreported, 1);
    assert_eq!(res.spurious_after_ack_loss, 0);
    // The duplicate is answered at once (with a DSACK), long before the
    // delayed ACK would have gone.
    assert!(res.fct_s.unwrap() < 0.05);
    assert_eq!(res.dsacks_received, 1);
}

#[test]
fn bursty_reverse_loss_from_a_scenario_file() {
    // The Gilbert-Elliott model on the ACK path, from TOML: bursts of
    // lost ACKs, and with one SACK block the reports they carried are
    // not repeated, so some retransmissions are due to them.
    let text = r#"
duration = "30s"
[path]
rate = "20Mbps"
delay = "40ms"
loss = { model = "bernoulli", p = 0.01 }
[reverse]
delay = "40ms"
loss = { model = "gilbert-elliott", p_gb = 0.02, p_bg = 0.3, loss_good = 0.0, loss_bad = 0.8 }
[[flow]]
name = "a"
cc = "cubic"
receiver = { sack_blocks = 1 }
"#;
    let sc = parse_scenario("test.toml", text, &[]).unwrap();
    let mut sim = Simulation::new(&sc).unwrap();
    sim.run();
    let r = sim.results();
    assert!(r.path.ack_drops > 0);
    assert!(r.path.config.reverse_loss.contains("gilbert-elliott"));
    let f = &r.flows[0];
    assert!(f.spurious_after_ack_loss > 0, "{f:?}");
    // Both splits count only retransmissions of held data, which the
    // ground truth counts too.
    assert!(f.spurious_after_ack_loss + f.spurious_unreported <= f.spurious_retransmissions);
}
