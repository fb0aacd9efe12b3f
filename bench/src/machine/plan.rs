//! Where every thread and buffer of a measurement goes, decided from a [`Layout`] before
//! anything runs, so `--dry-run` can show it and tests can check it on other machines.
//!
//! The rules follow section 4.1.1 of the paper: computing threads on distinct physical cores
//! of the first socket (one hardware thread per core, never two hyperthreads of one core), one
//! communication thread on a core no computing thread uses, computation buffers on one NUMA
//! node and the communication buffer on one (possibly other) NUMA node.

use crate::cores::CoreList;
use crate::machine::layout::{Core, Layout};
use crate::trace::{CoreSlot, Plan};

/// What the user asked for.
#[derive(Debug, Clone, Default)]
pub(crate) struct Request {
    pub(crate) comp_numa: u32,
    pub(crate) comm_numa: u32,
    /// Core counts of the sweep; default every core the communication thread leaves free.
    pub(crate) cores: Option<CoreList>,
    /// Logical index of the core for the communication thread; default chosen here.
    pub(crate) comm_core: Option<u32>,
    /// Let the communication thread share its core with a computing thread (machines with
    /// too few cores for a sweep of two core counts otherwise).
    pub(crate) share_comm_core: bool,
    /// Rank 1 (the sender) runs on this host too: its copies need a core of their own
    /// ([`SENDER_CORE_FROM`]).
    pub(crate) sender_here: bool,
    /// The GPU (index in [`Layout::gpus`]) whose copies are the communication stream
    /// (`measure --engine gpu`): the copy thread goes near it, not near the network card.
    pub(crate) gpu: Option<u32>,
}

/// From how many cores on the computing socket the default sweep keeps one for the sender
/// when rank 1 shares the host and no other socket has a free core: four (the communication
/// thread's, the sender's, and a sweep of at least two core counts). Over shared memory a
/// message is a copy made by the sender and the communication thread together; on one core
/// they take turns, and on a 16-core Xeon node the default plan that put them there got
/// 12 MB/s of communications (2 messages of 64 MiB in a 6 s phase) against 6.0-6.6 GB/s with
/// a core each. On 3 cores or fewer sharing stays the fallback, and the plan says so.
pub(crate) const SENDER_CORE_FROM: usize = 4;

/// The plan and the sweep it allows.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Planned {
    pub(crate) plan: Plan,
    pub(crate) sweep: Vec<u32>,
    /// The core (hwloc logical index) the default sweep leaves to the sender
    /// ([`SENDER_CORE_FROM`]); `None` when it keeps none.
    pub(crate) kept_for_sender: Option<u32>,
}

fn slot(core: &Core, socket: u32) -> CoreSlot {
    CoreSlot {
        core: core.logical,
        // The first hardware thread of the core: binding to one PU per core is what keeps
        // two threads off the two hyperthreads of one core.
        pu_os: core.pus_os[0],
        socket,
    }
}

fn list_nodes(layout: &Layout) -> String {
    layout
        .numa
        .iter()
        .map(|n| {
            format!(
                "{} (P#{}, {:.1} GiB{})",
                n.logical_index,
                n.os_index,
                n.memory_bytes as f64 / (1u64 << 30) as f64,
                n.socket.map_or(String::new(), |s| format!(", socket {s}"))
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why a plan cannot be made: a request (`--comp-numa`, `--comm-numa`, `--comm-core`,
/// `--cores`) this machine cannot meet. Each message names what can be asked instead.
#[derive(Debug, Clone)]
pub(crate) enum PlanError {
    /// A NUMA node the data was asked on does not exist; `nodes` lists those that do.
    NoSuchNode {
        node: u32,
        what: &'static str,
        host: String,
        nodes: String,
    },
    /// The process's cpuset leaves no core at all.
    NoUsableCore,
    /// The first socket's only core is the communication thread's.
    OnlyCommCore { socket: u32, core: u32 },
    /// A `--cores` count beyond the free cores; `shared` when the communication core is
    /// already shared (so `--shared-comm-core` would not help).
    Cores {
        err: crate::cores::CoreListError,
        shared: bool,
    },
    /// `--comm-core` names a core that is not usable; cores are `0..=last`.
    NoSuchCommCore { want: u32, last: u32 },
}

// `?` turns it into the crate's error: input the user can fix (exit 2).
contention_analysis::wrap!(Input: PlanError);
impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlanError::NoSuchNode {
                node,
                what,
                host,
                nodes,
            } => write!(
                f,
                "NUMA node {node} (for the {what} data) does not exist on {host}; its NUMA nodes \
                 are: {nodes}"
            ),
            PlanError::NoUsableCore => {
                f.write_str("no usable core: the process's cpuset allows none")
            }
            PlanError::OnlyCommCore { socket, core } => write!(
                f,
                "socket {socket} has only core {core}, which the communication thread needs; \
                 pass --comm-core with a core of another socket"
            ),
            PlanError::Cores { err, shared: true } => write!(f, "{err}"),
            PlanError::Cores { err, shared: false } => write!(
                f,
                "{err} (or pass --shared-comm-core to let the communication thread share a \
                 computing core, on machines this small)"
            ),
            PlanError::NoSuchCommCore { want, last } => write!(
                f,
                "--comm-core {want}: no such usable core; cores are 0..{last} (hwloc logical)"
            ),
        }
    }
}

impl std::error::Error for PlanError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PlanError::Cores { err, .. } => Some(err),
            _ => None,
        }
    }
}

/// Both NUMA nodes of the request exist on the machine.
fn check_nodes(layout: &Layout, req: &Request) -> Result<(), PlanError> {
    for (what, node) in [
        ("computation", req.comp_numa),
        ("communication", req.comm_numa),
    ] {
        if layout.numa.iter().all(|n| n.logical_index != node) {
            return Err(PlanError::NoSuchNode {
                node,
                what,
                host: layout.hostname.clone(),
                nodes: list_nodes(layout),
            });
        }
    }
    Ok(())
}

/// Decides the plan, or says which request cannot be met and what can.
pub(crate) fn plan(layout: &Layout, req: &Request) -> Result<Planned, PlanError> {
    check_nodes(layout, req)?;
    let first = layout
        .sockets
        .iter()
        .find(|s| !s.cores.is_empty())
        .ok_or(PlanError::NoUsableCore)?;
    let (comm, comm_reason) = choose_comm_core(layout, req.comm_core, req.gpu)?;
    // Computing threads take the first socket's cores in order; the communication thread's
    // core comes last when shared, so that only the largest core count is disturbed.
    let mut compute: Vec<CoreSlot> = first
        .cores
        .iter()
        .filter(|c| c.logical != comm.core)
        .map(|c| slot(c, first.logical))
        .collect();
    // A machine that would leave a single computing core (a 2-core CI runner) could only
    // sweep one core count, too few to calibrate: share the communication core there, as
    // `--shared-comm-core` does; the plan's warning says so.
    let share = req.share_comm_core
        || (req.comm_core.is_none() && comm.socket == first.logical && compute.len() < 2);
    if share && comm.socket == first.logical {
        compute.push(comm);
    }
    if compute.is_empty() {
        return Err(PlanError::OnlyCommCore {
            socket: first.logical,
            core: comm.core,
        });
    }
    let free = compute.len() as u32;
    // The sender needs a core of its own on this host when no other socket has one; the
    // default sweep leaves it the computing socket's last (`sender_core` finds it there).
    let spare_elsewhere = layout
        .sockets
        .iter()
        .filter(|s| s.logical != first.logical)
        .flat_map(|s| &s.cores)
        .any(|c| c.logical != comm.core);
    let keep = req.sender_here
        && !spare_elsewhere
        && !(share && comm.socket == first.logical)
        && first.cores.len() >= SENDER_CORE_FROM
        && compute.len() >= 3;
    let kept_for_sender = (keep && req.cores.is_none()).then(|| compute[compute.len() - 1].core);
    let sweep = match &req.cores {
        None if kept_for_sender.is_some() => CoreList::default_sweep(free - 1),
        None => CoreList::default_sweep(free),
        Some(list) => {
            let within = format!(
                "the {free} cores of socket {} left free by the communication thread (core {})",
                first.logical, comm.core
            );
            list.check_max(free, &within)
                .map_err(|err| PlanError::Cores { err, shared: share })?;
            list.clone()
        }
    };
    let os = |logical: u32| {
        layout
            .numa
            .iter()
            .find(|n| n.logical_index == logical)
            .map_or(logical, |n| n.os_index)
    };
    Ok(Planned {
        plan: Plan {
            compute,
            comm,
            comm_reason,
            comp_numa_os: os(req.comp_numa),
            comm_numa_os: os(req.comm_numa),
            comm_shares_core: share && comm.socket == first.logical,
        },
        sweep: sweep.counts().to_vec(),
        kept_for_sender,
    })
}

/// Where rank 1 goes when it shares the host with rank 0 (its copies are memory traffic on
/// this node, so two runs must place them alike): a core rank 0 does not use in a sweep up
/// to `max_cores`, the last of a socket other than the computing one when there is such a
/// core (its copies then load the other socket's memory), else the last free core of the
/// computing socket; its send buffer on that core's NUMA node. When every core is taken, the
/// communication thread's core: rank 1 then slows the communications it feeds, but never the
/// computing cores, and two runs still place it alike (left to the OS, its polling could land
/// on any computing core).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SenderPlan {
    pub(crate) slot: Option<CoreSlot>,
    /// NUMA node of its send buffer, logical and OS index.
    pub(crate) numa: Option<(u32, u32)>,
    pub(crate) reason: String,
}

pub(crate) fn sender_core(layout: &Layout, planned: &Planned, max_cores: usize) -> SenderPlan {
    let plan = &planned.plan;
    let used = |c: &Core| {
        c.logical == plan.comm.core
            || plan.compute[..max_cores.min(plan.compute.len())]
                .iter()
                .any(|s| s.core == c.logical)
    };
    let computing = plan.compute.first().map_or(0, |s| s.socket);
    let free = |other: bool| {
        layout
            .sockets
            .iter()
            .filter(move |s| (s.logical != computing) == other)
            .flat_map(|s| s.cores.iter().map(move |c| (s.logical, c)))
            .rfind(|(_, c)| !used(c))
    };
    let (s, why) = match (free(true), free(false)) {
        (Some(f), _) => (
            slot(f.1, f.0),
            "last free core of another socket than the computing one".to_string(),
        ),
        (None, Some(f)) if planned.kept_for_sender == Some(f.1.logical) => (
            slot(f.1, f.0),
            format!(
                "the core the default sweep keeps for it (it stops at {} computing cores): \
                 over shared memory the sender copies every message, and sharing the \
                 communication thread's core starves the communications",
                planned.sweep.iter().max().copied().unwrap_or(0)
            ),
        ),
        (None, Some(f)) => (
            slot(f.1, f.0),
            "last core of the computing socket the sweep leaves free".to_string(),
        ),
        (None, None) => (
            plan.comm,
            "every other core computes: shares the communication thread's core, which slows \
             the communications (sweep fewer cores to free one)"
                .to_string(),
        ),
    };
    let numa = layout.pu_numa.get(&s.pu_os).and_then(|&l| {
        layout
            .numa
            .iter()
            .find(|n| n.logical_index == l)
            .map(|n| (l, n.os_index))
    });
    SenderPlan {
        slot: Some(s),
        numa,
        reason: format!("{why}; send buffer on its NUMA node"),
    }
}

/// The communication thread's core and why. Near the device that moves the data when hwloc
/// sees where it sits: the GPU whose copies it issues (`gpu`), else the network card (the
/// received data crosses that device's PCIe link and the thread drives its queue);
/// otherwise on the second socket when there is one, so every core of the first can compute;
/// otherwise the last core of the only socket.
fn choose_comm_core(
    layout: &Layout,
    asked: Option<u32>,
    gpu: Option<u32>,
) -> Result<(CoreSlot, String), PlanError> {
    let all = || {
        layout
            .sockets
            .iter()
            .flat_map(|s| s.cores.iter().map(move |c| (s.logical, c)))
    };
    if let Some(want) = asked {
        let (socket, core) = all().find(|(_, c)| c.logical == want).ok_or_else(|| {
            let last = all().map(|(_, c)| c.logical).max().unwrap_or(0);
            PlanError::NoSuchCommCore { want, last }
        })?;
        return Ok((slot(core, socket), "chosen with --comm-core".into()));
    }
    let sockets: Vec<_> = layout
        .sockets
        .iter()
        .filter(|s| !s.cores.is_empty())
        .collect();
    // GPU copies follow their GPU only: a network card carries none of their bytes.
    let device = match gpu {
        Some(i) => layout
            .gpus
            .get(i as usize)
            .map(|g| (format!("GPU {i} ({})", g.pci_bus_id), g.socket)),
        None => layout
            .main_nic()
            .map(|n| (format!("network card {}", n.info.name), n.info.socket)),
    };
    if let Some((name, socket)) = device {
        if let Some(s) = socket.and_then(|n| sockets.iter().find(|s| s.logical == n)) {
            return Ok(if s.logical == sockets[0].logical {
                let core = s.cores.last().expect("non-empty");
                (
                    slot(core, s.logical),
                    format!(
                        "last core of socket {}, the socket of {name}; it does not compute",
                        s.logical
                    ),
                )
            } else {
                (
                    slot(&s.cores[0], s.logical),
                    format!("first core of socket {}, the socket of {name}", s.logical),
                )
            });
        }
    }
    Ok(if let Some(second) = sockets.get(1) {
        (
            slot(&second.cores[0], second.logical),
            format!(
                "no network card locality seen by hwloc: first core of socket {}, so every \
                 core of socket {} can compute",
                second.logical, sockets[0].logical
            ),
        )
    } else {
        let s = sockets[0];
        (
            slot(s.cores.last().expect("non-empty"), s.logical),
            format!(
                "single socket: its last core, leaving the others to compute{}",
                layout.main_nic().map_or(String::new(), |n| format!(
                    " (network card {})",
                    n.info.name
                ))
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use crate::machine::plan::*;
    use crate::machine::topology::{layout, load_synthetic, load_xml};
    use std::path::PathBuf;

    fn reference(name: &str) -> Option<Layout> {
        let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/data/topologies")
            .join(name);
        Some(layout(&load_xml(&p).ok()?))
    }

    fn no_hyperthread_pairs(layout: &Layout, p: &Plan) {
        let mut cores: Vec<u32> = p.compute.iter().map(|c| c.core).collect();
        cores.push(p.comm.core);
        let n = cores.len();
        cores.sort_unstable();
        cores.dedup();
        assert_eq!(cores.len(), n, "two threads on one core");
        for c in p.compute.iter().chain([&p.comm]) {
            let core = layout
                .sockets
                .iter()
                .flat_map(|s| &s.cores)
                .find(|k| k.logical == c.core)
                .unwrap();
            assert_eq!(c.pu_os, core.pus_os[0], "bound to the core's first PU");
        }
    }

    #[test]
    fn synthetic_two_sockets_computes_on_every_core_of_the_first() {
        let l = layout(&load_synthetic("pack:2 numa:2 core:9 pu:2").unwrap());
        let p = plan(
            &l,
            &Request {
                comp_numa: 0,
                comm_numa: 3,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(p.plan.compute.len(), 18);
        assert!(p.plan.compute.iter().all(|c| c.socket == 0));
        assert_eq!((p.plan.comm.socket, p.plan.comm.core), (1, 18));
        assert!(p.plan.comm_reason.contains("no network card"));
        assert_eq!(p.sweep, (1..=18).collect::<Vec<_>>());
        assert_eq!((p.plan.comp_numa_os, p.plan.comm_numa_os), (0, 3));
        no_hyperthread_pairs(&l, &p.plan);
    }

    #[test]
    fn single_socket_leaves_the_last_core_to_communications() {
        let l = layout(&load_synthetic("pack:1 numa:1 core:4 pu:1").unwrap());
        let p = plan(&l, &Request::default()).unwrap();
        assert_eq!(p.plan.comm.core, 3);
        assert_eq!(p.plan.compute.len(), 3);
        assert!(!p.plan.comm_shares_core);
        assert_eq!(p.sweep, vec![1, 2, 3]);
        let err = plan(
            &l,
            &Request {
                cores: Some("1..4".parse().unwrap()),
                ..Default::default()
            },
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("core count 4") && err.contains("left free"),
            "{err}"
        );
    }

    #[test]
    fn two_cores_share_the_communication_core_without_being_asked() {
        // One computing core would give a one-point sweep, which cannot be calibrated.
        let l = layout(&load_synthetic("pack:1 numa:1 core:2 pu:1").unwrap());
        let p = plan(&l, &Request::default()).unwrap();
        assert!(p.plan.comm_shares_core);
        assert_eq!(p.plan.comm.core, 1);
        assert_eq!(p.sweep, vec![1, 2]);
        // An explicit --comm-core is the user's choice: no sharing behind their back.
        let p = plan(
            &l,
            &Request {
                comm_core: Some(1),
                ..Default::default()
            },
        )
        .unwrap();
        assert!(!p.plan.comm_shares_core);
        assert_eq!(p.sweep, vec![1]);
    }

    #[test]
    fn a_shared_comm_core_is_the_last_computing_core() {
        let l = layout(&load_synthetic("pack:1 numa:1 core:2 pu:1").unwrap());
        let p = plan(
            &l,
            &Request {
                share_comm_core: true,
                ..Default::default()
            },
        )
        .unwrap();
        assert!(p.plan.comm_shares_core);
        assert_eq!(
            p.plan.compute.iter().map(|c| c.core).collect::<Vec<_>>(),
            [0, 1]
        );
        assert_eq!(p.plan.comm.core, 1);
        assert_eq!(p.sweep, vec![1, 2]);
        // On two sockets the communication core is on the second one: nothing to share.
        let l = layout(&load_synthetic("pack:2 numa:1 core:2 pu:1").unwrap());
        let p = plan(
            &l,
            &Request {
                share_comm_core: true,
                ..Default::default()
            },
        )
        .unwrap();
        assert!(!p.plan.comm_shares_core && p.plan.compute.len() == 2);
    }

    #[test]
    fn the_sender_takes_a_free_core_preferably_on_the_other_socket() {
        let l = layout(&load_synthetic("pack:2 numa:2 core:4 pu:1").unwrap());
        let p = plan(&l, &Request::default()).unwrap();
        let s = sender_core(&l, &p, p.sweep.len());
        let slot = s.slot.unwrap();
        assert_eq!((slot.socket, slot.core), (1, 15), "{s:?}");
        // 4 cores per node: core 15 is in the second cluster of socket 1, node 3.
        assert_eq!(s.numa, Some((3, 3)));
        assert_ne!(slot.core, p.plan.comm.core);
        // One socket, full sweep: no free core.
        let one = layout(&load_synthetic("pack:1 core:2 pu:1").unwrap());
        let p = plan(
            &one,
            &Request {
                share_comm_core: true,
                ..Request::default()
            },
        )
        .unwrap();
        let s = sender_core(&one, &p, 2);
        assert_eq!(s.slot, Some(p.plan.comm), "{s:?}");
        assert!(
            s.reason.contains("shares the communication thread's core"),
            "{s:?}"
        );
        // One socket, a short sweep leaves the last computing core free.
        let four = layout(&load_synthetic("pack:1 core:4 pu:1").unwrap());
        let p = plan(&four, &Request::default()).unwrap();
        let s = sender_core(&four, &p, 1);
        assert_eq!(s.slot.map(|c| c.core), Some(2), "{s:?}");
    }

    #[test]
    fn on_one_host_the_default_sweep_keeps_a_core_for_the_sender() {
        let here = Request {
            sender_here: true,
            ..Request::default()
        };
        // The 16-core node of the real traces: communication thread on core 15, the
        // sender on 14, computations on 0-13.
        let l = layout(&load_synthetic("pack:1 numa:1 core:16 pu:1").unwrap());
        let p = plan(&l, &here).unwrap();
        assert_eq!(p.plan.comm.core, 15);
        assert_eq!(p.kept_for_sender, Some(14));
        assert_eq!(p.sweep, (1..=14).collect::<Vec<_>>());
        let s = sender_core(&l, &p, p.sweep.len());
        assert_eq!(s.slot.map(|c| c.core), Some(14), "{s:?}");
        assert!(s.reason.contains("keeps for it"), "{}", s.reason);
        assert!(!p.plan.comm_shares_core);
        // A sender on another host needs no core here: every free core computes.
        let p = plan(&l, &Request::default()).unwrap();
        assert_eq!((p.kept_for_sender, p.sweep.len()), (None, 15));
        // An explicit --cores may take the kept core; rank 1 then shares (and the plan warns).
        let p = plan(
            &l,
            &Request {
                cores: Some("1..15".parse().unwrap()),
                ..here.clone()
            },
        )
        .unwrap();
        assert_eq!(p.kept_for_sender, None);
        let s = sender_core(&l, &p, 15);
        assert_eq!(s.slot, Some(p.plan.comm), "{s:?}");
        // Four cores: two compute, the sender and the communication thread have one each.
        let four = layout(&load_synthetic("pack:1 numa:1 core:4 pu:1").unwrap());
        let p = plan(&four, &here).unwrap();
        assert_eq!((p.sweep.clone(), p.kept_for_sender), (vec![1, 2], Some(2)));
        // Three cores: sharing is the fallback (a one-point sweep cannot be calibrated).
        let three = layout(&load_synthetic("pack:1 numa:1 core:3 pu:1").unwrap());
        let p = plan(&three, &here).unwrap();
        assert_eq!((p.sweep.clone(), p.kept_for_sender), (vec![1, 2], None));
        let s = sender_core(&three, &p, 2);
        assert_eq!(s.slot, Some(p.plan.comm));
        // Two sockets: the sender goes to the other one, the sweep keeps every core.
        let two = layout(&load_synthetic("pack:2 numa:1 core:8 pu:1").unwrap());
        let p = plan(&two, &here).unwrap();
        assert_eq!((p.sweep.len(), p.kept_for_sender), (8, None));
        assert_eq!(sender_core(&two, &p, 8).slot.unwrap().socket, 1);
    }

    #[test]
    fn missing_nodes_are_refused_listing_the_valid_ones() {
        let l = layout(&load_synthetic("pack:1 numa:1 core:2 pu:1").unwrap());
        let err = plan(
            &l,
            &Request {
                comm_numa: 1,
                ..Default::default()
            },
        )
        .unwrap_err();
        let err = err.to_string();
        assert!(
            err.contains("NUMA node 1") && err.contains("nodes are: 0 (P#0"),
            "{err}"
        );
    }

    #[test]
    fn comm_core_override_is_checked() {
        let l = layout(&load_synthetic("pack:2 numa:1 core:4 pu:2").unwrap());
        let req = |c| Request {
            comm_core: Some(c),
            ..Default::default()
        };
        let p = plan(&l, &req(2)).unwrap();
        assert_eq!(p.plan.compute.len(), 3);
        assert!(p.plan.compute.iter().all(|c| c.core != 2));
        assert!(plan(&l, &req(8))
            .unwrap_err()
            .to_string()
            .contains("cores are 0..7"));
    }

    #[test]
    fn infiniband_machines_put_the_comm_thread_beside_the_card() {
        // 24em64t: mlx4_0 (and ib0) near package 0.
        let Some(l) = reference("24em64t-2n6c2t-pci.xml") else {
            panic!("tests/data/topologies/24em64t-2n6c2t-pci.xml must load");
        };
        let nic = l.main_nic().expect("InfiniBand card seen");
        assert_eq!(nic.info.name, "mlx4_0");
        let p = plan(&l, &Request::default()).unwrap();
        assert_eq!(Some(p.plan.comm.socket), nic.info.socket);
        assert!(
            p.plan.comm_reason.contains("mlx4_0"),
            "{}",
            p.plan.comm_reason
        );
        no_hyperthread_pairs(&l, &p.plan);
        assert_eq!(
            p.plan.compute.len() + usize::from(p.plan.comm.socket == 0),
            6
        );

        // 32em64t: mlx5_0.
        let l = reference("32em64t-2n8c2t-pci-normalio.xml").expect("loads");
        let nic = l.main_nic().expect("InfiniBand card seen");
        assert_eq!(nic.info.name, "mlx5_0");
        let p = plan(&l, &Request::default()).unwrap();
        assert_eq!(Some(p.plan.comm.socket), nic.info.socket);
        assert!(p.plan.comm_reason.contains("mlx5_0"));
        no_hyperthread_pairs(&l, &p.plan);
    }

    #[test]
    fn gpu_copies_put_the_copy_thread_beside_their_gpu_not_the_network_card() {
        // 24em64t: three NVIDIA GPUs (06:00.0 near package 0, 11:00.0 and 14:00.0 near
        // package 1), the InfiniBand card near package 0.
        let l = reference("24em64t-2n6c2t-pci.xml").expect("loads");
        let gpus: Vec<(&str, Option<u32>)> = l
            .gpus
            .iter()
            .map(|g| (g.pci_bus_id.as_str(), g.socket))
            .collect();
        assert_eq!(
            gpus,
            [
                ("0000:06:00.0", Some(0)),
                ("0000:11:00.0", Some(1)),
                ("0000:14:00.0", Some(1))
            ]
        );
        assert_eq!(l.gpus[1].numa_nodes, [1]);
        // Every trace of the node lists them, whatever it measures.
        assert_eq!(l.machine_info().gpus, l.gpus);
        let on = |gpu| {
            plan(
                &l,
                &Request {
                    gpu,
                    ..Request::default()
                },
            )
            .unwrap()
            .plan
        };
        let p = on(Some(1));
        assert_eq!((p.comm.socket, p.comm.core), (1, 6));
        assert!(
            p.comm_reason.contains("GPU 1 (0000:11:00.0)"),
            "{}",
            p.comm_reason
        );
        // GPU 0 sits with the card on package 0: the last core there, which then does not
        // compute.
        let p = on(Some(0));
        assert_eq!((p.comm.socket, p.comm.core), (0, 5));
        assert!(p.comm_reason.contains("GPU 0"), "{}", p.comm_reason);
        assert_eq!(p.compute.len(), 5);
        // A GPU hwloc does not list: no locality, and never the network card's.
        let p = on(Some(7));
        assert!(!p.comm_reason.contains("mlx4_0"), "{}", p.comm_reason);
        // The 16-core node of the real traces has no PCI devices in its file: no GPU.
        let l = reference("16em64t-4s2c2t.xml").expect("loads");
        assert!(l.gpus.is_empty());
        // Nor in its traces, which read as they did before the field.
        let json = serde_json::to_string(&l.machine_info()).unwrap();
        assert!(!json.contains("gpus"), "{json}");
    }

    #[test]
    fn every_reference_topology_plans_without_hyperthread_pairs() {
        for name in [
            "16em64t-4s2c2t.xml",
            "24em64t-2n6c2t-pci.xml",
            "32em64t-2n8c2t-pci-normalio.xml",
            "96em64t-4n4d3ca2co-pci.xml",
        ] {
            let l = reference(name).unwrap_or_else(|| panic!("{name} loads"));
            let p = plan(&l, &Request::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
            no_hyperthread_pairs(&l, &p.plan);
            assert!(p.plan.compute.iter().all(|c| c.socket == 0), "{name}");
            assert_eq!(p.sweep.len(), p.plan.compute.len(), "{name}");
        }
    }
}
