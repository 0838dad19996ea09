//! RACK-TLP's loss probe (RFC 8985 section 7): PTO = 2 SRTT, plus
//! TLP.max_ack_delay when one segment is in flight, capped by the RTO
//! (7.2); one probe per TLP episode, and only after an RTT sample since the
//! last probe (7.3); the episode's loss inference (7.4) is done by the
//! sender (`infers_loss_from_probe`).
//!
//! `with_pto(mode, hz, min_rto)` (`[flow.rack-tlp] pto`, with the flow's
//! `timer_hz` and `min_rto`) arms the probe as Linux's
//! tcp_schedule_loss_probe() (net/ipv4/tcp_output.c) does instead, in
//! jiffies from the current one: since "tcp: fix excessive TLP and RACK
//! timeouts from HZ rounding" (Linux 6.6, October 2023)
//! `usecs_to_jiffies(2 SRTT + TCP_TIMEOUT_MIN_US)`, or `+ tcp_rto_min_us()`
//! with one packet out (`"linux"`); before it `usecs_to_jiffies(2 SRTT)`
//! plus TCP_TIMEOUT_MIN (2 jiffies), or plus TCP_RTO_MIN (HZ / 5) with one
//! packet out (`"linux-2-jiffies"`). Either way the timeout is then
//! min'd, in jiffies, with the time left to the RTO. The same fix moved
//! RACK's reordering timer (detect/rack.rs, `linux_reo_deadline()`).

use super::tlp::{probe_allowed, ProbeSchedule, WC_DEL_ACK};
use super::{Deadline, ProbeGate, TimerCtx, TimerPolicy};
use crate::detect::{TCP_TIMEOUT_MIN, TCP_TIMEOUT_MIN_US};
use crate::time::{jiffy_deadline, usecs_to_jiffies, Time, US};

/// How the probe timeout is computed (`[flow.rack-tlp] pto`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Pto {
    /// RFC 8985 section 7.2 at exact times (the behaviour before the key).
    #[default]
    Rfc8985,
    /// Linux 6.6+ tcp_schedule_loss_probe(): 2 SRTT plus 2 ms (the
    /// flow's minimum RTO with one packet out), in jiffies of the flow's
    /// `timer_hz` rounded up; exact with `timer_hz` = 0.
    Linux,
    /// tcp_schedule_loss_probe() before 6.6: 2 SRTT in jiffies rounded up,
    /// plus 2 jiffies (HZ / 5 jiffies with one packet out).
    LinuxTwoJiffies,
}

impl Pto {
    pub const NAMES: &'static [&'static str] = &["rfc8985", "linux", "linux-2-jiffies"];

    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "rfc8985" => Some(Pto::Rfc8985),
            "linux" => Some(Pto::Linux),
            "linux-2-jiffies" => Some(Pto::LinuxTwoJiffies),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Pto::Rfc8985 => "rfc8985",
            Pto::Linux => "linux",
            Pto::LinuxTwoJiffies => "linux-2-jiffies",
        }
    }
}

/// When Linux's tcp_schedule_loss_probe() fires the probe armed at `now`
/// with SRTT `srtt`, `packets_out` packets out and the RTO due at `rto_at`,
/// at HZ = `hz`. `srtt_us >> 2` is 2 SRTT in whole microseconds (rounded
/// down, as the shift does); usecs_to_jiffies() rounds up (exactly, for an
/// HZ that divides 10^6, as 100, 250 and 1000 do). The cap is Linux's
/// `min(timeout, usecs_to_jiffies(rto_delta_us))`, taken only when the RTO
/// is still ahead (`rto_delta_us > 0`), with the time left rounded up to
/// microseconds as in `linux_reo_deadline()`; the result counts from the
/// jiffy `now` falls in (inet_csk_reset_xmit_timer(): jiffies + timeout).
/// `hz` = 0: exact, 2 SRTT plus 2 ms or `min_rto` (either mode), capped at
/// `rto_at`.
/// `Rfc8985`: RFC 8985's PTO, capped at `rto_at`.
pub fn linux_pto_deadline(
    mode: Pto,
    now: Time,
    srtt: Time,
    packets_out: u64,
    min_rto: Time,
    rto_at: Time,
    hz: u32,
) -> Time {
    let one_out = packets_out == 1;
    if mode == Pto::Rfc8985 {
        return (now + rack_pto(srtt, packets_out)).min(rto_at);
    }
    if hz == 0 {
        // Without jiffies only 6.6+'s sum has a meaning (two jiffies of no
        // HZ have none; the scenario parser refuses "linux-2-jiffies"
        // there), so both modes take it.
        let floor = if one_out {
            min_rto
        } else {
            TCP_TIMEOUT_MIN_US * US
        };
        return (now + 2 * srtt + floor).min(rto_at);
    }
    let hz = u64::from(hz);
    let to_jiffies = |us: u64| usecs_to_jiffies(us, hz);
    let two_srtt_us = 2 * srtt / US;
    let timeout = match mode {
        Pto::Linux if one_out => to_jiffies(two_srtt_us + min_rto.div_ceil(US)),
        Pto::Linux => to_jiffies(two_srtt_us + TCP_TIMEOUT_MIN_US),
        // include/net/tcp.h TCP_RTO_MIN: HZ / 5 jiffies, whatever the
        // route's rto_min (before 6.6 the probe did not ask it).
        _ if one_out => to_jiffies(two_srtt_us) + hz / 5,
        _ => to_jiffies(two_srtt_us) + TCP_TIMEOUT_MIN,
    };
    let rto_left_us = rto_at.saturating_sub(now).div_ceil(US);
    let timeout = if rto_left_us > 0 {
        timeout.min(to_jiffies(rto_left_us))
    } else {
        timeout
    };
    jiffy_deadline(now, timeout, hz)
}

#[derive(Clone, Debug, Default)]
pub struct RackTlp {
    sched: ProbeSchedule,
    rule: PtoRule,
}

/// How the probe timeout is computed, the HZ of its jiffies, the minimum
/// RTO Linux 6.6+ adds with one packet out, and in which state a probe
/// may be armed.
#[derive(Clone, Copy, Debug)]
struct PtoRule {
    mode: Pto,
    timer_hz: u32,
    min_rto: Time,
    gate: ProbeGate,
}

impl Default for PtoRule {
    fn default() -> Self {
        PtoRule {
            mode: Pto::default(),
            timer_hz: 0,
            min_rto: 0,
            gate: ProbeGate::Rfc8985,
        }
    }
}

/// RFC 8985 section 7.2 TLP_calc_PTO() with an SRTT (before the cap).
pub fn rack_pto(srtt: Time, flight_size: u64) -> Time {
    let pto = 2 * srtt;
    if flight_size <= 1 {
        pto + WC_DEL_ACK
    } else {
        pto
    }
}

impl RackTlp {
    /// Computes the probe timeout as `mode` says, with jiffies at HZ =
    /// `hz` and the flow's minimum RTO `min_rto`.
    pub fn with_pto(mut self, mode: Pto, hz: u32, min_rto: Time) -> Self {
        self.rule = PtoRule {
            mode,
            timer_hz: hz,
            min_rto,
            gate: self.rule.gate,
        };
        self
    }

    /// Probes only in the state `gate` allows (RFC 8985 7.2's by default).
    pub fn with_gate(mut self, gate: ProbeGate) -> Self {
        self.rule.gate = gate;
        self
    }
}

impl PtoRule {
    /// The probe's deadline with the RTO due at `rto_at`.
    fn probe_at(&self, ctx: &TimerCtx, rto_at: Time) -> Option<Time> {
        // 7.3 condition 2: an RTT sample since the last probe. Without an
        // SRTT the RFC's 1 s PTO is the initial RTO: arm the RTO.
        if !ctx.rtt_since_probe {
            return None;
        }
        probe_allowed(ctx, self.gate).map(|srtt| match self.mode {
            // Left as before the key: the cap is ProbeSchedule's.
            Pto::Rfc8985 => ctx.now + rack_pto(srtt, ctx.packets_out),
            mode => linux_pto_deadline(
                mode,
                ctx.now,
                srtt,
                ctx.packets_out,
                self.min_rto,
                rto_at,
                self.timer_hz,
            ),
        })
    }
}

impl TimerPolicy for RackTlp {
    fn name(&self) -> &'static str {
        "rack-tlp"
    }

    fn arms_probes(&self) -> bool {
        true
    }

    fn on_send(&mut self, ctx: &TimerCtx, current: Deadline) -> Deadline {
        // 7.2: (re)start the PTO after transmitting new data; after the
        // probe itself the RTO is armed (7.3), the sender's episode state
        // says which.
        let rto_at = self.sched.rto_after_send(ctx, current);
        ProbeSchedule::choose(ctx, rto_at, self.rule.probe_at(ctx, rto_at))
    }

    fn on_ack(&mut self, ctx: &TimerCtx, restart: bool, current: Deadline) -> Deadline {
        // 7.2: restart on an ACK that cumulatively acknowledges new data.
        let rule = self.rule;
        self.sched
            .on_ack_with(ctx, restart, current, |rto_at| rule.probe_at(ctx, rto_at))
    }

    fn infers_loss_from_probe(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::TimerKind;
    use crate::time::{MS, US};

    fn ctx(now: u64, out: u64, rto: u64) -> TimerCtx {
        TimerCtx {
            now: now * MS,
            rto: rto * MS,
            srtt: Some(100 * MS),
            packets_out: out,
            oldest_sent: Some(now * MS),
            newest_sent: Some(now * MS),
            rtt_since_probe: true,
            ..Default::default()
        }
    }

    #[test]
    fn pto_arithmetic() {
        let mut p = RackTlp::default();
        // SRTT 100 ms: 2 SRTT = 200 ms with two in flight.
        assert_eq!(
            p.on_ack(&ctx(1000, 2, 1000), true, None),
            Some((1200 * MS, TimerKind::Probe))
        );
        // One in flight: 200 + 200 ms.
        assert_eq!(
            p.on_ack(&ctx(1000, 1, 1000), true, None),
            Some((1400 * MS, TimerKind::Probe))
        );
        // Capped by the RTO (300 ms).
        assert_eq!(
            p.on_ack(&ctx(1000, 1, 300), true, None),
            Some((1300 * MS, TimerKind::Probe))
        );
    }

    /// Linux's PTO at HZ = 250 (4000 us jiffies) and 1000, armed at 102 ms
    /// (jiffy 102 / 4 = 25 at HZ 250, 102 at HZ 1000) with SRTT 10.3 ms:
    /// `srtt_us >> 2` = 2 SRTT = 20600 us. The RTO 1 s away does not cap.
    /// HZ 250, 3 packets out:
    /// - before 6.6: usecs_to_jiffies(20600) = (20600 + 3999) / 4000 = 6,
    ///   + TCP_TIMEOUT_MIN 2 = 8: jiffy 33, 132 ms;
    /// - 6.6+: usecs_to_jiffies(20600 + 2000) = (22600 + 3999) / 4000 = 6:
    ///   jiffy 31, 124 ms.
    ///
    /// HZ 250, 1 packet out, min_rto 200 ms:
    /// - 6.6+: (20600 + 200000 + 3999) / 4000 = 56: jiffy 81, 324 ms;
    /// - before 6.6: 6 + TCP_RTO_MIN (250 / 5 = 50) = 56: 324 ms too; with
    ///   min_rto 50 ms 6.6+ gives (70600 + 3999) / 4000 = 18, jiffy 43, 172
    ///   ms, and the old rule still 56 (it never read the route's rto_min).
    ///
    /// HZ 1000, 3 out: 6.6+ (22600 + 999) / 1000 = 23, before 21 + 2 = 23:
    /// both 125 ms; 1 out: 221 + 102 = 323 ms both.
    #[test]
    fn linux_pto_in_jiffies() {
        use Pto::*;
        let srtt = 10 * MS + 300 * US;
        let far = 1102 * MS;
        let d = |mode, out, min_rto, hz| {
            linux_pto_deadline(mode, 102 * MS, srtt, out, min_rto, far, hz)
        };
        assert_eq!(d(LinuxTwoJiffies, 3, 200 * MS, 250), 132 * MS);
        assert_eq!(d(Linux, 3, 200 * MS, 250), 124 * MS);
        assert_eq!(d(Linux, 1, 200 * MS, 250), 324 * MS);
        assert_eq!(d(LinuxTwoJiffies, 1, 200 * MS, 250), 324 * MS);
        assert_eq!(d(Linux, 1, 50 * MS, 250), 172 * MS);
        assert_eq!(d(LinuxTwoJiffies, 1, 50 * MS, 250), 324 * MS);
        assert_eq!(d(Linux, 3, 200 * MS, 1000), 125 * MS);
        assert_eq!(d(LinuxTwoJiffies, 3, 200 * MS, 1000), 125 * MS);
        assert_eq!(d(Linux, 1, 200 * MS, 1000), 323 * MS);
        assert_eq!(d(LinuxTwoJiffies, 1, 200 * MS, 1000), 323 * MS);
        // Exact timers (hz 0): 102 + 20.6 + 2 = 124.6 ms, + 200 = 322.6
        // ms with one out; RFC 8985: 122.6 and 322.6 ms.
        assert_eq!(d(Linux, 3, 200 * MS, 0), 124_600 * US);
        assert_eq!(d(Linux, 1, 200 * MS, 0), 322_600 * US);
        assert_eq!(d(Rfc8985, 3, 200 * MS, 250), 122_600 * US);
        assert_eq!(d(Rfc8985, 1, 200 * MS, 250), 322_600 * US);
    }

    /// `srtt_us >> 2` rounds down: SRTT 11 ms + 400 ns is 2 SRTT = 22000.8
    /// us, so 22000; + 2000 = 24000 = exactly 6 jiffies at HZ 250 (jiffy
    /// 31, 124 ms). Rounding the 0.8 us up would give 24001, 7 jiffies.
    #[test]
    fn two_srtt_in_whole_microseconds() {
        let srtt = 11 * MS + 400;
        let far = 1102 * MS;
        assert_eq!(
            linux_pto_deadline(Pto::Linux, 102 * MS, srtt, 3, 200 * MS, far, 250),
            124 * MS
        );
    }

    /// The cap, in jiffies: SRTT 10.3 ms, 3 out, at 102 ms (jiffy 25), HZ
    /// 250. RTO due at 115.5 ms: rto_delta_us = 13500, usecs_to_jiffies =
    /// (13500 + 3999) / 4000 = 4 < 6 (6.6+) and < 8 (before): jiffy 29,
    /// 116 ms, both rules (past the exact 115.5 ms: Linux compares
    /// jiffies). RTO due at 118 ms: 16000 us = 4 jiffies, 116 ms again.
    /// RTO already due (100 ms): Linux caps only when rto_delta_us > 0, so
    /// the whole 6 jiffies, 124 ms. Exact timers cap at 115.5 ms itself.
    #[test]
    fn linux_pto_capped_by_the_rto_in_jiffies() {
        use Pto::*;
        let srtt = 10 * MS + 300 * US;
        let d =
            |mode, rto_at, hz| linux_pto_deadline(mode, 102 * MS, srtt, 3, 200 * MS, rto_at, hz);
        assert_eq!(d(Linux, 115_500 * US, 250), 116 * MS);
        assert_eq!(d(LinuxTwoJiffies, 115_500 * US, 250), 116 * MS);
        assert_eq!(d(Linux, 118 * MS, 250), 116 * MS);
        assert_eq!(d(Linux, 100 * MS, 250), 124 * MS);
        assert_eq!(d(Linux, 115_500 * US, 0), 115_500 * US);
    }

    /// Through the policy: an ACK of new data at 102 ms with RTO 200 ms
    /// (due at 302 ms) arms the probe at the deadlines above; by default
    /// (RFC 8985) at 122.6 ms. With one packet out the 56 jiffies are
    /// capped by the RTO's 200000 us = 50 jiffies: jiffy 75, 300 ms (the
    /// RTO itself is due at 302 ms, and the sender fires it on the tick at
    /// or before: 300 ms too). An RTO of 16 ms (due at 118 ms) caps the
    /// 6.6+ probe at jiffy 29, 116 ms, on send as on ACK.
    #[test]
    fn the_policy_arms_linux_deadlines() {
        let c = |out, rto| TimerCtx {
            now: 102 * MS,
            rto,
            srtt: Some(10 * MS + 300 * US),
            packets_out: out,
            oldest_sent: Some(102 * MS),
            newest_sent: Some(102 * MS),
            rtt_since_probe: true,
            ..Default::default()
        };
        let probe = |t| Some((t, TimerKind::Probe));
        let mut p = RackTlp::default();
        assert_eq!(p.on_ack(&c(3, 200 * MS), true, None), probe(122_600 * US));
        let mut p = RackTlp::default().with_pto(Pto::Linux, 250, 200 * MS);
        assert_eq!(p.on_ack(&c(3, 200 * MS), true, None), probe(124 * MS));
        assert_eq!(p.on_ack(&c(1, 200 * MS), true, None), probe(300 * MS));
        assert_eq!(p.on_ack(&c(3, 16 * MS), true, None), probe(116 * MS));
        let mut p = RackTlp::default().with_pto(Pto::Linux, 250, 200 * MS);
        assert_eq!(p.on_send(&c(3, 16 * MS), None), probe(116 * MS));
        let mut p = RackTlp::default().with_pto(Pto::LinuxTwoJiffies, 250, 200 * MS);
        assert_eq!(p.on_ack(&c(3, 200 * MS), true, None), probe(132 * MS));
        assert_eq!(
            Pto::from_name("linux-2-jiffies"),
            Some(Pto::LinuxTwoJiffies)
        );
        assert_eq!(Pto::from_name("jiffies"), None);
        for n in Pto::NAMES {
            assert_eq!(Pto::from_name(n).map(Pto::name), Some(*n));
        }
    }

    #[test]
    fn no_probe_without_a_fresh_rtt_sample() {
        let mut p = RackTlp::default();
        let mut c = ctx(1000, 2, 300);
        c.rtt_since_probe = false;
        assert_eq!(p.on_ack(&c, true, None), Some((1300 * MS, TimerKind::Rto)));
        assert!(p.infers_loss_from_probe());
    }
}
