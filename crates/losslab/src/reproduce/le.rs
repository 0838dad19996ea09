//! The LE paper (../shared/papers/le-transmission-order.txt, "a new loss
//! recovery architecture that keeps the packet transmission order"):
//! LE's loss recovery ability against Reno, NewReno, SACK and FACK
//! (Figure 4), its fairness with SACK (Figure 5), its throughput under
//! random loss with AIMD, a fixed window and Westwood (Figure 6), and the
//! Linux testbed of section 5 redone in simulation (Figure 9).
//!
//! The paper's ns-2 agents map onto our algorithms in one place,
//! `apply`; every experiment's setup text repeats the mapping. Which
//! statement each claim tests is in the claim's own text (section and
//! quote); docs/REPRODUCTIONS.md has the table.
//!
//! The paper gives no link rates or delays for its dumbbell (Figure 3) or
//! its testbed's link; the choices and their reasons are in each setup.

use losslab_core::cc::{Avoidance, SlowStart};
use losslab_core::config::RtoFormula;
use losslab_core::detect::LeOrder;
use losslab_core::recovery::NewRenoVariant;
use losslab_core::time::{Time, MS, SEC};
use losslab_sim::results::RunResults;
use losslab_sim::scenario::{
    AckSpec, CcSpec, DropSpec, FlowSpec, LossModel, PathSpec, QueueLimit, ReverseSpec, Scenario,
};
use losslab_sim::stats::{summarize, Summary};

use super::claims::{
    paired_relative, untested, variant_explanation, Band, Claim, Expect, UNTESTED,
};
use super::common::{par_map, path, scenario, Gen};
use super::setup::Choice;
use super::{Ctx, Experiment, PaperResult};

const PAPER: &str = "le";

/// A loss recovery of the paper (its ns-2 agents and LE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scheme {
    Reno,
    NewReno,
    Sack,
    Fack,
    Le,
}

const SCHEMES: [Scheme; 5] = [
    Scheme::Reno,
    Scheme::NewReno,
    Scheme::Sack,
    Scheme::Fack,
    Scheme::Le,
];

impl Scheme {
    fn label(self) -> &'static str {
        match self {
            Scheme::Reno => "reno",
            Scheme::NewReno => "newreno",
            Scheme::Sack => "sack",
            Scheme::Fack => "fack",
            Scheme::Le => "le",
        }
    }
    fn title(self) -> &'static str {
        match self {
            Scheme::Reno => "Reno",
            Scheme::NewReno => "NewReno",
            Scheme::Sack => "SACK",
            Scheme::Fack => "FACK",
            Scheme::Le => "LE",
        }
    }
}

/// Which senders stand for the paper's: the one place they are chosen.
/// Figures 4-6 read the setup choice `le-agents`, Figure 9 `fig9-senders`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Agents {
    /// ns-2.35's agents with their defaults (Figures 4-6, the main arm):
    /// Reno with `bug_fix_` (`ns2-reno`), NewReno with
    /// `newreno_changes1_ = 1` (the impatient timer), Sack1 itself
    /// (`ns2-sack1`), limited transmit (`singledup_ = 1`).
    Ns2,
    /// The same without limited transmit (`singledup_ = 0`).
    Ns2NoLimitedTransmit,
    /// Our RFC agents: RFC 5681 Reno, RFC 6582 NewReno (slow-but-steady),
    /// RFC 3517 SACK, RFC 3042 limited transmit.
    Rfc,
    /// Linux 2.6.17's senders (Figure 9, the main arm): SACK and FACK
    /// recover by rate-halving (tcp_cwnd_down(), Linux's until 3.2), with
    /// lost-retransmission detection and DSACK undo, as 2.6-era Linux had.
    Linux2617,
    /// Figure 9 with RFC 3517 / RFC 6675 recovery, the two features on.
    LinuxRfc,
    /// Figure 9 as it ran before issue 29: RFC recoveries, the two
    /// features off.
    LinuxRfcNoUndo,
}

impl Agents {
    fn of_ns2(v: &str) -> Result<Agents, String> {
        match v {
            "ns2" => Ok(Agents::Ns2),
            "ns2-no-limited-transmit" => Ok(Agents::Ns2NoLimitedTransmit),
            "rfc" => Ok(Agents::Rfc),
            _ => Err(format!("setup choice le-agents: unknown {v:?}")),
        }
    }
    fn of_linux(v: &str) -> Result<Agents, String> {
        match v {
            "linux-2.6.17" => Ok(Agents::Linux2617),
            "rfc" => Ok(Agents::LinuxRfc),
            "rfc-no-undo" => Ok(Agents::LinuxRfcNoUndo),
            _ => Err(format!("setup choice fig9-senders: unknown {v:?}")),
        }
    }
}

/// The paper's agents as our keys (`Agents` says which stand for them).
///
/// ns-2's agents neither detect a lost retransmission before the RTO nor
/// undo on DSACK, so those two are off for them; Linux 2.6.17 had both.
/// LE finds a lost retransmission by its timestamps (2.2.1), sends on the
/// first duplicate ACKs by its own rule (2.2.4's proof), and takes the
/// order an ACK answers from the echoed transmission order, the paper's
/// per-packet timestamps (2.2.1; [flow.le] order = "echo"), in every arm.
/// FACK is Linux's FACK detection with `rfc6675` in ns-2's experiments
/// and with rate-halving in Linux 2.6.17's. ns-2's FACK agent is not
/// modelled: tcp-fack.cc enters recovery with slowdown(CLOSE_SSTHRESH_HALF
/// | CLOSE_CWND_RESTART), cwnd = 1 (wnd_restart_), and slow-starts it
/// during the recovery; ours halves it at once (docs/ALGORITHMS.md).
fn apply(s: Scheme, a: Agents, f: &mut FlowSpec) {
    let ns2 = matches!(a, Agents::Ns2 | Agents::Ns2NoLimitedTransmit);
    let (detection, recovery, sack) = match (s, a) {
        (Scheme::Le, _) => ("le", "le", true),
        (Scheme::Reno, _) if ns2 => ("dupthresh", "ns2-reno", false),
        (Scheme::Reno, _) => ("dupthresh", "reno", false),
        (Scheme::NewReno, _) => ("dupthresh", "newreno", false),
        (Scheme::Sack, _) if ns2 => ("ns2-sack1", "ns2-sack1", true),
        (Scheme::Sack, Agents::Linux2617) => ("dupthresh", "rate-halving-linux-2.6.17", true),
        (Scheme::Sack, _) => ("dupthresh", "rfc3517", true),
        (Scheme::Fack, Agents::Linux2617) => ("fack", "rate-halving-linux-2.6.17", true),
        (Scheme::Fack, _) => ("fack", "rfc6675", true),
    };
    f.detection = detection.into();
    f.recovery = recovery.into();
    f.receiver.sack_blocks = if sack { 3 } else { 0 };
    if ns2 && s == Scheme::NewReno {
        f.newreno_variant = NewRenoVariant::Impatient;
    }
    if matches!(
        a,
        Agents::Linux2617 | Agents::LinuxRfc | Agents::LinuxRfcNoUndo
    ) {
        // 2.6.17's tcp_slow_start() with tcp_abc = 0: one segment per
        // ACK, for every scheme on the testbed (issue 32; by segments
        // acked before it), and tcp_reno_cong_avoid()'s one segment per
        // cwnd + 1 ACKs in congestion avoidance (issue 32's fifth step;
        // by segments acked before it).
        f.slow_start = SlowStart::PerAck;
        f.avoidance = Avoidance::PerAck;
    }
    if s == Scheme::Le {
        f.le_order = LeOrder::Echo;
    } else {
        let linux_features = matches!(a, Agents::Linux2617 | Agents::LinuxRfc);
        f.lost_retransmission_detection = linux_features;
        f.dsack_undo = linux_features;
        f.limited_transmit = a != Agents::Ns2NoLimitedTransmit;
    }
}

/// ns-2.35's retransmission timer and initial window on a flow of the
/// ns-2 experiments (`Timers::apply`), as the setup choice `ns2-timers`
/// says: "ns2" is
/// ns-2's RTO, max(minrto_ = 200 ms, SRTT + 4 RTTVAR) computed in
/// tcpTick_ = 10 ms ticks (tcp.cc rtt_timeout(); RFC 6298's formula with
/// that floor and clock), and windowInit_ = 2; "linux" leaves our
/// defaults (Linux's formula, exact timers, initial window 10: the
/// mapping before issue 29); "rfc6298" is RFC 6298 with its 1 s floor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Timers {
    Ns2,
    Linux,
    Rfc6298,
}

impl Timers {
    fn of(v: &str) -> Result<Timers, String> {
        match v {
            "ns2" => Ok(Timers::Ns2),
            "linux" => Ok(Timers::Linux),
            "rfc6298" => Ok(Timers::Rfc6298),
            _ => Err(format!("setup choice ns2-timers: unknown {v:?}")),
        }
    }
    fn apply(self, f: &mut FlowSpec) {
        match self {
            Timers::Ns2 => {
                f.rto_formula = RtoFormula::Rfc6298;
                f.min_rto = 200 * MS;
                f.timer_hz = 100;
                f.init_cwnd = 2;
            }
            Timers::Linux => {}
            Timers::Rfc6298 => {
                f.rto_formula = RtoFormula::Rfc6298;
                f.min_rto = SEC;
            }
        }
    }
}

/// The mapping as each experiment's setup text states it.
fn mapping(a: Agents) -> String {
    let ns2 = "The paper's ns-2.35 agents with their defaults (the main arm): Reno = ns-2's Reno \
        with bug_fix_ (recovery ns2-reno: one fast retransmit per window of data, no SACK); \
        NewReno = recovery newreno with ns-2's newreno_changes1_ = 1 (the impatient timer), no \
        SACK; SACK = ns-2's Sack1 itself (detection and recovery ns2-sack1); FACK = detection \
        fack with recovery rfc6675, Linux's FACK, not ns-2's agent (which restarts cwnd at 1 and \
        slow-starts it during recovery: tcp-fack.cc, CLOSE_CWND_RESTART; not modelled); LE = \
        detection le, recovery le, SACK on, the order an ACK answers \
        echoed by the receiver as the paper's per-packet timestamps are (2.2.1; [flow.le] order \
        echo). Limited transmit for all (ns-2's singledup_ = 1); the four ns-2 agents neither \
        detect lost retransmissions early nor undo on DSACK, so those are off for them. Timers \
        and initial window as the setup choice ns2-timers says (main arm: ns-2's RTO, \
        max(200 ms, SRTT + 4 RTTVAR) in 10 ms ticks, and windowInit_ 2).";
    let tail = " Receivers acknowledge every segment (ns-2's TCPSink: quick ACKs).";
    match a {
        Agents::Ns2 => format!("{ns2}{tail}"),
        Agents::Ns2NoLimitedTransmit => {
            format!("{ns2} Setup variant: no limited transmit for the four (singledup_ = 0).{tail}")
        }
        Agents::Rfc => format!(
            "Setup variant, our RFC agents: Reno = recovery reno (RFC 5681), NewReno = recovery \
             newreno slow-but-steady (RFC 6582), SACK = recovery rfc3517 with dupthresh, FACK = \
             fack + rfc6675, LE as in the main arm; RFC 3042 limited transmit for all.{tail}"
        ),
        Agents::Linux2617 | Agents::LinuxRfc | Agents::LinuxRfcNoUndo => {
            let rec = match a {
                Agents::Linux2617 => {
                    "rate-halving recovery (2.6.17's tcp_cwnd_down() on every Recovery ACK, \
                    rate-halving-linux-2.6.17) for SACK (dupthresh) and FACK (fack), with \
                    lost-retransmission detection and DSACK undo, as 2.6-era Linux had"
                }
                Agents::LinuxRfc => {
                    "setup variant: RFC 3517 recovery for SACK and RFC 6675 for \
                    FACK, with lost-retransmission detection and DSACK undo"
                }
                _ => {
                    "setup variant, as before issue 29: RFC 3517 recovery for SACK and RFC 6675 \
                    for FACK, without lost-retransmission detection or DSACK undo"
                }
            };
            format!(
                "Linux 2.6.17's senders: {rec}; limited transmit (RFC 3042) on; slow start by \
                 one segment per ACK (tcp_abc = 0) and congestion avoidance by one segment per \
                 cwnd + 1 ACKs for all; LE = detection le, recovery le, \
                 [flow.le] order echo. The receiver delays ACKs (Linux's delayed ACK, the \
                 default here)."
            )
        }
    }
}

/// A flow of the ns-2 experiments (Figures 4-6) or the Linux testbed
/// (Figure 9), under `agents`.
fn flow(name: &str, s: Scheme, cc: &str, mss: u32, rcvbuf: u64, agents: Agents) -> FlowSpec {
    let mut f = FlowSpec::new(name);
    f.mss = mss;
    f.cc = match cc.strip_prefix("fixed:") {
        Some(n) => CcSpec::Fixed(n.parse().expect("a window in segments")),
        None => CcSpec::Named(cc.into()),
    };
    apply(s, agents, &mut f);
    // ns-2's TCPSink acknowledges every segment; Linux 2.6.17's receiver
    // delays ACKs (the default here).
    if matches!(
        agents,
        Agents::Ns2 | Agents::Ns2NoLimitedTransmit | Agents::Rfc
    ) {
        f.receiver.ack = AckSpec::Quick;
    }
    f.receiver.rcvbuf = rcvbuf;
    f
}

/// The parameters the paper leaves open (setup.rs reruns each).
const AGENTS: Choice = Choice {
    key: "le-agents",
    value: "ns2",
    unit: "",
    why: "the paper ran ns-2.35's agents with their defaults (ns-default.tcl: bugFix_ true, \
          newreno_changes1_ 1, singledup_ 1); \"rfc\" are our RFC agents with limited transmit, \
          \"ns2-no-limited-transmit\" the ns-2 agents with singledup_ 0. The mapping before \
          issue 29 was the RFC agents without limited transmit",
    alternatives: ["rfc", "ns2-no-limited-transmit"],
    experiments: &["fig4", "fig5", "fig6"],
    quick: true,
};
const NS2_TIMERS: Choice = Choice {
    key: "ns2-timers",
    value: "ns2",
    unit: "",
    why: "ns-2.35's defaults: RTO = max(minrto_ 200 ms, SRTT + 4 RTTVAR) in tcpTick_ 10 ms \
          ticks, windowInit_ 2; \"linux\" is our default flow (Linux's RTO formula, SRTT + \
          max(4 RTTVAR, 200 ms), exact timers, initial window 10), the mapping before issue 29; \
          \"rfc6298\" RFC 6298 with its 1 s floor. Not mirrored: ns-2 samples one RTT per \
          window (no timestamps by default) and caps the window at window_ = 20 unless a script \
          raises it, which the paper's windows of 32 imply it did",
    alternatives: ["linux", "rfc6298"],
    experiments: &["fig4", "fig5", "fig6"],
    quick: true,
};
const DUMBBELL_RTT: Choice = Choice {
    key: "dumbbell-rtt",
    value: "50",
    unit: "ms",
    why: "the dumbbell of Figure 3 gives no delay; 50 ms is a continental round trip",
    alternatives: ["20", "100"],
    experiments: &["fig5", "fig6"],
    quick: false,
};
const FIG4_RTT_MS: Choice = Choice {
    key: "fig4-rtt",
    value: "100",
    unit: "ms",
    why: "Figure 4's dumbbell gives no delay; 100 ms at 10 Mbit/s makes the pipe (125 segments) \
          four times the 32-segment window, so the window's trains never queue and stay apart, \
          as the paper wants (\"to differentiate each packet train in the bottleneck link\")",
    alternatives: ["40", "200"],
    experiments: &["fig4"],
    quick: true,
};
const DUMBBELL_RATE: Choice = Choice {
    key: "dumbbell-rate",
    value: "10",
    unit: "Mbit/s",
    why: "the dumbbell of Figure 3 gives no numbers; 10 Mbit/s with a 50 ms RTT is a window of \
          62 one-kilobyte segments, above Figure 4's 32 and the Westwood figures' windows",
    alternatives: ["2", "50"],
    experiments: &["fig5", "fig6"],
    quick: false,
};
const DUMBBELL_QUEUE: Choice = Choice {
    key: "dumbbell-queue",
    value: "62",
    unit: "packets",
    why: "one bandwidth-delay product of the 10 Mbit/s, 50 ms dumbbell, the common rule of \
          thumb",
    alternatives: ["20", "250"],
    experiments: &["fig5", "fig6"],
    quick: false,
};
const FIG9_SENDERS: Choice = Choice {
    key: "fig9-senders",
    value: "linux-2.6.17",
    unit: "",
    why: "the testbed ran Linux 2.6.17: rate-halving recovery, lost-retransmission detection \
          and DSACK undo; \"rfc\" puts RFC 3517 / RFC 6675 recovery in its place, \"rfc-no-undo\" \
          also turns the two features off (Figure 9 as it ran before issue 29)",
    alternatives: ["rfc", "rfc-no-undo"],
    experiments: &["fig9"],
    quick: false,
};
const FIG9_LINK: Choice = Choice {
    key: "fig9-link",
    value: "100",
    unit: "Mbit/s",
    why: "the testbed's link rate is not given: Fast Ethernet PCs, and LE with TCP-RR reached 6 \
          Mbit/s at 10% loss, which a slower link could hardly carry; the reviewer of issue 29 \
          found 10 Mbit/s fits the paper's numbers equally well",
    alternatives: ["10", "1000"],
    experiments: &["fig9"],
    quick: false,
};
const CHOICES: [Choice; 8] = [
    AGENTS,
    NS2_TIMERS,
    FIG4_RTT_MS,
    DUMBBELL_RATE,
    DUMBBELL_QUEUE,
    DUMBBELL_RTT,
    FIG9_SENDERS,
    FIG9_LINK,
];

/// One experiment by id (the setup table's reruns).
fn experiment(ctx: &Ctx, id: &str) -> Result<Experiment, String> {
    match id {
        "fig4" => fig4(ctx),
        "fig5" => fig5(ctx),
        "fig6" => fig6(ctx),
        "fig9" => fig9(ctx),
        _ => Err(format!("le: no experiment {id:?}")),
    }
}

pub fn run(ctx: &Ctx) -> Result<PaperResult, String> {
    let mut experiments = vec![
        super::timing::experiment(ctx, "", || fig4(ctx))?,
        super::timing::experiment(ctx, "", || fig5(ctx))?,
        super::timing::experiment(ctx, "", || fig6(ctx))?,
        super::timing::experiment(ctx, "", || fig9(ctx))?,
    ];
    let setup = super::setup::sensitivity_annotated(ctx, &CHOICES, &mut experiments, &experiment)?;
    experiments.push(setup);
    Ok(PaperResult {
        paper: PAPER.into(),
        title: "LE: loss recovery that keeps the transmission order (Figures 4, 5, 6 and 9)".into(),
        quick: ctx.quick,
        full: ctx.full,
        thorough: ctx.thorough,
        subset: ctx.quick,
        experiments,
    })
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// What a differing row says until an experiment has tested an
/// explanation; the measurements of the same runs follow it.
fn claim(exp: &str, id: &str, statement: &str, expect: Expect, values: &[f64], why: &str) -> Claim {
    let measured = if why.is_empty() {
        String::new()
    } else {
        format!("measured in the same runs: {why}")
    };
    untested(PAPER, exp, id, statement, expect, values, &measured)
}

/// An order between paired runs: `b - a` has the paper's sign.
fn order(exp: &str, id: &str, statement: &str, a: &[f64], b: &[f64], why: &str) -> Claim {
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| y - x).collect();
    claim(
        exp,
        id,
        statement,
        Expect::Order {
            paper_positive: true,
        },
        &d,
        why,
    )
}

/// A relative effect of paired runs (`sum(b) / sum(a) - 1` over the same
/// seeds, claims::paired_relative).
fn effect(
    exp: &str,
    id: &str,
    statement: &str,
    expect: Expect,
    a: &[f64],
    b: &[f64],
    why: &str,
) -> Claim {
    Claim::measured(
        PAPER,
        exp,
        id,
        statement,
        expect,
        paired_relative(a, b, id),
        &format!("{UNTESTED}; measured in the same runs: {why}"),
    )
}

const HEADLINE1: &str = "Headline 1: \"shows a steady loss recovery ability even though packet loss rate increases\" (abstract)";
const HEADLINE2: &str = "Headline 2: \"This leads to a significant throughput increase of TCP with heavy packet loss\" (abstract)";
const HEADLINE3: &str = "Headline 3: \"We combined the new loss recovery algorithm with various TCP congestion control algorithms such as AIMD, TCP-Westwood, and TCP-RR and demonstrated higher throughput for higher loss rates\" (section 6)";
const HEADLINE4: &str = "Headline 4: \"Even though the experiment results did not perfectly agree with the simulation results, we obtained a similar throughput increase to that of the simulation\" (abstract; section 5.2)";

/// An order row (`b - a`, as `order` built it) whose difference, if any,
/// is tested by a variant of the same runs: `vb - va` replaces `b - a`
/// (one of them the variant, in the place of the side it replaces). "Explained by" when the variant meets the
/// paper (claims::supports), else listed as tested and rejected.
fn tested(c: Claim, va: &[f64], vb: &[f64], cause: &str, how: &str) -> Claim {
    let d: Vec<f64> = va.iter().zip(vb).map(|(x, y)| y - x).collect();
    let v = c.on(summarize(&d, false, &c.id));
    let mut c = c;
    let measured = c
        .explanation
        .trim_start_matches(UNTESTED)
        .trim_start_matches("; ")
        .to_string();
    if c.verdict.needs_explanation() {
        c.explanation = variant_explanation(&c, &v, cause, how, &measured);
    }
    c
}

/// Mean and 95% CI of each x's values, for a line with a band.
fn band_points(xs: &[f64], values: &[Vec<f64>]) -> Vec<(f64, f64, f64, f64)> {
    xs.iter()
        .zip(values)
        .map(|(x, v)| {
            let s: Summary = summarize(v, false, "");
            let [lo, hi] = s.ci95.unwrap_or([s.mean, s.mean]);
            (*x, s.mean, lo, hi)
        })
        .collect()
}

fn lines(
    ctx: &Ctx,
    e: &mut Experiment,
    name: &str,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: Vec<losslab_viz::charts::BandSeries>,
) -> Result<(), String> {
    let dir = ctx.sub(&e.id)?;
    losslab_viz::charts::lines_with_bands(&dir.join(name), title, x_label, y_label, &[], &series)
        .map_err(|x| x.to_string())?;
    e.pictures.push(format!("{}/{name}.png", e.id));
    Ok(())
}

// ---- Figure 4: loss recovery ability, N losses in one window of 32 ------

const FIG4_MSS: u32 = 1000;
/// Segments before the window whose segments are dropped: slow start
/// reaches the 32-segment window within three round trips, well before.
const FIG4_BASE: u64 = 200;

/// Figure 4's path: 10 Mbit/s, the setup choice's RTT, a 100-packet queue.
fn fig4_path(rtt: Time, loss: LossModel) -> (PathSpec, ReverseSpec) {
    let mut p = path(10_000_000, rtt / 2, QueueLimit::Packets(100), loss);
    p.0.protect_retransmissions = true;
    p
}

/// The first train of 32 segments sent at or after segment FIG4_BASE,
/// measured on a run without loss (every scheme sends the same segments
/// at the same times until the first drop): 1-based segment numbers of
/// its first and last segment. A train is a run of first transmissions
/// each less than a quarter RTT after the one before; the window of 32
/// leaves as one train per round trip once the clamp is reached.
fn fig4_train(rtt: Time, timers: Timers) -> Result<(u64, u64), String> {
    let run = super::common::run(&fig4_lossless(rtt, timers), None)?;
    trains(&first_sends(&run), rtt / 4)
        .into_iter()
        .find(|(a, b)| *a >= FIG4_BASE && b - a + 1 == 32)
        .ok_or_else(|| "fig4: no train of 32 segments after segment 200".to_string())
}

/// Figure 4's flow: `s` under `agents` and `timers`, AIMD, 1000-byte
/// segments, the window clamped at 32.
fn fig4_flow(s: Scheme, agents: Agents, timers: Timers) -> FlowSpec {
    let mut f = flow("a", s, "reno", FIG4_MSS, SIM_RCVBUF, agents);
    timers.apply(&mut f);
    f.max_cwnd = Some(32);
    f
}

/// The run `fig4_train` measures: 600 segments of Figure 4's flow
/// without loss.
fn fig4_lossless(rtt: Time, timers: Timers) -> Scenario {
    let mut f = fig4_flow(Scheme::Reno, Agents::Ns2, timers);
    f.app = losslab_sim::scenario::AppSpec::Bytes(600 * u64::from(FIG4_MSS));
    scenario(
        "fig4-train",
        60 * SEC,
        fig4_path(rtt, LossModel::None),
        vec![f],
    )
}

/// When each segment was first sent, in segment order (index 0 is
/// segment 1).
fn first_sends(run: &super::common::Run) -> Vec<Time> {
    let mut first: Vec<(u64, Time)> = run.traces[0]
        .sent
        .iter()
        .filter(|x| x.tx_count == 1)
        .map(|x| (x.seq, x.t))
        .collect();
    first.sort_unstable();
    first.into_iter().map(|x| x.1).collect()
}

/// Runs of send times (in segment order) each less than `gap` after the
/// one before, as 1-based (first, last) segment numbers.
fn trains(times: &[Time], gap: Time) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut start = 0usize;
    for k in 1..=times.len() {
        if k == times.len() || times[k].saturating_sub(times[k - 1]) >= gap {
            out.push((start as u64 + 1, k as u64));
            start = k;
        }
    }
    out
}

/// N of the 32 segments of the measured train starting at `first`,
/// drawn by seed and N alone, so that every scheme loses the same
/// segments on the same seed.
fn fig4_drops(n: usize, seed: u64, first: u64) -> Vec<u64> {
    let mut g = Gen::new(seed * 1009 + n as u64);
    let mut w: Vec<u64> = (0..32).collect();
    for i in 0..n {
        let j = i + (g.next_u64() % (32 - i) as u64) as usize;
        w.swap(i, j);
    }
    let mut d: Vec<u64> = w[..n].iter().map(|k| first + k).collect();
    d.sort_unstable();
    d
}

/// One run of Figure 4: `s` under `agents` and `timers`, N drops of the
/// train starting at `first`.
fn fig4_scenario(
    s: Scheme,
    (agents, timers): (Agents, Timers),
    rtt: Time,
    first: u64,
    n: usize,
    seed: u64,
) -> Scenario {
    let loss = LossModel::Drop {
        flow: "a".into(),
        which: DropSpec::Segments(fig4_drops(n, seed, first)),
    };
    let mut sc = scenario(
        &format!("fig4-{}-n{n}-s{seed}", s.label()),
        60 * SEC,
        fig4_path(rtt, loss),
        vec![fig4_flow(s, agents, timers)],
    );
    sc.seed = seed;
    sc
}

#[derive(Clone, Copy, Debug)]
struct Recovery {
    /// From the first drop to the cumulative ACK of every dropped segment,
    /// seconds; the rest of the run if that never came.
    duration_s: f64,
    /// From the first retransmission to that ACK, in base RTTs.
    repair_rtts: f64,
    /// From the first retransmission to the last before that ACK, in base
    /// RTTs: below 1 when every hole was resent within one round trip.
    rtx_spread_rtts: f64,
    timeouts: f64,
    /// Segments outstanding when the first dropped segment was sent.
    flight: f64,
}

fn fig4_measure(run: &super::common::Run, base_rtt: Time) -> Recovery {
    let t = &run.traces[0];
    let mss = u64::from(FIG4_MSS);
    let first = *t.dropped_seqs.iter().min().expect("a drop");
    let last = *t.dropped_seqs.iter().max().expect("a drop") + mss;
    let t0 = t.sent.iter().find(|x| x.seq == first).map_or(0, |x| x.t);
    let end = t.acked_by(last);
    let end_t = end.unwrap_or((run.results.sim_time_s * SEC as f64) as Time);
    let rtx = t
        .sent
        .iter()
        .find(|x| x.tx_count > 1 && x.t >= t0)
        .map_or(end_t, |x| x.t);
    let acked = t
        .acks
        .iter()
        .take_while(|a| a.t <= t0)
        .map(|a| a.ack)
        .max()
        .unwrap_or(0);
    let rtt = run.results.flows[0]
        .rtt_ms
        .min
        .unwrap_or(base_rtt as f64 / MS as f64);
    let last_rtx = t
        .sent
        .iter()
        .filter(|x| x.tx_count > 1 && x.t >= rtx && x.t <= end_t)
        .map(|x| x.t)
        .max()
        .unwrap_or(rtx);
    Recovery {
        duration_s: end_t.saturating_sub(t0) as f64 / SEC as f64,
        repair_rtts: end_t.saturating_sub(rtx) as f64 / MS as f64 / rtt,
        rtx_spread_rtts: last_rtx.saturating_sub(rtx) as f64 / MS as f64 / rtt,
        timeouts: run.results.flows[0].timeouts as f64,
        flight: (first + mss).saturating_sub(acked) as f64 / mss as f64,
    }
}

fn fig4(ctx: &Ctx) -> Result<Experiment, String> {
    let exp = "fig4";
    let agents = Agents::of_ns2(ctx.choice(&AGENTS))?;
    let rtt = ctx.choice_u64(&FIG4_RTT_MS)? * MS;
    let timers = Timers::of(ctx.choice(&NS2_TIMERS))?;
    let (first, last) = fig4_train(rtt, timers)?;
    let mut e = Experiment::new(
        exp,
        "Loss recovery ability: N losses in one window of 32 segments (Figure 4, 3.1)",
        &format!(
            "One bulk flow, 1000-byte segments, AIMD (cc reno), the window clamped at 32 \
             segments as the paper's (max_cwnd = 32, ns-2's maxcwnd_; the receive window, 1 MB, \
             does not limit; the example row checks the flight is 32 when the drops start), \
             quick ACKs, retransmissions never lost (protect_retransmissions). Path: \
             10 Mbit/s, {} ms RTT (setup choice fig4-rtt), 100-packet drop-tail queue, so 32 \
             segments never queue. N of the 32 segments of one train, {first}..{last}, are \
             dropped at their first transmission, chosen at random by seed and N (the same for \
             every scheme). The train is measured, not assumed: on a run without loss, the \
             first 32 segments at or after segment 200 sent back to back (each less than a \
             quarter RTT after the one before) with a round trip's gap on either side, so all N \
             losses are of one window. Recovery duration: from the first dropped segment's \
             transmission to the first ACK at the sender whose cumulative ACK covers every \
             dropped segment (the simulator's packet trace: sends, drops and ACK arrivals); a \
             recovery that never ends counts the rest of the 60 s run. Repair time: from the \
             first retransmission to that ACK, in base RTTs (the paper's \"in a single RTT\"). \
             Timeouts: the flow's RTO expiries (the only ones of the run). {} Seeds: 3 \
             (--quick), 10 (default, as the paper's ten runs per point).",
            rtt / MS,
            mapping(agents)
        ),
    );
    let seeds = ctx.pick(3u64, 10, 10);
    let ns: Vec<usize> = if ctx.quick {
        vec![1, 4, 8, 12, 16, 19, 24, 29, 31]
    } else {
        (1..=31).collect()
    };
    let k = seeds as usize;
    let per = ns.len() * k;
    let flat = par_map(ctx, SCHEMES.len() * per, |j| {
        let (c, rest) = (j / per, j % per);
        let (n, seed) = (ns[rest / k], 1 + (rest % k) as u64);
        let sc = fig4_scenario(SCHEMES[c], (agents, timers), rtt, first, n, seed);
        ctx.run(exp, &sc, None).map(|r| fig4_measure(&r, rtt))
    })?;
    // r[scheme][n index][seed]
    let r: Vec<Vec<Vec<Recovery>>> = (0..SCHEMES.len())
        .map(|s| {
            (0..ns.len())
                .map(|i| flat[s * per + i * k..s * per + (i + 1) * k].to_vec())
                .collect()
        })
        .collect();
    let idx = |s: Scheme| SCHEMES.iter().position(|x| *x == s).expect("scheme");
    // Per seed, a statistic over the N points that `keep` selects.
    let over_i = |c: usize,
                  keep: &dyn Fn(usize) -> bool,
                  f: &dyn Fn(&[f64]) -> f64,
                  m: &dyn Fn(&Recovery) -> f64|
     -> Vec<f64> {
        (0..k)
            .map(|seed| {
                let v: Vec<f64> = ns
                    .iter()
                    .enumerate()
                    .filter(|(_, n)| keep(**n))
                    .map(|(i, _)| m(&r[c][i][seed]))
                    .collect();
                f(&v)
            })
            .collect()
    };
    let over = |s: Scheme,
                keep: &dyn Fn(usize) -> bool,
                f: &dyn Fn(&[f64]) -> f64,
                m: &dyn Fn(&Recovery) -> f64| over_i(idx(s), keep, f, m);
    let all = |_: usize| true;
    let dur = |x: &Recovery| x.duration_s;
    let mean_dur = |s: Scheme| over(s, &all, &mean, &dur);
    let diag = |s: Scheme| {
        format!(
            "{}: mean duration {:.2} s, mean timeouts per run {:.2} over N",
            s.title(),
            mean(&mean_dur(s)),
            mean(&over(s, &all, &mean, &|x| x.timeouts))
        )
    };
    let pairs = [
        (Scheme::Le, Scheme::Fack),
        (Scheme::Fack, Scheme::Sack),
        (Scheme::Sack, Scheme::NewReno),
        (Scheme::NewReno, Scheme::Reno),
    ];
    for (a, b) in pairs {
        let extra = if b == Scheme::Reno {
            " and: \"the duration of NewReno is lower than that of Reno\""
        } else {
            ""
        };
        let c = order(
            exp,
            &format!("fig4-order-{}-before-{}", a.label(), b.label()),
            &format!(
                "3.1.1: \"Overall loss recovery performance is in the order of LE, FACK, SACK, \
                 NewReno and Reno\"{extra}: {} recovers faster than {} (ours: {}'s minus {}'s \
                 recovery duration, mean over N, s, same seed and drops)",
                a.title(),
                b.title(),
                b.title(),
                a.title()
            ),
            &mean_dur(a),
            &mean_dur(b),
            &format!("{}; {}", diag(a), diag(b)),
        );
        e.claims.push(c);
    }
    let upto18 = |n: usize| n <= 18;
    let beyond18 = |n: usize| n >= 19;
    e.claims.push(order(
        exp,
        "fig4-sack-before-newreno-upto-18",
        "3.1.1: \"SACK outperforms NewReno for up to 18 lost packets\" (ours: NewReno's minus \
         SACK's duration, mean over N <= 18, s, same seed)",
        &over(Scheme::Sack, &upto18, &mean, &dur),
        &over(Scheme::NewReno, &upto18, &mean, &dur),
        &format!("{}; {}", diag(Scheme::Sack), diag(Scheme::NewReno)),
    ));
    e.claims.push(order(
        exp,
        "fig4-sack-worse-than-newreno-beyond-18",
        "3.1.1: \"the performance of SACK becomes worse than that of NewReno if the number of \
         losses is greater than 18\" (ours: SACK's minus NewReno's duration, mean over N >= \
         19, s, same seed)",
        &over(Scheme::NewReno, &beyond18, &mean, &dur),
        &over(Scheme::Sack, &beyond18, &mean, &dur),
        &format!("{}; {}", diag(Scheme::Sack), diag(Scheme::NewReno)),
    ));
    let maxf = |v: &[f64]| v.iter().cloned().fold(f64::NAN, f64::max);
    let repair = |x: &Recovery| x.repair_rtts;
    let spread = |x: &Recovery| x.rtx_spread_rtts;
    let le_max8 = mean(&over(Scheme::Le, &|n| n <= 8, &maxf, &repair));
    let rtt_cause = format!(
        "what \"in a single RTT\" counts: our repair time runs to the ACK of the last \
         retransmission, so it adds that retransmission's own round trip, and a loss among the \
         window's last segments is revealed only by data sent during the recovery (LE's longest \
         repair over N <= 8 is {le_max8:.2} RTTs in the same runs); read as every hole resent \
         within one round trip"
    );
    let rtt_how = "the same runs, measuring from the first retransmission to the last (the \
        longest over the N, per seed, in base RTTs; issue 29's review)";
    let c = claim(
        exp,
        "fig4-sack-one-rtt-upto-8",
        "3.1.1: \"SACK recovers the lost packets up to eight lost packets (cwnd/4) in a single \
         RTT\" (ours: SACK's longest repair time over N <= 8, in base RTTs)",
        Expect::Value {
            paper: 1.0,
            band: Band::QUANTITY,
        },
        &over(Scheme::Sack, &|n| n <= 8, &maxf, &repair),
        &diag(Scheme::Sack),
    );
    e.claims.push(tested(
        c,
        &vec![0.0; k],
        &over(Scheme::Sack, &|n| n <= 8, &maxf, &spread),
        &rtt_cause,
        rtt_how,
    ));
    // The threshold itself: the fewest losses of the N points run that
    // cost a timeout (33 when none did), per seed.
    let threshold = |c: usize| -> Vec<f64> {
        (0..k)
            .map(|seed| {
                ns.iter()
                    .enumerate()
                    .find(|(i, _)| r[c][*i][seed].timeouts > 0.0)
                    .map_or(33.0, |(_, n)| *n as f64)
            })
            .collect()
    };
    e.claims.push(claim(
        exp,
        "fig4-sack-rto-threshold",
        "3.1.1: \"If the number of losses is greater than 18 (cwnd/2 + 2), SACK suffers from RTO \
         expiry\": the fewest losses that cost SACK a timeout is 19 (ours: the smallest N run \
         with a timeout, per seed; 33 when none did)",
        Expect::Value {
            paper: 19.0,
            band: Band::QUANTITY,
        },
        &threshold(idx(Scheme::Sack)),
        &diag(Scheme::Sack),
    ));
    e.claims.push(claim(
        exp,
        "fig4-newreno-rto-threshold",
        "3.1.1: \"NewReno experiences RTO expiry at the same time as does SACK\" (beyond 18 \
         losses): the fewest losses that cost NewReno a timeout is 19, as SACK's (ours: the \
         smallest N run with a timeout, per seed; 33 when none did)",
        Expect::Value {
            paper: 19.0,
            band: Band::QUANTITY,
        },
        &threshold(idx(Scheme::NewReno)),
        &diag(Scheme::NewReno),
    ));
    e.claims.push(order(
        exp,
        "fig4-sack-rto-beyond-18",
        "3.1.1: \"If the number of losses is greater than 18 (cwnd/2 + 2), SACK suffers from RTO \
         expiry\" (ours: SACK's timeouts per run, mean over N >= 19, > 0)",
        &vec![0.0; k],
        &over(Scheme::Sack, &beyond18, &mean, &|x| x.timeouts),
        &diag(Scheme::Sack),
    ));
    let c = claim(
        exp,
        "fig4-fack-one-rtt-upto-15",
        "3.1.1: \"FACK exhibited single RTT recovery up to 15 lost packets\" (ours: FACK's \
         longest repair time over N <= 15, in base RTTs)",
        Expect::Value {
            paper: 1.0,
            band: Band::QUANTITY,
        },
        &over(Scheme::Fack, &|n| n <= 15, &maxf, &repair),
        &diag(Scheme::Fack),
    );
    e.claims.push(tested(
        c,
        &vec![0.0; k],
        &over(Scheme::Fack, &|n| n <= 15, &maxf, &spread),
        &rtt_cause,
        rtt_how,
    ));
    // "Almost linear": the share of the variance of LE's duration over
    // N <= 29 that a straight line explains (R^2), read as at least 0.9
    // with the share band.
    let xs: Vec<f64> = ns.iter().filter(|n| **n <= 29).map(|n| *n as f64).collect();
    let r2 = |v: &[f64]| {
        let (mx, my) = (mean(&xs), mean(v));
        let sxy: f64 = xs.iter().zip(v).map(|(x, y)| (x - mx) * (y - my)).sum();
        let sxx: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
        let syy: f64 = v.iter().map(|y| (y - my).powi(2)).sum();
        if syy == 0.0 {
            1.0
        } else {
            sxy * sxy / (sxx * syy)
        }
    };
    e.claims.push(claim(
        exp,
        "fig4-le-linear-upto-29",
        "3.1.1: \"The recovery duration of LE was almost linear up to 29 of 32 losses\" (ours: \
         R^2 of a straight line through LE's durations over N <= 29, per seed; \"almost \
         linear\" read as R^2 >= 0.9)",
        Expect::AtLeast {
            paper: 0.9,
            band: Band::SHARE,
        },
        &over(Scheme::Le, &|n| n <= 29, &r2, &dur),
        &diag(Scheme::Le),
    ));
    e.claims.push(claim(
        exp,
        "fig4-le-no-rto-upto-29",
        "2.2.4, Observation: \"As long as LE receives at least three duplicate ACKs, all lost \
         packets can be recovered without RTO expiry\"; 3.1.1: LE linear \"up to 29 of 32 \
         losses\" (ours: LE's timeouts per run, summed over N <= 29)",
        Expect::Value {
            paper: 0.0,
            band: Band::QUANTITY,
        },
        &over(Scheme::Le, &|n| n <= 29, &|v| v.iter().sum(), &|x| {
            x.timeouts
        }),
        &diag(Scheme::Le),
    ));
    // Headline 1: "steady" as LE's recovery duration growing least of
    // the five as N rises, over the N the paper draws LE without a
    // timeout (<= 29): per scheme and seed, the mean over N = 16-29 over
    // the mean over N <= 15, less 1; the smallest of the other four's
    // growth minus LE's, paired by seed. Not "flat": 3.1.1 calls LE's
    // duration "almost linear up to 29 of 32 losses" (the flat reading
    // before issue 29 contradicted the paper's own description).
    let growth = |s: Scheme| -> Vec<f64> {
        let low = over(s, &|n| n <= 15, &mean, &dur);
        let high = over(s, &|n| (16..=29).contains(&n), &mean, &dur);
        low.iter().zip(&high).map(|(l, h)| h / l - 1.0).collect()
    };
    let le_growth = growth(Scheme::Le);
    let others_least: Vec<f64> = (0..k)
        .map(|seed| {
            [Scheme::Reno, Scheme::NewReno, Scheme::Sack, Scheme::Fack]
                .iter()
                .map(|x| growth(*x)[seed])
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    let growths = SCHEMES
        .iter()
        .map(|x| format!("{} {:.2}", x.title(), mean(&growth(*x))))
        .collect::<Vec<_>>()
        .join(", ");
    e.claims.push(
        order(
            exp,
            "headline1-le-duration-grows-least",
            &format!("{HEADLINE1}: LE's recovery duration grows least of the five as the losses in a window of 32 rise (Figure 4; per scheme, mean duration over N = 16-29 over that over N <= 15, less 1; the smallest of Reno's, NewReno's, SACK's and FACK's minus LE's, same seeds; 3.1.1: LE \"almost linear up to 29\", FACK's \"increased exponentially\")"),
            &le_growth,
            &others_least,
            &format!("growth, mean over seeds: {growths}"),
        )
        .headline(),
    );
    e.claims.push(
        claim(
            exp,
            "headline1-le-no-timeout",
            &format!("{HEADLINE1}: without a timeout (Figure 4, 2.2.4: LE's timeouts per run, summed over N <= 29)"),
            Expect::Value {
                paper: 0.0,
                band: Band::QUANTITY,
            },
            &over(Scheme::Le, &|n| n <= 29, &|v| v.iter().sum(), &|x| {
                x.timeouts
            }),
            &diag(Scheme::Le),
        )
        .headline()
        .measurement("fig4/fig4-le-no-rto-upto-29"),
    );
    // Examples: seed 1 at a few N, and the flight when the drops start.
    e.row(
        "segments outstanding when the first dropped segment is sent (seed 1, N = 1, LE)",
        format!("{:.0}", r[idx(Scheme::Le)][0][0].flight),
        "32 (\"we limited the maximum cwnd to 32\")",
    );
    for (i, n) in ns.iter().enumerate() {
        if ![1, 8, 16, 19, 29, 31].contains(n) {
            continue;
        }
        e.row(
            format!("N = {n}: duration, s (timeouts), Reno / NewReno / SACK / FACK / LE (seed 1)"),
            SCHEMES
                .iter()
                .map(|s| {
                    let x = &r[idx(*s)][i][0];
                    format!("{:.2} ({:.0})", x.duration_s, x.timeouts)
                })
                .collect::<Vec<_>>()
                .join(" / "),
            "order LE < FACK < SACK < NewReno < Reno",
        );
    }
    let xs: Vec<f64> = ns.iter().map(|n| *n as f64).collect();
    let series = SCHEMES
        .iter()
        .map(|s| {
            let v: Vec<Vec<f64>> = (0..ns.len())
                .map(|i| r[idx(*s)][i].iter().map(|x| x.duration_s).collect())
                .collect();
            (s.title().to_string(), band_points(&xs, &v))
        })
        .collect();
    lines(
        ctx,
        &mut e,
        "fig4-duration",
        "Figure 4: recovery duration vs losses in a window of 32",
        "lost segments in one window (N)",
        "recovery duration (s)",
        series,
    )?;
    Ok(e)
}

// ---- Figure 5: fairness with SACK -----------------------------------------

const SIM_MSS: u32 = 1000;
const SIM_RCVBUF: u64 = 1_000_000;

/// The dumbbell of Figures 5 and 6 as this run's setup choices make it:
/// rate (bit/s), queue (packets), and its text for the setup.
fn dumbbell(ctx: &Ctx) -> Result<(u64, u64, Time, String), String> {
    let rate = ctx.choice_u64(&DUMBBELL_RATE)?;
    let queue = ctx.choice_u64(&DUMBBELL_QUEUE)?;
    let rtt = ctx.choice_u64(&DUMBBELL_RTT)?;
    let text = format!(
        "Path (the paper's dumbbell, Figure 3, gives no numbers): {rate} Mbit/s bottleneck \
         (setup choice dumbbell-rate), {rtt} ms RTT (dumbbell-rtt), drop-tail queue of {queue} \
         packets (dumbbell-queue), 1000-byte segments, receive window 1 MB (not limiting); \
         random loss on the data path only."
    );
    Ok((rate * 1_000_000, queue, rtt * MS / 2, text))
}

fn fig5(ctx: &Ctx) -> Result<Experiment, String> {
    let exp = "fig5";
    let agents = Agents::of_ns2(ctx.choice(&AGENTS))?;
    let (rate, queue, one_way, sim_path) = dumbbell(ctx)?;
    let timers = Timers::of(ctx.choice(&NS2_TIMERS))?;
    let seeds = ctx.pick(3u64, 5, 10);
    let duration = ctx.pick(30, 100, 100) * SEC;
    let mut e = Experiment::new(
        exp,
        "Fairness: i SACK flows with 10 - i FACK or LE flows (Figure 5, 3.2)",
        &format!(
            "Ten bulk flows, no random loss, AIMD (cc reno), {sim_path} i = 1, 3, 5, 7, 9 SACK \
             flows share the bottleneck with 10 - i FACK flows (Fig. 5a), then with 10 - i LE \
             flows (Fig. 5b); each flow starts at a time drawn by seed in the first 2 s, runs \
             {} s. Per-flow throughput is goodput; for each i we take the mean FACK (or LE) \
             flow's over the mean SACK flow's, then the mean over i per seed. {} Seeds: \
             {seeds}.",
            duration / SEC,
            mapping(agents)
        ),
    );
    let is = [1usize, 3, 5, 7, 9];
    let mut cases = Vec::new();
    for other in [Scheme::Fack, Scheme::Le] {
        for i in is {
            cases.push((other, i));
        }
    }
    let runs = super::common::run_cases(
        ctx,
        exp,
        cases.len(),
        seeds,
        |c, seed| {
            let (other, i) = cases[c];
            let mut g = Gen::new(seed);
            let flows = (0..10)
                .map(|j| {
                    let (s, name) = if j < i {
                        (Scheme::Sack, format!("sack{}", j + 1))
                    } else {
                        (other, format!("{}{}", other.label(), j + 1 - i))
                    };
                    let mut f = flow(&name, s, "reno", SIM_MSS, SIM_RCVBUF, agents);
                    timers.apply(&mut f);
                    f.start = (g.unit() * 2000.0) as Time * MS;
                    f
                })
                .collect();
            let mut sc = scenario(
                &format!("fig5-{}-i{i}-s{seed}", other.label()),
                duration,
                path(rate, one_way, QueueLimit::Packets(queue), LossModel::None),
                flows,
            );
            sc.seed = seed;
            sc
        },
        |r| {
            let m = |p: &str| {
                mean(
                    &r.flows
                        .iter()
                        .filter(|f| f.name.starts_with(p))
                        .map(|f| f.goodput_bps / 1e6)
                        .collect::<Vec<_>>(),
                )
            };
            (
                m("sack"),
                m("fack").max(m("le")).max(0.0),
                r.path.utilization,
            )
        },
    )?;
    // ratio[other][seed], mean over i
    let ratio = |o: usize| -> Vec<f64> {
        (0..seeds as usize)
            .map(|s| {
                mean(
                    &(0..is.len())
                        .map(|i| runs[o * is.len() + i][s].1 / runs[o * is.len() + i][s].0)
                        .collect::<Vec<_>>(),
                )
            })
            .collect()
    };
    let (fack, le) = (ratio(0), ratio(1));
    let diag = format!(
        "mean over i and seeds: FACK/SACK {:.3}, LE/SACK {:.3}",
        mean(&fack),
        mean(&le)
    );
    e.claims.push(claim(
        exp,
        "fig5-le-fair-with-sack",
        "3.2.1: \"LE shares fair bandwidth with SACK\" (ours: mean LE flow's throughput over mean \
         SACK flow's, mean over i; fair = 1)",
        Expect::Value {
            paper: 1.0,
            band: Band::QUANTITY,
        },
        &le,
        &diag,
    ));
    e.claims.push(claim(
        exp,
        "fig5-le-as-fair-as-fack",
        "3.2.1: \"Comparing Figure 5b with Figure 5a ... the fairness of LE is comparable\" \
         (ours: LE/SACK minus FACK/SACK throughput ratio, mean over i, same seed; 0 with the \
         share band, ±0.10)",
        Expect::Value {
            paper: 0.0,
            band: Band::SHARE,
        },
        &le.iter().zip(&fack).map(|(a, b)| a - b).collect::<Vec<_>>(),
        &diag,
    ));
    for (k, i) in is.iter().enumerate() {
        let f = &runs[k][0];
        let l = &runs[is.len() + k][0];
        e.row(
            format!("i = {i}: per-flow Mbit/s SACK / FACK, then SACK / LE (seed 1)"),
            format!("{:.2} / {:.2}, {:.2} / {:.2}", f.0, f.1, l.0, l.1),
            "comparable (Fig. 5a, 5b)",
        );
    }
    let groups: Vec<String> = is.iter().map(|i| format!("i = {i}")).collect();
    let series: Vec<(String, Vec<f64>)> = [(0usize, "FACK / SACK"), (1, "LE / SACK")]
        .iter()
        .map(|(o, name)| {
            (
                name.to_string(),
                (0..is.len())
                    .map(|i| {
                        mean(
                            &runs[o * is.len() + i]
                                .iter()
                                .map(|x| x.1 / x.0)
                                .collect::<Vec<_>>(),
                        )
                    })
                    .collect(),
            )
        })
        .collect();
    let dir = ctx.sub(exp)?;
    losslab_viz::charts::grouped_bars_with(
        &dir.join("fig5-ratio"),
        &losslab_viz::charts::BarsSpec {
            title: "Figure 5: per-flow throughput over SACK's",
            x_label: "SACK flows of ten",
            y_label: "mean flow's throughput / mean SACK flow's",
            groups: &groups,
            series: &series,
            ..Default::default()
        },
    )
    .map_err(|x| x.to_string())?;
    e.pictures.push(format!("{exp}/fig5-ratio.png"));
    Ok(e)
}

// ---- Figure 6: throughput vs random loss with three congestion controls ---

#[derive(Clone, Copy, Debug)]
struct Point {
    mbps: f64,
    timeouts: f64,
    utilization: f64,
}

fn keep_point(r: RunResults) -> Point {
    Point {
        mbps: r.flows.iter().map(|f| f.goodput_bps).sum::<f64>() / 1e6,
        timeouts: r.flows.iter().map(|f| f.timeouts as f64).sum(),
        utilization: r.path.utilization,
    }
}

fn fig6(ctx: &Ctx) -> Result<Experiment, String> {
    let exp = "fig6";
    let agents = Agents::of_ns2(ctx.choice(&AGENTS))?;
    let (rate, queue, one_way, sim_path) = dumbbell(ctx)?;
    let timers = Timers::of(ctx.choice(&NS2_TIMERS))?;
    let seeds = ctx.pick(3u64, 5, 10);
    let duration = ctx.pick(20, 100, 100) * SEC;
    let losses: Vec<f64> = ctx.pick(
        vec![0.05, 0.1],
        vec![0.0, 0.01, 0.02, 0.05, 0.1],
        (0..=10).map(|i| i as f64 / 100.0).collect(),
    );
    let mut e = Experiment::new(
        exp,
        "Throughput vs random loss: AIMD, fixed window 32, Westwood, and ten Westwood flows (Figure 6, 3.3)",
        &format!(
            "Bulk flows with Bernoulli loss on the data path ({} %), {} s per run, {seeds} seeds \
             per point (the paper: 0-10%, 100 s, ten runs). {sim_path} Panels: (a) one flow, \
             AIMD (cc reno); (b) one flow, a fixed window of 32 segments (cc fixed:32); (c) one \
             flow, Westwood; (d) ten Westwood flows (aggregate throughput). Each panel runs \
             Reno, NewReno, SACK, FACK and LE on the same seeds (the same loss draws), and panel \
             (d) also with LE growing cwnd during its recovery ([flow.le] grow_in_recovery, the \
             paper's \"no discrete states\"), the variant that tests the utilization rows. {}",
            losses
                .iter()
                .map(|p| format!("{}", p * 100.0))
                .collect::<Vec<_>>()
                .join(", "),
            duration / SEC,
            mapping(agents)
        ),
    );
    let panels = [
        ("a", "reno", 1u32),
        ("b", "fixed:32", 1),
        ("c", "westwood", 1),
        ("d", "westwood", 10),
    ];
    let mut cases = Vec::new();
    for (pi, (_, cc, count)) in panels.iter().enumerate() {
        for (si, s) in SCHEMES.iter().enumerate() {
            for (li, p) in losses.iter().enumerate() {
                cases.push((pi, si, li, *s, *cc, *count, *p, false));
            }
        }
    }
    // Panel (d) with LE growing in recovery, after all the others.
    let grow_base = cases.len();
    let (_, d_cc, d_count) = panels[3];
    for (li, p) in losses.iter().enumerate() {
        cases.push((3, SCHEMES.len(), li, Scheme::Le, d_cc, d_count, *p, true));
    }
    let runs = super::common::run_cases(
        ctx,
        exp,
        cases.len(),
        seeds,
        |c, seed| {
            let (pi, _, _, s, cc, count, p, grow) = cases[c];
            let mut f = flow("a", s, cc, SIM_MSS, SIM_RCVBUF, agents);
            timers.apply(&mut f);
            f.count = count;
            f.le_grow_in_recovery = grow;
            let loss = if p > 0.0 {
                LossModel::Bernoulli { p }
            } else {
                LossModel::None
            };
            let mut sc = scenario(
                &format!(
                    "fig6{}-{}{}-p{}-s{seed}",
                    panels[pi].0,
                    s.label(),
                    if grow { "-grow" } else { "" },
                    (p * 1000.0).round()
                ),
                duration,
                path(rate, one_way, QueueLimit::Packets(queue), loss),
                vec![f],
            );
            sc.seed = seed;
            sc
        },
        keep_point,
    )?;
    let at = |pi: usize, s: Scheme, li: usize| -> &Vec<Point> {
        let si = SCHEMES.iter().position(|x| *x == s).expect("scheme");
        &runs[(pi * SCHEMES.len() + si) * losses.len() + li]
    };
    let col = |v: &[Point], f: fn(&Point) -> f64| v.iter().map(f).collect::<Vec<f64>>();
    let li_of = |p: f64| losses.iter().position(|x| (*x - p).abs() < 1e-9);
    let diag = |pi: usize, li: usize| {
        SCHEMES
            .iter()
            .map(|s| {
                let v = at(pi, *s, li);
                format!(
                    "{} {:.2} Mbit/s, {:.1} timeouts",
                    s.title(),
                    mean(&col(v, |x| x.mbps)),
                    mean(&col(v, |x| x.timeouts))
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    let others = [Scheme::Reno, Scheme::NewReno, Scheme::Sack, Scheme::Fack];
    let statements = [
        "3.3.1 (Fig. 6a, AIMD): \"LE performed slightly better, but the impact was marginal\"",
        "3.3.2 (Fig. 6b, fixed window 32): \"The throughput of LE was superior to those of other loss recovery algorithms\"",
        "3.3.3 (Fig. 6c, Westwood): \"the performance of LE is significantly better than those of the other loss recovery algorithms\"",
        "3.3.3 (Fig. 6d, ten Westwood flows): \"In the case of multiple flows, similar results are shown\"",
    ];
    for (pi, (panel, _, _)) in panels.iter().enumerate() {
        for p in [0.05, 0.1] {
            let Some(li) = li_of(p) else { continue };
            for x in others {
                e.claims.push(order(
                    exp,
                    &format!("fig6{panel}-le-above-{}-{}pct", x.label(), p * 100.0),
                    &format!(
                        "{}: LE above {} at {}% loss (ours: LE's minus {}'s throughput, Mbit/s, same seed)",
                        statements[pi],
                        x.title(),
                        p * 100.0,
                        x.title()
                    ),
                    &col(at(pi, x, li), |v| v.mbps),
                    &col(at(pi, Scheme::Le, li), |v| v.mbps),
                    &diag(pi, li),
                ));
            }
        }
    }
    if let Some(li) = li_of(0.1) {
        for x in others {
            let (a, b) = (
                col(at(0, x, li), |v| v.mbps),
                col(at(0, Scheme::Le, li), |v| v.mbps),
            );
            e.claims.push(claim(
                exp,
                &format!("fig6a-similar-to-{}-10pct", x.label()),
                &format!(
                    "3.3.1 (Fig. 6a, AIMD): \"the throughputs of different TCP implementations were very \
                     similar\": LE and {} at 10% loss (ours: LE / {} - 1, same seed; 0 with the \
                     share band, ±0.10)",
                    x.title(),
                    x.title()
                ),
                Expect::Value {
                    paper: 0.0,
                    band: Band::SHARE,
                },
                &a.iter().zip(&b).map(|(a, b)| b / a - 1.0).collect::<Vec<_>>(),
                &diag(0, li),
            ));
        }
        for x in others {
            e.claims.push(order(
                exp,
                &format!("fig6b-{}-more-timeouts-10pct", x.label()),
                &format!(
                    "3.3.2 (Fig. 6b): \"The throughputs of Reno, newReno, SACK, and FACK were inferior \
                     ... because they frequently experience RTO expiry\": {} takes more timeouts \
                     than LE at 10% loss (ours: {}'s minus LE's timeouts per run, same seed)",
                    x.title(),
                    x.title()
                ),
                &col(at(1, Scheme::Le, li), |v| v.timeouts),
                &col(at(1, x, li), |v| v.timeouts),
                &diag(1, li),
            ));
        }
        let le = col(at(1, Scheme::Le, li), |v| v.timeouts);
        e.claims.push(claim(
            exp,
            "fig6b-le-no-timeouts-10pct",
            &format!(
                "3.3.2 (Fig. 6b): \"LE does not experience RTO expiry\" (ours: LE's timeouts per \
                 {} s run at 10% loss)",
                duration / SEC
            ),
            Expect::Value {
                paper: 0.0,
                band: Band::QUANTITY,
            },
            &le,
            &diag(1, li),
        ));
    }
    for p in [0.05, 0.1] {
        let Some(li) = li_of(p) else { continue };
        e.claims.push(claim(
            exp,
            &format!("fig6d-le-avoids-rto-{}pct", p * 100.0),
            &format!(
                "3.3.3 (Fig. 6d): \"LE flows achieve almost full bandwidth utilization because LE \
                 avoids RTO expiry\": ten Westwood+LE flows at {}% loss (ours: their timeouts per \
                 {} s run, all ten flows)",
                p * 100.0,
                duration / SEC
            ),
            Expect::Value {
                paper: 0.0,
                band: Band::QUANTITY,
            },
            &col(at(3, Scheme::Le, li), |v| v.timeouts),
            &diag(3, li),
        ));
        let grow: Vec<f64> = col(&runs[grow_base + li], |v| v.utilization);
        let c = claim(
            exp,
            &format!("fig6d-le-full-utilization-{}pct", p * 100.0),
            &format!(
                "3.3.3 (Fig. 6d): \"LE flows achieve almost full bandwidth utilization\": ten \
                 Westwood+LE flows at {}% loss (ours: bottleneck utilization; 1 with the share \
                 band, ±0.10)",
                p * 100.0
            ),
            Expect::Value {
                paper: 1.0,
                band: Band::SHARE,
            },
            &col(at(3, Scheme::Le, li), |v| v.utilization),
            &diag(3, li),
        );
        e.claims.push(tested(
            c,
            &vec![0.0; grow.len()],
            &grow,
            "LE's cwnd frozen during recovery: the paper's LE \"has no discrete states\" \
             (2.2.3), so AIMD would grow cwnd meanwhile",
            "the same runs with [flow.le] grow_in_recovery = true",
        ));
    }
    if let Some(li) = li_of(0.1) {
        // Headline 2 on Figure 6c (Westwood, one flow), where the paper
        // calls LE "significantly better": the same runs as its rows.
        for x in [Scheme::Sack, Scheme::NewReno] {
            let id = format!("fig6c-le-above-{}-10pct", x.label());
            e.claims.push(
                order(
                    exp,
                    &format!("headline2-le-above-{}-10pct", x.label()),
                    &format!("{HEADLINE2}: LE's throughput above {}'s at the highest loss rate (Figure 6c, Westwood, 10% loss; LE's minus {}'s, Mbit/s, same seed)", x.title(), x.title()),
                    &col(at(2, x, li), |v| v.mbps),
                    &col(at(2, Scheme::Le, li), |v| v.mbps),
                    &diag(2, li),
                )
                .headline()
                .measurement(format!("{exp}/{id}")),
            );
        }
        // Headline 3: with AIMD (6a) and Westwood (6c), LE above the best
        // of the other four on each seed at 10% loss (TCP-RR is fig9's).
        let best_other = |pi: usize| -> Vec<f64> {
            (0..seeds as usize)
                .map(|k| {
                    others
                        .iter()
                        .map(|x| at(pi, *x, li)[k].mbps)
                        .fold(f64::NEG_INFINITY, f64::max)
                })
                .collect()
        };
        for (pi, cc) in [(0, "AIMD"), (2, "Westwood")] {
            e.claims.push(
                order(
                    exp,
                    &format!("headline3-{}-le-above-best-other-10pct", cc.to_lowercase()),
                    &format!("{HEADLINE3}: with {cc} (Figure 6{}), LE's throughput above the best of Reno, NewReno, SACK and FACK at 10% loss (LE's minus the best other's, Mbit/s, same seed)", panels[pi].0),
                    &best_other(pi),
                    &col(at(pi, Scheme::Le, li), |v| v.mbps),
                    &diag(pi, li),
                )
                .headline(),
            );
        }
        // 3.3.2: "The gain of LE increases as cwnd becomes larger": LE's
        // gain over the best other is larger with the fixed window of 32
        // (6b) than under AIMD (6a), whose window stays small.
        let gain = |pi: usize| -> Vec<f64> {
            col(at(pi, Scheme::Le, li), |v| v.mbps)
                .iter()
                .zip(best_other(pi))
                .map(|(l, o)| l / o - 1.0)
                .collect()
        };
        e.claims.push(order(
            exp,
            "fig6-le-gain-larger-with-larger-cwnd",
            "3.3.2: \"The gain of LE increases as cwnd becomes larger\": LE's gain over the best other scheme at 10% loss is larger with a fixed window of 32 (Fig. 6b) than under AIMD (Fig. 6a) (ours: 6b's LE / best other - 1 minus 6a's, same seed)",
            &gain(0),
            &gain(1),
            &format!("{}; {}", diag(0, li), diag(1, li)),
        ));
    }
    let li = losses.len() - 1;
    for (pi, (panel, cc, count)) in panels.iter().enumerate() {
        e.row(
            format!(
                "Fig. 6{panel} ({cc}, {count} flow(s)) at {}% loss: Mbit/s Reno / NewReno / SACK / FACK / LE (seed 1)",
                losses[li] * 100.0
            ),
            SCHEMES
                .iter()
                .map(|s| format!("{:.2}", at(pi, *s, li)[0].mbps))
                .collect::<Vec<_>>()
                .join(" / "),
            match pi {
                0 => "very similar, LE slightly better",
                1 => "LE above all",
                2 => "LE significantly better",
                _ => "LE almost full utilization",
            },
        );
        let xs: Vec<f64> = losses.iter().map(|p| p * 100.0).collect();
        let series = SCHEMES
            .iter()
            .map(|s| {
                let v: Vec<Vec<f64>> = (0..losses.len())
                    .map(|l| col(at(pi, *s, l), |x| x.mbps))
                    .collect();
                (s.title().to_string(), band_points(&xs, &v))
            })
            .collect();
        lines(
            ctx,
            &mut e,
            &format!("fig6{panel}-throughput"),
            &format!("Figure 6{panel}: {cc}, {count} flow(s)"),
            "packet loss rate (%)",
            "throughput (Mbit/s)",
            series,
        )?;
    }
    Ok(e)
}

// ---- Figure 9: the Linux testbed of section 5, in simulation --------------

fn fig9(ctx: &Ctx) -> Result<Experiment, String> {
    let exp = "fig9";
    let agents = Agents::of_linux(ctx.choice(&FIG9_SENDERS))?;
    let link = ctx.choice_u64(&FIG9_LINK)?;
    let seeds = ctx.pick(3u64, 5, 10);
    let duration = ctx.pick(20, 60, 100) * SEC;
    let losses: Vec<f64> = ctx.pick(
        vec![0.05, 0.1],
        vec![0.01, 0.02, 0.05, 0.1],
        (1..=10).map(|i| i as f64 / 100.0).collect(),
    );
    let mut e = Experiment::new(
        exp,
        "The testbed of section 5 in simulation: LE, FACK and SACK with Westwood and TCP-RR (Figure 9)",
        &format!(
            "Section 5.1: 20 ms RTT, netem Bernoulli loss of 1-10% ({} % here), one iperf flow, \
             {} s per run, {seeds} seeds. The testbed's link rate is not given: {link} Mbit/s \
             here (setup choice fig9-link; the main arm takes 100, Fast Ethernet PCs, because LE \
             with TCP-RR reached 6 Mbit/s at 10% loss, which a 6 Mbit/s link could not carry, \
             and a fixed window of 10 segments, the paper's \"upper bound\", gives 10 x 1448 B / \
             20 ms = 5.8 Mbit/s only if the link is faster than that). 1500-byte packets (MSS 1448), \
             a 1000-packet queue (netem's default limit), 4 MB receive window. Westwood is ours \
             (cc westwood), TCP-RR the paper's simplified one (cc tcp-rr: RTO-only window \
             reduction, a shortened RTO); the fixed-window line is cc fixed:10 with FACK (Linux \
             2.6.17's default recovery). The paper's numbers were measured on Linux 2.6.17, \
             whose Westwood bandwidth estimate it reports 1 Mbit/s low above 1% loss (5.2.1); \
             ours is a simulation, so differences are expected. LE also runs growing cwnd \
             during its recovery ([flow.le] grow_in_recovery; the paper: LE \"has no discrete \
             states\"), the variant that tests LE's rows. {}",
            losses
                .iter()
                .map(|p| format!("{}", p * 100.0))
                .collect::<Vec<_>>()
                .join(", "),
            duration / SEC,
            mapping(agents)
        ),
    );
    // The seven lines of Figure 9, then LE growing in recovery (7, 8).
    let lines_def: [(&str, &str, Scheme, bool); 9] = [
        ("westwood", "Westwood + SACK", Scheme::Sack, false),
        ("westwood", "Westwood + FACK", Scheme::Fack, false),
        ("westwood", "Westwood + LE", Scheme::Le, false),
        ("fixed:10", "fixed window 10", Scheme::Fack, false),
        ("tcp-rr", "TCP-RR + SACK", Scheme::Sack, false),
        ("tcp-rr", "TCP-RR + FACK", Scheme::Fack, false),
        ("tcp-rr", "TCP-RR + LE", Scheme::Le, false),
        ("westwood", "Westwood + LE growing", Scheme::Le, true),
        ("tcp-rr", "TCP-RR + LE growing", Scheme::Le, true),
    ];
    let mut cases = Vec::new();
    for (i, _) in lines_def.iter().enumerate() {
        for (li, _) in losses.iter().enumerate() {
            cases.push((i, li));
        }
    }
    let runs = super::common::run_cases(
        ctx,
        exp,
        cases.len(),
        seeds,
        |c, seed| {
            let (i, li) = cases[c];
            let (cc, _, s, grow) = lines_def[i];
            let mut f = flow("a", s, cc, 1448, 4_000_000, agents);
            f.le_grow_in_recovery = grow;
            let mut sc = scenario(
                &format!(
                    "fig9-{}-{}{}-p{}-s{seed}",
                    cc.replace(':', ""),
                    s.label(),
                    if grow { "-grow" } else { "" },
                    (losses[li] * 1000.0).round()
                ),
                duration,
                path(
                    link * 1_000_000,
                    10 * MS,
                    QueueLimit::Packets(1000),
                    LossModel::Bernoulli { p: losses[li] },
                ),
                vec![f],
            );
            sc.seed = seed;
            sc
        },
        keep_point,
    )?;
    let at = |i: usize, li: usize| -> Vec<f64> {
        runs[i * losses.len() + li].iter().map(|x| x.mbps).collect()
    };
    let diag = |li: usize| {
        lines_def
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let v = &runs[i * losses.len() + li];
                format!(
                    "{} {:.2} Mbit/s, {:.1} timeouts",
                    l.1,
                    mean(&v.iter().map(|x| x.mbps).collect::<Vec<_>>()),
                    mean(&v.iter().map(|x| x.timeouts).collect::<Vec<_>>())
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    let li = losses
        .iter()
        .position(|p| (*p - 0.1).abs() < 1e-9)
        .expect("10% loss is run at every scale");
    let d = diag(li);
    let grow_cause = "LE's cwnd frozen during recovery: the paper's LE \"has no discrete \
        states\" (2.2.3), so the controller would grow cwnd meanwhile";
    let grow_how = "the same runs with [flow.le] grow_in_recovery = true";
    let zeros = vec![0.0; seeds as usize];
    let c = claim(
        exp,
        "fig9-westwood-le-above-4",
        "5.2.1: \"At the loss rate of 10%, LE achieved more than 4 Mbps\" (Westwood; ours: \
         goodput, Mbit/s)",
        Expect::AtLeast {
            paper: 4.0,
            band: Band::QUANTITY,
        },
        &at(2, li),
        &d,
    );
    e.claims
        .push(tested(c, &zeros, &at(7, li), grow_cause, grow_how));
    for (i, name) in [(0usize, "sack"), (1, "fack")] {
        e.claims.push(claim(
            exp,
            &format!("fig9-westwood-{name}-3.5"),
            &format!(
                "5.2.1: \"while SACK and FACK achieves approximately 3.5 Mbps\" at 10% loss \
                 (Westwood + {}; ours: goodput, Mbit/s)",
                name.to_uppercase()
            ),
            Expect::Value {
                paper: 3.5,
                band: Band::QUANTITY,
            },
            &at(i, li),
            &d,
        ));
    }
    let c = order(
        exp,
        "fig9-westwood-le-above-fack",
        "5.2.1: \"the performance of LE was better than that of FACK\" (Westwood, 10% loss; ours: \
         LE's minus FACK's goodput, Mbit/s, same seed)",
        &at(1, li),
        &at(2, li),
        &d,
    );
    e.claims
        .push(tested(c, &at(1, li), &at(7, li), grow_cause, grow_how));
    let (le, fixed) = (at(2, li), at(3, li));
    let ratio = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(a, b)| a / b).collect::<Vec<_>>();
    let c = claim(
        exp,
        "fig9-westwood-le-80pct-of-fixed-10",
        "5.2.1: \"Even though LE did not approach the ideal line, it achieved almost 80% of the \
         ideal value\" (the fixed window of 10; ours: Westwood + LE's goodput over the fixed \
         window's at 10% loss, same seed)",
        Expect::Value {
            paper: 0.8,
            band: Band::SHARE,
        },
        &ratio(&le, &fixed),
        &d,
    );
    e.claims.push(tested(
        c,
        &zeros,
        &ratio(&at(7, li), &fixed),
        grow_cause,
        grow_how,
    ));
    let c = claim(
        exp,
        "fig9-tcp-rr-le-6",
        "5.2.2: \"LE with TCP-RR achieved 6 Mbps throughput at the loss rate of 10%\" (ours: \
         goodput, Mbit/s)",
        Expect::Value {
            paper: 6.0,
            band: Band::QUANTITY,
        },
        &at(6, li),
        &d,
    );
    e.claims
        .push(tested(c, &zeros, &at(8, li), grow_cause, grow_how));
    let (fack, le) = (at(5, li), at(6, li));
    e.claims.push(effect(
        exp,
        "fig9-tcp-rr-le-50pct-above-fack",
        "5.2: \"With TCP-RR congestion control, a performance improvement of 50% was observed \
         when the loss rate is high\" (LE over FACK; ours: LE / FACK - 1 at 10% loss, ratio of \
         totals over paired seeds)",
        Expect::Effect {
            paper: 0.5,
            band: Band::EFFECT,
        },
        &fack,
        &le,
        &d,
    ));
    e.claims.push(
        order(
            exp,
            "headline3-tcp-rr-le-above-fack-10pct",
            &format!("{HEADLINE3}: with TCP-RR (Figure 9 right), LE's throughput above FACK's at 10% loss (LE's minus FACK's, Mbit/s, same seed)"),
            &fack,
            &le,
            &d,
        )
        .headline()
        .measurement(format!("{exp}/fig9-tcp-rr-le-50pct-above-fack")),
    );
    let c = order(
        exp,
        "fig9-westwood-le-above-sack",
        "5.2.1: \"At the loss rate of 10%, LE achieved more than 4 Mbps while SACK and FACK \
         achieves approximately 3.5 Mbps\" (Westwood; ours: LE's minus SACK's goodput, Mbit/s, \
         same seed)",
        &at(0, li),
        &at(2, li),
        &d,
    );
    e.claims
        .push(tested(c, &at(0, li), &at(7, li), grow_cause, grow_how));
    e.claims.push(
        Claim::not_measured(
            PAPER,
            exp,
            "headline4-testbed-like-simulation",
            &format!("{HEADLINE4}: the testbed's throughput increase of LE is similar to the simulation's"),
            Expect::Order {
                paper_positive: true,
            },
            "Our model cannot express it: the claim compares the paper's Linux 2.6.17 testbed \
             (netem, whose Westwood bandwidth estimate it reports 1 Mbit/s low above 1% loss, \
             5.2.1) with its ns-2 simulation, and both of our Figure 6 and Figure 9 are \
             simulations of one simulator; their gains differ only by the settings each figure \
             states (RTT, link, segment size), not by testbed against simulation. Figure 9's \
             rows judge the testbed's own numbers.",
        )
        .headline(),
    );
    e.row(
        "10% loss, Mbit/s: Westwood SACK / FACK / LE / fixed 10 (seed 1)",
        (0..4)
            .map(|i| format!("{:.2}", at(i, li)[0]))
            .collect::<Vec<_>>()
            .join(" / "),
        "~3.5 / ~3.5 / > 4 / ~5",
    );
    e.row(
        "10% loss, Mbit/s: TCP-RR SACK / FACK / LE (seed 1)",
        (4..7)
            .map(|i| format!("{:.2}", at(i, li)[0]))
            .collect::<Vec<_>>()
            .join(" / "),
        "- / ~4 / 6",
    );
    let xs: Vec<f64> = losses.iter().map(|p| p * 100.0).collect();
    for (name, title, range) in [
        (
            "fig9-westwood",
            "Figure 9 (left): Westwood, 20 ms RTT",
            0..4,
        ),
        ("fig9-tcp-rr", "Figure 9 (right): TCP-RR, 20 ms RTT", 4..7),
    ] {
        let series = range
            .map(|i| {
                let v: Vec<Vec<f64>> = (0..losses.len()).map(|l| at(i, l)).collect();
                (lines_def[i].1.to_string(), band_points(&xs, &v))
            })
            .collect();
        lines(
            ctx,
            &mut e,
            name,
            title,
            "packet loss rate (%)",
            "throughput (Mbit/s)",
            series,
        )?;
    }
    Ok(e)
}

/// Every metric a headline row of the LE paper judges can land on either
/// side of its band (a metric that cannot fail is no finding), on cheap
/// runs of Figure 4's window and Figure 6's path.
#[cfg(test)]
mod tests {
    use super::*;

    const RTT: Time = 100 * MS;

    fn recovery(s: Scheme, n: usize) -> Recovery {
        let (first, _) = fig4_train(RTT, Timers::Ns2).unwrap();
        let sc = fig4_scenario(s, (Agents::Ns2, Timers::Ns2), RTT, first, n, 1);
        fig4_measure(&super::super::common::run(&sc, None).unwrap(), RTT)
    }

    /// Figure 4's drops are one window: the measured train is 32
    /// segments sent back to back (0.8 ms apart at 10 Mbit/s) with a gap
    /// of more than a quarter round trip on either side (the window takes
    /// 25.6 ms to send: the gap is the RTT less that), and every N's
    /// drops fall inside it, on every seed.
    #[test]
    fn figure_4_drops_come_from_one_measured_train() {
        for rtt in [40 * MS, RTT, 200 * MS] {
            let (first, last) = fig4_train(rtt, Timers::Ns2).unwrap();
            assert_eq!(last - first + 1, 32, "rtt {rtt}");
            assert!(first >= FIG4_BASE);
            let sc = fig4_lossless(rtt, Timers::Ns2);
            let t = first_sends(&super::super::common::run(&sc, None).unwrap());
            let at = |seg: u64| t[seg as usize - 1];
            for seg in first + 1..=last {
                assert!(at(seg) - at(seg - 1) < 2 * MS, "segment {seg}, rtt {rtt}");
            }
            assert!(at(first) - at(first - 1) > rtt / 4, "rtt {rtt}");
            assert!(at(last + 1) - at(last) > rtt / 4, "rtt {rtt}");
            for n in [1, 8, 19, 31] {
                for seed in 1..=10 {
                    let d = fig4_drops(n, seed, first);
                    assert_eq!(d.len(), n);
                    assert!(d.iter().all(|x| (first..=last).contains(x)), "{d:?}");
                }
            }
        }
        // The splitter itself on a hand-made sequence: 0, 1, 2 ms, then
        // 50, 51 ms, then 100 ms.
        let ms = |v: &[u64]| v.iter().map(|x| x * MS).collect::<Vec<_>>();
        assert_eq!(
            trains(&ms(&[0, 1, 2, 50, 51, 100]), 10 * MS),
            vec![(1, 3), (4, 5), (6, 6)]
        );
    }

    fn mbps(s: Scheme, cc: &str, p: f64) -> f64 {
        let loss = if p > 0.0 {
            LossModel::Bernoulli { p }
        } else {
            LossModel::None
        };
        let mut sc = scenario(
            &format!("t-{}-{p}", s.label()),
            10 * SEC,
            path(10_000_000, 25 * MS, QueueLimit::Packets(62), loss),
            vec![flow("a", s, cc, SIM_MSS, SIM_RCVBUF, Agents::Ns2)],
        );
        sc.seed = 1;
        keep_point(super::super::common::results_only(&sc).unwrap()).mbps
    }

    /// Every flow the reproduction runs can be exported (`reproduce le
    /// --export`) and reads back the same: each scheme under each arm,
    /// with ns-2's timers, and LE growing in recovery.
    #[test]
    fn every_flow_exports_and_reads_back() {
        let arms = [
            Agents::Ns2,
            Agents::Ns2NoLimitedTransmit,
            Agents::Rfc,
            Agents::Linux2617,
            Agents::LinuxRfc,
            Agents::LinuxRfcNoUndo,
        ];
        for a in arms {
            for s in SCHEMES {
                for timers in [Timers::Ns2, Timers::Linux, Timers::Rfc6298] {
                    let mut f = flow("a", s, "westwood", SIM_MSS, SIM_RCVBUF, a);
                    timers.apply(&mut f);
                    f.le_grow_in_recovery = s == Scheme::Le;
                    let sc = scenario(
                        "t",
                        SEC,
                        path(
                            10_000_000,
                            25 * MS,
                            QueueLimit::Packets(62),
                            LossModel::None,
                        ),
                        vec![f],
                    );
                    let text = losslab_sim::emit::to_toml(&sc)
                        .unwrap_or_else(|e| panic!("{a:?} {s:?} {timers:?}: {e}"));
                    let back = losslab_sim::parse::parse_scenario("t.toml", &text, &[])
                        .unwrap_or_else(|e| panic!("{a:?} {s:?} {timers:?}: {e}\n{text}"));
                    assert_eq!(back.flows, sc.flows, "{a:?} {s:?} {timers:?}");
                }
            }
        }
    }

    /// The NewReno row is Reno's minus NewReno's duration (`order(a =
    /// NewReno, b = Reno)`); its variant replaces NewReno, so `tested`
    /// must take the variant first. A hand-made pair: NewReno 1 s slower
    /// than Reno (contradicted), its variant 1 s faster (the paper's
    /// sign): the variant explains the row. The other way round it would
    /// compute variant - Reno, -1 s, and reject it.
    #[test]
    fn a_tested_variant_keeps_the_rows_sign() {
        let reno = [2.0, 2.1, 1.9, 2.0];
        let newreno = [3.0, 3.1, 2.9, 3.05];
        let impatient = [1.0, 1.1, 0.9, 1.05];
        let c = order("fig4", "x", "NewReno before Reno", &newreno, &reno, "");
        assert!(c.verdict.needs_explanation(), "{:?}", c.verdict);
        let explained = tested(c.clone(), &impatient, &reno, "the timer", "impatient");
        assert!(
            explained.explanation.starts_with("Explained by the timer"),
            "{}",
            explained.explanation
        );
        let reversed = tested(c, &reno, &impatient, "the timer", "impatient");
        assert!(
            reversed.explanation.contains("tested and rejected"),
            "{}",
            reversed.explanation
        );
    }

    #[test]
    fn headline_metrics_take_both_sides() {
        // Headline 1's metrics: LE's duration changes between numbers of
        // losses (the growth row), and its timeouts (0).
        let r: Vec<(usize, Recovery)> = [1, 2, 3, 29, 32]
            .into_iter()
            .map(|n| (n, recovery(Scheme::Le, n)))
            .collect();
        eprintln!("{r:?}");
        let rel: Vec<f64> = r
            .windows(2)
            .map(|w| w[1].1.duration_s / w[0].1.duration_s - 1.0)
            .collect();
        eprintln!("relative changes of duration: {rel:?}");
        assert!(rel.iter().any(|x| x.abs() <= 0.10), "{rel:?}");
        assert!(rel.iter().any(|x| x.abs() > 0.10), "{rel:?}");
        let timeouts: Vec<f64> = r.iter().map(|x| x.1.timeouts).collect();
        assert!(timeouts.contains(&0.0), "{timeouts:?}");
        assert!(timeouts.iter().any(|t| *t > 0.0), "{timeouts:?}");
        // Headlines 2 and 3: LE's throughput minus another's (order).
        let d: Vec<f64> = [0.0, 0.1]
            .into_iter()
            .map(|p| mbps(Scheme::Le, "fixed:32", p) - mbps(Scheme::Sack, "fixed:32", p))
            .collect();
        eprintln!("LE - SACK, fixed window 32, 0% and 10% loss: {d:?}");
        assert!(d.iter().any(|x| *x > 0.0), "{d:?}");
        assert!(d.iter().any(|x| *x <= 0.0), "{d:?}");
    }
}
