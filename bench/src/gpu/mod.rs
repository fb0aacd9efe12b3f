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
//!   the benchmark on a real node): a binary built without CUDA runs it where a driver is.
//! - [`replay`]: an engine that replays a GPU node's recorded bandwidths: the seam that runs
//!   the whole path (sweep, trace, calibration) on a machine without a GPU.
//! - [`link`]: what sysfs says of the GPU: its PCIe link as trained, the driver's version.

#[cfg(feature = "mpi")]
pub(crate) mod cuda;
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
    /// copy has completed: the span between two returns is one sample.
    fn copy(&mut self, slot: Range<usize>) -> Result<(), String>;
}

/// Opens a [`CopyEngine`] over the host buffer, on the thread that will drive it (a CUDA
/// context is current per thread): called once by the copy thread when the sweep starts.
pub trait OpenCopies: Sync {
    /// The engine over `host`, the communication buffer (a ring of message slots), pinned
    /// for the GPU's DMA where the engine needs it.
    fn open<'b>(&self, host: &'b mut [u8]) -> Result<Box<dyn CopyEngine + 'b>, String>;
}

/// The copies of one phase, back to back until `stop`, each a sample appended to `timings`
/// as it completes (seconds since `t0`): the GPU's counterpart of the MPI stream's receive
/// loop (`crate::measure::sweep::comm::receive`), taking the ring's slots in turn so the
/// copies touch memory, not the last-level cache.
#[cfg(feature = "mpi")]
pub(crate) fn stream(
    engine: &mut dyn CopyEngine,
    slots: &mut crate::measure::sweep::comm::Slots,
    stop: &std::sync::atomic::AtomicBool,
    timings: &std::sync::Mutex<crate::measure::sweep::sampling::Timings>,
    t0: std::time::Instant,
) -> Result<(), String> {
    use crate::measure::sweep::sampling::Span;
    let mut last = t0.elapsed().as_secs_f64();
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        let slot = slots.next_slot();
        let bytes = slot.len() as u64;
        engine.copy(slot)?;
        let now = t0.elapsed().as_secs_f64();
        crate::measure::sweep::comm::lock(timings).push(Span {
            start: last,
            end: now,
            bytes,
        });
        last = now;
    }
    Ok(())
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

    #[test]
    fn a_stream_is_one_sample_per_copy_over_the_slots_in_turn_until_stopped() {
        let recorded = Recorded::parse(
            "0 d2h 0 50.0\n1 comp+d2h 10.0 20.0\n",
            CopyDirection::DeviceToHost,
        )
        .unwrap();
        let mut host = vec![0u8; 3 << 20];
        let opener = ReplayOpener(recorded);
        let mut engine = opener.open(&mut host).unwrap();
        engine.phase(1);
        let mut slots = Slots::new(3 << 20, 1 << 20);
        let (stop, timings) = (AtomicBool::new(false), Mutex::new(Timings::new()));
        let t0 = std::time::Instant::now();
        std::thread::scope(|s| {
            s.spawn(|| {
                while crate::measure::sweep::comm::lock(&timings).len() < 5 {
                    std::thread::yield_now();
                }
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
            });
            stream(engine.as_mut(), &mut slots, &stop, &timings, t0).unwrap();
        });
        let spans = timings.into_inner().unwrap();
        assert!(spans.len() >= 5, "{}", spans.len());
        for pair in spans.windows(2) {
            // Back to back: each copy starts where the previous one ended.
            assert_eq!(pair[0].end, pair[1].start);
        }
        assert!(spans.iter().all(|s| s.bytes == 1 << 20 && s.end >= s.start));
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
        assert_eq!(timings.into_inner().unwrap().len(), 2);
    }
}
