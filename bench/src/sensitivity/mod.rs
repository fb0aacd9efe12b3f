//! `contention sensitivity`: how much an application suffers when its memory bandwidth
//! shrinks, after Foyer and Goglin (MCHPC'21). The command runs at each level of available
//! bandwidth, its figure of merit (FOM) is read from its output, and the levels where the
//! median FOM falls below 90%, 75% and 50% of its best are reported as in their Table I.
//!
//! - `threshold`: the metric, a pure function of the curve, and the report's types
//!   (`SensitivityReport`, `Point`): the analysis crate's, re-exported here.
//! - `fom`: reading the FOM from what a command prints.
//! - `resctrl`: throttling with a Linux resctrl group (root, Intel RDT MBA or AMD PQoS).
//! - `bandit`: stealing bandwidth with store threads where resctrl is missing.
//! - `builtin`: triad and pointer-chase kernels to calibrate the method.
//! - `runner`: running the command pinned and in its group; its report is written by
//!   `crate::report::sensitivity`.
//! - `error`: why a run cannot go on, each kind with its fix and its exit status.

#[cfg(feature = "mpi")]
pub(crate) mod bandit;
pub mod builtin;
pub(crate) mod error;
pub mod fom;
pub(crate) mod resctrl;
pub(crate) mod runner;

use crate::error::{Error, Result};
use crate::mpi::signals;
use crate::stats::median;
use crate::sys;
#[cfg(feature = "mpi")]
use crate::sys::bind_current_thread;
use error::SensitivityError;
#[cfg(feature = "mpi")]
use hwlocality::Topology;
use std::path::PathBuf;

// The report's types and its metric, which the reports and figures read, live in the
// analysis crate.
pub use contention_analysis::sensitivity::{threshold, Point, SensitivityReport, SCHEMA_VERSION};
use std::time::Duration;

/// What runs at each level.
#[derive(Debug, Clone)]
pub enum Workload {
    Builtin {
        kind: builtin::Builtin,
        bytes: usize,
    },
    Command(Vec<String>),
}

impl Workload {
    pub(crate) fn describe(&self) -> String {
        match self {
            Workload::Builtin { kind, bytes } => {
                format!(
                    "builtin {} ({})",
                    kind.name(),
                    crate::units::human_bytes(*bytes as u64)
                )
            }
            Workload::Command(argv) => argv.join(" "),
        }
    }
}

/// How bandwidth is taken away.
#[derive(Debug, Clone)]
pub enum Backend {
    /// resctrl throttling at these levels (percent, or the vendor's scale on AMD).
    Resctrl { root: PathBuf, levels: Vec<f64> },
    /// Store threads at `steps + 1` loads from none to every bandit core.
    Bandit { steps: u32, buffer_bytes: usize },
}

/// Everything a sweep needs besides the backend.
#[derive(Debug, Clone)]
pub struct Options {
    pub workload: Workload,
    /// Where the figure of merit is in the command's output.
    pub fom: fom::Rule,
    pub lower_is_better: bool,
    pub repeat: u32,
    /// PUs (OS indices) the command runs on; the bandit takes the other allowed ones.
    pub command_cores: Option<Vec<u32>>,
    pub quiet: bool,
}

/// Why bandit curves differ from the paper's, said in every bandit report.
pub(crate) const BANDIT_NOTE: &str = "bandit mode steals bandwidth with store threads instead of \
throttling it: the loaded memory system also queues every access, so latency grows too, where \
resctrl throttling at levels of 10% and more left latency unchanged in Foyer and Goglin's \
measurements. A latency-bound code (a pointer chase) looks sensitive here although it is not \
to throttling; compare it with `--builtin pointer-chase` on this machine before reading a \
threshold as a bandwidth sensitivity.";

#[cfg(feature = "mpi")]
/// Runs the sweep and builds the report.
pub fn run(backend: &Backend, opts: &Options) -> Result<SensitivityReport> {
    signals::install();
    if opts.repeat == 0 {
        return Err(SensitivityError::NoRepeat.into());
    }
    let topology = Topology::new()
        .map_err(|e| Error::Failed(format!("hwloc cannot read this machine's topology: {e}")))?;
    let mut prepared = match &opts.workload {
        Workload::Builtin { kind, bytes } => Some(builtin::Prepared::new(*kind, *bytes)),
        Workload::Command(_) => None,
    };
    let (backend_name, level_meaning, peak, mut points, mut notes) = match backend {
        Backend::Resctrl { root, levels } => {
            let (points, notes) = sweep_resctrl(root, levels, opts, &topology, &mut prepared)?;
            let info = resctrl::probe(root)?;
            let meaning = if info.is_percent() {
                "resctrl MB throttling, percent of the memory bandwidth".to_string()
            } else {
                format!("resctrl MB throttling, the vendor's scale 1..{}", info.max)
            };
            ("resctrl", meaning, None, points, notes)
        }
        Backend::Bandit {
            steps,
            buffer_bytes,
        } => {
            let (peak, points) =
                sweep_bandit(*steps, *buffer_bytes, opts, &topology, &mut prepared)?;
            (
                "bandit",
                "bandit, percent of the peak store bandwidth left (measured)".to_string(),
                Some(peak),
                points,
                vec![BANDIT_NOTE.to_string()],
            )
        }
    };
    points.sort_by(|a, b| a.level.total_cmp(&b.level));
    let curve: Vec<(f64, f64)> = points.iter().map(|p| (p.level, p.fom)).collect();
    let rel = threshold::relative(&curve, opts.lower_is_better);
    for (p, r) in points.iter_mut().zip(rel) {
        p.relative = r;
    }
    let thresholds = threshold::thresholds(&curve, opts.lower_is_better, &threshold::FRACTIONS);
    if thresholds.iter().all(|t| t.level.is_none()) {
        notes.push("the FOM never fell below 90% of its best: insensitive at these levels".into());
    }
    let workload_bytes = match &opts.workload {
        Workload::Builtin { bytes, .. } => Some(*bytes as u64),
        Workload::Command(_) => None,
    };
    let llc = crate::machine::topology::layout(&topology)
        .caches
        .iter()
        .map(|c| c.bytes)
        .sum();
    notes.extend(cache_warnings(workload_bytes, llc, peak, &points));
    Ok(SensitivityReport {
        units: crate::units::UNITS,
        header: crate::header::Header::new(SCHEMA_VERSION),
        backend: backend_name,
        level_meaning,
        workload: opts.workload.describe(),
        unit: match &opts.workload {
            Workload::Builtin { kind, .. } => Some(kind.unit().to_string()),
            Workload::Command(_) => None,
        },
        lower_is_better: opts.lower_is_better,
        repeat: opts.repeat,
        peak_mb_per_s: peak.map(|p| p / 1e6),
        points,
        thresholds,
        notes,
    })
}

/// [`run`] in a build without the `mpi` feature: the sweep needs hwloc to pin its threads.
#[cfg(not(feature = "mpi"))]
pub fn run(_: &Backend, _: &Options) -> Result<SensitivityReport> {
    Err(crate::mpi::built_without_mpi("sensitivity", false))
}

/// How many times the machine's last-level cache a built-in workload must be for its
/// accesses to reach memory: as `measure` sizes its buffers (its cache factor).
const CACHE_FACTOR: u64 = crate::measure::sweep::sizing::CACHE_FACTOR;

/// Warnings on a curve that measures the cache, not the memory: a built-in workload of
/// `workload_bytes` within `CACHE_FACTOR` times the machine's last-level cache (`llc` bytes)
/// runs from cache, and a bandit that took more than the `peak` store bandwidth (bytes/s)
/// stole from the cache too. The guide's `--size 32MiB` on a machine of 480 MiB of L3
/// reported 23.7 GB/s stolen against a 15.9 GB/s peak, and every threshold at 100 %, without
/// a word.
fn cache_warnings(
    workload_bytes: Option<u64>,
    llc: u64,
    peak: Option<f64>,
    points: &[Point],
) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(bytes) = workload_bytes.filter(|&b| llc > 0 && b < CACHE_FACTOR * llc) {
        out.push(format!(
            "--size {} is under {CACHE_FACTOR}x this machine's last-level cache ({}): \
             the built-in workload runs largely from cache, not memory, so the curve and its \
             thresholds say little of its memory bandwidth sensitivity; give --size {} or more",
            crate::units::ByteSize(bytes),
            crate::units::ByteSize(llc),
            crate::units::ByteSize(CACHE_FACTOR * llc)
        ));
    }
    let most = points
        .iter()
        .filter_map(|p| p.stolen_mb_per_s)
        .fold(0.0, f64::max);
    if let Some(peak) = peak.map(|p| p / 1e6).filter(|&p| most > p) {
        out.push(format!(
            "the bandit took up to {most:.0} MB/s, above the {peak:.0} MB/s peak it \
             measured alone: part of it hit the cache, so its levels overstate the bandwidth \
             left; give --bandit-buffer of at least {} ({CACHE_FACTOR}x the last-level cache)",
            crate::units::ByteSize(CACHE_FACTOR * llc)
        ));
    }
    out
}

#[cfg(feature = "mpi")]
fn sweep_resctrl(
    root: &std::path::Path,
    levels: &[f64],
    opts: &Options,
    topology: &Topology,
    prepared: &mut Option<builtin::Prepared>,
) -> Result<(Vec<Point>, Vec<String>)> {
    let info = resctrl::probe(root)?;
    let values = levels
        .iter()
        .map(|&l| info.value(l))
        .collect::<Result<Vec<_>>>()?;
    let group = resctrl::Group::create(
        root,
        &format!("contention-sensitivity-{}", std::process::id()),
    )?;
    let cpus = opts.command_cores.clone().unwrap_or_default();
    let mut points = Vec::new();
    for (&level, &value) in levels.iter().zip(&values) {
        group.set(&info.schemata_line(value))?;
        let mut foms = Vec::new();
        for r in 0..opts.repeat {
            progress(opts, &format!("MB={value}, run {}/{}", r + 1, opts.repeat));
            foms.push(run_once(opts, prepared, topology, &cpus, Some(&group))?);
        }
        points.push(point(level, format!("MB={value}"), foms, None));
    }
    let mut notes = Vec::new();
    if !info.is_percent() {
        notes.push(format!(
            "this CPU's MB scale is 1..{} (AMD): levels were written as they are; Foyer and Goglin \
             saw no effect above about 100 on an EPYC 7502",
            info.max
        ));
    }
    Ok((points, notes))
}

#[cfg(feature = "mpi")]
fn sweep_bandit(
    steps: u32,
    buffer_bytes: usize,
    opts: &Options,
    topology: &Topology,
    prepared: &mut Option<builtin::Prepared>,
) -> Result<(f64, Vec<Point>)> {
    let allowed = sys::allowed_cpus();
    let command = opts
        .command_cores
        .clone()
        .unwrap_or_else(|| allowed[..allowed.len().div_ceil(2)].to_vec());
    let thieves: Vec<u32> = allowed
        .iter()
        .copied()
        .filter(|c| !command.contains(c))
        .collect();
    if thieves.is_empty() {
        return Err(SensitivityError::NoThiefCore { command, allowed }.into());
    }
    // Thieves first, so loads up to their number never touch the command's cores; the
    // command's cores join only to measure the peak.
    let all: Vec<u32> = thieves.iter().chain(&command).copied().collect();
    progress(opts, "measuring the peak store bandwidth");
    let bandit = bandit::Bandit::new(topology, &all, buffer_bytes)?;
    let peak = bandit.peak(Duration::from_millis(500))?;
    let steps = steps.max(1);
    let mut points = Vec::new();
    for k in 0..=steps {
        let load = f64::from(k) / f64::from(steps) * thieves.len() as f64;
        let (mut foms, mut stolen) = (Vec::new(), Vec::new());
        for r in 0..opts.repeat {
            progress(
                opts,
                &format!("bandit load {load:.2} cores, run {}/{}", r + 1, opts.repeat),
            );
            let (fom, s) =
                bandit.during(load, || run_once(opts, prepared, topology, &command, None))?;
            foms.push(fom?);
            stolen.push(s.bytes_per_s);
        }
        let took = median(&stolen).unwrap_or(0.0);
        let left = (100.0 * (1.0 - took / peak)).max(0.0);
        points.push(point(
            left,
            format!("bandit load {load:.2} cores"),
            foms,
            Some(took / 1e6),
        ));
    }
    Ok((peak, points))
}

fn point(level: f64, setting: String, foms: Vec<f64>, stolen_mb_per_s: Option<f64>) -> Point {
    Point {
        level,
        setting,
        fom: median(&foms).unwrap_or(f64::NAN),
        relative: f64::NAN,
        foms,
        stolen_mb_per_s,
    }
}

fn progress(opts: &Options, what: &str) {
    if !opts.quiet {
        eprintln!("sensitivity: {what}");
    }
}

#[cfg(feature = "mpi")]
/// One repetition: the built-in kernel on a pinned thread, or the command; its FOM.
fn run_once(
    opts: &Options,
    prepared: &mut Option<builtin::Prepared>,
    topology: &Topology,
    cpus: &[u32],
    group: Option<&resctrl::Group>,
) -> Result<f64> {
    if signals::interrupted() {
        return Err(Error::Interrupted("interrupted: no report written".into()));
    }
    let result = match (prepared.as_mut(), &opts.workload) {
        (Some(kernel), _) => std::thread::scope(|s| {
            s.spawn(|| -> Result<f64> {
                if let Some(&pu) = cpus.first() {
                    bind_current_thread(topology, pu).map_err(Error::Failed)?;
                }
                if let Some(g) = group {
                    g.add_task(sys::thread_id())?;
                }
                Ok(kernel.run())
            })
            .join()
            .map_err(|_| Error::Failed("the built-in kernel panicked".into()))?
        }),
        (None, Workload::Command(argv)) => {
            let tasks = group.map(resctrl::Group::tasks);
            runner::run_command(argv, cpus, tasks.as_deref()).and_then(|out| {
                fom::extract(&out, &opts.fom).map_err(|err| {
                    SensitivityError::NoFigureOfMerit {
                        command: argv.join(" "),
                        err,
                    }
                    .into()
                })
            })
        }
        (None, Workload::Builtin { .. }) => unreachable!("built-in kernels are prepared first"),
    };
    if signals::interrupted() {
        return Err(Error::Interrupted("interrupted: no report written".into()));
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 46, item 14: the guide's bandit example (`--size 32MiB` under 480 MiB of L3)
    /// reported 23.7 GB/s stolen against a 15.9 GB/s peak without a warning.
    #[test]
    fn a_workload_in_cache_and_a_bandit_above_its_peak_are_warned_of() {
        let stolen = |mb: f64| point(50.0, "bandit".into(), vec![1.0], Some(mb));
        let llc = 480 << 20;
        let w = cache_warnings(Some(32 << 20), llc, Some(15.9e9), &[stolen(23_700.0)]);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].contains("--size 32MiB is under 4x"), "{w:?}");
        assert!(w[0].contains("1920MiB or more"), "{w:?}");
        assert!(
            w[1].contains("took up to 23700 MB/s, above the 15900 MB/s peak"),
            "{w:?}"
        );
        // A workload past the cache, a bandit under its peak, a command: nothing to say.
        assert!(cache_warnings(Some(4 << 30), llc, Some(15.9e9), &[stolen(9_000.0)]).is_empty());
        assert!(cache_warnings(None, llc, None, &[]).is_empty());
    }
}
