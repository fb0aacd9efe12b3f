//! Why a sensitivity run cannot go on: the machine lacks what the backend needs, the command
//! cannot be run or prints no figure of merit, or the options ask for what cannot be. Each
//! message names the fix; the exit status follows from the kind ([`SensitivityError::exit_code`]).

use super::fom::FomError;
use crate::error::{EXIT_FAILURE, EXIT_INPUT};
use std::fmt;
use std::path::PathBuf;

#[derive(Debug)]
pub(crate) enum SensitivityError {
    /// `--repeat 0`.
    NoRepeat,
    /// A throttling level outside the machine's MB scale `1..max`.
    Level { level: f64, max: u32 },
    /// resctrl with memory bandwidth allocation is not available at `root` (`what` says which
    /// part is missing).
    NoResctrl { root: PathBuf, what: String },
    /// Creating the resctrl group was refused: throttling needs root.
    NeedsRoot { path: PathBuf, err: std::io::Error },
    /// No command after `--`.
    NoCommand,
    /// The resctrl `tasks` path cannot be passed to the child (a NUL byte).
    NulInPath,
    /// The command could not be started.
    Spawn {
        program: String,
        err: std::io::Error,
    },
    /// The command ran and failed (exit 1: its own failure, not the options').
    CommandFailed {
        command: String,
        status: std::process::ExitStatus,
    },
    /// The command's output holds no figure of merit by the rule given.
    NoFigureOfMerit { command: String, err: FomError },
    /// Every allowed core is the command's: the bandit has none to steal from.
    NoThiefCore {
        command: Vec<u32>,
        allowed: Vec<u32>,
    },
}

impl SensitivityError {
    /// A command that fails is a failure of the run (1); everything else is the user's to fix
    /// (2).
    pub(crate) fn exit_code(&self) -> i32 {
        match self {
            SensitivityError::CommandFailed { .. } => EXIT_FAILURE,
            _ => EXIT_INPUT,
        }
    }
}

// `?` turns it into the crate's error: the exit status its `exit_code()` gives.
contention_analysis::wrap!(ByCode: SensitivityError);
impl fmt::Display for SensitivityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SensitivityError::NoRepeat => f.write_str("--repeat must be at least 1"),
            SensitivityError::Level { level, max } => write!(
                f,
                "level {level} is outside this machine's MB scale 1..{max} (read from the root \
                 schemata)"
            ),
            SensitivityError::NoResctrl { root, what } => write!(
                f,
                "{what}: memory bandwidth throttling needs Linux resctrl mounted at `{}` (`mount \
                 -t resctrl resctrl {}` as root) on a CPU with Intel RDT MBA or AMD PQoS; pass \
                 --resctrl-root if it is mounted elsewhere, or use --backend bandit to steal \
                 bandwidth with store threads instead",
                root.display(),
                root.display()
            ),
            SensitivityError::NeedsRoot { path, err } => write!(
                f,
                "cannot create the resctrl group `{}`: {err}; throttling needs root (run with \
                 sudo), or use --backend bandit",
                path.display()
            ),
            SensitivityError::NoCommand => f.write_str("no command given: pass it after `--`"),
            SensitivityError::NulInPath => f.write_str("the resctrl path contains a NUL byte"),
            SensitivityError::Spawn { program, err } => {
                write!(f, "cannot run `{program}`: {err}")
            }
            SensitivityError::CommandFailed { command, status } => write!(
                f,
                "`{command}` failed ({status}); its standard error is above"
            ),
            SensitivityError::NoFigureOfMerit { command, err } => write!(
                f,
                "no figure of merit in the output of `{command}`: {err}; use --fom-after TEXT \
                 or --fom-regex REGEX"
            ),
            SensitivityError::NoThiefCore { command, allowed } => write!(
                f,
                "the bandit needs a core the command does not use: the command has {command:?} \
                 of the allowed {allowed:?}; give it fewer with --command-cores"
            ),
        }
    }
}

impl std::error::Error for SensitivityError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SensitivityError::NeedsRoot { err, .. } | SensitivityError::Spawn { err, .. } => {
                Some(err)
            }
            SensitivityError::NoFigureOfMerit { err, .. } => Some(err),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;
    use std::os::unix::process::ExitStatusExt;

    #[test]
    fn a_failing_command_exits_1_the_rest_2_with_their_causes() {
        let failed = SensitivityError::CommandFailed {
            command: "app --x".into(),
            status: std::process::ExitStatus::from_raw(3 << 8),
        };
        assert_eq!(
            failed.to_string(),
            "`app --x` failed (exit status: 3); its standard error is above"
        );
        assert_eq!(crate::Error::from(failed).exit_code(), 1);
        let spawn = SensitivityError::Spawn {
            program: "nope".into(),
            err: std::io::Error::from(std::io::ErrorKind::NotFound),
        };
        assert!(spawn.source().is_some());
        assert_eq!(crate::Error::from(spawn).exit_code(), 2);
        let fom = SensitivityError::NoFigureOfMerit {
            command: "app".into(),
            err: FomError::NoNumber,
        };
        assert_eq!(
            fom.to_string(),
            "no figure of merit in the output of `app`: the output contains no number; use \
             --fom-after TEXT or --fom-regex REGEX"
        );
        assert!(fom.source().is_some());
        assert_eq!(
            crate::Error::from(SensitivityError::NoRepeat).exit_code(),
            2
        );
    }
}
