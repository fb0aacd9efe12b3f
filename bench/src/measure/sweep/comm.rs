//! The communication stream (section 4.1.1): rank 1 sends large messages back to back, a
//! dedicated thread of rank 0 receives them into a buffer bound to the communication NUMA
//! node, and the bandwidth is the message size over the time between two completions.
//!
//! Protocol, all point to point between ranks 0 and 1:
//! - rank 0 sends `STREAM` on `TAG_CTRL`; rank 1 sends `TAG_DATA` messages back to back;
//! - to stop, rank 0 posts a non-blocking `TAG_STOP` send and keeps receiving until rank 1
//!   answers `TAG_END` (rank 1 may be blocked in a rendezvous send that rank 0 must match
//!   first, and nothing guarantees that an 8-byte send is eager);
//! - `SHUTDOWN` on `TAG_CTRL` ends rank 1's loop.
//!
//! The other patterns of Langguth et al. (`--pattern pingpong|ring`) exchange instead: every
//! rank sends to the next and receives from the previous at once (`MPI_Sendrecv`; with two
//! ranks, both are the other rank). To stop, rank 0 sends `TAG_LAST` instead of data; a rank
//! that receives it sends it on once, with no receive, and leaves; rank 0 receives until it
//! comes back round. Every send is matched, whatever the timing.
//!
//! On rank 0 only the communication thread calls MPI while the sweep runs, and the main
//! thread only before and after it: `MPI_THREAD_SERIALIZED` is enough.

use crate::measure::sweep::sampling::{Span, Timings};
use crate::mpi::wire;
use mpi::datatype::Equivalence;
use mpi::point_to_point::{Destination, Source};
use mpi::topology::{Communicator, SimpleCommunicator};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

pub(crate) const TAG_CTRL: i32 = 1;
pub(crate) const TAG_STOP: i32 = 2;
pub(crate) const TAG_DATA: i32 = 3;
pub(crate) const TAG_END: i32 = 4;
pub(crate) const TAG_LAST: i32 = 5;

pub use crate::measure::choices::CommPattern as Pattern;

/// The communicator a measurement runs on, as a plain handle the communication thread can
/// carry: `MPI_COMM_WORLD` for `measure`, a two-rank communicator split from it for each pair
/// of a `survey` round. rsmpi's communicators are not `Send` (Open MPI's handle is a
/// pointer), and a user communicator frees itself when dropped, so the thread borrows it
/// through [`Handle::with`] instead of owning a copy.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Handle(mpi::ffi::MPI_Comm);

// SAFETY: an MPI communicator handle is valid in every thread of the process; the tool
// calls MPI from one thread at a time (MPI_THREAD_SERIALIZED, see the module documentation),
// and the communicator outlives the sweep that uses it (its owner holds it across the call).
unsafe impl Send for Handle {}
// SAFETY: as for Send; the handle itself is never written.
unsafe impl Sync for Handle {}

impl Handle {
    pub(crate) fn of(comm: &SimpleCommunicator) -> Self {
        use mpi::raw::AsRaw;
        Handle(comm.as_raw())
    }

    /// Runs `f` with the communicator, without taking ownership of it.
    pub(crate) fn with<R>(self, f: impl FnOnce(&SimpleCommunicator) -> R) -> R {
        // SAFETY: reads a constant the MPI library exports; nothing writes it.
        if self.0 == unsafe { mpi::ffi::RSMPI_COMM_WORLD } {
            return f(&SimpleCommunicator::world());
        }
        use mpi::raw::FromRaw;
        // SAFETY: the handle came from a live user communicator (`Handle::of`), which its
        // owner keeps alive across this call; ManuallyDrop keeps this borrowed copy from
        // freeing it.
        let comm = std::mem::ManuallyDrop::new(unsafe { SimpleCommunicator::from_raw(self.0) });
        f(&comm)
    }
}

/// `MPI_ANY_TAG`.
fn any_tag() -> i32 {
    // SAFETY: reads a constant the MPI library exports; nothing writes it.
    unsafe { mpi::ffi::RSMPI_ANY_TAG }
}

/// The ranks this one sends to and receives from in an exchange (pingpong or ring).
fn neighbours(
    world: &SimpleCommunicator,
) -> (mpi::topology::Process<'_>, mpi::topology::Process<'_>) {
    let (rank, size) = (world.rank(), world.size());
    (
        world.process_at_rank((rank + 1) % size),
        world.process_at_rank((rank + size - 1) % size),
    )
}

const CMD_STREAM: u64 = 1;
const CMD_SHUTDOWN: u64 = 2;
const CMD_PLACE: u64 = 3;
/// Words of a placement message: the command, the PU, the node, the slots.
const PLACEMENT_WORDS: usize = 4;
/// "No value" in a placement message.
const UNSET: u64 = u64::MAX;

/// Rank 0, before the sweep: tells rank `r` which PU to bind to, on which NUMA node (OS
/// indices) to put its send buffer and how many message slots that buffer has (see
/// [`Slots`]), and returns its report (see [`await_placement`]).
pub(crate) fn place(world: &SimpleCommunicator, r: i32, to: &Placement) -> Vec<u8> {
    let peer = world.process_at_rank(r);
    let opt = |v: Option<u32>| v.map_or(UNSET, u64::from);
    let msg: [u64; PLACEMENT_WORDS] = [CMD_PLACE, opt(to.pu), opt(to.node), u64::from(to.slots)];
    peer.send_with_tag(&msg[..], TAG_CTRL);
    wire::receive::<u8>(&peer, TAG_CTRL)
}

/// Where rank 0 asks a sending rank to run and put its send buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Placement {
    /// PU (OS index) to bind to; `None`: not pinned.
    pub(crate) pu: Option<u32>,
    /// NUMA node (OS index) of the send buffer; `None`: left to the OS.
    pub(crate) node: Option<u32>,
    /// Message slots of the send buffer (at least 1).
    pub(crate) slots: u32,
}

/// Every rank but 0, first thing: the placement rank 0 asks for, or `None` when rank 0 says
/// shut down instead (it failed before the sweep). The rank answers with [`report`].
pub(crate) fn await_placement(world: &SimpleCommunicator) -> Option<Placement> {
    // Four words (a placement) or one (shut down): a receive of the longer, whose status
    // says how many came, needs no probe.
    let mut msg = [UNSET; PLACEMENT_WORDS];
    let status = world
        .process_at_rank(0)
        .receive_into_with_tag(&mut msg[..], TAG_CTRL);
    let msg = &msg[..status
        .count(u64::equivalent_datatype())
        .clamp(0, PLACEMENT_WORDS as i32) as usize];
    let get = |i: usize| {
        msg.get(i)
            .copied()
            .filter(|&v| v != UNSET)
            .and_then(|v| u32::try_from(v).ok())
    };
    (msg.first() == Some(&CMD_PLACE)).then(|| Placement {
        pu: get(1),
        node: get(2),
        slots: get(3).unwrap_or(1).max(1),
    })
}

/// Every rank but 0: sends rank 0 its placement report.
pub(crate) fn report(world: &SimpleCommunicator, bytes: &[u8]) {
    wire::send(&world.process_at_rank(0), TAG_CTRL, bytes);
}

/// The slots of a ring of message buffers, taken in turn: a message received (or sent) again
/// and again from one buffer would stay in the last-level cache once the cache can hold it,
/// and the stream would then measure the cache, not memory (the ring's size is
/// [`crate::measure::sweep::sizing::message_ring`]). A buffer shorter than two messages is one slot.
#[derive(Debug, Clone)]
pub(crate) struct Slots {
    message: usize,
    count: usize,
    next: usize,
}

impl Slots {
    /// The slots of `message` bytes in a buffer of `len` bytes.
    pub(crate) fn new(len: usize, message: usize) -> Self {
        Slots {
            message,
            count: (len / message.max(1)).max(1),
            next: 0,
        }
    }

    /// The byte range of the next slot.
    pub(crate) fn next_slot(&mut self) -> std::ops::Range<usize> {
        let start = self.next * self.message;
        self.next = (self.next + 1) % self.count;
        start..start + self.message
    }
}

/// Every rank but 0: serve streams of `message`-byte messages in `pattern` until rank 0 says
/// shut down, sending from the slots of `send` in turn; `receive` takes what an exchange
/// brings in, in turn too.
pub fn serve(
    world: &SimpleCommunicator,
    pattern: Pattern,
    message: usize,
    send: &[u8],
    receive: &mut [u8],
) {
    let rank0 = world.process_at_rank(0);
    let mut out = Slots::new(send.len(), message);
    loop {
        let (cmd, _) = rank0.receive_with_tag::<u64>(TAG_CTRL);
        if cmd != CMD_STREAM {
            return;
        }
        if pattern != Pattern::Pong {
            exchange(world, message, send, receive);
            continue;
        }
        loop {
            if rank0.immediate_probe_with_tag(TAG_STOP).is_some() {
                let _: (u64, _) = rank0.receive_with_tag(TAG_STOP);
                rank0.send_with_tag(&[0u8; 0][..], TAG_END);
                break;
            }
            rank0.send_with_tag(&send[out.next_slot()], TAG_DATA);
        }
    }
}

/// A rank other than 0 in an exchanging stream: send to the next, receive from the previous,
/// until [`TAG_LAST`] arrives; then pass it on and leave.
fn exchange(world: &SimpleCommunicator, message: usize, send: &[u8], receive: &mut [u8]) {
    let (next, prev) = neighbours(world);
    let (mut out, mut into) = (
        Slots::new(send.len(), message),
        Slots::new(receive.len(), message),
    );
    loop {
        let status = mpi::point_to_point::send_receive_into_with_tags(
            &send[out.next_slot()],
            &next,
            TAG_DATA,
            &mut receive[into.next_slot()],
            &prev,
            any_tag(),
        );
        if status.tag() == TAG_LAST {
            next.send_with_tag(&[0u8; 0][..], TAG_LAST);
            return;
        }
    }
}

/// Rank 0: tell every other rank to stop serving.
pub fn shutdown(world: &SimpleCommunicator) {
    for r in 1..world.size() {
        world
            .process_at_rank(r)
            .send_with_tag(&CMD_SHUTDOWN, TAG_CTRL);
    }
}

/// Rank 0: one stream of `pattern` until `stop` is set, receiving `message`-byte messages
/// into the slots of `buf` in turn (and, exchanging, sending from those of `send`), appending
/// the span of every message received to `timings` (seconds since `t0`) as it completes, so
/// the main thread can watch progress and stability while the stream runs. A message's
/// start is the completion of the previous one (back to back, the receive is posted at
/// once), the first one's the moment the stream was asked for.
#[allow(clippy::too_many_arguments)]
pub fn receive(
    world: &SimpleCommunicator,
    pattern: Pattern,
    message: usize,
    buf: &mut [u8],
    send: &[u8],
    stop: &AtomicBool,
    timings: &Mutex<Timings>,
    t0: Instant,
) {
    if pattern != Pattern::Pong {
        return exchange_rank0(world, message, buf, send, stop, timings, t0);
    }
    let rank1 = world.process_at_rank(1);
    rank1.send_with_tag(&CMD_STREAM, TAG_CTRL);
    let mut into = Slots::new(buf.len(), message);
    let mut last = t0.elapsed().as_secs_f64();
    while !stop.load(Ordering::Relaxed) {
        let status = rank1.receive_into(&mut buf[into.next_slot()]);
        let now = t0.elapsed().as_secs_f64();
        if status.tag() == TAG_DATA {
            lock(timings).push(span(last, now, message));
        }
        last = now;
    }
    // The stop request is sent without blocking: a blocking send may only return once rank
    // 1 has matched it (an MPI library may send even 8 bytes by rendezvous), while rank 1 may
    // itself be blocked in a rendezvous send of data that only our receives below complete.
    let stop_value = 0u64;
    mpi::request::scope(|scope| {
        let request = rank1.immediate_send_with_tag(scope, &stop_value, TAG_STOP);
        while rank1.receive_into(&mut buf[into.next_slot()]).tag() != TAG_END {}
        request.wait();
    });
}

/// One message received between `start` and `end`.
fn span(start: f64, end: f64, message: usize) -> Span {
    Span {
        start,
        end,
        bytes: message as u64,
    }
}

fn exchange_rank0(
    world: &SimpleCommunicator,
    message: usize,
    buf: &mut [u8],
    send: &[u8],
    stop: &AtomicBool,
    timings: &Mutex<Timings>,
    t0: Instant,
) {
    for r in 1..world.size() {
        world
            .process_at_rank(r)
            .send_with_tag(&CMD_STREAM, TAG_CTRL);
    }
    let (next, prev) = neighbours(world);
    let (mut out, mut into) = (
        Slots::new(send.len(), message),
        Slots::new(buf.len(), message),
    );
    let mut last = t0.elapsed().as_secs_f64();
    loop {
        let stopping = stop.load(Ordering::Relaxed);
        let (outgoing, tag) = if stopping {
            (&[][..], TAG_LAST)
        } else {
            (&send[out.next_slot()], TAG_DATA)
        };
        let status = mpi::point_to_point::send_receive_into_with_tags(
            outgoing,
            &next,
            tag,
            &mut buf[into.next_slot()],
            &prev,
            any_tag(),
        );
        let now = t0.elapsed().as_secs_f64();
        if status.tag() == TAG_DATA && !stopping {
            lock(timings).push(span(last, now, message));
        }
        last = now;
        if stopping {
            break;
        }
    }
    while prev.receive_into(&mut buf[into.next_slot()]).tag() != TAG_LAST {}
}

/// Locks a mutex of samples; a poisoned one (a thread panicked) still holds valid samples.
pub fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// What the main thread asks of the communication thread.
pub(crate) enum Command {
    Stream {
        stop: Arc<AtomicBool>,
        /// One lane per stream of the communications: one, or one per GPU of `--gpu all`
        /// (`crate::gpu::OpenCopies::lanes`).
        timings: Arc<Vec<Mutex<Timings>>>,
        t0: Instant,
        /// Cores computing beside the stream in this phase (what a replayed GPU engine
        /// reads, `crate::gpu::replay`).
        computing: usize,
    },
}
