//! `contention survey`: every node of an allocation measured by `measure`'s sweep in one MPI
//! job, in rounds of pairs (a measured node, a sender on another node; GPU nodes alone,
//! against their own GPU's copies), with a manifest that records what finished so a cut job
//! can be resumed.
//!
//! - [`pairing`]: the rounds (pure, property-tested);
//! - [`plan`]: hosts, time limits, launcher line and the `--dry-run` text;
//! - [`manifest`]: `survey.json`, its statuses and the `--resume` checks (the analysis
//!   crate's, with [`error`]: `check --fleet` reads a survey's record back);
//! - [`identity`]: each node's given and reported names, and the refusals they decide;
//! - [`job`]: the driver that starts the job and watches its rounds;
//! - [`ranks`]: each rank's side of that job: the nodes' names learnt before round 1, a
//!   communicator per pair, `measure`'s rank 0 and sender on it, the outcomes gathered;
//! - [`second`]: `--runs auto`'s second stage (who is measured again, and when), for both;
//! - [`simulated`]: the same path on a simulated fleet (`--simulate MACHINE --nodes N`);
//! - [`error`]: what stops a survey, by kind.

pub mod identity;
pub mod job;
pub mod pairing;
pub mod plan;
#[cfg(feature = "mpi")]
pub mod ranks;
pub mod second;
pub mod simulated;

// The survey's record, which the analysis reads back (`check --fleet`), lives below it.
pub use contention_analysis::survey::{error, manifest};

/// `--runs auto`, as [`SurveyOptions::runs`] holds it.
pub const AUTO_RUNS: u32 = 0;

/// Parses a survey's `--runs`: `auto`, `1` or `2`.
pub fn parse_runs(s: &str) -> Result<u32, String> {
    match s.trim() {
        "auto" => Ok(AUTO_RUNS),
        "1" => Ok(1),
        "2" => Ok(2),
        other => Err(format!(
            "`{}`: a survey measures each node `auto` (once, and again where a verdict \
             needs it), `1` or `2` times",
            crate::error::escape(other)
        )),
    }
}

use crate::measure::options::MeasureOptions;
use crate::mpi::launch::Launcher;
use std::path::PathBuf;

/// What a survey is asked to do, as plain values: `measure`'s options applied to every node
/// (`measure.hosts`: the nodes, any number; `None`: the Slurm job's), and how the job runs.
/// `contention survey` builds it from its arguments (`commands::survey`).
#[derive(Debug, Clone, PartialEq)]
pub struct SurveyOptions {
    pub measure: MeasureOptions,
    /// How to start the job with `--hosts` (inside Slurm: srun).
    pub launcher: Launcher,
    /// Print the rounds, pairs, duration and launcher line, and exit.
    pub dry_run: bool,
    /// With `dry_run`: estimate for the machine of this hwloc XML file.
    pub topology: Option<PathBuf>,
    /// No progress output.
    pub quiet: bool,
    /// Runs per node (`--runs`): 1 or 2 for every node, or [`AUTO_RUNS`] (the default): a
    /// second run for the suspects of the first runs and a sample
    /// ([`crate::fleet::second`]), in other rounds, so that the fleet report knows the
    /// noise between runs and names only what two runs agree on.
    pub runs: u32,
    /// `--simulate`: a simulated fleet instead of real nodes.
    pub simulated: Option<simulated::SimulatedFleet>,
}
