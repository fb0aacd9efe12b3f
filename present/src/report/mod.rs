//! Every output of the tool: one trait, one emit, one file per report.
//!
//! A report type implements [`Report`]: the version of its JSON layout, the notes the user
//! should see, its table for a terminal and, when it has one, its CSV; its JSON is its
//! `Serialize`, pretty-printed by [`crate::io::output::pretty_json`]. `emit` is the only way
//! a command writes one: the notes go to standard error (`note: ...`), then the asked format
//! to standard output or, atomically, to the `--output` file (`crate::io::output::emit`).
//!
//! One file per report holds its `impl Report` and its writers, with the format helpers only
//! it uses: `predict` (its table and tidy CSV in `predict/`), `evaluate`, `advise`,
//! `overlap`, `network`, `check`, `fleet_check` (`check --fleet`), `fleet`
//! (`survey`), `sensitivity`, `show` (a trace's point lines again) and `calibrate`, whose JSON is the model file and whose table
//! goes to standard error (`emit_with_summary`). A report whose content the library
//! computes (a calibrated model, the errors of `evaluate`, a fleet, a sensitivity curve) is
//! typed beside that computation, which knows nothing of this module; the others are typed
//! here, and the command builds them.
//!
//! Adding a format is a variant of [`Format`] and a branch of `render` here, with a default
//! method of [`Report`] when the format can be derived from another (the command line's
//! `--format` enums convert into [`Format`] in `cli.rs`): no report file changes.

pub mod advise;
pub(crate) mod calibrate;
pub mod check;
pub mod evaluate;
pub(crate) mod fleet;
pub(crate) mod fleet_check;
pub mod network;
pub mod overlap;
pub(crate) mod predict;
#[cfg(test)]
mod schema_tests;
pub(crate) mod sensitivity;
pub mod show;

pub use predict::PredictReport;

use crate::error::{Error, Result};
use crate::header::{About, Header};
use serde::Serialize;
use std::fmt::Write;
use std::path::Path;

/// The format a report is written in (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Aligned text for a person at a terminal.
    Table,
    /// Pretty-printed JSON of the report's `Serialize`, newline-terminated.
    Json,
    /// CSV for tools, where the report has a CSV form ([`Report::csv`]).
    Csv,
}

/// What every report offers; JSON comes from `Serialize`.
pub trait Report: Serialize {
    /// Version of this report's JSON layout, written as its `schema_version` field: a script
    /// reading the JSON checks it before trusting the other keys.
    const SCHEMA_VERSION: u32;

    /// Remarks the user should see whatever the format (placements left out, inputs that
    /// look wrong); `emit` prints them on standard error before the report.
    fn notes(&self) -> &[String] {
        &[]
    }

    /// The report as aligned text for a terminal.
    fn table(&self) -> String;

    /// The report as CSV, for reports with a tabular form (`None`: table and JSON only).
    fn csv(&self) -> Option<String> {
        None
    }
}

/// The report in `format` (a table or CSV with its control characters escaped, as every text
/// for a terminal); CSV of a report without a CSV form is refused.
pub(crate) fn render<R: Report>(report: &R, format: Format) -> Result<String> {
    match format {
        // A table is for a terminal, and quotes file and machine names: escaped whole.
        Format::Table => Ok(crate::error::escape(&report.table())),
        Format::Json => Ok(crate::io::output::pretty_json(report)),
        // CSV goes to the terminal too (without `-o`), and quotes the same names.
        Format::Csv => report
            .csv()
            .map(|c| crate::error::escape(&c))
            .ok_or_else(|| {
                Error::Input(
                "--format csv: this report has no CSV form; use --format table or --format json"
                    .into(),
            )
            }),
    }
}

/// Prints the report's notes on standard error, renders it in `format` and writes it to
/// `output` (atomically) or, without one, to standard output.
pub fn emit<R: Report>(report: &R, format: Format, output: Option<&Path>) -> Result<()> {
    let text = render(report, format)?;
    print_notes(report.notes());
    crate::io::output::emit(output, &text)
}

/// How a report whose JSON is a data file goes out (`calibrate`'s model file): its notes and
/// its table on standard error, for the person at the terminal, then its JSON to `output`
/// (atomically) or standard output, for the commands that read it.
pub fn emit_with_summary<R: Report>(report: &R, output: Option<&Path>) -> Result<()> {
    let json = render(report, Format::Json)?;
    print_notes(report.notes());
    eprint!("{}", crate::error::escape(&report.table()));
    crate::io::output::emit(output, &json)
}

/// `text` (an error, any text read from a file) as a table's entry under `indent`: each
/// line after the first indented as well, so that none can pass for a line of the table's
/// own (`result: PASS`).
pub(crate) fn indented(text: &str, indent: &str) -> String {
    text.replace('\n', &format!("\n{indent}"))
}

/// Prints each note on standard error as `note: TEXT`, the one spelling every command uses.
pub fn print_notes(notes: &[String]) {
    for note in notes {
        eprintln!("note: {}", crate::error::escape(note));
    }
}

/// The first lines of the table of every report on one model (`predict`, `evaluate`,
/// `advise`): which build, which model file (and which model it holds, when not the
/// paper's), which machine.
pub(crate) fn header(out: &mut String, h: &Header, about: &About) {
    let (model, m) = (&about.model, &about.machine);
    // `write!` into a String cannot fail.
    let _ = writeln!(out, "# {}", h.tool.summary());
    let which = match about.variant {
        crate::model::Variant::Paper => String::new(),
        v => format!(" ({v} model: {})", v.about()),
    };
    let _ = writeln!(
        out,
        "# model {model}{which}: machine {}, {} NUMA node(s), {} per socket, {} cores per \
         socket",
        m.name, m.numa_nodes, m.numa_per_socket, m.cores_per_socket
    );
}

/// The report's JSON, parsed, after checking that its `schema_version` is the type's: for
/// this crate's tests and, through the `test-support` feature, those of the layers above.
#[cfg(any(test, feature = "test-support"))]
#[doc(hidden)]
pub fn json_of<R: Report>(r: &R) -> serde_json::Value {
    let j: serde_json::Value = serde_json::from_str(&render(r, Format::Json).unwrap()).unwrap();
    assert_eq!(
        j["schema_version"],
        serde_json::json!(R::SCHEMA_VERSION),
        "{j}"
    );
    j
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small report with every part of the trait.
    #[derive(Serialize)]
    struct Tiny {
        schema_version: u32,
        value: f64,
        #[serde(skip)]
        notes: Vec<String>,
        #[serde(skip)]
        with_csv: bool,
    }

    impl Report for Tiny {
        const SCHEMA_VERSION: u32 = 7;
        fn notes(&self) -> &[String] {
            &self.notes
        }
        fn table(&self) -> String {
            format!("value {:.1}\n", self.value)
        }
        fn csv(&self) -> Option<String> {
            self.with_csv.then(|| format!("value\n{}\n", self.value))
        }
    }

    fn tiny(with_csv: bool) -> Tiny {
        Tiny {
            schema_version: Tiny::SCHEMA_VERSION,
            value: 2.5,
            notes: vec!["a remark".into()],
            with_csv,
        }
    }

    #[test]
    fn each_format_renders_its_writer() {
        let r = tiny(true);
        assert_eq!(render(&r, Format::Table).unwrap(), "value 2.5\n");
        assert_eq!(render(&r, Format::Csv).unwrap(), "value\n2.5\n");
        assert_eq!(
            render(&r, Format::Json).unwrap(),
            "{\n  \"schema_version\": 7,\n  \"value\": 2.5\n}\n"
        );
    }

    #[test]
    fn csv_of_a_report_without_one_is_refused_as_bad_input() {
        let e = render(&tiny(false), Format::Csv).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("use --format table"), "{e}");
    }

    #[test]
    fn emit_writes_each_format_to_the_output_file() {
        let dir = tempfile::tempdir().unwrap();
        let r = tiny(true);
        for (format, name) in [
            (Format::Table, "r.txt"),
            (Format::Json, "r.json"),
            (Format::Csv, "r.csv"),
        ] {
            let path = dir.path().join(name);
            emit(&r, format, Some(&path)).unwrap();
            assert_eq!(
                std::fs::read_to_string(&path).unwrap(),
                render(&r, format).unwrap(),
                "{name}"
            );
        }
        // A refused format writes nothing.
        let path = dir.path().join("none.csv");
        assert!(emit(&tiny(false), Format::Csv, Some(&path)).is_err());
        assert!(!path.exists());
    }
}
