//! `contention measure`: plan, launch the two-rank MPI job, and on rank 0 run the sweep.

use crate::cli::{CommPattern, MeasureArgs, NetworkArgs, PenaltiesArg, TableOrJson};
use crate::error::{Error, Result};
use crate::measure::session::{self, Rank0};
use crate::measure::{comm, launch, progress, run::Abort, sender, settings, signals, topology};
use crate::trace::{MpiInfo, SenderPlacement, TransportKind};
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
            hosts: None,
            output: args.output.clone(),
        });
    }
    session::check_values(args)?;
    if launch::under_launcher(|k| std::env::var(k).ok()) && !args.dry_run {
        return as_rank(args);
    }
    let hosts = hosts(args);
    if args.dry_run {
        return dry_run(args, hosts.as_deref());
    }
    launch_job(args, hosts.as_deref())
}

/// `--hosts`, or inside a Slurm allocation of two or more nodes, this node and another one
/// (two ranks only: a ring names its hosts).
fn hosts(args: &MeasureArgs) -> Option<Vec<String>> {
    if args.hosts.is_some() || session::ranks(args) != 2 {
        return args.hosts.clone();
    }
    let hosts = launch::slurm_hosts(|k| std::env::var(k).ok(), launch::expand_nodelist)?;
    if !args.quiet {
        eprintln!(
            "measure: inside a Slurm allocation of several nodes: rank 0 (measured) on {}, \
             rank 1 (sender) on {}, so messages cross the network (--hosts chooses others)",
            hosts[0], hosts[1]
        );
    }
    Some(hosts)
}

fn dry_run(args: &MeasureArgs, hosts: Option<&[String]>) -> Result<()> {
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
    let hosts = hosts.map_or_else(|| vec![layout.hostname.clone()], <[String]>::to_vec);
    let settings = args
        .topology
        .is_none()
        .then(|| settings::read_settings(Path::new("/"), Some(layout.numa_per_socket())));
    print!(
        "{}",
        session::describe_plan(
            &layout,
            &resolved,
            &session::transport(&hosts),
            settings.as_ref()
        )
    );
    Ok(())
}

/// From a shell: check what can be checked here, then start the job under the launcher.
fn launch_job(args: &MeasureArgs, hosts: Option<&[String]>) -> Result<()> {
    if hosts.is_none() {
        // Rank 0 will run on this host: refuse bad requests before starting MPI.
        let layout = topology::layout(&topology::load_this_machine()?);
        session::resolve(args, &layout, Path::new(SYSFS))?;
        let trace_path = session::output_path(args, &layout.hostname);
        crate::results::ensure_parent(&trace_path)?;
        session::check_output(args, &trace_path)?;
        // Refuse now if another run holds the trace (rank 0 takes the lock for the run).
        drop(crate::measure::lock::acquire(
            &trace_path,
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
        hosts,
        launch::is_root(),
        &exe,
        &argv,
    );
    let cmd = if args.launcher == launch::Launcher::Srun {
        let slurm = launch::Slurm::detect(|k| std::env::var(k).ok(), launch::srun_version);
        launch::with_whole_node(cmd, &slurm)
    } else {
        cmd
    };
    // srun keeps rank 0 on the first host only through a host file (it sorts --nodelist).
    let hostfile = match (args.launcher, hosts) {
        (launch::Launcher::Srun, Some(h)) => {
            let path =
                std::env::temp_dir().join(format!("contention-hosts-{}", std::process::id()));
            std::fs::write(&path, launch::srun_hostfile(h))
                .map_err(|e| Error::io("write", &path, e))?;
            Some(path)
        }
        _ => None,
    };
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
    let env: Vec<(&str, &Path)> = hostfile
        .as_deref()
        .map(|p| ("SLURM_HOSTFILE", p))
        .into_iter()
        .collect();
    let code = launch::run_with_env(&cmd, mode.name(), &env);
    if let Some(p) = &hostfile {
        let _ = std::fs::remove_file(p);
    }
    let code = code?;
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
        return serve_as_sender(args, &world, &name);
    }
    measure_as_rank0(args, name, granted, interrupted, &world)
}

/// A sender (rank 1, or any rank but 0 of a ring) on `comm`, once it has sent rank 0 its
/// name: places its send buffer where rank 0 says, reports, and serves until told to stop.
/// `contention survey` runs it on the two-rank communicator of each pair.
pub(crate) fn serve_as_sender(
    args: &MeasureArgs,
    world: &mpi::topology::SimpleCommunicator,
    name: &str,
) -> Result<()> {
    let Some((pu, node)) = comm::await_placement(world) else {
        return Ok(());
    };
    let size = args.message_size.0 as usize;
    let topo = topology::load_this_machine();
    let (report, mut placed) = match &topo {
        Ok(t) => sender::place(t, name, size, pu, node),
        Err(e) => (Err(e.to_string()), None),
    };
    comm::report(
        world,
        serde_json::to_string(&report)
            .unwrap_or_default()
            .as_bytes(),
    );
    let fallback;
    let message: &[u8] = match placed.as_mut() {
        Some(b) => crate::measure::memory::as_bytes(b),
        None => {
            fallback = vec![1u8; size];
            &fallback
        }
    };
    let mut receive = if args.pattern == CommPattern::Pong {
        Vec::new()
    } else {
        vec![0u8; size]
    };
    comm::serve(world, args.pattern, message, &mut receive);
    Ok(())
}

/// Rank 0 of `comm`: collects the other ranks' names, measures, and always tells the other
/// ranks to stop. `contention survey` runs it on the two-rank communicator of each pair.
pub(crate) fn measure_as_rank0(
    args: &MeasureArgs,
    name: String,
    granted: Threading,
    interrupted: &'static std::sync::atomic::AtomicBool,
    world: &mpi::topology::SimpleCommunicator,
) -> Result<()> {
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
        rank0(args, mpi_info, interrupted, world)
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
    args: &MeasureArgs,
    mpi: MpiInfo,
    interrupted: &'static std::sync::atomic::AtomicBool,
    world: &mpi::topology::SimpleCommunicator,
) -> Result<()> {
    let topo = topology::load_this_machine()?;
    let layout = topology::layout(&topo);
    let resolved = session::resolve(args, &layout, Path::new(SYSFS))?;
    let trace_path = session::output_path(args, &layout.hostname);
    crate::results::ensure_parent(&trace_path)?;
    session::check_output(args, &trace_path)?;
    let transport = session::transport(&mpi.hosts);
    let settings = settings::read_settings(Path::new("/"), Some(layout.numa_per_socket()));
    let mode =
        progress::Mode::from_env_or_terminal(std::env::var(launch::PROGRESS_ENV).ok(), args.quiet);
    if mode != progress::Mode::Quiet {
        eprint!(
            "{}",
            session::describe_plan(&layout, &resolved, &transport, Some(&settings))
        );
    }
    let sender = place_sender(args, &resolved, transport.kind, world)?;
    let r0 = Rank0 {
        args,
        topology: &topo,
        layout: &layout,
        resolved,
        mpi,
        transport,
        sender: Some(sender),
        settings: Some(settings),
        progress: mode,
        interrupted,
        comm: comm::Handle::of(world),
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

/// Places every other rank (only rank 1 is pinned, and only when it shares this host and
/// binding is on) and checks rank 1's report: it ran where asked, its buffer lies where
/// asked.
fn place_sender(
    args: &MeasureArgs,
    resolved: &session::Resolved,
    transport: TransportKind,
    world: &mpi::topology::SimpleCommunicator,
) -> Result<SenderPlacement> {
    let plan = &resolved.sender;
    let (pu, node, reason) = if args.no_bind {
        (None, None, "not pinned: --no-bind".to_string())
    } else if transport == TransportKind::Network {
        (
            None,
            None,
            "another host: not pinned by this tool (its memory is not the measured one)".into(),
        )
    } else {
        (
            plan.slot.map(|s| s.pu_os),
            plan.numa.map(|(_, os)| os),
            plan.reason.clone(),
        )
    };
    let mut sender = None;
    for r in 1..world.size() {
        let (pu, node) = if r == 1 { (pu, node) } else { (None, None) };
        let bytes = comm::place(world, r, pu, node);
        let report: std::result::Result<SenderPlacement, String> = serde_json::from_slice(&bytes)
            .map_err(|e| {
            Error::Failed(format!(
                "rank {r} sent an unreadable placement report ({e})"
            ))
        })?;
        let report = report.map_err(|e| Error::Failed(format!("rank {r}: {e}")))?;
        if r == 1 {
            sender = Some(report);
        }
    }
    let mut sender = sender.ok_or_else(|| Error::Failed("no rank 1".into()))?;
    sender.reason = reason;
    if !args.no_bind {
        sender::check(&sender).map_err(Error::Failed)?;
    }
    Ok(sender)
}
