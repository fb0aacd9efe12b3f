//! Legends: entries (a swatch and a label) laid out in rows that wrap at the figure's width.

use super::marks::{draw_line, draw_marker, Shape};
use super::text::{anchored, text, text_width};
use super::theme::{INK, TICK};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

/// What a legend entry shows before its label.
#[derive(Debug, Clone)]
pub(crate) enum Swatch {
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

pub(crate) struct LegendItem {
    pub(crate) swatch: Swatch,
    pub(crate) label: String,
}

impl LegendItem {
    pub(crate) fn new(swatch: Swatch, label: impl Into<String>) -> Self {
        LegendItem {
            swatch,
            label: label.into(),
        }
    }
}

const SWATCH_W: i32 = 46;
const SWATCH_GAP: i32 = 10;
const ITEM_GAP: i32 = 40;
pub(crate) const LEGEND_ROW: i32 = 40;

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
pub(crate) fn legend_height(items: &[LegendItem], width: i32) -> i32 {
    legend_rows(items, width).len() as i32 * LEGEND_ROW
}

/// Draws the legend centred in the `width` pixels right of `left`, rows from `top` down.
pub(crate) fn draw_legend<DB: DrawingBackend>(
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

#[cfg(test)]
mod tests {
    use super::*;

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
