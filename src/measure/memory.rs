//! Buffers bound to a NUMA node, and how much memory a node has free.
//!
//! The model needs to know where the data is (section 3.3): buffers are allocated with
//! hwloc's `Bind` policy on one node, and touched before any timing so page faults (a tenth
//! of the streaming speed on the development machine) never enter a measurement.

use crate::error::{Error, Result};
use hwlocality::memory::binding::{Bytes, MemoryBindingFlags, MemoryBindingPolicy};
use hwlocality::memory::nodeset::NodeSet;
use hwlocality::Topology;
use std::mem::MaybeUninit;
use std::path::Path;

/// Free bytes of NUMA node `os_index` from `sysfs`'s `node/nodeN/meminfo` (`MemFree`), or
/// `None` when the file is missing or unreadable. `sysfs` is `/sys/devices/system` on Linux;
/// tests pass a fake tree.
pub fn node_free_bytes(sysfs: &Path, os_index: u32) -> Option<u64> {
    let text = std::fs::read_to_string(sysfs.join(format!("node/node{os_index}/meminfo"))).ok()?;
    text.lines().find_map(|line| {
        // "Node 0 MemFree:         3492576 kB"
        let rest = line.split_once("MemFree:")?.1.trim();
        let kb: u64 = rest.strip_suffix("kB")?.trim().parse().ok()?;
        Some(kb * 1024)
    })
}

/// Refuses `needed` bytes on a node that has less free memory (with a tenth kept back for the
/// system), naming the sizes and the options that shrink the need.
pub fn check_fits(what: &str, needed: u64, node: u32, free: Option<u64>) -> Result<()> {
    match free {
        Some(free) if needed > free - free / 10 => Err(Error::Input(format!(
            "the {what} need {} on NUMA node {node}, which has {} free; lower --buffer-size \
             or --message-size, or sweep fewer cores",
            human_bytes(needed),
            human_bytes(free)
        ))),
        _ => Ok(()),
    }
}

/// `1.5 GiB`, `64 MiB`, `512 KiB`.
pub fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if v.fract() == 0.0 {
        format!("{v:.0} {}", UNITS[u])
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// Allocates `len` bytes on NUMA node `node_os` (OS index), or anywhere when `node_os` is
/// `None` (`--no-bind`), and touches every page.
pub fn allocate(topology: &Topology, len: usize, node_os: Option<u32>) -> Result<Bytes<'_>> {
    let mut bytes = match node_os {
        Some(os) => {
            let mut set = NodeSet::new();
            set.set(os as usize);
            topology
                .binding_allocate_memory(
                    len,
                    &set,
                    MemoryBindingPolicy::Bind,
                    MemoryBindingFlags::THREAD | MemoryBindingFlags::STRICT,
                )
                .map_err(|e| {
                    Error::Input(format!(
                        "the OS refused to allocate {} bound to NUMA node P#{os}: {e}; in a \
                         container or a restricted cpuset, pass --no-bind to measure without \
                         binding (the trace records it)",
                        human_bytes(len as u64)
                    ))
                })?
        }
        None => topology.allocate_memory(len).map_err(|e| {
            Error::Input(format!("cannot allocate {}: {e}", human_bytes(len as u64)))
        })?,
    };
    bytes.fill(MaybeUninit::new(0));
    Ok(bytes)
}

/// The buffer as initialised bytes (for MPI receives).
pub fn as_bytes<'b>(buf: &'b mut Bytes<'_>) -> &'b mut [u8] {
    let len = buf.len();
    let ptr = buf.as_mut_ptr().cast::<u8>();
    // SAFETY: `allocate` wrote every byte, and `u8` has the layout of `MaybeUninit<u8>`;
    // the slice borrows `buf` mutably for its whole life.
    unsafe { std::slice::from_raw_parts_mut(ptr, len) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_memory_from_a_fake_sysfs_tree() {
        let root = std::env::temp_dir().join(format!("contention-sysfs-{}", std::process::id()));
        std::fs::create_dir_all(root.join("node/node1")).unwrap();
        std::fs::write(
            root.join("node/node1/meminfo"),
            "Node 1 MemTotal:       6645964 kB\nNode 1 MemFree:         3492576 kB\n",
        )
        .unwrap();
        assert_eq!(node_free_bytes(&root, 1), Some(3492576 * 1024));
        assert_eq!(node_free_bytes(&root, 0), None);
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn fit_check_names_sizes_and_fix() {
        let gib = 1u64 << 30;
        assert!(check_fits("buffers", gib, 0, Some(4 * gib)).is_ok());
        assert!(check_fits("buffers", gib, 0, None).is_ok());
        let e = check_fits("computation buffers", 4 * gib, 1, Some(4 * gib))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("4 GiB") && e.contains("node 1") && e.contains("--buffer-size"),
            "{e}"
        );
        assert_eq!(human_bytes(64 << 20), "64 MiB");
        assert_eq!(human_bytes(1536 << 20), "1.5 GiB");
    }

    #[test]
    fn binds_on_node_zero_of_this_machine() {
        let t = Topology::new().unwrap();
        let os = t
            .objects_with_type(hwlocality::object::types::ObjectType::NUMANode)
            .next()
            .and_then(|n| n.os_index())
            .unwrap() as u32;
        let mut b = allocate(&t, 1 << 20, Some(os)).unwrap();
        assert_eq!(as_bytes(&mut b).len(), 1 << 20);
        assert!(as_bytes(&mut b).iter().all(|&x| x == 0));
    }
}
