//! What a run will need in memory, estimated from its scenario before it
//! starts, so that a scenario that cannot fit is refused up front with
//! the estimate instead of dying half-way (docs/RELIABILITY.md, "Memory").
//!
//! The estimate is a sum of terms, each a count the scenario bounds times
//! a cost per item measured on this simulator (docs/BENCHMARKS.md,
//! "Memory": peak RSS beside the estimate for each term's worst case).
//! It is meant to be above the real peak, within a small factor: a guard,
//! not a prediction.

use crate::scenario::{AppSpec, DropSpec, LossModel, QueueLimit, Scenario};

/// The process before the first flow: code, allocator, output buffers.
pub const BASE: u64 = 8 << 20;
/// One connection: sender, receiver, the RTT histogram (about 30 KiB),
/// its results and their JSON.
pub const PER_CONNECTION: u64 = 56 << 10;
/// One segment of a window in flight: the scoreboard entry, the queued
/// packet and its events, the receiver's out-of-order range, measured
/// with windows of 10^5 segments (docs/BENCHMARKS.md).
pub const PER_SEGMENT: u64 = 640;
/// One recovery episode: the sender's record, the results entry and its
/// JSON (about 770 bytes of it), per-episode samples.
pub const PER_RECOVERY: u64 = 2560;
/// One object of a request/response app: its size, request and completion
/// times, its results entry and JSON.
pub const PER_OBJECT: u64 = 600;
/// One chunk of a parallel-TCP file.
pub const PER_CHUNK: u64 = 200;
/// One row of timeseries.csv or packets.csv that `--plot` loads back to
/// draw.
pub const PER_TRACE_ROW: u64 = 160;
/// One entry of a `writes` app, copied per connection.
pub const PER_WRITE: u64 = 48;
/// One entry of a `drop` loss model's list (`packets`, `segments`,
/// `syns`, `bursts`): the scenario's copy and the run's ordered set.
pub const PER_DROP_ENTRY: u64 = 64;

/// The estimate and its terms, largest first when shown.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    pub bytes: u64,
    /// (what, bytes), for the message that refuses a run.
    pub terms: Vec<(String, u64)>,
}

impl Estimate {
    /// "4.1 GB (flows 3.9 GB: 70,000 connections x 56 kB; ...)".
    pub fn describe(&self) -> String {
        let mut terms: Vec<&(String, u64)> = self.terms.iter().filter(|t| t.1 > 0).collect();
        terms.sort_by_key(|t| std::cmp::Reverse(t.1));
        let parts: Vec<String> = terms
            .iter()
            .map(|(what, b)| format!("{} {what}", human(*b)))
            .collect();
        format!("{} ({})", human(self.bytes), parts.join("; "))
    }
}

/// The `--max-memory` value a refusal suggests for `need` bytes: whole
/// gigabytes above it, a unit `--max-memory` reads (`--max-memory 3GB`).
pub fn suggested_limit(need: u64) -> String {
    format!("{}GB", need / 1_000_000_000 + 1)
}

/// Bytes in the largest decimal unit (as scenario sizes and
/// `--max-memory` read them) that keeps a whole number in front.
pub fn human(b: u64) -> String {
    const UNITS: &[(u64, &str)] = &[
        (1_000_000_000_000, "TB"),
        (1_000_000_000, "GB"),
        (1_000_000, "MB"),
        (1_000, "kB"),
    ];
    for &(u, name) in UNITS {
        if b >= u {
            return format!("{:.1} {name}", b as f64 / u as f64);
        }
    }
    format!("{b} B")
}

fn mul(a: u64, b: u64) -> u64 {
    a.saturating_mul(b)
}

/// The estimate for one run of `sc`; `traces_loaded` when the run's
/// traces are read back into memory afterwards (`--plot`, `--report`).
pub fn estimate(sc: &Scenario, traces_loaded: bool) -> Estimate {
    // Counted flows are weighed once and multiplied: expanding a count of
    // millions would itself be the bomb.
    let connections = sc
        .flows
        .iter()
        .fold(0u64, |a, f| a.saturating_add(u64::from(f.count.max(1))));
    let rate = sc.path.rate.max(1);
    let queue_bytes = match sc.path.queue {
        QueueLimit::Bytes(b) => b,
        QueueLimit::Packets(p) => mul(p, 1500),
    };
    let mut window_segments = 0u64;
    let mut recoveries = 0u64;
    let mut objects = 0u64;
    let mut writes = 0u64;
    let mut chunks = 0u64;
    let mut longest_rtt = 0u64;
    let mut smallest_mss = u64::MAX;
    // Rows a sized flow's trace can have: every segment, its ACK and a
    // retransmission or two; None once a flow is unbounded (bulk).
    let mut sized_rows = Some(0u64);
    for f in &sc.flows {
        let n = u64::from(f.count.max(1));
        let mss = u64::from(f.mss.max(1));
        smallest_mss = smallest_mss.min(mss);
        sized_rows = match (sized_rows, f.app.total()) {
            (Some(r), Some(total)) => Some(r.saturating_add(mul(mul(total / mss + 1, 4), n))),
            _ => None,
        };
        // Round trip without queueing; a recovery episode lasts at least
        // one, so a flow has at most duration / RTT of them. A packet's
        // time on the link is the floor when there is no delay.
        let rtt = (sc.path.delay + sc.reverse.delay)
            .saturating_add(f.delay.saturating_mul(2))
            .max(mul(mss, 8_000_000_000) / rate)
            .max(1);
        longest_rtt = longest_rtt.max(rtt);
        let active = sc.duration.saturating_sub(f.start);
        // The sender keeps the first KEEP in full and then only the
        // latest (losslab-core recovery_log.rs), whatever the duration.
        let mut episodes = (active / rtt + 1).min(losslab_core::recovery_log::KEEP as u64);
        // A sized transfer cannot recover more often than it has segments
        // (each episode starts with one lost), with slack for lost
        // retransmissions.
        if let Some(total) = f.app.total() {
            episodes = episodes.min(mul(total / mss + 1, 4));
        }
        recoveries = recoveries.saturating_add(mul(episodes, n));
        // A window is at most the receive buffer (with the mobile paper's
        // opportunistic segments past it), the cwnd clamp, and what the
        // path holds twice over (slow start overshoots by up to a window).
        let bdp = mul(rate / 8, rtt) / 1_000_000_000;
        let mut window = f.receiver.rcvbuf.saturating_add(mul(mss, 64));
        if let Some(m) = f.max_cwnd {
            window = window.min(mul(m, mss));
        }
        window = window.min(mul(bdp.saturating_add(queue_bytes), 2).saturating_add(mul(mss, 64)));
        window_segments = window_segments.saturating_add(mul(window / mss + 1, n));
        match &f.app {
            AppSpec::Objects { sizes, .. } => {
                objects = objects.saturating_add(mul(sizes.len() as u64, n))
            }
            AppSpec::Writes(w) => writes = writes.saturating_add(mul(w.len() as u64, n)),
            // The connections share one file.
            AppSpec::Chunks { file, chunk } => {
                chunks = chunks.saturating_add(file / (*chunk).max(1) + 1)
            }
            _ => {}
        }
    }
    // Flows share the bottleneck: together they hold at most what the
    // path holds, twice over, plus a few segments each.
    let path_segments = (mul(
        (mul(rate / 8, longest_rtt) / 1_000_000_000).saturating_add(queue_bytes),
        2,
    ) / smallest_mss.min(1448))
    .saturating_add(mul(connections, 64));
    let window_segments = window_segments.min(path_segments);
    let trace_rows = if traces_loaded {
        // Every data packet and every ACK is a row at most: what the link
        // carries in the duration, or less when every flow is sized.
        let link = mul(
            rate / 8 / smallest_mss.min(1448) + 1,
            sc.duration / 1_000_000_000 + 1,
        )
        .saturating_mul(2);
        sized_rows.map_or(link, |r| r.min(link))
    } else {
        0
    };
    let drops = [&sc.path.loss, &sc.reverse.loss]
        .into_iter()
        .fold(0u64, |a, l| a.saturating_add(drop_entries(l)));
    let terms = vec![
        ("base".to_string(), BASE),
        (
            format!("flows: {connections} connections x {}", human(PER_CONNECTION)),
            mul(connections, PER_CONNECTION),
        ),
        (
            format!("windows: up to {window_segments} segments in flight x {PER_SEGMENT} B"),
            mul(window_segments, PER_SEGMENT),
        ),
        (
            format!(
                "recovery episodes: up to {recoveries} (one per round trip per flow, at most {} kept per flow) x {}",
                losslab_core::recovery_log::KEEP,
                human(PER_RECOVERY)
            ),
            mul(recoveries, PER_RECOVERY),
        ),
        (
            format!("objects: {objects} x {PER_OBJECT} B"),
            mul(objects, PER_OBJECT),
        ),
        (
            format!("chunks: {chunks} x {PER_CHUNK} B"),
            mul(chunks, PER_CHUNK),
        ),
        (
            format!("writes: {writes} x {PER_WRITE} B"),
            mul(writes, PER_WRITE),
        ),
        (
            format!("drop lists: {drops} entries x {PER_DROP_ENTRY} B"),
            mul(drops, PER_DROP_ENTRY),
        ),
        (
            format!("traces read back for pictures: up to {trace_rows} rows x {PER_TRACE_ROW} B"),
            mul(trace_rows, PER_TRACE_ROW),
        ),
    ];
    let bytes = terms.iter().fold(0u64, |a, t| a.saturating_add(t.1));
    Estimate { bytes, terms }
}

/// The entries a loss model lists one by one.
fn drop_entries(l: &LossModel) -> u64 {
    match l {
        LossModel::Drop { which, .. } => match which {
            DropSpec::Packets(v) | DropSpec::Segments(v) | DropSpec::Syns(v) => v.len() as u64,
            DropSpec::Bursts(v) => v.len() as u64,
            DropSpec::Tail(_) => 0,
        },
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_scenario;

    fn sc(extra: &[&str]) -> Scenario {
        let text = r#"
name = "m"
duration = "10s"
[path]
rate = "100Mbps"
delay = "10ms"
queue = "1MB"
[[flow]]
name = "a"
"#;
        let o: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
        parse_scenario("m.toml", text, &o).unwrap()
    }

    #[test]
    fn a_small_scenario_is_small() {
        let e = estimate(&sc(&[]), false);
        assert!(e.bytes < 64 << 20, "{}", e.describe());
    }

    #[test]
    fn each_bomb_is_seen() {
        let limit = 8_000_000_000u64;
        // (overrides, the term that must dominate; None: under the limit)
        let cases: &[(&[&str], Option<&str>)] = &[
            (&["flow.a.count=1000000"], Some("flows")),
            (
                &["flow.a.count=5000", "duration=100000s"],
                Some("recovery episodes"),
            ),
            (
                &[
                    "path.rate=1000Gbps",
                    "path.queue=\"1000GB\"",
                    "flow.a.receiver={rcvbuf=\"1000GB\"}",
                ],
                Some("windows"),
            ),
            // A small MSS makes many segments of the same bytes.
            (
                &[
                    "flow.a.mss=\"1B\"",
                    "path.rate=1Gbps",
                    "path.queue=\"400MB\"",
                    "flow.a.receiver={rcvbuf=\"1GB\"}",
                ],
                Some("windows"),
            ),
            // An endless run keeps a bounded record per flow.
            (&["duration=1000000000s"], None),
            // A fast path alone is bounded by the receive buffer.
            (&["path.rate=1000Gbps", "path.queue=\"1000GB\""], None),
        ];
        for (o, what) in cases {
            let e = estimate(&sc(o), false);
            match what {
                None => assert!(e.bytes < limit, "{o:?}: {}", e.describe()),
                Some(w) => {
                    assert!(e.bytes > limit, "{o:?}: {}", e.describe());
                    let t = e.terms.iter().find(|t| t.0.starts_with(w)).unwrap();
                    assert!(t.1 > limit, "{o:?}: {}", e.describe());
                }
            }
        }
    }

    #[test]
    fn a_writes_list_is_weighed_per_connection() {
        let list: Vec<String> = (0..10_000)
            .map(|i| format!("[\"{i}ms\", \"1kB\"]"))
            .collect();
        let writes = format!(
            "flow.a.app={{kind=\"writes\", writes=[{}]}}",
            list.join(",")
        );
        let e = estimate(&sc(&[&writes, "flow.a.count=20000"]), false);
        let t = e.terms.iter().find(|t| t.0.starts_with("writes")).unwrap();
        assert_eq!(t.1, 10_000 * 20_000 * PER_WRITE, "{}", e.describe());
    }

    #[test]
    fn a_drop_list_is_weighed() {
        let list: Vec<String> = (1..=50_000).map(|i| i.to_string()).collect();
        let drop = format!(
            "path.loss={{model=\"drop\", flow=\"a\", packets=[{}]}}",
            list.join(",")
        );
        let e = estimate(&sc(&[&drop]), false);
        let t = e
            .terms
            .iter()
            .find(|t| t.0.starts_with("drop lists"))
            .unwrap();
        assert_eq!(t.1, 50_000 * PER_DROP_ENTRY, "{}", e.describe());
    }

    #[test]
    fn a_sized_flow_bounds_its_trace_rows() {
        let fast = [
            "path.rate=10Gbps",
            "duration=60s",
            "flow.a.app={kind=\"bytes\", size=\"14480B\"}",
        ];
        let e = estimate(&sc(&fast), true);
        assert!(e.bytes < 64_000_000, "{}", e.describe());
        let bulk = estimate(&sc(&fast[..2]), true);
        assert!(bulk.bytes > 1_000_000_000, "{}", bulk.describe());
    }

    #[test]
    fn saturates_instead_of_overflowing() {
        let s = sc(&[
            "duration=10000000000s",
            "path.rate=1000000Gbps",
            "path.queue=\"1000000GB\"",
            "flow.a.count=4000000000",
        ]);
        let e = estimate(&s, true);
        assert_eq!(e.bytes, u64::MAX);
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human(512), "512 B");
        assert_eq!(human(1500), "1.5 kB");
        assert_eq!(human(8_000_000_000), "8.0 GB");
    }
}
