//! A contention graph run for real (`contention network GRAPH --run`), as the benchmark of
//! section 3.3 of Martinasso and Méhaut: one MPI rank per communication end, rank `2i`
//! sending communication `i` and rank `2i + 1` receiving it.
//!
//! Each repetition starts with a barrier; every rank then counts time from its own exit of
//! the barrier (the skew between ranks is the barrier's, small against the messages of a
//! contention graph). A sender waits until its communication's start time and sends one
//! message of its size; its receiver posted the receive at once and records when it
//! completes. The first repetition warms up (page faults, connection set-up) and is dropped.

use crate::network::Graph;
use mpi::collective::{CommunicatorCollectives, Root};
use mpi::point_to_point::{Destination, Source};
use mpi::topology::{Communicator, SimpleCommunicator};
use std::time::{Duration, Instant};

const TAG_MESSAGE: i32 = 11;
/// Bytes of a processor name gathered on rank 0.
const NAME_BYTES: usize = 64;

/// What rank 0 gathers: per communication, the time from its start to the completion of its
/// receive in each kept repetition (seconds), and the hosts of its two ends.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphTimes {
    pub times: Vec<Vec<f64>>,
    pub hosts: Vec<(String, String)>,
}

/// The number of ranks a run of `graph` needs.
pub(crate) fn ranks(graph: &Graph) -> usize {
    2 * graph.communications.len()
}

/// The host of every rank of a run of `graph` (rank `2i` on the host of communication `i`'s
/// source node, rank `2i + 1` on that of its destination), from `NODE=HOST` pairs that name
/// every node of the graph once. This is what lets `network --run` measure contention in a
/// network, as the benchmark of section 3.3 does with one cluster node per graph node,
/// instead of copies inside one host's memory.
pub(crate) fn rank_hosts(graph: &Graph, pairs: &[String]) -> Result<Vec<String>, String> {
    let mut map: Vec<(&str, &str)> = Vec::with_capacity(pairs.len());
    for p in pairs {
        let (node, host) = p.split_once('=').ok_or_else(|| {
            format!("--hosts takes NODE=HOST pairs (like n1=node1,n2=node2); `{p}` has no `=`")
        })?;
        let (node, host) = (node.trim(), host.trim());
        if node.is_empty() || host.is_empty() {
            return Err(format!(
                "--hosts `{p}`: both the graph node and the host must be named (NODE=HOST)"
            ));
        }
        if map.iter().any(|(n, _)| *n == node) {
            return Err(format!("--hosts names graph node `{node}` twice"));
        }
        map.push((node, host));
    }
    let mut nodes: Vec<&str> = Vec::new();
    for c in &graph.communications {
        for n in [c.src.as_str(), c.dst.as_str()] {
            if !nodes.contains(&n) {
                nodes.push(n);
            }
        }
    }
    if let Some((n, _)) = map.iter().find(|(n, _)| !nodes.contains(n)) {
        return Err(format!(
            "--hosts names `{n}`, which is no node of the graph; its nodes are {}",
            nodes.join(", ")
        ));
    }
    let missing: Vec<&str> = nodes
        .iter()
        .copied()
        .filter(|n| !map.iter().any(|(m, _)| m == n))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "--hosts gives no host for graph node(s) {}; name every node once, like {}",
            missing.join(", "),
            nodes
                .iter()
                .map(|n| format!("{n}=HOST"))
                .collect::<Vec<_>>()
                .join(",")
        ));
    }
    let host = |n: &str| map.iter().find(|(m, _)| *m == n).unwrap().1.to_string();
    Ok(graph
        .communications
        .iter()
        .flat_map(|c| [host(&c.src), host(&c.dst)])
        .collect())
}

/// Runs `graph` `repeat` times (after one warm-up) on this rank of `world`, which must have
/// [`ranks`] ranks; rank 0 returns the gathered times, the others `None`.
pub(crate) fn run(world: &SimpleCommunicator, graph: &Graph, repeat: usize) -> Option<GraphTimes> {
    let rank = world.rank() as usize;
    let comm = &graph.communications[rank / 2];
    let sender = rank.is_multiple_of(2);
    // Sizes were checked against i32 counts before launching.
    let mut buf = vec![1u8; comm.bytes.round() as usize];
    let root = world.process_at_rank(0);
    let mut name = [0u8; NAME_BYTES];
    let me = mpi::environment::processor_name().unwrap_or_else(|_| "unknown".into());
    for (d, s) in name.iter_mut().zip(me.bytes()) {
        *d = s;
    }
    let mut names = vec![0u8; NAME_BYTES * world.size() as usize];
    let mut gathered = vec![0f64; world.size() as usize];
    let mut times = vec![Vec::with_capacity(repeat); graph.communications.len()];
    for rep in 0..=repeat {
        world.barrier();
        let t0 = Instant::now();
        // Both ends wait for the communication's start on their own clock (the barrier left
        // them within its skew of each other); the receiver then posts its receive, so its
        // time counts from the start and can never be negative, even when an eager message
        // arrived before the receiver left the barrier.
        let wait = Duration::from_secs_f64(comm.start);
        if let Some(left) = wait.checked_sub(t0.elapsed()) {
            std::thread::sleep(left);
        }
        let mine = if sender {
            world
                .process_at_rank(rank as i32 + 1)
                .send_with_tag(&buf[..], TAG_MESSAGE);
            f64::NAN
        } else {
            world
                .process_at_rank(rank as i32 - 1)
                .receive_into_with_tag(&mut buf[..], TAG_MESSAGE);
            t0.elapsed().as_secs_f64() - comm.start
        };
        if rank == 0 {
            root.gather_into_root(&mine, &mut gathered[..]);
            if rep > 0 {
                for (i, t) in times.iter_mut().enumerate() {
                    t.push(gathered[2 * i + 1]);
                }
            }
        } else {
            root.gather_into(&mine);
        }
    }
    if rank == 0 {
        root.gather_into_root(&name[..], &mut names[..]);
        let host = |r: usize| {
            let n = &names[r * NAME_BYTES..(r + 1) * NAME_BYTES];
            let end = n.iter().position(|&b| b == 0).unwrap_or(NAME_BYTES);
            String::from_utf8_lossy(&n[..end]).into_owned()
        };
        let hosts = (0..graph.communications.len())
            .map(|i| (host(2 * i), host(2 * i + 1)))
            .collect();
        Some(GraphTimes { times, hosts })
    } else {
        root.gather_into(&name[..]);
        None
    }
}

#[cfg(test)]
mod tests {
    use crate::mpi::graph::*;
    use crate::network::Communication;

    fn graph() -> Graph {
        let c = |id: &str, src: &str, dst: &str| Communication {
            id: id.into(),
            src: src.into(),
            dst: dst.into(),
            bytes: 1.0,
            start: 0.0,
        };
        Graph {
            alpha: 1.0,
            communications: vec![c("a", "n1", "n2"), c("b", "n3", "n1")],
        }
    }

    fn pairs(s: &[&str]) -> Vec<String> {
        s.iter().map(|p| p.to_string()).collect()
    }

    #[test]
    fn every_rank_goes_to_the_host_of_its_end() {
        let h = rank_hosts(&graph(), &pairs(&["n1=x", "n2=y", "n3=y"])).unwrap();
        assert_eq!(h, ["x", "y", "y", "x"]);
    }

    #[test]
    fn bad_mappings_are_refused_naming_the_node() {
        let g = graph();
        let e = rank_hosts(&g, &pairs(&["n1=x", "n2=y"])).unwrap_err();
        assert!(
            e.contains("n3") && e.contains("n1=HOST,n2=HOST,n3=HOST"),
            "{e}"
        );
        let e = rank_hosts(&g, &pairs(&["n1=x", "n2=y", "n3=z", "n4=w"])).unwrap_err();
        assert!(e.contains("`n4`") && e.contains("n1, n2, n3"), "{e}");
        let e = rank_hosts(&g, &pairs(&["n1"])).unwrap_err();
        assert!(e.contains("`n1` has no `=`"), "{e}");
        let e = rank_hosts(&g, &pairs(&["n1=x", "n1=y"])).unwrap_err();
        assert!(e.contains("twice"), "{e}");
        let e = rank_hosts(&g, &pairs(&["n1="])).unwrap_err();
        assert!(e.contains("NODE=HOST"), "{e}");
    }
}
