//! CongestionControl: ssthresh on loss and cwnd growth outside recovery
//! (the analogue of Linux's `tcp_congestion_ops`).

mod cubic;
mod fixed;
mod hystart;
mod newreno;
mod reno;

pub use cubic::Cubic;
pub use fixed::Fixed;
pub use hystart::HyStart;
pub use newreno::NewReno;
pub use reno::Reno;

use crate::time::Time;

use crate::window::Window;

/// Names accepted by `by_name` ("fixed:N" takes a window in segments).
pub const NAMES: &[&str] = &["reno", "newreno", "cubic", "fixed:N"];

/// What a congestion controller may look at on an ACK.
#[derive(Clone, Copy, Debug, Default)]
pub struct CcCtx {
    pub now: Time,
    /// Smoothed and minimum RTT (None before the first sample).
    pub srtt: Option<Time>,
    pub min_rtt: Option<Time>,
    /// Segments sent and not cumulatively acknowledged.
    pub packets_out: u64,
    /// This ACK's RTT sample, if it gave one.
    pub rtt_sample: Option<Time>,
    /// Bytes: the cumulative ACK point after this ACK, and the next byte
    /// to send (rounds of slow start end when snd_una passes a snd_nxt).
    pub snd_una: u64,
    pub snd_nxt: u64,
}

pub trait CongestionControl {
    fn name(&self) -> String;
    /// ssthresh after a congestion signal (fast recovery entry or RTO);
    /// `flight_size` is the segments outstanding at that moment.
    fn ssthresh(&mut self, w: &Window, flight_size: u64) -> u64;
    /// cwnd growth for `acked` newly delivered segments, on ACKs outside
    /// fast recovery while the flow is cwnd-limited.
    fn cong_avoid(&mut self, w: &mut Window, acked: u64, ctx: &CcCtx);
    /// A retransmission timeout happened (after `ssthresh` was asked).
    fn on_timeout(&mut self, _now: Time) {}
    /// cwnd after a retransmission timeout (RFC 5681 section 3.1: the loss
    /// window, one segment).
    fn loss_window(&self) -> u64 {
        1
    }
    /// Pacing rate in bits per second, for algorithms that pace.
    fn pacing_rate(&self) -> Option<u64> {
        None
    }
}

/// Parameters a congestion controller may take.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CcParams {
    /// `cubic` only: Linux's HyStart slow-start exit (`[flow.cubic]
    /// hystart = true`).
    pub hystart: bool,
}

/// Builds a congestion controller by name with its parameters.
pub fn build(name: &str, p: &CcParams) -> Option<Box<dyn CongestionControl>> {
    if name == "cubic" && p.hystart {
        return Some(Box::new(Cubic::new().with_hystart()));
    }
    by_name(name)
}

/// Builds a congestion controller by name.
pub fn by_name(name: &str) -> Option<Box<dyn CongestionControl>> {
    if let Some(n) = name.strip_prefix("fixed:") {
        let n: u64 = n.parse().ok().filter(|&n| n > 0)?;
        return Some(Box::new(Fixed::new(n)));
    }
    match name {
        "newreno" => Some(Box::new(NewReno)),
        "reno" => Some(Box::new(Reno)),
        "cubic" => Some(Box::new(Cubic::new())),
        _ => None,
    }
}

/// RFC 5681 section 3.1 slow start: cwnd grows by the segments newly
/// acknowledged, up to ssthresh; returns the credit left over for
/// congestion avoidance (Linux tcp_slow_start()).
pub fn slow_start(w: &mut Window, acked: u64) -> u64 {
    let cwnd = (w.cwnd + acked).min(w.ssthresh);
    let used = cwnd - w.cwnd;
    w.cwnd = cwnd;
    acked - used.min(acked)
}

/// Additive increase of one segment per `per` segments acknowledged
/// (Linux tcp_cong_avoid_ai(), RFC 5681 equation 3 in segments).
pub fn additive_increase(w: &mut Window, per: u64, acked: u64) {
    let per = per.max(1);
    if w.cwnd_cnt >= per {
        w.cwnd_cnt = 0;
        w.cwnd += 1;
    }
    w.cwnd_cnt += acked;
    if w.cwnd_cnt >= per {
        let delta = w.cwnd_cnt / per;
        w.cwnd_cnt -= delta * per;
        w.cwnd += delta;
    }
}
