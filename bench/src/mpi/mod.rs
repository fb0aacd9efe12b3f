//! The MPI job around a measurement, shared by `measure`, `survey` and `network --run`:
//! started from a shell, `contention` starts itself again under a launcher; run under it,
//! each rank joins the job and plays its part (the parts are the callers': `measure`'s rank 0
//! and senders, a survey's pairs, a contention graph's communications).
//!
//! - [`driver`]: what they do alike: tell a rank from the command that starts the job, plan
//!   the line that starts this command again, start it and wait for its exit status.
//! - [`flavour`]: which MPI library the binary runs on and which launcher starts its ranks.
//! - [`launch`]: that launcher's command line, and the process that runs it.
//! - [`world`]: joining the MPI job; [`stack`]: which point-to-point stack (the fabric) the
//!   library picked there.
//! - [`graph`]: a contention graph run with MPI (`network --run`), the ranks' side;
//!   [`graph_job`]: the job around it (its launch from a shell, each rank joining it).
//! - [`signals`]: stop, forward, die with the launcher; [`progress`]: the progress bar or
//!   log lines on standard error.
//! - [`wire`]: control messages of any length with plain receives (no matched probe, which
//!   libfabric's stack of Open MPI fails).

pub mod driver;
pub mod flavour;
#[cfg(feature = "mpi")]
pub mod graph;
#[cfg(feature = "mpi")]
pub mod graph_job;
pub mod launch;
pub mod progress;
pub mod signals;
pub mod stack;
#[cfg(feature = "mpi")]
pub mod wire;
#[cfg(feature = "mpi")]
pub mod world;

/// What a command that runs on a real node (an MPI job, pinned threads, bound buffers) says
/// in a binary built without the `mpi` feature: which build has it. The user's to fix
/// (exit 2): the analysis commands and `--simulate` work in this build.
#[cfg(not(feature = "mpi"))]
pub fn built_without_mpi(what: &str, simulated: bool) -> crate::error::Error {
    let here = if simulated {
        "; here, --simulate paper:MACHINE runs the same on a simulated machine"
    } else {
        ""
    };
    crate::error::Error::Input(format!(
        "{what} needs MPI and hwloc, and this contention was built without them (the `mpi` \
         feature off, for machines with neither installed): on the node to measure, install an \
         MPI library and hwloc (Debian: `apt-get install libopenmpi-dev openmpi-bin \
         libhwloc-dev`) and build with the default features (`cargo install --path .`){here}"
    ))
}
