//! Property: under any pattern of loss, reordering and duplication of data
//! and ACKs, every byte reaches the receiving application exactly once and
//! in order, the flow finishes, and nothing panics. The engine's
//! scoreboard invariants are re-checked after every ACK and transmission
//! (the `invariants` feature of losslab-core, on for these tests).

use crate::common;

use common::*;
use losslab_core::detect::{ErMitigation, ErVariant};
use losslab_core::event::{Event, Timed};
use losslab_core::time::MS;
use losslab_core::RtoFormula;
use losslab_sim::scenario::*;
use losslab_sim::sim::{Packet, PacketFate, Side};
use losslab_sim::{Simulation, Tracer};
use proptest::prelude::*;
use std::cell::RefCell;
use std::rc::Rc;

/// Checks, at the receiver, that the in-order point only moves forward
/// and never past what was sent.
#[derive(Default)]
struct Watch {
    max_rcv_nxt: u64,
    violations: Vec<String>,
}

struct Shared(Rc<RefCell<Watch>>);

impl Tracer for Shared {
    fn wants_endpoint_events(&self) -> bool {
        true
    }
    fn endpoint(&mut self, _flow: usize, side: Side, ev: &Timed) {
        let mut w = self.0.borrow_mut();
        if side == Side::Receiver {
            if let Event::AckSent { ack, .. } = ev.event {
                if ack < w.max_rcv_nxt {
                    w.violations
                        .push(format!("cumulative ACK went back to {ack}"));
                }
                w.max_rcv_nxt = w.max_rcv_nxt.max(ack);
            }
        }
    }
    fn packet(&mut self, _at: u64, _p: &Packet, _f: PacketFate) {}
}

fn loss_model(kind: u8, p: f64) -> LossModel {
    match kind {
        0 => LossModel::None,
        1 => LossModel::Bernoulli { p },
        _ => LossModel::GilbertElliott {
            p_gb: p / 2.0,
            p_bg: 0.3,
            loss_good: p / 4.0,
            loss_bad: 0.6,
        },
    }
}

#[derive(Debug, Clone)]
struct Case {
    segments: u64,
    mss: u32,
    data_loss: (u8, f64),
    ack_loss: (u8, f64),
    reorder: (f64, u64),
    ack_reorder: (f64, u64),
    dup: f64,
    ack_dup: f64,
    quick: bool,
    sack_blocks: u8,
    rcvbuf_bytes: u64,
    read_rate: Option<u64>,
    fixed: Option<u64>,
    seed: u64,
    /// A name from `losslab_core::detect::NAMES`.
    detection: &'static str,
    er_mitigation: ErMitigation,
    lost_retransmission_detection: bool,
    dsack_undo: bool,
    /// A name from `losslab_core::timers::NAMES`.
    timers: &'static str,
    er_variant: ErVariant,
    linux_rto: bool,
    restart_after_idle: bool,
    /// 0: one write of every byte; n: the bytes as n requested objects.
    objects: u64,
    /// The flow's own one-way delay, ms.
    flow_delay: u64,
    /// A name from `losslab_core::cc::NAMES` ("fixed:N" takes `fixed`,
    /// or 10 segments when that is None).
    cc: &'static str,
    /// A name from `losslab_core::recovery::NAMES`.
    recovery: &'static str,
}

fn case() -> impl Strategy<Value = Case> {
    (
        (1u64..150, prop_oneof![Just(1448u32), Just(536), 1u32..2000]),
        ((0u8..3, 0.0..0.3f64), (0u8..3, 0.0..0.3f64)),
        ((0.0..0.2f64, 0u64..60), (0.0..0.2f64, 0u64..60)),
        (0.0..0.1f64, 0.0..0.1f64),
        (any::<bool>(), 0u8..=4, 300u64..300_000),
        (
            prop_oneof![Just(None), (100_000u64..5_000_000).prop_map(Some)],
            prop_oneof![Just(None), (1u64..40).prop_map(Some)],
            any::<u64>(),
        ),
        (
            prop::sample::select(losslab_core::detect::NAMES),
            prop::sample::select(ErMitigation::NAMES),
            any::<bool>(),
            any::<bool>(),
            prop::sample::select(losslab_core::timers::NAMES),
        ),
        (
            prop::sample::select(ErVariant::NAMES),
            any::<bool>(),
            any::<bool>(),
            0u64..5,
            0u64..30,
            prop::sample::select(losslab_core::cc::NAMES),
            prop::sample::select(losslab_core::recovery::NAMES),
        ),
    )
        .prop_map(
            |(
                (segments, mss),
                (dl, al),
                (ro, aro),
                (dup, ack_dup),
                (quick, sb, rb),
                (rr, fx, seed),
                (detection, mitigation, lrd, undo, timers),
                (variant, linux_rto, restart, objects, flow_delay, cc, recovery),
            )| Case {
                segments,
                mss,
                data_loss: dl,
                ack_loss: al,
                reorder: ro,
                ack_reorder: aro,
                dup,
                ack_dup,
                quick,
                sack_blocks: sb,
                rcvbuf_bytes: rb,
                read_rate: rr,
                fixed: fx,
                seed,
                detection,
                er_mitigation: ErMitigation::from_name(mitigation).expect("a listed name"),
                lost_retransmission_detection: lrd,
                dsack_undo: undo,
                timers,
                er_variant: ErVariant::from_name(variant).expect("a listed name"),
                linux_rto,
                restart_after_idle: restart,
                objects,
                flow_delay,
                cc,
                recovery,
            },
        )
}

fn run(c: &Case) -> Result<(), TestCaseError> {
    let (mut p, mut r) = path(5_000_000, 10, loss_model(c.data_loss.0, c.data_loss.1));
    p.queue = QueueLimit::Packets(30);
    p.reorder = Reorder {
        p: c.reorder.0,
        delay: c.reorder.1 * MS,
    };
    p.duplicate = c.dup;
    r.loss = loss_model(c.ack_loss.0, c.ack_loss.1);
    r.reorder = Reorder {
        p: c.ack_reorder.0,
        delay: c.ack_reorder.1 * MS,
    };
    r.duplicate = c.ack_dup;
    let total = c.segments * c.mss as u64 - (c.seed % c.mss as u64).min(c.mss as u64 - 1);
    let mut f = FlowSpec::new("a");
    f.app = if c.objects == 0 {
        AppSpec::Bytes(total)
    } else {
        // n objects adding up to `total`, the last one the largest.
        let n = c.objects.min(total);
        let q = total / n;
        let mut sizes = vec![q; n as usize];
        sizes[n as usize - 1] = total - q * (n - 1);
        AppSpec::Objects { sizes, after: None }
    };
    f.early_retransmit.variant = c.er_variant;
    if c.linux_rto {
        f.rto_formula = RtoFormula::Linux;
    }
    f.slow_start_after_idle = c.restart_after_idle;
    f.delay = c.flow_delay * MS;
    // A host interface (`nic_rate`) on a quarter of the cases, from the
    // seed's bits so the saved cases keep their shape: slower than, as
    // fast as, or faster than the bottleneck.
    if c.seed % 4 == 3 {
        f.nic_rate = Some(p.rate / 2 * (1 + (c.seed >> 2) % 4));
        // and TCP Small Queues on half of those, from its own bits (the
        // pacing bits below would otherwise never leave it unpaced): one
        // segment's worth, a few, or Linux's 128 KiB.
        if c.seed & (1 << 26) != 0 {
            f.tsq_limit = Some([1500, 4500, 16 << 10, 128 << 10][((c.seed >> 27) % 4) as usize]);
        }
    }
    f.mss = c.mss;
    f.receiver.ack = if c.quick {
        AckSpec::Quick
    } else {
        AckSpec::Delayed
    };
    f.receiver.sack_blocks = c.sack_blocks;
    f.receiver.rcvbuf = c.rcvbuf_bytes;
    f.receiver.read_rate = c.read_rate;
    f.cc = match (c.cc, c.fixed) {
        ("fixed:N", n) => CcSpec::Fixed(n.unwrap_or(10)),
        (name, _) => CcSpec::Named(name.into()),
    };
    if let Some(n) = c.fixed {
        if c.seed & 64 != 0 {
            f.cc = CcSpec::Fixed(n);
        }
    }
    // Pacing, from the seed's bits: the default (controllers with their
    // own rate pace), always, or never.
    f.pacing = match (c.seed >> 4) & 3 {
        1 => losslab_core::Pacing::Rate,
        2 => losslab_core::Pacing::Off,
        _ => losslab_core::Pacing::Auto,
    };
    f.detection = c.detection.into();
    // LE with the receiver's echoed transmission order or the SACK-inferred
    // one, with and without SACK (sack_blocks is drawn).
    if c.seed & (1 << 19) != 0 {
        f.le_order = losslab_core::detect::LeOrder::Echo;
    }
    f.early_retransmit.mitigation = c.er_mitigation;
    f.lost_retransmission_detection = c.lost_retransmission_detection;
    f.dsack_undo = c.dsack_undo;
    f.timers = c.timers.into();
    // Linux 3.x's TLP re-arm, from a seed bit.
    if c.seed & (1 << 30) != 0 && matches!(c.timers, "tlp" | "tlpr") {
        f.tlp_rearm = losslab_core::timers::ProbeRearm::Linux3;
    }
    // Linux 3.x's probe timeout in jiffies (and so the jiffy tick), from
    // two more bits.
    if c.seed & (1 << 31) != 0 && matches!(c.timers, "tlp" | "tlpr") {
        f.timer_hz = 250;
        f.tlp_pto = if c.seed & (1 << 32) != 0 {
            losslab_core::timers::TlpPto::Linux310
        } else {
            losslab_core::timers::TlpPto::Linux315
        };
    }
    f.recovery = c.recovery.into();
    // QARR's and BARR's RTT_i, from the seed's bits.
    if c.seed & 128 != 0 {
        f.recovery_rtt_source = losslab_core::recovery::AckRtt::Delivered;
    }
    // F-RTO, the RFC 5681 ssthresh rule and Linux's non-SACK recovery
    // exit, drawn from the seed's bits.
    if c.seed & 2 != 0 {
        f.frto = losslab_core::FrtoMode::Linux;
    }
    if c.seed & 4 != 0 {
        f.rto_ssthresh = losslab_core::RtoSsthresh::Rfc5681;
    }
    if c.seed & 8 != 0 {
        f.recovery_exit = losslab_core::RecoveryExit::Linux;
    }
    // The mobile paper's extensions and Linux's send buffer, from more of
    // the seed's bits: opportunistic segments past the window may be
    // discarded by the receiver and must still arrive exactly once.
    if c.seed & 128 != 0 {
        f.extensions.push("opportunistic".into());
    }
    if c.seed & 256 != 0 {
        f.extensions.push("hack1".into());
    }
    match (c.seed >> 9) & 3 {
        1 => f.sndbuf_model = Some(losslab_core::sndbuf::LinuxSndbuf::default()),
        2 => f.extensions.push("sndbuf-factor-3".into()),
        3 => {
            f.sndbuf_model = Some(losslab_core::sndbuf::LinuxSndbuf {
                wmem_max: 20_000,
                ..Default::default()
            })
        }
        _ => {}
    }
    if c.seed & 2048 != 0 {
        f.cwnd_validation = losslab_core::CwndValidation::Linux310;
    }
    // OR3 (its three principles switched from the seed's bits): copies of
    // retransmissions are duplicates that must never corrupt the stream.
    let or3 = c.seed & 4096 != 0;
    if or3 {
        f.extensions.push("or3".into());
        f.or3 = losslab_core::recovery::Or3Params {
            max_replicas: 1 + ((c.seed >> 13) % 7) as u32,
            opportunism: c.seed & (1 << 16) == 0,
            redundancy: c.seed & (1 << 17) == 0,
            randomization: c.seed & (1 << 18) == 0,
            spread_cycles: 1 + ((c.seed >> 19) % 64) as u32,
            overbooking: if c.seed & (1 << 25) == 0 {
                losslab_core::recovery::Overbooking::Released
            } else {
                losslab_core::recovery::Overbooking::FreeBuffer
            },
        };
    }
    // Trace-driven links (issue 34), from the seed's high bits: the data
    // path drained by a bursty trace with gaps (several opportunities in
    // one millisecond, idle stretches, a loop), and an ACK path with a
    // link and a short queue of its own.
    if c.seed & (1 << 40) != 0 {
        let mut ms = Vec::new();
        let mut t = 1 + (c.seed >> 41) % 5;
        for k in 0..40u64 {
            for _ in 0..=(c.seed >> (44 + k % 8)) % 3 {
                ms.push(t as u32);
            }
            t += 1 + ((c.seed >> (k % 16)) % 7) * ((c.seed >> 52) % 4);
        }
        let trace = LinkTrace {
            file: "prop".into(),
            ms: ms.into(),
            offset: ((c.seed >> 56) % 50) * MS,
        };
        p.rate = trace.mean_rate_bps();
        p.trace = Some(trace);
    }
    if c.seed & (1 << 58) != 0 {
        r.link = Some(ReverseLink {
            rate: [20_000, 200_000, 5_000_000][((c.seed >> 59) % 3) as usize],
            trace: None,
            queue: QueueLimit::Packets(1 + (c.seed >> 61) % 4),
        });
    }
    let mut sc = scenario("prop", 20_000, (p, r), vec![f]);
    sc.seed = c.seed;
    let mut sim = Simulation::new(&sc).unwrap();
    let watch = Rc::new(RefCell::new(Watch::default()));
    sim.set_tracer(Box::new(Shared(watch.clone())));
    sim.run();
    let res = sim.results();
    let fl = &res.flows[0];
    let w = watch.borrow();
    prop_assert!(w.violations.is_empty(), "{:?}", w.violations);
    if fl.handshake_s.is_none() {
        // The connection never opened: every SYN (SYN-ACK) or its answer
        // was lost, as can happen with these loss rates (a real stack
        // gives up too). Nothing may have been delivered.
        prop_assert!(c.data_loss.0 > 0 || c.ack_loss.0 > 0, "{:?}", fl);
        prop_assert_eq!(fl.bytes_delivered, 0);
        return Ok(());
    }
    prop_assert_eq!(fl.bytes_delivered, total, "all bytes, in order");
    prop_assert!(w.max_rcv_nxt <= total);
    prop_assert!(fl.fct_s.is_some(), "flow did not finish: {:?}", fl);
    prop_assert!(res.sim_time_s < 20_000.0);
    // Copies are counted apart: every transmission is an original, a
    // retransmission or a copy, and copies exist only with OR3.
    let originals = fl.segments_by_retransmissions.iter().sum::<u64>();
    prop_assert!(fl.segments_sent >= fl.retransmissions + fl.redundant_copies);
    prop_assert!(fl.segments_sent - fl.retransmissions - fl.redundant_copies >= originals);
    prop_assert!(or3 || fl.redundant_copies == 0);
    prop_assert!(fl.redundant_duplicates <= fl.redundant_copies);
    prop_assert!(fl.spurious_retransmissions <= fl.retransmissions);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    #[test]
    fn every_byte_arrives_once_in_order(c in case()) {
        run(&c)?;
    }
}

#[test]
fn thirty_percent_loss_in_both_directions_with_lost_retransmissions() {
    for seed in 0..20 {
        let names = losslab_core::detect::NAMES;
        let c = Case {
            segments: 120,
            mss: 1448,
            data_loss: (1, 0.3),
            ack_loss: (1, 0.3),
            reorder: (0.05, 30),
            ack_reorder: (0.05, 30),
            dup: 0.05,
            ack_dup: 0.05,
            quick: seed % 2 == 0,
            sack_blocks: (seed % 5) as u8,
            rcvbuf_bytes: 64 * 1448,
            read_rate: None,
            fixed: None,
            seed,
            detection: names[seed as usize % names.len()],
            er_mitigation: ErMitigation::Both,
            lost_retransmission_detection: seed % 3 != 0,
            dsack_undo: seed % 4 != 0,
            timers: losslab_core::timers::NAMES[seed as usize % losslab_core::timers::NAMES.len()],
            er_variant: if seed % 2 == 0 {
                ErVariant::Linux
            } else {
                ErVariant::Rfc5827
            },
            linux_rto: seed % 3 == 0,
            restart_after_idle: seed % 2 == 1,
            objects: seed % 4,
            flow_delay: seed % 7,
            cc: losslab_core::cc::NAMES[seed as usize % losslab_core::cc::NAMES.len()],
            recovery: losslab_core::recovery::NAMES
                [seed as usize % losslab_core::recovery::NAMES.len()],
        };
        run(&c).unwrap();
    }
}

/// Found by the property above: ns-2's Sack1 held in Linux's non-SACK
/// recovery exit (the ACK of exactly the recovery point holds Recovery)
/// sets cwnd 0 from its own pipe estimate with nothing in flight; no ACK
/// can come, and before the probe timer's data wake-up (Linux
/// tcp_write_wakeup()) the flow stopped at 43 of 48 bytes.
#[test]
fn a_shut_cwnd_with_nothing_in_flight_is_woken_by_the_probe_timer() {
    let c = Case {
        segments: 48,
        mss: 1,
        data_loss: (0, 0.0),
        ack_loss: (2, 0.19578867308866174),
        reorder: (0.1545984992459627, 29),
        ack_reorder: (0.0, 0),
        dup: 0.0,
        ack_dup: 0.010519868782792518,
        quick: false,
        sack_blocks: 0,
        rcvbuf_bytes: 300,
        read_rate: None,
        fixed: None,
        seed: 522889474851744318,
        detection: "dupthresh",
        er_mitigation: ErMitigation::None,
        lost_retransmission_detection: false,
        dsack_undo: false,
        timers: "rto",
        er_variant: ErVariant::Rfc5827,
        linux_rto: false,
        restart_after_idle: false,
        objects: 0,
        flow_delay: 0,
        cc: "vegas",
        recovery: "ns2-sack1",
    };
    // Linux's recovery exit and F-RTO are drawn from the seed's bits.
    assert_ne!(c.seed & 8, 0);
    run(&c).unwrap();
}

/// Found by the property above: BBR paced at 19.2 kbit/s, a two-segment
/// receive buffer, and the ACK carrying the window update lost on a
/// 20 kbit/s reverse link. The last ACK left 360 bytes of window, under
/// the sender's SWS threshold, with nothing in flight. The pacing gate
/// was still closed from the last send; it asks for no wake-up when the
/// window is what holds the data, and poll_transmit returned before the
/// probe timer was armed. No ACK could come and the flow stopped at
/// 121,694 of 179,457 bytes. Linux arms the probe timer after any
/// tcp_write_xmit() that leaves nothing in flight with data queued,
/// whichever check stopped it.
#[test]
fn a_window_shut_while_the_pacer_waits_is_woken_by_the_probe_timer() {
    let c = Case {
        segments: 124,
        mss: 1453,
        data_loss: (1, 0.082945919802578),
        ack_loss: (2, 0.25008585037943376),
        reorder: (0.0, 0),
        ack_reorder: (0.05578851898203379, 10),
        dup: 0.06672735966692508,
        ack_dup: 0.0,
        quick: false,
        sack_blocks: 1,
        rcvbuf_bytes: 2908,
        read_rate: Some(363250),
        fixed: None,
        seed: 500147124755257748,
        detection: "dupthresh",
        er_mitigation: ErMitigation::None,
        lost_retransmission_detection: false,
        dsack_undo: false,
        timers: "tlp",
        er_variant: ErVariant::Rfc5827,
        linux_rto: false,
        restart_after_idle: false,
        objects: 2,
        flow_delay: 21,
        cc: "bbr",
        recovery: "rfc6675",
    };
    // Paced always, and the 20 kbit/s reverse link, from the seed's bits.
    assert_eq!((c.seed >> 4) & 3, 1);
    assert_ne!(c.seed & (1 << 58), 0);
    run(&c).unwrap();
}

/// Found by the property above: BBR paced at 210 kbit/s times out with
/// seven segments out; the pacer holds the retransmission, and an ACK
/// SACKing an original arrives first, so F-RTO undoes the timeout. The
/// RTO timer was armed only when the retransmission left, which now it
/// never did: data in flight, nothing left to send (the next object is
/// requested only after this one), no timer, and the flow stopped at
/// 141,712 of 202,338 bytes. RFC 6298 (5.6) and Linux
/// tcp_retransmit_timer() arm the backed-off timer at the expiry.
#[test]
fn a_timeout_undone_before_its_paced_retransmission_leaves_keeps_a_timer() {
    let c = Case {
        segments: 140,
        mss: 1448,
        data_loss: (2, 0.2950381332190531),
        ack_loss: (1, 0.02684433164180637),
        reorder: (0.0, 0),
        ack_reorder: (0.10073376978618638, 48),
        dup: 0.03979545294891734,
        ack_dup: 0.0,
        quick: false,
        sack_blocks: 3,
        rcvbuf_bytes: 46336,
        read_rate: None,
        fixed: None,
        seed: 17665259033714372358,
        detection: "fack",
        er_mitigation: ErMitigation::None,
        lost_retransmission_detection: false,
        dsack_undo: false,
        timers: "rto",
        er_variant: ErVariant::Rfc5827,
        linux_rto: false,
        restart_after_idle: false,
        objects: 4,
        flow_delay: 28,
        cc: "bbr",
        recovery: "rfc3517",
    };
    // Linux's F-RTO from the seed's bits.
    assert_ne!(c.seed & 2, 0);
    run(&c).unwrap();
}
