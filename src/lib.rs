//! `contention`: measure, model and predict memory contention between MPI communications and
//! memory-bound computations, after Denis, Jeannot and Swartvagher (RR-9451, 2022).
//!
//! Where things live (every module declared below, by layer, the lower ones last):
//! - `commands`: one module per subcommand, gluing the library below; `cli` their arguments. Both
//!   need the default feature `cli` (clap); without it the library builds without clap, and
//!   a program drives a measurement through [`measure::options::MeasureOptions`].
//! - [`report`]: every output: the [`report::Report`] trait, one file per report and its
//!   writers (table, JSON, CSV); [`plot`]: the paper's figures, rendered in memory as SVG or
//!   PNG.
//! - `survey`: every node of an allocation measured in one MPI job; [`fleet`]: the fleet
//!   report of a survey: one model per node, the outliers named; [`check`]: the drift rule
//!   of `contention check`, for one machine and for a fleet.
//! - [`measure`]: the benchmark; [`mpi`]: the MPI job around it, a survey's and `network
//!   --run`'s; [`machine`]: the node as plain data (topology, settings, bound memory) and the
//!   plan of which core does what; [`kernels`]: the compute kernels (with their intrinsics),
//!   for it and for [`sensitivity`], an application's loss as its memory bandwidth shrinks;
//!   `sys`: the OS calls on where threads run (CPU sets, pinning, thread and user ids).
//! - [`dataset`], [`calibrate`], [`evaluate`]: measurements as sweeps per placement, the
//!   parameters read off them (section 3.1), the model's error on them (section 4.2);
//!   [`design`]: which point to measure next, with that fit (`measure --adaptive`);
//!   [`plausible`]: the measurements refused as impossible.
//! - [`io`]: model files, traces, CSV, output files (everything that touches the file system);
//!   [`trace`]: the measurement trace `measure` writes, as types; `results`: the default
//!   place of traces and models, per host.
//! - [`simulate`]: simulated machines, a known truth and seeded noisy draws from it, so the
//!   sweep and the fit are judged in seconds without a node.
//! - `overlap`: Langguth et al.'s time of an overlapped step, and `advise` built on it.
//! - The lowest layer is a crate of its own, `contention-model` (folder `model/`), so the
//!   compiler holds that it does no I/O and names nothing above it; re-exported here under
//!   the paths it always had: [`model`], the paper's equations, pure functions of typed
//!   parameters; [`network`], Martinasso and Méhaut's contention between concurrent
//!   communications in the network; [`units`], the units of every number (byte sizes as
//!   typed, the `units` block of the JSON); [`cores`], core-count lists as users type them
//!   (`1..4,8`).
//! - [`stats`]: medians, spreads
//!   and quantiles of noisy samples; [`provenance`]: the build that produced an output;
//!   `header`: the fields every report opens with (which layout, build, model, machine);
//!   [`timestamp`]: UTC timestamps in RFC 3339; [`error`]: the errors the user sees and
//!   their exit status.

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
pub mod plot;
pub mod report;
pub mod sensitivity;
pub mod survey;
pub(crate) mod sys;

// The layers below, crates of their own, under the paths the rest of this crate and its
// users have always named: the analysis (`contention-analysis`) and, below it, the model
// (`contention-model`).
pub use contention_analysis::{
    calibrate, check, dataset, error, evaluate, fleet, header, io, overlap, plausible, provenance,
    results, runs, simulate, stats, timestamp, trace,
};
pub use contention_analysis::{cores, model, network, units};
pub use error::{Error, Result};
