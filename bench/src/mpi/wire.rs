//! Control messages of any length between two ranks, received with plain receives: the
//! length first (one `u64`), then the payload into a buffer of that length, both on the same
//! tag (MPI never lets a message overtake an earlier one between the same two ranks on the
//! same communicator and tag, so the two arrive in order).
//!
//! Why not rsmpi's receive into a vector it allocates: it probes and receives the message it
//! matched (`MPI_Mprobe` and `MPI_Mrecv`), and Open MPI's cm PML over libfabric (the OFI MTL: HPE Slingshot, AWS
//! EFA, Omni-Path) fails `MPI_Mrecv` with `MPI_ERR_OTHER` even for 1 KiB, where `MPI_Recv`
//! of the same message works (Open MPI 4.1.4, libfabric 1.17). A site whose Open MPI has no
//! `openmpi-mca-params.conf` picks that stack by itself wherever libfabric is present. No
//! matched probe is used anywhere in the tool (`tests/transports.rs` runs a measurement under
//! that stack).

use mpi::datatype::Equivalence;
use mpi::point_to_point::{Destination, Source};
use mpi::topology::Process;
use mpi::Tag;

/// The longest control message (64 Mi elements): a corrupt length must not make a rank
/// allocate without bound. The tool's own messages are a few kilobytes at most.
pub(crate) const MAX_ELEMENTS: u64 = 64 << 20;

/// Sends `payload` to `to` on `tag`: its length, then the elements.
pub(crate) fn send<T: Equivalence>(to: &Process<'_>, tag: Tag, payload: &[T]) {
    let len = payload.len() as u64;
    assert!(len <= MAX_ELEMENTS, "a control message of {len} elements");
    to.send_with_tag(&len, tag);
    to.send_with_tag(payload, tag);
}

/// Receives from `from` on `tag` what [`send`] sent.
pub(crate) fn receive<T: Equivalence + Default + Clone>(from: &Process<'_>, tag: Tag) -> Vec<T> {
    let (len, _) = from.receive_with_tag::<u64>(tag);
    // Only a corrupt peer sends more: the same binary on every rank never does.
    assert!(
        len <= MAX_ELEMENTS,
        "a control message of {len} elements announced"
    );
    let mut buf = vec![T::default(); len as usize];
    from.receive_into_with_tag(&mut buf[..], tag);
    buf
}
