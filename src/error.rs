//! The errors the tool reports to its user, each saying what was wrong and what to do, and
//! the exit status that goes with it.

use crate::model::Problem;
use std::fmt;
use std::io;
use std::path::PathBuf;

/// Exit status for input the user can fix (bad option, invalid file), as clap uses for usage
/// errors.
pub const EXIT_INPUT: i32 = 2;
/// Exit status when the system failed us (I/O, MPI, a peer that died).
pub const EXIT_FAILURE: i32 = 1;
/// Exit status after Ctrl-C: 128 + SIGINT, as shells report it.
pub const EXIT_INTERRUPTED: i32 = 130;

#[derive(Debug)]
pub enum Error {
    /// A value or combination of options that cannot work; the message names it and the fix.
    Input(String),
    /// A model file that was read but breaks the schema or a rule of the model.
    InvalidModel {
        /// The file as the user named it (`paper:NAME` for a built-in model).
        source: String,
        problems: Vec<Problem>,
    },
    /// A run failed for a reason outside the user's input (exit 1).
    Failed(String),
    /// Ctrl-C or SIGTERM ended the run (exit 130, as shells report SIGINT).
    Interrupted(String),
    /// A child job (the MPI launcher) already reported its error; exit with its status.
    Reported(i32),
    /// Reading or writing a file failed; the action decides the exit status.
    Io {
        action: IoAction,
        path: PathBuf,
        err: io::Error,
    },
    /// A figure could not be drawn (the drawing library, the PNG encoder or the embedded font
    /// failed, never the user's input: exit 1); `path` is the file it was meant for.
    Render {
        path: Option<PathBuf>,
        err: crate::plot::RenderError,
    },
    /// The measurement plan cannot be met on this machine (exit 2: the options ask for it).
    Plan(crate::measure::plan::PlanError),
    /// A prediction was asked for a placement or core count the model cannot give (exit 2).
    Predict(crate::model::PredictError),
    /// hwloc gave no topology (exit 1 for this machine, 2 for a file or description).
    Topology(crate::measure::topology::TopologyError),
    /// A tidy CSV file that breaks its format, by line and column (exit 2).
    TidyCsv(crate::io::tidy_csv::TidyCsvError),
    /// The MPI launcher could not be started (exit 2: install it or pick another).
    Launch(crate::measure::launch::LaunchError),
    /// Another run holds the trace's lock (exit 2).
    Busy(crate::measure::lock::TraceBusy),
    /// An output path that is not a file to replace (exit 2).
    Write(crate::io::atomic::WriteError),
    /// An input the user named refused before parsing: a device, too large, not text (exit 2).
    Read(crate::io::read::ReadError),
    /// A buffer that cannot be had where the plan puts it (exit 2).
    Memory(crate::measure::memory::MemoryError),
    /// A model that cannot be evaluated against the inputs (exit 2).
    Evaluate(crate::evaluate::EvaluateError),
    /// The results directory gives no input or model (exit 2).
    Results(crate::results::ResultsError),
    /// A sensitivity run that cannot go on (exit 1 for a failing command, else 2).
    Sensitivity(crate::sensitivity::error::SensitivityError),
    /// No model can be calibrated from the inputs: the placement or option at fault (exit 2).
    Calibrate(crate::calibrate::CalibrateError),
    /// Measurements that cannot be used: the file, the point and the rule (exit 2).
    Dataset(crate::dataset::DatasetError),
    /// A graph or penalty file that breaks its format or the model's rules (exit 2).
    GraphFile(crate::io::graph_file::GraphFileError),
    /// A trace file that is not a trace this build reads (exit 2).
    TraceFile(crate::io::trace_file::TraceFileError),
    /// A survey that cannot start or resume (exit 2), or whose nodes failed (exit 1).
    Survey(crate::survey::error::SurveyError),
}

/// What the tool was doing with a file when the system refused; its [`fmt::Display`] is the
/// verb phrase of the message (`cannot read trace file `x`: ...`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoAction {
    /// Reading an input the user named (the kind of file, "" for none): a file that cannot be
    /// read is bad input, exit 2.
    Read(&'static str),
    /// Listing a directory (which one, as the message names it).
    List(&'static str),
    /// Creating a file or directory (which one).
    Create(&'static str),
    /// Writing (the kind of file, "" for none; "in directory" for a writability probe).
    Write(&'static str),
    /// Taking an advisory lock (`flock`) on a file.
    Lock,
}

impl IoAction {
    /// Exit status of a failure of this action: an input the user named that cannot be read is
    /// theirs to fix (2); anything the tool writes or creates is a failure of the system (1).
    pub fn exit_code(self) -> i32 {
        match self {
            IoAction::Read(_) => EXIT_INPUT,
            IoAction::List(_) | IoAction::Create(_) | IoAction::Write(_) | IoAction::Lock => {
                EXIT_FAILURE
            }
        }
    }
}

impl fmt::Display for IoAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (verb, what) = match *self {
            IoAction::Read(what) => ("read", what),
            IoAction::List(what) => ("list", what),
            IoAction::Create(what) => ("create", what),
            IoAction::Write(what) => ("write", what),
            IoAction::Lock => ("lock", ""),
        };
        f.write_str(verb)?;
        if !what.is_empty() {
            write!(f, " {what}")?;
        }
        Ok(())
    }
}

impl Error {
    /// The process exit status for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Input(_) | Error::InvalidModel { .. } => EXIT_INPUT,
            Error::Failed(_) => EXIT_FAILURE,
            Error::Interrupted(_) => EXIT_INTERRUPTED,
            Error::Reported(code) => *code,
            Error::Io { action, .. } => action.exit_code(),
            Error::Render { .. } => EXIT_FAILURE,
            Error::Plan(_) | Error::Predict(_) => EXIT_INPUT,
            Error::Topology(e) => e.exit_code(),
            Error::TidyCsv(_) => EXIT_INPUT,
            Error::Launch(_) => EXIT_INPUT,
            Error::Busy(_) => EXIT_INPUT,
            Error::Write(_) => EXIT_INPUT,
            Error::Read(_) => EXIT_INPUT,
            Error::Memory(_) => EXIT_INPUT,
            Error::Evaluate(_) => EXIT_INPUT,
            Error::Results(_) => EXIT_INPUT,
            Error::Sensitivity(e) => e.exit_code(),
            Error::Calibrate(_) => EXIT_INPUT,
            Error::Dataset(_) => EXIT_INPUT,
            Error::GraphFile(_) => EXIT_INPUT,
            Error::TraceFile(_) => EXIT_INPUT,
            Error::Survey(e) => e.exit_code(),
        }
    }

    pub fn io(action: IoAction, path: impl Into<PathBuf>, err: io::Error) -> Self {
        Error::Io {
            action,
            path: path.into(),
            err,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Input(msg) | Error::Failed(msg) | Error::Interrupted(msg) => f.write_str(msg),
            Error::Reported(code) => write!(f, "the MPI job exited with status {code}"),
            Error::InvalidModel { source, problems } => {
                write!(f, "model file `{source}` is invalid:")?;
                for p in problems {
                    write!(f, "\n  {p}")?;
                }
                write!(
                    f,
                    "\nA model file holds schema_version, machine and the ten parameters of \
                     `local` (and `remote`); see `contention predict --help`."
                )
            }
            Error::Io { action, path, err } => {
                write!(f, "cannot {action} `{}`: {err}", path.display())
            }
            Error::Render {
                path: Some(path),
                err,
            } => write!(f, "cannot render `{}`: {err}", path.display()),
            Error::Render { path: None, err } => write!(f, "{err}"),
            Error::Plan(e) => write!(f, "{e}"),
            Error::Predict(e) => write!(f, "{e}"),
            Error::Topology(e) => write!(f, "{e}"),
            Error::TidyCsv(e) => write!(f, "{e}"),
            Error::Launch(e) => write!(f, "{e}"),
            Error::Busy(e) => write!(f, "{e}"),
            Error::Write(e) => write!(f, "{e}"),
            Error::Read(e) => write!(f, "{e}"),
            Error::Memory(e) => write!(f, "{e}"),
            Error::Evaluate(e) => write!(f, "{e}"),
            Error::Results(e) => write!(f, "{e}"),
            Error::Sensitivity(e) => write!(f, "{e}"),
            Error::Calibrate(e) => write!(f, "{e}"),
            Error::Dataset(e) => write!(f, "{e}"),
            Error::GraphFile(e) => write!(f, "{e}"),
            Error::TraceFile(e) => write!(f, "{e}"),
            Error::Survey(e) => write!(f, "{e}"),
        }
    }
}

/// The message of an `Io` or `Render` error quotes its cause (users read only the message); the
/// cause is also its `source()`, for callers that walk the chain. Variants that only wrap a
/// module's error are transparent: their message is the inner one, their source its source.
impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { err, .. } => Some(err),
            Error::Render { path: Some(_), err } => Some(err),
            Error::Render { path: None, err } => err.source(),
            Error::Plan(e) => e.source(),
            Error::Predict(e) => e.source(),
            Error::Topology(e) => e.source(),
            Error::TidyCsv(e) => e.source(),
            Error::Launch(e) => e.source(),
            Error::Busy(e) => e.source(),
            Error::Write(e) => e.source(),
            Error::Read(e) => e.source(),
            Error::Memory(e) => e.source(),
            Error::Evaluate(e) => e.source(),
            Error::Results(e) => e.source(),
            Error::Sensitivity(e) => e.source(),
            Error::Calibrate(e) => e.source(),
            Error::Dataset(e) => e.source(),
            Error::GraphFile(e) => e.source(),
            Error::TraceFile(e) => e.source(),
            Error::Survey(e) => e.source(),
            Error::Input(_)
            | Error::InvalidModel { .. }
            | Error::Failed(_)
            | Error::Interrupted(_)
            | Error::Reported(_) => None,
        }
    }
}

impl From<crate::plot::RenderError> for Error {
    fn from(err: crate::plot::RenderError) -> Self {
        Error::Render { path: None, err }
    }
}

impl From<crate::measure::plan::PlanError> for Error {
    fn from(e: crate::measure::plan::PlanError) -> Self {
        Error::Plan(e)
    }
}

impl From<crate::measure::topology::TopologyError> for Error {
    fn from(e: crate::measure::topology::TopologyError) -> Self {
        Error::Topology(e)
    }
}

impl From<crate::io::trace_file::TraceFileError> for Error {
    fn from(e: crate::io::trace_file::TraceFileError) -> Self {
        Error::TraceFile(e)
    }
}

impl From<crate::io::graph_file::GraphFileError> for Error {
    fn from(e: crate::io::graph_file::GraphFileError) -> Self {
        Error::GraphFile(e)
    }
}

impl From<crate::dataset::DatasetError> for Error {
    fn from(e: crate::dataset::DatasetError) -> Self {
        Error::Dataset(e)
    }
}

impl From<crate::calibrate::CalibrateError> for Error {
    fn from(e: crate::calibrate::CalibrateError) -> Self {
        Error::Calibrate(e)
    }
}

impl From<crate::sensitivity::error::SensitivityError> for Error {
    fn from(e: crate::sensitivity::error::SensitivityError) -> Self {
        Error::Sensitivity(e)
    }
}

impl From<crate::results::ResultsError> for Error {
    fn from(e: crate::results::ResultsError) -> Self {
        Error::Results(e)
    }
}

impl From<crate::evaluate::EvaluateError> for Error {
    fn from(e: crate::evaluate::EvaluateError) -> Self {
        Error::Evaluate(e)
    }
}

impl From<crate::measure::memory::MemoryError> for Error {
    fn from(e: crate::measure::memory::MemoryError) -> Self {
        Error::Memory(e)
    }
}

impl From<crate::io::read::ReadError> for Error {
    fn from(e: crate::io::read::ReadError) -> Self {
        Error::Read(e)
    }
}

impl From<crate::io::atomic::WriteError> for Error {
    fn from(e: crate::io::atomic::WriteError) -> Self {
        Error::Write(e)
    }
}

impl From<crate::measure::lock::TraceBusy> for Error {
    fn from(e: crate::measure::lock::TraceBusy) -> Self {
        Error::Busy(e)
    }
}

impl From<crate::survey::error::SurveyError> for Error {
    fn from(e: crate::survey::error::SurveyError) -> Self {
        Error::Survey(e)
    }
}

impl From<crate::measure::launch::LaunchError> for Error {
    fn from(e: crate::measure::launch::LaunchError) -> Self {
        Error::Launch(e)
    }
}

impl From<crate::io::tidy_csv::TidyCsvError> for Error {
    fn from(e: crate::io::tidy_csv::TidyCsvError) -> Self {
        Error::TidyCsv(e)
    }
}

impl From<crate::model::PredictError> for Error {
    fn from(e: crate::model::PredictError) -> Self {
        Error::Predict(e)
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// `text` with control characters (other than newline and tab) written as `\u{..}` escapes:
/// a file name or machine name read from a file must not drive the user's terminal.
pub fn escape(text: &str) -> String {
    if !text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return text.to_string();
    }
    text.chars()
        .map(|c| {
            if c.is_control() && c != '\n' && c != '\t' {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::plan::PlanError;
    use crate::plot::RenderError;
    use std::error::Error as _;

    fn not_found() -> io::Error {
        io::Error::from(io::ErrorKind::NotFound)
    }

    #[test]
    fn the_exit_status_follows_from_the_kind_of_error() {
        let cases = [
            (Error::Input("--cores 0".into()), EXIT_INPUT),
            (
                Error::InvalidModel {
                    source: "m.json".into(),
                    problems: Vec::new(),
                },
                EXIT_INPUT,
            ),
            (
                Error::io(IoAction::Read("trace file"), "t.json", not_found()),
                EXIT_INPUT,
            ),
            (Error::io(IoAction::Write(""), "o.csv", not_found()), 1),
            (
                Error::io(IoAction::Create("output directory"), "d", not_found()),
                1,
            ),
            (
                Error::io(IoAction::List("the results directory"), "r", not_found()),
                1,
            ),
            (Error::io(IoAction::Lock, "t.json.lock", not_found()), 1),
            (
                Error::Render {
                    path: Some("f.png".into()),
                    err: RenderError::Draw(Box::new(not_found())),
                },
                EXIT_FAILURE,
            ),
            (Error::Plan(PlanError::NoUsableCore), EXIT_INPUT),
            (
                Error::Predict(crate::model::PredictError::NoSuchNode {
                    node: 3,
                    numa_nodes: 2,
                }),
                EXIT_INPUT,
            ),
            (Error::Failed("check failed: drift".into()), EXIT_FAILURE),
            (Error::Interrupted("interrupted".into()), EXIT_INTERRUPTED),
            (Error::Reported(2), 2),
            (Error::Reported(7), 7),
        ];
        for (e, code) in cases {
            assert_eq!(e.exit_code(), code, "{e:?}");
        }
        assert_eq!((EXIT_INPUT, EXIT_FAILURE, EXIT_INTERRUPTED), (2, 1, 130));
    }

    #[test]
    fn io_messages_name_the_action_the_file_and_the_cause() {
        let e = |action, path: &str| Error::io(action, path, not_found()).to_string();
        let cause = not_found().to_string();
        assert_eq!(
            e(IoAction::Read("model file"), "m.json"),
            format!("cannot read model file `m.json`: {cause}")
        );
        assert_eq!(
            e(IoAction::Read(""), "s"),
            format!("cannot read `s`: {cause}")
        );
        assert_eq!(
            e(IoAction::Write("in directory"), "d"),
            format!("cannot write in directory `d`: {cause}")
        );
        assert_eq!(
            e(IoAction::Create("lock file"), "l"),
            format!("cannot create lock file `l`: {cause}")
        );
        assert_eq!(e(IoAction::Lock, "l"), format!("cannot lock `l`: {cause}"));
        assert_eq!(
            e(IoAction::List("the directory"), "r"),
            format!("cannot list the directory `r`: {cause}")
        );
    }

    #[test]
    fn io_and_render_errors_chain_to_their_cause() {
        let e = Error::io(IoAction::Write(""), "o.csv", not_found());
        let cause = e.source().expect("an I/O error has a source");
        assert_eq!(
            cause.downcast_ref::<io::Error>().map(io::Error::kind),
            Some(io::ErrorKind::NotFound)
        );

        let e = Error::Render {
            path: Some("f.svg".into()),
            err: RenderError::Draw(Box::new(not_found())),
        };
        assert!(e
            .to_string()
            .starts_with("cannot render `f.svg`: drawing failed: "));
        let render = e.source().expect("a render error has a source");
        assert!(render.downcast_ref::<RenderError>().is_some());
        let cause = render.source().expect("a drawing failure has a source");
        assert!(cause.downcast_ref::<io::Error>().is_some());
    }
}
