//! RFC 6298 section 5 retransmission timer management, restarted on every
//! ACK that acknowledges new data (the tail-loss paper's baseline).

use super::{Deadline, TimerCtx, TimerPolicy};
use crate::event::TimerKind;

#[derive(Clone, Debug, Default)]
pub struct Rfc6298;

impl TimerPolicy for Rfc6298 {
    fn name(&self) -> &'static str {
        "rto"
    }

    fn on_send(&mut self, ctx: &TimerCtx, current: Deadline) -> Deadline {
        // (5.1) Start the timer on sending data if it is not running.
        match current {
            Some(d) => Some(d),
            None => Some((ctx.now + ctx.rto, TimerKind::Rto)),
        }
    }

    fn on_ack(&mut self, ctx: &TimerCtx, restart: bool, current: Deadline) -> Deadline {
        if ctx.packets_out == 0 {
            // (5.2) All outstanding data acknowledged: stop the timer.
            return None;
        }
        if restart {
            // (5.3) New data acknowledged: restart it.
            return Some((ctx.now + ctx.rto, TimerKind::Rto));
        }
        current
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::MS;

    #[test]
    fn arms_restarts_and_stops() {
        let mut p = Rfc6298;
        let c = |now, out| TimerCtx {
            now,
            rto: 300 * MS,
            packets_out: out,
            ..Default::default()
        };
        let d = p.on_send(&c(0, 1), None);
        assert_eq!(d, Some((300 * MS, TimerKind::Rto)));
        // A second send does not push it back.
        assert_eq!(p.on_send(&c(10 * MS, 2), d), d);
        // A duplicate ACK leaves it alone; new data restarts it.
        assert_eq!(p.on_ack(&c(50 * MS, 2), false, d), d);
        assert_eq!(
            p.on_ack(&c(100 * MS, 1), true, d),
            Some((400 * MS, TimerKind::Rto))
        );
        assert_eq!(p.on_ack(&c(120 * MS, 0), true, d), None);
    }
}
