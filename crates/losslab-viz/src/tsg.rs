//! The time-sequence graph, in the style of Figure 2 of the PRR paper
//! (Dukkipati et al., IMC 2011): everything as the sender sees it, data
//! at its send time and ACKs at their arrival time.
//!
//! Marks are drawn in pixel space on the plotting area rather than as
//! plotters series in data space, for two reasons: a segment must stay a
//! visible mark however far the view is zoomed out, and marks that land on
//! the same pixels are drawn once (a 100k-packet flow would otherwise make
//! a 10 MB SVG). Retransmissions and drops are never thinned.

use std::collections::{HashMap, HashSet};

use plotters::chart::SeriesAnno;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::draw::*;
use crate::load::{Fate, FlowData, Recovery};
use crate::VizError;

const ORIGINAL: RGBColor = INK;
const RETRANSMIT: RGBColor = RGBColor(220, 20, 20);
const UNA: RGBColor = RGBColor(0, 150, 60);
const SACK: RGBColor = RGBColor(130, 60, 190);
const DSACK: RGBColor = SKY;
const LOSS_DROP: RGBColor = C_ORANGE;
const QUEUE_DROP: RGBColor = C_BLUE;
const FAST_BAND: RGBColor = RGBColor(255, 238, 170);
const RTO_BAND: RGBColor = RGBColor(255, 205, 195);

/// More data packets than this and the default view zooms in on the first
/// recovery: a whole long flow is an unreadable diagonal.
pub(crate) const ZOOM_ABOVE: usize = 20_000;

/// Chooses the time window: the user's, else the whole flow, else (for a
/// long flow) the first recovery and a few RTTs around it. The string says
/// what was chosen when it was not the user's or the whole flow.
pub(crate) fn window(
    f: &FlowData,
    from: Option<f64>,
    to: Option<f64>,
    sim_time_s: f64,
) -> (f64, f64, Option<String>) {
    let first = f
        .data
        .first()
        .map_or(f.start_s, |d| d.time_s.min(f.start_s));
    let last = f
        .data
        .last()
        .map(|d| d.time_s)
        .into_iter()
        .chain(f.acks.last().map(|a| a.time_s))
        .fold(f64::NEG_INFINITY, f64::max);
    let last = if last.is_finite() { last } else { sim_time_s };
    if from.is_some() || to.is_some() {
        return (from.unwrap_or(first), to.unwrap_or(last), None);
    }
    let sent: Vec<f64> = f
        .data
        .iter()
        .filter(|d| d.fate == Fate::Sent)
        .map(|d| d.time_s)
        .collect();
    if sent.len() <= ZOOM_ABOVE {
        return (first, last, None);
    }
    let rtt = f.rtt_mean_ms.or(f.rtt_min_ms).unwrap_or(100.0) / 1e3;
    match f.recoveries.first() {
        Some(r) => {
            let end = r.end_s.unwrap_or(r.start_s + 5.0 * rtt);
            let (t0, t1) = ((r.start_s - 3.0 * rtt).max(first), end + 3.0 * rtt);
            let note = format!(
                "zoomed to the first recovery ± 3 RTT ({} data packets in all); choose another window with from/to",
                sent.len()
            );
            (t0, t1.min(last.max(t0)), Some(note))
        }
        None => {
            let t1 = sent[ZOOM_ABOVE - 1];
            let note = format!(
                "first {ZOOM_ABOVE} of {} data packets (no recovery); choose another window with from/to",
                sent.len()
            );
            (first, t1, Some(note))
        }
    }
}

pub(crate) struct Tsg<'a> {
    pub flow: &'a FlowData,
    pub scenario: &'a str,
    pub t0: f64,
    pub t1: f64,
    pub note: Option<String>,
}

/// A data transmission as drawn: time, first and last byte in segments.
#[derive(Clone, Copy)]
struct Mark {
    t: f64,
    lo: f64,
    hi: f64,
}

struct Prepared {
    mss: u64,
    originals: Vec<Mark>,
    retransmissions: Vec<Mark>,
    loss_drops: Vec<Mark>,
    queue_drops: Vec<Mark>,
    /// (arrival time, block), DSACK blocks separately.
    sacks: Vec<Mark>,
    dsacks: Vec<Mark>,
    /// snd.una samples (time, segments), starting with its value at t0.
    una: Vec<(f64, f64)>,
    recoveries: Vec<Recovery>,
    y: (f64, f64),
}

impl Tsg<'_> {
    /// The time axis, and the window drawn on it: an end of the window
    /// beyond the axis (one `padded` ignored) would put marks thousands of
    /// millions of pixels away.
    fn axis(&self) -> ((f64, f64), (f64, f64)) {
        let (x0, x1) = padded(self.t0, self.t1, 0.01);
        let within = |t: f64, or: f64| if plottable(t) { t.clamp(x0, x1) } else { or };
        ((x0, x1), (within(self.t0, x0), within(self.t1, x1)))
    }

    fn prepare(&self) -> Prepared {
        let f = self.flow;
        let (_, (t0, t1)) = self.axis();
        let inside = |t: f64| t >= t0 && t <= t1;
        let mss = f
            .data
            .iter()
            .map(|d| d.len as u64)
            .max()
            .unwrap_or(1448)
            .max(1);
        let seg = |b: u64| b as f64 / mss as f64;
        let mark = |t: f64, seq: u64, len: u32| Mark {
            t,
            lo: seg(seq),
            hi: seg(seq.saturating_add(len as u64)),
        };

        // A loss drop happens at the bottleneck's far end; the sender saw
        // that transmission leave earlier, so the X goes on its send time.
        let dropped: HashSet<(u64, u32)> = f
            .data
            .iter()
            .filter(|d| d.fate.is_drop())
            .map(|d| (d.seq, d.tx))
            .collect();
        let mut send_time: HashMap<(u64, u32), f64> = HashMap::new();
        let (mut originals, mut retransmissions) = (Vec::new(), Vec::new());
        for d in &f.data {
            if d.fate != Fate::Sent {
                continue;
            }
            if dropped.contains(&(d.seq, d.tx)) {
                send_time.insert((d.seq, d.tx), d.time_s);
            }
            if inside(d.time_s) {
                let m = mark(d.time_s, d.seq, d.len);
                if d.tx > 1 {
                    retransmissions.push(m);
                } else {
                    originals.push(m);
                }
            }
        }
        let (mut loss_drops, mut queue_drops) = (Vec::new(), Vec::new());
        for d in f.data.iter().filter(|d| d.fate.is_drop()) {
            let t = send_time.get(&(d.seq, d.tx)).copied().unwrap_or(d.time_s);
            if !inside(t) {
                continue;
            }
            let m = mark(t, d.seq, d.len);
            if d.fate == Fate::LossDrop {
                loss_drops.push(m);
            } else {
                queue_drops.push(m);
            }
        }

        let (mut sacks, mut dsacks) = (Vec::new(), Vec::new());
        let mut una = Vec::new();
        let mut cur: Option<u64> = None;
        for a in f.acks.iter().filter(|a| a.fate == Fate::Delivered) {
            if a.time_s > t1 {
                break;
            }
            let next = cur.map_or(a.ack, |c| c.max(a.ack));
            if a.time_s < t0 {
                cur = Some(next);
                continue;
            }
            if una.is_empty() {
                if let Some(c) = cur {
                    una.push((t0, seg(c)));
                }
            }
            if cur != Some(next) {
                una.push((a.time_s, seg(next)));
            }
            cur = Some(next);
            for (k, &(s, e)) in f.sack_of(a).iter().enumerate() {
                let m = Mark {
                    t: a.time_s,
                    lo: seg(s),
                    hi: seg(e),
                };
                if k == 0 && a.dsack {
                    dsacks.push(m);
                } else {
                    sacks.push(m);
                }
            }
        }
        if una.is_empty() {
            if let Some(c) = cur {
                una.push((t0, seg(c)));
            }
        }

        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        for m in originals
            .iter()
            .chain(&retransmissions)
            .chain(&loss_drops)
            .chain(&queue_drops)
            .chain(&sacks)
        {
            lo = lo.min(m.lo);
            hi = hi.max(m.hi);
        }
        for &(_, u) in &una {
            lo = lo.min(u);
            hi = hi.max(u);
        }
        let y = padded(lo, hi, 0.03);
        let recoveries = f
            .recoveries
            .iter()
            .filter(|r| r.start_s <= t1 && r.end_s.is_none_or(|e| e >= t0))
            .cloned()
            .collect();
        Prepared {
            mss,
            originals,
            retransmissions,
            loss_drops,
            queue_drops,
            sacks,
            dsacks,
            una,
            recoveries,
            y,
        }
    }
}

/// Data-to-pixel mapping of the plotting area, relative to its corner.
struct Map {
    x0: f64,
    x1: f64,
    y0: f64,
    y1: f64,
    w: f64,
    h: f64,
}

impl Map {
    /// Pixels are kept within a picture's width of the plotting area:
    /// plotters rasterises every pixel of a line, even far outside it,
    /// and i32 arithmetic on pixels far out overflows.
    fn x(&self, t: f64) -> f64 {
        ((t - self.x0) / (self.x1 - self.x0) * self.w).clamp(-self.w, 2.0 * self.w)
    }
    fn y(&self, v: f64) -> f64 {
        (self.h - (v - self.y0) / (self.y1 - self.y0) * self.h).clamp(-self.h, 2.0 * self.h)
    }
    fn clamp_y(&self, py: f64) -> f64 {
        py.clamp(0.0, self.h)
    }
    /// The pixel at the middle of a mark.
    fn at(&self, m: &Mark) -> (i32, i32) {
        (
            self.x(m.t).round() as i32,
            self.clamp_y((self.y(m.hi) + self.y(m.lo)) / 2.0).round() as i32,
        )
    }
}

#[derive(Clone, Copy)]
enum Corner {
    TopLeft,
    BottomRight,
}

/// Roughly where plotters will put the legend (drawn last, at (10, 34)),
/// so that callouts keep out of it.
fn legend_box<DB: DrawingBackend>(
    a: &DrawingArea<DB, Shift>,
    p: &Prepared,
    band_kinds: &[String],
) -> Result<[i32; 4], VizError> {
    let entries = 2
        + [
            !p.retransmissions.is_empty(),
            !p.loss_drops.is_empty(),
            !p.queue_drops.is_empty(),
            !p.sacks.is_empty(),
            !p.dsacks.is_empty(),
        ]
        .iter()
        .filter(|&&b| b)
        .count()
        + band_kinds.len();
    let style = TextStyle::from((FONT, LEGEND_SIZE).into_font());
    let (w, h) = a.estimate_text_size("dropped by the loss model (at send time)", &style)?;
    let row = h as i32 + 6;
    Ok([0, 28, 10 + w as i32 + 60, 34 + entries as i32 * row + 30])
}

/// Labels placed so far, so that a new one never covers an older one
/// (nearby recoveries would otherwise print on top of each other).
struct Labels(Vec<[i32; 4]>);

impl Labels {
    /// A label on a white box whose `corner` is at `pos`, with a leader
    /// line to `to` when given; skipped when it would overlap another or
    /// stick out of the plotting area.
    fn callout<DB: DrawingBackend>(
        &mut self,
        a: &DrawingArea<DB, Shift>,
        pos: (i32, i32),
        to: Option<(i32, i32)>,
        text: &str,
        colour: RGBColor,
        corner: Corner,
    ) -> Result<(), VizError> {
        let style = TextStyle::from((FONT, 15).into_font()).color(&colour);
        let (w, h) = a.estimate_text_size(text, &style)?;
        let (w, h) = (w as i32, h as i32);
        let (x, y) = match corner {
            Corner::TopLeft => pos,
            Corner::BottomRight => (pos.0 - w, pos.1 - h),
        };
        let b = [x - 3, y - 2, x + w + 3, y + h + 3];
        let (aw, ah) = a.dim_in_pixel();
        let outside = b[0] < 0 || b[1] < 0 || b[2] > aw as i32 || b[3] > ah as i32;
        let overlaps = self
            .0
            .iter()
            .any(|o| b[0] < o[2] && o[0] < b[2] && b[1] < o[3] && o[1] < b[3]);
        if outside || overlaps {
            return Ok(());
        }
        self.0.push(b);
        if let Some(to) = to {
            line(a, vec![pos, to], colour.stroke_width(1))?;
        }
        a.draw(&Rectangle::new(
            [(b[0], b[1]), (b[2], b[3])],
            WHITE.mix(0.85).filled(),
        ))?;
        a.draw(&Text::new(
            text.to_string(),
            (x, y),
            style.pos(Pos::new(HPos::Left, VPos::Top)),
        ))?;
        Ok(())
    }
}

fn line<DB: DrawingBackend>(
    a: &DrawingArea<DB, Shift>,
    pts: Vec<(i32, i32)>,
    style: ShapeStyle,
) -> Result<(), VizError> {
    a.draw(&PathElement::new(pts, style))?;
    Ok(())
}

/// How one kind of segment mark is drawn. The marks (`draw_marks`) and
/// their legend swatches (`mark_legend`) are both made by `mark_paths`
/// from one of these, so that the legend shows what the plot shows.
#[derive(Clone, Copy)]
struct MarkStyle {
    colour: RGBColor,
    width: u32,
    /// At least this many pixels each side of the middle, so that one
    /// segment stays visible in a zoomed-out view.
    min_half: f64,
    /// Draw marks covering the same pixels once.
    thin: bool,
    /// End caps when the mark is tall enough (`CAPS_FROM`).
    caps: bool,
}

const ORIGINAL_MARK: MarkStyle = MarkStyle {
    colour: ORIGINAL,
    width: 1,
    min_half: 1.5,
    thin: true,
    caps: true,
};
const RETRANSMIT_MARK: MarkStyle = MarkStyle {
    colour: RETRANSMIT,
    width: 3,
    min_half: 5.0,
    thin: false,
    caps: false,
};
const SACK_MARK: MarkStyle = MarkStyle {
    colour: SACK,
    width: 1,
    min_half: 1.0,
    thin: true,
    caps: true,
};
const DSACK_MARK: MarkStyle = MarkStyle {
    colour: DSACK,
    width: 3,
    min_half: 4.0,
    thin: false,
    caps: false,
};
/// Half-height from which a mark gets its caps (I-beams when zoomed in).
const CAPS_FROM: f64 = 5.0;
/// Half-height of a mark in the legend.
const SWATCH_HALF: i32 = 7;
const CROSS_R: i32 = 5;
const CROSS_WIDTH: u32 = 2;
const UNA_WIDTH: u32 = 2;

/// A mark's strokes, as offsets from the middle of its top end: the bar
/// from `(0, 0)` to `(0, len)`, and caps when `caps`.
fn mark_paths(len: i32, caps: bool) -> Vec<Vec<(i32, i32)>> {
    let mut out = vec![vec![(0, 0), (0, len)]];
    if caps {
        out.push(vec![(-2, 0), (2, 0)]);
        out.push(vec![(-2, len), (2, len)]);
    }
    out
}

/// A drop's X, as offsets from its centre.
fn cross_paths() -> [Vec<(i32, i32)>; 2] {
    let r = CROSS_R;
    [vec![(-r, -r), (r, r)], vec![(-r, r), (r, -r)]]
}

/// Gives a legend entry the swatch for a kind of mark: its strokes from
/// `mark_paths`, with caps when most marks in view have them.
fn mark_legend<'a, DB: DrawingBackend + 'a>(
    anno: &mut SeriesAnno<'a, DB>,
    m: MarkStyle,
    capped: bool,
) {
    let s = m.colour.stroke_width(m.width);
    let paths = mark_paths(2 * SWATCH_HALF, capped);
    let strokes = paths.len();
    let at = |(x, y): (i32, i32)| EmptyElement::at((x + 10, y - SWATCH_HALF));
    let path = move |k: usize| PathElement::new(paths[k].clone(), s);
    // One closure per count of strokes: plotters' legend takes one
    // element type per entry.
    if strokes == 3 {
        anno.legend(move |p| at(p) + path(0) + path(1) + path(2));
    } else {
        anno.legend(move |p| at(p) + path(0));
    }
}

fn cross_legend<'a, DB: DrawingBackend + 'a>(anno: &mut SeriesAnno<'a, DB>, colour: RGBColor) {
    let s = colour.stroke_width(CROSS_WIDTH);
    anno.legend(move |(x, y)| {
        let [a, b] = cross_paths();
        EmptyElement::at((x + 10, y)) + PathElement::new(a, s) + PathElement::new(b, s)
    });
}

/// Draws segment marks as vertical bars spanning their bytes (I-beams when
/// zoomed in, like the double-ended arrows of the PRR paper), at least
/// `m.min_half` pixels tall each side of the middle so that one segment is
/// visible in a zoomed-out view. Returns whether most marks drawn got
/// caps, for the legend's swatch.
fn draw_marks<DB: DrawingBackend>(
    a: &DrawingArea<DB, Shift>,
    map: &Map,
    marks: &[Mark],
    m: MarkStyle,
) -> Result<bool, VizError> {
    let style = m.colour.stroke_width(m.width);
    let mut seen = PixelSet::new();
    let (mut drawn, mut capped) = (0usize, 0usize);
    for mk in marks {
        let x = map.x(mk.t).round() as i32;
        let (top, bot) = (map.y(mk.hi), map.y(mk.lo));
        let mid = (top + bot) / 2.0;
        // Half a pixel of air between adjacent segments.
        let half = ((bot - top) / 2.0 - 0.5).max(m.min_half);
        let (y0, y1) = (
            map.clamp_y(mid - half).round() as i32,
            map.clamp_y(mid + half).round() as i32,
        );
        if m.thin && !seen.first((x, y0, y1)) {
            continue;
        }
        let caps = m.caps && half >= CAPS_FROM;
        drawn += 1;
        capped += caps as usize;
        for p in mark_paths(y1 - y0, caps) {
            line(
                a,
                p.into_iter().map(|(dx, dy)| (x + dx, y0 + dy)).collect(),
                style,
            )?;
        }
    }
    Ok(drawn > 0 && capped * 2 >= drawn)
}

fn draw_crosses<DB: DrawingBackend>(
    a: &DrawingArea<DB, Shift>,
    map: &Map,
    marks: &[Mark],
    colour: RGBColor,
) -> Result<(), VizError> {
    let style = colour.stroke_width(CROSS_WIDTH);
    for m in marks {
        let x = map.x(m.t).round() as i32;
        let y = map.clamp_y((map.y(m.hi) + map.y(m.lo)) / 2.0).round() as i32;
        for p in cross_paths() {
            line(
                a,
                p.into_iter().map(|(dx, dy)| (x + dx, y + dy)).collect(),
                style,
            )?;
        }
    }
    Ok(())
}

impl Picture for Tsg<'_> {
    fn size(&self) -> (u32, u32) {
        (1400, 860)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), VizError> {
        let p = self.prepare();
        let f = self.flow;
        let title = format!(
            "{}: flow {} — time-sequence graph at the sender",
            self.scenario, f.name
        );
        let rtx = p.retransmissions.len();
        let drops = p.loss_drops.len() + p.queue_drops.len();
        let n =
            |k: usize, one: &str, many: &str| format!("{k} {}", if k == 1 { one } else { many });
        let mut subtitle = format!(
            "{}, {}, {} dropped, {} in view",
            n(p.originals.len() + rtx, "transmission", "transmissions"),
            n(rtx, "retransmission", "retransmissions"),
            drops,
            n(p.recoveries.len(), "recovery", "recoveries")
        );
        if let Some(n) = &self.note {
            subtitle = format!("{subtitle} — {n}");
        }
        let body = header(root, &title, &subtitle)?;
        let ((x0, x1), (t0, t1)) = self.axis();
        let (y0, y1) = p.y;
        let mut chart = cartesian(&body, 84, axis_range(x0, x1)?, axis_range(y0, y1)?)?;
        let span = x1 - x0;
        let yspan = y1 - y0;
        mesh(&mut chart)
            .x_desc("time at the sender (s)")
            .y_desc(format!(
                "sequence number (segments of {} B from the flow's start)",
                p.mss
            ))
            .x_label_formatter(&|v| tick(*v, span))
            .y_label_formatter(&|v| tick(*v, yspan))
            .x_labels(12)
            .y_labels(12)
            .draw()?;

        let area = chart.plotting_area().strip_coord_spec();
        let (w, h) = area.dim_in_pixel();
        let map = Map {
            x0,
            x1,
            y0,
            y1,
            w: w as f64,
            h: h as f64,
        };

        // Recovery periods under everything else.
        let mut band_kinds = Vec::new();
        for r in &p.recoveries {
            let colour = if r.kind == "timeout" {
                RTO_BAND
            } else {
                FAST_BAND
            };
            let xs = map.x(r.start_s.max(x0)).round() as i32;
            let xe = map.x(r.end_s.unwrap_or(x1).min(x1)).round() as i32;
            area.draw(&Rectangle::new(
                [(xs, 0), (xe.max(xs + 1), h as i32)],
                colour.filled(),
            ))?;
            if !band_kinds.contains(&r.kind) {
                band_kinds.push(r.kind.clone());
            }
        }

        let sack_caps = draw_marks(&area, &map, &p.sacks, SACK_MARK)?;
        let dsack_caps = draw_marks(&area, &map, &p.dsacks, DSACK_MARK)?;

        let una_px: Vec<(f64, f64)> = staircase(&p.una, t1)
            .into_iter()
            .map(|(t, u)| (map.x(t), map.clamp_y(map.y(u))))
            .collect();
        let una_px = dedup_pixels(una_px, |&(x, y)| (x.round() as i32, y.round() as i32));
        if una_px.len() > 1 {
            let pts = una_px
                .iter()
                .map(|&(x, y)| (x.round() as i32, y.round() as i32))
                .collect();
            line(&area, pts, UNA.stroke_width(UNA_WIDTH))?;
        }

        let original_caps = draw_marks(&area, &map, &p.originals, ORIGINAL_MARK)?;
        let rtx_caps = draw_marks(&area, &map, &p.retransmissions, RETRANSMIT_MARK)?;
        draw_crosses(&area, &map, &p.queue_drops, QUEUE_DROP)?;
        draw_crosses(&area, &map, &p.loss_drops, LOSS_DROP)?;

        // Point at the drop, the retransmission and the end of each
        // recovery while there are few enough to read; the legend explains
        // the colours in any case.
        if p.recoveries.len() <= 4 {
            let mut first_drop = p
                .loss_drops
                .iter()
                .chain(&p.queue_drops)
                .min_by(|a, b| a.t.total_cmp(&b.t))
                .copied();
            let mut labels = Labels(vec![legend_box(&area, &p, &band_kinds)?]);
            for r in &p.recoveries {
                let xs = map.x(r.start_s.max(x0)).round() as i32;
                let timeout = r.kind == "timeout";
                let what = if timeout {
                    "RTO recovery"
                } else {
                    "fast recovery"
                };
                let text = match r.end_s {
                    Some(e) => format!("{what}: {:.0} ms", (e - r.start_s) * 1e3),
                    None => format!("{what} (open at the end)"),
                };
                labels.callout(&area, (xs.max(0) + 4, 6), None, &text, INK, Corner::TopLeft)?;
                if let Some(e) = r.end_s.filter(|&e| e <= x1) {
                    let xe = map.x(e).round() as i32;
                    labels.callout(
                        &area,
                        (xe - 4, h as i32 - 6),
                        None,
                        "recovery ends",
                        INK,
                        Corner::BottomRight,
                    )?;
                }
                // The recovery's first retransmission, when it is in view
                // (a later one is not the fast retransmit).
                let end = r.end_s.unwrap_or(f64::INFINITY);
                let first_rtx = f
                    .data
                    .iter()
                    .find(|d| d.fate == Fate::Sent && d.tx > 1 && d.time_s >= r.start_s - 1e-9)
                    .filter(|d| d.time_s <= end && d.time_s >= t0 && d.time_s <= t1);
                if let Some(d) = first_rtx {
                    let at = map.at(&Mark {
                        t: d.time_s,
                        lo: d.seq as f64 / p.mss as f64,
                        hi: d.seq.saturating_add(d.len as u64) as f64 / p.mss as f64,
                    });
                    let label = if timeout {
                        "retransmission after RTO"
                    } else {
                        "fast retransmit"
                    };
                    labels.callout(
                        &area,
                        (at.0 + 14, at.1 + 14),
                        Some(at),
                        label,
                        RETRANSMIT,
                        Corner::TopLeft,
                    )?;
                }
                // The first drop before this recovery, if not yet named.
                if let Some(d) = first_drop.filter(|d| d.t <= r.start_s) {
                    let at = map.at(&d);
                    labels.callout(
                        &area,
                        (at.0 - 14, at.1 - 14),
                        Some(at),
                        "dropped",
                        RGBColor(170, 100, 0),
                        Corner::BottomRight,
                    )?;
                    first_drop = None;
                }
            }
        }

        // Legend: one entry per kind of mark present, drawn from empty
        // series because the marks themselves are pixel-space elements.
        type Coord = (f64, f64);
        let none = || std::iter::empty::<PathElement<Coord>>();
        mark_legend(
            chart.draw_series(none())?.label("original transmission"),
            ORIGINAL_MARK,
            original_caps,
        );
        if !p.retransmissions.is_empty() {
            mark_legend(
                chart.draw_series(none())?.label("retransmission"),
                RETRANSMIT_MARK,
                rtx_caps,
            );
        }
        if !p.loss_drops.is_empty() {
            cross_legend(
                chart
                    .draw_series(none())?
                    .label("dropped by the loss model (at send time)"),
                LOSS_DROP,
            );
        }
        if !p.queue_drops.is_empty() {
            cross_legend(
                chart
                    .draw_series(none())?
                    .label("dropped at the full queue"),
                QUEUE_DROP,
            );
        }
        chart
            .draw_series(none())?
            .label("snd.una (cumulative ACK)")
            .legend(|(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], UNA.stroke_width(UNA_WIDTH))
            });
        if !p.sacks.is_empty() {
            mark_legend(
                chart
                    .draw_series(none())?
                    .label("SACK block (at ACK arrival)"),
                SACK_MARK,
                sack_caps,
            );
        }
        if !p.dsacks.is_empty() {
            mark_legend(
                chart.draw_series(none())?.label("DSACK block"),
                DSACK_MARK,
                dsack_caps,
            );
        }
        for kind in &band_kinds {
            let (colour, label) = if kind == "timeout" {
                (RTO_BAND, "RTO recovery (summary.json)")
            } else {
                (FAST_BAND, "fast recovery (summary.json)")
            };
            chart
                .draw_series(none())?
                .label(label)
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 7), (x + 20, y + 7)], colour.filled())
                });
        }
        // Below the strip where recovery bands are named.
        legend(&mut chart, SeriesLabelPosition::Coordinate(10, 34))?;
        Ok(())
    }
}
