//! A fixed congestion window: never grows, never shrinks. Useful to study
//! loss detection and recovery without a congestion response mixed in.

use super::{CcCtx, CongestionControl};
use crate::window::Window;

#[derive(Clone, Debug)]
pub struct Fixed {
    segments: u64,
}

impl Fixed {
    pub fn new(segments: u64) -> Self {
        Fixed {
            segments: segments.max(1),
        }
    }
}

impl CongestionControl for Fixed {
    /// Grows only in cong_avoid (no `on_ack`).
    fn observes_every_ack(&self) -> bool {
        false
    }

    fn name(&self) -> String {
        format!("fixed:{}", self.segments)
    }
    fn ssthresh(&mut self, _w: &Window, _flight_size: u64) -> u64 {
        self.segments
    }
    fn cong_avoid(&mut self, w: &mut Window, _acked: u64, _ctx: &CcCtx) {
        w.cwnd = self.segments;
    }
    fn loss_window(&self) -> u64 {
        self.segments
    }
}
