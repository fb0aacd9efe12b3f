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
    /// copy has completed: the span between two returns is one sample.
    fn copy(&mut self, slot: Range<usize>) -> Result<(), String>;
}

/// Several GPUs copying at once, driven from one thread (`--gpu all`): each lane a GPU with
/// at most one copy in flight, asked in turn whether it has completed (`stream_lanes`).
pub trait CopyLanes {
    /// How many GPUs copy.
    fn lanes(&self) -> usize;

    /// Queues the copy of the bytes `slot` on `lane`, which has none in flight, and returns
    /// without waiting for it.
    fn queue(&mut self, lane: usize, slot: Range<usize>) -> Result<(), String>;

    /// Whether `lane`'s copy has completed, without waiting.
    fn done(&mut self, lane: usize) -> Result<bool, String>;

    /// Waits for every copy in flight: the next phase starts with none running.
    fn drain(&mut self) -> Result<(), String>;
}

/// What the copy thread drives: one copy at a time, or several GPUs' at once.
pub enum Copier<'b> {
    Serial(Box<dyn CopyEngine + 'b>),
    Lanes(Box<dyn CopyLanes + 'b>),
}

/// Opens a [`Copier`] over the host buffer, on the thread that will drive it (a CUDA
/// context is current per thread): called once by the copy thread when the sweep starts.
pub trait OpenCopies: Sync {
    /// The engine over `host`, the communication buffer (a ring of message slots), pinned
    /// for the GPU's DMA where the engine needs it.
    fn open<'b>(&self, host: &'b mut [u8]) -> Result<Copier<'b>, String>;

    /// How many lanes its stream has, each timed apart (a lane per GPU): known before it
    /// opens, so the sweep holds their samples apart.
    fn lanes(&self) -> usize {
        1
    }
}

/// The shortest sample of a copy stream, seconds: copies shorter than this (small
/// `--message-size`, or a link faster than 64 GB/s for the default 64 MiB) are grouped back
/// to back until one lasts this long. A copy a sample would otherwise write hundreds of
/// thousands of samples a phase, past what the trace's readers take (64 MiB); at this floor a
/// GPU trace is no larger than an MPI one whose messages come at 50 GB/s
/// (`crate::measure::trace_size`). With `--gpu all` each GPU's samples last as many times
/// this as there are GPUs, so that together they come no faster.
pub const MIN_COPY_SAMPLE: f64 = 1e-3;

/// The copies of one phase until `stop`, each lane's samples appended to its `timings` as
/// they complete (seconds since `t0`): [`stream_one`] or [`stream_lanes`].
#[cfg(feature = "mpi")]
pub(crate) fn stream(
    copier: &mut Copier<'_>,
    slots: &mut crate::measure::sweep::comm::Slots,
    stop: &std::sync::atomic::AtomicBool,
    timings: &[std::sync::Mutex<crate::measure::sweep::sampling::Timings>],
    t0: std::time::Instant,
) -> Result<(), String> {
    match copier {
        Copier::Serial(engine) => stream_one(engine.as_mut(), slots, stop, &timings[0], t0),
        Copier::Lanes(lanes) => stream_lanes(lanes.as_mut(), slots, stop, timings, t0),
    }
}

/// The copies of one phase, back to back until `stop`, each a sample appended to `timings`
/// as it completes (seconds since `t0`), or several in one when shorter than
/// [`MIN_COPY_SAMPLE`]: the GPU's counterpart of the MPI stream's receive loop
/// (`crate::measure::sweep::comm::receive`), taking the ring's slots in turn so the copies
/// touch memory, not the last-level cache.
#[cfg(feature = "mpi")]
pub(crate) fn stream_one(
    engine: &mut dyn CopyEngine,
    slots: &mut crate::measure::sweep::comm::Slots,
    stop: &std::sync::atomic::AtomicBool,
    timings: &std::sync::Mutex<crate::measure::sweep::sampling::Timings>,
    t0: std::time::Instant,
) -> Result<(), String> {
    let mut sample = Lane::new(t0, MIN_COPY_SAMPLE);
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        let slot = slots.next_slot();
        let bytes = slot.len() as u64;
        engine.copy(slot)?;
        sample.completed(bytes, t0, timings);
    }
    Ok(())
}

/// The copies of several GPUs at once until `stop`, from this one thread: each lane takes
/// the ring's next slot as soon as its copy completes, so every copy engine stays busy; each
/// lane's copies are its own samples, back to back from its first copy's start (grouped to
/// [`MIN_COPY_SAMPLE`] times the lanes, so that the trace holds no more samples than one
/// GPU's), in `timings[lane]`. A round of the phase is then
/// the k-th sample of every GPU, their sum the GPUs' bandwidth together, as a round of the
/// computations sums the threads. Every copy completed when it returns.
#[cfg(feature = "mpi")]
pub(crate) fn stream_lanes(
    engine: &mut dyn CopyLanes,
    slots: &mut crate::measure::sweep::comm::Slots,
    stop: &std::sync::atomic::AtomicBool,
    timings: &[std::sync::Mutex<crate::measure::sweep::sampling::Timings>],
    t0: std::time::Instant,
) -> Result<(), String> {
    let n = engine.lanes().min(timings.len());
    let shortest = MIN_COPY_SAMPLE * n as f64;
    let mut lanes: Vec<Lane> = (0..n).map(|_| Lane::new(t0, shortest)).collect();
    // The bytes of the copy each lane has in flight.
    let mut in_flight: Vec<Option<u64>> = vec![None; n];
    let result = (|| {
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            let mut moved = false;
            for lane in 0..n {
                if let Some(bytes) = in_flight[lane] {
                    if !engine.done(lane)? {
                        continue;
                    }
                    lanes[lane].completed(bytes, t0, &timings[lane]);
                }
                let slot = slots.next_slot();
                in_flight[lane] = Some(slot.len() as u64);
                engine.queue(lane, slot)?;
                moved = true;
            }
            if !moved {
                std::thread::yield_now();
            }
        }
        Ok(())
    })();
    // Waited for even after a failed copy: the buffers stay until none is in flight.
    let drained = engine.drain();
    result.and(drained)
}

/// The sample a lane of copies is filling: from its start (the end of the lane's previous
/// sample, or the phase's first copy) to the completion that makes it last at least its
/// shortest sample, seconds.
#[cfg(feature = "mpi")]
struct Lane(crate::measure::sweep::sampling::Span, f64);

#[cfg(feature = "mpi")]
impl Lane {
    fn new(t0: std::time::Instant, shortest: f64) -> Self {
        let sample = crate::measure::sweep::sampling::Span {
            start: t0.elapsed().as_secs_f64(),
            end: 0.0,
            bytes: 0,
        };
        Lane(sample, shortest)
    }

    /// A copy of `bytes` completed now: the sample is closed into `timings` once it lasts.
    fn completed(
        &mut self,
        bytes: u64,
        t0: std::time::Instant,
        timings: &std::sync::Mutex<crate::measure::sweep::sampling::Timings>,
    ) {
        self.0.bytes += bytes;
        let now = t0.elapsed().as_secs_f64();
        if now - self.0.start >= self.1 {
            let sample = crate::measure::sweep::sampling::Span { end: now, ..self.0 };
            crate::measure::sweep::comm::lock(timings).push(sample);
            self.0 = crate::measure::sweep::sampling::Span {
                start: now,
                end: 0.0,
                bytes: 0,
            };
        }
    }
}

#[cfg(all(test, feature = "mpi"))]
mod tests {
    use super::*;
    use crate::gpu::replay::{Recorded, ReplayOpener};
    use crate::measure::sweep::comm::{lock, Slots};
    use crate::measure::sweep::sampling::Timings;
    use crate::trace::CopyDirection;
    use std::sync::atomic::AtomicBool;
    use std::sync::Mutex;
    use std::time::{Duration, Instant};

    /// The stream of `copier` over a ring of `slots` 1 MiB slots into `lanes` lanes, stopped
    /// once every lane has written `samples` samples: each lane's samples.
    fn stream_until(
        copier: &mut Copier<'_>,
        slots: usize,
        lanes: usize,
        samples: usize,
    ) -> Vec<Timings> {
        let mut slots = Slots::new(slots << 20, 1 << 20);
        let stop = AtomicBool::new(false);
        let timings: Vec<Mutex<Timings>> = (0..lanes).map(|_| Mutex::default()).collect();
        let ended = AtomicBool::new(false);
        let result = std::thread::scope(|s| {
            s.spawn(|| {
                while !ended.load(std::sync::atomic::Ordering::Relaxed)
                    && timings.iter().any(|t| lock(t).len() < samples)
                {
                    std::thread::yield_now();
                }
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
            });
            let result = stream(copier, &mut slots, &stop, &timings, Instant::now());
            ended.store(true, std::sync::atomic::Ordering::Relaxed);
            result
        });
        result.unwrap();
        timings
            .into_iter()
            .map(|t| t.into_inner().unwrap())
            .collect()
    }

    /// A replay of `probe` for device to host copies, over `host`.
    fn replay<'b>(probe: &str, host: &'b mut [u8]) -> Copier<'b> {
        let recorded = Recorded::parse(probe, CopyDirection::DeviceToHost).unwrap();
        ReplayOpener(recorded).open(host).unwrap()
    }

    /// An engine whose copies each take at least `0` (a sleep never returns early) and which
    /// records the slots it was given: a replay paces copies on a schedule, so one woken late
    /// returns at once and two copies fall in one sample (seen on a loaded CI machine).
    struct Sleeping(Duration, Vec<Range<usize>>);

    impl CopyEngine for Sleeping {
        fn copy(&mut self, slot: Range<usize>) -> Result<(), String> {
            self.1.push(slot);
            std::thread::sleep(self.0);
            Ok(())
        }
    }

    /// An engine lent to a [`Copier`], so the test reads it afterwards.
    impl<T: CopyEngine> CopyEngine for &mut T {
        fn copy(&mut self, slot: Range<usize>) -> Result<(), String> {
            (**self).copy(slot)
        }
    }

    impl<T: CopyLanes> CopyLanes for &mut T {
        fn lanes(&self) -> usize {
            (**self).lanes()
        }
        fn queue(&mut self, lane: usize, slot: Range<usize>) -> Result<(), String> {
            (**self).queue(lane, slot)
        }
        fn done(&mut self, lane: usize) -> Result<bool, String> {
            (**self).done(lane)
        }
        fn drain(&mut self) -> Result<(), String> {
            (**self).drain()
        }
    }

    /// Back to back: each sample starts where the previous one ended.
    fn back_to_back(spans: &Timings) {
        for pair in spans.windows(2) {
            assert_eq!(pair[0].end, pair[1].start);
        }
    }

    #[test]
    fn a_stream_is_one_sample_per_copy_over_the_slots_in_turn_until_stopped() {
        // Copies of 2 ms, longer than the shortest sample, over a ring of three 1 MiB slots.
        let mut engine = Sleeping(Duration::from_millis(2), Vec::new());
        let spans = stream_until(&mut Copier::Serial(Box::new(&mut engine)), 3, 1, 5).remove(0);
        assert!(spans.len() >= 5, "{}", spans.len());
        back_to_back(&spans);
        assert!(spans.iter().all(|s| s.bytes == 1 << 20 && s.end >= s.start));
        let starts: Vec<usize> = engine.1.iter().map(|s| s.start >> 20).collect();
        assert_eq!(&starts[..5], &[0, 1, 2, 0, 1], "{:?}", engine.1);
    }

    #[test]
    fn copies_shorter_than_the_shortest_sample_are_grouped_into_one() {
        // 1 MiB at 50 GB/s: 21 us a copy, about 48 to a 1 ms sample.
        let mut host = vec![0u8; 2 << 20];
        let mut copier = replay("0 d2h 0 50.0\n1 comp+d2h 10.0 20.0\n", &mut host);
        for s in stream_until(&mut copier, 2, 1, 3).remove(0) {
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
        let e =
            stream_one(&mut Failing(0), &mut slots, &stop, &timings, Instant::now()).unwrap_err();
        assert!(e.contains("CUDA_ERROR_LAUNCH_FAILED"), "{e}");
        // Instant copies: the two that succeeded are still within the shortest sample.
        assert!(timings.into_inner().unwrap().len() <= 2);
    }

    /// GPUs whose copies each take at least their lane's duration from when they are queued,
    /// recording every slot queued (lane, first MiB) in order; a queue on a lane with a copy
    /// in flight is refused, as is a lane asked after `fail_after` completions.
    #[derive(Default)]
    struct Gpus {
        takes: Vec<Duration>,
        due: Vec<Option<Instant>>,
        queued: Vec<(usize, usize)>,
        completed: usize,
        fail_after: Option<usize>,
        drained: usize,
    }

    impl Gpus {
        fn new(takes_ms: &[u64]) -> Self {
            Gpus {
                takes: takes_ms.iter().map(|&m| Duration::from_millis(m)).collect(),
                due: vec![None; takes_ms.len()],
                ..Gpus::default()
            }
        }
    }

    impl CopyLanes for Gpus {
        fn lanes(&self) -> usize {
            self.takes.len()
        }

        fn queue(&mut self, lane: usize, slot: Range<usize>) -> Result<(), String> {
            if self.due[lane].is_some() {
                return Err(format!("GPU {lane}: queued while a copy is in flight"));
            }
            self.due[lane] = Some(Instant::now() + self.takes[lane]);
            self.queued.push((lane, slot.start >> 20));
            Ok(())
        }

        fn done(&mut self, lane: usize) -> Result<bool, String> {
            if self.fail_after == Some(self.completed) {
                return Err(format!("GPU {lane}: CUDA_ERROR_LAUNCH_FAILED"));
            }
            let done = self.due[lane].is_some_and(|d| Instant::now() >= d);
            if done {
                self.due[lane] = None;
                self.completed += 1;
            }
            Ok(done)
        }

        fn drain(&mut self) -> Result<(), String> {
            self.drained += 1;
            self.due.fill(None);
            Ok(())
        }
    }

    #[test]
    fn every_gpu_is_a_lane_of_its_own_samples_fed_the_ring_s_next_slot_as_its_copy_completes() {
        // Two GPUs, copies of 2 and 3 ms (each longer than the shortest sample), over a ring
        // of five 1 MiB slots.
        let mut gpus = Gpus::new(&[2, 3]);
        let lanes = {
            let mut copier = Copier::Lanes(Box::new(&mut gpus));
            stream_until(&mut copier, 5, 2, 5)
        };
        for spans in &lanes {
            assert!(spans.len() >= 5, "{}", spans.len());
            back_to_back(spans);
            // One copy a sample: each lasts at least its lane's copy.
            assert!(spans.iter().all(|s| s.bytes == 1 << 20), "{spans:?}");
        }
        assert!(
            lanes[0].iter().all(|s| s.end - s.start >= 0.002),
            "{:?}",
            lanes[0]
        );
        assert!(
            lanes[1].iter().all(|s| s.end - s.start >= 0.003),
            "{:?}",
            lanes[1]
        );
        // The ring's slots in turn, whichever GPU takes each; both GPUs first, together.
        let slots: Vec<usize> = gpus.queued.iter().map(|&(_, slot)| slot).collect();
        assert!(
            slots.iter().enumerate().all(|(i, &s)| s == i % 5),
            "{slots:?}"
        );
        assert_eq!(gpus.queued[..2], [(0, 0), (1, 1)]);
        assert_eq!(gpus.drained, 1);
    }

    #[test]
    fn many_gpus_group_their_copies_so_that_together_they_sample_no_faster_than_one() {
        // Four GPUs of instant copies: each lane's samples last four shortest samples.
        let mut gpus = Gpus::new(&[0, 0, 0, 0]);
        let lanes = stream_until(&mut Copier::Lanes(Box::new(&mut gpus)), 8, 4, 3);
        for spans in &lanes {
            back_to_back(spans);
            for s in spans {
                assert!(s.end - s.start >= 4.0 * MIN_COPY_SAMPLE, "{s:?}");
                assert!(s.bytes >= 1 << 20 && s.bytes % (1 << 20) == 0, "{s:?}");
            }
        }
    }

    #[test]
    fn a_gpu_s_failed_copy_ends_the_lanes_with_its_words_after_waiting_for_the_others() {
        let mut gpus = Gpus::new(&[0, 0, 0]);
        gpus.fail_after = Some(7);
        let mut slots = Slots::new(4 << 20, 1 << 20);
        let stop = AtomicBool::new(false);
        let timings: Vec<Mutex<Timings>> = (0..3).map(|_| Mutex::default()).collect();
        let e = stream_lanes(&mut gpus, &mut slots, &stop, &timings, Instant::now()).unwrap_err();
        assert!(e.contains("CUDA_ERROR_LAUNCH_FAILED"), "{e}");
        assert_eq!(gpus.drained, 1);
    }
}
