//! `contention survey`: every node of an allocation measured by `measure`'s sweep in one MPI
//! job, in rounds of pairs (a measured node, a sender on another node), with a manifest that
//! records what finished so a cut job can be resumed.
//!
//! - [`pairing`]: the rounds (pure, property-tested);
//! - [`plan`]: hosts, time limits, launcher line and the `--dry-run` text;
//! - [`manifest`]: `survey.json`, its statuses and the `--resume` checks;
//! - [`job`]: the driver that starts the job and watches its rounds.
//!
//! The ranks' side (MPI, sub-communicators) lives with the rest of the MPI code in
//! `crate::measure::survey`.

pub mod job;
pub mod manifest;
pub mod pairing;
pub mod plan;
