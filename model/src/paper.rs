//! The parameter tables of the paper's Appendix B (Tables 3-11), one model file per machine,
//! built into the binary so `contention predict --model paper:henri` works on any machine
//! with nothing measured yet, and tests can pin the equations to the paper.

/// `(name, model-file JSON)` for each machine of the paper's Table 1.
pub(crate) const MODELS: [(&str, &str); 9] = [
    ("billy", include_str!("paper/paper-billy.json")),
    ("bora", include_str!("paper/paper-bora.json")),
    ("dahu", include_str!("paper/paper-dahu.json")),
    ("diablo", include_str!("paper/paper-diablo.json")),
    ("grvingt", include_str!("paper/paper-grvingt.json")),
    ("henri", include_str!("paper/paper-henri.json")),
    (
        "henri-subnuma",
        include_str!("paper/paper-henri-subnuma.json"),
    ),
    ("occigen", include_str!("paper/paper-occigen.json")),
    ("pyxis", include_str!("paper/paper-pyxis.json")),
];

/// The JSON of the paper's model for `name`, if the paper has that machine.
pub fn model_json(name: &str) -> Option<&'static str> {
    MODELS.iter().find(|(n, _)| *n == name).map(|(_, j)| *j)
}

/// The machine names, for error messages and `--help`.
pub fn names() -> Vec<&'static str> {
    MODELS.iter().map(|(n, _)| *n).collect()
}

/// The paper's model for `name`, parsed without the I/O layer (no validation, no file name):
/// the equations' tests, and those of the crates above, pin them to the paper's values.
///
/// # Panics
///
/// If the paper has no machine `name` ([`names`] lists them): for tests, where the name is
/// a literal. Users' names go through [`model_json`] and the model-file reader.
pub fn model(name: &str) -> super::Model {
    let json = model_json(name).expect("a machine of the paper");
    serde_json::from_str(json).expect("the paper's model files parse")
}
