//! Saved-trace regressions: the inputs kept in `tests/data/` (a real trace of the CI machine,
//! and a CSV sweep that is the paper's model of henri: `tests/data/README.md` says which file
//! is what) and the outputs the tool derived from them (calibrated model, predictions, evaluation) committed beside them in
//! `tests/data/expected/`. Every run recomputes those outputs from the same inputs and fails on
//! any number that moved by more than [`TOLERANCE`] (relative), printing each change with its
//! JSON path.
//!
//! The computations are deterministic, so any drift is a change of the code: if it is
//! intended, regenerate the expected files with `CONTENTION_BLESS=1 cargo test --test
//! integration regression::` and commit them with the change that explains them.

use contention::calibrate::{self, Options};
use contention::cli::PlacementArg;
use contention::commands::predict::build_report;
use contention::evaluate;
use contention::io::{inputs, model_file};
use serde_json::Value;
use std::path::Path;

/// Relative tolerance on every number: far below any measurement's noise, far above the
/// rounding of printing and parsing JSON.
const TOLERANCE: f64 = 1e-9;

/// Keys whose values legitimately change from build to build or run to run.
const VOLATILE: [&str; 3] = ["tool", "date", "git_commit"];

/// Differences between `expected` and `actual`, one line per path.
fn diff(path: &str, expected: &Value, actual: &Value, out: &mut Vec<String>) {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, ev) in e {
                if VOLATILE.contains(&k.as_str()) {
                    continue;
                }
                match a.get(k) {
                    Some(av) => diff(&format!("{path}.{k}"), ev, av, out),
                    None => out.push(format!("{path}.{k}: missing (expected {ev})")),
                }
            }
            for k in a.keys().filter(|k| !e.contains_key(*k)) {
                if !VOLATILE.contains(&k.as_str()) {
                    out.push(format!("{path}.{k}: new field {}", a[k]));
                }
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            if e.len() != a.len() {
                out.push(format!("{path}: {} items, expected {}", a.len(), e.len()));
            }
            for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                diff(&format!("{path}[{i}]"), ev, av, out);
            }
        }
        (Value::Number(e), Value::Number(a)) => {
            let (e, a) = (
                e.as_f64().unwrap_or(f64::NAN),
                a.as_f64().unwrap_or(f64::NAN),
            );
            let scale = e.abs().max(1e-12);
            if (e - a).abs() / scale > TOLERANCE {
                out.push(format!(
                    "{path}: {a} (expected {e}, {:+.3e} relative)",
                    (a - e) / scale
                ));
            }
        }
        (e, a) if e != a => out.push(format!("{path}: {a} (expected {e})")),
        _ => {}
    }
}

/// Compares `actual` with the committed `expected/NAME`, or writes it when blessing.
fn check(name: &str, actual: &impl serde::Serialize) {
    let actual = serde_json::to_value(actual).unwrap();
    let path = Path::new("tests/data/expected").join(name);
    if std::env::var_os("CONTENTION_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut text = serde_json::to_string_pretty(&actual).unwrap();
        text.push('\n');
        std::fs::write(&path, text).unwrap();
        return;
    }
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (CONTENTION_BLESS=1 writes it)", path.display())),
    )
    .unwrap();
    let mut changes = Vec::new();
    diff("", &expected, &actual, &mut changes);
    assert!(
        changes.is_empty(),
        "{} changed ({} difference(s)):\n  {}\nIf intended: CONTENTION_BLESS=1 cargo test --test integration regression::",
        path.display(),
        changes.len(),
        changes.join("\n  ")
    );
}

fn options() -> Options {
    Options {
        date: "fixed".into(),
        ..Options::default()
    }
}

#[test]
fn a_trace_of_this_machine_calibrates_predicts_and_evaluates_as_before() {
    let trace = "tests/data/traces/vm-local.json";
    let data = inputs::read_all(&[trace]).unwrap();
    let (fitted, _) = calibrate::calibrate(&data, &options()).unwrap();
    check("vm-local.model.json", &fitted);
    let report = build_report(
        &fitted.model,
        "vm-local.model.json",
        None,
        PlacementArg::All,
    )
    .unwrap();
    check("vm-local.prediction.json", &report);
    let eval = evaluate::evaluate(&fitted.model, "vm-local.model.json", &data).unwrap();
    check("vm-local.evaluation.json", &eval);
}

#[test]
fn a_tidy_csv_sweep_calibrates_and_predicts_as_before() {
    // The paper's henri predictions for every placement, as another tool would write them.
    let csv = "tests/data/henri-sweep.csv";
    let data = inputs::read_all(&[csv]).unwrap();
    let opts = Options {
        numa_per_socket: Some(1),
        name: Some("henri".into()),
        ..options()
    };
    let (fitted, _) = calibrate::calibrate(&data, &opts).unwrap();
    check("henri-sweep.model.json", &fitted);
    let report = build_report(
        &fitted.model,
        "henri-sweep.model.json",
        None,
        PlacementArg::All,
    )
    .unwrap();
    check("henri-sweep.prediction.json", &report);
    let eval = evaluate::evaluate(&fitted.model, "henri-sweep.model.json", &data).unwrap();
    check("henri-sweep.evaluation.json", &eval);
}

#[test]
fn a_real_16_core_trace_calibrates_to_the_cpu_copy_model_as_before() {
    // Both ranks on one host: calibrate chooses the cpu-copy variant from the transport.
    let trace = "tests/data/real-16core/trace-13cores-shm.json";
    let data = inputs::read_all(&[trace]).unwrap();
    let (fitted, _) = calibrate::calibrate(&data, &options()).unwrap();
    assert_eq!(fitted.model.variant, contention::model::Variant::CpuCopy);
    check("real-16core.model.json", &fitted);
    let name = "real-16core.model.json";
    let report = build_report(&fitted.model, name, None, PlacementArg::All).unwrap();
    check("real-16core.prediction.json", &report);
    let eval = evaluate::evaluate(&fitted.model, name, &data).unwrap();
    check("real-16core.evaluation.json", &eval);
}

#[test]
fn the_shipped_paper_models_still_predict_as_before() {
    for name in contention::model::paper::names() {
        let m = model_file::load(&format!("paper:{name}")).unwrap();
        let report = build_report(&m, name, None, PlacementArg::All).unwrap();
        check(&format!("paper-{name}.prediction.json"), &report);
    }
}

#[test]
fn the_differ_reports_paths_and_ignores_volatile_fields() {
    let e: Value = serde_json::json!({"a": [1.0, {"b": 2.0}], "tool": "x", "s": "k"});
    let a: Value = serde_json::json!({"a": [1.0, {"b": 2.1}], "tool": "y", "s": "k", "n": 1});
    let mut out = Vec::new();
    diff("", &e, &a, &mut out);
    assert_eq!(out.len(), 2, "{out:?}");
    assert!(out[0].starts_with(".a[1].b: 2.1 (expected 2"), "{out:?}");
    assert!(out[1].starts_with(".n: new field"), "{out:?}");
}
