//! The extraction rules of section 3.1 (docs/methodology.md, "The tie rule"): the ten parameters of
//! one side of the model from one placement's sweep over core counts.
//!
//! # Maxima and minima under noise: the tie rule
//!
//! The paper reads `N_seq^max`, `N_par^max` and `alpha` off the extremes of measured curves.
//! On a plateau the highest point is a matter of noise: with `T_seq^max` reached from 14 cores
//! on, any of 14..18 may come out highest, and a literal argmax would move `N_seq^max` (and
//! with it `delta_l`, `delta_r` and `T_par^max2`) from run to run. So an extreme is read with a
//! relative tolerance `tol`, as a *plateau*:
//!
//! - the *band* is the measured core counts whose value is within `tol` of the extreme
//!   (`v >= max * (1 - tol)` for a maximum, `v <= min * (1 + tol)` for a minimum);
//! - the *plateau* is the first run of the band: its smallest count and the counts that
//!   follow it in the sweep while they stay in the band (a sparse sweep's skipped counts do
//!   not break a run);
//! - the extreme's *value* is the median of the plateau's values, so that the noise of the
//!   single highest (or lowest) point does not bias `T_par^max`, `T_seq^max` or `alpha`.
//!
//! Where on the plateau the core count is read follows the role it plays in the model:
//!
//! - `N_seq^max` is its **first** count: computations alone "scale perfectly until
//!   `T_seq^max` with `N_seq^max` computing cores" (section 3.1), the start of the plateau;
//! - `N_par^max` is its **last** count: equation 1 holds the total at `T_par^max` *up to*
//!   `N_par^max` and subtracts `delta_l` only beyond, so `N_par^max` is where the total's
//!   plateau ends. (Reading it at the start would make equation 1 slope down across a total
//!   that was measured flat. The paper's tables agree: henri local has `N_par^max` 17 with
//!   the total within 0.05 % from 14 to 18 cores.)
//!
//! With `tol = 0` and a single highest point this is the paper's argmax and maximum.
//!
//! `tol` is derived per curve from the noise the input reports:
//! `tol = max(TOLERANCE_FLOOR, TOLERANCE_SE * median relative standard error of the curve's
//! points)`. The standard errors come from the samples of a trace's phases or from repeated
//! rows (see [`crate::dataset::SweepPoint::rel_se`]); a CSV with one row per point has none,
//! and gets the floor. The floor is 1 %: within-run samples do not show run-to-run variation,
//! and the paper's own tables differ by less than that between neighbouring core counts on
//! plateaus (henri local: 73423.0 at 17 cores, 73387.7 at 18). `--tolerance` replaces `tol`.

use crate::dataset::{Sweep, SweepPoint, COMM_ALONE, COMM_PARALLEL, COMP_ALONE};
use crate::model::Params;
use crate::stats;
use serde::{Deserialize, Serialize};

/// The smallest tolerance an extreme is read with (relative: 0.01 = 1 %).
pub const TOLERANCE_FLOOR: f64 = 0.01;

/// How many standard errors apart two values must be to count as different.
pub const TOLERANCE_SE: f64 = 2.0;

/// Which extreme of a curve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Extreme {
    Max,
    Min,
}

/// An extreme read with the tie rule of this module's documentation.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Peak {
    /// The core counts of the plateau, ascending (never empty).
    pub(crate) plateau: Vec<u32>,
    /// The median of the plateau's values.
    pub(crate) value: f64,
}

impl Peak {
    /// Where the extreme is first reached.
    pub(crate) fn first(&self) -> u32 {
        self.plateau.first().copied().unwrap_or(0)
    }

    /// Where the plateau ends.
    pub(crate) fn last(&self) -> u32 {
        self.plateau.last().copied().unwrap_or(0)
    }
}

/// Reads the extreme of `curve` (`(cores, value)`, ascending core counts, not empty) with
/// relative tolerance `tol`.
pub(crate) fn peak(curve: &[(u32, f64)], tol: f64, extreme: Extreme) -> Peak {
    let values = curve.iter().map(|&(_, v)| v);
    let in_band = match extreme {
        Extreme::Max => {
            let max = values.fold(f64::NEG_INFINITY, f64::max);
            max * (1.0 - tol)..=f64::INFINITY
        }
        Extreme::Min => {
            let min = values.fold(f64::INFINITY, f64::min);
            f64::NEG_INFINITY..=min * (1.0 + tol)
        }
    };
    let plateau: Vec<(u32, f64)> = curve
        .iter()
        .copied()
        .skip_while(|(_, v)| !in_band.contains(v))
        .take_while(|(_, v)| in_band.contains(v))
        .collect();
    let values: Vec<f64> = plateau.iter().map(|&(_, v)| v).collect();
    Peak {
        plateau: plateau.iter().map(|&(n, _)| n).collect(),
        value: stats::median(&values).unwrap_or(f64::NAN),
    }
}

/// The tolerance for a curve whose points have relative standard errors `rel_se`.
pub(crate) fn tolerance(rel_se: impl IntoIterator<Item = Option<f64>>) -> f64 {
    let known: Vec<f64> = rel_se.into_iter().flatten().collect();
    let typical = stats::median(&known).unwrap_or(0.0);
    TOLERANCE_FLOOR.max(TOLERANCE_SE * typical)
}

/// `delta_l`: total bandwidth lost per core from `N_par^max` to `N_seq^max` (section 3.1); 0
/// when `N_seq^max <= N_par^max`, where equation 1 never uses it.
pub(crate) fn delta_l(t_par_max: f64, t_par_max2: f64, n_par_max: u32, n_seq_max: u32) -> f64 {
    if n_seq_max <= n_par_max {
        0.0
    } else {
        (t_par_max - t_par_max2) / f64::from(n_seq_max - n_par_max)
    }
}

/// `delta_r`: total bandwidth lost per core beyond `N_seq^max`, from `T_par^max2` to the total
/// at the largest measured core count `n_last` (negative when it rises); 0 when
/// `n_last <= N_seq^max`.
pub(crate) fn delta_r(t_par_max2: f64, total_last: f64, n_seq_max: u32, n_last: u32) -> f64 {
    if n_last <= n_seq_max {
        0.0
    } else {
        (t_par_max2 - total_last) / f64::from(n_last - n_seq_max)
    }
}

/// The tolerances each curve was read with (relative).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Tolerances {
    /// For `T_seq^max` and `N_seq^max` (computations alone).
    pub comp_alone: f64,
    /// For `T_par^max` and `N_par^max` (computations + communications in parallel).
    pub total_parallel: f64,
    /// For `alpha` (the minimum of communications in parallel).
    pub comm_parallel: f64,
}

/// Why a sweep cannot give parameters; the caller adds the placement and files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SweepProblem {
    /// Fewer than two core counts: no curve to read extremes and slopes from.
    OneCoreCount(u32),
    /// `B_seq^comp` is the bandwidth of one core alone; the sweep must include 1.
    NoSingleCore(u32),
}

impl std::fmt::Display for SweepProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SweepProblem::OneCoreCount(n) => write!(
                f,
                "only one core count ({n}) is measured; the parameters are read off a curve \
                 over core counts (section 3.1): measure 1 to the cores of one socket (counts \
                 above N_seq^max may be skipped, except the last); on a machine this small, \
                 `contention measure --shared-comm-core` lets a second core compute"
            ),
            SweepProblem::NoSingleCore(n) => write!(
                f,
                "the smallest core count measured is {n}, but B_seq^comp is the bandwidth of \
                 one computing core alone (section 3.1): measure 1 core too"
            ),
        }
    }
}

impl std::error::Error for SweepProblem {}

/// The ten parameters of one side from `sweep` (the placement with both data on one node),
/// and the tolerances used; `tol_override` replaces the derived tolerances.
pub(crate) fn extract(
    sweep: &Sweep,
    tol_override: Option<f64>,
) -> Result<(Params, Tolerances), SweepProblem> {
    let pts = &sweep.points;
    let (first, last) = match (pts.first(), pts.last()) {
        (Some(f), Some(l)) if pts.len() >= 2 => (f, l),
        _ => {
            return Err(SweepProblem::OneCoreCount(
                pts.first().map_or(0, |p| p.cores),
            ))
        }
    };
    if first.cores != 1 {
        return Err(SweepProblem::NoSingleCore(first.cores));
    }
    let tol = |se: &dyn Fn(&SweepPoint) -> Option<f64>| {
        tol_override.unwrap_or_else(|| tolerance(pts.iter().map(se)))
    };
    let tolerances = Tolerances {
        comp_alone: tol(&|p| p.rel_se[COMP_ALONE]),
        total_parallel: tol(&|p| p.total_parallel_rel_se()),
        comm_parallel: tol(&|p| p.rel_se[COMM_PARALLEL]),
    };
    let curve = |f: &dyn Fn(&SweepPoint) -> f64| -> Vec<(u32, f64)> {
        pts.iter().map(|p| (p.cores, f(p))).collect()
    };
    let total_at = |n: u32| {
        pts.iter()
            .find(|p| p.cores == n)
            .map_or(f64::NAN, SweepPoint::total_parallel)
    };

    let b_seq_comp = first.bw[COMP_ALONE];
    // Communications alone do not depend on the computing cores: the median of the sweep.
    let comm_alone: Vec<f64> = pts.iter().map(|p| p.bw[COMM_ALONE]).collect();
    let b_seq_comm = stats::median(&comm_alone).unwrap_or(f64::NAN);

    let seq = peak(
        &curve(&|p| p.bw[COMP_ALONE]),
        tolerances.comp_alone,
        Extreme::Max,
    );
    let par = peak(
        &curve(&SweepPoint::total_parallel),
        tolerances.total_parallel,
        Extreme::Max,
    );
    let worst_comm = peak(
        &curve(&|p| p.bw[COMM_PARALLEL]),
        tolerances.comm_parallel,
        Extreme::Min,
    );
    let (n_seq_max, n_par_max) = (seq.first(), par.last());
    let t_par_max2 = total_at(n_seq_max);
    let params = Params {
        n_par_max,
        t_par_max: par.value,
        n_seq_max,
        t_seq_max: seq.value,
        t_par_max2,
        // Communications faster in parallel than alone is noise; alpha is at most 1.
        alpha: (worst_comm.value / b_seq_comm).min(1.0),
        delta_l: delta_l(par.value, t_par_max2, n_par_max, n_seq_max),
        delta_r: delta_r(t_par_max2, last.total_parallel(), n_seq_max, last.cores),
        b_seq_comp,
        b_seq_comm,
        law: crate::model::Law::Paper,
    };
    Ok((params, tolerances))
}

/// Moves parameters read by the rules onto the model's rules (`model::constraints`) where
/// measurement noise put them just outside, and says what moved. The rules read each
/// parameter from one point or one plateau, so on a noisy sweep `T_par^max2` (the total at
/// `N_seq^max`) can exceed the plateau's median `T_par^max`, or the parallel total exceed the
/// alone peak by more than the communications' share; a model like that would predict
/// computations faster in parallel than alone (equations 3 and 6). Each repair is the
/// smallest change that restores one rule:
/// - `T_par^max2 <= T_par^max` (equation 1: `T_par^max` is the peak of `T(n)`);
/// - `B_seq^comp <= T_seq^max` (equation 6: one core cannot beat all cores);
/// - `T(n) <= T_par^max` beyond `N_seq^max`, by bounding a negative `delta_r` (equation 1);
/// - `T_seq^max >= B_par^comp(n)` for every `n` (equations 3 and 6: computations alone are
///   never slower than in parallel), which leaves every parallel prediction unchanged.
///
/// Parameters that already meet the rules (within their tolerance for noise) are left as
/// they are.
pub(crate) fn feasible(p: &mut Params, cores: u32) -> Vec<String> {
    let mut moved = Vec::new();
    if p.problems("", cores).is_empty() {
        return moved;
    }
    if p.t_par_max2 > p.t_par_max {
        moved.push(format!(
            "t_par_max2 {:.1} lowered to t_par_max {:.1} (equation 1: the peak comes first)",
            p.t_par_max2, p.t_par_max
        ));
        p.t_par_max2 = p.t_par_max;
        p.delta_l = delta_l(p.t_par_max, p.t_par_max2, p.n_par_max, p.n_seq_max);
    }
    if p.b_seq_comp > p.t_seq_max {
        moved.push(format!(
            "b_seq_comp {:.1} lowered to t_seq_max {:.1} (equation 6)",
            p.b_seq_comp, p.t_seq_max
        ));
        p.b_seq_comp = p.t_seq_max;
    }
    let beyond = cores.saturating_sub(p.n_seq_max);
    if beyond > 0 {
        let floor = -(p.t_par_max - p.t_par_max2) / f64::from(beyond);
        if p.delta_r < floor {
            moved.push(format!(
                "delta_r {:.1} raised to {floor:.1} so that T(n) stays under t_par_max up to {cores} \
                 cores (equation 1)",
                p.delta_r
            ));
            p.delta_r = floor;
        }
    }
    let peak = crate::model::bandwidth::curve(p, cores)
        .iter()
        .map(|c| c.comp_parallel)
        .fold(0.0, f64::max);
    if peak > p.t_seq_max {
        moved.push(format!(
            "t_seq_max {:.1} raised to {peak:.1}, the largest predicted computation bandwidth in \
             parallel (equations 3 and 6: contention never speeds computations up)",
            p.t_seq_max
        ));
        p.t_seq_max = peak;
    }
    moved
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{paper, Placement};

    fn curve(values: &[f64]) -> Vec<(u32, f64)> {
        values
            .iter()
            .enumerate()
            .map(|(i, &v)| (i as u32 + 1, v))
            .collect()
    }

    #[test]
    fn exact_data_gives_the_argmax_and_the_maximum() {
        let p = peak(&curve(&[1.0, 5.0, 9.0, 7.0]), 0.0, Extreme::Max);
        assert_eq!((p.plateau, p.value), (vec![3], 9.0));
        let p = peak(&curve(&[4.0, 2.0, 3.0, 2.0]), 0.0, Extreme::Min);
        assert_eq!(
            (p.first(), p.value),
            (2, 2.0),
            "ties go to the first plateau"
        );
    }

    #[test]
    fn a_near_tie_on_a_plateau_does_not_move_the_peak() {
        // Rising to a plateau at 14 cores, then flat within 0.3 %: wherever the noise puts the
        // highest point, the plateau is 14..18 and its level the plateau's within the noise.
        let mut base: Vec<f64> = (1..=13).map(|n| 5000.0 * f64::from(n)).collect();
        base.extend([70000.0; 5]);
        for highest in 13..18 {
            let mut v = base.clone();
            for (i, x) in v.iter_mut().enumerate().skip(13) {
                *x *= if i == highest { 1.003 } else { 0.999 };
            }
            let p = peak(&curve(&v), TOLERANCE_FLOOR, Extreme::Max);
            assert_eq!(
                (p.first(), p.last()),
                (14, 18),
                "highest at {}",
                highest + 1
            );
            assert!((p.value / 70000.0 - 1.0).abs() < 0.003, "{}", p.value);
            // The literal argmax would follow the noise.
            let argmax = peak(&curve(&v), 0.0, Extreme::Max);
            assert_eq!(argmax.plateau, [highest as u32 + 1]);
        }
    }

    #[test]
    fn a_peak_beyond_the_tolerance_is_found() {
        let mut v: Vec<f64> = (1..=13).map(|n| 5000.0 * f64::from(n)).collect();
        v.extend([70000.0, 70000.0, 72500.0, 70000.0]); // 3.6 % higher at 16
        let p = peak(&curve(&v), TOLERANCE_FLOOR, Extreme::Max);
        assert_eq!((p.plateau, p.value), (vec![16], 72500.0));
    }

    #[test]
    fn the_plateau_is_the_first_run_of_the_band_over_the_measured_counts() {
        // Sparse: 1, 2, 4, 8, 12, 16, 32. In the band at 4, 8, 12, out at 16, back at 32.
        let c: Vec<(u32, f64)> = [1, 2, 4, 8, 12, 16, 32]
            .into_iter()
            .zip([10.0, 50.0, 99.5, 100.0, 99.8, 90.0, 99.9])
            .collect();
        let p = peak(&c, TOLERANCE_FLOOR, Extreme::Max);
        assert_eq!(p.plateau, [4, 8, 12]);
        assert_eq!(p.value, 99.8);
    }

    #[test]
    fn tolerance_grows_with_the_reported_noise() {
        assert_eq!(tolerance([None, None]), TOLERANCE_FLOOR);
        assert_eq!(tolerance([Some(0.001), Some(0.002)]), TOLERANCE_FLOOR);
        let t = tolerance([Some(0.02), None, Some(0.03), Some(0.025)]);
        assert!((t - 0.05).abs() < 1e-12, "{t}");
    }

    #[test]
    fn deltas_give_the_papers_values_from_its_t_values() {
        // dahu local, Table 5: (72147.6 - 71509.2) / (14 - 11) = 212.8.
        assert!((delta_l(72147.6, 71509.2, 11, 14) - 212.8).abs() < 1e-9);
        assert_eq!(delta_l(1.0, 2.0, 5, 5), 0.0);
        assert_eq!(delta_r(2.0, 1.0, 18, 18), 0.0);
        assert!(
            (delta_r(100.0, 130.0, 5, 8) + 10.0).abs() < 1e-12,
            "may be negative"
        );
        // Every table of Appendix B where N_seq^max > N_par^max, to the table's rounding
        // (0.05 on the delta, 0.05 on each T over at least one core).
        let mut checked = 0;
        for name in paper::names() {
            let json = paper::model_json(name).unwrap();
            let m: crate::model::Model = serde_json::from_str(json).unwrap();
            for p in std::iter::once(m.local).chain(m.remote) {
                if p.n_seq_max > p.n_par_max {
                    let d = delta_l(p.t_par_max, p.t_par_max2, p.n_par_max, p.n_seq_max);
                    assert!((d - p.delta_l).abs() <= 0.1, "{name}: {d} vs {}", p.delta_l);
                    checked += 1;
                }
            }
        }
        // dahu, grvingt, henri x2, henri-subnuma local, pyxis x2.
        assert_eq!(checked, 7);
    }

    fn sweep(points: &[(u32, [f64; 4])]) -> Sweep {
        Sweep {
            placement: Placement {
                comp_numa: 0,
                comm_numa: 0,
            },
            sources: vec!["t".into()],
            points: points
                .iter()
                .map(|&(cores, bw)| SweepPoint {
                    cores,
                    bw,
                    rel_se: [None; 4],
                    repetitions: 1,
                })
                .collect(),
        }
    }

    #[test]
    fn extracts_each_rule_on_a_sparse_sweep() {
        // comp_alone, comm_alone, comp_parallel, comm_parallel; 5..7 and 9 skipped.
        let s = sweep(&[
            (1, [10000.0, 8000.0, 10000.0, 8000.0]),
            (2, [20000.0, 8100.0, 20000.0, 8000.0]),
            (3, [30000.0, 7900.0, 28000.0, 6000.0]), // total 34000: T_par^max
            (4, [35000.0, 8000.0, 28000.0, 5000.0]), // T_seq^max; total 33000
            (8, [33000.0, 8000.0, 26000.0, 4000.0]), // total 30000
        ]);
        let (p, tol) = extract(&s, None).unwrap();
        assert_eq!(tol.comp_alone, TOLERANCE_FLOOR);
        assert_eq!(p.b_seq_comp, 10000.0);
        assert_eq!(p.b_seq_comm, 8000.0);
        assert_eq!((p.n_seq_max, p.t_seq_max), (4, 35000.0));
        assert_eq!((p.n_par_max, p.t_par_max), (3, 34000.0));
        assert_eq!(p.t_par_max2, 33000.0);
        assert!((p.delta_l - 1000.0).abs() < 1e-9);
        assert!((p.delta_r - 3000.0 / 4.0).abs() < 1e-9, "over 4 cores");
        assert!((p.alpha - 0.5).abs() < 1e-12);
    }

    #[test]
    fn n_seq_max_starts_the_plateau_and_n_par_max_ends_it() {
        // comp_alone flat from 3 cores, total in parallel flat from 2 to 4 cores.
        let s = sweep(&[
            (1, [10000.0, 8000.0, 10000.0, 8000.0]), // total 18000
            (2, [20000.0, 8000.0, 20000.0, 8000.0]), // 28000
            (3, [30000.0, 8000.0, 21000.0, 7000.0]), // 28000
            (4, [30000.0, 8000.0, 22000.0, 6000.0]), // 28000
            (6, [30000.0, 8000.0, 21000.0, 5000.0]), // 26000
        ]);
        let (p, _) = extract(&s, None).unwrap();
        assert_eq!((p.n_seq_max, p.n_par_max), (3, 4));
        assert_eq!(
            (p.t_seq_max, p.t_par_max, p.t_par_max2),
            (30000.0, 28000.0, 28000.0)
        );
        assert_eq!(p.delta_l, 0.0, "N_seq^max <= N_par^max");
        assert!((p.delta_r - 2000.0 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn alpha_is_capped_at_one_and_insufficient_sweeps_are_refused() {
        let s = sweep(&[
            (1, [10000.0, 8000.0, 10000.0, 8100.0]),
            (2, [20000.0, 8000.0, 20000.0, 8200.0]),
        ]);
        assert_eq!(extract(&s, None).unwrap().0.alpha, 1.0);
        let one = sweep(&[(1, [1.0; 4])]);
        assert_eq!(extract(&one, None), Err(SweepProblem::OneCoreCount(1)));
        let no_single = sweep(&[(2, [1.0; 4]), (4, [1.0; 4])]);
        let e = extract(&no_single, None).unwrap_err();
        assert_eq!(e, SweepProblem::NoSingleCore(2));
        assert!(e.to_string().contains("measure 1 core"), "{e}");
    }

    #[test]
    fn reported_noise_widens_the_band() {
        // 2 % apart: a peak with exact data, a tie when the samples say 2 % noise.
        let mut s = sweep(&[
            (1, [10000.0, 8000.0, 10000.0, 8000.0]),
            (2, [20000.0, 8000.0, 20000.0, 8000.0]),
            (3, [29400.0, 8000.0, 20000.0, 8000.0]),
            (4, [30000.0, 8000.0, 20000.0, 8000.0]),
        ]);
        assert_eq!(extract(&s, None).unwrap().0.n_seq_max, 4);
        for p in &mut s.points {
            p.rel_se = [Some(0.01); 4];
        }
        let (p, tol) = extract(&s, None).unwrap();
        assert!((tol.comp_alone - 0.02).abs() < 1e-12);
        assert_eq!(p.n_seq_max, 3);
        assert!(
            (p.t_seq_max - 29700.0).abs() < 1e-9,
            "median of 29400 and 30000"
        );
        assert_eq!(extract(&s, Some(0.0)).unwrap().0.n_seq_max, 4, "override");
    }

    #[test]
    fn noisy_rules_are_moved_onto_the_models_rules_and_paper_models_are_left_alone() {
        let load = |name: &str| -> crate::model::Model {
            serde_json::from_str(paper::model_json(name).unwrap()).unwrap()
        };
        for name in paper::names() {
            let m = load(name);
            for p in [Some(m.local), m.remote].into_iter().flatten() {
                let mut q = p;
                assert!(
                    feasible(&mut q, m.machine.cores_per_socket).is_empty(),
                    "{name}"
                );
                assert_eq!(q, p);
            }
        }
        // henri local (N_seq^max = 18, the last core) with the total at N_seq^max above the
        // plateau and one core alone above the alone peak: both rules are restored.
        let m = load("henri");
        let mut p = m.local;
        p.t_par_max2 = p.t_par_max * 1.2;
        p.b_seq_comp = p.t_seq_max * 2.0;
        let moved = feasible(&mut p, 18);
        assert_eq!(moved.len(), 2, "{moved:?}");
        assert!(p.t_par_max2 <= p.t_par_max && p.b_seq_comp <= p.t_seq_max);
        let whole = crate::model::Model {
            local: p,
            remote: None,
            ..m
        };
        assert!(whole.problems().is_empty(), "{:?}", whole.problems());
        // dahu local (N_seq^max 14 of 16 cores) with T(n) rising steeply after N_seq^max.
        let m = load("dahu");
        let mut p = m.local;
        p.delta_r = -1e5;
        let moved = feasible(&mut p, 16);
        assert!(moved.iter().any(|m| m.starts_with("delta_r")), "{moved:?}");
        let whole = crate::model::Model {
            local: p,
            remote: None,
            ..m
        };
        assert!(whole.problems().is_empty(), "{:?}", whole.problems());
    }
}
