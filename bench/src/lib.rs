//! The benchmark of `contention`: everything that runs on the node being measured. The only
//! crate with threads, MPI, pinning and intrinsics; above the analysis
//! (`contention-analysis`), which turns its traces into models and verdicts, and beside the
//! reports and figures, which it never names.
//!
//! - [`measure`]: the benchmark itself, the sweep of computations against communications
//!   (Denis, Jeannot and Swartvagher, sections 2-3) and the session that keeps its trace;
//!   [`design`]: which point to measure next, with the fit (`measure --adaptive`).
//! - [`gpu`]: the other communication stream, a GPU's copy engines moving bytes by DMA
//!   between the GPU and pinned host memory (`measure --engine gpu`), no MPI job.
//! - [`mpi`]: the MPI job around it, a survey's and `network --run`'s: the launcher, the
//!   ranks, the signals, the one driver that starts and waits for a job.
//! - [`survey`]: every node of an allocation measured in one MPI job.
//! - [`machine`]: the node as plain data (topology, settings, bound memory) and the plan of
//!   which core does what; [`kernels`]: the compute kernels (with their intrinsics), for the
//!   sweep and for [`sensitivity`], an application's loss as its memory bandwidth shrinks
//!   (Foyer and Goglin); `sys`: the OS calls on where threads run (CPU sets, pinning, thread
//!   and user ids).
//! - The layers below, re-exported under the paths this crate names them by: the analysis's
//!   modules and, through it, the model's ([`model`], [`network`], [`units`], [`cores`]).
//!
//! The `mpi` feature (MPI and hwloc) is the only user of rsmpi and hwlocality; without it
//! the plans, dry runs and simulated machines build, and a real measurement says which build
//! it needs (`mpi::built_without_mpi`).

// Without `mpi` (no MPI, no hwloc) what only a job on a real node reaches (launch lines,
// pinning checks, the buffers' page checks) is compiled but unused.
#![cfg_attr(not(feature = "mpi"), allow(dead_code, unused_imports))]

pub mod design;
pub mod gpu;
pub mod kernels;
pub mod machine;
pub mod measure;
pub mod mpi;
pub mod sensitivity;
pub mod survey;
pub(crate) mod sys;

// Every module of the analysis (and through it the model's `model`, `network`, `units`,
// `cores`), by one glob so that a module added there needs no line here; a module of this
// crate's own of the same name (the benchmark's `sensitivity` and `survey`) takes precedence.
pub use contention_analysis::*;
pub use error::{Error, Result};
