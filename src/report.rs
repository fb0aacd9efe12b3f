//! The typed result of `predict`, shared by its table, JSON and CSV writers (`export/`).

use crate::model::{Machine, PlacementPrediction};
use crate::provenance::Provenance;
use serde::Serialize;

/// Version of the prediction report's JSON layout.
pub const REPORT_SCHEMA_VERSION: u32 = 1;

/// A prediction for some placements and core counts, with what produced it.
#[derive(Debug, Clone, Serialize)]
pub struct PredictReport {
    pub schema_version: u32,
    /// The build that computed it.
    pub tool: Provenance,
    /// The model file as the user named it (`paper:NAME` for a built-in one).
    pub model: String,
    /// The machine the model describes.
    pub machine: Machine,
    /// What the numbers are in ([`crate::export::json::UNITS`]).
    pub units: crate::export::json::Units,
    /// Remarks the user should see (e.g. placements left out for want of `remote`).
    pub notes: Vec<String>,
    pub placements: Vec<PlacementPrediction>,
    /// 95 % intervals of every predicted bandwidth (`predict --intervals`), from the model
    /// file's bootstrap replicates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intervals: Option<Vec<crate::calibrate::bands::PlacementIntervals>>,
}
