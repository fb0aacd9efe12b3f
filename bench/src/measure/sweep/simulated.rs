//! The sweep on a simulated machine (`measure --simulate`): the same `Rules` as a real run
//! (phase order, stop rules, what a point records; section 4.1.1), driving an executor that
//! draws each stream's iterations from a [`Truth`] with seeded noise ([`crate::simulate`])
//! on a simulated clock instead of running threads and MPI. A campaign that takes an hour on
//! a node runs in seconds, and says how long the node would have taken.

use crate::measure::sweep::rules::{
    watch_every_look, Abort, Executor, Rules, Sampling, Snapshot, Starvation, Streams, Verdict,
};
use crate::measure::sweep::sampling::{Span, Timings};
use crate::model::Placement;
use crate::simulate::{Noise, Rng, RunKey, RunNoise, Stream, Truth};
use crate::trace::{Plan, TracePoint};
use std::cell::Cell;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Delay between two computing threads' starts, in seconds (a thread pool's wake-up).
const THREAD_STAGGER: f64 = 50e-6;

/// A simulated sweep's settings: the machine, the placement measured, and how the real one
/// would sample.
pub(crate) struct SimulatedBench<'a> {
    pub(crate) truth: &'a Truth,
    pub(crate) placement: Placement,
    pub(crate) plan: &'a Plan,
    pub(crate) sampling: Sampling,
    /// Seconds of one computing sample ([`crate::measure::sweep::sizing::sample_seconds`]).
    pub(crate) sample_seconds: f64,
    /// Bytes of one message: one communication sample.
    pub(crate) message_bytes: u64,
    pub(crate) noise: Noise,
    /// How a phase's median moves from one run to the next ([`RunNoise::factors`]).
    pub(crate) between: RunNoise,
    /// The draws of a point depend only on this seed, the placement and the core count, so
    /// a resumed or reordered campaign draws the same points.
    pub(crate) seed: u64,
    /// The run (MPI launch) of a trace of runs, from 0: each run draws its own numbers, and
    /// its own level of each phase ([`RunNoise::factors`]).
    pub(crate) run: u32,
    pub(crate) interrupted: &'a AtomicBool,
}

impl SimulatedBench<'_> {
    /// Runs `points` in order as the real sweep (`run::Bench::sweep`) does, calling `phase` when a
    /// phase starts and `done` after each point with the simulated time its phases took (so
    /// a campaign stopped by Ctrl-C keeps the time of the points it saved); returns the
    /// simulated time of every phase.
    pub(crate) fn sweep(
        &self,
        points: &[u32],
        phase: impl FnMut(u32, &str),
        mut done: impl FnMut(TracePoint, Duration) -> crate::Result<()>,
    ) -> Result<Duration, Abort> {
        // A simulated sender has its own core; only a phase short of messages is starved.
        let starvation = Starvation {
            message_bytes: self.message_bytes,
            sweep_max: points.iter().copied().max().unwrap_or(1),
            ..Starvation::default()
        };
        let rules = Rules {
            plan: self.plan,
            // Every simulated thread runs where the plan puts it.
            bind: true,
            sampling: self.sampling,
            interrupted: self.interrupted,
            starvation: &starvation,
        };
        let point_took = Cell::new(0.0);
        let mut exec = Simulated {
            bench: self,
            clock: Duration::ZERO,
            point_at: 0.0,
            point_took: &point_took,
        };
        rules.points(&mut exec, points, phase, |p| {
            done(p, Duration::from_secs_f64(point_took.get()))
        })?;
        Ok(exec.clock)
    }
}

/// The simulated executor.
struct Simulated<'b, 'a> {
    bench: &'b SimulatedBench<'a>,
    /// Simulated time of every phase so far.
    clock: Duration,
    /// Seconds since the current point started (its phases share one clock).
    point_at: f64,
    /// Seconds the last finished point took, set as it ends ([`Executor::take_cpus`]).
    point_took: &'b Cell<f64>,
}

/// The last word of a phase generator's key: what the key is for (the sweep's phases), apart
/// from the keys [`Rng::new`] makes (0 there).
const PHASE_KEY: u64 = 1;

/// The generator of one phase of one point: the campaign's seed and the placement are its
/// key, the core count and the phase its stream, so every phase of every point of every seed
/// draws numbers of its own (see [`crate::simulate::rng`]); run 0's phases draw what a trace
/// of one run always drew, a later run's its own (the run in the key's last word, above the
/// kinds of key).
fn phase_rng(seed: u64, placement: Placement, n: usize, streams: Streams, run: u32) -> Rng {
    keyed(seed, placement, n, streams, PHASE_KEY, run)
}

/// The level of a phase's computations and communications in run `run`, drawn by the noise
/// between runs ([`RunNoise::factors`]) from keys of its own, so the phase's samples draw
/// what they drew without it: the day's level is the seed's, the run's is shared by every
/// core count of the run (the placement is the unit measured), the point's by its phases
/// alone and in parallel.
fn launch_levels(b: &SimulatedBench<'_>, n: usize, streams: Streams) -> (f64, f64) {
    let key = RunKey {
        seed: b.seed,
        unit: (u64::from(b.placement.comp_numa) << 32) | u64::from(b.placement.comm_numa),
        run: u64::from(b.run),
    };
    let max = b.plan.compute.len().max(1) as u32;
    let f = b.between.factors(key, n as u32, max);
    match streams {
        Streams::Comp => (f[0], 1.0),
        Streams::Comm => (1.0, f[1]),
        Streams::Both => (f[2], f[3]),
    }
}

/// Stream `n`, `streams` of the key of `seed`, the placement, the kind of key and the run.
fn keyed(seed: u64, placement: Placement, n: usize, streams: Streams, kind: u64, run: u32) -> Rng {
    let which = match streams {
        Streams::Comp => 0,
        Streams::Comm => 1,
        Streams::Both => 2,
    };
    let key = [
        seed,
        u64::from(placement.comp_numa),
        u64::from(placement.comm_numa),
        kind | (u64::from(run) << 8),
    ];
    // n is a core count (at most u32::MAX): shifted by two bits it stays within 64.
    Rng::keyed(key, ((n as u64) << 2) | which)
}

/// The computing threads of a phase: round `k` of thread `i` lasts one sample from
/// `start + i * THREAD_STAGGER + k * sample`, and moves what its drawn bandwidth moves then.
struct Computing {
    stream: Stream,
    threads: Vec<Timings>,
    start: f64,
    sample: f64,
}

impl Computing {
    /// Draws rounds until every thread has finished its iterations up to `until`.
    fn advance(&mut self, until: f64) {
        loop {
            let k = self.threads[0].len() as f64;
            if self.start + k * self.sample > until {
                return;
            }
            for (i, mbps) in self.stream.next_round().into_iter().enumerate() {
                let start = self.start + i as f64 * THREAD_STAGGER + k * self.sample;
                self.threads[i].push(Span {
                    start,
                    end: start + self.sample,
                    bytes: (mbps * 1e6 * self.sample) as u64,
                });
            }
        }
    }
}

/// The shortest simulated communication sample, as a share of a computing sample
/// ([`SimulatedBench::sample_seconds`]): messages shorter than this are drawn several at a
/// time, back to back at one drawn bandwidth, as one sample. Without it every message was a
/// sample: 1-byte messages at 11 GB/s filled a 1.5 s phase with billions of them (10 GB
/// resident within seconds), 256 KiB ones wrote a 163 MB trace that `calibrate` refuses.
/// With it a phase holds at most 16 times as many communication samples as a computing
/// thread's (about 670 in `--max-phase`, 2,700 stretched to its most), whatever the message
/// size. A sixteenth keeps the paper's 64 MiB messages one per sample at the default
/// `--max-phase` (a 2.2 ms floor; 64 MiB take 3.0 ms at the fastest simulated link,
/// diablo's 22.4 GB/s), as a real run times them.
pub(crate) const MESSAGE_SAMPLE_SHARE: f64 = 1.0 / 16.0;

/// The messages of a phase, one after the other, each taking what its drawn bandwidth
/// gives it; those shorter than `min_sample` grouped into samples of that length at least.
struct Messages {
    stream: Stream,
    done: Timings,
    next: f64,
    bytes: u64,
    min_sample: f64,
}

impl Messages {
    fn advance(&mut self, until: f64) {
        while self.next <= until {
            let mbps = self.stream.next_round()[0];
            let one = self.bytes as f64 / (mbps * 1e6);
            // Whole messages, enough to last `min_sample`: one when a message lasts that
            // long (and for a bandwidth that is not positive, which no model gives).
            let count = (self.min_sample / one).ceil().max(1.0);
            let count = if count.is_finite() { count as u64 } else { 1 };
            let end = self.next + count as f64 * one;
            self.done.push(Span {
                start: self.next,
                end,
                bytes: self.bytes.saturating_mul(count),
            });
            self.next = end;
        }
    }
}

/// The iterations of `t` finished by `at` (seconds on the point's clock).
fn finished(t: &Timings, at: f64) -> Timings {
    t.iter().copied().filter(|s| s.end <= at).collect()
}

impl Executor for Simulated<'_, '_> {
    fn phase(
        &mut self,
        streams: Streams,
        n: usize,
        _t0: Instant,
        watch: &mut dyn FnMut(&Snapshot) -> Verdict,
    ) -> Result<(String, Snapshot), Abort> {
        let b = self.bench;
        let exact = b
            .truth
            .point(b.placement, n as u32)
            .map_err(|e| Abort::Failed(format!("simulated {}: {e}", b.truth.spec())))?;
        let mut rng = phase_rng(b.seed, b.placement, n, streams, b.run);
        let (comp_level, comm_level) = launch_levels(b, n, streams);
        let both = streams == Streams::Both;
        let begin = self.point_at;
        let mut comp = (streams != Streams::Comm).then(|| {
            let bw = if both {
                exact.comp_parallel
            } else {
                exact.comp_alone
            };
            Computing {
                stream: Stream::new(bw * comp_level, n, b.noise, rng.fork(1)),
                threads: vec![Timings::new(); n],
                start: begin,
                sample: b.sample_seconds,
            }
        });
        let mut comm = (streams != Streams::Comp).then(|| {
            let bw = if both {
                exact.comm_parallel
            } else {
                exact.comm_alone
            };
            Messages {
                stream: Stream::new(bw * comm_level, 1, b.noise.messages(), rng.fork(2)),
                done: Timings::new(),
                next: begin,
                bytes: b.message_bytes,
                min_sample: b.sample_seconds * MESSAGE_SAMPLE_SHARE,
            }
        });
        // On the simulated clock: each look draws the samples that end before it.
        let look = |since: Duration| {
            let at = begin + since.as_secs_f64();
            Snapshot {
                at: since,
                comp: comp.as_mut().map_or_else(Vec::new, |c| {
                    c.advance(at);
                    c.threads.iter().map(|t| finished(t, at)).collect()
                }),
                comm: vec![comm.as_mut().map_or_else(Timings::new, |m| {
                    m.advance(at);
                    finished(&m.done, at)
                })],
            }
        };
        let (verdict, snap) = watch_every_look(look, watch);
        self.clock += snap.at;
        self.point_at = begin + snap.at.as_secs_f64();
        verdict.map(|why| (why, snap))
    }

    fn take_cpus(&mut self, n: usize) -> (Vec<Vec<u32>>, Vec<u32>) {
        // The point is over: the next one starts its own clock.
        self.point_took.set(self.point_at);
        self.point_at = 0.0;
        let comp = self.bench.plan.compute[..n]
            .iter()
            .map(|s| vec![s.pu_os])
            .collect();
        (comp, vec![self.bench.plan.comm.pu_os])
    }
}

#[cfg(test)]
mod tests {
    use crate::measure::sweep::simulated::*;
    use crate::simulate::Shape;
    use crate::trace::CoreSlot;

    fn plan() -> Plan {
        let slot = |core| CoreSlot {
            core,
            pu_os: core,
            socket: 0,
        };
        Plan {
            compute: (0..18).map(slot).collect(),
            comm: slot(18),
            comm_reason: "test".into(),
            comm_shares_core: false,
            comp_numa_os: 0,
            comm_numa_os: 0,
        }
    }

    fn sweep(noise: Noise, points: &[u32]) -> (Vec<TracePoint>, Duration) {
        sweep_run(noise, points, 0)
    }

    fn sweep_run(noise: Noise, points: &[u32], run: u32) -> (Vec<TracePoint>, Duration) {
        let truth = Truth::parse("paper:henri").unwrap();
        assert_eq!(truth.shape(), Shape::Paper);
        let (plan, stop) = (plan(), AtomicBool::new(false));
        let bench = SimulatedBench {
            truth: &truth,
            placement: Placement {
                comp_numa: 0,
                comm_numa: 0,
            },
            plan: &plan,
            sampling: Sampling {
                max_phase: Duration::from_millis(1500),
                stable_within: 0.01,
                timeout: Duration::from_secs(60),
            },
            sample_seconds: crate::measure::sweep::sizing::sample_seconds(1.5),
            message_bytes: 64 << 20,
            noise,
            between: if noise == Noise::NONE {
                RunNoise::NONE
            } else {
                RunNoise::REAL_16_CORE
            },
            seed: 9,
            run,
            interrupted: &stop,
        };
        let mut done = Vec::new();
        let clock = bench
            .sweep(
                points,
                |_, _| {},
                |p, _| {
                    done.push(p);
                    Ok(())
                },
            )
            .unwrap();
        (done, clock)
    }

    #[test]
    fn without_noise_each_phase_measures_the_truth_and_stops_as_soon_as_the_rules_allow() {
        let (done, clock) = sweep(Noise::NONE, &[1, 12]);
        let truth = Truth::parse("paper:henri").unwrap();
        let at = Placement {
            comp_numa: 0,
            comm_numa: 0,
        };
        for p in &done {
            let t = truth.point(at, p.cores).unwrap();
            let close = |got: f64, want: f64| (got / want - 1.0).abs() < 1e-6;
            assert!(close(p.comp_alone.summary.median, t.comp_alone));
            assert!(close(p.comm_alone.summary.median, t.comm_alone));
            assert!(close(p.comp_parallel.summary.median, t.comp_parallel));
            assert!(close(p.comm_parallel.summary.median, t.comm_parallel));
            assert!(!p.comp_alone.unstable, "{}", p.comp_alone.sampling);
            assert!(p.comp_alone.sampling.contains("stopped: stable"));
        }
        // Noise-free rounds are stable as soon as a phase may stop: once it has run half of
        // --max-phase (0.75 s), well under the limit of 1.5 s for each of the six phases.
        assert!(
            clock > Duration::from_secs_f64(4.5) && clock < Duration::from_secs(8),
            "{clock:?}"
        );
    }

    /// The first draws of the generator of one phase.
    fn first_draws(seed: u64, placement: Placement, n: usize, streams: Streams) -> [u64; 2] {
        let mut r = phase_rng(seed, placement, n, streams, 0);
        [r.next_u64(), r.next_u64()]
    }

    #[test]
    fn no_two_phases_share_their_draws_whatever_their_seeds_points_and_placements() {
        // Tags XOR-ed into the seed made seed 1's computations in parallel at 4 cores draw
        // seed 3's computations alone (1 ^ 3 = 3 ^ 1), and seed 1 at 4 cores seed 257 at 5
        // (4 << 8 ^ 5 << 8 = 256): the same relative errors, correlation 1.0.
        let mut seen = std::collections::HashMap::new();
        for seed in [0, 1, 2, 3, 256, 257, 258, 259] {
            for (comp_numa, comm_numa) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                let at = Placement {
                    comp_numa,
                    comm_numa,
                };
                for n in 1..=8 {
                    for streams in [Streams::Comp, Streams::Comm, Streams::Both] {
                        let key = (seed, comp_numa, comm_numa, n, streams);
                        if let Some(was) = seen.insert(first_draws(seed, at, n, streams), key) {
                            panic!("{key:?} draws what {was:?} draws");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn noise_makes_phases_longer_and_the_draws_depend_only_on_the_seed_and_the_point() {
        let (quiet, quiet_clock) = sweep(Noise::NONE, &[4]);
        let (_, noisy_clock) = sweep(Noise::TYPICAL, &[4]);
        assert!(noisy_clock > quiet_clock, "{noisy_clock:?} {quiet_clock:?}");
        let (noisy, _) = sweep(Noise::TYPICAL, &[4, 8]);
        assert_ne!(quiet[0].comp_alone.summary, noisy[0].comp_alone.summary);
        // Point 8 drawn alone is point 8 drawn after point 4.
        let (alone, _) = sweep(Noise::TYPICAL, &[8]);
        assert_eq!(alone[0].comp_parallel, noisy[1].comp_parallel);
    }

    #[test]
    fn each_run_is_a_launch_of_its_own_that_moves_its_phases_as_a_real_nodes_do() {
        // The medians of 12 runs of one point: runs differ (their own draws and level), and
        // their spread is the noise between runs' (communications 6 %, computations 4 %), far
        // beyond what one run's samples scatter by (its within-run interval).
        let medians: Vec<[f64; 4]> = (0..12)
            .map(|r| {
                let (p, _) = sweep_run(Noise::TYPICAL, &[4], r);
                p[0].phases().map(|ph| ph.summary.median)
            })
            .collect();
        assert_ne!(medians[0], medians[1]);
        let spread = |q: usize| {
            let logs: Vec<f64> = medians.iter().map(|m| m[q].ln()).collect();
            let mean = logs.iter().sum::<f64>() / logs.len() as f64;
            (logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (logs.len() - 1) as f64).sqrt()
        };
        let (comp, comm) = (spread(0), spread(1));
        assert!((0.02..0.08).contains(&comp), "computations alone: {comp}");
        assert!((0.05..0.18).contains(&comm), "communications alone: {comm}");
        // Run 0 draws its samples as a one-run trace always did, at its own level.
        let (one, _) = sweep(Noise::TYPICAL, &[4]);
        assert_eq!(one[0].comp_alone.summary.median, medians[0][0]);
    }
}
