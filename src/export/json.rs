//! The prediction as JSON (DESIGN.md, "predict --format json").

use crate::report::PredictReport;

/// Pretty-printed JSON, newline-terminated.
pub fn render(report: &PredictReport) -> String {
    // Serializing plain structs of numbers and strings cannot fail.
    let mut s = serde_json::to_string_pretty(report).expect("report serializes");
    s.push('\n');
    s
}
