//! Ctrl-C, SIGTERM and SIGHUP during a measurement.
//!
//! On rank 0 the first one sets a flag that the sweep checks every few milliseconds, so the
//! run stops between samples with every finished point saved; a second one kills the process
//! as usual (the handler resets itself).
//!
//! In the launching process (`contention measure` from a shell) the job runs in its own
//! process group, and the handler forwards the signal to that group: a `kill -TERM` aimed at
//! the launcher's PID (a batch system, a script) reaches the MPI job, and a terminal's Ctrl-C
//! reaches it once, not twice. If the launcher dies without a chance to forward (SIGKILL),
//! the launcher program gets SIGTERM from the kernel (`PR_SET_PDEATHSIG`, set in
//! `die_with_parent`), so no orphaned job keeps writing the trace.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
/// The process group of the launched job, or 0 before there is one.
static JOB_GROUP: AtomicI32 = AtomicI32::new(0);
/// The last signal received, for forwarding one that came before the job existed.
static LAST_SIGNAL: AtomicI32 = AtomicI32::new(0);

/// The signals that stop a run.
pub(crate) const STOP_SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

extern "C" fn on_signal(sig: libc::c_int) {
    // Only atomics and kill(2): async-signal-safe.
    INTERRUPTED.store(true, Ordering::SeqCst);
    LAST_SIGNAL.store(sig, Ordering::SeqCst);
    let group = JOB_GROUP.load(Ordering::SeqCst);
    if group > 0 {
        // SAFETY: kill(2) is async-signal-safe; a negative pid names the job's group.
        unsafe { libc::kill(-group, sig) };
    }
}

/// Installs the handler for SIGINT, SIGTERM and SIGHUP and returns the flag it sets.
pub(crate) fn install() -> &'static AtomicBool {
    for sig in STOP_SIGNALS {
        // SAFETY: `sigaction` is given a zeroed, then filled, struct and a handler that only
        // performs atomic operations and kill(2); SA_RESETHAND restores the default after
        // one delivery.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
            action.sa_flags = libc::SA_RESETHAND;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(sig, &action, std::ptr::null_mut());
        }
    }
    &INTERRUPTED
}

/// From now on, forward stop signals to the process group `group` (the launched job); a
/// signal that arrived while the job was being started is forwarded now.
pub(crate) fn forward_to(group: i32) {
    JOB_GROUP.store(group, Ordering::SeqCst);
    let sig = LAST_SIGNAL.load(Ordering::SeqCst);
    if sig != 0 && group > 0 {
        // SAFETY: kill(2) on the job's process group; no memory is involved.
        unsafe { libc::kill(-group, sig) };
    }
}

/// For `Command::pre_exec` of the launcher: the kernel sends it SIGTERM when this process
/// dies, even by SIGKILL; if this process is already gone, the launcher exits at once.
///
/// Runs between fork and exec, so it only makes async-signal-safe calls.
pub(crate) fn die_with_parent(parent: libc::pid_t) -> std::io::Result<()> {
    // SAFETY: prctl(PR_SET_PDEATHSIG) and getppid are async-signal-safe system calls with
    // integer arguments only.
    unsafe {
        if libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGTERM as libc::c_ulong,
            0,
            0,
            0,
        ) != 0
        {
            return Err(std::io::Error::last_os_error());
        }
        if libc::getppid() != parent {
            libc::_exit(1);
        }
    }
    Ok(())
}

/// Whether a signal arrived.
pub(crate) fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}
