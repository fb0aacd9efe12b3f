//! One measurement session on rank 0: resolve the options against the machine, describe the
//! plan (`--dry-run`), allocate the bound buffers, run the sweep and keep the trace on disk
//! after every point.

use super::kernel::Kernel;
use super::memory::{self, human_bytes};
use super::plan::{self, Planned, Request};
use super::progress::{self, Progress};
use super::run::{Abort, Bench, Sampling};
use super::topology::Layout;
use super::workload::Workload;
use crate::cli::{CommPattern, ComputeKernel, MeasureArgs};
use crate::error::{Error, Result};
use crate::io::{atomic, tidy_csv, trace_file};
use crate::provenance::Provenance;
use crate::trace::{MeasureConfig, MpiInfo, Trace, TracePoint, TRACE_SCHEMA_VERSION};
use hwlocality::Topology;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Default bytes each computing core writes per iteration: far beyond any last-level cache
/// share, short enough (tens of ms at a few GB/s per core) to give many samples per phase.
pub const DEFAULT_BUFFER: u64 = 256 << 20;
/// Below this, buffers may be served by caches and the kernel would not measure memory.
const MIN_BUFFER: u64 = 1 << 20;
/// MPI counts are 32-bit signed integers.
const MAX_MESSAGE: u64 = i32::MAX as u64;

/// Refuses option values that cannot give a meaningful measurement, before anything runs.
pub fn check_values(a: &MeasureArgs) -> Result<()> {
    let bad = |m: String| Err(Error::Input(m));
    if a.message_size.0 > MAX_MESSAGE {
        return bad(format!(
            "--message-size {}: MPI counts are 32-bit, so a message is at most 2GiB-1 bytes; \
             the paper uses 64MiB",
            a.message_size
        ));
    }
    if let Some(b) = a.buffer_size {
        if b.0 < MIN_BUFFER {
            return bad(format!(
                "--buffer-size {b}: buffers under 1MiB can stay in cache and would not measure \
                 memory; use at least 1MiB (default 256MiB)"
            ));
        }
    }
    for (name, v, lo, hi) in [
        ("--max-phase", a.max_phase, 0.05, 3600.0),
        ("--timeout", a.timeout, 1.0, 86_400.0),
        ("--stable-within", a.stable_within, 0.01, 100.0),
    ] {
        if !(v.is_finite() && v >= lo && v <= hi) {
            return bad(format!("{name} {v}: must be between {lo} and {hi}"));
        }
    }
    if let Some(h) = &a.hosts {
        if h.len() != ranks(a) as usize || h.iter().any(|x| x.trim().is_empty()) {
            return bad(format!(
                "--hosts {}: give one host name per rank, {} here (`A,B`: rank 0, measured, on \
                 A)",
                h.join(","),
                ranks(a)
            ));
        }
    }
    Ok(())
}

/// The computing threads' workload for `--kernel`.
pub fn workload(k: ComputeKernel) -> Workload {
    match k {
        ComputeKernel::NtStore => Workload::NtStore(Kernel::detect()),
        ComputeKernel::Copy => Workload::Copy,
        ComputeKernel::Triad => Workload::Triad,
    }
}

/// The pattern's name in the trace.
pub fn pattern_name(p: CommPattern) -> &'static str {
    match p {
        CommPattern::Pong => "pong",
        CommPattern::Pingpong => "pingpong",
        CommPattern::Ring => "ring",
    }
}

/// MPI ranks of the job: the ring's size, else 2.
pub fn ranks(a: &MeasureArgs) -> u32 {
    if a.pattern == CommPattern::Ring {
        a.ranks
    } else {
        2
    }
}

/// The trace path: `--output`, or `contention-HOST-numaC-M.json` here.
pub fn output_path(a: &MeasureArgs, host: &str) -> PathBuf {
    a.output.clone().unwrap_or_else(|| {
        PathBuf::from(format!(
            "contention-{host}-numa{}-{}.json",
            a.numa.comp, a.numa.comm
        ))
    })
}

/// The CSV beside a trace.
pub fn csv_path(trace: &Path) -> PathBuf {
    trace.with_extension("csv")
}

/// Refuses to overwrite a trace without `--force`, or to resume one that is not there.
pub fn check_output(a: &MeasureArgs, path: &Path) -> Result<()> {
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
        .map_err(|e| Error::io("write in directory", dir, e))?;
    Ok(())
}

/// Everything resolved for this machine: plan, configuration, buffer size.
pub struct Resolved {
    pub planned: Planned,
    pub config: MeasureConfig,
}

/// Resolves the options against `layout`, checking nodes, cores and memory.
pub fn resolve(a: &MeasureArgs, layout: &Layout, sysfs: &Path) -> Result<Resolved> {
    let planned = plan::plan(
        layout,
        &Request {
            comp_numa: a.numa.comp,
            comm_numa: a.numa.comm,
            cores: a.cores.clone(),
            comm_core: a.comm_core,
            share_comm_core: a.shared_comm_core,
        },
    )
    .map_err(Error::Input)?;
    let max_threads = planned.sweep.iter().copied().max().unwrap_or(1) as u64;
    let comp_free = memory::node_free_bytes(sysfs, planned.plan.comp_numa_os);
    let comm_free = memory::node_free_bytes(sysfs, planned.plan.comm_numa_os);
    // Exchanging patterns also send from a buffer on the communication node.
    let message = a.message_size.0 * if a.pattern == CommPattern::Pong { 1 } else { 2 };
    let same_node = a.numa.comp == a.numa.comm;
    let buffer = match a.buffer_size {
        Some(b) => b.0,
        None => match comp_free {
            // Shrink the default to fit (leaving a tenth to the system), in whole MiB.
            Some(free) => {
                let room = (free - free / 10).saturating_sub(if same_node { message } else { 0 });
                (room / max_threads).min(DEFAULT_BUFFER) & !((1 << 20) - 1)
            }
            None => DEFAULT_BUFFER,
        },
    };
    if buffer < MIN_BUFFER {
        return Err(Error::Input(format!(
            "NUMA node {} has too little free memory for {max_threads} computing buffers of \
             at least 1MiB; free memory or sweep fewer cores",
            a.numa.comp
        )));
    }
    let comp_need = buffer * max_threads + if same_node { message } else { 0 };
    memory::check_fits("computation buffers", comp_need, a.numa.comp, comp_free)?;
    if !same_node {
        memory::check_fits("communication buffer", message, a.numa.comm, comm_free)?;
    }
    let config = MeasureConfig {
        comp_numa: a.numa.comp,
        comm_numa: a.numa.comm,
        cores: planned.sweep.clone(),
        message_size_bytes: a.message_size.0,
        buffer_bytes_per_core: buffer,
        max_phase_seconds: a.max_phase,
        stable_within: a.stable_within / 100.0,
        timeout_seconds: a.timeout,
        kernel: Kernel::detect().name().to_string(),
        compute_kernel: workload(a.kernel).name().to_string(),
        pattern: pattern_name(a.pattern).to_string(),
        ranks: ranks(a),
        bind: !a.no_bind,
    };
    Ok(Resolved { planned, config })
}

/// The plan as a person reads it before spending cluster time.
pub fn describe_plan(layout: &Layout, r: &Resolved) -> String {
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
            "restricted  {} core(s) outside this process's cpuset are not used\n",
            layout.cores_not_allowed
        );
    }
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
             (--shared-comm-core): the {}-core point is disturbed by the sharing\n",
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
    let points = c.cores.len() as f64;
    let touch = (c.buffer_bytes_per_core as f64 * max as f64) / 2e9;
    out += &format!(
        "sweep       {} computing-core count(s): {}; 3 phases each, each until its median is \
         within +-{:.1}% (95% CI) or {:.1} s\n\
         duration    at most {:.0} s (+{:.0} s to touch the buffers), usually less\n",
        c.cores.len(),
        crate::cores::CoreList::from_counts(&c.cores),
        100.0 * c.stable_within,
        c.max_phase_seconds,
        points * 3.0 * (c.max_phase_seconds + 0.3),
        touch
    );
    out
}

/// How rank 0 reports each step of the sweep.
pub struct Rank0<'a> {
    pub args: &'a MeasureArgs,
    pub topology: &'a Topology,
    pub layout: &'a Layout,
    pub resolved: Resolved,
    pub mpi: MpiInfo,
    pub progress: progress::Mode,
    pub interrupted: &'static AtomicBool,
}

impl Rank0<'_> {
    /// Runs the sweep, saving the trace after every point. A stalled run ends the process
    /// from inside the sweep (see [`Abort::Stalled`]).
    pub fn run(self) -> std::result::Result<PathBuf, (Abort, PathBuf)> {
        let path = output_path(self.args, &self.layout.hostname);
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
        let todo: Vec<u32> = self
            .resolved
            .config
            .cores
            .iter()
            .copied()
            .filter(|n| trace.points.iter().all(|p| p.cores != *n))
            .collect();
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
            .collect::<Result<Vec<_>>>();
        let comm_buffer = memory::allocate(
            self.topology,
            c.message_size_bytes as usize,
            node(self.resolved.planned.plan.comm_numa_os),
        );
        let pattern = self.args.pattern;
        let send_buffer = (pattern != CommPattern::Pong)
            .then(|| {
                memory::allocate(
                    self.topology,
                    c.message_size_bytes as usize,
                    node(self.resolved.planned.plan.comm_numa_os),
                )
            })
            .transpose();
        let (buffers, mut comm_buffer, mut send_buffer) = match (buffers, comm_buffer, send_buffer)
        {
            (Ok(b), Ok(m), Ok(s)) => (b, m, s),
            (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return Err(fail(e, &path)),
        };
        let bench = Bench {
            topology: self.topology,
            plan: &self.resolved.planned.plan,
            workload: workload(self.args.kernel),
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
        };
        if !self.args.resume {
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

/// One line for the log after a point, with the loss ratios of Langguth et al. (alone over
/// parallel bandwidth, the L_M and L_N of `contention overlap`).
fn point_line(p: &TracePoint) -> String {
    let (ca, cp) = (p.comp_alone.summary.median, p.comp_parallel.summary.median);
    let (ma, mp) = (p.comm_alone.summary.median, p.comm_parallel.summary.median);
    format!(
        "{:>3} cores: computations {ca:>9.1} MB/s alone, {cp:>9.1} in parallel (L_M {:.2}); \
         communications {ma:>8.1} MB/s alone, {mp:>8.1} in parallel (L_N {:.2})",
        p.cores,
        ca / cp,
        ma / mp
    )
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
