//! The sender's record of its recovery episodes, bounded: the first
//! [`KEEP`] in full (the results list them, losslab-sim results.rs), then
//! only the latest, which can still change, with the count and the
//! fast-recovery time of every episode. An endless run thus keeps a fixed
//! amount of memory per flow (docs/RELIABILITY.md, "Memory"), and a run
//! with fewer episodes than [`KEEP`] sees exactly what a plain list gave.

use crate::event::RecoveryKind;
use crate::time::Time;

/// One recovery episode, for results.
#[derive(Clone, Debug, PartialEq)]
pub struct RecoveryRecord {
    pub kind: RecoveryKind,
    pub start: Time,
    pub end: Option<Time>,
    pub cwnd_before: u64,
    pub cwnd_after: Option<u64>,
    /// cwnd just before the exit's own adjustment (a fast recovery's
    /// end_cwnd_reduction(), e.g. PRR's cwnd = ssthresh): the PRR paper's
    /// Table 6. Equal to `cwnd_after` for episodes that end otherwise.
    pub cwnd_before_exit: Option<u64>,
    pub ssthresh: u64,
    pub pipe_minus_ssthresh_at_start: i64,
    /// Segments outstanding (sent, not cumulatively acknowledged) and
    /// segments marked lost when the episode began: with cwnd_before they
    /// tell an application-limited start (flight below cwnd) from a heavy
    /// loss (many marked lost), the two ways pipe starts below ssthresh
    /// (the PRR paper's Table 5).
    pub flight_at_start: u64,
    pub lost_at_start: u64,
    /// DSACKs later showed the episode spurious and its reduction was undone.
    pub undone: bool,
    /// Time in this episode during which the sender could have sent new
    /// data but its send buffer held none (application stall, mobile
    /// paper Definition 1).
    pub app_stall: Time,
    /// The latest RTT sample when the episode began, and the largest RTT
    /// of the segments sent in the RTT after it ended (the mobile paper's
    /// RTT spike, section VII.E).
    pub rtt_before: Option<Time>,
    pub rtt_after_max: Option<Time>,
}

/// Episodes kept in full per flow.
pub const KEEP: usize = 100_000;

#[derive(Clone, Debug, Default)]
pub struct RecoveryLog {
    kept: Vec<RecoveryRecord>,
    /// The latest episode once `kept` is full.
    latest: Option<RecoveryRecord>,
    /// Episodes ever opened.
    total: u64,
    /// Time in fast recovery of the episodes past `kept` that a newer one
    /// has replaced (one left open counts until the next one began).
    fast_time_dropped: Time,
}

fn fast_time(r: &RecoveryRecord, end: Time) -> Time {
    if r.kind == RecoveryKind::Fast {
        r.end.unwrap_or(end).saturating_sub(r.start)
    } else {
        0
    }
}

impl RecoveryLog {
    /// Opens an episode; returns its number (0 for the first).
    pub fn push(&mut self, r: RecoveryRecord) -> u64 {
        if self.kept.len() < KEEP {
            self.kept.push(r);
        } else if let Some(old) = self.latest.replace(r) {
            let start = self.latest.as_ref().map_or(0, |n| n.start);
            self.fast_time_dropped += fast_time(&old, start);
        }
        self.total += 1;
        self.total - 1
    }

    /// The latest episode.
    pub fn last_mut(&mut self) -> Option<&mut RecoveryRecord> {
        match &mut self.latest {
            Some(r) => Some(r),
            None => self.kept.last_mut(),
        }
    }

    /// Episode `i`, if it is still held (kept, or the latest).
    pub fn get_mut(&mut self, i: u64) -> Option<&mut RecoveryRecord> {
        if i < self.kept.len() as u64 {
            return self.kept.get_mut(i as usize);
        }
        if i + 1 == self.total {
            return self.latest.as_mut();
        }
        None
    }

    /// Every held episode numbered `from` or later.
    pub fn from_mut(&mut self, from: u64) -> impl Iterator<Item = &mut RecoveryRecord> {
        let skip = usize::try_from(from).unwrap_or(usize::MAX);
        let latest_in = self.total > from;
        self.kept
            .iter_mut()
            .skip(skip)
            .chain(self.latest.as_mut().filter(|_| latest_in))
    }

    /// The first [`KEEP`] episodes.
    pub fn kept(&self) -> &[RecoveryRecord] {
        &self.kept
    }

    /// Episodes ever opened.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Time spent in fast recovery over every episode, an open one up to
    /// `end`.
    pub fn fast_time(&self, end: Time) -> Time {
        self.kept.iter().map(|r| fast_time(r, end)).sum::<Time>()
            + self.fast_time_dropped
            + self.latest.as_ref().map_or(0, |r| fast_time(r, end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(kind: RecoveryKind, start: Time, end: Option<Time>) -> RecoveryRecord {
        RecoveryRecord {
            kind,
            start,
            end,
            cwnd_before: 10,
            cwnd_after: None,
            cwnd_before_exit: None,
            ssthresh: 5,
            pipe_minus_ssthresh_at_start: 0,
            flight_at_start: 0,
            lost_at_start: 0,
            undone: false,
            app_stall: 0,
            rtt_before: None,
            rtt_after_max: None,
        }
    }

    #[test]
    fn memory_is_bounded_and_totals_are_exact() {
        let mut log = RecoveryLog::default();
        let n = KEEP as u64 + 1000;
        for i in 0..n {
            let k = log.push(rec(RecoveryKind::Fast, 10 * i, None));
            assert_eq!(k, i);
            log.last_mut().unwrap().end = Some(10 * i + 3);
        }
        assert_eq!(log.kept().len(), KEEP);
        assert_eq!(log.total(), n);
        assert_eq!(log.fast_time(u64::MAX), 3 * n);
        // The latest is still reachable by its number; older dropped ones
        // are not.
        assert!(log.get_mut(n - 1).is_some());
        assert!(log.get_mut(n - 2).is_none());
        assert!(log.get_mut(5).is_some());
        assert_eq!(log.from_mut(n - 1).count(), 1);
        assert_eq!(log.from_mut(KEEP as u64 - 2).count(), 3);
    }

    #[test]
    fn under_the_cap_it_is_a_list() {
        let mut log = RecoveryLog::default();
        log.push(rec(RecoveryKind::Fast, 0, Some(4)));
        log.push(rec(RecoveryKind::Timeout, 10, Some(20)));
        log.push(rec(RecoveryKind::Fast, 30, None));
        assert_eq!(log.fast_time(40), 4 + 10);
        assert_eq!(log.from_mut(1).count(), 2);
        for r in log.from_mut(1) {
            r.undone = true;
        }
        assert!(!log.kept()[0].undone && log.kept()[2].undone);
    }
}
