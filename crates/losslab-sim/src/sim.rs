//! The discrete-event simulator: N flows over one drop-tail bottleneck,
//! with a reverse path for ACKs.
//!
//! Events come from five sources, each already in time order, so there is
//! no global priority queue of packets: the packet being serialised, the
//! FIFO of packets propagating forward (constant delay keeps FIFO order),
//! the FIFO of ACKs propagating back, the packets held back by a flow's
//! own delay, reordering or duplication (`held.rs`), and a heap of
//! endpoint timers holding at most a few entries per flow. The next event
//! is the minimum of five heads; ties go in that fixed order, which keeps
//! runs bit-for-bit reproducible.
//! A sixth source, last in that order: the segments in their senders'
//! hosts (`nic_rate`), one FIFO per flow (`NicLine`); a seventh, second
//! in that order (its ties must precede the ACKs they hold back): the ACK
//! being sent on the reverse path's own link (`reverse.rate`).
//! A link drains at a constant rate or by a trace (`link.rs`).

use std::cmp::Reverse;
use std::collections::binary_heap::PeekMut;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};

use losslab_core::config::{AckMode, ReceiverConfig, RtoConfig};
use losslab_core::detect::LeOrder;
use losslab_core::time::Time;
use losslab_core::{Ack, Algorithms, App, Handshake, Receiver, Segment, Sender, SenderConfig};

use crate::ack_reports::{counts_as_retransmission, AckReports};
use crate::chunks::{ConnChunks, FileRt};
use crate::held::Held;
use crate::link::{serialisation, Drain};
use crate::loss::{LossRt, PacketView, SynLoss};
use crate::rbb::RbbMeter;
use crate::rng::Stream;
use crate::scenario::{AckSpec, AppSpec, FlowSpec, QueueLimit, Scenario};
pub use crate::trace::{Body, Packet, PacketFate, Side, Tee, Tracer};
use crate::view::{FlowView, LinkStats, ObjectsView, RecoveryPeriod, RunView};

/// IPv4 (20) + TCP (20) + timestamps option (12) bytes on every packet.
pub const HEADER_BYTES: u32 = 52;
/// What a SYN carries beyond those: MSS (4), SACK permitted (2), window
/// scale (3) and padding (RFC 9293, RFC 2018, RFC 7323): 8 bytes more, as
/// a Linux SYN (60 bytes of TCP header).
pub const SYN_OPTION_BYTES: u32 = 8;

/// Per-flow state of the network side: counters and ground truth.
#[derive(Debug, Default)]
struct FlowNet {
    data_index: u64,
    ack_index: u64,
    /// SYNs (or SYN-ACKs) sent each way, for `syns` drop lists.
    syns_fwd: u64,
    syns_rev: u64,
    total: Option<u64>,
    mss: u32,
    /// The flow's own one-way access delay, both directions.
    extra_delay: Time,
    /// The sending host's interface rate (`nic_rate`), and when it is
    /// next free.
    nic_rate: Option<u64>,
    nic_free: Time,
    /// Bytes of the flow's own waiting in its host, its TCP Small Queues
    /// limit (`tsq_limit`), and whether the limit stopped its sender.
    host_bytes: u64,
    tsq_limit: Option<u64>,
    tsq_blocked: bool,
    /// seg_no -> bitmask of dropped transmissions (bit i: transmission i+1).
    dropped: BTreeMap<u64, u64>,
    /// seg_no -> highest transmission count sent, for retransmitted ones.
    retransmitted: BTreeMap<u64, u32>,
    /// seg_no -> bitmask of transmissions an extra copy (OR3) delivered
    /// and the receiver accepted: such a transmission reached the
    /// receiver even if its first copy was dropped or discarded.
    copies_delivered: BTreeMap<u64, u64>,
    /// seg_no -> bitmask of transmissions whose first copy reached the
    /// receiver and was discarded, wholly or in part, for lying past the
    /// advertised right edge (RFC 9293 3.10.7.4; Linux tcp_data_queue()).
    discarded: BTreeMap<u64, u64>,
    /// seg_no -> bitmask of transmissions an extra copy of which reached
    /// the receiver and was discarded.
    copies_discarded: BTreeMap<u64, u64>,
    periods: PeriodMeter,
    reports: AckReports,
}

/// What an open period needs to close: the link's counters when it
/// opened and the flow's highest segment through the link by then.
#[derive(Clone, Copy, Debug)]
struct OpenPeriod {
    start: Time,
    busy0: Time,
    packets0: u64,
    retransmissions0: u64,
    high: Option<u64>,
}

/// Per flow, touched O(1) per packet: a counter, a maximum and the open
/// period; the list grows only when a period closes.
#[derive(Debug, Default)]
struct PeriodMeter {
    /// U, the flow's round-trip propagation delay: a period lasts at
    /// least that long (Fig. 1: T2 to T5 is one U), so that idle time
    /// after early new data (opportunistic retransmission) still counts.
    min_len: Time,
    /// Highest seg_no of the flow that has left the bottleneck.
    high_departed: Option<u64>,
    /// The flow's retransmissions that have left the bottleneck.
    retransmissions_departed: u64,
    open: Option<OpenPeriod>,
    /// Closed periods, the first `MAX_RECOVERIES` of them.
    closed: Vec<RecoveryPeriod>,
    omitted: u64,
    /// Over every closed period, listed or not.
    total_busy: Time,
    total_time: Time,
}

/// A data segment's bytes on the wire: payload, headers, and a SYN's
/// options (the bottleneck and a host interface serialise the same).
fn data_wire_bytes(seg: &Segment) -> u32 {
    seg.len + HEADER_BYTES + if seg.syn { SYN_OPTION_BYTES } else { 0 }
}

/// A data packet on the forward path (the bottleneck's queue, the link,
/// the forward line): a `Packet` whose body is known to be a segment.
/// Only data crosses the bottleneck, and a `Packet` is sized for its
/// largest body, an ACK with its SACK blocks (136 bytes against these
/// 72): each of a segment's five moves along the path was a call to
/// `memcpy` (issue 33). Tracers still see a `Packet` (`Net::trace_data`).
#[derive(Clone, Copy, Debug)]
struct DataPacket {
    flow: u32,
    wire_bytes: u32,
    /// 1-based index among the flow's data packets (0 for a SYN).
    index: u64,
    // The segment's fields, in an order not the `Segment`'s: a packet is
    // made from a segment just built field by field, and copied whole
    // (the same layout) it was read back in loads wider than those
    // stores; field by field, each load meets a store of its own size
    // (issue 33).
    tx_order: u64,
    seg_no: u64,
    ts_ecr: Time,
    ts_val: Time,
    seq: u64,
    tx_count: u32,
    len: u32,
    replica: bool,
    syn: bool,
    probe: bool,
}

impl DataPacket {
    fn new(flow: u32, wire_bytes: u32, index: u64, s: &Segment) -> Self {
        DataPacket {
            flow,
            wire_bytes,
            index,
            tx_order: s.tx_order,
            seg_no: s.seg_no,
            ts_ecr: s.ts_ecr,
            ts_val: s.ts_val,
            seq: s.seq,
            tx_count: s.tx_count,
            len: s.len,
            replica: s.replica,
            syn: s.syn,
            probe: s.probe,
        }
    }

    fn seg(&self) -> Segment {
        Segment {
            seq: self.seq,
            len: self.len,
            ts_val: self.ts_val,
            ts_ecr: self.ts_ecr,
            seg_no: self.seg_no,
            tx_count: self.tx_count,
            tx_order: self.tx_order,
            probe: self.probe,
            syn: self.syn,
            replica: self.replica,
        }
    }

    fn packet(&self) -> Packet {
        Packet {
            flow: self.flow,
            index: self.index,
            wire_bytes: self.wire_bytes,
            body: Body::Data(self.seg()),
        }
    }
}

/// An ACK on the reverse line (`Net::rev_line`): the `Packet` it was and
/// its arrival time, laid out by hand in 128 bytes, where a `(Time,
/// Packet)` takes 144 and each move of one into the line was a call to
/// `memcpy` (issue 33). The wire bytes are not kept: `ack_wire_bytes`
/// gives them again.
#[derive(Clone, Copy, Debug)]
struct AckInFlight {
    at: Time,
    index: u64,
    ack: u64,
    window: u64,
    blocks: [losslab_core::wire::Range; losslab_core::wire::MAX_SACK_BLOCKS],
    ts_val: Time,
    ts_ecr: Time,
    echo_order: u64,
    flow: u32,
    blocks_len: u8,
    dsack: bool,
    syn: bool,
}

impl AckInFlight {
    fn new(at: Time, flow: u32, index: u64, a: &Ack) -> Self {
        let (blocks, blocks_len) = a.sack.to_parts();
        AckInFlight {
            at,
            index,
            ack: a.ack,
            window: a.window,
            blocks,
            ts_val: a.ts_val,
            ts_ecr: a.ts_ecr,
            echo_order: a.echo_order,
            flow,
            blocks_len,
            dsack: a.dsack,
            syn: a.syn,
        }
    }

    fn packet(&self) -> Packet {
        ack_packet(self.flow, self.index, &self.ack())
    }

    fn ack(&self) -> Ack {
        Ack {
            ack: self.ack,
            window: self.window,
            sack: losslab_core::wire::SackBlocks::from_parts(self.blocks, self.blocks_len),
            dsack: self.dsack,
            ts_val: self.ts_val,
            ts_ecr: self.ts_ecr,
            syn: self.syn,
            echo_order: self.echo_order,
        }
    }
}

/// The `Packet` an ACK of flow `flow` travels as, for the paths that keep
/// or trace one.
#[inline]
fn ack_packet(flow: u32, index: u64, ack: &Ack) -> Packet {
    Packet {
        flow,
        index,
        wire_bytes: ack_wire_bytes(ack),
        body: Body::Ack(*ack),
    }
}

/// An ACK's bytes on the wire: the header, its SACK option, a SYN's
/// options.
fn ack_wire_bytes(ack: &Ack) -> u32 {
    let blocks = ack.sack.len() as u32;
    HEADER_BYTES
        + if blocks > 0 { 4 + 8 * blocks } else { 0 }
        + if ack.syn { SYN_OPTION_BYTES } else { 0 }
}

/// Segments serialising on their senders' interfaces (`nic_rate`), by
/// the time they reach the bottleneck. Each flow has its own interface,
/// which takes a segment only after every earlier one (exit = max(free,
/// now) + serialisation, at least 1 ns after the previous exit), so each
/// flow's line is a FIFO in exit order. The next segment to leave is the
/// least of the flows' heads by (exit time, order handed over): a tie in
/// time goes to the segment handed over first, whichever its flow, as an
/// ordered map keyed by (exit, counter) would give, without the map's
/// per-segment node work.
#[derive(Debug, Default)]
struct NicLine {
    /// Per flow: (exit time, order handed over, segment, wire bytes).
    lines: Vec<VecDeque<(Time, u64, Segment, u32)>>,
    /// Every non-empty line's head: (exit time, order handed over, flow).
    /// The counter is unique, so the heap's order is total.
    heads: BinaryHeap<Reverse<(Time, u64, u32)>>,
    /// Segments handed over so far, all flows.
    seq: u64,
}

impl NicLine {
    fn new(flows: usize) -> Self {
        NicLine {
            lines: (0..flows).map(|_| VecDeque::new()).collect(),
            ..Default::default()
        }
    }

    /// Flow `f`'s interface takes `seg` (`bytes` on the wire); it leaves
    /// at `exit`, after every segment the flow handed over before.
    fn push(&mut self, f: usize, exit: Time, seg: Segment, bytes: u32) {
        self.seq += 1;
        let line = &mut self.lines[f];
        debug_assert!(line.back().is_none_or(|&(t, ..)| t < exit));
        if line.is_empty() {
            self.heads.push(Reverse((exit, self.seq, f as u32)));
        }
        line.push_back((exit, self.seq, seg, bytes));
    }

    /// When the next segment leaves its host.
    #[inline]
    fn next_exit(&self) -> Option<Time> {
        self.heads.peek().map(|Reverse((t, _, _))| *t)
    }

    /// The next segment to leave its host: (flow, segment, wire bytes).
    fn pop(&mut self) -> Option<(usize, Segment, u32)> {
        let mut head = self.heads.peek_mut()?;
        let f = head.0 .2 as usize;
        let line = &mut self.lines[f];
        let (_, _, seg, bytes) = line.pop_front().expect("a head's line holds it");
        match line.front() {
            // The flow's next segment takes its place among the heads.
            Some(&(t, n, _, _)) => *head = Reverse((t, n, f as u32)),
            None => {
                PeekMut::pop(head);
            }
        }
        Some((f, seg, bytes))
    }
}

/// The ACK direction's own bottleneck (`reverse.rate`): a drop-tail
/// queue drained by a rate or a trace, before the ACKs propagate.
struct RevLink {
    drain: Drain,
    queue_limit: QueueLimit,
    queue: VecDeque<Packet>,
    queue_bytes: u64,
    in_service: Option<(Time, Packet)>,
    /// When the ACK in service sends its first byte (`Span::first`).
    first: Time,
}

/// Whether a drop-tail queue holding `len` packets of `bytes` refuses
/// one more of `add` bytes at `now`, counting the packet at the link's
/// head (`in_service`: its wire bytes) while it waits for its first
/// byte, due at `first`.
fn queue_full(
    limit: &QueueLimit,
    len: usize,
    bytes: u64,
    (in_service, first, now): (Option<u32>, Time, Time),
    add: u32,
) -> bool {
    let (hl, hb) = match in_service {
        Some(h) if now < first => (1, u64::from(h)),
        _ => (0, 0),
    };
    match *limit {
        QueueLimit::Bytes(b) => bytes + hb + u64::from(add) > b,
        QueueLimit::Packets(n) => (len + hl) as u64 >= n,
    }
}

struct Net {
    /// The bottleneck's rate; with a trace, the trace's mean (statistics).
    rate_bps: u64,
    drain: Drain,
    rev_link: Option<RevLink>,
    /// When the ACK in service on the reverse link leaves (Time::MAX:
    /// none), kept apart so the event loop reads one number.
    rev_next: Time,
    fwd_delay: Time,
    rev_delay: Time,
    queue_limit: QueueLimit,
    queue: VecDeque<DataPacket>,
    queue_bytes: u64,
    in_service: Option<(Time, DataPacket)>,
    /// When the packet in service reached the head of the link, and when
    /// its first byte goes (later on a trace: `Span::first`).
    service_start: Time,
    service_first: Time,
    fwd_line: VecDeque<(Time, DataPacket)>,
    rev_line: VecDeque<AckInFlight>,
    /// Packets held back, in lanes: flow f's data 2f, its ACKs 2f + 1.
    held: Held,
    /// Segments serialising on their sender's interface (`nic_rate`).
    nic_line: NicLine,
    fwd_loss: LossRt,
    rev_loss: LossRt,
    fwd_syn_loss: SynLoss,
    rev_syn_loss: SynLoss,
    protect_rtx: bool,
    fwd_reorder: (f64, Time, Stream),
    rev_reorder: (f64, Time, Stream),
    fwd_dup: (f64, Stream),
    rev_dup: (f64, Stream),
    flows: Vec<FlowNet>,
    // statistics
    link_bytes: u64,
    /// Serialisation time and packets the link has finished, for the
    /// recovery periods.
    link_busy: Time,
    link_packets: u64,
    queue_drops: u64,
    loss_drops: u64,
    ack_drops: u64,
    max_queue_bytes: u64,
    tracer: Option<Box<dyn Tracer>>,
    /// The tracer wants `packet` (`Tracer::wants_packets`).
    trace_packets: bool,
}

impl Net {
    /// The link starts serialising `p` at `now`; `queued`: it waited
    /// behind the packet that has just left (`Drain::send`).
    fn start_service(&mut self, now: Time, p: DataPacket, queued: bool) {
        let span = self.drain.send(now, p.wire_bytes, queued);
        let done = span.done;
        self.service_start = now;
        self.service_first = span.first;
        let s = p.seg();
        // Mobile paper Fig. 1, T2: the first retransmission reaches the
        // link. A zero-window probe carries no segment.
        if s.tx_count > 1 && !s.syn && s.len > 0 {
            let m = &mut self.flows[p.flow as usize].periods;
            if m.open.is_none() {
                m.open = Some(OpenPeriod {
                    start: now,
                    busy0: self.link_busy,
                    packets0: self.link_packets,
                    retransmissions0: m.retransmissions_departed,
                    high: m.high_departed,
                });
            }
        }
        self.in_service = Some((done, p));
    }

    /// Segment `s` of flow `f` has left the link at `now` (counters
    /// already include it): it may end the flow's open period.
    fn period_departure(&mut self, now: Time, f: usize, s: &Segment) {
        let m = &mut self.flows[f].periods;
        if s.tx_count > 1 {
            m.retransmissions_departed += 1;
        }
        // Mobile paper section III: the period ends when the first new
        // packet has been sent by the bottleneck (at or after T5).
        if let Some(o) = m.open {
            if s.tx_count == 1 && o.high.is_none_or(|h| s.seg_no > h) && now >= o.start + m.min_len
            {
                let period = RecoveryPeriod {
                    start: o.start,
                    end: Some(now),
                    busy: self.link_busy - o.busy0,
                    packets: self.link_packets - o.packets0,
                    retransmissions: m.retransmissions_departed - o.retransmissions0,
                };
                m.open = None;
                m.total_busy += period.busy;
                m.total_time += now - o.start;
                if m.closed.len() < crate::results::MAX_RECOVERIES {
                    m.closed.push(period);
                } else {
                    m.omitted += 1;
                }
            }
        }
        m.high_departed = Some(m.high_departed.map_or(s.seg_no, |h| h.max(s.seg_no)));
    }

    /// Tracers see data and ACKs; the handshake's SYNs are not shown (the
    /// pcap writer draws its own handshake before the first data, and
    /// `handshake_s` in the results gives the real one's time).
    #[inline]
    fn trace(&mut self, at: Time, p: &Packet, fate: PacketFate) {
        if !self.trace_packets {
            return;
        }
        let syn = match &p.body {
            Body::Data(s) => s.syn,
            Body::Ack(a) => a.syn,
        };
        if syn {
            return;
        }
        if let Some(t) = self.tracer.as_mut() {
            t.packet(at, p, fate);
        }
    }

    /// `trace` for a data packet of the forward path: the `Packet`
    /// tracers see is made only when there is a tracer to see it.
    #[inline]
    fn trace_data(&mut self, at: Time, p: &DataPacket, fate: PacketFate) {
        if !self.trace_packets || p.syn {
            return;
        }
        if let Some(t) = self.tracer.as_mut() {
            t.packet(at, &p.packet(), fate);
        }
    }

    fn record_drop(&mut self, p: &DataPacket) {
        let s = p.seg();
        // A zero-window probe carries no segment of the flow. A copy's
        // fate is told apart (`copies_delivered`).
        if s.len == 0 || s.replica {
            return;
        }
        let bit = 1u64 << (s.tx_count.clamp(1, 64) - 1);
        *self.flows[p.flow as usize]
            .dropped
            .entry(s.seg_no)
            .or_default() |= bit;
    }

    /// A segment flow `f`'s sender hands to its host at `now`: it reaches
    /// the bottleneck once the host's interface has serialised it after
    /// every earlier one (`nic_rate`), or at once without one.
    fn send_from_host(&mut self, now: Time, f: usize, seg: Segment) {
        let fl = &mut self.flows[f];
        let Some(rate) = fl.nic_rate else {
            self.send_data(now, f, seg);
            return;
        };
        let bytes = data_wire_bytes(&seg);
        let exit = fl.nic_free.max(now) + serialisation(bytes, rate.max(1));
        fl.nic_free = exit;
        fl.host_bytes += u64::from(bytes);
        self.nic_line.push(f, exit, seg, bytes);
    }

    /// TCP Small Queues (Linux tcp_write_xmit()): flow `f`'s sender may
    /// hand its host nothing more; noted, so that a segment leaving the
    /// host wakes it.
    fn host_full(&mut self, f: usize) -> bool {
        let fl = &mut self.flows[f];
        let full = fl.tsq_limit.is_some_and(|l| fl.host_bytes >= l);
        fl.tsq_blocked |= full;
        full
    }

    /// A segment of flow `f` left its host: whether its sender, stopped by
    /// its TCP Small Queues limit, may send again.
    fn left_host(&mut self, f: usize, bytes: u32) -> bool {
        let fl = &mut self.flows[f];
        fl.host_bytes -= u64::from(bytes);
        let wake = fl.tsq_blocked && fl.tsq_limit.is_some_and(|l| fl.host_bytes < l);
        if wake {
            fl.tsq_blocked = false;
        }
        wake
    }

    /// A data segment from flow `f` enters the bottleneck.
    fn send_data(&mut self, now: Time, f: usize, seg: Segment) {
        let fl = &mut self.flows[f];
        if seg.syn {
            fl.syns_fwd += 1;
        } else {
            fl.data_index += 1;
        }
        if seg.tx_count > 1 && !seg.syn {
            let e = fl.retransmitted.entry(seg.seg_no).or_default();
            *e = (*e).max(seg.tx_count);
        }
        // A SYN is not a data packet: index 0 (drop lists are 1-based).
        let index = if seg.syn { 0 } else { fl.data_index };
        let wire_bytes = data_wire_bytes(&seg);
        // Made where it is kept, not first on the stack and copied there.
        let packet = || DataPacket::new(f as u32, wire_bytes, index, &seg);
        if self.trace_packets {
            self.trace_data(now, &packet(), PacketFate::Sent);
        }
        if self.in_service.is_none() {
            self.note_entry(now, f, index, &seg);
            self.start_service(now, packet(), false);
            return;
        }
        let full = queue_full(
            &self.queue_limit,
            self.queue.len(),
            self.queue_bytes,
            (
                self.in_service.as_ref().map(|(_, h)| h.wire_bytes),
                self.service_first,
                now,
            ),
            wire_bytes,
        );
        if full {
            let p = packet();
            self.queue_drops += 1;
            self.record_drop(&p);
            self.trace_data(now, &p, PacketFate::QueueDrop);
            return;
        }
        self.note_entry(now, f, index, &seg);
        self.queue_bytes += u64::from(wire_bytes);
        self.max_queue_bytes = self.max_queue_bytes.max(self.queue_bytes);
        self.queue.push_back(packet());
    }

    /// Segment `s`, flow `f`'s packet `index`, accepted by the queue:
    /// starts bursts given as a time. Read from the segment, so that
    /// without such bursts no packet is made for it.
    #[inline]
    fn note_entry(&mut self, now: Time, f: usize, index: u64, s: &Segment) {
        if !self.fwd_loss.has_timed_bursts() {
            return;
        }
        if !s.syn {
            let view = self.view_of(f, index, s);
            self.fwd_loss.note_entry(now, &view);
        }
    }

    fn view(&self, p: &DataPacket) -> PacketView {
        self.view_of(p.flow as usize, p.index, &p.seg())
    }

    fn view_of(&self, f: usize, index: u64, s: &Segment) -> PacketView {
        let fl = &self.flows[f];
        PacketView {
            flow: f,
            index,
            seg_no: s.seg_no,
            tx_count: s.tx_count,
            end: s.end(),
            flow_total: fl.total,
            mss: fl.mss,
        }
    }

    /// The packet in service finished serialisation at `now`.
    fn depart(&mut self, now: Time) {
        let (_, p) = self.in_service.take().expect("departure without packet");
        self.link_bytes += p.wire_bytes as u64;
        self.link_busy += now - self.service_start;
        self.link_packets += 1;
        let s = p.seg();
        // Before the next packet starts: a period this packet closes must
        // be closed when that one, a retransmission, may open the next.
        if !s.syn && s.len > 0 {
            self.period_departure(now, p.flow as usize, &s);
        }
        if let Some(next) = self.queue.pop_front() {
            self.queue_bytes -= next.wire_bytes as u64;
            self.start_service(now, next, true);
        }
        if s.syn {
            let nth = self.flows[p.flow as usize].syns_fwd;
            if self.fwd_syn_loss.drops(p.flow as usize, nth) {
                self.loss_drops += 1;
                self.trace_data(now, &p, PacketFate::LossDrop);
                return;
            }
        }
        let protected = self.protect_rtx && s.tx_count > 1;
        if !s.syn && !protected && !self.fwd_loss.is_none() {
            let view = self.view(&p);
            if self.fwd_loss.drops(&view) {
                self.loss_drops += 1;
                self.record_drop(&p);
                self.trace_data(now, &p, PacketFate::LossDrop);
                return;
            }
        }
        let (pr, extra, rng) = &mut self.fwd_reorder;
        let held = rng.chance(*pr);
        let access = self.flows[p.flow as usize].extra_delay;
        let at = now + self.fwd_delay + access;
        // `now` is the event loop's time, which never goes back, so at
        // one constant delay packets arrive in the order they left: the
        // forward line's FIFO, or, for a flow with its own delay, its
        // data lane (a copy too). A reordered packet arrives out of order.
        let lane = Some(2 * p.flow as usize);
        if held {
            let extra = *extra;
            self.hold_data(at + extra, None, &p);
        } else if access > 0 {
            self.hold_data(at, lane, &p);
        } else {
            self.fwd_line.push_back((at, p));
        }
        let (pd, rng) = &mut self.fwd_dup;
        if rng.chance(*pd) {
            self.hold_data(at, lane, &p);
        }
    }

    /// A data packet the path holds back (reordering, duplication, a
    /// flow's own delay) until `at`.
    // Out of line, as the other paths most runs never take: the per-packet
    // code stays on fewer cache lines (issue 33, docs/BENCHMARKS.md).
    #[inline(never)]
    fn hold_data(&mut self, at: Time, lane: Option<usize>, p: &DataPacket) {
        self.held.push(at, lane, p.packet());
    }

    /// An ACK from flow `f`'s receiver enters the reverse path. It comes
    /// by reference, straight from the receiver's queue, and is made into
    /// a `Packet` only where one is kept or traced: each copy of an ACK
    /// just written field by field was a stall (issue 33).
    fn send_ack(&mut self, now: Time, f: usize, ack: &Ack) {
        let fl = &mut self.flows[f];
        let index = if ack.syn {
            fl.syns_rev += 1;
            0
        } else {
            fl.ack_index += 1;
            fl.ack_index
        };
        let packet = || ack_packet(f as u32, index, ack);
        if self.trace_packets {
            self.trace(now, &packet(), PacketFate::Sent);
        }
        if ack.syn {
            let nth = self.flows[f].syns_rev;
            if self.rev_syn_loss.drops(f, nth) {
                self.ack_drops += 1;
                if self.trace_packets {
                    self.trace(now, &packet(), PacketFate::LossDrop);
                }
                return;
            }
        } else if !self.rev_loss.is_none() && self.rev_loss_drops(now, f, index, ack) {
            return;
        }
        if self.rev_link.is_none() {
            self.propagate_ack(now, f as u32, index, ack);
            return;
        }
        self.rev_link_send(now, f, index, ack);
    }

    /// The reverse path's loss model on an ACK; true when it drops it.
    // Out of line, as the paths most runs never take: the per-ACK code
    // stays on fewer cache lines (issue 33, docs/BENCHMARKS.md).
    #[inline(never)]
    fn rev_loss_drops(&mut self, now: Time, f: usize, index: u64, ack: &Ack) -> bool {
        let view = PacketView {
            flow: f,
            index,
            seg_no: 0,
            tx_count: 1,
            end: 0,
            flow_total: None,
            mss: 0,
        };
        if !self.rev_loss.drops(&view) {
            return false;
        }
        self.ack_drops += 1;
        self.flows[f].reports.on_dropped(ack);
        if self.trace_packets {
            self.trace(now, &ack_packet(f as u32, index, ack), PacketFate::LossDrop);
        }
        true
    }

    /// An ACK enters the reverse link (`reverse.rate`): into service,
    /// into its queue, or dropped at a full one.
    // Out of line, as `rev_loss_drops` (issue 33).
    #[inline(never)]
    fn rev_link_send(&mut self, now: Time, f: usize, index: u64, ack: &Ack) {
        let link = self.rev_link.as_mut().expect("a reverse link");
        let p = ack_packet(f as u32, index, ack);
        if link.in_service.is_none() {
            let span = link.drain.send(now, p.wire_bytes, false);
            link.first = span.first;
            link.in_service = Some((span.done, p));
            self.rev_next = span.done;
            return;
        }
        if queue_full(
            &link.queue_limit,
            link.queue.len(),
            link.queue_bytes,
            (
                link.in_service.as_ref().map(|(_, h)| h.wire_bytes),
                link.first,
                now,
            ),
            p.wire_bytes,
        ) {
            self.ack_drops += 1;
            // As the loss model's drops: a SYN-ACK is no report.
            if !ack.syn {
                self.flows[f].reports.on_dropped(ack);
            }
            self.trace(now, &p, PacketFate::QueueDrop);
            return;
        }
        link.queue_bytes += u64::from(p.wire_bytes);
        link.queue.push_back(p);
    }

    /// The ACK in service on the reverse link left it at `now`.
    // Out of line: only a reverse link's runs come here (issue 33: the
    // event loop's code on fewer cache lines).
    #[inline(never)]
    fn rev_depart(&mut self, now: Time) {
        let link = self.rev_link.as_mut().expect("a reverse link");
        let (_, p) = link.in_service.take().expect("departure without packet");
        self.rev_next = Time::MAX;
        if let Some(next) = link.queue.pop_front() {
            link.queue_bytes -= u64::from(next.wire_bytes);
            let span = link.drain.send(now, next.wire_bytes, true);
            link.first = span.first;
            link.in_service = Some((span.done, next));
            self.rev_next = span.done;
        }
        let Body::Ack(a) = &p.body else {
            unreachable!("only ACKs take the reverse path")
        };
        self.propagate_ack(now, p.flow, p.index, a);
    }

    /// An ACK starts across the reverse path's delay at `now`.
    #[inline]
    fn propagate_ack(&mut self, now: Time, flow: u32, index: u64, ack: &Ack) {
        let f = flow as usize;
        let access = self.flows[f].extra_delay;
        let at = now + self.rev_delay + access;
        // As on the data path: `now` is the event loop's time (the ACK
        // sent, or leaving the reverse link), so the flow's ACK lane.
        let lane = Some(2 * f + 1);
        let packet = || ack_packet(flow, index, ack);
        let (pr, extra, rng) = &mut self.rev_reorder;
        if rng.chance(*pr) {
            let extra = *extra;
            self.held.push(at + extra, None, packet());
        } else if access > 0 {
            self.held.push(at, lane, packet());
        } else {
            self.rev_line
                .push_back(AckInFlight::new(at, flow, index, ack));
        }
        let (pd, rng) = &mut self.rev_dup;
        if rng.chance(*pd) {
            self.held.push(at, lane, packet());
        }
    }
}

/// A request/response application's progress (`AppSpec::Objects`).
#[derive(Debug)]
pub(crate) struct ObjectsRt {
    pub sizes: Vec<u64>,
    /// Cumulative end byte of each object in the stream.
    ends: Vec<u64>,
    /// The flow whose first object gates this one's first request.
    after: Option<usize>,
    /// When the client sent each request issued so far.
    pub requested: Vec<Time>,
    /// When the client held each object entirely.
    pub completed: Vec<Time>,
}

/// One flow's endpoints.
struct FlowRt {
    name: String,
    spec: FlowSpec,
    /// Seed of its congestion controller (`cc_seed`).
    cc_seed: u64,
    start: Time,
    sender: Option<Sender>,
    receiver: Receiver,
    total: Option<u64>,
    /// Time the receiver held the last byte.
    fct_at: Option<Time>,
    /// Time every byte was acknowledged.
    done_at: Option<Time>,
    /// Earliest heap entry for [sender, receiver] timers.
    sched: [Option<Time>; 2],
    seen_epoch: u64,
    /// Bottleneck bytes at each recovery start/end, in order.
    epoch_link_bytes: Vec<(Time, u64)>,
    objects: Option<ObjectsRt>,
    /// The flow is a connection of a chunked file (`AppSpec::Chunks`).
    chunks: Option<ConnChunks>,
    /// Finite: the run may end once it has finished.
    sized: bool,
    rbb: RbbMeter,
    /// Out-of-window discards made while a hole sat at the head of the
    /// receive buffer, by whether the sender had retransmitted the
    /// segment at that hole: [retransmitted, not retransmitted].
    discard_head: [u64; 2],
}

const SIDE_SENDER: u8 = 0;
const SIDE_RECEIVER: u8 = 1;
const SIDE_START: u8 = 2;
/// A client's request reaches the server.
const SIDE_REQUEST: u8 = 3;

/// A configured run.
pub struct Simulation {
    scenario: Scenario,
    now: Time,
    end: Time,
    flows: Vec<FlowRt>,
    net: Net,
    timers: BinaryHeap<Reverse<(Time, u32, u8)>>,
    events: u64,
    unfinished: usize,
    /// Chunked files, one per flow group of kind "chunks".
    files: Vec<FileRt>,
    /// Earliest `RbbMeter::next` of any flow.
    next_sample: Time,
    /// Every flow's `RbbMeter::next` but `Time::MAX`, earliest first
    /// (equal times by flow index, the order they are sampled in): a run
    /// of many flows, each sampled once per its own RTT (the tail-loss
    /// paper's 406-flow section 3.2 runs), spent a seventh of its time
    /// scanning every flow for each sample time.
    sample_queue: BinaryHeap<Reverse<(Time, usize)>>,
}

/// Errors building a simulation from a scenario (validated scenarios
/// should not produce them; reproductions build scenarios in code).
#[derive(Debug, Clone, PartialEq)]
pub struct SimError(pub String);

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for SimError {}

/// The index, among `expand_flows`' flows, of the flow a scenario names
/// (a drop model's `flow`, an app's `after`): a name written in the
/// scenario means that flow, or with `count > 1` its first copy.
pub fn flow_index(expanded: &[FlowSpec], name: &str) -> Option<usize> {
    expanded
        .iter()
        .position(|f| f.name == name || f.name.strip_suffix(".1") == Some(name))
}

/// Expands `count = N` flows into N named flows.
pub fn expand_flows(flows: &[FlowSpec]) -> Vec<FlowSpec> {
    let mut out = Vec::new();
    for f in flows {
        if f.count <= 1 {
            out.push(f.clone());
        } else {
            for i in 1..=f.count {
                let mut g = f.clone();
                g.name = format!("{}.{}", f.name, i);
                g.count = 1;
                out.push(g);
            }
        }
    }
    out
}

fn app_of(spec: &FlowSpec) -> App {
    match &spec.app {
        AppSpec::Bulk => App::Bulk,
        AppSpec::Bytes(n) => App::Bytes(*n),
        AppSpec::Writes(w) => App::Writes(w.iter().map(|&(t, b)| (spec.start + t, b)).collect()),
        AppSpec::Objects { sizes, .. } => App::OnDemand {
            total: sizes.iter().sum(),
        },
        // No connection sends more than the file; `close_stream` ends
        // each one where the shared queue ran dry.
        AppSpec::Chunks { file, .. } => App::OnDemand { total: *file },
    }
}

fn total_of(spec: &FlowSpec) -> Option<u64> {
    spec.app.total()
}

impl Simulation {
    pub fn new(scenario: &Scenario) -> Result<Self, SimError> {
        let specs = expand_flows(&scenario.flows);
        let index_of = |n: &str| flow_index(&specs, n);
        let p = &scenario.path;
        let r = &scenario.reverse;
        let seed = scenario.seed;
        let fwd_loss = LossRt::new(&p.loss, seed, "path.loss", index_of)
            .map_err(|e| SimError(format!("path.loss: {e}")))?;
        let rev_loss = LossRt::new(&r.loss, seed, "reverse.loss", index_of)
            .map_err(|e| SimError(format!("reverse.loss: {e}")))?;
        let fwd_syn_loss = SynLoss::new(&p.loss, seed, "path.loss", index_of);
        let rev_syn_loss = SynLoss::new(&r.loss, seed, "reverse.loss", index_of);
        if matches!(rev_loss, LossRt::Segments { .. } | LossRt::Tail { .. }) {
            return Err(SimError(
                "reverse.loss: `segments` and `tail` name data segments; use `packets` for ACKs"
                    .into(),
            ));
        }
        // Each flow's propagation round trip: the RBB sampling period, the
        // shortest recovery period, ΔCCT's base RTT.
        let base_rtt = |spec: &FlowSpec| p.delay + r.delay + 2 * spec.delay;
        let mut files = Vec::new();
        let mut file_of = vec![None; specs.len()];
        let mut first = 0;
        for g in &scenario.flows {
            let n = g.count.max(1) as usize;
            if let AppSpec::Chunks { file, chunk } = g.app {
                let members: Vec<usize> = (first..first + n).collect();
                for &m in &members {
                    file_of[m] = Some(files.len());
                }
                files.push(FileRt::new(
                    g.name.clone(),
                    members,
                    g.start,
                    file,
                    chunk,
                    base_rtt(g),
                ));
            }
            first += n;
        }
        let mut flows = Vec::new();
        let mut flow_nets = Vec::new();
        for (k, spec) in specs.iter().cloned().enumerate() {
            let objects = match &spec.app {
                AppSpec::Objects { sizes, after } => {
                    let after = match after {
                        Some(n) => Some(index_of(n).ok_or_else(|| {
                            SimError(format!(
                                "flow {}: app.after names no flow: {n:?}",
                                spec.name
                            ))
                        })?),
                        None => None,
                    };
                    Some(ObjectsRt {
                        sizes: sizes.clone(),
                        ends: sizes
                            .iter()
                            .scan(0u64, |acc, &x| {
                                *acc += x;
                                Some(*acc)
                            })
                            .collect(),
                        after,
                        requested: Vec::new(),
                        completed: Vec::new(),
                    })
                }
                _ => None,
            };
            let receiver = Receiver::new(ReceiverConfig {
                ack_mode: match spec.receiver.ack {
                    AckSpec::Delayed => AckMode::Delayed,
                    AckSpec::Quick => AckMode::Quick,
                },
                delack_timeout: spec.receiver.delack_timeout,
                linux_delack: spec.receiver.linux_delack,
                sack_blocks: spec.receiver.sack_blocks,
                dsack: spec.receiver.sack_blocks > 0,
                rcvbuf: spec.receiver.rcvbuf,
                read_rate: spec.receiver.read_rate,
                read_delay: spec.receiver.read_delay,
                window_clamp: spec.receiver.window_clamp,
                grow_window: spec.receiver.grow_window,
                autotune: spec.receiver.autotune,
                mss: spec.mss,
                echo_order: spec.detection == "le" && spec.le_order == LeOrder::Echo,
            });
            let total = total_of(&spec);
            flow_nets.push(FlowNet {
                total,
                mss: spec.mss,
                extra_delay: spec.delay,
                nic_rate: spec.nic_rate,
                tsq_limit: spec.tsq_limit,
                periods: PeriodMeter {
                    min_len: base_rtt(&spec),
                    ..Default::default()
                },
                ..Default::default()
            });
            flows.push(FlowRt {
                name: spec.name.clone(),
                start: spec.start,
                sender: None,
                receiver,
                total,
                fct_at: None,
                done_at: None,
                sched: [None; 2],
                seen_epoch: 0,
                epoch_link_bytes: Vec::new(),
                objects,
                chunks: file_of[k].map(ConnChunks::new),
                sized: total.is_some() || file_of[k].is_some(),
                rbb: RbbMeter::new(spec.start, base_rtt(&spec)),
                discard_head: [0; 2],
                cc_seed: cc_seed(seed, &spec.name),
                spec,
            });
        }
        // Validate algorithm names now rather than at the flow's start.
        for f in &flows {
            build_algorithms(&f.spec, f.cc_seed)
                .map_err(|e| SimError(format!("flow {}: {e}", f.name)))?;
        }
        let net = Net {
            rate_bps: p.rate.max(1),
            drain: Drain::new(p.rate, p.trace.as_ref()),
            rev_next: Time::MAX,
            rev_link: r.link.as_ref().map(|l| RevLink {
                drain: Drain::new(l.rate, l.trace.as_ref()),
                queue_limit: l.queue.clone(),
                queue: VecDeque::new(),
                queue_bytes: 0,
                in_service: None,
                first: 0,
            }),
            fwd_delay: p.delay,
            rev_delay: r.delay,
            queue_limit: p.queue.clone(),
            queue: VecDeque::new(),
            queue_bytes: 0,
            in_service: None,
            service_start: 0,
            service_first: 0,
            fwd_line: VecDeque::new(),
            rev_line: VecDeque::new(),
            held: Held::new(2 * specs.len()),
            nic_line: NicLine::new(specs.len()),
            fwd_loss,
            rev_loss,
            fwd_syn_loss,
            rev_syn_loss,
            protect_rtx: p.protect_retransmissions,
            fwd_reorder: (
                p.reorder.p,
                p.reorder.delay,
                Stream::new(seed, "path.reorder"),
            ),
            rev_reorder: (
                r.reorder.p,
                r.reorder.delay,
                Stream::new(seed, "reverse.reorder"),
            ),
            fwd_dup: (p.duplicate, Stream::new(seed, "path.duplicate")),
            rev_dup: (r.duplicate, Stream::new(seed, "reverse.duplicate")),
            flows: flow_nets,
            link_bytes: 0,
            link_busy: 0,
            link_packets: 0,
            queue_drops: 0,
            loss_drops: 0,
            ack_drops: 0,
            max_queue_bytes: 0,
            tracer: None,
            trace_packets: false,
        };
        let mut timers = BinaryHeap::new();
        for (i, f) in flows.iter().enumerate() {
            timers.push(Reverse((f.start, i as u32, SIDE_START)));
        }
        let unfinished = flows.iter().filter(|f| f.sized).count();
        let all_sized = unfinished == flows.len();
        let sample_queue: BinaryHeap<_> = flows
            .iter()
            .enumerate()
            .filter(|(_, f)| f.rbb.next != Time::MAX)
            .map(|(i, f)| Reverse((f.rbb.next, i)))
            .collect();
        let next_sample = sample_queue.peek().map_or(Time::MAX, |Reverse((t, _))| *t);
        Ok(Simulation {
            scenario: scenario.clone(),
            now: 0,
            end: scenario.duration,
            flows,
            net,
            timers,
            events: 0,
            unfinished: if all_sized { unfinished } else { usize::MAX },
            files,
            next_sample,
            sample_queue,
        })
    }

    pub fn set_tracer(&mut self, t: Box<dyn Tracer>) {
        self.net.trace_packets = t.wants_packets();
        self.net.tracer = Some(t);
    }
    pub fn take_tracer(&mut self) -> Option<Box<dyn Tracer>> {
        self.net.trace_packets = false;
        self.net.tracer.take()
    }
    /// Flow names after `count` expansion, in flow-index order.
    pub fn flow_names(&self) -> Vec<String> {
        self.flows.iter().map(|f| f.name.clone()).collect()
    }
    pub fn now(&self) -> Time {
        self.now
    }
    pub fn end_time(&self) -> Time {
        self.end
    }
    /// Bytes (headers included) the bottleneck has finished sending.
    pub fn link_bytes(&self) -> u64 {
        self.net.link_bytes
    }
    pub fn events(&self) -> u64 {
        self.events
    }
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }
    /// True when the run is over: every flow finished or the duration passed.
    pub fn is_done(&self) -> bool {
        self.unfinished == 0 || self.now >= self.end
    }

    /// Runs to completion.
    pub fn run(&mut self) {
        self.run_until(self.end);
    }

    /// Processes every event at or before `until` (capped at the
    /// scenario's duration); returns true when the run is over.
    pub fn run_until(&mut self, until: Time) -> bool {
        self.run_until_budget(until, u64::MAX)
    }

    /// As `run_until`, but stops after `budget` events even before
    /// `until` (a caller that must stay responsive, such as the CLI
    /// watching for Ctrl-C, slices the run by work rather than by
    /// simulated time). Returns true when the run is over.
    pub fn run_until_budget(&mut self, until: Time, budget: u64) -> bool {
        let until = until.min(self.end);
        let mut left = budget;
        while self.unfinished > 0 {
            if left == 0 {
                return false;
            }
            left -= 1;
            let mut t = Time::MAX;
            let mut src = 0u8;
            if let Some((d, _)) = self.net.in_service {
                t = d;
                src = 1;
            }
            // The reverse link's departures come second at equal times:
            // an ACK sent at the instant the one in service leaves must
            // find it gone (link.rs: it arrived at an opportunity).
            if self.net.rev_next < t {
                t = self.net.rev_next;
                src = 7;
            }
            if let Some(&(a, _)) = self.net.fwd_line.front() {
                if a < t {
                    t = a;
                    src = 2;
                }
            }
            if let Some(&AckInFlight { at: a, .. }) = self.net.rev_line.front() {
                if a < t {
                    t = a;
                    src = 3;
                }
            }
            if let Some(a) = self.net.held.next_at() {
                if a < t {
                    t = a;
                    src = 4;
                }
            }
            if let Some(Reverse((a, _, _))) = self.timers.peek() {
                if *a < t {
                    t = *a;
                    src = 5;
                }
            }
            if let Some(a) = self.net.nic_line.next_exit() {
                if a < t {
                    t = a;
                    src = 6;
                }
            }
            if t > until || src == 0 {
                break;
            }
            if t > self.next_sample {
                self.take_samples(t, false);
            }
            self.now = t;
            self.events += 1;
            match src {
                1 => self.net.depart(t),
                2 => {
                    let (_, p) = self.net.fwd_line.pop_front().expect("head");
                    self.deliver_data(p);
                }
                3 => {
                    let a = self.net.rev_line.pop_front().expect("head");
                    // The `Packet` is made again only for a tracer.
                    if self.net.trace_packets {
                        self.net.trace(t, &a.packet(), PacketFate::Delivered);
                    }
                    self.ack_reaches_sender(a.flow as usize, &a.ack());
                }
                4 => self.deliver_held(),
                7 => self.net.rev_depart(t),
                6 => self.leave_host(t),
                _ => {
                    let Reverse((_, f, side)) = self.timers.pop().expect("head");
                    self.fire_timer(f as usize, side);
                }
            }
        }
        if self.unfinished == 0 {
            return true;
        }
        // Nothing else happens up to `until`: samples due by then see the
        // state they would see had the run gone on.
        self.take_samples(until, true);
        self.now = self.now.max(until);
        self.now >= self.end
    }

    /// The next packet the path held back reaches its end.
    // Out of line, as `rev_depart` (issue 33).
    #[inline(never)]
    fn deliver_held(&mut self) {
        let p = self.net.held.pop().expect("head");
        self.deliver(p);
    }

    /// The next segment a host's interface holds leaves it at `t`.
    // Out of line, as `rev_depart` (issue 33).
    #[inline(never)]
    fn leave_host(&mut self, t: Time) {
        let (f, seg, bytes) = self.net.nic_line.pop().expect("head");
        self.net.send_data(t, f, seg);
        if self.net.left_host(f, bytes) {
            self.service_sender(f);
        }
    }

    /// Takes every RBB sample due before `t` (with `inclusive`, at `t`
    /// too). A sample at time T sees the state after every event at or
    /// before T: it is taken just before the first event after T, so
    /// sampling adds no event and changes nothing a run computes.
    fn take_samples(&mut self, t: Time, inclusive: bool) {
        while self.next_sample < t || (inclusive && self.next_sample == t) {
            let at = self.next_sample;
            if at == Time::MAX {
                return;
            }
            // Only `sample` moves a meter's `next`, always past `at`, so
            // the flows due now are the queue's head.
            while let Some(&Reverse((due, f))) = self.sample_queue.peek() {
                if due != at {
                    break;
                }
                self.sample_queue.pop();
                self.sample(f, at);
                let next = self.flows[f].rbb.next;
                if next != Time::MAX {
                    self.sample_queue.push(Reverse((next, f)));
                }
            }
            self.next_sample = self
                .sample_queue
                .peek()
                .map_or(Time::MAX, |Reverse((t, _))| *t);
        }
    }

    /// OR3 paper section III-B, Fig. 2: the RBBs in flow `f`'s receive
    /// buffer at `at`, one per out-of-order run, and the bytes the buffer
    /// holds (Fig. 7). A finished flow is no longer sampled: its zeros
    /// would only dilute the per-RTT record of its transfer.
    fn sample(&mut self, f: usize, at: Time) {
        let fl = &mut self.flows[f];
        if fl.fct_at.is_some() && fl.done_at.is_some() {
            fl.rbb.stop();
            return;
        }
        let bubbles = fl.receiver.ooo_runs() as u64;
        let bytes = fl.receiver.occupancy_at(at);
        fl.rbb.record(bubbles, bytes);
        if let Some(t) = self.net.tracer.as_mut() {
            t.rbb_sample(at, f, bubbles, bytes);
        }
    }

    /// A packet of the reverse line, or one the path held back
    /// (reordering, duplication, a flow's own delay), reaches its end.
    fn deliver(&mut self, p: Packet) {
        match &p.body {
            Body::Data(seg) => {
                self.deliver_data(DataPacket::new(p.flow, p.wire_bytes, p.index, seg))
            }
            Body::Ack(ack) => self.deliver_ack(&p, ack),
        }
    }

    /// A data packet reaches its receiver.
    fn deliver_data(&mut self, p: DataPacket) {
        let now = self.now;
        let f = p.flow as usize;
        self.net.trace_data(now, &p, PacketFate::Delivered);
        let seg = &p.seg();
        let fl = &mut self.flows[f];
        let drops = fl.receiver.stats().out_of_window_drops;
        fl.receiver.on_segment(now, seg);
        let discarded = fl.receiver.stats().out_of_window_drops > drops;
        if !seg.syn && seg.len > 0 {
            // Ground truth for `spurious_retransmissions`: a copy the
            // receiver discarded was delivered but not accepted.
            let n = &mut self.net.flows[f];
            let fate = match (seg.replica, discarded) {
                (true, false) => Some(&mut n.copies_delivered),
                (true, true) => Some(&mut n.copies_discarded),
                (false, true) => Some(&mut n.discarded),
                (false, false) => None,
            };
            if let Some(m) = fate {
                let bit = 1u64 << (seg.tx_count.clamp(1, 64) - 1);
                *m.entry(seg.seg_no).or_default() |= bit;
            }
        }
        if discarded && fl.receiver.has_hole() {
            // Why the window did not move (OR3 paper section IV's
            // overbooking): was the head hole ever resent?
            let head = fl.receiver.rcv_nxt();
            if let Some(s) = fl.sender.as_ref() {
                let b = s.scoreboard();
                let (n, _) = b.segs_within(losslab_core::wire::Range::new(head, head + 1));
                let resent = b.get(n).is_some_and(|m| m.seq == head && m.tx_count > 1);
                fl.discard_head[usize::from(!resent)] += 1;
            }
        }
        if seg.syn {
            // A SYN-ACK opens the client's connection.
            self.first_request(f);
        }
        self.service_receiver(f);
    }

    /// An ACK reaches its sender.
    fn deliver_ack(&mut self, p: &Packet, ack: &Ack) {
        self.net.trace(self.now, p, PacketFate::Delivered);
        self.ack_reaches_sender(p.flow as usize, ack);
    }

    /// An ACK of flow `f`, already traced, reaches its sender.
    fn ack_reaches_sender(&mut self, f: usize, ack: &Ack) {
        let now = self.now;
        if !ack.syn {
            self.net.flows[f].reports.on_delivered(ack);
        }
        let Some(s) = self.flows[f].sender.as_mut() else {
            return;
        };
        s.on_ack(now, ack);
        self.service_sender(f);
    }

    fn fire_timer(&mut self, f: usize, side: u8) {
        let now = self.now;
        match side {
            SIDE_START => self.start_flow(f),
            SIDE_REQUEST => self.next_request(f),
            SIDE_SENDER => {
                let fl = &mut self.flows[f];
                if fl.sched[0] == Some(now) {
                    fl.sched[0] = None;
                }
                let Some(s) = fl.sender.as_mut() else { return };
                if s.poll_timeout().is_some_and(|d| d <= now) {
                    s.on_timeout(now);
                }
                self.service_sender(f);
            }
            _ => {
                let fl = &mut self.flows[f];
                if fl.sched[1] == Some(now) {
                    fl.sched[1] = None;
                }
                if fl.receiver.poll_timeout().is_some_and(|d| d <= now) {
                    fl.receiver.on_timeout(now);
                }
                self.service_receiver(f);
            }
        }
    }

    /// Flow `f` starts: its sender is made and sends.
    // Cold: once per flow; inlined, it sat among the per-packet timer
    // code (issue 33, docs/BENCHMARKS.md).
    #[cold]
    #[inline(never)]
    fn start_flow(&mut self, f: usize) {
        let now = self.now;
        let fl = &mut self.flows[f];
        let alg = build_algorithms(&fl.spec, fl.cc_seed).expect("validated in new()");
        let cfg = sender_config(&fl.spec);
        let mut s = Sender::new(cfg, alg, now);
        if self
            .net
            .tracer
            .as_ref()
            .is_some_and(|t| t.wants_endpoint_events())
        {
            s.set_tracing(true);
            fl.receiver.set_tracing(true);
        }
        fl.sender = Some(s);
        if fl.objects.is_some() && fl.spec.handshake {
            // The client opens the connection; its first request
            // leaves with the handshake's last ACK.
            fl.receiver.connect(now);
            self.service_receiver(f);
        }
        self.first_request(f);
        self.service_sender(f);
    }

    /// Flow `f`'s client asks for its next object.
    // Out of line: once per object (issue 33, as `start_flow`).
    #[inline(never)]
    fn next_request(&mut self, f: usize) {
        let now = self.now;
        let fl = &mut self.flows[f];
        let (Some(o), Some(s)) = (fl.objects.as_ref(), fl.sender.as_mut()) else {
            return;
        };
        let k = o.requested.len() - 1;
        // The request carries the client's ACK: it completes the
        // handshake if the bare final ACK was lost (RFC 9293 3.5).
        if !s.is_established() {
            s.on_ack(now, &fl.receiver.carried_ack(now));
        }
        s.write(now, o.sizes[k]);
        self.service_sender(f);
    }

    /// Sends what the sender wants to send and re-arms its timer.
    fn service_sender(&mut self, f: usize) {
        let now = self.now;
        let fl = &mut self.flows[f];
        let Some(s) = fl.sender.as_mut() else { return };
        if let Some(c) = fl.chunks.as_mut() {
            c.on_snd_una(now, s.snd_una(), &mut self.files[c.file]);
        }
        loop {
            // TCP Small Queues: nothing more while the host holds enough.
            while !self.net.host_full(f) {
                let Some(seg) = s.poll_transmit(now) else {
                    break;
                };
                if counts_as_retransmission(&seg) {
                    self.net.flows[f]
                        .reports
                        .on_retransmission(&seg, &fl.receiver);
                }
                if let Some(c) = fl.chunks.as_mut() {
                    if seg.tx_count == 1 && !seg.syn && seg.len > 0 {
                        c.on_first_transmission(now, seg.end(), &mut self.files[c.file]);
                    }
                }
                self.net.send_from_host(now, f, seg);
            }
            // Stopped by TCP Small Queues: a segment leaving the host
            // resumes it (`left_host`).
            if self.net.flows[f].tsq_blocked {
                break;
            }
            // A connection of a chunked file that has sent all it claimed
            // takes the next chunk at once, and sends again.
            let Some(c) = fl.chunks.as_mut() else { break };
            if !c.wants_more() || !s.is_established() {
                break;
            }
            match c.claim(&mut self.files[c.file]) {
                Some(len) => s.write(now, len),
                None => {
                    c.closed = true;
                    s.close_stream();
                    fl.total = Some(c.claimed_end);
                    // A connection that got no chunk has received all of
                    // its stream already; `done_at` follows below.
                    if fl.fct_at.is_none() && fl.receiver.rcv_nxt() >= c.claimed_end {
                        fl.fct_at = Some(now);
                    }
                    break;
                }
            }
        }
        if let Some(t) = self.net.tracer.as_mut() {
            while let Some(ev) = s.poll_event() {
                t.endpoint(f, Side::Sender, &ev);
            }
        }
        let epoch = s.recovery_epoch();
        while fl.seen_epoch < epoch {
            fl.seen_epoch += 1;
            // Entry and exit of each episode the results list; later ones
            // are not listed, so not kept (memory stays bounded).
            if fl.epoch_link_bytes.len() < 2 * crate::results::MAX_RECOVERIES {
                fl.epoch_link_bytes.push((now, self.net.link_bytes));
            }
        }
        if fl.done_at.is_none() && s.is_finished() {
            fl.done_at = Some(now);
            self.note_finished(f);
        }
        let fl = &mut self.flows[f];
        let s = fl.sender.as_ref().expect("present");
        if let Some(d) = s.poll_timeout() {
            let mut d = d.max(now);
            // Stopped by TCP Small Queues, a deadline already due (a
            // segment waiting for the host) is taken once the host has
            // sent what it holds, not now, where it would fire again and
            // again at this instant; a segment leaving wakes the sender
            // sooner (`left_host`).
            let host = &self.net.flows[f];
            if host.tsq_blocked && d <= now {
                d = host.nic_free.max(now + 1);
            }
            if fl.sched[0].is_none_or(|x| d < x) {
                fl.sched[0] = Some(d);
                self.timers.push(Reverse((d, f as u32, SIDE_SENDER)));
            }
        }
    }

    /// Flow `f`'s client sends its first request if it may: the connection
    /// is open and the flow it waits for (`after`) has its first object.
    fn first_request(&mut self, f: usize) {
        let fl = &self.flows[f];
        let Some(o) = fl.objects.as_ref() else { return };
        if !o.requested.is_empty() || fl.sender.is_none() || !fl.receiver.is_established() {
            return;
        }
        let gate_open = match o.after {
            None => true,
            Some(a) => self.flows[a]
                .objects
                .as_ref()
                .is_some_and(|o| !o.completed.is_empty()),
        };
        if gate_open {
            self.request(f);
        }
    }

    /// Flow `f`'s client sends its next request now (at its start at the
    /// earliest); it reaches the server one reverse-path delay later.
    fn request(&mut self, f: usize) {
        let fl = &mut self.flows[f];
        let Some(o) = fl.objects.as_mut() else { return };
        if o.requested.len() >= o.sizes.len() {
            return;
        }
        let t = self.now.max(fl.start);
        o.requested.push(t);
        // The request segment carries the ACK a delayed ACK held back.
        fl.receiver.piggyback_ack(self.now);
        let arrive = t + self.net.rev_delay + self.net.flows[f].extra_delay;
        self.timers.push(Reverse((arrive, f as u32, SIDE_REQUEST)));
    }

    /// Objects that arrived entirely: record them, send the next request,
    /// and release flows that waited for this one's first object.
    // Out of line: the modern-stack benchmark (m100) seldom or never runs
    // it, and inlined it spread the hot path's code over more cache lines;
    // where a run takes it per packet, it adds a call (issue 33,
    // docs/BENCHMARKS.md).
    #[inline(never)]
    fn objects_progress(&mut self, f: usize) {
        let now = self.now;
        let fl = &mut self.flows[f];
        let Some(o) = fl.objects.as_mut() else { return };
        let rcv = fl.receiver.rcv_nxt();
        let before = o.completed.len();
        while o.completed.len() < o.requested.len() && rcv >= o.ends[o.completed.len()] {
            o.completed.push(now);
        }
        let done = o.completed.len();
        if done == before {
            return;
        }
        if done == o.requested.len() {
            self.request(f);
        }
        if before == 0 {
            for g in 0..self.flows.len() {
                let waits = self.flows[g]
                    .objects
                    .as_ref()
                    .is_some_and(|o| o.after == Some(f) && o.requested.is_empty());
                if waits {
                    self.first_request(g);
                    self.service_receiver(g);
                }
            }
        }
    }

    fn service_receiver(&mut self, f: usize) {
        if self.flows[f].objects.is_some() {
            self.objects_progress(f);
        }
        let now = self.now;
        let fl = &mut self.flows[f];
        // `has_ack` first: most arriving segments owe no ACK, and the
        // call that would find none is not made (issue 33). The ACK goes
        // to the reverse path by reference, from where it waits in the
        // receiver's queue.
        let net = &mut self.net;
        while fl.receiver.has_ack() {
            fl.receiver
                .transmit_ack(now, |ack| net.send_ack(now, f, ack));
        }
        if let Some(t) = self.net.tracer.as_mut() {
            while let Some(ev) = fl.receiver.poll_event() {
                t.endpoint(f, Side::Receiver, &ev);
            }
        }
        if fl.fct_at.is_none() && fl.total.is_some_and(|t| fl.receiver.rcv_nxt() >= t) {
            fl.fct_at = Some(now);
            self.note_finished(f);
        }
        let fl = &mut self.flows[f];
        if let Some(d) = fl.receiver.poll_timeout() {
            let d = d.max(now);
            if fl.sched[1].is_none_or(|x| d < x) {
                fl.sched[1] = Some(d);
                self.timers.push(Reverse((d, f as u32, SIDE_RECEIVER)));
            }
        }
    }

    /// A flow is finished when its receiver has every byte and its sender
    /// has every acknowledgment.
    // Cold: rare, and inlined it spread the hot path's code over more
    // cache lines (issue 33, docs/BENCHMARKS.md).
    #[cold]
    #[inline(never)]
    fn note_finished(&mut self, f: usize) {
        let fl = &self.flows[f];
        if fl.fct_at.is_some() && fl.done_at.is_some() && self.unfinished != usize::MAX {
            self.unfinished -= 1;
        }
    }

    /// Results of the run so far (a partial run gives partial results).
    pub fn results(&self) -> crate::results::RunResults {
        crate::results::collect(&self.view())
    }

    /// What results.rs reads of the run.
    fn view(&self) -> RunView<'_> {
        RunView {
            scenario: self.scenario(),
            now: self.now(),
            events: self.events(),
            link: self.link_stats(),
            flows: self.flow_views().collect(),
            files: &self.files,
        }
    }

    fn flow_views(&self) -> impl Iterator<Item = FlowView<'_>> {
        self.flows
            .iter()
            .zip(&self.net.flows)
            .map(|(f, n)| FlowView {
                name: &f.name,
                spec: &f.spec,
                start: f.start,
                sender: f.sender.as_ref(),
                receiver: &f.receiver,
                fct_at: f.fct_at,
                epoch_link_bytes: &f.epoch_link_bytes,
                spurious: spurious_retransmissions(n),
                retransmissions_of_discarded: retransmissions_of_discarded(n),
                objects: f.objects.as_ref().map(|o| ObjectsView {
                    sizes: &o.sizes,
                    requested: &o.requested,
                    completed: &o.completed,
                }),
                periods: &n.periods.closed,
                periods_omitted: n.periods.omitted,
                open_period: n.periods.open.map(|o| RecoveryPeriod {
                    start: o.start,
                    end: None,
                    busy: self.net.link_busy - o.busy0,
                    packets: self.net.link_packets - o.packets0,
                    retransmissions: n.periods.retransmissions_departed - o.retransmissions0,
                }),
                period_busy: n.periods.total_busy,
                period_time: n.periods.total_time,
                rbb: &f.rbb,
                discard_head: f.discard_head,
                spurious_after_ack_loss: n.reports.after_ack_loss,
                spurious_unreported: n.reports.unreported,
            })
    }
    fn link_stats(&self) -> LinkStats {
        LinkStats {
            rate_bps: self.net.rate_bps,
            link_bytes: self.net.link_bytes,
            queue_drops: self.net.queue_drops,
            loss_drops: self.net.loss_drops,
            ack_drops: self.net.ack_drops,
            max_queue_bytes: self.net.max_queue_bytes,
        }
    }
}

/// Ground truth: a retransmission is spurious when an earlier
/// transmission of the same segment was accepted by the receiver (or was
/// still on its way when the run ended). A transmission failed when its
/// first copy was dropped by the network or discarded by the receiver
/// as out of window, and no extra copy (OR3's redundancy) was accepted;
/// the extra copies are never retransmissions themselves (the sender
/// counts them in `redundant_copies`).
///
/// Before the receiver's discards were told apart, a discarded copy
/// counted as delivered; the resends that changes are
/// `retransmissions_of_discarded`, so the old count is the sum of the two
/// (`spurious_and_discarded_add_up_to_the_old_count`).
fn spurious_retransmissions(n: &FlowNet) -> u64 {
    let mut total = 0;
    for (&seg, &max_tx) in &n.retransmitted {
        if let Some(i) = first_accepted(n, seg, max_tx) {
            total += u64::from(max_tx - 1 - i);
        }
    }
    total
}

/// Retransmissions sent before the first accepted transmission of their
/// segment, after some earlier copy had reached the receiver and been
/// discarded as out of window (OR3 paper section IV: opportunism
/// overbooks the receive buffer, and what the buffer cannot take must be
/// sent again). Not spurious: nothing before them was accepted.
fn retransmissions_of_discarded(n: &FlowNet) -> u64 {
    let mut total = 0;
    for (&seg, &max_tx) in &n.retransmitted {
        let reached = mask(&n.discarded, seg) | mask(&n.copies_discarded, seg);
        let Some(first) = (0..max_tx.min(64)).find(|i| reached & (1 << i) != 0) else {
            continue;
        };
        // 0-based transmissions first+1 ..= the first accepted one (or
        // the last sent): every one follows the discarded copy and none
        // follows an accepted one. A discard at or after the first
        // accepted transmission leaves nothing here (until <= first).
        let until = first_accepted(n, seg, max_tx).unwrap_or(max_tx - 1);
        total += u64::from(until.saturating_sub(first));
    }
    total
}

fn mask(m: &BTreeMap<u64, u64>, seg: u64) -> u64 {
    m.get(&seg).copied().unwrap_or(0)
}

/// The 0-based index of the first transmission of `seg` the receiver
/// accepted (or that was still in flight), if any.
fn first_accepted(n: &FlowNet, seg: u64, max_tx: u32) -> Option<u32> {
    let failed =
        (mask(&n.dropped, seg) | mask(&n.discarded, seg)) & !mask(&n.copies_delivered, seg);
    (0..max_tx.min(64)).find(|i| failed & (1 << i) == 0)
}

/// A flow's congestion-controller seed: its own stream of the scenario
/// seed, so adding a flow or a loss model changes no other draw.
pub fn cc_seed(seed: u64, flow: &str) -> u64 {
    crate::rng::Stream::new(seed, &format!("flow.{flow}.cc")).below(u64::MAX)
}

/// The parts of one flow; `seed` feeds controllers that draw random
/// numbers (`cc_seed`).
pub fn build_algorithms(spec: &FlowSpec, seed: u64) -> Result<Algorithms, String> {
    let detect = losslab_core::detect::DetectParams {
        dupthresh: 3,
        er_mitigation: spec.early_retransmit.mitigation,
        er_variant: spec.early_retransmit.variant,
        le_order: spec.le_order,
        rack_reo_timer: spec.rack_reo_timer,
        rack_timer_hz: spec.timer_hz,
        rack_advance: spec.rack_advance,
    };
    let timers = losslab_core::timers::TimerParams {
        rrthresh: spec.rrthresh,
        tlp_loss_inference: spec.tlp_loss_inference,
        tlpr_rtor_cap: spec.tlpr_rtor_cap,
        rack_tlp_pto: spec.rack_tlp_pto,
        timer_hz: spec.timer_hz,
        min_rto: spec.min_rto,
        probe_gate: spec.probe_gate,
        probe_rearm: spec.tlp_rearm,
        tlp_pto: spec.tlp_pto,
    };
    let cc = losslab_core::cc::CcParams {
        hystart: spec.hystart,
        tcp_rr_rto_factor: spec.tcp_rr_rto_factor,
        westwood_complete_cwr: spec.westwood_complete_cwr,
        westwood_ssthresh: spec.westwood_ssthresh,
        westwood_hz: spec.westwood_hz,
        vegas_gate: spec.vegas_gate,
        vegas_ssthresh: spec.vegas_ssthresh,
        bbr_min_rtt_refresh: spec.bbr_min_rtt_refresh,
        seed,
    };
    let recovery = losslab_core::recovery::RecoveryParams {
        queue_len_threshold: spec.qarr_queue_len_threshold,
        slide_wnd_size: spec.barr_slide_wnd_size,
        rtt_source: spec.recovery_rtt_source,
        qarr_update: spec.qarr_update,
        newreno_variant: spec.newreno_variant,
        le_grow_in_recovery: spec.le_grow_in_recovery,
    };
    let mut alg = Algorithms::by_name_with(
        &spec.cc.name(),
        &spec.recovery,
        &spec.detection,
        &spec.timers,
        &detect,
        &timers,
        &cc,
        &recovery,
    )?;
    let ext = losslab_core::sender::ExtensionParams {
        dupthresh: detect.dupthresh,
        hack1_refire: spec.hack1_refire,
        or3: spec.or3,
        // OR3's own stream, so its draws leave the controller's alone.
        seed: crate::rng::Stream::new(seed, "or3").below(u64::MAX),
    };
    for e in &spec.extensions {
        alg = alg.with_extension(e, &ext)?;
    }
    Ok(alg)
}

pub fn sender_config(spec: &FlowSpec) -> SenderConfig {
    SenderConfig {
        mss: spec.mss,
        init_cwnd: spec.init_cwnd,
        max_cwnd: spec.max_cwnd.unwrap_or(u64::MAX),
        rto: RtoConfig {
            min_rto: spec.min_rto,
            formula: spec.rto_formula,
            tick: match spec.timer_hz {
                0 => 0,
                hz => losslab_core::time::SEC / u64::from(hz),
            },
            ..RtoConfig::default()
        },
        app: app_of(spec),
        sndbuf: spec.sndbuf,
        sndbuf_model: spec.linux_sndbuf(),
        limited_transmit: spec.limited_transmit,
        // The handshake would have told the sender the peer's window: its
        // buffer, or the clamp on it (Receiver::send_syn).
        // With autotuning, the buffer's first window_clamp
        // (tcp_init_buffer_space()) bounds it too.
        initial_rwnd: {
            let r = &spec.receiver;
            let window = r.window_clamp.map_or(r.rcvbuf, |c| c.min(r.rcvbuf));
            if r.autotune {
                let drs = losslab_core::autotune::Drs::new(r.rcvbuf, spec.mss, window);
                window.min(drs.window_clamp())
            } else {
                window
            }
        },
        dupthresh: 3,
        lost_retransmission_detection: spec.lost_retransmission_detection,
        dsack_undo: spec.dsack_undo,
        restart_after_idle: spec.slow_start_after_idle,
        rto_rearm_on_head_retransmit: spec.rto_rearm_on_head_retransmit,
        rto_rearm_on_sack: spec.rto_rearm_on_sack,
        handshake: match (spec.handshake, &spec.app) {
            (false, _) => Handshake::None,
            (true, AppSpec::Objects { .. }) => Handshake::Passive,
            (true, _) => Handshake::Active,
        },
        handshake_rules: spec.handshake_rules,
        rto_ssthresh: spec.rto_ssthresh,
        frto: spec.frto,
        recovery_exit: spec.recovery_exit,
        pacing: spec.pacing,
        pacing_start: spec.pacing_start,
        cwnd_validation: spec.cwnd_validation,
        rtt_sample: spec.rtt_sample,
        cwnd_growth: spec.cwnd_growth,
        slow_start: spec.slow_start,
        avoidance: spec.avoidance,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use losslab_core::wire::{Range, SackBlocks, MAX_SACK_BLOCKS};
    use proptest::prelude::*;

    /// The reason `AckInFlight` exists: a line entry of at most 128 bytes
    /// moves in inline stores (a `(Time, Packet)`, 144, was a call to
    /// `memcpy`).
    #[test]
    fn an_ack_in_flight_fits_in_128_bytes() {
        assert!(std::mem::size_of::<AckInFlight>() <= 128);
    }

    /// An ACK's wire bytes, worked by hand: IPv4 20 + TCP 20 + the
    /// timestamp option 12 = 52; SACK (RFC 2018 section 3) 2 + 8n, with
    /// two NOPs before it; the SYN's MSS, window scale and SACK-permitted
    /// options 8 more.
    #[test]
    fn ack_wire_bytes_by_hand() {
        let with = |n: u64, syn: bool| {
            let mut sack = SackBlocks::new();
            for i in 0..n {
                sack.push(Range::new(10 * i + 100, 10 * i + 105));
            }
            ack_wire_bytes(&Ack {
                sack,
                syn,
                ..Ack::default()
            })
        };
        assert_eq!(with(0, false), 52);
        assert_eq!(with(1, false), 64);
        assert_eq!(with(3, false), 80);
        assert_eq!(with(4, false), 88);
        assert_eq!(with(0, true), 60);
    }

    proptest! {
        /// The forward path gives back the segment it was handed, every
        /// field of it (they are laid out apart from the `Segment`).
        #[test]
        fn a_data_packet_is_the_segment_it_was(
            (flow, wire_bytes, index) in any::<(u32, u32, u64)>(),
            (seq, ts_val, ts_ecr, seg_no, tx_order) in any::<(u64, u64, u64, u64, u64)>(),
            (len, tx_count) in any::<(u32, u32)>(),
            (probe, syn, replica) in any::<(bool, bool, bool)>(),
        ) {
            let seg = Segment { seq, len, ts_val, ts_ecr, seg_no, tx_count, tx_order, probe, syn, replica };
            let p = DataPacket::new(flow, wire_bytes, index, &seg);
            prop_assert_eq!(p.seg(), seg);
            // Read directly too (the tracer's and the loss model's paths):
            // a swap made alike both ways would pass the round trip.
            prop_assert_eq!(
                (p.seq, p.len, p.ts_val, p.ts_ecr, p.seg_no),
                (seq, len, ts_val, ts_ecr, seg_no)
            );
            prop_assert_eq!(
                (p.tx_count, p.tx_order, p.probe, p.syn, p.replica),
                (tx_count, tx_order, probe, syn, replica)
            );
            let q = p.packet();
            prop_assert_eq!((q.flow, q.index, q.wire_bytes), (flow, index, wire_bytes));
            prop_assert_eq!(q.body, Body::Data(seg));
        }

        /// The reverse line gives back the packet the sender's side made:
        /// every field, every SACK slot (used or not), the wire bytes.
        #[test]
        fn an_ack_in_flight_is_the_packet_it_was(
            at in any::<u64>(),
            flow in any::<u32>(),
            index in any::<u64>(),
            (ack, window, ts_val, ts_ecr, echo_order) in any::<(u64, u64, u64, u64, u64)>(),
            (dsack, syn) in any::<(bool, bool)>(),
            blocks in prop::collection::vec((any::<u64>(), any::<u64>()), 0..=MAX_SACK_BLOCKS + 1),
            cleared in any::<bool>(),
        ) {
            let mut sack = SackBlocks::new();
            for &(a, b) in &blocks {
                sack.push(Range { start: a.min(b), end: a.max(b) });
            }
            if cleared {
                // Slots past the length keep their old blocks.
                sack.clear();
            }
            let a = Ack { ack, window, sack, dsack, ts_val, ts_ecr, syn, echo_order };
            let made = Packet { flow, index, wire_bytes: ack_wire_bytes(&a), body: Body::Ack(a) };
            let back = AckInFlight::new(at, flow, index, &a);
            prop_assert_eq!(back.at, at);
            prop_assert_eq!(back.ack(), a);
            let p = back.packet();
            prop_assert_eq!((p.flow, p.index, p.wire_bytes), (made.flow, made.index, made.wire_bytes));
            prop_assert_eq!(p.body, made.body);
        }
    }

    #[test]
    fn spurious_counts_retransmissions_after_the_first_survivor() {
        let mut n = FlowNet::default();
        // Segment 5: original dropped, 1st retransmission delivered, a
        // 2nd retransmission was unnecessary.
        n.dropped.insert(5, 0b01);
        n.retransmitted.insert(5, 3);
        // Segment 9: original delivered, retransmitted once: spurious.
        n.retransmitted.insert(9, 2);
        // Segment 12: every copy dropped: nothing spurious.
        n.dropped.insert(12, 0b11);
        n.retransmitted.insert(12, 2);
        assert_eq!(spurious_retransmissions(&n), 2);
        // Segment 20: original and 1st retransmission dropped, but an
        // extra copy of the 1st retransmission arrived: the 2nd
        // retransmission was unnecessary. Copies themselves never count.
        n.dropped.insert(20, 0b011);
        n.copies_delivered.insert(20, 0b010);
        n.retransmitted.insert(20, 3);
        assert_eq!(spurious_retransmissions(&n), 3);
        assert_eq!(retransmissions_of_discarded(&n), 0);
        let old = |n: &FlowNet| spurious_retransmissions(n) + retransmissions_of_discarded(n);
        // Segment 30: original discarded at the right edge, 1st
        // retransmission accepted, a 2nd sent after it: the 1st resent a
        // discarded copy (not spurious), the 2nd is spurious. The old
        // count called both spurious.
        n.discarded.insert(30, 0b001);
        n.retransmitted.insert(30, 3);
        assert_eq!(spurious_retransmissions(&n), 4);
        assert_eq!(retransmissions_of_discarded(&n), 1);
        // Segment 40: original dropped, 1st and 2nd retransmissions
        // discarded, 3rd still in flight at the end: the 2nd and 3rd
        // follow a discard, nothing was accepted before them.
        n.dropped.insert(40, 0b0001);
        n.discarded.insert(40, 0b0110);
        n.retransmitted.insert(40, 4);
        assert_eq!(spurious_retransmissions(&n), 4);
        assert_eq!(retransmissions_of_discarded(&n), 3);
        // Segment 50: original dropped, but an OR3 copy of it reached the
        // receiver and was discarded; the 1st retransmission is accepted.
        // The old count took the copy for a delivery.
        n.dropped.insert(50, 0b01);
        n.copies_discarded.insert(50, 0b01);
        n.retransmitted.insert(50, 2);
        assert_eq!(spurious_retransmissions(&n), 4);
        assert_eq!(retransmissions_of_discarded(&n), 4);
        // Segment 60: original accepted, a later retransmission discarded
        // and resent: all spurious, none counted as resending a discard.
        n.discarded.insert(60, 0b010);
        n.retransmitted.insert(60, 3);
        assert_eq!(spurious_retransmissions(&n), 6);
        assert_eq!(retransmissions_of_discarded(&n), 4);
        // Segment 70: original discarded, but an OR3 copy of it accepted:
        // the retransmission is spurious.
        n.discarded.insert(70, 0b1);
        n.copies_delivered.insert(70, 0b1);
        n.retransmitted.insert(70, 2);
        assert_eq!(spurious_retransmissions(&n), 7);
        assert_eq!(retransmissions_of_discarded(&n), 4);
        // The previous definition (a copy counts as delivered whenever it
        // reached the receiver) on the same segments: 3 + 2 + 2 + 1 + 2 + 1.
        assert_eq!(old(&n), 11);
    }

    fn seg(seg_no: u64) -> Segment {
        Segment {
            seq: 0,
            len: 1448,
            ts_val: 0,
            ts_ecr: 0,
            seg_no,
            tx_count: 1,
            tx_order: 0,
            probe: false,
            syn: false,
            replica: false,
        }
    }

    /// Pops every segment: (flow, seg_no) in leaving order.
    fn drain(l: &mut NicLine) -> Vec<(usize, u64)> {
        std::iter::from_fn(|| l.pop().map(|(f, s, _)| (f, s.seg_no))).collect()
    }

    /// Ties in exit time go to the segment handed over first, whichever
    /// its flow (the order the map keyed by (exit, counter) gave), not to
    /// the lower flow index.
    #[test]
    fn nic_line_ties_leave_in_the_order_handed_over() {
        let mut l = NicLine::new(3);
        assert_eq!(l.next_exit(), None);
        // Handed over, in this order (counter in brackets):
        // flow 1 exits 10 [1], 20 [2]; flow 0 exits 10 [3], 20 [4], 30 [5];
        // flow 2 exits 5 [6], 20 [7].
        l.push(1, 10, seg(100), 1500);
        l.push(1, 20, seg(101), 1500);
        l.push(0, 10, seg(0), 1500);
        l.push(0, 20, seg(1), 1500);
        l.push(0, 30, seg(2), 1500);
        l.push(2, 5, seg(200), 1500);
        l.push(2, 20, seg(201), 1500);
        assert_eq!(l.next_exit(), Some(5));
        // 5 [6]; 10: [1] flow 1 before [3] flow 0; 20: [2], [4], [7]; 30.
        assert_eq!(
            drain(&mut l),
            [
                (2, 200),
                (1, 100),
                (0, 0),
                (1, 101),
                (0, 1),
                (2, 201),
                (0, 2)
            ]
        );
        assert_eq!(l.next_exit(), None);
        // Hand-overs between departures: at 40, flow 0's [8] leaves before
        // flow 1's [9]; flow 2's [11], handed over after flow 0's [10],
        // leaves before it (40 < 41) but after flow 1's [9] (same time).
        l.push(0, 40, seg(3), 1500); // [8]
        l.push(1, 40, seg(102), 1500); // [9]
        assert_eq!(
            l.pop().map(|(f, s, b)| (f, s.seg_no, b)),
            Some((0, 3, 1500))
        );
        l.push(0, 40 + 1, seg(4), 1500); // [10]
        l.push(2, 40, seg(202), 1500); // [11]
        assert_eq!(drain(&mut l), [(1, 102), (2, 202), (0, 4)]);
    }

    proptest::proptest! {
        /// The per-flow lines give the order of the ordered map they
        /// replaced, keyed by (exit time, counter), for any interleaving of
        /// hand-overs (each flow's exits increasing) and departures.
        #[test]
        fn nic_line_leaves_in_the_maps_order(
            ops in proptest::collection::vec((0usize..4, 0u64..3, proptest::bool::ANY), 0..200),
        ) {
            let mut l = NicLine::new(4);
            let mut map = BTreeMap::new();
            let mut seq = 0u64;
            let mut free = [0u64; 4];
            for (k, &(f, gap, pop)) in ops.iter().enumerate() {
                if pop {
                    let want = map.pop_first().map(|(_, v)| v);
                    proptest::prop_assert_eq!(l.pop().map(|(f, s, _)| (f, s.seg_no)), want);
                } else {
                    // Equal exits across flows are frequent: small gaps.
                    let exit = free[f] + 1 + gap;
                    free[f] = exit;
                    seq += 1;
                    map.insert((exit, seq), (f, k as u64));
                    l.push(f, exit, seg(k as u64), 1500);
                }
                proptest::prop_assert_eq!(l.next_exit(), map.first_key_value().map(|(&(t, _), _)| t));
            }
            let rest: Vec<_> = std::iter::from_fn(|| map.pop_first().map(|(_, v)| v)).collect();
            proptest::prop_assert_eq!(drain(&mut l), rest);
        }
    }

    /// The previous ground truth, verbatim: a transmission failed only when
    /// the network dropped its first copy and no extra copy arrived.
    fn old_spurious(n: &FlowNet) -> u64 {
        let mut total = 0;
        for (seg, &max_tx) in &n.retransmitted {
            let copies = mask(&n.copies_delivered, *seg) | mask(&n.copies_discarded, *seg);
            let failed = mask(&n.dropped, *seg) & !copies;
            if let Some(i) = (0..max_tx.min(64)).find(|i| failed & (1 << i) == 0) {
                total += u64::from(max_tx - 1 - i);
            }
        }
        total
    }

    proptest::proptest! {
        #[test]
        fn spurious_and_discarded_add_up_to_the_old_count(
            segs in proptest::collection::vec((1u32..8, 0u64..256, 0u64..256, 0u64..256, 0u64..256), 0..20),
        ) {
            let mut n = FlowNet::default();
            for (i, &(max_tx, fates, dropped, copies, copies_discarded)) in segs.iter().enumerate() {
                let i = i as u64;
                n.retransmitted.insert(i, max_tx);
                // A first copy is dropped, discarded or neither, never both.
                n.dropped.insert(i, dropped & fates);
                n.discarded.insert(i, !dropped & fates & 0xFF);
                n.copies_delivered.insert(i, copies);
                n.copies_discarded.insert(i, copies_discarded);
            }
            proptest::prop_assert_eq!(
                spurious_retransmissions(&n) + retransmissions_of_discarded(&n),
                old_spurious(&n)
            );
        }
    }
}
