//! The set-ups: `.ci/setup` (the main job's: building and running the tool) and
//! `.ci/setup-tests` (`.ci/setup`, then the tooling of the tests on virtual test machines),
//! read through their `--list`, which prints what they install and check and changes nothing.
//! The main job's set-up may run on a production node: it must never install a kernel image,
//! QEMU, virtme-ng, a second MPI or Slurm's daemons. The tests' set-up must check every command the tests' gates look for,
//! under that name (a command the gate finds but the set-up never checked is how a machine
//! with a tool installed by hand went green while a fresh one failed).

use crate::common::{hosts, mpich, slurm};
use crate::vm_guests;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// What a set-up's `--list` says: the Debian packages it installs when missing, the programs
/// its checks run (each check's first word that is not a `NAME=VALUE` setting, as
/// `.ci/lib.sh` finds it), and its other lines.
struct Listing {
    packages: BTreeSet<String>,
    programs: BTreeSet<String>,
    other: Vec<String>,
}

fn list(script: &str) -> Listing {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let o = Command::new("bash")
        .arg(repo.join(".ci").join(script))
        .arg("--list")
        .output()
        .expect("bash runs");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{script} --list: exit {:?}\n{text}{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    let mut l = Listing {
        packages: BTreeSet::new(),
        programs: BTreeSet::new(),
        other: Vec::new(),
    };
    for line in text.lines() {
        if let Some(p) = line.strip_prefix("install ") {
            l.packages.extend(p.split_whitespace().map(str::to_string));
        } else if let Some(c) = line.strip_prefix("check ") {
            let program = c.split_whitespace().find(|w| !w.contains('='));
            l.programs.insert(
                program
                    .unwrap_or_else(|| panic!("{script}: `{line}`"))
                    .into(),
            );
        } else {
            l.other.push(line.to_string());
        }
    }
    l
}

/// What building and running the tool needs (README, Install).
const MAIN_PACKAGES: [&str; 7] = [
    "libopenmpi-dev",
    "openmpi-bin",
    "libhwloc-dev",
    "hwloc",
    "libclang-dev",
    "libudev-dev",
    "pkg-config",
];

#[test]
fn the_main_set_up_installs_the_build_and_no_virtual_machine_tooling() {
    let l = list("setup");
    for p in MAIN_PACKAGES {
        assert!(l.packages.contains(p), "{p} not in {:?}", l.packages);
    }
    let vm: Vec<&String> = l
        .packages
        .iter()
        .filter(|p| {
            p.starts_with("qemu")
                || p.starts_with("linux-image")
                || p.starts_with("slurm")
                || p.contains("mpich")
                || ["busybox-static", "python3-venv", "munge"].contains(&p.as_str())
        })
        .collect();
    assert!(vm.is_empty(), ".ci/setup installs {vm:?}");
    assert!(l.other.is_empty(), ".ci/setup also does {:?}", l.other);
    // The main job calls hwloc-calc itself; the build runs cargo, rustc, mpicc, pkg-config.
    for p in [
        "mpirun",
        "mpicc",
        "hwloc-calc",
        "pkg-config",
        "cc",
        "cargo",
        "rustc",
    ] {
        assert!(l.programs.contains(p), "{p} not checked: {:?}", l.programs);
    }
}

#[test]
fn the_test_set_up_checks_every_command_the_tests_look_for() {
    let l = list("setup-tests");
    for p in MAIN_PACKAGES.iter().chain(&[
        "qemu-system-x86",
        "linux-image-amd64",
        "busybox-static",
        "mpich",
        "libmpich-dev",
        "slurmctld",
        "slurmd",
        "slurm-client",
        "munge",
    ]) {
        assert!(l.packages.contains(*p), "{p} not in {:?}", l.packages);
    }
    for p in vm_guests::TOOLS
        .iter()
        .chain(&hosts::TOOLS)
        .chain(&mpich::TOOLS)
        .chain(&slurm::TOOLS)
    {
        assert!(
            l.programs.contains(*p),
            "the tests look for `{p}`, which .ci/setup-tests does not check; checked: {:?}",
            l.programs
        );
    }
    // Both virtme-ng commands go on the PATH, not only the one the guest script calls.
    assert!(
        l.other
            .iter()
            .any(|o| o.starts_with("pip virtme-ng") && o.ends_with("vng virtme-run")),
        "{:?}",
        l.other
    );
}
