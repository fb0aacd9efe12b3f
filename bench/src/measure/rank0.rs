//! Rank 0's whole part of one measurement, on the communicator it is given: the world of
//! `contention measure`'s job, or the two-rank communicator of one pair of a `contention
//! survey` round. Plans on this machine, places the senders (the other ranks of `comm`, which
//! run `crate::measure::sender::serve_rank`), runs the sweep of section 4.1.1 and writes the trace;
//! and whatever happens, even a panic, tells the senders to stop.

use crate::error::{Error, Result};
use crate::machine::settings;
use crate::measure::options::MeasureOptions;
use crate::measure::sender;
use crate::measure::session::{self, Rank0};
use crate::measure::sweep::comm;
use crate::mpi::launch;
use crate::mpi::progress;
use crate::mpi::world::World;
use crate::trace::MpiInfo;
use std::path::Path;

/// Measures on `world` as its rank 0 (`mpi`: the job as the trace records it, from
/// `crate::mpi::world::Job::info`), then shuts the other ranks down. `quiet`: no plan and no
/// progress on standard error.
pub(crate) fn measure(
    options: &MeasureOptions,
    quiet: bool,
    mpi: MpiInfo,
    interrupted: &'static std::sync::atomic::AtomicBool,
    world: &World,
) -> Result<()> {
    // Whatever happens on rank 0, even a bug that panics, the other ranks must be told to
    // stop, or every rank would wait for the others in MPI_Finalize.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rank0(options, quiet, mpi, interrupted, world)
    }));
    comm::shutdown(world);
    result.unwrap_or_else(|_| {
        Err(Error::Failed(
            "internal error on rank 0 (the panic message is above); finished points are \
             saved; please report this"
                .into(),
        ))
    })
}

fn rank0(
    options: &MeasureOptions,
    quiet: bool,
    mpi: MpiInfo,
    interrupted: &'static std::sync::atomic::AtomicBool,
    world: &World,
) -> Result<()> {
    let transport = session::transport(&mpi.hosts);
    let rank1_here = transport.kind == crate::trace::TransportKind::IntraNode;
    let session::Placed {
        topology: topo,
        layout,
        resolved,
        trace: trace_path,
    } = session::place(options, None, true, rank1_here)?;
    session::check_output(options, &trace_path)?;
    let settings = settings::read_settings(Path::new("/"), Some(layout.numa_per_socket()));
    let mode =
        progress::Mode::from_env_or_terminal(std::env::var(launch::PROGRESS_ENV).ok(), quiet);
    if mode != progress::Mode::Quiet {
        crate::measure::describe::say_plan(&layout, &resolved, &transport, &settings);
        if let Some(s) = &mpi.stack {
            eprintln!("stack       {}", crate::mpi::stack::describe(s));
        }
    }
    let sender = sender::place_ranks(
        world,
        &resolved.sender,
        transport.kind,
        !options.no_bind,
        resolved.sizing().message_buffers,
    )?;
    let again = session::same_command_again();
    let r0 = Rank0 {
        options,
        topology: &topo,
        layout: &layout,
        resolved,
        mpi,
        transport,
        sender: Some(sender),
        settings: Some(settings),
        progress: mode,
        interrupted,
        stream: crate::measure::sweep::run::CommStream::Mpi(comm::Handle::of(world)),
        gpu: None,
        again: again.clone(),
    };
    session::ended(r0.run(), mode, &again)
}
