//! Rank 1's side of the placement: bind where rank 0 asked, put the send buffer on the node
//! it asked, and report where it actually ran and where the buffer's pages actually lie, so
//! the trace records the sender as exactly as the measured side. On one host the sender's
//! copies are memory traffic on the measured node: unpinned, two runs would measure
//! different things.

use super::memory;
use super::run::bind_current_thread;
use crate::trace::SenderPlacement;
use hwlocality::memory::binding::Bytes;
use hwlocality::Topology;

/// Binds the calling thread to `pu` and allocates the `size`-byte send buffer on `node` (OS
/// indices; `None`: leave it to the OS), filled with ones. Returns the report for rank 0,
/// and the buffer to send from when it could be allocated.
pub fn place<'t>(
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
    let bytes = memory::as_bytes(&mut buffer);
    bytes.fill(1);
    let pages = memory::page_locations("send (rank 1)", bytes, node);
    let report = SenderPlacement {
        host: host.to_string(),
        pu_os: pu,
        reason: String::new(),
        ran_on: memory::current_cpu().into_iter().collect(),
        buffer: pages,
    };
    (Ok(report), Some(buffer))
}

/// Rank 0's check of the report: the sender ran on its PU and its buffer lies on its node,
/// else an error naming what is wrong.
pub fn check(report: &SenderPlacement) -> Result<(), String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_itself_and_reports_what_the_kernel_says() {
        let t = Topology::new().unwrap();
        let node = t
            .objects_with_type(hwlocality::object::types::ObjectType::NUMANode)
            .next()
            .and_then(|n| n.os_index())
            .map(|o| o as u32);
        let pu = memory::current_cpu();
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
