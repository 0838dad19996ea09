//! Two network namespaces joined only through two TUN devices whose fds
//! this process holds (mahimahi's design: each shell sits in its own
//! namespace and every packet crosses user space,
//! <http://mahimahi.mit.edu/>, Netravali et al., USENIX ATC 2015).
//!
//! Names: namespaces `ll-<pid>-<n>-a` / `-b`, devices `ll<pid>x<n>a` /
//! `b` (IFNAMSIZ allows 15 bytes). The pid in the name lets a later run
//! find namespaces whose owner died (SIGKILL runs no destructor) and
//! remove them: `sweep_stale`.
//!
//! Nothing here addresses anything from the root namespace: the devices
//! are created there (the fd must be opened by this process) and moved
//! out before they get an address or come up.

use std::fs;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::sys;

/// Address of side A (the data sender's side) and side B.
pub const ADDR_A: [u8; 4] = [10, 77, 0, 1];
pub const ADDR_B: [u8; 4] = [10, 77, 0, 2];

/// Ring of the TUN device towards this process (packets the kernel hands
/// us). tun sizes its ptr_ring from txqueuelen; 1 Gbit/s for 20 ms of
/// emulator stall is ~1700 full packets, so this never fills in practice,
/// and tx_dropped says so after every run.
pub const TXQUEUELEN: u32 = 50_000;

static SEQ: AtomicU32 = AtomicU32::new(0);

pub fn addr_str(a: [u8; 4]) -> String {
    format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3])
}

/// Runs `ip ARGS`, returning its stderr as the error.
pub fn ip(args: &[&str]) -> io::Result<()> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| io::Error::new(e.kind(), format!("cannot run `ip` (iproute2): {e}")))?;
    if !out.status.success() {
        return Err(io::Error::other(format!(
            "`ip {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(())
}

fn ip_output(args: &[&str]) -> io::Result<String> {
    let out = Command::new("ip").args(args).output()?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Names of the namespaces that currently exist.
pub fn list_netns() -> Vec<String> {
    match fs::read_dir("/var/run/netns") {
        Ok(d) => d
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// Our namespaces (ll-<pid>-<n>-a|b) for `pid`, or for any pid.
pub fn our_netns(pid: Option<u32>) -> Vec<String> {
    list_netns()
        .into_iter()
        .filter(|n| match parse_name(n) {
            Some(p) => !matches!(pid, Some(q) if q != p),
            None => false,
        })
        .collect()
}

fn parse_name(n: &str) -> Option<u32> {
    let rest = n.strip_prefix("ll-")?;
    let mut parts = rest.split('-');
    let pid = parts.next()?.parse().ok()?;
    parts.next()?.parse::<u32>().ok()?;
    match parts.next()? {
        "a" | "b" => {}
        _ => return None,
    }
    parts.next().is_none().then_some(pid)
}

/// Kills whatever still runs inside `ns` and deletes it.
fn remove_netns(ns: &str) {
    if let Ok(pids) = ip_output(&["netns", "pids", ns]) {
        for p in pids
            .split_whitespace()
            .filter_map(|p| p.parse::<i32>().ok())
        {
            // SAFETY: plain kill of a process inside our namespace.
            unsafe { libc::kill(p, libc::SIGKILL) };
        }
    }
    let _ = ip(&["netns", "del", ns]);
}

/// Removes namespaces left by losslab processes that no longer exist
/// (a SIGKILLed run cannot clean up after itself). Their TUN devices died
/// with the process's fds. Returns the names removed.
pub fn sweep_stale() -> Vec<String> {
    let mut removed = Vec::new();
    for n in list_netns() {
        if let Some(pid) = parse_name(&n) {
            if pid != std::process::id() && !sys::pid_alive(pid as i32) {
                remove_netns(&n);
                removed.push(n);
            }
        }
    }
    removed
}

/// One side of the pair.
pub struct Side {
    pub ns: String,
    pub dev: String,
    pub addr: [u8; 4],
    pub peer: [u8; 4],
    pub tun: OwnedFd,
    /// Kept open so commands and threads can enter the namespace.
    pub ns_file: fs::File,
}

/// The pair; dropping it closes the TUN fds (the devices vanish) and
/// deletes both namespaces, killing anything left inside.
pub struct NetPair {
    pub a: Side,
    pub b: Side,
}

/// Deletes what was created so far if setup fails half-way.
struct Partial(Vec<String>);

impl Drop for Partial {
    fn drop(&mut self) {
        for n in &self.0 {
            remove_netns(n);
        }
    }
}

impl NetPair {
    /// Creates both namespaces and devices. `mtu` of the TUN devices.
    pub fn create(mtu: u32) -> io::Result<Self> {
        sweep_stale();
        let pid = std::process::id();
        let n = SEQ.fetch_add(1, Ordering::Relaxed) % 1000;
        let mut partial = Partial(Vec::new());
        let mut make = |s: char, addr: [u8; 4], peer: [u8; 4]| -> io::Result<Side> {
            let ns = format!("ll-{pid}-{n}-{s}");
            let dev = format!("ll{pid}x{n}{s}");
            ip(&["netns", "add", &ns])?;
            partial.0.push(ns.clone());
            let tun = sys::open_tun(&dev).map_err(|e| {
                io::Error::new(e.kind(), format!("cannot open TUN device {dev}: {e}"))
            })?;
            ip(&["link", "set", "dev", &dev, "netns", &ns])?;
            let ns_file = sys::open_netns(&ns)?;
            // IPv6 off before the device comes up, so no router or
            // multicast-listener solicitations ever cross the path.
            in_netns(&ns_file, || {
                write_sysctl(&format!("net/ipv6/conf/{dev}/disable_ipv6"), "1")
            })??;
            let mtu_s = mtu.to_string();
            let q = TXQUEUELEN.to_string();
            ip(&["-n", &ns, "link", "set", "dev", "lo", "up"])?;
            ip(&[
                "-n",
                &ns,
                "link",
                "set",
                "dev",
                &dev,
                "mtu",
                &mtu_s,
                "txqueuelen",
                &q,
                "up",
            ])?;
            let (a, p) = (addr_str(addr), format!("{}/32", addr_str(peer)));
            ip(&["-n", &ns, "addr", "add", &a, "peer", &p, "dev", &dev])?;
            Ok(Side {
                ns,
                dev,
                addr,
                peer,
                tun,
                ns_file,
            })
        };
        let a = make('a', ADDR_A, ADDR_B)?;
        let b = make('b', ADDR_B, ADDR_A)?;
        partial.0.clear();
        Ok(NetPair { a, b })
    }
}

impl Drop for NetPair {
    fn drop(&mut self) {
        remove_netns(&self.a.ns);
        remove_netns(&self.b.ns);
    }
}

/// Runs `f` on a short-lived thread inside the namespace behind `ns`.
pub fn in_netns<T: Send>(ns: &fs::File, f: impl FnOnce() -> T + Send) -> io::Result<T> {
    let fd = ns.as_raw_fd();
    std::thread::scope(|s| {
        s.spawn(move || -> io::Result<T> {
            sys::enter_netns(fd)?;
            Ok(f())
        })
        .join()
        .expect("namespace thread panicked")
    })
}

/// Writes /proc/sys/KEY (KEY with slashes) as seen by the calling thread's
/// namespace.
pub fn write_sysctl(key: &str, value: &str) -> io::Result<()> {
    let p = format!("/proc/sys/{key}");
    fs::write(&p, value).map_err(|e| io::Error::new(e.kind(), format!("cannot write {p}: {e}")))
}

/// (rx_dropped, tx_dropped) of `dev` from the calling thread's namespace
/// (/proc/thread-self/net/dev: /proc/self would show the main thread's).
pub fn dev_drops(dev: &str) -> io::Result<(u64, u64)> {
    let text = fs::read_to_string("/proc/thread-self/net/dev")?;
    for line in text.lines() {
        let Some((name, rest)) = line.split_once(':') else {
            continue;
        };
        if name.trim() == dev {
            let v: Vec<u64> = rest
                .split_whitespace()
                .filter_map(|x| x.parse().ok())
                .collect();
            // rx: bytes packets errs drop ...(8 fields); tx: bytes packets errs drop
            if v.len() >= 12 {
                return Ok((v[3], v[11]));
            }
        }
    }
    Err(io::Error::other(format!(
        "device {dev} not in /proc/net/dev"
    )))
}

/// /proc/net/netstat and /proc/net/snmp of the calling thread's
/// namespace as (Group.Key, value) pairs, e.g. "TcpExt.TCPTimeouts".
pub fn net_counters() -> io::Result<Vec<(String, u64)>> {
    let mut out = Vec::new();
    for f in ["netstat", "snmp"] {
        let text = fs::read_to_string(format!("/proc/thread-self/net/{f}"))?;
        let lines: Vec<&str> = text.lines().collect();
        for pair in lines.chunks(2) {
            if pair.len() < 2 {
                continue;
            }
            let (Some((g, keys)), Some((_, vals))) =
                (pair[0].split_once(':'), pair[1].split_once(':'))
            else {
                continue;
            };
            for (k, v) in keys.split_whitespace().zip(vals.split_whitespace()) {
                if let Ok(v) = v.parse::<i64>() {
                    out.push((format!("{g}.{k}"), v.max(0) as u64));
                }
            }
        }
    }
    Ok(out)
}

/// Names of network devices in the root namespace that look like ours.
pub fn our_root_devices() -> Vec<String> {
    match fs::read_dir("/sys/class/net") {
        Ok(d) => d
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("ll") && n.contains('x'))
            .collect(),
        Err(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_to_their_pid() {
        assert_eq!(parse_name("ll-1234-7-a"), Some(1234));
        assert_eq!(parse_name("ll-1234-7-b"), Some(1234));
        assert_eq!(parse_name("ll-1234-7-c"), None);
        assert_eq!(parse_name("ll-x-7-a"), None);
        assert_eq!(parse_name("other"), None);
        assert_eq!(parse_name("ll-1-2-a-b"), None);
    }
}
