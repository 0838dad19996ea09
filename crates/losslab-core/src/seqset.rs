//! A set of disjoint half-open u64 ranges, kept merged.
//!
//! Both ends of the connection need one: the receiver for out-of-order
//! bytes (to build SACK blocks), the sender for SACKed segment numbers (so
//! that a SACK block repeated on every ACK costs O(log n) and only the
//! newly covered part is walked). A linear scan here would make SACK
//! processing quadratic in the window, which is exactly what slows ns-3
//! down on large windows.

use std::collections::BTreeMap;
use std::ops::Bound::{Excluded, Included, Unbounded};

use crate::wire::Range;

#[derive(Clone, Debug, Default)]
pub struct SeqSet {
    /// start -> end, disjoint and non-adjacent.
    map: BTreeMap<u64, u64>,
    total: u64,
}

impl SeqSet {
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of values covered.
    pub fn total(&self) -> u64 {
        self.total
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Number of disjoint ranges.
    pub fn runs(&self) -> usize {
        self.map.len()
    }

    /// Inserts `[start, end)`, calling `newly(s, e)` for every sub-range not
    /// covered before, in increasing order. Returns the merged range that now
    /// contains the inserted one.
    pub fn insert_with(&mut self, start: u64, end: u64, mut newly: impl FnMut(u64, u64)) -> Range {
        if start >= end {
            return Range::new(start, start);
        }
        let mut new_start = start;
        let mut new_end = end;
        // A range starting before `start` that reaches it (or is adjacent).
        if let Some((&s, &e)) = self.map.range(..=start).next_back() {
            if e >= start {
                if e >= end {
                    return Range::new(s, e);
                }
                new_start = s;
            }
        }
        // Walk the ranges that overlap or touch [start, end], emitting gaps.
        let mut cursor = start;
        let mut to_remove: [u64; 8] = [0; 8];
        loop {
            let mut n = 0;
            for (&s, &e) in self.map.range((Included(new_start), Included(end))) {
                if n == to_remove.len() {
                    break;
                }
                to_remove[n] = s;
                n += 1;
                let _ = e;
            }
            if n == 0 {
                break;
            }
            for &s in &to_remove[..n] {
                let e = self.map.remove(&s).expect("present");
                if s > cursor {
                    newly(cursor, s.min(end));
                }
                cursor = cursor.max(e);
                new_end = new_end.max(e);
                self.total -= e - s;
            }
            // The range that started before `start` was removed above if
            // it touched; its start is kept in new_start.
        }
        if cursor < end {
            newly(cursor, end);
        }
        self.map.insert(new_start, new_end);
        self.total += new_end - new_start;
        Range::new(new_start, new_end)
    }

    pub fn insert(&mut self, start: u64, end: u64) -> Range {
        self.insert_with(start, end, |_, _| {})
    }

    /// The range containing `v`, if any.
    pub fn containing(&self, v: u64) -> Option<Range> {
        let (&s, &e) = self.map.range(..=v).next_back()?;
        (v < e).then(|| Range::new(s, e))
    }

    pub fn contains(&self, v: u64) -> bool {
        self.containing(v).is_some()
    }

    /// True when every value of `[start, end)` is in the set.
    pub fn covers(&self, start: u64, end: u64) -> bool {
        start >= end || self.containing(start).is_some_and(|r| r.end >= end)
    }

    /// True when any value of `[start, end)` is in the set.
    pub fn intersects(&self, start: u64, end: u64) -> bool {
        if start >= end {
            return false;
        }
        if self.contains(start) {
            return true;
        }
        self.map
            .range((Excluded(start), Excluded(end)))
            .next()
            .is_some()
    }

    /// Removes every value below `v` (the cumulative ACK moved past them).
    pub fn remove_below(&mut self, v: u64) {
        while let Some((&s, &e)) = self.map.iter().next() {
            if s >= v {
                break;
            }
            self.map.remove(&s);
            if e > v {
                self.map.insert(v, e);
                self.total -= v - s;
                break;
            }
            self.total -= e - s;
        }
    }

    pub fn first(&self) -> Option<Range> {
        self.map.iter().next().map(|(&s, &e)| Range::new(s, e))
    }

    pub fn last(&self) -> Option<Range> {
        self.map.iter().next_back().map(|(&s, &e)| Range::new(s, e))
    }

    /// Ranges in increasing order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = Range> + '_ {
        self.map.iter().map(|(&s, &e)| Range::new(s, e))
    }

    /// Ranges that start below `v`, highest first.
    pub fn iter_rev_below(&self, v: u64) -> impl Iterator<Item = Range> + '_ {
        self.map
            .range((Unbounded, Excluded(v)))
            .rev()
            .map(|(&s, &e)| Range::new(s, e))
    }

    /// The first range that ends after `v` (it may contain `v`).
    pub fn next_at_or_after(&self, v: u64) -> Option<Range> {
        if let Some(r) = self.containing(v) {
            return Some(r);
        }
        self.map
            .range((Excluded(v), Unbounded))
            .next()
            .map(|(&s, &e)| Range::new(s, e))
    }

    pub fn clear(&mut self) {
        self.map.clear();
        self.total = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn merges_and_reports_new_parts() {
        let mut s = SeqSet::new();
        s.insert(10, 20);
        s.insert(30, 40);
        let mut newly = vec![];
        let r = s.insert_with(15, 35, |a, b| newly.push((a, b)));
        assert_eq!(r, Range::new(10, 40));
        assert_eq!(newly, vec![(20, 30)]);
        assert_eq!(s.total(), 30);
        assert_eq!(s.runs(), 1);
        // Adjacent ranges merge.
        s.insert(40, 45);
        assert_eq!(s.runs(), 1);
        assert_eq!(s.last(), Some(Range::new(10, 45)));
        // Fully covered insert reports nothing.
        let mut any = false;
        s.insert_with(12, 44, |_, _| any = true);
        assert!(!any);
        s.remove_below(20);
        assert_eq!(s.first(), Some(Range::new(20, 45)));
        assert_eq!(s.total(), 25);
    }

    proptest! {
        #[test]
        fn matches_a_bitmap(ops in proptest::collection::vec((0u64..200, 1u64..30), 1..60), cut in 0u64..230) {
            let mut s = SeqSet::new();
            let mut bits = [false; 256];
            for (a, l) in ops {
                let b = a + l;
                let mut newly = 0;
                s.insert_with(a, b, |x, y| { newly += y - x; for i in x..y { assert!(!bits[i as usize]); } });
                let before = bits[a as usize..b as usize].iter().filter(|x| !**x).count() as u64;
                prop_assert_eq!(newly, before);
                for i in a..b { bits[i as usize] = true; }
            }
            prop_assert_eq!(s.total(), bits.iter().filter(|x| **x).count() as u64);
            for i in 0..256u64 { prop_assert_eq!(s.contains(i), bits[i as usize]); }
            s.remove_below(cut);
            for i in 0..256u64 { prop_assert_eq!(s.contains(i), bits[i as usize] && i >= cut); }
            let runs: Vec<_> = s.iter().collect();
            for w in runs.windows(2) { prop_assert!(w[0].end < w[1].start); }
        }
    }
}
