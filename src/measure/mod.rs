//! `contention measure`: the benchmark of section 4.1.1 of the paper. This is the only part of
//! the crate with MPI and intrinsics; its threads are pinned through `crate::sys`, the OS
//! calls it shares with `sensitivity`.
//!
//! Three rooms, each importing only those before it, and the request that ties them:
//!
//! - [`machine`]: the node as plain data (hwloc topology, OS settings, bound memory) and the
//!   pure plan of which cores compute, which core communicates, which nodes hold the buffers.
//! - [`sweep`]: the timed sweep on rank 0 (kernels, communication stream, sampling, sizing,
//!   progress, the trace's lock).
//! - [`job`]: the MPI job around the sweep: which MPI library and launcher, the launcher's
//!   command line, joining the job, the ranks (rank 0, the senders, `network --run`'s
//!   graph), signals.
//! - [`choices`]: the enums a measurement chooses from (kernel, pattern, launcher);
//!   [`options`]: what a measurement is asked to do, as plain values; [`session`]: those
//!   options resolved against the machine, the `--dry-run` plan, and the sweep that keeps
//!   the trace on disk. [`session`] takes the options, never the command line.
//! - [`adaptive`]: which core count to measure next, from the fit's bootstrap
//!   (`--adaptive`).
//! - [`runs`]: repeated runs of a sweep (`--runs`): each run's shuffled order, which run a
//!   launch measures, and the points that combine them with intervals across runs.
//! - [`simulation`]: the same session on a simulated machine (`--simulate`): no MPI, no
//!   binding, a simulated clock.

pub mod adaptive;
pub mod choices;
pub mod job;
pub mod machine;
pub mod options;
pub mod runs;
pub mod session;
pub mod simulation;
pub mod sweep;
