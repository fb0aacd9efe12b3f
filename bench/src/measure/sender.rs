//! Rank 1's side of the placement: bind where rank 0 asked, put the send buffer on the node
//! it asked, and report where it actually ran and where the buffer's pages actually lie, so
//! the trace records the sender as exactly as the measured side. On one host the sender's
//! copies are memory traffic on the measured node: unpinned, two runs would measure
//! different things.
//!
//! `serve_rank` is the whole life of a rank other than 0; `place_ranks` is rank 0's side.

use crate::error::{Error, Result as CrateResult};
use crate::machine::memory;
use crate::machine::plan::SenderPlan;
use crate::machine::topology;
use crate::measure::choices::CommPattern;
use crate::measure::sweep::comm;
use crate::mpi::world::World;
use crate::sys::{bind_current_thread, current_cpu};
use crate::trace::{SenderPlacement, TransportKind};
use hwlocality::memory::binding::Bytes;
use hwlocality::Topology;
use mpi::topology::Communicator;

/// Binds the calling thread to `pu` and allocates the `size`-byte send buffer on `node` (OS
/// indices; `None`: leave it to the OS), every page touched. Returns the report for rank 0,
/// and the buffer to send from when it could be allocated.
pub(crate) fn place<'t>(
    topology: &'t Topology,
    host: &str,
    size: usize,
    pu: Option<u32>,
    node: Option<u32>,
) -> (Result<SenderPlacement, String>, Option<Bytes<'t>>) {
    if let Some(pu) = pu {
        if let Err(e) = bind_current_thread(topology, pu) {
            return (Err(e), None);
        }
    }
    let mut buffer = match memory::allocate(topology, size, node) {
        Ok(b) => b,
        Err(e) => return (Err(e.to_string()), None),
    };
    // `allocate` wrote every page: what the messages hold does not matter.
    let bytes = memory::as_bytes(&mut buffer);
    let pages = memory::page_locations("send (rank 1)", bytes, node);
    let report = SenderPlacement {
        host: host.to_string(),
        pu_os: pu,
        reason: String::new(),
        ran_on: current_cpu().into_iter().collect(),
        buffer: pages,
    };
    (Ok(report), Some(buffer))
}

/// Rank 0's check of the report: the sender ran on its PU and its buffer lies on its node,
/// else an error naming what is wrong.
pub(crate) fn check(report: &SenderPlacement) -> Result<(), String> {
    if let Some(pu) = report.pu_os {
        if report.ran_on.iter().any(|&c| c != pu) {
            return Err(format!(
                "rank 1 (sender) on {} was bound to PU P#{pu} but ran on CPU {:?}; start the job \
                 with binding off (--bind-to none), or pass --no-bind",
                report.host, report.ran_on
            ));
        }
    }
    memory::check_pages(&report.buffer).map_err(|e| e.to_string())
}

/// Every rank but 0, for the whole run: place itself where rank 0 asks (see `place`),
/// report, then send (and in an exchange, receive) `message_bytes`-byte messages in
/// `pattern` until rank 0 says shut down. `host` is this rank's host name.
pub(crate) fn serve_rank(world: &World, host: &str, message_bytes: usize, pattern: CommPattern) {
    let Some(to) = comm::await_placement(world) else {
        return;
    };
    let ring = message_bytes.saturating_mul(to.slots as usize);
    let topo = topology::load_this_machine();
    let (report, mut placed) = match &topo {
        Ok(t) => place(t, host, ring, to.pu, to.node),
        Err(e) => (Err(e.to_string()), None),
    };
    comm::report(
        world,
        serde_json::to_string(&report)
            .unwrap_or_default()
            .as_bytes(),
    );
    let fallback;
    let message: &[u8] = match placed.as_mut() {
        Some(b) => memory::as_bytes(b),
        None => {
            fallback = vec![1u8; message_bytes];
            &fallback
        }
    };
    let mut receive = if pattern == CommPattern::Pong {
        Vec::new()
    } else {
        vec![0u8; message_bytes]
    };
    comm::serve(world, pattern, message_bytes, message, &mut receive);
}

/// Rank 0, before the sweep: places every other rank (only rank 1 is pinned, at `plan`, and
/// only when it shares this host and `bind` is on) and checks rank 1's report: it ran where
/// asked, its buffer lies where asked. On this host rank 1 sends from a ring of `slots`
/// messages, as rank 0 receives into one: its reads would otherwise come from the shared
/// cache; on another host one slot (its cache is not the measured node's).
pub(crate) fn place_ranks(
    world: &World,
    plan: &SenderPlan,
    transport: TransportKind,
    bind: bool,
    slots: u32,
) -> CrateResult<SenderPlacement> {
    let slots = if transport == TransportKind::Network {
        1
    } else {
        slots
    };
    let (pu, node, reason) = if !bind {
        (None, None, "not pinned: --no-bind".to_string())
    } else if transport == TransportKind::Network {
        (
            None,
            None,
            "another host: not pinned by this tool (its memory is not the measured one)".into(),
        )
    } else {
        (
            plan.slot.map(|s| s.pu_os),
            plan.numa.map(|(_, os)| os),
            plan.reason.clone(),
        )
    };
    let mut sender = None;
    for r in 1..world.size() {
        let (pu, node) = if r == 1 { (pu, node) } else { (None, None) };
        let bytes = comm::place(world, r, &comm::Placement { pu, node, slots });
        let report: Result<SenderPlacement, String> =
            serde_json::from_slice(&bytes).map_err(|e| {
                Error::Failed(format!(
                    "rank {r} sent an unreadable placement report ({e})"
                ))
            })?;
        let report = report.map_err(|e| Error::Failed(format!("rank {r}: {e}")))?;
        if r == 1 {
            sender = Some(report);
        }
    }
    let mut sender = sender.ok_or_else(|| Error::Failed("no rank 1".into()))?;
    sender.reason = reason;
    if bind {
        check(&sender).map_err(Error::Failed)?;
    }
    Ok(sender)
}

#[cfg(test)]
mod tests {
    use crate::measure::sender::*;

    #[test]
    fn places_itself_and_reports_what_the_kernel_says() {
        let t = Topology::new().unwrap();
        let node = t
            .objects_with_type(hwlocality::object::types::ObjectType::NUMANode)
            .next()
            .and_then(|n| n.os_index())
            .map(|o| o as u32);
        let pu = current_cpu();
        let (report, buf) = place(&t, "here", 1 << 20, pu, node);
        let report = report.unwrap();
        assert_eq!(buf.unwrap().len(), 1 << 20);
        assert_eq!(report.ran_on, pu.into_iter().collect::<Vec<_>>());
        assert_eq!(report.buffer.bound_to, node);
        assert_eq!(
            report.buffer.on_nodes.values().sum::<u64>(),
            report.buffer.pages
        );
        assert!(check(&report).is_ok());
        let moved = SenderPlacement {
            ran_on: vec![pu.unwrap() + 1],
            ..report
        };
        assert!(check(&moved).unwrap_err().contains("rank 1"));
    }
}
