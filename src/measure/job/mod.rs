//! The MPI job around a measurement: started from a shell, `contention` starts itself again
//! under a launcher; run under it, each rank joins the job and plays its part.
//!
//! - [`driver`]: what measure, `network --run` and survey do alike: tell a rank from the
//!   command that starts the job, plan the line that starts this command again, start it
//!   and wait for its exit status.
//! - [`flavour`]: which MPI library the binary runs on and which launcher starts its ranks.
//! - [`launch`]: that launcher's command line, and the process that runs it.
//! - [`mpi`]: joining the MPI job; [`stack`]: which point-to-point stack (the fabric) the
//!   library picked there.
//! - [`rank0`]: rank 0's measurement on a given communicator; [`sender`]: the ranks that
//!   send.
//! - [`graph`]: a contention graph run with MPI (`network --run`).
//! - [`signals`]: stop, forward, die with the launcher.
//! - [`wire`]: control messages of any length with plain receives (no matched probe, which
//!   libfabric's stack of Open MPI fails).

pub mod driver;
pub mod flavour;
pub mod graph;
pub mod launch;
pub mod mpi;
pub mod rank0;
pub mod sender;
pub mod signals;
pub mod stack;
pub mod wire;
