//! Build script, for two things the binary cannot do for itself:
//!
//! 1. Shell completions (bash, zsh, fish) and a man page generated from the clap definition in
//!    `src/cli.rs`, the way hyperfine does it, so they never drift from `--help`. They land in
//!    `target/<profile>/completions/` and `target/<profile>/man/contention.1`.
//! 2. Build provenance (git commit, rustc version, target and its features, profile) exported
//!    as compile-time environment variables for `src/provenance.rs`, so every trace and report
//!    says which code and which compiler flags produced it.

// The man page and completions describe the binary, which needs the `cli` feature.
#[cfg(feature = "cli")]
use clap::CommandFactory;
#[cfg(feature = "cli")]
use clap_complete::Shell;
use std::path::Path;
#[cfg(feature = "cli")]
use std::path::PathBuf;
use std::process::Command;

#[cfg(feature = "cli")]
#[allow(dead_code)]
#[path = "src/cores.rs"]
mod cores;

#[cfg(feature = "cli")]
#[allow(dead_code)]
#[path = "src/units.rs"]
mod units;

#[cfg(feature = "cli")]
#[allow(dead_code)]
#[path = "src/cli.rs"]
mod cli;

// `src/cli.rs` takes the measurement's enums from the library, as `crate::measure::choices`.
#[cfg(feature = "cli")]
#[allow(dead_code)]
#[path = "src/measure/choices.rs"]
mod measure_choices;

#[cfg(feature = "cli")]
mod measure {
    pub(crate) use super::measure_choices as choices;
}

fn main() {
    println!("cargo:rerun-if-changed=src/cli.rs");
    println!("cargo:rerun-if-changed=src/measure/choices.rs");
    println!("cargo:rerun-if-changed=src/cores.rs");
    println!("cargo:rerun-if-changed=src/units.rs");
    provenance();
    #[cfg(feature = "cli")]
    if let Err(e) = generate_docs() {
        // Docs are a convenience: a read-only target dir must not fail the build.
        println!("cargo:warning=could not write man page or completions: {e}");
    }
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
    // Rebuild provenance when the checked-out commit or the index changes.
    for f in [".git/HEAD", ".git/index"] {
        if Path::new(f).exists() {
            println!("cargo:rerun-if-changed={f}");
        }
    }
    if let Some(head) = std::fs::read_to_string(".git/HEAD")
        .ok()
        .and_then(|h| h.strip_prefix("ref: ").map(|r| r.trim().to_string()))
    {
        let r = format!(".git/{head}");
        if Path::new(&r).exists() {
            println!("cargo:rerun-if-changed={r}");
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

#[cfg(feature = "cli")]
fn generate_docs() -> std::io::Result<()> {
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    // OUT_DIR is target/<profile>/build/<pkg>-<hash>/out: three levels up is target/<profile>.
    let profile_dir = out_dir.ancestors().nth(3).unwrap_or(&out_dir).to_path_buf();
    let mut cmd = cli::Cli::command();

    let mut page = Vec::new();
    // No `contention-help(1)`: the pages are installed one per subcommand, and clap's `help`
    // subcommand has none.
    clap_mangen::Man::new(cmd.clone().disable_help_subcommand(true)).render(&mut page)?;
    for dir in [out_dir.clone(), profile_dir.join("man")] {
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join("contention.1"), &page)?;
    }
    for sub in cmd.get_subcommands() {
        let mut page = Vec::new();
        let name = format!("contention-{}", sub.get_name());
        clap_mangen::Man::new(sub.clone().name(&*name.clone().leak())).render(&mut page)?;
        std::fs::write(profile_dir.join("man").join(format!("{name}.1")), &page)?;
    }

    let completions = profile_dir.join("completions");
    std::fs::create_dir_all(&completions)?;
    for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
        clap_complete::generate_to(shell, &mut cmd, "contention", &completions)?;
        clap_complete::generate_to(shell, &mut cmd, "contention", &out_dir)?;
    }
    Ok(())
}
