//! Every example of the README runs as written, in order, as a reader would type them in a
//! clone: each fenced `sh` block is run by bash (`-e -o pipefail`) in one scratch directory
//! that holds the clone's `tests/` (the data the examples name), with the `contention` built
//! for these tests first on `PATH`. A block may be marked as needing what a test machine does
//! not have, after the language: `sh needs-root`, `needs-resctrl`, `needs-hosts` (several MPI
//! hosts) or `needs-sockets` (a multi-socket machine); those are skipped, and listed.
//! The CI job example (a `yaml` block) is checked too: its `contention check` steps run on the
//! project's saved traces and pass, and the same step against a drifted model fails. And
//! `.ci/run` runs the README's set-up commands (test command, main job) as written, in the
//! environment of a fresh login.

use crate::common::run::{one_job, temp_dir, BIN};
use std::path::{Path, PathBuf};
use std::process::Command;

/// What a block may say it needs; anything else is a typo the test refuses.
const MARKERS: [&str; 4] = [
    "needs-root",
    "needs-resctrl",
    "needs-hosts",
    "needs-sockets",
];

/// A fenced block: its language, its markers, its first line number and its text.
struct Block {
    lang: String,
    markers: Vec<String>,
    line: usize,
    text: String,
}

fn blocks(readme: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut current: Option<Block> = None;
    for (i, line) in readme.lines().enumerate() {
        if let Some(info) = line.strip_prefix("```") {
            match current.take() {
                Some(b) => out.push(b),
                None => {
                    let mut words = info.split_whitespace();
                    current = Some(Block {
                        lang: words.next().unwrap_or("").to_string(),
                        markers: words.map(str::to_string).collect(),
                        line: i + 1,
                        text: String::new(),
                    });
                }
            }
        } else if let Some(b) = current.as_mut() {
            b.text.push_str(line);
            b.text.push('\n');
        }
    }
    assert!(current.is_none(), "README.md: a fenced block is not closed");
    out
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn readme() -> String {
    std::fs::read_to_string(repo().join("README.md")).unwrap()
}

/// A scratch clone: `tests/` linked in, nothing else, no results directory.
fn scratch(name: &str) -> PathBuf {
    let d = temp_dir(&format!("readme-{name}"));
    std::os::unix::fs::symlink(repo().join("tests"), d.join("tests")).unwrap();
    d
}

fn bash(dir: &Path, script: &str) -> std::process::Output {
    let bin = Path::new(BIN).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("bash")
        .args(["-e", "-o", "pipefail", "-c", script])
        .current_dir(dir)
        .env("PATH", path)
        .env_remove("CONTENTION_RESULTS")
        .output()
        .expect("bash runs")
}

#[test]
fn every_readme_example_runs_as_written_in_order() {
    // The examples run `measure` and `network --run`: MPI jobs.
    let _one = one_job();
    let text = readme();
    let dir = scratch("examples");
    let (mut ran, mut skipped) = (0, Vec::new());
    for b in blocks(&text).into_iter().filter(|b| b.lang == "sh") {
        for m in &b.markers {
            assert!(
                MARKERS.contains(&m.as_str()),
                "README.md line {}: unknown marker `{m}`; known: {MARKERS:?}",
                b.line
            );
        }
        if !b.markers.is_empty() {
            skipped.push(format!("line {} ({})", b.line, b.markers.join(" ")));
            continue;
        }
        let o = bash(&dir, &b.text);
        assert!(
            o.status.success(),
            "README.md line {}: exit {:?}\n{}\nstdout:\n{}\nstderr:\n{}",
            b.line,
            o.status.code(),
            b.text,
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        ran += 1;
    }
    eprintln!(
        "README: {ran} sh blocks run; skipped: {}",
        skipped.join(", ")
    );
    assert!(ran >= 10, "only {ran} example blocks ran");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The `run:` steps of the README's CI job (the `yaml` block that runs `contention check`).
fn ci_steps(text: &str) -> Vec<String> {
    let job = blocks(text)
        .into_iter()
        .find(|b| b.lang == "yaml" && b.text.contains("contention check"))
        .expect("README.md has a CI job (yaml) that runs contention check");
    job.text
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("- run:")
                .or(l.trim().strip_prefix("run:"))
        })
        .map(|s| s.trim().to_string())
        .collect()
}

#[test]
fn the_readme_ci_job_passes_on_the_saved_traces_and_fails_on_drift() {
    let steps = ci_steps(&readme());
    // The setup and build steps are what this test harness has done already.
    assert!(steps.iter().any(|s| s == "bash .ci/setup"), "{steps:?}");
    assert!(
        steps.iter().any(|s| s.starts_with("cargo build")),
        "{steps:?}"
    );
    let checks: Vec<&String> = steps
        .iter()
        .filter(|s| s.contains("contention check"))
        .collect();
    assert!(!checks.is_empty(), "{steps:?}");
    let dir = scratch("ci");
    for step in &checks {
        // The job runs the binary it built; here, the one built for the tests.
        let cmd = step.replace("target/release/contention", "contention");
        let o = bash(&dir, &cmd);
        assert!(
            o.status.success(),
            "CI step `{step}` fails on unchanged data:\n{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        // Against a model whose b_seq_comp moved by 20 %, the same step fails with exit 1.
        let model = "tests/data/expected/vm-local.model.json";
        if cmd.contains(model) {
            let mut m: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(repo().join(model)).unwrap())
                    .unwrap();
            let v = m["local"]["b_seq_comp"].as_f64().unwrap();
            m["local"]["b_seq_comp"] = serde_json::json!(v * 1.2);
            std::fs::write(dir.join("drifted.json"), m.to_string()).unwrap();
            let o = bash(&dir, &cmd.replace(model, "drifted.json"));
            assert_eq!(o.status.code(), Some(1), "`{cmd}` with a drifted model");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ci_runs_the_readme_test_command_and_main_job_as_written_in_a_fresh_login() {
    let text = readme();
    let run = std::fs::read_to_string(repo().join(".ci/run")).unwrap();
    // The README's set-up commands: lines of its `needs-root` blocks that chain a `.ci/` set-up.
    let commands: Vec<String> = blocks(&text)
        .into_iter()
        .filter(|b| b.lang == "sh" && b.markers.iter().any(|m| m == "needs-root"))
        .flat_map(|b| b.text.lines().map(str::to_string).collect::<Vec<_>>())
        .filter(|l| l.starts_with("bash .ci/setup") && l.contains("&&"))
        .collect();
    let find = |what: &str| {
        commands
            .iter()
            .find(|c| c.contains(what))
            .unwrap_or_else(|| panic!("no README command runs `{what}`: {commands:?}"))
            .clone()
    };
    // The tests get the virtual machines' tooling; the main job, which may run on a
    // production node, only what the tool needs.
    let test = find("cargo test");
    assert!(
        test.starts_with("bash .ci/setup-tests && "),
        "the README's test command must set up the tests with .ci/setup-tests: {test}"
    );
    let main = find(".ci/main-job");
    assert!(
        main.starts_with("bash .ci/setup && "),
        "the README's main job must set up with .ci/setup only (no virtual machine tooling): {main}"
    );
    // Issue 37: `.ci/run` by hand skipped the virtual-machine tests (CI was only passed on):
    // it is CI's check only if CI is true before the first command runs.
    let sets_ci = run
        .lines()
        .position(|l| l.trim() == r#"export CI="${CI:-true}""#);
    let first_fresh = run
        .lines()
        .position(|l| l.trim_start().starts_with("fresh "));
    assert!(
        sets_ci.is_some() && sets_ci < first_fresh,
        ".ci/run must default CI to true before it runs anything"
    );
    for c in [&test, &main] {
        let line = run
            .lines()
            .find(|l| l.contains(c.as_str()))
            .unwrap_or_else(|| panic!(".ci/run does not run the README's `{c}` as written"));
        assert!(
            line.trim_start().starts_with("fresh "),
            ".ci/run runs `{c}` outside the environment of a fresh login: {line}"
        );
    }
}

#[test]
fn marked_and_unmarked_blocks_are_told_apart() {
    let b = blocks("x\n```sh needs-root\nsudo a\n```\n```sh\nb\n```\n```json\n{}\n```\n");
    assert_eq!(b.len(), 3);
    assert_eq!(
        (b[0].lang.as_str(), b[0].markers.clone()),
        ("sh", vec!["needs-root".to_string()])
    );
    assert_eq!((b[1].line, b[1].text.as_str()), (5, "b\n"));
    assert_eq!(b[2].lang, "json");
}

/// Files under `dir` (recursively), skipping `tests/data` (recorded data, not prose).
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            if !p.ends_with("tests/data") {
                files(&p, out);
            }
        } else {
            out.push(p);
        }
    }
}

#[test]
fn nothing_refers_to_files_outside_the_project() {
    // Spelled in pieces so that this file does not match itself.
    let banned = [
        format!("{}.md", "DESIGN"),
        format!("{}/", "shared"),
        format!("../{}", "shared"),
    ];
    let mut all = Vec::new();
    for d in ["src", "tests", "benches", ".ci"] {
        files(&repo().join(d), &mut all);
    }
    all.push(repo().join("README.md"));
    all.push(repo().join("build.rs"));
    let mut found = Vec::new();
    for f in &all {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        for (i, line) in text.lines().enumerate() {
            if banned.iter().any(|b| line.contains(b.as_str())) {
                found.push(format!("{}:{}: {}", f.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "references to files users do not have:\n{}",
        found.join("\n")
    );
}
