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
//! - `B_seq^comp`: the relative half-width of computations alone at 1 core, `T_seq^max` at
//!   `N_seq^max` cores;
//! - `B_seq^comm`: that of communications alone (over the points);
//! - `T_par^max`, `T_par^max2` (a sum of computations and communications in parallel, at
//!   `N_par^max` and `N_seq^max` cores): the larger relative half-width of the two parallel
//!   streams there (the half-width of a sum is at most the sum of the half-widths);
//! - `alpha` (communications in parallel over communications alone): the sum of the two
//!   relative half-widths over the points (the first-order bound of a ratio's);
//! - `delta_l` (`(T_par^max - T_par^max2) / (N_seq^max - N_par^max)`): the two totals'
//!   half-widths added, over the core distance;
//! - `delta_r` (the loss per core from `N_seq^max` to the last core): twice `T_par^max2`'s
//!   half-width over that distance;
//! - `N_par^max`, `N_seq^max`: none (a core count has no interval; the band's floor of one
//!   core over `k` covers the tie rule's own step).
//!
//! A parameter read at one core count takes the relative half-width `(high - low) / 2 /
//! median` of that point's phase; one read over the points takes the median over them (one
//! noisy point does not widen it), as does a point missing its phase's. A phase with
//! no interval (cut short with too few rounds, or from an older trace) counts with the 95 %
//! standard error of its samples' median instead. Where the
//! calibration ran a bootstrap (`calibrate --bootstrap`), its 95 % intervals are used when
//! wider, as they also cover how the rules pick their points.

use crate::model::uncertainty::open_above;
use crate::model::{ParamIntervals, Params};
use crate::trace::{Phase, TracePoint};
use serde::Serialize;

/// The relative half-widths (half the 95 % interval over the median, e.g. 0.02 for +-2 %)
/// of the four streams of one side's points; 0 where no phase had an interval (traces older
/// than the field), which leaves the judgement to the band alone.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub(crate) struct StreamNoise {
    pub(crate) comp_alone: f64,
    pub(crate) comm_alone: f64,
    pub(crate) comp_parallel: f64,
    pub(crate) comm_parallel: f64,
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

fn streams(r: [f64; 4]) -> StreamNoise {
    StreamNoise {
        comp_alone: r[0],
        comm_alone: r[1],
        comp_parallel: r[2],
        comm_parallel: r[3],
    }
}

impl StreamNoise {
    /// The noise of `points` (one side's points, every core count): each stream's median
    /// over them.
    pub(crate) fn of_points<'a>(points: impl IntoIterator<Item = &'a TracePoint>) -> Self {
        let mut per_stream: [Vec<f64>; 4] = Default::default();
        for p in points {
            for (s, phase) in per_stream.iter_mut().zip(p.phases()) {
                s.extend(relative(phase));
            }
        }
        streams(per_stream.map(|v| crate::stats::median(&v).unwrap_or(0.0)))
    }
}

/// The noise of one side's points: each core count's, and the typical one over them (for
/// the parameters read over the points, and a point whose phase has none).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct SideNoise {
    pub(crate) typical: StreamNoise,
    /// `(cores, noise)` of every point.
    pub(crate) points: Vec<(u32, StreamNoise)>,
}

impl SideNoise {
    pub(crate) fn of_points<'a>(points: impl IntoIterator<Item = &'a TracePoint> + Clone) -> Self {
        let typical = StreamNoise::of_points(points.clone());
        let fallback = [
            typical.comp_alone,
            typical.comm_alone,
            typical.comp_parallel,
            typical.comm_parallel,
        ];
        let points = points
            .into_iter()
            .map(|p| {
                let mut r = fallback;
                for (slot, phase) in r.iter_mut().zip(p.phases()) {
                    if let Some(x) = relative(phase) {
                        *slot = x;
                    }
                }
                (p.cores, streams(r))
            })
            .collect();
        SideNoise { typical, points }
    }

    /// The noise at `cores` cores; the typical one where no point was measured there.
    pub(crate) fn at(&self, cores: u32) -> StreamNoise {
        self.points
            .iter()
            .find(|(c, _)| *c == cores)
            .map_or(self.typical, |&(_, s)| s)
    }
}

/// The half-width of each parameter of `p` (in the order of [`Params::NAMES`], in the
/// parameter's unit) from the side's noise `s`, on a socket of `cores_per_socket` cores
/// (see the module's documentation for the rule of each), widened to the bootstrap's
/// intervals where there are some.
pub(crate) fn half_widths(
    p: &Params,
    cores_per_socket: u32,
    s: &SideNoise,
    bootstrap: Option<&ParamIntervals>,
) -> [f64; Params::COUNT] {
    let total = |n: &StreamNoise| n.comp_parallel.max(n.comm_parallel);
    let (at_par, at_seq, at_one, all) = (s.at(p.n_par_max), s.at(p.n_seq_max), s.at(1), s.typical);
    let t_par_max = total(&at_par) * p.t_par_max.abs();
    let t_par_max2 = total(&at_seq) * p.t_par_max2.abs();
    let distance = |from: u32, to: u32| f64::from(to.saturating_sub(from).max(1));
    let propagated: [f64; Params::COUNT] = [
        0.0,
        t_par_max,
        0.0,
        at_seq.comp_alone * p.t_seq_max.abs(),
        t_par_max2,
        (all.comm_parallel + all.comm_alone) * p.alpha.abs(),
        (t_par_max + t_par_max2) / distance(p.n_par_max, p.n_seq_max),
        2.0 * t_par_max2 / distance(p.n_seq_max, cores_per_socket),
        at_one.comp_alone * p.b_seq_comp.abs(),
        all.comm_alone * p.b_seq_comm.abs(),
    ];
    let Some(b) = bootstrap else {
        return propagated;
    };
    let intervals = b.as_array();
    std::array::from_fn(|i| {
        let [lo, hi] = intervals[i];
        // Open above (a `T_seq^max` the data bound from below only): the side it is
        // bounded on is its noise.
        let half = if open_above([lo, hi]) {
            (p.values()[i] - lo).abs()
        } else {
            (hi - lo).abs() / 2.0
        };
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
            law: crate::model::Law::Paper,
        };
        let s = SideNoise {
            typical: StreamNoise {
                comp_alone: 0.01,
                comm_alone: 0.02,
                comp_parallel: 0.03,
                comm_parallel: 0.04,
            },
            points: Vec::new(),
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
        let h = half_widths(&p, 8, &s, Some(&ParamIntervals::new(iv, vec![])));
        assert!(close(h[1], 1000.0) && close(h[8], 20.0), "{h:?}");
        // An interval open above (T_seq^max bounded from below only) gives the distance to
        // its bounded end, not half of an interval up to 1e12 MB/s.
        iv[3] = [8_500.0, crate::model::constraints::MAX_BANDWIDTH];
        let h = half_widths(&p, 8, &s, Some(&ParamIntervals::new(iv, vec![])));
        assert!(close(h[3], 500.0), "T_seq^max 9000 at least 8500: {h:?}");
    }

    #[test]
    fn a_parameter_read_at_one_core_count_takes_that_points_noise() {
        // 10 % at 1 core, 1 % at 2 and 3: B_seq^comp (1 core) gets 10 %, T_seq^max (at
        // N_seq^max = 3) 1 %, while the typical noise is 1 %.
        let points = [point(1, 0.10), point(2, 0.01), point(3, 0.01)];
        let s = SideNoise::of_points(&points);
        assert!((s.typical.comp_alone - 0.01).abs() < 1e-12);
        assert!((s.at(1).comp_alone - 0.10).abs() < 1e-12);
        assert_eq!(s.at(7), s.typical, "no point at 7 cores");
        let p = Params {
            n_par_max: 2,
            t_par_max: 1000.0,
            n_seq_max: 3,
            t_seq_max: 1000.0,
            t_par_max2: 1000.0,
            alpha: 0.5,
            delta_l: 0.0,
            delta_r: 0.0,
            b_seq_comp: 500.0,
            b_seq_comm: 100.0,
            law: crate::model::Law::Paper,
        };
        let h = half_widths(&p, 4, &s, None);
        assert!((h[8] - 50.0).abs() < 1e-9, "B_seq^comp: {h:?}");
        assert!((h[3] - 10.0).abs() < 1e-9, "T_seq^max: {h:?}");
    }
}
