//! Each node's own measurement noise, as a half-width around each of its parameters: what
//! the fleet's band cannot know. The band is the spread between nodes; with few nodes and
//! short phases it can be tighter than the noise of one node's measurement, and a node whose
//! parameter moved less than its own noise is not shown to differ. A node is an outlier only
//! when its deviation from the fleet's median exceeds both the band and this half-width.
//!
//! Each phase of a trace carries a 95 % interval of its median (`ci95`, batch medians). The
//! parameters of section 3.1 are read off those medians (section 3.2), so their half-widths
//! follow by first-order propagation, taking the worst case where a parameter combines two
//! streams:
//!
//! - `T_seq^max`, `B_seq^comp`: the relative half-width of computations alone;
//! - `B_seq^comm`: that of communications alone;
//! - `T_par^max`, `T_par^max2` (a sum of computations and communications in parallel): the
//!   larger relative half-width of the two parallel streams (the half-width of a sum is at
//!   most the sum of the half-widths);
//! - `alpha` (communications in parallel over communications alone): the sum of the two
//!   relative half-widths (the first-order bound of a ratio's);
//! - `delta_l` (`(T_par^max - T_par^max2) / (N_seq^max - N_par^max)`): the two totals'
//!   half-widths added, over the core distance;
//! - `delta_r` (the loss per core from `N_seq^max` to the last core): twice `T_par^max2`'s
//!   half-width over that distance;
//! - `N_par^max`, `N_seq^max`: none (a core count has no interval; the band's floor of one
//!   core over `k` covers the tie rule's own step).
//!
//! A stream's relative half-width is the median over the side's points of
//! `(high - low) / 2 / median`: one noisy point does not widen every parameter. A phase with
//! no interval (cut short with too few rounds, or from an older trace) counts with the 95 %
//! standard error of its samples' median instead. Where the
//! calibration ran a bootstrap (`calibrate --bootstrap`), its 95 % intervals are used when
//! wider, as they also cover how the rules pick their points.

use crate::model::{ParamIntervals, Params};
use crate::trace::{Phase, TracePoint};
use serde::Serialize;

/// The relative half-widths (half the 95 % interval over the median, e.g. 0.02 for +-2 %)
/// of the four streams of one side's points; 0 where no phase had an interval (traces older
/// than the field), which leaves the judgement to the band alone.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct StreamNoise {
    pub comp_alone: f64,
    pub comm_alone: f64,
    pub comp_parallel: f64,
    pub comm_parallel: f64,
}

/// The factor of the standard error of a median of normal samples: `1.2533 x sigma /
/// sqrt(n)` (`sqrt(pi / 2)`).
const MEDIAN_SE: f64 = 1.2533;

/// A phase's relative half-width: of its interval; without one (a phase cut short, with too
/// few rounds for batch medians, or a trace older than the field), of the 95 % standard
/// error of the median of its samples, `1.96 x 1.2533 x stddev / sqrt(count)`, a lower
/// bound since a phase's samples are correlated. `None` with fewer than two samples or a
/// median that is not positive.
fn relative(p: &Phase) -> Option<f64> {
    let s = &p.summary;
    let half = match p.ci95 {
        Some((lo, hi)) => (hi - lo).abs() / 2.0,
        None if s.count >= 2 => 1.96 * MEDIAN_SE * s.stddev.abs() / (s.count as f64).sqrt(),
        None => return None,
    };
    let r = half / s.median;
    (s.median > 0.0 && r.is_finite()).then_some(r)
}

impl StreamNoise {
    /// The noise of `points` (one side's points, every core count).
    pub fn of_points<'a>(points: impl IntoIterator<Item = &'a TracePoint>) -> Self {
        let mut streams: [Vec<f64>; 4] = Default::default();
        for p in points {
            let phases = [
                &p.comp_alone,
                &p.comm_alone,
                &p.comp_parallel,
                &p.comm_parallel,
            ];
            for (s, phase) in streams.iter_mut().zip(phases) {
                s.extend(relative(phase));
            }
        }
        let m = |v: &[f64]| crate::stats::median(v).unwrap_or(0.0);
        StreamNoise {
            comp_alone: m(&streams[0]),
            comm_alone: m(&streams[1]),
            comp_parallel: m(&streams[2]),
            comm_parallel: m(&streams[3]),
        }
    }
}

/// The half-width of each parameter of `p` (in the order of [`Params::NAMES`], in the
/// parameter's unit) from the streams' noise `s`, on a socket of `cores_per_socket` cores
/// (see the module's documentation for the rule of each), widened to the bootstrap's
/// intervals where there are some.
pub fn half_widths(
    p: &Params,
    cores_per_socket: u32,
    s: &StreamNoise,
    bootstrap: Option<&ParamIntervals>,
) -> [f64; Params::COUNT] {
    let total = s.comp_parallel.max(s.comm_parallel);
    let t_par_max = total * p.t_par_max.abs();
    let t_par_max2 = total * p.t_par_max2.abs();
    let distance = |from: u32, to: u32| f64::from(to.saturating_sub(from).max(1));
    let propagated: [f64; Params::COUNT] = [
        0.0,
        t_par_max,
        0.0,
        s.comp_alone * p.t_seq_max.abs(),
        t_par_max2,
        (s.comm_parallel + s.comm_alone) * p.alpha.abs(),
        (t_par_max + t_par_max2) / distance(p.n_par_max, p.n_seq_max),
        2.0 * t_par_max2 / distance(p.n_seq_max, cores_per_socket),
        s.comp_alone * p.b_seq_comp.abs(),
        s.comm_alone * p.b_seq_comm.abs(),
    ];
    let Some(b) = bootstrap else {
        return propagated;
    };
    let intervals = b.as_array();
    std::array::from_fn(|i| {
        let [lo, hi] = intervals[i];
        let half = (hi - lo).abs() / 2.0;
        if half.is_finite() {
            propagated[i].max(half)
        } else {
            propagated[i]
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Summary;

    fn phase(median: f64, ci: Option<(f64, f64)>) -> Phase {
        Phase {
            summary: Summary {
                median,
                mean: median,
                stddev: 0.0,
                min: median,
                max: median,
                count: 10,
            },
            sampling: String::new(),
            samples: Vec::new(),
            ci95: ci,
            unstable: false,
        }
    }

    fn point(cores: u32, rel: f64) -> TracePoint {
        let p = |m: f64| phase(m, Some((m * (1.0 - rel), m * (1.0 + rel))));
        TracePoint {
            cores,
            comp_alone: p(1000.0 * f64::from(cores)),
            comm_alone: p(5000.0),
            comp_parallel: p(800.0 * f64::from(cores)),
            comm_parallel: p(4000.0),
            ran_on: Vec::new(),
        }
    }

    #[test]
    fn each_stream_takes_the_median_of_its_points_relative_half_widths() {
        let points = [point(1, 0.01), point(2, 0.02), point(3, 0.5)];
        let s = StreamNoise::of_points(&points);
        assert!((s.comp_alone - 0.02).abs() < 1e-12, "{s:?}");
        assert!((s.comm_parallel - 0.02).abs() < 1e-12, "{s:?}");
        // No interval (a phase cut short, an older trace): the standard error of the median
        // of its samples, 1.96 x 1.2533 x 100 / sqrt(4) / 1000.
        let mut old = point(1, 0.01);
        old.comp_alone.ci95 = None;
        old.comp_alone.summary.stddev = 100.0;
        old.comp_alone.summary.count = 4;
        let r = StreamNoise::of_points([&old]).comp_alone;
        assert!(
            (r - 1.96 * 1.2533 * 100.0 / 2.0 / 1000.0).abs() < 1e-12,
            "{r}"
        );
        // One sample, or a median of 0: no noise of its own.
        old.comp_alone.summary.count = 1;
        assert_eq!(StreamNoise::of_points([&old]).comp_alone, 0.0);
        old.comp_alone.summary.count = 4;
        old.comp_alone.summary.median = 0.0;
        assert_eq!(StreamNoise::of_points([&old]).comp_alone, 0.0);
    }

    #[test]
    fn half_widths_follow_the_rules_that_read_the_parameters() {
        let p = Params {
            n_par_max: 4,
            t_par_max: 10_000.0,
            n_seq_max: 6,
            t_seq_max: 9_000.0,
            t_par_max2: 9_000.0,
            alpha: 0.5,
            delta_l: 500.0,
            delta_r: 0.0,
            b_seq_comp: 2_000.0,
            b_seq_comm: 5_000.0,
        };
        let s = StreamNoise {
            comp_alone: 0.01,
            comm_alone: 0.02,
            comp_parallel: 0.03,
            comm_parallel: 0.04,
        };
        let h = half_widths(&p, 8, &s, None);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert_eq!((h[0], h[2]), (0.0, 0.0), "core counts");
        assert!(close(h[1], 400.0), "T_par^max: 4 % of 10000: {h:?}");
        assert!(close(h[3], 90.0), "T_seq^max: 1 % of 9000");
        assert!(close(h[4], 360.0), "T_par^max2: 4 % of 9000");
        assert!(close(h[5], 0.03), "alpha: 6 % of 0.5");
        assert!(close(h[6], (400.0 + 360.0) / 2.0), "delta_l over 2 cores");
        assert!(
            close(h[7], 2.0 * 360.0 / 2.0),
            "delta_r over the 2 cores left"
        );
        assert!(close(h[8], 20.0) && close(h[9], 100.0));
        // A wider bootstrap interval wins; a narrower one does not shrink the propagation.
        let mut iv = ParamIntervals::point(&p).as_array();
        iv[1] = [9_000.0, 11_000.0];
        iv[8] = [1_999.0, 2_001.0];
        let h = half_widths(&p, 8, &s, Some(&ParamIntervals::new(iv)));
        assert!(close(h[1], 1000.0) && close(h[8], 20.0), "{h:?}");
    }
}
