//! Running the measured command: pinned to its cores, inside the resctrl group from its first
//! instruction (the child joins the group between fork and exec), its standard output captured
//! for the figure of merit and its standard error passed through.

use super::error::SensitivityError;
use crate::error::Result;
use crate::sys::{ChildSetup, CpuSet};
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::{Command, Stdio};

/// Runs `argv` and returns its standard output; a non-zero exit is an error naming it.
pub(crate) fn run_command(argv: &[String], cpus: &[u32], tasks: Option<&Path>) -> Result<String> {
    let (program, args) = argv.split_first().ok_or(SensitivityError::NoCommand)?;
    let mut cmd = Command::new(program);
    cmd.args(args).stdin(Stdio::null()).stderr(Stdio::inherit());
    let join = tasks
        .map(|p| CString::new(p.as_os_str().as_bytes()))
        .transpose()
        .map_err(|_| SensitivityError::NulInPath)?;
    ChildSetup {
        affinity: (!cpus.is_empty()).then(|| CpuSet::of(cpus)),
        join,
    }
    .install(&mut cmd);
    let out = cmd.output().map_err(|err| SensitivityError::Spawn {
        program: program.clone(),
        err,
    })?;
    if !out.status.success() {
        return Err(SensitivityError::CommandFailed {
            command: argv.join(" "),
            status: out.status,
        }
        .into());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Vec<String> {
        vec!["sh".into(), "-c".into(), script.into()]
    }

    #[test]
    fn captures_output_pins_and_joins_the_group_before_exec() {
        let dir = std::env::temp_dir().join(format!("contention-runner-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let tasks = dir.join("tasks");
        let out = run_command(
            &sh("echo $$; grep Cpus_allowed_list /proc/self/status"),
            &[0],
            Some(&tasks),
        )
        .unwrap();
        let mut lines = out.lines();
        let pid = lines.next().unwrap();
        assert_eq!(std::fs::read_to_string(&tasks).unwrap(), format!("{pid}\n"));
        assert!(lines.next().unwrap().trim_end().ends_with("\t0"), "{out}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn failures_name_the_command() {
        let e = run_command(&sh("exit 3"), &[], None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("exit 3") && e.contains("status"), "{e}");
        let e = run_command(&["/no/such/program".into()], &[], None).unwrap_err();
        assert!(e.to_string().contains("cannot run"), "{e}");
        assert!(run_command(&[], &[], None).is_err());
    }
}
