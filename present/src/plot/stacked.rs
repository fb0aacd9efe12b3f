//! The stacked view of the paper's Figure 2 (section 3.1): for a calibration placement, the
//! computations' bandwidth in parallel (orange) with the communications' stacked on top (blue),
//! so the top of the stack is the memory system's total; the computations alone over them
//! (green); the model's total `T(n)` (equation 1, dashed); and the parameters read off these
//! curves — `B_seq^comp`, `T_seq^max`, `T_par^max`, `T_par^max2` — marked and labelled.
//!
//! With a measurement of the calibration placement the areas are the measured medians (the
//! paper's figure is the stacked form of Figure 4's top-left panel); without one they are the
//! model's prediction, and the title says so.

use super::axes::{Plot, Side, X_TICKS_HEIGHT};
use super::data::Measurements;
use super::grid::Calibrates;
use super::style::{
    aligned_scales, anchored, bold, core_ticks, draw_header, draw_legend, draw_line, draw_marker,
    draw_rich, legend_height, mbps_label, rich_width, text, LegendItem, Scale, Seg, Shape, Swatch,
    Symbol, COMM, COMP, COMP_ALONE, INK, LABEL, MARGIN, MUTED, TICK, TITLE, Y_TICKS,
};
use super::Figure;
use crate::model::bandwidth;
use crate::model::total::CurvePoint;
use crate::model::uncertainty::open_above;
use crate::model::{Interval, Model, ParamIntervals, Params, Placement, Uncertainty};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};
use plotters::style::FontTransform;

/// Where the stacked areas come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DataSource {
    /// Medians of the measurements of the calibration placement.
    Measured,
    /// The model's own curves (equations 1-6).
    Model,
}

/// One core count of the stack, MB/s.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct StackPoint {
    pub(crate) cores: u32,
    pub(crate) comp_parallel: f64,
    pub(crate) comm_parallel: f64,
    pub(crate) comp_alone: f64,
    /// `T(n)` of the model at this core count (equation 1).
    pub(crate) model_total: f64,
}

/// The stacked figure of one parameter set.
#[derive(Debug, Clone, PartialEq)]
pub struct Stacked {
    pub(crate) machine: String,
    pub(crate) model_source: String,
    pub(crate) calibrates: Calibrates,
    pub(crate) placement: Placement,
    pub(crate) params: Params,
    pub(crate) source: DataSource,
    pub(crate) points: Vec<StackPoint>,
    pub(crate) scale: Scale,
    /// The bootstrap's 95 % intervals of `params`, drawn as error bars on the key points
    /// (none without a bootstrap in the model file).
    pub(crate) intervals: Option<ParamIntervals>,
}

const B_SEQ_COMP: Symbol = Symbol::new("B", "seq", "comp");
const B_SEQ_COMM: Symbol = Symbol::new("B", "seq", "comm");
const T_SEQ_MAX: Symbol = Symbol::new("T", "seq", "max");
const T_PAR_MAX: Symbol = Symbol::new("T", "par", "max");
const T_PAR_MAX2: Symbol = Symbol::new("T", "par", "max2");
const N_SEQ_MAX: Symbol = Symbol::new("N", "seq", "max");
const N_PAR_MAX: Symbol = Symbol::new("N", "par", "max");

/// A parameter of section 3.1 drawn as a point: where it sits and its label.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct KeyPoint {
    pub(crate) cores: u32,
    pub(crate) mbps: f64,
    pub(crate) label: Vec<Seg>,
    /// The 95 % intervals of its core count and bandwidth, when the model has a bootstrap.
    pub(crate) error: Option<ErrorBars>,
}

/// A key point's 95 % intervals: a range of core counts (a breakpoint's, or the one core of
/// `B_seq^comp`) and of MB/s.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ErrorBars {
    pub(crate) cores: Interval,
    pub(crate) mbps: Interval,
}

impl Stacked {
    /// The figure for one side, `None` for `Remote` when the model has no remote parameters.
    pub(crate) fn new(
        model: &Model,
        source: &str,
        side: Calibrates,
        measured: &Measurements,
    ) -> Option<Self> {
        let m = &model.machine;
        let (params, node) = match side {
            Calibrates::Local => (model.local, 0),
            Calibrates::Remote => (model.remote?, m.numa_per_socket),
        };
        let placement = Placement {
            comp_numa: node,
            comm_numa: node,
        };
        let curve = bandwidth::curve(&params, m.cores_per_socket);
        let rows = measured.get(placement);
        let (data, points): (DataSource, Vec<StackPoint>) = if rows.is_empty() {
            let points = curve
                .iter()
                .map(|c: &CurvePoint| StackPoint {
                    cores: c.cores,
                    comp_parallel: c.comp_parallel,
                    comm_parallel: c.comm_parallel,
                    comp_alone: c.comp_alone,
                    model_total: c.total,
                })
                .collect();
            (DataSource::Model, points)
        } else {
            let points = rows
                .iter()
                .map(|r| StackPoint {
                    cores: r.cores,
                    comp_parallel: r.comp_parallel,
                    comm_parallel: r.comm_parallel,
                    comp_alone: r.comp_alone,
                    model_total: crate::model::total::total(&params, r.cores),
                })
                .collect();
            (DataSource::Measured, points)
        };
        let top = points
            .iter()
            .flat_map(|p| {
                [
                    p.comp_parallel + p.comm_parallel,
                    p.comp_alone,
                    p.model_total,
                ]
            })
            .chain([params.t_par_max, params.t_seq_max, params.t_par_max2])
            .fold(0.0, f64::max);
        // Headroom above the stack for the labels of the maxima.
        let scale = aligned_scales(&[top * 1.2])[0];
        Some(Stacked {
            machine: m.name.clone(),
            model_source: super::model_label(source),
            calibrates: side,
            placement,
            params,
            source: data,
            points,
            scale,
            intervals: None,
        })
    }

    /// The same figure with the bootstrap's intervals of its parameter set as error bars.
    pub fn with_intervals(mut self, u: &Uncertainty) -> Self {
        self.intervals = match self.calibrates {
            Calibrates::Local => Some(u.local.clone()),
            Calibrates::Remote => u.remote.clone(),
        };
        self
    }

    /// The local figure, and the remote one when the model has remote parameters.
    pub fn all(model: &Model, source: &str, measured: &Measurements) -> Vec<Self> {
        [Calibrates::Local, Calibrates::Remote]
            .into_iter()
            .filter_map(|side| Stacked::new(model, source, side, measured))
            .collect()
    }

    /// `local` or `remote`, for file names and titles.
    pub fn side_name(&self) -> &'static str {
        match self.calibrates {
            Calibrates::Local => "local",
            Calibrates::Remote => "remote",
        }
    }

    /// The four points of Figure 2, in the order their labels are placed, each with its
    /// intervals when the model has a bootstrap (a breakpoint's range also in its label).
    pub(crate) fn key_points(&self) -> Vec<KeyPoint> {
        let p = &self.params;
        let iv = |name: &str| self.intervals.as_ref().and_then(|iv| iv.get(name));
        // A point `sym = v` at `n_sym = n`, its bandwidth the parameter `bw` and its core
        // count the breakpoint `n_name`.
        let at = |sym, v: f64, bw: &str, n_sym, n: u32, n_name: &str| {
            let cores = iv(n_name);
            let range = match cores {
                Some([lo, hi]) if lo < hi => format!(" ({lo:.0}..{hi:.0})"),
                _ => String::new(),
            };
            KeyPoint {
                cores: n,
                mbps: v,
                label: vec![
                    Seg::Sym(sym),
                    Seg::text(format!(" = {v:.0} MB/s at ")),
                    Seg::Sym(n_sym),
                    Seg::text(format!(" = {n}{range}")),
                ],
                error: cores
                    .zip(iv(bw))
                    .map(|(cores, mbps)| ErrorBars { cores, mbps }),
            }
        };
        let t_seq = at(
            T_SEQ_MAX,
            p.t_seq_max,
            "t_seq_max",
            N_SEQ_MAX,
            p.n_seq_max,
            "n_seq_max",
        );
        // When N_par^max = N_seq^max and the totals agree (a plateau reaching the last core, or
        // a short sweep), T_par^max and T_par^max2 are one point: one label names both, else
        // one would hide the other.
        if p.n_par_max == p.n_seq_max
            && (p.t_par_max - p.t_par_max2).abs() <= 1e-3 * p.t_par_max.abs()
        {
            let mut both = at(
                T_PAR_MAX,
                p.t_par_max,
                Params::NAMES[Params::T_PAR_MAX],
                N_PAR_MAX,
                p.n_par_max,
                Params::NAMES[Params::N_PAR_MAX],
            );
            both.label = vec![
                Seg::Sym(T_PAR_MAX),
                Seg::text(" = "),
                Seg::Sym(T_PAR_MAX2),
                Seg::text(format!(" = {:.0} MB/s at ", p.t_par_max)),
                Seg::Sym(N_PAR_MAX),
                Seg::text(" = "),
                Seg::Sym(N_SEQ_MAX),
                Seg::text(format!(" = {}", p.n_par_max)),
            ];
            return vec![both, t_seq, self.b_seq_comp_point()];
        }
        vec![
            at(
                T_PAR_MAX,
                p.t_par_max,
                Params::NAMES[Params::T_PAR_MAX],
                N_PAR_MAX,
                p.n_par_max,
                Params::NAMES[Params::N_PAR_MAX],
            ),
            t_seq,
            at(
                T_PAR_MAX2,
                p.t_par_max2,
                "t_par_max2",
                N_SEQ_MAX,
                p.n_seq_max,
                "n_seq_max",
            ),
            self.b_seq_comp_point(),
        ]
    }

    /// `B_seq^comp`, one core's bandwidth alone.
    fn b_seq_comp_point(&self) -> KeyPoint {
        let p = &self.params;
        KeyPoint {
            cores: 1,
            mbps: p.b_seq_comp,
            label: vec![
                Seg::Sym(B_SEQ_COMP),
                Seg::text(format!(" = {:.0} MB/s (one core)", p.b_seq_comp)),
            ],
            error: self
                .intervals
                .as_ref()
                .and_then(|iv| iv.get("b_seq_comp"))
                .map(|mbps| ErrorBars {
                    cores: [1.0, 1.0],
                    mbps,
                }),
        }
    }

    /// The series drawn, as CSV: one row per core count.
    pub fn csv(&self) -> String {
        let mut out = String::from(
            "cores,comp_parallel,comm_parallel,stacked_total,comp_alone,model_total,data\n",
        );
        let data = match self.source {
            DataSource::Measured => "measured",
            DataSource::Model => "model",
        };
        for p in &self.points {
            out.push_str(&format!(
                "{},{:.1},{:.1},{:.1},{:.1},{:.1},{data}\n",
                p.cores,
                p.comp_parallel,
                p.comm_parallel,
                p.comp_parallel + p.comm_parallel,
                p.comp_alone,
                p.model_total
            ));
        }
        out
    }

    fn title(&self) -> String {
        format!(
            "{}, {} model: stacked bandwidths with both data on NUMA {} (MB/s)",
            self.machine,
            self.side_name(),
            self.placement.comp_numa
        )
    }

    /// Where the areas come from, and which model.
    fn provenance(&self) -> String {
        let from = match self.source {
            DataSource::Measured => "Areas: measured medians",
            DataSource::Model => "Areas: the model (no measurement of this placement given)",
        };
        format!("{from}; model {}.", self.model_source)
    }

    /// The parameters not drawn as points: the slopes and the communications' share.
    fn parameters(&self) -> Vec<Seg> {
        let p = &self.params;
        vec![
            Seg::Sym(Symbol::new("δ", "l", "")),
            Seg::text(format!(" = {:.1} and ", p.delta_l)),
            Seg::Sym(Symbol::new("δ", "r", "")),
            Seg::text(format!(
                " = {:.1} MB/s lost per extra core; α = {:.3}; ",
                p.delta_r, p.alpha
            )),
            Seg::Sym(B_SEQ_COMM),
            Seg::text(format!(" = {:.0} MB/s", p.b_seq_comm)),
        ]
        .into_iter()
        // The law's own parameters, when it is not the paper's (`model::law`), after its name.
        .chain(p.law.params().enumerate().map(|(i, (lp, v))| {
            let lead = if i == 0 {
                format!("; {} model: ", p.law.variant())
            } else {
                ", ".into()
            };
            Seg::text(format!("{lead}{} = {v:.*}", lp.symbol, lp.decimals))
        }))
        .collect()
    }

    fn legend(&self) -> Vec<LegendItem> {
        let patch = |c: RGBColor| Swatch::Patch {
            fill: c.mix(AREA_ALPHA),
            border: Some(c),
        };
        let mut items = vec![
            LegendItem::new(patch(COMP), "computations in parallel"),
            LegendItem::new(patch(COMM), "communications in parallel, stacked"),
            LegendItem::new(
                Swatch::Line {
                    color: COMP_ALONE,
                    dashed: false,
                },
                "computations alone",
            ),
            LegendItem::new(
                Swatch::Line {
                    color: INK,
                    dashed: true,
                },
                "model total T(n), equation 1",
            ),
            LegendItem::new(
                Swatch::Marker {
                    shape: Shape::Circle,
                    color: INK,
                },
                "model parameters, section 3.1",
            ),
        ];
        if self.intervals.is_some() {
            items.push(LegendItem::new(
                Swatch::Line {
                    color: MUTED,
                    dashed: false,
                },
                "their 95 % intervals (cores, MB/s)",
            ));
        }
        items
    }

    fn header(&self) -> i32 {
        MARGIN + TITLE as i32 + 16 + 2 * LINE + legend_height(&self.legend(), WIDTH - 2 * MARGIN)
    }

    fn plot(&self) -> Plot {
        let top = self.header() + 16;
        let bottom = HEIGHT - MARGIN - LABEL as i32 - 12 - X_TICKS_HEIGHT;
        Plot {
            left: MARGIN + LABEL as i32 + 16 + Y_TICKS,
            top,
            width: WIDTH - 2 * MARGIN - LABEL as i32 - 16 - 2 * Y_TICKS,
            height: bottom - top,
            x: (0.5, f64::from(self.max_cores()) + 0.5),
            y: self.scale.range(),
        }
    }

    fn max_cores(&self) -> u32 {
        self.points.iter().map(|p| p.cores).max().unwrap_or(1)
    }
}

const WIDTH: i32 = 1400;
const HEIGHT: i32 = 1000;
/// Height of a line of the header.
const LINE: i32 = 38;
const AREA_ALPHA: f64 = 0.45;

/// A label's box in pixels: left, top, right, bottom.
type Rect = (i32, i32, i32, i32);

/// Whether two boxes come closer than a few pixels.
fn overlaps(a: Rect, b: Rect) -> bool {
    const PAD: i32 = 6;
    a.0 < b.2 + PAD && b.0 < a.2 + PAD && a.1 < b.3 + PAD && b.1 < a.3 + PAD
}

/// The point of box `r` nearest to `(x, y)`: where a leader line from the point meets it.
fn nearest(r: Rect, (x, y): (i32, i32)) -> (i32, i32) {
    (x.clamp(r.0, r.2), y.clamp(r.1, r.3))
}

/// Distance in pixels from `p` to the segment `a`-`b`.
fn distance_to_segment(p: (i32, i32), a: (i32, i32), b: (i32, i32)) -> f64 {
    let (px, py) = (f64::from(p.0), f64::from(p.1));
    let (ax, ay) = (f64::from(a.0), f64::from(a.1));
    let (dx, dy) = (f64::from(b.0) - ax, f64::from(b.1) - ay);
    let len2 = dx * dx + dy * dy;
    let t = if len2 == 0.0 {
        0.0
    } else {
        (((px - ax) * dx + (py - ay) * dy) / len2).clamp(0.0, 1.0)
    };
    (px - ax - t * dx).hypot(py - ay - t * dy)
}

/// How far in pixels a leader line keeps from the other key points (their dots have a radius
/// of [`DOT_RADIUS`]): closer, the label seems to belong to the point it passes.
const LEADER_CLEARANCE: f64 = 10.0;
/// The key points' dots' radius in pixels.
const DOT_RADIUS: i32 = 9;

/// Whether the polyline `line` crosses box `r` (tested every few pixels along it).
fn crosses(line: &[(i32, i32)], r: Rect) -> bool {
    line.windows(2).any(|w| {
        let ((x0, y0), (x1, y1)) = (w[0], w[1]);
        let steps = ((x1 - x0).abs().max((y1 - y0).abs()) / 3).max(1);
        (0..=steps).any(|k| {
            let x = x0 + (x1 - x0) * k / steps;
            let y = y0 + (y1 - y0) * k / steps;
            x >= r.0 && x <= r.2 && y >= r.1 && y <= r.3
        })
    })
}

/// Places each label near its point, trying positions around it (closest first) and keeping
/// the first whose box stays inside the plot, clear of the labels placed before and of the
/// other points, and whose leader line passes no other point (so a label cannot seem to
/// belong to a neighbour). A point whose dot touches the labelled one's (a fit can put
/// `T_par^max2` and `T_seq^max` a few pixels apart) may be passed by every leader line:
/// where no position keeps clear of it, it is not held against any. Positions that also keep
/// clear of the curves (`lines`) are preferred. A greedy choice is enough for four labels; if
/// nothing fits, a position inside the plot and clear of the labels placed before is kept
/// (readable text comes before a clean leader line), else the first.
fn place_labels(
    plot: &Plot,
    points: &[(i32, i32)],
    sizes: &[(i32, i32)],
    lines: &[Vec<(i32, i32)>],
) -> Vec<Rect> {
    let mut placed: Vec<Rect> = Vec::new();
    let dot = |&(x, y): &(i32, i32)| (x - 8, y - 8, x + 8, y + 8);
    for (i, (&(x, y), &(w, h))) in points.iter().zip(sizes).enumerate() {
        let mut candidates = Vec::new();
        for d in [16, 56, 110, 170] {
            candidates.extend([
                (x - w / 2, y - d - h), // above
                (x + d, y - d - h),     // above right
                (x - d - w, y - d - h), // above left
                (x + d, y - h / 2),     // right
                (x - d - w, y - h / 2), // left
                (x + d, y + d),         // below right
                (x - d - w, y + d),     // below left
                (x - w / 2, y + d),     // below
            ]);
        }
        let touching = |&(px, py): &(i32, i32)| {
            f64::from(px - x).hypot(f64::from(py - y))
                <= 2.0 * f64::from(DOT_RADIUS) + LEADER_CLEARANCE
        };
        let apart = |&(l, t): &(i32, i32)| {
            let r = (l, t, l + w, t + h);
            r.0 >= plot.left + 4
                && r.2 <= plot.right() - 4
                && r.1 >= plot.top + 4
                && r.3 <= plot.bottom() - 4
                && placed.iter().all(|&p| !overlaps(p, r))
        };
        // `exempt`: whether points touching this one are let pass (see above).
        let fits = |c: &(i32, i32), exempt: bool| {
            let r = (c.0, c.1, c.0 + w, c.1 + h);
            apart(c)
                && points.iter().enumerate().all(|(j, &p)| {
                    j == i
                        || (!overlaps(dot(&p), r)
                            && ((exempt && touching(&p))
                                || distance_to_segment(p, (x, y), nearest(r, (x, y)))
                                    > LEADER_CLEARANCE))
                })
        };
        let clear =
            |&(l, t): &(i32, i32)| !lines.iter().any(|line| crosses(line, (l, t, l + w, t + h)));
        let first = |ok: &dyn Fn(&(i32, i32)) -> bool| candidates.iter().copied().find(|c| ok(c));
        let (l, t) = first(&|c| fits(c, false) && clear(c))
            .or_else(|| first(&|c| fits(c, false)))
            .or_else(|| first(&|c| fits(c, true) && clear(c)))
            .or_else(|| first(&|c| fits(c, true)))
            .or_else(|| first(&apart))
            .unwrap_or(candidates[0]);
        placed.push((l, t, l + w, t + h));
    }
    placed
}

impl Figure for Stacked {
    fn size(&self) -> (u32, u32) {
        (WIDTH as u32, HEIGHT as u32)
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        self.draw_headers(root)?;
        let plot = self.plot();
        let ticks = self.scale.ticks();
        plot.grid_lines(root, &ticks)?;
        plot.y_ticks(root, Side::Left, &ticks, true, mbps_label)?;
        plot.y_ticks(root, Side::Right, &ticks, true, mbps_label)?;
        plot.x_ticks(root, &core_ticks(self.max_cores(), 12), true, |v| {
            format!("{v:.0}")
        })?;
        let curves = self.draw_curves(root, &plot)?;
        self.draw_key_points(root, &plot, &curves)?;
        plot.frame(root, 1)?;
        root.draw_text(
            "Memory bandwidth (MB/s)",
            &anchored(bold(LABEL), HPos::Center, VPos::Center).transform(FontTransform::Rotate270),
            (MARGIN + LABEL as i32 / 2, (plot.top + plot.bottom()) / 2),
        )?;
        root.draw_text(
            "Number of computing cores",
            &anchored(text(LABEL), HPos::Center, VPos::Bottom),
            (plot.left + plot.width / 2, HEIGHT - MARGIN),
        )
    }
}

/// A curve as drawn, in pixels.
type Polyline = Vec<(i32, i32)>;

/// The steps of [`Figure::draw`] for the stacked view.
impl Stacked {
    /// The title, the provenance line, the parameters and the legend, above the plot.
    fn draw_headers<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        let inner = WIDTH - 2 * MARGIN;
        draw_header(root, &self.title(), true, TITLE, (WIDTH / 2, MARGIN), inner)?;
        let line_y = MARGIN + TITLE as i32 + 16;
        draw_header(
            root,
            &self.provenance(),
            false,
            TICK,
            (WIDTH / 2, line_y + (LINE - TICK as i32) / 2),
            inner,
        )?;
        let params = self.parameters();
        let params_x = WIDTH / 2 - rich_width(&params, TICK) / 2;
        draw_rich(
            root,
            (params_x, line_y + LINE + LINE / 2),
            &params,
            TICK,
            MUTED,
        )?;
        draw_legend(
            root,
            &self.legend(),
            MARGIN,
            line_y + 2 * LINE,
            WIDTH - 2 * MARGIN,
        )?;

        Ok(())
    }

    /// The stacked areas (communications on top of computations), the computations alone
    /// and the model's total; returns those four curves in pixels, which labels must avoid.
    fn draw_curves<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        plot: &Plot,
    ) -> Result<[Polyline; 4], DrawingAreaErrorKind<DB::ErrorType>> {
        // Stacked areas: communications on top of computations.
        let series = |y: fn(&StackPoint) -> f64| -> Vec<(i32, i32)> {
            self.points
                .iter()
                .map(|p| plot.px((f64::from(p.cores), y(p))))
                .collect()
        };
        let comp_top = series(|p| p.comp_parallel);
        let stack_top = series(|p| p.comp_parallel + p.comm_parallel);
        let base = series(|_| 0.0);
        let band = |upper: &[(i32, i32)], lower: &[(i32, i32)]| -> Vec<(i32, i32)> {
            upper.iter().chain(lower.iter().rev()).copied().collect()
        };
        root.draw(&Polygon::new(
            band(&stack_top, &comp_top),
            COMM.mix(AREA_ALPHA).filled(),
        ))?;
        root.draw(&Polygon::new(
            band(&comp_top, &base),
            COMP.mix(AREA_ALPHA).filled(),
        ))?;
        draw_line(root, &stack_top, COMM, 3, false)?;
        draw_line(root, &comp_top, COMP, 3, false)?;

        let alone = series(|p| p.comp_alone);
        draw_line(root, &alone, COMP_ALONE, 4, false)?;
        if self.source == DataSource::Measured {
            for &at in &alone {
                draw_marker(root, at, Shape::Circle, COMP_ALONE)?;
            }
        }
        let total = series(|p| p.model_total);
        draw_line(root, &total, INK, 2, true)?;
        Ok([stack_top, comp_top, alone, total])
    }

    /// The model's key points, each label in a white box with a leader line, placed off
    /// `curves`.
    fn draw_key_points<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        plot: &Plot,
        curves: &[Polyline],
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        // The key points and their labels, each label in a white box with a leader line.
        let keys = self.key_points();
        let at: Vec<(i32, i32)> = keys
            .iter()
            .map(|k| plot.px((f64::from(k.cores), k.mbps)))
            .collect();
        let sizes: Vec<(i32, i32)> = keys
            .iter()
            .map(|k| (rich_width(&k.label, TICK) + 20, TICK as i32 + 18))
            .collect();
        self.draw_error_bars(root, plot, &keys)?;
        let boxes = place_labels(plot, &at, &sizes, curves);
        for ((k, &(px, py)), &(l, t, r, b)) in keys.iter().zip(&at).zip(&boxes) {
            let end = nearest((l, t, r, b), (px, py));
            root.draw(&PathElement::new(vec![(px, py), end], INK.stroke_width(2)))?;
            root.draw(&Rectangle::new([(l, t), (r, b)], WHITE.mix(0.9).filled()))?;
            root.draw(&Rectangle::new([(l, t), (r, b)], MUTED.stroke_width(1)))?;
            draw_rich(root, (l + 10, (t + b) / 2), &k.label, TICK, INK)?;
        }
        for &(px, py) in &at {
            root.draw(&Circle::new((px, py), DOT_RADIUS, WHITE.filled()))?;
            root.draw(&Circle::new((px, py), 7, INK.filled()))?;
        }
        Ok(())
    }

    /// Each key point's intervals as error bars with end caps: across its range of core
    /// counts, and along its range of bandwidths.
    fn draw_error_bars<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        plot: &Plot,
        keys: &[KeyPoint],
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        const CAP: i32 = 8;
        let style = MUTED.stroke_width(3);
        let finite = |[a, b]: Interval| a.is_finite() && b.is_finite() && a < b;
        for (k, e) in keys.iter().filter_map(|k| k.error.map(|e| (k, e))) {
            let (x, y) = (f64::from(k.cores), k.mbps);
            if finite(e.cores) {
                let (a, b) = (plot.px((e.cores[0], y)), plot.px((e.cores[1], y)));
                root.draw(&PathElement::new(vec![a, b], style))?;
                for (ex, ey) in [a, b] {
                    root.draw(&PathElement::new(
                        vec![(ex, ey - CAP), (ex, ey + CAP)],
                        style,
                    ))?;
                }
            }
            if finite(e.mbps) {
                // An interval open above (`T_seq^max` bounded from below only) runs to the
                // plot's top, without a cap there.
                let open = open_above(e.mbps);
                let top = if open { plot.y.1 } else { e.mbps[1] };
                let (a, b) = (plot.px((x, e.mbps[0])), plot.px((x, top)));
                root.draw(&PathElement::new(vec![a, b], style))?;
                let ends = if open { &[a][..] } else { &[a, b][..] };
                for &(ex, ey) in ends {
                    root.draw(&PathElement::new(
                        vec![(ex - CAP, ey), (ex + CAP, ey)],
                        style,
                    ))?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::model_file;
    use crate::trace::TidyRow;

    fn words(segs: &[Seg]) -> String {
        segs.iter()
            .map(|s| match s {
                Seg::Text(t) => t.clone(),
                Seg::Sym(y) => format!("{}_{}^{}", y.base, y.sub, y.sup),
            })
            .collect()
    }

    #[test]
    fn coinciding_key_points_share_one_label_and_alpha_has_three_digits() {
        // The 2-core VM: N_par^max = N_seq^max = 2 and T_par^max = T_par^max2.
        let mut model = model_file::load("paper:henri").unwrap();
        model.remote = None;
        let p = &mut model.local;
        (p.n_par_max, p.n_seq_max) = (18, 18);
        p.t_par_max2 = p.t_par_max;
        p.alpha = 0.34001726325410253;
        let s = Stacked::all(&model, "/some/dir/m.json", &Measurements::from_rows(&[])).remove(0);
        let keys = s.key_points();
        assert_eq!(
            keys.len(),
            3,
            "one point, one label for T_par^max and T_par^max2"
        );
        let both = words(&keys[0].label);
        assert!(both.contains("T_par^max = T_par^max2 ="), "{both}");
        assert!(words(&keys[1].label).starts_with("T_seq^max"));
        let params = words(&s.parameters());
        assert!(params.contains("α = 0.340;"), "{params}");
        // The subtitle names the model file, not where it was.
        assert!(
            s.provenance().contains("model m.json."),
            "{}",
            s.provenance()
        );
    }

    /// A bootstrap's account holding the local side's intervals `iv` and nothing else.
    fn local_intervals(iv: [crate::model::Interval; Params::COUNT]) -> Uncertainty {
        Uncertainty {
            method: "test".into(),
            resamples: 2,
            kept_full_fit: Some(0),
            seed: 0,
            level: 0.95,
            local: ParamIntervals::new(iv, vec![]),
            remote: None,
            replicates: Vec::new(),
        }
    }

    #[test]
    fn a_bootstrap_gives_each_key_point_error_bars_and_breakpoint_ranges() {
        let model = model_file::load("paper:henri").unwrap();
        let p = model.local;
        let mut iv = ParamIntervals::point(&p).as_array();
        let at = |name: &str| Params::NAMES.iter().position(|n| *n == name).unwrap();
        iv[at("n_par_max")] = [15.0, 18.0];
        iv[at("t_par_max")] = [0.98 * p.t_par_max, 1.01 * p.t_par_max];
        iv[at("b_seq_comp")] = [0.99 * p.b_seq_comp, 1.02 * p.b_seq_comp];
        let u = local_intervals(iv);
        let plain = Stacked::new(
            &model,
            "paper:henri",
            Calibrates::Local,
            &Measurements::default(),
        )
        .unwrap();
        assert!(plain.key_points().iter().all(|k| k.error.is_none()));
        let s = plain.clone().with_intervals(&u);
        let keys = s.key_points();
        let t_par = &keys[0];
        assert_eq!(
            t_par.error,
            Some(ErrorBars {
                cores: [15.0, 18.0],
                mbps: iv[at("t_par_max")],
            })
        );
        assert!(
            words(&t_par.label).ends_with(" = 17 (15..18)"),
            "{}",
            words(&t_par.label)
        );
        let b = keys.last().unwrap();
        assert_eq!(b.error.unwrap().mbps, iv[at("b_seq_comp")]);
        // A zero-width breakpoint interval adds no range to its label.
        assert!(
            !words(&keys[1].label).contains(".."),
            "{}",
            words(&keys[1].label)
        );
        assert!(s.legend().len() > plain.legend().len());
        let svg = crate::plot::render(&s, crate::plot::ImageFormat::Svg).unwrap();
        let plain_svg = crate::plot::render(&plain, crate::plot::ImageFormat::Svg).unwrap();
        assert!(svg.len() > plain_svg.len());
    }

    #[test]
    fn an_interval_open_above_runs_to_the_top_of_the_figure() {
        let model = model_file::load("paper:henri").unwrap();
        let mut iv = ParamIntervals::point(&model.local).as_array();
        iv[Params::T_SEQ_MAX] = [71_000.0, crate::model::constraints::MAX_BANDWIDTH];
        let u = local_intervals(iv);
        let s = Stacked::new(
            &model,
            "paper:henri",
            Calibrates::Local,
            &Measurements::default(),
        )
        .unwrap()
        .with_intervals(&u);
        let svg = crate::plot::render(&s, crate::plot::ImageFormat::Svg).unwrap();
        let svg = String::from_utf8(svg).unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        // Every line's points inside the plot: the bar stops at its top, where a bar mapped
        // from 1e12 MB/s was clipped only at the canvas's edge, through the title.
        let above: Vec<&str> = doc
            .descendants()
            .filter_map(|n| n.attribute("points"))
            .filter(|pts| {
                pts.split_whitespace()
                    .filter_map(|xy| xy.split_once(','))
                    .any(|(_, y)| y.parse::<f64>().is_ok_and(|y| y < 20.0))
            })
            .collect();
        assert!(above.is_empty(), "lines through the title: {above:?}");
    }

    #[test]
    fn model_only_stacks_follow_the_model_curves() {
        let model = model_file::load("paper:henri-subnuma").unwrap();
        let all = Stacked::all(&model, "paper:henri-subnuma", &Measurements::default());
        assert_eq!(all.len(), 2);
        let remote = &all[1];
        assert_eq!(remote.side_name(), "remote");
        assert_eq!(
            remote.placement,
            Placement {
                comp_numa: 2,
                comm_numa: 2
            }
        );
        assert_eq!(remote.source, DataSource::Model);
        let curve = bandwidth::curve(model.remote.as_ref().unwrap(), 18);
        assert_eq!(remote.points.len(), 18);
        for (p, c) in remote.points.iter().zip(&curve) {
            assert_eq!(
                (p.comp_parallel, p.comm_parallel),
                (c.comp_parallel, c.comm_parallel)
            );
        }
        let keys = all[0].key_points();
        assert_eq!(keys.len(), 4);
        assert_eq!((keys[0].cores, keys[0].mbps), (8, 42487.7));
        assert_eq!((keys[3].cores, keys[3].mbps), (1, 4456.4));
        assert!(all[0].scale.top > 43655.6);
        let csv = all[0].csv();
        assert_eq!(csv.lines().count(), 19);
        assert!(csv.lines().nth(1).unwrap().ends_with(",model"), "{csv}");
    }

    #[test]
    fn a_measured_calibration_placement_replaces_the_model_areas() {
        let mut model = model_file::load("paper:henri").unwrap();
        model.remote = None;
        let rows = [1, 4].map(|cores| TidyRow {
            comp_numa: 0,
            comm_numa: 0,
            cores,
            comp_alone: 1000.0 * f64::from(cores),
            comm_alone: 11000.0,
            comp_parallel: 900.0 * f64::from(cores),
            comm_parallel: 10000.0,
        });
        let all = Stacked::all(&model, "m.json", &Measurements::from_rows(&rows));
        assert_eq!(all.len(), 1, "no remote parameters, no remote figure");
        let s = &all[0];
        assert_eq!(s.source, DataSource::Measured);
        assert_eq!(s.points.len(), 2);
        assert_eq!(s.points[1].comp_parallel, 3600.0);
        assert_eq!(
            s.points[1].model_total,
            crate::model::total::total(&model.local, 4)
        );
        assert!(s.csv().contains("\n4,3600.0,10000.0,13600.0,4000.0,"));
    }

    /// A 1000 x 600 pixel plot at the origin.
    fn test_plot() -> Plot {
        Plot {
            left: 0,
            top: 0,
            width: 1000,
            height: 600,
            x: (0.0, 1.0),
            y: (0.0, 1.0),
        }
    }

    #[test]
    fn labels_avoid_each_other_and_stay_inside() {
        let plot = test_plot();
        // Two points one above the other, as T_par^max2 and T_seq^max of henri-subnuma's
        // remote model: the lower one's label must not be reached past the upper point.
        let points = [(500, 100), (520, 300), (520, 288), (10, 580)];
        let sizes = [(300, 40); 4];
        let boxes = place_labels(&plot, &points, &sizes, &[]);
        for (i, a) in boxes.iter().enumerate() {
            assert!(a.0 >= 0 && a.2 <= 1000 && a.1 >= 0 && a.3 <= 600, "{a:?}");
            for b in &boxes[i + 1..] {
                assert!(!overlaps(*a, *b), "{a:?} {b:?}");
            }
            for (j, &p) in points.iter().enumerate() {
                if j != i {
                    let leader = distance_to_segment(p, points[i], nearest(*a, points[i]));
                    assert!(leader > LEADER_CLEARANCE, "label {i} passes point {j}");
                }
            }
        }
    }

    #[test]
    fn labels_of_points_closer_than_their_dots_still_do_not_overlap() {
        // henri's local fit from a simulated sweep: T_par^max at 15 cores, T_par^max2 and
        // T_seq^max at 16, a few pixels apart, near the top right of the plot. No leader line
        // can keep clear of a dot that touches its own point; the labels must still be apart.
        let plot = test_plot();
        let points = [(833, 160), (889, 166), (889, 172), (30, 560)];
        let sizes = [(400, 40), (420, 40), (420, 40), (300, 40)];
        let boxes = place_labels(&plot, &points, &sizes, &[]);
        for (i, a) in boxes.iter().enumerate() {
            assert!(a.0 >= 0 && a.2 <= 1000 && a.1 >= 0 && a.3 <= 600, "{a:?}");
            for b in &boxes[i + 1..] {
                assert!(!overlaps(*a, *b), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn labels_keep_clear_of_the_curves_when_they_can() {
        let plot = test_plot();
        // A curve 50 px above the point, where the first choice (above) would sit.
        let curve = vec![(0, 250), (1000, 250)];
        let boxes = place_labels(
            &plot,
            &[(500, 300)],
            &[(300, 40)],
            std::slice::from_ref(&curve),
        );
        assert!(!crosses(&curve, boxes[0]), "{:?}", boxes[0]);
        let unconstrained = place_labels(&plot, &[(500, 300)], &[(300, 40)], &[]);
        assert!(
            crosses(&curve, unconstrained[0]),
            "the test curve is in the way"
        );
    }
}
