//! TLP with Restart (tail-loss paper section 2.3): TLP whose probe timer,
//! when restarted, expires PTO after the last outstanding segment was sent
//! (PTO - T_last from now), as RTOR does for the RTO. That is all the
//! paper defines. `rtor_cap` (ours, off by default since issue 28) also
//! caps the restarted probe at RTOR's restarted RTO.

use super::tlp::{probe_allowed, tlp_pto_deadline, ProbeSchedule, TlpPto};
use super::{Deadline, ProbeGate, ProbeRearm, TimerCtx, TimerPolicy};
use crate::event::TimerKind;
use crate::time::Time;

#[derive(Clone, Debug)]
pub struct Tlpr {
    sched: ProbeSchedule,
    /// RTOR's rrthresh for the restart cap (RFC 7765 section 3).
    pub rrthresh: u64,
    /// As `Tlp::loss_inference` (Linux 3.10 tcp_process_tlp_ack()).
    pub loss_inference: bool,
    /// Ours, not the paper's: a restarted probe never waits longer than
    /// RFC 7765's restarted RTO (so TLPR is never slower than RTOR).
    pub rtor_cap: bool,
    /// As `Tlp::gate`.
    pub gate: ProbeGate,
    /// As `Tlp::rearm`: the paper's TLPR is its Linux 3.17 hosts' TLP
    /// with only the probe's timeout changed (section 2.3), so it re-arms
    /// as their TLP does.
    pub rearm: ProbeRearm,
    /// As `Tlp::pto`, for the same reason: the PTO their TLP computes,
    /// then counted from the last outstanding segment's send (in jiffies
    /// under the Linux modes: the jiffy it was sent in plus the PTO's
    /// jiffies, which is tcp_time_stamp + PTO - T_last in the kernel's
    /// units).
    pub pto: TlpPto,
    pub timer_hz: u32,
}

impl Default for Tlpr {
    fn default() -> Self {
        Self::with_rrthresh(super::rtor::RRTHRESH)
    }
}

impl Tlpr {
    pub fn with_rrthresh(rrthresh: u64) -> Self {
        Tlpr {
            sched: ProbeSchedule::default(),
            rrthresh,
            loss_inference: true,
            rtor_cap: false,
            gate: ProbeGate::Linux,
            rearm: ProbeRearm::Rfc8985,
            pto: TlpPto::Paper,
            timer_hz: 0,
        }
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

    /// With or without the RTOR cap (`rtor_cap`).
    pub fn with_rtor_cap(mut self, on: bool) -> Self {
        self.rtor_cap = on;
        self
    }

    /// Probes only in the state `gate` allows.
    pub fn with_gate(mut self, gate: ProbeGate) -> Self {
        self.gate = gate;
        self
    }
}

impl Tlpr {
    /// With or without the probe's loss inference (`loss_inference`).
    pub fn with_loss_inference(mut self, on: bool) -> Self {
        self.loss_inference = on;
        self
    }
}

impl Tlpr {
    fn probe_at(&self, ctx: &TimerCtx) -> Option<Time> {
        // Paper 2.3: PTO - T_last, T_last = now - send time of the last
        // outstanding segment; never in the past (ProbeSchedule::choose).
        if self.rearm.refuses(ctx) {
            return None;
        }
        probe_allowed(ctx, self.gate).map(|srtt| {
            let last = ctx.newest_sent.unwrap_or(ctx.now).min(ctx.now);
            tlp_pto_deadline(self.pto, last, srtt, ctx.packets_out, self.timer_hz)
        })
    }
}

impl Tlpr {
    /// The `rtor_cap` variant: a probe restarted by an ACK never waits
    /// longer than RFC 7765's restarted RTO, RTO - T_earliest. The paper
    /// (2.3) restarts only the probe; its RTO stays the plain one.
    fn capped(&self, ctx: &TimerCtx, d: Deadline) -> Deadline {
        match (d, super::rtor::restart_at(ctx, self.rrthresh)) {
            (Some((t, TimerKind::Probe)), Some(cap)) if cap < t => Some((cap, TimerKind::Probe)),
            (d, _) => d,
        }
    }
}

impl TimerPolicy for Tlpr {
    fn name(&self) -> &'static str {
        "tlpr"
    }

    fn arms_probes(&self) -> bool {
        true
    }

    fn infers_loss_from_probe(&self) -> bool {
        self.loss_inference
    }

    fn reads_cwnd_room(&self) -> bool {
        self.rearm.reads_cwnd_room()
    }

    fn on_send(&mut self, ctx: &TimerCtx, current: Deadline) -> Deadline {
        let probe_at = self.probe_at(ctx);
        self.sched.after_send(self.rearm, ctx, current, probe_at)
    }

    fn on_ack(&mut self, ctx: &TimerCtx, restart: bool, current: Deadline) -> Deadline {
        let probe_at = self.probe_at(ctx);
        let d = self
            .sched
            .after_ack(self.rearm, ctx, restart, current, probe_at);
        if restart && self.rtor_cap {
            self.capped(ctx, d)
        } else {
            d
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::TimerKind;
    use crate::time::{MS, US};

    fn ctx(now: u64, out: u64, last: u64) -> TimerCtx {
        TimerCtx {
            now: now * MS,
            rto: 400 * MS,
            prior_rto: 400 * MS,
            srtt: Some(100 * MS),
            packets_out: out,
            oldest_sent: Some(last * MS),
            newest_sent: Some(last * MS),
            ..Default::default()
        }
    }

    #[test]
    fn restart_subtracts_the_age_of_the_last_segment() {
        let mut p = Tlpr::default();
        // PTO 200 ms (two outstanding), last segment sent 30 ms ago: the
        // probe fires 170 ms from now.
        assert_eq!(
            p.on_ack(&ctx(1000, 2, 970), true, None),
            Some((1170 * MS, TimerKind::Probe))
        );
        // One outstanding: PTO 350 ms, 320 ms from now.
        assert_eq!(
            p.on_ack(&ctx(1000, 1, 970), true, None),
            Some((1320 * MS, TimerKind::Probe))
        );
        // On a send T_last is 0: the plain PTO.
        assert_eq!(
            p.on_send(&ctx(1000, 2, 1000), None),
            Some((1200 * MS, TimerKind::Probe))
        );
    }

    #[test]
    fn never_in_the_past() {
        let mut p = Tlpr::default();
        // Last segment sent 250 ms ago, PTO 200 ms: fire now.
        assert_eq!(
            p.on_ack(&ctx(1000, 2, 750), true, None),
            Some((1000 * MS, TimerKind::Probe))
        );
    }

    /// `rearm = "linux-3"` as for TLP (Linux 3.17 tcp_ack()): a SACK at
    /// 1050 ms that cancels the probe armed at 1000 ms arms the RTO from
    /// the head's last transmission (900 + 400 ms), not from the restart
    /// (1400 ms); a duplicate ACK that leaves the probe allowed arms it
    /// again, PTO - T_last from now (last segment sent at 1000 ms: 1200
    /// ms), under the head's RTO.
    #[test]
    fn linux3_rearm_as_tlp() {
        let at = |now: u64| TimerCtx {
            oldest_sent: Some(900 * MS),
            ..ctx(now, 2, 1000)
        };
        let armed = |rearm| {
            let mut p = Tlpr::default().with_rearm(rearm);
            let d = p.on_ack(&ctx(1000, 2, 1000), true, None);
            assert_eq!(d, Some((1200 * MS, TimerKind::Probe)));
            (p, d)
        };
        let mut sack = at(1050);
        sack.disorder = true;
        sack.sacked_out = 1;
        let (mut p, d) = armed(ProbeRearm::Rfc8985);
        assert_eq!(p.on_ack(&sack, false, d), Some((1400 * MS, TimerKind::Rto)));
        let (mut p, d) = armed(ProbeRearm::Linux3);
        assert_eq!(p.on_ack(&sack, false, d), Some((1300 * MS, TimerKind::Rto)));
        let (mut p, d) = armed(ProbeRearm::Linux3);
        assert_eq!(
            p.on_ack(&at(1050), false, d),
            Some((1200 * MS, TimerKind::Probe))
        );
        // Cwnd room with data queued: no probe, the head's RTO.
        let mut room = at(1050);
        room.cwnd_room_and_queue = true;
        let (mut p, d) = armed(ProbeRearm::Linux3);
        assert_eq!(p.on_ack(&room, false, d), Some((1300 * MS, TimerKind::Rto)));
    }

    /// `pto = "linux-3.10"` at HZ = 1000: SRTT 100.6 ms is 100 jiffies
    /// (`tp->srtt >> 3`), two out give 200; the last segment went out at
    /// 970.4 ms (jiffy 970), so the restarted probe fires at jiffy 1170,
    /// where the paper's exact PTO gives 970.4 + 201.2 ms. `linux-3.15`
    /// rounds SRTT up: 101 jiffies, 202.
    #[test]
    fn linux_pto_counts_from_the_last_send() {
        let c = TimerCtx {
            srtt: Some(100_600 * US),
            newest_sent: Some(970_400 * US),
            ..ctx(1000, 2, 970)
        };
        let fire = |pto| {
            let mut p = Tlpr::default().with_pto(pto, 1000);
            p.on_ack(&c, true, None)
        };
        assert_eq!(fire(TlpPto::Linux310), Some((1170 * MS, TimerKind::Probe)));
        assert_eq!(fire(TlpPto::Linux315), Some((1172 * MS, TimerKind::Probe)));
        assert_eq!(
            fire(TlpPto::Paper),
            Some((1_171_600 * US, TimerKind::Probe))
        );
    }

    /// Quick ACKs at RTT 80 ms after the ninth segment's ACK: the paper's
    /// TLPR waits PTO = 1.5 SRTT + 200 ms from the last segment's send;
    /// the capped variant no longer than RTOR's RTO - T_earliest.
    #[test]
    fn the_rtor_cap_is_a_variant() {
        let c = TimerCtx {
            now: 1080 * MS,
            rto: 280 * MS,
            srtt: Some(80 * MS),
            packets_out: 1,
            oldest_sent: Some(1000 * MS),
            newest_sent: Some(1000 * MS),
            ..Default::default()
        };
        let mut paper = Tlpr::default();
        assert_eq!(
            paper.on_ack(&c, true, None),
            Some((1320 * MS, TimerKind::Probe))
        );
        let mut capped = Tlpr::default().with_rtor_cap(true);
        assert_eq!(
            capped.on_ack(&c, true, None),
            Some((1280 * MS, TimerKind::Probe))
        );
    }
}
