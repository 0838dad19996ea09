//! The typed scenario: what `scenario.toml` (../../docs/SCENARIO.md) means
//! once parsed and checked. Reproductions build these in code; the CLI
//! parses them from TOML with `parse::parse_scenario`.

pub use crate::link::LinkTrace;
use losslab_core::cc::{
    Avoidance, HyStartMode, MinRttRefresh, SlowStart, VegasGate, VegasSsthresh, WestwoodSsthresh,
};
use losslab_core::detect::{ErMitigation, ErVariant, LeOrder, RackAdvance, ReoTimer};
use losslab_core::recovery::{AckRtt, NewRenoVariant, Or3Params, QarrUpdate};
use losslab_core::sndbuf::LinuxSndbuf;
use losslab_core::time::Time;
use losslab_core::timers::{ProbeGate, ProbeRearm, Pto, TlpPto};
use losslab_core::{
    CwndGrowth, CwndValidation, FrtoMode, HandshakeRules, Pacing, PacingStart, RecoveryExit,
    RtoFormula, RtoSsthresh, RttSampling,
};

#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub name: String,
    /// Stop time; a run also ends once every flow has finished.
    pub duration: Time,
    pub seed: u64,
    pub path: PathSpec,
    pub reverse: ReverseSpec,
    pub flows: Vec<FlowSpec>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum QueueLimit {
    Bytes(u64),
    Packets(u64),
}

#[derive(Clone, Debug, PartialEq)]
pub enum LossModel {
    None,
    Bernoulli {
        p: f64,
    },
    GilbertElliott {
        p_gb: f64,
        p_bg: f64,
        loss_good: f64,
        loss_bad: f64,
    },
    /// Deterministic drops of one flow's data packets.
    Drop {
        flow: String,
        which: DropSpec,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub enum DropSpec {
    /// 1-based indices of the flow's data packets in transmission order
    /// (retransmissions count).
    Packets(Vec<u64>),
    /// 1-based segment numbers; only the first transmission is dropped.
    Segments(Vec<u64>),
    /// The first transmission of the last N segments of a sized flow.
    Tail(u64),
    /// 1-based transmissions of the flow's SYN (data path: the data
    /// sender's SYN or SYN-ACK; reverse path: the peer's) (added).
    Syns(Vec<u64>),
    /// Runs of consecutive data packets of the flow (added keys `burst`
    /// and `bursts`; the mobile paper's burst losses of 10 to 100
    /// packets, its Tables 1-2 and 4-5). Kept in the order written.
    Bursts(Vec<Burst>),
}

/// One burst of a `drop` model: `length` consecutive data packets of the
/// flow (retransmissions included, as `packets` counts them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Burst {
    pub at: BurstStart,
    pub length: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BurstStart {
    /// The 1-based index of the first dropped packet among the flow's data
    /// packets, in order of transmission (`at = 5000`).
    Packet(u64),
    /// The first data packet of the flow the bottleneck queue accepts at
    /// or after this scenario time (`at = "20s"`).
    Time(Time),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Reorder {
    /// Probability that a packet is held back.
    pub p: f64,
    /// How long it is held back.
    pub delay: Time,
}

impl Default for Reorder {
    fn default() -> Self {
        Reorder { p: 0.0, delay: 0 }
    }
}

/// The bottleneck, data direction.
#[derive(Clone, Debug, PartialEq)]
pub struct PathSpec {
    /// Bits per second; with a trace, the trace's mean capacity
    /// (`LinkTrace::mean_rate_bps`), which what needs one rate uses.
    pub rate: u64,
    /// The delivery-opportunity trace that drains the link instead of a
    /// constant rate (`rate = { trace = "FILE" }`, added key).
    pub trace: Option<LinkTrace>,
    /// One-way propagation delay.
    pub delay: Time,
    pub queue: QueueLimit,
    pub loss: LossModel,
    pub protect_retransmissions: bool,
    pub reorder: Reorder,
    /// Probability that a packet is delivered twice (added key).
    pub duplicate: f64,
}

impl PathSpec {
    /// A bottleneck with no reordering, duplication or protection.
    pub fn new(rate: u64, delay: Time, queue: QueueLimit, loss: LossModel) -> Self {
        PathSpec {
            rate,
            trace: None,
            delay,
            queue,
            loss,
            protect_retransmissions: false,
            reorder: Reorder::default(),
            duplicate: 0.0,
        }
    }
}

/// The ACK direction: its own delay, loss and reordering, and no rate
/// limit unless it has a link of its own.
#[derive(Clone, Debug, PartialEq)]
pub struct ReverseSpec {
    pub delay: Time,
    pub loss: LossModel,
    pub reorder: Reorder,
    pub duplicate: f64,
    /// A rate or trace that drains the ACKs, and its queue
    /// (`reverse.rate`, `reverse.queue`, added keys); None: ACKs only
    /// propagate.
    pub link: Option<ReverseLink>,
}

/// The ACK direction's own bottleneck (added in issue 34).
#[derive(Clone, Debug, PartialEq)]
pub struct ReverseLink {
    /// Bits per second; with a trace, its mean capacity.
    pub rate: u64,
    pub trace: Option<LinkTrace>,
    pub queue: QueueLimit,
}

impl ReverseSpec {
    /// An ACK path that only delays.
    pub fn lossless(delay: Time) -> Self {
        ReverseSpec {
            delay,
            loss: LossModel::None,
            reorder: Reorder::default(),
            duplicate: 0.0,
            link: None,
        }
    }
}

impl Scenario {
    /// Seed 1, the same one-way delay both ways, no ACK loss.
    pub fn single_path(name: &str, duration: Time, path: PathSpec, flows: Vec<FlowSpec>) -> Self {
        Scenario {
            name: name.into(),
            duration,
            seed: 1,
            reverse: ReverseSpec::lossless(path.delay),
            path,
            flows,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum CcSpec {
    NewReno,
    /// A fixed window of N segments.
    Fixed(u64),
    /// Any other congestion controller losslab-core knows by this name
    /// (`losslab_core::cc::by_name`).
    Named(String),
}

impl CcSpec {
    pub fn name(&self) -> String {
        match self {
            CcSpec::NewReno => "newreno".into(),
            CcSpec::Fixed(n) => format!("fixed:{n}"),
            CcSpec::Named(n) => n.clone(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum AppSpec {
    Bulk,
    Bytes(u64),
    /// (time after flow start, bytes) writes.
    Writes(Vec<(Time, u64)>),
    /// Request/response over a persistent connection (HTTP/1.1 without
    /// pipelining, added kind "objects"): the client requests each object
    /// once it holds the previous one; a request reaches the server one
    /// reverse-path delay later and the server writes the object then.
    Objects {
        sizes: Vec<u64>,
        /// The first request waits until this flow's first object has
        /// arrived (a page's resources wait for its HTML); None: at start.
        after: Option<String>,
    },
    /// Parallel TCP (added kind "chunks", the OR3 paper's section III-C):
    /// the flow's `count` connections share one file of `file` bytes,
    /// handed out in chunks of `chunk` bytes in file order; a connection
    /// takes the next chunk once it has sent every byte it took before.
    Chunks {
        file: u64,
        chunk: u64,
    },
}

impl AppSpec {
    /// Bytes the application writes in all on one connection (None:
    /// unbounded, or for `Chunks` not known before the run: it depends on
    /// how the connections share the file).
    pub fn total(&self) -> Option<u64> {
        match self {
            AppSpec::Bulk => None,
            AppSpec::Bytes(n) => Some(*n),
            AppSpec::Writes(w) => Some(w.iter().map(|x| x.1).sum()),
            AppSpec::Objects { sizes, .. } => Some(sizes.iter().sum()),
            AppSpec::Chunks { .. } => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum AckSpec {
    Delayed,
    Quick,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ReceiverSpec {
    pub ack: AckSpec,
    pub sack_blocks: u8,
    pub rcvbuf: u64,
    /// Bytes per second; None = infinite.
    pub read_rate: Option<u64>,
    /// `delack = "linux"` (added, the default since issue 10): Linux's
    /// delayed-ACK engine (quick ACKs at first, a timeout adapted to the
    /// arrivals and below the RTT); `delack = "200ms"` (any duration): a
    /// fixed delayed-ACK timer, as before.
    pub linux_delack: bool,
    pub delack_timeout: Time,
    /// `read_delay` (added, default 0): in-order data becomes readable by
    /// the application only this long after it became in order (the
    /// receiving process's scheduling delay).
    pub read_delay: Time,
    /// `window_clamp` (added, default "none"): the largest window the
    /// receiver advertises, the buffer behind it staying `rcvbuf` (Linux's
    /// tp->window_clamp, TCP_WINDOW_CLAMP). None: no clamp.
    pub window_clamp: Option<u64>,
    /// `grow_window` (added, default "off"): "linux" opens the advertised
    /// window from tcp_select_initial_window()'s first window as Linux's
    /// rcv_ssthresh does (tcp_grow_window()), ACKing every segment that
    /// opens it at once.
    pub grow_window: bool,
    /// `autotune` (added, default "off"): "linux" grows the receive
    /// buffer from tcp_rmem[1]'s window toward `rcvbuf` once per
    /// receiver-measured RTT as Linux 6.18's tcp_rcv_space_adjust() does
    /// (losslab-core autotune.rs).
    pub autotune: bool,
}

impl Default for ReceiverSpec {
    fn default() -> Self {
        ReceiverSpec {
            ack: AckSpec::Delayed,
            sack_blocks: 3,
            rcvbuf: 16_000_000,
            read_rate: None,
            linux_delack: true,
            delack_timeout: 200 * losslab_core::time::MS,
            read_delay: 0,
            window_clamp: None,
            grow_window: false,
            autotune: false,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct FlowSpec {
    pub name: String,
    /// `profile = "linux-6"` (added): the stack whose parts and constants
    /// the flow starts from (profile.rs); explicit keys override it.
    pub profile: Option<String>,
    pub start: Time,
    pub cc: CcSpec,
    /// Algorithm names as written (validated by the parser against what the
    /// engine implements).
    pub recovery: String,
    pub detection: String,
    pub timers: String,
    pub extensions: Vec<String>,
    pub mss: u32,
    pub init_cwnd: u64,
    /// `max_cwnd` (added): growth stops at this many segments (Linux
    /// snd_cwnd_clamp, ns-2's maxcwnd_); None: no limit.
    pub max_cwnd: Option<u64>,
    pub min_rto: Time,
    /// How SRTT and RTTVAR make the RTO (added key `rto_formula`).
    pub rto_formula: RtoFormula,
    /// `timer_hz` (added): the kernel's timer frequency; the RTO is
    /// rounded up to whole ticks and timers fire on ticks. 0: exact timers.
    pub timer_hz: u32,
    /// RTO Restart's rrthresh for `rtor` and `tlpr` (added tables
    /// `[flow.rtor]` / `[flow.tlpr]`, key `rrthresh`).
    pub rrthresh: u64,
    /// `[flow.tlp]` / `[flow.tlpr]` `loss_inference` (added): a probe that
    /// repaired a loss reduces cwnd (Linux 3.10 tcp_process_tlp_ack()).
    pub tlp_loss_inference: bool,
    /// `[flow.tlp]` / `[flow.tlpr]` `rearm = "rfc8985" | "linux-3"` (added
    /// in issue 32, default "rfc8985", the engine before the key): how ACKs
    /// and sends move the probe timer; `"linux-3"` is Linux 3.10-4.x's
    /// tcp_rearm_rto() with a probe pending (the RTO counted from the first
    /// outstanding segment's last transmission) and its re-armed probe on
    /// every ACK.
    pub tlp_rearm: ProbeRearm,
    /// `[flow.tlp] pto = "paper" | "linux-3.10" | "linux-3.15"` (added in
    /// issue 32, default "paper", the engine before the key): the probe
    /// timeout as the paper's equations at exact times, or as 3.10-4.x's
    /// tcp_schedule_loss_probe() in jiffies of `timer_hz`.
    pub tlp_pto: TlpPto,
    /// `[flow.tlpr] rtor_cap` (added in issue 28, default false): ours,
    /// not the paper's: TLPR's restarted probe never waits longer than
    /// RTOR's restarted RTO. Before issue 28 `tlpr` always had it.
    pub tlpr_rtor_cap: bool,
    /// One-way delay of this flow's own access links, added to the path's
    /// in both directions (added key `delay`): flows of different RTTs
    /// sharing one bottleneck.
    pub delay: Time,
    /// `nic_rate` (added, default none): the rate of the sending host's
    /// interface. Each segment leaves the host no sooner than the last has
    /// finished serialising at this rate, waiting in the host meanwhile in
    /// one FIFO, unbounded unless `tsq_limit` keeps the excess unsent and
    /// untimestamped in the sender, as Linux's TCP Small Queues does, before it reaches
    /// the bottleneck; without it a window's segments reach the
    /// bottleneck at the instant they are sent. The flow's own
    /// interface: flows do not share it.
    pub nic_rate: Option<u64>,
    /// `tsq_limit` (added, default none; needs `nic_rate`): Linux's TCP
    /// Small Queues (tcp_write_xmit(), `tcp_limit_output_bytes`, 128 KB in
    /// 3.10): the sender hands its host no segment while this many bytes
    /// of its own (on the wire) wait there, and is woken when one leaves,
    /// so the rest waits unsent and its clock has not started.
    pub tsq_limit: Option<u64>,
    /// RFC 5681 section 4.1 restart window after an idle RTO (added key
    /// `slow_start_after_idle`, default false; Linux has it on).
    pub slow_start_after_idle: bool,
    /// `handshake = true|false` (added, default true): simulate the
    /// three-way handshake (the data sender connects, or accepts for an
    /// `objects` app).
    pub handshake: bool,
    /// `handshake_rules = "linux" | "rfc"` (added): what a lost SYN costs
    /// (losslab-core handshake.rs).
    pub handshake_rules: HandshakeRules,
    /// `frto = "off" | "linux"` (added): F-RTO after a timeout.
    pub frto: FrtoMode,
    /// `rto_ssthresh = "linux" | "rfc5681"` (added): ssthresh on a timeout
    /// during fast recovery.
    pub rto_ssthresh: RtoSsthresh,
    /// `recovery_exit = "rfc6582" | "linux"` (added): without SACK, whether
    /// the ACK of exactly the recovery point ends recovery.
    pub recovery_exit: RecoveryExit,
    /// `pacing = "auto" | "off" | "rate"` (added, default "auto": pace
    /// only controllers that set a pacing rate, BBR; every flow written
    /// before the key behaves as before).
    pub pacing: Pacing,
    /// `pacing_start = "after-11" | "linux"` (added, default "after-11",
    /// the engine's rule before the key): which data segment first moves
    /// the pacing departure time (Linux: the tenth).
    pub pacing_start: PacingStart,
    /// `cwnd_validation` (added): Linux's tcp_is_cwnd_limited() since
    /// 2022 (the default), 4.3-5.10's, 3.16-4.2's or 3.10's
    /// (losslab-core cwnd_use.rs).
    pub cwnd_validation: CwndValidation,
    /// `rtt_sample = "tsecr" | "linux" | "linux-3.2" | "linux-3.15"`
    /// (added, default "tsecr": one TSecr sample under Karn's rule for
    /// everyone): which RTT samples an ACK gives the estimator, min_rtt,
    /// the detectors and the controller.
    pub rtt_sample: RttSampling,
    /// `cwnd_growth = "rfc5681" | "linux"` (added, default "rfc5681": only
    /// a cumulative advance grows cwnd): Linux tcp_may_raise_cwnd() lets a
    /// SACK-only ACK grow it once reordering was measured above 3.
    pub cwnd_growth: CwndGrowth,
    /// `slow_start = "per-segment" | "per-ack"` (added, default
    /// "per-segment": cwnd grows by the segments an ACK acknowledges):
    /// Linux up to 3.13's tcp_slow_start(tp), one segment per ACK, for
    /// every controller with the shared slow start.
    pub slow_start: SlowStart,
    /// `avoidance = "per-segment" | "per-ack"` (added, default
    /// "per-segment": one segment per cwnd segments acknowledged): Linux
    /// up to 3.17's tcp_cong_avoid_ai(tp, w), one segment per cwnd + 1
    /// ACKs, for the Reno family (`cc::Avoidance`).
    pub avoidance: Avoidance,
    /// `[flow.cubic] hystart = true | false | "linux" | "linux-6" |
    /// "linux-4.10" | "linux-3" | "hystart++"` (added): CUBIC's
    /// slow-start exit, Linux's HyStart (`true` is `"linux"`) or
    /// HyStart++ (RFC 9406); off by default. With `cc = "cubic-linux"` or
    /// `"cubic-linux-3"` only the kernels' values are read (their own
    /// HyStart otherwise).
    pub hystart: HyStartMode,
    /// `[flow.tcp-rr] rto_factor` (added): the factor on every RTO of
    /// `cc = "tcp-rr"`, 0 < f <= 1 (default
    /// `losslab_core::cc::tcp_rr::DEFAULT_RTO_FACTOR`, 0.5).
    pub tcp_rr_rto_factor: f64,
    /// `[flow.westwood] complete_cwr = true` (added): Westwood takes
    /// Linux's CA_EVENT_COMPLETE_CWR itself, cwnd = ssthresh = BWE x
    /// RTTmin at the end of every window reduction, also after QARR and
    /// BARR, which never ask for ssthresh; false by default (the value
    /// of ssthresh at the start of recovery stands in for it, as before).
    pub westwood_complete_cwr: bool,
    /// `[flow.westwood] ssthresh = "bwe" | "linux"` (added): BWE x RTTmin
    /// at every congestion signal (`"bwe"`, the default, as before), or
    /// Linux's tcp_reno_ssthresh() with CA_EVENT_LOSS's BWE x RTTmin on a
    /// timeout (`"linux"`; with `complete_cwr` it is Linux's Westwood).
    pub westwood_ssthresh: WestwoodSsthresh,
    /// `[flow.westwood] hz = N` (added): Westwood+ keeps its times in
    /// Linux's jiffies at HZ = N (tcp_westwood.c: usecs_to_jiffies() of
    /// each RTT, tcp_jiffies32 intervals, TCP_WESTWOOD_RTT_MIN = HZ / 20);
    /// 0, the default, keeps the engine's nanoseconds, as before.
    pub westwood_hz: u32,
    /// `[flow.vegas] gate = "cwnd-limited" | "linux"` (added): Vegas
    /// adjusts only while the flow is cwnd-limited (the default, as
    /// before), or on every ACK that may raise cwnd, asking
    /// tcp_is_cwnd_limited() only in its Reno fallback (`"linux"`).
    pub vegas_gate: VegasGate,
    /// `[flow.vegas] ssthresh = "cwnd" | "cwnd-1"` (added): ssthresh when
    /// Vegas lowers cwnd, min(ssthresh, cwnd) (the default, as before;
    /// Linux 5.x-6.x) or min(ssthresh, cwnd - 1) (Linux up to 4.10).
    pub vegas_ssthresh: VegasSsthresh,
    /// `[flow.bbr] min_rtt_refresh` (with `cc = "bbr"`).
    pub bbr_min_rtt_refresh: MinRttRefresh,
    /// `[flow.rack] reo_timer = "exact" | "linux" | "linux-2-jiffies"`
    /// (added): RACK's reordering timer fires at the expiry (`"exact"`,
    /// the default, as before) or as Linux's tcp_rack_mark_lost() arms it
    /// in jiffies of `timer_hz`: 6.6 and later, the wait + 2 ms rounded
    /// up; before, the wait rounded up + 2 jiffies.
    pub rack_reo_timer: ReoTimer,
    /// `[flow.rack] advance = "rfc8985" | "linux"` (added): which delivered
    /// retransmissions move RACK.xmit_ts: RFC 8985's (`"rfc8985"`, the
    /// default, as before: the ACK must echo a timestamp not older than
    /// the retransmission) or Linux's tcp_rack_advance() (a SACKed one on
    /// its RTT alone; the echo test only for cumulatively acknowledged
    /// ones).
    pub rack_advance: RackAdvance,
    /// `[flow.rack-tlp] pto = "rfc8985" | "linux" | "linux-2-jiffies"`
    /// (added; only with `timers = "rack-tlp"`): RFC 8985's probe timeout
    /// at exact times (`"rfc8985"`, the default, as before) or Linux's
    /// tcp_schedule_loss_probe() in jiffies of `timer_hz`: 6.6 and later,
    /// 2 SRTT + 2 ms (+ `min_rto` with one packet out) rounded up; before,
    /// 2 SRTT rounded up + 2 jiffies (+ HZ / 5 with one packet out).
    pub rack_tlp_pto: Pto,
    /// `[flow.hack1] refire = true | false` (added; only with the `hack1`
    /// extension): after Hack 1 fires, its count of duplicate ACKs
    /// without new SACK information starts over (true, the default and
    /// the behaviour before the key), or it fires once per run of them
    /// (false); losslab-core detect/hack1.rs.
    pub hack1_refire: bool,
    /// `[flow.qarr] queue_len_threshold` (alias `target_queue`, the
    /// contract's name): QARR's target queue Q_T, segments, at least 1
    /// (default `losslab_core::recovery::QUEUE_LEN_THRESHOLD`, 5).
    pub qarr_queue_len_threshold: u32,
    /// `[flow.barr] slide_wnd_size` (alias `window`, the contract's name):
    /// BARR's bandwidth window M, ACKs, at least 1 (default
    /// `losslab_core::recovery::SLIDE_WND_SIZE`, 200).
    pub barr_slide_wnd_size: u32,
    /// `[flow.qarr] rtt_source` or `[flow.barr] rtt_source` (added):
    /// `"tsecr"` (default, now - TSecr of every ACK) or `"delivered"` (the
    /// RTT of a segment the ACK newly delivered), QARR's and BARR's RTT_i.
    pub recovery_rtt_source: AckRtt,
    /// `[flow.qarr] update` (added): how QARR applies eq. 2, `"per-ack"`
    /// (default, the paper's text), `"per-rtt"` or `"pipe"`
    /// (losslab_core::recovery::QarrUpdate).
    pub qarr_update: QarrUpdate,
    /// `[flow.newreno] variant` (added; read with `recovery = "newreno"`):
    /// when NewReno restarts the RTO on a partial ACK, `"slow-but-steady"`
    /// (default, every one) or `"impatient"` (the first only).
    pub newreno_variant: NewRenoVariant,
    /// `[flow.or3]` (added; read with `extensions = ["or3"]`): OR3's
    /// parameters (losslab_core::recovery::Or3Params; OR3 paper IV).
    pub or3: Or3Params,
    pub app: AppSpec,
    /// None = "auto".
    pub sndbuf: Option<u64>,
    /// `sndbuf = "linux"` or `{ model = "linux", ... }`: Linux's growing
    /// send buffer (losslab-core sndbuf.rs) instead of a fixed one.
    pub sndbuf_model: Option<LinuxSndbuf>,
    pub receiver: ReceiverSpec,
    /// N identical flows named name.1 .. name.N (1 keeps the plain name).
    pub count: u32,
    /// Retransmit again a retransmission that later-sent data overtook
    /// (added key `lost_retransmission_detection`).
    pub lost_retransmission_detection: bool,
    /// Restart the RTO when the first outstanding segment is retransmitted,
    /// as Linux does (added key `rto_rearm_on_head_retransmit`, default
    /// false as in RFC 6298; on in every Linux profile).
    pub rto_rearm_on_head_retransmit: bool,
    /// Restart the RTO on an ACK that SACKs an original sent before the
    /// head's last transmission, as Linux 3.13+ does (added key
    /// `rto_rearm_on_sack`, default false as in RFC 6298; on in the
    /// `linux-6` profile; 3.17's and 4.10's kernels have it too).
    pub rto_rearm_on_sack: bool,
    /// `probe_gate = "linux" | "rfc8985" | "recovery"` (added; read with
    /// `timers` "tlp", "tlpr" and "rack-tlp"): in which state a loss probe
    /// may be armed. None (the key unset): the timer's own document's,
    /// `"linux"` for `tlp` and `tlpr` (the TLP draft's Open state: nothing
    /// SACKed, lost or retransmitted), `"rfc8985"` for `rack-tlp` (nothing
    /// SACKed). Before the key every probe timer armed whenever neither
    /// recovery ran, which `"recovery"` restores.
    pub probe_gate: Option<ProbeGate>,
    /// RFC 3042 limited transmit (added key `limited_transmit`, default
    /// true as before; false for the LE paper's ns-2 agents, which had
    /// none).
    pub limited_transmit: bool,
    /// Undo a cwnd reduction that DSACKs show was spurious (added key
    /// `dsack_undo`).
    pub dsack_undo: bool,
    /// `[flow.early-retransmit]`: parameters of the early-retransmit
    /// detector.
    pub early_retransmit: EarlyRetransmitSpec,
    /// `[flow.le] order`: where the `le` detector takes the transmission
    /// an ACK identifies (with `echo` the receiver echoes it).
    pub le_order: LeOrder,
    /// `[flow.le] grow_in_recovery`: the `le` recovery lets the congestion
    /// controller grow cwnd during recovery (recovery/le.rs).
    pub le_grow_in_recovery: bool,
}

/// `[flow.early-retransmit]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EarlyRetransmitSpec {
    /// `mitigation = "none" | "reordering" | "delay" | "both"`.
    pub mitigation: ErMitigation,
    /// `variant = "rfc5827" | "linux"` (added key).
    pub variant: ErVariant,
}

impl FlowSpec {
    /// The Linux send buffer a flow asked for, directly or through the
    /// `sndbuf-factor-3` extension (which implies it, with grow factor 3).
    pub(crate) fn linux_sndbuf(&self) -> Option<LinuxSndbuf> {
        let factor_3 = self.extensions.iter().any(|e| e == "sndbuf-factor-3");
        match (self.sndbuf_model, factor_3) {
            (m, false) => m,
            (m, true) => Some(LinuxSndbuf {
                grow_factor: 3.0,
                ..m.unwrap_or_default()
            }),
        }
    }

    /// A bulk NewReno flow with the engine's defaults: PRR (RFC 9937)
    /// recovery, DupThresh detection, the RFC 6298 timer.
    pub fn new(name: &str) -> Self {
        FlowSpec {
            name: name.to_string(),
            profile: None,
            start: 0,
            cc: CcSpec::NewReno,
            recovery: "prr".into(),
            detection: "dupthresh".into(),
            timers: "rto".into(),
            extensions: vec![],
            mss: 1448,
            init_cwnd: 10,
            max_cwnd: None,
            min_rto: 200 * losslab_core::time::MS,
            rto_formula: RtoFormula::Linux,
            timer_hz: 0,
            rrthresh: losslab_core::timers::RRTHRESH,
            tlp_loss_inference: true,
            tlp_rearm: ProbeRearm::Rfc8985,
            tlp_pto: TlpPto::Paper,
            tlpr_rtor_cap: false,
            delay: 0,
            nic_rate: None,
            tsq_limit: None,
            slow_start_after_idle: false,
            hystart: HyStartMode::Off,
            tcp_rr_rto_factor: losslab_core::cc::TCP_RR_DEFAULT_RTO_FACTOR,
            westwood_complete_cwr: false,
            westwood_ssthresh: WestwoodSsthresh::Bwe,
            westwood_hz: 0,
            vegas_gate: VegasGate::CwndLimited,
            vegas_ssthresh: VegasSsthresh::Cwnd,
            bbr_min_rtt_refresh: MinRttRefresh::Lower,
            rack_reo_timer: ReoTimer::Exact,
            rack_advance: RackAdvance::Rfc8985,
            rack_tlp_pto: Pto::Rfc8985,
            hack1_refire: true,
            qarr_queue_len_threshold: losslab_core::recovery::QUEUE_LEN_THRESHOLD,
            barr_slide_wnd_size: losslab_core::recovery::SLIDE_WND_SIZE,
            recovery_rtt_source: AckRtt::Delivered,
            qarr_update: QarrUpdate::PerAck,
            newreno_variant: NewRenoVariant::SlowButSteady,
            or3: Or3Params::default(),
            handshake: true,
            handshake_rules: HandshakeRules::Linux,
            frto: FrtoMode::Off,
            rto_ssthresh: RtoSsthresh::Linux,
            recovery_exit: RecoveryExit::Rfc6582,
            pacing: Pacing::Auto,
            pacing_start: PacingStart::After11,
            cwnd_validation: CwndValidation::Linux,
            rtt_sample: RttSampling::Tsecr,
            cwnd_growth: CwndGrowth::Rfc5681,
            slow_start: SlowStart::PerSegment,
            avoidance: Avoidance::PerSegment,
            app: AppSpec::Bulk,
            sndbuf: None,
            sndbuf_model: None,
            receiver: ReceiverSpec::default(),
            count: 1,
            lost_retransmission_detection: true,
            rto_rearm_on_head_retransmit: false,
            rto_rearm_on_sack: false,
            probe_gate: None,
            limited_transmit: true,
            dsack_undo: true,
            early_retransmit: EarlyRetransmitSpec::default(),
            le_order: LeOrder::Sack,
            le_grow_in_recovery: false,
        }
    }
}
