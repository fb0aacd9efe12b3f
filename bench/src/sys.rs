//! The operating-system calls about where threads and processes run and who runs them: CPU
//! affinity sets, binding a thread to one hardware thread, the CPU a thread is on, thread id
//! and effective user id, and the set-up a child makes between `fork` and `exec`.
//!
//! One place for them, used by the benchmark (`measure`) and by `sensitivity`, so a CPU set is
//! built one way and every `unsafe` call to libc is small, here, with its `// SAFETY:` reason.
//! Pinning is what makes a measurement mean something: the paper's benchmark (section 4.1.1)
//! puts each computing thread on its own core and the communication thread on a core none of
//! them uses.

#[cfg(feature = "mpi")]
use hwlocality::cpu::binding::CpuBindingFlags;
#[cfg(feature = "mpi")]
use hwlocality::Topology;
use std::ffi::CString;
use std::process::Command;

/// A set of hardware threads (OS indices), as the kernel's affinity calls take it.
#[derive(Clone, Copy)]
pub(crate) struct CpuSet(libc::cpu_set_t);

impl CpuSet {
    /// The empty set.
    pub(crate) fn new() -> Self {
        // SAFETY: cpu_set_t is a plain bit array; all zeroes is the empty set.
        CpuSet(unsafe { std::mem::zeroed() })
    }

    /// The set of `cpus`; indices at or past `libc::CPU_SETSIZE` (1024) are ignored, as libc's
    /// `CPU_SET` does.
    pub(crate) fn of(cpus: &[u32]) -> Self {
        let mut set = CpuSet::new();
        for &c in cpus {
            if (c as usize) < Self::SIZE {
                // SAFETY: CPU_SET writes one bit inside `set.0`, the index being in range.
                unsafe { libc::CPU_SET(c as usize, &mut set.0) };
            }
        }
        set
    }

    const SIZE: usize = libc::CPU_SETSIZE as usize;

    /// Whether `cpu` is in the set.
    pub(crate) fn contains(&self, cpu: u32) -> bool {
        // SAFETY: CPU_ISSET reads one bit inside `self.0`, the index being in range.
        (cpu as usize) < Self::SIZE && unsafe { libc::CPU_ISSET(cpu as usize, &self.0) }
    }

    /// The members, ascending.
    pub(crate) fn cpus(&self) -> Vec<u32> {
        (0..Self::SIZE as u32)
            .filter(|&c| self.contains(c))
            .collect()
    }
}

impl Default for CpuSet {
    fn default() -> Self {
        CpuSet::new()
    }
}

impl std::fmt::Debug for CpuSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.cpus()).finish()
    }
}

/// The hardware threads this process may run on (its affinity mask); empty if the kernel
/// refuses to say.
pub(crate) fn allowed_cpus() -> Vec<u32> {
    let mut set = CpuSet::new();
    // SAFETY: `set.0` is a live cpu_set_t of the size passed; the kernel writes only inside it.
    let rc = unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set.0), &mut set.0) };
    if rc == 0 {
        set.cpus()
    } else {
        Vec::new()
    }
}

#[cfg(feature = "mpi")]
/// Binds the calling thread to one hardware thread (OS index), strictly, through hwloc.
pub(crate) fn bind_current_thread(topology: &Topology, pu_os: u32) -> Result<(), String> {
    let mut set = hwlocality::cpu::cpuset::CpuSet::new();
    set.set(pu_os as usize);
    topology
        .bind_cpu(&set, CpuBindingFlags::THREAD | CpuBindingFlags::STRICT)
        .map_err(|e| {
            format!(
                "the OS refused to bind a thread to PU P#{pu_os}: {e}; in a container or a \
                 restricted cpuset, pass --no-bind (the trace records it)"
            )
        })
}

/// The CPU (OS index) the calling thread runs on now, if the OS says.
pub(crate) fn current_cpu() -> Option<u32> {
    // SAFETY: sched_getcpu has no preconditions; it returns -1 on failure.
    u32::try_from(unsafe { libc::sched_getcpu() }).ok()
}

/// The kernel's id of the calling thread (what resctrl's `tasks` file takes).
pub(crate) fn thread_id() -> u32 {
    // SAFETY: gettid has no preconditions and cannot fail.
    let tid = unsafe { libc::gettid() };
    tid as u32
}

/// Whether the process runs as root (Open MPI then needs `--allow-run-as-root`).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// What the child of a [`Command`] does between `fork` and `exec`, so the program it runs
/// starts under it from its first instruction.
#[derive(Debug, Default)]
pub(crate) struct ChildSetup {
    /// Pin the child to these hardware threads.
    pub(crate) affinity: Option<CpuSet>,
    /// Write the child's process id to this file (a resctrl group's `tasks`).
    pub(crate) join: Option<CString>,
}

impl ChildSetup {
    /// Installs the set-up on `cmd`. Everything the child needs is built here, before the
    /// fork: in the child only async-signal-safe calls are allowed, and nothing allocates.
    pub(crate) fn install(self, cmd: &mut Command) {
        use std::os::unix::process::CommandExt;
        let ChildSetup { affinity, join } = self;
        // SAFETY: the closure runs in the child between fork and exec and only calls
        // sched_setaffinity, getpid, open, write and close (all async-signal-safe) on data
        // built before the fork; it allocates nothing.
        unsafe {
            cmd.pre_exec(move || {
                if let Some(set) = &affinity {
                    set_affinity(set)?;
                }
                if let Some(path) = &join {
                    write_own_pid(path)?;
                }
                Ok(())
            });
        }
    }
}

/// Pins the calling process to `set`. Async-signal-safe (one system call, no allocation).
fn set_affinity(set: &CpuSet) -> std::io::Result<()> {
    // SAFETY: `set.0` is a live cpu_set_t of the size passed; the kernel only reads it.
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&set.0), &set.0) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Appends this process's id and a newline to the file at `path`. Async-signal-safe: digits
/// formatted on the stack, then open, write, close.
fn write_own_pid(path: &CString) -> std::io::Result<()> {
    let mut digits = [0u8; 24];
    // SAFETY: getpid has no preconditions and cannot fail.
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

    #[test]
    fn cpu_sets_hold_what_they_are_given() {
        let s = CpuSet::of(&[3, 0, 3, 64, 5000]);
        assert_eq!(s.cpus(), vec![0, 3, 64]);
        assert!(s.contains(64) && !s.contains(1) && !s.contains(5000));
        assert!(CpuSet::new().cpus().is_empty());
        assert_eq!(format!("{s:?}"), "{0, 3, 64}");
    }

    #[test]
    fn this_process_runs_on_an_allowed_cpu() {
        let allowed = allowed_cpus();
        assert!(!allowed.is_empty());
        let cpu = current_cpu().expect("sched_getcpu works on Linux");
        assert!(allowed.contains(&cpu), "{cpu} not in {allowed:?}");
        assert!(thread_id() > 0);
        // SAFETY: getuid has no preconditions and cannot fail.
        let uid = unsafe { libc::getuid() };
        // Without set-uid binaries in play, effective and real ids agree.
        assert_eq!(is_root(), uid == 0);
    }

    #[test]
    fn a_child_starts_pinned_and_writes_its_pid() {
        let dir = tempfile::tempdir().unwrap();
        let tasks = dir.path().join("tasks");
        let first = *allowed_cpus().first().unwrap();
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "grep Cpus_allowed_list /proc/self/status; echo $$"]);
        ChildSetup {
            affinity: Some(CpuSet::of(&[first])),
            join: Some(CString::new(tasks.as_os_str().as_encoded_bytes()).unwrap()),
        }
        .install(&mut cmd);
        let out = cmd.output().unwrap();
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        let mut lines = text.lines();
        let allowed = lines.next().unwrap();
        assert_eq!(allowed.split_whitespace().last(), Some(&*first.to_string()));
        // `sh` execs in the same process: the pid it prints is the one written before exec.
        let pid = lines.next().unwrap();
        assert_eq!(std::fs::read_to_string(&tasks).unwrap(), format!("{pid}\n"));
    }
}
