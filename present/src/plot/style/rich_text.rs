//! Rich lines of text: plain words mixed with the model's parameters as the paper writes them
//! (`T_par^max`: a base with a subscript and a superscript stacked after it).

use super::text::{anchored, text, text_width};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

/// A parameter of the model as the paper writes it: `T` with subscript `par` and superscript
/// `max` (either script may be empty).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Symbol {
    pub(crate) base: &'static str,
    pub(crate) sub: &'static str,
    pub(crate) sup: &'static str,
}

impl Symbol {
    pub(crate) const fn new(base: &'static str, sub: &'static str, sup: &'static str) -> Self {
        Symbol { base, sub, sup }
    }
}

/// A piece of a rich line of text: plain text or a [`Symbol`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Seg {
    Text(String),
    Sym(Symbol),
}

impl Seg {
    pub(crate) fn text(s: impl Into<String>) -> Self {
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
pub(crate) fn rich_width(segs: &[Seg], size: u32) -> i32 {
    segs.iter().map(|s| seg_width(s, size)).sum()
}

/// Draws a rich line starting at `at.0`, vertically centred on `at.1`. A symbol's subscript
/// and superscript stand one above the other after its base, as in LaTeX's `T_par^max`.
pub(crate) fn draw_rich<DB: DrawingBackend>(
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
