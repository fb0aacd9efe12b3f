//! `calibrate` -> `predict` -> `evaluate` end to end through the binary, on tidy CSV and on
//! trace JSON, and the refusals of insufficient input (exit status 2, the file and the fix
//! named).

use crate::common::{
    add_noise, contention, machine, placement, predicted_rows, stderr, stdout, temp_dir, trace,
    SplitMix64,
};
use contention::io::{model_file, tidy_csv, trace_file};
use contention::model::Model;
use contention::trace::{TidyRow, Trace};
use std::path::{Path, PathBuf};
use std::process::Output;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn henri() -> Model {
    model_file::load("paper:henri").unwrap()
}

/// Every placement of henri at 1..18 cores, 1 % noise.
fn henri_rows(seed: u64) -> Vec<TidyRow> {
    let m = henri();
    let cores: Vec<u32> = (1..=18).collect();
    let mut rows = Vec::new();
    for (c, k) in [(0, 0), (1, 1), (0, 1), (1, 0)] {
        rows.extend(predicted_rows(&m, placement(c, k), &cores));
    }
    add_noise(&mut rows, 0.01, &mut SplitMix64(seed));
    rows
}

/// A trace of henri's placement `(c, k)`, on host `host`.
fn henri_trace(c: u32, k: u32, host: &str, cores: &[u32], rng: &mut SplitMix64) -> Trace {
    let mut rows = predicted_rows(&henri(), placement(c, k), cores);
    add_noise(&mut rows, 0.005, rng);
    trace(machine(host, 18, 1), &rows, 200, 0.05, rng)
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)))
}

#[test]
fn csv_calibrate_predict_evaluate() {
    let dir = temp_dir("calibrate-csv");
    let csv = dir.join("henri-sweep.csv");
    std::fs::write(&csv, tidy_csv::to_string(&henri_rows(7))).unwrap();
    let model = dir.join("model.json");

    let o = contention(&[
        "calibrate",
        s(&csv),
        "--numa-per-socket",
        "1",
        "-o",
        s(&model),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    for needle in [
        "local: placement 0,0 from",
        "remote: placement 1,1 from",
        "of placements 0,0 0,1 1,0 1,1",
        "paper's rules, local:",
        "machine henri-sweep",
        "MAPE",
    ] {
        assert!(err.contains(needle), "{needle} missing from:\n{err}");
    }
    // The model file: the fields predict reads, the record beside them.
    let m = model_file::load(s(&model)).unwrap();
    assert_eq!(m.machine.cores_per_socket, 18);
    assert!(m.remote.is_some());
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    let cal = &v["calibration"];
    assert_eq!(cal["inputs"][0]["path"], s(&csv));
    assert_eq!(cal["inputs"][0]["kind"], "csv");
    assert!(cal["date"].as_str().unwrap().ends_with('Z'));
    assert_eq!(cal["local"]["residuals"].as_array().unwrap().len(), 18);
    assert!(
        cal["remote"]["mape_percent"]["comp_parallel"]
            .as_f64()
            .unwrap()
            < 3.0
    );

    let o = contention(&["predict", "--model", s(&model), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(json(&o)["placements"].as_array().unwrap().len(), 4);

    let o = contention(&[
        "evaluate",
        "--model",
        s(&model),
        s(&csv),
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let e = json(&o);
    for stream in ["comm", "comp"] {
        let t = &e["parallel"][stream];
        assert_eq!(t["n_samples"], 36, "{stream}");
        assert_eq!(t["n_non_samples"], 36, "{stream}");
        for col in ["samples_percent", "non_samples_percent", "all_percent"] {
            let v = t[col].as_f64().unwrap();
            assert!(v > 0.0 && v < 2.0, "{stream} {col}: {v}");
        }
    }
    assert!(e["points_counted"]
        .as_str()
        .unwrap()
        .contains("comm_parallel"));
    assert_eq!(e["sample_placements"], serde_json::json!(["0,0", "1,1"]));

    // Four placements: the leave-one-placement-out error of the two non-sample ones, in
    // the JSON and on the table.
    let cv = &e["cross_validation"];
    assert_eq!(cv["placements"].as_array().unwrap().len(), 2, "{e}");
    assert!(e.get("cross_validation_unavailable").is_none(), "{e}");

    let o = contention(&["evaluate", "--model", s(&model), s(&csv)]);
    assert!(o.status.success());
    let table = stdout(&o);
    assert!(
        table.contains("Table 2") && table.contains("non-samples"),
        "{table}"
    );
    assert!(
        table.contains(
            "leave-one-placement-out (the global fit of these measurements without each \
             non-sample placement)"
        ) && table.contains("0,1        held out comp_parallel"),
        "{table}"
    );
    // Issue 35, item 14: this model was calibrated on this file, so its error there is in
    // sample; the paper's henri never saw it, and its error is not called so.
    assert!(
        table.contains("for this model in sample (its calibration read these files)")
            && table.contains("; in sample"),
        "{table}"
    );
    assert_eq!(e["cross_validation_in_sample"], true, "{e}");
    let o = contention(&["evaluate", "--model", "paper:henri", s(&csv)]);
    assert!(o.status.success(), "{}", stderr(&o));
    for text in [stdout(&o), stderr(&o)] {
        assert!(!text.contains("in sample ("), "{text}");
        assert!(!text.contains("; in sample"), "{text}");
    }
    assert!(
        stdout(&o).contains("for this model (not in sample:")
            && stdout(&o).contains("; this model"),
        "{}",
        stdout(&o)
    );
    let o = contention(&["evaluate", "-m", "paper:henri", s(&csv), "-f", "json"]);
    assert_eq!(json(&o)["cross_validation_in_sample"], false);

    let out = dir.join("errors.csv");
    let o = contention(&[
        "evaluate",
        "-m",
        s(&model),
        s(&csv),
        "-f",
        "csv",
        "-o",
        s(&out),
    ]);
    assert!(o.status.success() && o.stdout.is_empty());
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.starts_with(
        "comp_numa,comm_numa,cores,sample,phase,stream,measured,predicted,ape_percent\n"
    ));
    assert_eq!(text.lines().count(), 1 + 4 * 18 * 4);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn trace_calibrate_predict_evaluate() {
    let dir = temp_dir("calibrate-trace");
    let mut rng = SplitMix64(42);
    let all: Vec<u32> = (1..=18).collect();
    // The remote sweep is sparse: up to past its maxima (7 cores), then the last count.
    let sparse = [1, 2, 3, 4, 5, 6, 7, 8, 18];
    let paths: Vec<PathBuf> = [(0, 0, &all[..]), (1, 1, &sparse[..]), (0, 1, &all[..])]
        .into_iter()
        .map(|(c, k, cores)| {
            let p = dir.join(format!("henri-{c}{k}.json"));
            trace_file::write(&p, &henri_trace(c, k, "henri-3", cores, &mut rng)).unwrap();
            p
        })
        .collect();
    let model = dir.join("model.json");
    let mut args = vec!["calibrate", "-o", s(&model)];
    args.extend(paths.iter().map(|p| s(p)));
    let o = contention(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("measured bandwidths of placements 0,0 0,1 1,1"),
        "the fit uses every placement:\n{}",
        stderr(&o)
    );

    let m = model_file::load(s(&model)).unwrap();
    assert_eq!(m.machine.name, "henri-3");
    assert_eq!((m.machine.numa_nodes, m.machine.numa_per_socket), (2, 1));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    let cal = &v["calibration"];
    assert_eq!(
        cal["measured_machine"]["cpu_model"],
        machine("x", 18, 1).cpu_model
    );
    assert_eq!(cal["inputs"][1]["host"], "henri-3");
    assert_eq!(
        cal["remote"]["cores"],
        serde_json::json!([1, 2, 3, 4, 5, 6, 7, 8, 18])
    );
    // 200 samples spread by 5 % (uniform, sigma 2.9 %): a median known to 0.25 %, within the
    // 1 % floor.
    assert_eq!(cal["local"]["tolerance"]["comp_alone"], 0.01);

    let o = contention(&["predict", "--model", s(&model), "--ncores", "1..18"]);
    assert!(o.status.success(), "{}", stderr(&o));

    let mut args = vec!["evaluate", "--model", s(&model), "--format", "json"];
    args.extend(paths.iter().map(|p| s(p)));
    let o = contention(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let e = json(&o);
    let comm = &e["parallel"]["comm"];
    assert_eq!(comm["n_samples"], 18 + 9);
    assert_eq!(comm["n_non_samples"], 18);
    assert!(
        e["parallel"]["average_percent"].as_f64().unwrap() < 2.0,
        "{e}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn noisy_samples_widen_the_tolerance() {
    let dir = temp_dir("calibrate-noisy");
    let mut rng = SplitMix64(3);
    let all: Vec<u32> = (1..=18).collect();
    let mut paths = Vec::new();
    for (c, k) in [(0, 0), (1, 1)] {
        let rows = predicted_rows(&henri(), placement(c, k), &all);
        // 10 samples per phase spread by 40 %: each median known to about 10 %.
        let t = trace(machine("h", 18, 1), &rows, 10, 0.4, &mut rng);
        let p = dir.join(format!("{c}{k}.json"));
        trace_file::write(&p, &t).unwrap();
        paths.push(p);
    }
    let o = contention(&["calibrate", s(&paths[0]), s(&paths[1])]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    let tol = v["calibration"]["local"]["tolerance"]["comp_alone"]
        .as_f64()
        .unwrap();
    assert!(tol > 0.05, "{tol}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// Runs `args`, expects exit status 2 and every needle in standard error.
fn refused(args: &[&str], needles: &[&str]) {
    let o = contention(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    for n in needles {
        assert!(err.contains(n), "{n} missing from: {err}");
    }
    assert!(o.stdout.is_empty(), "no model on refusal");
}

#[test]
fn insufficient_input_is_refused_naming_the_file_and_the_fix() {
    let dir = temp_dir("calibrate-refusals");
    let mut rng = SplitMix64(9);
    let all: Vec<u32> = (1..=18).collect();
    let write = |name: &str, t: &Trace| {
        let p = dir.join(name);
        trace_file::write(&p, t).unwrap();
        p
    };
    let local = write("local.json", &henri_trace(0, 0, "h1", &all, &mut rng));
    let remote = write("remote.json", &henri_trace(1, 1, "h1", &all, &mut rng));

    // A CSV does not carry the topology.
    let csv = dir.join("sweep.csv");
    std::fs::write(&csv, tidy_csv::to_string(&henri_rows(1))).unwrap();
    refused(
        &["calibrate", s(&csv)],
        &["sweep.csv carry no topology", "--numa-per-socket"],
    );

    // Traces of two different machines.
    let mut other = henri_trace(1, 1, "dahu-7", &all, &mut rng);
    other.machine.cpu_model = "Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz".into();
    let other = write("other.json", &other);
    refused(
        &["calibrate", s(&local), s(&other)],
        &[
            "local.json",
            "other.json",
            "different machines",
            "cpu_model",
        ],
    );

    // No parallel phase at one core count.
    let mut broken = henri_trace(0, 0, "h1", &all, &mut rng);
    broken.points[3].comm_parallel.summary.median = 0.0;
    broken.points[3].comm_parallel.summary.count = 0;
    let broken = write("broken.json", &broken);
    refused(
        &["calibrate", s(&broken), s(&remote)],
        &[
            "broken.json",
            "at 4 cores",
            "comm_parallel",
            "parallel phase",
        ],
    );

    // The remote placement is missing on a two-socket machine.
    refused(
        &["calibrate", s(&local)],
        &["placement 1,1", "local.json", "--local-only"],
    );
    let o = contention(&["calibrate", s(&local), "--local-only"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(json(&o).get("remote").is_none());

    // One core count only.
    let one = write("one.json", &henri_trace(0, 0, "h1", &[8], &mut rng));
    refused(
        &["calibrate", s(&one), s(&remote)],
        &["placement 0,0 (", "one.json", "only one core count (8)"],
    );

    // A command-line topology that contradicts the traces.
    refused(
        &["calibrate", s(&local), s(&remote), "--numa-per-socket", "2"],
        &["--numa-per-socket 2 contradicts", "h1"],
    );

    // A CSV bandwidth that is not a number.
    let nan = dir.join("nan.csv");
    let text = tidy_csv::to_string(&henri_rows(2));
    let mut lines: Vec<&str> = text.lines().collect();
    lines[5] = "0,0,5,NaN,11481.1,22277.0,11481.1";
    std::fs::write(&nan, lines.join("\n")).unwrap();
    let o = contention(&["calibrate", s(&nan), "--numa-per-socket", "1"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("nan.csv: line 6, column comp_alone: `NaN`"),
        "{}",
        stderr(&o)
    );

    // A file that is not there.
    refused(
        &["calibrate", s(&dir.join("absent.json"))],
        &["absent.json"],
    );

    // Evaluating a model with traces of another topology.
    let mut sub = henri_trace(0, 0, "h1", &all, &mut rng);
    sub.machine = machine("h1", 18, 2);
    let sub = write("subnuma.json", &sub);
    refused(
        &["evaluate", "--model", "paper:henri", s(&sub)],
        &["subnuma.json", "2 per socket", "paper:henri"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_hand_typed_model_is_evaluated() {
    // The paper's files carry only the model file's fields.
    let dir = temp_dir("calibrate-hand");
    let csv = dir.join("m.csv");
    std::fs::write(&csv, tidy_csv::to_string(&henri_rows(5))).unwrap();
    let o = contention(&["evaluate", "--model", "paper:henri", s(&csv)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("model paper:henri"));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn help_teaches_units_rules_and_examples() {
    let help = stdout(&contention(&["calibrate", "--help"]));
    for needle in [
        "MB/s",
        "Examples:",
        "--numa-per-socket",
        "plateau's median",
        "N_par^max",
        "comp_numa,comm_numa,cores",
    ] {
        assert!(
            help.contains(needle),
            "{needle} missing from calibrate --help"
        );
    }
    let help = stdout(&contention(&["evaluate", "--help"]));
    for needle in [
        "MAPE",
        "non-samples",
        "Table 2",
        "comp_parallel",
        "ape_percent",
        "Examples:",
    ] {
        assert!(
            help.contains(needle),
            "{needle} missing from evaluate --help"
        );
    }
}

#[test]
fn bootstrap_intervals_reach_predict_and_a_model_without_them_still_loads() {
    let dir = temp_dir("calibrate-intervals");
    let model = dir.join("model.json");
    let csv = "tests/data/henri-sweep.csv";
    let o = contention(&[
        "calibrate",
        csv,
        "--numa-per-socket",
        "1",
        "--bootstrap",
        "20",
        "--seed",
        "7",
        "-o",
        s(&model),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("95 % intervals (20 bootstrap resamples, seed 7; "),
        "{}",
        stderr(&o)
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    assert_eq!(v["uncertainty"]["replicates"].as_array().unwrap().len(), 20);
    // The refits that kept the full fit are counted, in the file and in the table.
    let kept = v["uncertainty"]["kept_full_fit"].as_u64().unwrap();
    assert!(kept <= 20, "{kept}");
    assert!(
        stderr(&o).contains(&format!("; {kept} found nothing better than the full fit")),
        "{}",
        stderr(&o)
    );
    // The breakpoints' intervals are core ranges: whole cores around the fitted value.
    for name in ["n_par_max", "n_seq_max"] {
        let [lo, hi] = [0, 1].map(|i| v["uncertainty"]["local"][name][i].as_f64().unwrap());
        let fitted = v["local"][name].as_f64().unwrap();
        assert!(lo.fract() == 0.0 && hi.fract() == 0.0, "{name} {lo} {hi}");
        assert!(
            lo <= fitted && fitted <= hi,
            "{name} {fitted} outside {lo}..{hi}"
        );
        assert!(
            stderr(&o).contains(&format!("{name} {lo}..{hi} cores")),
            "{}",
            stderr(&o)
        );
    }
    let [lo, hi] = [0, 1].map(|i| v["uncertainty"]["local"]["alpha"][i].as_f64().unwrap());
    assert!(lo <= hi && hi <= 1.0, "{lo} {hi}");
    assert_eq!(v["calibration"]["method"], "fit");

    let o = contention(&[
        "predict",
        "-m",
        s(&model),
        "-p",
        "0,0",
        "-n",
        "1,17",
        "--intervals",
        "-f",
        "csv",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let mut lines = out.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    // The tidy columns, the loss ratios, then each bandwidth's interval.
    assert_eq!(header.len(), 17);
    assert_eq!(header[7..9], ["comp_loss", "comm_loss"]);
    assert_eq!(header[9..11], ["comp_alone_low", "comp_alone_high"]);
    for line in lines {
        let f: Vec<f64> = line.split(',').map(|x| x.parse().unwrap()).collect();
        for q in 0..4 {
            let (v, lo, hi) = (f[3 + q], f[9 + 2 * q], f[10 + 2 * q]);
            assert!(lo <= hi, "{line}");
            // The point prediction of exact data lies within its interval (to the print).
            assert!(lo - 0.1 <= v && v <= hi + 0.1, "{line}");
        }
    }
    let o = contention(&["predict", "-m", s(&model), "--intervals", "-f", "json"]);
    let j: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(j["intervals"].as_array().unwrap().len(), 4);
    // The breakpoints' ranges, as in the model file, in the JSON and on the table.
    let b = &j["breakpoints"][0];
    assert_eq!(b["side"], "local");
    assert_eq!(b["n_par_max"], v["uncertainty"]["local"]["n_par_max"]);
    let o = contention(&["predict", "-m", s(&model), "--intervals"]);
    let [lo, hi] = [0, 1].map(|i| v["uncertainty"]["local"]["n_seq_max"][i].as_f64().unwrap());
    assert!(
        stdout(&o).contains("# local breakpoints: N_par^max "),
        "{}",
        stdout(&o)
    );
    assert!(
        stdout(&o).contains(&format!("N_seq^max {lo}..{hi} cores")),
        "{}",
        stdout(&o)
    );

    // A model on standard input is read once, with its intervals: predict and plot use both.
    let piped = |args: &[&str]| {
        use std::io::Write;
        let mut child = crate::common::run::command()
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let text = std::fs::read(&model).unwrap();
        child.stdin.take().unwrap().write_all(&text).unwrap();
        child.wait_with_output().unwrap()
    };
    let o = piped(&["predict", "-m", "-", "--intervals", "-f", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(j["intervals"].as_array().unwrap().len(), 4);
    // The breakpoints' ranges, as in the model file, in the JSON and on the table.
    let b = &j["breakpoints"][0];
    assert_eq!(b["side"], "local");
    assert_eq!(b["n_par_max"], v["uncertainty"]["local"]["n_par_max"]);
    let o = contention(&["predict", "-m", s(&model), "--intervals"]);
    let [lo, hi] = [0, 1].map(|i| v["uncertainty"]["local"]["n_seq_max"][i].as_f64().unwrap());
    assert!(
        stdout(&o).contains("# local breakpoints: N_par^max "),
        "{}",
        stdout(&o)
    );
    assert!(
        stdout(&o).contains(&format!("N_seq^max {lo}..{hi} cores")),
        "{}",
        stdout(&o)
    );
    let figures = dir.join("figures");
    let o = piped(&["plot", "-m", "-", "--figure", "grid", "-o", s(&figures)]);
    assert!(o.status.success(), "{}", stderr(&o));

    // The documented fields only: predict works, --intervals says what is missing.
    let plain = dir.join("plain.json");
    let mut bare = v.clone();
    for k in ["uncertainty", "calibration"] {
        bare.as_object_mut().unwrap().remove(k);
    }
    std::fs::write(&plain, serde_json::to_string(&bare).unwrap()).unwrap();
    assert!(contention(&["predict", "-m", s(&plain)]).status.success());
    let o = contention(&["predict", "-m", s(&plain), "--intervals"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--bootstrap"), "{}", stderr(&o));
}

/// Issue 43, item 4: `predict --intervals` evaluated a cpu-copy model's refits without
/// `kappa` as the paper's model, and took its intervals without `kappa`'s. Both are refused
/// when the file is read, exit 2, naming the file and what is missing.
#[test]
fn a_cpu_copy_model_without_kappa_in_its_intervals_or_refits_is_refused() {
    let dir = temp_dir("cpu-copy-intervals");
    let mut v: serde_json::Value =
        serde_json::from_str(include_str!("../model/src/paper/paper-henri.json")).unwrap();
    v["variant"] = "cpu-copy".into();
    let mut intervals = serde_json::json!({});
    for side in ["local", "remote"] {
        v[side]["kappa"] = 0.3.into();
        intervals[side] = serde_json::Value::Object(
            v[side]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, x)| (k.clone(), serde_json::json!([x, x])))
                .collect(),
        );
    }
    v["uncertainty"] = serde_json::json!({
        "method": "bootstrap", "resamples": 1, "seed": 1, "level": 0.95,
        "local": intervals["local"], "remote": intervals["remote"],
        "replicates": [{"local": v["local"], "remote": v["remote"]}],
    });
    let write = |name: &str, edit: &dyn Fn(&mut serde_json::Value)| {
        let mut m = v.clone();
        edit(&mut m);
        let path = dir.join(name);
        std::fs::write(&path, m.to_string()).unwrap();
        path
    };
    let whole = write("whole.json", &|_| {});
    let o = contention(&["predict", "-m", s(&whole), "--intervals", "-n", "4"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let drop = |pointers: &'static [&'static str]| {
        move |m: &mut serde_json::Value| {
            for pointer in pointers {
                m.pointer_mut(pointer)
                    .unwrap()
                    .as_object_mut()
                    .unwrap()
                    .remove("kappa");
            }
        }
    };
    for (name, pointers, needle) in [
        // A refit without kappa on either side is a valid paper model: it was used as one.
        (
            "refits.json",
            &[
                "/uncertainty/replicates/0/local",
                "/uncertainty/replicates/0/remote",
            ][..],
            "uncertainty.replicates = 1 of 1 refits: must be of the model's variant",
        ),
        (
            "intervals.json",
            &["/uncertainty/local"],
            "uncertainty.local.kappa: missing",
        ),
    ] {
        let path = write(name, &drop(pointers));
        for args in [
            &["predict", "-m", s(&path), "--intervals"][..],
            &["predict", "-m", s(&path)],
        ] {
            let o = contention(args);
            assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
            let err = stderr(&o);
            assert!(
                err.contains(s(&path)) && err.contains(needle) && err.contains("kappa"),
                "{name}: {err}"
            );
        }
    }
}

#[test]
fn paper_bootstrap_is_refused_and_evaluate_says_why_it_has_no_cross_validation() {
    let dir = temp_dir("calibrate-paper-bootstrap");
    let csv = dir.join("two.csv");
    let two: Vec<TidyRow> = henri_rows(3)
        .into_iter()
        .filter(|r| r.comp_numa == r.comm_numa)
        .collect();
    std::fs::write(&csv, tidy_csv::to_string(&two)).unwrap();
    let model = dir.join("model.json");
    let o = contention(&[
        "calibrate",
        s(&csv),
        "--numa-per-socket",
        "1",
        "--method",
        "paper",
        "--bootstrap",
        "5",
        "-o",
        s(&model),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--bootstrap 5 with --method paper")
            && stderr(&o).contains("use --method fit"),
        "{}",
        stderr(&o)
    );
    assert!(!model.exists());

    let o = contention(&[
        "calibrate",
        s(&csv),
        "--numa-per-socket",
        "1",
        "-o",
        s(&model),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = contention(&["evaluate", "-m", s(&model), s(&csv), "--tolerance", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let why = "leave-one-placement-out: not computed: 2 placement(s) measured";
    assert!(stdout(&o).contains(why), "{}", stdout(&o));
    assert!(stderr(&o).contains(why), "{}", stderr(&o));
    let o = contention(&["evaluate", "-m", s(&model), s(&csv), "-f", "json"]);
    let e = json(&o);
    assert!(e.get("cross_validation").is_none(), "{e}");
    assert!(
        e["cross_validation_unavailable"]
            .as_str()
            .unwrap()
            .starts_with("2 placement(s) measured"),
        "{e}"
    );
}

/// Issue 46, F9: `--bootstrap 82000` ran 7 minutes and wrote a 69 MB model that `predict`
/// refused. Bounded when parsed (exit 2, naming the value, the limit and why), and --help
/// says the bound.
#[test]
fn bootstrap_resamples_are_bounded_when_parsed() {
    for n in ["10001", "82000", "99999999999999999999999"] {
        let o = contention(&["calibrate", "--bootstrap", n, "no-such-trace.json"]);
        assert_eq!(o.status.code(), Some(2), "{n}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(
            e.contains(&format!(
                "{n} resamples is more than the 10000 a model file holds"
            )),
            "{e}"
        );
        assert!(e.contains("64 MiB"), "{e}");
        assert!(!e.contains("no-such-trace"), "{e}");
    }
    let o = contention(&["calibrate", "--bootstrap", "-3", "x.json"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = contention(&["calibrate", "--help"]);
    assert!(stdout(&o).contains("At most 10000"), "{}", stdout(&o));
}

/// Issue 46, F10: the cap of 1,048,576 predictions did not count the bootstrap's refits,
/// each of which predicts every row for the intervals: a model of 1024 NUMA nodes took 3 GB
/// and wrote 1 GB for `predict --ncores 1 --intervals`. Rows x refits are bounded before
/// anything is predicted, the message naming the count and how to narrow it.
#[test]
fn predict_intervals_count_every_refits_predictions_before_computing() {
    let dir = temp_dir("predict-interval-work");
    let (trace, model) = (dir.join("t.json"), dir.join("m.json"));
    let o = contention(&[
        "measure",
        "--simulate",
        "paper:henri",
        "--runs",
        "1",
        "--max-phase",
        "0.05",
        "-q",
        "-o",
        s(&trace),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = contention(&[
        "calibrate",
        "--local-only",
        "--bootstrap",
        "3",
        s(&trace),
        "-o",
        s(&model),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // 32 NUMA nodes on one socket: 1024 placements x 18 core counts, from 240 refits:
    // 4,423,680 predictions, past the 4,194,304 (the rows alone are within the cap).
    let mut j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    j["machine"]["numa_nodes"] = 32.into();
    j["machine"]["numa_per_socket"] = 32.into();
    let one = j["uncertainty"]["replicates"][0].clone();
    j["uncertainty"]["replicates"] = serde_json::Value::Array(vec![one; 240]);
    j["uncertainty"]["resamples"] = 240.into();
    std::fs::write(&model, j.to_string()).unwrap();
    let o = contention(&["predict", "-m", s(&model), "--intervals", "-f", "json"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains(
            "1024 placements x 18 core counts, each predicted by the model file's 240 \
             bootstrap refits, is 4423680 predictions"
        ),
        "{e}"
    );
    assert!(
        e.contains("--placement COMP,COMM") && e.contains("--ncores"),
        "{e}"
    );
    assert!(stdout(&o).is_empty());
    // Without the intervals, or narrowed, it is predicted.
    let o = contention(&["predict", "-m", s(&model), "-n", "1", "-f", "csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = contention(&["predict", "-m", s(&model), "-p", "3,5", "--intervals"]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 46, N5: `calibrate --name $'\u202egnp.'` was accepted (a C0 name was refused only
/// after the fit) and the override was drawn raw in every figure of the model. Every control
/// or invisible format character is refused when parsed, before the inputs are read, and a
/// model file holding one is refused by its readers.
#[test]
fn a_name_with_control_or_format_characters_is_refused() {
    let dir = temp_dir("calibrate-hidden-name");
    let model = dir.join("m.json");
    for c in [
        '\u{202e}', '\u{2066}', '\u{2069}', '\u{200e}', '\u{200f}', '\u{61c}', '\u{feff}', '\u{1}',
        '\u{1b}', '\u{9b}', '\u{ffff}',
    ] {
        let name = format!("{c}gnp.");
        let o = contention(&[
            "calibrate",
            "--name",
            &name,
            "-o",
            s(&model),
            "no-such.json",
        ]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{c:?}: {e}");
        assert!(e.contains("--name"), "{c:?}: {e}");
        assert!(e.contains(&c.escape_unicode().to_string()), "{c:?}: {e}");
        assert!(!e.contains(c) && !e.contains("no-such"), "{c:?}: {e}");
        assert!(!model.exists(), "{c:?}");

        let mut m = serde_json::to_value(henri()).unwrap();
        m["machine"]["name"] = name.clone().into();
        std::fs::write(&model, m.to_string()).unwrap();
        let o = contention(&["predict", "--model", s(&model)]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{c:?}: {e}");
        assert!(e.contains("machine.name"), "{c:?}: {e}");
        std::fs::remove_file(&model).unwrap();

        // A trace's host name, the name's default, the same.
        let trace = dir.join("t.json");
        let cores: Vec<u32> = (1..=18).collect();
        let t = henri_trace(0, 0, &name, &cores, &mut SplitMix64(3));
        trace_file::write(&trace, &t).unwrap_or_else(|e| panic!("{c:?}: {e}"));
        let o = contention(&["calibrate", "--local-only", "-o", s(&model), s(&trace)]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{c:?}: {e}");
        assert!(e.contains("machine.hostname"), "{c:?}: {e}");
        assert!(!model.exists(), "{c:?}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Issue 46, N8: `calibrate --bootstrap 2000 -o /dev/null` (or `nodir/m.json`,
/// `afile/m.json`) fitted for 10 s, then could not write. Refused before the inputs are even
/// read (the missing input is not the error), exit 2, naming the path and the fix; nothing
/// created.
#[test]
fn an_output_that_cannot_be_written_is_refused_before_the_fit() {
    let dir = temp_dir("calibrate-bad-output");
    let file = dir.join("afile");
    std::fs::write(&file, "x").unwrap();
    let sub = dir.join("sub");
    for (out, says) in [
        ("/dev/null".to_string(), "is a character device"),
        (s(&dir).to_string(), "is a directory, not a regular file"),
        (s(&dir.join("nodir/m.json")).to_string(), "the directory `"),
        (
            s(&file.join("m.json")).to_string(),
            "afile` is a regular file, not a directory",
        ),
        (
            s(&file.join("deeper/m.json")).to_string(),
            "afile` is a regular file, not a directory",
        ),
    ] {
        let o = contention(&[
            "calibrate",
            "--bootstrap",
            "2000",
            "-o",
            &out,
            "no-such-trace.json",
        ]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{out}: {e}");
        assert!(e.contains(&format!("-o: `{out}`")), "{out}: {e}");
        assert!(e.contains(says), "{out}: {e}");
        assert!(!e.contains("no-such-trace"), "{out}: {e}");
    }
    assert!(!dir.join("nodir").exists() && !sub.exists());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
    std::fs::remove_dir_all(dir).unwrap();
}

/// Copies that never fall beside the computations (alpha = 1): a law of communications in
/// parallel then shapes nothing, and its parameters, left where the fit started, are said
/// to be not pinned down rather than reported as if measured.
#[test]
fn a_law_the_data_never_exercise_is_named_as_not_pinned_down() {
    let d = temp_dir("calibrate-flat-copies");
    let mut csv = String::from(
        "comp_numa,comm_numa,cores,comp_alone,comm_alone,comp_parallel,comm_parallel\n",
    );
    for n in 1..=14u32 {
        let comp = 20_000.0 * f64::from(n).min(8.0);
        for wiggle in [0.997, 1.003] {
            csv += &format!(
                "0,0,{n},{},{},{},{}\n",
                comp * wiggle,
                55_000.0 * wiggle,
                comp * wiggle,
                55_000.0 * wiggle
            );
        }
    }
    let input = d.join("flat.csv");
    std::fs::write(&input, csv).unwrap();
    let out = d.join("m.json");
    let o = contention(&[
        "calibrate",
        "--model",
        "knee",
        "--numa-per-socket",
        "1",
        "--local-only",
        s(&input),
        "-o",
        s(&out),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let said = stderr(&o) + &stdout(&o);
    for p in ["half_load", "steepness"] {
        assert!(
            said.contains(&format!(
                "cannot pin down local.{p}: the communications never fell below their \
                 bandwidth alone (alpha = 1)"
            )),
            "{p}: {said}"
        );
    }
    std::fs::remove_dir_all(d).unwrap();
}
