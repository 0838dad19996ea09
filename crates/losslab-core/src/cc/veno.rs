//! TCP Veno as Linux runs it (net/ipv4/tcp_veno.c; Fu and Liew, "TCP
//! Veno: TCP enhancement for transmission over wireless access networks",
//! IEEE JSAC 21(2), 2003).
//!
//! Veno estimates the sender's own backlog in the bottleneck queue the way
//! Vegas does, N = cwnd (RTT - BaseRTT) / RTT segments, and uses it twice:
//! - Loss response: with fewer than beta = 3 segments queued the loss is
//!   taken for a random one (the queue cannot have overflowed) and cwnd is
//!   cut by a fifth; otherwise it is halved, as Reno does.
//! - Growth: with beta or more queued the path is near capacity and cwnd
//!   grows one segment every other RTT instead of every RTT.
//!
//! Linux computes N in half-segments (`V_PARAM_SHIFT` = 1, beta = 3 << 1),
//! with RTTs in microseconds plus one; we keep both, so the integer
//! truncations are Linux's. The RTT in N is the smallest sample since the
//! last `cong_avoid` (Linux resets `minrtt` on every call, not once per
//! RTT), and `cntrtt` is never reset: after the first three samples of the
//! connection Veno always decides (Linux leaves its reset commented out).
//!
//! Hook mapping: `on_ack` is pkts_acked(); `on_state` is set_state()
//! (enable on Open, disable otherwise); `on_tx_start` is
//! cwnd_event(CA_EVENT_TX_START), which re-initialises Veno. Linux calls
//! set_state() after pkts_acked() on the ACK that ends a recovery, so that
//! ACK's sample is wiped by veno_enable(); `on_state(Open)` comes before
//! `on_ack` here, so the enable is held until `on_ack` has taken the
//! sample, keeping Linux's order. The engine has no cwnd clamp
//! (`snd_cwnd_clamp`), so that bound is left out.

use super::{grow_in_slow_start, in_slow_start, CaState, CcCtx, CongestionControl, Reno};
use crate::time::{Time, US};
use crate::window::Window;

/// `V_PARAM_SHIFT`: N is kept in units of half a segment.
const SHIFT: u32 = 1;
/// beta = 3 segments, in half-segments.
pub const BETA: u64 = 3 << SHIFT;
/// Linux's "no sample yet" RTT (0x7fffffff microseconds).
const NO_RTT: u64 = 0x7fff_ffff;

#[derive(Clone, Debug)]
pub struct Veno {
    doing_veno_now: bool,
    /// RTT samples of the connection (never reset, as in Linux).
    cntrtt: u64,
    /// Smallest sample since the last `cong_avoid`, and of all time,
    /// microseconds plus one.
    minrtt: u64,
    basertt: u64,
    /// In the congestive state: whether the next cwnd_cnt wrap grows cwnd.
    inc: bool,
    /// The last backlog estimate, half-segments.
    diff: u64,
    /// set_state(Open) arrived; applied after this ACK's sample.
    enable_pending: bool,
}

impl Default for Veno {
    fn default() -> Self {
        Self::new()
    }
}

impl Veno {
    /// Linux tcp_veno_init().
    pub fn new() -> Self {
        Veno {
            doing_veno_now: true,
            cntrtt: 0,
            minrtt: NO_RTT,
            basertt: NO_RTT,
            inc: true,
            diff: 0,
            enable_pending: false,
        }
    }

    /// The backlog estimate of the last `cong_avoid`, in segments.
    pub fn backlog(&self) -> f64 {
        self.diff as f64 / (1 << SHIFT) as f64
    }

    /// Linux veno_enable().
    fn enable(&mut self) {
        self.doing_veno_now = true;
        self.minrtt = NO_RTT;
    }

    /// Linux tcp_veno_init(): the connection's `cntrtt` survives.
    fn init(&mut self) {
        self.basertt = NO_RTT;
        self.inc = true;
        self.enable();
        self.enable_pending = false;
    }
}

/// Linux's RTT for Vegas-style arithmetic: microseconds plus one (never
/// zero).
pub(crate) fn vrtt_us(rtt: Time) -> u64 {
    rtt / US + 1
}

impl CongestionControl for Veno {
    fn name(&self) -> String {
        "veno".into()
    }

    /// Linux 3.2-3.14 tcp_veno: `.flags = TCP_CONG_RTT_STAMP`.
    fn rtt_stamp(&self, _tick: Time) -> bool {
        true
    }

    /// Linux tcp_veno_ssthresh(): a fifth off when the backlog was below
    /// beta (a random loss), half otherwise.
    fn ssthresh(&mut self, w: &Window, _flight_size: u64) -> u64 {
        if self.diff < BETA {
            (w.cwnd * 4 / 5).max(2)
        } else {
            (w.cwnd >> 1).max(2)
        }
    }

    /// Linux tcp_veno_cong_avoid() (the engine calls it only while
    /// cwnd-limited, the check Linux makes first).
    fn cong_avoid(&mut self, w: &mut Window, acked: u64, ctx: &CcCtx) {
        if !self.doing_veno_now {
            Reno.cong_avoid(w, acked, ctx);
            return;
        }
        if self.cntrtt <= 2 {
            // Too few samples to judge the network: Reno.
            Reno.cong_avoid(w, acked, ctx);
        } else {
            let rtt = self.minrtt;
            let target = (w.cwnd as u128 * self.basertt as u128) << SHIFT;
            let target = (target / rtt as u128) as u64;
            self.diff = (w.cwnd << SHIFT).saturating_sub(target);
            let mut acked = acked;
            let mut grow = true;
            if in_slow_start(w, ctx) {
                acked = grow_in_slow_start(w, acked, ctx);
                grow = acked > 0;
            }
            if grow {
                if self.diff < BETA {
                    // Non-congestive: Reno's one segment per RTT.
                    super::avoid(w, w.cwnd, acked, ctx);
                } else if w.cwnd_cnt >= w.cwnd {
                    // Congestive: every other cwnd's worth of ACKs.
                    if self.inc {
                        w.cwnd += 1;
                        self.inc = false;
                    } else {
                        self.inc = true;
                    }
                    w.cwnd_cnt = 0;
                } else {
                    // Linux 3.x counts ACKs here (snd_cwnd_cnt++).
                    w.cwnd_cnt += match ctx.avoidance {
                        super::Avoidance::PerSegment => acked,
                        super::Avoidance::PerAck => 1,
                    };
                }
            }
            w.cwnd = w.cwnd.max(2);
        }
        self.minrtt = NO_RTT;
    }

    /// Linux tcp_veno_pkts_acked().
    fn on_ack(&mut self, _w: &mut Window, ctx: &CcCtx) {
        if let Some(r) = ctx.rtt_sample {
            let vrtt = vrtt_us(r);
            self.basertt = self.basertt.min(vrtt);
            self.minrtt = self.minrtt.min(vrtt);
            self.cntrtt += 1;
        }
        if std::mem::take(&mut self.enable_pending) {
            self.enable();
        }
    }

    /// Linux tcp_veno_state().
    fn on_state(&mut self, state: CaState, _w: &Window) {
        if state == CaState::Open {
            self.enable_pending = true;
        } else {
            self.enable_pending = false;
            self.doing_veno_now = false;
        }
    }

    /// Linux tcp_veno_cwnd_event(CA_EVENT_TX_START): fresh samples after
    /// idle. (CA_EVENT_CWND_RESTART, the restart after idle, comes with
    /// it in the engine's terms: the first transmission after idle.)
    fn on_tx_start(&mut self, _now: Time, _last_send: Time) {
        self.init();
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::window;
    use super::super::Avoidance;
    use super::*;
    use crate::time::MS;

    fn sample(rtt_ms: u64) -> CcCtx {
        CcCtx {
            rtt_sample: Some(rtt_ms * MS),
            ..Default::default()
        }
    }

    /// Veno with base RTT 100 ms and enough samples to decide.
    fn primed() -> Veno {
        let mut v = Veno::new();
        for _ in 0..3 {
            v.on_ack(&mut Window::new(10), &sample(100));
        }
        // As after a cong_avoid: the per-call minimum starts afresh.
        v.minrtt = NO_RTT;
        v
    }

    #[test]
    fn backlog_decides_the_loss_response() {
        // cwnd 40, base 100 ms (100 001 us). RTT 104 ms (104 001 us):
        // target = 40 x 100 001 x 2 / 104 001 = 8 000 080 / 104 001 = 76
        // (76.92), diff = 80 - 76 = 4 half-segments = 2 segments < 3:
        // random loss, ssthresh = 40 x 4 / 5 = 32.
        let mut v = primed();
        let mut w = window(40, 30);
        v.on_ack(&mut Window::new(10), &sample(104));
        v.cong_avoid(&mut w, 1, &CcCtx::default());
        assert_eq!(v.diff, 4);
        assert_eq!(v.ssthresh(&w, 40), 32);
        // RTT 110 ms (110 001 us): target = 8 000 080 / 110 001 = 72
        // (72.73), diff = 8 = 4 segments >= 3: congestion, cwnd / 2.
        let mut w = window(40, 30);
        v.on_ack(&mut Window::new(10), &sample(110));
        v.cong_avoid(&mut w, 1, &CcCtx::default());
        assert_eq!(v.diff, 8);
        assert_eq!(v.backlog(), 4.0);
        assert_eq!(v.ssthresh(&w, 40), 20);
        // Floors.
        assert_eq!(v.ssthresh(&window(3, 2), 3), 2);
        v.diff = 0;
        assert_eq!(v.ssthresh(&window(2, 2), 2), 2);
    }

    #[test]
    fn congestive_state_grows_every_other_rtt() {
        // cwnd 10 in congestion avoidance, RTT 200 ms over a 100 ms base:
        // target = 10 x 100 001 x 2 / 200 001 = 10 (10.00005), diff = 20
        // - 10 = 10 half-segments, 5 segments >= 3: congestive (and so at
        // cwnd 11 and 12: diff 11 and 12). One ACK per segment. (At 120 ms
        // the backlog would be 20 - 16 = 4 half-segments, 2 segments:
        // non-congestive.)
        let mut v = primed();
        let mut w = window(10, 5);
        let mut cwnds = vec![];
        for _ in 0..44 {
            v.on_ack(&mut Window::new(10), &sample(200));
            v.cong_avoid(&mut w, 1, &CcCtx::default());
            cwnds.push(w.cwnd);
        }
        // cwnd_cnt counts 10 ACKs, the 11th wraps it: grows (inc was 1).
        assert_eq!(cwnds[9], 10);
        assert_eq!(cwnds[10], 11);
        // The next wrap (after 11 more counted ACKs, the 23rd) only
        // re-arms `inc`; the third (after 11 more, the 35th) grows again.
        assert_eq!(cwnds[22], 11);
        assert_eq!(cwnds[33], 11);
        assert_eq!(cwnds[34], 12);
        assert_eq!(cwnds[43], 12);
    }

    /// The congestive state of the test above with delayed ACKs of two
    /// segments: per segment the count passes 10 on the 5th ACK and the
    /// 6th wraps it (grows, inc was 1); per ACK (Linux 3.x's
    /// `snd_cwnd_cnt++`) as with one segment per ACK, the 11th.
    #[test]
    fn congestive_state_counts_acks_in_linux_3() {
        let grows_at = |avoidance: Avoidance| {
            let ctx = CcCtx {
                avoidance,
                ..CcCtx::default()
            };
            let mut v = primed();
            let mut w = window(10, 5);
            (1..=20)
                .find(|_| {
                    v.on_ack(&mut Window::new(10), &sample(200));
                    v.cong_avoid(&mut w, 2, &ctx);
                    w.cwnd == 11
                })
                .expect("grows")
        };
        assert_eq!(grows_at(Avoidance::PerSegment), 6);
        assert_eq!(grows_at(Avoidance::PerAck), 11);
    }

    #[test]
    fn non_congestive_state_grows_like_reno() {
        // RTT = base: diff 0: Reno's one segment per cwnd of ACKs.
        let mut v = primed();
        let mut a = window(10, 5);
        let mut b = window(10, 5);
        for _ in 0..40 {
            v.on_ack(&mut Window::new(10), &sample(100));
            v.cong_avoid(&mut a, 1, &CcCtx::default());
            Reno.cong_avoid(&mut b, 1, &CcCtx::default());
            assert_eq!(a, b);
        }
        assert_eq!(a.cwnd, 13);
    }

    #[test]
    fn reno_until_three_samples_and_after_leaving_open() {
        // Two samples only: Reno, and diff stays 0 (ssthresh 4/5).
        let mut v = Veno::new();
        let (mut a, mut b) = (window(10, 5), window(10, 5));
        for _ in 0..2 {
            v.on_ack(&mut Window::new(10), &sample(300));
            v.cong_avoid(&mut a, 1, &CcCtx::default());
            Reno.cong_avoid(&mut b, 1, &CcCtx::default());
        }
        assert_eq!((a, v.diff), (b, 0));
        // Out of Open Veno stands aside until it is back.
        let mut v = primed();
        v.on_state(CaState::Recovery, &a);
        assert!(!v.doing_veno_now);
        v.on_state(CaState::Open, &a);
        assert!(!v.doing_veno_now);
        // Enabled after the ACK's sample, which the enable wipes (as
        // Linux's set_state after pkts_acked does).
        v.on_ack(&mut Window::new(10), &sample(100));
        assert!(v.doing_veno_now);
        assert_eq!(v.minrtt, NO_RTT);
        assert_eq!(v.cntrtt, 4);
    }

    #[test]
    fn tx_start_forgets_the_base_rtt() {
        let mut v = primed();
        v.on_tx_start(0, 0);
        assert_eq!(v.basertt, NO_RTT);
        v.on_ack(&mut Window::new(10), &sample(150));
        assert_eq!(v.basertt, 150_001);
        // cntrtt is never reset: Veno decides at once.
        assert_eq!(v.cntrtt, 4);
    }
}
