//! `advise`: the contention model's bandwidths (Denis, Jeannot and Swartvagher, equations
//! 6-8) as the inputs of Langguth et al.'s time model (section IV), for every placement and
//! core count, ranked by the time of one step.
//!
//! For a step that computes on `W_M` bytes and receives `W_N` bytes, at a placement and core
//! count predicted `comp_alone`, `comm_alone`, `comp_parallel`, `comm_parallel` (MB/s):
//! `T_M = W_M / comp_alone`, `T_N = W_N / comm_alone` (seconds, 1 MB = 10^6 bytes),
//! `L_M = comp_alone / comp_parallel`, `L_N = comm_alone / comm_parallel`, and `T_tot` from
//! [`super::time`].

use super::time::{Step, StepTimes};
use crate::model::{PlacementPrediction, Point};
use serde::Serialize;

/// Bytes per MB: bandwidths are MB/s (10^6 bytes per second) everywhere in the tool.
const BYTES_PER_MB: f64 = 1e6;

/// One placement and core count, with the model's inputs and its times (seconds).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Candidate {
    pub comp_numa: u32,
    pub comm_numa: u32,
    pub cores: u32,
    /// `T_M`, `T_N` (s) and the loss ratios `L_M`, `L_N`.
    #[serde(flatten)]
    pub step: Step,
    /// `T^C_M`, `T^C_N`, `total_time`, `no_overlap_time`, `no_contention_time` (s).
    #[serde(flatten)]
    pub times: StepTimes,
    /// The model predicts a stream no slower beside the other than alone (parallel >= alone
    /// bandwidth); its loss ratio is then 1.
    pub no_predicted_loss: bool,
}

/// Every candidate, fastest first, and the naive configuration to compare with.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ranking {
    /// Fastest first; ties (equal times) go to fewer cores, then to the order evaluated.
    pub ranked: Vec<Candidate>,
    /// All computing cores, both data on NUMA node 0: what one gets without thinking.
    pub naive: Candidate,
}

impl Ranking {
    /// The recommended configuration: the fastest.
    pub fn best(&self) -> &Candidate {
        // `advise` refuses to build a Ranking with no candidate.
        &self.ranked[0]
    }

    /// How many times longer the naive step takes than the best one (1 = as fast).
    pub fn naive_slowdown(&self) -> f64 {
        self.naive.times.total_time / self.best().times.total_time
    }
}

/// The candidate of one predicted point, for a step of `comp_bytes` and `comm_bytes`.
///
/// `None` when a bandwidth is not above 0 (the model cannot give a time then).
pub(crate) fn candidate(
    comp_numa: u32,
    comm_numa: u32,
    p: &Point,
    comp_bytes: f64,
    comm_bytes: f64,
) -> Option<Candidate> {
    let comp_loss = p.comp_alone / p.comp_parallel;
    let comm_loss = p.comm_alone / p.comm_parallel;
    let step = Step::new(
        comp_bytes / (p.comp_alone * BYTES_PER_MB),
        comm_bytes / (p.comm_alone * BYTES_PER_MB),
        comp_loss.max(1.0),
        comm_loss.max(1.0),
    )
    .ok()?;
    Some(Candidate {
        comp_numa,
        comm_numa,
        cores: p.cores,
        step,
        times: step.times(),
        no_predicted_loss: comp_loss < 1.0 || comm_loss < 1.0,
    })
}

/// Ranks every point of `predictions`; `naive` is the point of all cores on placement 0,0.
/// `None` when no point yields a candidate.
pub fn advise(
    predictions: &[PlacementPrediction],
    naive: &Point,
    comp_bytes: f64,
    comm_bytes: f64,
) -> Option<Ranking> {
    let mut ranked: Vec<Candidate> = predictions
        .iter()
        .flat_map(|p| {
            p.points
                .iter()
                .filter_map(|pt| candidate(p.comp_numa, p.comm_numa, pt, comp_bytes, comm_bytes))
        })
        .collect();
    if ranked.is_empty() {
        return None;
    }
    // Stable: equal times and cores keep the order they were computed in.
    ranked.sort_by(|a, b| {
        a.times
            .total_time
            .total_cmp(&b.times.total_time)
            .then(a.cores.cmp(&b.cores))
    });
    let naive = candidate(0, 0, naive, comp_bytes, comm_bytes)?;
    Some(Ranking { ranked, naive })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::model_file;
    use crate::model::{all_placements, predict};

    const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
    const MIB: f64 = 1024.0 * 1024.0;

    fn henri_ranking(comp_bytes: f64, comm_bytes: f64) -> Ranking {
        let model = model_file::load("paper:henri").unwrap();
        let counts: Vec<u32> = (1..=model.machine.cores_per_socket).collect();
        let preds = predict(&model, &all_placements(&model), &counts).unwrap();
        let naive = preds
            .iter()
            .find(|p| p.comp_numa == 0 && p.comm_numa == 0)
            .and_then(|p| p.points.last())
            .copied()
            .unwrap();
        advise(&preds, &naive, comp_bytes, comm_bytes).unwrap()
    }

    #[test]
    fn times_come_from_bytes_and_mb_per_s() {
        let p = Point {
            cores: 4,
            comp_alone: 2000.0,
            comm_alone: 1000.0,
            comp_parallel: 1000.0,
            comm_parallel: 500.0,
        };
        let c = candidate(0, 1, &p, 4e9, 1e9).unwrap();
        assert_eq!(c.step.comp_time, 2.0);
        assert_eq!(c.step.comm_time, 1.0);
        assert_eq!((c.step.comp_loss, c.step.comm_loss), (2.0, 2.0));
        // T^C_M = 4 > T^C_N = 2; the 2 s left of computation run twice as fast: 2 + 1.
        assert_eq!(c.times.total_time, 3.0);
    }

    #[test]
    fn a_predicted_gain_counts_as_no_loss() {
        let p = Point {
            cores: 1,
            comp_alone: 1000.0,
            comm_alone: 1000.0,
            comp_parallel: 1100.0,
            comm_parallel: 1000.0,
        };
        let c = candidate(0, 0, &p, 1e9, 1e9).unwrap();
        assert!(c.no_predicted_loss);
        assert_eq!(c.step.comp_loss, 1.0);
        assert_eq!(c.times.total_time, 1.0);
    }

    #[test]
    fn recommended_configuration_is_the_minimum_over_all_evaluated() {
        for (wm, wn) in [(GIB, 64.0 * MIB), (64.0 * MIB, GIB), (GIB, GIB)] {
            let a = henri_ranking(wm, wn);
            assert_eq!(a.ranked.len(), 4 * 18);
            let min = a
                .ranked
                .iter()
                .map(|c| c.times.total_time)
                .fold(f64::INFINITY, f64::min);
            assert_eq!(a.best().times.total_time, min);
            assert!(a
                .ranked
                .windows(2)
                .all(|w| w[0].times.total_time <= w[1].times.total_time));
            // The naive configuration is one of those evaluated, so it cannot beat the best.
            assert!(a.naive_slowdown() >= 1.0);
            assert_eq!(
                (a.naive.comp_numa, a.naive.comm_numa, a.naive.cores),
                (0, 0, 18)
            );
        }
    }

    #[test]
    fn every_time_respects_the_model_bounds() {
        let a = henri_ranking(GIB, 256.0 * MIB);
        for c in &a.ranked {
            let t = c.times;
            assert!(t.total_time >= t.no_contention_time - 1e-15, "{c:?}");
            assert!(
                t.total_time <= t.contended_comp_time.max(t.contended_comm_time) + 1e-15,
                "{c:?}"
            );
        }
    }
}
