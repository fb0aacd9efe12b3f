//! The model's error against measurements, laid out as the paper's Table 2 (section 4.2).
//!
//! The error is the mean absolute percentage error `100 % / n * sum |a - p| / a` of measured
//! (`a`) against predicted (`p`) bandwidths, computed separately for communications and
//! computations, and split between the *samples* (the placements the model is calibrated on:
//! both data on node 0, and on node `#m` when the model has `remote`) and the *non-samples*
//! (every other placement). "All" is over every point, samples and non-samples together
//! (Table 2's henri-subnuma row, 2 sample placements of 16, shows the paper weighs by point),
//! and "average" is the mean of the communications' and the computations' "all".
//!
//! Table 2 compares the bandwidths *in parallel* (both streams running). The same figures for
//! each stream *alone* are reported beside them, labelled, as they show how well
//! `B_seq^comm`, `B_seq^comp` and equation 6 describe the machine without contention.
//!
//! Pure: inputs are read by [`crate::io::inputs`], the report written by
//! `crate::report::evaluate`.

use crate::dataset::{self, Input, Sweep, COMM_ALONE, COMM_PARALLEL, COMP_ALONE, COMP_PARALLEL};
use crate::error::Result;
use crate::model::{self, Model, Placement};
use crate::stats;
use serde::Serialize;

/// Which points the headline figures count, stated in every output.
pub(crate) const POINTS_COUNTED: &str = "Table 2 figures (`parallel`) compare comp_parallel and \
comm_parallel, the bandwidths measured while computations and communications run together, \
at every measured placement and core count; `alone` compares comp_alone and comm_alone the \
same way and is not part of the paper's Table 2";

/// The two streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stream {
    Comp,
    Comm,
}

/// Whether the streams ran together or each alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Parallel,
    Alone,
}

impl Stream {
    pub fn name(self) -> &'static str {
        match self {
            Stream::Comp => "comp",
            Stream::Comm => "comm",
        }
    }
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Parallel => "parallel",
            Phase::Alone => "alone",
        }
    }
}

/// One measured bandwidth and its prediction.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PointError {
    pub comp_numa: u32,
    pub comm_numa: u32,
    pub cores: u32,
    /// On a placement the model was calibrated on.
    pub sample: bool,
    pub phase: Phase,
    pub stream: Stream,
    /// MB/s.
    pub measured: f64,
    /// MB/s.
    pub predicted: f64,
    /// `100 * |measured - predicted| / measured`.
    pub ape_percent: f64,
}

/// MAPE (%) of one stream and phase on samples, non-samples and all; `None` where no point
/// counts. Named `*_percent` like every percentage the tool writes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Mape {
    pub samples_percent: Option<f64>,
    pub non_samples_percent: Option<f64>,
    pub all_percent: Option<f64>,
    pub n_samples: usize,
    pub n_non_samples: usize,
}

/// One row of Table 2 for one phase; the streams are `comm` and `comp`, as in every other
/// key the tool writes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PhaseErrors {
    pub comm: Mape,
    pub comp: Mape,
    /// Mean of the two streams' `all_percent`.
    pub average_percent: Option<f64>,
}

/// The error on one placement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlacementErrors {
    pub comp_numa: u32,
    pub comm_numa: u32,
    pub sample: bool,
    pub(crate) sources: Vec<String>,
    pub cores: Vec<u32>,
    /// MAPE (%) in parallel: communications, computations (`_mape_percent`: these are
    /// errors, not the bandwidths the same names carry elsewhere).
    pub comm_parallel_mape_percent: f64,
    pub comp_parallel_mape_percent: f64,
    /// MAPE (%) alone.
    pub comm_alone_mape_percent: f64,
    pub comp_alone_mape_percent: f64,
}

/// Version of [`EvaluateReport`]'s JSON layout.
pub const SCHEMA_VERSION: u32 = 1;

/// Everything `evaluate` reports: the model's error per phase, stream and placement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvaluateReport {
    #[serde(flatten)]
    pub header: crate::header::Header,
    /// Which model, which machine, in which units.
    #[serde(flatten)]
    pub about: crate::header::About,
    pub inputs: Vec<String>,
    pub points_counted: &'static str,
    /// The placements the model is calibrated on (`COMP,COMM`).
    pub sample_placements: Vec<String>,
    pub notes: Vec<String>,
    /// Table 2: bandwidths in parallel.
    pub parallel: PhaseErrors,
    /// The same for each stream alone.
    pub alone: PhaseErrors,
    pub placements: Vec<PlacementErrors>,
    /// Leave-one-placement-out error of the global fit on these measurements, beside the
    /// model's error at each placement held out, when three or more placements are measured
    /// (`evaluate` adds it after [`evaluate`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cross_validation: Option<crate::calibrate::validate::CrossValidation>,
    /// With `cross_validation`: whether the model was calibrated on these files, so that
    /// its error at each held-out placement (`in_sample_mape_percent`) is in sample; false
    /// for a model fitted elsewhere, hand-typed or built in, which the figure only compares.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cross_validation_in_sample: Option<bool>,
    /// Why there is no `cross_validation`, when `evaluate` could not compute it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cross_validation_unavailable: Option<String>,
    /// Every point compared (written by `--format csv`).
    #[serde(skip)]
    pub points: Vec<PointError>,
}

/// The placements a model is calibrated on (section 4.1.2).
pub(crate) fn sample_placements(model: &Model) -> Vec<Placement> {
    let m = model.machine.numa_per_socket;
    let mut out = vec![Placement {
        comp_numa: 0,
        comm_numa: 0,
    }];
    if model.remote.is_some() {
        out.push(Placement {
            comp_numa: m,
            comm_numa: m,
        });
    }
    out
}

fn mape_of(points: &[PointError], phase: Phase, stream: Stream) -> Mape {
    let pairs = |sample: Option<bool>| {
        points
            .iter()
            .filter(move |p| {
                p.phase == phase && p.stream == stream && sample.is_none_or(|s| p.sample == s)
            })
            .map(|p| (p.measured, p.predicted))
    };
    Mape {
        samples_percent: stats::mape(pairs(Some(true))),
        non_samples_percent: stats::mape(pairs(Some(false))),
        all_percent: stats::mape(pairs(None)),
        n_samples: pairs(Some(true)).count(),
        n_non_samples: pairs(Some(false)).count(),
    }
}

fn phase_errors(points: &[PointError], phase: Phase) -> PhaseErrors {
    let comm = mape_of(points, phase, Stream::Comm);
    let comp = mape_of(points, phase, Stream::Comp);
    let average_percent = match (comm.all_percent, comp.all_percent) {
        (Some(a), Some(b)) => Some((a + b) / 2.0),
        _ => None,
    };
    PhaseErrors {
        comm,
        comp,
        average_percent,
    }
}

/// Refuses `inputs` that `model` (named `model_source`) cannot be evaluated on: traces of
/// another machine ([`check_topology`]), placements on NUMA nodes or core counts its
/// machine lacks. `check` and `check --fleet` hold a model to these before comparing.
pub(crate) fn check_machine(model: &Model, model_source: &str, inputs: &[Input]) -> Result<()> {
    check_topology(inputs, model, model_source)?;
    for sweep in dataset::sweeps(inputs) {
        predictable(model, &sweep, &mut Vec::new())?;
    }
    Ok(())
}

/// Refuses traces of another machine than the model's: the placements would not mean the
/// same NUMA nodes.
fn check_topology(inputs: &[Input], model: &Model, model_source: &str) -> Result<Vec<String>> {
    let (measured, notes) = dataset::common_machine(inputs)?;
    if let Some(m) = measured {
        let mm = &model.machine;
        let nodes = m.numa_nodes.len() as u32;
        if m.numa_per_socket != mm.numa_per_socket || (nodes != 0 && nodes != mm.numa_nodes) {
            let src = inputs
                .iter()
                .find(|i| i.machine.is_some())
                .map_or("", |i| i.source.as_str());
            return Err(EvaluateError::OtherMachine(Box::new(OtherMachine {
                source: src.into(),
                host: m.hostname.clone(),
                nodes,
                numa_per_socket: m.numa_per_socket,
                model: model_source.into(),
                machine: mm.clone(),
            }))
            .into());
        }
    }
    Ok(notes)
}

/// Why a model cannot be evaluated against the inputs: they come from another machine or
/// hold nothing it predicts. All are bad input (exit 2).
#[derive(Debug, Clone)]
pub(crate) enum EvaluateError {
    /// The traces' machine is not the model's.
    OtherMachine(Box<OtherMachine>),
    /// No placement of the inputs can be predicted.
    NothingToEvaluate { sources: Vec<String>, model: String },
    /// A placement on a NUMA node the model's machine lacks.
    NoSuchNode {
        placement: Placement,
        files: String,
        highest: u32,
        machine: String,
        numa_nodes: u32,
    },
    /// A point with more cores than the model's socket.
    TooManyCores {
        placement: Placement,
        files: String,
        cores: u32,
        machine: String,
        cores_per_socket: u32,
    },
}

/// A trace (`source`, measured on `host` with `nodes` NUMA nodes) evaluated against a model
/// (`model`) of another `machine`.
#[derive(Debug, Clone)]
pub(crate) struct OtherMachine {
    pub(crate) source: String,
    pub(crate) host: String,
    pub(crate) nodes: u32,
    pub(crate) numa_per_socket: u32,
    pub(crate) model: String,
    pub(crate) machine: crate::model::Machine,
}

// `?` turns it into the crate's error: input the user can fix (exit 2).
crate::wrap!(Input: EvaluateError);
impl std::fmt::Display for EvaluateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EvaluateError::OtherMachine(o) => write!(
                f,
                "{} was measured on {} ({} NUMA nodes, {} per socket), but model {} describes \
                 machine `{}` ({} NUMA nodes, {} per socket): evaluate a model with \
                 measurements of its own machine",
                o.source,
                o.host,
                o.nodes,
                o.numa_per_socket,
                o.model,
                o.machine.name,
                o.machine.numa_nodes,
                o.machine.numa_per_socket
            ),
            EvaluateError::NothingToEvaluate { sources, model } => write!(
                f,
                "nothing to evaluate: no placement of {} can be predicted by model {model}",
                sources.join(", ")
            ),
            EvaluateError::NoSuchNode {
                placement,
                files,
                highest,
                machine,
                numa_nodes,
            } => write!(
                f,
                "placement {placement} ({files}) uses NUMA node {highest}, but the model's \
                 machine `{machine}` has nodes 0..{}: evaluate a model with measurements of its \
                 own machine",
                numa_nodes - 1
            ),
            EvaluateError::TooManyCores {
                placement,
                files,
                cores,
                machine,
                cores_per_socket,
            } => write!(
                f,
                "placement {placement} ({files}) has a point with {cores} computing cores, but \
                 the model's machine `{machine}` has {cores_per_socket} cores per socket"
            ),
        }
    }
}

impl std::error::Error for EvaluateError {}

/// Evaluates `model` (named `model_source`) against every placement of `inputs`.
pub fn evaluate(model: &Model, model_source: &str, inputs: &[Input]) -> Result<EvaluateReport> {
    let mut notes = check_topology(inputs, model, model_source)?;
    for input in inputs {
        notes.extend(input.notes.iter().cloned());
    }
    let samples = sample_placements(model);
    let mut points = Vec::new();
    let mut placements = Vec::new();
    for sweep in dataset::sweeps(inputs) {
        if !predictable(model, &sweep, &mut notes)? {
            continue;
        }
        let sample = samples.contains(&sweep.placement);
        let start = points.len();
        compare(model, &sweep, sample, &mut points)?;
        let mine = &points[start..];
        let m = |phase, stream| mape_of(mine, phase, stream).all_percent.unwrap_or(f64::NAN);
        placements.push(PlacementErrors {
            comp_numa: sweep.placement.comp_numa,
            comm_numa: sweep.placement.comm_numa,
            sample,
            sources: sweep.sources.clone(),
            cores: sweep.cores(),
            comm_parallel_mape_percent: m(Phase::Parallel, Stream::Comm),
            comp_parallel_mape_percent: m(Phase::Parallel, Stream::Comp),
            comm_alone_mape_percent: m(Phase::Alone, Stream::Comm),
            comp_alone_mape_percent: m(Phase::Alone, Stream::Comp),
        });
    }
    if placements.is_empty() {
        return Err(EvaluateError::NothingToEvaluate {
            sources: inputs.iter().map(|i| i.source.clone()).collect(),
            model: model_source.into(),
        }
        .into());
    }
    for s in &samples {
        if !placements
            .iter()
            .any(|p| p.comp_numa == s.comp_numa && p.comm_numa == s.comm_numa)
        {
            notes.push(format!(
                "no input has sample placement {s}: the `samples` column leaves it out"
            ));
        }
    }
    Ok(EvaluateReport {
        header: crate::header::Header::new(SCHEMA_VERSION),
        about: crate::header::About::of(model, model_source),
        inputs: inputs.iter().map(|i| i.source.clone()).collect(),
        points_counted: POINTS_COUNTED,
        sample_placements: samples.iter().map(|p| p.to_string()).collect(),
        notes,
        parallel: phase_errors(&points, Phase::Parallel),
        alone: phase_errors(&points, Phase::Alone),
        placements,
        cross_validation: None,
        cross_validation_in_sample: None,
        cross_validation_unavailable: None,
        points,
    })
}

/// Whether the model can predict `sweep`: an error for nodes or cores the machine does not
/// have, a note (and `false`) for remote nodes of a model without `remote`.
fn predictable(model: &Model, sweep: &Sweep, notes: &mut Vec<String>) -> Result<bool> {
    let m = &model.machine;
    let p = sweep.placement;
    let files = sweep.sources.join(", ");
    let highest = p.comp_numa.max(p.comm_numa);
    if highest >= m.numa_nodes {
        return Err(EvaluateError::NoSuchNode {
            placement: p,
            files,
            highest,
            machine: m.name.clone(),
            numa_nodes: m.numa_nodes,
        }
        .into());
    }
    if let Some(last) = sweep
        .points
        .last()
        .filter(|pt| pt.cores > m.cores_per_socket)
    {
        return Err(EvaluateError::TooManyCores {
            placement: p,
            files,
            cores: last.cores,
            machine: m.name.clone(),
            cores_per_socket: m.cores_per_socket,
        }
        .into());
    }
    if highest >= model.predictable_nodes() {
        notes.push(format!(
            "placement {p} ({files}) is left out: it uses the second socket and the model has \
             no `remote` parameters"
        ));
        return Ok(false);
    }
    Ok(true)
}

/// Appends the four comparisons of each point of `sweep`.
fn compare(model: &Model, sweep: &Sweep, sample: bool, out: &mut Vec<PointError>) -> Result<()> {
    let predicted = model::predict(model, &[sweep.placement], &sweep.cores())?;
    let pred_points = predicted.first().map_or(&[][..], |p| p.points.as_slice());
    for (m, p) in sweep.points.iter().zip(pred_points) {
        for (phase, stream, measured, predicted) in [
            (
                Phase::Parallel,
                Stream::Comm,
                m.bw[COMM_PARALLEL],
                p.comm_parallel,
            ),
            (
                Phase::Parallel,
                Stream::Comp,
                m.bw[COMP_PARALLEL],
                p.comp_parallel,
            ),
            (Phase::Alone, Stream::Comm, m.bw[COMM_ALONE], p.comm_alone),
            (Phase::Alone, Stream::Comp, m.bw[COMP_ALONE], p.comp_alone),
        ] {
            out.push(PointError {
                comp_numa: sweep.placement.comp_numa,
                comm_numa: sweep.placement.comm_numa,
                cores: m.cores,
                sample,
                phase,
                stream,
                measured,
                predicted,
                ape_percent: 100.0 * ((measured - predicted) / measured).abs(),
            });
        }
    }
    Ok(())
}

/// The mean absolute percentage error of `predicted` against `reference` over the four
/// bandwidths of each row, rows paired in order (the paper's error measure, section 5).
pub fn rows_mape(
    reference: &[crate::trace::TidyRow],
    predicted: &[crate::trace::TidyRow],
) -> Option<f64> {
    crate::stats::mape(reference.iter().zip(predicted).flat_map(|(r, p)| {
        [
            (r.comp_alone, p.comp_alone),
            (r.comm_alone, p.comm_alone),
            (r.comp_parallel, p.comp_parallel),
            (r.comm_parallel, p.comm_parallel),
        ]
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::model_file;
    use crate::model::all_placements;
    use crate::trace::predicted_rows;
    use crate::trace::TidyRow;

    fn henri() -> Model {
        model_file::load("paper:henri").unwrap()
    }

    /// The model's own predictions, with comp_parallel of the non-sample placements and
    /// comm_parallel of placement 0,0 scaled by `factor`.
    fn measured(m: &Model, factor: f64) -> Vec<TidyRow> {
        let cores: Vec<u32> = (1..=18).collect();
        let mut rows = predicted_rows(&model::predict(m, &all_placements(m), &cores).unwrap());
        for r in &mut rows {
            if r.comp_numa != r.comm_numa {
                r.comp_parallel *= factor;
            }
            if r.comp_numa == 0 && r.comm_numa == 0 {
                r.comm_parallel *= factor;
            }
        }
        rows
    }

    #[test]
    fn table_2_columns_split_samples_and_non_samples() {
        let m = henri();
        // Measured = 1.1 x predicted: |a - p| / a = 0.1 / 1.1.
        let e = evaluate(
            &m,
            "paper:henri",
            &[Input::from_rows(&measured(&m, 1.1), "x")],
        )
        .unwrap();
        let off = 100.0 * 0.1 / 1.1;
        let close = |a: Option<f64>, b: f64| (a.unwrap() - b).abs() < 1e-9;
        let comm = e.parallel.comm;
        // Placement 0,0 is one of the two sample placements: half the sample points are off.
        assert!(close(comm.samples_percent, off / 2.0), "{comm:?}");
        assert!(close(comm.non_samples_percent, 0.0));
        assert!(close(comm.all_percent, off / 4.0));
        assert_eq!((comm.n_samples, comm.n_non_samples), (36, 36));
        let comp = e.parallel.comp;
        assert!(close(comp.samples_percent, 0.0) && close(comp.non_samples_percent, off));
        assert!(close(
            e.parallel.average_percent,
            (off / 4.0 + off / 2.0) / 2.0
        ));
        // Alone, the model is its own measurement.
        assert!(close(e.alone.comp.all_percent, 0.0) && close(e.alone.comm.all_percent, 0.0));
        assert_eq!(e.sample_placements, ["0,0", "1,1"]);
        assert_eq!(e.placements.len(), 4);
        let p00 = e
            .placements
            .iter()
            .find(|p| p.comp_numa == 0 && p.comm_numa == 0);
        assert!((p00.unwrap().comm_parallel_mape_percent - off).abs() < 1e-9);
        assert_eq!(e.points.len(), 4 * 18 * 4);
        assert!(e.points.iter().all(|p| p.ape_percent >= 0.0));
    }

    #[test]
    fn a_model_without_remote_leaves_the_second_socket_out_and_says_so() {
        let mut m = henri();
        let rows = measured(&m, 1.0);
        m.remote = None;
        let e = evaluate(&m, "local.json", &[Input::from_rows(&rows, "x")]).unwrap();
        assert_eq!(e.placements.len(), 1);
        assert_eq!(e.sample_placements, ["0,0"]);
        assert_eq!(e.parallel.comm.n_non_samples, 0);
        assert_eq!(e.parallel.comm.non_samples_percent, None);
        assert_eq!(e.notes.len(), 3, "{:?}", e.notes);
        assert!(e.notes[0].contains("placement 0,1 (x) is left out"));
    }

    #[test]
    fn nodes_and_cores_beyond_the_machine_are_errors() {
        let m = henri();
        let mut rows = measured(&m, 1.0);
        rows[0].comm_numa = 2;
        let e = evaluate(&m, "paper:henri", &[Input::from_rows(&rows, "x.csv")]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "placement 0,2 (x.csv) uses NUMA node 2, but the model's machine `henri` has nodes \
             0..1: evaluate a model with measurements of its own machine"
        );
        assert_eq!(e.exit_code(), 2);
        let mut rows = measured(&m, 1.0);
        rows[0].cores = 19;
        let e = evaluate(&m, "paper:henri", &[Input::from_rows(&rows, "x.csv")]).unwrap_err();
        assert!(e.to_string().contains("19 computing cores"), "{e}");
    }
}
