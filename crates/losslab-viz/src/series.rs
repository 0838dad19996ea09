//! Per-ACK state over time (timeseries.csv): cwnd/ssthresh/pipe and
//! srtt/RTO, with the recovery periods of summary.json shaded.

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::draw::*;
use crate::load::{FlowData, Recovery};
use crate::VizError;

const FAST_BAND: RGBColor = RGBColor(255, 238, 170);
const RTO_BAND: RGBColor = RGBColor(255, 205, 195);

pub(crate) struct Line {
    pub label: &'static str,
    pub colour: RGBColor,
    pub width: u32,
    /// (time, value), each holding until the next.
    pub samples: Vec<(f64, f64)>,
}

pub(crate) struct TimeLines<'a> {
    pub title: String,
    pub subtitle: String,
    pub y_desc: &'static str,
    pub lines: Vec<Line>,
    pub recoveries: &'a [Recovery],
    pub t0: f64,
    pub t1: f64,
}

/// The samples inside [t0, t1], starting with the value in force at t0.
/// A sample with a time or value that cannot be drawn (`plottable`) is
/// missing: the one before it holds on.
fn crop(samples: &[(f64, f64)], t0: f64, t1: f64) -> Vec<(f64, f64)> {
    let drawn: Vec<(f64, f64)> = samples
        .iter()
        .copied()
        .filter(|s| plottable(s.0) && plottable(s.1))
        .collect();
    let start = drawn.partition_point(|s| s.0 < t0);
    let mut out = Vec::new();
    if start > 0 {
        out.push((t0, drawn[start - 1].1));
    }
    out.extend(drawn[start..].iter().take_while(|s| s.0 <= t1));
    out
}

impl Picture for TimeLines<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), VizError> {
        let body = header(root, &self.title, &self.subtitle)?;
        let (x0, x1) = padded(self.t0, self.t1, 0.01);
        // The window as drawn: an end beyond the axis (one `padded`
        // ignored) would put samples thousands of millions of pixels away.
        let within = |t: f64, or: f64| if plottable(t) { t.clamp(x0, x1) } else { or };
        let (t0, t1) = (within(self.t0, x0), within(self.t1, x1));
        let lines: Vec<(&Line, Vec<(f64, f64)>)> = self
            .lines
            .iter()
            .map(|l| (l, crop(&l.samples, t0, t1)))
            .collect();
        let ymax = lines
            .iter()
            .flat_map(|(_, s)| s.iter().map(|p| p.1))
            .fold(0.0f64, f64::max);
        // Headroom for the legend in the upper right.
        let ymax = if ymax > 0.0 {
            (ymax * 1.3).max(MIN_WIDTH)
        } else {
            1.0
        };
        let mut chart = cartesian(&body, 84, axis_range(x0, x1)?, axis_range(0.0, ymax)?)?;
        let span = x1 - x0;
        mesh(&mut chart)
            .x_desc("time (s)")
            .y_desc(self.y_desc)
            .x_label_formatter(&|v| tick(*v, span))
            .y_label_formatter(&|v| tick(*v, ymax))
            .x_labels(12)
            .y_labels(10)
            .draw()?;

        let mut kinds: Vec<&str> = Vec::new();
        let bands = self
            .recoveries
            .iter()
            .filter(|r| r.start_s <= x1 && r.end_s.is_none_or(|e| e >= x0));
        for r in bands {
            let colour = if r.kind == "timeout" {
                RTO_BAND
            } else {
                FAST_BAND
            };
            let (s, e) = (r.start_s.max(x0), r.end_s.unwrap_or(x1).min(x1));
            chart.draw_series(std::iter::once(Rectangle::new(
                [(s, 0.0), (e, ymax)],
                colour.filled(),
            )))?;
            if !kinds.contains(&r.kind.as_str()) {
                kinds.push(&r.kind);
            }
        }

        // The first line is the main one: drawn last so that it stays on
        // top, but listed first in the legend.
        for (l, pts) in lines.iter().rev() {
            if pts.is_empty() {
                continue;
            }
            let col = |t: f64| chart.backend_coord(&(t, 0.0)).0;
            // Below the axis is off the picture: plotters does not clip,
            // and rasterises a line to the pixel, however far away.
            let pts: Vec<(f64, f64)> = pts.iter().map(|&(t, v)| (t, v.max(0.0))).collect();
            let pts = staircase(&m4(&pts, col), t1);
            chart.draw_series(LineSeries::new(pts, l.colour.stroke_width(l.width)))?;
        }
        for (l, pts) in &lines {
            if pts.is_empty() {
                continue;
            }
            let style = l.colour.stroke_width(l.width);
            chart
                .draw_series(std::iter::empty::<PathElement<(f64, f64)>>())?
                .label(l.label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], style));
        }
        for kind in kinds {
            let (colour, label) = if kind == "timeout" {
                (RTO_BAND, "RTO recovery (summary.json)")
            } else {
                (FAST_BAND, "fast recovery (summary.json)")
            };
            chart
                .draw_series(std::iter::empty::<Rectangle<(f64, f64)>>())?
                .label(label)
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 7), (x + 22, y + 7)], colour.filled())
                });
        }
        legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        Ok(())
    }
}

pub(crate) fn time_range(f: &FlowData, from: Option<f64>, to: Option<f64>) -> (f64, f64) {
    let first = f
        .series
        .first()
        .map_or(f.start_s, |r| r.time_s.min(f.start_s));
    let last = f.series.last().map_or(first + 1.0, |r| r.time_s);
    (from.unwrap_or(first), to.unwrap_or(last))
}

pub(crate) fn cwnd<'a>(scenario: &str, f: &'a FlowData, t0: f64, t1: f64) -> TimeLines<'a> {
    let s = &f.series;
    let max_cwnd = s.iter().map(|r| r.cwnd).fold(0.0, f64::max);
    TimeLines {
        title: format!("{scenario}: flow {} — congestion window", f.name),
        subtitle: format!(
            "{} ACKs processed, {} recoveries, max cwnd {max_cwnd} segments",
            s.len(),
            f.recoveries.len()
        ),
        y_desc: "segments",
        lines: vec![
            Line {
                label: "cwnd",
                colour: C_BLUE,
                width: 2,
                samples: s.iter().map(|r| (r.time_s, r.cwnd)).collect(),
            },
            Line {
                label: "ssthresh",
                colour: VERMILLION,
                width: 2,
                samples: s
                    .iter()
                    .filter_map(|r| r.ssthresh.map(|v| (r.time_s, v)))
                    .collect(),
            },
            Line {
                label: "pipe (RFC 6675)",
                colour: C_GREEN,
                width: 1,
                samples: s.iter().map(|r| (r.time_s, r.pipe)).collect(),
            },
        ],
        recoveries: &f.recoveries,
        t0,
        t1,
    }
}

pub(crate) fn rtt<'a>(scenario: &str, f: &'a FlowData, t0: f64, t1: f64) -> TimeLines<'a> {
    // srtt is 0 until the first RTT sample; that is "unknown", not zero.
    let sampled: Vec<_> = f.series.iter().filter(|r| r.srtt_ms > 0.0).collect();
    let rtt = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1} ms"));
    TimeLines {
        title: format!("{scenario}: flow {} — RTT estimate and RTO", f.name),
        subtitle: format!(
            "RTT samples: min {}, mean {}",
            rtt(f.rtt_min_ms),
            rtt(f.rtt_mean_ms)
        ),
        y_desc: "milliseconds",
        lines: vec![
            Line {
                label: "smoothed RTT (srtt)",
                colour: C_BLUE,
                width: 2,
                samples: sampled.iter().map(|r| (r.time_s, r.srtt_ms)).collect(),
            },
            Line {
                label: "RTO",
                colour: VERMILLION,
                width: 2,
                samples: sampled.iter().map(|r| (r.time_s, r.rto_ms)).collect(),
            },
        ],
        recoveries: &f.recoveries,
        t0,
        t1,
    }
}
