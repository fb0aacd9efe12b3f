//! Writers of the reports, one file per format; `evaluation` holds the table and CSV of
//! `evaluate` (its JSON is [`json::render`]); `overlap` and `advice` the reports and tables of
//! `overlap` and `advise`.

pub mod advice;
pub mod csv;
pub mod evaluation;
pub mod json;
pub mod network;
pub mod overlap;
pub mod table;
