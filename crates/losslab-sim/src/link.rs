//! What drains a link: a constant rate, or a recorded trace of delivery
//! opportunities in mahimahi's format (issue 34).
//!
//! mahimahi's semantics, read in its `src/frontend/link_queue.cc`
//! (`LinkQueue::LinkQueue()`, `rationalize()`, `use_a_delivery_opportunity()`)
//! and `link_queue.hh` (`PACKET_SIZE`), are kept exactly:
//! - a trace is one line per delivery opportunity, a whole number of
//!   milliseconds since the trace began, never decreasing; several lines
//!   with one time are several opportunities in that millisecond;
//! - an opportunity carries up to 1504 bytes. A packet larger than what
//!   is left of it goes on in the next one (its bytes are counted, not
//!   its packets); what a packet leaves of an opportunity goes to the next
//!   packet only if that one was already queued; an opportunity that finds
//!   the link empty is lost;
//! - a packet that arrives at the instant of an opportunity misses it
//!   (mahimahi burns the opportunities up to now before it enqueues);
//! - the trace loops: after the last line it starts again, shifted by the
//!   last line's time, which is therefore the loop's length and must be
//!   above 0.
//!
//! A packet leaves the link at the opportunity that carries its last byte.

use std::path::Path;
use std::sync::Arc;

use losslab_core::time::{Time, MS, SEC};

/// Bytes one delivery opportunity carries (mahimahi's `PACKET_SIZE`).
pub const OPPORTUNITY_BYTES: u32 = 1504;

/// The largest trace file read: 64 MiB is some 10 million opportunities,
/// hours of an LTE link; the times take 4 bytes each in memory.
pub const MAX_TRACE_BYTES: u64 = 64 << 20;

/// A delivery-opportunity trace as a scenario names it.
#[derive(Clone, Debug)]
pub struct LinkTrace {
    /// The file it was read from, as resolved when the scenario was read
    /// (an absolute path when the scenario gave a relative one), so that a
    /// written-out scenario reads the same trace again.
    pub file: String,
    /// The opportunities, milliseconds from the trace's start.
    pub ms: Arc<[u32]>,
    /// Where in the trace the run starts (`trace_offset`), less than the
    /// loop's length.
    pub offset: Time,
}

impl PartialEq for LinkTrace {
    fn eq(&self, o: &Self) -> bool {
        self.file == o.file
            && self.offset == o.offset
            && (Arc::ptr_eq(&self.ms, &o.ms) || self.ms == o.ms)
    }
}

impl LinkTrace {
    /// The loop's length: the last line's time.
    pub fn period(&self) -> Time {
        u64::from(*self.ms.last().expect("a trace has a line")) * MS
    }

    /// The capacity averaged over one loop, bits per second: what the
    /// figures that need a rate (utilisation, a queue in BDPs, memory
    /// estimates) take for a trace-driven link.
    pub fn mean_rate_bps(&self) -> u64 {
        let bits = self.ms.len() as u128 * u128::from(OPPORTUNITY_BYTES) * 8;
        (bits * u128::from(SEC) / u128::from(self.period())).max(1) as u64
    }
}

/// A trace file's text, at most [`MAX_TRACE_BYTES`] of it
/// (a device that never ends is an error, not a read that fills memory).
pub fn read_trace_text(path: &Path) -> Result<String, String> {
    use std::io::Read;
    let cap = MAX_TRACE_BYTES;
    let f = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut buf = Vec::new();
    f.take(cap + 1)
        .read_to_end(&mut buf)
        .map_err(|e| e.to_string())?;
    if buf.len() as u64 > cap {
        return Err(format!(
            "goes on past {} MiB, the largest trace losslab reads",
            cap >> 20
        ));
    }
    String::from_utf8(buf).map_err(|e| {
        format!(
            "not text (byte {} is not UTF-8); a mahimahi trace is one number per line",
            e.utf8_error().valid_up_to()
        )
    })
}

/// A trace that cannot be used: the 1-based line (0: the file as a
/// whole) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    pub line: usize,
    pub message: String,
}

/// Parses a trace's text. Leading and trailing blanks of a line are
/// ignored (files written on Windows end lines in CR LF), and so is one
/// final newline; every other line must be a whole number of milliseconds.
/// A trace is read once per scenario but may hold millions of lines, so
/// the common line (digits, then a newline) takes a fast path; anything
/// else goes through [`parse_line`], which says what is wrong.
pub fn parse_trace(text: &str) -> Result<Arc<[u32]>, TraceError> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    let mut ms: Vec<u32> = Vec::with_capacity(body.len() / 4 + 1);
    if !body.trim().is_empty() {
        let mut line = 1usize;
        let mut start = 0usize;
        let mut last = 0u32;
        // The line's value while it is digits only and at most 9 of them
        // (no u32 overflow); None sends it to parse_line.
        let mut fast = Some((0u32, 0u32));
        let mut push = |v: u32, line: usize| {
            if v < last {
                return Err(TraceError {
                    line,
                    message: format!("times must not decrease: {v} ms after {last} ms"),
                });
            }
            last = v;
            ms.push(v);
            Ok(())
        };
        for (i, &b) in body.as_bytes().iter().enumerate() {
            if b == b'\n' {
                let v = match fast {
                    Some((v, n)) if n > 0 => v,
                    _ => parse_line(&body[start..i], line)?,
                };
                push(v, line)?;
                line += 1;
                start = i + 1;
                fast = Some((0, 0));
            } else if let Some((v, n)) = fast {
                fast = (b.is_ascii_digit() && n < 9).then(|| (v * 10 + u32::from(b - b'0'), n + 1));
            }
        }
        let v = match fast {
            Some((v, n)) if n > 0 => v,
            _ => parse_line(&body[start..], line)?,
        };
        push(v, line)?;
    }
    match ms.last() {
        None => Err(TraceError {
            line: 0,
            message: "the trace has no delivery opportunities (it is empty)".into(),
        }),
        Some(0) => Err(TraceError {
            line: ms.len(),
            message: "the trace lasts 0 ms: its last time is its loop's length and must be above 0"
                .into(),
        }),
        Some(_) => Ok(ms.into()),
    }
}

/// One line that is not a short run of digits: blanks around a number,
/// a long number, or an error.
fn parse_line(raw: &str, line: usize) -> Result<u32, TraceError> {
    let err = |message: String| TraceError { line, message };
    let l = raw.trim();
    if l.is_empty() {
        return Err(err(
            "an empty line (mahimahi refuses them too): every line is one delivery \
             opportunity, in whole milliseconds"
                .into(),
        ));
    }
    if !l.bytes().all(|b| b.is_ascii_digit()) {
        return Err(err(format!("{l:?} is not a whole number of milliseconds")));
    }
    l.parse().map_err(|_| {
        err(format!(
            "{l} ms is beyond the largest time a trace may hold ({} ms)",
            u32::MAX
        ))
    })
}

/// What drains a link; the simulator and the emulator (losslab-net's
/// path.rs) both ask it when a packet leaves.
#[derive(Debug)]
pub enum Drain {
    /// A constant rate.
    Rate(RateDrain),
    Trace(Cursor),
}

/// A constant rate in bits per second (> 0), with the serialisation time
/// of the last size asked kept beside it: a path's data packets are nearly
/// all one size, and the 128-bit division of `serialisation`, a library
/// call (`__udivti3`), ran for every packet (issue 33). Same answer.
#[derive(Clone, Copy, Debug)]
pub struct RateDrain {
    bps: u64,
    last_bytes: u32,
    last_time: Time,
}

impl RateDrain {
    pub fn new(bps: u64) -> Self {
        let bps = bps.max(1);
        RateDrain {
            bps,
            last_bytes: 0,
            last_time: serialisation(0, bps),
        }
    }
    #[inline]
    fn time(&mut self, bytes: u32) -> Time {
        if bytes != self.last_bytes {
            self.last_bytes = bytes;
            self.last_time = serialisation(bytes, self.bps);
        }
        self.last_time
    }
}

impl Drain {
    pub fn new(rate_bps: u64, trace: Option<&LinkTrace>) -> Self {
        match trace {
            Some(t) => Drain::Trace(Cursor::new(t)),
            None => Drain::Rate(RateDrain::new(rate_bps)),
        }
    }

    /// A packet of `bytes` reaches the head of the link at `now`: when its
    /// first byte goes (`Span::first`) and when it has left (`done`).
    /// `queued`: it waited behind the packet that left at `now`, so it
    /// may use what that one left of its opportunity; otherwise it arrived
    /// at an empty link at `now`. At a constant rate the first byte goes
    /// at once; on a trace at the first opportunity the packet uses. Until
    /// then it still waits in the queue and counts against its limit, as
    /// in mahimahi, where a packet leaves `packet_queue_` only at an
    /// opportunity.
    #[inline]
    pub fn send(&mut self, now: Time, bytes: u32, queued: bool) -> Span {
        match self {
            Drain::Rate(r) => Span {
                first: now,
                done: now + r.time(bytes),
            },
            Drain::Trace(c) => c.send(now, bytes, queued),
        }
    }

    /// Back to where the run starts in the trace: for a caller whose
    /// time 0 moved (the emulator learns the run's start after packets
    /// may have passed).
    pub fn restart(&mut self) {
        if let Drain::Trace(c) = self {
            c.restart();
        }
    }
}

/// When a packet's first byte goes and when its last byte has gone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub first: Time,
    pub done: Time,
}

/// How long `bytes` take to serialise at `rate_bps` (> 0), rounded up to
/// the nanosecond.
pub fn serialisation(bytes: u32, rate_bps: u64) -> Time {
    ((u128::from(bytes) * 8 * u128::from(SEC)).div_ceil(u128::from(rate_bps))) as Time
}

/// The position in a looping trace.
#[derive(Debug)]
pub struct Cursor {
    ms: Arc<[u32]>,
    period: Time,
    offset: Time,
    /// The trace time at which the current loop began (a multiple of
    /// `period`); `idx` is the next opportunity not yet used or passed.
    cycle: Time,
    idx: usize,
    /// The last opportunity used and the bytes it has left.
    at: Time,
    left: u32,
    /// `idx` at the run's start.
    start: usize,
}

impl Cursor {
    fn new(t: &LinkTrace) -> Self {
        let period = t.period();
        let offset = t.offset % period;
        let idx = t.ms.partition_point(|&m| u64::from(m) * MS < offset);
        Cursor {
            ms: t.ms.clone(),
            period,
            offset,
            cycle: 0,
            idx,
            at: 0,
            left: 0,
            start: idx,
        }
    }

    fn restart(&mut self) {
        self.cycle = 0;
        self.idx = self.start;
        self.at = 0;
        self.left = 0;
    }

    /// Scenario time of opportunity `idx` of the current loop. Never below
    /// 0: in the first loop `idx` starts at the first opportunity at or
    /// after the offset, and later loops begin after it.
    #[inline]
    fn time_of_next(&self) -> Time {
        self.cycle + u64::from(self.ms[self.idx]) * MS - self.offset
    }

    /// Moves to the first opportunity strictly after `now`.
    fn seek(&mut self, now: Time) {
        if self.time_of_next() > now {
            return;
        }
        let t = now + self.offset;
        let r = t % self.period;
        self.cycle = t - r;
        // The last line's time is the period, above r: found in this loop.
        self.idx = self.ms.partition_point(|&m| u64::from(m) * MS <= r);
    }

    fn send(&mut self, now: Time, bytes: u32, queued: bool) -> Span {
        let mut need = bytes;
        let mut first = None;
        if queued && self.at == now && self.left > 0 {
            let take = need.min(self.left);
            self.left -= take;
            need -= take;
            first = Some(now);
            if need == 0 {
                return Span {
                    first: now,
                    done: now,
                };
            }
        } else if !queued {
            self.seek(now);
        }
        loop {
            let t = self.time_of_next();
            self.idx += 1;
            if self.idx == self.ms.len() {
                self.idx = 0;
                self.cycle += self.period;
            }
            let take = need.min(OPPORTUNITY_BYTES);
            self.at = t;
            self.left = OPPORTUNITY_BYTES - take;
            need -= take;
            let first = *first.get_or_insert(t);
            if need == 0 {
                return Span { first, done: t };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Drain {
        /// When the packet has left, for tests that need only that.
        fn done(&mut self, now: Time, bytes: u32, queued: bool) -> Time {
            self.send(now, bytes, queued).done
        }
    }

    fn trace(lines: &[u32], offset: Time) -> LinkTrace {
        LinkTrace {
            file: "t".into(),
            ms: lines.to_vec().into(),
            offset,
        }
    }

    #[test]
    fn parse_accepts_mahimahi_files_and_names_the_bad_line() {
        assert_eq!(&*parse_trace("1\n1\n2\n").unwrap(), &[1, 1, 2]);
        assert_eq!(&*parse_trace("0\r\n5\r\n").unwrap(), &[0, 5]);
        assert_eq!(&*parse_trace("7").unwrap(), &[7]);
        let e = |t: &str| parse_trace(t).unwrap_err();
        assert_eq!(e("").line, 0);
        assert_eq!(e("\n").line, 0);
        assert_eq!(e("0\n0\n").line, 2);
        assert!(e("0\n0\n").message.contains("0 ms"));
        assert_eq!(e("1\n\n2\n").line, 2);
        assert_eq!(e("1\n2\nx\n").line, 3);
        assert_eq!(e("1\n-2\n").line, 2);
        assert_eq!(e("1.5\n").line, 1);
        let d = e("3\n5\n4\n");
        assert_eq!(d.line, 3);
        assert!(d.message.contains("4 ms after 5 ms"), "{}", d.message);
        assert_eq!(e("99999999999\n").line, 1);
    }

    #[test]
    fn mean_rate_counts_1504_bytes_per_opportunity() {
        // mahimahi's 12 Mbit/s trace is the line "1": one opportunity a
        // millisecond, 1504 * 8 * 1000 bit/s.
        assert_eq!(trace(&[1], 0).mean_rate_bps(), 12_032_000);
        assert_eq!(trace(&[1, 1, 2], 0).mean_rate_bps(), 18_048_000);
    }

    #[test]
    fn a_packet_waits_for_the_next_opportunity_and_the_trace_loops() {
        let t = trace(&[2, 5], 0);
        let mut d = Drain::new(0, Some(&t));
        // Opportunities at 2, 5, 7, 10, 12, ... ms.
        assert_eq!(d.done(0, 1500, false), 2 * MS);
        // At the instant of an opportunity: the next one.
        assert_eq!(d.done(5 * MS, 1500, false), 7 * MS);
        assert_eq!(d.done(7 * MS + 1, 100, false), 10 * MS);
        // Idle for many loops.
        assert_eq!(d.done(1000 * MS + 1, 100, false), 1002 * MS);
    }

    #[test]
    fn queued_packets_share_an_opportunitys_bytes_and_carry_over() {
        let t = trace(&[1], 0);
        let mut d = Drain::new(0, Some(&t));
        assert_eq!(d.done(0, 1000, false), MS);
        // 504 bytes left at 1 ms: a queued 500-byte packet leaves then.
        assert_eq!(d.done(MS, 500, true), MS);
        // 4 bytes left: a 1500-byte packet needs the next opportunity too.
        assert_eq!(d.done(MS, 1500, true), 2 * MS);
        // 8 left at 2 ms; 9,000 bytes take the next six (8 + 6 * 1504).
        assert_eq!(d.done(2 * MS, 9000, true), 8 * MS);
        // A packet arriving at an empty link does not use leftovers.
        assert_eq!(d.done(8 * MS, 10, false), 9 * MS);
    }

    #[test]
    fn repeated_times_are_several_opportunities_at_once() {
        let t = trace(&[3, 3, 3, 4], 0);
        let mut d = Drain::new(0, Some(&t));
        assert_eq!(d.done(0, 1500, false), 3 * MS);
        assert_eq!(d.done(3 * MS, 1500, true), 3 * MS);
        assert_eq!(d.done(3 * MS, 1500, true), 3 * MS);
        assert_eq!(d.done(3 * MS, 1500, true), 4 * MS);
        // The loop's end and the next loop's start: 4 ms, then 7 ms.
        assert_eq!(d.done(4 * MS, 1500, true), 7 * MS);
    }

    #[test]
    fn an_offset_starts_the_run_inside_the_trace() {
        // Opportunities at 2, 5, 10 ms; from 4 ms on: 5 -> 1, 10 -> 6,
        // then 12 -> 8, 15 -> 11.
        let t = trace(&[2, 5, 10], 4 * MS);
        let mut d = Drain::new(0, Some(&t));
        assert_eq!(d.done(0, 1500, false), MS);
        assert_eq!(d.done(MS, 1500, true), 6 * MS);
        assert_eq!(d.done(6 * MS, 1500, true), 8 * MS);
        assert_eq!(d.done(9 * MS, 1500, false), 11 * MS);
        // An offset beyond the loop is taken modulo its length.
        let mut e = Drain::new(0, Some(&trace(&[2, 5, 10], 24 * MS)));
        assert_eq!(e.done(0, 1500, false), MS);
    }

    #[test]
    fn the_first_byte_goes_at_the_first_opportunity_used() {
        let t = trace(&[2, 5], 0);
        let mut d = Drain::new(0, Some(&t));
        assert_eq!(
            d.send(0, 3000, false),
            Span {
                first: 2 * MS,
                done: 5 * MS
            }
        );
        // 8 bytes left at 5 ms: a queued packet starts there.
        assert_eq!(
            d.send(5 * MS, 100, true),
            Span {
                first: 5 * MS,
                done: 7 * MS
            }
        );
        // 1412 bytes left at 7 ms, all used: the next packet starts at 10.
        assert_eq!(
            d.send(7 * MS, 1412, true),
            Span {
                first: 7 * MS,
                done: 7 * MS
            }
        );
        assert_eq!(
            d.send(7 * MS, 1, true),
            Span {
                first: 10 * MS,
                done: 10 * MS
            }
        );
        d.restart();
        assert_eq!(
            d.send(0, 1, false),
            Span {
                first: 2 * MS,
                done: 2 * MS
            }
        );
        let mut r = Drain::new(12_000_000, None);
        assert_eq!(
            r.send(3, 1500, false),
            Span {
                first: 3,
                done: 3 + MS
            }
        );
    }

    #[test]
    fn a_constant_rate_serialises() {
        let mut d = Drain::new(12_000_000, None);
        assert_eq!(d.done(5, 1500, false), 5 + 1_000_000);
        assert_eq!(d.done(0, 1, true), 667);
    }

    #[test]
    fn the_kept_serialisation_time_follows_every_change_of_size() {
        // Sizes repeated, changed, back, and zero: each answer is the
        // division's, at rates that round up and that do not. A rate of
        // 0 drains as 1 bit/s (`RateDrain::new`), never dividing by zero.
        for rate in [12_000_000, 1_000_000_000, 7, u64::MAX, 1, 0] {
            let mut d = Drain::new(rate, None);
            for (i, bytes) in [1500u32, 1500, 52, 1500, 0, 0, 64, 1500, u32::MAX, 1]
                .into_iter()
                .enumerate()
            {
                let now = i as Time * 1000;
                assert_eq!(
                    d.done(now, bytes, i % 2 == 0),
                    now + serialisation(bytes, rate.max(1)),
                    "rate {rate}, {bytes} bytes"
                );
            }
        }
    }
}
