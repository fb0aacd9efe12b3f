//! The `--dry-run` plan and the log's opening lines, as a person reads them before spending
//! cluster time: the machine and its settings (with warnings), the transport, every thread's
//! core and every buffer's node, the sweep, the cache rule and what calibration will need.
//! Text only: [`crate::measure::session`] decides, this file says what was decided.

use crate::machine::layout::Layout;
use crate::measure::session::{estimated_seconds, Resolved};
use crate::measure::sweep::sampling::{MIN_ROUNDS, PHASE_STRETCH};
use crate::measure::sweep::sizing;
use crate::measure::trace_size;
use crate::runs;
use crate::trace::{MachineSettings, MeasureConfig, Sizing, Transport, TransportKind};
use crate::units::human_bytes;

/// The transport as the plan and the log say it.
pub(crate) fn describe_transport(t: &Transport) -> String {
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
        TransportKind::GpuCopy => format!(
            "GPU copies on {}: the GPU's copy engines move every byte over PCIe by DMA, no \
             CPU core copying (no MPI job)",
            t.hosts.first().map_or("this host", String::as_str)
        ),
    }
}

/// [`describe_plan`] of the machine this process runs on, on standard error, where a run
/// says its plan before measuring.
pub(crate) fn say_plan(
    layout: &Layout,
    r: &Resolved,
    transport: &Transport,
    settings: &MachineSettings,
) {
    eprint!("{}", describe_plan(layout, r, transport, Some(settings)));
}

/// The plan as a person reads it before spending cluster time: the machine, its settings
/// (with warnings), the transport, every thread's core and every buffer's node.
pub(crate) fn describe_plan(
    layout: &Layout,
    r: &Resolved,
    transport: &Transport,
    settings: Option<&MachineSettings>,
) -> String {
    let mut out = describe_machine(layout, settings);
    out += &format!("transport   {}\n", describe_transport(transport));
    out += &describe_computing(layout, r);
    out += &describe_communication(layout, r, transport);
    out += &describe_calibration(layout);
    out += &describe_sweep(&r.config, transport.kind);
    out += &trace_size::plan_line(trace_size::estimate(
        &r.config,
        crate::measure::session::trace_slots(&r.planned.plan),
        &|_| {
            if transport.kind == TransportKind::GpuCopy {
                // Grouped into samples of a millisecond at least, whatever the link.
                trace_size::SampleSeconds::gpu_copies(r.config.message_size_bytes)
            } else {
                trace_size::SampleSeconds::real(r.config.message_size_bytes)
            }
        },
    ));
    if let Some(a) = &r.adaptive {
        out += &a.design.describe(a, &r.config.cores);
    }
    out
}

/// A NUMA node as the plan names it: logical index, OS index and size.
fn node_text(layout: &Layout, l: u32) -> String {
    layout
        .numa
        .iter()
        .find(|n| n.logical_index == l)
        .map_or(format!("L#{l}"), |n| {
            format!("L#{l} (P#{}, {})", n.os_index, human_bytes(n.memory_bytes))
        })
}

/// The plan's machine lines: hwloc's view, the network cards, what the cpuset hides, and the
/// node's settings with their warnings.
fn describe_machine(layout: &Layout, settings: Option<&MachineSettings>) -> String {
    let info = layout.machine_info();
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
            nodes_list(&nic.numa_nodes)
        );
    }
    for (i, gpu) in layout.gpus.iter().enumerate() {
        out += &format!(
            "gpu         {i}: {} {} near socket {} (NUMA {})\n",
            gpu.pci_bus_id,
            gpu.name,
            gpu.socket.map_or("?".into(), |s| s.to_string()),
            nodes_list(&gpu.numa_nodes)
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
        out += &format!("settings    {}\n", crate::machine::settings::describe(s));
        for w in crate::machine::settings::warnings(s) {
            out += &format!("WARNING     {w}\n");
        }
    }
    out
}

/// What the computing kernel does, in the plan's words: the store instructions for
/// nt-store, STREAM's loop for copy and triad (which use none of them: the plan of `--kernel
/// triad` said "avx512 non-temporal stores for nt-store").
fn kernel_text(c: &crate::trace::MeasureConfig) -> String {
    let kernel = crate::kernels::ComputeKernel::named(&c.compute_kernel);
    match kernel.and_then(crate::kernels::ComputeKernel::stream_loop) {
        Some(stream) => format!(
            "STREAM {}, {stream}: plain loads and stores",
            c.compute_kernel
        ),
        None => format!("{} non-temporal stores", c.kernel),
    }
}

/// The plan's computing lines: the threads, their kernel and buffers, the cache rule, and
/// the cores in the order the sweep adds them.
fn describe_computing(layout: &Layout, r: &Resolved) -> String {
    let p = &r.planned.plan;
    let c = &r.config;
    let node = |l: u32| node_text(layout, l);
    let mut out = String::new();
    let max = c.cores.iter().copied().max().unwrap_or(0) as usize;
    let z = r.sizing();
    out += &format!(
        "computing   up to {max} thread(s), each on its own core, running {} over its own {} \
         ({}), timed in chunks of {}: a sample every {:.0} ms\n\
         \x20           data on NUMA node {}{}\n\
         \x20           {}\n",
        c.compute_kernel,
        human_bytes(c.buffer_bytes_per_core),
        kernel_text(c),
        human_bytes(z.chunk_bytes),
        1e3 * z.sample_seconds,
        node(c.comp_numa),
        if c.bind {
            ""
        } else {
            " (NOT bound: --no-bind)"
        },
        describe_cache(c, z)
    );
    for w in &z.warnings {
        out += &format!("WARNING     {w}\n");
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
    out
}

/// NUMA nodes as the plan lists a device's (`0,1`), `?` when hwloc does not know.
fn nodes_list(nodes: &[u32]) -> String {
    if nodes.is_empty() {
        return "?".into();
    }
    nodes
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// The plan's communication lines: the receiving thread, its ring of buffers, and on one
/// node where rank 1 (the sender) goes.
fn describe_communication(layout: &Layout, r: &Resolved, transport: &Transport) -> String {
    let p = &r.planned.plan;
    let c = &r.config;
    let z = r.sizing();
    let node = |l: u32| node_text(layout, l);
    let mut out = String::new();
    // A GPU's copies: one thread issues them, each moving one slot of the pinned ring.
    let size = human_bytes(c.message_size_bytes);
    let (label, moves, unit) = if transport.kind == TransportKind::GpuCopy {
        (
            "copies     ",
            format!(
                "copies {size} at a time between the GPU(s) and NUMA node {}, pinned for \
                 their DMA: in turn over",
                node(c.comm_numa)
            ),
            "copy (or several, to a millisecond; each GPU's its own)",
        )
    } else {
        (
            "communic.  ",
            format!(
                "receives {size} messages into NUMA node {}, in turn into",
                node(c.comm_numa)
            ),
            "message",
        )
    };
    out += &format!(
        "{label} 1 thread on core {} (PU P#{}, socket {}): {}\n\
         \x20           {moves} {} buffer(s) ({})\n\
         \x20           one {unit} is one sample: {} in a phase need {:.1} GB/s within --max-phase {}; \
         slower, a phase runs on to hold them, up to {:.1} s ({PHASE_STRETCH}x)\n",
        p.comm.core,
        p.comm.pu_os,
        p.comm.socket,
        p.comm_reason,
        z.message_buffers,
        human_bytes(c.message_size_bytes * u64::from(z.message_buffers)),
        MIN_ROUNDS + 2,
        (MIN_ROUNDS + 2) as f64 * c.message_size_bytes as f64 / c.max_phase_seconds / 1e9,
        c.max_phase_seconds,
        f64::from(PHASE_STRETCH) * c.max_phase_seconds
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
    out
}

/// The placements `calibrate` needs on this machine.
fn describe_calibration(layout: &Layout) -> String {
    // The placements `calibrate` fits (section 4.1.2): both data on node 0, and both on
    // the first node of the second socket, which is node `numa_per_socket`, not node 1,
    // under sub-NUMA clustering.
    let m = layout.numa_per_socket();
    if layout.sockets.len() > 1 {
        format!(
            "calibrate   needs two placements: --numa 0,0 (local) and --numa {m},{m} (remote: \
             node {m} is the first of socket 1; {m} NUMA node(s) per socket)\n"
        )
    } else {
        "calibrate   needs one placement on this single-socket machine: --numa 0,0 (local)\n"
            .to_string()
    }
}

/// What the plan's duration leaves out, said under it: a first run on a 2-core machine
/// planned "at most 7 s (+5 s)" and took 55 s, most of it before the first phase.
pub(crate) const NOT_COUNTED: &str = "            not counted: starting the MPI job and its \
    processes, a few seconds (tens on a first run, while the program and the MPI libraries \
    load from disk, or on a loaded machine)\n";

/// What a GPU plan's duration leaves out: the driver's start and the warm-up copies that
/// read the link.
const NOT_COUNTED_GPU: &str = "            not counted: loading the CUDA driver and the \
    warm-up copies that read the GPU's link, a second or two\n";

/// The plan's sweep lines: the core counts, the stop rule and the estimated duration.
fn describe_sweep(c: &MeasureConfig, kind: TransportKind) -> String {
    let not_counted = if kind == TransportKind::GpuCopy {
        NOT_COUNTED_GPU
    } else {
        NOT_COUNTED
    };
    let (sweep, touch) = estimated_seconds(c);
    // What a run takes when communications are fast enough that no phase runs on: each
    // phase stops between half of --max-phase (the earliest a stable one may) and all of it.
    // The H200 node's sweep of 14 cores took 47 s a way where all of it said 76.
    let taking = |phase: f64| c.cores.len() as f64 * (3.0 * phase + 3.0 * 0.3);
    let (stable, unstable) = (
        taking(c.max_phase_seconds / 2.0),
        taking(c.max_phase_seconds),
    );
    format!(
        "{}duration    at most {sweep:.0} s (+{touch:.0} s to touch the buffers at about {:.0} \
         GB/s, slower on a loaded or virtual machine); about {stable:.0}-{unstable:.0} s when \
         no phase runs past --max-phase (each stops between half of it, once stable, and \
         it)\n{not_counted}{}",
        sweep_line(c),
        sizing::TOUCH_BANDWIDTH / 1e9,
        runs::plan_line(c.runs, sweep, touch, kind != TransportKind::GpuCopy)
    )
}

/// The plan's `sweep` line: the core counts and the stop rule (a simulated plan's too).
pub(crate) fn sweep_line(c: &MeasureConfig) -> String {
    format!(
        "sweep       {} computing-core count(s): {}; 3 phases each, each until its median is \
         within +-{:.1}% (95% CI) or {:.1} s\n",
        c.cores.len(),
        crate::cores::CoreList::from_counts(&c.cores),
        100.0 * c.stable_within,
        c.max_phase_seconds,
    )
}

/// The cache rule as the plan states it: the working set against the computing sockets'
/// last-level cache, and from which core count it holds.
fn describe_cache(c: &MeasureConfig, z: &Sizing) -> String {
    let max = c.cores.iter().copied().max().unwrap_or(1);
    if z.llc_bytes_comp == 0 {
        return "hwloc reports no cache size: the buffers are not checked against it".to_string();
    }
    let rule = z.cache_factor * z.llc_bytes_comp;
    let first = sizing::first_meeting(rule, c.buffer_bytes_per_core, max);
    let nt = c.compute_kernel == "nt-store" && c.kernel != "portable";
    format!(
        "working set {} at {max} core(s) against {} of last-level cache on their socket(s) \
         ({}x); {}",
        human_bytes(c.buffer_bytes_per_core * u64::from(max)),
        human_bytes(z.llc_bytes_comp),
        z.cache_factor,
        match first {
            Some(1) => "every point meets it".to_string(),
            Some(n) if nt => format!(
                "points from {n} cores meet it; below, non-temporal stores bypass the cache \
                 (paper, section 2.3)"
            ),
            Some(n) => format!(
                "points from {n} cores meet it; below, {} may partly hit the cache",
                c.compute_kernel
            ),
            None => "no point meets it (see the warning)".to_string(),
        }
    )
}
