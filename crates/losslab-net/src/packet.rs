//! What the emulator reads from an IP packet: enough to name its flow,
//! count it and, for TCP, place it in the byte stream (so that the
//! scenario's `segments`, `tail` and `protect_retransmissions` work on real
//! TCP as they do in the simulator).

use std::collections::HashMap;

use losslab_sim::loss::PacketView;

pub const PROTO_TCP: u8 = 6;
pub const PROTO_UDP: u8 = 17;

pub const TCP_FIN: u8 = 0x01;
pub const TCP_SYN: u8 = 0x02;
pub const TCP_RST: u8 = 0x04;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Meta {
    /// 0 for anything that is not IPv4.
    pub proto: u8,
    pub src: [u8; 4],
    pub dst: [u8; 4],
    pub sport: u16,
    pub dport: u16,
    pub ip_id: u16,
    /// TCP only.
    pub seq: u32,
    pub flags: u8,
    /// Transport payload bytes.
    pub payload: u32,
}

/// Parses an IPv4 packet's headers; anything else yields proto 0.
pub fn parse(b: &[u8]) -> Meta {
    let mut m = Meta::default();
    if b.len() < 20 || b[0] >> 4 != 4 {
        return m;
    }
    let ihl = (b[0] & 0x0f) as usize * 4;
    let total = u16::from_be_bytes([b[2], b[3]]) as usize;
    if ihl < 20 || b.len() < ihl || total < ihl {
        return m;
    }
    m.ip_id = u16::from_be_bytes([b[4], b[5]]);
    m.src.copy_from_slice(&b[12..16]);
    m.dst.copy_from_slice(&b[16..20]);
    let proto = b[9];
    let l4 = &b[ihl..b.len().min(total)];
    match proto {
        PROTO_TCP if l4.len() >= 20 => {
            let off = (l4[12] >> 4) as usize * 4;
            m.proto = proto;
            m.sport = u16::from_be_bytes([l4[0], l4[1]]);
            m.dport = u16::from_be_bytes([l4[2], l4[3]]);
            m.seq = u32::from_be_bytes([l4[4], l4[5], l4[6], l4[7]]);
            m.flags = l4[13];
            m.payload = (total - ihl).saturating_sub(off) as u32;
        }
        PROTO_UDP if l4.len() >= 8 => {
            m.proto = proto;
            m.sport = u16::from_be_bytes([l4[0], l4[1]]);
            m.dport = u16::from_be_bytes([l4[2], l4[3]]);
            m.payload = (total - ihl).saturating_sub(8) as u32;
        }
        _ => {
            m.proto = proto;
            m.payload = (total - ihl) as u32;
        }
    }
    m
}

/// How packets are assigned to the scenario's flows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FlowMap {
    /// Connections (5-tuples, both directions) numbered in the order their
    /// first packet is seen: the first is flow 0.
    FirstSeen,
    /// Flow i is the connection whose B-side port is base + i (what
    /// `losslab linux` uses: flow i's receiver listens on base + i).
    /// Other traffic belongs to no flow.
    BPorts { base: u16, n: u16 },
}

/// No flow: drop lists never match it; random models still apply.
pub const NO_FLOW: usize = usize::MAX;

/// Per flow and direction: the packet counter and the TCP stream position.
#[derive(Clone, Debug, Default)]
struct DirState {
    index: u64,
    /// Highest relative end sequence sent so far, as an unwrapped u64;
    /// None until the first data (or SYN) is seen.
    high: Option<u64>,
    /// ISN + 1 when the SYN was seen, else the first data's sequence.
    base: u32,
}

/// What the loss model needs to know about flows (from the scenario).
#[derive(Clone, Debug)]
pub struct FlowInfo {
    pub mss: u32,
    pub total: Option<u64>,
}

/// (protocol, A address, A port, B address, B port).
type ConnKey = (u8, [u8; 4], u16, [u8; 4], u16);

pub struct Flows {
    map: FlowMap,
    ids: HashMap<ConnKey, usize>,
    next: usize,
    info: Vec<FlowInfo>,
    /// [flow][dir]
    state: Vec<[DirState; 2]>,
    other: [DirState; 2],
}

/// The classification of one packet.
#[derive(Clone, Copy, Debug)]
pub struct Classified {
    /// Whether the loss model sees this packet (and the index counts it).
    pub modelled: bool,
    pub view: PacketView,
}

impl Flows {
    pub fn new(map: FlowMap, info: Vec<FlowInfo>) -> Self {
        Flows {
            map,
            ids: HashMap::new(),
            next: 0,
            info,
            state: Vec::new(),
            other: Default::default(),
        }
    }

    fn flow_of(&mut self, m: &Meta, dir: usize) -> usize {
        // Key by (A-side endpoint, B-side endpoint) so both directions
        // of a connection agree.
        let (a, ap, b, bp) = if dir == 0 {
            (m.src, m.sport, m.dst, m.dport)
        } else {
            (m.dst, m.dport, m.src, m.sport)
        };
        match self.map {
            FlowMap::BPorts { base, n } => {
                if (m.proto == PROTO_TCP || m.proto == PROTO_UDP) && bp >= base && bp - base < n {
                    (bp - base) as usize
                } else {
                    NO_FLOW
                }
            }
            FlowMap::FirstSeen => {
                let key = (m.proto, a, ap, b, bp);
                if let Some(&f) = self.ids.get(&key) {
                    return f;
                }
                let f = self.next;
                self.next += 1;
                self.ids.insert(key, f);
                f
            }
        }
    }

    /// Classifies a packet travelling in `dir` (0 = A to B, the data path
    /// `[path]`; 1 = B to A, `[reverse]`).
    ///
    /// Modelled packets: on the data path, those that carry payload
    /// (TCP data, any UDP or other datagram); on the reverse path, every
    /// packet. TCP SYN, RST and bare FIN are never modelled: the simulator
    /// has no connection setup or teardown, and losing a SYN would measure
    /// Linux's 1 s SYN timer, not loss recovery. Unmodelled packets still
    /// queue and are delayed like the rest.
    pub fn classify(&mut self, m: &Meta, dir: usize) -> Classified {
        let flow = self.flow_of(m, dir);
        let (mss, total) = match self.info.get(flow) {
            Some(i) => (i.mss, i.total),
            None => (1448, None),
        };
        if flow != NO_FLOW && self.state.len() <= flow {
            self.state.resize_with(flow + 1, Default::default);
        }
        let st = if flow == NO_FLOW {
            &mut self.other[dir]
        } else {
            &mut self.state[flow][dir]
        };
        let tcp = m.proto == PROTO_TCP;
        let control = tcp
            && (m.flags & (TCP_SYN | TCP_RST) != 0 || (m.flags & TCP_FIN != 0 && m.payload == 0));
        if tcp && m.flags & TCP_SYN != 0 {
            st.base = m.seq.wrapping_add(1);
            st.high = Some(0);
        }
        let modelled = !control && (dir == 1 || !tcp || m.payload > 0);
        let mut view = PacketView {
            flow,
            index: 0,
            seg_no: 0,
            tx_count: 1,
            end: 0,
            flow_total: total,
            mss,
        };
        if modelled {
            st.index += 1;
            view.index = st.index;
        }
        if tcp && m.payload > 0 {
            let high = match st.high {
                Some(h) => h,
                None => {
                    st.base = m.seq;
                    0
                }
            };
            // Unwrap the 32-bit sequence around the highest end seen.
            let rel_high32 = (high as u32).wrapping_add(st.base);
            let delta = m.seq.wrapping_sub(rel_high32) as i32 as i64;
            let start = (high as i64 + delta).max(0) as u64;
            let end = start + m.payload as u64;
            view.seg_no = start / mss.max(1) as u64;
            view.end = end;
            view.tx_count = if end > high || st.high.is_none() {
                1
            } else {
                2
            };
            st.high = Some(high.max(end));
        }
        Classified { modelled, view }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tcp(seq: u32, flags: u8, payload: u32, sport: u16, dport: u16) -> Meta {
        Meta {
            proto: PROTO_TCP,
            src: [10, 77, 0, 1],
            dst: [10, 77, 0, 2],
            sport,
            dport,
            ip_id: 0,
            seq,
            flags,
            payload,
        }
    }

    #[test]
    fn parses_a_tcp_header() {
        let mut b = vec![0u8; 20 + 32 + 100];
        b[0] = 0x45;
        b[2..4].copy_from_slice(&(152u16).to_be_bytes());
        b[4..6].copy_from_slice(&7u16.to_be_bytes());
        b[9] = PROTO_TCP;
        b[12..16].copy_from_slice(&[10, 77, 0, 1]);
        b[16..20].copy_from_slice(&[10, 77, 0, 2]);
        b[20..22].copy_from_slice(&40000u16.to_be_bytes());
        b[22..24].copy_from_slice(&5201u16.to_be_bytes());
        b[24..28].copy_from_slice(&0xdead_beefu32.to_be_bytes());
        b[32] = 8 << 4;
        b[33] = 0x18;
        let m = parse(&b);
        assert_eq!(m.proto, PROTO_TCP);
        assert_eq!(
            (m.sport, m.dport, m.seq, m.payload, m.ip_id),
            (40000, 5201, 0xdead_beef, 100, 7)
        );
        assert_eq!(parse(&b[..10]).proto, 0);
    }

    #[test]
    fn data_is_indexed_and_placed_across_the_sequence_wrap() {
        let mut f = Flows::new(
            FlowMap::FirstSeen,
            vec![FlowInfo {
                mss: 1000,
                total: Some(3000),
            }],
        );
        let isn = u32::MAX - 1500;
        let syn = f.classify(&tcp(isn, TCP_SYN, 0, 1, 2), 0);
        assert!(!syn.modelled);
        let s = isn.wrapping_add(1);
        let p1 = f.classify(&tcp(s, 0x10, 1000, 1, 2), 0);
        let p2 = f.classify(&tcp(s.wrapping_add(1000), 0x10, 1000, 1, 2), 0);
        let ack = f.classify(&tcp(0, 0x10, 0, 1, 2), 0);
        let p3 = f.classify(&tcp(s.wrapping_add(2000), 0x10, 1000, 1, 2), 0);
        let rtx = f.classify(&tcp(s.wrapping_add(1000), 0x10, 1000, 1, 2), 0);
        assert!(!ack.modelled);
        let v: Vec<_> = [p1, p2, p3, rtx]
            .iter()
            .map(|c| (c.view.index, c.view.seg_no, c.view.tx_count, c.view.end))
            .collect();
        assert_eq!(
            v,
            vec![
                (1, 0, 1, 1000),
                (2, 1, 1, 2000),
                (3, 2, 1, 3000),
                (4, 1, 2, 2000)
            ]
        );
        // The reverse direction is the same flow and counts every ACK.
        let back = Meta {
            src: [10, 77, 0, 2],
            dst: [10, 77, 0, 1],
            sport: 2,
            dport: 1,
            ..tcp(5, 0x10, 0, 0, 0)
        };
        let r = f.classify(&back, 1);
        assert!(r.modelled);
        assert_eq!((r.view.flow, r.view.index), (0, 1));
    }

    #[test]
    fn b_ports_name_flows_and_ignore_others() {
        let mut f = Flows::new(FlowMap::BPorts { base: 5201, n: 2 }, vec![]);
        assert_eq!(f.classify(&tcp(1, 0x10, 10, 40000, 5202), 0).view.flow, 1);
        assert_eq!(
            f.classify(&tcp(1, 0x10, 10, 40000, 5301), 0).view.flow,
            NO_FLOW
        );
    }
}
