//! Every example of every document runs as written, in order, as a reader would type them in
//! a clone, and every output a document shows is what the command prints. The documents are
//! README.md, docs/*.md, CONTRIBUTING.md and benches/README.md; each one's fenced `sh` blocks
//! are run by bash (`-e -o pipefail`) in a scratch directory of its own that holds the clone's
//! `tests/` and `docs/` (the data and figures the examples name), with the `contention` built
//! for these tests first on `PATH`. A `text` block right after an `sh` block shows that block's output (standard output
//! and standard error as a terminal interleaves them) and is compared with the run, numbers
//! masked: a cut must be marked by a line `...` (or `...` within a line), and a shown line the
//! run does not print fails. A block may be marked as needing what a test machine does not
//! have, after the language (see [`MARKERS`]; CONTRIBUTING.md lists them); such a block and the
//! output shown after it are skipped, and listed.
//! The CI job example (a `yaml` block of docs/guide.md) is checked too: its `contention check`
//! steps run on the project's saved traces and pass, and the same step against a drifted model
//! fails. And `.ci/run` runs the README's set-up commands (test command, main job) as written,
//! in the environment of a fresh login.

use crate::common::run::{one_job, temp_dir, BIN};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The one marker of a `text` block: its numbers are claims, compared with the run's.
const DIGITS: &str = "digits";

/// How far a number of a `digits` block may lie from the one printed: 1 % (seeded simulated
/// runs print the same digits on every machine; the slack is for a last digit's rounding).
const DIGITS_TOLERANCE: f64 = 0.01;

/// What a block may say it needs; anything else is a typo the test refuses.
const MARKERS: [&str; 8] = [
    "needs-root",
    "needs-gpu",
    "needs-resctrl",
    "needs-hosts",
    "needs-sockets",
    "needs-cluster",
    "needs-cores",
    "slow",
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
    assert!(current.is_none(), "a fenced block is not closed");
    out
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn readme() -> String {
    std::fs::read_to_string(repo().join("README.md")).unwrap()
}

/// The documents whose examples are tests, relative to the repository: README.md, every
/// `docs/*.md`, CONTRIBUTING.md and benches/README.md.
fn documents() -> Vec<String> {
    let mut docs: Vec<String> = std::fs::read_dir(repo().join("docs"))
        .expect("docs/ exists")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    docs.sort();
    let mut all = vec!["README.md".to_string()];
    all.append(&mut docs);
    all.push("CONTRIBUTING.md".to_string());
    all.push("benches/README.md".to_string());
    all
}

/// A scratch clone: `tests/` and `docs/` linked in (the data and figures the examples
/// name), nothing else, no results directory.
fn scratch(name: &str) -> PathBuf {
    let d = temp_dir(&format!("readme-{name}"));
    for linked in ["tests", "docs"] {
        std::os::unix::fs::symlink(repo().join(linked), d.join(linked)).unwrap();
    }
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

/// One output line as the check compares it: every number (a run of digits, with its decimal
/// part) masked, runs of white space made one space, the ends trimmed: timings, host figures
/// and column widths do not count, words do.
fn masked(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.trim().chars().peekable();
    let mut space = false;
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                chars.next();
            }
            // A decimal part belongs to the number, a range's `..` does not.
            let mut ahead = chars.clone();
            if ahead.next() == Some('.') && ahead.next().is_some_and(|d| d.is_ascii_digit()) {
                chars.next();
                while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                    chars.next();
                }
            }
            out.push('0');
            space = false;
        } else if c.is_whitespace() {
            if !space {
                out.push(' ');
            }
            space = true;
        } else {
            out.push(c);
            space = false;
        }
    }
    out
}

/// The numbers of `line`, in order (a run of digits with its decimal part; a sign before it).
fn numbers(line: &str) -> Vec<f64> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        let starts = current.is_empty()
            && (c == '-' || c == '+')
            && chars.peek().is_some_and(|d| d.is_ascii_digit());
        if c.is_ascii_digit() || starts || (c == '.' && !current.is_empty()) {
            if c == '.' && !chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                out.extend(current.parse::<f64>().ok());
                current.clear();
                continue;
            }
            current.push(c);
        } else if !current.is_empty() {
            out.extend(current.parse::<f64>().ok());
            current.clear();
        }
    }
    out.extend(current.parse::<f64>().ok());
    out
}

/// A `digits` block's claim: every shown line without a cut is printed by the run with the
/// same words and every number within [`DIGITS_TOLERANCE`] of the shown one. Err names the
/// first shown line no printed line matches so.
fn check_digits(shown: &str, output: &str) -> Result<(), String> {
    let close = |a: f64, b: f64| (a - b).abs() <= DIGITS_TOLERANCE * a.abs().max(b.abs()).max(1e-9);
    for s in shown.lines().filter(|l| !l.contains("...")) {
        let (words, want) = (masked(s), numbers(s));
        let found = output.lines().any(|o| {
            let got = numbers(o);
            masked(o) == words
                && got.len() == want.len()
                && got.iter().zip(&want).all(|(g, w)| close(*g, *w))
        });
        if !found {
            return Err(format!("`{s}` (numbers within 1 %)"));
        }
    }
    Ok(())
}

/// Whether a shown line (masked) stands for an output line (masked): equal, or, where the
/// shown line cuts text with `...`, the pieces between the cuts in order, the first at the
/// start and the last at the end.
fn line_matches(shown: &str, out: &str) -> bool {
    let pieces: Vec<&str> = shown.split("...").collect();
    if pieces.len() == 1 {
        return shown == out;
    }
    let (first, last) = (pieces[0], pieces[pieces.len() - 1]);
    if !out.starts_with(first) || out.len() < first.len() + last.len() || !out.ends_with(last) {
        return false;
    }
    let mut rest = &out[first.len()..out.len() - last.len()];
    for piece in &pieces[1..pieces.len() - 1] {
        match rest.find(piece) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    true
}

/// Checks that `shown` (a `text` block) is `output` with cuts marked: a line `...` alone
/// stands for any number of output lines (none included), `...` within a line for any text;
/// every other line must be the next line printed. Err names the first shown line that the
/// run does not print where the block shows it (a line it never prints, or a cut not marked).
fn check_output(shown: &str, output: &str) -> Result<(), String> {
    let shown: Vec<String> = shown.lines().map(masked).collect();
    let out: Vec<String> = output.lines().map(masked).collect();
    // Depth-first over (shown line, output line), each pair tried once.
    let mut tried = HashSet::new();
    let mut stack = vec![(0usize, 0usize)];
    let mut furthest = 0;
    while let Some((s, o)) = stack.pop() {
        if !tried.insert((s, o)) {
            continue;
        }
        furthest = furthest.max(s);
        if s == shown.len() {
            if o == out.len() {
                return Ok(());
            }
            continue;
        }
        if shown[s] == "..." {
            stack.extend((o..=out.len()).rev().map(|k| (s + 1, k)));
        } else if o < out.len() && line_matches(&shown[s], &out[o]) {
            stack.push((s + 1, o + 1));
        }
    }
    Err(if furthest == shown.len() {
        "the run prints more lines after the last one shown: end the block with a line `...`"
            .to_string()
    } else {
        format!(
            "shown line {} is not what the run prints there (a line it does not print, or \
             output cut without a line `...`): `{}`",
            furthest + 1,
            shown[furthest]
        )
    })
}

/// What running a document's examples found: blocks run, outputs checked, blocks skipped.
#[derive(Default)]
struct Tally {
    ran: usize,
    checked: usize,
    skipped: Vec<String>,
}

/// Runs the `sh` blocks of `doc` in order in a scratch directory of its own, checking every
/// `text` block against the run of the `sh` block it follows.
fn run_document(doc: &str, tally: &mut Tally) {
    let text = std::fs::read_to_string(repo().join(doc)).unwrap();
    let dir = scratch(&doc.replace('/', "-"));
    let all = blocks(&text);
    let mut last_output: Option<(usize, String)> = None;
    for (i, b) in all.iter().enumerate() {
        for m in b
            .markers
            .iter()
            .filter(|m| !(b.lang == "text" && *m == DIGITS))
        {
            assert!(
                MARKERS.contains(&m.as_str()),
                "{doc} line {}: unknown marker `{m}`; known: {MARKERS:?}",
                b.line
            );
        }
        let after_sh = i > 0 && all[i - 1].lang == "sh";
        match b.lang.as_str() {
            "sh" if !b.markers.is_empty() => {
                tally
                    .skipped
                    .push(format!("{doc} line {} ({})", b.line, b.markers.join(" ")));
                last_output = None;
            }
            "sh" => {
                // Both streams in one pipe, in the order a terminal shows them.
                let o = bash(&dir, &format!("exec 2>&1\n{}", b.text));
                let output = String::from_utf8_lossy(&o.stdout).into_owned();
                assert!(
                    o.status.success(),
                    "{doc} line {}: exit {:?}\n{}\noutput:\n{output}",
                    b.line,
                    o.status.code(),
                    b.text,
                );
                tally.ran += 1;
                last_output = Some((b.line, output));
            }
            "text" => {
                assert!(
                    after_sh,
                    "{doc} line {}: a `text` block shows the output of the `sh` block right \
                     before it, and there is none (use a fence with no language for other text)",
                    b.line
                );
                let Some((line, output)) = last_output.take() else {
                    tally.skipped.push(format!(
                        "{doc} line {} (the output of a block not run here)",
                        b.line
                    ));
                    continue;
                };
                {
                    if let Err(why) = check_output(&b.text, &output) {
                        panic!(
                            "{doc} line {}: the output shown is not what the block of line \
                             {line} prints: {why}\nshown:\n{}\nprinted:\n{output}",
                            b.line, b.text
                        );
                    }
                    if b.markers.iter().any(|m| m == DIGITS) {
                        if let Err(why) = check_digits(&b.text, &output) {
                            panic!(
                                "{doc} line {}: a number shown is not what the block of line \
                                 {line} prints: {why}\nprinted:\n{output}",
                                b.line
                            );
                        }
                    }
                    tally.checked += 1;
                }
            }
            _ => last_output = None,
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_documents_examples_run_as_written_and_show_what_they_print() {
    // The examples run `measure` and `network --run`: MPI jobs.
    let _one = one_job();
    let docs = documents();
    for needed in [
        "README.md",
        "docs/guide.md",
        "CONTRIBUTING.md",
        "benches/README.md",
    ] {
        assert!(
            docs.iter().any(|d| d == needed),
            "{needed} missing: {docs:?}"
        );
    }
    let mut tally = Tally::default();
    for doc in &docs {
        run_document(doc, &mut tally);
    }
    eprintln!(
        "documents: {} sh blocks run, {} outputs checked; skipped: {}",
        tally.ran,
        tally.checked,
        tally.skipped.join(", ")
    );
    assert!(tally.ran >= 10, "only {} example blocks ran", tally.ran);
    assert!(tally.checked >= 4, "only {} outputs checked", tally.checked);
}

/// The output check itself: numbers and column widths masked, cuts marked with `...` pass;
/// a line the run does not print, and a cut without `...` (at the start, the middle or the
/// end), fail.
#[test]
fn shown_output_is_checked_line_by_line_with_marked_cuts() {
    let run = "plan   4 cores\nalone: 20228.9 MB/s\nparallel:  40001.5 MB/s\nwrote m.json\n";
    // Other numbers and widths, every line shown.
    let all = "plan 8 cores\nalone: 1.0 MB/s\nparallel: 7 MB/s\nwrote m.json\n";
    assert_eq!(check_output(all, run), Ok(()));
    // Cuts marked: lines, and text within a line.
    assert_eq!(check_output("...\nparallel: ...\n...\n", run), Ok(()));
    assert_eq!(check_output("plan ...\n...\nwrote m.json\n", run), Ok(()));
    assert_eq!(check_output("plan ...\nalone...MB/s\n...\n", run), Ok(()));
    // A line the run does not print.
    let err = check_output("plan 4 cores\n...\nwrote model.json\n", run).unwrap_err();
    assert!(err.contains("`wrote model.json`"), "{err}");
    // Cuts not marked: in the middle, at the start, at the end.
    let err = check_output("plan 4 cores\nparallel: 1 MB/s\n...\n", run).unwrap_err();
    assert!(err.contains("shown line 2"), "{err}");
    assert!(check_output("alone: 1 MB/s\n...\n", run).is_err());
    let err = check_output("plan 4 cores\nalone: 1 MB/s\n", run).unwrap_err();
    assert!(err.contains("more lines after the last one"), "{err}");
    // A range is words around numbers: `1..13` is not a cut.
    assert_eq!(masked("cores 1..13,  x"), "cores 0..0, x");
}

/// The `run:` steps of the guide's CI job (the `yaml` block that runs `contention check`).
fn ci_steps(text: &str) -> Vec<String> {
    let job = blocks(text)
        .into_iter()
        .find(|b| b.lang == "yaml" && b.text.contains("contention check"))
        .expect("docs/guide.md has a CI job (yaml) that runs contention check");
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
fn the_guides_ci_job_passes_on_the_saved_traces_and_fails_on_drift() {
    let guide = std::fs::read_to_string(repo().join("docs/guide.md")).unwrap();
    let steps = ci_steps(&guide);
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
    for d in ["src", "tests", "benches", ".ci", "docs"] {
        files(&repo().join(d), &mut all);
    }
    for f in ["README.md", "CONTRIBUTING.md", "CHANGELOG.md", "build.rs"] {
        all.push(repo().join(f));
    }
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

/// Issue 37: a README a newcomer reads from top to bottom (at most 300 lines), stating the
/// Rust the crate declares.
#[test]
fn the_readme_is_short_and_states_the_declared_rust() {
    let text = readme();
    let lines = text.lines().count();
    assert!(
        lines <= 300,
        "README.md has {lines} lines: move reference material to docs/"
    );
    let cargo = std::fs::read_to_string(repo().join("Cargo.toml")).unwrap();
    let msrv = cargo
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = "))
        .expect("Cargo.toml declares rust-version")
        .trim_matches('"');
    assert!(
        text.contains(&format!("Rust {msrv} or newer")),
        "README.md must state Cargo.toml's rust-version, {msrv}"
    );
}

/// The anchor GitHub gives a heading: lower case, spaces made hyphens, punctuation dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The relative links `[text](target)` of a document's prose (fenced blocks left out).
fn links(text: &str) -> Vec<String> {
    let mut prose = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            prose.push_str(line);
            prose.push('\n');
        }
    }
    prose
        .split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .filter(|l| !l.contains("://") && !l.contains(char::is_whitespace))
        .map(str::to_string)
        .collect()
}

/// The documents point to each other (the README's map, "see the guide" links): each relative
/// link must name a file of the repository and, after `#`, one of that document's headings.
#[test]
fn every_link_between_documents_resolves() {
    let mut docs = documents();
    docs.push("CHANGELOG.md".to_string());
    let mut broken = Vec::new();
    for doc in &docs {
        let text = std::fs::read_to_string(repo().join(doc)).unwrap();
        let base = Path::new(doc).parent().unwrap();
        for link in links(&text) {
            let (path, fragment) = link.split_once('#').unwrap_or((&link, ""));
            let target = if path.is_empty() {
                PathBuf::from(doc)
            } else {
                base.join(path)
            };
            let Ok(target_text) = std::fs::read_to_string(repo().join(&target)) else {
                if !repo().join(&target).exists() {
                    broken.push(format!("{doc}: `{link}`: no such file"));
                }
                continue;
            };
            let headings: Vec<String> = target_text
                .lines()
                .filter(|l| l.starts_with('#'))
                .map(|l| anchor(l.trim_start_matches('#')))
                .collect();
            if !fragment.is_empty() && !headings.iter().any(|h| h == fragment) {
                broken.push(format!(
                    "{doc}: `{link}`: {} has no heading `#{fragment}`",
                    target.display()
                ));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert_eq!(
        anchor(" `contention survey`: every node of an allocation"),
        "contention-survey-every-node-of-an-allocation"
    );
}

/// CONTRIBUTING.md documents the markers a block may carry: its table lists exactly
/// [`MARKERS`], so a marker added here is explained there.
#[test]
fn digits_are_compared_within_a_percent_where_a_block_claims_them() {
    assert_eq!(
        numbers("x 1.15, -3 +2% 1..13 4."),
        vec![1.15, -3.0, 2.0, 1.0, 13.0, 4.0]
    );
    let out = "a 100.0 b 2\nc 3\n";
    assert!(check_digits("a 100.5 b 2\n...\n", out).is_ok());
    let e = check_digits("a 102 b 2\n", out).unwrap_err();
    assert!(e.contains("a 102 b 2"), "{e}");
    assert!(check_digits("c 3 d\n", out).is_err());
}

#[test]
fn contributing_lists_every_marker() {
    let text = std::fs::read_to_string(repo().join("CONTRIBUTING.md")).unwrap();
    let mut listed: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .filter(|m| m.starts_with("needs-") || *m == "slow")
        .collect();
    listed.sort_unstable();
    let mut known = MARKERS.to_vec();
    known.sort_unstable();
    assert_eq!(listed, known, "CONTRIBUTING.md's table of markers");
}
