//! Generic charts for reproductions of papers' figures. Each writes
//! `<path>.svg` and `<path>.png` and returns both paths.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::draw::*;
use crate::VizError;

struct Cdf<'a> {
    title: &'a str,
    x_label: &'a str,
    series: Vec<(&'a str, Vec<f64>)>,
}

impl Picture for Cdf<'_> {
    fn size(&self) -> (u32, u32) {
        (1100, 720)
    }
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), VizError> {
        let n: usize = self.series.iter().map(|s| s.1.len()).sum();
        let body = header(root, self.title, &format!("{n} values"))?;
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
        let (x0, x1) = padded(lo, hi, 0.02);
        let mut chart = cartesian(&body, 72, x0..x1, 0.0..1.0)?;
        let span = x1 - x0;
        mesh(&mut chart)
            .x_desc(self.x_label)
            .y_desc("fraction ≤ x (CDF)")
            .x_label_formatter(&|v| tick(*v, span))
            .y_label_formatter(&|v| format!("{v:.1}"))
            .x_labels(12)
            .y_labels(11)
            .draw()?;
        for (k, (name, v)) in self.series.iter().enumerate() {
            if v.is_empty() {
                continue;
            }
            let total = v.len() as f64;
            // The empirical CDF steps up by 1/n at each value; ties collapse
            // into one step.
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
            let pts = dedup_pixels(pts, |p| chart.backend_coord(p));
            let style = SERIES[k % SERIES.len()].stroke_width(2);
            chart
                .draw_series(LineSeries::new(pts, style))?
                .label(format!("{name} (n={})", v.len()))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], style));
        }
        legend(&mut chart, SeriesLabelPosition::LowerRight)?;
        Ok(())
    }
}

/// One empirical CDF line per series (NaN values are ignored).
pub fn cdf(
    path_without_ext: &Path,
    title: &str,
    x_label: &str,
    series: &[(String, Vec<f64>)],
) -> Result<Vec<PathBuf>, VizError> {
    let series = series
        .iter()
        .map(|(name, v)| {
            let mut v: Vec<f64> = v.iter().copied().filter(|x| !x.is_nan()).collect();
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

struct Bars<'a> {
    title: &'a str,
    y_label: &'a str,
    groups: &'a [String],
    series: &'a [(String, Vec<f64>)],
}

impl Picture for Bars<'_> {
    fn size(&self) -> (u32, u32) {
        (1100, 720)
    }
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), VizError> {
        let body = header(root, self.title, "")?;
        let values = self.series.iter().flat_map(|s| s.1.iter().copied());
        let values: Vec<f64> = values.filter(|v| v.is_finite()).collect();
        let hi = values.iter().copied().fold(0.0f64, f64::max);
        let lo = values.iter().copied().fold(0.0f64, f64::min);
        let (y0, y1) = if hi > lo {
            let pad = (hi - lo) * 0.1;
            (if lo < 0.0 { lo - pad } else { 0.0 }, hi + pad)
        } else {
            (0.0, 1.0)
        };
        let ng = self.groups.len().max(1);
        let mut chart = cartesian(&body, 84, 0.0..ng as f64, y0..y1)?;
        let yspan = y1 - y0;
        mesh(&mut chart)
            .disable_x_mesh()
            .y_desc(self.y_label)
            // Group names are drawn below, at the group centres.
            .x_labels(0)
            .y_label_formatter(&|v| tick(*v, yspan))
            .y_labels(10)
            .draw()?;
        let name_style = TextStyle::from((FONT, TICK_SIZE + 1).into_font())
            .color(&INK)
            .pos(Pos::new(HPos::Center, VPos::Top));
        for (g, name) in self.groups.iter().enumerate() {
            let (x, y) = chart.backend_coord(&(g as f64 + 0.5, y0));
            root.draw(&Text::new(name.as_str(), (x, y + 10), name_style.clone()))?;
        }
        let ns = self.series.len().max(1);
        // Each group spans [g, g+1): 80% for the bars, 10% air each side.
        let width = 0.8 / ns as f64;
        for (k, (name, v)) in self.series.iter().enumerate() {
            let colour = SERIES[k % SERIES.len()];
            let bars = v
                .iter()
                .enumerate()
                .take(ng)
                .filter(|(_, y)| y.is_finite())
                .map(|(g, &y)| {
                    let x = g as f64 + 0.1 + k as f64 * width;
                    Rectangle::new([(x, 0.0), (x + width * 0.92, y)], colour.filled())
                });
            chart
                .draw_series(bars)?
                .label(name.as_str())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 7), (x + 18, y + 7)], colour.filled())
                });
        }
        legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        Ok(())
    }
}

/// Groups along x, one bar per series in each group (`series[k].1[g]` is
/// series k's value in group g; missing or non-finite values draw no bar).
pub fn grouped_bars(
    path_without_ext: &Path,
    title: &str,
    y_label: &str,
    groups: &[String],
    series: &[(String, Vec<f64>)],
) -> Result<Vec<PathBuf>, VizError> {
    save(
        &Bars {
            title,
            y_label,
            groups,
            series,
        },
        path_without_ext,
    )
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
        let pts = || self.series.iter().flat_map(|s| s.1.iter());
        let xs: Vec<f64> = pts().map(|p| p.0).collect();
        let ys: Vec<f64> = pts()
            .flat_map(|p| [p.1, p.2, p.3])
            .filter(|v| v.is_finite())
            .collect();
        let (x0, x1) = if self.categories.is_empty() {
            let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            padded(lo, hi, 0.04)
        } else {
            (-0.5, self.categories.len() as f64 - 0.5)
        };
        let lo = ys.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = ys.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let (y0, y1) = if lo.is_finite() && hi > lo {
            padded(lo.min(0.0), hi, 0.06)
        } else if lo.is_finite() {
            (lo.min(0.0), lo.abs().max(1.0) * 1.1)
        } else {
            (0.0, 1.0)
        };
        let mut chart = cartesian(&body, 84, x0..x1, y0..y1)?;
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
        for (k, (name, p)) in self.series.iter().enumerate() {
            let colour = SERIES[k % SERIES.len()];
            let banded: Vec<_> = p
                .iter()
                .filter(|q| q.2.is_finite() && q.3.is_finite())
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
            let line: Vec<(f64, f64)> = p.iter().map(|q| (q.0, q.1)).collect();
            let style = colour.stroke_width(2);
            chart
                .draw_series(LineSeries::new(line.clone(), style))?
                .label(name.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], style));
            chart.draw_series(line.into_iter().map(|q| Circle::new(q, 4, colour.filled())))?;
        }
        legend(&mut chart, SeriesLabelPosition::UpperRight)?;
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
