//! Dukkipati et al., "Proportional Rate Reduction for TCP" (IMC 2011),
//! ../shared/papers/prr-early-retransmit.txt: the examples of section 4
//! (Figures 2, 3 and 4); the web experiment of section 5 (prr_web.rs) and
//! the Early Retransmit study of section 6 (prr_er.rs).
//!
//! The paper's testbed: 100 ms RTT, 1.2 Mbit/s, 1000-byte MSS, the server
//! writes 20 kB at 0 ms and 10 kB at 500 ms, Reno (ssthresh = cwnd / 2),
//! FACK loss marking, on the Linux 3.2-era kernel of the paper (profile
//! `linux-3.2`). "ssthresh 10 (half of cwnd)" at the first recovery means
//! the 20 segments were in flight at once: an initial window of 20. The
//! traces came from "an internally developed TCP testing tool" whose time
//! 0 is the first write, so the connection starts established
//! (`handshake = false`). These examples have no random input: each
//! measurement is one exact run (claims::exact).

use losslab_core::time::{Time, MS, SEC};
use losslab_sim::scenario::*;

use super::claims::{exact, judge, Band, Claim, Expect, Verdict};
use super::common::{self, ms, path, scenario, FlowTrace, Run};
use super::prr_common::{largest_burst, linux32};
use super::setup::Choice;
use super::{prr_er, prr_web, Ctx, Experiment, PaperResult};

pub(super) const RTT: Time = 100 * MS;
const MSS: u64 = 1000;
/// 1.2 Mbit/s, the paper's link.
const RATE_BPS: u64 = 1_200_000;

// Setup choices: what sections 4.1-4.3 leave open, each with the value
// taken, why, and what a sensitivity run should try instead.

/// Bottleneck queue (packets). Not given. 100 holds the 20-segment window
/// and the 10 segments written later, so no run here loses a packet the
/// paper did not drop. Alternatives: 25 (just above the window) and 15
/// (one BDP, 1.2 Mbit/s x 100 ms, which would drop from the first flight).
const QUEUE_PACKETS: u64 = 100;
/// Initial window (segments). Not given; inferred from "ssthresh 10 (half
/// of cwnd)" at the first duplicate ACK, which needs all 20 segments in
/// flight at once. Alternatives: 10 (Linux 3.2's default, ssthresh 5 then)
/// and 40 (the window never limits the 20 segments either).
const INIT_CWND: u64 = 20;
/// Whether the connection's handshake is simulated. Not given; the server
/// "writes 20kB at time 0", so time 0 is the write on an open connection.
/// Alternative: true (the first write waits one RTT, the clock starts at
/// the SYN), which section 4.1 rules out for the server's write.
const HANDSHAKE: bool = false;
/// Forward one-way delay; the ACK path gets the rest of the 100 ms RTT.
/// Not given. Alternatives: 10 ms and 90 ms (a sender far from or near the
/// bottleneck's far end).
const FORWARD_DELAY: Time = RTT / 2;
/// The receiver's ACKs: delayed, by Linux's engine (quick ACKs at the
/// start, out-of-order data acknowledged at once). The paper's receiver is
/// its testing tool, not described. Alternatives: `AckSpec::Quick` (an ACK
/// for every segment), and Linux's engine off (a fixed 200 ms delayed-ACK
/// timer, RFC 1122).
const RECEIVER_ACKS: AckSpec = AckSpec::Delayed;
const LINUX_DELACK: bool = true;
/// Simulated time per run, long enough for every example to finish.
/// Alternatives: 5 s and 30 s (no run here should change).
const RUN_LENGTH: Time = 10 * SEC;

/// Figure 4's lost segment. "20 segments to send of which 1 segment is
/// lost" without saying which; segment 1 puts the recovery, as in the
/// figure's axis, between 100 and 350 ms. Alternatives: segment 5 and
/// segment 10.
const FIG4_DROP: u64 = 1;
/// Figure 4's write time: "half way through the recovery process", read
/// as the midpoint of PRR's recovery in the same run without the second
/// write (which cannot move its start, and ends it at the same ACK). The
/// paper gives no time. Alternatives: a quarter and three quarters of
/// the way (the sweep's rows show every 10 ms).
const FIG4_WRITE_AT: Choice = Choice {
    key: "fig4-write-at",
    value: "0.5",
    unit: "of the recovery",
    why: "\"half way through the recovery process\", read as the midpoint of PRR's recovery \
          in the same run without the write; the paper gives no time",
    alternatives: ["0.25", "0.75"],
    experiments: &["fig4"],
    quick: true,
};
/// Spacing of Figure 4's sweep of write times over that recovery.
/// Alternatives: 5 ms and 20 ms.
const FIG4_SWEEP_STEP: Time = 10 * MS;

/// Section 4.3's runs: a bulk write, so the sender is never short of data
/// ("precision in the number of transmitted segments" is about what the
/// window allows). Not given (the section has no experiment).
/// Alternatives: 50 kB and 200 kB.
const SEC43_BYTES: u64 = 100_000;
/// Section 4.3's drops: Figure 2's first four segments. Alternatives:
/// segment 1 alone, and Figure 3's 1-4 and 11-16.
const SEC43_DROPS: [u64; 4] = [1, 2, 3, 4];
/// Share of ACKs lost at random in section 4.3's "ACK loss". Not given.
/// Alternatives: 10% and 50%.
const SEC43_ACK_LOSS: Choice = Choice {
    key: "sec43-ack-loss",
    value: "0.3",
    unit: "of ACKs",
    why: "section 4.3 has no experiment and gives no ACK-loss rate",
    alternatives: ["0.1", "0.5"],
    experiments: &["sec43"],
    quick: true,
};
/// The choices the setup table reruns (setup.rs), this file's and the
/// web and ER experiments'.
const CHOICES: [Choice; 7] = [
    FIG4_WRITE_AT,
    SEC43_ACK_LOSS,
    prr_er::ER_HOLD,
    prr_er::ER_RESPONSES,
    prr_er::ER_REORDERED,
    prr_er::ER_RTT,
    prr_web::WEB_QUEUE,
];
/// Stretch ACKs: one ACK kept of every this many (LRO/GRO merging three
/// segments). Not given. Alternatives: 2 and 4.
const SEC43_STRETCH: u64 = 3;
/// Data reordering for section 4.3's "when pipe estimation is incorrect"
/// (4.3: "reordered segments are incorrectly marked as lost"). Not given.
/// A held segment is marked lost only once FACK has seen three segments
/// above it SACKed, 3 x 7 ms at 1.2 Mbit/s, so the hold must pass 21 ms;
/// 30 ms does, by about one ACK interval, and stays a mild reordering
/// (a third of an RTT). 5% holds back about five of the run's 100
/// segments. Alternatives: 2% held 30 ms, and 5% held 60 ms.
const SEC43_REORDER: Reorder = Reorder {
    p: 0.05,
    delay: 30 * MS,
};
/// Seeds of section 4.3's random runs (--quick, default, --full), and the
/// first seed. Alternatives: other first seeds (1000, 5000); any change of
/// count keeps the verdict rules' intervals honest.
const SEC43_SEEDS: (usize, usize, usize) = (10, 20, 40);
const SEC43_FIRST_SEED: u64 = 100;

/// The section 4 testbed with the given drops (1-based segment numbers).
fn testbed(name: &str, recovery: &str, drops: Vec<u64>, writes: Vec<(Time, u64)>) -> Scenario {
    let loss = LossModel::Drop {
        flow: "a".into(),
        which: DropSpec::Segments(drops),
    };
    let mut f = linux32("a", "reno", recovery);
    f.mss = MSS as u32;
    f.init_cwnd = INIT_CWND;
    f.handshake = HANDSHAKE;
    f.receiver.ack = RECEIVER_ACKS;
    f.receiver.linux_delack = LINUX_DELACK;
    f.app = AppSpec::Writes(writes);
    let mut p = path(
        RATE_BPS,
        FORWARD_DELAY,
        QueueLimit::Packets(QUEUE_PACKETS),
        loss,
    );
    p.1.delay = RTT - FORWARD_DELAY;
    scenario(name, RUN_LENGTH, p, vec![f])
}

fn paper_writes() -> Vec<(Time, u64)> {
    vec![(0, 20_000), (500 * MS, 10_000)]
}

/// Runs one variant, leaving its run directory and pictures (zoomed on
/// `window` seconds) under `dir/<recovery>`.
fn run_variant(ctx: &Ctx, exp: &str, sc: &Scenario, window: (f64, f64)) -> Result<Run, String> {
    let dir = ctx.sub(&format!("{exp}/{}", sc.name))?;
    let r = ctx.run(exp, sc, Some(&dir))?;
    common::plot(&dir, Some(window.0), Some(window.1))?;
    Ok(r)
}

struct RecoveryView {
    start: Time,
    end: Option<Time>,
    cwnd_after: Option<u64>,
    ssthresh: u64,
}

fn first_recovery(r: &Run) -> Option<RecoveryView> {
    let x = r.results.flows[0].recoveries.first()?;
    Some(RecoveryView {
        start: (x.start_s * SEC as f64).round() as Time,
        end: x.end_s.map(|e| (e * SEC as f64).round() as Time),
        cwnd_after: x.cwnd_after,
        ssthresh: x.ssthresh,
    })
}

/// ACK arrivals between consecutive retransmissions inside [start, end].
fn ack_gaps(t: &FlowTrace, start: Time, end: Time) -> Vec<usize> {
    let rtx: Vec<Time> = t
        .retransmissions()
        .filter(|x| x.t >= start && x.t <= end)
        .map(|x| x.t)
        .collect();
    rtx.windows(2)
        .map(|w| t.acks.iter().filter(|a| a.t > w[0] && a.t <= w[1]).count())
        .collect()
}

fn mean(v: &[usize]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<usize>() as f64 / v.len() as f64)
}

/// Round trips the data written at `from` needed to leave the sender: 1
/// when all of it left within the first RTT, 4 when the last left in the
/// fourth.
fn flights_to_send(t: &FlowTrace, from: Time) -> Option<f64> {
    let last = t
        .sent
        .iter()
        .filter(|x| x.t >= from && x.tx_count == 1)
        .map(|x| x.t)
        .max()?;
    Some(((last - from) / RTT + 1) as f64)
}

/// Gap between the first and the second retransmission.
fn second_retransmission_gap(t: &FlowTrace) -> Option<Time> {
    let mut r = t.retransmissions();
    let a = r.next()?.t;
    let b = r.next()?.t;
    Some(b - a)
}

/// Segments each ACK in [from, to] released.
fn sends_per_ack(t: &FlowTrace, from: Time, to: Time) -> Vec<usize> {
    t.acks
        .iter()
        .filter(|a| a.t >= from && a.t <= to)
        .map(|a| t.sent_at(a.t))
        .collect()
}

fn median_of(v: &[usize]) -> Option<f64> {
    let mut c: Vec<f64> = v.iter().map(|&x| x as f64).collect();
    common::quantile(&mut c, 0.5)
}

/// A claim of the section 4 examples: one exact run, or not measured when
/// the run did not show the event the claim is about.
fn example_claim(
    exp: &str,
    id: &str,
    statement: &str,
    expect: Expect,
    ours: Option<f64>,
    explanation: &str,
) -> Claim {
    match ours {
        Some(x) => Claim::measured("prr", exp, id, statement, expect, exact(x), explanation),
        None => Claim::not_measured(
            "prr",
            exp,
            id,
            statement,
            expect,
            "the run did not show the event this claim measures (see the example rows)",
        ),
    }
}

/// Whether an exact measurement `x` meets the band of `expect`: how an
/// explanation experiment's variant is judged against the claim it
/// explains.
fn meets(expect: &Expect, x: f64) -> bool {
    judge(expect, &exact(x)).verdict == Verdict::Reproduced
}

/// "lo-hi" of a value claim's band, for an explanation's text.
fn band_text(expect: &Expect, unit: &str) -> String {
    match expect {
        Expect::Value { paper, band } => {
            let [lo, hi] = band.around(*paper);
            format!("{lo}-{hi}{unit}")
        }
        _ => String::new(),
    }
}

fn value(paper: f64) -> Expect {
    Expect::Value {
        paper,
        band: Band::QUANTITY,
    }
}

pub fn run(ctx: &Ctx) -> Result<PaperResult, String> {
    Ok(PaperResult {
        paper: "prr".into(),
        title: "Proportional Rate Reduction for TCP (Dukkipati et al., IMC 2011)".into(),
        quick: ctx.quick,
        full: ctx.full,
        thorough: ctx.thorough,
        subset: ctx.quick,
        experiments: {
            let mut v = vec![
                super::timing::experiment(ctx, "", || figure2(ctx))?,
                super::timing::experiment(ctx, "", || figure3(ctx))?,
                super::timing::experiment(ctx, "", || figure4(ctx))?,
                super::timing::experiment(ctx, "", || precision(ctx))?,
                super::timing::experiment(ctx, "", || prr_web::web(ctx))?,
                youtube(),
                super::timing::experiment(ctx, "", || prr_er::early_retransmit(ctx))?,
            ];
            let setup = super::setup::sensitivity(ctx, &CHOICES, &mut v, &experiment)?;
            v.push(setup);
            v
        },
    })
}

/// One experiment by id (the setup table's reruns).
fn experiment(ctx: &Ctx, id: &str) -> Result<Experiment, String> {
    match id {
        "fig4" => figure4(ctx),
        "sec43" => precision(ctx),
        "web" => prr_web::web(ctx),
        "er" => prr_er::early_retransmit(ctx),
        _ => Err(format!("prr: no experiment {id:?} to rerun")),
    }
}

/// Segments sent from the start of the first recovery to its end.
fn sent_in_recovery(r: &Run) -> Option<f64> {
    let v = first_recovery(r)?;
    let end = v.end?;
    let t = &r.traces[0];
    Some(
        t.sent
            .iter()
            .filter(|x| x.t >= v.start && x.t < end)
            .count() as f64,
    )
}

/// Section 4.3, "precision in the number of transmitted segments": PRR
/// counts delivered data, so losing or thinning ACKs should not change
/// how much it sends in recovery; rate-halving counts ACKs and RFC 3517
/// follows pipe, which the paper says fails "when pipe estimation is
/// incorrect". The Figure 2 testbed with the sender never short of data
/// (SEC43_BYTES written at once, SEC43_DROPS dropped), run with every
/// ACK, with ACKs lost at random (one draw per seed), with stretch ACKs,
/// and with ACK loss while data is reordered (the paper's condition for
/// RFC 3517: held segments are marked lost before they arrive).
fn precision(ctx: &Ctx) -> Result<Experiment, String> {
    const ALGS: [&str; 3] = ["prr-6937", "rate-halving", "rfc3517"];
    let (quick, default, full) = SEC43_SEEDS;
    let seeds = ctx.pick(quick, default, full);
    let hold_ms = SEC43_REORDER.delay / MS;
    let held_pct = SEC43_REORDER.p * 100.0;
    let ack_loss_p = ctx.choice_f64(&SEC43_ACK_LOSS)?;
    let ack_loss_pct = ack_loss_p * 100.0;
    let mut e = Experiment::new(
        "sec43",
        "PRR's precision under ACK loss and stretch ACKs (section 4.3, property 4)",
        &format!(
            "The Figure 2 testbed with {} kB written at 0 ms and segments {:?} dropped; \
             segments sent during the recovery with every ACK, with {ack_loss_pct}% of ACKs lost \
             at random ({seeds} seeds), with one ACK kept of every {SEC43_STRETCH} (stretch ACKs), \
             with {held_pct}% of data segments held back {hold_ms} ms (reordered; FACK marks a \
             held segment lost once three above it are SACKed, 21 ms at 1.2 Mbit/s, so some \
             are marked lost before they arrive: the paper's \"pipe estimation is incorrect\"), \
             and with both. Ours: how far each setting moves that count from the clean run.",
            SEC43_BYTES / 1000,
            SEC43_DROPS,
        ),
    );
    let bulk = |name: &str, rec: &str, reverse: LossModel, reorder: Reorder, seed: u64| {
        let mut sc = testbed(name, rec, SEC43_DROPS.to_vec(), vec![(0, SEC43_BYTES)]);
        sc.reverse.loss = reverse;
        sc.path.reorder = reorder;
        sc.seed = seed;
        sc
    };
    let mut clean = Vec::new();
    let mut stretched = Vec::new();
    for rec in ALGS {
        let c = ctx.run(
            "sec43",
            &bulk(
                &format!("sec43-{rec}"),
                rec,
                LossModel::None,
                Reorder::default(),
                1,
            ),
            None,
        )?;
        let stretch = LossModel::Drop {
            flow: "a".into(),
            which: DropSpec::Packets((1..=3000).filter(|i| i % SEC43_STRETCH != 0).collect()),
        };
        let s = ctx.run(
            "sec43",
            &bulk(
                &format!("sec43-{rec}-stretch"),
                rec,
                stretch,
                Reorder::default(),
                1,
            ),
            None,
        )?;
        let (cn, sn) = (sent_in_recovery(&c), sent_in_recovery(&s));
        e.row(
            format!("{rec}: segments sent in recovery, every ACK / stretch ACKs"),
            format!(
                "{} / {}",
                cn.map_or("-".into(), |x| x.to_string()),
                sn.map_or("-".into(), |x| x.to_string())
            ),
            if rec == "prr-6937" {
                "the same: PRR counts delivered data"
            } else {
                "fewer or more: counts ACKs or follows pipe"
            },
        );
        clean.push(cn);
        stretched.push(sn);
    }
    // Per seed and algorithm, segments sent in recovery under each of the
    // random settings; one seed draws the same ACK losses and holds for
    // every algorithm until their transmissions differ.
    let ack_loss = LossModel::Bernoulli { p: ack_loss_p };
    let settings: [(&str, &str, LossModel, Reorder); 3] = [
        ("ackloss", "ACK loss", ack_loss.clone(), Reorder::default()),
        ("reorder", "reordering", LossModel::None, SEC43_REORDER),
        (
            "ackloss-reorder",
            "ACK loss with reordering",
            ack_loss,
            SEC43_REORDER,
        ),
    ];
    let per_seed = common::par_map(ctx, seeds, |k| {
        let mut out = [[None; 3]; 3];
        for (s, (tag, _, reverse, reorder)) in settings.iter().enumerate() {
            for (i, rec) in ALGS.iter().enumerate() {
                let sc = bulk(
                    &format!("sec43-{rec}-{tag}-seed{k}"),
                    rec,
                    reverse.clone(),
                    reorder.clone(),
                    SEC43_FIRST_SEED + k as u64,
                );
                out[s][i] = sent_in_recovery(&ctx.run("sec43", &sc, None)?);
            }
        }
        Ok(out)
    })?;
    let (lossy, reordered_lossy): (Vec<_>, Vec<_>) = per_seed.iter().map(|x| (x[0], x[2])).unzip();
    // Per seed: |sent - sent with every ACK| of PRR and of algorithm i.
    let moved = |runs: &[[Option<f64>; 3]], i: usize| -> (Vec<f64>, Vec<f64>) {
        let change = |s: &[Option<f64>; 3], j: usize| Some((s[j]? - clean[j]?).abs());
        runs.iter()
            .filter_map(|s| Some((change(s, 0)?, change(s, i)?)))
            .unzip()
    };
    for (s, (_, label, _, _)) in settings.iter().enumerate() {
        let runs: Vec<[Option<f64>; 3]> = per_seed.iter().map(|x| x[s]).collect();
        let mean_change = |i: usize| {
            let (p, o) = moved(&runs, i);
            let v = if i == 0 { p } else { o };
            mean_f(&v).map_or("-".into(), |m| format!("{m:.2}"))
        };
        e.row(
            format!(
                "{label}: mean |segments sent in recovery - clean run's|, {}",
                ALGS.join(" / ")
            ),
            (0..3).map(mean_change).collect::<Vec<_>>().join(" / "),
            "PRR near 0; the others move",
        );
    }
    let versus_prr = |runs: &[[Option<f64>; 3]]| {
        let (mut more, mut fewer, mut same) = (0, 0, 0);
        for s in runs {
            if let (Some(p), Some(r)) = (s[0], s[2]) {
                match r.total_cmp(&p) {
                    std::cmp::Ordering::Greater => more += 1,
                    std::cmp::Ordering::Less => fewer += 1,
                    std::cmp::Ordering::Equal => same += 1,
                }
            }
        }
        format!("{more} / {fewer} / {same}")
    };
    e.row(
        "rfc3517 against PRR on the same seed, ACK loss alone: seeds it sends more / fewer / the same",
        versus_prr(&lossy),
        "-",
    );
    e.row(
        "rfc3517 against PRR on the same seed, ACK loss with reordering: seeds it sends more / fewer / the same",
        versus_prr(&reordered_lossy),
        "more when pipe is wrong",
    );
    let statement = |name: &str, when: &str| {
        format!(
            "Section 4.3: under ACK loss{when} PRR keeps the number of segments it sends in recovery; {name} does not (|change| of {name} - |change| of PRR, segments, per seed)"
        )
    };
    let order = Expect::Order {
        paper_positive: true,
    };
    let (p, o) = moved(&lossy, 1);
    e.claims.push(
        Claim::measured(
            "prr",
            "sec43",
            "sec43-ack-loss-rate-halving",
            &statement("rate-halving", ""),
            order.clone(),
            super::claims::paired_difference(&p, &o, "sec43"),
            "",
        )
        .or_unexplained(),
    );
    // RFC 3517's two rows: ACK loss alone, and with the paper's condition
    // for it, a wrong pipe.
    let (p, o) = moved(&lossy, 2);
    let mut alone = Claim::measured(
        "prr",
        "sec43",
        "sec43-ack-loss-rfc3517",
        &statement("RFC 3517", ""),
        order.clone(),
        super::claims::paired_difference(&p, &o, "sec43"),
        "",
    );
    let (p, o) = moved(&reordered_lossy, 2);
    let wrong_pipe = super::claims::paired_difference(&p, &o, "sec43");
    let with_reordering = Claim::measured(
        "prr",
        "sec43",
        "sec43-ack-loss-reordering-rfc3517",
        &statement(
            "RFC 3517",
            &format!(
                " \"when pipe estimation is incorrect\" ({held_pct}% of data segments reordered \
                 by {hold_ms} ms, so some are marked lost before they arrive)"
            ),
        ),
        order,
        wrong_pipe.clone(),
        "",
    )
    .or_unexplained();
    // ACK loss alone is the paper's claim without its condition: the
    // variant that adds the condition explains the row only if it
    // reproduces the paper's order itself.
    if alone.verdict.needs_explanation() {
        let same: Vec<bool> = lossy.iter().filter_map(|s| Some(s[0]? == s[2]?)).collect();
        let measured = rfc3517_matches_prr(ctx, seeds, &same)?;
        alone = alone.explained_by(|c| {
            super::claims::variant_explanation(
                c,
                &c.on(wrong_pipe),
                "the paper's condition, a wrong pipe, which ACK loss alone does not produce \
                 here (the paper: RFC 3517 loses its count \"when pipe estimation is \
                 incorrect\")",
                &format!(
                    "adding the paper's condition to the same runs, {held_pct}% of data segments \
                     held back {hold_ms} ms so that FACK marks some lost before they arrive (row \
                     sec43-ack-loss-reordering-rfc3517)"
                ),
                &measured,
            )
        });
    }
    e.claims.push(alone.or_unexplained());
    e.claims.push(with_reordering);
    let change = |i: usize| stretched[i].zip(clean[i]).map(|(a, b)| (a - b).abs());
    e.claims.push(
        example_claim(
            "sec43",
            "sec43-stretch-acks-rate-halving",
            "Section 4.3: with stretch ACKs rate-halving fails to send the right number of segments; PRR does not (|change| of rate-halving - |change| of PRR, segments)",
            Expect::Order {
                paper_positive: true,
            },
            change(1).zip(change(0)).map(|(h, p)| h - p),
            "",
        )
        .or_unexplained(),
    );
    Ok(e)
}

fn mean_f(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// What ACK loss alone does to RFC 3517's count: how often it sends
/// exactly PRR's count on the same ACK losses, with the section's one
/// hole (`section`, from the section's own runs), with eight separate
/// holes (more than an ACK's three SACK blocks can describe), and with
/// eight holes and one SACK block per ACK.
fn rfc3517_matches_prr(ctx: &Ctx, seeds: usize, section: &[bool]) -> Result<String, String> {
    let equal = section.iter().filter(|x| **x).count();
    let mut parts = vec![format!(
        "segments {SEC43_DROPS:?} dropped: {equal} of {}",
        section.len()
    )];
    let spread: Vec<u64> = (0..8).map(|i| 1 + 2 * i).collect();
    let settings: [(&str, Vec<u64>, u8); 2] = [
        ("8 separate holes", spread.clone(), 3),
        ("8 separate holes and 1 SACK block per ACK", spread, 1),
    ];
    for (label, drops, blocks) in &settings {
        let same = common::par_map(ctx, seeds, |k| {
            let mut sent = [None; 2];
            for (j, rec) in ["prr-6937", "rfc3517"].iter().enumerate() {
                let mut sc = testbed(
                    &format!("sec43-why-{rec}-{}holes-{blocks}sack-seed{k}", drops.len()),
                    rec,
                    drops.clone(),
                    vec![(0, SEC43_BYTES)],
                );
                sc.flows[0].receiver.sack_blocks = *blocks;
                sc.reverse.loss = LossModel::Bernoulli {
                    p: ctx.choice_f64(&SEC43_ACK_LOSS)?,
                };
                sc.seed = SEC43_FIRST_SEED + k as u64;
                sent[j] = sent_in_recovery(&ctx.run("sec43", &sc, None)?);
            }
            Ok(match sent {
                [Some(a), Some(b)] => Some(a == b),
                _ => None,
            })
        })?;
        let same: Vec<bool> = same.into_iter().flatten().collect();
        let equal = same.iter().filter(|x| **x).count();
        parts.push(format!("{label}: {equal} of {}", same.len()));
    }
    Ok(format!(
        "with ACK loss alone RFC 3517 sends exactly PRR's count in (seeds, experiment sec43; \
         sec43-why-* runs for the holes): {}",
        parts.join("; ")
    ))
}

/// Table 10 (section 5.4): the India YouTube servers. Listed so the table
/// shows what is missing, not run.
fn youtube() -> Experiment {
    let mut e = Experiment::new(
        "tab10",
        "India YouTube video transfers (Table 10): not measured",
        "The paper's population: 0.8 million progressive-HTTP video connections in India, 2.3 \
         MB per transfer on average, average RTT 860 ms, throttled to the encoding rate after \
         the first tens of seconds. losslab has no stand-in for it yet.",
    );
    let why = "not measured: no stand-in for the India YouTube population (long, throttled \
               transfers over 860 ms paths) exists yet; the web experiment's short responses do \
               not measure it";
    for (metric, what, values) in [
        (
            "retransmission-rate",
            "retransmission rate",
            [0.050, 0.066, 0.056],
        ),
        (
            "fast-retransmit-lost",
            "share of fast retransmits lost",
            [0.024, 0.164, 0.048],
        ),
        (
            "slow-start-after-fr",
            "share of fast recoveries followed by slow start",
            [0.56, 0.01, 0.0],
        ),
    ] {
        for (alg, paper) in ["rate-halving", "rfc3517", "prr-6937"]
            .into_iter()
            .zip(values)
        {
            e.claims.push(Claim::not_measured(
                "prr",
                "tab10",
                &format!("tab10-{metric}-{alg}"),
                &format!("Table 10: {alg}'s {what} on YouTube transfers is {paper}"),
                Expect::Value {
                    paper,
                    band: Band::SHARE,
                },
                why,
            ));
        }
    }
    e
}

fn figure2(ctx: &Ctx) -> Result<Experiment, String> {
    let mut e = Experiment::new(
        "fig2",
        "PRR vs Linux rate-halving vs RFC 3517, first 4 segments dropped (Figure 2)",
        "100 ms RTT, 1.2 Mbit/s, MSS 1000 B, writes of 20 kB at 0 ms and 10 kB at 500 ms, \
         the Linux 3.2 sender (profile linux-3.2) with Reno, FACK, an initial window of 20 and \
         no handshake; segments 1-4 dropped. prr-6937 is the paper's PRR (PRR-SSRB, RFC 6937); \
         prr is its successor RFC 9937, shown for comparison.",
    );
    let mut out = Vec::new();
    for rec in ["prr-6937", "prr", "rate-halving", "rfc3517"] {
        let sc = testbed(
            &format!("fig2-{rec}"),
            rec,
            vec![1, 2, 3, 4],
            paper_writes(),
        );
        let r = run_variant(ctx, "fig2", &sc, (0.0, 1.0))?;
        e.pictures.push(format!("fig2/{}/plots/tsg-a.png", sc.name));
        out.push((rec, r));
    }
    let get = |name: &str| out.iter().find(|x| x.0 == name).map(|x| &x.1).expect("ran");
    // The 10 segments written at 500 ms: how many round trips they took to
    // leave, and when the last was acknowledged (10 segments take 67 ms to
    // serialise at 1.2 Mbit/s, so one flight is acknowledged after about
    // 1.7 RTT).
    let next10 = |r: &Run| flights_to_send(&r.traces[0], 500 * MS);
    let next10_acked = |r: &Run| {
        r.traces[0]
            .acked_by(30_000)
            .map(|t| (t.saturating_sub(500 * MS)) as f64 / RTT as f64)
    };
    for (rec, r) in &out {
        let t = &r.traces[0];
        let Some(v) = first_recovery(r) else {
            e.row(format!("{rec}: recovery"), "none", "one fast recovery");
            continue;
        };
        let end = v.end.unwrap_or(v.start);
        e.row(
            format!("{rec}: recovery start / end"),
            format!("{} / {}", ms(v.start), ms(end)),
            if rec.starts_with("prr") {
                "exit at 460 ms".to_string()
            } else {
                "-".into()
            },
        );
        e.row(
            format!("{rec}: ssthresh, cwnd at exit (segments)"),
            format!("{}, {}", v.ssthresh, v.cwnd_after.unwrap_or(0)),
            match *rec {
                "rate-halving" => "10, pipe + 1 (pipe is 1 just before the end)",
                _ => "10, 10",
            },
        );
        e.row(
            format!("{rec}: ACKs between retransmissions in recovery"),
            format!("{:?}", ack_gaps(t, v.start, end)),
            match *rec {
                "rfc3517" => "a half-RTT pause, then bunched",
                _ => "2 (one every other ACK)",
            },
        );
        e.row(
            format!("{rec}: 1st to 2nd retransmission"),
            second_retransmission_gap(t).map_or("-".into(), ms),
            if *rec == "rfc3517" {
                "about half an RTT (50 ms)"
            } else {
                "two ACK intervals"
            },
        );
        e.row(
            format!("{rec}: 10 segments written at 500 ms: round trips to send / RTTs until acknowledged"),
            format!(
                "{} / {}",
                next10(r).map_or("-".into(), |x| format!("{x:.0}")),
                next10_acked(r).map_or("-".into(), |x| format!("{x:.1}"))
            ),
            match *rec {
                "rate-halving" => "4 RTTs, in slow start",
                _ => "sent in one RTT",
            },
        );
    }
    let (prr, rh, rfc) = (get("prr-6937"), get("rate-halving"), get("rfc3517"));
    // Two explanations were tested here and both leave section 4.1's
    // setup, so neither can explain a row whatever it gives; they stay as
    // example rows so the rejection can be checked. No variant inside the
    // setup has been found for either row.
    //
    // The clock's origin: the same run with the handshake simulated, time
    // counted from the SYN. The server's write then waits one RTT for the
    // connection, against "the server application writes 20kB at time 0".
    let mut with_handshake = testbed(
        "fig2-prr-6937-handshake",
        "prr-6937",
        vec![1, 2, 3, 4],
        paper_writes(),
    );
    with_handshake.flows[0].handshake = true;
    let hs = ctx.run("fig2", &with_handshake, None)?;
    let hs_exit = first_recovery(&hs).and_then(|v| v.end);
    e.row(
        "prr-6937 with the handshake simulated (outside the setup: the write waits for the connection): recovery end, from the SYN",
        hs_exit.map_or("-".into(), ms),
        "exit at 460 ms",
    );
    // The loss marking: Linux's FACK marks fackets_out - reordering
    // segments lost, one more hole on each of the first ACKs, so pipe falls
    // by two per ACK and the pipe + 1 clip lets one segment out on each.
    // RFC 6675's marking (detection dupthresh) enters recovery on the third
    // duplicate ACK, against "in all three traces TCP enters fast recovery
    // after receiving first dupack" (4.1).
    let mut rfc_marking = testbed(
        "fig2-rate-halving-dupthresh",
        "rate-halving",
        vec![1, 2, 3, 4],
        paper_writes(),
    );
    rfc_marking.flows[0].detection = "dupthresh".into();
    let rm = ctx.run("fig2", &rfc_marking, None)?;
    let span = |r: &Run| first_recovery(r).map(|v| (v.start, v.end.unwrap_or(v.start)));
    let gap_list = |r: &Run| span(r).map(|(a, b)| ack_gaps(&r.traces[0], a, b));
    let gaps = |r: &Run| gap_list(r).and_then(|g| mean(&g));
    let rm_gaps = gaps(&rm);
    let duplicate_acks_before = |r: &Run| {
        span(r).map(|(a, _)| {
            r.traces[0]
                .acks
                .iter()
                .filter(|x| x.ack == 0 && x.t <= a)
                .count()
        })
    };
    e.row(
        "rate-halving with RFC 6675 loss marking (outside the setup: recovery starts on a later duplicate ACK): duplicate ACKs up to the recovery's start; ACKs between retransmissions",
        format!(
            "{}; {}",
            duplicate_acks_before(&rm).map_or("-".into(), |n| n.to_string()),
            gap_list(&rm).map_or("-".into(), |g| format!("{g:?}"))
        ),
        "1; 2 (one every other ACK)",
    );
    let (every_other, exit_at) = (value(2.0), value(460.0));
    let outside = |cause: &str, got: String, fits: bool, band: String, why: &str| {
        format!(
            "{}; tested and rejected: {cause}, which gives {got} ({} the band {band}) but leaves \
             the paper's setup: {why}; no variant inside the setup has been tested that \
             explains it",
            super::claims::UNEXPLAINED,
            if fits { "inside" } else { "outside" },
        )
    };
    let why_rh = outside(
        "Linux's FACK loss marking (fackets_out - reordering segments marked lost, one more \
         hole per ACK at first, so pipe falls by two per ACK and the pipe + 1 clip sends on \
         each), tested with RFC 6675's marking",
        rm_gaps.map_or("-".into(), |g| format!("{g:.2} ACKs per retransmission")),
        rm_gaps.is_some_and(|g| meets(&every_other, g)),
        band_text(&every_other, ""),
        &format!(
            "that run enters recovery on duplicate ACK {}, where section 4.1 says \"in all three \
             traces TCP enters fast recovery after receiving first dupack\"",
            duplicate_acks_before(&rm).map_or("-".into(), |n| n.to_string())
        ),
    );
    let why_exit = outside(
        "the clock's origin, tested with the handshake simulated and time counted from the SYN",
        format!(
            "an exit at {}",
            hs_exit.map_or("-".into(), |t| format!("{:.0} ms", t as f64 / MS as f64))
        ),
        hs_exit.is_some_and(|t| meets(&exit_at, (t / MS) as f64)),
        band_text(&exit_at, " ms"),
        "the server's first write then waits one RTT for the connection, where section 4.1's \
         server \"writes 20kB at time 0\"",
    );
    let c = |id: &str, st: &str, ex: Expect, ours: Option<f64>| {
        example_claim("fig2", id, st, ex, ours, "").or_unexplained()
    };
    e.claims = vec![
        example_claim(
            "fig2",
            "fig2-prr-exit-ms",
            "Figure 2: PRR completes the recovery at 460 ms (ms after the first write)",
            value(460.0),
            span(prr).map(|(_, b)| (b / MS) as f64),
            &why_exit,
        ),
        c(
            "fig2-prr-acks-per-retransmission",
            "Figure 2: PRR retransmits one segment every other ACK (mean ACKs between retransmissions)",
            value(2.0),
            gaps(prr),
        ),
        example_claim(
            "fig2",
            "fig2-rate-halving-acks-per-retransmission",
            "Figure 2: rate-halving's retransmission timings are similar to PRR's (mean ACKs between retransmissions)",
            value(2.0),
            gaps(rh),
            &why_rh,
        ),
        c(
            "fig2-rate-halving-cwnd-at-exit",
            "Figure 2: rate-halving leaves recovery with cwnd = pipe + 1 = 2 (segments)",
            value(2.0),
            first_recovery(rh).and_then(|v| v.cwnd_after).map(|x| x as f64),
        ),
        c(
            "fig2-prr-next-10-round-trips",
            "Figure 2: after PRR the 10 segments written at 500 ms are sent in one RTT (round trips to send)",
            value(1.0),
            next10(prr),
        ),
        c(
            "fig2-rate-halving-next-10-round-trips",
            "Figure 2: after rate-halving the 10 segments take 4 RTTs in slow start (round trips to send)",
            value(4.0),
            next10(rh),
        ),
        c(
            "fig2-rfc3517-silence-ms",
            "Figure 2: RFC 3517 is silent for about half an RTT after the fast retransmit (ms from the 1st to the 2nd retransmission)",
            value(50.0),
            second_retransmission_gap(&rfc.traces[0]).map(|g| g as f64 / MS as f64),
        ),
    ];
    Ok(e)
}

/// Figure 3's measurements of one run: ACKs per transmission while pipe
/// is above ssthresh (before the second cluster's repair), segments per
/// ACK while the second cluster is retransmitted, the largest burst and
/// the timeouts.
struct HeavyLoss {
    acks_per_send_before: Option<f64>,
    sends_per_ack_after: Vec<usize>,
    largest: usize,
    timeouts: u64,
}

/// The second cluster is segments `second` (1-based): its first
/// retransmission divides PRR's proportional part from its slow-start
/// part, which lasts until the cluster's last retransmission.
fn heavy_loss(r: &Run, second: std::ops::RangeInclusive<u64>) -> Option<HeavyLoss> {
    let v = first_recovery(r)?;
    let t = &r.traces[0];
    let end = v.end.unwrap_or(v.start);
    let rtx_of = |seg: u64| {
        t.retransmissions()
            .find(|x| x.seq == (seg - 1) * MSS)
            .map(|x| x.t)
    };
    let split = rtx_of(*second.start())?;
    let last = rtx_of(*second.end())?;
    let acks = t
        .acks
        .iter()
        .filter(|a| a.t > v.start && a.t < split)
        .count();
    let sends = t
        .sent
        .iter()
        .filter(|x| x.t > v.start && x.t < split)
        .count();
    Some(HeavyLoss {
        acks_per_send_before: (sends > 0).then(|| acks as f64 / sends as f64),
        sends_per_ack_after: sends_per_ack(t, split, last),
        largest: largest_burst(t, v.start, end),
        timeouts: r.results.flows[0].timeouts,
    })
}

fn figure3(ctx: &Ctx) -> Result<Experiment, String> {
    let mut e = Experiment::new(
        "fig3",
        "PRR under heavy losses: segments 1-4 and 11-16 dropped (Figure 3)",
        "The Figure 2 testbed with two clusters of drops.",
    );
    let paper_drops: Vec<u64> = (1..=4).chain(11..=16).collect();
    let mut got = Vec::new();
    for (rec, drops, tag, second) in [
        ("prr-6937", &paper_drops, "", 11..=16),
        ("prr", &paper_drops, "", 11..=16),
        ("rfc3517", &paper_drops, "", 11..=16),
    ] {
        let sc = testbed(
            &format!("fig3-{rec}{tag}"),
            rec,
            drops.clone(),
            paper_writes(),
        );
        let r = run_variant(ctx, "fig3", &sc, (0.0, 1.2))?;
        e.pictures.push(format!("fig3/{}/plots/tsg-a.png", sc.name));
        let h = heavy_loss(&r, second);
        if let Some(h) = &h {
            let after = &h.sends_per_ack_after;
            e.row(
                format!("{rec}{tag}: ACKs per transmission before the 2nd cluster's repair; segments per ACK during it"),
                format!(
                    "{}; {:?}",
                    h.acks_per_send_before.map_or("-".into(), |x| format!("{x:.1}")),
                    after
                ),
                if rec.starts_with("prr") {
                    "2 (alternate ACKs); then 2 per ACK once pipe < ssthresh"
                } else {
                    "bursts of ssthresh - pipe"
                },
            );
            e.row(
                format!("{rec}{tag}: largest burst in recovery / timeouts"),
                format!("{} / {}", h.largest, h.timeouts),
                "- / 0",
            );
        } else {
            e.row(
                format!("{rec}{tag}: recovery"),
                "none or no 2nd cluster",
                "one fast recovery",
            );
        }
        got.push(h);
    }
    let (prr, rfc) = (&got[0], &got[2]);
    let after_median =
        |h: &Option<HeavyLoss>| h.as_ref().and_then(|h| median_of(&h.sends_per_ack_after));
    e.claims = [
        example_claim(
            "fig3",
            "fig3-prr-alternate-acks",
            "Figure 3: while pipe > ssthresh PRR transmits on alternate ACKs (ACKs per transmission before the second cluster's repair)",
            value(2.0),
            prr.as_ref().and_then(|h| h.acks_per_send_before),
            "",
        ),
        example_claim(
            "fig3",
            "fig3-prr-two-per-ack",
            "Figure 3: once pipe < ssthresh PRR sends two segments for every ACK (median segments per ACK while the second cluster is retransmitted)",
            value(2.0),
            after_median(prr),
            "",
        ),
        example_claim(
            "fig3",
            "fig3-prr-no-timeout",
            "Figure 3: PRR repairs both clusters in one fast recovery, without a timeout (timeouts)",
            value(0.0),
            prr.as_ref().map(|h| h.timeouts as f64),
            "",
        ),
        example_claim(
            "fig3",
            "fig3-rfc3517-larger-burst",
            "Section 4.2: RFC 3517 sends ssthresh - pipe in one burst where PRR spreads it (RFC 3517's largest burst - PRR's, segments)",
            Expect::Order {
                paper_positive: true,
            },
            match (prr, rfc) {
                (Some(p), Some(f)) => Some(f.largest as f64 - p.largest as f64),
                _ => None,
            },
            "",
        ),
    ]
    .into_iter()
    .map(Claim::or_unexplained)
    .collect();
    Ok(e)
}

/// The largest burst `rec` sends in recovery after the second write at
/// `at`: None when the write falls outside that run's recovery. `pictures`
/// keeps the run's directory and draws it.
fn fig4_burst(
    ctx: &Ctx,
    rec: &str,
    at: Time,
    name: &str,
    pictures: bool,
) -> Result<(Run, Option<usize>), String> {
    let sc = testbed(name, rec, vec![FIG4_DROP], vec![(0, 20_000), (at, 10_000)]);
    let r = if pictures {
        run_variant(ctx, "fig4", &sc, (0.05, 0.45))?
    } else {
        ctx.run("fig4", &sc, None)?
    };
    let v = first_recovery(&r);
    // Up to, not at, the ACK that ends the recovery: what it releases is
    // sent after the exit (cwnd = ssthresh, or min(cwnd, ssthresh) for
    // rate-halving), not from banked opportunities.
    let burst = v.and_then(|v| {
        let end = v.end?;
        (v.start < at && at < end).then(|| largest_burst(&r.traces[0], at, end - 1))
    });
    Ok((r, burst))
}

fn figure4(ctx: &Ctx) -> Result<Experiment, String> {
    const ALGS: [&str; 4] = ["prr-6937", "prr", "rfc3517", "rate-halving"];
    // "After an idle period, the application has new data to transmit
    // half way through the recovery process" (4.3): the paper gives no
    // time, so it is taken from PRR's recovery in the same run without the
    // second write, which that write cannot move (it comes after the
    // recovery starts, and the recovery ends when the one retransmission
    // is acknowledged).
    let probe = ctx.run(
        "fig4",
        &testbed(
            "fig4-prr-6937-no-second-write",
            "prr-6937",
            vec![FIG4_DROP],
            vec![(0, 20_000)],
        ),
        None,
    )?;
    let v =
        first_recovery(&probe).ok_or("fig4: the run without the second write had no recovery")?;
    let end = v
        .end
        .ok_or("fig4: the run without the second write never left recovery")?;
    let mid = v.start + ((end - v.start) as f64 * ctx.choice_f64(&FIG4_WRITE_AT)?).round() as Time;
    let at_ms = |t: Time| format!("{:.1} ms", t as f64 / MS as f64);
    let mut e = Experiment::new(
        "fig4",
        "PRR banks sending opportunities (Figure 4)",
        &format!(
            "The Figure 2 testbed: 20 segments written at 0 ms, segment {FIG4_DROP} dropped, 10 \
             more segments written \"half way through the recovery\" (4.3): at {}, midway \
             between the start ({}) and the end ({}) of PRR's recovery in the same run without \
             the second write. The paper's burst of 3 is measured there; the sweep rows and \
             picture move the write across that recovery every {} ms, since the paper gives no \
             time.",
            at_ms(mid),
            at_ms(v.start),
            at_ms(end),
            FIG4_SWEEP_STEP / MS,
        ),
    );
    let mut res = Vec::new();
    for rec in ALGS {
        let name = format!("fig4-{rec}");
        let (r, burst) = fig4_burst(ctx, rec, mid, &name, true)?;
        e.pictures.push(format!("fig4/{name}/plots/tsg-a.png"));
        let rv = first_recovery(&r);
        e.row(
            format!("{rec}: recovery start / end with the second write"),
            rv.map_or("none".into(), |x| {
                format!("{} / {}", at_ms(x.start), x.end.map_or("-".into(), at_ms))
            }),
            "-",
        );
        e.row(
            format!(
                "{rec}: largest burst after the write at {}, in recovery",
                at_ms(mid)
            ),
            burst.map_or("write not in recovery".into(), |b| b.to_string()),
            match rec {
                "prr-6937" => "3 (ratio x (prr_delivered - prr_out), ratio 0.5)",
                "rfc3517" => "ssthresh - pipe, once pipe < ssthresh",
                "rate-halving" => "none banked (cwnd tracks pipe + 1)",
                _ => "-",
            },
        );
        res.push(burst);
    }
    // The write time is a setup choice the paper leaves open: the burst
    // at every step across the recovery, so the reader sees how much the
    // row depends on it.
    let first = v.start.div_ceil(FIG4_SWEEP_STEP) * FIG4_SWEEP_STEP;
    let times: Vec<Time> = (first..end).step_by(FIG4_SWEEP_STEP as usize).collect();
    let sweep = common::par_map(ctx, times.len(), |i| {
        let t = times[i];
        let mut out = [None; ALGS.len()];
        for (j, rec) in ALGS.iter().enumerate() {
            out[j] = fig4_burst(
                ctx,
                rec,
                t,
                &format!("fig4-{rec}-write-{}ms", t / MS),
                false,
            )?
            .1;
        }
        Ok(out)
    })?;
    let show = |b: Option<usize>| b.map_or("-".to_string(), |b| b.to_string());
    for (t, b) in times.iter().zip(&sweep) {
        e.row(
            format!(
                "write at {} ms: largest burst in recovery, {}",
                t / MS,
                ALGS.join(" / ")
            ),
            b.iter().map(|x| show(*x)).collect::<Vec<_>>().join(" / "),
            "3 for PRR half way through the recovery",
        );
    }
    let series: Vec<losslab_viz::charts::BandSeries> = ALGS
        .iter()
        .enumerate()
        .map(|(j, rec)| {
            let pts = times
                .iter()
                .zip(&sweep)
                .filter_map(|(t, b)| {
                    let y = b[j]? as f64;
                    Some((*t as f64 / MS as f64, y, y, y))
                })
                .collect();
            (rec.to_string(), pts)
        })
        .collect();
    let dir = ctx.sub("fig4")?;
    losslab_viz::charts::lines_with_bands(
        &dir.join("burst-vs-write-time"),
        "Figure 4: largest burst after the second write, by write time (exact runs)",
        "time of the second write (ms)",
        "largest burst in recovery (segments)",
        &[],
        &series,
    )
    .map_err(|x| x.to_string())?;
    e.pictures.push("fig4/burst-vs-write-time.png".into());
    let prr_sweep: Vec<String> = times
        .iter()
        .zip(&sweep)
        .map(|(t, b)| format!("{} ms: {}", t / MS, show(b[0])))
        .collect();
    let measured = format!(
        "the write is at {} (half way through PRR's recovery without it, {} to {}); the sweep \
         of write times (rows, picture) gives PRR's largest burst as {}",
        at_ms(mid),
        at_ms(v.start),
        at_ms(end),
        prr_sweep.join(", ")
    );
    let (prr, rh) = (res[0], res[3]);
    let untested = format!("{}; {measured}", super::claims::UNTESTED);
    e.claims = vec![
        example_claim(
            "fig4",
            "fig4-prr-banked-burst",
            "Figure 4: PRR sends a banked burst of ratio x (prr_delivered - prr_out) = 3 segments when the application writes half way through the recovery (largest burst after the write, segments)",
            value(3.0),
            prr.map(|b| b as f64),
            &untested,
        ),
        example_claim(
            "fig4",
            "fig4-rate-halving-banks-nothing",
            "Section 4.3: Linux rate-halving banks no opportunities (PRR's burst - rate-halving's, segments, at the same write)",
            Expect::Order {
                paper_positive: true,
            },
            prr.zip(rh).map(|(p, h)| p as f64 - h as f64),
            &untested,
        ),
    ];
    Ok(e)
}

/// Every metric a headline row of the PRR paper judges can land on either
/// side of its band (a metric that cannot fail is no finding), shown on
/// cheap runs of the section 4 testbed; ER's is in prr_er.rs.
#[cfg(test)]
mod tests {
    use super::*;

    /// The testbed's scenarios the metrics are tried on: Figure 2's
    /// drops, Figure 3's, a single loss, a heavy loss that leaves too
    /// little data to refill the window, section 4.3's stretch ACKs, and
    /// no loss.
    /// A case: its name, the segments dropped, the application's writes.
    type Case = (&'static str, Vec<u64>, Vec<(Time, u64)>);

    fn cases() -> Vec<Case> {
        vec![
            ("fig2", vec![1, 2, 3, 4], paper_writes()),
            ("fig3", (1..=4).chain(11..=16).collect(), paper_writes()),
            ("single", vec![1], vec![(0, 20_000)]),
            ("heavy", (1..=8).collect(), vec![(0, 20_000)]),
            ("stretch", vec![1, 2, 3, 4], vec![(0, 100_000)]),
            // Application-limited: the response ends soon after the loss,
            // where the web stand-in's recoveries end below ssthresh.
            ("late", vec![15, 16, 17], vec![(0, 20_000)]),
            ("later", vec![16], vec![(0, 20_000)]),
            ("none", vec![], paper_writes()),
        ]
    }

    fn case(n: &str, rec: &str, d: Vec<u64>, w: Vec<(Time, u64)>) -> Scenario {
        let mut sc = testbed(&format!("t-{n}-{rec}"), rec, d, w);
        if n == "stretch" {
            sc.reverse.loss = LossModel::Drop {
                flow: "a".into(),
                which: DropSpec::Packets((1..=3000).filter(|i| i % 3 != 0).collect()),
            };
        }
        sc
    }

    fn runs(rec: &str) -> Vec<Run> {
        cases()
            .into_iter()
            .map(|(n, d, w)| common::run(&case(n, rec, d, w), None).unwrap())
            .collect()
    }

    /// Both signs among `v`: some above `hi`, some at or below `lo`.
    fn both_sides(what: &str, v: &[Option<f64>], lo: f64, hi: f64) {
        eprintln!("{what}: {v:?}");
        let v: Vec<f64> = v.iter().flatten().copied().collect();
        assert!(v.iter().any(|x| *x > hi), "{what}: never above {hi}: {v:?}");
        assert!(
            v.iter().any(|x| *x <= lo),
            "{what}: never at or below {lo}: {v:?}"
        );
    }

    #[test]
    fn headline_metrics_take_both_sides() {
        let (prr, rfc, rh) = (runs("prr-6937"), runs("rfc3517"), runs("rate-halving"));
        let rec = |r: &Run| r.results.flows[0].recoveries.first().cloned();
        // Headline 1: rate-halving's (cwnd at the exit - ssthresh) minus
        // PRR's on the same case. Rate-halving's exit sets cwnd to at most
        // ssthresh and PRR ends at ssthresh unless application-limited, so
        // no case here puts rate-halving above PRR: the row is marked as
        // holding by construction (prr_web.rs), and this says why.
        let gap = |r: &Run| rec(r).and_then(|x| Some(x.cwnd_after? as f64 - x.ssthresh as f64));
        let d: Vec<f64> = rh
            .iter()
            .zip(&prr)
            .filter_map(|(h, p)| Some(gap(h)? - gap(p)?))
            .collect();
        assert!(!d.is_empty() && d.iter().all(|x| *x <= 0.0), "{d:?}");
        // Headlines 1 and 2: RFC 3517's largest burst - PRR's (order).
        let burst = |r: &Run| {
            rec(r).and_then(|x| {
                let (a, b) = (x.start_s * SEC as f64, x.end_s? * SEC as f64);
                Some(largest_burst(&r.traces[0], a as Time, b as Time) as f64)
            })
        };
        let d: Vec<Option<f64>> = rfc
            .iter()
            .zip(&prr)
            .map(|(f, p)| Some(burst(f)? - burst(p)?))
            .collect();
        both_sides("RFC 3517's burst - PRR's", &d, 0.0, 0.0);
        // Headline 2: rate-halving's recovery time - PRR's (order).
        let time = |r: &Run| rec(r).and_then(|x| Some(x.end_s? - x.start_s));
        let d: Vec<Option<f64>> = rh
            .iter()
            .zip(&prr)
            .map(|(h, p)| Some(time(h)? - time(p)?))
            .collect();
        both_sides("rate-halving's recovery time - PRR's", &d, 0.0, 0.0);
        // Headline 2: PRR's cwnd reaches ssthresh before the exit (share,
        // 0.9 +- 0.1): a recovery that does scores 1, one that does not 0.
        let reached =
            |r: &Run| rec(r).and_then(|x| Some((x.cwnd_before_exit? >= x.ssthresh) as u8 as f64));
        let v: Vec<Option<f64>> = prr.iter().map(reached).collect();
        both_sides("PRR reaches ssthresh", &v, 0.0, 0.99);
        // Headline 3: PRR's mean latency of responses against
        // rate-halving's, relative (band [-10%, -3%]).
        let latency = |r: &Run, sc: &Scenario| {
            let v = r.traces[0].response_latencies_ms(&sc.flows[0], |_, _, _| true);
            v.iter().sum::<f64>() / v.len() as f64
        };
        let effect: Vec<Option<f64>> = cases()
            .into_iter()
            .zip(prr.iter().zip(&rh))
            .map(|((n, d, w), (p, h))| {
                let sc = case(n, "prr-6937", d, w);
                Some(latency(p, &sc) / latency(h, &sc) - 1.0)
            })
            .collect();
        eprintln!("latency effect: {effect:?}");
        let e: Vec<f64> = effect.into_iter().flatten().collect();
        assert!(e.iter().any(|x| *x < -0.10), "{e:?}");
        assert!(e.iter().any(|x| *x > -0.03), "{e:?}");
    }
}
