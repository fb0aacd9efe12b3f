//! Equations 1 and 2 of Denis, Jeannot and Swartvagher (section 3.2; Algorithm 1 of
//! Appendix A): what the memory system gives both streams together, `T(n)`, and what `n`
//! cores ask of it, `R(n)`; shared by the paper's model ([`super::bandwidth`]) and its
//! cpu-copy variant ([`super::cpu_copy`]), with the point of a curve both produce.

use super::params::Params;

/// The model's prediction for one core count and one parameter set (MB/s).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CurvePoint {
    pub cores: u32,
    /// `T(n)`, equation 1: what the memory system gives both streams together.
    pub total: f64,
    /// `B_seq^comp(n)`, equation 6: computations alone.
    pub comp_alone: f64,
    /// `B_par^comp(n)`, equation 3: computations while communications run.
    pub comp_parallel: f64,
    /// `B_par^comm(n)`, equation 4: communications while computations run.
    pub comm_parallel: f64,
}

/// `T(n)`, equation 1 (Algorithm 1): flat at `T_par^max` up to `N_par^max` cores, then losing
/// `delta_l` per core up to `N_seq^max`, then `delta_r` per core from `T_par^max2`.
///
/// The linear pieces can cross zero when a steep `delta` is extrapolated far beyond the
/// calibrated cores; a bandwidth cannot be negative, so the result is clamped at 0.
pub fn total(p: &Params, n: u32) -> f64 {
    let n = f64::from(n);
    let (n_par, n_seq) = (f64::from(p.n_par_max), f64::from(p.n_seq_max));
    let t = if n <= n_par {
        p.t_par_max
    } else if n <= n_seq {
        p.t_par_max - p.delta_l * (n - n_par)
    } else {
        p.t_par_max2 - p.delta_r * (n - n_seq)
    };
    t.max(0.0)
}

/// The same equation 1 with `N_seq^max` at least `N_par^max`. Where `N_seq^max` is below
/// `N_par^max` the second piece of `T(n)` is empty (`delta_l` = 0) and `N_seq^max` only sets
/// the origin of the third, `T_par^max2 - delta_r (n - N_seq^max)` for `n > N_par^max`: the
/// same line drawn from `N_par^max` starts at `T_par^max2 - delta_r (N_par^max - N_seq^max)`.
/// Every prediction stays the same (equation 5 interpolates only when `N_seq^max > N_par^max
/// + 1`, and equation 6 reads `T(n)`), and the breakpoint then says where the last piece
/// starts, which is all the data can tell of it: a fit or a resample that placed it below
/// `N_par^max` has not located it there, and its interval must not reach down because of it.
pub fn seq_after_par(p: &Params) -> Params {
    if p.n_seq_max >= p.n_par_max {
        return *p;
    }
    Params {
        n_seq_max: p.n_par_max,
        t_par_max2: p.t_par_max2 - p.delta_r * f64::from(p.n_par_max - p.n_seq_max),
        delta_l: 0.0,
        ..*p
    }
}

/// `R(n)`, equation 2: what `n` cores request plus the bandwidth assured to communications.
pub fn required(p: &Params, n: u32) -> f64 {
    f64::from(n) * p.b_seq_comp + p.alpha * p.b_seq_comm
}
