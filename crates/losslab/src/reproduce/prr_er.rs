//! The PRR paper's section 6: Early Retransmit (RFC 5827) and its two
//! mitigations, against the Linux 3.2 sender without it, on short
//! responses over persistent connections through a path that loses and
//! slightly reorders packets (Table 11 and the numbers of section 6.1).
//!
//! The paper's ER ran over Linux's FACK. Our `variant = "linux"` is the
//! ER Linux shipped afterwards, which always turns itself off after
//! reordering, so it cannot be the paper's naive arm; every arm here
//! therefore detects loss the RFC 6675 way (`dupthresh`, and ER as RFC
//! 5827 writes it), so that the arms differ in ER and its mitigations
//! alone.
//!
//! The path is loaded to about a third of its rate, so losses are the
//! path's random ones, not queue overflows, and they fall anywhere in a
//! response, the tail included: where ER is meant to help. What the paper
//! counted from server logs we count from ground truth: a timeout "in
//! Disorder" is one that fired outside fast recovery while the last ACK
//! was a duplicate or reported SACKed data; an early retransmit is a fast
//! recovery entered with fewer than four segments outstanding (where only
//! RFC 5827 can start one); it is spurious when the segment it
//! retransmitted had not been dropped.

use std::collections::HashSet;

use losslab_core::detect::{ErMitigation, ErVariant};
use losslab_core::time::{Time, MS, SEC};
use losslab_sim::scenario::*;

use super::claims::{paired_difference, paired_relative, Band, Claim, Expect, Verdict};
use super::common::{path, quantile, scenario, FlowTrace, Gen, Responses, Run};
use super::prr_common::linux32;
use super::setup::{premise_exempt, Side};
use super::{Ctx, Experiment};
use losslab_sim::stats::summarize;

/// The Linux 3.2 profile's MSS (timestamps on): a response of more than
/// one segment is one ER can repair (Table 11's population).
const MSS: u64 = 1448;

/// What the ER experiment's setup takes that the paper does not dictate
/// (issue 28, D): each value, why it was chosen, and two values a
/// sensitivity run should try instead. One constant, `ER_SETUP`, so that
/// each can be overridden later. The paper does dictate the mean response
/// (7.5 kB, section 2), the ER delay (SRTT/4 in [25 ms, 500 ms]) and the
/// four arms.
pub(super) struct ErSetup {
    /// Bottleneck rate, 10 Mbit/s: with `conns` connections the offered
    /// load is about a third of it, so losses are the path's random ones
    /// (the paper's came from the Internet) rather than overflows.
    /// Alternatives: 5 Mbit/s (two-thirds loaded: overflows join in) and
    /// 30 Mbit/s.
    pub rate: u64,
    /// Round-trip propagation delay, 100 ms: one RTT whose SRTT/4 is the
    /// delay's 25 ms floor, so the delay is known for the hold sweep.
    /// Alternatives: 50 ms and 200 ms (SRTT/4 of 50 ms: the 40 ms hold then
    /// lies below the delay). The explanation of Table 11 also runs the
    /// web experiment's 20-400 ms (`MIXED_RTTS_MS`).
    pub rtt: Time,
    /// Drop-tail queue in BDPs (at `rtt`), 1: enough that the third of
    /// the rate offered rarely overflows it. Alternatives: 0.25 and 4.
    pub queue_bdps: f64,
    /// Random (Bernoulli) loss, 2%: the paper gives an average
    /// retransmission rate (2.8%, Table 1), not a loss rate or process;
    /// 2% is of that order. Alternatives: 1% and 4%.
    pub loss: f64,
    /// Share of packets held back, 3%: "a small degree of reordering"
    /// (abstract), not quantified. Alternatives: 1% and 10%.
    pub reorder_p: f64,
    /// The holds swept, at and around the ER delay's 25 ms floor (the
    /// paper gives no reordering distance, and the scenario format holds a
    /// packet back by one fixed time, so a distribution would need a
    /// simulator change): below (10 ms), at (25 ms) and above (40 ms). The
    /// rows are judged at `hold`, the notes give each row at every hold.
    pub holds: [Time; 3],
    /// The hold the rows are judged at, 40 ms: the only hold of the sweep
    /// at which the arm with the delay can retransmit a reordered segment
    /// spuriously, so the only one at which the rows on spurious early
    /// retransmits measure anything (`hold_decides`). Alternatives: 30 ms
    /// and 60 ms.
    pub hold: Time,
    /// Persistent connections sharing the path, 50 at every size (--quick
    /// and --full differ only in seeds, so all offer about 3 Mbit/s).
    /// Alternatives: 20 and 100 (about 1.2 and 6 Mbit/s offered).
    pub conns: usize,
    /// Responses per connection, 30 at every size. The paper's
    /// connections carried 3.1 requests on average (Table 1) and it says
    /// the first mitigation is weak "because most HTTP connections are
    /// short": ours are longer, which favours that mitigation; the
    /// paper's 3.1 would need connections opened in turn. Alternatives: 3
    /// and 10.
    pub responses: usize,
    /// Log-normal shape of the response sizes (mean 7.5 kB, the paper's),
    /// 1: the paper gives the mean only. Alternatives: 0.5 and 1.5 (the
    /// web experiment's).
    pub size_sigma: f64,
    /// Response sizes are clamped to this range (bytes).
    pub size_range: (u64, u64),
    /// Mean exponential think time between responses, 1 s (plus
    /// `min_gap_ms`), the first response within 1 s of the start.
    /// Alternatives: 200 ms and 5 s (an idle connection restarts from the
    /// restart window).
    pub think_ms: f64,
    pub min_gap_ms: Time,
    /// Seeds (workload, loss and reordering draws), paired across arms and
    /// holds, for --quick, the default and --full: 10, 20 and 40. More
    /// would narrow the inconclusive rows (each says how many).
    pub seeds: (usize, usize, usize),
}

/// The ER choices the setup table reruns (setup.rs).
pub(super) const ER_REORDERED: super::setup::Choice = super::setup::Choice {
    key: "er-reordered-share",
    value: "0.03",
    unit: "",
    why: "\"a small degree\" of reordering, not quantified by the paper",
    alternatives: ["0.01", "0.1"],
    experiments: &["er"],
    quick: false,
};
pub(super) const ER_RTT: super::setup::Choice = super::setup::Choice {
    key: "er-rtt",
    value: "100",
    unit: "ms",
    why: "SRTT/4 at 100 ms is the delay's 25 ms floor, so the delay is known (at 200 \
          ms it is 50 ms, above the judged 40 ms hold)",
    alternatives: ["50", "200"],
    experiments: &["er"],
    quick: false,
};

pub(super) const ER_HOLD: super::setup::Choice = super::setup::Choice {
    key: "er-judged-hold",
    value: "40",
    unit: "ms",
    why: "the paper gives no reordering distribution (its footnote 5 describes a sub-MSS last \
          segment SACKed first); the rows are judged at the one swept hold above the 25 ms ER \
          delay, where they can fail; at 25 ms and below they hold by construction",
    alternatives: ["25", "60"],
    experiments: &["er"],
    quick: false,
};
pub(super) const ER_RESPONSES: super::setup::Choice = super::setup::Choice {
    key: "er-responses-per-connection",
    value: "30",
    unit: "responses",
    why: "enough loss events per seed; the paper reports 3.1 requests per connection, and \
          long connections favour the first mitigation (no ER after reordering was seen), \
          which 'both' contains",
    alternatives: ["3", "10"],
    experiments: &["er"],
    quick: false,
};

pub(super) const ER_SETUP: ErSetup = ErSetup {
    rate: 10_000_000,
    rtt: 100 * MS,
    queue_bdps: 1.0,
    loss: 0.02,
    reorder_p: 0.03,
    holds: [10 * MS, 25 * MS, 40 * MS],
    hold: 40 * MS,
    conns: 50,
    responses: 30,
    size_sigma: 1.0,
    size_range: (200, 200_000),
    think_ms: 1000.0,
    min_gap_ms: 50,
    seeds: (10, 20, 40),
};

/// The four arms of the paper's experiment.
const ARMS: [(&str, Option<ErMitigation>); 4] = [
    ("baseline", None),
    ("ER", Some(ErMitigation::None)),
    (
        "ER + no ER after reordering",
        Some(ErMitigation::Reordering),
    ),
    ("ER + both mitigations", Some(ErMitigation::Both)),
];
const BASE: usize = 0;
const NAIVE: usize = 1;
const FIRST: usize = 2;
const BOTH: usize = 3;

/// What one arm gave on one seed.
#[derive(Clone, Debug, Default)]
struct ErStats {
    fast: f64,
    timeouts: f64,
    disorder_timeouts: f64,
    undos: f64,
    retransmissions: f64,
    early: f64,
    spurious_early: f64,
    /// Early retransmits DSACKs showed spurious (their recovery undone):
    /// how the paper counted.
    dsack_spurious_early: f64,
    /// Latencies (ms) of responses of more than one segment that lost a
    /// packet: Table 11's population.
    lossy_latency_ms: Vec<f64>,
}

/// Whether the sender was in Disorder at `t`: the last ACK at or before
/// `t` was a duplicate or reported SACKed data (Linux enters Disorder on
/// the first SACK, which may come on an ACK that also advances the
/// cumulative ACK).
fn in_disorder(tr: &FlowTrace, t: Time) -> bool {
    let upto = tr.acks.partition_point(|a| a.t <= t);
    let acks = &tr.acks[..upto];
    let Some(last) = acks.last() else {
        return false;
    };
    last.sacks || (acks.len() > 1 && acks[acks.len() - 2].ack == last.ack)
}

fn stats_of(r: &Run, flows: &[FlowSpec]) -> ErStats {
    let mut s = ErStats::default();
    for ((f, tr), spec) in r.results.flows.iter().zip(&r.traces).zip(flows) {
        s.fast += f.fast_recoveries as f64;
        s.timeouts += f.timeouts as f64;
        s.retransmissions += f.retransmissions as f64;
        let dropped: HashSet<u64> = tr.dropped_seqs.iter().copied().collect();
        let recs = &f.recoveries;
        for (k, x) in recs.iter().enumerate() {
            let t = (x.start_s * SEC as f64).round() as Time;
            match x.kind.as_str() {
                "fast" => {
                    if x.undone {
                        s.undos += 1.0;
                    }
                    // RFC 5827 applies with fewer than four segments
                    // outstanding, where RFC 6675's three SACKed
                    // segments cannot be had: so a fast recovery that
                    // began with fewer than four out was an early
                    // retransmit. (Counting duplicate ACKs instead
                    // misses that the first ACK carrying SACK blocks may
                    // also advance the cumulative ACK.)
                    if x.flight_at_start < 4 {
                        s.early += 1.0;
                        if x.undone {
                            s.dsack_spurious_early += 1.0;
                        }
                        let first = tr.retransmissions().find(|y| y.t >= t);
                        if first.is_some_and(|y| !dropped.contains(&y.seq)) {
                            s.spurious_early += 1.0;
                        }
                    }
                }
                "timeout" => {
                    // A timeout that ends a fast recovery fired in Recovery.
                    let in_recovery = k > 0
                        && recs[k - 1].kind == "fast"
                        && recs[k - 1]
                            .end_s
                            .is_some_and(|e| (e - x.start_s).abs() < 1e-9);
                    if !in_recovery && in_disorder(tr, t) {
                        s.disorder_timeouts += 1.0;
                    }
                }
                _ => {}
            }
        }
        s.lossy_latency_ms
            .extend(tr.response_latencies_ms(spec, |from, to, bytes| {
                bytes > MSS && dropped.iter().any(|&x| x >= from && x < to)
            }));
    }
    s
}

/// The RTTs of the explanation experiment for Table 11's quantiles: the
/// web experiment's spread, one per connection in turn, over a path of
/// the shortest (the rest is each connection's own access delay).
const MIXED_RTTS_MS: [u64; 5] = [20, 50, 100, 200, 400];

/// The ER delay's floor (SRTT/4, at least 25 ms: the arm with both
/// mitigations). The held packet's ACK reaches the sender less than the
/// hold after the duplicate ACK that armed the delay (the packets that
/// triggered it arrived after the held one was due), and any ACK cancels
/// the delayed early retransmit: at a hold no longer than the floor the
/// delay cancels every early retransmit that reordering causes.
const ER_DELAY_FLOOR: Time = 25 * MS;

/// Why the rows on the delay's spurious early retransmits are no evidence
/// at `hold`, if they are not.
fn hold_decides(hold: Time) -> Option<String> {
    (hold <= ER_DELAY_FLOOR).then(|| {
        format!(
            "packets are held back {} ms, no longer than the ER delay's {} ms floor, so the arm \
             with the delay cannot retransmit a reordered segment early: its spurious early \
             retransmits are zero whatever the algorithm does",
            hold / MS,
            ER_DELAY_FLOOR / MS
        )
    })
}

/// One seed of the ER experiment at hold `hold` under `setup`: each arm's
/// statistics (ARMS order), the same responses and loss draws under each
/// arm (and at each hold). `mixed` gives the connections `MIXED_RTTS_MS`
/// instead of one RTT and runs only the baseline and ER with both
/// mitigations (the other arms are left empty).
fn er_seed_with(
    ctx: &Ctx,
    setup: &ErSetup,
    k: u64,
    mixed: bool,
    hold: Time,
) -> Result<Vec<ErStats>, String> {
    let mut g = Gen::new(60_000 + k);
    let mut flows = Vec::new();
    let mut end = 0;
    let mix = Responses {
        first_ms: setup.think_ms,
        mean_bytes: 7_500.0,
        sigma: setup.size_sigma,
        bytes: setup.size_range,
        think_ms: setup.think_ms,
        min_gap_ms: setup.min_gap_ms,
    };
    for c in 0..setup.conns {
        let (w, t) = mix.draw(&mut g, |n, _| n < setup.responses);
        end = end.max(t);
        let mut f = linux32(&format!("c{c}"), "cubic", "prr-6937");
        f.app = AppSpec::Writes(w);
        if mixed {
            f.delay = (MIXED_RTTS_MS[c % MIXED_RTTS_MS.len()] - MIXED_RTTS_MS[0]) * MS / 2;
        }
        flows.push(f);
    }
    let bdp_packets = setup.rate / 8 * (setup.rtt / MS) / 1000 / 1500;
    let mut p = path(
        setup.rate,
        if mixed {
            MIXED_RTTS_MS[0] * MS / 2
        } else {
            setup.rtt / 2
        },
        QueueLimit::Packets((setup.queue_bdps * bdp_packets as f64).round() as u64),
        LossModel::Bernoulli { p: setup.loss },
    );
    p.0.reorder = Reorder {
        p: setup.reorder_p,
        delay: hold,
    };
    let mut out = Vec::new();
    for (i, (_, mitigation)) in ARMS.iter().enumerate() {
        if mixed && i != BASE && i != BOTH {
            out.push(ErStats::default());
            continue;
        }
        let mut fl = flows.clone();
        for f in &mut fl {
            f.detection = "dupthresh".into();
            if let Some(m) = mitigation {
                f.detection = "early-retransmit".into();
                f.early_retransmit.variant = ErVariant::Rfc5827;
                f.early_retransmit.mitigation = *m;
            }
        }
        let name = format!(
            "er{}-hold{}ms-seed{k}-arm{i}",
            if mixed { "-mixed-rtt" } else { "" },
            hold / MS
        );
        let mut sc = scenario(&name, end + 30 * SEC, p.clone(), fl);
        sc.seed = 600 + k;
        let r = ctx.run("er", &sc, None)?;
        for f in &r.results.flows {
            if f.fct_s.is_none() {
                return Err(format!("{}: {} did not finish", sc.name, f.name));
            }
        }
        out.push(stats_of(&r, &sc.flows));
    }
    Ok(out)
}

/// The ER rows on the runs at `hold` (`per_seed`, one entry per seed).
fn er_claims(per_seed: &[Vec<ErStats>], hold: Time, reorder_p: f64) -> Vec<Claim> {
    let col = |arm: usize, f: &dyn Fn(&ErStats) -> Option<f64>| -> Vec<Option<f64>> {
        per_seed.iter().map(|s| f(&s[arm])).collect()
    };
    let pairs = |a: usize, b: usize, f: &dyn Fn(&ErStats) -> Option<f64>| {
        col(a, f)
            .into_iter()
            .zip(col(b, f))
            .filter_map(|(x, y)| Some((x?, y?)))
            .unzip::<f64, f64, Vec<f64>, Vec<f64>>()
    };
    let effect = |id: &str,
                  statement: &str,
                  paper: f64,
                  a: usize,
                  b: usize,
                  f: &dyn Fn(&ErStats) -> Option<f64>| {
        let (x, y) = pairs(a, b, f);
        Claim::measured(
            "prr",
            "er",
            id,
            statement,
            Expect::Effect {
                paper,
                band: Band::EFFECT,
            },
            paired_relative(&x, &y, id),
            "",
        )
        .or_unexplained()
    };
    let mut out = vec![
        effect(
            "sec6-naive-er-fast-retransmits",
            "Section 6.1: naive ER makes 31% more fast retransmits than the baseline (fast recoveries, relative change per seed)",
            0.31,
            BASE,
            NAIVE,
            &|s| Some(s.fast),
        ),
        effect(
            "sec6-naive-er-timeouts",
            "Section 6.1: naive ER has 2% fewer timeouts than the baseline (relative change per seed)",
            -0.02,
            BASE,
            NAIVE,
            &|s| Some(s.timeouts),
        ),
        effect(
            "sec6-naive-er-undos",
            "Section 6.1: naive ER has 27% more undone (spurious) recoveries than the baseline (relative change per seed)",
            0.27,
            BASE,
            NAIVE,
            &|s| Some(s.undos),
        ),
        effect(
            "sec6-both-disorder-timeouts",
            "Section 6.1: ER with both mitigations has 34% fewer timeouts in Disorder than the baseline (relative change per seed)",
            -0.34,
            BASE,
            BOTH,
            &|s| Some(s.disorder_timeouts),
        ),
        effect(
            "sec6-both-retransmissions",
            "Section 6.1: ER with both mitigations retransmits 1% more than the baseline (relative change per seed)",
            0.01,
            BASE,
            BOTH,
            &|s| Some(s.retransmissions),
        ),
    ];
    let share_of = |f: &dyn Fn(&ErStats) -> f64| -> Vec<f64> {
        col(BOTH, &|s| (s.early > 0.0).then(|| f(s) / s.early))
            .into_iter()
            .flatten()
            .collect()
    };
    let share = share_of(&|s| s.spurious_early);
    let expect = Expect::Value {
        paper: 0.06,
        band: Band::SHARE,
    };
    // The paper counted by DSACK: does counting as it did close the gap?
    let by_dsack = summarize(&share_of(&|s| s.dsack_spurious_early), false, "er-dsack");
    let fits =
        super::claims::judge(&expect, &by_dsack).verdict == super::claims::Verdict::Reproduced;
    let why = format!(
        "{}tested whether the way of counting causes it: counting as the paper did, early \
         retransmits whose recovery a DSACK undid, the share is {}, {}",
        if fits {
            "Explained by the way of counting: "
        } else {
            "not yet explained; "
        },
        super::claims::summary_text(&by_dsack),
        if fits {
            "in the paper's band: the way of counting explains the difference"
        } else {
            "outside the paper's band: the counting does not explain it"
        }
    );
    out.push(
        Claim::measured(
            "prr",
            "er",
            "sec6-both-spurious-early-retransmits",
            &format!(
                "Section 6.1: with both mitigations 6% of early retransmits are spurious (share per seed; ours by ground truth, the paper's by DSACK; packets held back {} ms)",
                hold / MS
            ),
            expect,
            summarize(&share, false, "er-spurious"),
            &why,
        )
        .or_unexplained(),
    );
    if let (Some(c), Some(why)) = (out.last_mut(), hold_decides(hold)) {
        *c = c.clone().by_construction(&why);
    }
    // Headline 4 (abstract): the delay is what separates the arm with no
    // ER after reordering from the arm with both mitigations, so that
    // pair isolates it; naive ER against both is the headline's own
    // wording.
    let h4 = "Headline 4: \"delaying early retransmissions for a short interval is effective in avoiding spurious retransmissions in the presence of a small degree of reordering\" (abstract, section 6)";
    for (arm, id, what) in [
        (
            FIRST,
            "headline4-delay-avoids-spurious-early-retransmits",
            "ER with no ER after reordering - ER with both mitigations, which adds only the delay",
        ),
        (
            NAIVE,
            "headline4-delayed-vs-naive-er-spurious-early-retransmits",
            "naive ER - ER with both mitigations",
        ),
    ] {
        let (x, y) = pairs(arm, BOTH, &|s| Some(s.spurious_early));
        out.push(
            Claim::measured(
                "prr",
                "er",
                id,
                &format!(
                    "{h4}: fewer spurious early retransmits with the delay, {:.0}% of packets held back {} ms ({what}; early retransmits of segments not dropped, per seed)",
                    reorder_p * 100.0,
                    hold / MS
                ),
                Expect::Order {
                    paper_positive: true,
                },
                paired_difference(&y, &x, id),
                "",
            )
            .explained_by(|c| {
                let d: Vec<f64> = x.iter().zip(&y).map(|(a, b)| a - b).collect();
                super::claims::heavy_tail_explanation(&c.expect, &d, "seeds")
            })
            .headline(),
        );
        if let (Some(c), Some(why)) = (out.last_mut(), hold_decides(hold)) {
            *c = c.clone().by_construction(&why);
        }
    }
    let (x, y) = pairs(FIRST, BOTH, &|s| Some(s.undos));
    out.push(
        Claim::measured(
            "prr",
            "er",
            "sec6-delay-mitigation-helps",
            &format!(
                "Section 6.1: the first mitigation alone is not as effective as both: fewer undone recoveries with both (first only - both, per seed; packets held back {} ms)",
                hold / MS
            ),
            Expect::Order {
                paper_positive: true,
            },
            paired_difference(&y, &x, "er-first-vs-both"),
            "",
        )
        .or_unexplained(),
    );
    // The two arms differ only in the delay, so where the delay cancels
    // every early retransmit reordering causes, the undos it saves are
    // those early retransmits: the order follows from the hold.
    if let (Some(c), Some(why)) = (out.last_mut(), hold_decides(hold)) {
        *c = c.clone().by_construction(&format!(
            "{why}; the arm with only the first mitigation keeps those spurious early \
             retransmits and their undos"
        ));
    }
    for (q, paper) in [
        (0.05, -0.085),
        (0.10, -0.056),
        (0.50, -0.080),
        (0.90, -0.033),
        (0.99, -0.006),
    ] {
        let pct = (q * 100.0) as u32;
        out.push(effect(
            &format!("tab11-latency-q{pct}"),
            &format!(
                "Table 11: ER with both mitigations changes the {pct}th percentile latency of responses with losses by {:+.1}% (relative change per seed)",
                paper * 100.0
            ),
            paper,
            BASE,
            BOTH,
            &|s| {
                let mut v = s.lossy_latency_ms.clone();
                quantile(&mut v, q)
            },
        ));
    }
    out
}

/// The explanation experiments for the ER rows that need one. An effect
/// too small for our seeds is said to be so (claims::underpowered_
/// explanation). Table 11's quantiles are tested against one supposed
/// cause: our connections share one 100 ms RTT, where the fastest lossy
/// responses are repaired by fast retransmit in every arm, while the
/// paper's clients spread over many RTTs, and on short ones a timeout
/// (at least 200 ms) that ER avoids is most of a lossy response's
/// latency. The test: the same workloads with the web experiment's RTTs.
fn explain_er(
    ctx: &Ctx,
    claims: &mut [Claim],
    mixed_seed: impl Fn(usize) -> Result<Vec<ErStats>, String> + Sync,
    seeds: usize,
    hold: Time,
    reorder_p: f64,
) -> Result<(), String> {
    for c in claims.iter_mut().filter(|c| c.verdict.needs_explanation()) {
        if let Some(why) = super::claims::underpowered_explanation(c) {
            c.explanation = why;
        }
    }
    let waiting = |c: &Claim| {
        c.verdict.needs_explanation()
            && (c.explanation.is_empty() || c.explanation == super::claims::UNEXPLAINED)
            && c.id.starts_with("tab11-")
    };
    if !claims.iter().any(waiting) {
        return Ok(());
    }
    let mixed = super::common::par_map(ctx, seeds, mixed_seed)?;
    let alt = er_claims(&mixed, hold, reorder_p);
    for c in claims.iter_mut().filter(|c| waiting(c)) {
        let Some(a) = alt.iter().find(|a| a.id == c.id) else {
            continue;
        };
        let tested = format!(
            "with the web experiment's RTTs (20-400 ms, one per connection in turn; \
             experiment er, er-mixed-rtt-* runs) ours is {}, {}",
            super::claims::ours_text(a),
            a.verdict.name()
        );
        c.explanation = if super::claims::supports(c, a) {
            format!(
                "Explained by our single RTT: on one 100 ms RTT the fastest lossy responses are \
                 repaired by fast retransmit in every arm, while among clients of many RTTs a \
                 timeout (at least 200 ms) that ER avoids is most of a short-RTT lossy \
                 response's latency. Tested: {tested}."
            )
        } else {
            format!(
                "{}; tested and rejected that our single RTT causes it: {tested}",
                super::claims::UNEXPLAINED
            )
        };
    }
    Ok(())
}

/// Each ER arm's change against the baseline, per metric, with its 95% CI
/// over the seeds (paired).
fn er_chart(ctx: &Ctx, e: &mut Experiment, per_seed: &[Vec<ErStats>]) -> Result<(), String> {
    type Metric = fn(&ErStats) -> f64;
    let metrics: [(&str, Metric); 5] = [
        ("fast recoveries", |s| s.fast),
        ("timeouts", |s| s.timeouts),
        ("timeouts in Disorder", |s| s.disorder_timeouts),
        ("undone recoveries", |s| s.undos),
        ("retransmissions", |s| s.retransmissions),
    ];
    let groups: Vec<String> = metrics.iter().map(|m| m.0.to_string()).collect();
    let mut series = Vec::new();
    let mut ci = Vec::new();
    for arm in [NAIVE, FIRST, BOTH] {
        let mut means = Vec::new();
        let mut cis = Vec::new();
        for (name, f) in metrics {
            let base: Vec<f64> = per_seed.iter().map(|s| f(&s[BASE])).collect();
            let alg: Vec<f64> = per_seed.iter().map(|s| f(&s[arm])).collect();
            let r = paired_relative(&base, &alg, name);
            means.push(r.mean * 100.0);
            cis.push(
                r.ci95
                    .map_or([r.mean * 100.0; 2], |[a, b]| [a * 100.0, b * 100.0]),
            );
        }
        series.push((ARMS[arm].0.to_string(), means));
        ci.push(cis);
    }
    let dir = ctx.sub("er")?;
    losslab_viz::charts::grouped_bars_with(
        &dir.join("changes"),
        &losslab_viz::charts::BarsSpec {
            title: "Section 6.1: change against the Linux baseline, mean over seeds",
            x_label: "metric",
            y_label: "change against the baseline (%)",
            groups: &groups,
            series: &series,
            ci: &ci,
            ..Default::default()
        },
    )
    .map_err(|x| x.to_string())?;
    e.pictures.push("er/changes.png".into());
    Ok(())
}

/// Persistent connections carrying short responses over a path that
/// loses and reorders: what Early Retransmit and its mitigations do, at
/// each hold of `ER_SETUP.holds`; the rows are judged at `ER_SETUP.hold`.
pub fn early_retransmit(ctx: &Ctx) -> Result<Experiment, String> {
    let setup = &ErSetup {
        reorder_p: ctx.choice_f64(&ER_REORDERED)?,
        rtt: ctx.choice_u64(&ER_RTT)? * MS,
        hold: ctx.choice_u64(&ER_HOLD)? * MS,
        responses: ctx.choice_u64(&ER_RESPONSES)? as usize,
        ..ER_SETUP
    };
    // The swept holds, and the judged one if a setup rerun moved it.
    let mut holds = setup.holds.to_vec();
    if !holds.contains(&setup.hold) {
        holds.push(setup.hold);
    }
    // Every size runs the same connections and responses, so the same
    // offered load; only the seeds differ.
    let (quick, default, full) = setup.seeds;
    let seeds = ctx.pick(quick, default, full);
    let holds_text = setup
        .holds
        .iter()
        .map(|h| format!("{}", h / MS))
        .collect::<Vec<_>>()
        .join(", ");
    let mut e = Experiment::new(
        "er",
        "Early Retransmit under reordering (section 6, Table 11)",
        &format!(
            "{seeds} seeds; each: {} persistent connections of the Linux 3.2 sender (CUBIC, \
             PRR), {} responses each, log-normal sizes of mean 7.5 kB (sigma {}), exponential \
             think times of mean {:.0} s; {} Mbit/s, {} ms RTT, a {}-BDP queue (about {:.1} \
             Mbit/s offered, at every size: --quick and --full differ only in seeds), {:.0}% \
             random loss, {:.0}% of packets held back. Arms, all detecting loss as RFC 6675 \
             (the paper's ran over FACK; see prr_er.rs): baseline, ER (RFC 5827), ER with no \
             ER after reordering, ER with both mitigations (also the SRTT/4 delay, 25-500 ms). \
             The paper gives no reordering distribution (it found \"small reordering\" common \
             and gives no distance), and the scenario format holds a packet back by one fixed \
             time, so the hold is swept over {holds_text} ms on the same seeds: at a hold no \
             longer than the delay's 25 ms floor the delay cancels every early retransmit that \
             reordering causes, so the rows on the delayed arm's spurious early retransmits \
             hold by construction there. The rows are judged at {} ms, where they can fail; \
             the notes give every row's verdict at each hold. The paper's connections carried \
             3.1 requests on average, ours {} (ErSetup in prr_er.rs lists every setup choice \
             the paper does not dictate, why, and what to try instead).",
            setup.conns,
            setup.responses,
            setup.size_sigma,
            setup.think_ms / 1000.0,
            setup.rate / 1_000_000,
            setup.rtt / MS,
            setup.queue_bdps,
            setup.conns as f64 * 7_500.0 * 8.0 / (setup.think_ms + setup.min_gap_ms as f64)
                * 1000.0
                / 1e6,
            setup.loss * 100.0,
            setup.reorder_p * 100.0,
            setup.hold / MS,
            setup.responses,
        ),
    );
    let mut by_hold = Vec::new();
    for &hold in &holds {
        let per_seed = super::common::par_map(ctx, seeds, |k| {
            er_seed_with(ctx, setup, k as u64, false, hold)
        })?;
        by_hold.push((hold, per_seed));
    }
    let Some((_, per_seed)) = by_hold.iter().find(|(h, _)| *h == setup.hold) else {
        return Err(format!(
            "the judged hold {} ms is not swept",
            setup.hold / MS
        ));
    };
    e.claims = er_claims(per_seed, setup.hold, setup.reorder_p);
    explain_er(
        ctx,
        &mut e.claims,
        |k| er_seed_with(ctx, setup, k as u64, true, setup.hold),
        seeds,
        setup.hold,
        setup.reorder_p,
    )?;
    er_chart(ctx, &mut e, per_seed)?;
    e.notes = hold_notes(&e.claims, &by_hold, setup.reorder_p, setup.hold);
    for (i, (label, _)) in ARMS.iter().enumerate() {
        let s = &per_seed[0][i];
        e.row(
            format!("{label}: fast recoveries / timeouts / in Disorder / undone / retransmissions"),
            format!(
                "{} / {} / {} / {} / {}",
                s.fast, s.timeouts, s.disorder_timeouts, s.undos, s.retransmissions
            ),
            match i {
                BASE => "baseline",
                NAIVE => "+31% fast retransmits, -2% timeouts, +27% undos",
                FIRST => "not as effective (short connections)",
                _ => "-34% timeouts in Disorder, +1% retransmissions",
            },
        );
        e.row(
            format!("{label}: early retransmits (spurious) / lossy responses"),
            format!(
                "{} ({}) / {}",
                s.early,
                s.spurious_early,
                s.lossy_latency_ms.len()
            ),
            if i == BOTH { "6% spurious" } else { "-" },
        );
    }
    for &arm in &[NAIVE, FIRST, BOTH] {
        e.row(
            format!(
                "{}: early retransmits (spurious) at holds of {holds_text} ms",
                ARMS[arm].0
            ),
            by_hold
                .iter()
                .map(|(_, p)| format!("{} ({})", p[0][arm].early, p[0][arm].spurious_early))
                .collect::<Vec<_>>()
                .join(" / "),
            if arm == BOTH { "6% spurious" } else { "-" },
        );
    }
    Ok(e)
}

/// The hold is a setup choice the paper does not make: one note on what
/// was swept, then one per row with its verdict and ours at every hold
/// (the same seeds), saying whether the verdict depends on the hold.
fn hold_notes(
    judged: &[Claim],
    by_hold: &[(Time, Vec<Vec<ErStats>>)],
    reorder_p: f64,
    judged_hold: Time,
) -> Vec<String> {
    let at: Vec<(Time, Vec<Claim>)> = by_hold
        .iter()
        .map(|(h, p)| (*h, er_claims(p, *h, reorder_p)))
        .collect();
    let (mut changed, mut once) = (0, 0);
    let mut notes = Vec::new();
    for c in judged {
        let cells: Vec<(Time, &Claim)> = at
            .iter()
            .filter_map(|(h, cs)| Some((*h, cs.iter().find(|x| x.id == c.id)?)))
            .collect();
        // The setup tables' rule (setup.rs `moves`): a hold where the row
        // has no verdict by its own terms (by construction) is no change,
        // and any other `not measured` is one, written "not measurable"
        // (the sixth review of the OR3 paper found these notes comparing
        // verdicts directly).
        let verdicts: Vec<Verdict> = cells
            .iter()
            .filter(|(_, x)| !premise_exempt(x))
            .map(|(_, x)| x.verdict)
            .collect();
        let same = verdicts.windows(2).all(|w| w[0] == w[1]);
        changed += usize::from(!same);
        once += usize::from(verdicts.len() == 1 && cells.len() > 1);
        // A row judged at one hold only has no second verdict to agree
        // with: said so, not "the same verdict at every hold".
        let verdict_text = if verdicts.is_empty() && !cells.is_empty() {
            "by construction at every hold"
        } else if verdicts.len() == 1 && cells.len() > 1 {
            "judged at one hold only (by construction at the others)"
        } else if !same {
            "the verdict depends on the hold"
        } else if verdicts.len() < cells.len() {
            "the same verdict at every hold that judges it"
        } else {
            "the same verdict at every hold"
        };
        notes.push(format!(
            "hold sweep, {}: {}; {}",
            c.id,
            cells
                .iter()
                .map(|(h, x)| format!(
                    "{} ms {}{} {}",
                    h / MS,
                    Side::of(x).label(),
                    if x.is_by_construction() {
                        " (by construction)"
                    } else {
                        ""
                    },
                    super::claims::ours_text(x)
                ))
                .collect::<Vec<_>>()
                .join("; "),
            verdict_text
        ));
    }
    notes.insert(
        0,
        format!(
            "The paper gives no reordering distribution: every row was also judged at each hold \
             swept ({}; the rows above are at {} ms), on the same seeds, without explanation \
             experiments. {changed} of {} rows change verdict with the hold; {once} are judged \
             at one hold only, holding by construction at the others (no change: setup.rs \
             `premise_exempt`).",
            by_hold
                .iter()
                .map(|(h, _)| format!("{} ms", h / MS))
                .collect::<Vec<_>>()
                .join(", "),
            judged_hold / MS,
            judged.len()
        ),
    );
    notes
}

/// Headline 4's metric can land on either side of zero: with packets held
/// back less than the ER delay (25 ms at 100 ms RTT) the delay avoids
/// spurious early retransmits; held back longer, it cannot.
#[cfg(test)]
mod tests {
    use super::*;

    /// A small ER workload: six connections of ten responses.
    fn small() -> ErSetup {
        ErSetup {
            conns: 6,
            responses: 10,
            ..ER_SETUP
        }
    }

    fn first_minus_both(hold: Time) -> f64 {
        let (ctx, small) = (Ctx::quick_for_tests(), small());
        (0..4)
            .map(|k| {
                let s = er_seed_with(&ctx, &small, k, false, hold).unwrap();
                s[FIRST].spurious_early - s[BOTH].spurious_early
            })
            .sum()
    }

    /// What `hold_decides` says, shown in runs: at holds up to the delay's
    /// floor the arm with the delay retransmits no reordered segment
    /// early, while naive ER does.
    #[test]
    fn the_delay_cancels_every_reordered_early_retransmit_up_to_its_floor() {
        let (ctx, small) = (Ctx::quick_for_tests(), small());
        for hold in [10 * MS, ER_DELAY_FLOOR] {
            assert!(hold_decides(hold).is_some());
            let (mut naive, mut both) = (0.0, 0.0);
            for k in 0..4 {
                let s = er_seed_with(&ctx, &small, k, false, hold).unwrap();
                naive += s[NAIVE].spurious_early;
                both += s[BOTH].spurious_early;
            }
            assert!(naive > 0.0, "hold {hold}: naive ER {naive}");
            assert_eq!(both, 0.0, "hold {hold}");
        }
        assert!(hold_decides(ER_SETUP.hold).is_none());
    }

    #[test]
    fn headline4_metric_takes_both_sides() {
        let (short, long) = (first_minus_both(10 * MS), first_minus_both(60 * MS));
        eprintln!("spurious early retransmits, first - both: hold 10 ms {short}, 60 ms {long}");
        assert!(short > 0.0, "{short}");
        assert!(long <= 0.0, "{long}");
    }
}
