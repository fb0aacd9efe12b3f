//! `contention`: measure, model and predict memory contention between MPI communications and
//! memory-bound computations, after Denis, Jeannot and Swartvagher (RR-9451, 2022).
//!
//! Where things live, by layer, the lower ones last; each layer below this crate is a crate
//! of its own, so the compiler holds that no import runs back up:
//! - `commands`: one module per subcommand, gluing the library below; `cli` their arguments. Both
//!   need the default feature `cli` (clap); without it the library builds without clap, and
//!   a program drives a measurement through [`measure::options::MeasureOptions`].
//! - The reports and figures, the crate `contention-present` (folder `present/`), beside
//!   the benchmark and re-exported here: [`report`], every output: the [`report::Report`]
//!   trait, one file per report and its writers (table, JSON, CSV); [`plot`], the paper's
//!   figures, rendered in memory as SVG or PNG.
//! - `survey`: every node of an allocation measured in one MPI job.
//! - [`measure`]: the benchmark; [`mpi`]: the MPI job around it, a survey's and `network
//!   --run`'s; [`machine`]: the node as plain data (topology, settings, bound memory) and the
//!   plan of which core does what; [`kernels`]: the compute kernels (with their intrinsics),
//!   for it and for [`sensitivity`], an application's loss as its memory bandwidth shrinks;
//!   `sys`: the OS calls on where threads run (CPU sets, pinning, thread and user ids);
//!   [`design`]: which point to measure next, with the fit (`measure --adaptive`).
//! - The analysis, the crate `contention-analysis` (folder `analysis/`), which builds with no
//!   MPI, hwloc or GPU runtime, re-exported here under the paths it always had: [`dataset`],
//!   [`calibrate`], [`evaluate`] (measurements as sweeps, the parameters read off them, the
//!   model's error on them); [`plausible`]; [`fleet`] and [`check`] (a survey's fleet report,
//!   the drift rule); [`io`], [`trace`], [`runs`], [`results`] (files, traces, repeated runs,
//!   the default place of results); [`simulate`] (simulated machines); [`overlap`] (Langguth
//!   et al.'s step time); [`stats`], [`provenance`], [`header`], [`timestamp`], [`error`].
//! - The lowest layer, the crate `contention-model` (folder `model/`): it does no I/O and
//!   names nothing above it; re-exported under the same paths: [`model`], the paper's
//!   equations, pure functions of typed parameters; [`network`], Martinasso and Méhaut's
//!   contention between concurrent communications in the network; [`units`], the units of
//!   every number; [`cores`], core-count lists as users type them (`1..4,8`).

// Without `cli` the library serves a program that drives a measurement: what only the
// subcommands reach (report writers, `advise`, figures) is compiled but unused there, and
// making it `pub` to quiet that would make it public API by accident. Without `mpi` (no MPI,
// no hwloc) the same holds for what only a job on a real node reaches (launch lines, pinning
// checks, the buffers' page checks): compiled, unused.
#![cfg_attr(
    not(all(feature = "cli", feature = "mpi")),
    allow(dead_code, unused_imports)
)]

#[cfg(feature = "cli")]
pub mod cli;
#[cfg(feature = "cli")]
pub mod commands;
pub mod design;
pub mod kernels;
pub mod machine;
pub mod measure;
pub mod mpi;
pub mod sensitivity;
pub mod survey;
pub(crate) mod sys;

// The layers below, crates of their own, under the paths the rest of this crate and its
// users have always named: the reports and figures (`contention-present`), the analysis
// (`contention-analysis`) and, below it, the model (`contention-model`).
pub use contention_analysis::{
    calibrate, check, dataset, error, evaluate, fleet, header, io, overlap, plausible, point_line,
    provenance, results, runs, simulate, stats, timestamp, trace,
};
pub use contention_analysis::{cores, model, network, units};
pub use contention_present::{plot, report};
pub use error::{Error, Result};
