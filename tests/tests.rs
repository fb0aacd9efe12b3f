//! The integration tests: ONE test binary (`cargo test --test integration`), so the crate,
//! MPI, hwloc and plotters are linked once, not once per file (ripgrep's layout).
//!
//! Layout:
//! - `tests/<area>.rs`: the tests of one area, a module of this binary; its tests are named
//!   `<area>::<test>` (`cargo test --test integration plot::` runs one area).
//! - `tests/common/`: the one helper set: `run.rs` (the binary, temporary directories, the
//!   lock for machine-wide jobs, processes), `gate.rs` (whether the virtual-machine tests run
//!   here), `mod.rs` (the seeded generator, synthetic machines, measurements and traces).
//! - `tests/vm/`: the scripts that make virtual test machines; `tests/data/`: saved inputs
//!   and the regression fixtures.
//!
//! To add an area: create `tests/<area>.rs` (no `mod common;` in it: `use crate::common::...`),
//! add `mod <area>;` below in alphabetical order, and run `cargo test --test integration
//! <area>::`. Cargo.toml sets `autotests = false`, so a file not listed here would never run:
//! [`every_test_file_is_a_module`] fails until it is listed. All modules share one process:
//! take temporary directories from `common::temp_dir` (names are unique per process) and hold
//! `common::run::one_job()` around anything that runs an MPI job or boots a machine.
//!
//! Why `tests/tests.rs` and not `tests/integration/main.rs`: proptest keeps the failures it
//! found beside the test's source (`tests/properties.proptest-regressions`) unless a
//! directory above the source holds a `main.rs` or `lib.rs`, when it moves them elsewhere.

mod common;

mod calibrate_cli;
mod calibrate_fit;
mod calibrate_roundtrip;
mod cli;
mod fleet;
mod gpu;
mod hostile;
mod measure;
mod module_maps;
mod mpich;
mod network;
mod overlap;
mod paper;
mod plot;
mod properties;
mod readme;
mod real_traces;
mod regression;
mod robustness;
mod runs;
mod sensitivity;
mod setup;
mod signals;
mod simulate;
mod simulated_fleet;
mod slurm;
mod survey;
mod transports;
mod two_hosts;
mod vm_guests;
mod workflow;

/// With `autotests = false`, a `tests/*.rs` file that no `mod` line names is silently never
/// compiled: this test makes that a failure.
#[test]
fn every_test_file_is_a_module() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let main = std::fs::read_to_string(dir.join("tests.rs")).unwrap();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let Some(module) = name.strip_suffix(".rs") else {
            continue;
        };
        if module != "tests" && !main.lines().any(|l| l == format!("mod {module};")) {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "tests/{} not in the integration binary: add `mod NAME;` to tests/tests.rs",
        missing.join(", tests/")
    );
}
