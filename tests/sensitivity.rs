//! `contention sensitivity` end to end: a real bandit run on the built-in kernels (structure
//! only, no timing assertions), a command's FOM read from its output, and the refusal without
//! resctrl.

use crate::common::{contention, stderr, stdout, temp_dir};

fn bandit_run(kernel: &str, dir: &std::path::Path) -> serde_json::Value {
    let plot = dir.join(format!("{kernel}.svg"));
    let out = contention(&[
        "sensitivity",
        "--backend",
        "bandit",
        "--builtin",
        kernel,
        "--size",
        "64MiB",
        "--bandit-buffer",
        "64MiB",
        "--bandit-steps",
        "2",
        "--repeat",
        "2",
        "--format",
        "json",
        "--plot",
        plot.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.contains("<svg") && svg.contains("Bandwidth sensitivity"));
    serde_json::from_str(&stdout(&out)).unwrap()
}

#[test]
fn bandit_runs_on_triad_and_pointer_chase_give_complete_curves() {
    let dir = temp_dir("sensitivity-bandit");
    for kernel in ["triad", "pointer-chase"] {
        let r = bandit_run(kernel, &dir);
        assert_eq!(r["backend"], "bandit");
        assert!(r["peak_mb_per_s"].as_f64().unwrap() > 0.0);
        let points = r["points"].as_array().unwrap();
        assert_eq!(points.len(), 3, "steps 2: loads 0, half, all");
        for p in points {
            assert!(p["fom"].as_f64().unwrap() > 0.0, "{kernel}: {p}");
            assert_eq!(p["foms"].as_array().unwrap().len(), 2);
            let level = p["level"].as_f64().unwrap();
            assert!((0.0..=100.0).contains(&level), "{p}");
        }
        // No load, nothing stolen: the top level is all the bandwidth.
        let top = points.last().unwrap();
        assert_eq!(top["level"], 100.0);
        assert_eq!(top["stolen_mb_per_s"], 0.0);
        let t = r["thresholds"].as_array().unwrap();
        assert_eq!(t.len(), 3);
        for t in t {
            // A level, or "not reached" (null) together with no interpolation.
            assert_eq!(t["level"].is_null(), t["interpolated"].is_null(), "{t}");
        }
        let notes = r["notes"].as_array().unwrap();
        assert!(notes
            .iter()
            .any(|n| n.as_str().unwrap().contains("latency")));
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_command_fom_is_read_after_its_anchor() {
    let out = contention(&[
        "sensitivity",
        "--backend",
        "bandit",
        "--bandit-buffer",
        "8MiB",
        "--bandit-steps",
        "1",
        "--repeat",
        "1",
        "--fom-after",
        "rate:",
        "--format",
        "csv",
        "--quiet",
        "--",
        "sh",
        "-c",
        "echo 'rate: 42.5 units, 7 things'",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let csv = stdout(&out);
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows[0], "level,setting,fom,relative,stolen_mb_per_s,runs");
    assert_eq!(rows.len(), 3);
    assert!(rows[1..].iter().all(|r| r.contains(",42.5,1,")), "{csv}");
}

/// Issue 46, N8: the report (`-o`) and the figure (`--plot`) were written after the sweep,
/// and a path under a missing directory or a file failed only then. Refused first (exit 2),
/// naming the option and the path; nothing is run or printed.
#[test]
fn outputs_that_cannot_be_written_are_refused_before_the_sweep() {
    let dir = temp_dir("sensitivity-outputs");
    let file = dir.join("afile");
    std::fs::write(&file, "x").unwrap();
    let no_dir = dir.join("nodir/r.json");
    let under_file = file.join("curve.svg");
    for (option, path, says) in [
        ("-o", &no_dir, "does not exist"),
        ("--plot", &under_file, "is a regular file, not a directory"),
    ] {
        let out = contention(&[
            "sensitivity",
            "--backend",
            "bandit",
            "--builtin",
            "triad",
            "--size",
            "8MiB",
            "--bandit-buffer",
            "8MiB",
            "--bandit-steps",
            "1",
            "--repeat",
            "1",
            "--quiet",
            option,
            path.to_str().unwrap(),
        ]);
        let e = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{option}: {e}");
        assert!(
            e.contains(&format!("{option}: `{}`", path.display())) && e.contains(says),
            "{option}: {e}"
        );
        assert_eq!(stdout(&out), "", "{option}: nothing measured");
    }
    assert!(!dir.join("nodir").exists());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn without_resctrl_the_error_names_what_is_missing_and_the_bandit() {
    let dir = temp_dir("sensitivity-nomount");
    let out = contention(&[
        "sensitivity",
        "--resctrl-root",
        dir.join("absent").to_str().unwrap(),
        "--",
        "true",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(
        e.contains("not mounted") && e.contains("--backend bandit"),
        "{e}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A fake resctrl mount: `info/MB` and a root schemata, Intel- or AMD-style.
fn fake_resctrl(dir: &std::path::Path, min: u32, gran: u32, schemata: &str) {
    std::fs::create_dir_all(dir.join("info/MB")).unwrap();
    std::fs::write(dir.join("info/MB/min_bandwidth"), format!("{min}\n")).unwrap();
    std::fs::write(dir.join("info/MB/bandwidth_gran"), format!("{gran}\n")).unwrap();
    std::fs::write(dir.join("info/MB/delay_linear"), "1\n").unwrap();
    std::fs::write(dir.join("schemata"), schemata).unwrap();
}

/// The command logs, from inside the group, the group's schemata, its tasks file and its own
/// pid, then prints its FOM: what the kernel would have seen, checked exactly.
fn resctrl_run(root: &std::path::Path, levels: &str) -> (std::process::Output, String) {
    let script = r#"g=$(echo "$0"/contention-sensitivity-*); cat "$g/schemata" >> "$0/log"; tail -n 1 "$g/tasks" >> "$0/log"; echo "pid $$" >> "$0/log"; echo 5"#;
    let out = contention(&[
        "sensitivity",
        "--resctrl-root",
        root.to_str().unwrap(),
        "--levels",
        levels,
        "--repeat",
        "1",
        "--format",
        "json",
        "--quiet",
        "--",
        "sh",
        "-c",
        script,
        root.to_str().unwrap(),
    ]);
    let log = std::fs::read_to_string(root.join("log")).unwrap_or_default();
    (out, log)
}

fn group_dirs(root: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("contention-sensitivity"))
        .collect()
}

/// Each repetition's pid follows the tasks file's new line: the child joined before exec.
fn check_log(log: &str, schemata: &[&str]) {
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 3 * schemata.len(), "{log}");
    for (i, want) in schemata.iter().enumerate() {
        let block = &lines[3 * i..3 * i + 3];
        assert_eq!(block[0], *want, "{log}");
        assert_eq!(Some(block[1]), block[2].strip_prefix("pid "), "{log}");
    }
}

#[test]
fn resctrl_intel_style_writes_percent_schemata_and_removes_the_group() {
    let root = temp_dir("sensitivity-intel");
    fake_resctrl(&root, 10, 10, "    L3:0=7ff;1=7ff\n    MB:0=100;1=100\n");
    let (out, log) = resctrl_run(&root, "34,100");
    assert!(out.status.success(), "{}", stderr(&out));
    // 34% is rounded to the granularity of 10.
    check_log(&log, &["MB:0=30;1=30", "MB:0=100;1=100"]);
    assert!(group_dirs(&root).is_empty(), "the group is removed");
    let r: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(r["points"][0]["setting"], "MB=30");
    assert_eq!(r["points"][1]["fom"], 5.0);
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn resctrl_amd_style_writes_the_vendor_scale_for_every_domain() {
    let root = temp_dir("sensitivity-amd");
    fake_resctrl(
        &root,
        0,
        1,
        "L3:0=ffff;1=ffff;2=ffff\nMB:0=2048;1=2048;2=2048\n",
    );
    let (out, log) = resctrl_run(&root, "37");
    assert!(out.status.success(), "{}", stderr(&out));
    check_log(&log, &["MB:0=37;1=37;2=37"]);
    assert!(group_dirs(&root).is_empty());
    assert!(stdout(&out).contains("1..2048"));
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn resctrl_group_is_removed_when_the_command_fails() {
    let root = temp_dir("sensitivity-fail");
    fake_resctrl(&root, 10, 10, "MB:0=100\n");
    let out = contention(&[
        "sensitivity",
        "--resctrl-root",
        root.to_str().unwrap(),
        "--levels",
        "50",
        "--repeat",
        "1",
        "--quiet",
        "--",
        "false",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("`false` failed"));
    assert!(group_dirs(&root).is_empty());
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn a_command_fom_is_read_with_a_regex_and_a_bad_regex_is_refused() {
    let run = |re: &str| {
        contention(&[
            "sensitivity",
            "--backend",
            "bandit",
            "--bandit-buffer",
            "8MiB",
            "--bandit-steps",
            "1",
            "--repeat",
            "1",
            "--fom-regex",
            re,
            "--format",
            "csv",
            "--quiet",
            "--",
            "sh",
            "-c",
            "echo 'rate=41 MB/s'; echo 'rate=42.5 MB/s, 7 things'",
        ])
    };
    let out = run(r"rate=([0-9.]+)");
    assert!(out.status.success(), "{}", stderr(&out));
    let csv = stdout(&out);
    assert!(csv.lines().skip(1).all(|r| r.contains(",42.5,1,")), "{csv}");
    let bad = run("rate=(");
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("--fom-regex `rate=(`"),
        "{}",
        stderr(&bad)
    );
}
