//! Whether the tests on virtual test machines (the NUMA guests of `tests/vm/numa-guest.sh`,
//! the two hosts of `tests/vm/two-hosts.sh`) run here.
//!
//! In CI (`CI=true`) they are required: missing tooling fails the test, naming what is
//! missing and that `bash .ci/setup-tests` installs it. Elsewhere a machine without the tooling
//! skips them with the reason printed, and `CONTENTION_VM_TESTS=skip` skips them on purpose
//! (they boot emulated machines: minutes on a small machine).
use std::path::Path;
use std::process::Command;

pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Skips (returns false, printing why) or fails (in CI) when `problem` is set.
pub fn decide(test: &str, problem: Option<String>) -> bool {
    let Some(why) = problem else {
        return true;
    };
    if in_ci() {
        panic!(
            "{test}: required in CI (CI=true) but {why}; `bash .ci/setup-tests` installs the tooling"
        );
    }
    say(&format!(
        "SKIPPED {test}: {why} (`bash .ci/setup-tests` installs the tooling; CI=true makes this a failure)"
    ));
    false
}

/// Writes a line to stderr past the test harness's capture (which holds `eprintln!` of a
/// passing test back): skips and the virtual machines' timings belong in every CI log.
pub fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}

fn on_path(cmd: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {cmd}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Effective user id 0, from /proc (no command, no unsafe call).
fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .and_then(|ids| ids.split_whitespace().nth(1))
            == Some("0")
    })
}

/// What keeps `test` from running here: asked to skip, not root, or a missing command.
pub fn missing(commands: &[&str]) -> Option<String> {
    if !in_ci() && std::env::var("CONTENTION_VM_TESTS").is_ok_and(|v| v == "skip") {
        return Some("CONTENTION_VM_TESTS=skip".into());
    }
    if !is_root() {
        return Some("it needs root (namespaces, QEMU's guest as root)".into());
    }
    let gone: Vec<&str> = commands.iter().copied().filter(|c| !on_path(c)).collect();
    if !gone.is_empty() {
        return Some(format!("not found on PATH: {}", gone.join(", ")));
    }
    None
}

/// Debian's distribution kernel, which virtme-ng boots (the `-cloud` flavour lacks 9p).
pub fn distribution_kernel() -> Option<String> {
    let mut found: Vec<String> = std::fs::read_dir(Path::new("/boot"))
        .ok()?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| {
            n.starts_with("vmlinuz-") && n.ends_with("-amd64") && !n.ends_with("-cloud-amd64")
        })
        .collect();
    found.sort();
    found.pop()
}
