//! The machine facts of a node that change its contention curves, and those that differ from
//! the fleet's majority: what an administrator checks first when a node's parameters are off
//! (a DIMM missing shows in the memory size, a BIOS setting in sub-NUMA clustering, a card in
//! the wrong slot in the NIC's locality, a batch system's cpuset in the allowed CPUs).
//!
//! Read from the `machine` (hwloc) and `settings` (kernel) objects of the node's traces, and
//! the MPI stack its messages crossed (`mpi.stack`: a node whose library picked TCP where the
//! others use the fabric shows it here).

use crate::trace::{GpuCopies, MachineInfo, MachineSettings, MpiStack, PcieLink};
use serde::Serialize;
use std::collections::BTreeMap;

/// What is written when a trace does not say (an older trace, a container hiding `/sys`).
pub(crate) const UNKNOWN: &str = "unknown";

/// The facts of one node, each as the text that is compared and printed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Facts {
    pub cpu_model: String,
    pub sockets: String,
    pub cores_per_socket: String,
    /// `4 NUMA nodes, 2 per socket`.
    pub numa_layout: String,
    pub sub_numa_clustering: String,
    pub transparent_hugepages: String,
    /// `performance` or `performance x 36, powersave x 36`.
    pub governor: String,
    /// Total memory of the NUMA nodes, GiB.
    pub memory: String,
    /// `mlx5_0 on NUMA 0 (socket 0)` for each card.
    pub nic_locality: String,
    /// `cpus 0-17 of 0-71` when the process's cpuset is restricted, else `none`.
    pub cpuset_restriction: String,
    /// The MPI stack the node's messages crossed (`Open MPI pml ucx`).
    pub mpi_stack: String,
    /// The GPU whose copies were the node's stream (`survey --engine gpu`): its name, PCIe
    /// link as trained and driver (`NVIDIA H200, PCIe Gen5 x16, driver 580.95.05`); absent
    /// for MPI measurements, whose reports are unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu: Option<String>,
}

/// The fact names, in the order reports list them.
pub(crate) const NAMES: [&str; 12] = [
    "cpu_model",
    "sockets",
    "cores_per_socket",
    "numa_layout",
    "sub_numa_clustering",
    "transparent_hugepages",
    "governor",
    "memory",
    "nic_locality",
    "cpuset_restriction",
    "mpi_stack",
    "gpu",
];

impl Facts {
    /// The facts of a node from its trace's machine, settings, MPI stack and GPU copies.
    pub(crate) fn new(
        m: &MachineInfo,
        s: Option<&MachineSettings>,
        stack: Option<&MpiStack>,
        gpu: Option<&GpuCopies>,
    ) -> Self {
        let memory: u64 = m.numa_nodes.iter().map(|n| n.memory_bytes).sum();
        let nics: Vec<String> = m
            .nics
            .iter()
            .map(|n| {
                let nodes: Vec<String> = n.numa_nodes.iter().map(u32::to_string).collect();
                let socket = n.socket.map_or(String::new(), |s| format!(" (socket {s})"));
                if nodes.is_empty() {
                    format!("{} on NUMA ?{socket}", n.name)
                } else {
                    format!("{} on NUMA {}{socket}", n.name, nodes.join(","))
                }
            })
            .collect();
        let opt = |v: Option<String>| v.unwrap_or_else(|| UNKNOWN.into());
        let yes_no = |b: Option<bool>| opt(b.map(|b| if b { "on" } else { "off" }.to_string()));
        let governor = s.filter(|s| !s.cpu_governors.is_empty()).map(|s| {
            if s.cpu_governors.len() == 1 {
                s.cpu_governors.keys().next().expect("one").clone()
            } else {
                s.cpu_governors
                    .iter()
                    .map(|(g, n)| format!("{g} x {n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        });
        let cpuset = s.map(|s| {
            if s.restricted_cpuset {
                format!(
                    "cpus {} of {}, mems {} of {}",
                    s.cpus_allowed.as_deref().unwrap_or("?"),
                    s.cpus_online.as_deref().unwrap_or("?"),
                    s.mems_allowed.as_deref().unwrap_or("?"),
                    s.mems_online.as_deref().unwrap_or("?")
                )
            } else {
                "none".into()
            }
        });
        Facts {
            cpu_model: m.cpu_model.clone(),
            sockets: m.sockets.to_string(),
            cores_per_socket: m.cores_per_socket.to_string(),
            numa_layout: format!(
                "{} NUMA node(s), {} per socket",
                m.numa_nodes.len(),
                m.numa_per_socket
            ),
            sub_numa_clustering: yes_no(s.and_then(|s| s.sub_numa_clustering)),
            transparent_hugepages: opt(s.and_then(|s| s.transparent_hugepages.clone())),
            governor: opt(governor),
            memory: format!("{:.1} GiB", memory as f64 / f64::from(1u32 << 30)),
            nic_locality: if nics.is_empty() {
                "no card seen".into()
            } else {
                nics.join("; ")
            },
            cpuset_restriction: opt(cpuset),
            mpi_stack: opt(stack.map(|s| s.summary.clone())),
            gpu: gpu.map(gpu_fact),
        }
    }

    /// `(name, value)` in [`NAMES`] order, but for the facts a node does not have (`gpu`
    /// of an MPI measurement).
    pub(crate) fn list(&self) -> Vec<(&'static str, &str)> {
        let all = [
            (NAMES[0], Some(self.cpu_model.as_str())),
            (NAMES[1], Some(self.sockets.as_str())),
            (NAMES[2], Some(self.cores_per_socket.as_str())),
            (NAMES[3], Some(self.numa_layout.as_str())),
            (NAMES[4], Some(self.sub_numa_clustering.as_str())),
            (NAMES[5], Some(self.transparent_hugepages.as_str())),
            (NAMES[6], Some(self.governor.as_str())),
            (NAMES[7], Some(self.memory.as_str())),
            (NAMES[8], Some(self.nic_locality.as_str())),
            (NAMES[9], Some(self.cpuset_restriction.as_str())),
            (NAMES[10], Some(self.mpi_stack.as_str())),
            (NAMES[11], self.gpu.as_deref()),
        ];
        all.into_iter()
            .filter_map(|(name, value)| Some((name, value?)))
            .collect()
    }
}

/// A node's GPU as the fleet compares it: what differs between two nodes' copies that are
/// otherwise alike (the model, a link that trained lower or narrower, the driver), not its
/// bus id or memory. A replay says so. With `--gpu all`, every GPU's in bus order: one link
/// trained low among eight makes the node differ.
fn gpu_fact(g: &GpuCopies) -> String {
    let one = |d: &crate::trace::GpuDevice| {
        let link = d
            .link
            .as_ref()
            .map_or("link not read".into(), PcieLink::describe);
        let driver = d
            .driver_version
            .as_ref()
            .map_or(String::new(), |v| format!(", driver {v}"));
        format!("{}, {link}{driver}", d.name)
    };
    if g.devices.is_empty() {
        one(&g.device)
    } else {
        g.devices.iter().map(one).collect::<Vec<_>>().join("; ")
    }
}

/// One fact of a node that is not the fleet's majority value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FactDiff {
    pub fact: &'static str,
    pub node: String,
    pub fleet: String,
}

/// The fleet's value of every fact: the one most nodes have (on a tie, the one of the first
/// node in host order that has a tied value, so the answer does not depend on hashing).
pub(crate) fn majority<'a>(
    nodes: impl IntoIterator<Item = &'a Facts>,
) -> BTreeMap<&'static str, String> {
    let nodes: Vec<&Facts> = nodes.into_iter().collect();
    let mut out = BTreeMap::new();
    for name in NAMES {
        // Among the nodes that have the fact (all but `gpu`, which MPI nodes lack).
        let values: Vec<&str> = nodes
            .iter()
            .filter_map(|f| f.list().into_iter().find(|(n, _)| *n == name))
            .map(|(_, v)| v)
            .collect();
        let count = |v: &str| values.iter().filter(|w| **w == v).count();
        // `max_by_key` keeps the last maximum: go backwards to keep the first.
        if let Some(best) = values.iter().rev().max_by_key(|v| count(v)) {
            out.insert(name, best.to_string());
        }
    }
    out
}

/// The facts of `node` that differ from `fleet` (from [`majority`]).
pub(crate) fn differing(node: &Facts, fleet: &BTreeMap<&'static str, String>) -> Vec<FactDiff> {
    node.list()
        .into_iter()
        .filter_map(|(name, value)| {
            let f = fleet.get(name)?;
            (f != value).then(|| FactDiff {
                fact: name,
                node: value.to_string(),
                fleet: f.clone(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{NicInfo, NumaNodeInfo};

    fn machine(numa_per_socket: u32, gib_per_node: u64, nic_node: u32) -> MachineInfo {
        MachineInfo {
            hostname: "n".into(),
            cpu_model: "Xeon".into(),
            sockets: 2,
            cores_per_socket: 18,
            pus_per_core: 2,
            numa_per_socket,
            numa_nodes: (0..2 * numa_per_socket)
                .map(|i| NumaNodeInfo {
                    logical_index: i,
                    os_index: i,
                    socket: Some(i / numa_per_socket),
                    memory_bytes: gib_per_node << 30,
                })
                .collect(),
            nics: vec![NicInfo {
                name: "mlx5_0".into(),
                numa_nodes: vec![nic_node],
                socket: Some(nic_node / numa_per_socket),
            }],
            gpus: Vec::new(),
            hwloc_version: "2.9.0".into(),
            simulated: None,
        }
    }

    fn settings(snc: bool, thp: &str, governor: &str, restricted: bool) -> MachineSettings {
        MachineSettings {
            transparent_hugepages: Some(thp.into()),
            numa_balancing: Some(false),
            cpu_governors: [(governor.to_string(), 72)].into(),
            sub_numa_clustering: Some(snc),
            cpus_allowed: Some(if restricted { "0-17" } else { "0-71" }.into()),
            cpus_online: Some("0-71".into()),
            mems_allowed: Some("0-1".into()),
            mems_online: Some("0-1".into()),
            restricted_cpuset: restricted,
        }
    }

    #[test]
    fn facts_read_the_machine_and_its_settings() {
        let f = Facts::new(
            &machine(1, 48, 0),
            Some(&settings(false, "always", "performance", false)),
            None,
            None,
        );
        assert_eq!(f.numa_layout, "2 NUMA node(s), 1 per socket");
        assert_eq!(f.memory, "96.0 GiB");
        assert_eq!(f.nic_locality, "mlx5_0 on NUMA 0 (socket 0)");
        assert_eq!(f.sub_numa_clustering, "off");
        assert_eq!(f.governor, "performance");
        assert_eq!(f.cpuset_restriction, "none");
        let bare = Facts::new(&machine(1, 48, 0), None, None, None);
        assert_eq!(bare.transparent_hugepages, UNKNOWN);
        assert_eq!(bare.governor, UNKNOWN);
    }

    #[test]
    fn the_facts_that_differ_from_the_majority_are_named_with_both_values() {
        let stack = |summary: &str| crate::trace::MpiStack {
            summary: summary.into(),
            pml: None,
            mtl: None,
            btls: Vec::new(),
            device: None,
            forced_by: Vec::new(),
            read_from: String::new(),
        };
        let usual = Facts::new(
            &machine(1, 48, 0),
            Some(&settings(false, "always", "performance", false)),
            Some(&stack("Open MPI pml ucx")),
            None,
        );
        // Its library fell back to TCP where the others use the fabric.
        let odd = Facts::new(
            &machine(2, 16, 3),
            Some(&settings(true, "never", "powersave", true)),
            Some(&stack("Open MPI pml ob1 (btl self,tcp)")),
            None,
        );
        let fleet = majority([&usual, &usual, &odd, &usual]);
        assert!(differing(&usual, &fleet).is_empty());
        let d = differing(&odd, &fleet);
        let names: Vec<&str> = d.iter().map(|d| d.fact).collect();
        assert_eq!(
            names,
            [
                "numa_layout",
                "sub_numa_clustering",
                "transparent_hugepages",
                "governor",
                "memory",
                "nic_locality",
                "cpuset_restriction",
                "mpi_stack"
            ]
        );
        let snc = &d[1];
        assert_eq!((snc.node.as_str(), snc.fleet.as_str()), ("on", "off"));
        assert_eq!(d[4].node, "64.0 GiB");
        assert!(d[6].node.starts_with("cpus 0-17 of 0-71"), "{:?}", d[6]);
        assert_eq!(
            (d[7].node.as_str(), d[7].fleet.as_str()),
            ("Open MPI pml ob1 (btl self,tcp)", "Open MPI pml ucx")
        );
    }

    #[test]
    fn a_tie_is_broken_by_host_order() {
        let a = Facts::new(&machine(1, 48, 0), None, None, None);
        let b = Facts::new(&machine(1, 32, 0), None, None, None);
        assert_eq!(majority([&a, &b])["memory"], "96.0 GiB");
        assert_eq!(majority([&b, &a])["memory"], "64.0 GiB");
        assert_eq!(majority([&b, &a, &a])["memory"], "96.0 GiB");
    }

    #[test]
    fn a_gpu_whose_link_trained_below_the_fleet_s_is_a_differing_fact() {
        let copies = |gts: f64, width: u32| GpuCopies {
            direction: crate::trace::CopyDirection::DeviceToHost,
            device: crate::trace::GpuDevice {
                index: 0,
                name: "NVIDIA H200".into(),
                pci_bus_id: "0000:3b:00.0".into(),
                memory_bytes: 150_000_000_000,
                cuda_version: "13.0".into(),
                driver_version: Some("580.95.05".into()),
                link: Some(PcieLink {
                    speed_gts: gts,
                    width,
                    max_speed_gts: 32.0,
                    max_width: 16,
                }),
                numa_nodes: vec![0],
                socket: Some(0),
            },
            devices: Vec::new(),
            replayed_from: None,
        };
        let node =
            |gts, width| Facts::new(&machine(1, 48, 0), None, None, Some(&copies(gts, width)));
        let (usual, gen4, x8) = (node(32.0, 16), node(16.0, 16), node(32.0, 8));
        assert_eq!(
            usual.gpu.as_deref(),
            Some("NVIDIA H200, PCIe Gen5 x16, driver 580.95.05")
        );
        let fleet = majority([&usual, &gen4, &usual, &x8, &usual]);
        assert!(differing(&usual, &fleet).is_empty());
        for (odd, trained) in [(&gen4, "Gen4 x16"), (&x8, "Gen5 x8")] {
            let d = differing(odd, &fleet);
            assert_eq!(d.len(), 1, "{d:?}");
            assert_eq!(d[0].fact, "gpu");
            assert_eq!(
                d[0].node,
                format!("NVIDIA H200, PCIe {trained} (below its best, Gen5 x16), driver 580.95.05")
            );
            assert_eq!(d[0].fleet, "NVIDIA H200, PCIe Gen5 x16, driver 580.95.05");
        }
        // With --gpu all, one GPU of two whose link trained low makes its node differ.
        let all = |second: &GpuCopies| {
            let mut g = copies(32.0, 16);
            g.devices = vec![g.device.clone(), second.device.clone()];
            Facts::new(&machine(1, 48, 0), None, None, Some(&g))
        };
        let (pair, odd) = (all(&copies(32.0, 16)), all(&copies(16.0, 16)));
        let fleet = majority([&pair, &pair, &odd]);
        assert!(differing(&pair, &fleet).is_empty());
        let d = differing(&odd, &fleet);
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(
            d[0].node.ends_with(
                "; NVIDIA H200, PCIe Gen4 x16 (below its best, Gen5 x16), driver 580.95.05"
            ),
            "{d:?}"
        );
        // MPI nodes have no such fact, and their fleet none either.
        let mpi = Facts::new(&machine(1, 48, 0), None, None, None);
        assert!(!majority([&mpi, &mpi]).contains_key("gpu"));
        assert!(mpi.list().iter().all(|(name, _)| *name != "gpu"));
    }
}
