//! The prediction as tidy CSV, the same columns `measure` writes and `calibrate` reads
//! (DESIGN.md, "Tidy CSV"), so predictions and measurements can be joined.

use crate::io::tidy_csv;
use crate::report::PredictReport;
use crate::trace::TidyRow;

pub fn render(report: &PredictReport) -> String {
    let rows: Vec<TidyRow> = report
        .placements
        .iter()
        .flat_map(|p| {
            p.points.iter().map(|pt| TidyRow {
                comp_numa: p.comp_numa,
                comm_numa: p.comm_numa,
                cores: pt.cores,
                comp_alone: pt.comp_alone,
                comm_alone: pt.comm_alone,
                comp_parallel: pt.comp_parallel,
                comm_parallel: pt.comm_parallel,
            })
        })
        .collect();
    tidy_csv::to_string(&rows)
}
