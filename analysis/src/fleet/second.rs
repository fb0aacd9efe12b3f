//! Which nodes a survey measures a second time (`survey --runs auto`, the default): the
//! suspects of the first runs' report and a sample of the others, at most half the fleet.
//!
//! One run per node cannot tell a slow node from an unlucky launch: on simulated fleets of 16
//! identical nodes drawn with a real node's noise between runs, a report of one run per node
//! named 2 to 9 "slow" nodes in 96.5 % of fleets. Measuring every node twice (`--runs 2`)
//! removes most of those, at twice the node time. A second run is only needed where a
//! verdict hangs on it, and where the fleet's noise between runs is learned:
//!
//! - **suspects**: every node with a parameter outside the first report's band (named or
//!   within its own noise; not a breakpoint or slope that predicts the same bandwidths as
//!   the fleet's median, `super::shape`), the farthest first: an outlier is named only when its second run
//!   agrees (`runs::confirmed`), so each needs one;
//! - **a sample** of the others, at least [`MIN_SAMPLE`] nodes and [`SAMPLE_SHARE`] of the
//!   fleet, drawn by the fleet's seed: with the suspects' their two runs give the pooled
//!   run-to-run spread that widens the band for every node (`runs::pooled`); the sample
//!   keeps it from resting on the suspects alone, whose selection makes it err wide;
//! - at most `MAX_SHARE` of the fleet in all, so a survey costs at most 1.5 times one run
//!   per node; suspects beyond it keep one run and are not named (the report says so).
//!
//! This is a two-stage design in the sense of sequential testing (a screening stage, then a
//! confirmation of what it flags; Wald, *Sequential Analysis*, 1947), with the confirmation
//! rule the fleet report already applies to `--runs 2`.

use super::FleetReport;

/// The factor on `k` of the first runs' report that picks the suspects: 2/3 (`k = 2` for the
/// default 3), so that a node 10 % slow is a suspect in most fleets, and its second run
/// decides.
pub const SCREEN_K: f64 = 2.0 / 3.0;

/// The smallest sample of unsuspected nodes measured again, for the pooled run-to-run
/// spread: with 4 differences its estimate is within a factor 2 of the truth in 95 % of
/// fleets (a chi-square with 4 degrees of freedom lies in 0.48-11.1).
pub const MIN_SAMPLE: usize = 4;

/// The share of the fleet sampled beyond [`MIN_SAMPLE`].
pub const SAMPLE_SHARE: f64 = 0.05;

/// The most of the fleet measured twice.
pub(crate) const MAX_SHARE: f64 = 0.5;

/// The nodes to measure a second time after the first runs' `report`, by host name: the
/// suspects (farthest first) and the sample (drawn by `seed`), together at most half the
/// nodes measured.
pub fn choose(report: &FleetReport, seed: u64) -> Vec<String> {
    let measured: Vec<&str> = report
        .nodes
        .iter()
        .filter(|n| n.calibrated)
        .map(|n| n.host.as_str())
        .collect();
    let cap = most_chosen(measured.len());
    // Each suspect's farthest score over its parameters outside the band.
    let mut suspects: Vec<(&str, f64)> = Vec::new();
    // A shape the node's bandwidths do not show needs no second run to decide.
    let suspect =
        |o: &&super::Outlier| !matches!(o.not_named, Some(super::NotNamed::SameCurve { .. }));
    for o in report
        .outliers
        .iter()
        .chain(&report.within_noise)
        .filter(suspect)
    {
        match suspects.iter_mut().find(|(h, _)| *h == o.host) {
            Some((_, s)) => *s = s.max(o.score.abs()),
            None => suspects.push((o.host.as_str(), o.score.abs())),
        }
    }
    suspects.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    let mut chosen: Vec<String> = suspects
        .iter()
        .take(cap)
        .map(|(h, _)| (*h).to_string())
        .collect();
    let want = MIN_SAMPLE.max((measured.len() as f64 * SAMPLE_SHARE).ceil() as usize);
    let mut others: Vec<(u64, &str)> = measured
        .iter()
        .filter(|h| !chosen.iter().any(|c| c == *h))
        .map(|h| (draw(seed, h), *h))
        .collect();
    others.sort_unstable();
    let room = cap.saturating_sub(chosen.len()).min(want);
    chosen.extend(others.iter().take(room).map(|(_, h)| (*h).to_string()));
    chosen
}

/// The most nodes [`choose`] names among `measured` calibrated nodes: `MAX_SHARE` of them,
/// at least one. What a survey's plan counts the second stage's rounds from, before the
/// first runs say who.
pub fn most_chosen(measured: usize) -> usize {
    ((measured as f64 * MAX_SHARE).floor() as usize).max(1)
}

/// A host's place in the sample: SplitMix64 of the seed and the host's name (FNV-1a), the
/// same for the same fleet on every machine.
fn draw(seed: u64, host: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in host.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    crate::stats::SplitMix64(seed ^ h).next_u64()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::testing::node;

    fn report(hosts: usize, outside: &[(&str, f64)]) -> FleetReport {
        let nodes: Vec<_> = (1..=hosts)
            .map(|i| node(&format!("node{i}"), |_| {}))
            .collect();
        let mut r = crate::fleet::build(
            std::path::Path::new("/nonexistent"),
            nodes,
            &Default::default(),
        );
        r.outliers.clear();
        r.within_noise.clear();
        for (host, score) in outside {
            r.outliers.push(crate::fleet::Outlier {
                host: host.to_string(),
                parameter: "local.t_seq_max".into(),
                value: 1.0,
                median: 1.0,
                deviation_percent: 0.0,
                score: *score,
                own_noise: 0.0,
                not_named: None,
            });
        }
        r
    }

    #[test]
    fn suspects_first_then_a_sample_at_most_half_the_fleet() {
        let r = report(16, &[("node3", 4.0), ("node9", -7.0)]);
        let c = choose(&r, 1);
        assert_eq!(&c[..2], &["node9", "node3"], "farthest first: {c:?}");
        assert_eq!(c.len(), 2 + MIN_SAMPLE, "{c:?}");
        let mut unique = c.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), c.len(), "{c:?}");
        // The same seed draws the same sample, another seed another one.
        assert_eq!(choose(&r, 1), c);
        assert!((2..9).any(|s| choose(&r, s) != c));
        // Many suspects: half the fleet at most, the farthest kept.
        let many: Vec<(String, f64)> = (1..=12)
            .map(|i| (format!("node{i}"), f64::from(i)))
            .collect();
        let refs: Vec<(&str, f64)> = many.iter().map(|(h, s)| (h.as_str(), *s)).collect();
        let c = choose(&report(16, &refs), 1);
        assert_eq!(c.len(), 8);
        assert_eq!(c[0], "node12");
        assert!(!c.iter().any(|h| h == "node1"), "{c:?}");
        // A large fleet samples 5 % of its nodes.
        assert_eq!(choose(&report(200, &[]), 1).len(), 10);
        // A breakpoint that predicts the same bandwidths as the fleet's median is no suspect:
        // the sample alone is measured again.
        let mut same = report(16, &[]);
        let mut o = r.outliers[0].clone();
        o.host = "node5".into();
        o.not_named = Some(crate::fleet::NotNamed::SameCurve {
            shift_percent: 0.0,
            limit_percent: 3.0,
        });
        same.within_noise.push(o);
        assert_eq!(choose(&same, 1).len(), MIN_SAMPLE);
    }
}
