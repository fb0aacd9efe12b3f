//! The sensitivity curve (Foyer and Goglin's Figure 7): the median figure of merit relative to
//! its best against the bandwidth level, with the 90/75/50% lines of the metric and the
//! thresholds marked where they are reached.

use super::axes::{Plot, Side, X_TICKS_HEIGHT};
use super::style::{
    anchored, draw_line, draw_marker, draw_title_and_subtitle, text, Shape, COMP, LABEL, MARGIN,
    MUTED, Y_TICKS,
};
use super::Figure;
use crate::sensitivity::SensitivityReport;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};
use plotters::style::FontTransform;

const WIDTH: u32 = 1600;
const HEIGHT: u32 = 1000;

/// The curve as drawn: `(level, percent of best)`, and the thresholds reached.
pub struct Curve {
    pub(crate) title: String,
    pub(crate) subtitle: String,
    pub(crate) x_label: String,
    pub(crate) points: Vec<(f64, f64)>,
    pub(crate) thresholds: Vec<(f64, Option<f64>)>,
}

impl Curve {
    pub fn new(r: &SensitivityReport) -> Self {
        Curve {
            title: format!("Bandwidth sensitivity of {}", r.workload),
            subtitle: format!(
                "{} backend, median of {} runs; thresholds: 50% {}, 75% {}, 90% {}",
                r.backend,
                r.repeat,
                level_text(r.thresholds[0].level),
                level_text(r.thresholds[1].level),
                level_text(r.thresholds[2].level)
            ),
            x_label: r.level_meaning.clone(),
            points: r
                .points
                .iter()
                .filter(|p| p.relative.is_finite())
                .map(|p| (p.level, 100.0 * p.relative))
                .collect(),
            thresholds: r
                .thresholds
                .iter()
                .map(|t| (100.0 * t.fraction, t.level))
                .collect(),
        }
    }
}

fn level_text(l: Option<f64>) -> String {
    l.map_or("not reached".into(), |l| format!("{l:.0}"))
}

impl Figure for Curve {
    fn size(&self) -> (u32, u32) {
        (WIDTH, HEIGHT)
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        let w = WIDTH as i32;
        draw_title_and_subtitle(root, &self.title, &self.subtitle, w)?;
        let x_max = self.points.iter().map(|p| p.0).fold(100.0, f64::max);
        let left = MARGIN + LABEL as i32 + 20 + Y_TICKS;
        let top = MARGIN + 110;
        let plot = Plot {
            left,
            top,
            width: w - left - 2 * MARGIN,
            height: HEIGHT as i32 - top - MARGIN - X_TICKS_HEIGHT - LABEL as i32 - 30,
            x: (0.0, x_max),
            y: (0.0, 110.0),
        };
        let y_ticks: Vec<f64> = (0..=5).map(|i| f64::from(i) * 20.0).collect();
        let x_ticks: Vec<f64> = (0..=10).map(|i| f64::from(i) * x_max / 10.0).collect();
        plot.grid_lines(root, &y_ticks)?;
        for &(pct, level) in &self.thresholds {
            let y = plot.px_y(pct);
            draw_line(root, &[(plot.left, y), (plot.right(), y)], MUTED, 2, true)?;
            root.draw_text(
                &format!("{pct:.0}%"),
                &anchored(text(LABEL).color(&MUTED), HPos::Right, VPos::Bottom),
                (plot.right() - 6, y - 4),
            )?;
            if let Some(l) = level {
                let x = plot.px_x(l);
                draw_line(root, &[(x, y), (x, plot.bottom())], MUTED, 1, true)?;
            }
        }
        let px: Vec<(i32, i32)> = self.points.iter().map(|&p| plot.px(p)).collect();
        draw_line(root, &px, COMP, 3, false)?;
        for &p in &px {
            draw_marker(root, p, Shape::Circle, COMP)?;
        }
        plot.y_ticks(root, Side::Left, &y_ticks, true, |v| format!("{v:.0}%"))?;
        plot.x_ticks(root, &x_ticks, true, |v| format!("{v:.0}"))?;
        plot.frame(root, 2)?;
        root.draw_text(
            &self.x_label,
            &anchored(text(LABEL), HPos::Center, VPos::Bottom),
            (plot.left + plot.width / 2, HEIGHT as i32 - MARGIN),
        )?;
        root.draw_text(
            "FOM, % of its best",
            &anchored(text(LABEL), HPos::Center, VPos::Top).transform(FontTransform::Rotate270),
            (MARGIN, plot.top + plot.height / 2),
        )?;
        Ok(())
    }
}
