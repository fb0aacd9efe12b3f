//! The machine a measurement runs on, as plain data, and the pure decisions made from it:
//! nothing here times anything or joins MPI.
//!
//! - [`layout`]: the machine as plain data (sockets, cores, NUMA nodes, caches, cards).
//! - `topology`: that layout read from hwloc (or a saved XML, a synthetic description);
//!   built with the `mpi` feature.
//! - [`plan`]: which cores compute, which core communicates, which nodes hold the buffers.
//! - [`settings`]: the node's settings that change memory bandwidth (`/sys`, `/proc`).
//! - [`memory`]: buffers bound to a NUMA node, and a node's free memory.

pub mod layout;
pub mod memory;
pub mod plan;
pub mod settings;
#[cfg(feature = "mpi")]
pub mod topology;
