//! `contention`: measure, model and predict memory contention between MPI communications and
//! memory-bound computations, after Denis, Jeannot and Swartvagher (RR-9451, 2022).
//!
//! Where things live, by layer, the lower ones last. Each layer below the command line is a
//! crate of its own (a member of this workspace, in the folder of its name), so the compiler
//! holds that no import runs back up; each is re-exported here under the paths it always
//! had:
//! - `commands`: one module per subcommand, gluing the layers below; `cli` their arguments.
//!   Both need the default feature `cli` (clap); without it the library builds without clap,
//!   and a program drives a measurement through [`measure::options::MeasureOptions`].
//! - The benchmark, `contention-bench` (`bench/`): [`measure`], the sweep and its session;
//!   [`mpi`], the MPI job around it; [`gpu`], the other communication stream, a GPU's
//!   copies (`measure --engine gpu`); [`survey`], every node of an allocation in one job;
//!   [`machine`], the node as plain data and the plan of which core does what; [`kernels`],
//!   the compute kernels; [`sensitivity`], an application's loss as its memory bandwidth
//!   shrinks; [`design`], which point to measure next (`measure --adaptive`). The only layer
//!   with threads, MPI, pinning and intrinsics, and the only one the default feature `mpi`
//!   (rsmpi, hwloc) reaches.
//! - The reports and figures, `contention-present` (`present/`), beside the benchmark:
//!   [`report`], every output: the [`report::Report`] trait, one file per report and its
//!   writers (table, JSON, CSV); [`plot`], the paper's figures, rendered in memory as SVG or
//!   PNG.
//! - The analysis, `contention-analysis` (`analysis/`), which builds with no MPI, hwloc or GPU
//!   runtime: [`dataset`], [`calibrate`], [`evaluate`] (measurements as sweeps, the
//!   parameters read off them, the model's error on them); [`plausible`]; [`fleet`] and
//!   [`check`] (a survey's fleet report, the drift rule); [`io`], [`trace`], [`runs`],
//!   [`point_line`], [`results`] (files, traces, repeated runs, a point's line, the default
//!   place of results); [`simulate`] (simulated machines); [`overlap`] (Langguth et al.'s
//!   step time); [`stats`], [`provenance`], [`header`], [`timestamp`], [`error`].
//! - The lowest layer, `contention-model` (`model/`): it does no I/O and names nothing above
//!   it: [`model`], the paper's equations, pure functions of typed parameters; [`network`],
//!   Martinasso and Méhaut's contention between concurrent communications in the network;
//!   [`units`], the units of every number; [`cores`], core-count lists as users type them
//!   (`1..4,8`).

#[cfg(feature = "cli")]
pub mod cli;
#[cfg(feature = "cli")]
pub mod commands;

// The layers below, crates of their own, under the paths the rest of this crate and its
// users have always named: the benchmark (`contention-bench`), the reports and figures
// (`contention-present`), the analysis (`contention-analysis`) and, below it, the model
// (`contention-model`).
// Every module of the analysis (and through it the model's), by one glob so that a module
// added there needs no line here; the benchmark's `sensitivity` and `survey`, named below,
// take precedence over the analysis's modules of those names, as they always did.
pub use contention_analysis::*;
pub use contention_bench::{design, gpu, kernels, machine, measure, mpi, sensitivity, survey};
pub use contention_present::{plot, report};
pub use error::{Error, Result};
