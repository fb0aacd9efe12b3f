//! The measurement trace: what `measure` writes and `calibrate`, `evaluate` and `plot` read.
//!
//! A trace is self-describing: the machine as hwloc saw it, the exact cores and NUMA nodes
//! used, the MPI library, the build, the configuration, and for every core count of the sweep
//! the four phases of section 4.1.1 (computations alone, communications alone, both in
//! parallel) with their per-iteration samples and summaries. Bandwidths are MB/s.

use crate::model::constraints::MAX_CORES_PER_SOCKET;
use crate::provenance::Provenance;
use serde::{Deserialize, Serialize};

/// Version of the trace layout. Readers refuse other versions with the reason.
pub const TRACE_SCHEMA_VERSION: u32 = 1;

/// The most runs one trace may ask for: `--runs`' bound, and every reader's
/// ([`Trace::record_problem`]: an edited file asking for billions of runs was measured
/// run after run without end by `--resume`).
pub const MAX_RUNS: u32 = 100;

/// A phase is sampled until the 95% confidence interval of its median is this tight, or
/// until its time limit; fewer rounds than this never count as stable. Thirty, so that a
/// phase that stops early still spans most of `--max-phase` (samples are sized for about
/// `measure::sweep::sizing::TARGET_ROUNDS` of them) and its batch-median interval has five batches
/// of six rounds.
pub const MIN_ROUNDS: usize = 30;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    pub schema_version: u32,
    pub tool: Provenance,
    pub machine: MachineInfo,
    pub mpi: MpiInfo,
    pub config: MeasureConfig,
    pub plan: Plan,
    /// When the run started and when the file was last written (RFC 3339, UTC).
    pub started_at: String,
    pub updated_at: String,
    /// Whether every core count of `config.cores` has its point (false after Ctrl-C, a fault
    /// or while running; `measure --resume` completes it).
    pub complete: bool,
    /// One point per measured core count, ascending. With [`Trace::runs`], their
    /// combination: each phase's median is the median of the runs' medians, its interval the
    /// one another run's median falls in (`crate::stats::run_interval95`), its samples
    /// left in the runs.
    pub points: Vec<TracePoint>,
    /// Every run of a repeated measurement (`measure --runs R`, `R >= 2`), first measured
    /// first: each a separate MPI launch with its own order of core counts, because what
    /// varies between runs (where the pages land, which thread the scheduler favours) is
    /// fixed for the length of one launch. Empty for one run: `points` are that run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<Run>,
    /// How the messages travelled: intra-node copies or a network. `None` in traces older
    /// than the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<Transport>,
    /// Where rank 1 (the sender) ran and where its send buffer lay, as it reported them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sender: Option<SenderPlacement>,
    /// Kernel and system settings that change memory bandwidth, read when the run started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<MachineSettings>,
    /// Where the pages of rank 0's buffers lay after allocation, read back from the kernel.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub buffers: Vec<BufferPages>,
    /// How a simulated run was drawn (`measure --simulate`): absent in a real trace. With
    /// [`MachineInfo::simulated`] (which travels with the machine into model files) it is one
    /// of the two marks `Trace::simulated` reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simulation: Option<Simulation>,
    /// How an adaptive sweep (`measure --adaptive`) chose its points: absent after a full
    /// sweep. `points` are kept ascending; this keeps the order they were measured in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adaptive: Option<AdaptiveLog>,
    /// The communication stream of GPU copies (`measure --engine gpu`): which GPU, its
    /// link, its driver and which way the copies went. Absent for MPI traces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<GpuCopies>,
}

/// The communication stream of a GPU trace: the copies one copy thread issues back to back
/// between pinned host memory (the communication buffer, bound to `--numa _,COMM`) and the
/// GPU, one copy one sample; with `--gpu all`, every GPU of the node at once, a sample
/// the copies that completed on any of them in at least a millisecond.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpuCopies {
    pub direction: CopyDirection,
    /// The GPU that copied; with `--gpu all`, the first of [`GpuCopies::devices`].
    pub device: GpuDevice,
    /// `--gpu all`: every GPU that copied at once, in PCI bus order (a node with 4 or 8
    /// GPUs has that many copy engines writing into host memory). Empty for one GPU.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<GpuDevice>,
    /// Where the copies came from when they were replayed (the test seam that feeds a GPU
    /// node's recorded bandwidths to the sweep on a machine without one): never set by a
    /// real run, and a replayed trace says so wherever it is read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replayed_from: Option<String>,
}

impl GpuCopies {
    /// Which GPUs copied: `--gpu N`, or `--gpu all` when [`GpuCopies::devices`] lists them.
    pub fn choice(&self) -> GpuChoice {
        if self.devices.is_empty() {
            GpuChoice::One(self.device.index)
        } else {
            GpuChoice::All
        }
    }

    /// In words, as messages and `show` say it: `GPU 0's copies device to host`, `the 4
    /// GPUs' copies device to host`.
    pub fn words(&self) -> String {
        match self.choice() {
            GpuChoice::One(i) => format!("GPU {i}'s copies {}", self.direction.words()),
            GpuChoice::All => format!(
                "the {} GPUs' copies {}",
                self.devices.len(),
                self.direction.words()
            ),
        }
    }

    /// The options of `measure` that make these copies (`--engine gpu --gpu 0 --direction
    /// d2h`, and a replay's `--gpu-replay FILE`): what a resume of their trace repeats.
    pub fn options(&self) -> String {
        let replay = self.replayed_from.as_deref().map(crate::error::escape_line);
        format!(
            "--engine gpu {}",
            gpu_flags(self.choice(), self.direction, replay.as_deref())
        )
    }
}

/// The options that choose GPU copies after `--engine gpu`: `--gpu N --direction d2h`, and
/// a replay's `--gpu-replay FILE` (`replay` as it is to be written): what a resume repeats
/// ([`GpuCopies::options`]) and what a survey's manifest records of its engine.
pub fn gpu_flags(gpu: GpuChoice, direction: CopyDirection, replay: Option<&str>) -> String {
    format!(
        "--gpu {gpu} --direction {}{}",
        direction.short(),
        replay.map_or(String::new(), |f| format!(" --gpu-replay {f}"))
    )
}

/// Which GPUs copy (`--gpu`): one, by its rank in PCI bus order, or every GPU of the node
/// at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuChoice {
    One(u32),
    All,
}

impl std::fmt::Display for GpuChoice {
    /// As the command line writes it: `0`, `all`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GpuChoice::One(i) => write!(f, "{i}"),
            GpuChoice::All => f.write_str("all"),
        }
    }
}

/// Which way a GPU copy moves the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CopyDirection {
    /// From the GPU into host memory (`cudaMemcpyDeviceToHost`): the copy engine writes host
    /// memory, as a network card's DMA writes a received message.
    DeviceToHost,
    /// From host memory to the GPU: the copy engine reads host memory.
    HostToDevice,
}

impl CopyDirection {
    /// The short name of the command line (`--direction d2h|h2d`).
    pub fn short(self) -> &'static str {
        match self {
            CopyDirection::DeviceToHost => "d2h",
            CopyDirection::HostToDevice => "h2d",
        }
    }

    /// In words, for plans and reports.
    pub fn words(self) -> &'static str {
        match self {
            CopyDirection::DeviceToHost => "device to host",
            CopyDirection::HostToDevice => "host to device",
        }
    }

    /// The other way (`--direction both` measures one, then this one).
    pub fn other(self) -> Self {
        match self {
            CopyDirection::DeviceToHost => CopyDirection::HostToDevice,
            CopyDirection::HostToDevice => CopyDirection::DeviceToHost,
        }
    }
}

/// One GPU as the driver, sysfs and hwloc describe it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpuDevice {
    /// Its rank among the node's GPUs in PCI bus order (`nvidia-smi`'s numbering, `--gpu`).
    pub index: u32,
    pub name: String,
    /// `0000:3b:00.0`, lower case, as sysfs and hwloc write it.
    pub pci_bus_id: String,
    /// Device memory, bytes.
    pub memory_bytes: u64,
    /// The CUDA version the driver supports (`cuDriverGetVersion`: `13.0`).
    pub cuda_version: String,
    /// The kernel driver's version (`/sys/module/nvidia/version`: `580.95.05`), when read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver_version: Option<String>,
    /// The PCIe link as trained and at best (sysfs), when read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<PcieLink>,
    /// NUMA nodes (logical) local to the GPU, empty if hwloc does not know.
    #[serde(default)]
    pub numa_nodes: Vec<u32>,
    /// Socket (logical) the GPU is attached to, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub socket: Option<u32>,
}

/// A PCIe link: its speed per lane (GT/s) and width (lanes), as trained now and the most the
/// device and its slot allow. A link that trained below its best (a Gen5 x16 GPU running at
/// Gen4, or x8) moves its copies at a fraction of their speed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PcieLink {
    pub speed_gts: f64,
    pub width: u32,
    pub max_speed_gts: f64,
    pub max_width: u32,
}

/// One run of a repeated measurement: one MPI launch over the sweep's core counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// The core counts in the order this run measures them: `config.cores` shuffled by the
    /// ChaCha8 stream of `seed` and the run's index, so that a drift over the campaign's
    /// time (a neighbour's job starting, the machine warming) does not pass for an effect
    /// of the core count.
    pub order: Vec<u32>,
    /// The seed of `order` (`measure --seed`).
    pub seed: u64,
    /// When the run started (RFC 3339, UTC).
    pub started_at: String,
    /// Its points, ascending, as a one-run trace's `points`.
    pub points: Vec<TracePoint>,
}

/// An adaptive sweep's record: what it was asked, each point in the order it was measured
/// with why it was chosen, and why the sweep ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AdaptiveLog {
    /// `--precision`, as a fraction (0.01 for `--precision 1`).
    pub precision: f64,
    /// `--budget` in seconds, if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_seconds: Option<f64>,
    /// Every measured point, first measured first (a resumed sweep appends to it).
    pub choices: Vec<AdaptiveChoice>,
    /// Why the sweep ended; `None` while it runs or after an interruption.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<String>,
}

/// One point of an adaptive sweep: its core count and why it was measured then.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AdaptiveChoice {
    pub cores: u32,
    pub why: String,
}

/// A simulated run: the machine it was drawn from, the seed, and the time a real node would
/// have spent measuring it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Simulation {
    /// `paper:henri` or `realistic:henri` (see `contention measure --help`).
    pub machine: String,
    pub seed: u64,
    /// Seconds the measured phases took on the simulated clock, summed over the points of
    /// this trace: what the same sweep costs on a real node, touching the buffers aside.
    pub measuring_seconds: f64,
}

/// How the measured bytes moved: copies inside one node, a network card, or a GPU's copy
/// engines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TransportKind {
    /// Both ranks on one host: the MPI library copies through shared memory (CMA, XPMEM or
    /// copy-in/copy-out), moving 2-3 times the message bytes through memory, with CPU cores
    /// doing the copies; not the DMA of a network card the paper's model describes.
    IntraNode,
    /// Rank 1 on another host: messages arrive through the network card's DMA.
    Network,
    /// No MPI job (`measure --engine gpu`): a GPU's copy engines move the bytes over PCIe
    /// between the GPU and pinned host memory, DMA with no CPU core copying, the traffic the
    /// paper's model was made for ([`Trace::gpu`] says which GPU and which way).
    GpuCopy,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Transport {
    pub kind: TransportKind,
    /// Host of each rank, rank 0 first.
    pub hosts: Vec<String>,
}

/// Rank 1's placement as it reported it after binding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SenderPlacement {
    pub host: String,
    /// PU (OS index) rank 1 was bound to; `None` when it was not bound (another host, no
    /// free core, or `--no-bind`).
    pub pu_os: Option<u32>,
    /// Why that PU, or why none.
    pub reason: String,
    /// CPUs (OS indices) rank 1 was seen running on.
    pub ran_on: Vec<u32>,
    /// Where its send buffer's pages lay.
    pub buffer: BufferPages,
}

/// Where a buffer's pages lie, from the kernel's page tables (`move_pages` in query mode).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BufferPages {
    /// `computation 3`, `communication`, `send`.
    pub buffer: String,
    /// NUMA node (OS index) it was bound to; `None` when unbound.
    pub bound_to: Option<u32>,
    pub pages: u64,
    /// Pages per NUMA node (OS index).
    pub on_nodes: std::collections::BTreeMap<u32, u64>,
    /// Pages whose location the kernel did not report (not present, or no `move_pages`).
    pub unknown: u64,
}

/// Settings of the node that change what memory bandwidth is measured. Each is `None` when
/// it could not be read (another OS, a container hiding `/sys`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MachineSettings {
    /// Transparent huge pages mode: `always`, `madvise` or `never`.
    pub transparent_hugepages: Option<String>,
    /// Automatic NUMA balancing (`/proc/sys/kernel/numa_balancing`): when on, the kernel may
    /// move pages away from the node they were bound to while the run measures.
    pub numa_balancing: Option<bool>,
    /// CPU frequency governors in use, with how many CPUs use each.
    pub cpu_governors: std::collections::BTreeMap<String, u32>,
    /// Sub-NUMA clustering (SNC, Cluster-on-Die, NPS>1): more than one NUMA node per socket.
    pub sub_numa_clustering: Option<bool>,
    /// CPUs and NUMA nodes the process may use (`/proc/self/status`), and those online.
    pub cpus_allowed: Option<String>,
    pub cpus_online: Option<String>,
    pub mems_allowed: Option<String>,
    pub mems_online: Option<String>,
    /// True when the allowed CPUs or nodes are fewer than those online (a batch job's or a
    /// container's cpuset).
    pub restricted_cpuset: bool,
}

/// The CPUs a thread was seen running on during a point (`sched_getcpu` after every
/// iteration).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadCpus {
    /// `computation 0`, `communication`.
    pub thread: String,
    /// The PU (OS index) it was bound to; `None` with `--no-bind`.
    pub bound_to: Option<u32>,
    pub ran_on: Vec<u32>,
}

/// The measured node as hwloc describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MachineInfo {
    pub hostname: String,
    pub cpu_model: String,
    pub sockets: u32,
    /// Physical cores of the first socket (the computing socket).
    pub cores_per_socket: u32,
    /// Hardware threads per core (2 with hyperthreading); only one per core is ever used.
    pub pus_per_core: u32,
    pub numa_per_socket: u32,
    pub numa_nodes: Vec<NumaNodeInfo>,
    /// Network cards hwloc sees (InfiniBand, Omni-Path, Ethernet), with their locality.
    pub nics: Vec<NicInfo>,
    /// NVIDIA GPUs hwloc sees, in PCI bus order (`measure --gpu N` is the N-th), with their
    /// locality: a trace of a GPU node says so whatever it measured. Absent where there is
    /// none (and in traces older than the field).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpus: Vec<GpuInfo>,
    pub hwloc_version: String,
    /// The simulated machine this trace was drawn from (`paper:henri`), absent for a real
    /// one: `calibrate`, `evaluate`, `plot`, `check` and `survey` never mix the two. Read
    /// through `Trace::simulated`, which checks it against [`Trace::simulation`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simulated: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NumaNodeInfo {
    /// hwloc logical index: the numbering every option of the tool uses.
    pub logical_index: u32,
    /// The operating system's index (`numactl`, `/sys/devices/system/node/nodeN`).
    pub os_index: u32,
    /// Logical index of the socket (package) it belongs to, if hwloc knows.
    pub socket: Option<u32>,
    pub memory_bytes: u64,
}

/// An NVIDIA GPU as hwloc sees it: where it sits (`measure --engine gpu` puts its copy
/// thread on its socket).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpuInfo {
    /// `0000:3b:00.0`, as sysfs, hwloc and the driver write it (lower case).
    pub pci_bus_id: String,
    /// hwloc's name of the PCI device, else its vendor and device ids (`NVIDIA device
    /// 2335`); the driver's name (`NVIDIA H200`) in a trace of its copies.
    pub name: String,
    /// NUMA nodes (logical) local to the GPU, empty if hwloc does not know.
    pub numa_nodes: Vec<u32>,
    /// Socket (logical) the GPU is attached to, if known.
    pub socket: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NicInfo {
    pub name: String,
    /// NUMA nodes (logical) local to the card, empty if hwloc does not know.
    pub numa_nodes: Vec<u32>,
    /// Socket (logical) the card is attached to, if known.
    pub socket: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MpiInfo {
    /// `MPI_Get_library_version`, without the lines that say how the library was built
    /// (MPICH adds its configure line and compiler flags).
    pub library_version: String,
    /// Thread level granted by `MPI_Init_thread`.
    pub thread_level: String,
    /// Host name of each rank, rank 0 (the measured node) first.
    pub hosts: Vec<String>,
    /// The library's name and version (`Open MPI 4.1.4`, `MPICH 4.0.2`); absent in traces
    /// written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub library: Option<String>,
    /// Who started the ranks (`Open MPI mpirun`, `Hydra mpiexec`, `srun --mpi=pmi2`), and
    /// the Slurm job they ran in (`, in Slurm job 12`); absent in older traces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launcher: Option<String>,
    /// The point-to-point stack the library picked on rank 0 (which fabric the messages
    /// crossed); absent in older traces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack: Option<MpiStack>,
}

/// The stack an MPI library carries point-to-point messages over, as this rank saw it after
/// `MPI_Init`: Open MPI's PML (and MTL, or the BTLs ob1 may use), MPICH's device and netmod.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MpiStack {
    /// In one line: `Open MPI pml ob1 (btl self,sm,tcp,vader)`, `Open MPI pml cm, mtl ofi`,
    /// `MPICH ch4:ucx`; what two runs compare.
    pub summary: String,
    /// Open MPI's point-to-point messaging layer (`ob1`, `cm`, `ucx`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pml: Option<String>,
    /// Open MPI's matching transport under `cm` (`ofi`, `psm2`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtl: Option<String>,
    /// Open MPI's byte transfer layers loaded (those `ob1` may use, one per peer).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub btls: Vec<String>,
    /// MPICH's device and netmod (`ch4:ucx`, `ch4:ofi`, `ch3:nemesis`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    /// The variables of this rank's environment that choose the stack (`OMPI_MCA_pml=cm`,
    /// `UCX_TLS=tcp`, `FI_PROVIDER=tcp`...), as `NAME=VALUE`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forced_by: Vec<String>,
    /// How it was read: the library's components loaded in the process, or its version text.
    pub read_from: String,
}

/// What the user asked for, after defaults were applied.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeasureConfig {
    /// NUMA node (logical) of the computation buffers.
    pub comp_numa: u32,
    /// NUMA node (logical) of the communication buffer.
    pub comm_numa: u32,
    /// Core counts of the sweep, ascending.
    pub cores: Vec<u32>,
    pub message_size_bytes: u64,
    /// Bytes each computing core writes per iteration (weak scaling).
    pub buffer_bytes_per_core: u64,
    /// Longest time one phase is sampled, seconds.
    pub max_phase_seconds: f64,
    /// A phase stops early once the median of its samples is stable within this relative
    /// tolerance (see [`Phase::sampling`]).
    pub stable_within: f64,
    /// Seconds without progress after which the run is ended as stalled.
    pub timeout_seconds: f64,
    /// The store instructions of the non-temporal kernel (`avx512`, `avx2`, `sse2`, or
    /// `portable`).
    pub kernel: String,
    /// What the computing threads ran: `nt-store` (the paper's), `copy` or `triad`.
    #[serde(default = "default_compute_kernel")]
    pub compute_kernel: String,
    /// Communication pattern: `pong` (the paper's), `pingpong` or `ring`.
    #[serde(default = "default_pattern")]
    pub pattern: String,
    /// MPI ranks of the job (2, or the ring's size).
    #[serde(default = "default_ranks")]
    pub ranks: u32,
    /// False when the user passed `--no-bind`: threads and memory were not bound and the
    /// placement columns are only what was asked, not what was enforced.
    pub bind: bool,
    /// Runs of the sweep asked for (`measure --runs`); 1, and absent from the file, for one.
    #[serde(default = "one_run", skip_serializing_if = "is_one_run")]
    pub runs: u32,
    /// How the buffers were sized and timed (absent in traces made before chunked sampling,
    /// where a sample was one pass over the whole buffer and one receive buffer was reused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizing: Option<Sizing>,
}

/// How big the buffers were and how finely they were timed, with the cache sizes behind it,
/// so a trace shows the cache could not answer for memory (or says by how much it could).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sizing {
    /// Bytes a computing thread wrote between two looks at the clock: its buffer is walked
    /// in chunks of this size.
    pub chunk_bytes: u64,
    /// A computing sample closes at the first chunk boundary after this many seconds.
    pub sample_seconds: f64,
    /// Message slots of the receive buffer, taken in turn (and of the sender's send buffer
    /// when it shares this host).
    pub message_buffers: u32,
    /// Bytes of last-level cache of the socket(s) of the computing cores (0: unknown).
    pub llc_bytes_comp: u64,
    /// Bytes of last-level cache of the communication core's socket (0: unknown).
    pub llc_bytes_comm: u64,
    /// How many times the cache the working sets had to be.
    pub cache_factor: u64,
    /// Where the sizing fell short (cache rule missed, too few messages per phase).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

fn one_run() -> u32 {
    1
}

fn is_one_run(runs: &u32) -> bool {
    *runs == 1
}

fn default_compute_kernel() -> String {
    "nt-store".into()
}

fn default_pattern() -> String {
    "pong".into()
}

fn default_ranks() -> u32 {
    2
}

/// How the run was pinned and bound, exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// The computing cores in the order threads take them: thread `i` runs on `compute[i]`.
    pub compute: Vec<CoreSlot>,
    /// The core of the communication thread.
    pub comm: CoreSlot,
    /// Why that core (e.g. "last core of socket 0, next to mlx5_0").
    pub comm_reason: String,
    /// True when the communication thread shares its core with the last computing thread
    /// (`--shared-comm-core`, for machines with too few cores): points using that core are
    /// disturbed by the sharing itself.
    #[serde(default)]
    pub comm_shares_core: bool,
    /// OS indices of the NUMA nodes that hold the computation and communication buffers.
    pub comp_numa_os: u32,
    pub comm_numa_os: u32,
}

/// One physical core and the hardware thread used on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoreSlot {
    /// hwloc logical index of the core.
    pub core: u32,
    /// OS index of the processing unit (hardware thread) the thread is bound to.
    pub pu_os: u32,
    /// Logical index of the socket.
    pub socket: u32,
}

/// The four measurements of one core count (section 4.1.1, steps 1-3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TracePoint {
    pub cores: u32,
    pub comp_alone: Phase,
    pub comm_alone: Phase,
    /// Computations while communications run; with `comm_parallel`, the same time window.
    pub comp_parallel: Phase,
    pub comm_parallel: Phase,
    /// The CPUs each thread of rank 0 ran on during the point. Empty in traces older than
    /// the field.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ran_on: Vec<ThreadCpus>,
}

impl TracePoint {
    /// The four phases, in the order the data sets and reports keep them: computations alone,
    /// communications alone, computations in parallel, communications in parallel.
    pub fn phases(&self) -> [&Phase; 4] {
        [
            &self.comp_alone,
            &self.comm_alone,
            &self.comp_parallel,
            &self.comm_parallel,
        ]
    }

    /// [`TracePoint::phases`], to change each the same way.
    pub fn phases_mut(&mut self) -> [&mut Phase; 4] {
        [
            &mut self.comp_alone,
            &mut self.comm_alone,
            &mut self.comp_parallel,
            &mut self.comm_parallel,
        ]
    }
}

/// One stream in one phase: the samples kept (steady state only) and their summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Phase {
    /// Bandwidth of the whole stream in MB/s: for computations, of all computing cores
    /// together.
    pub summary: Summary,
    /// How the phase was sampled: its duration, why it stopped, what was discarded.
    pub sampling: String,
    pub samples: Vec<Sample>,
    /// 95% confidence interval of `summary.median`, MB/s, with rounds treated as correlated
    /// (batch medians); `None` with too few rounds, and in traces older than the field.
    #[serde(default)]
    pub ci95: Option<(f64, f64)>,
    /// True when the phase stopped before its stopping rule was met (too few rounds, or an
    /// interval wider than `config.stable_within`): its median is less trustworthy. False in
    /// traces older than the field.
    #[serde(default)]
    pub unstable: bool,
}

impl Phase {
    /// A phase of one sample's summary at `median`, no samples kept: what the tests of a
    /// point's line need (here and in the benchmark's session).
    #[cfg(any(test, feature = "test-support"))]
    #[doc(hidden)]
    pub fn of_median(median: f64, ci95: Option<(f64, f64)>, unstable: bool) -> Phase {
        Phase {
            summary: crate::stats::summarize(&[median]),
            sampling: String::new(),
            samples: Vec::new(),
            ci95,
            unstable,
        }
    }
}

/// Statistics of a phase's bandwidth, MB/s.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub median: f64,
    pub mean: f64,
    pub stddev: f64,
    pub min: f64,
    pub max: f64,
    pub count: u64,
}

/// One iteration of one thread (a store pass over its buffer, or one received message).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// Computing thread index, or 0 for the communication thread.
    pub thread: u32,
    /// Seconds since the start of the point (one clock for all phases of a point, so the
    /// windows of parallel computation and communication samples can be compared).
    pub start: f64,
    pub end: f64,
    /// Bandwidth of this iteration of this thread, MB/s (10^6 bytes/s). Written as `mb_per_s`
    /// (`mbps` reads as megabits per second to network people); traces that say `mbps` still
    /// read.
    #[serde(rename = "mb_per_s", alias = "mbps")]
    pub mbps: f64,
}

/// A trace whose two marks of origin disagree: `machine.simulated` and `simulation.machine`
/// (`None` where absent). A simulated run writes both and a real one neither, so the file
/// was edited or is corrupt, and no reader may guess which mark to believe: one guess let
/// a simulated trace pass for a real one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarksDisagree {
    pub(crate) machine: Option<String>,
    pub(crate) simulation: Option<String>,
}

impl std::fmt::Display for MarksDisagree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let said = |m: &Option<String>| match m {
            Some(spec) => format!("`{}`", crate::error::escape(spec)),
            None => "absent".to_string(),
        };
        let spec = self.simulation.as_ref().or(self.machine.as_ref());
        write!(
            f,
            "its marks of origin disagree: machine.simulated is {} and simulation.machine is \
             {}; a simulated trace carries both, naming one machine, and a real one neither, so \
             the file was edited or is corrupt: measure it again{}",
            said(&self.machine),
            said(&self.simulation),
            match spec {
                Some(s) => format!(
                    " (with `--simulate {}` if it was simulated)",
                    crate::error::escape(s)
                ),
                None => String::new(),
            }
        )
    }
}

impl std::error::Error for MarksDisagree {}

impl Trace {
    /// Where the points came from: the simulated run (its machine, `paper:henri`, and seed)
    /// for a trace of `measure --simulate`, `None` for a real measurement. The one rule
    /// every reader applies (calibrate, evaluate, plot, check, a fleet, `measure --resume`):
    /// both marks, [`MachineInfo::simulated`] and [`Trace::simulation`], must say the same,
    /// else the trace is refused rather than taken on either mark's word.
    pub(crate) fn simulated(&self) -> Result<Option<&Simulation>, MarksDisagree> {
        let machine = self.machine.simulated.as_deref();
        match &self.simulation {
            Some(s) if Some(s.machine.as_str()) == machine => Ok(Some(s)),
            None if machine.is_none() => Ok(None),
            _ => Err(MarksDisagree {
                machine: machine.map(str::to_string),
                simulation: self.simulation.as_ref().map(|s| s.machine.clone()),
            }),
        }
    }

    /// What a reader of this trace (named `source`) should know whatever it does with it: that
    /// it is incomplete, or that its placement was asked for but not enforced (`--no-bind`).
    pub(crate) fn notes(&self, source: &str) -> Vec<String> {
        let mut notes = Vec::new();
        if !self.complete {
            // A trace of runs may hold every core count in some run and still miss runs.
            let measured = if self.runs.is_empty() {
                format!(
                    "{} of {} core counts measured",
                    self.points.len(),
                    self.config.cores.len()
                )
            } else {
                format!(
                    "{} of {} runs complete",
                    self.finished_runs(),
                    self.config.runs
                )
            };
            // The command that does: a simulated trace is continued only by the same
            // simulation (a plain `--resume` refuses it as a real run).
            let simulate = match &self.simulation {
                Some(s) => format!(
                    " --simulate {} --seed {}",
                    crate::error::escape(&s.machine),
                    s.seed
                ),
                None => String::new(),
            };
            notes.push(format!(
                "{source} is incomplete ({measured}); `contention measure{simulate} --resume` \
                 completes it"
            ));
        }
        if !self.config.bind {
            notes.push(format!(
                "{source} was measured without binding (--no-bind): placement {},{} was \
                 asked for, not enforced, so the model may not describe it",
                self.config.comp_numa, self.config.comm_numa
            ));
        }
        if let Some(from) = self.gpu.as_ref().and_then(|g| g.replayed_from.as_ref()) {
            notes.push(format!(
                "{source}: its GPU copies were replayed from {} (measure --gpu-replay), no \
                 GPU driven: a test of the tool, not a measurement of a GPU",
                crate::error::escape_line(from)
            ));
        }
        notes
    }

    /// The tidy rows of this trace (one per point, medians), as `measure` writes its CSV.
    pub fn tidy_rows(&self) -> Vec<TidyRow> {
        self.points
            .iter()
            .map(|p| TidyRow {
                comp_numa: self.config.comp_numa,
                comm_numa: self.config.comm_numa,
                cores: p.cores,
                comp_alone: p.comp_alone.summary.median,
                comm_alone: p.comm_alone.summary.median,
                comp_parallel: p.comp_parallel.summary.median,
                comm_parallel: p.comm_parallel.summary.median,
            })
            .collect()
    }

    /// The points of each run, first run first: [`Trace::runs`]' points, or `points` for a
    /// trace of one run. What a reader that needs the samples, or the runs apart, reads.
    pub fn run_points(&self) -> Vec<&[TracePoint]> {
        if self.runs.is_empty() {
            vec![self.points.as_slice()]
        } else {
            self.runs.iter().map(|r| r.points.as_slice()).collect()
        }
    }

    /// What makes this trace a record no measurement leaves, if anything (every reader
    /// refuses it, through [`crate::io::trace_file::parse`]): more runs than `config.runs`
    /// (copied runs narrowed the intervals of `calibrate --bootstrap` as if measured), a core
    /// count twice in a run's order (measured again without end) or points, a core count in
    /// an order that `config.cores` does not ask for, two runs with the same points or one
    /// point alike in two runs (a run copied: no two launches measure the same numbers), or
    /// `complete` with a core count of `config.cores` or a run of `config.runs` missing (a
    /// run deleted: read as a complete campaign of fewer runs, or a trace of points alone
    /// asking for more than one run); and what no measurement writes in `config` or
    /// `machine` (`config.runs` beyond `measure --runs`'s bounds, `config.cores` empty, out
    /// of order, twice or beyond the socket, a host name with control characters), or a
    /// point at a core count of the socket that `config.cores` does not ask for. What
    /// each point holds is [`crate::dataset::impossible_points`]'s. Linear in the runs'
    /// sizes but for the copies, compared run by run.
    pub fn record_problem(&self) -> Option<String> {
        use std::collections::HashSet;
        // A GPU trace says so twice: its transport and its `gpu` record go together.
        let gpu_transport = self
            .transport
            .as_ref()
            .is_some_and(|t| t.kind == TransportKind::GpuCopy);
        if gpu_transport != self.gpu.is_some() {
            return Some(if gpu_transport {
                "transport.kind is gpu-copy and it has no gpu record".into()
            } else {
                "it has a gpu record and transport.kind is not gpu-copy".into()
            });
        }
        if self.runs.len() > self.config.runs.max(1) as usize {
            return Some(format!(
                "it holds {} runs and config.runs asks for {}",
                self.runs.len(),
                self.config.runs
            ));
        }
        let asked: HashSet<u32> = self.config.cores.iter().copied().collect();
        for (i, r) in self.runs.iter().enumerate() {
            let mut seen = HashSet::new();
            if let Some(n) = r.order.iter().find(|&&n| !seen.insert(n)) {
                return Some(format!("runs[{i}].order lists {n} cores twice"));
            }
            if let Some(n) = r.order.iter().find(|n| !asked.contains(n)) {
                return Some(format!(
                    "runs[{i}].order lists {n} cores, which config.cores does not ask for"
                ));
            }
            let mut seen = HashSet::new();
            if let Some(p) = r.points.iter().find(|p| !seen.insert(p.cores)) {
                return Some(format!("runs[{i}] holds two points at {} cores", p.cores));
            }
        }
        let mut seen = HashSet::new();
        if let Some(p) = self.points.iter().find(|p| !seen.insert(p.cores)) {
            return Some(format!("points holds two points at {} cores", p.cores));
        }
        for (i, a) in self.runs.iter().enumerate() {
            if a.points.is_empty() {
                continue;
            }
            if let Some(j) = self.runs[..i].iter().position(|b| b.points == a.points) {
                return Some(format!("runs[{i}] holds the same points as runs[{j}]"));
            }
        }
        // One point alike in two runs is a run copied in part, or a simulated run drawn
        // twice: a simulated run's draws follow its index, so deleting `runs[1]` of three
        // made `--resume` draw the third run again as the new one (issue 46).
        let mut by_cores: std::collections::HashMap<u32, Vec<(usize, &TracePoint)>> =
            std::collections::HashMap::new();
        for (i, r) in self.runs.iter().enumerate() {
            for p in &r.points {
                let earlier = by_cores.entry(p.cores).or_default();
                if let Some((j, _)) = earlier.iter().find(|(_, q)| *q == p) {
                    return Some(format!(
                        "runs[{i}] and runs[{j}] hold the same point at {} cores",
                        p.cores
                    ));
                }
                earlier.push((i, p));
            }
        }
        if self.complete {
            let missing = self.missing_cores(&self.config.cores);
            if !missing.is_empty() {
                return Some(format!(
                    "it is marked complete but has no point for core counts {} of its \
                     config.cores",
                    first_few(&missing)
                ));
            }
            // A trace of points alone is one run: complete, it asks for one. A launch that
            // asks for more measures into `runs` from its first point, so `config.runs: 3`
            // without runs was shown as "1 of 3 run(s) complete" and fitted (issue 46, N4).
            let runs = self.config.runs as usize;
            let finished = if self.runs.is_empty() {
                1
            } else {
                self.finished_runs()
            };
            if self.runs.len().max(1) < runs || finished < self.runs.len().max(1) {
                return Some(format!(
                    "it is marked complete but holds {finished} complete run(s) of the {runs} \
                     its config.runs asks for"
                ));
            }
        }
        self.config_problem()
            .or_else(|| self.machine_problem())
            .or_else(|| self.points_not_asked_for())
    }

    /// What in `config` no measurement writes: `runs` outside `measure --runs`'s bounds
    /// ([`MAX_RUNS`]: `--resume` measured run after run of an edited
    /// `4000000000`), or `cores` empty, out of order, twice, 0 or beyond the machine's
    /// socket (`measure` writes the `--cores` it checked, sorted, each once; `--resume` then
    /// measured an empty list as every core, and 19 on a socket of 18 failed as if `--cores`
    /// had said it; issue 46, N2 and N4). Bounding each count by the socket bounds the list's
    /// length too: an edited file of 360,000 counts is refused at its first repeat.
    fn config_problem(&self) -> Option<String> {
        let runs = self.config.runs;
        let max_runs = MAX_RUNS;
        if !(1..=max_runs).contains(&runs) {
            return Some(format!(
                "it asks for {runs} runs in config.runs, and a trace holds 1 to {max_runs} \
                 (`measure --runs`)"
            ));
        }
        let cores = &self.config.cores;
        if cores.is_empty() {
            return Some(
                "config.cores is empty, and a trace asks for the core counts it measures".into(),
            );
        }
        let socket = self.machine.cores_per_socket.min(MAX_CORES_PER_SOCKET);
        if cores.contains(&0) {
            return Some("config.cores lists 0 cores, and a core count is 1 or more".into());
        }
        if let Some(&n) = cores.iter().find(|&&n| n > socket) {
            return Some(format!(
                "config.cores lists {n} cores, and the machine's socket has 1..{socket} \
                 (machine.cores_per_socket)"
            ));
        }
        if let Some(w) = cores.windows(2).find(|w| w[0] >= w[1]) {
            return Some(if w[0] == w[1] {
                format!("config.cores lists {} cores twice", w[0])
            } else {
                format!(
                    "config.cores lists {} after {}, and `measure` writes them ascending",
                    w[1], w[0]
                )
            });
        }
        None
    }

    /// What in `machine` no node reports: a host name with control characters (`a\rb`,
    /// refused by calibrate and check but shown by show and plot; issue 46) or invisible
    /// format ones (a bidi override shows another name than the one it holds).
    fn machine_problem(&self) -> Option<String> {
        let host = &self.machine.hostname;
        host.chars().any(crate::error::needs_escape).then(|| {
            format!(
                "machine.hostname {} holds control or invisible format characters, and no host \
                 is named so",
                crate::error::escape(&format!("{host:?}"))
            )
        })
    }

    /// A point, in `points` or a run's, at a core count of the machine's socket that
    /// `config.cores` does not ask for (a complete trace short of a measured count was
    /// shown and fitted, and `--resume` of an incomplete one asking for fewer counts than it
    /// holds said "nothing to measure" for ever; issue 46, N2): every point is of a count
    /// asked for. A point beyond the socket is [`crate::dataset::impossible_points`]'s, which
    /// `--resume` drops and measures again; `machine.cores_per_socket` edited below the
    /// points is refused here through `config.cores`, which asks for them.
    fn points_not_asked_for(&self) -> Option<String> {
        let asked: std::collections::HashSet<u32> = self.config.cores.iter().copied().collect();
        let socket = 1..=self.machine.cores_per_socket;
        let runs = self
            .runs
            .iter()
            .enumerate()
            .map(|(r, run)| (format!("runs[{r}].points"), &run.points));
        std::iter::once(("points".to_string(), &self.points))
            .chain(runs)
            .find_map(|(at, points)| {
                points
                    .iter()
                    .enumerate()
                    .find(|(_, p)| socket.contains(&p.cores) && !asked.contains(&p.cores))
                    .map(|(i, p)| {
                        format!(
                            "{at}[{i}] is at {} cores, which config.cores does not ask for",
                            p.cores
                        )
                    })
            })
    }

    /// How many of [`Trace::runs`] hold every core count of `config.cores` (linear, as
    /// [`Trace::missing_cores`], for the same reason).
    pub fn finished_runs(&self) -> usize {
        let cores = &self.config.cores;
        self.runs
            .iter()
            .filter(|r| {
                let measured: std::collections::HashSet<u32> =
                    r.points.iter().map(|p| p.cores).collect();
                cores.iter().all(|n| measured.contains(n))
            })
            .count()
    }

    /// The core counts of `cores` this trace has no point for: what `--resume` still has to
    /// measure, and what a trace marked complete must not have.
    ///
    /// Linear in both lengths: a file within the input size limit may hold millions of
    /// counts and tens of thousands of points, and comparing each with each took minutes.
    pub fn missing_cores(&self, cores: &[u32]) -> Vec<u32> {
        let measured: std::collections::HashSet<u32> =
            self.points.iter().map(|p| p.cores).collect();
        cores
            .iter()
            .copied()
            .filter(|n| !measured.contains(n))
            .collect()
    }
}

/// `[2, 4]`, or the first eight counts and how many more: a corrupt file may miss millions,
/// and an error line of megabytes helps no one.
pub(crate) fn first_few(counts: &[u32]) -> String {
    const SHOWN: usize = 8;
    let head: Vec<String> = counts.iter().take(SHOWN).map(u32::to_string).collect();
    match counts.len().saturating_sub(SHOWN) {
        0 => format!("[{}]", head.join(", ")),
        more => format!("[{}, ...] and {more} more", head.join(", ")),
    }
}

/// One row of the tidy CSV (docs/formats.md, "Tidy CSV"): a placement, a core count and its four bandwidths.
/// Repeated rows are repetitions, aggregated by median.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TidyRow {
    pub comp_numa: u32,
    pub comm_numa: u32,
    pub cores: u32,
    pub comp_alone: f64,
    pub comm_alone: f64,
    pub comp_parallel: f64,
    pub comm_parallel: f64,
}

/// A bandwidth as the tidy CSV writes it (docs/formats.md, "Tidy CSV"): MB/s with one
/// decimal, 0.1 MB/s being far below any measurement's noise.
pub(crate) fn csv_bandwidth(v: f64) -> String {
    format!("{v:.1}")
}

/// A bandwidth as a reader of the tidy CSV gets it back ([`csv_bandwidth`], then parsed):
/// what a trace's point is in the CSV `measure` writes beside it.
pub(crate) fn as_written(v: f64) -> f64 {
    csv_bandwidth(v).parse().unwrap_or(v)
}

impl TidyRow {
    /// A predicted point of placement `comp_numa,comm_numa` as a row.
    pub fn predicted(comp_numa: u32, comm_numa: u32, pt: &crate::model::Point) -> Self {
        TidyRow {
            comp_numa,
            comm_numa,
            cores: pt.cores,
            comp_alone: pt.comp_alone,
            comm_alone: pt.comm_alone,
            comp_parallel: pt.comp_parallel,
            comm_parallel: pt.comm_parallel,
        }
    }
}

/// Predictions as tidy rows, one per placement and core count: what a perfect measurement of
/// a machine the model describes exactly would give.
pub fn predicted_rows(placements: &[crate::model::PlacementPrediction]) -> Vec<TidyRow> {
    placements
        .iter()
        .flat_map(|p| {
            p.points
                .iter()
                .map(|pt| TidyRow::predicted(p.comp_numa, p.comm_numa, pt))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The real 2-core trace of the CI machine: `config.cores` 1,2, complete, one run.
    fn vm() -> Trace {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/data/traces/vm-local.json"
        );
        crate::io::trace_file::read(std::path::Path::new(path)).unwrap()
    }

    /// Issue 46, N1, N2 and N4: what no `measure` writes in `config` or `machine`, or a
    /// point outside them, is a record every reader refuses, `--resume` included.
    #[test]
    fn config_and_machine_no_measure_writes_are_refused_naming_the_field() {
        assert_eq!(vm().record_problem(), None);
        type Edit = fn(&mut Trace);
        let cases: [(Edit, &str); 12] = [
            (|t| t.config.cores.push(1), "config.cores lists 1 after 2"),
            (
                |t| t.config.cores = vec![1, 1, 2],
                "config.cores lists 1 cores twice",
            ),
            (|t| t.config.cores.clear(), "config.cores is empty"),
            (
                |t| {
                    t.config.cores = vec![0, 1, 2];
                    t.complete = false;
                },
                "config.cores lists 0 cores",
            ),
            (
                |t| {
                    t.config.cores.push(3);
                    t.complete = false;
                },
                "config.cores lists 3 cores, and the machine's socket has 1..2",
            ),
            (
                |t| t.config.cores = (0..360_000).map(|i| 1 + i % 2).collect(),
                "config.cores lists 1 after 2",
            ),
            (
                |t| t.config.cores = vec![1],
                "points[1] is at 2 cores, which config.cores does not ask for",
            ),
            (
                |t| t.machine.cores_per_socket = 1,
                "config.cores lists 2 cores, and the machine's socket has 1..1",
            ),
            (
                |t| t.config.runs = 3,
                "marked complete but holds 1 complete run(s) of the 3",
            ),
            (
                |t| {
                    t.config.runs = 0;
                    t.complete = false;
                },
                "it asks for 0 runs in config.runs, and a trace holds 1 to 100",
            ),
            (
                |t| {
                    t.config.runs = 101;
                    t.complete = false;
                },
                "it asks for 101 runs",
            ),
            (
                |t| t.machine.hostname = "a\rb".into(),
                "machine.hostname \"a\\rb\" holds control or invisible format characters",
            ),
        ];
        for (edit, said) in cases {
            let mut t = vm();
            edit(&mut t);
            let why = t.record_problem();
            assert!(
                why.as_deref().is_some_and(|w| w.contains(said)),
                "{said}: {why:?}"
            );
        }
        // Incomplete, a trace of points alone may ask for more runs: `--resume` makes its
        // points the first.
        let mut t = vm();
        (t.config.runs, t.complete) = (3, false);
        assert_eq!(t.record_problem(), None);
        // A point beyond the socket is the points' rule's, which `--resume` drops.
        let mut t = vm();
        t.points[1].cores = 999;
        t.complete = false;
        assert_eq!(t.record_problem(), None);
        let refused = crate::dataset::impossible_points(&t, "t.json");
        assert!(
            refused[0].why.contains("at 999 cores, beyond"),
            "{refused:?}"
        );
    }
}
