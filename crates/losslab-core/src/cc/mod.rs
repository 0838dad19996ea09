//! CongestionControl: ssthresh on loss and cwnd growth outside recovery
//! (the analogue of Linux's `tcp_congestion_ops`).

mod bbr;
mod cubic;
mod cubic_linux;
mod cubic_linux3;
mod fixed;
mod hystart;
mod hystart_plus_plus;
mod jiffies;
mod newreno;
mod reno;
mod tcp_rr;
mod vegas;
mod veno;
mod westwood;

pub use bbr::{Bbr, MinRttRefresh};
pub use cubic::Cubic;
pub use cubic_linux::CubicLinux;
pub use cubic_linux3::CubicLinux3;
pub use fixed::Fixed;
pub use hystart::{HyStart, HyStartLinux6, HyStartOld, OldKernel};
pub use hystart_plus_plus::HyStartPlusPlus;
pub use newreno::NewReno;
pub use reno::Reno;
pub use tcp_rr::{TcpRr, DEFAULT_RTO_FACTOR as TCP_RR_DEFAULT_RTO_FACTOR};
pub use vegas::{Vegas, VegasGate, VegasSsthresh};
pub use veno::Veno;
pub use westwood::{Estimator as WestwoodEstimator, Westwood, WestwoodSsthresh};

use crate::rate::RateSample;
use crate::time::Time;
use crate::window::Window;

/// Names accepted by `by_name` ("fixed:N" takes a window in segments).
pub const NAMES: &[&str] = &[
    "reno",
    "newreno",
    "cubic",
    "cubic-linux",
    "cubic-linux-3",
    "westwood",
    "westwood-original",
    "veno",
    "vegas",
    "bbr",
    "tcp-rr",
    "fixed:N",
];

/// The sender's recovery state, as a controller sees it (Linux
/// tcp_ca_state: Open, Recovery, Loss; CWR is TLP's one-shot reduction).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaState {
    #[default]
    Open,
    Cwr,
    Recovery,
    Loss,
}

/// What a congestion controller may look at on an ACK (Linux gives its
/// controllers the socket; this is the part of it they read).
#[derive(Clone, Copy, Debug, Default)]
pub struct CcCtx {
    pub now: Time,
    /// Smoothed and minimum RTT (None before the first sample).
    pub srtt: Option<Time>,
    pub min_rtt: Option<Time>,
    /// Segments sent and not cumulatively acknowledged.
    pub packets_out: u64,
    /// This ACK's RTT sample, if it gave one.
    pub rtt_sample: Option<Time>,
    /// Bytes: the cumulative ACK point after this ACK, and the next byte
    /// to send (rounds of slow start end when snd_una passes a snd_nxt).
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// Bytes the cumulative ACK advanced by on this ACK.
    pub bytes_acked: u64,
    /// Segments this ACK newly delivered, cumulatively or selectively
    /// (Linux acked_sacked; a duplicate ACK without SACK counts one).
    pub delivered: u64,
    /// Segments this ACK newly marked lost (Linux rs->losses).
    pub losses: u64,
    /// Segments in flight (RFC 6675 pipe, Linux tcp_packets_in_flight())
    /// before and after this ACK (`prior_in_flight` is 0 for controllers
    /// that neither own cwnd nor observe every ACK: nobody reads it).
    pub prior_in_flight: u64,
    pub in_flight: u64,
    /// Recovery state after this ACK's recovery processing.
    pub state: CaState,
    /// The flow used its whole cwnd lately (Linux tcp_is_cwnd_limited()).
    pub cwnd_limited: bool,
    pub mss: u32,
    /// The delivery-rate sample of this ACK (rate.rs), for controllers
    /// that ask for samples (`wants_rate_samples`).
    pub rate: Option<RateSample>,
    /// The flow paces its transmissions (the sender has a pacer:
    /// `pacing = "rate"`, or `"auto"` with a controller that sets a rate).
    /// Linux's `sk->sk_pacing_status != SK_PACING_NONE` (fq or internal
    /// pacing), which cubic-linux's HyStart reads.
    pub paced: bool,
    /// The pacing rate the sender computes, bits per second, whether or
    /// not the flow paces (sender/transmit.rs `pacing_rate()`; Linux's
    /// sk_pacing_rate, which tcp_update_pacing_rate() keeps for every
    /// flow); None before the first RTT sample, and for controllers that
    /// do not ask for it (`wants_pacing_rate`).
    pub pacing_rate: Option<u64>,
    /// The flow's slow start (`slow_start` key; `in_slow_start`,
    /// `grow_in_slow_start`).
    pub slow_start: SlowStart,
    /// The Reno family's congestion avoidance count (`avoidance` key;
    /// `avoid`).
    pub avoidance: Avoidance,
}

/// The analogue of Linux's `struct tcp_congestion_ops`. Every method but
/// `name`, `ssthresh` and `cong_avoid` has a default that is Reno's.
pub trait CongestionControl {
    fn name(&self) -> String;
    /// ssthresh after a congestion signal (fast recovery entry, RTO, a TLP
    /// that repaired a loss); `flight_size` is the segments outstanding at
    /// that moment (Linux ssthresh()).
    fn ssthresh(&mut self, w: &Window, flight_size: u64) -> u64;
    /// cwnd growth for `acked` newly delivered segments, on ACKs outside
    /// fast recovery while the flow is cwnd-limited (Linux cong_avoid()).
    /// Not called for controllers that own cwnd (`owns_cwnd`).
    fn cong_avoid(&mut self, w: &mut Window, acked: u64, ctx: &CcCtx);
    /// A retransmission timeout happened (after `ssthresh` was asked).
    fn on_timeout(&mut self, _now: Time) {}
    /// ssthresh after a timeout, right after `on_timeout`, from the one
    /// the sender holds then: the `ssthresh` answer of this timeout, or,
    /// when the sender did not ask (a repeated timeout, or one in fast
    /// recovery under Linux's rule), the one it kept. Unchanged by
    /// default. For controllers whose timeout response differs from
    /// their fast-recovery one (TCP-RR); Linux modules do this by writing
    /// tp->snd_ssthresh in set_state(TCP_CA_Loss).
    fn ssthresh_after_timeout(&mut self, ssthresh: u64) -> u64 {
        ssthresh
    }
    /// The floor of rate-halving's per-ACK decrement (Linux 2.6.x-3.1
    /// tcp_cwnd_min() in net/ipv4/tcp_input.c: the module's min_cwnd() if
    /// it defines one, else snd_ssthresh). Only the decrement stops there;
    /// the pipe + 1 clip may still take cwnd lower (recovery/rate_halving.rs).
    fn min_cwnd(&self, w: &Window) -> u64 {
        w.ssthresh
    }
    /// cwnd after a retransmission timeout (RFC 5681 section 3.1: the loss
    /// window, one segment).
    fn loss_window(&self) -> u64 {
        1
    }
    /// Pacing rate in bits per second, for algorithms that set their own
    /// (BBR). Others pace, when the flow asks for pacing, at Linux's
    /// tcp_update_pacing_rate() rate (sender/transmit.rs).
    fn pacing_rate(&self) -> Option<u64> {
        None
    }
    /// Every ACK, before cwnd changes: RTT and delivery samples (Linux
    /// pkts_acked() and in_ack_event(); Vegas, Veno and Westwood measure
    /// here, in recovery too). The window is there because Linux's
    /// pkts_acked() may set ssthresh (cubic-linux's HyStart ends slow
    /// start here, before tcp_cong_avoid()).
    fn on_ack(&mut self, _w: &mut Window, _ctx: &CcCtx) {}
    /// The recovery state changed (Linux set_state()).
    fn on_state(&mut self, _state: CaState, _w: &Window) {}
    /// Linux's CA_EVENT_COMPLETE_CWR, raised by tcp_end_cwnd_reduction()
    /// once a window reduction (Recovery or CWR) has set cwnd, and before
    /// the state goes back to Open; not on an undo. The controller may
    /// set the window (Westwood does).
    fn complete_cwr(&mut self, _w: &mut Window) {}
    /// The controller sets cwnd itself on every ACK, in recovery too, and
    /// the RecoveryOps leaves cwnd alone (Linux cong_control(): when a
    /// controller has one, tcp_cong_control() skips tcp_cwnd_reduction()
    /// and tcp_cong_avoid(), and tcp_end_cwnd_reduction() returns early).
    fn owns_cwnd(&self) -> bool {
        false
    }
    /// Whether the controller tests cwnd-limitedness itself. Linux's
    /// tcp_cong_avoid() calls cong_avoid() on every ACK that may raise
    /// cwnd and most modules return unless tcp_is_cwnd_limited(); the
    /// sender applies that test for them. A controller that says true
    /// gets `cong_avoid` whatever the flight and reads
    /// `CcCtx::cwnd_limited` where its module asks (Vegas under
    /// `[flow.vegas] gate = "linux"`).
    fn tests_cwnd_limited(&self) -> bool {
        false
    }
    /// cwnd on every ACK, for controllers that own it.
    fn cong_control(&mut self, _w: &mut Window, _ctx: &CcCtx) {}
    /// cwnd when a reduction is undone (Linux undo_cwnd();
    /// tcp_reno_undo_cwnd() restores the larger of now and before).
    fn undo_cwnd(&mut self, w: &Window, prior_cwnd: u64) -> u64 {
        w.cwnd.max(prior_cwnd)
    }
    /// The first transmission after nothing was in flight (Linux
    /// cwnd_event(CA_EVENT_TX_START)); `last_send` is the transmission
    /// before it (Linux tp->lsndtime, which cubictcp_cwnd_event() reads
    /// before tcp_event_data_sent() moves it to now).
    fn on_tx_start(&mut self, _now: Time, _last_send: Time) {}
    /// Whether `on_ack` must see every ACK. Controllers that only grow cwnd
    /// in `cong_avoid` say no, and the sender then builds their context
    /// only on the ACKs that grow cwnd (a cost every ACK would pay).
    fn observes_every_ack(&self) -> bool {
        true
    }
    /// Whether the sender should compute delivery-rate samples (rate.rs).
    /// Off by default so controllers without them pay nothing.
    fn wants_rate_samples(&self) -> bool {
        false
    }
    /// Whether the sender should fill in `CcCtx::pacing_rate` (a call and
    /// a division on every ACK that only cubic-linux's HyStart reads).
    fn wants_pacing_rate(&self) -> bool {
        false
    }
    /// Fewest segments a paced burst carries (Linux min_tso_segs();
    /// sysctl_tcp_min_tso_segs is 2).
    fn min_tso_segs(&self) -> u32 {
        2
    }
    /// Factor applied to every retransmission timeout (TCP-RR's shortened
    /// RTO); 1 for every controller that leaves the RTO alone.
    fn rto_factor(&self) -> f64 {
        1.0
    }
    /// Linux 3.2-3.14's TCP_CONG_RTT_STAMP (include/net/tcp.h) on a flow
    /// whose jiffy is `tick`: tcp_clean_rtx_queue() then hands
    /// pkts_acked() the microsecond skb->tstamp sample instead of
    /// jiffies_to_usecs(ca_seq_rtt). Read only by `rtt_sample =
    /// "linux-3.2"`.
    fn rtt_stamp(&self, _tick: Time) -> bool {
        false
    }
}

/// Which slow-start exit CUBIC uses (`[flow.cubic] hystart`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HyStartMode {
    /// RFC 5681 slow start until the first loss (`hystart = false`).
    #[default]
    Off,
    /// The older HyStart, hystart.rs `HyStart` (`hystart = true` or
    /// `"linux"`): a blend of kernel versions (hystart.rs's module
    /// comment says which parts).
    Linux,
    /// Linux 6.x's HyStart, hystart.rs `HyStartLinux6` (`hystart =
    /// "linux-6"`), the one `cubic-linux` runs.
    Linux6,
    /// Linux 4.10's HyStart, hystart.rs `HyStartOld` (`hystart =
    /// "linux-4.10"`): ms clock, first eight samples, clamp(min/8).
    Linux410,
    /// Linux 3.x's HyStart, hystart.rs `HyStartOld` (`hystart =
    /// "linux-3"`): as 4.10 with clamp(min/16); `cubic-linux-3`'s.
    Linux3,
    /// HyStart++, RFC 9406, hystart_plus_plus.rs (`hystart = "hystart++"`).
    PlusPlus,
}

impl HyStartMode {
    /// The string values of the scenario key (`true` and `false` are
    /// accepted too, for `Linux` and `Off`).
    pub const NAMES: &'static [&'static str] =
        &["linux", "linux-6", "linux-4.10", "linux-3", "hystart++"];

    pub fn by_name(name: &str) -> Option<Self> {
        match name {
            "linux" => Some(HyStartMode::Linux),
            "linux-6" => Some(HyStartMode::Linux6),
            "linux-4.10" => Some(HyStartMode::Linux410),
            "linux-3" => Some(HyStartMode::Linux3),
            "hystart++" => Some(HyStartMode::PlusPlus),
            _ => None,
        }
    }

    /// The string value of the scenario key (`Linux` and `Off` are
    /// written `true` and `false`).
    pub fn name(self) -> Option<&'static str> {
        match self {
            HyStartMode::Off | HyStartMode::Linux => None,
            HyStartMode::Linux6 => Some("linux-6"),
            HyStartMode::Linux410 => Some("linux-4.10"),
            HyStartMode::Linux3 => Some("linux-3"),
            HyStartMode::PlusPlus => Some("hystart++"),
        }
    }

    /// The kernel HyStarts `cubic-linux` and `cubic-linux-3` accept in
    /// place of their own (the others are not Linux code in Linux units).
    pub fn kernel_hystart(self) -> bool {
        matches!(
            self,
            HyStartMode::Linux6 | HyStartMode::Linux410 | HyStartMode::Linux3
        )
    }
}

/// Which slow start the controllers that share it run (`slow_start`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SlowStart {
    /// RFC 5681 section 3.1 with RFC 3465 byte counting in segments: while
    /// cwnd < ssthresh, cwnd grows by the segments newly acknowledged, up
    /// to ssthresh, the rest carried into congestion avoidance (Linux 4.x
    /// and later tcp_slow_start(tp, acked), net/ipv4/tcp_cong.c).
    #[default]
    PerSegment,
    /// Linux up to 3.13, tcp_slow_start(tp) in net/ipv4/tcp_cong.c with
    /// sysctl_tcp_abc = 0 and tcp_max_ssthresh = 0: while cwnd <=
    /// ssthresh (tcp_reno_cong_avoid(), bictcp_cong_avoid()), one segment
    /// per ACK however many it acknowledges, nothing carried over.
    PerAck,
    /// Linux 3.14 to 4.2, tcp_slow_start(tp, acked) (net/ipv4/tcp_cong.c,
    /// read at 3.17): while cwnd <= ssthresh (tcp_reno_cong_avoid() and
    /// every module's cong_avoid; `tcp_in_slow_start()`'s `<` came in
    /// 4.3), by the segments acknowledged up to ssthresh + 1, the rest
    /// dropped (the callers ignore what it returns).
    Linux314,
}

impl SlowStart {
    pub const NAMES: &'static [&'static str] = &["per-segment", "per-ack", "linux-3.14"];
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "per-segment" => Some(SlowStart::PerSegment),
            "per-ack" => Some(SlowStart::PerAck),
            "linux-3.14" => Some(SlowStart::Linux314),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            SlowStart::PerSegment => "per-segment",
            SlowStart::PerAck => "per-ack",
            SlowStart::Linux314 => "linux-3.14",
        }
    }
}

/// How the Reno family (`reno`, `newreno`, `westwood`, `veno`, `vegas`'s
/// Reno mode, `tcp-rr`) counts toward congestion avoidance's one segment
/// per window (`avoidance`). The CUBIC ports carry their kernel's rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Avoidance {
    /// One segment per w segments acknowledged (RFC 5681 equation 3 with
    /// byte counting; later Linux's tcp_cong_avoid_ai(tp, w, acked), 6.x
    /// read).
    #[default]
    PerSegment,
    /// Linux up to 3.17, tcp_cong_avoid_ai(tp, w) in net/ipv4/tcp_cong.c
    /// (read at 3.10.105 and 3.2.7; 2.6.18's tcp_reno_cong_avoid() has the
    /// same lines): one count per ACK however much it acknowledges, and
    /// the ACK that finds the count at w raises cwnd and restarts it, so
    /// cwnd grows once per w + 1 ACKs.
    PerAck,
}

impl Avoidance {
    pub const NAMES: &'static [&'static str] = &["per-segment", "per-ack"];
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "per-segment" => Some(Avoidance::PerSegment),
            "per-ack" => Some(Avoidance::PerAck),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Avoidance::PerSegment => "per-segment",
            Avoidance::PerAck => "per-ack",
        }
    }
}

/// Parameters a congestion controller may take.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcParams {
    /// `cubic`: the slow-start exit (`[flow.cubic] hystart = true |
    /// "linux" | "linux-6" | "linux-4.10" | "linux-3" | "hystart++"`); off
    /// by default. `cubic-linux` and `cubic-linux-3` read the kernel
    /// values ("linux-6", "linux-4.10", "linux-3") and keep their own
    /// HyStart for any other.
    pub hystart: HyStartMode,
    /// `tcp-rr` only: the factor on every RTO (`[flow.tcp-rr]
    /// rto_factor`, 0 < f <= 1; `tcp_rr::DEFAULT_RTO_FACTOR`).
    pub tcp_rr_rto_factor: f64,
    /// `westwood` only: Linux's CA_EVENT_COMPLETE_CWR (`[flow.westwood]
    /// complete_cwr = true`): cwnd = ssthresh = BWE x RTTmin at the end
    /// of every window reduction, whatever set the window during it
    /// (westwood.rs, `complete_cwr`); off by default.
    pub westwood_complete_cwr: bool,
    /// `westwood` only: Linux's ssthresh rule (`[flow.westwood] ssthresh
    /// = "linux"`; westwood.rs `WestwoodSsthresh`); BWE x RTTmin at once
    /// by default.
    pub westwood_ssthresh: WestwoodSsthresh,
    /// `westwood` only: Linux's jiffies at HZ = N for its times
    /// (`[flow.westwood] hz = N`; westwood.rs `with_hz`); 0, the
    /// default, keeps nanoseconds.
    pub westwood_hz: u32,
    /// `vegas` only: which ACKs reach its adjustment (`[flow.vegas]
    /// gate`; vegas.rs `VegasGate`).
    pub vegas_gate: VegasGate,
    /// `vegas` only: tcp_vegas_ssthresh()'s rule (`[flow.vegas] ssthresh`).
    pub vegas_ssthresh: VegasSsthresh,
    /// `bbr` only: which samples refresh min_rtt (`[flow.bbr]
    /// min_rtt_refresh`; Linux 5.10+'s `<` by default).
    pub bbr_min_rtt_refresh: MinRttRefresh,
    /// A per-flow seed for controllers that draw random numbers (BBR's
    /// random gain-cycle phase, Linux get_random_u32_below()); the
    /// simulator derives it from the scenario seed and the flow, so runs
    /// stay reproducible.
    pub seed: u64,
}

impl Default for CcParams {
    fn default() -> Self {
        CcParams {
            hystart: HyStartMode::Off,
            tcp_rr_rto_factor: tcp_rr::DEFAULT_RTO_FACTOR,
            westwood_complete_cwr: false,
            westwood_ssthresh: WestwoodSsthresh::Bwe,
            westwood_hz: 0,
            vegas_gate: VegasGate::CwndLimited,
            vegas_ssthresh: VegasSsthresh::Cwnd,
            bbr_min_rtt_refresh: MinRttRefresh::Lower,
            seed: 0,
        }
    }
}

/// Builds a congestion controller by name with its parameters.
pub fn build(name: &str, p: &CcParams) -> Option<Box<dyn CongestionControl>> {
    match name {
        "cubic" => Some(Box::new(Cubic::new().with_slow_start_exit(p.hystart))),
        "cubic-linux" if p.hystart.kernel_hystart() => {
            Some(Box::new(CubicLinux::new().with_hystart_mode(p.hystart)))
        }
        "cubic-linux-3" if p.hystart.kernel_hystart() => CubicLinux3::new()
            .with_hystart_mode(p.hystart)
            .map(|c| Box::new(c) as Box<dyn CongestionControl>),
        "tcp-rr" => {
            let f = p.tcp_rr_rto_factor;
            // The scenario parser checks the range; a library caller that
            // passes nonsense gets no controller rather than a silent one.
            (f > 0.0 && f <= 1.0).then(|| Box::new(TcpRr::new(f)) as Box<dyn CongestionControl>)
        }
        "bbr" => Some(Box::new(
            Bbr::new(p.seed).with_min_rtt_refresh(p.bbr_min_rtt_refresh),
        )),
        "westwood" => Some(Box::new(
            Westwood::new()
                .with_complete_cwr(p.westwood_complete_cwr)
                .with_ssthresh(p.westwood_ssthresh)
                .with_hz(p.westwood_hz),
        )),
        "vegas" => Some(Box::new(
            Vegas::new()
                .with_gate(p.vegas_gate)
                .with_ssthresh(p.vegas_ssthresh),
        )),
        _ => by_name(name),
    }
}

/// Builds a congestion controller by name.
pub fn by_name(name: &str) -> Option<Box<dyn CongestionControl>> {
    if let Some(n) = name.strip_prefix("fixed:") {
        let n: u64 = n.parse().ok().filter(|&n| n > 0)?;
        return Some(Box::new(Fixed::new(n)));
    }
    match name {
        "newreno" => Some(Box::new(NewReno)),
        "reno" => Some(Box::new(Reno)),
        "cubic" => Some(Box::new(Cubic::new())),
        "cubic-linux" => Some(Box::new(CubicLinux::new())),
        "cubic-linux-3" => Some(Box::new(CubicLinux3::new())),
        "bbr" => Some(Box::new(Bbr::new(0))),
        "westwood" => Some(Box::new(Westwood::new())),
        "westwood-original" => Some(Box::new(Westwood::original())),
        "veno" => Some(Box::new(Veno::new())),
        "vegas" => Some(Box::new(Vegas::new())),
        "tcp-rr" => Some(Box::new(TcpRr::default())),
        _ => None,
    }
}

/// RFC 5681 section 3.1 slow start: cwnd grows by the segments newly
/// acknowledged, up to ssthresh; returns the credit left over for
/// congestion avoidance (Linux tcp_slow_start()).
pub fn slow_start(w: &mut Window, acked: u64) -> u64 {
    let cwnd = (w.cwnd + acked).min(w.ssthresh);
    let used = cwnd - w.cwnd;
    w.cwnd = cwnd;
    acked - used.min(acked)
}

/// Whether an ACK that may grow cwnd grows it by slow start: `cwnd <
/// ssthresh` (RFC 5681 section 3.1, Linux 4.x tcp_in_slow_start()), or
/// with `slow_start = "per-ack"` or `"linux-3.14"` Linux 3.x's
/// `snd_cwnd <= snd_ssthresh` (tcp_reno_cong_avoid() in
/// net/ipv4/tcp_cong.c).
pub fn in_slow_start(w: &Window, ctx: &CcCtx) -> bool {
    match ctx.slow_start {
        SlowStart::PerSegment => w.in_slow_start(),
        SlowStart::PerAck | SlowStart::Linux314 => w.cwnd <= w.ssthresh,
    }
}

/// Slow start on this ACK in the flow's `slow_start` mode; returns the
/// credit left for congestion avoidance (none per ACK: Linux 3.x's
/// cong_avoid() runs slow start or tcp_cong_avoid_ai(), never both).
pub fn grow_in_slow_start(w: &mut Window, acked: u64, ctx: &CcCtx) -> u64 {
    match ctx.slow_start {
        SlowStart::PerSegment => slow_start(w, acked),
        SlowStart::PerAck => {
            slow_start_per_ack(w);
            0
        }
        SlowStart::Linux314 => {
            slow_start_linux314(w, acked);
            0
        }
    }
}

/// tcp_slow_start(tp, acked) of 3.14-4.2 (net/ipv4/tcp_cong.c, read at
/// 3.17): cwnd grows by the segments acked up to ssthresh + 1; the
/// caller drops what is left.
pub fn slow_start_linux314(w: &mut Window, acked: u64) {
    let mut cwnd = w.cwnd + acked;
    if cwnd > w.ssthresh {
        cwnd = w.ssthresh.saturating_add(1);
    }
    w.cwnd = cwnd;
}

/// tcp_slow_start(tp) of Linux 3.10 (net/ipv4/tcp_cong.c), with
/// tcp_max_ssthresh = 0: `snd_cwnd_cnt += snd_cwnd`, then one segment
/// for each whole snd_cwnd in snd_cwnd_cnt, counted against the cwnd
/// before this ACK. Ordinarily cwnd_cnt < cwnd, so exactly one segment
/// per ACK; there is no ssthresh cap (the caller's `<=` test lets cwnd
/// reach ssthresh + 1). 3.2's loop compares against the growing cwnd and
/// has RFC 3465 byte counting behind sysctl_tcp_abc, off by default; the
/// two agree whenever cwnd_cnt < cwnd.
pub fn slow_start_per_ack(w: &mut Window) {
    let cwnd = w.cwnd.max(1);
    w.cwnd_cnt += cwnd;
    let delta = w.cwnd_cnt / cwnd;
    w.cwnd_cnt -= delta * cwnd;
    w.cwnd = cwnd + delta;
}

/// Congestion avoidance's step toward one segment per `per`, counted as
/// the flow's `avoidance` says.
pub fn avoid(w: &mut Window, per: u64, acked: u64, ctx: &CcCtx) {
    match ctx.avoidance {
        Avoidance::PerSegment => additive_increase(w, per, acked),
        Avoidance::PerAck => cong_avoid_ai_per_ack(w, per),
    }
}

/// tcp_cong_avoid_ai(tp, w) of Linux up to 3.17 (net/ipv4/tcp_cong.c):
/// one count per ACK; the ACK that finds snd_cwnd_cnt at w raises cwnd
/// and restarts the count, so cwnd grows once per w + 1 ACKs.
pub fn cong_avoid_ai_per_ack(win: &mut Window, w: u64) {
    if win.cwnd_cnt >= w {
        win.cwnd += 1;
        win.cwnd_cnt = 0;
    } else {
        win.cwnd_cnt += 1;
    }
}

/// Additive increase of one segment per `per` segments acknowledged
/// (Linux tcp_cong_avoid_ai(), RFC 5681 equation 3 in segments).
pub fn additive_increase(w: &mut Window, per: u64, acked: u64) {
    let per = per.max(1);
    if w.cwnd_cnt >= per {
        w.cwnd_cnt = 0;
        w.cwnd += 1;
    }
    w.cwnd_cnt += acked;
    if w.cwnd_cnt >= per {
        let delta = w.cwnd_cnt / per;
        w.cwnd_cnt -= delta * per;
        w.cwnd += delta;
    }
}

/// Test helpers the controllers' unit tests share.
#[cfg(test)]
pub(crate) mod testing {
    use super::CcCtx;
    use crate::time::MS;
    use crate::window::Window;

    pub fn window(cwnd: u64, ssthresh: u64) -> Window {
        Window {
            cwnd,
            ssthresh,
            cwnd_cnt: 0,
        }
    }

    /// An ACK at time 0 with an RTT sample of `rtt_ms` (if any) that moves
    /// snd.una to `una` with snd.nxt at `nxt`.
    pub fn rtt_ack(rtt_ms: Option<u64>, una: u64, nxt: u64) -> CcCtx {
        CcCtx {
            rtt_sample: rtt_ms.map(|r| r * MS),
            snd_una: una,
            snd_nxt: nxt,
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::MS;

    #[test]
    fn tcp_cong_rtt_stamp_as_linux_3_2_to_3_14_set_it() {
        // cubictcp_register(): `if (hystart && HZ < 1000)`. A 4 ms tick is
        // HZ = 250, a 1 ms tick HZ = 1000.
        let hystart = CcParams {
            hystart: HyStartMode::Linux,
            ..Default::default()
        };
        let cubic = build("cubic", &hystart).unwrap();
        assert!(cubic.rtt_stamp(4 * MS));
        assert!(!cubic.rtt_stamp(MS));
        // Without HyStart cubic keeps jiffies at any HZ.
        assert!(!by_name("cubic").unwrap().rtt_stamp(4 * MS));
        assert!(by_name("cubic-linux").unwrap().rtt_stamp(4 * MS));
        assert!(!by_name("cubic-linux").unwrap().rtt_stamp(MS));
        // tcp_vegas and tcp_veno set the flag in their ops; Reno and
        // Westwood do not.
        for (name, stamp) in [
            ("vegas", true),
            ("veno", true),
            ("reno", false),
            ("newreno", false),
            ("westwood", false),
        ] {
            assert_eq!(by_name(name).unwrap().rtt_stamp(MS), stamp, "{name}");
        }
    }
}

#[cfg(test)]
mod slow_start_tests {
    use super::*;

    /// NewReno's growth on ACKs of `segs` segments each, in `mode`.
    fn grow(w: &mut Window, segs: &[u64], mode: SlowStart) {
        let ctx = CcCtx {
            slow_start: mode,
            ..Default::default()
        };
        for &s in segs {
            NewReno.cong_avoid(w, s, &ctx);
        }
    }

    /// Delayed ACKs, one per two segments. From cwnd 10 a round sends 10
    /// segments and gets 5 ACKs: per segment +2 each, 20 (2x per RTT);
    /// per ACK +1 each, 15 (1.5x). The next round from 15: 7 ACKs of two
    /// and one of one (the delayed-ACK timer): 15 + 8 = 23; from 20 per
    /// segment: 10 ACKs of two, 40.
    #[test]
    fn per_ack_slow_start_grows_one_and_a_half_per_rtt() {
        let ss = u64::MAX / 4;
        let mut seg = Window {
            cwnd: 10,
            ssthresh: ss,
            cwnd_cnt: 0,
        };
        let mut ack = seg;
        grow(&mut seg, &[2; 5], SlowStart::PerSegment);
        grow(&mut ack, &[2; 5], SlowStart::PerAck);
        assert_eq!((seg.cwnd, ack.cwnd), (20, 15));
        grow(&mut seg, &[2; 10], SlowStart::PerSegment);
        grow(&mut ack, &[2, 2, 2, 2, 2, 2, 2, 1], SlowStart::PerAck);
        assert_eq!((seg.cwnd, ack.cwnd), (40, 23));
    }

    /// tcp_slow_start(tp) of 3.10: cwnd_cnt += cwnd, one segment per
    /// whole cwnd in it. A count of 25 left at cwnd 10: 35 -> +3, 5 left.
    /// The boundary: at cwnd 11 = ssthresh, per ACK is still slow start
    /// (3.x `<=`): 12; per segment it is avoidance: cwnd_cnt 0 -> 1, 11.
    #[test]
    fn per_ack_counter_and_boundary() {
        let mut w = Window {
            cwnd: 10,
            ssthresh: 100,
            cwnd_cnt: 25,
        };
        slow_start_per_ack(&mut w);
        assert_eq!((w.cwnd, w.cwnd_cnt), (13, 5));
        let at = Window {
            cwnd: 11,
            ssthresh: 11,
            cwnd_cnt: 0,
        };
        let (mut a, mut s) = (at, at);
        grow(&mut a, &[1], SlowStart::PerAck);
        grow(&mut s, &[1], SlowStart::PerSegment);
        assert_eq!((a.cwnd, s.cwnd, s.cwnd_cnt), (12, 11, 1));
    }

    /// tcp_slow_start(tp, acked) of 3.17 with its `<=` test. From cwnd 8,
    /// ssthresh 10: an ACK of 2 gives 10 (per segment too); at cwnd 10 =
    /// ssthresh an ACK of 2 is still slow start and stops at ssthresh + 1,
    /// 11, the extra segment dropped; per segment it is avoidance (10,
    /// cwnd_cnt 2). At 11 both are in avoidance.
    #[test]
    fn linux_314_slow_start_stops_at_ssthresh_plus_one() {
        let start = Window {
            cwnd: 8,
            ssthresh: 10,
            cwnd_cnt: 0,
        };
        let (mut l, mut s) = (start, start);
        grow(&mut l, &[2], SlowStart::Linux314);
        grow(&mut s, &[2], SlowStart::PerSegment);
        assert_eq!((l.cwnd, s.cwnd), (10, 10));
        grow(&mut l, &[2], SlowStart::Linux314);
        grow(&mut s, &[2], SlowStart::PerSegment);
        assert_eq!((l.cwnd, l.cwnd_cnt), (11, 0));
        assert_eq!((s.cwnd, s.cwnd_cnt), (10, 2));
        grow(&mut l, &[2], SlowStart::Linux314);
        assert_eq!(l.cwnd, 11);
        assert!(l.cwnd_cnt > 0);
    }

    #[test]
    fn names() {
        for n in SlowStart::NAMES {
            assert_eq!(SlowStart::from_name(n).unwrap().name(), *n);
        }
        // Every name an error message offers parses.
        for n in Avoidance::NAMES {
            assert_eq!(Avoidance::from_name(n).unwrap().name(), *n);
        }
        assert_eq!(SlowStart::default(), SlowStart::PerSegment);
        assert_eq!(SlowStart::from_name("abc"), None);
        for n in HyStartMode::NAMES {
            let m = HyStartMode::by_name(n).unwrap();
            if *n != "linux" {
                assert_eq!(m.name(), Some(*n));
            }
        }
    }
}
