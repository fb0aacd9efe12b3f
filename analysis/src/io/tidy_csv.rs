//! The tidy CSV (docs/formats.md, "Tidy CSV"): `comp_numa,comm_numa,cores,comp_alone,comm_alone,comp_parallel,
//! comm_parallel`, one row per placement and core count, MB/s. `measure` and `predict` write
//! it; `calibrate` and `evaluate` read it, so measurements from other tools can be used.
//!
//! The CSV of a simulated run (`measure --simulate`) has one more column, `simulated`, naming
//! the machine on every row: a CSV travels without its trace, and its rows must never pass
//! for a real machine's. A file without the column (older files, other tools) is real.

use crate::error::Result;
use crate::model::constraints::{MAX_CORES_PER_SOCKET, MAX_NUMA_NODES, MIN_BANDWIDTH};
use crate::trace::{csv_bandwidth, TidyRow};
use std::path::Path;

/// The header, in this order.
pub const HEADER: [&str; 7] = [
    "comp_numa",
    "comm_numa",
    "cores",
    "comp_alone",
    "comm_alone",
    "comp_parallel",
    "comm_parallel",
];

/// The column that marks the rows of a simulated run with the machine they were drawn from.
pub(crate) const SIMULATED: &str = "simulated";

/// A tidy CSV as read: its rows, and the simulated machine they were drawn from (`None`: a
/// real measurement, or a file that does not say, as every CSV before the mark).
#[derive(Debug, Clone, PartialEq)]
pub struct TidyCsv {
    pub rows: Vec<TidyRow>,
    pub simulated: Option<String>,
}

/// The rows as CSV text, header first, bandwidths with one decimal (`csv_bandwidth`: 0.1
/// MB/s is far below any measurement's noise).
pub fn to_string(rows: &[TidyRow]) -> String {
    marked(rows, None)
}

/// [`to_string`], with the `SIMULATED` column naming `simulated` on every row when the rows
/// were drawn from a simulated machine.
pub fn marked(rows: &[TidyRow], simulated: Option<&str>) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    // Writing into a Vec cannot fail.
    let mark: Vec<&str> = simulated.iter().map(|_| SIMULATED).collect();
    w.write_record(HEADER.iter().chain(&mark))
        .expect("in-memory CSV");
    for r in rows {
        w.write_record(
            [
                r.comp_numa.to_string(),
                r.comm_numa.to_string(),
                r.cores.to_string(),
                csv_bandwidth(r.comp_alone),
                csv_bandwidth(r.comm_alone),
                csv_bandwidth(r.comp_parallel),
                csv_bandwidth(r.comm_parallel),
            ]
            .into_iter()
            .chain(simulated.map(str::to_string)),
        )
        .expect("in-memory CSV");
    }
    String::from_utf8(w.into_inner().expect("in-memory CSV")).expect("a spec is UTF-8")
}

/// Reads a tidy CSV file. Columns may come in any order and extra columns are ignored; a
/// missing column, a bad number, a core count of 0 or a bandwidth that is not a finite number
/// > 0 is refused naming the file, the line and the column.
pub fn read(path: &Path) -> Result<TidyCsv> {
    let text = super::read::text(path, "CSV file")?;
    Ok(parse(&text, &path.display().to_string())?)
}

/// A tidy CSV file refused: the file (`source`) and what is wrong in it. Bad input (exit 2).
#[derive(Debug)]
pub struct TidyCsvError {
    pub(crate) source: String,
    pub(crate) problem: CsvProblem,
}

/// What is wrong in a tidy CSV file, by line (1 is the header) and column.
#[derive(Debug)]
pub(crate) enum CsvProblem {
    /// The header cannot be read.
    Header(csv::Error),
    /// A column of [`HEADER`] is missing.
    MissingColumn(&'static str),
    /// A column of [`HEADER`] (or [`SIMULATED`]) named twice: which one holds the data?
    RepeatedColumn(&'static str),
    /// A record cannot be read (unequal fields, bad quoting).
    Record { line: usize, err: csv::Error },
    /// A NUMA node or core count that is not a whole number.
    NotWhole {
        line: usize,
        column: &'static str,
        text: String,
    },
    /// A bandwidth that is not a finite number of at least [`MIN_BANDWIDTH`].
    NotBandwidth {
        line: usize,
        column: &'static str,
        text: String,
    },
    /// A core count no socket has.
    CoreCount { line: usize, cores: u32 },
    /// A NUMA node no machine has.
    NumaNode { line: usize, node: u32 },
    /// Bandwidths refused by [`crate::dataset::implausible`].
    Implausible { line: usize, why: String },
    /// A header and nothing else.
    NoRows,
    /// A [`SIMULATED`] cell that names no simulated machine.
    NotSimulated { line: usize, why: String },
    /// A row whose [`SIMULATED`] cell differs from the first row's (`None`: empty, real).
    MixedOrigin {
        line: usize,
        first: Option<String>,
        this: Option<String>,
    },
}

// `?` turns it into the crate's error: input the user can fix (exit 2).
crate::wrap!(Input: TidyCsvError);
impl std::fmt::Display for TidyCsvError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let source = &self.source;
        match &self.problem {
            CsvProblem::Header(e) => write!(f, "{source}: cannot read the header: {e}"),
            CsvProblem::MissingColumn(name) => write!(
                f,
                "{source}: column `{name}` is missing; a tidy CSV has the columns {}",
                HEADER.join(",")
            ),
            CsvProblem::RepeatedColumn(name) => write!(
                f,
                "{source}: column `{name}` is named twice in the header; keep one (rename \
                 the other if it is a column of your own)"
            ),
            CsvProblem::Record { line, err } => write!(f, "{source}: line {line}: {err}"),
            CsvProblem::NotWhole { line, column, text } => write!(
                f,
                "{source}: line {line}, column {column}: `{}` is not a whole number",
                crate::error::clip(text)
            ),
            CsvProblem::NotBandwidth { line, column, text } => write!(
                f,
                "{source}: line {line}, column {column}: `{}` is not a bandwidth (a finite \
                 number of at least {MIN_BANDWIDTH} MB/s)",
                crate::error::clip(text)
            ),
            CsvProblem::CoreCount { line, cores } => write!(
                f,
                "{source}: line {line}, column cores: {cores} is not a core count of one socket \
                 (1 to {MAX_CORES_PER_SOCKET})"
            ),
            CsvProblem::NumaNode { line, node } => write!(
                f,
                "{source}: line {line}: NUMA node {node} is beyond any machine (at most \
                 {MAX_NUMA_NODES} nodes)"
            ),
            CsvProblem::Implausible { line, why } => write!(f, "{source}: line {line}: {why}"),
            CsvProblem::NoRows => write!(f, "{source}: no data rows after the header"),
            CsvProblem::NotSimulated { line, why } => write!(
                f,
                "{source}: line {line}, column {SIMULATED}: {why}; the column names the \
                 simulated machine of `measure --simulate` rows (empty for real ones): rename \
                 a column of your own"
            ),
            CsvProblem::MixedOrigin { line, first, this } => {
                let what = |m: &Option<String>| match m {
                    Some(spec) => format!("simulated {}", crate::error::escape(spec)),
                    None => "real (empty)".to_string(),
                };
                write!(
                    f,
                    "{source}: line {line}, column {SIMULATED}: the row is {} and the first \
                     row {}: one file holds the rows of one machine, simulated or real; split \
                     the file by machine",
                    what(this),
                    what(first)
                )
            }
        }
    }
}

impl std::error::Error for TidyCsvError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.problem {
            CsvProblem::Header(e) | CsvProblem::Record { err: e, .. } => Some(e),
            _ => None,
        }
    }
}

/// Parses tidy CSV text; `source` names it in errors.
pub fn parse(text: &str, source: &str) -> Result<TidyCsv, TidyCsvError> {
    let bad = |problem: CsvProblem| TidyCsvError {
        source: source.to_string(),
        problem,
    };
    let mut r = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let headers = r.headers().map_err(|e| bad(CsvProblem::Header(e)))?.clone();
    for name in HEADER.iter().chain(&[SIMULATED]) {
        if headers.iter().filter(|h| h == name).count() > 1 {
            return Err(bad(CsvProblem::RepeatedColumn(name)));
        }
    }
    let mut col = [0usize; 7];
    for (i, name) in HEADER.iter().enumerate() {
        col[i] = headers
            .iter()
            .position(|h| h == *name)
            .ok_or_else(|| bad(CsvProblem::MissingColumn(name)))?;
    }
    let mark = headers.iter().position(|h| h == SIMULATED);
    let mut rows = Vec::new();
    let mut origin: Option<Option<String>> = None;
    for (n, record) in r.records().enumerate() {
        let line = n + 2;
        let record = record.map_err(|e| bad(CsvProblem::Record { line, err: e }))?;
        let row = row(&record, &col, line).map_err(bad)?;
        let this = simulated(mark.and_then(|i| record.get(i)))
            .map_err(|why| bad(CsvProblem::NotSimulated { line, why }))?;
        match &origin {
            None => origin = Some(this),
            Some(first) if *first != this => {
                return Err(bad(CsvProblem::MixedOrigin {
                    line,
                    first: first.clone(),
                    this,
                }))
            }
            Some(_) => {}
        }
        rows.push(row);
    }
    if rows.is_empty() {
        return Err(bad(CsvProblem::NoRows));
    }
    Ok(TidyCsv {
        rows,
        simulated: origin.flatten(),
    })
}

/// One data row at 1-based `line`: its seven columns (at the positions `col` of
/// [`HEADER`]), with its core count, NUMA nodes and bandwidths checked.
fn row(record: &csv::StringRecord, col: &[usize; 7], line: usize) -> Result<TidyRow, CsvProblem> {
    let field = |i: usize| record.get(col[i]).unwrap_or("");
    let int = |i: usize| -> Result<u32, CsvProblem> {
        field(i).parse().map_err(|_| CsvProblem::NotWhole {
            line,
            column: HEADER[i],
            text: field(i).to_string(),
        })
    };
    let bw = |i: usize| -> Result<f64, CsvProblem> {
        match field(i).parse::<f64>() {
            // The model's own range's floor (1 kB/s): `5e-324` was read as a bandwidth. Past
            // the top, `implausible` names the bound.
            Ok(v) if v.is_finite() && v >= MIN_BANDWIDTH => Ok(v),
            _ => Err(CsvProblem::NotBandwidth {
                line,
                column: HEADER[i],
                text: field(i).to_string(),
            }),
        }
    };
    let row = TidyRow {
        comp_numa: int(0)?,
        comm_numa: int(1)?,
        cores: int(2)?,
        comp_alone: bw(3)?,
        comm_alone: bw(4)?,
        comp_parallel: bw(5)?,
        comm_parallel: bw(6)?,
    };
    if row.cores == 0 || row.cores > MAX_CORES_PER_SOCKET {
        return Err(CsvProblem::CoreCount {
            line,
            cores: row.cores,
        });
    }
    if row.comp_numa.max(row.comm_numa) >= MAX_NUMA_NODES {
        return Err(CsvProblem::NumaNode {
            line,
            node: row.comp_numa.max(row.comm_numa),
        });
    }
    let bw = [
        row.comp_alone,
        row.comm_alone,
        row.comp_parallel,
        row.comm_parallel,
    ];
    if let Some(why) = crate::dataset::implausible(&bw) {
        return Err(CsvProblem::Implausible { line, why });
    }
    Ok(row)
}

/// The simulated machine a [`SIMULATED`] cell names (`None` when it is empty or absent), in
/// the canonical spelling of `measure --simulate`; why not, when it names none.
fn simulated(cell: Option<&str>) -> Result<Option<String>, String> {
    match cell.filter(|c| !c.is_empty()) {
        None => Ok(None),
        Some(spec) => crate::simulate::truth::Truth::parse(spec)
            .map(|t| Some(t.spec()))
            .map_err(|e| e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cores: u32) -> TidyRow {
        TidyRow {
            comp_numa: 0,
            comm_numa: 1,
            cores,
            comp_alone: 4455.4,
            comm_alone: 11481.1,
            comp_parallel: 4400.0,
            comm_parallel: 11000.0,
        }
    }

    #[test]
    fn round_trips() {
        let rows = vec![row(1), row(2)];
        assert_eq!(parse(&to_string(&rows), "x.csv").unwrap().rows, rows);
    }

    #[test]
    fn a_simulated_run_marks_every_row_and_the_mark_is_read_back() {
        let rows = vec![row(1), row(2)];
        let text = marked(&rows, Some("paper:henri"));
        assert!(
            text.starts_with(&format!("{},simulated\n", HEADER.join(","))),
            "{text}"
        );
        let read = parse(&text, "x.csv").unwrap();
        assert_eq!(
            (read.rows, read.simulated.as_deref()),
            (rows.clone(), Some("paper:henri"))
        );
        // A file without the column (every CSV before it, other tools') is real.
        assert_eq!(parse(&to_string(&rows), "x.csv").unwrap().simulated, None);
    }

    #[test]
    fn a_mark_that_names_no_machine_or_differs_between_rows_is_refused() {
        let err = |t: &str| parse(t, "x.csv").unwrap_err().to_string();
        let head = format!("{},simulated", HEADER.join(","));
        let e = err(&format!("{head}\n0,0,1,1,1,1,1,true\n"));
        assert!(
            e.starts_with("x.csv: line 2, column simulated: simulated machine `true`")
                && e.contains("rename a column of your own"),
            "{e}"
        );
        let e = err(&format!(
            "{head}\n0,0,1,1,1,1,1,paper:henri\n0,0,2,1,1,1,1,\n"
        ));
        assert!(
            e.starts_with(
                "x.csv: line 3, column simulated: the row is real (empty) and the first row \
                 simulated paper:henri"
            ),
            "{e}"
        );
        let e = err(&format!(
            "{head}\n0,0,1,1,1,1,1,paper:henri\n0,0,2,1,1,1,1,realistic:henri\n"
        ));
        assert!(e.contains("the row is simulated realistic:henri"), "{e}");
    }

    #[test]
    fn columns_in_any_order_and_extra_columns() {
        let text =
            "cores,note,comm_numa,comp_numa,comp_alone,comm_alone,comp_parallel,comm_parallel\n\
                    2, a ,1,0,4455.4,11481.1,4400,11000\n";
        assert_eq!(parse(text, "x.csv").unwrap().rows, vec![row(2)]);
    }

    #[test]
    fn refusals_name_file_line_and_column() {
        let err = |t: &str| parse(t, "x.csv").unwrap_err().to_string();
        let e = err("comp_numa,comm_numa,cores,comp_alone\n0,0,1,5\n");
        assert!(
            e.starts_with("x.csv: column `comm_alone` is missing"),
            "{e}"
        );
        let head = HEADER.join(",");
        let e = err(&format!("{head}\n0,0,1,1,1,1,1\n0,0,2,1,NaN,1,1\n"));
        assert!(e.contains("line 3, column comm_alone: `NaN`"), "{e}");
        let e = err(&format!("{head}\n0,0,1,1,1,-1,1\n"));
        assert!(e.contains("column comp_parallel"), "{e}");
        let e = err(&format!("{head}\n0,x,1,1,1,1,1\n"));
        assert!(e.contains("column comm_numa: `x`"), "{e}");
        let e = err(&format!("{head}\n0,0,0,1,1,1,1\n"));
        assert!(e.contains("1 to 4096"), "{e}");
        let e = err(&format!("{head}\n0,0,5000,1,1,1,1\n"));
        assert!(e.contains("5000"), "{e}");
        assert!(err(&format!("{head}\n")).contains("no data rows"));
        assert!(err(&format!("{head}\n0,0,1,1,1\n")).contains("line 2"));
        assert_eq!(
            err(&format!("{head}\n0,0,0,1,1,1,1\n")),
            "x.csv: line 2, column cores: 0 is not a core count of one socket (1 to 4096)"
        );
        // Issue 46: the smallest double was read as a bandwidth, a second `cores` column
        // was ignored, and `1e308` was named with 309 digits.
        let e = err(&format!("{head}\n0,0,1,1,5e-324,1,1\n"));
        assert!(e.contains("column comm_alone: `5e-324`"), "{e}");
        assert!(e.contains("at least 0.001 MB/s"), "{e}");
        let e = err(&format!("{head},cores\n0,0,1,1,1,1,1,2\n"));
        assert!(e.contains("column `cores` is named twice"), "{e}");
        let e = err(&format!("{head}\n0,0,1,1e308,1,1,1\n"));
        assert!(e.contains("1e308 MB/s is beyond"), "{e}");
        assert!(e.len() < 300, "{e}");
        let e = err(&format!("{head}\n0,0,1,1,1,1,{}\n", "9".repeat(500)));
        assert!(e.len() < 300, "{e}");
    }

    #[test]
    fn unreadable_records_chain_to_the_csv_error_and_exit_2() {
        use std::error::Error as _;
        let e = parse(&format!("{}\n0,0,1,1,1\n", HEADER.join(",")), "x.csv").unwrap_err();
        assert!(
            matches!(e.problem, CsvProblem::Record { line: 2, .. }),
            "{e}"
        );
        assert!(e.source().is_some());
        assert_eq!(crate::Error::from(e).exit_code(), 2);
    }
}
