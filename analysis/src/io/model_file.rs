//! Reading a model file (docs/formats.md, "Model file") into a validated [`Model`].
//!
//! Every refusal names the file, the field (`local.alpha`) and the rule, so a user fixing a
//! hand-typed file knows where to look.

use crate::error::{Error, Result};
use crate::model::{paper, Model, Problem};
use std::fmt;
use std::path::Path;

/// A model file that was read but breaks the schema or a rule of the model: the input the
/// user named is theirs to fix (exit 2).
#[derive(Debug)]
pub(crate) struct InvalidModel {
    /// The file as the user named it (`paper:NAME` for a built-in model).
    pub(crate) source: String,
    pub(crate) problems: Vec<Problem>,
}

impl fmt::Display for InvalidModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "model file `{}` is invalid:", self.source)?;
        for p in &self.problems {
            write!(f, "\n  {p}")?;
        }
        write!(
            f,
            "\nA model file holds schema_version, machine and the ten parameters of `local` \
             (and `remote`); see `contention predict --help`."
        )?;
        if self
            .problems
            .iter()
            .any(|p| p.field.starts_with("uncertainty"))
        {
            write!(
                f,
                "\nIts optional `uncertainty` block is what `contention calibrate --bootstrap N` \
                 writes: compute it again, or remove it to use the model without intervals."
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for InvalidModel {}
crate::wrap!(Input: InvalidModel);

/// Prefix that names a model built into the binary (the paper's tables) instead of a file.
pub(crate) const PAPER_PREFIX: &str = "paper:";

/// Loads `spec`: a path, `-` for standard input, or `paper:NAME` for one of the paper's
/// machines.
pub fn load(spec: &str) -> Result<Model> {
    parse(&text_of(spec)?, spec)
}

/// A model file with what else it says beside the model, for the commands that use it.
#[derive(Debug)]
pub struct Loaded {
    pub model: Model,
    /// Its bootstrap intervals (the optional `uncertainty` object written by `calibrate
    /// --bootstrap N`); `None` for a file without them or a built-in model.
    pub uncertainty: Option<crate::model::Uncertainty>,
    /// The simulated machine its calibration's measurements were drawn from, as
    /// `calibration.measured_machine.simulated` (when `calibrate` read a trace) or
    /// `calibration.inputs[].simulated` (every input, CSVs included) name it; `None` for a
    /// model of real measurements, a hand-typed file or a built-in model (the paper measured
    /// real machines).
    pub origin: Option<String>,
}

/// Loads `spec` as [`load`] does, with its intervals and origin ([`Loaded`]), from one read:
/// standard input can be read only once. Refuses a file whose marks of origin name two
/// machines.
pub fn load_all(spec: &str) -> Result<Loaded> {
    parse_all(&text_of(spec)?, spec)
}

/// Parses model-file JSON as [`load_all`] reads a file (a fleet report's `nodes[].model`);
/// `source` names it in errors.
pub(crate) fn parse_all(text: &str, source: &str) -> Result<Loaded> {
    let (model, uncertainty) = parse_with_uncertainty(text, source)?;
    Ok(Loaded {
        model,
        uncertainty,
        origin: origin(text, source)?,
    })
}

/// The simulated machine a model file's `calibration` names ([`Loaded::origin`]); a file
/// whose marks name two machines was edited or is corrupt, and is refused rather than read
/// on one mark's word.
fn origin(text: &str, spec: &str) -> Result<Option<String>> {
    #[derive(serde::Deserialize)]
    struct Marked {
        simulated: Option<String>,
    }
    #[derive(serde::Deserialize)]
    struct Calibration {
        measured_machine: Option<Marked>,
        #[serde(default)]
        inputs: Vec<Marked>,
    }
    #[derive(serde::Deserialize)]
    struct Only {
        calibration: Option<Calibration>,
    }
    // The model parsed: a calibration block that does not is no origin to speak of.
    let Some(c) = serde_json::from_str::<Only>(text)
        .ok()
        .and_then(|o| o.calibration)
    else {
        return Ok(None);
    };
    let mut marks = c.measured_machine.into_iter().chain(c.inputs);
    let Some(first) = marks.find_map(|m| m.simulated) else {
        return Ok(None);
    };
    match marks.find_map(|m| m.simulated.filter(|s| *s != first)) {
        None => Ok(Some(first)),
        Some(other) => Err(Error::Input(format!(
            "model file `{}`: its calibration names two simulated machines, `{}` and `{}`; \
             one model describes one machine, so the file was edited or is corrupt: \
             calibrate it again",
            crate::error::escape(spec),
            crate::error::escape(&first),
            crate::error::escape(&other)
        ))),
    }
}

/// The MPI stacks of the traces a calibrated model file came from
/// (`calibration.inputs[].stack`), sorted and each once; empty for a hand-typed file, one
/// calibrated from CSV or from traces that do not record their stack, or `paper:NAME`.
pub fn input_stacks(spec: &str) -> Vec<String> {
    let mut stacks: Vec<String> = calibration_inputs(spec)
        .into_iter()
        .filter_map(|i| i.stack)
        .collect();
    stacks.sort();
    stacks.dedup();
    stacks
}

/// The noise between runs a calibrated model file records (`calibration.run_spread`);
/// `None` for a model of one run, a hand-typed file or `paper:NAME`. Refused (exit 2, naming
/// the file and the value) when a spread is not a finite standard deviation of at most 1 (a
/// factor of e between runs) or its runs are not 1 to `measure`'s most: `check` would draw
/// its drift limit from it.
///
/// A `run_spread` of the wrong shape (a string, a runs count of 2.5 or 1e308, a spread of
/// `"x"` or `null`) is refused the same way, naming the field: read as a whole and dropped
/// on any mistake, it let `check` take another limit (issue 46, F13). `run_spread` absent or
/// `null` is a model without it.
pub fn run_spread(spec: &str) -> Result<Option<crate::calibrate::spread::RunSpread>> {
    let Ok(text) = text_of(spec) else {
        return Ok(None);
    };
    // The model itself is read and judged elsewhere; only `calibration.run_spread` is ours.
    let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Ok(None);
    };
    let Some(spread) = v
        .get("calibration")
        .and_then(|c| c.get("run_spread"))
        .filter(|s| !s.is_null())
    else {
        return Ok(None);
    };
    let s: crate::calibrate::spread::RunSpread =
        serde_path_to_error::deserialize(spread).map_err(|e| {
            let path = e.path().to_string();
            let field = if path == "." {
                "calibration.run_spread".to_string()
            } else {
                format!("calibration.run_spread.{path}")
            };
            Error::Input(format!(
                "{}: {}: {}; the file was edited: calibrate again",
                crate::error::escape(spec),
                crate::error::clip(&field),
                crate::error::item(&crate::error::escape_line(&e.into_inner().to_string()))
            ))
        })?;
    let names = ["comp_alone", "comm_alone", "comp_parallel", "comm_parallel"];
    for (name, spread) in names.iter().zip(s.streams()) {
        for (part, v) in [("run", spread.run), ("point", spread.point)] {
            if !(v.is_finite() && (0.0..=1.0).contains(&v)) {
                return Err(Error::Input(format!(
                    "{}: calibration.run_spread.{name}.{part} = {}: a standard deviation of \
                     log bandwidths between runs, 0 to 1; the file was edited: calibrate again",
                    crate::error::escape(spec),
                    crate::units::short_number(v)
                )));
            }
        }
    }
    if !(1..=crate::runs::MAX_RUNS).contains(&s.runs) {
        return Err(Error::Input(format!(
            "{}: calibration.run_spread.runs = {}: 1 to {}; the file was edited: calibrate again",
            crate::error::escape(spec),
            s.runs,
            crate::runs::MAX_RUNS
        )));
    }
    Ok(Some(s))
}

/// The files a calibrated model file was fitted to (`calibration.inputs[].path`, as the
/// `calibrate` command line named them); empty for a hand-typed file or `paper:NAME`.
pub fn input_paths(spec: &str) -> Vec<String> {
    calibration_inputs(spec)
        .into_iter()
        .filter_map(|i| i.path)
        .collect()
}

/// What a model file records of one input of its calibration.
#[derive(serde::Deserialize)]
struct InputRecord {
    path: Option<String>,
    stack: Option<String>,
}

/// `calibration.inputs` of the model file `spec`; empty when it has none or cannot be read
/// (the model itself is read, and refused, by [`load`]).
fn calibration_inputs(spec: &str) -> Vec<InputRecord> {
    #[derive(serde::Deserialize)]
    struct Calibration {
        #[serde(default)]
        inputs: Vec<InputRecord>,
    }
    #[derive(serde::Deserialize)]
    struct Only {
        calibration: Option<Calibration>,
    }
    let Ok(text) = text_of(spec) else {
        return Vec::new();
    };
    serde_json::from_str::<Only>(&text)
        .ok()
        .and_then(|o| o.calibration)
        .map(|c| c.inputs)
        .unwrap_or_default()
}

/// The JSON of `spec`: a built-in model's, or the file's (read with the input bounds of
/// [`crate::io::read`]).
fn text_of(spec: &str) -> Result<std::borrow::Cow<'static, str>> {
    if let Some(name) = spec.strip_prefix(PAPER_PREFIX) {
        let json = paper::model_json(name).ok_or_else(|| {
            Error::Input(format!(
                "the paper has no machine `{name}`; built-in models are {}",
                paper::names()
                    .iter()
                    .map(|n| format!("{PAPER_PREFIX}{n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
        return Ok(json.into());
    }
    Ok(crate::io::read::text(Path::new(spec), "model file")?.into())
}

/// The `uncertainty` object of a model file's `text`, if it has one.
fn uncertainty(text: &str, spec: &str) -> Result<Option<crate::model::Uncertainty>> {
    #[derive(serde::Deserialize)]
    struct Only {
        uncertainty: Option<crate::model::Uncertainty>,
    }
    let de = &mut serde_json::Deserializer::from_str(text);
    let only: Only = serde_path_to_error::deserialize(de).map_err(|e| InvalidModel {
        source: spec.to_string(),
        problems: vec![schema_problem(&e)],
    })?;
    Ok(only.uncertainty)
}

/// Parses and validates model-file JSON; `source` names it in errors.
pub fn parse(text: &str, source: &str) -> Result<Model> {
    Ok(parse_with_uncertainty(text, source)?.0)
}

/// Parses and validates model-file JSON and its optional `uncertainty` block: a file whose
/// intervals break their rules is refused whichever command reads it, as one whose
/// parameters do.
fn parse_with_uncertainty(
    text: &str,
    source: &str,
) -> Result<(Model, Option<crate::model::Uncertainty>)> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let model: Model = serde_path_to_error::deserialize(de).map_err(|e| InvalidModel {
        source: source.to_string(),
        problems: vec![schema_problem(&e)],
    })?;
    let uncertainty = uncertainty(text, source)?;
    let mut problems = model.problems();
    // The intervals are checked against a model that meets its rules (its machine bounds
    // the core counts).
    if let (true, Some(u)) = (problems.is_empty(), &uncertainty) {
        problems = u.problems(&model);
    }
    if problems.is_empty() {
        Ok((model, uncertainty))
    } else {
        Err(InvalidModel {
            source: source.to_string(),
            problems,
        }
        .into())
    }
}

/// Turns a serde error into a [`Problem`] naming the field: serde reports a missing field
/// against its parent object, so the field's own name is appended to the path.
fn schema_problem(e: &serde_path_to_error::Error<serde_json::Error>) -> Problem {
    let path = e.path().to_string();
    let msg = e.inner().to_string();
    let missing = msg
        .strip_prefix("missing field `")
        .and_then(|rest| rest.split_once('`'))
        .map(|(name, _)| name.to_string());
    let field = match (&missing, path.as_str()) {
        (Some(name), "." | "") => name.clone(),
        (Some(name), parent) => format!("{parent}.{name}"),
        (None, "." | "") => "(file)".to_string(),
        (None, p) => p.to_string(),
    };
    let rule = match missing {
        Some(_) => format!("required field is missing ({msg})"),
        None => msg,
    };
    Problem {
        field,
        value: String::new(),
        rule,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HENRI: &str = include_str!("../../../model/src/paper/paper-henri.json");

    fn problems(text: &str) -> Vec<String> {
        let err = parse(text, "m.json").expect_err("an invalid model");
        assert_eq!(err.exit_code(), crate::error::EXIT_INPUT);
        let Error::Module { err, .. } = err else {
            panic!("expected a module error, got {err:?}");
        };
        let invalid = err.downcast_ref::<InvalidModel>().expect("an InvalidModel");
        assert_eq!(invalid.source, "m.json");
        invalid.problems.iter().map(|p| p.to_string()).collect()
    }

    /// A model's origin is what any of its marks names (a model of simulated CSVs alone has
    /// no measured machine); two marks naming different machines are refused.
    #[test]
    fn the_origin_is_any_mark_and_two_machines_are_refused() {
        let with =
            |calibration: &str| origin(&format!("{{\"calibration\": {calibration}}}"), "m.json");
        assert_eq!(with("{}").unwrap(), None);
        assert_eq!(origin(HENRI, "paper:henri").unwrap(), None);
        let csv_only = r#"{"measured_machine": null, "inputs": [{"simulated": "paper:henri"}]}"#;
        assert_eq!(with(csv_only).unwrap().as_deref(), Some("paper:henri"));
        let trace = r#"{"measured_machine": {"simulated": "paper:henri"}, "inputs": [{}]}"#;
        assert_eq!(with(trace).unwrap().as_deref(), Some("paper:henri"));
        let two = r#"{"measured_machine": {"simulated": "paper:henri"},
                      "inputs": [{"simulated": "paper:henri"}, {"simulated": "realistic:henri"}]}"#;
        let e = with(two).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(
            e.to_string()
                .contains("names two simulated machines, `paper:henri` and `realistic:henri`"),
            "{e}"
        );
    }

    /// henri with an `uncertainty` block (its values as zero-width intervals, itself as the
    /// one replicate), then `edit` applied to the JSON.
    fn with_uncertainty(edit: impl Fn(&mut serde_json::Value)) -> String {
        use crate::model::{ParamIntervals, Replicate, Uncertainty};
        let m = paper::model("henri");
        let u = Uncertainty {
            method: "bootstrap".into(),
            resamples: 1,
            kept_full_fit: Some(0),
            seed: 1,
            level: 0.95,
            local: ParamIntervals::point(&m.local),
            remote: m.remote.as_ref().map(ParamIntervals::point),
            replicates: vec![Replicate {
                local: m.local,
                remote: m.remote,
            }],
        };
        let mut v: serde_json::Value = serde_json::from_str(HENRI).unwrap();
        v["uncertainty"] = serde_json::to_value(&u).unwrap();
        edit(&mut v);
        v.to_string()
    }

    /// Issue 35, item 5: intervals upside down, beyond the socket or the parameter's range, a
    /// level of -1, no resample and no replicate were all accepted, and `predict --intervals`
    /// printed a 309-digit core range or `NaN..NaN`.
    #[test]
    fn the_uncertainty_block_is_validated_naming_field_value_and_fix() {
        use serde_json::json;
        assert!(parse(&with_uncertainty(|_| {}), "m.json").is_ok());
        let set = |pointer: &'static str, value: serde_json::Value| {
            move |v: &mut serde_json::Value| *v.pointer_mut(pointer).unwrap() = value.clone()
        };
        let n_par = "/uncertainty/local/n_par_max";
        type Edit = Box<dyn Fn(&mut serde_json::Value)>;
        let cases: Vec<(Edit, &str, &str)> = vec![
            (
                Box::new(set(n_par, json!([1e308, -1e308]))),
                "uncertainty.local.n_par_max = [1e308, -1e308]",
                "low <= high",
            ),
            (
                Box::new(set(n_par, json!([18, 1]))),
                "n_par_max = [18, 1]",
                "low <= high",
            ),
            (
                Box::new(set(n_par, json!([-1, -1]))),
                "n_par_max = [-1, -1]",
                ">= 1",
            ),
            (
                Box::new(set(n_par, json!([0.5, 0.7]))),
                "n_par_max = [0.5, 0.7]",
                ">= 1",
            ),
            (
                Box::new(set(n_par, json!([1, 19]))),
                "n_par_max = [1, 19]",
                "(18)",
            ),
            (
                Box::new(set(n_par, json!([1.5, 3]))),
                "n_par_max = [1.5, 3]",
                "whole",
            ),
            (
                Box::new(set("/uncertainty/remote/n_seq_max", json!([0, 3]))),
                "uncertainty.remote.n_seq_max",
                ">= 1",
            ),
            (
                Box::new(set("/uncertainty/local/t_par_max", json!([-5.0, 1e5]))),
                "uncertainty.local.t_par_max = [-5, 100000]",
                "> 0",
            ),
            (
                Box::new(set("/uncertainty/local/alpha", json!([0.5, 1.5]))),
                "uncertainty.local.alpha",
                "(0, 1]",
            ),
            (
                Box::new(set("/uncertainty/local/delta_r", json!([-1e300, 1.0]))),
                "uncertainty.local.delta_r = [-1e300, 1]",
                "finite",
            ),
            (
                Box::new(set("/uncertainty/level", json!(-1))),
                "uncertainty.level = -1",
                "(0, 1)",
            ),
            (
                Box::new(set("/uncertainty/level", json!(1))),
                "uncertainty.level = 1",
                "(0, 1)",
            ),
            (
                Box::new(set("/uncertainty/resamples", json!(0))),
                "uncertainty.resamples = 0",
                "calibrate --bootstrap",
            ),
            (
                Box::new(set("/uncertainty/kept_full_fit", json!(2))),
                "uncertainty.kept_full_fit = 2",
                "resamples (1)",
            ),
            (
                Box::new(set("/uncertainty/replicates", json!([]))),
                "uncertainty.replicates",
                "calibrate --bootstrap",
            ),
            (
                Box::new(set("/uncertainty/replicates/0/local/alpha", json!(5.0))),
                "uncertainty.replicates",
                "none of the 1",
            ),
            (
                Box::new(|v: &mut serde_json::Value| {
                    v["uncertainty"]["local"]["kappa"] = json!([0.1, 0.2]);
                }),
                "uncertainty.local.kappa = [0.1, 0.2]",
                "no kappa",
            ),
            (
                Box::new(|v: &mut serde_json::Value| {
                    v.as_object_mut().unwrap().remove("remote");
                }),
                "uncertainty.remote",
                "no `remote`",
            ),
        ];
        for (edit, field, rule) in cases {
            let p = problems(&with_uncertainty(edit));
            assert!(
                p.iter().any(|p| p.contains(field) && p.contains(rule)),
                "{field} ({rule}) not named in {p:?}"
            );
            assert!(p.iter().all(|p| p.len() < 400), "{p:?}");
        }
    }

    /// Issue 43, item 4: a cpu-copy model whose refits carry no `kappa` had them evaluated
    /// as the paper's model by `predict --intervals` (an interval of communications in
    /// parallel a third too wide), and its intervals without `kappa`'s validated.
    #[test]
    fn a_cpu_copy_model_s_intervals_and_refits_must_carry_kappa() {
        let cpu_copy = |v: &mut serde_json::Value| {
            v["variant"] = "cpu-copy".into();
            for side in ["local", "remote"] {
                v[side]["kappa"] = 0.3.into();
                v["uncertainty"][side]["kappa"] = serde_json::json!([0.3, 0.3]);
                v["uncertainty"]["replicates"][0][side]["kappa"] = 0.3.into();
            }
        };
        assert!(parse(&with_uncertainty(cpu_copy), "m.json").is_ok());
        let without = |pointer: &'static str| {
            with_uncertainty(move |v| {
                cpu_copy(v);
                let (parent, key) = pointer.rsplit_once('/').unwrap();
                v.pointer_mut(parent)
                    .unwrap()
                    .as_object_mut()
                    .unwrap()
                    .remove(key);
            })
        };
        for side in ["local", "remote"] {
            let p = problems(&without(match side {
                "local" => "/uncertainty/local/kappa",
                _ => "/uncertainty/remote/kappa",
            }));
            assert!(
                p.iter().any(
                    |p| p.starts_with(&format!("uncertainty.{side}.kappa: missing"))
                        && p.contains("cpu-copy")
                ),
                "{side}: {p:?}"
            );
        }
        // Refits without kappa on either side are valid paper models: they were used as such.
        let p = problems(&with_uncertainty(|v| {
            cpu_copy(v);
            for side in ["local", "remote"] {
                let r = &mut v["uncertainty"]["replicates"][0][side];
                r.as_object_mut().unwrap().remove("kappa");
            }
        }));
        assert!(
            p.iter()
                .any(|p| p.starts_with("uncertainty.replicates = 1 of 1 refits")
                    && p.contains("kappa")
                    && p.contains("cpu-copy")),
            "{p:?}"
        );
        // The other way round: a paper model's refits with kappa would be evaluated as
        // cpu-copy models.
        let p = problems(&with_uncertainty(|v| {
            v["uncertainty"]["replicates"][0]["local"]["kappa"] = 0.3.into();
        }));
        assert!(
            p.iter()
                .any(|p| p.starts_with("uncertainty.replicates = 1 of 1 refits")
                    && p.contains("kappa")),
            "{p:?}"
        );
    }

    #[test]
    fn paper_models_load() {
        for name in paper::names() {
            let m = load(&format!("paper:{name}")).unwrap();
            assert_eq!(m.machine.name, name);
        }
        let err = load("paper:nope").unwrap_err().to_string();
        assert!(err.contains("paper:henri"), "{err}");
    }

    #[test]
    fn missing_field_is_named_with_its_path() {
        let text = HENRI.replacen("\"alpha\": 0.915,", "", 1);
        let p = problems(&text);
        assert_eq!(p.len(), 1);
        assert!(
            p[0].starts_with("local.alpha: required field is missing"),
            "{p:?}"
        );
    }

    #[test]
    fn mistyped_field_is_named() {
        let p = problems(&HENRI.replacen("\"n_par_max\": 17", "\"n_par_max\": \"17\"", 1));
        assert!(p[0].starts_with("local.n_par_max: invalid type"), "{p:?}");
        let p = problems(&HENRI.replacen("\"n_par_max\": 17", "\"n_par_max\": 17.5", 1));
        assert!(p[0].starts_with("local.n_par_max"), "{p:?}");
    }

    #[test]
    fn rule_violations_are_all_listed() {
        let text = HENRI
            .replacen("\"alpha\": 0.915", "\"alpha\": 1.5", 1)
            .replacen("\"b_seq_comp\": 4455.2", "\"b_seq_comp\": -1", 1);
        let p = problems(&text);
        assert_eq!(p.len(), 2, "{p:?}");
        assert!(p[0].starts_with("local.alpha = 1.5"));
        assert!(p[1].starts_with("remote.b_seq_comp = -1"));
    }

    #[test]
    fn out_of_range_numbers_and_extra_fields() {
        // JSON has no NaN or infinity; an overflowing literal is refused by the parser.
        let p = problems(&HENRI.replacen("73423.0", "1e999", 1));
        assert!(p[0].contains("local.t_par_max"), "{p:?}");
        // More fields are allowed (the format allows more fields).
        let extra = HENRI.replacen("{", "{\"provenance\": {\"by\": \"hand\"},", 1);
        assert!(parse(&extra, "m.json").is_ok());
        // A model without remote is valid (single socket).
        let m: serde_json::Value = serde_json::from_str(HENRI).unwrap();
        let mut m = m.as_object().unwrap().clone();
        m.remove("remote");
        assert!(parse(&serde_json::to_string(&m).unwrap(), "m.json")
            .unwrap()
            .remote
            .is_none());
    }
}
