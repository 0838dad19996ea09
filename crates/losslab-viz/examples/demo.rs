//! Renders example pictures into a directory, for looking at them:
//! `cargo run --release -p losslab-viz --example demo -- OUT_DIR`.

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::PathBuf;
use std::time::Instant;

use losslab_viz::{charts, plot_run_report, PlotOptions};

fn main() {
    let out = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "viz-demo".into()));
    let runs = [
        ("three-drops", common::three_drops()),
        ("bulk-1pct", common::bulk_lossy(30)),
        ("big", common::big(24)),
        ("reordering", common::reordering()),
    ];
    for (name, sc) in runs {
        let dir = out.join(name);
        common::write_run(&dir, &sc, common::ALL);
        let t = Instant::now();
        let rep = plot_run_report(&dir, &PlotOptions::default()).unwrap();
        println!("{name}: {} files in {:.2?}", rep.files.len(), t.elapsed());
        for s in rep.skipped {
            println!("  skipped: {s}");
        }
    }
    let series = vec![
        (
            "rfc6675".to_string(),
            (1..200).map(|i| (i as f64).sqrt() * 10.0).collect(),
        ),
        (
            "prr".to_string(),
            (1..150).map(|i| (i as f64).ln() * 30.0).collect(),
        ),
    ];
    charts::cdf(
        &out.join("cdf"),
        "Recovery latency",
        "latency (ms)",
        &series,
    )
    .unwrap();
    let groups: Vec<String> = ["0.1%", "1%", "3%", "10%"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    // The big run again, with the whole flow in view (the worst case).
    let dir = out.join("big");
    let t = Instant::now();
    let full = PlotOptions {
        flow: None,
        from_s: Some(0.0),
        to_s: Some(24.0),
        ..Default::default()
    };
    let rep = plot_run_report(&dir, &full).unwrap();
    let n = std::fs::read_to_string(dir.join("packets.csv"))
        .unwrap()
        .lines()
        .count();
    println!(
        "big, whole flow ({n} packet rows): {} files in {:.2?}",
        rep.files.len(),
        t.elapsed()
    );
    for f in &rep.files {
        println!(
            "  {} {} bytes",
            f.display(),
            std::fs::metadata(f).unwrap().len()
        );
    }
    std::fs::rename(dir.join("plots"), out.join("big-full-plots")).ok();
    plot_run_report(&dir, &PlotOptions::default()).unwrap();

    // The same three-drop run, zoomed on its recovery.
    let dir = out.join("three-drops-zoom");
    common::write_run(&dir, &common::three_drops(), common::ALL);
    let opts = PlotOptions {
        flow: None,
        from_s: Some(0.08),
        to_s: Some(0.25),
        ..Default::default()
    };
    plot_run_report(&dir, &opts).unwrap();
    let series = vec![
        ("rfc6675".to_string(), vec![9.5, 8.1, 5.0, 1.2]),
        ("prr".to_string(), vec![9.6, 8.6, 6.1, 1.9]),
        ("rate-halving".to_string(), vec![9.4, 7.9, 4.8, 1.0]),
    ];
    charts::grouped_bars(
        &out.join("bars"),
        "Goodput by loss rate",
        "goodput (Mbit/s)",
        &groups,
        &series,
    )
    .unwrap();
}
