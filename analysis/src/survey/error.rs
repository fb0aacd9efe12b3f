//! What can stop a survey, each saying what was wrong and what to do. Bad input (exit 2):
//! hosts, options, a manifest that cannot be resumed; nodes that failed (exit 1) are the
//! system's, reported after the others' results.

use std::net::IpAddr;
use std::path::PathBuf;

/// How two given names were found to be one node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sameness {
    /// Both report this host name (found by the job).
    ReportedName(String),
    /// Both resolve to this address (found by the driver).
    Address(IpAddr),
}

impl std::fmt::Display for Sameness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Sameness::ReportedName(host) => write!(f, "both report the host name `{host}`"),
            Sameness::Address(a) => write!(f, "both resolve to the address {a}"),
        }
    }
}

#[derive(Debug)]
pub enum SurveyError {
    /// Fewer than two nodes: a sender needs another node.
    TooFewNodes { got: usize },
    /// Run inside a Slurm job of one node.
    OneNodeJob { job: String, node: String },
    /// A host named twice.
    RepeatedHost { host: String },
    /// Two given names of one node: the driver found a common address, or the job found
    /// that both report one host name.
    SameNode {
        first: String,
        second: String,
        because: Sameness,
    },
    /// The job stopped before its first round, for the reason its rank 0 gave (a
    /// [`SurveyError::SameNode`] or [`SurveyError::OldTraces`] it found).
    JobRefused { why: String },
    /// Neither `--hosts` nor a Slurm allocation.
    NoHosts,
    /// A `measure` option that makes no sense for a survey (`-o`, `--graph`, a ring).
    NotForSurvey { option: &'static str },
    /// A survey was started in this results directory already.
    ManifestExists { path: PathBuf },
    /// Traces of this experiment exist for these nodes.
    OldTraces { traces: Vec<PathBuf> },
    /// `--resume` with other hosts than the manifest's.
    OtherHosts {
        path: PathBuf,
        saved: Vec<String>,
        now: Vec<String>,
    },
    /// `--resume` with other measure options than the manifest's, one phrase each.
    OtherOptions {
        path: PathBuf,
        differences: Vec<String>,
    },
    /// A file that is not a manifest this build reads.
    BadManifest { path: PathBuf, why: String },
    /// `--resume` or `--report-only` where no survey was run (no manifest).
    NoManifest { path: PathBuf, asked: &'static str },
    /// The job's ranks and the manifest's hosts do not match (started by hand).
    WrongRanks { ranks: usize, hosts: usize },
    /// `--outlier-k` outside `[0.1, 100]`: no band, or one too wide to flag anything.
    OutlierK { k: f64, max: f64 },
    /// Nodes that failed or were not reached; the others are measured and reported (exit 1).
    NodesFailed {
        /// `(host, why)`.
        failed: Vec<(String, String)>,
        pending: Vec<String>,
    },
    /// Every node was measured, but fewer were calibrated: their traces give no model, so
    /// the fleet report compares less than the survey measured (exit 1).
    NotCalibrated {
        measured: usize,
        /// `(host, why)` of each measured node with no model.
        uncalibrated: Vec<(String, String)>,
    },
}

impl SurveyError {
    /// Exit status: 1 for nodes that failed (the system's), 2 for everything else (input).
    pub fn exit_code(&self) -> i32 {
        match self {
            SurveyError::NodesFailed { .. } | SurveyError::NotCalibrated { .. } => {
                crate::error::EXIT_FAILURE
            }
            _ => crate::error::EXIT_INPUT,
        }
    }
}

fn shown(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| format!("`{}`", p.display()))
        .collect::<Vec<_>>()
        .join(", ")
}

// `?` turns it into the crate's error: the exit status its `exit_code()` gives.
crate::wrap!(ByCode: SurveyError);

impl std::fmt::Display for SurveyError {
    /// One message per variant, side by side: each names the bad value and the fix, and a
    /// reader checks their wording together, so the match stays whole; the two that build
    /// lists have their own functions.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let root = crate::results::ROOT_ENV;
        match self {
            SurveyError::TooFewNodes { got } => write!(
                f,
                "a survey needs at least 2 nodes (got {got}): each measured node receives from \
                 a sender on another node; on one node run `contention measure` instead"
            ),
            SurveyError::OneNodeJob { job, node } => write!(
                f,
                "Slurm job {job} has one node ({node}), but a survey needs at least 2 nodes: \
                 each measured node receives from a sender on another node. Ask for the nodes \
                 to survey, whole (`salloc -N 4 --exclusive`, `sbatch -N 4 --exclusive`), or \
                 run `contention measure` on this one"
            ),
            SurveyError::RepeatedHost { host } => write!(
                f,
                "host `{host}` is named twice in the survey's hosts; name each node once"
            ),
            SurveyError::SameNode {
                first,
                second,
                because,
            } => write!(
                f,
                "`{first}` and `{second}` are the same node ({because}): each node is \
                 measured once; name it once in the survey's hosts"
            ),
            SurveyError::JobRefused { why } => write!(f, "{why}"),
            SurveyError::NoHosts => write!(
                f,
                "survey: which nodes? Run it inside a Slurm allocation (salloc or sbatch: \
                 every node of the job) or name them: --hosts n01,n02,n03,n04 (started with \
                 the MPI library's own launcher)"
            ),
            SurveyError::NotForSurvey { option } => write!(
                f,
                "survey: {option} does not apply to a survey (each node's trace goes to \
                 $CONTENTION_RESULTS/HOST/, one pair of ranks per measurement); use `contention \
                 measure` for it"
            ),
            SurveyError::ManifestExists { path } => write!(
                f,
                "`{}` exists: a survey was started here; pass --resume to continue it, \
                 --force to start a new one (its traces are overwritten), or set {root} to \
                 another directory",
                path.display()
            ),
            SurveyError::OldTraces { traces } => write!(
                f,
                "traces of this experiment exist already: {}; pass --force to measure these \
                 nodes again (overwriting them), or set {root} to another directory",
                shown(traces)
            ),
            SurveyError::OtherHosts { path, saved, now } => write!(
                f,
                "--resume: `{}` surveys {}, not {}; resume without --hosts (or with the same \
                 ones), or start a new survey with --force",
                path.display(),
                saved.join(","),
                now.join(",")
            ),
            SurveyError::OtherOptions { path, differences } => write!(
                f,
                "--resume: `{}` was surveyed with other measure options ({}); resume with the \
                 same options, or start a new survey with --force",
                path.display(),
                differences.join("; ")
            ),
            SurveyError::NoManifest { path, asked } => write!(
                f,
                "{asked}: no survey manifest at `{}`; run `contention survey` first, or point \
                 CONTENTION_RESULTS at the results directory of the survey",
                path.display()
            ),
            SurveyError::BadManifest { path, why } => {
                // Some reasons already end with the fix; it is said once.
                let fix = if why.contains("--force") {
                    ""
                } else {
                    "; start a new survey with --force"
                };
                write!(f, "`{}` {why}{fix}", crate::error::shown_path(path))
            }
            SurveyError::WrongRanks { ranks, hosts } => write!(
                f,
                "the survey's job has {ranks} rank(s) but its manifest {hosts} host(s); start \
                 it with `contention survey` (it starts the job itself)"
            ),
            SurveyError::OutlierK { k, max } => write!(
                f,
                "--outlier-k {}: the band is K robust standard deviations wide, so K must be a \
                 number in [{}, {}] (default 3; at 100 the band spans the median's whole value \
                 either side, and a wider one flags nothing)",
                crate::units::short_number(*k),
                crate::fleet::MIN_K,
                max
            ),
            SurveyError::NodesFailed { failed, pending } => nodes_failed(f, failed, pending),
            SurveyError::NotCalibrated {
                measured,
                uncalibrated,
            } => not_calibrated(f, *measured, uncalibrated),
        }
    }
}

impl std::error::Error for SurveyError {}

/// [`SurveyError::NodesFailed`]'s message: each failed node with why, and the nodes not
/// reached.
fn nodes_failed(
    f: &mut std::fmt::Formatter<'_>,
    failed: &[(String, String)],
    pending: &[String],
) -> std::fmt::Result {
    let failed: Vec<String> = failed
        .iter()
        .map(|(h, why)| format!("{h} ({why})"))
        .collect();
    write!(
        f,
        "{} node(s) failed: {}{}; `contention survey --resume` measures the nodes \
         left in a new job (the failed ones continue their traces)",
        failed.len(),
        crate::error::first_of(&failed, "; "),
        if pending.is_empty() {
            String::new()
        } else {
            format!("; not reached: {}", crate::error::first_of(pending, ","))
        }
    )
}

/// [`SurveyError::NotCalibrated`]'s message: each node that could not be calibrated, with
/// why, out of the `measured` ones.
fn not_calibrated(
    f: &mut std::fmt::Formatter<'_>,
    measured: usize,
    uncalibrated: &[(String, String)],
) -> std::fmt::Result {
    let root = crate::results::ROOT_ENV;
    let why: Vec<String> = uncalibrated
        .iter()
        .map(|(h, why)| format!("{h} ({why})"))
        .collect();
    write!(
        f,
        "{} of the {measured} node(s) measured could not be calibrated: {}; the \
         fleet report compares only the others. Look at their traces (`contention \
         calibrate` in ${root}/HOST/ says the same), or measure them again with \
         `contention survey --force`",
        uncalibrated.len(),
        crate::error::first_of(&why, "; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A manifest's path is printed escaped (a directory name may hold a terminal escape),
    /// and the fix is said once when the reason already gives it.
    #[test]
    fn a_bad_manifest_names_its_path_escaped_and_the_fix_once() {
        let bad = SurveyError::BadManifest {
            path: PathBuf::from("s\u{1b}[2J/survey.json"),
            why: "lists host a twice".into(),
        };
        let text = bad.to_string();
        assert!(!text.contains('\u{1b}'), "{text:?}");
        assert!(
            text.ends_with("; start a new survey with --force"),
            "{text}"
        );
        let fixed = SurveyError::BadManifest {
            path: PathBuf::from("survey.json"),
            why: "was edited; start a new survey with --force".into(),
        };
        assert_eq!(fixed.to_string().matches("--force").count(), 1, "{fixed}");
    }

    #[test]
    fn failed_nodes_exit_1_and_bad_input_exits_2_naming_the_value() {
        let failed = SurveyError::NodesFailed {
            failed: vec![("hb".into(), "killed".into())],
            pending: vec!["hd".into()],
        };
        assert_eq!(failed.exit_code(), 1);
        let text = failed.to_string();
        assert!(
            text.contains("hb (killed)") && text.contains("not reached: hd"),
            "{text}"
        );
        let none = SurveyError::NotCalibrated {
            measured: 4,
            uncalibrated: vec![("ha".into(), "no traces".into())],
        };
        assert_eq!(none.exit_code(), 1);
        assert!(
            none.to_string()
                .starts_with("1 of the 4 node(s) measured could not be calibrated: ha (no traces)"),
            "{none}"
        );
        let k = SurveyError::OutlierK {
            k: -1.0,
            max: 100.0,
        };
        assert_eq!(k.exit_code(), 2);
        assert!(k.to_string().contains("--outlier-k -1"), "{k}");
    }
}
