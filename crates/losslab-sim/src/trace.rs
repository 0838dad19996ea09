//! What a tracer sees of a run: packets with their fate and endpoint
//! events. The simulator calls these hooks; the writers (pcap, packet log,
//! time series, receive-buffer samples) implement them, and need nothing
//! else of the simulator.

use losslab_core::event::Timed;
use losslab_core::time::Time;
use losslab_core::{Ack, Segment};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Body {
    Data(Segment),
    Ack(Ack),
}

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    pub flow: u32,
    /// 1-based index among this flow's packets in this direction.
    pub index: u64,
    pub wire_bytes: u32,
    pub body: Body,
}

/// What happened to a packet, for tracers (pcap, plots).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketFate {
    /// Handed to the path by its sender (data: into the bottleneck queue).
    Sent,
    /// Dropped at the tail of a full queue.
    QueueDrop,
    /// Dropped by the loss model.
    LossDrop,
    /// Reached the other end.
    Delivered,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Sender,
    Receiver,
}

/// Observes a run. Every method has an empty default; a run without a
/// tracer pays nothing for it.
pub trait Tracer {
    fn packet(&mut self, _at: Time, _pkt: &Packet, _fate: PacketFate) {}
    fn endpoint(&mut self, _flow: usize, _side: Side, _ev: &Timed) {}
    /// A flow's receive-buffer bubbles and occupancy, sampled once per
    /// base RTT (crate::rbb).
    fn rbb_sample(&mut self, _at: Time, _flow: usize, _bubbles: u64, _rcvbuf_bytes: u64) {}
    /// Whether `packet` is wanted; asked once, when the tracer is set. A
    /// tracer that only samples (the receive-buffer CSV) says no, and the
    /// simulator then skips the per-packet hook, twice per packet
    /// (issue 33: 2% of a modern-stack run's instructions).
    fn wants_packets(&self) -> bool {
        true
    }
    /// Whether endpoint events (cwnd, loss marks, ...) are wanted.
    fn wants_endpoint_events(&self) -> bool {
        false
    }
    /// The run is over: flush what was buffered.
    fn finish(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Several tracers observing one run.
#[derive(Default)]
pub struct Tee(pub Vec<Box<dyn Tracer>>);

impl Tracer for Tee {
    fn packet(&mut self, at: Time, pkt: &Packet, fate: PacketFate) {
        for t in &mut self.0 {
            t.packet(at, pkt, fate);
        }
    }
    fn endpoint(&mut self, flow: usize, side: Side, ev: &Timed) {
        for t in &mut self.0 {
            if t.wants_endpoint_events() {
                t.endpoint(flow, side, ev);
            }
        }
    }
    fn rbb_sample(&mut self, at: Time, flow: usize, bubbles: u64, rcvbuf_bytes: u64) {
        for t in &mut self.0 {
            t.rbb_sample(at, flow, bubbles, rcvbuf_bytes);
        }
    }
    fn wants_packets(&self) -> bool {
        self.0.iter().any(|t| t.wants_packets())
    }
    fn wants_endpoint_events(&self) -> bool {
        self.0.iter().any(|t| t.wants_endpoint_events())
    }
    fn finish(&mut self) -> std::io::Result<()> {
        let mut first_err = None;
        for t in &mut self.0 {
            if let Err(e) = t.finish() {
                first_err.get_or_insert(e);
            }
        }
        first_err.map_or(Ok(()), Err)
    }
}
