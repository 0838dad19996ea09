//! The results document (docs/SCENARIO.md, "Results"): a public contract.
//! Fields may be added, never renamed or re-typed.

use serde::{Deserialize, Serialize};

use losslab_core::time::{Time, MS, SEC};

use crate::view::{RecoveryPeriod, RunView};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RunResults {
    pub scenario: String,
    pub seed: u64,
    pub sim_time_s: f64,
    /// Filled by the caller (the simulator has no clock); documents that
    /// must not depend on the machine leave it out.
    #[serde(default)]
    pub wall_time_s: f64,
    pub events: u64,
    /// True when the run was stopped before its end (Ctrl-C).
    pub interrupted: bool,
    pub path: PathResults,
    pub flows: Vec<FlowResults>,
    /// One entry per flow of app kind "chunks" (added; absent without
    /// one).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<FileResults>,
}

/// A chunked file sent over parallel connections (OR3 paper section
/// III-C).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FileResults {
    /// The `[[flow]]`'s name; its connections are the flows NAME.1 ..
    /// NAME.N (NAME itself with one connection).
    pub flow: String,
    pub connections: u32,
    pub file_bytes: u64,
    pub chunk_bytes: u64,
    pub chunks: u64,
    /// From the flow's start until the last chunk completed (null if the
    /// run ended first).
    pub fct_s: Option<f64>,
    /// Mean chunk completion time over the completed chunks.
    pub mean_cct_s: Option<f64>,
    /// The paper's ΔCCT: mean CCT - (base RTT + connections x chunk x 8 /
    /// path rate).
    pub delta_cct_s: Option<f64>,
    /// Retransmission timeouts summed over the connections.
    pub timeouts: u64,
    pub chunks_completed: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PathResults {
    pub utilization: f64,
    /// Data packets dropped on the bottleneck (queue + loss model).
    pub drops: u64,
    pub queue_drops: u64,
    pub loss_drops: u64,
    pub ack_drops: u64,
    pub max_queue_bytes: u64,
    /// The path as configured (added): what the numbers above were
    /// measured on.
    pub config: PathConfig,
}

/// The scenario's `[path]` and `[reverse]`, for the results document.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PathConfig {
    pub rate_bps: u64,
    pub delay_s: f64,
    /// "1000pkt" or "250000B".
    pub queue: String,
    /// The loss model in the scenario's own inline-table syntax.
    pub loss: String,
    pub reverse_delay_s: f64,
    pub reverse_loss: String,
    /// The delivery-opportunity trace that drove the link (added in issue
    /// 34; absent with a constant rate, whose documents stay as they were):
    /// its file, and where in it the run began. `rate_bps` is then the
    /// trace's mean capacity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_offset_s: Option<f64>,
    /// The ACK direction's own link (`reverse.rate`, added): its rate (a
    /// trace's mean), queue and trace; absent when ACKs only propagate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_rate_bps: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_queue: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_trace: Option<String>,
}

impl PathConfig {
    pub fn of(sc: &crate::Scenario) -> Self {
        let queue = |q: &crate::scenario::QueueLimit| match q {
            crate::scenario::QueueLimit::Packets(n) => format!("{n}pkt"),
            crate::scenario::QueueLimit::Bytes(b) => format!("{b}B"),
        };
        let rev = sc.reverse.link.as_ref();
        PathConfig {
            rate_bps: sc.path.rate,
            delay_s: secs(sc.path.delay),
            queue: queue(&sc.path.queue),
            loss: describe_loss(&sc.path.loss),
            reverse_delay_s: secs(sc.reverse.delay),
            reverse_loss: describe_loss(&sc.reverse.loss),
            trace: sc.path.trace.as_ref().map(|t| t.file.clone()),
            trace_offset_s: sc.path.trace.as_ref().map(|t| secs(t.offset % t.period())),
            reverse_rate_bps: rev.map(|l| l.rate),
            reverse_queue: rev.map(|l| queue(&l.queue)),
            reverse_trace: rev.and_then(|l| l.trace.as_ref()).map(|t| t.file.clone()),
        }
    }
}

fn describe_loss(m: &crate::scenario::LossModel) -> String {
    use crate::scenario::{DropSpec, LossModel};
    let list = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
    match m {
        LossModel::None => r#"{ model = "none" }"#.into(),
        LossModel::Bernoulli { p } => format!(r#"{{ model = "bernoulli", p = {p} }}"#),
        LossModel::GilbertElliott {
            p_gb,
            p_bg,
            loss_good,
            loss_bad,
        } => format!(
            r#"{{ model = "gilbert-elliott", p_gb = {p_gb}, p_bg = {p_bg}, loss_good = {loss_good}, loss_bad = {loss_bad} }}"#
        ),
        LossModel::Drop { flow, which } => {
            let (k, v) = match which {
                DropSpec::Packets(v) => ("packets", format!("[{}]", list(v))),
                DropSpec::Segments(v) => ("segments", format!("[{}]", list(v))),
                DropSpec::Syns(v) => ("syns", format!("[{}]", list(v))),
                DropSpec::Tail(n) => ("tail", n.to_string()),
                DropSpec::Bursts(v) => {
                    let one = |b: &crate::scenario::Burst| {
                        let at = match b.at {
                            crate::scenario::BurstStart::Packet(n) => n.to_string(),
                            crate::scenario::BurstStart::Time(t) => {
                                format!("{:?}", crate::units::format_duration(t))
                            }
                        };
                        format!("{{ at = {at}, length = {} }}", b.length)
                    };
                    match v.as_slice() {
                        [b] => ("burst", one(b)),
                        _ => (
                            "bursts",
                            format!("[{}]", v.iter().map(one).collect::<Vec<_>>().join(", ")),
                        ),
                    }
                }
            };
            format!(r#"{{ model = "drop", flow = "{flow}", {k} = {v} }}"#)
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RttResults {
    pub min: Option<f64>,
    pub mean: Option<f64>,
    pub p99: Option<f64>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RecoveryResult {
    pub start_s: f64,
    pub end_s: Option<f64>,
    pub kind: String,
    pub cwnd_before: u64,
    pub cwnd_after: Option<u64>,
    /// cwnd just before the exit's own adjustment (added; the PRR paper's
    /// Table 6); `cwnd_after` for episodes not ended by a fast recovery's
    /// exit.
    pub cwnd_before_exit: Option<u64>,
    pub ssthresh: u64,
    pub pipe_minus_ssthresh_at_start: i64,
    /// Added: segments outstanding and segments marked lost when the
    /// episode began (flight below cwnd_before: application-limited).
    pub flight_at_start: u64,
    pub lost_at_start: u64,
    pub link_utilization: Option<f64>,
    /// DSACKs showed the episode spurious and its reduction was undone.
    pub undone: bool,
    /// Added: seconds of this episode during which the send buffer held
    /// no unsent data while cwnd and the peer's window allowed some
    /// (application stall, the mobile paper's Definition 1). Absent when
    /// the flow's send buffer is unlimited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_stall_s: Option<f64>,
    /// Added: the RTT spike after the episode (the mobile paper's section
    /// VII.E): the latest RTT when it began, the largest RTT of segments
    /// sent in the RTT after it ended, and their ratio.
    pub rtt_before_ms: Option<f64>,
    pub rtt_after_max_ms: Option<f64>,
    pub rtt_spike: Option<f64>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FlowResults {
    pub name: String,
    /// The flow's `profile`, when it named one (added field; absent
    /// otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    pub cc: String,
    pub recovery: String,
    pub detection: String,
    pub timers: String,
    pub start_s: f64,
    pub bytes_delivered: u64,
    pub goodput_bps: f64,
    pub fct_s: Option<f64>,
    pub segments_sent: u64,
    /// ACK packets the receiver sent.
    pub acks_sent: u64,
    pub retransmissions: u64,
    /// Ground truth: retransmissions sent after an earlier transmission
    /// of the same segment was accepted by the receiver (or was still in
    /// flight at the end). Since issue 29 a copy the receiver discarded
    /// as out of window does not count as accepted; those resends are
    /// `retransmissions_of_discarded`, and the sum of the two is the
    /// earlier meaning.
    pub spurious_retransmissions: u64,
    /// Added: retransmissions sent before any transmission of their
    /// segment was accepted, after an earlier copy had reached the
    /// receiver and been discarded as out of window (OR3 paper section
    /// IV's overbooking); absent when none were.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub retransmissions_of_discarded: u64,
    /// Added (OR3 paper section III-B): retransmissions of data the
    /// receiver held when they were sent, because the ACKs that reported
    /// it were lost (some was dropped, none had arrived) ...
    pub spurious_after_ack_loss: u64,
    /// ... or because no ACK had reported it yet (none dropped, none
    /// arrived: left out by the SACK block limit, or still on the way).
    pub spurious_unreported: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub tail_probes: u64,
    pub max_retransmissions_of_one_segment: u32,
    pub dsacks_received: u64,
    /// Retransmissions declared lost and sent again.
    pub lost_retransmissions: u64,
    /// Cwnd reductions undone by DSACKs.
    pub undos: u64,
    /// ACKs on which the sender detected reordering.
    pub reordering_events: u64,
    /// RFC 6675 NextSeg() rule 4 (rescue) retransmissions.
    pub rescue_retransmissions: u64,
    /// Seconds from the flow's start until the data sender's handshake
    /// completed (0 without a simulated handshake; null if it never did).
    pub handshake_s: Option<f64>,
    /// Retransmissions of the data sender's SYN or SYN-ACK.
    pub syn_retransmissions: u32,
    /// Timeouts F-RTO found spurious and undid.
    pub spurious_rtos: u64,
    /// Added: segments sent beyond the receiver's advertised window
    /// (opportunistic retransmission; absent when none were).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub beyond_window_segments: u64,
    /// Added: extra copies of retransmissions sent (OR3's redundancy; in
    /// `segments_sent`, not in `retransmissions`), and the DSACKs matched
    /// to them; absent when none were.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub redundant_copies: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub redundant_duplicates: u64,
    /// Added: cumulatively acknowledged segments by how many times each
    /// was retransmitted, entry k for k retransmissions (the OR3 paper's
    /// k, Fig. 3b; its k_max is `max_retransmissions_of_one_segment`).
    /// Empty where not measured (`losslab linux`).
    pub segments_by_retransmissions: Vec<u64>,
    /// Added: receive-buffer starvation (OR3 paper III-B): seconds during
    /// which the application had data and cwnd had room but the peer's
    /// window stopped new data while the receiver held out-of-order data
    /// (null where not measured: `losslab linux`).
    pub rcvbuf_starvation_s: Option<f64>,
    /// Added: application stall (the mobile paper's Definition 1): seconds
    /// of fast recovery with an empty send buffer while the windows
    /// allowed new data, and their share of all fast-recovery time. Absent
    /// when the send buffer is unlimited (`sndbuf = "auto"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_stall_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_stall_share: Option<f64>,
    pub rtt_ms: RttResults,
    pub recoveries: Vec<RecoveryResult>,
    /// Recovery episodes left out of `recoveries` beyond the first
    /// `MAX_RECOVERIES` (added field; absent when none were).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub recoveries_omitted: u64,
    /// An app of kind "objects": each object's request and completion
    /// (added field; absent for other apps).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub objects: Vec<ObjectResult>,
    /// Segments the receiver dropped, wholly or in part, for lying beyond
    /// the window it had advertised (added; the mobile paper's section
    /// VIII "out-of-AWnd" packets).
    pub receiver_out_of_window_drops: u64,
    /// Why each of `receiver_out_of_window_drops` was discarded and how
    /// far past the window it reached (added; absent without a discard;
    /// OR3 paper section IV's overbooking, `DiscardResults`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receiver_discards: Option<DiscardResults>,
    /// Most bytes the receive buffer held at once, in-order unread plus
    /// out-of-order, sampled as segments arrived (added).
    pub max_rcvbuf_occupancy_bytes: u64,
    /// The same quantity averaged over the `rbb` samples (added; null
    /// without a sample).
    pub mean_rcvbuf_occupancy_bytes: Option<f64>,
    /// Receive-buffer bubbles sampled once per base RTT (added; OR3 paper
    /// section III-B, Fig. 2).
    pub rbb: crate::rbb::RbbResults,
    /// Loss-recovery periods measured at the bottleneck (added; the mobile
    /// paper's section III, Fig. 1), the first `MAX_RECOVERIES` closed ones
    /// in order, then the one still open at the end of the run, if any.
    pub recovery_periods: Vec<RecoveryPeriodResult>,
    /// Closed periods left out of `recovery_periods` (added; absent when
    /// none were).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub recovery_periods_omitted: u64,
    /// Link busy time over period time, summed over every closed period
    /// (eq. 8 measured; null without a closed period) (added).
    pub recovery_period_utilization: Option<f64>,
    /// Link idle time summed over every closed period (added).
    pub link_idle_in_recovery_s: f64,
}

/// One loss-recovery period (mobile paper section III): from the first
/// retransmission starting serialisation at the bottleneck to the first
/// new segment of the flow leaving it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RecoveryPeriodResult {
    pub start_s: f64,
    /// null while open at the end of the run, and so are `utilization`
    /// and `idle_s`.
    pub end_s: Option<f64>,
    /// Share of the period the link spent serialising packets of any flow.
    pub utilization: Option<f64>,
    pub idle_s: Option<f64>,
    /// Packets of any flow the link finished in the period (so far, while
    /// open).
    pub packets: u64,
    /// Of those, this flow's retransmissions.
    pub retransmissions: u64,
}

impl RecoveryPeriodResult {
    fn of(p: &RecoveryPeriod) -> Self {
        let closed = p.end.map(|e| (e - p.start, p.busy));
        RecoveryPeriodResult {
            start_s: secs(p.start),
            end_s: p.end.map(secs),
            utilization: closed.map(|(d, busy)| if d > 0 { busy as f64 / d as f64 } else { 1.0 }),
            idle_s: closed.map(|(d, busy)| secs(d - busy)),
            packets: p.packets,
            retransmissions: p.retransmissions,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ObjectResult {
    pub bytes: u64,
    /// When the client sent the request (None: never requested).
    pub request_s: Option<f64>,
    /// When the client held the whole object.
    pub complete_s: Option<f64>,
    /// Object completion time, complete - request.
    pub oct_s: Option<f64>,
}

/// Recovery episodes listed per flow in the results; the rest are only
/// counted (`recoveries_omitted`), so an endless run cannot write an
/// endless document.
pub const MAX_RECOVERIES: usize = losslab_core::recovery_log::KEEP;

/// The receiver's out-of-window discards (results' `receiver_discards`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct DiscardResults {
    /// No hole at the head of the receive buffer: unread in-order data or
    /// a right edge not yet re-advertised held the space.
    pub no_hole: u64,
    /// A hole at the head, and the segment would have fitted within one
    /// buffer of it: out-of-order (SACKed) data above the hole held the
    /// space.
    pub held_above_hole: u64,
    /// A hole at the head, and the segment lay more than one buffer past
    /// it: only filling the hole would have admitted it.
    pub hole_unfilled: u64,
    /// Of the discards with a hole at the head, those whose hole's
    /// segment the sender had retransmitted at least once (the
    /// retransmission lost or still on its way) and those it had not.
    pub head_hole_retransmitted: u64,
    pub head_hole_not_retransmitted: u64,
    /// Segments (MSS, rounded up) from the advertised right edge to the
    /// discarded segment's end: mean, largest, and counts in the buckets
    /// 1, 2-3, 4-15, 16-63, 64-255, 256-1023, 1024 and more.
    pub past_window_mean: f64,
    pub past_window_max: u64,
    pub past_window_histogram: [u64; 7],
}

impl DiscardResults {
    fn new(d: &losslab_core::receiver::DiscardLog, head: [u64; 2]) -> Option<Self> {
        let n = d.total();
        (n > 0).then(|| DiscardResults {
            no_hole: d.no_hole,
            held_above_hole: d.held_above_hole,
            hole_unfilled: d.hole_unfilled,
            head_hole_retransmitted: head[0],
            head_hole_not_retransmitted: head[1],
            past_window_mean: d.past_sum as f64 / n as f64,
            past_window_max: d.past_max,
            past_window_histogram: d.past,
        })
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn secs(t: Time) -> f64 {
    t as f64 / SEC as f64
}

fn ms(t: Time) -> f64 {
    t as f64 / MS as f64
}

pub(crate) fn collect(sim: &RunView) -> RunResults {
    let sc = sim.scenario;
    let end = sim.now;
    let link = &sim.link;
    let first_start = sim.flows.iter().map(|f| f.start).min().unwrap_or(0);
    let active = end.saturating_sub(first_start);
    let capacity_bytes = |dt: Time| link.rate_bps as f64 / 8.0 * secs(dt);
    let utilization = if active > 0 {
        link.link_bytes as f64 / capacity_bytes(active)
    } else {
        0.0
    };
    let flows = sim
        .flows
        .iter()
        .map(|f| {
            let (cc, recovery, detection, timers) = f
                .sender
                .map(|s| {
                    let n = s.names();
                    (n.0, n.1.to_string(), n.2.to_string(), n.3.to_string())
                })
                .unwrap_or_else(|| {
                    (
                        f.spec.cc.name(),
                        f.spec.recovery.clone(),
                        f.spec.detection.clone(),
                        f.spec.timers.clone(),
                    )
                });
            let delivered = f.receiver.rcv_nxt();
            let fct = f.fct_at.map(|t| t - f.start);
            let elapsed = fct.unwrap_or(end.saturating_sub(f.start));
            let goodput = if elapsed > 0 {
                delivered as f64 * 8.0 / secs(elapsed)
            } else {
                0.0
            };
            let stats = f.sender.map(|s| s.stats());
            let rtt = stats.map(|s| &s.rtt);
            let stall_measured = f.spec.sndbuf.is_some() || f.spec.linux_sndbuf().is_some();
            let fast_time: Time = f.sender.map_or(0, |s| s.recovery_log().fast_time(end));
            let recoveries = f
                .sender
                .map(|s| {
                    s.recoveries()
                        .iter()
                        .take(MAX_RECOVERIES)
                        .enumerate()
                        .map(|(i, r)| {
                            let util = match (
                                f.epoch_link_bytes.get(2 * i),
                                f.epoch_link_bytes.get(2 * i + 1),
                            ) {
                                (Some(&(t0, b0)), Some(&(t1, b1))) if t1 > t0 => {
                                    Some((b1 - b0) as f64 / capacity_bytes(t1 - t0))
                                }
                                _ => None,
                            };
                            RecoveryResult {
                                start_s: secs(r.start),
                                end_s: r.end.map(secs),
                                kind: r.kind.as_str().to_string(),
                                cwnd_before: r.cwnd_before,
                                cwnd_after: r.cwnd_after,
                                cwnd_before_exit: r.cwnd_before_exit,
                                ssthresh: r.ssthresh,
                                pipe_minus_ssthresh_at_start: r.pipe_minus_ssthresh_at_start,
                                flight_at_start: r.flight_at_start,
                                lost_at_start: r.lost_at_start,
                                link_utilization: util,
                                undone: r.undone,
                                app_stall_s: stall_measured.then(|| secs(r.app_stall)),
                                rtt_before_ms: r.rtt_before.map(ms),
                                rtt_after_max_ms: r.rtt_after_max.map(ms),
                                rtt_spike: r
                                    .rtt_before
                                    .zip(r.rtt_after_max)
                                    .filter(|(b, _)| *b > 0)
                                    .map(|(b, a)| a as f64 / b as f64),
                            }
                        })
                        .collect()
                })
                .unwrap_or_default();
            FlowResults {
                name: f.name.to_string(),
                profile: f.spec.profile.clone(),
                cc,
                recovery,
                detection,
                timers,
                start_s: secs(f.start),
                bytes_delivered: delivered,
                goodput_bps: goodput,
                fct_s: fct.map(secs),
                segments_sent: stats.map_or(0, |s| s.segments_sent),
                acks_sent: f.receiver.stats().acks_sent,
                retransmissions: stats.map_or(0, |s| s.retransmissions),
                spurious_retransmissions: f.spurious,
                retransmissions_of_discarded: f.retransmissions_of_discarded,
                spurious_after_ack_loss: f.spurious_after_ack_loss,
                spurious_unreported: f.spurious_unreported,
                timeouts: stats.map_or(0, |s| s.timeouts),
                fast_recoveries: stats.map_or(0, |s| s.fast_recoveries),
                tail_probes: stats.map_or(0, |s| s.tail_probes),
                max_retransmissions_of_one_segment: stats
                    .map_or(0, |s| s.max_tx_count.saturating_sub(1)),
                dsacks_received: stats.map_or(0, |s| s.dsacks_received),
                lost_retransmissions: stats.map_or(0, |s| s.lost_retransmissions),
                undos: stats.map_or(0, |s| s.undos),
                reordering_events: stats.map_or(0, |s| s.reordering_events),
                rescue_retransmissions: stats.map_or(0, |s| s.rescue_retransmissions),
                handshake_s: f
                    .sender
                    .and_then(|s| s.established_at())
                    .map(|t| secs(t.saturating_sub(f.start))),
                syn_retransmissions: stats.map_or(0, |s| s.syn_retransmissions),
                spurious_rtos: stats.map_or(0, |s| s.spurious_rtos),
                beyond_window_segments: stats.map_or(0, |s| s.beyond_window_segments),
                redundant_copies: stats.map_or(0, |s| s.redundant_copies),
                redundant_duplicates: stats.map_or(0, |s| s.redundant_duplicates),
                segments_by_retransmissions: f
                    .sender
                    .map(|s| s.scoreboard().retransmissions_histogram().to_vec())
                    .unwrap_or_default(),
                rcvbuf_starvation_s: Some(secs(stats.map_or(0, |s| s.rcvbuf_starvation))),
                app_stall_s: stall_measured.then(|| secs(stats.map_or(0, |s| s.app_stall))),
                app_stall_share: (stall_measured && fast_time > 0)
                    .then(|| stats.map_or(0, |s| s.app_stall) as f64 / fast_time as f64),
                rtt_ms: RttResults {
                    min: rtt.and_then(|h| h.min()).map(ms),
                    mean: rtt.and_then(|h| h.mean()).map(|m| m / MS as f64),
                    p99: rtt.and_then(|h| h.quantile(0.99)).map(ms),
                },
                recoveries,
                recoveries_omitted: f.sender.map_or(0, |s| {
                    s.recovery_log()
                        .total()
                        .saturating_sub(MAX_RECOVERIES as u64)
                }),
                objects: f
                    .objects
                    .map(|o| {
                        o.sizes
                            .iter()
                            .enumerate()
                            .map(|(i, &bytes)| {
                                let req = o.requested.get(i).copied();
                                let done = o.completed.get(i).copied();
                                ObjectResult {
                                    bytes,
                                    request_s: req.map(secs),
                                    complete_s: done.map(secs),
                                    oct_s: req.zip(done).map(|(a, b)| secs(b - a)),
                                }
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
                receiver_out_of_window_drops: f.receiver.stats().out_of_window_drops,
                receiver_discards: DiscardResults::new(
                    &f.receiver.stats().discards,
                    f.discard_head,
                ),
                max_rcvbuf_occupancy_bytes: f.receiver.stats().max_occupancy,
                mean_rcvbuf_occupancy_bytes: f.rbb.mean_occupancy(),
                rbb: crate::rbb::RbbResults {
                    starvation_s: Some(secs(f.receiver.starvation_at(end))),
                    ..f.rbb.results()
                },
                recovery_periods: f
                    .periods
                    .iter()
                    .chain(f.open_period.as_ref())
                    .map(RecoveryPeriodResult::of)
                    .collect(),
                recovery_periods_omitted: f.periods_omitted,
                recovery_period_utilization: (f.period_time > 0)
                    .then(|| f.period_busy as f64 / f.period_time as f64),
                link_idle_in_recovery_s: secs(f.period_time - f.period_busy),
            }
        })
        .collect::<Vec<FlowResults>>();
    let files = sim
        .files
        .iter()
        .map(|file| {
            let ccts: Vec<Time> = file
                .chunks
                .iter()
                .filter_map(|c| Some(c.done?.saturating_sub(c.first_sent?)))
                .collect();
            let mean_cct = (!ccts.is_empty())
                .then(|| ccts.iter().map(|&t| secs(t)).sum::<f64>() / ccts.len() as f64);
            let n = file.members.len() as u32;
            // OR3 paper section III-C: what a chunk would take if the N
            // connections split the path evenly and nothing were lost.
            let ideal = secs(file.base_rtt)
                + f64::from(n) * file.chunk_bytes as f64 * 8.0 / link.rate_bps as f64;
            FileResults {
                flow: file.name.clone(),
                connections: n,
                file_bytes: file.file_bytes,
                chunk_bytes: file.chunk_bytes,
                chunks: file.chunk_count(),
                fct_s: file
                    .completed_at()
                    .map(|t| secs(t.saturating_sub(file.start))),
                mean_cct_s: mean_cct,
                delta_cct_s: mean_cct.map(|m| m - ideal),
                timeouts: file.members.iter().map(|&m| flows[m].timeouts).sum(),
                chunks_completed: ccts.len() as u64,
            }
        })
        .collect();
    RunResults {
        scenario: sc.name.clone(),
        seed: sc.seed,
        sim_time_s: secs(end),
        wall_time_s: 0.0,
        events: sim.events,
        interrupted: false,
        path: PathResults {
            utilization,
            drops: link.queue_drops + link.loss_drops,
            queue_drops: link.queue_drops,
            loss_drops: link.loss_drops,
            ack_drops: link.ack_drops,
            max_queue_bytes: link.max_queue_bytes,
            config: PathConfig::of(sc),
        },
        flows,
        files,
    }
}
