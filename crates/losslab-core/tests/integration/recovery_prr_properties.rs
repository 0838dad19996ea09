//! Properties of PRR (RFC 9937, `prr`), PRR-SSRB as RFC 6937 has it
//! (`prr-6937`) and Linux 6.x's tcp_cwnd_reduction() (`prr-linux`, whose
//! divisor prior_cwnd is the flight here: the window was full), checked over random delivery sequences by driving the
//! RecoveryOps directly and keeping pipe the way the sender does: it falls
//! by what each ACK delivers and by what the detector marks lost, and rises
//! by what is sent; the sender sends min(cwnd - pipe, what it has), and the
//! fast retransmit goes regardless of cwnd (RFC 6675 step 4.3).
//!
//! - Twice the delivered data at most: prr_out <= 2 * prr_delivered. Both
//!   RFCs describe PRR-SSRB as PRR-CRB (strictly packet conserving: no more
//!   out than delivered) plus at most one segment per ACK (RFC 6937 section
//!   1, RFC 9937 section 1), i.e. slow start; with every ACK delivering at
//!   least one segment that is at most twice what was delivered. Per ACK:
//!   sent <= MAX(prr_delivered - prr_out, DeliveredData) + 1.
//! - Convergence: when losses <= RecoverFS - ssthresh and the application
//!   has data, pipe ends the lossy round trip at exactly ssthresh, the
//!   window PRR computes on the last ACK is ssthresh, and cwnd is ssthresh
//!   after the episode (paper section 4.3 property 2; RFC 9937 section 7).
//! - Banking: when the application stalls, the unused sending
//!   opportunities show as prr_delivered - prr_out and are sent once data
//!   is back, in a burst of at most prr_delivered - prr_out + 1, catching
//!   up exactly with a run that never stalled (paper section 4.3 property 3
//!   and figure 4; RFC 9937 section 7).

use losslab_core::recovery::{Prr, Prr6937, PrrLinux, RateHalving, RecoveryCtx, RecoveryOps};
use losslab_core::Window;
use proptest::prelude::*;

trait Counters: RecoveryOps {
    fn delivered(&self) -> u64;
    fn out(&self) -> u64;
}
impl Counters for Prr {
    fn delivered(&self) -> u64 {
        self.prr_delivered()
    }
    fn out(&self) -> u64 {
        self.prr_out()
    }
}
impl Counters for Prr6937 {
    fn delivered(&self) -> u64 {
        self.prr_delivered()
    }
    fn out(&self) -> u64 {
        self.prr_out()
    }
}
impl Counters for PrrLinux {
    fn delivered(&self) -> u64 {
        self.prr_delivered()
    }
    fn out(&self) -> u64 {
        self.prr_out()
    }
}

#[derive(Clone, Copy, Debug)]
struct AckIn {
    delivered: u64,
    newly_lost: u64,
    una_advanced: bool,
}

/// The sender's side of one recovery episode.
struct Episode<'a> {
    ops: &'a mut dyn RecoveryOps,
    w: Window,
    pipe: u64,
    /// Marked lost, not yet retransmitted.
    rexmit_pending: u64,
    /// New segments the application has written and not yet sent.
    new_data: u64,
    /// Segments sent in the episode and segments delivered (the harness's
    /// own count of prr_out and prr_delivered).
    out: u64,
    delivered: u64,
}

/// What one ACK did.
#[derive(Clone, Copy, Debug)]
struct Step {
    /// cwnd as the RecoveryOps left it, before sending.
    cwnd: u64,
    pipe_before_send: u64,
    sent: u64,
    /// prr_delivered - prr_out before this ACK's sends.
    banked: i64,
}

impl<'a> Episode<'a> {
    /// `flight` segments outstanding of which `sacked` were SACKed before
    /// the entering ACK (reordering); the entering ACK delivers
    /// `entry.delivered` and the detector marks `entry.newly_lost`.
    fn enter(
        ops: &'a mut dyn RecoveryOps,
        flight: u64,
        sacked: u64,
        ssthresh: u64,
        entry: AckIn,
        new_data: u64,
    ) -> (Self, Step) {
        let mut w = Window::new(flight);
        w.ssthresh = ssthresh;
        let pipe = flight - sacked - entry.delivered - entry.newly_lost;
        let ctx = RecoveryCtx {
            pipe,
            packets_out: flight,
            sacked_out: sacked + entry.delivered,
            snd_una_advanced: false,
            new_loss: true,
            newly_lost: entry.newly_lost,
            ack_una_advanced: entry.una_advanced,
            mss: 1000,
            ..Default::default()
        };
        ops.init_cwnd_reduction(&mut w, &ctx);
        ops.cwnd_reduction(&mut w, &ctx, entry.delivered, true);
        let mut e = Episode {
            ops,
            w,
            pipe,
            rexmit_pending: entry.newly_lost,
            new_data,
            out: 0,
            delivered: entry.delivered,
        };
        let cwnd = e.w.cwnd;
        let banked = e.delivered as i64;
        // The fast retransmit, whatever cwnd says.
        e.rexmit_pending -= 1;
        e.send_one();
        let sent = 1 + e.send_allowed();
        (
            e,
            Step {
                cwnd,
                pipe_before_send: pipe,
                sent,
                banked,
            },
        )
    }

    fn send_one(&mut self) {
        self.ops.on_sent(1);
        self.out += 1;
        self.pipe += 1;
    }

    /// RFC 6675 step C: retransmissions first, then new data, while
    /// pipe < cwnd and there is something to send.
    fn send_allowed(&mut self) -> u64 {
        let mut n = 0;
        while self.pipe < self.w.cwnd {
            if self.rexmit_pending > 0 {
                self.rexmit_pending -= 1;
            } else if self.new_data > 0 {
                self.new_data -= 1;
            } else {
                break;
            }
            self.send_one();
            n += 1;
        }
        n
    }

    fn ack(&mut self, a: AckIn) -> Step {
        self.pipe -= a.delivered + a.newly_lost;
        self.rexmit_pending += a.newly_lost;
        self.delivered += a.delivered;
        let ctx = RecoveryCtx {
            pipe: self.pipe,
            snd_una_advanced: a.una_advanced,
            new_loss: a.newly_lost > 0,
            newly_lost: a.newly_lost,
            ack_una_advanced: a.una_advanced,
            mss: 1000,
            ..Default::default()
        };
        self.ops
            .cwnd_reduction(&mut self.w, &ctx, a.delivered, false);
        let cwnd = self.w.cwnd;
        let pipe_before_send = self.pipe;
        let banked = self.delivered as i64 - self.out as i64;
        let sent = self.send_allowed();
        Step {
            cwnd,
            pipe_before_send,
            sent,
            banked,
        }
    }

    fn exit(&mut self) -> u64 {
        let ctx = RecoveryCtx {
            pipe: self.pipe,
            snd_una_advanced: true,
            ..Default::default()
        };
        self.ops.end_cwnd_reduction(&mut self.w, &ctx);
        self.w.cwnd
    }
}

// ---- twice the delivered data ---------------------------------------------

#[derive(Clone, Debug)]
struct General {
    flight: u64,
    ssthresh: u64,
    sacked: u64,
    lost: u64,
    entry_delivered: u64,
    acks: Vec<(u64, u64, bool)>,
    new_data: u64,
}

fn general() -> impl Strategy<Value = General> {
    (4u64..=100)
        .prop_flat_map(|flight| {
            (
                Just(flight),
                2u64..=(flight - 1).max(2),
                0u64..=flight / 4,
                prop::collection::vec((1u64..=4, 0u64..=2, any::<bool>()), 1..80),
                0u64..=200,
            )
        })
        .prop_flat_map(|(flight, ssthresh, sacked, acks, new_data)| {
            let room = flight - sacked;
            (
                Just((flight, ssthresh, sacked, acks, new_data)),
                1u64..=room - 1,
            )
        })
        .prop_flat_map(|((flight, ssthresh, sacked, acks, new_data), lost)| {
            let left = flight - sacked - lost;
            (
                Just((flight, ssthresh, sacked, acks, new_data, lost)),
                1u64..=left.min(3),
            )
        })
        .prop_map(
            |((flight, ssthresh, sacked, acks, new_data, lost), entry_delivered)| General {
                flight,
                ssthresh,
                sacked,
                lost,
                entry_delivered,
                acks,
                new_data,
            },
        )
}

fn check_twice<P: Counters>(ops: &mut P, g: &General) -> Result<(), TestCaseError> {
    let entry = AckIn {
        delivered: g.entry_delivered,
        newly_lost: g.lost,
        una_advanced: false,
    };
    let (mut e, step) = Episode::enter(ops, g.flight, g.sacked, g.ssthresh, entry, g.new_data);
    prop_assert!(step.sent <= step.banked.max(entry.delivered as i64) as u64 + 1);
    prop_assert!(e.out <= 2 * e.delivered);
    for &(d, lost, una) in &g.acks {
        if e.pipe == 0 {
            // Nothing left to acknowledge: the retransmission timer's turn.
            break;
        }
        let d = d.min(e.pipe);
        let a = AckIn {
            delivered: d,
            newly_lost: lost.min(e.pipe - d),
            una_advanced: una,
        };
        let before = e.out;
        let step = e.ack(a);
        prop_assert!(
            step.sent <= step.banked.max(d as i64) as u64 + 1,
            "sent {} banked {} delivered {d}",
            step.sent,
            step.banked
        );
        prop_assert!(
            e.out <= 2 * e.delivered,
            "out {} delivered {}",
            e.out,
            e.delivered
        );
        prop_assert_eq!(e.out, before + step.sent);
        prop_assert!(step.cwnd >= 1);
    }
    // The episode's borrow of `ops` ends here.
    let (out, delivered) = (e.out, e.delivered);
    // The harness and the algorithm count the same things.
    prop_assert_eq!((ops.out(), ops.delivered()), (out, delivered));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn prr_sends_at_most_twice_what_was_delivered(g in general()) {
        check_twice(&mut Prr::new(), &g)?;
    }

    #[test]
    fn prr_6937_sends_at_most_twice_what_was_delivered(g in general()) {
        check_twice(&mut Prr6937::ssrb(), &g)?;
    }

    #[test]
    fn prr_linux_sends_at_most_twice_what_was_delivered(g in general()) {
        check_twice(&mut PrrLinux::new(), &g)?;
    }
}

// ---- convergence and banking ----------------------------------------------

/// One lossy round trip: `flight` outstanding at entry (nothing SACKed
/// before), `lost` of them lost and all marked on the entering ACK, the
/// survivors acknowledged in `batches` (the first is the entering ACK).
#[derive(Clone, Debug)]
struct Round {
    flight: u64,
    ssthresh: u64,
    lost: u64,
    batches: Vec<(u64, bool)>,
}

fn round() -> impl Strategy<Value = Round> {
    (4u64..=100)
        .prop_flat_map(|flight| (Just(flight), 2u64..=flight - 1))
        .prop_flat_map(|(flight, ssthresh)| {
            // losses <= RecoverFS - ssthresh
            (Just((flight, ssthresh)), 1u64..=flight - ssthresh)
        })
        .prop_flat_map(|((flight, ssthresh), lost)| {
            let survivors = flight - lost;
            (
                Just((flight, ssthresh, lost)),
                prop::collection::vec((1u64..=4, any::<bool>()), survivors as usize),
            )
        })
        .prop_map(|((flight, ssthresh, lost), raw)| {
            // Cut the survivors into batches of the drawn sizes.
            let mut left = flight - lost;
            let mut batches = vec![];
            for (d, una) in raw {
                if left == 0 {
                    break;
                }
                let d = d.min(left);
                left -= d;
                batches.push((d, una));
            }
            Round {
                flight,
                ssthresh,
                lost,
                batches,
            }
        })
}

/// Runs the round with the application stalled (no new data) on ACKs
/// `stall` (indices into the batches after the entering one); returns
/// (cwnd computed on the last ACK, pipe after its sends, prr_out, steps).
fn run_round(
    ops: &mut dyn RecoveryOps,
    r: &Round,
    stall: std::ops::Range<usize>,
) -> (u64, u64, u64, Vec<Step>, u64) {
    let entry = AckIn {
        delivered: r.batches[0].0,
        newly_lost: r.lost,
        una_advanced: false,
    };
    let bulk = u64::MAX / 2;
    let (mut e, first) = Episode::enter(
        ops,
        r.flight,
        0,
        r.ssthresh,
        entry,
        if stall.contains(&0) { 0 } else { bulk },
    );
    let mut steps = vec![first];
    let mut last_cwnd = first.cwnd;
    for (i, &(d, una)) in r.batches.iter().enumerate().skip(1) {
        e.new_data = if stall.contains(&i) { 0 } else { bulk };
        let s = e.ack(AckIn {
            delivered: d,
            newly_lost: 0,
            una_advanced: una,
        });
        last_cwnd = s.cwnd;
        steps.push(s);
    }
    let pipe = e.pipe;
    let out = e.out;
    let exit_cwnd = e.exit();
    (last_cwnd, pipe, out, steps, exit_cwnd)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn prr_converges_to_ssthresh_for_losses_within_the_reduction(r in round()) {
        for ops in [
            &mut Prr::new() as &mut dyn RecoveryOps,
            &mut Prr6937::ssrb(),
            &mut PrrLinux::new(),
        ] {
            let name = ops.name();
            let (last_cwnd, pipe, _, _, exit_cwnd) = run_round(ops, &r, 0..0);
            prop_assert_eq!(pipe, r.ssthresh, "{} pipe at the end of the round", name);
            prop_assert_eq!(last_cwnd, r.ssthresh, "{} cwnd on the last ACK", name);
            prop_assert_eq!(exit_cwnd, r.ssthresh, "{}", name);
        }
    }

    #[test]
    fn prr_banks_sending_opportunities_during_a_stall(
        r in round(),
        a in 0usize..100,
        len in 1usize..100,
    ) {
        // A stall that ends at least one ACK before the round does.
        let n = r.batches.len();
        prop_assume!(n >= 2);
        let a = a % (n - 1);
        let b = (a + len).min(n - 1);
        for (stalled, steady) in [
            (&mut Prr::new() as &mut dyn RecoveryOps, &mut Prr::new() as &mut dyn RecoveryOps),
            (&mut Prr6937::ssrb(), &mut Prr6937::ssrb()),
            (&mut PrrLinux::new(), &mut PrrLinux::new()),
        ] {
            let name = stalled.name();
            let (_, pipe, out, steps, _) = run_round(stalled, &r, a..b);
            let (_, pipe0, out0, _, _) = run_round(steady, &r, 0..0);
            // Caught up exactly with the flow that never stalled.
            prop_assert_eq!(pipe, pipe0, "{}", name);
            prop_assert_eq!(out, out0, "{}", name);
            prop_assert_eq!(pipe, r.ssthresh, "{}", name);
            // The catch-up burst stays within what was banked, plus one.
            let burst = steps[b];
            prop_assert!(
                burst.sent as i64 <= burst.banked + 1,
                "{} burst {} banked {}", name, burst.sent, burst.banked
            );
        }
    }
}

// ---- the examples ----------------------------------------------------------

/// In the spirit of the paper's figure 4: 20 segments, one lost; the
/// application has nothing more to send until half way through recovery,
/// then writes 10 segments. Segments 2 and 3 were SACKed before the third
/// duplicate ACK; ssthresh = 10.
fn figure4(ops: &mut dyn RecoveryOps, data_at: usize) -> (Vec<Step>, u64, u64) {
    let entry = AckIn {
        delivered: 1,
        newly_lost: 1,
        una_advanced: false,
    };
    let (mut e, first) = Episode::enter(ops, 20, 2, 10, entry, 0);
    let mut steps = vec![first];
    // ACKs for segments 5..20, one each.
    for i in 1..=16 {
        if i == data_at {
            e.new_data = 10;
        }
        steps.push(e.ack(AckIn {
            delivered: 1,
            newly_lost: 0,
            una_advanced: false,
        }));
    }
    let pipe = e.pipe;
    let exit = e.exit();
    (steps, pipe, exit)
}

#[test]
fn figure4_banked_opportunities_go_out_as_one_burst() {
    // The data arrives with the 7th ACK of recovery (prr_delivered = 7):
    // "the algorithm in the PRR mode allows a burst of up to ratio x
    // (prr_delivered - prr_out) which in this example is three segments
    // (ratio is 0.5 for New Reno)": 0.5 x (7 - 1) = 3.
    for ops in [
        &mut Prr::new() as &mut dyn RecoveryOps,
        &mut Prr6937::ssrb(),
    ] {
        let name = ops.name();
        let (steps, pipe, exit) = figure4(ops, 6);
        let sent: Vec<u64> = steps.iter().map(|s| s.sent).collect();
        assert_eq!(sent[..6], [1, 0, 0, 0, 0, 0], "{name}");
        assert_eq!(sent[6], 3, "{name}: {sent:?}");
        assert!(
            steps[6].pipe_before_send > 10,
            "still in the proportional part"
        );
        // "Thereafter PRR continues spreading the new segments among
        // incoming ACKs": one every other ACK, then filling to ssthresh.
        assert!(sent[7..].iter().all(|&s| s <= 1), "{name}: {sent:?}");
        assert_eq!(pipe, 10, "{name}: back at ssthresh");
        assert_eq!(exit, 10);
    }
    // Rate-halving has no memory of the stall: on the same ACK it releases
    // one segment, as on any other.
    let (steps, _, _) = figure4(&mut RateHalving::new(), 6);
    assert_eq!(steps[6].sent, 1);
}

#[test]
fn after_a_stall_to_the_end_prr_leaves_at_ssthresh_rate_halving_at_pipe_plus_one() {
    // The application writes nothing more before recovery ends (the PRR
    // paper's figure 2 situation): only the retransmission is in flight.
    let (_, pipe, exit) = figure4(&mut RateHalving::new(), usize::MAX);
    assert_eq!((pipe, exit), (1, 2), "rate-halving: cwnd = pipe + 1");
    for ops in [
        &mut Prr::new() as &mut dyn RecoveryOps,
        &mut Prr6937::ssrb(),
    ] {
        let (_, pipe, exit) = figure4(ops, usize::MAX);
        assert_eq!((pipe, exit), (1, 10), "PRR: cwnd = ssthresh");
    }
}

#[test]
fn rfc9937_recover_fs_leaves_out_data_sacked_before_entry() {
    // 40 outstanding, 20 already SACKed before the entering ACK (reordering
    // seen earlier), 2 lost, ssthresh 20. RFC 6937's RecoverFS = 40 makes
    // the proportional part send at half the intended rate; RFC 9937's
    // RecoverFS = 40 - 21 + 1 = 20 keeps it on target (RFC 9937 section 4).
    let run = |ops: &mut dyn RecoveryOps| {
        let entry = AckIn {
            delivered: 1,
            newly_lost: 2,
            una_advanced: false,
        };
        let (mut e, first) = Episode::enter(ops, 44, 20, 10, entry, u64::MAX / 2);
        let mut out = first.sent;
        for _ in 0..6 {
            out += e
                .ack(AckIn {
                    delivered: 1,
                    newly_lost: 0,
                    una_advanced: false,
                })
                .sent;
        }
        out
    };
    let mut new = Prr::new();
    let mut old = Prr6937::ssrb();
    let (n, o) = (run(&mut new), run(&mut old));
    assert_eq!(new.recover_fs(), 44 - 21 + 1);
    assert_eq!(old.recover_fs(), 44);
    // 7 delivered: CEIL(7 * 10 / 24) = 3 against CEIL(7 * 10 / 44) = 2.
    assert_eq!((n, o), (3, 2));
}

#[test]
fn rfc6937_grants_ssrb_on_an_ack_that_delivers_nothing() {
    let zero = AckIn {
        delivered: 0,
        newly_lost: 0,
        una_advanced: false,
    };
    let entry = AckIn {
        delivered: 1,
        newly_lost: 10,
        una_advanced: false,
    };
    // pipe = 20 - 1 - 10 = 9 < ssthresh 10 after entry.
    let mut old = Prr6937::ssrb();
    let (mut e, _) = Episode::enter(&mut old, 20, 0, 15, entry, u64::MAX / 2);
    let before = e.out;
    let s = e.ack(zero);
    assert_eq!(s.sent, 1, "RFC 6937 computes on every ACK: MAX(.., 0) + 1");
    assert!(e.out > before);

    let mut new = Prr::new();
    let (mut e, _) = Episode::enter(&mut new, 20, 0, 15, entry, u64::MAX / 2);
    let s = e.ack(zero);
    assert_eq!(s.sent, 0, "RFC 9937 6.2: if DeliveredData is 0, return");
}
