//! What `measure` needs to know of a machine, read from hwloc once and kept as plain data so
//! the pinning decisions ([`crate::machine::plan`]) are pure and testable on machines this one is not
//! (synthetic topologies, hwloc XML dumps).
//!
//! Numbering follows hwloc's conventions, as `lstopo` and `hwloc-bind` users expect: sockets,
//! cores and NUMA nodes by logical index, hardware threads (PUs) by OS index for binding.

use crate::error::Result;
use crate::trace::{NicInfo, NumaNodeInfo};
use hwlocality::object::attributes::ObjectAttributes;
use hwlocality::object::types::{OSDeviceType, ObjectType};
use hwlocality::object::TopologyObject;
use hwlocality::topology::builder::{BuildFlags, TypeFilter};
use hwlocality::Topology;
use std::path::{Path, PathBuf};

use crate::machine::layout::idx;
pub use crate::machine::layout::{Cache, Core, Gpu, Layout, Nic, NicKind, Socket, SYSFS};

/// Loads this machine's topology, with I/O devices so network cards are seen, and with the
/// cores and NUMA nodes the process may not use: hwloc otherwise leaves them out and numbers
/// the rest, so inside a batch job's cpuset logical NUMA node 1 could be another node than on
/// the same machine outside it. Which ones are usable is in the layout
/// ([`Layout::cores_not_allowed`], [`Layout::nodes_not_allowed`]).
pub(crate) fn load_this_machine() -> Result<Topology, TopologyError> {
    Topology::builder()
        .with_flags(BuildFlags::INCLUDE_DISALLOWED)
        .map_err(Cause::from)
        .and_then(build)
        .map_err(TopologyError::ThisMachine)
}

/// Loads a saved topology (`lstopo file.xml`) to plan for another machine.
pub(crate) fn load_xml(path: &Path) -> Result<Topology, TopologyError> {
    // Read by the bounded reader of every input (hwloc opening a FIFO blocked for ever, and
    // `/dev/zero` would be read without end), `-` standard input as everywhere, and handed
    // to hwloc as text: hwlocality 1.0.0-alpha panics ("unreachable") on a file hwloc cannot
    // open, `-` among them.
    let xml = crate::io::read::text(path, "topology file").map_err(|e| TopologyError::Xml {
        path: path.into(),
        err: e.to_string().into(),
    })?;
    let builder = Topology::builder()
        .from_xml(&xml)
        .map_err(|e| TopologyError::Xml {
            path: path.into(),
            err: e.to_string().into(),
        })?;
    build(builder).map_err(|err| TopologyError::XmlBuild {
        path: path.into(),
        err,
    })
}

/// Loads a synthetic topology (`pack:2 numa:2 core:18 pu:2`), for tests.
pub fn load_synthetic(description: &str) -> Result<Topology, TopologyError> {
    let builder = Topology::builder()
        .from_synthetic(description)
        .map_err(|e| TopologyError::Synthetic {
            description: description.into(),
            err: e.into(),
        })?;
    build(builder).map_err(TopologyError::Build)
}

/// hwloc's own error, whichever step of loading it comes from.
type Cause = Box<dyn std::error::Error + Send + Sync>;

/// Why hwloc gave no topology.
#[derive(Debug)]
pub enum TopologyError {
    /// hwloc could not read the machine it runs on: a failure of the system (exit 1).
    ThisMachine(Cause),
    /// A saved topology file the user named does not load (exit 2).
    Xml { path: PathBuf, err: Cause },
    /// A saved topology file loads but hwloc cannot build it (exit 2).
    XmlBuild { path: PathBuf, err: Cause },
    /// A synthetic description hwloc does not accept (exit 2).
    Synthetic { description: String, err: Cause },
    /// A synthetic topology hwloc accepts but cannot build (exit 2).
    Build(Cause),
}

impl TopologyError {
    /// This machine's topology missing is the system's failure; a file or description the
    /// user gave is bad input.
    pub(crate) fn exit_code(&self) -> i32 {
        match self {
            TopologyError::ThisMachine(_) => crate::error::EXIT_FAILURE,
            _ => crate::error::EXIT_INPUT,
        }
    }
}

// `?` turns it into the crate's error: the exit status its `exit_code()` gives.
contention_analysis::wrap!(ByCode: TopologyError);
impl std::fmt::Display for TopologyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TopologyError::ThisMachine(e) => {
                write!(f, "hwloc could not read this machine's topology: {e}")
            }
            TopologyError::Xml { path, err } => write!(
                f,
                "cannot load hwloc XML topology `{}`: {err}; save one with `lstopo {}`",
                path.display(),
                path.display()
            ),
            TopologyError::XmlBuild { path, err } => write!(f, "`{}`: {err}", path.display()),
            TopologyError::Synthetic { description, err } => {
                write!(f, "bad synthetic topology `{description}`: {err}")
            }
            TopologyError::Build(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for TopologyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TopologyError::ThisMachine(err)
            | TopologyError::Xml { err, .. }
            | TopologyError::XmlBuild { err, .. }
            | TopologyError::Synthetic { err, .. }
            | TopologyError::Build(err) => Some(err.as_ref()),
        }
    }
}

fn build(
    builder: hwlocality::topology::builder::TopologyBuilder,
) -> std::result::Result<Topology, Cause> {
    Ok(builder
        .with_io_type_filter(TypeFilter::KeepImportant)?
        .build()?)
}

fn info(obj: &TopologyObject, key: &str) -> Option<String> {
    obj.info(key).map(|v| v.to_string_lossy().into_owned())
}

/// Reads the layout from a topology.
pub(crate) fn layout(topology: &Topology) -> Layout {
    let root = topology.root_object();
    let packages: Vec<&TopologyObject> = topology.objects_with_type(ObjectType::Package).collect();
    // A machine without Package objects (some VMs) is one socket holding every core.
    let socket_roots: Vec<&TopologyObject> = if packages.is_empty() {
        vec![root]
    } else {
        packages.clone()
    };
    let (sockets, cores_not_allowed) = sockets(topology, &socket_roots);
    let numa = numa_nodes(topology, &socket_roots);
    let nics = nics(topology, &socket_roots);
    let gpus = gpus(topology, &socket_roots);
    let (nodes_not_allowed, pu_numa) = nodes_and_pus(topology);
    let cpu_model = packages
        .iter()
        .find_map(|p| info(p, "CPUModel"))
        .or_else(|| info(root, "CPUModel"))
        .unwrap_or_else(|| "unknown".into());
    Layout {
        hostname: info(root, "HostName").unwrap_or_else(|| "unknown".into()),
        cpu_model,
        hwloc_version: info(root, "hwlocVersion").unwrap_or_else(|| {
            let v = hwlocality::hwloc_api_version();
            format!("API {}.{}.{}", v >> 16, (v >> 8) & 0xff, v & 0xff)
        }),
        sockets,
        numa,
        nics,
        gpus,
        cores_not_allowed,
        nodes_not_allowed,
        pu_numa,
        caches: last_level_caches(topology),
    }
}

/// The sockets (each with its allowed cores and last-level cache), and how many cores this
/// process's cpuset leaves out.
fn sockets(topology: &Topology, socket_roots: &[&TopologyObject]) -> (Vec<Socket>, u32) {
    let root = topology.root_object();
    let allowed = topology.allowed_cpuset();
    let mut cores_not_allowed = 0;
    let sockets = socket_roots
        .iter()
        .enumerate()
        .map(|(i, pkg)| {
            let cores = topology
                .objects_with_type(ObjectType::Core)
                .filter(|c| std::ptr::eq(*pkg, root) || c.is_in_subtree(pkg))
                .filter_map(|c| {
                    let pus_os: Vec<u32> = c
                        .normal_children()
                        .filter(|pu| pu.object_type() == ObjectType::PU)
                        .filter(|pu| pu.cpuset().is_some_and(|s| allowed.includes(&*s)))
                        .filter_map(|pu| pu.os_index().map(idx))
                        .collect();
                    if pus_os.is_empty() {
                        cores_not_allowed += 1;
                        None
                    } else {
                        Some(Core {
                            logical: idx(c.logical_index()),
                            pus_os,
                        })
                    }
                })
                .collect();
            Socket {
                logical: idx(i),
                cores,
                llc_bytes: last_level_cache(topology, pkg),
            }
        })
        .collect();
    (sockets, cores_not_allowed)
}

/// The socket (logical index among `socket_roots`) whose PUs `obj` shares, if any.
fn socket_of(socket_roots: &[&TopologyObject], obj: &TopologyObject) -> Option<u32> {
    let set = obj.cpuset()?;
    if set.is_empty() {
        return None;
    }
    socket_roots
        .iter()
        .position(|p| p.cpuset().is_some_and(|ps| ps.intersects(&*set)))
        .map(idx)
}

/// The NUMA nodes with their socket and memory.
fn numa_nodes(topology: &Topology, socket_roots: &[&TopologyObject]) -> Vec<NumaNodeInfo> {
    let socket_of = |obj| socket_of(socket_roots, obj);
    topology
        .objects_with_type(ObjectType::NUMANode)
        .map(|n| NumaNodeInfo {
            logical_index: idx(n.logical_index()),
            os_index: n.os_index().map(idx).unwrap_or(0),
            socket: socket_of(n),
            memory_bytes: match n.attributes() {
                Some(ObjectAttributes::NUMANode(a)) => a.local_memory().map_or(0, |m| m.get()),
                _ => 0,
            },
        })
        .collect()
}

/// The network cards (InfiniBand and other fabrics, Ethernet) with the NUMA nodes and socket
/// they sit beside.
fn nics(topology: &Topology, socket_roots: &[&TopologyObject]) -> Vec<Nic> {
    topology
        .objects_with_type(ObjectType::OSDevice)
        .filter_map(|d| {
            let kind = match d.attributes() {
                Some(ObjectAttributes::OSDevice(a)) => match a.device_type() {
                    OSDeviceType::OpenFabrics => NicKind::Fabric,
                    OSDeviceType::Network => NicKind::Network,
                    _ => return None,
                },
                _ => return None,
            };
            let name = d.name()?.to_string_lossy().into_owned();
            let (numa_nodes, socket) = locality(topology, socket_roots, d)?;
            Some(Nic {
                kind,
                info: NicInfo {
                    name,
                    numa_nodes,
                    socket,
                },
            })
        })
        .collect()
}

/// PCI vendor id of NVIDIA, the GPUs the copy engine drives (`measure --engine gpu`).
const NVIDIA: u16 = 0x10de;

/// The NVIDIA GPUs (PCI display and 3D controllers, class `0x03xx`) in PCI bus order, which
/// is `nvidia-smi`'s numbering and `--gpu`'s, with the NUMA nodes and socket they sit beside.
fn gpus(topology: &Topology, socket_roots: &[&TopologyObject]) -> Vec<Gpu> {
    let mut gpus: Vec<Gpu> = topology
        .objects_with_type(ObjectType::PCIDevice)
        .filter_map(|d| {
            let Some(ObjectAttributes::PCIDevice(pci)) = d.attributes() else {
                return None;
            };
            if pci.vendor_id() != NVIDIA || pci.class_id() >> 8 != 0x03 {
                return None;
            }
            let pci_bus_id = format!(
                "{:04x}:{:02x}:{:02x}.{:x}",
                pci.domain(),
                pci.bus_id(),
                pci.bus_device(),
                pci.function()
            );
            let name = info(d, "PCIDevice")
                .unwrap_or_else(|| format!("NVIDIA device {:04x}", pci.device_id()));
            let (numa_nodes, socket) = locality(topology, socket_roots, d)?;
            Some(Gpu {
                pci_bus_id,
                name,
                numa_nodes,
                socket,
            })
        })
        .collect();
    gpus.sort_by(|a, b| a.pci_bus_id.cmp(&b.pci_bus_id));
    gpus
}

/// The NUMA nodes (logical) and socket an I/O object sits beside: those of its first
/// ancestor that is not I/O.
fn locality(
    topology: &Topology,
    socket_roots: &[&TopologyObject],
    obj: &TopologyObject,
) -> Option<(Vec<u32>, Option<u32>)> {
    let anchor = obj.first_non_io_ancestor()?;
    let numa_nodes = anchor
        .nodeset()
        .map(|ns| {
            topology
                .objects_with_type(ObjectType::NUMANode)
                .filter(|n| n.os_index().is_some_and(|o| ns.is_set(o)))
                .map(|n| idx(n.logical_index()))
                .collect()
        })
        .unwrap_or_default();
    Some((numa_nodes, socket_of(socket_roots, anchor)))
}

/// The NUMA nodes this process may not bind memory to, and the NUMA node of every PU.
fn nodes_and_pus(topology: &Topology) -> (Vec<u32>, std::collections::BTreeMap<u32, u32>) {
    let allowed_nodes = topology.allowed_nodeset();
    let mut nodes_not_allowed = Vec::new();
    let mut pu_numa = std::collections::BTreeMap::new();
    for n in topology.objects_with_type(ObjectType::NUMANode) {
        let logical = idx(n.logical_index());
        if n.os_index().is_some_and(|o| !allowed_nodes.is_set(o)) {
            nodes_not_allowed.push(logical);
        }
        if let Some(set) = n.cpuset() {
            for pu in set.iter_set() {
                pu_numa.entry(idx(usize::from(pu))).or_insert(logical);
            }
        }
    }
    (nodes_not_allowed, pu_numa)
}

/// Every L3 of the machine with its PUs, else every L2.
fn last_level_caches(topology: &Topology) -> Vec<Cache> {
    let of = |t: ObjectType| -> Vec<Cache> {
        topology
            .objects_with_type(t)
            .filter_map(|c| match c.attributes() {
                Some(ObjectAttributes::Cache(a)) => Some(Cache {
                    bytes: a.size()?.get(),
                    pus_os: c
                        .cpuset()?
                        .iter_set()
                        .map(|p| idx(usize::from(p)))
                        .collect(),
                }),
                _ => None,
            })
            .collect()
    };
    match of(ObjectType::L3Cache) {
        l3 if !l3.is_empty() => l3,
        _ => of(ObjectType::L2Cache),
    }
}

/// Bytes of last-level cache whose cores lie in `within`: every L3 there, else every L2.
fn last_level_cache(topology: &Topology, within: &TopologyObject) -> u64 {
    let Some(set) = within.cpuset() else {
        return 0;
    };
    let total = |t: ObjectType| -> u64 {
        topology
            .objects_with_type(t)
            .filter(|c| c.cpuset().is_some_and(|cs| cs.intersects(&*set)))
            .filter_map(|c| match c.attributes() {
                Some(ObjectAttributes::Cache(a)) => a.size().map(|s| s.get()),
                _ => None,
            })
            .sum()
    };
    match total(ObjectType::L3Cache) {
        0 => total(ObjectType::L2Cache),
        l3 => l3,
    }
}

#[cfg(test)]
mod tests {
    use crate::machine::topology::*;

    #[test]
    fn a_bad_file_or_description_is_bad_input_naming_it_with_hwlocs_cause() {
        use std::error::Error as _;
        let e = load_synthetic("pack:two").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("bad synthetic topology `pack:two`: "),
            "{e}"
        );
        assert_eq!(e.exit_code(), 2);
        assert!(e.source().is_some());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("topo.xml");
        std::fs::write(&path, "not XML").unwrap();
        let e = load_xml(&path).unwrap_err();
        assert!(
            e.to_string().starts_with(&format!(
                "cannot load hwloc XML topology `{}`: ",
                path.display()
            )),
            "{e}"
        );
        assert_eq!(crate::Error::from(e).exit_code(), 2);
        let e = load_xml(Path::new("/nonexistent/topo.xml")).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("cannot load hwloc XML topology `/nonexistent/topo.xml`: "),
            "{e}"
        );
        assert_eq!(e.exit_code(), 2);
        let this = TopologyError::ThisMachine("no /sys".into());
        assert_eq!(crate::Error::from(this).exit_code(), 1);
    }

    #[test]
    fn synthetic_two_sockets_two_nodes_each() {
        let t = load_synthetic("pack:2 numa:2 core:18 pu:2").unwrap();
        let l = layout(&t);
        assert_eq!(l.sockets.len(), 2);
        assert!(l.sockets.iter().all(|s| s.cores.len() == 36));
        assert_eq!(l.sockets[0].cores[0].pus_os.len(), 2);
        assert_eq!(l.numa.len(), 4);
        assert_eq!(l.numa_per_socket(), 2);
        assert_eq!(
            l.numa.iter().map(|n| n.socket).collect::<Vec<_>>(),
            [Some(0), Some(0), Some(1), Some(1)]
        );
        // Cores of socket 1 follow those of socket 0 in logical order.
        assert_eq!(l.sockets[1].cores[0].logical, 36);
        // Each PU's node is its cluster's: PUs 0-35 (cores 0-17) on node 0, then node 1.
        assert_eq!(l.pu_numa.get(&0), Some(&0));
        assert_eq!(l.pu_numa.get(&36), Some(&1));
        assert_eq!(l.pu_numa.get(&143), Some(&3));
        assert!(l.nodes_not_allowed.is_empty());
        assert!(l.main_nic().is_none());
    }

    #[test]
    fn this_machine_has_at_least_one_socket_core_and_node() {
        let l = layout(&load_this_machine().unwrap());
        assert!(!l.sockets.is_empty() && !l.sockets[0].cores.is_empty());
        assert!(!l.numa.is_empty());
        let info = l.machine_info();
        assert!(info.cores_per_socket >= 1 && info.pus_per_core >= 1);
    }
}
