//! `contention measure`: plan, launch the two-rank MPI job, and on rank 0 run the sweep.

use crate::cli::{CommPattern, MeasureArgs, NetworkArgs, PenaltiesArg, TableOrJson};
use crate::error::{Error, Result};
use crate::measure::session::{self, Rank0};
use crate::measure::{comm, launch, progress, run::Abort, signals, topology};
use crate::trace::MpiInfo;
use mpi::environment::Threading;
use mpi::topology::Communicator;
use std::path::Path;

const SYSFS: &str = "/sys/devices/system";

pub fn run(args: &MeasureArgs) -> Result<()> {
    if let Some(graph) = &args.graph {
        return crate::commands::network::run(&NetworkArgs {
            graph: graph.clone(),
            penalties: PenaltiesArg::InfiniBand,
            format: TableOrJson::Table,
            memory_model: None,
            cores: None,
            placement: None,
            run: true,
            repeat: 5,
            launcher: args.launcher,
            output: args.output.clone(),
        });
    }
    session::check_values(args)?;
    if args.dry_run {
        return dry_run(args);
    }
    if launch::under_launcher(|k| std::env::var(k).ok()) {
        return as_rank(args);
    }
    launch_job(args)
}

fn dry_run(args: &MeasureArgs) -> Result<()> {
    let topo = match &args.topology {
        Some(xml) => topology::load_xml(xml)?,
        None => topology::load_this_machine()?,
    };
    let layout = topology::layout(&topo);
    // Free memory is only known for this machine.
    let sysfs = if args.topology.is_some() {
        Path::new("/nonexistent")
    } else {
        Path::new(SYSFS)
    };
    let resolved = session::resolve(args, &layout, sysfs)?;
    print!("{}", session::describe_plan(&layout, &resolved));
    Ok(())
}

/// From a shell: check what can be checked here, then start the job under the launcher.
fn launch_job(args: &MeasureArgs) -> Result<()> {
    if args.hosts.is_none() {
        // Rank 0 will run on this host: refuse bad requests before starting MPI.
        let layout = topology::layout(&topology::load_this_machine()?);
        session::resolve(args, &layout, Path::new(SYSFS))?;
        let out = session::output_path(args, &layout.hostname);
        session::check_output(args, &out)?;
        // Refuse now if another run holds the trace (rank 0 takes the lock for the run).
        drop(crate::measure::lock::acquire(
            &out,
            &crate::measure::lock::holder(&layout.hostname),
        )?);
    } else if let Some(out) = &args.output {
        // Rank 0 runs elsewhere, but a device, FIFO or directory is refused before MPI starts.
        crate::io::atomic::check_target(out)?;
    }
    let exe = std::env::current_exe()
        .map_err(|e| Error::Failed(format!("cannot find own binary: {e}")))?;
    let argv: Vec<_> = std::env::args_os().skip(1).collect();
    let cmd = launch::command_line_ranks(
        session::ranks(args) as usize,
        args.launcher,
        args.hosts.as_deref(),
        launch::is_root(),
        &exe,
        &argv,
    );
    let mode = progress::Mode::from_env_or_terminal(None, args.quiet);
    if mode != progress::Mode::Quiet {
        eprintln!(
            "measure: starting {}",
            cmd.iter()
                .map(|s| s.to_string_lossy())
                .collect::<Vec<_>>()
                .join(" ")
        );
    }
    // Ctrl-C, SIGTERM and SIGHUP to this process are forwarded to the job (its own process
    // group, see `signals`); this process waits for it to save and exit.
    let interrupted = signals::install();
    let code = launch::run(&cmd, mode.name())?;
    let trace = args
        .output
        .as_ref()
        .map_or_else(|| "the trace".to_string(), |p| format!("`{}`", p.display()));
    match code {
        0 => Ok(()),
        _ if interrupted.load(std::sync::atomic::Ordering::SeqCst) || code == 130 => {
            Err(Error::Interrupted(format!(
                "interrupted: finished points are saved in {trace}; continue with --resume"
            )))
        }
        // Rank 0 reported its own error (bad input, a stalled peer) with its exit status.
        1 | 2 => Err(Error::Reported(code)),
        // A rank killed (the launcher reports 128 + signal, or its own failure status).
        c => Err(Error::Failed(format!(
            "the MPI job ended with status {c}: a rank was killed or failed (the launcher's \
             message is above); finished points are saved in {trace}; continue with --resume"
        ))),
    }
}

/// Under the launcher: rank 0 measures, the other ranks send (and receive, in an exchange).
fn as_rank(args: &MeasureArgs) -> Result<()> {
    let interrupted = signals::install();
    let (universe, granted) = mpi::initialize_with_threading(Threading::Serialized)
        .ok_or_else(|| Error::Failed("MPI was already initialized".into()))?;
    if !matches!(granted, Threading::Serialized | Threading::Multiple) {
        return Err(Error::Failed(format!(
            "the MPI library grants thread level {granted:?}, but measure calls MPI from its \
             communication thread and needs MPI_THREAD_SERIALIZED; use an MPI built with \
             thread support"
        )));
    }
    let world = universe.world();
    let want = session::ranks(args) as i32;
    if world.size() != want {
        return Err(Error::Input(format!(
            "measure --pattern {} needs exactly {want} MPI ranks, got {}; start it without a \
             launcher (it starts itself) or with `mpirun -np {want}`",
            session::pattern_name(args.pattern),
            world.size()
        )));
    }
    let name = mpi::environment::processor_name().unwrap_or_else(|_| "unknown".into());
    if world.rank() != 0 {
        use mpi::point_to_point::Destination;
        world.process_at_rank(0).send(name.as_bytes());
        let message = vec![1u8; args.message_size.0 as usize];
        let mut receive = if args.pattern == CommPattern::Pong {
            Vec::new()
        } else {
            vec![0u8; args.message_size.0 as usize]
        };
        comm::serve(&world, args.pattern, &message, &mut receive);
        return Ok(());
    }
    use mpi::point_to_point::Source;
    let mut hosts = vec![name];
    for r in 1..world.size() {
        let (peer, _) = world.process_at_rank(r).receive_vec::<u8>();
        hosts.push(String::from_utf8_lossy(&peer).into_owned());
    }
    let mpi_info = MpiInfo {
        library_version: mpi::environment::library_version()
            .unwrap_or_else(|_| "unknown".into())
            .trim_end_matches(['\0', '\n', ' '])
            .to_string(),
        thread_level: format!("{granted:?}"),
        hosts,
    };
    // Whatever happens on rank 0, even a bug that panics, the other ranks must be told to
    // stop, or every rank would wait for the others in MPI_Finalize.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rank0(args, mpi_info, interrupted)
    }));
    comm::shutdown(&world);
    result.unwrap_or_else(|_| {
        Err(Error::Failed(
            "internal error on rank 0 (the panic message is above); finished points are \
             saved; please report this"
                .into(),
        ))
    })
}

fn rank0(
    args: &MeasureArgs,
    mpi: MpiInfo,
    interrupted: &'static std::sync::atomic::AtomicBool,
) -> Result<()> {
    let topo = topology::load_this_machine()?;
    let layout = topology::layout(&topo);
    let resolved = session::resolve(args, &layout, Path::new(SYSFS))?;
    session::check_output(args, &session::output_path(args, &layout.hostname))?;
    let mode =
        progress::Mode::from_env_or_terminal(std::env::var(launch::PROGRESS_ENV).ok(), args.quiet);
    if mode != progress::Mode::Quiet {
        eprint!("{}", session::describe_plan(&layout, &resolved));
    }
    let r0 = Rank0 {
        args,
        topology: &topo,
        layout: &layout,
        resolved,
        mpi,
        progress: mode,
        interrupted,
    };
    match r0.run() {
        Ok(path) => {
            if mode != progress::Mode::Quiet {
                eprintln!(
                    "measure: trace written to {} (CSV: {})",
                    path.display(),
                    session::csv_path(&path).display()
                );
            }
            Ok(())
        }
        Err((Abort::Interrupted, path)) => Err(Error::Interrupted(format!(
            "interrupted: finished points are saved in {}; continue with --resume -o {}",
            path.display(),
            path.display()
        ))),
        Err((Abort::Stalled(why), path)) | Err((Abort::Failed(why), path)) => {
            Err(Error::Failed(format!(
                "{why} (finished points, if any, are in {}; continue with --resume -o {})",
                path.display(),
                path.display()
            )))
        }
    }
}
