//! Arbitrary numbers never hang or panic a picture. plotters 0.3.7 loops
//! forever on an axis whose range is not finite (`padded` in draw.rs
//! says why), and its rasteriser walks every pixel of a line however far
//! outside the picture it ends; a picture is drawn in a thread of its own
//! here so that a hang fails the test instead of stopping the run (the
//! time limit is only that guard, hundreds of times a drawing's time).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::time::Duration;

use proptest::prelude::*;

use crate::charts::{self, BandSeries, BarsSpec, ClaimRow};
use crate::draw::{axis_range, padded, save};
use crate::load::{AckEvent, DataEvent, Fate, FlowData, Recovery, SeriesRow};
use crate::{series, tsg};

const HANG: Duration = Duration::from_secs(120);

/// Runs `f` in a thread; fails when it panics, returns an error or does
/// not return within `HANG`.
fn guarded(what: &str, f: impl FnOnce() -> Result<(), String> + Send + 'static) {
    let (tx, rx) = channel();
    let h = std::thread::spawn(move || {
        let r = f();
        let _ = tx.send(r);
    });
    match rx.recv_timeout(HANG) {
        Ok(r) => {
            h.join().unwrap();
            if let Err(e) = r {
                panic!("{what}: {e}");
            }
        }
        // The thread keeps spinning; the test process ends with it.
        Err(RecvTimeoutError::Timeout) => panic!("{what} hangs (no return within {HANG:?})"),
        Err(RecvTimeoutError::Disconnected) => {
            if let Err(p) = h.join() {
                std::panic::resume_unwind(p);
            }
        }
    }
}

/// A fresh folder for one case's pictures.
fn case_dir() -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "losslab-viz-hostile-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> Result<(), String> {
    r.map(|_| ()).map_err(|e| e.to_string())
}

/// Numbers as they come, and the ones that break axes: not finite, at
/// the ends of f64 (their difference overflows), subnormal, zero, and
/// values a few units in the last place apart at a large magnitude.
fn wild() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => -1e3f64..1e3,
        2 => any::<f64>(),
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NEG_INFINITY),
        1 => Just(1e308),
        1 => Just(-1e308),
        1 => Just(f64::MAX),
        1 => Just(f64::MIN),
        1 => Just(f64::MIN_POSITIVE),
        1 => (1u64..(1 << 52)).prop_map(f64::from_bits),
        1 => Just(0.0),
        1 => (0u64..4).prop_map(|k| f64::from_bits(1e10f64.to_bits() + k)),
        1 => (0u64..4).prop_map(|k| f64::from_bits(1e300f64.to_bits() + k)),
    ]
}

/// Series of wild numbers, one of them all one value.
fn wild_series() -> impl Strategy<Value = Vec<Vec<f64>>> {
    (
        proptest::collection::vec(proptest::collection::vec(wild(), 0..10), 0..3),
        wild(),
        0usize..5,
    )
        .prop_map(|(mut s, v, n)| {
            s.push(vec![v; n]);
            s
        })
}

fn draw_charts(dir: &Path, values: &[Vec<f64>]) -> Result<(), String> {
    let named: Vec<(String, Vec<f64>)> = values
        .iter()
        .enumerate()
        .map(|(k, v)| (format!("s{k}"), v.clone()))
        .collect();
    ok(charts::cdf(&dir.join("cdf"), "t", "x", &named))?;
    let groups: Vec<String> = (0..values.iter().map(Vec::len).max().unwrap_or(0))
        .map(|g| format!("g{g}"))
        .collect();
    let ci: Vec<Vec<[f64; 2]>> = values
        .iter()
        .map(|v| v.windows(2).map(|w| [w[0], w[1]]).collect())
        .collect();
    let spec = BarsSpec {
        title: "t",
        groups: &groups,
        series: &named,
        ci: &ci,
        ..Default::default()
    };
    ok(charts::grouped_bars_with(&dir.join("bars"), &spec))?;
    // Points (x, mean, lo, hi) from consecutive values.
    let bands: Vec<BandSeries> = values
        .iter()
        .enumerate()
        .map(|(k, v)| {
            let pts = v
                .chunks(4)
                .map(|c| {
                    let at = |i: usize| c.get(i).copied().unwrap_or(c[0]);
                    (at(0), at(1), at(2), at(3))
                })
                .collect();
            (format!("s{k}"), pts)
        })
        .collect();
    ok(charts::lines_with_bands(
        &dir.join("bands"),
        "t",
        "x",
        "y",
        &[],
        &bands,
    ))?;
    let cats: Vec<String> = vec!["a".into(), "b".into()];
    ok(charts::lines_with_bands(
        &dir.join("bands-cat"),
        "t",
        "x",
        "y",
        &cats,
        &bands,
    ))?;
    let rows: Vec<ClaimRow> = values
        .iter()
        .flat_map(|v| v.chunks(5))
        .map(|c| {
            let at = |i: usize| c.get(i).copied().unwrap_or(c[0]);
            ClaimRow {
                label: "claim".into(),
                verdict: "differs".into(),
                paper: at(0),
                band: [at(1), at(2)],
                mean: Some(at(3)),
                ci: Some([at(4), at(0)]),
            }
        })
        .collect();
    ok(charts::claims(&dir.join("claims"), "t", &rows))
}

/// A flow whose every number is wild.
fn wild_flow(v: &[f64]) -> FlowData {
    let at = |i: usize| v[i % v.len()];
    let n = v.len();
    FlowData {
        name: "a".into(),
        stem: "a".into(),
        start_s: at(0),
        rtt_min_ms: Some(at(1)),
        rtt_mean_ms: Some(at(2)),
        recoveries: vec![
            Recovery {
                start_s: at(3),
                end_s: Some(at(4)),
                kind: "fast".into(),
            },
            Recovery {
                start_s: at(5),
                end_s: None,
                kind: "timeout".into(),
            },
        ],
        series: (0..n)
            .map(|i| SeriesRow {
                time_s: at(i),
                cwnd: at(i + 1),
                ssthresh: Some(at(i + 2)),
                pipe: at(i + 3),
                inflight: at(i + 4),
                srtt_ms: at(i + 5),
                rto_ms: at(i + 6),
                snd_una: i as u64 * 1448,
                snd_nxt: (i as u64 + 10) * 1448,
            })
            .collect(),
        data: (0..n)
            .map(|i| DataEvent {
                time_s: at(i + 1),
                fate: [Fate::Sent, Fate::LossDrop, Fate::Sent, Fate::QueueDrop][i % 4],
                seq: [0, 1448, u64::MAX - 10, 2896][i % 4],
                len: 1448,
                tx: 1 + (i % 3) as u32,
            })
            .collect(),
        acks: (0..n)
            .map(|i| AckEvent {
                time_s: at(i + 2),
                fate: Fate::Delivered,
                ack: [1448, 0, u64::MAX][i % 3],
                win: 65535,
                sack_from: 0,
                sack_len: 1,
                dsack: i % 2 == 0,
            })
            .collect(),
        sack_blocks: vec![(2896, u64::MAX)],
    }
}

fn draw_flow(dir: &Path, f: &FlowData, window: (f64, f64)) -> Result<(), String> {
    let (t0, t1) = window;
    ok(save(&series::cwnd("s", f, t0, t1), &dir.join("cwnd")))?;
    ok(save(&series::rtt("s", f, t0, t1), &dir.join("rtt")))?;
    let pic = tsg::Tsg {
        flow: f,
        scenario: "s",
        t0,
        t1,
        note: None,
    };
    ok(save(&pic, &dir.join("tsg")))?;
    // The window plot_run chooses from the data.
    let (t0, t1, note) = tsg::window(f, None, None, t1);
    let pic = tsg::Tsg {
        flow: f,
        scenario: "s",
        t0,
        t1,
        note,
    };
    ok(save(&pic, &dir.join("tsg-auto")))?;
    let (t0, t1) = series::time_range(f, None, None);
    ok(save(&series::cwnd("s", f, t0, t1), &dir.join("cwnd-auto")))
}

proptest! {
    // Each case draws a dozen pictures (SVG and PNG): few cases, no
    // shrinking (a hang would be waited for again at every step; the
    // inputs are short enough to read as they are).
    #![proptest_config(ProptestConfig {
        cases: 32,
        max_shrink_iters: 0,
        ..ProptestConfig::default()
    })]

    #[test]
    fn charts_of_any_numbers_are_drawn(values in wild_series()) {
        let dir = case_dir();
        let d = dir.clone();
        guarded(&format!("charts of {values:?}"), move || draw_charts(&d, &values));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_flow_of_any_numbers_is_drawn(
        v in proptest::collection::vec(wild(), 1..8),
        t0 in wild(),
        t1 in wild(),
    ) {
        let dir = case_dir();
        let d = dir.clone();
        let f = wild_flow(&v);
        guarded(&format!("flow pictures of {v:?}, window {t0:?}..{t1:?}"), move || {
            draw_flow(&d, &f, (t0, t1))
        });
        let _ = std::fs::remove_dir_all(dir);
    }
}

proptest! {
    // No drawing: thousands of cases take a fraction of a second.
    #![proptest_config(ProptestConfig {
        cases: 4000,
        max_shrink_iters: 0,
        ..ProptestConfig::default()
    })]

    /// The root of the hangs: every range `padded` makes is one plotters'
    /// tick search returns from, with a few ticks.
    #[test]
    fn every_padded_range_has_ticks(lo in wild(), hi in wild(), frac in wild()) {
        let (a, b) = padded(lo, hi, frac);
        prop_assert!(axis_range(a, b).is_ok(), "{lo:?}, {hi:?}, {frac:?} -> {a:?}..{b:?}");
        guarded(&format!("ticks of {a:?}..{b:?}"), move || {
            use plotters::coord::ranged1d::Ranged;
            use plotters::coord::types::RangedCoordf64;
            for n in [1, 5, 12] {
                // plotters may give a few more than asked (15 for 12 on
                // [2.2e-308, 5.2e-16]); what matters is that it returns.
                let ticks = RangedCoordf64::from(a..b).key_points(n);
                if ticks.len() > 2 * n + 2 {
                    return Err(format!("{} ticks for {n}", ticks.len()));
                }
            }
            Ok(())
        });
    }
}

#[test]
fn the_reported_ranges_are_drawn() {
    // The two reports: `inf` in timeseries.csv (the loader now refuses
    // it, but FlowData is public) and a sweep's CI of [-1e308, 1e308].
    let dir = case_dir();
    let d = dir.clone();
    guarded("an RTO of inf", move || {
        let mut f = wild_flow(&[0.08, 0.1, 0.2, 0.3]);
        f.series[2].rto_ms = f64::INFINITY;
        draw_flow(&d, &f, (0.0, 1.0))
    });
    let d = dir.clone();
    guarded("a CI of ±1e308", move || {
        let s: Vec<BandSeries> = vec![(
            "mean".into(),
            vec![(0.0, 5.0, -1e308, 1e308), (1.0, 6.0, 5.5, 6.5)],
        )];
        ok(charts::lines_with_bands(
            &d.join("b"),
            "t",
            "x",
            "y",
            &[],
            &s,
        ))
    });
    let _ = std::fs::remove_dir_all(dir);
}
