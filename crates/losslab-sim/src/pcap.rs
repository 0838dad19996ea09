//! pcap captures of a run, one file per flow and host, for Wireshark and
//! tshark.
//!
//! The sender's capture is what a capture on the sender's host would show:
//! data segments as they leave (including those the bottleneck queue then
//! drops) and ACKs as they arrive. The receiver's capture shows data
//! segments as they arrive and ACKs as they leave. Both start with a
//! synthetic three-way handshake just before the flow's start, because the
//! simulator starts connections established but Wireshark only learns the
//! window scale and that SACK is permitted from the SYNs.
//!
//! Frames are Ethernet II / IPv4 / TCP with real lengths and checksums. The
//! payload is never simulated, so it is written as zeros and cut at the
//! snap length; the TCP checksum still covers the full (zero) payload, so a
//! frame written whole verifies.
//!
//! Format: classic pcap with nanosecond timestamps (magic 0xa1b23c4d,
//! <https://www.tcpdump.org/manpages/pcap-savefile.5.html>), little-endian,
//! LINKTYPE_ETHERNET. Timestamps are simulated time from 0.
//!
//! What the encoding implies for Wireshark (checked by
//! tests/integration/pcap_tshark.rs):
//! - Sequence numbers are (ISN + 1 + offset) mod 2^32; the default sender
//!   ISN sits 64 KiB below the wrap so that the wrap is always exercised.
//! - A packet has the same IP id in both captures (derived from its index
//!   in its direction), so the two can be matched frame by frame.
//! - The window scale announced in the SYNs is the smallest that fits the
//!   receive buffer; advertised windows are rounded down to a multiple of
//!   it, as a real receiver's would be.
//! - At most 3 SACK blocks fit beside the timestamps option (RFC 2018
//!   section 3); a 4th block from a receiver configured for 4 is dropped
//!   from the frame, which is then 8 bytes shorter than the simulator's
//!   `Packet::wire_bytes`.
//! - Wireshark's initial RTT is the handshake's span (2 * HANDSHAKE_STEP).
//!   For a flow starting at time 0 the handshake collapses to time 0,
//!   Wireshark has no initial RTT and falls back to 3 ms for its
//!   out-of-order heuristic, so a retransmission sent within 3 ms of new
//!   data is labelled "out-of-order" rather than "retransmission".
//! - A frame cut at the snap length has its TCP checksum shown as
//!   unverified; written whole (snaplen >= frame), it verifies.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use losslab_core::time::{Time, SEC, US};
use losslab_core::{Ack, Segment};

use crate::scenario::FlowSpec;
use crate::trace::{Body, Packet, PacketFate, Tracer};

/// Bytes of each frame written by default: every header this module
/// writes fits, plus some zero payload so that a truncated frame is
/// visibly a data segment.
pub const DEFAULT_SNAPLEN: u32 = 128;
/// Smallest snap length accepted: Ethernet + IPv4 (no options) + the
/// longest TCP header, so headers are never cut.
pub const MIN_SNAPLEN: u32 = (ETH_LEN + IP_LEN + 20 + MAX_OPTIONS) as u32;
/// libpcap's largest snap length; asking for more writes whole frames.
pub const MAX_SNAPLEN: u32 = 262_144;
/// Default sender ISN: 64 KiB below the wrap, so any flow longer than
/// that crosses 2^32 in the capture's sequence space.
pub const DEFAULT_SENDER_ISN: u32 = 0xFFFF_0000;
/// Default receiver ISN (the receiver sends no data; any value will do).
pub const DEFAULT_RECEIVER_ISN: u32 = 0x8000_0000;
pub const SENDER_ADDR: [u8; 4] = [10, 0, 0, 1];
pub const RECEIVER_ADDR: [u8; 4] = [10, 0, 1, 1];
/// Locally administered unicast MACs (bit 1 of the first octet set).
pub const SENDER_MAC: [u8; 6] = [0x02, 0x00, 0x0a, 0x00, 0x00, 0x01];
pub const RECEIVER_MAC: [u8; 6] = [0x02, 0x00, 0x0a, 0x00, 0x01, 0x01];
/// Flow i's sender uses port SENDER_BASE_PORT + i.
pub const SENDER_BASE_PORT: u16 = 40_000;
pub const RECEIVER_PORT: u16 = 5201;
/// Spacing of the synthetic handshake: SYN at start - 2 steps, SYN-ACK at
/// start - 1 step, the final ACK at start (clamped at time 0).
pub const HANDSHAKE_STEP: Time = US;

const ETH_LEN: usize = 14;
const IP_LEN: usize = 20;
/// RFC 9293 section 3.1: the data offset is 4 bits of 32-bit words, so
/// options fit in 60 - 20 bytes.
const MAX_OPTIONS: usize = 40;
const MAX_HEADERS: usize = ETH_LEN + IP_LEN + 20 + MAX_OPTIONS;

const TCP_SYN: u8 = 0x02;
const TCP_PSH: u8 = 0x08;
const TCP_ACK: u8 = 0x10;

/// Zero payload bytes, written in chunks.
static ZEROS: [u8; 4096] = [0; 4096];

/// Which hosts get a capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sides {
    /// DIR/<flow>.sender.pcap only.
    Sender,
    /// Also DIR/<flow>.receiver.pcap.
    Both,
}

/// Knobs beyond `PcapTracer::create`'s defaults.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PcapOptions {
    pub sides: Sides,
    /// Bytes of each frame written (clamped to MIN_SNAPLEN..=MAX_SNAPLEN);
    /// the record's original length is always the full frame.
    pub snaplen: u32,
    pub sender_isn: u32,
    pub receiver_isn: u32,
}

impl PcapOptions {
    pub fn new(sides: Sides) -> Self {
        PcapOptions {
            sides,
            snaplen: DEFAULT_SNAPLEN,
            sender_isn: DEFAULT_SENDER_ISN,
            receiver_isn: DEFAULT_RECEIVER_ISN,
        }
    }
}

/// One open capture file.
struct Capture {
    path: PathBuf,
    out: BufWriter<File>,
}

/// Per-flow constants and files.
struct FlowCap {
    port: u16,
    /// RFC 7323 section 2.3 shift count, both directions.
    wscale: u8,
    sender: Option<Capture>,
    receiver: Option<Capture>,
}

/// A `Tracer` writing pcap files; see the module documentation.
pub struct PcapTracer {
    flows: Vec<FlowCap>,
    enc: Encoder,
    /// The first write error; later packets are not written and `finish`
    /// reports it (a tracer cannot fail a packet event).
    error: Option<io::Error>,
}

impl PcapTracer {
    /// One file per flow and side: DIR/<flow>.sender.pcap and, with
    /// `Sides::Both`, DIR/<flow>.receiver.pcap. `flows` are the flows after
    /// count expansion, in flow-index order (`sim::expand_flows`).
    pub fn create(dir: &Path, flows: &[FlowSpec], sides: Sides) -> io::Result<Self> {
        Self::create_with(dir, flows, &PcapOptions::new(sides))
    }

    pub fn create_with(dir: &Path, flows: &[FlowSpec], opts: &PcapOptions) -> io::Result<Self> {
        let snaplen = opts.snaplen.clamp(MIN_SNAPLEN, MAX_SNAPLEN);
        let mut enc = Encoder {
            buf: [0; MAX_HEADERS],
            snaplen,
            sender_isn: opts.sender_isn,
            receiver_isn: opts.receiver_isn,
        };
        // The same stems as the pictures' (losslab-viz): one function, so
        // that a flow's pcap and its plots carry the same name.
        let names: Vec<&str> = flows.iter().map(|f| f.name.as_str()).collect();
        let stems = losslab_core::stem::file_stems(&names);
        let mut caps = Vec::with_capacity(flows.len());
        for (i, (spec, stem)) in flows.iter().zip(&stems).enumerate() {
            // RFC 791: total length is 16 bits.
            if u64::from(spec.mss) + (IP_LEN + 20 + 12) as u64 > u64::from(u16::MAX) {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "flow {:?}: mss {} does not fit an IPv4 packet",
                        spec.name, spec.mss
                    ),
                ));
            }
            let mut fc = FlowCap {
                // Ports are 16 bits: past 25,536 flows they repeat, in
                // different files.
                port: SENDER_BASE_PORT + (i % 25_536) as u16,
                wscale: wscale_for(spec.receiver.rcvbuf),
                sender: Some(Capture::create(
                    dir.join(format!("{stem}.sender.pcap")),
                    snaplen,
                )?),
                receiver: match opts.sides {
                    Sides::Sender => None,
                    Sides::Both => Some(Capture::create(
                        dir.join(format!("{stem}.receiver.pcap")),
                        snaplen,
                    )?),
                },
            };
            for cap in [fc.sender.as_mut(), fc.receiver.as_mut()]
                .into_iter()
                .flatten()
            {
                enc.handshake(&mut cap.out, spec, fc.port, fc.wscale)?;
            }
            caps.push(fc);
        }
        Ok(PcapTracer {
            flows: caps,
            enc,
            error: None,
        })
    }

    /// Every file, in flow order, sender's before receiver's.
    pub fn files(&self) -> Vec<PathBuf> {
        self.flows
            .iter()
            .flat_map(|f| [f.sender.as_ref(), f.receiver.as_ref()])
            .flatten()
            .map(|c| c.path.clone())
            .collect()
    }
}

impl Tracer for PcapTracer {
    fn packet(&mut self, at: Time, pkt: &Packet, fate: PacketFate) {
        if self.error.is_some() {
            return;
        }
        let Some(fc) = self.flows.get_mut(pkt.flow as usize) else {
            return;
        };
        // Which host's capture sees this event: data leaves the sender and
        // arrives at the receiver; ACKs the other way round. Drops are not
        // seen by either host (a queue drop was already seen leaving).
        let enc = &mut self.enc;
        let (cap, frame) = match (&pkt.body, fate) {
            (Body::Data(s), PacketFate::Sent) => (fc.sender.as_mut(), enc.data(s, pkt.index)),
            (Body::Data(s), PacketFate::Delivered) => {
                (fc.receiver.as_mut(), enc.data(s, pkt.index))
            }
            (Body::Ack(a), PacketFate::Sent) => {
                (fc.receiver.as_mut(), enc.ack(a, pkt.index, fc.wscale))
            }
            (Body::Ack(a), PacketFate::Delivered) => {
                (fc.sender.as_mut(), enc.ack(a, pkt.index, fc.wscale))
            }
            _ => return,
        };
        if let Some(cap) = cap {
            if let Err(e) = enc.emit(&mut cap.out, at, fc.port, &frame) {
                self.error = Some(e);
            }
        }
    }

    fn finish(&mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        for f in &mut self.flows {
            for cap in [f.sender.as_mut(), f.receiver.as_mut()]
                .into_iter()
                .flatten()
            {
                cap.out.flush()?;
            }
        }
        Ok(())
    }
}

impl Capture {
    fn create(path: PathBuf, snaplen: u32) -> io::Result<Self> {
        let mut out = BufWriter::with_capacity(1 << 16, File::create(&path)?);
        // pcap file header: magic (nanosecond resolution), version 2.4,
        // thiszone, sigfigs, snaplen, linktype 1 = Ethernet.
        let mut h = [0u8; 24];
        h[0..4].copy_from_slice(&0xa1b2_3c4du32.to_le_bytes());
        h[4..6].copy_from_slice(&2u16.to_le_bytes());
        h[6..8].copy_from_slice(&4u16.to_le_bytes());
        h[16..20].copy_from_slice(&snaplen.to_le_bytes());
        h[20..24].copy_from_slice(&1u32.to_le_bytes());
        out.write_all(&h)?;
        Ok(Capture { path, out })
    }
}

/// The smallest RFC 7323 shift (at most 14, section 2.3) such that the
/// largest window the receiver can offer, its buffer, fits 16 bits.
pub fn wscale_for(rcvbuf: u64) -> u8 {
    let mut s = 0u8;
    while s < 14 && (rcvbuf >> s) > 0xFFFF {
        s += 1;
    }
    s
}

/// Engine time (ns) to a 32-bit RFC 7323 timestamp clock ticking every
/// microsecond. The same map for TSval and TSecr keeps echoes exact, and it
/// is monotone. It wraps mod 2^32 after 71 minutes, and RFC 7323 compares
/// timestamps modulo 2^32 (section 5.2). The tick is finer than the 1 ms
/// to 1 s that section 5.4 recommends for PAWS, which only matters to a
/// real stack; a capture gains the resolution.
pub fn ts_clock(t: Time) -> u32 {
    (t / US) as u32
}

/// One TCP segment as it goes on the wire, before encoding.
struct Frame {
    from_sender: bool,
    ip_id: u16,
    seq: u32,
    ack: u32,
    flags: u8,
    window: u16,
    opts: Options,
    /// Payload bytes: counted in the lengths and the checksum, written as
    /// zeros up to the snap length.
    payload: u32,
}

/// TCP options being assembled (RFC 9293 section 3.1: kind, length,
/// value; a multiple of 4 bytes in all).
#[derive(Clone, Copy)]
struct Options {
    b: [u8; MAX_OPTIONS],
    n: usize,
}

impl Options {
    fn new() -> Self {
        Options {
            b: [0; MAX_OPTIONS],
            n: 0,
        }
    }
    fn as_slice(&self) -> &[u8] {
        &self.b[..self.n]
    }
    fn room(&self) -> usize {
        MAX_OPTIONS - self.n
    }
    fn push(&mut self, bytes: &[u8]) {
        self.b[self.n..self.n + bytes.len()].copy_from_slice(bytes);
        self.n += bytes.len();
    }
    /// RFC 9293 kind 1: padding so the next option's 32-bit fields align.
    fn nop(&mut self) {
        self.push(&[1]);
    }
    /// RFC 9293 kind 2: MSS, SYN only.
    fn mss(&mut self, mss: u16) {
        let m = mss.to_be_bytes();
        self.push(&[2, 4, m[0], m[1]]);
    }
    /// RFC 7323 section 2.2 kind 3, SYN only; preceded by a NOP so the
    /// options stay a multiple of 4 after the 3-byte option.
    fn wscale(&mut self, shift: u8) {
        self.nop();
        self.push(&[3, 3, shift]);
    }
    /// RFC 2018 section 2 kind 4, SYN only.
    fn sack_permitted(&mut self) {
        self.push(&[4, 2]);
    }
    /// RFC 7323 section 3.2 kind 8, with the two NOPs of RFC 7323
    /// Appendix A so TSval and TSecr are 32-bit aligned.
    fn timestamps_aligned(&mut self, ts_val: u32, ts_ecr: u32) {
        self.nop();
        self.nop();
        self.timestamps(ts_val, ts_ecr);
    }
    fn timestamps(&mut self, ts_val: u32, ts_ecr: u32) {
        self.push(&[8, 10]);
        self.push(&ts_val.to_be_bytes());
        self.push(&ts_ecr.to_be_bytes());
    }
    /// RFC 2018 section 3 kind 5 after two NOPs: as many of `blocks` as
    /// fit (3 after the timestamps option), in the order given; returns
    /// how many were written. A DSACK block (RFC 2883) is just the first.
    fn sack(&mut self, blocks: impl Iterator<Item = (u32, u32)>) -> usize {
        let fit = self.room().saturating_sub(4) / 8;
        let start = self.n;
        self.push(&[1, 1, 5, 2]);
        let mut k = 0;
        for (le, re) in blocks.take(fit) {
            self.push(&le.to_be_bytes());
            self.push(&re.to_be_bytes());
            k += 1;
        }
        if k == 0 {
            self.n = start;
        } else {
            self.b[start + 3] = (2 + 8 * k) as u8;
        }
        k
    }
}

/// RFC 1071 one's-complement sum of 16-bit big-endian words (an odd last
/// byte is padded with a zero), not yet folded.
fn sum16(data: &[u8], mut acc: u32) -> u32 {
    let mut chunks = data.chunks_exact(2);
    for w in &mut chunks {
        acc += u32::from(u16::from_be_bytes([w[0], w[1]]));
    }
    if let [b] = chunks.remainder() {
        acc += u32::from(*b) << 8;
    }
    acc
}

/// Folds the carries and complements (RFC 1071 section 4.1).
fn fold(mut acc: u32) -> u16 {
    while acc > 0xFFFF {
        acc = (acc & 0xFFFF) + (acc >> 16);
    }
    !(acc as u16)
}

/// RFC 791 section 3.1 header checksum of a 20-byte header whose checksum
/// field (bytes 10..12) is zero.
pub fn ipv4_checksum(header: &[u8]) -> u16 {
    fold(sum16(header, 0))
}

/// RFC 9293 section 3.1 checksum: the pseudo header (source, destination,
/// zero, protocol 6, TCP length) and the TCP header whose checksum field is
/// zero. The payload is `payload_len` zero bytes, which add nothing to the
/// sum but do count in the TCP length.
pub fn tcp_checksum(src: [u8; 4], dst: [u8; 4], tcp_header: &[u8], payload_len: u32) -> u16 {
    let tcp_len = tcp_header.len() as u32 + payload_len;
    let mut acc = sum16(&src, 0);
    acc = sum16(&dst, acc);
    acc += 6;
    acc += tcp_len >> 16;
    acc += tcp_len & 0xFFFF;
    fold(sum16(tcp_header, acc))
}

/// Encodes frames into one reused buffer.
struct Encoder {
    buf: [u8; MAX_HEADERS],
    snaplen: u32,
    sender_isn: u32,
    receiver_isn: u32,
}

impl Encoder {
    /// RFC 9293 section 3.4: sequence numbers are mod 2^32 and the first
    /// data byte is ISN + 1 (the SYN takes the ISN).
    fn seq32(isn: u32, offset: u64) -> u32 {
        isn.wrapping_add(1).wrapping_add(offset as u32)
    }

    /// SYN, SYN-ACK and the final ACK, ending at the flow's start.
    fn handshake(
        &mut self,
        out: &mut impl Write,
        spec: &FlowSpec,
        port: u16,
        wscale: u8,
    ) -> io::Result<()> {
        let t_ack = spec.start;
        let t_synack = t_ack.saturating_sub(HANDSHAKE_STEP);
        let t_syn = t_ack.saturating_sub(2 * HANDSHAKE_STEP);
        // The engine's TSval is its clock + 1 at the sender, its clock at
        // the receiver; the handshake follows suit.
        let syn_ts = ts_clock(t_syn + 1);
        let synack_ts = ts_clock(t_synack);
        let mss = spec.mss.min(0xFFFF) as u16;
        // RFC 7323 section 2.2: the window in a SYN is never scaled.
        let syn_window = spec
            .receiver
            .window_clamp
            .map_or(spec.receiver.rcvbuf, |c| c.min(spec.receiver.rcvbuf))
            .min(0xFFFF) as u16;
        let syn_opts = |ts_val, ts_ecr| {
            let mut o = Options::new();
            o.mss(mss);
            o.sack_permitted();
            o.timestamps(ts_val, ts_ecr);
            o.wscale(wscale);
            o
        };
        let (s_isn, r_isn) = (self.sender_isn, self.receiver_isn);
        // IP ids: the SYN and the SYN-ACK are 0 in their directions, the
        // final ACK 1 (data follows from 2).
        let syn = Frame {
            from_sender: true,
            ip_id: 0,
            seq: s_isn,
            ack: 0,
            flags: TCP_SYN,
            window: syn_window,
            opts: syn_opts(syn_ts, 0),
            payload: 0,
        };
        self.emit(out, t_syn, port, &syn)?;
        let syn_ack = Frame {
            from_sender: false,
            ip_id: 0,
            seq: r_isn,
            ack: s_isn.wrapping_add(1),
            flags: TCP_SYN | TCP_ACK,
            window: syn_window,
            opts: syn_opts(synack_ts, syn_ts),
            payload: 0,
        };
        self.emit(out, t_synack, port, &syn_ack)?;
        let mut opts = Options::new();
        opts.timestamps_aligned(ts_clock(t_ack + 1), synack_ts);
        let ack = Frame {
            from_sender: true,
            ip_id: 1,
            seq: s_isn.wrapping_add(1),
            ack: r_isn.wrapping_add(1),
            flags: TCP_ACK,
            window: 0xFFFF,
            opts,
            payload: 0,
        };
        self.emit(out, t_ack, port, &ack)
    }

    /// A data segment; `index` is its 1-based place among the flow's data
    /// packets, which makes its IP id the same in both hosts' captures.
    fn data(&self, s: &Segment, index: u64) -> Frame {
        let mut opts = Options::new();
        opts.timestamps_aligned(ts_clock(s.ts_val), ts_clock(s.ts_ecr));
        Frame {
            from_sender: true,
            ip_id: (index + 1) as u16,
            seq: Self::seq32(self.sender_isn, s.seq),
            ack: Self::seq32(self.receiver_isn, 0),
            flags: TCP_PSH | TCP_ACK,
            // A fixed advertisement: the simulated receiver sends no data,
            // so the sender's receive window means nothing.
            window: 0xFFFF,
            opts,
            payload: s.len,
        }
    }

    /// An ACK; `index` as for data (the SYN-ACK took IP id 0).
    fn ack(&self, a: &Ack, index: u64, wscale: u8) -> Frame {
        let isn = self.sender_isn;
        let mut opts = Options::new();
        opts.timestamps_aligned(ts_clock(a.ts_val), ts_clock(a.ts_ecr));
        opts.sack(
            a.sack
                .as_slice()
                .iter()
                .map(|r| (Self::seq32(isn, r.start), Self::seq32(isn, r.end))),
        );
        Frame {
            from_sender: false,
            ip_id: index as u16,
            seq: Self::seq32(self.receiver_isn, 0),
            ack: Self::seq32(isn, a.ack),
            flags: TCP_ACK,
            // RFC 7323 section 2.3: the field carries the window shifted
            // right by the announced count (rounded down, never offering
            // more than the receiver did).
            window: (a.window >> wscale).min(0xFFFF) as u16,
            opts,
            payload: 0,
        }
    }

    /// Writes one pcap record: headers from the buffer, then zero payload
    /// up to the snap length.
    fn emit(&mut self, out: &mut impl Write, at: Time, port: u16, f: &Frame) -> io::Result<()> {
        let (src, dst, smac, dmac, sport, dport) = if f.from_sender {
            (
                SENDER_ADDR,
                RECEIVER_ADDR,
                SENDER_MAC,
                RECEIVER_MAC,
                port,
                RECEIVER_PORT,
            )
        } else {
            (
                RECEIVER_ADDR,
                SENDER_ADDR,
                RECEIVER_MAC,
                SENDER_MAC,
                RECEIVER_PORT,
                port,
            )
        };
        let opts = &f.opts;
        let payload = f.payload;
        let tcp_len = 20 + opts.n;
        debug_assert!(opts.n & 3 == 0, "options must be whole 32-bit words");
        let headers = ETH_LEN + IP_LEN + tcp_len;
        let ip_total = (IP_LEN + tcp_len) as u32 + payload;
        debug_assert!(ip_total <= 0xFFFF, "checked in create_with");
        let b = &mut self.buf;

        // Ethernet II: destination, source, EtherType IPv4.
        b[0..6].copy_from_slice(&dmac);
        b[6..12].copy_from_slice(&smac);
        b[12..14].copy_from_slice(&0x0800u16.to_be_bytes());

        // RFC 791 section 3.1: version 4, IHL 5 words, TOS 0, total length,
        // identification, flags DF (0b010) with fragment offset 0, TTL 64,
        // protocol 6 (TCP), checksum, addresses.
        let ip = &mut b[ETH_LEN..ETH_LEN + IP_LEN];
        ip[0] = 0x45;
        ip[1] = 0;
        ip[2..4].copy_from_slice(&(ip_total as u16).to_be_bytes());
        ip[4..6].copy_from_slice(&f.ip_id.to_be_bytes());
        ip[6..8].copy_from_slice(&0x4000u16.to_be_bytes());
        ip[8] = 64;
        ip[9] = 6;
        ip[10..12].copy_from_slice(&[0, 0]);
        ip[12..16].copy_from_slice(&src);
        ip[16..20].copy_from_slice(&dst);
        let c = ipv4_checksum(ip);
        ip[10..12].copy_from_slice(&c.to_be_bytes());

        // RFC 9293 section 3.1: ports, sequence and acknowledgment numbers,
        // data offset in 32-bit words, flags, window, checksum, urgent
        // pointer, options.
        let tcp = &mut b[ETH_LEN + IP_LEN..headers];
        tcp[0..2].copy_from_slice(&sport.to_be_bytes());
        tcp[2..4].copy_from_slice(&dport.to_be_bytes());
        tcp[4..8].copy_from_slice(&f.seq.to_be_bytes());
        tcp[8..12].copy_from_slice(&f.ack.to_be_bytes());
        tcp[12] = ((tcp_len / 4) as u8) << 4;
        tcp[13] = f.flags;
        tcp[14..16].copy_from_slice(&f.window.to_be_bytes());
        tcp[16..20].copy_from_slice(&[0, 0, 0, 0]);
        tcp[20..].copy_from_slice(opts.as_slice());
        let c = tcp_checksum(src, dst, tcp, payload);
        tcp[16..18].copy_from_slice(&c.to_be_bytes());

        // pcap record header: seconds, nanoseconds, captured and original
        // lengths.
        let frame_len = headers as u32 + payload;
        let incl = frame_len.min(self.snaplen);
        let mut rec = [0u8; 16];
        rec[0..4].copy_from_slice(&((at / SEC) as u32).to_le_bytes());
        rec[4..8].copy_from_slice(&((at % SEC) as u32).to_le_bytes());
        rec[8..12].copy_from_slice(&incl.to_le_bytes());
        rec[12..16].copy_from_slice(&frame_len.to_le_bytes());
        out.write_all(&rec)?;
        out.write_all(&self.buf[..headers])?;
        let mut zeros = (incl as usize).saturating_sub(headers);
        while zeros > 0 {
            let k = zeros.min(ZEROS.len());
            out.write_all(&ZEROS[..k])?;
            zeros -= k;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use losslab_core::{Range, SackBlocks};

    #[test]
    fn flows_whose_names_clash_as_files_get_a_pcap_each() {
        // All three names parse; `a/` becomes `a_`, and the old clash
        // suffix made it `a_-2`, flow 0's file, so one capture was lost.
        let dir = std::env::temp_dir().join(format!("losslab-pcap-stems-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let flows: Vec<FlowSpec> = ["a_-2", "a_", "a/"]
            .into_iter()
            .map(FlowSpec::new)
            .collect();
        let mut t = PcapTracer::create(&dir, &flows, Sides::Both).unwrap();
        t.finish().unwrap();
        let names: Vec<String> = t
            .files()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [
                "a_-2.sender.pcap",
                "a_-2.receiver.pcap",
                "a_.sender.pcap",
                "a_.receiver.pcap",
                "a_-2-2.sender.pcap",
                "a_-2-2.receiver.pcap"
            ]
        );
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 6);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn ipv4_checksum_matches_a_known_header() {
        // The worked example in Wikipedia's "IPv4 header checksum"
        // article: 4500 0073 0000 4000 4011 [b861] c0a8 0001 c0a8 00c7.
        let mut h = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8,
            0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
        ];
        assert_eq!(ipv4_checksum(&h), 0xb861);
        // A header with its checksum in place sums to zero.
        h[10..12].copy_from_slice(&0xb861u16.to_be_bytes());
        assert_eq!(ipv4_checksum(&h), 0);
    }

    #[test]
    fn tcp_checksum_of_zero_payload_counts_only_its_length() {
        let mut hdr = [0u8; 32];
        hdr[0..4].copy_from_slice(&[0x9c, 0x40, 0x14, 0x51]);
        hdr[12] = 8 << 4;
        hdr[13] = TCP_ACK | TCP_PSH;
        for len in [0u32, 1, 2, 1447, 1448, 9000] {
            // The same sum over the payload written out as zeros.
            let mut whole = hdr.to_vec();
            whole.resize(hdr.len() + len as usize, 0);
            let mut acc = sum16(&SENDER_ADDR, 0);
            acc = sum16(&RECEIVER_ADDR, acc) + 6 + whole.len() as u32;
            let explicit = fold(sum16(&whole, acc));
            assert_eq!(
                tcp_checksum(SENDER_ADDR, RECEIVER_ADDR, &hdr, len),
                explicit,
                "payload {len}"
            );
        }
    }

    #[test]
    fn frames_checksum_to_zero_when_verified() {
        let mut enc = Encoder {
            buf: [0; MAX_HEADERS],
            snaplen: MAX_SNAPLEN,
            sender_isn: DEFAULT_SENDER_ISN,
            receiver_isn: DEFAULT_RECEIVER_ISN,
        };
        let mut sack = SackBlocks::new();
        sack.push(Range::new(3000, 4000));
        sack.push(Range::new(6000, 7000));
        let a = Ack {
            ack: 1000,
            window: 1 << 20,
            sack,
            dsack: false,
            ts_val: 5 * SEC,
            ts_ecr: 4 * SEC,
            syn: false,
            echo_order: 0,
        };
        let mut out = Vec::new();
        let f = enc.ack(&a, 1, 5);
        enc.emit(&mut out, 7 * SEC + 3, 40_000, &f).unwrap();
        let rec = &out[..16];
        assert_eq!(u32::from_le_bytes(rec[0..4].try_into().unwrap()), 7);
        assert_eq!(u32::from_le_bytes(rec[4..8].try_into().unwrap()), 3);
        let frame = &out[16..];
        let ip = &frame[ETH_LEN..ETH_LEN + IP_LEN];
        assert_eq!(ipv4_checksum(ip), 0);
        let tcp = &frame[ETH_LEN + IP_LEN..];
        // 20 + NOP NOP TS(10) + NOP NOP SACK(2 + 16)
        assert_eq!(tcp.len(), 20 + 12 + 4 + 16);
        assert_eq!(tcp[12] >> 4, 13);
        assert_eq!(tcp_checksum(SENDER_ADDR, RECEIVER_ADDR, tcp, 0), 0);
        // Window 1 MiB >> 5.
        assert_eq!(u16::from_be_bytes([tcp[14], tcp[15]]), 1 << 15);
        // Ack number wraps: 0xFFFF0000 + 1 + 1000.
        assert_eq!(
            u32::from_be_bytes(tcp[8..12].try_into().unwrap()),
            0xFFFF_03E9
        );
    }

    #[test]
    fn option_layouts() {
        let mut o = Options::new();
        o.timestamps_aligned(0x0102_0304, 0x0506_0708);
        assert_eq!(o.as_slice(), &[1, 1, 8, 10, 1, 2, 3, 4, 5, 6, 7, 8]);

        // SYN: MSS, SACK permitted, timestamps, NOP, window scale: 20
        // bytes, the layout Linux uses.
        let mut o = Options::new();
        o.mss(1448);
        o.sack_permitted();
        o.timestamps(7, 0);
        o.wscale(9);
        assert_eq!(
            o.as_slice(),
            &[2, 4, 0x05, 0xa8, 4, 2, 8, 10, 0, 0, 0, 7, 0, 0, 0, 0, 1, 3, 3, 9]
        );

        // SACK after timestamps: at most 3 blocks fit in 40 bytes.
        let mut o = Options::new();
        o.timestamps_aligned(1, 2);
        let blocks = [(1u32, 2u32), (3, 4), (5, 6), (7, 8)];
        assert_eq!(o.sack(blocks.iter().copied()), 3);
        assert_eq!(o.n, MAX_OPTIONS);
        assert_eq!(&o.b[12..16], &[1, 1, 5, 26]);
        assert_eq!(&o.b[16..24], &[0, 0, 0, 1, 0, 0, 0, 2]);
        assert_eq!(&o.b[32..40], &[0, 0, 0, 5, 0, 0, 0, 6]);

        // No blocks: no SACK option at all.
        let mut o = Options::new();
        o.timestamps_aligned(1, 2);
        assert_eq!(o.sack(std::iter::empty()), 0);
        assert_eq!(o.n, 12);
    }

    #[test]
    fn sequence_numbers_and_window_scale() {
        assert_eq!(Encoder::seq32(0xFFFF_0000, 0), 0xFFFF_0001);
        assert_eq!(Encoder::seq32(0xFFFF_0000, 0xFFFF), 0);
        assert_eq!(Encoder::seq32(0xFFFF_0000, (1 << 32) + 5), 0xFFFF_0006);
        assert_eq!(wscale_for(65_535), 0);
        assert_eq!(wscale_for(65_536), 1);
        assert_eq!(wscale_for(16_000_000), 8);
        assert_eq!(wscale_for(u64::MAX), 14);
        assert_eq!(ts_clock(1), 0);
        assert_eq!(ts_clock(1_000_001), 1000);
    }
}
