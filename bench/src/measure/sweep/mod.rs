//! Rank 0's timed sweep (section 4.1.1, steps 1-3): the threads that compute and communicate,
//! how their timings become samples, and how big and how finely timed the buffers are.
//!
//! - [`rules`]: the sweep's decisions: phase order, stop rules, starvation, what a point
//!   records. `run`: the threads (and MPI) that run a phase for them (the `mpi` feature).
//! - [`simulated`]: the same sweep on a simulated machine and clock (`measure --simulate`).
//! - the kernels a computing thread runs are [`crate::kernels`]'.
//! - `comm`: the communication stream and its patterns (pong, pingpong, ring).
//! - [`sampling`]: from raw timings to steady-state samples.
//! - [`sizing`]: buffer sizes and sample lengths from the caches, the cores and `--max-phase`.
//! - [`lock`]: one run per trace, held while the sweep saves it after every point.

#[cfg(feature = "mpi")]
pub mod comm;
pub mod lock;
pub mod rules;
#[cfg(feature = "mpi")]
pub mod run;
pub mod sampling;
pub mod simulated;
pub mod sizing;
