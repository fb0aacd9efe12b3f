//! Running the measured command: pinned to its cores, inside the resctrl group from its first
//! instruction (the child joins the group between fork and exec), its standard output captured
//! for the figure of merit and its standard error passed through.

use super::error::SensitivityError;
use crate::error::Result;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

/// Runs `argv` and returns its standard output; a non-zero exit is an error naming it.
pub fn run_command(argv: &[String], cpus: &[u32], tasks: Option<&Path>) -> Result<String> {
    let (program, args) = argv.split_first().ok_or(SensitivityError::NoCommand)?;
    let mut cmd = Command::new(program);
    cmd.args(args).stdin(Stdio::null()).stderr(Stdio::inherit());
    // Built before the fork: the child may only make async-signal-safe calls.
    // SAFETY: an all-zero cpu_set_t is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in cpus {
        // SAFETY: CPU_SET only writes inside `set`; indices past its size are ignored by libc.
        unsafe { libc::CPU_SET(c as usize, &mut set) };
    }
    let pin = !cpus.is_empty();
    let tasks = tasks
        .map(|p| CString::new(p.as_os_str().as_bytes()))
        .transpose()
        .map_err(|_| SensitivityError::NulInPath)?;
    // SAFETY: the closure runs in the child between fork and exec and only calls
    // sched_setaffinity, getpid, open, write and close, all async-signal-safe, on data built
    // before the fork; it allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            if pin && libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if let Some(path) = &tasks {
                join_group(path)?;
            }
            Ok(())
        });
    }
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

/// Writes this process's id to the resctrl `tasks` file at `path`, without allocating.
fn join_group(path: &CString) -> std::io::Result<()> {
    let mut digits = [0u8; 24];
    // SAFETY: getpid cannot fail.
    let mut pid = unsafe { libc::getpid() } as u32;
    let mut i = digits.len() - 1;
    digits[i] = b'\n';
    loop {
        i -= 1;
        digits[i] = b'0' + (pid % 10) as u8;
        pid /= 10;
        if pid == 0 {
            break;
        }
    }
    let text = &digits[i..];
    // SAFETY: `path` is NUL-terminated; the fd is closed on every path below.
    let fd = unsafe {
        libc::open(
            path.as_ptr(),
            libc::O_WRONLY | libc::O_APPEND | libc::O_CREAT | libc::O_CLOEXEC,
            0o644,
        )
    };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `text` is a live buffer of `text.len()` bytes; `fd` is open.
    let written = unsafe { libc::write(fd, text.as_ptr().cast(), text.len()) };
    // SAFETY: `fd` is ours and open.
    unsafe { libc::close(fd) };
    if written != text.len() as isize {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
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
