//! The fleet report: every node of a survey calibrated on its own, then, for every model
//! parameter (the ten of section 3.1, `local` and `remote`), the fleet's median and spread and
//! the nodes that lie outside a robust band, with the machine facts that differ on them.
//!
//! - `calibrate`: one node, as `contention calibrate` does in its results directory;
//! - `outliers`: the band (median and median absolute deviation);
//! - `facts`: the machine facts, and those that differ from the fleet's majority;
//! - `noise`: each node's own measurement noise around its parameters: a node outside the
//!   band but within its own noise is not an outlier.
//! - `runs`: the noise between runs (`survey --runs 2`): each node's own, the fleet's
//!   pooled; the band is never narrower, and a second run must confirm an outlier.
//! - [`second`]: which nodes `survey --runs auto` measures a second time.
//! - `shape`: whether a breakpoint or slope outside the band changes the node's predicted
//!   bandwidths: one moved along a flat total is not named.
//!
//! A fleet compared with a saved one, node by node, is `crate::check::fleet`.
//!
//! A model calibrated on one node holds for the others only if they behave the same; the
//! report answers which do not, and the facts say where to look. [`report`] is the entry
//! point; the figure is drawn by `crate::plot::fleet`, which reads the report.

pub(crate) mod calibrate;
pub mod facts;
pub(crate) mod noise;
pub(crate) mod outliers;
pub(crate) mod runs;
pub mod second;
pub(crate) mod shape;

use crate::error::{Error, IoAction, Result};
use crate::model::{Model, ParamKind, Params};
use crate::trace::TidyRow;
use facts::{FactDiff, Facts};
use outliers::Band;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Version of the fleet report's JSON layout.
pub const FLEET_SCHEMA_VERSION: u32 = 1;

/// The default `k` of the band: three robust standard deviations.
pub(crate) const DEFAULT_K: f64 = 3.0;

/// The widest band, in robust standard deviations: `1 / DEFAULT_RELATIVE_FLOOR`. The band's
/// scale is never below the floor, 1 % of the median, so at `k = 100` it reaches at least
/// 100 % of the median on either side: no positive parameter (a bandwidth, a core count) can
/// fall below it, and a wider band flags nothing a user would call close. Values past it are
/// typing accidents, and drew absurd figures (`--outlier-k 1e25`: 62 MB of ticks; `1e30`
/// aborted the report for want of 34 GB).
pub const MAX_K: f64 = 1.0 / DEFAULT_RELATIVE_FLOOR;

/// The narrowest band, in robust standard deviations: a tenth of one flags about nine
/// nodes in ten already, and below it a width such as `5e-324` printed 1,000 characters
/// wide in the report.
pub(crate) const MIN_K: f64 = 0.1;

/// Whether `k` is a band's width this report draws: a number in `[MIN_K, MAX_K]`.
pub fn valid_k(k: f64) -> bool {
    (MIN_K..=MAX_K).contains(&k)
}

/// The default floor of the band's scale, as a fraction of the median: 1 %, the floor of the
/// calibration's own tie tolerance (two runs of one quiet node differ by that much).
pub(crate) const DEFAULT_RELATIVE_FLOOR: f64 = 0.01;

/// What the survey says of one node (from its manifest).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeOutcome {
    /// The node's results directory under the root (`ROOT/HOST/`): the host name it
    /// reported.
    pub host: String,
    /// The name the survey was given for it, when that differs (`--hosts 10.0.0.1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given: Option<String>,
    pub status: NodeStatus,
    /// Why it failed, or what it is waiting for.
    pub detail: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeStatus {
    /// Measured: its traces are in `ROOT/HOST/`.
    Done,
    /// Its measurement failed (it died, timed out).
    Failed,
    /// Not measured yet (`survey --resume` continues).
    Pending,
}

impl NodeStatus {
    pub fn name(self) -> &'static str {
        match self {
            NodeStatus::Done => "done",
            NodeStatus::Failed => "failed",
            NodeStatus::Pending => "pending",
        }
    }
}

/// How the report is built.
#[derive(Debug, Clone, PartialEq)]
pub struct FleetOptions {
    /// Width of the band in robust standard deviations (`|x - median| > k x sigma`).
    pub k: f64,
    /// Floor of the band's scale as a fraction of the median (see `outliers`).
    pub relative_floor: f64,
    /// The options of each node's calibration (`calibrate`'s).
    pub calibration: crate::calibrate::Options,
    /// A simulated fleet (`survey --simulate`: its manifest's description): every trace
    /// must then be simulated, where a real fleet's must all be real.
    pub simulated: Option<String>,
}

impl Default for FleetOptions {
    fn default() -> Self {
        FleetOptions {
            k: DEFAULT_K,
            relative_floor: DEFAULT_RELATIVE_FLOOR,
            calibration: crate::calibrate::Options {
                date: crate::timestamp::now(),
                ..Default::default()
            },
            simulated: None,
        }
    }
}

/// One node in the report.
#[derive(Debug, Clone, Serialize)]
pub struct NodeReport {
    /// The host name the node reported (its results directory).
    pub host: String,
    /// The name the survey was given for it, when that differs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub given: Option<String>,
    /// The survey's outcome.
    pub status: NodeStatus,
    pub detail: Option<String>,
    /// Whether a model was calibrated (only for `done` nodes).
    pub calibrated: bool,
    /// Why the calibration failed.
    pub error: Option<String>,
    pub(crate) model_file: Option<String>,
    pub(crate) traces: Vec<String>,
    pub model: Option<Model>,
    /// The simulated machine its model's measurements were drawn from (a simulated fleet's
    /// node), absent for a real one: `check --fleet` holds a saved report's models to the
    /// same origin guard as a model file's, and `model` alone carries no calibration block.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) origin: Option<String>,
    pub facts: Option<Facts>,
    /// The facts that differ from the fleet's majority.
    pub differing_facts: Vec<FactDiff>,
    /// The parameters of this node outside the band (`local.t_par_max`) and beyond its own
    /// noise.
    pub outlier_parameters: Vec<String>,
    /// The parameters outside the band but within this node's own noise: not outliers.
    pub(crate) within_noise_parameters: Vec<String>,
    /// This node's own half-width around each parameter (`local.alpha` -> 0.01), from its
    /// traces' intervals (`noise`); empty for a node without a model.
    pub own_noise: BTreeMap<String, f64>,
    /// The measured medians of placement 0,0, as drawn in the figure.
    pub local_measured: Vec<TidyRow>,
    /// The model of its second run (`survey --runs 2`), calibrated without writing.
    pub(crate) other_run: Option<Model>,
    /// Whether the survey measured it a second time (its `run2/` is there), whether or not
    /// that run could be calibrated into `other_run`.
    #[serde(skip)]
    pub(crate) measured_twice: bool,
    /// Where its run-to-run noise came from (`runs`).
    pub run_noise_source: runs::Source,
    /// Its run-to-run standard deviation of each parameter, by name; empty without one.
    pub(crate) run_noise: BTreeMap<String, f64>,
}

/// One parameter across the fleet.
#[derive(Debug, Clone, Serialize)]
pub struct ParameterSpread {
    /// `local.alpha`.
    pub parameter: String,
    /// Nodes with this parameter (`remote` only on multi-socket nodes).
    pub nodes: usize,
    #[serde(flatten)]
    pub band: Band,
    /// The nodes outside the band.
    pub outliers: Vec<String>,
}

/// One node's parameter outside the band.
#[derive(Debug, Clone, Serialize)]
pub struct Outlier {
    pub host: String,
    pub parameter: String,
    pub value: f64,
    pub median: f64,
    /// `100 x (value - median) / |median|` (absolute difference when the median is 0).
    pub deviation_percent: f64,
    /// `(value - median) / sigma`.
    pub score: f64,
    /// The node's own half-width around `value` (`noise`; 0 when its traces carry no
    /// interval).
    pub own_noise: f64,
    /// Why a value outside the band is not an outlier (`within_noise` only): its own noise,
    /// the same predictions at the fleet's median, its second run inside the band, or no
    /// second run where the fleet had them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_named: Option<NotNamed>,
}

/// Why a value outside the fleet's band is not named an outlier.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "why", rename_all = "snake_case")]
pub enum NotNamed {
    /// Its deviation lies within the node's own noise (its traces' intervals).
    OwnNoise,
    /// Its second run (`value`) lies inside the band, or outside on the other side.
    SecondRun { value: f64, half_width: f64 },
    /// Other nodes were measured twice and this one was not (the second runs reached their
    /// cap of half the fleet): one run cannot confirm it.
    NoSecondRun,
    /// It was measured a second time, and that run could not be calibrated: one run cannot
    /// confirm it (named on one run, it would be the unconfirmed verdict `--runs auto`
    /// exists to avoid; on a loaded node every second run can fail so).
    SecondRunFailed,
    /// A breakpoint or slope whose value put back at the fleet's median moves the node's
    /// predicted bandwidths by `shift_percent` at most, within `T_par^max`'s band
    /// (`limit_percent`): a change of shape where the curve is flat (`shape`).
    SameCurve {
        shift_percent: f64,
        limit_percent: f64,
    },
}

/// The fleet report.
#[derive(Debug, Clone, Serialize)]
pub struct FleetReport {
    #[serde(flatten)]
    pub header: crate::header::Header,
    /// The results root surveyed.
    pub root: String,
    /// A simulated fleet's description (`survey --simulate`); absent for real nodes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub simulated: Option<String>,
    /// The fleet's machine: the value most nodes have of every fact.
    pub(crate) machine: BTreeMap<&'static str, String>,
    pub(crate) units: crate::units::Units,
    pub k: f64,
    pub(crate) relative_floor: f64,
    /// How each node was calibrated (`survey --method`): `check --fleet` refits the new
    /// measurements the same way.
    pub(crate) calibration_method: crate::calibrate::Method,
    /// How the band is drawn, in words.
    pub band_rule: String,
    pub nodes: Vec<NodeReport>,
    pub parameters: Vec<ParameterSpread>,
    pub outliers: Vec<Outlier>,
    /// Values outside the band whose deviation lies within the node's own noise: not
    /// outliers, listed so that a tight band is visible.
    pub within_noise: Vec<Outlier>,
    pub notes: Vec<String>,
}

/// The value of `parameter` (`local.alpha`, `remote.t_par_max`) in `model`; `None` for a
/// `remote` parameter of a single-socket model.
pub fn value(model: &Model, parameter: &str) -> Option<f64> {
    let (side_name, name) = parameter.split_once('.')?;
    side(model, side_name)?
        .named()
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v)
}

/// The side of a model: `local`, or `remote` when it has one.
fn side<'a>(m: &'a Model, side: &str) -> Option<&'a Params> {
    match side {
        "local" => Some(&m.local),
        _ => m.remote.as_ref(),
    }
}

/// The hosts of a results root: every subdirectory, sorted, each taken as measured, but a
/// simulated fleet's (`survey --simulate` keeps its own under the root, never one of the
/// real hosts). For a saved results directory that has no survey manifest.
pub fn hosts_in(root: &Path) -> Result<Vec<NodeOutcome>> {
    let entries = std::fs::read_dir(root)
        .map_err(|e| Error::io(IoAction::List("the results directory"), root, e))?;
    let mut hosts: Vec<String> = entries
        .flatten()
        .filter(|e| e.path().is_dir() && e.file_name() != crate::results::SIMULATED_SURVEY)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    hosts.sort();
    if hosts.is_empty() {
        return Err(Error::Input(format!(
            "`{}` holds no host directory; a fleet's results directory has one directory per \
             host (ROOT/HOST/trace-*.json), as `contention survey` writes them",
            root.display()
        )));
    }
    Ok(hosts
        .into_iter()
        .map(|host| NodeOutcome {
            host,
            given: None,
            status: NodeStatus::Done,
            detail: None,
        })
        .collect())
}

/// Checks the options, naming the bad value and the fix.
pub(crate) fn validate(opts: &FleetOptions) -> Result<()> {
    if !valid_k(opts.k) {
        return Err(Error::Input(format!(
            "k = {}: the band's width must be a number of robust standard deviations in \
             [{MIN_K}, {MAX_K}], e.g. 3 (the default)",
            crate::units::short_number(opts.k)
        )));
    }
    if !(opts.relative_floor.is_finite() && (0.0..1.0).contains(&opts.relative_floor)) {
        return Err(Error::Input(format!(
            "relative floor {}: must be a fraction in [0, 1), e.g. 0.01 (1 % of the median, \
             the default)",
            crate::units::short_number(opts.relative_floor)
        )));
    }
    Ok(())
}

/// Calibrates every `done` node of `nodes` in `root/HOST/` (writing its `model.json`), then
/// builds the report. A node whose calibration fails is reported with the reason and the
/// others go on; failed and pending nodes are listed as the survey left them.
pub fn report(root: &Path, nodes: &[NodeOutcome], opts: &FleetOptions) -> Result<FleetReport> {
    validate(opts)?;
    let mut sorted: Vec<&NodeOutcome> = nodes.iter().collect();
    sorted.sort_by(|a, b| a.host.cmp(&b.host));
    let reports: Vec<NodeReport> = sorted
        .into_iter()
        .map(|n| node_report(root, n, opts))
        .collect();
    Ok(build(root, reports, opts))
}

fn node_report(root: &Path, n: &NodeOutcome, opts: &FleetOptions) -> NodeReport {
    let mut r = NodeReport {
        host: n.host.clone(),
        given: n.given.clone(),
        status: n.status,
        detail: n.detail.clone(),
        calibrated: false,
        error: None,
        model_file: None,
        traces: Vec::new(),
        model: None,
        origin: None,
        facts: None,
        differing_facts: Vec::new(),
        outlier_parameters: Vec::new(),
        within_noise_parameters: Vec::new(),
        own_noise: BTreeMap::new(),
        local_measured: Vec::new(),
        other_run: None,
        measured_twice: false,
        run_noise_source: runs::Source::WithinRun,
        run_noise: BTreeMap::new(),
    };
    if n.status != NodeStatus::Done {
        return r;
    }
    let dir: PathBuf = root.join(crate::results::dir_name(&n.host));
    let mut cal_opts = opts.calibration.clone();
    cal_opts.name.get_or_insert_with(|| n.host.clone());
    match calibrate::node(&dir, &cal_opts, opts.simulated.is_some()) {
        Ok(c) => {
            r.calibrated = true;
            r.model_file = Some(c.model_path.display().to_string());
            r.traces = c.traces.iter().map(|p| p.display().to_string()).collect();
            r.own_noise = own_noise(&c);
            r.origin = c
                .calibrated
                .calibration
                .inputs
                .iter()
                .find_map(|i| i.simulated.clone());
            r.model = Some(c.calibrated.model);
            r.facts = Some(c.facts);
            r.local_measured = c.local_measured;
            // Its second run, where the survey measured it twice; one that cannot be
            // calibrated leaves the node judged on the fleet's pooled spread.
            let second = crate::results::run_dir(&dir, 2);
            r.measured_twice = second.is_dir();
            if r.measured_twice {
                r.other_run = calibrate::fit(&second, &cal_opts, opts.simulated.is_some())
                    .ok()
                    .map(|c| c.calibrated.model);
            }
        }
        Err(e) => r.error = Some(e.to_string()),
    }
    r
}

/// A calibrated node's half-width around each parameter of both sides, by parameter name
/// (`local.t_par_max`): its traces' intervals propagated, or its bootstrap's ([`noise`]).
fn own_noise(c: &calibrate::NodeCalibration) -> BTreeMap<String, f64> {
    let m = &c.calibrated.model;
    let boot = c.calibrated.uncertainty.as_ref();
    let sides = [
        (
            "local",
            Some(&m.local),
            &c.local_noise,
            boot.map(|u| &u.local),
        ),
        (
            "remote",
            m.remote.as_ref(),
            &c.remote_noise,
            boot.and_then(|u| u.remote.as_ref()),
        ),
    ];
    let mut out = BTreeMap::new();
    for (side_name, params, streams, intervals) in sides {
        let Some(p) = params else { continue };
        let h = noise::half_widths(p, m.machine.cores_per_socket, streams, intervals);
        for (name, half) in Params::NAMES.iter().zip(h) {
            out.insert(format!("{side_name}.{name}"), half);
        }
    }
    out
}

/// The floor of the scale of a parameter of kind `kind` of one side, given the fleet's medians of that
/// side: a fraction of the median; for core counts at least `1 / k`, so that a plateau read
/// one core apart (the tie rule's own step) is never an outlier; for the slopes `delta_l`,
/// `delta_r` (MB/s per core) at least the fraction of the mean bandwidth per core at the peak,
/// `T_par^max / N_seq^max`: a slope's median is often 0 (no loss past the peak), and a floor
/// from the median alone would jump with the side the majority is on (1,1,1,0,0 would flag
/// the zeros, 0,0,0,1,1 nothing).
fn floor(
    kind: ParamKind,
    median: f64,
    medians: &[Option<f64>; Params::COUNT],
    opts: &FleetOptions,
) -> f64 {
    let rel = opts.relative_floor;
    let median_of = |name: &str| {
        let i = Params::NAMES.iter().position(|n| *n == name)?;
        medians[i]
    };
    match kind {
        ParamKind::Cores => (rel * median.abs()).max(1.0 / opts.k),
        ParamKind::Slope => {
            let per_core = match (
                median_of(Params::NAMES[Params::T_PAR_MAX]),
                median_of(Params::NAMES[Params::N_SEQ_MAX]),
            ) {
                (Some(t), Some(n)) if n >= 1.0 => t / n,
                (Some(t), _) => t,
                _ => 0.0,
            };
            (rel * median.abs()).max(rel * per_core.abs())
        }
        _ => rel * median.abs(),
    }
}

/// The report from calibrated (or not) nodes: bands, outliers, facts.
pub fn build(root: &Path, mut nodes: Vec<NodeReport>, opts: &FleetOptions) -> FleetReport {
    let calibrated: Vec<usize> = (0..nodes.len()).filter(|&i| nodes[i].calibrated).collect();
    let fleet_facts = facts::majority(calibrated.iter().filter_map(|&i| nodes[i].facts.as_ref()));
    let mut parameters = Vec::new();
    let mut outliers = Vec::new();
    let mut within_noise = Vec::new();
    for side_name in ["local", "remote"] {
        let per_node: Vec<(usize, [f64; Params::COUNT])> = calibrated
            .iter()
            .filter_map(|&i| {
                let m = nodes[i].model.as_ref()?;
                side(m, side_name).map(|p| (i, p.values()))
            })
            .collect();
        if per_node.is_empty() {
            continue;
        }
        let medians: [Option<f64>; Params::COUNT] = std::array::from_fn(|j| {
            crate::stats::median(&per_node.iter().map(|(_, v)| v[j]).collect::<Vec<_>>())
        });
        // What a breakpoint or slope must move the node's bandwidths by to be named: the
        // plateau's band, relative ([`shape`]).
        let plateau = Params::T_PAR_MAX;
        let same_curve_limit = medians[plateau].and_then(|m| {
            let xs: Vec<f64> = per_node.iter().map(|(_, v)| v[plateau]).collect();
            let b = outliers::band(&xs, opts.k, floor(ParamKind::Bandwidth, m, &medians, opts))?;
            (m > 0.0).then(|| b.half_width / m)
        });
        for (j, (_, kind)) in Params::FIELDS.into_iter().enumerate() {
            let xs: Vec<f64> = per_node.iter().map(|(_, v)| v[j]).collect();
            let Some(median) = medians[j] else { continue };
            let Some(band) = outliers::band(&xs, opts.k, floor(kind, median, &medians, opts))
            else {
                continue;
            };
            let found = Judged {
                outliers: &mut outliers,
                within_noise: &mut within_noise,
            };
            parameters.push(judge(
                &mut nodes,
                &per_node,
                (side_name, j),
                band,
                opts,
                found,
                same_curve_limit.filter(|_| shape::shapes(j)),
            ));
        }
    }
    for n in nodes.iter_mut() {
        if let Some(f) = &n.facts {
            n.differing_facts = facts::differing(f, &fleet_facts);
        }
    }
    let notes = notes(&nodes, calibrated.len());
    FleetReport {
        header: crate::header::Header::new(FLEET_SCHEMA_VERSION),
        root: root.display().to_string(),
        simulated: opts.simulated.clone(),
        machine: fleet_facts,
        units: crate::units::UNITS,
        k: opts.k,
        relative_floor: opts.relative_floor,
        calibration_method: opts.calibration.method,
        band_rule: band_rule(opts, nodes.iter().filter(|n| n.other_run.is_some()).count()),
        nodes,
        parameters,
        outliers,
        within_noise,
        notes,
    }
}

/// Where [`judge`] puts what it finds beyond the fleet's band.
struct Judged<'a> {
    outliers: &'a mut Vec<Outlier>,
    within_noise: &'a mut Vec<Outlier>,
}

/// One parameter (index `j` of `side_name`) across the fleet: each node inside `band`, beyond
/// it but within its own noise, with the same predicted bandwidths as at the fleet's median
/// (a breakpoint or slope, when `same_curve_limit` is given: [`shape`]) or unconfirmed by
/// its second run, or an outlier. Records each node's noise between runs and what it is on
/// the node's report.
fn judge(
    nodes: &mut [NodeReport],
    per_node: &[(usize, [f64; Params::COUNT])],
    (side_name, j): (&str, usize),
    band: Band,
    opts: &FleetOptions,
    found: Judged<'_>,
    same_curve_limit: Option<f64>,
) -> ParameterSpread {
    let parameter = format!("{side_name}.{}", Params::NAMES[j]);
    // Each node's second run's value of this parameter, where it has one.
    let second: Vec<Option<f64>> = per_node
        .iter()
        .map(|(i, _)| {
            let m = nodes[*i].other_run.as_ref()?;
            side(m, side_name).map(|p| p.values()[j])
        })
        .collect();
    let differences: Vec<f64> = per_node
        .iter()
        .zip(&second)
        .filter_map(|((_, v), s)| s.map(|s| v[j] - s))
        .collect();
    let pooled = runs::pooled(&differences);
    // Where some nodes were measured twice, a verdict needs two runs (measured: a second
    // run that could not be calibrated confirms nothing, and does not make one run enough).
    let any_second = second.iter().any(Option::is_some)
        || per_node.iter().any(|(i, _)| nodes[*i].measured_twice);
    let mut out_hosts = Vec::new();
    for ((i, v), second) in per_node.iter().zip(&second) {
        let x = v[j];
        let n = &mut nodes[*i];
        let sigma = runs::node_sigma(second.map(|s| x - s), pooled);
        n.run_noise_source = match (second, pooled) {
            (Some(_), _) => runs::Source::OwnRuns,
            (None, Some(_)) => runs::Source::FleetPooled,
            (None, None) => runs::Source::WithinRun,
        };
        if let Some(s) = sigma {
            n.run_noise.insert(parameter.clone(), s);
        }
        // The band, never narrower than this node's noise between runs.
        let node_half_width = opts.k * sigma.unwrap_or(0.0);
        if !band.outside(x, node_half_width) {
            continue;
        }
        let half_width = band.half_width.max(node_half_width);
        let own_noise = n.own_noise.get(&parameter).copied().unwrap_or(0.0);
        let mut o = outlier(&n.host, &parameter, x, &band, own_noise);
        // Beyond the fleet's spread but not beyond the node's own noise, a breakpoint or
        // slope that predicts the same bandwidths put back at the median, or not in its
        // second run: the measurement cannot tell it from the median.
        let same_curve = same_curve_limit.and_then(|limit| {
            let m = n.model.as_ref()?;
            let p = side(m, side_name)?;
            let shift = shape::shift(p, j, band.median, m.machine.cores_per_socket);
            (shift <= limit).then_some(NotNamed::SameCurve {
                shift_percent: 100.0 * shift,
                limit_percent: 100.0 * limit,
            })
        });
        o.not_named = if (x - band.median).abs() <= own_noise {
            Some(NotNamed::OwnNoise)
        } else if same_curve.is_some() {
            same_curve
        } else {
            match second {
                Some(s) if !runs::confirmed(x, *s, band.median, half_width) => {
                    Some(NotNamed::SecondRun {
                        value: *s,
                        half_width,
                    })
                }
                None if n.measured_twice => Some(NotNamed::SecondRunFailed),
                None if any_second => Some(NotNamed::NoSecondRun),
                _ => None,
            }
        };
        if o.not_named.is_some() {
            n.within_noise_parameters.push(parameter.clone());
            found.within_noise.push(o);
            continue;
        }
        out_hosts.push(n.host.clone());
        n.outlier_parameters.push(parameter.clone());
        found.outliers.push(o);
    }
    ParameterSpread {
        parameter,
        nodes: per_node.len(),
        band,
        outliers: out_hosts,
    }
}

/// `x`, outside `band`, as the report names it: its host and parameter, how far from the
/// fleet's median, and the node's own noise on it.
fn outlier(host: &str, parameter: &str, x: f64, band: &Band, own_noise: f64) -> Outlier {
    Outlier {
        host: host.to_string(),
        parameter: parameter.to_string(),
        value: x,
        median: band.median,
        deviation_percent: if band.median == 0.0 {
            x - band.median
        } else {
            100.0 * (x - band.median) / band.median.abs()
        },
        score: band.score(x),
        own_noise,
        not_named: None,
    }
}

/// What the reader should know of the spread: the nodes it leaves out, and how little it
/// can say over `calibrated` nodes when they are fewer than 3.
fn notes(nodes: &[NodeReport], calibrated: usize) -> Vec<String> {
    let mut notes = Vec::new();
    let failed = nodes.iter().filter(|n| !n.calibrated).count();
    if failed > 0 {
        notes.push(format!(
            "{failed} node(s) have no model (failed, pending, or their calibration failed): \
             the spread is over the {calibrated} calibrated"
        ));
    }
    match calibrated {
        0 => notes.push("no node was calibrated: there is no spread to report".into()),
        1 => notes.push(
            "one node calibrated: the median is its value and nothing can lie outside".into(),
        ),
        2 => notes.push(
            "two nodes calibrated: each lies as far from the median as the other, so the \
             band cannot say which is off; compare their values (min, max)"
                .into(),
        ),
        _ => {}
    }
    notes
}

/// The band's rule in words, with where the noise between runs came from: `twice` nodes
/// were measured twice.
fn band_rule(opts: &FleetOptions, twice: usize) -> String {
    let between_runs = if twice > 0 {
        format!(
            "; sigma is also at least the node's noise between runs ({twice} node(s) measured \
             twice: their own two runs, the fleet's pooled run-to-run spread for the others), \
             and a node measured twice is an outlier only if its second run is outside too"
        )
    } else {
        "; no node was measured twice (survey --runs 2), so the band knows the noise within \
         each run only, not between runs"
            .to_string()
    };
    let rule = format!(
        "outside when |x - median| > k x sigma, k = {}, sigma = max(1.4826 x MAD, floor); \
         floor = {} % of the median (for delta_l and delta_r at least that of T_par^max / \
         N_seq^max), and at least 1/k core for core counts (a plateau read one core apart \
         is not an outlier); an outlier also lies beyond its node's own noise (the 95 % \
         intervals of its traces propagated to the parameter), else it is within its own \
         noise",
        opts.k,
        100.0 * opts.relative_floor
    );
    rule + &between_runs
}

/// What the tests of this crate and of the layers above build fleet reports from: on in
/// this crate's tests and, through the `test-support` feature, in theirs.
#[cfg(any(test, feature = "test-support"))]
#[doc(hidden)]
pub mod testing {
    use super::*;
    use crate::io::model_file;

    /// A calibrated node with `paper:henri`'s model changed by `edit`.
    pub fn node(host: &str, edit: impl Fn(&mut Model)) -> NodeReport {
        let mut m = model_file::load("paper:henri").unwrap();
        edit(&mut m);
        NodeReport {
            host: host.into(),
            given: None,
            status: NodeStatus::Done,
            detail: None,
            calibrated: true,
            error: None,
            model_file: None,
            traces: Vec::new(),
            model: Some(m),
            origin: None,
            facts: Some(Facts::default()),
            differing_facts: Vec::new(),
            outlier_parameters: Vec::new(),
            within_noise_parameters: Vec::new(),
            own_noise: BTreeMap::new(),
            local_measured: Vec::new(),
            other_run: None,
            measured_twice: false,
            run_noise_source: runs::Source::WithinRun,
            run_noise: BTreeMap::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::node;
    use super::*;

    fn flagged(r: &FleetReport) -> Vec<(String, String)> {
        r.outliers
            .iter()
            .map(|o| (o.host.clone(), o.parameter.clone()))
            .collect()
    }

    #[test]
    fn core_counts_one_apart_are_noise_two_apart_are_outliers() {
        let opts = FleetOptions::default();
        let nodes = vec![
            node("a", |_| {}),
            node("b", |_| {}),
            node("c", |_| {}),
            node("d", |m| m.local.n_seq_max -= 1),
            node("e", |m| m.local.n_par_max -= 2),
        ];
        let r = build(Path::new("r"), nodes, &opts);
        assert_eq!(
            flagged(&r),
            [("e".to_string(), "local.n_par_max".to_string())]
        );
        assert_eq!(r.nodes[4].outlier_parameters, ["local.n_par_max"]);
        let n_seq = r
            .parameters
            .iter()
            .find(|p| p.parameter == "local.n_seq_max")
            .unwrap();
        assert!(n_seq.band.floored && n_seq.band.half_width >= 1.0);
    }

    #[test]
    fn both_sides_are_judged_and_slopes_have_a_floor_of_their_own() {
        // henri's local delta_r is 0: a slope of 1 MB/s per core on one node is noise (1 % of
        // T_par^max / N_seq^max is about 41, a band of +-123), 500 is not. Its local delta_l
        // is 35.3: 1.5 times that moves the total by a few tenths of a percent, within the
        // same floor; 10 times that (318 off) is not.
        let nodes = vec![
            node("a", |_| {}),
            node("b", |m| m.local.delta_r = 1.0),
            node("b2", |m| m.local.delta_l *= 1.5),
            node("c", |m| m.local.delta_l *= 10.0),
            node("d", |m| m.local.delta_r = 500.0),
            node("e", |m| m.remote.as_mut().unwrap().b_seq_comm *= 0.9),
        ];
        let r = build(Path::new("r"), nodes, &FleetOptions::default());
        assert_eq!(r.parameters.len(), 20, "ten per side");
        assert!(
            r.nodes[2].outlier_parameters.is_empty(),
            "b2: {:?}",
            flagged(&r)
        );
        // c and d are outside their slopes' bands, but henri's slopes move little of what
        // it predicts: delta_l acts only where communications are starved (from 14 cores),
        // delta_r beyond N_seq^max, its socket's last core. Put back at the fleet's median,
        // each predicts the same bandwidths within the plateau's band: not named.
        let same_curve: Vec<(&str, &str)> = r
            .within_noise
            .iter()
            .filter(|o| matches!(o.not_named, Some(NotNamed::SameCurve { .. })))
            .map(|o| (o.host.as_str(), o.parameter.as_str()))
            .collect();
        assert_eq!(same_curve, [("c", "local.delta_l"), ("d", "local.delta_r")]);
        assert_eq!(
            flagged(&r),
            [("e".to_string(), "remote.b_seq_comm".to_string())]
        );
    }

    #[test]
    fn a_slope_gets_the_same_verdict_whichever_side_the_majority_is_on() {
        let verdict = |values: [f64; 5]| {
            let nodes = ["a", "b", "c", "d", "e"]
                .iter()
                .zip(values)
                .map(|(h, v)| node(h, |m| m.local.delta_r = v))
                .collect();
            let r = build(Path::new("r"), nodes, &FleetOptions::default());
            let p = r
                .parameters
                .iter()
                .find(|p| p.parameter == "local.delta_r")
                .unwrap()
                .clone();
            (p.outliers, p.band.half_width)
        };
        let (ones, w1) = verdict([1.0, 1.0, 1.0, 0.0, 0.0]);
        let (zeros, w0) = verdict([0.0, 0.0, 0.0, 1.0, 1.0]);
        assert_eq!(ones, zeros, "1,1,1,0,0 and 0,0,0,1,1");
        assert!(ones.is_empty(), "1 MB/s per core is noise: {ones:?}");
        assert!((w1 - w0).abs() < 1e-9 * w0, "{w1} vs {w0}");
    }

    #[test]
    fn a_deviation_within_the_nodes_own_noise_is_not_an_outlier() {
        // Four nodes alike, one 3 % low on B_seq^comp: beyond the band's 1 % floor x 3.
        let nodes = |noise: f64| {
            let mut v = vec![
                node("a", |_| {}),
                node("b", |_| {}),
                node("c", |_| {}),
                node("d", |m| m.local.b_seq_comp *= 0.97),
            ];
            let b = v[3].model.as_ref().unwrap().local.b_seq_comp;
            v[3].own_noise.insert("local.b_seq_comp".into(), noise * b);
            v
        };
        let quiet = build(Path::new("r"), nodes(0.01), &FleetOptions::default());
        assert_eq!(flagged(&quiet), [("d".into(), "local.b_seq_comp".into())]);
        assert!(quiet.within_noise.is_empty());
        let noisy = build(Path::new("r"), nodes(0.05), &FleetOptions::default());
        assert!(noisy.outliers.is_empty(), "{:?}", flagged(&noisy));
        assert_eq!(noisy.nodes[3].within_noise_parameters, ["local.b_seq_comp"]);
        assert_eq!(noisy.within_noise[0].host, "d");
        assert!(noisy.parameters.iter().all(|p| p.outliers.is_empty()));
    }

    #[test]
    fn a_second_run_decides_and_the_fleets_run_to_run_spread_widens_the_band() {
        // Six nodes alike; node e is 4 % low on B_seq^comp in its first run only, node f in
        // both: beyond the band's 1 % floor x 3 either way.
        let six = || {
            let mut v: Vec<NodeReport> = ["a", "b", "c", "d", "e", "f"]
                .iter()
                .map(|h| node(h, |_| {}))
                .collect();
            for n in v.iter_mut().skip(4) {
                n.model.as_mut().unwrap().local.b_seq_comp *= 0.96;
            }
            v
        };
        let fleet = |second_runs: bool, spread: f64| {
            let mut v = six();
            if second_runs {
                for (i, n) in v.iter_mut().enumerate() {
                    let mut m = n.model.clone().unwrap();
                    m.local.b_seq_comp = node("x", |_| {}).model.unwrap().local.b_seq_comp
                        * match i {
                            5 => 0.96,
                            // Runs of a, b differ by `spread`: the fleet's noise between runs.
                            0 | 1 => 1.0 + spread,
                            _ => 1.0,
                        };
                    n.other_run = Some(m);
                }
            }
            build(Path::new("r"), v, &FleetOptions::default())
        };
        let once = fleet(false, 0.0);
        assert_eq!(
            flagged(&once),
            [
                ("e".into(), "local.b_seq_comp".into()),
                ("f".into(), "local.b_seq_comp".into())
            ]
        );
        assert_eq!(once.nodes[4].run_noise_source, runs::Source::WithinRun);
        let twice = fleet(true, 0.0);
        assert_eq!(flagged(&twice), [("f".into(), "local.b_seq_comp".into())]);
        // e's two runs differ by 4 %: a run-to-run sigma of 2.8 %, a band of +-8.5 % for it.
        let e = &twice.nodes[4];
        assert_eq!(e.run_noise_source, runs::Source::OwnRuns);
        let b = node("x", |_| {}).model.unwrap().local.b_seq_comp;
        let sigma = e.run_noise["local.b_seq_comp"];
        assert!((sigma - 0.04 * b / 2f64.sqrt()).abs() < 1e-6 * b, "{sigma}");
        // The other nodes' spread is pooled: (0.04 b)^2 / (2 x 6).
        let a = &twice.nodes[0].run_noise["local.b_seq_comp"];
        assert!((a - 0.04 * b / 12f64.sqrt()).abs() < 1e-6 * b, "{a}");
        // Two nodes whose runs differ by 9 %: a run-to-run sigma of sqrt(2 x 0.09^2 / 12)
        // = 3.7 % over the six, a band of +-11 %: nothing is an outlier.
        let noisy = fleet(true, 0.09);
        assert!(noisy.outliers.is_empty(), "{:?}", flagged(&noisy));
        assert!(noisy.band_rule.contains("run"), "{}", noisy.band_rule);
        // e and f measured again, and neither second run calibrated (a loaded node): no
        // verdict on one run, where one was asked to confirm it.
        let mut v = six();
        for n in v.iter_mut().skip(4) {
            n.measured_twice = true;
        }
        let failed = build(Path::new("r"), v, &FleetOptions::default());
        assert!(failed.outliers.is_empty(), "{:?}", flagged(&failed));
        let whys: Vec<Option<NotNamed>> = failed.within_noise.iter().map(|o| o.not_named).collect();
        assert_eq!(whys, [Some(NotNamed::SecondRunFailed); 2]);
    }

    #[test]
    fn one_or_two_nodes_flag_nothing_and_say_why() {
        let opts = FleetOptions::default();
        let r = build(Path::new("r"), vec![node("a", |_| {})], &opts);
        assert!(r.outliers.is_empty());
        assert!(
            r.notes.iter().any(|n| n.contains("one node")),
            "{:?}",
            r.notes
        );
        let r = build(
            Path::new("r"),
            vec![node("a", |_| {}), node("b", |m| m.local.t_par_max *= 0.5)],
            &opts,
        );
        assert!(r.outliers.is_empty());
        assert!(
            r.notes.iter().any(|n| n.contains("two nodes")),
            "{:?}",
            r.notes
        );
        let t = r
            .parameters
            .iter()
            .find(|p| p.parameter == "local.t_par_max")
            .unwrap();
        assert_eq!(t.band.max / t.band.min, 2.0, "min and max show the gap");
    }

    #[test]
    fn a_wider_band_flags_less() {
        let nodes = || {
            vec![
                node("a", |_| {}),
                node("b", |m| m.local.b_seq_comp *= 1.01),
                node("c", |m| m.local.b_seq_comp *= 0.99),
                node("d", |m| m.local.b_seq_comp *= 0.94),
            ]
        };
        let k3 = build(Path::new("r"), nodes(), &FleetOptions::default());
        assert_eq!(flagged(&k3), [("d".into(), "local.b_seq_comp".into())]);
        let k10 = FleetOptions {
            k: 10.0,
            ..FleetOptions::default()
        };
        assert!(build(Path::new("r"), nodes(), &k10).outliers.is_empty());
        for bad in [0.0, -1.0, f64::NAN, 1e30, 100.5] {
            let o = FleetOptions {
                k: bad,
                ..FleetOptions::default()
            };
            assert_eq!(validate(&o).unwrap_err().exit_code(), 2);
        }
        let o = FleetOptions {
            relative_floor: 1.5,
            ..FleetOptions::default()
        };
        assert!(validate(&o).unwrap_err().to_string().contains("0.01"));
    }
}
