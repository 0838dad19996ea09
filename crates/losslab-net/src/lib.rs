//! losslab-net: real paths.
//!
//! - `emu`: a path emulator in the style of mahimahi
//!   (<http://mahimahi.mit.edu/>): two network namespaces joined only
//!   through two TUN devices held by this process, which applies a
//!   scenario's `[path]` and `[reverse]` to every packet with the
//!   simulator's own loss-model code (`losslab_sim::loss`).
//! - `agent`: a small TCP sender and receiver over std sockets, with
//!   TCP_INFO sampling, for running scenarios through real Linux TCP.
//! - `linux`: runs a scenario's flows through the emulator with the agent
//!   and reports in the simulator's results shape.
//! - `fidelity`: what `losslab linux --compare` reports beside the
//!   results: the settings the two sides do not share, and where their
//!   data transmissions part.
//!
//! Linux only; the emulator needs root and /dev/net/tun.

pub mod agent;
pub mod emu;
pub mod fidelity;
pub mod linux;
pub mod log;
pub mod netns;
pub mod packet;
pub mod path;
pub mod sys;

pub use emu::{EmuConfig, EmuError, EmuReport, Emulator, Host};

/// Why the emulator cannot run here, or None if it can (root and
/// /dev/net/tun). Tests skip loudly on Some.
pub fn unavailable() -> Option<String> {
    if !sys::is_root() {
        return Some("not root".into());
    }
    // Opening the node proves the driver is there (a node without the
    // tun module fails with ENODEV).
    if let Err(e) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/net/tun")
    {
        return Some(format!("cannot open /dev/net/tun: {e}"));
    }
    if std::process::Command::new("ip").arg("-V").output().is_err() {
        return Some("no `ip` (iproute2)".into());
    }
    None
}
