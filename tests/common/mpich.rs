//! The MPICH build of the tool, for the tests that run it (`mpich`, `slurm`): the same
//! sources built against Debian's MPICH (`MPICC=mpicc.mpich`), in a target directory of its
//! own (`target/mpich`) so that the two builds never rebuild each other, as docs/guide.md says to
//! build it. Built once per test process, by the first test that asks.

use super::gate;
use super::run::one_job;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Instant;

/// The commands the MPICH build and its runs need: its compiler wrapper (rsmpi compiles and
/// links through it) and Hydra's launcher. `.ci/setup-tests` checks both (`tests/setup.rs`).
pub const TOOLS: [&str; 2] = ["mpicc.mpich", "mpiexec.mpich"];

/// Whether MPICH is here; otherwise skip, or fail in CI.
pub fn runnable(test: &str) -> bool {
    gate::decide(test, gate::missing(&TOOLS))
}

/// The MPICH build of `contention`: built on the first call (a few minutes from nothing, seconds
/// once `target/mpich` holds the dependencies), then the same path. Panics with cargo's output
/// if the build fails.
pub fn binary() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            // A build loads both cores: no MPI job beside it.
            let _one = one_job();
            let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
            let target = repo.join("target").join("mpich");
            let t0 = Instant::now();
            let o = Command::new(option_env!("CARGO").unwrap_or("cargo"))
                .args(["build", "--locked", "--bin", "contention"])
                .current_dir(repo)
                .env("MPICC", "mpicc.mpich")
                .env("CARGO_TARGET_DIR", &target)
                .output()
                .expect("cargo runs");
            assert!(
                o.status.success(),
                "the MPICH build failed:\n{}",
                String::from_utf8_lossy(&o.stderr)
            );
            gate::say(&format!(
                "mpich: `MPICC=mpicc.mpich CARGO_TARGET_DIR=target/mpich cargo build --locked` \
                 took {:.0} s",
                t0.elapsed().as_secs_f64()
            ));
            let bin = target.join("debug").join("contention");
            let ldd = Command::new("ldd").arg(&bin).output().expect("ldd runs");
            let libs = String::from_utf8_lossy(&ldd.stdout);
            assert!(
                libs.contains("libmpich") && !libs.contains("libmpi.so"),
                "{} is not linked with MPICH alone:\n{libs}",
                bin.display()
            );
            bin
        })
        .clone()
}
