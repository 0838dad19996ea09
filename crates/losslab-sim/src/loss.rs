//! Loss models applied to packets as they leave a link (a lossy wire:
//! the packet has used its share of the link before it is lost, as with
//! ns-3's receive error model).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use losslab_core::time::Time;

use crate::rng::Stream;
use crate::scenario::{BurstStart, DropSpec, LossModel};

/// What a loss model may look at.
#[derive(Clone, Copy, Debug)]
pub struct PacketView {
    pub flow: usize,
    /// 1-based index of this packet among its flow's packets in this
    /// direction, in order of transmission.
    pub index: u64,
    /// Data only: 0-based segment number and transmission count.
    pub seg_no: u64,
    pub tx_count: u32,
    /// Data only: end byte of the segment, and the flow's total bytes.
    pub end: u64,
    pub flow_total: Option<u64>,
    pub mss: u32,
}

#[derive(Clone, Debug)]
pub enum LossRt {
    None,
    Bernoulli {
        p: f64,
        rng: Stream,
    },
    /// Two-state Markov chain (Gilbert-Elliott): the state moves once per
    /// packet, then the packet is lost with the state's loss probability.
    GilbertElliott {
        p_gb: f64,
        p_bg: f64,
        loss_good: f64,
        loss_bad: f64,
        bad: bool,
        rng: Stream,
    },
    Packets {
        flow: usize,
        set: BTreeSet<u64>,
    },
    Segments {
        flow: usize,
        set: BTreeSet<u64>,
    },
    Tail {
        flow: usize,
        n: u64,
    },
    /// Bursts of consecutive packets of one flow: `runs` maps the first
    /// packet index of each run to the index after it (disjoint, merged
    /// runs, so one lookup answers); `pending` holds the bursts given as a
    /// time, (time, length) sorted by time, until `note_entry` sees the
    /// packet they start with.
    Bursts {
        flow: usize,
        runs: BTreeMap<u64, u64>,
        pending: VecDeque<(Time, u64)>,
    },
}

/// Adds `[start, end)` to disjoint runs, merging what it overlaps or
/// touches.
fn add_run(runs: &mut BTreeMap<u64, u64>, mut start: u64, mut end: u64) {
    if start >= end {
        return;
    }
    if let Some((&s, &e)) = runs.range(..=start).next_back() {
        if e >= start {
            start = s;
            end = end.max(e);
        }
    }
    let absorbed: Vec<u64> = runs.range(start..=end).map(|(&s, _)| s).collect();
    for s in absorbed {
        if let Some(e) = runs.remove(&s) {
            end = end.max(e);
        }
    }
    runs.insert(start, end);
}

impl LossRt {
    /// `flow_index` resolves a flow name (already validated by the parser).
    pub fn new(
        model: &LossModel,
        seed: u64,
        element: &str,
        flow_index: impl Fn(&str) -> Option<usize>,
    ) -> Result<Self, String> {
        Ok(match model {
            LossModel::None => LossRt::None,
            LossModel::Bernoulli { p } => LossRt::Bernoulli {
                p: *p,
                rng: Stream::new(seed, element),
            },
            LossModel::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
            } => LossRt::GilbertElliott {
                p_gb: *p_gb,
                p_bg: *p_bg,
                loss_good: *loss_good,
                loss_bad: *loss_bad,
                bad: false,
                rng: Stream::new(seed, element),
            },
            LossModel::Drop { flow, which } => {
                let f = flow_index(flow).ok_or_else(|| format!("no flow named {flow:?}"))?;
                match which {
                    DropSpec::Packets(v) => LossRt::Packets {
                        flow: f,
                        set: v.iter().copied().collect(),
                    },
                    DropSpec::Segments(v) => LossRt::Segments {
                        flow: f,
                        set: v.iter().copied().collect(),
                    },
                    DropSpec::Tail(n) => LossRt::Tail { flow: f, n: *n },
                    DropSpec::Bursts(v) => {
                        let mut runs = BTreeMap::new();
                        let mut pending = Vec::new();
                        for b in v {
                            match b.at {
                                BurstStart::Packet(at) => {
                                    add_run(&mut runs, at, at.saturating_add(b.length))
                                }
                                BurstStart::Time(t) => pending.push((t, b.length)),
                            }
                        }
                        pending.sort_by_key(|&(t, _)| t);
                        LossRt::Bursts {
                            flow: f,
                            runs,
                            pending: pending.into(),
                        }
                    }
                    // SYN drops are `SynLoss`'s; data passes.
                    DropSpec::Syns(_) => LossRt::None,
                }
            }
        })
    }

    /// Decides the fate of one packet: true = dropped.
    pub fn drops(&mut self, p: &PacketView) -> bool {
        match self {
            LossRt::None => false,
            LossRt::Bernoulli { p: prob, rng } => rng.chance(*prob),
            LossRt::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
                bad,
                rng,
            } => {
                *bad = if *bad {
                    !rng.chance(*p_bg)
                } else {
                    rng.chance(*p_gb)
                };
                rng.chance(if *bad { *loss_bad } else { *loss_good })
            }
            LossRt::Packets { flow, set } => *flow == p.flow && set.contains(&p.index),
            LossRt::Segments { flow, set } => {
                *flow == p.flow && p.tx_count == 1 && set.contains(&(p.seg_no + 1))
            }
            // The last n segments: those whose last byte lies in the flow's
            // final n x MSS bytes (exact for MSS-aligned flows).
            LossRt::Tail { flow, n } => {
                *flow == p.flow
                    && p.tx_count == 1
                    && p.flow_total
                        .is_some_and(|t| p.end + n.saturating_mul(p.mss as u64) > t && p.end <= t)
            }
            LossRt::Bursts { flow, runs, .. } => {
                *flow == p.flow
                    && runs
                        .range(..=p.index)
                        .next_back()
                        .is_some_and(|(_, &end)| p.index < end)
            }
        }
    }

    /// A data packet `p` of a flow entered the bottleneck (the queue
    /// accepted it) at `now`: a burst given as a time starts with the first
    /// such packet of its flow at or after that time. Cheap for every other
    /// model, and for bursts once every time has passed.
    pub fn note_entry(&mut self, now: Time, p: &PacketView) {
        let LossRt::Bursts {
            flow,
            runs,
            pending,
        } = self
        else {
            return;
        };
        if *flow != p.flow {
            return;
        }
        while let Some(&(t, length)) = pending.front() {
            if t > now {
                break;
            }
            pending.pop_front();
            add_run(runs, p.index, p.index.saturating_add(length));
        }
    }

    /// Whether the model has bursts waiting for a time to pass (which only
    /// a caller that calls `note_entry` can start).
    pub fn has_timed_bursts(&self) -> bool {
        matches!(self, LossRt::Bursts { pending, .. } if !pending.is_empty())
    }

    /// Random models honour protect_retransmissions; so do drop lists.
    pub fn is_none(&self) -> bool {
        matches!(self, LossRt::None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(index: u64, seg_no: u64, tx: u32, end: u64) -> PacketView {
        PacketView {
            flow: 0,
            index,
            seg_no,
            tx_count: tx,
            end,
            flow_total: Some(14_480),
            mss: 1448,
        }
    }

    #[test]
    fn tail_drops_exactly_the_last_segments_first_transmission() {
        let mut l = LossRt::Tail { flow: 0, n: 2 };
        let dropped: Vec<u64> = (0..10)
            .filter(|&i| l.drops(&view(i + 1, i, 1, (i + 1) * 1448)))
            .collect();
        assert_eq!(dropped, vec![8, 9]);
        assert!(!l.drops(&view(11, 9, 2, 14_480)));
    }

    #[test]
    fn segments_list_is_one_based_and_first_transmission_only() {
        let mut l = LossRt::Segments {
            flow: 0,
            set: [1, 3].into_iter().collect(),
        };
        assert!(l.drops(&view(1, 0, 1, 1448)));
        assert!(!l.drops(&view(2, 1, 1, 2896)));
        assert!(l.drops(&view(3, 2, 1, 4344)));
        assert!(!l.drops(&view(4, 0, 2, 1448)));
    }

    fn bursts(v: Vec<crate::scenario::Burst>) -> LossRt {
        LossRt::new(
            &LossModel::Drop {
                flow: "a".into(),
                which: DropSpec::Bursts(v),
            },
            1,
            "path.loss",
            |n| (n == "a").then_some(0),
        )
        .unwrap()
    }

    fn burst(at: BurstStart, length: u64) -> crate::scenario::Burst {
        crate::scenario::Burst { at, length }
    }

    fn dropped_indices(l: &mut LossRt, n: u64) -> Vec<u64> {
        (1..=n)
            .filter(|&i| l.drops(&view(i, i - 1, 1, i * 1448)))
            .collect()
    }

    #[test]
    fn a_burst_drops_consecutive_packets_from_the_given_index() {
        let mut l = bursts(vec![burst(BurstStart::Packet(5), 3)]);
        assert_eq!(dropped_indices(&mut l, 20), vec![5, 6, 7]);
        // Retransmissions count like any packet: the burst is a span of
        // indices, whatever they carry.
        let mut l = bursts(vec![burst(BurstStart::Packet(2), 2)]);
        assert!(l.drops(&view(2, 40, 3, 0)));
        // Another flow's packets pass.
        assert!(!l.drops(&PacketView {
            flow: 1,
            ..view(2, 1, 1, 0)
        }));
    }

    #[test]
    fn overlapping_and_adjacent_bursts_merge() {
        let mut l = bursts(vec![
            burst(BurstStart::Packet(10), 5),
            burst(BurstStart::Packet(3), 2),
            burst(BurstStart::Packet(12), 10),
            burst(BurstStart::Packet(5), 1),
            burst(BurstStart::Packet(1), 1),
        ]);
        let LossRt::Bursts { runs, .. } = &l else {
            unreachable!()
        };
        let runs: Vec<_> = runs.iter().map(|(&s, &e)| (s, e)).collect();
        assert_eq!(runs, vec![(1, 2), (3, 6), (10, 22)]);
        let want: Vec<u64> = [1, 3, 4, 5].into_iter().chain(10..22).collect();
        assert_eq!(dropped_indices(&mut l, 30), want);
    }

    #[test]
    fn a_timed_burst_starts_with_the_first_packet_entering_at_or_after_its_time() {
        let s = losslab_core::time::SEC;
        let mut l = bursts(vec![
            burst(BurstStart::Time(2 * s), 2),
            burst(BurstStart::Time(s), 3),
        ]);
        assert!(l.has_timed_bursts());
        // Entries at 0.5 s (packet 1), 1 s (2), 1.5 s (3) ... 3 s (6).
        for i in 1..=6u64 {
            l.note_entry(i * s / 2, &view(i, i - 1, 1, 0));
        }
        assert!(!l.has_timed_bursts());
        // 1 s: packets 2, 3, 4; 2 s: packets 4, 5.
        assert_eq!(dropped_indices(&mut l, 10), vec![2, 3, 4, 5]);
        // Entries of other flows do not start a burst.
        let mut l = bursts(vec![burst(BurstStart::Time(0), 1)]);
        l.note_entry(
            5,
            &PacketView {
                flow: 1,
                ..view(1, 0, 1, 0)
            },
        );
        assert!(l.has_timed_bursts());
        l.note_entry(6, &view(4, 3, 1, 0));
        assert_eq!(dropped_indices(&mut l, 10), vec![4]);
    }

    #[test]
    fn gilbert_elliott_mean_loss() {
        let mut l = LossRt::new(
            &LossModel::GilbertElliott {
                p_gb: 0.01,
                p_bg: 0.1,
                loss_good: 0.0,
                loss_bad: 0.5,
            },
            3,
            "x",
            |_| None,
        )
        .unwrap();
        let n = 400_000;
        let lost = (0..n).filter(|&i| l.drops(&view(i, i, 1, 0))).count() as f64 / n as f64;
        // Stationary P(bad) = p_gb / (p_gb + p_bg) = 1/11; loss = 0.5/11.
        assert!((lost - 0.5 / 11.0).abs() < 0.004, "{lost}");
    }
}

/// The loss of SYN, SYN-ACK (and the peer's SYN) packets on one direction:
/// random models with their own stream (`<element>.syn`), so that the data
/// packets meet exactly the fates they met before the handshake was
/// simulated (and in the emulator, which never models SYNs); Bernoulli at
/// its p, Gilbert-Elliott at its stationary mean loss rate; a drop model's
/// `syns` list by transmission.
#[derive(Debug)]
pub enum SynLoss {
    None,
    Random { p: f64, rng: Stream },
    Listed { flow: usize, set: BTreeSet<u64> },
}

impl SynLoss {
    pub fn new(
        model: &LossModel,
        seed: u64,
        element: &str,
        flow_index: impl Fn(&str) -> Option<usize>,
    ) -> Self {
        let stream = || Stream::new(seed, &format!("{element}.syn"));
        match model {
            LossModel::Bernoulli { p } => SynLoss::Random {
                p: *p,
                rng: stream(),
            },
            LossModel::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
            } => {
                let bad = if p_gb + p_bg > 0.0 {
                    p_gb / (p_gb + p_bg)
                } else {
                    0.0
                };
                SynLoss::Random {
                    p: bad * loss_bad + (1.0 - bad) * loss_good,
                    rng: stream(),
                }
            }
            LossModel::Drop {
                flow,
                which: DropSpec::Syns(v),
            } => match flow_index(flow) {
                Some(f) => SynLoss::Listed {
                    flow: f,
                    set: v.iter().copied().collect(),
                },
                None => SynLoss::None,
            },
            _ => SynLoss::None,
        }
    }

    /// The fate of flow `flow`'s `nth` (1-based) SYN in this direction.
    pub fn drops(&mut self, flow: usize, nth: u64) -> bool {
        match self {
            SynLoss::None => false,
            SynLoss::Random { p, rng } => rng.chance(*p),
            SynLoss::Listed { flow: f, set } => *f == flow && set.contains(&nth),
        }
    }
}
