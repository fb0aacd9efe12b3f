//! Calibration: the model's parameters from measurements (sections 3.1 and 4.1.2).
//!
//! The paper instantiates the model twice, from two placements where both streams use the
//! same NUMA node: `M_local` from both data on node 0, `M_remote` from both data on node `#m`
//! (`numa_per_socket`), the first node of the second socket. Every other placement is
//! predicted from these two (section 3.3), so calibration uses exactly these two sweeps and
//! says so; the others are for `evaluate`.
//!
//! Pure: the inputs are already read ([`crate::io::inputs`]); the result is a model plus the
//! record of where it came from and how well it fits its own data.
//!
//! - `variant`: which model is fitted (the paper's, or its variant for communications done
//!   by CPU cores, from the traces' transport) and where that variant's fit starts;
//! - `rules`: the paper's extraction rules (section 3.1), one side from one sweep;
//!   [`fit`]: the global robust fit of every measured placement, started from them.
//! - `validate`: leave-one-placement-out errors and the parameters the data cannot pin
//!   down; [`bootstrap`]: the fit's uncertainty by resampling; `profile`: the breakpoints'
//!   positions the fit's loss does not reject, joined with the bootstrap's intervals;
//!   [`bands`]: the 95 % intervals of predictions that uncertainty gives.
//! - [`spread`]: the noise between runs the inputs show, recorded in the model file for
//!   `check`'s drift limit.

pub mod bands;
pub mod bootstrap;
pub mod fit;
pub(crate) mod profile;
pub(crate) mod rules;
pub mod spread;
pub mod validate;
pub(crate) mod variant;

use crate::dataset::{self, Input, InputKind, Sweep, QUANTITIES};
use crate::error::Result;
use crate::model::{
    self, Machine, Model, ParamIntervals, Params, Placement, Replicate, Uncertainty, SCHEMA_VERSION,
};
use crate::provenance::Provenance;
use crate::stats;
use crate::trace::MachineInfo;
use serde::{Deserialize, Serialize};

pub use rules::{Tolerances, TOLERANCE_FLOOR, TOLERANCE_SE};

/// What the command line adds to the inputs: the topology a CSV lacks, a name, and the
/// tolerance of the tie rule (`rules`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Options {
    pub numa_per_socket: Option<u32>,
    pub numa_nodes: Option<u32>,
    pub cores_per_socket: Option<u32>,
    pub name: Option<String>,
    /// Relative tolerance for maxima and minima (0.01 = 1 %), instead of the derived one.
    pub tolerance: Option<f64>,
    /// Calibrate `local` only on a multi-socket machine.
    pub local_only: bool,
    /// When the calibration was made (RFC 3339), recorded in the model file.
    pub date: String,
    /// How the parameters are read from the measurements.
    pub method: Method,
    /// Bootstrap resamples for the intervals (0: none).
    pub bootstrap: u32,
    /// Seed of the bootstrap.
    pub seed: u64,
    /// Which model to fit (`--model`); `None`: the law that predicts held-out core counts
    /// best, the transport's on a near-tie (`variant::by_held_out`).
    pub model: Option<model::Variant>,
    /// Without `model`, the transport's law (`variant::choose`) without the held-out choice:
    /// for callers whose many fits must share one law (a fleet's nodes, whose parameters are
    /// compared; the adaptive design's refits of resampled traces).
    pub transport_law: bool,
}

/// How `calibrate` reads the parameters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// The global robust fit of every measured placement ([`fit`](mod@fit)), started from the
    /// rules.
    #[default]
    Fit,
    /// The paper's rules (section 3.1, `rules`) on the two sample placements only.
    Paper,
}

/// The model file `calibrate` writes: the fields of the model file (docs/formats.md, "Model file"), which `predict` reads, and
/// beside them where they came from. `calibration` is optional for readers: a model file
/// without it is still a model ([`crate::io::model_file`] ignores it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CalibratedModel {
    #[serde(flatten)]
    pub model: Model,
    pub calibration: Calibration,
    /// The bootstrap's intervals and refitted models, when `--bootstrap N` asked for them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uncertainty: Option<Uncertainty>,
}

/// The global fit's report (`--method fit`): how it compares with the paper's rules on the
/// same data, what it cannot pin down, and how well it predicts placements left out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FitReport {
    /// The placements whose samples were fitted.
    pub placements: Vec<String>,
    /// Measured bandwidths (placement x core count x phase) fitted.
    pub groups: usize,
    /// The noise scale of the relative residuals (1.4826 x MAD), in percent.
    pub noise_percent: f64,
    /// The robust loss of the fit and of the paper's rules on the same data and scale.
    pub loss: f64,
    pub paper_loss: f64,
    /// Whether the paper's rules were kept because the fit did not beat them.
    pub kept_paper: bool,
    /// MAPE over every fitted placement, per phase: the fit, then the paper's rules.
    pub mape_percent: Bandwidths,
    pub paper_mape_percent: Bandwidths,
    /// The paper's rules, for comparison.
    pub paper_local: Params,
    pub paper_remote: Option<Params>,
    /// Mean relative difference between the fit's and the rules' predictions of the measured
    /// points, in percent.
    pub disagreement_percent: f64,
    /// Parameters the data cannot pin down, with why.
    pub unidentified: Vec<String>,
    /// Leave-one-placement-out error, when three or more placements were measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cross_validation: Option<validate::CrossValidation>,
    /// The other model, fitted the same way (files from before the variant have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_model: Option<OtherModel>,
}

/// Where a model came from and how well it fits the sweeps it was calibrated on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// The build that calibrated.
    pub(crate) tool: Provenance,
    /// When (RFC 3339, UTC).
    pub(crate) date: String,
    /// What the numbers are in, as in every report; not read back (older files lack it and
    /// it describes, it does not configure).
    #[serde(skip_deserializing, default)]
    pub(crate) units: crate::units::Units,
    pub(crate) inputs: Vec<InputRecord>,
    /// The machine as `measure` described it, when the inputs include a trace.
    pub(crate) measured_machine: Option<MachineInfo>,
    /// The rule that read maxima and minima, in words.
    pub(crate) tie_rule: String,
    pub local: SideFit,
    pub remote: Option<SideFit>,
    /// What the user was told on standard error.
    pub notes: Vec<String>,
    /// How the parameters were read (`fit` or `paper`); files from before the fit say none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) method: Option<Method>,
    /// The global fit's report, for `--method fit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fit: Option<FitReport>,
    /// Which model was fitted and why (files from before the cpu-copy variant say none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<ModelChoice>,
    /// The noise between runs of the inputs ([`spread`]), when they hold several runs:
    /// `check` takes its drift limit from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) run_spread: Option<spread::RunSpread>,
}

/// Which model `calibrate` fitted, and why: each law's error on held-out core counts, the
/// inputs' transport, or `--model`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelChoice {
    pub variant: model::Variant,
    pub why: String,
    /// Each law's error on the core counts its fit did not see, when `calibrate` chose by it
    /// (`--method fit` without `--model`, eight core counts or more; empty in files from
    /// before it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub held_out: Vec<variant::HeldOutLaw>,
}

/// The model `calibrate` did not choose, fitted to the same data the same way, for
/// comparison (the other of [`model::Variant`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OtherModel {
    pub variant: model::Variant,
    /// Its MAPE over every fitted placement, per phase.
    pub mape_percent: Bandwidths,
    /// Its robust loss, on the chosen fit's noise scale.
    pub loss: f64,
}

/// One input file, as recorded in the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct InputRecord {
    pub(crate) path: String,
    pub(crate) kind: InputKind,
    /// The measured host, for traces.
    pub(crate) host: Option<String>,
    /// The placements it holds (`COMP,COMM`).
    pub(crate) placements: Vec<String>,
    /// The MPI stack its messages crossed, for traces that record it (`check` names a
    /// change of it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) stack: Option<String>,
    /// The simulated machine its measurements were drawn from, absent for real ones: a model
    /// of simulated CSVs alone has no measured machine to carry it, and must still never be
    /// compared with real measurements (`crate::io::model_file::Loaded::origin`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) simulated: Option<String>,
}

/// One side of the model and its fit to the sweep it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SideFit {
    pub comp_numa: u32,
    pub comm_numa: u32,
    /// The inputs holding this placement.
    pub sources: Vec<String>,
    /// The core counts measured.
    pub cores: Vec<u32>,
    /// The tolerances the tie rule used.
    pub tolerance: Tolerances,
    /// Mean absolute percentage error of the model on this sweep, per bandwidth.
    pub mape_percent: Bandwidths,
    /// Measured minus predicted (MB/s), per core count.
    pub(crate) residuals: Vec<Residual>,
}

/// The four bandwidths of a point (MB/s), or a statistic of each.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Bandwidths {
    pub comp_alone: f64,
    pub comm_alone: f64,
    pub comp_parallel: f64,
    pub comm_parallel: f64,
}

impl From<[f64; 4]> for Bandwidths {
    /// From an array in [`QUANTITIES`] order.
    fn from(a: [f64; 4]) -> Self {
        Bandwidths {
            comp_alone: a[0],
            comm_alone: a[1],
            comp_parallel: a[2],
            comm_parallel: a[3],
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct Residual {
    pub(crate) cores: u32,
    #[serde(flatten)]
    pub(crate) measured_minus_predicted: Bandwidths,
}

/// The tie rule, as recorded in every model file.
pub(crate) fn tie_rule(tolerance: Option<f64>) -> String {
    let tol = match tolerance {
        Some(t) => format!("tol = {} % (--tolerance)", t * 100.0),
        None => format!(
            "tol = max({} %, {} x the median relative standard error of the curve's points)",
            TOLERANCE_FLOOR * 100.0,
            TOLERANCE_SE
        ),
    };
    format!(
        "maxima (T_seq^max, T_par^max) and the minimum of comm_parallel (alpha) are read as \
         plateaus: the measured core counts within tol of the extreme, from the first on while \
         they follow each other in the sweep; the value is the plateau's median, N_seq^max its \
         first core count, N_par^max its last; {tol}"
    )
}

/// Calibrates a model from `inputs` (any placements; the two of section 4.1.2 are used).
/// Returns it with the notes the user should read.
pub fn calibrate(inputs: &[Input], opts: &Options) -> Result<(CalibratedModel, Vec<String>)> {
    if opts.method == Method::Paper && opts.bootstrap > 0 {
        return Err(CalibrateError::PaperBootstrap {
            resamples: opts.bootstrap,
        }
        .into());
    }
    let (measured, mut notes) = dataset::common_machine(inputs)?;
    for input in inputs {
        notes.extend(input.notes.iter().cloned());
    }
    let sweeps = dataset::sweeps(inputs);
    let machine = resolve_machine(measured, inputs, &sweeps, opts, &mut notes)?;
    let (local, remote) = sample_sweeps(&sweeps, inputs, &machine, opts, &mut notes)?;
    let (paper_model, local_tol, remote_tol) =
        paper_rules(local, remote, machine, opts, &mut notes)?;
    // Said in the report's first lines (`calibration.model`), not as a note.
    let by_transport = variant::choose(inputs, opts.model);
    // The bandwidths the global fit reads, gathered once for the law's choice and the fit.
    let groups = (opts.method == Method::Fit).then(|| fitted_groups(inputs, &paper_model));
    let held_out = match (opts.model, &groups) {
        (None, Some(groups)) if !opts.transport_law => {
            let starts: Vec<Model> = model::Variant::ALL
                .into_iter()
                .map(|v| variant::start(&paper_model, v, local, remote))
                .collect();
            variant::held_out(&starts, groups)
        }
        _ => None,
    };
    let (chosen, why) = match &held_out {
        Some(held) => {
            let known = inputs.iter().any(|i| i.transport.is_some());
            variant::by_held_out(by_transport, held, known)
        }
        None => by_transport,
    };
    let start = variant::start(&paper_model, chosen, local, remote);
    let (model, fit_report, uncertainty) = match groups {
        None => (start, None, None),
        Some(groups) => {
            let other = variant::start(&paper_model, chosen.other(), local, remote);
            global_fit(groups, &start, &other, opts, &mut notes)
        }
    };
    let used: Vec<Placement> = [Some(local), remote]
        .into_iter()
        .flatten()
        .map(|s| s.placement)
        .collect();
    if opts.method == Method::Paper {
        notes.extend(unused_note(&sweeps, &used));
    }
    let local_fit = fit(&model, local, local_tol)?;
    let remote_fit = match (remote, remote_tol) {
        (Some(s), Some(tol)) => Some(fit(&model, s, tol)?),
        _ => None,
    };
    let calibration = Calibration {
        units: crate::units::UNITS,
        tool: Provenance::current(),
        date: opts.date.clone(),
        inputs: inputs.iter().map(record).collect(),
        measured_machine: measured.cloned(),
        tie_rule: tie_rule(opts.tolerance),
        local: local_fit,
        remote: remote_fit,
        notes: notes.clone(),
        method: Some(opts.method),
        fit: fit_report,
        model: Some(ModelChoice {
            variant: chosen,
            why,
            held_out: held_out.unwrap_or_default(),
        }),
        run_spread: spread::of_inputs(inputs),
    };
    Ok((
        CalibratedModel {
            model,
            calibration,
            uncertainty,
        },
        notes,
    ))
}

/// The two sample sweeps of section 4.1.2: `local` (both data on node 0) and, on a machine
/// of several sockets unless `--local-only`, `remote` (both on node `numa_per_socket`);
/// refused when one is missing or holds more cores than a socket.
fn sample_sweeps<'s>(
    sweeps: &'s [Sweep],
    inputs: &[Input],
    machine: &Machine,
    opts: &Options,
    notes: &mut Vec<String>,
) -> Result<(&'s Sweep, Option<&'s Sweep>)> {
    let find = |node: u32| {
        sweeps.iter().find(|s| {
            s.placement
                == Placement {
                    comp_numa: node,
                    comm_numa: node,
                }
        })
    };
    let local = find(0).ok_or_else(|| missing(0, "local", sweeps, inputs))?;
    let m = machine.numa_per_socket;
    let multi_socket = machine.numa_nodes > m;
    let remote = match (multi_socket, opts.local_only, find(m)) {
        (false, _, _) => None,
        (true, true, found) => {
            if found.is_some() {
                notes.push(format!(
                    "placement {m},{m} is present but --local-only leaves `remote` out"
                ));
            }
            None
        }
        (true, false, Some(s)) => Some(s),
        (true, false, None) => return Err(missing(m, "remote", sweeps, inputs).into()),
    };
    for s in [Some(local), remote].into_iter().flatten() {
        check_cores(s, machine.cores_per_socket, opts)?;
    }
    Ok((local, remote))
}

/// The paper's extraction rules (section 3.1) on each sample sweep: the model they give,
/// refused when it breaks the model's rules, and the tolerances each side was read with.
fn paper_rules(
    local: &Sweep,
    remote: Option<&Sweep>,
    machine: Machine,
    opts: &Options,
    notes: &mut Vec<String>,
) -> Result<(Model, Tolerances, Option<Tolerances>)> {
    let side = |s: &Sweep| {
        rules::extract(s, opts.tolerance).map_err(|problem| CalibrateError::Sweep {
            placement: s.placement,
            sources: s.sources.join(", "),
            problem,
        })
    };
    let (mut local_params, local_tol) = side(local)?;
    let mut remote_fit = remote.map(side).transpose()?;
    let cores = machine.cores_per_socket;
    for (name, p) in [
        ("local", Some(&mut local_params)),
        ("remote", remote_fit.as_mut().map(|(p, _)| p)),
    ] {
        if let Some(p) = p {
            for m in rules::feasible(p, cores) {
                notes.push(format!(
                    "{name}: the rules' {m}; the measurements are noisy here"
                ));
            }
        }
    }
    let (remote_params, remote_tol) = remote_fit.unzip();
    let paper_model = Model {
        schema_version: SCHEMA_VERSION,
        machine,
        variant: model::Variant::Paper,
        local: local_params,
        remote: remote_params,
    };
    let problems = paper_model.problems();
    if !problems.is_empty() {
        return Err(CalibrateError::BreaksRules { problems }.into());
    }
    Ok((paper_model, local_tol, remote_tol))
}

/// With the paper's method, the note that names the measured placements calibration did not
/// use, and where they serve.
fn unused_note(sweeps: &[Sweep], used: &[Placement]) -> Option<String> {
    let unused: Vec<String> = sweeps
        .iter()
        .filter(|s| !used.contains(&s.placement))
        .map(|s| s.placement.to_string())
        .collect();
    (!unused.is_empty()).then(|| {
        format!(
            "placements {} are not used to calibrate (the model is instantiated on {}, section \
             4.1.2); give them to `contention evaluate` to measure the model's error there",
            unused.join(" "),
            used.iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join(" and ")
        )
    })
}

/// Whether `model` can predict placement `p` (its nodes are covered).
fn predictable(model: &Model, p: Placement) -> bool {
    let nodes = model.predictable_nodes();
    p.comp_numa < nodes && p.comm_numa < nodes
}

/// The measured bandwidths of `inputs` the global fit of `model` reads: those of the
/// placements it predicts, on the socket's core counts.
fn fitted_groups(inputs: &[Input], model: &Model) -> Vec<fit::Group> {
    let cores = model.machine.cores_per_socket;
    let groups = fit::groups(inputs, |p| predictable(model, p));
    groups.into_iter().filter(|g| g.cores <= cores).collect()
}

/// The global fit of the measured bandwidths `groups` from the rules' `start`, its bootstrap
/// and its cross-validation; and beside it the other model's fit from `other` (its start),
/// for comparison.
fn global_fit(
    groups: Vec<fit::Group>,
    start: &Model,
    other: &Model,
    opts: &Options,
    notes: &mut Vec<String>,
) -> (Model, Option<FitReport>, Option<Uncertainty>) {
    let cores = start.machine.cores_per_socket;
    let medians: Vec<f64> = groups.iter().map(|g| g.median).collect();
    let fitted = fit::fit(
        start,
        &fit::keys(&groups),
        &medians,
        fit::Effort::full(cores),
    );
    let model = fitted.model.clone();
    let pred = fit::predictions(&model, &groups);
    let paper_pred = fit::predictions(start, &groups);
    let disagreement =
        stats::mape(paper_pred.iter().zip(&pred).map(|(&a, &b)| (a, b))).unwrap_or(0.0);
    let noise_percent = fitted.scale * 100.0;
    let mut placements: Vec<String> = groups.iter().map(|g| g.placement.to_string()).collect();
    placements.dedup();
    if fitted.kept_start {
        notes.push(
            "the global fit did not beat the paper's rules on these measurements; the rules' \
             parameters are kept"
                .into(),
        );
    } else if disagreement > (2.0 * noise_percent).max(0.05) {
        notes.push(format!(
            "the global fit and the paper's rules disagree by {disagreement:.2} % on the \
             measured points, more than twice the noise ({noise_percent:.2} %): the rules read \
             a few points of two placements, the fit every sample of {}; compare both with \
             `contention evaluate` (calibrate --method paper gives the rules' model)",
            placements.join(" ")
        ));
    }
    let uncertainty =
        (opts.bootstrap > 0).then(|| bootstrapped(&model, &groups, fitted.scale, opts));
    let unidentified = validate::unidentified(&model, &groups, uncertainty.as_ref());
    for u in &unidentified {
        notes.push(format!("the data cannot pin down {u}"));
    }
    let cross_validation = validate::leave_one_placement_out(start, &model, &groups);
    let other_model = other_model(other, &groups, &medians, fitted.scale);
    let report = FitReport {
        placements,
        groups: groups.len(),
        noise_percent,
        loss: fitted.loss,
        paper_loss: fitted.start_loss,
        kept_paper: fitted.kept_start,
        mape_percent: validate::mape(&groups, &pred),
        paper_mape_percent: validate::mape(&groups, &paper_pred),
        paper_local: start.local,
        paper_remote: start.remote,
        disagreement_percent: disagreement,
        unidentified,
        cross_validation,
        other_model: Some(other_model),
    };
    (model, Some(report), uncertainty)
}

/// The other model fitted the same way to the same medians, for comparison: its errors per
/// phase and its robust loss at the chosen fit's noise `scale`.
fn other_model(other: &Model, groups: &[fit::Group], medians: &[f64], scale: f64) -> OtherModel {
    let keys = fit::keys(groups);
    let effort = fit::Effort::full(other.machine.cores_per_socket);
    let other_fit = fit::fit(other, &keys, medians, effort);
    OtherModel {
        variant: other.variant,
        mape_percent: validate::mape(groups, &fit::predictions(&other_fit.model, groups)),
        loss: fit::loss(&other_fit.model, &keys, medians, scale),
    }
}

/// The fit's uncertainty: `opts.bootstrap` refits on resampled samples (seed `opts.seed`),
/// their percentile intervals joined with the breakpoints' profile ([`profile`]: the
/// positions the data do not reject, and what the other parameters become there), and every
/// replicate, as the model file keeps them. `scale` is the full fit's noise scale.
fn bootstrapped(model: &Model, groups: &[fit::Group], scale: f64, opts: &Options) -> Uncertainty {
    let boot = bootstrap::replicates(model, groups, opts.bootstrap, opts.seed);
    let reps = &boot.models;
    let keys = fit::keys(groups);
    let medians: Vec<f64> = groups.iter().map(|g| g.median).collect();
    let side = |side: fit::Side, sets: &[Params], best: &Params| {
        let boot = bootstrap::intervals(sets, model.machine.cores_per_socket)
            .unwrap_or_else(|| ParamIntervals::point(best));
        match profile::profile(model, side, &keys, &medians, scale) {
            Some(p) => profile::widen(boot, best, &p),
            None => boot,
        }
    };
    let locals: Vec<Params> = reps.iter().map(|m| m.local).collect();
    let remotes: Vec<Params> = reps.iter().filter_map(|m| m.remote).collect();
    Uncertainty {
        method: "bootstrap over samples (a trace's in batches of consecutive rounds, \
                 widened for the batches' correlation and their small number), breakpoints \
                 searched as in the full fit, percentile intervals joined with the breakpoints' \
                 profile intervals"
            .into(),
        resamples: opts.bootstrap,
        kept_full_fit: Some(boot.kept_full_fit),
        seed: opts.seed,
        level: bootstrap::LEVEL,
        local: side(fit::Side::Local, &locals, &model.local),
        remote: model.remote.map(|r| side(fit::Side::Remote, &remotes, &r)),
        replicates: reps
            .iter()
            .map(|m| Replicate {
                local: m.local,
                remote: m.remote,
            })
            .collect(),
    }
}

fn record(input: &Input) -> InputRecord {
    let mut placements: Vec<String> = Vec::new();
    for o in &input.observations {
        let p = o.placement.to_string();
        if !placements.contains(&p) {
            placements.push(p);
        }
    }
    InputRecord {
        path: input.source.clone(),
        kind: input.kind,
        host: input.machine.as_ref().map(|m| m.hostname.clone()),
        placements,
        stack: input.stack.clone(),
        simulated: input.simulated.clone(),
    }
}

/// The error for a calibration placement absent from every input.
fn missing(node: u32, side: &'static str, sweeps: &[Sweep], inputs: &[Input]) -> CalibrateError {
    CalibrateError::MissingPlacement {
        node,
        side,
        files: inputs.iter().map(|i| i.source.clone()).collect(),
        have: sweeps.iter().map(|s| s.placement.to_string()).collect(),
    }
}

/// Why no model can be calibrated from the inputs: the placement, file or option at fault and
/// what to measure or pass instead. All are bad input (exit 2).
#[derive(Debug, Clone)]
pub(crate) enum CalibrateError {
    /// A sweep the rules of section 3.1 cannot read parameters from.
    Sweep {
        placement: Placement,
        sources: String,
        problem: rules::SweepProblem,
    },
    /// The parameters read from the sweeps break the model's own rules.
    BreaksRules { problems: Vec<model::Problem> },
    /// No input has the placement `node,node` that the `side` parameters come from.
    MissingPlacement {
        node: u32,
        side: &'static str,
        files: Vec<String>,
        have: Vec<String>,
    },
    /// A sweep with more computing cores than the socket has (`flag`: the count came from
    /// `--cores-per-socket`).
    TooManyCores {
        placement: Placement,
        sources: String,
        cores: u32,
        cores_per_socket: u32,
        flag: bool,
    },
    /// A command-line value that contradicts what the traces measured.
    Contradicts {
        flag: &'static str,
        given: u32,
        measured: u32,
        host: String,
    },
    /// CSV inputs without `--numa-per-socket`.
    NoTopology { files: Vec<String> },
    /// `--bootstrap N` with `--method paper`: the bootstrap refits the global fit, and the
    /// rules have no intervals to give.
    PaperBootstrap { resamples: u32 },
    /// `--numa-nodes` below a node the inputs use.
    NumaNodes {
        given: u32,
        files: Vec<String>,
        highest: u32,
    },
}

// `?` turns it into the crate's error: input the user can fix (exit 2).
crate::wrap!(Input: CalibrateError);
impl std::fmt::Display for CalibrateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CalibrateError::Sweep {
                placement,
                sources,
                problem,
            } => write!(f, "placement {placement} ({sources}): {problem}"),
            CalibrateError::BreaksRules { problems } => {
                let list: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
                write!(
                    f,
                    "the calibrated parameters break the model's rules:\n  {}\nThe measurements \
                     do not look like the paper's curves; check the inputs with `contention \
                     evaluate` or plot them",
                    list.join("\n  ")
                )
            }
            CalibrateError::MissingPlacement {
                node,
                side,
                files,
                have,
            } => missing_placement(f, *node, side, files, have),
            CalibrateError::TooManyCores {
                placement,
                sources,
                cores,
                cores_per_socket,
                flag,
            } => write!(
                f,
                "placement {placement} ({sources}) has a point with {cores} computing cores, but \
                 the machine has {cores_per_socket} cores per socket{}: the model covers the \
                 computing cores of the first socket",
                if *flag { " (--cores-per-socket)" } else { "" }
            ),
            CalibrateError::Contradicts {
                flag,
                given,
                measured,
                host,
            } => write!(
                f,
                "--{flag} {given} contradicts the traces, measured on {host} with {measured}; \
                 leave --{flag} out for traces (it is for CSV input)"
            ),
            CalibrateError::PaperBootstrap { resamples } => write!(
                f,
                "--bootstrap {resamples} with --method paper: the bootstrap's intervals come from \
                 refitting the global fit on resampled measurements, and the paper's rules are \
                 not refitted; use --method fit (the default) for intervals, or leave \
                 --bootstrap out for the rules' model"
            ),
            CalibrateError::NoTopology { files } => write!(
                f,
                "{} carry no topology (CSV): pass --numa-per-socket N, the NUMA nodes of one \
                 socket (`lstopo` or `numactl --hardware` show them; 1 unless sub-NUMA \
                 clustering is on)",
                files.join(", ")
            ),
            CalibrateError::NumaNodes {
                given,
                files,
                highest,
            } => write!(
                f,
                "--numa-nodes {given}, but {} use NUMA node {highest}; nodes are numbered from 0",
                files.join(", ")
            ),
        }
    }
}

/// [`CalibrateError::MissingPlacement`]'s message: the placement to measure, and for the
/// remote side the way to do without it.
fn missing_placement(
    f: &mut std::fmt::Formatter<'_>,
    node: u32,
    side: &str,
    files: &[String],
    have: &[String],
) -> std::fmt::Result {
    let hint = if side == "remote" {
        " (the first node of the second socket); or pass --local-only for a model of the first \
         socket only"
    } else {
        ""
    };
    write!(
        f,
        "no input has placement {node},{node}, which the `{side}` parameters are calibrated on \
         (section 4.1.2); {} hold placements {}. Measure with both the computation and the \
         communication data on NUMA node {node} (`contention measure --numa {node},{node}`){hint}",
        files.join(", "),
        have.join(" ")
    )
}

impl std::error::Error for CalibrateError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CalibrateError::Sweep { problem, .. } => Some(problem),
            _ => None,
        }
    }
}

/// Refuses a sweep with more computing cores than the socket has.
fn check_cores(s: &Sweep, cores_per_socket: u32, opts: &Options) -> Result<(), CalibrateError> {
    match s.points.last() {
        Some(p) if p.cores > cores_per_socket => Err(CalibrateError::TooManyCores {
            placement: s.placement,
            sources: s.sources.join(", "),
            cores: p.cores,
            cores_per_socket,
            flag: opts.cores_per_socket.is_some(),
        }),
        _ => Ok(()),
    }
}

/// A command-line value that must agree with what the traces say.
fn agree(
    flag: &'static str,
    given: Option<u32>,
    measured: u32,
    m: &MachineInfo,
) -> Result<u32, CalibrateError> {
    match given {
        Some(given) if given != measured => Err(CalibrateError::Contradicts {
            flag,
            given,
            measured,
            host: m.hostname.clone(),
        }),
        _ => Ok(measured),
    }
}

/// The machine of the model: from the traces, else from the command line and the CSV.
fn resolve_machine(
    measured: Option<&MachineInfo>,
    inputs: &[Input],
    sweeps: &[Sweep],
    opts: &Options,
    notes: &mut Vec<String>,
) -> Result<Machine> {
    match measured {
        Some(m) => traced_machine(m, opts),
        None => described_machine(inputs, sweeps, opts, notes),
    }
}

/// The machine the traces recorded; the command line may name it, and may repeat its shape
/// only where it agrees.
fn traced_machine(m: &MachineInfo, opts: &Options) -> Result<Machine> {
    let numa_nodes = if m.numa_nodes.is_empty() {
        m.sockets * m.numa_per_socket
    } else {
        m.numa_nodes.len() as u32
    };
    Ok(Machine {
        name: opts.name.clone().unwrap_or_else(|| m.hostname.clone()),
        numa_nodes: agree("numa-nodes", opts.numa_nodes, numa_nodes, m)?,
        numa_per_socket: agree(
            "numa-per-socket",
            opts.numa_per_socket,
            m.numa_per_socket,
            m,
        )?,
        cores_per_socket: agree(
            "cores-per-socket",
            opts.cores_per_socket,
            m.cores_per_socket,
            m,
        )?,
    })
}

/// The machine of tidy CSV inputs, which carry no topology: `--numa-per-socket` is required,
/// the NUMA nodes and cores per socket are read off the placements and core counts measured
/// unless given (with a note saying so), the name is the first file's stem unless given.
fn described_machine(
    inputs: &[Input],
    sweeps: &[Sweep],
    opts: &Options,
    notes: &mut Vec<String>,
) -> Result<Machine> {
    let files: Vec<&str> = inputs.iter().map(|i| i.source.as_str()).collect();
    let input_files = || files.iter().map(|f| f.to_string()).collect();
    let numa_per_socket = opts
        .numa_per_socket
        .ok_or_else(|| CalibrateError::NoTopology {
            files: input_files(),
        })?;
    let highest = sweeps
        .iter()
        .map(|s| s.placement.comp_numa.max(s.placement.comm_numa))
        .max()
        .unwrap_or(0);
    let numa_nodes = match opts.numa_nodes {
        Some(n) if n <= highest => {
            return Err(CalibrateError::NumaNodes {
                given: n,
                files: input_files(),
                highest,
            }
            .into())
        }
        Some(n) => n,
        None => {
            let n = (highest + 1).div_ceil(numa_per_socket) * numa_per_socket;
            notes.push(format!(
                "{n} NUMA node(s) ({} socket(s)) inferred from the placements in the input; \
                 pass --numa-nodes to say otherwise",
                n / numa_per_socket
            ));
            n
        }
    };
    let cores_per_socket = match opts.cores_per_socket {
        Some(c) => c,
        None => {
            let c = sweeps
                .iter()
                .filter_map(|s| s.points.last().map(|p| p.cores))
                .max()
                .unwrap_or(1);
            notes.push(format!(
                "{c} cores per socket assumed (the largest core count measured); pass \
                 --cores-per-socket if the socket has more"
            ));
            c
        }
    };
    let name = opts.name.clone().unwrap_or_else(|| {
        std::path::Path::new(files.first().copied().unwrap_or("model"))
            .file_stem()
            .map_or_else(|| "model".into(), |s| s.to_string_lossy().into_owned())
    });
    Ok(Machine {
        name,
        numa_nodes,
        numa_per_socket,
        cores_per_socket,
    })
}

/// How well the calibrated model reproduces the sweep it came from.
fn fit(model: &Model, sweep: &Sweep, tolerance: Tolerances) -> Result<SideFit> {
    let cores = sweep.cores();
    let predicted = model::predict(model, &[sweep.placement], &cores)?;
    let points = predicted.first().map_or(&[][..], |p| p.points.as_slice());
    let mut residuals = Vec::with_capacity(points.len());
    let mut pairs: [Vec<(f64, f64)>; 4] = Default::default();
    for (m, p) in sweep.points.iter().zip(points) {
        let pred = [p.comp_alone, p.comm_alone, p.comp_parallel, p.comm_parallel];
        let mut r = [0.0; 4];
        for q in 0..QUANTITIES.len() {
            r[q] = m.bw[q] - pred[q];
            pairs[q].push((m.bw[q], pred[q]));
        }
        residuals.push(Residual {
            cores: m.cores,
            measured_minus_predicted: r.into(),
        });
    }
    let mape = pairs.map(|p| stats::mape(p).unwrap_or(f64::NAN));
    Ok(SideFit {
        comp_numa: sweep.placement.comp_numa,
        comm_numa: sweep.placement.comm_numa,
        sources: sweep.sources.clone(),
        cores,
        tolerance,
        mape_percent: mape.into(),
        residuals,
    })
}

#[cfg(test)]
mod tests;
