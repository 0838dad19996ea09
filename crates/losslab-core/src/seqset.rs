//! A set of disjoint half-open u64 ranges, kept merged.
//!
//! Both ends of the connection need one: the receiver for out-of-order
//! bytes (to build SACK blocks), the sender for SACKed segment numbers (so
//! that a SACK block repeated on every ACK costs O(log n) and only the
//! newly covered part is walked). A linear scan here would make SACK
//! processing quadratic in the window, which is exactly what slows ns-3
//! down on large windows.

use std::fmt;

use crate::wire::Range;

/// Runs live in a sorted array rather than a balanced tree. With up to a
/// few thousand runs (one per hole in a 50,000-segment window at 3% loss) a
/// binary search over contiguous memory costs a fraction of a `BTreeMap`
/// descent, and the lookups that dominate (an ACK's newest SACK block, a
/// segment arriving just above the others) land on the last run, which is
/// checked first. The array is a gap buffer (`Runs`) because of where runs
/// come and go: new ones at the top (new holes), old ones at the bottom
/// (the cumulative ACK), and merges where retransmissions fill holes, which
/// happens hole after hole upwards from the lowest while the lowest waits
/// for its own lost retransmission. In a plain array each such merge moved
/// every run above or below it (a quarter of the runs on average, a tenth
/// of a 3%-loss run's time); the gap follows the merges instead.
#[derive(Clone, Debug, Default)]
pub struct SeqSet {
    /// Disjoint and non-adjacent, in increasing order.
    runs: Runs,
    total: u64,
    /// Runs removed from the front so far. `containing_near`'s positions
    /// count from the first run ever held, so a position stays right when
    /// the cumulative ACK passes runs below it.
    popped: u64,
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
        self.runs.is_empty()
    }

    /// Number of disjoint ranges.
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    /// Index of the first run that ends after `v`: the run containing `v`
    /// if there is one, else the first run above it (`runs()` if none).
    fn first_ending_after(&self, v: u64) -> usize {
        match self.runs.back() {
            // The top run is where most queries land.
            Some(last) if v >= last.start => self.runs.len() - usize::from(v < last.end),
            _ => self.runs.partition_point(|r| r.end <= v),
        }
    }

    /// Inserts `[start, end)`, calling `newly(s, e)` for every sub-range not
    /// covered before, in increasing order. Returns the merged range that now
    /// contains the inserted one.
    pub fn insert_with(&mut self, start: u64, end: u64, mut newly: impl FnMut(u64, u64)) -> Range {
        if start >= end {
            return Range::new(start, start);
        }
        // Fast path: `[start, end)` begins in or just at the end of the top
        // run and reaches past it (in-flight data arriving above the
        // highest hole, whose run the receiver reports as the first SACK
        // block, RFC 2018 section 4; or that block growing at the sender,
        // RFC 6675 section 4's Update() of the scoreboard). `insert_merging`
        // would merge exactly that run with it and report only
        // `[last.end, end)` as new; this does the same without the search
        // and the loop.
        if let Some(last) = self.runs.back_mut() {
            if last.start <= start && start <= last.end && last.end < end {
                let was = last.end;
                last.end = end;
                let merged = *last;
                self.total += end - was;
                newly(was, end);
                return merged;
            }
        }
        self.insert_merging(start, end, newly)
    }

    /// `insert_with` without its fast path: finds every run that overlaps
    /// or touches `[start, end)` and merges them (`start < end`).
    #[inline]
    fn insert_merging(&mut self, start: u64, end: u64, mut newly: impl FnMut(u64, u64)) -> Range {
        // Runs i..j overlap or touch [start, end]: they merge with it.
        let len = self.runs.len();
        let (i, j) = match self.runs.back() {
            // At or above the top run's start (the usual case: the newest
            // data, or a SACK block that grew): nothing below the top run
            // can reach `start`, since runs are non-adjacent.
            Some(last) if start >= last.start => (len - usize::from(last.end >= start), len),
            _ => (
                self.runs.partition_point(|r| r.end < start),
                self.runs.partition_point(|r| r.start <= end),
            ),
        };
        if let Some(&r) = self.runs.get(i).filter(|_| i < j) {
            if r.start <= start && r.end >= end {
                return r;
            }
        }
        let mut cursor = start;
        let mut new_start = start;
        let mut new_end = end;
        for k in i..j {
            let r = self.runs.at(k);
            if r.start > cursor {
                newly(cursor, r.start.min(end));
            }
            cursor = cursor.max(r.end);
            new_start = new_start.min(r.start);
            new_end = new_end.max(r.end);
            self.total -= r.end - r.start;
        }
        if cursor < end {
            newly(cursor, end);
        }
        let merged = Range::new(new_start, new_end);
        if i == j {
            self.runs.insert(i, merged);
        } else {
            *self.runs.get_mut(i).expect("run i merges") = merged;
            if j > i + 1 {
                self.runs.remove(i + 1, j);
            }
        }
        self.total += new_end - new_start;
        merged
    }

    pub fn insert(&mut self, start: u64, end: u64) -> Range {
        self.insert_with(start, end, |_, _| {})
    }

    /// The range containing `v`, if any.
    pub fn containing(&self, v: u64) -> Option<Range> {
        self.runs
            .get(self.first_ending_after(v))
            .filter(|r| r.start <= v)
            .copied()
    }

    /// `containing(v)` for a caller that asks about the same runs again
    /// and again (the receiver revalidating its recent SACK blocks on every
    /// ACK): `*pos` is where the previous answer was, and the answer is
    /// looked for there and beside it (runs created or merged below it
    /// move it by one) before any search. Updates `*pos` to the answer's
    /// position; any value is a valid `*pos`, only slower.
    // Inline so the fast path costs the caller a few instructions rather
    // than a call; the search stays out of line.
    #[inline]
    pub fn containing_near(&self, v: u64, pos: &mut u64) -> Option<Range> {
        let len = self.runs.len();
        let g = usize::try_from(pos.saturating_sub(self.popped))
            .unwrap_or(len)
            .min(len);
        // Fast path: the run at `g` (the top run when `*pos` is past the
        // end) holds `v`. Runs are disjoint and sorted, so that run is the
        // only one holding `v` and is `first_ending_after(v)`: the answer
        // and position `containing_near_search` would find, for one lookup
        // instead of several. Between two ACKs most of the receiver's
        // recently reported SACK blocks (RFC 2018 section 4), which it
        // revalidates here, are still the very run they were.
        if let Some(k) = g.checked_sub(usize::from(g == len)) {
            let r = self.runs.at(k);
            if r.start <= v && v < r.end {
                *pos = self.popped + k as u64;
                return Some(r);
            }
        }
        self.containing_near_search(v, g, pos)
    }

    /// `containing_near` without its fast path, from `g = *pos - popped`
    /// clamped to `runs()`.
    #[inline(never)]
    fn containing_near_search(&self, v: u64, g: usize, pos: &mut u64) -> Option<Range> {
        let len = self.runs.len();
        // `i` is first_ending_after(v) exactly when the run at `i` (if
        // any) ends above `v` and the one before it does not.
        let right = |i: usize| {
            i <= len
                && self.runs.get(i).is_none_or(|r| r.end > v)
                && (i == 0 || self.runs.at(i - 1).end <= v)
        };
        let i = [g, g + 1, g.wrapping_sub(1)]
            .into_iter()
            .find(|&i| right(i))
            .unwrap_or_else(|| self.first_ending_after(v));
        *pos = self.popped + i as u64;
        self.runs.get(i).filter(|r| r.start <= v).copied()
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
        start < end && self.next_at_or_after(start).is_some_and(|r| r.start < end)
    }

    /// Removes every value below `v` (the cumulative ACK moved past them).
    pub fn remove_below(&mut self, v: u64) {
        while let Some(r) = self.runs.front_mut() {
            if r.start >= v {
                break;
            }
            if r.end > v {
                self.total -= v - r.start;
                r.start = v;
                break;
            }
            self.total -= r.end - r.start;
            self.runs.pop_front();
            self.popped += 1;
        }
    }

    pub fn first(&self) -> Option<Range> {
        self.runs.front().copied()
    }

    pub fn last(&self) -> Option<Range> {
        self.runs.back().copied()
    }

    /// Ranges in increasing order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = Range> + '_ {
        let (a, b) = self.runs.slices();
        a.iter().chain(b).copied()
    }

    /// Ranges that start below `v`, highest first.
    pub fn iter_rev_below(&self, v: u64) -> impl Iterator<Item = Range> + '_ {
        let k = self.runs.partition_point(|r| r.start < v);
        let (a, b) = self.runs.slices();
        let ka = k.min(a.len());
        b[..k - ka]
            .iter()
            .rev()
            .chain(a[..ka].iter().rev())
            .copied()
    }

    /// The first range that ends after `v` (it may contain `v`).
    pub fn next_at_or_after(&self, v: u64) -> Option<Range> {
        self.runs.get(self.first_ending_after(v)).copied()
    }

    pub fn clear(&mut self) {
        self.popped += self.runs.len() as u64;
        self.runs.clear();
        self.total = 0;
    }
}

/// An ordered sequence of runs in a gap buffer: `buf[head..gap]`, then
/// `buf[gap_end..]`. Inserting or removing at logical position `p` first
/// moves the gap there, which costs the distance from where it was, so a
/// series of changes working upwards through the runs costs O(1) each.
/// Appending at the top and removing at the bottom never move the gap.
/// Every slot of `buf` holds some `Range`; those outside the two parts are
/// spare.
#[derive(Clone, Default)]
struct Runs {
    buf: Vec<Range>,
    head: usize,
    gap: usize,
    gap_end: usize,
}

impl fmt::Debug for Runs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (a, b) = self.slices();
        f.debug_list().entries(a.iter().chain(b)).finish()
    }
}

impl Runs {
    fn slices(&self) -> (&[Range], &[Range]) {
        (&self.buf[self.head..self.gap], &self.buf[self.gap_end..])
    }

    fn len(&self) -> usize {
        (self.gap - self.head) + (self.buf.len() - self.gap_end)
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Slot of logical position `i` (< len).
    fn slot(&self, i: usize) -> usize {
        let n1 = self.gap - self.head;
        if i < n1 {
            self.head + i
        } else {
            self.gap_end + (i - n1)
        }
    }

    fn get(&self, i: usize) -> Option<&Range> {
        (i < self.len()).then(|| &self.buf[self.slot(i)])
    }

    fn get_mut(&mut self, i: usize) -> Option<&mut Range> {
        let slot = (i < self.len()).then(|| self.slot(i))?;
        Some(&mut self.buf[slot])
    }

    fn at(&self, i: usize) -> Range {
        *self.get(i).expect("position in range")
    }

    fn front(&self) -> Option<&Range> {
        self.get(0)
    }

    fn front_mut(&mut self) -> Option<&mut Range> {
        self.get_mut(0)
    }

    fn back(&self) -> Option<&Range> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }

    fn back_mut(&mut self) -> Option<&mut Range> {
        self.len().checked_sub(1).and_then(|i| self.get_mut(i))
    }

    /// As `slice::partition_point` over the runs in order.
    fn partition_point(&self, mut pred: impl FnMut(&Range) -> bool) -> usize {
        let (a, b) = self.slices();
        match b.first() {
            Some(x) if pred(x) => a.len() + b.partition_point(pred),
            _ => a.partition_point(pred),
        }
    }

    /// Moves the gap to logical position `p`.
    fn move_gap(&mut self, p: usize) {
        let n1 = self.gap - self.head;
        if p < n1 {
            let d = n1 - p;
            self.buf
                .copy_within(self.head + p..self.gap, self.gap_end - d);
            self.gap -= d;
            self.gap_end -= d;
        } else if p > n1 {
            let d = p - n1;
            self.buf
                .copy_within(self.gap_end..self.gap_end + d, self.gap);
            self.gap += d;
            self.gap_end += d;
        }
    }

    fn push_back(&mut self, r: Range) {
        self.buf.push(r);
    }

    fn insert(&mut self, p: usize, r: Range) {
        let len = self.len();
        if p == len {
            self.push_back(r);
            return;
        }
        if self.gap == self.gap_end {
            // Room for a number of inserts proportional to the runs held,
            // so that opening it (moving the second part) is amortised.
            let room = (len / 8).max(8);
            self.buf.splice(
                self.gap..self.gap,
                std::iter::repeat_n(Range::default(), room),
            );
            self.gap_end += room;
        }
        self.move_gap(p);
        self.buf[self.gap] = r;
        self.gap += 1;
    }

    /// Whether removing from logical position `p` is cheaper done by
    /// moving the `p` runs below it up than by moving the gap there: `p`
    /// lies in the first part, closer to its start than to the gap. In a
    /// large window with many holes the merges come from two places at
    /// once: the first retransmissions filling holes on their way up, and
    /// behind them, nearer the cumulative ACK, the retransmissions of those
    /// lost again. The gap now stays with the first instead of running back
    /// and forth between the two (issue 33). Inserts still move the gap:
    /// moving the runs below for them too cost more than it saved.
    fn nearer_front(&self, p: usize) -> bool {
        let n1 = self.gap - self.head;
        p <= n1 && p < n1 - p
    }

    /// Removes logical positions `p..q`.
    fn remove(&mut self, p: usize, q: usize) {
        debug_assert!(p <= q && q <= self.len());
        let n1 = self.gap - self.head;
        if p >= n1 && q == self.len() {
            self.buf.truncate(self.slot(p));
        } else if q <= n1 && self.nearer_front(p) {
            // The runs below `p` step up over the removed ones, which
            // become spare slots below `head`.
            let d = q - p;
            self.buf
                .copy_within(self.head..self.head + p, self.head + d);
            self.head += d;
        } else {
            self.move_gap(p);
            self.gap_end += q - p;
        }
        self.compact();
    }

    fn pop_front(&mut self) {
        if self.head < self.gap {
            self.head += 1;
        } else if self.gap_end < self.buf.len() {
            self.gap_end += 1;
        }
        self.compact();
    }

    /// Merges widen the gap and removals at the bottom leave spare slots
    /// below `head`: give them back once they outnumber the runs (each
    /// slot given back was made spare by one operation, so this is
    /// amortised O(1)).
    fn compact(&mut self) {
        let len = self.len();
        if len == 0 {
            self.clear();
        } else if self.buf.len() - len > len + 64 {
            self.buf.drain(self.gap..self.gap_end);
            self.buf.drain(..self.head);
            self.gap -= self.head;
            self.gap_end = self.gap;
            self.head = 0;
        }
    }

    fn clear(&mut self) {
        self.buf.clear();
        self.head = 0;
        self.gap = 0;
        self.gap_end = 0;
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

        /// `insert_with`'s fast path (extending the top run) against the
        /// general merge: same merged run, same newly covered parts, same
        /// runs after, over inserts that mostly grow the top run as
        /// arriving data and growing SACK blocks do, with holes, fills
        /// and cuts between.
        #[test]
        fn top_run_fast_path_matches_the_general_merge(
            ops in proptest::collection::vec((0u8..8, 0u64..40, 1u64..40), 1..400),
        ) {
            let (mut fast, mut plain) = (SeqSet::new(), SeqSet::new());
            for (op, a, l) in ops {
                let top = fast.last().map_or(0, |r| r.end);
                let (start, end) = match op {
                    // From inside the top run or at its end, past it.
                    0..=3 => (top.saturating_sub(a % 8), top + l),
                    // A new run above a hole.
                    4 => (top + 1 + a, top + 1 + a + l),
                    // Anywhere below or across the top.
                    5 | 6 => (top.saturating_sub(a * 3), top.saturating_sub(a * 3) + l),
                    _ => {
                        let cut = top.saturating_sub(a * 2);
                        fast.remove_below(cut);
                        plain.remove_below(cut);
                        continue;
                    }
                };
                let (mut pf, mut pp) = (vec![], vec![]);
                let mf = fast.insert_with(start, end, |x, y| pf.push((x, y)));
                let mp = plain.insert_merging(start, end, |x, y| pp.push((x, y)));
                prop_assert_eq!(mf, mp);
                prop_assert_eq!(pf, pp);
                prop_assert_eq!(fast.total(), plain.total());
                prop_assert_eq!(fast.iter().collect::<Vec<_>>(), plain.iter().collect::<Vec<_>>());
            }
        }

        /// The gap buffer against a `Vec` doing the same inserts, removals
        /// and pops, long enough to open room, move the gap both ways and
        /// compact.
        #[test]
        fn runs_buffer_matches_a_vec(ops in proptest::collection::vec((0u8..10, 0usize..1000, 1usize..4), 1..1500)) {
            let mut r = Runs::default();
            let mut v: Vec<Range> = vec![];
            for (i, (op, at, n)) in ops.into_iter().enumerate() {
                let x = Range::new(i as u64, i as u64 + 1);
                match op {
                    0..=6 => {
                        let p = at % (v.len() + 1);
                        r.insert(p, x);
                        v.insert(p, x);
                    }
                    7 => {
                        r.push_back(x);
                        v.push(x);
                    }
                    8 if !v.is_empty() => {
                        r.pop_front();
                        v.remove(0);
                    }
                    _ if !v.is_empty() => {
                        let p = at % v.len();
                        let q = (p + n).min(v.len());
                        r.remove(p, q);
                        v.drain(p..q);
                    }
                    _ => {}
                }
                prop_assert_eq!(r.len(), v.len());
                let (a, b) = r.slices();
                prop_assert_eq!(a.iter().chain(b).copied().collect::<Vec<_>>(), v.clone());
                prop_assert!(r.buf.len() <= 2 * v.len() + 64 + v.len() / 8 + 8);
            }
        }

        /// The gap buffer against a `Vec` when changes come from two places
        /// at once, a few runs above the bottom and anywhere above (removals
        /// near the bottom move the runs below them, the others the gap),
        /// with pops from the bottom and appends at the top.
        #[test]
        fn runs_buffer_changed_near_the_bottom_matches_a_vec(
            ops in proptest::collection::vec((0u8..12, 0usize..1000, 1usize..4), 1..1500),
        ) {
            let mut r = Runs::default();
            let mut v: Vec<Range> = vec![];
            for (i, (op, at, n)) in ops.into_iter().enumerate() {
                let x = Range::new(i as u64, i as u64 + 1);
                // Near the bottom for even ops, anywhere for odd ones.
                let near = |len: usize| if op % 2 == 0 { at % 4 % (len + 1) } else { at % (len + 1) };
                match op {
                    0..=5 => {
                        let p = near(v.len());
                        r.insert(p, x);
                        v.insert(p, x);
                    }
                    6 | 7 => {
                        r.push_back(x);
                        v.push(x);
                    }
                    8 | 9 if !v.is_empty() => {
                        r.pop_front();
                        v.remove(0);
                    }
                    _ if !v.is_empty() => {
                        let p = near(v.len() - 1);
                        let q = (p + n).min(v.len());
                        r.remove(p, q);
                        v.drain(p..q);
                    }
                    _ => {}
                }
                prop_assert_eq!(r.len(), v.len());
                prop_assert!(r.head <= r.gap && r.gap <= r.gap_end && r.gap_end <= r.buf.len());
                let (a, b) = r.slices();
                prop_assert_eq!(a.iter().chain(b).copied().collect::<Vec<_>>(), v.clone());
                prop_assert!(r.buf.len() <= 2 * v.len() + 64 + v.len() / 8 + 8);
            }
        }

        /// Many holes made and filled in a wide range, with the bottom cut
        /// now and then, like a large window: runs against a bitmap.
        #[test]
        fn many_runs_match_a_bitmap(ops in proptest::collection::vec((0u64..4000, 1u64..6, 0u8..20), 1..1500)) {
            let mut s = SeqSet::new();
            let mut bits = vec![false; 4100];
            let mut cut = 0;
            for (k, (a, l, op)) in ops.into_iter().enumerate() {
                if op == 0 {
                    cut = (cut + a / 20).min(4100);
                    s.remove_below(cut);
                    for b in &mut bits[..cut as usize] { *b = false; }
                } else {
                    let mut newly = 0;
                    s.insert_with(a, a + l, |x, y| newly += y - x);
                    let before = bits[a as usize..(a + l) as usize].iter().filter(|b| !**b).count() as u64;
                    prop_assert_eq!(newly, before);
                    for i in a..a + l { bits[i as usize] = true; }
                }
                if k % 50 == 0 {
                    let mut model = vec![];
                    let mut i = 0;
                    while i < bits.len() {
                        if bits[i] {
                            let st = i;
                            while i < bits.len() && bits[i] { i += 1; }
                            model.push(Range::new(st as u64, i as u64));
                        } else {
                            i += 1;
                        }
                    }
                    prop_assert_eq!(s.iter().collect::<Vec<_>>(), model);
                    prop_assert_eq!(s.total(), bits.iter().filter(|b| **b).count() as u64);
                }
            }
        }

        /// Every query against the runs a bitmap spells, after inserts in
        /// any order (front, middle, top, merging several runs) and a cut.
        #[test]
        fn queries_match_a_bitmap(ops in proptest::collection::vec((0u64..200, 1u64..30), 1..60), cut in 0u64..230) {
            let mut s = SeqSet::new();
            let mut bits = [false; 256];
            for (a, l) in ops {
                let b = a + l;
                let mut parts = vec![];
                let merged = s.insert_with(a, b, |x, y| parts.push((x, y)));
                for w in parts.windows(2) { prop_assert!(w[0].1 < w[1].0); }
                for i in a..b { bits[i as usize] = true; }
                let (mut lo, mut hi) = (a, b);
                while lo > 0 && bits[lo as usize - 1] { lo -= 1; }
                while bits[hi as usize] { hi += 1; }
                prop_assert_eq!(merged, Range::new(lo, hi));
            }
            for i in 0..cut.min(256) { bits[i as usize] = false; }
            s.remove_below(cut);
            let mut model = vec![];
            let mut i = 0;
            while i < 256 {
                if bits[i] {
                    let st = i;
                    while i < 256 && bits[i] { i += 1; }
                    model.push(Range::new(st as u64, i as u64));
                } else {
                    i += 1;
                }
            }
            prop_assert_eq!(s.iter().collect::<Vec<_>>(), model.clone());
            prop_assert_eq!(s.runs(), model.len());
            prop_assert_eq!(s.first(), model.first().copied());
            prop_assert_eq!(s.last(), model.last().copied());
            for v in 0..260u64 {
                let c = model.iter().find(|r| r.start <= v && v < r.end).copied();
                prop_assert_eq!(s.containing(v), c);
                // Every position near the runs too (`popped` counts from
                // the first run ever held), so the fast path's hits and
                // its neighbours' misses are all tried.
                let near = (0..=model.len() as u64 + 1).map(|k| s.popped + k);
                for start in [0, v / 3, v / 7, 1000, u64::MAX].into_iter().chain(near) {
                    let mut pos = start;
                    prop_assert_eq!(s.containing_near(v, &mut pos), c);
                    // The position is where the plain search lands.
                    prop_assert_eq!(pos, s.popped + s.first_ending_after(v) as u64);
                    // The position found is right the second time.
                    let again = pos;
                    prop_assert_eq!(s.containing_near(v, &mut pos), c);
                    prop_assert_eq!(pos, again);
                }
                prop_assert_eq!(s.next_at_or_after(v), model.iter().find(|r| r.end > v).copied());
                let below: Vec<_> = model.iter().rev().filter(|r| r.start < v).copied().collect();
                prop_assert_eq!(s.iter_rev_below(v).collect::<Vec<_>>(), below);
                for l in [0u64, 1, 3, 17] {
                    let any = (v..v + l).any(|x| x < 256 && bits[x as usize]);
                    let all = (v..v + l).all(|x| x < 256 && bits[x as usize]);
                    prop_assert_eq!(s.intersects(v, v + l), any);
                    prop_assert_eq!(s.covers(v, v + l), all);
                }
            }
        }
    }
}
