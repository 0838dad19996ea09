//! Seeded random streams: one independent PCG stream per random element
//! of the path, so adding a flow or a loss model elsewhere never shifts
//! the draws of an element that did not change.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

#[derive(Clone, Debug)]
pub struct Stream(Pcg64Mcg);

impl Stream {
    /// A stream for `element` (a stable name) under `seed`.
    pub fn new(seed: u64, element: &str) -> Self {
        // FNV-1a of the element name mixed with the seed (SplitMix64
        // finaliser) gives well-separated 128-bit states.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in element.bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        let a = splitmix(seed ^ h);
        let b = splitmix(a ^ 0x9e37_79b9_7f4a_7c15);
        let state = ((a as u128) << 64) | b as u128;
        Stream(Pcg64Mcg::from_seed(state.to_le_bytes()))
    }

    /// True with probability p.
    #[inline]
    pub fn chance(&mut self, p: f64) -> bool {
        if p <= 0.0 {
            return false;
        }
        if p >= 1.0 {
            return true;
        }
        self.0.gen::<f64>() < p
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        self.0.gen::<f64>()
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.0.gen_range(0..n.max(1))
    }
}

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let mut a = Stream::new(1, "fwd.loss");
        let mut b = Stream::new(1, "fwd.loss");
        let mut c = Stream::new(1, "rev.loss");
        let xa: Vec<u64> = (0..8).map(|_| a.below(1 << 40)).collect();
        let xb: Vec<u64> = (0..8).map(|_| b.below(1 << 40)).collect();
        let xc: Vec<u64> = (0..8).map(|_| c.below(1 << 40)).collect();
        assert_eq!(xa, xb);
        assert_ne!(xa, xc);
    }

    #[test]
    fn chance_matches_probability() {
        let mut s = Stream::new(7, "x");
        let n = 200_000;
        let hits = (0..n).filter(|_| s.chance(0.01)).count() as f64;
        // Binomial sd = sqrt(n p (1-p)) ~ 44.5; allow 5 sd.
        assert!((hits - 2000.0).abs() < 5.0 * 44.5, "{hits}");
    }
}
