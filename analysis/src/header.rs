//! The fields every report's JSON opens with, typed once and flattened into each report
//! (docs/formats.md, "Reports"): [`Header`] (which layout, which build) in all of them, and
//! [`About`] (which model, which machine, in which units) in those that read a model file.
//! Flattening keeps the JSON as it was, each field at its place among the report's own; the
//! reports only serialize, so none of serde's limits on reading flattened fields applies.

use crate::model::{Machine, Model, Variant};
use crate::provenance::Provenance;
use crate::units::Units;
use serde::Serialize;

/// `schema_version` and `tool`, the first two fields of every report: a script checks the
/// version before trusting the other keys, and a number can be traced to the build that
/// computed it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Header {
    /// The report's layout version: its `Report::SCHEMA_VERSION`.
    pub(crate) schema_version: u32,
    /// The build that wrote the report.
    pub tool: Provenance,
}

impl Header {
    /// The header of a report of layout `schema_version`, written by this build.
    pub fn new(schema_version: u32) -> Self {
        Header {
            schema_version,
            tool: Provenance::current(),
        }
    }
}

/// What a report computed from a model file is about: the file as the user named it, the
/// machine it describes, which model it holds, and the units of the numbers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct About {
    /// The model file as the user named it (`paper:NAME` for a built-in one).
    pub model: String,
    /// The machine the model describes.
    pub machine: Machine,
    /// Which model the file holds; written only when not the paper's.
    #[serde(skip_serializing_if = "Variant::is_paper")]
    pub variant: Variant,
    /// What the numbers are in ([`crate::units::UNITS`]).
    pub(crate) units: Units,
}

impl About {
    /// `model`, read from the file the user named `source`, with the tool's units.
    pub fn of(model: &Model, source: &str) -> Self {
        About {
            model: source.to_string(),
            machine: model.machine.clone(),
            variant: model.variant,
            units: crate::units::UNITS,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report's JSON keeps its first keys in the order of docs/formats.md, flattened (no
    /// `header` or `about` object), with `variant` only for a model other than the paper's.
    #[test]
    fn a_report_opens_with_the_header_and_about_fields_in_order() {
        #[derive(Serialize)]
        struct Report {
            #[serde(flatten)]
            header: Header,
            #[serde(flatten)]
            about: About,
            inputs: Vec<String>,
        }
        let mut model = crate::io::model_file::load("paper:henri").unwrap();
        let keys = |model: &Model| {
            let r = Report {
                header: Header::new(7),
                about: About::of(model, "paper:henri"),
                inputs: Vec::new(),
            };
            let json = serde_json::to_string(&r).unwrap();
            let v: serde_json::Value = serde_json::from_str(&json).unwrap();
            let mut keys: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
            keys.sort_by_key(|k| json.find(&format!("\"{k}\":")).unwrap());
            (keys, v)
        };
        let (paper, v) = keys(&model);
        assert_eq!(
            paper,
            [
                "schema_version",
                "tool",
                "model",
                "machine",
                "units",
                "inputs"
            ]
        );
        assert_eq!(v["schema_version"], 7);
        assert_eq!(v["machine"]["name"], model.machine.name.as_str());
        model.variant = Variant::CpuCopy;
        let (cpu_copy, v) = keys(&model);
        assert_eq!(
            cpu_copy,
            [
                "schema_version",
                "tool",
                "model",
                "machine",
                "variant",
                "units",
                "inputs"
            ]
        );
        assert_eq!(v["variant"], "cpu-copy");
    }
}
