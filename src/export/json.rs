//! Reports as JSON: the prediction (README, "File formats"), the evaluation.

use serde::Serialize;

/// Pretty-printed JSON, newline-terminated.
pub fn render<T: Serialize>(report: &T) -> String {
    // Serializing plain structs of numbers and strings cannot fail.
    let mut s = serde_json::to_string_pretty(report).expect("report serializes");
    s.push('\n');
    s
}
