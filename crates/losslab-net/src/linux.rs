//! A scenario through real Linux TCP: each flow is a connection from
//! namespace A to namespace B across the emulator, made by our own sender
//! and receiver (`agent`), with the namespaces' sysctls set from the
//! flows' algorithms. Results come back in the simulator's shape
//! (`losslab_sim::results::RunResults`).
//!
//! What Linux cannot express is refused (`plan`), never approximated
//! silently. Sysctls are per namespace, so every flow must share
//! detection, timers, min_rto and init_cwnd.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io;
use std::net::SocketAddrV4;
use std::path::PathBuf;

use losslab_core::time::{MS, SEC};
use losslab_sim::results::{FlowResults, PathResults, RttResults, RunResults};
use losslab_sim::scenario::{AckSpec, AppSpec, CcSpec, FlowSpec, Scenario};
use losslab_sim::sim::expand_flows;

use crate::agent::{self, Plan, RecvResult, SendOpts, SendResult};
use crate::emu::{EmuConfig, EmuError, EmuReport, Emulator, Host};
use crate::netns::{self, ADDR_B};
use crate::packet::FlowMap;
use crate::sys::now_ns;

/// Flow i's receiver listens on BASE_PORT + i.
pub const BASE_PORT: u16 = 5201;

/// How a scenario maps onto Linux.
#[derive(Clone, Debug, PartialEq)]
pub struct LinuxPlan {
    pub flows: Vec<FlowSpec>,
    /// TCP_CONGESTION per flow.
    pub cc: Vec<String>,
    /// (key under /proc/sys, value), set in both namespaces.
    pub sysctls: Vec<(String, String)>,
    /// Extra route attributes in A (rto_min, initcwnd).
    pub route: Vec<String>,
    /// Per flow: turn on TCP's internal pacing with SO_MAX_PACING_RATE
    /// (`pacing = "rate"` on a controller that does not pace by itself).
    pub pace: Vec<bool>,
}

fn refuse(flow: &str, key: &str, value: &str, why: &str) -> String {
    format!("flow {flow}: {key} = {value:?} cannot run on Linux: {why}")
}

/// The release of the kernel this runs on, (major, minor), from
/// /proc/sys/kernel/osrelease; None when it cannot be read.
pub fn running_kernel() -> Option<(u32, u32)> {
    let r = std::fs::read_to_string("/proc/sys/kernel/osrelease").ok()?;
    let mut it = r.trim().split(['.', '-']);
    Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
}

/// tcp_rmem[2] for a largest receive window of `window` bytes, the
/// scenario's `rcvbuf`. Linux turns buffer memory into window at a
/// ratio: up to 6.4 half of it (tcp_adv_win_scale = 1), so twice the
/// window; since 6.6 the skbs' own, `scaling_ratio` = len * 256 /
/// truesize from tcp_measure_rcv_mss(), which on the TUN path `losslab
/// linux` runs (1448-byte segments in 2304-byte skbs) is 160/256: there a
/// buffer of 2 x rcvbuf offered 1.25 x rcvbuf (Linux 6.18, rcvbuf 16 MB,
/// tcp_rmem[2] 32 MB: 20.0 MB at most in the receiver's ACKs, measured
/// 2026-11-30 from a pcap), so 256/160 x rcvbuf. With another MSS the
/// ratio, and so the largest window, differ a little. An unknown kernel
/// is taken to be current. Since "tcp: get rid of
/// sysctl_tcp_adv_win_scale" (6.6; a distribution may have backported
/// it, which a version cannot tell: health.json records the release and
/// the sysctls set).
pub fn rmem_for_window(window: u64, kernel: Option<(u32, u32)>) -> u64 {
    match kernel {
        Some(k) if k < (6, 6) => window.saturating_mul(2),
        _ => window.saturating_mul(256) / 160,
    }
}

/// Validates the scenario for Linux and derives the settings for the
/// kernel this runs on ([`plan_for`]). Errors are bad input (exit 2) and
/// name the flow and key.
pub fn plan(sc: &Scenario) -> Result<LinuxPlan, String> {
    plan_for(sc, running_kernel())
}

/// [`plan`] for a kernel of release `kernel` (None: unknown, taken to be
/// current).
pub fn plan_for(sc: &Scenario, kernel: Option<(u32, u32)>) -> Result<LinuxPlan, String> {
    let flows = expand_flows(&sc.flows);
    if flows.len() > 100 {
        return Err("more than 100 flows".into());
    }
    let mut cc = Vec::new();
    let mut pace = Vec::new();
    for f in &flows {
        let n = &f.name;
        cc.push(match &f.cc {
            CcSpec::NewReno => "reno".to_string(),
            CcSpec::Named(x) if x == "reno" || x == "newreno" => "reno".into(),
            // cubic-linux and cubic-linux-3 are the simulator's ports of
            // tcp_cubic.c (6.x, 3.x), so the kernel runs its own (the
            // comparison names the 3.x port as a difference).
            CcSpec::Named(x) if x == "cubic" || x == "cubic-linux" || x == "cubic-linux-3" => {
                "cubic".into()
            }
            CcSpec::Named(x) if x == "tcp-rr" => {
                return Err(refuse(
                    n,
                    "cc",
                    "tcp-rr",
                    "Linux has no TCP-RR (the LE paper's simplified variant is simulated only)",
                ))
            }
            CcSpec::Named(x) => x.clone(),
            CcSpec::Fixed(k) => {
                return Err(refuse(
                    n,
                    "cc",
                    &format!("fixed:{k}"),
                    "Linux has no fixed-window congestion control",
                ))
            }
        });
        // Linux BBR always paces (bbr_init() sets SK_PACING_NEEDED); any
        // other controller paces only when asked: a finite
        // SO_MAX_PACING_RATE also sets SK_PACING_NEEDED (sk_setsockopt()),
        // and the rate is then tcp_update_pacing_rate()'s, as ours.
        let self_pacing = cc.last().is_some_and(|c| c == "bbr");
        pace.push(match f.pacing {
            losslab_core::Pacing::Off if self_pacing => {
                return Err(refuse(
                    n,
                    "pacing",
                    "off",
                    "Linux BBR always paces (bbr_init sets SK_PACING_NEEDED); use pacing = \"auto\" or \"rate\"",
                ))
            }
            losslab_core::Pacing::Rate => !self_pacing,
            _ => false,
        });
        // Linux's CUBIC runs its own HyStart (module parameter hystart=1,
        // the default); there is no HyStart++ to ask for.
        if f.hystart == losslab_core::cc::HyStartMode::PlusPlus {
            return Err(refuse(
                n,
                "cubic.hystart",
                "hystart++",
                "Linux has no HyStart++ (RFC 9406); its CUBIC runs Linux's HyStart (hystart = true or \"linux\")",
            ));
        }
        if matches!(f.recovery.as_str(), "reno" | "newreno") {
            // Linux without SACK repairs a hole per partial ACK as NewReno
            // does (tcp_mark_head_lost() in Recovery), but reduces cwnd
            // with PRR and never inflates it; Reno's exit on a partial ACK
            // it has never had.
            return Err(refuse(
                n,
                "recovery",
                &f.recovery,
                "Linux has no RFC 5681 / RFC 6582 window inflation: its recovery without SACK is NewReno's hole-per-partial-ACK with PRR's cwnd (tcp_cwnd_reduction); use recovery = \"prr\" with receiver.sack_blocks = 0",
            ));
        }
        // `prr-linux` is tcp_cwnd_reduction() itself; `prr` (RFC 9937)
        // differs from it only in its divisor (RecoverFS for prior_cwnd)
        // and the reordering-timer entry, and stays accepted as before.
        if !matches!(f.recovery.as_str(), "prr" | "prr-linux") {
            return Err(refuse(
                n,
                "recovery",
                &f.recovery,
                "Linux reduces cwnd in recovery only with PRR (tcp_cwnd_reduction); use recovery = \"prr-linux\" or \"prr\"",
            ));
        }
        match f.detection.as_str() {
            "dupthresh" | "rack" => {}
            "fack" => {
                return Err(refuse(
                    n,
                    "detection",
                    "fack",
                    "FACK was removed from Linux in 4.15 (RACK replaced it)",
                ))
            }
            "early-retransmit" => {
                return Err(refuse(
                    n,
                    "detection",
                    "early-retransmit",
                    "RFC 5827 early retransmit was removed from Linux in 4.18 (RACK replaced it)",
                ))
            }
            other => return Err(refuse(n, "detection", other, "not a Linux loss detector")),
        }
        match f.timers.as_str() {
            "rto" | "tlp" => {}
            "rack-tlp" if f.detection == "rack" => {}
            "rack-tlp" => {
                return Err(refuse(
                    n,
                    "timers",
                    "rack-tlp",
                    "RACK-TLP needs detection = \"rack\"",
                ))
            }
            other => {
                return Err(refuse(
                    n,
                    "timers",
                    other,
                    "Linux has only the RTO and tail loss probes (rto, tlp, rack-tlp)",
                ))
            }
        }
        if f.rto_ssthresh == losslab_core::RtoSsthresh::Rfc5681 {
            return Err(refuse(
                n,
                "rto_ssthresh",
                "rfc5681",
                "Linux keeps the fast recovery's ssthresh on a timeout in recovery (tcp_enter_loss)",
            ));
        }
        if f.recovery_exit == losslab_core::RecoveryExit::Rfc6582 && f.receiver.sack_blocks == 0 {
            return Err(refuse(
                n,
                "recovery_exit",
                "rfc6582",
                "without SACK Linux holds the recovery state until an ACK above the recovery point (tcp_try_undo_recovery); use recovery_exit = \"linux\"",
            ));
        }
        if !f.limited_transmit {
            return Err(refuse(
                n,
                "limited_transmit",
                "false",
                "Linux always sends new data on the first duplicate ACKs (RFC 3042)",
            ));
        }
        if let Some(m) = f.max_cwnd {
            return Err(refuse(
                n,
                "max_cwnd",
                &m.to_string(),
                "Linux's snd_cwnd_clamp is not set per connection here",
            ));
        }
        if f.handshake_rules == losslab_core::HandshakeRules::Rfc {
            return Err(refuse(
                n,
                "handshake_rules",
                "rfc",
                "Linux applies its own rules after a lost SYN",
            ));
        }
        if !f.receiver.linux_delack && f.receiver.ack == AckSpec::Delayed {
            return Err(refuse(
                n,
                "receiver.delack",
                &format!("{}ms", f.receiver.delack_timeout / 1_000_000),
                "Linux's delayed ACK adapts its timeout; use delack = \"linux\" or ack = \"quick\"",
            ));
        }
        if f.timers == "tlp" && !f.tlp_loss_inference {
            return Err(refuse(
                n,
                "tlp.loss_inference",
                "false",
                "Linux has inferred losses from its probes since 3.10 (tcp_process_tlp_ack)",
            ));
        }
        if !f.extensions.is_empty() {
            return Err(refuse(
                n,
                "extensions",
                &f.extensions.join(","),
                "no extension exists in Linux",
            ));
        }
        // lost_retransmission_detection is no refusal: Linux since 4.4 has
        // no tcp_mark_lost_retrans() (RACK finds lost retransmissions), so
        // `false` is the kernel's (profile linux-6) and `--compare` names
        // `true` as a difference (fidelity.rs).
        if !f.dsack_undo {
            return Err(refuse(
                n,
                "dsack_undo",
                "false",
                "Linux always undoes reductions that DSACKs show spurious",
            ));
        }
        if f.receiver.read_rate.is_some() {
            return Err(refuse(
                n,
                "receiver.read_rate",
                "finite",
                "the Linux receiver reads as fast as it can",
            ));
        }
        if f.receiver.read_delay > 0 {
            return Err(refuse(
                n,
                "receiver.read_delay",
                &losslab_sim::units::format_duration(f.receiver.read_delay),
                "the Linux receiver reads as soon as the data is in order",
            ));
        }
        if let Some(m) = f.sndbuf_model.filter(|m| m.wake_delay > 0) {
            return Err(refuse(
                n,
                "sndbuf.wake_delay",
                &losslab_sim::units::format_duration(m.wake_delay),
                "the Linux writer wakes when the kernel schedules it",
            ));
        }
        if let Some(c) = f.receiver.window_clamp {
            // Mapping it would need setsockopt(TCP_WINDOW_CLAMP) on the
            // receiving socket, which the agent does not set.
            return Err(refuse(
                n,
                "receiver.window_clamp",
                &losslab_sim::units::format_size(c),
                "the Linux receiver's window is bounded by tcp_rmem alone here",
            ));
        }
        if matches!(f.receiver.sack_blocks, 1 | 2) {
            return Err(refuse(
                n,
                "receiver.sack_blocks",
                &f.receiver.sack_blocks.to_string(),
                "Linux sends as many SACK blocks as fit (3 beside timestamps); use 0, 3 or 4",
            ));
        }
        if f.delay > 0 {
            return Err(refuse(
                n,
                "delay",
                &format!("{}us", f.delay / 1000),
                "the emulator gives every flow the path's delay; a flow's own delay is simulator-only",
            ));
        }
        if let Some(r) = f.nic_rate {
            return Err(refuse(
                n,
                "nic_rate",
                &losslab_sim::units::format_rate(r),
                "the emulator's veth interfaces have no rate of their own; a host interface rate is simulator-only",
            ));
        }
        if matches!(f.app, AppSpec::Objects { .. }) {
            return Err(refuse(
                n,
                "app",
                "objects",
                "the Linux agents send bulk, bytes and timed writes; request/response objects are simulator-only",
            ));
        }
        if matches!(f.app, AppSpec::Chunks { .. }) {
            return Err(refuse(
                n,
                "app",
                "chunks",
                "the Linux agents send bulk, bytes and timed writes; a chunked file shared by parallel connections is simulator-only",
            ));
        }
        if f.mss < 536 || f.mss > 1900 {
            return Err(refuse(
                n,
                "mss",
                &f.mss.to_string(),
                "the emulator carries segments of 536 to 1900 bytes",
            ));
        }
    }
    let first = &flows[0];
    for f in &flows[1..] {
        for (key, a, b) in [
            ("detection", &first.detection, &f.detection),
            ("timers", &first.timers, &f.timers),
        ] {
            if a != b {
                return Err(format!(
                    "flow {}: {key} = {b:?} differs from flow {}'s {a:?}: on Linux it is a per-namespace sysctl, so all flows must share it",
                    f.name, first.name
                ));
            }
        }
        if f.frto != first.frto {
            return Err(format!(
                "flow {}: frto = {:?} differs from flow {}'s {:?}: on Linux it is a per-namespace sysctl, so all flows must share it",
                f.name,
                f.frto.name(),
                first.name,
                first.frto.name()
            ));
        }
        if f.min_rto != first.min_rto || f.init_cwnd != first.init_cwnd {
            return Err(format!(
                "flow {}: min_rto and init_cwnd must equal flow {}'s: on Linux they are route attributes shared by all flows",
                f.name, first.name
            ));
        }
        if f.slow_start_after_idle != first.slow_start_after_idle {
            return Err(format!(
                "flow {}: slow_start_after_idle must equal flow {}'s: on Linux it is a per-namespace sysctl",
                f.name, first.name
            ));
        }
        if (f.receiver.sack_blocks == 0) != (first.receiver.sack_blocks == 0) {
            return Err(format!("flow {}: receiver.sack_blocks: SACK on or off must be the same for all flows (sysctl tcp_sack)", f.name));
        }
    }
    let sack = first.receiver.sack_blocks > 0;
    let rcvbuf = flows
        .iter()
        .map(|f| f.receiver.rcvbuf)
        .max()
        .unwrap_or(16_000_000);
    let sndbuf = flows
        .iter()
        .map(|f| f.sndbuf.unwrap_or(64 << 20))
        .max()
        .unwrap_or(64 << 20);
    let b = |v: bool| if v { "1" } else { "0" }.to_string();
    let sysctls = vec![
        ("net/ipv4/tcp_sack".into(), b(sack)),
        ("net/ipv4/tcp_dsack".into(), b(sack)),
        ("net/ipv4/tcp_timestamps".into(), "1".into()),
        // Bit 0: RACK loss detection.
        ("net/ipv4/tcp_recovery".into(), b(first.detection == "rack")),
        // 0: no tail loss probe; 3: TLP (Linux has no other early
        // retransmit since 4.18).
        (
            "net/ipv4/tcp_early_retrans".into(),
            if first.timers == "rto" { "0" } else { "3" }.into(),
        ),
        // Every run starts from a blank route cache, as a simulation does.
        ("net/ipv4/tcp_no_metrics_save".into(), "1".into()),
        // F-RTO as the flows ask (`frto = "linux"` is tcp_frto = 2);
        // restart after idle is the flows' `slow_start_after_idle`.
        (
            "net/ipv4/tcp_frto".into(),
            if first.frto == losslab_core::FrtoMode::Off {
                "0"
            } else {
                "2"
            }
            .into(),
        ),
        (
            "net/ipv4/tcp_slow_start_after_idle".into(),
            b(first.slow_start_after_idle),
        ),
        // The buffer whose window is rcvbuf (rmem_for_window()); the
        // default never above the maximum, or a small rcvbuf would start
        // with a larger window.
        {
            let max = rmem_for_window(rcvbuf, kernel).min(i32::MAX as u64);
            (
                "net/ipv4/tcp_rmem".into(),
                format!("4096 {} {max}", max.min(131_072)),
            )
        },
        (
            "net/ipv4/tcp_wmem".into(),
            format!("4096 16384 {}", sndbuf.min(i32::MAX as u64)),
        ),
    ];
    let mut route = Vec::new();
    if first.min_rto != 200 * MS {
        route.push(format!("rto_min {}us", first.min_rto / 1000));
    }
    if first.init_cwnd != 10 {
        route.push(format!("initcwnd {}", first.init_cwnd));
    }
    Ok(LinuxPlan {
        flows,
        cc,
        sysctls,
        route,
        pace,
    })
}

/// Congestion controllers this kernel offers.
pub fn available_cc() -> Vec<String> {
    std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control")
        .unwrap_or_default()
        .split_whitespace()
        .map(String::from)
        .collect()
}

#[derive(Clone, Debug, Default)]
pub struct LinuxOptions {
    pub csv: Option<PathBuf>,
    pub pcap_dir: Option<PathBuf>,
    pub spin_ns: Option<u64>,
    /// Emulator threads (1 or 2); None = the emulator's default.
    pub threads: Option<usize>,
    /// TCP_INFO sampling period.
    pub sample_ns: u64,
}

pub struct LinuxOutcome {
    pub results: RunResults,
    pub emulator: EmuReport,
    /// timeseries.csv rows (header excluded), in time order.
    pub timeseries: Vec<String>,
    /// Netstat counters of namespace A that changed: (name, delta).
    pub counters: Vec<(String, u64)>,
    pub notes: Vec<String>,
    /// TCP_INFO samples per flow: (flow, nanoseconds since the emulator
    /// started, as emulator.csv's time_s; data bytes acked, the
    /// cumulative ACK point from 0; cwnd in segments),
    /// in time order within a flow.
    pub state_samples: Vec<(String, u64, u64, u64)>,
}

pub const TIMESERIES_HEADER: &str =
    "time_s,flow,cwnd,ssthresh,pipe,inflight,srtt_ms,rto_ms,snd_una,snd_nxt,pacing_mbps";

fn counters_map(v: Vec<(String, u64)>) -> HashMap<String, u64> {
    v.into_iter().collect()
}

/// Runs every flow of `sc` through Linux TCP across the emulator.
pub fn run(sc: &Scenario, opts: &LinuxOptions) -> Result<LinuxOutcome, EmuError> {
    let p = plan(sc).map_err(EmuError::BadInput)?;
    let avail = available_cc();
    for (f, c) in p.flows.iter().zip(&p.cc) {
        if !avail.contains(c) {
            return Err(EmuError::Runtime(format!(
                "flow {}: congestion control {c:?} is not available in this kernel (tcp_available_congestion_control: {})",
                f.name,
                avail.join(" ")
            )));
        }
    }
    let mut cfg = EmuConfig::new(sc.clone());
    cfg.flow_map = FlowMap::BPorts {
        base: BASE_PORT,
        n: p.flows.len() as u16,
    };
    cfg.csv = opts.csv.clone();
    cfg.pcap_dir = opts.pcap_dir.clone();
    if let Some(s) = opts.spin_ns {
        cfg.spin_ns = s;
    }
    if let Some(t) = opts.threads {
        cfg.threads = t;
    }
    let emu = Emulator::start(cfg)?;
    let emu_t0 = emu.t0();
    let rt = |what: &str, e: io::Error| EmuError::Runtime(format!("{what}: {e}"));
    for h in [Host::A, Host::B] {
        for (k, v) in &p.sysctls {
            emu.in_ns(h, || netns::write_sysctl(k, v))
                .map_err(|e| rt("cannot enter the namespace", e))?
                .map_err(|e| rt("sysctl", e))?;
        }
    }
    if !p.route.is_empty() {
        let mut args: Vec<String> = ["-n", emu.ns_name(Host::A), "route", "replace"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        args.push(format!("{}/32", netns::addr_str(ADDR_B)));
        args.extend(["dev".into(), emu.dev_name(Host::A).to_string()]);
        args.extend(["src".into(), netns::addr_str(netns::ADDR_A)]);
        for r in &p.route {
            args.extend(r.split_whitespace().map(String::from));
        }
        let a: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
        netns::ip(&a).map_err(|e| rt("route attributes", e))?;
    }
    let before = emu
        .in_ns(Host::A, netns::net_counters)
        .map_err(|e| rt("netstat", e))?
        .map_err(|e| rt("netstat", e))?;

    // Time 0 of the run: every flow's start is an offset from it, and a
    // link trace plays from it.
    let t0 = now_ns() + 20 * MS;
    emu.set_time_origin(t0);
    let end = t0 + sc.duration;
    let mut handles = Vec::new();
    for (i, (f, cc)) in p.flows.iter().zip(&p.cc).enumerate() {
        let pace = p.pace[i];
        let port = BASE_PORT + i as u16;
        let dst = SocketAddrV4::new(ADDR_B.into(), port);
        let rx = emu
            .in_ns(Host::B, || agent::Receiver::bind(dst))
            .map_err(|e| rt("cannot enter namespace B", e))?
            .map_err(|e| rt("receiver bind", e))?;
        let start_ns = t0 + f.start;
        let plan = match &f.app {
            AppSpec::Bulk => Plan::Bulk { until_ns: end },
            AppSpec::Bytes(n) => Plan::Bytes(*n),
            AppSpec::Writes(w) => Plan::Writes(w.clone()),
            AppSpec::Objects { .. } => {
                return Err(EmuError::BadInput(format!(
                    "flow {}: app = objects is simulator-only",
                    f.name
                )))
            }
            AppSpec::Chunks { .. } => {
                return Err(EmuError::BadInput(format!(
                    "flow {}: app = chunks is simulator-only",
                    f.name
                )))
            }
        };
        let quick = f.receiver.ack == AckSpec::Quick;
        let recv = emu
            .spawn_in(Host::B, move || rx.run(quick, end, end + 2 * SEC))
            .map_err(|e| rt("receiver thread", e))?;
        let opts_s = SendOpts {
            dst,
            cc: cc.clone(),
            maxseg: Some(f.mss + 12),
            plan,
            start_ns,
            deadline_ns: end,
            sample_ns: opts.sample_ns,
            pace,
        };
        let send = emu
            .spawn_in(Host::A, move || agent::send(&opts_s))
            .map_err(|e| rt("sender thread", e))?;
        handles.push((send, recv));
    }
    let mut outcomes: Vec<(io::Result<SendResult>, io::Result<RecvResult>)> = Vec::new();
    for (s, r) in handles {
        let s = s.join().expect("sender panicked").and_then(|x| x);
        let r = r.join().expect("receiver panicked").and_then(|x| x);
        outcomes.push((s, r));
    }
    let run_end = now_ns();
    let after = emu
        .in_ns(Host::A, netns::net_counters)
        .map_err(|e| rt("netstat", e))?
        .map_err(|e| rt("netstat", e))?;
    let report = emu.stop()?;
    let before = counters_map(before);
    let mut counters: Vec<(String, u64)> = after
        .into_iter()
        .filter_map(|(k, v)| {
            let d = v.saturating_sub(*before.get(&k).unwrap_or(&0));
            (d > 0 && k.starts_with("TcpExt.")).then_some((k, d))
        })
        .collect();
    counters.sort();
    let c = counters_map(counters.clone());
    let get = |k: &str| *c.get(&format!("TcpExt.{k}")).unwrap_or(&0);
    let single = p.flows.len() == 1;
    let mut notes = Vec::new();
    if !single {
        notes.push(
            "several flows share namespace A: fast recoveries, tail probes, lost retransmissions and undos (kernel-wide counters) are reported as 0 per flow; see the counters".into(),
        );
    }

    let mut flows = Vec::new();
    let mut ts_rows: Vec<(u64, String)> = Vec::new();
    let mut state_samples = Vec::new();
    for ((f, cc), (s, r)) in p.flows.iter().zip(&p.cc).zip(outcomes) {
        let s = s.map_err(|e| EmuError::Runtime(format!("flow {}: sender: {e}", f.name)))?;
        let r = r.map_err(|e| EmuError::Runtime(format!("flow {}: receiver: {e}", f.name)))?;
        let start = s.connected_ns.max(t0 + f.start);
        let sized = !matches!(f.app, AppSpec::Bulk);
        let fct = if sized && s.complete && r.eof {
            r.last_byte_ns.map(|t| t.saturating_sub(start))
        } else {
            None
        };
        let delivered = if sized { r.bytes } else { r.bytes_counted };
        let elapsed = fct.unwrap_or(end.min(run_end).saturating_sub(start));
        let goodput = if elapsed > 0 {
            delivered as f64 * 8.0 / (elapsed as f64 / SEC as f64)
        } else {
            0.0
        };
        let mut rtts: Vec<u32> = s
            .samples
            .iter()
            .map(|x| x.info.rtt_us)
            .filter(|&x| x > 0)
            .collect();
        rtts.sort_unstable();
        let mean = (!rtts.is_empty())
            .then(|| rtts.iter().map(|&x| x as f64).sum::<f64>() / rtts.len() as f64 / 1000.0);
        let p99 = (!rtts.is_empty()).then(|| {
            rtts[((rtts.len() as f64 * 0.99).ceil() as usize).clamp(1, rtts.len()) - 1] as f64
                / 1000.0
        });
        let l = &s.last;
        let timeouts = match l.total_rto {
            Some(n) => n as u64,
            None if single => get("TCPTimeouts"),
            None => 0,
        };
        let one = |k: &str| if single { get(k) } else { 0 };
        flows.push(FlowResults {
            name: f.name.clone(),
            profile: f.profile.clone(),
            cc: format!("{} (linux {cc})", f.cc.name()),
            recovery: f.recovery.clone(),
            detection: f.detection.clone(),
            timers: f.timers.clone(),
            start_s: f.start as f64 / SEC as f64,
            bytes_delivered: delivered,
            goodput_bps: goodput,
            fct_s: fct.map(|t| t as f64 / SEC as f64),
            segments_sent: l.data_segs_out as u64,
            acks_sent: r.last.segs_out as u64,
            retransmissions: l.total_retrans as u64,
            spurious_retransmissions: l.dsack_dups as u64,
            // The split needs both ends' state at each retransmission.
            spurious_after_ack_loss: 0,
            retransmissions_of_discarded: 0,
            spurious_unreported: 0,
            timeouts,
            fast_recoveries: one("TCPSackRecovery") + one("TCPRenoRecovery"),
            objects: Vec::new(),
            tail_probes: one("TCPLossProbes"),
            max_retransmissions_of_one_segment: 0,
            dsacks_received: l.dsack_dups as u64,
            lost_retransmissions: one("TCPLostRetransmit"),
            undos: one("TCPFullUndo")
                + one("TCPPartialUndo")
                + one("TCPDSACKUndo")
                + one("TCPLossUndo"),
            reordering_events: l.reord_seen as u64,
            // Linux has no RFC 6675 rescue retransmission.
            rescue_retransmissions: 0,
            // The agents connect before the measurement starts.
            handshake_s: Some(0.0),
            syn_retransmissions: 0,
            spurious_rtos: one("TCPSpuriousRTOs"),
            beyond_window_segments: 0,
            redundant_copies: 0,
            redundant_duplicates: 0,
            segments_by_retransmissions: Vec::new(),
            rcvbuf_starvation_s: None,
            app_stall_s: None,
            app_stall_share: None,
            rtt_ms: RttResults {
                min: (l.min_rtt_us > 0).then_some(l.min_rtt_us as f64 / 1000.0),
                mean,
                p99,
            },
            recoveries: Vec::new(),
            recoveries_omitted: 0,
            // Not observed from outside the kernel, like `recoveries`.
            receiver_out_of_window_drops: 0,
            receiver_discards: None,
            max_rcvbuf_occupancy_bytes: 0,
            mean_rcvbuf_occupancy_bytes: None,
            rbb: Default::default(),
            recovery_periods: Vec::new(),
            recovery_periods_omitted: 0,
            recovery_period_utilization: None,
            link_idle_in_recovery_s: 0.0,
        });
        for x in &s.samples {
            let i = &x.info;
            state_samples.push((
                f.name.clone(),
                x.t_ns.saturating_sub(emu_t0),
                // tcpi_bytes_acked counts the SYN's sequence number too.
                i.bytes_acked.saturating_sub(1),
                u64::from(i.cwnd),
            ));
            let mut row = String::new();
            let ssthresh = if i.ssthresh >= 0x7fff_ffff {
                String::new()
            } else {
                i.ssthresh.to_string()
            };
            let una = i.bytes_acked;
            let _ = write!(
                row,
                "{:.6},{},{},{},{},{},{:.3},{:.3},{},{},{:.3}",
                x.t_ns.saturating_sub(t0) as f64 / 1e9,
                f.name,
                i.cwnd,
                ssthresh,
                i.pipe(),
                i.unacked,
                i.rtt_us as f64 / 1000.0,
                i.rto_us as f64 / 1000.0,
                una,
                una + i.unacked as u64 * i.snd_mss as u64,
                i.pacing_rate as f64 * 8.0 / 1e6
            );
            ts_rows.push((x.t_ns, row));
        }
    }
    ts_rows.sort_by_key(|r| r.0);
    let ab = &report.ab;
    let active = report
        .ab
        .first_in_s
        .zip(report.ab.last_out_s)
        .map_or(0.0, |(a, b)| (b - a).max(0.0));
    let results = RunResults {
        scenario: sc.name.clone(),
        seed: sc.seed,
        sim_time_s: run_end.saturating_sub(t0) as f64 / 1e9,
        wall_time_s: run_end.saturating_sub(t0) as f64 / 1e9,
        events: report.ab.packets_in + report.ba.packets_in,
        interrupted: crate::sys::stop_signal() != 0,
        path: PathResults {
            utilization: if active > 0.0 {
                ab.bytes_delivered as f64 * 8.0 / (sc.path.rate as f64 * active)
            } else {
                0.0
            },
            drops: ab.queue_drops + ab.loss_drops,
            queue_drops: ab.queue_drops,
            loss_drops: ab.loss_drops,
            ack_drops: report.ba.loss_drops + report.ba.queue_drops,
            max_queue_bytes: ab.max_queue_bytes,
            config: losslab_sim::results::PathConfig::of(sc),
        },
        flows,
        files: Vec::new(),
    };
    Ok(LinuxOutcome {
        results,
        emulator: report,
        timeseries: ts_rows.into_iter().map(|r| r.1).collect(),
        counters,
        notes,
        state_samples,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use losslab_sim::parse::parse_scenario;

    fn sc(flow: &str) -> Scenario {
        parse_scenario(
            "t.toml",
            &format!(
                "[path]\nrate = \"10Mbps\"\ndelay = \"10ms\"\n[[flow]]\nname = \"a\"\n{flow}\n"
            ),
            &[],
        )
        .unwrap()
    }

    /// The profile of the kernel here plans as it is: `losslab linux` on
    /// examples/fidelity.toml (profile = "linux-6") was refused from
    /// 2026-11-29, when the profile turned lost_retransmission_detection
    /// off, until issue 34's session.
    #[test]
    fn the_linux_6_profile_plans() {
        let p = plan(&sc("profile = \"linux-6\"")).unwrap();
        assert_eq!(p.cc, vec!["cubic"]);
        let p = plan(&sc("profile = \"linux-6\"\ncc = \"bbr\"")).unwrap();
        assert_eq!(p.cc, vec!["bbr"]);
    }

    #[test]
    fn pacing_maps_onto_linux() {
        // BBR paces by itself; "off" cannot be had on Linux.
        assert_eq!(plan(&sc("cc = \"bbr\"")).unwrap().pace, vec![false]);
        assert_eq!(
            plan(&sc("cc = \"bbr\"\npacing = \"rate\"")).unwrap().pace,
            vec![false]
        );
        let e = plan(&sc("cc = \"bbr\"\npacing = \"off\"")).unwrap_err();
        assert!(
            e.contains("flow a: pacing = \"off\"") && e.contains("always paces"),
            "{e}"
        );
        // Other controllers pace through SO_MAX_PACING_RATE when asked.
        assert_eq!(
            plan(&sc("cc = \"cubic\"\npacing = \"rate\"")).unwrap().pace,
            vec![true]
        );
        assert_eq!(plan(&sc("cc = \"cubic\"")).unwrap().pace, vec![false]);
    }

    #[test]
    fn prr_linux_is_what_linux_runs() {
        // tcp_cwnd_reduction() is the only reduction Linux has: both PRR
        // names plan, and the plan is the same kernel either way.
        let linux = plan(&sc("recovery = \"prr-linux\"")).unwrap();
        let rfc = plan(&sc("recovery = \"prr\"")).unwrap();
        assert_eq!(linux.sysctls, rfc.sysctls);
        assert_eq!(linux.cc, rfc.cc);
    }

    #[test]
    fn defaults_map_to_reno_with_prr_dupthresh_and_no_tlp() {
        let p = plan(&sc("")).unwrap();
        assert_eq!(p.cc, vec!["reno"]);
        let get = |k: &str| p.sysctls.iter().find(|x| x.0 == k).unwrap().1.clone();
        assert_eq!(get("net/ipv4/tcp_recovery"), "0");
        assert_eq!(get("net/ipv4/tcp_early_retrans"), "0");
        assert_eq!(get("net/ipv4/tcp_sack"), "1");
        // 6.6+: the 16 MB window at the TUN path's scaling ratio; before,
        // twice the window (6.5 still had tcp_adv_win_scale).
        let rmem = |k| {
            let p = plan_for(&sc(""), k).unwrap();
            p.sysctls
                .iter()
                .find(|x| x.0 == "net/ipv4/tcp_rmem")
                .unwrap()
                .1
                .clone()
        };
        assert_eq!(rmem(Some((6, 18))), "4096 131072 25600000");
        assert_eq!(rmem(Some((6, 6))), "4096 131072 25600000");
        assert_eq!(rmem(None), "4096 131072 25600000");
        assert_eq!(rmem(Some((6, 5))), "4096 131072 32000000");
        assert_eq!(rmem(Some((4, 19))), "4096 131072 32000000");
        // A buffer below tcp_rmem[1]: the default is the maximum.
        let small = plan_for(&sc("receiver = { rcvbuf = \"40000B\" }"), Some((6, 18))).unwrap();
        let get_small = |k: &str| small.sysctls.iter().find(|x| x.0 == k).unwrap().1.clone();
        assert_eq!(get_small("net/ipv4/tcp_rmem"), "4096 64000 64000");
        assert!(p.route.is_empty());
    }

    #[test]
    fn cubic_linux_runs_the_kernel_s_cubic() {
        let p = plan(&sc("cc = \"cubic-linux\"")).unwrap();
        assert_eq!(p.cc, vec!["cubic"]);
        let p = plan(&sc("cc = \"cubic-linux-3\"")).unwrap();
        assert_eq!(p.cc, vec!["cubic"]);
    }

    #[test]
    fn rack_tlp_and_route_attributes() {
        let p = plan(&sc("cc = \"cubic\"\ndetection = \"rack\"\ntimers = \"rack-tlp\"\nmin_rto = \"50ms\"\ninit_cwnd = 4")).unwrap();
        assert_eq!(p.cc, vec!["cubic"]);
        assert!(p
            .sysctls
            .contains(&("net/ipv4/tcp_recovery".into(), "1".into())));
        assert!(p
            .sysctls
            .contains(&("net/ipv4/tcp_early_retrans".into(), "3".into())));
        assert_eq!(p.route, vec!["rto_min 50000us", "initcwnd 4"]);
    }

    #[test]
    fn what_linux_cannot_express_is_refused_by_name() {
        for (flow, key) in [
            ("recovery = \"rate-halving\"", "recovery"),
            ("recovery = \"rfc6675\"", "recovery"),
            ("recovery = \"prr-6937\"", "recovery"),
            ("recovery = \"reno\"", "recovery"),
            (
                "recovery = \"newreno\"\n[flow.newreno]\nvariant = \"impatient\"",
                "recovery",
            ),
            ("detection = \"fack\"", "detection"),
            ("detection = \"early-retransmit\"", "detection"),
            ("timers = \"rtor\"", "timers"),
            ("timers = \"tlpr\"", "timers"),
            ("timers = \"rack-tlp\"", "timers"),
            ("cc = \"fixed:10\"", "cc"),
            ("cc = \"tcp-rr\"", "cc"),
            (
                "cc = \"cubic\"\n[flow.cubic]\nhystart = \"hystart++\"",
                "cubic.hystart",
            ),
            ("dsack_undo = false", "dsack_undo"),
            (
                "timers = \"tlp\"\n[flow.tlp]\nloss_inference = false",
                "tlp.loss_inference",
            ),
            ("profile = \"rfc\"", "recovery"),
            ("delay = \"10ms\"", "delay"),
            ("app = { kind = \"objects\", sizes = [\"10kB\"] }", "app"),
            (
                "app = { kind = \"chunks\", file = \"10MB\", chunk = \"1MB\" }",
                "app",
            ),
            (
                "receiver = { sack_blocks = 0 }\nrecovery_exit = \"rfc6582\"",
                "recovery_exit",
            ),
        ] {
            let e = plan(&sc(flow)).unwrap_err();
            assert!(e.contains("flow a") && e.contains(key), "{flow}: {e}");
        }
    }

    #[test]
    fn a_receiver_read_delay_is_refused() {
        let e = plan(&sc("receiver = { read_delay = \"5ms\" }")).unwrap_err();
        assert!(e.contains("flow a: receiver.read_delay = \"5ms\""), "{e}");
        assert!(plan(&sc("receiver = { read_delay = \"0ms\" }")).is_ok());
    }

    #[test]
    fn a_sndbuf_wake_delay_is_refused() {
        let e = plan(&sc("sndbuf = { model = \"linux\", wake_delay = \"1ms\" }")).unwrap_err();
        assert!(e.contains("flow a: sndbuf.wake_delay = \"1ms\""), "{e}");
        assert!(plan(&sc("sndbuf = { model = \"linux\", wake_delay = \"0ms\" }")).is_ok());
    }

    #[test]
    fn a_receiver_window_clamp_is_refused() {
        let e = plan(&sc("receiver = { window_clamp = \"64kB\" }")).unwrap_err();
        assert!(
            e.contains("flow a: receiver.window_clamp = \"64kB\""),
            "{e}"
        );
        assert!(plan(&sc("receiver = { window_clamp = \"none\" }")).is_ok());
    }

    #[test]
    fn per_namespace_settings_must_agree_across_flows() {
        let s = parse_scenario(
            "t.toml",
            "[path]\nrate = \"10Mbps\"\ndelay = \"10ms\"\n[[flow]]\nname = \"a\"\n[[flow]]\nname = \"b\"\ndetection = \"rack\"\n",
            &[],
        )
        .unwrap();
        let e = plan(&s).unwrap_err();
        assert!(e.contains("flow b") && e.contains("detection"), "{e}");
    }
}
