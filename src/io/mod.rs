//! Everything that touches files: model files, prediction reports, atomic writes.

pub mod atomic;
pub mod graph_file;
pub mod inputs;
pub mod model_file;
pub mod output;
pub mod read;
pub mod tidy_csv;
pub mod trace_file;
