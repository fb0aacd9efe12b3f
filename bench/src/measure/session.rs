//! One measurement session on rank 0: resolve the options against the machine, describe the
//! plan (`--dry-run`), allocate the bound buffers, run the sweep and keep the trace on disk
//! after every point.

use crate::error::{Error, Result};
use crate::io::{atomic, tidy_csv, trace_file};
use crate::kernels::stores::StoreSet;
use crate::kernels::workload::Workload;
use crate::machine::layout::Layout;
use crate::machine::memory::{self};
use crate::machine::plan::{self, Planned, Request, SenderPlan};
#[cfg(feature = "mpi")]
use crate::machine::topology;
use crate::measure::adaptive::{self, AdaptiveOptions};
use crate::measure::choices::CommPattern;
use crate::measure::options::{MeasureOptions, MIN_BUFFER};
use crate::measure::sweep::rules::{Abort, Sampling, Starvation};
#[cfg(feature = "mpi")]
use crate::measure::sweep::run::Bench;
use crate::measure::sweep::sampling::{MIN_ROUNDS, PHASE_STRETCH};
use crate::measure::sweep::sizing;
use crate::mpi::progress::{self, Progress};
use crate::point_line::{point_line, runs_summary};
use crate::provenance::Provenance;
use crate::runs;
use crate::trace::{
    BufferPages, MachineSettings, MeasureConfig, MpiInfo, SenderPlacement, Sizing, Trace,
    TracePoint, Transport, TransportKind, TRACE_SCHEMA_VERSION,
};
use crate::units::human_bytes;
#[cfg(feature = "mpi")]
use hwlocality::memory::binding::Bytes;
#[cfg(feature = "mpi")]
use hwlocality::Topology;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// The CSV beside a trace.
pub(crate) fn csv_path(trace: &Path) -> PathBuf {
    trace.with_extension("csv")
}

/// The configuration of the trace `--resume` continues, when there is one to continue:
/// [`resolve`] keeps what the tool sized there.
pub(crate) fn previous(a: &MeasureOptions, path: &Path) -> Result<Option<MeasureConfig>> {
    if !a.resume {
        return Ok(None);
    }
    // The plan of a resume of nothing was printed with exit 0 (`--dry-run`).
    if !path.exists() {
        return Err(resume_missing(path));
    }
    // The reader's record check refuses a `config.runs` no command line gives (an edited
    // 4,000,000,000) before the plan, whose trace size counts every run, is made of it.
    Ok(Some(trace_file::read_to_resume(path)?.config))
}

#[cfg(feature = "mpi")]
/// What can be refused before the MPI job starts. With `rank0_here` (rank 0 will run on
/// this host): the options against this machine (planned with rank 1 beside it when
/// `rank1_here`), the trace's directory, overwriting or resuming it, and another run holding
/// it (rank 0 takes the lock for the run). Otherwise only `-o` naming a device, a FIFO or a
/// directory.
///
/// Returns the trace's path when rank 0 runs here.
pub(crate) fn check_before_launch(
    a: &MeasureOptions,
    rank0_here: bool,
    rank1_here: bool,
) -> Result<Option<Here>> {
    if rank0_here {
        let Placed {
            layout,
            trace,
            resolved,
            ..
        } = place(a, None, true, rank1_here)?;
        let trace_path = trace;
        check_output(a, &trace_path)?;
        let old = if a.resume {
            Some(trace_file::read_to_resume(&trace_path)?)
        } else {
            None
        };
        if let Some(old) = &old {
            refuse_simulated(old, &trace_path)?;
            // What can differ before the job starts is refused here (an input error, exit
            // 2); the stack and the transport are known inside the job only.
            refuse_differences(old, &measured_here(old, &resolved, &layout), &trace_path)?;
            refuse_beyond_machine(old, resolved.planned.plan.compute.len() as u32, &trace_path)?;
        }
        let nothing_left = match old {
            Some(old) if a.adaptive.is_none() => {
                let mut cores = old.config.cores.clone();
                cores.extend(&resolved.config.cores);
                let runs = old.config.runs.max(a.keeping(&old.config).runs);
                // A point a reader would refuse is dropped and measured again
                // (`start_trace`).
                let cores_per_socket = old.machine.cores_per_socket;
                // Combined points refused are made again and saved (`start_trace`).
                let (old, refused) = without_refused(old, cores_per_socket, &trace_path);
                refused.dropped.is_empty()
                    && refused.remade.is_empty()
                    && runs::nothing_left(&old, &cores, runs)
            }
            _ => false,
        };
        drop(crate::measure::sweep::lock::acquire(
            &trace_path,
            &crate::measure::sweep::lock::holder(&layout.hostname),
        )?);
        return Ok(Some(Here {
            trace: trace_path,
            nothing_left,
        }));
    } else if let Some(out) = &a.output {
        atomic::check_target(out)?;
    }
    Ok(None)
}

/// What [`check_before_launch`] found where rank 0 runs on this host.
pub(crate) struct Here {
    /// The trace rank 0 writes.
    pub(crate) trace: PathBuf,
    /// `--resume` of a trace that already holds every core count (and run) asked for:
    /// nothing to launch, and the trace is left as it is (it started an MPI job, then said
    /// so and rewrote the file).
    pub(crate) nothing_left: bool,
}

/// Refuses to resume a trace that asks for a core count this machine cannot run (0, or
/// beyond the `free` computing cores): an edited trace failed only once the points before it
/// were measured (exit 1), with `predict`'s hint.
fn refuse_beyond_machine(old: &Trace, free: u32, path: &Path) -> Result<()> {
    match old
        .config
        .cores
        .iter()
        .copied()
        .find(|&n| n == 0 || n > free)
    {
        Some(n) => Err(Error::Input(format!(
            "--resume: `{}` asks for {n} cores in config.cores, and this machine leaves \
             1..{free} cores to compute; the trace was edited or is not this machine's: start \
             a new trace with -o (and --cores within 1..{free})",
            crate::error::shown_path(path)
        ))),
        None => Ok(()),
    }
}

/// A real run never continues a simulated trace: its points would pass for this machine's.
/// Said before the MPI job starts (an input error, exit 2), with the command that does
/// continue it, rather than as a list of differing options from inside the job.
fn refuse_simulated(old: &Trace, path: &Path) -> Result<()> {
    match trace_file::simulated(old, &crate::error::shown_path(path))? {
        Some(s) => Err(Error::Input(format!(
            "--resume: `{}` is simulated {} (seed {}), and this run measures this machine; \
             continue it with `--simulate {} --seed {} --resume`, or start a real trace with -o",
            path.display(),
            s.machine,
            s.seed,
            s.machine,
            s.seed
        ))),
        None => Ok(()),
    }
}

/// The error of a `--resume` whose trace is not there.
pub(crate) fn resume_missing(path: &Path) -> Error {
    Error::Input(format!(
        "--resume: `{}` does not exist; run without --resume to start it",
        crate::error::shown_path(path)
    ))
}

/// Refuses a trace named like its own CSV (`-o t.csv`, `-o T.CSV`), to overwrite a trace
/// or an unrelated CSV where its CSV goes without `--force`, to resume one that is not
/// there, or to resume an adaptive sweep without `--adaptive` (its record would no longer
/// list every point); then creates the trace's directory, checked first so that a refused
/// trace leaves none behind, and probes it.
pub(crate) fn check_output(a: &MeasureOptions, path: &Path) -> Result<()> {
    // The CSV goes beside the trace under its name with `.csv`: a trace named `t.csv` would
    // be replaced by its own CSV after every point, every sample lost; `T.CSV` too, on the
    // case-insensitive file systems of laptops and some shared mounts.
    let csv = csv_path(path);
    let named_csv = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    if csv == path || named_csv {
        return Err(Error::Input(format!(
            "-o {}: the trace's tidy CSV is written beside it, named like it with `.csv`, so \
             this trace would be replaced by its CSV; name the trace `.json` (e.g. -o {})",
            crate::error::shown_path(path),
            crate::error::shown_path(&path.with_extension("json"))
        )));
    }
    let exists = path.exists();
    if a.resume && !exists {
        return Err(resume_missing(path));
    }
    if exists && !a.resume && !a.force {
        return Err(Error::Input(format!(
            "`{}` exists; pass --resume to continue it, --force to overwrite it, or -o to \
             write elsewhere",
            path.display()
        )));
    }
    // The CSV written beside a new trace replaces what is there: a file the user's, unless
    // told (`-o t4.json` overwrote an unrelated `t4.csv`). A resumed trace's CSV is its own.
    if !exists && !a.force && csv.exists() {
        return Err(Error::Input(format!(
            "`{}` exists, and the tidy CSV of the trace `{}` is written there; pass --force \
             to overwrite it, or -o to write elsewhere",
            crate::error::shown_path(&csv),
            crate::error::shown_path(path)
        )));
    }
    if path.as_os_str() == atomic::STDOUT {
        return Err(Error::Input(
            "measure -o -: a trace is rewritten after every point, so it must be a file; \
             name one"
                .into(),
        ));
    }
    // Neither the trace nor its CSV may replace a device, FIFO or directory.
    atomic::check_target(path)?;
    atomic::check_target(&csv)?;
    let dir = atomic::directory_of(path);
    // Where the directory can be made (not under a file), then made, then probed now rather
    // than after the first point.
    atomic::check_directory(dir, path, true)?;
    crate::results::ensure_parent(path)?;
    atomic::probe_directory(dir)?;
    if a.resume && a.adaptive.is_none() {
        adaptive::refuse_resume_without_adaptive(&trace_file::read_to_resume(path)?, path)?;
    }
    Ok(())
}

/// Everything resolved for this machine: plan, configuration, buffer sizes.
pub(crate) struct Resolved {
    pub(crate) planned: Planned,
    pub(crate) config: MeasureConfig,
    /// Where rank 1 goes if it shares this host.
    pub(crate) sender: SenderPlan,
    /// `--adaptive`: the core counts of `config` are those the sweep may choose from.
    pub(crate) adaptive: Option<AdaptiveOptions>,
}

impl Resolved {
    /// How the buffers were sized (always set by [`resolve`]).
    pub(crate) fn sizing(&self) -> &Sizing {
        self.config
            .sizing
            .as_ref()
            .expect("resolve sets the sizing")
    }
}

#[cfg(feature = "mpi")]
/// A measurement placed on a machine: its hwloc topology (kept for binding the buffers), its
/// layout, and the options resolved on it.
pub(crate) struct Placed {
    pub(crate) topology: Topology,
    pub(crate) layout: Layout,
    pub(crate) resolved: Resolved,
    /// The trace this host's rank 0 writes (`-o`, or its place under the results root).
    pub(crate) trace: PathBuf,
}

#[cfg(feature = "mpi")]
/// What a plan for another machine (`--topology`) says of its store instructions.
const OTHER_NODES_STORES: &str = "the node CPU's best";

#[cfg(feature = "mpi")]
/// The one way from options to a placement: load the machine (this one, or the hwloc XML
/// `xml` of another, whose free memory is then unknown), lay it out, and [`resolve`] the
/// options on it; with `previous`, against the trace `--resume` continues on its host.
/// `rank1_here`: the sender (rank 1) runs on this host too, and needs a core of its own.
pub(crate) fn place(
    a: &MeasureOptions,
    xml: Option<&Path>,
    previous: bool,
    rank1_here: bool,
) -> Result<Placed> {
    let topology = match xml {
        Some(xml) => topology::load_xml(xml)?,
        None => topology::load_this_machine()?,
    };
    let layout = topology::layout(&topology);
    let sysfs = Path::new(if xml.is_some() {
        "/nonexistent"
    } else {
        topology::SYSFS
    });
    let trace = a.trace_path(&layout.hostname);
    let previous = if previous {
        self::previous(a, &trace)?
    } else {
        None
    };
    let mut resolved = resolve(a, &layout, sysfs, previous.as_ref(), rank1_here)?;
    if xml.is_some() {
        // The store instructions are the node's CPU's, which its hwloc XML does not say
        // (this host's would be a guess); `--topology` only ever plans (`--dry-run`).
        resolved.config.kernel = OTHER_NODES_STORES.into();
    }
    Ok(Placed {
        topology,
        layout,
        resolved,
        trace,
    })
}

/// The transport between rank 0 and the others from the host of each rank: intra-node when
/// every rank runs on rank 0's host.
pub(crate) fn transport(hosts: &[String]) -> Transport {
    let kind = if hosts.iter().all(|h| Some(h) == hosts.first()) {
        TransportKind::IntraNode
    } else {
        TransportKind::Network
    };
    Transport {
        kind,
        hosts: hosts.to_vec(),
    }
}

/// Resolves the options against `layout`, checking nodes, cores and memory. `previous` is
/// the configuration of the trace `--resume` continues: what the tool sized itself there
/// (buffer, message slots) is kept, so a resumed trace is one experiment whatever the free
/// memory of the moment; options the user gives are compared with it later
/// (`Rank0::run`'s check names each one that differs). `rank1_here`: the sender runs on
/// this host (its core and its ring of send buffers are this host's).
pub(crate) fn resolve(
    a: &MeasureOptions,
    layout: &Layout,
    sysfs: &Path,
    previous: Option<&MeasureConfig>,
    rank1_here: bool,
) -> Result<Resolved> {
    // A resumed trace keeps what its points were measured with, unless given otherwise.
    let kept;
    let a = match previous {
        Some(c) => {
            kept = a.keeping(c);
            &kept
        }
        None => a,
    };
    let planned = plan::plan(layout, &request(a, rank1_here))?;
    let p = &planned.plan;
    let max_threads = planned.sweep.iter().copied().max().unwrap_or(1);
    let sender = plan::sender_core(layout, &planned, max_threads as usize);
    // The caches the computing threads of the largest point can use (on a chiplet CPU, the
    // dies they run on, not their whole socket); the communication core's whole socket,
    // where a network card's DMA may land too.
    let llc_comp =
        layout.llc_covering(p.compute.iter().take(max_threads as usize).map(|s| s.pu_os));
    let llc_comm = layout.llc_of([p.comm.socket]);
    let comp_free = memory::node_free_bytes(sysfs, p.comp_numa_os);
    let comm_free = memory::node_free_bytes(sysfs, p.comm_numa_os);
    let avail = |free: Option<u64>| free.map(|f| f - f / 10);
    let same_node = a.comp_numa == a.comm_numa;
    let message = a.message_size.0;
    // Rank 0's rings: it receives into one, and exchanging patterns send from another. On
    // this host rank 1 sends from a third, on its own node (the communication node unless
    // the plan put it elsewhere).
    let sender_here = rank1_here && sender.numa.is_none_or(|(l, _)| l == a.comm_numa);
    let rings = u64::from(a.pattern != CommPattern::Pong) + 1 + u64::from(sender_here);
    // Half of a shared node for the rings, the rest for the computing buffers.
    let share = if same_node { 2 } else { 1 };
    let ring = ring_slots(
        a,
        previous,
        llc_comm,
        avail(comm_free).map(|r| r / share / rings),
        every_gpu(a, layout),
    );
    let ring_bytes = message * u64::from(ring) * rings;
    let use_ = if Workload::detect(a.kernel).bypasses_cache() {
        sizing::CacheUse::Bypass
    } else {
        sizing::CacheUse::Temporal
    };
    let sized = sizing::computing(
        use_,
        llc_comp,
        max_threads,
        avail(comp_free).map(|r| r.saturating_sub(if same_node { ring_bytes } else { 0 })),
    );
    let buffer = match (a.buffer_size, previous) {
        (Some(b), _) => b.0,
        (None, Some(c)) => c.buffer_bytes_per_core,
        (None, None) => sized.buffer,
    };
    check_memory(a, (buffer, max_threads), ring_bytes, (comp_free, comm_free))?;
    let computing = sizing::Computing { buffer, ..sized };
    let sizing = sizing_of(
        a,
        previous,
        &computing,
        (llc_comp, llc_comm),
        max_threads,
        ring,
    );
    let config = config(a, &planned, buffer, sizing);
    Ok(Resolved {
        planned,
        config,
        sender,
        adaptive: a.adaptive,
    })
}

/// The core slots of a plan as the trace lists them (the computing ones and the
/// communication thread's), for `crate::measure::trace_size`.
pub(crate) fn trace_slots(plan: &crate::trace::Plan) -> usize {
    plan.compute.len() + 1
}

/// Both nodes have room: `max_threads` computing buffers of `buffer` bytes, at least
/// [`MIN_BUFFER`] each, and the message rings of `ring_bytes` (on the computing node when
/// the two are one).
fn check_memory(
    a: &MeasureOptions,
    (buffer, max_threads): (u64, u32),
    ring_bytes: u64,
    (comp_free, comm_free): (Option<u64>, Option<u64>),
) -> Result<()> {
    let same_node = a.comp_numa == a.comm_numa;
    if buffer < MIN_BUFFER {
        return Err(Error::Input(format!(
            "NUMA node {} has too little free memory for {max_threads} computing buffers of \
             at least 1MiB; free memory or sweep fewer cores",
            a.comp_numa
        )));
    }
    let comp_need = buffer * u64::from(max_threads) + if same_node { ring_bytes } else { 0 };
    memory::check_fits("computation buffers", comp_need, a.comp_numa, comp_free)?;
    if !same_node {
        memory::check_fits("communication buffers", ring_bytes, a.comm_numa, comm_free)?;
    }
    Ok(())
}

/// What the plan is asked: the nodes and cores of the options, and whether rank 1 shares
/// the host.
fn request(a: &MeasureOptions, rank1_here: bool) -> Request {
    Request {
        comp_numa: a.comp_numa,
        comm_numa: a.comm_numa,
        cores: a.cores.clone(),
        comm_core: a.comm_core,
        share_comm_core: a.shared_comm_core,
        sender_here: rank1_here,
        // With --gpu all, the one copy thread (which only issues copies and waits for
        // them) goes near the first GPU.
        gpu: a.engine.gpu().map(|g| match g.gpus {
            crate::trace::GpuChoice::One(i) => i,
            crate::trace::GpuChoice::All => 0,
        }),
    }
}

/// The message slots of each ring: `--message-buffers` when given, a resumed trace's own,
/// or as many as the cache rule asks of the communication socket's cache `llc_comm` that
/// fit in `room` bytes per ring.
fn ring_slots(
    a: &MeasureOptions,
    previous: Option<&MeasureConfig>,
    llc_comm: u64,
    room: Option<u64>,
    gpus: u32,
) -> u32 {
    match (a.message_buffers, previous) {
        (Some(n), _) => n,
        // A trace from before the rings received into one buffer.
        (None, Some(c)) => c.sizing.as_ref().map_or(1, |s| s.message_buffers),
        // Every GPU of `--gpu all` copies a slot of its own at once.
        (None, None) => sizing::message_ring(a.message_size.0, llc_comm, room).max(gpus),
    }
}

/// The GPUs `--gpu all` copies with as hwloc sees them (the driver may see others, which
/// the run says: `crate::measure::gpu_job`), else 1.
fn every_gpu(a: &MeasureOptions, layout: &Layout) -> u32 {
    match a.engine.gpu().map(|g| g.gpus) {
        Some(crate::trace::GpuChoice::All) => (layout.gpus.len() as u32).max(1),
        _ => 1,
    }
}

/// The sizes recorded in the trace, and the warnings of where they miss the cache rule
/// (`llcs`: the computing threads' caches and the communication socket's).
fn sizing_of(
    a: &MeasureOptions,
    previous: Option<&MeasureConfig>,
    computing: &sizing::Computing,
    (llc_comp, llc_comm): (u64, u64),
    max_threads: u32,
    ring: u32,
) -> Sizing {
    let buffer = computing.buffer;
    Sizing {
        chunk_bytes: sizing::chunk_bytes(a.max_phase, buffer),
        sample_seconds: sizing::sample_seconds(a.max_phase),
        message_buffers: ring,
        llc_bytes_comp: llc_comp,
        llc_bytes_comm: llc_comm,
        cache_factor: sizing::CACHE_FACTOR,
        warnings: match previous.and_then(|c| c.sizing.as_ref()) {
            // A resumed trace keeps its sizes, and with them what was said of them.
            Some(s) if a.buffer_size.is_none() && a.message_buffers.is_none() => s.warnings.clone(),
            _ => sizing::warnings(
                computing,
                llc_comp,
                a.buffer_size.is_some(),
                max_threads,
                a.message_size.0,
                ring,
                llc_comm,
            ),
        },
    }
}

/// The configuration the trace records: the options as resolved against the machine.
fn config(a: &MeasureOptions, planned: &Planned, buffer: u64, sizing: Sizing) -> MeasureConfig {
    MeasureConfig {
        comp_numa: a.comp_numa,
        comm_numa: a.comm_numa,
        cores: planned.sweep.clone(),
        message_size_bytes: a.message_size.0,
        buffer_bytes_per_core: buffer,
        max_phase_seconds: a.max_phase,
        stable_within: a.stable_within / 100.0,
        timeout_seconds: a.timeout,
        kernel: StoreSet::detect().name().to_string(),
        compute_kernel: Workload::detect(a.kernel).name().to_string(),
        pattern: a.pattern.name().to_string(),
        ranks: a.job_ranks(),
        bind: !a.no_bind,
        runs: a.runs,
        sizing: Some(sizing),
    }
}

/// The longest a sweep of `c` takes, in seconds: 3 phases per core count (section 4.1.1),
/// computations alone at most `--max-phase` (their samples are sized to fill it, see
/// [`sizing::rounds_at`]), the two with messages at most [`PHASE_STRETCH`] times that (one
/// message is one sample, and a phase runs on until it holds [`MIN_ROUNDS`] of them), each
/// plus a margin for its first and last iteration; and the
/// time to touch every buffer first at [`sizing::TOUCH_BANDWIDTH`]: the computing buffers
/// and the message rings (rank 0's receive ring, its send ring when exchanging, and rank
/// 1's, counted as if on this host). `describe_plan` prints it; `contention survey` and the
/// tests take their time limits from it.
pub(crate) fn estimated_seconds(c: &MeasureConfig) -> (f64, f64) {
    let max = c.cores.iter().copied().max().unwrap_or(0) as f64;
    let points = c.cores.len() as f64;
    let slots = c.sizing.as_ref().map_or(1, |s| s.message_buffers) as f64;
    let rings = if c.pattern == CommPattern::Pong.name() {
        2.0
    } else {
        3.0
    };
    let bytes = c.buffer_bytes_per_core as f64 * max + c.message_size_bytes as f64 * slots * rings;
    (points * point_seconds(c), bytes / sizing::TOUCH_BANDWIDTH)
}

/// The longest one point of `c` takes, in seconds: its 3 phases as [`estimated_seconds`]
/// counts them. What the adaptive sweep expects of a point it knows nothing else of.
pub(crate) fn point_seconds(c: &MeasureConfig) -> f64 {
    let stretched = f64::from(PHASE_STRETCH) * c.max_phase_seconds;
    c.max_phase_seconds + 2.0 * stretched + 3.0 * 0.3
}

/// The seed of an adaptive sweep's bootstrap on a real machine: fixed, so that a resumed
/// sweep refits its points as the first run would have.
const SEED: u64 = 1;

#[cfg(feature = "mpi")]
/// How rank 0 reports each step of the sweep.
pub(crate) struct Rank0<'a> {
    pub(crate) options: &'a MeasureOptions,
    pub(crate) topology: &'a Topology,
    pub(crate) layout: &'a Layout,
    pub(crate) resolved: Resolved,
    pub(crate) mpi: MpiInfo,
    pub(crate) transport: Transport,
    /// Rank 1's placement as it reported it.
    pub(crate) sender: Option<SenderPlacement>,
    pub(crate) settings: Option<MachineSettings>,
    pub(crate) progress: progress::Mode,
    pub(crate) interrupted: &'static AtomicBool,
    /// What moves the communication stream's bytes: the communicator of rank 0 and its
    /// sender, or a GPU's copies.
    pub(crate) stream: crate::measure::sweep::run::CommStream<'a>,
    /// The GPU whose copies are the stream, as the trace records it (`--engine gpu`).
    pub(crate) gpu: Option<crate::trace::GpuCopies>,
    /// What follows `--resume` where a cut run says how to continue it: the same command
    /// again ([`same_command_again`]), said wherever the run stops.
    pub(crate) again: String,
}

#[cfg(feature = "mpi")]
/// The buffers of one run: a computing buffer per thread of its largest point, the ring
/// rank 0 receives into, and the ring it sends from when the pattern exchanges.
struct Buffers<'t> {
    computing: Vec<Bytes<'t>>,
    receive: Bytes<'t>,
    send: Option<Bytes<'t>>,
}

#[cfg(feature = "mpi")]
/// Why [`Rank0::run`] ended without a complete trace.
pub(crate) enum Stop {
    /// Before any point: the trace is another run's, or another experiment than this run
    /// (`--resume`). Nothing was measured, so there is nothing to continue.
    Refused(Error),
    /// The sweep stopped; its finished points are in the trace at this path.
    Aborted(Abort, PathBuf),
}

/// What follows `--resume` in the message of a cut run: the command that continues it, this
/// process's own with `--resume` added and `--force` left out, quoted for the shell. Every
/// option that decides the trace (`-o`, `--kernel`, the GPU engine's, `--direction both`,
/// which continues one trace and starts the other) repeats as given: a resume that left one
/// out would look for another trace, or be refused as measured otherwise. Inside an MPI job
/// or a survey, the rank's command is the one the user typed (`contention survey ...`).
#[cfg(feature = "mpi")]
pub(crate) fn same_command_again() -> String {
    let mut command: Vec<std::ffi::OsString> =
        std::env::args_os().filter(|a| a != "--force").collect();
    if !command.iter().any(|a| a == "--resume") {
        command.push("--resume".into());
    }
    format!(
        " (the same command again: {})",
        crate::mpi::launch::shown(&command)
    )
}

#[cfg(feature = "mpi")]
/// How a measurement's end reads: the trace written (said unless quiet), or why it stopped
/// and how to continue it: `--resume` and `again` ([`Rank0::again`]).
pub(crate) fn ended(
    result: std::result::Result<PathBuf, Stop>,
    mode: progress::Mode,
    again: &str,
) -> Result<()> {
    match result {
        Ok(path) => {
            if mode != progress::Mode::Quiet {
                eprintln!(
                    "measure: trace written to {} (CSV: {})",
                    crate::error::shown_path(&path),
                    crate::error::shown_path(&csv_path(&path))
                );
            }
            Ok(())
        }
        Err(Stop::Refused(e)) => Err(e),
        Err(Stop::Aborted(Abort::Interrupted, path)) => Err(Error::Interrupted(format!(
            "interrupted: finished points are saved in {}; continue with --resume{again}",
            path.display(),
        ))),
        Err(Stop::Aborted(Abort::Stalled(why) | Abort::Failed(why), path)) => {
            Err(Error::Failed(format!(
                "{why} (finished points, if any, are in {}; continue with --resume{again})",
                path.display(),
            )))
        }
    }
}

#[cfg(feature = "mpi")]
impl Rank0<'_> {
    /// Runs the sweep, saving the trace after every point. A stalled run ends the process
    /// from inside the sweep (see [`Abort::Stalled`]).
    pub(crate) fn run(self) -> std::result::Result<PathBuf, Stop> {
        let path = self.options.trace_path(&self.layout.hostname);
        let fail =
            |e: Error, path: &Path| Stop::Aborted(Abort::Failed(e.to_string()), path.to_path_buf());
        // Held until this function returns: no other run writes this trace meanwhile.
        let _lock = crate::measure::sweep::lock::acquire(
            &path,
            &crate::measure::sweep::lock::holder(&self.layout.hostname),
        )
        .map_err(Stop::Refused)?;
        let mut trace = self.start_trace(&path).map_err(Stop::Refused)?;
        // A trace of runs: this launch measures one run, the first one unfinished.
        let run = runs::of_runs(&trace)
            .then(|| runs::current(&mut trace, self.options.seed, &crate::timestamp::now()));
        let (todo, run) = match run {
            None => (trace.missing_cores(&self.resolved.config.cores), None),
            Some(None) => (Vec::new(), None),
            Some(Some(i)) => (runs::todo(&trace.runs[i]), Some(i)),
        };
        // A resumed trace with nothing left is left as it is: saved again, it would take
        // this run's empty record of the buffers' pages and its time of update.
        if todo.is_empty() && self.resolved.adaptive.is_none() && self.options.resume {
            return Ok(self.nothing_to_measure(path));
        }
        let chooser = self.resolved.adaptive.map(|a| {
            let candidates = self.resolved.config.cores.clone();
            let (chooser, first) = a.design.start(&mut trace, a, candidates, SEED);
            self.say(first);
            chooser
        });
        if let Err(e) = save(&path, &mut trace) {
            return Err(fail(e, &path));
        }
        if todo.is_empty() {
            return Ok(self.nothing_to_measure(path));
        }
        let max = todo.iter().copied().max().unwrap_or(0) as usize;
        let mut buffers = match self.allocate(max) {
            Ok(b) => b,
            Err(e) => return Err(fail(e.into(), &path)),
        };
        trace.buffers = self.page_locations(&mut buffers);
        if let Err(e) = save(&path, &mut trace) {
            return Err(fail(e, &path));
        }
        if let Some(e) = trace
            .buffers
            .iter()
            .find_map(|p| memory::check_pages(p).err())
        {
            return Err(Stop::Aborted(Abort::Failed(e.to_string()), path));
        }
        if self.progress != progress::Mode::Quiet {
            if let Some(i) = run {
                eprintln!(
                    "measure: {}",
                    runs::start_line(i, trace.config.runs, &todo, trace.runs[i].seed)
                );
            }
            eprintln!("measure: {}", runs::point_scope(trace.config.runs));
        }
        self.sweep(&todo, chooser, buffers, &mut trace, &path, run)
            .map(|()| path.clone())
            .map_err(|a| Stop::Aborted(a, path))
    }

    /// The NUMA node `os` when the run binds its buffers, none otherwise.
    fn node(&self, os: u32) -> Option<u32> {
        self.resolved.config.bind.then_some(os)
    }

    /// One computing buffer per thread of the largest point (`max`) on the computing node,
    /// and the message rings on the communication node: the one rank 0 receives into, and
    /// the one it sends from when the pattern exchanges.
    fn allocate(&self, max: usize) -> std::result::Result<Buffers<'_>, memory::MemoryError> {
        let c = &self.resolved.config;
        let plan = &self.resolved.planned.plan;
        let computing = (0..max)
            .map(|_| {
                memory::allocate(
                    self.topology,
                    c.buffer_bytes_per_core as usize,
                    self.node(plan.comp_numa_os),
                )
            })
            .collect::<std::result::Result<Vec<_>, memory::MemoryError>>();
        let ring = c.message_size_bytes as usize * self.resolved.sizing().message_buffers as usize;
        let receive = memory::allocate(self.topology, ring, self.node(plan.comm_numa_os));
        let send = (self.options.pattern != CommPattern::Pong)
            .then(|| memory::allocate(self.topology, ring, self.node(plan.comm_numa_os)))
            .transpose();
        Ok(Buffers {
            computing: computing?,
            receive: receive?,
            send: send?,
        })
    }

    /// Binding verified, not assumed: where the kernel put every page of `buffers`, with a
    /// warning on standard error where it could not say.
    fn page_locations(&self, buffers: &mut Buffers<'_>) -> Vec<BufferPages> {
        let plan = &self.resolved.planned.plan;
        let mut pages: Vec<BufferPages> = buffers
            .computing
            .iter_mut()
            .enumerate()
            .map(|(i, b)| {
                memory::page_locations(
                    &format!("computation {i}"),
                    memory::as_bytes(b),
                    self.node(plan.comp_numa_os),
                )
            })
            .collect();
        // A GPU's copies read or write it, pinned; MPI messages are received into it.
        let label = match &self.gpu {
            Some(g) => format!("communication (GPU copies, {})", g.direction.words()),
            None => "communication (receive)".to_string(),
        };
        pages.push(memory::page_locations(
            &label,
            memory::as_bytes(&mut buffers.receive),
            self.node(plan.comm_numa_os),
        ));
        if let Some(b) = buffers.send.as_mut() {
            pages.push(memory::page_locations(
                "communication (send)",
                memory::as_bytes(b),
                self.node(plan.comm_numa_os),
            ));
        }
        if let Some(w) = pages.iter().find_map(memory::unverified) {
            eprintln!("warning: {w}");
        }
        pages
    }

    /// Says that the trace at `path` holds every asked core count, and gives its path back.
    fn nothing_to_measure(&self, path: PathBuf) -> PathBuf {
        eprintln!(
            "measure: {} already holds every asked core count; nothing to measure",
            path.display()
        );
        path
    }

    /// The sweep's settings, from the resolved configuration; `path` is where finished
    /// points are saved.
    fn bench<'s>(&'s self, path: &'s Path) -> Bench<'s> {
        let c = &self.resolved.config;
        Bench {
            topology: self.topology,
            plan: &self.resolved.planned.plan,
            workload: Workload::detect(self.options.kernel),
            pattern: self.options.pattern,
            chunk_bytes: self.resolved.sizing().chunk_bytes as usize,
            sample_seconds: self.resolved.sizing().sample_seconds,
            message_bytes: c.message_size_bytes as usize,
            bind: c.bind,
            sampling: Sampling {
                max_phase: Duration::from_secs_f64(c.max_phase_seconds),
                stable_within: c.stable_within,
                timeout: Duration::from_secs_f64(c.timeout_seconds),
            },
            interrupted: self.interrupted,
            saved_to: path,
            again: &self.again,
            stream: self.stream,
            starvation: self.starvation(),
        }
    }

    /// What tells this run's communications starved: the transport, and whether the plan
    /// put rank 1 on the communication thread's core.
    fn starvation(&self) -> Starvation {
        let intra_node = self.transport.kind == TransportKind::IntraNode;
        let comm = self.resolved.planned.plan.comm;
        Starvation {
            intra_node,
            shared_core: (intra_node && self.resolved.sender.slot == Some(comm))
                .then_some(comm.core),
            message_bytes: self.resolved.config.message_size_bytes,
            sweep_max: self
                .resolved
                .config
                .cores
                .iter()
                .copied()
                .max()
                .unwrap_or(1),
            gpu: self.gpu.is_some(),
        }
    }

    /// An adaptive sweep's line on standard error, unless quiet.
    fn say(&self, line: Option<String>) {
        if let (Some(line), false) = (line, self.progress == progress::Mode::Quiet) {
            eprintln!("measure: adaptive: {line}");
        }
    }

    /// Measures the core counts `todo` into `trace` in order, or with `chooser` those it
    /// chooses one by one (at most `todo`), printing each point as it ends and saving the
    /// trace at `path` after it.
    fn sweep(
        &self,
        todo: &[u32],
        chooser: Option<Box<dyn adaptive::NextPoint>>,
        buffers: Buffers<'_>,
        trace: &mut Trace,
        path: &Path,
        run: Option<usize>,
    ) -> std::result::Result<(), Abort> {
        let adaptive = chooser.is_some();
        let c = &self.resolved.config;
        let bench = self.bench(path);
        let Buffers {
            computing,
            mut receive,
            mut send,
        } = buffers;
        // An adaptive sweep chooses its points as it goes: `todo` is its candidates.
        let progress = std::cell::RefCell::new(if adaptive {
            Progress::open(self.progress, trace.points.len())
        } else {
            Progress::new(self.progress, todo.len())
        });
        let mut warned = false;
        let trace = std::cell::RefCell::new(trace);
        let chooser = std::cell::RefCell::new(chooser);
        let started = std::cell::Cell::new(Instant::now());
        let mut order = todo.iter().copied();
        // Asked by rank 0's main thread between two points, while rank 1 waits for the next
        // stream: the fit takes well under a second on a node (tens of seconds in an emulated
        // guest), and a Ctrl-C meanwhile ends the sweep at the next phase's first look.
        let next = || {
            let mut chooser = chooser.borrow_mut();
            let Some(chooser) = chooser.as_mut() else {
                started.set(Instant::now());
                return order.next();
            };
            let mut t = trace.borrow_mut();
            let (n, line) = chooser.next(&mut t);
            self.say(line);
            started.set(Instant::now());
            n
        };
        let result = bench.sweep(
            next,
            &mut receive,
            send.as_mut(),
            computing,
            |n, phase| progress.borrow_mut().phase(n, phase),
            |point: TracePoint| {
                let mut line = point_line(&point, self.resolved.config.stable_within);
                if let Some(w) = few_messages(&point, c).filter(|_| !warned) {
                    warned = true;
                    line += &format!("\nWARNING     {w}");
                }
                progress.borrow_mut().point_done(&line);
                if let Some(c) = chooser.borrow_mut().as_mut() {
                    c.measured(started.get().elapsed());
                }
                let mut t = trace.borrow_mut();
                match run {
                    Some(i) => t.runs[i].points.push(point),
                    None => t.points.push(point),
                }
                save(path, &mut t)
            },
        );
        if let (Some(_), Ok(()), false) = (run, &result, self.progress == progress::Mode::Quiet) {
            eprint!("{}", runs_summary(&trace.borrow()));
        }
        if adaptive && result.is_ok() {
            // Why the sweep ended, recorded by the chooser after the last point.
            save(path, &mut trace.borrow_mut()).map_err(|e| Abort::Failed(e.to_string()))?;
        }
        result
    }

    /// A new trace, or the one to resume after checking it measured the same experiment.
    fn start_trace(&self, path: &Path) -> Result<Trace> {
        let now = crate::timestamp::now();
        let fresh = Trace {
            schema_version: TRACE_SCHEMA_VERSION,
            tool: Provenance::current(),
            machine: self.layout.machine_info(),
            mpi: self.mpi.clone(),
            config: self.resolved.config.clone(),
            plan: self.resolved.planned.plan.clone(),
            started_at: now.clone(),
            updated_at: now,
            complete: false,
            points: Vec::new(),
            runs: Vec::new(),
            transport: Some(self.transport.clone()),
            sender: self.sender.clone(),
            settings: self.settings.clone(),
            buffers: Vec::new(),
            simulation: None,
            adaptive: None,
            gpu: self.gpu.clone(),
        };
        if !self.options.resume {
            return Ok(fresh);
        }
        let old = trace_file::read_to_resume(path)?;
        refuse_simulated(&old, path)?;
        refuse_differences(&old, &fresh, path)?;
        let mut cores = old.config.cores.clone();
        cores.extend(&fresh.config.cores);
        cores.sort_unstable();
        cores.dedup();
        let (old, _) = resumable(old, &fresh, path);
        // A trace of runs keeps its points in its runs; its own combine them, made again
        // at every save.
        let points = if old.runs.is_empty() {
            old.points
        } else {
            Vec::new()
        };
        let runs = old.runs;
        Ok(Trace {
            config: MeasureConfig {
                cores,
                // A trace's runs are kept; more may be asked for.
                runs: old.config.runs.max(fresh.config.runs),
                ..fresh.config
            },
            points,
            runs,
            started_at: old.started_at,
            adaptive: old.adaptive,
            ..fresh
        })
    }
}

/// `old` (read to resume at `path`, [`trace_file::read_to_resume`]) without the points a
/// reader refuses on `fresh`'s machine, each dropped named on standard error: their core
/// counts are measured again. Kept, they were saved in a trace marked complete that
/// `calibrate` refused (a real run), or went on unnamed (a simulated one, issue 46). A
/// trace of runs has its combined points made again from its runs, each refused one named:
/// whether any was is returned, for a resume with nothing left to measure still saves them.
pub(crate) fn resumable(old: Trace, fresh: &Trace, path: &Path) -> (Trace, bool) {
    let (kept, refused) = without_refused(old, fresh.machine.cores_per_socket, path);
    for why in &refused.dropped {
        eprintln!(
            "measure: --resume drops a point every reader would refuse, to measure it again: \
             {}",
            crate::error::escape(why)
        );
    }
    for why in &refused.remade {
        eprintln!(
            "measure: --resume makes the trace's combined points again from its runs, as \
             every reader refuses one: {}",
            crate::error::escape(why)
        );
    }
    (kept, !refused.remade.is_empty())
}

/// What [`without_refused`] took out of a trace, each with why.
#[derive(Debug, Default)]
pub(crate) struct Refused {
    /// Points of a run (or of a trace of one run): dropped, their core counts measured
    /// again.
    pub(crate) dropped: Vec<String>,
    /// Combined points of a trace of runs: derived from the runs, made again from them
    /// (issue 46, N1: a resume of a complete trace with one corrupt said "nothing to
    /// measure" and left it for calibrate to refuse, advising that very resume).
    pub(crate) remade: Vec<String>,
}

/// `trace` (at `path`) without the points a reader refuses on a machine of
/// `cores_per_socket` (an impossible phase, a core count beyond the machine: an edited or
/// corrupt file, [`crate::dataset::impossible_points`]'s rule), and why for each; a trace
/// of runs drops them from its runs and combines what is left again, which replaces its
/// combined points, refused or not.
pub(crate) fn without_refused(
    mut trace: Trace,
    cores_per_socket: u32,
    path: &Path,
) -> (Trace, Refused) {
    let source = crate::error::shown_path(path);
    let refused_in = |points: &[TracePoint], at: &str| {
        crate::dataset::Input::refused_points(points, cores_per_socket, &source, at)
    };
    let mut refused = Refused::default();
    let mut keep = |points: Vec<TracePoint>, at: &str| -> Vec<TracePoint> {
        let bad = refused_in(&points, at);
        let gone: std::collections::HashSet<usize> = bad.iter().map(|(i, _)| *i).collect();
        refused.dropped.extend(bad.into_iter().map(|(_, why)| why));
        points
            .into_iter()
            .enumerate()
            .filter(|(i, _)| !gone.contains(i))
            .map(|(_, p)| p)
            .collect()
    };
    if trace.runs.is_empty() {
        trace.points = keep(std::mem::take(&mut trace.points), "points");
    } else {
        for (i, r) in trace.runs.iter_mut().enumerate() {
            r.points = keep(std::mem::take(&mut r.points), &format!("runs[{i}].points"));
        }
        refused.remade = refused_in(&trace.points, "points")
            .into_iter()
            .map(|(_, why)| why)
            .collect();
        trace.points = runs::combine(&trace.runs);
    }
    (trace, refused)
}

/// Refuses to resume `old` with `fresh` (this run's resolved trace) when they are two
/// experiments, naming each difference.
fn refuse_differences(old: &Trace, fresh: &Trace, path: &Path) -> Result<()> {
    // The engine first, with the options that give the trace's: a resume does not take
    // them from the trace (the engine is chosen before the trace is read).
    let (was, now) = (engine_flags(old), engine_flags(fresh));
    if was != now {
        return Err(Error::Input(format!(
            "--resume: `{}` holds {}, and this run measures {}: give the trace's options \
             (`{}`), or start a new trace with -o",
            crate::error::shown_path(path),
            engine_words(old),
            engine_words(fresh),
            was.as_deref().unwrap_or("--engine mpi")
        )));
    }
    let differences = resume_differences(old, fresh);
    if differences.is_empty() {
        return Ok(());
    }
    Err(Error::Input(format!(
        "--resume: `{}` was measured otherwise: {}; leave out the options that differ (the \
         trace's values are kept) or give the trace's, or start a new trace with -o",
        crate::error::shown_path(path),
        differences.join("; ")
    )))
}

/// The options of a trace's GPU engine ([`crate::trace::GpuCopies::options`]), `None` for
/// an MPI trace.
fn engine_flags(t: &Trace) -> Option<String> {
    t.gpu.as_ref().map(crate::trace::GpuCopies::options)
}

/// What a trace measured, in words.
fn engine_words(t: &Trace) -> String {
    match &t.gpu {
        None => "MPI messages".into(),
        // Two replays differ by their file: named, or the refusal reads "X, and this run
        // measures X".
        Some(g) if g.replayed_from.is_some() => format!(
            "{} (replayed from {})",
            g.words(),
            crate::error::escape_line(g.replayed_from.as_deref().unwrap_or_default())
        ),
        Some(g) => g.words(),
    }
}

/// What this run would record before its MPI job starts: the trace `old` with this host's
/// configuration, plan and host name; its MPI stack and transport are `old`'s, which only
/// the job can tell apart.
fn measured_here(old: &Trace, resolved: &Resolved, layout: &Layout) -> Trace {
    let mut here = old.clone();
    // An MPI job: no GPU copies, whatever the trace holds.
    here.gpu = None;
    here.config = resolved.config.clone();
    here.plan = resolved.planned.plan.clone();
    here.machine.hostname = layout.hostname.clone();
    here
}

/// What makes `fresh` (this run's resolved trace) another experiment than `old`, one phrase
/// each naming the option and both values. Sizes the tool chose itself are never among them:
/// [`resolve`] takes them from the old trace. One comparison per setting, side by side: the
/// function stays whole so that what is compared reads as one list, and a setting left out
/// shows.
fn resume_differences(old: &Trace, fresh: &Trace) -> Vec<String> {
    let (o, n) = (&old.config, &fresh.config);
    let mut out = Vec::new();
    let mut differ = |what: &str, was: String, now: String| {
        if was != now {
            out.push(format!("{what} {was} in the trace, {now} now"));
        }
    };
    differ(
        "--numa",
        format!("{},{}", o.comp_numa, o.comm_numa),
        format!("{},{}", n.comp_numa, n.comm_numa),
    );
    let size = |b: u64| crate::units::ByteSize(b).to_string();
    differ(
        "--message-size",
        size(o.message_size_bytes),
        size(n.message_size_bytes),
    );
    differ(
        "--buffer-size",
        size(o.buffer_bytes_per_core),
        size(n.buffer_bytes_per_core),
    );
    let sampling = |c: &MeasureConfig| {
        if c.sizing.is_some() {
            "in chunks".to_string()
        } else {
            "one sample per pass over the buffer (an older contention)".to_string()
        }
    };
    differ("sampling", sampling(o), sampling(n));
    let slots = |c: &MeasureConfig| c.sizing.as_ref().map_or(1, |s| s.message_buffers);
    differ(
        "--message-buffers",
        slots(o).to_string(),
        slots(n).to_string(),
    );
    differ(
        "--kernel",
        o.compute_kernel.clone(),
        n.compute_kernel.clone(),
    );
    differ("store instructions", o.kernel.clone(), n.kernel.clone());
    let bind = |b: bool| if b { "bound" } else { "--no-bind" }.to_string();
    differ("binding", bind(o.bind), bind(n.bind));
    differ("--pattern", o.pattern.clone(), n.pattern.clone());
    differ("--ranks", o.ranks.to_string(), n.ranks.to_string());
    // How long and how finely each phase was sampled; free to change while no point was
    // measured.
    if !old.points.is_empty() {
        differ(
            "--max-phase",
            crate::units::short_number(o.max_phase_seconds),
            crate::units::short_number(n.max_phase_seconds),
        );
        // Rounded: the trace keeps a fraction, the option is in percent.
        let percent = |f: f64| format!("{}", (f * 1e8).round() / 1e6);
        differ(
            "--stable-within",
            percent(o.stable_within),
            percent(n.stable_within),
        );
    }
    if let (Some(o), Some(n)) = (&old.transport, &fresh.transport) {
        let kind = |t: &Transport| format!("{:?}", t.kind).to_lowercase();
        differ("transport (see --hosts)", kind(o), kind(n));
    }
    // The fabric: points measured over two stacks are not one experiment.
    if let (Some(o), Some(n)) = (&old.mpi.stack, &fresh.mpi.stack) {
        differ(
            "MPI stack (OMPI_MCA_pml, OMPI_MCA_btl, UCX_TLS...)",
            format!("`{}`", o.summary),
            format!("`{}`", n.summary),
        );
    }
    differ(
        "host",
        old.machine.hostname.clone(),
        fresh.machine.hostname.clone(),
    );
    // The GPUs that copied, by bus: another set (CUDA_VISIBLE_DEVICES, a GPU gone or
    // added) is another stream.
    if let (Some(o), Some(n)) = (&old.gpu, &fresh.gpu) {
        differ("GPU bus ids", gpu_buses(o), gpu_buses(n));
    }
    if old.plan != fresh.plan {
        out.push("the pinning plan (cores or --comm-core) differs".into());
    }
    out
}

/// The bus ids of the GPUs that copied: `0000:3b:00.0`, or every one of `--gpu all`.
fn gpu_buses(g: &crate::trace::GpuCopies) -> String {
    let devices = if g.devices.is_empty() {
        std::slice::from_ref(&g.device)
    } else {
        &g.devices[..]
    };
    let buses: Vec<&str> = devices.iter().map(|d| d.pci_bus_id.as_str()).collect();
    crate::error::escape_line(&buses.join(","))
}

/// Why the communication phases cannot be stable when the messages are too long for
/// `--max-phase` (each message is one sample), even stretched to [`PHASE_STRETCH`] times it:
/// the messages the first phase got, at its median bandwidth, and the `--max-phase` or
/// message size that would give enough.
fn few_messages(p: &TracePoint, c: &MeasureConfig) -> Option<String> {
    let got = p.comm_alone.samples.len();
    let min = MIN_ROUNDS;
    if got >= min {
        return None;
    }
    let mbps = p.comm_alone.summary.median;
    let per_message = c.message_size_bytes as f64 / (mbps * 1e6);
    let wanted = (min + 4) as f64;
    // At the median bandwidth, and at the pace the phase showed (`got` messages in the
    // stretched phase): a median above the phase's pace (a slow start) alone would ask for
    // no more than was given.
    let at_median = per_message * wanted / f64::from(PHASE_STRETCH);
    let at_pace = c.max_phase_seconds * wanted / got.max(1) as f64;
    Some(format!(
        "communications alone got {got} messages of {} within {PHASE_STRETCH}x --max-phase {} \
         ({mbps:.0} MB/s): a stable phase needs {min}, so the communication phases will be \
         flagged unstable; raise --max-phase to {} or lower --message-size",
        human_bytes(c.message_size_bytes),
        c.max_phase_seconds,
        crate::units::round_up(at_median.max(at_pace))
    ))
}

/// Writes the trace and its CSV, atomically, marking it complete when no core count is left.
pub(crate) fn save(path: &Path, trace: &mut Trace) -> Result<()> {
    if trace.runs.is_empty() {
        trace.points.sort_by_key(|p| p.cores);
        // Points alone are one run: complete when that is all `config.runs` asks for
        // (every reader refuses one marked complete that asks for more, issue 46, N4).
        trace.complete =
            trace.missing_cores(&trace.config.cores).is_empty() && trace.config.runs <= 1;
    } else {
        for r in &mut trace.runs {
            r.points.sort_by_key(|p| p.cores);
        }
        trace.points = runs::combine(&trace.runs);
        trace.complete = runs::complete(trace);
    }
    // What every reader would refuse is never written: a run drawn again (a simulated run's
    // draws follow its index, so a trace with a run deleted drew a copy of a later one,
    // issue 46) is said here, before the file holds it.
    if let Some(why) = trace.record_problem() {
        return Err(Error::Input(format!(
            "{}: not saved: {why}; no measurement leaves that, so the trace was edited before \
             this run (a run deleted?): start a new trace with -o",
            crate::error::shown_path(path)
        )));
    }
    trace.updated_at = crate::timestamp::now();
    // The CSV travels without its trace: it carries the trace's origin itself.
    let simulated = trace_file::simulated(trace, &crate::error::shown_path(path))?;
    trace_file::write(path, trace)?;
    atomic::write(
        &csv_path(path),
        tidy_csv::marked(&trace.tidy_rows(), simulated.map(|s| s.machine.as_str())).as_bytes(),
    )
}

#[cfg(test)]
mod tests {
    use crate::cores::CoreList;
    use crate::measure::session::*;
    use crate::trace::Phase;

    /// Issue 46, N1: a trace of runs whose combined points a reader refuses is resumed with
    /// them made again from its runs (derived data), named, not measured again; a sound
    /// one is left with nothing taken.
    #[test]
    fn a_resume_makes_refused_combined_points_again_from_the_runs() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/data/real-16core/trace-default-14cores-3runs.json");
        let sound = trace_file::read(&path).unwrap();
        let cps = sound.machine.cores_per_socket;
        let (same, refused) = without_refused(sound.clone(), cps, &path);
        assert!(refused.dropped.is_empty() && refused.remade.is_empty());
        assert_eq!(same.points, runs::combine(&sound.runs));
        let mut edited = sound.clone();
        edited.points[0].comm_alone.summary.min = 1e6;
        let (remade, refused) = without_refused(edited, cps, &path);
        assert!(refused.dropped.is_empty(), "{:?}", refused.dropped);
        assert_eq!(refused.remade.len(), 1, "{:?}", refused.remade);
        assert!(refused.remade[0].contains("points[0]: at 1 cores, comm_alone: min 1e6"));
        assert_eq!(remade.points, same.points);
        assert!(runs::nothing_left(&remade, &remade.config.cores, 3));
    }

    /// The plan of `options` on a synthetic hwloc machine, built without the command line.
    fn plan_text(synthetic: &str, a: MeasureOptions) -> String {
        let layout = crate::machine::topology::layout(
            &crate::machine::topology::load_synthetic(synthetic).unwrap(),
        );
        let r = resolve(&a, &layout, Path::new("/nonexistent"), None, true).unwrap();
        crate::measure::describe::describe_plan(&layout, &r, &transport(&["a".into()]), None)
    }

    #[test]
    fn the_plan_names_the_remote_placement_under_sub_numa_clustering() {
        let snc = plan_text("pack:2 numa:2 core:4 pu:1", MeasureOptions::default());
        assert!(
            snc.contains(
                "--numa 0,0 (local) and --numa 2,2 (remote: node 2 is the first of socket 1"
            ),
            "{snc}"
        );
        // Rank 1 on the last core of socket 1, its buffer on that core's node (3).
        assert!(snc.contains("sender      rank 1 on core 15"), "{snc}");
        assert!(snc.contains("send buffer on NUMA node L#3"), "{snc}");
        let flat = plan_text("pack:2 core:4 pu:1", MeasureOptions::default());
        assert!(flat.contains("--numa 1,1 (remote"), "{flat}");
        let one = plan_text(
            "pack:1 core:4 pu:1",
            MeasureOptions {
                cores: Some(CoreList::from_counts(&[1])),
                ..MeasureOptions::default()
            },
        );
        assert!(one.contains("needs one placement"), "{one}");
        assert!(one.contains("transport   intra-node"), "{one}");
    }

    #[test]
    fn options_built_without_the_command_line_are_checked_against_the_machine() {
        let layout = crate::machine::topology::layout(
            &crate::machine::topology::load_synthetic("pack:2 numa:2 core:4 pu:1").unwrap(),
        );
        let refused =
            |a: MeasureOptions| match resolve(&a, &layout, Path::new("/nonexistent"), None, true) {
                Err(e) if e.exit_code() == crate::error::EXIT_INPUT => e.to_string(),
                Err(e) => panic!("not an input error: {e}"),
                Ok(_) => panic!("{a:?} was accepted"),
            };
        let m = refused(MeasureOptions {
            comm_numa: 7,
            ..MeasureOptions::default()
        });
        assert!(
            m.starts_with("NUMA node 7 (for the communication data) does not exist"),
            "{m}"
        );
        let m = refused(MeasureOptions {
            cores: Some(CoreList::from_counts(&[1, 9])),
            ..MeasureOptions::default()
        });
        assert!(m.contains('9'), "{m}");
        let ok = resolve(
            &MeasureOptions {
                comp_numa: 2,
                comm_numa: 2,
                kernel: crate::kernels::ComputeKernel::Copy,
                pattern: CommPattern::Pingpong,
                ..MeasureOptions::default()
            },
            &layout,
            Path::new("/nonexistent"),
            None,
            true,
        )
        .unwrap();
        assert_eq!(ok.config.pattern, "pingpong");
        assert_eq!(ok.config.compute_kernel, "copy");
        assert_eq!((ok.config.comp_numa, ok.config.comm_numa), (2, 2));
    }

    /// Issue 35, item 15: with `--max-phase 0.3`, 20 messages and a median fast enough that
    /// 34 would fit, the warning said "raise --max-phase to 0.3", the value given.
    #[test]
    fn the_few_messages_warning_asks_for_more_than_was_given() {
        let mut trace = crate::io::trace_file::parse(
            include_str!("../../../tests/data/traces/vm-local.json"),
            "vm-local.json",
        )
        .unwrap();
        let c = &mut trace.config;
        c.max_phase_seconds = 0.3;
        c.message_size_bytes = 64 * MIB;
        let mut p = trace.points[0].clone();
        p.comm_alone = Phase::of_median(10_000.0, None, true);
        let one = trace.points[0].comm_alone.samples[0];
        p.comm_alone.samples = vec![one; 20];
        let w = few_messages(&p, &trace.config).expect("20 messages are too few");
        let raise: f64 = w
            .split("raise --max-phase to ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no value to raise to in {w}"));
        assert!(raise > 0.3, "{w}");
        // Enough at the pace the phase showed: 20 messages in 4 x 0.3 s, 34 wanted.
        assert!(raise >= 0.3 * 34.0 / 20.0, "{w}");
    }

    const MIB: u64 = 1 << 20;

    fn synthetic(description: &str) -> Layout {
        crate::machine::topology::layout(
            &crate::machine::topology::load_synthetic(description).unwrap(),
        )
    }

    /// A sysfs tree whose every NUMA node has `free` bytes free.
    fn sysfs_with_free(nodes: u32, free: u64) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for n in 0..nodes {
            let d = dir.path().join(format!("node/node{n}"));
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(
                d.join("meminfo"),
                format!("Node {n} MemFree:   {} kB\n", free / 1024),
            )
            .unwrap();
        }
        dir
    }

    #[test]
    fn buffers_and_rings_are_sized_from_the_cache_of_their_own_socket() {
        // Two 64-core sockets with 1 GiB of L3 each: the rule counts one socket's cache.
        let big = synthetic("pack:2 l3:1(size=1GiB) core:64 pu:1");
        assert_eq!(big.sockets[0].llc_bytes, 1 << 30);
        assert_eq!(big.llc_of([0, 0, 1]), 2 << 30);
        let r = resolve(
            &MeasureOptions::default(),
            &big,
            Path::new("/nonexistent"),
            None,
            true,
        )
        .unwrap();
        let (c, z) = (&r.config, r.sizing());
        assert_eq!(z.llc_bytes_comp, 1 << 30);
        assert_eq!(z.llc_bytes_comm, 1 << 30);
        // Every core of socket 0 computes (the communication thread is on socket 1): 4 GiB
        // over 64, the 64 MiB floor.
        assert_eq!(*c.cores.last().unwrap(), 64);
        assert_eq!(c.buffer_bytes_per_core, 64 * MIB);
        // 64 MiB messages: 64 of them make 4 GiB.
        assert_eq!(z.message_buffers, 64);
        assert!(z.warnings.is_empty(), "{:?}", z.warnings);
        // Enough rounds on the slowest core this is sized for.
        assert!(
            sizing::rounds_at(
                c.max_phase_seconds,
                z.chunk_bytes,
                sizing::SLOWEST_CORE_BANDWIDTH
            ) >= MIN_ROUNDS
        );
        let text =
            crate::measure::describe::describe_plan(&big, &r, &transport(&["a".into()]), None);
        assert!(text.contains("against 1 GiB of last-level cache"), "{text}");
        assert!(text.contains("into 64 buffer(s) (4 GiB)"), "{text}");

        // 256 MiB per socket, 12 cores: 1 GiB over 12.
        let small = synthetic("pack:2 l3:1(size=256MiB) core:12 pu:1");
        let r = resolve(
            &MeasureOptions::default(),
            &small,
            Path::new("/nonexistent"),
            None,
            true,
        )
        .unwrap();
        assert_eq!(r.config.buffer_bytes_per_core, 86 * MIB);
        assert_eq!(r.sizing().message_buffers, 16);
    }

    #[test]
    fn every_recorded_machine_gets_the_cache_rule_and_enough_rounds() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/topologies");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "xml") {
                continue;
            }
            let layout = crate::machine::topology::layout(
                &crate::machine::topology::load_xml(&path).unwrap(),
            );
            let r = resolve(
                &MeasureOptions::default(),
                &layout,
                Path::new("/nonexistent"),
                None,
                true,
            )
            .unwrap();
            let (c, z) = (&r.config, r.sizing());
            let max = u64::from(*c.cores.last().unwrap());
            let name = path.display();
            assert!(z.llc_bytes_comp > 0, "{name}: hwloc's caches are read");
            // One socket's cache at most: never the whole machine's on a multi-socket machine.
            let whole: u64 = layout.sockets.iter().map(|s| s.llc_bytes).sum();
            assert!(
                layout.sockets.len() == 1 || z.llc_bytes_comp < whole,
                "{name}"
            );
            assert!(z.llc_bytes_comp <= layout.sockets[0].llc_bytes, "{name}");
            // A sweep of fewer cores than the socket counts only the dies it runs on.
            let one = resolve(
                &MeasureOptions {
                    cores: Some(crate::cores::CoreList::from_counts(&[1])),
                    ..MeasureOptions::default()
                },
                &layout,
                Path::new("/nonexistent"),
                None,
                true,
            )
            .unwrap();
            let die = one.sizing().llc_bytes_comp;
            assert!(die > 0 && die <= z.llc_bytes_comp, "{name}");
            assert!(c.buffer_bytes_per_core * max >= sizing::CACHE_FACTOR * z.llc_bytes_comp);
            assert!(
                c.message_size_bytes * u64::from(z.message_buffers)
                    >= sizing::CACHE_FACTOR * z.llc_bytes_comm
            );
            assert!(z.warnings.is_empty(), "{name}: {:?}", z.warnings);
            assert!(
                sizing::rounds_at(
                    c.max_phase_seconds,
                    z.chunk_bytes,
                    sizing::SLOWEST_CORE_BANDWIDTH
                ) >= MIN_ROUNDS,
                "{name}"
            );
            seen += 1;
        }
        assert_eq!(seen, 5);
        // A chiplet socket (four dies of four cores, 16 MiB of L3 each): a sweep counts the
        // caches of the dies it runs on.
        let chiplet = synthetic("pack:2 l3:4(size=16MiB) core:4 pu:1");
        assert_eq!(chiplet.sockets[0].llc_bytes, 64 * MIB);
        let llc = |cores: &[u32]| {
            let a = MeasureOptions {
                cores: Some(crate::cores::CoreList::from_counts(cores)),
                ..MeasureOptions::default()
            };
            resolve(&a, &chiplet, Path::new("/nonexistent"), None, true)
                .unwrap()
                .sizing()
                .llc_bytes_comp
        };
        assert_eq!(llc(&[1, 2, 4]), 16 * MIB);
        assert_eq!(llc(&[1, 5]), 32 * MIB);
        assert_eq!(llc(&[16]), 64 * MIB);
    }

    #[test]
    fn free_memory_caps_the_sizes_and_the_plan_says_by_how_much() {
        // This machine kind: one socket, 2 cores, 480 MiB of L3, about 3.8 GB free.
        let vm = synthetic("pack:1 l3:1(size=480MiB) core:2 pu:1");
        let free = sysfs_with_free(1, 3_800_000_000);
        let a = MeasureOptions {
            shared_comm_core: true,
            ..MeasureOptions::default()
        };
        let r = resolve(&a, &vm, free.path(), None, true).unwrap();
        let (c, z) = (&r.config, r.sizing());
        let avail = 3_800_000_000u64 - 380_000_000;
        // Half of the node for the receive ring and rank 1's send ring, 64 MiB slots.
        assert_eq!(z.message_buffers as u64, avail / 2 / 2 / (64 * MIB));
        let rings = 2 * 64 * MIB * u64::from(z.message_buffers);
        assert_eq!(c.buffer_bytes_per_core, ((avail - rings) / 2) & !(MIB - 1));
        assert!(c.buffer_bytes_per_core * 2 + rings <= avail);
        assert_eq!(z.warnings.len(), 2, "{:?}", z.warnings);
        assert!(
            z.warnings[0].contains("free memory allows"),
            "{:?}",
            z.warnings
        );
        assert!(
            z.warnings[1].contains("--message-buffers"),
            "{:?}",
            z.warnings
        );
        // What the user gives is kept, and checked against the node.
        let given = MeasureOptions {
            buffer_size: Some(crate::units::ByteSize(64 * MIB)),
            message_buffers: Some(2),
            ..a.clone()
        };
        let r = resolve(&given, &vm, free.path(), None, true).unwrap();
        assert_eq!(r.config.buffer_bytes_per_core, 64 * MIB);
        assert_eq!(r.sizing().message_buffers, 2);
        let too_many = MeasureOptions {
            message_buffers: Some(100),
            ..a.clone()
        };
        let e = resolve(&too_many, &vm, free.path(), None, true)
            .err()
            .unwrap();
        assert!(e.to_string().contains("free"), "{e}");
    }

    #[test]
    fn resume_keeps_what_the_tool_sized_and_names_what_the_user_changed() {
        let vm = synthetic("pack:1 l3:1(size=480MiB) core:2 pu:1");
        let a = MeasureOptions {
            shared_comm_core: true,
            ..MeasureOptions::default()
        };
        let first = resolve(
            &a,
            &vm,
            sysfs_with_free(1, 3_000_000_000).path(),
            None,
            true,
        )
        .unwrap();
        // The machine has more free memory now: a fresh run would size bigger...
        let later = sysfs_with_free(1, 3_800_000_000);
        let fresh = resolve(&a, &vm, later.path(), None, true).unwrap();
        assert!(fresh.config.buffer_bytes_per_core > first.config.buffer_bytes_per_core);
        assert!(fresh.sizing().message_buffers > first.sizing().message_buffers);
        // ... but a resumed one measures what the trace measured.
        let resumed = resolve(&a, &vm, later.path(), Some(&first.config), true);
        let resumed = resumed.unwrap();
        assert_eq!(
            resumed.config.buffer_bytes_per_core,
            first.config.buffer_bytes_per_core
        );
        assert_eq!(
            resumed.sizing().message_buffers,
            first.sizing().message_buffers
        );
        // Options the user gives that differ are each named, with both values.
        let recorded = trace_file::read(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/traces/vm-local.json"),
        )
        .unwrap();
        let trace = |config: MeasureConfig| Trace {
            config,
            ..recorded.clone()
        };
        let changed = MeasureOptions {
            buffer_size: Some(crate::units::ByteSize(64 * MIB)),
            message_size: crate::units::ByteSize(8 * MIB),
            ..a.clone()
        };
        let now = resolve(&changed, &vm, later.path(), Some(&first.config), true).unwrap();
        let d = resume_differences(&trace(first.config.clone()), &trace(now.config));
        assert_eq!(d.len(), 2, "{d:?}");
        assert!(
            d[0].starts_with("--message-size 64MiB in the trace, 8MiB now"),
            "{d:?}"
        );
        assert!(d[1].starts_with("--buffer-size "), "{d:?}");
        assert!(d[1].ends_with(", 64MiB now"), "{d:?}");
        let same = resume_differences(&trace(first.config.clone()), &trace(resumed.config));
        assert!(same.is_empty(), "{same:?}");
    }
}
