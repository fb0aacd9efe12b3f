//! Stealing bandwidth instead of throttling it, for machines without resctrl: "bandit" threads
//! (Eklov et al.'s Bandwidth Bandit, which Foyer and Goglin cite) run the project's
//! non-temporal store kernel on the cores the measured command does not use, each at a duty
//! cycle, while the command runs. The bandwidth they take is measured, and the level is the
//! share of the machine's peak store bandwidth they leave.
//!
//! This is not throttling: the bandit loads the memory system, so queues fill and the latency
//! of every access grows, where resctrl at levels of 10% and more left the latency alone in
//! the paper's measurements. A latency-bound code (a pointer chase) looks sensitive here and
//! would not under throttling. The bandit also needs cores of its own and heats the package.

use crate::error::{Error, Result};
use crate::kernels::stores::StoreSet;
use crate::machine::memory;
use crate::sys::bind_current_thread;
use hwlocality::memory::binding::Bytes;
use hwlocality::Topology;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Bytes written between two looks at the clock and the stop flag.
const CHUNK: usize = 4 << 20;
/// Period of the duty cycle: on for `duty` of it, asleep for the rest.
const PERIOD: Duration = Duration::from_millis(20);

/// Store threads with their bound, touched buffers, one per core.
pub(crate) struct Bandit<'t> {
    topology: &'t Topology,
    kernel: StoreSet,
    /// `(PU OS index, buffer)`.
    slots: Vec<(u32, Mutex<Bytes<'t>>)>,
}

/// Bytes per second the running threads wrote.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Stolen {
    pub(crate) bytes_per_s: f64,
}

impl<'t> Bandit<'t> {
    /// One buffer of `buffer_bytes` for each of `cores` (PU OS indices).
    pub(crate) fn new(topology: &'t Topology, cores: &[u32], buffer_bytes: usize) -> Result<Self> {
        let slots = cores
            .iter()
            .map(|&pu| {
                Ok((
                    pu,
                    Mutex::new(memory::allocate(topology, buffer_bytes, None)?),
                ))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Bandit {
            topology,
            kernel: StoreSet::detect(),
            slots,
        })
    }

    /// Runs `work` while threads take `load` cores' worth of store bandwidth (`1.5`: one
    /// thread at full speed, one at half duty), and returns its result with what they took.
    pub(crate) fn during<T>(&self, load: f64, work: impl FnOnce() -> T) -> Result<(T, Stolen)> {
        let duties = duties(load, self.slots.len());
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            let handles: Vec<_> = duties
                .iter()
                .zip(&self.slots)
                .map(|(&duty, (pu, buf))| {
                    let stop = &stop;
                    s.spawn(move || -> std::result::Result<(u64, f64), String> {
                        bind_current_thread(self.topology, *pu)?;
                        let mut buf = buf.lock().unwrap_or_else(|p| p.into_inner());
                        Ok(store_loop(self.kernel, &mut buf, duty, stop))
                    })
                })
                .collect();
            let out = work();
            stop.store(true, Ordering::SeqCst);
            let mut rate = 0.0;
            for h in handles {
                let (bytes, secs) = h
                    .join()
                    .map_err(|_| Error::Failed("a bandit thread panicked".into()))?
                    .map_err(Error::Failed)?;
                if secs > 0.0 {
                    rate += bytes as f64 / secs;
                }
            }
            Ok((out, Stolen { bytes_per_s: rate }))
        })
    }

    /// The store bandwidth of every thread at full duty for `time`: the machine's peak, against
    /// which the bandwidth left is reckoned.
    pub(crate) fn peak(&self, time: Duration) -> Result<f64> {
        let (_, stolen) = self.during(self.slots.len() as f64, || std::thread::sleep(time))?;
        Ok(stolen.bytes_per_s)
    }
}

/// Duty cycles of `threads` threads for a total `load`: full threads first, then one partial.
pub(crate) fn duties(load: f64, threads: usize) -> Vec<f64> {
    let load = load.clamp(0.0, threads as f64);
    (0..threads)
        .map(|i| (load - i as f64).clamp(0.0, 1.0))
        .filter(|&d| d > 0.01)
        .collect()
}

/// Stores over `buf` in chunks at `duty` until `stop`; returns bytes written and seconds.
fn store_loop(kernel: StoreSet, buf: &mut Bytes<'_>, duty: f64, stop: &AtomicBool) -> (u64, f64) {
    let len = buf.len();
    let chunk = CHUNK.min(len);
    let on = PERIOD.mul_f64(duty);
    let start = Instant::now();
    let mut bytes = 0u64;
    let mut pos = 0;
    while !stop.load(Ordering::Relaxed) {
        let period = Instant::now();
        while !stop.load(Ordering::Relaxed) && (duty >= 1.0 || period.elapsed() < on) {
            let end = (pos + chunk).min(len);
            kernel.fill(&mut buf[pos..end], 0x5A);
            bytes += StoreSet::written(end - pos) as u64;
            pos = if end == len { 0 } else { end };
        }
        if let Some(rest) = PERIOD.checked_sub(period.elapsed()) {
            if duty < 1.0 && !stop.load(Ordering::Relaxed) {
                std::thread::sleep(rest);
            }
        }
    }
    (bytes, start.elapsed().as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_split_into_full_threads_and_one_partial() {
        assert_eq!(duties(0.0, 3), Vec::<f64>::new());
        assert_eq!(duties(1.0, 3), vec![1.0]);
        assert_eq!(duties(1.5, 3), vec![1.0, 0.5]);
        assert_eq!(duties(9.0, 2), vec![1.0, 1.0]);
    }

    #[test]
    fn a_bandit_thread_steals_bandwidth_and_stops() {
        let t = Topology::new().unwrap();
        let b = Bandit::new(&t, &[0], 16 << 20).unwrap();
        // On a loaded machine the bandit thread may not be scheduled within a short window:
        // give it longer windows before concluding it steals nothing.
        let mut stolen_any = false;
        for ms in [50, 250, 1000, 4000] {
            let (v, stolen) = b
                .during(1.0, || {
                    std::thread::sleep(Duration::from_millis(ms));
                    7
                })
                .unwrap();
            assert_eq!(v, 7);
            if stolen.bytes_per_s > 0.0 {
                stolen_any = true;
                break;
            }
        }
        assert!(stolen_any, "the bandit thread never wrote");
        let (_, none) = b.during(0.0, || ()).unwrap();
        assert_eq!(none.bytes_per_s, 0.0);
    }
}
