//! The prediction as tidy CSV, the same columns `measure` writes and `calibrate` reads
//! (README, "File formats"), so predictions and measurements can be joined.

use crate::io::tidy_csv;
use crate::model::PlacementPrediction;
use crate::report::PredictReport;
use crate::trace::TidyRow;

/// The tidy columns, then the loss ratios `comp_loss,comm_loss` (alone / parallel), which
/// tidy CSV readers ignore as extra columns.
pub fn render(report: &PredictReport) -> String {
    let tidy = tidy_csv::to_string(&tidy_rows(&report.placements));
    let losses = report
        .placements
        .iter()
        .flat_map(|p| p.points.iter().map(|pt| (pt.comp_loss(), pt.comm_loss())));
    let mut lines = tidy.lines();
    let mut out = format!("{},comp_loss,comm_loss\n", lines.next().unwrap_or_default());
    for (line, (comp, comm)) in lines.zip(losses) {
        out += &format!("{line},{comp:.4},{comm:.4}\n");
    }
    out
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
