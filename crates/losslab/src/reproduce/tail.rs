//! Rajiullah et al., "An Evaluation of Tail Loss Recovery Mechanisms for
//! TCP" (../shared/papers/tail-loss-rtor-tlp-tlpr.txt): the controlled
//! tail-loss experiments of section 3.1 (Figures 1 and 2), the flows
//! among background traffic of section 3.2 (Figure 3) and the web page
//! loads of section 3.3 (Figure 4).
//!
//! Their testbed: Linux 3.17 hosts, so our senders are that kernel's
//! (profile `linux-3.17`: 3.x's CUBIC, PRR as 3.x's tcp_cwnd_reduction(),
//! early retransmit as Linux did it over FACK with the SRTT/4 delay,
//! Linux's RTO, F-RTO, the handshake). The baseline is that kernel's RTO
//! with ER; RTOR, TLP and
//! TLPR replace its timer. The paper's receivers delay ACKs with a fixed
//! 200 ms timeout (a modification of theirs) or ACK every segment (quick
//! ACKs). In section 3.1 the FCT runs from connection establishment to
//! the arrival of the last byte, as the paper defines it; elsewhere from
//! the flow's start.

use losslab_core::time::{Time, MS, SEC};
use losslab_sim::scenario::*;

use super::claims::{exact, heavy_tail_explanation, paired_difference, Band, Claim, Expect};
use super::common::{par_map, path, quantile, scenario, Gen, Responses, Run};
use super::setup::Choice;
use super::{Ctx, Experiment, PaperResult};
use losslab_sim::stats::{summarize, Summary};

const TIMERS: [&str; 4] = ["rto", "rtor", "tlp", "tlpr"];
const LABELS: [&str; 4] = ["baseline", "RTOR", "TLP", "TLPR"];
const MSS: u64 = 1448;

/// The parameters the paper leaves open (setup.rs reruns each).
const FIG12_LINK: Choice = Choice {
    key: "fig12-link",
    value: "1000",
    unit: "Mbit/s",
    why: "the paper gives only RTTs; a fast link keeps serialisation (which it does not \
          mention) out of the RTT RTOR saves. With delayed ACKs the margin is small: at RTT 80 \
          ms the delayed ACK reaches the sender 0.89 ms before RTOR's restarted timer (an RTO \
          of 281 ms, rounded up from 280.003), and at 100 Mbit/s it arrives after it. Slower \
          links also restore the paper's 10 ms quick-ACK exception (the ninth ACK arriving \
          after the PTO), which 1 Gbit/s removes and no row judges",
    alternatives: ["100", "10"],
    experiments: &["fig1", "fig2"],
    quick: true,
};
const HZ: Choice = Choice {
    key: "timer-hz",
    value: "1000",
    unit: "Hz",
    why: "the paper's Linux 3.17 hosts' CONFIG_HZ is not given; 1000 was the common server \
          and desktop build, 250 and 100 the others",
    alternatives: ["250", "100"],
    experiments: &["fig1", "fig2", "sec32", "sec33"],
    quick: false,
};
const SEC32_CONNS: Choice = Choice {
    key: "sec32-background-connections",
    value: "30",
    unit: "connections",
    why: "the paper replays a Tmix trace we do not have at about 1.5% loss; 30 of our \
          web-like connections lose about 2.5%",
    alternatives: ["20", "45"],
    experiments: &["sec32"],
    quick: false,
};
const CHOICES: [Choice; 3] = [FIG12_LINK, HZ, SEC32_CONNS];

/// Runs `sc` with the timer frequency of this run (`HZ`) on every flow.
fn run_hz(ctx: &Ctx, exp: &str, sc: &Scenario) -> Result<Run, String> {
    let hz = ctx.choice_u64(&HZ)? as u32;
    if sc.flows.iter().all(|f| f.timer_hz == hz) {
        return ctx.run(exp, sc, None);
    }
    let mut sc = sc.clone();
    for f in &mut sc.flows {
        f.timer_hz = hz;
    }
    ctx.run(exp, &sc, None)
}

/// The paper's Linux 3.17 host (profile `linux-3.17`) with `timers`,
/// talking to a Linux receiver.
fn linux317(name: &str, timers: &str) -> FlowSpec {
    let mut f = FlowSpec::new(name);
    assert!(losslab_sim::profile::apply("linux-3.17", &mut f));
    f.timers = timers.into();
    f
}

/// The paper's sender with `timers`, to a receiver with the paper's ACK
/// policy: delayed ACKs with a fixed 200 ms timeout, or quick ACKs.
fn linux_flow(name: &str, timers: &str, ack: AckSpec) -> FlowSpec {
    let mut f = linux317(name, timers);
    if ack == AckSpec::Delayed {
        f.receiver.linux_delack = false;
        f.receiver.delack_timeout = 200 * MS;
    }
    f.receiver.ack = ack;
    f
}

fn ack_label(ack: &AckSpec) -> &'static str {
    match ack {
        AckSpec::Delayed => "delayed ACKs",
        AckSpec::Quick => "quick ACKs",
    }
}

fn ack_slug(ack: &AckSpec) -> &'static str {
    match ack {
        AckSpec::Delayed => "delack",
        AckSpec::Quick => "quickack",
    }
}

/// Grouped bars of FCT normalised to the baseline: one group per x value,
/// one series per mechanism other than the baseline.
fn normalised_bars(
    ctx: &Ctx,
    e: &mut Experiment,
    name: &str,
    title: &str,
    x_label: &str,
    groups: Vec<String>,
    fcts: &[[Time; 4]],
) -> Result<(), String> {
    let series: Vec<(String, Vec<f64>)> = (1..4)
        .map(|i| {
            (
                LABELS[i].to_string(),
                fcts.iter().map(|v| v[i] as f64 / v[0] as f64).collect(),
            )
        })
        .collect();
    let dir = ctx.sub(&e.id)?;
    losslab_viz::charts::grouped_bars_with(
        &dir.join(name),
        &losslab_viz::charts::BarsSpec {
            title,
            x_label,
            y_label: "FCT / baseline FCT",
            groups: &groups,
            series: &series,
            ..Default::default()
        },
    )
    .map_err(|x| x.to_string())?;
    e.pictures.push(format!("{}/{name}.png", e.id));
    Ok(())
}

fn cdf_chart(
    ctx: &Ctx,
    e: &mut Experiment,
    name: &str,
    title: &str,
    x_label: &str,
    series: &[Vec<f64>; 4],
) -> Result<(), String> {
    let dir = ctx.sub(&e.id)?;
    let named: Vec<(String, Vec<f64>)> = LABELS
        .iter()
        .zip(series)
        .map(|(l, v)| (l.to_string(), v.clone()))
        .collect();
    losslab_viz::charts::cdf(&dir.join(name), title, x_label, &named).map_err(|x| x.to_string())?;
    e.pictures.push(format!("{}/{name}.png", e.id));
    Ok(())
}

fn median(v: &[f64]) -> Option<f64> {
    quantile(&mut v.to_vec(), 0.5)
}

/// The four mechanisms' medians, and "m0 / m1 / m2 / m3" in ms and
/// "n = c0 / c1 / c2 / c3" for a table row.
fn median_summary(samples: [&[f64]; 4]) -> ([Option<f64>; 4], String, String) {
    let med = samples.map(median);
    let ms = med.map(fmt_ms).join(" / ");
    let n = samples.map(|v| v.len().to_string()).join(" / ");
    (med, ms, format!("n = {n}"))
}

fn fmt_ms(x: Option<f64>) -> String {
    x.map_or("-".into(), |s| format!("{:.0}", s * 1000.0))
}

pub fn run(ctx: &Ctx) -> Result<PaperResult, String> {
    Ok(PaperResult {
        paper: "tail".into(),
        title: "An Evaluation of Tail Loss Recovery Mechanisms for TCP (Rajiullah et al.)".into(),
        quick: ctx.quick,
        full: ctx.full,
        thorough: ctx.thorough,
        subset: ctx.quick,
        experiments: {
            let mut v = vec![
                super::timing::experiment(ctx, "", || figure1(ctx))?,
                super::timing::experiment(ctx, "", || figure2(ctx))?,
                super::timing::experiment(ctx, "", || section32(ctx))?,
                super::timing::experiment(ctx, "", || section33(ctx))?,
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
        "fig1" => figure1(ctx),
        "fig2" => figure2(ctx),
        "sec32" => section32(ctx),
        "sec33" => section33(ctx),
        _ => Err(format!("tail: no experiment {id:?}")),
    }
}

// ---- section 3.1: controlled tail loss ------------------------------------

/// Which model of the paper's sender a Figure 1-2 run uses.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Model {
    /// The paper's Linux 3.17 (profile `linux-3.17`: Linux's whole RTT
    /// estimator, timers on the `HZ` tick) and TLPR as section 2.3
    /// defines it.
    Paper,
    /// Before issue 28: Linux's RTO formula over RFC 6298's estimator
    /// (RTTVAR decays on every ACK) on exact timers.
    FormulaOnly,
    /// TLPR whose restarted probe is capped at RTOR's restarted RTO
    /// (`rtor_cap`; ours, our reading of section 3.1's "the combination
    /// of them").
    TlprCap,
}

/// One run of Figures 1-2: a 10-segment flow losing its last `tail`
/// segments; its FCT from connection establishment (the paper's
/// definition), spurious retransmissions and RTOs.
#[derive(Clone, Copy, Default)]
struct Tail1 {
    fct: Time,
    spurious: u64,
    timeouts: u64,
}

fn fct(
    ctx: &Ctx,
    exp: &str,
    rtt_ms: u64,
    tail: u64,
    timers: &str,
    ack: &AckSpec,
    model: Model,
) -> Result<Tail1, String> {
    let loss = LossModel::Drop {
        flow: "a".into(),
        which: DropSpec::Tail(tail),
    };
    let mut f = linux_flow("a", timers, ack.clone());
    f.app = AppSpec::Bytes(10 * MSS);
    let variant = match model {
        Model::Paper => "",
        Model::FormulaOnly => {
            f.rto_formula = losslab_core::RtoFormula::Linux;
            f.timer_hz = 0;
            "-formula-only"
        }
        Model::TlprCap => {
            f.tlpr_rtor_cap = true;
            "-rtor-cap"
        }
    };
    let rate = ctx.choice_u64(&FIG12_LINK)? * 1_000_000;
    let sc = scenario(
        &format!(
            "tail-{rtt_ms}ms-{tail}lost-{}-{timers}{variant}",
            ack_slug(ack)
        ),
        60 * SEC,
        path(rate, rtt_ms * MS / 2, QueueLimit::Packets(100), loss),
        vec![f],
    );
    let r = if model == Model::FormulaOnly {
        ctx.run(exp, &sc, None)?
    } else {
        run_hz(ctx, exp, &sc)?
    };
    let f = &r.results.flows[0];
    let (Some(s), Some(h)) = (f.fct_s, f.handshake_s) else {
        return Err(format!("{}: the flow did not finish", sc.name));
    };
    Ok(Tail1 {
        fct: ((s - h) * SEC as f64).round() as Time,
        spurious: f.spurious_retransmissions,
        timeouts: f.timeouts,
    })
}

/// The four mechanisms' runs.
fn four(ctx: &Ctx, exp: &str, rtt: u64, tail: u64, ack: &AckSpec) -> Result<[Tail1; 4], String> {
    let mut v = [Tail1::default(); 4];
    for (i, t) in TIMERS.iter().enumerate() {
        v[i] = fct(ctx, exp, rtt, tail, t, ack, Model::Paper)?;
    }
    Ok(v)
}

/// "r1 / r2 / r3" FCT over the baseline's, then the spurious
/// retransmissions and RTOs of the four runs.
fn ratios(v: &[Tail1; 4]) -> String {
    let b = v[0].fct as f64;
    format!(
        "{:.2} / {:.2} / {:.2} (spurious {}; RTOs {})",
        v[1].fct as f64 / b,
        v[2].fct as f64 / b,
        v[3].fct as f64 / b,
        v.map(|t| t.spurious.to_string()).join("/"),
        v.map(|t| t.timeouts.to_string()).join("/"),
    )
}

/// A claim of section 3.1: no random input ("no variation was observed
/// in the results"), so one exact run.
fn controlled(exp: &str, id: String, statement: String, expect: Expect, ours_ms: f64) -> Claim {
    Claim::measured("tail", exp, &id, &statement, expect, exact(ours_ms), "")
}

/// Mechanism `i`'s saving against the baseline, ms. A run that
/// retransmitted spuriously where the baseline did not saved nothing
/// that counts: its timer only beat an ACK already on its way (section
/// 3.1: "there were no spurious retransmissions").
fn saved_ms(v: &[Tail1; 4], i: usize) -> f64 {
    if v[i].spurious > v[0].spurious {
        return 0.0;
    }
    (v[0].fct as f64 - v[i].fct as f64) / MS as f64
}

/// The words every saving row carries about that rule.
const COUNTED: &str = "a run with a spurious retransmission the baseline lacks counts no saving";

/// Section 3.1's "there were no spurious retransmissions", over all of a
/// figure's runs of the four mechanisms.
fn no_spurious(exp: &str, figure: &str, runs: &[[Tail1; 4]]) -> Claim {
    let total: u64 = runs.iter().flatten().map(|t| t.spurious).sum();
    Claim::measured(
        "tail",
        exp,
        &format!("{exp}-no-spurious-retransmissions"),
        &format!("Section 3.1: \"there were no spurious retransmissions\" ({figure}: spurious retransmissions over all its runs of the four mechanisms)"),
        Expect::Value {
            paper: 0.0,
            band: Band::Absolute { d: 0.5 },
        },
        exact(total as f64),
        "",
    )
}

fn figure1(ctx: &Ctx) -> Result<Experiment, String> {
    let rtts: &[u64] = ctx.pick(
        &[10, 80, 320],
        &[10, 20, 40, 80, 160, 320, 640],
        &[10, 20, 40, 80, 160, 320, 640],
    );
    let mut e = Experiment::new(
        "fig1",
        "Normalized FCT, 10-segment flows losing their last segment (Figure 1)",
        "The Linux 3.17 sender (profile linux-3.17: Linux's whole RTT estimator, timers on a \
         1000 Hz tick) over a 1 Gbit/s link (setup choices: see the setup table); the last \
         segment's first transmission dropped; FCT from connection establishment, normalized \
         to the baseline (RTO with ER) at each RTT, delayed ACKs (200 ms) and quick ACKs. Ours: \
         RTOR / TLP / TLPR, then the spurious retransmissions and RTOs of baseline / RTOR / TLP \
         / TLPR. TLPR is section 2.3's (PTO - T_last). No random input: each number is one \
         exact run.",
    );
    // RTOR's saving (ms) per RTT, delayed ACKs then quick: headline 3.
    let mut rtor_saved: [Vec<f64>; 2] = [vec![], vec![]];
    let mut runs = Vec::new();
    // Per cell: TLPR's FCT is the lowest (to 1 ms) of the four, as the
    // paper's TLPR and as the capped variant.
    let mut tlpr_best = [0u64; 2];
    let mut cells = 0u64;
    for (a, ack) in [AckSpec::Delayed, AckSpec::Quick].into_iter().enumerate() {
        let mut all = Vec::new();
        for &rtt in rtts {
            let v = four(ctx, "fig1", rtt, 1, &ack)?;
            let capped = fct(ctx, "fig1", rtt, 1, "tlpr", &ack, Model::TlprCap)?;
            let others = v[0].fct.min(v[1].fct).min(v[2].fct);
            cells += 1;
            tlpr_best[0] += u64::from(v[3].fct <= others + MS);
            tlpr_best[1] += u64::from(capped.fct <= others + MS);
            rtor_saved[a].push(saved_ms(&v, 1));
            e.row(
                format!(
                    "{}, RTT {rtt} ms (baseline {} ms)",
                    ack_label(&ack),
                    v[0].fct / MS
                ),
                ratios(&v),
                match (&ack, rtt) {
                    (AckSpec::Quick, _) => "RTOR saves one RTT; TLP about equal; TLPR best",
                    (AckSpec::Delayed, r) if r <= 80 => {
                        "RTOR saves an RTT + the delayed ACK; TLP large gains; TLPR best"
                    }
                    _ => "RTOR saves an RTT + the delayed ACK; TLP small gain; TLPR best",
                },
            );
            let slug = ack_slug(&ack);
            match ack {
                AckSpec::Quick => e.claims.push(controlled(
                    "fig1",
                    format!("fig1-{slug}-{rtt}ms-rtor-saves-one-rtt"),
                    format!("Figure 1, quick ACKs, RTT {rtt} ms: RTOR reduces the FCT by one RTT (baseline - RTOR, ms; {COUNTED})"),
                    Expect::Value {
                        paper: rtt as f64,
                        band: Band::QUANTITY,
                    },
                    saved_ms(&v, 1),
                )),
                AckSpec::Delayed => {
                    // The model before issue 28, beside ours: its saving
                    // came from a timer that beat the delayed ACK.
                    let old = [
                        fct(ctx, "fig1", rtt, 1, "rto", &ack, Model::FormulaOnly)?,
                        fct(ctx, "fig1", rtt, 1, "rtor", &ack, Model::FormulaOnly)?,
                    ];
                    e.row(
                        format!("delayed ACKs, RTT {rtt} ms: RTOR's saving"),
                        format!(
                            "{:.1} ms, {} spurious; Linux's formula alone on exact timers (before issue 28): {:.1} ms, {} spurious",
                            (v[0].fct as f64 - v[1].fct as f64) / MS as f64,
                            v[1].spurious,
                            (old[0].fct as f64 - old[1].fct as f64) / MS as f64,
                            old[1].spurious
                        ),
                        format!("{} ms (RTT + 200 ms), no spurious retransmissions", rtt + 200),
                    );
                    e.claims.push(controlled(
                        "fig1",
                        format!("fig1-{slug}-{rtt}ms-rtor-saves-rtt-and-delack"),
                        format!("Figure 1, delayed ACKs, RTT {rtt} ms: RTOR's reduction is one RTT plus the 200 ms delayed-ACK timer (baseline - RTOR, ms; {COUNTED})"),
                        Expect::Value {
                            paper: (rtt + 200) as f64,
                            band: Band::QUANTITY,
                        },
                        saved_ms(&v, 1),
                    ));
                    if rtt <= 80 {
                        e.claims.push(controlled(
                            "fig1",
                            format!("fig1-{slug}-{rtt}ms-tlp-gain"),
                            format!("Figure 1, delayed ACKs, RTT {rtt} ms (10-80 ms): TLP gives large FCT gains (baseline - TLP, ms; {COUNTED})"),
                            Expect::Order {
                                paper_positive: true,
                            },
                            saved_ms(&v, 2),
                        ));
                    }
                }
            }
            runs.push(v);
            all.push(v.map(|t| t.fct));
        }
        normalised_bars(
            ctx,
            &mut e,
            ack_slug(&ack),
            &format!(
                "Figure 1, {}: FCT normalised to the baseline",
                ack_label(&ack)
            ),
            "RTT",
            rtts.iter().map(|r| format!("{r} ms")).collect(),
            &all,
        )?;
    }
    e.claims.push(tlpr_largest(tlpr_best, cells));
    e.claims.push(no_spurious("fig1", "Figure 1", &runs));
    e.claims.extend(headline3(rtts, &rtor_saved));
    e.claims = e.claims.into_iter().map(Claim::or_unexplained).collect();
    Ok(e)
}

/// Section 3.1 on Figure 1: "the combination of them, TLPR, can in most
/// situations reap the benefits of both components and provide the,
/// overall, largest reductions in FCT". `best[0]` counts the cells where
/// the paper's TLPR has the lowest FCT (ties within 1 ms), `best[1]`
/// where the capped variant does.
fn tlpr_largest(best: [u64; 2], cells: u64) -> Claim {
    let expect = Expect::AtLeast {
        paper: 0.5,
        band: Band::Absolute { d: 0.0 },
    };
    // Each cell is one exact run (no random input), so the share is a
    // count, not a sample: no interval.
    let share = |k: u64| exact(k as f64 / cells.max(1) as f64);
    let c = Claim::measured(
        "tail",
        "fig1",
        "fig1-tlpr-largest-reduction-in-most-cells",
        "Section 3.1: TLPR provides \"in most situations\" the largest FCT reduction (Figure 1: share of its RTT x ACK-policy cells where TLPR's FCT is the lowest of the four, ties within 1 ms; \"most\" read as more than half)",
        expect.clone(),
        share(best[0]),
        "",
    );
    let variant = c.on(share(best[1]));
    let tested = format!(
        "TLPR with RTOR's restarted RTO as a cap on its restarted probe (rtor_cap, ours: the \
         paper's TLP checks its PTO against the RTO, and section 3.1 calls TLPR \"the \
         combination\" of RTOR and TLP; section 2.3 defines only PTO - T_last): best in {} of \
         {cells} cells, {}",
        best[1],
        variant.verdict.name()
    );
    c.explained_by(|c| {
        if super::claims::supports(c, &variant) {
            format!(
                "Explained by the RTO check: with quick ACKs the paper's PTO for one \
                 outstanding segment, 1.5 SRTT + 200 ms from the last send, comes after RTOR's \
                 restarted RTO (SRTT + 200 ms), so TLPR as section 2.3 defines it loses to RTOR; \
                 tested: {tested}."
            )
        } else {
            format!(
                "{}; tested and rejected: {tested}",
                super::claims::UNEXPLAINED
            )
        }
    })
}

const HEADLINE3: &str = "Headline 3: \"RTOR reduces tail loss recovery time by one RTT as compared to standard TCP, and possibly more if delACKs are used\" (abstract)";

/// Headline 3 on Figure 1's runs (one exact run per RTT and ACK policy,
/// so the interval is over the RTTs): RTOR's saving in RTTs with quick
/// ACKs, and how much more it saves with delayed ACKs at the same RTT.
fn headline3(rtts: &[u64], saved: &[Vec<f64>; 2]) -> Vec<Claim> {
    let [delayed, quick] = saved;
    let in_rtts: Vec<f64> = quick.iter().zip(rtts).map(|(s, r)| s / *r as f64).collect();
    vec![
        Claim::measured(
            "tail",
            "fig1",
            "headline3-rtor-saves-one-rtt",
            &format!("{HEADLINE3}: with quick ACKs RTOR saves one RTT (Figure 1; baseline - RTOR in RTTs, one exact run per RTT, over the RTTs)"),
            Expect::Value {
                paper: 1.0,
                band: Band::QUANTITY,
            },
            summarize(&in_rtts, false, "h3-rtts"),
            super::claims::UNTESTED,
        )
        .headline(),
        Claim::measured(
            "tail",
            "fig1",
            "headline3-rtor-saves-more-with-delacks",
            &format!("{HEADLINE3}: RTOR saves more with delayed ACKs than with quick ACKs (Figure 1; saving with delayed ACKs - saving with quick ACKs at the same RTT, ms, over the RTTs)"),
            Expect::Order {
                paper_positive: true,
            },
            paired_difference(quick, delayed, "h3-delack"),
            "",
        )
        .explained_by(|c| {
            let d: Vec<f64> = quick.iter().zip(delayed).map(|(a, b)| b - a).collect();
            heavy_tail_explanation(&c.expect, &d, "RTTs")
        })
        .headline(),
    ]
}

fn figure2(ctx: &Ctx) -> Result<Experiment, String> {
    let mut e = Experiment::new(
        "fig2",
        "Normalized FCT, 10-segment flows losing their last n segments, RTT 80 ms (Figure 2)",
        "As Figure 1 with RTT 80 ms and 1 to 5 consecutive tail segments dropped. Ours: RTOR / \
         TLP / TLPR, then spurious retransmissions and RTOs of the four. The paper's claim is about losing more than one segment (one is Figure \
         1's case), and RTOR's limit beyond three lost segments is its rrthresh setting, a \
         unit test of RTOR (losslab-core), not a claim here.",
    );
    let mut runs = Vec::new();
    for ack in [AckSpec::Delayed, AckSpec::Quick] {
        let mut all = Vec::new();
        let slug = ack_slug(&ack);
        for n in 1..=5u64 {
            let v = four(ctx, "fig2", 80, n, &ack)?;
            runs.push(v);
            e.row(
                format!(
                    "{}, {n} lost (baseline {} ms)",
                    ack_label(&ack),
                    v[0].fct / MS
                ),
                ratios(&v),
                if n > 3 {
                    "RTOR no gain (rrthresh 4); TLP and TLPR reduce the FCT"
                } else {
                    "all reduce the FCT"
                },
            );
            // "All the mechanisms are able to reduce the FCT when the degree
            // of tail loss increases, with the exception of RTOR when the
            // degree of loss is larger than three": one lost segment is
            // Figure 1's case.
            let mut mechs = if n >= 2 {
                vec![(2, "TLP"), (3, "TLPR")]
            } else {
                vec![]
            };
            if n <= 3 {
                mechs.insert(0, (1, "RTOR"));
            }
            for (i, name) in mechs {
                e.claims.push(controlled(
                    "fig2",
                    format!("fig2-{slug}-{n}lost-{}-reduces-fct", name.to_lowercase()),
                    format!(
                        "Figure 2, {}, {n} lost: {name} reduces the FCT (baseline - {name}, ms; {COUNTED})",
                        ack_label(&ack)
                    ),
                    Expect::Order {
                        paper_positive: true,
                    },
                    saved_ms(&v, i),
                ));
            }
            all.push(v.map(|t| t.fct));
        }
        normalised_bars(
            ctx,
            &mut e,
            slug,
            &format!(
                "Figure 2, {}, RTT 80 ms: FCT normalised to the baseline",
                ack_label(&ack)
            ),
            "tail segments lost",
            (1..=5).map(|n| format!("{n} lost")).collect(),
            &all,
        )?;
    }
    e.claims.push(no_spurious("fig2", "Figure 2", &runs));
    e.claims = e.claims.into_iter().map(Claim::or_unexplained).collect();
    Ok(e)
}

// ---- section 3.2: tail loss among background traffic ------------------------

const BOTTLENECK: u64 = 10_000_000;
/// Propagation shared by every flow; each flow adds its own access delay.
const PATH_DELAY: Time = MS;

/// Background traffic standing in for the paper's Tmix replay of a real
/// trace: web-like responses (log-normal sizes of mean 60 kB, sigma 1.5;
/// exponential gaps of mean 3 s) over persistent connections with RTTs
/// of 12 to 200 ms, all Linux 3.17 senders (restarting from the initial
/// window after idle periods, as Linux does). 30 connections offer about
/// 5 Mbit/s to a 10 Mbit/s bottleneck with a 35 ms queue; the bursts of
/// the heavy tail overflow it, losing about 2.5% of packets (the paper
/// had about 1.5%).
fn background(g: &mut Gen, dur: Time, conns: usize) -> Vec<FlowSpec> {
    (0..conns)
        .map(|c| {
            let (writes, _) = Responses {
                first_ms: 1000.0,
                mean_bytes: 60_000.0,
                sigma: 1.5,
                bytes: (200, 5_000_000),
                think_ms: 3000.0,
                min_gap_ms: 1,
            }
            .draw(g, |_, t| t < dur);
            let mut f = linux_flow(&format!("bg{c}"), "rto", AckSpec::Delayed);
            f.app = AppSpec::Writes(writes);
            f.delay = (5 + (g.unit() * 95.0) as Time) * MS;
            f
        })
        .collect()
}

struct FgConfig {
    segments: u64,
    owd: Time,
    ack: AckSpec,
}

/// What one run of foreground flows gave.
#[derive(Default)]
struct FgOutcome {
    /// FCTs of flows with a loss among their last four segments.
    tail_fct: Vec<f64>,
    /// FCTs of flows that lost their last segment and nothing else (the
    /// paper's Figure 1 case).
    last_only_fct: Vec<f64>,
    /// FCTs of the flows with a tail loss that lost one segment only
    /// (each of its transmissions may have been dropped).
    single_loss_fct: Vec<f64>,
    /// FCTs of the flows with a tail loss that lost two or more distinct
    /// segments: where the paper finds RTOR better (section 3.2).
    multi_loss_fct: Vec<f64>,
    /// FCTs of the flows that lost nothing: a mechanism has nothing to
    /// repair there, so what it changes is what its spurious
    /// retransmissions cost (headline 4).
    clean_fct: Vec<f64>,
    flows: usize,
    segments: u64,
    spurious: u64,
    timeouts: u64,
    /// Loss episodes (runs of consecutive lost segments) of the
    /// foreground flows, and those too close to the end for three
    /// duplicate ACKs: the paper's tail losses.
    episodes: u64,
    tail_episodes: u64,
    loss_rate: f64,
    max_queue_ms: f64,
}

/// Loss episodes of a flow of `segments` segments from the first bytes of
/// its dropped packets: (episodes, tail episodes).
fn episodes(dropped: &[u64], segments: u64) -> (u64, u64) {
    let mut lost: Vec<u64> = dropped.iter().map(|s| s / MSS).collect();
    lost.sort_unstable();
    lost.dedup();
    let (mut all, mut tail) = (0, 0);
    let mut i = 0;
    while i < lost.len() {
        let mut j = i;
        while j + 1 < lost.len() && lost[j + 1] == lost[j] + 1 {
            j += 1;
        }
        all += 1;
        // Fewer than three segments after the episode: no three
        // duplicate ACKs can follow it.
        if segments.saturating_sub(lost[j] + 1) < 3 {
            tail += 1;
        }
        i = j + 1;
    }
    (all, tail)
}

fn foreground_run(
    ctx: &Ctx,
    cfg: &FgConfig,
    timers: &str,
    scale: &Sec32Scale,
    seed: u64,
) -> Result<FgOutcome, String> {
    let Sec32Scale {
        dur, gap, conns, ..
    } = *scale;
    // The same background for every mechanism: the same generator seed.
    let mut g = Gen::new(3_2_0_0 + cfg.owd / MS + 7919 * seed);
    let mut flows = background(&mut g, dur, conns);
    let total = cfg.segments * MSS;
    let mut t = 2 * SEC;
    let mut i = 0;
    while t + 10 * SEC < dur {
        let mut f = linux_flow(&format!("fg{i}"), timers, cfg.ack.clone());
        f.start = t;
        f.app = AppSpec::Bytes(total);
        f.delay = cfg.owd - PATH_DELAY;
        flows.push(f);
        // Larger flows less often, so that the foreground adds little load.
        t += gap * cfg.segments.div_ceil(10);
        i += 1;
    }
    let queue = BOTTLENECK / 8 * 35 / 1000;
    let mut sc = scenario(
        &format!(
            "bg-seed{seed}-{}seg-{}ms-{}-{timers}",
            cfg.segments,
            cfg.owd / MS,
            ack_slug(&cfg.ack)
        ),
        dur + 120 * SEC,
        path(
            BOTTLENECK,
            PATH_DELAY,
            QueueLimit::Bytes(queue),
            LossModel::None,
        ),
        flows,
    );
    sc.seed = 32 + 1000 * seed;
    let Run { results, traces } = run_hz(ctx, "sec32", &sc)?;
    let mut o = FgOutcome::default();
    let sent: u64 = results.flows.iter().map(|f| f.segments_sent).sum();
    o.loss_rate = results.path.drops as f64 / sent.max(1) as f64;
    o.max_queue_ms = results.path.max_queue_bytes as f64 * 8.0 / BOTTLENECK as f64 * 1000.0;
    for (f, tr) in results.flows.iter().zip(&traces).skip(conns) {
        o.flows += 1;
        o.segments += f.segments_sent;
        o.spurious += f.spurious_retransmissions;
        o.timeouts += f.timeouts;
        if tr.dropped_seqs.is_empty() {
            if let Some(fct) = f.fct_s {
                o.clean_fct.push(fct);
            }
        }
        let (all, tail) = episodes(&tr.dropped_seqs, cfg.segments);
        o.episodes += all;
        o.tail_episodes += tail;
        let in_tail = tr
            .dropped_seqs
            .iter()
            .any(|&s| s + 4 * MSS >= total && s < total);
        if in_tail {
            let fct = f
                .fct_s
                .ok_or_else(|| format!("{}: flow {} did not finish", sc.name, f.name))?;
            o.tail_fct.push(fct);
            if tr.dropped_seqs.iter().all(|&s| s + MSS >= total) {
                o.last_only_fct.push(fct);
            }
            if tr.dropped_seqs.iter().all(|&s| s == tr.dropped_seqs[0]) {
                o.single_loss_fct.push(fct);
            } else {
                o.multi_loss_fct.push(fct);
            }
        }
    }
    Ok(o)
}

#[derive(Clone, Copy)]
struct Sec32Scale {
    dur: Time,
    gap: Time,
    conns: usize,
    seeds: usize,
}

/// Section 3.2's claims from every seed's outcomes: `outs[seed][config]
/// [mechanism]`.
fn section32_claims(configs: &[FgConfig], outs: &[Vec<[FgOutcome; 4]>]) -> Vec<Claim> {
    let mut out = Vec::new();
    let claim = |id: String, statement: String, expect: Expect, v: Vec<f64>| {
        Claim::measured(
            "tail",
            "sec32",
            &id,
            &statement,
            expect.clone(),
            summarize(&v, false, &id),
            "",
        )
        .explained_by(|_| heavy_tail_explanation(&expect, &v, "seeds"))
        .or_unexplained()
    };
    for (c, cfg) in configs.iter().enumerate() {
        // Per seed, each mechanism's median FCT (ms) of the flows with a
        // tail loss; seeds where a mechanism had none are left out.
        let medians: Vec<[f64; 4]> = outs
            .iter()
            .filter_map(|seed| {
                let m: [Option<f64>; 4] = std::array::from_fn(|i| median(&seed[c][i].tail_fct));
                Some(std::array::from_fn(|i| m[i].unwrap_or(f64::NAN) * 1000.0))
                    .filter(|x: &[f64; 4]| x.iter().all(|v| v.is_finite()))
            })
            .collect();
        let label = format!(
            "{} segments, owd {} ms, {}",
            cfg.segments,
            cfg.owd / MS,
            ack_label(&cfg.ack)
        );
        let slug = format!(
            "sec32-{}seg-{}ms-{}",
            cfg.segments,
            cfg.owd / MS,
            ack_slug(&cfg.ack)
        );
        if cfg.segments == 4 {
            let rtt = 2.0 * (cfg.owd / MS) as f64;
            let (paper, what) = match cfg.ack {
                AckSpec::Quick => (rtt, "one RTT"),
                AckSpec::Delayed => (rtt + 200.0, "one RTT plus 200 ms"),
            };
            let expect = Expect::AtLeast {
                paper,
                band: Band::QUANTITY,
            };
            // The explanation experiment: the same runs, only the flows
            // that lost their last segment and nothing else, the case
            // RTOR is for; the population above also holds flows whose
            // losses duplicate ACKs repair, where RTOR has nothing to do.
            let last_only: Vec<f64> = outs
                .iter()
                .filter_map(|seed| {
                    let b = median(&seed[c][0].last_only_fct)?;
                    let r = median(&seed[c][1].last_only_fct)?;
                    Some((b - r) * 1000.0)
                })
                .collect();
            let saving = claim(
                format!("{slug}-rtor-saving"),
                format!("Figure 3, {label}: RTOR saves at least {what} against the baseline (difference of median FCTs, ms, per seed)"),
                expect.clone(),
                medians.iter().map(|m| m[0] - m[1]).collect(),
            );
            let why = |_: &Claim| {
                let v = summarize(&last_only, false, "last-only");
                let tested = format!(
                    "on the same runs, over the flows that lost their last segment and nothing \
                     else, RTOR saves {} ms per seed",
                    super::claims::summary_text(&v)
                );
                // The paper (3.2) presents "FCTs for flows that have at
                // least one loss in the four last segments": the row's own
                // population, so a narrower one leaves its setup and can
                // explain nothing, whatever it gives (issue 28 audit).
                format!(
                    "{}; tested and rejected, outside the paper's setup, that the population \
                     causes it (the paper presents flows with at least one loss among the last \
                     four segments, the row's own population): {tested} ({})",
                    super::claims::UNEXPLAINED,
                    super::claims::judge(&expect, &v).verdict.name()
                )
            };
            out.push(if saving.explanation == super::claims::UNEXPLAINED {
                Claim {
                    explanation: String::new(),
                    ..saving
                }
                .explained_by(why)
            } else {
                saving
            });
        }
        if cfg.segments <= 10 {
            let best = claim(
                format!("{slug}-tlpr-best"),
                format!("Section 3.2, {label}: TLPR outperforms the other mechanisms (lowest other median FCT - TLPR's, ms, per seed)"),
                Expect::Order {
                    paper_positive: true,
                },
                medians.iter().map(|m| m[0].min(m[1]).min(m[2]) - m[3]).collect(),
            );
            out.push(tlpr_best_by_burst(best, outs, c));
        }
        if cfg.segments == 100 && cfg.owd == 160 * MS {
            for (i, name) in [(2, "TLP"), (3, "TLPR")] {
                out.push(claim(
                    format!("{slug}-rtor-beats-{}", name.to_lowercase()),
                    format!("Figure 3f, {label}: RTOR performs better than {name} ({name}'s median FCT - RTOR's, ms, per seed)"),
                    Expect::Order {
                        paper_positive: true,
                    },
                    medians.iter().map(|m| m[i] - m[1]).collect(),
                ));
            }
        }
    }
    out.extend(section32_headlines(configs, outs));
    for (i, paper) in [(0, 2.18e-4), (1, 3.67e-4), (2, 3.49e-4), (3, 3.48e-4)] {
        // Spurious retransmissions per segment, per seed, over the
        // configurations `keep` selects.
        let fraction = |keep: &dyn Fn(&FgConfig) -> bool| -> Vec<f64> {
            outs.iter()
                .map(|seed| {
                    let (sp, n) = configs
                        .iter()
                        .zip(seed)
                        .filter(|(cfg, _)| keep(cfg))
                        .fold((0, 0), |a, (_, c)| {
                            (a.0 + c[i].spurious, a.1 + c[i].segments)
                        });
                    sp as f64 / n.max(1) as f64
                })
                .collect()
        };
        let id = format!("sec32-spurious-{}", TIMERS[i]);
        let expect = Expect::Value {
            paper,
            band: Band::QUANTITY,
        };
        let why = spurious_by_ack_policy(
            &expect,
            &fraction(&|c| c.ack == AckSpec::Quick),
            &fraction(&|c| c.ack == AckSpec::Delayed),
        );
        out.push(
            Claim::measured(
                "tail",
                "sec32",
                &id,
                &format!(
                    "Section 3.2: {} spurious retransmissions are {paper:.2e} of all segments (per seed, all configurations)",
                    LABELS[i]
                ),
                expect,
                summarize(&fraction(&|_| true), false, &id),
                &why,
            )
            .or_unexplained(),
        );
    }
    for (small, paper, what) in [(true, 0.95, "over 95%"), (false, 0.10, "at most 10%")] {
        let share: Vec<f64> = outs
            .iter()
            .filter_map(|seed| {
                let (t, a) = configs
                    .iter()
                    .zip(seed)
                    .filter(|(cfg, _)| (cfg.segments <= 10) == small)
                    .fold((0, 0), |a, (_, c)| {
                        (a.0 + c[0].tail_episodes, a.1 + c[0].episodes)
                    });
                (a > 0).then(|| t as f64 / a as f64)
            })
            .collect();
        out.push(claim(
            format!("sec32-tail-episode-share-{}", if small { "4-10seg" } else { "100seg" }),
            format!(
                "Section 3.2: {what} of the loss episodes of {} flows are tail losses (fewer than three segments after the episode; baseline, share per seed)",
                if small { "4- and 10-segment" } else { "100-segment" }
            ),
            Expect::Value {
                paper,
                band: Band::SHARE,
            },
            share,
        ));
    }
    out
}

/// Per seed and configuration, each mechanism's median FCT (s) of the
/// flows with a tail loss; None where one had none.
fn tail_medians(outs: &[Vec<[FgOutcome; 4]>]) -> Vec<Vec<Option<[f64; 4]>>> {
    outs.iter()
        .map(|seed| {
            seed.iter()
                .map(|c| {
                    let m: Vec<f64> = c
                        .iter()
                        .map(|o| median(&o.tail_fct))
                        .collect::<Option<_>>()?;
                    Some([m[0], m[1], m[2], m[3]])
                })
                .collect()
        })
        .collect()
}

/// TLPR is best or tied in a configuration: its median FCT is no higher
/// than any other mechanism's.
fn tlpr_best_or_tied(m: &[f64; 4]) -> bool {
    m[3] <= m[0].min(m[1]).min(m[2])
}

/// A mechanism's largest relative gain over the baseline (1 - its median
/// FCT / the baseline's) across one seed's configurations.
fn largest_gain(seed: &[Option<[f64; 4]>], i: usize) -> Option<f64> {
    seed.iter()
        .flatten()
        .map(|m| 1.0 - m[i] / m[0])
        .reduce(f64::max)
}

/// Mean FCT of one seed's flows that lost nothing, every configuration
/// pooled, under mechanism `i`.
fn clean_mean(seed: &[[FgOutcome; 4]], i: usize) -> Option<f64> {
    let v: Vec<f64> = seed
        .iter()
        .flat_map(|c| c[i].clean_fct.iter().copied())
        .collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Headlines 1, 2 and 4 (../shared/papers/HEADLINES.md) on section 3.2's
/// runs: its configurations are the paper's scenarios (Figure 3), each
/// seed's background shared by the four mechanisms.
fn section32_headlines(configs: &[FgConfig], outs: &[Vec<[FgOutcome; 4]>]) -> Vec<Claim> {
    let h1 = "Headline 1: \"the relative performance of RTOR and TLP when tail loss occurs is scenario dependent, but with TLP having potentially larger gains\" (abstract)";
    let h2 = "Headline 2: \"The TLPR mechanism reaps the benefits of both approaches and in most scenarios it shows the best performance\" (abstract)";
    let h4 = "Headline 4: \"While we have observed some spurious retransmissions in our traces, no performance implications have been observed\" (section 5)";
    let medians = tail_medians(outs);
    let mut out = Vec::new();
    // Scenario dependent: Figure 3f's configuration, where the paper has
    // RTOR beat TLP; the same runs as that row.
    if let Some(c) = configs
        .iter()
        .position(|c| c.segments == 100 && c.owd == 160 * MS)
    {
        let d: Vec<f64> = medians
            .iter()
            .filter_map(|s| s[c].map(|m| (m[2] - m[1]) * 1000.0))
            .collect();
        let slug = format!("sec32-100seg-160ms-{}", ack_slug(&configs[c].ack));
        out.push(
            Claim::measured(
                "tail",
                "sec32",
                "headline1-scenario-dependent-rtor-beats-tlp",
                &format!("{h1}: scenario dependent, RTOR beats TLP where the paper finds it (Figure 3f, 100 segments, owd 160 ms; TLP's median FCT - RTOR's, ms, per seed)"),
                Expect::Order {
                    paper_positive: true,
                },
                summarize(&d, false, &format!("{slug}-rtor-beats-tlp")),
                "",
            )
            .explained_by(|c| heavy_tail_explanation(&c.expect, &d, "seeds"))
            .headline()
            .measurement(format!("sec32/{slug}-rtor-beats-tlp")),
        );
    }
    let (rtor, tlp): (Vec<f64>, Vec<f64>) = medians
        .iter()
        .filter_map(|s| Some((largest_gain(s, 1)?, largest_gain(s, 2)?)))
        .unzip();
    out.push(
        Claim::measured(
            "tail",
            "sec32",
            "headline1-tlp-larger-gains",
            &format!("{h1}: TLP's largest gain over the baseline across section 3.2's scenarios exceeds RTOR's (largest of 1 - median FCT / the baseline's over the configurations, TLP's - RTOR's, per seed)"),
            Expect::Order {
                paper_positive: true,
            },
            paired_difference(&rtor, &tlp, "h1-gains"),
            "",
        )
        .explained_by(|c| {
            let d: Vec<f64> = rtor.iter().zip(&tlp).map(|(a, b)| b - a).collect();
            heavy_tail_explanation(&c.expect, &d, "seeds")
        })
        .headline(),
    );
    let share: Vec<f64> = medians
        .iter()
        .filter_map(|s| {
            let v: Vec<bool> = s.iter().flatten().map(tlpr_best_or_tied).collect();
            (!v.is_empty()).then(|| v.iter().filter(|b| **b).count() as f64 / v.len() as f64)
        })
        .collect();
    out.push(
        Claim::measured(
            "tail",
            "sec32",
            "headline2-tlpr-best-share",
            &format!("{h2}: TLPR's median FCT is the lowest or tied in most of section 3.2's scenarios (share of the configurations, per seed; \"most\" read as more than half, the bound itself with no tolerance)"),
            // "Most" is a bound, not a measured value: the band is the
            // bound itself (d = 0), not the share rule's 0.10 below it,
            // which would take 0.4 for "most".
            Expect::AtLeast {
                paper: 0.5,
                band: Band::Absolute { d: 0.0 },
            },
            super::estimators::share_of_seeds(&share, "h2-share"),
            super::claims::UNTESTED,
        )
        .headline(),
    );
    for (i, name) in [(1, "RTOR"), (2, "TLP"), (3, "TLPR")] {
        let (base, alg): (Vec<f64>, Vec<f64>) = outs
            .iter()
            .filter_map(|s| Some((clean_mean(s, 0)?, clean_mean(s, i)?)))
            .unzip();
        let id = format!("headline4-no-cost-{}", TIMERS[i]);
        out.push(
            Claim::measured(
                "tail",
                "sec32",
                &id,
                &format!("{h4}: {name} leaves the FCT of flows that lost nothing (where it can only retransmit spuriously) unchanged against the baseline (relative change of mean FCT, paired seeds; no effect within ±0.10, the absolute rule for fractions, as LE's \"very similar\" rows)"),
                Expect::Effect {
                    paper: 0.0,
                    band: Band::SHARE,
                },
                super::claims::paired_relative(&base, &alg, &id),
                super::claims::UNTESTED,
            )
            .headline(),
        );
    }
    out
}

/// The explanation experiment for a "TLPR is best" row that does not show
/// it. Supposed: multi-segment tail losses, where the paper itself finds
/// RTOR slightly better (section 3.2: TLP repairs the last segment first
/// and the others wait for a delayed early retransmit); our background's
/// drop-tail overflows take several segments of a short flow at once.
/// Judged on the flows the mechanism concerns (issue 28): over the flows
/// that lost two or more segments, TLPR's median FCT - RTOR's per seed
/// must be reproduced as positive (RTOR faster); the single-loss flows
/// are reported beside it, and the explanation does not hold if TLPR also
/// loses there (a cause the mechanism does not cover).
fn tlpr_best_by_burst(c: Claim, outs: &[Vec<[FgOutcome; 4]>], config: usize) -> Claim {
    if !c.explanation.starts_with(super::claims::UNEXPLAINED) {
        return c;
    }
    let per_seed = |pick: fn(&FgOutcome) -> &Vec<f64>, f: fn(&[f64]) -> f64| -> Vec<f64> {
        outs.iter()
            .filter_map(|seed| {
                let m: Vec<f64> = (0..4)
                    .map(|i| median(pick(&seed[config][i])))
                    .collect::<Option<_>>()?;
                Some(f(&m) * 1000.0)
            })
            .collect()
    };
    let multi = per_seed(|o| &o.multi_loss_fct, |m| m[3] - m[1]);
    let single = per_seed(|o| &o.single_loss_fct, |m| m[0].min(m[1]).min(m[2]) - m[3]);
    let order = Expect::Order {
        paper_positive: true,
    };
    let judged = |d: &[f64], name: &str| {
        let s = summarize(d, false, name);
        let v = super::claims::judge(&order, &s).verdict;
        (super::claims::summary_text(&s), v)
    };
    let (m_text, m_verdict) = judged(&multi, "multi-loss");
    let (s_text, s_verdict) = judged(&single, "single-loss");
    let tested = format!(
        "on the same runs, over the flows that lost two or more segments, TLPR's median FCT - \
         RTOR's is {m_text} ms per seed ({}); over the flows that lost one segment, lowest other \
         median FCT - TLPR's is {s_text} ms ({})",
        m_verdict.name(),
        s_verdict.name()
    );
    use super::claims::Verdict;
    let explanation = if m_verdict == Verdict::Reproduced && s_verdict != Verdict::Contradicted {
        format!(
            "Explained by multi-segment losses: where a flow lost two or more segments RTOR \
             beats TLPR, the paper's own section 3.2 mechanism (TLP repairs the last segment \
             first and the others wait for a delayed early retransmit), and on single losses \
             TLPR is not worse. Tested: {tested}."
        )
    } else {
        format!(
            "{}; tested and rejected that multi-segment losses cause it: {tested}",
            c.explanation
        )
    };
    Claim { explanation, ..c }
}

/// The explanation tested for a spurious-retransmission fraction that
/// differs: the same runs split by the receiver's ACK policy. If the
/// quick-ACK runs alone meet the paper's band, the excess comes with
/// delayed ACKs (an ACK held 200 ms races the retransmission timer and
/// the probe timeout); if not, the ACK policy does not explain it.
fn spurious_by_ack_policy(expect: &Expect, quick: &[f64], delayed: &[f64]) -> String {
    let q = summarize(quick, false, "quick");
    let d = summarize(delayed, false, "delayed");
    let split = format!(
        "splitting the same runs by the receiver's ACK policy: quick ACKs {:.2e}, delayed ACKs {:.2e} (means over seeds)",
        q.mean, d.mean
    );
    if super::claims::judge(expect, &q).verdict == super::claims::Verdict::Reproduced {
        format!(
            "Explained by delayed ACKs: tested by {split}: with quick ACKs alone the fraction meets the paper's band, so the \
             excess comes with delayed ACKs, whose 200 ms wait races the retransmission timer and \
             the probe timeout."
        )
    } else {
        format!(
            "{}; tested and rejected, that delayed ACKs cause it: {split}, neither in the \
             paper's band (the quick-ACK runs, which include the 100-segment flows, have {})",
            super::claims::UNEXPLAINED,
            if q.mean > d.mean { "more" } else { "fewer" }
        )
    }
}

fn section32(ctx: &Ctx) -> Result<Experiment, String> {
    let conns = ctx.choice_u64(&SEC32_CONNS)? as usize;
    let scale = ctx.pick(
        Sec32Scale {
            dur: 100 * SEC,
            gap: 500 * MS,
            conns,
            seeds: 5,
        },
        Sec32Scale {
            dur: 200 * SEC,
            gap: 500 * MS,
            conns,
            seeds: 10,
        },
        Sec32Scale {
            dur: 600 * SEC,
            gap: 500 * MS,
            conns,
            seeds: 20,
        },
    );
    let mut configs = Vec::new();
    let (sizes, owds): (&[u64], &[u64]) = ctx.pick(
        (&[4, 100], &[5, 160]),
        (&[4, 10, 100], &[5, 40, 160]),
        (&[4, 10, 100], &[5, 40, 160]),
    );
    for &segments in sizes {
        for &owd in owds {
            for ack in [AckSpec::Quick, AckSpec::Delayed] {
                // The paper shows 100-segment flows with quick ACKs only.
                if segments == 100 && ack == AckSpec::Delayed {
                    continue;
                }
                configs.push(FgConfig {
                    segments,
                    owd: owd * MS,
                    ack,
                });
            }
        }
    }
    let mut e = Experiment::new(
        "sec32",
        "FCT of flows with a loss among their last four segments, among background traffic \
         (section 3.2, Figure 3)",
        &format!(
            "{} seeds; each: a {} Mbit/s bottleneck with a 35 ms drop-tail queue shared with {} \
             background connections (web-like responses, RTT 12-200 ms; standing in for the \
             paper's Tmix trace); a new foreground connection every {} ms for {} s, of 4, 10 or \
             100 segments, one-way delay 5, 40 or 160 ms. Claims pair the mechanisms on each \
             seed's background. Example rows: seed 0, median FCT in ms, baseline / RTOR / TLP / \
             TLPR, and how many flows had a loss among their last four segments.",
            scale.seeds,
            BOTTLENECK / 1_000_000,
            scale.conns,
            scale.gap / MS,
            scale.dur / SEC
        ),
    );
    let jobs: Vec<(usize, usize, usize)> = (0..scale.seeds)
        .flat_map(|k| (0..configs.len()).flat_map(move |c| (0..4).map(move |i| (k, c, i))))
        .collect();
    let mut flat = par_map(ctx, jobs.len(), |j| {
        let (k, c, i) = jobs[j];
        foreground_run(ctx, &configs[c], TIMERS[i], &scale, k as u64)
    })?
    .into_iter();
    let outs: Vec<Vec<[FgOutcome; 4]>> = (0..scale.seeds)
        .map(|_| {
            (0..configs.len())
                .map(|_| std::array::from_fn(|_| flat.next().expect("one per job")))
                .collect()
        })
        .collect();
    e.claims = section32_claims(&configs, &outs);
    let mut loss_rates = Vec::new();
    let mut max_queue: f64 = 0.0;
    for (c, cfg) in configs.iter().enumerate() {
        let o = &outs[0][c];
        loss_rates.extend(outs.iter().map(|s| s[c][0].loss_rate));
        max_queue = outs
            .iter()
            .fold(max_queue, |m, s| m.max(s[c][0].max_queue_ms));
        let (_, med_ms, counts) = median_summary(std::array::from_fn(|i| &o[i].tail_fct[..]));
        let label = format!(
            "{} segments, owd {} ms, {}",
            cfg.segments,
            cfg.owd / MS,
            ack_label(&cfg.ack)
        );
        // Every saving beside what may have bought it (issue 28): the
        // foreground's spurious retransmissions and RTOs over all seeds.
        let tally = |f: fn(&FgOutcome) -> u64| {
            (0..4)
                .map(|i| outs.iter().map(|s| f(&s[c][i])).sum::<u64>().to_string())
                .collect::<Vec<_>>()
                .join("/")
        };
        e.row(
            format!("{label}: median FCT"),
            format!(
                "{med_ms} ({counts}; loss {:.1}%; spurious {}; RTOs {})",
                o[0].loss_rate * 100.0,
                tally(|x| x.spurious),
                tally(|x| x.timeouts)
            ),
            match cfg.segments {
                4 => "RTOR saves >= 1 RTT (+200 ms with delACKs); TLPR best",
                10 => "TLPR best",
                _ => "small differences; RTOR can beat TLP/TLPR",
            },
        );
        // Every seed's flows with a tail loss, pooled, for the picture.
        let series: [Vec<f64>; 4] = std::array::from_fn(|i| {
            outs.iter()
                .flat_map(|s| s[c][i].tail_fct.iter().map(|x| x * 1000.0))
                .collect()
        });
        cdf_chart(
            ctx,
            &mut e,
            &format!(
                "cdf-{}seg-{}ms-{}",
                cfg.segments,
                cfg.owd / MS,
                ack_slug(&cfg.ack)
            ),
            &format!("Figure 3: {label} (all seeds)"),
            "FCT (ms)",
            &series,
        )?;
    }
    let mean_loss = loss_rates.iter().sum::<f64>() / loss_rates.len().max(1) as f64;
    e.row(
        "bottleneck loss rate (mean over runs) / largest queueing delay",
        format!("{:.2}% / {:.0} ms", mean_loss * 100.0, max_queue),
        "about 1.5% / up to 35 ms",
    );
    Ok(e)
}

// ---- section 3.3: web page loads ---------------------------------------------

struct Site {
    name: &'static str,
    objects: usize,
    mean_bytes: f64,
}

const SITES: [Site; 3] = [
    Site {
        name: "search engine (12 objects, mean 24 kB)",
        objects: 12,
        mean_bytes: 24_000.0,
    },
    Site {
        name: "classifieds (44 objects, mean 52 kB)",
        objects: 44,
        mean_bytes: 52_000.0,
    },
    Site {
        name: "newspaper (164 objects, mean 25 kB)",
        objects: 164,
        mean_bytes: 25_000.0,
    },
];

const CONNECTIONS: usize = 6;

/// One page: the HTML on connection c0, then the resources spread over six
/// persistent connections (resource j on connection (j - 1) mod 6), those
/// on c1..c5 requested once the HTML has arrived, each connection fetching
/// its objects one after another. Sizes are log-normal (sigma 1) around
/// the site's mean: the paper gives only object counts and mean sizes.
fn page(site: &Site, download: u64, timers: &str, conns: usize) -> Vec<FlowSpec> {
    let mut g = Gen::new(33_000 + download * 7 + site.objects as u64);
    let sizes: Vec<u64> = (0..site.objects)
        .map(|_| (g.lognormal_with_mean(site.mean_bytes, 1.0) as u64).clamp(300, 3_000_000))
        .collect();
    (0..conns)
        .filter_map(|c| {
            let mut objs: Vec<u64> = Vec::new();
            if c == 0 {
                objs.push(sizes[0]);
            }
            objs.extend(
                (1..sizes.len())
                    .filter(|j| (j - 1) % conns == c)
                    .map(|j| sizes[j]),
            );
            if objs.is_empty() {
                return None;
            }
            let mut f = linux_flow(&format!("c{c}"), timers, AckSpec::Delayed);
            f.app = AppSpec::Objects {
                sizes: objs,
                after: (c > 0).then(|| "c0".to_string()),
            };
            Some(f)
        })
        .collect()
}

/// One download's object completion times over the connections where some
/// object lost a packet among its last four segments (empty when none
/// qualifies). The paper selected on retransmissions there; we select on
/// the path's drops (ground truth), because a selection on retransmissions
/// lets a mechanism's own spurious retransmissions pick which downloads
/// it is judged on. Also, apart: the completion times of the objects
/// that themselves lost a packet among their last four segments.
fn download_objects(r: &Run) -> (Vec<f64>, Vec<f64>) {
    let mut octs = Vec::new();
    let mut tail_lost = Vec::new();
    for (f, tr) in r.results.flows.iter().zip(&r.traces) {
        let mut start = 0u64;
        let mut qualifies = false;
        for o in &f.objects {
            let end = start + o.bytes;
            let tail_from = start.max(end.saturating_sub(4 * MSS));
            if tr.dropped_seqs.iter().any(|&x| x >= tail_from && x < end) {
                qualifies = true;
                tail_lost.extend(o.oct_s);
            }
            start = end;
        }
        if qualifies {
            octs.extend(f.objects.iter().filter_map(|o| o.oct_s));
        }
    }
    (octs, tail_lost)
}

/// Their mean: the download's average OCT, or None.
fn mean_oct(octs: &[f64]) -> Option<f64> {
    (!octs.is_empty()).then(|| octs.iter().sum::<f64>() / octs.len() as f64)
}

/// Section 3.3's claims for one RTT and site, paired on downloads (the
/// same page and losses under each mechanism; a download counts where it
/// qualifies under both sides). Directions only where the paper gives
/// directions ("gains", "better than"); Figure 4f's shares as values.
fn section33_claims(
    rtt: u64,
    site: &Site,
    by_download: &[Vec<Option<f64>>; 4],
    objects: &[Vec<f64>; 4],
) -> Vec<Claim> {
    let pairs = |a: usize, b: usize| -> (Vec<f64>, Vec<f64>) {
        by_download[a]
            .iter()
            .zip(&by_download[b])
            .filter_map(|(x, y)| Some(((*x)?, (*y)?)))
            .unzip()
    };
    let order = |id: String, statement: String, slower: usize, faster: usize| {
        let (x, y) = pairs(faster, slower);
        // Slower minus faster, in ms: positive when the paper is right.
        let (x, y): (Vec<f64>, Vec<f64>) = (
            x.iter().map(|v| v * 1000.0).collect(),
            y.iter().map(|v| v * 1000.0).collect(),
        );
        let expect = Expect::Order {
            paper_positive: true,
        };
        let d: Vec<f64> = x.iter().zip(&y).map(|(a, b)| b - a).collect();
        Claim::measured(
            "tail",
            "sec33",
            &id,
            &statement,
            expect.clone(),
            paired_difference(&x, &y, &id),
            "",
        )
        .explained_by(|_| heavy_tail_explanation(&expect, &d, "downloads"))
    };
    let mut out = Vec::new();
    let objs = site.objects;
    if rtt == 10 {
        for (i, name) in [(2, "TLP"), (3, "TLPR")] {
            out.push(order(
                format!("sec33-{objs}obj-10ms-{}-gain", name.to_lowercase()),
                format!(
                    "Section 3.3: at 10 ms {name} shortens the mean OCT against the baseline ({}; baseline - {name}, ms, per download)",
                    site.name
                ),
                0,
                i,
            ));
        }
    }
    if rtt == 160 {
        out.push(order(
            format!("sec33-{objs}obj-160ms-rtor-beats-tlp"),
            format!(
                "Section 3.3: at 160 ms RTOR does better than TLP ({}; TLP - RTOR, ms, per download)",
                site.name
            ),
            2,
            1,
        ));
    }
    if rtt == 160 {
        let (a, b, c, d) = (
            &by_download[0],
            &by_download[1],
            &by_download[2],
            &by_download[3],
        );
        let diffs: Vec<f64> = (0..a.len())
            .filter_map(|k| Some(a[k]?.min(b[k]?).min(c[k]?) - d[k]?))
            .map(|x| x * 1000.0)
            .collect();
        let id = format!("sec33-{objs}obj-160ms-tlpr-best");
        out.push(Claim::measured(
            "tail",
            "sec33",
            &id,
            &format!(
                "Section 3.3: at 160 ms TLPR performs best ({}; lowest other mean OCT - TLPR's, ms, per download)",
                site.name
            ),
            Expect::Order {
                paper_positive: true,
            },
            summarize(&diffs, false, &id),
            "",
        )
        .explained_by(|c| heavy_tail_explanation(&c.expect, &diffs, "downloads")));
    }
    if rtt == 160 && objs == 164 {
        let under = |v: &mut dyn Iterator<Item = f64>| -> Vec<f64> {
            v.map(|x| if x < 1.0 { 1.0 } else { 0.0 }).collect()
        };
        for (i, paper) in [(0, 0.70), (1, 0.84), (2, 0.74)] {
            let expect = Expect::Value {
                paper,
                band: Band::SHARE,
            };
            // Tested explanation: the paper's CDF may count objects, not
            // download means.
            let per_object = summarize(&under(&mut objects[i].iter().copied()), false, "fig4f-obj");
            let fits = super::claims::judge(&expect, &per_object).verdict
                == super::claims::Verdict::Reproduced;
            let why = format!(
                "{}tested whether the paper's CDF counts objects rather than download means: \
                 over every object of the qualifying connections the share is {} (n {}), {}",
                if fits {
                    "Explained by the CDF's unit: "
                } else {
                    "not yet explained; "
                },
                super::claims::summary_text(&per_object),
                per_object.n,
                if fits {
                    "in the paper's band: the unit of the CDF explains the difference"
                } else {
                    "outside the paper's band: the unit does not explain it"
                }
            );
            out.push(Claim::measured(
                "tail",
                "sec33",
                &format!("fig4f-share-under-1s-{}", TIMERS[i]),
                &format!(
                    "Figure 4f: share of {} downloads with mean OCT under 1 s (160 ms, newspaper)",
                    LABELS[i]
                ),
                expect,
                summarize(
                    &under(&mut by_download[i].iter().flatten().copied()),
                    false,
                    "fig4f",
                ),
                &why,
            ));
        }
    }
    out.into_iter().map(Claim::or_unexplained).collect()
}

/// Spurious retransmissions per segment as the paper computes them, a
/// ratio of totals: over 20 batches of downloads (download index mod 20),
/// mean and 95% CI.
fn pooled_spurious(per_download: &[(usize, u64, u64)]) -> Summary {
    const BATCHES: usize = 20;
    let mut totals = [(0u64, 0u64); BATCHES];
    for &(d, sp, n) in per_download {
        totals[d % BATCHES].0 += sp;
        totals[d % BATCHES].1 += n;
    }
    let ratios: Vec<f64> = totals
        .iter()
        .filter(|t| t.1 > 0)
        .map(|&(sp, n)| sp as f64 / n as f64)
        .collect();
    summarize(&ratios, false, "pooled")
}

fn sci(s: &Summary) -> String {
    let [lo, hi] = s.ci95.unwrap_or([f64::NAN; 2]);
    format!("{:.2e} [{lo:.2e}, {hi:.2e}]", s.mean)
}

/// The explanation experiment for a section 3.3 spurious fraction that
/// differs. Supposed: the paper's fraction is spurious retransmissions
/// over all segments of the experiment, a ratio of totals, while the row
/// averages each download's own fraction, which weights the small
/// downloads (one probe of a short page is a large share of its
/// segments). Tested on the same runs: `pooled_spurious`.
fn pooled_spurious_explanation(expect: &Expect, per_download: &[(usize, u64, u64)]) -> String {
    let pooled = pooled_spurious(per_download);
    let tested = format!(
        "the ratio of totals, over {} batches of downloads, is {}",
        pooled.n,
        sci(&pooled)
    );
    if super::claims::judge(expect, &pooled).verdict == super::claims::Verdict::Reproduced {
        format!(
            "Explained by the estimator: the paper's fraction is a ratio of totals over the \
             experiment, the row a mean of each download's fraction, which weights small \
             downloads where one probe is a large share. Tested on the same runs: {tested}, in \
             the paper's band."
        )
    } else {
        format!(
            "{}; tested and rejected that the estimator alone causes it (a mean of per-download \
             fractions against the paper's ratio of totals): on the same runs {tested}, outside \
             the paper's band",
            super::claims::UNEXPLAINED
        )
    }
}

/// How a page is fetched: the receivers' ACK policy and how many
/// connections carry its objects.
#[derive(Clone)]
struct Fetch {
    ack: AckSpec,
    conns: usize,
}

/// The paper's: delayed ACKs, six connections.
const PAPER_FETCH: Fetch = Fetch {
    ack: AckSpec::Delayed,
    conns: CONNECTIONS,
};

/// What one download gave: `download_objects`' two lists, and the
/// spurious retransmissions and segments sent over its connections.
struct PageLoad {
    octs: Vec<f64>,
    tail_octs: Vec<f64>,
    spurious: u64,
    segments: u64,
    timeouts: u64,
}

/// One download of `site` over the section 3.3 path: the qualifying
/// objects' completion times and (spurious retransmissions, segments
/// sent) over its connections.
fn page_load(
    ctx: &Ctx,
    site: &Site,
    rtt: u64,
    d: u64,
    timers: &str,
    fetch: &Fetch,
    loss: &LossModel,
) -> Result<PageLoad, String> {
    let Fetch { ack, conns } = fetch.clone();
    let mut flows = page(site, d, timers, conns);
    let mut slug = match ack {
        AckSpec::Delayed => String::new(),
        _ => {
            for f in &mut flows {
                f.receiver.ack = ack.clone();
            }
            format!("-{}", ack_slug(&ack))
        }
    };
    if conns != CONNECTIONS {
        slug.push_str(&format!("-{conns}conns"));
    }
    let mut sc = scenario(
        &format!("page-{}obj-{rtt}ms-{d}-{timers}{slug}", site.objects),
        // Long enough for a tail retransmission lost 20 times in a row
        // under exponential backoff (a Gilbert-Elliott bad state with
        // nothing else sending: it happened once in 6000 runs at 600 s).
        3600 * SEC,
        path(
            BOTTLENECK,
            rtt * MS / 2,
            QueueLimit::Packets(100),
            loss.clone(),
        ),
        flows,
    );
    sc.seed = 1000 + d;
    let r = run_hz(ctx, "sec33", &sc)?;
    let (mut sp, mut n, mut rtos) = (0, 0, 0);
    for f in &r.results.flows {
        if f.fct_s.is_none() {
            return Err(format!("{}: {} did not finish", sc.name, f.name));
        }
        sp += f.spurious_retransmissions;
        n += f.segments_sent;
        rtos += f.timeouts;
    }
    let (octs, tail_octs) = download_objects(&r);
    Ok(PageLoad {
        octs,
        tail_octs,
        spurious: sp,
        segments: n,
        timeouts: rtos,
    })
}

fn section33(ctx: &Ctx) -> Result<Experiment, String> {
    let (rtts, downloads): (&[u64], usize) = ctx.pick(
        (&[10, 160], 12),
        (&[10, 40, 160], 150),
        (&[10, 40, 160], 500),
    );
    // Gilbert-Elliott: bad 2% of the time, losing 75% there: 1.5% on
    // average, in bursts of about four packets.
    let loss = LossModel::GilbertElliott {
        p_gb: 0.005,
        p_bg: 0.25,
        loss_good: 0.0,
        loss_bad: 0.75,
    };
    let mut e = Experiment::new(
        "sec33",
        "Web page loads: object completion times (section 3.3, Figure 4)",
        &format!(
            "10 Mbit/s, RTT {rtts:?} ms, Gilbert-Elliott loss of 1.5% on average (p_gb 0.005, \
             p_bg 0.25, 75% loss in the bad state), a 100-packet queue, delayed ACKs (200 ms); \
             three sites fetched over 6 persistent connections (the HTML first), {downloads} \
             downloads each, paired across mechanisms (the same page and loss draws). Per \
             download: the mean OCT over the connections where an object lost a packet among \
             its last four segments. Example rows: median of those per download means in ms, \
             baseline / RTOR / TLP / TLPR (n downloads)."
        ),
    );
    // Per download and mechanism, over every RTT and site: the download's
    // index, its spurious retransmissions and the segments it sent.
    let mut spurious: [Vec<(usize, u64, u64)>; 4] = Default::default();
    for &rtt in rtts {
        for site in &SITES {
            let runs = par_map(ctx, 4 * downloads, |j| {
                let (i, d) = (j / downloads, (j % downloads) as u64);
                page_load(ctx, site, rtt, d, TIMERS[i], &PAPER_FETCH, &loss)
            })?;
            // Per download (the unit the claims pair on): its mean OCT
            // under each mechanism, when it qualifies.
            let by_download: [Vec<Option<f64>>; 4] = std::array::from_fn(|i| {
                runs[i * downloads..(i + 1) * downloads]
                    .iter()
                    .map(|x| mean_oct(&x.octs))
                    .collect()
            });
            // Every object of the qualifying connections, pooled: the
            // other reading of the paper's "84% of all OCTs".
            let objects: [Vec<f64>; 4] = std::array::from_fn(|i| {
                runs[i * downloads..(i + 1) * downloads]
                    .iter()
                    .flat_map(|x| x.octs.iter().copied())
                    .collect()
            });
            for (i, sp) in spurious.iter_mut().enumerate() {
                sp.extend(
                    runs[i * downloads..(i + 1) * downloads]
                        .iter()
                        .enumerate()
                        .map(|(d, x)| (d, x.spurious, x.segments)),
                );
            }
            let per: [Vec<f64>; 4] =
                std::array::from_fn(|i| by_download[i].iter().flatten().copied().collect());
            let (_, med_ms, counts) = median_summary(std::array::from_fn(|i| &per[i][..]));
            let under_1s: Vec<String> = per
                .iter()
                .map(|v| {
                    let n = v.iter().filter(|&&x| x < 1.0).count();
                    format!("{:.0}%", 100.0 * n as f64 / v.len().max(1) as f64)
                })
                .collect();
            let label = format!("RTT {rtt} ms, {}", site.name);
            // Every saving beside what may have bought it (issue 28):
            // spurious retransmissions and RTOs over all downloads.
            let tally = |f: fn(&PageLoad) -> u64| {
                (0..4)
                    .map(|i| {
                        runs[i * downloads..(i + 1) * downloads]
                            .iter()
                            .map(f)
                            .sum::<u64>()
                            .to_string()
                    })
                    .collect::<Vec<_>>()
                    .join("/")
            };
            e.row(
                format!("{label}: median mean-OCT"),
                format!(
                    "{med_ms} ({counts}; spurious {}; RTOs {})",
                    tally(|x| x.spurious),
                    tally(|x| x.timeouts)
                ),
                if rtt <= 40 {
                    "all beat the baseline; TLP and TLPR largest gains (often > 50%)"
                } else {
                    "smaller differences; TLPR best, RTOR better than TLP"
                },
            );
            e.row(
                format!("{label}: share of downloads with mean OCT < 1 s"),
                under_1s.join(" / "),
                if rtt == 160 && site.objects == 164 {
                    "70% / 84% / 74% / - (Figure 4f)"
                } else {
                    "-"
                },
            );
            let mut claims = section33_claims(rtt, site, &by_download, &objects);
            if rtt == 160 {
                let by_tail_object: [Vec<Option<f64>>; 4] = std::array::from_fn(|i| {
                    runs[i * downloads..(i + 1) * downloads]
                        .iter()
                        .map(|x| mean_oct(&x.tail_octs))
                        .collect()
                });
                explain_rtor_vs_tlp(&mut claims, site, &by_tail_object);
            }
            e.claims.extend(claims);
            cdf_chart(
                ctx,
                &mut e,
                &format!("cdf-objects-{}obj-{rtt}ms", site.objects),
                &format!("Figure 4, every object of the qualifying connections: {label}"),
                "object completion time (ms)",
                &std::array::from_fn(|i| objects[i].iter().map(|s| s * 1000.0).collect()),
            )?;
            let series: [Vec<f64>; 4] =
                std::array::from_fn(|i| per[i].iter().map(|s| s * 1000.0).collect());
            cdf_chart(
                ctx,
                &mut e,
                &format!("cdf-{}obj-{rtt}ms", site.objects),
                &format!("Figure 4: {label}"),
                "mean object completion time (ms)",
                &series,
            )?;
        }
    }
    for (i, paper) in SEC33_SPURIOUS.into_iter().enumerate() {
        let id = format!("sec33-spurious-{}", TIMERS[i]);
        e.claims.push(
            Claim::measured(
                "tail",
                "sec33",
                &id,
                &format!(
                    "Section 3.3: {} spurious retransmissions are {paper:.1e} of all segments (per download, every RTT and site)",
                    LABELS[i]
                ),
                Expect::Value {
                    paper,
                    band: Band::QUANTITY,
                },
                summarize(
                    &spurious[i]
                        .iter()
                        .map(|&(_, sp, n)| sp as f64 / n.max(1) as f64)
                        .collect::<Vec<_>>(),
                    false,
                    &id,
                ),
                "",
            )
            .explained_by(|c| pooled_spurious_explanation(&c.expect, &spurious[i]))
            .or_unexplained(),
        );
    }
    explain_spurious_by_delack(&mut e.claims, &spurious);
    if rtts.contains(&160) {
        explain_fig4f_by_connections(ctx, &mut e.claims, downloads, &loss)?;
    }
    Ok(e)
}

/// The explanation experiment for "at 160 ms RTOR does better than TLP"
/// where ours does not show it. Supposed: the row's mean OCT spans every
/// object of a connection with a tail loss, and after RTOR's timeout the
/// connection's later objects start from cwnd = 1 (a timeout is a
/// timeout, restarted or not), while TLP's probe repairs the loss without
/// one; the objects that lost their tail are where the mechanisms differ
/// in how fast they repair. Tested on the same runs: the per-download
/// mean over those objects only, TLP - RTOR, paired.
fn explain_rtor_vs_tlp(claims: &mut [Claim], site: &Site, by_tail_object: &[Vec<Option<f64>>; 4]) {
    let id = format!("sec33-{}obj-160ms-rtor-beats-tlp", site.objects);
    let Some(c) = claims.iter_mut().find(|c| {
        c.id == id
            && c.verdict.needs_explanation()
            && c.explanation.starts_with(super::claims::UNEXPLAINED)
    }) else {
        return;
    };
    let d: Vec<f64> = by_tail_object[2]
        .iter()
        .zip(&by_tail_object[1])
        .filter_map(|(t, r)| Some(((*t)? - (*r)?) * 1000.0))
        .collect();
    let variant = c.on(summarize(&d, false, "tail-objects"));
    let tested = format!(
        "on the same runs, averaging only the objects that lost a packet among their last \
         four segments, TLP - RTOR is {} ms per download, {}",
        super::claims::ours_text(&variant),
        variant.verdict.name()
    );
    c.explanation = if super::claims::supports(c, &variant) {
        format!(
            "Explained by the objects after the repair: the row averages every object of a \
             connection with a tail loss, and after RTOR's timeout the connection's later \
             objects start from cwnd = 1 while TLP's probe repairs without one. Tested: {tested}."
        )
    } else {
        format!(
            "{}; also tested and rejected that the connection's later objects cause it: \
             {tested}",
            c.explanation
        )
    };
}

/// Connections of the Figure 4f explanation experiment: the paper's six
/// per sub-domain over five sub-domains, chosen before the run (a 2014
/// newspaper page drew on many hosts; the paper gives no number).
const SUBDOMAIN_CONNECTIONS: usize = 30;

/// The explanation experiment for Figure 4f's shares. Supposed: the
/// paper's browser opened six connections per sub-domain, and a
/// newspaper's objects come from several sub-domains, where we model one:
/// more connections then share the 10 Mbit/s, each object takes longer,
/// and fewer downloads average under a second. Tested: the newspaper at
/// 160 ms over `SUBDOMAIN_CONNECTIONS` connections, the same downloads.
fn explain_fig4f_by_connections(
    ctx: &Ctx,
    claims: &mut [Claim],
    downloads: usize,
    loss: &LossModel,
) -> Result<(), String> {
    let site = &SITES[2];
    for (i, timers) in TIMERS.iter().enumerate().take(3) {
        let id = format!("fig4f-share-under-1s-{timers}");
        let Some(c) = claims
            .iter_mut()
            .find(|c| c.id == id && c.explanation.starts_with(super::claims::UNEXPLAINED))
        else {
            continue;
        };
        let runs = par_map(ctx, downloads, |d| {
            let fetch = Fetch {
                ack: AckSpec::Delayed,
                conns: SUBDOMAIN_CONNECTIONS,
            };
            page_load(ctx, site, 160, d as u64, timers, &fetch, loss)
        })?;
        let under: Vec<f64> = runs
            .iter()
            .filter_map(|r| mean_oct(&r.octs))
            .map(|m| if m < 1.0 { 1.0 } else { 0.0 })
            .collect();
        let variant = c.on(summarize(&under, false, "fig4f-conns"));
        let tested = format!(
            "the newspaper at 160 ms over {SUBDOMAIN_CONNECTIONS} connections (six for each of \
             five sub-domains; experiment sec33, page-164obj-160ms-*-{SUBDOMAIN_CONNECTIONS}conns \
             runs) gives {} of {} downloads under 1 s, {}",
            super::claims::ours_text(&variant),
            LABELS[i],
            variant.verdict.name()
        );
        c.explanation = if super::claims::supports(c, &variant) {
            format!(
                "Explained by the number of connections: the paper's browser opened six per \
                 sub-domain and a newspaper draws on several, where our page has one, so more \
                 connections share the 10 Mbit/s and objects take longer. Tested: {tested}{}.",
                if variant.verdict == super::claims::Verdict::Reproduced {
                    ""
                } else {
                    "; the paper's value lies between that and ours"
                }
            )
        } else {
            format!(
                "{}; also tested and rejected that the number of connections causes it: {tested}",
                c.explanation
            )
        };
    }
    Ok(())
}

/// Section 3.3's spurious retransmissions as a fraction of all segments,
/// baseline / RTOR / TLP / TLPR (the paper's text).
const SEC33_SPURIOUS: [f64; 4] = [4.8e-5, 5.9e-5, 1.8e-3, 2.1e-3];

/// A section 3.3 spurious-retransmission fraction that differs. Issue 27
/// "explained" it by delayed ACKs with a quick-ACK variant, but every
/// receiver of section 3.3 delayed its ACKs, so that variant leaves the
/// paper's setup and can explain nothing (issue 28). What stays is the
/// comparison the paper itself makes, each mechanism's fraction against
/// the baseline's (the paper's RTOR has 1.2 times its baseline's), stated
/// as measured, with no explanation claimed.
fn explain_spurious_by_delack(claims: &mut [Claim], spurious: &[Vec<(usize, u64, u64)>; 4]) {
    let base = pooled_spurious(&spurious[0]).mean;
    for (i, timers) in TIMERS.iter().enumerate() {
        let id = format!("sec33-spurious-{timers}");
        let Some(c) = claims
            .iter_mut()
            .find(|c| c.id == id && c.explanation.starts_with(super::claims::UNEXPLAINED))
        else {
            continue;
        };
        let paper_ratio = SEC33_SPURIOUS[i] / SEC33_SPURIOUS[0];
        let ours = pooled_spurious(&spurious[i]).mean;
        let ratio = if base > 0.0 {
            format!("{:.1} times our baseline's", ours / base)
        } else {
            "our baseline has none".into()
        };
        c.explanation = format!(
            "{}; rejected without a run as outside the paper's setup: fewer delayed ACKs (every \
             section 3.3 receiver delayed its ACKs). {} fraction is {ratio}, the paper's {:.1} \
             times its baseline's.",
            c.explanation, LABELS[i], paper_ratio
        );
    }
}

/// Every metric a headline row of the tail-loss paper judges can land on
/// either side of its band (a metric that cannot fail is no finding),
/// shown on cheap runs of section 3.1's controlled tail losses; the
/// section 3.2 metrics are the same functions of median FCTs.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headline_metrics_take_both_sides() {
        let ctx = Ctx::quick_for_tests();
        // (RTT, tail segments lost, ACK policy) -> the four FCTs.
        let mut rows = Vec::new();
        for ack in [AckSpec::Delayed, AckSpec::Quick] {
            for (rtt, n) in [(10, 1), (80, 1), (320, 1), (80, 0), (80, 3), (80, 4)] {
                let v = four(&ctx, "test", rtt, n, &ack).unwrap();
                eprintln!(
                    "{rtt} ms, {n} lost, {}: {:?}",
                    ack_slug(&ack),
                    v.map(|t| t.fct)
                );
                rows.push((rtt, n, ack.clone(), v));
            }
        }
        let fcts = |v: &[Tail1; 4]| v.map(|x| x.fct as f64);
        // Headline 1: TLP's gain over the baseline - RTOR's (order).
        let gains: Vec<f64> = rows
            .iter()
            .map(|(_, _, _, v)| {
                let m = fcts(v);
                (1.0 - m[2] / m[0]) - (1.0 - m[1] / m[0])
            })
            .collect();
        assert!(gains.iter().any(|d| *d > 0.0), "{gains:?}");
        assert!(gains.iter().any(|d| *d <= 0.0), "{gains:?}");
        // Headline 2: TLPR best or tied (a share against "most"). Every
        // controlled tail loss has TLPR best or tied; the other side is
        // Figure 3f's, where earlier losses let RTOR win (a 100-segment
        // flow among background traffic, too costly here): its medians in
        // the shape the paper reports (baseline, RTOR, TLP, TLPR).
        let best: Vec<bool> = rows
            .iter()
            .map(|r| tlpr_best_or_tied(&fcts(&r.3)))
            .collect();
        assert!(best.contains(&true), "{best:?}");
        assert!(!tlpr_best_or_tied(&[1.30, 1.10, 1.20, 1.15]));
        // Headline 3: RTOR's saving in RTTs (band 0.75-1.25) and the
        // delayed-ACK saving - the quick-ACK one at the same RTT (order).
        let in_rtts: Vec<f64> = rows
            .iter()
            .filter(|r| r.1 > 0)
            .map(|(rtt, _, _, v)| saved_ms(v, 1) / *rtt as f64)
            .collect();
        assert!(in_rtts.iter().any(|x| *x < 0.75), "{in_rtts:?}");
        assert!(
            in_rtts.iter().any(|x| (0.75..=1.25).contains(x)),
            "{in_rtts:?}"
        );
        assert!(in_rtts.iter().any(|x| *x > 1.25), "{in_rtts:?}");
        let half = rows.len() / 2;
        let more: Vec<f64> = (0..half)
            .map(|k| saved_ms(&rows[k].3, 1) - saved_ms(&rows[half + k].3, 1))
            .collect();
        assert!(more.iter().any(|d| *d > 0.0), "{more:?}");
        assert!(more.iter().any(|d| *d <= 0.0), "{more:?}");
        // Headline 4: a mechanism's relative change of FCT (equivalence
        // within +-0.10): inside where nothing is lost, outside where it
        // repairs a tail loss.
        let change: Vec<(u64, f64)> = rows
            .iter()
            .flat_map(|(_, n, _, v)| {
                let m = fcts(v);
                (1..4).map(move |i| (*n, m[i] / m[0] - 1.0))
            })
            .collect();
        assert!(
            change.iter().any(|(n, x)| *n == 0 && x.abs() <= 0.10),
            "{change:?}"
        );
        assert!(change.iter().any(|(_, x)| x.abs() > 0.10), "{change:?}");
    }
}
