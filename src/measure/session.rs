//! One measurement session on rank 0: resolve the options against the machine, describe the
//! plan (`--dry-run`), allocate the bound buffers, run the sweep and keep the trace on disk
//! after every point.

use super::choices::{CommPattern, ComputeKernel};
use super::kernel::Kernel;
use super::memory::{self, human_bytes};
use super::options::{MeasureOptions, MIN_BUFFER};
use super::plan::{self, Planned, Request, SenderPlan};
use super::progress::{self, Progress};
use super::run::{Abort, Bench, Sampling};
use super::topology::Layout;
use super::workload::Workload;
use crate::error::{Error, IoAction, Result};
use crate::io::{atomic, tidy_csv, trace_file};
use crate::provenance::Provenance;
use crate::trace::{
    BufferPages, MachineSettings, MeasureConfig, MpiInfo, SenderPlacement, Trace, TracePoint,
    Transport, TransportKind, TRACE_SCHEMA_VERSION,
};
use hwlocality::Topology;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Default bytes each computing core writes per iteration when the machine's caches are
/// unknown.
pub const DEFAULT_BUFFER: u64 = 256 << 20;
/// Per-core bandwidth, bytes/s, of the slowest placement the default buffer is sized for:
/// a full 18-core socket writing to the other socket's node (bora in the paper: 32 GB/s for
/// 18 cores, 1.8 GB/s each), with a margin for the contention of the parallel phase.
pub const SLOWEST_CORE_BANDWIDTH: f64 = 1.5e9;
/// Rounds a phase aims for within `--max-phase`: several times the stopping rule's minimum,
/// so that its batch medians have batches of several rounds.
pub const TARGET_ROUNDS: usize = 4 * super::sampling::MIN_ROUNDS;
/// The buffer must be this many times the machine's last-level cache: a virtual machine's
/// hwloc may report less cache than the host really has (256 MiB buffers still partly hit
/// the cache of the 32 MB-L3 development VM).
pub const LLC_MULTIPLE: u64 = 16;

/// The default buffer per computing core (bytes, whole MiB) and, when it cannot be short
/// enough, a warning with the `--max-phase` that would give the slowest placement
/// [`TARGET_ROUNDS`] rounds.
///
/// Sized for a target iteration time, `max_phase / (TARGET_ROUNDS + 2)` (the first and last
/// iteration of a phase are dropped, section 4.1.1) at [`SLOWEST_CORE_BANDWIDTH`], but never
/// below [`LLC_MULTIPLE`] times the last-level cache (or 64 MiB), where caches would answer.
pub fn default_buffer(max_phase: f64, llc_bytes: u64) -> (u64, Option<String>) {
    let rounds = (TARGET_ROUNDS + 2) as f64;
    let for_time = (max_phase / rounds * SLOWEST_CORE_BANDWIDTH) as u64;
    let floor = if llc_bytes == 0 {
        DEFAULT_BUFFER
    } else {
        (LLC_MULTIPLE * llc_bytes).max(64 << 20)
    };
    let buffer = for_time.max(floor) & !((1 << 20) - 1);
    let note = (floor > for_time).then(|| {
        let needed = buffer as f64 / SLOWEST_CORE_BANDWIDTH * rounds;
        format!(
            "buffers of {} (to dwarf {} of last-level cache) take up to {:.2} s per \
             iteration on a loaded socket: the slowest placements may get fewer than {} \
             rounds within --max-phase {max_phase}; raise it to {:.0} (or pass a smaller \
             --buffer-size) if their points come out unstable",
            human_bytes(buffer),
            human_bytes(llc_bytes),
            buffer as f64 / SLOWEST_CORE_BANDWIDTH,
            TARGET_ROUNDS,
            needed.ceil()
        )
    });
    (buffer, note)
}
/// The computing threads' workload for `--kernel`.
pub fn workload(k: ComputeKernel) -> Workload {
    match k {
        ComputeKernel::NtStore => Workload::NtStore(Kernel::detect()),
        ComputeKernel::Copy => Workload::Copy,
        ComputeKernel::Triad => Workload::Triad,
    }
}

/// The CSV beside a trace.
pub fn csv_path(trace: &Path) -> PathBuf {
    trace.with_extension("csv")
}

/// Refuses to overwrite a trace without `--force`, or to resume one that is not there.
pub fn check_output(a: &MeasureOptions, path: &Path) -> Result<()> {
    let exists = path.exists();
    if a.resume && !exists {
        return Err(Error::Input(format!(
            "--resume: `{}` does not exist; run without --resume to start it",
            path.display()
        )));
    }
    if exists && !a.resume && !a.force {
        return Err(Error::Input(format!(
            "`{}` exists; pass --resume to continue it, --force to overwrite it, or -o to \
             write elsewhere",
            path.display()
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
    atomic::check_target(&csv_path(path))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    // Probe the directory now rather than after the first point (exclusively, under an
    // unpredictable name, like the writes themselves; removed when dropped).
    tempfile::Builder::new()
        .prefix(".contention-write-test-")
        .tempfile_in(dir)
        .map_err(|e| Error::io(IoAction::Write("in directory"), dir, e))?;
    Ok(())
}

/// Everything resolved for this machine: plan, configuration, buffer size.
pub struct Resolved {
    pub planned: Planned,
    pub config: MeasureConfig,
    /// Where rank 1 goes if it shares this host.
    pub sender: SenderPlan,
    /// Why the default buffer may be too long for the phase limit.
    pub buffer_note: Option<String>,
}

/// The transport between rank 0 and the others from the host of each rank: intra-node when
/// every rank runs on rank 0's host.
pub fn transport(hosts: &[String]) -> Transport {
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

/// The transport as the plan and the log say it.
pub fn describe_transport(t: &Transport) -> String {
    match t.kind {
        TransportKind::IntraNode => format!(
            "intra-node: both ranks on {}, so messages are shared-memory copies by the MPI \
             library (2-3x the bytes through this node's memory, done by CPU cores), not a \
             network card's DMA; use --hosts A,B (or a Slurm allocation of 2 nodes) to \
             measure the network",
            t.hosts.first().map_or("this host", String::as_str)
        ),
        TransportKind::Network => format!(
            "network: rank 0 (measured) on {}, rank 1 (sender) on {}",
            t.hosts.first().map_or("?", String::as_str),
            t.hosts[1..].join(", ")
        ),
    }
}

/// Resolves the options against `layout`, checking nodes, cores and memory.
pub fn resolve(a: &MeasureOptions, layout: &Layout, sysfs: &Path) -> Result<Resolved> {
    let planned = plan::plan(
        layout,
        &Request {
            comp_numa: a.comp_numa,
            comm_numa: a.comm_numa,
            cores: a.cores.clone(),
            comm_core: a.comm_core,
            share_comm_core: a.shared_comm_core,
        },
    )?;
    let max_threads = planned.sweep.iter().copied().max().unwrap_or(1) as u64;
    let comp_free = memory::node_free_bytes(sysfs, planned.plan.comp_numa_os);
    let comm_free = memory::node_free_bytes(sysfs, planned.plan.comm_numa_os);
    // Exchanging patterns also send from a buffer on the communication node.
    let message = a.message_size.0 * if a.pattern == CommPattern::Pong { 1 } else { 2 };
    let same_node = a.comp_numa == a.comm_numa;
    let (default, buffer_note) = default_buffer(a.max_phase, layout.llc_bytes);
    let buffer = match a.buffer_size {
        Some(b) => b.0,
        None => match comp_free {
            // Shrink the default to fit (leaving a tenth to the system), in whole MiB.
            Some(free) => {
                let room = (free - free / 10).saturating_sub(if same_node { message } else { 0 });
                (room / max_threads).min(default) & !((1 << 20) - 1)
            }
            None => default,
        },
    };
    let buffer_note = buffer_note.filter(|_| a.buffer_size.is_none());
    if buffer < MIN_BUFFER {
        return Err(Error::Input(format!(
            "NUMA node {} has too little free memory for {max_threads} computing buffers of \
             at least 1MiB; free memory or sweep fewer cores",
            a.comp_numa
        )));
    }
    let comp_need = buffer * max_threads + if same_node { message } else { 0 };
    memory::check_fits("computation buffers", comp_need, a.comp_numa, comp_free)?;
    if !same_node {
        memory::check_fits("communication buffer", message, a.comm_numa, comm_free)?;
    }
    let config = MeasureConfig {
        comp_numa: a.comp_numa,
        comm_numa: a.comm_numa,
        cores: planned.sweep.clone(),
        message_size_bytes: a.message_size.0,
        buffer_bytes_per_core: buffer,
        max_phase_seconds: a.max_phase,
        stable_within: a.stable_within / 100.0,
        timeout_seconds: a.timeout,
        kernel: Kernel::detect().name().to_string(),
        compute_kernel: workload(a.kernel).name().to_string(),
        pattern: a.pattern.name().to_string(),
        ranks: a.job_ranks(),
        bind: !a.no_bind,
    };
    let sender = plan::sender_core(layout, &planned.plan, max_threads as usize);
    Ok(Resolved {
        planned,
        config,
        sender,
        buffer_note,
    })
}

/// The longest a sweep of `c` takes, in seconds: 3 phases per core count, each at most
/// `--max-phase` plus a margin for its first and last iteration (section 4.1.1); and the
/// time to touch the computing buffers first (at about 2 GB/s of page faults). `describe_plan`
/// prints it; `contention survey` multiplies it by its rounds.
pub fn estimated_seconds(c: &MeasureConfig) -> (f64, f64) {
    let max = c.cores.iter().copied().max().unwrap_or(0) as f64;
    let points = c.cores.len() as f64;
    (
        points * 3.0 * (c.max_phase_seconds + 0.3),
        c.buffer_bytes_per_core as f64 * max / 2e9,
    )
}

/// The plan as a person reads it before spending cluster time: the machine, its settings
/// (with warnings), the transport, every thread's core and every buffer's node.
pub fn describe_plan(
    layout: &Layout,
    r: &Resolved,
    transport: &Transport,
    settings: Option<&MachineSettings>,
) -> String {
    let p = &r.planned.plan;
    let c = &r.config;
    let info = layout.machine_info();
    let node = |l: u32| {
        layout
            .numa
            .iter()
            .find(|n| n.logical_index == l)
            .map_or(format!("L#{l}"), |n| {
                format!("L#{l} (P#{}, {})", n.os_index, human_bytes(n.memory_bytes))
            })
    };
    let mut out = format!(
        "machine     {} — {}; hwloc {}\n\
         topology    {} socket(s) x {} cores x {} PU(s); {} NUMA node(s), {} per socket\n",
        info.hostname,
        info.cpu_model,
        info.hwloc_version,
        info.sockets,
        info.cores_per_socket,
        info.pus_per_core,
        info.numa_nodes.len(),
        info.numa_per_socket
    );
    for nic in &info.nics {
        out += &format!(
            "network     {} near socket {} (NUMA {})\n",
            nic.name,
            nic.socket.map_or("?".into(), |s| s.to_string()),
            if nic.numa_nodes.is_empty() {
                "?".into()
            } else {
                nic.numa_nodes
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(",")
            }
        );
    }
    if layout.cores_not_allowed > 0 {
        out += &format!(
            "WARNING     {} core(s) outside this process's cpuset are not used (a batch job \
             or container cpuset; ask for the whole node)\n",
            layout.cores_not_allowed
        );
    }
    if !layout.nodes_not_allowed.is_empty() {
        out += &format!(
            "WARNING     NUMA node(s) {} are outside this process's cpuset: buffers cannot be \
             bound there (numbering is the whole machine's, as lstopo shows it)\n",
            layout
                .nodes_not_allowed
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if let Some(s) = settings {
        out += &format!("settings    {}\n", super::settings::describe(s));
        for w in super::settings::warnings(s) {
            out += &format!("WARNING     {w}\n");
        }
    }
    out += &format!("transport   {}\n", describe_transport(transport));
    let max = c.cores.iter().copied().max().unwrap_or(0) as usize;
    out += &format!(
        "computing   up to {max} thread(s), each on its own core, running {} over {} per \
         iteration ({} non-temporal stores for nt-store)\n\
         \x20           data on NUMA node {}{}\n",
        c.compute_kernel,
        human_bytes(c.buffer_bytes_per_core),
        c.kernel,
        node(c.comp_numa),
        if c.bind {
            ""
        } else {
            " (NOT bound: --no-bind)"
        }
    );
    if let Some(n) = &r.buffer_note {
        out += &format!("WARNING     {n}\n");
    }
    out += "            cores in order: ";
    out += &p.compute[..max.min(p.compute.len())]
        .iter()
        .map(|s| format!("{} (PU P#{})", s.core, s.pu_os))
        .collect::<Vec<_>>()
        .join(", ");
    out += "\n";
    if p.comm_shares_core {
        out += &format!(
            "WARNING     the communication thread shares core {} with computing thread {} \
             (--shared-comm-core; automatic when only one core would be left to compute): the \
             {}-core point is disturbed by the sharing\n",
            p.comm.core,
            p.compute.len(),
            p.compute.len()
        );
    }
    out += &format!(
        "communic.   1 thread on core {} (PU P#{}, socket {}): {}\n\
         \x20           receives {} messages into NUMA node {}\n",
        p.comm.core,
        p.comm.pu_os,
        p.comm.socket,
        p.comm_reason,
        human_bytes(c.message_size_bytes),
        node(c.comm_numa)
    );
    if transport.kind == TransportKind::IntraNode {
        let s = &r.sender;
        out += &match (s.slot, c.bind) {
            (_, false) => "sender      rank 1 not pinned (--no-bind)\n".to_string(),
            (Some(slot), true) if slot == p.comm => format!(
                "WARNING     sender: rank 1 on core {} (PU P#{}): {}\n",
                slot.core, slot.pu_os, s.reason
            ),
            (Some(slot), true) => format!(
                "sender      rank 1 on core {} (PU P#{}, socket {}), send buffer on NUMA node \
                 {}: {}\n",
                slot.core,
                slot.pu_os,
                slot.socket,
                s.numa.map_or("?".into(), |(l, _)| node(l)),
                s.reason
            ),
            (None, true) => format!("WARNING     sender: {}\n", s.reason),
        };
    }
    // The placements `calibrate` fits (section 4.1.2): both data on node 0, and both on
    // the first node of the second socket, which is node `numa_per_socket`, not node 1,
    // under sub-NUMA clustering.
    let m = layout.numa_per_socket();
    out += &if layout.sockets.len() > 1 {
        format!(
            "calibrate   needs two placements: --numa 0,0 (local) and --numa {m},{m} (remote: \
             node {m} is the first of socket 1; {m} NUMA node(s) per socket)\n"
        )
    } else {
        "calibrate   needs one placement on this single-socket machine: --numa 0,0 (local)\n"
            .to_string()
    };
    let (sweep, touch) = estimated_seconds(c);
    out += &format!(
        "sweep       {} computing-core count(s): {}; 3 phases each, each until its median is \
         within +-{:.1}% (95% CI) or {:.1} s\n\
         duration    at most {:.0} s (+{:.0} s to touch the buffers), usually less\n",
        c.cores.len(),
        crate::cores::CoreList::from_counts(&c.cores),
        100.0 * c.stable_within,
        c.max_phase_seconds,
        sweep,
        touch
    );
    out
}

/// How rank 0 reports each step of the sweep.
pub struct Rank0<'a> {
    pub options: &'a MeasureOptions,
    pub topology: &'a Topology,
    pub layout: &'a Layout,
    pub resolved: Resolved,
    pub mpi: MpiInfo,
    pub transport: Transport,
    /// Rank 1's placement as it reported it.
    pub sender: Option<SenderPlacement>,
    pub settings: Option<MachineSettings>,
    pub progress: progress::Mode,
    pub interrupted: &'static AtomicBool,
    /// The communicator of rank 0 and its sender.
    pub comm: super::comm::Handle,
}

impl Rank0<'_> {
    /// Runs the sweep, saving the trace after every point. A stalled run ends the process
    /// from inside the sweep (see [`Abort::Stalled`]).
    pub fn run(self) -> std::result::Result<PathBuf, (Abort, PathBuf)> {
        let path = self.options.trace_path(&self.layout.hostname);
        let fail = |e: Error, path: &Path| (Abort::Failed(e.to_string()), path.to_path_buf());
        // Held until this function returns: no other run writes this trace meanwhile.
        let _lock = match super::lock::acquire(&path, &super::lock::holder(&self.layout.hostname)) {
            Ok(l) => l,
            Err(e) => return Err(fail(e, &path)),
        };
        let mut trace = match self.start_trace(&path) {
            Ok(t) => t,
            Err(e) => return Err(fail(e, &path)),
        };
        let todo = trace.missing_cores(&self.resolved.config.cores);
        if let Err(e) = save(&path, &mut trace) {
            return Err(fail(e, &path));
        }
        if todo.is_empty() {
            eprintln!(
                "measure: {} already holds every asked core count; nothing to measure",
                path.display()
            );
            return Ok(path);
        }
        let c = &self.resolved.config;
        let bind = c.bind;
        let node = |os| bind.then_some(os);
        let max = todo.iter().copied().max().unwrap_or(0) as usize;
        let buffers = (0..max)
            .map(|_| {
                memory::allocate(
                    self.topology,
                    c.buffer_bytes_per_core as usize,
                    node(self.resolved.planned.plan.comp_numa_os),
                )
            })
            .collect::<Result<Vec<_>, memory::MemoryError>>();
        let comm_buffer = memory::allocate(
            self.topology,
            c.message_size_bytes as usize,
            node(self.resolved.planned.plan.comm_numa_os),
        );
        let pattern = self.options.pattern;
        let send_buffer = (pattern != CommPattern::Pong)
            .then(|| {
                memory::allocate(
                    self.topology,
                    c.message_size_bytes as usize,
                    node(self.resolved.planned.plan.comm_numa_os),
                )
            })
            .transpose();
        let (mut buffers, mut comm_buffer, mut send_buffer) =
            match (buffers, comm_buffer, send_buffer) {
                (Ok(b), Ok(m), Ok(s)) => (b, m, s),
                (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => {
                    return Err(fail(e.into(), &path))
                }
            };
        // Binding verified, not assumed: where the kernel put every page.
        let plan = &self.resolved.planned.plan;
        let mut pages: Vec<BufferPages> = buffers
            .iter_mut()
            .enumerate()
            .map(|(i, b)| {
                memory::page_locations(
                    &format!("computation {i}"),
                    memory::as_bytes(b),
                    node(plan.comp_numa_os),
                )
            })
            .collect();
        pages.push(memory::page_locations(
            "communication (receive)",
            memory::as_bytes(&mut comm_buffer),
            node(plan.comm_numa_os),
        ));
        if let Some(b) = send_buffer.as_mut() {
            pages.push(memory::page_locations(
                "communication (send)",
                memory::as_bytes(b),
                node(plan.comm_numa_os),
            ));
        }
        if let Some(w) = pages.iter().find_map(memory::unverified) {
            eprintln!("warning: {w}");
        }
        trace.buffers = pages;
        if let Err(e) = save(&path, &mut trace) {
            return Err(fail(e, &path));
        }
        if let Some(e) = trace
            .buffers
            .iter()
            .find_map(|p| memory::check_pages(p).err())
        {
            return Err((Abort::Failed(e.to_string()), path));
        }
        let bench = Bench {
            topology: self.topology,
            plan: &self.resolved.planned.plan,
            workload: workload(self.options.kernel),
            pattern,
            buffer_bytes: c.buffer_bytes_per_core as usize,
            message_bytes: c.message_size_bytes as usize,
            bind,
            sampling: Sampling {
                max_phase: Duration::from_secs_f64(c.max_phase_seconds),
                stable_within: c.stable_within,
                timeout: Duration::from_secs_f64(c.timeout_seconds),
            },
            interrupted: self.interrupted,
            saved_to: &path,
            comm: self.comm,
        };
        let progress = std::cell::RefCell::new(Progress::new(self.progress, todo.len()));
        let result = bench.sweep(
            &todo,
            &mut comm_buffer,
            send_buffer.as_mut(),
            buffers,
            |n, phase| progress.borrow_mut().phase(n, phase),
            |point: TracePoint| {
                progress.borrow_mut().point_done(&point_line(&point));
                trace.points.push(point);
                save(&path, &mut trace)
            },
        );
        result.map(|()| path.clone()).map_err(|a| (a, path))
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
            transport: Some(self.transport.clone()),
            sender: self.sender.clone(),
            settings: self.settings.clone(),
            buffers: Vec::new(),
        };
        if !self.options.resume {
            return Ok(fresh);
        }
        let old = trace_file::read(path)?;
        let differs = |what: &str| {
            Error::Input(format!(
                "--resume: `{}` was measured with another {what}; resume with the same options, \
                 or start a new trace with -o",
                path.display()
            ))
        };
        let (o, n) = (&old.config, &fresh.config);
        if (o.comp_numa, o.comm_numa) != (n.comp_numa, n.comm_numa) {
            return Err(differs("--numa placement"));
        }
        if o.message_size_bytes != n.message_size_bytes {
            return Err(differs("--message-size"));
        }
        if o.buffer_bytes_per_core != n.buffer_bytes_per_core {
            return Err(differs("--buffer-size"));
        }
        if o.kernel != n.kernel || o.compute_kernel != n.compute_kernel || o.bind != n.bind {
            return Err(differs("kernel or binding (--kernel, --no-bind)"));
        }
        if o.pattern != n.pattern || o.ranks != n.ranks {
            return Err(differs("--pattern or --ranks"));
        }
        if let (Some(o), Some(n)) = (&old.transport, &fresh.transport) {
            if o.kind != n.kind {
                return Err(differs("transport (intra-node or network, see --hosts)"));
            }
        }
        if old.plan != fresh.plan {
            return Err(differs("pinning plan (cores or --comm-core)"));
        }
        if old.machine.hostname != fresh.machine.hostname {
            return Err(differs("host"));
        }
        let mut cores = old.config.cores.clone();
        cores.extend(&n.cores);
        cores.sort_unstable();
        cores.dedup();
        Ok(Trace {
            config: MeasureConfig {
                cores,
                ..fresh.config
            },
            points: old.points,
            started_at: old.started_at,
            ..fresh
        })
    }
}

/// One line for the log after a point: each median with its 95% interval as a relative
/// half-width (`?` when too few rounds gave none), `UNSTABLE` after a phase that stopped
/// before its stopping rule was met, and the loss ratios of Langguth et al. (alone over
/// parallel bandwidth, the L_M and L_N of `contention overlap`).
pub fn point_line(p: &TracePoint) -> String {
    let (ca, cp) = (p.comp_alone.summary.median, p.comp_parallel.summary.median);
    let (ma, mp) = (p.comm_alone.summary.median, p.comm_parallel.summary.median);
    let phases = [
        ("computations alone", &p.comp_alone),
        ("computations in parallel", &p.comp_parallel),
        ("communications alone", &p.comm_alone),
        ("communications in parallel", &p.comm_parallel),
    ];
    let unstable: Vec<&str> = phases
        .iter()
        .filter(|(_, ph)| ph.unstable)
        .map(|(name, _)| *name)
        .collect();
    let flag = if unstable.is_empty() {
        String::new()
    } else {
        format!(" UNSTABLE: {}", unstable.join(", "))
    };
    format!(
        "{:>3} cores: computations {ca:>9.1} {} MB/s alone, {cp:>9.1} {} in parallel (L_M \
         {:.2}); communications {ma:>8.1} {} MB/s alone, {mp:>8.1} {} in parallel (L_N \
         {:.2}){flag}",
        p.cores,
        half_width(&p.comp_alone),
        half_width(&p.comp_parallel),
        ca / cp,
        half_width(&p.comm_alone),
        half_width(&p.comm_parallel),
        ma / mp
    )
}

/// `+-0.4%`: the phase's 95% interval as a relative half-width, `+-?` without one.
fn half_width(p: &crate::trace::Phase) -> String {
    match p.ci95 {
        Some((lo, hi)) if p.summary.median > 0.0 => {
            format!("+-{:.1}%", 50.0 * (hi - lo) / p.summary.median)
        }
        _ => "+-?".into(),
    }
}

/// Writes the trace and its CSV, atomically, marking it complete when no core count is left.
fn save(path: &Path, trace: &mut Trace) -> Result<()> {
    trace.points.sort_by_key(|p| p.cores);
    trace.complete = trace
        .config
        .cores
        .iter()
        .all(|n| trace.points.iter().any(|p| p.cores == *n));
    trace.updated_at = crate::timestamp::now();
    trace_file::write(path, trace)?;
    atomic::write(
        &csv_path(path),
        tidy_csv::to_string(&trace.tidy_rows()).as_bytes(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cores::CoreList;
    use crate::trace::Phase;

    fn phase(median: f64, ci95: Option<(f64, f64)>, unstable: bool) -> Phase {
        Phase {
            summary: crate::stats::summarize(&[median]),
            sampling: String::new(),
            samples: Vec::new(),
            ci95,
            unstable,
        }
    }

    /// The plan of `options` on a synthetic hwloc machine, built without the command line.
    fn plan_text(synthetic: &str, a: MeasureOptions) -> String {
        let layout = super::super::topology::layout(
            &super::super::topology::load_synthetic(synthetic).unwrap(),
        );
        let r = resolve(&a, &layout, Path::new("/nonexistent")).unwrap();
        describe_plan(&layout, &r, &transport(&["a".into()]), None)
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
        let layout = super::super::topology::layout(
            &super::super::topology::load_synthetic("pack:2 numa:2 core:4 pu:1").unwrap(),
        );
        let refused = |a: MeasureOptions| match resolve(&a, &layout, Path::new("/nonexistent")) {
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
                kernel: ComputeKernel::Copy,
                pattern: CommPattern::Pingpong,
                ..MeasureOptions::default()
            },
            &layout,
            Path::new("/nonexistent"),
        )
        .unwrap();
        assert_eq!(ok.config.pattern, "pingpong");
        assert_eq!(ok.config.compute_kernel, "copy");
        assert_eq!((ok.config.comp_numa, ok.config.comm_numa), (2, 2));
    }

    #[test]
    fn the_default_buffer_is_sized_for_time_but_dwarfs_the_cache() {
        let mib = 1u64 << 20;
        // A long phase limit on a machine with a small cache: sized for time.
        let (b, note) = default_buffer(10.0, 4 * mib);
        assert_eq!(
            b,
            (10.0 / 34.0 * SLOWEST_CORE_BANDWIDTH) as u64 & !(mib - 1)
        );
        assert!(note.is_none());
        // The paper's 2 x 24.75 MB of L3 with the default 1.5 s: the cache wins, and the
        // plan says which --max-phase gives enough rounds.
        let (b, note) = default_buffer(1.5, 2 * 25_952_256);
        assert_eq!(b, (16 * 2 * 25_952_256) & !(mib - 1));
        let note = note.unwrap();
        assert!(
            note.contains("--max-phase 1.5") && note.contains("raise it to"),
            "{note}"
        );
        // Unknown caches: the historical 256 MiB floor.
        assert_eq!(default_buffer(1.5, 0).0, DEFAULT_BUFFER);
    }

    #[test]
    fn the_log_line_shows_intervals_and_flags_unstable_phases() {
        let p = TracePoint {
            cores: 4,
            comp_alone: phase(1000.0, Some((990.0, 1010.0)), false),
            comm_alone: phase(500.0, None, true),
            comp_parallel: phase(800.0, Some((780.0, 820.0)), false),
            comm_parallel: phase(400.0, Some((396.0, 404.0)), false),
            ran_on: Vec::new(),
        };
        let line = point_line(&p);
        assert!(line.contains("1000.0 +-1.0% MB/s alone"), "{line}");
        assert!(line.contains("800.0 +-2.5% in parallel"), "{line}");
        assert!(line.contains("500.0 +-? MB/s alone"), "{line}");
        assert!(line.ends_with("UNSTABLE: communications alone"), "{line}");
        let stable = TracePoint {
            comm_alone: phase(500.0, Some((495.0, 505.0)), false),
            ..p
        };
        assert!(!point_line(&stable).contains("UNSTABLE"));
    }
}
