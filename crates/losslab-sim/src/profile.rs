//! Sender profiles: every part and constant of a flow set the way one
//! stack did (`profile = "linux-6"` in a `[[flow]]`). Explicit keys in the
//! same flow override what a profile sets. docs/SCENARIO.md ("Profiles")
//! has the table; each choice below cites where it comes from.
//!
//! A profile names behaviours this laboratory implements; where a kernel
//! had something it lacks (BIC in 2.6.17, BBR in 4.10, RACK running
//! beside FACK in 4.4-4.14), the comment says what stands in for it.

use losslab_core::cc::{
    Avoidance, HyStartMode, MinRttRefresh, SlowStart, VegasGate, VegasSsthresh, WestwoodSsthresh,
};
use losslab_core::detect::{ErMitigation, ErVariant, RackAdvance, ReoTimer};
use losslab_core::time::{MS, SEC};
use losslab_core::timers::{ProbeGate, ProbeRearm, Pto, TlpPto};
use losslab_core::{
    CwndGrowth, CwndValidation, FrtoMode, HandshakeRules, PacingStart, RecoveryExit, RtoFormula,
    RtoSsthresh, RttSampling,
};

use crate::scenario::{CcSpec, FlowSpec};

/// Profile names, newest Linux first.
pub const NAMES: &[&str] = &[
    "linux-6",
    "linux-4.10",
    "linux-3.17",
    "linux-3.10",
    "linux-3.2",
    "linux-2.6.17",
    "rfc",
];

/// What every Linux profile shares (net/ipv4 defaults since 2.6.x): the
/// handshake's Linux consequences and Linux's delayed-ACK engine (a Linux
/// receiver on the other end),
/// Linux's RTO formula (tcp_set_rto(): SRTT + max(4 RTTVAR, 200 ms)),
/// TCP_RTO_MIN 200 ms, restart after idle (tcp_slow_start_after_idle = 1),
/// DSACK undo (tcp_try_undo_dsack()), lost-retransmission detection
/// (tcp_mark_lost_retrans(), RACK since 4.4) and the RTO restarted on a
/// retransmission of the first outstanding segment.
fn linux_common(f: &mut FlowSpec) {
    // F-RTO (tcp_frto = 2 since 2.6.24) and ssthresh kept on a timeout in
    // fast recovery (tcp_enter_loss()).
    f.frto = FrtoMode::Linux;
    f.rto_ssthresh = RtoSsthresh::Linux;
    // Without SACK, the recovery state is held at high_seq
    // (tcp_try_undo_recovery(), since 2.6 for Reno; RFC 2582's guard).
    f.recovery_exit = RecoveryExit::Linux;
    f.handshake_rules = HandshakeRules::Linux;
    f.receiver.linux_delack = true;
    f.rto_formula = RtoFormula::Linux;
    f.min_rto = 200 * MS;
    f.slow_start_after_idle = true;
    f.dsack_undo = true;
    f.lost_retransmission_detection = true;
    // tcp_xmit_retransmit_queue() restarts the RTO on retransmitting the
    // head of the write queue.
    f.rto_rearm_on_head_retransmit = true;
}

/// The congestion-control modules as the kernels from 3.10 on have them
/// (each key is read only by its controller): tcp_westwood.c's
/// `.ssthresh = tcp_reno_ssthresh` with CA_EVENT_LOSS and
/// CA_EVENT_COMPLETE_CWR setting BWE x RTTmin (`[flow.westwood] ssthresh
/// = "linux"`, `complete_cwr = true`), and tcp_vegas_cong_avoid() called
/// on every ACK that may raise cwnd (`[flow.vegas] gate = "linux"`).
/// Read at 3.10.105 and 4.10.17; 6.x is the same. 3.2 stands nearest:
/// its Westwood hooks CA_EVENT_FRTO, not CA_EVENT_LOSS, which with SACK
/// and tcp_frto = 2 comes on the same timeouts, but not without SACK
/// with more than one retransmission out (tcp_enter_loss()), where 3.2
/// keeps Reno's ssthresh. tcp_vegas_ssthresh() is min(ssthresh, cwnd
/// less one) up to 4.10 (`[flow.vegas] ssthresh = "cwnd-1"`, set by the
/// 3.x and 4.10 profiles) and min(ssthresh, cwnd) by 5.2 (the default).
fn linux_modules(f: &mut FlowSpec) {
    f.westwood_ssthresh = WestwoodSsthresh::Linux;
    f.westwood_complete_cwr = true;
    f.vegas_gate = VegasGate::Linux;
}

/// The Linux 3.x hosts of the PRR, mobile and tail-loss papers: Linux's
/// whole RTT estimator (tcp_rtt_estimator(): the variance term falls once
/// per RTT; `rto_formula = "linux-kernel"`) and timers on a 1000 Hz tick
/// (`timer_hz`; CONFIG_HZ was a build choice, 1000 the common desktop and
/// server value of the time, 250 the other: a setup choice of the
/// reproductions; Westwood's jiffies at the same HZ). The estimator is
/// unchanged in later kernels. The 3.x kernels' own code, as 3.2, 3.10
/// and 3.17 share it: tcp_cubic.c of 3.x (`cubic-linux-3`, HyStart
/// `linux-3`) and PRR as tcp_cwnd_reduction() of 3.x (`prr-linux-3`:
/// prior_cwnd, SSRB on every ACK). The Reno family's congestion
/// avoidance per ACK (tcp_cong_avoid_ai(tp, w), `avoidance = "per-ack"`;
/// later kernels count the segments acked, tcp_cong_avoid_ai(tp, w,
/// acked)) and the modules of `linux_modules`.
fn linux_3x(f: &mut FlowSpec) {
    linux_common(f);
    linux_modules(f);
    f.vegas_ssthresh = VegasSsthresh::CwndMinusOne;
    // tcp_cong_avoid_ai(tp, w) up to 3.17: one segment per cwnd + 1 ACKs.
    f.avoidance = Avoidance::PerAck;
    f.rto_formula = RtoFormula::LinuxKernel;
    f.timer_hz = 1000;
    f.westwood_hz = 1000;
    f.cc = CcSpec::Named("cubic-linux-3".into());
    f.hystart = HyStartMode::Linux3;
    f.recovery = "prr-linux-3".into();
}

/// Linux 3.10-3.17's loss detection and timers (tcp_early_retrans = 3):
/// early retransmit as tcp_time_to_recover() "Trick#6" over FACK with the
/// max(SRTT/4, 2 ms) delay, and TLP with its loss detection; IW 10.
fn early_retransmit_and_tlp(f: &mut FlowSpec) {
    f.detection = "early-retransmit".into();
    f.early_retransmit.variant = ErVariant::Linux;
    f.early_retransmit.mitigation = ErMitigation::Delay;
    f.timers = "tlp".into();
    f.tlp_loss_inference = true;
    f.init_cwnd = 10;
}

/// Sets `f` to profile `name`; false when there is no such profile.
pub fn apply(name: &str, f: &mut FlowSpec) -> bool {
    match name {
        // Linux 6.x, every part its own code (issue 32; before it this
        // profile ran RFC 9438's `cubic` with the `linux` HyStart blend,
        // RFC 9937's `prr`, the RTO formula alone, exact timers and the
        // TSecr sample, which the keys named in docs/SCENARIO.md restore):
        // - tcp_cubic.c in its integers, HyStart on (`cubic-linux`);
        // - PRR as tcp_cwnd_reduction() (`prr-linux`: prior_cwnd);
        // - RACK-TLP (tcp_recovery = 1, tcp_early_retrans = 3; FACK and RFC
        //   5827 ER were removed in 4.15/4.18);
        // - tcp_rtt_estimator() whole, RTT samples from the (S)ACKed
        //   segments' send times (tcp_clean_rtx_queue()), cwnd growth on
        //   SACK-only ACKs past a reordering of 3 (tcp_may_raise_cwnd());
        // - timers on jiffies at CONFIG_HZ = 250 (the RTO, the probes,
        //   RACK's reordering timer, Westwood's clock): a build choice
        //   (Debian's, and the kernel docs/FIDELITY.md measures; Fedora and
        //   Ubuntu build 1000: set `timer_hz` and `[flow.westwood] hz` to
        //   your kernel's); the probe timeout as tcp_schedule_loss_probe()
        //   computes it (`[flow.rack-tlp] pto = "linux"`; before it the
        //   profile armed RFC 8985's, which `pto = "rfc8985"` restores);
        // - the receiver's window opened as tcp_grow_window() does, with
        //   its quick ACKs, its buffer autotuned from tcp_rmem[1] as
        //   tcp_rcv_space_adjust() does (`receiver.autotune`), and pacing from the skb that brings
        //   data_segs_out to 10 (tcp_update_skb_after_send());
        // - IW 10 (RFC 6928, since 2.6.39).
        "linux-6" => {
            linux_common(f);
            linux_modules(f);
            f.cc = CcSpec::Named("cubic-linux".into());
            f.hystart = HyStartMode::Off;
            f.recovery = "prr-linux".into();
            f.detection = "rack".into();
            f.timers = "rack-tlp".into();
            f.init_cwnd = 10;
            f.rto_formula = RtoFormula::LinuxKernel;
            f.timer_hz = 250;
            f.rtt_sample = RttSampling::Linux;
            f.cwnd_growth = CwndGrowth::Linux;
            f.receiver.grow_window = true;
            f.receiver.autotune = true;
            f.pacing_start = PacingStart::Linux;
            // tcp_clean_rtx_queue() restarts the RTO on SACKs of data sent
            // before the head's last transmission (since 3.13).
            f.rto_rearm_on_sack = true;
            // tcp_rack_mark_lost() since 6.6: the wait + 2 ms in jiffies;
            // tcp_westwood.c counts jiffies too.
            f.rack_reo_timer = ReoTimer::Linux;
            // tcp_mark_lost_retrans() left in 4.4: RACK finds lost
            // retransmissions, with its reordering window.
            f.lost_retransmission_detection = false;
            // tcp_rack_advance(): a SACKed retransmission moves RACK on its
            // RTT alone, whatever the ACK echoes.
            f.rack_advance = RackAdvance::Linux;
            f.westwood_hz = 250;
            // tcp_schedule_loss_probe() since 6.6: 2 SRTT + 2 ms (the
            // minimum RTO with one packet out) in jiffies, capped by the
            // time left to the RTO in jiffies.
            f.rack_tlp_pto = Pto::Linux;
            // tcp_schedule_loss_probe(): only in CA_Open or CA_CWR, not
            // while anything is SACKed, lost or retransmitted (RFC 8985
            // asks only that nothing be SACKed).
            f.probe_gate = Some(ProbeGate::Linux);
        }
        // Linux 4.10 (the OR3 paper's hosts; docs/LINUX-VERSIONS.md has the
        // kernel read at 4.10.17, behaviour by behaviour). Before issue 32's
        // second step it ran RFC 8985's `rack` for its detection, the TSecr
        // sample, cwnd growth on cumulative ACKs only and the RTO formula
        // alone on exact timers; the keys in docs/SCENARIO.md restore that.
        // - Loss detection of 4.4-4.10 (`linux-4.4`): FACK and early
        //   retransmit start recovery, RACK marks inside it, no RACK timer.
        // - TLP as the draft (tcp_schedule_loss_probe()); PRR as 4.10's
        //   tcp_cwnd_reduction() (`prr-linux-4.10`: prior_cwnd, SSRB only
        //   when retransmitted data is acknowledged and no retransmission
        //   was lost); tcp_cubic.c as 6.x's in its integers (4.10's core is
        //   the same but for the undo) with 4.10's HyStart (`cubic-linux`,
        //   `hystart = "linux-4.10"`). BBR, which the paper also runs, each
        //   reproduction sets.
        // - tcp_clean_rtx_queue()'s RTT samples and tcp_may_raise_cwnd():
        //   the same rules as 6.x (`linux`).
        // - tcp_rtt_estimator() whole on jiffies at CONFIG_HZ = 250 (the
        //   kernel's Kconfig default, and Debian's and Ubuntu's generic
        //   build of the time: a setup choice; set `timer_hz` and
        //   `[flow.westwood] hz` to 1000 for a 1000 Hz build).
        // - No TCP pacing of its own (4.13 added it) and no receive-window
        //   growth model: `pacing_start` and `receiver.grow_window` stay
        //   at their defaults.
        // - 4.3-5.10's tcp_cwnd_validate() (`cwnd_validation =
        //   "linux-4.3"`), the RTO re-armed on SACKs of data sent before
        //   the head's last transmission (`rto_rearm_on_sack`, 3.13 on)
        //   and tcp_schedule_loss_probe()'s CA_Open test (`probe_gate =
        //   "linux"`), taken with the OR3 rerun of issue 32's ninth step
        //   (CHANGELOG.md lists the verdicts that moved).
        // - 3.10-4.x's re-arm of a pending probe (`[flow.tlp] rearm =
        //   "linux-3"`) and no tcp_mark_lost_retrans() (removed in 4.4:
        //   `lost_retransmission_detection = false`), since issue 32's
        //   eleventh step; `rearm = "rfc8985"` and
        //   `lost_retransmission_detection = true` restore the profile
        //   before it.
        "linux-4.10" => {
            linux_common(f);
            linux_modules(f);
            f.vegas_ssthresh = VegasSsthresh::CwndMinusOne;
            f.cc = CcSpec::Named("cubic-linux".into());
            f.hystart = HyStartMode::Linux410;
            f.recovery = "prr-linux-4.10".into();
            f.detection = "linux-4.4".into();
            f.timers = "tlp".into();
            f.tlp_loss_inference = true;
            f.init_cwnd = 10;
            f.rto_formula = RtoFormula::LinuxKernel;
            f.timer_hz = 250;
            f.westwood_hz = 250;
            f.rtt_sample = RttSampling::Linux;
            f.cwnd_growth = CwndGrowth::Linux;
            // tcp_bbr.c before 5.10: an equal RTT sample refreshes min_rtt.
            f.bbr_min_rtt_refresh = MinRttRefresh::LowerOrEqual;
            f.cwnd_validation = CwndValidation::Linux43;
            f.rto_rearm_on_sack = true;
            f.probe_gate = Some(ProbeGate::Linux);
            // 4.10's tcp_ack() calls tcp_rearm_rto() before
            // tcp_clean_rtx_queue() as 3.17's does, and
            // tcp_schedule_loss_probe() has the same cwnd-room refusal.
            f.tlp_rearm = ProbeRearm::Linux3;
            // Left on before the eleventh step because switching it off
            // turned the OR3 runs' counts of segments sent 3 and 4 times
            // heavy-tailed; with the engine's liveness fixes and the
            // profile's later rules they are not (docs/ROADMAP.md).
            f.lost_retransmission_detection = false;
        }
        // Linux 3.17 (the tail-loss paper's hosts; docs/LINUX-VERSIONS.md):
        // early retransmit as tcp_time_to_recover() "Trick#6" over FACK
        // (tcp_early_retrans = 3: ER with the max(SRTT/4, 2 ms) delay, and
        // TLP), TLP with its loss detection. Before issue 32's second step
        // it ran RFC 9438's `cubic` with the `linux` HyStart blend, RFC
        // 6937's `prr-6937`, the TSecr sample and cwnd growth on cumulative
        // ACKs only; the keys in docs/SCENARIO.md restore that.
        // - tcp_cubic.c of 3.10-3.17 (`cubic-linux-3`: ACK counting, the
        //   delayed-ACK ratio, 3.x HyStart);
        // - slow start while cwnd <= ssthresh by segments acked up to
        //   ssthresh + 1 (3.14-4.2's tcp_slow_start(tp, acked)), for
        //   every controller (`slow_start = "linux-3.14"`; before issue
        //   32's sixth step only `cubic-linux-3` did, the others ran
        //   `"per-segment"`);
        // - PRR as 3.x's tcp_cwnd_reduction() (`prr-linux-3`: prior_cwnd,
        //   SSRB on every ACK);
        // - RTT samples of 3.15-3.17 (`linux-3.15`) and
        //   tcp_may_raise_cwnd()'s reordering rule (`cwnd_growth =
        //   "linux"`; 3.17 asks it before tcp_fastretrans_alert(), so it
        //   differs on the ACKs that enter or leave recovery);
        // - Westwood's jiffies at the profile's 1000 Hz.
        // - 3.16-4.2's tcp_cwnd_validate() and tcp_is_cwnd_limited()
        //   (`cwnd_validation = "linux-3.16"`), the RTO re-armed on SACKs
        //   (`rto_rearm_on_sack`) and tcp_schedule_loss_probe()'s CA_Open
        //   test (`probe_gate = "linux"`), since issue 32's eighth step;
        //   `cwnd_validation = "linux"`, `rto_rearm_on_sack = false` and
        //   `probe_gate = "recovery"` restore the profile before it.
        // - 3.10-4.x's re-arm of a pending probe (`[flow.tlp] rearm =
        //   "linux-3"`: tcp_rearm_rto() from the head's last transmission
        //   on every ACK that is not old, tcp_schedule_loss_probe()'s
        //   cwnd-room refusal), since issue 32's tenth step (the tail-loss
        //   `--full` rerun moved no verdict); `rearm = "rfc8985"` restores
        //   the profile before it.
        "linux-3.17" => {
            linux_3x(f);
            early_retransmit_and_tlp(f);
            f.slow_start = SlowStart::Linux314;
            f.rtt_sample = RttSampling::Linux315;
            f.cwnd_growth = CwndGrowth::Linux;
            f.cwnd_validation = CwndValidation::Linux316;
            f.rto_rearm_on_sack = true;
            f.probe_gate = Some(ProbeGate::Linux);
            f.tlp_rearm = ProbeRearm::Linux3;
        }
        // Linux 3.10 (the mobile paper's hosts): as 3.17 in detection and
        // timers (tcp_early_retrans = 3). Before issue 32's third step it
        // ran RFC 9438's `cubic` with the `linux` HyStart blend, RFC 6937's
        // `prr-6937`, the TSecr sample and slow start by segments acked;
        // the keys in docs/SCENARIO.md restore that.
        // - tcp_cubic.c of 3.10 (`cubic-linux-3`, HyStart `linux-3`);
        // - tcp_slow_start(tp): one segment per ACK (tcp_abc went in 3.9,
        //   counting by bytes only came back in 3.14), for every
        //   controller (`slow_start = "per-ack"`);
        // - PRR as 3.10's tcp_cwnd_reduction() (`prr-linux-3`: prior_cwnd,
        //   SSRB on every ACK);
        // - RTT samples of 3.2-3.14 (`linux-3.2`: TSecr for the estimator
        //   without Karn's test, in jiffies); cwnd growth only on
        //   cumulative ACKs (3.10's tcp_may_raise_cwnd() has no reordering
        //   rule: `rfc5681`);
        // - Westwood's jiffies at the profile's 1000 Hz;
        // - cwnd growth only while the flight fills cwnd by 3.10's
        //   tcp_is_cwnd_limited() with GSO on (`cwnd_validation =
        //   "linux-3.10"`; the mobile reproduction sets its no-GSO form).
        // - since issue 32's twelfth step (with the mobile `--full` rerun;
        //   read at 3.10.105), 3.10's loss probe: tcp_schedule_loss_probe()'s
        //   CA_Open test (`probe_gate = "linux"`), tcp_rearm_rto() from a
        //   pending probe counting from the head's send time, the probe
        //   re-armed on every ACK that is not old and refused while cwnd
        //   has room for queued data (`[flow.tlp] rearm = "linux-3"`), and
        //   its timeout from `tp->srtt >> 3` in jiffies (`[flow.tlp] pto =
        //   "linux-3.10"`). `probe_gate = "recovery"`, `rearm = "rfc8985"`
        //   and `pto = "paper"` restore the profile before it.
        "linux-3.10" => {
            linux_3x(f);
            early_retransmit_and_tlp(f);
            f.slow_start = SlowStart::PerAck;
            f.rtt_sample = RttSampling::Linux32;
            f.cwnd_validation = CwndValidation::Linux310;
            f.probe_gate = Some(ProbeGate::Linux);
            f.tlp_rearm = ProbeRearm::Linux3;
            f.tlp_pto = TlpPto::Linux310;
        }
        // Linux 3.2 (the PRR paper's experiments): PRR had just replaced
        // rate-halving (tcp_update_cwnd_in_recovery(): prior_cwnd, SSRB on
        // every ACK, `prr-linux-3`); FACK on (tcp_fack = 1); no early
        // retransmit (3.5) and no TLP (3.10). Before issue 32's second step
        // it ran `cubic` with the `linux` HyStart blend, `prr-6937`, the
        // TSecr sample and slow start by segments acked; the keys in
        // docs/SCENARIO.md restore that.
        // - tcp_cubic.c of 3.x (`cubic-linux-3`, which follows 3.10-3.17:
        //   3.2's undo, its 20-segment cap on loss_cwnd and its uptime-
        //   dependent HyStart discard are not modelled);
        // - tcp_slow_start(tp): one segment per ACK (tcp_abc = 0), for
        //   every controller (`slow_start = "per-ack"`);
        // - RTT samples of 3.2-3.14 (`linux-3.2`: TSecr for the estimator
        //   without Karn's test, in jiffies); cwnd growth only on
        //   cumulative ACKs (`rfc5681`, 3.2's tcp_may_raise_cwnd()), when
        //   the flight fills cwnd by 3.2's test (`cwnd_validation =
        //   "linux-3.10"`, the same code).
        "linux-3.2" => {
            linux_3x(f);
            f.detection = "fack".into();
            f.timers = "rto".into();
            f.init_cwnd = 10;
            f.slow_start = SlowStart::PerAck;
            f.rtt_sample = RttSampling::Linux32;
            // tcp_is_cwnd_limited(sk, in_flight) of 2.6-3.15 (tcp_cong.c),
            // GSO on as on the paper's servers.
            f.cwnd_validation = CwndValidation::Linux310;
        }
        // Linux 2.6.17 (the LE paper): rate-halving (tcp_cwnd_down(sk) on
        // every Recovery ACK, `rate-halving-linux-2.6.17`; `rate-halving`,
        // the later kernels' rule, before issue 32's third step) with
        // FACK, the RTO timer alone, IW by RFC 3390. Its default
        // congestion control was BIC, which is not implemented: `reno`
        // (Linux's cwnd halving) stands in.
        "linux-2.6.17" => {
            linux_common(f);
            f.cc = CcSpec::Named("reno".into());
            f.hystart = HyStartMode::Off;
            f.recovery = "rate-halving-linux-2.6.17".into();
            f.detection = "fack".into();
            f.timers = "rto".into();
            f.init_cwnd = rfc3390_iw(f.mss);
            // F-RTO came with 2.6.17 but off by default (tcp_frto = 0).
            f.frto = FrtoMode::Off;
            // tcp_slow_start() with tcp_abc = 0: one segment per ACK (read
            // at 2.6.18; the same through 3.13).
            f.slow_start = SlowStart::PerAck;
            // tcp_reno_cong_avoid() of 2.6.18 with tcp_abc = 0 (its
            // default there; 2.6.17's is not read): one segment per cwnd
            // + 1 ACKs, as 3.x's tcp_cong_avoid_ai(tp, w).
            f.avoidance = Avoidance::PerAck;
        }
        // The standards alone: RFC 5681 congestion control with RFC 6582's
        // FlightSize halving (`newreno`), RFC 6675 loss recovery and
        // IsLost(), RFC 6298 with its 1 s minimum RTO (2.4), RFC 3390's
        // initial window, RFC 5681 4.1 restart after idle; nothing from
        // Experimental RFCs (DSACK undo per RFC 3708) or from Linux (lost-
        // retransmission detection).
        "rfc" => {
            f.cc = CcSpec::NewReno;
            f.hystart = HyStartMode::Off;
            f.recovery = "rfc6675".into();
            f.detection = "dupthresh".into();
            f.timers = "rto".into();
            f.rto_formula = RtoFormula::Rfc6298;
            f.min_rto = SEC;
            f.handshake_rules = HandshakeRules::Rfc;
            f.frto = FrtoMode::Off;
            f.rto_ssthresh = RtoSsthresh::Rfc5681;
            f.recovery_exit = RecoveryExit::Rfc6582;
            f.receiver.linux_delack = false;
            f.receiver.delack_timeout = 200 * MS;
            f.init_cwnd = rfc3390_iw(f.mss);
            f.slow_start_after_idle = true;
            f.dsack_undo = false;
            f.lost_retransmission_detection = false;
            f.rto_rearm_on_head_retransmit = false;
        }
        _ => return false,
    }
    f.profile = Some(name.to_string());
    true
}

/// After the flow's explicit keys: profiles whose initial window follows
/// RFC 3390 take it from the flow's final MSS, unless `init_cwnd` was
/// given.
pub fn finish(f: &mut FlowSpec, init_cwnd_given: bool) {
    let rfc3390 = matches!(f.profile.as_deref(), Some("rfc" | "linux-2.6.17"));
    if rfc3390 && !init_cwnd_given {
        f.init_cwnd = rfc3390_iw(f.mss);
    }
}

/// RFC 3390 section 1: IW = min(4 MSS, max(2 MSS, 4380 bytes)), in whole
/// segments.
pub fn rfc3390_iw(mss: u32) -> u64 {
    let mss = u64::from(mss.max(1));
    (4 * mss).min((2 * mss).max(4380)) / mss
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3390_initial_window() {
        // 1448-byte segments: min(5792, max(2896, 4380)) = 4380 B, 3 segments.
        assert_eq!(rfc3390_iw(1448), 3);
        // 536: min(2144, 4380) = 2144 B, 4 segments; 2190+: 2 segments.
        assert_eq!(rfc3390_iw(536), 4);
        assert_eq!(rfc3390_iw(2190), 2);
        assert_eq!(rfc3390_iw(9000), 2);
    }

    #[test]
    fn every_name_applies_and_records_itself() {
        for n in NAMES {
            let mut f = FlowSpec::new("a");
            assert!(apply(n, &mut f), "{n}");
            assert_eq!(f.profile.as_deref(), Some(*n));
            crate::sim::build_algorithms(&f, 0).unwrap_or_else(|e| panic!("{n}: {e}"));
        }
        assert!(!apply("linux-7", &mut FlowSpec::new("a")));
    }
}
