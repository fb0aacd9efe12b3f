//! Hostile files, paths and sizes: each test reproduces one defect an adversarial review
//! found (a write that replaced a device, an input that never ended, a core range that
//! allocated gigabytes, a model that predicted nonsense) and checks the refusal instead.
//!
//! Commands that could exhaust memory run under `prlimit --as` (1 GiB), so a regression shows
//! as a failed test, not as a machine out of memory.

use crate::common::run::BIN;
use crate::common::{contention, stderr, stdout, temp_dir};
use std::os::unix::fs::FileTypeExt;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const GIB: u64 = 1 << 30;

/// Runs the binary with its address space capped at 1 GiB and killed after 20 s.
fn capped(args: &[&str]) -> (Output, Duration) {
    let start = Instant::now();
    let out = Command::new("timeout")
        .args(["-s", "KILL", "20", "prlimit", &format!("--as={GIB}"), "--"])
        .arg(BIN)
        .args(args)
        .output()
        .expect("timeout and prlimit run");
    (out, start.elapsed())
}

fn mkfifo(path: &std::path::Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

fn is_fifo(path: &std::path::Path) -> bool {
    std::fs::symlink_metadata(path)
        .map(|m| m.file_type().is_fifo())
        .unwrap_or(false)
}

/// Item 1: `-o` onto a FIFO (or a device, or a directory) replaced it with a regular file.
#[test]
fn outputs_never_replace_what_is_not_a_regular_file() {
    let dir = temp_dir("hostile-out");
    let fifo = dir.join("pipe");
    mkfifo(&fifo);
    let fifo_s = fifo.to_str().unwrap();
    for args in [
        vec!["predict", "-m", "paper:henri", "-o", fifo_s],
        vec!["predict", "-m", "paper:henri", "-o", dir.to_str().unwrap()],
        vec![
            "measure",
            "--dry-run",
            "--topology",
            "tests/data/topologies/24em64t-2n6c2t-pci.xml",
            "--force",
            "-o",
            fifo_s,
        ],
    ] {
        let out = contention(&args);
        if args[0] == "measure" {
            // A dry run writes nothing; the real run is refused before MPI starts (below).
            continue;
        }
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("not a regular file"),
            "{}",
            stderr(&out)
        );
        assert!(is_fifo(&fifo), "{args:?} replaced the FIFO");
    }
    let out = contention(&["measure", "--force", "-o", fifo_s, "--cores", "1"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("a FIFO"), "{}", stderr(&out));
    assert!(
        !stderr(&out).contains("mpirun"),
        "refused before MPI: {}",
        stderr(&out)
    );
    assert!(is_fifo(&fifo) && !dir.join("pipe.csv").exists());
    let out = contention(&[
        "measure",
        "--force",
        "-o",
        dir.to_str().unwrap(),
        "--cores",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("a directory"), "{}", stderr(&out));
    // `-` is standard output, the one non-regular target that is meant.
    let out = contention(&["predict", "-m", "paper:henri", "-n", "1", "-o", "-"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("MB/s") || !stdout(&out).is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Item 7: a FIFO blocked forever, `/dev/zero` read until memory ran out.
#[test]
fn inputs_must_be_regular_files_of_bounded_size() {
    let dir = temp_dir("hostile-in");
    let fifo = dir.join("pipe.json");
    mkfifo(&fifo);
    let fifo_s = fifo.to_str().unwrap();
    for args in [
        vec!["predict", "-m", "/dev/zero"],
        vec!["predict", "-m", fifo_s],
        vec!["calibrate", "/dev/urandom"],
        vec!["evaluate", "-m", "paper:henri", fifo_s],
        vec!["network", "/dev/zero"],
        vec![
            "plot",
            "-m",
            "paper:henri",
            "/dev/zero",
            "-o",
            dir.to_str().unwrap(),
        ],
    ] {
        let (out, took) = capped(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("not a regular file"),
            "{args:?}: {}",
            stderr(&out)
        );
        assert!(took < Duration::from_secs(20));
    }
    // Standard input is read only when named `-`.
    let out = crate::common::run::command()
        .args(["predict", "-m", "-", "-n", "1", "-f", "csv"])
        .stdin(std::fs::File::open("model/src/paper/paper-henri.json").unwrap())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("comp_numa"), "{}", stdout(&out));
    let big = dir.join("big.json");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(65 << 20)
        .unwrap();
    let (out, _) = capped(&["predict", "-m", big.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("64 MiB"), "{}", stderr(&out));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Item 5: `--ncores 1..4294967295` allocated 16 GiB before the range was checked.
#[test]
fn huge_core_ranges_are_refused_before_allocating() {
    for args in [
        vec!["predict", "-m", "paper:henri", "--ncores", "1..4294967295"],
        vec!["predict", "-m", "paper:henri", "--ncores", "1..100000000"],
        vec![
            "advise",
            "-m",
            "paper:henri",
            "--comp-bytes",
            "1G",
            "--comm-bytes",
            "1G",
            "--ncores",
            "1..4294967295",
        ],
        vec!["measure", "--dry-run", "--cores", "1..4294967295"],
    ] {
        let (out, _) = capped(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("at most 4096"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
}

/// A model file in `dir` with henri's parameters and `edit` applied to its JSON.
fn model_with(dir: &std::path::Path, name: &str, edit: impl Fn(&mut serde_json::Value)) -> String {
    let text = include_str!("../model/src/paper/paper-henri.json");
    let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
    edit(&mut v);
    let path = dir.join(name);
    std::fs::write(&path, v.to_string()).unwrap();
    path.to_str().unwrap().to_string()
}

/// Item 6: 1024 NUMA nodes x 4096 cores passed validation, then `predict` ran out of memory.
#[test]
fn huge_models_are_refused_with_the_limit_named() {
    let dir = temp_dir("hostile-huge");
    let m = model_with(&dir, "huge.json", |v| {
        v["machine"]["numa_nodes"] = 1024.into();
        v["machine"]["numa_per_socket"] = 512.into();
        v["machine"]["cores_per_socket"] = 4096.into();
        v["remote"]["delta_r"] = 0.into();
    });
    let (out, took) = capped(&["predict", "-m", &m]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("1048576"), "{}", stderr(&out));
    assert!(took < Duration::from_secs(20));
    // `plot` with t_par_max2 = 1.797e308 allocated 4 GiB and aborted.
    let m2 = model_with(&dir, "tpm2.json", |v| {
        v["local"]["t_par_max2"] = 1.797e308.into()
    });
    let plots = dir.join("plots");
    std::fs::create_dir_all(&plots).unwrap();
    let (out, _) = capped(&[
        "plot",
        "-m",
        &m2,
        "tests/data/henri-sweep.csv",
        "-o",
        plots.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("local.t_par_max2"),
        "{}",
        stderr(&out)
    );
    // One placement of the same machine is within the bound and is predicted.
    let (out, _) = capped(&["predict", "-m", &m, "-p", "0,0", "-n", "1..64", "-f", "csv"]);
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Item 9: models contradicting the model's meaning were accepted and predicted parallel
/// bandwidths above the alone ones.
#[test]
fn models_breaking_the_constraints_are_refused_every_rule_listed() {
    let dir = temp_dir("hostile-rules");
    let m = model_with(&dir, "bad.json", |v| {
        v["local"]["t_par_max2"] = 1e6.into();
        v["remote"]["t_seq_max"] = 1.0.into();
    });
    let out = contention(&["predict", "-m", &m]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("local.t_par_max2 = 1000000") && err.contains("equation 1"),
        "{err}"
    );
    assert!(
        err.contains("remote.b_seq_comp") && err.contains("equation 6"),
        "{err}"
    );
    let m = model_with(&dir, "sub.json", |v| {
        v["local"]["b_seq_comm"] = 1e-320.into()
    });
    let out = contention(&["predict", "-m", &m]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("local.b_seq_comm"),
        "{}",
        stderr(&out)
    );
    for name in [
        "billy",
        "bora",
        "dahu",
        "diablo",
        "grvingt",
        "henri",
        "henri-subnuma",
        "occigen",
        "pyxis",
    ] {
        let out = contention(&["predict", "-m", &format!("paper:{name}"), "-f", "csv"]);
        assert!(out.status.success(), "paper:{name}: {}", stderr(&out));
    }
    for fixture in ["henri-sweep", "vm-local"] {
        let path = format!("tests/data/expected/{fixture}.model.json");
        let out = contention(&["predict", "-m", &path, "-f", "csv"]);
        assert!(out.status.success(), "{fixture}: {}", stderr(&out));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Item 13: control characters from a file reached the terminal unescaped.
#[test]
fn control_characters_are_escaped_in_errors() {
    let dir = temp_dir("hostile-ctl");
    let m = model_with(&dir, "ctl.json", |v| {
        v["machine"]["name"] = "henri\x1b]0;owned\x07".into()
    });
    let out = contention(&["predict", "-m", &m]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(!stdout(&out).contains('\x1b') && !stderr(&out).contains('\x1b'));
    assert!(stderr(&out).contains("machine.name"), "{}", stderr(&out));
    let mut t: serde_json::Value =
        serde_json::from_str(include_str!("data/traces/vm-local.json")).unwrap();
    t["machine"]["hostname"] = "vm\x1b[2J".into();
    let trace = dir.join("ctl-trace.json");
    std::fs::write(&trace, t.to_string()).unwrap();
    let out = contention(&["calibrate", trace.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(!stdout(&out).contains('\x1b') && !stderr(&out).contains('\x1b'));
    assert!(stderr(&out).contains("hostname"), "{}", stderr(&out));
    let path = dir.join("evil\x1b[31m.json");
    std::fs::write(&path, "{").unwrap();
    let out = contention(&["predict", "-m", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!stderr(&out).contains('\x1b'), "{:?}", stderr(&out));
    assert!(stderr(&out).contains("\\u{1b}"), "{:?}", stderr(&out));
    std::fs::remove_dir_all(&dir).unwrap();
}

const ONE_COMM: &str = r#"{"alpha": 1e-9, "communications": [
    {"id": "a", "src": "n0", "dst": "n1", "bytes": 1000, "start": 0}]}"#;

/// Item 4: subnormal `bytes`, `alpha` or `bandwidth` made the solver run forever, growing.
/// Item 12: huge `bytes` gave `"end": null`, `start: 1e300` a transfer of 0 s.
/// Item 13: `"bandwidth": 1e-320` was blamed on `alpha`.
#[test]
fn network_values_beyond_the_solver_are_refused_naming_the_field() {
    let dir = temp_dir("hostile-net");
    let cases = [
        (
            "\"bytes\": 1000",
            "\"bytes\": 5e-324",
            "communications[0].bytes",
        ),
        ("\"alpha\": 1e-9", "\"alpha\": 1e-320", "alpha"),
        ("\"alpha\": 1e-9", "\"bandwidth\": 1e-320", "bandwidth"),
        (
            "\"bytes\": 1000",
            "\"bytes\": 1e300",
            "communications[0].bytes",
        ),
        (
            "\"start\": 0",
            "\"start\": 1e300",
            "communications[0].start",
        ),
    ];
    for (from, to, field) in cases {
        let g = dir.join("g.json");
        std::fs::write(&g, ONE_COMM.replace(from, to)).unwrap();
        let (out, took) = capped(&["network", g.to_str().unwrap(), "-f", "json"]);
        assert_eq!(out.status.code(), Some(2), "{to}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("{field}:")),
            "{to}: {}",
            stderr(&out)
        );
        assert!(took < Duration::from_secs(20));
    }
    // A memory model with a subnormal b_seq_comm joined to a valid graph.
    let g = dir.join("g.json");
    std::fs::write(&g, ONE_COMM).unwrap();
    let m = model_with(&dir, "m.json", |v| v["local"]["b_seq_comm"] = 1e-320.into());
    let (out, _) = capped(&[
        "network",
        g.to_str().unwrap(),
        "--memory-model",
        &m,
        "--cores",
        "4",
        "--placement",
        "0,0",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("local.b_seq_comm"),
        "{}",
        stderr(&out)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Item 11: duplicate keys were accepted (last wins) and extra steps ignored.
#[test]
fn penalty_files_that_do_not_fit_exactly_are_refused() {
    let dir = temp_dir("hostile-pen");
    let g = dir.join("g.json");
    std::fs::write(&g, ONE_COMM).unwrap();
    let p = dir.join("p.json");
    std::fs::write(&p, r#"{"steps": [{"a": 1.0, "a": 2.0}]}"#).unwrap();
    let out = contention(&[
        "network",
        g.to_str().unwrap(),
        "--penalties",
        p.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("`a` is given twice"),
        "{}",
        stderr(&out)
    );
    std::fs::write(&p, r#"{"steps": [{"a": 1.0}, {"a": 2.0}]}"#).unwrap();
    let out = contention(&[
        "network",
        g.to_str().unwrap(),
        "--penalties",
        p.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("steps[1]") && stderr(&out).contains("extra"),
        "{}",
        stderr(&out)
    );
    std::fs::write(&p, r#"{"steps": [{"a": 1.0}]}"#).unwrap();
    let out = contention(&[
        "network",
        g.to_str().unwrap(),
        "--penalties",
        p.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Item 12: non-finite results came out with exit 0; item 13: misleading messages.
#[test]
fn non_finite_results_and_misleading_messages() {
    let out = contention(&[
        "overlap",
        "--comp-time",
        "1e308",
        "--comm-time",
        "1e308",
        "--comp-loss",
        "1e308",
        "--comm-loss",
        "2",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stderr(&out).contains("--comp-time 1e308") && !stdout(&out).contains("NaN"));
    let out = contention(&[
        "check",
        "-m",
        "paper:henri",
        "tests/data/henri-sweep.csv",
        "--tolerance",
        "1e308",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--tolerance"), "{}", stderr(&out));
    let out = contention(&["measure", "--dry-run", "--message-size", "-5"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("negative") && !stderr(&out).contains("unknown unit"));
    let out = contention(&[
        "calibrate",
        "tests/data/henri-sweep.csv",
        "--numa-nodes",
        "1000000",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--numa-nodes"), "{}", stderr(&out));
    assert!(!stderr(&out).contains("measurements"), "{}", stderr(&out));
}

/// A copy of the henri sweep CSV with `edit` applied to its second data row's fields.
fn csv_with(dir: &std::path::Path, edit: impl Fn(&mut Vec<String>)) -> String {
    let text = std::fs::read_to_string("tests/data/henri-sweep.csv").unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut fields: Vec<String> = lines[2].split(',').map(str::to_string).collect();
    edit(&mut fields);
    lines[2] = fields.join(",");
    let path = dir.join("edited.csv");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path.to_str().unwrap().to_string()
}

/// Item 10 (CSV) and item 13 (a CSV of 1e308 gave `t_par_max = inf` with no file or line).
#[test]
fn impossible_csv_rows_are_refused_naming_file_and_line() {
    let dir = temp_dir("hostile-csv");
    // Columns: comp_numa,comm_numa,cores,comp_alone,comm_alone,comp_parallel,comm_parallel.
    let speedup = csv_with(&dir, |f| {
        let alone: f64 = f[3].parse().unwrap();
        f[5] = (alone * 50.0).to_string();
    });
    let out = contention(&["calibrate", &speedup, "--numa-per-socket", "1"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("edited.csv") && err.contains("line 3") && err.contains("50.0x"),
        "{err}"
    );
    let huge = csv_with(&dir, |f| {
        for v in &mut f[3..] {
            *v = "1e308".into();
        }
    });
    for cmd in ["calibrate", "evaluate"] {
        let mut args = vec![cmd, &huge];
        if cmd == "evaluate" {
            args.extend(["-m", "paper:henri"]);
        }
        let out = contention(&args);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains("edited.csv") && err.contains("line 3"),
            "{err}"
        );
        assert!(!err.contains("inf"), "{err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Item 10 (traces): a point with count 0 but a median, negative samples, min > max, a
/// negative stddev, a trace marked complete with core counts missing.
#[test]
fn impossible_trace_points_are_refused_naming_file_and_point() {
    let dir = temp_dir("hostile-trace");
    let text = include_str!("data/traces/vm-local.json");
    type Edit = fn(&mut serde_json::Value);
    let edits: [(Edit, &str); 6] = [
        (
            |t| t["points"][0]["comp_alone"]["summary"]["count"] = 0.into(),
            "count is 0",
        ),
        (
            |t| t["points"][0]["comm_alone"]["summary"]["stddev"] = (-1.0).into(),
            "stddev is -1",
        ),
        (
            |t| t["points"][0]["comp_parallel"]["summary"]["min"] = 1e9.into(),
            "is above max",
        ),
        (
            |t| t["points"][0]["comm_parallel"]["samples"][0]["mbps"] = (-3.0).into(),
            "samples[0]",
        ),
        (
            |t| {
                let alone = t["points"][0]["comp_alone"]["summary"]["median"]
                    .as_f64()
                    .unwrap();
                let s = &mut t["points"][0]["comp_parallel"]["summary"];
                s["median"] = (alone * 50.0).into();
                s["max"] = (alone * 60.0).into();
                s["mean"] = (alone * 50.0).into();
            },
            "faster in parallel",
        ),
        (
            |t| {
                t["complete"] = true.into();
                t["points"].as_array_mut().unwrap().pop();
            },
            "marked complete",
        ),
    ];
    for (edit, want) in edits {
        let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
        edit(&mut v);
        let path = dir.join("edited.json");
        std::fs::write(&path, v.to_string()).unwrap();
        for cmd in ["calibrate", "evaluate"] {
            let mut args = vec![cmd, path.to_str().unwrap()];
            if cmd == "evaluate" {
                args.extend(["-m", "tests/data/expected/vm-local.model.json"]);
            }
            let out = contention(&args);
            assert_eq!(out.status.code(), Some(2), "{want}: {}", stderr(&out));
            let err = stderr(&out);
            assert!(
                err.contains("edited.json") && err.contains(want),
                "{want}: {err}"
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Item 3: two `measure --force -o same.json` at once both ran, and one run's points were
/// lost. The second is refused, naming the holder, before MPI starts.
#[test]
fn a_trace_being_written_is_locked() {
    let dir = temp_dir("hostile-lock");
    let trace = dir.join("same.json");
    let held =
        contention::measure::sweep::lock::acquire(&trace, "pid 42 on testhost since now").unwrap();
    let out = contention(&[
        "measure",
        "--force",
        "-o",
        trace.to_str().unwrap(),
        "--cores",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("pid 42 on testhost"),
        "{}",
        stderr(&out)
    );
    assert!(
        !stderr(&out).contains("starting"),
        "MPI started: {}",
        stderr(&out)
    );
    assert!(!trace.exists());
    drop(held);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A results root `dir/r` whose node `n1` holds the saved test trace, and a survey manifest
/// of that one node done: what `survey --report-only` and `check --fleet` read.
fn one_node_results(dir: &std::path::Path) -> std::path::PathBuf {
    let root = dir.join("r");
    std::fs::create_dir_all(root.join("n1")).unwrap();
    std::fs::write(
        root.join("n1/trace-numa0-0-nt-store-pong.json"),
        include_str!("data/traces/vm-local.json"),
    )
    .unwrap();
    std::fs::write(
        root.join("survey.json"),
        r#"{"schema_version": 1, "hosts": ["n1"], "options": {}, "job": 1,
            "job_hosts": ["n1"], "command": [], "rounds": [],
            "nodes": [{"host": "n1", "status": "done"}],
            "started_at": "then", "updated_at": "then"}"#,
    )
    .unwrap();
    root
}

/// Issue 23: a manifest node `..` made `survey --report-only` write `ROOT/../model.json`, and
/// `--hosts ..,.` or `a,,b` passed the dry run.
#[test]
fn host_names_never_lead_out_of_the_results_directory() {
    let dir = temp_dir("hostile-dotdot");
    let root = one_node_results(&dir);
    let manifest = root.join("survey.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        text.replace(r#""host": "n1""#, r#""host": "..""#)
            .replace(r#"["n1"]"#, r#"[".."]"#),
    )
    .unwrap();
    // Traces in the root's parent, where `..` leads.
    std::fs::write(
        dir.join("trace-numa0-0-nt-store-pong.json"),
        include_str!("data/traces/vm-local.json"),
    )
    .unwrap();
    std::fs::create_dir_all(root.join("figures")).unwrap();
    let out = crate::common::run::command()
        .env("CONTENTION_RESULTS", &root)
        .args(["survey", "--report-only", "--figure"])
        .arg(root.join("figures"))
        .output()
        .unwrap();
    assert!(!dir.join("model.json").exists(), "{}", stderr(&out));
    assert!(!root.join("model.json").exists(), "{}", stderr(&out));
    for hosts in ["..,.", "a,,b", "a,b/c", "a,x\x1by"] {
        let out = contention(&["survey", "--hosts", hosts, "--dry-run"]);
        assert_eq!(out.status.code(), Some(2), "{hosts}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("host name"),
            "{hosts}: {}",
            stderr(&out)
        );
        assert!(!stderr(&out).contains('\x1b'), "{:?}", stderr(&out));
        let out = contention(&["measure", "--hosts", hosts, "--dry-run"]);
        assert_eq!(out.status.code(), Some(2), "{hosts}: {}", stderr(&out));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 23: `check --fleet` printed PASS, exit 0, against saved fleets that hold no model.
#[test]
fn a_fleet_check_that_compared_nothing_fails() {
    let dir = temp_dir("hostile-fleet-nothing");
    let root = one_node_results(&dir);
    let empty = dir.join("empty.json");
    std::fs::write(&empty, r#"{"nodes": []}"#).unwrap();
    let failed = dir.join("failed.json");
    std::fs::write(
        &failed,
        r#"{"nodes": [{"host": "n1", "model": null, "error": "calibration failed"}]}"#,
    )
    .unwrap();
    let manifest = root.join("survey.json");
    for saved in [&empty, &failed, &manifest] {
        let out = contention(&[
            "check",
            "--fleet",
            saved.to_str().unwrap(),
            root.to_str().unwrap(),
        ]);
        assert_ne!(out.status.code(), Some(0), "{}", stdout(&out));
        assert!(!stdout(&out).contains("PASS"), "{}", stdout(&out));
        assert!(
            stderr(&out).contains("nothing was compared"),
            "{}: {}",
            saved.display(),
            stderr(&out)
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 23: `--report-only` wrote every node's `model.json`, then failed on the figure's
/// directory: the output location is checked before anything is written.
#[test]
fn report_only_writes_nothing_when_its_outputs_cannot_be_made() {
    let dir = temp_dir("hostile-report-only");
    let root = one_node_results(&dir);
    let file = dir.join("a-file");
    std::fs::write(&file, "").unwrap();
    let out = crate::common::run::command()
        .env("CONTENTION_RESULTS", &root)
        .args(["survey", "--report-only", "--figure"])
        .arg(file.join("sub"))
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("a-file/sub"), "{}", stderr(&out));
    assert!(!root.join("n1/model.json").exists(), "{}", stderr(&out));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 23: `man DIR` wrote the first pages, then failed on a FIFO among the targets,
/// leaving old and new pages mixed.
#[test]
fn man_writes_every_page_or_none() {
    let dir = temp_dir("hostile-man");
    std::fs::write(dir.join("contention.1"), "old").unwrap();
    mkfifo(&dir.join("contention-survey.1"));
    let out = contention(&["man", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("FIFO"), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(dir.join("contention.1")).unwrap(),
        "old"
    );
    assert!(!dir.join("contention-measure.1").exists());
    assert!(is_fifo(&dir.join("contention-survey.1")));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 23: a saved `model.json` that is a FIFO was answered "make it with `contention
/// measure`"; and a trace name with escape codes went raw into the `traces:` line.
#[test]
fn results_that_are_not_files_or_have_odd_names_are_said_so() {
    let dir = temp_dir("hostile-results-names");
    let host = contention::results::this_host();
    let node = dir.join(contention::results::host_dir(&host).file_name().unwrap());
    std::fs::create_dir_all(&node).unwrap();
    mkfifo(&node.join("model.json"));
    let out = crate::common::run::command()
        .env("CONTENTION_RESULTS", &dir)
        .args(["predict", "--ncores", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("not a regular file"),
        "{}",
        stderr(&out)
    );
    assert!(is_fifo(&node.join("model.json")));
    std::fs::write(
        node.join("trace-numa0-0-x\x1b[2J-pong.json"),
        include_str!("data/traces/vm-local.json"),
    )
    .unwrap();
    let out = crate::common::run::command()
        .env("CONTENTION_RESULTS", &dir)
        .args(["calibrate", "-o", "-"])
        .output()
        .unwrap();
    assert!(stderr(&out).contains("traces: "), "{}", stderr(&out));
    assert!(!stderr(&out).contains('\x1b'), "{:?}", stderr(&out));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 23: `Trace::missing_cores` compared every configured core count with every point:
/// a trace of 1.5 M configured counts and 20 k points kept `calibrate` busy for minutes,
/// then printed every missing count on one line.
#[test]
fn a_huge_trace_marked_complete_is_refused_quickly_and_briefly() {
    let dir = temp_dir("hostile-missing-cores");
    let mut t: serde_json::Value =
        serde_json::from_str(include_str!("data/traces/vm-local.json")).unwrap();
    let mut point = t["points"][0].clone();
    for phase in ["comp_alone", "comm_alone", "comp_parallel", "comm_parallel"] {
        point[phase]["samples"] = serde_json::json!([]);
    }
    t["points"] = (0..20_000u32)
        .map(|i| {
            let mut p = point.clone();
            p["cores"] = (5_000 + i).into();
            p
        })
        .collect();
    t["config"]["cores"] = (0..1_500_000u32).map(|i| 1 + i % 4096).collect();
    t["complete"] = true.into();
    let path = dir.join("huge.json");
    std::fs::write(&path, t.to_string()).unwrap();
    let (out, _) = capped(&["calibrate", path.to_str().unwrap(), "-o", "-"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("marked complete"),
        "{}",
        &err[..err.len().min(2000)]
    );
    assert!(err.contains("more"), "{}", &err[..err.len().min(2000)]);
    assert!(err.len() < 2000, "{} bytes of error", err.len());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 35, item 5: an `uncertainty` block upside down or empty was accepted, and `predict
/// --intervals` printed a 309-digit core range, or `NaN..NaN` for no replicate.
#[test]
fn a_model_s_uncertainty_block_is_validated_before_use() {
    let dir = temp_dir("hostile-uncertainty");
    let with = |name: &str, local_n_par: serde_json::Value, replicates: serde_json::Value| {
        model_with(&dir, name, |v| {
            let point = |side: &serde_json::Value| {
                let mut o = serde_json::Map::new();
                for (k, x) in side.as_object().unwrap() {
                    o.insert(k.clone(), serde_json::json!([x, x]));
                }
                serde_json::Value::Object(o)
            };
            let mut local = point(&v["local"]);
            local["n_par_max"] = local_n_par.clone();
            let reps = if replicates.is_null() {
                serde_json::json!([{"local": v["local"], "remote": v["remote"]}])
            } else {
                replicates.clone()
            };
            v["uncertainty"] = serde_json::json!({
                "method": "bootstrap", "resamples": 1, "seed": 1, "level": 0.95,
                "local": local, "remote": point(&v["remote"]), "replicates": reps,
            });
        })
    };
    let good = with(
        "good.json",
        serde_json::json!([16, 17]),
        serde_json::Value::Null,
    );
    let out = contention(&["predict", "-m", &good, "--intervals", "-n", "1,17"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let huge = with(
        "huge.json",
        serde_json::json!([1e308, -1e308]),
        serde_json::Value::Null,
    );
    let empty = with(
        "empty.json",
        serde_json::json!([16, 17]),
        serde_json::json!([]),
    );
    for (m, field) in [
        (&huge, "uncertainty.local.n_par_max = [1e308, -1e308]"),
        (&empty, "uncertainty.replicates"),
    ] {
        let out = contention(&["predict", "-m", m, "--intervals", "-f", "json"]);
        assert_eq!(out.status.code(), Some(2), "{m}: {}", stdout(&out));
        assert!(stderr(&out).contains(field), "{}", stderr(&out));
        assert!(stderr(&out).len() < 2000, "{}", stderr(&out));
        let plots = dir.join("plots");
        let out = contention(&[
            "plot",
            "-m",
            m,
            "tests/data/henri-sweep.csv",
            "--figure",
            "stacked",
            "-o",
            plots.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(2), "{m}: {}", stderr(&out));
        assert!(stderr(&out).contains(field), "{}", stderr(&out));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Whether `text` holds a control character other than newline and tab: one that would
/// drive the terminal (ESC, or the C1 CSI U+009B, which some terminals obey alone).
fn raw_control(text: &str) -> Option<char> {
    text.chars()
        .find(|&c| c.is_control() && c != '\n' && c != '\t')
}

/// Issue 35, item 12: file names holding ESC and the C1 CSI (U+009B) reached the terminal
/// raw: `measure --simulate`'s "trace in", the dry runs' `command` line, `calibrate` and
/// `plot`'s "wrote", the "# model" header, `check`'s list of files, and `--hosts`' error.
#[test]
fn file_names_with_escape_codes_never_reach_the_terminal_raw() {
    let dir = temp_dir("hostile-escape-names");
    let evil = "x\x1b[31m\u{9b}2J";
    let path = |stem: &str| {
        dir.join(format!("{stem}{evil}"))
            .to_str()
            .unwrap()
            .to_string()
    };
    let trace = path("trace") + ".json";
    let model = path("model") + ".json";
    let plots = path("plots");
    let checked = dir.join("checked");
    std::fs::create_dir_all(&checked).unwrap();
    let topology = "tests/data/topologies/24em64t-2n6c2t-pci.xml";
    let s = |a: &[&str]| a.iter().map(|x| x.to_string()).collect::<Vec<String>>();
    let fleet = path("fleet");
    let checked_s = checked.to_str().unwrap();
    let steps: Vec<(&str, Vec<String>)> = vec![
        (
            "measure --simulate",
            s(&[
                "measure",
                "--simulate",
                "paper:henri",
                "--cores",
                "1..2",
                "-o",
                &trace,
            ]),
        ),
        (
            "measure --dry-run",
            s(&["measure", "--dry-run", "--topology", topology, "-o", &trace]),
        ),
        (
            "survey --dry-run",
            s(&[
                "survey",
                "--dry-run",
                "--hosts",
                "localhost,127.0.0.2",
                "-o",
                &fleet,
            ]),
        ),
        (
            "calibrate -o",
            s(&["calibrate", &trace, "--local-only", "-o", &model]),
        ),
        ("plot -o", s(&["plot", "-m", &model, &trace, "-o", &plots])),
        ("predict -m", s(&["predict", "-m", &model, "-n", "1"])),
        ("evaluate -m", s(&["evaluate", "-m", &model, &trace])),
        (
            "advise -m",
            s(&[
                "advise",
                "-m",
                &model,
                "--comp-bytes",
                "1GB",
                "--comm-bytes",
                "1GB",
            ]),
        ),
        ("check -m M dir/", s(&["check", "-m", &model, checked_s])),
    ];
    for (what, args) in steps {
        if what.starts_with("check") {
            std::fs::copy(&trace, checked.join(format!("t{evil}.json"))).unwrap();
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = contention(&args);
        let (o, e) = (stdout(&out), stderr(&out));
        assert_eq!(raw_control(&o), None, "{what}: stdout {o:?}");
        assert_eq!(raw_control(&e), None, "{what}: stderr {e:?}");
        // The name was printed, escaped (or, in a command line to copy, shell-quoted as
        // `$'...\xc2\x9b...'`): the test saw what it is about.
        let shown = |t: &str| t.contains("\\u{9b}") || t.contains("\\xc2\\x9b");
        assert!(
            shown(&o) || shown(&e),
            "{what}: the name is not shown: {o:?} {e:?}"
        );
        if !what.starts_with("check") {
            assert!(out.status.success(), "{what}: {e}");
        }
    }
    let out = contention(&["measure", "--dry-run", "--hosts", "a\u{9b}31m,b"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(raw_control(&stderr(&out)), None, "{:?}", stderr(&out));
    assert!(stderr(&out).contains("--hosts"), "{}", stderr(&out));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 46, items 1, 2 and 8: a saved fleet directory whose `HOST/model.json` is a FIFO
/// blocked `check --fleet` for ever, `/dev/zero` was read until memory ran out, and a FIFO,
/// device or directory on a node that was also measured anew made it "new, nothing to
/// compare" and the check passed. Each is refused at once (exit 2), naming the path; so is a
/// saved fleet report of an unknown schema version.
#[test]
fn a_saved_fleet_whose_model_is_no_regular_file_is_refused() {
    let dir = temp_dir("hostile-fleet-fifo");
    let root = one_node_results(&dir);
    std::fs::create_dir_all(root.join("n2")).unwrap();
    std::fs::copy(
        root.join("n1/trace-numa0-0-nt-store-pong.json"),
        root.join("n2/trace-numa0-0-nt-store-pong.json"),
    )
    .unwrap();
    let model = dir.join("model.json");
    let out = contention(&[
        "calibrate",
        root.join("n1/trace-numa0-0-nt-store-pong.json")
            .to_str()
            .unwrap(),
        "-o",
        model.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for bad_host in ["a", "n2"] {
        for kind in ["fifo", "device", "directory"] {
            let saved = dir.join(format!("saved-{bad_host}-{kind}"));
            std::fs::create_dir_all(saved.join("n1")).unwrap();
            std::fs::copy(&model, saved.join("n1/model.json")).unwrap();
            std::fs::create_dir_all(saved.join(bad_host)).unwrap();
            let bad = saved.join(bad_host).join("model.json");
            match kind {
                "fifo" => mkfifo(&bad),
                "device" => std::os::unix::fs::symlink("/dev/zero", &bad).unwrap(),
                _ => std::fs::create_dir(&bad).unwrap(),
            }
            let (out, _) = capped(&[
                "check",
                "--fleet",
                saved.to_str().unwrap(),
                root.to_str().unwrap(),
            ]);
            let what = format!("{bad_host} {kind}: {}{}", stdout(&out), stderr(&out));
            assert_eq!(out.status.code(), Some(2), "{what}");
            assert!(stderr(&out).contains("not a regular file"), "{what}");
            assert!(
                stderr(&out).contains(&format!("{bad_host}/model.json")),
                "{what}"
            );
            assert!(!stdout(&out).contains("PASS"), "{what}");
        }
    }
    // A fleet report of a layout this build does not know.
    let text = std::fs::read_to_string(&model).unwrap();
    let report = dir.join("fleet-99.json");
    std::fs::write(
        &report,
        format!(r#"{{"schema_version": 99, "nodes": [{{"host": "n1", "model": {text}}}]}}"#),
    )
    .unwrap();
    let out = contention(&[
        "check",
        "--fleet",
        report.to_str().unwrap(),
        root.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("schema_version 99 is not supported"),
        "{}",
        stderr(&out)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 46: every file a command reads goes through the bounded reader; `--topology` was
/// opened by hwloc directly, so a FIFO blocked the plan for ever.
#[test]
fn a_topology_that_is_no_regular_file_is_refused_at_once() {
    let dir = temp_dir("hostile-topology-fifo");
    let fifo = dir.join("topo.xml");
    mkfifo(&fifo);
    for topology in [fifo.to_str().unwrap(), "/dev/zero"] {
        let (out, _) = capped(&["measure", "--dry-run", "--topology", topology]);
        assert_eq!(out.status.code(), Some(2), "{topology}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("not a regular file"),
            "{topology}: {}",
            stderr(&out)
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--topology -` reads standard input, as `-` does for every input: it panicked (exit 101)
/// inside hwloc's binding, which took `-` for a file name.
#[test]
fn a_topology_on_standard_input_is_planned_for() {
    let xml = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/topologies/24em64t-2n6c2t-pci.xml");
    let out = Command::new(BIN)
        .args(["measure", "--dry-run", "--topology", "-"])
        .stdin(std::fs::File::open(xml).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let plan = format!("{}{}", stdout(&out), stderr(&out));
    assert!(plan.contains("machine     mirage004"), "{plan}");
}

/// An output that is one of the command's inputs is refused (exit 2) and the input left as
/// it was: `show t.json -o t.json` replaced the trace with its report, `predict -m m.json -o
/// m.json` the model with its predictions, exit 0 (issue 46). By another name too (`./`).
#[test]
fn an_output_that_is_an_input_is_refused_and_the_input_kept() {
    let dir = temp_dir("output-is-input");
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let (t, m) = (dir.join("t.json"), dir.join("m.json"));
    std::fs::copy(data.join("traces/vm-local.json"), &t).unwrap();
    std::fs::copy(data.join("expected/vm-local.model.json"), &m).unwrap();
    let (ts, ms) = (t.to_str().unwrap(), m.to_str().unwrap());
    let t_other = format!("{}/./t.json", dir.display());
    let kept = (std::fs::read(&t).unwrap(), std::fs::read(&m).unwrap());
    for args in [
        &["show", ts, "-o", ts][..],
        &["show", ts, "-o", &t_other],
        &["calibrate", "--local-only", ts, "-o", ts],
        &["check", "--model", ms, ts, "-o", ms],
        &["check", "--model", ms, ts, "-o", ts],
        &["evaluate", "--model", ms, ts, "-o", ts],
        &["predict", "--model", ms, "-o", ms],
        &[
            "advise",
            "--model",
            ms,
            "--comp-bytes",
            "1G",
            "--comm-bytes",
            "1G",
            "-o",
            ms,
        ],
    ] {
        let o = contention(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("an input of this command"), "{args:?}: {err}");
        assert_eq!(std::fs::read(&t).unwrap(), kept.0, "{args:?}");
        assert_eq!(std::fs::read(&m).unwrap(), kept.1, "{args:?}");
    }
    // Another file passes.
    let o = contention(&["show", ts, "-o", dir.join("shown.txt").to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `plot -o` naming a file (a trace, a device) is bad input, exit 2, said before the inputs
/// are read, and the file is left as it was; it failed creating the directory, exit 1.
#[test]
fn plot_into_a_file_is_refused_as_bad_input() {
    let dir = temp_dir("plot-into-a-file");
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let t = dir.join("t.json");
    std::fs::copy(data.join("traces/vm-local.json"), &t).unwrap();
    let kept = std::fs::read(&t).unwrap();
    let model = data.join("expected/vm-local.model.json");
    for out in [t.to_str().unwrap(), "/dev/null"] {
        let o = contention(&[
            "plot",
            "--model",
            model.to_str().unwrap(),
            t.to_str().unwrap(),
            "--figure",
            "sweep",
            "-o",
            out,
        ]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{out}: {err}");
        assert!(
            err.starts_with("error: -o: ") && err.contains("not a directory"),
            "{out}: {err}"
        );
    }
    assert_eq!(std::fs::read(&t).unwrap(), kept);
    std::fs::remove_dir_all(&dir).unwrap();
}
