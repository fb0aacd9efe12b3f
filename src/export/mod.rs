//! Writers of the reports, one file per format; `evaluation` holds the table and CSV of
//! `evaluate` (its JSON is [`json::render`]).

pub mod csv;
pub mod evaluation;
pub mod json;
pub mod network;
pub mod table;
