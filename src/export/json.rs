//! Reports as JSON: the prediction (README, "File formats"), the evaluation, and the `units`
//! block every JSON report carries.

use serde::Serialize;

/// The units of a report's numbers, spelled out in every JSON report (and in the model file's
/// `calibration`) so that a script never has to guess whether a size is binary or a
/// bandwidth decimal: one struct, so every report says it the same way.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Units {
    pub bandwidth: &'static str,
    pub bytes: &'static str,
    pub time: &'static str,
    pub percent: &'static str,
    pub loss: &'static str,
}

/// The units of every report but `overlap`'s.
pub const UNITS: Units = Units {
    bandwidth: "MB/s (10^6 B/s)",
    bytes: "B",
    time: "s",
    percent: "keys ending in _percent: percent (100 = all)",
    loss: "comp_loss, comm_loss: ratio alone / parallel bandwidth (1 = no loss)",
};

/// `overlap` takes its times from the user, in any unit, and answers in the same one.
pub const UNITS_OF_INPUT_TIMES: Units = Units {
    time: "the unit of the inputs",
    ..UNITS
};

impl Default for Units {
    /// [`UNITS`]: what a model file read back says, whatever it held (the block describes,
    /// it does not configure).
    fn default() -> Self {
        UNITS
    }
}

/// Pretty-printed JSON, newline-terminated.
pub fn render<T: Serialize>(report: &T) -> String {
    // Serializing plain structs of numbers and strings cannot fail.
    let mut s = serde_json::to_string_pretty(report).expect("report serializes");
    s.push('\n');
    s
}
