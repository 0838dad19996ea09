//! Proportional Rate Reduction as RFC 9937 (Standards Track, 2025,
//! obsoletes RFC 6937) section 6 specifies it, in segments (SMSS = 1).
//! RFC 9937 section 13 warns that counting segments invites ACK splitting;
//! the sender's DeliveredData counts only whole segments, so an ACK for
//! part of one delivers nothing here.
//!
//! The same proportional part as RFC 6937; the differences (RFC 9937
//! section 4), each marked below:
//! 1. PRR-CRB by default; PRR-SSRB's extra segment only on a SafeACK, one
//!    that advances snd.una and indicates no further loss (6.2).
//! 2. RecoverFS leaves out data SACKed before the ACK that starts recovery
//!    (6.1), so a sender that enters recovery after much reordering does
//!    not send too slowly.
//! 3. If nothing has been sent yet in this episode and sndcnt is 0, one
//!    segment is allowed: the fast retransmit always goes (6.2).
//! 4. cwnd = ssthresh when the episode completes (6.4).
//! 5. An ACK that delivers nothing changes nothing (6.2, "if
//!    (DeliveredData is 0) Return"), where RFC 6937 still granted SSRB's
//!    extra segment on it.
//!
//! Linux's tcp_cwnd_reduction() (net/ipv4/tcp_input.c) has the same
//! rules (`delta < 0` is the proportional part, `FLAG_SND_UNA_ADVANCED &&
//! !newly_lost` the SafeACK, `max(sndcnt, prr_out ? 0 : 1)` the forced
//! fast retransmit) but divides by the window before the loss
//! (prior_cwnd) where this divides by RecoverFS, and counts a delivery on
//! a reordering-timer entry: that is `prr-linux` (prr_linux.rs), not this.
//!
//! Without SACK, DeliveredData follows 6.2's estimate, which the sender
//! computes (it sees the duplicate ACKs): one segment per duplicate ACK,
//! and on a cumulative ACK its advance less the duplicates already
//! counted (at least one segment, as Linux). Not here: 6.2's cap of
//! prr_delivered at RecoverFS for that estimate.

use super::prr6937::div_ceil;
use super::{RecoveryCtx, RecoveryOps};
use crate::window::Window;

#[derive(Clone, Debug, Default)]
pub struct Prr {
    prr_delivered: u64,
    prr_out: u64,
    recover_fs: u64,
    /// Entry not yet completed with the triggering ACK's deliveries.
    entering: bool,
    last_sndcnt: u64,
    last_safe: bool,
}

impl Prr {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn prr_delivered(&self) -> u64 {
        self.prr_delivered
    }
    pub fn prr_out(&self) -> u64 {
        self.prr_out
    }
    pub fn recover_fs(&self) -> u64 {
        self.recover_fs
    }
    /// sndcnt computed on the latest ACK that delivered data.
    pub fn last_sndcnt(&self) -> u64 {
        self.last_sndcnt
    }
    /// Whether that ACK was a SafeACK (PRR-SSRB applied below ssthresh).
    pub fn last_safe_ack(&self) -> bool {
        self.last_safe
    }
}

impl RecoveryOps for Prr {
    fn name(&self) -> &'static str {
        "prr"
    }

    fn init_cwnd_reduction(&mut self, w: &mut Window, ctx: &RecoveryCtx) {
        // RFC 9937 6.1. ssthresh = CongCtrlAlg() was set by the sender.
        self.prr_delivered = 0;
        self.prr_out = 0;
        // RecoverFS = SND.NXT - SND.UNA - (SACKed in scoreboard), with
        // snd.una and the scoreboard as they stand after the triggering
        // ACK; that ACK's newly SACKed and newly cumulatively acknowledged
        // data is added in the first cwnd_reduction(), which receives it
        // (difference 2: RFC 6937 counted everything from snd.una).
        self.recover_fs = ctx.packets_out.saturating_sub(ctx.sacked_out);
        self.entering = true;
        self.last_sndcnt = 0;
        self.last_safe = false;
        // Until an ACK delivers data (entry from a detector timer delivers
        // none) send nothing beyond the fast retransmit, which the sender
        // lets through regardless of cwnd (RFC 6675 step 4.3): the window
        // from before the loss must not turn into a burst.
        w.cwnd = ctx.pipe.max(1);
    }

    fn cwnd_reduction(
        &mut self,
        w: &mut Window,
        ctx: &RecoveryCtx,
        newly_acked_sacked: u64,
        _fast_rexmit: bool,
    ) {
        // DeliveredData: segments newly cumulatively acknowledged (not
        // previously SACKed) plus newly SACKed, as the sender computes it.
        let delivered = newly_acked_sacked;
        if self.entering {
            // 6.1: RecoverFS += (newly SACKed) + (newly cumulatively
            // acknowledged) for the ACK that triggered recovery.
            self.entering = false;
            self.recover_fs += delivered;
        }
        // 6.2, difference 5: nothing delivered, nothing to clock out.
        if delivered == 0 {
            return;
        }
        self.prr_delivered += delivered;
        let inflight = ctx.pipe;
        let ssthresh = w.ssthresh;
        // 6.2: SafeACK = (SND.UNA advances and no further loss indicated).
        let safe_ack = ctx.snd_una_advanced && !ctx.new_loss;
        let mut sndcnt: i128 = if inflight > ssthresh {
            // Proportional Rate Reduction, DIV_ROUND_UP as in 6.2. The
            // floor of 1 on RecoverFS only guards an entry where everything
            // outstanding was already SACKed.
            let out = div_ceil(
                self.prr_delivered as u128 * ssthresh as u128,
                self.recover_fs.max(1),
            );
            out as i128 - self.prr_out as i128
        } else {
            // Difference 1: PRR-CRB by default, strictly packet conserving
            // while losses may still be unfolding...
            let mut s = (self.prr_delivered as i128 - self.prr_out as i128).max(delivered as i128);
            if safe_ack {
                // ...PRR-SSRB when recovery is making good progress.
                s += 1;
            }
            // Attempt to catch up, as permitted.
            (ssthresh as i128 - inflight as i128).min(s)
        };
        // RFC 9937 leaves a negative SndCnt in its pseudocode (cwnd below
        // inflight only stops sending); Linux clamps at 0, as do we, so
        // that the check below sees a true zero.
        if sndcnt < 0 {
            sndcnt = 0;
        }
        // Difference 3: force the fast retransmit upon entering recovery.
        if self.prr_out == 0 && sndcnt == 0 {
            sndcnt = 1;
        }
        let sndcnt = sndcnt as u64;
        self.last_sndcnt = sndcnt;
        self.last_safe = safe_ack;
        w.cwnd = (inflight + sndcnt).max(1);
    }

    fn end_cwnd_reduction(&mut self, w: &mut Window, _ctx: &RecoveryCtx) {
        // 6.4 (difference 4): cwnd = ssthresh, so an application-limited
        // episode or heavy losses do not leave the flow to slow-start from
        // a tiny window the way rate-halving did.
        w.cwnd = w.ssthresh.max(1);
        w.cwnd_cnt = 0;
    }

    fn on_sent(&mut self, segments: u64) {
        // 6.3: prr_out += (data sent).
        self.prr_out += segments;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(pipe: u64, packets_out: u64, sacked_out: u64) -> RecoveryCtx {
        RecoveryCtx::flight(pipe, packets_out, sacked_out)
    }

    #[test]
    fn recover_fs_excludes_data_sacked_before_entry() {
        let mut p = Prr::new();
        let mut w = Window::new(20);
        w.ssthresh = 10;
        // 22 outstanding, 3 SACKed of which the triggering ACK SACKed 1.
        let c = ctx(18, 22, 3);
        p.init_cwnd_reduction(&mut w, &c);
        p.cwnd_reduction(&mut w, &c, 1, true);
        assert_eq!(p.recover_fs(), 20);
        assert_eq!(w.cwnd, 19);
    }

    #[test]
    fn safe_ack_adds_one_below_ssthresh() {
        for (advanced, new_loss, want) in [
            (false, false, 1),
            (true, true, 1),
            (true, false, 2),
            (false, true, 1),
        ] {
            let mut p = Prr::new();
            let mut w = Window::new(20);
            w.ssthresh = 10;
            let c = ctx(4, 20, 0);
            p.init_cwnd_reduction(&mut w, &c);
            p.cwnd_reduction(&mut w, &c, 1, true);
            p.on_sent(1);
            let c = RecoveryCtx {
                snd_una_advanced: advanced,
                new_loss,
                ..ctx(4, 20, 0)
            };
            p.cwnd_reduction(&mut w, &c, 1, false);
            assert_eq!(
                p.last_sndcnt(),
                want,
                "advanced {advanced} new_loss {new_loss}"
            );
        }
    }

    #[test]
    fn zero_delivery_changes_nothing_and_timer_entry_sends_only_the_retransmit() {
        let mut p = Prr::new();
        let mut w = Window::new(20);
        w.ssthresh = 10;
        let c = ctx(7, 20, 0);
        p.init_cwnd_reduction(&mut w, &c);
        p.cwnd_reduction(&mut w, &c, 0, true);
        assert_eq!(w.cwnd, 7);
        p.on_sent(1);
        p.cwnd_reduction(&mut w, &ctx(3, 20, 0), 0, false);
        assert_eq!((w.cwnd, p.prr_delivered()), (7, 0));
    }
}
