//! `contention measure --simulate`: a campaign on a simulated machine, in seconds, with the
//! same stop rules as a real run; and the refusals that keep a simulated trace from ever being
//! taken for a real one by `calibrate`, `evaluate`, `check` and `survey`.

use crate::common::run::{contention, stderr, temp_dir};
use contention::io::trace_file;
use std::path::{Path, PathBuf};

/// The trace of this repository's CI machine, measured for real.
fn real_trace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/traces/vm-local.json")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `measure --simulate SPEC --numa C,M` into `out`, a few core counts, one run (the layout
/// these tests read; `runs.rs` tests the default's three) unless `extra` asks for runs.
fn simulate(spec: &str, numa: &str, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "measure",
        "--simulate",
        spec,
        "--numa",
        numa,
        "--cores",
        "1..6",
        "-o",
        s(out),
    ];
    if !extra.contains(&"--runs") {
        args.extend_from_slice(&["--runs", "1"]);
    }
    args.extend_from_slice(extra);
    contention(&args)
}

/// A refusal: exit status 2, and the message, which must name what it refuses.
fn refused(args: &[&str]) -> String {
    let o = contention(args);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    stderr(&o)
}

#[test]
fn a_simulated_campaign_writes_a_trace_marked_simulated_and_says_what_a_real_run_costs() {
    let dir = temp_dir("simulate-run");
    let out = dir.join("henri.json");
    let o = simulate("paper:henri", "0,0", &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("simulated paper:henri: 6 point(s)")
            && err.contains("a real node would measure for about"),
        "{err}"
    );
    let t = trace_file::read(&out).unwrap();
    assert!(t.complete);
    assert_eq!(t.machine.simulated.as_deref(), Some("paper:henri"));
    let sim = t.simulation.as_ref().unwrap();
    assert_eq!((sim.machine.as_str(), sim.seed), ("paper:henri", 1));
    assert!(sim.measuring_seconds > 0.0);
    assert_eq!(
        t.points.iter().map(|p| p.cores).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5, 6]
    );
    // The phases ran under the real stop rules: each says why it stopped.
    for p in &t.points {
        assert!(
            p.comp_alone.sampling.contains("stopped: "),
            "{}",
            p.comp_alone.sampling
        );
    }
    // The same seed draws the same trace; another seed another.
    let again = dir.join("again.json");
    assert!(simulate("paper:henri", "0,0", &again, &[]).status.success());
    let t2 = trace_file::read(&again).unwrap();
    assert_eq!(t.points, t2.points);
    let other = dir.join("other.json");
    assert!(simulate("paper:henri", "0,0", &other, &["--seed", "2"])
        .status
        .success());
    assert_ne!(t.points, trace_file::read(&other).unwrap().points);
}

#[test]
fn resume_completes_a_simulated_trace_and_refuses_another_machines() {
    let dir = temp_dir("simulate-resume");
    let out = dir.join("t.json");
    let o = contention(&[
        "measure",
        "--simulate",
        "paper:dahu",
        "--cores",
        "1..3",
        "-o",
        s(&out),
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = contention(&[
        "measure",
        "--simulate",
        "paper:dahu",
        "--cores",
        "1..5",
        "-o",
        s(&out),
        "-q",
        "--resume",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = trace_file::read(&out).unwrap();
    assert_eq!(t.points.len(), 5);
    assert!(t.complete);
    let e = refused(&[
        "measure",
        "--simulate",
        "paper:henri",
        "--cores",
        "1..5",
        "-o",
        s(&out),
        "--resume",
    ]);
    assert!(
        e.contains("simulated paper:dahu") && e.contains("paper:henri"),
        "{e}"
    );
}

#[test]
fn what_a_simulated_machine_cannot_answer_is_refused_naming_it() {
    let dir = temp_dir("simulate-refused");
    let out = dir.join("t.json");
    let e = refused(&["measure", "--simulate", "henri", "-o", s(&out)]);
    assert!(e.contains("paper:NAME"), "{e}");
    let e = refused(&["measure", "--simulate", "paper:nope", "-o", s(&out)]);
    assert!(e.contains("paper:nope") && e.contains("henri"), "{e}");
    let e = refused(&[
        "measure",
        "--simulate",
        "paper:henri",
        "--pattern",
        "ring",
        "-o",
        s(&out),
    ]);
    assert!(e.contains("--pattern is not simulated"), "{e}");
    let e = refused(&[
        "measure",
        "--simulate",
        "paper:henri",
        "--numa",
        "0,2",
        "-o",
        s(&out),
    ]);
    assert!(e.contains("COMM node 2"), "{e}");
    let e = refused(&[
        "measure",
        "--simulate",
        "paper:henri",
        "--cores",
        "1..40",
        "-o",
        s(&out),
    ]);
    assert!(
        e.contains("beyond the cores per socket of paper:henri (18)"),
        "{e}"
    );
    assert!(!out.exists());
}

#[test]
fn calibrate_evaluate_check_and_survey_never_mix_simulated_and_real() {
    let dir = temp_dir("simulate-mix");
    let (local, remote) = (dir.join("local.json"), dir.join("remote.json"));
    assert!(simulate("paper:henri", "0,0", &local, &["-q"])
        .status
        .success());
    assert!(simulate("paper:henri", "1,1", &remote, &["-q"])
        .status
        .success());
    let real = real_trace();

    // Traces of one simulated machine calibrate together.
    let model = dir.join("model.json");
    let o = contention(&["calibrate", s(&local), s(&remote), "-o", s(&model)]);
    assert!(o.status.success(), "{}", stderr(&o));

    // calibrate and evaluate: a simulated trace with a real one, either order.
    for args in [
        vec!["calibrate", s(&local), s(&real)],
        vec!["calibrate", s(&real), s(&local)],
        vec!["evaluate", "--model", s(&model), s(&local), s(&real)],
    ] {
        let e = refused(&args);
        assert!(
            e.contains("simulated (paper:henri)") && e.contains("a real measurement"),
            "{args:?}: {e}"
        );
    }
    // Two simulated machines are not one machine either.
    let realistic = dir.join("realistic.json");
    assert!(simulate("realistic:henri", "0,0", &realistic, &["-q"])
        .status
        .success());
    let e = refused(&["calibrate", s(&local), s(&realistic)]);
    assert!(e.contains("realistic:henri"), "{e}");

    // check: simulated measurements against a model of real ones (the paper's tables, here)
    // and real ones against a model of simulated ones.
    let e = refused(&["check", "--model", "paper:henri", s(&local), s(&remote)]);
    assert!(
        e.contains(&format!("{} is simulated (paper:henri), and model `paper:henri` is a model of a real measurement", s(&local))),
        "{e}"
    );
    let e = refused(&["check", "--model", s(&model), s(&real)]);
    assert!(
        e.contains(&format!(
            "model `{}` is a model of simulated (paper:henri)",
            s(&model)
        )),
        "{e}"
    );
    // ... and the same origin is checked as usual.
    let o = contention(&["check", "--model", s(&model), s(&local), s(&remote)]);
    assert!(o.status.success(), "{}", stderr(&o));

    // A simulated survey says so from its first line, and keeps to its own directory.
    let o = contention(&["survey", "--simulate", "paper:henri", "--dry-run"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let plan = String::from_utf8_lossy(&o.stdout);
    assert!(plan.starts_with("simulated   16 x paper:henri"), "{plan}");
}

#[test]
fn an_adaptive_sweep_says_why_each_point_and_resume_continues_it() {
    let dir = temp_dir("simulate-adaptive");
    let out = dir.join("a.json");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "measure",
            "--simulate",
            "realistic:dahu",
            "--adaptive",
            "-o",
            s(&out),
        ];
        args.extend_from_slice(extra);
        let o = contention(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        (stderr(&o), trace_file::read(&out).unwrap())
    };
    // A budget smaller than the first grid: the grid is measured, then the sweep stops and
    // says what is still uncertain.
    let (err, t) = run(&["--budget", "1s", "--precision", "0.2"]);
    assert!(
        err.contains("adaptive: first 1,5,9,12,16 (the ends and a coarse grid)"),
        "{err}"
    );
    // The grid alone is expected past the budget: said before it is measured, and the end
    // says by how much it went past.
    assert!(
        err.contains("the fit needs them, so they are measured whatever the budget"),
        "{err}"
    );
    assert!(
        err.contains("is already past the budget of 1 s, by ")
            && err.contains("; still uncertain: n_par_max"),
        "{err}"
    );
    let cores = |t: &contention::trace::Trace| t.points.iter().map(|p| p.cores).collect::<Vec<_>>();
    assert_eq!(cores(&t), [1, 5, 9, 12, 16]);
    assert!(t.complete, "the points chosen so far are all measured");
    // Resumed with a budget the trace has already spent: nothing more is measured, and the
    // line says by how much the budget is past.
    let (err, again) = run(&["--resume", "--budget", "1s", "--precision", "0.2"]);
    assert_eq!(cores(&again), cores(&t), "{err}");
    assert!(
        err.contains("adaptive: stopped: the measuring time, ")
            && err.contains("is already past the budget of 1 s, by "),
        "{err}"
    );
    // Resumed without --adaptive (with or without --cores), the sweep would measure points
    // its record does not list: refused, with the way to go on.
    for extra in [&["--cores", "1..4"][..], &[]] {
        let mut args = vec![
            "measure",
            "--simulate",
            "realistic:dahu",
            "-o",
            s(&out),
            "--resume",
        ];
        args.extend_from_slice(extra);
        let e = refused(&args);
        assert!(
            e.contains("is an adaptive sweep") && e.contains("resume it with --adaptive"),
            "{e}"
        );
    }
    assert_eq!(cores(&trace_file::read(&out).unwrap()), cores(&t));
    // --resume goes on from the fit of those points, with a tighter precision.
    let (err, t) = run(&["--resume", "--precision", "0.2"]);
    assert!(!err.contains("adaptive: first"), "{err}");
    assert!(
        err.contains("narrows the refits' disagreement over the whole socket most"),
        "{err}"
    );
    assert!(err.contains("adaptive: done: "), "{err}");
    let now = cores(&t);
    assert!(now.len() > 5 && now.len() <= 16, "{now:?}");
    for n in [1, 5, 9, 12, 16] {
        assert!(now.contains(&n));
    }
    assert_eq!(t.machine.simulated.as_deref(), Some("realistic:dahu"));
    // The trace keeps the order the points were measured in and why each was chosen.
    let log = t
        .adaptive
        .as_ref()
        .expect("an adaptive trace records its choices");
    let order: Vec<u32> = log.choices.iter().map(|c| c.cores).collect();
    assert_eq!(order[..5], [1, 5, 9, 12, 16]);
    assert_eq!(order.len(), now.len());
    assert!(
        log.choices[5]
            .why
            .contains("narrows the refits' disagreement"),
        "{log:?}"
    );
    assert!(
        log.ended
            .as_deref()
            .is_some_and(|e| e.starts_with("done: ")),
        "{log:?}"
    );

    // Where it cannot apply, it says so.
    let e = refused(&[
        "measure",
        "--simulate",
        "paper:dahu",
        "--adaptive",
        "--numa",
        "0,1",
        "-o",
        s(&dir.join("r.json")),
    ]);
    assert!(e.contains("both data on one node"), "{e}");
    let e = refused(&[
        "survey",
        "--simulate",
        "paper:dahu",
        "--adaptive",
        "--dry-run",
    ]);
    assert!(e.contains("--adaptive with --simulate"), "{e}");
}

#[test]
fn resume_refuses_a_simulated_trace_edited_past_its_machine() {
    let dir = temp_dir("simulate-resume-edited");
    let out = dir.join("t.json");
    let o = simulate("paper:henri", "0,0", &out, &["-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let resume = [
        "measure",
        "--simulate",
        "paper:henri",
        "--numa",
        "0,0",
        "--cores",
        "1..6",
        "-o",
        s(&out),
        "--resume",
    ];
    let clean = trace_file::read(&out).unwrap();

    // A point at 999 cores on an 18-core socket.
    let mut t = clean.clone();
    t.points[1].cores = 999;
    // Marked complete, it would be refused for the count it lacks first (`record_problem`).
    t.complete = false;
    trace_file::write(&out, &t).unwrap();
    let e = refused(&resume);
    assert!(e.contains("999 cores") && e.contains("1..18"), "{e}");

    // A negative simulated measuring time, and one of more than three years.
    for (seconds, named) in [(-5.0, "is -5,"), (1e308, "is 1e308,")] {
        let mut t = clean.clone();
        t.simulation.as_mut().unwrap().measuring_seconds = seconds;
        trace_file::write(&out, &t).unwrap();
        let e = refused(&resume);
        assert!(e.contains(&format!("measuring_seconds {named}")), "{e}");
    }
}

#[test]
fn a_real_run_refuses_to_resume_a_simulated_trace_before_mpi_starts() {
    let dir = temp_dir("simulate-resume-real");
    let out = dir.join("t.json");
    let o = simulate("paper:dahu", "0,0", &out, &["-q", "--seed", "7"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let e = refused(&["measure", "-o", s(&out), "--resume", "--cores", "1..2"]);
    assert!(
        e.contains("is simulated paper:dahu (seed 7)")
            && e.contains("--simulate paper:dahu --seed 7 --resume"),
        "{e}"
    );
}

#[test]
fn a_tiny_message_size_keeps_the_trace_small() {
    // Every simulated message was a sample: 4 KiB messages filled a 0.05 s phase with about
    // a hundred thousand of them (a trace of tens of MB), 1-byte ones with billions (10 GB
    // resident within seconds).
    let dir = temp_dir("simulate-tiny-messages");
    let out = dir.join("t.json");
    for size in ["4KiB", "1"] {
        let o = contention(&[
            "measure",
            "--simulate",
            "paper:henri",
            "--cores",
            "1,2",
            "--max-phase",
            "0.05",
            "--runs",
            "1",
            "--message-size",
            size,
            "-o",
            s(&out),
            "-q",
            "--force",
        ]);
        assert!(o.status.success(), "--message-size {size}: {}", stderr(&o));
        let bytes = std::fs::metadata(&out).unwrap().len();
        assert!(
            bytes < 1 << 20,
            "--message-size {size}: a trace of {bytes} bytes"
        );
        let t = trace_file::read(&out).unwrap();
        assert_eq!(t.points.len(), 2);
        for p in &t.points {
            for phase in [&p.comm_alone, &p.comm_parallel] {
                assert!(
                    (30..=4000).contains(&phase.samples.len()),
                    "--message-size {size}: {} samples at {} cores",
                    phase.samples.len(),
                    p.cores
                );
            }
        }
    }
}

#[test]
fn resume_refuses_a_simulated_trace_whose_cores_reach_past_its_socket_before_any_work() {
    let dir = temp_dir("simulate-resume-cores");
    let out = dir.join("t.json");
    let o = contention(&[
        "measure",
        "--simulate",
        "paper:henri",
        "--cores",
        "1..2",
        "-o",
        s(&out),
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut t = trace_file::read(&out).unwrap();
    t.config.cores = vec![1, 2, 999];
    t.complete = false;
    trace_file::write(&out, &t).unwrap();
    let before = std::fs::read(&out).unwrap();
    let e = refused(&[
        "measure",
        "--simulate",
        "paper:henri",
        "--cores",
        "1..2",
        "-o",
        s(&out),
        "--resume",
    ]);
    assert!(
        e.contains("config.cores") && e.contains("999") && e.contains("1..18") && e.contains("-o"),
        "{e}"
    );
    assert_eq!(
        std::fs::read(&out).unwrap(),
        before,
        "the trace was changed"
    );
}

#[test]
fn launch_options_a_simulated_machine_does_not_use_are_refused_naming_them() {
    let dir = temp_dir("simulate-launch-options");
    let out = dir.join("t.json");
    let base = ["measure", "--simulate", "paper:henri", "-o", s(&out)];
    for (extra, named) in [
        (&["--launcher", "mpirun"][..], "--launcher"),
        (&["--ranks", "5"][..], "--ranks"),
        (
            &["--dry-run", "--topology", "/nonexistent/node.xml"][..],
            "--topology",
        ),
    ] {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        let e = refused(&args);
        assert!(
            e.contains(&format!("{named} is not")) && e.contains(&format!("drop {named}")),
            "{extra:?}: {e}"
        );
    }
    assert!(!out.exists());
    // --timeout is the stall rule's, which the simulated clock applies as a real run does
    // (and --max-phase is checked against it): kept in the trace.
    let mut args = base.to_vec();
    args.extend_from_slice(&[
        "--cores",
        "1",
        "--max-phase",
        "0.05",
        "--timeout",
        "30",
        "-q",
    ]);
    let o = contention(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(trace_file::read(&out).unwrap().config.timeout_seconds, 30.0);
}

#[test]
fn the_csv_of_a_simulated_run_says_so_and_never_calibrates_with_a_real_trace() {
    let dir = temp_dir("simulate-csv");
    let (local, remote) = (dir.join("local.json"), dir.join("remote.json"));
    for (numa, out) in [("0,0", &local), ("1,1", &remote)] {
        let o = simulate("paper:henri", numa, out, &["-q", "--max-phase", "0.05"]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    // A real trace of a socket the simulated points fit on.
    let real =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/real-16core/trace-13cores-shm.json");
    let csv = dir.join("local.csv");
    // Either order, the message names both files, what each is and what to give instead.
    for args in [
        vec!["calibrate", s(&real), s(&csv)],
        vec!["calibrate", s(&csv), s(&real)],
    ] {
        let e = refused(&args);
        assert!(
            e.contains(s(&csv))
                && e.contains(s(&real))
                && e.contains("simulated (paper:henri)")
                && e.contains("a real measurement")
                && e.contains("give the traces of one simulated machine together"),
            "{args:?}: {e}"
        );
    }
    // With the other traces of its simulated machine, the CSV is one of them, and the model
    // says where its measurements came from.
    let model = dir.join("model.json");
    let o = contention(&["calibrate", s(&csv), s(&remote), "-o", s(&model)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let m = crate::common::run::json(&model);
    assert_eq!(
        m["calibration"]["measured_machine"]["simulated"],
        "paper:henri"
    );
    // A model of the CSVs alone (no trace, so no measured machine) still says where its
    // measurements came from: it is never compared with real ones.
    let csv_model = dir.join("csv-model.json");
    let remote_csv = dir.join("remote.csv");
    let o = contention(&[
        "calibrate",
        s(&csv),
        s(&remote_csv),
        "--numa-per-socket",
        "1",
        "-o",
        s(&csv_model),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let real_csv = real_trace().with_extension("csv");
    let e = refused(&["evaluate", "-m", s(&csv_model), s(&real_csv)]);
    assert!(e.contains("is a model of simulated (paper:henri)"), "{e}");
}

#[test]
fn evaluate_and_plot_compare_measurements_only_with_a_model_of_their_origin() {
    let dir = temp_dir("simulate-evaluate-plot");
    let (local, remote, realistic) = (
        dir.join("local.json"),
        dir.join("remote.json"),
        dir.join("realistic.json"),
    );
    for (spec, numa, out) in [
        ("paper:henri", "0,0", &local),
        ("paper:henri", "1,1", &remote),
        ("realistic:henri", "0,0", &realistic),
    ] {
        let o = simulate(spec, numa, out, &["-q", "--max-phase", "0.05"]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let model = dir.join("model.json");
    let o = contention(&["calibrate", s(&local), s(&remote), "-o", s(&model)]);
    assert!(o.status.success(), "{}", stderr(&o));
    // A real CSV: it carries no machine for the model's to differ from.
    let real = real_trace().with_extension("csv");
    let figures = dir.join("figures");
    // A model of simulated traces against a real trace, or against another simulated
    // machine's; and the paper's model (a real machine's) against simulated traces: refused
    // as `check` refuses them, naming the model, the file and both origins.
    for (m, data, theirs, ours) in [
        (
            s(&model),
            s(&real),
            "a real measurement",
            "simulated (paper:henri)",
        ),
        (
            s(&model),
            s(&realistic),
            "simulated (realistic:henri)",
            "simulated (paper:henri)",
        ),
        (
            "paper:henri",
            s(&local),
            "simulated (paper:henri)",
            "a real measurement",
        ),
    ] {
        for args in [
            vec!["evaluate", "-m", m, data],
            vec!["plot", "-m", m, data, "-o", s(&figures)],
        ] {
            let e = refused(&args);
            assert!(
                e.contains(m) && e.contains(data) && e.contains(theirs) && e.contains(ours),
                "{args:?}: {e}"
            );
        }
    }
    assert!(!figures.exists(), "nothing drawn");
    // The model's own machine is compared as usual.
    let o = contention(&["evaluate", "-m", s(&model), s(&local)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = contention(&[
        "plot",
        "-m",
        s(&model),
        s(&local),
        "--csv",
        "-o",
        s(&figures),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The measured points plot writes back as tidy CSV, and the model's, keep the mark.
    for kind in ["measured", "model"] {
        let csv = std::fs::read_dir(&figures)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| s(p).ends_with(&format!("-grid-{kind}.csv")))
            .unwrap_or_else(|| panic!("no grid-{kind}.csv in {}", figures.display()));
        let read = contention::io::tidy_csv::read(&csv).unwrap();
        assert_eq!(
            read.simulated.as_deref(),
            Some("paper:henri"),
            "{}",
            csv.display()
        );
    }
}

#[test]
fn a_trace_whose_simulated_marks_disagree_is_refused_by_every_reader() {
    let dir = temp_dir("simulate-marks");
    let out = dir.join("t.json");
    let o = simulate("paper:henri", "0,0", &out, &["-q", "--max-phase", "0.05"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let simulated = crate::common::run::json(&out);
    // Only `machine.simulated` gone, only `simulation` gone, and two different machines.
    let mut no_machine_mark = simulated.clone();
    no_machine_mark["machine"]
        .as_object_mut()
        .unwrap()
        .remove("simulated");
    let mut no_simulation = simulated.clone();
    no_simulation.as_object_mut().unwrap().remove("simulation");
    let mut two_machines = simulated.clone();
    two_machines["simulation"]["machine"] = "realistic:henri".into();
    for (name, trace) in [
        ("no-machine-mark", no_machine_mark),
        ("no-simulation", no_simulation),
        ("two-machines", two_machines),
    ] {
        let path = dir.join(format!("{name}.json"));
        std::fs::write(&path, serde_json::to_string(&trace).unwrap()).unwrap();
        let p = s(&path);
        let figures = dir.join(format!("{name}-figures"));
        for args in [
            vec!["calibrate", p, "--local-only"],
            vec!["evaluate", "-m", "paper:henri", p],
            vec!["plot", "-m", "paper:henri", p, "-o", s(&figures)],
            vec!["check", "-m", "paper:henri", p],
            vec!["measure", "--simulate", "paper:henri", "-o", p, "--resume"],
            vec!["measure", "-o", p, "--resume", "--cores", "1..2"],
        ] {
            let e = refused(&args);
            assert!(
                e.contains(p)
                    && e.contains("machine.simulated")
                    && e.contains("simulation.machine")
                    && e.contains("the file was edited or is corrupt"),
                "{name}: {args:?}: {e}"
            );
        }
    }
}

/// Per bandwidth, the median over core counts of the standard deviation of a phase's log
/// median between the runs of `t` (core counts every run measured), and the median
/// within-run half-width of its phases, relative.
fn run_statistics(t: &contention::trace::Trace) -> ([f64; 4], [f64; 4]) {
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let cores: Vec<u32> = t.runs[0].points.iter().map(|p| p.cores).collect();
    let sd = std::array::from_fn(|q| {
        let per_core: Vec<f64> = cores
            .iter()
            .filter_map(|&n| {
                let logs: Vec<f64> = t
                    .runs
                    .iter()
                    .filter_map(|r| r.points.iter().find(|p| p.cores == n))
                    .map(|p| p.phases()[q].summary.median.ln())
                    .collect();
                (logs.len() == t.runs.len()).then(|| {
                    let m = logs.iter().sum::<f64>() / logs.len() as f64;
                    (logs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (logs.len() - 1) as f64)
                        .sqrt()
                })
            })
            .collect();
        median(per_core)
    });
    let width = std::array::from_fn(|q| {
        median(
            t.runs
                .iter()
                .flat_map(|r| &r.points)
                .filter_map(|p| {
                    let ph = &p.phases()[q];
                    ph.ci95.map(|(lo, hi)| (hi - lo) / 2.0 / ph.summary.median)
                })
                .collect(),
        )
    });
    (sd, width)
}

/// The simulators' noise is learned from the real 16-core node's three default runs: three
/// simulated runs of 14 core counts show its run-to-run spread and within-run widths, per
/// bandwidth, within a factor of two (the scatter of three runs' statistics; methodology.md
/// has the table), where a simulation without noise between runs shows a tenth of it.
#[test]
fn simulated_runs_scatter_as_the_real_nodes_runs() {
    let real = trace_file::read(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/real-16core/trace-default-14cores-3runs.json"
    )))
    .unwrap();
    let (real_sd, real_width) = run_statistics(&real);
    let dir = temp_dir("simulate-noise-model");
    let mut sd = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
    let mut width = sd.clone();
    for seed in ["1", "2", "3"] {
        let out = dir.join(format!("s{seed}.json"));
        let o = contention(&[
            "measure",
            "--simulate",
            "paper:henri",
            "--cores",
            "1..14",
            "--runs",
            "3",
            "--seed",
            seed,
            "-q",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let (s, w) = run_statistics(&trace_file::read(&out).unwrap());
        for q in 0..4 {
            sd[q].push(s[q]);
            width[q].push(w[q]);
        }
    }
    let mid = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[1]
    };
    for q in 0..4 {
        let (s, w) = (mid(&mut sd[q]), mid(&mut width[q]));
        assert!(
            (0.5..2.0).contains(&(s / real_sd[q])),
            "bandwidth {q}: run-to-run {s:.4} simulated, {:.4} real",
            real_sd[q]
        );
        assert!(
            (0.4..2.5).contains(&(w / real_width[q])),
            "bandwidth {q}: within-run half-width {w:.4} simulated, {:.4} real",
            real_width[q]
        );
    }
}

/// Issue 46, F2: `-o t.csv` wrote the tidy CSV (named like the trace with `.csv`) over the
/// trace, every sample lost, exit 0. Refused before measuring, naming the path and a fix;
/// `--resume` of such a name too. Nothing is written.
#[test]
fn a_trace_named_like_its_own_csv_is_refused_before_measuring() {
    let dir = temp_dir("simulate-csv-name");
    let out = dir.join("t.csv");
    let o = simulate("paper:henri", "0,0", &out, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("t.csv: the trace's tidy CSV"), "{err}");
    assert!(err.contains("t.json"), "{err}");
    assert!(!out.exists(), "{err}");
    std::fs::write(&out, "comp_numa\n").unwrap();
    let o = simulate("paper:henri", "0,0", &out, &["--resume"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the trace's tidy CSV"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "comp_numa\n");
    // Named `.json` (or with no extension), the trace and its CSV are two files (the `t.csv`
    // above removed: a CSV already where the trace's goes is refused without --force).
    std::fs::remove_file(&out).unwrap();
    let o = simulate(
        "paper:henri",
        "0,0",
        &dir.join("t"),
        &["--max-phase", "0.05"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(dir.join("t").is_file() && dir.join("t.csv").is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 46, lesser findings of N8's pass: `-o sub/t.csv` was refused but left an empty
/// `sub/` (the directory was made before the name was checked); `-o F2.CSV` passed the check
/// that refuses a trace named like its own CSV (the same file on a case-insensitive file
/// system); `-o sub/t.json` under a regular file `sub` was refused only by the probe. Each is
/// refused (exit 2) creating nothing.
#[test]
fn a_refused_trace_name_creates_no_directory() {
    let dir = temp_dir("simulate-refused-name");
    let file = dir.join("afile");
    std::fs::write(&file, "x").unwrap();
    for (out, says) in [
        (dir.join("sub/t.csv"), "the trace's tidy CSV"),
        (dir.join("sub/F2.CSV"), "the trace's tidy CSV"),
        (dir.join("F2.CSV"), "the trace's tidy CSV"),
        (dir.join("sub/t.Csv"), "the trace's tidy CSV"),
        (
            file.join("t.json"),
            "afile` is a regular file, not a directory",
        ),
        (
            file.join("sub/t.json"),
            "afile` is a regular file, not a directory",
        ),
    ] {
        let o = simulate("paper:henri", "0,0", &out, &["--max-phase", "0.05"]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{}: {err}", out.display());
        assert!(err.contains(says), "{}: {err}", out.display());
        assert!(!dir.join("sub").exists(), "{}: {err}", out.display());
        assert!(!out.exists(), "{}: {err}", out.display());
    }
    let mut left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    left.sort();
    assert_eq!(left, ["afile"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 46, lesser finding: `measure -o t4.json` replaced an existing, unrelated `t4.csv`
/// with the trace's CSV, without `--force` (the trace itself was protected). Refused like
/// the trace, naming the CSV; `--force` overwrites it, and `--resume` continues the trace
/// beside its own CSV.
#[test]
fn an_unrelated_csv_where_the_trace_csv_goes_is_kept_without_force() {
    let dir = temp_dir("simulate-unrelated-csv");
    let out = dir.join("t4.json");
    let csv = dir.join("t4.csv");
    std::fs::write(&csv, "mine\n").unwrap();
    let o = simulate("paper:henri", "0,0", &out, &["--max-phase", "0.05"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("t4.csv` exists") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), "mine\n");
    assert!(!out.exists(), "{err}");
    let o = simulate(
        "paper:henri",
        "0,0",
        &out,
        &["--max-phase", "0.05", "--force"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&csv)
        .unwrap()
        .starts_with("comp_numa"));
    let o = simulate(
        "paper:henri",
        "0,0",
        &out,
        &["--max-phase", "0.05", "--runs", "2", "--resume"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The plan's `trace       at most X MiB` line, in bytes.
fn planned_trace_bytes(plan: &str) -> f64 {
    let line = plan
        .lines()
        .find_map(|l| l.strip_prefix("trace       at most "))
        .unwrap_or_else(|| panic!("no trace line: {plan}"));
    let mut words = line.split_whitespace();
    let value: f64 = words.next().unwrap().parse().unwrap();
    let unit = match words.next().unwrap() {
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        u => panic!("unit {u}: {plan}"),
    };
    value * unit
}

/// Issue 46, N9: `--runs 100 --cores 1..18 --max-phase 0.05` was accepted (`--dry-run` said
/// nothing of its size) and its trace passed the readers' 64 MiB after about ten runs, every
/// later point unresumable. The plan bounds the trace's size; past the limit it is refused
/// before anything is drawn, naming the options, the limit and what fits; what it says fits
/// does. The bound holds for the traces written, and is within 2.5 times of them.
#[test]
fn a_trace_that_could_pass_the_readers_limit_is_refused_and_the_bound_holds() {
    let dir = temp_dir("simulate-trace-size");
    let out = dir.join("big.json");
    let args = |runs: &str, extra: &[&str]| {
        let mut a = vec![
            "measure",
            "--simulate",
            "paper:henri",
            "--cores",
            "1..18",
            "--max-phase",
            "0.05",
            "--runs",
        ];
        a.push(runs);
        a.extend_from_slice(extra);
        a.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let run = |a: Vec<String>| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        contention(&a)
    };
    for extra in [&["-o", s(&out)][..], &["--dry-run"][..]] {
        let o = run(args("100", extra));
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {err}");
        for needle in [
            "--runs 100 x 18 core count(s) (--cores 1..18)",
            "--max-phase 0.05",
            "past the 64 MiB every reader",
            "--runs 6, or --cores 1..4 with --runs 100 would fit",
        ] {
            assert!(err.contains(needle), "{extra:?}: {needle}: {err}");
        }
        assert!(!out.exists() && !dir.join("big.csv").exists(), "{err}");
    }
    let o = run(args("6", &["--dry-run"]));
    assert!(o.status.success(), "{}", stderr(&o));

    // The bound against what is written: two runs of the short phases, where the
    // communications stretch the parallel phases; billy's default sweep.
    for (a, name) in [
        (args("2", &[]), "henri"),
        (
            ["measure", "--simulate", "paper:billy", "--runs", "1"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            "billy",
        ),
    ] {
        let mut dry = a.clone();
        dry.push("--dry-run".into());
        let o = run(dry);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let bound = planned_trace_bytes(&String::from_utf8_lossy(&o.stdout));
        let path = dir.join(format!("{name}.json"));
        let mut a = a;
        a.extend(["-q".to_string(), "-o".into(), s(&path).into()]);
        let o = run(a);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let written = std::fs::metadata(&path).unwrap().len() as f64;
        assert!(written <= bound, "{name}: {written} written, {bound} bound");
        assert!(
            bound <= 2.5 * written,
            "{name}: {written} written, {bound} bound"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--resume --dry-run` plans the resume: the trace read and checked as the resume reads it
/// (a missing, corrupt or differently measured one refused, exit 2, and the trace left as it
/// was), its core counts and runs in the plan. It planned the options alone, exit 0 (issue 46).
#[test]
fn a_dry_run_of_a_resume_plans_the_trace_it_continues() {
    let dir = temp_dir("simulate-resume-dry-run");
    let t = dir.join("t.json");
    let (ts, missing) = (s(&t).to_string(), s(&dir.join("missing.json")).to_string());
    let base = [
        "measure",
        "--simulate",
        "paper:henri",
        "--max-phase",
        "0.05",
    ];
    let with = |extra: &[&str]| -> Vec<String> {
        base.iter().chain(extra).map(|a| a.to_string()).collect()
    };
    let run = |a: Vec<String>| contention(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let o = run(with(&["--cores", "1,2", "--runs", "2", "-q", "-o", &ts]));
    assert!(o.status.success(), "{}", stderr(&o));
    let saved = std::fs::read(&t).unwrap();

    let o = run(with(&["--resume", "--dry-run", "-o", &ts, "--cores", "4"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let plan = String::from_utf8_lossy(&o.stdout).to_string();
    for needle in ["3 computing-core count(s): 1..2,4", "runs        2,"] {
        assert!(plan.contains(needle), "{needle}: {plan}");
    }

    let err = refused(
        &with(&["--resume", "--dry-run", "-o", &missing])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert!(err.contains("does not exist"), "{err}");
    let err = refused(
        &with(&["--resume", "--dry-run", "-o", &ts, "--seed", "2"])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert!(err.contains("measured otherwise"), "{err}");
    std::fs::write(&t, &saved[..saved.len() / 2]).unwrap();
    let err = refused(
        &with(&["--resume", "--dry-run", "-o", &ts])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert!(err.contains("not a JSON trace"), "{err}");
    assert_eq!(std::fs::read(&t).unwrap(), &saved[..saved.len() / 2]);
    std::fs::remove_dir_all(&dir).unwrap();
}
