//! The machine as `measure` plans on it, as plain data: sockets, cores, NUMA nodes, caches
//! and network cards. Read from hwloc by [`crate::machine::topology`] (a build without the
//! `mpi` feature has no hwloc, but simulated machines and the plans still use these types).

use crate::trace::{MachineInfo, NicInfo, NumaNodeInfo};

/// Where the kernel describes the CPUs and NUMA nodes (sub-NUMA clustering, online and
/// allowed sets): what `measure`, its rank 0 and the survey read when planning.
pub const SYSFS: &str = "/sys/devices/system";

/// One physical core: its logical index and the OS indices of its usable hardware threads
/// (those in the process's allowed cpuset; a core with none is left out of the layout).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Core {
    pub(crate) logical: u32,
    pub(crate) pus_os: Vec<u32>,
}

/// One socket (hwloc Package) and its usable cores in logical order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Socket {
    pub(crate) logical: u32,
    pub(crate) cores: Vec<Core>,
    /// Bytes of last-level cache serving this socket's cores: every L3 in it (several on
    /// chiplet CPUs, one per die or CCX), else every L2; 0 when hwloc reports none. The data
    /// of threads on this socket must dwarf it for a kernel to measure memory
    /// ([`crate::measure::sweep::sizing`]).
    pub(crate) llc_bytes: u64,
}

/// Kind of network card, most relevant for MPI first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum NicKind {
    /// InfiniBand / Omni-Path / RoCE verbs device (`mlx5_0`, `hfi1_0`): the HPC fabric.
    Fabric,
    /// A network interface (`ib0`, `eth0`).
    Network,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Nic {
    pub(crate) kind: NicKind,
    pub(crate) info: NicInfo,
}

/// An NVIDIA GPU and where it sits: the device `measure --engine gpu` copies to and from,
/// whose socket the copy thread runs on; as the trace records it.
pub use crate::trace::GpuInfo as Gpu;

/// The machine as `measure` plans on it.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    pub(crate) hostname: String,
    pub(crate) cpu_model: String,
    pub(crate) hwloc_version: String,
    pub(crate) sockets: Vec<Socket>,
    pub(crate) numa: Vec<NumaNodeInfo>,
    pub(crate) nics: Vec<Nic>,
    /// The NVIDIA GPUs in PCI bus order (`--gpu N` is the N-th).
    pub(crate) gpus: Vec<Gpu>,
    /// Cores hwloc sees that the process may not use (cpuset restrictions of a container or
    /// a batch scheduler); reported so a short sweep is explained.
    pub(crate) cores_not_allowed: u32,
    /// NUMA nodes (logical) hwloc sees that the process may not allocate on.
    pub(crate) nodes_not_allowed: Vec<u32>,
    /// The NUMA node (logical) local to each PU (OS index): under sub-NUMA clustering, the
    /// node of the PU's cluster, not just of its socket.
    pub(crate) pu_numa: std::collections::BTreeMap<u32, u32>,
    /// Every last-level cache (each L3, else each L2) with the PUs (OS indices) it serves: on
    /// chiplet CPUs a socket has several, one per die, and threads on some dies can use only
    /// theirs.
    pub(crate) caches: Vec<Cache>,
}

/// One last-level cache and the PUs (OS indices) it serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cache {
    pub(crate) bytes: u64,
    pub(crate) pus_os: Vec<u32>,
}

impl Layout {
    /// Bytes of the last-level caches that serve any of `pus` (OS indices), each counted
    /// once: what the threads on those PUs can keep data in.
    pub(crate) fn llc_covering(&self, pus: impl IntoIterator<Item = u32>) -> u64 {
        let pus: std::collections::BTreeSet<u32> = pus.into_iter().collect();
        self.caches
            .iter()
            .filter(|c| c.pus_os.iter().any(|p| pus.contains(p)))
            .map(|c| c.bytes)
            .sum()
    }

    /// Bytes of last-level cache of the given sockets (logical indices), each counted once.
    pub(crate) fn llc_of(&self, sockets: impl IntoIterator<Item = u32>) -> u64 {
        let wanted: std::collections::BTreeSet<u32> = sockets.into_iter().collect();
        self.sockets
            .iter()
            .filter(|s| wanted.contains(&s.logical))
            .map(|s| s.llc_bytes)
            .sum()
    }

    /// NUMA nodes on the first socket, `#m` of the model (at least 1: a machine whose nodes
    /// have no CPUs is treated as one node per socket).
    pub(crate) fn numa_per_socket(&self) -> u32 {
        let n = self.numa.iter().filter(|n| n.socket == Some(0)).count();
        idx(n.max(1))
    }

    /// The network card MPI most likely uses: a fabric device if any, else an interface
    /// that is not loopback or virtual.
    pub(crate) fn main_nic(&self) -> Option<&Nic> {
        let usable = |n: &&Nic| {
            !["lo", "docker", "virbr", "veth", "br-"]
                .iter()
                .any(|p| n.info.name.starts_with(p))
        };
        self.nics.iter().filter(usable).min_by_key(|n| n.kind)
    }

    /// The trace's description of the machine.
    pub(crate) fn machine_info(&self) -> MachineInfo {
        let first = self.sockets.first();
        MachineInfo {
            hostname: self.hostname.clone(),
            cpu_model: self.cpu_model.clone(),
            sockets: idx(self.sockets.len()),
            cores_per_socket: first.map_or(0, |s| idx(s.cores.len())),
            pus_per_core: first
                .and_then(|s| s.cores.first())
                .map_or(0, |c| idx(c.pus_os.len())),
            numa_per_socket: self.numa_per_socket(),
            numa_nodes: self.numa.clone(),
            nics: self.nics.iter().map(|n| n.info.clone()).collect(),
            gpus: self.gpus.clone(),
            hwloc_version: self.hwloc_version.clone(),
            simulated: None,
        }
    }
}

/// A count as the `u32` the traces hold (a machine has far fewer than 2^32 of anything).
pub(crate) fn idx(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}
