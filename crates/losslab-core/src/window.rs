//! The congestion window state shared by CongestionControl and RecoveryOps.
//! Counted in segments, as Linux does (RFC 6937 section 3 allows either).

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Congestion window, segments.
    pub cwnd: u64,
    /// Slow-start threshold, segments.
    pub ssthresh: u64,
    /// Congestion-avoidance credit: segments acknowledged since cwnd last
    /// grew (Linux snd_cwnd_cnt).
    pub cwnd_cnt: u64,
}

impl Window {
    pub fn new(init_cwnd: u64) -> Self {
        Window {
            cwnd: init_cwnd.max(1),
            ssthresh: u64::MAX / 4,
            cwnd_cnt: 0,
        }
    }
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}
