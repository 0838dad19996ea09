//! What every picture shares: the embedded font, writing SVG and PNG from
//! one drawing routine, colours, tick labels and downsampling.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Once;

use plotters::chart::MeshStyle;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::VizError;

pub(crate) const FONT: &str = "sans-serif";
pub(crate) const TITLE_SIZE: u32 = 26;
pub(crate) const SUBTITLE_SIZE: u32 = 17;
pub(crate) const AXIS_DESC_SIZE: u32 = 19;
pub(crate) const TICK_SIZE: u32 = 16;
pub(crate) const LEGEND_SIZE: u32 = 16;

// Okabe-Ito, distinguishable with the common colour-vision deficiencies.
pub(crate) const C_BLUE: RGBColor = RGBColor(0, 114, 178);
pub(crate) const C_ORANGE: RGBColor = RGBColor(230, 159, 0);
pub(crate) const C_GREEN: RGBColor = RGBColor(0, 158, 115);
pub(crate) const VERMILLION: RGBColor = RGBColor(213, 94, 0);
pub(crate) const SKY: RGBColor = RGBColor(86, 180, 233);
pub(crate) const PURPLE: RGBColor = RGBColor(204, 121, 167);
pub(crate) const INK: RGBColor = RGBColor(30, 30, 30);
pub(crate) const GREY: RGBColor = RGBColor(90, 90, 90);
pub(crate) const GRID: RGBColor = RGBColor(228, 228, 228);

pub(crate) const SERIES: [RGBColor; 8] = [
    C_BLUE,
    VERMILLION,
    C_GREEN,
    C_ORANGE,
    PURPLE,
    SKY,
    INK,
    RGBColor(150, 120, 30),
];

static FONT_ONCE: Once = Once::new();

/// Registers the embedded DejaVu Sans under plotters' generic family names,
/// so that PNG text never depends on the fonts of the machine.
pub(crate) fn ensure_font() {
    FONT_ONCE.call_once(|| {
        static TTF: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");
        for family in ["sans-serif", "serif", "monospace"] {
            if plotters::style::register_font(family, FontStyle::Normal, TTF).is_err() {
                panic!("the embedded DejaVuSans.ttf does not parse");
            }
        }
    });
}

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for VizError {
    fn from(e: DrawingAreaErrorKind<E>) -> Self {
        VizError(format!("drawing failed: {e}"))
    }
}

/// A picture drawn the same way on every backend.
pub(crate) trait Picture {
    fn size(&self) -> (u32, u32) {
        (1280, 800)
    }
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), VizError>;
}

fn with_ext(base: &Path, ext: &str) -> PathBuf {
    // Not Path::with_extension: flow names like "a.1" contain dots.
    let mut s = base.as_os_str().to_owned();
    s.push(".");
    s.push(ext);
    PathBuf::from(s)
}

/// Writes `base.svg` and `base.png`.
pub(crate) fn save(p: &impl Picture, base: &Path) -> Result<Vec<PathBuf>, VizError> {
    ensure_font();
    let size = p.size();
    let svg = with_ext(base, "svg");
    let png = with_ext(base, "png");
    let ctx = |path: &Path| {
        let path = path.display().to_string();
        move |e: VizError| VizError(format!("{path}: {}", e.0))
    };
    {
        let root = SVGBackend::new(&svg, size).into_drawing_area();
        root.fill(&WHITE)?;
        p.draw(&root).map_err(ctx(&svg))?;
        root.present().map_err(|e| ctx(&svg)(e.into()))?;
    }
    {
        let root = BitMapBackend::new(&png, size).into_drawing_area();
        root.fill(&WHITE)?;
        p.draw(&root).map_err(ctx(&png))?;
        root.present().map_err(|e| ctx(&png)(e.into()))?;
    }
    Ok(vec![svg, png])
}

/// Draws a title and a grey subtitle at the top; returns the area below.
pub(crate) fn header<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    subtitle: &str,
) -> Result<DrawingArea<DB, Shift>, VizError> {
    let h = if subtitle.is_empty() { 46 } else { 72 };
    let (top, body) = root.split_vertically(h);
    let w = top.dim_in_pixel().0 as i32;
    let centre = Pos::new(HPos::Center, VPos::Top);
    top.draw(&Text::new(
        title.to_string(),
        (w / 2, 12),
        TextStyle::from((FONT, TITLE_SIZE).into_font())
            .color(&INK)
            .pos(centre),
    ))?;
    if !subtitle.is_empty() {
        top.draw(&Text::new(
            subtitle.to_string(),
            (w / 2, 46),
            TextStyle::from((FONT, SUBTITLE_SIZE).into_font())
                .color(&GREY)
                .pos(centre),
        ))?;
    }
    Ok(body)
}

/// Decimals that tell apart ticks `step` apart.
pub(crate) fn decimals_for(step: f64) -> usize {
    if !(step.is_finite() && step > 0.0) {
        return 0;
    }
    (-(step.log10().floor())).clamp(0.0, 9.0) as usize
}

/// Tick label with as many decimals as a range of `span` over ~10 ticks
/// needs, so that a 200 ms window does not read 0.1, 0.1, 0.2, ...
pub(crate) fn tick(v: f64, span: f64) -> String {
    let d = decimals_for(span / 10.0);
    let s = format!("{v:.d$}");
    if s.starts_with('-') && s[1..].chars().all(|c| c == '0' || c == '.') {
        s[1..].to_string()
    } else {
        s
    }
}

/// Pads a data range so that marks on its edges stay inside the plot.
pub(crate) fn padded(lo: f64, hi: f64, frac: f64) -> (f64, f64) {
    if !(lo.is_finite() && hi.is_finite()) {
        return (0.0, 1.0);
    }
    if hi <= lo {
        let d = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
        return (lo - d, hi + d);
    }
    let d = (hi - lo) * frac;
    (lo - d, hi + d)
}

/// Per pixel column, keeps the first, lowest, highest and last sample (in
/// time order): the drawn polyline is pixel-identical to the full one while
/// having at most four vertices per column (the M4 method).
pub(crate) fn m4(points: &[(f64, f64)], px: impl Fn(f64) -> i32) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < points.len() {
        let col = px(points[i].0);
        let mut j = i;
        let (mut lo, mut hi) = (i, i);
        while j < points.len() && px(points[j].0) == col {
            if points[j].1 < points[lo].1 {
                lo = j;
            }
            if points[j].1 > points[hi].1 {
                hi = j;
            }
            j += 1;
        }
        let mut keep = [i, lo, hi, j - 1];
        keep.sort_unstable();
        let mut prev = usize::MAX;
        for k in keep {
            if k != prev {
                out.push(points[k]);
                prev = k;
            }
        }
        i = j;
    }
    out
}

/// Samples that hold until the next one, as the vertices of a staircase.
pub(crate) fn staircase(points: &[(f64, f64)], until: f64) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(points.len() * 2 + 1);
    for (k, &(x, y)) in points.iter().enumerate() {
        if k > 0 {
            out.push((x, points[k - 1].1));
        }
        out.push((x, y));
    }
    if let Some(&(x, y)) = points.last() {
        if until > x {
            out.push((until, y));
        }
    }
    out
}

/// Drops polyline vertices that land on the same pixel as the previous kept
/// one; the error is below one pixel.
pub(crate) fn dedup_pixels(
    points: Vec<(f64, f64)>,
    px: impl Fn(&(f64, f64)) -> (i32, i32),
) -> Vec<(f64, f64)> {
    let n = points.len();
    let mut out = Vec::with_capacity(n.min(8192));
    let mut last = None;
    for (k, p) in points.into_iter().enumerate() {
        let q = px(&p);
        if last != Some(q) || k + 1 == n {
            out.push(p);
            last = Some(q);
        }
    }
    out
}

/// Keeps the first of several marks that would cover the same pixels.
pub(crate) struct PixelSet(HashSet<(i32, i32, i32)>);

impl PixelSet {
    pub(crate) fn new() -> Self {
        PixelSet(HashSet::new())
    }
    /// True the first time a key is seen.
    pub(crate) fn first(&mut self, key: (i32, i32, i32)) -> bool {
        self.0.insert(key)
    }
}

/// File-name-safe version of a flow name.
pub(crate) fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The plotting area every picture uses: the same margins and label
/// areas (`y_area` wide for the y tick labels) over f64 ranges.
pub(crate) fn cartesian<'a, DB: DrawingBackend>(
    body: &'a DrawingArea<DB, Shift>,
    y_area: u32,
    x: std::ops::Range<f64>,
    y: std::ops::Range<f64>,
) -> Result<
    ChartContext<
        'a,
        DB,
        Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
    >,
    VizError,
> {
    Ok(ChartBuilder::on(body)
        .margin_left(16)
        .margin_right(28)
        .margin_bottom(12)
        .x_label_area_size(52)
        .y_label_area_size(y_area)
        .build_cartesian_2d(x, y)?)
}

/// The axes every picture draws: the house fonts, grid lines at the
/// labelled ticks and no minor lines. Callers add their axis titles, tick
/// formats and counts, then draw.
pub(crate) fn mesh<'a, 'b, DB: DrawingBackend>(
    chart: &'b mut ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
) -> MeshStyle<'a, 'b, RangedCoordf64, RangedCoordf64, DB> {
    let mut m = chart.configure_mesh();
    m.label_style((FONT, TICK_SIZE))
        .axis_desc_style((FONT, AXIS_DESC_SIZE))
        .bold_line_style(GRID)
        .light_line_style(TRANSPARENT);
    m
}

/// The legend every picture draws: the series' labels in a light box.
pub(crate) fn legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    pos: SeriesLabelPosition,
) -> Result<(), VizError> {
    chart
        .configure_series_labels()
        .position(pos)
        .margin(12)
        .label_font((FONT, LEGEND_SIZE))
        .background_style(WHITE.mix(0.92))
        .border_style(GREY)
        .draw()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn m4_keeps_extremes_of_each_column() {
        let pts: Vec<(f64, f64)> = (0..100)
            .map(|i| (i as f64 / 10.0, (i % 7) as f64))
            .collect();
        let out = m4(&pts, |x| x as i32);
        assert!(out.len() <= 40);
        for col in 0..10 {
            let ys: Vec<f64> = out
                .iter()
                .filter(|p| p.0 as i32 == col)
                .map(|p| p.1)
                .collect();
            assert!(
                ys.contains(&0.0) && ys.contains(&6.0),
                "column {col}: {ys:?}"
            );
        }
        assert_eq!(out.first(), pts.first());
        assert_eq!(out.last(), pts.last());
    }

    #[test]
    fn ticks_get_decimals_for_short_spans() {
        assert_eq!(tick(0.25, 0.2), "0.25");
        assert_eq!(tick(12.0, 60.0), "12");
        assert_eq!(tick(-0.0001, 1.0), "0.0");
    }

    #[test]
    fn file_names_keep_dots_and_replace_slashes() {
        assert_eq!(file_safe("a.1"), "a.1");
        assert_eq!(file_safe("x/y z"), "x_y_z");
        assert_eq!(
            with_ext(Path::new("/t/tsg-a.1"), "png"),
            PathBuf::from("/t/tsg-a.1.png")
        );
    }
}
