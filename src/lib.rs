//! `contention`: measure, model and predict memory contention between MPI communications and
//! memory-bound computations, after Denis, Jeannot and Swartvagher (RR-9451, 2022).
//!
//! Where things live:
//! - [`model`]: the paper's equations, pure functions of typed parameters.
//! - [`io`]: model files, output files (everything that touches the file system).
//! - [`export`]: the formats a report is written in (table, JSON, CSV).
//! - [`plot`]: the paper's figures, rendered in memory as SVG or PNG.
//! - [`commands`]: one module per subcommand, gluing the above; [`cli`] their arguments.

pub mod cli;
pub mod commands;
pub mod cores;
pub mod error;
pub mod export;
pub mod io;
pub mod model;
pub mod plot;
pub mod provenance;
pub mod report;
pub mod trace;

pub use error::{Error, Result};
