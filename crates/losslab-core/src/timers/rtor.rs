//! RTO Restart (RFC 7765; tail-loss paper section 2.1): when few segments
//! are outstanding, the timer restarted by an ACK expires RTO after the
//! earliest outstanding segment was sent, not RTO after the ACK.

use super::{Deadline, Rfc6298, TimerCtx, TimerPolicy};
use crate::event::TimerKind;
use crate::time::Time;

/// RFC 7765 section 3's default rrthresh.
pub const RRTHRESH: u64 = 4;

#[derive(Clone, Debug)]
pub struct Rtor {
    /// Restart only while fewer than this many segments are outstanding.
    pub rrthresh: u64,
}

impl Default for Rtor {
    fn default() -> Self {
        Rtor { rrthresh: RRTHRESH }
    }
}

impl TimerPolicy for Rtor {
    fn name(&self) -> &'static str {
        "rtor"
    }

    fn on_send(&mut self, ctx: &TimerCtx, current: Deadline) -> Deadline {
        // RFC 6298 (5.1) is unchanged.
        Rfc6298.on_send(ctx, current)
    }

    fn on_ack(&mut self, ctx: &TimerCtx, restart: bool, current: Deadline) -> Deadline {
        // RFC 7765 section 3: on an ACK of new data, with fewer than
        // rrthresh segments outstanding and no unsent data ready, restart
        // the timer to expire after RTO - T_earliest, T_earliest being the
        // time since the earliest outstanding segment was sent. A result
        // in the past fires at once. Not during loss recovery: after an
        // RTO the earliest segment's send time is that of a transmission
        // already declared lost, and the restart would fire at once
        // (RFC 7765 targets the tail of a transfer in progress).
        if restart && ctx.packets_out > 0 {
            if let Some(at) = restart_at(ctx, self.rrthresh) {
                return Some((at, TimerKind::Rto));
            }
        }
        // Otherwise RFC 6298 (5.2, 5.3).
        Rfc6298.on_ack(ctx, restart, current)
    }
}

/// RTO - T_earliest from now (never in the past) when RFC 7765 applies:
/// fewer than `rrthresh` segments outstanding, no unsent data ready, not
/// in loss recovery. Shared with TLPR, which applies the same restart.
pub fn restart_at(ctx: &TimerCtx, rrthresh: u64) -> Option<Time> {
    if ctx.packets_out < rrthresh && !ctx.has_unsent && !ctx.in_recovery {
        ctx.oldest_sent.map(|sent| (sent + ctx.rto).max(ctx.now))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::MS;

    fn ctx(now: u64, out: u64, oldest: u64) -> TimerCtx {
        TimerCtx {
            now: now * MS,
            rto: 300 * MS,
            srtt: Some(100 * MS),
            packets_out: out,
            oldest_sent: Some(oldest * MS),
            newest_sent: Some(oldest * MS),
            ..Default::default()
        }
    }

    #[test]
    fn restart_subtracts_the_age_of_the_earliest_segment() {
        let mut p = Rtor::default();
        // RTO 300 ms, earliest outstanding segment sent 40 ms ago: the
        // timer expires 260 ms from now.
        let d = p.on_ack(&ctx(1000, 2, 960), true, None);
        assert_eq!(d, Some((1260 * MS, TimerKind::Rto)));
        // Three outstanding is still below rrthresh.
        let d = p.on_ack(&ctx(1000, 3, 960), true, None);
        assert_eq!(d, Some((1260 * MS, TimerKind::Rto)));
    }

    #[test]
    fn plain_restart_at_rrthresh_or_with_unsent_data() {
        let mut p = Rtor::default();
        assert_eq!(
            p.on_ack(&ctx(1000, 4, 960), true, None),
            Some((1300 * MS, TimerKind::Rto))
        );
        let mut c = ctx(1000, 2, 960);
        c.has_unsent = true;
        assert_eq!(p.on_ack(&c, true, None), Some((1300 * MS, TimerKind::Rto)));
        let mut c = ctx(1000, 2, 960);
        c.in_recovery = true;
        assert_eq!(p.on_ack(&c, true, None), Some((1300 * MS, TimerKind::Rto)));
    }

    #[test]
    fn never_in_the_past_and_rfc6298_otherwise() {
        let mut p = Rtor::default();
        // Sent 350 ms ago with an RTO of 300 ms: fire now.
        assert_eq!(
            p.on_ack(&ctx(1000, 1, 650), true, None),
            Some((1000 * MS, TimerKind::Rto))
        );
        // Sends and duplicate ACKs leave a running timer alone.
        let d = Some((1234 * MS, TimerKind::Rto));
        assert_eq!(p.on_send(&ctx(1000, 2, 960), d), d);
        assert_eq!(
            p.on_send(&ctx(1000, 1, 1000), None),
            Some((1300 * MS, TimerKind::Rto))
        );
        assert_eq!(p.on_ack(&ctx(1000, 2, 960), false, d), d);
        assert_eq!(p.on_ack(&ctx(1000, 0, 960), true, d), None);
    }
}
