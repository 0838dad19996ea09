//! The emulator: one thread moves packets between the two TUN devices,
//! applying the scenario's path to each direction (`path::DirModel`).
//!
//! Timing, after mahimahi's link shells but with absolute deadlines:
//! every packet gets its delivery time from the model when it is read;
//! the thread sleeps in epoll on both TUN fds and a timerfd armed
//! (TFD_TIMER_ABSTIME, CLOCK_MONOTONIC) `spin` before the next deadline,
//! then spins — still reading both devices — until the deadline passes,
//! so wake-up latency is hidden. Each read loop drains a device until
//! EAGAIN. Packet buffers come from a pool allocated at start.
//!
//! One thread rather than one per direction: on a 2-core machine two
//! spinning threads would leave nothing for the TCP endpoints, whose
//! kernel processing runs in our write() calls anyway.
//!
//! Lateness = (time written to the TUN) - (time the model scheduled);
//! a packet's arrival time is the time we read it, so time spent in the
//! kernel's ring before the read is not seen (we read as soon as epoll
//! reports the device, or within one spin iteration).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::path::PathBuf;
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use losslab_core::time::Time;
use losslab_sim::scenario::Scenario;
use losslab_sim::sim::{expand_flows, flow_index};
use serde::Serialize;

use crate::log::{self, Batch, Kind, LogConfig, Rec, SNAPLEN};
use crate::netns::{self, NetPair};
use crate::packet::{self, FlowInfo, FlowMap, Flows};
use crate::path::{DirModel, DropReason, Verdict};
use crate::sys;

/// Largest packet the pool holds; the TUN MTU never exceeds it.
pub const MAX_PACKET: usize = 2048;

pub struct EmuConfig {
    pub scenario: Scenario,
    pub flow_map: FlowMap,
    /// emulator.csv with every enqueue, drop and delivery.
    pub csv: Option<PathBuf>,
    /// a.pcap and b.pcap.
    pub pcap_dir: Option<PathBuf>,
    /// How long before a deadline the thread stops sleeping and spins.
    pub spin_ns: u64,
    /// TUN MTU; None = the largest flow MSS + 52 (IPv4, TCP, timestamps),
    /// so Linux sends the scenario's segment size.
    pub mtu: Option<u32>,
    /// One thread for both directions, or one per direction.
    pub threads: usize,
    /// Run the emulator thread under SCHED_FIFO (needs root; falls back
    /// to normal scheduling if refused).
    pub realtime: bool,
}

impl EmuConfig {
    pub fn new(scenario: Scenario) -> Self {
        EmuConfig {
            scenario,
            flow_map: FlowMap::FirstSeen,
            csv: None,
            pcap_dir: None,
            spin_ns: 100_000,
            mtu: None,
            realtime: true,
            threads: 1,
        }
    }
}

#[derive(Debug)]
pub enum EmuError {
    /// The scenario cannot be emulated as written.
    BadInput(String),
    Runtime(String),
}

impl std::fmt::Display for EmuError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EmuError::BadInput(m) | EmuError::Runtime(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for EmuError {}

fn rt(what: &str) -> impl Fn(io::Error) -> EmuError + '_ {
    move |e| EmuError::Runtime(format!("{what}: {e}"))
}

/// Counters of one direction.
#[derive(Clone, Debug, Default, Serialize)]
pub struct DirStats {
    pub packets_in: u64,
    pub bytes_in: u64,
    pub delivered: u64,
    pub bytes_delivered: u64,
    pub queue_drops: u64,
    pub loss_drops: u64,
    pub duplicates: u64,
    pub reordered: u64,
    pub max_queue_bytes: u64,
    /// Failed writes to the TUN device.
    pub write_errors: u64,
    /// Seconds since start of the first packet read and the last delivery.
    pub first_in_s: Option<f64>,
    pub last_out_s: Option<f64>,
}

/// How well the emulator kept to its model.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Health {
    pub deliveries: u64,
    pub lateness_mean_us: f64,
    pub lateness_p99_us: f64,
    pub lateness_max_us: f64,
    pub late_over_200us: u64,
    /// Packets the kernel dropped on the devices (tx: towards us, the
    /// ring was full; rx: packets we wrote that the stack refused).
    pub a_tx_dropped: u64,
    pub a_rx_dropped: u64,
    pub b_tx_dropped: u64,
    pub b_rx_dropped: u64,
    /// Times the buffer pool ran out and grew (allocation on the hot path).
    pub pool_growths: u64,
    /// The emulator thread ran under SCHED_FIFO.
    pub realtime: bool,
    /// 100 ms windows in which the thread stopped spinning because it had
    /// used 70% of a CPU (deliveries then rely on timer wake-ups alone).
    pub spin_rationed_windows: u64,
    /// Records missing from emulator.csv and the pcaps because the logging
    /// thread fell behind (the emulator never waits for it).
    pub log_records_lost: u64,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct EmuReport {
    pub duration_s: f64,
    pub ab: DirStats,
    pub ba: DirStats,
    pub health: Health,
}

impl EmuReport {
    /// Kernel-side drops on both devices.
    pub fn kernel_drops(&self) -> u64 {
        let h = &self.health;
        h.a_tx_dropped + h.a_rx_dropped + h.b_tx_dropped + h.b_rx_dropped
    }

    /// A few lines for people.
    pub fn render(&self) -> String {
        let h = &self.health;
        let mut s = String::new();
        for (name, d) in [("A->B", &self.ab), ("B->A", &self.ba)] {
            s.push_str(&format!(
                "{name}: {} packets in, {} delivered, {} queue drops, {} loss drops, {} duplicated, {} reordered, max queue {} B\n",
                d.packets_in, d.delivered, d.queue_drops, d.loss_drops, d.duplicates, d.reordered, d.max_queue_bytes
            ));
        }
        s.push_str(&format!(
            "health: {} deliveries, lateness mean {:.1} us, p99 {:.1} us, worst {:.1} us ({} over 200 us); kernel drops: A tx {} rx {}, B tx {} rx {}; pool growths {}; spin rationed in {} windows; log records lost {}{}\n",
            h.deliveries, h.lateness_mean_us, h.lateness_p99_us, h.lateness_max_us, h.late_over_200us,
            h.a_tx_dropped, h.a_rx_dropped, h.b_tx_dropped, h.b_rx_dropped, h.pool_growths, h.spin_rationed_windows, h.log_records_lost,
            if h.realtime { "" } else { "; not under SCHED_FIFO" }
        ));
        s
    }
}

/// Which namespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Host {
    A,
    B,
}

/// A running emulator. `stop` ends it and cleans up; dropping it cleans
/// up too (the namespaces and devices go in every case).
pub struct Emulator {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<io::Result<WorkerOut>>>,
    logger: Option<JoinHandle<io::Result<()>>>,
    /// CPUs for everything but a pinned emulator thread (empty: any).
    others: Vec<usize>,
    t0: u64,
    /// The clock reading of the scenario's time 0, which link traces
    /// count from (`set_time_origin`; at first `t0`).
    origin: Arc<AtomicU64>,
    // Declared last: dropped after the thread has been stopped.
    pair: Option<NetPair>,
}

impl Emulator {
    /// Builds the namespaces and devices and starts moving packets.
    pub fn start(cfg: EmuConfig) -> Result<Self, EmuError> {
        Self::start_with_stop(cfg, Arc::new(AtomicBool::new(false)))
    }

    /// As `start`, with a stop flag shared with a signal handler.
    pub fn start_with_stop(cfg: EmuConfig, stop: Arc<AtomicBool>) -> Result<Self, EmuError> {
        if !sys::is_root() {
            return Err(EmuError::Runtime(
                "the emulator needs root (network namespaces and TUN devices)".into(),
            ));
        }
        let flows = expand_flows(&cfg.scenario.flows);
        let names: Vec<String> = flows.iter().map(|f| f.name.clone()).collect();
        let index_of = |n: &str| flow_index(&flows, n);
        let fwd = DirModel::new(&cfg.scenario, 0, index_of).map_err(EmuError::BadInput)?;
        let rev = DirModel::new(&cfg.scenario, 1, index_of).map_err(EmuError::BadInput)?;
        let info: Vec<FlowInfo> = flows
            .iter()
            .map(|f| FlowInfo {
                mss: f.mss,
                total: f.app.total(),
            })
            .collect();
        let mtu = cfg
            .mtu
            .unwrap_or_else(|| flows.iter().map(|f| f.mss).max().unwrap_or(1448) + 52);
        if !(576..=MAX_PACKET as u32).contains(&mtu) {
            return Err(EmuError::BadInput(format!(
                "MTU {mtu} (flow mss + 52) must lie in 576..={MAX_PACKET}"
            )));
        }
        let pair = NetPair::create(mtu).map_err(rt("cannot set up the namespaces"))?;
        let t0 = sys::now_ns();
        let origin = Arc::new(AtomicU64::new(t0));
        let realtime_t0_ns = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);

        let logging = cfg.csv.is_some() || cfg.pcap_dir.is_some();
        let nthreads = cfg.threads.clamp(1, 2);
        // A single emulator thread gets the last CPU to itself: the logger
        // and the TCP endpoints we start are kept off it, so they are
        // never starved by its spinning and never delay it. With one
        // thread per direction (or one CPU) nothing is pinned.
        let cpus = sys::allowed_cpus();
        let (emu_cpu, others) = if nthreads == 1 && cpus.len() >= 2 {
            let last = *cpus.last().expect("two CPUs");
            (Some(last), cpus[..cpus.len() - 1].to_vec())
        } else {
            (None, Vec::new())
        };
        // Bounded channels allocate their slots once; with LOG_BATCHES
        // batches per worker neither can fill, so nobody ever waits.
        let (tx, rx) = mpsc::sync_channel::<(usize, Batch)>(LOG_BATCHES * nthreads);
        let mut back_txs = Vec::new();
        let mut back_rxs = Vec::new();
        for _ in 0..nthreads {
            let (a, b) = mpsc::sync_channel::<Batch>(LOG_BATCHES);
            back_txs.push(a);
            back_rxs.push(b);
        }
        let logger = if logging {
            let lc = LogConfig {
                csv: cfg.csv.clone(),
                pcap_dir: cfg.pcap_dir.clone(),
                flow_names: names.clone(),
                realtime_t0_ns,
            };
            Some(
                std::thread::Builder::new()
                    .name("ll-emu-log".into())
                    .spawn({
                        let others = others.clone();
                        move || {
                            sys::pin_to(&others);
                            log::run_logger(lc, rx, back_txs)
                        }
                    })
                    .map_err(rt("cannot start the logging thread"))?,
            )
        } else {
            drop(rx);
            None
        };
        // Enough buffers for everything in flight at the rate for the
        // longest time a packet spends on the path, with room for ACKs.
        let sc = &cfg.scenario;
        let hold =
            sc.path.delay + sc.path.reorder.delay + sc.reverse.delay + sc.reverse.reorder.delay;
        let in_flight = (sc.path.rate as u128 * hold as u128 / 8 / 1_000_000_000 / 500) as usize;
        let queue_pkts = match sc.path.queue {
            losslab_sim::scenario::QueueLimit::Packets(n) => n as usize,
            losslab_sim::scenario::QueueLimit::Bytes(b) => (b / 64) as usize,
        };
        let slots = (in_flight + queue_pkts.min(100_000) + 4096).min(400_000);
        let fds = [pair.a.tun.as_raw_fd(), pair.b.tun.as_raw_fd()];
        let flows = Arc::new(Mutex::new(Flows::new(cfg.flow_map.clone(), info)));
        let all = vec![
            Dir::new(0, fwd, fds[0], fds[1]),
            Dir::new(1, rev, fds[1], fds[0]),
        ];
        let groups: Vec<Vec<Dir>> = if nthreads == 1 {
            vec![all]
        } else {
            all.into_iter().map(|d| vec![d]).collect()
        };
        let mut threads = Vec::new();
        for (id, (dirs, back)) in groups.into_iter().zip(back_rxs).enumerate() {
            let mut w = Worker {
                id,
                dirs,
                flows: flows.clone(),
                pool: Pool::new(slots / nthreads),
                t0,
                origin: origin.clone(),
                spin: cfg.spin_ns,
                lat: Lateness::new(),
                log: if logging { Some(tx.clone()) } else { None },
                back,
                batch: touched_batch(),
                spare: if logging {
                    (1..LOG_BATCHES).map(|_| touched_batch()).collect()
                } else {
                    Vec::new()
                },
                log_lost: 0,
                snap: cfg.pcap_dir.is_some(),
                seq: 0,
                realtime: cfg.realtime,
                spin_rationed: 0,
            };
            let stop2 = stop.clone();
            threads.push(
                std::thread::Builder::new()
                    .name(format!("ll-emu-{id}"))
                    .spawn(move || {
                        if let Some(c) = emu_cpu {
                            sys::pin_to(&[c]);
                        }
                        w.run(&stop2)
                    })
                    .map_err(rt("cannot start the emulator thread"))?,
            );
        }
        drop(tx);
        Ok(Emulator {
            stop,
            threads,
            logger,
            others,
            t0,
            origin,
            pair: Some(pair),
        })
    }

    fn side(&self, h: Host) -> &netns::Side {
        let p = self.pair.as_ref().expect("running");
        match h {
            Host::A => &p.a,
            Host::B => &p.b,
        }
    }

    pub fn ns_name(&self, h: Host) -> &str {
        &self.side(h).ns
    }

    pub fn dev_name(&self, h: Host) -> &str {
        &self.side(h).dev
    }

    pub fn addr(&self, h: Host) -> [u8; 4] {
        self.side(h).addr
    }

    /// CLOCK_MONOTONIC (ns) at the start: time 0 of the logs.
    pub fn t0(&self) -> u64 {
        self.t0
    }

    /// Makes `t` (CLOCK_MONOTONIC, ns) the scenario's time 0 for link
    /// traces: `losslab linux` starts its flows some time after the
    /// emulator, and a trace must play from the run's start there as in
    /// the simulator. Before any packet that should see the trace.
    pub fn set_time_origin(&self, t: u64) {
        self.origin.store(t, Ordering::SeqCst);
    }

    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// `sh -c CMD` inside host `h`'s namespace, with `{a}` and `{b}`
    /// replaced by the addresses. The child gets its own process group
    /// (so `kill_tree` reaches its children) and SIGKILL if this thread
    /// dies.
    pub fn command(&self, h: Host, cmd: &str) -> io::Result<Command> {
        let cmd = cmd
            .replace("{a}", &netns::addr_str(self.addr(Host::A)))
            .replace("{b}", &netns::addr_str(self.addr(Host::B)));
        let ns = self.side(h).ns_file.try_clone()?;
        let mut c = Command::new("sh");
        c.arg("-c").arg(cmd);
        use std::os::unix::process::CommandExt;
        // Built before the fork: the child only makes the syscall.
        // SAFETY: cpu_set_t is plain data.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        for &cpu in &self.others {
            // SAFETY: cpu < CPU_SETSIZE (it came from sched_getaffinity).
            unsafe { libc::CPU_SET(cpu, &mut set) };
        }
        let pin = !self.others.is_empty();
        // SAFETY: only async-signal-safe syscalls run between fork and exec.
        unsafe {
            c.pre_exec(move || {
                if pin {
                    libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
                }
                sys::enter_netns(ns.as_raw_fd())?;
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
                libc::setpgid(0, 0);
                Ok(())
            });
        }
        Ok(c)
    }

    /// Runs `f` on a new thread inside host `h`'s namespace (sockets it
    /// opens belong there).
    pub fn spawn_in<T: Send + 'static>(
        &self,
        h: Host,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> io::Result<JoinHandle<io::Result<T>>> {
        let ns = self.side(h).ns_file.try_clone()?;
        let others = self.others.clone();
        std::thread::Builder::new()
            .name(format!("ll-{h:?}"))
            .spawn(move || {
                sys::pin_to(&others);
                sys::enter_netns(ns.as_raw_fd())?;
                drop(ns);
                Ok(f())
            })
    }

    /// Runs `f` inside host `h`'s namespace and waits for it.
    pub fn in_ns<T: Send>(&self, h: Host, f: impl FnOnce() -> T + Send) -> io::Result<T> {
        netns::in_netns(&self.side(h).ns_file, f)
    }

    /// Stops moving packets, reads the kernel's drop counters, removes the
    /// namespaces and devices, and reports.
    pub fn stop(mut self) -> Result<EmuReport, EmuError> {
        self.finish()
    }

    fn finish(&mut self) -> Result<EmuReport, EmuError> {
        self.stop.store(true, Ordering::SeqCst);
        let res: Vec<io::Result<WorkerOut>> = self
            .threads
            .drain(..)
            .map(|t| t.join().expect("emulator thread panicked"))
            .collect();
        let end = sys::now_ns();
        let mut report = EmuReport {
            duration_s: (end - self.t0) as f64 / 1e9,
            ..Default::default()
        };
        if let Some(pair) = &self.pair {
            let a = netns::in_netns(&pair.a.ns_file, || netns::dev_drops(&pair.a.dev));
            let b = netns::in_netns(&pair.b.ns_file, || netns::dev_drops(&pair.b.dev));
            if let (Ok(Ok((arx, atx))), Ok(Ok((brx, btx)))) = (a, b) {
                report.health.a_rx_dropped = arx;
                report.health.a_tx_dropped = atx;
                report.health.b_rx_dropped = brx;
                report.health.b_tx_dropped = btx;
            }
        }
        // Namespaces and devices go now, whatever happened above.
        self.pair = None;
        let logged = self
            .logger
            .take()
            .map(|l| l.join().expect("logger panicked"));
        if res.is_empty() {
            return Err(EmuError::Runtime("emulator already stopped".into()));
        }
        let mut lat = Lateness::new();
        lat.realtime = true;
        for r in res {
            let (stats, l, growths) = r.map_err(|e| EmuError::Runtime(format!("emulator: {e}")))?;
            for (id, st) in stats {
                if id == 0 {
                    report.ab = st;
                } else {
                    report.ba = st;
                }
            }
            lat.merge(&l);
            report.health.pool_growths += growths;
        }
        if let Some(Err(e)) = logged {
            return Err(EmuError::Runtime(format!(
                "cannot write the emulator's log: {e}"
            )));
        }
        lat.fill(&mut report.health);
        Ok(report)
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        if !self.threads.is_empty() {
            let _ = self.finish();
        }
    }
}

/// Sends SIGTERM to the child's process group, then SIGKILL after
/// `grace`, and reaps it.
pub fn kill_tree(child: &mut Child, grace: std::time::Duration) {
    let pg = child.id() as i32;
    if let Ok(Some(_)) = child.try_wait() {
        // SAFETY: the group may still hold grandchildren.
        unsafe { libc::kill(-pg, libc::SIGKILL) };
        return;
    }
    // SAFETY: signalling the group we created in `command`.
    unsafe { libc::kill(-pg, libc::SIGTERM) };
    let until = std::time::Instant::now() + grace;
    while std::time::Instant::now() < until {
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    // SAFETY: as above.
    unsafe { libc::kill(-pg, libc::SIGKILL) };
    let _ = child.wait();
}

// ---- the worker ----

/// An empty batch whose memory is already mapped: filling a fresh
/// allocation would take its page faults in the emulator thread.
fn touched_batch() -> Batch {
    let mut b: Batch = Vec::with_capacity(BATCH);
    let bytes = BATCH * std::mem::size_of::<Rec>();
    let p = b.as_mut_ptr().cast::<u8>();
    for i in (0..bytes).step_by(4096) {
        // SAFETY: i is within the allocation; the length stays 0, so the
        // bytes are never read as records.
        unsafe { std::ptr::write_volatile(p.add(i), 0) };
    }
    b
}

/// (direction, counters) for each direction a worker served, its
/// lateness, its pool growths.
type WorkerOut = (Vec<(usize, DirStats)>, Lateness, u64);

const BATCH: usize = 512;
/// Batches per worker: 128k records (about a second at 1 Gbit/s) of
/// slack for the logging thread. Their memory is reserved, not touched,
/// until used.
const LOG_BATCHES: usize = 256;
const SPIN_WINDOW: u64 = 100_000_000;
const SPIN_BUDGET: u64 = 70_000_000;
const HIST_US: usize = 10_000;

pub struct Lateness {
    n: u64,
    sum_ns: u128,
    max_ns: u64,
    over_200: u64,
    hist: Vec<u32>,
    realtime: bool,
    spin_rationed: u64,
    log_lost: u64,
}

impl Lateness {
    fn new() -> Self {
        Lateness {
            n: 0,
            sum_ns: 0,
            max_ns: 0,
            over_200: 0,
            hist: vec![0; HIST_US + 1],
            realtime: false,
            spin_rationed: 0,
            log_lost: 0,
        }
    }

    #[inline]
    fn add(&mut self, ns: u64) {
        self.n += 1;
        self.sum_ns += ns as u128;
        self.max_ns = self.max_ns.max(ns);
        if ns > 200_000 {
            self.over_200 += 1;
        }
        self.hist[((ns / 1000) as usize).min(HIST_US)] += 1;
    }

    fn merge(&mut self, o: &Lateness) {
        self.n += o.n;
        self.sum_ns += o.sum_ns;
        self.max_ns = self.max_ns.max(o.max_ns);
        self.over_200 += o.over_200;
        for (a, b) in self.hist.iter_mut().zip(&o.hist) {
            *a += b;
        }
        self.realtime &= o.realtime;
        self.spin_rationed += o.spin_rationed;
        self.log_lost += o.log_lost;
    }

    fn fill(&self, h: &mut Health) {
        h.deliveries = self.n;
        h.realtime = self.realtime;
        h.spin_rationed_windows = self.spin_rationed;
        h.log_records_lost = self.log_lost;
        if self.n == 0 {
            return;
        }
        h.lateness_mean_us = self.sum_ns as f64 / self.n as f64 / 1000.0;
        h.lateness_max_us = self.max_ns as f64 / 1000.0;
        h.late_over_200us = self.over_200;
        let target = (self.n as f64 * 0.99).ceil() as u64;
        let mut acc = 0;
        for (us, &c) in self.hist.iter().enumerate() {
            acc += c as u64;
            if acc >= target {
                h.lateness_p99_us = (us + 1) as f64;
                break;
            }
        }
    }
}

struct Pool {
    // Boxed one by one so that growing the pool never moves a buffer.
    #[allow(clippy::vec_box)]
    bufs: Vec<Box<[u8; MAX_PACKET]>>,
    lens: Vec<u16>,
    free: Vec<u32>,
    growths: u64,
}

impl Pool {
    fn new(n: usize) -> Self {
        let mut p = Pool {
            bufs: Vec::with_capacity(n),
            lens: Vec::with_capacity(n),
            free: Vec::with_capacity(n),
            growths: 0,
        };
        p.grow(n);
        p.growths = 0;
        p
    }

    fn grow(&mut self, n: usize) {
        self.growths += 1;
        for _ in 0..n {
            self.free.push(self.bufs.len() as u32);
            let mut b = Box::new([0u8; MAX_PACKET]);
            // Touch every page now: a zeroed allocation is mapped lazily
            // and the first packet into it would take the page fault.
            for i in (0..MAX_PACKET).step_by(1024) {
                // SAFETY: i is in bounds; volatile so it is not elided.
                unsafe { std::ptr::write_volatile(&mut b[i], 1) };
            }
            self.bufs.push(b);
            self.lens.push(0);
        }
    }

    #[inline]
    fn take(&mut self) -> u32 {
        if self.free.is_empty() {
            let n = self.bufs.len().max(1024);
            self.grow(n);
        }
        self.free.pop().expect("pool grown")
    }
}

/// What the log needs at delivery time.
#[derive(Clone, Copy)]
struct Pending {
    at: Time,
    slot: u32,
    dup: bool,
    held: bool,
    flow: usize,
    index: u64,
}

struct Dir {
    /// 0 = A to B, 1 = B to A.
    id: usize,
    model: DirModel,
    in_fd: RawFd,
    out_fd: RawFd,
    /// In delivery order: delay is constant and departures are FIFO.
    line: VecDeque<Pending>,
    /// Reordered packets, by (time, sequence).
    held: BinaryHeap<Reverse<(Time, u64, usize)>>,
    held_items: Vec<Option<Pending>>,
    held_free: Vec<usize>,
    st: DirStats,
}

impl Dir {
    fn new(id: usize, model: DirModel, in_fd: RawFd, out_fd: RawFd) -> Self {
        Dir {
            id,
            model,
            in_fd,
            out_fd,
            line: VecDeque::with_capacity(4096),
            held: BinaryHeap::new(),
            held_items: Vec::new(),
            held_free: Vec::new(),
            st: DirStats::default(),
        }
    }

    fn next_deadline(&self) -> Option<Time> {
        let a = self.line.front().map(|p| p.at);
        let b = self.held.peek().map(|r| r.0 .0);
        match (a, b) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        }
    }
}

struct Worker {
    id: usize,
    dirs: Vec<Dir>,
    /// Shared by the workers: a connection is named once for both
    /// directions.
    flows: Arc<Mutex<Flows>>,
    pool: Pool,
    t0: u64,
    origin: Arc<AtomicU64>,
    spin: u64,
    lat: Lateness,
    log: Option<mpsc::SyncSender<(usize, Batch)>>,
    back: mpsc::Receiver<Batch>,
    batch: Batch,
    /// Empty batches ready to fill (allocated at start: this thread never
    /// allocates for the log).
    spare: Vec<Batch>,
    /// Records dropped because the logger fell LOG_BATCHES batches behind.
    log_lost: u64,
    snap: bool,
    seq: u64,
    realtime: bool,
    spin_rationed: u64,
}

impl Worker {
    fn run(&mut self, stop: &AtomicBool) -> io::Result<WorkerOut> {
        sys::set_min_timer_slack();
        self.realtime = self.realtime && sys::set_realtime(50);
        let ep = sys::Epoll::new()?;
        let timer = sys::TimerFd::new()?;
        for d in &self.dirs {
            ep.add(d.in_fd, d.id as u64)?;
        }
        ep.add(timer.raw(), 2)?;
        let mut armed = 0u64;
        // Spinning is rationed: a SCHED_FIFO thread that uses more than
        // sched_rt_runtime_us (95%) of a second is stopped for the rest of
        // it (tens of ms). Within each 100 ms window, once this thread has
        // used SPIN_BUDGET of CPU it sleeps to the deadline itself.
        let (mut win_start, mut win_cpu, mut spin_ok) = (0u64, 0u64, true);
        while !stop.load(Ordering::Relaxed) {
            let now = sys::now_ns();
            self.deliver_due(now);
            for d in 0..self.dirs.len() {
                self.read_all(d)?;
            }
            let now = sys::now_ns();
            self.deliver_due(now);
            let next = self.dirs.iter().filter_map(|d| d.next_deadline()).min();
            if now >= win_start + SPIN_WINDOW {
                win_start = now;
                win_cpu = sys::thread_cpu_ns();
                spin_ok = true;
            }
            if let Some(nx) = next {
                if spin_ok && nx <= now + self.spin {
                    if sys::thread_cpu_ns() - win_cpu < SPIN_BUDGET {
                        // Spin: the deadline is too close to trust a wake-up.
                        std::hint::spin_loop();
                        continue;
                    }
                    spin_ok = false;
                    self.spin_rationed += 1;
                }
                let wake = if spin_ok { nx - self.spin } else { nx };
                if wake != armed {
                    timer.arm_abs(wake)?;
                    armed = wake;
                }
            }
            self.flush_log();
            ep.wait(50)?;
            timer.drain();
        }
        self.flush_log();
        self.log = None;
        for d in &mut self.dirs {
            d.st.max_queue_bytes = d.model.max_queue_bytes;
        }
        let mut lat = std::mem::replace(&mut self.lat, Lateness::new());
        lat.realtime = self.realtime;
        lat.spin_rationed = self.spin_rationed;
        lat.log_lost = self.log_lost;
        let stats = self
            .dirs
            .iter_mut()
            .map(|d| (d.id, std::mem::take(&mut d.st)))
            .collect();
        Ok((stats, lat, self.pool.growths))
    }

    fn flush_log(&mut self) {
        if self.batch.is_empty() {
            return;
        }
        let Some(tx) = &self.log else {
            self.batch.clear();
            return;
        };
        while let Ok(b) = self.back.try_recv() {
            self.spare.push(b);
        }
        let Some(fresh) = self.spare.pop() else {
            self.log_lost += self.batch.len() as u64;
            self.batch.clear();
            return;
        };
        let full = std::mem::replace(&mut self.batch, fresh);
        if let Err(e) = tx.try_send((self.id, full)) {
            let (_, mut b) = match e {
                mpsc::TrySendError::Full(x) | mpsc::TrySendError::Disconnected(x) => x,
            };
            self.log_lost += b.len() as u64;
            b.clear();
            self.spare.push(b);
        }
    }

    #[inline]
    fn push_log(&mut self, r: Rec) {
        if self.log.is_some() {
            self.batch.push(r);
            if self.batch.len() >= BATCH {
                self.flush_log();
            }
        }
    }

    fn rec(&self, t: u64, dir: usize, kind: Kind, slot: u32, flow: usize, index: u64) -> Rec {
        let len = self.pool.lens[slot as usize] as usize;
        let buf = &self.pool.bufs[slot as usize][..len];
        let m = packet::parse(buf);
        let mut r = Rec {
            t: t.saturating_sub(self.t0),
            sched: 0,
            dir: self.dirs[dir].id as u8,
            kind,
            held: false,
            flow,
            index,
            bytes: len as u32,
            proto: m.proto,
            ip_id: m.ip_id,
            seq: m.seq,
            payload: m.payload,
            queue_bytes: 0,
            snap_len: 0,
            snap: [0; SNAPLEN],
        };
        if self.snap {
            let n = len.min(SNAPLEN);
            r.snap[..n].copy_from_slice(&buf[..n]);
            r.snap_len = n as u16;
        }
        r
    }

    fn read_all(&mut self, d: usize) -> io::Result<()> {
        loop {
            let slot = self.pool.take();
            let fd = self.dirs[d].in_fd;
            let n = match sys::read_nb(fd, &mut self.pool.bufs[slot as usize][..]) {
                Ok(Some(n)) => n,
                Ok(None) => {
                    self.pool.free.push(slot);
                    return Ok(());
                }
                Err(e) => {
                    self.pool.free.push(slot);
                    return Err(e);
                }
            };
            let now = sys::now_ns();
            self.pool.lens[slot as usize] = n as u16;
            self.on_packet(d, slot, n, now);
        }
    }

    fn on_packet(&mut self, d: usize, slot: u32, n: usize, now: u64) {
        let m = packet::parse(&self.pool.bufs[slot as usize][..n]);
        let c = self
            .flows
            .lock()
            .expect("flows")
            .classify(&m, self.dirs[d].id);
        let st = &mut self.dirs[d].st;
        st.packets_in += 1;
        st.bytes_in += n as u64;
        if st.first_in_s.is_none() {
            st.first_in_s = Some((now - self.t0) as f64 / 1e9);
        }
        let mut r = self.rec(now, d, Kind::Enqueue, slot, c.view.flow, c.view.index);
        let origin = self.origin.load(Ordering::Relaxed);
        self.dirs[d].model.set_origin(origin);
        let verdict = self.dirs[d].model.offer(now, n as u32, c.modelled, &c.view);
        r.queue_bytes = self.dirs[d].model.queued_bytes();
        self.push_log(r);
        match verdict {
            Verdict::Drop { reason, at } => {
                let kind = match reason {
                    DropReason::Queue => {
                        self.dirs[d].st.queue_drops += 1;
                        Kind::QueueDrop
                    }
                    DropReason::Loss => {
                        self.dirs[d].st.loss_drops += 1;
                        Kind::LossDrop
                    }
                };
                let mut r = self.rec(at, d, kind, slot, c.view.flow, c.view.index);
                r.snap_len = 0;
                self.push_log(r);
                self.pool.free.push(slot);
            }
            Verdict::Deliver { at, dup, held } => {
                let p = Pending {
                    at,
                    slot,
                    dup: false,
                    held,
                    flow: c.view.flow,
                    index: c.view.index,
                };
                self.schedule(d, p);
                if let Some(at2) = dup {
                    let s2 = self.pool.take();
                    let (src, dst) = if s2 > slot {
                        let (lo, hi) = self.pool.bufs.split_at_mut(s2 as usize);
                        (&lo[slot as usize], &mut hi[0])
                    } else {
                        let (lo, hi) = self.pool.bufs.split_at_mut(slot as usize);
                        (&hi[0], &mut lo[s2 as usize])
                    };
                    dst[..n].copy_from_slice(&src[..n]);
                    self.pool.lens[s2 as usize] = n as u16;
                    self.dirs[d].st.duplicates += 1;
                    self.schedule(
                        d,
                        Pending {
                            at: at2,
                            slot: s2,
                            dup: true,
                            held: false,
                            ..p
                        },
                    );
                }
            }
        }
    }

    fn schedule(&mut self, d: usize, p: Pending) {
        let dir = &mut self.dirs[d];
        if p.held {
            dir.st.reordered += 1;
        }
        // A duplicate or held packet can fall behind the line's tail when
        // delays differ; only exactly ordered packets join the line.
        if !p.held && !matches!(dir.line.back(), Some(b) if b.at > p.at) {
            dir.line.push_back(p);
            return;
        }
        self.seq += 1;
        let i = match dir.held_free.pop() {
            Some(i) => {
                dir.held_items[i] = Some(p);
                i
            }
            None => {
                dir.held_items.push(Some(p));
                dir.held_items.len() - 1
            }
        };
        dir.held.push(Reverse((p.at, self.seq, i)));
    }

    fn deliver_due(&mut self, now: u64) {
        for d in 0..self.dirs.len() {
            loop {
                let dir = &mut self.dirs[d];
                let from_line = dir.line.front().is_some_and(|p| p.at <= now);
                let p = if from_line {
                    dir.line.pop_front().expect("front")
                } else if dir.held.peek().is_some_and(|r| r.0 .0 <= now) {
                    let Reverse((_, _, i)) = dir.held.pop().expect("peeked");
                    dir.held_free.push(i);
                    dir.held_items[i].take().expect("held item")
                } else {
                    break;
                };
                let len = self.pool.lens[p.slot as usize] as usize;
                // Delivery is the hand-over to the kernel: what the write
                // then costs is the receiving stack's work (in our
                // thread, as a NIC's interrupt would be in softirq).
                let t = sys::now_ns();
                let res = sys::write_pkt(dir.out_fd, &self.pool.bufs[p.slot as usize][..len]);
                let dir = &mut self.dirs[d];
                match res {
                    Ok(()) => {
                        dir.st.delivered += 1;
                        dir.st.bytes_delivered += len as u64;
                        dir.st.last_out_s = Some((t - self.t0) as f64 / 1e9);
                    }
                    Err(_) => dir.st.write_errors += 1,
                }
                self.lat.add(t.saturating_sub(p.at));
                if self.log.is_some() {
                    let kind = if p.dup {
                        Kind::DeliverDup
                    } else {
                        Kind::Deliver
                    };
                    let mut r = self.rec(t, d, kind, p.slot, p.flow, p.index);
                    r.sched = p.at.saturating_sub(self.t0);
                    r.held = p.held;
                    self.push_log(r);
                }
                self.pool.free.push(p.slot);
            }
        }
    }
}
