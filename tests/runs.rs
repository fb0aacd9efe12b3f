//! `measure --runs R`: the sweep repeated as separate launches in shuffled orders, kept in
//! the trace, resumed in the run it stopped in; and `calibrate`, `predict --intervals` and
//! `check` reading the runs (on a simulated machine, whose runs differ as a real node's do).

use crate::common::run::{contention, stderr, temp_dir};
use contention::io::trace_file;
use std::path::Path;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `measure --simulate paper:henri --cores 1..6` into `out`, quietly, with `extra`.
fn simulate(out: &Path, extra: &[&str]) {
    let mut args = vec![
        "measure",
        "--simulate",
        "paper:henri",
        "--cores",
        "1..6",
        "-o",
        s(out),
        "-q",
    ];
    args.extend_from_slice(extra);
    let o = contention(&args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
}

fn json(p: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

#[test]
fn runs_are_launches_in_shuffled_orders_kept_in_the_trace_and_one_run_keeps_the_old_layout() {
    let dir = temp_dir("runs-layout");
    let (three, one) = (dir.join("three.json"), dir.join("one.json"));
    simulate(&three, &["--runs", "3"]);
    simulate(&one, &["--runs", "1"]);
    let t = trace_file::read(&three).unwrap();
    assert!(t.complete);
    assert_eq!((t.config.runs, t.runs.len()), (3, 3));
    let orders: Vec<&Vec<u32>> = t.runs.iter().map(|r| &r.order).collect();
    for o in &orders {
        let mut sorted = (*o).clone();
        sorted.sort_unstable();
        assert_eq!(sorted, [1, 2, 3, 4, 5, 6], "{orders:?}");
    }
    assert!(
        orders[0] != orders[1] && orders[1] != orders[2],
        "{orders:?}"
    );
    // The runs differ as launches do, and the trace's points combine them: the median of
    // the runs' medians, with the interval another run's median falls in.
    let medians: Vec<f64> = t
        .runs
        .iter()
        .map(|r| r.points[0].comm_alone.summary.median)
        .collect();
    assert!(
        medians[0] != medians[1] && medians[1] != medians[2],
        "{medians:?}"
    );
    let p = &t.points[0].comm_alone;
    assert_eq!(p.summary.count, 3);
    let (lo, hi) = p.ci95.unwrap();
    assert!(
        medians.iter().all(|m| lo < *m && *m < hi),
        "{lo} {hi} {medians:?}"
    );
    assert!(p.samples.is_empty() && !t.runs[0].points[0].comm_alone.samples.is_empty());
    // One run: the layout of every trace before runs, no `runs` anywhere.
    let j = json(&one);
    assert!(
        j.get("runs").is_none() && j["config"].get("runs").is_none(),
        "{j}"
    );
    assert_eq!(trace_file::read(&one).unwrap().points.len(), 6);
}

#[test]
fn a_trace_stopped_in_its_second_run_resumes_that_run_in_its_order() {
    let dir = temp_dir("runs-resume");
    let (whole, cut) = (dir.join("whole.json"), dir.join("cut.json"));
    simulate(&whole, &["--runs", "3"]);
    // As a stop in run 2 leaves it: run 1 whole, run 2 with the first two core counts of
    // its order, no run 3.
    let mut j = json(&whole);
    let order: Vec<u64> = j["runs"][1]["order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    let runs = j["runs"].as_array_mut().unwrap();
    runs.truncate(2);
    runs[1]["points"]
        .as_array_mut()
        .unwrap()
        .retain(|p| order[..2].contains(&p["cores"].as_u64().unwrap()));
    j["complete"] = false.into();
    std::fs::write(&cut, serde_json::to_string(&j).unwrap()).unwrap();
    let o = contention(&[
        "measure",
        "--simulate",
        "paper:henri",
        "--cores",
        "1..6",
        "-o",
        s(&cut),
        "--resume",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let said = stderr(&o);
    let rest: Vec<String> = order[2..].iter().map(u64::to_string).collect();
    assert!(
        said.contains(&format!(
            "run 2 of 3, core counts in the order {}",
            rest.join(",")
        )),
        "{said}"
    );
    assert!(said.contains("run 3 of 3"), "{said}");
    // Every run drew what the uninterrupted campaign drew.
    let (a, b) = (
        trace_file::read(&whole).unwrap(),
        trace_file::read(&cut).unwrap(),
    );
    assert!(b.complete);
    for (x, y) in a.runs.iter().zip(&b.runs) {
        assert_eq!((&x.order, &x.points), (&y.order, &y.points));
    }
    assert_eq!(a.points, b.points);
}

#[test]
fn calibrate_predict_and_check_read_the_runs_and_one_run_alone_claims_less() {
    let dir = temp_dir("runs-calibrate");
    let three = dir.join("three.json");
    simulate(&three, &["--runs", "3"]);
    // The first run alone, as a trace of one run.
    let mut j = json(&three);
    j["points"] = j["runs"][0]["points"].clone();
    j.as_object_mut().unwrap().remove("runs");
    j["config"].as_object_mut().unwrap().remove("runs");
    let one = dir.join("one.json");
    std::fs::write(&one, serde_json::to_string(&j).unwrap()).unwrap();
    let width = |trace: &Path, name: &str| {
        let model = dir.join(name);
        let o = contention(&[
            "calibrate",
            "--local-only",
            "--bootstrap",
            "60",
            s(trace),
            "-o",
            s(&model),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let o = contention(&[
            "predict",
            "--model",
            s(&model),
            "--ncores",
            "1",
            "--intervals",
            "-f",
            "json",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let p: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let iv = &p["intervals"][0]["points"][0]["comm_alone"];
        let (lo, hi) = (iv[0].as_f64().unwrap(), iv[1].as_f64().unwrap());
        // And check's drift limit, from the same model against its own trace.
        let o = contention(&["check", "-m", s(&model), s(trace)]);
        let said = String::from_utf8_lossy(&o.stdout).into_owned() + &stderr(&o);
        (hi / lo - 1.0, said)
    };
    let (w3, check3) = width(&three, "m3.json");
    let (w1, check1) = width(&one, "m1.json");
    // Communications move 6 % between the simulated launches: three runs say so, one run
    // knows only its own samples.
    assert!(w3 > 2.0 * w1, "three runs {w3}, one run {w1}");
    // check's limit: from the runs' spread where the trace has runs, and where it has one
    // run, from a real node's spread between runs, said to be assumed.
    assert!(check3.contains("from the new runs' spread"), "{check3}");
    assert!(
        check1.contains("from a real node's spread between runs, assumed"),
        "{check1}"
    );
}

#[test]
fn a_trace_stopped_in_a_run_says_how_many_runs_are_complete() {
    let dir = temp_dir("runs-incomplete");
    let (whole, cut) = (dir.join("whole.json"), dir.join("cut.json"));
    simulate(&whole, &["--runs", "3"]);
    let mut j = json(&whole);
    let runs = j["runs"].as_array_mut().unwrap();
    runs.truncate(2);
    runs[1]["points"].as_array_mut().unwrap().truncate(2);
    j["complete"] = false.into();
    std::fs::write(&cut, serde_json::to_string(&j).unwrap()).unwrap();
    let o = contention(&["calibrate", "--local-only", s(&cut), "-o", "-"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Every core count has a point in some run: the count that tells is the runs'.
    let said = stderr(&o);
    assert!(
        said.contains("is incomplete (1 of 3 runs complete"),
        "{said}"
    );
}

#[test]
fn resume_refuses_a_trace_edited_to_ask_for_more_runs_than_any_command_line() {
    let dir = temp_dir("runs-edited");
    let out = dir.join("t.json");
    simulate(&out, &["--runs", "2"]);
    let mut j = json(&out);
    j["config"]["runs"] = 4_000_000_000u64.into();
    j["complete"] = false.into();
    std::fs::write(&out, serde_json::to_string(&j).unwrap()).unwrap();
    // It measured run after run without end.
    let o = contention(&[
        "measure",
        "--simulate",
        "paper:henri",
        "--cores",
        "1..6",
        "-o",
        s(&out),
        "--resume",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("4000000000 runs in config.runs"),
        "{}",
        stderr(&o)
    );
    // Every reader refuses the edited file now, so its runs are counted in the JSON.
    assert_eq!(json(&out)["runs"].as_array().unwrap().len(), 2);
}

/// `measure --simulate paper:henri` with `args`, quietly; its output.
fn measure(args: &[&str]) -> std::process::Output {
    let mut all = vec!["measure", "--simulate", "paper:henri", "-q"];
    all.extend_from_slice(args);
    contention(&all)
}

/// Issue 46, item 3: a trace of runs edited to `config.runs: 1` was resumed into its
/// `points`, which the save then replaced by the runs' combination: the new points were
/// measured and dropped, at every resume. A trace that holds runs is resumed into them, and
/// one that holds more runs than it asks for is refused before anything runs.
#[test]
fn a_resume_never_drops_a_measured_point_whatever_config_runs_says() {
    let dir = temp_dir("runs-resume-edited");
    let out = dir.join("t.json");
    let o = measure(&[
        "--runs",
        "3",
        "--cores",
        "1,2,3",
        "--max-phase",
        "0.05",
        "--seed",
        "3",
        "-o",
        s(&out),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // One run kept, config.runs edited to 1: the resume measures the other core counts
    // into that run, and keeps them.
    let mut j = json(&out);
    j["runs"].as_array_mut().unwrap().truncate(1);
    j["config"]["runs"] = 1.into();
    j["complete"] = false.into();
    std::fs::write(&out, serde_json::to_string(&j).unwrap()).unwrap();
    let o = measure(&[
        "--max-phase",
        "0.05",
        "--seed",
        "3",
        "--cores",
        "1..6",
        "--resume",
        "-o",
        s(&out),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = trace_file::read(&out).unwrap();
    let cores: Vec<u32> = t.points.iter().map(|p| p.cores).collect();
    assert_eq!(cores, (1..=6).collect::<Vec<_>>(), "{}", stderr(&o));
    assert_eq!(t.runs.len(), 1);
    assert_eq!(t.runs[0].points.len(), 6);
    assert!(t.complete);
    // Three runs, config.runs edited to 1: refused, the file left as it was.
    let o = measure(&[
        "--runs",
        "3",
        "--cores",
        "1,2,3",
        "--max-phase",
        "0.05",
        "--seed",
        "3",
        "-o",
        s(&out),
        "--force",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut j = json(&out);
    j["config"]["runs"] = 1.into();
    let edited = serde_json::to_string(&j).unwrap();
    std::fs::write(&out, &edited).unwrap();
    let o = measure(&[
        "--max-phase",
        "0.05",
        "--seed",
        "3",
        "--resume",
        "-o",
        s(&out),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("holds 3 runs and config.runs asks for 1"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), edited);
}

/// Issue 46, items 4 and 5: a core count repeated in `runs[].order` was measured again and
/// again (1,000 repeats planned 13,000 points), and copied runs narrowed `calibrate
/// --bootstrap`'s intervals as if measured (`plot` said "50 of 3 runs complete"). Every
/// reader of the trace refuses such runs, naming what was edited.
#[test]
fn repeated_core_counts_and_copied_runs_are_refused_by_every_reader() {
    let dir = temp_dir("runs-copied");
    let out = dir.join("t.json");
    simulate(&out, &["--runs", "3"]);
    let original = json(&out);
    let edit = |f: &dyn Fn(&mut serde_json::Value), said: &str| {
        let mut j = original.clone();
        f(&mut j);
        let path = dir.join("edited.json");
        std::fs::write(&path, serde_json::to_string(&j).unwrap()).unwrap();
        for args in [
            vec!["calibrate", "--local-only", s(&path), "-o", "-"],
            vec!["plot", "--model", "paper:henri", s(&path), "-o", s(&dir)],
            vec![
                "measure",
                "--simulate",
                "paper:henri",
                "--cores",
                "1..6",
                "-o",
                s(&path),
                "--resume",
                "-q",
            ],
        ] {
            let o = contention(&args);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
            assert!(stderr(&o).contains(said), "{args:?}: {}", stderr(&o));
        }
    };
    edit(
        &|j| {
            let order = j["runs"][1]["order"].as_array().unwrap().clone();
            let repeated: Vec<_> = (0..1000).flat_map(|_| order.clone()).collect();
            j["runs"][1]["order"] = repeated.into();
            j["complete"] = false.into();
        },
        "runs[1].order lists",
    );
    edit(
        &|j| {
            let runs = j["runs"].as_array().unwrap().clone();
            j["runs"] = (0..10)
                .flat_map(|_| runs.clone())
                .collect::<Vec<_>>()
                .into();
        },
        "holds 30 runs and config.runs asks for 3",
    );
    edit(
        &|j| {
            j["runs"][1] = j["runs"][0].clone();
        },
        "runs[1] holds the same points as runs[0]",
    );
}

/// Issue 46, items 7 and 12: a core count beyond the simulated socket in an edited
/// `runs[].order` failed once the others were measured (exit 1, with `predict`'s
/// `--ncores` as the fix); a resume of a complete trace rewrote it.
#[test]
fn a_resume_refuses_an_order_beyond_the_trace_and_leaves_a_complete_one_alone() {
    let dir = temp_dir("runs-order-beyond");
    let out = dir.join("t.json");
    simulate(&out, &["--runs", "2"]);
    let before = std::fs::read(&out).unwrap();
    let o = contention(&[
        "measure",
        "--simulate",
        "paper:henri",
        "--cores",
        "1..6",
        "-o",
        s(&out),
        "--resume",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("nothing to measure"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&out).unwrap(), before);
    for n in [0, 19] {
        let mut j = json(&out);
        j["runs"][1]["order"].as_array_mut().unwrap().push(n.into());
        j["complete"] = false.into();
        std::fs::write(&out, serde_json::to_string(&j).unwrap()).unwrap();
        let o = measure(&["--cores", "1..6", "-o", s(&out), "--resume"]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("runs[1].order lists {n} cores")),
            "{}",
            stderr(&o)
        );
        assert!(!stderr(&o).contains("--ncores"), "{}", stderr(&o));
        std::fs::write(&out, &before).unwrap();
    }
}

/// Issue 46, item 10: a simulated `--resume` refused a trace of `--max-phase 0.05` unless
/// given again (its help says "kept unless given"), with a message that named the same
/// machine and placement on both sides. It keeps the trace's value, and a value given that
/// differs is named with both sides.
#[test]
fn a_simulated_resume_keeps_the_trace_max_phase_unless_given() {
    let dir = temp_dir("runs-resume-max-phase");
    let out = dir.join("t.json");
    let o = measure(&["--cores", "1,2", "--max-phase", "0.05", "-o", s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = measure(&["--cores", "1..3", "--resume", "-o", s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = trace_file::read(&out).unwrap();
    assert_eq!(t.points.len(), 3);
    assert_eq!(t.config.max_phase_seconds, 0.05);
    let o = measure(&[
        "--cores",
        "1..4",
        "--max-phase",
        "0.1",
        "--resume",
        "-o",
        s(&out),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--max-phase 0.05 in the trace, 0.1 now"),
        "{}",
        stderr(&o)
    );
}

/// Issue 46, item 18: `contention show` reprints a saved trace's point lines as `measure`
/// printed them, each run's and the runs combined, each block saying what its `+-`
/// carries; a trace that is no regular file is refused naming it.
#[test]
fn show_reprints_the_lines_measure_printed_run_by_run() {
    let dir = temp_dir("runs-show");
    let out = dir.join("t.json");
    // Off a terminal: the lines go to standard error as plain log lines.
    let o = contention(&[
        "measure",
        "--simulate",
        "paper:henri",
        "--cores",
        "1..3",
        "--runs",
        "2",
        "-o",
        s(&out),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let printed = stderr(&o);
    let o = contention(&["show", s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let shown = crate::common::stdout(&o);
    let points: Vec<&str> = shown
        .lines()
        .filter(|l| l.contains(" cores: computations"))
        .collect();
    // Three core counts in each of two runs, then the two runs combined.
    assert_eq!(points.len(), 9, "{shown}");
    for line in &points {
        assert!(
            printed.lines().any(|p| p == *line),
            "`{line}` was not printed by measure:\n{printed}"
        );
    }
    assert!(
        shown.contains("measure: run 1 of 2, core counts in the order"),
        "{shown}"
    );
    assert!(shown.contains("within that run"), "{shown}");
    assert!(
        shown.contains("measure: across 2 run(s) (+-: where another run's median falls"),
        "{shown}"
    );
    let o = contention(&["show", s(&out), "--format", "json"]);
    let j: serde_json::Value = serde_json::from_str(&crate::common::stdout(&o)).unwrap();
    assert_eq!(j["traces"][0]["blocks"].as_array().unwrap().len(), 3);
    // Read through the bounded reader: a directory is refused at once, naming it.
    let o = contention(&["show", s(&dir)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("not a regular file"), "{}", stderr(&o));
}

/// A model file's `calibration.run_spread` sets `check`'s drift limit: an edited one
/// (negative, non-finite, or a spread no run shows) is refused naming the file and value.
#[test]
fn check_refuses_a_model_whose_recorded_spread_between_runs_is_edited() {
    let dir = temp_dir("runs-spread-edited");
    let (trace, model) = (dir.join("t.json"), dir.join("m.json"));
    simulate(&trace, &["--runs", "3"]);
    let o = contention(&["calibrate", "--local-only", s(&trace), "-o", s(&model)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut j = json(&model);
    assert_eq!(
        j["calibration"]["run_spread"]["runs"], 3,
        "{}",
        j["calibration"]
    );
    let o = contention(&["check", "-m", s(&model), s(&trace)]);
    assert!(o.status.success(), "{}", stderr(&o));
    for (field, value, named) in [
        ("run", serde_json::json!(-5.0), "comp_alone.run = -5"),
        (
            "point",
            serde_json::json!(1e308),
            "comp_alone.point = 1e308",
        ),
    ] {
        j["calibration"]["run_spread"]["comp_alone"][field] = value;
        std::fs::write(&model, serde_json::to_string(&j).unwrap()).unwrap();
        let o = contention(&["check", "-m", s(&model), s(&trace)]);
        assert_eq!(o.status.code(), Some(2), "{field}: {}", stderr(&o));
        assert!(stderr(&o).contains(named), "{}", stderr(&o));
        j["calibration"]["run_spread"]["comp_alone"][field] = serde_json::json!(0.01);
    }
    // Issue 46, F13: a field of the wrong type was not refused but ignored, the whole
    // spread with it, and check passed on another limit.
    let good = j["calibration"]["run_spread"].clone();
    for (path, value, named) in [
        (
            &["runs"][..],
            serde_json::json!(1e308),
            "calibration.run_spread.runs",
        ),
        (
            &["runs"],
            serde_json::json!(2.5),
            "calibration.run_spread.runs",
        ),
        (
            &["comm_alone", "run"],
            serde_json::json!("x"),
            "calibration.run_spread.comm_alone.run",
        ),
        (
            &["comm_alone", "run"],
            serde_json::Value::Null,
            "calibration.run_spread.comm_alone.run",
        ),
        (
            &[],
            serde_json::json!("garbage"),
            "calibration.run_spread: ",
        ),
    ] {
        let mut edited = good.clone();
        match path {
            [] => edited = value,
            [one] => edited[*one] = value,
            [a, b] => edited[*a][*b] = value,
            _ => unreachable!(),
        }
        j["calibration"]["run_spread"] = edited;
        std::fs::write(&model, serde_json::to_string(&j).unwrap()).unwrap();
        let o = contention(&["check", "-m", s(&model), s(&trace)]);
        assert_eq!(o.status.code(), Some(2), "{path:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(named), "{path:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("m.json"), "{}", stderr(&o));
    }
    // Absent, the model is one of one run.
    j["calibration"]
        .as_object_mut()
        .unwrap()
        .remove("run_spread");
    std::fs::write(&model, serde_json::to_string(&j).unwrap()).unwrap();
    let o = contention(&["check", "-m", s(&model), s(&trace)]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// Issue 46, items 4, 6 and 7: every reader of a trace (calibrate, check, show, plot) takes
/// it through the same check, so a phase median 50x its max, an interval upside down or of
/// 1e308 MB/s, a count of 0, the combined `points` of a trace of runs edited, or a run
/// deleted from a trace still marked complete is refused by each alike (exit 2, naming the
/// file, the field and the value), where show and plot drew them and calibrate fitted them.
/// So are (N2, N4, N6, N7) `config.cores` repeated, empty, short of a measured point, beyond
/// the socket or of 360,000 counts, `config.runs` beyond `--runs`' bounds or more than a
/// complete trace of one run holds, a sample starting before its point, an interval below
/// 0 MB/s, and a host name with a control character (show and plot printed it).
#[test]
fn every_reader_refuses_an_impossible_point_or_a_missing_run_alike() {
    let dir = temp_dir("runs-one-check");
    let (one, three) = (dir.join("one.json"), dir.join("three.json"));
    simulate(&one, &["--runs", "1"]);
    simulate(&three, &["--runs", "3"]);
    let model = dir.join("m.json");
    let o = contention(&["calibrate", "--local-only", s(&three), "-o", s(&model)]);
    assert!(o.status.success(), "{}", stderr(&o));
    type Edit = fn(&mut serde_json::Value);
    let edits: [(&Path, Edit, &str); 21] = [
        (
            &one,
            |j| {
                let s = &mut j["points"][3]["comp_alone"]["summary"];
                s["median"] = (50.0 * s["max"].as_f64().unwrap()).into();
            },
            "points[3]: at 4 cores, comp_alone: median",
        ),
        (
            &one,
            |j| {
                let m = j["points"][1]["comm_alone"]["summary"]["median"]
                    .as_f64()
                    .unwrap();
                j["points"][1]["comm_alone"]["ci95"] = serde_json::json!([m * 1.5, m * 0.5]);
            },
            "points[1]: at 2 cores, comm_alone: ci95",
        ),
        (
            &one,
            |j| j["points"][0]["comp_parallel"]["ci95"] = serde_json::json!([-5.0, 1e308]),
            "comp_parallel: ci95 [-5, 1e308]",
        ),
        (
            &one,
            |j| j["points"][0]["comm_parallel"]["summary"]["count"] = 0.into(),
            "comm_parallel: count is 0",
        ),
        (
            &one,
            |j| j["machine"]["cores_per_socket"] = 4.into(),
            "the machine's socket has 1..4 (machine.cores_per_socket)",
        ),
        (
            &three,
            |j| j["points"][2]["comp_parallel"]["summary"]["min"] = 1e6.into(),
            "points[2]: at 3 cores, comp_parallel: min 1e6 is above max",
        ),
        (
            &three,
            |j| j["points"][2]["comm_alone"]["summary"]["count"] = 0.into(),
            "points[2]: at 3 cores, comm_alone: count is 0",
        ),
        (
            &three,
            |j| {
                j["runs"].as_array_mut().unwrap().remove(1);
            },
            "marked complete but holds 2 complete run(s) of the 3",
        ),
        // N2: config.cores as no `measure` writes it.
        (
            &one,
            |j| j["config"]["cores"].as_array_mut().unwrap().push(1.into()),
            "config.cores lists 1 after 6",
        ),
        (
            &one,
            |j| j["config"]["cores"] = serde_json::json!([]),
            "config.cores is empty",
        ),
        (
            &one,
            |j| j["config"]["cores"] = serde_json::json!([1, 2, 3, 5, 6]),
            "points[3] is at 4 cores, which config.cores does not ask for",
        ),
        (
            &one,
            |j| {
                j["config"]["cores"].as_array_mut().unwrap().push(19.into());
                j["complete"] = false.into();
            },
            "config.cores lists 19 cores, and the machine's socket has 1..18",
        ),
        (
            &one,
            |j| {
                j["config"]["cores"] = (0..360_000u32).map(|i| 1 + i % 6).collect();
                j["complete"] = false.into();
            },
            "config.cores lists 1 after 6",
        ),
        // N4: config.runs as no `measure --runs` gives it.
        (
            &one,
            |j| j["config"]["runs"] = 3.into(),
            "marked complete but holds 1 complete run(s) of the 3",
        ),
        (
            &one,
            |j| {
                j["config"]["runs"] = 0.into();
                j["complete"] = false.into();
            },
            "it asks for 0 runs in config.runs, and a trace holds 1 to 100",
        ),
        (
            &one,
            |j| {
                j["config"]["runs"] = 1_000_000.into();
                j["complete"] = false.into();
            },
            "it asks for 1000000 runs in config.runs",
        ),
        // N6: a sample before its point started.
        (
            &one,
            |j| j["points"][0]["comp_parallel"]["samples"][5]["start"] = (-1.0).into(),
            "points[0]: at 1 cores, comp_parallel: samples[5] is impossible",
        ),
        (
            &one,
            |j| j["points"][0]["comp_parallel"]["samples"][5]["start"] = (-1e308).into(),
            "from -1e308 s",
        ),
        // N7: an interval below 0 MB/s, in a run's point too.
        (
            &one,
            |j| j["points"][3]["comp_parallel"]["ci95"][0] = (-5.0).into(),
            "points[3]: at 4 cores, comp_parallel: ci95 [-5, ",
        ),
        (
            &three,
            |j| j["runs"][1]["points"][0]["comm_alone"]["ci95"][0] = (-1e308).into(),
            "runs[1].points[0]: at 1 cores, comm_alone: ci95 [-1e308, ",
        ),
        // A host name calibrate and check refused, show and plot printed.
        (
            &one,
            |j| j["machine"]["hostname"] = "a\rb".into(),
            "machine.hostname \"a\\rb\" holds control or invisible format characters",
        ),
    ];
    let edited = dir.join("edited.json");
    for (source, edit, said) in edits {
        let mut j = json(source);
        edit(&mut j);
        std::fs::write(&edited, serde_json::to_string(&j).unwrap()).unwrap();
        for args in [
            vec!["calibrate", "--local-only", s(&edited), "-o", "-"],
            vec!["check", "--model", s(&model), s(&edited)],
            vec!["show", s(&edited)],
            vec!["plot", "--model", "paper:henri", s(&edited), "-o", s(&dir)],
        ] {
            let o = contention(&args);
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{said}: {args:?}: {err}");
            assert!(
                err.contains(said) && err.contains(s(&edited)),
                "{said}: {args:?}: {err}"
            );
        }
    }
}

/// Issue 46, item 1: a simulated `--resume` kept the points every reader refuses (a median
/// of 1e13 MB/s, min above max, a count of 0, a negative mean, a sample ending before it
/// starts, computations 20x faster in parallel), marked the trace complete, and calibrate
/// refused it. It drops each, naming it, and measures its core count again, as a real
/// resume does.
#[test]
fn a_simulated_resume_drops_an_impossible_point_and_measures_it_again() {
    let dir = temp_dir("runs-resume-drops");
    let out = dir.join("t.json");
    type Edit = fn(&mut serde_json::Value);
    let edits: [(Edit, &str); 6] = [
        (
            |j| j["comp_alone"]["summary"]["median"] = 1e13.into(),
            "median is 1e13 MB/s",
        ),
        (
            |j| j["comp_alone"]["summary"]["min"] = 1e9.into(),
            "is above max",
        ),
        (
            |j| j["comm_alone"]["summary"]["count"] = 0.into(),
            "count is 0",
        ),
        (
            |j| j["comm_alone"]["summary"]["mean"] = (-1.0).into(),
            "mean is -1",
        ),
        (
            |j| j["comp_parallel"]["samples"][0]["end"] = (-1.0).into(),
            "samples[0] is impossible",
        ),
        (
            |j| {
                let alone = j["comp_alone"]["summary"]["median"].as_f64().unwrap();
                let s = &mut j["comp_parallel"]["summary"];
                let x = 20.0 * alone;
                (s["median"], s["mean"], s["min"], s["max"]) =
                    (x.into(), x.into(), x.into(), x.into());
                j["comp_parallel"]["ci95"] = serde_json::Value::Null;
            },
            "20.0x faster in parallel",
        ),
    ];
    for (edit, said) in edits {
        // The trace and its CSV (a CSV left where a new trace's goes is refused).
        let _ = std::fs::remove_file(&out);
        let _ = std::fs::remove_file(out.with_extension("csv"));
        let o = measure(&["--runs", "1", "--cores", "1,2,4", "-o", s(&out)]);
        assert!(o.status.success(), "{}", stderr(&o));
        let mut j = json(&out);
        edit(&mut j["points"][0]);
        std::fs::write(&out, serde_json::to_string(&j).unwrap()).unwrap();
        let o = measure(&["--cores", "1,2,4,8", "--resume", "-o", s(&out)]);
        let err = stderr(&o);
        assert!(o.status.success(), "{said}: {err}");
        assert!(
            err.contains("--resume drops a point") && err.contains("points[0]: at 1 cores"),
            "{said}: {err}"
        );
        assert!(err.contains(said), "{said}: {err}");
        let t = trace_file::read(&out).unwrap();
        assert_eq!(
            t.points.iter().map(|p| p.cores).collect::<Vec<_>>(),
            [1, 2, 4, 8]
        );
        assert!(t.complete);
        let o = contention(&["calibrate", "--local-only", s(&out), "-o", "-"]);
        assert!(o.status.success(), "{said}: {}", stderr(&o));
    }
}

/// Issue 46, item 1: with `runs[1]` of three deleted, a simulated resume drew the new run
/// from the index of the old `runs[2]`, a copy refused once drawn, while every reader's note
/// said "`contention measure --resume` completes it" (N1). Marked complete, the trace is
/// refused before anything is measured (every reader refuses it alike); else the resume
/// completes it with draws of its own, and every reader takes it.
#[test]
fn a_resume_of_a_trace_with_a_run_deleted_completes_it_unless_marked_complete() {
    let dir = temp_dir("runs-deleted");
    let out = dir.join("t.json");
    simulate(&out, &["--runs", "3"]);
    let mut j = json(&out);
    j["runs"].as_array_mut().unwrap().remove(1);
    let kept: Vec<serde_json::Value> = j["runs"].as_array().unwrap().clone();
    j["complete"] = true.into();
    std::fs::write(&out, serde_json::to_string(&j).unwrap()).unwrap();
    let o = measure(&["--cores", "1..6", "--resume", "-o", s(&out)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let said = "marked complete but holds 2 complete run(s) of the 3";
    assert!(stderr(&o).contains(said), "{}", stderr(&o));
    assert_eq!(json(&out)["runs"].as_array().unwrap().len(), 2);
    // Incomplete: what calibrate's note advises works.
    j["complete"] = false.into();
    std::fs::write(&out, serde_json::to_string(&j).unwrap()).unwrap();
    let o = contention(&["calibrate", "--local-only", s(&out), "-o", "-"]);
    let advised = "`contention measure --simulate paper:henri --seed 1 --resume` completes it";
    assert!(stderr(&o).contains(advised), "{}", stderr(&o));
    let o = measure(&["--cores", "1..6", "--resume", "-o", s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = trace_file::read(&out).unwrap();
    assert!(t.complete && t.runs.len() == 3, "{}", stderr(&o));
    let now = json(&out);
    assert_eq!(now["runs"].as_array().unwrap()[..2], kept[..]);
    let o = contention(&["calibrate", "--local-only", s(&out), "-o", "-"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// Issue 46, item 11: `--resume` without `--cores` took the default sweep (every free core)
/// and added it to a trace of `--cores 1..4`; the trace's core counts are kept, as its
/// `--max-phase` is.
#[test]
fn a_resume_without_cores_keeps_the_trace_core_counts() {
    let dir = temp_dir("runs-resume-cores");
    let out = dir.join("t.json");
    let o = measure(&["--runs", "1", "--cores", "1..4", "-o", s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut j = json(&out);
    j["points"].as_array_mut().unwrap().truncate(2);
    j["complete"] = false.into();
    std::fs::write(&out, serde_json::to_string(&j).unwrap()).unwrap();
    let o = measure(&["--resume", "-o", s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = trace_file::read(&out).unwrap();
    assert_eq!(t.config.cores, [1, 2, 3, 4]);
    assert_eq!(t.points.len(), 4);
}

/// Issue 46, N1: a resume of a complete trace validated nothing: a combined point of a trace
/// of runs corrupt, a host name with a control character, `cores_per_socket` below the
/// points: "nothing to measure", exit 0, and calibrate then refused it advising that very
/// resume. The combined points are made again from the runs (and calibrate's advice says
/// so); what a resume cannot mend is refused, exit 2, as every reader refuses it.
#[test]
fn a_resume_mends_combined_points_and_refuses_what_every_reader_refuses() {
    let dir = temp_dir("runs-resume-checks");
    let out = dir.join("t.json");
    simulate(&out, &["--runs", "3"]);
    let original = trace_file::read(&out).unwrap();
    let mut j = json(&out);
    j["points"][0]["comm_alone"]["summary"]["min"] = 1e6.into();
    std::fs::write(&out, serde_json::to_string(&j).unwrap()).unwrap();
    let o = contention(&["calibrate", "--local-only", s(&out), "-o", "-"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("points[0]: at 1 cores, comm_alone: min 1e6 is above max")
            && stderr(&o).contains("`contention measure --resume` makes them again from the runs"),
        "{}",
        stderr(&o)
    );
    let o = contention(&[
        "measure",
        "--simulate",
        "paper:henri",
        "--resume",
        "-o",
        s(&out),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("makes the trace's combined points again from its runs")
            && stderr(&o).contains("nothing to measure"),
        "{}",
        stderr(&o)
    );
    let t = trace_file::read(&out).unwrap();
    assert_eq!((&t.points, &t.runs), (&original.points, &original.runs));
    let o = contention(&["calibrate", "--local-only", s(&out), "-o", "-"]);
    assert!(o.status.success(), "{}", stderr(&o));

    // What a resume cannot mend, complete or not (N1, N2, N4): refused before anything
    // runs, the file left as it was.
    let one = dir.join("one.json");
    simulate(&one, &["--runs", "1"]);
    let clean = json(&one);
    type Edit = fn(&mut serde_json::Value);
    let cases: [(Edit, &str); 7] = [
        (
            |j| j["machine"]["hostname"] = "a\rb".into(),
            "machine.hostname \"a\\rb\" holds control or invisible format characters",
        ),
        (
            |j| j["machine"]["cores_per_socket"] = 4.into(),
            "the machine's socket has 1..4",
        ),
        (
            |j| {
                j["config"]["cores"] = serde_json::json!([]);
                j["complete"] = false.into();
            },
            "config.cores is empty",
        ),
        (
            |j| {
                j["config"]["cores"].as_array_mut().unwrap().push(19.into());
                j["complete"] = false.into();
            },
            "config.cores lists 19 cores, and the machine's socket has 1..18",
        ),
        (
            |j| {
                j["config"]["cores"] = serde_json::json!([1, 2]);
                j["complete"] = false.into();
            },
            "points[2] is at 3 cores, which config.cores does not ask for",
        ),
        (
            |j| {
                j["config"]["runs"] = 0.into();
                j["complete"] = false.into();
            },
            "it asks for 0 runs in config.runs",
        ),
        (
            |j| {
                j["config"]["runs"] = 101.into();
                j["complete"] = false.into();
            },
            "it asks for 101 runs in config.runs",
        ),
    ];
    for (edit, said) in cases {
        let mut j = clean.clone();
        edit(&mut j);
        let text = serde_json::to_string(&j).unwrap();
        std::fs::write(&one, &text).unwrap();
        let o = measure(&["--resume", "-o", s(&one)]);
        assert_eq!(o.status.code(), Some(2), "{said}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(said) && !stderr(&o).contains("--cores:"),
            "{said}: {}",
            stderr(&o)
        );
        assert_eq!(std::fs::read_to_string(&one).unwrap(), text, "{said}");
    }
}

/// Issue 46, item 3: the same run given twice (one file named twice, a copy under another
/// name, a directory holding both) was pooled: calibrate and check passed with intervals
/// narrowed as if measured again. Every command that pools inputs refuses it, naming both.
#[test]
fn the_same_run_given_twice_is_refused_naming_both_files() {
    let dir = temp_dir("runs-given-twice");
    let (a, b) = (dir.join("a.json"), dir.join("b.json"));
    simulate(&a, &["--runs", "3"]);
    let model = dir.join("m.json");
    let o = contention(&["calibrate", "--local-only", s(&a), "-o", s(&model)]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::copy(&a, &b).unwrap();
    let copies = dir.join("copies");
    std::fs::create_dir(&copies).unwrap();
    std::fs::copy(&a, copies.join("x.json")).unwrap();
    std::fs::copy(&a, copies.join("y.json")).unwrap();
    let (x, y) = (copies.join("x.json"), copies.join("y.json"));
    for (args, named) in [
        (
            vec!["calibrate", "--local-only", s(&a), s(&a), "-o", "-"],
            [s(&a), s(&a)],
        ),
        (
            vec!["calibrate", "--local-only", s(&a), s(&b), "-o", "-"],
            [s(&a), s(&b)],
        ),
        (
            vec!["check", "--model", s(&model), s(&a), s(&b)],
            [s(&a), s(&b)],
        ),
        (
            vec!["check", "--model", s(&model), s(&copies)],
            [s(&x), s(&y)],
        ),
        (
            vec!["evaluate", "-m", s(&model), s(&a), s(&b)],
            [s(&a), s(&b)],
        ),
    ] {
        let o = contention(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(&format!(
                "{} and {} hold the same measurement",
                named[0], named[1]
            )),
            "{args:?}: {err}"
        );
    }
}

/// Issue 46, N3: `calibrate dir/*` over the default layout took each trace and the tidy CSV
/// `measure` writes beside it as two runs (the model moved, `check` passed): the CSV's
/// rounding to 0.1 MB/s hid the copy from the bitwise rule. Every command that pools inputs
/// refuses it, naming both, as it refuses a copy; another measurement's CSV is taken.
#[test]
fn a_trace_and_its_own_tidy_csv_are_refused_as_one_measurement_given_twice() {
    let dir = temp_dir("runs-trace-and-csv");
    let results = dir.join("results");
    std::fs::create_dir(&results).unwrap();
    let (one, three) = (results.join("one.json"), results.join("three.json"));
    simulate(&one, &["--runs", "1"]);
    simulate(&three, &["--runs", "3", "--seed", "2"]);
    let other = dir.join("other.json");
    simulate(&other, &["--runs", "1", "--seed", "3"]);
    let model = dir.join("m.json");
    let o = contention(&["calibrate", "--local-only", s(&three), "-o", s(&model)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = |t: &Path| t.with_extension("csv");
    let (one_csv, three_csv) = (csv(&one), csv(&three));
    for (args, named) in [
        (
            vec!["calibrate", "--local-only", s(&one), s(&one_csv), "-o", "-"],
            [s(&one), s(&one_csv)],
        ),
        (
            vec!["calibrate", "--local-only", s(&one_csv), s(&one), "-o", "-"],
            [s(&one), s(&one_csv)],
        ),
        (
            vec!["check", "--model", s(&model), s(&three), s(&three_csv)],
            [s(&three), s(&three_csv)],
        ),
        (
            vec![
                "evaluate",
                "-m",
                s(&model),
                s(&one),
                s(&three),
                s(&three_csv),
            ],
            [s(&three), s(&three_csv)],
        ),
    ] {
        let o = contention(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(&format!(
                "{} and {} hold the same measurement",
                named[0], named[1]
            )),
            "{args:?}: {err}"
        );
    }
    let o = contention(&[
        "calibrate",
        "--local-only",
        s(&one),
        s(&csv(&other)),
        "-o",
        "-",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}
