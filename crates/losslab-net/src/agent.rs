//! A small TCP sender and receiver over std sockets, run on threads that
//! entered the emulator's namespaces (`Emulator::spawn_in`), plus a UDP
//! echo for RTT checks. The sender samples TCP_INFO on a second thread
//! (getsockopt on the same socket is safe from any thread).

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddrV4, TcpListener, TcpStream, UdpSocket};
use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;

use crate::sys::{now_ns, stop_signal};

fn setsockopt_raw(fd: RawFd, level: i32, name: i32, val: &[u8]) -> io::Result<()> {
    // SAFETY: val is valid for val.len() bytes.
    let r = unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            val.as_ptr().cast(),
            val.len() as libc::socklen_t,
        )
    };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

fn setsockopt_int(fd: RawFd, level: i32, name: i32, v: i32) -> io::Result<()> {
    setsockopt_raw(fd, level, name, &v.to_ne_bytes())
}

/// The TCP_INFO fields losslab uses (linux/tcp.h `struct tcp_info`).
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct TcpInfo {
    pub ca_state: u8,
    pub rto_us: u32,
    pub snd_mss: u32,
    /// Segments: sent and not cumulatively acknowledged.
    pub unacked: u32,
    pub sacked: u32,
    pub lost: u32,
    /// Retransmitted segments in flight.
    pub retrans: u32,
    pub rtt_us: u32,
    pub rttvar_us: u32,
    pub ssthresh: u32,
    pub cwnd: u32,
    pub total_retrans: u32,
    pub bytes_acked: u64,
    pub bytes_sent: u64,
    pub bytes_retrans: u64,
    pub min_rtt_us: u32,
    pub segs_out: u32,
    pub data_segs_out: u32,
    pub dsack_dups: u32,
    pub reord_seen: u32,
    /// sk_pacing_rate and the latest delivery-rate sample, bytes per second.
    pub pacing_rate: u64,
    pub delivery_rate: u64,
    /// RTO expirations (Linux 6.7+; None when the kernel's struct is
    /// shorter).
    pub total_rto: Option<u32>,
    pub total_rto_recoveries: Option<u32>,
}

impl TcpInfo {
    /// Linux's `tcp_packets_in_flight`: unacked - (sacked + lost) + retrans.
    pub fn pipe(&self) -> u32 {
        (self.unacked + self.retrans).saturating_sub(self.sacked + self.lost)
    }
}

pub fn tcp_info(fd: RawFd) -> io::Result<TcpInfo> {
    // SAFETY: tcp_info is plain data; the kernel fills at most len bytes.
    let mut ti: libc::tcp_info = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
    // SAFETY: ti and len are valid for the call.
    let r = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&mut ti as *mut libc::tcp_info).cast(),
            &mut len,
        )
    };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    let has_rto = len as usize >= std::mem::offset_of!(libc::tcp_info, tcpi_total_rto_time);
    Ok(TcpInfo {
        ca_state: ti.tcpi_ca_state,
        rto_us: ti.tcpi_rto,
        snd_mss: ti.tcpi_snd_mss,
        unacked: ti.tcpi_unacked,
        sacked: ti.tcpi_sacked,
        lost: ti.tcpi_lost,
        retrans: ti.tcpi_retrans,
        rtt_us: ti.tcpi_rtt,
        rttvar_us: ti.tcpi_rttvar,
        ssthresh: ti.tcpi_snd_ssthresh,
        cwnd: ti.tcpi_snd_cwnd,
        total_retrans: ti.tcpi_total_retrans,
        bytes_acked: ti.tcpi_bytes_acked,
        bytes_sent: ti.tcpi_bytes_sent,
        bytes_retrans: ti.tcpi_bytes_retrans,
        min_rtt_us: ti.tcpi_min_rtt,
        segs_out: ti.tcpi_segs_out,
        data_segs_out: ti.tcpi_data_segs_out,
        dsack_dups: ti.tcpi_dsack_dups,
        reord_seen: ti.tcpi_reord_seen,
        pacing_rate: ti.tcpi_pacing_rate,
        delivery_rate: ti.tcpi_delivery_rate,
        total_rto: has_rto.then_some(ti.tcpi_total_rto as u32),
        total_rto_recoveries: has_rto.then_some(ti.tcpi_total_rto_recoveries as u32),
    })
}

/// What the sender's application does.
#[derive(Clone, Debug, PartialEq)]
pub enum Plan {
    /// Write as fast as the socket takes data until `until_ns`.
    Bulk { until_ns: u64 },
    /// Write this many bytes, then close.
    Bytes(u64),
    /// Write (offset from start in ns, bytes) in order, then close.
    Writes(Vec<(u64, u64)>),
}

#[derive(Clone, Debug)]
pub struct SendOpts {
    pub dst: SocketAddrV4,
    /// TCP_CONGESTION.
    pub cc: String,
    /// TCP_MAXSEG (the payload per segment plus 12 bytes of timestamps).
    pub maxseg: Option<u32>,
    pub plan: Plan,
    /// Do not start before this time (CLOCK_MONOTONIC ns).
    pub start_ns: u64,
    /// Give up at this time whatever happens.
    pub deadline_ns: u64,
    /// TCP_INFO sampling period; 0 = no samples.
    pub sample_ns: u64,
    /// Turn on TCP's internal pacing (a finite SO_MAX_PACING_RATE).
    pub pace: bool,
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct Sample {
    pub t_ns: u64,
    pub info: TcpInfo,
}

#[derive(Clone, Debug, Default)]
pub struct SendResult {
    pub connected_ns: u64,
    pub bytes_written: u64,
    /// When the application stopped writing.
    pub done_ns: u64,
    /// TCP_INFO after the last byte was acknowledged (or at the deadline).
    pub last: TcpInfo,
    pub samples: Vec<Sample>,
    /// Everything written was acknowledged before the deadline.
    pub complete: bool,
}

fn sleep_until(t_ns: u64) {
    let now = now_ns();
    if t_ns > now {
        std::thread::sleep(Duration::from_nanos(t_ns - now));
    }
}

fn connect_retry(
    dst: SocketAddrV4,
    cc: &str,
    maxseg: Option<u32>,
    pace: bool,
    deadline_ns: u64,
) -> io::Result<TcpStream> {
    loop {
        // std connects in one call, so the socket options that must
        // precede connect() are set on a raw socket first.
        // SAFETY: plain socket(2); ownership passes to TcpStream below.
        let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a fresh socket fd we own.
        let s: TcpStream = unsafe { std::os::fd::FromRawFd::from_raw_fd(fd) };
        setsockopt_raw(fd, libc::IPPROTO_TCP, libc::TCP_CONGESTION, cc.as_bytes())
            .map_err(|e| io::Error::new(e.kind(), format!("TCP_CONGESTION {cc:?}: {e}")))?;
        if let Some(m) = maxseg {
            setsockopt_int(fd, libc::IPPROTO_TCP, libc::TCP_MAXSEG, m as i32)?;
        }
        if pace {
            // Any rate but ~0 sets SK_PACING_NEEDED; this one never binds.
            let cap: u64 = u64::MAX - 1;
            setsockopt_raw(
                fd,
                libc::SOL_SOCKET,
                libc::SO_MAX_PACING_RATE,
                &cap.to_ne_bytes(),
            )?;
        }
        let sa = libc::sockaddr_in {
            sin_family: libc::AF_INET as libc::sa_family_t,
            sin_port: dst.port().to_be(),
            sin_addr: libc::in_addr {
                s_addr: u32::from_ne_bytes(dst.ip().octets()),
            },
            sin_zero: [0; 8],
        };
        // SAFETY: sa is a valid sockaddr_in.
        let r = unsafe {
            libc::connect(
                fd,
                (&sa as *const libc::sockaddr_in).cast(),
                std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
            )
        };
        if r == 0 {
            return Ok(s);
        }
        let e = io::Error::last_os_error();
        // The receiver thread may not be listening yet.
        if e.raw_os_error() == Some(libc::ECONNREFUSED) && now_ns() + 20_000_000 < deadline_ns {
            std::thread::sleep(Duration::from_millis(5));
            continue;
        }
        return Err(e);
    }
}

/// Runs one sender to completion (call on a thread inside namespace A).
pub fn send(o: &SendOpts) -> io::Result<SendResult> {
    sleep_until(o.start_ns);
    let mut s = connect_retry(o.dst, &o.cc, o.maxseg, o.pace, o.deadline_ns)?;
    let mut res = SendResult {
        connected_ns: now_ns(),
        ..Default::default()
    };
    let fd = s.as_raw_fd();
    let stop = Arc::new(AtomicBool::new(false));
    let samples = Arc::new(Mutex::new(Vec::new()));
    let sampler = if o.sample_ns > 0 {
        let (stop, samples, every) = (stop.clone(), samples.clone(), o.sample_ns);
        let sfd = s.try_clone()?;
        Some(std::thread::spawn(move || {
            let mut next = now_ns();
            let mut local = Vec::with_capacity(4096);
            while !stop.load(Ordering::Relaxed) {
                if let Ok(info) = tcp_info(sfd.as_raw_fd()) {
                    local.push(Sample {
                        t_ns: now_ns(),
                        info,
                    });
                }
                next += every;
                sleep_until(next);
            }
            samples.lock().expect("samples").extend(local);
        }))
    } else {
        None
    };
    // Writes are bounded by the deadline: a blocked write returns after
    // SO_SNDTIMEO so the loop can notice it.
    let tv = libc::timeval {
        tv_sec: 0,
        tv_usec: 50_000,
    };
    // SAFETY: tv is a valid timeval.
    let tvb = unsafe {
        std::slice::from_raw_parts(
            (&tv as *const libc::timeval).cast::<u8>(),
            std::mem::size_of::<libc::timeval>(),
        )
    };
    setsockopt_raw(fd, libc::SOL_SOCKET, libc::SO_SNDTIMEO, tvb)?;
    let buf = vec![0x5au8; 1 << 20];
    let write = |s: &mut TcpStream, mut n: u64, until: u64| -> io::Result<u64> {
        let mut done = 0;
        while n > 0 && now_ns() < until && stop_signal() == 0 {
            let k = (n as usize).min(buf.len());
            match s.write(&buf[..k]) {
                Ok(w) => {
                    n -= w as u64;
                    done += w as u64;
                }
                Err(e) if retryable(&e) => {}
                // Ctrl-C: the receiver may have seen the signal first and
                // closed (EPIPE, ECONNRESET); the run is ending either way,
                // and what was written counts.
                Err(_) if stop_signal() != 0 => break,
                Err(e) => return Err(e),
            }
        }
        Ok(done)
    };
    let start = res.connected_ns.max(o.start_ns);
    match &o.plan {
        Plan::Bulk { until_ns } => {
            res.bytes_written += write(&mut s, u64::MAX, (*until_ns).min(o.deadline_ns))?;
        }
        Plan::Bytes(n) => res.bytes_written += write(&mut s, *n, o.deadline_ns)?,
        Plan::Writes(w) => {
            for &(at, n) in w {
                sleep_until((start + at).min(o.deadline_ns));
                if stop_signal() != 0 {
                    break;
                }
                res.bytes_written += write(&mut s, n, o.deadline_ns)?;
            }
        }
    }
    res.done_ns = now_ns();
    if !matches!(o.plan, Plan::Bulk { .. }) {
        // Wait until everything is acknowledged, then close.
        loop {
            let i = tcp_info(fd)?;
            if i.unacked == 0 && i.bytes_acked >= res.bytes_written {
                res.complete = true;
                break;
            }
            if now_ns() >= o.deadline_ns || stop_signal() != 0 {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    res.last = tcp_info(fd)?;
    stop.store(true, Ordering::Relaxed);
    if let Some(t) = sampler {
        let _ = t.join();
    }
    res.samples = std::mem::take(&mut *samples.lock().expect("samples"));
    let _ = s.shutdown(Shutdown::Both);
    Ok(res)
}

#[derive(Clone, Debug, Default)]
pub struct RecvResult {
    pub bytes: u64,
    /// Bytes read before `count_until_ns`.
    pub bytes_counted: u64,
    pub first_byte_ns: Option<u64>,
    pub last_byte_ns: Option<u64>,
    /// The sender closed the connection (EOF) before the deadline.
    pub eof: bool,
    /// The receiver's TCP_INFO at the end (segs_out counts its ACKs).
    pub last: TcpInfo,
}

/// A listening receiver; bind it before the sender starts.
pub struct Receiver {
    l: TcpListener,
}

impl Receiver {
    pub fn bind(addr: SocketAddrV4) -> io::Result<Self> {
        let l = TcpListener::bind(addr)?;
        l.set_nonblocking(true)?;
        Ok(Receiver { l })
    }

    /// Accepts one connection and reads until EOF or `deadline_ns`.
    /// `quickack`: re-arm TCP_QUICKACK after every read (Linux clears
    /// it), which approximates an ACK per segment.
    pub fn run(
        self,
        quickack: bool,
        count_until_ns: u64,
        deadline_ns: u64,
    ) -> io::Result<RecvResult> {
        let mut r = RecvResult::default();
        let mut s = loop {
            match self.l.accept() {
                Ok((s, _)) => break s,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if now_ns() >= deadline_ns || stop_signal() != 0 {
                        return Ok(r);
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
                Err(e) => return Err(e),
            }
        };
        s.set_nonblocking(false)?;
        s.set_read_timeout(Some(Duration::from_millis(50)))?;
        let fd = s.as_raw_fd();
        let mut buf = vec![0u8; 1 << 20];
        if quickack {
            setsockopt_int(fd, libc::IPPROTO_TCP, libc::TCP_QUICKACK, 1)?;
        }
        let mut rd = 0u64;
        while now_ns() < deadline_ns && stop_signal() == 0 {
            rd += 1;
            if rd.is_multiple_of(64) {
                if let Ok(i) = tcp_info(fd) {
                    r.last = i;
                }
            }
            match s.read(&mut buf) {
                Ok(0) => {
                    r.eof = true;
                    break;
                }
                Ok(n) => {
                    let t = now_ns();
                    r.first_byte_ns.get_or_insert(t);
                    r.last_byte_ns = Some(t);
                    r.bytes += n as u64;
                    if t <= count_until_ns {
                        r.bytes_counted += n as u64;
                    }
                    if quickack {
                        setsockopt_int(fd, libc::IPPROTO_TCP, libc::TCP_QUICKACK, 1)?;
                    }
                }
                Err(e) if retryable(&e) => {}
                Err(e) if e.kind() == io::ErrorKind::ConnectionReset => break,
                Err(e) => return Err(e),
            }
        }
        if let Ok(i) = tcp_info(fd) {
            r.last = i;
        }
        Ok(r)
    }
}

/// CLOCK_REALTIME in ns, the clock of the kernel's SO_TIMESTAMPNS stamps.
fn realtime_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Receives one datagram with the time the kernel took it off the
/// network (SO_TIMESTAMPNS, CLOCK_REALTIME), so the receiving thread's
/// wake-up latency is not part of what is measured. Returns the length,
/// the sender and the stamp (or the time of the call if the kernel gave
/// none).
fn recv_stamped(fd: RawFd, buf: &mut [u8]) -> io::Result<(usize, SocketAddrV4, u64)> {
    // SAFETY: zeroed sockaddr_in, iovec, msghdr and control buffer are
    // valid; every pointer handed to recvmsg outlives the call.
    unsafe {
        let mut addr: libc::sockaddr_in = std::mem::zeroed();
        let mut iov = libc::iovec {
            iov_base: buf.as_mut_ptr().cast(),
            iov_len: buf.len(),
        };
        let mut control = [0u64; 16];
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_name = (&mut addr as *mut libc::sockaddr_in).cast();
        msg.msg_namelen = std::mem::size_of::<libc::sockaddr_in>() as u32;
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = std::mem::size_of_val(&control) as _;
        let n = libc::recvmsg(fd, &mut msg, 0);
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        let mut stamp = None;
        let mut c = libc::CMSG_FIRSTHDR(&msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_TIMESTAMPNS {
                let ts: libc::timespec = std::ptr::read_unaligned(libc::CMSG_DATA(c).cast());
                stamp = Some(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64);
            }
            c = libc::CMSG_NXTHDR(&msg, c);
        }
        let from = SocketAddrV4::new(
            u32::from_be(addr.sin_addr.s_addr).into(),
            u16::from_be(addr.sin_port),
        );
        Ok((n as usize, from, stamp.unwrap_or_else(realtime_ns)))
    }
}

/// Echoes UDP datagrams back to their sender until `stop`; returns how
/// many. Bytes 4..12 of each reply carry the echo's turnaround (its send
/// time minus the kernel's receive stamp), which `udp_ping` subtracts.
pub fn udp_echo(sock: UdpSocket, stop: Arc<AtomicBool>) -> io::Result<u64> {
    sock.set_read_timeout(Some(Duration::from_millis(20)))?;
    setsockopt_int(sock.as_raw_fd(), libc::SOL_SOCKET, libc::SO_TIMESTAMPNS, 1)?;
    let mut buf = [0u8; 2048];
    let mut n = 0;
    while !stop.load(Ordering::Relaxed) {
        match recv_stamped(sock.as_raw_fd(), &mut buf) {
            Ok((k, from, rx)) => {
                if k >= 12 {
                    let turnaround = realtime_ns().saturating_sub(rx);
                    buf[4..12].copy_from_slice(&turnaround.to_be_bytes());
                }
                sock.send_to(&buf[..k], from)?;
                n += 1;
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Sends `count` datagrams of `size` bytes to an echo, one every
/// `gap_ns`, and returns the round-trip times (ns) of those that came
/// back. Each datagram carries its number, so late replies are matched.
/// The RTT runs from the send call to the kernel's receive stamp, minus
/// the echo's turnaround: the network's round trip, without the two
/// threads' scheduling delays.
pub fn udp_ping(dst: SocketAddrV4, count: u32, size: usize, gap_ns: u64) -> io::Result<Vec<u64>> {
    let s = UdpSocket::bind("0.0.0.0:0")?;
    s.connect(dst)?;
    s.set_read_timeout(Some(Duration::from_millis(1)))?;
    setsockopt_int(s.as_raw_fd(), libc::SOL_SOCKET, libc::SO_TIMESTAMPNS, 1)?;
    let mut sent_at = vec![0u64; count as usize];
    let mut rtts = Vec::new();
    let mut buf = vec![0u8; size.max(12)];
    let mut rb = [0u8; 2048];
    let mut next = now_ns();
    let mut i = 0u32;
    let end_wait = |last: u64| last + 2_000_000_000;
    let mut last_send = now_ns();
    loop {
        let now = now_ns();
        if i < count && now >= next {
            buf[..4].copy_from_slice(&i.to_be_bytes());
            sent_at[i as usize] = realtime_ns();
            s.send(&buf)?;
            last_send = now;
            i += 1;
            next += gap_ns;
        }
        match recv_stamped(s.as_raw_fd(), &mut rb) {
            Ok((k, _, rx)) if k >= 12 => {
                let j = u32::from_be_bytes(rb[..4].try_into().expect("4 bytes")) as usize;
                let turnaround = u64::from_be_bytes(rb[4..12].try_into().expect("8 bytes"));
                if j < sent_at.len() {
                    rtts.push(rx.saturating_sub(sent_at[j]).saturating_sub(turnaround));
                }
            }
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) => {}
            Err(e) => return Err(e),
        }
        if i == count && (rtts.len() == count as usize || now_ns() > end_wait(last_send)) {
            return Ok(rtts);
        }
    }
}

/// Sends `count` datagrams of `size` bytes at one per `gap_ns` (a UDP
/// blast) and returns when done.
pub fn udp_blast(dst: SocketAddrV4, count: u32, size: usize, gap_ns: u64) -> io::Result<()> {
    let s = UdpSocket::bind("0.0.0.0:0")?;
    s.connect(dst)?;
    let mut buf = vec![0u8; size.max(4)];
    let mut next = now_ns();
    for i in 0..count {
        buf[..4].copy_from_slice(&i.to_be_bytes());
        while now_ns() < next {
            std::hint::spin_loop();
        }
        s.send(&buf)?;
        next += gap_ns;
    }
    Ok(())
}

/// Counts datagrams arriving on `sock` until `idle_ns` pass without one
/// (after the first) or `deadline_ns`.
pub fn udp_count(sock: UdpSocket, idle_ns: u64, deadline_ns: u64) -> io::Result<u64> {
    sock.set_read_timeout(Some(Duration::from_millis(10)))?;
    // A burst after an emulator stall must not overflow the default
    // 208 KiB buffer (FORCE: above rmem_max; needs root, as we are).
    setsockopt_int(
        sock.as_raw_fd(),
        libc::SOL_SOCKET,
        libc::SO_RCVBUFFORCE,
        32 << 20,
    )?;
    let mut buf = [0u8; 2048];
    let mut n = 0;
    let mut last = now_ns();
    loop {
        match sock.recv(&mut buf) {
            Ok(_) => {
                n += 1;
                last = now_ns();
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) => {}
            Err(e) => return Err(e),
        }
        let now = now_ns();
        if (n > 0 && now > last + idle_ns) || now > deadline_ns {
            return Ok(n);
        }
    }
}

/// A socket call that timed out, would block or was interrupted: try
/// again (the agents use timeouts to check their deadlines).
fn retryable(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
    )
}
