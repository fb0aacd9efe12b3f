//! The one reader of measurement files, for every command that takes them (`calibrate`,
//! `evaluate`, `check`, `plot`).
//!
//! A measurement file is a trace JSON written by `contention measure` or a tidy CSV (docs/formats.md,
//! "Trace", "Tidy CSV"). Which one is decided by one rule: the extension first (`.json` is a trace,
//! `.csv` tidy CSV, in any case), and for any other name (`-` for standard input, `.dat`, none)
//! the content: a trace starts with `{` after blanks, anything else is read as CSV. A file is
//! read within the bounds of `super::read::text` and parsed as its kind says, or refused
//! with an error naming it; the reader prints nothing: what the user should know about a file
//! (an interrupted trace, unbound memory) is collected in `MeasurementFile::notes` for the
//! caller to print.

use crate::dataset::{Input, InputKind};
use crate::error::{Error, Result};
use crate::io::{tidy_csv, trace_file};
use crate::trace::{TidyRow, Trace};
use std::path::{Path, PathBuf};

/// One measurement file as read.
#[derive(Debug, Clone)]
pub struct MeasurementFile {
    /// The file as the user named it.
    pub path: PathBuf,
    /// The trace itself, for a trace JSON file (a tidy CSV has no samples).
    pub trace: Option<Trace>,
    /// The bandwidths, one row per placement and core count (a trace's medians).
    pub rows: Vec<TidyRow>,
    /// What the user should know about the file, for the caller to print.
    pub notes: Vec<String>,
    /// The simulated machine the measurements were drawn from (`paper:henri`), `None` for
    /// real ones: a trace's marks ([`trace_file::simulated`]) or a CSV's column
    /// (`tidy_csv::SIMULATED`).
    pub simulated: Option<String>,
}

impl MeasurementFile {
    /// The file as [`crate::dataset`] sweeps it for calibration and evaluation; a trace's
    /// points are checked there (a phase without a valid bandwidth is refused), and its
    /// notes add the points that look suspicious.
    pub(crate) fn to_input(&self) -> Result<Input> {
        let source = crate::error::shown_path(&self.path);
        match &self.trace {
            Some(trace) => Ok(Input::from_trace(trace, &source)?),
            None => Ok(Input {
                simulated: self.simulated.clone(),
                ..Input::from_rows(&self.rows, &source)
            }),
        }
    }
}

/// Which kind of file `path` holds, from its extension or, failing that, its first
/// non-blank character (the rule of this module's documentation).
pub(crate) fn kind(path: &Path, text: &str) -> InputKind {
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

/// Reads one measurement file.
pub fn load(path: &Path) -> Result<MeasurementFile> {
    let text = super::read::text(path, "measurement file")?;
    parse_file(path, &text)
}

/// Parses the text of `path` as the kind [`kind`] says.
pub(crate) fn parse_file(path: &Path, text: &str) -> Result<MeasurementFile> {
    let source = crate::error::shown_path(path);
    let kind = kind(path, text);
    let (rows, notes, simulated, trace) = match kind {
        InputKind::Trace => {
            let trace = trace_file::parse(text, &source)
                .map_err(|e| explain(e.into(), path, kind, text))?;
            let simulated = trace_file::simulated(&trace, &source)?.map(|s| s.machine.clone());
            (
                trace.tidy_rows(),
                trace.notes(&source),
                simulated,
                Some(trace),
            )
        }
        InputKind::Csv => {
            let csv =
                tidy_csv::parse(text, &source).map_err(|e| explain(e.into(), path, kind, text))?;
            (csv.rows, Vec::new(), csv.simulated, None)
        }
    };
    Ok(MeasurementFile {
        path: path.to_path_buf(),
        trace,
        rows,
        notes,
        simulated,
    })
}

/// What went wrong when a file is not of the kind its name says, or is no measurement at all:
/// a model file where measurements go, a trace named `.csv`, a CSV named `.json`.
fn explain(e: Error, path: &Path, kind: InputKind, text: &str) -> Error {
    // Only a file that did not parse gets a hint; the typed error stays as it is otherwise.
    if e.exit_code() != crate::error::EXIT_INPUT {
        return e;
    }
    let msg = e.to_string();
    let json = serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .filter(serde_json::Value::is_object);
    let model = json
        .as_ref()
        .is_some_and(|v| v.get("local").is_some() && v.get("points").is_none());
    let source = path.display();
    Error::Input(match kind {
        InputKind::Trace if model => format!(
            "{source}: a model file (written by `contention calibrate`), not measurements: \
             commands take it with --model; measurements are the traces `contention measure` \
             writes (JSON) or tidy CSV"
        ),
        // A trace on one line names `comp_numa` too: only a CSV's header starts otherwise.
        InputKind::Trace
            if !text.trim_start().starts_with('{')
                && text.lines().next().is_some_and(|l| l.contains("comp_numa")) =>
        {
            format!("{msg}; if it is a tidy CSV, name it .csv")
        }
        InputKind::Csv if json.is_some() => {
            format!("{msg}; it holds JSON: if it is a trace, name it .json")
        }
        _ => return e,
    })
}

/// Reads one measurement file as [`crate::dataset`] sweeps it.
pub(crate) fn read(path: &Path) -> Result<Input> {
    load(path)?.to_input()
}

/// Reads every measurement file, in order, as [`crate::dataset`] sweeps it.
pub fn read_all(paths: &[impl AsRef<Path>]) -> Result<Vec<Input>> {
    paths.iter().map(|p| read(p.as_ref())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses the text of `path` as [`crate::dataset`] sweeps it.
    fn parse(path: &Path, text: &str) -> Result<Input> {
        parse_file(path, text)?.to_input()
    }

    #[test]
    fn kind_by_extension_then_content() {
        assert_eq!(kind(Path::new("a.JSON"), ""), InputKind::Trace);
        assert_eq!(kind(Path::new("a.csv"), "{"), InputKind::Csv);
        assert_eq!(kind(Path::new("a.dat"), "  \n{\"x\":1}"), InputKind::Trace);
        assert_eq!(kind(Path::new("a"), "comp_numa,comm_numa"), InputKind::Csv);
    }

    /// A file of the project's test data, as text.
    fn data(name: &str) -> String {
        std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../tests/data")
                .join(name),
        )
        .unwrap()
    }

    fn error(name: &str, text: &str) -> String {
        let e = parse_file(Path::new(name), text).unwrap_err();
        assert_eq!(e.exit_code(), 2, "{e}");
        e.to_string()
    }

    const CSV_COLUMNS: &str = "column `comp_numa` is missing; a tidy CSV has the columns \
        comp_numa,comm_numa,cores,comp_alone,comm_alone,comp_parallel,comm_parallel";

    #[test]
    fn a_trace_json_gives_its_trace_rows_and_notes() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/traces/vm-local.json");
        let f = load(&path).unwrap();
        assert!(f.trace.is_some(), "read as a trace");
        let trace = f.trace.as_ref().unwrap();
        assert_eq!(f.rows, trace.tidy_rows());
        assert_eq!(f.rows.len(), 2);
        assert!(f.notes.is_empty(), "{:?}", f.notes);
        assert_eq!(f.to_input().unwrap().observations.len(), 2);
        // An interrupted, unbound trace says so in the notes, which the reader only collects.
        let mut t = trace.clone();
        t.complete = false;
        t.config.bind = false;
        let f = parse_file(Path::new("t.json"), &crate::io::output::pretty_json(&t)).unwrap();
        assert_eq!(
            f.notes,
            [
                "t.json is incomplete (2 of 2 core counts measured); `contention measure \
                 --resume` completes it",
                "t.json was measured without binding (--no-bind): placement 0,0 was asked for, \
                 not enforced, so the model may not describe it"
            ]
        );
        assert_eq!(f.to_input().unwrap().notes, f.notes);
    }

    #[test]
    fn a_tidy_csv_gives_its_rows_and_no_trace() {
        let text = data("henri-sweep.csv");
        let f = parse_file(Path::new("h.csv"), &text).unwrap();
        assert!(f.trace.is_none(), "read as CSV");
        assert!(f.trace.is_none());
        assert_eq!(f.rows, tidy_csv::parse(&text, "h.csv").unwrap().rows);
        assert!(!f.rows.is_empty());
        assert_eq!(f.to_input().unwrap().kind, InputKind::Csv);
    }

    #[test]
    fn a_wrong_extension_with_the_right_content_is_read_by_content() {
        for name in ["t.dat", "t", "-"] {
            let f = parse_file(Path::new(name), &data("traces/vm-local.json")).unwrap();
            assert_eq!((f.trace.is_some(), f.rows.len()), (true, 2), "{name}");
            let f = parse_file(Path::new(name), &data("henri-sweep.csv")).unwrap();
            assert!(f.trace.is_none(), "{name}");
        }
    }

    #[test]
    fn the_extension_wins_over_the_content_and_the_error_says_how_to_name_it() {
        assert_eq!(
            error("t.csv", &data("traces/vm-local.json")),
            format!("t.csv: {CSV_COLUMNS}; it holds JSON: if it is a trace, name it .json")
        );
        assert_eq!(
            error("h.json", &data("henri-sweep.csv")),
            "h.json: not a JSON trace: expected value at line 1 column 1; if it is a tidy CSV, \
             name it .csv"
        );
    }

    #[test]
    fn a_model_file_is_named_for_what_it_is() {
        let expected = "a model file (written by `contention calibrate`), not measurements: \
            commands take it with --model; measurements are the traces `contention measure` \
            writes (JSON) or tidy CSV";
        let model = data("expected/vm-local.model.json");
        assert_eq!(error("m.json", &model), format!("m.json: {expected}"));
        assert_eq!(error("m", &model), format!("m: {expected}"));
    }

    #[test]
    fn garbage_is_refused_with_what_was_expected() {
        assert_eq!(
            error("g.json", "garbage\n"),
            "g.json: not a JSON trace: expected value at line 1 column 1"
        );
        assert_eq!(error("g.dat", "garbage\n"), format!("g.dat: {CSV_COLUMNS}"));
        assert_eq!(error("g", ""), format!("g: {CSV_COLUMNS}"));
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
