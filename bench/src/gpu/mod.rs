//! The GPU copy engine (`measure --engine gpu`): a GPU's copy engines as the communication
//! stream. They move bytes over PCIe between the GPU and pinned host memory by DMA, no CPU
//! core copying: the traffic the paper's model was made for (Denis, Jeannot and Swartvagher,
//! section 2: a network card's DMA writing received data while cores compute), and the one
//! DMA engine of most new HPC nodes. One process, no MPI job: the sweep, its phases, stop
//! rules, runs, resume, trace and CSV are the MPI stream's (`crate::measure::sweep`), with a
//! copy thread issuing copies where the communication thread received messages.
//!
//! - [`CopyEngine`]: one copy, whatever does it, and [`OpenCopies`], which opens one on the
//!   copy thread over the communication buffer; `stream`: the copies of one phase back to
//!   back, one sample each.
//! - `cuda`: the real engine, the CUDA driver API loaded at run time (the `mpi` feature,
//!   the benchmark on a real node): a binary built without CUDA runs it where a driver is;
//!   one GPU's copies, or every GPU's at once from the one copy thread (`--gpu all`);
//!   [`copies_alone`]: its copies alone against the plain loop of the reference probe, for
//!   `benches/gpu_copy.rs`.
//! - [`replay`]: an engine that replays a GPU node's recorded bandwidths: the seam that runs
//!   the whole path (sweep, trace, calibration) on a machine without a GPU.
//! - [`link`]: what sysfs says of the GPU: its PCIe link as trained, the driver's version.

#[cfg(feature = "mpi")]
pub(crate) mod cuda;
#[cfg(feature = "mpi")]
pub use cuda::{copies_alone, HostMemory};
pub mod link;
pub mod replay;

use std::ops::Range;

/// Something that copies between the communication buffer (pinned host memory) and a GPU,
/// one copy at a time: the real driver, or a replay of recorded bandwidths.
pub trait CopyEngine {
    /// Told before each phase how many cores compute beside the copies. The real engine has
    /// nothing to do with it; a replay picks the bandwidth recorded with that many.
    fn phase(&mut self, computing: usize) {
        let _ = computing;
    }

    /// Copies the bytes `slot` of the host buffer to or from the GPU, and returns once the
    /// copy has completed: the span between two returns is one sample. An engine of several
    /// GPUs returns once the copy is queued and one of its GPUs has completed a copy.
    fn copy(&mut self, slot: Range<usize>) -> Result<(), String>;

    /// Waits for the copies still in flight, at the end of a phase: the next phase starts
    /// with none running (the computations alone measured alone). Nothing to wait for where
    /// `copy` returns each copy completed.
    fn drain(&mut self) -> Result<(), String> {
        Ok(())
    }
}

/// Opens a [`CopyEngine`] over the host buffer, on the thread that will drive it (a CUDA
/// context is current per thread): called once by the copy thread when the sweep starts.
pub trait OpenCopies: Sync {
    /// The engine over `host`, the communication buffer (a ring of message slots), pinned
    /// for the GPU's DMA where the engine needs it.
    fn open<'b>(&self, host: &'b mut [u8]) -> Result<Box<dyn CopyEngine + 'b>, String>;
}

/// The shortest sample of a copy stream, seconds: copies shorter than this (small
/// `--message-size`, or a link faster than 64 GB/s for the default 64 MiB) are grouped back
/// to back until one lasts this long. A copy a sample would otherwise write hundreds of
/// thousands of samples a phase, past what the trace's readers take (64 MiB); at this floor a
/// GPU trace is no larger than an MPI one whose messages come at 50 GB/s
/// (`crate::measure::trace_size`).
pub const MIN_COPY_SAMPLE: f64 = 1e-3;

/// The copies of one phase, back to back until `stop`, each a sample appended to `timings`
/// as it completes (seconds since `t0`), or several in one when shorter than
/// [`MIN_COPY_SAMPLE`]: the GPU's counterpart of the MPI stream's receive loop
/// (`crate::measure::sweep::comm::receive`), taking the ring's slots in turn so the copies
/// touch memory, not the last-level cache.
#[cfg(feature = "mpi")]
pub(crate) fn stream(
    engine: &mut dyn CopyEngine,
    slots: &mut crate::measure::sweep::comm::Slots,
    stop: &std::sync::atomic::AtomicBool,
    timings: &std::sync::Mutex<crate::measure::sweep::sampling::Timings>,
    t0: std::time::Instant,
) -> Result<(), String> {
    use crate::measure::sweep::sampling::Span;
    let mut sample = Span {
        start: t0.elapsed().as_secs_f64(),
        end: 0.0,
        bytes: 0,
    };
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        let slot = slots.next_slot();
        sample.bytes += slot.len() as u64;
        engine.copy(slot)?;
        let now = t0.elapsed().as_secs_f64();
        if now - sample.start >= MIN_COPY_SAMPLE {
            crate::measure::sweep::comm::lock(timings).push(Span { end: now, ..sample });
            sample = Span {
                start: now,
                end: 0.0,
                bytes: 0,
            };
        }
    }
    engine.drain()
}

#[cfg(all(test, feature = "mpi"))]
mod tests {
    use super::*;
    use crate::gpu::replay::{Recorded, ReplayOpener};
    use crate::measure::sweep::comm::Slots;
    use crate::measure::sweep::sampling::Timings;
    use crate::trace::CopyDirection;
    use std::sync::atomic::AtomicBool;
    use std::sync::Mutex;

    /// The stream of `engine` over a ring of `slots` 1 MiB slots, stopped once it has written
    /// `samples` samples: its samples.
    fn stream_until(engine: &mut dyn CopyEngine, slots: usize, samples: usize) -> Timings {
        let mut slots = Slots::new(slots << 20, 1 << 20);
        let (stop, timings) = (AtomicBool::new(false), Mutex::new(Timings::new()));
        std::thread::scope(|s| {
            s.spawn(|| {
                while crate::measure::sweep::comm::lock(&timings).len() < samples {
                    std::thread::yield_now();
                }
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
            });
            stream(
                engine,
                &mut slots,
                &stop,
                &timings,
                std::time::Instant::now(),
            )
            .unwrap();
        });
        timings.into_inner().unwrap()
    }

    /// A replay of `probe` for device to host copies, over `host`.
    fn replay<'b>(probe: &str, host: &'b mut [u8]) -> Box<dyn CopyEngine + 'b> {
        let recorded = Recorded::parse(probe, CopyDirection::DeviceToHost).unwrap();
        ReplayOpener(recorded).open(host).unwrap()
    }

    /// An engine whose copies each take at least `0` (a sleep never returns early) and which
    /// records the slots it was given: a replay paces copies on a schedule, so one woken late
    /// returns at once and two copies fall in one sample (seen on a loaded CI machine).
    struct Sleeping(std::time::Duration, Vec<Range<usize>>);

    impl CopyEngine for Sleeping {
        fn copy(&mut self, slot: Range<usize>) -> Result<(), String> {
            self.1.push(slot);
            std::thread::sleep(self.0);
            Ok(())
        }
    }

    #[test]
    fn a_stream_is_one_sample_per_copy_over_the_slots_in_turn_until_stopped() {
        // Copies of 2 ms, longer than the shortest sample, over a ring of three 1 MiB slots.
        let mut engine = Sleeping(std::time::Duration::from_millis(2), Vec::new());
        let spans = stream_until(&mut engine, 3, 5);
        assert!(spans.len() >= 5, "{}", spans.len());
        for pair in spans.windows(2) {
            // Back to back: each copy starts where the previous one ended.
            assert_eq!(pair[0].end, pair[1].start);
        }
        assert!(spans.iter().all(|s| s.bytes == 1 << 20 && s.end >= s.start));
        let starts: Vec<usize> = engine.1.iter().map(|s| s.start >> 20).collect();
        assert_eq!(&starts[..5], &[0, 1, 2, 0, 1], "{:?}", engine.1);
    }

    #[test]
    fn copies_shorter_than_the_shortest_sample_are_grouped_into_one() {
        // 1 MiB at 50 GB/s: 21 us a copy, about 48 to a 1 ms sample.
        let mut host = vec![0u8; 2 << 20];
        let mut engine = replay("0 d2h 0 50.0\n1 comp+d2h 10.0 20.0\n", &mut host);
        for s in stream_until(engine.as_mut(), 2, 3) {
            assert!(s.end - s.start >= MIN_COPY_SAMPLE, "{s:?}");
            assert!(s.bytes >= 1 << 20 && s.bytes % (1 << 20) == 0, "{s:?}");
        }
    }

    /// An engine whose third copy fails, as a driver error would.
    struct Failing(u32);

    impl CopyEngine for Failing {
        fn copy(&mut self, _: Range<usize>) -> Result<(), String> {
            self.0 += 1;
            if self.0 == 3 {
                Err("cuMemcpyAsync failed: CUDA_ERROR_LAUNCH_FAILED".into())
            } else {
                Ok(())
            }
        }
    }

    #[test]
    fn a_failed_copy_ends_the_stream_with_the_driver_s_words() {
        let mut slots = Slots::new(4, 1);
        let (stop, timings) = (AtomicBool::new(false), Mutex::new(Timings::new()));
        let e = stream(
            &mut Failing(0),
            &mut slots,
            &stop,
            &timings,
            std::time::Instant::now(),
        )
        .unwrap_err();
        assert!(e.contains("CUDA_ERROR_LAUNCH_FAILED"), "{e}");
        // Instant copies: the two that succeeded are still within the shortest sample.
        assert!(timings.into_inner().unwrap().len() <= 2);
    }
}
