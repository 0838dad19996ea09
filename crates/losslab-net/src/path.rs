//! One direction of the emulated path, as pure arithmetic on times: the
//! emulator thread asks what happens to a packet that arrived at `now`
//! and gets back when (or whether) it leaves. No clock is read here, so
//! the model is unit-tested without root, and it follows the simulator's
//! `Net` (crates/losslab-sim/src/sim.rs) rule for rule:
//!
//! - data path: a drop-tail queue (the packet in service does not count
//!   against the limit), serialisation at the rate, then the loss model
//!   on the packet as it leaves the link (a lossy wire), then the
//!   propagation delay, reordering (held back by `reorder.delay` with
//!   probability `reorder.p`) and duplication;
//! - reverse path: no rate limit; the loss model acts as the packet enters,
//!   then delay, reordering and duplication.
//!
//! The random draws use the same named streams as the simulator
//! ("path.loss", "path.reorder", "path.duplicate", "reverse.…") under the
//! scenario's seed, in the same order, so a given sequence of modelled
//! packets meets the same fate in both.

use std::collections::VecDeque;

use losslab_core::time::{Time, SEC};
use losslab_sim::loss::{LossRt, PacketView};
use losslab_sim::rng::Stream;
use losslab_sim::scenario::{QueueLimit, Scenario};

pub struct DirModel {
    /// Bits per second; None = no rate limit (the reverse path).
    rate_bps: Option<u64>,
    delay: Time,
    queue: Option<QueueLimit>,
    loss: LossRt,
    /// Loss acts after serialisation (data path) or on entry (reverse).
    protect_rtx: bool,
    reorder_p: f64,
    reorder_delay: Time,
    reorder_rng: Stream,
    dup_p: f64,
    dup_rng: Stream,
    /// Serialisation end times and sizes of packets accepted and not yet
    /// serialised; the front is in service.
    backlog: VecDeque<(Time, u32)>,
    backlog_bytes: u64,
    pub max_queue_bytes: u64,
}

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// The drop-tail queue was full.
    Queue,
    /// The scenario's loss model.
    Loss,
}

impl DropReason {
    pub fn as_str(self) -> &'static str {
        match self {
            DropReason::Queue => "queue",
            DropReason::Loss => "loss",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Dropped; `at` is when (queue drops at arrival, data-path loss at the
    /// end of serialisation).
    Drop { reason: DropReason, at: Time },
    /// Delivered at `at`, and a duplicate at `dup` if the path duplicated
    /// it. `held`: reordering held it back.
    Deliver {
        at: Time,
        dup: Option<Time>,
        held: bool,
    },
}

impl DirModel {
    /// The data path (`[path]`, dir 0) or the reverse path (`[reverse]`,
    /// dir 1) of `sc`. `flow_index` resolves a drop model's flow name.
    pub fn new(
        sc: &Scenario,
        dir: usize,
        flow_index: impl Fn(&str) -> Option<usize>,
    ) -> Result<Self, String> {
        let seed = sc.seed;
        if dir == 0 {
            let p = &sc.path;
            let loss = LossRt::new(&p.loss, seed, "path.loss", flow_index)
                .map_err(|e| format!("path.loss: {e}"))?;
            if loss.has_timed_bursts() {
                return Err(
                    "path.loss: a burst whose `at` is a time is simulator-only; give `at` as a packet number"
                        .into(),
                );
            }
            Ok(DirModel {
                rate_bps: Some(p.rate.max(1)),
                delay: p.delay,
                queue: Some(p.queue.clone()),
                loss,
                protect_rtx: p.protect_retransmissions,
                reorder_p: p.reorder.p,
                reorder_delay: p.reorder.delay,
                reorder_rng: Stream::new(seed, "path.reorder"),
                dup_p: p.duplicate,
                dup_rng: Stream::new(seed, "path.duplicate"),
                backlog: VecDeque::new(),
                backlog_bytes: 0,
                max_queue_bytes: 0,
            })
        } else {
            let r = &sc.reverse;
            let loss = LossRt::new(&r.loss, seed, "reverse.loss", flow_index)
                .map_err(|e| format!("reverse.loss: {e}"))?;
            if matches!(loss, LossRt::Segments { .. } | LossRt::Tail { .. }) {
                return Err(
                    "reverse.loss: `segments` and `tail` name data segments; use `packets` for ACKs"
                        .into(),
                );
            }
            Ok(DirModel {
                rate_bps: None,
                delay: r.delay,
                queue: None,
                loss,
                protect_rtx: false,
                reorder_p: r.reorder.p,
                reorder_delay: r.reorder.delay,
                reorder_rng: Stream::new(seed, "reverse.reorder"),
                dup_p: r.duplicate,
                dup_rng: Stream::new(seed, "reverse.duplicate"),
                backlog: VecDeque::new(),
                backlog_bytes: 0,
                max_queue_bytes: 0,
            })
        }
    }

    pub fn ser_time(&self, bytes: u32) -> Time {
        match self.rate_bps {
            Some(r) => ((bytes as u128 * 8 * SEC as u128).div_ceil(r as u128)) as Time,
            None => 0,
        }
    }

    /// Bytes waiting behind the packet in service at `now`.
    pub fn queued_bytes(&self) -> u64 {
        self.backlog_bytes - self.backlog.front().map_or(0, |f| f.1 as u64)
    }

    /// The fate of a packet of `bytes` (IP length) arriving at `now`.
    /// `modelled`: whether the loss model sees it (see
    /// `packet::Flows::classify`).
    pub fn offer(&mut self, now: Time, bytes: u32, modelled: bool, view: &PacketView) -> Verdict {
        let left_link = if self.rate_bps.is_some() {
            while let Some(&(done, b)) = self.backlog.front() {
                if done > now {
                    break;
                }
                self.backlog.pop_front();
                self.backlog_bytes -= b as u64;
            }
            if let Some(&(last_done, _)) = self.backlog.back() {
                // Busy link: the queue limit excludes the packet in service.
                let waiting = self.backlog.len() as u64 - 1;
                let full = match self.queue {
                    Some(QueueLimit::Bytes(lim)) => self.queued_bytes() + bytes as u64 > lim,
                    Some(QueueLimit::Packets(n)) => waiting >= n,
                    None => false,
                };
                if full {
                    return Verdict::Drop {
                        reason: DropReason::Queue,
                        at: now,
                    };
                }
                let done = last_done + self.ser_time(bytes);
                self.backlog.push_back((done, bytes));
                self.backlog_bytes += bytes as u64;
                self.max_queue_bytes = self.max_queue_bytes.max(self.queued_bytes());
                done
            } else {
                let done = now + self.ser_time(bytes);
                self.backlog.push_back((done, bytes));
                self.backlog_bytes += bytes as u64;
                done
            }
        } else {
            now
        };
        // FIFO service keeps departures in arrival order, so drawing the
        // loss now is the simulator's draw at departure.
        let protected = self.protect_rtx && view.tx_count > 1;
        if modelled && !protected && !self.loss.is_none() && self.loss.drops(view) {
            return Verdict::Drop {
                reason: DropReason::Loss,
                at: left_link,
            };
        }
        let at = left_link + self.delay;
        let held = self.reorder_rng.chance(self.reorder_p);
        let dup = self.dup_rng.chance(self.dup_p).then_some(at);
        Verdict::Deliver {
            at: if held { at + self.reorder_delay } else { at },
            dup,
            held,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use losslab_core::time::{MS, US};
    use losslab_sim::scenario::{FlowSpec, LossModel, PathSpec};

    fn sc(rate: u64, queue: QueueLimit, loss: LossModel) -> Scenario {
        Scenario::single_path(
            "t",
            SEC,
            PathSpec::new(rate, 10 * MS, queue, loss),
            vec![FlowSpec::new("a")],
        )
    }

    fn v(i: u64) -> PacketView {
        PacketView {
            flow: 0,
            index: i,
            seg_no: i - 1,
            tx_count: 1,
            end: i * 1448,
            flow_total: None,
            mss: 1448,
        }
    }

    #[test]
    fn serialises_back_to_back_and_drops_at_the_tail() {
        // 12 Mbit/s: a 1500-byte packet takes 1 ms.
        let mut m = DirModel::new(
            &sc(12_000_000, QueueLimit::Packets(2), LossModel::None),
            0,
            |_| None,
        )
        .unwrap();
        let got: Vec<Verdict> = (1..=5).map(|i| m.offer(0, 1500, true, &v(i))).collect();
        let d = |ms: u64| Verdict::Deliver {
            at: ms * MS + 10 * MS,
            dup: None,
            held: false,
        };
        assert_eq!(got[0], d(1));
        assert_eq!(got[1], d(2));
        assert_eq!(got[2], d(3));
        // One in service plus two waiting: the fourth and fifth are dropped.
        assert_eq!(
            got[3],
            Verdict::Drop {
                reason: DropReason::Queue,
                at: 0
            }
        );
        assert_eq!(
            got[4],
            Verdict::Drop {
                reason: DropReason::Queue,
                at: 0
            }
        );
        // After the first finished, there is room for one more.
        assert_eq!(m.offer(MS, 1500, true, &v(6)), d(4));
        // An idle link starts serialising at arrival.
        assert_eq!(
            m.offer(100 * MS + 3 * US, 1500, true, &v(7)),
            Verdict::Deliver {
                at: 111 * MS + 3 * US,
                dup: None,
                held: false
            }
        );
    }

    #[test]
    fn byte_queue_counts_waiting_bytes_only() {
        let mut m = DirModel::new(
            &sc(12_000_000, QueueLimit::Bytes(3000), LossModel::None),
            0,
            |_| None,
        )
        .unwrap();
        assert!(matches!(
            m.offer(0, 1500, true, &v(1)),
            Verdict::Deliver { .. }
        ));
        assert!(matches!(
            m.offer(0, 1500, true, &v(2)),
            Verdict::Deliver { .. }
        ));
        assert!(matches!(
            m.offer(0, 1500, true, &v(3)),
            Verdict::Deliver { .. }
        ));
        assert!(matches!(
            m.offer(0, 1, true, &v(4)),
            Verdict::Drop {
                reason: DropReason::Queue,
                ..
            }
        ));
        assert_eq!(m.max_queue_bytes, 3000);
    }

    #[test]
    fn bursts_by_packet_run_and_bursts_by_time_are_refused() {
        use losslab_sim::scenario::{Burst, BurstStart, DropSpec};
        let model = |at| LossModel::Drop {
            flow: "a".into(),
            which: DropSpec::Bursts(vec![Burst { at, length: 2 }]),
        };
        let index = |n: &str| (n == "a").then_some(0);
        let q = QueueLimit::Packets(100);
        let mut m = DirModel::new(
            &sc(12_000_000, q.clone(), model(BurstStart::Packet(2))),
            0,
            index,
        )
        .unwrap();
        let lost: Vec<u64> = (1..=5)
            .filter(|&i| matches!(m.offer(0, 1500, true, &v(i)), Verdict::Drop { .. }))
            .collect();
        assert_eq!(lost, vec![2, 3]);
        let e = DirModel::new(&sc(12_000_000, q, model(BurstStart::Time(SEC))), 0, index)
            .err()
            .unwrap();
        assert!(e.contains("simulator-only"), "{e}");
    }

    #[test]
    fn drop_list_drops_after_serialisation_and_only_modelled_packets() {
        let loss = LossModel::Drop {
            flow: "a".into(),
            which: losslab_sim::scenario::DropSpec::Packets(vec![2]),
        };
        let mut m = DirModel::new(&sc(12_000_000, QueueLimit::Packets(100), loss), 0, |n| {
            (n == "a").then_some(0)
        })
        .unwrap();
        assert!(matches!(
            m.offer(0, 1500, true, &v(1)),
            Verdict::Deliver { .. }
        ));
        assert_eq!(
            m.offer(0, 1500, true, &v(2)),
            Verdict::Drop {
                reason: DropReason::Loss,
                at: 2 * MS
            }
        );
        assert!(matches!(
            m.offer(0, 1500, false, &v(2)),
            Verdict::Deliver { .. }
        ));
    }

    #[test]
    fn same_draws_as_the_simulators_loss_stream() {
        let model = LossModel::Bernoulli { p: 0.1 };
        let s = sc(1_000_000_000, QueueLimit::Packets(100_000), model.clone());
        let mut m = DirModel::new(&s, 0, |_| None).unwrap();
        let mut reference = LossRt::new(&model, s.seed, "path.loss", |_| None).unwrap();
        for i in 1..=2000 {
            let ours = matches!(m.offer(i * MS, 100, true, &v(i)), Verdict::Drop { .. });
            assert_eq!(ours, reference.drops(&v(i)), "packet {i}");
        }
    }
}
