//! Text styles, measured text widths and header lines that shrink to fit.

use super::theme::{INK, MUTED};
use crate::plot::fonts::{self, FAMILY};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

pub(crate) fn text(size: u32) -> TextStyle<'static> {
    (FAMILY, size).into_font().color(&INK)
}

pub(crate) fn bold(size: u32) -> TextStyle<'static> {
    (FAMILY, size)
        .into_font()
        .style(FontStyle::Bold)
        .color(&INK)
}

pub(crate) fn anchored(style: TextStyle<'_>, h: HPos, v: VPos) -> TextStyle<'_> {
    style.pos(Pos::new(h, v))
}

/// Width of `text` in pixels at `size` (regular face), for layouts computed before drawing.
pub(crate) fn text_width(text: &str, size: u32) -> i32 {
    fonts::measure(text, FontStyle::Normal, f64::from(size))
        .map(|(w, _)| w as i32)
        .unwrap_or(text.len() as i32 * size as i32 * 6 / 10)
}

/// `size`, or the smaller size at which `text` (bold when `strong`) fits in `width` pixels
/// (never under 12 px).
pub(crate) fn fitted_size(text: &str, strong: bool, size: u32, width: i32) -> u32 {
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
pub(crate) fn draw_header<DB: DrawingBackend>(
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

/// Draws a figure's title and, under it, its muted subtitle, centred on a figure `width`
/// pixels wide with the theme's margins: the header the single-panel figures share.
pub(crate) fn draw_title_and_subtitle<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    subtitle: &str,
    width: i32,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    use super::theme::{LABEL, MARGIN, TITLE};
    let inner = width - 2 * MARGIN;
    draw_header(area, title, true, TITLE, (width / 2, MARGIN), inner)?;
    draw_header(
        area,
        subtitle,
        false,
        LABEL,
        (width / 2, MARGIN + 48),
        inner,
    )
}
