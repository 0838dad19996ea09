//! The emulator's records: every enqueue, drop and delivery, written by a
//! thread of its own so that file writes never delay a delivery. The
//! emulator thread hands over batches of fixed-size records and gets the
//! emptied vectors back, so the hot path does not allocate.
//!
//! emulator.csv columns (docs/TRACES.md, "emulator.csv"):
//! `time_s,dir,event,detail,flow,index,bytes,proto,ip_id,tcp_seq,payload,queue_bytes,scheduled_s,lateness_us`.
//!
//! pcap: `a.pcap` is what a capture on A's device shows (packets A sent,
//! and packets delivered to A), `b.pcap` likewise for B. Classic pcap,
//! nanosecond timestamps (magic 0xa1b23c4d), LINKTYPE_RAW (101): the frames
//! are the IPv4 packets exactly as the TUN devices carried them
//! (<https://www.tcpdump.org/linktypes.html>).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError};

use crate::packet::NO_FLOW;

/// Bytes of each packet kept for the pcap (headers with options fit).
pub const SNAPLEN: usize = 128;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Enqueue,
    QueueDrop,
    LossDrop,
    Deliver,
    /// The second copy of a duplicated packet.
    DeliverDup,
}

#[derive(Clone, Copy)]
pub struct Rec {
    /// Nanoseconds since the emulator started.
    pub t: u64,
    /// Deliveries: the time the model scheduled.
    pub sched: u64,
    pub dir: u8,
    pub kind: Kind,
    pub held: bool,
    pub flow: usize,
    pub index: u64,
    pub bytes: u32,
    pub proto: u8,
    pub ip_id: u16,
    pub seq: u32,
    pub payload: u32,
    pub queue_bytes: u64,
    pub snap_len: u16,
    pub snap: [u8; SNAPLEN],
}

pub type Batch = Vec<Rec>;

pub struct LogConfig {
    pub csv: Option<PathBuf>,
    pub pcap_dir: Option<PathBuf>,
    /// Names of flows by index (for the CSV).
    pub flow_names: Vec<String>,
    /// CLOCK_REALTIME at the emulator's start, for pcap timestamps.
    pub realtime_t0_ns: u64,
}

struct Pcap {
    out: BufWriter<File>,
}

impl Pcap {
    fn create(p: &Path) -> io::Result<Self> {
        let mut out = BufWriter::with_capacity(1 << 20, File::create(p)?);
        out.write_all(&0xa1b2_3c4du32.to_le_bytes())?;
        out.write_all(&2u16.to_le_bytes())?;
        out.write_all(&4u16.to_le_bytes())?;
        out.write_all(&0i32.to_le_bytes())?;
        out.write_all(&0u32.to_le_bytes())?;
        out.write_all(&(SNAPLEN as u32).to_le_bytes())?;
        out.write_all(&101u32.to_le_bytes())?;
        Ok(Pcap { out })
    }

    fn record(&mut self, t_ns: u64, r: &Rec) -> io::Result<()> {
        let o = &mut self.out;
        o.write_all(&((t_ns / 1_000_000_000) as u32).to_le_bytes())?;
        o.write_all(&((t_ns % 1_000_000_000) as u32).to_le_bytes())?;
        o.write_all(&(r.snap_len as u32).to_le_bytes())?;
        o.write_all(&r.bytes.to_le_bytes())?;
        o.write_all(&r.snap[..r.snap_len as usize])
    }
}

/// The logging thread's body: runs until the sender side hangs up.
/// `rx` carries (worker, batch); emptied batches go back to `back[worker]`.
///
/// The logger polls (`try_recv` and a 1 ms sleep) instead of blocking: a
/// blocked receiver registers as a waiter, and a sender that finds a
/// waiter takes the channel's internal mutex to wake it. The senders are
/// SCHED_FIFO emulator threads; if this ordinary thread were preempted
/// while holding that mutex, a delivery would wait for a compiler's time
/// slice (we measured 5-25 ms stalls this way, and the same holds for a
/// malloc arena lock, hence no allocation across the two).
pub fn run_logger(
    cfg: LogConfig,
    rx: Receiver<(usize, Batch)>,
    back: Vec<SyncSender<Batch>>,
) -> io::Result<()> {
    let mut csv = match &cfg.csv {
        Some(p) => {
            let mut w = BufWriter::with_capacity(1 << 20, File::create(p)?);
            writeln!(
                w,
                "time_s,dir,event,detail,flow,index,bytes,proto,ip_id,tcp_seq,payload,queue_bytes,scheduled_s,lateness_us"
            )?;
            Some(w)
        }
        None => None,
    };
    let mut pcaps = match &cfg.pcap_dir {
        Some(d) => {
            std::fs::create_dir_all(d)?;
            Some([
                Pcap::create(&d.join("a.pcap"))?,
                Pcap::create(&d.join("b.pcap"))?,
            ])
        }
        None => None,
    };
    let mut err: Option<io::Error> = None;
    loop {
        let (worker, mut batch) = match rx.try_recv() {
            Ok(x) => x,
            Err(TryRecvError::Empty) => {
                std::thread::sleep(std::time::Duration::from_millis(1));
                continue;
            }
            Err(TryRecvError::Disconnected) => break,
        };
        if err.is_none() {
            if let Err(e) = write_batch(&cfg, &batch, csv.as_mut(), pcaps.as_mut()) {
                err = Some(e);
            }
        }
        batch.clear();
        // Never full: each worker owns fewer batches than its channel holds.
        let _ = back[worker].try_send(batch);
    }
    if let Some(e) = err {
        return Err(e);
    }
    if let Some(w) = csv.as_mut() {
        w.flush()?;
    }
    if let Some(p) = pcaps.as_mut() {
        p[0].out.flush()?;
        p[1].out.flush()?;
    }
    Ok(())
}

fn write_batch(
    cfg: &LogConfig,
    batch: &[Rec],
    mut csv: Option<&mut BufWriter<File>>,
    mut pcaps: Option<&mut [Pcap; 2]>,
) -> io::Result<()> {
    for r in batch {
        if let Some(w) = csv.as_deref_mut() {
            let dir = if r.dir == 0 { "ab" } else { "ba" };
            let (event, detail) = match r.kind {
                Kind::Enqueue => ("enqueue", ""),
                Kind::QueueDrop => ("drop", "queue"),
                Kind::LossDrop => ("drop", "loss"),
                Kind::Deliver if r.held => ("deliver", "reordered"),
                Kind::Deliver => ("deliver", ""),
                Kind::DeliverDup => ("deliver", "duplicate"),
            };
            let flow = if r.flow == NO_FLOW {
                ""
            } else {
                cfg.flow_names.get(r.flow).map_or("?", |s| s.as_str())
            };
            write!(
                w,
                "{}.{:09},{dir},{event},{detail},{flow},{},{},{},{},{},{},",
                r.t / 1_000_000_000,
                r.t % 1_000_000_000,
                r.index,
                r.bytes,
                r.proto,
                r.ip_id,
                r.seq,
                r.payload,
            )?;
            if r.kind == Kind::Enqueue && r.dir == 0 {
                write!(w, "{}", r.queue_bytes)?;
            }
            if matches!(r.kind, Kind::Deliver | Kind::DeliverDup) {
                writeln!(
                    w,
                    ",{}.{:09},{:.3}",
                    r.sched / 1_000_000_000,
                    r.sched % 1_000_000_000,
                    (r.t as f64 - r.sched as f64) / 1000.0
                )?;
            } else {
                writeln!(w, ",,")?;
            }
        }
        if let Some(p) = pcaps.as_deref_mut() {
            // Sent by the source side at enqueue; seen by the other side
            // at delivery. Drops appear only in the sender's capture.
            let side = match r.kind {
                Kind::Enqueue => Some(r.dir as usize),
                Kind::Deliver | Kind::DeliverDup => Some(1 - r.dir as usize),
                _ => None,
            };
            if let Some(s) = side {
                p[s].record(cfg.realtime_t0_ns + r.t, r)?;
            }
        }
    }
    Ok(())
}

/// Reads a pcap written by this module (or any classic little-endian
/// LINKTYPE_RAW pcap) back as (timestamp ns, original length, bytes).
pub fn read_pcap(p: &Path) -> io::Result<Vec<(u64, u32, Vec<u8>)>> {
    let b = std::fs::read(p)?;
    let bad = || {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: not a pcap", p.display()),
        )
    };
    if b.len() < 24 {
        return Err(bad());
    }
    let magic = u32::from_le_bytes(b[0..4].try_into().unwrap());
    let nano = match magic {
        0xa1b2_3c4d => true,
        0xa1b2_c3d4 => false,
        _ => return Err(bad()),
    };
    let mut out = Vec::new();
    let mut i = 24;
    while i + 16 <= b.len() {
        let rd = |o: usize| u32::from_le_bytes(b[i + o..i + o + 4].try_into().unwrap());
        let (sec, frac, incl, orig) = (rd(0), rd(4), rd(8) as usize, rd(12));
        let t = sec as u64 * 1_000_000_000
            + if nano {
                frac as u64
            } else {
                frac as u64 * 1000
            };
        if i + 16 + incl > b.len() {
            return Err(bad());
        }
        out.push((t, orig, b[i + 16..i + 16 + incl].to_vec()));
        i += 16 + incl;
    }
    Ok(out)
}
