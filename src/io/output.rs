//! Where a report goes: standard output, or a file written atomically; and the one form of
//! every JSON the tool writes (reports, model files).

use crate::error::{Error, IoAction, Result};
use serde::Serialize;
use std::io::Write;
use std::path::Path;

/// Writes `text` to `path` (atomically) or, without one, to standard output.
pub(crate) fn emit(path: Option<&Path>, text: &str) -> Result<()> {
    match path {
        Some(p) => super::atomic::write(p, text.as_bytes()),
        None => {
            let mut out = std::io::stdout().lock();
            match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                // A closed pipe (`| head`) is the reader's choice, not a failure.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                r => r.map_err(|e| Error::io(IoAction::Write(""), "standard output", e)),
            }
        }
    }
}

/// Pretty-printed JSON, newline-terminated: how every report's JSON and every model file is
/// written.
pub fn pretty_json<T: Serialize>(value: &T) -> String {
    // Serializing plain structs of numbers and strings cannot fail.
    let mut s = serde_json::to_string_pretty(value).expect("report serializes");
    s.push('\n');
    s
}
