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
//! (0.87 %).
//!
//! **The law.** With the computations' load `u` of the cpu-copy variant (their request over
//! the total both streams get, at most 1), the copies' share of their bandwidth alone falls
//! from 1 to the floor `alpha` along Hill's sigmoid (A. V. Hill, "The possible effects of the
//! aggregation of the molecules of haemoglobin on its dissociation curves", J. Physiol. 40,
//! 1910), the law of a response that saturates over a range of loads:
//!
//! ```text
//! share(n)        = alpha + (1 - alpha) / (1 + (u(n) / u_half)^h)
//! B_par^comm(n)   = max(alpha B_seq^comm, min(share(n) B_seq^comm, T(n) - n B_seq^comp))
//! B_par^comp(n)   = min(n B_seq^comp, T(n) - B_par^comm(n))      equation 3
//! ```
//!
//! Two parameters more than the paper's ten, fitted per side with them: `half_load`
//! (`u_half`), the load at which the copies have lost half of what they can lose (the knee's
//! middle), and `steepness` (`h`), how sharp the knee is: 1 a gentle fall from the first
//! core, a large one the paper's step, rounded. Whole at no load, `alpha` only beyond
//! saturation's reach: a copy engine keeps a little more than the floor at the load the
//! computations saturate with.
//!
//! **Why two.** A one-parameter knee, `max(alpha, 1 - u^gamma)` (this variant's law before
//! 2026-11-30), cannot be flat to 38 % of the load and at its floor by 85 %: fitted to the
//! three runs of device-to-host copies it lost 2-7 % at 2-4 cores where the copies lost
//! none (its fit: 2.46 %), and its model predicted a fourth run's copies in parallel within
//! 9.6 % (MAPE) where the three runs' medians themselves, the node's noise floor, did within
//! 8.3 %. This law passes through both the flat start and the steep fall: fitted to the same
//! runs, it predicts the fourth's copies within 8.3 % device to host (floor 8.3 %) and 4.1 %
//! host to device (floor 4.3 %), the cpu-copy law within 11.3 % and 7.1 %; fitted to one run
//! only, each of the three others within 7.5 % and 4.0 % on average, better than that run's
//! own measurements do (7.7 % and 4.9 %; the one-parameter knee: 8.1 % and 4.6 %).
//! `calibrate` then `evaluate`, `tests/data/gpu-h200` and the runs of its traces.
//!
//! Equations 7 and 8 (placements) are unchanged: each parameter set carries its own
//! `half_load` and `steepness`.

use super::cpu_copy::curve_by;
use super::params::Params;
use super::total::CurvePoint;

/// The share of `B_seq^comm` the copies keep at load `u` (Hill's sigmoid from 1 to `alpha`,
/// its middle at `half_load`, its slope there set by `steepness`).
pub fn share(u: f64, half_load: f64, steepness: f64, alpha: f64) -> f64 {
    let ratio = u.clamp(0.0, 1.0) / half_load;
    alpha + (1.0 - alpha) / (1.0 + ratio.powf(steepness))
}

/// The variant's bandwidths for `n = 1 ..= max_cores` (see the module's equations).
pub(super) fn curve(p: &Params, half_load: f64, steepness: f64, max_cores: u32) -> Vec<CurvePoint> {
    curve_by(p, max_cores, |u| share(u, half_load, steepness, p.alpha))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_copies_keep_their_bandwidth_at_light_load_and_fall_to_the_floor_past_the_knee() {
        let alpha = 0.4;
        // Whole at no load; at the half load, half of what they can lose.
        assert_eq!(share(0.0, 0.6, 8.0, alpha), 1.0);
        assert!((share(0.6, 0.6, 8.0, alpha) - 0.7).abs() < 1e-12);
        // A sharp knee keeps nearly all at a third of the load and nearly nothing above the
        // floor at saturation; a gentle one (steepness 1) loses from the first core.
        assert!(share(0.3, 0.6, 8.0, alpha) > 0.997);
        assert!(share(1.0, 0.6, 8.0, alpha) < alpha + 0.01);
        assert!((share(0.3, 0.6, 1.0, alpha) - (alpha + 0.6 / 1.5)).abs() < 1e-12);
        // It falls as the load grows, and never below alpha.
        let shares: Vec<f64> = (0..=10)
            .map(|i| share(f64::from(i) / 10.0, 0.6, 4.0, alpha))
            .collect();
        assert!(shares.windows(2).all(|w| w[1] < w[0]), "{shares:?}");
        assert!(shares.iter().all(|&s| s > alpha), "{shares:?}");
        // A load past saturation is saturation.
        assert_eq!(share(1.7, 0.6, 4.0, alpha), share(1.0, 0.6, 4.0, alpha));
    }
}
