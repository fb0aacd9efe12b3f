//! The machine a measurement runs on, as plain data, and the pure decisions made from it:
//! nothing here times anything or joins MPI.
//!
//! - [`topology`]: the machine from hwloc (or a saved XML, a synthetic description).
//! - [`plan`]: which cores compute, which core communicates, which nodes hold the buffers.
//! - [`settings`]: the node's settings that change memory bandwidth (`/sys`, `/proc`).
//! - [`memory`]: buffers bound to a NUMA node, and a node's free memory.

pub mod memory;
pub mod plan;
pub mod settings;
pub mod topology;
