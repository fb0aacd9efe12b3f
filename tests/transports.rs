//! The fabrics real clusters run, each forced by its library's own variables: Open MPI's
//! ob1 over shared memory (the default on one node) and over TCP (Ethernet clusters), its
//! UCX PML (InfiniBand clusters), its cm PML over libfabric (the OFI MTL: HPE Slingshot, AWS
//! EFA, Omni-Path), and MPICH's ch4:ucx over shared memory and over TCP (`UCX_TLS`). Each
//! runs `measure` on one host, `measure` on two namespace hosts and a `survey` of three
//! (`tests/vm/hosts.sh`), one core count each (two for the survey, which refuses one), and
//! each trace must record the stack its messages crossed (`mpi.stack`). The cm stack fails
//! any matched probe (`MPI_Mrecv`), so these runs also fail if one comes back
//! (`src/mpi/wire.rs`).
//!
//! Runs are tiny: the tests check that each stack runs and what the traces record, never a
//! bandwidth (`benches/transports.sh` compares the bandwidths).

use crate::common::hosts::{self, hosts_made};
use crate::common::mpich;
use crate::common::run::{json, one_job, temp_dir, text, BIN, SURVEY_TINY, TINY};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// One stack: its library, the variables that force it on one host and across hosts, and
/// what the trace's `mpi.stack.summary` must then say.
struct Stack {
    name: &'static str,
    mpich: bool,
    one_host: &'static [(&'static str, &'static str)],
    /// Across hosts (shared memory does not cross them: ob1 adds TCP, UCX its tcp transport).
    hosts: &'static [(&'static str, &'static str)],
    summary_one_host: &'static str,
    summary_hosts: &'static str,
}

const UCX_PML: [(&str, &str); 3] = [
    ("OMPI_MCA_pml", "ucx"),
    // Debian's Open MPI keeps UCX to InfiniBand devices unless told otherwise.
    ("OMPI_MCA_pml_ucx_tls", "any"),
    ("OMPI_MCA_pml_ucx_devices", "any"),
];

const STACKS: [Stack; 6] = [
    Stack {
        name: "ob1-shared-memory",
        mpich: false,
        one_host: &[("OMPI_MCA_pml", "ob1"), ("OMPI_MCA_btl", "self,vader")],
        hosts: &[("OMPI_MCA_pml", "ob1"), ("OMPI_MCA_btl", "self,vader,tcp")],
        summary_one_host: "Open MPI pml ob1 (btl self,vader)",
        // Open MPI closes vader where no peer shares the node.
        summary_hosts: "Open MPI pml ob1 (btl self,tcp)",
    },
    Stack {
        name: "ob1-tcp",
        mpich: false,
        one_host: &[("OMPI_MCA_pml", "ob1"), ("OMPI_MCA_btl", "self,tcp")],
        hosts: &[("OMPI_MCA_pml", "ob1"), ("OMPI_MCA_btl", "self,tcp")],
        summary_one_host: "Open MPI pml ob1 (btl self,tcp)",
        summary_hosts: "Open MPI pml ob1 (btl self,tcp)",
    },
    Stack {
        name: "ucx",
        mpich: false,
        one_host: &UCX_PML,
        hosts: &UCX_PML,
        summary_one_host: "Open MPI pml ucx",
        summary_hosts: "Open MPI pml ucx",
    },
    Stack {
        name: "cm-ofi",
        mpich: false,
        one_host: &[("OMPI_MCA_pml", "cm"), ("OMPI_MCA_mtl", "ofi")],
        hosts: &[("OMPI_MCA_pml", "cm"), ("OMPI_MCA_mtl", "ofi")],
        summary_one_host: "Open MPI pml cm, mtl ofi",
        summary_hosts: "Open MPI pml cm, mtl ofi",
    },
    Stack {
        name: "mpich-shared-memory",
        mpich: true,
        one_host: &[("UCX_TLS", "sm,self")],
        // Between namespace hosts of one machine UCX would still take shared memory: only
        // TCP is a fabric there.
        hosts: &[("UCX_TLS", "tcp,self")],
        summary_one_host: "MPICH ch4:ucx, UCX_TLS=sm,self",
        summary_hosts: "MPICH ch4:ucx, UCX_TLS=tcp,self",
    },
    Stack {
        name: "mpich-tcp",
        mpich: true,
        one_host: &[("UCX_TLS", "tcp,self")],
        hosts: &[("UCX_TLS", "tcp,self")],
        summary_one_host: "MPICH ch4:ucx, UCX_TLS=tcp,self",
        summary_hosts: "MPICH ch4:ucx, UCX_TLS=tcp,self",
    },
];

/// The binary of `stack`'s library, or `None` (skipped, saying why) where it cannot run here.
fn binary(stack: &Stack, test: &str) -> Option<PathBuf> {
    if stack.mpich {
        mpich::runnable(test).then(mpich::binary)
    } else {
        Some(PathBuf::from(BIN))
    }
}

/// A command with `vars` set and every other stack-choosing variable of this environment
/// removed, so that the stack is the one asked for.
fn with_stack(program: &Path, vars: &[(&str, &str)]) -> Command {
    let mut c = Command::new(program);
    for (k, _) in std::env::vars() {
        if [
            "OMPI_MCA_pml",
            "OMPI_MCA_mtl",
            "OMPI_MCA_btl",
            "UCX_",
            "FI_PROVIDER",
        ]
        .iter()
        .any(|p| k.starts_with(p))
        {
            c.env_remove(k);
        }
    }
    c.envs(vars.iter().copied()).stdin(Stdio::null());
    c
}

/// The trace's recorded stack, checked against `summary` and the variables that forced it.
fn check_stack(trace: &Value, summary: &str, vars: &[(&str, &str)], what: &str) {
    let s = &trace["mpi"]["stack"];
    assert_eq!(s["summary"], summary, "{what}: {s}");
    let forced: Vec<&str> = s["forced_by"]
        .as_array()
        .unwrap_or_else(|| panic!("{what}: no forced_by in {s}"))
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for (k, v) in vars {
        let kv = format!("{k}={v}");
        assert!(
            forced.contains(&kv.as_str()),
            "{what}: {kv} not in {forced:?}"
        );
    }
}

fn run_ok(what: &str, o: &Output) {
    assert!(o.status.success(), "{what}: {}", text(o));
}

/// Each stack with the binary of its library, those that cannot run here left out (skipped,
/// saying why, or failing in CI). Built before any test takes the machine (`one_job`): the
/// MPICH build takes it too.
fn runnable(test: &str) -> Vec<(&'static Stack, PathBuf)> {
    STACKS
        .iter()
        .filter_map(|s| binary(s, test).map(|b| (s, b)))
        .collect()
}

#[test]
fn every_stack_measures_on_one_host_and_records_itself() {
    let stacks = runnable("every_stack_measures_on_one_host_and_records_itself");
    let _one = one_job();
    let d = temp_dir("transports-one-host");
    for (stack, bin) in stacks {
        let out = d.join(format!("{}.json", stack.name));
        let o = with_stack(&bin, stack.one_host)
            .arg("measure")
            .args(TINY)
            .args(["--shared-comm-core", "-o"])
            .arg(&out)
            .output()
            .unwrap();
        run_ok(stack.name, &o);
        check_stack(
            &json(&out),
            stack.summary_one_host,
            stack.one_host,
            stack.name,
        );
        assert!(
            String::from_utf8_lossy(&o.stderr)
                .contains(&format!("stack       {}", stack.summary_one_host)),
            "{}: the log names the stack\n{}",
            stack.name,
            text(&o)
        );
    }
    std::fs::remove_dir_all(d).unwrap();
}

/// `cmd` on namespace hosts `names` (`tests/vm/hosts.sh`), each with its own `/sys` (UCX
/// finds its network devices there).
fn on_hosts(names: &[String], cmd: &mut Command) -> Output {
    let mut c = Command::new("bash");
    c.arg("tests/vm/hosts.sh").args(names).arg("--");
    c.arg(cmd.get_program()).args(cmd.get_args());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    c.env("CONTENTION_HOSTS_OWN_SYSFS", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn every_stack_measures_across_two_namespace_hosts() {
    if !hosts::runnable("every_stack_measures_across_two_namespace_hosts") {
        return;
    }
    let stacks = runnable("every_stack_measures_across_two_namespace_hosts");
    let _one = one_job();
    let d = temp_dir("transports-two-hosts");
    for (i, (stack, bin)) in stacks.into_iter().enumerate() {
        let names = hosts::names('t', char::from(b'a' + i as u8), 2);
        let out = d.join(format!("{}.json", stack.name));
        let mut cmd = with_stack(&bin, stack.hosts);
        cmd.arg("measure")
            .args(TINY)
            .args(["--hosts", &names.join(","), "-o"])
            .arg(&out);
        let o = on_hosts(&names, &mut cmd);
        if !hosts_made(stack.name, &o) {
            return;
        }
        run_ok(stack.name, &o);
        let t = json(&out);
        assert_eq!(t["transport"]["kind"], "network", "{}", stack.name);
        check_stack(&t, stack.summary_hosts, stack.hosts, stack.name);
    }
    std::fs::remove_dir_all(d).unwrap();
}

#[test]
fn every_stack_surveys_three_namespace_hosts() {
    if !hosts::runnable("every_stack_surveys_three_namespace_hosts") {
        return;
    }
    let stacks = runnable("every_stack_surveys_three_namespace_hosts");
    let _one = one_job();
    for (i, (stack, bin)) in stacks.into_iter().enumerate() {
        let names = hosts::names('u', char::from(b'a' + i as u8), 3);
        let results = temp_dir(&format!("transports-survey-{}", stack.name));
        let mut cmd = with_stack(&bin, stack.hosts);
        cmd.args(["survey", "--hosts", &names.join(",")])
            .args(SURVEY_TINY)
            // One run per node: what these check is the library's job, not the second stage.
            .args(["--runs", "1"])
            .env("CONTENTION_RESULTS", &results);
        let o = on_hosts(&names, &mut cmd);
        if !hosts_made(stack.name, &o) {
            return;
        }
        assert!(hosts::survey_ended(&o), "{}: {}", stack.name, text(&o));
        for host in &names {
            let t = json(&results.join(host).join("trace-numa0-0-nt-store-pong.json"));
            check_stack(&t, stack.summary_hosts, stack.hosts, stack.name);
        }
        std::fs::remove_dir_all(results).unwrap();
    }
}
