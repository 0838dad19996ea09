//! plot_run and the charts on run directories made by real simulations.

mod common;

use std::collections::HashSet;
use std::fs::File;
use std::path::{Path, PathBuf};

use common::*;
use losslab_sim::scenario::*;
use losslab_viz::{charts, load_run, plot_run, plot_run_report, PlotOptions};

/// Decodes a PNG; returns (width, height, distinct colours).
fn decode_png(p: &Path) -> (u32, u32, usize) {
    let decoder = png::Decoder::new(File::open(p).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let bpp = info.color_type.samples()
        * if info.bit_depth == png::BitDepth::Sixteen {
            2
        } else {
            1
        };
    let colours: HashSet<&[u8]> = buf[..info.buffer_size()].chunks(bpp).collect();
    (info.width, info.height, colours.len())
}

/// A light well-formedness check: one root element, balanced text
/// elements, no stray markup; returns the text.
fn read_svg(p: &Path) -> String {
    let s = std::fs::read_to_string(p).unwrap();
    assert!(s.starts_with("<svg"), "{}", p.display());
    assert!(s.trim_end().ends_with("</svg>"), "{}", p.display());
    assert_eq!(s.matches("<svg").count(), 1);
    assert_eq!(s.matches("<text").count(), s.matches("</text>").count());
    assert_eq!(s.matches('<').count(), s.matches('>').count());
    s
}

fn check_picture(base: &Path, want_in_svg: &[&str], size: (u32, u32)) {
    let png = PathBuf::from(format!("{}.png", base.display()));
    let svg = PathBuf::from(format!("{}.svg", base.display()));
    let (w, h, colours) = decode_png(&png);
    assert_eq!((w, h), size, "{}", png.display());
    assert!(colours > 8, "{} has {colours} colours", png.display());
    let text = read_svg(&svg);
    for want in want_in_svg {
        assert!(text.contains(want), "{} lacks {want:?}", svg.display());
    }
}

#[test]
fn a_traced_run_gets_all_three_pictures() {
    let dir = scratch("all");
    write_run(&dir, &three_drops(), ALL);
    let report = plot_run_report(&dir, &PlotOptions::default()).unwrap();
    assert!(report.skipped.is_empty(), "{:?}", report.skipped);
    let plots = dir.join("plots");
    let mut want: Vec<PathBuf> = ["tsg-a", "cwnd-a", "rtt-a"]
        .iter()
        .flat_map(|n| ["svg", "png"].map(|e| plots.join(format!("{n}.{e}"))))
        .collect();
    let mut got = report.files.clone();
    want.sort();
    got.sort();
    assert_eq!(got, want);
    check_picture(
        &plots.join("tsg-a"),
        &[
            "three-drops: flow a — time-sequence graph at the sender",
            "retransmission",
            "snd.una",
            "SACK block",
            "dropped by the loss model",
            "fast retransmit",
            "recovery ends",
            "3 retransmissions, 3 dropped",
        ],
        (1400, 860),
    );
    check_picture(
        &plots.join("cwnd-a"),
        &["congestion window", "ssthresh", "fast recovery"],
        (1280, 800),
    );
    check_picture(
        &plots.join("rtt-a"),
        &["RTT estimate and RTO", "smoothed RTT"],
        (1280, 800),
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn load_run_reads_every_file() {
    let dir = scratch("load");
    write_run(&dir, &three_drops(), ALL);
    let run = load_run(&dir).unwrap();
    assert_eq!(run.scenario, "three-drops");
    assert!(run.has_packets() && run.has_timeseries());
    let f = run.flow("a").unwrap();
    assert_eq!(f.recoveries.len(), 1);
    assert!(f.recoveries[0].end_s.is_some());
    let drops: Vec<u64> = f
        .data
        .iter()
        .filter(|d| d.fate.is_drop())
        .map(|d| d.seq / 1448)
        .collect();
    assert_eq!(drops, vec![39, 41, 43]);
    assert!(f.acks.iter().any(|a| f.sack_of(a).len() == 3));
    assert!(!f.series.is_empty());
    assert!(f.series.iter().any(|r| r.ssthresh.is_none()));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn one_flow_and_a_time_window() {
    // count = 2 gives flows x.1 and x.2: dotted names must survive as
    // file names.
    let mut f = FlowSpec::new("x");
    f.app = AppSpec::Bytes(200 * 1448);
    f.count = 2;
    let loss = LossModel::Drop {
        flow: "x.2".into(),
        which: DropSpec::Segments(vec![30]),
    };
    let dir = scratch("one-flow");
    write_run(
        &dir,
        &scenario("two", 20, path(10_000_000, 20, loss), vec![f]),
        ALL,
    );
    let opts = PlotOptions {
        flow: Some("x.2".into()),
        from_s: Some(0.05),
        to_s: Some(0.3),
        ..Default::default()
    };
    let files = plot_run(&dir, &opts).unwrap();
    let names: HashSet<String> = files
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let want: HashSet<String> = ["tsg-x.2", "cwnd-x.2", "rtt-x.2"]
        .iter()
        .flat_map(|n| [format!("{n}.svg"), format!("{n}.png")])
        .collect();
    assert_eq!(names, want);
    // The window is the x axis: no tick outside it.
    let svg = read_svg(&dir.join("plots/tsg-x.2.svg"));
    assert!(svg.contains("flow x.2"));
    assert!(
        svg.contains(">\n0.10\n<") || svg.contains(">0.10<"),
        "ticks of a 0.25 s window"
    );

    let err = plot_run(
        &dir,
        &PlotOptions {
            flow: Some("y".into()),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(
        err.0.contains("\"y\"") && err.0.contains("x.1, x.2"),
        "{err}"
    );

    let err = plot_run(
        &dir,
        &PlotOptions {
            from_s: Some(2.0),
            to_s: Some(1.0),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(err.0.contains("empty time window"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn missing_files_are_named_with_the_flag_that_writes_them() {
    let dir = scratch("missing");
    let err = plot_run(&dir, &PlotOptions::default()).unwrap_err();
    assert!(err.0.contains("summary.json"), "{err}");
    assert!(err.to_string().contains(&dir.display().to_string()));

    // Without packets.csv: cwnd and RTT only, and the skip says why.
    write_run(
        &dir,
        &three_drops(),
        Files {
            timeseries: true,
            packets: false,
        },
    );
    let r = plot_run_report(&dir, &PlotOptions::default()).unwrap();
    assert_eq!(r.files.len(), 4);
    assert!(!r.files.iter().any(|p| p.to_string_lossy().contains("tsg-")));
    assert_eq!(r.skipped.len(), 1);
    assert!(
        r.skipped[0].contains("packets.csv") && r.skipped[0].contains("--trace"),
        "{:?}",
        r.skipped
    );

    // Without timeseries.csv: the TSG only.
    let dir2 = scratch("missing2");
    write_run(
        &dir2,
        &three_drops(),
        Files {
            timeseries: false,
            packets: true,
        },
    );
    let r = plot_run_report(&dir2, &PlotOptions::default()).unwrap();
    assert_eq!(r.files.len(), 2);
    assert!(r.skipped[0].contains("timeseries.csv") && r.skipped[0].contains("--timeseries"));

    // Neither: an error naming both.
    std::fs::remove_file(dir2.join("packets.csv")).unwrap();
    let err = plot_run(&dir2, &PlotOptions::default()).unwrap_err();
    assert!(err.0.contains("nothing to plot"), "{err}");
    assert!(
        err.0.contains("--trace") && err.0.contains("--timeseries"),
        "{err}"
    );

    // A damaged file is an error naming file and line.
    std::fs::write(
        dir2.join("packets.csv"),
        "time_s,flow,dir,event,seq,len,tx,ack,win,sack,dsack\n0.1,a,data,sent,0,1448,1,,,,\n0.2,a,data,sent,x,1448,1,,,,\n",
    )
    .unwrap();
    let err = plot_run(&dir2, &PlotOptions::default()).unwrap_err();
    assert!(
        err.0.contains("packets.csv:3") && err.0.contains("seq"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&dir2);
}

#[test]
fn a_long_flow_is_zoomed_on_its_first_recovery_by_default() {
    let dir = scratch("long");
    write_run(&dir, &big(4), ALL);
    let run = load_run(&dir).unwrap();
    let f = &run.flows[0];
    let sent = f
        .data
        .iter()
        .filter(|d| d.fate == losslab_viz::Fate::Sent)
        .count();
    assert!(sent > 20_000, "{sent} data packets");
    assert!(!f.recoveries.is_empty());
    let t = std::time::Instant::now();
    plot_run(&dir, &PlotOptions::default()).unwrap();
    eprintln!("{sent} data packets plotted in {:.2?}", t.elapsed());
    let svg = read_svg(&dir.join("plots/tsg-big.svg"));
    assert!(svg.contains("zoomed to the first recovery"));
    assert!(svg.contains("fast retransmit"));

    // The whole flow on request: marks are thinned to what the pixels
    // show, so the SVG stays small.
    let opts = PlotOptions {
        from_s: Some(0.0),
        ..Default::default()
    };
    plot_run(&dir, &opts).unwrap();
    let svg = read_svg(&dir.join("plots/tsg-big.svg"));
    assert!(!svg.contains("zoomed"));
    assert!(svg.len() < 3_000_000, "{} bytes", svg.len());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn charts_write_svg_and_png() {
    let dir = scratch("charts");
    let series = vec![
        ("a".to_string(), (0..500).map(|i| (i % 97) as f64).collect()),
        ("b".to_string(), vec![3.0, 1.0, f64::NAN, 2.0, 2.0]),
        ("empty".to_string(), vec![]),
    ];
    let files = charts::cdf(&dir.join("cdf"), "CDF title", "latency (ms)", &series).unwrap();
    assert_eq!(files, vec![dir.join("cdf.svg"), dir.join("cdf.png")]);
    check_picture(
        &dir.join("cdf"),
        &["CDF title", "latency (ms)", "a (n=500)", "b (n=4)"],
        (1100, 720),
    );

    let groups: Vec<String> = ["g1", "g2", "g3"].iter().map(|s| s.to_string()).collect();
    let series = vec![
        ("s1".to_string(), vec![1.0, 2.0, 3.0]),
        ("s2".to_string(), vec![2.5, f64::NAN, 0.5]),
    ];
    let files =
        charts::grouped_bars(&dir.join("bars"), "Bars title", "goodput", &groups, &series).unwrap();
    assert_eq!(files.len(), 2);
    check_picture(
        &dir.join("bars"),
        &["Bars title", "goodput", "g1", "g3", "s2"],
        (1100, 720),
    );

    // Degenerate inputs still draw something.
    charts::cdf(&dir.join("cdf-empty"), "nothing", "x", &[]).unwrap();
    charts::grouped_bars(
        &dir.join("bars-zero"),
        "zeros",
        "y",
        &groups,
        &[("z".into(), vec![0.0; 3])],
    )
    .unwrap();
    let err = charts::cdf(&dir.join("no/such/dir/cdf"), "t", "x", &series).unwrap_err();
    assert!(err.0.contains("no/such/dir"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `losslab linux --compare` leaves Linux's timeseries.csv and the
/// simulated twin's sim-timeseries.csv; the overlay draws both (here the
/// same simulated series twice, under the two names) with a legend entry
/// each, and names a file that lacks the flow.
#[test]
fn linux_overlay_draws_both_series() {
    let dir = scratch("overlay");
    write_run(&dir, &three_drops(), ALL);
    std::fs::copy(dir.join("timeseries.csv"), dir.join("sim-timeseries.csv")).unwrap();
    let out = dir.join("plots");
    let files = losslab_viz::linux_overlay(&dir, "a", &out).unwrap();
    assert_eq!(files.len(), 4, "{files:?}");
    for name in ["overlay-cwnd-a", "overlay-pacing-a"] {
        check_picture(
            &out.join(name),
            &["Linux (TCP_INFO)", "simulator"],
            (1280, 800),
        );
    }
    let e = losslab_viz::linux_overlay(&dir, "zz", &out).unwrap_err();
    assert!(e.0.contains("flow zz has no rows"), "{}", e.0);
}

/// Runs `f` in a thread and fails when it does not return: the old
/// loader handed `inf` on to plotters, whose tick search never returned.
/// The limit only guards against that hang.
fn within_a_minute<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(f()));
    rx.recv_timeout(std::time::Duration::from_secs(120))
        .expect("hangs (or panicked)")
}

#[test]
fn a_number_that_is_not_finite_is_bad_input_naming_file_line_and_column() {
    let dir = scratch("inf");
    write_run(
        &dir,
        &three_drops(),
        Files {
            timeseries: true,
            packets: false,
        },
    );
    let ts = dir.join("timeseries.csv");
    let clean = std::fs::read_to_string(&ts).unwrap();
    // Each of the drawn columns, as the report found, and the spellings
    // Rust parses as infinite or NaN.
    for (col, value) in [
        (2, "inf"),
        (3, "-inf"),
        (4, "NaN"),
        (6, "infinity"),
        (7, "1e999"),
        (0, "nan"),
    ] {
        let mut lines: Vec<String> = clean.lines().map(String::from).collect();
        let mut fields: Vec<&str> = lines[63].split(',').collect();
        fields[col] = value;
        lines[63] = fields.join(",");
        std::fs::write(&ts, lines.join("\n") + "\n").unwrap();
        let d = dir.clone();
        let err = within_a_minute(move || plot_run(&d, &PlotOptions::default())).expect_err(value);
        let name = clean.lines().next().unwrap().split(',').nth(col).unwrap();
        assert!(
            err.0.contains("timeseries.csv:64:")
                && err.0.contains(&format!("column {name}:"))
                && err.0.contains("not a finite number"),
            "{value} in {name}: {err}"
        );
    }
    // packets.csv too.
    std::fs::write(&ts, &clean).unwrap();
    write_run(
        &dir,
        &three_drops(),
        Files {
            timeseries: false,
            packets: true,
        },
    );
    let pk = dir.join("packets.csv");
    let text = std::fs::read_to_string(&pk).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let bad = format!("inf{}", &lines[9][lines[9].find(',').unwrap()..]);
    lines[9] = &bad;
    std::fs::write(&pk, lines.join("\n") + "\n").unwrap();
    let d = dir.clone();
    let err = within_a_minute(move || load_run(&d)).unwrap_err();
    assert!(
        err.0.contains("packets.csv:10:") && err.0.contains("column time_s:"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn flows_whose_names_clash_as_files_get_pictures_each() {
    // The parser accepts all three names; `a/` becomes `a_`, whose old
    // clash suffix made `a_-2`, flow 0's name: flow 2's pictures
    // overwrote flow 0's. The stems are the pcaps' (losslab-sim).
    let flows: Vec<FlowSpec> = ["a_-2", "a_", "a/"]
        .into_iter()
        .map(|n| {
            let mut f = FlowSpec::new(n);
            f.app = AppSpec::Bytes(60 * 1448);
            f
        })
        .collect();
    let dir = scratch("clash");
    write_run(
        &dir,
        &scenario("clash", 5, path(10_000_000, 20, LossModel::None), flows),
        ALL,
    );
    let files = plot_run(&dir, &PlotOptions::default()).unwrap();
    let names: Vec<String> = files
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let want: Vec<String> = ["a_-2", "a_", "a_-2-2"]
        .iter()
        .flat_map(|stem| {
            ["tsg", "cwnd", "rtt"]
                .iter()
                .flat_map(move |k| ["svg", "png"].map(|e| format!("{k}-{stem}.{e}")))
        })
        .collect();
    assert_eq!(names, want);
    let on_disk = std::fs::read_dir(dir.join("plots")).unwrap().count();
    assert_eq!(on_disk, 18);
    // Flow 2's title is in flow 2's file.
    assert!(read_svg(&dir.join("plots/tsg-a_-2-2.svg")).contains("flow a/"));
    // One flow alone keeps the name it has among all.
    let out = dir.join("one");
    let opts = PlotOptions {
        flow: Some("a/".into()),
        out: Some(out.clone()),
        ..Default::default()
    };
    plot_run(&dir, &opts).unwrap();
    assert!(out.join("tsg-a_-2-2.svg").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
