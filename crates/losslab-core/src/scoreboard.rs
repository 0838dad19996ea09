//! The sender's scoreboard (RFC 6675 section 3): one small record per
//! segment sent and not yet cumulatively acknowledged, in a ring indexed by
//! segment number, plus the counters that make RFC 6675's pipe O(1).
//!
//! Shape after Linux (`packets_out`, `sacked_out`, `lost_out`,
//! `retrans_out`; in_flight = packets_out - (sacked_out + lost_out) +
//! retrans_out, tcp_packets_in_flight() in include/net/tcp.h), which is
//! RFC 6675 SetPipe() counted in segments instead of octets.
//!
//! Every operation is O(log n) or amortised O(1) per segment: SACKed
//! segment numbers live in a `SeqSet`, so a SACK block repeated on every
//! ACK only touches what it newly covers; segments to retransmit wait in an
//! ordered set; retransmissions in flight wait in a map ordered by their
//! transmission order, so lost-retransmission detection and RACK visit only
//! the ones they declare lost plus one.
//!
//! Per ACK the board also summarises what was newly delivered (`Delivered`:
//! the latest transmission among the newly acknowledged segments, for RACK
//! and lost-retransmission detection, and the lowest never-retransmitted
//! one, for reordering detection), keeps RACK's FACK (one past the highest
//! segment ever acknowledged or SACKed, RFC 8985 section 6.2 step 3), and
//! remembers the retransmitted segments a cumulative ACK removed, so a DSACK
//! that arrives later can still be matched to them (RFC 2883, RFC 3708).

use std::cell::Cell;
use std::collections::{BTreeSet, VecDeque};

use crate::seqset::SeqSet;
use crate::time::Time;
use crate::wire::Range;

pub const SACKED: u8 = 1;
/// Marked lost by the loss detector (and not SACKed since).
pub const LOST: u8 = 2;
/// A retransmission of it is in flight (counts in pipe, RFC 6675 SetPipe (b)).
pub const RETRANS: u8 = 4;
/// It has been retransmitted at least once (Karn's rule).
pub const EVER_RETRANS: u8 = 8;
/// Marked lost by the retransmission timeout (RFC 6675 section 5.1).
pub const RTO_LOST: u8 = 16;
/// Its latest retransmission was sent because a loss detector had marked
/// it lost (not after an RTO, and not NextSeg() rule 3 or 4 speculation):
/// if the original arrives after all, it was reordered.
pub const LOSS_RETRANS: u8 = 32;
/// Flags a SACK keeps.
const KEPT_ON_SACK: u8 = EVER_RETRANS | LOSS_RETRANS;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SegMeta {
    pub seq: u64,
    pub len: u32,
    pub tx_count: u32,
    pub first_sent: Time,
    pub last_sent: Time,
    /// Sender-wide order of its latest transmission.
    pub tx_order: u64,
    pub flags: u8,
    /// DSACKs received for it (duplicates the receiver reported), counted
    /// up to `tx_count - 1`: more would be duplicated ACKs or packets.
    pub dsacks: u8,
    /// Extra copies of its retransmissions sent (OR3's redundancy) that no
    /// DSACK has been matched to yet: the next DSACKs are theirs, so they
    /// say nothing about the retransmissions themselves.
    pub replicas: u8,
}

impl SegMeta {
    pub fn end(&self) -> u64 {
        self.seq + self.len as u64
    }
    pub fn is(&self, f: u8) -> bool {
        self.flags & f != 0
    }
}

/// One newly delivered segment, as RACK and loss detection see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeliveredSeg {
    pub seg_no: u64,
    /// Order and time of its latest transmission.
    pub tx_order: u64,
    pub sent: Time,
}

/// What the ACK being processed newly delivered, cumulatively or
/// selectively (reset by `begin_ack`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Delivered {
    /// Segments newly delivered.
    pub segments: u64,
    /// The most recently sent of them that was never retransmitted. Which
    /// transmission arrived is certain, so its RTT is unambiguous (RFC 8985
    /// section 6.2 step 2) and every retransmission sent before it should
    /// have arrived first (lost-retransmission detection).
    pub latest_original: Option<DeliveredSeg>,
    /// The lowest never-retransmitted one (reordering detection: Linux
    /// tcp_check_sack_reordering(), RFC 8985 RACK_detect_reordering()).
    pub lowest_original: Option<u64>,
    /// Send times of the oldest and the newest never-retransmitted segments
    /// the cumulative ACK newly delivered (SACKed earlier ones delivered
    /// nothing now): Linux tcp_clean_rtx_queue()'s first_ackt and
    /// last_ackt. Linux takes them in queue order; a segment sent once was
    /// sent in sequence order, so oldest and first are the same one.
    pub cum_original_sent: Option<(Time, Time)>,
    /// The same for the segments newly SACKed: tcp_sacktag_one()'s
    /// first_sackt and last_sackt (Linux walks the blocks sorted by
    /// sequence; the engine takes them as they come, hence min and max).
    pub sacked_original_sent: Option<(Time, Time)>,
    /// Send times of the oldest and the newest never-retransmitted segments
    /// the cumulative ACK removed, SACKed earlier ones included: Linux 3.x
    /// tcp_clean_rtx_queue() timed every original it freed (3.2-3.14's
    /// seq_rtt and ca_seq_rtt from `scb->when`, 3.15-3.17's first_ackt and
    /// last_ackt), without 4.x's TCPCB_SACKED_ACKED test.
    pub cum_acked_original_sent: Option<(Time, Time)>,
}

/// The more recently sent of two delivered segments.
pub fn later(a: Option<DeliveredSeg>, b: Option<DeliveredSeg>) -> Option<DeliveredSeg> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if x.tx_order > y.tx_order { x } else { y }),
        (x, y) => x.or(y),
    }
}

impl Delivered {
    /// Counts a newly delivered segment: a retransmitted one goes to `rtx`,
    /// a never-retransmitted one into the summary here.
    fn note(&mut self, rtx: &mut DeliveredRetransmitted, seg_no: u64, s: &SegMeta, sacked: bool) {
        self.segments += 1;
        let d = DeliveredSeg {
            seg_no,
            tx_order: s.tx_order,
            sent: s.last_sent,
        };
        if s.is(EVER_RETRANS) {
            if sacked {
                rtx.sacked.push(d);
            } else {
                rtx.cum.push(d);
            }
            return;
        }
        self.lowest_original = Some(self.lowest_original.map_or(seg_no, |l| l.min(seg_no)));
        let span = if sacked {
            &mut self.sacked_original_sent
        } else {
            &mut self.cum_original_sent
        };
        let t = s.last_sent;
        *span = Some(span.map_or((t, t), |(lo, hi)| (lo.min(t), hi.max(t))));
        if self.latest_original.is_none_or(|o| o.tx_order < d.tx_order) {
            self.latest_original = Some(d);
        }
    }
}

/// The retransmitted segments one ACK newly delivered, those newly SACKed
/// and those the cumulative ACK delivered (reset by `begin_ack`; the
/// buffers are kept between ACKs). Which copy arrived is ambiguous, so
/// RACK checks each before use, and Linux checks the two kinds
/// differently (tcp_sacktag_one() hands every SACKed one to
/// tcp_rack_advance(), tcp_clean_rtx_queue() only those
/// tcp_skb_spurious_retrans() clears).
#[derive(Clone, Debug, Default)]
pub struct DeliveredRetransmitted {
    pub sacked: Vec<DeliveredSeg>,
    pub cum: Vec<DeliveredSeg>,
}

fn newest<'a>(
    segs: impl Iterator<Item = &'a DeliveredSeg>,
    pass: impl Fn(&DeliveredSeg) -> bool,
) -> Option<DeliveredSeg> {
    segs.filter(|d| pass(d)).max_by_key(|d| d.tx_order).copied()
}

impl DeliveredRetransmitted {
    /// The most recently (re)sent of the newly SACKed ones that `pass`.
    pub fn newest_sacked(&self, pass: impl Fn(&DeliveredSeg) -> bool) -> Option<DeliveredSeg> {
        newest(self.sacked.iter(), pass)
    }

    /// The most recently (re)sent of the cumulatively delivered ones that
    /// `pass`.
    pub fn newest_cum(&self, pass: impl Fn(&DeliveredSeg) -> bool) -> Option<DeliveredSeg> {
        newest(self.cum.iter(), pass)
    }

    /// The most recently (re)sent of all of them that `pass`: each is
    /// tested on its own, so one that fails does not hide an older one.
    pub fn newest(&self, pass: impl Fn(&DeliveredSeg) -> bool) -> Option<DeliveredSeg> {
        newest(self.sacked.iter().chain(&self.cum), pass)
    }

    /// The most recently (re)sent of all of them.
    pub fn latest(&self) -> Option<DeliveredSeg> {
        self.newest(|_| true)
    }
}

/// A segment that a DSACK block reported as received more than once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dsacked {
    pub tx_count: u32,
    /// Order of its latest transmission.
    pub tx_order: u64,
    /// Its latest retransmission answered a loss detector's mark
    /// (`LOSS_RETRANS`).
    pub loss_driven: bool,
    /// False when the segment already had `tx_count - 1` DSACKs: this one
    /// cannot stand for one more unnecessary transmission (a duplicated ACK
    /// or packet).
    pub fresh: bool,
    /// The duplicate was an extra copy (OR3's redundancy): neither a
    /// spurious retransmission nor a sign of reordering. `fresh` is then
    /// false.
    pub replica: bool,
}

/// A retransmitted segment that a cumulative ACK removed from the board,
/// kept so that a late DSACK can still be matched to it.
#[derive(Clone, Copy, Debug)]
struct AckedRetransmitted {
    seq: u64,
    end: u64,
    tx_count: u32,
    tx_order: u64,
    loss_driven: bool,
    dsacks: u8,
    replicas: u8,
}

/// How many cumulatively acknowledged retransmitted segments are kept for
/// DSACK matching (DSACKs arrive within about an RTT of the cumulative ACK).
const ACKED_RETRANSMITTED_KEPT: usize = 4096;

/// What a cumulative ACK removed.
#[derive(Clone, Copy, Debug, Default)]
pub struct CumAcked {
    pub segments: u64,
    pub bytes: u64,
    /// Of those, how many had not been SACKed before (newly delivered).
    pub newly_delivered: u64,
    /// Any of them was ever retransmitted (Karn's rule applies).
    pub any_retransmitted: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    segs: VecDeque<SegMeta>,
    /// Segment number of `segs[0]`.
    base: u64,
    sacked: SeqSet,
    sacked_out: u64,
    lost_out: u64,
    retrans_out: u64,
    /// Lost, not SACKed, and no retransmission in flight: waiting for
    /// NextSeg() rule 1.
    to_retransmit: BTreeSet<u64>,
    /// Segments below this number have been considered by `mark_lost_below`
    /// or are SACKed (which a segment stays while on the board).
    lost_scan: u64,
    /// Segments whose retransmission is in flight (RETRANS), by the
    /// transmission order of that retransmission.
    rtx_in_flight: InFlightRetransmissions,
    /// One past the highest segment number ever acknowledged or SACKed.
    fack: u64,
    /// What the current ACK newly delivered.
    delivered: Delivered,
    /// Every retransmitted segment the current ACK newly delivered, SACKed
    /// and cumulatively, in the order the board took them: RACK checks
    /// each before it may count (`detect::RackAdvance::pick`), so the most
    /// recently sent one that passes is not always the most recently sent.
    delivered_rtx: DeliveredRetransmitted,
    /// Retransmitted segments already cumulatively acknowledged, in order.
    acked_rtx: VecDeque<AckedRetransmitted>,
    /// Cumulatively acknowledged segments by how many times each was
    /// retransmitted (index k; the OR3 paper's k, Fig. 3b).
    retransmissions_hist: Vec<u64>,
    /// No segment below this number is a `first_unsacked_unlost`
    /// candidate. Segments stop being candidates (SACKed, marked lost,
    /// retransmitted) far more often than they become one again (only
    /// `unmark_lost`), so scans resume here: amortised O(1) where a scan
    /// from the base would cross every hole of a 25,000-segment window on
    /// each sending decision (opportunistic retransmission asks on each).
    unfilled_hint: Cell<u64>,
    /// SACK blocks (bytes) that `on_sack_block` recently applied, cut at
    /// the end of the last segment sent then. Each ACK repeats the
    /// receiver's recently reported blocks (RFC 2018 section 4), and a
    /// block inside one of these adds nothing: every segment on the board
    /// within it was SACKed then and stays SACKed (until the cumulative
    /// ACK takes it off the board), and no segment sent since lies within
    /// it. Only a trimmed segment (an ACK inside it) changes which
    /// segments lie within a range, so a trim forgets them. Checking here
    /// saves locating the block on the board, several cache misses on a
    /// large window, and a search of the SACKed runs.
    recent_blocks: [Range; 4],
    /// The slot `remember_block` fills next when none overlaps the block.
    recent_next: usize,
}

impl Scoreboard {
    pub fn new() -> Self {
        Self::default()
    }

    // ---- reading -------------------------------------------------------

    /// Segment number of the first unacknowledged segment.
    pub fn base(&self) -> u64 {
        self.base
    }
    /// One past the highest segment number sent.
    pub fn next_seg_no(&self) -> u64 {
        self.base + self.segs.len() as u64
    }
    pub fn packets_out(&self) -> u64 {
        self.segs.len() as u64
    }
    pub fn sacked_out(&self) -> u64 {
        self.sacked_out
    }
    pub fn lost_out(&self) -> u64 {
        self.lost_out
    }
    pub fn retrans_out(&self) -> u64 {
        self.retrans_out
    }
    /// RFC 6675 SetPipe() in segments (see the module comment).
    pub fn pipe(&self) -> u64 {
        (self.packets_out() + self.retrans_out).saturating_sub(self.sacked_out + self.lost_out)
    }
    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }
    pub fn get(&self, seg_no: u64) -> Option<&SegMeta> {
        seg_no
            .checked_sub(self.base)
            .and_then(|i| self.segs.get(i as usize))
    }
    pub fn first(&self) -> Option<&SegMeta> {
        self.segs.front()
    }
    pub fn last(&self) -> Option<&SegMeta> {
        self.segs.back()
    }
    pub fn is_sacked(&self, seg_no: u64) -> bool {
        self.sacked.contains(seg_no)
    }
    /// The SACKed segment-number ranges, for detectors.
    pub fn sacked_runs(&self) -> &SeqSet {
        &self.sacked
    }
    /// Where a walk over the un-SACKed segments goes from `n`: `n` itself
    /// unless it is SACKed, else the end of the SACKed run holding it.
    /// A segment on the board carries SACKED exactly when the run set holds
    /// it (`check_invariants`), so only a SACKed one costs a search. The
    /// walks used to carry the next run alongside, which cost a search at
    /// every start, and most walks (a detector's on every ACK) stop at
    /// their first segment or never take a step (issue 33).
    #[inline]
    pub fn skip_sacked(&self, n: u64) -> u64 {
        match self.get(n) {
            Some(s) if !s.is(SACKED) => n,
            // Off the board nothing is SACKed, but the set is the
            // authority.
            _ => self.sacked.containing(n).map_or(n, |r| r.end),
        }
    }
    /// One past the highest SACKed segment number, if any is SACKed.
    pub fn highest_sacked_end(&self) -> Option<u64> {
        self.sacked.last().map(|r| r.end)
    }
    /// Bytes covered by segments `[lo, hi)` (all must be present).
    pub fn bytes_of(&self, lo: u64, hi: u64) -> u64 {
        if lo >= hi {
            return 0;
        }
        match (self.get(lo), self.get(hi - 1)) {
            (Some(a), Some(b)) => b.end() - a.seq,
            _ => 0,
        }
    }
    /// Segments from `seg_no` on waiting for retransmission.
    pub fn to_retransmit_from(&self, seg_no: u64) -> u64 {
        self.to_retransmit.range(seg_no..).count() as u64
    }
    /// The lowest segment waiting for retransmission.
    pub fn next_to_retransmit(&self) -> Option<u64> {
        self.to_retransmit.first().copied()
    }
    /// One past the highest segment number ever acknowledged or SACKed
    /// (RFC 8985's RACK.fack, Linux's highest SACKed sequence), in segment
    /// numbers.
    pub fn fack(&self) -> u64 {
        self.fack
    }
    /// What the ACK being processed newly delivered (since `begin_ack`).
    pub fn delivered(&self) -> &Delivered {
        &self.delivered
    }

    /// Every retransmitted segment the ACK being processed newly delivered.
    pub fn delivered_retransmitted(&self) -> &DeliveredRetransmitted {
        &self.delivered_rtx
    }
    /// The retransmission in flight that was sent first: (its transmission
    /// order, segment number).
    pub fn oldest_retransmission_in_flight(&self) -> Option<(u64, u64)> {
        self.rtx_in_flight.first()
    }
    /// The retransmission in flight sent last before transmission order
    /// `order`: (its transmission order, segment number).
    pub fn latest_retransmission_in_flight_before(&self, order: u64) -> Option<(u64, u64)> {
        self.rtx_in_flight.latest_before(order)
    }
    /// Cumulatively acknowledged segments by retransmission count: entry
    /// k is how many were retransmitted k times (replicas not counted).
    pub fn retransmissions_histogram(&self) -> &[u64] {
        &self.retransmissions_hist
    }
    pub fn iter(&self) -> impl Iterator<Item = (u64, &SegMeta)> {
        let base = self.base;
        self.segs
            .iter()
            .enumerate()
            .map(move |(i, s)| (base + i as u64, s))
    }

    /// Segment numbers whose bytes lie entirely inside `r`.
    pub fn segs_within(&self, r: Range) -> (u64, u64) {
        // Two binary searches over a 50,000-segment board were a quarter
        // of a large-window run (every SACK block of every ACK, each probe
        // a cache miss). Segments are nearly always the same size, so the
        // index is first computed from the byte offset and checked in O(1);
        // only a wrong guess (segments of mixed sizes) pays for the search.
        let (lo_guess, hi_guess) = self.guess_indices(r);
        let lo = self.partition_point_near(lo_guess, |s| s.seq < r.start);
        let hi = self.partition_point_near(hi_guess, |s| s.end() <= r.end);
        let lo = lo as u64 + self.base;
        let hi = (hi as u64 + self.base).max(lo);
        (lo, hi)
    }

    /// Where `segs_within`'s two partition points would be if every segment
    /// after the first (which a cumulative ACK may have trimmed) had the
    /// second one's length. Only a hint: it may be wrong or out of range.
    fn guess_indices(&self, r: Range) -> (u64, u64) {
        let (Some(first), Some(second)) = (self.segs.front(), self.segs.get(1)) else {
            return (0, 0);
        };
        let s1 = first.end();
        let len = u64::from(second.len.max(1));
        // First index whose seq >= r.start; segs[i].seq = s1 + (i - 1) * len.
        let lo = if r.start <= first.seq {
            0
        } else if r.start <= s1 {
            1
        } else {
            1 + (r.start - s1).div_ceil(len)
        };
        // First index whose end > r.end; segs[i].end() = s1 + i * len.
        let hi = if r.end < s1 {
            0
        } else {
            1 + (r.end - s1) / len
        };
        (lo, hi)
    }

    /// `self.segs.partition_point(pred)`, trying index `guess` first: with
    /// `pred` monotone (true then false), `guess` is the partition point
    /// exactly when `pred` holds just below it and fails at it.
    fn partition_point_near(&self, guess: u64, pred: impl Fn(&SegMeta) -> bool) -> usize {
        let n = self.segs.len();
        let g = usize::try_from(guess).unwrap_or(n).min(n);
        let below = g == 0 || pred(&self.segs[g - 1]);
        let at = g == n || !pred(&self.segs[g]);
        if below && at {
            g
        } else {
            self.segs.partition_point(pred)
        }
    }

    // ---- writing (the sender only) ---------------------------------------

    /// Records a new segment's first transmission; returns its number.
    pub fn push_new(&mut self, seq: u64, len: u32, now: Time, tx_order: u64) -> u64 {
        debug_assert!(self.segs.back().is_none_or(|s| s.end() == seq));
        self.segs.push_back(SegMeta {
            seq,
            len,
            tx_count: 1,
            first_sent: now,
            last_sent: now,
            tx_order,
            flags: 0,
            dsacks: 0,
            replicas: 0,
        });
        self.next_seg_no() - 1
    }

    /// Starts a new ACK: clears the summary of what it newly delivered.
    pub fn begin_ack(&mut self) {
        self.delivered = Delivered::default();
        self.delivered_rtx.sacked.clear();
        self.delivered_rtx.cum.clear();
    }

    /// Records a retransmission of `seg_no`; returns the updated record.
    pub fn on_retransmit(&mut self, seg_no: u64, now: Time, tx_order: u64) -> SegMeta {
        let i = (seg_no - self.base) as usize;
        let s = &mut self.segs[i];
        debug_assert!(!s.is(SACKED));
        if s.is(LOST) && !s.is(RTO_LOST) {
            s.flags |= LOSS_RETRANS;
        } else {
            s.flags &= !LOSS_RETRANS;
        }
        if s.is(RETRANS) {
            self.rtx_in_flight.remove(&s.tx_order);
        } else {
            s.flags |= RETRANS;
            self.retrans_out += 1;
        }
        s.tx_count += 1;
        s.last_sent = now;
        s.tx_order = tx_order;
        s.flags |= EVER_RETRANS;
        self.rtx_in_flight.insert(tx_order, seg_no);
        let s = *s;
        self.to_retransmit.remove(&seg_no);
        s
    }

    /// Records an extra copy of `seg_no`'s retransmission in flight (OR3's
    /// redundancy), if that retransmission is still outstanding: neither
    /// SACKed nor declared lost again since. The copy becomes the segment's
    /// latest transmission, so RACK and lost-retransmission detection
    /// judge the segment by it; its retransmission count stays. Returns
    /// the updated record, or None when no copy is worth sending.
    pub fn on_replica(&mut self, seg_no: u64, now: Time, tx_order: u64) -> Option<SegMeta> {
        let i = seg_no.checked_sub(self.base)? as usize;
        let s = self.segs.get_mut(i)?;
        // RETRANS: the retransmission is still in flight (a lost segment
        // keeps LOST while it is, as in Linux).
        if s.flags & (RETRANS | SACKED) != RETRANS {
            return None;
        }
        self.rtx_in_flight.remove(&s.tx_order);
        s.last_sent = now;
        s.tx_order = tx_order;
        s.replicas = s.replicas.saturating_add(1);
        self.rtx_in_flight.insert(tx_order, seg_no);
        Some(*s)
    }

    /// Cumulative ACK up to byte `ack`: drops fully acknowledged segments.
    pub fn on_cum_ack(&mut self, ack: u64) -> CumAcked {
        let mut out = CumAcked::default();
        while let Some(s) = self.segs.front() {
            if s.end() > ack {
                break;
            }
            let s = self.segs.pop_front().expect("front exists");
            let no = self.base;
            self.base += 1;
            out.segments += 1;
            out.bytes += s.len as u64;
            out.any_retransmitted |= s.is(EVER_RETRANS);
            if !s.is(EVER_RETRANS) {
                let t = s.last_sent;
                let span = &mut self.delivered.cum_acked_original_sent;
                *span = Some(span.map_or((t, t), |(lo, hi)| (lo.min(t), hi.max(t))));
            }
            let k = (s.tx_count - 1) as usize;
            if self.retransmissions_hist.len() <= k {
                self.retransmissions_hist.resize(k + 1, 0);
            }
            self.retransmissions_hist[k] += 1;
            if s.is(SACKED) {
                self.sacked_out -= 1;
            } else {
                out.newly_delivered += 1;
                self.delivered.note(&mut self.delivered_rtx, no, &s, false);
                if s.is(LOST) {
                    self.lost_out -= 1;
                    self.to_retransmit.remove(&no);
                }
                if s.is(RETRANS) {
                    self.retrans_out -= 1;
                    self.rtx_in_flight.remove(&s.tx_order);
                }
            }
            if s.is(EVER_RETRANS) {
                if self.acked_rtx.len() == ACKED_RETRANSMITTED_KEPT {
                    self.acked_rtx.pop_front();
                }
                self.acked_rtx.push_back(AckedRetransmitted {
                    seq: s.seq,
                    end: s.end(),
                    tx_count: s.tx_count,
                    tx_order: s.tx_order,
                    loss_driven: s.is(LOSS_RETRANS),
                    dsacks: s.dsacks,
                    replicas: s.replicas,
                });
            }
        }
        self.fack = self.fack.max(self.base);
        // An ACK inside a segment (the receiver kept the in-window part of
        // a segment that crossed its right edge): keep the rest, as Linux
        // tcp_trim_head() does, so the scoreboard starts at snd_una.
        if let Some(s) = self.segs.front_mut() {
            if s.seq < ack {
                let cut = ack - s.seq;
                s.seq = ack;
                s.len -= cut as u32;
                // It may now lie within a remembered block it crossed.
                self.recent_blocks = Default::default();
                out.bytes += cut;
            }
        }
        self.sacked.remove_below(self.base);
        self.lost_scan = self.lost_scan.max(self.base);
        out
    }

    /// Applies one SACK block (bytes); returns segments newly SACKed.
    pub fn on_sack_block(&mut self, r: Range) -> u64 {
        if self
            .recent_blocks
            .iter()
            .any(|c| c.start <= r.start && r.end <= c.end)
        {
            return 0;
        }
        let (lo, hi) = self.segs_within(r);
        if lo >= hi {
            return 0;
        }
        let mut newly = 0;
        let base = self.base;
        let segs = &mut self.segs;
        let (lost_out, retrans_out, to_rtx, in_flight, delivered, delivered_rtx, fack) = (
            &mut self.lost_out,
            &mut self.retrans_out,
            &mut self.to_retransmit,
            &mut self.rtx_in_flight,
            &mut self.delivered,
            &mut self.delivered_rtx,
            &mut self.fack,
        );
        self.sacked.insert_with(lo, hi, |a, b| {
            for n in a..b {
                let s = &mut segs[(n - base) as usize];
                delivered.note(delivered_rtx, n, s, true);
                if s.is(LOST) {
                    *lost_out -= 1;
                    to_rtx.remove(&n);
                }
                if s.is(RETRANS) {
                    *retrans_out -= 1;
                    in_flight.remove(&s.tx_order);
                }
                s.flags = (s.flags & KEPT_ON_SACK) | SACKED;
                newly += 1;
            }
            *fack = (*fack).max(b);
        });
        self.sacked_out += newly;
        self.remember_block(r);
        newly
    }

    /// Keeps block `r`, just applied, among `recent_blocks`, cut at the
    /// end of the board. A slot overlapping it most likely holds the same
    /// receiver run reported smaller before, and is replaced; otherwise
    /// the slots are reused in turn.
    fn remember_block(&mut self, r: Range) {
        let end = self.segs.back().map_or(r.start, |s| s.end()).min(r.end);
        if end <= r.start {
            return;
        }
        let r = Range::new(r.start, end);
        let slot = self
            .recent_blocks
            .iter()
            .position(|c| c.start < r.end && r.start < c.end)
            .unwrap_or_else(|| {
                let i = self.recent_next;
                self.recent_next = (i + 1) % self.recent_blocks.len();
                i
            });
        self.recent_blocks[slot] = r;
    }

    /// Applies a DSACK block (RFC 2883): `f` sees every whole segment it
    /// covers, on the board or already cumulatively acknowledged (kept for
    /// the retransmitted ones only: a DSACK of a segment sent once is a
    /// network duplicate and says nothing about retransmissions).
    pub fn on_dsack_block(&mut self, r: Range, mut f: impl FnMut(Dsacked)) {
        // Returns (fresh, replica): an extra copy takes the DSACK first,
        // since the copies are the duplicates the sender chose to send.
        fn count(dsacks: &mut u8, replicas: &mut u8, tx_count: u32) -> (bool, bool) {
            if *replicas > 0 {
                *replicas -= 1;
                return (false, true);
            }
            let fresh = u32::from(*dsacks) + 1 < tx_count;
            if fresh {
                *dsacks = dsacks.saturating_add(1);
            }
            (fresh, false)
        }
        // Already cumulatively acknowledged (RFC 2883 section 4 (1)).
        let i = self.acked_rtx.partition_point(|e| e.end <= r.start);
        for e in self.acked_rtx.range_mut(i..) {
            if e.seq >= r.end {
                break;
            }
            if e.seq >= r.start && e.end <= r.end {
                let (fresh, replica) = count(&mut e.dsacks, &mut e.replicas, e.tx_count);
                f(Dsacked {
                    tx_count: e.tx_count,
                    tx_order: e.tx_order,
                    loss_driven: e.loss_driven,
                    fresh,
                    replica,
                });
            }
        }
        // Still on the board (a duplicate inside a SACKed block).
        let (lo, hi) = self.segs_within(r);
        let base = self.base;
        for n in lo..hi {
            let s = &mut self.segs[(n - base) as usize];
            let (fresh, replica) = count(&mut s.dsacks, &mut s.replicas, s.tx_count);
            f(Dsacked {
                replica,
                tx_count: s.tx_count,
                tx_order: s.tx_order,
                loss_driven: s.is(LOSS_RETRANS),
                fresh,
            });
        }
    }

    /// Marks one segment lost (no effect if SACKED or already LOST).
    /// Returns true when the mark is new.
    pub fn mark_lost(&mut self, seg_no: u64) -> bool {
        let Some(i) = seg_no.checked_sub(self.base) else {
            return false;
        };
        let Some(s) = self.segs.get_mut(i as usize) else {
            return false;
        };
        if s.flags & (SACKED | LOST) != 0 {
            return false;
        }
        s.flags |= LOST;
        self.lost_out += 1;
        if !s.is(RETRANS) {
            self.to_retransmit.insert(seg_no);
        }
        true
    }

    /// Declares the in-flight retransmission of a LOST segment lost too, so
    /// that it is retransmitted again (lost-retransmission detection).
    pub fn mark_retransmission_lost(&mut self, seg_no: u64) -> bool {
        let Some(s) = seg_no
            .checked_sub(self.base)
            .and_then(|i| self.segs.get_mut(i as usize))
        else {
            return false;
        };
        if !s.is(RETRANS) || s.is(SACKED) {
            return false;
        }
        s.flags &= !RETRANS;
        self.retrans_out -= 1;
        self.rtx_in_flight.remove(&s.tx_order);
        if !s.is(LOST) {
            s.flags |= LOST;
            self.lost_out += 1;
        }
        self.to_retransmit.insert(seg_no);
        true
    }

    /// Lost-retransmission detection (Linux tcp_mark_lost_retrans(), PRR
    /// paper section 3.2): every retransmission in flight that was sent
    /// before transmission `tx_order`, which has been delivered, is lost and
    /// goes back to the retransmission queue. Returns how many.
    pub fn mark_retransmissions_lost_before(
        &mut self,
        tx_order: u64,
        mut on_mark: impl FnMut(u64, &SegMeta),
    ) -> u64 {
        let mut marked = 0;
        while let Some((o, n)) = self.oldest_retransmission_in_flight() {
            if o >= tx_order {
                break;
            }
            let done = self.mark_retransmission_lost(n);
            debug_assert!(done, "segment {n} in the in-flight map without RETRANS");
            marked += 1;
            on_mark(n, &self.segs[(n - self.base) as usize]);
        }
        marked
    }

    /// Marks every not-yet-considered, un-SACKed segment below `end` lost
    /// (detectors whose losses form a prefix, like RFC 6675 IsLost).
    /// Amortised O(1) per segment: each is visited once. `on_mark` sees
    /// each newly marked segment.
    pub fn mark_lost_below(&mut self, end: u64, mut on_mark: impl FnMut(u64, &SegMeta)) -> u64 {
        let end = end.min(self.next_seg_no());
        let mut n = self.lost_scan.max(self.base);
        let mut marked = 0;
        while n < end {
            let past = self.skip_sacked(n);
            if past != n {
                n = past;
                continue;
            }
            if self.mark_lost(n) {
                marked += 1;
                on_mark(n, &self.segs[(n - self.base) as usize]);
            }
            n += 1;
        }
        // `n` is past `end` when the walk ended over a SACKed run: the
        // next call starts at the run's end instead of searching it again.
        // With FACK that is every ACK's case, `end` lying in the highest
        // run (issue 33).
        self.lost_scan = self.lost_scan.max(n).max(end);
        marked
    }

    /// After an RTO (RFC 6675 section 5.1): every un-SACKed segment is
    /// lost and no retransmission is counted in flight any more. Linux
    /// tcp_enter_loss() does the same; SACKed bits are kept because our
    /// receiver never reneges.
    pub fn mark_all_lost(&mut self) {
        for n in self.base..self.next_seg_no() {
            self.mark_lost_on_rto(n);
        }
        self.lost_scan = self.next_seg_no();
    }

    /// An RTO declares segment `seg_no` lost, its retransmission in flight
    /// included (RFC 6675 section 5.1; Linux tcp_timeout_mark_lost()).
    /// SACKed segments stay SACKed.
    pub fn mark_lost_on_rto(&mut self, seg_no: u64) {
        let Some(i) = seg_no.checked_sub(self.base) else {
            return;
        };
        let Some(s) = self.segs.get_mut(i as usize) else {
            return;
        };
        if s.is(SACKED) {
            return;
        }
        if s.is(RETRANS) {
            s.flags &= !RETRANS;
            self.retrans_out -= 1;
            self.rtx_in_flight.remove(&s.tx_order);
        }
        if !s.is(LOST) {
            s.flags |= LOST;
            self.lost_out += 1;
        }
        s.flags |= RTO_LOST;
        self.to_retransmit.insert(seg_no);
    }

    /// An undone RTO (F-RTO found it spurious): nothing is lost after all.
    /// Linux tcp_undo_cwnd_reduction(sk, unmark_loss = true).
    pub fn unmark_lost(&mut self) {
        for s in self.segs.iter_mut() {
            if s.is(LOST) {
                s.flags &= !(LOST | RTO_LOST);
                self.lost_out -= 1;
            }
        }
        self.to_retransmit.clear();
        self.lost_scan = self.base;
        self.unfilled_hint.set(self.base);
    }

    /// First segment above `after` (exclusive) and below `below` that is
    /// neither SACKed, LOST nor being retransmitted: RFC 6675 NextSeg()
    /// rule 3's candidate.
    pub fn first_unsacked_unlost(&self, after: Option<u64>, below: u64) -> Option<u64> {
        let from = after.map_or(self.base, |a| a + 1).max(self.base);
        let hint = self.unfilled_hint.get().max(self.base);
        let mut n = from.max(hint);
        let found = loop {
            if n >= below {
                break None;
            }
            let past = self.skip_sacked(n);
            if past != n {
                n = past;
                continue;
            }
            let Some(s) = self.get(n) else {
                break None;
            };
            if s.flags & (LOST | RETRANS) == 0 {
                break Some(n);
            }
            n += 1;
        };
        // [from, n) held no candidate; when it touches [base, hint) the
        // clean prefix now reaches n.
        if from <= hint {
            self.unfilled_hint.set(n.min(self.next_seg_no()));
        }
        found
    }

    /// Checks the counters against a full recount (tests and debug builds).
    ///
    /// One walk: the board, the SACKed runs and the retransmit queue are
    /// all in segment order, so each segment's membership is read off the
    /// two cursors instead of searched for (the searches were four fifths
    /// of a test build's time on a 170-segment window).
    pub fn check_invariants(&self) -> Result<(), String> {
        let (mut sacked, mut lost, mut rtx) = (0, 0, 0);
        let mut runs = self.sacked.iter().peekable();
        let mut queue = self.to_retransmit.iter().copied().peekable();
        for (n, s) in self.iter() {
            while runs.next_if(|r| r.end <= n).is_some() {}
            let in_runs = runs.peek().is_some_and(|r| r.start <= n);
            while queue.next_if(|&q| q < n).is_some() {}
            let waiting = queue.peek() == Some(&n);
            if n < self.unfilled_hint.get() && s.flags & (SACKED | LOST | RETRANS) == 0 {
                return Err(format!(
                    "segment {n}: a first_unsacked_unlost candidate below the hint {}",
                    self.unfilled_hint.get()
                ));
            }
            if s.is(SACKED) != in_runs {
                return Err(format!(
                    "segment {n}: SACKED flag disagrees with the run set"
                ));
            }
            if s.is(SACKED) {
                sacked += 1;
                if s.flags & (LOST | RETRANS) != 0 {
                    return Err(format!("segment {n}: SACKED and LOST/RETRANS"));
                }
            }
            if s.is(LOST) {
                lost += 1;
            }
            if s.is(RETRANS) {
                rtx += 1;
            }
            if waiting != (s.is(LOST) && !s.is(RETRANS)) {
                return Err(format!(
                    "segment {n}: retransmit queue disagrees (flags {:#x})",
                    s.flags
                ));
            }
        }
        if self.sacked.total() != sacked {
            return Err("run set covers segments that are not on the board".into());
        }
        if self.rtx_in_flight.len() as u64 != rtx {
            return Err(format!(
                "{} retransmissions in the in-flight map, {rtx} segments RETRANS",
                self.rtx_in_flight.len()
            ));
        }
        for (o, n) in self.rtx_in_flight.iter() {
            match self.get(n) {
                Some(s) if s.is(RETRANS) && s.tx_order == o => {}
                _ => return Err(format!("in-flight map entry {o} -> segment {n} is stale")),
            }
        }
        if self.fack > self.next_seg_no() {
            return Err(format!("fack {} beyond the last segment", self.fack));
        }
        if (sacked, lost, rtx) != (self.sacked_out, self.lost_out, self.retrans_out) {
            return Err(format!(
                "counters {:?} != recount {:?}",
                (self.sacked_out, self.lost_out, self.retrans_out),
                (sacked, lost, rtx)
            ));
        }
        Ok(())
    }
}

/// The retransmissions in flight, (transmission order, segment number),
/// in increasing transmission order: an ordered map. The orders come from
/// the sender's one counter, which only grows, so an insert is at the back
/// and the retransmissions that leave flight (SACKed, acknowledged,
/// declared lost) are mostly the oldest ones, at the front: a sorted
/// double-ended queue does both in O(1) and any other change by moving the
/// shorter side. A `BTreeMap` cost about 500 instructions an insert, 5% of
/// a 3%-loss OR3 run (issue 33).
#[derive(Clone, Debug, Default)]
struct InFlightRetransmissions {
    q: VecDeque<(u64, u64)>,
}

impl InFlightRetransmissions {
    fn len(&self) -> usize {
        self.q.len()
    }

    fn first(&self) -> Option<(u64, u64)> {
        self.q.front().copied()
    }

    /// The entry with the highest order below `order`.
    fn latest_before(&self, order: u64) -> Option<(u64, u64)> {
        let i = self.q.partition_point(|&(o, _)| o < order);
        i.checked_sub(1).map(|i| self.q[i])
    }

    /// Records `order -> seg_no`, replacing the segment of an order held.
    fn insert(&mut self, order: u64, seg_no: u64) {
        if self.q.back().is_none_or(|&(o, _)| o < order) {
            self.q.push_back((order, seg_no));
            return;
        }
        match self.q.binary_search_by_key(&order, |&(o, _)| o) {
            Ok(i) => self.q[i].1 = seg_no,
            Err(i) => self.q.insert(i, (order, seg_no)),
        }
    }

    /// Forgets `order`, if held.
    fn remove(&mut self, order: &u64) {
        if self.q.front().is_some_and(|&(o, _)| o == *order) {
            self.q.pop_front();
        } else if let Ok(i) = self.q.binary_search_by_key(order, |&(o, _)| o) {
            self.q.remove(i);
        }
    }

    fn iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.q.iter().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// A board with `n` 1000-byte segments sent.
    pub(crate) fn board(n: u64) -> Scoreboard {
        let mut b = Scoreboard::new();
        for i in 0..n {
            b.push_new(i * MSS, MSS as u32, 0, i);
        }
        b
    }

    fn sack(b: &mut Scoreboard, lo: u64, hi: u64) -> u64 {
        b.on_sack_block(Range::new(lo * MSS, hi * MSS))
    }

    #[test]
    fn pipe_follows_rfc6675_setpipe() {
        let mut b = board(10);
        assert_eq!(b.pipe(), 10);
        // Segments 2..5 SACKed: pipe drops by 3.
        assert_eq!(sack(&mut b, 2, 5), 3);
        assert_eq!(b.pipe(), 7);
        // Repeating the block changes nothing.
        assert_eq!(sack(&mut b, 2, 5), 0);
        // Marking 0 and 1 lost removes them from pipe (IsLost octets).
        b.mark_lost_below(2, |_, _| {});
        assert_eq!(b.lost_out(), 2);
        assert_eq!(b.pipe(), 5);
        // Retransmitting one adds it back (SetPipe rule (b)).
        assert_eq!(b.next_to_retransmit(), Some(0));
        b.on_retransmit(0, 1, 10);
        assert_eq!(b.pipe(), 6);
        assert_eq!(b.next_to_retransmit(), Some(1));
        b.check_invariants().unwrap();
        // Cumulative ACK of 0..5 (the retransmission arrived).
        let c = b.on_cum_ack(5 * MSS);
        assert_eq!(c.segments, 5);
        assert_eq!(c.newly_delivered, 2);
        assert!(c.any_retransmitted);
        assert_eq!((b.sacked_out(), b.lost_out(), b.retrans_out()), (0, 0, 0));
        assert_eq!(b.pipe(), 5);
        b.check_invariants().unwrap();
    }

    /// The recount's walk notices a SACKed run or a queued retransmission
    /// the flags do not show, and the reverse, wherever on the board
    /// (first, middle and last segment, between and beyond other runs).
    #[test]
    fn the_recount_finds_each_disagreement() {
        let fresh = || {
            let mut b = board(12);
            sack(&mut b, 2, 4);
            sack(&mut b, 7, 9);
            b.mark_lost(5);
            b.mark_lost(10);
            b.check_invariants().unwrap();
            b
        };
        for n in [0, 4, 5, 6, 9, 11] {
            let mut b = fresh();
            let flags = b.segs[n as usize].flags;
            b.segs[n as usize].flags = flags ^ SACKED;
            let e = b.check_invariants().unwrap_err();
            assert!(e.contains(&format!("segment {n}")), "{n}: {e}");
        }
        for n in [0, 4, 6, 11] {
            let mut b = fresh();
            b.sacked.insert_with(n, n + 1, |_, _| {});
            let e = b.check_invariants().unwrap_err();
            assert!(e.contains(&format!("segment {n}: SACKED flag")), "{n}: {e}");
        }
        for n in [0, 6, 11] {
            let mut b = fresh();
            b.to_retransmit.insert(n);
            let e = b.check_invariants().unwrap_err();
            assert!(
                e.contains(&format!("segment {n}: retransmit queue")),
                "{n}: {e}"
            );
        }
        for n in [5, 10] {
            let mut b = fresh();
            b.to_retransmit.remove(&n);
            let e = b.check_invariants().unwrap_err();
            assert!(
                e.contains(&format!("segment {n}: retransmit queue")),
                "{n}: {e}"
            );
        }
    }

    #[test]
    fn an_ack_inside_a_segment_trims_it() {
        let mut b = board(3);
        let c = b.on_cum_ack(1500);
        assert_eq!((c.segments, c.bytes), (1, 1500));
        let s = b.first().unwrap();
        assert_eq!((s.seq, s.len, b.base()), (1500, 500, 1));
        assert_eq!(b.pipe(), 2);
        b.check_invariants().unwrap();
    }

    #[test]
    fn partial_block_edges_only_count_whole_segments() {
        let mut b = board(5);
        // A block that covers half of segment 1 and all of 2 and 3.
        assert_eq!(b.on_sack_block(Range::new(1500, 4000)), 2);
        assert!(b.is_sacked(2) && b.is_sacked(3) && !b.is_sacked(1));
        b.check_invariants().unwrap();
    }

    #[test]
    fn sack_of_a_retransmitted_segment_clears_retrans() {
        let mut b = board(4);
        sack(&mut b, 1, 4);
        b.mark_lost(0);
        b.on_retransmit(0, 5, 9);
        assert_eq!(b.retrans_out(), 1);
        sack(&mut b, 0, 1);
        assert_eq!((b.retrans_out(), b.lost_out(), b.sacked_out()), (0, 0, 4));
        assert_eq!(b.pipe(), 0);
        b.check_invariants().unwrap();
    }

    #[test]
    fn rto_marks_everything_unsacked_lost() {
        let mut b = board(6);
        sack(&mut b, 3, 4);
        b.mark_lost(0);
        b.on_retransmit(0, 1, 7);
        b.mark_all_lost();
        assert_eq!(b.lost_out(), 5);
        assert_eq!(b.retrans_out(), 0);
        assert_eq!(b.pipe(), 0);
        assert_eq!(b.next_to_retransmit(), Some(0));
        b.check_invariants().unwrap();
    }

    #[test]
    fn rule3_candidate_skips_sacked_and_lost() {
        let mut b = board(10);
        sack(&mut b, 1, 3);
        sack(&mut b, 6, 8);
        b.mark_lost(0);
        assert_eq!(b.first_unsacked_unlost(None, 8), Some(3));
        assert_eq!(b.first_unsacked_unlost(Some(3), 8), Some(4));
        assert_eq!(b.first_unsacked_unlost(Some(5), 8), None);
        assert_eq!(b.highest_sacked_end(), Some(8));
    }

    #[test]
    fn delivered_summarises_what_one_ack_newly_delivered() {
        let mut b = board(10);
        b.mark_lost(2);
        b.on_retransmit(2, 50, 20);
        b.begin_ack();
        sack(&mut b, 4, 6);
        sack(&mut b, 2, 3);
        b.on_cum_ack(2 * MSS);
        let d = *b.delivered();
        assert_eq!(d.segments, 5);
        assert_eq!(d.lowest_original, Some(0));
        assert_eq!(
            d.latest_original.map(|o| (o.seg_no, o.tx_order)),
            Some((5, 5))
        );
        let r = b.delivered_retransmitted().latest().unwrap();
        assert_eq!((r.seg_no, r.tx_order, r.sent), (2, 20, 50));
        assert_eq!(b.fack(), 6);
        // A repeated block delivers nothing new.
        b.begin_ack();
        sack(&mut b, 4, 6);
        assert_eq!(*b.delivered(), Delivered::default());
        // The cumulative ACK moves FACK too.
        b.on_cum_ack(8 * MSS);
        assert_eq!(b.fack(), 8);
        b.check_invariants().unwrap();
    }

    #[test]
    fn delivered_keeps_the_send_times_linux_times_rtts_from() {
        // Segment i sent at 10 i ns; segment 3 retransmitted at 95.
        let mut b = Scoreboard::new();
        for i in 0..10 {
            b.push_new(i * MSS, MSS as u32, 10 * i, i);
        }
        b.mark_lost(3);
        b.on_retransmit(3, 95, 10);
        // SACK 1 before this ACK: the cumulative part will not count it.
        sack(&mut b, 1, 2);
        b.begin_ack();
        // Blocks out of order: 7..9 (sent 70, 80), then 3..5 (3 was
        // retransmitted and does not count; 4 sent at 40). first_sackt =
        // 40, last_sackt = 80.
        sack(&mut b, 7, 9);
        sack(&mut b, 3, 5);
        // Cumulative ACK of 0..3: 0 (sent 0) and 2 (sent 20) newly
        // delivered, 1 SACKed before. first_ackt = 0, last_ackt = 20.
        b.on_cum_ack(3 * MSS);
        let d = *b.delivered();
        assert_eq!(d.cum_original_sent, Some((0, 20)));
        assert_eq!(d.sacked_original_sent, Some((40, 80)));
        // Linux 3.x's span also holds 1 (sent 10, SACKed before): still
        // oldest 0 and newest 20.
        assert_eq!(d.cum_acked_original_sent, Some((0, 20)));
        // A cumulative ACK of 3 and 4 (SACKed on the ACK before) and of 5,
        // retransmitted: nothing sent once is newly delivered.
        b.mark_lost(5);
        b.on_retransmit(5, 99, 11);
        b.begin_ack();
        b.on_cum_ack(6 * MSS);
        assert_eq!(b.delivered().segments, 1);
        assert_eq!(b.delivered().cum_original_sent, None);
        assert_eq!(b.delivered().sacked_original_sent, None);
        // 4 (sent 40) was SACKed before and sent once: Linux 3.x times it
        // (3 and 5 were retransmitted and do not count).
        assert_eq!(b.delivered().cum_acked_original_sent, Some((40, 40)));
    }

    #[test]
    fn retransmissions_in_flight_are_ordered_by_transmission() {
        let mut b = board(10);
        for (n, order) in [(3, 12), (1, 11), (5, 13)] {
            b.mark_lost(n);
            b.on_retransmit(n, 1, order);
        }
        assert_eq!(b.oldest_retransmission_in_flight(), Some((11, 1)));
        // A SACK of segment 1 takes its retransmission out of flight.
        sack(&mut b, 1, 2);
        assert_eq!(b.oldest_retransmission_in_flight(), Some((12, 3)));
        b.check_invariants().unwrap();
        // Everything sent before transmission 13 that has not arrived is
        // lost: segment 3's retransmission, not segment 5's.
        let mut marked = vec![];
        assert_eq!(
            b.mark_retransmissions_lost_before(13, |n, _| marked.push(n)),
            1
        );
        assert_eq!(marked, vec![3]);
        assert_eq!(b.next_to_retransmit(), Some(3));
        assert_eq!(b.oldest_retransmission_in_flight(), Some((13, 5)));
        b.check_invariants().unwrap();
        b.mark_all_lost();
        assert_eq!(b.oldest_retransmission_in_flight(), None);
        b.check_invariants().unwrap();
    }

    #[test]
    fn dsacks_are_matched_on_the_board_and_below_it() {
        let mut b = board(10);
        b.mark_lost(0);
        b.on_retransmit(0, 1, 20);
        b.mark_lost(5);
        b.on_retransmit(5, 1, 21);
        b.on_cum_ack(3 * MSS);
        sack(&mut b, 5, 6);
        let mut seen = vec![];
        // Segment 0, already acknowledged, reported twice (a duplicated
        // ACK): it was sent twice, so only one report counts.
        for _ in 0..2 {
            b.on_dsack_block(Range::new(0, MSS), |d| seen.push(d));
        }
        // Segment 5, SACKed on the board; segment 1 was sent once.
        b.on_dsack_block(Range::new(5 * MSS, 6 * MSS), |d| seen.push(d));
        b.on_dsack_block(Range::new(MSS, 2 * MSS), |d| seen.push(d));
        let fresh: Vec<(u32, u64, bool)> = seen
            .iter()
            .map(|d| (d.tx_count, d.tx_order, d.fresh))
            .collect();
        assert_eq!(fresh, vec![(2, 20, true), (2, 20, false), (2, 21, true)]);
        assert!(seen.iter().all(|d| d.loss_driven));
    }

    #[test]
    fn only_retransmissions_of_segments_marked_lost_are_loss_driven() {
        let mut b = board(10);
        // NextSeg() rule 3: retransmitted without a loss mark.
        b.on_retransmit(1, 1, 20);
        // A detector's mark.
        b.mark_lost(2);
        b.on_retransmit(2, 1, 21);
        assert!(!b.get(1).unwrap().is(LOSS_RETRANS));
        assert!(b.get(2).unwrap().is(LOSS_RETRANS));
        // After an RTO, retransmissions are timer-driven.
        b.mark_all_lost();
        b.on_retransmit(3, 2, 22);
        assert!(!b.get(3).unwrap().is(LOSS_RETRANS));
        // The flag survives a SACK (a DSACK may follow it).
        sack(&mut b, 2, 3);
        assert!(b.get(2).unwrap().is(LOSS_RETRANS));
        b.check_invariants().unwrap();
    }

    proptest::proptest! {
        /// The guessed index never changes the answer: boards of mixed
        /// segment sizes, a first segment trimmed by a partial ACK, and
        /// blocks anywhere (below, inside, beyond the board).
        #[test]
        fn segs_within_matches_a_full_search(
            lens in proptest::collection::vec(proptest::prop_oneof![9 => proptest::strategy::Just(1000u32), 1 => 1u32..2000], 0..40),
            trim in 0u64..1500,
            blocks in proptest::collection::vec((0u64..45_000, 0u64..5000), 1..20),
        ) {
            let mut b = Scoreboard::new();
            let mut seq = 0;
            for (i, &l) in lens.iter().enumerate() {
                b.push_new(seq, l, 0, i as u64);
                seq += u64::from(l);
            }
            b.on_cum_ack(trim.min(seq));
            for (start, l) in blocks {
                let r = Range::new(start, start + l);
                let lo = b.segs.partition_point(|s| s.seq < r.start) as u64 + b.base;
                let hi = (b.segs.partition_point(|s| s.end() <= r.end) as u64 + b.base).max(lo);
                proptest::prop_assert_eq!(b.segs_within(r), (lo, hi));
            }
        }
    }

    proptest::proptest! {
        /// Repeated and overlapping blocks, with cumulative ACKs (whole or
        /// inside a segment) between them and new segments sent: each
        /// block newly SACKs exactly the whole segments inside it that were
        /// not SACKed before, whether or not the recent-blocks shortcut
        /// answers.
        #[test]
        fn sack_blocks_count_what_they_newly_cover(
            ops in proptest::collection::vec((0u8..4, 0u64..70_000, 0u64..8_000), 1..80),
        ) {
            let mut b = board(40);
            let mut seen: Vec<Range> = vec![];
            for (kind, at, l) in ops {
                let r = match kind {
                    0 => {
                        b.on_cum_ack(at.max(b.first().map_or(0, |s| s.seq)));
                        continue;
                    }
                    1 => {
                        let n = b.next_seg_no();
                        b.push_new(n * MSS, MSS as u32, 0, n);
                        continue;
                    }
                    2 if !seen.is_empty() => seen[at as usize % seen.len()],
                    _ => Range::new(at, at + l),
                };
                seen.push(r);
                let (lo, hi) = b.segs_within(r);
                let fresh = (lo..hi).filter(|&n| !b.is_sacked(n)).count() as u64;
                proptest::prop_assert_eq!(b.on_sack_block(r), fresh);
                for n in lo..hi {
                    proptest::prop_assert!(b.is_sacked(n));
                }
                b.check_invariants().unwrap();
            }
        }
    }

    /// One generated change to the board other than a loss walk (the
    /// property tests' kind 2, which each test makes its own way): a
    /// cumulative ACK (0, whole or inside a segment), a new segment (1)
    /// or a SACK block (3 and 4).
    fn change(b: &mut Scoreboard, kind: u8, at: u64, l: u64) {
        match kind {
            0 => {
                b.on_cum_ack(at.max(b.first().map_or(0, |s| s.seq)));
            }
            1 => {
                let n = b.next_seg_no();
                b.push_new(n * MSS, MSS as u32, 0, n);
            }
            _ => {
                b.on_sack_block(Range::new(at, at + l));
            }
        }
    }

    proptest::proptest! {
        /// `skip_sacked`, which reads the segment's SACKED flag first,
        /// answers as the run set does (the next run ending above `n`,
        /// when it starts at or below `n`), on and off the board, after
        /// SACK blocks, cumulative ACKs (whole or inside a segment), new
        /// segments and losses.
        #[test]
        fn skip_sacked_matches_the_run_set(
            ops in proptest::collection::vec((0u8..5, 0u64..70_000, 0u64..8_000), 1..80),
        ) {
            let mut b = board(40);
            for (kind, at, l) in ops {
                if kind == 2 {
                    b.mark_lost_below(b.base() + at % 50, |_, _| {});
                } else {
                    change(&mut b, kind, at, l);
                }
                for n in b.base().saturating_sub(2)..b.next_seg_no() + 2 {
                    let by_runs = b
                        .sacked_runs()
                        .next_at_or_after(n)
                        .filter(|r| r.start <= n)
                        .map_or(n, |r| r.end);
                    proptest::prop_assert_eq!(b.skip_sacked(n), by_runs, "segment {}", n);
                }
                b.check_invariants().unwrap();
            }
        }
    }

    proptest::proptest! {
        /// The in-flight retransmissions' queue against a `BTreeMap`
        /// doing the same inserts (at the back, as the sender's growing
        /// transmission order makes them, and anywhere) and removals (at
        /// the front, anywhere, and of orders not held), with the same
        /// answers to every query.
        #[test]
        fn in_flight_retransmissions_match_a_btree_map(
            ops in proptest::collection::vec((0u8..8, 0u64..400, 0u64..1000), 1..300),
        ) {
            let mut q = InFlightRetransmissions::default();
            let mut m = std::collections::BTreeMap::<u64, u64>::new();
            let mut next = 0u64;
            for (op, at, seg) in ops {
                match op {
                    0..=2 => {
                        next += 1 + at % 3;
                        q.insert(next, seg);
                        m.insert(next, seg);
                    }
                    3 => {
                        q.insert(at, seg);
                        m.insert(at, seg);
                    }
                    4 | 5 => {
                        let o = m.keys().next().copied().unwrap_or(at);
                        q.remove(&o);
                        m.remove(&o);
                    }
                    _ => {
                        q.remove(&at);
                        m.remove(&at);
                    }
                }
                proptest::prop_assert_eq!(q.len(), m.len());
                proptest::prop_assert_eq!(q.first(), m.first_key_value().map(|(&o, &n)| (o, n)));
                for o in [at, next, next + 1, 0] {
                    proptest::prop_assert_eq!(
                        q.latest_before(o),
                        m.range(..o).next_back().map(|(&o, &n)| (o, n))
                    );
                }
                proptest::prop_assert_eq!(
                    q.iter().collect::<Vec<_>>(),
                    m.iter().map(|(&o, &n)| (o, n)).collect::<Vec<_>>()
                );
            }
        }
    }

    proptest::proptest! {
        /// `mark_lost_below` marks exactly the segments below `end` that no
        /// earlier call reached and that are neither SACKed nor lost, also
        /// when an earlier walk ended over a SACKed run past its `end`
        /// (which it then does not walk again), under SACK blocks,
        /// cumulative ACKs and new segments.
        #[test]
        fn mark_lost_below_marks_what_no_earlier_call_reached(
            ops in proptest::collection::vec((0u8..5, 0u64..70_000, 0u64..8_000), 1..80),
        ) {
            let mut b = board(40);
            let mut reached = 0u64;
            for (kind, at, l) in ops {
                if kind == 2 {
                    // A call reaches no further than the last segment.
                    let end = (b.base() + at % 50).min(b.next_seg_no());
                    let expected: Vec<u64> = (reached.max(b.base())..end)
                        .filter(|&n| b.get(n).is_some_and(|s| s.flags & (SACKED | LOST) == 0))
                        .collect();
                    let mut marked = vec![];
                    b.mark_lost_below(end, |n, _| marked.push(n));
                    proptest::prop_assert_eq!(marked, expected);
                    reached = reached.max(end);
                } else {
                    change(&mut b, kind, at, l);
                }
                b.check_invariants().unwrap();
            }
        }
    }

    #[test]
    fn lost_retransmission_goes_back_to_the_queue() {
        let mut b = board(3);
        b.mark_lost(0);
        b.on_retransmit(0, 1, 3);
        assert_eq!(b.next_to_retransmit(), None);
        assert!(b.mark_retransmission_lost(0));
        assert_eq!(b.next_to_retransmit(), Some(0));
        assert_eq!(b.pipe(), 2);
        b.check_invariants().unwrap();
    }
}
