//! Reading and writing trace JSON files ([`crate::trace::Trace`]).

use crate::error::{Error, Result};
use crate::trace::{Trace, TRACE_SCHEMA_VERSION};
use std::path::Path;

/// Writes the trace atomically: a run killed mid-write leaves the previous complete file.
pub fn write(path: &Path, trace: &Trace) -> Result<()> {
    // Serializing plain structs of numbers and strings cannot fail.
    let mut text = serde_json::to_string_pretty(trace).expect("trace serializes");
    text.push('\n');
    super::atomic::write(path, text.as_bytes())
}

/// Reads a trace, refusing other schema versions and malformed files with the file and the
/// field named.
pub fn read(path: &Path) -> Result<Trace> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io("read trace file", path, e))?;
    parse(&text, &path.display().to_string())
}

pub fn parse(text: &str, source: &str) -> Result<Trace> {
    let value: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| Error::Input(format!("{source}: not a JSON trace: {e}")))?;
    match value.get("schema_version").and_then(|v| v.as_u64()) {
        Some(v) if v == u64::from(TRACE_SCHEMA_VERSION) => {}
        Some(v) => {
            return Err(Error::Input(format!(
                "{source}: trace schema_version {v} is not supported; this build reads version \
                 {TRACE_SCHEMA_VERSION} (a newer contention wrote it? upgrade contention)"
            )))
        }
        None => {
            return Err(Error::Input(format!(
                "{source}: no schema_version: not a trace written by `contention measure`"
            )))
        }
    }
    serde_path_to_error::deserialize(value)
        .map_err(|e| Error::Input(format!("{source}: field `{}`: {}", e.path(), e.inner())))
}
