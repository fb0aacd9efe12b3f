//! Build script: build provenance (git commit, rustc version, target and its features,
//! profile) exported as compile-time environment variables for `analysis/src/provenance.rs`,
//! so every trace and report says which code and which compiler flags produced it. It is the
//! build script of the crate that records provenance (`contention-analysis`, whose manifest
//! names it); the `contention` package at the top runs none.
//!
//! It writes nothing: man pages and shell completions come from `contention man DIR` and
//! `contention completions SHELL`.

use std::path::Path;
use std::process::Command;

fn main() {
    provenance();
}
fn provenance() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let rustc_version = run(&rustc, &["--version"]).unwrap_or_else(|| "rustc (unknown)".into());
    println!("cargo:rustc-env=CONTENTION_RUSTC_VERSION={rustc_version}");
    println!(
        "cargo:rustc-env=CONTENTION_TARGET={}",
        std::env::var("TARGET").unwrap_or_default()
    );
    println!(
        "cargo:rustc-env=CONTENTION_TARGET_FEATURES={}",
        std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default()
    );
    println!(
        "cargo:rustc-env=CONTENTION_PROFILE={}",
        std::env::var("PROFILE").unwrap_or_default()
    );
    let commit = run("git", &["rev-parse", "--short=12", "HEAD"]).map(|c| {
        let dirty = run("git", &["status", "--porcelain", "--untracked-files=no"])
            .is_some_and(|s| !s.is_empty());
        if dirty {
            format!("{c}-dirty")
        } else {
            c
        }
    });
    println!(
        "cargo:rustc-env=CONTENTION_GIT_COMMIT={}",
        commit
            .as_deref()
            .unwrap_or("unknown (not built from a git checkout)")
    );
    // Rebuild provenance when the checked-out commit or the index changes. The script runs
    // in the folder of the crate that records provenance (`analysis/`), so the repository's
    // git directory is asked of git, not assumed to be `.git` here.
    if let Some(git) = run("git", &["rev-parse", "--absolute-git-dir"]) {
        let git = Path::new(&git);
        for f in ["HEAD", "index"] {
            if git.join(f).exists() {
                println!("cargo:rerun-if-changed={}", git.join(f).display());
            }
        }
        if let Some(head) = std::fs::read_to_string(git.join("HEAD"))
            .ok()
            .and_then(|h| h.strip_prefix("ref: ").map(|r| r.trim().to_string()))
        {
            let r = git.join(head);
            if r.exists() {
                println!("cargo:rerun-if-changed={}", r.display());
            }
        }
    }
}

/// Runs a command and returns its trimmed standard output, if it succeeded.
fn run(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}
