//! Rank 0's sweep: for each core count, computations alone, communications alone, both in
//! parallel (section 4.1.1, steps 1-3), each phase sampled until its estimate is stable.
//!
//! Threads: a rayon pool of computing threads, each pinned to its own physical core and
//! writing its own buffer; one communication thread pinned to its core, the only thread that
//! calls MPI during the sweep; the main thread watches progress, stability, the watchdog and
//! Ctrl-C, and never touches memory being measured.
//!
//! The sweep's decisions (phase order, when a phase stops, what a point records) are
//! [`super::rules`]'s: its `Rules` drive an `Executor`, which here is `Threads` (the threads
//! above, MPI included).

use crate::kernels::workload::Workload;
use crate::machine::memory;
use crate::measure::sweep::comm::Pattern;
use crate::measure::sweep::comm::{self, lock, Command};
use crate::measure::sweep::sampling::{Span, Timings};
use crate::sys::{bind_current_thread, current_cpu};
use crate::trace::{Plan, TracePoint};
use hwlocality::memory::binding::Bytes;
use hwlocality::Topology;
use std::collections::BTreeSet;
use std::mem::take;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::measure::sweep::rules::{
    watch_every_look, Abort, Executor, Rules, Sampling, Snapshot, Starvation, Streams, Verdict,
    LOOK,
};

/// What moves the communication stream's bytes: MPI messages from rank 1, or a GPU's copies.
#[derive(Clone, Copy)]
pub(crate) enum CommStream<'t> {
    /// The communicator of ranks 0 and 1 (the world for `measure`, a pair's for `survey`).
    Mpi(crate::measure::sweep::comm::Handle),
    /// The copies a GPU's copy engines make to and from the communication buffer
    /// (`measure --engine gpu`), opened on the copy thread.
    Copies(&'t dyn crate::gpu::OpenCopies),
}

/// Everything the sweep needs, set up once.
pub(crate) struct Bench<'t> {
    pub(crate) topology: &'t Topology,
    pub(crate) plan: &'t Plan,
    pub(crate) workload: Workload,
    pub(crate) pattern: Pattern,
    /// Bytes a computing thread writes between two looks at the clock: its buffer is walked
    /// in chunks of this size ([`crate::measure::sweep::sizing::chunk_bytes`]).
    pub(crate) chunk_bytes: usize,
    /// A computing thread closes a sample at the first chunk boundary after this many
    /// seconds ([`crate::measure::sweep::sizing::sample_seconds`]).
    pub(crate) sample_seconds: f64,
    /// Bytes of one received message (the receive buffer is a ring of such slots).
    pub(crate) message_bytes: usize,
    pub(crate) bind: bool,
    pub(crate) sampling: Sampling,
    pub(crate) interrupted: &'t AtomicBool,
    /// Where finished points are saved, for the message if the run stalls.
    pub(crate) saved_to: &'t std::path::Path,
    /// What follows `--resume` in the command that continues the trace
    /// (`crate::measure::session::Rank0::again`).
    pub(crate) again: &'t str,
    /// What moves the communication stream's bytes.
    pub(crate) stream: CommStream<'t>,
    /// What tells starved communications, and what to say of them.
    pub(crate) starvation: Starvation,
}

impl Bench<'_> {
    /// Runs the core counts `next` gives, one after the other until it gives none (asked
    /// again after each finished point), calling `done` after each finished point (the
    /// caller saves it) and `phase` when a phase starts. Rank 1 serves every stream rank 0
    /// asks for until the sweep's end, whatever the points.
    pub(crate) fn sweep(
        &self,
        next: impl FnMut() -> Option<u32>,
        comm_buffer: &mut Bytes<'_>,
        send_buffer: Option<&mut Bytes<'_>>,
        comp_buffers: Vec<Bytes<'_>>,
        mut phase: impl FnMut(u32, &str),
        mut done: impl FnMut(TracePoint) -> crate::Result<()>,
    ) -> Result<(), Abort> {
        let max_threads = comp_buffers.len();
        let buffers: Vec<Mutex<Bytes<'_>>> = comp_buffers.into_iter().map(Mutex::new).collect();
        let pool = self.compute_pool(max_threads)?;

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
                    self.communicate(comm_buffer, send_buffer, &commands, &finished, comm_seen)
                })
                .map_err(|e| {
                    Abort::Failed(format!("cannot start the communication thread: {e}"))
                })?;
            let ready = from_comm
                .recv()
                .unwrap_or_else(|_| Err("communication thread ended".into()));
            let result = ready.map_err(Abort::Failed).and_then(|()| {
                let mut threads = Threads {
                    bench: self,
                    pool: &pool,
                    buffers: &buffers,
                    cpus: &comp_cpus,
                    comm_cpus: &comm_cpus,
                    to_comm: &to_comm,
                    from_comm: &from_comm,
                };
                self.rules()
                    .chosen(&mut threads, next, &mut phase, &mut done)
            });
            if let Err(Abort::Stalled(why)) = &result {
                // The communication thread may be blocked inside MPI for good: this scope
                // would wait for it forever, and neither telling rank 1 to stop nor
                // finalizing MPI can be trusted to return. Report and leave now; the
                // launcher then ends rank 1. Every finished point is already on disk.
                eprintln!(
                    "error: stalled: {why}; finished points are saved in {}; continue with \
                     --resume{}",
                    crate::error::shown_path(self.saved_to),
                    self.again
                );
                std::process::exit(crate::error::EXIT_FAILURE);
            }
            // The thread's channel closed: it leaves once its stream has stopped.
            drop(to_comm);
            if let Err(Abort::Interrupted) = &result {
                // Stopped between two messages or copies; one that never ends (a GPU copy
                // hung in the driver, a receive from a sender that died) would hold the
                // join below for good, and Ctrl-C must end the run: wait a stall's time.
                let waited = Instant::now();
                while !comm_thread.is_finished() && waited.elapsed() < self.sampling.timeout {
                    std::thread::sleep(LOOK);
                }
                if !comm_thread.is_finished() {
                    eprintln!(
                        "error: interrupted; the communication stream did not stop within {} \
                         s (a copy or receive that never ends); finished points are saved in \
                         {}; continue with --resume{}",
                        self.sampling.timeout.as_secs_f64(),
                        crate::error::shown_path(self.saved_to),
                        self.again
                    );
                    std::process::exit(crate::error::EXIT_INTERRUPTED);
                }
            }
            let _ = comm_thread.join();
            result
        })
    }
}

impl Bench<'_> {
    /// The pool of `threads` computing threads, each bound to its core of the plan (unless
    /// `--no-bind`).
    fn compute_pool(&self, threads: usize) -> Result<rayon::ThreadPool, Abort> {
        let bind_errors = Mutex::new(Vec::new());
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
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
        Ok(pool)
    }

    /// The communication thread: binds to its core, says it is ready on `finished`, then runs
    /// one stream per [`Command`] until the channel closes, saying on `finished` when each
    /// ends and recording in `seen` the CPUs it ran on.
    fn communicate(
        &self,
        comm_buffer: &mut Bytes<'_>,
        send_buffer: Option<&mut Bytes<'_>>,
        commands: &mpsc::Receiver<Command>,
        finished: &mpsc::Sender<Result<(), String>>,
        seen: &Mutex<BTreeSet<u32>>,
    ) {
        if self.bind {
            if let Err(e) = bind_current_thread(self.topology, self.plan.comm.pu_os) {
                let _ = finished.send(Err(e));
                return;
            }
        }
        let buf = memory::as_bytes(comm_buffer);
        let send: &[u8] = match send_buffer {
            Some(b) => memory::as_bytes(b),
            None => &[],
        };
        // Says it is ready, then runs `one` for each stream asked, noting the CPUs around it.
        let serve = |one: &mut dyn FnMut(Command) -> Result<(), String>| {
            let note_cpu = || {
                if let Some(c) = current_cpu() {
                    lock(seen).insert(c);
                }
            };
            let _ = finished.send(Ok(()));
            while let Ok(command) = commands.recv() {
                note_cpu();
                let ended = one(command);
                note_cpu();
                let _ = finished.send(ended);
            }
        };
        match self.stream {
            // A process-wide handle; this thread is the only one calling MPI while the
            // sweep runs (MPI_THREAD_SERIALIZED).
            CommStream::Mpi(world) => serve(&mut |command| {
                let Command::Stream {
                    stop, timings, t0, ..
                } = command;
                world.with(|w| {
                    comm::receive(
                        w,
                        self.pattern,
                        self.message_bytes,
                        buf,
                        send,
                        &stop,
                        &timings[0],
                        t0,
                    )
                });
                Ok(())
            }),
            // Opened here: a CUDA context is current per thread, and this thread alone
            // drives the copies.
            CommStream::Copies(opener) => {
                let mut slots = comm::Slots::new(buf.len(), self.message_bytes);
                let mut copier = match opener.open(buf) {
                    Ok(e) => e,
                    Err(e) => {
                        let _ = finished.send(Err(e));
                        return;
                    }
                };
                serve(&mut |command| {
                    let Command::Stream {
                        stop,
                        timings,
                        t0,
                        computing,
                    } = command;
                    if let crate::gpu::Copier::Serial(engine) = &mut copier {
                        engine.phase(computing);
                    }
                    crate::gpu::stream(&mut copier, &mut slots, &stop, &timings, t0)
                });
            }
        }
    }
}

impl Bench<'_> {
    /// The lanes of the communication stream, each timed apart: one for MPI messages, one
    /// per GPU copying ([`crate::gpu::OpenCopies::lanes`]).
    fn comm_lanes(&self) -> usize {
        match self.stream {
            CommStream::Mpi(_) => 1,
            CommStream::Copies(opener) => opener.lanes().max(1),
        }
    }

    /// The sweep's decisions, with this bench's settings.
    fn rules(&self) -> Rules<'_> {
        Rules {
            plan: self.plan,
            bind: self.bind,
            sampling: self.sampling,
            interrupted: self.interrupted,
            starvation: &self.starvation,
        }
    }
}

/// The real executor: the pool's computing threads write their buffers, the communication
/// thread receives through MPI (section 4.1.1's benchmark).
struct Threads<'a, 'b, 't> {
    bench: &'a Bench<'t>,
    pool: &'a rayon::ThreadPool,
    buffers: &'a [Mutex<Bytes<'b>>],
    /// The CPUs each computing thread, and the communication thread, ran on since the last
    /// [`Executor::take_cpus`] (`sched_getcpu` after every iteration, and around every
    /// stream).
    cpus: &'a [Mutex<BTreeSet<u32>>],
    comm_cpus: &'a Mutex<BTreeSet<u32>>,
    to_comm: &'a mpsc::Sender<Command>,
    from_comm: &'a mpsc::Receiver<Result<(), String>>,
}

/// How a computing thread times its work: in chunks of `chunk` bytes, a sample closed at
/// the first chunk boundary after `sample_seconds`, times counted from `t0`.
struct Pace {
    chunk: usize,
    sample_seconds: f64,
    t0: Instant,
}

/// One computing thread's part of a phase, until `stop`: passes over `buf` chunk by chunk,
/// each chunk a workload of its own (copy and triad take its halves or thirds), so the same
/// bytes move as over the whole buffer and the clock is read once per chunk. Each closed
/// sample goes to `timings`, and the CPU the thread ran on then to `cpus`.
fn compute(
    workload: Workload,
    buf: &mut Bytes<'_>,
    pace: &Pace,
    stop: &AtomicBool,
    timings: &Mutex<Timings>,
    cpus: &Mutex<BTreeSet<u32>>,
) {
    let t0 = pace.t0;
    let open = |at: f64| Span {
        start: at,
        end: at,
        bytes: 0,
    };
    let mut sample = open(t0.elapsed().as_secs_f64());
    let mut value = 1u8;
    loop {
        for chunk in memory::as_bytes(buf).chunks_mut(pace.chunk) {
            workload.run(chunk, value);
            sample.bytes += workload.bytes_per_pass(chunk.len()) as u64;
            let now = t0.elapsed().as_secs_f64();
            if now - sample.start >= pace.sample_seconds {
                lock(timings).push(Span { end: now, ..sample });
                if let Some(c) = current_cpu() {
                    lock(cpus).insert(c);
                }
                sample = open(now);
            }
            if stop.load(Ordering::Relaxed) {
                return;
            }
        }
        value = value.wrapping_add(1);
    }
}

impl Threads<'_, '_, '_> {
    /// Waits for the communication thread to end its stream, at most the sampling timeout:
    /// past it the sender is taken as stalled.
    fn stream_ended(&self) -> Result<(), Abort> {
        let timeout = self.bench.sampling.timeout;
        match self.from_comm.recv_timeout(timeout) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(Abort::Failed(e)),
            Err(_) => Err(Abort::Stalled(match self.bench.stream {
                CommStream::Copies(_) => format!(
                    "the GPU's last copy did not complete within {} s (is the GPU answering? \
                     nvidia-smi says)",
                    timeout.as_secs_f64()
                ),
                CommStream::Mpi(_) => format!(
                    "the sender did not acknowledge the end of a stream within {} s",
                    timeout.as_secs_f64()
                ),
            })),
        }
    }
}

impl Executor for Threads<'_, '_, '_> {
    fn phase(
        &mut self,
        streams: Streams,
        n: usize,
        t0: Instant,
        watch: &mut dyn FnMut(&Snapshot) -> Verdict,
    ) -> Result<(String, Snapshot), Abort> {
        let b = self.bench;
        let comp_on = streams != Streams::Comm;
        let comm_on = streams != Streams::Comp;
        let stop = Arc::new(AtomicBool::new(false));
        let comp_timings: Vec<Mutex<Timings>> = (0..n).map(|_| Mutex::default()).collect();
        let comm_timings: Arc<Vec<Mutex<Timings>>> =
            Arc::new((0..b.comm_lanes()).map(|_| Mutex::default()).collect());
        let start = Instant::now();

        if comm_on {
            self.to_comm
                .send(Command::Stream {
                    stop: Arc::clone(&stop),
                    timings: Arc::clone(&comm_timings),
                    t0,
                    computing: if comp_on { n } else { 0 },
                })
                .map_err(|_| Abort::Failed("the communication thread ended".into()))?;
        }
        // A stream that ends before it is told to (a GPU copy the driver refused) ends the
        // phase at the next look with its own words: the watch alone would wait for
        // samples that never come and call it a stall after --timeout.
        let mut early: Option<Result<(), String>> = None;
        let from_comm = self.from_comm;
        let mut watch = |snap: &Snapshot| {
            if comm_on && early.is_none() {
                early = from_comm.try_recv().ok();
            }
            match &early {
                Some(Err(e)) => Some(Err(Abort::Failed(e.clone()))),
                _ => watch(snap),
            }
        };
        let outcome = std::thread::scope(|s| {
            let compute = comp_on.then(|| {
                let (stop, timings, buffers) = (&stop, &comp_timings, self.buffers);
                let cpus = self.cpus;
                let workload = b.workload;
                let pace = Pace {
                    chunk: b.chunk_bytes.max(1),
                    sample_seconds: b.sample_seconds,
                    t0,
                };
                let pool = self.pool;
                s.spawn(move || {
                    pool.broadcast(|ctx| {
                        let i = ctx.index();
                        if i < n {
                            let mut buf = lock(&buffers[i]);
                            compute(workload, &mut buf, &pace, stop, &timings[i], &cpus[i]);
                        }
                    })
                })
            });
            // On the wall clock: each look waits for its time.
            let look = |_| {
                std::thread::sleep(LOOK);
                Snapshot {
                    at: start.elapsed(),
                    comp: comp_timings.iter().map(|m| lock(m).clone()).collect(),
                    comm: comm_timings.iter().map(|m| lock(m).clone()).collect(),
                }
            };
            let (verdict, _) = watch_every_look(look, &mut watch);
            stop.store(true, Ordering::Relaxed);
            if let Some(h) = compute {
                let _ = h.join();
            }
            verdict
        });
        let stop_reason = outcome?;
        match early {
            Some(ended) => ended.map_err(Abort::Failed)?,
            None if comm_on => self.stream_ended()?,
            None => {}
        }
        // Every stream has stopped: the timings are final and no longer shared.
        let last = Snapshot {
            at: start.elapsed(),
            comp: comp_timings.iter().map(|m| take(&mut *lock(m))).collect(),
            comm: comm_timings.iter().map(|m| take(&mut *lock(m))).collect(),
        };
        Ok((stop_reason, last))
    }

    fn take_cpus(&mut self, n: usize) -> (Vec<Vec<u32>>, Vec<u32>) {
        let mut comp: Vec<Vec<u32>> = self
            .cpus
            .iter()
            .map(|set| take(&mut *lock(set)).into_iter().collect())
            .collect();
        comp.truncate(n);
        let comm = take(&mut *lock(self.comm_cpus)).into_iter().collect();
        (comp, comm)
    }
}
