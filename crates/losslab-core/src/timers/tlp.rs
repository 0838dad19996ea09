//! Tail Loss Probe as the tail-loss paper evaluates it (section 2.2,
//! draft-dukkipati-tcpm-tcp-loss-probe; Linux 3.10
//! tcp_schedule_loss_probe()): in Open state, with an SRTT, a probe timeout
//! (PTO) is armed instead of the RTO; when it fires the sender sends one
//! probe (new data, else the highest outstanding segment) and arms the RTO.
//! The probe's ACK then drives the ordinary loss detection.
//!
//! The scheduling helpers here are shared with `tlpr` and `rack-tlp`.

use super::{Deadline, ProbeGate, ProbeRearm, TimerCtx, TimerPolicy};
use crate::event::TimerKind;
use crate::time::{jiffy_deadline, usecs_to_jiffies, Time, MS, SEC, US};

/// Worst-case delayed-ACK timer (WCDelAckT; paper section 2.2, RFC 8985's
/// TLP.max_ack_delay default).
pub const WC_DEL_ACK: Time = 200 * MS;
/// The paper's equation (1) floor.
pub const PTO_FLOOR: Time = 10 * MS;

/// The paper's PTO: equation (1) with more than one segment outstanding,
/// max(2 SRTT, 10 ms); equation (2) with one, max(2 SRTT, 1.5 SRTT +
/// WCDelAckT). The cap by the RTO is applied by the caller.
pub fn paper_pto(srtt: Time, packets_out: u64) -> Time {
    if packets_out <= 1 {
        (2 * srtt).max(srtt + srtt / 2 + WC_DEL_ACK)
    } else {
        (2 * srtt).max(PTO_FLOOR)
    }
}

/// How `tlp` computes its probe timeout (`[flow.tlp] pto`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TlpPto {
    /// The paper's equations (1) and (2) at exact times (`paper_pto`; the
    /// engine before the key).
    #[default]
    Paper,
    /// Linux 3.10-3.14 tcp_schedule_loss_probe(): the same equations in
    /// whole jiffies, the SRTT truncated to jiffies (`tp->srtt >> 3`:
    /// those kernels keep SRTT in jiffies; the engine's SRTT, which is not
    /// rounded on every sample, stands in for it), at least one jiffy
    /// (tcp_rtt_estimator() takes a 0-jiffy sample as 1, so `srtt >> 3` is
    /// never 0 once there is a sample).
    Linux310,
    /// Linux 3.15 to 4.10 tcp_schedule_loss_probe() (read at 3.17.0 and
    /// 4.10.17; later kernels compute it otherwise, rack_tlp.rs): SRTT in
    /// microseconds rounded up to jiffies (`usecs_to_jiffies(tp->srtt_us
    /// >> 3)`).
    Linux315,
}

impl TlpPto {
    pub const NAMES: &'static [&'static str] = &["paper", "linux-3.10", "linux-3.15"];

    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "paper" => Some(TlpPto::Paper),
            "linux-3.10" => Some(TlpPto::Linux310),
            "linux-3.15" => Some(TlpPto::Linux315),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            TlpPto::Paper => "paper",
            TlpPto::Linux310 => "linux-3.10",
            TlpPto::Linux315 => "linux-3.15",
        }
    }

    /// Whether the mode counts jiffies (and so needs a `timer_hz`).
    pub fn counts_jiffies(self) -> bool {
        self != TlpPto::Paper
    }
}

/// When a probe armed at `now` fires, with SRTT `srtt` and `packets_out`
/// segments out, before the cap by the RTO. For the Linux modes at HZ =
/// `hz` (3.10-4.10 tcp_schedule_loss_probe(), net/ipv4/tcp_output.c):
/// `timeout = rtt << 1`; with one packet out at least `rtt + (rtt >> 1) +
/// TCP_DELACK_MAX` (HZ / 5 jiffies); at least `msecs_to_jiffies(10)`;
/// counted from the jiffy `now` falls in. The cap by the RTO that follows
/// (`ProbeSchedule::choose`, then the sender's tick) is Linux's: the RTO
/// fires on its own jiffy, and a probe past it is moved onto it (when the
/// RTO is already due Linux keeps the whole timeout, the engine probes at
/// once).
pub fn tlp_pto_deadline(mode: TlpPto, now: Time, srtt: Time, packets_out: u64, hz: u32) -> Time {
    if mode == TlpPto::Paper || hz == 0 {
        return now + paper_pto(srtt, packets_out);
    }
    let hz = u64::from(hz);
    let rtt = match mode {
        TlpPto::Linux310 => (srtt / (SEC / hz)).max(1),
        _ => usecs_to_jiffies(srtt / US, hz),
    };
    let mut timeout = rtt << 1;
    if packets_out == 1 {
        timeout = timeout.max(rtt + (rtt >> 1) + hz / 5);
    }
    // msecs_to_jiffies() rounds up as usecs_to_jiffies() does.
    timeout = timeout.max(usecs_to_jiffies(PTO_FLOOR / US, hz));
    jiffy_deadline(now, timeout, hz)
}

/// Keeps, beside the deadline actually armed, the RFC 6298 deadline the
/// RTO would have, so a probe is never scheduled after the RTO would fire
/// (paper section 2.2, "set to the minimum of the calculated PTO and the
/// RTO"; RFC 8985 section 7.2, TCP_RTO_expiration()).
#[derive(Clone, Debug, Default)]
pub(super) struct ProbeSchedule {
    rto_at: Option<Time>,
}

impl ProbeSchedule {
    fn running_rto(&self, current: Deadline) -> Option<Time> {
        match current {
            Some((t, TimerKind::Rto)) => Some(t),
            Some(_) => self.rto_at,
            None => None,
        }
    }

    /// RFC 6298 (5.1): where the RTO stands after a transmission.
    pub(super) fn rto_after_send(&mut self, ctx: &TimerCtx, current: Deadline) -> Time {
        let t = self.running_rto(current).unwrap_or(ctx.now + ctx.rto);
        self.rto_at = Some(t);
        t
    }

    /// RFC 6298 (5.3): where the RTO stands after an ACK (which the caller
    /// only asks for with data outstanding).
    pub(super) fn rto_after_ack(
        &mut self,
        ctx: &TimerCtx,
        restart: bool,
        current: Deadline,
    ) -> Option<Time> {
        let t = if restart {
            Some(ctx.now + ctx.rto)
        } else {
            self.running_rto(current)
        };
        self.rto_at = t;
        t
    }

    /// Linux 3.10-4.x tcp_rearm_rto() with a probe pending: `rto`
    /// counted from the first outstanding segment's last transmission,
    /// or a whole `rto` from now if that has passed. Otherwise the RTO
    /// that is running stays (a whole `rto` from now when none is).
    fn linux3_rto(&self, ctx: &TimerCtx, current: Deadline, rto: Time) -> Time {
        let head = match current {
            Some((_, TimerKind::Probe)) => {
                ctx.oldest_sent.map(|t| t + rto).filter(|&t| t > ctx.now)
            }
            _ => self.running_rto(current),
        };
        head.unwrap_or(ctx.now + rto)
    }

    /// Where the timer stands after a transmission, with the probe
    /// `probe_at` the policy would arm, under the re-arm rule `rearm`.
    pub(super) fn after_send(
        &mut self,
        rearm: ProbeRearm,
        ctx: &TimerCtx,
        current: Deadline,
        probe_at: Option<Time>,
    ) -> Deadline {
        match rearm {
            ProbeRearm::Linux3 => self.linux3_after_send(ctx, current, probe_at),
            ProbeRearm::Rfc8985 => {
                let rto_at = self.rto_after_send(ctx, current);
                Self::choose(ctx, rto_at, probe_at)
            }
        }
    }

    /// Where the timer stands after an ACK (`restart`: it acknowledged new
    /// data or re-arms the RTO), as `after_send`.
    pub(super) fn after_ack(
        &mut self,
        rearm: ProbeRearm,
        ctx: &TimerCtx,
        restart: bool,
        current: Deadline,
        probe_at: Option<Time>,
    ) -> Deadline {
        match rearm {
            ProbeRearm::Linux3 => self.linux3_after_ack(ctx, restart, current, probe_at),
            ProbeRearm::Rfc8985 => self.on_ack(ctx, restart, current, probe_at),
        }
    }

    /// Linux 3.10-4.x after a transmission of new data
    /// (tcp_event_new_data_sent(): tcp_rearm_rto() when nothing was out
    /// or a probe is pending; then tcp_write_xmit() ->
    /// tcp_schedule_loss_probe()).
    fn linux3_after_send(
        &mut self,
        ctx: &TimerCtx,
        current: Deadline,
        probe_at: Option<Time>,
    ) -> Deadline {
        let rto_at = self.linux3_rto(ctx, current, ctx.rto);
        self.rto_at = Some(rto_at);
        Self::choose(ctx, rto_at, probe_at)
    }

    /// Linux 3.10-4.x tcp_ack() on an ACK that is not old: a pending probe
    /// gives way to tcp_rearm_rto()'s RTO; tcp_clean_rtx_queue() restarts
    /// the RTO from now on FLAG_ACKED (and, since 3.13, on the SACK
    /// re-arm: `restart`); tcp_schedule_loss_probe() then arms the probe
    /// again when allowed, capped by that RTO. An old ACK leaves the timer
    /// alone (tcp_ack()'s old_ack path).
    fn linux3_after_ack(
        &mut self,
        ctx: &TimerCtx,
        restart: bool,
        current: Deadline,
        probe_at: Option<Time>,
    ) -> Deadline {
        if ctx.packets_out == 0 {
            self.rto_at = None;
            return None;
        }
        if ctx.old_ack {
            return current;
        }
        // tcp_ack()'s re-arm runs before this ACK's RTT sample (the RTO
        // before it); tcp_clean_rtx_queue()'s restart after it.
        let rto_at = if restart {
            ctx.now + ctx.rto
        } else {
            self.linux3_rto(ctx, current, ctx.prior_rto)
        };
        self.rto_at = Some(rto_at);
        Self::choose(ctx, rto_at, probe_at)
    }

    /// A probe at `probe_at` (capped by the RTO, never in the past), or the
    /// RTO when no probe may be armed.
    pub(super) fn choose(ctx: &TimerCtx, rto_at: Time, probe_at: Option<Time>) -> Deadline {
        match probe_at {
            Some(p) => Some((p.min(rto_at).max(ctx.now), TimerKind::Probe)),
            None => Some((rto_at, TimerKind::Rto)),
        }
    }

    /// The common on_ack: stop when nothing is outstanding, leave the
    /// deadline alone on an ACK without new data unless a pending probe is
    /// no longer allowed, and otherwise restart (probe or RTO).
    pub(super) fn on_ack(
        &mut self,
        ctx: &TimerCtx,
        restart: bool,
        current: Deadline,
        probe_at: Option<Time>,
    ) -> Deadline {
        self.on_ack_with(ctx, restart, current, |_| probe_at)
    }

    /// `on_ack` for a policy whose probe depends on when the RTO is due
    /// (`probe_at(rto_at)`; Linux caps the probe in jiffies itself).
    pub(super) fn on_ack_with(
        &mut self,
        ctx: &TimerCtx,
        restart: bool,
        current: Deadline,
        probe_at: impl FnOnce(Time) -> Option<Time>,
    ) -> Deadline {
        if ctx.packets_out == 0 {
            self.rto_at = None;
            return None;
        }
        let rto_at = self.rto_after_ack(ctx, restart, current);
        let probe_at = probe_at(rto_at.unwrap_or(ctx.now + ctx.rto));
        if !restart {
            return match (current, rto_at) {
                (Some((_, TimerKind::Probe)), Some(r)) if probe_at.is_none() => {
                    Some((r, TimerKind::Rto))
                }
                _ => current,
            };
        }
        Self::choose(ctx, rto_at.unwrap_or(ctx.now + ctx.rto), probe_at)
    }
}

/// Probes are armed in the state `gate` allows, with an SRTT, data
/// outstanding, and no probe of this tail in flight (paper section 2.2;
/// Linux tcp_schedule_loss_probe()).
pub(super) fn probe_allowed(ctx: &TimerCtx, gate: ProbeGate) -> Option<Time> {
    if !gate.allows(ctx) || ctx.probe_in_flight || ctx.packets_out == 0 {
        return None;
    }
    ctx.srtt
}

#[derive(Clone, Debug)]
pub struct Tlp {
    sched: ProbeSchedule,
    /// Linux 3.10 "TLP loss detection" (tcp_process_tlp_ack(); draft-
    /// dukkipati-tcpm-tcp-loss-probe section 3): when the ACK passes the
    /// episode's end without a TLP duplicate ACK or DSACK, the retransmitted
    /// probe repaired a loss and cwnd is reduced. Off: the probe's ACK only
    /// feeds the loss detector (losslab before issue 10).
    pub loss_inference: bool,
    /// The draft's Open state by default (`ProbeGate::Linux`).
    pub gate: ProbeGate,
    /// How ACKs and sends move the timer (RFC 8985's by default).
    pub rearm: ProbeRearm,
    /// How the probe timeout is computed (the paper's by default), and
    /// the HZ of the jiffies the Linux modes count (0: exact).
    pub pto: TlpPto,
    pub timer_hz: u32,
}

impl Default for Tlp {
    fn default() -> Self {
        Tlp {
            sched: ProbeSchedule::default(),
            loss_inference: true,
            gate: ProbeGate::Linux,
            rearm: ProbeRearm::Rfc8985,
            pto: TlpPto::Paper,
            timer_hz: 0,
        }
    }
}

impl Tlp {
    /// With or without the probe's loss inference (`loss_inference`).
    pub fn with_loss_inference(mut self, on: bool) -> Self {
        self.loss_inference = on;
        self
    }

    /// Probes only in the state `gate` allows.
    pub fn with_gate(mut self, gate: ProbeGate) -> Self {
        self.gate = gate;
        self
    }

    /// The timer moved by ACKs and sends as `rearm` says.
    pub fn with_rearm(mut self, rearm: ProbeRearm) -> Self {
        self.rearm = rearm;
        self
    }

    /// The probe timeout computed as `pto` says, in jiffies at HZ = `hz`.
    pub fn with_pto(mut self, pto: TlpPto, hz: u32) -> Self {
        self.pto = pto;
        self.timer_hz = hz;
        self
    }
}

impl Tlp {
    fn probe_at(&self, ctx: &TimerCtx) -> Option<Time> {
        if self.rearm.refuses(ctx) {
            return None;
        }
        probe_allowed(ctx, self.gate)
            .map(|srtt| tlp_pto_deadline(self.pto, ctx.now, srtt, ctx.packets_out, self.timer_hz))
    }
}

impl TimerPolicy for Tlp {
    fn name(&self) -> &'static str {
        "tlp"
    }

    fn arms_probes(&self) -> bool {
        true
    }

    fn on_send(&mut self, ctx: &TimerCtx, current: Deadline) -> Deadline {
        // The PTO is (re)scheduled after each transmission in Open state
        // (Linux tcp_write_xmit() -> tcp_schedule_loss_probe()); after the
        // probe itself the RTO runs.
        let probe_at = self.probe_at(ctx);
        self.sched.after_send(self.rearm, ctx, current, probe_at)
    }

    fn on_ack(&mut self, ctx: &TimerCtx, restart: bool, current: Deadline) -> Deadline {
        // Restarted on each ACK of new data, like the RTO (paper 2.3).
        let probe_at = self.probe_at(ctx);
        self.sched
            .after_ack(self.rearm, ctx, restart, current, probe_at)
    }

    fn infers_loss_from_probe(&self) -> bool {
        self.loss_inference
    }

    fn reads_cwnd_room(&self) -> bool {
        self.rearm.reads_cwnd_room()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(now: u64, out: u64) -> TimerCtx {
        TimerCtx {
            now: now * MS,
            rto: 400 * MS,
            prior_rto: 400 * MS,
            srtt: Some(100 * MS),
            packets_out: out,
            oldest_sent: Some(now * MS),
            newest_sent: Some(now * MS),
            ..Default::default()
        }
    }

    #[test]
    fn paper_equations() {
        // SRTT 100 ms: equation (1) 200 ms, equation (2) max(200, 150 + 200).
        assert_eq!(paper_pto(100 * MS, 2), 200 * MS);
        assert_eq!(paper_pto(100 * MS, 1), 350 * MS);
        // The 10 ms floor of equation (1).
        assert_eq!(paper_pto(2 * MS, 5), 10 * MS);
        // Equation (2) with a long RTT: 2 SRTT wins.
        assert_eq!(paper_pto(500 * MS, 1), 1000 * MS);
    }

    /// Worked in 3.10-4.x tcp_schedule_loss_probe()'s integers at HZ =
    /// 250 (4 ms jiffies): armed at 1001 ms (jiffy 250), SRTT 101.3 ms.
    #[test]
    fn linux_pto_in_jiffies() {
        let at = |mode, srtt: Time, out, hz| tlp_pto_deadline(mode, 1001 * MS, srtt, out, hz);
        let srtt = 101_300 * US;
        // 3.15-4.10: usecs_to_jiffies(101300) = ceil(25.325) = 26;
        // timeout 52 jiffies; (250 + 52) x 4 ms.
        assert_eq!(at(TlpPto::Linux315, srtt, 2, 250), 1208 * MS);
        // 3.10-3.14: 101.3 ms >> jiffies = 25; 50 jiffies.
        assert_eq!(at(TlpPto::Linux310, srtt, 2, 250), 1200 * MS);
        // One out: max(52, 26 + 13 + HZ/5 = 89) jiffies.
        assert_eq!(at(TlpPto::Linux315, srtt, 1, 250), 1356 * MS);
        // 25 + 12 + 50 = 87 jiffies.
        assert_eq!(at(TlpPto::Linux310, srtt, 1, 250), 1348 * MS);
        // The paper's, exact: 1001 + 202.6 ms and 1001 + 351.95 ms.
        assert_eq!(at(TlpPto::Paper, srtt, 2, 250), 1_203_600 * US);
        assert_eq!(at(TlpPto::Paper, srtt, 1, 250), 1_352_950 * US);
        // msecs_to_jiffies(10) rounds up: 3 jiffies (12 ms) at 250 Hz,
        // 10 at 1000 Hz (SRTT 1.5 ms: 2 jiffies, timeout 4).
        assert_eq!(at(TlpPto::Linux315, 1500 * US, 2, 250), 1012 * MS);
        assert_eq!(at(TlpPto::Linux315, 1500 * US, 2, 1000), 1011 * MS);
        // An SRTT under one jiffy: 3.10's srtt >> 3 is at least 1 (a 0
        // sample counts as 1), 3.15's rounds up to 1; either way the
        // 10 ms floor.
        assert_eq!(at(TlpPto::Linux310, 900 * US, 2, 1000), 1011 * MS);
        assert_eq!(at(TlpPto::Linux315, 900 * US, 2, 1000), 1011 * MS);
        // ... and with one out 1 + 0 + 200 jiffies.
        assert_eq!(at(TlpPto::Linux310, 900 * US, 1, 1000), 1202 * MS);
        // Without jiffies the Linux modes are the paper's equations.
        assert_eq!(
            at(TlpPto::Linux315, srtt, 2, 0),
            at(TlpPto::Paper, srtt, 2, 0)
        );
    }

    /// The policy arms the jiffy deadline, and the RTO still caps it.
    #[test]
    fn linux_pto_reaches_the_policy() {
        let mut p = Tlp::default().with_pto(TlpPto::Linux315, 250);
        // SRTT 100 ms: 25 jiffies, 50 from jiffy 250: 1200 ms (the
        // paper's: 1201 ms).
        assert_eq!(
            p.on_ack(&ctx(1001, 2), true, None),
            Some((1200 * MS, TimerKind::Probe))
        );
        // One out: 25 + 12 + 50 = 87 jiffies, 1348 ms (the paper's: 1351
        // ms), before the RTO at 1001 + 400 ms.
        assert_eq!(
            p.on_ack(&ctx(1001, 1), true, None),
            Some((1348 * MS, TimerKind::Probe))
        );
        // With the RTO at 1001 + 300 ms the RTO caps it.
        let mut c = ctx(1001, 1);
        c.rto = 300 * MS;
        assert_eq!(
            p.on_ack(&c, true, None),
            Some((1301 * MS, TimerKind::Probe))
        );
    }

    #[test]
    fn armed_instead_of_the_rto_and_capped_by_it() {
        let mut p = Tlp::default();
        // Two outstanding: 200 ms.
        let d = p.on_ack(&ctx(1000, 2), true, None);
        assert_eq!(d, Some((1200 * MS, TimerKind::Probe)));
        // One outstanding, RTO 400 ms: 350 ms.
        let d = p.on_ack(&ctx(1000, 1), true, None);
        assert_eq!(d, Some((1350 * MS, TimerKind::Probe)));
        // One outstanding, RTO 300 ms: capped at the RTO.
        let mut c = ctx(1000, 1);
        c.rto = 300 * MS;
        assert_eq!(
            p.on_ack(&c, true, None),
            Some((1300 * MS, TimerKind::Probe))
        );
    }

    #[test]
    fn never_later_than_the_running_rto() {
        let mut p = Tlp::default();
        // The RTO was started at 0 (expires at 400 ms); a send at 300 ms
        // would put the probe at 500 ms: it is pulled in to 400 ms.
        let d = p.on_send(&ctx(0, 1), None);
        assert_eq!(d, Some((350 * MS, TimerKind::Probe)));
        let d = p.on_send(&ctx(300, 2), d);
        assert_eq!(d, Some((400 * MS, TimerKind::Probe)));
    }

    #[test]
    fn rto_without_srtt_in_recovery_or_after_a_probe() {
        let mut p = Tlp::default();
        let mut c = ctx(1000, 2);
        c.srtt = None;
        assert_eq!(p.on_ack(&c, true, None), Some((1400 * MS, TimerKind::Rto)));
        let mut c = ctx(1000, 2);
        c.in_recovery = true;
        assert_eq!(p.on_ack(&c, true, None), Some((1400 * MS, TimerKind::Rto)));
        // A duplicate ACK that finds the sender in recovery replaces a
        // pending probe by the RTO it stood in for.
        let d = p.on_ack(&ctx(1000, 2), true, None);
        assert_eq!(p.on_ack(&c, false, d), Some((1400 * MS, TimerKind::Rto)));
        // After the probe (the sender armed the RTO), sends keep the RTO.
        let mut c = ctx(1000, 3);
        c.probe_in_flight = true;
        let rto = Some((1100 * MS, TimerKind::Rto));
        assert_eq!(p.on_send(&c, rto), rto);
        assert_eq!(p.on_ack(&ctx(1000, 0), true, rto), None);
    }

    /// Hand-worked against Linux 3.17 tcp_ack() -> tcp_rearm_rto() ->
    /// tcp_schedule_loss_probe(): SRTT 100 ms (PTO 200 ms with two out),
    /// RTO 400 ms, the probe armed by an ACK of new data at 1000 ms and
    /// the first outstanding segment last sent at 900 ms.
    #[test]
    fn linux3_counts_the_rto_from_the_head_when_a_probe_gives_way() {
        let armed = |rearm| {
            let mut p = Tlp::default().with_rearm(rearm);
            let d = p.on_ack(&ctx(1000, 2), true, None);
            assert_eq!(d, Some((1200 * MS, TimerKind::Probe)));
            (p, d)
        };
        let at = |now: u64| {
            let mut c = ctx(now, 2);
            c.oldest_sent = Some(900 * MS);
            c
        };
        // A SACK at 1050 ms (Disorder: no probe). RFC 8985: the RTO that
        // ran from the restart at 1000 ms. Linux: 900 + 400 ms.
        let mut sack = at(1050);
        sack.disorder = true;
        sack.sacked_out = 1;
        let (mut p, d) = armed(ProbeRearm::Rfc8985);
        assert_eq!(p.on_ack(&sack, false, d), Some((1400 * MS, TimerKind::Rto)));
        let (mut p, d) = armed(ProbeRearm::Linux3);
        assert_eq!(p.on_ack(&sack, false, d), Some((1300 * MS, TimerKind::Rto)));
        // The SACK's own RTT sample raised the RTO to 410 ms: tcp_ack()
        // re-armed with the RTO before it (tcp_clean_rtx_queue() takes
        // the sample afterwards), so still 900 + 400 ms (the step's
        // review, trace D).
        let mut sampled = sack;
        sampled.rto = 410 * MS;
        let (mut p, d) = armed(ProbeRearm::Linux3);
        assert_eq!(
            p.on_ack(&sampled, false, d),
            Some((1300 * MS, TimerKind::Rto))
        );
        // A duplicate ACK at 1050 ms that leaves the probe allowed: RFC
        // 8985 keeps it; Linux arms it again from now (1250 ms), under
        // the head's RTO (1300 ms).
        let (mut p, d) = armed(ProbeRearm::Rfc8985);
        assert_eq!(p.on_ack(&at(1050), false, d), d);
        let (mut p, d) = armed(ProbeRearm::Linux3);
        assert_eq!(
            p.on_ack(&at(1050), false, d),
            Some((1250 * MS, TimerKind::Probe))
        );
        // ... and at 1150 ms the head's RTO caps it: 1300 ms.
        let (mut p, d) = armed(ProbeRearm::Linux3);
        assert_eq!(
            p.on_ack(&at(1150), false, d),
            Some((1300 * MS, TimerKind::Probe))
        );
        // An old ACK (below snd_una) touches nothing.
        let mut old = sack;
        old.old_ack = true;
        let (mut p, d) = armed(ProbeRearm::Linux3);
        assert_eq!(p.on_ack(&old, false, d), d);
        // An ACK of new data restarts from now either way: 1100 + 400 ms,
        // the probe at 1300 ms.
        for rearm in [ProbeRearm::Rfc8985, ProbeRearm::Linux3] {
            let (mut p, d) = armed(rearm);
            assert_eq!(
                p.on_ack(&at(1100), true, d),
                Some((1300 * MS, TimerKind::Probe))
            );
            let mut c = at(1100);
            c.disorder = true;
            let (mut p, d) = armed(rearm);
            assert_eq!(p.on_ack(&c, true, d), Some((1500 * MS, TimerKind::Rto)));
        }
        // The head's RTO already passed (last sent at 500 ms): a whole RTO
        // from now (delta <= 0 in tcp_rearm_rto()).
        let mut stale = sack;
        stale.oldest_sent = Some(500 * MS);
        let (mut p, d) = armed(ProbeRearm::Linux3);
        assert_eq!(
            p.on_ack(&stale, false, d),
            Some((1450 * MS, TimerKind::Rto))
        );
    }

    /// A bulk ACK that opens cwnd with data queued (found by the step's
    /// review): 3.x's tcp_schedule_loss_probe() refuses at the end of
    /// tcp_ack(), so the RTO restarted by the ACK stays pending, the sends
    /// that follow find no probe to replace, and the last one arms the
    /// probe under that RTO. SRTT 150 ms (PTO 300 ms), RTO 400 ms, the
    /// ACK at 1000 ms, the head last sent at 850 ms: the probe at 1300 ms,
    /// not under the head's RTO (1250 ms).
    #[test]
    fn linux3_refuses_a_probe_while_cwnd_has_room_for_queued_data() {
        let c = |room: bool| TimerCtx {
            now: 1000 * MS,
            rto: 400 * MS,
            prior_rto: 400 * MS,
            srtt: Some(150 * MS),
            packets_out: 4,
            oldest_sent: Some(850 * MS),
            newest_sent: Some(900 * MS),
            cwnd_room_and_queue: room,
            ..Default::default()
        };
        let mut p = Tlp::default().with_rearm(ProbeRearm::Linux3);
        let pending = Some((1200 * MS, TimerKind::Probe));
        let d = p.on_ack(&c(true), true, pending);
        assert_eq!(d, Some((1400 * MS, TimerKind::Rto)));
        // A send that still leaves room: the RTO stays (not the head's).
        assert_eq!(p.on_send(&c(true), d), d);
        // The send that fills cwnd arms the probe under the ACK's RTO.
        assert_eq!(p.on_send(&c(false), d), Some((1300 * MS, TimerKind::Probe)));
        // RFC 8985 never reads the refusal.
        let mut r = Tlp::default();
        let d = r.on_ack(&c(true), true, pending);
        assert_eq!(d, Some((1300 * MS, TimerKind::Probe)));
    }

    /// tcp_event_new_data_sent() with a probe pending calls
    /// tcp_rearm_rto(), so the probe that tcp_write_xmit() then schedules
    /// is capped by the head's RTO; RFC 8985 caps it by the RTO running
    /// since its last restart.
    #[test]
    fn linux3_caps_a_send_s_probe_by_the_head_s_rto() {
        for (rearm, want) in [(ProbeRearm::Rfc8985, 1300), (ProbeRearm::Linux3, 1200)] {
            let mut p = Tlp::default().with_rearm(rearm);
            let d = p.on_ack(&ctx(1000, 2), true, None);
            let mut c = ctx(1100, 3);
            c.oldest_sent = Some(800 * MS);
            assert_eq!(
                p.on_send(&c, d),
                Some((want * MS, TimerKind::Probe)),
                "{rearm:?}"
            );
        }
    }
}
