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

/// How far outside the canvas a mapped coordinate may lie, in pixels: far beyond any figure,
/// yet small enough that the callers' additions (ticks, labels, clipping) stay far from
/// `i32`'s ends.
const FAR_PX: f64 = (1 << 20) as f64;

/// A pixel coordinate computed in `f64`, rounded and clamped to [`FAR_PX`] either side (a
/// NaN, from an empty range, to 0). A value far off the axis (a trace's interval up to
/// 1e308) mapped to `i32::MAX` and the subtraction from the plot's bottom overflowed (a
/// panic in a debug build, a wrapped coordinate in a release one).
fn pixel(v: f64) -> i32 {
    if v.is_nan() {
        return 0;
    }
    // Within ±2^20 the cast is exact.
    v.clamp(-FAR_PX, FAR_PX).round() as i32
}

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
        pixel(f64::from(self.left) + f * f64::from(self.width))
    }

    pub(crate) fn px_y(&self, y: f64) -> i32 {
        let f = (y - self.y.0) / (self.y.1 - self.y.0);
        pixel(f64::from(self.bottom()) - f * f64::from(self.height))
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

    /// Issue 46, F5: `plot` of a trace whose interval reached 2e12 (or 1e308) panicked,
    /// "attempt to subtract with overflow", here. Any value, finite or not, maps to a
    /// bounded pixel on both axes.
    #[test]
    fn a_value_far_off_the_axis_maps_to_a_bounded_pixel() {
        let p = Plot {
            left: 60,
            top: 20,
            width: 400,
            height: 300,
            x: (1.0, 18.0),
            y: (0.0, 20_000.0),
        };
        let far = FAR_PX as i32;
        for v in [2e12, 1e308, f64::MAX, f64::INFINITY] {
            assert_eq!(p.px_y(v), -far, "{v}");
            assert_eq!(p.px_y(-v), far, "{v}");
            assert_eq!(p.px_x(v), far, "{v}");
            assert_eq!(p.px_x(-v), -far, "{v}");
        }
        assert_eq!(p.px_y(f64::NAN), 0);
        // An empty range maps its one value nowhere in particular, without a panic.
        let flat = p.with_y((5.0, 5.0));
        let _ = (flat.px_y(5.0), flat.px_y(6.0));
        // In range, the mapping is what it was.
        assert_eq!(p.px_y(0.0), p.bottom());
        assert_eq!(p.px_y(20_000.0), p.top);
        assert_eq!(p.px_x(18.0), p.right());
    }
}
