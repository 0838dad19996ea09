//! The mobile opportunistic-retransmission paper
//! (../shared/papers/mobile-opportunistic-retransmission-sndbuf.txt): the
//! loss-recovery algorithms RH, PRR, QARR and BARR with and without its
//! two optimizations, opportunistic retransmission past the receive window
//! (section IV) and a send buffer grown by 3 x cwnd (section V.C), on its
//! emulated HSPA+ and LTE paths (Table 3).
//!
//! The testbed (Table 3): C = 20 Mbit/s (HSPA+) or 100 Mbit/s (LTE), U =
//! 50-200 ms round trip, a 4.3 MB bottleneck buffer, 1515-byte packets,
//! AW = C x U, Bernoulli loss; the senders run Linux 3.10 (profile
//! `linux-3.10`, with Linux 3.10's cwnd validation and send buffer).
//!
//! What each experiment measures:
//! - `bursts` (Tables 1, 2, 4, 5): the bandwidth utilization of the
//!   loss-recovery period (section III, Fig. 1, eq. 8) after a burst of
//!   consecutive losses, measured at the bottleneck (the results'
//!   `recovery_periods`), and the application stall of section V.
//! - `hspa` (Tables 6-9) and `lte` (Tables 10-13): goodput over 200 s of
//!   Bernoulli loss for the congestion controllers x recovery algorithms.
//! - `limits` (Tables 14, 15): QARR and BARR at 0.5% loss and at high
//!   bandwidth, with the retransmissions spared ("Optimal") and with Hack 1.
//! - `spikes` (Figures 4 and 5): the RTT after a recovery, 50 MB with 5
//!   drops.
//!
//! Seeds vary the Bernoulli draws and, for the hand-placed drops, where
//! they fall in the transfer (the paper's bursts are at no stated point).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

use losslab_core::recovery::{AckRtt, QarrUpdate};
use losslab_core::sndbuf::LinuxSndbuf;
use losslab_core::time::{Time, MS, SEC};
use losslab_core::CwndValidation;
use losslab_sim::results::FlowResults;
use losslab_sim::scenario::{CcSpec, DropSpec, FlowSpec, LossModel, QueueLimit, Scenario};

use super::claims::{
    heavy_tail_explanation, near_capacity, paired_difference, paired_relative, summary_text,
    supports, untested, Band, Claim, Expect, Verdict, UNEXPLAINED, UNTESTED,
};
use super::common::{path, scenario};
use super::setup::{moves, one_side_only, Side};
use super::{Ctx, Experiment, PaperResult};

const PAPER: &str = "mobile";
/// Table 3's 1515-byte packets less our 52 bytes of IP, TCP and timestamp
/// headers.
const MSS: u32 = 1463;
const HSPA: u64 = 20_000_000;
const LTE: u64 = 100_000_000;
/// Table 3's L.
const QUEUE: u64 = 4_300_000;
/// The paper names its recovery modules; ours, by the same names. Its PRR
/// is Linux 3.10's built-in one (tcp_cwnd_reduction(), `prr-linux-3`;
/// `prr-6937`, RFC 6937's, before issue 32) and its RH Linux's
/// rate-halving before 3.2.
const RECS: [(&str, &str); 4] = [
    ("RH", "rate-halving"),
    ("PRR", "prr-linux-3"),
    ("QARR", "qarr"),
    ("BARR", "barr"),
];
/// "cubic" is the profile's CUBIC, Linux 3.10's tcp_cubic.c
/// (`cubic-linux-3`; RFC 9438's `cubic` before issue 32).
const CCS: [(&str, &str); 4] = [
    ("CUBIC", "cubic"),
    ("Veno", "veno"),
    ("Westwood", "westwood"),
    ("Vegas", "vegas"),
];

/// Which of the paper's optimizations a run uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Opt {
    /// Linux 3.10 as it is ("Original").
    Original,
    /// Opportunistic retransmission only (Tables 1 and 2's "w/ OR").
    Or,
    /// Opportunistic retransmission and the send buffer grown by 3 x cwnd
    /// ("the proposed optimization algorithms", "Optimized").
    Optimized,
    /// Optimized, and the emulator never drops a retransmission (Table
    /// 14's "Optimized (Optimal)").
    Optimal,
    /// Optimized with Hack 1 (section VIII).
    Hack1,
}

impl Opt {
    fn label(self) -> &'static str {
        match self {
            Opt::Original => "original",
            Opt::Or => "or",
            Opt::Optimized => "optimized",
            Opt::Optimal => "optimal",
            Opt::Hack1 => "hack1",
        }
    }
    fn extensions(self) -> &'static [&'static str] {
        match self {
            Opt::Original => &[],
            Opt::Or => &["opportunistic"],
            Opt::Optimized | Opt::Optimal => &["opportunistic", "sndbuf-factor-3"],
            Opt::Hack1 => &["opportunistic", "sndbuf-factor-3", "hack1"],
        }
    }
}

/// One configuration of the testbed.
#[derive(Clone, Copy, Debug)]
struct Case {
    rate: u64,
    /// U, the round-trip propagation delay, ms.
    u_ms: u64,
    /// Bernoulli loss on the data path (ignored with `burst`).
    loss: f64,
    cc: &'static str,
    rec: &'static str,
    opt: Opt,
    duration: Time,
    /// A burst of this many consecutive packets dropped, instead of
    /// random loss.
    burst: Option<u64>,
    /// 50 MB with five single drops (Figures 4 and 5).
    download: bool,
    /// A change that tests an explanation (`Tweak`); None in the main arm.
    tweak: Option<Tweak>,
}

impl Case {
    fn name(&self, seed: u64) -> String {
        let what = match (self.burst, self.download) {
            (Some(n), _) => format!("burst{n}"),
            (None, true) => "50MB-5drops".into(),
            (None, false) => format!("loss{}", self.loss),
        };
        let tweak = self
            .tweak
            .map_or(String::new(), |t| format!("-{}", t.label()));
        format!(
            "mobile-{}mbps-{}ms-{what}-{}-{}-{}{tweak}-s{seed}",
            self.rate / 1_000_000,
            self.u_ms,
            self.cc,
            self.rec,
            self.opt.label()
        )
    }
}

/// A change to the main arm's runs that tests an explanation of the rows
/// it does not reproduce (issue 30). Each is run over the same seeds as
/// the main arm, on the cases it changes (`applies`); a row is judged
/// again on the variant's runs, and the variant explains the row only if
/// the row, so judged, is reproduced (claims.rs `supports`). Two of them
/// (`disclosed`: `RttTsecr`, `AwndPayload`) undo choices of ours made
/// after seeing their effect, so that their effect is on the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tweak {
    /// QARR's eq. 2 once per round trip (`[flow.qarr] update = "per-rtt"`).
    QarrPerRtt,
    /// QARR's W_i = pipe_i - excess (`update = "pipe"`).
    QarrPipe,
    /// QARR's target queue Q_T = 50 instead of the paper's 5.
    QarrTarget50,
    /// Q_T = 1000: eq. 2 effectively off, the control that says whether a
    /// reading explains a row by its own mechanism or only by cutting
    /// the window less.
    QarrTarget1000,
    /// RTT_i from the ACK's timestamp echo, the paper's words, instead of
    /// our "delivered" reading (QARR and BARR).
    RttTsecr,
    /// AW = C x U in payload bytes instead of whole 1515-byte packets.
    AwndPayload,
    /// The emulator drops outgoing packets both ways: ACKs too, at the
    /// data path's rate.
    AckLoss,
    /// A receive buffer 1.25 (`Headroom125`) or 2 (`Headroom2`) times the
    /// window, the window still clamped to AW: Linux 3.10 doubles
    /// SO_RCVBUF and advertises part of it (`receiver.window_clamp`).
    Headroom125,
    Headroom2,
    /// The writer woken on a third of the send buffer free runs 10 ms
    /// later (`sndbuf.wake_delay`).
    WakeDelay,
    /// The burst placed between the 20,000th and 23,000th packet rather
    /// than the 3000th and 6000th (the run 12 s longer).
    BurstLate,
    /// Westwood as its papers and section II.B define it, BWE x RTTmin at
    /// every congestion signal and nothing at the end of a recovery
    /// (`[flow.westwood] ssthresh = "bwe"`, `complete_cwr = false`): the
    /// main arm before `linux-3.10` took Linux's tcp_westwood.c.
    WestwoodBwe,
    /// Hack 1 fires once per run of duplicate ACKs without new SACK
    /// (`[flow.hack1] refire = false`) rather than every dupthresh + 1.
    Hack1Once,
    /// The utilization of every recovery period after the burst together
    /// rather than of the first: a measurement, not a run (the runs are
    /// the main arm's).
    AllPeriods,
    /// Linux's default tcp_wmem maximum, 4 MiB, rather than our 64 MiB.
    Wmem4M,
    /// No sender interface rate: every segment reaches the bottleneck the
    /// instant it is sent, as every run did before the main arm took the
    /// testbed's 1 Gbit/s NIC.
    NoNic,
    /// No TCP Small Queues: the host's queue unbounded and in the RTT, as
    /// the first run with the NIC had it.
    NoTsq,
    /// TCP Small Queues counted in truesize, as Linux 3.10 counts it: 2,304
    /// bytes per 1515-byte packet in a 2 KiB head, so 128 KiB of truesize
    /// is 86,186 wire bytes (the seventh review). A typical distribution
    /// build without GSO allocates 4 KiB (about 4,352 bytes of truesize,
    /// 45,626 wire bytes: the eighth review), which is not a variant yet.
    TsqTruesize,
}

impl Tweak {
    /// The variants run against the rows. `Headroom2` is among them
    /// although it is more than our reading of the Linux arithmetic
    /// (1.25): the "window" table's optimal cells reproduce only at 2 AW,
    /// so the rows must say what a buffer that large does to them.
    const ALL: [Tweak; 18] = [
        Tweak::QarrPerRtt,
        Tweak::QarrPipe,
        Tweak::QarrTarget50,
        Tweak::QarrTarget1000,
        Tweak::RttTsecr,
        Tweak::AwndPayload,
        Tweak::AckLoss,
        Tweak::Headroom125,
        Tweak::Headroom2,
        Tweak::WakeDelay,
        Tweak::BurstLate,
        Tweak::WestwoodBwe,
        Tweak::Hack1Once,
        Tweak::AllPeriods,
        Tweak::Wmem4M,
        Tweak::NoNic,
        Tweak::NoTsq,
        Tweak::TsqTruesize,
    ];

    fn label(self) -> &'static str {
        match self {
            Tweak::QarrPerRtt => "qarr-per-rtt",
            Tweak::QarrPipe => "qarr-pipe",
            Tweak::QarrTarget50 => "qarr-qt50",
            Tweak::QarrTarget1000 => "qarr-qt1000",
            Tweak::RttTsecr => "rtt-tsecr",
            Tweak::AwndPayload => "awnd-payload",
            Tweak::AckLoss => "ack-loss",
            Tweak::Headroom125 => "headroom-1.25",
            Tweak::Headroom2 => "headroom-2",
            Tweak::WakeDelay => "wake-10ms",
            Tweak::BurstLate => "burst-late",
            Tweak::WestwoodBwe => "westwood-bwe",
            Tweak::Hack1Once => "hack1-once",
            Tweak::AllPeriods => "all-periods",
            Tweak::Wmem4M => "wmem-4m",
            Tweak::NoNic => "no-nic",
            Tweak::NoTsq => "no-tsq",
            Tweak::TsqTruesize => "tsq-truesize",
        }
    }

    fn from_label(s: &str) -> Option<Tweak> {
        Tweak::ALL.into_iter().find(|t| t.label() == s)
    }

    /// The cause the variant tests.
    fn cause(self) -> &'static str {
        match self {
            Tweak::QarrPerRtt => {
                "a QARR other than the paper's (a reading of ours, not the text's: section II.D \
                 applies eq. 2 on every ACK/DUPACK): eq. 2 once per round trip (a queue lasts \
                 about a round trip, so per ACK the same excess is cut once per ACK)"
            }
            Tweak::QarrPipe => {
                "a QARR other than the paper's (a reading of ours, not the text's): the window set \
                 to the flight before the ACK less the excess (W_i = pipe_i - max(Q_i - Q_T, 0)) \
                 rather than W_{i-1} less it"
            }
            Tweak::QarrTarget50 => {
                "a target queue other than the paper's (Q_T = 5, section VI): Q_T = 50"
            }
            Tweak::QarrTarget1000 => {
                "a QARR whose eq. 2 barely acts (Q_T = 1000, the control: a reading that explains \
                 a row no better than this one explains it only by cutting the window less; \
                 section VII.B says QARR's and BARR's \"CWnd/ssthreshs are unaffected by packet \
                 losses\")"
            }
            Tweak::RttTsecr => {
                "RTT_i read from the ACK's timestamp echo, as the paper words it, rather than our \
                 \"delivered\" reading (a choice of ours made after seeing that the echo put QARR \
                 below PRR: docs/ALGORITHMS.md, \"QARR\")"
            }
            Tweak::AwndPayload => {
                "AW = C x U counted in payload bytes rather than in whole 1515-byte packets (a \
                 choice of ours made after seeing QARR read the 6-12 packets of standing queue the \
                 payload reading leaves as congestion; run for every algorithm)"
            }
            Tweak::AckLoss => {
                "loss on the ACK path too (\"the emulator randomly drops the outgoing packets\", \
                 section VII.A, which need not mean the data direction only)"
            }
            Tweak::Headroom125 => {
                "a receive buffer larger than the window it advertises, as our reading of the \
                 paper's Linux 3.10 receiver has it (about 1.25 times, by SO_RCVBUF doubled, \
                 tcp_adv_win_scale = 1 and truesize), so that SACKed data above a second hole \
                 holds the window back less; the \"window\" table's optimal cells reproduce only \
                 at 2 times (headroom-2)"
            }
            Tweak::Headroom2 => {
                "a receive buffer twice the window it advertises (more than our reading of the \
                 Linux 3.10 arithmetic, 1.25 times, but the buffer at which the \"window\" \
                 table's optimal BARR cells reproduce)"
            }
            Tweak::WakeDelay => {
                "a writing application that is not instantaneous: section V.A's process, woken by \
                 tcp_write_space() when a third of the send buffer is free, must be scheduled \
                 before it refills it (10 ms, one jiffy at HZ = 100: ours, the paper gives none)"
            }
            Tweak::BurstLate => {
                "where the burst falls (the paper gives no point; ours is soon after slow start, \
                 where the flow, its window and its send buffer may not yet be in the steady \
                 state the model of section III assumes)"
            }
            Tweak::WestwoodBwe => {
                "which Westwood: our main arm runs Linux 3.10's tcp_westwood.c (Reno's half \
                 window at the signal, BWE x RTTmin by CA_EVENT_LOSS after a timeout and by \
                 CA_EVENT_COMPLETE_CWR when any recovery ends, QARR's and BARR's included, \
                 though section VII.B says their windows are unaffected by losses); the \
                 Westwood+ papers and section II.B set BWE x RTTmin at the signal and nothing \
                 after, under which Westwood is inert under QARR and BARR, as Veno and Vegas are"
            }
            Tweak::Hack1Once => {
                "a Hack 1 other than ours (section VIII says it \"triggers fast retransmit\" when \
                 the count of DUPACKs without new SACKs exceeds dupthresh, not when it may fire \
                 again; ours starts the count over and fires every dupthresh + 1 of them, which \
                 can resend one segment hundreds of times within a round trip of discards): \
                 once per run of such DUPACKs, as classic fast retransmit fires once at \
                 DupThresh"
            }
            Tweak::AllPeriods => {
                "which recovery period eq. 8 measures: after opportunistic retransmission a \
                 second recovery can follow the burst's (the receiver discarded segments sent \
                 past its window, and QARR resends them at a small window; the fourth review's S3), \
                 which the paper does not mention; ours measures the first (the alternative is \
                 the busy share of the closed periods' time together: a period still open at the \
                 run's end and the time between periods are left out)"
            }
            Tweak::Wmem4M => {
                "the send buffer's ceiling: the paper gives no tcp_wmem; ours is 64 MiB, since its \
                 1 Gbit/s cells need far more than Linux's default maximum of 4 MiB (Table 15's \
                 929 Mbit/s at U = 100 ms is 11.6 MB in flight)"
            }
            Tweak::NoNic => {
                "the sender's interface: section VII.A's hosts have \"1Gbps NICs\", so a window \
                 leaves the sender no faster than 1 Gbit/s; without it (our runs before the \
                 fifth review) a window sent at once reaches the bottleneck at one instant, and \
                 at 800 Mbit/s and 1 Gbit/s bursts of thousands of segments overflowed the \
                 4.3 MB queue (a diagnosis on the page)"
            }
            Tweak::NoTsq => {
                "the sender's host queue: Linux 3.10's TCP Small Queues keeps all but \
                 tcp_limit_output_bytes (128 KiB) unsent in the socket, untimestamped; without \
                 it (the first run with the NIC, the sixth review's S1) the host holds whatever \
                 the sender hands it, and its queueing is in the RTT samples"
            }
            Tweak::TsqTruesize => {
                "TCP Small Queues' byte count: Linux 3.10 counts each skb's truesize, which \
                 its build decides: 2,304 bytes for a 1448-byte segment in a 2 KiB head (a \
                 minimal build, or GSO's head), about 4,352 in a 4 KiB allocation on a typical \
                 distribution build without GSO (the cwnd test our runs take assumes none; the \
                 eighth review's estimate, not run here); this variant takes 2,304, so its \
                 128 KiB holds 86,186 wire bytes; ours counts wire bytes, as a GSO sender's \
                 large skbs nearly would (the seventh review)"
            }
        }
    }

    /// What the variant changes in the scenario.
    fn how(self) -> &'static str {
        match self {
            Tweak::QarrPerRtt => "[flow.qarr] update = \"per-rtt\"",
            Tweak::QarrPipe => "[flow.qarr] update = \"pipe\"",
            Tweak::QarrTarget50 => "[flow.qarr] queue_len_threshold = 50",
            Tweak::QarrTarget1000 => "[flow.qarr] queue_len_threshold = 1000",
            Tweak::RttTsecr => "rtt_source = \"tsecr\"",
            Tweak::AwndPayload => "rcvbuf = C x U / 8 bytes",
            Tweak::AckLoss => "reverse-path Bernoulli loss at the data path's rate",
            Tweak::Headroom125 => "rcvbuf = 1.25 AW, window_clamp = AW",
            Tweak::Headroom2 => "rcvbuf = 2 AW, window_clamp = AW",
            Tweak::WakeDelay => "sndbuf wake_delay = 10 ms",
            Tweak::BurstLate => "the burst at the 20,000th to 23,000th packet",
            Tweak::WestwoodBwe => "[flow.westwood] ssthresh = \"bwe\", complete_cwr = false",
            Tweak::Hack1Once => "[flow.hack1] refire = false",
            Tweak::AllPeriods => "utilization over every recovery period after the burst",
            Tweak::Wmem4M => "sndbuf wmem_max = 4 MiB",
            Tweak::NoNic => "no nic_rate",
            Tweak::NoTsq => "no tsq_limit",
            Tweak::TsqTruesize => "tsq_limit = 86,186 bytes (truesize)",
        }
    }

    /// Whether the tweak changes runs row `c` judges (so the row was
    /// tested even where the numbers come out the same: a burst's
    /// recovery in the steady state is the same wherever it falls). By
    /// `applies`: the QARR readings change the QARR runs, whose rows name
    /// QARR in their ids (tab*-qarr-*, eff-*-qarr-*, ord-*-qarr-over-*,
    /// hl5-qarr-*, fig5-qarr-*, ...); the RTT source QARR's and BARR's;
    /// the others every case of the experiments they apply to.
    fn changes_row(self, c: &Claim) -> bool {
        let exp = c.experiment.as_str();
        match self {
            Tweak::QarrPerRtt | Tweak::QarrPipe | Tweak::QarrTarget50 | Tweak::QarrTarget1000 => {
                c.id.contains("qarr")
            }
            Tweak::RttTsecr => c.id.contains("qarr") || c.id.contains("barr"),
            Tweak::AwndPayload | Tweak::Headroom125 | Tweak::Headroom2 => {
                matches!(exp, "bursts" | "hspa" | "lte" | "limits" | "spikes")
            }
            // Random loss: not the loss-free run.
            Tweak::AckLoss => matches!(exp, "hspa" | "lte" | "limits") && c.id != "sec7c-no-loss",
            Tweak::WakeDelay | Tweak::BurstLate => exp == "bursts",
            Tweak::WestwoodBwe => c.id.contains("westwood"),
            Tweak::Hack1Once => c.id.contains("hack1"),
            // A measurement: the rows whose numbers it changes.
            Tweak::AllPeriods => false,
            Tweak::Wmem4M | Tweak::NoNic | Tweak::NoTsq | Tweak::TsqTruesize => {
                matches!(exp, "bursts" | "hspa" | "lte" | "limits" | "spikes")
            }
        }
    }

    /// Whether `--quick` runs it: QARR's per-round-trip and pipe readings
    /// with their control (Q_T = 1000, so the quick run credits a QARR
    /// reading as the page does) and the burst runs' two, enough to
    /// exercise every path of `explain` (a row explained, a row with
    /// variants rejected) while
    /// CI's two quick runs stay within its time (the others rerun the
    /// 100 Mbit/s cells, most of the quick run's cost); the thorough and
    /// full sizes, which the page shows, run them all, the default none.
    fn quick(self) -> bool {
        matches!(
            self,
            Tweak::QarrPerRtt
                | Tweak::QarrPipe
                | Tweak::QarrTarget1000
                | Tweak::WakeDelay
                | Tweak::BurstLate
                | Tweak::AllPeriods
        )
    }

    /// A change to QARR's eq. 2 that the Q_T = 1000 control checks (the
    /// control included): where the control reproduces a row, it does not
    /// explain it.
    fn controlled(self) -> bool {
        matches!(
            self,
            Tweak::QarrPerRtt | Tweak::QarrPipe | Tweak::QarrTarget50 | Tweak::QarrTarget1000
        )
    }

    /// An alternative in the setup table (a value the paper does not
    /// give, a disclosed reading of ours, or a measurement): where it
    /// meets the paper, the row is decided by a setting of ours, not
    /// explained.
    fn setting(self) -> bool {
        SETUP.iter().any(|ch| ch.alternatives.contains(&self))
    }

    /// Undoes a choice of ours made after seeing its effect.
    fn disclosed(self) -> bool {
        matches!(self, Tweak::RttTsecr | Tweak::AwndPayload)
    }

    /// Whether the variant changes this case at all.
    fn applies(self, c: &Case) -> bool {
        match self {
            Tweak::QarrPerRtt | Tweak::QarrPipe | Tweak::QarrTarget50 | Tweak::QarrTarget1000 => {
                c.rec == "qarr"
            }
            // Every algorithm: rows comparing QARR with the others would
            // otherwise mix two definitions of AW.
            Tweak::AwndPayload => true,
            Tweak::RttTsecr => matches!(c.rec, "qarr" | "barr"),
            // Random loss only: the bursts and the downloads drop chosen
            // packets.
            Tweak::AckLoss => c.burst.is_none() && !c.download && c.loss > 0.0,
            // Without opportunistic retransmission nothing is sent past the
            // window, and one hole's SACKed data stays within it.
            // Original runs too: SACKed data above a second hole holds the
            // window back without opportunistic retransmission as well.
            Tweak::Headroom125 | Tweak::Headroom2 => true,
            // The stall rows are the bursts' (section V.B measures it there).
            Tweak::WakeDelay | Tweak::BurstLate => c.burst.is_some(),
            Tweak::WestwoodBwe => c.cc == "westwood",
            Tweak::Hack1Once => c.opt == Opt::Hack1,
            // No run changes: the burst rows measure the main arm's runs
            // otherwise.
            Tweak::AllPeriods => false,
            Tweak::Wmem4M | Tweak::NoNic | Tweak::NoTsq | Tweak::TsqTruesize => true,
        }
    }

    fn apply(self, c: &Case, sc: &mut Scenario) {
        let f = &mut sc.flows[0];
        match self {
            Tweak::QarrPerRtt => f.qarr_update = QarrUpdate::PerRtt,
            Tweak::QarrPipe => f.qarr_update = QarrUpdate::Pipe,
            Tweak::QarrTarget50 => f.qarr_queue_len_threshold = 50,
            Tweak::QarrTarget1000 => f.qarr_queue_len_threshold = 1000,
            Tweak::RttTsecr => f.recovery_rtt_source = AckRtt::TsEcr,
            Tweak::AwndPayload => f.receiver.rcvbuf = c.rate / 8 * c.u_ms / 1000,
            Tweak::AckLoss => sc.reverse.loss = LossModel::Bernoulli { p: c.loss },
            Tweak::Headroom125 => headroom(f, 5, 4),
            Tweak::Headroom2 => headroom(f, 2, 1),
            Tweak::WakeDelay => {
                if let Some(m) = f.sndbuf_model.as_mut() {
                    m.wake_delay = 10 * MS;
                }
            }
            // `drops` and `build` read the tweak themselves: the drop list
            // and the duration are made there.
            Tweak::BurstLate => {}
            Tweak::WestwoodBwe => {
                f.westwood_ssthresh = losslab_core::cc::WestwoodSsthresh::Bwe;
                f.westwood_complete_cwr = false;
            }
            Tweak::Hack1Once => f.hack1_refire = false,
            Tweak::AllPeriods => {}
            Tweak::Wmem4M => {
                if let Some(m) = f.sndbuf_model.as_mut() {
                    m.wmem_max = 4 << 20;
                }
            }
            // TCP Small Queues needs the interface it limits.
            Tweak::NoNic => {
                f.nic_rate = None;
                f.tsq_limit = None;
            }
            Tweak::NoTsq => f.tsq_limit = None,
            Tweak::TsqTruesize => f.tsq_limit = Some(131_072 * 1515 / 2304),
        }
    }
}

/// AW = C x U (Table 3; "AW >= CU" in packets, section III): the window
/// holds as many full segments as C x U holds 1515-byte packets. In
/// payload bytes C x U would be 3.6% more packets than the path holds,
/// a standing queue of 6 packets at 100 ms and 12 at 200 ms, which QARR
/// (Q_T = 5) reads as congestion.
fn awnd(rate: u64, u_ms: u64) -> u64 {
    let packets = rate / 8 * u_ms / 1000 / u64::from(MSS + 52);
    packets * u64::from(MSS)
}

/// The paper's Linux 3.10 sender with `cc`, `rec` and the optimizations.
fn flow(c: &Case) -> FlowSpec {
    let mut f = FlowSpec::new("a");
    assert!(losslab_sim::profile::apply("linux-3.10", &mut f));
    if c.cc != "cubic" {
        f.cc = CcSpec::Named(c.cc.into());
    }
    f.recovery = c.rec.into();
    f.mss = MSS;
    // The paper's model and testbed: cwnd stops growing at the receive
    // window (section III), as Linux 3.10's tcp_is_cwnd_limited() has it.
    f.cwnd_validation = CwndValidation::Linux310NoGso;
    f.receiver.rcvbuf = awnd(c.rate, c.u_ms);
    // Section VII.A: the hosts have "1Gbps NICs" ("peak sending throughput
    // can reach 950 Mbps"): a window leaves the sender at 1 Gbit/s at
    // most, not at one instant (`no-nic` is the earlier runs' way).
    f.nic_rate = Some(1_000_000_000);
    // Linux 3.10's TCP Small Queues, tcp_limit_output_bytes = 131072
    // (tcp_write_xmit(); Linux counts truesize, ours wire bytes): the host
    // holds at most that, the rest waits unsent (`no-tsq` without).
    f.tsq_limit = Some(128 << 10);
    // Linux's send buffer. The paper gives no tcp_wmem, but cannot have
    // run Linux 3.10's default maximum of 4 MiB: Table 15's 929 Mbit/s
    // at U = 100 ms is 11.6 MB in flight (and its 502 Mbit/s original
    // QARR 6.3 MB), which a 4 MiB buffer cannot hold. 64 MiB is above
    // every cell's need; `wmem-4m` runs the default. (The fifth review
    // saw more goodput at 4 MiB; that was the missing NIC's bursts, which
    // a 4 MiB buffer keeps small: with the NIC, 4 MiB caps Table 15 near
    // 170 Mbit/s.)
    f.sndbuf = None;
    f.sndbuf_model = Some(LinuxSndbuf {
        wmem_max: 64 << 20,
        ..LinuxSndbuf::default()
    });
    f.extensions = c.opt.extensions().iter().map(|e| e.to_string()).collect();
    if c.download {
        f.app = losslab_sim::scenario::AppSpec::Bytes(50_000_000);
    }
    f
}

/// Where the seed puts hand-placed drops: the burst somewhere between the
/// 3000th and the 6000th data packet (after slow start at every U here),
/// the five drops of a download spread over its 34,000 packets.
fn drops(c: &Case, seed: u64) -> Option<Vec<u64>> {
    let mut g = super::common::Gen::new(seed ^ 0x6d6f_6269_6c65);
    if let Some(n) = c.burst {
        let first = if c.tweak == Some(Tweak::BurstLate) {
            20_000
        } else {
            3000
        };
        let at = first + g.next_u64() % 3000;
        return Some((at..at + n).collect());
    }
    if c.download {
        let segs = 50_000_000 / u64::from(MSS);
        let step = segs / 6;
        return Some(
            (1..=5)
                .map(|i| i * step + g.next_u64() % (step / 2))
                .collect(),
        );
    }
    None
}

fn build(c: &Case, seed: u64) -> Scenario {
    let loss = match drops(c, seed) {
        Some(packets) => LossModel::Drop {
            flow: "a".into(),
            which: DropSpec::Packets(packets),
        },
        None if c.loss > 0.0 => LossModel::Bernoulli { p: c.loss },
        None => LossModel::None,
    };
    let mut p = path(c.rate, c.u_ms * MS / 2, QueueLimit::Bytes(QUEUE), loss);
    p.0.protect_retransmissions = c.opt == Opt::Optimal;
    let late = c.tweak == Some(Tweak::BurstLate);
    let duration = c.duration + if late { 12 * SEC } else { 0 };
    let mut sc = scenario(&c.name(seed), duration, p, vec![flow(c)]);
    sc.seed = seed;
    if let Some(t) = c.tweak {
        t.apply(c, &mut sc);
    }
    sc
}

/// The window clamped to the receive buffer's AW and the buffer made
/// `num / den` times as large.
fn headroom(f: &mut FlowSpec, num: u64, den: u64) {
    let aw = f.receiver.rcvbuf;
    f.receiver.window_clamp = Some(aw);
    f.receiver.rcvbuf = aw * num / den;
}

/// Results of runs already made in this process, by scenario name and
/// duration (the name holds every other parameter of a `Case`, its tweak
/// included): a variant leaves most cases as they were, and those are the
/// same runs (the simulator is deterministic), so they are not made again.
/// Emptied when `run` ends.
///
/// Bounded by [`DONE_BYTES`]: `--full` (48,446 runs) kept every run's
/// results here and peaked at 3.95 GB. A run that does not fit is not
/// kept; a later experiment that wants it makes it again (or takes it
/// from the memo), with the same results, so the bound costs time and
/// moves `timings.csv` (runs, packets, `reused`), never another file. The main
/// arm's experiments run first and fill it first, and theirs are the runs
/// the explanation variants take back.
static DONE: Mutex<Done> = Mutex::new(Done {
    runs: BTreeMap::new(),
    bytes: 0,
});

/// The most bytes of results [`DONE`] keeps, as [`held_bytes`] counts.
const DONE_BYTES: usize = 512 << 20;

struct Done {
    runs: BTreeMap<(String, Time), FlowResults>,
    /// [`held_bytes`] of every run in `runs`.
    bytes: usize,
}

impl Done {
    /// Keeps `f` under `key` if it fits in `limit` bytes beside what is
    /// kept already (or is kept already); hands it back if it does not.
    fn keep(&mut self, key: (String, Time), f: FlowResults, limit: usize) -> Option<FlowResults> {
        if self.runs.contains_key(&key) {
            return None;
        }
        let b = held_bytes(&f);
        if self.bytes + b > limit {
            return Some(f);
        }
        self.bytes += b;
        self.runs.insert(key, f);
        None
    }

    fn clear(&mut self) {
        self.runs.clear();
        self.bytes = 0;
    }
}

/// What one run's results hold in memory, near enough to bound [`DONE`]:
/// the struct, its lists and their strings. The recovery lists are most
/// of it (up to `recovery_log::KEEP` entries each).
fn held_bytes(f: &FlowResults) -> usize {
    use losslab_sim::results::{ObjectResult, RecoveryPeriodResult, RecoveryResult};
    use std::mem::size_of;
    let strings = [&f.name, &f.cc, &f.recovery, &f.detection, &f.timers]
        .iter()
        .map(|s| s.capacity())
        .sum::<usize>()
        + f.profile.as_ref().map_or(0, String::capacity);
    size_of::<FlowResults>()
        + strings
        + f.segments_by_retransmissions.capacity() * size_of::<u64>()
        + f.recoveries.capacity() * size_of::<RecoveryResult>()
        + f.recoveries
            .iter()
            .map(|r| r.kind.capacity())
            .sum::<usize>()
        + f.recovery_periods.capacity() * size_of::<RecoveryPeriodResult>()
        + f.objects.capacity() * size_of::<ObjectResult>()
}

fn done() -> std::sync::MutexGuard<'static, Done> {
    // A panic elsewhere while it was held leaves only complete entries.
    DONE.lock().unwrap_or_else(|e| e.into_inner())
}

/// The tweak this context's runs take (`Ctx::overrides`, key "tweak").
fn tweak_of(ctx: &Ctx) -> Option<Tweak> {
    ctx.overrides
        .iter()
        .find(|(k, _)| k == "tweak")
        .and_then(|(_, v)| Tweak::from_label(v))
}

/// Runs every case over `seeds`, on every core; results by case, then
/// seed.
fn run_all(
    ctx: &Ctx,
    exp: &str,
    cases: &[Case],
    seeds: u64,
) -> Result<Vec<Vec<FlowResults>>, String> {
    let tweak = tweak_of(ctx);
    let cases: Vec<Case> = cases
        .iter()
        .map(|c| Case {
            tweak: c.tweak.or(tweak.filter(|t| t.applies(c))),
            ..*c
        })
        .collect();
    let key = |c: &Case, seed: u64| (c.name(seed), c.duration);
    let todo: Vec<(usize, u64)> = {
        let d = done();
        (0..cases.len())
            .flat_map(|i| (1..=seeds).map(move |s| (i, s)))
            .filter(|&(i, s)| !d.runs.contains_key(&key(&cases[i], s)))
            .collect()
    };
    // A case another experiment already ran is exported here too, so that
    // what --export writes does not depend on which experiments ran in
    // this process (a resumed run takes some back: resume.rs).
    if let Some(x) = &ctx.export {
        let d = done();
        for c in &cases {
            for s in 1..=seeds {
                if d.runs.contains_key(&key(c, s)) {
                    super::common::export(x, exp, &build(c, s))?;
                }
            }
        }
    }
    let fresh = super::common::run_cases(
        ctx,
        exp,
        todo.len(),
        1,
        |j, _| build(&cases[todo[j].0], todo[j].1),
        |r| r.flows.into_iter().next().expect("one flow"),
    )?;
    let mut d = done();
    // The runs DONE has no room for answer this call from here.
    let mut made: BTreeMap<(String, Time), FlowResults> = BTreeMap::new();
    for (&(i, s), mut r) in todo.iter().zip(fresh) {
        let k = key(&cases[i], s);
        if let Some(f) = d.keep(k.clone(), r.pop().expect("one seed"), DONE_BYTES) {
            made.insert(k, f);
        }
    }
    Ok(cases
        .iter()
        .map(|c| {
            (1..=seeds)
                .map(|s| {
                    let k = key(c, s);
                    d.runs.get(&k).unwrap_or_else(|| &made[&k]).clone()
                })
                .collect()
        })
        .collect())
}

fn mbps(f: &FlowResults) -> f64 {
    f.goodput_bps / 1e6
}

/// The utilization of the first loss-recovery period (eq. 8, measured at
/// the bottleneck): the burst's.
fn period_utilization(f: &FlowResults) -> Option<f64> {
    f.recovery_periods
        .iter()
        .find(|p| p.end_s.is_some())
        .and_then(|p| p.utilization)
}

/// The link's busy share over every closed recovery period of the run
/// together (`Tweak::AllPeriods`): busy time over their total length.
fn all_periods_utilization(f: &FlowResults) -> Option<f64> {
    let (mut busy, mut total) = (0.0, 0.0);
    for p in &f.recovery_periods {
        if let (Some(end), Some(idle)) = (p.end_s, p.idle_s) {
            total += end - p.start_s;
            busy += end - p.start_s - idle;
        }
    }
    (total > 0.0).then(|| busy / total)
}

fn claim(exp: &str, id: String, statement: String, expect: Expect, values: &[f64]) -> Claim {
    untested(PAPER, exp, &id, &statement, expect, values, "")
}

/// A claim whose difference, if any, is explained by what the same runs
/// measured (`why`, computed from them).
fn claim_why(
    exp: &str,
    id: String,
    statement: String,
    expect: Expect,
    values: &[f64],
    why: String,
) -> Claim {
    untested(PAPER, exp, &id, &statement, expect, values, &why)
}

fn mean(v: impl Iterator<Item = f64>) -> f64 {
    let (s, n) = v.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    if n == 0 {
        0.0
    } else {
        s / n as f64
    }
}

/// What the runs of a differing row measured besides goodput: the
/// mechanisms the paper names (timeouts, segments past the window and
/// their discarding, QARR's window floor, application stall).
fn diagnosis(runs: &[FlowResults], rec: &str, opt: Opt) -> String {
    let per = |f: &dyn Fn(&FlowResults) -> f64| mean(runs.iter().map(f));
    let mut parts = vec![format!(
        "measured in the same runs (means per run): {:.1} timeouts, {:.0} fast recoveries, {:.0} retransmissions",
        per(&|f| f.timeouts as f64),
        per(&|f| f.fast_recoveries as f64),
        per(&|f| f.retransmissions as f64)
    )];
    if opt != Opt::Original {
        parts.push(format!(
            "{:.0} segments sent past the receive window, {:.0} of them discarded by the receiver \
             and {:.0} resends of discarded segments (section VIII reports such discards too and \
             blames lost retransmissions; here a loss among the segments still in flight, or \
             SACKed data above a second hole, also keeps the window from advancing as far as the \
             sender assumed, and each discarded segment waits for a timeout or Hack 1), \
             application stall {:.1}% of fast-recovery time",
            per(&|f| f.beyond_window_segments as f64),
            per(&|f| f.receiver_out_of_window_drops as f64),
            per(&|f| f.retransmissions_of_discarded as f64),
            100.0 * per(&|f| f.app_stall_share.unwrap_or(0.0))
        ));
    }
    if rec == "qarr" {
        let floor = per(&|f| {
            let fast: Vec<_> = f.recoveries.iter().filter(|r| r.kind == "fast").collect();
            let at_floor = fast
                .iter()
                .filter(|r| r.cwnd_after.is_some_and(|c| c <= 2))
                .count();
            at_floor as f64 / fast.len().max(1) as f64
        });
        parts.push(format!(
            "QARR ended {:.0}% of its fast recoveries at its 2-segment floor (eq. 2 read a queue \
             above Q_T = 5, and per ACK cuts the same excess once per ACK for as long as the \
             queue lasts)",
            100.0 * floor
        ));
    }
    parts.join("; ")
}

fn value(paper: f64, band: Band) -> Expect {
    Expect::Value { paper, band }
}

/// A link's capacity in Mbit/s.
fn cap(rate: u64) -> f64 {
    rate as f64 / 1e6
}

/// A goodput cell (Mbit/s). When the paper's value plus the quantity band
/// would pass the link's capacity (claims.rs, `near_capacity`) the band
/// above the paper could never be reached, so the row judges each seed's
/// share of the capacity against the paper's, which has two sides.
fn goodput_claim(
    exp: &str,
    id: String,
    statement: String,
    paper: f64,
    rate: u64,
    g: &[f64],
    why: String,
) -> Claim {
    match near_capacity(paper, cap(rate)) {
        Some(expect) => {
            let shares: Vec<f64> = g.iter().map(|x| x / cap(rate)).collect();
            claim_why(
                exp,
                id,
                format!(
                    "{statement} [near capacity: judged as a share of {} Mbit/s, the paper's {paper} = {:.3}]",
                    cap(rate),
                    paper / cap(rate)
                ),
                expect,
                &shares,
                why,
            )
        }
        None => claim_why(exp, id, statement, value(paper, Band::QUANTITY), g, why),
    }
}

/// The paper's effect of going from its cell `pa` to its cell `pb`,
/// against ours over the same seeds' runs `a` and `b` (ratio of totals).
#[allow(clippy::too_many_arguments)]
fn effect_claim(
    exp: &str,
    id: &str,
    statement: &str,
    pa: f64,
    pb: f64,
    a: &[f64],
    b: &[f64],
    why: &str,
) -> Claim {
    // Sums of the paper's cells carry float noise (53.199999...): the
    // cells have at most three decimals, so their sums are read at three.
    let (pa, pb) = ((pa * 1e3).round() / 1e3, (pb * 1e3).round() / 1e3);
    Claim::measured(
        PAPER,
        exp,
        id,
        &format!(
            "{statement} (paper {} -> {}, {:+.1}%)",
            printed(pa),
            printed(pb),
            (pb / pa - 1.0) * 100.0
        ),
        Expect::Effect {
            paper: pb / pa - 1.0,
            // The paper prints its cells with three significant digits
            // (9.60, 17.0, 3.17; docs/REPRODUCTIONS.md quotes them), seven
            // with two (`paper_digits`).
            band: if pa == pb {
                Band::printed_zero(pa, paper_digits(pa))
            } else {
                Band::EFFECT
            },
        },
        paired_relative(a, b, "effect"),
        &format!("{UNTESTED}; {why}"),
    )
}

/// The goodput cells the paper prints with two significant digits, all
/// in Tables 6 and 8 ("5.2 (26.0%)", "7.8 (38.8%)", ...: CUBIC+RH and
/// CUBIC+PRR, Veno+PRR at 0.1% in Table 6; CUBIC's and Veno's RH and PRR
/// at 0.05% in Table 8). No cell printed with three digits has one of
/// these values, so the value names the cell.
const TWO_DIGIT_CELLS: [f64; 7] = [5.2, 5.4, 5.3, 7.8, 9.0, 7.7, 8.4];

/// The significant digits the paper prints a goodput cell with.
fn paper_digits(x: f64) -> i32 {
    if TWO_DIGIT_CELLS.contains(&x) {
        2
    } else {
        3
    }
}

/// A cell of the paper's as it prints it: its goodput tables give three
/// significant digits ("9.60", not the f64's "9.6"; the fifth review),
/// its utilization tables up to three decimals ("0.057", "0.74"), which
/// the f64 prints as they are; a value with more digits (a sum of cells)
/// is printed whole.
fn printed(x: f64) -> String {
    if x.abs() < 1.0 || !x.is_finite() {
        return format!("{x}");
    }
    let sig = paper_digits(x);
    let decimals = (sig - 1 - x.abs().log10().floor() as i32).max(0) as usize;
    let s = format!("{x:.decimals$}");
    if s.parse::<f64>()
        .is_ok_and(|y| (y - x).abs() <= 1e-9 * x.abs())
    {
        s
    } else {
        format!("{x}")
    }
}

/// The paper's order "b above a", on the per-seed differences b - a.
fn order_claim(exp: &str, id: &str, statement: &str, a: &[f64], b: &[f64]) -> Claim {
    let expect = Expect::Order {
        paper_positive: true,
    };
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| y - x).collect();
    let why = heavy_tail_explanation(&expect, &d, "seeds");
    Claim::measured(
        PAPER,
        exp,
        id,
        statement,
        expect,
        paired_difference(a, b, "difference"),
        &why,
    )
}

/// The seeds where both runs measured something, as two paired lists.
fn paired_some(a: &[Option<f64>], b: &[Option<f64>]) -> (Vec<f64>, Vec<f64>) {
    a.iter()
        .zip(b)
        .filter_map(|(x, y)| Some((x.as_ref().copied()?, y.as_ref().copied()?)))
        .unzip()
}

/// Measurement ids of rows whose runs are the same runs made again:
/// QARR and BARR set the window themselves on a loss (section VI), so
/// Veno's, Westwood's and Vegas's reductions never act, and where those
/// controllers also grow the same Reno-like window up to AW = C x U
/// their runs differ only in the controller's name and give bit-for-bit
/// the same goodput. (Linux 3.10's Westwood still acts, by
/// CA_EVENT_COMPLETE_CWR when a recovery ends, and its Vegas adjusts
/// once per round when not cwnd-limited; the check below finds which
/// runs stay equal.) Under BARR the check finds CUBIC's runs bitwise equal
/// to theirs as well (the third review): eq. 4's window, B_i x RTT_i with
/// the queue in it, keeps the flow at the receive window AW, where no
/// controller's growth rule acts. Checked here, not assumed: a row shares an earlier
/// row's id only when, under the same `key` (algorithm, variant and
/// condition), every seed's numbers are bitwise equal.
#[derive(Default)]
struct SameRuns(Vec<(String, Vec<u64>, String)>);

impl SameRuns {
    fn id(&mut self, key: &str, values: &[&[f64]], own: String) -> String {
        let bits: Vec<u64> = values
            .iter()
            .flat_map(|v| v.iter().map(|x| x.to_bits()))
            .collect();
        if let Some((_, _, m)) = self.0.iter().find(|(k, b, _)| k == key && *b == bits) {
            return m.clone();
        }
        self.0.push((key.into(), bits, own.clone()));
        own
    }
}

pub fn run(ctx: &Ctx) -> Result<PaperResult, String> {
    let r = run_explained(ctx);
    done().clear();
    r
}

/// Every experiment of the paper under `ctx` (and its tweak, if any).
fn experiments(ctx: &Ctx) -> Result<Vec<Experiment>, String> {
    // --timings names a variant's experiments after the variant.
    let prefix = match ctx.overrides.iter().find(|(k, _)| k == "tweak") {
        Some((_, slug)) => format!("explain/{slug}/"),
        None => String::new(),
    };
    let t = |f: &dyn Fn(&Ctx) -> Result<Experiment, String>| {
        super::timing::experiment(ctx, &prefix, || f(ctx))
    };
    let hspa = t(&hspa)?;
    let mut lte = t(&lte)?;
    effect_summary(&hspa, &mut lte);
    Ok(vec![
        t(&bursts)?,
        hspa,
        lte,
        t(&limits)?,
        t(&spikes)?,
        linux_check(),
    ])
}

/// The main arm, then every tweak's variant of it, which explain (or are
/// listed as tested against) the rows the main arm does not reproduce.
fn run_explained(ctx: &Ctx) -> Result<PaperResult, String> {
    let mut main = experiments(ctx)?;
    let mut tried = Vec::new();
    for t in Tweak::ALL {
        // The default runs the main arm alone (its few minutes hold all
        // five papers); --quick runs the few variants CI exercises.
        let runs = ctx.all_variants() || (ctx.quick && t.quick());
        if !runs {
            continue;
        }
        let slug = t.label();
        let sub = ctx.variant(
            &Path::new("explain").join(slug),
            vec![("tweak".into(), slug.into())],
        );
        tried.push((t, experiments(&sub)?));
    }
    let table = tweak_table(&main, &tried);
    let setup = setup_table(&main, &tried);
    explain(&mut main, &tried);
    side_by_side(&mut main, &tried);
    name_every_move(&mut main, &tried);
    main.push(table);
    main.push(setup);
    main.push(super::timing::experiment(ctx, "", || window(ctx))?);
    Ok(PaperResult {
        paper: PAPER.into(),
        title: "Opportunistic retransmission and send-buffer growth in mobile networks".into(),
        quick: ctx.quick,
        full: ctx.full,
        thorough: ctx.thorough,
        subset: brief(ctx),
        experiments: main,
    })
}

/// The claims of `es` by id.
fn by_id(es: &[Experiment]) -> BTreeMap<&str, &Claim> {
    es.iter()
        .flat_map(|e| &e.claims)
        .map(|c| (c.id.as_str(), c))
        .collect()
}

/// Whether a variant's row judged other runs than the main arm's: a tweak
/// that changes none of a row's runs leaves it bit for bit. Changed runs
/// can still give the same numbers: a count over other rows
/// (`hl1-share-of-pairs`, over the eff-tab rows) is touched when any row
/// it counts is, and a row whose runs the tweak changes
/// (`Tweak::changes_row`) always is.
fn touched(
    t: Tweak,
    main: &Claim,
    variant: &Claim,
    all_main: &[&Claim],
    all_variant: &BTreeMap<&str, &Claim>,
) -> bool {
    if main.ours != variant.ours || t.changes_row(main) {
        return true;
    }
    main.id == "hl1-share-of-pairs"
        && all_main.iter().any(|m| {
            m.id.starts_with("eff-tab")
                && matches!(m.experiment.as_str(), "hspa" | "lte")
                && all_variant
                    .get(m.id.as_str())
                    .is_some_and(|v| m.ours != v.ours)
        })
}

/// The main arm's rows whose runs the variant `t` changed (`touched`),
/// each with its id and the variant's judgement of it: what the explain
/// and setup tables count and compare.
fn rejudged<'a>(
    t: Tweak,
    before: &BTreeMap<&'a str, &'a Claim>,
    after: &BTreeMap<&'a str, &'a Claim>,
    all_main: &[&Claim],
) -> Vec<(&'a str, &'a Claim, &'a Claim)> {
    before
        .iter()
        .filter_map(|(id, b)| {
            let a = after.get(id)?;
            touched(t, b, a, all_main, after).then_some((*id, *b, *a))
        })
        .collect()
}

/// Whether the Q_T = 1000 control (its rows, when it was run) comes as
/// close to the paper on main row `c` as reading `v` does: it reproduces
/// the row, or is inconclusive at the band's edge, or its interval meets
/// `v`'s. A QARR reading (`Tweak::controlled`) then explains no more than
/// a smaller cut of the window (the sixth review: a control inconclusive
/// at the edge closed most of the gap). Without a reading (`v` None), only
/// the first two.
fn control_matches(control: Option<&BTreeMap<&str, &Claim>>, c: &Claim, v: Option<&Claim>) -> bool {
    let Some(k) = control.and_then(|m| m.get(c.id.as_str())) else {
        return false;
    };
    if supports(c, k) || k.verdict == Verdict::Inconclusive {
        return true;
    }
    let ci = |x: &Claim| x.ours.as_ref().and_then(|o| o.ci95);
    match (v.and_then(ci), ci(k)) {
        (Some([a, b]), Some([x, y])) => a <= y && x <= b,
        _ => false,
    }
}

/// Each main row that needs an explanation and still says none was
/// tested gets the tweaks that changed its runs: "Explained by" the first
/// whose variant reproduces the row, the others listed as tested and
/// rejected, then what the main runs measured.
fn explain(main: &mut [Experiment], tried: &[(Tweak, Vec<Experiment>)]) {
    let index: Vec<(Tweak, BTreeMap<&str, &Claim>)> =
        tried.iter().map(|(t, es)| (*t, by_id(es))).collect();
    let snapshot: Vec<Claim> = main.iter().flat_map(|e| e.claims.clone()).collect();
    let all_main: Vec<&Claim> = snapshot.iter().collect();
    // Per tweak, the main arm's reproduced rows it does not reproduce: an
    // explanation names what its variant costs elsewhere.
    let lost: Vec<Vec<&str>> = index
        .iter()
        .map(|(t, m)| {
            all_main
                .iter()
                .filter(|c| c.verdict == Verdict::Reproduced)
                .filter(|c| {
                    m.get(c.id.as_str())
                        .is_some_and(|v| touched(*t, c, v, &all_main, m) && !supports(c, v))
                })
                .map(|c| c.id.as_str())
                .collect()
        })
        .collect();
    let control_map = index
        .iter()
        .find(|(t, _)| *t == Tweak::QarrTarget1000)
        .map(|(_, m)| m);
    for c in main.iter_mut().flat_map(|e| e.claims.iter_mut()) {
        if c.verdict == Verdict::Reproduced {
            flag_disclosed(c, &index, &all_main);
            continue;
        }
        // Only a measured difference needs a variant: a row not judged
        // (by construction, or on a paper value in doubt) has none.
        if !c.verdict.is_a_difference() || c.ours.is_none() {
            continue;
        }
        // A row another rule already speaks for (the order rows' sign
        // test) keeps its words and lists what each variant gave after them.
        let untested = c.explanation.starts_with(UNTESTED);
        let measured = c
            .explanation
            .strip_prefix(UNTESTED)
            .unwrap_or("")
            .trim_start_matches("; ")
            .to_string();
        // The control (Q_T = 1000: eq. 2 all but off) comes as close: a
        // QARR reading then explains the row no better than cutting the
        // window less does, and says so.
        let (mut yes, mut no, mut setting) = (Vec::new(), Vec::new(), Vec::new());
        for ((t, m), lost) in index.iter().zip(&lost) {
            let Some(v) = m.get(c.id.as_str()) else {
                continue;
            };
            if !touched(*t, c, v, &all_main, m) {
                continue;
            }
            let vo = v.ours.as_ref().map(summary_text).unwrap_or_default();
            let text = format!(
                "{} ({} gives {vo}, {})",
                t.cause(),
                t.how(),
                v.verdict.name()
            );
            if supports(c, v) && t.controlled() && control_matches(control_map, c, Some(v)) {
                // Reproduced, but no more than by cutting QARR's window
                // less: tested, not an explanation (the fourth review's S2,
                // the sixth's S2).
                no.push(format!(
                    "{} ({} gives {vo}, {}; but the Q_T = 1000 control, eq. 2 all but off, comes \
                     as close, so this explains no more than a smaller cut of QARR's window)",
                    t.cause(),
                    t.how(),
                    v.verdict.name()
                ));
            } else if supports(c, v) && t.setting() {
                // A setup alternative (a value the paper does not give, a
                // disclosed reading, a measurement) that meets the paper
                // shows the verdict rests on a setting of ours; choosing
                // it row by row would be moving a setting until a check
                // passes, so it explains nothing (the fifth review).
                setting.push(format!("{} gives {vo}, {}", t.how(), v.verdict.name()));
            } else if supports(c, v) {
                let cost = if lost.is_empty() {
                    "no row reproduced in the main arm is not under it".to_string()
                } else {
                    let shown: Vec<&str> = lost.iter().take(4).copied().collect();
                    format!(
                        "under it {} rows reproduced in the main arm are not ({}{})",
                        lost.len(),
                        shown.join(", "),
                        if lost.len() > shown.len() {
                            ", ..."
                        } else {
                            ""
                        }
                    )
                };
                // As claims.rs's variant_explanation words it: the
                // experiment that tested the cause, and what it gave.
                yes.push(format!(
                    "{}: tested by {}, which gives {vo} ({}); {cost}",
                    t.cause(),
                    t.how(),
                    v.verdict.name()
                ));
            } else {
                no.push(text);
            }
        }
        if yes.is_empty() && no.is_empty() && setting.is_empty() {
            continue;
        }
        let decided = if setting.is_empty() {
            String::new()
        } else {
            format!(
                "; {DECIDED}, not explained by it: reproduced under {} (the setup table)",
                setting
                    .iter()
                    .map(|s| format!("({s})"))
                    .collect::<Vec<_>>()
                    .join(" and under ")
            )
        };
        if !untested {
            // An order row's sign test left it unexplained: a variant that
            // reproduces it explains it as any other row (the sign test
            // stays, as what else was tested).
            if let (false, Some(rest)) = (yes.is_empty(), c.explanation.strip_prefix(UNEXPLAINED)) {
                let rejected = if no.is_empty() {
                    String::new()
                } else {
                    format!("; variants also tested and rejected: {}", no.join("; "))
                };
                c.explanation = format!(
                    "Explained by {}{rest}{rejected}{decided}",
                    yes.join("; and by ")
                );
                continue;
            }
            let said: Vec<String> = yes.into_iter().chain(no).collect();
            c.explanation = if said.is_empty() {
                format!("{}{decided}", c.explanation)
            } else {
                format!(
                    "{}; variants tested: {}{decided}",
                    c.explanation,
                    said.join("; ")
                )
            };
            continue;
        }
        let tail = if measured.is_empty() {
            String::new()
        } else {
            format!("; {measured}")
        };
        c.explanation = match (yes.is_empty(), no.is_empty()) {
            (false, true) => format!("Explained by {}{decided}{tail}", yes.join("; and by ")),
            (false, false) => format!(
                "Explained by {}; also tested and rejected: {}{decided}{tail}",
                yes.join("; and by "),
                no.join("; ")
            ),
            (true, false) => format!(
                "{UNEXPLAINED}; tested and rejected: {}{decided}{tail}",
                no.join("; ")
            ),
            (true, true) => format!("{UNEXPLAINED}{decided}{tail}"),
        };
    }
}

/// A reproduced row that one of the disclosed tweaks (our readings chosen
/// after seeing their effect) does not reproduce says so: the verdict
/// rests on that choice.
fn flag_disclosed(c: &mut Claim, index: &[(Tweak, BTreeMap<&str, &Claim>)], all_main: &[&Claim]) {
    let mut notes = Vec::new();
    for (t, m) in index.iter().filter(|(t, _)| t.disclosed()) {
        let Some(v) = m.get(c.id.as_str()) else {
            continue;
        };
        if touched(*t, c, v, all_main, m) && !supports(c, v) {
            notes.push(format!(
                "{} gives {}, {}",
                t.how(),
                v.ours.as_ref().map(summary_text).unwrap_or_default(),
                v.verdict.name()
            ));
        }
    }
    if notes.is_empty() {
        return;
    }
    let note = format!(
        "Rests on a reading of ours chosen after seeing its effect (explain table, disclosed): {}",
        notes.join("; ")
    );
    c.append_explanation(note);
}

/// The tweaks as a table: what each changes, why, and which verdicts move
/// with it; the QARR cell the issue names (Table 10, CUBIC, 0.1%, 100 ms)
/// under each.
fn tweak_table(main: &[Experiment], tried: &[(Tweak, Vec<Experiment>)]) -> Experiment {
    let mut e = Experiment::new(
        "explain",
        "Tested explanations: variants of the runs, and the verdicts they move",
        "Each variant changes one thing in the main arm's runs (same seeds, same cases \
         otherwise) and is run on the cases it changes; every row is judged again on the \
         variant's runs. A differing or contradicted row is explained by a variant only if, so \
         judged, it is reproduced; the variants that changed its runs and did not reproduce it \
         are listed in its explanation as tested and rejected, and an explanation names the \
         rows its variant stops reproducing. The main arm is the paper's text where it speaks, \
         with two exceptions, readings of ours chosen after seeing their effect (marked \
         disclosed, each run as a variant): QARR's and BARR's RTT_i, which section II.D \
         measures \"using the TCP timestamp option appended in the received ACK/DUPACK\" and \
         the main arm takes from a segment the ACK newly delivered, and AW counted in whole \
         1515-byte packets rather than payload bytes. Every reproduced row that either \
         disclosed variant does not reproduce says so in its explanation. QARR's main reading \
         is eq. 2 on every ACK, as section II.D has it: QARR \"adopts the Vegas/Veno method to \
         estimate the queue length for every received ACK/DUPACK\" and \"Let W_i denote the \
         CWnd after receiving the ith ACK/DUPACK, then W_i is determined as follows: W_i = \
         W_{i-1} - max(Q_i - Q_T, 0)\". The once-per-round-trip and pipe readings are ours, \
         not the paper's: a row they explain is explained by a different QARR than the text's.",
    );
    let before = by_id(main);
    let all_main: Vec<&Claim> = before.values().copied().collect();
    let cell = "tab10-cubic-qarr-p0.1";
    let show = |c: Option<&&Claim>| {
        c.map_or("-".to_string(), |c| {
            format!(
                "{} ({})",
                c.ours.as_ref().map(summary_text).unwrap_or_default(),
                c.verdict.name()
            )
        })
    };
    e.row(
        "Table 10, CUBIC+QARR original, 0.1%, U = 100 ms (Mbit/s): main arm",
        show(before.get(cell)),
        "65.7",
    );
    let control = tried
        .iter()
        .find(|(t, _)| *t == Tweak::QarrTarget1000)
        .map(|(_, es)| by_id(es));
    for (t, es) in tried {
        let after = by_id(es);
        let rows = rejudged(*t, &before, &after, &all_main);
        let judged = rows.len();
        let (mut moved, mut explains) = (Vec::new(), 0);
        for (id, b, a) in rows {
            let controlled = t.controlled() && control_matches(control.as_ref(), b, Some(a));
            if b.verdict.is_a_difference() && supports(b, a) && !controlled {
                explains += 1;
            }
            if moves(b, a) {
                moved.push(format!(
                    "{id} ({} -> {})",
                    Side::of(b).label(),
                    Side::of(a).label()
                ));
            }
        }
        e.row(
            format!(
                "{}{}",
                t.how(),
                if t.disclosed() { " [disclosed]" } else { "" }
            ),
            format!(
                "{judged} rows judged other runs; {explains} differing or contradicted rows \
                 reproduced under it{}; {} verdicts move{}",
                if t.controlled() {
                    " and not by the Q_T = 1000 control as well (explained)"
                } else if t.setting() {
                    " (a setup alternative: decided by a setting of ours, not explained)"
                } else {
                    " (explained)"
                },
                moved.len(),
                if moved.is_empty() {
                    String::new()
                } else {
                    format!(": {}", moved.join(", "))
                }
            ),
            t.cause(),
        );
        if t.applies(&Case {
            rate: LTE,
            u_ms: 100,
            loss: 0.001,
            cc: "cubic",
            rec: "qarr",
            opt: Opt::Original,
            duration: 200 * SEC,
            burst: None,
            download: false,
            tweak: None,
        }) {
            e.row(
                format!(
                    "Table 10, CUBIC+QARR original, 0.1%, U = 100 ms (Mbit/s): {}",
                    t.how()
                ),
                show(after.get(cell)),
                "65.7",
            );
        }
    }
    for t in Tweak::ALL {
        if !tried.iter().any(|(x, _)| *x == t) {
            e.row(
                t.how(),
                "not run at this scale (--thorough and --full run it)",
                t.cause(),
            );
        }
    }
    e
}

/// A setup choice the paper does not dictate, with the variants that
/// run its alternatives.
struct SetupChoice {
    key: &'static str,
    value: &'static str,
    why: &'static str,
    alternatives: &'static [Tweak],
}

/// The choices of ours the variants vary (the others are the paper's or
/// explanations of its rows: QARR's readings, Westwood's event, Hack 1's
/// refire).
const SETUP: [SetupChoice; 10] = [
    SetupChoice {
        key: "receive buffer",
        value: "1 AW (the buffer is the window it advertises)",
        why: "the paper gives the receiving window, AW = C x U, not the buffer behind it; Linux \
              3.10 keeps more (our reading of its arithmetic: about 1.25 AW), and the window \
              table's optimal cells reproduce only at 2 AW",
        alternatives: &[Tweak::Headroom125, Tweak::Headroom2],
    },
    SetupChoice {
        key: "RTT_i of QARR and BARR",
        value: "a segment the ACK newly delivered [disclosed]",
        why: "section II.D reads it from the ACK's timestamp echo; ours was chosen after seeing \
              the echo put QARR below PRR",
        alternatives: &[Tweak::RttTsecr],
    },
    SetupChoice {
        key: "AW's unit",
        value: "whole 1515-byte packets [disclosed]",
        why: "Table 3 gives AW = C x U without its unit; ours was chosen after seeing QARR read \
              the payload reading's standing queue as congestion",
        alternatives: &[Tweak::AwndPayload],
    },
    SetupChoice {
        key: "direction of random loss",
        value: "data path only",
        why: "section VII.A's emulator \"randomly drops the outgoing packets\", which need not \
              mean the data direction only",
        alternatives: &[Tweak::AckLoss],
    },
    SetupChoice {
        key: "writer wake-up",
        value: "instantaneous",
        why: "section V.A's process is woken at a third of the send buffer free; the paper gives \
              no scheduling delay",
        alternatives: &[Tweak::WakeDelay],
    },
    SetupChoice {
        key: "burst position",
        value: "the 3000th to 6000th packet",
        why: "the paper gives no point in the transfer",
        alternatives: &[Tweak::BurstLate],
    },
    SetupChoice {
        key: "recovery period measured",
        value: "the first after the burst",
        why: "eq. 8 measures \"the loss-recovery period\"; a second recovery that follows \
              opportunistic retransmission's discards is not in the paper",
        alternatives: &[Tweak::AllPeriods],
    },
    SetupChoice {
        key: "tcp_wmem maximum",
        value: "64 MiB",
        why: "the paper gives no tcp_wmem, and cannot have run Linux 3.10's default maximum of \
              4 MiB: its Table 15 cells at U = 100 ms need more in flight than 4 MiB holds \
              (929 Mbit/s is 11.6 MB, the original QARR's 502 Mbit/s 6.3 MB); 64 MiB is above \
              every cell's need",
        alternatives: &[Tweak::Wmem4M],
    },
    SetupChoice {
        key: "sender interface",
        value: "1 Gbit/s (nic_rate)",
        why: "given by the paper (section VII.A: \"1Gbps NICs\"), so not a choice of ours; \
              the alternative is how every run before the fifth review sent (a window reaching \
              the bottleneck at one instant), shown for what it decided",
        alternatives: &[Tweak::NoNic],
    },
    SetupChoice {
        key: "sender's host queue",
        value: "TCP Small Queues, 128 KiB (tsq_limit)",
        why: "the paper's Linux 3.10 has TCP Small Queues at 131072 bytes of truesize; ours \
              counts wire bytes, so about 1.5 times as many packets pass, and lets no \
              retransmission past it",
        alternatives: &[Tweak::NoTsq, Tweak::TsqTruesize],
    },
];

/// Where a row's verdict changes under a setup alternative, its
/// explanation says so with these words (the page's `decided_by_setup`).
const DECIDED: &str = "Decided by a setup choice of ours";

/// The setup choices as setup.rs tabulates them for the other papers:
/// each choice, our value and why, and for each alternative the rows its
/// runs changed and the verdicts that move, headline rows first. The runs
/// are the explain table's (same seeds, one change each).
fn setup_table(main: &[Experiment], tried: &[(Tweak, Vec<Experiment>)]) -> Experiment {
    let mut e = Experiment::new(
        "setup",
        "Setup choices the paper does not dictate, and which verdicts they decide",
        "Each row is one parameter the paper does not give: our value and why, then for each \
         alternative, the rows whose runs it changes rejudged on the variant's runs (the \
         explain table's, same seeds, everything else unchanged) and the verdicts that move \
         against the main arm's, headline rows first. \"no verdict changes\" means the choice \
         decides none of the rows it touches. [disclosed] marks a choice made after seeing its \
         effect.",
    );
    let before = by_id(main);
    let all_main: Vec<&Claim> = before.values().copied().collect();
    for ch in &SETUP {
        let mut cells = Vec::new();
        for t in ch.alternatives {
            let Some((_, es)) = tried.iter().find(|(x, _)| x == t) else {
                cells.push(format!(
                    "{}: not run at this scale (--thorough and --full run it)",
                    t.how()
                ));
                continue;
            };
            let after = by_id(es);
            let rows = rejudged(*t, &before, &after, &all_main);
            let n = rows.len();
            let (mut heads, mut others, mut one_side) = (Vec::new(), Vec::new(), Vec::new());
            for (id, b, a) in rows {
                if moves(b, a) {
                    let moved =
                        format!("{id} ({} -> {})", Side::of(b).label(), Side::of(a).label());
                    if b.headline {
                        heads.push(moved);
                    } else {
                        others.push(moved);
                    }
                } else if a.verdict != b.verdict {
                    // Not judged on one side by the claim's own terms
                    // (setup.rs `premise_exempt`): named apart, without
                    // the arrow the page counts.
                    one_side.push(format!(
                        "{id} ({} here, {} there)",
                        b.verdict.name(),
                        a.verdict.name()
                    ));
                }
            }
            let one_side = one_side_only(&one_side);
            let total = heads.len() + others.len();
            cells.push(if total == 0 {
                format!("{}: no verdict changes ({n} rows){one_side}", t.how())
            } else {
                format!(
                    "{}: {total} of {n} verdicts change; headline rows: {}; others: {}{one_side}",
                    t.how(),
                    if heads.is_empty() {
                        "none".to_string()
                    } else {
                        heads.join(", ")
                    },
                    if others.is_empty() {
                        "none".to_string()
                    } else {
                        others.join(", ")
                    }
                )
            });
        }
        e.row(
            format!("{} = {}", ch.key, ch.value),
            cells.join("; "),
            format!("not given: {}", ch.why),
        );
    }
    e
}

/// Every headline row is judged under each setup alternative beside the
/// main arm (the third review's blocker: headline 1's cell changes sign
/// with the receive buffer): its explanation ends with the verdict and
/// value each alternative's runs give.
fn side_by_side(main: &mut [Experiment], tried: &[(Tweak, Vec<Experiment>)]) {
    let index: Vec<(Tweak, BTreeMap<&str, &Claim>)> =
        tried.iter().map(|(t, es)| (*t, by_id(es))).collect();
    let snapshot: Vec<Claim> = main.iter().flat_map(|e| e.claims.clone()).collect();
    let all_main: Vec<&Claim> = snapshot.iter().collect();
    for c in main
        .iter_mut()
        .flat_map(|e| e.claims.iter_mut())
        .filter(|c| c.headline)
    {
        let (mut arms, mut decides) = (Vec::new(), Vec::new());
        for ch in &SETUP {
            for t in ch.alternatives {
                let Some((_, m)) = index.iter().find(|(x, _)| x == t) else {
                    continue;
                };
                let Some(v) = m.get(c.id.as_str()) else {
                    continue;
                };
                if !touched(*t, c, v, &all_main, m) {
                    continue;
                }
                if moves(c, v) {
                    decides.push(format!("{} ({})", t.how(), Side::of(v).label()));
                }
                arms.push(format!(
                    "{} gives {}, {}",
                    t.how(),
                    v.ours.as_ref().map(summary_text).unwrap_or_default(),
                    v.verdict.name()
                ));
            }
        }
        if arms.is_empty() {
            continue;
        }
        // The page names these beside the headline count
        // (scripts/reproductions.py, `decided_by_setup`).
        let decided = if decides.is_empty() {
            String::new()
        } else {
            format!(
                "{DECIDED}: the verdict changes under {}; ",
                decides.join(", ")
            )
        };
        let note = format!(
            "{decided}under the setup alternatives (setup table): {}",
            arms.join("; ")
        );
        c.append_explanation(note);
    }
}

/// Every row whose verdict a setup alternative changes names that
/// alternative in its "Decided by a setup choice" note: `explain` names
/// only those that reproduce a contradicted or differing row, and
/// `side_by_side` only headline rows' (the fourth review of the OR3 page
/// found 10 of this paper's rows missing 22 such changes, where the page
/// says every change is named). A row not judged on one side by the
/// claim's premise has no verdict to change (setup.rs `moves`).
fn name_every_move(main: &mut [Experiment], tried: &[(Tweak, Vec<Experiment>)]) {
    let index: Vec<(Tweak, BTreeMap<&str, &Claim>)> =
        tried.iter().map(|(t, es)| (*t, by_id(es))).collect();
    let snapshot: Vec<Claim> = main.iter().flat_map(|e| e.claims.clone()).collect();
    let all_main: Vec<&Claim> = snapshot.iter().collect();
    for c in main.iter_mut().flat_map(|e| e.claims.iter_mut()) {
        // What the notes already written name.
        let named = c
            .explanation
            .find(DECIDED)
            .map_or("", |i| &c.explanation[i..])
            .to_string();
        let mut missing = Vec::new();
        for t in SETUP.iter().flat_map(|ch| ch.alternatives) {
            let Some((_, m)) = index.iter().find(|(x, _)| x == t) else {
                continue;
            };
            let Some(v) = m.get(c.id.as_str()) else {
                continue;
            };
            if moves(c, v) && touched(*t, c, v, &all_main, m) && !named.contains(t.how()) {
                missing.push(format!("{} ({})", t.how(), Side::of(v).label()));
            }
        }
        if missing.is_empty() {
            continue;
        }
        let also = if named.is_empty() { "" } else { "also " };
        c.append_explanation(format!(
            "{DECIDED}: the verdict {also}changes under {} (the setup table)",
            missing.join(", ")
        ));
    }
}

/// The quick scale's cells, which the default measures with the thorough
/// scale's seeds and run lengths (so a default row is `--thorough`'s,
/// except the rows that pool over cells, hl5-*, gap-tab6-* and hl1-*,
/// which pool only these): all five papers' default runs fit in a few
/// minutes (issue 33) only with this paper's main arm at that size;
/// `--thorough` and `--full` measure every cell.
fn brief(ctx: &Ctx) -> bool {
    ctx.quick || !ctx.all_variants()
}

/// Section VIII's discards, case by case: CUBIC+BARR over LTE at U = 150
/// ms and 0.1% loss (the case a review traced), original, optimized and
/// optimal, with the receive buffer 1, 1.25 and 2 times the window.
fn window(ctx: &Ctx) -> Result<Experiment, String> {
    let secs = if ctx.quick { 30 } else { 200 };
    let mut e = Experiment::new(
        "window",
        "Out-of-window discards and the receive buffer's headroom (section VIII)",
        &format!(
        "CUBIC+BARR, 100 Mbit/s, U = 150 ms, 0.1% loss, {secs} s (the Table 11/13 cell), original, \
         optimized and optimal (no retransmission dropped), each with the receive buffer equal \
         to the window AW (the main arm), 1.25 AW and 2 AW, the window clamped to AW \
         (receiver.window_clamp). Section VIII says segments sent past the window \"will be \
         discarded by the receiver\" when retransmissions are lost, and that with \
         retransmissions spared the problem \"cannot be observed\". Which headroom the paper's \
         Linux 3.10 receiver had is not given: it doubles SO_RCVBUF and, with tcp_adv_win_scale \
         = 1, advertises half of the buffer, while each segment is charged at its truesize \
         (about 1.6 times a 1448-byte payload), so the buffer holds about 1.25 times the window \
         in payload: 1.25 is our reading of the Linux arithmetic (not a bound either way: Linux \
         narrows the window from the first out-of-order byte, where our receiver waits until \
         the headroom is used, but it also coalesces adjacent out-of-order segments, \
         tcp_try_coalesce(), which lowers their truesize), 2 the buffer if segments cost their \
         payload only, which \
         removes nearly all discards (the out-of-order data above a hole is at most a window, \
         so the whole window stays offered). The arithmetic is a reading, not a measurement: \
         the last rows count, per buffer and per algorithm, how many of the paper's optimal \
         cells each buffer reproduces, which is what the runs say about the paper's receiver \
         (QARR's cells apart: under the per-ACK reading they fail at every buffer, a cause \
         the headroom cannot test). \
         Per run means; discards are the receiver's out-of-window drops, resends of discarded \
         segments the results' retransmissions_of_discarded. Then, at the thorough and full \
         sizes, every optimal cell of Tables 14 and 15 (the limits experiment's runs) with the \
         three buffers: mean goodput and discards per run."
        ),
    );
    let seeds = ctx.pick(2, 5, 10);
    let heads = [None, Some(Tweak::Headroom125), Some(Tweak::Headroom2)];
    let opts = [Opt::Original, Opt::Optimized, Opt::Optimal];
    let mut cases = Vec::new();
    for opt in opts {
        for h in heads {
            cases.push(Case {
                rate: LTE,
                u_ms: 150,
                loss: 0.001,
                cc: "cubic",
                rec: "barr",
                opt,
                duration: secs * SEC,
                burst: None,
                download: false,
                tweak: h,
            });
        }
    }
    let runs = run_all(ctx, "window", &cases, seeds)?;
    for (c, rs) in cases.iter().zip(&runs) {
        let g: Vec<f64> = rs.iter().map(mbps).collect();
        let s = summary_text(&losslab_sim::stats::summarize(&g, false, "window"));
        let per = |f: &dyn Fn(&FlowResults) -> u64| mean(rs.iter().map(|r| f(r) as f64));
        e.row(
            format!(
                "{}, buffer {} AW: goodput (Mbit/s); per run: discards, resends of discarded, spurious retransmissions, timeouts",
                c.opt.label(),
                match c.tweak {
                    Some(Tweak::Headroom125) => "1.25",
                    Some(Tweak::Headroom2) => "2",
                    _ => "1",
                }
            ),
            format!(
                "{s}; {:.0}, {:.0}, {:.0}, {:.1}",
                per(&|f| f.receiver_out_of_window_drops),
                per(&|f| f.retransmissions_of_discarded),
                per(&|f| f.spurious_retransmissions),
                per(&|f| f.timeouts)
            ),
            match c.opt {
                Opt::Original => format!("Table 11: {}", TABLE11[0][1][1]),
                Opt::Optimized => format!("Table 13: {}", TABLE13[0][1][1]),
                _ => "section VIII: over 93% of capacity with retransmissions spared".into(),
            },
        );
    }
    if brief(ctx) {
        return Ok(e);
    }
    // Tables 14 and 15's optimal cells, the same runs as the limits
    // experiment's (and the 1.25 AW variant's), and the same at 2 AW.
    let d15 = ctx.pick(10 * SEC, 60 * SEC, 200 * SEC);
    let mut cells = Vec::new();
    for (r, rec) in ["qarr", "barr"].into_iter().enumerate() {
        for (col, u_ms) in [50, 100, 150, 200].into_iter().enumerate() {
            let label = format!(
                "Table 14, CUBIC+{} optimal, 0.5% loss, U = {u_ms} ms",
                rec.to_uppercase()
            );
            cells.push((label, TABLE14[2][r][col], LTE, u_ms, 0.005, 200 * SEC, rec));
        }
        for (col, mbit) in [200, 400, 800, 1000].into_iter().enumerate() {
            let label = format!(
                "Table 15, CUBIC+{} optimal, 0.1% loss, C = {mbit} Mbit/s",
                rec.to_uppercase()
            );
            cells.push((
                label,
                TABLE15[1][r][col],
                mbit * 1_000_000,
                100,
                0.001,
                d15,
                rec,
            ));
        }
    }
    let cases: Vec<Case> = cells
        .iter()
        .flat_map(|&(_, _, rate, u_ms, loss, duration, rec)| {
            heads.map(|tweak| Case {
                rate,
                u_ms,
                loss,
                cc: "cubic",
                rec,
                opt: Opt::Optimal,
                duration,
                burst: None,
                download: false,
                tweak,
            })
        })
        .collect();
    let runs = run_all(ctx, "window", &cases, seeds)?;
    for (i, (label, paper, rate, ..)) in cells.iter().enumerate() {
        let parts: Vec<String> = (0..heads.len())
            .map(|h| {
                let rs = &runs[heads.len() * i + h];
                format!(
                    "{:.1} ({:.0})",
                    mean(rs.iter().map(mbps)),
                    mean(rs.iter().map(|f| f.receiver_out_of_window_drops as f64))
                )
            })
            .collect();
        e.row(
            format!(
                "{label}: goodput (Mbit/s) and, in brackets, discards per run with the buffer 1 / 1.25 / 2 AW"
            ),
            parts.join(" / "),
            format!("{paper} ({:.1}% of capacity)", 100.0 * paper / cap(*rate)),
        );
    }
    // Which headroom the paper's receiver had, as evidence: each optimal
    // cell judged as the limits experiment judges it (goodput_claim, its
    // band fixed there), counted per buffer.
    for alg in ["qarr", "barr"] {
        let counts: Vec<String> = (0..heads.len())
            .map(|h| {
                let mut n = [0usize; 3];
                for (i, (label, paper, rate, .., rec)) in cells.iter().enumerate() {
                    if *rec != alg {
                        continue;
                    }
                    let g: Vec<f64> = runs[heads.len() * i + h].iter().map(mbps).collect();
                    let c = goodput_claim(
                        "window",
                        String::new(),
                        label.clone(),
                        *paper,
                        *rate,
                        &g,
                        String::new(),
                    );
                    n[match c.verdict {
                        Verdict::Reproduced => 0,
                        Verdict::Inconclusive => 1,
                        _ => 2,
                    }] += 1;
                }
                format!("{} / {} / {}", n[0], n[1], n[2])
            })
            .collect();
        e.row(
            format!(
                "The {} CUBIC+{} optimal cells above, judged as the limits experiment judges \
                 them: reproduced / inconclusive / other, with the buffer 1 AW; 1.25 AW; 2 AW",
                cells.iter().filter(|c| c.6 == alg).count(),
                alg.to_uppercase()
            ),
            counts.join("; "),
            "the paper's receiver: whichever buffer reproduces its cells",
        );
    }
    Ok(e)
}

// ---- Tables 1, 2, 4, 5 and the application stall ---------------------------

/// Table 1 (U = 100 ms, bursts of 10, 50, 100) and Table 2 (bursts of 10,
/// U = 50, 150, 200 ms), "Experimental" rows, by algorithm: original and
/// with opportunistic retransmission.
const TABLE1: [[[f64; 3]; 2]; 4] = [
    [[0.057, 0.286, 0.513], [0.485, 0.737, 0.437]],
    [[0.057, 0.286, 0.571], [0.383, 0.703, 0.731]],
    [[0.057, 0.286, 0.513], [0.246, 0.543, 0.983]],
    [[0.057, 0.481, 0.738], [0.517, 0.771, 0.990]],
];
const TABLE2: [[[f64; 3]; 2]; 4] = [
    [[0.114, 0.038, 0.028], [0.479, 0.225, 0.720]],
    [[0.114, 0.038, 0.028], [0.74, 0.57, 0.726]],
    [[0.114, 0.038, 0.028], [0.411, 0.256, 0.340]],
    [[0.113, 0.035, 0.033], [0.676, 0.555, 0.440]],
];
/// Tables 4 and 5: with both optimizations.
const TABLE4: [[f64; 3]; 4] = [
    [0.74, 0.74, 0.51],
    [0.74, 0.74, 0.74],
    [0.96, 0.98, 0.95],
    [0.97, 0.98, 0.96],
];
const TABLE5: [[f64; 3]; 4] = [
    [0.74, 0.73, 0.73],
    [0.74, 0.73, 0.73],
    [0.95, 0.96, 0.98],
    [0.99, 0.95, 0.98],
];

fn bursts(ctx: &Ctx) -> Result<Experiment, String> {
    let mut e = Experiment::new(
        "bursts",
        "Bandwidth utilization of the loss-recovery period after a burst of losses (Tables 1, 2, 4, 5) and the application stall (section V)",
        "20 Mbit/s, AW = C x U, 4.3 MB buffer, CUBIC, Linux 3.10 sender; one burst of n consecutive \
         packets dropped between the 3000th and 6000th packet (the seed places it). Utilization: \
         link busy time over the period from the first retransmission leaving the bottleneck to \
         the first new segment leaving it at least U later (eq. 8). Tables 1 and 4: U = 100 ms, n = 10, 50, 100; \
         Tables 2 and 5: n = 10, U = 50, 150, 200 ms. Original, w/ OR and optimized run on \
         the same seeds (the same burst position), so opportunistic retransmission's effect on \
         each cell (eff-tab1/eff-tab2) and headlines 3 and 4 are paired: ratio of totals over \
         the seeds where both runs have a recovery period (or a stall share), headline 3 pooled \
         over Tables 1 and 2's 24 cells against the paper's 24 cells' totals, headline 4 (w/ OR \
         against optimized: Linux's send buffer against the factor 3) pooled over every burst \
         cell against -100% (61.6% stalled in section V.B, none by Theorem 11).",
    );
    let seeds = ctx.pick(3, 5, 10);
    // (u_ms, burst) for the three columns of Tables 1/4 then 2/5.
    let conds: [(u64, u64); 6] = [
        (100, 10),
        (100, 50),
        (100, 100),
        (50, 10),
        (150, 10),
        (200, 10),
    ];
    let opts = [Opt::Original, Opt::Or, Opt::Optimized];
    let mut cases = Vec::new();
    for (_, rec) in RECS {
        for opt in opts {
            for (u_ms, n) in conds {
                cases.push(Case {
                    rate: HSPA,
                    u_ms,
                    loss: 0.0,
                    cc: "cubic",
                    rec,
                    opt,
                    duration: 8 * SEC + u_ms * MS * 20,
                    burst: Some(n),
                    download: false,
                    tweak: None,
                });
            }
        }
    }
    let runs = run_all(ctx, "bursts", &cases, seeds)?;
    let utilization = if tweak_of(ctx) == Some(Tweak::AllPeriods) {
        all_periods_utilization
    } else {
        period_utilization
    };
    let (mut stall_prr, mut stall_or, mut stall_adaptive) = (Vec::new(), Vec::new(), Vec::new());
    for (ri, (rname, _)) in RECS.iter().enumerate() {
        for (oi, opt) in opts.iter().enumerate() {
            for (ci, (u_ms, n)) in conds.iter().enumerate() {
                let rs = &runs[(ri * opts.len() + oi) * conds.len() + ci];
                let u: Vec<f64> = rs.iter().filter_map(utilization).collect();
                let (table, col) = if ci < 3 { (1, ci) } else { (2, ci - 3) };
                let paper = match opt {
                    Opt::Optimized if table == 1 => TABLE4[ri][col],
                    Opt::Optimized => TABLE5[ri][col],
                    _ if table == 1 => TABLE1[ri][oi][col],
                    _ => TABLE2[ri][oi][col],
                };
                let tname = match (opt, table) {
                    (Opt::Optimized, 1) => 4,
                    (Opt::Optimized, _) => 5,
                    (_, t) => t,
                };
                let variant = match opt {
                    Opt::Original => "original",
                    Opt::Or => "w/ OR",
                    _ => "w/ the optimizations",
                };
                let alg = [
                    crate::model::Alg::RateHalving,
                    crate::model::Alg::Prr,
                    crate::model::Alg::Qarr,
                    crate::model::Alg::Barr,
                ][ri];
                let model = crate::model::utilization(
                    alg,
                    *opt != Opt::Original,
                    &crate::model::ModelParams::paper(*n as f64, *u_ms as f64 / 1000.0),
                );
                let why = format!(
                    "the paper's model (docs/MODEL.md, beta 0.5) gives {model:.3} here; our runs \
                     ({:.1} retransmissions in the period, {:.0} packets, application stall \
                     {:.1}% of the recovery, {:.1} timeouts)",
                    mean(
                        rs.iter()
                            .filter_map(|f| f.recovery_periods.first())
                            .map(|p| p.retransmissions as f64)
                    ),
                    mean(
                        rs.iter()
                            .filter_map(|f| f.recovery_periods.first())
                            .map(|p| p.packets as f64)
                    ),
                    100.0 * mean(rs.iter().map(|f| f.app_stall_share.unwrap_or(0.0))),
                    mean(rs.iter().map(|f| f.timeouts as f64)),
                );
                // The paper's experimental cell above its own maximum
                // (Theorems 4 and 5 give QARR's and BARR's least idle
                // time, so eq. 8 their most utilization) is an
                // inconsistency of the paper.
                let bound = matches!(alg, crate::model::Alg::Qarr | crate::model::Alg::Barr);
                // Beyond the share band (0.10), not within what the
                // measured period's own slack allows (our runs exceed the
                // bound by a few thousandths too).
                let above = if bound && paper > model + 0.10 {
                    format!(
                        " [the paper's cell exceeds its own maximum for {rname} here, {model:.3} \
                         (eq. 8 with Theorem {}'s least idle time)]",
                        if *rname == "QARR" { 4 } else { 5 }
                    )
                } else {
                    String::new()
                };
                e.claims.push(claim_why(
                    "bursts",
                    format!("tab{tname}-{}-{}-n{n}-u{u_ms}", rname.to_lowercase(), opt.label()),
                    format!(
                        "Table {tname}: {rname} {variant}, burst of {n}, U = {u_ms} ms: utilization of the loss-recovery period{above}"
                    ),
                    value(paper, Band::SHARE),
                    &u,
                    why,
                ));
                if *rname == "PRR" && *opt == Opt::Or {
                    stall_prr.extend(rs.iter().filter_map(|f| f.app_stall_share));
                }
                if *opt == Opt::Or {
                    stall_or.extend(rs.iter().filter_map(|f| f.app_stall_share));
                    if matches!(alg, crate::model::Alg::Qarr | crate::model::Alg::Barr) {
                        stall_adaptive.extend(rs.iter().filter_map(|f| f.app_stall_share));
                    }
                }
            }
        }
    }
    // Per seed (None when a run has no such period), for the paired rows.
    let util = |ri: usize, oi: usize, ci: usize| -> Vec<Option<f64>> {
        runs[(ri * opts.len() + oi) * conds.len() + ci]
            .iter()
            .map(utilization)
            .collect()
    };
    let stall = |ri: usize, oi: usize, ci: usize| -> Vec<Option<f64>> {
        runs[(ri * opts.len() + oi) * conds.len() + ci]
            .iter()
            .map(|f| f.app_stall_share)
            .collect()
    };
    // Tables 1 and 2, original against w/ OR, cell by cell and pooled
    // (headline 3): the paper's "Experimental" rows give both cells.
    let (mut a, mut b, mut pa, mut pb) = (Vec::new(), Vec::new(), 0.0, 0.0);
    for (ri, (rname, _)) in RECS.iter().enumerate() {
        for (ci, (u_ms, n)) in conds.iter().enumerate() {
            let (x, y) = paired_some(&util(ri, 0, ci), &util(ri, 1, ci));
            let (t, col) = if ci < 3 { (1, ci) } else { (2, ci - 3) };
            let tab = if t == 1 { &TABLE1 } else { &TABLE2 };
            let (p0, p1) = (tab[ri][0][col], tab[ri][1][col]);
            e.claims.push(effect_claim(
                "bursts",
                &format!("eff-tab{t}-{}-or-n{n}-u{u_ms}", rname.to_lowercase()),
                &format!(
                    "Table {t}: opportunistic retransmission's effect on {rname}'s utilization of \
                     the loss-recovery period, burst of {n}, U = {u_ms} ms"
                ),
                p0,
                p1,
                &x,
                &y,
                &format!("the Table {t} utilization rows carry what the same runs measured"),
            ));
            a.extend(x);
            b.extend(y);
            pa += p0;
            pb += p1;
        }
    }
    e.claims.push(
        effect_claim(
            "bursts",
            "hl3-or-utilization",
            "Headline 3: opportunistic retransmission \"eliminate[s] the flow control \
             bottleneck\" (abstract; section IV, Tables 1 and 2): utilization of the \
             loss-recovery period with it against without, total over Tables 1 and 2's 24 cells \
             (RH, PRR, QARR, BARR x 6 conditions), paired by cell and seed",
            pa,
            pb,
            &a,
            &b,
            "the per-cell eff-tab1/eff-tab2 rows and the Table 1 and 2 utilization rows carry \
             what the same runs measured",
        )
        .headline(),
    );
    // Headline 4: the send buffer grown by 3 x cwnd against Linux's
    // default, both with opportunistic retransmission (w/ OR against
    // optimized), stall share over every burst cell, paired. The paper's
    // number: 61.6% of the recovery stalled (section V.B, CUBIC+PRR w/
    // OR) and, by Theorem 11, no stall with the factor 3: -100%.
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for ri in 0..RECS.len() {
        for ci in 0..conds.len() {
            let (x, y) = paired_some(&stall(ri, 1, ci), &stall(ri, 2, ci));
            a.extend(x);
            b.extend(y);
        }
    }
    e.claims.push(
        Claim::measured(
            PAPER,
            "bursts",
            "hl4-sndbuf-stall",
            "Headline 4: \"application stall can be significantly alleviated by carefully \
             monitoring and tuning the TCP sending buffer growth mechanism\" (abstract; section \
             V: 61.6% of CUBIC+PRR's recovery stalled with Linux's buffer, none by Theorem 11 with \
             sndbuf grown by 3 x cwnd): stall share with the factor 3 against Linux's default, \
             both with opportunistic retransmission, total over the 24 burst cells, paired",
            Expect::Effect {
                paper: -1.0,
                band: Band::EFFECT,
            },
            paired_relative(&a, &b, "effect"),
            &format!(
                "{UNTESTED}; mean stall share {:.3} with Linux's buffer, {:.3} with the factor 3, \
                 over {} paired runs",
                mean(a.iter().copied()),
                mean(b.iter().copied()),
                a.len()
            ),
        )
        .headline(),
    );
    // Theorem 11 holds in our send-buffer model, so the factor-3 side
    // cannot stall: the effect is -1 whenever the baseline stalls at all.
    if b.iter().all(|x| *x == 0.0) {
        if let Some(c) = e.claims.pop() {
            let why = format!(
                "the send buffer grown by 3 x cwnd never stalls in our model (Theorem 11 holds \
                 by its design: 0 in all {} runs), so the effect is -1 whenever Linux's buffer \
                 stalls at all; what can be judged is the baseline's stall share, {:.3} over \
                 the 24 burst cells of every algorithm here, and the CUBIC+PRR cell's against \
                 the paper's 0.616 in its own row (sec5-stall-cubic-prr)",
                b.len(),
                mean(a.iter().copied())
            );
            e.claims.push(c.by_construction(&why));
        }
    }
    e.claims.push(claim(
        "bursts",
        "sec5-stall-cubic-prr".into(),
        "Section V.B: with opportunistic retransmission, CUBIC+PRR's application stall occupies 61.6% of the loss-recovery phase (measured)".into(),
        value(0.616, Band::SHARE),
        &stall_prr,
    ));
    // Section IV.B (and the introduction): "application stall occurs
    // during over 61.1% of the loss recovery phase" in its burst
    // experiments with opportunistic retransmission; "over" read as at
    // least, with no band below it.
    e.claims.push(claim(
        "bursts",
        "sec4b-stall-over-61".into(),
        "Section IV.B (and section I): with opportunistic retransmission \"application stall occurs during over 61.1% of the loss recovery phase\": stall share of the recovery, every burst run w/ OR (RH, PRR, QARR, BARR x 6 conditions)".into(),
        Expect::AtLeast {
            paper: 0.611,
            band: Band::Absolute { d: 0.0 },
        },
        &stall_or,
    ));
    e.claims.push(Claim::not_measured(
        PAPER,
        "bursts",
        "sec5-stall-theory-adaptive",
        "Section V.B: for CUBIC+QARR/BARR (beta = 1) application stall can occur if 0 < b_free <= 2CW/3, \"thus 100% of the time\" during loss recovery",
        value(1.0, Band::SHARE),
        &format!(
            "a property of the model (the share of b_free's range where a stall can occur), not a \
             measurement; the QARR and BARR burst runs w/ OR here stall during {:.3} of their \
             recovery on average",
            mean(stall_adaptive.iter().copied())
        ),
    ));
    e.claims.push(Claim::not_measured(
        PAPER,
        "bursts",
        "sec4a-cpu-10",
        "Section IV.A: \"opportunistic retransmission still can work even if CPU utilization of the TCP process is limited to 10%\" (cpulimit on iperf)",
        value(0.10, Band::SHARE),
        "the simulator has no CPU: a host processes every segment at once, so a limit on the \
         process's CPU share cannot be set or measured here",
    ));
    e.claims.push(Claim::not_measured(
        PAPER,
        "bursts",
        "sec5-stall-theory",
        "Theorem 10: for CUBIC+PRR (beta = 0.7) application stall can occur during (2/3 - 0.3)/(2/3) = 55% of the time",
        value(0.55, Band::SHARE),
        "a property of the model, not a measurement: `losslab model` computes it from Theorem 10 \
         (a unit test checks 0.55); the measured share is the row above",
    ));
    // The model's Numerical rows (docs/MODEL.md, `losslab model`) beside
    // the paper's: how the reconstruction reads, not a measurement.
    let cells = crate::model::paper::cells();
    let mut groups: Vec<(u8, crate::model::Alg, bool)> = Vec::new();
    for c in &cells {
        if !groups.contains(&(c.table, c.alg, c.or)) {
            groups.push((c.table, c.alg, c.or));
        }
    }
    for (t, alg, or) in groups {
        let g: Vec<_> = cells
            .iter()
            .filter(|c| (c.table, c.alg, c.or) == (t, alg, or))
            .collect();
        let join = |f: &dyn Fn(&&crate::model::paper::Cell) -> String| {
            g.iter().map(f).collect::<Vec<_>>().join(" / ")
        };
        e.row(
            format!(
                "model, Table {t} Numerical, {}{}",
                alg.label(),
                if or { " w/ OR" } else { "" }
            ),
            join(&|c| format!("{:.3}", c.ours())),
            join(&|c| c.printed.to_string()),
        );
    }
    for (ri, (rname, _)) in RECS.iter().enumerate() {
        let base = ri * opts.len() * conds.len();
        let show = |oi: usize| {
            runs[base + oi * conds.len()]
                .first()
                .and_then(utilization)
                .map_or("-".into(), |u| format!("{u:.3}"))
        };
        e.row(
            format!("{rname}, burst 10, U 100 ms: original / w/ OR / optimized"),
            format!("{} / {} / {}", show(0), show(1), show(2)),
            format!(
                "{} / {} / {}",
                TABLE1[ri][0][0], TABLE1[ri][1][0], TABLE4[ri][0]
            ),
        );
    }
    Ok(e)
}

// ---- Tables 6-13: goodput over 200 s ---------------------------------------

/// [cc][rec][column] Mbit/s. Columns: loss 0.01, 0.05, 0.1% at U = 100
/// ms (Tables 6, 8), or U = 50, 150, 200 ms at 0.1% (Tables 7, 9).
type Grid = [[[f64; 3]; 4]; 4];
const TABLE6: Grid = [
    // One of CUBIC+QARR's cells is printed out of place in our copy of
    // the paper ("17.6(88.0%)" between PRR's cells, "18.8 15.6" in QARR's
    // row); section VII.B says every QARR/BARR combination's throughput
    // "still degrades as the loss rate is increased", so we read it as
    // the 0.05% cell, and the two rows say so (`hspa_note`).
    [
        [17.0, 6.87, 5.2],
        [16.1, 7.89, 5.4],
        [18.8, 17.6, 15.6],
        [18.7, 17.9, 16.6],
    ],
    [
        [14.2, 6.35, 4.72],
        [14.1, 7.20, 5.3],
        [18.9, 16.6, 14.1],
        [18.8, 17.9, 16.5],
    ],
    [
        [14.6, 12.2, 7.87],
        [16.7, 9.57, 8.30],
        [18.6, 16.8, 15.3],
        [18.2, 16.8, 16.2],
    ],
    [
        [13.0, 6.69, 4.62],
        [13.6, 6.07, 4.36],
        [18.3, 16.9, 14.3],
        [18.7, 17.6, 16.2],
    ],
];
const TABLE7: Grid = [
    [
        [6.98, 4.19, 3.76],
        [7.25, 4.63, 3.93],
        [18.0, 16.1, 14.7],
        [18.0, 16.2, 14.9],
    ],
    [
        [9.58, 3.51, 2.52],
        [10.3, 3.22, 2.38],
        [18.3, 11.5, 10.1],
        [18.1, 15.6, 14.5],
    ],
    [
        [18.3, 7.64, 5.70],
        [17.7, 6.86, 4.92],
        [17.8, 14.0, 12.7],
        [17.7, 14.4, 13.0],
    ],
    [
        [9.60, 3.17, 2.28],
        [9.85, 3.03, 2.31],
        [17.3, 11.7, 11.4],
        [17.7, 14.6, 14.5],
    ],
];
const TABLE8: Grid = [
    [
        [17.0, 7.8, 5.28],
        [16.3, 9.0, 5.99],
        [19.1, 19.1, 19.1],
        [19.1, 19.1, 19.0],
    ],
    [
        [15.1, 7.7, 5.60],
        [15.7, 8.4, 6.25],
        [19.1, 19.1, 19.1],
        [19.1, 19.1, 19.0],
    ],
    [
        [16.7, 12.9, 8.20],
        [18.3, 13.4, 9.09],
        [19.1, 19.1, 19.1],
        [19.1, 19.1, 19.1],
    ],
    [
        [13.0, 7.10, 4.79],
        [14.3, 6.82, 4.82],
        [19.1, 19.1, 19.1],
        [19.1, 19.1, 18.9],
    ],
];
const TABLE9: Grid = [
    [
        [6.77, 4.05, 3.66],
        [6.64, 4.10, 3.87],
        [19.1, 19.0, 19.0],
        [19.1, 18.6, 18.7],
    ],
    [
        [9.96, 3.40, 2.54],
        [9.85, 3.69, 2.42],
        [19.1, 19.0, 19.0],
        [19.1, 18.8, 18.9],
    ],
    [
        [18.6, 7.68, 5.57],
        [17.7, 7.37, 5.45],
        [19.1, 19.0, 19.0],
        [19.1, 18.5, 17.9],
    ],
    [
        [9.60, 3.17, 2.28],
        [9.85, 3.03, 2.31],
        [19.1, 19.1, 19.0],
        [19.1, 18.7, 18.7],
    ],
];
/// Tables 10-13 (LTE): [cc][QARR, BARR][column].
type LteGrid = [[[f64; 3]; 2]; 4];
const TABLE10: LteGrid = [
    [[88.5, 73.6, 65.7], [87.8, 63.8, 52.7]],
    [[88.7, 73.4, 66.3], [87.4, 65.2, 53.7]],
    [[88.5, 67.1, 60.5], [84.9, 62.8, 54.9]],
    [[88.3, 73.3, 65.8], [87.9, 64.3, 51.2]],
];
const TABLE11: LteGrid = [
    [[73.5, 58.5, 54.9], [66.3, 45.0, 39.2]],
    [[73.9, 60.6, 57.0], [67.0, 47.3, 41.3]],
    [[67.7, 54.9, 48.7], [65.1, 43.8, 41.4]],
    [[73.1, 57.3, 51.0], [66.0, 43.8, 39.5]],
];
const TABLE12: LteGrid = [
    [[95.2, 94.3, 93.9], [95.2, 93.9, 93.1]],
    [[95.1, 95.1, 94.9], [95.3, 95.1, 94.5]],
    [[95.3, 93.3, 92.5], [93.3, 92.8, 90.4]],
    [[95.3, 95.0, 94.3], [95.2, 95.0, 94.6]],
];
const TABLE13: LteGrid = [
    [[95.3, 92.7, 91.5], [94.8, 92.1, 89.6]],
    [[95.3, 94.1, 93.3], [95.3, 93.8, 92.2]],
    [[95.1, 92.5, 89.3], [94.4, 90.8, 90.7]],
    [[95.3, 93.8, 91.4], [95.4, 94.1, 92.1]],
];

/// The six conditions of a pair of tables: three loss rates at 100 ms,
/// then three delays at 0.1%.
const CONDS: [(u64, f64); 6] = [
    (100, 0.0001),
    (100, 0.0005),
    (100, 0.001),
    (50, 0.001),
    (150, 0.001),
    (200, 0.001),
];

fn cond_text(ci: usize) -> String {
    let (u, p) = CONDS[ci];
    format!("{}% loss, U = {u} ms", p * 100.0)
}

/// What a goodput row adds to its statement about the paper's cell (cc,
/// rec, optimized, condition, our values).
type CellNote = dyn Fn(usize, usize, bool, usize, &[f64]) -> String;

/// Goodput tables: `cells` of (cc index, rec index, condition), each run
/// original then optimized (runs[2i], runs[2i + 1]), over the same seeds;
/// `paper(ci, ri, optimized, col)`. Each cell gives its two goodput rows
/// and the paired effect of the optimizations on it.
#[allow(clippy::too_many_arguments)]
fn goodput_tables(
    ctx: &Ctx,
    e: &mut Experiment,
    rate: u64,
    cells: &[(usize, usize, usize)],
    seeds: u64,
    duration: Time,
    tables: [u32; 4],
    paper: &dyn Fn(usize, usize, bool, usize) -> f64,
    note: &CellNote,
) -> Result<Vec<Vec<FlowResults>>, String> {
    let mut cases = Vec::new();
    for &(ci, ri, k) in cells {
        for opt in [Opt::Original, Opt::Optimized] {
            let (u_ms, loss) = CONDS[k];
            cases.push(Case {
                rate,
                u_ms,
                loss,
                cc: CCS[ci].1,
                rec: RECS[ri].1,
                opt,
                duration,
                burst: None,
                download: false,
                tweak: None,
            });
        }
    }
    let runs = run_all(ctx, &e.id, &cases, seeds)?;
    let mut same = SameRuns::default();
    let exp = e.id.clone();
    for (i, &(ci, ri, k)) in cells.iter().enumerate() {
        let cell = |t: u32| {
            format!(
                "{t}-{}-{}-{}",
                CCS[ci].0.to_lowercase(),
                RECS[ri].0.to_lowercase(),
                cond_id(k)
            )
        };
        let col = usize::from(k >= 3);
        let mut g = Vec::new();
        for (oi, opt) in [Opt::Original, Opt::Optimized].iter().enumerate() {
            let rs = &runs[2 * i + oi];
            let v: Vec<f64> = rs.iter().map(mbps).collect();
            let table = tables[oi * 2 + col];
            let what = if *opt == Opt::Original {
                ""
            } else {
                " w/ the optimizations"
            };
            let id = format!("tab{}", cell(table));
            let m = same.id(&format!("v-{ri}-{oi}-{k}"), &[&v], format!("{exp}/{id}"));
            e.claims.push(
                goodput_claim(
                    &exp,
                    id,
                    format!(
                        "Table {table}: {}+{}{what}, {}: goodput (Mbit/s){}",
                        CCS[ci].0,
                        RECS[ri].0,
                        cond_text(k),
                        note(ci, ri, *opt != Opt::Original, k, &v)
                    ),
                    paper(ci, ri, *opt != Opt::Original, k),
                    rate,
                    &v,
                    diagnosis(rs, RECS[ri].1, *opt),
                )
                .measurement(m),
            );
            g.push(v);
        }
        let (t0, t1) = (tables[col], tables[2 + col]);
        let id = format!("eff-tab{t0}-{}", cell(t1));
        let m = same.id(
            &format!("e-{ri}-{k}"),
            &[&g[0], &g[1]],
            format!("{exp}/{id}"),
        );
        e.claims.push(
            effect_claim(
                &exp,
                &id,
                &format!(
                    "Tables {t0} -> {t1}: the optimizations' effect on {}+{}'s goodput, {}",
                    CCS[ci].0,
                    RECS[ri].0,
                    cond_text(k)
                ),
                paper(ci, ri, false, k),
                paper(ci, ri, true, k),
                &g[0],
                &g[1],
                "the goodput rows of this cell, original and optimized, carry what the same runs \
                 measured",
            )
            .measurement(m),
        );
    }
    Ok(runs)
}

fn cond_id(k: usize) -> String {
    let (u, p) = CONDS[k];
    if k < 3 {
        format!("p{}", p * 100.0)
    } else {
        format!("u{u}")
    }
}

/// Goodput of a cell's runs, original (false) or optimized (true).
fn cell_goodput(
    cells: &[(usize, usize, usize)],
    runs: &[Vec<FlowResults>],
    cell: (usize, usize, usize),
    optimized: bool,
) -> Option<Vec<f64>> {
    let i = cells.iter().position(|&x| x == cell)?;
    Some(
        runs[2 * i + usize::from(optimized)]
            .iter()
            .map(mbps)
            .collect(),
    )
}

/// Headline 5 read across controllers, a stronger reading than the
/// headline rows' (which compare on the same controller; the fifth
/// review): at each Table 6 loss rate, the weakest QARR/BARR combination
/// of the four controllers above the strongest RH/PRR one, per seed (the
/// same seed's runs, so the same loss draws). The paper's own table
/// orders every loss rate so (0.01%: 18.2 against 17.0). Only when all
/// four controllers ran (--thorough and --full).
// `k` names a loss rate in the runs (cell_goodput) as much as in the table.
#[allow(clippy::needless_range_loop)]
fn across_controllers(
    e: &mut Experiment,
    cells: &[(usize, usize, usize)],
    runs: &[Vec<FlowResults>],
) {
    for k in 0..3 {
        let side = |recs: [usize; 2]| -> Option<(Vec<Vec<f64>>, Vec<f64>)> {
            let mut v = Vec::new();
            let mut paper = Vec::new();
            for (ci, row) in TABLE6.iter().enumerate() {
                for ri in recs {
                    v.push(cell_goodput(cells, runs, (ci, ri, k), false)?);
                    paper.push(row[ri][k]);
                }
            }
            Some((v, paper))
        };
        let (Some((ad, pad)), Some((st, pst))) = (side([2, 3]), side([0, 1])) else {
            continue;
        };
        let n = ad[0].len();
        let fold = |v: &[Vec<f64>], f: fn(f64, f64) -> f64, init: f64| -> Vec<f64> {
            (0..n)
                .map(|s| v.iter().map(|x| x[s]).fold(init, f))
                .collect()
        };
        let weakest = fold(&ad, f64::min, f64::INFINITY);
        let strongest = fold(&st, f64::max, f64::NEG_INFINITY);
        let (pmin, pmax) = (
            pad.iter().copied().fold(f64::INFINITY, f64::min),
            pst.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        );
        e.claims.push(order_claim(
            &e.id.clone(),
            &format!("hl5-across-{}", cond_id(k)),
            &format!(
                "Headline 5 read across controllers (ours reads it on the same controller): \
                 Table 6, {}: the weakest of the eight QARR/BARR combinations above the \
                 strongest of the eight RH/PRR ones, per seed (paper {} against {})",
                cond_text(k),
                printed(pmin),
                printed(pmax)
            ),
            &strongest,
            &weakest,
        ));
    }
}

/// The optimizations' effect on Vegas+QARR's goodput at 0.1% loss and
/// 100 ms (condition 2), paired by seed: the cell's effect row's runs
/// (`eff`), against the number the text gives.
fn vegas_qarr_gain(
    e: &mut Experiment,
    cells: &[(usize, usize, usize)],
    runs: &[Vec<FlowResults>],
    eff: &str,
    id: &str,
    statement: &str,
    paper: f64,
) {
    let (Some(orig), Some(opt)) = (
        cell_goodput(cells, runs, (3, 2, 2), false),
        cell_goodput(cells, runs, (3, 2, 2), true),
    ) else {
        return;
    };
    let exp = e.id.clone();
    let m = e
        .claims
        .iter()
        .find(|c| c.id == eff)
        .map_or(format!("{exp}/{id}"), |c| c.measurement.clone());
    e.claims.push(
        Claim::measured(
            PAPER,
            &exp,
            id,
            statement,
            Expect::Effect {
                paper,
                band: Band::EFFECT,
            },
            paired_relative(&orig, &opt, "gain"),
            &format!(
                "{UNTESTED}; the goodput rows of this cell, original and optimized, carry what the \
                 same runs measured"
            ),
        )
        .measurement(m),
    );
}

/// Section VII.D's expectation beyond its tables: "over 37% improvement
/// at 0.2% loss rate" for Vegas+QARR over HSPA+ (U = 100 ms). The paper
/// did not measure it ("we expect"), so the row says so; "over" is read
/// as at least 37%, with no band below it. Two more cells (original and
/// optimized, paired by seed), not run at the quick and default scales
/// (no Vegas there).
fn vegas_qarr_at_02(ctx: &Ctx, e: &mut Experiment, seeds: u64) -> Result<(), String> {
    if brief(ctx) {
        return Ok(());
    }
    let cases: Vec<Case> = [Opt::Original, Opt::Optimized]
        .into_iter()
        .map(|opt| Case {
            rate: HSPA,
            u_ms: 100,
            loss: 0.002,
            cc: CCS[3].1,
            rec: RECS[2].1,
            opt,
            duration: 200 * SEC,
            burst: None,
            download: false,
            tweak: None,
        })
        .collect();
    let runs = run_all(ctx, &e.id, &cases, seeds)?;
    let orig: Vec<f64> = runs[0].iter().map(mbps).collect();
    let opt: Vec<f64> = runs[1].iter().map(mbps).collect();
    let exp = e.id.clone();
    e.claims.push(Claim::measured(
        PAPER,
        &exp,
        "sec7d-vegas-qarr-gain-p0.2",
        "Section VII.D: \"we expect that the improvement will be higher with the increase in \
         loss rate, e.g., over 37% improvement at 0.2% loss rate\" for Vegas+QARR (U = 100 ms; \
         the paper's expectation, not a measurement of its own): the optimizations' effect on \
         goodput at 0.2% loss, paired by seed",
        Expect::AtLeast {
            paper: 0.37,
            band: Band::Absolute { d: 0.0 },
        },
        paired_relative(&orig, &opt, "gain"),
        &format!(
            "{UNTESTED}; goodput {:.2} Mbit/s original, {:.2} optimized (our runs at 0.2% loss, \
             which no table of the paper has)",
            mean(orig.iter().copied()),
            mean(opt.iter().copied())
        ),
    ));
    Ok(())
}

/// Headline 5 (section VII.B, Table 6): "all TCP+QARR/BARR combinations
/// ... performed better than the other combinations under all loss
/// rates". An order, so judged as one (the third review): per Table 6
/// cell, the adaptive algorithm above the standard one on the same
/// controller, loss rate and seed; and, as the headline rows, over all
/// Table 6's cells, paired by cell and seed. The size of the gap (ratio of
/// totals against the paper's same cells' totals) stays as a row of its
/// own, no longer a headline: the paper does not claim a size.
fn adaptive_beats_standard(
    e: &mut Experiment,
    cells: &[(usize, usize, usize)],
    runs: &[Vec<FlowResults>],
) {
    let exp = e.id.clone();
    across_controllers(e, cells, runs);
    for (ai, si) in [(2, 0), (2, 1), (3, 0), (3, 1)] {
        let (mut a, mut b, mut pa, mut pb) = (Vec::new(), Vec::new(), 0.0, 0.0);
        let mut ccs = Vec::new();
        let (an, sn) = (RECS[ai].0, RECS[si].0);
        for (ci, row) in TABLE6.iter().enumerate() {
            for (k, (ps, pad)) in row[si].iter().zip(&row[ai]).enumerate() {
                let (Some(s), Some(ad)) = (
                    cell_goodput(cells, runs, (ci, si, k), false),
                    cell_goodput(cells, runs, (ci, ai, k), false),
                ) else {
                    continue;
                };
                // The text's order, cell by cell; a cell the paper's own
                // table orders the other way is judged by its table and
                // says so.
                let cc = CCS[ci].0;
                let id = format!(
                    "ord-tab6-{}-{}-over-{}-{}",
                    cc.to_lowercase(),
                    an.to_lowercase(),
                    sn.to_lowercase(),
                    cond_id(k)
                );
                let c = if pad >= ps {
                    order_claim(
                        &exp,
                        &id,
                        &format!(
                            "Headline 5: Table 6: {cc}+{an} above {cc}+{sn}, {} (paper {pad} \
                             against {ps})",
                            cond_text(k)
                        ),
                        &s,
                        &ad,
                    )
                } else {
                    order_claim(
                        &exp,
                        &id,
                        &format!(
                            "Headline 5: Table 6: {cc}+{sn} above {cc}+{an}, {} (paper {ps} \
                             against {pad}: the table orders this cell against its text)",
                            cond_text(k)
                        ),
                        &ad,
                        &s,
                    )
                };
                // "All ... under all loss rates": every cell is a headline
                // row, so the item holds only when every cell does (the
                // fourth review's B1); the pooled rows below summarise.
                e.claims.push(c.headline());
                a.extend(s);
                b.extend(ad);
                pa += ps;
                pb += pad;
                if !ccs.contains(&cc) {
                    ccs.push(cc);
                }
            }
        }
        if a.is_empty() {
            continue;
        }
        let over = format!("{}-over-{}", an.to_lowercase(), sn.to_lowercase());
        e.claims.push(
            order_claim(
                &exp,
                &format!("hl5-{over}"),
                &format!(
                    "Headline 5: \"all TCP+QARR/BARR combinations ... performed better than the \
                     other combinations under all loss rates\" (section VII.B, Table 6): {an} above \
                     {sn} on the same controller ({}), loss rate (0.01, 0.05 and 0.1%, U = 100 ms) \
                     and seed, every Table 6 cell measured",
                    ccs.join(", ")
                ),
                &a,
                &b,
            )
            .headline(),
        );
        e.claims.push(effect_claim(
            &exp,
            &format!("gap-tab6-{over}"),
            &format!(
                "Table 6: {an} against {sn}, total goodput over Table 6's cells with {} at 0.01, \
                 0.05 and 0.1% loss, U = 100 ms, paired by cell and seed (the size of headline \
                 5's order; the paper claims no size)",
                ccs.join(", ")
            ),
            pa,
            pb,
            &a,
            &b,
            "the Table 6 goodput rows carry what the same runs measured",
        ));
    }
}

/// What the paper's own tables leave in doubt about an HSPA+ cell, said
/// in its row: Table 6's CUBIC+QARR cells at 0.05 and 0.1% (one is
/// printed out of place in our copy, between PRR's cells: "18.8 15.6" in
/// QARR's row and "17.6" apart; we read 18.8/17.6/15.6, falling with
/// loss as section VII.B says every QARR/BARR combination's throughput
/// does, rather than 18.8/15.6/17.6 in the printed order), with our
/// verdict under the other reading; and Table 9 rows that repeat Table
/// 7's cell for cell (Vegas+RH and Vegas+PRR: the optimized rows equal
/// the original ones, where every other controller's differ).
fn hspa_note(ci: usize, ri: usize, optimized: bool, k: usize, v: &[f64]) -> String {
    if !optimized && ci == 0 && ri == 2 && (k == 1 || k == 2) {
        let other = TABLE6[0][2][3 - k];
        let alt = goodput_claim(
            "hspa",
            "alt".into(),
            String::new(),
            other,
            HSPA,
            v,
            String::new(),
        );
        return format!(
            " [our copy prints 17.6 out of place; read as {} here, since section VII.B says the \
             throughput \"still degrades as the loss rate is increased\"; in the printed order \
             this cell is {other}, under which this row is {}]",
            TABLE6[0][2][k],
            alt.verdict.name()
        );
    }
    if optimized && k >= 3 && TABLE9[ci][ri] == TABLE7[ci][ri] {
        return " [the paper's Table 9 row repeats its Table 7 row cell for cell (optimized = \
                original), likely a copy error in the paper]"
            .into();
    }
    String::new()
}

/// The Tables 7 -> 9 effect rows of a combination whose Table 9 row
/// repeats its Table 7 row cell for cell (Vegas+RH and Vegas+PRR): the
/// paper's zero effect there is the copy, not a claim, so the row keeps
/// our effect but is not judged (the fifth review) and stays out of
/// Headline 1's share of pairs. The goodput rows stay judged: which of
/// the two tables holds the copy, the paper does not say.
fn copied_rows_in_doubt(e: &mut Experiment) {
    for (ci, cc) in CCS.iter().enumerate() {
        for (ri, rec) in RECS.iter().enumerate() {
            if TABLE9[ci][ri] != TABLE7[ci][ri] {
                continue;
            }
            let prefix = format!(
                "eff-tab7-9-{}-{}-",
                cc.0.to_lowercase(),
                rec.0.to_lowercase()
            );
            for c in e.claims.iter_mut().filter(|c| c.id.starts_with(&prefix)) {
                *c = c.clone().paper_in_doubt(&format!(
                    "the paper's Table 9 row for {}+{} repeats its Table 7 row cell for cell \
                     (every other combination's optimized row differs from its original), so \
                     the zero effect this pair of cells gives is most likely a copy error, not \
                     a claim; our effect is shown, judged against nothing",
                    cc.0, rec.0
                ));
            }
        }
    }
}

fn hspa(ctx: &Ctx) -> Result<Experiment, String> {
    let mut e = Experiment::new(
        "hspa",
        "Goodput of 16 congestion-control x loss-recovery combinations over HSPA+, original and optimized (Tables 6-9)",
        "20 Mbit/s, 4.3 MB buffer, AW = C x U, 200 s, Bernoulli loss; Tables 6 and 8: 0.01, 0.05, \
         0.1% at U = 100 ms; Tables 7 and 9: 0.1% at U = 50, 150, 200 ms. Optimized: opportunistic \
         retransmission and the send buffer grown by 3 x cwnd. Original and optimized run on the \
         same seeds, so each cell's effect of the optimizations (eff-*) is paired: ratio of \
         totals with a paired bootstrap CI, against the paper's two cells' ratio. A goodput cell \
         whose paper value x 1.25 passes the 20 Mbit/s capacity is judged as a share of \
         capacity (ours / 20 against paper / 20, +-0.10: claims.rs near_capacity), since the \
         quantity band's upper half could not be reached. QARR and BARR rows of Veno, Westwood \
         and Vegas whose seeds give bit-for-bit the same goodput (where the controller is inert \
         under QARR and BARR, see SameRuns in mobile.rs) share one measurement id and count once. \
         Headline 5 pools Table 6's cells (every controller measured x three loss rates). \
         `--quick` and the default measure CUBIC only.",
    );
    let ccs = if brief(ctx) { 1 } else { 4 };
    let cells: Vec<(usize, usize, usize)> = (0..ccs)
        .flat_map(|c| (0..4).flat_map(move |r| (0..6).map(move |k| (c, r, k))))
        .collect();
    let seeds = ctx.pick(3, 5, 10);
    let runs = goodput_tables(
        ctx,
        &mut e,
        HSPA,
        &cells,
        seeds,
        200 * SEC,
        [6, 7, 8, 9],
        &|c, r, opt, k| {
            let t = match (opt, k >= 3) {
                (false, false) => &TABLE6,
                (false, true) => &TABLE7,
                (true, false) => &TABLE8,
                (true, true) => &TABLE9,
            };
            t[c][r][k % 3]
        },
        &|c, r, opt, k, v| hspa_note(c, r, opt, k, v),
    )?;
    copied_rows_in_doubt(&mut e);
    adaptive_beats_standard(&mut e, &cells, &runs);
    // Section VII.D: Vegas+QARR gains 33.6% from the optimizations at
    // 0.1% loss (19.1 against 14.3 Mbit/s).
    vegas_qarr_gain(
        &mut e,
        &cells,
        &runs,
        "eff-tab6-8-vegas-qarr-p0.1",
        "sec7d-vegas-qarr-gain",
        "Section VII.D: the optimizations improve Vegas+QARR's goodput by 33.6% at 0.1% loss",
        0.336,
    );
    vegas_qarr_at_02(ctx, &mut e, seeds)?;
    // Section VII.C: 19.3 Mbit/s without loss (96.5%).
    let noloss = run_all(
        ctx,
        "hspa",
        &[Case {
            rate: HSPA,
            u_ms: 100,
            loss: 0.0,
            cc: "cubic",
            rec: "prr-linux-3",
            opt: Opt::Original,
            duration: 200 * SEC,
            burst: None,
            download: false,
            tweak: None,
        }],
        seeds,
    )?;
    let g: Vec<f64> = noloss[0].iter().map(mbps).collect();
    // The paper's 96.5% is the share of a 1515-byte packet its payload
    // carries (1463 / 1515 = 96.6%, the packet size our runs take from
    // it), and a loss-free deterministic run can only approach it from
    // below: the row checks our setup, it is no finding (the third
    // review's N5).
    e.claims.push(
        goodput_claim(
            "hspa",
            "sec7c-no-loss".into(),
            "Section VII.C: without loss TCP reaches 19.3 Mbit/s (96.5% of 20 Mbit/s)".into(),
            19.3,
            HSPA,
            &g,
            String::new(),
        )
        .by_construction(
            "the paper's 96.5% is the payload's share of a 1515-byte packet (1463 / 1515 = \
             96.6%), the packet our runs are built with, and a loss-free run cannot pass it; \
             the band (0.10 of capacity either side) reaches past it, so only a run far below \
             the ceiling could fail",
        ),
    );
    if let Some(f) = runs.first().and_then(|r| r.first()) {
        e.row(
            "CUBIC+RH, 0.01%, 100 ms (Mbit/s)",
            format!("{:.2}", mbps(f)),
            "17.0",
        );
    }
    Ok(e)
}

fn lte(ctx: &Ctx) -> Result<Experiment, String> {
    let mut e = Experiment::new(
        "lte",
        "QARR and BARR over LTE, original and optimized (Tables 10-13)",
        "100 Mbit/s, otherwise as the HSPA+ runs (paired effects, near-capacity shares and \
         shared measurement ids likewise). \"QARR performs better than BARR\" (section VII.F, \
         Tables 10 and 11) is one order row per cell (ord-*: QARR - BARR per seed, original \
         runs): each cell is a paired comparison the paper makes, and a single share-of-cells \
         row would count identical runs of Veno, Westwood and Vegas more than once; rows on \
         identical runs share a measurement id. Headline 1's summary rows (hl1-*) are judged \
         over every original -> optimized cell pair measured over HSPA+ and LTE; the share row \
         counts each measurement once. `--quick` and the default measure CUBIC+QARR and the 133% cell \
         (Vegas+BARR at U = 200 ms) only.",
    );
    let cells: Vec<(usize, usize, usize)> = if brief(ctx) {
        (0..6).map(|k| (0, 2, k)).chain([(3, 3, 5)]).collect()
    } else {
        (0..4)
            .flat_map(|c| {
                [2, 3]
                    .into_iter()
                    .flat_map(move |r| (0..6).map(move |k| (c, r, k)))
            })
            .collect()
    };
    let seeds = ctx.pick(3, 5, 10);
    let runs = goodput_tables(
        ctx,
        &mut e,
        LTE,
        &cells,
        seeds,
        200 * SEC,
        [10, 11, 12, 13],
        &|c, r, opt, k| {
            let t = match (opt, k >= 3) {
                (false, false) => &TABLE10,
                (false, true) => &TABLE11,
                (true, false) => &TABLE12,
                (true, true) => &TABLE13,
            };
            t[c][r - 2][k % 3]
        },
        &|_, _, _, _, _| String::new(),
    )?;
    // Headline 1: the paper's largest effect, 39.5 -> 92.1 Mbit/s.
    if let Some(c) = e
        .claims
        .iter_mut()
        .find(|c| c.id == "eff-tab11-13-vegas-barr-u200")
    {
        c.headline = true;
        c.statement = format!(
            "Headline 1: \"the proposed optimization algorithms improve the bandwidth \
             efficiency by up to 133%\" (abstract): the paper's largest cell pair, {}",
            c.statement
        );
    }
    let mut same = SameRuns::default();
    for ci in 0..4 {
        for k in 0..6 {
            let (Some(q), Some(b)) = (
                cell_goodput(&cells, &runs, (ci, 2, k), false),
                cell_goodput(&cells, &runs, (ci, 3, k), false),
            ) else {
                continue;
            };
            let t = if k < 3 { 10 } else { 11 };
            let id = format!(
                "ord-tab{t}-{}-qarr-over-barr-{}",
                CCS[ci].0.to_lowercase(),
                cond_id(k)
            );
            let m = same.id(&format!("{k}"), &[&q, &b], format!("lte/{id}"));
            e.claims.push(
                order_claim(
                    "lte",
                    &id,
                    &format!(
                        "Section VII.F: \"QARR performs better than BARR\" over LTE (Table {t}, \
                         {}, {}: paper {} against {} Mbit/s): QARR - BARR goodput per seed",
                        CCS[ci].0,
                        cond_text(k),
                        [TABLE10, TABLE11][k / 3][ci][0][k % 3],
                        [TABLE10, TABLE11][k / 3][ci][1][k % 3],
                    ),
                    &b,
                    &q,
                )
                .measurement(m),
            );
        }
    }
    // Section VII.F: 43.3% for Vegas+QARR at 0.1% and 100 ms.
    vegas_qarr_gain(
        &mut e,
        &cells,
        &runs,
        "eff-tab10-12-vegas-qarr-p0.1",
        "sec7f-vegas-qarr-gain",
        "Section VII.F: over LTE the optimizations improve Vegas+QARR's goodput by 43.3% at 0.1% loss, 100 ms",
        0.433,
    );
    Ok(e)
}

/// Headline 1 over every cell pair measured (Tables 6 -> 8, 7 -> 9,
/// 10 -> 12, 11 -> 13): the largest of our effects against the paper's
/// largest, and the share of the pairs whose effect reproduces.
fn effect_summary(hspa: &Experiment, lte: &mut Experiment) {
    let effs: Vec<&Claim> = hspa
        .claims
        .iter()
        .chain(&lte.claims)
        .filter(|c| c.id.starts_with("eff-tab") && c.verdict != Verdict::NotMeasured)
        .collect();
    let Some(top) = effs
        .iter()
        .filter(|c| c.ours.is_some())
        .max_by(|a, b| {
            let m = |c: &Claim| c.ours.as_ref().map_or(f64::NEG_INFINITY, |o| o.mean);
            m(a).total_cmp(&m(b))
        })
        .copied()
    else {
        return;
    };
    let max = Claim::measured(
        PAPER,
        "lte",
        "hl1-max-effect",
        &format!(
            "Headline 1: \"improve the bandwidth efficiency by up to 133%\" (abstract; the \
             paper's largest pair is Vegas+BARR over LTE at 200 ms, 39.5 -> 92.1 Mbit/s): our \
             largest effect over the {} cell pairs measured, which is {} (the largest of many \
             means, so biased upward)",
            effs.len(),
            top.id
        ),
        Expect::Effect {
            paper: 92.1 / 39.5 - 1.0,
            band: Band::EFFECT,
        },
        top.ours.clone().expect("measured"),
        &format!(
            "{UNTESTED}; the row {} carries what its runs measured",
            top.id
        ),
    )
    .measurement(top.measurement.clone())
    .headline();
    // Each measurement once: reproduced only when every row judging it is.
    let mut by: Vec<(&str, bool)> = Vec::new();
    for c in &effs {
        let ok = c.verdict == Verdict::Reproduced;
        match by.iter_mut().find(|(m, _)| *m == c.measurement) {
            Some((_, v)) => *v &= ok,
            None => by.push((&c.measurement, ok)),
        }
    }
    let k = by.iter().filter(|(_, v)| *v).count() as u64;
    let n = by.len() as u64;
    let share = Claim::measured(
        PAPER,
        "lte",
        "hl1-share-of-pairs",
        &format!(
            "Headline 1: the optimizations' effect holds cell by cell (abstract; Tables 6 -> 8, \
             7 -> 9, 10 -> 12, 11 -> 13, each pair the paper's own effect): the share of our \
             {n} distinct cell-pair measurements ({} rows) whose paired effect is reproduced \
             (Wilson interval over the measurements)",
            effs.len()
        ),
        value(1.0, Band::SHARE),
        super::estimators::wilson(k, n),
        &format!("{UNTESTED}; the eff-tab* rows carry each cell's effect and its runs"),
    )
    .headline();
    lte.claims.push(max);
    lte.claims.push(share);
}

// ---- Tables 14 and 15 ------------------------------------------------------

/// Table 14: CUBIC over LTE at 0.5% loss, U = 50, 100, 150, 200 ms;
/// [variant][QARR, BARR][column], variants Optimized, Original, Optimal,
/// Hack 1.
const TABLE14: [[[f64; 4]; 2]; 4] = [
    [[84.3, 52.7, 46.8, 46.2], [82.7, 51.6, 35.8, 33.7]],
    [[54.5, 51.0, 47.4, 41.1], [47.8, 34.9, 29.1, 26.2]],
    [[95.2, 95.0, 94.4, 93.9], [95.0, 94.4, 93.9, 93.5]],
    [[85.3, 80.6, 76.0, 72.9], [85.7, 79.0, 74.1, 71.8]],
];
/// Table 15: 0.1% loss, U = 100 ms, C = 200, 400, 800, 1000 Mbit/s;
/// variants Original, Optimal, Hack 1.
const TABLE15: [[[f64; 4]; 2]; 3] = [
    [[115.0, 199.0, 434.0, 502.0], [98.9, 155.0, 224.0, 277.0]],
    [[190.0, 371.0, 702.0, 929.0], [188.0, 372.0, 713.0, 865.0]],
    [[184.0, 345.0, 658.0, 774.0], [182.0, 329.0, 642.0, 746.0]],
];

fn limits(ctx: &Ctx) -> Result<Experiment, String> {
    let mut e = Experiment::new(
        "limits",
        "When retransmissions are lost: 0.5% loss (Table 14) and larger BDPs (Table 15), with the retransmissions spared (Optimal) and with Hack 1",
        "CUBIC. Table 14: 100 Mbit/s, 0.5% loss, U = 50-200 ms. Table 15: 0.1% loss, U = 100 ms, \
         C = 200 Mbit/s to 1 Gbit/s. Optimized = opportunistic retransmission + send buffer 3 x cwnd; \
         Optimal = Optimized with no retransmission ever dropped; Hack 1 = Optimized + Hack 1. \
         All variants run on the same seeds, so each variant's effect against the original \
         (eff-*) is paired; Hack 1's \"always perform better\" is an order per cell (ord-*) on \
         the same runs as its effect row, and the optimal's \"over 93%\" / \"over 92%\" a lower \
         bound on each seed's share of capacity (atleast-*) on the same runs as its goodput row \
         (shared measurement ids). Goodput cells whose paper value x 1.25 passes the capacity \
         are judged as a share of capacity (claims.rs near_capacity). \
         Not run by `--quick` or the default; `--thorough` runs 60 s of each Table 15 point, \
         `--full` 200 s.",
    );
    if brief(ctx) {
        return Ok(e);
    }
    let seeds = ctx.pick(2, 5, 10);
    let v14 = [Opt::Optimized, Opt::Original, Opt::Optimal, Opt::Hack1];
    let mut cases = Vec::new();
    for opt in v14 {
        for rec in ["qarr", "barr"] {
            for u_ms in [50, 100, 150, 200] {
                cases.push(Case {
                    rate: LTE,
                    u_ms,
                    loss: 0.005,
                    cc: "cubic",
                    rec,
                    opt,
                    duration: 200 * SEC,
                    burst: None,
                    download: false,
                    tweak: None,
                });
            }
        }
    }
    let n14 = cases.len();
    let v15 = [Opt::Original, Opt::Optimal, Opt::Hack1];
    let d15 = ctx.pick(10 * SEC, 60 * SEC, 200 * SEC);
    for opt in v15 {
        for rec in ["qarr", "barr"] {
            for rate in [200_000_000, 400_000_000, 800_000_000, 1_000_000_000] {
                cases.push(Case {
                    rate,
                    u_ms: 100,
                    loss: 0.001,
                    cc: "cubic",
                    rec,
                    opt,
                    duration: d15,
                    burst: None,
                    download: false,
                    tweak: None,
                });
            }
        }
    }
    let runs = run_all(ctx, "limits", &cases, seeds)?;
    let label = |o: Opt| match o {
        Opt::Original => "original",
        Opt::Optimized => "optimized",
        Opt::Optimal => "optimized (optimal)",
        _ => "optimized w/ Hack 1",
    };
    for (i, c) in cases.iter().enumerate() {
        let g: Vec<f64> = runs[i].iter().map(mbps).collect();
        let r = usize::from(c.rec == "barr");
        let (id, statement, paper) = if i < n14 {
            let v = i / 8;
            let col = i % 4;
            (
                format!("tab14-{}-{}-u{}", c.rec, c.opt.label(), c.u_ms),
                format!(
                    "Table 14: CUBIC+{} {}, 0.5% loss, U = {} ms: goodput (Mbit/s)",
                    c.rec.to_uppercase(),
                    label(c.opt),
                    c.u_ms
                ),
                TABLE14[v][r][col],
            )
        } else {
            let k = i - n14;
            let v = k / 8;
            let col = k % 4;
            (
                format!("tab15-{}-{}-{}mbps", c.rec, c.opt.label(), c.rate / 1_000_000),
                format!(
                    "Table 15: CUBIC+{} {}, 0.1% loss, U = 100 ms, C = {} Mbit/s: goodput (Mbit/s){}",
                    c.rec.to_uppercase(),
                    label(c.opt),
                    c.rate / 1_000_000,
                    if d15 < 200 * SEC {
                        format!(" [runs of {} s, not the paper's 200]", d15 / SEC)
                    } else {
                        String::new()
                    }
                ),
                TABLE15[v][r][col],
            )
        };
        e.claims.push(goodput_claim(
            "limits",
            id,
            statement,
            paper,
            c.rate,
            &g,
            diagnosis(&runs[i], c.rec, c.opt),
        ));
    }
    // The comparisons the section draws, each on paired runs: every
    // variant against the original (Tables 14, 15), Hack 1 "always
    // perform[s] better than the original ones" (an order per cell, on
    // the same runs as its effect row), and the optimal's share of the
    // capacity, "over 93%" (Table 14) and "always ... over 92%" (Table 15)
    // (a lower bound per cell, on the same runs as its goodput row).
    let g = |i: usize| -> Vec<f64> { runs[i].iter().map(mbps).collect() };
    for (r, rec) in ["qarr", "barr"].iter().enumerate() {
        for col in 0..4 {
            // (table, index of the original, [(variant index, opt)], column label, rate)
            let u = [50, 100, 150, 200][col];
            let mbit = [200, 400, 800, 1000][col];
            let t14 = (
                14,
                8 + r * 4 + col,
                vec![
                    (r * 4 + col, 0, Opt::Optimized),
                    (16 + r * 4 + col, 2, Opt::Optimal),
                    (24 + r * 4 + col, 3, Opt::Hack1),
                ],
                format!("u{u}"),
                LTE,
            );
            let t15 = (
                15,
                n14 + r * 4 + col,
                vec![
                    (n14 + 8 + r * 4 + col, 1, Opt::Optimal),
                    (n14 + 16 + r * 4 + col, 2, Opt::Hack1),
                ],
                format!("{mbit}mbps"),
                mbit * 1_000_000,
            );
            for (t, oi, variants, lab, rate) in [t14, t15] {
                let paper_of = |v: usize| {
                    if t == 14 {
                        TABLE14[v][r][col]
                    } else {
                        TABLE15[v][r][col]
                    }
                };
                let p0 = paper_of(if t == 14 { 1 } else { 0 });
                let cond = if t == 14 {
                    format!("0.5% loss, U = {u} ms")
                } else {
                    format!("0.1% loss, U = 100 ms, C = {mbit} Mbit/s")
                };
                for (vi, v, opt) in variants {
                    let id = format!("eff-tab{t}-{rec}-{}-{lab}", opt.label());
                    e.claims.push(effect_claim(
                        "limits",
                        &id,
                        &format!(
                            "Table {t}: CUBIC+{} {} against original, {cond}: effect on goodput",
                            rec.to_uppercase(),
                            label(opt)
                        ),
                        p0,
                        paper_of(v),
                        &g(oi),
                        &g(vi),
                        "the goodput rows of both variants carry what the same runs measured",
                    ));
                    if opt == Opt::Hack1 {
                        e.claims.push(
                            order_claim(
                                "limits",
                                &format!("ord-tab{t}-{rec}-hack1-over-original-{lab}"),
                                &format!(
                                    "Section VIII: \"the optimized QARR/BARR with Hack 1 always \
                                     perform better than the original ones\" (Table {t}, CUBIC+{}, \
                                     {cond}): Hack 1 - original goodput per seed",
                                    rec.to_uppercase()
                                ),
                                &g(oi),
                                &g(vi),
                            )
                            .measurement(format!("limits/{id}")),
                        );
                    }
                    if opt == Opt::Optimal {
                        let (floor, words) = if t == 14 {
                            (0.93, "\"the optimal bandwidth efficiency of the optimized QARR/BARR can reach over 93%\"")
                        } else {
                            (0.92, "\"the optimal bandwidth efficiencies of the optimized QARR/BARR without dropping retransmitted packets always remain at over 92%\"")
                        };
                        let shares: Vec<f64> = g(vi).iter().map(|x| x / cap(rate)).collect();
                        let gid = if t == 14 {
                            format!("tab14-{rec}-optimal-u{u}")
                        } else {
                            format!("tab15-{rec}-optimal-{mbit}mbps")
                        };
                        e.claims.push(
                            claim_why(
                                "limits",
                                format!("atleast-tab{t}-{rec}-optimal-{lab}"),
                                format!(
                                    "Section VIII: {words} (Table {t}, CUBIC+{}, {cond}): share of capacity",
                                    rec.to_uppercase()
                                ),
                                Expect::AtLeast {
                                    paper: floor,
                                    band: Band::SHARE,
                                },
                                &shares,
                                diagnosis(&runs[vi], rec, opt),
                            )
                            .measurement(format!("limits/{gid}")),
                        );
                    }
                }
            }
        }
    }
    Ok(e)
}

// ---- Figures 4 and 5 -------------------------------------------------------

fn spikes(ctx: &Ctx) -> Result<Experiment, String> {
    let mut e = Experiment::new(
        "spikes",
        "RTT spikes after loss recovery: a 50 MB download with 5 drops (Figures 4 and 5)",
        "20 Mbit/s, U = 100 ms, AW = C x U, CUBIC with PRR or QARR, original and optimized; five \
         single packets dropped, spread over the transfer (the seed places them). RTT spike: the \
         largest RTT of the segments sent in the RTT after a recovery over the RTT when it began \
         (the results' rtt_spike), averaged over the recoveries of a run. Headline 2 reads \
         \"over 50% RTT reduction\" as the spike taken away in units of the base RTT (Figure \
         4's 150 -> 100 ms is 0.5): original - optimized per seed, as a lower bound of 0.5.",
    );
    let seeds = ctx.pick(3, 5, 10);
    let mut cases = Vec::new();
    for rec in ["prr-linux-3", "qarr"] {
        for opt in [Opt::Original, Opt::Optimized] {
            cases.push(Case {
                rate: HSPA,
                u_ms: 100,
                loss: 0.0,
                cc: "cubic",
                rec,
                opt,
                duration: 60 * SEC,
                burst: None,
                download: true,
                tweak: None,
            });
        }
    }
    let runs = run_all(ctx, "spikes", &cases, seeds)?;
    let spike = |f: &FlowResults| {
        let v: Vec<f64> = f.recoveries.iter().filter_map(|r| r.rtt_spike).collect();
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    };
    let rows = [
        (0, "fig4-prr-original", "Figure 4 (left): CUBIC+PRR: after recovery the RTT increases by over 50% (150 against 100 ms)", Expect::AtLeast { paper: 1.5, band: Band::QUANTITY }),
        (1, "fig4-prr-optimized", "Figure 4 (right): CUBIC+PRR with the optimizations: the RTT stays at 100 ms (no spike)", value(1.0, Band::Absolute { d: 0.1 })),
        (2, "fig5-qarr-original", "Figure 5 (left): CUBIC+QARR: after recovery the RTT increases by over 80% (180 against 100 ms)", Expect::AtLeast { paper: 1.8, band: Band::QUANTITY }),
        (3, "fig5-qarr-optimized", "Figure 5 (right): CUBIC+QARR with the optimizations: the RTT spikes are mitigated completely", value(1.0, Band::Absolute { d: 0.1 })),
    ];
    for (i, id, statement, expect) in rows {
        let v: Vec<f64> = runs[i].iter().filter_map(spike).collect();
        e.claims
            .push(claim("spikes", id.into(), statement.into(), expect, &v));
    }
    // Headline 2: "over 50% RTT reduction": the spike (RTT after a
    // recovery over the RTT when it began) the optimizations take away,
    // original - optimized per seed, in units of the base RTT: Figure 4's
    // 150 -> 100 ms is 0.5, Figure 5's 180 -> 100 ms 0.8.
    for (i, rec, fig) in [(0, "PRR", 4), (2, "QARR", 5)] {
        let per = |j: usize| runs[j].iter().map(spike).collect::<Vec<_>>();
        let (orig, opt) = paired_some(&per(i), &per(i + 1));
        let d: Vec<f64> = orig.iter().zip(&opt).map(|(x, y)| x - y).collect();
        e.claims.push(
            claim(
                "spikes",
                format!("hl2-rtt-reduction-{}", rec.to_lowercase()),
                format!(
                    "Headline 2: the optimizations \"completely mitigate RTT spikes, i.e., over \
                     50% RTT reduction, over the loss recovery phase\" (abstract; Figure {fig}, \
                     CUBIC+{rec}): RTT spike original - optimized per seed, in base RTTs"
                ),
                Expect::AtLeast {
                    paper: 0.5,
                    band: Band::QUANTITY,
                },
                &d,
            )
            .headline(),
        );
    }
    // One run of each drawn: cwnd and RTT over time.
    let dir = ctx.sub("spikes")?;
    for c in &cases {
        let sc = build(c, 1);
        let d = dir.join(&sc.name);
        let r = ctx.run("spikes", &sc, Some(&d))?;
        super::common::plot(&d, None, None)?;
        e.pictures
            .push(format!("spikes/{}/plots/cwnd-a.png", sc.name));
        e.pictures
            .push(format!("spikes/{}/plots/rtt-a.png", sc.name));
        let f = &r.results.flows[0];
        e.row(
            format!("{}, {}: RTT spikes (seed 1)", c.rec, c.opt.label()),
            f.recoveries
                .iter()
                .filter_map(|r| r.rtt_spike)
                .map(|s| format!("{s:.2}"))
                .collect::<Vec<_>>()
                .join(" "),
            if c.opt == Opt::Original {
                if c.rec == "qarr" {
                    "1.8"
                } else {
                    "1.5"
                }
            } else {
                "1.0"
            },
        );
    }
    Ok(e)
}

/// Figure 3: the paper's pluggable PRR against Linux's built-in one.
fn linux_check() -> Experiment {
    let mut e = Experiment::new(
        "fig3",
        "Our PRR against Linux's built-in PRR (Figure 3)",
        "Needs the real Linux stack (`losslab linux`, root and network namespaces), so it is not \
         part of `reproduce`; docs/FIDELITY.md has the run.",
    );
    e.claims.push(Claim::not_measured(
        PAPER,
        "fig3",
        "fig3-prr-matches-linux",
        "Figure 3 (left): the pluggable PRR module's throughput matches Linux's built-in PRR at every loss rate from 0.001% to 10%",
        Expect::Value {
            paper: 1.0,
            band: Band::Relative { r: 0.1 },
        },
        "compares with the real Linux stack, which `reproduce` does not drive: docs/FIDELITY.md, \
         \"PRR against Linux's PRR (the mobile paper's Figure 3)\"",
    ));
    e
}

#[cfg(test)]
mod tests {
    // Each metric a headline row judges can land on either side of its
    // band (a metric that cannot fail is no finding): two cheap scenarios
    // per metric, one seed each, short runs.
    use super::*;

    fn one(c: &Case) -> FlowResults {
        let r = crate::reproduce::common::run(&build(c, 1), None).expect("runs");
        r.results.flows.into_iter().next().expect("one flow")
    }

    fn case(rec: &'static str, opt: Opt) -> Case {
        Case {
            rate: HSPA,
            u_ms: 100,
            loss: 0.0,
            cc: "cubic",
            rec,
            opt,
            duration: 12 * SEC,
            burst: None,
            download: false,
            tweak: None,
        }
    }

    #[test]
    fn runs_beyond_the_bound_are_not_kept_and_the_kept_ones_are_counted_once() {
        // A lossy run, so that its recovery lists are not empty.
        let f = one(&Case {
            loss: 0.01,
            ..case("prr", Opt::Original)
        });
        assert!(!f.recoveries.is_empty());
        let b = held_bytes(&f);
        let bare = FlowResults {
            recoveries: vec![],
            ..f.clone()
        };
        assert!(b > held_bytes(&bare) + f.recoveries.len() * 100);
        let mut d = Done {
            runs: BTreeMap::new(),
            bytes: 0,
        };
        let k = |n: &str| (n.to_string(), 12 * SEC);
        // Room for exactly two.
        assert!(d.keep(k("a"), f.clone(), 2 * b).is_none());
        // The same run again is kept already: no second count.
        assert!(d.keep(k("a"), f.clone(), 2 * b).is_none());
        assert!(d.keep(k("b"), f.clone(), 2 * b).is_none());
        assert_eq!(d.keep(k("c"), f.clone(), 2 * b), Some(f.clone()));
        assert_eq!((d.runs.len(), d.bytes), (2, 2 * b));
        assert_eq!(d.runs[&k("b")], f);
        d.clear();
        assert_eq!((d.runs.len(), d.bytes), (0, 0));
    }

    fn row(values: &[f64]) -> Claim {
        claim(
            "hspa",
            "tab6-x".into(),
            "a cell".into(),
            value(10.0, Band::QUANTITY),
            values,
        )
    }

    /// A row is explained by the tweak whose variant reproduces it, the
    /// tweak whose variant does not is listed as tested and rejected, and
    /// a tweak that left the row's runs alone is not named at all.
    #[test]
    fn explain_names_what_reproduces_rejects_the_rest_and_skips_the_untouched() {
        let main_row = row(&[20.0, 20.5, 21.0]);
        assert!(main_row.verdict.needs_explanation());
        let exp = |c: Claim| {
            let mut e = Experiment::new("hspa", "t", "s");
            e.claims.push(c);
            vec![e]
        };
        let mut main = exp(main_row.clone());
        let tried = vec![
            (Tweak::QarrPerRtt, exp(row(&[10.0, 10.2, 9.9]))),
            (Tweak::QarrPipe, exp(row(&[30.0, 30.2, 29.9]))),
            // Changes only the burst runs: not this HSPA+ row's.
            (Tweak::WakeDelay, exp(main_row.clone())),
        ];
        explain(&mut main, &tried);
        let why = &main[0].claims[0].explanation;
        assert!(
            why.starts_with("Explained by a QARR other than the paper's"),
            "{why}"
        );
        assert!(why.contains("eq. 2 once per round trip"), "{why}");
        // The explanation names what its variant costs: nothing here.
        assert!(
            why.contains("no row reproduced in the main arm is not under it"),
            "{why}"
        );
        assert!(
            why.contains("also tested and rejected: a QARR other than the paper's (a reading of ours, not the text's): the window set"),
            "{why}"
        );
        assert!(!why.contains("writing application"), "{why}");
        assert!(!why.contains(UNTESTED), "{why}");
        // With no variant reproducing it, every tested one is rejected.
        let mut main = exp(main_row.clone());
        explain(&mut main, &tried[1..]);
        let why = &main[0].claims[0].explanation;
        assert!(
            why.starts_with(
                "not yet explained; tested and rejected: a QARR other than the paper's"
            ),
            "{why}"
        );
        // A row no tweak touched keeps saying nothing was tested.
        let mut main = exp(main_row);
        explain(&mut main, &tried[2..]);
        assert!(main[0].claims[0].explanation.starts_with(UNTESTED));
    }

    /// A setup alternative that meets the paper decides the row but does
    /// not explain it; a mechanism variant beside it still does.
    #[test]
    fn a_setup_alternative_that_reproduces_a_row_does_not_explain_it() {
        let main_row = row(&[20.0, 20.5, 21.0]);
        let exp = |c: Claim| {
            let mut e = Experiment::new("hspa", "t", "s");
            e.claims.push(c);
            vec![e]
        };
        assert!(Tweak::AckLoss.setting() && Tweak::RttTsecr.setting());
        assert!(!Tweak::QarrPerRtt.setting() && !Tweak::Hack1Once.setting());
        let mut main = exp(main_row.clone());
        explain(&mut main, &[(Tweak::AckLoss, exp(row(&[10.0, 10.2, 9.9])))]);
        let why = &main[0].claims[0].explanation;
        assert!(why.starts_with(UNEXPLAINED), "{why}");
        assert!(
            why.contains(&format!(
                "{DECIDED}, not explained by it: reproduced under (reverse-path Bernoulli loss"
            )),
            "{why}"
        );
        let mut main = exp(main_row);
        explain(
            &mut main,
            &[
                (Tweak::AckLoss, exp(row(&[10.0, 10.2, 9.9]))),
                (Tweak::QarrPerRtt, exp(row(&[10.1, 10.0, 9.8]))),
            ],
        );
        let why = &main[0].claims[0].explanation;
        assert!(why.starts_with("Explained by a QARR other"), "{why}");
        assert!(why.contains(DECIDED), "{why}");
    }

    /// Every setup alternative that moves a row is named in its note, not
    /// only one that reproduces it (the fourth review of the OR3 page),
    /// and a reproduced row an alternative moves says so too.
    #[test]
    fn every_setup_alternative_that_moves_a_row_is_named() {
        let exp = |c: Claim| {
            let mut e = Experiment::new("hspa", "t", "s");
            e.claims.push(c);
            vec![e]
        };
        let wide = row(&[2.0, 30.0, 16.0]);
        assert_eq!(wide.verdict, Verdict::Inconclusive);
        let tried = vec![
            (Tweak::AckLoss, exp(row(&[10.0, 10.2, 9.9]))),
            (Tweak::WakeDelay, exp(wide)),
        ];
        let mut main = exp(row(&[20.0, 20.5, 21.0]));
        explain(&mut main, &tried);
        name_every_move(&mut main, &tried);
        let why = &main[0].claims[0].explanation;
        assert!(
            why.contains("reproduced under (reverse-path Bernoulli loss"),
            "{why}"
        );
        assert!(
            why.contains(&format!(
                "{DECIDED}: the verdict also changes under {} (inconclusive) (the setup table)",
                Tweak::WakeDelay.how()
            )),
            "{why}"
        );
        // Named once: a second pass adds nothing.
        let before = why.clone();
        name_every_move(&mut main, &tried);
        assert_eq!(main[0].claims[0].explanation, before);
        let mut main = exp(row(&[10.0, 10.1, 9.9]));
        assert_eq!(main[0].claims[0].verdict, Verdict::Reproduced);
        name_every_move(&mut main, &tried[1..]);
        let why = &main[0].claims[0].explanation;
        assert!(
            why.ends_with(&format!(
                "{DECIDED}: the verdict changes under {} (inconclusive) (the setup table)",
                Tweak::WakeDelay.how()
            )),
            "{why}"
        );
    }

    /// The paper's cells as it prints them, sums whole.
    #[test]
    fn paper_cells_keep_their_printed_digits() {
        assert_eq!(printed(9.6), "9.60");
        assert_eq!(printed(17.0), "17.0");
        assert_eq!(printed(115.0), "115");
        assert_eq!(printed(0.057), "0.057");
        assert_eq!(printed(0.74), "0.74");
        assert_eq!(printed(53.2), "53.2");
        assert_eq!(printed(5.2), "5.2");
        assert_eq!(printed(9.0), "9.0");
        assert_eq!(printed(9.6 + 17.25), "26.85");
    }

    /// Vegas+RH's and Vegas+PRR's Tables 7 -> 9 rows judge the paper's
    /// copy, so they are not judged; every other combination's are.
    #[test]
    fn table_9_rows_that_copy_table_7_are_not_judged() {
        let mut e = Experiment::new("hspa", "t", "s");
        for id in [
            "eff-tab7-9-vegas-rh-u50",
            "eff-tab7-9-vegas-prr-u200",
            "eff-tab7-9-vegas-qarr-u50",
            "eff-tab7-9-cubic-rh-u50",
        ] {
            e.claims.push(effect_claim(
                "hspa",
                id,
                "s",
                5.0,
                5.0,
                &[5.0, 5.1],
                &[4.0, 4.1],
                "w",
            ));
        }
        copied_rows_in_doubt(&mut e);
        let v: Vec<Verdict> = e.claims.iter().map(|c| c.verdict).collect();
        assert_eq!(v[0], Verdict::NotMeasured);
        assert_eq!(v[1], Verdict::NotMeasured);
        assert!(e.claims[0]
            .explanation
            .starts_with(crate::reproduce::claims::PAPER_IN_DOUBT));
        assert_ne!(v[2], Verdict::NotMeasured);
        assert_ne!(v[3], Verdict::NotMeasured);
    }

    /// The point estimate of a paired effect (ratio of totals).
    fn effect(a: f64, b: f64) -> f64 {
        paired_relative(&[a], &[b], "e").mean
    }

    #[test]
    fn headline_metrics_take_both_sides_of_their_bands() {
        // Headlines 1 and 5: the paired effect on goodput at 0.1% loss.
        // RH -> QARR goes above both bands (1.33 and 0.79 +-25%); QARR
        // original -> optimized at 20 Mbit/s below both.
        let lossy = |rec, opt| {
            let mut c = case(rec, opt);
            c.loss = 0.001;
            c.duration = 40 * SEC;
            mbps(&one(&c))
        };
        let (rh, qarr, qarr_opt) = (
            lossy("rate-halving", Opt::Original),
            lossy("qarr", Opt::Original),
            lossy("qarr", Opt::Optimized),
        );
        let up = effect(rh, qarr);
        let flat = effect(qarr, qarr_opt);
        eprintln!("goodput effects: RH->QARR {up:.3}, QARR->optimized {flat:.3}");
        assert!(up > Band::EFFECT.around(92.1 / 39.5 - 1.0)[1], "{up}");
        assert!(flat < Band::EFFECT.around(0.79)[0], "{flat}");
        // Headline 3: the paired effect of opportunistic retransmission
        // on the recovery period's utilization (band 1.96 +-25%): burst
        // of 10 above it, burst of 100 below it.
        let util = |n: u64, opt| {
            let mut c = case("rate-halving", opt);
            c.burst = Some(n);
            period_utilization(&one(&c)).expect("a period")
        };
        let e10 = effect(util(10, Opt::Original), util(10, Opt::Or));
        let e100 = effect(util(100, Opt::Original), util(100, Opt::Or));
        eprintln!("utilization effects: n10 {e10:.3}, n100 {e100:.3}");
        let [lo, hi] = Band::EFFECT.around(1.956);
        assert!(e10 > hi && e100 < lo, "{e10} {e100}");
        // Headline 4: the stall share (band -1 +-25% on the paired
        // effect). The factor 3 against Linux's buffer lands inside it;
        // the measure's other side is shown on the baseline only: Linux's
        // buffer stalls with opportunistic retransmission and not without
        // it (section V), so the row rests on a stall that is measured,
        // not assumed. The factor-3 side read zero in every run we made
        // (Theorem 11 holds in our send-buffer model), which the report
        // flags: that side cannot fail here.
        let stall = |opt| {
            let mut c = case("prr-linux-3", opt);
            c.burst = Some(50);
            one(&c).app_stall_share.unwrap_or(0.0)
        };
        let (s0, s1, s3) = (stall(Opt::Original), stall(Opt::Or), stall(Opt::Optimized));
        eprintln!("stall shares: original {s0:.3}, w/ OR {s1:.3}, factor 3 {s3:.3}");
        let [lo, hi] = Band::EFFECT.around(-1.0);
        let cut = effect(s1, s3);
        assert!((lo..=hi).contains(&cut), "{cut}");
        assert!(s0 == 0.0 && s1 > 0.0, "{s0} {s1}");
        // Headline 2: the RTT spike the optimizations take away, in base
        // RTTs (at least 0.5 -25%): PRR above it; opportunistic
        // retransmission alone against the full optimizations below it.
        let spike = |rec, opt| {
            let mut c = case(rec, opt);
            c.download = true;
            c.duration = 60 * SEC;
            let f = one(&c);
            let v: Vec<f64> = f.recoveries.iter().filter_map(|r| r.rtt_spike).collect();
            v.iter().sum::<f64>() / v.len().max(1) as f64
        };
        let prr = spike("prr-linux-3", Opt::Original) - spike("prr-linux-3", Opt::Optimized);
        let or_only = spike("prr-linux-3", Opt::Or) - spike("prr-linux-3", Opt::Optimized);
        eprintln!("spike reductions: original {prr:.3}, w/ OR only {or_only:.3}");
        let lo = Band::QUANTITY.around(0.5)[0];
        assert!(prr > lo && or_only < lo, "{prr} {or_only}");
    }
}
