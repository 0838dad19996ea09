//! Redundancy: extra copies of a retransmission, one of the extension
//! points of docs/ARCHITECTURE.md ("what is (re)sent beyond the window
//! rules"). The policy only says how many copies and when; the sender
//! sends them (`Sender::next_replica`) at the pacing rate and outside
//! cwnd, and the scoreboard matches the DSACKs they cause
//! (`Scoreboard::on_replica`), so copies never count as spurious
//! retransmissions.

/// How many extra copies follow a retransmission, and when.
pub trait Redundancy {
    fn name(&self) -> &'static str;
    /// The `i`-th retransmission of one segment (1 for the first) has just
    /// been sent: push one delay per extra copy, in sending cycles (one
    /// cycle is the time to send one segment at the pacing rate).
    fn copies(&mut self, i: u32, delays: &mut Vec<u32>);
}

/// Every retransmission is sent once: standard TCP.
pub struct NoRedundancy;

impl Redundancy for NoRedundancy {
    fn name(&self) -> &'static str {
        "none"
    }
    fn copies(&mut self, _i: u32, _delays: &mut Vec<u32>) {}
}
