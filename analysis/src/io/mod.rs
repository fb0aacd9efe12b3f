//! Everything that touches files: model files, prediction reports, atomic writes.
//!
//! - [`read`]: every file the user names, read with a bound on its size (or `-`, standard
//!   input); [`atomic`]: every file written, replaced whole or not at all.
//! - [`inputs`]: the one reader of measurement files, traces ([`trace_file`]) or tidy CSV
//!   ([`tidy_csv`]); [`model_file`]: a model file, validated; [`graph_file`]: a network
//!   contention graph and its explicit penalties.
//! - [`output`]: where a report goes (standard output or a file) and the one form of every
//!   JSON the tool writes.

pub mod atomic;
pub mod graph_file;
pub mod inputs;
pub mod model_file;
pub mod output;
pub mod read;
pub mod tidy_csv;
pub mod trace_file;
