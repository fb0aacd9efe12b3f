//! The `contention` binary end to end: outputs other tools rely on, and errors that name the
//! bad value with the right exit status.

use crate::common::{contention, stderr, stdout, temp_dir};

const HENRI: &str = include_str!("../model/src/paper/paper-henri.json");

#[test]
fn predict_json_has_the_documented_layout() {
    let o = contention(&[
        "predict",
        "--model",
        "paper:henri",
        "--ncores",
        "1..18",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let placements = v["placements"].as_array().unwrap();
    assert_eq!(placements.len(), 4);
    for p in placements {
        assert!(p["comp_numa"].is_u64() && p["comm_numa"].is_u64());
        let points = p["points"].as_array().unwrap();
        assert_eq!(points.len(), 18);
        for (i, pt) in points.iter().enumerate() {
            assert_eq!(pt["cores"].as_u64(), Some(i as u64 + 1));
            for k in ["comp_alone", "comm_alone", "comp_parallel", "comm_parallel"] {
                assert!(pt[k].as_f64().unwrap() > 0.0, "{k}");
            }
        }
    }
    assert_eq!(v["machine"]["name"], "henri");
    assert!(v["tool"]["rustc"].as_str().unwrap().starts_with("rustc"));
}

#[test]
fn predict_table_marks_shared_nodes_and_names_the_machine() {
    let o = contention(&["predict", "--model", "paper:henri", "--ncores", "4"]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(out.contains("machine henri"), "{out}");
    assert!(out.contains("placement 0,0 *") && out.contains("placement 1,1 *"));
    assert!(out.contains("placement 0,1 ") && !out.contains("placement 0,1 *"));
}

#[test]
fn predict_csv_is_tidy_and_written_to_file() {
    let dir = temp_dir("cli-csv");
    let file = dir.join("pred.csv");
    let o = contention(&[
        "predict",
        "-m",
        "paper:henri-subnuma",
        "-n",
        "1,2,4,8",
        "-f",
        "csv",
        "-o",
        file.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    let text = std::fs::read_to_string(&file).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some(
            "comp_numa,comm_numa,cores,comp_alone,comm_alone,comp_parallel,comm_parallel,\
             comp_loss,comm_loss"
        )
    );
    assert_eq!(lines.count(), 16 * 4);
    // The tidy columns come first: the file is a tidy CSV that calibrate and evaluate read,
    // the loss ratios being extra columns, alone / parallel.
    let rows = contention::io::tidy_csv::parse(&text, "pred.csv")
        .unwrap()
        .rows;
    assert_eq!(rows.len(), 16 * 4);
    let last: Vec<f64> = text
        .lines()
        .last()
        .unwrap()
        .split(',')
        .map(|x| x.parse().unwrap())
        .collect();
    assert!((last[7] - last[3] / last[5]).abs() < 1e-3, "{last:?}");
    assert!((last[8] - last[4] / last[6]).abs() < 1e-3, "{last:?}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bad_core_lists_are_refused_with_status_2() {
    for (arg, needle) in [
        ("0..3", "start at 1"),
        ("5..2", "2..5"),
        ("x", "`x`"),
        ("19..20", "use counts in 1..18"),
    ] {
        let o = contention(&["predict", "--model", "paper:henri", "--ncores", arg]);
        assert_eq!(o.status.code(), Some(2), "{arg}");
        assert!(stderr(&o).contains(needle), "{arg}: {}", stderr(&o));
    }
    // Issue 46, item 11: counts beyond the socket are left out and named, the others
    // predicted (it was refused).
    let o = contention(&["predict", "--model", "paper:henri", "--ncores", "1..20"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("19..20 left out, beyond the 18 cores per socket"),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).contains("18"), "{}", stdout(&o));
}

#[test]
fn invalid_model_files_name_file_field_and_rule() {
    let dir = temp_dir("cli-model");
    let cases = [
        (HENRI.replacen("\"alpha\": 0.915,", "", 1), "local.alpha"),
        (
            HENRI.replacen("\"alpha\": 0.915", "\"alpha\": 1.5", 1),
            "(0, 1]",
        ),
        (
            HENRI.replacen("\"b_seq_comm\": 11481.1", "\"b_seq_comm\": -3", 1),
            "local.b_seq_comm = -3",
        ),
        (
            HENRI.replacen("\"n_seq_max\": 18", "\"n_seq_max\": 0", 1),
            "local.n_seq_max = 0",
        ),
        (
            HENRI.replacen("\"numa_per_socket\": 1", "\"numa_per_socket\": 4", 1),
            "must divide",
        ),
        (
            HENRI.replacen("\"t_seq_max\": 72589.9", "\"t_seq_max\": \"fast\"", 1),
            "local.t_seq_max",
        ),
    ];
    for (i, (text, needle)) in cases.iter().enumerate() {
        let path = dir.join(format!("m{i}.json"));
        std::fs::write(&path, text).unwrap();
        let o = contention(&["predict", "--model", path.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{needle}");
        let err = stderr(&o);
        assert!(
            err.contains(path.to_str().unwrap()) && err.contains(needle),
            "{err}"
        );
    }
    let o = contention(&[
        "predict",
        "--model",
        dir.join("absent.json").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("absent.json"));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_model_without_remote_predicts_the_first_socket_and_says_so() {
    let dir = temp_dir("cli-noremote");
    let mut v: serde_json::Value = serde_json::from_str(HENRI).unwrap();
    v.as_object_mut().unwrap().remove("remote");
    let path = dir.join("local-only.json");
    std::fs::write(&path, v.to_string()).unwrap();
    let path = path.to_str().unwrap();

    let o = contention(&["predict", "--model", path, "--format", "json"]);
    assert!(o.status.success());
    assert!(stderr(&o).contains("no `remote`"), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["placements"].as_array().unwrap().len(), 1);

    let o = contention(&["predict", "--model", path, "--placement", "0,1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("node 1 is on another socket"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn placement_errors_name_the_valid_nodes() {
    let o = contention(&["predict", "--model", "paper:henri", "--placement", "0,2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("nodes 0..1"), "{}", stderr(&o));
    let o = contention(&["predict", "--model", "paper:henri", "--placement", "zero"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("COMP,COMM"));
}

#[test]
fn help_teaches_units_and_examples() {
    // Issue 37: survey --help offered --simulate and --seed, which a survey then refused;
    // issue 34 made them a simulated fleet's, whose help says the size of its noise.
    let survey = stdout(&contention(&["survey", "--help"]));
    for offered in [
        "--simulate",
        "--seed",
        "--nodes",
        "--slow",
        "--runs",
        "3.7 %",
        "auto",
    ] {
        assert!(survey.contains(offered), "survey --help lacks {offered}");
    }
    // ... and plot --help said every input's kind was told from its content.
    let plot = stdout(&contention(&["plot", "--help"]));
    assert!(
        plot.contains(".json is a trace and .csv a tidy CSV"),
        "{plot}"
    );
    let o = contention(&["predict", "--help"]);
    let help = stdout(&o);
    for needle in [
        "MB/s",
        "Examples:",
        "paper:henri",
        "comm_parallel",
        "cores_per_socket",
    ] {
        assert!(
            help.contains(needle),
            "{needle} missing from predict --help"
        );
    }
    let top = stdout(&contention(&["--help"]));
    assert!(top.contains("predict") && top.contains("NUMA"));
    // The top-level help teaches the whole chain, with no file names.
    for step in [
        "contention measure --numa 0,0",
        "contention calibrate ",
        "contention predict --ncores 1..18",
        "contention check ",
    ] {
        assert!(top.contains(step), "`{step}` missing from --help:\n{top}");
    }
    // --version names the commit it was built from.
    let v = stdout(&contention(&["--version"]));
    assert!(
        v.starts_with("contention ") && v.contains("(commit "),
        "{v}"
    );
}

#[test]
fn completions_name_every_subcommand() {
    let o = contention(&["completions", "bash"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let bash = stdout(&o);
    for sub in [
        "measure",
        "calibrate",
        "predict",
        "evaluate",
        "plot",
        "check",
        "overlap",
        "advise",
        "network",
        "sensitivity",
        "completions",
        "man",
    ] {
        assert!(
            bash.contains(&format!("contention,{sub})")),
            "`{sub}` missing from the bash completions"
        );
    }
    assert!(bash.contains("--ncores"));
    // Every shell clap_complete offers works; an unknown one is a usage error.
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let o = contention(&["completions", shell]);
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        assert!(stdout(&o).contains("predict"), "{shell}");
    }
    let o = contention(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn man_writes_one_page_per_subcommand() {
    // DIR is created, with its parents.
    let dir = temp_dir("man").join("share/man1");
    let _ = std::fs::remove_dir_all(&dir);
    let o = contention(&["man", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    for (page, title) in [
        ("contention.1", ".TH contention 1"),
        ("contention-measure.1", ".TH contention-measure 1"),
        ("contention-sensitivity.1", ".TH contention-sensitivity 1"),
        ("contention-survey.1", ".TH contention-survey 1"),
    ] {
        let text = std::fs::read_to_string(dir.join(page)).unwrap();
        // The title line comes first, after clap_mangen's two-line quote-string preamble.
        let th = text
            .lines()
            .find(|l| !l.starts_with(".ie") && !l.starts_with(".el"));
        assert!(
            th.is_some_and(|l| l.starts_with(title)),
            "{page} does not start with `{title}`:\n{}",
            &text[..text.len().min(300)]
        );
    }
    // Issue 46, item 17: the SYNOPSIS read `contention-measure [--numa] [--cores]...`: the
    // page's name for the command, and no value placeholders.
    let measure = std::fs::read_to_string(dir.join("contention-measure.1")).unwrap();
    let synopsis: String = measure
        .lines()
        .skip_while(|l| *l != ".SH SYNOPSIS")
        .nth(1)
        .unwrap()
        .replace('\\', "");
    assert!(synopsis.starts_with("contention measure "), "{synopsis}");
    assert!(synopsis.contains("[--numa <COMP,COMM>]"), "{synopsis}");
    assert!(synopsis.contains("[--output <FILE>]"), "{synopsis}");
    let top = std::fs::read_to_string(dir.join("contention.1")).unwrap();
    assert!(top.contains("predict"));
    // No link to a page that is never installed.
    assert!(
        !top.contains("contention\\-help"),
        "contention-help(1) in the man page"
    );
    assert!(!dir.join("contention-help.1").exists());
    // Run again: the pages are replaced, and no temporary file is left behind.
    let o = contention(&["man", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    // The top page and one per subcommand (survey included).
    assert_eq!(names.len(), 15, "{names:?}");
    assert!(names
        .iter()
        .all(|n| n.starts_with("contention") && n.ends_with(".1")));
}

#[test]
fn man_into_a_file_fails_naming_it() {
    let file = temp_dir("man-file").join("not-a-dir");
    std::fs::write(&file, "keep me").unwrap();
    let o = contention(&["man", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains(file.to_str().unwrap()), "{err}");
    assert!(err.contains("not a directory"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "keep me");
}

/// The `contention ...` part of a dry run's `command` line, as its words (the test's paths
/// hold no blanks or quotes).
fn printed_command(out: &std::process::Output) -> Vec<String> {
    let text = stdout(out);
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("command     "))
        .unwrap_or_else(|| panic!("no command line in:\n{text}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let exe = words
        .iter()
        .position(|w| w.ends_with("/contention"))
        .unwrap_or_else(|| panic!("no contention in {line}"));
    words[exe..].iter().map(|w| w.to_string()).collect()
}

/// Issue 35, item 13: `measure --dry-run --topology t.xml` printed a command that kept
/// `--topology` without `--dry-run`, which clap refuses (`--topology` requires it).
#[test]
fn the_dry_runs_print_a_command_that_runs_as_printed() {
    use clap::Parser;
    let topology = "tests/data/topologies/24em64t-2n6c2t-pci.xml";
    let joined = format!("--topology={topology}");
    for args in [
        vec![
            "measure",
            "--dry-run",
            "--topology",
            topology,
            "--cores",
            "1,2",
        ],
        vec!["measure", &joined, "--dry-run"],
        vec![
            "survey",
            "--dry-run",
            "--hosts",
            "localhost,127.0.0.2",
            "--topology",
            topology,
        ],
    ] {
        let out = contention(&args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let printed = printed_command(&out);
        assert!(
            !printed.iter().any(|w| w == "--dry-run"),
            "{args:?}: {printed:?}"
        );
        if let Err(e) = contention::cli::Cli::try_parse_from(&printed) {
            panic!("{args:?}: the printed {printed:?} is refused: {e}");
        }
    }
}

/// Issue 35, item 15: `--max-phase 1e308` and `check --tolerance 1e308` were refused with
/// the value written out in 309 digits.
#[test]
fn huge_option_values_are_named_as_typed() {
    for args in [
        vec!["measure", "--dry-run", "--max-phase", "1e308"],
        vec!["measure", "--dry-run", "--timeout", "1e300"],
        vec![
            "check",
            "-m",
            "paper:henri",
            "tests/data/henri-sweep.csv",
            "--tolerance",
            "1e308",
        ],
        vec![
            "check",
            "-m",
            "paper:henri",
            "tests/data/henri-sweep.csv",
            "--max-mape",
            "1e308",
        ],
    ] {
        let out = contention(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let e = stderr(&out);
        assert!(e.contains(" 1e30"), "{args:?}: {e}");
        assert!(!e.contains("0000000000"), "{args:?}: {e}");
    }
}
