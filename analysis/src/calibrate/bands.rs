//! 95 % intervals of predicted bandwidths: the prediction of every bootstrap replicate stored
//! in the model file (`crate::model::Uncertainty`), and at each placement, core count and
//! stream the percentile interval of those predictions (the same equations 1-8 as the point
//! prediction, [`crate::model::predict`]). Pure; `predict --intervals` and `plot` print and draw them.

use super::bootstrap::percentile_interval;
use crate::model::{self, Interval, Machine, Params, Placement, Uncertainty};
use serde::Serialize;

/// The intervals of one placement's prediction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlacementIntervals {
    pub comp_numa: u32,
    pub comm_numa: u32,
    pub points: Vec<PointIntervals>,
}

/// The 95 % interval `[low, high]` (MB/s) of each bandwidth at one core count.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PointIntervals {
    pub cores: u32,
    pub comp_alone: Interval,
    pub comm_alone: Interval,
    pub comp_parallel: Interval,
    pub comm_parallel: Interval,
}

/// The 95 % intervals of one side's breakpoints, as ranges of core counts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Breakpoints {
    /// `local` or `remote`.
    pub side: &'static str,
    pub n_par_max: Interval,
    pub n_seq_max: Interval,
}

/// The breakpoints' intervals of each side the bootstrap covers (`N_par^max` and `N_seq^max`,
/// section 3.1): a prediction near them can change regime within its interval.
pub fn breakpoints(u: &Uncertainty) -> Vec<Breakpoints> {
    [("local", Some(&u.local)), ("remote", u.remote.as_ref())]
        .into_iter()
        .filter_map(|(side, iv)| {
            let iv = iv?;
            Some(Breakpoints {
                side,
                n_par_max: iv.get(Params::NAMES[Params::N_PAR_MAX])?,
                n_seq_max: iv.get(Params::NAMES[Params::N_SEQ_MAX])?,
            })
        })
        .collect()
}

/// The intervals of `placements` at `cores` (already checked by [`model::predict`] on the
/// point model), over the replicates that can predict them.
pub fn intervals(
    machine: &Machine,
    u: &Uncertainty,
    placements: &[Placement],
    cores: &[u32],
) -> Vec<PlacementIntervals> {
    // predictions[replicate][placement][core]
    let predictions: Vec<Vec<model::PlacementPrediction>> = u
        .replicates
        .iter()
        .filter_map(|r| {
            let m = r.model(machine);
            if !m.problems().is_empty() {
                return None;
            }
            model::predict(&m, placements, cores).ok()
        })
        .collect();
    placements
        .iter()
        .enumerate()
        .map(|(i, p)| PlacementIntervals {
            comp_numa: p.comp_numa,
            comm_numa: p.comm_numa,
            points: cores
                .iter()
                .enumerate()
                .map(|(j, &n)| {
                    let band = |f: &dyn Fn(&model::Point) -> f64| {
                        let v: Vec<f64> = predictions.iter().map(|r| f(&r[i].points[j])).collect();
                        percentile_interval(&v).unwrap_or([f64::NAN, f64::NAN])
                    };
                    PointIntervals {
                        cores: n,
                        comp_alone: band(&|pt| pt.comp_alone),
                        comm_alone: band(&|pt| pt.comm_alone),
                        comp_parallel: band(&|pt| pt.comp_parallel),
                        comm_parallel: band(&|pt| pt.comm_parallel),
                    }
                })
                .collect(),
        })
        .collect()
}
