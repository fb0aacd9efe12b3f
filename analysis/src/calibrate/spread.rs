//! The noise between runs that a calibration's inputs show, recorded in the model file
//! (`calibration.run_spread`) so that `check` can take its drift limit from it: two models
//! of one unchanged machine differ by what moves a run, not by the intervals inside one.
//!
//! A trace of `R >= 2` runs (`measure --runs`, three by default) holds each point's medians
//! in every run: the `k`-th observation of a point in an input is that input's run `k`. Per
//! bandwidth, the logarithms of those medians are split as in a two-way analysis of variance
//! without replication (Montgomery, *Design and Analysis of Experiments*, 8th ed., section
//! 5.3.7; Searle, Casella and McCulloch, *Variance Components*, 1992, chapter 3): a level
//! each run shares over its core counts (`run`), and what is left at each point (`point`).
//! The split matters for a model: its curves rest on many points, so the point's part
//! averages out of a prediction and the run's does not.

use crate::dataset::Input;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The noise between runs of one bandwidth: standard deviations of the log median.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Spread {
    /// The level a run shares over its core counts.
    pub(crate) run: f64,
    /// What moves each point of a run apart from that.
    pub(crate) point: f64,
}

/// The noise between runs of the four bandwidths, and how many runs showed it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RunSpread {
    /// Runs per point (the most any input holds).
    pub(crate) runs: u32,
    pub(crate) comp_alone: Spread,
    pub(crate) comm_alone: Spread,
    pub(crate) comp_parallel: Spread,
    pub(crate) comm_parallel: Spread,
}

impl RunSpread {
    /// The spreads in the tidy CSV's order: computations alone, communications alone,
    /// computations in parallel, communications in parallel.
    pub(crate) fn streams(&self) -> [Spread; 4] {
        [
            self.comp_alone,
            self.comm_alone,
            self.comp_parallel,
            self.comm_parallel,
        ]
    }
}

/// Sums of squares and degrees of freedom, pooled over inputs.
#[derive(Default, Clone, Copy)]
struct Pooled {
    run_ss: f64,
    run_df: f64,
    point_ss: f64,
    point_df: f64,
    points: f64,
}

/// The noise between runs of `inputs`, `None` when no input holds two runs of two points.
pub(crate) fn of_inputs(inputs: &[Input]) -> Option<RunSpread> {
    let mut pooled = [Pooled::default(); 4];
    let mut most_runs = 0u32;
    for input in inputs {
        // Per point, its observations in order: run 0, 1, ...
        let mut by_point: BTreeMap<(u32, u32, u32), Vec<usize>> = BTreeMap::new();
        for (i, o) in input.observations.iter().enumerate() {
            let key = (o.placement.comp_numa, o.placement.comm_numa, o.cores);
            by_point.entry(key).or_default().push(i);
        }
        let runs = by_point.values().map(Vec::len).max().unwrap_or(0);
        // The points every run measured.
        let full: Vec<&Vec<usize>> = by_point.values().filter(|v| v.len() == runs).collect();
        if runs < 2 || full.len() < 2 {
            continue;
        }
        most_runs = most_runs.max(runs as u32);
        for (q, p) in pooled.iter_mut().enumerate() {
            let table: Vec<Vec<f64>> = full
                .iter()
                .map(|obs| {
                    obs.iter()
                        .map(|&i| input.observations[i].bw[q].value.ln())
                        .collect()
                })
                .collect();
            if table.iter().flatten().any(|x| !x.is_finite()) {
                continue;
            }
            add_two_way(p, &table);
        }
    }
    if most_runs < 2 {
        return None;
    }
    let [comp_alone, comm_alone, comp_parallel, comm_parallel] = pooled.map(split);
    Some(RunSpread {
        runs: most_runs,
        comp_alone,
        comm_alone,
        comp_parallel,
        comm_parallel,
    })
}

/// Adds one input's table (`table[point][run]`, log medians) to the pooled sums: the run
/// effects' sum of squares over the points and the residuals'.
fn add_two_way(p: &mut Pooled, table: &[Vec<f64>]) {
    let (c, r) = (table.len() as f64, table[0].len() as f64);
    let grand = table.iter().flatten().sum::<f64>() / (c * r);
    let point_mean: Vec<f64> = table
        .iter()
        .map(|row| row.iter().sum::<f64>() / r)
        .collect();
    let run_mean: Vec<f64> = (0..table[0].len())
        .map(|k| table.iter().map(|row| row[k]).sum::<f64>() / c)
        .collect();
    let mut residual = 0.0;
    for (row, pm) in table.iter().zip(&point_mean) {
        for (x, rm) in row.iter().zip(&run_mean) {
            residual += (x - pm - rm + grand).powi(2);
        }
    }
    p.run_ss += c * run_mean.iter().map(|m| (m - grand).powi(2)).sum::<f64>();
    p.run_df += r - 1.0;
    p.point_ss += residual;
    p.point_df += (r - 1.0) * (c - 1.0);
    p.points = p.points.max(c);
}

/// The two standard deviations from pooled sums: the residual mean square is the point's
/// variance; the runs' mean square holds `points` times the run's variance on top of it.
fn split(p: Pooled) -> Spread {
    if p.point_df <= 0.0 || p.run_df <= 0.0 {
        return Spread::default();
    }
    let point = p.point_ss / p.point_df;
    let run = ((p.run_ss / p.run_df - point) / p.points).max(0.0);
    Spread {
        run: run.sqrt(),
        point: point.sqrt(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_level_shared_by_the_run_is_told_from_the_points_own() {
        // Three runs at levels -5 %, 0, +5 % (log), 12 points, each point's own part
        // alternating +-1 %: run sd 0.05, point sd about 0.01.
        let levels = [-0.05, 0.0, 0.05];
        let table: Vec<Vec<f64>> = (0..12)
            .map(|i| {
                levels
                    .iter()
                    .enumerate()
                    .map(|(k, l)| 8.0 + l + if (i + k) % 2 == 0 { 0.01 } else { -0.01 })
                    .collect()
            })
            .collect();
        let mut p = Pooled::default();
        add_two_way(&mut p, &table);
        let s = split(p);
        assert!((s.run - 0.05).abs() < 0.005, "{s:?}");
        assert!((0.008..0.015).contains(&s.point), "{s:?}");
        // No run level: all of it is the points'.
        let flat: Vec<Vec<f64>> = table
            .iter()
            .map(|row| row.iter().map(|x| x - 0.0).collect())
            .map(|row: Vec<f64>| vec![row[0] - levels[0], row[1], row[2] - levels[2]])
            .collect();
        let mut p = Pooled::default();
        add_two_way(&mut p, &flat);
        assert!(split(p).run < 0.003, "{:?}", split(p));
    }
}
