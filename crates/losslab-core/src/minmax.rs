//! A windowed running minimum (or maximum) in constant space: Kathleen
//! Nichols' algorithm as Linux uses it (lib/minmax.c, minmax_running_min()
//! and minmax_running_max(); the windowed min RTT of tcp_min_rtt_wlen and
//! BBR's bandwidth filter).
//!
//! Three samples are kept: the best in the window and the best of its
//! later parts, so when the best one ages out of the window a good
//! replacement is at hand without keeping every sample. The estimate is
//! exact when samples arrive often; between sparse samples it can hold a
//! value up to a window older than the newest sample, as Linux's does.

use crate::time::Time;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Sample {
    t: Time,
    v: u64,
}

/// A windowed minimum (`MAX` false: `better` = less) or maximum (`MAX`
/// true: `better` = greater). The direction is a type parameter, not a
/// field: `update` compares up to three times a call and runs on every
/// ACK for BBR's bandwidth and RACK's min_RTT; with a field tested at
/// each comparison it was 91 M of the 3.44 G instructions of `bench
/// --modern`'s 100 ms case (10 s), with the type parameter about 52 M
/// (issue 33, docs/BENCHMARKS.md).
#[derive(Clone, Debug)]
pub struct WindowedFilter<const MAX: bool> {
    s: [Sample; 3],
    window: Time,
    empty: bool,
}

/// The minimum over a window of time (Linux minmax_running_min()).
pub type MinFilter = WindowedFilter<false>;
/// The maximum over a window (Linux minmax_running_max()).
pub type MaxFilter = WindowedFilter<true>;

impl MinFilter {
    /// The minimum over the last `window` of time.
    pub fn min(window: Time) -> Self {
        Self::new(window)
    }
}

impl MaxFilter {
    /// The maximum over the last `window` of time.
    pub fn max(window: Time) -> Self {
        Self::new(window)
    }
}

impl<const MAX: bool> WindowedFilter<MAX> {
    fn new(window: Time) -> Self {
        WindowedFilter {
            s: [Sample { t: 0, v: 0 }; 3],
            window,
            empty: true,
        }
    }

    /// The current estimate (None before the first sample).
    pub fn get(&self) -> Option<u64> {
        (!self.empty).then_some(self.s[0].v)
    }

    #[inline(always)]
    fn better_or_equal(a: u64, b: u64) -> bool {
        if MAX {
            a >= b
        } else {
            a <= b
        }
    }

    fn reset(&mut self, val: Sample) -> u64 {
        self.s = [val; 3];
        self.empty = false;
        val.v
    }

    /// Feeds a measurement taken at `now`; returns the new estimate.
    pub fn update(&mut self, now: Time, v: u64) -> u64 {
        let val = Sample { t: now, v };
        // A new best, or every kept sample has left the window: start over.
        if self.empty
            || Self::better_or_equal(v, self.s[0].v)
            || now.saturating_sub(self.s[2].t) > self.window
        {
            return self.reset(val);
        }
        if Self::better_or_equal(v, self.s[1].v) {
            self.s[1] = val;
            self.s[2] = val;
        } else if Self::better_or_equal(v, self.s[2].v) {
            self.s[2] = val;
        }
        self.age(val)
    }

    /// minmax_subwin_update(): let the best sample age out of the window,
    /// and pick fresh second and third choices from the window's later
    /// quarters when the kept ones are stale.
    fn age(&mut self, val: Sample) -> u64 {
        let dt = val.t.saturating_sub(self.s[0].t);
        if dt > self.window {
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = val;
            if val.t.saturating_sub(self.s[0].t) > self.window {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
                self.s[2] = val;
            }
        } else if self.s[1].t == self.s[0].t && dt > self.window / 4 {
            self.s[1] = val;
            self.s[2] = val;
        } else if self.s[2].t == self.s[1].t && dt > self.window / 2 {
            self.s[2] = val;
        }
        self.s[0].v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_minimum_within_the_window_and_forgets_it_after() {
        // Window 10: samples 5 @0, 8 @3, 9 @6 (second and third choices),
        // then 12 @11: the 5 from time 0 is out of the window (11 > 10)
        // and the second choice, 8 @3, takes its place.
        let mut f = MinFilter::min(10);
        assert_eq!(f.get(), None);
        assert_eq!(f.update(0, 5), 5);
        assert_eq!(f.update(3, 8), 5);
        assert_eq!(f.update(6, 9), 5);
        assert_eq!(f.update(11, 12), 8);
        // A new minimum replaces everything at once.
        assert_eq!(f.update(12, 4), 4);
        // Nothing in the window any more (12 + 10 < 30): start over.
        assert_eq!(f.update(30, 20), 20);
    }

    #[test]
    fn running_max_mirrors_it() {
        let mut f = MaxFilter::max(10);
        assert_eq!(f.update(0, 50), 50);
        assert_eq!(f.update(4, 30), 50);
        assert_eq!(f.update(11, 10), 30);
        assert_eq!(f.update(12, 60), 60);
    }
}
