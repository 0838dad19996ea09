//! losslab-drill: runs packetdrill scripts (the subset about one TCP
//! sender) against losslab-core's `Sender`, configured like Linux
//! (`profile = "linux-6"` unless told otherwise), so Linux's own
//! conformance scripts check the engine.
//!
//! The script plays the peer: its `<` packets become ACKs handed to
//! `Sender::on_ack`, its `>` lines are compared with what `poll_transmit`
//! returns, at the script's times within a tolerance (packetdrill's
//! default, 4 ms). What the engine does not model is reported as such,
//! never passed silently:
//! - FIN, RST and data from the peer (the engine is a data sender): a
//!   script stops at its `close`/`shutdown` (the verdict says so), and a
//!   peer segment with payload is "unsupported";
//! - pure ACKs the sender would send (the last ACK of an active
//!   handshake): skipped and listed in the notes;
//! - PSH (`P.` and `.` match the same segment), the ACK number, window
//!   and options of outbound packets (the engine's segments carry none);
//! - TSO: one expected `>` range may be several engine segments sent at
//!   the same instant, as packetdrill sees one TSO burst;
//! - a local qdisc set with `tc` (e.g. one that drops the sender's
//!   packets): the engine's sender has none, so the script is
//!   "unsupported" there.
//!
//! Outbound packets are read only at `>` lines, as packetdrill does
//! (run_script() in run.c): what the engine sent before a line that is not
//! a `>` waits for the next `>`, which checks its content and time, and
//! what is sent after the last `>` is not checked (the notes say what it
//! was). A zero-length `>` one byte below snd.una is a zero-window probe,
//! which the engine sends as Linux does; other zero-length `>` lines are
//! pure ACKs of a receive side the engine lacks, skipped.
//!
//! Timestamps: the engine measures RTT only from echoed timestamps, so the
//! interpreter echoes, in each inbound ACK, the send time of the newest
//! transmission that ACK covers, which is what Linux's ACK-timing sample
//! measures (tcp_clean_rtx_queue()).
//!
//! Scripts are untrusted input (`losslab drill DIR` runs whatever it
//! finds): a script packetdrill would refuse is a `DrillError` naming its
//! line, never a panic, and no script makes the interpreter's memory or
//! time grow with the times it is written with. Time gaps are capped at
//! Linux's give-up time (`script::MAX_GAP_US`), and one run drives the
//! engine through at most `MAX_ENGINE_STEPS` timer firings and segments.
//! `check_script` is the entry point a fuzzer calls.

pub mod script;

use std::collections::{BTreeMap, VecDeque};

use losslab_core::app::App;
use losslab_core::time::Time;
use losslab_core::wire::{Ack, Range, SackBlocks, Segment};
use losslab_core::{Handshake, Sender};
use losslab_sim::scenario::FlowSpec;
use script::{Action, Event, Packet, TcpOption, When};

/// A script that is not packetdrill (or that the caller configured
/// wrongly): where and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DrillError {
    /// The script's name or path, as the caller gave it.
    pub file: String,
    /// 1-based; 0 when the error is about the run, not a line (a bad
    /// `Config`).
    pub line: usize,
    /// 1-based, in characters.
    pub column: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for DrillError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.file)?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
            if let Some(c) = self.column {
                write!(f, ":{c}")?;
            }
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for DrillError {}

/// The most engine steps (timer firings plus segments sent) one script may
/// cause. No script of tests/packetdrill or of google/packetdrill's
/// gtests/net takes more than 160; the cap bounds a hostile script's time
/// and memory (a queue of segments no `>` line reads, a window opened to
/// 1 GB with MSS 36) whatever its gaps, windows and writes. A script that
/// reaches it stops there, `unsupported`.
pub const MAX_ENGINE_STEPS: u64 = 200_000;

/// How a script fared.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(tag = "result", rename_all = "lowercase")]
pub enum Verdict {
    Pass,
    Fail { line: usize, message: String },
    Unsupported { line: usize, what: String },
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Report {
    pub verdict: Verdict,
    /// What was applied, skipped or approximated, in order.
    pub notes: Vec<String>,
    /// Engine timer firings plus segments sent (at most
    /// `MAX_ENGINE_STEPS`).
    pub engine_steps: u64,
}

#[derive(Clone, Debug)]
pub struct Config {
    /// packetdrill's --tolerance_usecs.
    pub tolerance_us: i64,
    /// A losslab-sim profile name (profile.rs).
    pub profile: String,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            tolerance_us: 4_000,
            profile: "linux-6".into(),
        }
    }
}

const US: Time = 1_000;
/// Linux's TCP_INFINITE_SSTHRESH as tcp_info shows it.
const INFINITE_SSTHRESH: u64 = 0x7fff_ffff;

struct Run {
    cfg: Config,
    spec: FlowSpec,
    notes: Vec<String>,
    /// The script's first inbound SYN-ACK, for a `connect`.
    upcoming_syn_ack: Option<Packet>,
    /// The peer's SYN options were applied already.
    peer_known: bool,
    /// Names a script's python defines (`X = 0x7fffffff`).
    constants: BTreeMap<String, i64>,
    sender: Option<Sender>,
    /// Outbound segments the engine emitted, with their times (µs), not
    /// yet matched by a `>` line.
    out: VecDeque<(i64, Segment)>,
    now: i64,
    sack: bool,
    timestamps: bool,
    peer_wscale: u8,
    /// Engine end sequence of each segment -> TSval of its latest
    /// transmission, for echoing.
    sent_ts: BTreeMap<u64, Time>,
    syn_ts: Time,
    /// Engine steps so far (`MAX_ENGINE_STEPS`).
    steps: u64,
}

fn fail(line: usize, message: impl Into<String>) -> Verdict {
    Verdict::Fail {
        line,
        message: message.into(),
    }
}

fn unsupported(line: usize, what: impl Into<String>) -> Verdict {
    Verdict::Unsupported {
        line,
        what: what.into(),
    }
}

/// Parses the script `bytes` (named `name` in errors) and, if it is
/// packetdrill, runs it against the engine with the default `Config`
/// (Linux 6, packetdrill's tolerance), with bounded work: the entry point
/// for fuzzing. Never panics.
pub fn check_script(name: &str, bytes: &[u8]) -> Result<Report, DrillError> {
    run_script(name, bytes, &Config::default())
}

/// Runs one script; `name` names it in errors.
pub fn run_script(name: &str, bytes: &[u8], cfg: &Config) -> Result<Report, DrillError> {
    let error = |line, column, message| DrillError {
        file: name.to_string(),
        line,
        column,
        message,
    };
    if !(0..=script::MAX_TOLERANCE_US).contains(&cfg.tolerance_us) {
        return Err(error(
            0,
            None,
            format!(
                "tolerance {} us: expected 0 to {} us",
                cfg.tolerance_us,
                script::MAX_TOLERANCE_US
            ),
        ));
    }
    let mut spec = FlowSpec::new("drill");
    if !losslab_sim::profile::apply(&cfg.profile, &mut spec) {
        return Err(error(0, None, format!("unknown profile {:?}", cfg.profile)));
    }
    let events = script::parse_bytes(bytes).map_err(|e| error(e.line, e.column, e.message))?;
    let mut r = Run {
        cfg: cfg.clone(),
        spec,
        notes: Vec::new(),
        constants: BTreeMap::new(),
        upcoming_syn_ack: events.iter().find_map(|e| match &e.action {
            Action::Inbound(p) if p.syn() && p.flags.contains('.') => Some(p.clone()),
            _ => None,
        }),
        peer_known: false,
        sender: None,
        out: VecDeque::new(),
        now: 0,
        sack: true,
        timestamps: true,
        peer_wscale: 0,
        sent_ts: BTreeMap::new(),
        syn_ts: 0,
        steps: 0,
    };
    // The engine is a TCP sender: a script without packets (system calls
    // alone) has nothing it can check, so it never passes.
    let has_packets = events
        .iter()
        .any(|e| matches!(e.action, Action::Inbound(_) | Action::Outbound(_)));
    let verdict = if has_packets {
        r.events(&events)
    } else {
        unsupported(
            events[0].line,
            "a script without packets (system calls only): nothing the engine models",
        )
    };
    Ok(Report {
        verdict,
        notes: r.notes,
        engine_steps: r.steps,
    })
}

impl Run {
    fn events(&mut self, events: &[Event]) -> Verdict {
        for (k, e) in events.iter().enumerate() {
            // The parser bounds every time and gap (script::MAX_TIME_US,
            // MAX_GAP_US) and the tolerance, so none of this can overflow.
            let t = match e.when {
                When::At(t) => t,
                When::After(d) => self.now + d,
                When::Range { to, relative, .. } => {
                    if relative {
                        self.now + to
                    } else {
                        to
                    }
                }
                When::Any => self.now,
            };
            let t = t.max(self.now);
            // The window an expected packet may leave in, from the previous
            // event's time (packetdrill's relative ranges and tolerance).
            let tol = self.cfg.tolerance_us;
            let window = match e.when {
                When::Range { from, to, relative } => {
                    let base = if relative { self.now } else { 0 };
                    (base + from - tol, base + to + tol)
                }
                When::Any => (i64::MIN, i64::MAX),
                _ => (t - tol, t + tol),
            };
            // Packets the engine sent before a line that is not a `>` wait
            // for the next `>`, which checks their content and time: real
            // packetdrill reads outbound packets only at `>` lines
            // (run_script() in run.c), so one sent at the instant of an
            // assert that precedes its `>` line is no error.
            if !matches!(e.action, Action::Outbound(_)) {
                self.advance(t);
            }
            self.now = t;
            let res = match &e.action {
                Action::Shell(cmd) => self.shell(e.line, cmd),
                Action::Syscall { name, args, ret } => {
                    match self.syscall(e.line, name, args, ret) {
                        Ok(true) => Ok(()),
                        Ok(false) => {
                            self.notes.push(format!(
                                "line {}: {name}(): the engine models no FIN; the script ends here",
                                e.line
                            ));
                            return self.finish(&events[k + 1..]);
                        }
                        Err(v) => Err(v),
                    }
                }
                Action::Inbound(p) => self.inbound(e.line, p),
                Action::Outbound(p) => self.outbound(e.line, p, window),
                Action::Python(lines) => self.python(e.line, lines),
                Action::Option { name, value } => self.option(e.line, name, value),
                Action::Unsupported(what) => Err(unsupported(e.line, what.clone())),
            };
            if let Err(v) = res {
                return v;
            }
            if self.steps >= MAX_ENGINE_STEPS {
                return self.over_budget(e.line);
            }
        }
        // packetdrill ignores what is sent after the last `>` line; so do
        // we, but the notes say what it was.
        self.advance(self.now + self.cfg.tolerance_us);
        if self.steps >= MAX_ENGINE_STEPS {
            return self.over_budget(events.last().map_or(0, |e| e.line));
        }
        if let Some((at, seg)) = self.out.front() {
            self.notes.push(format!(
                "after the last line the engine sent {} at {:.6} s (packetdrill does not check this)",
                describe(seg),
                *at as f64 / 1e6
            ));
        }
        Verdict::Pass
    }

    /// After a `close`: nothing to check, but the remaining lines are
    /// only FIN handling.
    fn finish(&mut self, rest: &[Event]) -> Verdict {
        let _ = rest;
        Verdict::Pass
    }

    fn over_budget(&self, line: usize) -> Verdict {
        unsupported(
            line,
            format!(
                "the script drives the engine through more than {MAX_ENGINE_STEPS} timer \
                 firings and segments; the interpreter stops there"
            ),
        )
    }

    fn engine_time(t: i64) -> Time {
        (t.max(0) as Time).saturating_mul(US)
    }

    /// Runs the engine's timers up to `t` (µs), collecting what it sends.
    /// The engine is stepped from timer to timer, so the work is the
    /// number of timers that fire, not the length of the gap; the
    /// parser's gap cap and `MAX_ENGINE_STEPS` bound that number.
    fn advance(&mut self, t: i64) {
        let Some(s) = self.sender.as_mut() else {
            return;
        };
        while let Some(d) = s.poll_timeout() {
            if d > Self::engine_time(t) || self.steps >= MAX_ENGINE_STEPS {
                break;
            }
            s.on_timeout(d);
            self.steps += 1;
            let at = (d / US) as i64;
            Self::drain(s, at, &mut self.out, &mut self.sent_ts, &mut self.steps);
        }
    }

    fn drain(
        s: &mut Sender,
        at: i64,
        out: &mut VecDeque<(i64, Segment)>,
        sent_ts: &mut BTreeMap<u64, Time>,
        steps: &mut u64,
    ) {
        while *steps < MAX_ENGINE_STEPS {
            let Some(seg) = s.poll_transmit(Self::engine_time(at)) else {
                break;
            };
            *steps += 1;
            if !seg.syn {
                sent_ts.insert(seg.end(), seg.ts_val);
            }
            out.push_back((at, seg));
        }
    }

    fn pump(&mut self) {
        let at = self.now;
        if let Some(s) = self.sender.as_mut() {
            Self::drain(s, at, &mut self.out, &mut self.sent_ts, &mut self.steps);
        }
    }

    fn option(&mut self, line: usize, name: &str, value: &str) -> Result<(), Verdict> {
        match name {
            "tolerance_usecs" => {
                // The parser took only 0..=MAX_TOLERANCE_US.
                self.cfg.tolerance_us = value
                    .parse()
                    .ok()
                    .filter(|t| (0..=script::MAX_TOLERANCE_US).contains(t))
                    .ok_or_else(|| fail(line, format!("bad --tolerance_usecs {value:?}")))?;
                self.notes.push(format!("tolerance {value} us"));
                Ok(())
            }
            other => {
                self.notes.push(format!("option --{other} ignored"));
                Ok(())
            }
        }
    }

    fn shell(&mut self, line: usize, cmd: &str) -> Result<(), Verdict> {
        for part in cmd.split([';', '&', '\n']) {
            let p = part.trim();
            if p.is_empty() {
                continue;
            }
            // set_sysctls.py /proc/sys/net/ipv4/X=V ... is sysctl -q X=V.
            let converted;
            let p = if p.contains("set_sysctls.py") {
                converted = format!(
                    "sysctl {}",
                    p.split_whitespace()
                        .skip(1)
                        .map(|kv| kv.trim_start_matches("/proc/sys/").replace('/', "."))
                        .collect::<Vec<_>>()
                        .join(" ")
                );
                converted.as_str()
            } else {
                p
            };
            if p.ends_with("defaults.sh") {
                // packetdrill's gtests/net/common/defaults.sh: the profile's
                // Linux defaults, but no restart after idle
                // (tcp_slow_start_after_idle = 0).
                self.spec.slow_start_after_idle = false;
                self.notes.push(format!(
                    "{p}: Linux defaults (profile {}), tcp_slow_start_after_idle=0",
                    self.cfg.profile
                ));
                continue;
            }
            if p.starts_with("tc ") && p.contains("qdisc") {
                // A local qdisc that holds or drops the sender's packets
                // (e.g. `pfifo limit 0` to make a retransmission fail).
                return Err(unsupported(
                    line,
                    format!("a local qdisc ({p}): the engine's sender has none"),
                ));
            }
            let Some(set) = p
                .strip_prefix("sysctl")
                .map(|x| x.trim_start_matches(" -q").trim())
            else {
                self.notes.push(format!("ignored shell command: {p}"));
                continue;
            };
            for kv in set.split_whitespace() {
                let Some((k, v)) = kv.split_once('=') else {
                    continue;
                };
                let k = k.trim_start_matches("net.ipv4.");
                let v = v.trim_matches('"');
                let on = v != "0";
                let applied = match k {
                    "tcp_sack" => {
                        self.sack = on;
                        true
                    }
                    "tcp_timestamps" => {
                        self.timestamps = on;
                        true
                    }
                    "tcp_recovery" => {
                        self.spec.detection = if v.parse::<u32>().unwrap_or(1) & 1 == 1 {
                            "rack".into()
                        } else {
                            "dupthresh".into()
                        };
                        true
                    }
                    "tcp_early_retrans" => {
                        self.spec.timers = match v {
                            "0" | "1" | "2" => "rto".into(),
                            _ if self.spec.detection == "rack" => "rack-tlp".into(),
                            _ => "tlp".into(),
                        };
                        true
                    }
                    "tcp_frto" => {
                        self.spec.frto = if on {
                            losslab_core::FrtoMode::Linux
                        } else {
                            losslab_core::FrtoMode::Off
                        };
                        true
                    }
                    "tcp_slow_start_after_idle" => {
                        self.spec.slow_start_after_idle = on;
                        true
                    }
                    _ => false,
                };
                self.notes.push(format!(
                    "sysctl {k}={v}: {}",
                    if applied {
                        "applied"
                    } else {
                        "no effect on the engine"
                    }
                ));
            }
        }
        Ok(())
    }

    /// Ok(false): the script closes the socket here.
    fn syscall(
        &mut self,
        line: usize,
        name: &str,
        args: &[String],
        ret: &str,
    ) -> Result<bool, Verdict> {
        match name {
            "socket" | "bind" | "listen" | "accept" | "fcntl" | "ioctl" | "getsockopt" | "read"
            | "recv" | "recvmsg" | "poll" | "epoll_create" | "epoll_ctl" | "epoll_wait" => Ok(true),
            "setsockopt" => {
                let opt = args.get(2).map(String::as_str).unwrap_or("");
                match opt {
                    "TCP_CONGESTION" => {
                        let cc = args.get(3).map(|a| a.trim_matches('"')).unwrap_or("");
                        match cc {
                            "cubic" | "reno" => {
                                self.spec.cc = losslab_sim::scenario::CcSpec::Named(cc.into());
                                self.spec.hystart = if cc == "cubic" {
                                    losslab_core::cc::HyStartMode::Linux
                                } else {
                                    losslab_core::cc::HyStartMode::Off
                                };
                                Ok(true)
                            }
                            other => Err(unsupported(line, format!("congestion control {other}"))),
                        }
                    }
                    "SO_REUSEADDR" | "TCP_NODELAY" | "SO_SNDBUF" | "SO_RCVBUF" | "SO_LINGER" => {
                        Ok(true)
                    }
                    other => Err(unsupported(line, format!("setsockopt {other}"))),
                }
            }
            "connect" => {
                // The engine fixes its MSS when it is created, before the
                // SYN-ACK: take the peer's options from the script's
                // SYN-ACK now.
                if let Some(p) = self.upcoming_syn_ack.take() {
                    self.learn_peer(line, &p);
                }
                self.open(line, Handshake::Active, 65535)?;
                Ok(true)
            }
            // A Fast Open sendto() connects and sends with the SYN (RFC
            // 7413; Linux tcp_sendmsg_fastopen()), which the engine does
            // not do.
            "sendto" | "sendmsg" if args.iter().any(|a| a.contains("MSG_FASTOPEN")) => Err(
                unsupported(line, format!("{name}() with MSG_FASTOPEN (TCP Fast Open)")),
            ),
            "write" | "send" | "sendto" | "sendmsg" | "writev" => {
                let n: u64 = ret
                    .parse()
                    .map_err(|_| unsupported(line, format!("{name}() returning {ret:?}")))?;
                let Some(s) = self.sender.as_mut() else {
                    return Err(fail(line, format!("{name}() before the connection")));
                };
                s.write(Self::engine_time(self.now), n);
                self.pump();
                Ok(true)
            }
            "close" | "shutdown" => Ok(false),
            other => Err(unsupported(line, format!("system call {other}()"))),
        }
    }

    /// Creates the sender for the connection the script opens.
    fn open(&mut self, line: usize, mode: Handshake, window: u64) -> Result<(), Verdict> {
        let mut cfg = losslab_sim::sim::sender_config(&self.spec);
        cfg.handshake = mode;
        cfg.app = App::OnDemand { total: 1 << 50 };
        cfg.initial_rwnd = window;
        // A script's sysctls can ask for a combination no profile has
        // (tcp_recovery=0 after tcp_early_retrans=3: RACK's TLP without
        // RACK).
        let alg = losslab_sim::sim::build_algorithms(&self.spec, 0)
            .map_err(|e| unsupported(line, format!("the engine cannot be built so: {e}")))?;
        let s = Sender::new(cfg, alg, Self::engine_time(self.now));
        self.sender = Some(s);
        self.pump();
        Ok(())
    }

    fn inbound(&mut self, line: usize, p: &Packet) -> Result<(), Verdict> {
        if p.rst() || p.fin() {
            return Err(unsupported(line, "a FIN or RST from the peer"));
        }
        if let Some(f) = p.unmodelled_flags() {
            return Err(unsupported(
                line,
                format!("TCP flags {f} (ECN, URG or AccECN): the engine has none"),
            ));
        }
        if p.urg.is_some_and(|u| u > 0) {
            return Err(unsupported(line, "an urgent pointer"));
        }
        if let Some(TcpOption::Other(o)) =
            p.options.iter().find(|o| matches!(o, TcpOption::Other(_)))
        {
            return Err(unsupported(line, format!("the TCP option {o}")));
        }
        if p.end > p.start && !p.syn() {
            return Err(unsupported(line, "data from the peer"));
        }
        let mut ts_val = 1;
        let mut blocks = Vec::new();
        for o in &p.options {
            match o {
                TcpOption::Timestamp { val, .. } => {
                    ts_val = *val + 1;
                }
                // Linux's tcp_sacktag_write_queue() skips a block
                // tcp_is_sackblock_valid() calls reversed or empty
                // ("interpretation is ambiguous"); so do we, and say so.
                TcpOption::Sack(b) => {
                    for &(a, z) in b {
                        if a < z {
                            blocks.push((a, z));
                        } else {
                            self.notes.push(format!(
                                "line {line}: SACK block {a}:{z} is empty or reversed; ignored as Linux does"
                            ));
                        }
                    }
                }
                _ => {}
            }
        }
        if p.syn() {
            if !self.peer_known {
                self.learn_peer(line, p);
            }
            let window = p.win.unwrap_or(65535);
            if p.flags.contains('.') {
                // SYN-ACK to our connect().
                let Some(s) = self.sender.as_mut() else {
                    return Err(fail(line, "a SYN-ACK without connect()"));
                };
                s.on_ack(
                    Self::engine_time(self.now),
                    &syn_ack(window, ts_val, self.syn_ts),
                );
            } else {
                if self.sender.is_none() {
                    self.open(line, Handshake::Passive, window)?;
                }
                let Some(s) = self.sender.as_mut() else {
                    return Err(fail(line, "no connection for the SYN"));
                };
                s.on_ack(Self::engine_time(self.now), &syn_ack(window, ts_val, 0));
            }
            self.pump();
            return Ok(());
        }
        let Some(ack) = p.ack else {
            return Err(unsupported(line, "a segment without ACK"));
        };
        let Some(s) = self.sender.as_mut() else {
            return Err(fail(line, "an ACK before the connection exists"));
        };
        let cum = ack.saturating_sub(1);
        let mut sack = SackBlocks::new();
        if self.sack {
            for &(a, b) in &blocks {
                sack.push(Range::new(a.saturating_sub(1), b.saturating_sub(1)));
            }
        }
        let dsack = sack.as_slice().first().is_some_and(|b| b.end <= cum);
        // Echo the transmission of the segment ending at the cumulative
        // ACK (the RTT sample) or the newest transmission inside a SACK
        // block, whichever is newer. The engine needs timestamps to
        // measure RTT; a script without them has none, and Linux's RACK
        // then checks a SACKed retransmission only against min_rtt
        // (tcp_rack_advance()), so the echo must not hide one inside a
        // block from RACK's echo check (RFC 8985 6.2 step 2).
        let newest = |lo: u64, hi: u64| {
            if hi <= lo {
                return 0;
            }
            self.sent_ts
                .range(lo.saturating_add(1)..=hi)
                .map(|(_, &t)| t)
                .max()
                .unwrap_or(0)
        };
        let mut ecr = self.sent_ts.get(&cum).copied().unwrap_or(0);
        for b in sack.as_slice() {
            ecr = ecr.max(newest(b.start, b.end));
        }
        if !s.is_established() {
            // The final ACK of our SYN-ACK echoes it.
            ecr = self.syn_ts;
        }
        // win <= 65535 and the shift <= 14 (learn_peer()): no overflow.
        let window = p.win.unwrap_or(65535) << self.peer_wscale;
        s.on_ack(
            Self::engine_time(self.now),
            &Ack {
                ack: cum,
                window,
                sack,
                dsack,
                ts_val,
                ts_ecr: ecr,
                syn: false,
                echo_order: 0,
            },
        );
        self.pump();
        Ok(())
    }

    /// The peer's SYN options: SACK, timestamps, window scale and Linux's
    /// MSS (the peer's or 536, at most what a 1500-byte MTU allows, less
    /// the timestamp option when both use it).
    fn learn_peer(&mut self, line: usize, p: &Packet) {
        self.peer_known = true;
        let mss = p.options.iter().find_map(|o| match o {
            TcpOption::Mss(m) => Some(*m),
            _ => None,
        });
        let peer_ts = p
            .options
            .iter()
            .any(|o| matches!(o, TcpOption::Timestamp { .. }));
        self.sack &= p.options.contains(&TcpOption::SackOk);
        self.timestamps &= peer_ts;
        // tcp_parse_options() takes a shift over TCP_MAX_WSCALE (14) as
        // 14 ("Illegal window scaling value").
        self.peer_wscale = p
            .options
            .iter()
            .find_map(|o| match o {
                TcpOption::WScale(w) => Some((*w).min(14)),
                _ => None,
            })
            .unwrap_or(0);
        // tcp_parse_options() ignores an MSS option of 0 (the default 536
        // stays); __tcp_mtu_to_mss() never goes below TCP_MIN_SND_MSS
        // (48) before tcp_mtu_to_mss() takes the timestamp option off.
        let mss = mss.filter(|&m| m > 0).unwrap_or(536).clamp(48, 1460)
            - if self.timestamps { 12 } else { 0 };
        self.spec.mss = mss;
        self.notes.push(format!(
            "line {line}: MSS {mss}, SACK {}, timestamps {}",
            self.sack, self.timestamps
        ));
    }

    fn outbound(&mut self, line: usize, p: &Packet, (lo, hi): (i64, i64)) -> Result<(), Verdict> {
        if p.fin() || p.rst() {
            return Err(unsupported(line, "a FIN or RST from the engine"));
        }
        // packetdrill numbers from 1, the engine from 0: a zero-length
        // segment at the engine's snd.una is one byte below it, a
        // zero-window probe (tcp_xmit_probe_skb()), which the engine sends
        // too; any other zero-length one is a pure ACK.
        let snd_una = self.sender.as_ref().map(|s| s.snd_una());
        if !p.syn() && p.end == p.start && snd_una != Some(p.start) {
            self.notes.push(format!(
                "line {line}: a pure ACK from the engine's receive side is not modelled; skipped"
            ));
            return Ok(());
        }
        if let Some(f) = p.unmodelled_flags() {
            return Err(unsupported(
                line,
                format!("TCP flags {f} (ECN, URG or AccECN): the engine sends none"),
            ));
        }
        let tol = self.cfg.tolerance_us;
        if self.out.is_empty() {
            self.advance(hi.min(self.now + tol));
        }
        let Some((at, first)) = self.out.pop_front() else {
            return Err(fail(
                line,
                format!(
                    "expected {} at {:.6} s; the engine sent nothing",
                    show(p),
                    self.now as f64 / 1e6
                ),
            ));
        };
        if at < lo || at > hi {
            return Err(fail(
                line,
                format!(
                    "{} sent at {:.6} s, expected at {:.6} s (tolerance {} us)",
                    describe(&first),
                    at as f64 / 1e6,
                    self.now as f64 / 1e6,
                    tol
                ),
            ));
        }
        if first.syn != p.syn() {
            return Err(fail(
                line,
                format!("expected {}, the engine sent {}", show(p), describe(&first)),
            ));
        }
        if p.syn() {
            self.syn_ts = first.ts_val;
            self.now = self.now.max(at);
            return Ok(());
        }
        // Engine sequence numbers start at 0, packetdrill's at 1; one
        // expected range may be a burst of segments (TSO). Data never
        // starts at 0, the SYN's number.
        let (Some(want_lo), Some(want_hi)) = (p.start.checked_sub(1), p.end.checked_sub(1)) else {
            return Err(fail(
                line,
                format!("expected {}, the engine sent {}", show(p), describe(&first)),
            ));
        };
        if first.seq != want_lo {
            return Err(fail(
                line,
                format!("expected {}, the engine sent {}", show(p), describe(&first)),
            ));
        }
        let mut end = first.end();
        while end < want_hi {
            match self.out.front() {
                Some((t, s)) if *t == at && s.seq == end && !s.syn => {
                    end = s.end();
                    self.out.pop_front();
                }
                _ => break,
            }
        }
        if end != want_hi {
            return Err(fail(
                line,
                format!(
                    "expected {}, the engine sent {}:{} ({} bytes) at once",
                    show(p),
                    want_lo + 1,
                    end + 1,
                    end - want_lo
                ),
            ));
        }
        // Relative times after this line count from when it really left.
        self.now = at;
        Ok(())
    }

    fn python(&mut self, line: usize, lines: &[String]) -> Result<(), Verdict> {
        let Some(s) = self.sender.as_ref() else {
            return Err(fail(line, "tcp_info before the connection"));
        };
        // Statements one per line or separated by `;`; print() checks
        // nothing and is skipped.
        let statements = lines
            .iter()
            .flat_map(|l| l.split(';'))
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with("print("));
        for l in statements {
            let Some(expr) = l.strip_prefix("assert ") else {
                // A constant: NAME = number (decimal or 0x hex).
                if let Some((n, v)) = l.split_once('=') {
                    let (n, v) = (n.trim(), v.trim());
                    let parsed = v
                        .strip_prefix("0x")
                        .map_or_else(|| v.parse().ok(), |h| i64::from_str_radix(h, 16).ok());
                    if let (true, Some(x)) =
                        (n.chars().all(|c| c.is_alphanumeric() || c == '_'), parsed)
                    {
                        self.constants.insert(n.to_string(), x);
                        continue;
                    }
                }
                return Err(unsupported(line, format!("python: {l}")));
            };
            let expr = expr.split(',').next().unwrap_or("").trim();
            let ops = ["==", "!=", "<=", ">=", "<", ">"];
            let Some((op, i)) = ops.iter().find_map(|op| expr.find(op).map(|i| (*op, i))) else {
                return Err(unsupported(line, format!("python: {l}")));
            };
            let (a, b) = (expr[..i].trim(), expr[i + op.len()..].trim());
            let value = |x: &str| -> Option<i64> {
                x.parse()
                    .ok()
                    .or_else(|| self.constants.get(x).copied())
                    .or_else(|| tcpi(s, x))
            };
            let (Some(va), Some(vb)) = (value(a), value(b)) else {
                return Err(unsupported(line, format!("python: {l}")));
            };
            let ok = match op {
                "==" => va == vb,
                "!=" => va != vb,
                "<=" => va <= vb,
                ">=" => va >= vb,
                "<" => va < vb,
                _ => va > vb,
            };
            if !ok {
                return Err(fail(line, format!("assert {expr}: {a} = {va}, {b} = {vb}")));
            }
        }
        Ok(())
    }
}

/// The peer's SYN (or SYN-ACK) as the engine takes it.
fn syn_ack(window: u64, ts_val: Time, ts_ecr: Time) -> Ack {
    Ack {
        ack: 0,
        window,
        sack: SackBlocks::new(),
        dsack: false,
        ts_val,
        ts_ecr,
        syn: true,
        echo_order: 0,
    }
}

/// tcp_info fields and the constants scripts compare them with.
fn tcpi(s: &Sender, name: &str) -> Option<i64> {
    let w = s.window();
    let b = s.scoreboard();
    let us = |t: Time| (t / US) as i64;
    Some(match name {
        "TCP_CA_Open" => 0,
        "TCP_CA_Disorder" => 1,
        "TCP_CA_CWR" => 2,
        "TCP_CA_Recovery" => 3,
        "TCP_CA_Loss" => 4,
        "tcpi_snd_cwnd" => w.cwnd as i64,
        "tcpi_snd_ssthresh" => w.ssthresh.min(INFINITE_SSTHRESH) as i64,
        "tcpi_ca_state" => i64::from(s.ca_state()),
        "tcpi_retransmits" | "tcpi_backoff" => i64::from(s.rtt().backoff_count()),
        "tcpi_total_retrans" => s.stats().retransmissions as i64,
        "tcpi_unacked" => b.packets_out() as i64,
        "tcpi_sacked" => s.sacked_out() as i64,
        "tcpi_lost" => b.lost_out() as i64,
        "tcpi_retrans" => b.retrans_out() as i64,
        "tcpi_rto" => us(s.rtt().rto()),
        "tcpi_rtt" => us(s.rtt().srtt().unwrap_or(0)),
        "tcpi_rttvar" => us(s.rtt().rttvar()),
        "tcpi_reordering" => i64::from(s.reordering()),
        // Linux counts reordering events (tcp_check_sack_reordering() and
        // friends bump tp->reord_seen once per event), as the engine does.
        "tcpi_reord_seen" => s.stats().reordering_events as i64,
        _ => return None,
    })
}

fn describe(s: &Segment) -> String {
    if s.syn {
        format!("SYN (transmission {})", s.tx_count)
    } else {
        format!(
            "{}:{}({}){}",
            s.seq + 1,
            s.end() + 1,
            s.len,
            if s.tx_count > 1 {
                " (a retransmission)"
            } else {
                ""
            }
        )
    }
}

fn show(p: &Packet) -> String {
    format!("{} {}:{}({})", p.flags, p.start, p.end, p.end - p.start)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(s: &str) -> Report {
        check_script("t.pkt", s.as_bytes()).unwrap()
    }

    const HEAD: &str = "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 bind(3, ..., ...) = 0\n+0 listen(3, 1) = 0\n\
+.1 < S 0:0(0) win 32792 <mss 1000,sackOK,nop,nop,nop,wscale 7>\n\
+0 > S. 0:0(0) ack 1 <mss 1460,nop,nop,sackOK,nop,wscale 8>\n\
+.1 < . 1:1(0) ack 1 win 320\n+0 accept(3, ..., ...) = 4\n";

    #[test]
    fn a_write_goes_out_as_one_burst_and_the_rtt_comes_from_the_handshake() {
        // Five of ten segments in use: not cwnd-limited, so cwnd stays 10
        // (Linux tcp_is_cwnd_limited()).
        let s = format!(
            "{HEAD}+0 write(4, ..., 5000) = 5000\n+0 > P. 1:5001(5000) ack 1\n\
             +.1 < . 1:1(0) ack 5001 win 320\n+0 %{{\nassert tcpi_rtt == 100000\nassert tcpi_snd_cwnd == 10\n}}%\n"
        );
        let r = run(&s);
        assert_eq!(r.verdict, Verdict::Pass, "{:?}", r.notes);
    }

    #[test]
    fn packets_wait_for_the_next_expected_line_as_in_packetdrill() {
        // Sent at the instant of an assert that precedes its `>` line:
        // packetdrill reads outbound packets only at `>` lines.
        let s = format!(
            "{HEAD}+0 write(4, ..., 3000) = 3000\n+0 %{{ assert tcpi_snd_cwnd == 10 }}%\n+0 > P. 1:3001(3000) ack 1\n"
        );
        let r = run(&s);
        assert_eq!(r.verdict, Verdict::Pass, "{:?}", r.notes);
        // What follows the last `>` line is not checked, but noted.
        let s = format!("{HEAD}+0 write(4, ..., 3000) = 3000\n+0 > P. 1:2001(2000) ack 1\n");
        let r = run(&s);
        assert_eq!(r.verdict, Verdict::Pass);
        assert!(
            r.notes.iter().any(|n| n.contains("2001:3001")),
            "{:?}",
            r.notes
        );
    }

    #[test]
    fn a_mismatch_names_the_line_and_the_difference() {
        let s = format!(
            "{HEAD}+0 write(4, ..., 3000) = 3000\n+0 > P. 1:2001(2000) ack 1\n+0 > P. 3001:4001(1000) ack 1\n"
        );
        let r = run(&s);
        match r.verdict {
            // The next `>` line meets the third segment, not what it wants.
            Verdict::Fail { line, message } => {
                assert_eq!(line, 10);
                assert!(message.contains("2001:3001"), "{message}");
            }
            v => panic!("{v:?}"),
        }
        let s = format!("{HEAD}+0 write(4, ..., 3000) = 3000\n+0 > P. 1:4001(4000) ack 1\n");
        let r = run(&s);
        assert!(
            matches!(&r.verdict, Verdict::Fail { line: 9, message } if message.contains("1:3001")),
            "{:?}",
            r.verdict
        );
        // An assertion that does not hold.
        let s = format!("{HEAD}+0 %{{ assert tcpi_snd_cwnd == 9 }}%\n");
        let r = run(&s);
        assert!(
            matches!(&r.verdict, Verdict::Fail { message, .. } if message.contains("= 10")),
            "{:?}",
            r.verdict
        );
    }

    #[test]
    fn what_the_engine_does_not_model_is_reported() {
        let s = format!("{HEAD}+0 < P. 1:101(100) ack 1 win 320\n");
        assert!(matches!(
            run(&s).verdict,
            Verdict::Unsupported { line: 8, .. }
        ));
    }
}
