//! What `losslab linux --compare` says besides the two results: which
//! settings of the scenario the simulator runs and the kernel does not
//! (`differences`, `model_differences`), and where the two runs' data
//! transmissions part (`compare_sequences`), read from the simulator's
//! packet events (`SendRecorder`) and the emulator's log
//! (`kernel_transmissions`).
//!
//! A difference is found by comparing each flow with the same flow under
//! `profile = "linux-6"` (the kernel here is Linux 6.x): a key that
//! differs and that `plan()` does not hand to the kernel (a sysctl, a
//! route attribute, a socket option) is a difference. The keys the kernel
//! is set to follow are listed in [`FOLLOWED`].

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::{self, BufRead};
use std::path::Path;
use std::rc::Rc;

use losslab_core::cc::HyStartMode;
use losslab_core::event::{Event, Timed};
use losslab_core::time::{Time, SEC};
use losslab_core::timers::ProbeGate;
use losslab_core::{CwndValidation, HandshakeRules, Pacing, RecoveryExit, RtoFormula, RtoSsthresh};
use losslab_sim::scenario::{AckSpec, CcSpec, FlowSpec, Scenario};
use losslab_sim::trace::{Body, Packet, PacketFate, Side, Tracer};
use serde::Serialize;

/// Keys `losslab linux` hands to the kernel, so that a value differing
/// from the `linux-6` profile's is followed, not a difference: sysctls
/// (tcp_recovery, tcp_early_retrans, tcp_frto, tcp_slow_start_after_idle,
/// tcp_sack), route attributes (rto_min, initcwnd), TCP_CONGESTION,
/// SO_MAX_PACING_RATE, TCP_MAXSEG, TCP_QUICKACK.
pub const FOLLOWED: &[&str] = &[
    "cc",
    "detection",
    "timers",
    "frto",
    "min_rto",
    "init_cwnd",
    "slow_start_after_idle",
    "pacing",
    "mss",
    "receiver.ack",
    "receiver.sack_blocks",
];

/// One setting the two sides do not share.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Difference {
    pub flow: String,
    /// The scenario key (`cubic.hystart` is `[flow.cubic] hystart`).
    pub key: String,
    /// The simulator's value, as the key is written.
    pub sim: String,
    /// What the kernel does instead.
    pub kernel: String,
    /// The `--set` that makes the simulator do what the kernel does;
    /// None when no key does.
    pub set: Option<String>,
}

/// The `--set` prefix for a flow: `flow.NAME` when the name is a bare
/// TOML key, else `flow[I]`.
fn set_prefix(f: &FlowSpec, i: usize) -> String {
    let bare = !f.name.is_empty()
        && f.name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if bare {
        format!("flow.{}", f.name)
    } else {
        format!("flow[{i}]")
    }
}

/// The fix offered with a non-empty list of differences.
pub fn fix_hint(sc: &Scenario) -> String {
    let sets: Vec<String> = sc
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| format!("--set {}.profile=linux-6", set_prefix(f, i)))
        .collect();
    format!(
        "add profile = \"linux-6\" to the flow (or {}); keys the flow sets itself override the profile, so also remove or change those named above",
        sets.join(" ")
    )
}

fn onoff(b: bool) -> String {
    b.to_string()
}

/// Settings of `sc`'s flows that the simulator runs and the kernel
/// (Linux 6.x, as `plan()` sets it up) does not: each field where the
/// flow differs from the same flow with `profile = "linux-6"` and the
/// kernel is not set to follow it, plus the settings the kernel runs its
/// own way whatever the profile (`timers = "tlp"`, `cwnd_validation`,
/// four SACK blocks, no handshake, a fixed send buffer, Westwood's
/// end of recovery). Settings `plan()` refuses are listed too, so the
/// list is complete when read beside a refusal. `--strict` refuses to
/// run while this is not empty.
pub fn differences(sc: &Scenario) -> Vec<Difference> {
    let mut out = Vec::new();
    for (i, f) in sc.flows.iter().enumerate() {
        let mut p = f.clone();
        losslab_sim::profile::apply("linux-6", &mut p);
        let pre = set_prefix(f, i);
        let mut d = |key: &str, sim: String, kernel: &str, set: Option<String>| {
            out.push(Difference {
                flow: f.name.clone(),
                key: key.into(),
                sim,
                kernel: kernel.into(),
                set: set.map(|v| format!("{pre}.{key}={v}")),
            })
        };
        let cc = f.cc.name();
        match &f.cc {
            CcSpec::NewReno => d(
                "cc",
                "newreno (RFC 6582: ssthresh = FlightSize / 2)".into(),
                "reno (Linux's tcp_reno_ssthresh: cwnd / 2; the simulator's `reno`)",
                Some("reno".into()),
            ),
            CcSpec::Fixed(_) => d(
                "cc",
                cc.clone(),
                "no fixed-window congestion control (refused)",
                None,
            ),
            CcSpec::Named(x) if x == "tcp-rr" => d("cc", cc.clone(), "no TCP-RR (refused)", None),
            _ => {}
        }
        if cc == "cubic" {
            // Since issue 32 the profile runs the port of tcp_cubic.c; RFC
            // 9438's curve in floating point differs from it whatever its
            // HyStart (issue 32 item 2: after an RTO at cwnd 7, the first
            // +1 after 10 ACKs where Linux needs 16).
            let hystart = match f.hystart {
                HyStartMode::Off => "no HyStart",
                HyStartMode::Linux => "the `linux` HyStart blend",
                HyStartMode::Linux6 => "Linux 6.x's HyStart",
                HyStartMode::Linux410 => "Linux 4.10's HyStart",
                HyStartMode::Linux3 => "Linux 3.x's HyStart",
                HyStartMode::PlusPlus => "HyStart++",
            };
            d(
                "cc",
                format!("cubic (RFC 9438's curve in floating point, {hystart})"),
                "tcp_cubic.c in integers with HyStart on (the simulator's `cubic-linux`)",
                Some("cubic-linux".into()),
            );
        }
        if cc == "cubic-linux-3" {
            d(
                "cc",
                "cubic-linux-3 (Linux 3.x's tcp_cubic.c: ACK counting, the delayed-ACK ratio)"
                    .into(),
                "tcp_cubic.c of 6.x (the simulator's `cubic-linux`)",
                Some("cubic-linux".into()),
            );
        }
        if cc == "cubic-linux" && matches!(f.hystart, HyStartMode::Linux410 | HyStartMode::Linux3) {
            d(
                "cubic.hystart",
                format!(
                    "{:?} (an older kernel's HyStart)",
                    f.hystart.name().unwrap_or_default()
                ),
                "Linux 6.x's HyStart (hystart = \"linux-6\")",
                Some("linux-6".into()),
            );
        }
        if f.slow_start != losslab_core::cc::SlowStart::PerSegment {
            d(
                "slow_start",
                match f.slow_start {
                    losslab_core::cc::SlowStart::Linux314 => format!(
                        "{} (3.14-4.2: while cwnd <= ssthresh, up to ssthresh + 1)",
                        f.slow_start.name()
                    ),
                    _ => format!("{} (Linux 3.x's one segment per ACK)", f.slow_start.name()),
                },
                "tcp_slow_start(tp, acked): the segments acknowledged",
                Some("per-segment".into()),
            );
        }
        if f.avoidance != losslab_core::cc::Avoidance::PerSegment {
            d(
                "avoidance",
                format!(
                    "{} (Linux 3.x's one segment per cwnd + 1 ACKs)",
                    f.avoidance.name()
                ),
                "tcp_cong_avoid_ai(tp, w, acked): the segments acknowledged",
                Some("per-segment".into()),
            );
        }
        if cc == "westwood" && f.westwood_ssthresh != losslab_core::cc::WestwoodSsthresh::Linux {
            d(
                "westwood.ssthresh",
                "bwe (BWE x RTTmin at every congestion signal)".into(),
                "linux (tcp_reno_ssthresh, then CA_EVENT_LOSS / CA_EVENT_COMPLETE_CWR)",
                Some("linux".into()),
            );
        }
        if cc == "vegas" && f.vegas_gate != losslab_core::cc::VegasGate::Linux {
            d(
                "vegas.gate",
                "cwnd-limited (Vegas adjusts only while cwnd-limited)".into(),
                "linux (tcp_vegas_cong_avoid() on every ACK that may raise cwnd)",
                Some("linux".into()),
            );
        }
        if cc == "vegas" && f.vegas_ssthresh != losslab_core::cc::VegasSsthresh::Cwnd {
            d(
                "vegas.ssthresh",
                "cwnd-1 (min(ssthresh, cwnd - 1) on a decrease, Linux up to 4.10)".into(),
                "cwnd (tcp_vegas_ssthresh() of 5.x and later: min(ssthresh, cwnd))",
                Some("cwnd".into()),
            );
        }
        if cc == "westwood" && !f.westwood_complete_cwr {
            d(
                "westwood.complete_cwr",
                "false (the estimate at the start of recovery)".into(),
                "true (tcp_westwood takes CA_EVENT_COMPLETE_CWR at the end of recovery)",
                Some("true".into()),
            );
        }
        if f.recovery == "prr" {
            d(
                "recovery",
                "prr (RFC 9937: sndcnt from prr_delivered x ssthresh / RecoverFS)".into(),
                "tcp_cwnd_reduction(), which divides by prior_cwnd, the cwnd at entry (the simulator's `prr-linux`)",
                Some("prr-linux".into()),
            );
        } else if f.recovery != p.recovery {
            d(
                "recovery",
                f.recovery.clone(),
                "tcp_cwnd_reduction() (refused)",
                Some("prr-linux".into()),
            );
        }
        match f.detection.as_str() {
            "dupthresh" | "rack" => {}
            other => d(
                "detection",
                other.into(),
                "dupthresh or rack (tcp_recovery; refused)",
                Some("rack".into()),
            ),
        }
        match f.timers.as_str() {
            "rto" | "rack-tlp" => {}
            "tlp" => d(
                "timers",
                "tlp (the draft's and Linux 3.10's probe: PTO at least 10 ms, 1.5 SRTT + 200 ms with one segment out)".into(),
                "rack-tlp (tcp_early_retrans = 3 in Linux 6.x: RFC 8985's TLP episode, tcp_schedule_loss_probe()'s PTO)",
                Some("rack-tlp".into()),
            ),
            other => d(
                "timers",
                other.into(),
                "rto or Linux 6.x's tail loss probe (refused)",
                Some("rack-tlp".into()),
            ),
        }
        match f.rto_formula {
            RtoFormula::Rfc6298 => d(
                "rto_formula",
                "rfc6298 (max(min_rto, SRTT + 4 RTTVAR))".into(),
                "linux-kernel (tcp_rtt_estimator: SRTT + max(4 RTTVAR, rto_min))",
                Some("linux-kernel".into()),
            ),
            RtoFormula::Linux => d(
                "rto_formula",
                "linux (Linux's formula over RFC 6298's estimator)".into(),
                "linux-kernel (tcp_rtt_estimator: RTTVAR falls once per RTT)",
                Some("linux-kernel".into()),
            ),
            RtoFormula::LinuxKernel => {}
        }
        if f.timer_hz != p.timer_hz {
            d(
                "timer_hz",
                match f.timer_hz {
                    0 => "0 (exact timers)".into(),
                    hz => hz.to_string(),
                },
                "timers on jiffies at CONFIG_HZ (250 on the kernel docs/FIDELITY.md measures; `grep CONFIG_HZ= /boot/config-$(uname -r)` gives yours)",
                Some(p.timer_hz.to_string()),
            );
        }
        if f.detection == "rack" && f.rack_reo_timer != p.rack_reo_timer {
            d(
                "rack.reo_timer",
                f.rack_reo_timer.name().into(),
                "linux (tcp_rack_mark_lost since 6.6: the wait + 2 ms, in jiffies)",
                Some("linux".into()),
            );
        }
        if f.detection == "rack" && f.rack_advance != p.rack_advance {
            d(
                "rack.advance",
                f.rack_advance.name().into(),
                "linux (tcp_rack_advance: a SACKed retransmission moves RACK on its RTT alone, whatever the ACK echoes)",
                Some("linux".into()),
            );
        }
        // Named for any probing policy: the set offered for `tlp` and the
        // others is `rack-tlp`, which then reads the key.
        if f.timers != "rto" && f.rack_tlp_pto != p.rack_tlp_pto {
            d(
                "rack-tlp.pto",
                f.rack_tlp_pto.name().into(),
                "linux (tcp_schedule_loss_probe since 6.6: 2 SRTT + 2 ms, or + rto_min with one packet out, in jiffies)",
                Some("linux".into()),
            );
        }
        if losslab_core::timers::arms_probes(&f.timers) {
            // As rack-tlp.pto: the set offered for `tlp` and `tlpr` is
            // `rack-tlp`, whose own gate is RFC 8985's.
            let gate = f.probe_gate.unwrap_or(ProbeGate::of_timers(&f.timers));
            let after = f.probe_gate.unwrap_or(ProbeGate::of_timers("rack-tlp"));
            let kernel = p.probe_gate.unwrap_or(ProbeGate::of_timers(&p.timers));
            if gate != kernel || after != kernel {
                let sim = if gate == after {
                    gate.name().to_string()
                } else {
                    format!(
                        "{} ({} with timers = \"rack-tlp\")",
                        gate.name(),
                        after.name()
                    )
                };
                d(
                    "probe_gate",
                    sim,
                    "linux (tcp_schedule_loss_probe arms a probe only in CA_Open (or CWR in 6.x): nothing SACKed, lost or retransmitted)",
                    Some(kernel.name().into()),
                );
            }
        }
        if cc == "bbr" && f.bbr_min_rtt_refresh != p.bbr_min_rtt_refresh {
            d(
                "bbr.min_rtt_refresh",
                f.bbr_min_rtt_refresh.name().into(),
                "lower (tcp_bbr.c bbr_update_min_rtt() since 5.10: only a lower sample)",
                Some(p.bbr_min_rtt_refresh.name().into()),
            );
        }
        if cc == "westwood" && f.westwood_hz != p.westwood_hz {
            d(
                "westwood.hz",
                f.westwood_hz.to_string(),
                "tcp_westwood.c keeps RTTs and intervals in jiffies (CONFIG_HZ)",
                Some(p.westwood_hz.to_string()),
            );
        }
        if f.rtt_sample != p.rtt_sample {
            d(
                "rtt_sample",
                "tsecr (now - TSecr on cumulative ACKs of data never retransmitted)".into(),
                "linux (tcp_clean_rtx_queue: the (S)ACKed segments' send times, SACK-only ACKs too)",
                Some("linux".into()),
            );
        }
        if f.cwnd_growth != p.cwnd_growth {
            d(
                "cwnd_growth",
                "rfc5681 (cwnd grows on cumulative ACKs only)".into(),
                "linux (tcp_may_raise_cwnd: on SACK-only ACKs too once reordering > 3)",
                Some("linux".into()),
            );
        }
        if !f.receiver.grow_window {
            d(
                "receiver.grow_window",
                "off (the whole buffer advertised at once; quick ACKs after the handshake and after idle, then every second segment)".into(),
                "linux (tcp_grow_window: rcv_ssthresh opens the window from tcp_select_initial_window's 64 KiB and every segment that opens it is ACKed at once)",
                Some("linux".into()),
            );
        }
        let paced = match f.pacing {
            Pacing::Rate => true,
            Pacing::Auto => cc == "bbr",
            Pacing::Off => false,
        };
        if paced && f.pacing_start != p.pacing_start {
            d(
                "pacing_start",
                "after-11 (the eleventh data segment first moves the departure time)".into(),
                "linux (tcp_update_skb_after_send: the skb that brings data_segs_out to 10)",
                Some("linux".into()),
            );
        }
        if f.lost_retransmission_detection != p.lost_retransmission_detection {
            d(
                "lost_retransmission_detection",
                onoff(f.lost_retransmission_detection),
                "false (no tcp_mark_lost_retrans() since 4.4: RACK finds lost retransmissions, with its reordering window)",
                Some("false".into()),
            );
        }
        if f.rto_rearm_on_head_retransmit != p.rto_rearm_on_head_retransmit {
            d(
                "rto_rearm_on_head_retransmit",
                onoff(f.rto_rearm_on_head_retransmit),
                "true (tcp_xmit_retransmit_queue restarts the RTO on retransmitting the head)",
                Some("true".into()),
            );
        }
        if f.rto_rearm_on_sack != p.rto_rearm_on_sack {
            d(
                "rto_rearm_on_sack",
                onoff(f.rto_rearm_on_sack),
                "true (tcp_clean_rtx_queue re-arms the timer, RTO or loss probe, on a SACK of data sent before the head's last transmission)",
                Some("true".into()),
            );
        }
        if f.rto_ssthresh == RtoSsthresh::Rfc5681 {
            d(
                "rto_ssthresh",
                "rfc5681".into(),
                "linux (tcp_enter_loss keeps recovery's ssthresh; refused)",
                Some("linux".into()),
            );
        }
        if f.handshake_rules == HandshakeRules::Rfc {
            d(
                "handshake_rules",
                "rfc".into(),
                "linux (refused)",
                Some("linux".into()),
            );
        }
        if f.receiver.sack_blocks == 0 && f.recovery_exit == RecoveryExit::Rfc6582 {
            d(
                "recovery_exit",
                "rfc6582".into(),
                "linux (tcp_try_undo_recovery holds the state at high_seq; refused)",
                Some("linux".into()),
            );
        }
        if f.receiver.ack == AckSpec::Delayed && !f.receiver.linux_delack {
            d(
                "receiver.delack",
                losslab_sim::units::format_duration(f.receiver.delack_timeout),
                "linux (the adaptive delayed-ACK engine; refused)",
                Some("linux".into()),
            );
        }
        if !f.dsack_undo {
            d(
                "dsack_undo",
                "false".into(),
                "true (refused)",
                Some("true".into()),
            );
        }
        if !f.limited_transmit {
            d(
                "limited_transmit",
                "false".into(),
                "true (refused)",
                Some("true".into()),
            );
        }
        if f.cwnd_validation != CwndValidation::Linux {
            d(
                "cwnd_validation",
                f.cwnd_validation.name().into(),
                "linux (tcp_is_cwnd_limited of Linux 6.x)",
                Some("linux".into()),
            );
        }
        if f.receiver.sack_blocks == 4 {
            d(
                "receiver.sack_blocks",
                "4".into(),
                "3 (timestamps are on, and leave room for three blocks)",
                Some("3".into()),
            );
        }
        if !f.handshake {
            d(
                "handshake",
                "false (no SYN exchange: no RTT sample before the data, the first RTO from 1 s)"
                    .into(),
                "true (the agent connects before the measurement starts)",
                Some("true".into()),
            );
        }
        let linux_sndbuf =
            f.sndbuf_model.is_some() || f.extensions.iter().any(|e| e == "sndbuf-factor-3");
        if let (Some(n), false) = (f.sndbuf, linux_sndbuf) {
            d(
                "sndbuf",
                format!(
                    "{} (a fixed limit on payload bytes)",
                    losslab_sim::units::format_size(n)
                ),
                "tcp_wmem max: a buffer autotuned from 16 KiB up to that, counting skb truesize",
                None,
            );
        }
        for e in &f.extensions {
            d("extensions", e.clone(), "none (refused)", Some("[]".into()));
        }
        if let Some(m) = f.max_cwnd {
            d(
                "max_cwnd",
                m.to_string(),
                "no per-connection clamp (refused)",
                None,
            );
        }
    }
    out
}

/// Differences that remain with `profile = "linux-6"`: where the
/// simulator's model is not the kernel's code, or the profile keeps a
/// value of its own. Listed, not refused by `--strict` (no scenario
/// removes the first kind).
pub fn model_differences(sc: &Scenario) -> Vec<Difference> {
    let mut out = Vec::new();
    let bdp_queue = sc.path.rate as f64 / 8.0 * (2 * sc.path.delay) as f64 / SEC as f64
        + match sc.path.queue {
            losslab_sim::scenario::QueueLimit::Bytes(b) => b as f64,
            losslab_sim::scenario::QueueLimit::Packets(n) => n as f64 * 1500.0,
        };
    for (i, f) in sc.flows.iter().enumerate() {
        let pre = set_prefix(f, i);
        let mut d = |key: &str, sim: &str, kernel: &str, set: Option<&str>| {
            out.push(Difference {
                flow: f.name.clone(),
                key: key.into(),
                sim: sim.into(),
                kernel: kernel.into(),
                set: set.map(|v| format!("{pre}.{key}={v}")),
            })
        };
        if !f.receiver.autotune {
            d(
                "receiver.autotune",
                "off (the buffer is rcvbuf from the start)",
                "linux (tcp_rcv_space_adjust: sk_rcvbuf and window_clamp grow from tcp_rmem[1] once per receiver RTT)",
                Some("linux"),
            );
        }
        if (f.receiver.rcvbuf as f64) < bdp_queue {
            d(
                "receiver.rcvbuf",
                &format!(
                    "{} (a window of rcvbuf)",
                    losslab_sim::units::format_size(f.receiver.rcvbuf)
                ),
                "tcp_rmem max = 256/160 x rcvbuf (2 x before Linux 6.6), so the window reaches rcvbuf at the TUN path's scaling_ratio",
                None,
            );
        }
    }
    out
}

/// One line per difference, for the text output.
pub fn render(list: &[Difference]) -> String {
    let mut s = String::new();
    for x in list {
        s.push_str(&format!(
            "  flow {}: {}: sim {}; kernel {}",
            x.flow, x.key, x.sim, x.kernel
        ));
        if let Some(set) = &x.set {
            s.push_str(&format!(" [--set {set}]"));
        }
        s.push('\n');
    }
    s
}

/// The most transmissions per flow and side kept for the comparison
/// (about 56 MB each): a longer run is compared over its first ones.
pub const MAX_TX: usize = 1_000_000;

/// One data transmission by a sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Tx {
    /// Nanoseconds on the run's own clock.
    pub t_ns: u64,
    /// First payload byte, from 0 (the byte after the SYN).
    pub seq: u64,
    pub len: u32,
    /// The sender's state when it sent this: cumulative ACK point (bytes
    /// from 0) and cwnd (segments), and how old that state was (the last
    /// ACK processed in the simulator; the last TCP_INFO sample on Linux).
    pub snd_una: Option<u64>,
    pub cwnd: Option<u64>,
    pub state_age_ns: Option<u64>,
}

/// One side's transmission at the first divergence.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TxAt {
    /// Seconds since that side's first data transmission.
    pub time_s: f64,
    pub seq: u64,
    pub len: u32,
    pub snd_una: Option<u64>,
    pub cwnd: Option<u64>,
    pub state_age_s: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Divergence {
    /// 0-based position among the sender's data transmissions.
    pub index: usize,
    /// `seq` (another segment sent), `time` (the same segment more than
    /// a packet time apart), `end` (one side sent no more).
    pub reason: String,
    pub linux: Option<TxAt>,
    pub sim: Option<TxAt>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeqComparison {
    pub linux_transmissions: usize,
    pub sim_transmissions: usize,
    /// Positions with the same seq and times within `tolerance_s`.
    pub matched: usize,
    /// matched / the longer of the two sequences (None when both are empty).
    pub matched_share: Option<f64>,
    /// Positions with the same seq, whatever their times, and their
    /// share: how far the two send the same segments in the same order.
    pub seq_matched: usize,
    pub seq_matched_share: Option<f64>,
    /// One packet time at the bottleneck rate.
    pub tolerance_s: f64,
    /// A side sent more than [`MAX_TX`] transmissions: only the first
    /// ones were kept and compared.
    pub truncated: bool,
    /// Where Linux's `snd_una` comes from: `pcap` (the ACKs a.pcap shows
    /// delivered to the sender, with `--pcap`) or `tcp_info` (the last
    /// sample, as its `cwnd` always does). Set by the caller.
    pub linux_snd_una_from: String,
    pub first_divergence: Option<Divergence>,
}

fn at(x: &Tx, t0: u64) -> TxAt {
    TxAt {
        time_s: x.t_ns.saturating_sub(t0) as f64 / 1e9,
        seq: x.seq,
        len: x.len,
        snd_una: x.snd_una,
        cwnd: x.cwnd,
        state_age_s: x.state_age_ns.map(|a| a as f64 / 1e9),
    }
}

/// Compares two senders' data transmissions position by position. Each
/// side's times count from its own first transmission (Linux's agent
/// connects before the measurement, the simulator from the SYN). The
/// transmission at position i matches when both sides have one there with
/// the same seq, sent within `tolerance_ns` of each other.
pub fn compare_sequences(linux: &[Tx], sim: &[Tx], tolerance_ns: u64) -> SeqComparison {
    let l0 = linux.first().map_or(0, |x| x.t_ns);
    let s0 = sim.first().map_or(0, |x| x.t_ns);
    let mut matched = 0;
    let mut seq_matched = 0;
    let mut first = None;
    for i in 0..linux.len().max(sim.len()) {
        let (l, s) = (linux.get(i), sim.get(i));
        let reason = match (l, s) {
            (Some(l), Some(s)) => {
                let (tl, ts) = (l.t_ns - l0, s.t_ns - s0);
                if l.seq == s.seq {
                    seq_matched += 1;
                }
                if l.seq != s.seq {
                    Some("seq")
                } else if tl.abs_diff(ts) > tolerance_ns {
                    Some("time")
                } else {
                    None
                }
            }
            _ => Some("end"),
        };
        match reason {
            None => matched += 1,
            Some(r) if first.is_none() => {
                first = Some(Divergence {
                    index: i,
                    reason: r.into(),
                    linux: l.map(|x| at(x, l0)),
                    sim: s.map(|x| at(x, s0)),
                })
            }
            Some(_) => {}
        }
    }
    let n = linux.len().max(sim.len());
    SeqComparison {
        linux_transmissions: linux.len(),
        sim_transmissions: sim.len(),
        matched,
        matched_share: (n > 0).then(|| matched as f64 / n as f64),
        seq_matched,
        seq_matched_share: (n > 0).then(|| seq_matched as f64 / n as f64),
        tolerance_s: tolerance_ns as f64 / 1e9,
        truncated: linux.len() >= MAX_TX || sim.len() >= MAX_TX,
        linux_snd_una_from: "tcp_info".into(),
        first_divergence: first,
    }
}

/// One packet time at `rate_bps` for a full segment of `mss` payload
/// bytes with IPv4, TCP and timestamp headers (52 bytes), rounded up.
pub fn packet_time_ns(mss: u32, rate_bps: u64) -> u64 {
    let bits = (u64::from(mss) + 52) * 8 * SEC;
    bits.div_ceil(rate_bps.max(1))
}

#[derive(Default)]
struct Recorded {
    tx: Vec<Vec<Tx>>,
    /// Per flow: (time, snd_una, cwnd) after the last ACK processed.
    state: Vec<Option<(Time, u64, u64)>>,
}

/// A tracer that keeps every data transmission of each flow's sender,
/// with the sender's state at that moment. Clone the handle before
/// boxing it into the simulation; read it with `take` after the run.
#[derive(Clone, Default)]
pub struct SendRecorder(Rc<RefCell<Recorded>>);

impl SendRecorder {
    pub fn new(flows: usize) -> Self {
        SendRecorder(Rc::new(RefCell::new(Recorded {
            tx: vec![Vec::new(); flows],
            state: vec![None; flows],
        })))
    }
    /// The transmissions, by flow index.
    pub fn take(&self) -> Vec<Vec<Tx>> {
        std::mem::take(&mut self.0.borrow_mut().tx)
    }
}

impl Tracer for SendRecorder {
    fn packet(&mut self, at: Time, pkt: &Packet, fate: PacketFate) {
        let Body::Data(s) = pkt.body else { return };
        if fate != PacketFate::Sent || s.syn || s.len == 0 {
            return;
        }
        let mut r = self.0.borrow_mut();
        let f = pkt.flow as usize;
        let st = r.state.get(f).copied().flatten();
        if let Some(v) = r.tx.get_mut(f).filter(|v| v.len() < MAX_TX) {
            v.push(Tx {
                t_ns: at,
                seq: s.seq,
                len: s.len,
                snd_una: st.map(|x| x.1),
                cwnd: st.map(|x| x.2),
                state_age_ns: st.map(|x| at.saturating_sub(x.0)),
            });
        }
    }
    fn endpoint(&mut self, flow: usize, side: Side, ev: &Timed) {
        if side != Side::Sender {
            return;
        }
        if let Event::AckProcessed { state, .. } = ev.event {
            if let Some(s) = self.0.borrow_mut().state.get_mut(flow) {
                *s = Some((ev.at, state.snd_una, state.cwnd));
            }
        }
    }
    fn wants_endpoint_events(&self) -> bool {
        true
    }
}

/// Unwraps 32-bit TCP sequence numbers relative to a base.
struct Unwrap {
    base: u32,
    high: u64,
}

impl Unwrap {
    fn rel(&mut self, seq: u32) -> u64 {
        let high32 = self.base.wrapping_add(self.high as u32);
        let delta = seq.wrapping_sub(high32) as i32 as i64;
        let r = (self.high as i64 + delta).max(0) as u64;
        self.high = self.high.max(r);
        r
    }
}

/// Linux's data transmissions per flow name, from emulator.csv: every
/// `ab` `enqueue` row with payload (what A's TCP sent, including what the
/// path then dropped), seq relative to the flow's SYN (or, if the SYN is
/// not in the log, to its first data segment). Times are the emulator's
/// (nanoseconds since it started). The sender's state is filled in by
/// [`attach_samples`].
pub fn kernel_transmissions(csv: &Path) -> io::Result<HashMap<String, Vec<Tx>>> {
    let f = std::fs::File::open(csv)?;
    let mut out: HashMap<String, Vec<Tx>> = HashMap::new();
    let mut seqs: HashMap<String, Unwrap> = HashMap::new();
    for line in io::BufReader::new(f).lines().skip(1) {
        let line = line?;
        let c: Vec<&str> = line.split(',').collect();
        if c.len() < 11 || c[1] != "ab" || c[2] != "enqueue" || c[4].is_empty() || c[7] != "6" {
            continue;
        }
        let (Some(t), Ok(seq), Ok(payload)) =
            (parse_ns(c[0]), c[9].parse::<u32>(), c[10].parse::<u32>())
        else {
            continue;
        };
        let flow = c[4].to_string();
        if payload == 0 {
            // The flow's first packet is its SYN: data starts after it.
            seqs.entry(flow).or_insert(Unwrap {
                base: seq.wrapping_add(1),
                high: 0,
            });
            continue;
        }
        let u = seqs
            .entry(flow.clone())
            .or_insert(Unwrap { base: seq, high: 0 });
        let rel = u.rel(seq);
        let v = out.entry(flow).or_default();
        if v.len() >= MAX_TX {
            continue;
        }
        v.push(Tx {
            t_ns: t,
            seq: rel,
            len: payload,
            snd_una: None,
            cwnd: None,
            state_age_ns: None,
        });
    }
    Ok(out)
}

/// The cumulative ACKs delivered to A, per flow (flow i's receiver
/// listens on `base_port + i`), from the emulator's a.pcap: (time on
/// emulator.csv's clock, ACK number counted from the flow's first data
/// byte), in order. The pcap's clock is the wall clock at the emulator's
/// start plus emulator.csv's: `first_ab_ns`, emulator.csv's time of the
/// first packet A sent (the first `ab` `enqueue` row, whatever its flow),
/// is the first A-sent frame of a.pcap, which gives the offset.
pub fn kernel_acks(
    a_pcap: &Path,
    first_ab_ns: u64,
    base_port: u16,
    flows: usize,
) -> io::Result<Vec<Vec<(u64, u64)>>> {
    let frames = crate::log::read_pcap(a_pcap)?;
    let mut out = vec![Vec::new(); flows];
    let mut una: Vec<Option<Unwrap>> = (0..flows).map(|_| None).collect();
    let mut offset = None;
    for (ts, _, b) in &frames {
        if b.len() < 20 || b[0] >> 4 != 4 || b[9] != 6 {
            continue;
        }
        let ihl = usize::from(b[0] & 0xf) * 4;
        if b.len() < ihl + 14 {
            continue;
        }
        let (src, dst) = (&b[12..16], &b[16..20]);
        let t = &b[ihl..];
        let be16 = |o: usize| u16::from_be_bytes([t[o], t[o + 1]]);
        let be32 = |o: usize| u32::from_be_bytes([t[o], t[o + 1], t[o + 2], t[o + 3]]);
        let flags = t[13];
        if src == crate::netns::ADDR_A {
            offset.get_or_insert(ts.saturating_sub(first_ab_ns));
            let i = usize::from(be16(2).wrapping_sub(base_port));
            if flags & 0x02 != 0 && i < flows {
                una[i] = Some(Unwrap {
                    base: be32(4).wrapping_add(1),
                    high: 0,
                });
            }
        } else if src == crate::netns::ADDR_B && dst == crate::netns::ADDR_A && flags & 0x10 != 0 {
            let i = usize::from(be16(0).wrapping_sub(base_port));
            let (Some(off), Some(Some(u))) = (offset, una.get_mut(i)) else {
                continue;
            };
            let ack = u.rel(be32(8));
            out[i].push((ts.saturating_sub(off), ack));
        }
    }
    Ok(out)
}

/// Replaces each transmission's `snd_una` with the highest ACK delivered
/// at or before it (`acks` in time order, as [`kernel_acks`] gives them).
pub fn attach_acks(tx: &mut [Tx], acks: &[(u64, u64)]) {
    let mut j = 0;
    let mut high: Option<u64> = None;
    for x in tx.iter_mut() {
        while j < acks.len() && acks[j].0 <= x.t_ns {
            high = Some(high.map_or(acks[j].1, |h| h.max(acks[j].1)));
            j += 1;
        }
        x.snd_una = high;
    }
}

/// The time of emulator.csv's first `ab` `enqueue` row.
pub fn first_ab_enqueue(csv: &Path) -> io::Result<Option<u64>> {
    let f = std::fs::File::open(csv)?;
    for line in io::BufReader::new(f).lines().skip(1) {
        let line = line?;
        let mut c = line.split(',');
        let (t, dir, ev) = (c.next(), c.next(), c.next());
        if dir == Some("ab") && ev == Some("enqueue") {
            return Ok(t.and_then(parse_ns));
        }
    }
    Ok(None)
}

/// "12.000345678" -> nanoseconds.
fn parse_ns(s: &str) -> Option<u64> {
    let (a, b) = s.split_once('.')?;
    let secs: u64 = a.parse().ok()?;
    if b.len() != 9 {
        return None;
    }
    Some(secs * SEC + b.parse::<u64>().ok()?)
}

/// Fills each transmission's state from `samples` (time on the same
/// clock, snd_una in bytes, cwnd in segments; in time order): the last
/// sample at or before the transmission (None before the first).
pub fn attach_samples(tx: &mut [Tx], samples: &[(u64, u64, u64)]) {
    let mut j = 0;
    let mut last: Option<&(u64, u64, u64)> = None;
    for x in tx.iter_mut() {
        while j < samples.len() && samples[j].0 <= x.t_ns {
            last = Some(&samples[j]);
            j += 1;
        }
        x.snd_una = last.map(|s| s.1);
        x.cwnd = last.map(|s| s.2);
        x.state_age_ns = last.map(|s| x.t_ns - s.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use losslab_sim::parse::parse_scenario;

    /// The FIDELITY grid's path with one flow `a` of the given keys.
    fn scenario(flow: &str, sets: &[String]) -> Scenario {
        parse_scenario(
            "t.toml",
            &format!(
                "[path]\nrate = \"20Mbps\"\ndelay = \"50ms\"\nqueue = \"250000B\"\n[[flow]]\nname = \"a\"\n{flow}\n"
            ),
            sets,
        )
        .unwrap()
    }

    fn keys(d: &[Difference]) -> Vec<&str> {
        d.iter().map(|x| x.key.as_str()).collect()
    }

    const CUBIC_RACK: &str = "cc = \"cubic\"\ndetection = \"rack\"\ntimers = \"rack-tlp\"";

    /// The keys linux-6 sets that a flow without it differs in (issue 32).
    const LINUX6_KEYS: [&str; 13] = [
        "recovery",
        "rto_formula",
        "timer_hz",
        "rack.reo_timer",
        "rack.advance",
        "rack-tlp.pto",
        "probe_gate",
        "rtt_sample",
        "cwnd_growth",
        "receiver.grow_window",
        "lost_retransmission_detection",
        "rto_rearm_on_head_retransmit",
        "rto_rearm_on_sack",
    ];

    #[test]
    fn cubic_without_the_profile_differs_in_every_kernel_part_and_with_it_in_nothing() {
        // Issue 32's case: CUBIC + PRR + RACK-TLP without the profile.
        let d = differences(&scenario(CUBIC_RACK, &[]));
        let mut want = vec!["cc"];
        want.extend(LINUX6_KEYS);
        assert_eq!(keys(&d), want, "{d:?}");
        assert_eq!(d[0].flow, "a");
        assert!(d[0].sim.contains("no HyStart"), "{}", d[0].sim);
        assert!(d[0].kernel.contains("cubic-linux"), "{}", d[0].kernel);
        assert_eq!(d[0].set.as_deref(), Some("flow.a.cc=cubic-linux"));
        // RFC 9438's cubic differs whatever its HyStart.
        let text = format!("{CUBIC_RACK}\n[flow.cubic]\nhystart = \"linux-6\"");
        let h = differences(&scenario(&text, &[]));
        assert_eq!(keys(&h), want, "{h:?}");
        assert!(h[0].sim.contains("Linux 6.x's HyStart"), "{}", h[0].sim);
        // The default flow: NewReno's FlightSize halving is not Linux's reno.
        assert_eq!(
            keys(&differences(&scenario("", &[])))[0..2],
            ["cc", "recovery"]
        );
        // With the profile: none, and since it autotunes the receive
        // buffer, no model difference either; turning that off names it.
        let p = scenario("profile = \"linux-6\"", &[]);
        assert_eq!(differences(&p), []);
        assert_eq!(model_differences(&p), []);
        let fixed = scenario(
            "profile = \"linux-6\"\nreceiver = { autotune = \"off\" }",
            &[],
        );
        assert_eq!(differences(&fixed), []);
        assert_eq!(keys(&model_differences(&fixed)), ["receiver.autotune"]);
        // A paced flow names the pacing start unless it is Linux's.
        let bbr = |extra: &str| {
            keys(&differences(&scenario(
                &format!("profile = \"linux-6\"\ncc = \"bbr\"\n{extra}"),
                &[],
            )))
            .contains(&"pacing_start")
        };
        assert!(!bbr(""));
        assert!(bbr("pacing_start = \"after-11\""));
        assert!(!bbr("pacing = \"off\"\npacing_start = \"after-11\""));
        // Keys the flow sets itself override the profile and are named.
        let o = scenario(
            "profile = \"linux-6\"\nrto_formula = \"rfc6298\"\ntimers = \"tlp\"\ncwnd_validation = \"linux-3.10\"\nhandshake = false\nrecovery = \"prr\"\nrtt_sample = \"tsecr\"\nreceiver = { sack_blocks = 4 }\ncc = \"cubic\"",
            &[],
        );
        assert_eq!(
            keys(&differences(&o)),
            [
                "cc",
                "recovery",
                "timers",
                "rto_formula",
                "rtt_sample",
                "cwnd_validation",
                "receiver.sack_blocks",
                "handshake"
            ]
        );
        // A receiver table keeps the profile's receiver keys.
        let r = scenario(
            "profile = \"linux-6\"\nreceiver = { rcvbuf = \"4MB\" }",
            &[],
        );
        assert_eq!(differences(&r), []);
        // Keys the kernel follows (sysctls, route) are not differences.
        let f = scenario(
            "profile = \"linux-6\"\nfrto = \"off\"\ninit_cwnd = 4\nmin_rto = \"50ms\"\nslow_start_after_idle = false\ndetection = \"dupthresh\"\ntimers = \"rto\"",
            &[],
        );
        assert_eq!(differences(&f), []);
    }

    /// The top-level `field: value` pairs of a struct's Debug output.
    fn fields(debug: &str) -> Vec<(String, String)> {
        let body = &debug[debug.find('{').unwrap() + 1..debug.rfind('}').unwrap()];
        let (mut out, mut cur, mut depth) = (Vec::new(), String::new(), 0);
        for c in body.chars() {
            match c {
                '{' | '(' | '[' => depth += 1,
                '}' | ')' | ']' => depth -= 1,
                _ => {}
            }
            if c == ',' && depth == 0 {
                out.push(std::mem::take(&mut cur));
            } else {
                cur.push(c);
            }
        }
        out.push(cur);
        out.iter()
            .filter_map(|f| f.trim().split_once(": "))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn every_field_the_profile_sets_is_compared_or_followed() {
        // The fields linux-6 changes on the default flow. A profile that
        // comes to set another must have it compared in differences() (or
        // named in FOLLOWED when losslab linux hands it to the kernel).
        let d = FlowSpec::new("a");
        let mut p = d.clone();
        losslab_sim::profile::apply("linux-6", &mut p);
        let (a, b) = (fields(&format!("{d:?}")), fields(&format!("{p:?}")));
        assert_eq!(a.len(), b.len());
        let changed: Vec<&str> = a
            .iter()
            .zip(&b)
            .filter(|(x, y)| x != y)
            .map(|(x, _)| x.0.as_str())
            .collect();
        assert_eq!(
            changed,
            [
                "profile",
                "cc",
                "recovery",
                "detection",
                "timers",
                "rto_formula",
                "timer_hz",
                "slow_start_after_idle",
                "frto",
                "recovery_exit",
                "pacing_start",
                "rtt_sample",
                "cwnd_growth",
                "westwood_complete_cwr",
                "westwood_ssthresh",
                "westwood_hz",
                "vegas_gate",
                "rack_reo_timer",
                "rack_advance",
                "rack_tlp_pto",
                "receiver",
                "lost_retransmission_detection",
                "rto_rearm_on_head_retransmit",
                "rto_rearm_on_sack",
                "probe_gate"
            ]
        );
        // profile is a name; detection, timers, slow_start_after_idle and
        // frto are followed (sysctls); recovery_exit matters only without SACK, and is
        // compared there; pacing_start matters only to a paced flow, the
        // westwood_* keys only to Westwood and vegas_gate only to Vegas,
        // and are compared there; the rest
        // are differences of the default flow.
        for k in ["detection", "timers", "slow_start_after_idle", "frto"] {
            assert!(FOLLOWED.contains(&k), "{k}");
        }
        let no_sack = scenario("receiver = { sack_blocks = 0 }", &[]);
        assert!(keys(&differences(&no_sack)).contains(&"recovery_exit"));
        let ww = differences(&scenario("cc = \"westwood\"\npacing = \"rate\"", &[]));
        let k = keys(&ww);
        assert!(
            k.contains(&"westwood.hz")
                && k.contains(&"westwood.ssthresh")
                && k.contains(&"pacing_start"),
            "{k:?}"
        );
        // (rack_reo_timer and rack_advance with RACK, rack_tlp_pto and
        // probe_gate with RACK-TLP: the first test.)
        let dd = differences(&scenario("", &[]));
        let d = keys(&dd);
        for k in LINUX6_KEYS.iter().filter(|k| {
            ![
                "rack.reo_timer",
                "rack.advance",
                "rack-tlp.pto",
                "probe_gate",
            ]
            .contains(*k)
        }) {
            assert!(d.contains(k), "{k}: {d:?}");
        }
    }

    #[test]
    fn the_offered_sets_and_the_profile_remove_the_differences() {
        for flow in [
            CUBIC_RACK,
            "",
            "timers = \"tlp\"\nreceiver = { sack_blocks = 4 }",
        ] {
            let d = differences(&scenario(flow, &[]));
            assert!(!d.is_empty());
            let sets: Vec<String> = d.iter().filter_map(|x| x.set.clone()).collect();
            assert_eq!(sets.len(), d.len(), "{d:?}");
            assert_eq!(differences(&scenario(flow, &sets)), [], "{flow}: {sets:?}");
            // The fix the message offers.
            let hint = fix_hint(&scenario(flow, &[]));
            assert!(hint.contains("--set flow.a.profile=linux-6"), "{hint}");
            if !flow.contains("timers") {
                let fixed = scenario(flow, &["flow.a.profile=linux-6".into()]);
                assert_eq!(differences(&fixed), [], "{flow}");
            }
        }
    }

    /// On top of the linux-6 profile, the older kernels' CUBIC, HyStart,
    /// per-ACK slow start and avoidance are differences from the kernel (6.x), each
    /// with the set that removes it.
    #[test]
    fn older_kernel_keys_are_differences() {
        for (flow, key) in [
            ("profile = \"linux-6\"\ncc = \"cubic-linux-3\"", "cc"),
            (
                "profile = \"linux-6\"\n[flow.cubic]\nhystart = \"linux-3\"",
                "cubic.hystart",
            ),
            (
                "profile = \"linux-6\"\nslow_start = \"per-ack\"",
                "slow_start",
            ),
            (
                "profile = \"linux-6\"\navoidance = \"per-ack\"",
                "avoidance",
            ),
        ] {
            let d = differences(&scenario(flow, &[]));
            assert_eq!(keys(&d), [key], "{d:?}");
            let sets: Vec<String> = d.iter().filter_map(|x| x.set.clone()).collect();
            assert_eq!(differences(&scenario(flow, &sets)), [], "{flow}: {sets:?}");
        }
    }

    /// Four full segments one packet time (600 us at 20 Mbit/s) apart.
    fn seq4(times_us: [u64; 4], seqs: [u64; 4]) -> Vec<Tx> {
        times_us.iter().zip(seqs).map(|(&t, s)| tx(t, s)).collect()
    }

    const PKT: u64 = 600_000;
    const SEQS: [u64; 4] = [0, 1448, 2896, 4344];
    const TIMES: [u64; 4] = [0, 600, 1200, 1800];

    #[test]
    fn identical_sequences_match_whatever_their_clocks() {
        let l = seq4(TIMES, SEQS);
        // The simulator's clock starts 5 s earlier (handshake, start).
        let s = seq4(TIMES.map(|t| t + 5_000_000), SEQS);
        let c = compare_sequences(&l, &s, PKT);
        assert_eq!((c.matched, c.seq_matched), (4, 4));
        assert_eq!(c.matched_share, Some(1.0));
        assert_eq!(c.first_divergence, None);
        assert_eq!(c.tolerance_s, 0.0006);
    }

    #[test]
    fn a_different_segment_at_index_2_is_the_first_divergence() {
        // The simulator skips 2896 (sends 4344 and 5792 at positions 2, 3):
        // positions 0 and 1 match, 2 and 3 do not: 2 of 4.
        let l = seq4(TIMES, SEQS);
        let s = seq4(TIMES, [0, 1448, 4344, 5792]);
        let c = compare_sequences(&l, &s, PKT);
        assert_eq!((c.matched, c.seq_matched), (2, 2));
        assert_eq!(c.matched_share, Some(0.5));
        let d = c.first_divergence.unwrap();
        assert_eq!((d.index, d.reason.as_str()), (2, "seq"));
        let (dl, ds) = (d.linux.unwrap(), d.sim.unwrap());
        assert_eq!((dl.seq, ds.seq), (2896, 4344));
        assert!((dl.time_s - 0.0012).abs() < 1e-12 && (ds.time_s - 0.0012).abs() < 1e-12);
        assert_eq!((dl.snd_una, dl.cwnd), (Some(0), Some(10)));
    }

    #[test]
    fn a_send_more_than_a_packet_time_late_diverges_and_one_exactly_that_late_does_not() {
        // Position 2: 1801 us against 1200 us, 601 us apart (> 600);
        // position 3: 2400 against 1800, exactly 600 apart: a match.
        let l = seq4(TIMES, SEQS);
        let s = seq4([0, 600, 1801, 2400], SEQS);
        let c = compare_sequences(&l, &s, PKT);
        assert_eq!((c.matched, c.seq_matched), (3, 4));
        assert_eq!(c.matched_share, Some(0.75));
        assert_eq!(c.seq_matched_share, Some(1.0));
        let d = c.first_divergence.unwrap();
        assert_eq!((d.index, d.reason.as_str()), (2, "time"));
        assert!((d.sim.unwrap().time_s - 0.001801).abs() < 1e-12);
        assert!((d.linux.unwrap().time_s - 0.0012).abs() < 1e-12);
    }

    #[test]
    fn a_sender_that_stops_early_diverges_where_it_stops() {
        let l = seq4(TIMES, SEQS);
        let c = compare_sequences(&l, &l[..3], PKT);
        assert_eq!(c.matched, 3);
        assert_eq!(c.matched_share, Some(0.75));
        let d = c.first_divergence.unwrap();
        assert_eq!((d.index, d.reason.as_str(), d.sim), (3, "end", None));
        let e = compare_sequences(&[], &[], PKT);
        assert_eq!((e.matched_share, e.first_divergence), (None, None));
    }

    fn tx(t_us: u64, seq: u64) -> Tx {
        Tx {
            t_ns: t_us * 1000,
            seq,
            len: 1448,
            snd_una: Some(0),
            cwnd: Some(10),
            state_age_ns: Some(0),
        }
    }

    #[test]
    fn unwrap_follows_the_sequence_across_the_32_bit_boundary() {
        let mut u = Unwrap {
            base: u32::MAX - 99,
            high: 0,
        };
        assert_eq!(u.rel(u32::MAX - 99), 0);
        assert_eq!(u.rel(u32::MAX), 99);
        assert_eq!(u.rel(1000), 1100);
        // A retransmission from before the wrap.
        assert_eq!(u.rel(u32::MAX - 49), 50);
    }

    #[test]
    fn samples_attach_the_last_one_at_or_before_each_send() {
        let mut v = vec![tx(5, 0), tx(15, 1448), tx(30, 2896)];
        attach_samples(&mut v, &[(10_000, 1448, 11), (30_000, 2896, 12)]);
        assert_eq!(v[0].cwnd, None);
        assert_eq!(
            (v[1].snd_una, v[1].cwnd, v[1].state_age_ns),
            (Some(1448), Some(11), Some(5000))
        );
        assert_eq!(
            (v[2].snd_una, v[2].cwnd, v[2].state_age_ns),
            (Some(2896), Some(12), Some(0))
        );
    }

    /// An IPv4 + TCP frame (20 + 20 bytes, no payload).
    fn frame(
        src: [u8; 4],
        dst: [u8; 4],
        ports: (u16, u16),
        seq: u32,
        ack: u32,
        flags: u8,
    ) -> Vec<u8> {
        let mut b = vec![0u8; 40];
        b[0] = 0x45;
        b[2..4].copy_from_slice(&40u16.to_be_bytes());
        b[9] = 6;
        b[12..16].copy_from_slice(&src);
        b[16..20].copy_from_slice(&dst);
        b[20..22].copy_from_slice(&ports.0.to_be_bytes());
        b[22..24].copy_from_slice(&ports.1.to_be_bytes());
        b[24..28].copy_from_slice(&seq.to_be_bytes());
        b[28..32].copy_from_slice(&ack.to_be_bytes());
        b[32] = 5 << 4;
        b[33] = flags;
        b
    }

    #[test]
    fn acks_come_from_a_pcap_on_the_emulators_clock() {
        use crate::netns::{ADDR_A, ADDR_B};
        // Wall clock at the emulator's start: 1000 s; emulator.csv's first
        // `ab` row at 2 ms, so A's SYN is stamped 1000.002 s.
        let r0 = 1_000 * SEC;
        let isn = u32::MAX - 10; // the ACK numbers wrap
        let frames = [
            (
                r0 + 2_000_000,
                frame(ADDR_A, ADDR_B, (40000, 5201), isn, 0, 0x02),
            ),
            (
                r0 + 3_000_000,
                frame(ADDR_B, ADDR_A, (5201, 40000), 7, isn.wrapping_add(1), 0x12),
            ),
            (
                r0 + 9_000_000,
                frame(
                    ADDR_B,
                    ADDR_A,
                    (5201, 40000),
                    8,
                    isn.wrapping_add(1 + 2896),
                    0x10,
                ),
            ),
            // Another flow's ACK before its SYN was seen, and one of a
            // port no flow has.
            (
                r0 + 9_500_000,
                frame(ADDR_B, ADDR_A, (5202, 40001), 8, 77, 0x10),
            ),
            (
                r0 + 9_600_000,
                frame(ADDR_B, ADDR_A, (5299, 40002), 8, 77, 0x10),
            ),
        ];
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.pcap");
        let mut b = Vec::new();
        for x in [0xa1b2_3c4du32, 0x0004_0002, 0, 0, 128, 101] {
            b.extend_from_slice(&x.to_le_bytes());
        }
        for (t, f) in &frames {
            for x in [
                (t / SEC) as u32,
                (t % SEC) as u32,
                f.len() as u32,
                f.len() as u32,
            ] {
                b.extend_from_slice(&x.to_le_bytes());
            }
            b.extend_from_slice(f);
        }
        std::fs::write(&p, b).unwrap();
        let acks = kernel_acks(&p, 2_000_000, 5201, 2).unwrap();
        assert_eq!(acks, vec![vec![(3_000_000, 0), (9_000_000, 2896)], vec![]]);
        let mut v = vec![tx(2_500, 0), tx(3_000, 1448), tx(9_100, 2896)];
        attach_acks(&mut v, &acks[0]);
        let una: Vec<Option<u64>> = v.iter().map(|x| x.snd_una).collect();
        assert_eq!(una, [None, Some(0), Some(2896)]);
    }

    #[test]
    fn packet_time_at_20_mbits() {
        // 1500 bytes = 12,000 bits at 20 Mbit/s: 600 us.
        assert_eq!(packet_time_ns(1448, 20_000_000), 600_000);
    }
}
