//! LE's window rule during loss recovery (LE paper,
//! ../shared/papers/le-transmission-order.txt, sections 2.2.2-2.2.3 and the
//! Observation of 2.2.4).
//!
//! - Per-RTT reduction (2.2.3): LE has no recovery state of its own; a
//!   detected loss calls the congestion controller only when the last
//!   reduction (last_loss_time) is more than an RTT old, so several losses
//!   within one RTT are one congestion event, "as does NewReno". In the
//!   engine that is `congestion_event`: yes on entering recovery if an RTT
//!   has passed, and yes again inside a long recovery on a loss an RTT
//!   after the last reduction (the sender then takes a new ssthresh and
//!   moves RecoveryPoint). The RTT is the smoothed one (the paper measures
//!   per packet, 2.2.4); before any sample every loss is an event.
//! - The reduction sets cwnd to the controller's ssthresh at once (the
//!   Observation: "sets the value of cwnd to w0/2"), and nothing changes
//!   per ACK: LE "can transmit a new packet or lost packet if the number of
//!   on-flying packets is less than cwnd" (2.2.2), where on-flying is
//!   WAITLIST's size, the engine's pipe. Lost segments go first (NextSeg()
//!   rule 1, the paper's RTXLIST priority), and the first one leaves at once
//!   (the fast retransmit), as the Observation has it.
//! - Recovery ends with cwnd where the last reduction put it; the
//!   controller's growth resumes from there.
//!
//! Growth while the engine's fast recovery lasts (until RecoveryPoint is
//! acknowledged): frozen by default, as for every recovery algorithm
//! here. LE, having no recovery state ("LE has no discrete states",
//! 2.2.3), would let AIMD grow cwnd per ACK meanwhile: `grow_in_recovery`
//! does (`RecoveryOps::grows_in_recovery`; the sender then runs the
//! controller's growth on every ACK of new data in recovery, and a
//! congestion event still sets cwnd to ssthresh at once).

use super::{RecoveryCtx, RecoveryOps};
use crate::time::Time;
use crate::window::Window;

#[derive(Clone, Debug, Default)]
pub struct Le {
    /// The paper's last_loss_time: when cwnd was last reduced.
    last_loss_time: Option<Time>,
    /// The congestion event `init_cwnd_reduction` is about to apply.
    reduce: bool,
    /// `[flow.le] grow_in_recovery`.
    grow: bool,
}

impl Le {
    pub fn new(grow_in_recovery: bool) -> Self {
        Le {
            grow: grow_in_recovery,
            ..Le::default()
        }
    }
}

impl RecoveryOps for Le {
    fn name(&self) -> &'static str {
        "le"
    }
    fn grows_in_recovery(&self) -> bool {
        self.grow
    }
    fn congestion_event(&mut self, ctx: &RecoveryCtx, _entering: bool) -> bool {
        let rtt = ctx.srtt.unwrap_or(0);
        let event = self
            .last_loss_time
            .is_none_or(|t| ctx.now.saturating_sub(t) > rtt);
        if event {
            self.last_loss_time = Some(ctx.now);
        }
        self.reduce = event;
        event
    }
    fn init_cwnd_reduction(&mut self, w: &mut Window, _ctx: &RecoveryCtx) {
        if std::mem::take(&mut self.reduce) {
            w.cwnd = w.ssthresh;
            w.cwnd_cnt = 0;
        }
    }
    fn cwnd_reduction(&mut self, _w: &mut Window, _c: &RecoveryCtx, _n: u64, _f: bool) {}
    fn end_cwnd_reduction(&mut self, _w: &mut Window, _ctx: &RecoveryCtx) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::MS;

    fn ctx(now: Time) -> RecoveryCtx {
        RecoveryCtx {
            now,
            srtt: Some(100 * MS),
            ..Default::default()
        }
    }

    #[test]
    fn reduces_once_per_rtt() {
        // Losses at 0, 50 ms (same RTT: ignored), 150 ms (an RTT after
        // the last reduction: a new event), 200 ms (ignored).
        let mut le = Le::new(false);
        let mut w = Window {
            cwnd: 32,
            ssthresh: 16,
            cwnd_cnt: 0,
        };
        assert!(le.congestion_event(&ctx(0), true));
        le.init_cwnd_reduction(&mut w, &ctx(0));
        assert_eq!(w.cwnd, 16);
        assert!(!le.congestion_event(&ctx(50 * MS), false));
        w.ssthresh = 8;
        assert!(le.congestion_event(&ctx(150 * MS), false));
        le.init_cwnd_reduction(&mut w, &ctx(150 * MS));
        assert_eq!(w.cwnd, 8);
        // A recovery entered within the RTT keeps cwnd.
        assert!(!le.congestion_event(&ctx(200 * MS), true));
        w.cwnd = 12;
        le.init_cwnd_reduction(&mut w, &ctx(200 * MS));
        assert_eq!(w.cwnd, 12);
        le.end_cwnd_reduction(&mut w, &ctx(300 * MS));
        assert_eq!(w.cwnd, 12);
    }
}
