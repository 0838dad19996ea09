//! Proportional Rate Reduction as RFC 6937 (Experimental, 2013) section 3
//! and Algorithm 2 of the PRR paper (Dukkipati et al., IMC 2011, section
//! 4.2) give it: PRR with the Slow-Start Reduction Bound (PRR-SSRB) on
//! every ACK. RFC 9937 obsoletes it; `prr.rs` is the current algorithm.
//!
//! Counted in segments (RFC 6937 section 3 allows it; SMSS = 1).
//!
//! What distinguishes this version from RFC 9937 (see `prr.rs`):
//! - the reduction bound is SSRB on every ACK (RFC 6937 sections 3 and 6
//!   recommend PRR-SSRB; RFC 9937 uses CRB unless the ACK is "safe");
//! - RecoverFS = snd.nxt - snd.una at entry, data already SACKed included
//!   (RFC 9937 section 4 calls this "send too slowly" after reordering);
//! - the computation runs on every ACK, also one that delivers nothing, so
//!   such an ACK still earns SSRB's extra segment (RFC 9937 returns first);
//! - nothing forces the fast retransmit through (the sender does anyway,
//!   RFC 6675 step 4.3, so it is counted in prr_out like any send);
//! - cwnd = ssthresh on exit comes from the paper's Algorithm 2 ("At the
//!   end of recovery"); RFC 6937's section 3 is silent, and RFC 9937
//!   section 4 lists it among its changes.

use super::{RecoveryCtx, RecoveryOps};
use crate::window::Window;

/// Which Reduction Bound applies while pipe <= ssthresh (RFC 6937
/// section 3). Only SSRB is registered by name; CRB is here for the RFC's
/// heavy-loss example and for comparisons in tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReductionBound {
    /// Conservative: limit = prr_delivered - prr_out (strict packet
    /// conservation, RFC 6937 appendix A).
    Crb,
    /// Slow start: limit = MAX(prr_delivered - prr_out, DeliveredData) + 1.
    Ssrb,
}

#[derive(Clone, Debug)]
pub struct Prr6937 {
    bound: ReductionBound,
    /// Segments delivered to the receiver since recovery began.
    prr_delivered: u64,
    /// Segments sent (new or retransmitted) since recovery began.
    prr_out: u64,
    /// FlightSize at the start of recovery.
    recover_fs: u64,
    /// The last ACK's sndcnt (for tests and tracing).
    last_sndcnt: u64,
}

impl Default for Prr6937 {
    fn default() -> Self {
        Self::ssrb()
    }
}

impl Prr6937 {
    /// PRR-SSRB: what RFC 6937 section 6 recommends and the paper calls PRR.
    pub fn ssrb() -> Self {
        Self::with_bound(ReductionBound::Ssrb)
    }
    /// PRR-CRB (RFC 6937 section 3, `conservative`).
    pub fn crb() -> Self {
        Self::with_bound(ReductionBound::Crb)
    }
    pub fn with_bound(bound: ReductionBound) -> Self {
        Prr6937 {
            bound,
            prr_delivered: 0,
            prr_out: 0,
            recover_fs: 1,
            last_sndcnt: 0,
        }
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
    /// sndcnt computed on the latest ACK.
    pub fn last_sndcnt(&self) -> u64 {
        self.last_sndcnt
    }
}

impl RecoveryOps for Prr6937 {
    /// The paper's PRR ran in Linux 3.2, whose recovery has no RFC 6675
    /// rescue retransmission (NextSeg() rule 4); without new data PRR
    /// banks the opportunity instead (the paper's Figure 4). `prr`, the
    /// RFC 9937 version over RFC 6675's NextSeg(), keeps the rescue.
    fn rescue_retransmission(&self) -> bool {
        false
    }
    fn name(&self) -> &'static str {
        match self.bound {
            ReductionBound::Ssrb => "prr-6937",
            ReductionBound::Crb => "prr-6937-crb",
        }
    }

    fn init_cwnd_reduction(&mut self, _w: &mut Window, ctx: &RecoveryCtx) {
        // RFC 6937 section 3 / Algorithm 2 initialisation. ssthresh was set
        // by the congestion controller already (CongCtrlAlg()).
        self.prr_delivered = 0;
        self.prr_out = 0;
        // RecoverFS = snd.nxt - snd.una, including whatever the receiver
        // already SACKed; the floor only keeps the division defined.
        self.recover_fs = ctx.packets_out.max(1);
        self.last_sndcnt = 0;
    }

    fn cwnd_reduction(
        &mut self,
        w: &mut Window,
        ctx: &RecoveryCtx,
        newly_acked_sacked: u64,
        _fast_rexmit: bool,
    ) {
        // DeliveredData = change_in(snd.una) + change_in(SACKd): the sender
        // passes segments newly cumulatively acked (not previously SACKed)
        // plus segments newly SACKed.
        let delivered = newly_acked_sacked;
        self.prr_delivered += delivered;
        let pipe = ctx.pipe;
        let ssthresh = w.ssthresh;
        let sndcnt: i128 = if pipe > ssthresh {
            // Proportional part: spread the reduction over the round trip
            // so that prr_out reaches ssthresh as prr_delivered reaches
            // RecoverFS. CEIL rather than floor sends the first segment on
            // the first ACK instead of waiting for 1/ratio of them.
            let out = div_ceil(
                self.prr_delivered as u128 * ssthresh as u128,
                self.recover_fs,
            );
            out as i128 - self.prr_out as i128
        } else {
            let banked = self.prr_delivered as i128 - self.prr_out as i128;
            let limit = match self.bound {
                ReductionBound::Crb => banked,
                // Slow start inside recovery: re-send what earlier voluntary
                // reductions held back, and at most one segment per ACK more
                // than was delivered, so heavy losses are repaired
                // exponentially rather than one segment per ACK.
                ReductionBound::Ssrb => banked.max(delivered as i128) + 1,
            };
            (ssthresh as i128 - pipe as i128).min(limit)
        };
        // Algorithm 2: sndcnt = MAX(sndcnt, 0).
        let sndcnt = sndcnt.max(0) as u64;
        self.last_sndcnt = sndcnt;
        // The engine keeps cwnd >= 1 (a zero window would only matter for
        // CRB with pipe = 0 and nothing banked).
        w.cwnd = (pipe + sndcnt).max(1);
    }

    fn end_cwnd_reduction(&mut self, w: &mut Window, _ctx: &RecoveryCtx) {
        // Algorithm 2, "At the end of recovery: cwnd = ssthresh": the
        // congestion controller's target, whatever pipe did meanwhile.
        w.cwnd = w.ssthresh.max(1);
        w.cwnd_cnt = 0;
    }

    fn on_sent(&mut self, segments: u64) {
        // "On any data transmission or retransmission: prr_out += data sent".
        self.prr_out += segments;
    }
}

/// CEIL(n / d) on integers (RFC 6937 writes CEIL(); RFC 9937 spells it
/// DIV_ROUND_UP).
pub(crate) fn div_ceil(n: u128, d: u64) -> u128 {
    let d = d.max(1) as u128;
    n.div_ceil(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(pipe: u64, packets_out: u64) -> RecoveryCtx {
        RecoveryCtx {
            pipe,
            packets_out,
            ..Default::default()
        }
    }

    #[test]
    fn proportional_part_sends_on_alternate_acks_for_half() {
        let mut p = Prr6937::ssrb();
        let mut w = Window::new(20);
        w.ssthresh = 10;
        p.init_cwnd_reduction(&mut w, &ctx(19, 20));
        let mut sent = vec![];
        let mut pipe = 19;
        for i in 0..8 {
            p.cwnd_reduction(&mut w, &ctx(pipe, 20), 1, i == 0);
            let n = w.cwnd.saturating_sub(pipe);
            p.on_sent(n);
            sent.push(n);
            pipe = pipe + n - 1;
        }
        assert_eq!(sent, [1, 0, 1, 0, 1, 0, 1, 0]);
    }

    #[test]
    fn ssrb_and_crb_differ_below_ssthresh() {
        for (bound, want) in [(ReductionBound::Crb, 1), (ReductionBound::Ssrb, 2)] {
            let mut p = Prr6937::with_bound(bound);
            let mut w = Window::new(20);
            w.ssthresh = 10;
            p.init_cwnd_reduction(&mut w, &ctx(4, 20));
            p.cwnd_reduction(&mut w, &ctx(4, 20), 1, true);
            assert_eq!(p.last_sndcnt(), want, "{bound:?}");
            assert_eq!(w.cwnd, 4 + want);
        }
    }
}
