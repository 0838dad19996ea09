//! Congestion control on each ACK (Linux tcp_cong_control()) and cwnd
//! validation (RFC 7661 spirit, Linux tcp_cwnd_validate()).

use crate::cc::{CaState, CcCtx};
use crate::config::CwndGrowth;
use crate::cwnd_use::Burst;
use crate::event::Event;
use crate::rate::Chosen;
use crate::recovery::RecoveryCtx;
use crate::scoreboard::later;
use crate::time::Time;

use super::{AckFacts, AckRtts, Sender, State};

impl Sender {
    /// What a congestion controller sees of this ACK, with its
    /// delivery-rate sample when the controller takes them.
    #[inline]
    pub(super) fn cc_ctx(&mut self, now: Time, f: AckFacts) -> CcCtx {
        let rate = self.rate.as_mut().map(|r| {
            // The most recently sent of the newly delivered segments
            // (Linux tcp_rate_skb_delivered()); one still on the
            // scoreboard was SACKed.
            let d = self.board.delivered();
            let rtx = self.board.delivered_retransmitted().latest();
            // `later`, not a max over an iterator of the two: the array
            // that built went through memory on every ACK (issue 33).
            let chosen: Option<Chosen> = later(d.latest_original, rtx)
                .and_then(|x| r.choose(x.seg_no, x.seg_no >= self.board.base()));
            r.on_lost(f.losses);
            r.generate(
                now,
                f.delivered,
                f.losses,
                chosen,
                self.rtt.min_rtt(),
                self.board.base(),
            )
        });
        CcCtx {
            now,
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt(),
            packets_out: self.board.packets_out(),
            rtt_sample: f.rtt_sample,
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            bytes_acked: f.bytes_acked,
            delivered: f.delivered,
            losses: f.losses,
            prior_in_flight: f.prior_in_flight,
            in_flight: self.pipe(),
            state: self.cc_state(),
            cwnd_limited: self.cwnd_limited_at(f.prior_in_flight),
            mss: self.cfg.mss,
            rate,
            paced: self.pacer.is_some(),
            pacing_rate: if self.cc_caps.wants_pacing_rate {
                self.pacing_rate()
            } else {
                None
            },
            slow_start: self.cfg.slow_start,
            avoidance: self.cfg.avoidance,
        }
    }

    pub(super) fn cc_state(&self) -> CaState {
        match self.state {
            State::Open => CaState::Open,
            State::Fast { .. } => CaState::Recovery,
            State::Loss { .. } => CaState::Loss,
        }
    }

    /// The controller's samples, then cwnd on this ACK: a controller that
    /// owns cwnd sets it (Linux cong_control()); otherwise the
    /// RecoveryOps during fast recovery (the entering ACK was handled by
    /// enter_fast_recovery), and the controller's growth outside it while
    /// the flow is cwnd-limited (or, for one that tests that itself,
    /// whatever the flight: `tests_cwnd_limited`). The context is built only when someone
    /// reads it.
    pub(super) fn congestion_control(
        &mut self,
        now: Time,
        f: AckFacts,
        entering: bool,
        cum_advanced: bool,
        new_loss: bool,
        rtts: AckRtts,
    ) {
        let grows = !self.cc_caps.owns_cwnd
            && self.may_raise_cwnd(cum_advanced, f.newly_sacked)
            && (matches!(self.state, State::Open | State::Loss { .. })
                || (!entering && self.alg.recovery.grows_in_recovery()))
            && (self.cc_caps.tests_cwnd_limited || self.cwnd_limited_at(f.prior_in_flight));
        if self.cc_caps.owns_cwnd || self.cc_caps.observes_acks || grows {
            let cctx = self.cc_ctx(now, f);
            if self.cc_caps.observes_acks {
                self.alg.cc.on_ack(&mut self.win, &cctx);
            }
            if self.cc_caps.owns_cwnd {
                self.alg.cc.cong_control(&mut self.win, &cctx);
                self.win.cwnd = self.win.cwnd.max(1);
                return;
            }
            // pkts_acked may have ended slow start (cubic-linux's HyStart
            // sets ssthresh = cwnd); Linux judges tcp_is_cwnd_limited() in
            // tcp_cong_avoid(), after it. For every other controller the
            // window is unchanged and so is the answer.
            let grows = grows
                && (self.cc_caps.tests_cwnd_limited || self.cwnd_limited_at(f.prior_in_flight));
            if grows {
                // What this ACK delivered, less the duplicates that
                // already counted (Linux tcp_cong_control()'s acked_sacked
                // from tcp_newly_delivered()).
                self.alg.cc.cong_avoid(&mut self.win, cctx.delivered, &cctx);
                // Linux tcp_cong_avoid_ai() and tcp_slow_start() stop at
                // snd_cwnd_clamp.
                self.win.cwnd = self.win.cwnd.min(self.cfg.max_cwnd.max(1));
            }
        }
        if !entering && matches!(self.state, State::Fast { .. }) {
            self.reduce_in_recovery(now, f, cum_advanced, new_loss, rtts);
        }
    }

    /// The recovery algorithm's cwnd on an ACK during fast recovery
    /// (RFC 6937 / 9937 PRR, Linux tcp_cwnd_reduction()).
    // Out of line: a controller that owns cwnd (BBR) never gets here, and
    // its per-ACK path's code stays on fewer cache lines (issue 33).
    #[inline(never)]
    fn reduce_in_recovery(
        &mut self,
        now: Time,
        f: AckFacts,
        cum_advanced: bool,
        new_loss: bool,
        rtts: AckRtts,
    ) {
        let rctx = RecoveryCtx {
            newly_lost: f.losses,
            retrans_data_acked: f.retrans_data_acked,
            lost_retrans: f.lost_retrans,
            ..self.recovery_ctx(now, cum_advanced, new_loss, rtts)
        };
        self.alg
            .recovery
            .cwnd_reduction(&mut self.win, &rctx, f.delivered, false);
    }

    /// Whether this ACK's progress lets cwnd grow. `cwnd_growth =
    /// "rfc5681"`: only a cumulative advance. `"linux"`: Linux 6.x
    /// tcp_may_raise_cwnd() (tcp_input.c): while tp->reordering is above
    /// sysctl_tcp_reordering, FLAG_FORWARD_PROGRESS (newly SACKed data
    /// counts), else FLAG_DATA_ACKED. DupThresh plays
    /// sysctl_tcp_reordering (3 unless set), which is also where Linux's
    /// tp->reordering starts, so tp->reordering exceeds it exactly when
    /// the measured degree (tcp_update_reordering()) does.
    fn may_raise_cwnd(&self, cum_advanced: bool, newly_sacked: u64) -> bool {
        match self.cfg.cwnd_growth {
            CwndGrowth::Rfc5681 => cum_advanced,
            CwndGrowth::Linux => {
                cum_advanced || (newly_sacked > 0 && self.reorder.degree > self.cfg.dupthresh)
            }
        }
    }

    /// Linux tcp_is_cwnd_limited() (cwnd_use.rs); Linux 3.10's variant
    /// (`cwnd_validation`) judges the flight before the ACK instead.
    pub(super) fn cwnd_limited_at(&self, prior_in_flight: u64) -> bool {
        let rule = self.cfg.cwnd_validation;
        if rule.is_310() {
            return rule.limited_310(self.win.cwnd, prior_in_flight, self.cfg.mss);
        }
        self.cwnd_use
            .limited(rule, self.win.cwnd, self.win.ssthresh)
    }

    /// Linux tcp_cwnd_validate(), called when a send burst ends.
    pub(super) fn validate_cwnd(&mut self, limited: bool) {
        let burst = Burst {
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            packets_out: self.board.packets_out(),
            cwnd_limited: limited,
            sent_new: std::mem::take(&mut self.sent_new_in_burst),
        };
        self.cwnd_use.on_burst_end(self.cfg.cwnd_validation, burst);
    }

    pub(super) fn emit_cwnd(&mut self, now: Time) {
        let (cwnd, ssthresh) = (self.win.cwnd, self.win.ssthresh);
        self.events
            .emit(now, || Event::CwndChanged { cwnd, ssthresh });
    }
}
