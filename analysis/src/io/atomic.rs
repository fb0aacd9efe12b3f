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
pub const STDOUT: &str = "-";

/// Refuses a target that exists and is not a regular file (a symlink is judged by what it
/// points to; the rename then replaces the link, never the file behind it).
pub fn check_target(path: &Path) -> Result<()> {
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

/// The directory a file `path` goes into (`.` for a bare name).
pub fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// The canonical path of the directory a file `path` goes into ([`directory_of`]), `None`
/// when it does not exist: `./x` and `d/../x` go into one.
pub fn canonical_directory(path: &Path) -> Option<std::path::PathBuf> {
    std::fs::canonicalize(directory_of(path)).ok()
}

/// Whether files `a` and `b` are one place: the same name in the same directory
/// ([`canonical_directory`]), whether or not the file exists yet.
pub fn same_place(a: &Path, b: &Path) -> bool {
    let dir = canonical_directory(a);
    a.file_name().is_some()
        && a.file_name() == b.file_name()
        && dir.is_some()
        && dir == canonical_directory(b)
}

/// Refuses a directory `dir` that output cannot go into, naming `target` (what was asked
/// for: the file, or the directory itself): `dir` exists and is not a directory, or, missing,
/// its nearest existing ancestor is not one (`afile/out.json`), or, missing and not
/// `created` by the caller before writing, it does not exist (`nodir/out.json`). Creates
/// nothing: a refused output leaves no directory behind.
pub fn check_directory(dir: &Path, target: &Path, created: bool) -> Result<()> {
    // The directory itself if it exists, else its nearest existing ancestor, which
    // `create_dir_all` would create it under.
    let existing = dir
        .ancestors()
        .filter(|a| !a.as_os_str().is_empty())
        .find(|a| std::fs::symlink_metadata(a).is_ok());
    if let Some(a) = existing {
        if let Ok(meta) = std::fs::metadata(a) {
            if !meta.is_dir() {
                return Err(WriteError::UnderNonDirectory {
                    target: crate::error::shown_path(target),
                    ancestor: crate::error::shown_path(a),
                    kind: describe(&meta.file_type()),
                }
                .into());
            }
        }
        if a == dir || created {
            return Ok(());
        }
    } else if created {
        return Ok(());
    }
    Err(WriteError::NoDirectory {
        target: crate::error::shown_path(target),
        dir: crate::error::shown_path(dir),
    }
    .into())
}

/// Whether a file can be created in the existing directory `dir`, tried as `write` does
/// (exclusively, under an unpredictable name; removed at once): a read-only or foreign
/// directory is refused before the work whose result would not be saved.
pub fn probe_directory(dir: &Path) -> Result<()> {
    tempfile::Builder::new()
        .prefix(".contention-write-test-")
        .tempfile_in(dir)
        .map(drop)
        .map_err(|err| {
            // The system's reason alone: tempfile adds the temporary's name, which the user
            // never asked for.
            let err = err.raw_os_error().map_or_else(
                || err.to_string(),
                |code| std::io::Error::from_raw_os_error(code).to_string(),
            );
            WriteError::Unwritable {
                dir: crate::error::shown_path(dir),
                err,
            }
            .into()
        })
}

/// Refuses, before the work that produces it, an output file that [`write`] would refuse or
/// fail on at the end (issue 46, N8: `calibrate --bootstrap 2000 -o nodir/m.json` fitted for
/// seconds, a survey measured every node, then "cannot write"): a target that is not a
/// regular file ([`check_target`]), a directory that is missing or not a directory
/// ([`check_directory`]: [`write`] creates none), one that refuses a new file
/// ([`probe_directory`]). `-` (standard output) passes. Bad input (exit 2), naming the path.
pub(crate) fn check_writable(path: &Path) -> Result<()> {
    if path.as_os_str() == STDOUT {
        return Ok(());
    }
    check_target(path)?;
    let dir = directory_of(path);
    check_directory(dir, path, false)?;
    probe_directory(dir)
}

/// `check_writable` of the file an option (`-o`, `--plot`) names, when given, its message
/// opened by the option: what the commands whose work takes long (a fit, a survey, a
/// measured sweep or MPI job) check before it.
pub fn check_option(option: &str, path: Option<&Path>) -> Result<()> {
    match path {
        Some(p) => check_writable(p).map_err(|e| Error::Input(format!("{option}: {e}"))),
        None => Ok(()),
    }
}

/// Refuses an output file that is one of the command's inputs, the same file (device and
/// inode) under any name: `show t.json -o t.json` replaced the trace with its report, and
/// `predict -m m.json -o m.json` the model with its predictions, exit 0 (issue 46). Bad
/// input (exit 2), naming both. `-` (standard output) and an output not yet there pass.
pub fn check_not_input<'a>(
    option: &str,
    output: Option<&Path>,
    inputs: impl IntoIterator<Item = &'a Path>,
) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    let Some(out) = output.filter(|p| p.as_os_str() != STDOUT) else {
        return Ok(());
    };
    let Ok(o) = std::fs::metadata(out) else {
        return Ok(());
    };
    for input in inputs {
        let same = std::fs::metadata(input).is_ok_and(|i| (i.dev(), i.ino()) == (o.dev(), o.ino()));
        if same {
            return Err(Error::Input(format!(
                "{option} {}: it is `{}`, an input of this command, which the output would \
                 replace; name another file (or `-` for standard output)",
                crate::error::shown_path(out),
                crate::error::shown_path(input)
            )));
        }
    }
    Ok(())
}

/// Why an output path was refused before writing. All are bad input (exit 2): the user named
/// something that is not a file to replace, or a place no file can go.
#[derive(Debug, Clone)]
pub(crate) enum WriteError {
    /// The target exists and is a device, FIFO, directory or socket (`kind` says which).
    NotRegular { shown: String, kind: &'static str },
    /// The path has no file name (`/`, `..`).
    NotAFileName { path: std::path::PathBuf },
    /// `target` would go under `ancestor`, which exists and is `kind`, not a directory.
    UnderNonDirectory {
        target: String,
        ancestor: String,
        kind: &'static str,
    },
    /// `target`'s directory `dir` does not exist, and nothing creates it.
    NoDirectory { target: String, dir: String },
    /// No file can be created in `dir` (`err`, the system's reason).
    Unwritable { dir: String, err: String },
}

// `?` turns it into the crate's error: input the user can fix (exit 2).
crate::wrap!(Input: WriteError);
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
            WriteError::UnderNonDirectory {
                target,
                ancestor,
                kind,
            } => write!(
                f,
                "`{target}`: `{ancestor}` is {kind}, not a directory, so nothing can go under \
                 it; name a path under a directory"
            ),
            WriteError::NoDirectory { target, dir } => write!(
                f,
                "`{target}`: the directory `{dir}` does not exist; create it first (`mkdir -p \
                 {dir}`) or name a file in an existing directory"
            ),
            WriteError::Unwritable { dir, err } => write!(
                f,
                "cannot write in directory `{dir}`: {err}; name a file in a directory you can \
                 write"
            ),
        }
    }
}

impl std::error::Error for WriteError {}

/// A few words for a file type, for error messages.
pub fn describe(t: &std::fs::FileType) -> &'static str {
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
    let dir = directory_of(path);
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

    /// Issue 46, N8: an output under a missing directory or under a file is refused before
    /// the work (exit 2), naming the path; a directory the caller creates may be missing, not
    /// under a file; nothing is created by the check.
    #[test]
    fn an_output_nowhere_to_go_is_refused_before_writing() {
        let dir = dir("writable");
        let file = dir.join("afile");
        std::fs::write(&file, b"x").unwrap();
        assert!(check_writable(&dir.join("out.json")).is_ok());
        assert!(check_writable(Path::new(STDOUT)).is_ok());
        for (path, says) in [
            (dir.join("nodir/out.json"), "nodir` does not exist"),
            (
                file.join("out.json"),
                "afile` is a regular file, not a directory",
            ),
            (
                file.join("a/b/out.json"),
                "afile` is a regular file, not a directory",
            ),
        ] {
            let e = check_writable(&path).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{e}");
            assert!(e.to_string().contains(says), "{e}");
        }
        let missing = dir.join("new/deeper");
        assert!(check_directory(&missing, &missing, true).is_ok());
        assert!(check_directory(&file.join("x"), &file, true).is_err());
        assert_eq!(names(&dir), vec![std::ffi::OsString::from("afile")]);
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
