//! Reading a file the user named: a regular file of bounded size, or standard input as `-`.
//!
//! Without these bounds `/dev/zero` reads until memory runs out, `/dev/urandom` never ends and
//! a FIFO with no writer blocks forever; on a shared cluster file system a mistyped path can
//! name any of them.

use crate::error::{Error, IoAction, Result};
use std::io::Read;
use std::path::Path;

/// The largest input file the tool reads (64 MiB): a trace of a full sweep of 14 cores and
/// 3 runs is 5 MB (a simulated one of 32 cores, 26 MB; `measure` refuses a plan whose
/// trace could pass this, `measure::trace_size`), and the limit keeps parsing within a few
/// hundred MiB of memory.
pub const MAX_INPUT_BYTES: u64 = 64 << 20;

/// The input name that means standard input.
pub(crate) const STDIN: &str = "-";

/// The largest fleet report the tool reads back (`check --fleet`): 512 MiB. A report
/// holds every node's model, facts and measured medians, about 7 kB a node: 10,000 nodes
/// write 70 MB, past [`MAX_INPUT_BYTES`].
pub(crate) const MAX_FLEET_BYTES: u64 = 512 << 20;

/// Reads `path` as UTF-8 text; `what` is the kind of file named in errors ("model file").
pub fn text(path: &Path, what: &'static str) -> Result<String> {
    text_up_to(path, what, MAX_INPUT_BYTES)
}

/// [`text`] with another bound than [`MAX_INPUT_BYTES`]: `limit` bytes.
pub(crate) fn text_up_to(path: &Path, what: &'static str, limit: u64) -> Result<String> {
    let shown = || crate::error::shown_path(path);
    let action = IoAction::Read(what);
    let bytes = if path.as_os_str() == STDIN {
        bounded(std::io::stdin().lock(), what, "standard input", limit)?
    } else {
        // Opening a FIFO for reading would block until a writer comes: look first.
        let meta = std::fs::metadata(path).map_err(|e| Error::io(action, path, e))?;
        if !meta.is_file() {
            return Err(ReadError::NotRegular {
                what,
                shown: shown(),
                kind: super::atomic::describe(&meta.file_type()),
            }
            .into());
        }
        if meta.len() > limit {
            return Err(too_big(what, &shown(), limit));
        }
        let file = std::fs::File::open(path).map_err(|e| Error::io(action, path, e))?;
        bounded(file, what, &shown(), limit)?
    };
    String::from_utf8(bytes).map_err(|err| {
        ReadError::NotUtf8 {
            what,
            shown: shown(),
            err,
        }
        .into()
    })
}

/// Reads at most `limit` bytes (a file may grow after `metadata`).
fn bounded(r: impl Read, what: &'static str, shown: &str, limit: u64) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    r.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(IoAction::Read(what), shown, e))?;
    if bytes.len() as u64 > limit {
        return Err(too_big(what, shown, limit));
    }
    Ok(bytes)
}

fn too_big(what: &'static str, shown: &str, limit: u64) -> Error {
    ReadError::TooBig {
        what,
        shown: shown.into(),
        limit,
    }
    .into()
}

/// Why an input the user named was refused before parsing (`what`: the kind of file, `shown`:
/// its name as printed). All are bad input (exit 2).
#[derive(Debug)]
pub(crate) enum ReadError {
    /// A device, FIFO, directory or socket (`kind` says which).
    NotRegular {
        what: &'static str,
        shown: String,
        kind: &'static str,
    },
    /// Larger than `limit` bytes ([`MAX_INPUT_BYTES`] for most inputs).
    TooBig {
        what: &'static str,
        shown: String,
        limit: u64,
    },
    /// Not UTF-8 text.
    NotUtf8 {
        what: &'static str,
        shown: String,
        err: std::string::FromUtf8Error,
    },
}

// `?` turns it into the crate's error: input the user can fix (exit 2).
crate::wrap!(Input: ReadError);
impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::NotRegular { what, shown, kind } => write!(
                f,
                "{what} `{shown}` is {kind}, not a regular file; save it to a file first (or \
                 pass `-` to read standard input)"
            ),
            ReadError::TooBig { what, shown, limit } => write!(
                f,
                "{what} `{shown}` is larger than {} MiB, the most the tool reads; is it the \
                 right file?",
                limit >> 20
            ),
            ReadError::NotUtf8 { what, shown, err } => {
                write!(f, "{what} `{shown}` is not UTF-8 text: {err}")
            }
        }
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReadError::NotUtf8 { err, .. } => Some(err),
            ReadError::NotRegular { .. } | ReadError::TooBig { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_devices_fifos_and_directories() {
        for p in ["/dev/zero", "/dev/urandom", "/tmp"] {
            let e = text(Path::new(p), "model file").unwrap_err();
            assert!(e.to_string().contains("not a regular file"), "{e}");
            assert_eq!(e.exit_code(), 2);
        }
        let dir = std::env::temp_dir().join(format!("contention-read-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("pipe");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo has no other precondition.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = text(&fifo, "trace file").unwrap_err();
        assert!(e.to_string().contains("a FIFO"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn refuses_files_beyond_the_limit() {
        let path = std::env::temp_dir().join(format!("contention-big-{}", std::process::id()));
        let f = std::fs::File::create(&path).unwrap();
        f.set_len(MAX_INPUT_BYTES + 1).unwrap(); // sparse: no disk used
        let e = text(&path, "CSV file").unwrap_err();
        assert!(e.to_string().contains("64 MiB"), "{e}");
        std::fs::remove_file(&path).unwrap();
        let e = text(Path::new("/nonexistent/x"), "CSV file").unwrap_err();
        assert_eq!(e.exit_code(), 2);
    }

    #[test]
    fn binary_input_is_refused_with_the_decoding_error_as_source() {
        use std::error::Error as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.json");
        std::fs::write(&path, [b'{', 0xff, b'}']).unwrap();
        let e = text(&path, "trace file").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "trace file `{}` is not UTF-8 text: invalid utf-8 sequence of 1 bytes from index 1",
                path.display()
            )
        );
        assert_eq!(e.exit_code(), 2);
        let source = e.source().expect("the decoding error");
        assert!(source
            .downcast_ref::<std::string::FromUtf8Error>()
            .is_some());
    }
}
