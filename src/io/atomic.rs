//! Atomic file writes: a reader (or a user after Ctrl-C) sees the old file or the new one,
//! never half of one.
//!
//! Users run the tool as root on shared file systems, so a write must never go where it was
//! not meant to: an existing target that is not a regular file (`/dev/null`, a FIFO, a
//! directory) is refused rather than replaced, and the temporary file is created by the
//! `tempfile` crate: exclusively (`O_EXCL`, so a planted symlink is never followed), with an
//! unpredictable name, in the target's directory so that the final rename stays atomic.

use crate::error::{Error, IoAction, Result};
use std::io::Write;
use std::path::Path;

/// The output name that means standard output.
pub(crate) const STDOUT: &str = "-";

/// Refuses a target that exists and is not a regular file (a symlink is judged by what it
/// points to; the rename then replaces the link, never the file behind it).
pub(crate) fn check_target(path: &Path) -> Result<()> {
    let Ok(meta) = std::fs::metadata(path) else {
        // Absent (or a dangling link, which the rename replaces): nothing to protect.
        return Ok(());
    };
    if meta.is_file() {
        return Ok(());
    }
    let what = describe(&meta.file_type());
    Err(WriteError::NotRegular {
        shown: crate::error::shown_path(path),
        kind: what,
    }
    .into())
}

/// Why an output path was refused before writing. Both are bad input (exit 2): the user named
/// something that is not a file to replace.
#[derive(Debug, Clone)]
pub(crate) enum WriteError {
    /// The target exists and is a device, FIFO, directory or socket (`kind` says which).
    NotRegular { shown: String, kind: &'static str },
    /// The path has no file name (`/`, `..`).
    NotAFileName { path: std::path::PathBuf },
}

// `?` turns it into the crate's error: input the user can fix (exit 2).
crate::error::wrap!(Input: WriteError);
impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::NotRegular { shown, kind } => write!(
                f,
                "`{shown}` is {kind}, not a regular file; refusing to replace it: name a file \
                 (or `-` for standard output)"
            ),
            WriteError::NotAFileName { path } => {
                write!(f, "`{}` is not a file name", path.display())
            }
        }
    }
}

impl std::error::Error for WriteError {}

/// A few words for a file type, for error messages.
pub(crate) fn describe(t: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// Writes `bytes` to `path` through a temporary file in the same directory, then renames it
/// over `path` (rename within one file system is atomic on POSIX). `-` is standard output.
pub fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    if path.as_os_str() == STDOUT {
        // Bytes as they are (a PNG is not text).
        let mut out = std::io::stdout().lock();
        return match out.write_all(bytes).and_then(|()| out.flush()) {
            // A closed pipe (`| head`) is the reader's choice, not a failure.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            r => r.map_err(|e| Error::io(IoAction::Write(""), "standard output", e)),
        };
    }
    check_target(path)?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| WriteError::NotAFileName { path: path.into() })?;
    use std::os::unix::fs::PermissionsExt;
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{}.", name.to_string_lossy()))
        .suffix(".tmp")
        // What `File::create` would give: 0666 less the umask (tempfile's default is 0600,
        // which would hide results from the rest of the group on a shared file system).
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .map_err(|e| Error::io(IoAction::Write(""), path, e))?;
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| Error::io(IoAction::Write(""), path, e))?;
    // On failure the temporary is removed when `tmp` (or the error holding it) is dropped.
    tmp.persist(path)
        .map_err(|e| Error::io(IoAction::Write(""), path, e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("contention-atomic-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn names(dir: &Path) -> Vec<std::ffi::OsString> {
        let mut v: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn replaces_the_file_and_leaves_no_temporary() {
        let dir = dir("replace");
        let path = dir.join("out.json");
        write(&path, b"old").unwrap();
        write(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(names(&dir), vec![std::ffi::OsString::from("out.json")]);
        let err = write(&dir.join("missing/out.json"), b"x").unwrap_err();
        assert!(err.to_string().contains("missing/out.json"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn refuses_fifos_and_directories_and_keeps_them() {
        let dir = dir("fifo");
        let fifo = dir.join("pipe");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo has no other precondition.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let err = write(&fifo, b"x").unwrap_err();
        assert!(err.to_string().contains("a FIFO"), "{err}");
        assert_eq!(err.exit_code(), 2);
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo());
        let err = write(&dir, b"x").unwrap_err();
        assert!(err.to_string().contains("a directory"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The old temporary name was `.NAME.tmp<PID>`: a link planted there made the write
    /// follow it and overwrite the link's target.
    #[test]
    fn planted_symlinks_are_not_followed() {
        let dir = dir("symlink");
        let victim = dir.join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let pid = std::process::id();
        for name in [
            format!(".out.json.tmp{pid}"),
            format!(".out.json.{pid}.tmp"),
        ] {
            std::os::unix::fs::symlink(&victim, dir.join(name)).unwrap();
        }
        write(&dir.join("out.json"), b"new").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        let meta = std::fs::symlink_metadata(dir.join("out.json")).unwrap();
        assert!(meta.file_type().is_file());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
