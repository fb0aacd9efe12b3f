//! Whether a node's breakpoint or slope outside the fleet's band changes what it predicts.
//!
//! `N_par^max`, `N_seq^max`, `delta_l` and `delta_r` shape the total `T(n)` (equation 1);
//! where the total is flat within the noise (henri's and bora's plateau reaches the socket's
//! last core), any breakpoint along it explains the data as well, and the fit of one run
//! puts it where that run's noise tips it: on simulated fleets of 16 identical bora nodes, 12
//! of 100 default surveys named a node on `n_par_max` 65 to 74 % below the fleet's (4 or 5
//! cores against 18) or on a `delta_r` beyond the last core counts, in both of its runs
//! (`bash benches/simulated_fleet.sh 100 16 auto fit 3 bora clean`, issue 43). Such a node
//! predicts the same bandwidths as the others; a value is named only when it moves them.
//!
//! The test is counterfactual: the node's parameters with the one judged put back at the
//! fleet's median, against the node's own, over every core count of the socket and the
//! three bandwidths the model predicts with contention and computations alone (equations 3,
//! 4 and 6). Moving it back must change one of them by more than `T_par^max`'s band (the
//! spread of the fleet's plateaus, relative): less is a change of shape within the noise
//! that the band of a bandwidth would not name either. An early saturation (`N_par^max` at
//! 10 of 18 with a total climbing 500 MB/s a core before it) moves bora's predicted
//! bandwidths by 5.4 % and stays named where the plateaus agree within that.
//!
//! Pure: no I/O.

use crate::model::{bandwidth, ParamKind, Params};

/// Whether parameter `j` shapes the curve rather than scaling it: a breakpoint or a slope.
pub(crate) fn shapes(j: usize) -> bool {
    matches!(Params::FIELDS[j].1, ParamKind::Cores | ParamKind::Slope)
}

/// The largest relative change, over core counts 1 to `cores` and the predicted bandwidths
/// (computations and communications in parallel, computations alone), when parameter `j` of
/// `p` is put back at `median` (the fleet's): 0.05 for 5 %.
pub(crate) fn shift(p: &Params, j: usize, median: f64, cores: u32) -> f64 {
    let Some(back) = put_back(p, j, median) else {
        return 0.0;
    };
    let (a, b) = (bandwidth::curve(p, cores), bandwidth::curve(&back, cores));
    a.iter()
        .zip(&b)
        .flat_map(|(x, y)| {
            [
                (x.comp_parallel, y.comp_parallel),
                (x.comm_parallel, y.comm_parallel),
                (x.comp_alone, y.comp_alone),
            ]
        })
        .map(|(x, y)| {
            let scale = x.abs().max(y.abs());
            if scale > 0.0 {
                (x - y).abs() / scale
            } else {
                0.0
            }
        })
        .filter(|r| r.is_finite())
        .fold(0.0, f64::max)
}

/// `p` with the shaping parameter `j` set to `v` (a core count rounded to the nearest core,
/// at least 1); `None` for a parameter that does not shape the curve, or a value that is
/// not finite.
fn put_back(p: &Params, j: usize, v: f64) -> Option<Params> {
    if !v.is_finite() {
        return None;
    }
    let cores = || v.round().max(1.0) as u32;
    let mut q = *p;
    match j {
        Params::N_PAR_MAX => q.n_par_max = cores(),
        Params::N_SEQ_MAX => q.n_seq_max = cores(),
        Params::DELTA_L => q.delta_l = v,
        Params::DELTA_R => q.delta_r = v,
        _ => return None,
    }
    Some(q)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bora() -> Params {
        crate::model::paper::model("bora").local
    }

    #[test]
    fn a_breakpoint_moved_along_a_flat_total_changes_nothing_and_on_a_slope_it_does() {
        let p = bora();
        assert!(shapes(Params::N_PAR_MAX) && !shapes(Params::T_PAR_MAX));
        // bora's total is flat up to its last core: N_par^max at 5 predicts almost what 18
        // does.
        let flat = Params {
            n_par_max: 5,
            delta_l: 0.0,
            ..p
        };
        let at_18 = Params {
            n_par_max: 18,
            ..flat
        };
        // Only the communications' share between the last fitting core count and N_seq^max
        // (equation 5) follows it, by 2.5 % at most.
        let f = shift(&flat, Params::N_PAR_MAX, 18.0, 18);
        assert!(f < 0.026, "{f}");
        assert_eq!(shift(&at_18, Params::N_PAR_MAX, 18.0, 18), 0.0);
        // A total climbing 500 MB/s a core up to N_par^max: saturating at 10 instead of 18
        // moves the bandwidths it predicts by 5.4 %.
        let climbing = Params {
            n_par_max: 10,
            delta_l: 500.0,
            ..p
        };
        let s = shift(&climbing, Params::N_PAR_MAX, 18.0, 18);
        assert!((0.05..0.06).contains(&s), "{s}");
        // Shapes only: a bandwidth is never put back.
        assert_eq!(shift(&climbing, Params::T_PAR_MAX, 1.0, 18), 0.0);
    }
}
