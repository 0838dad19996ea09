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
//! - reverse path: the loss model acts as the packet enters; then, only
//!   when `reverse.rate` gives it a link, a drop-tail queue and that link;
//!   then delay, reordering and duplication;
//! - a link drains at a constant rate or by a mahimahi trace, through the
//!   simulator's own `Drain` (losslab-sim's link.rs).
//!
//! The random draws use the same named streams as the simulator
//! ("path.loss", "path.reorder", "path.duplicate", "reverse.…") under the
//! scenario's seed, in the same order, so a given sequence of modelled
//! packets meets the same fate in both.

use std::collections::VecDeque;

use losslab_core::time::Time;
use losslab_sim::link::Drain;
use losslab_sim::loss::{LossRt, PacketView};
use losslab_sim::rng::Stream;
use losslab_sim::scenario::{QueueLimit, Scenario};

pub struct DirModel {
    /// What drains the link; None: no link (a reverse path without
    /// `reverse.rate`).
    drain: Option<Drain>,
    /// The loss model acts as a packet enters (reverse path), not as it
    /// leaves the link.
    loss_on_entry: bool,
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
    /// Packets accepted and not yet gone: when each one's first byte
    /// goes, when its last has gone, and its size; the front is at the
    /// link's head.
    backlog: VecDeque<(Time, Time, u32)>,
    backlog_bytes: u64,
    pub max_queue_bytes: u64,
    /// The clock reading of the scenario's time 0, which a trace's time
    /// counts from (`set_origin`).
    origin: Time,
    /// The trace started over with packets still queued: the next one
    /// seeks its opportunity rather than take their leftovers.
    restarted: bool,
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
                drain: Some(Drain::new(p.rate, p.trace.as_ref())),
                loss_on_entry: false,
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
                origin: 0,
                restarted: false,
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
                drain: r
                    .link
                    .as_ref()
                    .map(|l| Drain::new(l.rate, l.trace.as_ref())),
                loss_on_entry: true,
                delay: r.delay,
                queue: r.link.as_ref().map(|l| l.queue.clone()),
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
                origin: 0,
                restarted: false,
            })
        }
    }

    /// Bytes waiting behind the packet at the link's head.
    pub fn queued_bytes(&self) -> u64 {
        self.backlog_bytes - self.backlog.front().map_or(0, |f| u64::from(f.2))
    }

    /// Sets the clock reading (ns) of the scenario's time 0: a trace's
    /// opportunities count from it, so that `losslab linux` plays the
    /// trace from the run's start as the simulator does (`emulate`: from
    /// the emulator's start). A trace starts over when it moves.
    pub fn set_origin(&mut self, origin: Time) {
        if origin != self.origin {
            self.origin = origin;
            if let Some(d) = self.drain.as_mut() {
                d.restart();
                self.restarted = !self.backlog.is_empty();
            }
        }
    }

    /// Forgets the packets that have left the link by `now`.
    fn retire(&mut self, now: Time) {
        while let Some(&(_, done, b)) = self.backlog.front() {
            if done > now {
                break;
            }
            self.backlog.pop_front();
            self.backlog_bytes -= u64::from(b);
        }
    }

    /// When a packet of `bytes` arriving at `now` leaves the link (`now`
    /// without one), or None when the queue refuses it.
    fn link(&mut self, now: Time, bytes: u32) -> Option<Time> {
        let Some(drain) = self.drain.as_mut() else {
            return Some(now);
        };
        // A trace counts time from the scenario's start; a constant rate
        // needs no origin (and a packet before it keeps its own time).
        let o = match drain {
            Drain::Trace(_) => self.origin,
            Drain::Rate(_) => 0,
        };
        let Some(&(_, last_done, _)) = self.backlog.back() else {
            let s = drain.send(now.saturating_sub(o), bytes, false);
            self.backlog.push_back((s.first + o, s.done + o, bytes));
            self.backlog_bytes += u64::from(bytes);
            return Some(s.done + o);
        };
        // Busy link: the queue limit excludes the packet being sent (at a
        // constant rate, the head; on a trace, the head once its first
        // opportunity has come).
        let (waiting, waiting_bytes) = match self.backlog.front() {
            Some(&(first, _, b)) if first <= now => (
                self.backlog.len() as u64 - 1,
                self.backlog_bytes - u64::from(b),
            ),
            _ => (self.backlog.len() as u64, self.backlog_bytes),
        };
        let full = match self.queue {
            Some(QueueLimit::Bytes(lim)) => waiting_bytes + u64::from(bytes) > lim,
            Some(QueueLimit::Packets(n)) => waiting >= n,
            None => false,
        };
        if full {
            return None;
        }
        // It waits behind the last packet accepted and starts when that
        // one leaves (after a restart, at the trace's next opportunity).
        let s = if std::mem::take(&mut self.restarted) {
            drain.send(last_done.max(now).saturating_sub(o), bytes, false)
        } else {
            drain.send(last_done.saturating_sub(o), bytes, true)
        };
        self.backlog.push_back((s.first + o, s.done + o, bytes));
        self.backlog_bytes += u64::from(bytes);
        let behind_head = self.backlog_bytes - self.backlog.front().map_or(0, |f| u64::from(f.2));
        self.max_queue_bytes = self.max_queue_bytes.max(behind_head);
        Some(s.done + o)
    }

    /// The fate of a packet of `bytes` (IP length) arriving at `now`.
    /// `modelled`: whether the loss model sees it (see
    /// `packet::Flows::classify`).
    pub fn offer(&mut self, now: Time, bytes: u32, modelled: bool, view: &PacketView) -> Verdict {
        // Before any verdict, so that `queued_bytes` is current even for
        // a packet lost on entry.
        self.retire(now);
        let protected = self.protect_rtx && view.tx_count > 1;
        let lost =
            |loss: &mut LossRt| modelled && !protected && !loss.is_none() && loss.drops(view);
        if self.loss_on_entry && lost(&mut self.loss) {
            return Verdict::Drop {
                reason: DropReason::Loss,
                at: now,
            };
        }
        let left_link = match self.link(now, bytes) {
            Some(done) => done,
            None => {
                return Verdict::Drop {
                    reason: DropReason::Queue,
                    at: now,
                }
            }
        };
        // FIFO service keeps departures in arrival order, so drawing the
        // loss now is the simulator's draw at departure.
        if !self.loss_on_entry && lost(&mut self.loss) {
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
    use losslab_core::time::{MS, SEC, US};
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

    /// The simulator's trace rules (losslab-sim's link.rs) hold here too:
    /// a packet arriving at an empty link waits for the next opportunity;
    /// queued ones use what the one before left of its opportunity.
    #[test]
    fn a_trace_drains_the_link_as_in_the_simulator() {
        use losslab_sim::scenario::{LinkTrace, ReverseLink};
        let trace = LinkTrace {
            file: "t".into(),
            ms: vec![1].into(),
            offset: 0,
        };
        let mut s = sc(1, QueueLimit::Packets(10), LossModel::None);
        s.path.trace = Some(trace.clone());
        let mut m = DirModel::new(&s, 0, |_| None).unwrap();
        let at = |v: Verdict| match v {
            Verdict::Deliver { at, .. } => at - 10 * MS,
            other => panic!("{other:?}"),
        };
        // 1500, then 4 + 1496, then 8 + 1492 bytes: 1, 2 and 3 ms.
        let got: Vec<Time> = (1..=3).map(|i| at(m.offer(0, 1500, true, &v(i)))).collect();
        assert_eq!(got, [MS, 2 * MS, 3 * MS]);
        // At the instant of an opportunity, after the link emptied: the next.
        assert_eq!(at(m.offer(5 * MS, 1500, true, &v(4))), 6 * MS);
        // The ACK direction: lost on entry, before its queue.
        let mut r = sc(1, QueueLimit::Packets(10), LossModel::None);
        r.reverse.link = Some(ReverseLink {
            rate: trace.mean_rate_bps(),
            trace: Some(trace),
            queue: QueueLimit::Packets(1),
        });
        let mut m = DirModel::new(&r, 1, |_| None).unwrap();
        assert_eq!(at(m.offer(0, 52, true, &v(1))), MS);
        // The first ACK has not gone yet: it still counts against the
        // 1-packet queue, as in mahimahi, so the second is dropped.
        assert_eq!(
            m.offer(0, 52, true, &v(2)),
            Verdict::Drop {
                reason: DropReason::Queue,
                at: 0
            }
        );
        // At 1 ms the first ACK has gone: the link is empty again.
        assert_eq!(at(m.offer(MS, 52, true, &v(3))), 2 * MS);
        // A byte limit counts the waiting head's bytes too.
        r.reverse.link.as_mut().unwrap().queue = QueueLimit::Bytes(100);
        let mut m = DirModel::new(&r, 1, |_| None).unwrap();
        assert_eq!(at(m.offer(0, 52, true, &v(1))), MS);
        assert!(matches!(m.offer(0, 52, true, &v(2)), Verdict::Drop { .. }));
        assert_eq!(at(m.offer(0, 48, true, &v(3))), MS);
        // The trace counts from the scenario's time 0, wherever the clock
        // stands: from 500.5 ms on, the opportunities are at 501.5 ms,
        // 502.5 ms, ...
        let mut m = DirModel::new(&r, 1, |_| None).unwrap();
        m.set_origin(500 * MS + 500 * US);
        assert_eq!(
            at(m.offer(500 * MS + 800 * US, 52, true, &v(1))),
            501 * MS + 500 * US
        );
        // Moved with a packet still queued, the trace starts over and the
        // next packet still leaves after it.
        let mut f = sc(1, QueueLimit::Packets(10), LossModel::None);
        f.path.trace = Some(LinkTrace {
            file: "t".into(),
            ms: vec![1, 100].into(),
            offset: 0,
        });
        let mut m = DirModel::new(&f, 0, |_| None).unwrap();
        assert_eq!(at(m.offer(2 * MS, 1500, true, &v(1))), 100 * MS);
        m.set_origin(20 * MS);
        assert_eq!(at(m.offer(21 * MS, 1500, true, &v(2))), 120 * MS);
        // A constant rate keeps its own time before the origin.
        let mut c = DirModel::new(
            &sc(12_000_000, QueueLimit::Packets(10), LossModel::None),
            0,
            |_| None,
        )
        .unwrap();
        c.set_origin(500 * MS);
        assert_eq!(at(c.offer(400 * MS, 1500, true, &v(1))), 401 * MS);
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
