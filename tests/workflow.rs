//! The intended workflow, literally: `measure`, `calibrate`, `predict` with no file names in an
//! empty directory, then `check` of the saved trace against the saved model; and `check` as a
//! CI job uses it on the project's saved traces.

use crate::common::run::{command, one_job};
use crate::common::{contention, stderr, stdout, temp_dir};
use std::path::{Path, PathBuf};
use std::process::Output;

/// Runs the binary in `dir`, with no results directory from the environment.
fn run_in(dir: &Path, args: &[&str]) -> Output {
    command()
        .args(args)
        .current_dir(dir)
        .env_remove("CONTENTION_RESULTS")
        .output()
        .expect("binary runs")
}

fn ok(o: &Output, what: &str) {
    assert!(
        o.status.success(),
        "{what}: exit {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        stdout(o),
        stderr(o)
    );
}

fn data(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(rel)
        .display()
        .to_string()
}

#[test]
fn measure_calibrate_predict_check_with_no_file_names() {
    let _one = one_job();
    let dir = temp_dir("workflow");
    // The whole loop of docs/guide.md, as written (the defaults are what is under test).
    let o = run_in(&dir, &["measure", "--numa", "0,0"]);
    ok(&o, "measure --numa 0,0");
    let o = run_in(&dir, &["calibrate"]);
    ok(&o, "calibrate");
    let err = stderr(&o);
    assert!(err.contains("traces: contention-results/"), "{err}");
    assert!(err.contains("wrote contention-results/"), "{err}");
    assert!(stdout(&o).is_empty(), "the model is saved, not printed");
    // The host directory is the one the tool chose; the model is in it.
    let hosts: Vec<_> = std::fs::read_dir(dir.join("contention-results"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(hosts.len(), 1, "one host directory");
    let host_dir = hosts[0].path();
    let model: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(host_dir.join("model.json")).unwrap())
            .unwrap();
    let n = model["machine"]["cores_per_socket"].as_u64().unwrap();
    // Even a 2-core machine sweeps two core counts: the communication core is shared.
    assert!(n >= 2, "a sweep of {n} core count(s) cannot be calibrated");
    let o = run_in(&dir, &["predict", "--ncores", &format!("1..{n}")]);
    ok(&o, "predict");
    let table = stdout(&o);
    assert!(table.contains("placement 0,0 *"), "{table}");
    assert!(
        table.contains("model.json"),
        "the table names the model: {table}"
    );
    let o = run_in(&dir, &["check"]);
    ok(&o, "check of the saved trace against the saved model");
    assert!(stdout(&o).contains("result: PASS"), "{}", stdout(&o));
    // Beyond the model's cores: left out, naming the counts, the model used and what was
    // predicted.
    let o = run_in(&dir, &["predict", "--ncores", &format!("1..{}", n + 2)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains(&format!("{}..{} left out", n + 1, n + 2))
            && err.contains(&format!("predicted 1..{n}"))
            && err.contains("model.json"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn commands_with_nothing_saved_say_what_to_run_first() {
    let dir = temp_dir("workflow-empty");
    for args in [
        &["calibrate"][..],
        &["predict"],
        &["evaluate"],
        &["check"],
        &["plot"],
        &["advise", "--comp-bytes", "1GiB", "--comm-bytes", "64MiB"],
    ] {
        let o = run_in(&dir, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains("contention-results/") && err.contains("contention measure --numa 0,0"),
            "{args:?}: {err}"
        );
    }
    // Nothing was created by failing.
    assert!(!dir.join("contention-results").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_of_the_saved_trace_against_its_own_model_passes() {
    let o = contention(&[
        "check",
        "--model",
        &data("tests/data/expected/vm-local.model.json"),
        &data("tests/data/traces/vm-local.json"),
    ]);
    ok(&o, "check of unchanged data");
    let out = stdout(&o);
    assert!(
        out.contains("from a real node's spread between runs, assumed") && out.contains("PASS"),
        "{out}"
    );
}

/// A copy of the saved model with one parameter scaled, in a file.
fn drifted_model(name: &str, field: &str, factor: f64) -> PathBuf {
    let text = std::fs::read_to_string(data("tests/data/expected/vm-local.model.json")).unwrap();
    let mut m: serde_json::Value = serde_json::from_str(&text).unwrap();
    let v = m["local"][field].as_f64().unwrap();
    m["local"][field] = serde_json::json!(v * factor);
    let path = temp_dir(name).join("model.json");
    std::fs::write(&path, serde_json::to_string(&m).unwrap()).unwrap();
    path
}

#[test]
fn check_fails_on_drift_beyond_the_noise_and_names_the_parameter() {
    // b_seq_comp 20 % off: beyond the trace's noise (about 12 % on the CI VM).
    let model = drifted_model("check-drift", "b_seq_comp", 1.2);
    let o = contention(&[
        "check",
        "--model",
        model.to_str().unwrap(),
        &data("tests/data/traces/vm-local.json"),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let out = stdout(&o);
    assert!(
        out.contains("local.b_seq_comp") && out.contains("FAIL"),
        "{out}"
    );
    // A tolerance wide enough lets it pass: the limit is what decides.
    let o = contention(&[
        "check",
        "--model",
        model.to_str().unwrap(),
        &data("tests/data/traces/vm-local.json"),
        "--tolerance",
        "35",
    ]);
    ok(&o, "check with --tolerance 35");
}

#[test]
fn an_absolute_error_limit_is_an_option() {
    let args = [
        "check",
        "--model",
        &data("tests/data/expected/vm-local.model.json"),
        &data("tests/data/traces/vm-local.json"),
    ];
    let mut strict = args.to_vec();
    strict.extend(["--max-mape", "5"]);
    let o = contention(&strict);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).contains("--max-mape 5"), "{}", stdout(&o));
    let mut bad = args.to_vec();
    bad.extend(["--max-mape", "0"]);
    let o = contention(&bad);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--max-mape 0"), "{}", stderr(&o));
}

#[test]
fn check_honours_csv_and_json() {
    let args = [
        "check",
        "--model",
        &data("tests/data/expected/vm-local.model.json"),
        &data("tests/data/traces/vm-local.json"),
        "--format",
    ];
    let mut csv = args.to_vec();
    csv.push("csv");
    let o = contention(&csv);
    ok(&o, "check --format csv");
    let text = stdout(&o);
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("comp_numa,comm_numa,cores,bandwidth,expected,new,drift_percent,limit_percent,pass")
    );
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!((row[0], row[1], row[8]), ("0", "0", "true"), "{text}");
    let mut json = args.to_vec();
    json.push("json");
    let o = contention(&json);
    ok(&o, "check --format json");
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["pass"], true);
    // One run: the spread between runs a real node showed, said to be assumed.
    assert_eq!(
        v["drift_limit_source"],
        "a real node's spread between runs, assumed"
    );
    // The same machine object as predict's JSON.
    let p = contention(&[
        "predict",
        "--model",
        &data("tests/data/expected/vm-local.model.json"),
        "--format",
        "json",
    ]);
    let p: serde_json::Value = serde_json::from_str(&stdout(&p)).unwrap();
    assert_eq!(v["machine"], p["machine"]);
    assert!(v["tool"]["git_commit"].is_string());
}
