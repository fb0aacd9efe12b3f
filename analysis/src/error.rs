//! The errors the tool reports to its user, each saying what was wrong and what to do, and
//! the exit status that goes with it.
//!
//! The status follows from the type, never from the wording: an [`IoAction`] says what the
//! tool was doing with a file, and each module's own error type (the measurement plan, a trace
//! file, the dataset...) is made convertible beside its definition with `wrap!`, which
//! gives it its [`Kind`]. This file names no module above it, so every module can use it.

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
    /// failed, never the user's input: exit 1); `path` is the file it was meant for. `err` is a
    /// `plot::RenderError`, boxed so that this file names no module above it.
    Render {
        path: Option<PathBuf>,
        err: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A module's own typed error (the measurement plan, a trace file, a dataset, the results
    /// directory...): its message is the error's, its `source()` the error's source, and its
    /// exit status the [`Kind`] the module gave it where it made the type convertible
    /// (`wrap!`). The modules depend on this file, never the other way round.
    Module {
        kind: Kind,
        err: Box<dyn std::error::Error + Send + Sync>,
    },
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
    pub(crate) fn exit_code(self) -> i32 {
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
            Error::Input(_) => EXIT_INPUT,
            Error::Failed(_) => EXIT_FAILURE,
            Error::Interrupted(_) => EXIT_INTERRUPTED,
            Error::Reported(code) => *code,
            Error::Io { action, .. } => action.exit_code(),
            Error::Render { .. } => EXIT_FAILURE,
            Error::Module { kind, .. } => kind.exit_code(),
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
            Error::Io { action, path, err } => {
                write!(f, "cannot {action} `{}`: {err}", path.display())
            }
            Error::Render {
                path: Some(path),
                err,
            } => write!(f, "cannot render `{}`: {err}", path.display()),
            Error::Render { path: None, err } => write!(f, "{err}"),
            Error::Module { err, .. } => write!(f, "{err}"),
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
            Error::Render { path: Some(_), err } => Some(err.as_ref()),
            Error::Render { path: None, err } => err.source(),
            Error::Module { err, .. } => err.source(),
            Error::Input(_) | Error::Failed(_) | Error::Interrupted(_) | Error::Reported(_) => None,
        }
    }
}

/// Whose fault a module's error is, which decides the exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Input the user can fix: an option, a file they named, a machine that cannot do what was
    /// asked (exit 2).
    Input,
    /// The system failed us (exit 1).
    Failure,
}

impl Kind {
    /// The exit status of an error of this kind.
    pub(crate) fn exit_code(self) -> i32 {
        match self {
            Kind::Input => EXIT_INPUT,
            Kind::Failure => EXIT_FAILURE,
        }
    }

    /// The kind of an exit status a module computed per value (2: input, else failure).
    pub fn of_code(code: i32) -> Kind {
        if code == EXIT_INPUT {
            Kind::Input
        } else {
            Kind::Failure
        }
    }
}

impl Error {
    /// A module's error as an [`Error::Module`] of `kind`.
    pub fn module(kind: Kind, err: impl std::error::Error + Send + Sync + 'static) -> Self {
        Error::Module {
            kind,
            err: Box::new(err),
        }
    }
}

/// Makes a module's error type convertible into [`Error`] by `?`, written beside the type:
/// `wrap!(Input: PlanError)` for input the user can fix (exit 2), `wrap!(Failure: T)` for the
/// system's failure (exit 1), `wrap!(ByCode: T)` for a type whose own `exit_code()` decides
/// per value. Exported (at the crate's root, `crate::wrap!`; `contention_analysis::wrap!`
/// above it), as the layers above wrap their own errors the same way.
#[macro_export]
macro_rules! wrap {
    (ByCode: $ty:ty) => {
        impl From<$ty> for $crate::error::Error {
            fn from(e: $ty) -> Self {
                let kind = $crate::error::Kind::of_code(e.exit_code());
                $crate::error::Error::module(kind, e)
            }
        }
    };
    ($kind:ident: $ty:ty) => {
        impl From<$ty> for $crate::error::Error {
            fn from(e: $ty) -> Self {
                $crate::error::Error::module($crate::error::Kind::$kind, e)
            }
        }
    };
}

// A placement or core count the model cannot give is the user's to fix (exit 2). Here, as
// the model's crate names no error of this one.
wrap!(Input: contention_model::PredictError);

pub type Result<T, E = Error> = std::result::Result<T, E>;

use contention_model::text::cut;
pub use contention_model::text::{clip, escape, escape_line, is_hidden, needs_escape};

/// The most items of a list an error line names ([`first_of`]).
pub const LISTED: usize = 10;

/// The most characters of one listed item an error line repeats ([`first_of`]).
const ITEM_CHARS: usize = 200;

/// One item (a value, a reason read from a file) as an error line repeats it: cut at 200
/// characters (`ITEM_CHARS`).
pub(crate) fn item(text: &str) -> String {
    cut(text, ITEM_CHARS)
}

/// `items` joined by `sep` for an error line, bounded: the first ten (`LISTED`), each cut at 200
/// characters, then `and N more`. A saved fleet of 200,000 nodes wrote its failures as one
/// 11 MB line; the report, not the error line, is where a long list belongs, so a caller
/// says where the rest is.
pub fn first_of<S: AsRef<str>>(items: &[S], sep: &str) -> String {
    let mut shown: Vec<String> = items
        .iter()
        .take(LISTED)
        .map(|i| item(i.as_ref()))
        .collect();
    if items.len() > LISTED {
        shown.push(format!("and {} more", items.len() - LISTED));
    }
    shown.join(sep)
}

/// A path as every message prints it: [`escape`]d, since file and directory names may hold
/// any byte but the terminal must not run them.
pub fn shown_path(path: &std::path::Path) -> String {
    escape(&path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    /// A module's error, as the modules write theirs: a message and a cause.
    #[derive(Debug)]
    struct Refused(io::Error);

    impl fmt::Display for Refused {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "refused: {}", self.0)
        }
    }

    impl std::error::Error for Refused {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    fn not_found() -> io::Error {
        io::Error::from(io::ErrorKind::NotFound)
    }

    #[test]
    fn the_exit_status_follows_from_the_kind_of_error() {
        let cases = [
            (Error::Input("--cores 0".into()), EXIT_INPUT),
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
                    err: Box::new(not_found()),
                },
                EXIT_FAILURE,
            ),
            (Error::module(Kind::Input, Refused(not_found())), EXIT_INPUT),
            (
                Error::module(Kind::Failure, Refused(not_found())),
                EXIT_FAILURE,
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
            err: Box::new(Refused(not_found())),
        };
        assert!(e
            .to_string()
            .starts_with("cannot render `f.svg`: refused: "));
        let render = e.source().expect("a render error has a source");
        assert!(render.downcast_ref::<Refused>().is_some());
        let cause = render.source().expect("a drawing failure has a source");
        assert!(cause.downcast_ref::<io::Error>().is_some());

        // A module's error is transparent: its message, and its cause as the source.
        let e = Error::module(Kind::Input, Refused(not_found()));
        assert_eq!(e.to_string(), format!("refused: {}", not_found()));
        let cause = e.source().expect("the module error's cause");
        assert!(cause.downcast_ref::<io::Error>().is_some());
    }

    /// Issue 46, F14: `calibrate --name $'\u202egnp.'` printed the override raw (only Cc
    /// was escaped). One case per class of invisible character, through every shared
    /// escaper.
    #[test]
    fn format_controls_and_separators_are_escaped_by_every_escaper() {
        for (class, c) in [
            ("bidi mark LRM", '\u{200E}'),
            ("bidi mark RLM", '\u{200F}'),
            ("Arabic letter mark", '\u{061C}'),
            ("embedding LRE", '\u{202A}'),
            ("override RLO", '\u{202E}'),
            ("isolate LRI", '\u{2066}'),
            ("isolate PDI", '\u{2069}'),
            ("other Cf: zero width space", '\u{200B}'),
            ("other Cf: byte order mark", '\u{FEFF}'),
            ("other Cf: tag", '\u{E0041}'),
            ("line separator", '\u{2028}'),
            ("paragraph separator", '\u{2029}'),
        ] {
            let name = format!("a{c}gnp.exe");
            let want = format!("a{}gnp.exe", c.escape_unicode());
            assert_eq!(escape(&name), want, "{class}");
            assert_eq!(escape_line(&name), want, "{class}");
            assert_eq!(clip(&name), want, "{class}");
            assert_eq!(shown_path(std::path::Path::new(&name)), want, "{class}");
        }
        // Letters of any script, and emoji, stay as they are.
        for text in ["héllo", "节点", "عقدة", "node🚀", "a\tb\nc"] {
            assert_eq!(escape(text), text);
        }
        assert_eq!(escape_line("a\tb"), "a\\u{9}b");
        // Issue 46, N5: the noncharacters, which XML refuses (`U+FFFE`, `U+FFFF`: a figure's
        // SVG holding one raw did not parse), are escaped too; their neighbours are not.
        for c in [
            '\u{fdd0}',
            '\u{fdef}',
            '\u{fffe}',
            '\u{ffff}',
            '\u{1fffe}',
            '\u{10ffff}',
        ] {
            assert!(needs_escape(c), "{c:?}");
            assert_eq!(escape(&format!("a{c}")), format!("a{}", c.escape_unicode()));
        }
        for c in ['\u{fdcf}', '\u{fdf0}', '\u{fffd}', '\u{1fffd}', '\u{20000}'] {
            assert!(!needs_escape(c), "{c:?}");
        }
    }

    /// Issue 46, F15: a list on an error line names the first ten, each bounded, and counts
    /// the rest.
    #[test]
    fn a_listed_error_names_the_first_ten_and_counts_the_rest() {
        let items: Vec<String> = (0..5000).map(|i| format!("node{i}: missing")).collect();
        let line = first_of(&items, "; ");
        assert!(
            line.starts_with("node0: missing; node1: missing; "),
            "{line}"
        );
        assert!(line.ends_with("node9: missing; and 4990 more"), "{line}");
        assert!(!line.contains("node10"), "{line}");
        assert_eq!(
            first_of(&items[..2], ", "),
            "node0: missing, node1: missing"
        );
        let long = ["x".repeat(100_000)];
        assert_eq!(first_of(&long, "; ").chars().count(), ITEM_CHARS + 3);
        assert_eq!(first_of::<&str>(&[], "; "), "");
    }
}
