//! The model's variant for communications a DMA engine makes beside the computations, as a
//! GPU's copy engines do (`"variant": "knee"`): equations 1-3 and 6 of the paper as they
//! are, equation 4 (and with it equation 5) replaced by a law that keeps the copies whole
//! while the memory is lightly loaded and makes them fall steeply towards the floor `alpha`
//! as the load nears saturation.
//!
//! **Why.** Neither law before it has that shape. The paper's keeps communications at
//! `B_seq^comm` until the bus is full (`R(n) < T(n)`), then drops them at once; the
//! cpu-copy variant's ([`super::cpu_copy`]) makes them fall from the first computing core,
//! as a CPU core's copy does when every loaded cache line waits longer. Copies by a GPU's
//! copy engines, measured by `contention measure --engine gpu` on an H200 node (PCIe Gen5
//! x16, 16-core Xeon, `tests/data/gpu-h200`; device to host, medians of three runs) did
//! neither: they kept 54.7-55.0 GB/s beside 1 to 3 computing cores (the computations asking
//! 38 % of the memory's bandwidth), lost 12 % at 4 cores, 34 % at 5, 48 % at 6, and held
//! 0.41-0.44 of their bandwidth from 7 cores on. The cpu-copy law missed them by 9-15 % at 2
//! to 4 cores (its fit: 3.95 % on the copies in parallel); this one passes through them
//! (2.46 %).
//!
//! **The law.** With the computations' load `u` of the cpu-copy variant (their request over
//! the total both streams get, at most 1):
//!
//! ```text
//! share(n)        = max(alpha, 1 - u(n)^gamma)
//! B_par^comm(n)   = max(alpha B_seq^comm, min(share(n) B_seq^comm, T(n) - n B_seq^comp))
//! B_par^comp(n)   = min(n B_seq^comp, T(n) - B_par^comm(n))      equation 3
//! ```
//!
//! One parameter more than the paper's ten, `gamma`, fitted per side with them: 1 makes the
//! copies fall linearly with the load, a large one keeps them whole nearly to saturation
//! (the paper's behaviour without its step). Fitted to the H200 node's three runs of each
//! direction, `gamma` was 2.71 (device to host) and 2.39 (host to device); held to another
//! run of the node, measured minutes later in another process, the model predicted its
//! copies in parallel within 9.6 % and 3.4 % (MAPE), the cpu-copy law fitted to the same runs
//! within 11.3 % and 7.1 %, and the three runs' medians themselves, the node's noise floor,
//! within 8.3 % and 4.3 %.
//!
//! Equations 7 and 8 (placements) are unchanged: each parameter set carries its own `gamma`.

use super::cpu_copy::curve_by;
use super::params::Params;
use super::total::CurvePoint;

/// The share of `B_seq^comm` the copies keep at load `u`, never below `alpha`.
pub fn share(u: f64, gamma: f64, alpha: f64) -> f64 {
    (1.0 - u.clamp(0.0, 1.0).powf(gamma)).max(alpha)
}

/// The variant's bandwidths for `n = 1 ..= max_cores` (see the module's equations).
pub(super) fn curve(p: &Params, gamma: f64, max_cores: u32) -> Vec<CurvePoint> {
    curve_by(p, max_cores, |u| share(u, gamma, p.alpha))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_copies_keep_their_bandwidth_at_light_load_and_fall_to_the_floor_at_saturation() {
        let alpha = 0.4;
        // At a light load, a sharp knee keeps nearly all; a linear one (gamma 1) loses the load.
        assert!(share(0.25, 3.0, alpha) > 0.98);
        assert!((share(0.25, 1.0, alpha) - 0.75).abs() < 1e-12);
        // It falls as the load grows, and never below alpha.
        let shares: Vec<f64> = (0..=10)
            .map(|i| share(f64::from(i) / 10.0, 2.5, alpha))
            .collect();
        assert!(shares.windows(2).all(|w| w[1] <= w[0]), "{shares:?}");
        assert_eq!(share(1.0, 2.5, alpha), alpha);
        assert_eq!(share(0.0, 2.5, alpha), 1.0);
        // A load past saturation is saturation.
        assert_eq!(share(1.7, 2.5, alpha), alpha);
    }
}
