//! The noise between runs of one node, which the band must know: a node's traces carry
//! intervals of its phases *within* their run, but two runs of the same command differ by
//! more (3 to 29 % between the extremes of a phase's median over 4 runs on a real 16-core
//! node), and the fleet's nodes are each one run. A band narrower than that names nodes
//! that only drew an unlucky run (Kalibera and Jones, *Rigorous Benchmarking in Reasonable
//! Time*, 2013: repeat at the level where the variance lives).
//!
//! A survey with `--runs 2` measures every node twice, in different rounds. Then, for each
//! parameter:
//!
//! - the fleet's pooled run-to-run standard deviation is `sqrt(sum d_i^2 / 2m)` over the `m`
//!   nodes measured twice, `d_i` the difference of a node's two runs (each run's value has
//!   variance `sigma^2`, their difference `2 sigma^2`). A sum of squares, not a median: the
//!   parameters read off a maximum or a core count (`T_par^max`, `N_par^max`) jump now and
//!   then, and a median of differences would not see those jumps;
//! - a node measured twice takes the larger of its own (`|d_i| / sqrt 2`) and the pooled;
//!   a node measured once takes the pooled;
//! - the band's scale for a node is at least that run-to-run deviation, and a node measured
//!   twice is an outlier only when its second run lies outside the band too, on the same
//!   side (an outlier that one run alone shows is that run's noise).
//!
//! With no node measured twice, the report says the band knows only the within-run
//! intervals.

use serde::Serialize;

/// Where a node's run-to-run noise came from, as the report says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// Its own two runs (and at least the fleet's pooled spread).
    OwnRuns,
    /// The fleet's pooled run-to-run spread: this node was measured once.
    FleetPooled,
    /// No node was measured twice: only the intervals within each run.
    WithinRun,
}

impl Source {
    pub fn words(self) -> &'static str {
        match self {
            Source::OwnRuns => "its own two runs",
            Source::FleetPooled => "the fleet's pooled run-to-run spread",
            Source::WithinRun => "within-run intervals only",
        }
    }
}

/// The pooled run-to-run standard deviation of one parameter from the differences of the
/// nodes' two runs; `None` without any.
pub(crate) fn pooled(differences: &[f64]) -> Option<f64> {
    let d: Vec<f64> = differences
        .iter()
        .copied()
        .filter(|d| d.is_finite())
        .collect();
    (!d.is_empty()).then(|| (d.iter().map(|d| d * d).sum::<f64>() / (2.0 * d.len() as f64)).sqrt())
}

/// A node's run-to-run standard deviation of one parameter: from its own two runs'
/// difference (`own`) and the fleet's pooled one, the larger.
pub(crate) fn node_sigma(own: Option<f64>, pooled: Option<f64>) -> Option<f64> {
    let own = own.map(|d| d.abs() / std::f64::consts::SQRT_2);
    match (own, pooled) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

/// Whether the second run `second` confirms a first run `first` outside `median +-
/// half_width`: it lies outside too, on the same side.
pub(crate) fn confirmed(first: f64, second: f64, median: f64, half_width: f64) -> bool {
    let side = |x: f64| {
        if x - median > half_width {
            1
        } else if median - x > half_width {
            -1
        } else {
            0
        }
    };
    side(first) != 0 && side(first) == side(second)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pooled_spread_is_the_root_mean_square_over_two_and_own_never_narrows_it() {
        // Differences 3 and 4: (9 + 16) / 4 = 6.25, sigma 2.5.
        assert_eq!(pooled(&[3.0, -4.0]), Some(2.5));
        assert_eq!(pooled(&[]), None);
        assert_eq!(pooled(&[f64::NAN]), None);
        let own = node_sigma(Some(10.0), Some(2.5)).unwrap();
        assert!((own - 10.0 / 2f64.sqrt()).abs() < 1e-12);
        assert_eq!(node_sigma(Some(0.0), Some(2.5)), Some(2.5));
        assert_eq!(node_sigma(None, Some(2.5)), Some(2.5));
        assert_eq!(node_sigma(None, None), None);
    }

    #[test]
    fn a_second_run_confirms_only_outside_on_the_same_side() {
        assert!(confirmed(10.0, 9.0, 0.0, 5.0));
        assert!(!confirmed(10.0, 4.0, 0.0, 5.0), "inside");
        assert!(!confirmed(10.0, -9.0, 0.0, 5.0), "other side");
        assert!(!confirmed(4.0, 9.0, 0.0, 5.0), "first inside");
    }
}
