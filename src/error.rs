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
    /// Reading or writing a file failed.
    Io {
        action: &'static str,
        path: PathBuf,
        err: io::Error,
    },
}

impl Error {
    /// The process exit status for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Input(_) | Error::InvalidModel { .. } => EXIT_INPUT,
            Error::Failed(_) => EXIT_FAILURE,
            Error::Interrupted(_) => EXIT_INTERRUPTED,
            Error::Reported(code) => *code,
            // A file the user named that cannot be read is bad input too.
            Error::Io { action, .. } if action.starts_with("read") => EXIT_INPUT,
            Error::Io { .. } => EXIT_FAILURE,
        }
    }

    pub fn io(action: &'static str, path: impl Into<PathBuf>, err: io::Error) -> Self {
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
        }
    }
}

impl std::error::Error for Error {}

impl From<crate::model::PredictError> for Error {
    fn from(e: crate::model::PredictError) -> Self {
        Error::Input(e.to_string())
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
