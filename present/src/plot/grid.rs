//! The placement grid of the paper's Figures 3-11 (section 4.2): one panel per placement,
//! the NUMA node of the communication data by row and that of the computation data by column.
//!
//! Each panel shows, against the number of computing cores, the network bandwidth (blue, left
//! axis) and the computations' memory bandwidth (orange, right axis): measured alone (●) and in
//! parallel (▼), and the model's predictions as lines (solid in parallel, dashed alone). The
//! two placements that calibrate the model, (0,0) for `M_local` and
//! (`numa_per_socket`, `numa_per_socket`) for `M_remote`, have a bold title and a thick frame.
//! When the first socket has several NUMA nodes, grey and white bands tell which NUMA node the
//! computing cores belong to, as in Figure 4 (assuming, as `measure` does, that cores are taken
//! in order, filling one node before the next).
//!
//! All panels share both y scales, so a drop is comparable across placements, and the two
//! scales have the same ticks so one set of grid lines serves both axes.

use super::axes::{Plot, Side, X_TICKS_HEIGHT};
use super::data::{Measurements, Quality};
use super::style::{
    aligned_scales, anchored, bold, core_ticks, draw_header, draw_legend, draw_line, draw_marker,
    fitted_size, legend_height, mbps_label, text, LegendItem, Scale, Shape, Swatch, COMM, COMP,
    INK, LABEL, MARGIN, MUTED, SHADE, TICK, TITLE, Y_TICKS,
};
use super::Figure;
use crate::calibrate::bands::{intervals, PointIntervals};
use crate::model::Uncertainty;
use crate::model::{self, Model, Placement, Point, PredictError};
use crate::trace::TidyRow;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};
use plotters::style::FontTransform;

/// Which parameter set a placement calibrated (section 3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Calibrates {
    Local,
    Remote,
}

/// One panel: a placement, its prediction and what was measured there.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Panel {
    pub(crate) placement: Placement,
    pub(crate) calibrates: Option<Calibrates>,
    /// The model's prediction for cores 1 ..= cores_per_socket.
    pub(crate) model: Vec<Point>,
    /// Medians of the measurements of this placement (empty when none was given).
    pub(crate) measured: Vec<TidyRow>,
    /// 95 % intervals of the prediction, drawn as bands (empty when the model file has no
    /// bootstrap; see [`Grid::with_intervals`]).
    pub(crate) intervals: Vec<PointIntervals>,
}

impl Panel {
    /// The panel title; tests count panels by it.
    pub(crate) fn title(&self) -> String {
        format!(
            "comp NUMA {}, comm NUMA {}",
            self.placement.comp_numa, self.placement.comm_numa
        )
    }
}

/// The whole grid, computed and ready to draw or to write as CSV.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    pub(crate) machine: String,
    /// The model as the user named it.
    pub(crate) model_source: String,
    /// Panels per row and per column.
    pub(crate) side: u32,
    pub(crate) numa_per_socket: u32,
    pub(crate) cores_per_socket: u32,
    /// Panels row by row: `panels[row * side + column]`.
    pub(crate) panels: Vec<Panel>,
    /// Intervals and stability of the measured points, from traces (empty for CSV).
    pub(crate) quality: Quality,
    /// Left axis (communications) and right axis (computations), MB/s.
    pub(crate) comm_scale: Scale,
    pub(crate) comp_scale: Scale,
}

// Layout, pixels at 300 dpi.
/// A panel's plot area with two or more panels a row; a single panel (a machine with one NUMA
/// node to predict) gets twice the size, to stay a figure of its own.
const PLOT_W: i32 = 400;
const PLOT_H: i32 = 260;
const H_GAP: i32 = 34;
const V_GAP: i32 = 22;
const PANEL_TITLE: i32 = 42;
const AXIS_DESC: i32 = 44;
const HEADER_TITLE: i32 = 52;
/// Height of each of the two lines under the title.
const HEADER_SUB: i32 = 38;

impl Grid {
    /// Predicts every placement the model covers ([`model::all_placements`]) and attaches
    /// the measurements of each. Measurements of placements the grid lacks are the caller's
    /// to refuse (see `Grid::check_measured`).
    pub fn new(model: &Model, source: &str, measured: &Measurements) -> Result<Self, PredictError> {
        let m = &model.machine;
        let placements = model::all_placements(model);
        let cores: Vec<u32> = (1..=m.cores_per_socket).collect();
        let predictions = model::predict(model, &placements, &cores)?;
        let remote_node = m.numa_per_socket;
        let panels: Vec<Panel> = placements
            .iter()
            .zip(predictions)
            .map(|(&p, pred)| Panel {
                placement: p,
                calibrates: match (p.comp_numa, p.comm_numa) {
                    (0, 0) => Some(Calibrates::Local),
                    (a, b) if a == remote_node && b == remote_node && model.remote.is_some() => {
                        Some(Calibrates::Remote)
                    }
                    _ => None,
                },
                model: pred.points,
                measured: measured.get(p).to_vec(),
                intervals: Vec::new(),
            })
            .collect();
        // The largest value each axis shows, over the model and the measurements.
        let largest = |of_model: fn(&Point) -> [f64; 2], of_rows: fn(&TidyRow) -> [f64; 2]| {
            panels
                .iter()
                .flat_map(|p| {
                    let model = p.model.iter().flat_map(of_model);
                    model.chain(p.measured.iter().flat_map(of_rows))
                })
                .fold(0.0, f64::max)
        };
        let comm_max = largest(
            |p| [p.comm_alone, p.comm_parallel],
            |r| [r.comm_alone, r.comm_parallel],
        );
        let comp_max = largest(
            |p| [p.comp_alone, p.comp_parallel],
            |r| [r.comp_alone, r.comp_parallel],
        );
        let scales = aligned_scales(&[comm_max, comp_max]);
        Ok(Grid {
            machine: m.name.clone(),
            model_source: super::model_label(source),
            side: model.predictable_nodes(),
            numa_per_socket: m.numa_per_socket,
            cores_per_socket: m.cores_per_socket,
            panels,
            quality: Quality::default(),
            comm_scale: scales[0],
            comp_scale: scales[1],
        })
    }

    /// The grid with the measured points' intervals and stability (error bars, rings).
    pub fn with_quality(mut self, quality: Quality) -> Self {
        self.quality = quality;
        self
    }

    /// Why a measured placement or core count cannot be drawn against `model`, if it cannot:
    /// a node the model's machine lacks or cannot predict, or more cores than one socket has.
    pub fn check_measured(model: &Model, p: Placement, max_cores: u32) -> Result<(), PredictError> {
        let cores: Vec<u32> = (max_cores > 0).then_some(max_cores).into_iter().collect();
        model::predict(model, &[p], &cores).map(|_| ())
    }

    /// Attaches the 95 % intervals of every panel's prediction from the model file's bootstrap
    /// (`calibrate --bootstrap N`), drawn as translucent bands around the model's lines.
    pub fn with_intervals(mut self, model: &Model, u: &Uncertainty) -> Self {
        let placements: Vec<Placement> = self.panels.iter().map(|p| p.placement).collect();
        let cores: Vec<u32> = (1..=self.cores_per_socket).collect();
        let bands = intervals(&model.machine, u, &placements, &cores);
        for (panel, band) in self.panels.iter_mut().zip(bands) {
            panel.intervals = band.points;
        }
        self
    }

    pub fn has_measurements(&self) -> bool {
        self.panels.iter().any(|p| !p.measured.is_empty())
    }

    /// The predictions drawn, as tidy CSV rows (the same as `predict --format csv`).
    pub fn model_rows(&self) -> Vec<TidyRow> {
        self.panels
            .iter()
            .flat_map(|p| {
                p.model.iter().map(move |pt| {
                    TidyRow::predicted(p.placement.comp_numa, p.placement.comm_numa, pt)
                })
            })
            .collect()
    }

    /// The measured medians drawn, as tidy CSV rows.
    pub fn measured_rows(&self) -> Vec<TidyRow> {
        self.panels
            .iter()
            .flat_map(|p| p.measured.clone())
            .collect()
    }

    fn width(&self) -> i32 {
        let n = self.side as i32;
        2 * (MARGIN + AXIS_DESC + Y_TICKS) + n * self.plot_w() + (n - 1) * H_GAP
    }

    fn legend(&self) -> Vec<LegendItem> {
        let line = |color, dashed| Swatch::Line { color, dashed };
        let mut items = vec![
            // Short labels: the legend must not eat the panels of a small grid. Lines are the
            // model, markers the measurements (the subtitle says so); the axis titles say
            // which colour is which stream.
            LegendItem::new(line(COMM, false), "comm. in parallel"),
            LegendItem::new(line(COMM, true), "comm. alone"),
            LegendItem::new(line(COMP, false), "comp. in parallel"),
            LegendItem::new(line(COMP, true), "comp. alone"),
        ];
        if self.has_measurements() {
            let marker = |shape| Swatch::Marker {
                shape,
                color: MUTED,
            };
            items.push(LegendItem::new(marker(Shape::Circle), "measured alone"));
            items.push(LegendItem::new(
                marker(Shape::DownTriangle),
                "measured in parallel",
            ));
            if self.quality.any_interval() {
                items.push(LegendItem::new(
                    Swatch::Line {
                        color: MUTED,
                        dashed: false,
                    },
                    "bar: 95% interval of the median",
                ));
            }
            if self.quality.any_unstable() {
                items.push(LegendItem::new(
                    Swatch::Marker {
                        shape: Shape::Ring,
                        color: UNSTABLE,
                    },
                    "unstable: time limit before stability",
                ));
            }
        }
        if let Some(bands) = self.core_bands() {
            let text = bands
                .iter()
                .map(|b| format!("{}-{} on NUMA {}", b.first, b.last, b.node))
                .collect::<Vec<_>>()
                .join(", ");
            items.push(LegendItem::new(
                Swatch::Patch {
                    fill: SHADE.to_rgba(),
                    border: Some(MUTED),
                },
                format!("computing cores {text}"),
            ));
        }
        if self.panels.iter().any(|p| !p.intervals.is_empty()) {
            // The bands take each stream's colour; a neutral swatch names them all.
            items.push(LegendItem::new(
                Swatch::Patch {
                    fill: MUTED.mix(0.22),
                    border: None,
                },
                "shade: the model's 95% interval",
            ));
        }
        items.push(LegendItem::new(Swatch::Frame(4), "calibration placement"));
        items
    }

    fn header_height(&self) -> i32 {
        MARGIN
            + HEADER_TITLE
            + 2 * HEADER_SUB
            + legend_height(&self.legend(), self.width() - 2 * MARGIN)
            + 10
    }

    /// The computing cores of each NUMA node of the first socket, when there are several.
    fn core_bands(&self) -> Option<Vec<CoreBand>> {
        core_bands(self.cores_per_socket, self.numa_per_socket)
    }

    fn plot(&self, row: u32, column: u32) -> Plot {
        let left = MARGIN + AXIS_DESC + Y_TICKS + column as i32 * (self.plot_w() + H_GAP);
        let top =
            self.header_height() + row as i32 * (PANEL_TITLE + self.plot_h() + V_GAP) + PANEL_TITLE;
        Plot {
            left,
            top,
            width: self.plot_w(),
            height: self.plot_h(),
            x: (0.5, f64::from(self.max_cores()) + 0.5),
            y: self.comm_scale.range(),
        }
    }

    fn plot_w(&self) -> i32 {
        if self.side == 1 {
            2 * PLOT_W
        } else {
            PLOT_W
        }
    }

    fn plot_h(&self) -> i32 {
        if self.side == 1 {
            2 * PLOT_H
        } else {
            PLOT_H
        }
    }

    fn max_cores(&self) -> u32 {
        let measured = self
            .panels
            .iter()
            .flat_map(|p| p.measured.iter().map(|r| r.cores))
            .max()
            .unwrap_or(0);
        self.cores_per_socket.max(measured)
    }

    /// One panel: its axes, the prediction's 95 % bands, the model's lines, the measured
    /// points and the title (bold and framed thick on a calibration placement).
    fn draw_panel<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        row: u32,
        column: u32,
        panel: &Panel,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        let comm = self.plot(row, column);
        let comp = comm.with_y(self.comp_scale.range());
        self.draw_panel_axes(root, row, column, &comm, &comp)?;
        if !panel.intervals.is_empty() {
            draw_bands(root, panel, &comm, &comp)?;
        }
        draw_model(root, panel, &comm, &comp)?;
        self.draw_measured(root, panel, &comm, &comp)?;
        let (frame, title_style) = match panel.calibrates {
            Some(_) => (4, bold(LABEL)),
            None => (1, text(LABEL)),
        };
        comm.frame(root, frame)?;
        root.draw_text(
            &panel.title(),
            &anchored(title_style, HPos::Center, VPos::Bottom),
            (comm.left + comm.width / 2, comm.top - 10),
        )
    }

    /// A panel's shaded core bands, grid lines and ticks, labelled on the outer panels only:
    /// communications on the left axis, computations on the right.
    fn draw_panel_axes<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        row: u32,
        column: u32,
        comm: &Plot,
        comp: &Plot,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        if let Some(bands) = self.core_bands() {
            for b in bands.iter().filter(|b| b.node % 2 == 0) {
                comm.fill(
                    root,
                    (f64::from(b.first) - 0.5, comm.y.0),
                    (f64::from(b.last) + 0.5, comm.y.1),
                    SHADE.to_rgba(),
                )?;
            }
        }
        comm.grid_lines(root, &self.comm_scale.ticks())?;
        let first_col = column == 0;
        let last_col = column + 1 == self.side;
        let last_row = row + 1 == self.side;
        comm.y_ticks(
            root,
            Side::Left,
            &self.comm_scale.ticks(),
            first_col,
            mbps_label,
        )?;
        comp.y_ticks(
            root,
            Side::Right,
            &self.comp_scale.ticks(),
            last_col,
            mbps_label,
        )?;
        let x_ticks = core_ticks(self.max_cores(), 6);
        comm.x_ticks(root, &x_ticks, last_row, |v| format!("{v:.0}"))?;

        Ok(())
    }

    /// Measured points: ● alone, ▼ in parallel, as in the paper; the 95% interval of each
    /// median as an error bar, and a ring around points whose phase stopped at its time
    /// limit before the asked stability.
    fn draw_measured<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        panel: &Panel,
        comm: &Plot,
        comp: &Plot,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        for r in &panel.measured {
            let x = f64::from(r.cores);
            let q = self.quality.get(r.comp_numa, r.comm_numa, r.cores);
            for (plot, y, shape, color, q) in [
                (comp, r.comp_alone, Shape::Circle, COMP, q[0]),
                (comp, r.comp_parallel, Shape::DownTriangle, COMP, q[2]),
                (comm, r.comm_alone, Shape::Circle, COMM, q[1]),
                (comm, r.comm_parallel, Shape::DownTriangle, COMM, q[3]),
            ] {
                let at = plot.px((x, y));
                if let Some(rel) = q.rel_ci95 {
                    let clamp = |v: i32| v.clamp(plot.top, plot.top + plot.height);
                    let lo = clamp(plot.px((x, y * (1.0 - rel))).1);
                    let hi = clamp(plot.px((x, y * (1.0 + rel))).1);
                    if lo - hi > 2 {
                        let cap = 5;
                        let style = color.stroke_width(2);
                        root.draw(&PathElement::new(vec![(at.0, lo), (at.0, hi)], style))?;
                        for yy in [lo, hi] {
                            root.draw(&PathElement::new(
                                vec![(at.0 - cap, yy), (at.0 + cap, yy)],
                                style,
                            ))?;
                        }
                    }
                }
                draw_marker(root, at, shape, color)?;
                if q.unstable {
                    draw_marker(root, at, Shape::Ring, UNSTABLE)?;
                }
            }
        }
        Ok(())
    }
}

/// The 95 % bands of the prediction, drawn under the lines.
fn draw_bands<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    panel: &Panel,
    comm: &Plot,
    comp: &Plot,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let band = |plot: &Plot, f: fn(&PointIntervals) -> [f64; 2]| -> Vec<(i32, i32)> {
        let upper = panel.intervals.iter().map(|b| (b.cores, f(b)[1]));
        let lower = panel.intervals.iter().rev().map(|b| (b.cores, f(b)[0]));
        upper
            .chain(lower)
            .filter(|(_, v)| v.is_finite())
            .map(|(n, v)| plot.px((f64::from(n), v)))
            .collect()
    };
    for (plot, f, color) in [
        (
            comp,
            (|b| b.comp_alone) as fn(&PointIntervals) -> [f64; 2],
            COMP,
        ),
        (comp, |b| b.comp_parallel, COMP),
        (comm, |b| b.comm_alone, COMM),
        (comm, |b| b.comm_parallel, COMM),
    ] {
        root.draw(&Polygon::new(band(plot, f), color.mix(0.22).filled()))?;
    }
    Ok(())
}

/// The model's lines: alone dashed, in parallel solid (section 3.2).
fn draw_model<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    panel: &Panel,
    comm: &Plot,
    comp: &Plot,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let series = |plot: &Plot, f: fn(&Point) -> f64| -> Vec<(i32, i32)> {
        panel
            .model
            .iter()
            .map(|pt| plot.px((f64::from(pt.cores), f(pt))))
            .collect()
    };
    draw_line(root, &series(comp, |p| p.comp_alone), COMP, 3, true)?;
    draw_line(root, &series(comp, |p| p.comp_parallel), COMP, 3, false)?;
    draw_line(root, &series(comm, |p| p.comm_alone), COMM, 3, true)?;
    draw_line(root, &series(comm, |p| p.comm_parallel), COMM, 3, false)?;
    Ok(())
}

/// The ring around unstable points: red, apart from both streams' colours.
const UNSTABLE: RGBColor = RGBColor(214, 39, 40);

/// The computing cores `first..=last` on NUMA node `node` of the first socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CoreBand {
    pub(crate) node: u32,
    pub(crate) first: u32,
    pub(crate) last: u32,
}

/// How the first socket's cores split over its NUMA nodes, taken in order and filling one node
/// before the next; `None` when the socket has a single node (nothing to tell apart).
pub(crate) fn core_bands(cores_per_socket: u32, numa_per_socket: u32) -> Option<Vec<CoreBand>> {
    if numa_per_socket < 2 || cores_per_socket < numa_per_socket {
        return None;
    }
    let per_node = cores_per_socket.div_ceil(numa_per_socket);
    Some(
        (0..numa_per_socket)
            .map(|node| CoreBand {
                node,
                first: node * per_node + 1,
                last: ((node + 1) * per_node).min(cores_per_socket),
            })
            .filter(|b| b.first <= b.last)
            .collect(),
    )
}

impl Figure for Grid {
    fn size(&self) -> (u32, u32) {
        let n = self.side as i32;
        let height = self.header_height()
            + n * (PANEL_TITLE + self.plot_h())
            + (n - 1) * V_GAP
            + X_TICKS_HEIGHT
            + 12
            + LABEL as i32
            + MARGIN;
        (self.width() as u32, height as u32)
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        let width = self.width();
        let (_, height) = self.size();
        let center = width / 2;
        let inner = width - 2 * MARGIN;
        draw_header(
            root,
            &format!(
                "{}: bandwidth by placement of the data (MB/s)",
                self.machine
            ),
            true,
            TITLE,
            (center, MARGIN),
            inner,
        )?;
        let measured = if self.has_measurements() {
            "Lines: the model; markers: measured medians"
        } else {
            "Lines: the model (no measurement given)"
        };
        let lines = [
            "Rows: communication data's NUMA node; columns: computation data's NUMA node."
                .to_string(),
            format!("{measured}; model {}.", self.model_source),
        ];
        for (i, line) in lines.iter().enumerate() {
            let y = MARGIN + HEADER_TITLE + i as i32 * HEADER_SUB;
            draw_header(root, line, false, TICK, (center, y), inner)?;
        }
        draw_legend(
            root,
            &self.legend(),
            MARGIN,
            MARGIN + HEADER_TITLE + 2 * HEADER_SUB,
            width - 2 * MARGIN,
        )?;
        for (i, panel) in self.panels.iter().enumerate() {
            let (row, column) = (i as u32 / self.side, i as u32 % self.side);
            self.draw_panel(root, row, column, panel)?;
        }

        // Axis descriptions, once for the whole grid, in their stream's colour.
        let first = self.plot(0, 0);
        let last = self.plot(self.side - 1, self.side - 1);
        let middle_y = (first.top + last.bottom()) / 2;
        let span = last.bottom() - first.top;
        for (desc, color, turn, x) in [
            (
                "Network bandwidth (MB/s)",
                COMM,
                FontTransform::Rotate270,
                MARGIN + AXIS_DESC / 2,
            ),
            (
                "Computation memory bandwidth (MB/s)",
                COMP,
                FontTransform::Rotate90,
                width - MARGIN - AXIS_DESC / 2,
            ),
        ] {
            let size = fitted_size(desc, true, LABEL, span);
            let style = anchored(bold(size).color(&color), HPos::Center, VPos::Center);
            root.draw_text(desc, &style.transform(turn), (x, middle_y))?;
        }
        root.draw_text(
            "Number of computing cores",
            &anchored(text(LABEL).color(&INK), HPos::Center, VPos::Bottom),
            ((first.left + last.right()) / 2, height as i32 - MARGIN),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::model_file;
    use crate::model::Params;

    #[test]
    fn bootstrap_replicates_become_bands_around_the_model_and_are_drawn() {
        let model = model_file::load("paper:henri").unwrap();
        // Two replicates 1 % below and above every bandwidth parameter.
        let scaled = |f: f64| Params {
            t_par_max: model.local.t_par_max * f,
            t_par_max2: model.local.t_par_max2 * f,
            t_seq_max: model.local.t_seq_max * f,
            b_seq_comp: model.local.b_seq_comp * f,
            b_seq_comm: model.local.b_seq_comm * f,
            ..model.local
        };
        let reps = [0.99, 1.01].map(|f| crate::model::Replicate {
            local: scaled(f),
            remote: model.remote,
        });
        let iv = crate::model::ParamIntervals::point(&model.local);
        let u = Uncertainty {
            method: "test".into(),
            resamples: 2,
            kept_full_fit: None,
            seed: 0,
            level: 0.95,
            local: iv,
            remote: None,
            replicates: reps.to_vec(),
        };
        let g = Grid::new(&model, "paper:henri", &Measurements::default())
            .unwrap()
            .with_intervals(&model, &u);
        let p = &g.panels[0];
        assert_eq!(p.intervals.len(), 18);
        for (b, pt) in p.intervals.iter().zip(&p.model) {
            let [lo, hi] = b.comm_alone;
            assert!(lo < pt.comm_alone && pt.comm_alone < hi, "{b:?}");
        }
        let svg = crate::plot::render(&g, crate::plot::ImageFormat::Svg).unwrap();
        let svg = String::from_utf8_lossy(&svg);
        assert!(svg.contains("<polygon"));
        assert!(
            svg.contains("the model&apos;s 95% interval")
                || svg.contains("the model's 95% interval")
        );
        let plain = Grid::new(&model, "paper:henri", &Measurements::default()).unwrap();
        let plain = crate::plot::render(&plain, crate::plot::ImageFormat::Svg).unwrap();
        assert!(!String::from_utf8_lossy(&plain).contains("95% interval"));
    }

    #[test]
    fn henri_subnuma_has_sixteen_panels_and_two_calibrations() {
        let model = model_file::load("paper:henri-subnuma").unwrap();
        let g = Grid::new(&model, "paper:henri-subnuma", &Measurements::default()).unwrap();
        assert_eq!(g.side, 4);
        assert_eq!(g.panels.len(), 16);
        // Row by row: communication node is the row, computation node the column.
        assert_eq!(
            g.panels[1].placement,
            Placement {
                comp_numa: 1,
                comm_numa: 0
            }
        );
        assert_eq!(
            g.panels[4].placement,
            Placement {
                comp_numa: 0,
                comm_numa: 1
            }
        );
        let calibrations: Vec<_> = g
            .panels
            .iter()
            .filter_map(|p| p.calibrates.map(|c| (p.placement, c)))
            .collect();
        assert_eq!(
            calibrations,
            vec![
                (
                    Placement {
                        comp_numa: 0,
                        comm_numa: 0
                    },
                    Calibrates::Local
                ),
                (
                    Placement {
                        comp_numa: 2,
                        comm_numa: 2
                    },
                    Calibrates::Remote
                ),
            ]
        );
        assert!(g.comm_scale.top >= 11450.4 && g.comp_scale.top >= 43655.6);
        assert_eq!(g.model_rows().len(), 16 * 18);
        assert!(g.measured_rows().is_empty());
    }

    #[test]
    fn core_bands_split_the_socket_in_order() {
        assert_eq!(core_bands(18, 1), None);
        assert_eq!(
            core_bands(18, 2).unwrap(),
            vec![
                CoreBand {
                    node: 0,
                    first: 1,
                    last: 9
                },
                CoreBand {
                    node: 1,
                    first: 10,
                    last: 18
                }
            ]
        );
        let b = core_bands(14, 4).unwrap();
        assert_eq!(
            b.last().unwrap(),
            &CoreBand {
                node: 3,
                first: 13,
                last: 14
            }
        );
    }

    #[test]
    fn measured_placements_outside_the_model_are_named() {
        let mut model = model_file::load("paper:henri").unwrap();
        let p = |c, m| Placement {
            comp_numa: c,
            comm_numa: m,
        };
        assert!(Grid::check_measured(&model, p(1, 1), 18).is_ok());
        assert!(Grid::check_measured(&model, p(0, 2), 1).is_err());
        assert!(Grid::check_measured(&model, p(0, 0), 19).is_err());
        model.remote = None;
        assert!(Grid::check_measured(&model, p(1, 1), 4).is_err());
    }
}
