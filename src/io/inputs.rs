//! Reading the measurement files `calibrate` and `evaluate` take: `measure` traces (JSON) or
//! tidy CSV, told apart by extension (`.json`, `.csv`), else by content (a JSON trace starts
//! with `{`).

use crate::dataset::{Input, InputKind};
use crate::error::Result;
use crate::io::{tidy_csv, trace_file};
use std::path::Path;

/// Which kind of file `path` holds, from its extension or, failing that, its first
/// non-blank character.
pub fn kind(path: &Path, text: &str) -> InputKind {
    match path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .as_deref()
    {
        Some("json") => InputKind::Trace,
        Some("csv") => InputKind::Csv,
        _ if text.trim_start().starts_with('{') => InputKind::Trace,
        _ => InputKind::Csv,
    }
}

/// Reads one input file.
pub fn read(path: &Path) -> Result<Input> {
    let text = super::read::text(path, "measurement file")?;
    parse(path, &text)
}

/// Parses the text of `path` as the kind [`kind`] says.
pub fn parse(path: &Path, text: &str) -> Result<Input> {
    let source = path.display().to_string();
    match kind(path, text) {
        InputKind::Trace => Ok(Input::from_trace(
            &trace_file::parse(text, &source)?,
            &source,
        )?),
        InputKind::Csv => Ok(Input::from_rows(&tidy_csv::parse(text, &source)?, &source)),
    }
}

/// Reads every input, in order.
pub fn read_all(paths: &[impl AsRef<Path>]) -> Result<Vec<Input>> {
    paths.iter().map(|p| read(p.as_ref())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_by_extension_then_content() {
        assert_eq!(kind(Path::new("a.JSON"), ""), InputKind::Trace);
        assert_eq!(kind(Path::new("a.csv"), "{"), InputKind::Csv);
        assert_eq!(kind(Path::new("a.dat"), "  \n{\"x\":1}"), InputKind::Trace);
        assert_eq!(kind(Path::new("a"), "comp_numa,comm_numa"), InputKind::Csv);
    }

    #[test]
    fn errors_name_the_file() {
        let e = parse(Path::new("t.json"), "{\"schema_version\": 1}").unwrap_err();
        assert!(e.to_string().starts_with("t.json: field"), "{e}");
        let e = parse(Path::new("m.csv"), "a,b\n1,2\n").unwrap_err();
        assert!(e.to_string().starts_with("m.csv: column"), "{e}");
        let e = read(Path::new("/nonexistent/x.csv")).unwrap_err();
        assert!(e.to_string().contains("/nonexistent/x.csv"), "{e}");
        assert_eq!(e.exit_code(), 2);
    }
}
