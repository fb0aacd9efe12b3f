//! Joining the MPI job a launcher started, for `measure` (two ranks, or a ring) and
//! `network --run` (one rank per communication end): refuse a launcher of the other MPI
//! library before `MPI_Init` (`crate::mpi::flavour::foreign_launcher`), initialise MPI at the
//! thread level the command needs, check that MPI sees the ranks the launcher started and as
//! many as the command needs, and (for `measure`) the rank-0 handshake that tells rank 0 on
//! which host each rank runs, recorded in the trace with the library and the launcher.
//!
//! MPI is finalised when the `Job` is dropped, under a watchdog: a rank whose
//! `MPI_Finalize` does not return ends by itself (`FINALIZE_WAIT`).

use crate::error::{Error, Result};
use crate::mpi::flavour::{self, Family, Library, StartedBy};
use crate::trace::MpiInfo;
use ::mpi::topology::Communicator;

pub use ::mpi::environment::Threading;
/// The communicator of every rank of the job (`MPI_COMM_WORLD`).
pub use ::mpi::topology::SimpleCommunicator as World;

/// This process as a rank of the job.
pub(crate) struct Job {
    pub(crate) world: World,
    /// The thread level the MPI library granted.
    pub(crate) granted: Threading,
    pub(crate) library: Library,
    /// Who started this rank, as the trace records it (`flavour::launcher_record`).
    pub(crate) launcher: String,
    /// Finalises MPI when dropped, after `world` (fields drop in order), watched.
    _finalize: Finalize,
}

/// How long a rank waits in `MPI_Finalize` before it ends itself. Finalising takes well
/// under a second; MPICH over UCX's TCP transport between two namespace hosts was seen
/// (twice, on a loaded 2-core machine) to hang in it for ever after the measurement was
/// saved, rank 0 waiting on the process manager and the sender spinning in UCX's progress,
/// which left the launcher, and the user's `measure`, waiting with it.
pub(crate) const FINALIZE_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// `MPI_Finalize` (the universe's drop) under a watchdog.
struct Finalize(Option<::mpi::environment::Universe>);

impl Drop for Finalize {
    fn drop(&mut self) {
        let universe = self.0.take();
        watched(
            move || drop(universe),
            FINALIZE_WAIT,
            || {
                eprintln!(
                    "contention: MPI_Finalize has not returned in {} s (a hang some MPI stacks \
                 have at teardown): this rank ends with status 1; what it measured was saved \
                 before",
                    FINALIZE_WAIT.as_secs()
                );
                // SAFETY: `_exit` ends the process at once and never returns; it runs no atexit
                // handler (the MPI library's could wait on the same hang) and no destructor of
                // this process's state, which is dropped or abandoned anyway.
                unsafe { libc::_exit(1) }
            },
        );
    }
}

/// Runs `finalize`, and `on_hang` on a thread of its own if `finalize` has not returned
/// within `wait` (it is then not waited for: `on_hang` decides, and the real one ends the
/// process).
fn watched(
    finalize: impl FnOnce(),
    wait: std::time::Duration,
    on_hang: impl FnOnce() + Send + 'static,
) {
    use std::sync::mpsc::{channel, RecvTimeoutError};
    // `returned` is dropped when `finalize` returns: the watchdog's wait then ends at once.
    let (returned, watch) = channel::<()>();
    std::thread::spawn(move || {
        if let Err(RecvTimeoutError::Timeout) = watch.recv_timeout(wait) {
            on_hang();
        }
    });
    finalize();
    drop(returned);
}

/// The MPI library this binary is linked with, from `MPI_Get_library_version` (one of the
/// few MPI calls allowed before `MPI_Init`: the launching process asks it too).
pub fn library() -> Library {
    Library::parse(&::mpi::environment::library_version().unwrap_or_else(|_| "unknown".into()))
}

/// Initialises MPI asking for `needs` (`Threading::Serialized` for `measure`, whose
/// communication thread calls MPI while the main thread waits; `Threading::Single`
/// otherwise), and checks the job has `ranks` ranks; when it has another number,
/// `wrong_size(got, own)` is the error, `own` the command line of the library's own launcher
/// for `ranks` ranks (`mpirun -np 2`, `mpiexec -n 2`), for its advice.
pub(crate) fn join(
    needs: Threading,
    ranks: usize,
    wrong_size: impl FnOnce(usize, &str) -> Error,
) -> Result<Job> {
    let job = init(needs)?;
    let size = job.world.size() as usize;
    if size != ranks {
        let own = job
            .library
            .family
            .unwrap_or(Family::OpenMpi)
            .own_line(ranks);
        return Err(wrong_size(size, &own));
    }
    Ok(job)
}

/// [`join`] without the check of the job's size: `contention survey`, whose job has one rank
/// per node, checks it against its manifest once rank 0 has read it.
pub(crate) fn init(needs: Threading) -> Result<Job> {
    let var = |k: &str| std::env::var(k).ok();
    let library = library();
    let started = StartedBy::detect(var);
    if let Some(refusal) = flavour::foreign_launcher(&library, &started) {
        return Err(first_rank_only(refusal, var));
    }
    let (universe, granted) = ::mpi::initialize_with_threading(needs)
        .ok_or_else(|| Error::Failed("MPI was already initialized".into()))?;
    if granted < needs {
        // Only `measure` asks for more than `Threading::Single`, which every MPI grants.
        return Err(Error::Failed(format!(
            "the MPI library grants thread level {granted:?}, but measure calls MPI from its \
             communication thread and needs MPI_THREAD_SERIALIZED; use an MPI built with \
             thread support"
        )));
    }
    let world = universe.world();
    // A launcher that started more processes than MPI sees in its job speaks another
    // start-up protocol: each process is a job of its own.
    if let Some(announced) = flavour::announced_size(var) {
        let got = world.size() as usize;
        if announced != got {
            let e = flavour::size_mismatch(&library, &started, announced, got);
            return Err(first_rank_only(e, var));
        }
    }
    Ok(Job {
        world,
        granted,
        launcher: flavour::launcher_record(var),
        library,
        _finalize: Finalize(Some(universe)),
    })
}

/// `e` on the launcher's rank 0 (or where no rank is known); the others exit with its status
/// without repeating it: the launcher prints every rank's output.
fn first_rank_only(e: Error, var: impl Fn(&str) -> Option<String>) -> Error {
    let rank = [
        "OMPI_COMM_WORLD_RANK",
        "PMI_RANK",
        "PMIX_RANK",
        "SLURM_PROCID",
    ]
    .iter()
    .find_map(|k| var(k)?.trim().parse::<u64>().ok());
    match rank {
        Some(r) if r > 0 => Error::Reported(e.exit_code()),
        _ => e,
    }
}

/// The tag of the host names of the rank-0 handshake ([`gather_hosts`]).
const TAG_HOST: i32 = 50;

/// The rank-0 handshake on `comm` (the world, or a survey pair's communicator): every other
/// rank sends `host` to rank 0 and gets `None`; rank 0 gets the host of every rank, in rank
/// order, its own first.
pub(crate) fn gather_hosts(comm: &World, host: &str) -> Option<Vec<String>> {
    if comm.rank() != 0 {
        crate::mpi::wire::send(&comm.process_at_rank(0), TAG_HOST, host.as_bytes());
        return None;
    }
    let mut hosts = vec![host.to_string()];
    for r in 1..comm.size() {
        let peer = crate::mpi::wire::receive::<u8>(&comm.process_at_rank(r), TAG_HOST);
        hosts.push(String::from_utf8_lossy(&peer).into_owned());
    }
    Some(hosts)
}

impl Job {
    /// The host this rank runs on, as the MPI library names it (`MPI_Get_processor_name`).
    pub(crate) fn host(&self) -> String {
        ::mpi::environment::processor_name().unwrap_or_else(|_| "unknown".into())
    }

    /// The rank-0 handshake: every other rank sends `host` (its [`Job::host`]) to rank 0 and
    /// gets `None`; rank 0 gets the host of every rank, in rank order, its own first.
    pub(crate) fn gather_hosts(&self, host: &str) -> Option<Vec<String>> {
        gather_hosts(&self.world, host)
    }

    /// What a trace records of the MPI job: the library, the thread level granted and the
    /// host of every rank (from [`Job::gather_hosts`]).
    pub(crate) fn info(&self, hosts: Vec<String>) -> MpiInfo {
        MpiInfo {
            library_version: self.library.version.clone(),
            thread_level: format!("{:?}", self.granted),
            hosts,
            library: Some(self.library.name.clone()),
            launcher: Some(self.launcher.clone()),
            stack: Some(crate::mpi::stack::this_process(&self.library.version)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    /// A finalize that never returns by itself: the watchdog's `on_hang` runs (here it
    /// releases the finalize instead of ending the process), with no clock in the verdict.
    #[test]
    fn a_finalize_that_hangs_is_ended_by_the_watchdog() {
        let (release, hung) = mpsc::channel::<()>();
        let (told, heard) = mpsc::channel::<()>();
        watched(
            move || hung.recv().expect("the watchdog releases it"),
            Duration::from_millis(10),
            move || {
                told.send(()).unwrap();
                release.send(()).unwrap();
            },
        );
        assert!(heard.try_recv().is_ok(), "on_hang did not run");
    }

    /// A finalize that returns in time is left alone: nothing is heard from the watchdog
    /// past its wait.
    #[test]
    fn a_finalize_that_returns_is_left_alone() {
        let (told, heard) = mpsc::channel::<()>();
        watched(
            || {},
            Duration::from_secs(1),
            move || told.send(()).unwrap(),
        );
        assert!(heard.recv_timeout(Duration::from_secs(3)).is_err());
    }
}
