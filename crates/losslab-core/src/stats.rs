//! Small, allocation-light statistics the endpoints keep for results.

use crate::time::Time;

/// A log-linear histogram of nanosecond values with about 1% resolution
/// (128 sub-buckets per power of two), so that RTT quantiles cost 32 KiB
/// per flow instead of one entry per ACK.
#[derive(Clone, Debug, Default)]
pub struct Histogram {
    counts: Vec<u32>,
    n: u64,
    sum: u128,
    min: Time,
    max: Time,
}

const SUB: u32 = 7;

fn index(v: u64) -> usize {
    if v < (1 << SUB) {
        return v as usize;
    }
    let e = 63 - v.leading_zeros();
    let m = (v >> (e - SUB)) & ((1 << SUB) - 1);
    (((e - SUB + 1) << SUB) as u64 + m) as usize
}

fn lower_bound(i: usize) -> u64 {
    let i = i as u64;
    if i < (1 << SUB) {
        return i;
    }
    let e = (i >> SUB) + SUB as u64 - 1;
    let m = i & ((1 << SUB) - 1);
    (1u64 << e) | (m << (e - SUB as u64))
}

impl Histogram {
    pub fn record(&mut self, v: Time) {
        if self.counts.is_empty() {
            self.counts = vec![0; index(u64::MAX) + 1];
            self.min = v;
            self.max = v;
        }
        self.counts[index(v)] += 1;
        self.n += 1;
        self.sum += v as u128;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }
    pub fn count(&self) -> u64 {
        self.n
    }
    pub fn min(&self) -> Option<Time> {
        (self.n > 0).then_some(self.min)
    }
    pub fn max(&self) -> Option<Time> {
        (self.n > 0).then_some(self.max)
    }
    pub fn mean(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum as f64 / self.n as f64)
    }
    /// The q-quantile (0..=1), accurate to the bucket width (~0.8%).
    pub fn quantile(&self, q: f64) -> Option<Time> {
        if self.n == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.n as f64).ceil() as u64).max(1);
        let mut seen = 0u64;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c as u64;
            if seen >= rank {
                return Some(lower_bound(i).clamp(self.min, self.max));
            }
        }
        Some(self.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_monotone_and_tight() {
        let mut last = 0;
        for v in (0..1_000_000u64)
            .step_by(997)
            .chain([u64::MAX / 3, u64::MAX])
        {
            let i = index(v);
            assert!(i >= last);
            last = i;
            let lb = lower_bound(i);
            assert!(lb <= v, "{v} {lb}");
            assert!(v - lb <= v / 64 + 1, "{v} {lb}");
        }
    }

    #[test]
    fn quantiles() {
        let mut h = Histogram::default();
        for v in 1..=1000u64 {
            h.record(v * 1_000_000);
        }
        let p99 = h.quantile(0.99).unwrap() as f64;
        assert!((p99 - 990e6).abs() / 990e6 < 0.01, "{p99}");
        assert_eq!(h.min(), Some(1_000_000));
        assert_eq!(
            h.quantile(1.0),
            Some(h.max().unwrap()).map(|m| m.min(h.quantile(1.0).unwrap()))
        );
        assert!((h.mean().unwrap() - 500.5e6).abs() < 1.0);
    }
}
