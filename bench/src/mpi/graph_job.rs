//! `network --run`'s MPI job around a contention graph ([`super::graph`], the ranks' side):
//! from a shell, the launch of one rank per communication end, on this host or on the hosts
//! `--hosts` gives the graph's nodes; under the launcher, each rank joining the job and
//! taking its end, rank 0 gathering the times. What the times are compared with, and the
//! report, are the command's: this runs the job and returns what was measured.

use super::graph::{self, GraphTimes};
use crate::error::{Error, Result};
use crate::mpi::world::{self, Threading};
use crate::mpi::{driver, launch};
use crate::network::Graph;
use std::path::Path;

/// From a shell: starts the command again under the launcher, one rank per communication
/// end, rank `i` on the `i`-th of the hosts `pairs` (`NODE=HOST`) give the graph's nodes, or
/// all on this host; its exit status is the job's.
pub fn launch(graph: &Graph, pairs: Option<&[String]>, launcher: launch::Launcher) -> Result<()> {
    if let Some(c) = graph
        .communications
        .iter()
        .find(|c| c.bytes.round() > i32::MAX as f64)
    {
        return Err(Error::Input(format!(
            "--run sends each communication as one MPI message, at most {} bytes; `{}` has {}",
            i32::MAX,
            c.id,
            c.bytes
        )));
    }
    let rank_hosts = match pairs {
        None => None,
        Some(pairs) => Some(graph::rank_hosts(graph, pairs).map_err(Error::Input)?),
    };
    // Rank i on the i-th host, hosts repeating: each launcher's dialect keeps that order.
    let shape = launch::Shape {
        ranks: graph::ranks(graph),
        rank_hosts: rank_hosts.as_deref(),
        as_root: launch::is_root(),
        forward: &[],
    };
    let (_, line) = driver::plan_own(launcher, &shape, false)?;
    eprintln!("network: starting {}", line.shown());
    let ended = driver::run(
        &line,
        crate::mpi::progress::Mode::Quiet,
        driver::Signals::Default,
    )?;
    match ended.code {
        0 => Ok(()),
        c => Err(Error::Reported(c)),
    }
}

/// Under the launcher: joins the job, runs this rank's end of `graph` (read from `path`)
/// `repeat` times, and on rank 0 returns the times (`None` on the others), saying which
/// ends ran elsewhere than `pairs` asked.
pub fn as_rank(
    graph: &Graph,
    path: &Path,
    repeat: u32,
    pairs: Option<&[String]>,
) -> Result<Option<GraphTimes>> {
    let want = graph::ranks(graph);
    let job = world::join(Threading::Single, want, |got, own| {
        Error::Input(format!(
            "graph `{}` has {} communications and needs {want} MPI ranks (one per end), got \
             {got}; start it without a launcher (it starts itself) or with `{own}`",
            path.display(),
            graph.communications.len(),
        ))
    })?;
    let Some(times) = graph::run(&job.world, graph, repeat as usize) else {
        return Ok(None);
    };
    if let Some(pairs) = pairs {
        warn_misplaced(graph, pairs, &times.hosts);
    }
    Ok(Some(times))
}

/// Says which communication ends ran elsewhere than `--hosts` asked (as MPI names the host:
/// a launcher may resolve `node1` to `node1.cluster`), so a report is not read as a network
/// measurement when it was not one.
fn warn_misplaced(graph: &Graph, pairs: &[String], ran: &[(String, String)]) {
    let Ok(want) = graph::rank_hosts(graph, pairs) else {
        return;
    };
    for (i, (c, (src, dst))) in graph.communications.iter().zip(ran).enumerate() {
        for (end, got, asked) in [
            ("source", src, &want[2 * i]),
            ("destination", dst, &want[2 * i + 1]),
        ] {
            if got != asked {
                eprintln!(
                    "warning: the {end} of `{}` ran on `{got}`, not on `{asked}` as --hosts \
                     asked; check the launcher's host names",
                    c.id
                );
            }
        }
    }
}
