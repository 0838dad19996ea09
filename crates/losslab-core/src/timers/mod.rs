//! TimerPolicy: when the retransmission timer is armed (RFC 6298 section 5
//! and its successors: RTO Restart, TLP, TLPR, RACK-TLP).

mod rack_tlp;
mod rto;
mod rtor;
mod tlp;
mod tlpr;

pub use rack_tlp::{linux_pto_deadline, Pto, RackTlp};
pub use rto::Rfc6298;
pub use rtor::{Rtor, RRTHRESH};
pub use tlp::{paper_pto, tlp_pto_deadline, Tlp, TlpPto, PTO_FLOOR, WC_DEL_ACK};
pub use tlpr::Tlpr;

use crate::event::TimerKind;
use crate::time::Time;

/// Names accepted by `by_name`.
pub const NAMES: &[&str] = &["rto", "rtor", "tlp", "tlpr", "rack-tlp"];

/// What a timer policy may look at.
#[derive(Clone, Copy, Debug, Default)]
pub struct TimerCtx {
    pub now: Time,
    /// The current RTO, backoff included.
    pub rto: Time,
    pub srtt: Option<Time>,
    pub packets_out: u64,
    /// Send time of the earliest outstanding segment's latest transmission.
    pub oldest_sent: Option<Time>,
    /// Send time of the latest transmission of any outstanding segment.
    pub newest_sent: Option<Time>,
    /// Unsent data is ready and the windows allow sending it.
    pub has_unsent: bool,
    pub in_recovery: bool,
    /// A loss probe was sent and its TLP episode is not over (one probe
    /// per tail: RFC 8985 section 7.3 condition 1, Linux tlp_high_seq).
    pub probe_in_flight: bool,
    /// An RTT sample was taken since the last loss probe (RFC 8985
    /// section 7.3 condition 2).
    pub rtt_since_probe: bool,
    /// Segments SACKed (RFC 8985's RACK.segs_sacked); without SACK, the
    /// duplicate ACKs counted as Linux's tcp_add_reno_sack() counts them.
    pub sacked_out: u64,
    /// Linux would be in CA_Disorder (tcp_try_keep_open()): something is
    /// SACKed or marked lost, a retransmission is in flight, or the first
    /// outstanding segment was ever retransmitted (tcp_left_out() ||
    /// tcp_any_retrans_done()).
    pub disorder: bool,
    /// cwnd exceeds the packets in flight and data is queued (Linux
    /// 3.10-4.x tcp_schedule_loss_probe(): `tp->snd_cwnd >
    /// tcp_packets_in_flight(tp) && tcp_send_head(sk)`); filled in only
    /// for policies that read it (`TimerPolicy::reads_cwnd_room`).
    pub cwnd_room_and_queue: bool,
    /// In `on_ack`: the ACK is below snd_una, which Linux's tcp_ack()
    /// sends to its old_ack path before any timer is touched.
    pub old_ack: bool,
    /// In `on_ack`: the RTO before this ACK's RTT sample, which Linux
    /// 3.10-4.x's tcp_ack() uses when it re-arms a pending probe's RTO
    /// (tcp_rearm_rto() runs before tcp_clean_rtx_queue() ->
    /// tcp_ack_update_rtt() -> tcp_set_rto()); elsewhere `rto`. A
    /// context built by hand must set it (its default, 0, would re-arm at
    /// the head's send time itself).
    pub prior_rto: Time,
}

/// Linux's CA_Disorder test (tcp_try_keep_open(): tcp_left_out() ||
/// tcp_any_retrans_done()): segments SACKed or marked lost (`left_out`,
/// SACKed including the duplicate ACKs tcp_add_reno_sack() counts), a
/// retransmission in flight, or the first outstanding segment ever
/// retransmitted.
pub fn ca_disorder(left_out: u64, retrans_out: u64, head_ever_retransmitted: bool) -> bool {
    left_out > 0 || retrans_out > 0 || head_ever_retransmitted
}

/// In which state a loss probe may be armed (`probe_gate`); never in fast
/// or RTO recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeGate {
    /// Linux's tcp_schedule_loss_probe() (3.10 to 6.x): only in CA_Open,
    /// not in CA_Disorder (`TimerCtx::disorder`). The TLP draft's "Open
    /// state" (draft-dukkipati-tcpm-tcp-loss-probe section 2.1: in-sequence
    /// ACKs with no SACK blocks and no other sign of loss), which the
    /// tail-loss paper's TLP needs (its section 3.2: "TLP and TLPR require
    /// to be in the open state").
    Linux,
    /// RFC 8985 section 7.2: not while segments are SACKed
    /// (RACK.segs_sacked is not zero).
    Rfc8985,
    /// Whenever neither recovery runs: losslab before the key.
    Recovery,
}

impl ProbeGate {
    pub const NAMES: &'static [&'static str] = &["linux", "rfc8985", "recovery"];

    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "linux" => Some(ProbeGate::Linux),
            "rfc8985" => Some(ProbeGate::Rfc8985),
            "recovery" => Some(ProbeGate::Recovery),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ProbeGate::Linux => "linux",
            ProbeGate::Rfc8985 => "rfc8985",
            ProbeGate::Recovery => "recovery",
        }
    }

    /// The gate a timer policy takes when the flow names none: its own
    /// document's (`tlp` and `tlpr`: the TLP draft's, as Linux has it;
    /// `rack-tlp`: RFC 8985's).
    pub fn of_timers(timers: &str) -> Self {
        if timers == "rack-tlp" {
            ProbeGate::Rfc8985
        } else {
            ProbeGate::Linux
        }
    }

    /// Whether the state `ctx` describes lets a probe be armed.
    pub fn allows(self, ctx: &TimerCtx) -> bool {
        !ctx.in_recovery
            && match self {
                ProbeGate::Linux => !ctx.disorder,
                ProbeGate::Rfc8985 => ctx.sacked_out == 0,
                ProbeGate::Recovery => true,
            }
    }
}

/// How `tlp` and `tlpr` move their timer on ACKs and sends (`[flow.tlp]
/// rearm`, `[flow.tlpr] rearm`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ProbeRearm {
    /// RFC 8985 section 7.2 with RFC 6298 (5.3): the probe is (re)armed
    /// after a transmission of new data and on an ACK that acknowledges
    /// new data, capped by the RTO, which runs from its last restart;
    /// another ACK leaves the timer alone unless the probe it holds is no
    /// longer allowed, when that running RTO takes its place.
    #[default]
    Rfc8985,
    /// Linux 3.10-4.x (tcp_ack(), tcp_rearm_rto(),
    /// tcp_event_new_data_sent(), tcp_schedule_loss_probe()): every ACK
    /// that is not old, and every transmission of new data, that finds a
    /// probe pending first replaces it by the RTO counted from the first
    /// outstanding segment's last transmission (tcp_rearm_rto()'s "offset
    /// the time elapsed after installing regular RTO"; now + RTO if that
    /// has passed; on an ACK, the RTO before its RTT sample:
    /// `TimerCtx::prior_rto`); an ACK of new data then restarts the RTO
    /// from now; and the probe is armed again from now when allowed,
    /// capped by that RTO. Allowed also needs what 3.10-4.x's
    /// tcp_schedule_loss_probe() asks beyond `probe_gate`: not cwnd room
    /// with data queued (the data goes instead, and the RTO restarted by
    /// the ACK caps the probe the last send arms).
    Linux3,
}

impl ProbeRearm {
    pub const NAMES: &'static [&'static str] = &["rfc8985", "linux-3"];

    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "rfc8985" => Some(ProbeRearm::Rfc8985),
            "linux-3" => Some(ProbeRearm::Linux3),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ProbeRearm::Rfc8985 => "rfc8985",
            ProbeRearm::Linux3 => "linux-3",
        }
    }

    /// Whether the rule reads `TimerCtx::cwnd_room_and_queue`.
    pub fn reads_cwnd_room(self) -> bool {
        self == ProbeRearm::Linux3
    }

    /// 3.10-4.x's tcp_schedule_loss_probe() refuses a probe while cwnd has
    /// room for queued data; RFC 8985 does not.
    pub fn refuses(self, ctx: &TimerCtx) -> bool {
        self.reads_cwnd_room() && ctx.cwnd_room_and_queue
    }
}

/// A deadline and what happens when it passes.
pub type Deadline = Option<(Time, TimerKind)>;

pub trait TimerPolicy {
    fn name(&self) -> &'static str;
    /// After a segment was (re)transmitted.
    fn on_send(&mut self, ctx: &TimerCtx, current: Deadline) -> Deadline;
    /// After an ACK; `restart` when the ACK may restart the timer: it
    /// acknowledged new data (RFC 6298 5.3; the sender clears it for a
    /// partial ACK the recovery holds: NewReno's Impatient variant, RFC
    /// 6582 3.2 step 4), or, with `rto_rearm_on_sack`, it SACKed data
    /// sent before the head's last transmission (Linux
    /// tcp_clean_rtx_queue()).
    fn on_ack(&mut self, ctx: &TimerCtx, restart: bool, current: Deadline) -> Deadline;
    /// The sender infers from a retransmitted probe's ACK that the original
    /// was lost and reduces cwnd (RFC 8985 section 7.4).
    fn infers_loss_from_probe(&self) -> bool {
        false
    }
    /// It arms loss probes, gated on `TimerCtx::sacked_out` and
    /// `disorder` (`ProbeGate`); the sender fills those in only then.
    fn arms_probes(&self) -> bool {
        false
    }
    /// It reads `TimerCtx::cwnd_room_and_queue`, which the sender then
    /// fills in (a look at the application per send and ACK).
    fn reads_cwnd_room(&self) -> bool {
        false
    }
}

/// Parameters a timer policy may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimerParams {
    /// RTO Restart's rrthresh (RFC 7765 section 3), for `rtor` and `tlpr`.
    pub rrthresh: u64,
    /// `tlp` and `tlpr`: infer a loss from a retransmitted probe's ACK and
    /// reduce cwnd (Linux 3.10 tcp_process_tlp_ack(); `rack-tlp` always
    /// does, RFC 8985 7.4).
    pub tlp_loss_inference: bool,
    /// `tlpr`: cap the restarted probe at RTOR's restarted RTO (ours, not
    /// the paper's; tlpr.rs).
    pub tlpr_rtor_cap: bool,
    /// `rack-tlp`: how the probe timeout is computed (RFC 8985 or Linux's
    /// tcp_schedule_loss_probe(); rack_tlp.rs), the HZ of Linux's jiffies
    /// (the flow's `timer_hz`; 0: exact) and the minimum RTO Linux 6.6+
    /// adds with one packet out.
    pub rack_tlp_pto: Pto,
    pub timer_hz: u32,
    pub min_rto: Time,
    /// `tlp`, `tlpr` and `rack-tlp`: when a probe may be armed (None: the
    /// timer's own document's, `ProbeGate::of_timers`).
    pub probe_gate: Option<ProbeGate>,
    /// `tlp` and `tlpr`: how ACKs and sends move their timer.
    pub probe_rearm: ProbeRearm,
    /// `tlp` and `tlpr`: how the probe timeout is computed (in jiffies of
    /// `timer_hz` for the Linux modes).
    pub tlp_pto: TlpPto,
}

impl Default for TimerParams {
    fn default() -> Self {
        TimerParams {
            rrthresh: rtor::RRTHRESH,
            tlp_loss_inference: true,
            tlpr_rtor_cap: false,
            rack_tlp_pto: Pto::Rfc8985,
            timer_hz: 0,
            min_rto: 200 * crate::time::MS,
            probe_gate: None,
            probe_rearm: ProbeRearm::Rfc8985,
            tlp_pto: TlpPto::Paper,
        }
    }
}

/// Whether the policy named `name` arms loss probes (and so reads
/// `probe_gate`).
pub fn arms_probes(name: &str) -> bool {
    by_name(name).is_some_and(|t| t.arms_probes())
}

pub fn by_name(name: &str) -> Option<Box<dyn TimerPolicy>> {
    build(name, &TimerParams::default())
}

/// Builds a timer policy by name with its parameters.
pub fn build(name: &str, p: &TimerParams) -> Option<Box<dyn TimerPolicy>> {
    let gate = p.probe_gate.unwrap_or(ProbeGate::of_timers(name));
    match name {
        "rto" => Some(Box::new(Rfc6298)),
        "rtor" => Some(Box::new(Rtor {
            rrthresh: p.rrthresh,
        })),
        "tlp" => Some(Box::new(
            Tlp::default()
                .with_loss_inference(p.tlp_loss_inference)
                .with_gate(gate)
                .with_rearm(p.probe_rearm)
                .with_pto(p.tlp_pto, p.timer_hz),
        )),
        "tlpr" => Some(Box::new(
            Tlpr::with_rrthresh(p.rrthresh)
                .with_loss_inference(p.tlp_loss_inference)
                .with_rtor_cap(p.tlpr_rtor_cap)
                .with_gate(gate)
                .with_rearm(p.probe_rearm)
                .with_pto(p.tlp_pto, p.timer_hz),
        )),
        "rack-tlp" => Some(Box::new(
            RackTlp::default()
                .with_pto(p.rack_tlp_pto, p.timer_hz, p.min_rto)
                .with_gate(gate),
        )),
        _ => None,
    }
}
