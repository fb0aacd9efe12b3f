//! The sweep's decisions, apart from what runs the streams (section 4.1.1, steps 1-3): for
//! each core count, computations alone, communications alone, both in parallel, each phase
//! watched until its streams are stable or its limit; when the communications are starved;
//! what a finished point records. `Rules` drives an `Executor`: the real threads and MPI of
//! [`super::run`] (built with the `mpi` feature), the simulated clock of [`super::simulated`],
//! or a fake in the unit tests, so the decisions are tested without threads, MPI or a clock.

use crate::measure::sweep::sampling::{self, Timings, MIN_ROUNDS, PHASE_STRETCH};
use crate::trace::{Phase, Plan, Sample, ThreadCpus, TracePoint};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How phases are sampled.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sampling {
    /// A phase stops at this many seconds even if not stable (if it has samples).
    pub(crate) max_phase: Duration,
    /// Relative half-width of the median's 95% interval at which a stream is stable.
    pub(crate) stable_within: f64,
    /// No progress for this long ends the run (a stalled or dead sender).
    pub(crate) timeout: Duration,
}

/// Why a sweep ended early.
#[derive(Debug)]
pub(crate) enum Abort {
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
pub(super) enum Streams {
    Comp,
    Comm,
    Both,
}

/// Below this, communications alone between two ranks of one host are starved: a
/// shared-memory message is a copy made by CPU cores, which run at GB/s on any machine the
/// tool was tried on (6.0-6.6 GB/s on a 16-core Xeon node, 2-9 GB/s on 2-core virtual
/// machines), and the 12 MB/s a plan that put the sender on the communication thread's core
/// got there is two orders of magnitude below. Forced onto TCP on one host, with the sender
/// sharing the communication thread's core of a 2-core machine, MPICH over UCX moved 65 MB/s
/// and Open MPI 524 MB/s: slow, but a stack measured as it is (`tests/transports.rs`).
pub(crate) const STARVED_INTRA_NODE_MBPS: f64 = 25.0;

/// Fewer messages than this in communications alone stretched to their cap is starvation:
/// the 16-core node's starved plan got 2 in 6 s.
pub(crate) const STARVED_ROUNDS: usize = MIN_ROUNDS / 4;

/// What makes the communications alone of a point starved, checked as soon as that phase
/// ends: their bandwidth is what every other phase of the sweep is compared with, so a sweep
/// whose communications cannot run is stopped there with the cause and the fix, instead of
/// measuring for minutes a trace in which they show no contention at all.
///
/// Starved: the phase reached its cap ([`PHASE_STRETCH`] times `--max-phase`) holding only a
/// handful of messages (fewer than [`STARVED_ROUNDS`]), or, between two ranks of one host,
/// it ran below [`STARVED_INTRA_NODE_MBPS`]. A phase short of [`MIN_ROUNDS`] but with more
/// than a handful is a `--max-phase` too short for the message size, not starvation: it is
/// kept, flagged unstable, and the first point says which `--max-phase` would do.
#[derive(Debug, Clone, Default)]
pub(crate) struct Starvation {
    /// Both ranks on this host: the messages are shared-memory copies.
    pub(crate) intra_node: bool,
    /// The core (hwloc logical index) rank 1 shares with the communication thread, if it does.
    pub(crate) shared_core: Option<u32>,
    /// Bytes of one message.
    pub(crate) message_bytes: u64,
    /// The largest core count of the sweep (what `--cores` to suggest).
    pub(crate) sweep_max: u32,
    /// The stream is a GPU's copies (`--engine gpu`): no rank 1 to blame when it stalls.
    pub(crate) gpu: bool,
}

impl Starvation {
    /// Why the communications alone of the `n`-core point, `phase`, are starved; `None`
    /// when they are not. `max_phase` is `--max-phase` in seconds.
    pub(crate) fn check(&self, n: u32, phase: &Phase, max_phase: f64) -> Option<String> {
        let (count, mbps) = (phase.summary.count, phase.summary.median);
        let short = count < STARVED_ROUNDS as u64;
        let slow = self.intra_node && mbps < STARVED_INTRA_NODE_MBPS;
        if !(short || slow) {
            return None;
        }
        let size = crate::units::ByteSize(self.message_bytes);
        let seen = format!(
            "communications alone are starved at {n} core(s): {count} message(s) of {size} \
             kept, at {mbps:.1} MB/s{}",
            if slow {
                format!(
                    ", while a shared-memory copy between two ranks of one host runs at GB/s \
                     (under {STARVED_INTRA_NODE_MBPS:.0} MB/s is starved)"
                )
            } else {
                format!(
                    ", a handful where a phase needs {MIN_ROUNDS}, in {:.1} s \
                     ({PHASE_STRETCH}x --max-phase)",
                    f64::from(PHASE_STRETCH) * max_phase
                )
            }
        );
        let fix = match self.shared_core {
            Some(core) if self.sweep_max > 1 => format!(
                "cause: rank 1 (the sender) runs on core {core}, the communication thread's, \
                 and the two take turns copying each message; fix: sweep fewer cores so that \
                 one is left for the sender (--cores 1..{}), or run rank 1 on another host \
                 (--hosts A,B)",
                self.sweep_max - 1
            ),
            Some(core) => format!(
                "cause: rank 1 (the sender) runs on core {core}, the communication thread's, \
                 and the two take turns copying each message; fix: run rank 1 on another host \
                 (--hosts A,B): this machine has no core to spare for it"
            ),
            None if self.intra_node => "cause: the MPI library copies these messages slowly \
                 on this host; check which transport it picked (Open MPI over TCP on one \
                 host is a tenth as fast as its shared memory: OMPI_MCA_btl=self,vader), and \
                 that rank 1's core is not busy with something else"
                .to_string(),
            None => {
                let needed =
                    (MIN_ROUNDS as f64 + 2.0) * self.message_bytes as f64 / 1e6 / mbps.max(1e-9);
                format!(
                    "cause: the network is too slow for --message-size {size} within \
                     --max-phase; fix: raise --max-phase to {:.0} (s) or lower --message-size",
                    needed.ceil()
                )
            }
        };
        Some(format!(
            "{seen}; {fix}. The sweep stopped here instead of measuring a trace without \
             contention in it"
        ))
    }
}

/// Checks that every bound thread ran only on its PU: the binding is verified, not assumed
/// (a cgroup or another tool can move a thread after it bound itself).
pub(crate) fn check_cpus(threads: &[ThreadCpus]) -> Result<(), String> {
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

/// One look at a running phase: when, and the iterations completed so far.
pub(super) struct Snapshot {
    /// Time since the phase started.
    pub(super) at: Duration,
    /// Iterations of each of the point's computing threads (empty lists when computations
    /// do not run), seconds on the point's clock.
    pub(super) comp: Vec<Timings>,
    /// Iterations of the communication stream, per lane: one lane of messages (MPI) or of
    /// one GPU's copies; one lane per GPU with `--gpu all`, whose rounds sum the GPUs as a
    /// round of computations sums the threads.
    pub(super) comm: Vec<Timings>,
}

/// A watcher's decision after a look: go on (`None`), stop with why (the trace's note), or
/// abort the sweep.
pub(super) type Verdict = Option<Result<String, Abort>>;

/// Time between two looks of the watch: a phase stops within a look of its streams becoming
/// stable, and copying the timings that often costs nothing beside the streams. The simulated
/// clock looks as often, so a simulated phase stops where a real one would.
pub(crate) const LOOK: Duration = Duration::from_millis(20);

/// The watch both executors run: `look(since)` gives the streams' progress [`LOOK`] after
/// the previous look (`since` the phase began), until `watch` decides; the verdict comes back
/// with the snapshot it was decided on.
pub(super) fn watch_every_look(
    mut look: impl FnMut(Duration) -> Snapshot,
    watch: &mut dyn FnMut(&Snapshot) -> Verdict,
) -> (Result<String, Abort>, Snapshot) {
    let mut since = Duration::ZERO;
    loop {
        since += LOOK;
        let snap = look(since);
        if let Some(verdict) = watch(&snap) {
            return (verdict, snap);
        }
    }
}

/// What runs the streams of a phase. [`Rules`] decides which phases run, when each stops and
/// what is recorded; an executor only runs them and reports what they did.
pub(super) trait Executor {
    /// Runs `streams` of an `n`-core point on the point's clock `t0`, showing `watch` the
    /// iterations completed so far until it returns a verdict; then stops the streams and
    /// returns the verdict (an abort as an error) with the final iterations.
    fn phase(
        &mut self,
        streams: Streams,
        n: usize,
        t0: Instant,
        watch: &mut dyn FnMut(&Snapshot) -> Verdict,
    ) -> Result<(String, Snapshot), Abort>;

    /// The CPUs each of the first `n` computing threads, and the communication thread, ran
    /// on since the previous call.
    fn take_cpus(&mut self, n: usize) -> (Vec<Vec<u32>>, Vec<u32>);
}

/// The sweep's decisions (section 4.1.1): for each core count, computations alone,
/// communications alone, both in parallel; each phase until its streams are stable or the
/// phase limit; what a finished point records.
pub(super) struct Rules<'a> {
    pub(super) plan: &'a Plan,
    pub(super) bind: bool,
    pub(super) sampling: Sampling,
    pub(super) interrupted: &'a AtomicBool,
    pub(super) starvation: &'a Starvation,
}

impl Rules<'_> {
    /// Runs `points` (core counts) in order on `exec`, calling `phase` when a phase starts
    /// and `done` with each finished point.
    pub(super) fn points(
        &self,
        exec: &mut impl Executor,
        points: &[u32],
        phase: impl FnMut(u32, &str),
        done: impl FnMut(TracePoint) -> crate::Result<()>,
    ) -> Result<(), Abort> {
        let mut order = points.iter().copied();
        self.chosen(exec, || order.next(), phase, done)
    }

    /// Runs the core counts `next` gives, one at a time until it gives none: it is asked
    /// after each finished point (and `done` with it), so an adaptive sweep can choose each
    /// point from the ones before.
    pub(super) fn chosen(
        &self,
        exec: &mut impl Executor,
        mut next: impl FnMut() -> Option<u32>,
        mut phase: impl FnMut(u32, &str),
        mut done: impl FnMut(TracePoint) -> crate::Result<()>,
    ) -> Result<(), Abort> {
        while let Some(n) = next() {
            let t0 = Instant::now();
            phase(n, "computations alone");
            let (comp_alone, _) = self.phase(exec, Streams::Comp, n, t0)?;
            phase(n, "communications alone");
            let (_, comm_alone) = self.phase(exec, Streams::Comm, n, t0)?;
            let alone = comm_alone.as_ref().expect("communications ran");
            let max_phase = self.sampling.max_phase.as_secs_f64();
            if let Some(why) = self.starvation.check(n, alone, max_phase) {
                return Err(Abort::Failed(why));
            }
            phase(n, "both in parallel");
            let (comp_parallel, comm_parallel) = self.phase(exec, Streams::Both, n, t0)?;
            let (comp_cpus, comm_cpus) = exec.take_cpus(n as usize);
            let ran_on = self.ran_on(comp_cpus, comm_cpus);
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
    }

    /// One phase of an `n`-core point: run until the stop rule, then keep the steady samples.
    fn phase(
        &self,
        exec: &mut impl Executor,
        streams: Streams,
        n: u32,
        t0: Instant,
    ) -> Result<(Option<Phase>, Option<Phase>), Abort> {
        let n = n as usize;
        let mut watch = Watch {
            rules: self,
            streams,
            n,
            progress: Vec::new(),
            stretched: false,
        };
        let (stop_reason, last) = exec.phase(streams, n, t0, &mut |s| watch.look(s))?;
        let comm_t = &last.comm[..];
        let obs = observe(streams, &last.comp, comm_t).ok_or_else(|| {
            Abort::Failed(format!(
                "{n} cores, {}: no steady-state sample within the phase; raise --max-phase \
                 or lower --message-size",
                phase_name(streams)
            ))
        })?;
        // Several communication lanes are GPUs (`--gpu all`), each its own samples, copied
        // from the one copy thread.
        let record = |samples: Vec<Sample>, threads: &[Timings], lanes: &str| {
            let total: usize = threads.iter().map(Vec::len).sum();
            let rounds = sampling::rounds(&samples, threads.len());
            let note = sampling::describe(
                obs.window,
                &rounds,
                (threads.len(), lanes),
                total - samples.len(),
                &stop_reason,
            );
            sampling::phase(samples, threads.len(), note, self.sampling.stable_within)
        };
        let comp = (streams != Streams::Comm).then(|| record(obs.comp, &last.comp, "thread(s)"));
        let lanes = if comm_t.len() > 1 {
            "GPU(s)"
        } else {
            "thread(s)"
        };
        let comm = (streams != Streams::Comp).then(|| record(obs.comm, comm_t, lanes));
        Ok((comp, comm))
    }

    /// What the threads of a point ran on, computing threads first.
    fn ran_on(&self, comp: Vec<Vec<u32>>, comm: Vec<u32>) -> Vec<ThreadCpus> {
        let bound = |pu: u32| self.bind.then_some(pu);
        let mut threads: Vec<ThreadCpus> = comp
            .into_iter()
            .enumerate()
            .map(|(i, ran_on)| ThreadCpus {
                thread: format!("computation {i}"),
                bound_to: bound(self.plan.compute[i].pu_os),
                ran_on,
            })
            .collect();
        threads.push(ThreadCpus {
            thread: "communication".into(),
            bound_to: bound(self.plan.comm.pu_os),
            ran_on: comm,
        });
        threads
    }
}

/// The stop rules of one phase, applied at each look: Ctrl-C, a stream without progress for
/// the timeout, every running stream stable, or the phase limit reached with samples and at
/// least [`MIN_ROUNDS`] rounds in every running stream, or else [`PHASE_STRETCH`] times the
/// limit.
struct Watch<'r, 'a> {
    rules: &'r Rules<'a>,
    streams: Streams,
    n: usize,
    /// Of the computations, then of each lane of the communications (one, or a GPU each
    /// with `--gpu all`): completed iterations, and when that count last grew. One stream
    /// stalling must not hide behind another's progress.
    progress: Vec<(usize, Duration)>,
    /// Whether the phase went past `--max-phase` because a stream held fewer than
    /// [`MIN_ROUNDS`] rounds ([`PHASE_STRETCH`]).
    stretched: bool,
}

impl Watch<'_, '_> {
    fn look(&mut self, snap: &Snapshot) -> Verdict {
        let r = self.rules;
        let tol = r.sampling.stable_within;
        if r.interrupted.load(Ordering::Relaxed) {
            return Some(Err(Abort::Interrupted));
        }
        // The computing threads together, and each lane of the communications apart: one
        // GPU of several that hangs is a stall, whatever the others copy.
        let lanes = snap.comm.len();
        let mut counts = vec![(
            self.streams != Streams::Comm,
            snap.comp.iter().map(Vec::len).sum::<usize>(),
            "computing threads".to_string(),
        )];
        counts.extend(snap.comm.iter().enumerate().map(|(i, t)| {
            let who = match (r.starvation.gpu, lanes) {
                (false, _) => "sender (rank 1)".to_string(),
                (true, 1) => "GPU's copies".to_string(),
                (true, _) => format!("copies of GPU {i} (of {lanes} copying)"),
            };
            (self.streams != Streams::Comp, t.len(), who)
        }));
        self.progress.resize(counts.len(), (0, Duration::ZERO));
        let alive = if r.starvation.gpu {
            "is the GPU answering? nvidia-smi says;"
        } else {
            "is rank 1 alive?"
        };
        for (i, (running, count, who)) in counts.iter().enumerate() {
            let (running, count) = (*running, *count);
            if !running || count != self.progress[i].0 {
                self.progress[i] = (count, snap.at);
            } else if snap.at.saturating_sub(self.progress[i].1) > r.sampling.timeout {
                return Some(Err(Abort::Stalled(format!(
                    "{} cores, {}: nothing completed by the {who} for {:.0} s ({alive} see \
                     --timeout)",
                    self.n,
                    phase_name(self.streams),
                    r.sampling.timeout.as_secs_f64()
                ))));
            }
        }
        let obs = observe(self.streams, &snap.comp, &snap.comm)?;
        let stable = |samples: &[Sample], threads| {
            samples.is_empty() || sampling::is_stable(&sampling::rounds(samples, threads), tol)
        };
        // A phase stops early only once it has run half of `--max-phase`: stopped at its
        // first 30 rounds (a third of a second of 64 MiB messages on a 16-core node), it
        // would never see the host's slower swings (0.4-0.5 s there), and its interval, made
        // of its batches, would not know of them either.
        let long_enough = snap.at >= r.sampling.max_phase / 2;
        if long_enough && stable(&obs.comp, self.n) && stable(&obs.comm, snap.comm.len()) {
            return Some(Ok(format!(
                "stable within +-{:.1}% after {:.2} s",
                100.0 * tol,
                snap.at.as_secs_f64()
            )));
        }
        if snap.at < r.sampling.max_phase {
            return None;
        }
        self.at_limit(snap, &obs)
    }

    /// The look at or past `--max-phase`: stop, unless a running stream holds fewer than
    /// [`MIN_ROUNDS`] rounds and the phase is not yet [`PHASE_STRETCH`] times the limit.
    fn at_limit(&mut self, snap: &Snapshot, obs: &Observed) -> Verdict {
        let r = self.rules;
        let tol = r.sampling.stable_within;
        let limit = format!(
            "phase limit of {:.1} s reached before +-{:.1}% stability",
            r.sampling.max_phase.as_secs_f64(),
            100.0 * tol
        );
        let rounds = [
            (self.streams != Streams::Comm).then(|| sampling::rounds(&obs.comp, self.n).len()),
            (self.streams != Streams::Comp)
                .then(|| sampling::rounds(&obs.comm, snap.comm.len()).len()),
        ];
        let short: Vec<String> = rounds
            .iter()
            .zip(["computations", "communications"])
            .filter_map(|(n, who)| {
                n.filter(|&n| n < MIN_ROUNDS)
                    .map(|n| format!("{n} rounds of {who}"))
            })
            .collect();
        let at = snap.at.as_secs_f64();
        if short.is_empty() {
            Some(Ok(if self.stretched {
                format!("{limit}; extended to {at:.2} s to hold {MIN_ROUNDS} rounds")
            } else {
                limit
            }))
        } else if snap.at >= r.sampling.max_phase * PHASE_STRETCH {
            Some(Ok(format!(
                "{limit}; extended to {at:.2} s ({PHASE_STRETCH}x --max-phase, the most) with \
                 only {}",
                short.join(" and ")
            )))
        } else {
            self.stretched = true;
            None
        }
    }
}

/// What a phase observed, as it would be kept if it stopped now.
struct Observed {
    window: (f64, f64),
    comp: Vec<Sample>,
    comm: Vec<Sample>,
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
fn observe(streams: Streams, comp: &[Timings], comm: &[Timings]) -> Option<Observed> {
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
        sampling::samples_in(comp, window)
    };
    let comm_samples = if streams == Streams::Comp {
        Vec::new()
    } else {
        sampling::samples_in(comm, window)
    };
    let comp_ok =
        streams == Streams::Comm || !sampling::rounds(&comp_samples, comp.len()).is_empty();
    let comm_ok =
        streams == Streams::Comp || !sampling::rounds(&comm_samples, comm.len()).is_empty();
    (comp_ok && comm_ok).then_some(Observed {
        window,
        comp: comp_samples,
        comm: comm_samples,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::sweep::sampling::Span;
    use std::collections::BTreeSet;

    use crate::trace::CoreSlot;

    /// Microseconds per iteration of one stream in one phase, and what it does.
    #[derive(Clone, Copy)]
    enum Pace {
        /// Every iteration takes this long.
        Even(u64),
        /// Rounds alternate between these two durations: the median's interval never
        /// tightens, so the stream never counts as stable.
        Alternating(u64, u64),
        /// This long each, but only this many iterations ever complete (a stalled stream).
        StopsAfter(u64, usize),
    }

    impl Pace {
        /// The iterations completed `at_us` microseconds into the phase.
        fn timings(self, at_us: u64) -> Timings {
            let (mut t, mut out) = (0, Timings::new());
            for k in 0.. {
                let d = match self {
                    Pace::Even(d) | Pace::StopsAfter(d, _) => d,
                    Pace::Alternating(a, b) => [a, b][k % 2],
                };
                if t + d > at_us || matches!(self, Pace::StopsAfter(_, m) if k >= m) {
                    break;
                }
                out.push(Span {
                    start: t as f64 / 1e6,
                    end: (t + d) as f64 / 1e6,
                    bytes: 1_000_000,
                });
                t += d;
            }
            out
        }
    }

    /// A fake executor: each stream's iterations follow a chosen pace (so its bandwidth is
    /// chosen), looked at every 20 ms of simulated time; it records what it was asked to run.
    struct Fake<'a> {
        /// Pace of each computing thread: alone, in parallel.
        comp: [Pace; 2],
        /// Pace of the messages: alone, in parallel.
        comm: [Pace; 2],
        /// What ran, in order.
        ran: Vec<(usize, Streams)>,
        /// Set this flag when the phase with this index (0-based, over the sweep) starts.
        interrupt: Option<(usize, &'a AtomicBool)>,
        /// The CPU the communication thread reports (its plan's PU when `None`).
        comm_cpu: Option<u32>,
        plan: &'a Plan,
    }

    impl Executor for Fake<'_> {
        fn phase(
            &mut self,
            streams: Streams,
            n: usize,
            _t0: Instant,
            watch: &mut dyn FnMut(&Snapshot) -> Verdict,
        ) -> Result<(String, Snapshot), Abort> {
            if let Some((at, flag)) = self.interrupt {
                if at == self.ran.len() {
                    flag.store(true, Ordering::Relaxed);
                }
            }
            self.ran.push((n, streams));
            let both = usize::from(streams == Streams::Both);
            let snap = |at_us: u64| Snapshot {
                at: Duration::from_micros(at_us),
                comp: (0..n)
                    .map(|_| match streams {
                        Streams::Comm => Timings::new(),
                        _ => self.comp[both].timings(at_us),
                    })
                    .collect(),
                comm: vec![match streams {
                    Streams::Comp => Timings::new(),
                    _ => self.comm[both].timings(at_us),
                }],
            };
            for look in 1..=10_000 {
                if let Some(verdict) = watch(&snap(look * 20_000)) {
                    return verdict.map(|why| (why, snap(look * 20_000)));
                }
            }
            panic!("the watch never stopped the phase");
        }

        fn take_cpus(&mut self, n: usize) -> (Vec<Vec<u32>>, Vec<u32>) {
            let comp = self.plan.compute[..n]
                .iter()
                .map(|s| vec![s.pu_os])
                .collect();
            let comm = vec![self.comm_cpu.unwrap_or(self.plan.comm.pu_os)];
            (comp, comm)
        }
    }

    fn plan() -> Plan {
        let slot = |core| CoreSlot {
            core,
            pu_os: 10 + core,
            socket: 0,
        };
        Plan {
            compute: (0..3).map(slot).collect(),
            comm: slot(3),
            comm_reason: "last core of socket 0".into(),
            comm_shares_core: false,
            comp_numa_os: 0,
            comm_numa_os: 0,
        }
    }

    /// Between two hosts, 1 MB messages: only a phase short of messages is starved.
    static NETWORK: Starvation = Starvation {
        intra_node: false,
        shared_core: None,
        message_bytes: 1_000_000,
        sweep_max: 2,
        gpu: false,
    };

    /// 1 MB per iteration of a computing thread and per message; 1 % stability; a 0.5 s
    /// phase limit; a 0.1 s timeout (all on the fake's simulated clock).
    fn rules<'a>(plan: &'a Plan, interrupted: &'a AtomicBool) -> Rules<'a> {
        Rules {
            plan,
            bind: true,
            sampling: Sampling {
                max_phase: Duration::from_millis(500),
                stable_within: 0.01,
                timeout: Duration::from_millis(100),
            },
            interrupted,
            starvation: &NETWORK,
        }
    }

    /// Computations: 1000 MB/s per thread alone, 500 in parallel; messages: 2000 MB/s
    /// alone, 1000 in parallel.
    fn fake(plan: &Plan) -> Fake<'_> {
        Fake {
            comp: [Pace::Even(1000), Pace::Even(2000)],
            comm: [Pace::Even(500), Pace::Even(1000)],
            ran: Vec::new(),
            interrupt: None,
            comm_cpu: None,
            plan,
        }
    }

    /// Runs `points` on `exec`; returns the outcome, the phases announced and the points.
    fn sweep(
        rules: &Rules,
        exec: &mut Fake,
        points: &[u32],
    ) -> (Result<(), Abort>, Vec<String>, Vec<TracePoint>) {
        let (mut phases, mut done) = (Vec::new(), Vec::new());
        let r = rules.points(
            exec,
            points,
            |n, what| phases.push(format!("{n} {what}")),
            |p| {
                done.push(p);
                Ok(())
            },
        );
        (r, phases, done)
    }

    #[test]
    fn the_next_point_is_asked_after_each_finished_one_until_none_comes() {
        let (plan, stop) = (plan(), AtomicBool::new(false));
        let mut exec = fake(&plan);
        // An adaptive sweep's shape: each next point depends on the points finished so far.
        let finished = std::cell::RefCell::new(Vec::<u32>::new());
        let mut asked = Vec::new();
        let r = rules(&plan, &stop).chosen(
            &mut exec,
            || {
                let f = finished.borrow();
                asked.push(f.len());
                match f.as_slice() {
                    [] => Some(1),
                    [1] => Some(3),
                    [1, 3] => Some(2),
                    _ => None,
                }
            },
            |_, _| {},
            |p| {
                finished.borrow_mut().push(p.cores);
                Ok(())
            },
        );
        assert!(r.is_ok(), "{r:?}");
        assert_eq!(finished.into_inner(), [1, 3, 2]);
        assert_eq!(
            asked,
            [0, 1, 2, 3],
            "asked once before each point and once after"
        );
        assert_eq!(exec.ran.len(), 9);

        // Ctrl-C in the second point: the first is kept, nothing more is asked.
        let mut exec = Fake {
            interrupt: Some((4, &stop)),
            ..fake(&plan)
        };
        let mut asked = 0;
        let mut done = Vec::new();
        let r = rules(&plan, &stop).chosen(
            &mut exec,
            || {
                asked += 1;
                Some(asked)
            },
            |_, _| {},
            |p| {
                done.push(p.cores);
                Ok(())
            },
        );
        assert!(matches!(r, Err(Abort::Interrupted)), "{r:?}");
        assert_eq!((done, asked), (vec![1], 2));
    }

    #[test]
    fn each_point_runs_the_three_phases_in_order_and_records_their_bandwidths() {
        let (plan, stop) = (plan(), AtomicBool::new(false));
        let mut exec = fake(&plan);
        let (r, phases, done) = sweep(&rules(&plan, &stop), &mut exec, &[2, 1, 2]);
        assert!(r.is_ok(), "{r:?}");
        use Streams::{Both, Comm, Comp};
        let want: Vec<(usize, Streams)> = [2, 1, 2]
            .into_iter()
            .flat_map(|n| [(n, Comp), (n, Comm), (n, Both)])
            .collect();
        assert_eq!(exec.ran, want);
        assert_eq!(
            phases[..3],
            [
                "2 computations alone",
                "2 communications alone",
                "2 both in parallel"
            ]
        );
        assert_eq!(phases.len(), 9);
        assert_eq!(done.iter().map(|p| p.cores).collect::<Vec<_>>(), [2, 1, 2]);
        for p in &done {
            let n = f64::from(p.cores);
            let close = |got: f64, want: f64| (got - want).abs() <= 1e-6 * want;
            // A computation phase's bandwidth is the sum over its threads (a round).
            assert!(
                close(p.comp_alone.summary.median, 1000.0 * n),
                "{:?}",
                p.comp_alone.summary
            );
            assert!(
                close(p.comp_parallel.summary.median, 500.0 * n),
                "{:?}",
                p.comp_parallel.summary
            );
            assert!(
                close(p.comm_alone.summary.median, 2000.0),
                "{:?}",
                p.comm_alone.summary
            );
            assert!(
                close(p.comm_parallel.summary.median, 1000.0),
                "{:?}",
                p.comm_parallel.summary
            );
            for ph in p.phases() {
                assert!(!ph.unstable, "{}", ph.sampling);
                assert!(
                    ph.sampling.contains("stopped: stable within +-1.0%"),
                    "{}",
                    ph.sampling
                );
            }
            // Each computing thread's samples are kept, first and last iterations dropped.
            let threads: BTreeSet<u32> = p.comp_alone.samples.iter().map(|s| s.thread).collect();
            assert_eq!(threads.len(), p.cores as usize);
            // Where each thread ran, next to where it was bound.
            assert_eq!(p.ran_on.len(), p.cores as usize + 1);
            assert_eq!(p.ran_on.last().unwrap().thread, "communication");
            assert_eq!(p.ran_on.last().unwrap().bound_to, Some(13));
            assert_eq!(p.ran_on[0].bound_to, Some(10));
        }
    }

    #[test]
    fn a_stream_that_never_steadies_stops_at_the_phase_limit_flagged_unstable() {
        let (plan, stop) = (plan(), AtomicBool::new(false));
        let mut exec = Fake {
            comm: [Pace::Alternating(500, 1500), Pace::Even(1000)],
            ..fake(&plan)
        };
        let (r, _, done) = sweep(&rules(&plan, &stop), &mut exec, &[1]);
        assert!(r.is_ok(), "{r:?}");
        let p = &done[0];
        assert!(p.comm_alone.unstable);
        assert!(
            p.comm_alone
                .sampling
                .contains("stopped: phase limit of 0.5 s reached before +-1.0% stability"),
            "{}",
            p.comm_alone.sampling
        );
        // The limit ended the phase, not before: its samples span about 0.5 s.
        let last = p
            .comm_alone
            .samples
            .iter()
            .map(|s| s.end)
            .fold(0.0, f64::max);
        assert!(last > 0.45, "{last}");
        assert!(!p.comp_alone.unstable && !p.comm_parallel.unstable);
    }

    /// The last sample's end in a phase: how long it ran.
    fn last_end(ph: &Phase) -> f64 {
        ph.samples.iter().map(|s| s.end).fold(0.0, f64::max)
    }

    #[test]
    fn a_phase_short_of_rounds_at_the_limit_runs_on_until_it_holds_them() {
        let (plan, stop) = (plan(), AtomicBool::new(false));
        // 25 ms a message: 20 of them in the 0.5 s limit, 30 by about 0.8 s.
        let mut exec = Fake {
            comm: [Pace::Even(25_000), Pace::Even(1000)],
            ..fake(&plan)
        };
        let (r, _, done) = sweep(&rules(&plan, &stop), &mut exec, &[1]);
        assert!(r.is_ok(), "{r:?}");
        let ph = &done[0].comm_alone;
        assert!(!ph.unstable, "{}", ph.sampling);
        assert!(ph.samples.len() >= MIN_ROUNDS, "{}", ph.samples.len());
        assert!(
            ph.sampling
                .contains("stopped: stable within +-1.0% after 0.8"),
            "{}",
            ph.sampling
        );
        assert!((0.5..1.0).contains(&last_end(ph)), "{}", last_end(ph));

        // Never steady: it stops once it holds them, saying it ran on for them.
        let mut exec = Fake {
            comm: [Pace::Alternating(20_000, 30_000), Pace::Even(1000)],
            ..fake(&plan)
        };
        let (r, _, done) = sweep(&rules(&plan, &stop), &mut exec, &[1]);
        assert!(r.is_ok(), "{r:?}");
        let ph = &done[0].comm_alone;
        assert!(ph.unstable);
        assert_eq!(ph.samples.len(), MIN_ROUNDS, "{}", ph.sampling);
        assert!(
            ph.sampling.contains(
                "stopped: phase limit of 0.5 s reached before +-1.0% stability; extended to 0.8"
            ) && ph.sampling.ends_with("s to hold 30 rounds"),
            "{}",
            ph.sampling
        );
        // The other phases had their rounds at the limit and were not extended.
        assert!(!done[0].comp_alone.sampling.contains("extended"));
    }

    #[test]
    fn a_phase_stretches_to_four_times_the_limit_at_most_and_says_what_it_lacked() {
        let (plan, stop) = (plan(), AtomicBool::new(false));
        // 80 ms a message in parallel: about 24 in the 2 s cap.
        let mut exec = Fake {
            comm: [Pace::Even(1000), Pace::Even(80_000)],
            ..fake(&plan)
        };
        let (r, _, done) = sweep(&rules(&plan, &stop), &mut exec, &[1]);
        assert!(r.is_ok(), "{r:?}");
        let ph = &done[0].comm_parallel;
        assert!(ph.unstable && ph.ci95.is_none(), "{}", ph.sampling);
        assert!(
            ph.sampling
                .contains("extended to 2.00 s (4x --max-phase, the most) with only 2")
                && ph.sampling.ends_with("rounds of communications"),
            "{}",
            ph.sampling
        );
        assert!((1.8..=2.0).contains(&last_end(ph)), "{}", last_end(ph));
        // Computations in that phase ran as long, and are kept whole.
        assert!(done[0].comp_parallel.samples.len() > MIN_ROUNDS);
    }

    #[test]
    fn a_stable_phase_runs_half_the_limit_before_it_stops() {
        let (plan, stop) = (plan(), AtomicBool::new(false));
        // 1 ms a message, always the same: stable after 30 of them (30 ms), yet the phase
        // runs to half of the 0.5 s limit, to see what swings slower than its first rounds.
        let (r, _, done) = sweep(&rules(&plan, &stop), &mut fake(&plan), &[1]);
        assert!(r.is_ok(), "{r:?}");
        let ph = &done[0].comm_alone;
        assert!(
            ph.sampling
                .contains("stopped: stable within +-1.0% after 0.2"),
            "{}",
            ph.sampling
        );
        assert!((0.24..0.3).contains(&last_end(ph)), "{}", last_end(ph));
        assert!(ph.samples.len() > 200, "{}", ph.samples.len());
    }

    fn failed(r: Result<(), Abort>) -> String {
        match r {
            Err(Abort::Failed(why)) => why,
            other => panic!("not failed: {other:?}"),
        }
    }

    #[test]
    fn starved_communications_alone_stop_the_sweep_with_the_cause_and_the_fix() {
        let (plan, stop) = (plan(), AtomicBool::new(false));
        // 350 ms a 1 MB message alone (2.9 MB/s): 5 of them in the 2 s cap (and a timeout
        // longer than one message).
        let starved = || Fake {
            comm: [Pace::Even(350_000), Pace::Even(1000)],
            ..fake(&plan)
        };
        let base = rules(&plan, &stop);
        let base = Rules {
            sampling: Sampling {
                timeout: Duration::from_secs(1),
                ..base.sampling
            },
            ..base
        };
        let (r, phases, done) = sweep(&base, &mut starved(), &[1, 2]);
        let why = failed(r);
        assert!(done.is_empty(), "no point is kept");
        // Stopped after communications alone: no parallel phase, no second point.
        assert_eq!(phases.last().unwrap(), "1 communications alone");
        assert!(
            why.contains("communications alone are starved at 1 core(s)")
                && why.contains("a handful where a phase needs 30, in 2.0 s")
                && why.contains("raise --max-phase to 12"),
            "{why}"
        );
        // On one host, with rank 1 on the communication thread's core: that is the cause.
        let shared = Starvation {
            intra_node: true,
            shared_core: Some(3),
            ..NETWORK.clone()
        };
        let one_host = Rules {
            starvation: &shared,
            ..base
        };
        let why = failed(sweep(&one_host, &mut starved(), &[2]).0);
        assert!(
            why.contains("rank 1 (the sender) runs on core 3, the communication thread's")
                && why.contains("--cores 1..1"),
            "{why}"
        );
        // 80 ms a message: 24 in the cap, short of 30 but no handful: a --max-phase too
        // short for the messages, kept (unstable), not starvation.
        let short = || Fake {
            comm: [Pace::Even(80_000), Pace::Even(1000)],
            ..fake(&plan)
        };
        let (r, _, done) = sweep(&base, &mut short(), &[1]);
        assert!(r.is_ok() && done[0].comm_alone.unstable, "{r:?}");
        // 50 ms a message (20 MB/s): enough messages, but between two ranks of one host
        // far below a shared-memory copy.
        let slow = || Fake {
            comm: [Pace::Even(50_000), Pace::Even(1000)],
            ..fake(&plan)
        };
        let intra = Starvation {
            intra_node: true,
            ..NETWORK.clone()
        };
        let one_host = Rules {
            starvation: &intra,
            ..rules(&plan, &stop)
        };
        let why = failed(sweep(&one_host, &mut slow(), &[1]).0);
        assert!(
            why.contains("at 20.0 MB/s") && why.contains("OMPI_MCA_btl"),
            "{why}"
        );
        // The same stream between two hosts is a slow network, measured as such.
        let (r, _, done) = sweep(&rules(&plan, &stop), &mut slow(), &[1]);
        assert!(r.is_ok() && done.len() == 1, "{r:?}");
    }

    fn stalled(r: Result<(), Abort>) -> String {
        match r {
            Err(Abort::Stalled(why)) => why,
            other => panic!("not stalled: {other:?}"),
        }
    }

    #[test]
    fn a_stream_without_progress_for_the_timeout_stalls_the_sweep_naming_it() {
        let (plan, stop) = (plan(), AtomicBool::new(false));
        let mut exec = Fake {
            comm: [Pace::StopsAfter(500, 5), Pace::Even(1000)],
            ..fake(&plan)
        };
        let (r, _, done) = sweep(&rules(&plan, &stop), &mut exec, &[1, 2]);
        let why = stalled(r);
        assert!(
            why.contains("1 cores, communications alone: nothing completed by the sender (rank 1)"),
            "{why}"
        );
        assert!(done.is_empty());
        assert_eq!(exec.ran.len(), 2, "nothing runs after the stall");

        let mut exec = Fake {
            comp: [Pace::Even(1000), Pace::StopsAfter(2000, 4)],
            ..fake(&plan)
        };
        let (r, _, _) = sweep(&rules(&plan, &stop), &mut exec, &[1]);
        let why = stalled(r);
        assert!(
            why.contains("both in parallel: nothing completed by the computing threads"),
            "{why}"
        );
    }

    #[test]
    fn ctrl_c_ends_the_sweep_keeping_only_finished_points() {
        let (plan, stop) = (plan(), AtomicBool::new(false));
        // Phase 4 (from 0) is the second point's communications alone.
        let mut exec = Fake {
            interrupt: Some((4, &stop)),
            ..fake(&plan)
        };
        let (r, phases, done) = sweep(&rules(&plan, &stop), &mut exec, &[1, 2, 3]);
        assert!(matches!(r, Err(Abort::Interrupted)), "{r:?}");
        assert_eq!(done.iter().map(|p| p.cores).collect::<Vec<_>>(), [1]);
        assert_eq!(exec.ran.len(), 5);
        assert_eq!(phases.last().unwrap(), "2 communications alone");
    }

    #[test]
    fn a_bound_thread_seen_elsewhere_fails_the_point_unless_unbound() {
        let (plan, stop) = (plan(), AtomicBool::new(false));
        let mut exec = Fake {
            comm_cpu: Some(7),
            ..fake(&plan)
        };
        let (r, _, done) = sweep(&rules(&plan, &stop), &mut exec, &[1]);
        let Err(Abort::Failed(why)) = r else {
            panic!("{r:?}")
        };
        assert!(
            why.contains("communication thread was bound to PU P#13 but ran on CPU 7"),
            "{why}"
        );
        assert!(done.is_empty(), "the point is not recorded");

        // With --no-bind the trace records where threads ran, unchecked.
        exec.ran.clear();
        let unbound = Rules {
            bind: false,
            ..rules(&plan, &stop)
        };
        let (r, _, done) = sweep(&unbound, &mut exec, &[1]);
        assert!(r.is_ok(), "{r:?}");
        let comm = done[0].ran_on.last().unwrap();
        assert_eq!((comm.bound_to, comm.ran_on.clone()), (None, vec![7]));
    }

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
