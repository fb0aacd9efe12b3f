//! The results directory: where `measure` writes its traces and `calibrate` its model when no
//! file is named, and where every other command looks for them, so that
//!
//! ```text
//! contention measure --numa 0,0
//! contention calibrate
//! contention predict --ncores 1..18
//! ```
//!
//! works as written in an empty directory. One directory per host
//! (`./contention-results/HOST/`, or `$CONTENTION_RESULTS/HOST/`), because a shared file
//! system holds the results of many nodes and a model describes one machine. Trace names carry
//! the placement, the computing kernel and the communication pattern
//! (`trace-numa0-0-nt-store-pong.json`), so that no variant overwrites another; `calibrate`
//! takes one variant, the paper's (`nt-store`, `pong`) when present.

use crate::error::{Error, IoAction, Result};
use std::path::{Path, PathBuf};

/// The default root, relative to the current directory.
pub(crate) const DEFAULT_ROOT: &str = "contention-results";
/// Environment variable that moves the root (a CI job's scratch space, a project directory).
pub const ROOT_ENV: &str = "CONTENTION_RESULTS";
/// The model `calibrate` saves and the other commands read.
pub(crate) const MODEL_FILE: &str = "model.json";
/// The variant of the paper's benchmark (section 4.1.1): non-temporal stores, one-way stream.
pub const PAPER_VARIANT: &str = "nt-store-pong";

/// The simulated fleet's directory under the results root (`survey --simulate`): its
/// `survey.json` and one directory per node, apart from any real node's.
pub const SIMULATED_SURVEY: &str = "simulated-survey";

/// The directory, under a node's, of its run `r` (2 and later); run 1 is the node's own
/// directory, where a survey of one run leaves its trace.
pub fn run_dir(node_dir: &Path, run: u32) -> PathBuf {
    if run <= 1 {
        node_dir.to_path_buf()
    } else {
        node_dir.join(format!("run{run}"))
    }
}

/// The results root: `$CONTENTION_RESULTS` if set and not empty, else `./contention-results`.
pub fn root() -> PathBuf {
    root_from(std::env::var_os(ROOT_ENV))
}

fn root_from(env: Option<std::ffi::OsString>) -> PathBuf {
    match env {
        Some(v) if !v.is_empty() => PathBuf::from(v),
        _ => PathBuf::from(DEFAULT_ROOT),
    }
}

/// This machine's host name, as hwloc's `HostName` (the kernel's node name) gives it.
pub fn this_host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok().filter(|s| !s.is_empty()))
        .unwrap_or_else(|| "unknown".into())
}

/// The directory of one host's results.
pub fn host_dir(host: &str) -> PathBuf {
    root().join(dir_name(host))
}

/// The name of host `host`'s directory under a results root: the host name itself for every
/// real host name or address, and one directory inside the root for any other. Host names
/// come from the user (`--hosts`), from a manifest anyone may edit and from the machine
/// itself, none of them trusted: `/`, `\` and control characters become `_`, and `.`, `..`
/// and the empty name, which would name the root or its parent, get a leading `_`.
pub fn dir_name(host: &str) -> String {
    let name: String = host
        .chars()
        .map(|c| {
            if c == '/' || c == '\\' || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect();
    match name.as_str() {
        "" | "." | ".." => format!("_{name}"),
        _ => name,
    }
}

/// The variant part of a trace name: kernel and pattern (`nt-store-pong`, `triad-ring4`).
pub fn variant(kernel: &str, pattern: &str, ranks: u32) -> String {
    if pattern == "ring" {
        format!("{kernel}-ring{ranks}")
    } else {
        format!("{kernel}-{pattern}")
    }
}

/// File name of the trace of one placement and variant.
pub fn trace_name(comp: u32, comm: u32, variant: &str) -> String {
    format!("trace-numa{comp}-{comm}-{variant}.json")
}

/// The placement and variant a trace name encodes, or `None` for other files.
pub(crate) fn parse_trace_name(name: &str) -> Option<(u32, u32, String)> {
    let rest = name.strip_prefix("trace-numa")?.strip_suffix(".json")?;
    let (comp, rest) = rest.split_once('-')?;
    let (comm, variant) = rest.split_once('-')?;
    if variant.is_empty() {
        return None;
    }
    Some((comp.parse().ok()?, comm.parse().ok()?, variant.to_string()))
}

/// The saved model of this host.
pub fn model_path() -> PathBuf {
    host_dir(&this_host()).join(MODEL_FILE)
}

/// Why the results directory gives no input or model: what is missing and how to make it or
/// name it instead. All are bad input (exit 2).
#[derive(Debug, Clone)]
pub(crate) enum ResultsError {
    /// No `--model` and no saved model at `path`.
    NoModel { path: PathBuf },
    /// No `--model`, and `path` is not a regular file (`kind` says what it is).
    ModelNotAFile { path: PathBuf, kind: &'static str },
    /// A directory named as input without traces or CSV files.
    EmptyDirectory { dir: PathBuf },
    /// No inputs named and no traces in the results directory `dir`; `elsewhere`: the
    /// results root's other directories that hold traces (another host's, or a simulated
    /// machine's, which `measure --simulate` writes under its own name).
    NoTraces {
        dir: PathBuf,
        elsewhere: Vec<PathBuf>,
    },
    /// Traces of several variants, none of them the paper's.
    SeveralVariants { dir: PathBuf, variants: Vec<String> },
}

/// How many of the directories holding traces elsewhere a [`ResultsError::NoTraces`] names.
const SHOWN_ELSEWHERE: usize = 4;

// `?` turns it into the crate's error: input the user can fix (exit 2).
crate::wrap!(Input: ResultsError);
impl std::fmt::Display for ResultsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ResultsError::NoModel { path } => write!(
                f,
                "no --model given and no saved model at `{}`; make it with `contention measure \
                 --numa 0,0` then `contention calibrate`, or name one with --model FILE (or \
                 --model paper:henri for one of the paper's machines)",
                path.display()
            ),
            ResultsError::ModelNotAFile { path, kind } => write!(
                f,
                "no --model given and this host's saved model `{}` is {kind}, not a regular \
                 file; remove it and save a model there with `contention calibrate`, or name \
                 one with --model FILE",
                path.display()
            ),
            ResultsError::EmptyDirectory { dir } => write!(
                f,
                "`{}` is a directory without trace (.json) or tidy CSV (.csv) files; name the \
                 files, or a directory that holds them",
                dir.display()
            ),
            ResultsError::NoTraces { dir, elsewhere } => {
                write!(
                    f,
                    "no input files given and no traces in `{}`; measure first with \
                     `contention measure --numa 0,0` (and `--numa N,N`, N = NUMA nodes per \
                     socket, on a multi-socket machine), or name trace or CSV files",
                    dir.display()
                )?;
                // A shared file system may hold hundreds of hosts' directories.
                let mut shown: Vec<String> = elsewhere
                    .iter()
                    .take(SHOWN_ELSEWHERE)
                    .map(|d| format!("`{}`", d.display()))
                    .collect();
                if elsewhere.len() > SHOWN_ELSEWHERE {
                    shown.push(format!("{} more", elsewhere.len() - SHOWN_ELSEWHERE));
                }
                match shown.len() {
                    0 => Ok(()),
                    1 => write!(
                        f,
                        ", or a directory of them: {} holds the traces of another host or a \
                         simulated machine",
                        shown[0]
                    ),
                    _ => write!(
                        f,
                        ", or a directory of them: {} hold the traces of other hosts or \
                         simulated machines",
                        shown.join(", ")
                    ),
                }
            }
            ResultsError::SeveralVariants { dir, variants } => write!(
                f,
                "`{}` holds traces of several variants ({}) and none of the paper's \
                 ({PAPER_VARIANT}); name the files of one variant",
                dir.display(),
                variants.join(", ")
            ),
        }
    }
}

impl std::error::Error for ResultsError {}

/// The `--model` a command uses: the one given, else this host's saved model, which must
/// exist (else the error says how to make one, or to name one).
pub fn model_or_default(given: Option<&str>) -> Result<String> {
    if let Some(m) = given {
        return Ok(m.to_string());
    }
    let path = model_path();
    match std::fs::metadata(&path) {
        Ok(meta) if meta.is_file() => {}
        Ok(meta) => {
            let kind = crate::io::atomic::describe(&meta.file_type());
            return Err(ResultsError::ModelNotAFile { path, kind }.into());
        }
        Err(_) => return Err(ResultsError::NoModel { path }.into()),
    }
    eprintln!(
        "model: {} (this host's saved model)",
        crate::error::shown_path(&path)
    );
    Ok(path.display().to_string())
}

/// The traces of this host that `calibrate`, `evaluate`, `check` and `plot` take when given
/// none: every placement of one variant (the paper's when present). Says on standard error
/// which files and which variant; refuses with the fix when there are none, or when several
/// variants other than the paper's are there.
pub fn default_traces() -> Result<Vec<PathBuf>> {
    let dir = host_dir(&this_host());
    let Some((chosen, others)) = select_in(&dir)? else {
        return Err(no_traces_here(dir).into());
    };
    eprintln!(
        "traces: {} (this host's results, variant {})",
        chosen
            .1
            .iter()
            .map(|p| crate::error::shown_path(p))
            .collect::<Vec<_>>()
            .join(", "),
        crate::error::escape(&chosen.0)
    );
    if !others.is_empty() {
        eprintln!(
            "note: other variants in {} are not used: {} (name their files to use them)",
            crate::error::shown_path(&dir),
            crate::error::escape(&others.join(", "))
        );
    }
    Ok(chosen.1)
}

/// The inputs a command uses: those given, a directory standing for the measurement files in
/// it, else [`default_traces`].
pub fn inputs_or_default(given: &[PathBuf]) -> Result<Vec<PathBuf>> {
    if given.is_empty() {
        return default_traces();
    }
    let mut out = Vec::new();
    for p in given {
        if p.is_dir() {
            out.extend(in_directory(p)?);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// The measurement files of a directory (`contention check saved-traces/`): its traces
/// (`.json`), or its tidy CSV files when it holds no trace, since `measure` writes a CSV
/// beside each trace with the same numbers and they must not count twice. Sorted.
fn in_directory(dir: &Path) -> Result<Vec<PathBuf>> {
    let with = |ext: &str| -> Result<Vec<PathBuf>> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| Error::io(IoAction::List("the directory"), dir, e))?
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.is_file()
                    && p.extension()
                        .is_some_and(|x| x.to_string_lossy().eq_ignore_ascii_case(ext))
            })
            .collect();
        v.sort();
        Ok(v)
    };
    let traces = with("json")?;
    let files = if traces.is_empty() {
        with("csv")?
    } else {
        traces
    };
    if files.is_empty() {
        return Err(ResultsError::EmptyDirectory { dir: dir.into() }.into());
    }
    eprintln!(
        "inputs from {}: {}",
        crate::error::shown_path(dir),
        files
            .iter()
            .map(|p| crate::error::shown_path(p))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(files)
}

/// The traces of one host's directory `dir` that `calibrate` takes with no file named (one
/// variant, the paper's when present), the variant's name, and the other variants' names:
/// what a fleet report calibrates on each node of a survey.
pub(crate) fn traces_in(dir: &Path) -> Result<(String, Vec<PathBuf>, Vec<String>)> {
    let ((variant, files), others) = select(dir)?;
    Ok((variant, files, others))
}

/// The variant chosen in `dir` and its traces (sorted), and the other variants' names.
type Selection = ((String, Vec<PathBuf>), Vec<String>);

fn select(dir: &Path) -> Result<Selection> {
    select_in(dir)?.ok_or_else(|| {
        ResultsError::NoTraces {
            dir: dir.into(),
            elsewhere: Vec::new(),
        }
        .into()
    })
}

/// The refusal of a host directory `dir` without traces, naming the directories beside it
/// (under the same results root) that hold some: where a user who measured a simulated
/// machine, or on another host of a shared file system, finds them.
fn no_traces_here(dir: PathBuf) -> ResultsError {
    let has_traces = |d: &Path| {
        std::fs::read_dir(d).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| parse_trace_name(&e.file_name().to_string_lossy()).is_some())
        })
    };
    let mut elsewhere: Vec<PathBuf> = dir
        .parent()
        .and_then(|root| std::fs::read_dir(root).ok())
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| *p != dir && p.is_dir() && has_traces(p))
                .collect()
        })
        .unwrap_or_default();
    elsewhere.sort();
    ResultsError::NoTraces { dir, elsewhere }
}

/// [`select`], with `None` where `dir` is missing or holds no trace.
fn select_in(dir: &Path) -> Result<Option<Selection>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(IoAction::List("the results directory"), dir, e)),
    };
    let mut groups: std::collections::BTreeMap<String, Vec<PathBuf>> = Default::default();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some((_, _, variant)) = parse_trace_name(&name) {
            groups.entry(variant).or_default().push(entry.path());
        }
    }
    for files in groups.values_mut() {
        files.sort();
    }
    let pick = if groups.contains_key(PAPER_VARIANT) {
        PAPER_VARIANT.to_string()
    } else if groups.len() == 1 {
        groups.keys().next().expect("one group").clone()
    } else if groups.is_empty() {
        return Ok(None);
    } else {
        return Err(ResultsError::SeveralVariants {
            dir: dir.into(),
            variants: groups.keys().cloned().collect(),
        }
        .into());
    };
    let files = groups.remove(&pick).expect("picked from the map");
    Ok(Some(((pick, files), groups.into_keys().collect())))
}

/// Creates the directory a file goes into, naming it when that fails.
pub fn ensure_parent(path: &Path) -> Result<()> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => std::fs::create_dir_all(dir)
            .map_err(|e| Error::io(IoAction::Create("the results directory"), dir, e)),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_names_round_trip_and_keep_variants_apart() {
        let v = variant("nt-store", "pong", 2);
        assert_eq!(v, PAPER_VARIANT);
        assert_eq!(trace_name(0, 1, &v), "trace-numa0-1-nt-store-pong.json");
        assert_eq!(
            parse_trace_name("trace-numa12-3-triad-ring4.json"),
            Some((12, 3, "triad-ring4".into()))
        );
        assert_ne!(variant("copy", "ring", 3), variant("copy", "ring", 4));
        for bad in [
            "model.json",
            "trace-numa0-0.json",
            "trace-numax-0-a.json",
            "x.csv",
        ] {
            assert_eq!(parse_trace_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn every_host_name_stays_one_directory_inside_the_root() {
        // A name read from a manifest or from the machine itself is not trusted: `..` wrote
        // the model into the root's parent, `.` and `` into the root itself.
        let root = root();
        let mut seen = std::collections::BTreeSet::new();
        for host in [
            "..",
            ".",
            "",
            "a/../..",
            "a\\b",
            "n\u{1b}[31m",
            "x\ny",
            "node1",
            "10.0.0.1",
        ] {
            let dir = host_dir(host);
            let rest = dir.strip_prefix(&root).unwrap();
            let parts: Vec<_> = rest.components().collect();
            assert!(
                matches!(parts[..], [std::path::Component::Normal(_)]),
                "{host:?} -> {}",
                dir.display()
            );
            let name = rest.to_string_lossy();
            assert!(!name.chars().any(char::is_control), "{host:?} -> {name:?}");
            assert!(
                seen.insert(name.into_owned()),
                "{host:?} shares a directory"
            );
        }
        assert_eq!(host_dir("node1"), root.join("node1"));
        assert_eq!(host_dir("10.0.0.1"), root.join("10.0.0.1"));
    }

    #[test]
    fn root_defaults_to_the_current_directory() {
        assert_eq!(root_from(None), PathBuf::from(DEFAULT_ROOT));
        assert_eq!(root_from(Some("".into())), PathBuf::from(DEFAULT_ROOT));
        assert_eq!(
            root_from(Some("/scratch/r".into())),
            PathBuf::from("/scratch/r")
        );
    }

    fn dir_with(files: &[&str]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "contention-results-test-{}-{}",
            std::process::id(),
            files.join("+").len() * 31 + files.len()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for f in files {
            std::fs::write(dir.join(f), "{}").unwrap();
        }
        dir
    }

    #[test]
    fn the_paper_variant_wins_and_the_others_are_named() {
        let dir = dir_with(&[
            "trace-numa0-0-nt-store-pong.json",
            "trace-numa1-1-nt-store-pong.json",
            "trace-numa0-0-triad-pong.json",
            "model.json",
        ]);
        let ((v, files), others) = select(&dir).unwrap();
        assert_eq!(v, PAPER_VARIANT);
        assert_eq!(files.len(), 2);
        assert!(files[0].ends_with("trace-numa0-0-nt-store-pong.json"));
        assert_eq!(others, vec!["triad-pong".to_string()]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_directory_stands_for_its_traces_else_its_csv_files() {
        let dir = dir_with(&["b.json", "a.json", "a.csv", "notes.txt"]);
        let got = inputs_or_default(std::slice::from_ref(&dir)).unwrap();
        assert_eq!(got, vec![dir.join("a.json"), dir.join("b.json")]);
        std::fs::remove_file(dir.join("a.json")).unwrap();
        std::fs::remove_file(dir.join("b.json")).unwrap();
        let got = inputs_or_default(&[dir.clone(), PathBuf::from("x.json")]).unwrap();
        assert_eq!(got, vec![dir.join("a.csv"), PathBuf::from("x.json")]);
        std::fs::remove_file(dir.join("a.csv")).unwrap();
        let e = inputs_or_default(std::slice::from_ref(&dir)).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn no_traces_or_mixed_variants_are_refused_with_the_fix() {
        let dir = dir_with(&["model.json"]);
        let e = select(&dir).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(
            e.to_string().contains("contention measure --numa 0,0"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
        let dir = dir_with(&[
            "trace-numa0-0-copy-pong.json",
            "trace-numa0-0-triad-pong.json",
        ]);
        let e = select(&dir).unwrap_err().to_string();
        assert!(e.contains("copy-pong, triad-pong"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
        let e = select(Path::new("/nonexistent/results")).unwrap_err();
        assert!(e.to_string().contains("/nonexistent/results"), "{e}");
    }

    #[test]
    fn no_traces_here_names_the_directories_beside_that_hold_some() {
        // `measure --simulate paper:henri` writes under `simulated-paper-henri`, not this
        // host's directory: a plain `calibrate` then says where the traces are.
        let root = dir_with(&[]);
        let sim = root.join("simulated-paper-henri");
        std::fs::create_dir(&sim).unwrap();
        std::fs::write(sim.join("trace-numa0-0-nt-store-pong.json"), "{}").unwrap();
        std::fs::create_dir(root.join("empty-host")).unwrap();
        std::fs::write(root.join("empty-host/model.json"), "{}").unwrap();
        let here = root.join("this-host");
        let e = no_traces_here(here.clone()).to_string();
        assert!(e.contains("contention measure --numa 0,0"), "{e}");
        assert!(
            e.contains(&format!("`{}` holds the traces", sim.display())),
            "{e}"
        );
        assert!(!e.contains("empty-host"), "{e}");
        // Many hosts' directories: the first few, in order, and a count of the others.
        for k in 0..6 {
            let d = root.join(format!("node{k:02}"));
            std::fs::create_dir(&d).unwrap();
            std::fs::write(d.join("trace-numa0-0-nt-store-pong.json"), "{}").unwrap();
        }
        let e = no_traces_here(here).to_string();
        let node = |k: u32| format!("`{}`", root.join(format!("node{k:02}")).display());
        assert!(e.contains(&format!("{}, {}, ", node(0), node(1))), "{e}");
        assert!(e.contains("3 more hold the traces"), "{e}");
        assert!(!e.contains("simulated-paper-henri"), "{e}");
        std::fs::remove_dir_all(&root).unwrap();
    }
}
