//! Buffers bound to a NUMA node, and how much memory a node has free.
//!
//! The model needs to know where the data is (section 3.3): buffers are allocated with
//! hwloc's `Bind` policy on one node, and touched before any timing so page faults (a tenth
//! of the streaming speed on the development machine) never enter a measurement.

use crate::error::Result;
use crate::trace::BufferPages;
use crate::units::human_bytes;
#[cfg(feature = "mpi")]
use hwlocality::memory::binding::{Bytes, MemoryBindingFlags, MemoryBindingPolicy};
#[cfg(feature = "mpi")]
use hwlocality::memory::nodeset::NodeSet;
#[cfg(feature = "mpi")]
use hwlocality::Topology;
use std::collections::BTreeMap;
use std::path::Path;

/// Bytes NUMA node `os_index` can give a new buffer, from `sysfs`'s `node/nodeN/meminfo`:
/// `MemFree` plus the page cache and slab the kernel drops on demand (`Inactive(file)`,
/// `SReclaimable`), the node's share of what `free` calls available. `MemFree` alone moves
/// with whatever files other processes just read (3.8 GB one minute, 14 GB the next on the
/// development machine), and sizes taken from it moved with it. `None` when the file is
/// missing or has no `MemFree`. `sysfs` is `/sys/devices/system` on Linux; tests pass a fake
/// tree.
pub fn node_free_bytes(sysfs: &Path, os_index: u32) -> Option<u64> {
    let text = std::fs::read_to_string(sysfs.join(format!("node/node{os_index}/meminfo"))).ok()?;
    let field = |name: &str| {
        text.lines().find_map(|line| {
            // "Node 0 MemFree:         3492576 kB"
            let rest = line.split_once(name)?.1.strip_prefix(':')?.trim();
            let kb: u64 = rest.strip_suffix("kB")?.trim().parse().ok()?;
            Some(kb * 1024)
        })
    };
    let reclaimable = ["Inactive(file)", "SReclaimable"]
        .iter()
        .filter_map(|f| field(f))
        .sum::<u64>();
    Some(field("MemFree")? + reclaimable)
}

/// Why a buffer cannot be had where the plan puts it. All name the fix; all exit 2 (the
/// options ask for more or other memory than the node gives).
#[derive(Debug)]
pub enum MemoryError {
    /// Not enough free memory on the node (a tenth kept back).
    DoesNotFit {
        what: String,
        needed: u64,
        node: u32,
        free: u64,
    },
    /// The OS refused memory bound to the node.
    BindRefused {
        len: usize,
        node_os: u32,
        err: Box<dyn std::error::Error + Send + Sync>,
    },
    /// No memory at all.
    Alloc {
        len: usize,
        err: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A bound buffer whose pages lie (partly) on other nodes (`on_nodes`: pages per node).
    PagesElsewhere {
        buffer: String,
        node: u32,
        elsewhere: u64,
        pages: u64,
        on_nodes: String,
    },
}

// `?` turns it into the crate's error: input the user can fix (exit 2).
contention_analysis::wrap!(Input: MemoryError);
impl std::fmt::Display for MemoryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MemoryError::DoesNotFit {
                what,
                needed,
                node,
                free,
            } => write!(
                f,
                "the {what} need {} on NUMA node {node}, which has {} free; lower --buffer-size \
                 or --message-size, or sweep fewer cores",
                human_bytes(*needed),
                human_bytes(*free)
            ),
            MemoryError::BindRefused { len, node_os, err } => write!(
                f,
                "the OS refused to allocate {} bound to NUMA node P#{node_os}: {err}; in a \
                 container or a restricted cpuset, pass --no-bind to measure without binding \
                 (the trace records it)",
                human_bytes(*len as u64)
            ),
            MemoryError::Alloc { len, err } => {
                write!(f, "cannot allocate {}: {err}", human_bytes(*len as u64))
            }
            MemoryError::PagesElsewhere {
                buffer,
                node,
                elsewhere,
                pages,
                on_nodes,
            } => write!(
                f,
                "the {buffer} buffer was bound to NUMA node P#{node}, but {elsewhere} of its \
                 {pages} pages lie elsewhere (pages per node P#: {on_nodes}); the binding was \
                 not honoured (a cpuset without that node, or memory pressure); rerun on a \
                 whole node, or pass --no-bind to measure anyway (the trace records where the \
                 pages lay)"
            ),
        }
    }
}

impl std::error::Error for MemoryError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MemoryError::BindRefused { err, .. } | MemoryError::Alloc { err, .. } => {
                Some(err.as_ref())
            }
            MemoryError::DoesNotFit { .. } | MemoryError::PagesElsewhere { .. } => None,
        }
    }
}

/// Refuses `needed` bytes on a node that has less free memory (with a tenth kept back for the
/// system), naming the sizes and the options that shrink the need.
pub(crate) fn check_fits(
    what: &str,
    needed: u64,
    node: u32,
    free: Option<u64>,
) -> Result<(), MemoryError> {
    match free {
        Some(free) if needed > free - free / 10 => Err(MemoryError::DoesNotFit {
            what: what.into(),
            needed,
            node,
            free,
        }),
        _ => Ok(()),
    }
}

#[cfg(feature = "mpi")]
/// Allocates `len` bytes on NUMA node `node_os` (OS index), or anywhere when `node_os` is
/// `None` (`--no-bind`), and touches every page.
pub fn allocate(
    topology: &Topology,
    len: usize,
    node_os: Option<u32>,
) -> Result<Bytes<'_>, MemoryError> {
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
                .map_err(|e| MemoryError::BindRefused {
                    len,
                    node_os: os,
                    err: e.into(),
                })?
        }
        None => topology
            .allocate_memory(len)
            .map_err(|e| MemoryError::Alloc { len, err: e.into() })?,
    };
    touch(&mut bytes);
    Ok(bytes)
}

#[cfg(feature = "mpi")]
/// Writes every byte of `buf` once, so every page is faulted in (on its bound node) before
/// anything is timed. One `memset`, also in unoptimised builds: a per-element loop there
/// touched gigabytes at a tenth of the speed, and the tests' time limits paid for it.
fn touch(buf: &mut Bytes<'_>) {
    let len = buf.len();
    // SAFETY: `buf` owns `len` writable bytes at this address, borrowed mutably here.
    unsafe { std::ptr::write_bytes(buf.as_mut_ptr().cast::<u8>(), 0, len) };
}

#[cfg(feature = "mpi")]
/// The buffer as initialised bytes (for MPI receives).
pub fn as_bytes<'b>(buf: &'b mut Bytes<'_>) -> &'b mut [u8] {
    let len = buf.len();
    let ptr = buf.as_mut_ptr().cast::<u8>();
    // SAFETY: `allocate` wrote every byte, and `u8` has the layout of `MaybeUninit<u8>`;
    // the slice borrows `buf` mutably for its whole life.
    unsafe { std::slice::from_raw_parts_mut(ptr, len) }
}

/// Pages per node and pages of unknown location, from `move_pages` statuses (a node index,
/// or a negative errno such as `-ENOENT` for a page not present).
pub(crate) fn count_statuses(statuses: &[i32]) -> (BTreeMap<u32, u64>, u64) {
    let mut on = BTreeMap::new();
    let mut unknown = 0;
    for &s in statuses {
        match u32::try_from(s) {
            Ok(node) => *on.entry(node).or_insert(0) += 1,
            Err(_) => unknown += 1,
        }
    }
    (on, unknown)
}

/// Where the pages of `buf` lie, read back from the kernel (`move_pages` with no target
/// nodes only reports each page's node). `bound_to` is what was asked, for the record.
pub(crate) fn page_locations(name: &str, buf: &[u8], bound_to: Option<u32>) -> BufferPages {
    // SAFETY: sysconf has no preconditions.
    let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
    let start = buf.as_ptr() as usize & !(page - 1);
    let end = buf.as_ptr() as usize + buf.len();
    let pages: Vec<usize> = (start..end).step_by(page).collect();
    let mut statuses = vec![-1i32; pages.len()];
    for (addrs, status) in pages.chunks(4096).zip(statuses.chunks_mut(4096)) {
        let ptrs: Vec<*mut libc::c_void> = addrs.iter().map(|&a| a as *mut libc::c_void).collect();
        // SAFETY: query mode (null `nodes`): the kernel only reads `ptrs` and writes one int
        // per page into `status`, both `ptrs.len()` long; pid 0 is this process, whose pages
        // these are.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_move_pages,
                0,
                ptrs.len(),
                ptrs.as_ptr(),
                std::ptr::null::<i32>(),
                status.as_mut_ptr(),
                0,
            )
        };
        if rc != 0 {
            status.fill(-1);
        }
    }
    let (on_nodes, unknown) = count_statuses(&statuses);
    BufferPages {
        buffer: name.to_string(),
        bound_to,
        pages: pages.len() as u64,
        on_nodes,
        unknown,
    }
}

/// Checks that a bound buffer lies on its node: an error naming the buffer and the nodes
/// its pages are on otherwise. Unbound buffers, and pages the kernel could not locate (no
/// `move_pages` in a sandbox), are not errors; [`unverified`] reports the latter.
pub(crate) fn check_pages(p: &BufferPages) -> Result<(), MemoryError> {
    let Some(node) = p.bound_to else {
        return Ok(());
    };
    let elsewhere: u64 = p
        .on_nodes
        .iter()
        .filter(|(n, _)| **n != node)
        .map(|(_, c)| c)
        .sum();
    if elsewhere == 0 {
        return Ok(());
    }
    Err(MemoryError::PagesElsewhere {
        buffer: p.buffer.clone(),
        node,
        elsewhere,
        pages: p.pages,
        on_nodes: p
            .on_nodes
            .iter()
            .map(|(n, c)| format!("{n}: {c}"))
            .collect::<Vec<_>>()
            .join(", "),
    })
}

/// A warning when the kernel could not say where some pages lie.
pub(crate) fn unverified(p: &BufferPages) -> Option<String> {
    (p.unknown > 0).then(|| {
        format!(
            "the location of {} of the {} pages of the {} buffer could not be read \
             (move_pages refused): its binding is not verified",
            p.unknown, p.pages, p.buffer
        )
    })
}

#[cfg(test)]
mod tests {
    use crate::machine::memory::*;

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
        // The page cache the kernel drops on demand counts; the rest of the file does not.
        std::fs::write(
            root.join("node/node1/meminfo"),
            "Node 1 MemFree:         1000 kB\nNode 1 Active(file):     500 kB\n\
             Node 1 Inactive(file):   200 kB\nNode 1 SReclaimable:      30 kB\n\
             Node 1 SUnreclaim:       40 kB\n",
        )
        .unwrap();
        assert_eq!(node_free_bytes(&root, 1), Some(1230 * 1024));
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
        // The kernel confirms every page is on the node asked.
        let pages = page_locations("test", as_bytes(&mut b), Some(os));
        assert!(pages.pages >= 256, "{pages:?}");
        assert_eq!(pages.unknown, 0, "{pages:?}");
        assert_eq!(pages.on_nodes.get(&os), Some(&pages.pages), "{pages:?}");
        assert!(check_pages(&pages).is_ok());
    }

    #[test]
    fn pages_on_another_node_are_an_error_naming_the_buffer() {
        assert_eq!(
            count_statuses(&[0, 0, 1, -2, -14]),
            (BTreeMap::from([(0, 2), (1, 1)]), 2)
        );
        let mut p = BufferPages {
            buffer: "computation 3".into(),
            bound_to: Some(1),
            pages: 10,
            on_nodes: BTreeMap::from([(0, 2), (1, 8)]),
            unknown: 0,
        };
        let e = check_pages(&p).unwrap_err().to_string();
        assert!(
            e.contains("computation 3") && e.contains("P#1") && e.contains("0: 2"),
            "{e}"
        );
        assert!(e.contains("--no-bind"), "{e}");
        p.bound_to = None;
        assert!(check_pages(&p).is_ok(), "unbound buffers may lie anywhere");
        p.bound_to = Some(1);
        p.on_nodes = BTreeMap::from([(1, 4)]);
        p.unknown = 6;
        assert!(check_pages(&p).is_ok());
        assert!(unverified(&p).unwrap().contains("6 of the 10 pages"));
    }
}
