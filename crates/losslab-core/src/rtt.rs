//! RFC 6298 retransmission timer estimator, with Linux's way of combining
//! SRTT and RTTVAR as a named alternative (`RtoFormula::Linux`).

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

    fn scaled(&self, rto: Time) -> Time {
        if self.factor_permille == 1000 {
            return rto;
        }
        (rto as u128 * self.factor_permille as u128 / 1000).min(self.cfg.max_rto as u128) as Time
    }

    /// Feeds one RTT measurement R (RFC 6298 sections 2.2 and 2.3, with
    /// alpha = 1/8 and beta = 1/4, in integer nanoseconds so that runs are
    /// reproducible across platforms).
    pub fn on_sample(&mut self, r: Time) {
        let r = r.max(1);
        if !self.has_sample {
            // (2.2) SRTT <- R, RTTVAR <- R/2.
            self.srtt = r;
            self.rttvar = r / 2;
            self.has_sample = true;
        } else {
            // (2.3) RTTVAR first, using the old SRTT.
            let err = self.srtt.abs_diff(r);
            self.rttvar = (3 * self.rttvar + err) / 4;
            self.srtt = (7 * self.srtt + r) / 8;
        }
        self.base_rto = match self.cfg.formula {
            // RTO <- SRTT + max(G, K*RTTVAR), then (2.4)/(2.5) bounds.
            RtoFormula::Rfc6298 => (self.srtt + self.cfg.granularity.max(4 * self.rttvar))
                .clamp(self.cfg.min_rto, self.cfg.max_rto),
            // Linux keeps rttvar_us >= tcp_rto_min and returns
            // srtt + rttvar_us (__tcp_set_rto). Linux also lets its
            // variance fall only once per RTT (mdev_max_us); that damping
            // is not modelled: the estimator is RFC 6298's.
            RtoFormula::Linux => {
                (self.srtt + self.cfg.min_rto.max(4 * self.rttvar)).min(self.cfg.max_rto)
            }
        };
        self.base_rto = self.scaled(self.base_rto);
        // A fresh sample taken under Karn's rule ends any backoff (5.7).
        self.backoff = 0;
        self.min_rtt = self.min_rtt.min(r);
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
    pub fn min_rtt(&self) -> Option<Time> {
        self.has_sample.then_some(self.min_rtt)
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
}
