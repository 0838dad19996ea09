//! The OR3 paper (../shared/papers/or3-high-speed-wan.txt, Xie and Li,
//! "Revisiting Loss Recovery for High-Speed Transmission"): receive-buffer
//! bubbles (RBBs) and lost retransmissions under BBR on long, fast, lossy
//! paths, parallel TCP, and OR3 (recovery/or3.rs in losslab-core).
//!
//! The testbed (section V.A): a 6 MB bottleneck buffer, Linux 4.10 with
//! SACK, DSACK and RACK (profile `linux-4.10`), 1500-byte packets (MSS
//! 1448 with timestamps), TCP buffers of 16 MB unless a figure says
//! otherwise; TCP-OR3 is OR3 over BBR (`cc = "bbr"`, `extensions =
//! ["or3"]`). Loss is Bernoulli ("Poisson pattern") on the data path.
//!
//! What each experiment measures, and which statement each claim tests,
//! is in the claims' own text; docs/REPRODUCTIONS.md has the table. The
//! paper prints few numbers: most claims are orders ("BBR leaves more
//! bubbles than CUBIC"), measured as per-seed paired differences.
//!
//! Where our model cannot follow the paper: the Pantheon measurements of
//! Figures 1, 4 and 8 ran on real intercontinental paths with cross
//! traffic; Figure 8 is redone in simulation on the paper's testbed path
//! (its claims say so). The paper's receive buffer counts kernel memory
//! (skb truesize); ours counts payload bytes (docs/SCENARIO.md), so a
//! "256 MB" buffer here holds somewhat more data than Linux's would.

use losslab_core::config::{RtoFormula, RttSampling};
use losslab_core::recovery::{Or3Params, Overbooking};
use losslab_core::time::{Time, MS, SEC};
use losslab_sim::results::{FlowResults, RunResults};
use losslab_sim::scenario::{AppSpec, CcSpec, FlowSpec, LossModel, QueueLimit, Scenario};
use losslab_sim::stats::summarize;

use super::claims::{
    near_capacity, paired_relative, summary_text, untested, variant_explanation,
    variants_explanation, variants_not_explaining, Band, Claim, Expect, OUTSIDE_READING,
};
use super::common::{path, scenario};
use super::setup::Choice;
use super::{Ctx, Experiment, PaperResult};

const PAPER: &str = "or3";
const MSS: u32 = 1448;
/// Section V.A: "the bottleneck buffer is 6 MB".
const QUEUE: u64 = 6_000_000;
const MB: u64 = 1_000_000;

/// Table I: name, bw (bit/s), rtt (ms), plr. The table names five
/// scenarios (Cloud-L, Cloud, Ethernet, Cellular, Cellular-H) over four
/// value columns. Figure 1 and section III-A give the typical loss ratios
/// "0.5%, 1%, and 3% in the scenarios of cloud to cloud, end to cloud via
/// Ethernet links, and end to cloud via cellular links": the 1% column is
/// Ethernet and the 3% column Cellular; Cellular-H ("heavy loss", above
/// Cellular's typical 3%) has no column and is not run.
const TABLE1: [(&str, u64, u64, f64); 4] = [
    ("cloud-l", 1_000_000_000, 300, 0.0005),
    ("cloud", 1_000_000_000, 300, 0.005),
    ("ethernet", 100_000_000, 30, 0.01),
    ("cellular", 10_000_000, 256, 0.03),
];

/// The parameters the paper leaves open (setup.rs reruns each).
const SEC3_QUEUE: Choice = Choice {
    key: "sec3-queue",
    value: "2",
    unit: "BDP (at least 6 MB)",
    why: "section III's measurements (Figures 2, 3) give no bottleneck buffer; section V.A's \
          testbed has 6 MB, 0.16 BDP at 1 Gbit/s and 300 ms, where BBR's startup and probing \
          overflow the queue and its drops outnumber the random loss many times (the \
          `testbedqueue` variants). Two BDPs of each scenario's path (never below 6 MB) leave \
          the random loss dominant (the rows' queue / loss-model drops). Figure 6, section V's \
          testbed, keeps its stated 6 MB",
    alternatives: ["1", "0.5"],
    experiments: &["bubbles", "kmax"],
    quick: false,
};
const MAX_REPLICAS: Choice = Choice {
    key: "or3-max-replicas",
    value: "7",
    unit: "copies",
    why: "section IV's 2i - 1 copies has no cap; 7 (the 4th retransmission) is losslab's",
    alternatives: ["3", "15"],
    experiments: &["kmax"],
    quick: false,
};
const SPREAD: Choice = Choice {
    key: "or3-spread-cycles",
    value: "32",
    unit: "cycles",
    why: "section IV's \"random number of sending cycles\" has no range; 1-32 cycles is \
          about 0.37 ms at 1 Gbit/s, shorter than a queue-overflow burst, 1-1024 about 12 ms",
    alternatives: ["4", "1024"],
    experiments: &["kmax", "buffers"],
    quick: false,
};
const FIG5_LINK: Choice = Choice {
    key: "fig5-link",
    value: "single-bbr",
    unit: "",
    why: "Figure 5 gives bw = 360 Mbit/s and says the link \"is set as the average throughput \
          of a single TCP BBR stream\"; ours reaches about half of that on a 360 Mbit/s link \
          (1% loss, 16 MB buffers; the figure's rows give the value), so the link is set to what \
          one BBR stream measures there (a calibration run per seed, their mean rounded down to \
          the Mbit/s, one link for every seed)",
    alternatives: ["360", "100"],
    experiments: &["parallel"],
    quick: false,
};
/// The loss of the paper's 1 Gbit/s x 300 ms examples: Figure 3(b)'s and
/// Figure 6's "plr = 3% (Poisson pattern)".
const FIG6_PLR: f64 = 0.03;
const FIG7_PLR: Choice = Choice {
    key: "fig7-plr",
    value: "0.01",
    unit: "",
    why: "Figure 7 gives only the link capacities (\"long-delay and lossy links\"); 1% and \
          300 ms are the real-world anchor's path (docs/FIDELITY.md)",
    alternatives: ["0.005", "0.03"],
    experiments: &["buffers"],
    quick: false,
};
const FIG7_LENGTH: Choice = Choice {
    key: "fig7-length",
    value: "1",
    unit: "x the scale's run length (120 s at --full, 60 s by default and at --thorough)",
    why: "Figure 7 gives no run length; Figure 2's flows run 120 s (\"Flow duration is 120 \
          seconds\"), which --full takes. The review of issue 33 found Headline 3's goodput \
          row (1 Gbit/s, 16 MB) inconclusive in 60 s runs of the seeds on which 120 s \
          contradicts it",
    alternatives: ["0.5", "2"],
    experiments: &["buffers"],
    quick: false,
};
const FIG7_RTT: Choice = Choice {
    key: "fig7-rtt",
    value: "300",
    unit: "ms, buffers scaled with it",
    why: "Figure 7 gives no RTT (\"long-delay and lossy links\"); 300 ms is the real-world \
          anchor's path (docs/FIDELITY.md) and Table I's 1 Gbit/s rows. The alternatives scale \
          every row's receive buffer with the RTT (its size x RTT / 300 ms: at 100 ms 2, 4, 16 \
          and 38 MB run at 0.67, 1.33, 5.33 and 12.67 MB), so that each row keeps the main \
          arm's share of the BDP: the RTT and the sizes in MB change together, the shares do \
          not; fig7-rtt-same-mb keeps the sizes in MB instead. The OR3 paper's sixth review \
          (2026-12-06) found the fifth's rule, which scaled only the rows past two BDPs, running \
          the 4 MB row below the 2 MB one at 100 ms and cells that named a 38 MB row run at \
          12.67 MB; the rows' cells now give the size run",
    alternatives: ["200", "100"],
    experiments: &["buffers"],
    quick: false,
};
/// Figure 7's RTT with the rows' sizes kept in MB: the other reading of
/// "the same buffers on a shorter path" (the sixth review of the OR3
/// paper, which found the fifth's rule mixing the two).
const FIG7_RTT_SAME_MB: Choice = Choice {
    key: "fig7-rtt-same-mb",
    value: "300",
    unit: "ms, buffers kept in MB",
    why: "as fig7-rtt, but the rows keep their sizes in MB, so on a shorter path each is a \
          larger share of its BDP; a judged row at two BDPs or more there (at 100 ms: 4 MB, 3.2 \
          BDP, and 38 MB, 3.04 BDP; none at 200 ms, where they are 1.6 and 1.52) is outside our \
          reading of \"insufficient for TCP\" and not judged, which the cells list apart, and \
          so are the utilization rows, which compare those two. The OR3 paper's \
          third review (2026-12-05) found the 100 Mbit/s starvation row contradicted at 200 ms \
          and Headline 3's 1 Gbit/s, 16 MB goodput row (1.28 BDP at 100 ms) reproduced at 100 \
          ms; its sixth, 38 MB at 100 ms giving +133 Mbit/s",
    alternatives: ["200", "100"],
    experiments: &["buffers"],
    quick: false,
};
const FIG7_BUFFERS: Choice = Choice {
    key: "fig7-buffers",
    value: "1",
    unit: "x the judged sizes (2 and 4 MB at 100 Mbit/s, 16 and 38 MB at 1 Gbit/s, the rows \
           keeping their ids)",
    why: "Figure 7's buffer sizes are not in the text; \"insufficient for TCP\" is read as \
          below two BDPs, and the judged sizes are 0.53 and 1.07 BDP at 100 Mbit/s, 0.43 and \
          1.01 BDP at 1 Gbit/s. The alternatives halve them and take 1.75, the largest quarter \
          step that keeps every judged size below two BDPs (7 and 66.5 MB; the bound is 1.875, \
          set by 4 MB). Added after the OR3 \
          paper's third review (2026-12-05) found Headline 3's 100 Mbit/s starvation row \
          changing sign between 5 and 7 MB",
    alternatives: ["0.5", "1.75"],
    experiments: &["buffers"],
    quick: false,
};
const HZ: Choice = Choice {
    key: "timer-hz",
    value: "250",
    unit: "Hz",
    why: "the paper's Linux 4.10 hosts' CONFIG_HZ is not given; 250 is the kernel's Kconfig \
          default and Debian's and Ubuntu's generic build of the time (profile linux-4.10), \
          1000 the low-latency and some distributions' build, 100 the server option. It sets \
          the jiffies of the RTO, the loss probe and early retransmit's delay",
    alternatives: ["1000", "100"],
    experiments: &["kmax", "sack"],
    quick: false,
};
const FIG8_LEVELS: Choice = Choice {
    key: "fig8-levels",
    value: "16",
    unit: "connections at most (1, 2, 4, ... up to it)",
    why: "Figure 8 does not list its parallelism levels. Without the Pantheon path's cross \
          traffic, parallel CUBIC's aggregate in our model grows about linearly with N (the \
          experiment's first row gives it per level, seed 1), so the highest level tried can \
          decide whether the best of them beats TCP-OR3",
    alternatives: ["64", "128"],
    experiments: &["fig8"],
    quick: false,
};
const CHOICES: [Choice; 11] = [
    SEC3_QUEUE,
    MAX_REPLICAS,
    SPREAD,
    FIG5_LINK,
    FIG7_PLR,
    FIG7_LENGTH,
    FIG7_RTT,
    FIG7_RTT_SAME_MB,
    FIG7_BUFFERS,
    HZ,
    FIG8_LEVELS,
];

/// Section III's bottleneck buffer on a `rate`, `rtt_ms` path: SEC3_QUEUE
/// BDPs, at least the testbed's 6 MB.
fn sec3_queue(ctx: &Ctx, rate: u64, rtt_ms: u64) -> Result<u64, String> {
    let bdps = ctx.choice_f64(&SEC3_QUEUE)?;
    let bdp = rate as f64 / 8.0 * rtt_ms as f64 / 1000.0;
    Ok(((bdps * bdp) as u64).max(QUEUE))
}

/// A sender of the paper's testbed.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Scheme {
    Cubic,
    Bbr,
    /// TCP-OR3: BBR with OR3.
    Or3,
}

impl Scheme {
    fn label(self) -> &'static str {
        match self {
            Scheme::Cubic => "cubic",
            Scheme::Bbr => "bbr",
            Scheme::Or3 => "or3",
        }
    }
}

/// One experiment point.
#[derive(Clone, Debug)]
struct Case {
    id: String,
    rate: u64,
    rtt_ms: u64,
    plr: f64,
    scheme: Scheme,
    rcvbuf: u64,
    duration: Time,
    /// Connections (parallel TCP) when > 1.
    connections: u64,
    /// A chunked file (`file`, `chunk` bytes) instead of a bulk source.
    file: Option<(u64, u64)>,
    /// Bursty ACK loss on the reverse path (Gilbert-Elliott) and SACK
    /// blocks per ACK.
    ack_loss: bool,
    sack_blocks: u8,
    /// OR3's switches (with `Scheme::Or3`).
    or3: Or3Params,
    /// Bottleneck buffer, bytes.
    queue: u64,
    /// The hosts' CONFIG_HZ (setup choice timer-hz).
    hz: u32,
    /// An explanation's variant of the sender (`Legacy`); None: the
    /// profile's Linux 4.10.
    legacy: Option<Legacy>,
}

/// Senders that are not Linux 4.10's, which explanations of a differing
/// row test: what losslab's `linux-4.10` profile ran before issue 32 took
/// the kernel's RTT samples and RTO estimator.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Legacy {
    /// `rtt_sample = "tsecr"`: one RTT sample per cumulative ACK of data
    /// never retransmitted, from the timestamp echo, so none through a
    /// recovery (4.10's tcp_ack_update_rtt() samples SACKed segments too).
    TsecrSamples,
    /// `rto_formula = "linux"`, `timer_hz = 0`: SRTT + max(4 RTTVAR,
    /// 200 ms) on RFC 6298's estimator with exact timers (4.10's
    /// tcp_rtt_estimator() lets RTTVAR fall only once per RTT and counts
    /// jiffies).
    RfcEstimator,
}

impl Case {
    fn new(id: String, rate: u64, rtt_ms: u64, plr: f64, scheme: Scheme) -> Self {
        Case {
            id,
            rate,
            rtt_ms,
            plr,
            scheme,
            rcvbuf: 16 * MB,
            duration: 120 * SEC,
            connections: 1,
            file: None,
            ack_loss: false,
            sack_blocks: 3,
            or3: Or3Params::default(),
            queue: QUEUE,
            hz: 250,
            legacy: None,
        }
    }
}

fn flow(c: &Case) -> FlowSpec {
    let mut f = FlowSpec::new("a");
    assert!(losslab_sim::profile::apply("linux-4.10", &mut f));
    f.mss = MSS;
    // CUBIC is the profile's (Linux 4.10's tcp_cubic.c and HyStart).
    if c.scheme != Scheme::Cubic {
        f.cc = CcSpec::Named("bbr".into());
    }
    if c.scheme == Scheme::Or3 {
        f.extensions = vec!["or3".into()];
        f.or3 = c.or3;
    }
    // Westwood's clock (`westwood_hz`) stays the profile's: no scheme
    // here runs Westwood, and a scenario cannot carry it otherwise
    // (`--export` refused the HZ setup choice's runs before 2026-11-30).
    f.timer_hz = c.hz;
    match c.legacy {
        None => {}
        Some(Legacy::TsecrSamples) => f.rtt_sample = RttSampling::Tsecr,
        Some(Legacy::RfcEstimator) => {
            f.rto_formula = RtoFormula::Linux;
            f.timer_hz = 0;
        }
    }
    f.receiver.rcvbuf = c.rcvbuf;
    f.receiver.sack_blocks = c.sack_blocks;
    f.count = c.connections as u32;
    if let Some((file, chunk)) = c.file {
        f.app = AppSpec::Chunks { file, chunk };
    }
    f
}

fn build(c: &Case, seed: u64) -> Scenario {
    let loss = if c.plr > 0.0 {
        LossModel::Bernoulli { p: c.plr }
    } else {
        LossModel::None
    };
    let mut p = path(c.rate, c.rtt_ms * MS / 2, QueueLimit::Bytes(c.queue), loss);
    if c.ack_loss {
        // Bursts of lost ACKs (a policer on the return path, section
        // III-B): a bad state entered once per 200 ACKs on average,
        // lasting 10 ACKs, in which every ACK is lost.
        p.1.loss = LossModel::GilbertElliott {
            p_gb: 0.005,
            p_bg: 0.1,
            loss_good: 0.0,
            loss_bad: 1.0,
        };
    }
    let mut sc = scenario(&format!("{}-s{seed}", c.id), c.duration, p, vec![flow(c)]);
    sc.seed = seed;
    sc
}

/// Runs every case over `seeds` seeds on every core: results by case,
/// then seed.
fn run_all(
    ctx: &Ctx,
    exp: &str,
    cases: &[Case],
    seeds: u64,
) -> Result<Vec<Vec<RunResults>>, String> {
    run_each(ctx, exp, cases, &vec![seeds; cases.len()])
}

/// `run_all` with a seed count per case (`seeds[i]` for `cases[i]`).
fn run_each(
    ctx: &Ctx,
    exp: &str,
    cases: &[Case],
    seeds: &[u64],
) -> Result<Vec<Vec<RunResults>>, String> {
    let copies = ctx.choice_u64(&MAX_REPLICAS)? as u32;
    let cycles = ctx.choice_u64(&SPREAD)? as u32;
    let hz = ctx.choice_u64(&HZ)? as u32;
    let cases: Vec<Case> = cases
        .iter()
        .cloned()
        .map(|mut c| {
            c.or3.max_replicas = copies;
            c.or3.spread_cycles = cycles;
            c.hz = hz;
            c
        })
        .collect();
    super::common::run_cases_seeds(ctx, exp, seeds, |i, seed| build(&cases[i], seed), |r| r)
}

fn first(r: &RunResults) -> &FlowResults {
    &r.flows[0]
}

fn mbps(r: &RunResults) -> f64 {
    r.flows.iter().map(|f| f.goodput_bps).sum::<f64>() / 1e6
}

fn kmax(r: &RunResults) -> f64 {
    f64::from(first(r).max_retransmissions_of_one_segment)
}

/// The paper plots the non-zero bubble counts per RTT (Fig. 2).
fn rbb_median(r: &RunResults) -> f64 {
    first(r).rbb.p50_nonzero.unwrap_or(0) as f64
}
fn rbb_mean(r: &RunResults) -> f64 {
    first(r).rbb.mean_nonzero.unwrap_or(0.0)
}
fn rbb_max(r: &RunResults) -> f64 {
    first(r).rbb.max as f64
}

/// Receive-buffer starvation as the paper means it (section III-B, "High
/// speed wide-area transmission is buffer starving"), measured at the
/// receiver: the share of the run during which a bubble sat at the head
/// of the receive buffer while the advertised window was exhausted
/// (results' `rbb.starvation_s`). Not the sender's `rcvbuf_starvation_s`:
/// that one ends whenever the sender may send, and OR3's opportunism lets
/// it send past the window, so it would credit OR3 by construction.
fn starved(r: &RunResults) -> f64 {
    first(r).rbb.starvation_s.unwrap_or(0.0) / r.sim_time_s.max(1e-9)
}

/// b's goodput minus a's per seed, Mbit/s.
fn gain_mbps(a: &[RunResults], b: &[RunResults]) -> Vec<f64> {
    col(a, mbps)
        .iter()
        .zip(col(b, mbps))
        .map(|(x, y)| y - x)
        .collect()
}

fn col(runs: &[RunResults], f: impl Fn(&RunResults) -> f64) -> Vec<f64> {
    runs.iter().map(f).collect()
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// What a differing row says until an experiment has tested an
/// explanation; the measurements of the same runs follow it.
fn claim(exp: &str, id: &str, statement: &str, expect: Expect, values: &[f64], why: &str) -> Claim {
    untested(PAPER, exp, id, statement, expect, values, why)
}

/// Whether this scale runs the costly explanation variants, the 120 s
/// runs at 1 Gbit/s of `bubbles` (BBR on the testbed's queue) and `kmax`
/// (TCP-OR3 without redundancy), and `buffers`' TCP-OR3 without
/// opportunism at 1 Gbit/s: `--thorough` and `--full`, and `--quick`,
/// whose short runs (10 s, `buffers` 15 s) make them cheap. The default
/// leaves them out (issue 33: they were 14 s of its 96; the mobile
/// paper's default runs none of its variants), and the rows they test
/// say that no explanation was tested at this scale. `buffers`' variants
/// at 100 Mbit/s and its free-buffer ones, and `fig8`'s, a few seconds,
/// run at every scale.
fn variants(ctx: &Ctx) -> bool {
    ctx.all_variants() || ctx.quick
}

/// An order between paired runs: `b - a` has the paper's sign.
fn order(
    exp: &str,
    id: &str,
    statement: &str,
    a: &[f64],
    b: &[f64],
    positive: bool,
    why: &str,
) -> Claim {
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| y - x).collect();
    claim(
        exp,
        id,
        statement,
        Expect::Order {
            paper_positive: positive,
        },
        &d,
        why,
    )
}

/// A claim whose difference, if any, is tested against `cause` by a
/// variant of the experiment (`variant`: the same seeds, one setting
/// changed, described by `how`): "Explained by" when the variant supports
/// it (claims::supports), else the cause is listed as tested and rejected.
#[allow(clippy::too_many_arguments)]
fn claim_tested(
    exp: &str,
    id: &str,
    statement: &str,
    expect: Expect,
    values: &[f64],
    variant: &[f64],
    cause: &str,
    how: &str,
    measured: &str,
) -> Claim {
    // A share is summarised as claims::untested does (Student's t clipped
    // to [0, 1]), so that a row reads the same whichever helper made it.
    let share = matches!(expect, Expect::Value { band, .. } if band == Band::SHARE)
        && values
            .iter()
            .chain(variant)
            .all(|v| (0.0..=1.0).contains(v));
    let sum = |v: &[f64]| {
        if share {
            super::estimators::share_of_seeds(v, id)
        } else {
            summarize(v, false, id)
        }
    };
    let c = Claim::measured(PAPER, exp, id, statement, expect, sum(values), "");
    let v = c.on(sum(variant));
    c.explained_by(|c| variant_explanation(c, &v, cause, how, measured))
}

/// What the runs of a row measured besides its own number.
fn diagnosis(runs: &[RunResults]) -> String {
    let per =
        |f: &dyn Fn(&FlowResults) -> f64| mean(&runs.iter().map(first).map(f).collect::<Vec<_>>());
    format!(
        "measured in the same runs (means per run): {:.0} packets dropped by the bottleneck \
         queue and {:.0} by the loss model, goodput {:.1} Mbit/s, {:.1} timeouts, \
         {:.0} retransmissions, k_max {:.1}, {:.0} extra copies, {:.0} segments sent past the \
         receive window of which the receiver discarded {:.0}, bubbles per RTT (non-zero) \
         median {:.1} and max {:.0}, receive-buffer starvation at the receiver {:.1} s \
         (sender blocked by the window with bubbles: {:.1} s)",
        mean(&col(runs, |r| r.path.queue_drops as f64)),
        mean(&col(runs, |r| r.path.loss_drops as f64)),
        mean(&col(runs, mbps)),
        per(&|f| f.timeouts as f64),
        per(&|f| f.retransmissions as f64),
        per(&|f| f64::from(f.max_retransmissions_of_one_segment)),
        per(&|f| f.redundant_copies as f64),
        per(&|f| f.beyond_window_segments as f64),
        per(&|f| f.receiver_out_of_window_drops as f64),
        per(&|f| f.rbb.p50_nonzero.unwrap_or(0) as f64),
        per(&|f| f.rbb.max as f64),
        per(&|f| f.rbb.starvation_s.unwrap_or(0.0)),
        per(&|f| f.rcvbuf_starvation_s.unwrap_or(0.0)),
    )
}

pub fn run(ctx: &Ctx) -> Result<PaperResult, String> {
    let mut experiments = vec![
        super::timing::experiment(ctx, "", || bubbles(ctx))?,
        super::timing::experiment(ctx, "", || kmax_fig6(ctx))?,
        super::timing::experiment(ctx, "", || parallel(ctx))?,
        super::timing::experiment(ctx, "", || buffers(ctx))?,
        super::timing::experiment(ctx, "", || versus_parallel(ctx))?,
        super::timing::experiment(ctx, "", || sack_ack_loss(ctx))?,
        pantheon(),
    ];
    let setup = super::setup::sensitivity(ctx, &CHOICES, &mut experiments, &experiment)?;
    experiments.push(setup);
    Ok(PaperResult {
        paper: PAPER.into(),
        title: "Revisiting loss recovery for high-speed transmission: RBBs, k_max, parallel TCP and OR3".into(),
        quick: ctx.quick,
        full: ctx.full,
        thorough: ctx.thorough,
        subset: ctx.quick,
        experiments,
    })
}

/// One experiment by id (the setup table's reruns).
fn experiment(ctx: &Ctx, id: &str) -> Result<Experiment, String> {
    match id {
        "bubbles" => bubbles(ctx),
        "kmax" => kmax_fig6(ctx),
        "parallel" => parallel(ctx),
        "buffers" => buffers(ctx),
        "fig8" => versus_parallel(ctx),
        "sack" => sack_ack_loss(ctx),
        _ => Err(format!("or3: no experiment {id:?}")),
    }
}

/// What the receiver's discards of the runs were, by reason (results'
/// `receiver_discards`), means per run.
fn discards(runs: &[RunResults]) -> String {
    let per = |f: &dyn Fn(&losslab_sim::results::DiscardResults) -> f64| {
        mean(&col(runs, |r| {
            first(r).receiver_discards.as_ref().map_or(0.0, f)
        }))
    };
    format!(
        "{:.0} sent past the window, {:.0} discarded: {:.0} with no hole at the head of the \
         buffer, {:.0} held out by SACKed data above the head hole, {:.0} more than a buffer \
         past the head hole; head hole retransmitted at least once / never: {:.0} / {:.0}; \
         segments past the window mean {:.1}, largest {:.0}",
        mean(&col(runs, |r| first(r).beyond_window_segments as f64)),
        mean(&col(runs, |r| first(r).receiver_out_of_window_drops as f64)),
        per(&|d| d.no_hole as f64),
        per(&|d| d.held_above_hole as f64),
        per(&|d| d.hole_unfilled as f64),
        per(&|d| d.head_hole_retransmitted as f64),
        per(&|d| d.head_hole_not_retransmitted as f64),
        per(&|d| d.past_window_mean),
        per(&|d| d.past_window_max as f64),
    )
}

/// Bottleneck-queue drops over all drops (queue + loss model), mean per
/// run: which loss dominates.
fn queue_share(runs: &[RunResults]) -> f64 {
    mean(&col(runs, |r| {
        let q = r.path.queue_drops as f64;
        q / (q + r.path.loss_drops as f64).max(1.0)
    }))
}

// ---- Figures 2 and 3(a): bubbles and goodput in the Table I scenarios ------

fn bubbles(ctx: &Ctx) -> Result<Experiment, String> {
    let exp = "bubbles";
    let mut e = Experiment::new(
        exp,
        "Receive-buffer bubbles per RTT and goodput, BBR and CUBIC, Table I scenarios (Figures 2 and 3a)",
        "Table I: Cloud-L (1 Gbit/s, 300 ms, 0.05%), Cloud (1 Gbit/s, 300 ms, 0.5%), Ethernet \
         (100 Mbit/s, 30 ms, 1%), Cellular (10 Mbit/s, 256 ms, 3%): the table has five names \
         over four columns, and Figure 1 gives 1% to Ethernet and 3% to Cellular, so \
         Cellular-H has no column and is not run. One bulk flow, Linux 4.10 with CUBIC or BBR, \
         256 MB receive buffer, Bernoulli loss, a bottleneck buffer of two BDPs, at least 6 MB \
         (setup choice sec3-queue: random loss dominates, the rows' queue share); the \
         `testbedqueue` variant (an explanation tested, not run at the default scale): section V.A's 6 MB. \
         Bubbles: the gaps in the receiver's out-of-order queue, sampled once per base RTT; the \
         paper plots the non-zero samples, and so do we (median, mean and largest per run). \
         Starvation (headline 1) in Cloud with a 16 MB receive buffer instead: section V.A's \
         default and the cloud end-hosts' buffer of Fig. 4 and III-B (Fig. 2's 256 MB is chosen \
         \"large enough\" and never fills); measured at the receiver (rbb.starvation_s: a \
         bubble at the head of the buffer while the advertised window is exhausted), as a \
         share of the run.",
    );
    let seeds = ctx.size(2, 3, 5, 10);
    let duration = ctx.pick(10, 120, 120) * SEC;
    let mut cases = Vec::new();
    for (name, rate, rtt, plr) in TABLE1 {
        for scheme in [Scheme::Cubic, Scheme::Bbr] {
            let mut c = Case::new(format!("{name}-{}", scheme.label()), rate, rtt, plr, scheme);
            c.rcvbuf = 256 * MB;
            c.duration = duration;
            c.queue = sec3_queue(ctx, rate, rtt)?;
            cases.push(c);
        }
    }
    // Variant for the explanation tested on Cloud-L: BBR with section
    // V.A's 6 MB testbed buffer (0.16 BDP), which its startup and probing
    // overflow.
    let tested = variants(ctx);
    if tested {
        let mut testbed = cases[1].clone();
        testbed.id = "cloud-l-bbr-testbedqueue".into();
        testbed.queue = QUEUE;
        cases.push(testbed);
    }
    // Headline 1's starvation: Cloud (cases 2 and 3) with 16 MB.
    for k in [2, 3] {
        let mut c = cases[k].clone();
        c.id = format!("{}-16mb", c.id);
        c.rcvbuf = 16 * MB;
        cases.push(c);
    }
    let mut runs = run_all(ctx, exp, &cases, seeds)?;
    let bbr16 = runs.pop().expect("BBR, 16 MB");
    let cubic16 = runs.pop().expect("CUBIC, 16 MB");
    let testbed = if tested {
        runs.pop().expect("the variant")
    } else {
        Vec::new()
    };
    cases.truncate(2 * TABLE1.len());
    let mut worst = vec![0.0; seeds as usize];
    for (i, (name, _, _, plr)) in TABLE1.iter().enumerate() {
        let (cubic, bbr) = (&runs[2 * i], &runs[2 * i + 1]);
        e.row(
            format!("{name}: bubbles per RTT, median of non-zero samples, CUBIC / BBR (seed 1)"),
            format!("{:.0} / {:.0}", rbb_median(&cubic[0]), rbb_median(&bbr[0])),
            if *plr >= 0.005 {
                "<= 3 / >= 4"
            } else {
                "<= 3 / low"
            },
        );
        e.row(
            format!("{name}: bottleneck-queue drops / all drops, CUBIC / BBR (mean per run; queue {:.1} MB)", cases[2 * i].queue as f64 / 1e6),
            format!("{:.3} / {:.3}", queue_share(cubic), queue_share(bbr)),
            "random loss only (Fig. 3b's counts fit it)",
        );
        e.row(
            format!("{name}: goodput CUBIC / BBR, Mbit/s (seed 1)"),
            format!("{:.1} / {:.1}", mbps(&cubic[0]), mbps(&bbr[0])),
            "BBR much higher",
        );
        // "The number of RBBs in TCP CUBIC does not exceed three in all
        // scenarios": the largest non-zero sample stays below 3.5.
        let v = col(cubic, |r| 3.5 - rbb_max(r));
        e.claims.push(claim(
            exp,
            &format!("fig2-cubic-at-most-3-{name}"),
            &format!("Fig. 2, III-B: in {name}, the number of RBBs of CUBIC does not exceed three (ours: 3.5 - largest per-RTT sample, > 0)"),
            Expect::Order { paper_positive: true },
            &v,
            &diagnosis(cubic),
        ));
        if *plr >= 0.005 {
            let v = col(bbr, |r| rbb_median(r) - 3.5);
            e.claims.push(claim(
                exp,
                &format!("fig2-bbr-at-least-4-{name}"),
                &format!("Fig. 2, III-B: in {name} (plr >= 0.5%), the number of RBBs of BBR is persistently high, >= 4 (ours: median non-zero per-RTT sample - 3.5, > 0)"),
                Expect::Order { paper_positive: true },
                &v,
                &diagnosis(bbr),
            ));
        } else {
            let v = col(bbr, |r| rbb_median(r) - 3.5);
            let id = format!("fig2-bbr-low-{name}");
            let statement = format!("Fig. 2, III-B: \"other than in the Cloud-light-loss scenario\" BBR's RBBs are >= 4: in {name} they are not persistently high (ours: median non-zero per-RTT sample - 3.5, < 0)");
            let expect = Expect::Order {
                paper_positive: false,
            };
            let measured = format!("{}; random loss alone puts about 0.05% x 25,000 = 12 losses in each round trip's window at 1 Gbit/s and 300 ms", diagnosis(bbr));
            e.claims.push(if tested {
                claim_tested(
                    exp,
                    &id,
                    &statement,
                    expect,
                    &v,
                    &col(&testbed, |r| rbb_median(r) - 3.5),
                    "drops from the bottleneck queue, which BBR's startup and probing overflow in section V.A's 6 MB testbed buffer (0.16 BDP)",
                    "the same runs with the 6 MB testbed buffer",
                    &measured,
                )
            } else {
                claim(exp, &id, &statement, expect, &v, &measured)
            });
        }
        let more = order(
            exp,
            &format!("fig2-bbr-more-than-cubic-{name}"),
            &format!("III-B: BBR results in more RBBs than CUBIC in {name} (ours: BBR's mean non-zero per-RTT count - CUBIC's, same seed)"),
            &col(cubic, rbb_mean),
            &col(bbr, rbb_mean),
            true,
            &diagnosis(bbr),
        );
        // Headline 1's bubbles: Cloud, the paper's running example of
        // Table I ("For example in the Cloud scenario", III-B).
        e.claims.push(if *name == "cloud" {
            Claim {
                statement: "Headline 1: \"receive buffer starvation is a result of capability mismatch between loss recovery and high-speed TCP advancements such as non-loss-based congestion control\" (abstract; Fig. 2, III-B: \"BBR results in more RBBs than CUBIC\"): bubbles at the receiver, Cloud (ours: BBR's mean non-zero per-RTT count - CUBIC's, same seed)".to_string(),
                ..more
            }
            .headline()
        } else {
            more
        });
        e.claims.push(order(
            exp,
            &format!("fig3a-bbr-faster-{name}"),
            &format!("Fig. 3(a), III-B: BBR's throughput is much higher than CUBIC's in {name} (ours: BBR - CUBIC goodput, Mbit/s, same seed)"),
            &col(cubic, mbps),
            &col(bbr, mbps),
            true,
            &diagnosis(cubic),
        ));
        for (w, r) in worst.iter_mut().zip(bbr) {
            *w = f64::max(*w, rbb_max(r));
        }
    }
    e.row(
        "cloud, 16 MB: starved share of the run at the receiver CUBIC / BBR (seed 1); at 256 MB",
        format!(
            "{:.3} / {:.3}; {:.3} / {:.3}",
            starved(&cubic16[0]),
            starved(&bbr16[0]),
            starved(&runs[2][0]),
            starved(&runs[3][0])
        ),
        "BBR starves more",
    );
    e.claims.push(
        order(
            exp,
            "h1-bbr-more-starvation-cloud-16mb",
            "Headline 1: \"receive buffer starvation is a result of capability mismatch between loss recovery and high-speed TCP advancements such as non-loss-based congestion control\" (abstract; III-B: \"since the RBBs cannot be recovered timely, they further suffer from buffer starvation\"): BBR starves the receive buffer more than CUBIC (Cloud, 16 MB; ours: starved share of the run measured at the receiver, BBR - CUBIC, same seed)",
            &col(&cubic16, starved),
            &col(&bbr16, starved),
            true,
            &diagnosis(&bbr16),
        )
        .headline(),
    );
    // "It can cause up to 150 RBBs in the receiver's queue in some worst
    // cases": the largest sample of BBR over the four scenarios.
    e.claims.push(claim(
        exp,
        "fig2-bbr-worst-150",
        "III-B: BBR can cause up to 150 RBBs in the receiver's queue in some worst cases (ours: the largest per-RTT sample over the four scenarios, per seed)",
        Expect::Value { paper: 150.0, band: Band::QUANTITY },
        &worst,
        &diagnosis(&runs[3]),
    ));
    // "The number of RBBs has its positive correlation with ... PLR":
    // Cloud against Cloud-L (same rate and RTT).
    e.claims.push(order(
        exp,
        "fig2-bubbles-grow-with-plr",
        "III-B: the number of RBBs grows with the loss ratio (ours: BBR's mean non-zero count in Cloud, 0.5%, minus Cloud-L, 0.05%, same seed)",
        &col(&runs[1], rbb_mean),
        &col(&runs[3], rbb_mean),
        true,
        &diagnosis(&runs[1]),
    ));
    // One example drawn: Cellular (10 Mbit/s, 256 ms, 3%) with BBR, whose 10 Mbit/s keeps the
    // packet trace small (time-sequence, cwnd, RTT; bubbles in rbb.csv).
    let dir = ctx.sub(exp)?;
    let mut c = cases[7].clone();
    c.duration = ctx.pick(10, 30, 30) * SEC;
    let sc = build(&c, 1);
    let d = dir.join(&sc.name);
    ctx.run(exp, &sc, Some(&d))?;
    super::common::plot(&d, None, None)?;
    for p in ["tsg-a.png", "cwnd-a.png", "rtt-a.png"] {
        e.pictures.push(format!("{exp}/{}/plots/{p}", sc.name));
    }
    Ok(e)
}

// ---- Figures 3(b) and 6: k and k_max, BBR against TCP-OR3 ------------------

fn kmax_fig6(ctx: &Ctx) -> Result<Experiment, String> {
    let exp = "kmax";
    let mut e = Experiment::new(
        exp,
        "Retransmissions per segment (Figure 3b) and k_max with OR3 (Figure 6): 1 Gbit/s, 300 ms, 3%",
        "1 Gbit/s, 300 ms, 3% Bernoulli loss, 512 MB receive buffer (Fig. 6; Fig. 3b gives no \
         buffer, so its rows use the same), one bulk flow. Figure 3(b) (section III, no \
         bottleneck buffer given): a buffer of two BDPs (75 MB; setup choice sec3-queue; the \
         `testbedqueue` variant has section V.A's 6 MB). Figure 6 (section V's testbed): the \
         testbed's 6 MB, BBR against TCP-OR3 there. Schemes: \
         CUBIC, BBR, and TCP-OR3 (BBR with OR3: up to 7 copies of a retransmission, each extra \
         copy 1-32 pacing cycles later; setup choices or3-max-replicas, or3-spread-cycles). k is \
         how many times a segment was retransmitted (results' segments_by_retransmissions), \
         k_max its largest value in a connection. The paper ran 100 flows per scheme; `--full` \
         does too.",
    );
    let seeds = ctx.size(2, 3, 5, 100);
    let duration = ctx.pick(10, 120, 120) * SEC;
    // TCP-OR3 runs only on the testbed's 6 MB (Figure 6, below): on the
    // 75 MB buffer of Figure 3(b) no row read it (until issue 33 it was
    // run anyway, a fifth of the experiment's packets, and left unread).
    let kcase = |id: String, s: Scheme| {
        let mut c = Case::new(id, 1_000_000_000, 300, FIG6_PLR, s);
        c.rcvbuf = 512 * MB;
        c.duration = duration;
        c
    };
    let cases: Vec<Case> = [Scheme::Cubic, Scheme::Bbr]
        .into_iter()
        .map(|s| kcase(format!("k-{}", s.label()), s))
        .collect();
    let queue = sec3_queue(ctx, 1_000_000_000, 300)?;
    // Variants for the explanations tested below: BBR with section V.A's
    // 6 MB testbed buffer, which its probing and startup overflow;
    // TCP-OR3 without redundancy.
    let mut cases = cases;
    for c in &mut cases {
        c.queue = queue;
    }
    let mut deep = cases[1].clone();
    deep.id = "k-bbr-testbedqueue".into();
    deep.queue = QUEUE;
    cases.push(deep);
    // Figure 6 on the testbed's 6 MB (section V.A): TCP-OR3 there, and
    // without redundancy (the variant of the goodput row); BBR there is
    // `deep`.
    let mut or3_testbed = kcase("k-or3-testbedqueue".into(), Scheme::Or3);
    or3_testbed.queue = QUEUE;
    let mut single = or3_testbed.clone();
    single.id = "k-or3-testbedqueue-noredundancy".into();
    single.or3.redundancy = false;
    cases.push(or3_testbed);
    if variants(ctx) {
        cases.push(single);
    }
    let runs = run_all(ctx, exp, &cases, seeds)?;
    let (cubic, bbr) = (&runs[0], &runs[1]);
    let (deep, or3) = (&runs[2], &runs[3]);
    let n_k = |r: &RunResults, k: usize| {
        first(r)
            .segments_by_retransmissions
            .get(k)
            .copied()
            .unwrap_or(0) as f64
    };
    // The paper's 132 with k = 3 at 3% loss implies 132 / 0.03^3 = 4.9 M
    // segments (Lemma 1: n_k = N x plr^k) if the loss were independent,
    // but its 14 with k = 4 gives n_4 / n_3 = 0.106 where independent 3%
    // loss gives 0.03: neither the segment count nor the loss process can
    // be settled from the text, so no variant is run for them (issue 29's
    // review: cutting our runs to 4.9 M segments matched 132 by
    // arithmetic, not evidence).
    let sent = mean(&col(bbr, |r| first(r).segments_sent as f64));
    let segs_note = format!(
        "the paper's counts imply either about 4.9 M segments sent (132 / 0.03^3) or loss that is \
         not independent (its n_4 / n_3 = 14 / 132 = 0.106, where independent 3% loss gives \
         0.03); ours sends {:.2} M and n_4 / n_3 = {:.3}; neither can be tested from the text",
        sent / 1e6,
        mean(&col(bbr, |r| n_k(r, 4))) / mean(&col(bbr, |r| n_k(r, 3))).max(1.0)
    );
    let overflow = "drops from the bottleneck queue: BBR's probing and startup overflow \
                    section V.A's 6 MB testbed buffer (0.16 BDP here), adding losses, often in \
                    bursts, to the 3% random ones";
    let deep_how = "the same runs with the 6 MB testbed buffer";
    for (s, rs) in [
        ("CUBIC", cubic),
        ("BBR", bbr),
        ("TCP-OR3 (6 MB)", or3),
        ("BBR (6 MB)", deep),
    ] {
        let h = &first(&rs[0]).segments_by_retransmissions;
        e.row(
            format!("{s}: segments retransmitted k = 0, 1, 2, ... times (seed 1)"),
            h.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            match s {
                "BBR" => "k_max = 4; 132 with k = 3, 14 with k = 4",
                "CUBIC" => "k_max = 2",
                "BBR (6 MB)" => "",
                _ => "lower k_max than BBR",
            },
        );
        e.row(
            format!("{s}: goodput, Mbit/s (seed 1)"),
            format!("{:.1}", mbps(&rs[0])),
            if s == "TCP-OR3 (6 MB)" {
                "greatly above BBR"
            } else {
                ""
            },
        );
    }
    let q = Band::QUANTITY;
    e.claims.push(claim_tested(
        exp,
        "fig3b-bbr-kmax-4",
        "Fig. 3(b), III-B: k_max of BBR is 4 (1 Gbit/s, 300 ms, 3%)",
        Expect::Value {
            paper: 4.0,
            band: q,
        },
        &col(bbr, kmax),
        &col(deep, kmax),
        overflow,
        deep_how,
        &diagnosis(bbr),
    ));
    e.row(
        "BBR: segments sent per run, mean; with the 6 MB testbed queue: k_max and segments retransmitted 3 / 4 times, means",
        format!(
            "{sent:.0}; {:.1} and {:.0} / {:.0}",
            mean(&col(deep, kmax)),
            mean(&col(deep, |r| n_k(r, 3))),
            mean(&col(deep, |r| n_k(r, 4)))
        ),
        "4.9 M implied (132 / 0.03^3); k_max 4, 132 / 14",
    );
    e.claims.push(claim(
        exp,
        "fig3b-cubic-kmax-2",
        "Fig. 3(b), III-B: k_max of CUBIC is 2",
        Expect::Value {
            paper: 2.0,
            band: q,
        },
        &col(cubic, kmax),
        &diagnosis(cubic),
    ));
    e.claims.push(claim(
        exp,
        "fig3b-bbr-k3-132",
        "Fig. 3(b), III-B: for BBR, 132 \"unlucky\" packets were retransmitted 3 times",
        Expect::Value {
            paper: 132.0,
            band: q,
        },
        &col(bbr, |r| n_k(r, 3)),
        &format!("{segs_note}; {}", diagnosis(bbr)),
    ));
    e.claims.push(claim(
        exp,
        "fig3b-bbr-k4-14",
        "Fig. 3(b), III-B: for BBR, 14 packets were retransmitted 4 times",
        Expect::Value {
            paper: 14.0,
            band: q,
        },
        &col(bbr, |r| n_k(r, 4)),
        &format!("{segs_note}; {}", diagnosis(bbr)),
    ));
    e.claims.push(order(exp, "fig3b-bbr-kmax-above-cubic", "III-B, Lemma 1: BBR, at the higher throughput, suffers more lost retransmissions than CUBIC: k_max(BBR) > k_max(CUBIC)", &col(cubic, kmax), &col(bbr, kmax), true, &diagnosis(bbr)));
    e.claims.push(
        order(
            exp,
            "fig6-or3-lower-kmax",
            "Headline 2: \"OR3 accelerates loss recovery by minimizing the maximum retransmission times of each packet\" (abstract; Fig. 6, V.B: \"by decreasing the k_max\"; ours: k_max(TCP-OR3) - k_max(BBR), same seed, 512 MB buffer, the testbed's 6 MB bottleneck buffer)",
            &col(deep, kmax),
            &col(or3, kmax),
            false,
            &diagnosis(or3),
        )
        .headline(),
    );
    let id = "fig6-or3-higher-goodput";
    let statement = "Fig. 6, V.B: OR3 greatly increases the goodput (ours: TCP-OR3 - BBR, Mbit/s, same seed, the testbed's 6 MB bottleneck buffer; judged by sign: the paper gives no size for \"greatly\")";
    let up = Expect::Order {
        paper_positive: true,
    };
    e.claims.push(match runs.get(4) {
        Some(single) => claim_tested(
            exp,
            id,
            statement,
            up,
            &gain_mbps(deep, or3),
            &gain_mbps(deep, single),
            "the extra copies: with a 512 MB buffer BBR is never starved here (starvation in the \
             diagnosis), so the copies only add load to a queue BBR already overflows",
            "TCP-OR3 without redundancy (copies off, opportunism kept) against BBR",
            &diagnosis(or3),
        ),
        None => claim(
            exp,
            id,
            statement,
            up,
            &gain_mbps(deep, or3),
            &diagnosis(or3),
        ),
    });
    let rel = paired_relative(&col(deep, mbps), &col(or3, mbps), "fig6-gain");
    e.row(
        "TCP-OR3 goodput over BBR's, same seed (mean over seeds)",
        format!("{:+.1}%", rel.mean * 100.0),
        "\"greatly increases\"",
    );
    Ok(e)
}

// ---- Figure 5: parallel BBR ------------------------------------------------

fn parallel(ctx: &Ctx) -> Result<Experiment, String> {
    let exp = "parallel";
    let mut e = Experiment::new(
        exp,
        "Parallel TCP BBR for a chunked file: FCT, extra chunk completion time and RTOs (Figure 5)",
        "One file in 1 MB chunks striped over N BBR connections (each takes the next chunk when \
         it has sent its last), 200 ms, 1% loss, 16 MB buffers, 6 MB bottleneck buffer. The \
         link: \"the bottleneck link capacity is set as the average throughput of a single TCP \
         BBR stream\" (III-C; the caption's 360 Mbit/s is what theirs measured): a calibration \
         run of one bulk BBR flow per seed on the caption's 360 Mbit/s path (60 s), and the \
         link set to their mean goodput, rounded down to the Mbit/s (setup choice fig5-link). \
         FCT: until the last chunk is acknowledged; Delta CCT = mean chunk completion time - \
         (rtt + N x chunk / bw), the paper's formula; RTOs summed over the connections. The \
         paper's 1 GB file (`--quick`: 50 MB); the paper ran 100 times per N, `--full` does too.",
    );
    let seeds = ctx.size(2, 3, 5, 100);
    let file = ctx.pick(50, 1000, 1000) * MB;
    let levels: Vec<u64> = if ctx.quick {
        vec![1, 4]
    } else {
        vec![1, 2, 4, 8, 16]
    };
    let link = match ctx.choice(&FIG5_LINK) {
        "single-bbr" => {
            let mut c = Case::new("par-calibrate".into(), 360_000_000, 200, 0.01, Scheme::Bbr);
            c.duration = ctx.pick(5, 60, 60) * SEC;
            let cal = run_all(ctx, exp, &[c], seeds)?;
            let got = mean(&col(&cal[0], mbps));
            e.row(
                "one bulk BBR flow on the caption's 360 Mbit/s path: goodput, Mbit/s (mean over seeds); the link Figure 5 runs on",
                format!("{got:.1}; {:.0} Mbit/s", got.floor()),
                "360 (the caption's bw, set to one stream's throughput)",
            );
            (got.floor().max(1.0) as u64) * 1_000_000
        }
        _ => ctx.choice_u64(&FIG5_LINK)? * 1_000_000,
    };
    let cases: Vec<Case> = levels
        .iter()
        .map(|&n| {
            let mut c = Case::new(format!("par-{n}"), link, 200, 0.01, Scheme::Bbr);
            c.connections = n;
            c.file = Some((file, MB));
            c.duration = 1800 * SEC;
            c
        })
        .collect();
    let runs = run_all(ctx, exp, &cases, seeds)?;
    let file_of = |r: &RunResults| r.files.first().cloned();
    let fct = |r: &RunResults| file_of(r).and_then(|f| f.fct_s).unwrap_or(f64::NAN);
    let dcct = |r: &RunResults| file_of(r).and_then(|f| f.delta_cct_s).unwrap_or(f64::NAN);
    let rtos = |r: &RunResults| r.flows.iter().map(|f| f.timeouts as f64).sum::<f64>();
    for (n, rs) in levels.iter().zip(&runs) {
        e.row(
            format!("N = {n}: FCT s / Delta CCT s / RTOs (seed 1)"),
            format!(
                "{:.2} / {:.3} / {:.0}",
                fct(&rs[0]),
                dcct(&rs[0]),
                rtos(&rs[0])
            ),
            "FCT shortest at N = 1; Delta CCT and RTOs grow with N",
        );
    }
    let one = &runs[0];
    e.row(
        "N = 1: file / FCT over the link capacity (mean over seeds)",
        format!(
            "{:.3}",
            mean(&col(one, |r| file as f64 * 8.0 / fct(r) / link as f64))
        ),
        "1 (the link is one stream's throughput)",
    );
    for (n, rs) in levels.iter().zip(&runs).skip(1) {
        e.claims.push(order(exp, &format!("fig5a-single-fct-shorter-n{n}"), &format!("Fig. 5(a), III-C: the FCT of the single stream is shorter than that of parallel TCP regardless of parallelism (ours: FCT(N = {n}) - FCT(1), same seed)"), &col(one, fct), &col(rs, fct), true, &diagnosis(rs)));
        e.claims.push(order(exp, &format!("fig5a-dcct-grows-n{n}"), &format!("Fig. 5(a), III-C: Delta CCT increases with the number of parallel sockets (ours: Delta CCT(N = {n}) - Delta CCT(1), same seed)"), &col(one, dcct), &col(rs, dcct), true, &diagnosis(rs)));
    }
    let last = runs.last().expect("levels");
    let top = *levels.last().expect("levels");
    let statement = format!("Fig. 5(b), III-C: the number of RTOs grows with the parallelism level (ours: RTOs(N = {top}) - RTOs(1), same seed)");
    let mut c = order(
        exp,
        "fig5b-rtos-grow",
        &statement,
        &col(one, rtos),
        &col(last, rtos),
        true,
        &diagnosis(last),
    );
    // A differing row's senders tested, run only then (the paper's 1 GB
    // at N = 1 and N = top again, twice), which cannot explain it since
    // neither is Linux 4.10's (the ninth review): losslab's `linux-4.10`
    // showed this growth before issue 32 gave it the kernel's RTT samples
    // and estimator (an exploratory run, seeds 1-3: +23.3 RTOs with both,
    // +9.7 with the samples alone, +21.3 with the estimator alone; -3.3
    // with the profile).
    if c.verdict.needs_explanation() {
        let tested: [(Legacy, &str, &str); 2] = [
            (
                Legacy::TsecrSamples,
                "an RTO estimate that gets no RTT sample through a recovery (RTT samples from the \
                 timestamp echo of cumulative ACKs of data never retransmitted only, losslab's \
                 sampling before issue 32; Linux 4.10's tcp_ack_update_rtt() samples SACKed \
                 segments too, so this is not the paper's kernel)",
                "rtt_sample = \"tsecr\"",
            ),
            (
                Legacy::RfcEstimator,
                "an RTO whose variance term follows each RTT sample (RFC 6298's estimator with \
                 Linux's SRTT + max(4 RTTVAR, 200 ms) on exact timers, losslab's Linux RTO before \
                 issue 32; Linux 4.10's tcp_rtt_estimator() lets it fall only once per RTT and \
                 counts jiffies, so this is not the paper's kernel)",
                "rto_formula = \"linux\", timer_hz = 0",
            ),
        ];
        let mut variants = Vec::new();
        for (legacy, cause, how) in tested {
            let pair: Vec<Case> = [&cases[0], cases.last().expect("levels")]
                .into_iter()
                .map(|c| {
                    let mut c = c.clone();
                    c.id = format!("{}-{}", c.id, legacy.name());
                    c.legacy = Some(legacy);
                    c
                })
                .collect();
            let r = run_all(ctx, exp, &pair, seeds)?;
            let v = order(
                exp,
                "fig5b-rtos-grow",
                &statement,
                &col(&r[0], rtos),
                &col(&r[1], rtos),
                true,
                "",
            );
            variants.push((cause, how, v));
        }
        // Neither sender is Linux 4.10's, so neither can explain the
        // paper's number, whatever it gives.
        c.explanation = variants_not_explaining(
            &variants,
            "both senders differ from the paper's Linux 4.10",
            &diagnosis(last),
        );
    }
    e.claims.push(c);
    Ok(e)
}

impl Legacy {
    /// In case ids (and so scenario names).
    fn name(self) -> &'static str {
        match self {
            Legacy::TsecrSamples => "tsecr",
            Legacy::RfcEstimator => "rfc-estimator",
        }
    }
}

// ---- Figure 7: goodput against the receive buffer --------------------------

/// The main arm's Figure 7 RTT, ms: the RTT the rows' nominal sizes are
/// read against.
fn fig7_main_rtt() -> u64 {
    FIG7_RTT
        .value
        .parse()
        .expect("fig7-rtt's main value is a whole number of ms")
}

/// The path a Figure 7 run takes: its RTT, and whether the rows keep
/// their share of the BDP there (fig7-rtt) or their size in MB
/// (fig7-rtt-same-mb). At the main RTT the two are the same.
#[derive(Clone, Copy, Debug)]
struct Fig7Path {
    rtt: u64,
    hold_share: bool,
}

impl Fig7Path {
    fn of(ctx: &Ctx) -> Result<Fig7Path, String> {
        let main = fig7_main_rtt();
        let scaled = ctx.choice_u64(&FIG7_RTT)?;
        let same_mb = ctx.choice_u64(&FIG7_RTT_SAME_MB)?;
        match (scaled != main, same_mb != main) {
            (true, true) => Err(format!(
                "setup choices {} and {} both set Figure 7's RTT ({scaled} and {same_mb} ms): \
                 set one",
                FIG7_RTT.key, FIG7_RTT_SAME_MB.key
            )),
            (false, true) => Ok(Fig7Path {
                rtt: same_mb,
                hold_share: false,
            }),
            _ => Ok(Fig7Path {
                rtt: scaled,
                hold_share: true,
            }),
        }
    }

    /// The BDP of this path at `rate`, bytes.
    fn bdp(self, rate: u64) -> f64 {
        rate as f64 / 8.0 * self.rtt as f64 / 1000.0
    }
}

/// Whether Figure 7's row of `mb` MB at `rate` is judged: below two BDPs
/// of the main arm's path, whatever path the run takes, so that every
/// alternative judges the same rows (ids) as the main arm.
fn fig7_judged(rate: u64, mb: u64) -> bool {
    let main = Fig7Path {
        rtt: fig7_main_rtt(),
        hold_share: true,
    };
    ((mb * MB) as f64) < 2.0 * main.bdp(rate)
}

/// A Figure 7 row's receive buffer, bytes: its nominal size (which names
/// the row), the judged ones times fig7-buffers, and all of them times
/// RTT / the main RTT when the path holds the BDP share (fig7-rtt). The
/// fifth review's rule scaled only the rows that would be two BDPs or
/// more, so that at 100 ms the "4mb" row ran 1.33 MB beside a "2mb" row
/// of 2 MB (the sixth review).
fn fig7_bytes(rate: u64, mb: u64, scale: f64, path: Fig7Path) -> u64 {
    let scale = if fig7_judged(rate, mb) { scale } else { 1.0 };
    let rtt = if path.hold_share {
        path.rtt as f64 / fig7_main_rtt() as f64
    } else {
        1.0
    };
    ((mb * MB) as f64 * scale * rtt).round() as u64
}

/// A Figure 7 row's buffer in BDPs of its path: two or more is outside
/// our reading of "insufficient for TCP", and the row is not judged
/// there.
fn fig7_share(rate: u64, mb: u64, scale: f64, path: Fig7Path) -> f64 {
    fig7_bytes(rate, mb, scale, path) as f64 / path.bdp(rate)
}

/// A size in MB as the rows and scenarios name it: "4", "3.5", "1.33"
/// (two decimals at most, so that a name does not round 1.333 MB to the
/// 1.3 MB beside a share computed from 1.333; the sixth review).
fn mb_text(bytes: u64) -> String {
    let t = format!("{:.2}", bytes as f64 / MB as f64);
    t.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn buffers(ctx: &Ctx) -> Result<Experiment, String> {
    let exp = "buffers";
    let seeds = ctx.size(2, 3, 3, 10);
    let length = ctx.choice_f64(&FIG7_LENGTH)?;
    let duration = ((ctx.pick(15, 60, 120) * SEC) as f64 * length).round() as Time;
    let plr = ctx.choice_f64(&FIG7_PLR)?;
    let path = Fig7Path::of(ctx)?;
    let rtt = path.rtt;
    let main_rtt = fig7_main_rtt();
    let scale = ctx.choice_f64(&FIG7_BUFFERS)?;
    // The path's BDP in MB, and a row's buffer as a share of it: the
    // texts say what this run's RTT and sizes make of them (the fourth
    // review: they were typed for 300 ms and the main arm's sizes).
    let bdp_mb = |rate: u64| path.bdp(rate) / MB as f64;
    let share = |rate: u64, mb: u64| fig7_share(rate, mb, scale, path);
    let plan: [(u64, &[u64]); 2] = [
        (100_000_000, &[2, 4, 8, 16]),
        (1_000_000_000, &[16, 38, 75, 150]),
    ];
    // Claims judge the sizes below two BDPs (the paper's "insufficient
    // for TCP"); the larger ones have only a row of seed 1, so only seed 1
    // of them runs (until issue 33 every seed did: at 1 Gbit/s, 75 and
    // 150 MB, the longest runs of the experiment, then left unread).
    let judged = fig7_judged;
    let bytes = |rate: u64, mb: u64| fig7_bytes(rate, mb, scale, path);
    // The size in the rows' and scenarios' names: "4", "3.5", "1.33".
    let size = |rate: u64, mb: u64| mb_text(bytes(rate, mb));
    // The rows' sizes as run, with the nominal size where they differ
    // (fig7-buffers, fig7-rtt); a claim carries it as its setting, which
    // the setup table's cells and notes print (the sixth review: they
    // named rows by id only).
    let moved = |rate: u64, mb: u64| size(rate, mb) != mb.to_string();
    let named = |rate: u64, mb: u64| -> String {
        if moved(rate, mb) {
            format!("{} MB (nominal {mb} MB)", size(rate, mb))
        } else {
            format!("{mb} MB")
        }
    };
    // A judged row whose buffer is two BDPs or more of this run's path is
    // not judged: the paper's claim is about buffers insufficient for
    // TCP (fig7-rtt-same-mb's shorter paths, or a fig7-buffers of 1.875
    // or more set by hand; the fourth review: at 100 ms, 4 and 38 MB were
    // judged at 3.2 and 3.04 BDP).
    let past_two = |rate: u64, mb: u64| share(rate, mb) >= 2.0;
    // Why a row is outside the reading: `what` "is x BDP" of this path.
    let past_reading = |what: String| -> String {
        format!(
            "{what} of this run's {rtt} ms path, not below two BDPs, our reading of \
             \"insufficient for TCP\" (setup choices {}, {} and {})",
            FIG7_BUFFERS.key, FIG7_RTT.key, FIG7_RTT_SAME_MB.key,
        )
    };
    let outside = |c: Claim, rate: u64, mb: u64| -> Claim {
        let c = if moved(rate, mb) {
            c.setting(named(rate, mb))
        } else {
            c
        };
        if !past_two(rate, mb) {
            return c;
        }
        c.outside_reading(&past_reading(format!(
            "{} is {:.2} BDP",
            named(rate, mb),
            share(rate, mb)
        )))
    };
    let rows: Vec<(u64, u64)> = plan
        .iter()
        .flat_map(|&(rate, sizes)| sizes.iter().map(move |&mb| (rate, mb)))
        .collect();
    let shares = rows.iter().map(|&(rate, mb)| share(rate, mb));
    let lo = shares.clone().fold(f64::INFINITY, f64::min);
    let hi = shares.fold(0.0, f64::max);
    let judged_named: Vec<String> = rows
        .iter()
        .filter(|&&(rate, mb)| judged(rate, mb))
        .map(|&(rate, mb)| named(rate, mb))
        .collect();
    // What this run's path does to the sizes, said from the path itself.
    let path_text = if rtt == main_rtt {
        String::new()
    } else if path.hold_share {
        format!(
            " This run scales every buffer with its {rtt} ms RTT (setup choice {}: size x \
             {rtt} / {main_rtt} ms), so that each row keeps the main arm's share of the BDP; \
             the judged rows run at {}.",
            FIG7_RTT.key,
            judged_named.join(", ")
        )
    } else {
        format!(
            " This run keeps the sizes in MB on its {rtt} ms path (setup choice {}), so each \
             is a larger share of the BDP than in the main arm; a judged row at two BDPs or \
             more is outside the reading and not judged.",
            FIG7_RTT_SAME_MB.key
        )
    };
    // A size outside the reading is said to be so where the description
    // names it (the seventh review: "Headline 3 takes 4 MB (3.20 BDP)"
    // of a row not judged there).
    let judged_here = |rate: u64, mb: u64| {
        if past_two(rate, mb) {
            ", outside the reading here"
        } else {
            ""
        }
    };
    // Section V.A's default buffer is 16 MB: said only of a row run there.
    let default_16 = if moved(1_000_000_000, 16) {
        ""
    } else {
        "; section V.A's default buffer"
    };
    let mut e = Experiment::new(
        exp,
        "Goodput and receive-buffer starvation against the receive buffer, BBR and TCP-OR3, 100 Mbit/s and 1 Gbit/s (Figure 7)",
        &format!(
        "{rtt} ms RTT, {}% loss (Fig. 7 gives only the capacities; {main_rtt} ms and 1% are the real-world anchor's \
         path, docs/FIDELITY.md; setup choices {}, {} and fig7-plr), receive buffers from {lo:.2} to {hi:.2} \
         BDPs of this run's path (BDP = {:.2} MB at 100 Mbit/s, {:.1} MB at 1 Gbit/s). Starvation is measured \
         at the receiver (section III-B, \"buffer starving\"; rbb.starvation_s): the time during which a bubble sat at the \
         head of the receive buffer while the advertised window was exhausted (less than one \
         MSS of it above the highest byte held), as a share of the run; whatever OR3 sends past \
         that window is dropped there and does not end it. The paper's \"buffer insufficient \
         for TCP\" is read as below two BDPs of the {main_rtt} ms path (ours: 2 and 4 MB at 100 Mbit/s, 16 and 38 MB at \
         1 Gbit/s, the rows' nominal sizes; setup choice fig7-buffers scales them within that reading).{path_text} \
         Headline 3 takes {} at 100 Mbit/s ({:.2} BDP{}) and {} at 1 Gbit/s ({:.2} BDP{default_16}{}).",
            plr * 100.0,
            FIG7_RTT.key,
            FIG7_RTT_SAME_MB.key,
            bdp_mb(100_000_000),
            bdp_mb(1_000_000_000),
            named(100_000_000, 4),
            share(100_000_000, 4),
            judged_here(100_000_000, 4),
            named(1_000_000_000, 16),
            share(1_000_000_000, 16),
            judged_here(1_000_000_000, 16),
        ),
    );
    let mut cases = Vec::new();
    let mut counts = Vec::new();
    for (rate, sizes) in plan {
        for &mb in sizes {
            for s in [Scheme::Bbr, Scheme::Or3] {
                let mut c = Case::new(
                    format!(
                        "buf-{}m-{}mb-{}",
                        rate / 1_000_000,
                        size(rate, mb),
                        s.label()
                    ),
                    rate,
                    rtt,
                    plr,
                    s,
                );
                c.rcvbuf = bytes(rate, mb);
                c.duration = duration;
                cases.push(c);
                counts.push(if judged(rate, mb) { seeds } else { 1 });
            }
        }
    }
    // The explanation tested for a TCP-OR3 that does not beat BBR: the
    // segments opportunism sends past the receive window, which the
    // receiver discards whenever a hole below them is not filled in time.
    // Variant: TCP-OR3 without opportunism at 100 Mbit/s, 4 MB.
    let mut variant = Case::new(
        format!("buf-100m-{}mb-or3-noopp", size(100_000_000, 4)),
        100_000_000,
        rtt,
        plr,
        Scheme::Or3,
    );
    variant.rcvbuf = bytes(100_000_000, 4);
    variant.duration = duration;
    variant.or3.opportunism = false;
    cases.push(variant);
    // Ours: opportunism whose extension is capped by the receiver's free
    // buffer space (`overbooking = "free-buffer"`), at the two headline
    // points (100 Mbit/s, 4 MB; 1 Gbit/s, 16 MB).
    for (rate, mb) in [(100_000_000u64, 4u64), (1_000_000_000, 16)] {
        let mut c = Case::new(
            format!("buf-{}m-{}mb-or3-freebuf", rate / 1_000_000, size(rate, mb)),
            rate,
            rtt,
            plr,
            Scheme::Or3,
        );
        c.rcvbuf = bytes(rate, mb);
        c.duration = duration;
        c.or3.overbooking = Overbooking::FreeBuffer;
        cases.push(c);
    }
    // The explanation tested for Headline 3's goodput row (1 Gbit/s,
    // 16 MB) when TCP-OR3 does not beat BBR there: the cause tested at
    // 100 Mbit/s, opportunism's discarded segments, by TCP-OR3 without
    // opportunism against the same BBR runs. (The loss rate, which Figure
    // 7 does not give, is a setup choice, `fig7-plr`, not an
    // explanation.) Runs of 1 Gbit/s, so at the scales that run the
    // costly variants (`variants`: at the default they would add 3.9 M
    // packets).
    let tested_1g = variants(ctx);
    if tested_1g {
        let at_16mb = |variant: &str| {
            let mut c = Case::new(
                format!("buf-1000m-{}mb-or3-{variant}", size(1_000_000_000, 16)),
                1_000_000_000,
                rtt,
                plr,
                Scheme::Or3,
            );
            c.rcvbuf = bytes(1_000_000_000, 16);
            c.duration = duration;
            c
        };
        let mut c = at_16mb("noopp");
        c.or3.opportunism = false;
        cases.push(c);
        // Opportunism's two parts apart (issue 33's review): no new data
        // past the window, the retransmissions beyond cwnd kept.
        let mut c = at_16mb("nopastwin");
        c.or3.overbooking = Overbooking::Off;
        cases.push(c);
    }
    // The variants pushed after the sizes run every seed.
    counts.resize(cases.len(), seeds);
    let mut runs = run_each(ctx, exp, &cases, &counts)?;
    let (noopp_1g, nopast_1g) = if tested_1g {
        let nopast = runs.pop().expect("TCP-OR3 sending nothing past the window");
        (
            runs.pop().expect("TCP-OR3 without opportunism at 1 Gbit/s"),
            nopast,
        )
    } else {
        (vec![], vec![])
    };
    let free_1g = runs.pop().expect("the free-buffer variant at 1 Gbit/s");
    let free_100m = runs.pop().expect("the free-buffer variant at 100 Mbit/s");
    let noopp = runs.pop().expect("the variant");
    let minus =
        |a: &[f64], b: &[f64]| -> Vec<f64> { a.iter().zip(b).map(|(x, y)| y - x).collect() };
    // What `opportunism = false` turns off is the whole of it
    // (recovery/opportunistic.rs, `Opportunistic::or3`): the segments sent
    // past the receive window and the lost segments retransmitted beyond
    // cwnd. Without it the copies of redundancy are few (the variant's own
    // diagnosis, in its row), so the variant is close to plain BBR; the
    // row says so rather than name one of the two parts as the cause
    // (issue 33's review of the OR3 paper).
    let opp_cause = "what opportunism costs, both of its parts (the segments it sends past the \
                     receive window, which the receiver discards while a hole below them is \
                     unfilled, and its retransmissions of lost segments beyond cwnd), hiding \
                     the advantage of the rest of TCP-OR3";
    let opp_how = "TCP-OR3 without opportunism (both parts off; redundancy kept, which then \
                   sends few copies, so the variant is close to plain BBR; same seeds)";
    let mut i = 0;
    let mut at_bdp = vec![];
    for (rate, sizes) in plan {
        let gbit = rate >= 1_000_000_000;
        let cap = rate as f64 / 1e6;
        let tag = if gbit { "fig7b" } else { "fig7a" };
        for &mb in sizes {
            let (bbr, or3) = (&runs[i], &runs[i + 1]);
            // The rows' texts give the size run; the ids the nominal one.
            let mbt = size(rate, mb);
            i += 2;
            e.row(
                format!(
                    "{} Mbit/s, {mbt} MB: goodput BBR / TCP-OR3, Mbit/s (seed 1); starved share at the receiver",
                    rate / 1_000_000
                ),
                format!(
                    "{:.1} / {:.1}; {:.3} / {:.3}",
                    mbps(&bbr[0]),
                    mbps(&or3[0]),
                    starved(&bbr[0]),
                    starved(&or3[0])
                ),
                "TCP-OR3 above TCP, less starved",
            );
            if !judged(rate, mb) {
                continue;
            }
            let (gb, go) = (col(bbr, mbps), col(or3, mbps));
            let (sb, so) = (col(bbr, starved), col(or3, starved));
            let variant_here = !gbit && mb == 4;
            let measured = format!(
                "{}; TCP-OR3's segments past the window (means per run): {}",
                diagnosis(or3),
                discards(or3),
            );
            let free = match (gbit, mb) {
                (false, 4) => Some(&free_100m),
                (true, 16) => Some(&free_1g),
                _ => None,
            };
            if let Some(fr) = free {
                e.row(
                    format!("{} Mbit/s, {mbt} MB: TCP-OR3's segments past the window, means per run (paper's overbooking, \"released\")", rate / 1_000_000),
                    discards(or3),
                    "",
                );
                e.row(
                    format!("{} Mbit/s, {mbt} MB: the same with the extension capped by the receiver's free buffer (variant, \"free-buffer\")", rate / 1_000_000),
                    discards(fr),
                    "",
                );
                e.row(
                    format!("{} Mbit/s, {mbt} MB: goodput Mbit/s and starved share, TCP-OR3 released / free-buffer (means over seeds)", rate / 1_000_000),
                    format!(
                        "{:.1} / {:.1}; {:.3} / {:.3}",
                        mean(&col(or3, mbps)),
                        mean(&col(fr, mbps)),
                        mean(&col(or3, starved)),
                        mean(&col(fr, starved))
                    ),
                    "",
                );
            }
            // Goodput, TCP-OR3 against BBR.
            let id = format!("{tag}-or3-above-bbr-{mb}mb");
            let head_goodput = gbit && mb == 16;
            let statement = if head_goodput {
                format!("Headline 3: \"TCP-OR3 achieves a significant advantage over TCP in goodput\" (Fig. 7(b), V.B; 1 Gbit/s, {mbt} MB, insufficient for TCP; ours: TCP-OR3 - BBR, Mbit/s, same seed; judged by sign: the paper gives no size for \"significant\")")
            } else {
                format!("Fig. 7, V.B: with a receive buffer insufficient for TCP, TCP-OR3's goodput is above TCP's ({} Mbit/s, {mbt} MB; ours: TCP-OR3 - BBR, Mbit/s, same seed)", rate / 1_000_000)
            };
            let up = Expect::Order {
                paper_positive: true,
            };
            // What each 1 Gbit/s variant does to goodput on the same seeds
            // (TCP-OR3 - the variant), for Headline 3's row and their own.
            let (opp_effect, past_effect) = if head_goodput && tested_1g {
                let effect = |runs: &[RunResults]| {
                    summary_text(&summarize(&minus(&col(runs, mbps), &go), false, &id))
                };
                (effect(&noopp_1g), effect(&nopast_1g))
            } else {
                Default::default()
            };
            let c = if variant_here {
                claim_tested(
                    exp,
                    &id,
                    &statement,
                    up,
                    &minus(&gb, &go),
                    &minus(&gb, &col(&noopp, mbps)),
                    opp_cause,
                    opp_how,
                    &measured,
                )
            } else if head_goodput && tested_1g {
                // What opportunism does to goodput on the same seeds,
                // whichever way the test goes, and what the variant's runs
                // did: how close to plain BBR it is.
                let variant_runs = diagnosis(&noopp_1g).replacen(
                    "measured in the same runs",
                    "the variant's runs",
                    1,
                );
                // The two variants differ only by the retransmissions
                // beyond cwnd; when every seed's run is the same, that part
                // never came into play (the 16 MB window, below BBR's cwnd
                // here, keeps pipe under cwnd), which the row says: it
                // decides what the second variant can show (measured at
                // --full, 2026-12-05: the same on all 10 seeds).
                let same_runs = noopp_1g.len() == nopast_1g.len()
                    && noopp_1g.iter().zip(&nopast_1g).all(|(a, b)| {
                        let (x, y) = (first(a), first(b));
                        (x.segments_sent, x.retransmissions) == (y.segments_sent, y.retransmissions)
                            && x.goodput_bps == y.goodput_bps
                    });
                let same = if same_runs {
                    " (the same runs as without opportunism on every seed: segments sent, \
                     retransmissions and goodput; the retransmissions beyond cwnd, which only \
                     this variant keeps, changed nothing, so the part past the window is all \
                     of opportunism's effect here)"
                } else {
                    ""
                };
                let c = Claim::measured(
                    PAPER,
                    exp,
                    &id,
                    &statement,
                    up,
                    summarize(&minus(&gb, &go), false, &id),
                    "",
                );
                let both = c.on(summarize(&minus(&gb, &col(&noopp_1g, mbps)), false, &id));
                let past = c.on(summarize(&minus(&gb, &col(&nopast_1g, mbps)), false, &id));
                c.explained_by(|c| {
                    variants_explanation(
                        c,
                        &[
                            (opp_cause, opp_how, both),
                            (
                                "the segments opportunism sends past the receive window \
                                 alone, which the receiver discards while a hole below them \
                                 is unfilled",
                                "TCP-OR3 with overbooking = \"off\" (nothing past the \
                                 window; lost segments still retransmitted beyond cwnd; same \
                                 seeds)",
                                past,
                            ),
                        ],
                        &format!(
                            "opportunism's effect on the same seeds (TCP-OR3 - TCP-OR3 \
                             without opportunism, Mbit/s): {opp_effect}: without it the deficit \
                             goes, and the paper's advantage does not come; the part past the \
                             window alone (TCP-OR3 - TCP-OR3 with overbooking = \"off\", \
                             Mbit/s): {past_effect}{same}; {variant_runs}; BBR's runs: {}; \
                             TCP-OR3's {measured}",
                            diagnosis(bbr).replacen("measured in the same runs ", "", 1)
                        ),
                    )
                })
            } else {
                claim(exp, &id, &statement, up, &minus(&gb, &go), &measured)
            };
            let c = outside(c, rate, mb);
            e.claims.push(if head_goodput { c.headline() } else { c });
            if head_goodput && tested_1g {
                // Shown whatever the row's verdict, which asks for the
                // explanation only when it differs.
                for (what, them, runs, effect) in [
                    (
                        "TCP-OR3 without opportunism (variant)",
                        "TCP-OR3 without opportunism",
                        &noopp_1g,
                        &opp_effect,
                    ),
                    (
                        "TCP-OR3 with overbooking = \"off\" (variant: nothing past the window, retransmissions beyond cwnd kept)",
                        "it",
                        &nopast_1g,
                        &past_effect,
                    ),
                ] {
                    e.row(
                        format!("{} Mbit/s, {mbt} MB: {what}, goodput Mbit/s and starved share (means over seeds); TCP-OR3 - {them}, Mbit/s, same seed", rate / 1_000_000),
                        format!(
                            "{:.1}; {:.3}; {effect}",
                            mean(&col(runs, mbps)),
                            mean(&col(runs, starved)),
                        ),
                        "",
                    );
                }
            }
            // Starvation at the receiver, TCP-OR3 against BBR.
            let head_starved = variant_here;
            let id = if head_starved {
                "fig7a-or3-less-starvation".to_string()
            } else {
                format!("{tag}-or3-less-starvation-{mb}mb")
            };
            let statement = if head_starved {
                format!("Headline 3: \"TCP-OR3 alleviates receive buffer starvation\" (abstract, V.B; Fig. 7(a), 100 Mbit/s, {mbt} MB; ours: starved share of the run measured at the receiver, TCP-OR3 - BBR, same seed)")
            } else {
                format!("V.B: OR3 alleviates receive buffer starvation ({} Mbit/s, {mbt} MB; ours: starved share of the run measured at the receiver, TCP-OR3 - BBR, same seed)", rate / 1_000_000)
            };
            let down = Expect::Order {
                paper_positive: false,
            };
            let c = if variant_here {
                claim_tested(
                    exp,
                    &id,
                    &statement,
                    down,
                    &minus(&sb, &so),
                    &minus(&sb, &col(&noopp, starved)),
                    opp_cause,
                    opp_how,
                    &measured,
                )
            } else {
                claim(exp, &id, &statement, down, &minus(&sb, &so), &measured)
            };
            let c = outside(c, rate, mb);
            e.claims.push(if head_starved { c.headline() } else { c });
            if variant_here {
                e.row(
                    format!("100 Mbit/s, {mbt} MB: TCP-OR3 without opportunism (variant), goodput Mbit/s; starved share (seed 1)"),
                    format!("{:.1}; {:.3}", mbps(&noopp[0]), starved(&noopp[0])),
                    "",
                );
                // "Fills up the pipe": the capacity itself, so the row is
                // judged as a share of capacity (claims::near_capacity).
                let fill = near_capacity(cap, cap).expect("the capacity is near the capacity");
                e.claims.push(outside(
                    claim_tested(
                        exp,
                        "fig7a-or3-fills-pipe",
                        &format!("Headline 3: \"TCP-OR3 still fills up the pipe when the end-host's buffer size is insufficient for TCP\" (Fig. 7(a), V.B; 100 Mbit/s, {mbt} MB, {:.2} BDP; ours: TCP-OR3's goodput / capacity)", share(rate, mb)),
                        fill,
                        &col(or3, |r| mbps(r) / cap),
                        &col(&noopp, |r| mbps(r) / cap),
                        opp_cause,
                        opp_how,
                        &measured,
                    )
                    .headline(),
                    rate,
                    mb,
                ));
            }
            if (!gbit && mb == 4) || (gbit && mb == 38) {
                at_bdp.push((col(bbr, |r| mbps(r) / cap), col(or3, |r| mbps(r) / cap)));
            }
        }
    }
    // Headline 3's goodput row judges one of the two 1 Gbit/s sizes below
    // two BDPs (16 MB, section V.A's default buffer); Figure 7(b) shows
    // both, so the row says what the other gives (issue 33's review).
    let other = e
        .claims
        .iter()
        .find(|c| c.id == "fig7b-or3-above-bbr-38mb")
        .map(|c| {
            let which = format!(
                "the other 1 Gbit/s size the main arm judges, {} at {:.2} BDP (row \
                 fig7b-or3-above-bbr-38mb)",
                named(1_000_000_000, 38),
                share(1_000_000_000, 38),
            );
            // A row outside the reading has numbers but no verdict: there
            // is nothing for the two sizes to disagree on (the fifth
            // review).
            if super::setup::premise_exempt(c) && c.explanation.starts_with(OUTSIDE_READING) {
                let note = format!(
                    "{which}, is outside our reading of \"insufficient for TCP\" in this run \
                     and is not judged"
                );
                return (note, None);
            }
            let note = format!(
                "{which}, gives {}, {}",
                c.ours.as_ref().map(summary_text).unwrap_or_default(),
                c.verdict.name(),
            );
            (note, Some(c.verdict))
        });
    if let (Some((note, verdict)), Some(h)) = (
        other,
        e.claims
            .iter_mut()
            .find(|c| c.id == "fig7b-or3-above-bbr-16mb"),
    ) {
        h.append_explanation(match verdict {
            Some(v) if v != h.verdict => {
                format!("{note}: the verdict depends on which of Figure 7(b)'s buffers is judged")
            }
            _ => note,
        });
    }
    if let [(b100, o100), (b1g, o1g)] = &at_bdp[..] {
        let at = format!(
            "{} MB at 100 Mbit/s, {:.2} BDP; {} MB at 1 Gbit/s, {:.2} BDP",
            size(100_000_000, 4),
            share(100_000_000, 4),
            size(1_000_000_000, 38),
            share(1_000_000_000, 38)
        );
        // The rows' sizes as run, when the run moved either of them.
        let run_at = if moved(100_000_000, 4) || moved(1_000_000_000, 38) {
            format!("{} and {}", named(100_000_000, 4), named(1_000_000_000, 38))
        } else {
            String::new()
        };
        // The claim is made "in the case of receive buffer starvation"
        // (V.B): when either run it compares is outside the reading, so
        // is the row (the seventh review: under fig7-rtt-same-mb = 100
        // both are, 3.2 and 3.04 BDP, and the rows were still judged).
        let past: Vec<String> = [(100_000_000, 4), (1_000_000_000, 38)]
            .iter()
            .filter(|&&(rate, mb)| past_two(rate, mb))
            .map(|&(rate, mb)| format!("{} is {:.2} BDP", named(rate, mb), share(rate, mb)))
            .collect();
        let premise = |c: Claim| -> Claim {
            let c = c.setting(run_at.clone());
            if past.is_empty() {
                return c;
            }
            c.outside_reading(&past_reading(format!(
                "it compares the rows of nominal 4 and 38 MB, and {}",
                past.join(" and ")
            )))
        };
        e.claims.push(premise(order(exp, "fig7b-bbr-utilization-falls", &format!("Fig. 7(b), V.B: at 1 Gbit/s the bandwidth utilization of all schemes decreases significantly: BBR (ours: utilization in the rows of nominal 4 and 38 MB, about one BDP of the {main_rtt} ms path at the main arm's sizes, here {at}; 1 Gbit/s - 100 Mbit/s, same seed)"), b100, b1g, false, "")));
        e.claims.push(premise(order(exp, "fig7b-or3-utilization-falls", "Fig. 7(b), V.B: at 1 Gbit/s the bandwidth utilization of all schemes decreases significantly: TCP-OR3 (same measure)", o100, o1g, false, "")));
    }
    Ok(e)
}

// ---- Figure 8, in simulation: parallel CUBIC against one TCP-OR3 flow -------

fn versus_parallel(ctx: &Ctx) -> Result<Experiment, String> {
    let exp = "fig8";
    let mut e = Experiment::new(
        exp,
        "Parallel CUBIC against one TCP-OR3 flow on a 1 Gbit/s, 300 ms path (Figure 8, in simulation)",
        "The paper measured AWS London to Sydney through the Pantheon (about 1 Gbit/s and 300 ms, \
         60 s tests, real cross traffic). Here: the testbed path at 1 Gbit/s, 300 ms, with the \
         Cloud-L and Cloud loss ratios of Table I (0.05%, 0.5%), 16 MB buffers (section V.A's \
         default), 60 s; N parallel CUBIC connections (aggregate goodput) against one TCP-OR3 \
         flow, and one plain BBR flow (ours: the paper has no such arm), which tells OR3's \
         share of the difference from BBR's. No cross traffic: our model cannot express the \
         Pantheon path.",
    );
    let seeds = ctx.size(2, 3, 3, 10);
    let duration = ctx.pick(5, 60, 60) * SEC;
    let levels: Vec<u64> = if ctx.quick {
        vec![1, 8]
    } else {
        let top = ctx.choice_u64(&FIG8_LEVELS)?;
        std::iter::successors(Some(1u64), |n| Some(n * 2))
            .take_while(|&n| n <= top)
            .collect()
    };
    let mut cases = Vec::new();
    for plr in [0.0005, 0.005] {
        for &n in &levels {
            let mut c = Case::new(
                format!("f8-{plr}-cubic-x{n}"),
                1_000_000_000,
                300,
                plr,
                Scheme::Cubic,
            );
            c.connections = n;
            c.duration = duration;
            cases.push(c);
        }
        for s in [Scheme::Or3, Scheme::Bbr, Scheme::Or3] {
            let mut c = Case::new(
                format!("f8-{plr}-{}", s.label()),
                1_000_000_000,
                300,
                plr,
                s,
            );
            c.duration = duration;
            if cases.last().is_some_and(|l: &Case| l.scheme == Scheme::Bbr) {
                // Ours: TCP-OR3 whose extension is capped by the
                // receiver's free buffer (the variant tested below).
                c.id = format!("f8-{plr}-or3-freebuf");
                c.or3.overbooking = Overbooking::FreeBuffer;
            }
            cases.push(c);
        }
    }
    let runs = run_all(ctx, exp, &cases, seeds)?;
    let per = levels.len() + 3;
    for (k, plr) in [0.0005, 0.005].iter().enumerate() {
        let group = &runs[k * per..(k + 1) * per];
        let or3 = &group[levels.len()];
        let bbr = &group[levels.len() + 1];
        let freebuf = &group[levels.len() + 2];
        // The best parallelism level, chosen per seed after the fact: the
        // "optimal parallelism-level tuning" the paper compares with.
        let best: Vec<f64> = (0..seeds as usize)
            .map(|s| {
                group[..levels.len()]
                    .iter()
                    .map(|rs| mbps(&rs[s]))
                    .fold(0.0, f64::max)
            })
            .collect();
        e.row(
            format!(
                "plr {}%: aggregate goodput of CUBIC x N = {:?}, Mbit/s (seed 1)",
                plr * 100.0,
                levels
            ),
            group[..levels.len()]
                .iter()
                .map(|rs| format!("{:.0}", mbps(&rs[0])))
                .collect::<Vec<_>>()
                .join(", "),
            "below TCP-OR3 in most cases",
        );
        e.row(
            format!("plr {}%: TCP-OR3 goodput, Mbit/s (seed 1)", plr * 100.0),
            format!("{:.0}", mbps(&or3[0])),
            "above the best parallelism level",
        );
        // Headline 4's margin split in two on the same seeds: plain BBR
        // over the best level here, TCP-OR3 over plain BBR in the
        // fig8-or3-above-bbr row. A row of its own, with its interval,
        // since a reproduced claim carries no explanation (the OR3 paper's
        // third review, 2026-12-05: the page said the rows gave it).
        let bbr_over_best: Vec<f64> = col(bbr, mbps)
            .iter()
            .zip(&best)
            .map(|(b, x)| b - x)
            .collect();
        e.row(
            format!(
                "plr {}%: plain BBR (no OR3) goodput, Mbit/s (seed 1); BBR - best CUBIC x N per seed, Mbit/s, mean [95% CI]",
                plr * 100.0
            ),
            format!(
                "{:.0}; {}",
                mbps(&bbr[0]),
                summary_text(&summarize(&bbr_over_best, false, "fig8-bbr-over-parallel"))
            ),
            "(no such arm in the paper)",
        );
        // V.B: "the utilization gains of TCP-OR3 over TCP are mainly
        // stemming from its efficient loss recovery mechanism rather than
        // its congestion control": TCP-OR3 against the same BBR without OR3.
        e.claims.push(claim_tested(
            exp,
            &format!("fig8-or3-above-bbr-{plr}"),
            &format!("V.B: TCP-OR3's gains stem from its loss recovery rather than its congestion control: on Figure 8's path TCP-OR3 is above plain BBR (in simulation, plr {}%; ours: TCP-OR3 - BBR, Mbit/s, same seed)", plr * 100.0),
            Expect::Order { paper_positive: true },
            &gain_mbps(bbr, or3),
            &gain_mbps(bbr, freebuf),
            "the segments opportunism sends past the 16 MB receive window (less than half a BDP here), which the receiver discards",
            "TCP-OR3 with its extension capped by the receiver's free buffer (overbooking = \"free-buffer\", ours; same seeds)",
            &format!("{}; TCP-OR3's segments past the window (means per run): {}", diagnosis(or3), discards(or3)),
        ));
        // Both rows judge the same runs (TCP-OR3 against every level).
        let m = format!("{exp}/or3-against-parallel-{plr}");
        e.claims.push(order(exp, &format!("fig8-or3-beats-best-parallel-{plr}"), &format!("Headline 4: TCP-OR3 \"tackles the bottleneck of the legacy approaches such as parallel TCP\" (abstract; Fig. 8, V.B: \"TCP-OR3 enables a single stream to achieve even better performance than the optimal parallelism-level tuning\"; in simulation, plr {}%; ours: TCP-OR3 - best CUBIC x N per seed, Mbit/s)", plr * 100.0), &best, &col(or3, mbps), true, &format!("{}; the Pantheon path had cross traffic and varying RTT and loss, which our model does not have; plain BBR (no OR3) - best CUBIC x N on the same seeds: {} (issue 33's review: the margin is BBR's as much as OR3's, see fig8-or3-above-bbr-{plr})", diagnosis(or3), summary_text(&summarize(&bbr_over_best, false, "fig8-bbr-over-parallel")))).headline().measurement(m.clone()));
        let wins: Vec<f64> = (0..seeds as usize)
            .map(|s| {
                let o = mbps(&or3[s]);
                let n = group[..levels.len()]
                    .iter()
                    .filter(|rs| o > mbps(&rs[s]))
                    .count();
                n as f64 / levels.len() as f64
            })
            .collect();
        e.claims.push(claim(exp, &format!("fig8-or3-wins-most-{plr}"), &format!("Fig. 8, V.B: TCP-OR3 outperforms parallel TCP in most of the cases (in simulation, plr {}%; ours: share of the parallelism levels TCP-OR3 beats, per seed; paper: most, read as >= 0.5; the paper's \"cases\" are a month of Pantheon tests, ours the levels up to the 16-connection cap, setup choice fig8-levels)", plr * 100.0), Expect::AtLeast { paper: 0.5, band: Band::Absolute { d: 0.0 } }, &wins, &diagnosis(or3)).measurement(m));
    }
    Ok(e)
}

// ---- Section III-B: SACK blocks and lost ACKs -------------------------------

fn sack_ack_loss(ctx: &Ctx) -> Result<Experiment, String> {
    let exp = "sack";
    let mut e = Experiment::new(
        exp,
        "Spurious retransmissions from SACK information lost with ACKs (section III-B)",
        "Cloud (1 Gbit/s, 300 ms, 0.5%: many bubbles, so that the receiver's SACK blocks cannot \
         repeat every one), BBR, 256 MB buffer, bursts of lost ACKs on the return path (Gilbert-Elliott: a bad state entered once per 200 ACKs on average, 10 ACKs long, \
         every ACK in it lost). Spurious retransmissions are counted at the receiver's side: data \
         it already held when the retransmission left, split by whether an ACK that reported it \
         had been lost (spurious_after_ack_loss). 3 SACK blocks (with timestamps) against 4.",
    );
    let seeds = ctx.size(2, 3, 5, 10);
    let duration = ctx.pick(5, 30, 120) * SEC;
    let mut cases = Vec::new();
    for (blocks, ack_loss) in [(3u8, false), (3, true), (4, true)] {
        let mut c = Case::new(
            format!(
                "sack{blocks}-{}",
                if ack_loss { "ackloss" } else { "noackloss" }
            ),
            1_000_000_000,
            300,
            0.005,
            Scheme::Bbr,
        );
        c.rcvbuf = 256 * MB;
        c.duration = duration;
        c.ack_loss = ack_loss;
        c.sack_blocks = blocks;
        cases.push(c);
    }
    let runs = run_all(ctx, exp, &cases, seeds)?;
    let after_loss = |r: &RunResults| first(r).spurious_after_ack_loss as f64;
    for (c, rs) in cases.iter().zip(&runs) {
        e.row(
            format!(
                "{}: spurious retransmissions after ACK loss / all spurious (seed 1)",
                c.id
            ),
            format!(
                "{} / {}",
                first(&rs[0]).spurious_after_ack_loss,
                first(&rs[0]).spurious_retransmissions
            ),
            "more with ACK loss, more with fewer blocks",
        );
    }
    e.claims.push(order(exp, "sack-ack-loss-spurious", "III-B: when the successive ACKs reporting a SACK block are dropped, the sender unnecessarily retransmits that data (ours: spurious retransmissions after ACK loss, with bursty ACK loss - without, same seed)", &col(&runs[0], after_loss), &col(&runs[1], after_loss), true, &diagnosis(&runs[1])));
    e.claims.push(order(exp, "sack-fewer-blocks-more-spurious", "III-B: the Timestamp option leaves 3 SACK blocks instead of 4, fewer repetitions of each block, and spurious retransmissions become more serious under ACK burst loss (ours: 3 blocks - 4 blocks, same seed)", &col(&runs[2], after_loss), &col(&runs[1], after_loss), true, &diagnosis(&runs[1])));
    Ok(e)
}

/// Figures 1, 4 and 8 as the paper measured them: real paths.
fn pantheon() -> Experiment {
    let mut e = Experiment::new(
        "pantheon",
        "The Pantheon measurements (Figures 1, 4 and 8)",
        "Ten months of single flows and one month of London-Sydney tests on real paths.",
    );
    let why = "not measured: a measurement of real Internet paths (the Pantheon, cloud and cellular nodes in nine countries), which a simulator cannot make; docs/FIDELITY.md runs real Linux BBR on an emulated path of Table I's kind instead";
    e.claims.push(Claim::not_measured(PAPER, "pantheon", "fig1-typical-plr", "Fig. 1, III-A: typical loss ratios are 0.5% (cloud to cloud), 1% (end to cloud, Ethernet) and 3% (cellular)", Expect::Value { paper: 0.005, band: Band::Absolute { d: 0.0 } }, why));
    e.claims.push(Claim::not_measured(PAPER, "pantheon", "fig4-utilization-below-25", "Fig. 4, III-B: with 16 MB buffers TCP reaches less than 25% of 1 Gbit/s on cloud paths of 100-300 ms", Expect::Value { paper: 0.25, band: Band::SHARE }, why));
    e
}

#[cfg(test)]
mod tests {
    use super::super::claims::Verdict;
    use super::*;
    use losslab_sim::Simulation;

    fn run(c: &Case) -> RunResults {
        let mut sim = Simulation::new(&build(c, 1)).expect("a valid scenario");
        sim.run();
        sim.results()
    }

    /// A Figure 7 path of `rtt` ms holding the BDP share (fig7-rtt) or
    /// the MB (fig7-rtt-same-mb).
    fn path(rtt: u64, hold_share: bool) -> Fig7Path {
        Fig7Path { rtt, hold_share }
    }

    #[test]
    fn fig7_buffers_stay_within_the_reading() {
        // The main arm's sizes are the rows' own; every alternative keeps
        // each judged size below two BDPs at 300 ms (the reading of
        // "insufficient for TCP") and leaves the unjudged ones alone.
        let plan: [(u64, &[u64]); 2] = [
            (100_000_000, &[2, 4, 8, 16]),
            (1_000_000_000, &[16, 38, 75, 150]),
        ];
        let main = path(300, true);
        for (rate, sizes) in plan {
            let bdp = rate as f64 / 8.0 * 0.3;
            for &mb in sizes {
                assert_eq!(fig7_bytes(rate, mb, 1.0, main), mb * MB);
                assert_eq!(fig7_bytes(rate, mb, 1.0, path(300, false)), mb * MB);
                for alt in FIG7_BUFFERS.alternatives {
                    let b = fig7_bytes(rate, mb, alt.parse().unwrap(), main);
                    if fig7_judged(rate, mb) {
                        assert!((b as f64) < 2.0 * bdp, "{rate} {mb} x{alt}: {b}");
                    } else {
                        assert_eq!(b, mb * MB);
                    }
                }
            }
        }
        assert_eq!(fig7_bytes(100_000_000, 4, 1.75, main), 7 * MB);
    }

    /// The quick `buffers` experiment with one setup choice set.
    fn buffers_under(key: &str, value: &str) -> Experiment {
        let dir = tempfile::tempdir().unwrap();
        let ctx = Ctx {
            dir: dir.path().into(),
            overrides: vec![(key.into(), value.into())],
            ..Ctx::quick_for_tests()
        };
        buffers(&ctx).unwrap()
    }

    /// Under fig7-rtt = 100 every row runs at a third of its size, the
    /// main arm's share of the BDP, and is judged (the fifth review:
    /// Headline 3's 100 Mbit/s rows must be tested at every RTT; the
    /// sixth: scaling only some rows ran "4mb" below "2mb"); each claim
    /// and text gives the size run.
    #[test]
    fn buffers_at_100_ms_scale_every_row_and_say_what_ran() {
        let e = buffers_under("fig7-rtt", "100");
        let get = |id: &str| e.claims.iter().find(|c| c.id == id).unwrap();
        for (id, at) in [
            ("fig7a-or3-above-bbr-2mb", "0.67 MB (nominal 2 MB)"),
            ("fig7a-or3-above-bbr-4mb", "1.33 MB (nominal 4 MB)"),
            ("fig7a-or3-less-starvation", "1.33 MB (nominal 4 MB)"),
            ("fig7a-or3-fills-pipe", "1.33 MB (nominal 4 MB)"),
            ("fig7b-or3-above-bbr-16mb", "5.33 MB (nominal 16 MB)"),
            ("fig7b-or3-above-bbr-38mb", "12.67 MB (nominal 38 MB)"),
            ("fig7b-or3-less-starvation-38mb", "12.67 MB (nominal 38 MB)"),
        ] {
            let c = get(id);
            assert_ne!(c.verdict, Verdict::NotMeasured, "{id}");
            assert!(!c.explanation.starts_with(OUTSIDE_READING), "{id}");
            assert_eq!(c.setting, at, "{id}");
        }
        assert!(get("fig7a-or3-fills-pipe")
            .statement
            .contains("1.33 MB, 1.07 BDP"));
        assert!(get("fig7a-or3-less-starvation")
            .statement
            .contains("100 Mbit/s, 1.33 MB"));
        let note = &get("fig7b-or3-above-bbr-16mb").explanation;
        assert!(
            note.contains(
                "the other 1 Gbit/s size the main arm judges, 12.67 MB (nominal 38 MB) at 1.01 BDP"
            ),
            "{note}"
        );
        assert!(e.setup.starts_with("100 ms RTT, 1% loss"), "{}", e.setup);
        assert!(
            e.setup.contains(
                "the judged rows run at 0.67 MB (nominal 2 MB), 1.33 MB (nominal 4 MB), 5.33 MB \
                 (nominal 16 MB), 12.67 MB (nominal 38 MB)"
            ) && e.setup.contains(
                "Headline 3 takes 1.33 MB (nominal 4 MB) at 100 Mbit/s (1.07 BDP) and 5.33 MB \
                 (nominal 16 MB) at 1 Gbit/s (0.43 BDP)."
            ) && e
                .setup
                .contains("from 0.43 to 4.27 BDPs of this run's path")
                && !e.setup.contains("V.A"),
            "{}",
            e.setup
        );
        let util = get("fig7b-bbr-utilization-falls");
        assert!(
            util.statement
                .contains("here 1.33 MB at 100 Mbit/s, 1.07 BDP; 12.67 MB at 1 Gbit/s, 1.01 BDP"),
            "{}",
            util.statement
        );
        assert_eq!(
            util.setting,
            "1.33 MB (nominal 4 MB) and 12.67 MB (nominal 38 MB)"
        );
    }

    /// Under fig7-rtt-same-mb = 100 the sizes stay in MB: 4 and 38 MB,
    /// past two BDPs there, are outside the reading (exempt from the
    /// setup table's changes), 2 and 16 MB judged; no row moved, so no
    /// claim names a setting.
    #[test]
    fn buffers_at_100_ms_in_mb_leave_the_rows_past_two_bdps_unjudged() {
        let e = buffers_under("fig7-rtt-same-mb", "100");
        let get = |id: &str| e.claims.iter().find(|c| c.id == id).unwrap();
        for id in [
            "fig7a-or3-above-bbr-4mb",
            "fig7a-or3-less-starvation",
            "fig7a-or3-fills-pipe",
            "fig7b-or3-above-bbr-38mb",
            "fig7b-or3-less-starvation-38mb",
            "fig7b-bbr-utilization-falls",
            "fig7b-or3-utilization-falls",
        ] {
            let c = get(id);
            assert!(super::super::setup::premise_exempt(c), "{id}");
            assert!(
                c.explanation.contains("BDP of this run's 100 ms path"),
                "{id}: {}",
                c.explanation
            );
        }
        for id in ["fig7a-or3-above-bbr-2mb", "fig7b-or3-above-bbr-16mb"] {
            assert_ne!(get(id).verdict, Verdict::NotMeasured, "{id}");
        }
        assert!(e.claims.iter().all(|c| c.setting.is_empty()));
        assert!(
            e.setup.contains("keeps the sizes in MB on its 100 ms path")
                && e.setup.contains(
                    "Headline 3 takes 4 MB at 100 Mbit/s (3.20 BDP, outside the reading here) \
                     and 16 MB at 1 Gbit/s (1.28 BDP; section V.A's default buffer)."
                )
                && e.setup.contains("section V.A's default buffer"),
            "{}",
            e.setup
        );
        let note = &get("fig7b-or3-above-bbr-16mb").explanation;
        assert!(
            note.contains("38 MB at 3.04 BDP") && note.contains("is outside our reading"),
            "{note}"
        );
    }

    /// The two RTT keys are two readings of one parameter: setting both
    /// is refused, naming them.
    #[test]
    fn both_rtt_keys_at_once_are_refused() {
        let ctx = Ctx {
            overrides: vec![
                ("fig7-rtt".into(), "200".into()),
                ("fig7-rtt-same-mb".into(), "100".into()),
            ],
            ..Ctx::quick_for_tests()
        };
        let err = Fig7Path::of(&ctx).unwrap_err();
        assert!(err.contains("fig7-rtt and fig7-rtt-same-mb"), "{err}");
        assert_eq!(FIG7_RTT.value, FIG7_RTT_SAME_MB.value);
    }

    /// A fig7-buffers set by hand past the reading's bound leaves the rows
    /// past two BDPs unjudged, with their numbers, and says why; the
    /// headline row's note says the other size is not judged, and the
    /// utilization rows name the sizes they measure.
    #[test]
    fn buffers_past_the_bound_leave_the_rows_past_two_bdps_unjudged() {
        let e = buffers_under("fig7-buffers", "2.5");
        let get = |id: &str| e.claims.iter().find(|c| c.id == id).unwrap();
        // 10 MB of 3.75 (2.67 BDP) and 95 MB of 37.5 (2.53 BDP).
        for id in [
            "fig7a-or3-above-bbr-4mb",
            "fig7a-or3-less-starvation",
            "fig7a-or3-fills-pipe",
            "fig7b-or3-above-bbr-38mb",
            "fig7b-or3-less-starvation-38mb",
        ] {
            let c = get(id);
            assert_eq!(c.verdict, Verdict::NotMeasured, "{id}");
            assert!(
                c.explanation.starts_with(OUTSIDE_READING)
                    && c.explanation.contains("BDP of this run's 300 ms path"),
                "{id}: {}",
                c.explanation
            );
            assert!(c.ours.is_some(), "{id} keeps its numbers");
        }
        assert!(get("fig7a-or3-fills-pipe").headline);
        // The utilization rows compare the 10 MB run (2.67 BDP): outside
        // the reading with it.
        for id in ["fig7b-bbr-utilization-falls", "fig7b-or3-utilization-falls"] {
            assert!(super::super::setup::premise_exempt(get(id)), "{id}");
        }
        for id in ["fig7b-or3-above-bbr-16mb", "fig7a-or3-above-bbr-2mb"] {
            assert_ne!(get(id).verdict, Verdict::NotMeasured, "{id}");
        }
        let note = &get("fig7b-or3-above-bbr-16mb").explanation;
        assert!(
            note.contains("95 MB (nominal 38 MB) at 2.53 BDP")
                && note.contains("is outside our reading")
                && !note.contains("depends"),
            "{note}"
        );
        let util = get("fig7b-bbr-utilization-falls");
        assert!(
            util.statement.contains("rows of nominal 4 and 38 MB")
                && util
                    .statement
                    .contains("here 10 MB at 100 Mbit/s, 2.67 BDP"),
            "{}",
            util.statement
        );
    }

    #[test]
    fn fig7_rtt_keys_hold_the_share_or_the_mb_on_every_row() {
        // Hand-worked: BDP at 100 ms is 1.25 MB at 100 Mbit/s and 12.5 MB
        // at 1 Gbit/s; at 200 ms 2.5 and 25 MB. Holding the share, every
        // row runs at size x RTT / 300 ms; holding the MB, at 100 ms 4 and
        // 38 MB are 3.2 and 3.04 BDP.
        let judged = [
            (100_000_000, 2),
            (100_000_000, 4),
            (1_000_000_000, 16),
            (1_000_000_000, 38),
        ];
        let at = |p: Fig7Path| -> Vec<f64> {
            judged
                .iter()
                .map(|&(rate, mb)| (fig7_share(rate, mb, 1.0, p) * 100.0).round() / 100.0)
                .collect()
        };
        for rtt in [300, 200, 100] {
            assert_eq!(at(path(rtt, true)), [0.53, 1.07, 0.43, 1.01], "{rtt}");
        }
        assert_eq!(at(path(200, false)), [0.8, 1.6, 0.64, 1.52]);
        assert_eq!(at(path(100, false)), [1.6, 3.2, 1.28, 3.04]);
        assert_eq!(fig7_bytes(100_000_000, 4, 1.0, path(100, true)), 1_333_333);
        assert_eq!(fig7_bytes(1_000_000_000, 75, 1.0, path(100, true)), 25 * MB);
        // No cliff and no crossing: at any RTT either way, each rate's rows
        // run in the order of their nominal sizes (the sixth review: the
        // fifth's rule ran "4mb" below "2mb" at 100 ms and jumped between
        // 160 and 161 ms).
        for hold in [true, false] {
            for rtt in (20..=400).step_by(1) {
                for (rate, sizes) in [
                    (100_000_000u64, [2u64, 4, 8, 16]),
                    (1_000_000_000, [16, 38, 75, 150]),
                ] {
                    let run: Vec<u64> = sizes
                        .iter()
                        .map(|&mb| fig7_bytes(rate, mb, 1.0, path(rtt, hold)))
                        .collect();
                    assert!(run.windows(2).all(|w| w[0] < w[1]), "{rtt} {hold} {run:?}");
                }
            }
        }
        assert_eq!(
            [1_333_333, 3_500_000, 7 * MB, 12_666_667, 66_500_000].map(mb_text),
            ["1.33", "3.5", "7", "12.67", "66.5"]
        );
        assert_eq!(FIG7_RTT.alternatives, ["200", "100"]);
        assert_eq!(FIG7_RTT_SAME_MB.alternatives, ["200", "100"]);
        for alt in FIG7_BUFFERS.alternatives {
            let scale: f64 = alt.parse().unwrap();
            for &(rate, mb) in &judged {
                assert!(
                    fig7_share(rate, mb, scale, path(300, true)) < 2.0,
                    "{rate} {mb} x{alt}"
                );
            }
        }
    }

    /// Every scheme under every HZ of the setup choice can be exported
    /// (`--export` writes each run's scenario).
    #[test]
    fn every_setup_choice_exports() {
        for s in [Scheme::Cubic, Scheme::Bbr, Scheme::Or3] {
            for hz in [250, 1000, 100] {
                let mut c = case(0.03, 16 * MB, s);
                c.hz = hz;
                for legacy in [None, Some(Legacy::TsecrSamples), Some(Legacy::RfcEstimator)] {
                    c.legacy = legacy;
                    let sc = build(&c, 1);
                    let text = losslab_sim::emit::to_toml(&sc)
                        .unwrap_or_else(|e| panic!("{s:?} hz {hz} {legacy:?}: {e}"));
                    assert!(
                        losslab_sim::parse::parse_scenario("or3.toml", &text, &[]).is_ok(),
                        "{text}"
                    );
                }
            }
        }
    }

    fn case(plr: f64, rcvbuf: u64, scheme: Scheme) -> Case {
        let mut c = Case::new("t".into(), 100_000_000, 300, plr, scheme);
        c.rcvbuf = rcvbuf;
        c.duration = 10 * SEC;
        c
    }

    /// Each metric a headline row judges can land on either side of its
    /// row's band: the rows are measurements, not constants of the model.
    #[test]
    fn headline_metrics_take_both_sides() {
        // Starvation at the receiver (headlines 1 and 3): a 2 MB buffer
        // (half a BDP) with 1% loss starves, with BBR and with TCP-OR3;
        // 256 MB never fills, and neither does a lossless small buffer.
        for s in [Scheme::Bbr, Scheme::Or3] {
            let small = run(&case(0.01, 2 * MB, s));
            assert!(starved(&small) > 0.05, "{s:?}: {}", starved(&small));
            let ample = run(&case(0.01, 256 * MB, s));
            assert_eq!(starved(&ample), 0.0, "{s:?}");
        }
        let lossless = run(&case(0.0, 2 * MB, Scheme::Bbr));
        assert_eq!(starved(&lossless), 0.0);
        // Bubbles (headline 1) and k_max (headline 2): none without loss.
        let lossy = run(&case(0.03, 256 * MB, Scheme::Bbr));
        assert!(rbb_mean(&lossy) >= 1.0 && kmax(&lossy) >= 1.0);
        // Lossless also at the bottleneck: a queue of two BDPs, which
        // BBR's startup does not overflow.
        let deep = |s| Case {
            queue: 75 * MB,
            ..case(0.0, 256 * MB, s)
        };
        let clean = run(&deep(Scheme::Bbr));
        assert_eq!((rbb_mean(&clean), kmax(&clean)), (0.0, 0.0));
        // Goodput as a share of capacity (headline 3's "fills up the
        // pipe", band 1 +- 0.10): inside without loss and with an ample
        // buffer, below it with a small buffer and loss.
        let share = |r: &RunResults| mbps(r) / 100.0;
        // At 30 ms (Table I's Cellular RTT) over 60 s: at 300 ms BBR's
        // startup and probing keep even a lossless run near 0.87.
        let full = Case {
            rtt_ms: 30,
            duration: 60 * SEC,
            ..deep(Scheme::Or3)
        };
        assert!(share(&run(&full)) >= 0.9, "{}", share(&run(&full)));
        assert!(share(&run(&case(0.01, 2 * MB, Scheme::Or3))) < 0.9);
    }
}
