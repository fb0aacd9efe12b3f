//! `contention measure`: the benchmark of section 4.1.1 of the paper. This is the only part of
//! the crate with MPI and intrinsics; its threads are pinned through `crate::sys`, the OS
//! calls it shares with `sensitivity`.
//!
//! - [`topology`]: the machine from hwloc, as plain data.
//! - [`plan`]: which cores compute, which core communicates, which nodes hold the buffers.
//! - [`options`]: what a measurement is asked to do, as plain values ([`choices`]: its
//!   enums); [`session`] takes them, never the command line.
//! - [`mpi`]: joining the MPI job; [`sender`]: the ranks that send.
//! - [`flavour`]: which MPI library the binary runs on and which launcher starts its ranks;
//!   [`launch`]: that launcher's command line, and running it.
//! - [`settings`]: the node's settings that change memory bandwidth (THP, governors, SNC);
//!   [`sizing`]: buffer sizes and timing from the caches and free memory; [`memory`]:
//!   buffers bound to a NUMA node.
//! - [`rank0`]: rank 0's whole part of one measurement; [`run`]: its sweep, phase by phase;
//!   [`workload`] and [`kernel`]: what a computing thread does; [`comm`]: the communication
//!   stream; [`sampling`]: steady-state samples from raw timings; [`progress`]: the progress
//!   line; [`signals`]: Ctrl-C and SIGTERM mid-sweep; [`lock`]: one measurement per trace.
//! - [`survey`]: the ranks of `contention survey`'s job; [`graph`]: a network contention
//!   graph run for real (`contention network --run`).

pub mod choices;
pub mod comm;
pub mod flavour;
pub mod graph;
pub mod kernel;
pub mod launch;
pub mod lock;
pub mod memory;
pub mod mpi;
pub mod options;
pub mod plan;
pub mod progress;
pub mod rank0;
pub mod run;
pub mod sampling;
pub mod sender;
pub mod session;
pub mod settings;
pub mod signals;
pub mod sizing;
pub mod survey;
pub mod topology;
pub mod workload;
