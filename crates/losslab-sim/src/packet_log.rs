//! The per-packet trace `packets.csv`: one row per packet event on the
//! path (docs/SCENARIO.md, "Per-packet trace"). A documented contract:
//! columns may be added at the end, never renamed, removed or re-typed.
//!
//! Columns: `time_s,flow,dir,event,seq,len,tx,ack,win,sack,dsack`.
//! Data rows fill `seq,len,tx`; ACK rows fill `ack,win,sack,dsack`; the
//! other side's columns are empty so that a reader can split on commas
//! without knowing the row kind.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use losslab_core::time::Time;

use crate::trace::{Body, Packet, PacketFate, Tracer};

pub const HEADER: &str = "time_s,flow,dir,event,seq,len,tx,ack,win,sack,dsack";

pub struct PacketLog {
    out: BufWriter<File>,
    names: Vec<String>,
    /// The first write error; later rows are skipped and `finish` returns it,
    /// because `Tracer::packet` cannot fail.
    error: Option<io::Error>,
    line: String,
}

impl PacketLog {
    pub fn create(path: &Path, flow_names: Vec<String>) -> io::Result<Self> {
        let mut out = BufWriter::with_capacity(1 << 16, File::create(path)?);
        writeln!(out, "{HEADER}")?;
        Ok(PacketLog {
            out,
            names: flow_names,
            error: None,
            line: String::with_capacity(128),
        })
    }
}

pub fn fate_name(f: PacketFate) -> &'static str {
    match f {
        PacketFate::Sent => "sent",
        PacketFate::QueueDrop => "queue_drop",
        PacketFate::LossDrop => "loss_drop",
        PacketFate::Delivered => "delivered",
    }
}

/// Formats a time as seconds with exactly 9 decimals, from the integer
/// nanosecond clock so that no float rounding can reorder two events.
fn push_time(line: &mut String, at: Time) {
    let _ = write!(line, "{}.{:09}", at / 1_000_000_000, at % 1_000_000_000);
}

/// Formats one row (without the newline); public so that tests and other
/// writers produce byte-identical rows.
pub fn format_row(line: &mut String, at: Time, flow: &str, pkt: &Packet, fate: PacketFate) {
    push_time(line, at);
    line.push(',');
    line.push_str(flow);
    match pkt.body {
        Body::Data(s) => {
            let _ = write!(
                line,
                ",data,{},{},{},{},,,,",
                fate_name(fate),
                s.seq,
                s.len,
                s.tx_count
            );
        }
        Body::Ack(a) => {
            let _ = write!(line, ",ack,{},,,,{},{},", fate_name(fate), a.ack, a.window);
            for (i, b) in a.sack.as_slice().iter().enumerate() {
                if i > 0 {
                    line.push(' ');
                }
                let _ = write!(line, "{}-{}", b.start, b.end);
            }
            line.push_str(if a.dsack { ",1" } else { ",0" });
        }
    }
}

impl Tracer for PacketLog {
    fn packet(&mut self, at: Time, pkt: &Packet, fate: PacketFate) {
        if self.error.is_some() {
            return;
        }
        self.line.clear();
        let flow = self
            .names
            .get(pkt.flow as usize)
            .map(String::as_str)
            .unwrap_or("?");
        format_row(&mut self.line, at, flow, pkt, fate);
        self.line.push('\n');
        if let Err(e) = self.out.write_all(self.line.as_bytes()) {
            self.error = Some(e);
        }
    }

    fn finish(&mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use losslab_core::wire::{Range, SackBlocks};
    use losslab_core::{Ack, Segment};

    fn row(at: Time, pkt: &Packet, fate: PacketFate) -> String {
        let mut s = String::new();
        format_row(&mut s, at, "a", pkt, fate);
        s
    }

    #[test]
    fn rows_have_eleven_columns_and_the_documented_layout() {
        let seg = Segment {
            seq: 2896,
            len: 1448,
            ts_val: 0,
            ts_ecr: 0,
            seg_no: 2,
            tx_count: 2,
            tx_order: 9,
            probe: false,
            syn: false,
            replica: false,
        };
        let d = Packet {
            flow: 0,
            index: 1,
            wire_bytes: 1500,
            body: Body::Data(seg),
        };
        let r = row(1_500_000_001, &d, PacketFate::LossDrop);
        assert_eq!(r, "1.500000001,a,data,loss_drop,2896,1448,2,,,,");
        assert_eq!(r.split(',').count(), 11);

        let mut sack = SackBlocks::new();
        sack.push(Range::new(5792, 7240));
        sack.push(Range::new(10136, 11584));
        let a = Packet {
            flow: 0,
            index: 1,
            wire_bytes: 72,
            body: Body::Ack(Ack {
                ack: 2896,
                window: 65535,
                sack,
                dsack: false,
                ts_val: 0,
                ts_ecr: 0,
                syn: false,
                echo_order: 0,
            }),
        };
        let r = row(40_000_000, &a, PacketFate::Delivered);
        assert_eq!(
            r,
            "0.040000000,a,ack,delivered,,,,2896,65535,5792-7240 10136-11584,0"
        );
        assert_eq!(r.split(',').count(), 11);
    }
}
