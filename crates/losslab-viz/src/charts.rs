//! Generic charts for reproductions of papers' figures. Each writes
//! `<path>.svg` and `<path>.png` and returns both paths.
//!
//! Legends are drawn in lines of their own above the plot (`legend_row`),
//! never inside it, so that they cannot cover data; a series' swatch is
//! drawn by the same routine, with the same colour, width and dash
//! pattern, as its line.

use std::path::{Path, PathBuf};

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::draw::*;
use crate::VizError;

/// A CDF's x axis turns logarithmic when its values span more than this
/// factor: a linear axis then squeezes all but the tail into a few pixels.
const LOG_ABOVE: f64 = 100.0;
/// At most this many labelled ticks on a log axis.
const MAX_LOG_TICKS: usize = 12;

/// Whether a CDF of values in `[lo, hi]` gets a log x axis: all positive
/// (a log axis has no 0) and spanning more than `LOG_ABOVE`.
pub(crate) fn use_log_x(lo: f64, hi: f64) -> bool {
    lo > 0.0 && lo.is_finite() && hi.is_finite() && hi / lo > LOG_ABOVE
}

/// `m` × 10^`k`, rounded once (10^-3 is not exact in binary, 1/10^3 is
/// the nearest double to 0.001).
fn times_ten_to(m: f64, k: i32) -> f64 {
    if k >= 0 {
        m * 10f64.powi(k)
    } else {
        m / 10f64.powi(-k)
    }
}

/// Ticks for a log axis over `[lo, hi]`: 1, 2, 5 per decade while they
/// are few enough to label, else powers of ten, else every n-th power.
pub(crate) fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo > 0.0 && hi > lo && hi.is_finite()) {
        return Vec::new();
    }
    let (k0, k1) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let inside = |v: &f64| *v >= lo * (1.0 - 1e-9) && *v <= hi * (1.0 + 1e-9);
    for mults in [&[1.0, 2.0, 5.0][..], &[1.0][..]] {
        let t: Vec<f64> = (k0..=k1)
            .flat_map(|k| mults.iter().map(move |&m| times_ten_to(m, k)))
            .filter(inside)
            .collect();
        if t.len() <= MAX_LOG_TICKS {
            return t;
        }
    }
    let step = (k1 - k0 + MAX_LOG_TICKS as i32 - 1) / MAX_LOG_TICKS as i32;
    (k0..=k1)
        .filter(|k| k.rem_euclid(step) == 0)
        .map(|k| times_ten_to(1.0, k))
        .filter(inside)
        .collect()
}

/// A log tick's label: plain decimals from 0.0001 to 100000 (0.002, 50,
/// 1000), `2e6` style beyond.
pub(crate) fn log_tick_label(v: f64) -> String {
    if !(v.is_finite() && v > 0.0) {
        return String::new();
    }
    // The tick values are m × 10^k; the epsilon keeps 1000 from reading
    // as 999.99... × 10^2.
    let k = (v.log10() + 1e-9).floor() as i32;
    if (-4..=5).contains(&k) {
        let d = (-k).max(0) as usize;
        format!("{v:.d$}")
    } else {
        let m = (v / times_ten_to(1.0, k) * 100.0).round() / 100.0;
        if m == 1.0 {
            format!("1e{k}")
        } else {
            format!("{m}e{k}")
        }
    }
}

/// Pads `[lo, hi]` by `frac` of its width in log space; None when the
/// padded range is no log axis: an end that underflows to a subnormal or
/// 0 (no logarithm) or overflows.
fn log_padded(lo: f64, hi: f64, frac: f64) -> Option<(f64, f64)> {
    let (a, b) = (lo.log10(), hi.log10());
    let d = (b - a) * frac;
    let (x0, x1) = (10f64.powf(a - d), 10f64.powf(b + d));
    (x0 >= f64::MIN_POSITIVE && x1.is_finite() && x1 > x0).then_some((x0, x1))
}

struct Cdf<'a> {
    title: &'a str,
    x_label: &'a str,
    series: Vec<(&'a str, Vec<f64>)>,
}

impl Cdf<'_> {
    /// Axes and lines over an x axis that is linear or logarithmic.
    fn plot<DB: DrawingBackend, X>(
        &self,
        body: &DrawingArea<DB, Shift>,
        x: X,
        (x0, x1): (f64, f64),
        x_desc: &str,
        x_fmt: &dyn Fn(&f64) -> String,
        x_labels: usize,
    ) -> Result<(), VizError>
    where
        X: AsRangedCoord<Value = f64>,
        X::CoordDescType: ValueFormatter<f64>,
    {
        let mut chart = cartesian(body, 72, x, axis_range(0.0, 1.0)?)?;
        mesh(&mut chart)
            .x_desc(x_desc)
            .y_desc("fraction ≤ x (CDF)")
            .x_label_formatter(x_fmt)
            .y_label_formatter(&|v| format!("{v:.1}"))
            .x_labels(x_labels)
            .y_labels(11)
            .draw()?;
        for (k, (_, v)) in self.series.iter().enumerate() {
            if v.is_empty() {
                continue;
            }
            let total = v.len() as f64;
            // The empirical CDF steps up by 1/n at each value; ties collapse
            // into one step. It starts at the axis' lower bound, which on a
            // log axis is above 0.
            let mut pts = vec![(x0, 0.0)];
            for (i, &x) in v.iter().enumerate() {
                if i + 1 < v.len() && v[i + 1] == x {
                    continue;
                }
                let below = pts.last().map_or(0.0, |p| p.1);
                pts.push((x, below));
                pts.push((x, (i + 1) as f64 / total));
            }
            pts.push((x1, 1.0));
            let pts = dedup_pixels(pts, |p| chart.as_coord_spec().translate(p));
            draw_line(&chart, &pts, Stroke::series(k))?;
        }
        Ok(())
    }
}

impl Picture for Cdf<'_> {
    fn size(&self) -> (u32, u32) {
        (1100, 720)
    }
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), VizError> {
        let n: usize = self.series.iter().map(|s| s.1.len()).sum();
        let body = header(root, self.title, &format!("{n} values"))?;
        let entries: Vec<Entry> = self
            .series
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.1.is_empty())
            .map(|(k, (name, v))| Entry {
                label: format!("{name} (n={})", v.len()),
                swatch: Swatch::Line(Stroke::series(k)),
            })
            .collect();
        let body = legend_row(&body, &entries)?;
        let lo = self
            .series
            .iter()
            .filter_map(|s| s.1.first())
            .fold(f64::INFINITY, |a, &b| a.min(b));
        let hi = self
            .series
            .iter()
            .filter_map(|s| s.1.last())
            .fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        let log = use_log_x(lo, hi)
            .then(|| log_padded(lo, hi, 0.02))
            .flatten();
        if let Some((x0, x1)) = log {
            let ticks = log_ticks(x0, x1);
            let count = ticks.len();
            self.plot(
                &body,
                axis_range(x0, x1)?.log_scale().with_key_points(ticks),
                (x0, x1),
                &format!("{} (log scale)", self.x_label),
                &|v| log_tick_label(*v),
                count,
            )
        } else {
            let (x0, x1) = padded(lo, hi, 0.02);
            let span = x1 - x0;
            self.plot(
                &body,
                axis_range(x0, x1)?,
                (x0, x1),
                self.x_label,
                &|v| tick(*v, span),
                12,
            )
        }
    }
}

/// One empirical CDF line per series (NaN, infinite values and those
/// beyond ±1e300 are ignored). The x axis is logarithmic when all values are positive and
/// the largest is more than 100 times the smallest, linear otherwise.
pub fn cdf(
    path_without_ext: &Path,
    title: &str,
    x_label: &str,
    series: &[(String, Vec<f64>)],
) -> Result<Vec<PathBuf>, VizError> {
    let series = series
        .iter()
        .map(|(name, v)| {
            let mut v: Vec<f64> = v.iter().copied().filter(|&x| plottable(x)).collect();
            v.sort_by(f64::total_cmp);
            (name.as_str(), v)
        })
        .collect();
    save(
        &Cdf {
            title,
            x_label,
            series,
        },
        path_without_ext,
    )
}

/// What `grouped_bars_with` draws. `Default` gives empty strings and
/// slices, so a call names only what it has:
/// `BarsSpec { title, x_label, y_label, groups, series, ..Default::default() }`.
#[derive(Clone, Copy, Debug, Default)]
pub struct BarsSpec<'a> {
    pub title: &'a str,
    /// Under the title; when empty and there are error bars, it says what
    /// the whiskers are.
    pub subtitle: &'a str,
    /// The x axis' title: what the groups are. Empty draws "group".
    pub x_label: &'a str,
    pub y_label: &'a str,
    /// The groups' names, left to right.
    pub groups: &'a [String],
    /// `series[k].1[g]` is series k's value in group g; missing or
    /// non-finite values (and those beyond ±1e300) draw no bar.
    pub series: &'a [(String, Vec<f64>)],
    /// `ci[k][g]` is the 95% confidence interval `[lo, hi]` of
    /// `series[k].1[g]`, drawn as a whisker on its bar. Missing or
    /// non-finite entries, or beyond ±1e300, (and bars that are not
    /// drawn) get none; empty for no whiskers at all.
    pub ci: &'a [Vec<[f64; 2]>],
}

impl BarsSpec<'_> {
    /// The interval on series k's bar in group g, if it has one.
    fn whisker(&self, k: usize, g: usize) -> Option<[f64; 2]> {
        let v = *self.series.get(k)?.1.get(g)?;
        let [a, b] = *self.ci.get(k)?.get(g)?;
        (plottable(v) && plottable(a) && plottable(b)).then(|| [a.min(b), a.max(b)])
    }
}

struct Bars<'a>(BarsSpec<'a>);

impl Picture for Bars<'_> {
    fn size(&self) -> (u32, u32) {
        (1100, 720)
    }
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), VizError> {
        let s = &self.0;
        let ng = s.groups.len().max(1);
        let whiskers: Vec<(usize, usize, [f64; 2])> = (0..s.series.len())
            .flat_map(|k| (0..ng).filter_map(move |g| s.whisker(k, g).map(|w| (k, g, w))))
            .collect();
        let subtitle = match (s.subtitle, whiskers.is_empty()) {
            ("", false) => "whiskers: 95% confidence intervals",
            (t, _) => t,
        };
        let body = header(root, s.title, subtitle)?;
        let mut entries: Vec<Entry> = s
            .series
            .iter()
            .enumerate()
            .map(|(k, (name, _))| Entry {
                label: name.clone(),
                swatch: Swatch::Fill(SERIES[k % SERIES.len()]),
            })
            .collect();
        if !whiskers.is_empty() {
            entries.push(Entry {
                label: "95% confidence interval".into(),
                swatch: Swatch::ErrorBar(INK),
            });
        }
        // The legend has lines of its own above the chart: the plotting
        // area below it holds every bar and whisker (the y range covers
        // them all), so nothing can lie under the legend.
        let body = legend_row(&body, &entries)?;
        let values = s.series.iter().flat_map(|s| s.1.iter().copied());
        let values: Vec<f64> = values
            .chain(whiskers.iter().flat_map(|w| w.2))
            .filter(|&v| plottable(v))
            .collect();
        let hi = values.iter().copied().fold(0.0f64, f64::max);
        let lo = values.iter().copied().fold(0.0f64, f64::min);
        // Bars stand on 0, so the axis starts there unless some go below.
        let (y0, y1) = if hi > lo {
            padded(lo, hi, 0.08)
        } else {
            (0.0, 1.0)
        };
        let y0 = if lo < 0.0 { y0 } else { 0.0 };
        let mut chart = cartesian(&body, 84, axis_range(0.0, ng as f64)?, axis_range(y0, y1)?)?;
        let yspan = y1 - y0;
        let x_desc = if s.x_label.is_empty() {
            "group"
        } else {
            s.x_label
        };
        mesh(&mut chart)
            .disable_x_mesh()
            .x_desc(x_desc)
            .y_desc(s.y_label)
            // Group names are drawn below, at the group centres.
            .x_labels(0)
            .y_label_formatter(&|v| tick(*v, yspan))
            .y_labels(10)
            .draw()?;
        let name_style = TextStyle::from((FONT, TICK_SIZE + 1).into_font())
            .color(&INK)
            .pos(Pos::new(HPos::Center, VPos::Top));
        for (g, name) in s.groups.iter().enumerate() {
            let (x, y) = chart.backend_coord(&(g as f64 + 0.5, y0));
            root.draw(&Text::new(name.as_str(), (x, y + 10), name_style.clone()))?;
        }
        let ns = s.series.len().max(1);
        // Each group spans [g, g+1): 80% for the bars, 10% air each side.
        let width = 0.8 / ns as f64;
        let left = |k: usize, g: usize| g as f64 + 0.1 + k as f64 * width;
        for (k, (_, v)) in s.series.iter().enumerate() {
            let colour = SERIES[k % SERIES.len()];
            let bars = v
                .iter()
                .enumerate()
                .take(ng)
                .filter(|(_, &y)| plottable(y))
                .map(|(g, &y)| {
                    let x = left(k, g);
                    Rectangle::new([(x, 0.0), (x + width * 0.92, y)], colour.filled())
                });
            chart.draw_series(bars)?;
        }
        // After all bars, so that no neighbour covers a cap.
        for &(k, g, [a, b]) in &whiskers {
            let (xl, _) = chart.backend_coord(&(left(k, g), 0.0));
            let (xr, _) = chart.backend_coord(&(left(k, g) + width * 0.92, 0.0));
            let (x, ya) = chart.backend_coord(&(left(k, g) + width * 0.46, a));
            let (_, yb) = chart.backend_coord(&(0.0, b));
            let half = ((xr - xl) / 4).clamp(3, 10);
            v_whisker(root, x, (yb, ya), half, INK)?;
        }
        Ok(())
    }
}

/// Groups along x, one bar per series in each group (`series[k].1[g]` is
/// series k's value in group g; missing or non-finite values draw no bar).
/// The x axis is titled "group": new callers should use
/// [`grouped_bars_with`], which takes the x axis' title and error bars.
pub fn grouped_bars(
    path_without_ext: &Path,
    title: &str,
    y_label: &str,
    groups: &[String],
    series: &[(String, Vec<f64>)],
) -> Result<Vec<PathBuf>, VizError> {
    grouped_bars_with(
        path_without_ext,
        &BarsSpec {
            title,
            y_label,
            groups,
            series,
            ..Default::default()
        },
    )
}

/// Grouped bars as [`grouped_bars`], with an x axis title and optional
/// 95% CI whiskers (see [`BarsSpec`]).
pub fn grouped_bars_with(
    path_without_ext: &Path,
    spec: &BarsSpec,
) -> Result<Vec<PathBuf>, VizError> {
    save(&Bars(*spec), path_without_ext)
}

/// One series of `lines_with_bands`: a name and points (x position, mean,
/// CI low, CI high); a band is drawn where both bounds are finite.
pub type BandSeries = (String, Vec<(f64, f64, f64, f64)>);

struct Bands<'a> {
    title: &'a str,
    x_label: &'a str,
    y_label: &'a str,
    /// Tick labels at x = 0, 1, ... for a categorical axis; empty for a
    /// numeric one.
    categories: &'a [String],
    series: &'a [BandSeries],
}

impl Picture for Bands<'_> {
    fn size(&self) -> (u32, u32) {
        (1100, 720)
    }
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), VizError> {
        let body = header(
            root,
            self.title,
            "lines: mean over the seeds; bands: 95% CI",
        )?;
        let entries: Vec<Entry> = self
            .series
            .iter()
            .enumerate()
            .map(|(k, (name, _))| Entry {
                label: name.clone(),
                swatch: Swatch::LineMarker(Stroke::series(k)),
            })
            .collect();
        let body = legend_row(&body, &entries)?;
        let pts = || self.series.iter().flat_map(|s| s.1.iter());
        let (x0, x1) = if self.categories.is_empty() {
            let xs = pts().map(|p| p.0).filter(|&x| plottable(x));
            let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
                (a.min(x), b.max(x))
            });
            padded(lo, hi, 0.04)
        } else {
            (-0.5, self.categories.len() as f64 - 0.5)
        };
        // A point off the x axis (not plottable, or no category's) is
        // missing: plotters' own pixel arithmetic overflows on values far
        // outside its range.
        let shown = |x: f64| plottable(x) && x >= x0 && x <= x1;
        let ys: Vec<f64> = pts()
            .filter(|p| shown(p.0))
            .flat_map(|p| [p.1, p.2, p.3])
            .filter(|&v| plottable(v))
            .collect();
        let lo = ys.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = ys.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let (y0, y1) = if lo.is_finite() && hi > lo {
            padded(lo.min(0.0), hi, 0.06)
        } else if lo.is_finite() {
            (lo.min(0.0), lo.abs().max(1.0) * 1.1)
        } else {
            (0.0, 1.0)
        };
        let mut chart = cartesian(&body, 84, axis_range(x0, x1)?, axis_range(y0, y1)?)?;
        let (xspan, yspan) = (x1 - x0, y1 - y0);
        let cats = self.categories;
        let x_fmt = move |v: &f64| {
            if cats.is_empty() {
                tick(*v, xspan)
            } else {
                let i = v.round();
                if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < cats.len() {
                    cats[i as usize].clone()
                } else {
                    String::new()
                }
            }
        };
        mesh(&mut chart)
            .x_desc(self.x_label)
            .y_desc(self.y_label)
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&|v| tick(*v, yspan))
            .x_labels(if cats.is_empty() {
                12
            } else {
                cats.len() * 2 + 1
            })
            .y_labels(10)
            .draw()?;
        let area = chart.plotting_area().strip_coord_spec();
        let base = area.get_base_pixel();
        for (k, (_, p)) in self.series.iter().enumerate() {
            let stroke = Stroke::series(k);
            let colour = stroke.colour;
            // A point with a coordinate that cannot be drawn is missing.
            let banded: Vec<_> = p
                .iter()
                .filter(|q| shown(q.0) && plottable(q.2) && plottable(q.3))
                .collect();
            if banded.len() >= 2 {
                let mut poly: Vec<(f64, f64)> = banded.iter().map(|q| (q.0, q.3)).collect();
                poly.extend(banded.iter().rev().map(|q| (q.0, q.2)));
                chart.draw_series(std::iter::once(Polygon::new(
                    poly,
                    colour.mix(0.18).filled(),
                )))?;
            }
            for q in &banded {
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![(q.0, q.2), (q.0, q.3)],
                    colour.mix(0.6).stroke_width(2),
                )))?;
            }
            let line: Vec<(f64, f64)> = p
                .iter()
                .filter(|q| shown(q.0) && plottable(q.1))
                .map(|q| (q.0, q.1))
                .collect();
            draw_line(&chart, &line, stroke)?;
            for q in &line {
                let (x, y) = chart.backend_coord(q);
                marker(&area, (x - base.0, y - base.1), colour)?;
            }
        }
        Ok(())
    }
}

/// Lines of means with shaded confidence bands, one per series, against a
/// numeric x axis, or a categorical one when `categories` names the
/// positions 0, 1, ....
pub fn lines_with_bands(
    path_without_ext: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    categories: &[String],
    series: &[BandSeries],
) -> Result<Vec<PathBuf>, VizError> {
    save(
        &Bands {
            title,
            x_label,
            y_label,
            categories,
            series,
        },
        path_without_ext,
    )
}

/// One row of [`claims`]: a paper's claim and what we measured, in units
/// the caller has already made comparable across rows (for example ours
/// and the band divided by the paper's value, so that the paper is at 1).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClaimRow {
    /// The claim in words; cut at 60 characters in the picture.
    pub label: String,
    /// "reproduced", "same direction", "inconclusive", "differs",
    /// "contradicted" or "not measured" (kebab-case works too); anything
    /// else is drawn grey.
    pub verdict: String,
    /// The paper's value.
    pub paper: f64,
    /// The paper's tolerance band `[lo, hi]`.
    pub band: [f64; 2],
    /// Our mean over the seeds; None when not measured.
    pub mean: Option<f64>,
    /// Our 95% confidence interval `[lo, hi]`.
    pub ci: Option<[f64; 2]>,
}

const VERDICTS: [(&str, RGBColor); 6] = [
    ("reproduced", C_GREEN),
    ("same direction", RGBColor(128, 128, 0)),
    ("inconclusive", RGBColor(90, 90, 160)),
    ("differs", C_ORANGE),
    ("contradicted", RGBColor(200, 30, 30)),
    ("not measured", RGBColor(150, 150, 150)),
];

/// A verdict's place in the legend and its colour; unknown verdicts come
/// last, grey.
fn verdict_style(verdict: &str) -> (usize, RGBColor) {
    let v = verdict.trim().to_lowercase().replace(['-', '_'], " ");
    VERDICTS
        .iter()
        .position(|(name, _)| *name == v)
        .map_or((VERDICTS.len(), GREY), |i| (i, VERDICTS[i].1))
}

/// Cuts a label longer than `max` characters, ending it with an ellipsis.
pub(crate) fn truncate_label(s: &str, max: usize) -> String {
    let s = s.trim();
    if s.chars().count() <= max {
        return s.to_string();
    }
    let cut: String = s.chars().take(max.saturating_sub(1)).collect();
    format!("{}…", cut.trim_end())
}

/// The x range of a claims chart: every paper value and band, and ours as
/// far as 1.5 band-widths beyond them, padded. One runaway mean would
/// otherwise squeeze every other row into a few pixels; what lies beyond
/// is drawn at the edge with a chevron.
pub(crate) fn claims_range(rows: &[ClaimRow]) -> (f64, f64) {
    let hull = |v: &[f64]| {
        v.iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
                (a.min(x), b.max(x))
            })
    };
    let paper: Vec<f64> = rows
        .iter()
        .flat_map(|r| [r.paper, r.band[0], r.band[1]])
        .filter(|&v| plottable(v))
        .collect();
    let ours: Vec<f64> = rows
        .iter()
        .flat_map(|r| r.mean.into_iter().chain(r.ci.into_iter().flatten()))
        .filter(|&v| plottable(v))
        .collect();
    let (mut lo, mut hi) = if paper.is_empty() {
        hull(&ours)
    } else {
        hull(&paper)
    };
    if !(lo.is_finite() && hi.is_finite()) {
        return (0.0, 1.0);
    }
    let span = if hi > lo {
        hi - lo
    } else {
        lo.abs().max(1.0) * 0.5
    };
    let (min, max) = (
        (lo - 1.5 * span).max(-MAX_PLOTTED),
        (hi + 1.5 * span).min(MAX_PLOTTED),
    );
    for v in ours {
        lo = lo.min(v.max(min));
        hi = hi.max(v.min(max));
    }
    padded(lo, hi, 0.05)
}

/// A number in three significant digits.
fn short(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let d = (2 - v.abs().log10().floor() as i32).clamp(0, 9) as usize;
    format!("{v:.d$}")
}

const CLAIM_ROW: u32 = 28;
const CLAIMS_WIDTH: u32 = 1400;
/// Room left of the plot for the labels (60 characters) and the y title.
const CLAIM_LABELS: u32 = 580;
const BAND: RGBColor = RGBColor(196, 210, 232);
const STRIPE: RGBColor = RGBColor(246, 246, 246);

struct Claims<'a> {
    title: &'a str,
    rows: &'a [ClaimRow],
    range: (f64, f64),
}

impl Claims<'_> {
    /// Whether some drawn whisker is cut at an edge, and whether some mean
    /// lies beyond one.
    fn clipped(&self) -> (bool, bool) {
        let (x0, x1) = self.range;
        let out = |v: f64| v.is_finite() && (v < x0 || v > x1);
        let whisker = self.rows.iter().any(|r| {
            r.ci.is_some_and(|[a, b]| {
                let (a, b) = (a.min(b), a.max(b));
                a.is_finite() && b.is_finite() && b >= x0 && a <= x1 && (out(a) || out(b))
            })
        });
        let mean = self.rows.iter().any(|r| r.mean.is_some_and(out));
        (whisker, mean)
    }

    /// What the marks mean, and one entry per verdict present with its
    /// count.
    fn legends(&self) -> [Vec<Entry>; 2] {
        let mut marks = vec![
            Entry {
                label: "paper's tolerance band".into(),
                swatch: Swatch::Fill(BAND),
            },
            Entry {
                label: "paper's value".into(),
                swatch: Swatch::Diamond(INK),
            },
            Entry {
                label: "ours: mean and 95% CI".into(),
                swatch: Swatch::Whisker(INK),
            },
        ];
        let (whisker, mean) = self.clipped();
        if whisker {
            marks.push(Entry {
                label: "CI goes on beyond the axis".into(),
                swatch: Swatch::Clipped(INK),
            });
        }
        if mean {
            marks.push(Entry {
                label: "mean beyond the axis (value)".into(),
                swatch: Swatch::Arrow(INK),
            });
        }
        let mut seen: Vec<(usize, String, RGBColor, usize)> = Vec::new();
        for r in self.rows {
            let (rank, colour) = verdict_style(&r.verdict);
            let name = if rank < VERDICTS.len() {
                VERDICTS[rank].0.to_string()
            } else {
                r.verdict.trim().to_string()
            };
            match seen.iter_mut().find(|s| s.1 == name) {
                Some(s) => s.3 += 1,
                None => seen.push((rank, name, colour, 1)),
            }
        }
        seen.sort_by_key(|s| s.0);
        let verdicts = seen
            .into_iter()
            .map(|(_, name, colour, n)| Entry {
                label: format!("{name} ({n})"),
                swatch: Swatch::Dot(colour),
            })
            .collect();
        [marks, verdicts]
    }
}

impl Picture for Claims<'_> {
    fn size(&self) -> (u32, u32) {
        let [a, b] = self.legends();
        let n = self.rows.len().max(1) as u32;
        let legends = legend_height(&a, CLAIMS_WIDTH) + legend_height(&b, CLAIMS_WIDTH);
        // Header, legends, the rows, then the x axis' label area (52) and
        // bottom margin (12) that `cartesian` adds.
        (CLAIMS_WIDTH, 72 + legends + n * CLAIM_ROW + 64)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), VizError> {
        let n = self.rows.len();
        let subtitle = match n {
            0 => "no claims".to_string(),
            1 => "1 claim; each row's numbers relative to the paper's".to_string(),
            _ => format!("{n} claims; each row's numbers relative to the paper's"),
        };
        let body = header(root, self.title, &subtitle)?;
        let [marks, verdicts] = self.legends();
        let body = legend_row(&body, &marks)?;
        let body = legend_row(&body, &verdicts)?;
        let (x0, x1) = self.range;
        let rows = n.max(1) as f64;
        let mut chart = cartesian(
            &body,
            CLAIM_LABELS,
            axis_range(x0, x1)?,
            axis_range(0.0, rows)?,
        )?;
        let span = x1 - x0;
        mesh(&mut chart)
            .disable_y_mesh()
            .x_desc("ours relative to the paper")
            .y_desc("claim")
            .x_label_formatter(&|v| tick(*v, span))
            .x_labels(10)
            .y_labels(0)
            .draw()?;

        // Row i's centre, top to bottom in the caller's order.
        let yc = |i: usize| rows - i as f64 - 0.5;
        for i in (0..n).step_by(2) {
            let y = yc(i);
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x0, y - 0.5), (x1, y + 0.5)],
                STRIPE.filled(),
            )))?;
        }
        // With one paper value for all rows (the usual normalisation puts
        // the paper at 1), a reference line down the chart.
        let papers: Vec<f64> = self
            .rows
            .iter()
            .map(|r| r.paper)
            .filter(|v| v.is_finite())
            .collect();
        // Only a line on the axis: plotters' pixel arithmetic overflows
        // on values far outside it (a paper value beyond ±1e300 is not
        // in the range).
        if let Some(&p) = papers.first().filter(|&&p| p >= x0 && p <= x1) {
            if papers
                .iter()
                .all(|&q| (q - p).abs() <= 1e-12 * p.abs().max(1.0))
            {
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![(p, 0.0), (p, rows)],
                    GREY.mix(0.5).stroke_width(1),
                )))?;
            }
        }

        let px = |v: f64, i: usize| chart.backend_coord(&(v.clamp(x0, x1), yc(i)));
        let (axis_x, _) = chart.backend_coord(&(x0, 0.0));
        let (right_x, _) = chart.backend_coord(&(x1, 0.0));
        let label_style = TextStyle::from((FONT, 15).into_font())
            .color(&INK)
            .pos(Pos::new(HPos::Right, VPos::Center));
        let note = |h: HPos| {
            TextStyle::from((FONT, 14).into_font())
                .color(&GREY)
                .pos(Pos::new(h, VPos::Center))
        };
        for (i, r) in self.rows.iter().enumerate() {
            let (_, colour) = verdict_style(&r.verdict);
            let (_, y) = px(x0, i);
            root.draw(&Text::new(
                truncate_label(&r.label, 60),
                (axis_x - 22, y),
                label_style.clone(),
            ))?;
            root.draw(&Rectangle::new(
                [(axis_x - 16, y - 5), (axis_x - 6, y + 5)],
                colour.filled(),
            ))?;
            let [a, b] = r.band;
            let band = (a.is_finite() && b.is_finite()).then(|| (a.min(b), a.max(b)));
            if let Some((a, b)) = band {
                let (xa, xb) = (px(a, i).0, px(b, i).0);
                root.draw(&Rectangle::new(
                    [(xa, y - 9), (xb.max(xa + 2), y + 9)],
                    BAND.filled(),
                ))?;
            }
            if r.paper.is_finite() {
                diamond(root, px(r.paper, i), INK)?;
            }
            let ci = r.ci.filter(|c| c[0].is_finite() && c[1].is_finite());
            // A CI wholly beyond one edge would be a knot of chevrons at
            // that edge; the mean's arrowhead and value say enough.
            let ci = ci
                .map(|[a, b]| (a.min(b), a.max(b)))
                .filter(|&(a, b)| b >= x0 && a <= x1);
            if let Some((a, b)) = ci {
                h_whisker(root, (px(a, i).0, px(b, i).0), y, colour, (a < x0, b > x1))?;
            }
            match r.mean.filter(|m| m.is_finite()) {
                Some(m) if m < x0 || m > x1 => {
                    // An arrowhead at the edge, pointing on, and the value.
                    let (x, out) = if m > x1 { (right_x, 1) } else { (axis_x, -1) };
                    arrowhead(root, (x, y), out, colour)?;
                    let h = if out > 0 { HPos::Right } else { HPos::Left };
                    let style = note(h).color(&colour);
                    root.draw(&Text::new(short(m), (x - 16 * out, y), style))?;
                }
                Some(m) => dot(root, px(m, i), colour)?,
                None => {
                    // Beside the band, on whichever side has room.
                    let (xa, xb) = band.map_or((px(r.paper, i).0, px(r.paper, i).0), |(a, b)| {
                        (px(a, i).0, px(b, i).0)
                    });
                    let text = "not measured";
                    if xb + 120 < right_x {
                        root.draw(&Text::new(text, (xb + 12, y), note(HPos::Left)))?;
                    } else {
                        root.draw(&Text::new(text, (xa - 12, y), note(HPos::Right)))?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// A forest plot of a paper's claims: one row per claim, top to bottom,
/// with the paper's tolerance band shaded, the paper's value as a diamond
/// and our mean as a dot on its 95% CI whisker, coloured by verdict. All
/// rows share one x axis, so their numbers must already be comparable
/// (see [`ClaimRow`]); ours beyond the axis is drawn at its edge with a
/// chevron (whiskers) or an arrowhead and the value (means).
pub fn claims(
    path_without_ext: &Path,
    title: &str,
    rows: &[ClaimRow],
) -> Result<Vec<PathBuf>, VizError> {
    save(
        &Claims {
            title,
            rows,
            range: claims_range(rows),
        },
        path_without_ext,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory for one test's pictures; under
    /// $LOSSLAB_VIZ_CHARTS_OUT when set, to look at them (kept), else
    /// under the system's temp dir (removed by `done`).
    fn out_dir(name: &str) -> (PathBuf, bool) {
        match std::env::var_os("LOSSLAB_VIZ_CHARTS_OUT") {
            Some(d) => {
                let d = PathBuf::from(d);
                std::fs::create_dir_all(&d).unwrap();
                (d, true)
            }
            None => {
                let d = std::env::temp_dir()
                    .join(format!("losslab-viz-charts-{}-{name}", std::process::id()));
                let _ = std::fs::remove_dir_all(&d);
                std::fs::create_dir_all(&d).unwrap();
                (d, false)
            }
        }
    }

    fn done((dir, keep): (PathBuf, bool)) {
        if !keep {
            let _ = std::fs::remove_dir_all(dir);
        }
    }

    /// Both files exist and are not empty; returns the SVG's text.
    fn written(files: &[PathBuf]) -> String {
        assert_eq!(files.len(), 2, "{files:?}");
        for f in files {
            let len = std::fs::metadata(f).map(|m| m.len()).unwrap_or(0);
            assert!(len > 1000, "{} has {len} bytes", f.display());
        }
        assert!(files[1].extension().is_some_and(|e| e == "png"));
        std::fs::read_to_string(&files[0]).unwrap()
    }

    /// The SVG's text elements' contents.
    fn texts(svg: &str) -> Vec<String> {
        svg.split("<text")
            .skip(1)
            .filter_map(|t| {
                let body = &t[t.find('>')? + 1..];
                Some(body[..body.find("</text>")?].trim().to_string())
            })
            .collect()
    }

    fn has(svg: &str, text: &str) -> bool {
        texts(svg).iter().any(|t| t == text)
    }

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn log_x_only_for_positive_values_spanning_over_100x() {
        assert!(use_log_x(1.0, 100.5));
        assert!(use_log_x(0.01, 50.0));
        assert!(!use_log_x(1.0, 100.0));
        assert!(!use_log_x(0.0, 1e6));
        assert!(!use_log_x(-1.0, 1e6));
        assert!(!use_log_x(1.0, f64::INFINITY));
        assert!(!use_log_x(f64::NAN, 1e6));
        assert!(!use_log_x(f64::INFINITY, f64::NEG_INFINITY));
    }

    #[test]
    fn log_ticks_are_1_2_5_then_decades_then_every_nth_decade() {
        let labels =
            |lo, hi| -> Vec<String> { log_ticks(lo, hi).into_iter().map(log_tick_label).collect() };
        assert_eq!(
            labels(0.8, 1200.0),
            ["1", "2", "5", "10", "20", "50", "100", "200", "500", "1000"]
        );
        assert_eq!(
            labels(0.004, 0.9),
            ["0.005", "0.01", "0.02", "0.05", "0.1", "0.2", "0.5"]
        );
        assert_eq!(
            labels(0.5, 2e6),
            ["1", "10", "100", "1000", "10000", "100000", "1e6"]
        );
        let wide = labels(1e-3, 1e12);
        assert_eq!(
            wide,
            ["0.01", "1", "100", "10000", "1e6", "1e8", "1e10", "1e12"]
        );
        assert!(log_ticks(0.0, 10.0).is_empty());
        assert_eq!(log_tick_label(2e-5), "2e-5");
        assert_eq!(log_tick_label(0.0001), "0.0001");
        assert_eq!(log_tick_label(5e6), "5e6");
    }

    #[test]
    fn labels_are_cut_at_60_characters() {
        let long = "a".repeat(59) + " and a lot more words";
        let cut = truncate_label(&long, 60);
        assert_eq!(cut.chars().count(), 60);
        assert!(cut.ends_with('…'));
        assert_eq!(truncate_label("  short  ", 60), "short");
        let exactly = "é".repeat(60);
        assert_eq!(truncate_label(&exactly, 60), exactly);
    }

    #[test]
    fn claims_range_keeps_runaway_means_out() {
        let row = |mean: Option<f64>, ci: Option<[f64; 2]>| ClaimRow {
            label: "x".into(),
            verdict: "differs".into(),
            paper: 1.0,
            band: [0.75, 1.25],
            mean,
            ci,
        };
        let (lo, hi) = claims_range(&[row(Some(1.1), Some([0.9, 1.3]))]);
        assert!(lo < 0.75 && lo > 0.7 && hi > 1.3 && hi < 1.35, "{lo} {hi}");
        // 1.5 band-widths beyond the band at most.
        let (lo, hi) = claims_range(&[row(Some(40.0), Some([-50.0, 90.0])), row(None, None)]);
        assert!(
            (lo - 0.0).abs() < 0.2 && (hi - 2.0).abs() < 0.2,
            "{lo} {hi}"
        );
        assert_eq!(claims_range(&[]), (0.0, 1.0));
        assert_eq!(verdict_style("Same-Direction").0, 1);
        assert_eq!(verdict_style("inconclusive").0, 2);
        assert_eq!(verdict_style("not_measured").0, 5);
        assert_eq!(verdict_style("odd").0, VERDICTS.len());
    }

    #[test]
    fn cdfs_draw_on_log_and_linear_axes() {
        let out = out_dir("cdf");
        // Lognormal-ish latencies from 1 to 20000 ms: a log axis.
        let tail: Vec<f64> = (0..400)
            .map(|i| 10f64.powf(i as f64 / 400.0 * 4.3))
            .collect();
        let series: Vec<(String, Vec<f64>)> = (0..4)
            .map(|k| {
                let v = tail.iter().map(|x| x * (1.0 + k as f64 * 0.6)).collect();
                (format!("mechanism {k}"), v)
            })
            .collect();
        let svg = written(
            &cdf(
                &out.0.join("cdf-log"),
                "Tail latency",
                "latency (ms)",
                &series,
            )
            .unwrap(),
        );
        assert!(has(&svg, "latency (ms) (log scale)"));
        assert!(has(&svg, "mechanism 3 (n=400)"));
        assert!(has(&svg, "1000") && has(&svg, "10000"), "{:?}", texts(&svg));
        let linear: Vec<(String, Vec<f64>)> = vec![
            ("a".into(), (0..300).map(|i| 50.0 + i as f64).collect()),
            ("b".into(), vec![60.0, 70.0, f64::INFINITY, f64::NAN, 200.0]),
        ];
        let svg = written(&cdf(&out.0.join("cdf-linear"), "Linear", "ms", &linear).unwrap());
        assert!(!svg.contains("log scale"));
        assert!(has(&svg, "b (n=3)"));
        done(out);
    }

    #[test]
    fn bars_draw_with_error_bars_and_without() {
        let out = out_dir("bars");
        let groups = names(&["0.1%", "1%", "3%", "10%"]);
        let series = vec![
            ("rfc6675".to_string(), vec![9.5, 8.1, 5.0, 1.2]),
            ("prr".to_string(), vec![9.6, 8.6, 6.1, 1.9]),
            ("rate-halving".to_string(), vec![9.4, 7.9, f64::NAN, 1.0]),
        ];
        let ci: Vec<Vec<[f64; 2]>> = series
            .iter()
            .map(|(_, v)| v.iter().map(|&y| [y * 0.93, y * 1.05]).collect())
            .collect();
        let spec = BarsSpec {
            title: "Goodput by loss rate",
            x_label: "loss rate",
            y_label: "goodput (Mbit/s)",
            groups: &groups,
            series: &series,
            ci: &ci,
            ..Default::default()
        };
        let svg = written(&grouped_bars_with(&out.0.join("bars-ci"), &spec).unwrap());
        assert!(has(&svg, "loss rate") && has(&svg, "95% confidence interval"));
        let svg =
            written(&grouped_bars(&out.0.join("bars"), "Old API", "y", &groups, &series).unwrap());
        assert!(has(&svg, "group"));
        done(out);
    }

    #[test]
    fn bands_draw_dashed_series() {
        let out = out_dir("bands");
        let series: Vec<BandSeries> = (0..5)
            .map(|k| {
                let pts = (0..6)
                    .map(|i| {
                        let m = 10.0 + k as f64 * 4.0 + i as f64 * (2.0 - k as f64 * 0.5);
                        (i as f64, m, m - 1.5, m + 1.5)
                    })
                    .collect();
                (format!("series {k}"), pts)
            })
            .collect();
        let svg = written(
            &lines_with_bands(
                &out.0.join("bands"),
                "Bands",
                "loss rate",
                "goodput",
                &names(&["0", "0.1%", "0.3%", "1%", "3%", "10%"]),
                &series,
            )
            .unwrap(),
        );
        assert!(has(&svg, "series 4"));
        done(out);
    }

    #[test]
    fn claims_draw_one_row_each() {
        let out = out_dir("claims");
        let verdicts = [
            "reproduced",
            "same direction",
            "differs",
            "contradicted",
            "not measured",
        ];
        let rows: Vec<ClaimRow> = (0..15)
            .map(|i| {
                let verdict = verdicts[i % 5].to_string();
                let mean = match i {
                    _ if i % 5 == 4 => None,
                    3 => Some(7.5),
                    8 => Some(-3.0),
                    _ => Some(0.6 + i as f64 * 0.06),
                };
                let ci = mean.map(|m| match i {
                    2 => [m - 2.0, m + 0.2],
                    _ => [m - 0.1, m + 0.15],
                });
                ClaimRow {
                    label: format!(
                        "Claim {i}: {}",
                        if i % 3 == 0 {
                            "PRR's recovery ends within one RTT of the loss in most of the short web downloads of Figure 5"
                        } else {
                            "median recovery time"
                        }
                    ),
                    verdict,
                    paper: 1.0,
                    band: [0.75, 1.25],
                    mean,
                    ci,
                }
            })
            .collect();
        let files = claims(&out.0.join("claims"), "PRR paper: claims", &rows).unwrap();
        let svg = written(&files);
        assert!(svg.contains("…"), "long labels are cut");
        assert!(has(&svg, "not measured (3)") && has(&svg, "reproduced (3)"));
        assert!(has(&svg, "CI goes on beyond the axis"));
        assert!(has(&svg, "mean beyond the axis (value)"));
        assert!(has(&svg, "7.50"), "a clipped mean prints its value");
        let empty = claims(&out.0.join("claims-empty"), "none", &[]).unwrap();
        written(&empty);
        done(out);
    }
}
