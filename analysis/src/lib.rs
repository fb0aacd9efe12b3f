//! The analysis of `contention`: everything between a measurement and a verdict that needs no
//! MPI, no hwloc and no GPU runtime, so `predict`, `calibrate`, `evaluate`, `check`, `plot`
//! and the simulated machines build and run on a laptop or a CI runner with none installed.
//! The compiler holds the layering: this crate names the model below it
//! (`contention-model`) and nothing above it (the benchmark, the reports and figures, the
//! command line).
//!
//! Where things live:
//! - [`dataset`], [`calibrate`], [`evaluate`]: measurements as sweeps per placement, the
//!   parameters read off them (section 3.1 of Denis, Jeannot and Swartvagher), the model's
//!   error on them (section 4.2); [`plausible`]: the measurements refused as impossible.
//! - [`fleet`]: the fleet report of a survey, one model per node, the outliers named;
//!   [`check`]: the drift rule of `contention check`, for one machine and for a fleet;
//!   [`survey`]: a survey's record (its manifest) and what can stop one; [`sensitivity`]:
//!   the report of `contention sensitivity` and its metric (Foyer and Goglin).
//! - [`io`]: model files, traces, CSV, output files (everything that touches the file
//!   system); [`trace`]: the measurement trace as types ([`pcie`]: a GPU's link of it in
//!   words); [`runs`]: repeated runs of a sweep
//!   and the points that combine them; [`point_line`]: a measured point as the line `measure`
//!   logs and `show` prints again; [`results`]: the default place of traces and models,
//!   per host.
//! - [`simulate`]: simulated machines, a known truth and seeded noisy draws from it, so the
//!   sweep and the fit are judged in seconds without a node.
//! - [`overlap`]: Langguth et al.'s time of an overlapped step, and `advise` built on it.
//! - [`stats`]: medians, spreads and quantiles of noisy samples; [`provenance`]: the build
//!   that produced an output; [`header`]: the fields every report opens with (which layout,
//!   build, model, machine); [`timestamp`]: UTC timestamps in RFC 3339; [`error`]: the
//!   errors the user sees and their exit status.
//! - The model below, re-exported under the paths the analysis names it by: [`model`], the
//!   paper's equations; [`network`], Martinasso and Méhaut's contention graphs; [`units`];
//!   [`cores`], core-count lists as users type them.

pub mod calibrate;
pub mod check;
pub mod dataset;
pub mod error;
pub mod evaluate;
pub mod fleet;
pub mod header;
pub mod io;
pub mod overlap;
pub mod pcie;
pub mod plausible;
pub mod point_line;
pub mod provenance;
pub mod results;
pub mod runs;
pub mod sensitivity;
pub mod simulate;
pub mod stats;
pub mod survey;
pub mod timestamp;
pub mod trace;

pub use error::{Error, Result};

pub use contention_model as model;
pub use contention_model::{cores, network, units};
