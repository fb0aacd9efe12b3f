//! Writers of a [`PredictReport`](crate::report::PredictReport), one file per format.

pub mod csv;
pub mod json;
pub mod table;
