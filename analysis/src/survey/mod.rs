//! A survey's record, which the analysis reads back: its folder's manifest (`survey.json`,
//! [`manifest`]) and what can stop a survey ([`error`]). The survey itself, the MPI job that
//! measures every node, is the benchmark's (`contention-bench`), above this crate.

pub mod error;
pub mod manifest;
