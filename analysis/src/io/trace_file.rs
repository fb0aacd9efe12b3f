//! Reading and writing trace JSON files ([`crate::trace::Trace`]).

use crate::error::Result;
use crate::trace::{MarksDisagree, Simulation, Trace, TRACE_SCHEMA_VERSION};
use std::path::Path;

/// Writes the trace atomically: a run killed mid-write leaves the previous complete file.
/// A trace past what every reader takes ([`super::read::MAX_INPUT_BYTES`]) is not written:
/// the file keeps its last readable state (issue 46, N9: the points saved past 64 MiB could
/// be neither shown, calibrated nor resumed). A plan is refused before that where its size
/// is known (`measure::trace_size`); a real node's messages may come faster than expected.
pub fn write(path: &Path, trace: &Trace) -> Result<()> {
    // Serializing plain structs of numbers and strings cannot fail.
    let mut text = serde_json::to_string_pretty(trace).expect("trace serializes");
    text.push('\n');
    let limit = super::read::MAX_INPUT_BYTES;
    if text.len() as u64 > limit {
        return Err(crate::Error::Input(format!(
            "{}: not saved: with this point the trace would hold {}, past the {} every \
             reader (show, calibrate, measure --resume) takes; the file keeps the points \
             before it: measure the rest into another trace (-o), with fewer --runs or \
             --cores, or a larger --message-size (each message is a sample)",
            crate::error::shown_path(path),
            crate::units::human_bytes(text.len() as u64),
            crate::units::human_bytes(limit)
        )));
    }
    super::atomic::write(path, text.as_bytes())
}

/// Reads a trace, refusing other schema versions and malformed files with the file and the
/// field named, and a trace no measurement leaves ([`parse`]).
pub fn read(path: &Path) -> Result<Trace> {
    let text = super::read::text(path, "trace file")?;
    Ok(parse(&text, &path.display().to_string())?)
}

/// [`read`] for `measure --resume`, which keeps the points a reader would refuse: it drops
/// each, naming it, and measures its core count again (`crate::measure::session`), where
/// every other reader refuses the file. The rest of the record is checked as [`read`] does.
pub fn read_to_resume(path: &Path) -> Result<Trace> {
    let text = super::read::text(path, "trace file")?;
    Ok(parse_record(&text, &path.display().to_string())?)
}

/// Why a trace file was refused; every message starts with the file (`source`).
#[derive(Debug)]
pub enum TraceFileError {
    /// Not JSON, or not a JSON object.
    NotJson {
        source: String,
        err: serde_json::Error,
    },
    /// Written by a newer build with a layout this one cannot read.
    Newer { source: String, version: u64 },
    /// A version before the first released layout.
    Older { source: String, version: u64 },
    /// No `schema_version`: some other JSON file.
    NoVersion { source: String },
    /// A field that breaks the layout (`field` is its path, `trials[0].phases`).
    Field {
        source: String,
        field: String,
        err: serde_json::Error,
    },
    /// Malformed where no field can be named.
    Malformed {
        source: String,
        err: serde_json::Error,
    },
    /// Its two marks of origin disagree (`Trace::simulated`): refused here, so that no
    /// reader ever holds a trace of unknown origin.
    Marks {
        source: String,
        marks: MarksDisagree,
    },
    /// No record a measurement could have left ([`Trace::record_problem`]): more runs than
    /// `config.runs`, a core count twice in one run, a run copied, `complete` with runs or
    /// points missing, `config.cores` or `config.runs` that no `measure` writes, a host
    /// name with control characters. Refused here, so that no reader counts a point twice
    /// or drops one, and `measure --resume` measures only what a command line could ask.
    Record { source: String, why: String },
    /// A point no measurement leaves ([`crate::dataset::impossible_points`]: an impossible
    /// phase, a core count beyond the machine, a stream much faster in parallel), in
    /// `points` or in a run's. Refused here, so that `show` and `plot` draw what
    /// `calibrate` fits, and the combined `points` of a trace of runs are checked too
    /// (`combined`: one of those, which `measure --resume` makes again from the runs).
    Point { why: String, combined: bool },
}

// `?` turns it into the crate's error: input the user can fix (exit 2).
crate::wrap!(Input: TraceFileError);
impl std::fmt::Display for TraceFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TraceFileError::NotJson { source, err } => {
                write!(f, "{source}: not a JSON trace: {err}")
            }
            TraceFileError::Newer { source, version } => write!(
                f,
                "{source}: trace schema_version {version} is not supported; this build reads \
                 version {TRACE_SCHEMA_VERSION}: a newer contention wrote it, upgrade contention"
            ),
            TraceFileError::Older { source, version } => write!(
                f,
                "{source}: trace schema_version {version} predates the first released layout \
                 ({TRACE_SCHEMA_VERSION}) and cannot be read; measure again"
            ),
            TraceFileError::NoVersion { source } => write!(
                f,
                "{source}: no schema_version: not a trace written by `contention measure`"
            ),
            TraceFileError::Field { source, field, err } => {
                write!(f, "{source}: field `{field}`: {err}")
            }
            TraceFileError::Malformed { source, err } => write!(f, "{source}: {err}"),
            TraceFileError::Record { source, why } => write!(
                f,
                "{source}: {why}; no measurement writes that, so the trace was edited or is \
                 corrupt: restore it as it was measured, or measure again into a new trace \
                 (`contention measure -o NEW.json`)"
            ),
            TraceFileError::Marks { source, marks } => write!(f, "{source}: {marks}"),
            TraceFileError::Point {
                why,
                combined: false,
            } => write!(
                f,
                "{why}; no measurement writes that, so the trace was edited or is corrupt: \
                 restore the point, or measure its core count again with `contention measure \
                 --resume`, which drops it"
            ),
            TraceFileError::Point {
                why,
                combined: true,
            } => write!(
                f,
                "{why}; the top-level points of a trace of runs combine its runs, and no \
                 combination gives that, so the trace was edited or is corrupt: `contention \
                 measure --resume` makes them again from the runs"
            ),
        }
    }
}

impl std::error::Error for TraceFileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TraceFileError::NotJson { err, .. }
            | TraceFileError::Field { err, .. }
            | TraceFileError::Malformed { err, .. } => Some(err),
            TraceFileError::Marks { marks, .. } => Some(marks),
            TraceFileError::Newer { .. }
            | TraceFileError::Older { .. }
            | TraceFileError::NoVersion { .. }
            | TraceFileError::Record { .. }
            | TraceFileError::Point { .. } => None,
        }
    }
}

/// Parses a trace's text (`source` names it in errors), refusing other schema versions, a
/// field that breaks the layout, marks of origin that disagree ([`simulated`]), a record no
/// measurement leaves ([`Trace::record_problem`]) and a point no measurement leaves
/// ([`crate::dataset::impossible_points`]): the one check every reader of a trace makes
/// (calibrate, evaluate, check, show, plot, a fleet's), so one rule holds everywhere.
pub fn parse(text: &str, source: &str) -> Result<Trace, TraceFileError> {
    let trace = parse_record(text, source)?;
    if let Some(p) = crate::dataset::impossible_points(&trace, source)
        .into_iter()
        .next()
    {
        return Err(TraceFileError::Point {
            why: crate::error::escape(&p.why),
            combined: p.combined,
        });
    }
    Ok(trace)
}

/// [`parse`] but for the points' values: what `measure --resume` reads
/// ([`read_to_resume`]).
fn parse_record(text: &str, source: &str) -> Result<Trace, TraceFileError> {
    /// The version alone, read first so that a newer layout is refused with that reason
    /// rather than with whatever field it changed. Serde skips the rest without building it.
    #[derive(serde::Deserialize)]
    struct Version {
        schema_version: Option<u64>,
    }
    let source = || source.to_string();
    let version: Version = serde_json::from_str(text).map_err(|err| TraceFileError::NotJson {
        source: source(),
        err,
    })?;
    match version.schema_version {
        Some(v) if v == u64::from(TRACE_SCHEMA_VERSION) => {}
        Some(version) if version > u64::from(TRACE_SCHEMA_VERSION) => {
            return Err(TraceFileError::Newer {
                source: source(),
                version,
            })
        }
        // No layout before version 1 was ever released, so there is nothing to migrate.
        Some(version) => {
            return Err(TraceFileError::Older {
                source: source(),
                version,
            })
        }
        None => return Err(TraceFileError::NoVersion { source: source() }),
    }
    // Straight from the text: a trace holds hundreds of thousands of samples, and going
    // through a `serde_json::Value` (or tracking the path of every value) costs several
    // times the parse. Only a file that fails is parsed again to name the bad field.
    let trace: Trace = serde_json::from_str(text).map_err(|plain| {
        let de = &mut serde_json::Deserializer::from_str(text);
        match serde_path_to_error::deserialize::<_, Trace>(de) {
            Err(e) => TraceFileError::Field {
                source: source(),
                field: e.path().to_string(),
                err: e.into_inner(),
            },
            Ok(_) => TraceFileError::Malformed {
                source: source(),
                err: plain,
            },
        }
    })?;
    simulated(&trace, &source())?;
    if let Some(why) = trace.record_problem() {
        return Err(TraceFileError::Record {
            source: source(),
            why: crate::error::escape(&why),
        });
    }
    Ok(trace)
}

/// `Trace::simulated`, its refusal naming the file (`source`): what every reader of a
/// trace's origin calls. [`parse`] already refused a file whose marks disagree; a trace built
/// or edited in memory is checked the same way.
pub fn simulated<'t>(
    trace: &'t Trace,
    source: &str,
) -> Result<Option<&'t Simulation>, TraceFileError> {
    trace.simulated().map_err(|marks| TraceFileError::Marks {
        source: source.to_string(),
        marks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 46, N9: a trace past what the readers take is not written; the file keeps
    /// what it held.
    #[test]
    fn a_trace_past_the_readers_limit_is_not_written() {
        let real = read(Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/data/traces/vm-local.json"
        )))
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.json");
        write(&path, &real).unwrap();
        let before = std::fs::read(&path).unwrap();
        let mut big = real.clone();
        let samples = big.points[0].comp_alone.samples.clone();
        let copies = (super::super::read::MAX_INPUT_BYTES as usize / 100) / samples.len() + 1;
        for _ in 0..copies {
            big.points[0].comp_alone.samples.extend_from_slice(&samples);
        }
        let e = write(&path, &big).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        let e = e.to_string();
        assert!(
            e.contains("t.json: not saved") && e.contains("past the 64 MiB every reader"),
            "{e}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), before);
    }

    /// Either mark alone, or two that name different machines, is a trace of unknown origin:
    /// refused naming the file and both marks, never read on one mark's word.
    #[test]
    fn a_trace_is_simulated_by_both_marks_or_by_neither() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/data/traces/vm-local.json"
        );
        let real = read(Path::new(path)).unwrap();
        assert_eq!(real.simulated().unwrap(), None);
        let mark = |machine: Option<&str>, simulation: Option<&str>| {
            let mut t = real.clone();
            t.machine.simulated = machine.map(str::to_string);
            t.simulation = simulation.map(|m| Simulation {
                machine: m.into(),
                seed: 3,
                measuring_seconds: 1.0,
            });
            parse(&crate::io::output::pretty_json(&t), "t.json")
        };
        let t = mark(Some("paper:henri"), Some("paper:henri")).unwrap();
        assert_eq!(t.simulated().unwrap().map(|s| s.seed), Some(3));
        for (machine, simulation, said) in [
            (
                Some("paper:henri"),
                None,
                "machine.simulated is `paper:henri` and simulation.machine is absent",
            ),
            (
                None,
                Some("paper:henri"),
                "machine.simulated is absent and simulation.machine is `paper:henri`",
            ),
            (
                Some("paper:henri"),
                Some("paper:dahu"),
                "machine.simulated is `paper:henri` and simulation.machine is `paper:dahu`",
            ),
        ] {
            let e = crate::Error::from(mark(machine, simulation).unwrap_err());
            assert_eq!(e.exit_code(), 2);
            let e = e.to_string();
            assert!(
                e.starts_with("t.json: its marks of origin disagree: ")
                    && e.contains(said)
                    && e.contains("the file was edited or is corrupt"),
                "{e}"
            );
        }
    }

    #[test]
    fn refusals_say_why() {
        let err = |t: &str| parse(t, "t.json").unwrap_err().to_string();
        assert!(
            err("{\"schema_version\": 2, \"points\": 3}").contains("version 2 is not supported")
        );
        assert!(err("{\"schema_version\": 0}").contains("predates"));
        assert!(err("{\"points\": []}").contains("no schema_version"));
        assert!(err("nope").starts_with("t.json: not a JSON trace"));
        let e = err("{\"schema_version\": 1, \"tool\": 5}");
        assert!(e.starts_with("t.json: field `tool`: invalid type"), "{e}");
        use std::error::Error as _;
        let e = parse("nope", "t.json").unwrap_err();
        assert!(matches!(e, TraceFileError::NotJson { .. }) && e.source().is_some());
        let e = parse("{\"points\": []}", "t.json").unwrap_err();
        assert_eq!(crate::Error::from(e).exit_code(), 2);
    }

    #[test]
    fn samples_are_written_as_mb_per_s_and_older_mbps_traces_still_read() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/data/traces/vm-local.json"
        );
        let old = std::fs::read_to_string(path).unwrap();
        assert!(
            old.contains("\"mbps\""),
            "the saved trace predates the new key"
        );
        let t = parse(&old, "vm-local.json").unwrap();
        let first = t.points[0].comp_alone.samples[0].mbps;
        assert!(first > 0.0);
        let new = serde_json::to_string(&t).unwrap();
        assert!(new.contains("\"mb_per_s\"") && !new.contains("\"mbps\""));
        let again = parse(&new, "new.json").unwrap();
        assert_eq!(again.points[0].comp_alone.samples[0].mbps, first);
    }
}
