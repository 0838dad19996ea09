//! RACK-TLP's loss probe (RFC 8985 section 7): PTO = 2 SRTT, plus
//! TLP.max_ack_delay when one segment is in flight, capped by the RTO
//! (7.2); one probe per TLP episode, and only after an RTT sample since the
//! last probe (7.3); the episode's loss inference (7.4) is done by the
//! sender (`infers_loss_from_probe`).

use super::tlp::{probe_allowed, ProbeSchedule, WC_DEL_ACK};
use super::{Deadline, TimerCtx, TimerPolicy};
use crate::time::Time;

#[derive(Clone, Debug, Default)]
pub struct RackTlp {
    sched: ProbeSchedule,
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
    fn probe_at(ctx: &TimerCtx) -> Option<Time> {
        // 7.3 condition 2: an RTT sample since the last probe. Without an
        // SRTT the RFC's 1 s PTO is the initial RTO: arm the RTO.
        if !ctx.rtt_since_probe {
            return None;
        }
        probe_allowed(ctx).map(|srtt| ctx.now + rack_pto(srtt, ctx.packets_out))
    }
}

impl TimerPolicy for RackTlp {
    fn name(&self) -> &'static str {
        "rack-tlp"
    }

    fn on_send(&mut self, ctx: &TimerCtx, current: Deadline) -> Deadline {
        // 7.2: (re)start the PTO after transmitting new data; after the
        // probe itself the RTO is armed (7.3), the sender's episode state
        // says which.
        let rto_at = self.sched.rto_after_send(ctx, current);
        ProbeSchedule::choose(ctx, rto_at, Self::probe_at(ctx))
    }

    fn on_ack(&mut self, ctx: &TimerCtx, acked_new: bool, current: Deadline) -> Deadline {
        // 7.2: restart on an ACK that cumulatively acknowledges new data.
        self.sched
            .on_ack(ctx, acked_new, current, Self::probe_at(ctx))
    }

    fn infers_loss_from_probe(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::TimerKind;
    use crate::time::MS;

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

    #[test]
    fn no_probe_without_a_fresh_rtt_sample() {
        let mut p = RackTlp::default();
        let mut c = ctx(1000, 2, 300);
        c.rtt_since_probe = false;
        assert_eq!(p.on_ack(&c, true, None), Some((1300 * MS, TimerKind::Rto)));
        assert!(p.infers_loss_from_probe());
    }
}
