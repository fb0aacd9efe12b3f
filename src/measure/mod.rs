//! `contention measure`: the benchmark of section 4.1.1 of the paper. This is the only part of
//! the crate with threads, MPI, pinning and intrinsics.
//!
//! - [`topology`]: the machine from hwloc, as plain data.
//! - [`plan`]: which cores compute, which core communicates, which nodes hold the buffers.

pub mod comm;
pub mod graph;
pub mod kernel;
pub mod launch;
pub mod lock;
pub mod memory;
pub mod plan;
pub mod progress;
pub mod run;
pub mod sampling;
pub mod sender;
pub mod session;
pub mod settings;
pub mod signals;
pub mod survey;
pub mod topology;
pub mod workload;
