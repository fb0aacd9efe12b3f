//! Rank 0's sweep: for each core count, computations alone, communications alone, both in
//! parallel (section 4.1.1, steps 1-3), each phase sampled until its estimate is stable.
//!
//! Threads: a rayon pool of computing threads, each pinned to its own physical core and
//! writing its own buffer; one communication thread pinned to its core, the only thread that
//! calls MPI during the sweep; the main thread watches progress, stability, the watchdog and
//! Ctrl-C, and never touches memory being measured.

use super::comm::Pattern;
use super::comm::{self, lock, Command};
use super::memory;
use super::sampling::{self, Timings};
use super::workload::Workload;
use crate::trace::{Phase, Plan, Sample, ThreadCpus, TracePoint};
use hwlocality::cpu::binding::CpuBindingFlags;
use hwlocality::cpu::cpuset::CpuSet;
use hwlocality::memory::binding::Bytes;
use hwlocality::Topology;
use std::collections::BTreeSet;
use std::mem::take;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How phases are sampled.
#[derive(Debug, Clone, Copy)]
pub struct Sampling {
    /// A phase stops at this many seconds even if not stable (if it has samples).
    pub max_phase: Duration,
    /// Relative half-width of the median's 95% interval at which a stream is stable.
    pub stable_within: f64,
    /// No progress for this long ends the run (a stalled or dead sender).
    pub timeout: Duration,
}

/// Why a sweep ended early.
#[derive(Debug)]
pub enum Abort {
    /// Ctrl-C or SIGTERM.
    Interrupted,
    /// No progress within the timeout. Never returned by [`Bench::sweep`], which ends the
    /// process (the communication thread may be stuck inside MPI).
    Stalled(String),
    /// A failure that leaves MPI usable (binding refused, no samples).
    Failed(String),
}

/// Which streams a phase runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Streams {
    Comp,
    Comm,
    Both,
}

/// Everything the sweep needs, set up once.
pub struct Bench<'t> {
    pub topology: &'t Topology,
    pub plan: &'t Plan,
    pub workload: Workload,
    pub pattern: Pattern,
    /// Bytes each computing thread writes per iteration.
    pub buffer_bytes: usize,
    /// Bytes of one received message.
    pub message_bytes: usize,
    pub bind: bool,
    pub sampling: Sampling,
    pub interrupted: &'t AtomicBool,
    /// Where finished points are saved, for the message if the run stalls.
    pub saved_to: &'t std::path::Path,
    /// The communicator of ranks 0 and 1 (the world for `measure`, a pair's for `survey`).
    pub comm: super::comm::Handle,
}

/// Binds the calling thread to one hardware thread (OS index).
pub fn bind_current_thread(topology: &Topology, pu_os: u32) -> Result<(), String> {
    let mut set = CpuSet::new();
    set.set(pu_os as usize);
    topology
        .bind_cpu(&set, CpuBindingFlags::THREAD | CpuBindingFlags::STRICT)
        .map_err(|e| {
            format!(
                "the OS refused to bind a thread to PU P#{pu_os}: {e}; in a container or a \
                 restricted cpuset, pass --no-bind (the trace records it)"
            )
        })
}

impl Bench<'_> {
    /// Runs `points` (core counts) in order, calling `done` after each finished point (the
    /// caller saves it) and `phase` when a phase starts.
    pub fn sweep(
        &self,
        points: &[u32],
        comm_buffer: &mut Bytes<'_>,
        send_buffer: Option<&mut Bytes<'_>>,
        comp_buffers: Vec<Bytes<'_>>,
        mut phase: impl FnMut(u32, &str),
        mut done: impl FnMut(TracePoint) -> crate::Result<()>,
    ) -> Result<(), Abort> {
        let max_threads = comp_buffers.len();
        let buffers: Vec<Mutex<Bytes<'_>>> = comp_buffers.into_iter().map(Mutex::new).collect();
        let bind_errors = Mutex::new(Vec::new());
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(max_threads)
            .thread_name(|i| format!("compute-{i}"))
            .build()
            .map_err(|e| Abort::Failed(format!("cannot start compute threads: {e}")))?;
        if self.bind {
            pool.broadcast(|ctx| {
                let pu = self.plan.compute[ctx.index()].pu_os;
                if let Err(e) = bind_current_thread(self.topology, pu) {
                    lock(&bind_errors).push(e);
                }
            });
        }
        if let Some(e) = lock(&bind_errors).first() {
            return Err(Abort::Failed(e.clone()));
        }

        // The CPUs each computing thread, and the communication thread, ran on in the
        // current point (`sched_getcpu` after every iteration, and around every stream).
        let comp_cpus: Vec<Mutex<BTreeSet<u32>>> =
            (0..max_threads).map(|_| Mutex::default()).collect();
        let comm_cpus: Mutex<BTreeSet<u32>> = Mutex::default();
        let comm_seen = &comm_cpus;
        let (to_comm, commands) = mpsc::channel::<Command>();
        let (finished, from_comm) = mpsc::channel::<Result<(), String>>();
        std::thread::scope(|s| {
            let comm_thread = std::thread::Builder::new()
                .name("communication".into())
                .spawn_scoped(s, move || {
                    // A process-wide handle; this thread is the only one calling MPI
                    // while the sweep runs (MPI_THREAD_SERIALIZED).
                    let world = self.comm;
                    if self.bind {
                        if let Err(e) = bind_current_thread(self.topology, self.plan.comm.pu_os) {
                            let _ = finished.send(Err(e));
                            return;
                        }
                    }
                    let _ = finished.send(Ok(()));
                    let buf = memory::as_bytes(comm_buffer);
                    let send: &[u8] = match send_buffer {
                        Some(b) => memory::as_bytes(b),
                        None => &[],
                    };
                    let seen = || {
                        if let Some(c) = memory::current_cpu() {
                            lock(comm_seen).insert(c);
                        }
                    };
                    while let Ok(Command::Stream { stop, timings, t0 }) = commands.recv() {
                        seen();
                        world.with(|w| {
                            comm::receive(w, self.pattern, buf, send, &stop, &timings, t0)
                        });
                        seen();
                        let _ = finished.send(Ok(()));
                    }
                })
                .map_err(|e| {
                    Abort::Failed(format!("cannot start the communication thread: {e}"))
                })?;
            let ready = from_comm
                .recv()
                .unwrap_or_else(|_| Err("communication thread ended".into()));
            let result = ready.map_err(Abort::Failed).and_then(|()| {
                for &n in points {
                    for set in comp_cpus.iter().chain([&comm_cpus]) {
                        lock(set).clear();
                    }
                    let ctx = PhaseCtx {
                        bench: self,
                        pool: &pool,
                        buffers: &buffers,
                        cpus: &comp_cpus,
                        to_comm: &to_comm,
                        from_comm: &from_comm,
                        n: n as usize,
                    };
                    let t0 = Instant::now();
                    phase(n, "computations alone");
                    let (comp_alone, _) = ctx.run(Streams::Comp, t0)?;
                    phase(n, "communications alone");
                    let (_, comm_alone) = ctx.run(Streams::Comm, t0)?;
                    phase(n, "both in parallel");
                    let (comp_parallel, comm_parallel) = ctx.run(Streams::Both, t0)?;
                    let ran_on = self.ran_on(n as usize, &comp_cpus, &comm_cpus);
                    if self.bind {
                        check_cpus(&ran_on).map_err(Abort::Failed)?;
                    }
                    done(TracePoint {
                        ran_on,
                        cores: n,
                        comp_alone: comp_alone.expect("computations ran"),
                        comm_alone: comm_alone.expect("communications ran"),
                        comp_parallel: comp_parallel.expect("computations ran"),
                        comm_parallel: comm_parallel.expect("communications ran"),
                    })
                    .map_err(|e| Abort::Failed(e.to_string()))?;
                }
                Ok(())
            });
            if let Err(Abort::Stalled(why)) = &result {
                // The communication thread may be blocked inside MPI for good: this scope
                // would wait for it forever, and neither telling rank 1 to stop nor
                // finalizing MPI can be trusted to return. Report and leave now; the
                // launcher then ends rank 1. Every finished point is already on disk.
                eprintln!(
                    "error: stalled: {why}; finished points are saved in {}; continue with \
                     --resume",
                    self.saved_to.display()
                );
                std::process::exit(crate::error::EXIT_FAILURE);
            }
            drop(to_comm);
            let _ = comm_thread.join();
            result
        })
    }
}

impl Bench<'_> {
    /// What the threads of an `n`-core point ran on, computing threads first.
    fn ran_on(
        &self,
        n: usize,
        comp: &[Mutex<BTreeSet<u32>>],
        comm: &Mutex<BTreeSet<u32>>,
    ) -> Vec<ThreadCpus> {
        let bound = |pu: u32| self.bind.then_some(pu);
        let mut threads: Vec<ThreadCpus> = comp[..n]
            .iter()
            .enumerate()
            .map(|(i, set)| ThreadCpus {
                thread: format!("computation {i}"),
                bound_to: bound(self.plan.compute[i].pu_os),
                ran_on: lock(set).iter().copied().collect(),
            })
            .collect();
        threads.push(ThreadCpus {
            thread: "communication".into(),
            bound_to: bound(self.plan.comm.pu_os),
            ran_on: lock(comm).iter().copied().collect(),
        });
        threads
    }
}

/// Checks that every bound thread ran only on its PU: the binding is verified, not assumed
/// (a cgroup or another tool can move a thread after it bound itself).
pub fn check_cpus(threads: &[ThreadCpus]) -> Result<(), String> {
    for t in threads {
        let Some(pu) = t.bound_to else { continue };
        let strays: Vec<String> = t
            .ran_on
            .iter()
            .filter(|&&c| c != pu)
            .map(u32::to_string)
            .collect();
        if !strays.is_empty() {
            return Err(format!(
                "the {} thread was bound to PU P#{pu} but ran on CPU {}: something moved it \
                 (a cgroup, a tool like taskset, or the batch system's own binding); start \
                 the job with binding off (`--bind-to none`, `--cpu-bind=none`), or pass \
                 --no-bind to measure anyway (the trace records where threads ran)",
                t.thread,
                strays.join(", ")
            ));
        }
    }
    Ok(())
}

struct PhaseCtx<'a, 'b, 't> {
    bench: &'a Bench<'t>,
    pool: &'a rayon::ThreadPool,
    buffers: &'a [Mutex<Bytes<'b>>],
    cpus: &'a [Mutex<BTreeSet<u32>>],
    to_comm: &'a mpsc::Sender<Command>,
    from_comm: &'a mpsc::Receiver<Result<(), String>>,
    n: usize,
}

/// What a phase observed, as it would be kept if it stopped now.
struct Observed {
    window: (f64, f64),
    comp: Vec<Sample>,
    comm: Vec<Sample>,
}

impl PhaseCtx<'_, '_, '_> {
    fn run(&self, streams: Streams, t0: Instant) -> Result<(Option<Phase>, Option<Phase>), Abort> {
        let b = self.bench;
        let comp_on = streams != Streams::Comm;
        let comm_on = streams != Streams::Comp;
        let stop = Arc::new(AtomicBool::new(false));
        let comp_timings: Vec<Mutex<Timings>> = (0..self.n).map(|_| Mutex::default()).collect();
        let comm_timings = Arc::new(Mutex::new(Timings::new()));
        let start = Instant::now();
        let bytes_comp = b.workload.bytes_per_pass(b.buffer_bytes) as u64;
        let message = b.message_bytes as u64;

        if comm_on {
            self.to_comm
                .send(Command::Stream {
                    stop: Arc::clone(&stop),
                    timings: Arc::clone(&comm_timings),
                    t0,
                })
                .map_err(|_| Abort::Failed("the communication thread ended".into()))?;
        }
        let outcome = std::thread::scope(|s| {
            let compute = comp_on.then(|| {
                let (stop, timings, buffers, n) = (&stop, &comp_timings, self.buffers, self.n);
                let cpus = self.cpus;
                let workload = b.workload;
                let pool = self.pool;
                s.spawn(move || {
                    pool.broadcast(|ctx| {
                        let i = ctx.index();
                        if i >= n {
                            return;
                        }
                        let mut buf = lock(&buffers[i]);
                        let mut value = 1u8;
                        while !stop.load(Ordering::Relaxed) {
                            let s = t0.elapsed().as_secs_f64();
                            workload.run(memory::as_bytes(&mut buf), value);
                            let e = t0.elapsed().as_secs_f64();
                            lock(&timings[i]).push((s, e));
                            if let Some(c) = memory::current_cpu() {
                                lock(&cpus[i]).insert(c);
                            }
                            value = value.wrapping_add(1);
                        }
                    })
                })
            });
            let result = self.watch(
                streams,
                start,
                &comp_timings,
                &comm_timings,
                bytes_comp,
                message,
            );
            stop.store(true, Ordering::Relaxed);
            if let Some(h) = compute {
                let _ = h.join();
            }
            result
        });
        let stop_reason = outcome?;
        if comm_on {
            match self.from_comm.recv_timeout(b.sampling.timeout) {
                Ok(Ok(())) => {}
                Ok(Err(e)) => return Err(Abort::Failed(e)),
                Err(_) => {
                    return Err(Abort::Stalled(format!(
                        "the sender did not acknowledge the end of a stream within {} s",
                        b.sampling.timeout.as_secs_f64()
                    )))
                }
            }
        }
        // Every stream has stopped: the timings are final and no longer shared.
        let comp_t: Vec<Timings> = comp_timings.iter().map(|m| take(&mut *lock(m))).collect();
        let comm_t = vec![take(&mut *lock(&comm_timings))];
        let obs = observe(streams, &comp_t, &comm_t, bytes_comp, message).ok_or_else(|| {
            Abort::Failed(format!(
                "{} cores, {}: no steady-state sample within the phase; raise --max-phase or \
                 lower --buffer-size / --message-size",
                self.n,
                phase_name(streams)
            ))
        })?;
        let record = |samples: Vec<Sample>, threads: &[Timings]| {
            let total: usize = threads.iter().map(Vec::len).sum();
            let rounds = sampling::rounds(&samples, threads.len());
            let note = sampling::describe(
                obs.window,
                &rounds,
                threads.len(),
                total - samples.len(),
                &stop_reason,
            );
            sampling::phase(samples, threads.len(), note, b.sampling.stable_within)
        };
        let comp = comp_on.then(|| record(obs.comp, &comp_t));
        let comm = comm_on.then(|| record(obs.comm, &comm_t));
        Ok((comp, comm))
    }

    /// Waits until every running stream is stable (or the phase limit is reached with
    /// samples), watching for Ctrl-C and stalls. Returns why it stopped.
    fn watch(
        &self,
        streams: Streams,
        start: Instant,
        comp: &[Mutex<Timings>],
        comm: &Mutex<Timings>,
        bytes_comp: u64,
        message: u64,
    ) -> Result<String, Abort> {
        let b = self.bench;
        let tol = b.sampling.stable_within;
        // Progress of each running stream (completed iterations, when it last grew): one
        // stream stalling must not hide behind the other's progress.
        let mut progress = [(0usize, Instant::now()); 2];
        loop {
            std::thread::sleep(Duration::from_millis(20));
            if b.interrupted.load(Ordering::Relaxed) {
                return Err(Abort::Interrupted);
            }
            let comp_t: Vec<Timings> = comp.iter().map(|m| lock(m).clone()).collect();
            let comm_t = vec![lock(comm).clone()];
            let counts = [
                (
                    streams != Streams::Comm,
                    comp_t.iter().map(Vec::len).sum::<usize>(),
                    "computing threads",
                ),
                (streams != Streams::Comp, comm_t[0].len(), "sender (rank 1)"),
            ];
            for (i, &(running, count, who)) in counts.iter().enumerate() {
                if !running || count != progress[i].0 {
                    progress[i] = (count, Instant::now());
                } else if progress[i].1.elapsed() > b.sampling.timeout {
                    return Err(Abort::Stalled(format!(
                        "{} cores, {}: nothing completed by the {who} for {:.0} s (is rank 1 \
                         alive? see --timeout)",
                        self.n,
                        phase_name(streams),
                        b.sampling.timeout.as_secs_f64()
                    )));
                }
            }
            let Some(obs) = observe(streams, &comp_t, &comm_t, bytes_comp, message) else {
                continue;
            };
            let stable = |samples: &[Sample], threads| {
                samples.is_empty() || sampling::is_stable(&sampling::rounds(samples, threads), tol)
            };
            let elapsed = start.elapsed();
            if stable(&obs.comp, self.n) && stable(&obs.comm, 1) {
                return Ok(format!(
                    "stable within +-{:.1}% after {:.2} s",
                    100.0 * tol,
                    elapsed.as_secs_f64()
                ));
            }
            if elapsed >= b.sampling.max_phase {
                return Ok(format!(
                    "phase limit of {:.1} s reached before +-{:.1}% stability",
                    b.sampling.max_phase.as_secs_f64(),
                    100.0 * tol
                ));
            }
        }
    }
}

fn phase_name(streams: Streams) -> &'static str {
    match streams {
        Streams::Comp => "computations alone",
        Streams::Comm => "communications alone",
        Streams::Both => "both in parallel",
    }
}

/// The steady window and kept samples of a phase, or `None` while some running stream has no
/// steady sample (or, in parallel, the two streams' windows do not overlap).
fn observe(
    streams: Streams,
    comp: &[Timings],
    comm: &[Timings],
    bytes_comp: u64,
    message: u64,
) -> Option<Observed> {
    let window = match streams {
        Streams::Comp => sampling::steady_window(comp)?,
        Streams::Comm => sampling::steady_window(comm)?,
        Streams::Both => sampling::overlap(
            sampling::steady_window(comp)?,
            sampling::steady_window(comm)?,
        )?,
    };
    let comp_samples = if streams == Streams::Comm {
        Vec::new()
    } else {
        sampling::samples_in(comp, bytes_comp, window)
    };
    let comm_samples = if streams == Streams::Comp {
        Vec::new()
    } else {
        sampling::samples_in(comm, message, window)
    };
    let comp_ok =
        streams == Streams::Comm || !sampling::rounds(&comp_samples, comp.len()).is_empty();
    let comm_ok = streams == Streams::Comp || !comm_samples.is_empty();
    (comp_ok && comm_ok).then_some(Observed {
        window,
        comp: comp_samples,
        comm: comm_samples,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_seen_off_its_pu_is_named() {
        let t = |name: &str, bound: Option<u32>, ran: &[u32]| ThreadCpus {
            thread: name.into(),
            bound_to: bound,
            ran_on: ran.to_vec(),
        };
        assert!(check_cpus(&[t("computation 0", Some(2), &[2]), t("x", None, &[0, 5])]).is_ok());
        let e = check_cpus(&[
            t("computation 0", Some(2), &[2]),
            t("communication", Some(7), &[7, 3]),
        ])
        .unwrap_err();
        assert!(
            e.contains("communication thread") && e.contains("P#7") && e.contains("CPU 3"),
            "{e}"
        );
        assert!(e.contains("--no-bind"), "{e}");
    }
}
