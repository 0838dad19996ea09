//! The data receiver: reassembly, receive buffer and window, ACK policy,
//! SACK/DSACK generation and timestamp echo.
//!
//! Sans-IO like the rest of the engine: the caller hands segments in with
//! `on_segment`, drains ACKs with `poll_transmit`, and calls `on_timeout`
//! at the time `poll_timeout` names.
//!
//! ACKs are built when the decision to send them is taken (in
//! `on_segment` / `on_timeout`) and queued. Building early keeps every
//! immediate-ACK trigger a distinct ACK even when several segments arrive
//! between two `poll_transmit` calls: a sender counts duplicate ACKs, so
//! collapsing them would change its loss detection.
//!
//! The connection is taken as established with the initial window (the
//! whole receive buffer, or `window_clamp` of it) already advertised,
//! and the first data byte at sequence 0.

use std::collections::VecDeque;

use crate::autotune::{win_from_space, Drs, TCP_RMEM_DEFAULT};
use crate::config::{AckMode, ReceiverConfig};
use crate::event::{Event, EventLog, Timed};
use crate::seqset::SeqSet;
use crate::time::{earliest, Time, SEC};
use crate::wire::{Ack, Range, SackBlocks, Segment, MAX_SACK_BLOCKS};

/// Counters a run reports at the end.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    /// Every segment handed to `on_segment`, zero-length ones included.
    pub segments_received: u64,
    /// Segments whose every byte had been received before.
    pub duplicate_segments: u64,
    pub acks_sent: u64,
    /// ACKs whose first block was a DSACK block.
    pub dsacks_sent: u64,
    /// Bytes the application has consumed, as of the last call that took a
    /// `now` (reading is computed lazily).
    pub bytes_read: u64,
    /// Segments that lost some or all of their bytes for lying beyond the
    /// advertised right edge.
    pub out_of_window_drops: u64,
    /// Most bytes the receive buffer held, in order but unread plus out of
    /// order, as seen after each arriving segment.
    pub max_occupancy: u64,
    /// Why each out-of-window segment was discarded and how far past the
    /// right edge it reached (`DiscardLog`).
    pub discards: DiscardLog,
}

/// Why the window had not reached a discarded segment, from the
/// receiver's state when it arrived (OR3 paper section IV: opportunism
/// "overbook[s] the receiving buffer", betting that a retransmission
/// releases it in time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiscardReason {
    /// No hole at the head of the buffer: in-order data not yet read, or
    /// a right edge not yet re-advertised, held the space.
    NoHole,
    /// A hole at the head, and the segment would have fitted in one buffer
    /// from that hole: out-of-order (SACKed) data above the hole held the
    /// space.
    HeldAboveHole,
    /// A hole at the head, and the segment lay more than one buffer past
    /// it: only filling that hole (a retransmission lost or not yet
    /// arrived) would have moved the window far enough.
    HoleUnfilled,
}

/// Upper bounds (inclusive, in segments past the right edge) of
/// `DiscardLog::past`'s buckets; the last bucket is open.
pub const DISCARD_PAST_BOUNDS: [u64; 6] = [1, 3, 15, 63, 255, 1023];

/// Out-of-window discards, by reason and by distance past the window.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DiscardLog {
    pub no_hole: u64,
    pub held_above_hole: u64,
    pub hole_unfilled: u64,
    /// Discards by segments (MSS, rounded up) from the advertised right
    /// edge to the segment's end, bucketed by `DISCARD_PAST_BOUNDS`.
    pub past: [u64; 7],
    pub past_sum: u64,
    pub past_max: u64,
}

impl DiscardLog {
    pub fn total(&self) -> u64 {
        self.no_hole + self.held_above_hole + self.hole_unfilled
    }

    fn record(&mut self, reason: DiscardReason, past: u64) {
        match reason {
            DiscardReason::NoHole => self.no_hole += 1,
            DiscardReason::HeldAboveHole => self.held_above_hole += 1,
            DiscardReason::HoleUnfilled => self.hole_unfilled += 1,
        }
        let i = DISCARD_PAST_BOUNDS
            .iter()
            .position(|&b| past <= b)
            .unwrap_or(DISCARD_PAST_BOUNDS.len());
        self.past[i] += 1;
        self.past_sum = self.past_sum.saturating_add(past);
        self.past_max = self.past_max.max(past);
    }
}

/// What `on_segment` decided about the arrival, for the ACK policy.
#[derive(Clone, Copy, PartialEq, Eq)]
enum AckNeed {
    /// Normal in-order data: the delayed-ACK rules apply.
    Delayed,
    /// Out of order, gap fill, duplicate, out of window, zero length.
    Immediate,
}

pub struct Receiver {
    cfg: ReceiverConfig,
    /// `cfg.sack_blocks` clamped to what an ACK can carry.
    sack_limit: usize,
    /// RFC 1122 4.2.3.3 threshold min(Fr * RCV.BUFF, MSS) with Fr = 1/2,
    /// at least 1 so a degenerate config still makes progress. RCV.BUFF is
    /// the buffer the window can offer, `window_buf()`: with a clamp the
    /// rest of the buffer never shows in the window, so it must not make
    /// the threshold larger than the window can ever open.
    sws_thresh: u64,
    /// How far the right edge must be able to move before an unsolicited
    /// window update is worth an ACK when the window is not small.
    update_thresh: u64,

    rcv_nxt: u64,
    /// Received bytes above `rcv_nxt`; every run starts above `rcv_nxt`.
    ooo: SeqSet,
    /// Most recently created or extended out-of-order blocks, most recent
    /// first (RFC 2018 section 4). Entries may go stale when `rcv_nxt`
    /// passes them; they are revalidated against `ooo` when an ACK is built.
    recent: [Range; MAX_SACK_BLOCKS],
    /// How many of `recent` (and `recent_pos`) hold blocks; the rest are
    /// leftovers, never read.
    recent_len: usize,
    /// Where each of `recent` was last found in `ooo` (`containing_near`):
    /// with thousands of holes, searching the runs for every block of
    /// every ACK was a large part of a run's time, and between two ACKs
    /// these runs rarely move by more than one place.
    recent_pos: [u64; MAX_SACK_BLOCKS],
    /// Every entry of `recent` is a run of `ooo` exactly (what the
    /// revalidation in `fill_sack` leaves). An out-of-order insert keeps
    /// that true (`note_recent` puts the run it made first and drops the
    /// runs it swallowed; every other run is untouched), so the next ACK
    /// can send the list as it stands; only moving `rcv_nxt` over the
    /// runs, which removes some, breaks it.
    recent_exact: bool,
    /// Duplicate range to report in the next ACK (RFC 2883).
    pending_dsack: Option<Range>,

    /// Bytes the application has consumed; `rcv_nxt - read_pos` are held
    /// in order but unread.
    read_pos: u64,
    /// Time up to which reading has been accounted.
    read_time: Time,
    /// Reading credit carried between calls, in byte-nanoseconds (always
    /// below one byte's worth, `SEC`), so that the floor division of each
    /// call loses nothing over many calls.
    read_frac: u64,
    /// With `read_delay`: how far the application may read (`read_pos <=
    /// readable <= rcv_nxt`), and the in-order edges still waiting to
    /// become readable, (time, rcv_nxt), in time order. Each edge is
    /// pushed and popped once, so this costs O(1) per arrival.
    readable: u64,
    marks: VecDeque<(Time, u64)>,

    /// Right edge (ack + window) of the last advertisement; never decreases.
    adv_right: u64,
    /// Last.ACK.sent of RFC 7323 section 4.3.
    last_ack_sent: u64,
    /// TS.Recent of RFC 7323 section 4.3.
    ts_recent: Time,

    /// Full-sized in-order segments received since the last ACK.
    unacked_full: u32,
    delack_deadline: Option<Time>,

    acks: VecDeque<Ack>,
    /// The connection this side opens (the data sender accepts it).
    connect: Option<Connect>,
    /// Linux's delayed-ACK state (when `cfg.linux_delack`).
    delack: LinuxDelack,
    /// Linux's tp->rcv_ssthresh when `cfg.grow_window`: the most the
    /// advertised window may offer, opened by `grow_window()`.
    rcv_ssthresh: Option<u64>,
    /// Receive-buffer autotuning when `cfg.autotune` (autotune.rs): the
    /// buffer's window and window_clamp, grown as the application reads.
    drs: Option<Drs>,
    /// When this side sent its SYN-ACK or SYN (its RTT sample's start).
    syn_sent_at: Option<Time>,
    /// Transmission order of the last data segment that arrived: the one
    /// that triggers the next ACK, echoed when `cfg.echo_order` (LE).
    last_order: u64,
    /// Receive-buffer starvation (`starvation_at`): closed periods summed,
    /// and when the open one began.
    starved: Time,
    starved_since: Option<Time>,
    stats: ReceiverStats,
    log: EventLog,
}

/// Linux's delayed-ACK engine (net/ipv4/tcp_input.c tcp_event_data_recv(),
/// tcp_incr_quickack(); tcp_output.c tcp_send_delayed_ack()):
/// - the first data starts quick-ACK mode: every segment is acknowledged at
///   once, for min(rcv_wnd / (2 MSS), 16) ACKs (TCP_MAX_QUICKACKS; two
///   when the quotient is zero, never fewer than are pending), and so
///   again after a gap longer than the RTO;
/// - the delayed-ACK timeout `ato` starts at TCP_ATO_MIN (40 ms) and
///   follows the gaps m between data arrivals: m <= 20 ms gives ato/2 +
///   20 ms, m < ato gives min(ato/2 + m, RTO);
/// - the timer is armed for min(ato, max_ato), max_ato being 500 ms
///   (200 ms when this side also sends, "pingpong") and at most the RTT
///   when one is known (never below 40 ms).
///
/// This keeps a delayed ACK from racing the sender's RTO: it waits tens of
/// milliseconds on a bulk flow and less than an RTT on any flow.
#[derive(Clone, Copy, Debug, Default)]
struct LinuxDelack {
    ato: Time,
    quick: u64,
    last_data: Time,
    srtt: Option<Time>,
    pingpong: bool,
}

/// TCP_ATO_MIN and TCP_DELACK_MIN (HZ/25), TCP_DELACK_MAX (HZ/5).
const ATO_MIN: Time = 40 * crate::time::MS;
const DELACK_MAX: Time = 200 * crate::time::MS;
/// TCP_MAX_QUICKACKS.
const MAX_QUICKACKS: u64 = 16;

/// TCPOLEN_TSTAMP_ALIGNED: tp->advmss is the MSS option (MTU - 40), the
/// engine's `mss` the payload a segment with timestamps carries.
const TS_OPTION: u64 = 12;

/// The first window and rcv_ssthresh, net/ipv4/tcp_output.c
/// tcp_select_initial_window() as tcp_connect_init() and
/// tcp_openreq_init_rwin() call it: tcp_full_space() of the default
/// buffer, no larger than the clamp (here the buffer the engine's window
/// can offer at most), rounded down to whole segments; no initrwnd route
/// metric, so nothing smaller.
fn initial_rcv_ssthresh(cfg: &ReceiverConfig) -> u64 {
    let mss = u64::from(cfg.mss.max(1));
    let space = win_from_space(TCP_RMEM_DEFAULT).min(window_buf(cfg));
    if space > mss {
        space - space % mss
    } else {
        space
    }
}

impl LinuxDelack {
    /// The receiver's RTO as Linux would have it (TCP_RTO_MIN above the
    /// RTT; the 1 s initial RTO without one).
    fn rto(&self) -> Time {
        self.srtt
            .map_or(crate::time::SEC, |r| r + 200 * crate::time::MS)
    }

    /// `window_segments` is asked only where tcp_event_data_recv() calls
    /// tcp_incr_quickack(): its division, made for every segment before,
    /// held about 1% of a BBR flow's perf samples (issue 33).
    fn on_data(&mut self, now: Time, window_segments: impl FnOnce() -> u64) {
        // tcp_incr_quickack(): no quick ACKs from the window makes two, one
        // stays one; the count only ever grows here.
        let quickacks = || match window_segments() {
            0 => 2,
            q => q.min(MAX_QUICKACKS),
        };
        if self.ato == 0 {
            self.quick = self.quick.max(quickacks());
            self.ato = ATO_MIN;
        } else {
            let m = now.saturating_sub(self.last_data);
            if m <= ATO_MIN / 2 {
                self.ato = self.ato / 2 + ATO_MIN / 2;
            } else if m < self.ato {
                self.ato = (self.ato / 2 + m).min(self.rto());
            } else if m > self.rto() {
                self.quick = self.quick.max(quickacks());
            }
        }
        self.last_data = now;
    }

    /// An ACK owed now goes at once while quick ACKs remain.
    fn take_quick(&mut self) -> bool {
        if self.quick > 0 {
            self.quick -= 1;
            true
        } else {
            false
        }
    }

    fn timeout(&self) -> Time {
        let mut ato = self.ato.max(ATO_MIN);
        if ato > ATO_MIN {
            let mut max_ato = if self.pingpong {
                DELACK_MAX
            } else {
                500 * crate::time::MS
            };
            if let Some(r) = self.srtt {
                max_ato = max_ato.min(r.max(ATO_MIN));
            }
            ato = ato.min(max_ato);
        }
        ato
    }
}

/// The application's reading: how far it has read, up to when, and the
/// credit carried to the next call (`Receiver::read_until`).
#[derive(Clone, Copy)]
struct ReadCursor {
    pos: u64,
    time: Time,
    frac: u64,
}

impl ReadCursor {
    /// Reads at `rate` (None: at once) up to `now`, no further than `limit`.
    fn read_until(&mut self, now: Time, limit: u64, rate: Option<u64>) {
        let Some(rate) = rate else {
            self.pos = limit;
            return;
        };
        let dt = now.saturating_sub(self.time);
        self.time = self.time.max(now);
        let unread = limit - self.pos;
        // u128: dt * rate overflows u64 after ~18 s at 1 GB/s.
        let credit = u128::from(dt) * u128::from(rate) + u128::from(self.frac);
        let bytes = credit / u128::from(SEC);
        if bytes > u128::from(unread) {
            // The application drained the buffer and sat idle; idle time
            // earns no credit for data that arrives later.
            self.pos = limit;
            self.frac = 0;
        } else {
            self.pos += bytes as u64;
            self.frac = (credit % u128::from(SEC)) as u64;
        }
    }
}

/// The handshake of a receiver that connects.
#[derive(Clone, Copy, Debug)]
struct Connect {
    sent: u32,
    timer: Option<Time>,
    /// The SYN's retransmission timeout, doubled on each expiry.
    rto: Time,
    established: bool,
}

/// The buffer the window can offer: the whole receive buffer, or as much
/// of it as `window_clamp` lets through.
fn window_buf(cfg: &ReceiverConfig) -> u64 {
    cfg.window_clamp.map_or(cfg.rcvbuf, |c| cfg.rcvbuf.min(c))
}

impl Receiver {
    pub fn new(cfg: ReceiverConfig) -> Self {
        let mss = u64::from(cfg.mss);
        let window_buf = window_buf(&cfg);
        let half = window_buf / 2;
        let first_window = if cfg.grow_window {
            initial_rcv_ssthresh(&cfg)
        } else {
            window_buf
        };
        let drs = cfg
            .autotune
            .then(|| Drs::new(cfg.rcvbuf, cfg.mss, first_window));
        // tcp_init_buffer_space(): rcv_ssthresh = min(rcv_ssthresh,
        // window_clamp), and the window offered is at most the clamp.
        let autotune_clamp = |w: u64| drs.as_ref().map_or(w, |d| w.min(d.window_clamp()));
        Receiver {
            sack_limit: usize::from(cfg.sack_blocks).min(MAX_SACK_BLOCKS),
            sws_thresh: half.min(mss).max(1),
            update_thresh: half.min(mss.saturating_mul(2)).max(1),
            rcv_nxt: 0,
            ooo: SeqSet::new(),
            recent: [Range::default(); MAX_SACK_BLOCKS],
            recent_len: 0,
            recent_pos: [0; MAX_SACK_BLOCKS],
            recent_exact: true,
            pending_dsack: None,
            read_pos: 0,
            read_time: 0,
            read_frac: 0,
            readable: 0,
            marks: VecDeque::new(),
            adv_right: autotune_clamp(first_window),
            last_ack_sent: 0,
            ts_recent: 0,
            unacked_full: 0,
            delack_deadline: None,
            // Sized so the steady state (at most one or two queued ACKs)
            // never reallocates.
            acks: VecDeque::with_capacity(16),
            connect: None,
            delack: LinuxDelack::default(),
            rcv_ssthresh: cfg
                .grow_window
                .then(|| autotune_clamp(initial_rcv_ssthresh(&cfg))),
            drs,
            syn_sent_at: None,
            last_order: 0,
            starved: 0,
            starved_since: None,
            stats: ReceiverStats::default(),
            log: EventLog::default(),
            cfg,
        }
    }

    pub fn set_tracing(&mut self, on: bool) {
        self.log.set_enabled(on);
    }

    pub fn poll_event(&mut self) -> Option<Timed> {
        self.log.pop()
    }

    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    pub fn stats(&self) -> &ReceiverStats {
        &self.stats
    }

    /// This side opens the connection (a browser fetching from the data
    /// sender): a SYN now, retransmitted from RFC 6298's 1 s initial RTO
    /// with exponential backoff, at most `SYN_RETRIES` times.
    pub fn connect(&mut self, now: Time) {
        self.connect = Some(Connect {
            sent: 0,
            timer: None,
            rto: crate::time::SEC,
            established: false,
        });
        self.send_syn(now);
    }

    /// The acknowledgment a data segment of this side (a request) carries
    /// now: the cumulative ACK, the window and the timestamp echo, without
    /// SACK blocks. Nothing is queued.
    pub fn carried_ack(&self, now: Time) -> Ack {
        Ack {
            ack: self.rcv_nxt,
            window: self.offer_right() - self.rcv_nxt,
            sack: SackBlocks::new(),
            dsack: false,
            ts_val: now + 1,
            ts_ecr: self.ts_recent,
            syn: false,
            echo_order: 0,
        }
    }

    /// True unless this side connects and has no SYN-ACK yet.
    pub fn is_established(&self) -> bool {
        self.connect.as_ref().is_none_or(|c| c.established)
    }

    fn send_syn(&mut self, now: Time) {
        let Some(c) = self.connect.as_mut() else {
            return;
        };
        c.sent += 1;
        c.timer = Some(now.saturating_add(c.rto));
        // Karn: only an answer to a single SYN times the path.
        self.syn_sent_at = (c.sent == 1).then_some(now);
        c.rto = c.rto.saturating_mul(2).min(60 * crate::time::SEC);
        self.acks.push_back(Ack {
            ack: 0,
            window: self.adv_right.min(window_buf(&self.cfg)),
            sack: SackBlocks::new(),
            dsack: false,
            ts_val: now + 1,
            ts_ecr: 0,
            syn: true,
            echo_order: 0,
        });
    }

    /// The data sender's SYN (answered with a SYN-ACK at once) or SYN-ACK
    /// (answered with the final ACK at once, RFC 9293 3.5).
    // Cold: rare, and inlined it spread the hot path's code over more
    // cache lines (issue 33, docs/BENCHMARKS.md).
    #[cold]
    #[inline(never)]
    fn on_syn(&mut self, now: Time, seg: &Segment) {
        if seg.ts_val > self.ts_recent {
            self.ts_recent = seg.ts_val;
        }
        if let Some(c) = self.connect.as_mut() {
            if !c.established {
                c.established = true;
                c.timer = None;
                self.delack.srtt = self.syn_sent_at.take().map(|t| now.saturating_sub(t));
            }
            self.queue_ack(now);
        } else {
            self.syn_sent_at = Some(now);
            self.queue_ack(now);
            if let Some(a) = self.acks.back_mut() {
                a.syn = true;
            }
        }
    }

    /// A data segment arrived from the network (may be duplicate, out of
    /// order, partially overlapping, beyond the window).
    pub fn on_segment(&mut self, now: Time, seg: &Segment) {
        if seg.syn {
            self.on_syn(now, seg);
            return;
        }
        self.stats.segments_received += 1;
        self.last_order = seg.tx_order;
        if let Some(t) = self.syn_sent_at.take() {
            // The first data answers our SYN-ACK: Linux's passive side
            // takes its RTT from it (tcp_synack_rtt_meas()).
            self.delack.srtt = Some(now.saturating_sub(t));
        }
        if self.cfg.linux_delack && seg.len > 0 {
            // tcp_incr_quickack() counts quick ACKs from rcv_wnd, the
            // window (so bounded by window_clamp), not from the buffer;
            // while rcv_ssthresh holds the window down, the window last
            // advertised.
            let window = if self.rcv_ssthresh.is_some() || self.drs.is_some() {
                self.adv_right - self.last_ack_sent.min(self.adv_right)
            } else {
                window_buf(&self.cfg)
            };
            let mss = u64::from(self.cfg.mss.max(1));
            self.delack.on_data(now, || window / (2 * mss));
        }
        let read_before = self.read_pos;
        self.advance_read(now);
        let nxt_before = self.rcv_nxt;
        let right_before = self.adv_right;
        let ooo_before = self.ooo.total();
        if let Some(d) = self.drs.as_mut() {
            // tcp_rcv_established() times the echo of every segment that
            // passes tcp_validate_incoming()'s sequence check.
            let end = seg.seq.saturating_add(u64::from(seg.len));
            if seg.len > 0 && end > nxt_before && seg.seq < right_before {
                d.on_timestamp(now, seg.len, seg.ts_ecr, nxt_before == self.read_pos);
            }
        }
        let (duplicate, in_order, need) = self.accept(seg);
        if self.drs.is_some() {
            self.autotune_arrival(now, seg, in_order, nxt_before, right_before);
        }
        if self.rcv_ssthresh.is_some() {
            // tcp_event_data_recv() grows the window for in-order data of
            // at least 128 bytes; tcp_data_queue_ofo() for any queued
            // out-of-order data when SACK is on.
            if (in_order && seg.len >= 128)
                || (!in_order && self.sack_limit > 0 && self.ooo.total() > ooo_before)
            {
                self.grow_window(seg.len);
            }
        }
        if self.cfg.read_delay > 0 && self.rcv_nxt > nxt_before {
            self.mark_readable(now);
        }
        let held = (self.rcv_nxt - self.read_pos).saturating_add(self.ooo.total());
        self.stats.max_occupancy = self.stats.max_occupancy.max(held);
        self.log.emit(now, || Event::DataReceived {
            seq: seg.seq,
            len: seg.len,
            duplicate,
            in_order,
        });
        match need {
            AckNeed::Immediate => self.queue_ack(now),
            // RFC 5681 section 4.2: an ACK SHOULD be generated for at least
            // every second full-sized segment, and MUST be generated within
            // 500 ms of the arrival of the first unacknowledged packet
            // (RFC 1122 4.2.3.2); `delack_timeout` is that bound.
            AckNeed::Delayed if self.cfg.ack_mode == AckMode::Quick || self.unacked_full >= 2 => {
                self.queue_ack(now)
            }
            AckNeed::Delayed
                if (self.cfg.linux_delack || self.cfg.grow_window) && self.delack.take_quick() =>
            {
                self.queue_ack(now)
            }
            AckNeed::Delayed => {
                if self.delack_deadline.is_none() {
                    let timeout = if self.cfg.linux_delack {
                        self.delack.timeout()
                    } else {
                        self.cfg.delack_timeout
                    };
                    self.delack_deadline = Some(now.saturating_add(timeout));
                }
                if self.window_update_due() {
                    self.queue_ack(now);
                }
            }
        }
        // The application reads after the softirq has answered the
        // segment, so what autotuning grows shows in the next ACK.
        if self.drs.is_some() {
            self.autotune_read(now, read_before);
        }
        self.note_starvation(now);
    }

    /// Autotuning's part of an arrival (autotune.rs): in-order data times
    /// a window (tcp_event_data_recv() -> tcp_rcv_rtt_measure()); data
    /// queued out of order, duplicates of it included, asks for room for
    /// its span (the end of tcp_data_queue_ofo()), before this segment's
    /// ACK is built.
    // Out of line: the modern-stack benchmark (m100) seldom or never runs
    // it, and inlined it spread the hot path's code over more cache lines;
    // where a run takes it per packet, it adds a call (issue 33,
    // docs/BENCHMARKS.md).
    #[inline(never)]
    fn autotune_arrival(
        &mut self,
        now: Time,
        seg: &Segment,
        in_order: bool,
        nxt_before: u64,
        right_before: u64,
    ) {
        if in_order {
            let rcv_wnd = self.adv_right - self.last_ack_sent.min(self.adv_right);
            let (rcv_nxt, queue_empty) = (self.rcv_nxt, self.rcv_nxt == self.read_pos);
            if let Some(d) = self.drs.as_mut() {
                d.on_in_order(now, rcv_nxt, rcv_wnd, queue_empty);
            }
        } else if seg.len > 0 && seg.seq > nxt_before && seg.seq < right_before {
            let span = self.ooo_span();
            if let Some(d) = self.drs.as_mut() {
                d.on_out_of_order(span);
            }
        }
    }

    /// tcp_rcv_space_adjust() for the application's reading since
    /// `read_before`. Linux calls it only from tcp_recvmsg_locked(), after
    /// each skb it copies: never on an arrival that made nothing readable
    /// (out-of-order data), and, when a filled hole releases a burst, first
    /// with one segment copied and the rest of the burst still queued
    /// (`inq`), which closes the measurement without counting the burst;
    /// the later skbs of the same read fall within the new measurement's
    /// RTT and return at once. Before this (2026-11-30) every arrival
    /// closed a measurement with the whole burst read, which moved the
    /// window's growth steps in BBR's STARTUP by up to 0.4 s against
    /// Linux 6.18's (docs/FIDELITY.md, WAN 16 MB). Exact for a reader that
    /// reads at once on a path whose skbs hold one segment each (the TUN
    /// path `losslab linux` measures); with `read_rate` or `read_delay`
    /// one call per event approximates the kernel's per-read calls. Its
    /// callers test for `autotune` first: every segment and ACK poll
    /// passes there.
    // Out of line: the modern-stack benchmark (m100) seldom or never runs
    // it, and inlined it spread the hot path's code over more cache lines;
    // where a run takes it per packet, it adds a call (issue 33,
    // docs/BENCHMARKS.md).
    #[inline(never)]
    fn autotune_read(&mut self, now: Time, read_before: u64) {
        if self.read_pos <= read_before {
            return;
        }
        let first = read_before + (self.read_pos - read_before).min(u64::from(self.cfg.mss.max(1)));
        let span = self.ooo_span();
        if let Some(d) = self.drs.as_mut() {
            d.on_read(now, first, self.rcv_nxt, span);
        }
    }

    /// How far out-of-order data reaches past rcv_nxt (ooo_last_skb's
    /// end_seq - rcv_nxt; 0 with none).
    fn ooo_span(&self) -> u64 {
        self.ooo
            .last()
            .map_or(0, |top| top.end.saturating_sub(self.rcv_nxt))
    }

    /// An ACK waits for `poll_transmit`. Asked first, the call that finds
    /// none (one per arriving segment) is not made (issue 33).
    #[inline]
    pub fn has_ack(&self) -> bool {
        !self.acks.is_empty()
    }

    /// The next ACK to send now, if any (at most one per call; call until
    /// None).
    pub fn poll_transmit(&mut self, now: Time) -> Option<Ack> {
        let mut out = None;
        self.transmit_ack(now, |a| out = Some(*a));
        out
    }

    /// `poll_transmit` by reference: the next ACK, if any, is handed to
    /// `send` where it lies in the queue, and is gone after; false when
    /// none waits. An `Ack` is over a hundred bytes, written field by field
    /// just before: each copy of it on its way out (into the return value,
    /// into a packet) was a stall on reading it back (issue 33).
    #[inline]
    pub fn transmit_ack(&mut self, now: Time, send: impl FnOnce(&Ack)) -> bool {
        let Some(front) = self.acks.front() else {
            return false;
        };
        let (ack, syn, dsack) = (front.ack, front.syn, front.dsack);
        let sack_blocks = front.sack.len() as u8;
        // The handshake's SYN or SYN-ACK is not an acknowledgment of data.
        if !syn {
            self.stats.acks_sent += 1;
        }
        if dsack {
            self.stats.dsacks_sent += 1;
        }
        self.log.emit(now, || Event::AckSent {
            ack,
            sack_blocks,
            dsack,
        });
        send(front);
        self.acks.pop_front();
        true
    }

    /// The application sends data (a request) now, and the segment carries
    /// the acknowledgment a delayed ACK was holding back (RFC 1122
    /// 4.2.3.2, piggybacking). Nothing is sent when nothing is owed: the
    /// data segment would carry an old ACK, which the sender does not
    /// count as a duplicate (RFC 5681 section 2), so here it is no ACK.
    pub fn piggyback_ack(&mut self, now: Time) {
        // This side sends data too: Linux's interactive ("pingpong") mode,
        // whose delayed ACKs wait at most 200 ms.
        self.delack.pingpong = true;
        if self.delack_deadline.is_some() {
            self.queue_ack(now);
        }
        self.note_starvation(now);
    }

    /// Earliest time at which `on_timeout` must be called: the delayed-ACK
    /// timer, or the moment the application's reading reopens the window
    /// enough to send a window update.
    #[inline(always)]
    pub fn poll_timeout(&self) -> Option<Time> {
        let syn = self.connect.as_ref().and_then(|c| c.timer);
        earliest(
            earliest(self.delack_deadline, self.window_update_time()),
            syn,
        )
    }

    pub fn on_timeout(&mut self, now: Time) {
        if let Some(c) = self.connect.as_mut() {
            if c.timer.is_some_and(|t| t <= now) {
                c.timer = None;
                if c.sent <= crate::handshake::SYN_RETRIES {
                    self.send_syn(now);
                }
            }
        }
        let read_before = self.read_pos;
        self.advance_read(now);
        if self.drs.is_some() {
            self.autotune_read(now, read_before);
        }
        if self.delack_deadline.is_some_and(|d| now >= d) || self.window_update_due() {
            self.queue_ack(now);
        }
        self.note_starvation(now);
    }

    /// Classifies and stores the segment's bytes. Returns (entirely
    /// duplicate, advanced rcv_nxt, ACK urgency).
    fn accept(&mut self, seg: &Segment) -> (bool, bool, AckNeed) {
        let start = seg.seq;
        // Hostile input may sit at the top of the sequence space; bytes past
        // u64::MAX cannot exist and are simply not there.
        let end = start.saturating_add(u64::from(seg.len));
        let right = self.adv_right;

        if seg.len == 0 {
            // Zero-length: no data to store. RFC 9293 3.10.7.4 answers an
            // unacceptable segment with an ACK; answering every empty one
            // also wakes a sender probing a closed window.
            let acceptable = start >= self.rcv_nxt && (start < right || start == self.rcv_nxt);
            if acceptable {
                self.update_ts_recent(seg);
            }
            return (false, false, AckNeed::Immediate);
        }

        if end <= self.rcv_nxt {
            // Entirely old: RFC 5681 section 4.2 asks for an immediate ACK,
            // RFC 2883 section 4 (1), (3) for a DSACK of the whole segment. The
            // segment fails the RFC 793 acceptability test, so by RFC 7323
            // section 5.3 (R2 before R3) its TSval is not recorded.
            self.stats.duplicate_segments += 1;
            self.set_dsack(Range::new(start, end));
            return (true, false, AckNeed::Immediate);
        }

        if start >= right || start == end {
            // RFC 9293 3.10.7.4: not acceptable, drop and ACK, which also
            // answers a zero-window probe with the current window. (`start
            // == end` here means every byte lay past u64::MAX.)
            self.stats.out_of_window_drops += 1;
            self.log_discard(end, right);
            return (false, false, AckNeed::Immediate);
        }

        let mut need = AckNeed::Delayed;
        let end = if end > right {
            // Keep the part that fits: the buffer was promised for it and
            // no further (RFC 9293 3.10.7.4 trims segments to the window).
            self.stats.out_of_window_drops += 1;
            self.log_discard(end, right);
            need = AckNeed::Immediate;
            right
        } else {
            end
        };

        // RFC 7323 section 4.3 (R3): record TSval only from segments at or
        // below Last.ACK.sent, so a delayed ACK echoes the earliest
        // unacknowledged segment and a hole-filling retransmission (which
        // starts at the ACK the sender keeps seeing) is echoed itself.
        self.update_ts_recent(seg);

        if start <= self.rcv_nxt {
            let old = self.rcv_nxt;
            if self.ooo.is_empty() {
                // The hot path: no reassembly state to consult.
                self.rcv_nxt = end;
                if start < old {
                    // RFC 2883 section 4 (3): report the duplicated part only.
                    self.set_dsack(Range::new(start, old));
                    need = AckNeed::Immediate;
                } else if seg.len >= self.cfg.mss {
                    self.unacked_full = self.unacked_full.saturating_add(1);
                }
            } else {
                // The run this creates is in order at once, so it stays off
                // the recent-SACK list.
                let (_, first_dup) = self.insert_ooo(old, end);
                let dup = if start < old {
                    Some(Range::new(start, old))
                } else {
                    first_dup
                };
                if let Some(d) = dup {
                    self.set_dsack(d);
                }
                // Every run starts above `old`, so the merged run starts at
                // `old` and is in order now.
                if let Some(r) = self.ooo.containing(old) {
                    self.rcv_nxt = r.end;
                }
                self.ooo.remove_below(self.rcv_nxt);
                self.recent_exact = false;
                // RFC 5681 section 4.2: data filling all or part of a gap
                // is acknowledged at once.
                need = AckNeed::Immediate;
            }
            if self.reads_at_once() {
                self.read_pos = self.rcv_nxt;
                self.stats.bytes_read = self.read_pos;
            }
            (false, true, need)
        } else {
            let total_before = self.ooo.total();
            let (merged, first_dup) = self.insert_ooo(start, end);
            self.note_recent(merged);
            let whole = self.ooo.total() == total_before;
            if whole {
                self.stats.duplicate_segments += 1;
            }
            if let Some(d) = first_dup {
                self.set_dsack(d);
            }
            // RFC 5681 section 4.2: out-of-order data is acknowledged at
            // once so the sender sees the duplicate ACK.
            (whole, false, AckNeed::Immediate)
        }
    }

    /// Inserts `[start, end)` into the out-of-order set; returns the merged
    /// run now holding it and the first (lowest) sub-range that was
    /// already present.
    // Inline: its five words came back through memory and were read back
    // wider than written, on every out-of-order segment (issue 33).
    #[inline(always)]
    fn insert_ooo(&mut self, start: u64, end: u64) -> (Range, Option<Range>) {
        let mut cursor = start;
        let mut first_dup: Option<Range> = None;
        let merged = self.ooo.insert_with(start, end, |a, b| {
            if a > cursor && first_dup.is_none() {
                first_dup = Some(Range::new(cursor, a));
            }
            cursor = b;
        });
        if cursor < end && first_dup.is_none() {
            first_dup = Some(Range::new(cursor, end));
        }
        (merged, first_dup)
    }

    /// RFC 2018 section 4: the first block reports the most recently
    /// received segment's run, then the most recently reported others.
    /// The runs this insert merged are subsets of `merged` now.
    fn note_recent(&mut self, merged: Range) {
        // Written in place from a copy of the old list: a list built on
        // the stack and copied over was read back in loads wider than the
        // stores just made, on every out-of-order segment (issue 33).
        let (old, old_pos, old_len) = (self.recent, self.recent_pos, self.recent_len);
        self.recent[0] = merged;
        // Not known; past the end makes `containing_near` try the top run
        // first, where new data usually lands.
        self.recent_pos[0] = u64::MAX;
        let mut n = 1;
        for (r, &p) in old[..old_len].iter().zip(&old_pos) {
            if n == MAX_SACK_BLOCKS {
                break;
            }
            if !(merged.start <= r.start && r.end <= merged.end) {
                self.recent[n] = *r;
                self.recent_pos[n] = p;
                n += 1;
            }
        }
        // Entries past `recent_len` are never read, so they are left as
        // they were: clearing them was two `memset` calls on every
        // out-of-order segment (issue 33; docs/BENCHMARKS.md, "Speed
        // ratios over code layouts").
        self.recent_len = n;
    }

    fn set_dsack(&mut self, d: Range) {
        // RFC 2883 extends SACK; without SACK blocks there is nowhere to
        // put it.
        if self.cfg.dsack && self.sack_limit > 0 {
            self.pending_dsack = Some(d);
        }
    }

    fn update_ts_recent(&mut self, seg: &Segment) {
        if seg.seq <= self.last_ack_sent && seg.ts_val >= self.ts_recent {
            self.ts_recent = seg.ts_val;
        }
    }

    /// `rcv_nxt` just advanced at `now`: the application may read up to
    /// it `read_delay` later. Times stay ordered even if `now` went back.
    fn mark_readable(&mut self, now: Time) {
        let mut at = now.saturating_add(self.cfg.read_delay);
        if let Some(last) = self.marks.back_mut() {
            if last.0 >= at {
                at = last.0;
            }
            if last.0 == at {
                last.1 = self.rcv_nxt;
                return;
            }
        }
        self.marks.push_back((at, self.rcv_nxt));
    }

    /// How far the application may read now.
    fn read_limit(&self) -> u64 {
        if self.cfg.read_delay > 0 {
            self.readable
        } else {
            self.rcv_nxt
        }
    }

    /// Consumes in-order data at the configured rate up to `now`. With a
    /// read delay, reading runs up to each edge's time with what was
    /// readable before it, so an application that had caught up earns no
    /// credit while it waits.
    // Inline, with the reader that reads at once first: that one only
    // follows rcv_nxt, and the call and its cursor were a tenth of a
    // segment's arrival (issue 33).
    #[inline(always)]
    fn advance_read(&mut self, now: Time) {
        if self.reads_at_once() {
            self.read_pos = self.rcv_nxt;
            self.stats.bytes_read = self.read_pos;
            return;
        }
        self.advance_paced_read(now);
    }

    /// The application reads everything in order the moment it arrives:
    /// no read rate and no read delay. Its cursor is rcv_nxt and it never
    /// owes a window update, which the per-segment paths answer inline.
    #[inline(always)]
    fn reads_at_once(&self) -> bool {
        self.cfg.read_delay == 0 && self.cfg.read_rate.is_none()
    }

    fn advance_paced_read(&mut self, now: Time) {
        if self.cfg.read_delay > 0 {
            while let Some(&(at, upto)) = self.marks.front() {
                if at > now {
                    break;
                }
                self.read_until(at);
                self.readable = upto;
                self.marks.pop_front();
            }
        }
        self.read_until(now);
    }

    fn read_until(&mut self, now: Time) {
        let mut c = self.read_cursor();
        c.read_until(now, self.read_limit(), self.cfg.read_rate);
        (self.read_pos, self.read_time, self.read_frac) = (c.pos, c.time, c.frac);
        self.stats.bytes_read = self.read_pos;
    }

    fn read_cursor(&self) -> ReadCursor {
        ReadCursor {
            pos: self.read_pos,
            time: self.read_time,
            frac: self.read_frac,
        }
    }

    /// Out-of-order runs held above `rcv_nxt`: the receive-buffer bubbles
    /// (RBBs) of the OR3 paper's section III-B are the gaps between them
    /// and the in-order data, one per run.
    pub fn ooo_runs(&self) -> usize {
        self.ooo.runs()
    }

    /// Receive-buffer starvation up to `now`: the time during which the
    /// next in-order byte was missing while the advertised window was
    /// exhausted. The OR3 paper (section III-B, "High speed wide-area
    /// transmission is buffer starving"): the packets after a lost one
    /// "will be stalled in the receive buffer until the RBB is filled via
    /// retransmissions", and a buffer they fill takes no new data. Here:
    /// out-of-order data held above `rcv_nxt` (a bubble at the head, so
    /// the application waits on it) and less than one MSS of the last
    /// advertised window left above the highest byte held, so no further
    /// new segment can be accepted until the bubble is filled. Measured at
    /// the receiver alone: whatever a sender sends past that window (OR3's
    /// opportunism) is dropped here and does not end a starvation; only
    /// the bubble's filling does.
    pub fn starvation_at(&self, now: Time) -> Time {
        self.starved
            .saturating_add(self.starved_since.map_or(0, |t| now.saturating_sub(t)))
    }

    /// Opens or closes a starvation period after anything that can change
    /// `rcv_nxt`, the out-of-order data or the advertised edge (arrivals,
    /// and the ACKs that move `adv_right`).
    fn note_starvation(&mut self, now: Time) {
        let starved = self.ooo.last().is_some_and(|top| {
            self.adv_right.saturating_sub(top.end) < u64::from(self.cfg.mss.max(1))
        });
        match (starved, self.starved_since) {
            (true, None) => self.starved_since = Some(now),
            (false, Some(t)) => {
                self.starved = self.starved.saturating_add(now.saturating_sub(t));
                self.starved_since = None;
            }
            _ => {}
        }
    }

    /// Every byte of `[start, end)` has been received (in order or not).
    pub fn holds(&self, start: u64, end: u64) -> bool {
        end <= self.rcv_nxt || self.ooo.covers(start.max(self.rcv_nxt), end)
    }

    /// Bytes the receive buffer holds at `now` (in order but unread, plus
    /// out of order), reading advanced to `now` as the next arrival would
    /// advance it; the same quantity as `ReceiverStats::max_occupancy`.
    /// Changes nothing: an observer sampling between arrivals must not
    /// move the lazily computed reading, whose rounding would then differ.
    pub fn occupancy_at(&self, now: Time) -> u64 {
        let rate = self.cfg.read_rate;
        let mut c = self.read_cursor();
        let mut limit = self.read_limit();
        if self.cfg.read_delay > 0 {
            for &(at, upto) in &self.marks {
                if at > now {
                    break;
                }
                c.read_until(at, limit, rate);
                limit = upto;
            }
        }
        c.read_until(now, limit, rate);
        (self.rcv_nxt - c.pos).saturating_add(self.ooo.total())
    }

    /// Why the window stopped below `end` (`DiscardReason`).
    fn discard_reason(&self, end: u64) -> DiscardReason {
        if !self.has_hole() {
            return DiscardReason::NoHole;
        }
        // With a window clamp the hole alone bounds the window at rcv_nxt +
        // clamp however much buffer is free, so a segment past that is
        // HoleUnfilled too: only filling the hole would have let it in.
        let unread = self.rcv_nxt - self.read_pos;
        let reach = self
            .rcv_nxt
            .saturating_add(self.clamped(self.rcvbuf_window().saturating_sub(unread)));
        if end <= reach {
            DiscardReason::HeldAboveHole
        } else {
            DiscardReason::HoleUnfilled
        }
    }

    /// Logs a discarded segment ending at `end`: its reason, and how far
    /// past the right edge `right` it reached.
    fn log_discard(&mut self, end: u64, right: u64) {
        let mss = u64::from(self.cfg.mss.max(1));
        let past = end.saturating_sub(right).div_ceil(mss).max(1);
        let reason = self.discard_reason(end);
        self.stats.discards.record(reason, past);
    }

    /// Whether a hole sits at the head of the buffer (out-of-order data
    /// held above `rcv_nxt`).
    pub fn has_hole(&self) -> bool {
        !self.ooo.is_empty()
    }

    /// Right edge the receive buffer could back right now, at most
    /// `window_clamp` past rcv_nxt (Linux __tcp_select_window(),
    /// net/ipv4/tcp_output.c: the free space is bounded by
    /// tp->window_clamp; the buffer beyond it is headroom that holds
    /// out-of-order data without taking it from the window).
    /// With `grow_window`, also at most rcv_ssthresh past it
    /// (__tcp_select_window(): free_space = min(free_space, rcv_ssthresh)).
    fn potential_right(&self) -> u64 {
        let free = self.free_window();
        self.rcv_nxt
            .saturating_add(self.rcv_ssthresh.map_or(free, |s| free.min(s)))
    }

    /// The window the free buffer backs, at most `window_clamp`: Linux's
    /// min(tp->window_clamp, tcp_space()). The engine's `rcvbuf` stands
    /// for the buffer autotuning (tcp_rcv_space_adjust()) lets sk_rcvbuf
    /// reach, already in window bytes; with `autotune` the buffer is
    /// autotuning's current one, and its window_clamp bounds the window.
    fn free_window(&self) -> u64 {
        let held = (self.rcv_nxt - self.read_pos).saturating_add(self.ooo.total());
        self.clamped(self.rcvbuf_window().saturating_sub(held))
    }

    /// The window the whole receive buffer backs now: `rcvbuf`, or
    /// autotuning's tcp_full_space() (never above `rcvbuf`).
    fn rcvbuf_window(&self) -> u64 {
        self.drs
            .as_ref()
            .map_or(self.cfg.rcvbuf, |d| d.buffer_window().min(self.cfg.rcvbuf))
    }

    /// Autotuning's state, for observers and tests.
    pub fn autotune(&self) -> Option<&Drs> {
        self.drs.as_ref()
    }

    /// net/ipv4/tcp_input.c tcp_grow_window(): a segment of `len` bytes
    /// was queued; rcv_ssthresh opens towards the free window, and the
    /// segment is ACKed at once (icsk_ack.quick |= 1), so that a sender in
    /// slow start sees the window open without waiting for delayed ACKs.
    ///
    /// The increment is Check #2's 2 * tp->advmss. The engine has no skb
    /// truesize; since Linux 6.5 tcp_measure_rcv_mss() sets scaling_ratio
    /// to len * 256 / truesize from the segments themselves, so for
    /// segments of one size tcp_win_from_space(truesize) = truesize *
    /// floor(len * 256 / truesize) / 256 <= len always holds and
    /// __tcp_grow_window()'s halving loop is never reached. At least twice
    /// the segment's own length (incr = max(incr, 2 * skb->len)).
    fn grow_window(&mut self, len: u32) {
        let Some(ssthresh) = self.rcv_ssthresh else {
            return;
        };
        let room = self.free_window().saturating_sub(ssthresh);
        if room == 0 {
            return;
        }
        let advmss = u64::from(self.cfg.mss).saturating_add(TS_OPTION);
        let incr = (2 * advmss).max(2 * u64::from(len));
        self.rcv_ssthresh = Some(ssthresh + incr.min(room));
        // Odd, not one more: a pending quick-ACK count (tcp_incr_quickack())
        // is kept, and one ACK sent takes the bit back off.
        self.delack.quick |= 1;
    }

    /// At most `window_clamp`, and autotuning's tp->window_clamp (the
    /// kernel keeps one, which TCP_WINDOW_CLAMP sets and autotuning
    /// raises; here the smaller of the two binds).
    fn clamped(&self, window: u64) -> u64 {
        let w = self.cfg.window_clamp.map_or(window, |c| window.min(c));
        self.drs.as_ref().map_or(w, |d| w.min(d.window_clamp()))
    }

    /// Right edge to advertise now. RFC 1122 4.2.3.3 receiver SWS
    /// avoidance: keep RCV.NXT + RCV.WND fixed until the space that would
    /// be added, RCV.BUFF - RCV.USER - RCV.WND, is at least
    /// min(Fr * RCV.BUFF, MSS). Never less than the last advertisement:
    /// shrinking the window is strongly discouraged (RFC 9293 section
    /// 3.8.6, RFC 1122 4.2.2.16) and a sender may already be using it.
    fn offer_right(&self) -> u64 {
        let p = self.potential_right();
        if p.saturating_sub(self.adv_right) >= self.sws_thresh {
            p
        } else {
            self.adv_right
        }
    }

    /// Bytes the right edge must be able to move before a window update is
    /// sent unprompted. A window below one MSS may have stalled the sender
    /// (its SWS avoidance, RFC 9293 3.8.6.2.1, holds back small segments,
    /// and only a persist-timer probe would otherwise wake it), so any
    /// SWS-sized opening is worth an ACK then; otherwise only a large one.
    fn update_opening(&self) -> u64 {
        let window = self.adv_right.saturating_sub(self.rcv_nxt);
        if window < u64::from(self.cfg.mss) {
            self.sws_thresh
        } else {
            self.sws_thresh.max(self.update_thresh)
        }
    }

    fn window_update_due(&self) -> bool {
        self.potential_right().saturating_sub(self.adv_right) >= self.update_opening()
    }

    /// When reading alone, with no further arrivals, makes a window update
    /// due. Arrivals re-evaluate it themselves.
    // The reader that reads at once owes no update: answered inline, as
    // `poll_timeout` asks after every arriving segment (issue 33).
    #[inline(always)]
    fn window_update_time(&self) -> Option<Time> {
        if self.reads_at_once() {
            return None;
        }
        self.paced_window_update_time()
    }

    fn paced_window_update_time(&self) -> Option<Time> {
        if self.cfg.read_delay > 0 {
            return self.delayed_window_update_time();
        }
        let rate = self.cfg.read_rate?;
        if rate == 0 {
            return None;
        }
        let target = self.adv_right.saturating_add(self.update_opening());
        let need = target.saturating_sub(self.potential_right());
        if need == 0 {
            return Some(self.read_time);
        }
        if need > self.rcv_nxt - self.read_pos {
            return None;
        }
        // Smallest dt with floor((dt * rate + frac) / SEC) >= need.
        let num = u128::from(need) * u128::from(SEC) - u128::from(self.read_frac);
        let dt = num.div_ceil(u128::from(rate));
        let dt = u64::try_from(dt).unwrap_or(u64::MAX);
        Some(self.read_time.saturating_add(dt))
    }

    /// `window_update_time` with a read delay: reading must reach `goal`,
    /// which needs both the edge holding `goal` to become readable and,
    /// at a finite rate, the reading time. The later of the two is a lower
    /// bound (reading may also wait for edges before it); a wake-up there
    /// that finds no update due computes the next bound from the new
    /// state, and each such wake-up passes at least one edge or finishes
    /// the reading.
    fn delayed_window_update_time(&self) -> Option<Time> {
        let target = self.adv_right.saturating_add(self.update_opening());
        let need = target.saturating_sub(self.potential_right());
        if need == 0 {
            return Some(self.read_time);
        }
        let goal = self.read_pos.saturating_add(need);
        if goal > self.rcv_nxt {
            return None;
        }
        let readable_at = if goal <= self.readable {
            self.read_time
        } else {
            let i = self.marks.partition_point(|&(_, upto)| upto < goal);
            self.marks.get(i)?.0
        };
        match self.cfg.read_rate {
            None => Some(readable_at),
            Some(0) => None,
            Some(rate) => {
                let num = u128::from(need) * u128::from(SEC) - u128::from(self.read_frac);
                let dt = u64::try_from(num.div_ceil(u128::from(rate))).unwrap_or(u64::MAX);
                Some(self.read_time.saturating_add(dt).max(readable_at))
            }
        }
    }

    /// Builds the ACK for the current state and queues it; any ACK covers
    /// everything a pending delayed ACK would have.
    fn queue_ack(&mut self, now: Time) {
        let right = self.offer_right();
        self.adv_right = right;
        let mut ack = Ack {
            ack: self.rcv_nxt,
            window: right - self.rcv_nxt,
            sack: SackBlocks::new(),
            dsack: false,
            ts_val: now,
            ts_ecr: self.ts_recent,
            syn: false,
            // The LE paper's section 4.2: "the receiver echoes the
            // transmission order value in its replying ACK".
            echo_order: if self.cfg.echo_order {
                self.last_order
            } else {
                0
            },
        };
        if self.sack_limit > 0 {
            self.fill_sack(&mut ack);
        }
        // RFC 2883 section 4 (2): each duplicate is reported at most once.
        self.pending_dsack = None;
        self.last_ack_sent = self.rcv_nxt;
        self.unacked_full = 0;
        self.delack_deadline = None;
        self.acks.push_back(ack);
    }

    fn fill_sack(&mut self, ack: &mut Ack) {
        let limit = self.sack_limit;
        let mut containing: Option<Range> = None;
        if let Some(d) = self.pending_dsack {
            // RFC 2883 section 4 (3)-(5): the DSACK block first, then the
            // block containing it if it lies within out-of-order data, and
            // that block is not repeated among the SACK blocks after.
            ack.sack.push(d);
            ack.dsack = true;
            if d.start >= self.rcv_nxt {
                containing = self
                    .ooo
                    .containing(d.start)
                    .filter(|r| r.contains_range(&d));
                if let Some(c) = containing {
                    if ack.sack.len() < limit {
                        ack.sack.push(c);
                    }
                }
            }
        }
        if self.ooo.is_empty() {
            self.recent_len = 0;
            self.recent_exact = true;
            return;
        }
        if self.recent_exact && containing.is_none() {
            // What the revalidation below would find: each entry its own
            // run, in the same order. Every ACK sent while a hole is open
            // (thousands in a round trip at 1 Gbit/s) revalidated the list
            // before: 6% of a BBR flow's instructions (issue 33).
            debug_assert!(self.recent_are_runs());
            for r in &self.recent[..self.recent_len] {
                if ack.sack.len() < limit {
                    ack.sack.push(*r);
                }
            }
            return;
        }
        // Revalidate the recent list: runs merge and rcv_nxt moves, so an
        // entry is replaced by the run now holding it, and dropped once
        // rcv_nxt has passed it (RFC 2018 section 4: no block may cover
        // cumulatively acknowledged data).
        let mut fresh = [Range::default(); MAX_SACK_BLOCKS];
        let mut fresh_pos = [0; MAX_SACK_BLOCKS];
        let mut n = 0;
        for i in 0..self.recent_len {
            let r = self.recent[i];
            if r.end <= self.rcv_nxt {
                continue;
            }
            let mut pos = self.recent_pos[i];
            let Some(cur) = self
                .ooo
                .containing_near(r.start.max(self.rcv_nxt), &mut pos)
            else {
                continue;
            };
            if fresh[..n].contains(&cur) {
                continue;
            }
            fresh[n] = cur;
            fresh_pos[n] = pos;
            n += 1;
            if Some(cur) != containing && ack.sack.len() < limit {
                ack.sack.push(cur);
            }
        }
        self.recent = fresh;
        self.recent_pos = fresh_pos;
        self.recent_len = n;
        self.recent_exact = true;
    }

    /// `recent_exact`'s claim: distinct runs of `ooo`, above `rcv_nxt`.
    fn recent_are_runs(&self) -> bool {
        let list = &self.recent[..self.recent_len];
        list.iter().enumerate().all(|(i, r)| {
            r.start >= self.rcv_nxt
                && self.ooo.containing(r.start) == Some(*r)
                && !list[..i].contains(r)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::MS;
    use proptest::prelude::*;

    const MSS: u32 = 1000;

    fn cfg() -> ReceiverConfig {
        ReceiverConfig {
            ack_mode: AckMode::Delayed,
            delack_timeout: 200 * MS,
            linux_delack: false,
            grow_window: false,
            autotune: false,
            sack_blocks: 3,
            dsack: true,
            rcvbuf: 1_000_000,
            read_rate: None,
            read_delay: 0,
            window_clamp: None,
            mss: MSS,
            echo_order: false,
        }
    }

    fn seg(seq: u64, len: u32, ts: Time) -> Segment {
        Segment {
            seq,
            len,
            ts_val: ts,
            ts_ecr: 0,
            seg_no: seq / u64::from(MSS),
            tx_count: 1,
            tx_order: 0,
            probe: false,
            syn: false,
            replica: false,
        }
    }

    /// The n-th MSS-sized segment.
    fn nth(n: u64, ts: Time) -> Segment {
        seg(n * u64::from(MSS), MSS, ts)
    }

    fn drain(r: &mut Receiver, now: Time) -> Vec<Ack> {
        std::iter::from_fn(|| r.poll_transmit(now)).collect()
    }

    fn blocks(a: &Ack) -> Vec<(u64, u64)> {
        a.sack.as_slice().iter().map(|r| (r.start, r.end)).collect()
    }

    /// `transmit_ack` hands over each ACK once, in order, by reference,
    /// counting it; with none waiting it calls nothing and says so.
    /// Worked by hand (quick ACKs, 1000-byte segments, three blocks): a
    /// hole at 2000, segments 3000 and 5000 above it, 3000 again (a DSACK
    /// block first, then the run holding it, then the other run), then
    /// the hole filled.
    #[test]
    fn transmit_ack_hands_over_each_ack_once_in_order() {
        let mut r = Receiver::new(ReceiverConfig {
            ack_mode: AckMode::Quick,
            ..cfg()
        });
        // (cumulative ACK, SACK blocks, DSACK) of each ACK handed over.
        type Seen = (u64, Vec<(u64, u64)>, bool);
        let mut got: Vec<Seen> = Vec::new();
        // Two ACKs queue before each drain: the first one queued goes first.
        for (n, at) in [(0, 1), (1, 2), (3, 3), (5, 4), (3, 5), (2, 6)] {
            r.on_segment(at * MS, &nth(n, at * MS));
            if at % 2 == 1 {
                continue;
            }
            while r.has_ack() {
                assert!(r.transmit_ack(at * MS, |a| got.push((a.ack, blocks(a), a.dsack))));
            }
            assert!(!r.transmit_ack(at * MS, |_| panic!("no ACK waits")));
        }
        let want: Vec<Seen> = vec![
            (1000, vec![], false),
            (2000, vec![], false),
            (2000, vec![(3000, 4000)], false),
            (2000, vec![(5000, 6000), (3000, 4000)], false),
            (2000, vec![(3000, 4000), (3000, 4000), (5000, 6000)], true),
            (4000, vec![(5000, 6000)], false),
        ];
        assert_eq!(got, want);
        assert_eq!((r.stats().acks_sent, r.stats().dsacks_sent), (6, 1));
    }

    #[test]
    fn delayed_ack_every_second_full_segment_and_timer_for_a_lone_one() {
        let mut r = Receiver::new(cfg());
        r.on_segment(0, &nth(0, 0));
        assert!(r.poll_transmit(0).is_none());
        assert_eq!(r.poll_timeout(), Some(200 * MS));
        r.on_segment(MS, &nth(1, MS));
        let acks = drain(&mut r, MS);
        assert_eq!(acks.len(), 1);
        assert_eq!(acks[0].ack, 2000);
        assert_eq!(r.poll_timeout(), None);

        // A lone segment waits for the timer, armed at its arrival.
        r.on_segment(10 * MS, &nth(2, 10 * MS));
        assert!(r.poll_transmit(10 * MS).is_none());
        assert_eq!(r.poll_timeout(), Some(210 * MS));
        r.on_timeout(209 * MS);
        assert!(r.poll_transmit(209 * MS).is_none());
        r.on_timeout(210 * MS);
        let acks = drain(&mut r, 210 * MS);
        assert_eq!(acks.len(), 1);
        assert_eq!(acks[0].ack, 3000);
        assert_eq!(acks[0].ts_val, 210 * MS);
        assert_eq!(r.poll_timeout(), None);

        // Small segments do not count towards "every second full-sized".
        r.on_segment(300 * MS, &seg(3000, 10, 300 * MS));
        r.on_segment(301 * MS, &seg(3010, 10, 301 * MS));
        assert!(r.poll_transmit(301 * MS).is_none());
        assert_eq!(r.poll_timeout(), Some(500 * MS));
        assert_eq!(r.stats().acks_sent, 2);
    }

    /// `autotune`: the window starts at tcp_rmem[1]'s less one segment and
    /// grows when the application has read more in a receiver RTT than in
    /// the last (autotune.rs works each step in the kernel's arithmetic).
    #[test]
    fn autotune_starts_at_tcp_rmem1_and_grows_after_a_receiver_rtt() {
        let mut r = Receiver::new(ReceiverConfig {
            ack_mode: AckMode::Quick,
            autotune: true,
            ..cfg()
        });
        let echoing = |seq: u64, at: Time, ecr: Time| Segment {
            ts_ecr: ecr,
            ..seg(seq, MSS, at)
        };
        // tcp_rmem[1] = 131072 backs 65536 B of window; window_clamp =
        // 65536 - 1000 (one segment reserved) = 64536, well below the
        // 1 MB `rcvbuf`. rcvq_space.space = min(64536, 10 * 1000) = 10000.
        r.on_segment(100 * MS, &echoing(0, 100 * MS, 0));
        let a = drain(&mut r, 100 * MS);
        assert_eq!(a[0].window, 64_536);
        // The first echo (of the ACK sent at 100 ms) at 200 ms: receiver
        // RTT 100 ms. 2000 B read since t = 0, not above 10000: no growth,
        // a new measurement from 200 ms at 2000.
        r.on_segment(200 * MS, &echoing(1_000, 200 * MS, 100 * MS));
        assert_eq!(r.autotune().unwrap().rtt_us8(), 800_000);
        assert_eq!(drain(&mut r, 200 * MS)[0].window, 64_536);
        // 20 segments within 2 ms from 250 ms: less than an RTT after the
        // measurement began, nothing grows.
        for i in 0..20u64 {
            let at = 250 * MS + i * 100_000;
            r.on_segment(at, &echoing(2_000 + i * 1_000, at, 100 * MS));
        }
        drain(&mut r, 260 * MS);
        assert_eq!(r.autotune().unwrap().sk_rcvbuf(), 131_072);
        // At 300 ms, 23000 - 2000 = 21000 B read > 10000:
        //   rcvwin = 42000 + 2 * (42000 * 11000 / 10000 = 46200) = 134400
        //   sk_rcvbuf = (134400 << 8) / 128 = 268800, window_clamp 134400.
        // This segment's ACK was sent before the application read.
        r.on_segment(300 * MS, &echoing(22_000, 300 * MS, 100 * MS));
        assert_eq!(drain(&mut r, 300 * MS)[0].window, 64_536);
        assert_eq!(r.autotune().unwrap().sk_rcvbuf(), 268_800);
        // The next ACK offers the new clamp, nothing being held unread.
        r.on_segment(301 * MS, &echoing(23_000, 301 * MS, 100 * MS));
        assert_eq!(drain(&mut r, 301 * MS)[0].window, 134_400);
        // Off: the whole buffer from the first ACK, as before the key.
        let mut off = Receiver::new(ReceiverConfig {
            ack_mode: AckMode::Quick,
            ..cfg()
        });
        off.on_segment(100 * MS, &seg(0, MSS, 100 * MS));
        assert_eq!(drain(&mut off, 100 * MS)[0].window, 1_000_000);
        assert!(off.autotune().is_none());
    }

    /// Linux measures what the application read only when it reads
    /// (tcp_rcv_space_adjust() in tcp_recvmsg_locked()): data arriving out
    /// of order, which makes nothing readable, does not close a
    /// measurement, and the read a filled hole releases closes it after
    /// its first segment, with the rest still queued, so the burst counts
    /// in the next measurement.
    #[test]
    fn autotune_measures_at_reads_and_a_released_burst_counts_later() {
        let mut r = Receiver::new(ReceiverConfig {
            ack_mode: AckMode::Quick,
            autotune: true,
            ..cfg()
        });
        let echoing = |seq: u64, at: Time| Segment {
            ts_ecr: if at == 100 * MS { 0 } else { 100 * MS },
            ..seg(seq, MSS, at)
        };
        // As above: receiver RTT 100 ms from 200 ms, a measurement from
        // 200 ms at 2000, rcvq_space.space 10000.
        r.on_segment(100 * MS, &echoing(0, 100 * MS));
        r.on_segment(200 * MS, &echoing(1_000, 200 * MS));
        drain(&mut r, 200 * MS);
        // 2000 is lost; 3000..23000 arrive out of order, the last more
        // than an RTT after the measurement began: nothing was read, so
        // it stays open.
        for i in 0..20u64 {
            let at = 250 * MS + i * 100_000;
            r.on_segment(at, &echoing(3_000 + i * 1_000, at));
        }
        r.on_segment(310 * MS, &echoing(23_000, 310 * MS));
        drain(&mut r, 310 * MS);
        let d = r.autotune().unwrap();
        assert_eq!((d.sk_rcvbuf(), d.space()), (131_072, 10_000));
        // The retransmission of 2000 at 320 ms releases 22000 B. The first
        // segment read (2000..3000) closes the measurement: 1000 B read,
        // 21000 still queued, nothing counted, no growth; a new one from
        // 3000 at 320 ms.
        r.on_segment(320 * MS, &echoing(2_000, 320 * MS));
        drain(&mut r, 320 * MS);
        let d = r.autotune().unwrap();
        assert_eq!((d.sk_rcvbuf(), d.space()), (131_072, 10_000));
        // At 420 ms one more segment: 25000 - 3000 = 22000 B read in the
        // RTT, the burst among them:
        //   rcvwin = 44000 + 2 * (44000 * 12000 / 10000 = 52800) = 149600
        //   sk_rcvbuf = (149600 << 8) / 128 = 299200.
        // (Measured at every arrival, the 310 ms one would have closed the
        // first measurement and 420 ms counted 23000 B: 331200.)
        r.on_segment(420 * MS, &echoing(24_000, 420 * MS));
        drain(&mut r, 420 * MS);
        let d = r.autotune().unwrap();
        assert_eq!((d.sk_rcvbuf(), d.space()), (299_200, 22_000));
    }

    #[test]
    fn quick_mode_acks_each_segment() {
        let mut r = Receiver::new(ReceiverConfig {
            ack_mode: AckMode::Quick,
            ..cfg()
        });
        for i in 0..5 {
            r.on_segment(i * MS, &nth(i, i * MS));
            let acks = drain(&mut r, i * MS);
            assert_eq!(acks.len(), 1);
            assert_eq!(acks[0].ack, (i + 1) * 1000);
            assert!(acks[0].sack.is_empty());
        }
        assert_eq!(r.poll_timeout(), None);
        assert_eq!(r.stats().acks_sent, 5);
    }

    #[test]
    fn out_of_order_sack_most_recent_first_with_limit_and_hole_fill() {
        let mut r = Receiver::new(cfg());
        r.on_segment(0, &nth(0, 0));
        r.on_segment(0, &nth(1, 0));
        assert_eq!(drain(&mut r, 0).len(), 1);
        // Segments 2, 4, 6, 8, 10 lost: five holes. 3, 5, 7, 9, 11 arrive
        // without polling in between; each must produce its own dupACK.
        for n in [3, 5, 7, 9, 11] {
            r.on_segment(MS, &nth(n, MS));
        }
        let acks = drain(&mut r, MS);
        assert_eq!(acks.len(), 5);
        for a in &acks {
            assert_eq!(a.ack, 2000);
            assert!(!a.dsack);
        }
        assert_eq!(blocks(&acks[0]), vec![(3000, 4000)]);
        assert_eq!(blocks(&acks[1]), vec![(5000, 6000), (3000, 4000)]);
        assert_eq!(
            blocks(&acks[2]),
            vec![(7000, 8000), (5000, 6000), (3000, 4000)]
        );
        assert_eq!(
            blocks(&acks[4]),
            vec![(11000, 12000), (9000, 10000), (7000, 8000)]
        );

        // Extending an old block makes it the first one.
        r.on_segment(2 * MS, &seg(4000, 500, 2 * MS));
        let a = drain(&mut r, 2 * MS);
        assert_eq!(
            blocks(&a[0]),
            vec![(3000, 4500), (11000, 12000), (9000, 10000)]
        );

        // Filling the first hole: immediate ACK, rcv_nxt jumps over 3.
        r.on_segment(3 * MS, &nth(2, 3 * MS));
        let a = drain(&mut r, 3 * MS);
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].ack, 4500);
        assert_eq!(r.rcv_nxt(), 4500);
        assert_eq!(
            blocks(&a[0]),
            vec![(11000, 12000), (9000, 10000), (7000, 8000)]
        );

        // Merge two runs: [5000,6000) + [6000,7000) + [7000,8000).
        r.on_segment(4 * MS, &nth(6, 4 * MS));
        let a = drain(&mut r, 4 * MS);
        assert_eq!(
            blocks(&a[0]),
            vec![(5000, 8000), (11000, 12000), (9000, 10000)]
        );

        // Fill everything else.
        for (i, s) in [seg(4500, 500, 0), nth(8, 0), nth(10, 0)]
            .iter()
            .enumerate()
        {
            r.on_segment(5 * MS, s);
            let a = drain(&mut r, 5 * MS);
            assert_eq!(a.len(), 1, "fill {i}");
        }
        assert_eq!(r.rcv_nxt(), 12000);
        r.on_segment(6 * MS, &nth(12, 6 * MS));
        assert!(r.poll_transmit(6 * MS).is_none(), "back to delayed ACKs");
        assert_eq!(r.stats().duplicate_segments, 0);
    }

    #[test]
    fn sack_disabled_sends_no_blocks() {
        let mut r = Receiver::new(ReceiverConfig {
            sack_blocks: 0,
            ..cfg()
        });
        r.on_segment(0, &nth(1, 0));
        r.on_segment(0, &nth(1, 0));
        let a = drain(&mut r, 0);
        assert_eq!(a.len(), 2);
        assert!(a
            .iter()
            .all(|a| a.sack.is_empty() && !a.dsack && a.ack == 0));
        assert_eq!(r.stats().duplicate_segments, 1);
        assert_eq!(r.stats().dsacks_sent, 0);
    }

    #[test]
    fn dsack_below_ack_and_inside_an_out_of_order_block() {
        let mut r = Receiver::new(cfg());
        for n in 0..4 {
            r.on_segment(0, &nth(n, 0));
        }
        assert_eq!(drain(&mut r, 0).len(), 2);

        // Duplicate below rcv_nxt.
        r.on_segment(MS, &nth(1, MS));
        let a = drain(&mut r, MS);
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].ack, 4000);
        assert!(a[0].dsack);
        assert_eq!(blocks(&a[0]), vec![(1000, 2000)]);

        // Reported once: the next ACK carries no DSACK.
        r.on_segment(2 * MS, &nth(6, 2 * MS));
        r.on_segment(2 * MS, &nth(8, 2 * MS));
        let a = drain(&mut r, 2 * MS);
        assert!(a.iter().all(|a| !a.dsack));
        assert_eq!(blocks(&a[1]), vec![(8000, 9000), (6000, 7000)]);

        // Duplicate inside an out-of-order block: DSACK, then the
        // containing block, then the other blocks without repeating it.
        r.on_segment(3 * MS, &nth(7, 3 * MS));
        drain(&mut r, 3 * MS);
        r.on_segment(3 * MS, &nth(10, 3 * MS));
        drain(&mut r, 3 * MS);
        // Runs now: [6000,9000) and [10000,11000), the latter most recent.
        r.on_segment(4 * MS, &seg(6500, 1000, 4 * MS));
        let a = drain(&mut r, 4 * MS);
        assert_eq!(a.len(), 1);
        assert!(a[0].dsack);
        assert_eq!(
            blocks(&a[0]),
            vec![(6500, 7500), (6000, 9000), (10000, 11000)]
        );
        let a = {
            r.on_segment(5 * MS, &nth(12, 5 * MS));
            drain(&mut r, 5 * MS)
        };
        assert!(!a[0].dsack);
        assert_eq!(
            blocks(&a[0]),
            vec![(12000, 13000), (6000, 9000), (10000, 11000)]
        );

        // Partial duplicate straddling rcv_nxt: only the old part is
        // reported, the new part advances rcv_nxt.
        r.on_segment(6 * MS, &seg(3500, 1000, 6 * MS));
        let a = drain(&mut r, 6 * MS);
        assert_eq!(a[0].ack, 4500);
        assert!(a[0].dsack);
        assert_eq!(a[0].sack.as_slice()[0], Range::new(3500, 4000));
        assert_eq!(r.stats().duplicate_segments, 2);
        assert_eq!(r.stats().dsacks_sent, 3);
    }

    #[test]
    fn dsack_disabled_keeps_plain_sack() {
        let mut r = Receiver::new(ReceiverConfig {
            dsack: false,
            ..cfg()
        });
        r.on_segment(0, &nth(2, 0));
        r.on_segment(0, &nth(2, 0));
        let a = drain(&mut r, 0);
        assert_eq!(a.len(), 2);
        assert!(!a[1].dsack);
        assert_eq!(blocks(&a[1]), vec![(2000, 3000)]);
    }

    #[test]
    fn timestamp_echo_follows_last_ack_sent() {
        let mut r = Receiver::new(cfg());
        // Two segments under one delayed ACK: the first one's TSval is
        // echoed (RFC 7323 section 4.3), so the sample includes the delay.
        r.on_segment(100, &nth(0, 10));
        r.on_segment(200, &nth(1, 20));
        let a = drain(&mut r, 200);
        assert_eq!((a[0].ts_val, a[0].ts_ecr), (200, 10));

        // Out-of-order segment above Last.ACK.sent (2000): not recorded.
        r.on_segment(300, &nth(3, 30));
        let a = drain(&mut r, 300);
        assert_eq!(a[0].ts_ecr, 10);

        // The hole-filling retransmission starts at Last.ACK.sent: its own
        // TSval is echoed.
        r.on_segment(400, &nth(2, 40));
        let a = drain(&mut r, 400);
        assert_eq!((a[0].ack, a[0].ts_ecr), (4000, 40));

        // An older TSval never moves TS.Recent back.
        r.on_segment(500, &nth(4, 5));
        r.on_segment(500, &nth(5, 50));
        let a = drain(&mut r, 500);
        assert_eq!(a[0].ts_ecr, 40);

        // A wholly old duplicate fails the acceptability test (RFC 7323
        // R2) and is not recorded.
        r.on_segment(600, &nth(0, 60));
        let a = drain(&mut r, 600);
        assert_eq!(a[0].ts_ecr, 40);
    }

    #[test]
    fn finite_buffer_fills_drops_and_never_shrinks() {
        // rcvbuf 4 MSS, an application that never reads.
        let mut r = Receiver::new(ReceiverConfig {
            rcvbuf: 4000,
            read_rate: Some(0),
            ack_mode: AckMode::Quick,
            ..cfg()
        });
        let mut rights = vec![];
        // Out-of-order data takes buffer space, but the advertised right
        // edge stays at 4000.
        r.on_segment(0, &nth(2, 0));
        let a = drain(&mut r, 0);
        assert_eq!((a[0].ack, a[0].window), (0, 4000));
        rights.push(a[0].ack + a[0].window);
        for n in [0, 1, 3] {
            r.on_segment(0, &nth(n, 0));
            for a in drain(&mut r, 0) {
                rights.push(a.ack + a.window);
            }
        }
        assert_eq!(r.rcv_nxt(), 4000);
        // Beyond the right edge: dropped and answered at once.
        r.on_segment(MS, &nth(4, MS));
        let a = drain(&mut r, MS);
        assert_eq!(a.len(), 1);
        assert_eq!((a[0].ack, a[0].window), (4000, 0));
        assert_eq!(r.rcv_nxt(), 4000);
        assert_eq!(r.stats().out_of_window_drops, 1);
        // A straddling segment is trimmed to the edge.
        let mut r2 = Receiver::new(ReceiverConfig {
            rcvbuf: 1500,
            read_rate: Some(0),
            ..cfg()
        });
        r2.on_segment(0, &nth(0, 0));
        r2.on_segment(0, &nth(1, 0));
        let a = drain(&mut r2, 0);
        assert_eq!(a.len(), 1);
        assert_eq!((a[0].ack, a[0].window), (1500, 0));
        assert_eq!(r2.stats().out_of_window_drops, 1);
        assert_eq!(r.poll_timeout(), None, "a reader at rate 0 never reopens");
        assert!(rights.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(*rights.last().unwrap(), 4000);
    }

    #[test]
    fn window_update_after_reading_reopens_a_zero_window() {
        // 10 kB/s: one MSS per 100 ms.
        let mut r = Receiver::new(ReceiverConfig {
            rcvbuf: 4000,
            read_rate: Some(10_000),
            ..cfg()
        });
        for n in 0..4 {
            r.on_segment(0, &nth(n, 0));
        }
        let a = drain(&mut r, 0);
        assert_eq!(a.len(), 2);
        assert_eq!((a[1].ack, a[1].window), (4000, 0));
        // A probe beyond the closed window is dropped and answered.
        r.on_segment(10 * MS, &seg(4000, 1, 10 * MS));
        let a = drain(&mut r, 10 * MS);
        assert_eq!((a[0].ack, a[0].window), (4000, 0));
        // The window is below one MSS, so reopening by
        // min(rcvbuf/2, MSS) = 1000 bytes is worth an update: 100 ms.
        assert_eq!(r.poll_timeout(), Some(100 * MS));
        r.on_timeout(99 * MS);
        assert!(r.poll_transmit(99 * MS).is_none());
        assert_eq!(r.poll_timeout(), Some(100 * MS));
        r.on_timeout(100 * MS);
        let a = drain(&mut r, 100 * MS);
        assert_eq!(a.len(), 1);
        assert_eq!((a[0].ack, a[0].window), (4000, 1000));
        assert_eq!(r.stats().bytes_read, 1000);
        // Now the window is one MSS: the next unprompted update waits for
        // min(rcvbuf/2, 2*MSS) = 2000 more bytes of reading.
        assert_eq!(r.poll_timeout(), Some(300 * MS));
        // A segment arrives at 150 ms (1500 bytes read by then) and fills
        // the window: delayed ACK armed for 350 ms, and the window is below
        // one MSS again, so 500 more bytes of reading (50 ms) justify an
        // update, which carries the delayed ACK with it.
        r.on_segment(150 * MS, &nth(4, 150 * MS));
        assert!(r.poll_transmit(150 * MS).is_none());
        assert_eq!(r.poll_timeout(), Some(200 * MS));
        r.on_timeout(200 * MS);
        let a = drain(&mut r, 200 * MS);
        assert_eq!(a.len(), 1);
        // Read 2000 of 5000 received: 3000 held, right edge 5000 + 1000.
        assert_eq!((a[0].ack, a[0].window), (5000, 1000));
        assert_eq!(r.poll_timeout(), Some(400 * MS));
        r.on_timeout(400 * MS);
        let a = drain(&mut r, 400 * MS);
        assert_eq!((a[0].ack, a[0].window), (5000, 3000));
    }

    #[test]
    fn lazy_reading_loses_and_duplicates_nothing() {
        // 3 bytes per second: every step leaves a fractional remainder.
        let mut r = Receiver::new(ReceiverConfig {
            rcvbuf: 1_000_000,
            read_rate: Some(3),
            ..cfg()
        });
        r.on_segment(0, &seg(0, 1000, 0));
        let mut t = 0;
        for _ in 0..300 {
            t += 7 * SEC / 10;
            r.on_timeout(t);
        }
        // 300 * 0.7 s * 3 B/s = 630 bytes exactly.
        assert_eq!(r.stats().bytes_read, 630);
        // Idle time with an empty buffer earns no credit.
        r.on_timeout(10_000 * SEC);
        assert_eq!(r.stats().bytes_read, 1000);
        r.on_segment(10_000 * SEC, &seg(1000, 10, 0));
        r.on_timeout(10_001 * SEC);
        assert_eq!(r.stats().bytes_read, 1003);
    }

    #[test]
    fn hostile_inputs_do_not_panic() {
        let mut r = Receiver::new(ReceiverConfig {
            rcvbuf: u64::MAX,
            read_rate: Some(u64::MAX),
            ..cfg()
        });
        for s in [
            seg(u64::MAX, u32::MAX, 0),
            seg(u64::MAX - 5, 100, u64::MAX),
            seg(0, 0, 0),
            seg(u64::MAX / 2, u32::MAX, 1),
            seg(0, u32::MAX, 2),
            seg(5, 10, 3),
        ] {
            r.on_segment(u64::MAX, &s);
            r.on_timeout(0);
            let _ = r.poll_timeout();
            drain(&mut r, 0);
        }
        let mut z = Receiver::new(ReceiverConfig {
            rcvbuf: 0,
            mss: 0,
            sack_blocks: 200,
            read_rate: Some(1),
            ..cfg()
        });
        for s in [seg(0, 1, 0), seg(0, 0, 0), seg(7, 3, 0)] {
            z.on_segment(1, &s);
            let _ = z.poll_timeout();
            assert_eq!(drain(&mut z, 1)[0].window, 0);
        }
        assert_eq!(z.rcv_nxt(), 0);
    }

    #[test]
    fn events_when_tracing() {
        let mut r = Receiver::new(cfg());
        r.on_segment(0, &nth(0, 0));
        assert!(r.poll_event().is_none());
        r.set_tracing(true);
        r.on_segment(5, &nth(2, 0));
        drain(&mut r, 6);
        let e: Vec<_> = std::iter::from_fn(|| r.poll_event()).collect();
        assert_eq!(
            e,
            vec![
                Timed {
                    at: 5,
                    event: Event::DataReceived {
                        seq: 2000,
                        len: MSS,
                        duplicate: false,
                        in_order: false
                    }
                },
                Timed {
                    at: 6,
                    event: Event::AckSent {
                        ack: 1000,
                        sack_blocks: 1,
                        dsack: false
                    }
                },
            ]
        );
    }

    #[test]
    fn out_of_window_segment_gets_the_same_ack_and_no_new_sack() {
        // The mobile paper's section VIII: a segment sent beyond the
        // advertised window is discarded and answered by a duplicate ACK
        // that tells the sender nothing new.
        let mut r = Receiver::new(ReceiverConfig {
            rcvbuf: 4000,
            ..cfg()
        });
        r.on_segment(0, &nth(0, 0));
        r.on_segment(MS, &nth(2, MS));
        r.on_segment(MS, &nth(3, MS));
        let before = drain(&mut r, MS).pop().unwrap();
        // Out-of-order data takes buffer space, so the right edge stays
        // at the initial 4000 and segment 4 lies just beyond it.
        assert_eq!((before.ack, before.ack + before.window), (1000, 4000));
        assert_eq!(blocks(&before), vec![(2000, 4000)]);
        r.on_segment(2 * MS, &nth(4, 2 * MS));
        let a = drain(&mut r, 2 * MS);
        assert_eq!(a.len(), 1, "answered at once");
        assert_eq!(a[0].ack, before.ack);
        assert_eq!(blocks(&a[0]), blocks(&before));
        assert!(!a[0].dsack);
        assert_eq!(r.stats().out_of_window_drops, 1);
        assert_eq!(r.stats().duplicate_segments, 0);
        assert!(!r.ooo.contains(4000));
    }

    /// The discard log, worked by hand (MSS 1000, a 4000-byte buffer).
    /// Segment 0 is read at once; 2 and 3 are held out of order above the
    /// hole at 1000, so the right edge stays at 4000. Segment 4 ends at
    /// 5000 = 1000 + 4000: it would fit one buffer from the hole, so the
    /// SACKed data above the hole held its space; 1 segment past the
    /// edge. Segment 6 ends at 7000 > 5000: only filling the hole could
    /// have admitted it; 3 segments past. With an application that never
    /// reads and no hole, the unread data holds the space.
    #[test]
    fn discards_are_logged_by_reason_and_distance() {
        let mut r = Receiver::new(ReceiverConfig {
            rcvbuf: 4000,
            ..cfg()
        });
        for n in [0, 2, 3, 4, 6] {
            r.on_segment(MS, &nth(n, MS));
        }
        let d = &r.stats().discards;
        assert_eq!((d.no_hole, d.held_above_hole, d.hole_unfilled), (0, 1, 1));
        assert_eq!(d.past, [1, 1, 0, 0, 0, 0, 0]);
        assert_eq!((d.past_sum, d.past_max, d.total()), (4, 3, 2));
        assert_eq!(r.stats().out_of_window_drops, 2);

        let mut r = Receiver::new(ReceiverConfig {
            rcvbuf: 4000,
            read_rate: Some(0),
            ..cfg()
        });
        for n in 0..5 {
            r.on_segment(MS, &nth(n, MS));
        }
        let d = &r.stats().discards;
        assert_eq!((d.no_hole, d.held_above_hole, d.hole_unfilled), (1, 0, 0));
        assert_eq!(d.past_max, 1);
    }

    #[test]
    fn max_occupancy_counts_unread_and_out_of_order_bytes() {
        let mut r = Receiver::new(ReceiverConfig {
            read_rate: Some(0),
            ..cfg()
        });
        r.on_segment(0, &nth(0, 0));
        r.on_segment(0, &nth(2, 0));
        r.on_segment(0, &nth(3, 0));
        assert_eq!(r.stats().max_occupancy, 3000);
        r.on_segment(0, &nth(1, 0));
        assert_eq!(r.stats().max_occupancy, 4000);
        // Instant reading leaves only out-of-order data in the buffer.
        let mut r = Receiver::new(cfg());
        r.on_segment(0, &nth(0, 0));
        r.on_segment(0, &nth(2, 0));
        r.on_segment(0, &nth(4, 0));
        r.on_segment(0, &nth(1, 0));
        assert_eq!(r.stats().max_occupancy, 2000);
    }

    #[test]
    fn starvation_is_a_bubble_at_the_head_under_an_exhausted_window() {
        // rcvbuf 4 MSS, instant reading, an ACK for every segment.
        let mut r = Receiver::new(ReceiverConfig {
            rcvbuf: 4000,
            ack_mode: AckMode::Quick,
            ..cfg()
        });
        // Segment 0 in order: read at once, right edge 1000 + 4000 = 5000.
        r.on_segment(0, &nth(0, 0));
        let a = drain(&mut r, 0);
        assert_eq!(a[0].ack + a[0].window, 5000);
        // Segment 1 lost. 2 and 3 leave a bubble at the head, but 1000
        // bytes of window above 4000 still take a segment: not starved.
        r.on_segment(10 * MS, &nth(2, 10 * MS));
        r.on_segment(20 * MS, &nth(3, 20 * MS));
        assert_eq!(r.starvation_at(20 * MS), 0);
        // Segment 4 reaches the edge (5000): starved from 30 ms.
        r.on_segment(30 * MS, &nth(4, 30 * MS));
        assert_eq!(r.starvation_at(30 * MS), 0);
        assert_eq!(r.starvation_at(80 * MS), 50 * MS);
        // Segment 5 lies past the edge: dropped, still starved.
        r.on_segment(100 * MS, &nth(5, 100 * MS));
        assert_eq!(r.stats().out_of_window_drops, 1);
        // Segment 1's retransmission fills the bubble at 130 ms: 100 ms.
        r.on_segment(130 * MS, &nth(1, 130 * MS));
        assert_eq!(r.rcv_nxt(), 5000);
        assert_eq!(r.starvation_at(130 * MS), 100 * MS);
        assert_eq!(r.starvation_at(190 * MS), 100 * MS);
        let a = drain(&mut r, 130 * MS);
        assert_eq!(a.last().map(|a| a.ack + a.window), Some(9000));
        // Again: 6 lost, 7 and 8 reach the new edge (9000) at 200 ms; an
        // open period counts up to the time asked.
        r.on_segment(200 * MS, &nth(7, 200 * MS));
        r.on_segment(200 * MS, &nth(8, 200 * MS));
        assert_eq!(r.starvation_at(250 * MS), 150 * MS);
        // A full buffer without a bubble at the head is not starvation:
        // an application that never reads, every byte in order.
        let mut r = Receiver::new(ReceiverConfig {
            rcvbuf: 4000,
            read_rate: Some(0),
            ack_mode: AckMode::Quick,
            ..cfg()
        });
        for n in 0..4 {
            r.on_segment(0, &nth(n, 0));
        }
        assert_eq!(r.starvation_at(SEC), 0);
    }

    #[test]
    fn read_delay_makes_in_order_data_readable_later_in_arrival_order() {
        let mut r = Receiver::new(ReceiverConfig {
            read_delay: 100 * MS,
            ..cfg()
        });
        r.on_segment(0, &nth(0, 0));
        r.on_segment(5 * MS, &nth(2, 5 * MS));
        // The gap fill makes 1000..3000 in order at 10 ms.
        r.on_segment(10 * MS, &nth(1, 10 * MS));
        let read_at = |r: &mut Receiver, t| {
            r.on_timeout(t);
            r.stats().bytes_read
        };
        assert_eq!(read_at(&mut r, 99 * MS), 0);
        assert_eq!(read_at(&mut r, 100 * MS), 1000);
        assert_eq!(read_at(&mut r, 109 * MS), 1000);
        assert_eq!(read_at(&mut r, 110 * MS), 3000);
        assert!(r.marks.is_empty());
    }

    #[test]
    fn read_delay_holds_the_window_and_updates_it_when_the_data_is_read() {
        let mut r = Receiver::new(ReceiverConfig {
            rcvbuf: 4000,
            read_delay: 100 * MS,
            ack_mode: AckMode::Quick,
            ..cfg()
        });
        r.on_segment(0, &nth(0, 0));
        r.on_segment(0, &nth(1, 0));
        let a = drain(&mut r, 0);
        // Unread data takes buffer space: the right edge stays at 4000.
        assert_eq!((a[1].ack, a[1].window), (2000, 2000));
        // Both arrivals become readable at 100 ms; reading 2000 bytes then
        // moves the right edge by min(rcvbuf / 2, 2 MSS), worth an update.
        assert_eq!(r.poll_timeout(), Some(100 * MS));
        r.on_timeout(99 * MS);
        assert!(r.poll_transmit(99 * MS).is_none());
        assert_eq!(r.stats().bytes_read, 0);
        r.on_timeout(100 * MS);
        let a = drain(&mut r, 100 * MS);
        assert_eq!(a.len(), 1);
        assert_eq!((a[0].ack, a[0].window), (2000, 4000));
        assert_eq!(r.poll_timeout(), None);

        // Without the delay the same arrivals leave the window open.
        let mut r = Receiver::new(ReceiverConfig {
            rcvbuf: 4000,
            ack_mode: AckMode::Quick,
            ..cfg()
        });
        r.on_segment(0, &nth(0, 0));
        r.on_segment(0, &nth(1, 0));
        let a = drain(&mut r, 0);
        assert_eq!((a[1].ack, a[1].window), (2000, 4000));
    }

    #[test]
    fn read_delay_and_read_rate_combine() {
        // 10 kB/s (one MSS per 100 ms), readable 50 ms after arrival.
        let mut r = Receiver::new(ReceiverConfig {
            rcvbuf: 4000,
            read_rate: Some(10_000),
            read_delay: 50 * MS,
            ..cfg()
        });
        for n in 0..4 {
            r.on_segment(0, &nth(n, 0));
        }
        let a = drain(&mut r, 0);
        assert_eq!((a[1].ack, a[1].window), (4000, 0));
        // A zero window: one MSS of reading is worth an update. Reading
        // starts at 50 ms, so it is done at 150 ms; the first wake-up, at
        // the later of "readable" (50 ms) and "read at the rate from 0"
        // (100 ms), is early and finds half of it read.
        assert_eq!(r.poll_timeout(), Some(100 * MS));
        r.on_timeout(100 * MS);
        assert!(r.poll_transmit(100 * MS).is_none());
        assert_eq!(r.stats().bytes_read, 500, "no credit before 50 ms");
        assert_eq!(r.poll_timeout(), Some(150 * MS));
        r.on_timeout(150 * MS);
        let a = drain(&mut r, 150 * MS);
        assert_eq!((a[0].ack, a[0].window), (4000, 1000));
        assert_eq!(r.stats().bytes_read, 1000);
    }

    /// Checks one ACK against everything received so far.
    fn check_ack(a: &Ack, prev: &mut (u64, u64), got: &SeqSet, limit: usize) {
        assert!(a.ack >= prev.0, "cumulative ACK went back");
        assert!(a.ack + a.window >= prev.1, "right edge moved left");
        *prev = (a.ack, a.ack + a.window);
        assert!(got.covers(0, a.ack));
        assert!(a.sack.len() <= limit);
        let b = a.sack.as_slice();
        let normal = if a.dsack {
            let d = b[0];
            assert!(!d.is_empty() && got.covers(d.start, d.end));
            &b[1..]
        } else {
            b
        };
        for (i, x) in normal.iter().enumerate() {
            assert!(x.start > a.ack && x.start < x.end);
            assert!(got.covers(x.start, x.end), "SACK of unreceived data");
            for y in &normal[i + 1..] {
                assert!(x.end < y.start || y.end < x.start, "blocks overlap");
            }
        }
    }

    proptest! {
        #[test]
        fn random_arrivals_reassemble(
            sizes in proptest::collection::vec(1u32..1500, 1..40),
            picks in proptest::collection::vec(any::<prop::sample::Index>(), 0..120),
            skips in proptest::collection::vec(any::<bool>(), 0..120),
            quick in any::<bool>(),
            sack_blocks in 0u8..5,
            rcvbuf in prop_oneof![Just(1u64 << 40), 1000u64..20_000],
        ) {
            let mut segs = vec![];
            let mut seq = 0;
            for (i, &len) in sizes.iter().enumerate() {
                segs.push(Segment { seg_no: i as u64, ..seg(seq, len, 0) });
                seq += u64::from(len);
            }
            let n = seq;
            let c = ReceiverConfig {
                ack_mode: if quick { AckMode::Quick } else { AckMode::Delayed },
                sack_blocks,
                rcvbuf,
                mss: 1000,
                ..cfg()
            };
            let limit = usize::from(sack_blocks).min(MAX_SACK_BLOCKS);
            let mut r = Receiver::new(c);
            let mut got = SeqSet::new();
            let mut prev = (0, 0);
            let mut t: Time = 0;
            // Fires any timer that came due and checks what it produced.
            fn tick(r: &mut Receiver, t: Time, prev: &mut (u64, u64), got: &SeqSet, limit: usize) {
                if r.poll_timeout().is_some_and(|d| d <= t) {
                    r.on_timeout(t);
                }
                for a in drain(r, t) {
                    check_ack(&a, prev, got, limit);
                }
            }
            fn deliver(r: &mut Receiver, s: &Segment, t: Time, got: &mut SeqSet) {
                // What the receiver may hold: the part below the right edge
                // advertised before the arrival.
                let right = r.adv_right;
                let (nxt, had_ooo, queued) = (r.rcv_nxt, !r.ooo.is_empty(), r.acks.len());
                r.on_segment(t, &Segment { ts_val: t, ..*s });
                // RFC 5681 section 4.2 triggers: each one is its own ACK.
                if s.seq > nxt || s.end() <= nxt || had_ooo || s.end() > right {
                    assert_eq!(r.acks.len(), queued + 1, "immediate ACK missing");
                }
                if s.seq < right {
                    got.insert(s.seq, s.end().min(right));
                }
            }
            // Random order with duplicates, sometimes not polling between
            // arrivals so that ACKs queue up.
            for (i, p) in picks.iter().enumerate() {
                t += MS;
                deliver(&mut r, &segs[p.index(segs.len())], t, &mut got);
                if !skips.get(i).copied().unwrap_or(false) {
                    tick(&mut r, t, &mut prev, &got, limit);
                }
            }
            tick(&mut r, t, &mut prev, &got, limit);
            // The sender's retransmissions: always the segment holding
            // rcv_nxt, which the window must eventually let in.
            let mut rounds = 0;
            while r.rcv_nxt() < n {
                rounds += 1;
                prop_assert!(rounds < 10_000, "no progress at {}", r.rcv_nxt());
                let i = segs.partition_point(|s| s.end() <= r.rcv_nxt());
                t += MS;
                deliver(&mut r, &segs[i], t, &mut got);
                tick(&mut r, t, &mut prev, &got, limit);
            }
            if let Some(d) = r.poll_timeout() {
                tick(&mut r, d, &mut prev, &got, limit);
            }
            prop_assert_eq!(prev.0, n);
            prop_assert!(r.ooo.is_empty());
            prop_assert_eq!(r.poll_timeout(), None);
        }

        /// The SACK list sent as it stands (`recent_exact`) is the list
        /// the revalidation builds: a receiver that always revalidates,
        /// fed the same segments in lockstep (holes, duplicates, fills
        /// below and between runs, delayed and quick ACKs, any block
        /// limit), sends the same ACKs and keeps the same list.
        #[test]
        fn sack_list_kept_as_is_matches_the_revalidated_one(
            arrivals in proptest::collection::vec((0u64..60, any::<bool>()), 1..150),
            quick in any::<bool>(),
            sack_blocks in 1u8..5,
        ) {
            let c = ReceiverConfig {
                ack_mode: if quick { AckMode::Quick } else { AckMode::Delayed },
                sack_blocks,
                mss: 1000,
                ..cfg()
            };
            let (mut fast, mut slow) = (Receiver::new(c.clone()), Receiver::new(c));
            let mut t: Time = 0;
            for (i, poll) in arrivals {
                t += MS;
                let s = seg(i * 1000, 1000, t);
                slow.recent_exact = false;
                fast.on_segment(t, &s);
                slow.on_segment(t, &s);
                if poll {
                    // A delayed ACK's timer builds one too.
                    slow.recent_exact = false;
                    for r in [&mut fast, &mut slow] {
                        if r.poll_timeout().is_some_and(|d| d <= t) {
                            r.on_timeout(t);
                        }
                    }
                    prop_assert_eq!(drain(&mut fast, t), drain(&mut slow, t));
                }
                prop_assert_eq!(
                    &fast.recent[..fast.recent_len],
                    &slow.recent[..slow.recent_len]
                );
            }
        }

        #[test]
        fn hostile_segments_keep_invariants(
            segs in proptest::collection::vec(
                (
                    prop_oneof![0u64..20_000, (u64::MAX - 20_000)..=u64::MAX, any::<u64>()],
                    prop_oneof![0u32..2000, Just(0u32), any::<u32>()],
                    any::<u64>(),
                    0u64..1_000_000_000,
                ),
                1..80,
            ),
            rcvbuf in prop_oneof![0u64..10_000, any::<u64>()],
            read_rate in prop_oneof![Just(None), (0u64..100_000).prop_map(Some), any::<u64>().prop_map(Some)],
            mss in prop_oneof![Just(0u32), 1u32..2000, any::<u32>()],
            sack_blocks in any::<u8>(),
            quick in any::<bool>(),
        ) {
            let mut r = Receiver::new(ReceiverConfig {
                ack_mode: if quick { AckMode::Quick } else { AckMode::Delayed },
                delack_timeout: 200 * MS,
                linux_delack: false,
                grow_window: sack_blocks % 2 == 1,
                autotune: sack_blocks % 3 == 0,
                sack_blocks,
                dsack: true,
                rcvbuf,
                read_rate,
                read_delay: 0,
                window_clamp: None,
                mss,
                echo_order: quick,
            });
            let limit = usize::from(sack_blocks).min(MAX_SACK_BLOCKS);
            let mut prev = (0u64, 0u64);
            let mut t: Time = 0;
            for (seq, len, ts, dt) in segs {
                // Time may also jump far ahead or (wrongly) back.
                t = if dt % 7 == 0 { t.saturating_sub(dt) } else { t.saturating_add(dt) };
                r.on_segment(t, &Segment { ts_val: ts, ..seg(seq, len, ts) });
                if let Some(d) = r.poll_timeout() {
                    r.on_timeout(d);
                }
                while let Some(a) = r.poll_transmit(t) {
                    prop_assert!(a.ack >= prev.0);
                    let right = a.ack.checked_add(a.window).expect("edge fits u64");
                    prop_assert!(right >= prev.1);
                    prev = (a.ack, right);
                    prop_assert!(a.sack.len() <= limit);
                    let b = a.sack.as_slice();
                    let normal = if a.dsack { &b[1..] } else { b };
                    for (i, x) in normal.iter().enumerate() {
                        prop_assert!(x.start > a.ack && x.start < x.end && x.end <= right);
                        for y in &normal[i + 1..] {
                            prop_assert!(x.end < y.start || y.end < x.start);
                        }
                    }
                }
                let held = (r.rcv_nxt - r.read_pos).saturating_add(r.ooo.total());
                prop_assert!(held <= rcvbuf);
                prop_assert!(r.adv_right >= r.rcv_nxt);
            }
        }
    }

    proptest! {
        #[test]
        fn read_delay_keeps_the_buffer_and_window_honest(
            segs in proptest::collection::vec((0u64..20, 0u64..30_000_000), 1..60),
            read_delay in 1u64..300_000_000,
            read_rate in prop_oneof![Just(None), (1_000u64..200_000).prop_map(Some)],
            rcvbuf in 1_000u64..20_000,
        ) {
            let mut r = Receiver::new(ReceiverConfig {
                rcvbuf,
                read_rate,
                read_delay,
                ..cfg()
            });
            let mut prev = (0u64, 0u64);
            let mut t: Time = 0;
            let mut check = |r: &mut Receiver, t: Time| -> Result<(), TestCaseError> {
                for a in drain(r, t) {
                    prop_assert!(a.ack >= prev.0);
                    prop_assert!(a.ack + a.window >= prev.1, "right edge moved left");
                    prev = (a.ack, a.ack + a.window);
                }
                let held = (r.rcv_nxt - r.read_pos) + r.ooo.total();
                prop_assert!(held <= rcvbuf);
                prop_assert!(r.read_pos <= r.readable.max(r.read_pos) && r.readable <= r.rcv_nxt);
                prop_assert!(r.marks.iter().zip(r.marks.iter().skip(1)).all(|(a, b)| a.0 < b.0 && a.1 < b.1));
                Ok(())
            };
            for (n, dt) in segs {
                t += dt;
                while let Some(d) = r.poll_timeout().filter(|&d| d <= t) {
                    r.on_timeout(d);
                    check(&mut r, d)?;
                }
                r.on_segment(t, &nth(n, t));
                check(&mut r, t)?;
            }
            // With no more arrivals, the timer alone reads everything.
            let mut wakes = 0;
            while let Some(d) = r.poll_timeout() {
                wakes += 1;
                prop_assert!(wakes < 10_000, "timer never settles");
                let d = d.max(t);
                prop_assert!(d > t || wakes == 1 || r.window_update_due());
                t = d;
                r.on_timeout(t);
                check(&mut r, t)?;
            }
            r.on_timeout(t + 1_000 * SEC);
            prop_assert_eq!(r.stats().bytes_read, r.rcv_nxt());
        }
    }

    proptest! {
        /// With a clamp the advertised window never exceeds it, and the
        /// buffer behind it still never holds more than rcvbuf.
        #[test]
        fn window_clamp_bounds_every_advertised_window(
            segs in proptest::collection::vec((0u64..40, 0u64..30_000_000), 1..80),
            rcvbuf in 1_000u64..30_000,
            clamp in 1u64..30_000,
            read_rate in prop_oneof![Just(None), (1_000u64..200_000).prop_map(Some)],
            read_delay in prop_oneof![Just(0u64), 1u64..100_000_000],
            quick in any::<bool>(),
        ) {
            let mut r = Receiver::new(ReceiverConfig {
                ack_mode: if quick { AckMode::Quick } else { AckMode::Delayed },
                rcvbuf,
                window_clamp: Some(clamp),
                read_rate,
                read_delay,
                ..cfg()
            });
            r.connect(0);
            let mut t: Time = 0;
            let check = |r: &mut Receiver, t: Time| -> Result<(), TestCaseError> {
                for a in drain(r, t) {
                    prop_assert!(a.window <= clamp, "window {} > clamp {}", a.window, clamp);
                }
                prop_assert!(r.carried_ack(t).window <= clamp);
                prop_assert!(r.adv_right - r.rcv_nxt <= clamp);
                let held = (r.rcv_nxt - r.read_pos) + r.ooo.total();
                prop_assert!(held <= rcvbuf);
                Ok(())
            };
            check(&mut r, t)?;
            for (n, dt) in segs {
                t += dt;
                while let Some(d) = r.poll_timeout().filter(|&d| d <= t) {
                    r.on_timeout(d);
                    check(&mut r, d)?;
                }
                r.on_segment(t, &nth(n, t));
                check(&mut r, t)?;
            }
        }
    }

    proptest! {
        /// A sample between arrivals sees what the next arrival's reading
        /// will see, and leaves the receiver as it was.
        #[test]
        fn occupancy_at_reads_ahead_without_moving_the_reading(
            segs in proptest::collection::vec((0u64..20, 0u64..30_000_000), 1..40),
            probes in proptest::collection::vec(0u64..30_000_000, 1..40),
            read_delay in prop_oneof![Just(0u64), 1u64..300_000_000],
            read_rate in prop_oneof![Just(None), (1_000u64..200_000).prop_map(Some)],
        ) {
            let config = ReceiverConfig { rcvbuf: 20_000, read_rate, read_delay, ..cfg() };
            // Twin receivers: `a` is only ever sampled, `b` reads at the
            // sampled times. Reading split at arbitrary points may round
            // differently, so they are compared before `b` reads.
            let mut a = Receiver::new(config.clone());
            let mut t: Time = 0;
            for ((n, dt), probe) in segs.iter().zip(probes.iter().cycle()) {
                t += dt;
                a.on_segment(t, &nth(*n, t));
                let _ = drain(&mut a, t);
                let at = t + probe;
                let before = (a.read_pos, a.read_time, a.read_frac, a.readable, a.marks.len());
                let sampled = a.occupancy_at(at);
                prop_assert_eq!(
                    before,
                    (a.read_pos, a.read_time, a.read_frac, a.readable, a.marks.len())
                );
                let mut b = Receiver::new(config.clone());
                b.rcv_nxt = a.rcv_nxt;
                b.ooo = a.ooo.clone();
                (b.read_pos, b.read_time, b.read_frac) = (a.read_pos, a.read_time, a.read_frac);
                b.readable = a.readable;
                b.marks = a.marks.clone();
                b.advance_read(at);
                let held = (b.rcv_nxt - b.read_pos).saturating_add(b.ooo.total());
                prop_assert_eq!(sampled, held);
            }
        }
    }

    fn clamped(rcvbuf: u64, clamp: Option<u64>) -> Receiver {
        Receiver::new(ReceiverConfig {
            ack_mode: AckMode::Quick,
            rcvbuf,
            window_clamp: clamp,
            ..cfg()
        })
    }

    /// Delivers segment `n` and returns the right edge of the last ACK.
    fn edge_after(r: &mut Receiver, n: u64) -> u64 {
        r.on_segment(0, &nth(n, 1));
        let a = drain(r, 0).pop().expect("quick mode ACKs every segment");
        a.ack + a.window
    }

    #[test]
    fn window_clamp_bounds_the_window_not_the_buffer() {
        // rcvbuf 8000, clamp 4000, MSS 1000: the first window is the clamp.
        let mut r = clamped(8000, Some(4000));
        assert_eq!(r.adv_right, 4000);
        // Segment 0 missing, 1..3 SACKed: 3000 held, 5000 of buffer free,
        // but the window from rcv_nxt = 0 stays min(4000, 5000).
        for n in 1..=3 {
            assert_eq!(edge_after(&mut r, n), 4000);
        }
        // Segment 0 fills the hole: rcv_nxt 4000, all read, and the
        // window is min(4000, 8000) past it.
        assert_eq!(edge_after(&mut r, 0), 8000);
    }

    #[test]
    fn window_clamp_headroom_keeps_sacked_data_out_of_the_window() {
        // Segment 0 arrives, 1 and 3 are holes, 2 and 4 are SACKed; then
        // 1 arrives, leaving the second hole at 3000 with 4000..5000 held.
        // Hand-worked edges (quick ACKs), headroom (rcvbuf 8000, clamp
        // 4000) against none (rcvbuf = clamp = 4000):
        //   seg 0: rcv_nxt 1000, edge 1000 + 4000 = 5000 in both;
        //   seg 2, 4: held 1000 then 2000; edge stays 5000 in both (the
        //     buffer-only one would offer 1000 + 3000, then 1000 + 2000,
        //     but an edge never moves left);
        //   seg 1: rcv_nxt 3000, held 1000: 3000 + min(4000, 7000) = 7000
        //     with headroom, 3000 + (4000 - 1000) = 6000 without.
        let run = |rcvbuf, clamp| {
            let mut r = clamped(rcvbuf, clamp);
            [0, 2, 4, 1].map(|n| edge_after(&mut r, n))
        };
        assert_eq!(run(8000, Some(4000)), [5000, 5000, 5000, 7000]);
        assert_eq!(run(4000, Some(4000)), [5000, 5000, 5000, 6000]);
        assert_eq!(run(4000, None), run(4000, Some(4000)));
    }

    #[test]
    fn window_clamp_sets_the_syn_window_and_discards_past_it() {
        let mut r = clamped(8000, Some(4000));
        r.connect(0);
        assert_eq!(drain(&mut r, 0)[0].window, 4000);
        // A clamp above the buffer changes nothing.
        assert_eq!(clamped(8000, Some(1 << 40)).adv_right, 8000);
        let mut r = clamped(8000, Some(4000));
        // Segment 1 held above the hole at 0; segment 4 (4000..5000) fits
        // the buffer but lies past the clamped edge: discarded, and only
        // filling the hole could have let it in (HoleUnfilled).
        edge_after(&mut r, 1);
        assert_eq!(edge_after(&mut r, 4), 4000);
        assert_eq!(r.stats().out_of_window_drops, 1);
        assert_eq!(r.stats().discards.hole_unfilled, 1);
        assert!(!r.holds(4000, 5000));
    }

    /// tcp_incr_quickack() by the kernel's integer arithmetic, 1448-byte
    /// segments: rcv_wnd / (2 * rcv_mss) quick ACKs, none making two, at
    /// most TCP_MAX_QUICKACKS (16), never fewer than are pending; asked
    /// for at the first data and after a gap longer than the RTO only.
    #[test]
    fn quick_ack_count_is_tcp_incr_quickack() {
        let first = |window: u64, pending: u64| {
            let mut d = LinuxDelack {
                quick: pending,
                ..Default::default()
            };
            d.on_data(0, || window / (2 * 1448));
            d.quick
        };
        assert_eq!(first(2895, 0), 2); // 2895 / 2896 = 0: two
        assert_eq!(first(2896, 0), 1); // one stays one
        assert_eq!(first(65_160, 0), 16); // 22, at most 16
        assert_eq!(first(2896, 5), 5); // a pending count is kept
        let mut d = LinuxDelack::default();
        d.on_data(0, || 0);
        assert_eq!((d.quick, d.ato), (2, ATO_MIN));
        d.quick = 0;
        // Gaps within the RTO (1 s without an RTT sample) ask nothing.
        d.on_data(10 * MS, || panic!("asked within the RTO"));
        d.on_data(40 * MS, || panic!("asked within the RTO"));
        assert_eq!(d.quick, 0);
        d.on_data(2 * SEC, || 1);
        assert_eq!(d.quick, 1);
        d.on_data(4 * SEC, || 10);
        assert_eq!(d.quick, 10);
        d.on_data(6 * SEC, || 3);
        assert_eq!(d.quick, 10);
    }

    /// 100 back-to-back 1448-byte segments into a 256 KiB buffer with
    /// Linux's delayed ACK, with and without `grow_window`. By the
    /// kernel's integer arithmetic:
    /// - tcp_select_initial_window(): tcp_full_space() of tcp_rmem[1] =
    ///   131072 * 128 >> 8 = 65536, rounded down to 1448-byte segments:
    ///   45 * 1448 = 65160, the first window and rcv_ssthresh;
    /// - tcp_incr_quickack() at the first data: min(65160 / 2896 = 22,
    ///   16) = 16 quick ACKs (without the key from the buffer, 262144 /
    ///   2896 = 90, also 16);
    /// - tcp_grow_window(): incr = max(2 * advmss, 2 * len) = max(2 *
    ///   1460, 2 * 1448) = 2920 per segment; room 262144 - 65160 = 196984
    ///   = 67 * 2920 + 1344, so segments 1..67 add 2920 (rcv_ssthresh
    ///   260800 after the 67th) and the 68th the last 1344 (262144);
    /// - quick: 16 | 1 = 17, less one for the ACK, 16 again on each of
    ///   the 68; then 16 more (segments 69..84); segment 85 waits, 86 is
    ///   the second full segment: 84 + 16 / 2 = 92 ACKs for 100 segments,
    ///   against 16 + 84 / 2 = 58 without the key.
    #[test]
    fn grow_window_quick_acks_until_the_window_is_open() {
        let run = |grow_window| {
            let mut r = Receiver::new(ReceiverConfig {
                linux_delack: true,
                grow_window,
                rcvbuf: 262_144,
                mss: 1448,
                ..cfg()
            });
            let mut acked = Vec::new();
            let mut windows = Vec::new();
            for n in 0..100u64 {
                let t = n * MS;
                r.on_segment(
                    t,
                    &Segment {
                        seg_no: n,
                        ..seg(n * 1448, 1448, t)
                    },
                );
                for a in drain(&mut r, t) {
                    acked.push(n + 1);
                    windows.push((a.ack, a.window));
                }
            }
            (r, acked, windows)
        };
        let (r, acked, windows) = run(true);
        assert_eq!(acked.len(), 92);
        assert_eq!(acked[..84], (1..=84).collect::<Vec<_>>()[..]);
        assert_eq!(acked[84..], [86, 88, 90, 92, 94, 96, 98, 100]);
        assert_eq!(r.rcv_ssthresh, Some(262_144));
        // After segment 1: rcv_ssthresh 65160 + 2920 = 68080; after 67:
        // 260800; after 68: the whole buffer.
        assert_eq!(windows[0], (1448, 68_080));
        assert_eq!(windows[66], (67 * 1448, 260_800));
        assert_eq!(windows[67], (68 * 1448, 262_144));
        let (r, acked, windows) = run(false);
        assert_eq!(acked.len(), 58);
        assert_eq!(acked[15..17], [16, 18]);
        assert_eq!(r.rcv_ssthresh, None);
        assert_eq!(windows[0], (1448, 262_144));
    }

    #[test]
    fn grow_window_first_window_and_small_segments() {
        let mk = |rcvbuf| {
            Receiver::new(ReceiverConfig {
                linux_delack: true,
                grow_window: true,
                rcvbuf,
                mss: 1448,
                ..cfg()
            })
        };
        // 16 MB: min(65536, 16e6) rounded down to 45 segments, 65160.
        assert_eq!(mk(16_000_000).adv_right, 65_160);
        // 16000 B: 16000 - 16000 % 1448 = 16000 - 72 = 15928.
        let mut r = mk(16_000);
        assert_eq!(r.adv_right, 15_928);
        // A 127-byte segment opens nothing (skb->len >= 128); a 128-byte
        // one adds min(room, 2920): 16000 - 15928 = 72.
        r.on_segment(0, &seg(0, 127, 0));
        assert_eq!(r.rcv_ssthresh, Some(15_928));
        r.on_segment(MS, &seg(127, 128, MS));
        assert_eq!(r.rcv_ssthresh, Some(16_000));
    }

    #[test]
    fn bubbles_and_holdings_follow_the_out_of_order_runs() {
        let mut r = Receiver::new(cfg());
        r.on_segment(0, &nth(0, 1));
        r.on_segment(0, &nth(2, 1));
        r.on_segment(0, &nth(4, 1));
        r.on_segment(0, &nth(5, 1));
        // Runs [2], [4, 5] above rcv_nxt = 1 segment: two bubbles.
        assert_eq!(r.ooo_runs(), 2);
        assert!(r.holds(0, 1000));
        assert!(r.holds(2000, 3000));
        assert!(r.holds(4000, 6000));
        assert!(!r.holds(1000, 2000));
        assert!(!r.holds(2000, 4000));
        assert_eq!(r.occupancy_at(0), 3000);
        r.on_segment(0, &nth(1, 1));
        assert_eq!(r.ooo_runs(), 1);
        r.on_segment(0, &nth(3, 1));
        assert_eq!(r.ooo_runs(), 0);
        assert!(r.holds(0, 6000));
    }

    proptest! {
        /// The reader that reads at once, answered without its cursor
        /// (issue 33): under any arrivals, in order or not, repeated or
        /// not, with or without autotuning, window growth, a clamp or a
        /// handshake, the general reading path run after the inline one
        /// finds nothing to change and no window update owed; everything
        /// in order is read, the buffer holds only the out-of-order data,
        /// `has_ack` says what `poll_transmit` finds, and the only timers
        /// are the delayed ACK's and the SYN's.
        #[test]
        fn an_instant_reader_reads_to_rcv_nxt_and_owes_no_window_update(
            arrivals in proptest::collection::vec((0u64..40, 1u32..3, 0u64..3), 1..120),
            linux in any::<bool>(),
            autotune in any::<bool>(),
            grow_window in any::<bool>(),
            connect in any::<bool>(),
            window_clamp in prop_oneof![Just(None), (2_000u64..60_000).prop_map(Some)],
        ) {
            let mut r = Receiver::new(ReceiverConfig {
                linux_delack: linux,
                autotune,
                grow_window,
                window_clamp,
                ..cfg()
            });
            if connect {
                r.connect(0);
            }
            // The inline answers against the general path's: reading up to
            // `now` again must leave the cursor, its time, its fraction and
            // the count as they are, and no window update may be due.
            let general_agrees = |r: &mut Receiver, now: Time| -> Result<(), TestCaseError> {
                r.advance_read(now);
                let inline = (r.read_pos, r.read_time, r.read_frac, r.stats.bytes_read);
                prop_assert_eq!(inline.0, r.rcv_nxt());
                prop_assert_eq!(inline.3, r.rcv_nxt());
                prop_assert_eq!(r.window_update_time(), None);
                prop_assert_eq!(r.paced_window_update_time(), None);
                r.advance_paced_read(now);
                prop_assert_eq!((r.read_pos, r.read_time, r.read_frac, r.stats.bytes_read), inline);
                Ok(())
            };
            let mut now = 0;
            for (n, k, dt) in arrivals {
                now += dt * MS;
                r.on_segment(now, &seg(n * u64::from(MSS), k * MSS, now));
                prop_assert_eq!(r.stats().bytes_read, r.rcv_nxt());
                prop_assert_eq!(r.occupancy_at(now), r.ooo.total());
                let syn = r.connect.as_ref().and_then(|c| c.timer);
                prop_assert_eq!(r.poll_timeout(), earliest(r.delack_deadline, syn));
                general_agrees(&mut r, now)?;
                let owed = r.has_ack();
                let acks = drain(&mut r, now);
                prop_assert_eq!(owed, !acks.is_empty());
                prop_assert!(!r.has_ack());
                if let Some(d) = r.poll_timeout().filter(|&d| d <= now + 500 * MS) {
                    now = now.max(d);
                    r.on_timeout(now);
                    prop_assert_eq!(r.stats().bytes_read, r.rcv_nxt());
                    general_agrees(&mut r, now)?;
                    drain(&mut r, now);
                }
            }
        }
    }
}
