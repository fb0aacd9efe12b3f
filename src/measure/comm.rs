//! The communication stream (section 4.1.1): rank 1 sends large messages back to back, a
//! dedicated thread of rank 0 receives them into a buffer bound to the communication NUMA
//! node, and the bandwidth is the message size over the time between two completions.
//!
//! Protocol, all point to point between ranks 0 and 1:
//! - rank 0 sends `STREAM` on [`TAG_CTRL`]; rank 1 sends [`TAG_DATA`] messages back to back;
//! - to stop, rank 0 sends [`TAG_STOP`] and keeps receiving until rank 1 answers [`TAG_END`]
//!   (rank 1 may be blocked in a rendezvous send that rank 0 must match first);
//! - `SHUTDOWN` on [`TAG_CTRL`] ends rank 1's loop.
//!
//! On rank 0 only the communication thread calls MPI while the sweep runs, and the main
//! thread only before and after it: `MPI_THREAD_SERIALIZED` is enough.

use super::sampling::Timings;
use mpi::point_to_point::{Destination, Source};
use mpi::topology::{Communicator, SimpleCommunicator};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

pub const TAG_CTRL: i32 = 1;
pub const TAG_STOP: i32 = 2;
pub const TAG_DATA: i32 = 3;
pub const TAG_END: i32 = 4;

const CMD_STREAM: u64 = 1;
const CMD_SHUTDOWN: u64 = 2;

/// Rank 1: serve streams of `message` until rank 0 says shut down.
pub fn serve(world: &SimpleCommunicator, message: &[u8]) {
    let rank0 = world.process_at_rank(0);
    loop {
        let (cmd, _) = rank0.receive_with_tag::<u64>(TAG_CTRL);
        if cmd != CMD_STREAM {
            return;
        }
        loop {
            if rank0.immediate_probe_with_tag(TAG_STOP).is_some() {
                let _: (u64, _) = rank0.receive_with_tag(TAG_STOP);
                rank0.send_with_tag(&[0u8; 0][..], TAG_END);
                break;
            }
            rank0.send_with_tag(message, TAG_DATA);
        }
    }
}

/// Rank 0: tell rank 1 to stop serving.
pub fn shutdown(world: &SimpleCommunicator) {
    world
        .process_at_rank(1)
        .send_with_tag(&CMD_SHUTDOWN, TAG_CTRL);
}

/// Rank 0: receive one stream into `buf` until `stop` is set, appending `(start, end)` of
/// every message to `timings` (seconds since `t0`) as it completes, so the main thread can
/// watch progress and stability while the stream runs. A message's start is the completion of
/// the previous one (back to back, the receive is posted at once), the first one's the
/// moment the stream was asked for.
pub fn receive_stream(
    world: &SimpleCommunicator,
    buf: &mut [u8],
    stop: &AtomicBool,
    timings: &Mutex<Timings>,
    t0: Instant,
) {
    let rank1 = world.process_at_rank(1);
    rank1.send_with_tag(&CMD_STREAM, TAG_CTRL);
    let mut last = t0.elapsed().as_secs_f64();
    while !stop.load(Ordering::Relaxed) {
        let status = rank1.receive_into(&mut *buf);
        let now = t0.elapsed().as_secs_f64();
        if status.tag() == TAG_DATA {
            lock(timings).push((last, now));
        }
        last = now;
    }
    rank1.send_with_tag(&0u64, TAG_STOP);
    while rank1.receive_into(&mut *buf).tag() != TAG_END {}
}

/// Locks a mutex of samples; a poisoned one (a thread panicked) still holds valid samples.
pub fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// What the main thread asks of the communication thread.
pub enum Command {
    Stream {
        stop: Arc<AtomicBool>,
        timings: Arc<Mutex<Timings>>,
        t0: Instant,
    },
    Shutdown,
}
