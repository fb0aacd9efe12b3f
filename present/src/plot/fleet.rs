//! The fleet's figure: on the left, one strip per model parameter with every node's value
//! as its distance from the fleet's median in robust standard deviations (so ten parameters of
//! different units share one axis) and the band of the fleet report shaded, outliers in red
//! and labelled with their host; on the right, every node's local curves (placement 0,0:
//! computations and communications in parallel, equations 7 and 8) overlaid on one panel,
//! the model as lines and the measured medians as triangles, outlying nodes in red and named.

use super::axes::{Plot, Side, X_TICKS_HEIGHT};
use super::style::{
    anchored, core_ticks, draw_legend, draw_line, draw_marker, draw_title_and_subtitle,
    legend_height, mbps_label, span_scale, text, LegendItem, Shape, Swatch, COMM, COMP, LABEL,
    MARGIN, MUTED, SHADE, TICK, Y_TICKS,
};
use super::Figure;
use crate::fleet::{FleetReport, NodeReport};
use crate::model::{self, Placement};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};
use plotters::style::FontTransform;

const WIDTH: u32 = 2600;
/// Height of one parameter's strip.
const ROW: i32 = 52;
/// Width of the parameter names left of the strips.
const NAMES: i32 = 250;
/// Outlying nodes: red, apart from both streams' colours.
const OUTLIER: RGBColor = RGBColor(0xd6, 0x27, 0x28);
/// Nodes within the band, in the curves panel: their stream's colour, lighter.
const COMP_LIGHT: RGBColor = RGBColor(0xff, 0xbb, 0x78);
const COMM_LIGHT: RGBColor = RGBColor(0x9e, 0xc5, 0xe8);

/// One node's value of one parameter, as drawn.
pub(crate) struct StripPoint {
    pub(crate) host: String,
    /// `(value - median) / sigma`.
    pub(crate) score: f64,
    /// The report names this value an outlier: outside the band and beyond the node's own
    /// noise, and, for a node measured twice, outside in its second run too. A value past
    /// the band but within that noise is drawn there, not named.
    pub(crate) outlier: bool,
}

/// One parameter's strip.
pub(crate) struct Strip {
    pub(crate) parameter: String,
    pub(crate) points: Vec<StripPoint>,
}

/// One node's local curves: `(cores, MB/s)`.
pub(crate) struct NodeCurves {
    pub(crate) host: String,
    pub(crate) outlier: bool,
    pub(crate) model_comp: Vec<(f64, f64)>,
    pub(crate) model_comm: Vec<(f64, f64)>,
    pub(crate) measured_comp: Vec<(f64, f64)>,
    pub(crate) measured_comm: Vec<(f64, f64)>,
}

/// The figure's data, computed from the report.
pub(crate) struct Fleet {
    pub(crate) title: String,
    pub(crate) subtitle: String,
    pub(crate) k: f64,
    pub(crate) strips: Vec<Strip>,
    pub(crate) curves: Vec<NodeCurves>,
}

/// The most nodes whose local curves the figure draws: past a few dozen they cover each
/// other, and every one adds to the file (10,000 nodes drew a 106 MB SVG).
const MAX_CURVES: usize = 100;

/// The nodes (indices into `nodes`) whose curves are drawn: those with a model, all of them
/// up to [`MAX_CURVES`]; beyond, the outliers first, then the others evenly spread over the
/// fleet's order.
fn curves_drawn(nodes: &[NodeReport]) -> Vec<usize> {
    let with_model: Vec<usize> = (0..nodes.len())
        .filter(|&i| nodes[i].model.is_some())
        .collect();
    if with_model.len() <= MAX_CURVES {
        return with_model;
    }
    let (outliers, others): (Vec<usize>, Vec<usize>) = with_model
        .into_iter()
        .partition(|&i| !nodes[i].outlier_parameters.is_empty());
    let mut out: Vec<usize> = outliers.into_iter().take(MAX_CURVES).collect();
    let room = MAX_CURVES - out.len();
    if room > 0 {
        let step = others.len() as f64 / room as f64;
        out.extend((0..room).map(|j| others[(j as f64 * step) as usize]));
    }
    out.sort_unstable();
    out
}

/// A node's local curves, modelled at every core count of its socket, and as measured;
/// none for a node without a model.
fn curves_of(n: &NodeReport) -> Option<NodeCurves> {
    let local = Placement {
        comp_numa: 0,
        comm_numa: 0,
    };
    let m = n.model.as_ref()?;
    let cores: Vec<u32> = (1..=m.machine.cores_per_socket).collect();
    let pred = model::predict(m, &[local], &cores).ok()?;
    let pts = &pred.first()?.points;
    let xy = |f: fn(&crate::model::Point) -> f64| {
        pts.iter().map(|p| (f64::from(p.cores), f(p))).collect()
    };
    Some(NodeCurves {
        host: n.host.clone(),
        outlier: !n.outlier_parameters.is_empty(),
        model_comp: xy(|p| p.comp_parallel),
        model_comm: xy(|p| p.comm_parallel),
        measured_comp: n
            .local_measured
            .iter()
            .map(|r| (f64::from(r.cores), r.comp_parallel))
            .collect(),
        measured_comm: n
            .local_measured
            .iter()
            .map(|r| (f64::from(r.cores), r.comm_parallel))
            .collect(),
    })
}

impl Fleet {
    pub(crate) fn new(r: &FleetReport) -> Self {
        let strips = r
            .parameters
            .iter()
            .map(|p| Strip {
                parameter: p.parameter.clone(),
                points: r
                    .nodes
                    .iter()
                    .filter_map(|n| {
                        let v = crate::fleet::value(n.model.as_ref()?, &p.parameter)?;
                        Some(StripPoint {
                            host: n.host.clone(),
                            score: p.band.score(v),
                            outlier: n.outlier_parameters.contains(&p.parameter),
                        })
                    })
                    .collect(),
            })
            .collect();
        let chosen = curves_drawn(&r.nodes);
        let with_model = r.nodes.iter().filter(|n| n.model.is_some()).count();
        let curves: Vec<NodeCurves> = chosen
            .iter()
            .map(|&i| &r.nodes[i])
            .filter_map(curves_of)
            .collect();
        let calibrated = r.nodes.iter().filter(|n| n.calibrated).count();
        Fleet {
            title: format!(
                "{} of {} node(s): model parameters and local curves",
                if r.simulated.is_some() {
                    "SIMULATED fleet"
                } else {
                    "Fleet"
                },
                r.nodes.len()
            ),
            subtitle: format!(
                "{calibrated} calibrated; band |x \u{2212} median| \u{2264} {} \u{d7} max(1.4826 \u{d7} MAD, floor); \
                 {} outlying value(s) on {} node(s)",
                r.k,
                r.outliers.len(),
                r.nodes
                    .iter()
                    .filter(|n| !n.outlier_parameters.is_empty())
                    .count()
            ) + &if chosen.len() < with_model {
                format!(
                    "; local curves of {} of the {with_model} nodes (outliers first)",
                    chosen.len()
                )
            } else {
                String::new()
            },
            k: r.k,
            strips,
            curves,
        }
    }

    fn legend(&self) -> Vec<LegendItem> {
        vec![
            LegendItem::new(
                Swatch::Line {
                    color: COMP,
                    dashed: false,
                },
                "computations in parallel (model)",
            ),
            LegendItem::new(
                Swatch::Line {
                    color: COMM,
                    dashed: true,
                },
                "communications in parallel (model)",
            ),
            LegendItem::new(
                Swatch::Marker {
                    shape: Shape::DownTriangle,
                    color: MUTED,
                },
                "measured",
            ),
            LegendItem::new(
                Swatch::Line {
                    color: OUTLIER,
                    dashed: false,
                },
                "node with an outlying parameter",
            ),
        ]
    }

    fn strips_height(&self) -> i32 {
        (self.strips.len() as i32 * ROW).max(8 * ROW)
    }
}

const HEADER: i32 = 120;

impl Figure for Fleet {
    fn size(&self) -> (u32, u32) {
        let legend = legend_height(&self.legend(), WIDTH as i32 - 2 * MARGIN);
        let h = HEADER
            + legend
            + 20
            + self.strips_height()
            + X_TICKS_HEIGHT
            + LABEL as i32
            + MARGIN
            + 40;
        (WIDTH, h as u32)
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        let w = WIDTH as i32;
        draw_title_and_subtitle(root, &self.title, &self.subtitle, w)?;
        let items = self.legend();
        draw_legend(root, &items, MARGIN, HEADER - 20, w - 2 * MARGIN)?;
        let top = HEADER + legend_height(&items, w - 2 * MARGIN) + 20;
        let height = self.strips_height();
        let split = w * 11 / 24;
        self.draw_strips(
            root,
            MARGIN + NAMES,
            top,
            split - MARGIN - NAMES - 40,
            height,
        )?;
        let left = split + 60 + LABEL as i32 + Y_TICKS;
        self.draw_curves(root, left, top, w - left - 2 * MARGIN - 120, height)
    }
}

impl Fleet {
    /// One row per parameter: each node's distance from the fleet's median in robust
    /// standard deviations, the band of `k` shaded, the outliers named.
    fn draw_strips<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        left: i32,
        top: i32,
        width: i32,
        height: i32,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        let worst = self
            .strips
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.score.abs()))
            .filter(|s| s.is_finite())
            .fold(self.k + 1.0, f64::max);
        let reach = (worst * 1.1).ceil().min(MAX_REACH);
        let rows = (height / ROW).max(1);
        let plot = Plot {
            left,
            top,
            width,
            height,
            x: (-reach, reach),
            y: (f64::from(rows), 0.0),
        };
        plot.fill(
            root,
            (-self.k, f64::from(rows)),
            (self.k, 0.0),
            SHADE.into(),
        )?;
        let x0 = plot.px_x(0.0);
        draw_line(root, &[(x0, plot.top), (x0, plot.bottom())], MUTED, 1, true)?;
        for (i, s) in self.strips.iter().enumerate() {
            let y = plot.top + i as i32 * ROW + ROW / 2;
            draw_strip(root, &plot, reach, y, s)?;
        }
        let step = sigma_step(reach);
        // At most four a side by `sigma_step`; bounded here too, as the count of a vector.
        let n = ((reach / step).floor() as i32).clamp(0, 4);
        let ticks: Vec<f64> = (-n..=n).map(|i| f64::from(i) * step).collect();
        plot.x_ticks(root, &ticks, true, |v| {
            if v == 0.0 {
                "0".into()
            } else {
                format!("{v:+.0}")
            }
        })?;
        plot.frame(root, 2)?;
        x_label(
            root,
            &plot,
            &format!(
                "distance from the fleet's median, robust standard deviations (band \u{b1}{})",
                self.k
            ),
        )?;
        Ok(())
    }

    fn draw_curves<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        left: i32,
        top: i32,
        width: i32,
        height: i32,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        let all = self.curves.iter().flat_map(|c| {
            c.model_comp
                .iter()
                .chain(&c.model_comm)
                .chain(&c.measured_comp)
                .chain(&c.measured_comm)
        });
        let (mut x_max, mut y_max) = (1.0_f64, 0.0_f64);
        for &(x, y) in all {
            x_max = x_max.max(x);
            if y.is_finite() {
                y_max = y_max.max(y);
            }
        }
        let scale = span_scale(0.0, y_max.max(1.0));
        let plot = Plot {
            left,
            top,
            width,
            height,
            x: (0.5, x_max + 0.5),
            y: (0.0, scale.top),
        };
        plot.grid_lines(root, &scale.ticks())?;
        // Nodes within the band first, so the outliers are drawn over them.
        let mut order: Vec<&NodeCurves> = self.curves.iter().collect();
        order.sort_by_key(|c| c.outlier);
        for c in order {
            let (comp, comm, width) = if c.outlier {
                (OUTLIER, OUTLIER, 4)
            } else {
                (COMP_LIGHT, COMM_LIGHT, 2)
            };
            let px = |v: &[(f64, f64)]| v.iter().map(|&p| plot.px(p)).collect::<Vec<_>>();
            draw_line(root, &px(&c.model_comp), comp, width, false)?;
            draw_line(root, &px(&c.model_comm), comm, width, true)?;
            for (pts, color) in [(&c.measured_comp, comp), (&c.measured_comm, comm)] {
                for &p in pts.iter() {
                    draw_marker(root, plot.px(p), Shape::DownTriangle, color)?;
                }
            }
            if c.outlier {
                for line in [&c.model_comp, &c.model_comm] {
                    if let Some(&last) = line.last() {
                        let (x, y) = plot.px(last);
                        root.draw_text(
                            &c.host,
                            &anchored(text(TICK).color(&OUTLIER), HPos::Left, VPos::Center),
                            (x + 12, y),
                        )?;
                    }
                }
            }
        }
        plot.y_ticks(root, Side::Left, &scale.ticks(), true, mbps_label)?;
        plot.x_ticks(root, &core_ticks(x_max as u32, 12), true, |v| {
            format!("{v:.0}")
        })?;
        plot.frame(root, 2)?;
        x_label(root, &plot, "computing cores (placement 0,0)")?;
        root.draw_text(
            "bandwidth in parallel (MB/s)",
            &anchored(text(LABEL), HPos::Center, VPos::Top).transform(FontTransform::Rotate270),
            (
                plot.left - Y_TICKS - LABEL as i32 - 20,
                plot.top + plot.height / 2,
            ),
        )?;
        Ok(())
    }
}

/// The label under a plot's x axis.
fn x_label<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    plot: &Plot,
    label: &str,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.draw_text(
        label,
        &anchored(text(LABEL), HPos::Center, VPos::Top),
        (
            plot.left + plot.width / 2,
            plot.bottom() + X_TICKS_HEIGHT + 10,
        ),
    )
}

/// The tick step of the distance axis: the first of 1, 2, 5, 10, 20, 50, ... sigmas that
/// gives at most four ticks on either side of 0, whatever the reach (the ladder used to stop
/// after 60 steps, at 1e20: a reach of 1e30 then asked for 2e10 ticks and 34 GB). The
/// ladder climbs a decade every three steps, so it ends within about 925 steps for any
/// finite reach; a reach that is not finite is taken as the largest that is.
fn sigma_step(reach: f64) -> f64 {
    let reach = if reach.is_nan() {
        1.0
    } else {
        reach.min(f64::MAX)
    };
    let mut step = 1.0;
    for m in [2.0, 2.5, 2.0].iter().cycle() {
        if reach / step <= 4.0 {
            break;
        }
        step *= m;
    }
    step
}

/// The widest the distance axis gets, in robust standard deviations: a node farther out
/// (a parameter with a median and a floor near 0 can lie 1e300 sigmas off) is drawn at its
/// edge, as any point past the reach is, and its host named there.
const MAX_REACH: f64 = 1e6;

/// Writes the fleet's figure as `dir/fleet.svg` or `dir/fleet.png` (atomically) and returns
/// its path.
pub fn write_figure(
    report: &FleetReport,
    dir: &std::path::Path,
    format: super::ImageFormat,
) -> crate::Result<std::path::PathBuf> {
    let path = dir.join(format!("fleet.{}", format.extension()));
    let bytes = super::render(&Fleet::new(report), format).map_err(|err| crate::Error::Render {
        path: Some(path.clone()),
        err: Box::new(err),
    })?;
    crate::results::ensure_parent(&path)?;
    crate::io::atomic::write(&path, &bytes)?;
    Ok(path)
}

/// The row of strip `s` at height `y`: its parameter's name left of `plot`, a marker per
/// node at its score (clamped to `reach`), and the host of each outlier.
fn draw_strip<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    plot: &Plot,
    reach: f64,
    y: i32,
    s: &Strip,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.draw_text(
        &s.parameter,
        &anchored(text(TICK), HPos::Right, VPos::Center),
        (plot.left - 12, y),
    )?;
    draw_line(root, &[(plot.left, y), (plot.right(), y)], SHADE, 1, false)?;
    let mut labelled = 0;
    for p in &s.points {
        if !p.score.is_finite() {
            continue;
        }
        let x = plot.px_x(p.score.clamp(-reach, reach));
        let color = if p.outlier { OUTLIER } else { MUTED };
        draw_marker(root, (x, y), Shape::Circle, color)?;
        if p.outlier {
            // Alternate above and below so two outliers of one row stay legible.
            let (dy, v) = if labelled % 2 == 0 {
                (-10, VPos::Bottom)
            } else {
                (10, VPos::Top)
            };
            let h = if x > plot.left + plot.width / 2 {
                HPos::Right
            } else {
                HPos::Left
            };
            root.draw_text(
                &p.host,
                &anchored(text(TICK).color(&OUTLIER), h, v),
                (x, y + dy),
            )?;
            labelled += 1;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::testing::node;

    /// `--outlier-k 1e30` gave a reach of 1.1e30 and a step of 1e20 (the ladder stopped after
    /// 60 steps): 2e10 ticks, 34 GB, and the report aborted.
    #[test]
    fn the_distance_axis_has_at_most_four_ticks_a_side_whatever_its_reach() {
        for reach in [1.0, 4.0, 5.0, 12.0, 1e3, 1e25, 1.1e30, 1e300, f64::MAX] {
            let step = sigma_step(reach);
            assert!(step.is_finite() && step > 0.0, "{reach}: {step}");
            assert!(reach / step <= 4.0, "{reach}: step {step}");
        }
        assert_eq!(sigma_step(4.0), 1.0);
        assert_eq!(sigma_step(10.0), 5.0);
        assert_eq!(sigma_step(f64::INFINITY), sigma_step(f64::MAX));
    }

    /// A node 1e300 sigmas off (a floor near 0) stretched the axis past any tick count; it
    /// is drawn at the edge of an axis of at most `MAX_REACH`.
    #[test]
    fn a_node_far_off_is_drawn_at_the_edge_of_a_bounded_axis() {
        let strip = |score| Strip {
            parameter: "local.delta_l".into(),
            points: vec![StripPoint {
                host: "far".into(),
                score,
                outlier: true,
            }],
        };
        let fleet = Fleet {
            title: "t".into(),
            subtitle: "s".into(),
            k: 3.0,
            strips: vec![strip(1e300), strip(-f64::MAX)],
            curves: Vec::new(),
        };
        let svg = crate::plot::render(&fleet, crate::plot::ImageFormat::Svg).unwrap();
        assert!(svg.len() < 1 << 20, "{} bytes", svg.len());
        assert!(String::from_utf8_lossy(&svg).contains("+1000000"));
    }

    #[test]
    fn a_large_fleet_draws_the_outliers_curves_and_a_spread_of_the_others() {
        let mut nodes: Vec<NodeReport> = (0..1000)
            .map(|i| node(&format!("n{i:04}"), |_| {}))
            .collect();
        nodes[7].outlier_parameters.push("local.b_seq_comp".into());
        nodes[500].model = None;
        let drawn = curves_drawn(&nodes);
        assert_eq!(drawn.len(), MAX_CURVES);
        assert!(drawn.contains(&7), "the outlier");
        assert!(!drawn.contains(&500), "no model, no curve");
        assert!(*drawn.last().unwrap() > 900, "spread to the end: {drawn:?}");
        let small: Vec<NodeReport> = nodes.drain(..5).collect();
        assert_eq!(curves_drawn(&small), [0, 1, 2, 3, 4]);
    }

    /// The strips name the nodes the report names: a value past the band but within its
    /// node's own noise was painted red and labelled, where the report lists it among the
    /// values within noise, not the outliers.
    #[test]
    fn the_strips_name_the_outliers_of_the_report_and_no_other_node() {
        let mut nodes: Vec<NodeReport> = ["a", "b", "c", "d"]
            .iter()
            .map(|h| node(h, |_| {}))
            .collect();
        nodes.push(node("noisy", |m| m.local.b_seq_comp *= 1.5));
        nodes.push(node("off", |m| m.local.b_seq_comm *= 1.5));
        let b_seq = nodes[4].model.as_ref().unwrap().local.b_seq_comp;
        nodes[4].own_noise.insert("local.b_seq_comp".into(), b_seq);
        let opts = crate::fleet::FleetOptions::default();
        let r = crate::fleet::build(std::path::Path::new("r"), nodes, &opts);
        let named = |r: &FleetReport| -> Vec<(String, String)> {
            let f = Fleet::new(r);
            let mut out = Vec::new();
            for s in &f.strips {
                for p in s.points.iter().filter(|p| p.outlier) {
                    out.push((p.host.clone(), s.parameter.clone()));
                }
            }
            out
        };
        let reported: Vec<(String, String)> = r
            .outliers
            .iter()
            .map(|o| (o.host.clone(), o.parameter.clone()))
            .collect();
        assert_eq!(
            reported,
            [("off".to_string(), "local.b_seq_comm".to_string())]
        );
        assert_eq!(r.within_noise.len(), 1, "noisy: {:?}", r.within_noise);
        assert_eq!(named(&r), reported);
    }
}
