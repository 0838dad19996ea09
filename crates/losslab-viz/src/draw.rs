//! What every picture shares: the embedded font, writing SVG and PNG from
//! one drawing routine, colours, tick labels and downsampling.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Once;

use plotters::chart::MeshStyle;
use plotters::coord::ranged1d::{AsRangedCoord, Ranged, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::{CoordTranslate, Shift};
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
    // Past 1e15 a plain number is a row of digits wider than the plot
    // (1e300 has 301).
    if v.abs() >= 1e15 {
        return format!("{v:.2e}");
    }
    let d = decimals_for(span / 10.0);
    let s = format!("{v:.d$}");
    if s.starts_with('-') && s[1..].chars().all(|c| c == '0' || c == '.') {
        s[1..].to_string()
    } else {
        s
    }
}

/// Values of a larger magnitude are not drawn: they are treated as
/// missing. An axis over them would have a width that overflows to
/// infinity (1e308 - -1e308), or no room for its padding, and plotters
/// 0.3.7 never returns from its tick search on a range that is not finite
/// (`compute_f64_key_points`: its point count is NaN, never above the
/// limit that ends the loop). 1e300 leaves room for padding and headroom
/// (a few times the width) below f64::MAX.
pub(crate) const MAX_PLOTTED: f64 = 1e300;

/// Whether a value is drawn (see [`MAX_PLOTTED`]).
pub(crate) fn plottable(v: f64) -> bool {
    v.is_finite() && v.abs() <= MAX_PLOTTED
}

/// The narrowest axis relative to the magnitude of its ends. Narrower,
/// plotters' tick search divides values by steps 2^53 times smaller than
/// they are, where its remainders are rounding noise, its point count can
/// come out negative and again the loop never ends.
const MIN_REL_WIDTH: f64 = 1e-9;
/// The narrowest axis: its tick steps stay normal numbers (a subnormal or
/// zero step gives NaN remainders).
pub(crate) const MIN_WIDTH: f64 = 1e-200;

/// The axis range over data from `lo` to `hi`, padded by `frac` of its
/// width each side so that marks on the edges stay inside the plot.
/// Every f64 axis handed to plotters comes from here or from
/// [`axis_range`]'s check: finite, with a finite width of at least
/// [`MIN_WIDTH`] and [`MIN_REL_WIDTH`] of its magnitude. An end that is
/// not [`plottable`] is ignored; a single value (or values closer than
/// that) gets a range a fifth of its magnitude wide around it ([-1, 1]
/// around 0); no value at all gives [0, 1].
pub(crate) fn padded(lo: f64, hi: f64, frac: f64) -> (f64, f64) {
    let (lo, hi) = match (plottable(lo), plottable(hi)) {
        (true, true) => (lo.min(hi), lo.max(hi)),
        (true, false) => (lo, lo),
        (false, true) => (hi, hi),
        (false, false) => return (0.0, 1.0),
    };
    let magnitude = lo.abs().max(hi.abs());
    if hi - lo < (magnitude * MIN_REL_WIDTH).max(MIN_WIDTH) {
        let c = lo / 2.0 + hi / 2.0;
        let d = if c == 0.0 {
            1.0
        } else {
            (c.abs() * 0.1).max(MIN_WIDTH)
        };
        return (c - d, c + d);
    }
    let frac = if frac.is_finite() {
        frac.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let d = (hi - lo) * frac;
    (lo - d, hi + d)
}

/// `a..b` for plotters, or an error where a range would make its tick
/// search loop forever (see [`padded`]): the last guard, for ranges made
/// some other way.
pub(crate) fn axis_range(a: f64, b: f64) -> Result<std::ops::Range<f64>, VizError> {
    let magnitude = a.abs().max(b.abs());
    let ok = a.is_finite()
        && b.is_finite()
        && (b - a).is_finite()
        && b - a >= (magnitude * MIN_REL_WIDTH).max(MIN_WIDTH);
    if ok {
        Ok(a..b)
    } else {
        Err(VizError(format!(
            "internal error: axis range {a}..{b} cannot be drawn"
        )))
    }
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

/// The plotting area every picture uses: the same margins and label
/// areas (`y_area` wide for the y tick labels) over an f64 y range and an
/// x axis that is an f64 range, or a decorated one (log scale, chosen
/// ticks).
pub(crate) fn cartesian<'a, DB: DrawingBackend, X: AsRangedCoord>(
    body: &'a DrawingArea<DB, Shift>,
    y_area: u32,
    x: X,
    y: std::ops::Range<f64>,
) -> Result<ChartContext<'a, DB, Cartesian2d<X::CoordDescType, RangedCoordf64>>, VizError> {
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
pub(crate) fn mesh<'a, 'b, DB: DrawingBackend, X: Ranged + ValueFormatter<X::ValueType>>(
    chart: &'b mut ChartContext<'a, DB, Cartesian2d<X, RangedCoordf64>>,
) -> MeshStyle<'a, 'b, X, RangedCoordf64, DB> {
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

/// Width of the slot a legend line swatch is drawn in: long enough to show
/// a whole period of the longest dash pattern.
pub(crate) const SWATCH: i32 = 40;

/// Dash patterns in pixels (on, off, on, off, ...), paired with `SERIES`
/// so that lines stay apart in greyscale prints and for readers who do not
/// tell the colours apart: solid, dashed, dotted, dash-dot, long dash,
/// dash-dot-dot, short dash, long dash-dot.
pub(crate) const DASHES: [&[u32]; 8] = [
    &[],
    &[12, 6],
    &[3, 4],
    &[12, 5, 3, 5],
    &[24, 6],
    &[12, 4, 3, 4, 3, 4],
    &[6, 5],
    &[24, 5, 3, 5],
];

/// How a line is drawn. Lines (`draw_line`, `draw_line_px`) and their
/// legend swatches (`Swatch::Line` in `legend_row`) both go through
/// `draw_line_px`, so that a legend cannot show a style its line does not
/// have. (Not plotters' own legend: its swatches must be elements, and a
/// varying number of dashes needs either a custom `Drawable`, whose
/// signature names a type plotters does not re-export, or nested
/// `DynElement`s, which only 'static backends allow.)
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Stroke {
    pub colour: RGBColor,
    pub width: u32,
    /// On and off lengths in pixels, repeated along the whole line; empty
    /// for a solid line.
    pub dash: &'static [u32],
}

impl Stroke {
    /// The k-th series' colour and dash pattern, 2 px wide.
    pub(crate) fn series(k: usize) -> Stroke {
        Stroke {
            colour: SERIES[k % SERIES.len()],
            width: 2,
            dash: DASHES[k % DASHES.len()],
        }
    }

    pub(crate) fn style(self) -> ShapeStyle {
        self.colour.stroke_width(self.width)
    }
}

/// Draws a polyline given in the pixels of `area` with `stroke`.
pub(crate) fn draw_line_px<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    points: &[(i32, i32)],
    stroke: Stroke,
) -> Result<(), VizError> {
    let style = stroke.style();
    for piece in dash_pieces(points, stroke.dash) {
        area.draw(&PathElement::new(piece, style))?;
    }
    Ok(())
}

/// Draws a polyline given in a chart's data coordinates with `stroke`. The
/// dash pattern is laid out in pixels, after mapping, and runs on across
/// vertices, so that a staircase of many short steps still reads as
/// dashed.
pub(crate) fn draw_line<DB: DrawingBackend, CT: CoordTranslate>(
    chart: &ChartContext<'_, DB, CT>,
    points: &[CT::From],
    stroke: Stroke,
) -> Result<(), VizError> {
    let area = chart.plotting_area().strip_coord_spec();
    let (bx, by) = area.get_base_pixel();
    let px: Vec<(i32, i32)> = points
        .iter()
        .map(|p| {
            let (x, y) = chart.as_coord_spec().translate(p);
            (x - bx, y - by)
        })
        .collect();
    draw_line_px(&area, &px, stroke)
}

/// Cuts a pixel polyline into the pieces a dash pattern draws, starting
/// with a whole "on" length. Pieces keep the polyline's corners and have
/// no repeated points (a zero-length segment makes plotters' wide-line
/// polygons NaN).
pub(crate) fn dash_pieces(points: &[(i32, i32)], dash: &[u32]) -> Vec<Vec<(i32, i32)>> {
    // An odd pattern repeats to an even one, as in SVG.
    let dash: Vec<f64> = dash
        .iter()
        .chain(if dash.len() % 2 == 1 { dash } else { &[][..] })
        .map(|&d| d as f64)
        .collect();
    let mut pieces: Vec<Vec<(f64, f64)>> = Vec::new();
    if dash.is_empty() || dash.iter().sum::<f64>() <= 0.0 {
        pieces.push(points.iter().map(|&(x, y)| (x as f64, y as f64)).collect());
    } else {
        let mut k = 0;
        let mut left = dash[0];
        let mut cur: Vec<(f64, f64)> = Vec::new();
        if let Some(&(x, y)) = points.first() {
            cur.push((x as f64, y as f64));
        }
        for w in points.windows(2) {
            let (a, b) = (
                (w[0].0 as f64, w[0].1 as f64),
                (w[1].0 as f64, w[1].1 as f64),
            );
            let len = (b.0 - a.0).hypot(b.1 - a.1);
            let mut t = 0.0;
            while len - t > left {
                t += left;
                let p = (a.0 + (b.0 - a.0) * t / len, a.1 + (b.1 - a.1) * t / len);
                if k % 2 == 0 {
                    cur.push(p);
                    pieces.push(std::mem::take(&mut cur));
                } else {
                    cur = vec![p];
                }
                k = (k + 1) % dash.len();
                left = dash[k];
            }
            left -= len - t;
            if k % 2 == 0 {
                cur.push(b);
            }
        }
        if k % 2 == 0 {
            pieces.push(cur);
        }
    }
    pieces
        .into_iter()
        .map(|p| {
            let mut q: Vec<(i32, i32)> = p
                .into_iter()
                .map(|(x, y)| (x.round() as i32, y.round() as i32))
                .collect();
            q.dedup();
            q
        })
        .filter(|q| q.len() >= 2)
        .collect()
}

/// What a legend entry shows left of its label.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Swatch {
    /// A line drawn exactly as the series' line.
    Line(Stroke),
    /// A line with a point marker, as `draw_line` and `marker` draw them.
    LineMarker(Stroke),
    /// A filled box, for bars and shaded bands.
    Fill(RGBColor),
    /// A filled dot, as `dot` draws it.
    Dot(RGBColor),
    /// A hollow diamond, as `diamond` draws it.
    Diamond(RGBColor),
    /// A dot on a horizontal whisker, as `h_whisker` and `dot` draw them.
    Whisker(RGBColor),
    /// A whisker cut at the axis edge, as `h_whisker` draws it.
    Clipped(RGBColor),
    /// A vertical error bar, as `v_whisker` draws it.
    ErrorBar(RGBColor),
    /// An arrowhead pointing right, as `arrowhead` draws it.
    Arrow(RGBColor),
}

impl Swatch {
    fn width(&self) -> i32 {
        match self {
            Swatch::Line(_) | Swatch::LineMarker(_) | Swatch::Whisker(_) | Swatch::Clipped(_) => {
                SWATCH
            }
            Swatch::Fill(_) => 22,
            Swatch::Dot(_) | Swatch::Diamond(_) | Swatch::ErrorBar(_) | Swatch::Arrow(_) => 14,
        }
    }

    fn draw<DB: DrawingBackend>(
        &self,
        a: &DrawingArea<DB, Shift>,
        (x, y): (i32, i32),
    ) -> Result<(), VizError> {
        let mid = x + self.width() / 2;
        match *self {
            Swatch::Line(s) => draw_line_px(a, &[(x, y), (x + SWATCH, y)], s)?,
            Swatch::LineMarker(s) => {
                draw_line_px(a, &[(x, y), (x + SWATCH, y)], s)?;
                marker(a, (mid, y), s.colour)?;
            }
            Swatch::Fill(c) => a.draw(&Rectangle::new(
                [(x, y - 7), (x + self.width(), y + 7)],
                c.filled(),
            ))?,
            Swatch::Dot(c) => dot(a, (mid, y), c)?,
            Swatch::Diamond(c) => diamond(a, (mid, y), c)?,
            Swatch::Whisker(c) => {
                h_whisker(a, (x + 2, x + SWATCH - 2), y, c, (false, false))?;
                dot(a, (mid, y), c)?;
            }
            Swatch::Clipped(c) => h_whisker(a, (x + 2, x + SWATCH - 2), y, c, (false, true))?,
            Swatch::ErrorBar(c) => v_whisker(a, mid, (y - 8, y + 8), 5, c)?,
            Swatch::Arrow(c) => arrowhead(a, (x + 12, y), 1, c)?,
        }
        Ok(())
    }
}

/// One entry of a legend drawn with `legend_row`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Entry {
    pub label: String,
    pub swatch: Swatch,
}

const LEGEND_LINE: i32 = 26;
const LEGEND_GAP: i32 = 28;

/// Width of `text` in the legend font, in pixels.
fn legend_text_width(text: &str) -> i32 {
    ensure_font();
    (FONT, LEGEND_SIZE)
        .into_font()
        .box_size(text)
        .map_or(text.chars().count() as i32 * LEGEND_SIZE as i32 / 2, |b| {
            b.0 as i32
        })
}

fn entry_width(e: &Entry) -> i32 {
    e.swatch.width() + 8 + legend_text_width(&e.label)
}

/// Fills lines of `width` pixels with entries of the given widths, in
/// order, `LEGEND_GAP` apart; returns each line's entries.
pub(crate) fn legend_lines(widths: &[i32], width: i32) -> Vec<std::ops::Range<usize>> {
    let mut lines = Vec::new();
    let (mut start, mut used) = (0, 0);
    for (i, &w) in widths.iter().enumerate() {
        if i > start && used + LEGEND_GAP + w > width {
            lines.push(start..i);
            start = i;
            used = 0;
        }
        used += if i > start { LEGEND_GAP } else { 0 } + w;
    }
    if start < widths.len() {
        lines.push(start..widths.len());
    }
    lines
}

/// Height `legend_row` takes for these entries on a picture `width` wide.
pub(crate) fn legend_height(entries: &[Entry], width: u32) -> u32 {
    if entries.is_empty() {
        return 0;
    }
    let widths: Vec<i32> = entries.iter().map(entry_width).collect();
    let lines = legend_lines(&widths, width as i32 - 2 * LEGEND_GAP).len();
    (lines as i32 * LEGEND_LINE + 10) as u32
}

/// A legend in lines of its own, centred above the plot, so that it can
/// never cover data; returns the area below it.
pub(crate) fn legend_row<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[Entry],
) -> Result<DrawingArea<DB, Shift>, VizError> {
    let (w, _) = area.dim_in_pixel();
    let h = legend_height(entries, w);
    if h == 0 {
        return Ok(area.clone());
    }
    let (top, rest) = area.split_vertically(h);
    let widths: Vec<i32> = entries.iter().map(entry_width).collect();
    let text = TextStyle::from((FONT, LEGEND_SIZE).into_font())
        .color(&INK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    for (n, line) in legend_lines(&widths, w as i32 - 2 * LEGEND_GAP)
        .into_iter()
        .enumerate()
    {
        let total: i32 =
            widths[line.clone()].iter().sum::<i32>() + LEGEND_GAP * (line.len() as i32 - 1);
        let mut x = (w as i32 - total) / 2;
        let y = n as i32 * LEGEND_LINE + LEGEND_LINE / 2 + 2;
        for i in line {
            let e = &entries[i];
            e.swatch.draw(&top, (x, y))?;
            let tx = x + e.swatch.width() + 8;
            top.draw(&Text::new(e.label.clone(), (tx, y), text.clone()))?;
            x += widths[i] + LEGEND_GAP;
        }
    }
    Ok(rest)
}

/// A point on a line of means.
pub(crate) fn marker<DB: DrawingBackend>(
    a: &DrawingArea<DB, Shift>,
    at: (i32, i32),
    colour: RGBColor,
) -> Result<(), VizError> {
    a.draw(&Circle::new(at, 4, colour.filled()))?;
    Ok(())
}

/// A filled dot: a mean.
pub(crate) fn dot<DB: DrawingBackend>(
    a: &DrawingArea<DB, Shift>,
    at: (i32, i32),
    colour: RGBColor,
) -> Result<(), VizError> {
    a.draw(&Circle::new(at, 5, colour.filled()))?;
    a.draw(&Circle::new(at, 5, WHITE.stroke_width(1)))?;
    Ok(())
}

/// A hollow diamond: a reference value.
pub(crate) fn diamond<DB: DrawingBackend>(
    a: &DrawingArea<DB, Shift>,
    (x, y): (i32, i32),
    colour: RGBColor,
) -> Result<(), VizError> {
    let r = 7;
    let pts = vec![(x, y - r), (x + r, y), (x, y + r), (x - r, y), (x, y - r)];
    a.draw(&Polygon::new(pts.clone(), WHITE.filled()))?;
    a.draw(&PathElement::new(pts, colour.stroke_width(2)))?;
    Ok(())
}

/// A horizontal interval from `x.0` to `x.1` with end caps; an end
/// `clipped` by the axis gets a chevron pointing on instead of a cap.
pub(crate) fn h_whisker<DB: DrawingBackend>(
    a: &DrawingArea<DB, Shift>,
    (x0, x1): (i32, i32),
    y: i32,
    colour: RGBColor,
    clipped: (bool, bool),
) -> Result<(), VizError> {
    let s = colour.stroke_width(2);
    a.draw(&PathElement::new(vec![(x0, y), (x1, y)], s))?;
    for (x, out, clip) in [(x0, -1, clipped.0), (x1, 1, clipped.1)] {
        let end = if clip {
            vec![(x - 7 * out, y - 6), (x, y), (x - 7 * out, y + 6)]
        } else {
            vec![(x, y - 6), (x, y + 6)]
        };
        a.draw(&PathElement::new(end, s))?;
    }
    Ok(())
}

/// A filled arrowhead with its tip at `at`, pointing right (`out` 1) or
/// left (-1): a value beyond the axis.
pub(crate) fn arrowhead<DB: DrawingBackend>(
    a: &DrawingArea<DB, Shift>,
    (x, y): (i32, i32),
    out: i32,
    colour: RGBColor,
) -> Result<(), VizError> {
    a.draw(&Polygon::new(
        vec![(x - 11 * out, y - 7), (x, y), (x - 11 * out, y + 7)],
        colour.filled(),
    ))?;
    Ok(())
}

/// A vertical error bar from `y.0` to `y.1` with caps `half` wide.
pub(crate) fn v_whisker<DB: DrawingBackend>(
    a: &DrawingArea<DB, Shift>,
    x: i32,
    (y0, y1): (i32, i32),
    half: i32,
    colour: RGBColor,
) -> Result<(), VizError> {
    let s = colour.stroke_width(2);
    a.draw(&PathElement::new(vec![(x, y0), (x, y1)], s))?;
    for y in [y0, y1] {
        a.draw(&PathElement::new(vec![(x - half, y), (x + half, y)], s))?;
    }
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
    fn dashes_run_on_across_corners() {
        let solid = dash_pieces(&[(0, 0), (10, 0), (10, 0), (10, 10)], &[]);
        assert_eq!(solid, vec![vec![(0, 0), (10, 0), (10, 10)]]);
        // 10 on, 5 off over an L of 12 + 12 pixels: the first dash turns
        // no corner, the second starts at 15 (3 down the leg) and ends at
        // 24, the line's end.
        let d = dash_pieces(&[(0, 0), (12, 0), (12, 12)], &[10, 5]);
        assert_eq!(d, vec![vec![(0, 0), (10, 0)], vec![(12, 3), (12, 12)]]);
        // A dash that spans the corner keeps it.
        let d = dash_pieces(&[(0, 0), (8, 0), (8, 8)], &[12, 4]);
        assert_eq!(d[0], vec![(0, 0), (8, 0), (8, 4)]);
        // Odd patterns repeat, as in SVG: [3] is 3 on, 3 off.
        let d = dash_pieces(&[(0, 0), (12, 0)], &[3]);
        assert_eq!(d, vec![vec![(0, 0), (3, 0)], vec![(6, 0), (9, 0)]]);
        // Every series' pattern shows at least one gap in a swatch.
        for dash in &DASHES[1..] {
            assert!(dash_pieces(&[(0, 0), (SWATCH, 0)], dash).len() >= 2);
            assert!(dash.iter().sum::<u32>() as i32 <= SWATCH, "{dash:?}");
        }
    }

    #[test]
    fn legend_lines_wrap_in_order() {
        assert_eq!(legend_lines(&[100, 100, 100], 400), vec![0..3]);
        assert_eq!(legend_lines(&[200, 200, 100], 400), vec![0..1, 1..3]);
        assert_eq!(legend_lines(&[900, 10], 400), vec![0..1, 1..2]);
        assert!(legend_lines(&[], 400).is_empty());
    }

    #[test]
    fn file_names_keep_dots() {
        assert_eq!(
            with_ext(Path::new("/t/tsg-a.1"), "png"),
            PathBuf::from("/t/tsg-a.1.png")
        );
    }
}
