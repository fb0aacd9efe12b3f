//! The reports and figures of `contention`: how every result reaches the user. Above the
//! analysis (`contention-analysis`), whose results it shows, and beside the benchmark, which
//! it never names: an edit here rebuilds this crate and the binary, nothing below.
//!
//! - [`report`]: every output: the [`report::Report`] trait, one file per report and its
//!   writers (table, JSON, CSV), and `emit`, the one way a command writes one.
//! - [`plot`]: the paper's figures (and a fleet's, a sensitivity curve's), rendered in
//!   memory as SVG or PNG.
//! - The layers below, re-exported under the paths this crate names them by: the analysis's
//!   modules and, through it, the model's ([`model`], [`network`], [`units`], [`cores`]).

pub mod plot;
pub mod report;

// Every module of the analysis (and through it the model's `model`, `network`, `units`,
// `cores`), by one glob so that a module added there needs no line here.
pub use contention_analysis::*;
pub use error::{Error, Result};
