//! Equations 3-6 of Denis, Jeannot and Swartvagher (section 3.2; Algorithm 2 of Appendix A),
//! on equations 1-2 ([`super::total`]): from one parameter set, the bandwidths of
//! computations and communications for every number of computing cores.

use super::law::Law;
use super::params::Params;
use super::total::{required, total, CurvePoint};

/// Equations 1-6 for `n = 1 ..= max_cores` (Algorithm 2); for a parameter set of another
/// law than the paper's ([`super::law`]), that law instead of equations 4 and 5 (the
/// cpu-copy variant's: [`super::cpu_copy`]; the knee variant's: [`super::knee`]).
///
/// The points must be computed in order from one core: equation 5 interpolates from the last
/// core count `i` below `n` where the requirement still fitted (`R(i) < T(i)`). Where no core
/// count fitted (a corner the paper leaves open: even one core saturates the bus), there is
/// nothing to interpolate from and `alpha(n) = alpha`.
pub fn curve(p: &Params, max_cores: u32) -> Vec<CurvePoint> {
    match p.law {
        Law::Paper => paper(p, max_cores),
        Law::CpuCopy { kappa } => super::cpu_copy::curve(p, kappa, max_cores),
        Law::Knee {
            half_load,
            steepness,
        } => super::knee::curve(p, half_load, steepness, max_cores),
    }
}

/// Equations 3-6 as the paper writes them, for [`curve`].
fn paper(p: &Params, max_cores: u32) -> Vec<CurvePoint> {
    let mut points = Vec::with_capacity(max_cores as usize);
    // (i, B_par^comm(i) / B_seq^comm) at the last core count where R(i) < T(i).
    let mut last_fit: Option<(u32, f64)> = None;
    for n in 1..=max_cores {
        let t = total(p, n);
        let wanted = f64::from(n) * p.b_seq_comp;
        let comp_alone = wanted.min(t).min(p.t_seq_max); // equation 6
        let (comp_parallel, comm_parallel) = if required(p, n) < t {
            let comm = (t - wanted).min(p.b_seq_comm); // equation 4, first case
            last_fit = Some((n, comm / p.b_seq_comm));
            (wanted, comm) // equation 3, first case
        } else {
            let comm = alpha_n(p, n, last_fit) * p.b_seq_comm; // equation 4, second case
            ((t - comm).max(0.0), comm) // equation 3, second case
        };
        points.push(CurvePoint {
            cores: n,
            total: t,
            comp_alone,
            comp_parallel,
            comm_parallel,
        });
    }
    points
}

/// The least `T_seq^max` that leaves every bandwidth of `curve(p, max_cores)` as it is: the
/// largest `min(n B_seq^comp, T(n))` of the socket (equation 6 without its cap), and no less
/// than the largest computation bandwidth in parallel (contention never speeds computations
/// up) nor `B_seq^comp`. Above it equation 6 never reaches `T_seq^max`, so every value above
/// predicts the same: this one names the model of them all by the edge the data can see.
pub fn least_t_seq_max(p: &Params, max_cores: u32) -> f64 {
    let uncapped = Params {
        t_seq_max: f64::INFINITY,
        ..*p
    };
    curve(&uncapped, max_cores)
        .iter()
        .map(|c| c.comp_alone.max(c.comp_parallel))
        .fold(p.b_seq_comp, f64::max)
}

/// `alpha(n)`, equation 5: between the last fitting core count `i` and `N_seq^max`, the share
/// left to communications falls linearly from its value at `i` to `alpha` instead of dropping
/// at once; elsewhere it is `alpha`.
fn alpha_n(p: &Params, n: u32, last_fit: Option<(u32, f64)>) -> f64 {
    match last_fit {
        Some((i, beta)) if p.n_seq_max > p.n_par_max + 1 && n < p.n_seq_max => {
            let slope = (beta - p.alpha) / f64::from(p.n_seq_max - i);
            beta - slope * f64::from(n - i)
        }
        _ => p.alpha,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn henri_local() -> Params {
        crate::paper::model("henri").local
    }

    fn dahu_local() -> Params {
        crate::paper::model("dahu").local
    }

    #[test]
    fn total_follows_its_three_pieces() {
        let p = dahu_local();
        assert_eq!(total(&p, 1), 72147.6);
        assert_eq!(total(&p, 11), 72147.6);
        assert!((total(&p, 13) - (72147.6 - 2.0 * 212.8)).abs() < 1e-9);
        assert!((total(&p, 16) - (71509.2 - 2.0 * 656.8)).abs() < 1e-9);
    }

    #[test]
    fn n_seq_below_n_par_is_the_same_curve_from_n_par() {
        // henri-subnuma's remote side: N_seq^max 4 below N_par^max 11 in the paper's table.
        let p = crate::paper::model("henri-subnuma").remote.unwrap();
        assert!(p.n_seq_max < p.n_par_max);
        let q = crate::total::seq_after_par(&p);
        assert_eq!((q.n_par_max, q.n_seq_max, q.delta_r), (11, 11, p.delta_r));
        for (a, b) in curve(&p, 32).iter().zip(curve(&q, 32)) {
            for (x, y) in [
                (a.total, b.total),
                (a.comp_alone, b.comp_alone),
                (a.comp_parallel, b.comp_parallel),
                (a.comm_parallel, b.comm_parallel),
            ] {
                assert!((x - y).abs() < 1e-9 * x.abs().max(1.0), "{a:?} {b:?}");
            }
        }
        let dahu = dahu_local();
        assert_eq!(crate::total::seq_after_par(&dahu), dahu, "already in order");
    }

    #[test]
    fn total_is_clamped_at_zero() {
        let mut p = dahu_local();
        p.delta_r = 1e6;
        assert_eq!(total(&p, 16), 0.0);
    }

    #[test]
    fn henri_local_hand_computed_points() {
        // R(13) = 13 * 4455.4 + 0.915 * 11481.1 = 68425.4 < 73423: communications unhurt.
        let c = curve(&henri_local(), 18);
        assert_eq!(c[12].comm_parallel, 11481.1);
        assert!((c[12].comp_parallel - 13.0 * 4455.4).abs() < 1e-9);
        // R(14) = 72880.8 < 73423 still, but T - 14 * B = 11047.4 < B_seq^comm.
        assert!((c[13].comm_parallel - (73423.0 - 14.0 * 4455.4)).abs() < 1e-9);
        // R(15) > T(15): N_seq^max - N_par^max = 1, so no interpolation: alpha.
        assert!((c[14].comm_parallel - 0.915 * 11481.1).abs() < 1e-9);
        assert!((c[14].comp_parallel - (73423.0 - 0.915 * 11481.1)).abs() < 1e-9);
        // Equation 6: alone, limited by T_seq^max once 17 cores want more.
        assert!((c[16].comp_alone - 72589.9).abs() < 1e-9);
    }

    #[test]
    fn equation_5_interpolates_towards_alpha() {
        // dahu local: N_seq^max - N_par^max = 3 > 1, so alpha(n) is interpolated.
        let p = dahu_local();
        let c = curve(&p, 16);
        let i = c
            .iter()
            .rposition(|pt| required(&p, pt.cores) < pt.total)
            .expect("some core count fits");
        let beta = c[i].comm_parallel / p.b_seq_comm;
        let i_cores = c[i].cores;
        for pt in &c[i + 1..] {
            let expected = if pt.cores < p.n_seq_max {
                beta - (beta - p.alpha) / f64::from(p.n_seq_max - i_cores)
                    * f64::from(pt.cores - i_cores)
            } else {
                p.alpha
            };
            assert!(
                (pt.comm_parallel - expected * p.b_seq_comm).abs() < 1e-6,
                "n = {}",
                pt.cores
            );
        }
    }

    #[test]
    fn no_fitting_core_count_falls_back_to_alpha() {
        let mut p = dahu_local();
        p.b_seq_comp = 80000.0; // one core alone over-subscribes the bus
        let c = curve(&p, 16);
        assert!(c
            .iter()
            .all(|pt| (pt.comm_parallel - p.alpha * p.b_seq_comm).abs() < 1e-9));
    }

    #[test]
    fn the_least_t_seq_max_predicts_the_same_and_is_reached_where_it_binds() {
        for name in crate::paper::names() {
            let m = crate::paper::model(name);
            for p in std::iter::once(m.local).chain(m.remote) {
                let cores = m.machine.cores_per_socket;
                // Lowered to it, never raised (billy's table has computations faster in
                // parallel than its T_seq^max, which the fit's rules would raise instead).
                let q = Params {
                    t_seq_max: least_t_seq_max(&p, cores).min(p.t_seq_max),
                    ..p
                };
                for (a, b) in curve(&p, cores).iter().zip(curve(&q, cores)) {
                    assert_eq!(a, &b, "{name}");
                }
            }
        }
        // henri's local T_seq^max caps computations alone at 17 and 18 cores: the data see
        // it, and there is nothing above it to lower.
        let p = henri_local();
        assert!(least_t_seq_max(&p, 18) >= p.t_seq_max);
        // Raised above every T(n), it names nothing: the edge is the curve's own peak.
        let high = Params {
            t_seq_max: 1e6,
            ..p
        };
        let peak = curve(&high, 18)
            .iter()
            .map(|c| c.comp_alone)
            .fold(0.0, f64::max);
        assert_eq!(least_t_seq_max(&high, 18), peak);
        assert!(peak < 1e6 && peak > p.t_seq_max);
    }
}
