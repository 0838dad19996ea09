//! RFC 6298 retransmission timer estimator, with Linux's way of combining
//! SRTT and RTTVAR as a named alternative (`RtoFormula::Linux`) and Linux's
//! whole estimator as another (`RtoFormula::LinuxKernel`).

use crate::config::{RtoConfig, RtoFormula};
use crate::time::Time;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    cfg: RtoConfig,
    srtt: Time,
    rttvar: Time,
    /// RTO before backoff (RFC 6298 section 2).
    base_rto: Time,
    /// Number of consecutive backoffs (RFC 6298 5.5).
    backoff: u32,
    min_rtt: Time,
    latest: Time,
    has_sample: bool,
    /// The congestion controller's RTO factor in thousandths (TCP-RR's
    /// shortened timeout; 1000 for everyone else).
    factor_permille: u64,
    /// `RtoFormula::LinuxKernel`'s state, in the kernel's units.
    kernel: KernelRtt,
}

/// struct tcp_sock's estimator fields (3.15 onwards): srtt_us holds 8
/// SRTT, mdev_us 4 times the mean deviation, rttvar_us the variance term
/// of the RTO, mdev_max_us the largest mdev_us of the current RTT, and
/// rtt_seq the snd_nxt that ends that RTT. All in microseconds.
#[derive(Clone, Copy, Debug, Default)]
struct KernelRtt {
    srtt_us: u64,
    mdev_us: u64,
    mdev_max_us: u64,
    rttvar_us: u64,
    rtt_seq: u64,
}

impl KernelRtt {
    /// tcp_rtt_estimator(sk, mrtt_us), line for line; `after(snd_una,
    /// rtt_seq)` on 64-bit sequence numbers that do not wrap.
    fn sample(&mut self, mrtt_us: u64, rto_min_us: u64, snd_una: u64, snd_nxt: u64) {
        let mut m = mrtt_us as i64;
        let mut srtt = self.srtt_us as i64;
        if srtt != 0 {
            m -= srtt >> 3; // m is now the error in the RTT estimate
            srtt += m; // rtt = 7/8 rtt + 1/8 new
            let mdev = self.mdev_us as i64;
            if m < 0 {
                m = -m;
                m -= mdev >> 2;
                // "This is similar to one of Eifel findings": a falling
                // RTT moves mdev with gain 1/32, so the RTO neither grows
                // on it nor drops too fast.
                if m > 0 {
                    m >>= 3;
                }
            } else {
                m -= mdev >> 2;
            }
            self.mdev_us = (mdev + m) as u64; // mdev = 3/4 mdev + 1/4 new
            if self.mdev_us > self.mdev_max_us {
                self.mdev_max_us = self.mdev_us;
                if self.mdev_max_us > self.rttvar_us {
                    self.rttvar_us = self.mdev_max_us;
                }
            }
            if snd_una > self.rtt_seq {
                if self.mdev_max_us < self.rttvar_us {
                    self.rttvar_us -= (self.rttvar_us - self.mdev_max_us) >> 2;
                }
                self.rtt_seq = snd_nxt;
                self.mdev_max_us = rto_min_us;
            }
        } else {
            // No previous measure: "make sure rto = 3*rtt".
            srtt = m << 3;
            self.mdev_us = (m << 1) as u64;
            self.rttvar_us = self.mdev_us.max(rto_min_us);
            self.mdev_max_us = self.rttvar_us;
            self.rtt_seq = snd_nxt;
        }
        self.srtt_us = (srtt as u64).max(1);
    }

    /// __tcp_set_rto() before usecs_to_jiffies(): (srtt_us >> 3) + rttvar_us.
    fn rto_us(&self) -> u64 {
        (self.srtt_us >> 3) + self.rttvar_us
    }
}

impl RttEstimator {
    pub fn new(cfg: RtoConfig) -> Self {
        RttEstimator {
            cfg,
            srtt: 0,
            rttvar: 0,
            base_rto: cfg.initial_rto,
            backoff: 0,
            min_rtt: Time::MAX,
            latest: 0,
            has_sample: false,
            factor_permille: 1000,
            kernel: KernelRtt::default(),
        }
    }

    /// Scales every RTO by `factor` (`CongestionControl::rto_factor`),
    /// applied after min_rto and before the backoff (then max_rto bounds
    /// the result), so a factor below one shortens even a timeout held at
    /// min_rto (TCP-RR, LE paper 5.2.2).
    pub fn set_factor(&mut self, factor: f64) {
        self.factor_permille = (factor * 1000.0).round().clamp(1.0, 1e6) as u64;
        self.base_rto = self.scaled(self.base_rto);
    }

    /// A computed RTO in whole ticks (usecs_to_jiffies() rounds up), within
    /// max_rto (tcp_bound_rto()), then scaled.
    fn bounded(&self, rto: Time) -> Time {
        let t = self.cfg.tick;
        let rto = if t > 0 { rto.div_ceil(t) * t } else { rto };
        self.scaled(rto.min(self.cfg.max_rto))
    }

    fn scaled(&self, rto: Time) -> Time {
        if self.factor_permille == 1000 {
            return rto;
        }
        (rto as u128 * self.factor_permille as u128 / 1000).min(self.cfg.max_rto as u128) as Time
    }

    /// Feeds one RTT measurement R (RFC 6298 sections 2.2 and 2.3, with
    /// alpha = 1/8 and beta = 1/4, in integer nanoseconds so that runs are
    /// reproducible across platforms). Linux's whole estimator also needs
    /// snd_una and snd_nxt (`on_sample_at`); without them its variance
    /// term never falls.
    pub fn on_sample(&mut self, r: Time) {
        self.on_sample_at(r, 0, 0);
    }

    /// As `on_sample`, taken when the ACK left `snd_una` and `snd_nxt`
    /// where they are (Linux measures its RTT periods in sequence space).
    pub fn on_sample_at(&mut self, r: Time, snd_una: u64, snd_nxt: u64) {
        self.on_samples_at(r, r, snd_una, snd_nxt);
    }

    /// As `on_sample_at`, with min_rtt fed a sample of its own: Linux
    /// tcp_ack_update_rtt() gives tcp_rtt_estimator() seq_rtt_us and
    /// tcp_update_rtt_min() ca_rtt_us. (tcp_update_rtt_min() skips a
    /// suspected delayed ACK's sample above the minimum; the minimum here
    /// has no window to expire, so such a sample changes nothing anyway.)
    pub fn on_samples_at(&mut self, r: Time, min_sample: Time, snd_una: u64, snd_nxt: u64) {
        let r = r.max(1);
        let rto = if self.cfg.formula == RtoFormula::LinuxKernel {
            // skb_mstamp_us_delta(): whole microseconds, at least 1.
            let k = &mut self.kernel;
            k.sample((r / 1000).max(1), self.cfg.min_rto / 1000, snd_una, snd_nxt);
            self.srtt = (k.srtt_us >> 3) * 1000;
            self.rttvar = (k.mdev_us >> 2) * 1000;
            k.rto_us() * 1000
        } else {
            if !self.has_sample {
                // (2.2) SRTT <- R, RTTVAR <- R/2.
                self.srtt = r;
                self.rttvar = r / 2;
            } else {
                // (2.3) RTTVAR first, using the old SRTT.
                let err = self.srtt.abs_diff(r);
                self.rttvar = (3 * self.rttvar + err) / 4;
                self.srtt = (7 * self.srtt + r) / 8;
            }
            if self.cfg.formula == RtoFormula::Rfc6298 {
                // RTO <- SRTT + max(G, K*RTTVAR), then (2.4)/(2.5) bounds.
                (self.srtt + self.cfg.granularity.max(4 * self.rttvar))
                    .clamp(self.cfg.min_rto, self.cfg.max_rto)
            } else {
                // Linux keeps rttvar_us >= tcp_rto_min and returns
                // srtt + rttvar_us (__tcp_set_rto), here over RFC 6298's
                // estimator (its once-per-RTT damping is `LinuxKernel`'s).
                self.srtt + self.cfg.min_rto.max(4 * self.rttvar)
            }
        };
        self.has_sample = true;
        self.base_rto = self.bounded(rto);
        // A fresh sample taken under Karn's rule ends any backoff (5.7).
        self.backoff = 0;
        self.min_rtt = self.min_rtt.min(min_sample.max(1));
        self.latest = r;
    }

    /// The current RTO including exponential backoff (RFC 6298 5.5).
    pub fn rto(&self) -> Time {
        let shifted = self
            .base_rto
            .checked_shl(self.backoff)
            .unwrap_or(Time::MAX)
            .max(self.base_rto);
        shifted.min(self.cfg.max_rto)
    }

    /// RFC 6298 5.7 (Linux TCP_TIMEOUT_FALLBACK): the handshake ended
    /// without an RTT sample after a retransmitted SYN; data starts with
    /// this RTO instead of the more aggressive initial one.
    pub fn fallback(&mut self, rto: Time) {
        if !self.has_sample {
            self.base_rto = self.scaled(rto.min(self.cfg.max_rto));
            self.backoff = 0;
        }
    }

    /// Ends a backoff (the handshake's retransmissions are over).
    pub fn reset_backoff(&mut self) {
        self.backoff = 0;
    }

    /// RFC 6298 5.5: double the RTO after an expiry.
    pub fn back_off(&mut self) {
        if self.rto() < self.cfg.max_rto {
            self.backoff += 1;
        }
    }

    pub fn backoff_count(&self) -> u32 {
        self.backoff
    }
    pub fn srtt(&self) -> Option<Time> {
        self.has_sample.then_some(self.srtt)
    }
    pub fn rttvar(&self) -> Time {
        self.rttvar
    }
    /// None until a sample reached it: under `rtt_sample = "linux-3.2"`
    /// the estimator may take TSecr from an ACK of retransmitted data
    /// before any sample qualifies for the minimum.
    pub fn min_rtt(&self) -> Option<Time> {
        (self.has_sample && self.min_rtt != Time::MAX).then_some(self.min_rtt)
    }
    pub fn latest(&self) -> Option<Time> {
        self.has_sample.then_some(self.latest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{MS, SEC};

    fn est() -> RttEstimator {
        RttEstimator::new(RtoConfig::default())
    }

    #[test]
    fn initial_rto_is_one_second() {
        assert_eq!(est().rto(), SEC);
        assert_eq!(est().srtt(), None);
    }

    #[test]
    fn first_and_second_samples_follow_rfc6298() {
        let mut e = est();
        e.on_sample(100 * MS);
        // SRTT = 100, RTTVAR = 50, RTO = 100 + 4*50 = 300 ms.
        assert_eq!(e.srtt(), Some(100 * MS));
        assert_eq!(e.rttvar(), 50 * MS);
        assert_eq!(e.rto(), 300 * MS);
        e.on_sample(180 * MS);
        // RTTVAR = 3/4*50 + 1/4*|100-180| = 37.5 + 20 = 57.5 ms
        // SRTT = 7/8*100 + 1/8*180 = 110 ms; RTO = 110 + 230 = 340 ms.
        assert_eq!(e.rttvar(), 57_500_000);
        assert_eq!(e.srtt(), Some(110 * MS));
        assert_eq!(e.rto(), 340 * MS);
    }

    #[test]
    fn min_rto_applies_and_granularity_floor() {
        let mut e = est();
        for _ in 0..50 {
            e.on_sample(10 * MS);
        }
        // Converges to SRTT 10 ms with RTTVAR -> 0: the 200 ms floor rules.
        assert_eq!(e.rto(), 200 * MS);
        let mut e = RttEstimator::new(RtoConfig {
            min_rto: 0,
            ..Default::default()
        });
        for _ in 0..200 {
            e.on_sample(10 * MS);
        }
        // RTTVAR reaches 0 and G (1 ms) is the floor of the variance term.
        assert_eq!(e.rto(), 11 * MS);
    }

    #[test]
    fn linux_formula_floors_the_variance_term_not_the_sum() {
        let linux = RtoConfig {
            formula: RtoFormula::Linux,
            ..Default::default()
        };
        let mut e = RttEstimator::new(linux);
        assert_eq!(e.rto(), SEC);
        e.on_sample(100 * MS);
        // SRTT 100, 4*RTTVAR = 200 = min_rto: 300 ms, as RFC 6298.
        assert_eq!(e.rto(), 300 * MS);
        let mut e = RttEstimator::new(linux);
        e.on_sample(10 * MS);
        // SRTT 10, 4*RTTVAR = 20 < 200: 10 + 200 = 210 ms (RFC 6298: 200).
        assert_eq!(e.rto(), 210 * MS);
        for _ in 0..50 {
            e.on_sample(10 * MS);
        }
        assert_eq!(e.rto(), 210 * MS);
        // A large variance passes the floor: SRTT 100, RTTVAR 50 then a
        // 400 ms sample: RTTVAR = 37.5 + 75 = 112.5, SRTT = 137.5,
        // RTO = 137.5 + 450 = 587.5 ms, the same under both formulas.
        let mut e = RttEstimator::new(linux);
        e.on_sample(100 * MS);
        e.on_sample(400 * MS);
        assert_eq!(e.rto(), 587_500_000);
    }

    #[test]
    fn backoff_doubles_and_caps_and_a_sample_resets_it() {
        let mut e = est();
        e.on_sample(100 * MS);
        e.back_off();
        assert_eq!(e.rto(), 600 * MS);
        e.back_off();
        assert_eq!(e.rto(), 1200 * MS);
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto(), 60 * SEC);
        e.on_sample(100 * MS);
        assert_eq!(e.backoff_count(), 0);
        assert!(e.rto() < SEC);
    }

    fn kernel(tick: Time) -> RttEstimator {
        RttEstimator::new(RtoConfig {
            formula: RtoFormula::LinuxKernel,
            tick,
            ..Default::default()
        })
    }

    /// Worked in tcp_rtt_estimator()'s integers (microseconds): the
    /// tail-loss paper's Figure 1 at RTT 160 ms with delayed ACKs. The
    /// handshake's sample opens the RTT period, ACKs 2, 4, 6 and 8 of the
    /// first flight take 160 ms samples and the delayed ACK of segment 9
    /// a 360 ms one.
    #[test]
    fn linux_kernel_estimator_damps_rttvar_once_per_rtt() {
        let mut e = kernel(0);
        // First sample: srtt_us = 8 * 160000, mdev_us = 320000,
        // rttvar_us = max(320000, 200000): RTO = 160 + 320 = 480 ms.
        e.on_sample_at(160 * MS, 0, 0);
        assert_eq!(e.rto(), 480 * MS);
        // ACK 2 (snd_una 2 > rtt_seq 0): m = 0 - 80000, mdev_us = 240000;
        // the period ends: rttvar_us - mdev_max_us = 0, no decay;
        // rtt_seq = 10, mdev_max_us = 200000.
        e.on_sample_at(160 * MS, 2, 10);
        assert_eq!(e.rto(), 480 * MS);
        assert_eq!(e.rttvar(), 60 * MS);
        // ACKs 4, 6, 8 inside the period: mdev_us 180000, 135000,
        // 101250, all below mdev_max_us; rttvar_us stays 320000. RFC 6298
        // would be at 160 + 4 * 33.75 -> max(.., 200) = 360 ms here.
        for una in [4, 6, 8] {
            e.on_sample_at(160 * MS, una, 10);
        }
        assert_eq!(e.rto(), 480 * MS);
        assert_eq!(e.rttvar(), 25_312 * 1000);
        // The delayed ACK 9 (360 ms): m = 200000, srtt_us = 1480000 (SRTT
        // 185 ms); m - 101250 / 4 = 174688, mdev_us = 275938 > mdev_max_us
        // 200000 but below rttvar_us: RTO = 185 + 320 = 505 ms.
        e.on_sample_at(360 * MS, 9, 10);
        assert_eq!(e.srtt(), Some(185 * MS));
        assert_eq!(e.rto(), 505 * MS);
        // The next period: a 185 ms sample (m = 0), mdev_us = 275938 -
        // 68984 = 206954; the period ends with mdev_max_us = 275938:
        // rttvar_us -= (320000 - 275938) >> 2 = 11015 -> 308985.
        e.on_sample_at(185 * MS, 11, 20);
        assert_eq!(e.rto(), 185 * MS + 308_985 * 1000);
    }

    #[test]
    fn linux_kernel_estimator_falling_rtt_gain_is_one_thirty_second() {
        let mut e = kernel(0);
        e.on_sample_at(100 * MS, 0, 0);
        // A 20 ms sample: m = -80000, srtt_us = 720000 (90 ms);
        // |m| - mdev_us / 4 = 80000 - 50000 = 30000 >> 3 = 3750:
        // mdev_us = 203750 (RFC 6298 would move RTTVAR to 57.5 ms).
        e.on_sample_at(20 * MS, 0, 0);
        assert_eq!(e.srtt(), Some(90 * MS));
        assert_eq!(e.rttvar(), 50_937_000);
        // rttvar_us rose to mdev_max_us = 203750: RTO = 90 + 203.75.
        assert_eq!(e.rto(), 293_750_000);
    }

    #[test]
    fn a_tick_rounds_the_rto_up_to_whole_jiffies() {
        // usecs_to_jiffies() of 160027 + 320054 us at HZ = 1000: 481.
        let mut e = kernel(MS);
        e.on_sample_at(160_027_500, 0, 0);
        assert_eq!(e.rto(), 481 * MS);
        // At HZ = 250 (4 ms ticks): 484 ms.
        let mut e = kernel(4 * MS);
        e.on_sample_at(160_027_500, 0, 0);
        assert_eq!(e.rto(), 484 * MS);
        // The RFC 6298 estimator on a tick: 300 ms stays 300.
        let mut e = RttEstimator::new(RtoConfig {
            tick: 4 * MS,
            ..Default::default()
        });
        e.on_sample(100 * MS);
        assert_eq!(e.rto(), 300 * MS);
    }
}
