//! The advisory lock that keeps two `measure` runs from writing one trace: each saves after
//! every point by replacing the file, so with two at once one run's points are silently lost.
//!
//! The lock is `flock(2)` on a file beside the trace (`TRACE.lock`; the trace itself is
//! replaced at every save, so its inode cannot carry a lock). The holder writes who it is
//! into the lock file, so a refused run names it. The lock dies with its process, even by
//! SIGKILL, so a crashed run never leaves the trace locked.

use crate::error::{Error, IoAction, Result};
use std::fs::File;
use std::io::{Read, Seek, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// A held lock; released (and its file removed) when dropped.
#[derive(Debug)]
pub struct TraceLock {
    path: PathBuf,
    /// Held open, never read: the lock lives as long as this descriptor.
    _file: File,
}

/// The lock file of a trace.
pub(crate) fn lock_path(trace: &Path) -> PathBuf {
    let mut name = trace.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// Another run holds the lock of `trace`; `holder` is what it wrote in the lock file (PID,
/// host, start time), empty if nothing. Bad input (exit 2): write elsewhere or wait.
#[derive(Debug, Clone)]
pub(crate) struct TraceBusy {
    pub(crate) trace: PathBuf,
    pub(crate) holder: String,
}

// `?` turns it into the crate's error: input the user can fix (exit 2).
contention_analysis::wrap!(Input: TraceBusy);
impl std::fmt::Display for TraceBusy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` is being written by another measure run ({}); wait for it to end, or write \
             elsewhere with -o",
            crate::error::shown_path(&self.trace),
            crate::error::escape(if self.holder.is_empty() {
                "holder unknown"
            } else {
                &self.holder
            })
        )
    }
}

impl std::error::Error for TraceBusy {}

/// Takes the lock of `trace` for this process, or refuses naming the run that holds it.
pub fn acquire(trace: &Path, holder: &str) -> Result<TraceLock> {
    let path = lock_path(trace);
    // A holder that unlinks its lock file while we open it leaves us a lock on a dead inode:
    // check that the path still names the locked file, and try again if not.
    for _ in 0..10 {
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o644)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&path)
            .map_err(|e| Error::io(IoAction::Create("lock file"), &path, e))?;
        // SAFETY: flock on a file descriptor this function owns; no memory is involved.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if rc != 0 {
            let err = std::io::Error::last_os_error();
            if err.raw_os_error() != Some(libc::EWOULDBLOCK) {
                return Err(Error::io(IoAction::Lock, &path, err));
            }
            return Err(TraceBusy {
                trace: trace.into(),
                holder: read_holder(&mut file),
            }
            .into());
        }
        let same = match (file.metadata(), std::fs::symlink_metadata(&path)) {
            (Ok(a), Ok(b)) => a.ino() == b.ino() && a.dev() == b.dev(),
            _ => false,
        };
        if !same {
            continue;
        }
        file.set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| writeln!(file, "{holder}"))
            .map_err(|e| Error::io(IoAction::Write("lock file"), &path, e))?;
        return Ok(TraceLock { path, _file: file });
    }
    Err(Error::Failed(format!(
        "cannot lock `{}`: its lock file keeps being replaced",
        path.display()
    )))
}

/// The most of a lock file [`read_holder`] reads: a holder line is under a hundred bytes, and
/// the file is anyone's to write (50 MB in it went whole into the error).
const HOLDER_BYTES: u64 = 256;

/// Who holds the lock, as its lock file says: the first [`HOLDER_BYTES`], `...` when there is
/// more, empty when it cannot be read.
fn read_holder(file: &mut File) -> String {
    let mut bytes = Vec::new();
    let _ = Read::by_ref(file)
        .take(HOLDER_BYTES + 1)
        .read_to_end(&mut bytes);
    let more = bytes.len() as u64 > HOLDER_BYTES;
    bytes.truncate(HOLDER_BYTES as usize);
    let who = String::from_utf8_lossy(&bytes).trim().to_string();
    if more {
        format!("{who}...")
    } else {
        who
    }
}

/// Who this process is, for the lock file: `pid N on HOST since TIME`.
pub(crate) fn holder(host: &str) -> String {
    format!(
        "pid {} on {host} since {}",
        std::process::id(),
        crate::timestamp::now()
    )
}

impl Drop for TraceLock {
    fn drop(&mut self) {
        // Unlink first, while still holding the lock: a waiting run then finds the path gone
        // or re-created, never our dead inode (see `acquire`).
        // Then `self._file` closes, which releases the lock.
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use crate::measure::sweep::lock::*;

    #[test]
    fn a_second_holder_is_refused_naming_the_first() {
        let dir = std::env::temp_dir().join(format!("contention-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let trace = dir.join("t.json");
        let first = acquire(&trace, "pid 1 on a since then").unwrap();
        let err = acquire(&trace, "pid 2 on b").unwrap_err();
        assert!(err.to_string().contains("pid 1 on a since then"), "{err}");
        assert_eq!(err.exit_code(), 2);
        drop(first);
        assert!(!lock_path(&trace).exists());
        let again = acquire(&trace, "pid 3").unwrap();
        drop(again);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_huge_lock_file_gives_a_short_refusal() {
        // The lock file is anyone's to write: 50 MB in it went whole into the error.
        let dir = std::env::temp_dir().join(format!("contention-lock-big-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let trace = dir.join("t.json");
        let first = acquire(&trace, &format!("pid 1 on a {}", "x".repeat(4 << 20))).unwrap();
        let err = acquire(&trace, "pid 2 on b").unwrap_err().to_string();
        assert!(
            err.contains("pid 1 on a xxx"),
            "{}",
            &err[..err.len().min(500)]
        );
        assert!(err.len() < 1000, "{} bytes of error", err.len());
        drop(first);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
