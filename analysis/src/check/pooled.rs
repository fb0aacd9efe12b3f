//! The drift limit of `check --fleet` from the fleet's own noise between runs, pooled over
//! the nodes that either survey measured twice, and the fleet's common shift.
//!
//! What `check --fleet` judges is the drift of a node's predictions between two one-run
//! models of it: the saved survey's and the new one's. Two things move it on a healthy node:
//!
//! - **the day** (what both surveys' launches share: host load, firmware, the MPI stack): it
//!   moves every node of a survey alike ([`crate::simulate::RunNoise::day`]). Its difference
//!   between the two surveys is estimated by the fleet itself, the median over the compared
//!   nodes of each prediction's log drift (robust: a few degraded nodes do not move it), and
//!   each node is judged on its drift beyond that **fleet shift**; the shift is judged on its
//!   own against the days' levels, so a fleet that moved as a whole (an MPI update, a
//!   firmware change) still fails the check;
//! - **the run** and what the fit makes of it: a one-run fit amplifies a run's noise where
//!   its rules read a maximum or a last core count (on simulated henri fleets, two one-run
//!   fits of one node differ by 2 % at most core counts and 14-18 % at the last). The nodes
//!   measured twice in one survey (`survey --runs auto` measures the suspects and a sample
//!   again, `--runs 2` every node) give that difference directly, on the same day: `d_j =
//!   ln(run 2 / run 1)` of every prediction of node `j`, which is distributed as the
//!   difference of a healthy node's two surveys once the day is taken out. Its pooled
//!   standard deviation, per placement, core count and bandwidth, is `s = sqrt(sum d_j^2 /
//!   m)` over the `m` nodes measured twice in either survey (a sum of squares, as the fleet
//!   report's `runs::pooled`: the fit's jumps must count). The suspects among those nodes
//!   were picked for an extreme first run, so `s` errs wide.
//!
//! A node's drift beyond the fleet shift has variance `s^2 (1 + pi / 2n)` (the median of `n`
//! nodes adds `pi s^2 / 2n`, its asymptotic variance; Serfling, *Approximation Theorems of
//! Mathematical Statistics*, 1980, 2.3.3), and its limit is [`DRIFT_SIGMAS`] standard
//! deviations, widened to Student's quantile for a deviation estimated from `m` differences
//! ([`student_quantile`]). The fleet shift's limit is the same number of standard
//! deviations of two days' levels, `sqrt(2 day^2 + pi s^2 / 2n)`, with the day assumed as the
//! real node's.
//!
//! Without [`MIN_PAIRS`] nodes measured twice (`--runs 1`, a real fleet measured once) the
//! check keeps the rule of one machine ([`super::judge`]); with fewer than
//! [`MIN_SHIFT_NODES`] compared nodes no shift is taken out and each node's limit holds the
//! two days' levels instead.

use super::DRIFT_SIGMAS;
use crate::model::{self, Model};
use std::collections::BTreeMap;

/// A prediction's place: the placement's computation and communication nodes and the core
/// count.
pub(crate) type Key = (u32, u32, u32);

/// A model's log predictions by place, in [`crate::dataset::QUANTITIES`] order.
pub(crate) type Curves = BTreeMap<Key, [f64; 4]>;

/// Every prediction of a model on its own machine (all placements it can predict, every core
/// count of its socket), as logarithms in [`crate::dataset::QUANTITIES`] order; `None` for a
/// model that cannot predict (it passed validation: never in practice) or a bandwidth not
/// above zero.
pub(crate) fn log_predictions(m: &Model) -> Option<Curves> {
    let cores: Vec<u32> = (1..=m.machine.cores_per_socket).collect();
    let predicted = model::predict(m, &model::all_placements(m), &cores).ok()?;
    let mut out = BTreeMap::new();
    for p in predicted {
        for pt in p.points {
            let bw = [
                pt.comp_alone,
                pt.comm_alone,
                pt.comp_parallel,
                pt.comm_parallel,
            ];
            if bw.iter().any(|b| !(b.is_finite() && *b > 0.0)) {
                return None;
            }
            out.insert((p.comp_numa, p.comm_numa, pt.cores), bw.map(f64::ln));
        }
    }
    Some(out)
}

/// The fewest nodes measured twice that the pooled spread rests on: [`crate::fleet::second`]
/// samples at least that many in every survey of `--runs auto`.
pub(crate) const MIN_PAIRS: usize = crate::fleet::second::MIN_SAMPLE;

/// The fewest compared nodes whose median drift is taken for the fleet's shift: the median
/// of 5 stands when 2 of them moved.
pub(crate) const MIN_SHIFT_NODES: usize = 5;

/// Student's t quantile for `nu` degrees of freedom at the normal quantile `z`, by the
/// Cornish-Fisher expansion (Abramowitz and Stegun, *Handbook of Mathematical Functions*,
/// 1964, 26.7.5, to its third term; within 3 % of the exact quantile at `z = 3` from 4
/// degrees of freedom, and closer as they grow): the number of estimated standard deviations that holds a healthy
/// node's drift as often as `z` known ones would.
pub(crate) fn student_quantile(z: f64, nu: f64) -> f64 {
    let (z3, z5) = (z.powi(3), z.powi(5));
    z + (z3 + z) / (4.0 * nu)
        + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * nu * nu)
        + (3.0 * z.powi(7) + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / (384.0 * nu.powi(3))
}

/// One prediction's rule: the fleet shift taken out (log) and the node's limit and the
/// shift's, percent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PointRule {
    pub(crate) shift: f64,
    pub(crate) limit_percent: f64,
    pub(crate) shift_limit_percent: f64,
}

/// The fleet's rule for every prediction (`rules`), from how many nodes measured twice
/// (`pairs`) and compared (`nodes`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FleetRule {
    pub(crate) rules: BTreeMap<Key, [PointRule; 4]>,
    pub(crate) pairs: usize,
    pub(crate) nodes: usize,
}

/// The largest fleet shift beyond its limit, where the whole fleet moved.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FleetShift {
    pub(crate) comp_numa: u32,
    pub(crate) comm_numa: u32,
    pub(crate) cores: u32,
    pub(crate) bandwidth: &'static str,
    /// The median drift of the compared nodes' predictions, percent (negative: slower).
    pub(crate) shift_percent: f64,
    pub(crate) limit_percent: f64,
}

/// A log limit as a relative drift, percent: the wider (upper) side.
fn percent(log: f64) -> f64 {
    100.0 * log.exp_m1()
}

impl FleetRule {
    /// The rule from the predictions of the nodes measured twice (`pairs`: each node's two
    /// runs, log predictions) and the compared nodes' log drifts (`drifts`: new minus saved);
    /// `None` with fewer than [`MIN_PAIRS`] pairs.
    pub(crate) fn new(pairs: &[(Curves, Curves)], drifts: &[Curves]) -> Option<Self> {
        if pairs.len() < MIN_PAIRS {
            return None;
        }
        let day = crate::simulate::RunNoise::REAL_16_CORE.day;
        let n = drifts.len();
        let shifted = n >= MIN_SHIFT_NODES;
        let mut rules = BTreeMap::new();
        for key in drifts.iter().flat_map(BTreeMap::keys) {
            if rules.contains_key(key) {
                continue;
            }
            let rule = std::array::from_fn(|q| {
                let d: Vec<f64> = pairs
                    .iter()
                    .filter_map(|(a, b)| Some(b.get(key)?[q] - a.get(key)?[q]))
                    .collect();
                let m = d.len().max(1) as f64;
                let s2 = d.iter().map(|d| d * d).sum::<f64>() / m;
                let t = student_quantile(DRIFT_SIGMAS, m);
                let days = 2.0 * day[q % 2].powi(2);
                let of_median = std::f64::consts::PI * s2 / (2.0 * n.max(1) as f64);
                let mut at: Vec<f64> = drifts.iter().filter_map(|x| Some(x.get(key)?[q])).collect();
                let (shift, node_var) = if shifted {
                    let median = crate::stats::median_in_place(&mut at).unwrap_or(0.0);
                    (median, s2 + of_median)
                } else {
                    (0.0, s2 + days)
                };
                PointRule {
                    shift,
                    limit_percent: percent(t * node_var.sqrt()).max(super::MIN_DRIFT_LIMIT_PERCENT),
                    shift_limit_percent: percent(t * (days + of_median).sqrt()),
                }
            });
            rules.insert(*key, rule);
        }
        Some(FleetRule {
            rules,
            pairs: pairs.len(),
            nodes: n,
        })
    }

    /// Whether the fleet's shift is taken out of each node's drift.
    pub(crate) fn shifted(&self) -> bool {
        self.nodes >= MIN_SHIFT_NODES
    }

    /// The prediction where the fleet as a whole moved farthest beyond its limit, if any did.
    pub(crate) fn fleet_moved(&self) -> Option<FleetShift> {
        if !self.shifted() {
            return None;
        }
        self.rules
            .iter()
            .flat_map(|(k, r)| (0..4).map(move |q| (k, q, r[q])))
            .map(|(&(comp_numa, comm_numa, cores), q, r)| FleetShift {
                comp_numa,
                comm_numa,
                cores,
                bandwidth: crate::dataset::QUANTITIES[q],
                shift_percent: 100.0 * r.shift.exp_m1(),
                limit_percent: r.shift_limit_percent,
            })
            .filter(|s| s.shift_percent.abs() > s.limit_percent)
            .max_by(|a, b| {
                (a.shift_percent.abs() / a.limit_percent)
                    .total_cmp(&(b.shift_percent.abs() / b.limit_percent))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn students_quantile_widens_for_few_differences_and_meets_the_normal_for_many() {
        // Exact t quantiles at the normal's 3-sigma level (0.99865): 4.28 for 8 degrees of
        // freedom, 3.54 for 16, 3.06 for 120 (numerical integration of Student's density).
        for (nu, want) in [(8.0, 4.28), (16.0, 3.54), (120.0, 3.06)] {
            let t = student_quantile(3.0, nu);
            assert!(
                (t - want).abs() / want < 0.03,
                "nu {nu}: {t} against {want}"
            );
        }
        assert!(student_quantile(3.0, 4.0) > student_quantile(3.0, 8.0));
    }

    /// One node's log predictions at one key, every bandwidth at `x`.
    fn at(x: f64) -> Curves {
        [((0, 0, 1), [x; 4])].into()
    }

    #[test]
    fn the_shift_is_the_fleets_median_and_the_limit_its_pooled_spread() {
        // Runs 2 % apart (log) on 8 nodes: s = 0.02.
        let pairs: Vec<_> = (0..8)
            .map(|i| (at(0.0), at(if i % 2 == 0 { 0.02 } else { -0.02 })))
            .collect();
        // Ten nodes moved 5 % with the day, one 15 % more.
        let mut drifts: Vec<_> = (0..10).map(|_| at(0.05)).collect();
        drifts.push(at(0.05 - 0.15));
        let rule = FleetRule::new(&pairs, &drifts).unwrap();
        let r = rule.rules[&(0, 0, 1)][0];
        assert!((r.shift - 0.05).abs() < 1e-12, "{r:?}");
        let t = student_quantile(DRIFT_SIGMAS, 8.0);
        let s = 0.02 * (1.0 + std::f64::consts::PI / 22.0f64).sqrt();
        assert!((r.limit_percent - percent(t * s)).abs() < 1e-9, "{r:?}");
        assert!(r.limit_percent < 15.0 && r.limit_percent > 5.0, "{r:?}");
        // A 5 % shift is within two days' levels; 40 % is not, and is named.
        assert_eq!(rule.fleet_moved(), None);
        let moved: Vec<_> = (0..10).map(|_| at(-0.4)).collect();
        let m = FleetRule::new(&pairs, &moved)
            .unwrap()
            .fleet_moved()
            .unwrap();
        assert!(m.shift_percent < -30.0 && m.limit_percent < 30.0, "{m:?}");
        // Too few nodes measured twice: no pooled rule; too few compared: no shift, the
        // days' levels in each node's limit.
        assert_eq!(FleetRule::new(&pairs[..MIN_PAIRS - 1], &drifts), None);
        let few = FleetRule::new(&pairs, &drifts[..3]).unwrap();
        let r3 = few.rules[&(0, 0, 1)][0];
        assert_eq!(r3.shift, 0.0);
        assert!(r3.limit_percent > r.limit_percent, "{r3:?}");
        assert_eq!(few.fleet_moved(), None);
    }
}
