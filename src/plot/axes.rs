//! Plot rectangles and their axes, in pixels.
//!
//! The figures lay out their panels themselves (a grid of equal plot areas with labels only on
//! the outer edges, as in the paper's Figures 3-11), so each panel's data-to-pixel mapping,
//! grid lines, ticks and frame are drawn here rather than by plotters' chart builder, whose
//! label areas would shrink the outer panels.

use super::style::{anchored, text, GRID_LINE, INK, MUTED, TICK};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

/// A plot area in pixels and the data ranges it shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Plot {
    pub(crate) left: i32,
    pub(crate) top: i32,
    pub(crate) width: i32,
    pub(crate) height: i32,
    pub(crate) x: (f64, f64),
    pub(crate) y: (f64, f64),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Left,
    Right,
}

const TICK_LEN: i32 = 8;

impl Plot {
    pub(crate) fn right(&self) -> i32 {
        self.left + self.width
    }

    pub(crate) fn bottom(&self) -> i32 {
        self.top + self.height
    }

    /// The same rectangle with another y range: a secondary (right) axis.
    pub(crate) fn with_y(&self, y: (f64, f64)) -> Plot {
        Plot { y, ..*self }
    }

    pub(crate) fn px_x(&self, x: f64) -> i32 {
        let f = (x - self.x.0) / (self.x.1 - self.x.0);
        self.left + (f * f64::from(self.width)).round() as i32
    }

    pub(crate) fn px_y(&self, y: f64) -> i32 {
        let f = (y - self.y.0) / (self.y.1 - self.y.0);
        self.bottom() - (f * f64::from(self.height)).round() as i32
    }

    pub(crate) fn px(&self, (x, y): (f64, f64)) -> (i32, i32) {
        (self.px_x(x), self.px_y(y))
    }

    /// A data-space rectangle, clipped to the plot area.
    pub(crate) fn fill<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        (x0, y0): (f64, f64),
        (x1, y1): (f64, f64),
        color: RGBAColor,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        let clamp_x = |x: i32| x.clamp(self.left, self.right());
        let clamp_y = |y: i32| y.clamp(self.top, self.bottom());
        area.draw(&Rectangle::new(
            [
                (clamp_x(self.px_x(x0)), clamp_y(self.px_y(y1))),
                (clamp_x(self.px_x(x1)), clamp_y(self.px_y(y0))),
            ],
            color.filled(),
        ))
    }

    /// Light horizontal grid lines at `ticks`.
    pub(crate) fn grid_lines<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        ticks: &[f64],
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        for &t in ticks {
            let y = self.px_y(t);
            area.draw(&PathElement::new(
                vec![(self.left, y), (self.right(), y)],
                GRID_LINE.stroke_width(1),
            ))?;
        }
        Ok(())
    }

    /// Tick marks on `side` at `ticks`, with labels when `labelled` (shared axes label only
    /// the outer panels).
    pub(crate) fn y_ticks<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        side: Side,
        ticks: &[f64],
        labelled: bool,
        label: impl Fn(f64) -> String,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        let (x, dir, h) = match side {
            Side::Left => (self.left, -1, HPos::Right),
            Side::Right => (self.right(), 1, HPos::Left),
        };
        let style = anchored(text(TICK), h, VPos::Center);
        for &t in ticks {
            let y = self.px_y(t);
            area.draw(&PathElement::new(
                vec![(x, y), (x + dir * TICK_LEN, y)],
                MUTED.stroke_width(2),
            ))?;
            if labelled {
                area.draw_text(&label(t), &style, (x + dir * (TICK_LEN + 6), y))?;
            }
        }
        Ok(())
    }

    /// Tick marks under the plot at `ticks`, labelled when `labelled`.
    pub(crate) fn x_ticks<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        ticks: &[f64],
        labelled: bool,
        label: impl Fn(f64) -> String,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        let style = anchored(text(TICK), HPos::Center, VPos::Top);
        let y = self.bottom();
        for &t in ticks {
            let x = self.px_x(t);
            area.draw(&PathElement::new(
                vec![(x, y), (x, y + TICK_LEN)],
                MUTED.stroke_width(2),
            ))?;
            if labelled {
                area.draw_text(&label(t), &style, (x, y + TICK_LEN + 6))?;
            }
        }
        Ok(())
    }

    /// The frame around the plot area, `width` pixels wide.
    pub(crate) fn frame<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        width: u32,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        let color = if width > 1 { INK } else { MUTED };
        area.draw(&Rectangle::new(
            [(self.left, self.top), (self.right(), self.bottom())],
            color.stroke_width(width),
        ))
    }
}

/// Height of tick labels under an x axis, tick mark included.
pub(crate) const X_TICKS_HEIGHT: i32 = TICK_LEN + 6 + TICK as i32;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_data_to_pixels_with_y_up() {
        let p = Plot {
            left: 100,
            top: 50,
            width: 400,
            height: 200,
            x: (0.5, 4.5),
            y: (0.0, 1000.0),
        };
        assert_eq!(p.px((0.5, 0.0)), (100, 250));
        assert_eq!(p.px((4.5, 1000.0)), (500, 50));
        assert_eq!(p.px((2.5, 500.0)), (300, 150));
        let q = p.with_y((0.0, 10.0));
        assert_eq!(q.px_y(5.0), 150);
        assert_eq!((q.right(), q.bottom()), (500, 250));
    }
}
