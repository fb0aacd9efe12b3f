//! The writers of the reports, one file per report or format; each report type implements
//! [`crate::report::Report`] beside its writers, and [`crate::report::emit`] writes it.
//!
//! - [`table`], [`csv`]: the prediction (`predict`) as a table and as tidy CSV.
//! - [`evaluation`]: the table and CSV of `evaluate`.
//! - [`advice`], [`overlap`], [`network`], [`check`]: the reports of `advise`, `overlap`,
//!   `network` and `check`, and their writers.

pub mod advice;
pub mod check;
pub mod csv;
pub mod evaluation;
pub mod network;
pub mod overlap;
pub mod table;
