//! The PRR paper's section 5 stand-in: web responses over persistent
//! connections, PRR (the paper's, RFC 6937) against RFC 3517 and Linux
//! rate-halving on the Linux 3.2 sender, over seeds (Tables 5, 7, 8, 10
//! and Figure 5).

use losslab_core::time::{Time, MS, SEC};
use losslab_sim::scenario::*;

use super::claims::{ours_text, paired_difference, paired_relative, supports, Band, Claim, Expect};
use super::common::{par_map, path, quantile, scenario, Gen, Responses};
use super::prr_common::linux32;
use super::{Ctx, Experiment};
use losslab_sim::stats::summarize;

/// Aggregates over the web workload's fast recoveries for one algorithm.
#[derive(Default)]
struct WebStats {
    recovery_ms: Vec<f64>,
    cwnd_after: Vec<f64>,
    pipe_minus_ssthresh: Vec<f64>,
    fast: u64,
    timeouts_in_recovery: u64,
    slow_start_after: u64,
    retransmissions: u64,
    retransmissions_dropped: u64,
    largest_burst: usize,
    bursts_over_10: u64,
    /// Latency (ms, from the write to the ACK of its last byte) of the
    /// responses that had at least one retransmission: Table 9's
    /// population.
    retx_latency_ms: Vec<f64>,
    /// cwnd - ssthresh just before each fast recovery's exit (not those a
    /// timeout ended): Table 6.
    cwnd_minus_ssthresh_before_exit: Vec<f64>,
    /// ssthresh of each recovery in `cwnd_after`, in the same order: the
    /// headline's "cwnd at the exit against ssthresh".
    ssthresh_at_exit: Vec<f64>,
    /// The largest burst of the recoveries that began with pipe below
    /// ssthresh, the paper's heavy losses (section 5.1, Table 5): the
    /// headline's "large bursts under high losses".
    largest_burst_heavy: usize,
    /// `retx_latency_ms` split by response size (`SIZE_BUCKETS`): the
    /// headline's "depending on the response size".
    retx_latency_by_size: [Vec<f64>; 3],
}

/// Response sizes for the headline's "3-10% depending on the response
/// size" (abstract). The paper gives no buckets; ours split the stand-in's
/// log-normal sizes (mean 7.5 kB) where a response fits an initial window
/// of 10 segments (under 10 kB: a loss is often a tail loss), takes a few
/// round trips (10-50 kB), or many (50 kB and more).
const SIZE_BUCKETS: [(u64, u64, &str); 3] = [
    (0, 10_000, "under 10 kB"),
    (10_000, 50_000, "10-50 kB"),
    (50_000, u64::MAX, "50 kB and more"),
];

/// One seed's statistics per algorithm (`WEB_ALGS` order): over every
/// fast recovery, and over those that began with the flight filling cwnd
/// (`flight_at_start >= cwnd_before`), the explanation experiment's
/// population. Per-response and per-flow counts (latency,
/// retransmissions) are in `all` only.
struct PerSeed {
    all: Vec<WebStats>,
    limited: Vec<WebStats>,
}

/// The recovery algorithms of the web experiment, in the order of its
/// rows: PRR, RFC 3517, and Linux rate-halving (the paper's baseline).
const WEB_ALGS: [&str; 3] = ["prr-6937", "rfc3517", "rate-halving"];

/// What the web stand-in takes that the paper does not dictate (issue 28,
/// D): each value, why it was chosen, and two values a sensitivity run
/// should try instead. One constant per size (`WEB_QUICK`, `WEB_DEFAULT`,
/// `WEB_FULL`), so that each can be overridden later. The paper dictates
/// the mean response (7.5 kB, section 2), the sender (Linux with CUBIC,
/// FACK and an initial window of 10, Table 4) and the three algorithms;
/// its traffic is Google's (section 5.1), which no setup here copies.
pub(super) struct WebSetup {
    /// Round-trip propagation delays (ms), one path each with every rate:
    /// a spread from nearby to intercontinental clients (the paper's
    /// Figure 1 spans 0-1000+ ms in 200 ms buckets and gives no
    /// distribution). Alternatives: 50 and 200 ms only (--quick's) and
    /// 100, 300, 600 and 1000 ms (Figure 1's buckets).
    pub rtts_ms: &'static [u64],
    /// Bottleneck rates (bit/s), one path each with every RTT. The paper's
    /// users averaged 1.9 Mbit/s (section 2), below all of ours: ours
    /// keep 20 connections' bursts from overflowing every queue.
    /// Alternatives: 1, 2 and 5 Mbit/s (around the paper's average) and 2
    /// and 10 Mbit/s (--quick's).
    pub rates: &'static [u64],
    /// Persistent connections per path, 20. Alternatives: 6 (--quick's)
    /// and 50.
    pub conns: usize,
    /// Responses per connection, 40. The paper's connections carried 3.1
    /// requests on average (Table 1): ours are longer, so more of their
    /// recoveries follow an earlier one. Alternatives: 3 and 15
    /// (--quick's).
    pub responses: usize,
    /// Log-normal shape of the response sizes (mean 7.5 kB, the paper's),
    /// 1.5: the paper gives the mean only. Alternatives: 1.0 (the ER
    /// experiment's) and 2.0.
    pub size_sigma: f64,
    /// Response sizes are clamped to this range (bytes).
    pub size_range: (u64, u64),
    /// Mean exponential think time between responses (ms), 500, plus
    /// `min_gap_ms`; the first response within the same time of the
    /// start. Alternatives: 100 ms and 2 s (an idle connection restarts
    /// from the restart window).
    pub think_ms: f64,
    pub min_gap_ms: Time,
    /// Gilbert-Elliott loss: the chance to enter the bad state (0.002),
    /// to leave it (0.2), and the loss rate in it (0.3): 0.3% on average,
    /// in bursts of about five packets. The paper reports a 2.8%
    /// retransmission rate (Table 1) but no loss process. Alternatives:
    /// Bernoulli loss of the same mean (the `Random` explanation runs)
    /// and bursts twice as long (leaving at 0.1).
    pub ge: (f64, f64, f64),
    /// Drop-tail queue as a share of the BDP, a quarter (at least
    /// `min_queue` packets): shallow, as the paper's losses were mostly
    /// overflows. Alternatives: one BDP (the `Random` explanation runs)
    /// and an eighth.
    pub queue_bdp_share: f64,
    pub min_queue: u64,
    /// Seeds (workload and loss draws), paired across algorithms: 10, 20
    /// and 40 by size. More would narrow the inconclusive rows (each says
    /// how many).
    pub seeds: usize,
}

/// The web choice the setup table reruns (setup.rs): the queue.
pub(super) const WEB_QUEUE: super::setup::Choice = super::setup::Choice {
    key: "web-queue-bdp-share",
    value: "0.25",
    unit: "BDP",
    why: "Google's paths' queues are not given; a quarter BDP (at least 8 packets) keeps \
          losses mostly the path's bursty ones",
    alternatives: ["0.125", "1"],
    experiments: &["web"],
    quick: false,
};

pub(super) const WEB_DEFAULT: WebSetup = WebSetup {
    rtts_ms: &[20, 50, 100, 200, 400],
    rates: &[5_000_000, 10_000_000, 30_000_000, 100_000_000],
    conns: 20,
    responses: 40,
    size_sigma: 1.5,
    size_range: (100, 2_000_000),
    think_ms: 500.0,
    min_gap_ms: 10,
    ge: (0.002, 0.2, 0.3),
    queue_bdp_share: 0.25,
    min_queue: 8,
    seeds: 20,
};

/// --quick: four paths and fewer, shorter connections, so that it runs in
/// seconds; its verdicts that differ from the page's say why
/// (tests/verdicts.csv).
pub(super) const WEB_QUICK: WebSetup = WebSetup {
    rtts_ms: &[50, 200],
    rates: &[2_000_000, 10_000_000],
    conns: 6,
    responses: 15,
    seeds: 10,
    ..WEB_DEFAULT
};

pub(super) const WEB_FULL: WebSetup = WebSetup {
    seeds: 40,
    ..WEB_DEFAULT
};

impl WebSetup {
    /// The Gilbert-Elliott model's mean loss rate, which the random-loss
    /// explanation runs keep.
    fn mean_loss(&self) -> f64 {
        let (p_gb, p_bg, bad) = self.ge;
        p_gb / (p_gb + p_bg) * bad
    }
}

/// The web experiment's path: the stand-in's bursty loss over shallow
/// queues, or the explanation experiment's random loss over deep ones.
#[derive(Clone, Copy, PartialEq)]
enum WebPath {
    /// Gilbert-Elliott loss (0.3% on average, in bursts) and a quarter-BDP
    /// drop-tail queue.
    Bursty,
    /// Bernoulli loss of the same average rate and a one-BDP queue.
    Random,
    /// Bernoulli loss of the same average rate and a queue of 100 BDPs,
    /// which nothing overflows: every loss is the path's, none is caused
    /// by what an algorithm sends.
    Deep,
}

/// The web experiment once, with the workload and loss draws of seed `k`:
/// each algorithm's statistics, in `WEB_ALGS` order.
fn web_stats(ctx: &Ctx, setup: &WebSetup, kind: WebPath, k: u64) -> Result<PerSeed, String> {
    let algs = WEB_ALGS;
    let mut stats: Vec<WebStats> = algs.iter().map(|_| WebStats::default()).collect();
    let mut limited: Vec<WebStats> = algs.iter().map(|_| WebStats::default()).collect();
    // Workload and path draws of seed k; k = 0 is the original example.
    let mut g = Gen::new(7 + k);
    for &rtt in setup.rtts_ms {
        for &rate in setup.rates {
            // The same workload for every algorithm on this path.
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
                let (writes, t) = mix.draw(&mut g, |n, _| n < setup.responses);
                end = end.max(t);
                let mut f = linux32(&format!("c{c}"), "cubic", "prr-6937");
                f.app = AppSpec::Writes(writes);
                flows.push(f);
            }
            let bdp = rate / 8 * rtt / 1000 / 1500;
            let random = LossModel::Bernoulli {
                p: setup.mean_loss(),
            };
            let (bdp_pkts, loss) = match kind {
                WebPath::Bursty => (
                    ((bdp as f64 * setup.queue_bdp_share) as u64).max(setup.min_queue),
                    LossModel::GilbertElliott {
                        p_gb: setup.ge.0,
                        p_bg: setup.ge.1,
                        loss_good: 0.0,
                        loss_bad: setup.ge.2,
                    },
                ),
                WebPath::Random => (bdp.max(setup.min_queue), random),
                WebPath::Deep => ((100 * bdp).max(1000), random),
            };
            let p = path(rate, rtt * MS / 2, QueueLimit::Packets(bdp_pkts), loss);
            for (i, alg) in algs.iter().enumerate() {
                let mut fl = flows.clone();
                for f in &mut fl {
                    f.recovery = alg.to_string();
                }
                let mut sc = scenario(
                    &format!(
                        "web{}-seed{k}-{rtt}ms-{}mbps-{alg}",
                        match kind {
                            WebPath::Bursty => "",
                            WebPath::Random => "-random",
                            WebPath::Deep => "-deep",
                        },
                        rate / 1_000_000
                    ),
                    end + 60 * SEC,
                    p.clone(),
                    fl,
                );
                sc.seed = rtt * 1000 + rate / 1000 + k * 1_000_000_007;
                let r = ctx.run("web", &sc, None)?;
                let s = &mut stats[i];
                for ((fr, tr), spec) in r.results.flows.iter().zip(&r.traces).zip(&sc.flows) {
                    s.retx_latency_ms
                        .extend(tr.response_latencies_ms(spec, |from, to, _| {
                            tr.retransmissions().any(|x| x.seq >= from && x.seq < to)
                        }));
                    for (b, &(lo, hi, _)) in SIZE_BUCKETS.iter().enumerate() {
                        s.retx_latency_by_size[b].extend(tr.response_latencies_ms(
                            spec,
                            |from, to, bytes| {
                                (lo..hi).contains(&bytes)
                                    && tr.retransmissions().any(|x| x.seq >= from && x.seq < to)
                            },
                        ));
                    }
                    s.retransmissions += fr.retransmissions;
                    s.retransmissions_dropped += tr.retransmissions_dropped;
                    let recs = &fr.recoveries;
                    for (k, x) in recs.iter().enumerate() {
                        if x.kind != "fast" {
                            continue;
                        }
                        let burst = largest_burst_in(x, tr);
                        add_recovery(s, recs, k, burst);
                        if x.flight_at_start >= x.cwnd_before {
                            add_recovery(&mut limited[i], recs, k, burst);
                        }
                    }
                }
            }
        }
    }
    Ok(PerSeed {
        all: stats,
        limited,
    })
}

/// The largest burst a recovery sent (0 while it never ended).
fn largest_burst_in(
    x: &losslab_sim::results::RecoveryResult,
    tr: &super::common::FlowTrace,
) -> usize {
    x.end_s.map_or(0, |end_s| {
        super::prr_common::largest_burst(
            tr,
            (x.start_s * SEC as f64) as Time,
            (end_s * SEC as f64) as Time,
        )
    })
}

/// One fast recovery (`recs[k]`), whose largest burst was `burst`, into
/// `s`'s recovery statistics.
fn add_recovery(
    s: &mut WebStats,
    recs: &[losslab_sim::results::RecoveryResult],
    k: usize,
    burst: usize,
) {
    let x = &recs[k];
    s.fast += 1;
    s.pipe_minus_ssthresh
        .push(x.pipe_minus_ssthresh_at_start as f64);
    let (Some(end_s), Some(cw)) = (x.end_s, x.cwnd_after) else {
        return;
    };
    s.recovery_ms.push((end_s - x.start_s) * 1000.0);
    // A fast recovery cut short by a timeout.
    let by_rto = recs
        .get(k + 1)
        .is_some_and(|n| n.kind == "timeout" && (n.start_s - end_s).abs() < 1e-9);
    if by_rto {
        s.timeouts_in_recovery += 1;
    } else {
        s.cwnd_after.push(cw as f64);
        s.ssthresh_at_exit.push(x.ssthresh as f64);
        if let Some(b) = x.cwnd_before_exit {
            s.cwnd_minus_ssthresh_before_exit
                .push(b as f64 - x.ssthresh as f64);
        }
        if cw < x.ssthresh {
            s.slow_start_after += 1;
        }
    }
    s.largest_burst = s.largest_burst.max(burst);
    if x.pipe_minus_ssthresh_at_start < 0 {
        s.largest_burst_heavy = s.largest_burst_heavy.max(burst);
    }
    if burst > 10 {
        s.bursts_over_10 += 1;
    }
}

/// Table 9's statistics of response latency, in its column order.
const TABLE9_STATS: [&str; 5] = ["q25", "q50", "q90", "q99", "mean"];

/// Table 9's k-th statistic of latencies `v` (None when there are none).
fn table9_stat(v: &[f64], k: usize) -> Option<f64> {
    match k {
        0..=3 => quantile(&mut v.to_vec(), [0.25, 0.50, 0.90, 0.99][k]),
        _ => (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64),
    }
}

/// The web experiment's claims, each measured over every seed and judged
/// by the rules of docs/REPRODUCTIONS.md, "Verdicts". Differences between
/// algorithms are paired: the same seed's workload and losses under each.
fn web_claims(per_seed: &[&[WebStats]]) -> Vec<Claim> {
    let median = |v: &[f64]| {
        let mut c = v.to_vec();
        quantile(&mut c, 0.5)
    };
    // Per seed, `f` of algorithms a and b, for the seeds where both exist.
    let pairs = |a: usize, b: usize, f: &dyn Fn(&WebStats) -> Option<f64>| {
        per_seed
            .iter()
            .filter_map(|s| Some((f(&s[a])?, f(&s[b])?)))
            .unzip::<f64, f64, Vec<f64>, Vec<f64>>()
    };
    let values = |a: usize, f: &dyn Fn(&WebStats) -> Option<f64>| -> Vec<f64> {
        per_seed.iter().filter_map(|s| f(&s[a])).collect()
    };
    let judge = Claim::or_unexplained;
    let mut out = Vec::new();
    let (prr, rfc, rh) = (0, 1, 2);
    let recovery = |s: &WebStats| median(&s.recovery_ms);
    for (b, name) in [(rfc, "RFC 3517"), (rh, "rate-halving")] {
        let (x, y) = pairs(prr, b, &recovery);
        out.push(judge(Claim::measured(
            "prr",
            "web",
            &format!("fig5-recovery-prr-vs-{}", WEB_ALGS[b]),
            &format!(
                "Figure 5: PRR's recoveries are shorter than {name}'s (median recovery time, ms: {name} - PRR, per seed)"
            ),
            Expect::Order {
                paper_positive: true,
            },
            paired_difference(&x, &y, "fig5"),
            "",
        )));
    }
    let (x, y) = pairs(prr, rfc, &|s| Some(s.retransmissions as f64));
    out.push(judge(Claim::measured(
        "prr",
        "web",
        "tab8-retransmissions-prr-vs-rfc3517",
        "Table 8: PRR retransmits less than RFC 3517 (retransmissions: RFC 3517 - PRR, per seed)",
        Expect::Order {
            paper_positive: true,
        },
        paired_difference(&x, &y, "tab8"),
        "",
    )));
    // Effects against Linux rate-halving, the paper's baseline.
    let timeouts = |s: &WebStats| Some(s.timeouts_in_recovery as f64);
    let lost = |s: &WebStats| Some(s.retransmissions_dropped as f64);
    type Metric<'a> = &'a dyn Fn(&WebStats) -> Option<f64>;
    let effects: [(usize, f64, &str, &str, Metric); 4] = [
        (
            prr,
            -0.05,
            "timeouts",
            "PRR has 5% fewer timeouts in recovery",
            &timeouts,
        ),
        (
            rfc,
            -0.025,
            "timeouts",
            "RFC 3517 has 2.5% fewer timeouts in recovery",
            &timeouts,
        ),
        (
            prr,
            1.17,
            "lost-retransmissions",
            "PRR loses 117% more retransmissions",
            &lost,
        ),
        (
            rfc,
            1.98,
            "lost-retransmissions",
            "RFC 3517 loses 198% more retransmissions",
            &lost,
        ),
    ];
    for (a, paper, id, what, f) in effects {
        let (base, alg) = pairs(rh, a, f);
        out.push(judge(Claim::measured(
            "prr",
            "web",
            &format!("sec5-{id}-{}", WEB_ALGS[a]),
            &format!("Section 5: {what} than Linux rate-halving (relative change, per seed)"),
            Expect::Effect {
                paper,
                band: Band::EFFECT,
            },
            paired_relative(&base, &alg, id),
            "",
        )));
    }
    for (a, paper) in [(prr, 6.0), (rfc, 5.0), (rh, 3.0)] {
        out.push(judge(Claim::measured(
            "prr",
            "web",
            &format!("tab7-cwnd-median-{}", WEB_ALGS[a]),
            &format!(
                "Table 7: median cwnd after recovery of {} (segments; per-seed medians)",
                WEB_ALGS[a]
            ),
            Expect::Value {
                paper,
                band: Band::QUANTITY,
            },
            summarize(&values(a, &|s| median(&s.cwnd_after)), false, "tab7"),
            "",
        )));
    }
    // No row on slow start after recovery: the paper's numbers for it
    // (Table 10, rate-halving 56%) are India YouTube transfers, which the
    // tab10 experiment lists as not measured; this workload's share is an
    // example row only.
    // Table 6: PRR's cwnd - ssthresh just before leaving recovery.
    let before_exit = |s: &WebStats| s.cwnd_minus_ssthresh_before_exit.clone();
    let reached: Vec<f64> = values(prr, &|s| {
        let v = before_exit(s);
        (!v.is_empty()).then(|| v.iter().filter(|&&x| x >= 0.0).count() as f64 / v.len() as f64)
    });
    out.push(judge(Claim::measured(
        "prr",
        "web",
        "tab6-reaches-ssthresh-share-prr-6937",
        "Table 6 / section 5.2: in about 90% of recoveries PRR's cwnd reaches ssthresh by the end (share with cwnd >= ssthresh just before the exit, per seed)",
        Expect::Value {
            paper: 0.90,
            band: Band::SHARE,
        },
        summarize(&reached, false, "tab6-share"),
        "",
    )));
    for (q, paper) in [(0.05, -8.0), (0.10, -3.0)] {
        let pct = (q * 100.0) as u32;
        out.push(judge(Claim::measured(
            "prr",
            "web",
            &format!("tab6-q{pct}-prr-6937"),
            &format!(
                "Table 6: the {pct}th percentile of PRR's cwnd - ssthresh just before the exit is {paper} segments (per-seed quantiles)"
            ),
            Expect::Value {
                paper,
                band: Band::QUANTITY,
            },
            summarize(
                &values(prr, &|s| quantile(&mut before_exit(s), q)),
                false,
                "tab6-q",
            ),
            "",
        )));
    }
    // Table 8's totals against Linux rate-halving.
    for (a, paper) in [(prr, 0.025), (rfc, 0.037)] {
        let (base, alg) = pairs(rh, a, &|s| Some(s.retransmissions as f64));
        out.push(judge(Claim::measured(
            "prr",
            "web",
            &format!("tab8-total-retransmissions-{}", WEB_ALGS[a]),
            &format!(
                "Table 8: {} sends {:+.1}% retransmissions against Linux rate-halving (relative change, per seed)",
                WEB_ALGS[a],
                paper * 100.0
            ),
            Expect::Effect {
                paper,
                band: Band::EFFECT,
            },
            paired_relative(&base, &alg, "tab8-total"),
            "",
        )));
    }
    // Table 9 (Google Search): latency of responses with at least one
    // retransmission against Linux rate-halving, per quantile and mean.
    let table9: [(usize, [f64; 5]); 2] = [
        (prr, [-0.07, -0.056, -0.02, -0.056, -0.035]),
        (rfc, [-0.08, -0.058, -0.024, -0.052, -0.037]),
    ];
    for (a, papers) in table9 {
        for (k, paper) in papers.into_iter().enumerate() {
            let name = TABLE9_STATS[k];
            let stat = |s: &WebStats| table9_stat(&s.retx_latency_ms, k);
            let (base, alg) = pairs(rh, a, &stat);
            out.push(judge(Claim::measured(
                "prr",
                "web",
                &format!("tab9-latency-{name}-{}", WEB_ALGS[a]),
                &format!(
                    "Table 9: {} changes the {name} latency of responses with a retransmission by {:+.1}% against Linux rate-halving (relative change, per seed)",
                    WEB_ALGS[a],
                    paper * 100.0
                ),
                Expect::Effect {
                    paper,
                    band: Band::EFFECT,
                },
                paired_relative(&base, &alg, "tab9"),
                "",
            )));
        }
    }
    for (name, paper, f) in [
        ("below", 0.32, (|x: f64| x < 0.0) as fn(f64) -> bool),
        ("equal", 0.13, |x: f64| x == 0.0),
        ("above", 0.45, |x: f64| x > 0.0),
    ] {
        let share = |s: &WebStats| {
            let v = &s.pipe_minus_ssthresh;
            (!v.is_empty()).then(|| v.iter().filter(|&&x| f(x)).count() as f64 / v.len() as f64)
        };
        out.push(judge(Claim::measured(
            "prr",
            "web",
            &format!("tab5-pipe-{name}-ssthresh"),
            &format!("Table 5: share of PRR's recoveries that start with pipe {name} ssthresh"),
            Expect::Value {
                paper,
                band: Band::SHARE,
            },
            summarize(&values(prr, &share), false, "tab5"),
            "",
        )));
    }
    out.extend(headline_claims(per_seed));
    out
}

/// The per-seed mean of `v` (None when empty).
fn mean_of(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

const HEADLINE1: &str = "Headline 1: \"Linux suffers from excessive congestion window reductions while RFC3517 transmits large bursts under high losses\" (abstract)";
const HEADLINE2: &str = "Headline 2: \"PRR recovers from losses quickly, smoothly and accurately by pacing out retransmissions across received ACKs\" (abstract)";
const HEADLINE3: &str = "Headline 3: \"PRR and ER reduce the TCP latency of connections experiencing losses by 3-10% depending on the response size\" (abstract; conclusion: PRR alone, \"by 3-10% compared to Linux recovery\"; section 5.3: PRR and RFC 3517 reduce \"the average latency of the responses with retransmissions by 3-10%\")";

/// The paper's headline claims that the web runs measure
/// (../shared/papers/HEADLINES.md, items 1-3), each on the same seeds'
/// workloads and losses under each algorithm. Rows that judge runs an
/// existing row already judges share its measurement.
fn headline_claims(per_seed: &[&[WebStats]]) -> Vec<Claim> {
    let (prr, rfc, rh) = (0, 1, 2);
    let pairs = |a: usize, b: usize, f: &dyn Fn(&WebStats) -> Option<f64>| {
        per_seed
            .iter()
            .filter_map(|s| Some((f(&s[a])?, f(&s[b])?)))
            .unzip::<f64, f64, Vec<f64>, Vec<f64>>()
    };
    let order = |id: &str, statement: String, positive: bool, d: losslab_sim::stats::Summary| {
        Claim::measured(
            "prr",
            "web",
            id,
            &statement,
            Expect::Order {
                paper_positive: positive,
            },
            d,
            "",
        )
        .headline()
        .or_unexplained()
    };
    let mut out = Vec::new();
    // "Excessive" reductions are judged against PRR on the same seeds, not
    // against ssthresh alone: rate-halving's exit sets cwnd to at most
    // ssthresh (rate_halving.rs), so "below ssthresh" could never fail
    // (the hostile review of issue 27). Per seed: the mean of cwnd after
    // recovery - ssthresh over rate-halving's recoveries, minus the same
    // over PRR's.
    let below = |w: &WebStats| {
        let d: Vec<f64> = w
            .cwnd_after
            .iter()
            .zip(&w.ssthresh_at_exit)
            .map(|(c, t)| c - t)
            .collect();
        mean_of(&d)
    };
    let (p_below, rh_below) = pairs(prr, rh, &below);
    out.push(order(
        "headline1-rate-halving-cwnd-below-ssthresh",
        format!("{HEADLINE1}: rate-halving ends recoveries further below ssthresh than PRR (per seed: mean of cwnd after recovery - ssthresh over rate-halving's recoveries minus the same over PRR's, segments)"),
        false,
        paired_difference(&p_below, &rh_below, "h1-cwnd"),
    )
    .by_construction(
        "rate-halving's exit sets cwnd to at most ssthresh (rate_halving.rs) and PRR's ends at \
         ssthresh unless the application runs out of data, so no run we built puts rate-halving \
         above PRR (prr.rs, headline_metrics_take_both_sides); the paper's \"excessive\" has no \
         size to test against",
    ));
    let (x, y) = pairs(prr, rfc, &|s| Some(s.largest_burst_heavy as f64));
    out.push(order(
        "headline1-rfc3517-burst-heavy-loss",
        format!("{HEADLINE1}: RFC 3517's largest burst in recoveries under heavy losses (pipe < ssthresh at the start, Table 5) exceeds PRR's (RFC 3517's - PRR's, segments, per seed)"),
        true,
        paired_difference(&x, &y, "h1-burst"),
    ));
    let recovery = |s: &WebStats| {
        let mut c = s.recovery_ms.clone();
        quantile(&mut c, 0.5)
    };
    let (x, y) = pairs(prr, rh, &recovery);
    out.push(
        order(
            "headline2-quickly-recovery-time-vs-rate-halving",
            format!("{HEADLINE2}: quickly, PRR's recoveries are shorter than rate-halving's (Figure 5; median recovery time, ms: rate-halving - PRR, per seed)"),
            true,
            paired_difference(&x, &y, "fig5"),
        )
        .measurement("web/fig5-recovery-prr-vs-rate-halving"),
    );
    let (x, y) = pairs(prr, rfc, &|s| Some(s.largest_burst as f64));
    out.push(order(
        "headline2-smoothly-burst-vs-rfc3517",
        format!("{HEADLINE2}: smoothly, PRR's largest burst in recovery is smaller than RFC 3517's (RFC 3517's - PRR's, segments, per seed)"),
        true,
        paired_difference(&x, &y, "h2-burst"),
    ));
    let reached: Vec<f64> = per_seed
        .iter()
        .filter_map(|s| {
            let v = &s[prr].cwnd_minus_ssthresh_before_exit;
            (!v.is_empty()).then(|| v.iter().filter(|&&x| x >= 0.0).count() as f64 / v.len() as f64)
        })
        .collect();
    out.push(
        Claim::measured(
            "prr",
            "web",
            "headline2-accurately-cwnd-reaches-ssthresh",
            &format!("{HEADLINE2}: accurately, PRR's cwnd reaches ssthresh by the end of about 90% of recoveries (section 5.2, Table 6; share with cwnd >= ssthresh just before the exit, per seed)"),
            Expect::Value {
                paper: 0.90,
                band: Band::SHARE,
            },
            summarize(&reached, false, "tab6-share"),
            "",
        )
        .headline()
        .measurement("web/tab6-reaches-ssthresh-share-prr-6937")
        .or_unexplained(),
    );
    // "3-10%": the paper's own range is the band, [-10%, -3%], as an
    // absolute band of 3.5 points around its midpoint (-6.5%).
    let band = Band::Absolute { d: 0.035 };
    let effect = |id: &str, name: &str, what: &str, f: &dyn Fn(&WebStats) -> Option<f64>| {
        let (base, alg) = pairs(rh, prr, f);
        Claim::measured(
            "prr",
            "web",
            id,
            &format!("{HEADLINE3}: PRR against Linux rate-halving, mean latency of {what} with a retransmission, -3% to -10% (the paper's range as the band around its midpoint; relative change of totals, paired seeds)"),
            Expect::Effect { paper: -0.065, band },
            paired_relative(&base, &alg, name),
            "",
        )
        .headline()
        .or_unexplained()
    };
    out.push(
        // The name seeds the bootstrap: Table 9's, so that the shared
        // measurement has one interval.
        effect("headline3-latency-all-sizes", "tab9", "responses", &|s| {
            table9_stat(&s.retx_latency_ms, 4)
        })
        .measurement("web/tab9-latency-mean-prr-6937"),
    );
    for (b, (_, _, label)) in SIZE_BUCKETS.iter().enumerate() {
        let id = format!("headline3-latency-{}", label.replace(' ', "-"));
        out.push(effect(&id, &id, &format!("responses of {label}"), &|s| {
            mean_of(&s.retx_latency_by_size[b])
        }));
    }
    out
}

/// A synthetic web workload standing in for section 5's Google traffic:
/// short responses over persistent connections, bursty loss, a spread of
/// RTTs and bandwidths; PRR, RFC 3517 and rate-halving with FACK and CUBIC.
pub fn web(ctx: &Ctx) -> Result<Experiment, String> {
    let setup = &WebSetup {
        queue_bdp_share: ctx.choice_f64(&WEB_QUEUE)?,
        ..*ctx.pick(&WEB_QUICK, &WEB_DEFAULT, &WEB_FULL)
    };
    // Seed 0 is the example the rows below show; the claims use them all.
    let seeds = setup.seeds;
    let (p_gb, p_bg, bad) = setup.ge;
    let mut e = Experiment::new(
        "web",
        "Web responses over persistent connections (standing in for section 5)",
        &format!(
            "{} paths (RTT {:?} ms x rate {:?} Mbit/s), {} persistent connections each, {} \
             responses per connection (the paper's carried 3.1 on average), log-normal sizes \
             (sigma {}) of mean 7.5 kB, exponential think times of mean {:.0} ms, \
             Gilbert-Elliott loss (p_gb {p_gb}, p_bg {p_bg}, loss {bad} in the bad state), \
             drop-tail queues of a quarter BDP (at least {} packets), the Linux 3.2 sender \
             (CUBIC, FACK) with each recovery algorithm; {seeds} seeds (workload and loss \
             draws), paired across algorithms. Rows that differ are tested again with random \
             loss of the same mean over one-BDP queues and over queues too deep to overflow. \
             Headline 3 (\"3-10% depending on the response size\") splits the responses with \
             a retransmission by size: {}; the paper gives no buckets (prr_web.rs, \
             SIZE_BUCKETS, says why these). Headline 1's heavy losses are recoveries that \
             began with pipe below ssthresh (Table 5). The paper gives none of the paths, \
             connections, sizes' spread, think times or loss process: WebSetup in prr_web.rs \
             lists each choice, why, and what to try instead.",
            setup.rtts_ms.len() * setup.rates.len(),
            setup.rtts_ms,
            setup
                .rates
                .iter()
                .map(|r| r / 1_000_000)
                .collect::<Vec<_>>(),
            setup.conns,
            setup.responses,
            setup.size_sigma,
            setup.think_ms,
            setup.min_queue,
            SIZE_BUCKETS.map(|b| b.2).join(", ")
        ),
    );
    let algs = WEB_ALGS;
    let run = |path: WebPath| -> Result<Vec<PerSeed>, String> {
        par_map(ctx, seeds, |k| web_stats(ctx, setup, path, k as u64))
    };
    let runs = run(WebPath::Bursty)?;
    let per_seed: Vec<&[WebStats]> = runs.iter().map(|p| p.all.as_slice()).collect();
    e.claims = web_claims(&per_seed);
    // Explanation experiments for every row that differs. (1) Is it our
    // stand-in's loss process (bursts into shallow queues)? The same
    // workloads with random loss of the same mean rate over one-BDP
    // queues. (2) Is it losses our algorithms cause themselves? The same
    // over queues nothing overflows. (3) Is it how often a recovery starts
    // application-limited? The same runs restricted to recoveries that
    // began with the flight filling cwnd: measured and reported, but it
    // cannot explain a row, since the paper's own responses (7.5 kB on
    // average, most within an initial window of 10) start recoveries
    // application-limited too, and a variant that drops them is not the
    // paper's traffic (issue 28). Rows about responses rather than
    // recoveries have no such restriction.
    let random_runs = run(WebPath::Random)?;
    let random: Vec<&[WebStats]> = random_runs.iter().map(|p| p.all.as_slice()).collect();
    let random = web_claims(&random);
    let deep_runs = run(WebPath::Deep)?;
    let deep: Vec<&[WebStats]> = deep_runs.iter().map(|p| p.all.as_slice()).collect();
    let deep = web_claims(&deep);
    let limited: Vec<&[WebStats]> = runs.iter().map(|p| p.limited.as_slice()).collect();
    let limited = web_claims(&limited);
    let app_limited: Vec<f64> = runs
        .iter()
        .filter(|p| p.all[0].fast > 0)
        .map(|p| 1.0 - p.limited[0].fast as f64 / p.all[0].fast as f64)
        .collect();
    let app_limited = summarize(&app_limited, false, "app-limited");
    for c in e
        .claims
        .iter_mut()
        .filter(|c| c.verdict.needs_explanation() && !c.is_by_construction())
    {
        let by_recovery = ["fig5-", "sec5-timeouts-", "tab5-", "tab6-", "tab7-"]
            .iter()
            .any(|p| c.id.starts_with(p));
        if let Some(why) = super::claims::underpowered_explanation(c) {
            c.explanation = why;
            continue;
        }
        let find = |v: &[Claim]| v.iter().find(|a| a.id == c.id).cloned();
        c.explanation = web_explanation(
            c,
            find(&random).as_ref(),
            find(&deep).as_ref(),
            if by_recovery { find(&limited) } else { None }.as_ref(),
            &app_limited,
        );
    }
    let dir = ctx.sub("web")?;
    for (name, title, x_label, f) in [
        (
            "fig5-recovery-time",
            "Figure 5: time in fast recovery, every seed",
            "recovery time (ms)",
            (|s: &WebStats| s.recovery_ms.clone()) as fn(&WebStats) -> Vec<f64>,
        ),
        (
            "tab7-cwnd-after",
            "Table 7: cwnd after fast recovery, every seed",
            "cwnd after recovery (segments)",
            |s: &WebStats| s.cwnd_after.clone(),
        ),
    ] {
        let series: Vec<(String, Vec<f64>)> = WEB_ALGS
            .iter()
            .enumerate()
            .map(|(i, a)| {
                (
                    a.to_string(),
                    runs.iter().flat_map(|s| f(&s.all[i])).collect(),
                )
            })
            .collect();
        losslab_viz::charts::cdf(&dir.join(name), title, x_label, &series)
            .map_err(|x| x.to_string())?;
        e.pictures.push(format!("web/{name}.png"));
    }
    let stats = &runs[0].all;
    let q = |v: &Vec<f64>, x: f64| {
        let mut c = v.clone();
        quantile(&mut c, x).map_or("-".into(), |y| format!("{y:.0}"))
    };
    let paper_cwnd = ["2 3 6 9 15 21 35", "2 3 5 8 14 19 31", "1 2 3 5 9 12 19"];
    let paper_lost = ["+117% vs Linux", "+198% vs Linux", "baseline"];
    // Table 10's shares are of YouTube transfers, not of these responses.
    let paper_ss = "- (Table 10's 0% / 1% / 56% are YouTube transfers)";
    for (i, alg) in algs.iter().enumerate() {
        let s = &stats[i];
        e.row(format!("{alg}: fast recoveries"), s.fast.to_string(), "-");
        e.row(
            format!("{alg}: recovery time p50 / p90 ms"),
            format!("{} / {}", q(&s.recovery_ms, 0.5), q(&s.recovery_ms, 0.9)),
            "Figure 5: PRR shortest",
        );
        e.row(
            format!("{alg}: timeouts in recovery"),
            s.timeouts_in_recovery.to_string(),
            match *alg {
                "prr-6937" => "-5.0% vs Linux",
                "rfc3517" => "-2.5% vs Linux",
                _ => "baseline",
            },
        );
        e.row(
            format!("{alg}: retransmissions dropped (lost retransmissions)"),
            format!("{} of {}", s.retransmissions_dropped, s.retransmissions),
            paper_lost[i],
        );
        e.row(
            format!("{alg}: cwnd after recovery q10 25 50 75 90 95 99"),
            [0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99]
                .iter()
                .map(|&x| q(&s.cwnd_after, x))
                .collect::<Vec<_>>()
                .join(" "),
            paper_cwnd[i],
        );
        e.row(
            format!("{alg}: slow start after recovery (cwnd < ssthresh)"),
            format!(
                "{:.0}%",
                100.0 * s.slow_start_after as f64 / s.cwnd_after.len().max(1) as f64
            ),
            paper_ss,
        );
        e.row(
            format!("{alg}: largest burst in recovery / recoveries with bursts > 10"),
            format!("{} / {}", s.largest_burst, s.bursts_over_10),
            if *alg == "rfc3517" {
                "up to 338; about 1% > 10"
            } else {
                "-"
            },
        );
    }
    e.row(
        "prr-6937: share of fast recoveries that began application-limited (flight below cwnd), every seed",
        super::claims::summary_text(&app_limited),
        "- (not given; its 7.5 kB mean responses within an initial window of 10 would often be)",
    );
    let p = &stats[0];
    e.row(
        "pipe - ssthresh at recovery start: share <0 / =0 / >0",
        {
            let n = p.pipe_minus_ssthresh.len().max(1) as f64;
            let c = |f: fn(f64) -> bool| {
                100.0 * p.pipe_minus_ssthresh.iter().filter(|&&x| f(x)).count() as f64 / n
            };
            format!(
                "{:.0}% / {:.0}% / {:.0}%",
                c(|x| x < 0.0),
                c(|x| x == 0.0),
                c(|x| x > 0.0)
            )
        },
        "32% / 13% / 45% (Table 5)",
    );
    e.row(
        "pipe - ssthresh at recovery start: q1 / q50 / q99",
        format!(
            "{} / {} / {}",
            q(&p.pipe_minus_ssthresh, 0.01),
            q(&p.pipe_minus_ssthresh, 0.5),
            q(&p.pipe_minus_ssthresh, 0.99)
        ),
        "-10 / +1 / +11 (Table 5)",
    );
    Ok(e)
}

/// The web row's explanation from its explanation experiments. The
/// application-limited restriction is reported as tested but can never
/// explain: it drops recoveries the paper's traffic had.
fn web_explanation(
    c: &Claim,
    random: Option<&Claim>,
    deep: Option<&Claim>,
    limited: Option<&Claim>,
    app_limited: &losslab_sim::stats::Summary,
) -> String {
    let random_text = random.map(|a| {
        format!(
            "with random loss of the same mean rate (0.3%) over one-BDP queues (experiment \
             web-random) the same workloads give {}, {}",
            ours_text(a),
            a.verdict.name()
        )
    });
    let deep_text = deep.map(|a| {
        format!(
            "with random loss of the same mean rate over queues too deep to overflow (100 \
             BDPs; experiment web-deep), so that no algorithm's sending adds losses, the same \
             workloads give {}, {}",
            ours_text(a),
            a.verdict.name()
        )
    });
    let limited_text = limited.map(|a| {
        format!(
            "application-limited starts, outside the paper's setup: restricted to the \
             recoveries that began with the flight filling cwnd (the same runs; {:.0}% of ours \
             began application-limited) ours is {}, {}, but the paper's 7.5 kB mean responses, \
             most within an initial window of 10 segments, would start recoveries \
             application-limited too, so dropping those recoveries is not the paper's traffic \
             and cannot explain the row",
            app_limited.mean * 100.0,
            ours_text(a),
            a.verdict.name()
        )
    });
    if let (Some(a), Some(t)) = (deep, &deep_text) {
        if supports(c, a) {
            return format!(
                "Explained by self-inflicted losses: in our stand-in most losses are overflows of \
                 shallow queues shared by the path's connections, so an algorithm that sends more in \
                 recovery loses more (and times out more); the paper's losses came from \
                 elsewhere on the Internet. Tested: {t}."
            );
        }
    }
    if let (Some(a), Some(t)) = (random, &random_text) {
        if supports(c, a) {
            return format!(
                "Explained by our stand-in's loss process (bursts into quarter-BDP queues): {t}."
            );
        }
    }
    let tested: Vec<String> = [random_text, deep_text, limited_text]
        .into_iter()
        .flatten()
        .collect();
    format!(
        "not yet explained; tested and rejected the loss process, self-inflicted losses{}: {}",
        if limited.is_some() {
            " and application-limited starts (outside the paper's setup)"
        } else {
            ""
        },
        tested.join("; ")
    )
}
