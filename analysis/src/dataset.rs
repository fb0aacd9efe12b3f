//! Measurements as `calibrate` and `evaluate` see them, whatever file they came from: for each
//! placement, a sweep over core counts of the four bandwidths of section 4.1.1 (computations
//! alone, communications alone, both in parallel), with how precisely each is known.
//!
//! A `measure` trace and a tidy CSV (docs/formats.md) become the same [`Input`]; repetitions of a
//! placement and core count, within one file or across files, are aggregated by median
//! (`sweeps`). No I/O here: [`crate::io::inputs`] reads the files.

use crate::error::Result;
use crate::model::constraints::{MAX_CORES_PER_SOCKET, MAX_NUMA_NODES};
use crate::model::Placement;
use crate::stats;
use crate::trace::{MachineInfo, Phase, TidyRow, Trace, TracePoint, TransportKind};
use std::collections::BTreeMap;

/// The four bandwidths of a point, in the tidy CSV's column order.
pub const QUANTITIES: [&str; 4] = ["comp_alone", "comm_alone", "comp_parallel", "comm_parallel"];
/// Index of computations alone in [`QUANTITIES`] and the arrays that follow its order.
pub(crate) const COMP_ALONE: usize = 0;
/// Index of communications alone.
pub(crate) const COMM_ALONE: usize = 1;
/// Index of computations while communications run.
pub(crate) const COMP_PARALLEL: usize = 2;
/// Index of communications while computations run.
pub(crate) const COMM_PARALLEL: usize = 3;

/// What kind of file an input was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum InputKind {
    /// A trace JSON written by `contention measure`: carries the machine and the samples.
    Trace,
    /// A tidy CSV: bandwidths only, the topology comes from the command line.
    Csv,
}

/// One bandwidth (MB/s) and its relative standard error where the input tells it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Measured {
    pub(crate) value: f64,
    /// Standard error of `value` divided by `value` (0.01 = 1 %): from the spread of a trace
    /// phase's samples, `None` for a CSV row.
    pub(crate) rel_se: Option<f64>,
}

/// One measurement of one placement at one core count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Observation {
    pub(crate) placement: Placement,
    pub(crate) cores: u32,
    /// In [`QUANTITIES`] order.
    pub(crate) bw: [Measured; 4],
    /// The launch it was measured in, within its input: a trace's run index (0 for a trace
    /// of one run), which every point and phase of that run shares; a CSV row's index, each
    /// row its own (nothing says which rows one launch measured). The bootstrap resamples
    /// whole launches (`crate::calibrate::bootstrap`).
    pub(crate) run: usize,
}

/// One input file, read and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Input {
    /// The file as the user named it.
    pub source: String,
    pub(crate) kind: InputKind,
    /// The measured machine, for traces.
    pub(crate) machine: Option<MachineInfo>,
    /// How the messages went between the ranks, for traces that record it: `calibrate`
    /// chooses the model's variant from it (`crate::calibrate::variant`).
    pub(crate) transport: Option<TransportKind>,
    /// The MPI stack the messages crossed (`mpi.stack.summary`), for traces that record it.
    pub(crate) stack: Option<String>,
    /// What the communication stream was, for traces: `MPI messages`, or a GPU's copies and
    /// their direction. One model describes one stream ([`DatasetError::MixedStreams`]).
    pub(crate) stream: Option<String>,
    /// The simulated machine the measurements were drawn from (`paper:henri`), `None` for
    /// real ones: a trace's marks as [`Trace::simulated`] reads them, or a CSV's column
    /// (`crate::io::tidy_csv`).
    pub(crate) simulated: Option<String>,
    pub(crate) observations: Vec<Observation>,
    /// Per observation, in [`QUANTITIES`] order, the samples of each phase scaled so that
    /// their median is the phase's bandwidth (a trace's samples of computations are per
    /// thread), in batches of consecutive rounds ([`Batches`]); empty for a CSV row, which is
    /// one sample itself. The global fit of `crate::calibrate::fit` and its bootstrap use
    /// them.
    pub(crate) samples: Vec<[Batches; 4]>,
    /// Things the user should know about this input (an interrupted trace, unbound memory).
    pub(crate) notes: Vec<String>,
}

/// The relative standard error of a phase's median: from the spread of its samples (robust,
/// [`stats::relative_se_of_median`]), else from its summary's standard deviation and count.
///
/// This is the precision of the value within one run. Run-to-run variation is not in it,
/// which is why calibration never lets a tolerance fall below a floor
/// (`crate::calibrate::TOLERANCE_FLOOR`).
pub(crate) fn phase_rel_se(phase: &Phase) -> Option<f64> {
    if phase.samples.len() >= 2 {
        let mut mbps: Vec<f64> = phase.samples.iter().map(|s| s.mbps).collect();
        return stats::relative_se_of_median(&mut mbps);
    }
    let s = &phase.summary;
    (s.count >= 2 && s.stddev.is_finite() && s.stddev >= 0.0 && s.mean > 0.0)
        .then(|| stats::MEDIAN_SE_FACTOR * s.stddev / s.mean / (s.count as f64).sqrt())
}

/// A phase's samples cut into batches of consecutive rounds ([`stats::batch_count`] of
/// them), each batch the samples of its rounds (a round: the k-th iteration of every thread).
///
/// The samples of one round share the machine's state and consecutive rounds are correlated
/// (a refresh, a neighbour's burst slows several in a row): they are not independent draws,
/// so the bootstrap of the fit resamples whole batches, as the benchmark's stopping rule
/// reads its interval from batch medians.
pub(crate) type Batches = Vec<Vec<f64>>;

/// A phase's samples scaled so that their median is the phase's median bandwidth (a sample of
/// computations is one thread's bandwidth, and what the model predicts is the phase's), in
/// batches of consecutive rounds ([`Batches`]). Empty when the phase kept no valid samples.
fn scaled_samples(phase: &Phase) -> Batches {
    // Each thread's samples in time order; a sample's round is its rank in its thread.
    let mut by_thread: BTreeMap<u32, Vec<(f64, f64)>> = BTreeMap::new();
    for s in phase.samples.iter().filter(|s| is_bandwidth(s.mbps)) {
        by_thread
            .entry(s.thread)
            .or_default()
            .push((s.start, s.mbps));
    }
    let all: Vec<f64> = by_thread.values().flatten().map(|&(_, v)| v).collect();
    let Some(median) = stats::median(&all) else {
        return Vec::new();
    };
    if !is_bandwidth(median) {
        return Vec::new();
    }
    let scale = phase.summary.median / median;
    let rounds = by_thread.values().map(Vec::len).max().unwrap_or(0);
    let b = stats::batch_count(rounds);
    let mut batches: Batches = vec![Vec::new(); b];
    for samples in by_thread.values_mut() {
        samples.sort_by(|x, y| x.0.total_cmp(&y.0));
        for (round, &(_, v)) in samples.iter().enumerate() {
            batches[round * b / rounds].push(v * scale);
        }
    }
    batches.retain(|batch| !batch.is_empty());
    batches
}

/// Every point of `trace` no measurement leaves, in each run's and in its `points` (a
/// trace of runs: their combination, checked after the runs it derives from), named
/// `runs[1].points[0]`, `points[2]`, each with why (`point_problem`: each message names
/// `source`, the point and the field). The one rule of a trace's points:
/// [`crate::io::trace_file::parse`] refuses the first, so every reader (calibrate,
/// evaluate, check, show, plot, a fleet's) takes the same points, and `measure --resume`
/// drops them from a run ([`Input::refused_points`]) or makes the combination again.
pub fn impossible_points(trace: &Trace, source: &str) -> Vec<ImpossiblePoint> {
    let cores_per_socket = trace.machine.cores_per_socket;
    let refused = |points: &[TracePoint], at: &str, combined: bool| {
        Input::refused_points(points, cores_per_socket, source, at)
            .into_iter()
            .map(move |(_, why)| ImpossiblePoint { why, combined })
    };
    let mut out = Vec::new();
    for (r, run) in trace.runs.iter().enumerate() {
        out.extend(refused(&run.points, &format!("runs[{r}].points"), false));
    }
    out.extend(refused(&trace.points, "points", !trace.runs.is_empty()));
    out
}

/// A point [`impossible_points`] refuses.
#[derive(Debug, Clone, PartialEq)]
pub struct ImpossiblePoint {
    /// Why, naming the file, the point and the field.
    pub(crate) why: String,
    /// The point is one of a trace of runs' top-level `points`: derived data, the runs
    /// combined ([`crate::runs::combine`]), which `measure --resume` makes again
    /// from sound runs rather than measuring anything.
    pub(crate) combined: bool,
}

/// Why a point of a trace of a machine of `cores_per_socket` cannot be a measurement (the
/// message names `source`), if it cannot: more computing cores than the socket has, or
/// what [`point_bandwidths`] refuses.
fn point_problem(p: &TracePoint, cores_per_socket: u32, source: &str) -> Option<String> {
    if p.cores > cores_per_socket {
        return Some(format!(
            "{source}: at {} cores, beyond the machine's {cores_per_socket} cores per socket",
            p.cores
        ));
    }
    point_bandwidths(p, source).err().map(|e| e.to_string())
}

/// Why the four bandwidths of a point (in [`QUANTITIES`] order) cannot be, if they cannot.
pub(crate) fn implausible(bw: &[f64; 4]) -> Option<String> {
    use crate::plausible::{speedup, too_high};
    bw.iter()
        .zip(QUANTITIES)
        .find_map(|(&v, q)| too_high(v).map(|why| format!("{q}: {why}")))
        .or_else(|| speedup("computations", bw[COMP_ALONE], bw[COMP_PARALLEL]))
        .or_else(|| speedup("communications", bw[COMM_ALONE], bw[COMM_PARALLEL]))
}

/// A note on a point (in [`QUANTITIES`] order) that is possible but suspicious.
pub(crate) fn suspicious(bw: &[f64; 4]) -> Option<String> {
    use crate::plausible::suspicious;
    suspicious("computations", bw[COMP_ALONE], bw[COMP_PARALLEL])
        .or_else(|| suspicious("communications", bw[COMM_ALONE], bw[COMM_PARALLEL]))
}

fn is_bandwidth(v: f64) -> bool {
    v.is_finite() && v > 0.0
}

/// Why measurements cannot be used: the file (`source`), the point and the rule it breaks,
/// and what to do. All are bad input (exit 2).
#[derive(Debug, Clone)]
pub enum DatasetError {
    /// A trace without any measured point.
    NoPoint { source: String },
    /// A placement or machine size no real machine has.
    BeyondAnyMachine {
        source: String,
        placement: Placement,
        numa_per_socket: u32,
        cores_per_socket: u32,
    },
    /// A record no measurement leaves ([`Trace::record_problem`]): runs copied, or marked
    /// complete with core counts or runs missing.
    Edited { source: String, why: String },
    /// A phase refused by `crate::plausible::phase` (`quantity` from `QUANTITIES`).
    Phase {
        source: String,
        cores: u32,
        quantity: &'static str,
        why: String,
    },
    /// A phase whose median is no bandwidth (index `quantity` in `QUANTITIES`).
    NoBandwidth {
        source: String,
        cores: u32,
        quantity: usize,
        median: f64,
        samples: u64,
    },
    /// A point with a core count no socket has.
    CoreCount { source: String, cores: u32 },
    /// A point refused by `implausible`.
    Implausible {
        source: String,
        cores: u32,
        why: String,
    },
    /// Two traces of different hardware given together.
    DifferentMachines(Box<MachineMismatch>),
    /// A simulated trace or CSV given with a real measurement (or with another simulated
    /// machine's): `sources[0]` is simulated as `machines[0]`, `sources[1]` is `machines[1]`
    /// (`None`: real).
    SimulatedAndReal {
        sources: [String; 2],
        machines: [Option<String>; 2],
    },
    /// Two traces of different communication streams (MPI messages, GPU copies one way or
    /// the other) given together: `sources[i]` measured `streams[i]`.
    MixedStreams {
        sources: [String; 2],
        streams: [String; 2],
    },
    /// Measurements (`source`, drawn from `drawn`) of another origin than the model they are
    /// compared with (`model`, of `origin`); `None`: real.
    ModelOrigin {
        model: String,
        origin: Option<String>,
        source: String,
        drawn: Option<String>,
    },
    /// The same measurement in two inputs (`refuse_copies`): `sources[1]` holds a run of
    /// `sources[0]` (`run`: its index in `sources[1]`, `None` for a CSV).
    Copied {
        sources: [String; 2],
        run: Option<usize>,
    },
    /// A tidy CSV (`csv`) holding a point of a trace given with it (`trace`), as the CSV
    /// `measure` writes beside it: at `placement` and `cores` (`refuse_csv_of_trace`).
    CsvOfTrace {
        trace: String,
        csv: String,
        placement: Placement,
        cores: u32,
    },
    /// A trace whose two marks of origin disagree (`Trace::simulated`).
    Marks {
        source: String,
        marks: crate::trace::MarksDisagree,
    },
}

/// Two traces of different hardware: their files, the first field that differs (with both
/// values) and their hosts.
#[derive(Debug, Clone)]
pub struct MachineMismatch {
    pub(crate) sources: [String; 2],
    pub(crate) field: &'static str,
    pub(crate) values: [String; 2],
    pub(crate) hosts: [String; 2],
}

// `?` turns it into the crate's error: input the user can fix (exit 2).
crate::wrap!(Input: DatasetError);
impl std::fmt::Display for DatasetError {
    /// One message per variant, side by side, each naming the bad value and the fix: the
    /// match stays whole so that their wording is read and kept together.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DatasetError::NoPoint { source } => write!(
                f,
                "{source}: the trace has no measured point (measure was stopped before its \
                 first core count?); complete it with `contention measure --resume`"
            ),
            DatasetError::BeyondAnyMachine {
                source,
                placement,
                numa_per_socket,
                cores_per_socket,
            } => write!(
                f,
                "{source}: the machine or placement is beyond any real machine \
                 (placement {placement}, {numa_per_socket} NUMA nodes per socket, \
                 {cores_per_socket} cores per socket)"
            ),
            DatasetError::Edited { source, why } => write!(
                f,
                "{source}: {}; no measurement writes that, so the file was edited or is corrupt",
                crate::error::escape(why)
            ),
            DatasetError::Phase {
                source,
                cores,
                quantity,
                why,
            } => write!(f, "{source}: at {cores} cores, {quantity}: {why}"),
            DatasetError::NoBandwidth {
                source,
                cores,
                quantity,
                median,
                samples,
            } => {
                let what = if *quantity >= COMP_PARALLEL {
                    "the parallel phase (computations and communications together) \
                     is missing or failed"
                } else {
                    "this phase is missing or failed"
                };
                write!(
                    f,
                    "{source}: at {cores} cores, {} has median {median} MB/s from {samples} \
                     samples: {what}; a bandwidth must be a finite number > 0 MB/s. Measure \
                     this core count again, or leave the point out of the trace",
                    QUANTITIES[*quantity]
                )
            }
            DatasetError::CoreCount { source, cores } => write!(
                f,
                "{source}: a point has {cores} computing cores; a core count of one socket is \
                 1 to {MAX_CORES_PER_SOCKET}"
            ),
            DatasetError::Implausible { source, cores, why } => {
                write!(f, "{source}: at {cores} cores: {why}")
            }
            DatasetError::MixedStreams { sources, streams } => write!(
                f,
                "{} measured {} and {} {}: one model describes one communication stream, and \
                 both pooled would describe neither; calibrate or evaluate each apart",
                sources[0], streams[0], sources[1], streams[1]
            ),
            DatasetError::SimulatedAndReal { sources, machines } => {
                simulated_and_real(f, sources, machines)
            }
            DatasetError::DifferentMachines(m) => m.fmt(f),
            DatasetError::Marks { source, marks } => write!(f, "{source}: {marks}"),
            DatasetError::Copied { sources, run } => write!(
                f,
                "{} and {} hold the same measurement ({}): no two runs measure the same \
                 numbers, so it is one file named twice or a copy, and pooled its points would \
                 count twice and narrow every interval as if measured again; give each \
                 measurement once",
                sources[0],
                sources[1],
                match run {
                    Some(r) => format!("run {} of the second is in the first", r + 1),
                    None => "the same rows".into(),
                }
            ),
            DatasetError::CsvOfTrace {
                trace,
                csv,
                placement,
                cores,
            } => write!(
                f,
                "{trace} and {csv} hold the same measurement ({csv}'s row at placement \
                 {placement}, {cores} cores, is {trace}'s point to the 0.1 MB/s of a tidy CSV): \
                 `measure` writes that CSV beside its trace, so it is the trace's own or a \
                 copy, and pooled its points would count twice and narrow every interval as if \
                 measured again; give the trace alone (it holds the samples and runs its CSV \
                 lacks)"
            ),
            DatasetError::ModelOrigin {
                model,
                origin,
                source,
                drawn,
            } => write!(
                f,
                "{source} is {}, and model `{}` is a model of {}: a simulated machine is never \
                 compared with a real one, nor with another simulated machine; compare \
                 measurements with a model calibrated on measurements of the same machine, \
                 simulated or real",
                origin_words(drawn.as_deref()),
                crate::error::escape(model),
                origin_words(origin.as_deref())
            ),
        }
    }
}

impl std::error::Error for DatasetError {}

impl std::fmt::Display for MachineMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let MachineMismatch {
            sources: [first, other],
            field,
            values: [a, b],
            hosts: [host_a, host_b],
        } = self;
        write!(
            f,
            "{first} and {other} come from different machines ({field} `{a}` vs `{b}`, hosts \
             {host_a} and {host_b}): one model describes one machine; calibrate or evaluate \
             each machine's traces separately"
        )
    }
}

/// What measurements of `origin` are, as every refusal of mixed origins words it.
fn origin_words(origin: Option<&str>) -> String {
    match origin {
        Some(spec) => format!("simulated ({})", crate::error::escape(spec)),
        None => "a real measurement (not marked simulated)".to_string(),
    }
}

/// [`DatasetError::SimulatedAndReal`]'s message: what each of the two sources is.
fn simulated_and_real(
    f: &mut std::fmt::Formatter<'_>,
    sources: &[String; 2],
    machines: &[Option<String>; 2],
) -> std::fmt::Result {
    let what = |m: &Option<String>| origin_words(m.as_deref());
    write!(
        f,
        "{} is {} and {} is {}: a simulated trace is never used as a real one, nor with \
         another machine's; give the traces of one simulated machine together, or only real \
         ones",
        sources[0],
        what(&machines[0]),
        sources[1],
        what(&machines[1])
    )
}

impl Input {
    /// The observations of a trace, one per point, refusing a point whose phase has no valid
    /// bandwidth (a phase not measured, or one that failed).
    pub fn from_trace(trace: &Trace, source: &str) -> Result<Input, DatasetError> {
        let simulated = trace.simulated().map_err(|marks| DatasetError::Marks {
            source: source.into(),
            marks,
        })?;
        let placement = placement_of(trace);
        check_trace(trace, placement, source)?;
        let mut observations = Vec::with_capacity(trace.points.len());
        let mut samples = Vec::with_capacity(trace.points.len());
        // Every run's points, each its own observation: repetitions, aggregated by median
        // (`sweeps`), and the runs the fit's bootstrap resamples (`crate::calibrate::fit`).
        for (run, points) in trace.run_points().into_iter().enumerate() {
            for p in points {
                let (observation, point_samples) = observation(p, placement, source)?;
                observations.push(Observation { run, ..observation });
                samples.push(point_samples);
            }
        }
        let mut notes: Vec<String> = observations
            .iter()
            .filter_map(|o| {
                suspicious(&o.bw.map(|m| m.value))
                    .map(|why| format!("{source}: at {} cores, {why}", o.cores))
            })
            .collect();
        notes.extend(trace.notes(source));
        Ok(Input {
            source: source.to_string(),
            kind: InputKind::Trace,
            machine: Some(trace.machine.clone()),
            transport: trace.transport.as_ref().map(|t| t.kind),
            stack: trace.mpi.stack.as_ref().map(|s| s.summary.clone()),
            stream: Some(match &trace.gpu {
                None => "MPI messages".into(),
                Some(g) => format!("GPU copies {}", g.direction.words()),
            }),
            simulated: simulated.map(|s| s.machine.clone()),
            observations,
            samples,
            notes,
        })
    }

    /// The points among `points` (of a machine of `cores_per_socket`) that every reader
    /// refuses (`point_problem`), by index, each with why: what `measure --resume` drops
    /// before it measures again, so that the trace it completes is one every reader takes.
    /// Each message names `source` and the point, `{at}[{i}]` (`at`: `points`, `runs[1]`).
    pub fn refused_points(
        points: &[TracePoint],
        cores_per_socket: u32,
        source: &str,
        at: &str,
    ) -> Vec<(usize, String)> {
        points
            .iter()
            .enumerate()
            .filter_map(|(i, p)| {
                point_problem(p, cores_per_socket, &format!("{source}: {at}[{i}]"))
                    .map(|why| (i, why))
            })
            .collect()
    }

    /// The observations of tidy CSV rows (already checked by [`crate::io::tidy_csv::parse`]).
    pub fn from_rows(rows: &[TidyRow], source: &str) -> Input {
        let exact = |value| Measured {
            value,
            rel_se: None,
        };
        Input {
            source: source.to_string(),
            kind: InputKind::Csv,
            machine: None,
            transport: None,
            stack: None,
            stream: None,
            simulated: None,
            observations: rows
                .iter()
                .enumerate()
                .map(|(i, r)| Observation {
                    placement: Placement {
                        comp_numa: r.comp_numa,
                        comm_numa: r.comm_numa,
                    },
                    cores: r.cores,
                    run: i,
                    bw: [
                        exact(r.comp_alone),
                        exact(r.comm_alone),
                        exact(r.comp_parallel),
                        exact(r.comm_parallel),
                    ],
                })
                .collect(),
            samples: vec![Default::default(); rows.len()],
            notes: rows
                .iter()
                .filter_map(|r| {
                    let bw = [r.comp_alone, r.comm_alone, r.comp_parallel, r.comm_parallel];
                    suspicious(&bw).map(|why| {
                        format!(
                            "{source}: placement {},{} at {} cores, {why}",
                            r.comp_numa, r.comm_numa, r.cores
                        )
                    })
                })
                .collect(),
        }
    }
}

/// One core count of a sweep, repetitions aggregated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SweepPoint {
    pub(crate) cores: u32,
    /// Median over the repetitions, in [`QUANTITIES`] order (MB/s).
    pub(crate) bw: [f64; 4],
    /// Relative standard error of each median: the larger of the spread between repetitions
    /// and the typical precision within one (`None` when neither is known).
    pub(crate) rel_se: [Option<f64>; 4],
    pub(crate) repetitions: usize,
}

impl SweepPoint {
    /// Computations plus communications in parallel: what the memory system delivered to
    /// both streams (`T` of equation 1 where it is reached).
    pub(crate) fn total_parallel(&self) -> f64 {
        self.bw[COMP_PARALLEL] + self.bw[COMM_PARALLEL]
    }

    /// Relative standard error of [`Self::total_parallel`], the two streams' errors
    /// combined as independent; `None` when neither is known.
    pub(crate) fn total_parallel_rel_se(&self) -> Option<f64> {
        let (c, m) = (self.rel_se[COMP_PARALLEL], self.rel_se[COMM_PARALLEL]);
        if c.is_none() && m.is_none() {
            return None;
        }
        let abs_c = c.unwrap_or(0.0) * self.bw[COMP_PARALLEL];
        let abs_m = m.unwrap_or(0.0) * self.bw[COMM_PARALLEL];
        Some(abs_c.hypot(abs_m) / self.total_parallel())
    }
}

/// One placement's measurements over core counts (ascending).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Sweep {
    pub(crate) placement: Placement,
    /// The inputs that contributed, in the order given.
    pub(crate) sources: Vec<String>,
    pub(crate) points: Vec<SweepPoint>,
}

impl Sweep {
    /// The core counts measured, ascending.
    pub(crate) fn cores(&self) -> Vec<u32> {
        self.points.iter().map(|p| p.cores).collect()
    }
}

/// Groups every observation of `inputs` by placement (ordered by computation node, then
/// communication node) and core count, aggregating repetitions by median (docs/formats.md,
/// "Tidy CSV").
pub(crate) fn sweeps(inputs: &[Input]) -> Vec<Sweep> {
    type ByCores<'a> = BTreeMap<u32, Vec<&'a Observation>>;
    let mut groups: BTreeMap<(u32, u32), (Vec<String>, ByCores)> = BTreeMap::new();
    for input in inputs {
        for o in &input.observations {
            let (sources, by_cores) = groups
                .entry((o.placement.comp_numa, o.placement.comm_numa))
                .or_default();
            if !sources.contains(&input.source) {
                sources.push(input.source.clone());
            }
            by_cores.entry(o.cores).or_default().push(o);
        }
    }
    groups
        .into_iter()
        .map(|((comp_numa, comm_numa), (sources, by_cores))| Sweep {
            placement: Placement {
                comp_numa,
                comm_numa,
            },
            sources,
            points: by_cores
                .into_iter()
                .map(|(cores, obs)| aggregate(cores, &obs))
                .collect(),
        })
        .collect()
}

fn aggregate(cores: u32, obs: &[&Observation]) -> SweepPoint {
    let mut bw = [0.0; 4];
    let mut rel_se = [None; 4];
    for q in 0..4 {
        let mut values: Vec<f64> = obs.iter().map(|o| o.bw[q].value).collect();
        // Every observation has finite values, so a median exists.
        bw[q] = stats::median(&values).unwrap_or(f64::NAN);
        let between = stats::relative_se_of_median(&mut values);
        let within: Vec<f64> = obs.iter().filter_map(|o| o.bw[q].rel_se).collect();
        let within = stats::median(&within);
        rel_se[q] = match (between, within) {
            (Some(b), Some(w)) => Some(b.max(w)),
            (b, w) => b.or(w),
        };
    }
    SweepPoint {
        cores,
        bw,
        rel_se,
        repetitions: obs.len(),
    }
}

/// The hardware facts two inputs must share to describe one machine. Host names may differ
/// (two nodes of one homogeneous cluster); [`common_machine`] notes it.
fn hardware(m: &MachineInfo) -> [(&'static str, String); 5] {
    [
        ("cpu_model", m.cpu_model.clone()),
        ("sockets", m.sockets.to_string()),
        ("cores_per_socket", m.cores_per_socket.to_string()),
        ("numa_per_socket", m.numa_per_socket.to_string()),
        ("NUMA nodes", m.numa_nodes.len().to_string()),
    ]
}

/// The machine the traces among `inputs` were measured on (the first one's description), or
/// `None` when no input is a trace. Refuses traces of different hardware, naming both files
/// and the first difference; notes different host names of the same hardware.
pub(crate) fn common_machine(
    inputs: &[Input],
) -> Result<(Option<&MachineInfo>, Vec<String>), DatasetError> {
    refuse_simulated_with_real(inputs)?;
    refuse_mixed_streams(inputs)?;
    refuse_copies(inputs)?;
    refuse_csv_of_trace(inputs)?;
    let mut traces = inputs
        .iter()
        .filter_map(|i| i.machine.as_ref().map(|m| (i.source.as_str(), m)));
    let Some((first_src, first)) = traces.next() else {
        return Ok((None, Vec::new()));
    };
    let mut notes = Vec::new();
    for (src, m) in traces {
        for ((field, a), (_, b)) in hardware(first).iter().zip(hardware(m).iter()) {
            if a != b {
                return Err(DatasetError::DifferentMachines(Box::new(MachineMismatch {
                    sources: [first_src.into(), src.into()],
                    field,
                    values: [a.clone(), b.clone()],
                    hosts: [first.hostname.clone(), m.hostname.clone()],
                })));
            }
        }
        if m.hostname != first.hostname {
            notes.push(format!(
                "{first_src} was measured on host {} and {src} on host {}: same hardware, \
                 used together",
                first.hostname, m.hostname
            ));
        }
    }
    Ok((Some(first), notes))
}

/// Refuses the same measurement given twice: a run of a trace (each of a trace of runs, or
/// a one-run trace's points) that another input holds too, or two tidy CSVs of the same
/// rows. No two launches measure the same numbers, so it is a file named twice, or a copy
/// under another name (a directory holding both): pooled, its points counted twice, and
/// the bootstrap's intervals narrowed as if measured again (issue 46). Every reader that
/// pools inputs (calibrate, evaluate, check, a fleet's nodes) takes them through
/// [`common_machine`]. Within one trace, [`Trace::record_problem`] refuses runs alike.
fn refuse_copies(inputs: &[Input]) -> Result<(), DatasetError> {
    use std::collections::HashMap;
    let mut seen: HashMap<Vec<u64>, usize> = HashMap::new();
    for (i, input) in inputs.iter().enumerate() {
        let mut runs: BTreeMap<usize, Vec<u64>> = BTreeMap::new();
        for o in &input.observations {
            // A CSV row is a launch of its own: the file is compared whole.
            let run = match input.kind {
                InputKind::Trace => o.run,
                InputKind::Csv => 0,
            };
            let key = runs.entry(run).or_default();
            key.extend([
                u64::from(o.placement.comp_numa),
                u64::from(o.placement.comm_numa),
                u64::from(o.cores),
            ]);
            key.extend(o.bw.iter().map(|m| m.value.to_bits()));
        }
        for (run, key) in runs {
            match seen.get(&key) {
                Some(&j) if j != i => {
                    return Err(DatasetError::Copied {
                        sources: [inputs[j].source.clone(), input.source.clone()],
                        run: (input.kind == InputKind::Trace).then_some(run),
                    })
                }
                _ => {
                    seen.insert(key, i);
                }
            }
        }
    }
    Ok(())
}

/// Refuses a tidy CSV given with the trace it was written from: a row whose placement, core
/// count and four bandwidths are a point of a trace among `inputs` as the tidy CSV writes
/// it (to 0.1 MB/s, [`crate::trace::as_written`]). `measure` writes that CSV beside every
/// trace, so `calibrate dir/*` over its results took each point twice, as two runs, and the
/// model moved; [`refuse_copies`] compares bits, which the CSV's rounding hides (issue 46,
/// N3). A trace's points are its runs' and, for a trace of runs, their combination (each
/// phase the median of the runs' medians, as [`crate::runs::combine`] makes it):
/// what its CSV holds. One row is enough: no two measurements agree on four bandwidths to
/// 0.1 MB/s, and a CSV of a trace's rows and another's together is a copy too.
///
/// Refused, not skipped with a note, as `refuse_copies` refuses a copy: which file was meant
/// is the user's to say, and a result that depends on a guess (the trace, with its samples
/// and runs, or the CSV, with its rows only) would pass unseen in a script.
fn refuse_csv_of_trace(inputs: &[Input]) -> Result<(), DatasetError> {
    use std::collections::HashMap;
    type Key = (u32, u32, u32, [u64; 4]);
    let key = |p: Placement, cores: u32, bw: [f64; 4]| -> Key {
        let bits = bw.map(|v| crate::trace::as_written(v).to_bits());
        (p.comp_numa, p.comm_numa, cores, bits)
    };
    let mut written: HashMap<Key, usize> = HashMap::new();
    for (i, input) in inputs.iter().enumerate() {
        if input.kind != InputKind::Trace {
            continue;
        }
        let mut by_point: BTreeMap<(u32, u32, u32), Vec<[f64; 4]>> = BTreeMap::new();
        for o in &input.observations {
            let bw = o.bw.map(|m| m.value);
            written.entry(key(o.placement, o.cores, bw)).or_insert(i);
            let at = (o.placement.comp_numa, o.placement.comm_numa, o.cores);
            by_point.entry(at).or_default().push(bw);
        }
        for ((comp_numa, comm_numa, cores), runs) in by_point {
            let combined: [f64; 4] = std::array::from_fn(|q| {
                let medians: Vec<f64> = runs.iter().map(|bw| bw[q]).collect();
                stats::median(&medians).unwrap_or(f64::NAN)
            });
            let p = Placement {
                comp_numa,
                comm_numa,
            };
            written.entry(key(p, cores, combined)).or_insert(i);
        }
    }
    if written.is_empty() {
        return Ok(());
    }
    for csv in inputs.iter().filter(|i| i.kind == InputKind::Csv) {
        for o in &csv.observations {
            if let Some(&t) = written.get(&key(o.placement, o.cores, o.bw.map(|m| m.value))) {
                return Err(DatasetError::CsvOfTrace {
                    trace: inputs[t].source.clone(),
                    csv: csv.source.clone(),
                    placement: o.placement,
                    cores: o.cores,
                });
            }
        }
    }
    Ok(())
}

/// The simulated machine an input was drawn from (`measure --simulate`), `None` for real
/// measurements.
pub fn simulated(input: &Input) -> Option<&str> {
    input.simulated.as_deref()
}

/// Refuses to compare measurements with a model of another origin: simulated measurements
/// with a model of real ones (the paper's tables included) or of another simulated machine,
/// real ones with a model of simulated ones. `origin` is the simulated machine the model
/// (`model`, as named) was calibrated on, `None` for a real or hand-typed one; `inputs` are
/// each file's name and origin. The one rule of `check`, `evaluate` and `plot`: an error
/// measured against a model of another machine says nothing about either.
pub fn same_origin_as_model<'a, S: Into<String>>(
    model: &str,
    origin: Option<&str>,
    inputs: impl IntoIterator<Item = (S, Option<&'a str>)>,
) -> Result<(), DatasetError> {
    match inputs.into_iter().find(|&(_, drawn)| drawn != origin) {
        None => Ok(()),
        Some((source, drawn)) => Err(DatasetError::ModelOrigin {
            model: model.into(),
            origin: origin.map(str::to_string),
            source: source.into(),
            drawn: drawn.map(str::to_string),
        }),
    }
}

/// Refuses traces of different communication streams given together (a GPU's copies with
/// MPI messages, or device to host with host to device): their contention differs.
fn refuse_mixed_streams(inputs: &[Input]) -> Result<(), DatasetError> {
    let mut traces = inputs
        .iter()
        .filter_map(|i| i.stream.as_ref().map(|s| (i, s)));
    let Some((first, stream)) = traces.next() else {
        return Ok(());
    };
    match traces.find(|(_, s)| s != &stream) {
        None => Ok(()),
        Some((other, s)) => Err(DatasetError::MixedStreams {
            sources: [first.source.clone(), other.source.clone()],
            streams: [stream.clone(), s.clone()],
        }),
    }
}

/// Refuses inputs that mix a simulated trace or CSV with anything but measurements of the
/// same simulated machine: a model fitted to both would describe neither.
fn refuse_simulated_with_real(inputs: &[Input]) -> Result<(), DatasetError> {
    let Some(sim) = inputs.iter().find(|i| simulated(i).is_some()) else {
        return Ok(());
    };
    match inputs.iter().find(|i| simulated(i) != simulated(sim)) {
        None => Ok(()),
        Some(other) => Err(DatasetError::SimulatedAndReal {
            sources: [sim.source.clone(), other.source.clone()],
            machines: [
                simulated(sim).map(str::to_string),
                simulated(other).map(str::to_string),
            ],
        }),
    }
}

/// Refuses a trace as a whole: no point, a placement or machine beyond any real one, or a
/// record no measurement leaves (a host name with control characters among them)
/// ([`Trace::record_problem`], which [`crate::io::trace_file::parse`] refuses too: a trace
/// built in memory is checked the same way).
fn check_trace(trace: &Trace, placement: Placement, source: &str) -> Result<(), DatasetError> {
    if trace.points.is_empty() {
        return Err(DatasetError::NoPoint {
            source: source.into(),
        });
    }
    let m = &trace.machine;
    if placement.comp_numa.max(placement.comm_numa) >= MAX_NUMA_NODES
        || m.numa_per_socket > MAX_NUMA_NODES
        || m.cores_per_socket > MAX_CORES_PER_SOCKET
    {
        return Err(DatasetError::BeyondAnyMachine {
            source: source.into(),
            placement,
            numa_per_socket: m.numa_per_socket,
            cores_per_socket: m.cores_per_socket,
        });
    }
    if let Some(why) = trace.record_problem() {
        return Err(DatasetError::Edited {
            source: source.into(),
            why,
        });
    }
    Ok(())
}

/// The placement a trace measured (its `config`).
fn placement_of(trace: &Trace) -> Placement {
    Placement {
        comp_numa: trace.config.comp_numa,
        comm_numa: trace.config.comm_numa,
    }
}

/// One point of a trace as an observation (the four phases' medians, in the order of
/// `QUANTITIES`) and its four phases' scaled samples, once [`point_bandwidths`] takes it.
fn observation(
    p: &TracePoint,
    placement: Placement,
    source: &str,
) -> Result<(Observation, [Batches; 4]), DatasetError> {
    let bw = point_bandwidths(p, source)?;
    Ok((
        Observation {
            placement,
            cores: p.cores,
            bw,
            run: 0,
        },
        p.phases().map(scaled_samples),
    ))
}

/// The four bandwidths of a point (in the order of `QUANTITIES`), refusing a phase whose
/// statistics contradict each other ([`crate::plausible::phase`]), a median that is no
/// bandwidth, an impossible core count, and bandwidths that cannot be (contention making a
/// stream faster than alone).
fn point_bandwidths(p: &TracePoint, source: &str) -> Result<[Measured; 4], DatasetError> {
    let mut bw = [Measured {
        value: 0.0,
        rel_se: None,
    }; 4];
    for (q, phase) in p.phases().into_iter().enumerate() {
        if let Some(why) = crate::plausible::phase(phase) {
            return Err(DatasetError::Phase {
                source: source.into(),
                cores: p.cores,
                quantity: QUANTITIES[q],
                why,
            });
        }
        let median = phase.summary.median;
        if !is_bandwidth(median) {
            return Err(DatasetError::NoBandwidth {
                source: source.into(),
                cores: p.cores,
                quantity: q,
                median,
                samples: phase.summary.count,
            });
        }
        bw[q] = Measured {
            value: median,
            rel_se: phase_rel_se(phase),
        };
    }
    if p.cores == 0 || p.cores > MAX_CORES_PER_SOCKET {
        return Err(DatasetError::CoreCount {
            source: source.into(),
            cores: p.cores,
        });
    }
    if let Some(why) = implausible(&bw.map(|m| m.value)) {
        return Err(DatasetError::Implausible {
            source: source.into(),
            cores: p.cores,
            why,
        });
    }
    Ok(bw)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn a_phases_samples_are_batched_by_rounds_of_every_thread() {
        // Two threads of 36 iterations, thread 1's written first: 6 batches (sqrt(36)) of 6
        // rounds, each holding both threads' samples of its rounds, scaled to the median.
        let mut samples = Vec::new();
        for thread in [1u32, 0] {
            for k in 0..36 {
                samples.push(crate::trace::Sample {
                    thread,
                    start: f64::from(k),
                    end: f64::from(k) + 1.0,
                    mbps: 100.0 + f64::from(k),
                });
            }
        }
        let r: Vec<f64> = samples.iter().map(|s| s.mbps).collect();
        let phase = Phase {
            summary: stats::summarize(&r),
            ci95: None,
            unstable: false,
            sampling: String::new(),
            samples,
        };
        let batches = scaled_samples(&phase);
        assert_eq!(batches.len(), 6);
        let scale = phase.summary.median / stats::median(&r).unwrap();
        for (b, batch) in batches.iter().enumerate() {
            assert_eq!(batch.len(), 12, "{batch:?}");
            let rounds: Vec<f64> = batch.iter().map(|v| v / scale - 100.0).collect();
            let first = (6 * b) as f64;
            assert!(
                rounds
                    .iter()
                    .all(|&k| k > first - 1e-6 && k < first + 6.0 - 1e-6),
                "batch {b}: {rounds:?}"
            );
        }
    }

    #[test]
    fn refusals_keep_their_wording_and_exit_2() {
        let e = DatasetError::NoBandwidth {
            source: "t.json".into(),
            cores: 3,
            quantity: COMM_PARALLEL,
            median: f64::NAN,
            samples: 0,
        };
        assert_eq!(
            e.to_string(),
            "t.json: at 3 cores, comm_parallel has median NaN MB/s from 0 samples: the parallel \
             phase (computations and communications together) is missing or failed; a \
             bandwidth must be a finite number > 0 MB/s. Measure this core count again, or \
             leave the point out of the trace"
        );
        let e = DatasetError::Edited {
            source: "t.json".into(),
            why: "it is marked complete but has no point for core counts [2, 4] of its \
                  config.cores"
                .into(),
        };
        assert_eq!(
            e.to_string(),
            "t.json: it is marked complete but has no point for core counts [2, 4] of its \
             config.cores; no measurement writes that, so the file was edited or is corrupt"
        );
        assert_eq!(crate::Error::from(e).exit_code(), 2);
    }

    /// Survey's nodes, `calibrate` and `evaluate` all take their inputs through
    /// [`common_machine`]: a simulated trace goes only with traces of its own simulated
    /// machine, never with a real trace or a CSV.
    #[test]
    fn a_simulated_trace_goes_only_with_its_own_machines() {
        let machine = |simulated: Option<&str>| MachineInfo {
            hostname: "h".into(),
            cpu_model: "c".into(),
            sockets: 2,
            cores_per_socket: 18,
            pus_per_core: 1,
            numa_per_socket: 1,
            numa_nodes: Vec::new(),
            nics: Vec::new(),
            gpus: Vec::new(),
            hwloc_version: "2".into(),
            simulated: simulated.map(str::to_string),
        };
        // Each its own measurement: the same rows twice are one copied (`refuse_copies`).
        let rows = |name: &str| [row(0, 0, 1, f64::from(name.as_bytes()[0]))];
        let input = |name: &str, simulated: Option<&str>| Input {
            machine: Some(machine(simulated)),
            simulated: simulated.map(str::to_string),
            ..Input::from_rows(&rows(name), name)
        };
        let csv = Input::from_rows(&rows("c.csv"), "c.csv");
        let sim_csv = Input {
            simulated: Some("paper:henri".into()),
            ..Input::from_rows(&rows("s.csv"), "s.csv")
        };
        let (sim, sim2) = (
            input("a.json", Some("paper:henri")),
            input("b.json", Some("paper:henri")),
        );
        let (real, other) = (
            input("r.json", None),
            input("o.json", Some("realistic:henri")),
        );
        assert!(common_machine(&[sim.clone(), sim2.clone(), sim_csv.clone()]).is_ok());
        assert!(common_machine(&[real.clone(), csv.clone()]).is_ok());
        for (inputs, want) in [
            (
                vec![sim.clone(), real.clone()],
                "r.json is a real measurement",
            ),
            (vec![real, sim.clone()], "a.json is simulated (paper:henri)"),
            (
                vec![csv.clone(), sim.clone()],
                "c.csv is a real measurement",
            ),
            (vec![csv, sim_csv], "s.csv is simulated (paper:henri)"),
            (
                vec![sim, sim2, other],
                "o.json is simulated (realistic:henri)",
            ),
        ] {
            let e = common_machine(&inputs).unwrap_err();
            assert!(matches!(e, DatasetError::SimulatedAndReal { .. }), "{e}");
            assert!(e.to_string().contains(want), "{e}");
            assert_eq!(crate::Error::from(e).exit_code(), 2);
        }
    }

    /// Issue 46, N3: the tidy CSV `measure` writes beside a trace, given with it, was a
    /// second run of the same points: its rounding to 0.1 MB/s hid it from the copies'
    /// bitwise rule. Refused naming both, for a trace of one run and one of runs (whose CSV
    /// holds the runs combined), and for one row of a trace among other rows; another
    /// measurement's CSV is not.
    #[test]
    fn a_trace_and_its_own_tidy_csv_are_one_measurement() {
        let read = |name: &str| {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
            crate::io::trace_file::read(&path).unwrap()
        };
        for name in [
            "../tests/data/traces/vm-local.json",
            "../tests/data/real-16core/trace-default-14cores-3runs.json",
        ] {
            let t = read(name);
            let trace = Input::from_trace(&t, "t.json").unwrap();
            let text = crate::io::tidy_csv::to_string(&t.tidy_rows());
            let rows = crate::io::tidy_csv::parse(&text, "t.csv").unwrap().rows;
            let csv = Input::from_rows(&rows, "t.csv");
            let e = common_machine(&[trace.clone(), csv]).unwrap_err();
            assert!(matches!(e, DatasetError::CsvOfTrace { .. }), "{name}: {e}");
            assert!(
                e.to_string()
                    .starts_with("t.json and t.csv hold the same measurement"),
                "{e}"
            );
            assert_eq!(crate::Error::from(e).exit_code(), 2);
            // One of its rows among another measurement's.
            let mut mixed = vec![row(1, 1, 1, 1.0), row(1, 1, 2, 1.0)];
            mixed.push(rows[rows.len() - 1]);
            let mixed = Input::from_rows(&mixed, "mixed.csv");
            assert!(common_machine(&[mixed, trace.clone()]).is_err(), "{name}");
            // Another measurement: each bandwidth 0.1 MB/s away.
            let moved: Vec<TidyRow> = rows
                .iter()
                .map(|r| TidyRow {
                    comm_alone: r.comm_alone + 0.1,
                    ..*r
                })
                .collect();
            let other = Input::from_rows(&moved, "other.csv");
            assert!(common_machine(&[trace, other]).is_ok(), "{name}");
        }
    }

    pub(crate) fn row(comp: u32, comm: u32, cores: u32, scale: f64) -> TidyRow {
        TidyRow {
            comp_numa: comp,
            comm_numa: comm,
            cores,
            comp_alone: 1000.0 * scale,
            comm_alone: 2000.0 * scale,
            comp_parallel: 900.0 * scale,
            comm_parallel: 1800.0 * scale,
        }
    }

    #[test]
    fn repetitions_are_aggregated_by_median_with_their_spread() {
        let a = Input::from_rows(
            &[row(0, 0, 1, 1.0), row(0, 0, 1, 1.02), row(0, 0, 2, 1.0)],
            "a.csv",
        );
        let b = Input::from_rows(&[row(0, 0, 1, 0.5), row(1, 1, 1, 1.0)], "b.csv");
        let s = sweeps(&[a, b]);
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].placement.to_string(), "0,0");
        assert_eq!(s[0].sources, ["a.csv", "b.csv"]);
        assert_eq!(s[0].cores(), [1, 2]);
        let p = s[0].points[0];
        assert_eq!(p.repetitions, 3);
        assert_eq!(p.bw[COMP_ALONE], 1000.0, "median of 1000, 1020, 500");
        assert!(p.rel_se[COMP_ALONE].unwrap() > 0.0);
        assert_eq!(s[0].points[1].rel_se, [None; 4], "one CSV row: unknown");
        assert_eq!(s[1].sources, ["b.csv"]);
        assert!((p.total_parallel() - 2700.0).abs() < 1e-9);
    }

    #[test]
    fn total_parallel_error_combines_both_streams() {
        let mut p = SweepPoint {
            cores: 1,
            bw: [1.0, 1.0, 300.0, 400.0],
            rel_se: [None; 4],
            repetitions: 1,
        };
        assert_eq!(p.total_parallel_rel_se(), None);
        p.rel_se[COMP_PARALLEL] = Some(0.01); // 3 MB/s
        p.rel_se[COMM_PARALLEL] = Some(0.01); // 4 MB/s
        assert!((p.total_parallel_rel_se().unwrap() - 5.0 / 700.0).abs() < 1e-12);
    }
}
