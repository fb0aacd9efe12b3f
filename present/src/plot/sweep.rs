//! One trace's sweep over core counts with the spread of its samples, so a user sees the noise
//! and the outliers behind each median before trusting a calibration (section 4.1.1: the
//! paper shows no error bars because its run-to-run variability was low; on another machine
//! that has to be checked, not assumed).
//!
//! Two panels share the core axis: the computations, one sample per core and iteration (a
//! store pass of one thread over its buffer), and the communications, one sample per message.
//! At each core count the phase alone stands left of the phase in parallel, as a Tukey box
//! plot: the box spans the quartiles, the line is the median, the whiskers reach the furthest
//! sample within 1.5 interquartile ranges, and samples beyond are dots. A phase without
//! samples falls back to its summary: a whisker from min to max around the median.
//!
//! The y axes do not start at 0: they span the samples, to make the spread visible.

use super::axes::{Plot, Side, X_TICKS_HEIGHT};
use super::style::{
    anchored, bold, core_ticks, draw_header, draw_legend, legend_height, mbps_label, span_scale,
    text, LegendItem, Scale, Swatch, COMM, COMP, INK, LABEL, MARGIN, MUTED, TICK, TITLE, Y_TICKS,
};
use super::Figure;
use crate::model::Placement;
use crate::stats::quantile;
use crate::trace::{Phase, Trace};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};
use plotters::style::FontTransform;

/// Alone or in parallel with the other stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Alone,
    Parallel,
}

impl Mode {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Mode::Alone => "alone",
            Mode::Parallel => "parallel",
        }
    }
}

/// The two panels, top to bottom.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stream {
    Comp,
    Comm,
}

/// The spread of one phase at one core count (MB/s).
#[derive(Debug, Clone, PartialEq)]
pub struct BoxStats {
    pub cores: u32,
    pub mode: Mode,
    /// Samples behind the statistics (the summary's count when there were none).
    pub count: u64,
    pub(crate) min: f64,
    pub(crate) q1: f64,
    pub median: f64,
    pub(crate) q3: f64,
    pub(crate) max: f64,
    /// The furthest samples within 1.5 interquartile ranges of the box.
    pub(crate) whisker_low: f64,
    pub(crate) whisker_high: f64,
    /// Samples beyond the whiskers.
    pub outliers: Vec<f64>,
    /// False when the phase had no samples and the summary stands in.
    pub(crate) from_samples: bool,
}

impl BoxStats {
    /// Tukey's box plot of `values`; `None` when there are none.
    pub(crate) fn from_values(cores: u32, mode: Mode, values: &[f64]) -> Option<Self> {
        let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let (q1, median, q3) = (quantile(&v, 0.25), quantile(&v, 0.5), quantile(&v, 0.75));
        let iqr = q3 - q1;
        let (lo_fence, hi_fence) = (q1 - 1.5 * iqr, q3 + 1.5 * iqr);
        let inside = || {
            v.iter()
                .copied()
                .filter(|&x| x >= lo_fence && x <= hi_fence)
        };
        Some(BoxStats {
            cores,
            mode,
            count: v.len() as u64,
            min: v[0],
            q1,
            median,
            q3,
            max: v[v.len() - 1],
            whisker_low: inside().fold(f64::INFINITY, f64::min),
            whisker_high: inside().fold(f64::NEG_INFINITY, f64::max),
            outliers: v
                .iter()
                .copied()
                .filter(|&x| x < lo_fence || x > hi_fence)
                .collect(),
            from_samples: true,
        })
    }

    /// A phase's spread from its samples, or, when it has none, from its summary divided by
    /// `summary_per` (a computation summary covers all cores together, its samples one core).
    fn of_phase(cores: u32, mode: Mode, phase: &Phase, summary_per: f64) -> Self {
        let samples: Vec<f64> = phase.samples.iter().map(|s| s.mbps).collect();
        BoxStats::from_values(cores, mode, &samples).unwrap_or_else(|| {
            let s = &phase.summary;
            BoxStats {
                cores,
                mode,
                count: s.count,
                min: s.min / summary_per,
                q1: s.median / summary_per,
                median: s.median / summary_per,
                q3: s.median / summary_per,
                max: s.max / summary_per,
                whisker_low: s.min / summary_per,
                whisker_high: s.max / summary_per,
                outliers: Vec::new(),
                from_samples: false,
            }
        })
    }
}

/// The sweep figure of one trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Sweep {
    /// The trace as the user named it.
    pub(crate) source: String,
    pub(crate) hostname: String,
    pub(crate) cpu_model: String,
    pub(crate) placement: Placement,
    pub(crate) message_bytes: u64,
    pub(crate) kernel: String,
    pub(crate) bound: bool,
    /// Measured core counts out of those planned.
    pub(crate) measured_counts: usize,
    pub(crate) planned_counts: usize,
    /// Per core and iteration, alone then parallel at each core count.
    pub comp: Vec<BoxStats>,
    /// Per message, alone then parallel at each core count.
    pub comm: Vec<BoxStats>,
    pub(crate) comp_scale: Scale,
    pub comm_scale: Scale,
}

const WIDTH: i32 = 1400;
const PANEL_H: i32 = 400;
const PANEL_TITLE: i32 = 46;
const PANEL_GAP: i32 = 30;
/// Height of a line of text under the title.
const HEADER_LINE: i32 = TICK as i32 + 12;
/// Half the distance between the boxes of one core count, and a box's half width, in cores.
const OFFSET: f64 = 0.2;
const HALF_BOX: f64 = 0.15;

fn spread_scale(stats: &[BoxStats]) -> Scale {
    let lo = stats
        .iter()
        .flat_map(|b| b.outliers.iter().copied().chain([b.whisker_low]))
        .fold(f64::INFINITY, f64::min);
    let hi = stats
        .iter()
        .flat_map(|b| b.outliers.iter().copied().chain([b.whisker_high]))
        .fold(f64::NEG_INFINITY, f64::max);
    if lo.is_finite() && hi.is_finite() {
        span_scale(lo, hi)
    } else {
        span_scale(0.0, 1.0)
    }
}

impl Sweep {
    pub fn new(trace: &Trace, source: &str) -> Self {
        let mut comp = Vec::new();
        let mut comm = Vec::new();
        for p in &trace.points {
            let n = f64::from(p.cores.max(1));
            comp.push(BoxStats::of_phase(p.cores, Mode::Alone, &p.comp_alone, n));
            comp.push(BoxStats::of_phase(
                p.cores,
                Mode::Parallel,
                &p.comp_parallel,
                n,
            ));
            comm.push(BoxStats::of_phase(p.cores, Mode::Alone, &p.comm_alone, 1.0));
            comm.push(BoxStats::of_phase(
                p.cores,
                Mode::Parallel,
                &p.comm_parallel,
                1.0,
            ));
        }
        Sweep {
            source: source.to_string(),
            hostname: trace.machine.hostname.clone(),
            cpu_model: trace.machine.cpu_model.clone(),
            placement: Placement {
                comp_numa: trace.config.comp_numa,
                comm_numa: trace.config.comm_numa,
            },
            message_bytes: trace.config.message_size_bytes,
            kernel: trace.config.kernel.clone(),
            bound: trace.config.bind,
            measured_counts: trace.points.len(),
            planned_counts: trace.config.cores.len(),
            comp_scale: spread_scale(&comp),
            comm_scale: spread_scale(&comm),
            comp,
            comm,
        }
    }

    /// The statistics drawn, as CSV: one row per stream, phase and core count. `outliers` is
    /// a space-separated list.
    pub fn csv(&self) -> String {
        let mut out = String::from(
            "stream,phase,cores,unit,count,min,whisker_low,q1,median,q3,whisker_high,max,\
             from_samples,outliers\n",
        );
        let rows = self
            .comp
            .iter()
            .map(|b| ("computations", "MB/s per core", b))
            .chain(self.comm.iter().map(|b| ("communications", "MB/s", b)));
        for (stream, unit, b) in rows {
            let outliers: Vec<String> = b.outliers.iter().map(|v| format!("{v:.1}")).collect();
            out.push_str(&format!(
                "{stream},{},{},{unit},{},{:.1},{:.1},{:.1},{:.1},{:.1},{:.1},{:.1},{},{}\n",
                b.mode.name(),
                b.cores,
                b.count,
                b.min,
                b.whisker_low,
                b.q1,
                b.median,
                b.q3,
                b.whisker_high,
                b.max,
                b.from_samples,
                outliers.join(" ")
            ));
        }
        out
    }

    fn max_cores(&self) -> u32 {
        self.comp.iter().map(|b| b.cores).max().unwrap_or(1)
    }

    fn legend() -> Vec<LegendItem> {
        vec![
            LegendItem::new(
                Swatch::Patch {
                    fill: WHITE.to_rgba(),
                    border: Some(INK),
                },
                "alone (left of each core count)",
            ),
            LegendItem::new(
                Swatch::Patch {
                    fill: MUTED.mix(0.5),
                    border: Some(INK),
                },
                "in parallel (right)",
            ),
            LegendItem::new(
                Swatch::Line {
                    color: INK,
                    dashed: false,
                },
                "box: quartiles and median; whiskers: 1.5 IQR; dots: samples beyond",
            ),
        ]
    }

    fn header(&self) -> i32 {
        let lines = if self.bound { 1 } else { 2 };
        MARGIN
            + TITLE as i32
            + 14
            + lines * HEADER_LINE
            + legend_height(&Sweep::legend(), WIDTH - 2 * MARGIN)
            + 10
    }

    fn plot(&self, index: i32, scale: &Scale) -> Plot {
        let left = MARGIN + LABEL as i32 + 16 + Y_TICKS;
        Plot {
            left,
            top: self.header() + PANEL_TITLE + index * (PANEL_TITLE + PANEL_H + PANEL_GAP),
            width: WIDTH - left - MARGIN - Y_TICKS / 2,
            height: PANEL_H,
            x: (0.4, f64::from(self.max_cores()) + 0.6),
            y: scale.range(),
        }
    }

    /// The panel of `stream`: its plot area, scale, boxes, colour and title.
    fn panel(&self, stream: Stream) -> (Plot, &Scale, &[BoxStats], RGBColor, &'static str) {
        match stream {
            Stream::Comp => (
                self.plot(0, &self.comp_scale),
                &self.comp_scale,
                &self.comp,
                COMP,
                "Computations: bandwidth of one core per iteration (MB/s)",
            ),
            Stream::Comm => (
                self.plot(1, &self.comm_scale),
                &self.comm_scale,
                &self.comm,
                COMM,
                "Communications: bandwidth of each message (MB/s)",
            ),
        }
    }

    fn draw_panel<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        stream: Stream,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        let (plot, scale, stats, color, title) = self.panel(stream);
        let last = stream == Stream::Comm;
        let ticks = scale.ticks();
        plot.grid_lines(root, &ticks)?;
        plot.y_ticks(root, Side::Left, &ticks, true, mbps_label)?;
        plot.x_ticks(root, &core_ticks(self.max_cores(), 18), last, |v| {
            format!("{v:.0}")
        })?;
        for b in stats {
            let center = f64::from(b.cores)
                + match b.mode {
                    Mode::Alone => -OFFSET,
                    Mode::Parallel => OFFSET,
                };
            let (l, r) = (plot.px_x(center - HALF_BOX), plot.px_x(center + HALF_BOX));
            let cx = plot.px_x(center);
            let stroke = color.stroke_width(2);
            root.draw(&PathElement::new(
                vec![(cx, plot.px_y(b.whisker_low)), (cx, plot.px_y(b.q1))],
                stroke,
            ))?;
            root.draw(&PathElement::new(
                vec![(cx, plot.px_y(b.q3)), (cx, plot.px_y(b.whisker_high))],
                stroke,
            ))?;
            for w in [b.whisker_low, b.whisker_high] {
                let y = plot.px_y(w);
                root.draw(&PathElement::new(
                    vec![(cx - (r - l) / 4, y), (cx + (r - l) / 4, y)],
                    stroke,
                ))?;
            }
            let (top, bottom) = (plot.px_y(b.q3), plot.px_y(b.q1));
            if b.mode == Mode::Parallel {
                root.draw(&Rectangle::new(
                    [(l, top), (r, bottom)],
                    color.mix(0.45).filled(),
                ))?;
            } else {
                root.draw(&Rectangle::new([(l, top), (r, bottom)], WHITE.filled()))?;
            }
            root.draw(&Rectangle::new([(l, top), (r, bottom)], stroke))?;
            let my = plot.px_y(b.median);
            root.draw(&PathElement::new(
                vec![(l, my), (r, my)],
                color.stroke_width(4),
            ))?;
            for &o in &b.outliers {
                root.draw(&Circle::new((cx, plot.px_y(o)), 4, color.stroke_width(2)))?;
            }
        }
        plot.frame(root, 1)?;
        root.draw_text(
            title,
            &anchored(bold(LABEL).color(&color), HPos::Left, VPos::Bottom),
            (plot.left, plot.top - 10),
        )
    }
}

impl Figure for Sweep {
    fn size(&self) -> (u32, u32) {
        let height = self.header()
            + 2 * (PANEL_TITLE + PANEL_H)
            + PANEL_GAP
            + X_TICKS_HEIGHT
            + 12
            + LABEL as i32
            + MARGIN;
        (WIDTH as u32, height as u32)
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        let (_, height) = self.size();
        let center = WIDTH / 2;
        let inner = WIDTH - 2 * MARGIN;
        draw_header(
            root,
            &format!(
                "Samples of {}: comp data on NUMA {}, comm data on NUMA {} (MB/s)",
                self.source, self.placement.comp_numa, self.placement.comm_numa
            ),
            true,
            TITLE,
            (center, MARGIN),
            inner,
        )?;
        let mut facts = format!(
            "{}: {}; {} MiB messages; {} kernel; {} core counts",
            self.hostname,
            self.cpu_model,
            self.message_bytes / (1 << 20),
            self.kernel,
            self.measured_counts
        );
        if self.measured_counts < self.planned_counts {
            facts.push_str(&format!(
                " of {} planned (incomplete trace)",
                self.planned_counts
            ));
        }
        let line_y = MARGIN + TITLE as i32 + 14;
        draw_header(root, &facts, false, TICK, (center, line_y), inner)?;
        let mut legend_y = line_y + HEADER_LINE;
        if !self.bound {
            draw_header(
                root,
                "Threads and memory were NOT bound (--no-bind): the placement is only what was \
                 asked.",
                true,
                TICK,
                (center, legend_y),
                inner,
            )?;
            legend_y += HEADER_LINE;
        }
        draw_legend(root, &Sweep::legend(), MARGIN, legend_y, inner)?;
        self.draw_panel(root, Stream::Comp)?;
        self.draw_panel(root, Stream::Comm)?;
        let comp_plot = self.panel(Stream::Comp).0;
        let comm_plot = self.panel(Stream::Comm).0;
        root.draw_text(
            "Bandwidth (MB/s)",
            &anchored(bold(LABEL), HPos::Center, VPos::Center).transform(FontTransform::Rotate270),
            (
                MARGIN + LABEL as i32 / 2,
                (comp_plot.top + comm_plot.bottom()) / 2,
            ),
        )?;
        root.draw_text(
            "Number of computing cores",
            &anchored(text(LABEL), HPos::Center, VPos::Bottom),
            (comm_plot.left + comm_plot.width / 2, height as i32 - MARGIN),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tukey_boxes_split_outliers_from_whiskers() {
        let mut v: Vec<f64> = (1..=9).map(f64::from).collect();
        v.push(100.0);
        let b = BoxStats::from_values(3, Mode::Alone, &v).unwrap();
        assert_eq!((b.min, b.max, b.count), (1.0, 100.0, 10));
        assert_eq!(b.median, 5.5);
        assert_eq!((b.q1, b.q3), (3.25, 7.75));
        assert_eq!(b.whisker_low, 1.0);
        assert_eq!(b.whisker_high, 9.0);
        assert_eq!(b.outliers, vec![100.0]);
        assert!(BoxStats::from_values(1, Mode::Parallel, &[]).is_none());
        assert!(BoxStats::from_values(1, Mode::Parallel, &[f64::NAN]).is_none());
    }

    #[test]
    fn a_phase_without_samples_falls_back_to_its_summary_per_core() {
        let phase = Phase {
            summary: crate::trace::Summary {
                median: 8000.0,
                mean: 8010.0,
                stddev: 30.0,
                min: 7000.0,
                max: 9000.0,
                count: 40,
            },
            sampling: "summary only".into(),
            samples: Vec::new(),
            ci95: None,
            unstable: false,
        };
        let b = BoxStats::of_phase(4, Mode::Alone, &phase, 4.0);
        assert!(!b.from_samples);
        assert_eq!(
            (b.min, b.q1, b.median, b.q3, b.max),
            (1750.0, 2000.0, 2000.0, 2000.0, 2250.0)
        );
        assert_eq!((b.whisker_low, b.whisker_high), (1750.0, 2250.0));
        assert_eq!(b.count, 40);
        assert!(b.outliers.is_empty());
    }
}
