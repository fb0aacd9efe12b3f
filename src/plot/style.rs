//! What all figures share: colours, text sizes, axis scales, markers, legends and the
//! `T_par^max`-style symbols, so the three figures read as one family.
//!
//! Sizes are pixels of a 300 dpi PNG ([`super::PNG_DPI`]): a figure placed at its design
//! width on paper has 6-8 pt text.

use super::fonts::{self, FAMILY};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Communications: blue, as in the paper's figures (matplotlib's first colour).
pub const COMM: RGBColor = RGBColor(0x1f, 0x77, 0xb4);
/// Computations: orange.
pub const COMP: RGBColor = RGBColor(0xff, 0x7f, 0x0e);
/// Computations alone in the stacked view: green, as in Figure 2.
pub const COMP_ALONE: RGBColor = RGBColor(0x2c, 0xa0, 0x2c);
pub const INK: RGBColor = RGBColor(0x20, 0x20, 0x20);
pub const MUTED: RGBColor = RGBColor(0x60, 0x60, 0x60);
pub const GRID_LINE: RGBColor = RGBColor(0xdd, 0xdd, 0xdd);
/// Cores of alternate NUMA nodes of the first socket (Figure 4's grey areas).
pub const SHADE: RGBColor = RGBColor(0xec, 0xec, 0xec);

/// Tick labels and legend text.
pub const TICK: u32 = 26;
/// Axis descriptions and panel titles.
pub const LABEL: u32 = 28;
/// Figure titles.
pub const TITLE: u32 = 34;
/// Blank border around every figure.
pub const MARGIN: i32 = 24;
/// Room for the tick labels of a y axis (six digits of MB/s).
pub const Y_TICKS: i32 = 100;
/// Radius of data markers.
pub const MARKER: i32 = 7;

pub fn text(size: u32) -> TextStyle<'static> {
    (FAMILY, size).into_font().color(&INK)
}

pub fn bold(size: u32) -> TextStyle<'static> {
    (FAMILY, size)
        .into_font()
        .style(FontStyle::Bold)
        .color(&INK)
}

pub fn anchored(style: TextStyle<'_>, h: HPos, v: VPos) -> TextStyle<'_> {
    style.pos(Pos::new(h, v))
}

/// Width of `text` in pixels at `size` (regular face), for layouts computed before drawing.
pub fn text_width(text: &str, size: u32) -> i32 {
    fonts::measure(text, FontStyle::Normal, f64::from(size))
        .map(|(w, _)| w as i32)
        .unwrap_or(text.len() as i32 * size as i32 * 6 / 10)
}

/// `size`, or the smaller size at which `text` (bold when `strong`) fits in `width` pixels
/// (never under 12 px).
pub fn fitted_size(text: &str, strong: bool, size: u32, width: i32) -> u32 {
    let face = if strong {
        FontStyle::Bold
    } else {
        FontStyle::Normal
    };
    let natural = fonts::measure(text, face, f64::from(size))
        .map(|(w, _)| w as i32)
        .unwrap_or(width);
    if natural > width && natural > 0 {
        (size as i32 * width / natural).max(12) as u32
    } else {
        size
    }
}

/// Draws a centred header line (title when `strong`, else a muted subtitle) with its top at
/// `y`, shrinking the font below `size` when the line would not fit in `width` pixels (long
/// machine names, trace paths).
pub fn draw_header<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    line: &str,
    strong: bool,
    size: u32,
    (center, y): (i32, i32),
    width: i32,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let size = fitted_size(line, strong, size, width);
    let style = if strong {
        bold(size)
    } else {
        text(size).color(&MUTED)
    };
    area.draw_text(line, &anchored(style, HPos::Center, VPos::Top), (center, y))
}

/// A y axis from `bottom` to `top` with a tick every `step` (MB/s).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    pub bottom: f64,
    pub top: f64,
    pub step: f64,
}

impl Scale {
    pub fn ticks(&self) -> Vec<f64> {
        let n = ((self.top - self.bottom) / self.step).round() as usize;
        (0..=n)
            .map(|i| self.bottom + i as f64 * self.step)
            .collect()
    }

    pub fn range(&self) -> (f64, f64) {
        (self.bottom, self.top)
    }
}

/// A scale spanning `lo..hi` with some margin and about five intervals, not forced to start at
/// 0: for judging the spread of samples, where a 0-based axis would flatten it.
pub fn span_scale(lo: f64, hi: f64) -> Scale {
    let (lo, hi) = if hi > lo {
        (lo, hi)
    } else {
        (lo - 1.0, lo + 1.0)
    };
    let pad = (hi - lo) * 0.05;
    let step = nice_step((hi - lo + 2.0 * pad) / 5.0);
    let bottom = (((lo - pad) / step).floor() * step).max(0.0);
    let top = ((hi + pad) / step).ceil() * step;
    Scale { bottom, top, step }
}

/// The smallest of 1, 2, 2.5, 5 x 10^k at least `raw`.
fn nice_step(raw: f64) -> f64 {
    if !(raw > 0.0 && raw.is_finite()) {
        return 1.0;
    }
    let magnitude = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|&s| s >= raw * (1.0 - 1e-9))
        .unwrap_or(10.0 * magnitude)
}

/// Scales for axes drawn side by side (left and right axes of one panel) with the same number
/// of intervals, so one set of grid lines serves both. Each axis starts at 0 (a bandwidth
/// axis that does not start at 0 exaggerates small losses) and leaves 5 % headroom above its
/// largest value; the interval count (4 to 6) is the one that wastes least height.
pub fn aligned_scales(maxima: &[f64]) -> Vec<Scale> {
    let best = (4..=6)
        .map(|n| {
            let scales: Vec<Scale> = maxima
                .iter()
                .map(|&m| {
                    let step = nice_step(m.max(1.0) * 1.05 / f64::from(n));
                    Scale {
                        bottom: 0.0,
                        top: step * f64::from(n),
                        step,
                    }
                })
                .collect();
            let waste: f64 = scales
                .iter()
                .zip(maxima)
                .map(|(s, &m)| s.top / m.max(1.0))
                .sum();
            (waste, scales)
        })
        .min_by(|a, b| a.0.total_cmp(&b.0));
    best.map(|(_, s)| s).unwrap_or_default()
}

/// Core-count ticks: multiples of a step chosen so at most `max_ticks` labels fit.
pub fn core_ticks(max_cores: u32, max_ticks: u32) -> Vec<f64> {
    let step = [1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64, 128]
        .into_iter()
        .find(|&s| max_cores / s <= max_ticks)
        .unwrap_or(max_cores.max(1));
    (1..=max_cores / step)
        .map(|i| f64::from(i * step))
        .collect()
}

/// Tick label of a bandwidth axis: whole MB/s.
pub fn mbps_label(v: f64) -> String {
    format!("{v:.0}")
}

/// How a measured point is marked, as in the paper: ● alone, ▼ in parallel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Circle,
    DownTriangle,
    /// A ring around a measured point whose phase stopped at its time limit before reaching
    /// the asked stability: the value is less certain than its neighbours'.
    Ring,
}

/// Draws `shape` centred on the pixel `at`.
pub fn draw_marker<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    at: (i32, i32),
    shape: Shape,
    color: RGBColor,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (x, y) = at;
    let r = MARKER;
    match shape {
        Shape::Circle => area.draw(&Circle::new((x, y), r, color.filled())),
        Shape::Ring => area.draw(&Circle::new((x, y), 2 * r + 2, color.stroke_width(2))),
        Shape::DownTriangle => area.draw(&Polygon::new(
            vec![
                (x - r - 1, y - r + 1),
                (x + r + 1, y - r + 1),
                (x, y + r + 2),
            ],
            color.filled(),
        )),
    }
}

/// A line in pixels, dashed or solid.
pub fn draw_line<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    points: &[(i32, i32)],
    color: RGBColor,
    width: u32,
    dashed: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let style = color.stroke_width(width);
    if !dashed {
        return area.draw(&PathElement::new(points.to_vec(), style));
    }
    for w in points.windows(2) {
        let ((x0, y0), (x1, y1)) = (w[0], w[1]);
        let (dx, dy) = (f64::from(x1 - x0), f64::from(y1 - y0));
        let len = dx.hypot(dy);
        let (dash, gap) = (12.0, 7.0);
        let mut t = 0.0;
        while t < len {
            let e = (t + dash).min(len);
            let at = |s: f64| {
                (
                    x0 + (dx * s / len).round() as i32,
                    y0 + (dy * s / len).round() as i32,
                )
            };
            area.draw(&PathElement::new(vec![at(t), at(e)], style))?;
            t += dash + gap;
        }
    }
    Ok(())
}

/// What a legend entry shows before its label.
#[derive(Debug, Clone)]
pub enum Swatch {
    Line {
        color: RGBColor,
        dashed: bool,
    },
    Marker {
        shape: Shape,
        color: RGBColor,
    },
    /// A filled square with an optional border: shaded areas, boxes of a box plot.
    Patch {
        fill: RGBAColor,
        border: Option<RGBColor>,
    },
    /// An empty square drawn with this line width: the frame of calibration panels.
    Frame(u32),
}

pub struct LegendItem {
    pub swatch: Swatch,
    pub label: String,
}

impl LegendItem {
    pub fn new(swatch: Swatch, label: impl Into<String>) -> Self {
        LegendItem {
            swatch,
            label: label.into(),
        }
    }
}

const SWATCH_W: i32 = 46;
const SWATCH_GAP: i32 = 10;
const ITEM_GAP: i32 = 40;
pub const LEGEND_ROW: i32 = 40;

/// Entries laid out left to right, wrapping at `width`: each row's items and its width.
fn legend_rows(items: &[LegendItem], width: i32) -> Vec<(Vec<&LegendItem>, i32)> {
    let mut rows: Vec<(Vec<&LegendItem>, i32)> = Vec::new();
    for item in items {
        let w = SWATCH_W + SWATCH_GAP + text_width(&item.label, TICK);
        match rows.last_mut() {
            Some((row, used)) if *used + ITEM_GAP + w <= width => {
                row.push(item);
                *used += ITEM_GAP + w;
            }
            _ => rows.push((vec![item], w)),
        }
    }
    rows
}

/// Height the legend of `items` takes when wrapped at `width` pixels.
pub fn legend_height(items: &[LegendItem], width: i32) -> i32 {
    legend_rows(items, width).len() as i32 * LEGEND_ROW
}

/// Draws the legend centred in the `width` pixels right of `left`, rows from `top` down.
pub fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    items: &[LegendItem],
    left: i32,
    top: i32,
    width: i32,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let label_style = anchored(text(TICK), HPos::Left, VPos::Center);
    for (i, (row, used)) in legend_rows(items, width).into_iter().enumerate() {
        let y = top + i as i32 * LEGEND_ROW + LEGEND_ROW / 2;
        let mut x = left + (width - used) / 2;
        for item in row {
            draw_swatch(area, &item.swatch, x, y)?;
            let tx = x + SWATCH_W + SWATCH_GAP;
            area.draw_text(&item.label, &label_style, (tx, y))?;
            x = tx + text_width(&item.label, TICK) + ITEM_GAP;
        }
    }
    Ok(())
}

fn draw_swatch<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    swatch: &Swatch,
    x: i32,
    y: i32,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let half = 12;
    let (l, r) = (x + SWATCH_W / 2 - half, x + SWATCH_W / 2 + half);
    match swatch {
        Swatch::Line { color, dashed } => {
            draw_line(area, &[(x, y), (x + SWATCH_W, y)], *color, 4, *dashed)
        }
        Swatch::Marker { shape, color } => draw_marker(area, (x + SWATCH_W / 2, y), *shape, *color),
        Swatch::Patch { fill, border } => {
            area.draw(&Rectangle::new(
                [(l, y - half), (r, y + half)],
                fill.filled(),
            ))?;
            match border {
                Some(c) => area.draw(&Rectangle::new(
                    [(l, y - half), (r, y + half)],
                    c.stroke_width(2),
                )),
                None => Ok(()),
            }
        }
        Swatch::Frame(width) => area.draw(&Rectangle::new(
            [(l, y - half), (r, y + half)],
            INK.stroke_width(*width),
        )),
    }
}

/// A parameter of the model as the paper writes it: `T` with subscript `par` and superscript
/// `max` (either script may be empty).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Symbol {
    pub base: &'static str,
    pub sub: &'static str,
    pub sup: &'static str,
}

impl Symbol {
    pub const fn new(base: &'static str, sub: &'static str, sup: &'static str) -> Self {
        Symbol { base, sub, sup }
    }
}

/// A piece of a rich line of text: plain text or a [`Symbol`].
#[derive(Debug, Clone, PartialEq)]
pub enum Seg {
    Text(String),
    Sym(Symbol),
}

impl Seg {
    pub fn text(s: impl Into<String>) -> Self {
        Seg::Text(s.into())
    }
}

/// Scripts are set at 70 % of the text size, as in LaTeX.
fn script_size(size: u32) -> u32 {
    size * 7 / 10
}

fn seg_width(seg: &Seg, size: u32) -> i32 {
    match seg {
        Seg::Text(t) => text_width(t, size),
        Seg::Sym(s) => {
            let small = script_size(size);
            text_width(s.base, size) + 1 + text_width(s.sub, small).max(text_width(s.sup, small))
        }
    }
}

/// Width in pixels of a rich line at `size`.
pub fn rich_width(segs: &[Seg], size: u32) -> i32 {
    segs.iter().map(|s| seg_width(s, size)).sum()
}

/// Draws a rich line starting at `at.0`, vertically centred on `at.1`. A symbol's subscript
/// and superscript stand one above the other after its base, as in LaTeX's `T_par^max`.
pub fn draw_rich<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    at: (i32, i32),
    segs: &[Seg],
    size: u32,
    color: RGBColor,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let small = script_size(size);
    let em = f64::from(size) / 1.24;
    let style = |s| anchored(text(s).color(&color), HPos::Left, VPos::Center);
    // A centre anchor puts a text's baseline about 0.32 of its em below the anchor; the
    // subscript's baseline goes 0.25 em below the base's, the superscript's 0.45 em above.
    let shift = |target: f64| (target + 0.32 * em - 0.32 * em * 0.7).round() as i32;
    let (mut x, y) = at;
    for seg in segs {
        match seg {
            // SVG viewers drop a text's leading and trailing spaces: draw the words where
            // they belong and let the spaces be gaps.
            Seg::Text(t) => {
                let lead = t.len() - t.trim_start().len();
                let words = t.trim();
                if !words.is_empty() {
                    area.draw_text(words, &style(size), (x + text_width(&t[..lead], size), y))?;
                }
            }
            Seg::Sym(s) => {
                area.draw_text(s.base, &style(size), (x, y))?;
                let sx = x + text_width(s.base, size) + 1;
                if !s.sub.is_empty() {
                    area.draw_text(s.sub, &style(small), (sx, y + shift(0.25 * em)))?;
                }
                if !s.sup.is_empty() {
                    area.draw_text(s.sup, &style(small), (sx, y + shift(-0.45 * em)))?;
                }
            }
        }
        x += seg_width(seg, size);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_steps() {
        assert_eq!(nice_step(2400.0), 2500.0);
        assert_eq!(nice_step(9200.0), 10000.0);
        assert_eq!(nice_step(1.0), 1.0);
        assert_eq!(nice_step(0.03), 0.05);
        assert_eq!(nice_step(0.0), 1.0);
    }

    #[test]
    fn aligned_scales_share_the_interval_count_and_cover_the_data() {
        let s = aligned_scales(&[11450.4, 43655.6]);
        assert_eq!(s.len(), 2);
        let n0 = (s[0].top / s[0].step).round();
        let n1 = (s[1].top / s[1].step).round();
        assert_eq!(n0, n1);
        assert!((4.0..=6.0).contains(&n0));
        assert!(
            s[0].top >= 11450.4 * 1.05 && s[1].top >= 43655.6 * 1.05,
            "{s:?}"
        );
        // Not absurdly loose either: under twice the data.
        assert!(
            s[0].top < 2.0 * 11450.4 && s[1].top < 2.0 * 43655.6,
            "{s:?}"
        );
        assert_eq!(s[0].ticks().first(), Some(&0.0));
        assert_eq!(s[0].ticks().last(), Some(&s[0].top));
    }

    #[test]
    fn span_scales_cover_the_values_without_starting_at_zero() {
        let s = span_scale(10800.0, 11600.0);
        assert!(s.bottom <= 10800.0 && s.bottom > 9000.0, "{s:?}");
        assert!(s.top >= 11600.0 && s.top < 13000.0, "{s:?}");
        let n = s.ticks().len();
        assert!((4..=9).contains(&n), "{s:?}");
        let flat = span_scale(5.0, 5.0);
        assert!(flat.bottom < 5.0 && flat.top > 5.0);
        assert_eq!(span_scale(0.5, 100.0).bottom, 0.0);
    }

    #[test]
    fn core_ticks_fit_and_are_multiples_of_a_step() {
        assert_eq!(core_ticks(18, 7), vec![3.0, 6.0, 9.0, 12.0, 15.0, 18.0]);
        assert_eq!(core_ticks(4, 7), vec![1.0, 2.0, 3.0, 4.0]);
        assert_eq!(
            core_ticks(64, 8),
            (1..=8).map(|i| f64::from(i * 8)).collect::<Vec<_>>()
        );
        assert!(core_ticks(1, 7) == vec![1.0]);
    }

    #[test]
    fn legend_wraps_rows_within_the_width() {
        let items: Vec<_> = (0..6)
            .map(|i| LegendItem::new(Swatch::Frame(1), format!("entry number {i}")))
            .collect();
        let one = text_width("entry number 0", TICK) + SWATCH_W + SWATCH_GAP;
        assert_eq!(legend_height(&items, 10_000), LEGEND_ROW);
        assert_eq!(legend_height(&items, one), 6 * LEGEND_ROW);
        assert_eq!(legend_height(&items, 2 * one + ITEM_GAP), 3 * LEGEND_ROW);
    }
}
