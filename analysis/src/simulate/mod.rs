//! Simulated machines: what a node would measure, drawn from a known truth, so the sweep's
//! decisions (which core counts, how long each phase) and the fit's accuracy can be judged
//! against that truth in seconds, with no MPI and no node.
//!
//! Pure: no I/O, no threads, no clock; every draw is seeded.
//!
//! - [`truth`]: a machine's noise-free bandwidths for a placement and a core count: the
//!   paper's model (equations 1-8 with Appendix B's parameters, `paper:NAME`) or a
//!   realistic shape the piecewise model does not contain (`realistic:NAME`).
//! - [`noise`]: how samples scatter around it within a run: per sample, per phase, rounds
//!   correlated with their neighbours.
//! - [`between`]: how a phase's median moves from one run to the next and one day to the
//!   next, learned from a real node's runs: both simulators draw it.
//! - [`rng`]: the seeded generator.
//! - [`fleet`]: the nodes of a simulated fleet (`survey --simulate`): one machine, the noise
//!   between runs that real nodes show, some nodes degraded on purpose.
//!
//! A campaign in three calls:
//!
//! ```
//! use contention_analysis::model::Placement;
//! use contention_analysis::simulate::{draw_point, Noise, Rng, Truth};
//!
//! let truth = Truth::parse("realistic:henri").unwrap();
//! let at = Placement { comp_numa: 0, comm_numa: 0 };
//! let exact = truth.point(at, 4).unwrap();
//! let measured = draw_point(&truth, at, 4, 60, Noise::TYPICAL, &mut Rng::new(1)).unwrap();
//! assert!((measured.comp_alone / exact.comp_alone - 1.0).abs() < 0.05);
//! ```

pub mod between;
pub mod fleet;
pub mod noise;
pub mod rng;
pub mod truth;

pub use between::{RunKey, RunNoise};
pub use noise::{Noise, Stream};
pub use rng::Rng;
pub use truth::{Shape, SpecError, Truth};

use crate::model::{Placement, Point, PredictError};

/// The four phases of one point (section 4.1.1: computations alone, communications alone,
/// both in parallel), each a run of `rounds` rounds drawn around the truth with `noise`,
/// summarized by its median as a measured trace's point is: what a node would report for
/// `placement` at `cores` computing cores.
pub fn draw_point(
    truth: &Truth,
    placement: Placement,
    cores: u32,
    rounds: usize,
    noise: Noise,
    rng: &mut Rng,
) -> Result<Point, PredictError> {
    let exact = truth.point(placement, cores)?;
    let n = cores as usize;
    let mut phase = |bandwidth: f64, threads: usize, salt: u64| {
        let mut s = Stream::new(bandwidth, threads, noise, rng.fork(salt));
        crate::stats::median(&s.round_totals(rounds.max(1))).unwrap_or(bandwidth)
    };
    Ok(Point {
        cores,
        comp_alone: phase(exact.comp_alone, n, 1),
        comm_alone: phase(exact.comm_alone, 1, 2),
        comp_parallel: phase(exact.comp_parallel, n, 3),
        comm_parallel: phase(exact.comm_parallel, 1, 4),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drawn_point_is_seeded_and_near_the_truth() {
        let t = Truth::parse("paper:pyxis").unwrap();
        let at = Placement {
            comp_numa: 1,
            comm_numa: 0,
        };
        let draw = |seed| draw_point(&t, at, 7, 50, Noise::TYPICAL, &mut Rng::new(seed)).unwrap();
        assert_eq!(draw(5), draw(5));
        assert_ne!(draw(5), draw(6));
        let exact = t.point(at, 7).unwrap();
        let got = draw(5);
        for (g, e) in [
            (got.comp_alone, exact.comp_alone),
            (got.comm_alone, exact.comm_alone),
            (got.comp_parallel, exact.comp_parallel),
            (got.comm_parallel, exact.comm_parallel),
        ] {
            assert!((g / e - 1.0).abs() < 0.05, "{g} vs {e}");
        }
        // Without noise, the truth (up to rounding: the threads' shares are summed).
        let none = draw_point(&t, at, 7, 5, Noise::NONE, &mut Rng::new(1)).unwrap();
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b;
        assert!(close(none.comp_alone, exact.comp_alone), "{none:?}");
        assert!(close(none.comp_parallel, exact.comp_parallel), "{none:?}");
        assert_eq!(none.comm_parallel, exact.comm_parallel);
    }
}
