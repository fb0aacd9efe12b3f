//! A measurement session on a simulated machine (`measure --simulate paper:henri`): the
//! plan from the model's machine (its cores and NUMA nodes stand in for hwloc's topology),
//! the sweep of [`crate::measure::sweep::simulated`] with the same phase and stop rules as a real
//! run, and the trace kept on disk after every point, marked simulated
//! ([`crate::trace::MachineInfo::simulated`]) so that no reader takes it for a real one.
//! No MPI, no binding, no buffers.

use crate::error::{Error, Result};
use crate::io::trace_file;
use crate::kernels::ComputeKernel;
use crate::measure::adaptive::AdaptiveOptions;
use crate::measure::choices::CommPattern;
use crate::measure::options::MeasureOptions;
use crate::measure::session;
use crate::measure::sweep::rules::{Abort, Sampling};
use crate::measure::sweep::simulated::SimulatedBench;
use crate::measure::sweep::sizing;
use crate::measure::trace_size;
use crate::model::Placement;
use crate::mpi::progress::{self, Progress};
use crate::provenance::Provenance;
use crate::runs;
use crate::simulate::{Noise, RunNoise, Truth};
use crate::trace::{
    CoreSlot, MachineInfo, MeasureConfig, MpiInfo, NumaNodeInfo, Plan, Simulation, Sizing, Trace,
    TracePoint, TRACE_SCHEMA_VERSION,
};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// What `--simulate` adds to a measurement: the machine and the seed of its draws.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulateOptions {
    pub machine: Truth,
    pub seed: u64,
    /// How the samples scatter: [`Noise::TYPICAL`] from the command line; the benchmark
    /// turns a layer off to see what share of the fit's error it causes.
    pub noise: Noise,
    /// How a phase's median moves from one run to the next: [`RunNoise::REAL_16_CORE`] from
    /// the command line.
    pub between: RunNoise,
}

/// Bytes each simulated computing core writes per pass when `--buffer-size` is not given:
/// what the real sizing gives a node of the paper's kind (4 x a 25-40 MiB cache shared by
/// 16-32 cores, rounded up), used for the time a real run would spend touching buffers.
const SIMULATED_BUFFER: u64 = 256 << 20;

/// A simulated measurement laid out: the machine as a trace describes it, the pinning plan
/// and the configuration, from the model's machine.
pub(crate) struct Layout {
    pub(crate) machine: MachineInfo,
    pub(crate) plan: Plan,
    pub(crate) config: MeasureConfig,
    pub(crate) placement: Placement,
}

/// Why the paper's machines answer no other workload, pattern or binding.
const MEASURED_AS: &str = "the paper's machines were measured with non-temporal stores, \
                           `pong` messages and every thread bound";

/// Refuses what a simulated machine cannot answer: other workloads and patterns than the
/// paper's (its models were measured with non-temporal stores and `pong`), hosts, binding
/// choices, a ring's ranks. An option left at its default is not refused, given or not:
/// it asks for what the simulation does.
fn refuse_unsimulated(o: &MeasureOptions, spec: &str) -> Result<()> {
    let ring = "a ring's ranks; the paper's machines were measured with `pong` messages from \
                one sender";
    let given = [
        (o.kernel != ComputeKernel::NtStore, "--kernel", MEASURED_AS),
        (o.pattern != CommPattern::Pong, "--pattern", MEASURED_AS),
        (o.hosts.is_some(), "--hosts", MEASURED_AS),
        (o.comm_core.is_some(), "--comm-core", MEASURED_AS),
        (o.shared_comm_core, "--shared-comm-core", MEASURED_AS),
        (o.no_bind, "--no-bind", MEASURED_AS),
        (
            o.message_buffers.is_some(),
            "--message-buffers",
            MEASURED_AS,
        ),
        (o.ranks != MeasureOptions::default().ranks, "--ranks", ring),
    ];
    match given.iter().find(|(g, _, _)| *g) {
        Some((_, name, why)) => Err(not_simulated(spec, name, why)),
        None => Ok(()),
    }
}

/// The refusal of an option `--simulate SPEC` has no use for, with why, as usage errors
/// are: `measure` refuses its launch options (`--launcher`, `--topology`) the same way.
pub fn not_simulated(spec: &str, name: &str, why: &str) -> Error {
    Error::Input(format!(
        "--simulate {spec}: {name} is not simulated ({why}); drop {name}"
    ))
}

/// The layout of `o` on the simulated machine, refusing nodes and core counts it lacks.
pub(crate) fn layout(o: &MeasureOptions, sim: &SimulateOptions) -> Result<Layout> {
    let truth = &sim.machine;
    let spec = truth.spec();
    refuse_unsimulated(o, &spec)?;
    let m = truth.machine();
    let nodes = truth.model().predictable_nodes();
    for (what, node) in [("COMP", o.comp_numa), ("COMM", o.comm_numa)] {
        if node >= nodes {
            return Err(Error::Input(format!(
                "--simulate {spec} --numa {},{}: {what} node {node} is not a node of the \
                 simulated machine, which has nodes 0..{}",
                o.comp_numa,
                o.comm_numa,
                nodes - 1
            )));
        }
    }
    let cps = m.cores_per_socket;
    let machine = machine_info(truth);
    let cores: Vec<u32> = match &o.cores {
        Some(list) => {
            list.check_max(cps, &format!("the cores per socket of {spec}"))
                .map_err(|e| Error::Input(format!("--cores: {e}")))?;
            list.counts().to_vec()
        }
        None => (1..=cps).collect(),
    };
    let slot = |core: u32| CoreSlot {
        core,
        pu_os: core,
        socket: core / cps,
    };
    // The paper's communication thread runs on the other socket (section 4.1.1); on a
    // single-socket machine, on a core of its own past the computing ones.
    let plan = Plan {
        compute: (0..cps).map(slot).collect(),
        comm: slot(cps),
        comm_reason: format!("simulated: the first core after the computing ones of {spec}"),
        comm_shares_core: false,
        comp_numa_os: o.comp_numa,
        comm_numa_os: o.comm_numa,
    };
    let buffer = o.buffer_size.map_or(SIMULATED_BUFFER, |b| b.0);
    // The computing node holds a buffer per computing core: `--buffer-size 4096G` passed
    // and planned a day of touching buffers on a node of 64 GiB.
    let node_bytes = machine
        .numa_nodes
        .get(o.comp_numa as usize)
        .map_or(0, |n| n.memory_bytes);
    if buffer.saturating_mul(u64::from(cps)) > node_bytes {
        return Err(Error::Input(format!(
            "--buffer-size {}: {cps} computing cores of {spec} need {} of memory on NUMA \
             node {}, which has {}; give at most {} (or leave --buffer-size out)",
            crate::units::ByteSize(buffer),
            crate::units::ByteSize(buffer.saturating_mul(u64::from(cps))),
            o.comp_numa,
            crate::units::ByteSize(node_bytes),
            crate::units::ByteSize(node_bytes / u64::from(cps.max(1)))
        )));
    }
    let config = MeasureConfig {
        comp_numa: o.comp_numa,
        comm_numa: o.comm_numa,
        cores,
        message_size_bytes: o.message_size.0,
        buffer_bytes_per_core: buffer,
        max_phase_seconds: o.max_phase,
        stable_within: o.stable_within / 100.0,
        timeout_seconds: o.timeout,
        kernel: "simulated".into(),
        compute_kernel: ComputeKernel::NtStore.name().into(),
        pattern: CommPattern::Pong.name().into(),
        ranks: 2,
        bind: true,
        runs: o.runs,
        sizing: Some(Sizing {
            chunk_bytes: sizing::chunk_bytes(o.max_phase, buffer),
            sample_seconds: sizing::sample_seconds(o.max_phase),
            message_buffers: 1,
            llc_bytes_comp: 0,
            llc_bytes_comm: 0,
            cache_factor: sizing::CACHE_FACTOR,
            warnings: Vec::new(),
        }),
    };
    let placement = Placement {
        comp_numa: o.comp_numa,
        comm_numa: o.comm_numa,
    };
    let slots = session::trace_slots(&plan);
    trace_size::check(&config, slots, &sample_seconds(truth, placement, &config))?;
    Ok(Layout {
        machine,
        plan,
        config,
        placement,
    })
}

/// How much faster or slower than the model a simulated message may come, for the trace's
/// size: the noise of a run's launch and of each message, with room to spare.
const SIMULATED_SPREAD: f64 = 1.5;

/// The seconds of one communication sample of a simulated point of `n` cores, for
/// [`trace_size`]: its messages at the model's bandwidths alone and in parallel,
/// [`SIMULATED_SPREAD`] faster and slower, grouped into samples of a sixteenth of a
/// computing sample at least (`MESSAGE_SAMPLE_SHARE`).
fn sample_seconds<'a>(
    truth: &'a Truth,
    placement: Placement,
    c: &'a MeasureConfig,
) -> impl Fn(u32) -> trace_size::SampleSeconds + 'a {
    let bytes = c.message_size_bytes as f64;
    let floor = sizing::sample_seconds(c.max_phase_seconds)
        * crate::measure::sweep::simulated::MESSAGE_SAMPLE_SHARE;
    move |n| {
        let Ok(p) = truth.point(placement, n) else {
            return trace_size::SampleSeconds::real(c.message_size_bytes);
        };
        let (lo, hi) = (
            p.comm_alone.min(p.comm_parallel),
            p.comm_alone.max(p.comm_parallel),
        );
        let seconds = |mbps: f64| (bytes / (mbps * 1e6)).max(floor);
        trace_size::SampleSeconds {
            shortest: seconds(hi * SIMULATED_SPREAD),
            longest: (lo > 0.0).then(|| seconds(lo / SIMULATED_SPREAD)),
        }
    }
}

/// The machine a simulated trace describes: the model's sockets, cores and NUMA nodes, and
/// its spec as `machine.simulated` (with `simulation`, the marks every reader checks).
fn machine_info(truth: &Truth) -> MachineInfo {
    let spec = truth.spec();
    let m = truth.machine();
    let cps = m.cores_per_socket;
    let sockets = (m.numa_nodes / m.numa_per_socket.max(1)).max(1);
    MachineInfo {
        hostname: format!("simulated-{}", spec.replace(':', "-")),
        cpu_model: format!("simulated {spec}"),
        sockets,
        cores_per_socket: cps,
        pus_per_core: 1,
        numa_per_socket: m.numa_per_socket,
        numa_nodes: (0..m.numa_nodes)
            .map(|i| NumaNodeInfo {
                logical_index: i,
                os_index: i,
                socket: Some(i / m.numa_per_socket.max(1)),
                memory_bytes: 64 << 30,
            })
            .collect(),
        nics: Vec::new(),
        gpus: Vec::new(),
        hwloc_version: "none (simulated)".into(),
        simulated: Some(spec.clone()),
    }
}

/// The `--dry-run` plan of a simulated measurement.
pub(crate) fn describe(l: &Layout, sim: &SimulateOptions) -> String {
    let m = &l.machine;
    let c = &l.config;
    let (sweep, touch) = session::estimated_seconds(c);
    let size = trace_size::estimate(
        c,
        session::trace_slots(&l.plan),
        &sample_seconds(&sim.machine, l.placement, c),
    );
    format!(
        "machine     {} (seed {}): {} socket(s), {} cores per socket, {} NUMA node(s), {} per \
         socket; no MPI, no binding: every phase is drawn from the model on a simulated clock\n\
         placement   computation data on node {}, communication data on node {}\n\
         {}\
         duration    a real node: at most {:.0} s (+{:.0} s to touch the buffers); simulated \
         in seconds\n{}{}",
        sim.machine.spec(),
        sim.seed,
        m.sockets,
        m.cores_per_socket,
        m.numa_nodes.len(),
        m.numa_per_socket,
        c.comp_numa,
        c.comm_numa,
        crate::measure::describe::sweep_line(c),
        sweep,
        touch,
        runs::plan_line(c.runs, sweep, touch, true),
        trace_size::plan_line(size)
    )
}

/// A new simulated trace of `layout`, no point measured yet, with both marks of origin
/// (`machine.simulated` and `simulation`), as `measure --simulate` and a simulated fleet's
/// nodes (`crate::survey::simulated`) start theirs.
pub(crate) fn fresh_trace(layout: &Layout, sim: &SimulateOptions) -> Trace {
    let now = crate::timestamp::now();
    Trace {
        schema_version: TRACE_SCHEMA_VERSION,
        tool: Provenance::current(),
        machine: layout.machine.clone(),
        mpi: MpiInfo {
            library_version: "none (simulated)".into(),
            thread_level: "none (simulated)".into(),
            hosts: vec![layout.machine.hostname.clone()],
            library: None,
            launcher: None,
            stack: None,
        },
        config: layout.config.clone(),
        plan: layout.plan.clone(),
        started_at: now.clone(),
        updated_at: now,
        complete: false,
        points: Vec::new(),
        runs: Vec::new(),
        transport: None,
        sender: None,
        settings: None,
        buffers: Vec::new(),
        simulation: Some(Simulation {
            machine: sim.machine.spec(),
            seed: sim.seed,
            measuring_seconds: 0.0,
        }),
        adaptive: None,
        gpu: None,
    }
}

/// A simulated campaign on disk: the trace, saved after every point.
pub(crate) struct Campaign<'a> {
    pub(crate) sim: &'a SimulateOptions,
    pub(crate) layout: Layout,
    pub(crate) trace: Trace,
    pub(crate) path: PathBuf,
    pub(crate) mode: progress::Mode,
    pub(crate) interrupted: &'a AtomicBool,
    /// Measuring the points an adaptive sweep chooses one at a time.
    chosen: bool,
    /// `--resume` made the trace's combined points again from its runs (one was refused,
    /// [`session::resumable`]): the trace is saved even with nothing left to measure.
    remade: bool,
    /// The run index whose draws the run being measured takes ([`drawn_as`]).
    draw: u32,
}

impl<'a> Campaign<'a> {
    /// Starts the trace of `o` (or continues it with `--resume`), refusing to overwrite one
    /// without `--force` as a real run does.
    pub(crate) fn start(
        o: &MeasureOptions,
        sim: &'a SimulateOptions,
        mode: progress::Mode,
        interrupted: &'a AtomicBool,
    ) -> Result<Campaign<'a>> {
        let layout = layout(o, sim)?;
        let path = o.trace_path(&layout.machine.hostname);
        session::check_output(o, &path)?;
        let (layout, (trace, remade)) = if o.resume {
            resume_of(o, sim, trace_file::read_to_resume(&path)?, &path)?
        } else {
            let fresh = fresh_trace(&layout, sim);
            (layout, (fresh, false))
        };
        Ok(Campaign {
            sim,
            layout,
            trace,
            path,
            mode,
            interrupted,
            chosen: false,
            remade,
            draw: 0,
        })
    }

    /// Measures `points` (core counts) in order, saving the trace after each; returns the
    /// simulated time their phases took.
    pub(crate) fn measure(&mut self, points: &[u32]) -> Result<Duration> {
        self.measure_run(points, None)
    }

    /// The point of `n` cores an adaptive sweep chose, counted after the trace's points (it
    /// said "point 1/1" at every one).
    fn measure_chosen(&mut self, n: u32) -> Result<Duration> {
        self.chosen = true;
        self.measure_run(&[n], None)
    }

    /// Every run of a trace of runs not yet complete, one after the other (each a launch of
    /// its own: its own draws and levels, [`SimulatedBench::run`]), its core counts in its
    /// order, with the runs combined on standard error after each unless quiet.
    fn measure_runs(&mut self, o: &MeasureOptions) -> Result<()> {
        while let Some(i) = runs::current(&mut self.trace, o.seed, &crate::timestamp::now()) {
            let todo = runs::todo(&self.trace.runs[i]);
            self.draw = self.drawn_as(i, &todo);
            if self.mode != progress::Mode::Quiet {
                eprintln!(
                    "measure: {}",
                    runs::start_line(i, self.trace.config.runs, &todo, o.seed)
                );
            }
            self.measure_run(&todo, Some(i))?;
            if self.mode != progress::Mode::Quiet {
                eprint!("{}", crate::point_line::runs_summary(&self.trace));
            }
        }
        Ok(())
    }

    /// The run index whose draws run `i` of a trace of runs takes, measuring `todo` next:
    /// its position, unless another run already holds that index's draws. A simulated run's
    /// numbers follow its index ([`SimulatedBench::run`]), so with `runs[1]` of three
    /// deleted, the run now at 1 holds run 2's draws, and a resume drew run 2 again as the
    /// new third: a copy refused after its first point, while every reader's note advised
    /// that resume (issue 46, N1). The first index whose draw of the next point equals no
    /// other run's point is taken: a point drawn is all its samples, so no two indices draw
    /// one alike, and a run stopped midway is continued with the index it was begun with.
    fn drawn_as(&self, i: usize, todo: &[u32]) -> u32 {
        let own = i as u32;
        let Some(&next) = todo.first() else {
            return own;
        };
        let others: Vec<&TracePoint> = (self.trace.runs.iter().enumerate())
            .filter(|&(j, _)| j != i)
            .flat_map(|(_, r)| &r.points)
            .filter(|p| p.cores == next)
            .collect();
        if others.is_empty() {
            return own;
        }
        let drawn = |run: u32| {
            let mut first = None;
            let b = bench(
                self.sim,
                &self.layout,
                &self.trace.config,
                run,
                self.interrupted,
            );
            // The sweep stops at the first point: only it is compared.
            let _ = b.sweep(
                todo,
                |_, _| {},
                |p, _| {
                    first = Some(p);
                    Err(Error::Failed("drawn".into()))
                },
            );
            first
        };
        (own..own.saturating_add(runs::MAX_RUNS))
            .find(|&d| drawn(d).is_none_or(|p| !others.contains(&&p)))
            .unwrap_or(own)
    }

    /// [`Campaign::measure`] into run `run` of a trace of runs, or into its points.
    fn measure_run(&mut self, points: &[u32], run: Option<usize>) -> Result<Duration> {
        let c = self.trace.config.clone();
        for n in points {
            if !self.trace.config.cores.contains(n) {
                self.trace.config.cores.push(*n);
            }
        }
        self.trace.config.cores.sort_unstable();
        let draw = run.map_or(0, |_| self.draw);
        let bench = bench(self.sim, &self.layout, &c, draw, self.interrupted);
        let progress = std::cell::RefCell::new(if self.chosen {
            Progress::open(self.mode, self.trace.points.len())
        } else {
            Progress::new(self.mode, points.len())
        });
        let (trace, path) = (&mut self.trace, &self.path);
        // A save refused as bad input (a trace edited before this run) keeps its kind
        // (exit 2); the sweep only carries a failure's words.
        let refused: std::cell::RefCell<Option<Error>> = std::cell::RefCell::new(None);
        let result = bench.sweep(
            points,
            |n, phase| progress.borrow_mut().phase(n, phase),
            |point: TracePoint, took: Duration| {
                progress
                    .borrow_mut()
                    .point_done(&crate::point_line::point_line(&point, c.stable_within));
                match run {
                    Some(i) => trace.runs[i].points.push(point),
                    None => trace.points.push(point),
                }
                if let Some(s) = trace.simulation.as_mut() {
                    s.measuring_seconds += took.as_secs_f64();
                }
                session::save(path, trace).map_err(|e| match e {
                    Error::Input(why) => {
                        *refused.borrow_mut() = Some(Error::Input(why.clone()));
                        Error::Failed(why)
                    }
                    e => e,
                })
            },
        );
        if let Some(e) = refused.into_inner() {
            return Err(e);
        }
        let spent = match result {
            Ok(d) => d,
            Err(Abort::Interrupted) => {
                return Err(Error::Interrupted(format!(
                    "interrupted: finished points are saved in {}; continue with --resume",
                    self.path.display()
                )))
            }
            Err(Abort::Failed(why) | Abort::Stalled(why)) => return Err(Error::Failed(why)),
        };
        session::save(&self.path, &mut self.trace)?;
        Ok(spent)
    }

    /// The closing line: what was drawn, and how long a real node would have measured.
    pub(crate) fn summary(&self, wall: Duration) -> String {
        let measuring = self
            .trace
            .simulation
            .as_ref()
            .map_or(0.0, |s| s.measuring_seconds);
        let (_, touch) = session::estimated_seconds(&self.trace.config);
        format!(
            "simulated {}: {} point(s) in {:.1} s; a real node would measure for about {} \
             (+{:.0} s to touch the buffers); trace in {}",
            self.sim.machine.spec(),
            self.trace.points.len(),
            wall.as_secs_f64(),
            crate::units::human_seconds(measuring),
            touch,
            crate::error::shown_path(&self.path)
        )
    }
}

/// The simulated sweep of `layout` on `sim`'s machine, sampled as `c` says, drawing run
/// `run`'s numbers.
fn bench<'b>(
    sim: &'b SimulateOptions,
    layout: &'b Layout,
    c: &MeasureConfig,
    run: u32,
    interrupted: &'b AtomicBool,
) -> SimulatedBench<'b> {
    SimulatedBench {
        truth: &sim.machine,
        placement: layout.placement,
        plan: &layout.plan,
        sampling: Sampling {
            max_phase: Duration::from_secs_f64(c.max_phase_seconds),
            stable_within: c.stable_within,
            timeout: Duration::from_secs_f64(c.timeout_seconds),
        },
        sample_seconds: c.sizing.as_ref().map_or_else(
            || sizing::sample_seconds(c.max_phase_seconds),
            |s| s.sample_seconds,
        ),
        message_bytes: c.message_size_bytes,
        noise: sim.noise,
        between: sim.between,
        seed: sim.seed,
        run,
        interrupted,
    }
}

/// The trace `--resume` continues, checked to be the same simulated experiment, and
/// whether its combined points were made again ([`session::resumable`]).
fn resumed(old: Trace, fresh: Trace, path: &Path) -> Result<(Trace, bool)> {
    let source = crate::error::shown_path(path);
    let origin = |t: &Trace| -> Result<Option<(String, u64)>> {
        Ok(trace_file::simulated(t, &source)?.map(|s| (s.machine.clone(), s.seed)))
    };
    let (was, now) = (origin(&old)?, origin(&fresh)?);
    let same_placement = (old.config.comp_numa, old.config.comm_numa)
        == (fresh.config.comp_numa, fresh.config.comm_numa);
    let same_sampling = old.config.message_size_bytes == fresh.config.message_size_bytes
        && old.config.max_phase_seconds == fresh.config.max_phase_seconds
        && old.config.stable_within == fresh.config.stable_within;
    if was != now || !same_placement || !same_sampling {
        let what = |w: &Option<(String, u64)>| match w {
            Some((m, seed)) => format!("simulated {m} with seed {seed}"),
            None => "a real measurement".into(),
        };
        // Each difference named with both values: the message used to name the machine and
        // placement on both sides even when only --max-phase differed.
        let (o, n) = (&old.config, &fresh.config);
        let mut differ = Vec::new();
        let mut say = |option: &str, was: String, now: String| {
            if was != now {
                differ.push(format!("{option} {was} in the trace, {now} now"));
            }
        };
        say("origin", what(&was), what(&now));
        say(
            "--numa",
            format!("{},{}", o.comp_numa, o.comm_numa),
            format!("{},{}", n.comp_numa, n.comm_numa),
        );
        let size = |b: u64| crate::units::ByteSize(b).to_string();
        say(
            "--message-size",
            size(o.message_size_bytes),
            size(n.message_size_bytes),
        );
        let num = crate::units::short_number;
        say(
            "--max-phase",
            num(o.max_phase_seconds),
            num(n.max_phase_seconds),
        );
        say(
            "--stable-within",
            num(100.0 * o.stable_within),
            num(100.0 * n.stable_within),
        );
        return Err(Error::Input(format!(
            "--resume: `{}` was measured otherwise: {}; leave out the options that differ (the \
             trace's values are kept) or give the trace's, or start a new trace with -o",
            crate::error::shown_path(path),
            differ.join("; ")
        )));
    }
    check_resumable(&old, &fresh, path)?;
    // As a real run: a point a reader would refuse is dropped, named, and measured again.
    let (old, remade) = session::resumable(old, &fresh, path);
    let mut cores = old.config.cores.clone();
    cores.extend(&fresh.config.cores);
    cores.sort_unstable();
    cores.dedup();
    let trace = Trace {
        config: MeasureConfig {
            cores,
            runs: old.config.runs.max(fresh.config.runs),
            ..fresh.config
        },
        points: old.points,
        runs: old.runs,
        started_at: old.started_at,
        simulation: old.simulation,
        adaptive: old.adaptive,
        ..fresh
    };
    Ok((trace, remade))
}

/// The longest simulated measuring time a trace may say it took: about three years, beyond
/// any campaign (every core count of a 64-core socket with the longest phases, an hour
/// each, takes under ten days).
const MAX_MEASURING_SECONDS: f64 = 1e8;

/// Refuses what a hand-edited simulated trace could carry past the identity check of
/// [`resumed`], before anything is measured: a point, or a core count of `config.cores`,
/// beyond the simulated socket (a point would be fitted, and its buffers counted, as if the
/// machine had that many cores; a core count to measure failed only once the points before
/// it were measured, with `predict`'s hint, and again at every resume), or a measuring time
/// that is negative, not finite or beyond [`MAX_MEASURING_SECONDS`] (the closing line would
/// add this run's to it and print nonsense).
fn check_resumable(old: &Trace, fresh: &Trace, path: &Path) -> Result<()> {
    let cps = fresh.machine.cores_per_socket;
    let outside = |n: u32| n == 0 || n > cps;
    let points = old.run_points().into_iter().flatten();
    if let Some(p) = points.into_iter().find(|p| outside(p.cores)) {
        return Err(Error::Input(format!(
            "--resume: `{}` has a point at {} cores, and the simulated socket has 1..{cps}; \
             the trace was edited or is not this machine's: start a new trace with -o",
            path.display(),
            p.cores
        )));
    }
    if let Some(n) = old.config.cores.iter().copied().find(|&n| outside(n)) {
        return Err(Error::Input(format!(
            "--resume: `{}` asks for {n} cores in config.cores, and the simulated socket has \
             1..{cps}; the trace was edited or is not this machine's: start a new trace with \
             -o (and --cores within 1..{cps})",
            crate::error::escape(&path.display().to_string()),
        )));
    }
    if let Some(s) = &old.simulation {
        let t = s.measuring_seconds;
        if !(t.is_finite() && (0.0..=MAX_MEASURING_SECONDS).contains(&t)) {
            let named = crate::units::short_number(t);
            return Err(Error::Input(format!(
                "--resume: `{}` says simulation.measuring_seconds is {named}, not the duration \
                 of a campaign (0 to {MAX_MEASURING_SECONDS:e} s, about three years); the \
                 trace was edited: start a new trace with -o",
                path.display(),
            )));
        }
    }
    Ok(())
}

/// The layout a `--resume` measures, for its `--dry-run` plan: the trace read and checked as
/// [`Campaign::start`] reads it (nothing is written), its core counts and runs joined with
/// the options'. The plan of a resume was the options' alone: a missing, corrupt or other
/// machine's trace was planned with exit 0, and the plan's core counts, runs and trace size
/// were not those the resume measures (issue 46).
fn resumed_layout(o: &MeasureOptions, sim: &SimulateOptions) -> Result<Layout> {
    let l = layout(o, sim)?;
    let path = o.trace_path(&l.machine.hostname);
    if !path.exists() {
        return Err(session::resume_missing(&path));
    }
    let old = trace_file::read_to_resume(&path)?;
    if o.adaptive.is_none() {
        crate::measure::adaptive::refuse_resume_without_adaptive(&old, &path)?;
    }
    let (mut l, (trace, _)) = resume_of(o, sim, old, &path)?;
    l.config = trace.config;
    Ok(l)
}

/// The layout and trace (with whether its combined points were made again, [`resumed`]) of
/// a resume of `old`, read from `path`: as a real run, `--message-size`, `--max-phase`,
/// `--stable-within` and `--timeout` are the trace's unless given (a trace of `--max-phase
/// 0.05` was refused unless given again, against the option's help). What the campaign and
/// its `--dry-run` plan both continue from.
fn resume_of(
    o: &MeasureOptions,
    sim: &SimulateOptions,
    old: Trace,
    path: &Path,
) -> Result<(Layout, (Trace, bool))> {
    let l = layout(&o.keeping(&old.config), sim)?;
    let resumed = resumed(old, fresh_trace(&l, sim), path)?;
    Ok((l, resumed))
}

/// `measure --simulate`: the plan with `dry_run`, else the campaign (all its core counts, or
/// chosen one by one with `o.adaptive`), with a closing line on standard error unless quiet.
pub fn run(
    o: &MeasureOptions,
    sim: &SimulateOptions,
    mode: progress::Mode,
    dry_run: bool,
    interrupted: &AtomicBool,
) -> Result<()> {
    o.check()?;
    if dry_run {
        let l = if o.resume {
            resumed_layout(o, sim)?
        } else {
            layout(o, sim)?
        };
        print!("{}", describe(&l, sim));
        if let Some(a) = &o.adaptive {
            let all: Vec<u32> = (1..=l.machine.cores_per_socket).collect();
            print!("{}", a.design.describe(a, &all));
        }
        return Ok(());
    }
    let started = std::time::Instant::now();
    let mut campaign = Campaign::start(o, sim, mode, interrupted)?;
    let t = &campaign.trace;
    if o.resume && o.adaptive.is_none() && runs::nothing_left(t, &t.config.cores, t.config.runs) {
        // Combined points made again are saved: left as they were, every reader refused
        // the trace, advising this very resume (issue 46, N1).
        if campaign.remade {
            session::save(&campaign.path, &mut campaign.trace)?;
        }
        if mode != progress::Mode::Quiet {
            eprintln!(
                "measure: {} already holds every asked core count and run; nothing to \
                 measure, {}",
                crate::error::shown_path(&campaign.path),
                if campaign.remade {
                    "its combined points, made again from its runs, are saved"
                } else {
                    "the trace is left as it is"
                }
            );
        }
        return Ok(());
    }
    if mode != progress::Mode::Quiet {
        eprintln!("measure: {}", runs::point_scope(campaign.trace.config.runs));
    }
    match &o.adaptive {
        Some(a) => adaptive_sweep(&mut campaign, a)?,
        None if runs::of_runs(&campaign.trace) => campaign.measure_runs(o)?,
        None => {
            let todo = campaign.trace.missing_cores(&campaign.trace.config.cores);
            campaign.measure(&todo)?;
        }
    }
    if mode != progress::Mode::Quiet {
        eprintln!("measure: {}", campaign.summary(started.elapsed()));
    }
    Ok(())
}

/// The adaptive sweep on `campaign`: the points its design ([`crate::measure::adaptive::NextPoint`]) chooses, one at a
/// time, each choice said on standard error and kept in the trace.
fn adaptive_sweep(campaign: &mut Campaign<'_>, a: &AdaptiveOptions) -> Result<()> {
    let candidates: Vec<u32> = (1..=campaign.layout.machine.cores_per_socket).collect();
    let quiet = campaign.mode == progress::Mode::Quiet;
    let say = |line: Option<String>| {
        if let (Some(line), false) = (line, quiet) {
            eprintln!("measure: adaptive: {line}");
        }
    };
    let (mut chooser, first) =
        a.design
            .start(&mut campaign.trace, *a, candidates, campaign.sim.seed);
    say(first);
    loop {
        let (next, line) = chooser.next(&mut campaign.trace);
        say(line);
        let Some(n) = next else {
            return session::save(&campaign.path, &mut campaign.trace);
        };
        let took = campaign.measure_chosen(n)?;
        chooser.measured(took);
    }
}

#[cfg(test)]
mod tests {
    use crate::measure::simulation::*;

    #[test]
    fn a_sweep_stopped_early_keeps_the_measuring_time_of_the_points_it_saved() {
        let dir = tempfile::tempdir().unwrap();
        let sim = SimulateOptions {
            machine: Truth::parse("paper:henri").unwrap(),
            seed: 1,
            noise: Noise::TYPICAL,
            between: RunNoise::REAL_16_CORE,
        };
        let stop = AtomicBool::new(false);
        let options = |name: &str| MeasureOptions {
            output: Some(dir.path().join(name)),
            cores: Some("1".parse().unwrap()),
            max_phase: 0.2,
            ..MeasureOptions::default()
        };
        let measuring = |path: &Path| {
            let t = trace_file::read(path).unwrap();
            (t.points.len(), t.simulation.unwrap().measuring_seconds)
        };
        let mut whole =
            Campaign::start(&options("whole.json"), &sim, progress::Mode::Quiet, &stop).unwrap();
        whole.measure(&[1]).unwrap();
        let (points, want) = measuring(&whole.path);
        assert_eq!(points, 1);
        assert!(want > 0.0);
        // The same point, then one the machine lacks: the sweep ends with an error after
        // saving the first, as it ends when Ctrl-C stops it. The trace says the socket is
        // big enough, else it is not saved at all (a trace never asks for a count beyond its
        // socket, `Trace::record_problem`).
        let mut cut =
            Campaign::start(&options("cut.json"), &sim, progress::Mode::Quiet, &stop).unwrap();
        cut.trace.machine.cores_per_socket = 999;
        assert!(cut.measure(&[1, 999]).is_err());
        let (points, got) = measuring(&cut.path);
        assert_eq!(points, 1);
        assert!(
            (got - want).abs() <= 1e-9 * want,
            "{got} s saved, {want} s measured"
        );
    }

    /// Issue 46, item 9: `--buffer-size 4096G` passed on simulated nodes of 64 GiB and
    /// planned "+79165 s to touch the buffers".
    #[test]
    fn buffers_beyond_the_simulated_node_are_refused() {
        let sim = SimulateOptions {
            machine: Truth::parse("paper:henri").unwrap(),
            seed: 1,
            noise: Noise::TYPICAL,
            between: RunNoise::REAL_16_CORE,
        };
        let with = |size: u64| MeasureOptions {
            buffer_size: Some(crate::units::ByteSize(size)),
            ..MeasureOptions::default()
        };
        let e = layout(&with(4096 << 30), &sim).err().unwrap();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().starts_with("--buffer-size 4"), "{e}");
        assert!(e.to_string().contains("give at most"), "{e}");
        assert!(layout(&with(1 << 30), &sim).is_ok());
    }
}
