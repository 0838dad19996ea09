//! `probe_gate`: in which state a loss probe may be armed. Linux's
//! tcp_schedule_loss_probe() arms one only in CA_Open (nothing SACKed,
//! lost or retransmitted), the TLP draft only in its "Open state", RFC
//! 8985 (7.2) not while segments are SACKed; losslab before the key
//! armed one whenever neither recovery ran (`ProbeGate::Recovery`).

use crate::common;

use common::{bytes_config, send_all};
use losslab_core::time::MS;
use losslab_core::timers::{ProbeGate, RackTlp, TimerCtx, Tlp, Tlpr};
use losslab_core::wire::Ack;
use losslab_core::{Algorithms, Sender};

/// `segments` segments, IW `iw`, NewReno, PRR, DupThresh and the probing
/// policy `timers` with `gate` (None: its own, as `timers::build` gives).
fn sender_with(segments: u64, iw: u64, timers: &str, gate: Option<ProbeGate>) -> Sender {
    let mut alg = Algorithms::by_name("newreno", "prr", "dupthresh", timers, 3).unwrap();
    if let Some(g) = gate {
        alg.timers = match timers {
            "tlp" => Box::new(Tlp::default().with_gate(g)),
            "tlpr" => Box::new(Tlpr::default().with_gate(g)),
            "rack-tlp" => Box::new(RackTlp::default().with_gate(g)),
            t => panic!("{t} arms no probe"),
        };
    }
    Sender::new(bytes_config(segments, iw), alg, 0)
}

/// Ten segments, IW 20.
fn sender(timers: &str, gate: Option<ProbeGate>) -> Sender {
    sender_with(10, 20, timers, gate)
}

/// An ACK up to segment `cum`, SACKing `sacked`, echoing the first sends.
fn ack(cum: u64, sacked: Option<(u64, u64)>) -> Ack {
    common::ack(cum, sacked.as_slice(), 1)
}

/// Where the probe is due after the ACKs at 10 ms: 2 SRTT after them,
/// TLPR's 2 SRTT after the last segment was sent (paper 2.3).
fn probe_due(timers: &str) -> u64 {
    if timers == "tlpr" {
        20 * MS
    } else {
        30 * MS
    }
}

/// Ten segments at 0 ms, the first seven acknowledged at 10 ms (SRTT 10
/// ms, RTO 200 ms, a probe due at `probe_due`), then at 15 ms an ACK that
/// SACKs segment 9 alone: segment 8 is missing, one SACKed segment is
/// below DupThresh, so no recovery starts. Returns the timer after that
/// ACK.
fn one_sack_in_open(s: &mut Sender, timers: &str) -> u64 {
    assert_eq!(send_all(s, 0).len(), 10);
    for n in 1..=7 {
        s.on_ack(10 * MS, &ack(n, None));
    }
    assert_eq!(s.rtt().srtt(), Some(10 * MS));
    assert_eq!(s.rtt().rto(), 200 * MS);
    assert_eq!(
        s.poll_timeout(),
        Some(probe_due(timers)),
        "{timers}: the probe, before the SACK"
    );
    s.on_ack(15 * MS, &ack(7, Some((9, 10))));
    assert!(!s.in_recovery());
    assert_eq!(s.sacked_out(), 1);
    s.poll_timeout().unwrap()
}

#[test]
fn a_sack_in_open_state_cancels_the_probe_for_the_rto() {
    for timers in ["tlp", "tlpr", "rack-tlp"] {
        for gate in [None, Some(ProbeGate::Linux), Some(ProbeGate::Rfc8985)] {
            let mut s = sender(timers, gate);
            // The RTO restarted by the last ACK of new data (10 ms).
            assert_eq!(
                one_sack_in_open(&mut s, timers),
                210 * MS,
                "{timers} {gate:?}"
            );
            s.on_timeout(210 * MS);
            assert_eq!(s.stats().timeouts, 1, "{timers} {gate:?}");
            assert_eq!(s.stats().tail_probes, 0, "{timers} {gate:?}");
        }
    }
}

#[test]
fn the_gate_before_the_key_keeps_the_probe() {
    for timers in ["tlp", "tlpr", "rack-tlp"] {
        let mut s = sender(timers, Some(ProbeGate::Recovery));
        let due = probe_due(timers);
        assert_eq!(one_sack_in_open(&mut s, timers), due, "{timers}");
        s.on_timeout(due);
        let p = send_all(&mut s, due);
        assert_eq!(p.len(), 1, "{timers}: {p:?}");
        assert!(p[0].probe);
        assert_eq!(s.stats().tail_probes, 1, "{timers}");
    }
}

#[test]
fn an_ack_of_new_data_with_the_sack_still_held_arms_the_rto() {
    // At 20 ms segment 7 is acknowledged; segment 9 stays SACKed. The
    // timer restarts: the RTO under the two gates that see the SACK, the
    // probe under the old one (2 SRTT, two segments out; segment 7's 20
    // ms sample moves SRTT to 10 + (20 - 10) / 8 = 11.25 ms).
    for (gate, want) in [
        (ProbeGate::Linux, 220 * MS),
        (ProbeGate::Rfc8985, 220 * MS),
        (ProbeGate::Recovery, 42_500 * losslab_core::time::US),
    ] {
        let mut s = sender("tlp", Some(gate));
        one_sack_in_open(&mut s, "tlp");
        s.on_ack(20 * MS, &ack(8, Some((9, 10))));
        assert_eq!(s.poll_timeout(), Some(want), "{gate:?}");
    }
}

#[test]
fn the_probe_returns_once_the_hole_is_filled() {
    // More data behind: the ACK at 20 ms fills the hole (segments 7..9),
    // the sender is back in Open with nothing SACKed and the new segments
    // get a probe again.
    let mut s = sender_with(20, 10, "tlp", None);
    assert_eq!(send_all(&mut s, 0).len(), 10);
    for n in 1..=7 {
        s.on_ack(10 * MS, &ack(n, None));
        send_all(&mut s, 10 * MS);
    }
    s.on_ack(15 * MS, &ack(7, Some((9, 10))));
    assert_eq!(s.poll_timeout(), Some(210 * MS));
    s.on_ack(20 * MS, &ack(10, None));
    send_all(&mut s, 20 * MS);
    let t = s.poll_timeout().unwrap();
    assert!(t < 20 * MS + s.rtt().rto(), "a probe, not the RTO: {t}");
}

/// The three gates on hand-made states: Linux's also refuses a state with
/// nothing SACKed but a retransmission outstanding or the first segment
/// once retransmitted (CA_Disorder by tcp_any_retrans_done()), which RFC
/// 8985's allows.
#[test]
fn the_gates_by_state() {
    let open = TimerCtx {
        packets_out: 3,
        ..Default::default()
    };
    let sacked = TimerCtx {
        sacked_out: 1,
        disorder: true,
        ..open
    };
    let retransmitted = TimerCtx {
        disorder: true,
        ..open
    };
    let recovering = TimerCtx {
        in_recovery: true,
        ..open
    };
    use ProbeGate::*;
    for (gate, want) in [
        (Linux, [true, false, false, false]),
        (Rfc8985, [true, false, true, false]),
        (Recovery, [true, true, true, false]),
    ] {
        let got = [open, sacked, retransmitted, recovering].map(|c| gate.allows(&c));
        assert_eq!(got, want, "{gate:?}");
    }
    assert_eq!(ProbeGate::of_timers("tlp"), Linux);
    assert_eq!(ProbeGate::of_timers("tlpr"), Linux);
    assert_eq!(ProbeGate::of_timers("rack-tlp"), Rfc8985);
    for g in [Linux, Rfc8985, Recovery] {
        assert_eq!(ProbeGate::from_name(g.name()), Some(g));
    }
}

/// Linux's CA_Disorder test, term by term (tcp_left_out() ||
/// tcp_any_retrans_done()).
#[test]
fn ca_disorder_by_term() {
    use losslab_core::timers::ca_disorder;
    assert!(!ca_disorder(0, 0, false));
    assert!(ca_disorder(1, 0, false), "SACKed or lost");
    assert!(ca_disorder(0, 1, false), "a retransmission in flight");
    assert!(ca_disorder(0, 0, true), "the head once retransmitted");
}

/// Every policy that arms probes says so, and only those: the sender
/// computes the gate's state only for them.
#[test]
fn the_probing_policies_say_so() {
    for name in losslab_core::timers::NAMES {
        let t = losslab_core::timers::by_name(name).unwrap();
        assert_eq!(
            t.arms_probes(),
            matches!(*name, "tlp" | "tlpr" | "rack-tlp"),
            "{name}"
        );
    }
}

/// Without SACK a duplicate ACK counts as a SACKed segment, as Linux's
/// tcp_add_reno_sack() counts it: one duplicate ACK in Open closes the
/// gate (Linux itself probes only with SACK).
#[test]
fn a_duplicate_ack_without_sack_closes_the_gate() {
    for (gate, want) in [
        (ProbeGate::Linux, 210 * MS),
        (ProbeGate::Rfc8985, 210 * MS),
        (ProbeGate::Recovery, 30 * MS),
    ] {
        let mut s = sender("tlp", Some(gate));
        assert_eq!(send_all(&mut s, 0).len(), 10);
        for n in 1..=7 {
            s.on_ack(10 * MS, &ack(n, None));
        }
        assert_eq!(s.poll_timeout(), Some(30 * MS));
        s.on_ack(15 * MS, &ack(7, None));
        assert!(!s.in_recovery());
        assert_eq!(s.poll_timeout(), Some(want), "{gate:?}");
    }
}

/// New data sent while something is SACKed: the send restarts no probe
/// under the gates that see the SACK (tcp_write_xmit() ->
/// tcp_schedule_loss_probe() refuses outside CA_Open).
#[test]
fn a_send_while_sacked_arms_no_probe() {
    for (gate, probe) in [
        (ProbeGate::Linux, false),
        (ProbeGate::Rfc8985, false),
        (ProbeGate::Recovery, true),
    ] {
        let mut s = sender_with(40, 10, "tlp", Some(gate));
        assert_eq!(send_all(&mut s, 0).len(), 10);
        // Segment 0 acknowledged at 10 ms: slow start sends two more.
        s.on_ack(10 * MS, &ack(1, None));
        assert_eq!(send_all(&mut s, 10 * MS).len(), 2);
        // At 15 ms a SACK of segment 3 (1 and 2 missing) with the window
        // opened: the sender sends new data behind it.
        s.on_ack(15 * MS, &ack(1, Some((3, 4))));
        let sent = send_all(&mut s, 15 * MS);
        assert!(sent.iter().any(|x| x.tx_count == 1), "{gate:?}: {sent:?}");
        let t = s.poll_timeout().unwrap();
        // A probe would be 2 SRTT (20 ms) after the send; the RTO runs
        // from the ACK at 10 ms.
        assert_eq!(t == 35 * MS, probe, "{gate:?}: {t}");
        if !probe {
            assert_eq!(t, 210 * MS, "{gate:?}");
        }
    }
}
