//! The typed result of `predict` and its [`Report`] impl: the table is `table`, the CSV
//! `csv` (tidy columns, so predictions join measurements), the JSON its fields (docs/formats.md,
//! "Prediction").

mod csv;
mod table;

use super::Report;
use crate::model::PlacementPrediction;
use serde::Serialize;

/// A prediction for some placements and core counts, with what produced it.
#[derive(Debug, Clone, Serialize)]
pub struct PredictReport {
    #[serde(flatten)]
    pub header: crate::header::Header,
    /// Which model, which machine, in which units.
    #[serde(flatten)]
    pub about: crate::header::About,
    /// Remarks the user should see (e.g. placements left out for want of `remote`).
    pub notes: Vec<String>,
    pub placements: Vec<PlacementPrediction>,
    /// 95 % intervals of every predicted bandwidth (`predict --intervals`), from the model
    /// file's bootstrap replicates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intervals: Option<Vec<crate::calibrate::bands::PlacementIntervals>>,
    /// The 95 % intervals of the breakpoints of each side (`predict --intervals`), core
    /// ranges.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub breakpoints: Option<Vec<crate::calibrate::bands::Breakpoints>>,
}

impl Report for PredictReport {
    const SCHEMA_VERSION: u32 = 1;

    fn notes(&self) -> &[String] {
        &self.notes
    }

    fn table(&self) -> String {
        table::render(self)
    }

    fn csv(&self) -> Option<String> {
        Some(csv::render(self))
    }
}
