//! The prediction as tidy CSV, the same columns `measure` writes and `calibrate` reads
//! (README, "File formats"), so predictions and measurements can be joined.

use crate::io::tidy_csv;
use crate::model::PlacementPrediction;
use crate::report::PredictReport;
use crate::trace::TidyRow;

pub fn render(report: &PredictReport) -> String {
    tidy_csv::to_string(&tidy_rows(&report.placements))
}

/// Predictions as tidy rows, one per placement and core count: what a perfect measurement of
/// a machine the model describes exactly would give.
pub fn tidy_rows(placements: &[PlacementPrediction]) -> Vec<TidyRow> {
    placements
        .iter()
        .flat_map(|p| {
            p.points
                .iter()
                .map(|pt| TidyRow::predicted(p.comp_numa, p.comm_numa, pt))
        })
        .collect()
}
