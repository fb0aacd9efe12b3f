//! `contention measure`: the benchmark of section 4.1.1 of the paper. Its threads are pinned
//! through `crate::sys`, the OS calls it shares with `sensitivity`; the machine it runs on is
//! described by [`crate::machine`], its kernels are [`crate::kernels`], and the MPI job around
//! it is [`crate::mpi`]'s.
//!
//! - [`sweep`]: the timed sweep on rank 0 (communication stream, sampling, sizing, the
//!   trace's lock).
//! - [`rank0`]: rank 0's measurement on a given communicator; [`sender`]: the ranks that
//!   send.
//! - [`choices`]: the communication pattern a measurement chooses; [`options`]: what a
//!   measurement is asked to do, as plain values; [`session`]: those options resolved
//!   against the machine, and the sweep that keeps the trace on disk (it takes the options,
//!   never the command line); [`describe`]: the `--dry-run` plan that says what the session
//!   decided.
//! - [`adaptive`]: what `--adaptive` asks, and the traits through which the sweep asks an
//!   experiment design (`crate::design`) which core count to measure next.
//! - [`crate::runs`] (below it, as the analysis reads runs too): repeated runs of a sweep
//!   (`--runs`): each run's shuffled order, which run a launch measures, and the points
//!   that combine them with intervals across runs.
//! - [`job`]: `measure` as a job driven by plain options: the plan, the launches (one per
//!   run), each rank's side, or a simulated machine; the command line only checks its
//!   arguments into them.
//! - `gpu_job`: the same session with a GPU's copies as the communication stream
//!   (`--engine gpu`, [`crate::gpu`]), in one process: no MPI job, no sender.
//! - [`simulation`]: the same session on a simulated machine (`--simulate`): no MPI, no
//!   binding, a simulated clock.
//! - `trace_size`: how large a plan's trace can grow, refused past what the readers take.

pub mod adaptive;
pub mod choices;
pub mod describe;
#[cfg(feature = "mpi")]
pub(crate) mod gpu_job;
pub mod job;
pub mod options;
#[cfg(feature = "mpi")]
pub mod rank0;
#[cfg(feature = "mpi")]
pub mod sender;
pub mod session;
pub mod simulation;
pub mod sweep;
pub(crate) mod trace_size;
