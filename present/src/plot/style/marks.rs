//! Data markers and lines, drawn in pixels: the paper's ● alone and ▼ in parallel, dashed or
//! solid model lines.

use super::theme::MARKER;
use plotters::coord::Shift;
use plotters::prelude::*;

/// How a measured point is marked, as in the paper: ● alone, ▼ in parallel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    Circle,
    DownTriangle,
    /// A ring around a measured point whose phase stopped at its time limit before reaching
    /// the asked stability: the value is less certain than its neighbours'.
    Ring,
}

/// Draws `shape` centred on the pixel `at`.
pub(crate) fn draw_marker<DB: DrawingBackend>(
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
pub(crate) fn draw_line<DB: DrawingBackend>(
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
