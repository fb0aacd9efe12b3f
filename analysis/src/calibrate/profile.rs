//! Profile intervals of the breakpoints `N_par^max` and `N_seq^max`: every core count where
//! the fit explains the data about as well as at its best, by the likelihood-ratio test
//! inverted (Venzon and Moolgavkar, "A method for computing profile-likelihood-based
//! confidence intervals", Applied Statistics 37(1), 1988).
//!
//! **Why not the bootstrap alone.** Where the loss hardly changes over several core counts
//! (henri's `N_seq^max` is its socket's last core, 18, and `T(n)` changes by 0.05 % between
//! 17 and 18 cores), the refits of the resamples put the breakpoint where their noise
//! happens to tip it, and the percentile interval of those seldom reaches the edge of the
//! range: the percentile bootstrap is known to fail when the truth sits at the boundary of
//! the parameter space (Andrews, "Inconsistency of the bootstrap when a parameter is on the
//! boundary of the parameter space", Econometrica 68(2), 2000). `cargo bench --bench
//! coverage` measured its interval of henri's `N_seq^max` holding the truth in 40 % of the
//! trials. The profile asks the data directly: which positions does the loss not reject?
//!
//! **Threshold.** The fit minimises `L = sum rho(r_i / s)` over one side's groups, `rho`
//! Huber's loss and `s` the fit's noise scale (`super::fit`). Within Huber's quadratic part
//! `rho(u) = u^2 / 2`, so under normal noise of standard deviation `s` the loss is the
//! negative log-likelihood's data term: `2 (L(b) - L_min)` is the likelihood-ratio statistic
//! of the breakpoints held at `b` (Wilks, 1938). The two breakpoints are estimated together,
//! so the positions kept are the joint 95 % region of the pair, `L(b) - L_min <= chi2_2(0.95)
//! / 2 = 3.00` (two degrees of freedom), read on each axis: the projection of a joint region
//! covers each breakpoint at least as often as the region covers the pair. One degree of
//! freedom per breakpoint (1.92) kept henri's true `N_seq^max` out of 12.5 % of 40 trials in
//! `cargo bench --bench coverage`, as the chi-square law is only an approximation for a
//! discrete change-point, whose likelihood ratio has a heavier tail (Hinkley, "Inference
//! about the change-point in a sequence of random variables", Biometrika 57(1), 1970). The
//! scale is the MAD of the fitted model's residuals, which fitting has shrunk by about
//! `sqrt((n - k) / n)` for `n` groups and `k` fitted parameters (8: six continuous, two
//! breakpoints), so it is first divided by that.
//!
//! **Search.** From the full fit's breakpoints outwards, one core at a time in each direction:
//! at each position the other breakpoint is tried at its previous value and one core either
//! side, the continuous parameters re-solved by the simplex from the previous position's
//! (`super::fit::nelder_mead`); the walk stops at the socket's edge or after two positions in
//! a row beyond the threshold (the profile is not always monotonic). Its cost is a few
//! hundred simplex runs, once per calibration, not per resample.
//!
//! **Where a breakpoint names a turn.** The loss alone accepts positions at which the curve
//! the breakpoint names does not turn where the data are. `T(n)` (equation 1) is seen only
//! where communications are starved (`R(n) >= T(n)`); below that any straight line reaching
//! the seen values fits, so on henri's local side an `N_par^max` of 1 with `T_par^max` at
//! 707 GB/s and `delta_l` of 53 GB/s per core explained the data as well as 17. A position
//! is therefore searched only among parameter sets whose `T_par^max` is at most the largest
//! total the data show (computations plus communications in parallel, at one placement and
//! core count; the full fit's `T_par^max` if larger), plus three noise scales: `T_par^max`
//! is the plateau's height, which the paper's rules read as that largest total (section
//! 4.1), not a value extrapolated above it ([`Admissible`]). An `N_seq^max` below
//! `N_par^max` names no turn either (the second piece is empty, and `T_par^max2` and
//! `delta_r` draw the same line from another origin): every position is taken in order
//! (`super::fit::in_order`), so it counts as `N_par^max`, where the last piece starts.
//!
//! **What follows a breakpoint.** At each kept position the continuous parameters take other
//! values (`delta_l`, `delta_r` and `T_par^max2` move with `N_seq^max`); those parameter sets
//! are returned, so that the parameters' intervals cover "where the breakpoint is not pinned
//! down, neither are these" ([`widen`]).
//!
//! Pure: no I/O.

use super::fit::{self, Coding, Key, Side};
use crate::dataset::{COMM_PARALLEL, COMP_PARALLEL};
use crate::model::{Model, ParamIntervals, ParamKind, Params};
use std::collections::BTreeMap;

/// Half the 95 % quantile of the chi-square law with two degrees of freedom (5.991).
const THRESHOLD: f64 = 5.991_464_547_107_979 / 2.0;
/// Parameters the fit adjusts on one side: six continuous, two breakpoints.
const FITTED: usize = 8;
/// Simplex evaluations at each position (a third of the full fit's, as its breakpoint moves).
const EVALUATIONS: usize = 200;

/// Noise scales above the largest total seen that `T_par^max` may reach.
const ABOVE_SEEN: f64 = 3.0;

/// The parameter sets a profile position is searched among: those whose plateau is no
/// higher than the data show (see the module's documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Admissible {
    /// The highest `T_par^max`.
    t_par_max: f64,
}

impl Admissible {
    /// The bound for one side fitted as `best`, from its `groups` and `medians` (relative
    /// noise scale `scale`).
    fn new(best: &Params, groups: &[Key], medians: &[f64], scale: f64) -> Admissible {
        Admissible {
            t_par_max: largest_total(groups, medians)
                .unwrap_or(best.t_par_max)
                .max(best.t_par_max)
                * (1.0 + ABOVE_SEEN * scale),
        }
    }

    fn admits(&self, p: &Params) -> bool {
        p.t_par_max <= self.t_par_max
    }
}

/// The largest total measured in parallel (`B_par^comp + B_par^comm` of one placement and
/// core count, both among `groups`), `None` when no point has both.
fn largest_total(groups: &[Key], medians: &[f64]) -> Option<f64> {
    let mut totals: BTreeMap<(u32, u32, u32), [Option<f64>; 2]> = BTreeMap::new();
    for (g, &y) in groups.iter().zip(medians) {
        let slot = match g.quantity {
            COMP_PARALLEL => 0,
            COMM_PARALLEL => 1,
            _ => continue,
        };
        let key = (g.placement.comp_numa, g.placement.comm_numa, g.cores);
        totals.entry(key).or_default()[slot] = Some(y);
    }
    totals
        .values()
        .filter_map(|[a, b]| Some((*a)? + (*b)?))
        .reduce(f64::max)
}

/// One side's profile: the core ranges of both breakpoints and the parameter sets the fit
/// takes at every kept position.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Profile {
    /// `N_par^max`'s kept core counts, lowest and highest.
    pub(crate) n_par: [u32; 2],
    /// `N_seq^max`'s kept core counts, lowest and highest.
    pub(crate) n_seq: [u32; 2],
    /// The fitted parameters at each kept position, the full fit's included.
    pub(crate) sets: Vec<Params>,
}

/// The profile of `side` of `fitted` (the full fit of `groups` and `medians`, whose relative
/// residuals have noise scale `scale`); `None` when the model has no such side or it predicts
/// no group.
pub(crate) fn profile(
    fitted: &Model,
    side: Side,
    groups: &[Key],
    medians: &[f64],
    scale: f64,
) -> Option<Profile> {
    let p = *side.params(fitted)?;
    fit::with_dimensions!(&p, profile_in(fitted, side, groups, medians, scale))
}

/// [`profile`] with `N` continuous parameters (the paper's six and the law's own).
fn profile_in<const N: usize>(
    fitted: &Model,
    side: Side,
    groups: &[Key],
    medians: &[f64],
    scale: f64,
) -> Option<Profile> {
    let best = *side.params(fitted)?;
    let (groups, medians) = fit::side_groups(fitted, side, groups, medians);
    if groups.is_empty() {
        return None;
    }
    let n = groups.len();
    let scale = if n > FITTED {
        scale * (n as f64 / (n - FITTED) as f64).sqrt()
    } else {
        scale
    };
    let cores = fitted.machine.cores_per_socket;
    let coding = Coding::<N>::new(best, cores);
    let admissible = Admissible::new(&best, &groups, &medians, scale);
    let mut work = fitted.clone();
    let mut objective = |p: Params| {
        if admissible.admits(&p) {
            fit::side_loss(&mut work, side, &groups, &medians, scale, p)
        } else {
            f64::INFINITY
        }
    };
    let x0 = coding.encode(&best);
    let l0 = objective(best);
    // (loss, continuous parameters, n_par, n_seq) at every position visited.
    let mut visited: Vec<(f64, [f64; N], u32, u32)> =
        vec![(l0, x0, best.n_par_max, best.n_seq_max)];
    for walk_seq in [false, true] {
        for step in [-1i64, 1] {
            let start = (x0, best.n_par_max, best.n_seq_max);
            walk(
                &mut visited,
                &mut objective,
                &coding,
                start,
                (walk_seq, step),
                cores,
            );
        }
    }
    let l_min = visited.iter().map(|v| v.0).fold(f64::INFINITY, f64::min);
    let kept: Vec<&(f64, [f64; N], u32, u32)> = visited
        .iter()
        .filter(|v| v.0 - l_min <= THRESHOLD)
        .collect();
    let sets: Vec<Params> = kept
        .iter()
        .map(|&&(f, x, p, s)| {
            // Of the values that explain the data equally well, those nearest the full fit
            // (`fit::settle`): a direction the data leave flat must not drift.
            let x = fit::settle(|x| objective(coding.decode(x, p, s)), x, f, x0);
            fit::in_order(coding.decode(&x, p, s), side, cores)
        })
        .collect();
    let range = |pick: fn(&Params) -> u32| {
        let fitted = pick(&best);
        sets.iter()
            .map(pick)
            .fold([fitted, fitted], |[lo, hi], b| [lo.min(b), hi.max(b)])
    };
    let n_par = range(|p| p.n_par_max);
    let n_seq = range(|p| p.n_seq_max);
    Some(Profile { n_par, n_seq, sets })
}

/// One walk of [`profile_in`] from the full fit (`start`: its continuous parameters and
/// breakpoints): one breakpoint (`N_seq^max` when `walk_seq`, else `N_par^max`) moved a core
/// at a time in the direction `step`, the other let move by one, the rest refitted at each
/// position; every position is added to `visited`, until two in a row are past
/// [`THRESHOLD`] or the socket ends.
fn walk<const N: usize>(
    visited: &mut Vec<(f64, [f64; N], u32, u32)>,
    objective: &mut impl FnMut(Params) -> f64,
    coding: &Coding<N>,
    start: ([f64; N], u32, u32),
    (walk_seq, step): (bool, i64),
    cores: u32,
) {
    let (mut x, mut n_par, mut n_seq) = start;
    let mut beyond = 0;
    loop {
        let moved = i64::from(if walk_seq { n_seq } else { n_par }) + step;
        if !(1..=i64::from(cores)).contains(&moved) {
            break;
        }
        let moved = moved as u32;
        let other = if walk_seq { n_par } else { n_seq };
        let mut here: Option<([f64; N], f64, u32)> = None;
        for o in [other, other.saturating_sub(1), other + 1] {
            if !(1..=cores).contains(&o) {
                continue;
            }
            let (p, s) = if walk_seq { (o, moved) } else { (moved, o) };
            let (xc, fc) =
                fit::nelder_mead(|x| objective(coding.decode(x, p, s)), x, 0.02, EVALUATIONS);
            if fc.is_finite() && here.as_ref().is_none_or(|h| fc < h.1) {
                here = Some((xc, fc, o));
            }
        }
        let Some((xc, fc, o)) = here else { break };
        (x, n_par, n_seq) = if walk_seq {
            (xc, o, moved)
        } else {
            (xc, moved, o)
        };
        visited.push((fc, x, n_par, n_seq));
        let l_min = visited.iter().map(|v| v.0).fold(f64::INFINITY, f64::min);
        beyond = if fc - l_min > THRESHOLD {
            beyond + 1
        } else {
            0
        };
        if beyond >= 2 {
            break;
        }
    }
}

/// `intervals` (the bootstrap's, around the full fit `best`) joined with the profile: each
/// breakpoint's range with its profile range, each other parameter's with its bootstrap
/// interval moved to the value the fit takes at every kept position (the bootstrap's spread
/// at the full fit's breakpoints stands in for its spread at the others, which were not
/// resampled), cut back to the parameter's range, as model files are read with.
pub(crate) fn widen(intervals: ParamIntervals, best: &Params, profile: &Profile) -> ParamIntervals {
    let fitted = best.values();
    let mut out = intervals.as_array();
    for (i, [lo, hi]) in out.iter_mut().enumerate() {
        match Params::FIELDS[i].1 {
            ParamKind::Cores => {
                let [a, b] = if i == Params::N_PAR_MAX {
                    profile.n_par
                } else {
                    profile.n_seq
                };
                *lo = lo.min(f64::from(a));
                *hi = hi.max(f64::from(b));
            }
            kind => {
                let (below, above) = ((fitted[i] - *lo).max(0.0), (*hi - fitted[i]).max(0.0));
                for set in &profile.sets {
                    let v = set.values()[i];
                    *lo = lo.min(v - below);
                    *hi = hi.max(v + above);
                }
                // Moved to another position, the spread may pass the parameter's range.
                (*lo, *hi) = (kind.nearest_valid(*lo), kind.nearest_valid(*hi));
            }
        }
    }
    // The law's own parameters (the cpu-copy variant's kappa), as the continuous ones above.
    let law = intervals
        .law()
        .iter()
        .map(|&(name, [mut lo, mut hi])| {
            let own = best
                .law
                .params()
                .enumerate()
                .find(|(_, (lp, _))| lp.name == name);
            let Some((i, (lp, fitted))) = own else {
                return (name, [lo, hi]);
            };
            let (below, above) = ((fitted - lo).max(0.0), (hi - fitted).max(0.0));
            for set in &profile.sets {
                if let Some(&v) = set.law.values().get(i) {
                    lo = lo.min(v - below);
                    hi = hi.max(v + above);
                }
            }
            // Strictly above `low` (the least normal number above 0 for `kappa`).
            let least = (lp.low + f64::MIN_POSITIVE).max(lp.low.next_up());
            let valid = |v: f64| v.clamp(least, lp.high);
            (name, [valid(lo), valid(hi)])
        })
        .collect();
    ParamIntervals::new(out, law)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::COMP_ALONE;
    use crate::model::Placement;

    #[test]
    fn a_position_is_admitted_only_below_the_largest_total_seen() {
        let key = |comp_numa, comm_numa, cores, quantity| Key {
            placement: Placement {
                comp_numa,
                comm_numa,
            },
            cores,
            quantity,
        };
        // Totals of 70 and 73 GB/s; a parallel computation with no communication beside it
        // and a computation alone are no totals.
        let groups = [
            key(0, 0, 10, COMP_PARALLEL),
            key(0, 0, 10, COMM_PARALLEL),
            key(0, 0, 16, COMM_PARALLEL),
            key(0, 0, 16, COMP_PARALLEL),
            key(1, 1, 16, COMP_PARALLEL),
            key(0, 0, 16, COMP_ALONE),
        ];
        let medians = [60e3, 10e3, 11e3, 62e3, 90e3, 95e3];
        assert_eq!(largest_total(&groups, &medians), Some(73e3));
        assert_eq!(largest_total(&groups[4..], &medians[4..]), None);

        let best = crate::io::model_file::load("paper:henri").unwrap().local;
        let a = Admissible::new(&best, &groups, &medians, 0.01);
        assert!((a.t_par_max - best.t_par_max * 1.03).abs() < 1e-6, "{a:?}");
        assert!(a.admits(&best));
        let high = Params {
            t_par_max: best.t_par_max * 1.04,
            ..best
        };
        assert!(!a.admits(&high));
        // A full fit below the totals seen: the bound is theirs.
        let low = Params {
            t_par_max: 60e3,
            ..best
        };
        let a = Admissible::new(&low, &groups, &medians, 0.01);
        assert!((a.t_par_max - 73e3 * 1.03).abs() < 1e-6, "{a:?}");
        assert!(a.admits(&low) && a.admits(&best) && !a.admits(&high));
    }

    /// Issue 35, item 5: model files now refuse intervals beyond a parameter's range; the
    /// widening moved the bootstrap's spread to the other kept positions without bound, so
    /// an `alpha` near 1 got an interval past 1, which predict would then refuse.
    #[test]
    fn widening_keeps_every_interval_within_its_parameter_s_range() {
        let best = crate::io::model_file::load("paper:henri").unwrap().local;
        let mut boot = best.values().map(|v| [v, v]);
        boot[5] = [best.alpha - 0.05, best.alpha + 0.05];
        boot[8] = [best.b_seq_comp - 4000.0, best.b_seq_comp];
        let other = Params {
            alpha: 1.0,
            b_seq_comp: 100.0,
            ..best
        };
        let profile = Profile {
            n_par: [17, 17],
            n_seq: [18, 18],
            sets: vec![best, other],
        };
        let wide = widen(ParamIntervals::new(boot, vec![]), &best, &profile);
        let [_, hi] = wide.get("alpha").unwrap();
        assert!(hi <= 1.0, "alpha's interval ends at {hi}");
        let [lo, _] = wide.get("b_seq_comp").unwrap();
        assert!(lo > 0.0, "b_seq_comp's interval starts at {lo}");
    }

    #[test]
    fn widening_joins_the_breakpoint_ranges_and_moves_the_intervals_to_each_kept_position() {
        let best = crate::io::model_file::load("paper:henri").unwrap().local;
        let mut boot = best.values().map(|v| [v, v]);
        boot[1] = [best.t_par_max - 10.0, best.t_par_max + 30.0];
        let other = Params {
            n_par_max: 12,
            n_seq_max: 14,
            t_par_max: best.t_par_max + 100.0,
            ..best
        };
        let profile = Profile {
            n_par: [12, 17],
            n_seq: [14, 18],
            sets: vec![best, other],
        };
        let wide = widen(ParamIntervals::new(boot, vec![]), &best, &profile);
        assert_eq!(wide.get("n_par_max"), Some([12.0, 17.0]));
        assert_eq!(wide.get("n_seq_max"), Some([14.0, 18.0]));
        // The bootstrap's -10 / +30 around the full fit, moved to the other position too.
        assert_eq!(
            wide.get("t_par_max"),
            Some([best.t_par_max - 10.0, best.t_par_max + 130.0])
        );
        // A parameter equal at every kept position keeps its interval.
        assert_eq!(wide.get("alpha"), Some([best.alpha, best.alpha]));
    }
}
