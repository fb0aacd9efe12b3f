//! Regression check of a machine or of the tool: does a model fitted to new measurements still
//! match an expected one, and does the expected model still predict the new measurements?
//!
//! Two models are compared by what they predict, not parameter by parameter: noise can move
//! `n_par_max` by one core and `delta_l` with it while the bandwidths the model gives stay the
//! same, and the bandwidths are what users rely on. The parameters that changed are still
//! listed, so the report says why the predictions moved.
//!
//! The drift rule is written once, here (`refit_options`, `judge`): `contention check` applies
//! it to one machine, `contention check --fleet` (`fleet`) to every node of a fleet, with its
//! limits from the fleet's own noise between runs where the surveys measured nodes twice
//! (`pooled`: the spread pooled over those nodes, the fleet's common shift taken out).

pub mod fleet;
pub(crate) mod pooled;

use crate::calibrate::spread::{RunSpread, Spread};
use crate::calibrate::{CalibratedModel, Options, SideFit};
use crate::model::{self, Model};
use serde::Serialize;

/// One parameter that differs between the expected and the new model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParamChange {
    /// `local.t_par_max`.
    pub field: String,
    pub expected: f64,
    pub new: f64,
    /// Relative change, percent (of the expected value; absolute when it is 0).
    pub change_percent: f64,
}

/// The largest prediction drift of one placement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlacementDrift {
    pub comp_numa: u32,
    pub comm_numa: u32,
    /// Where the drift is largest: the core count and the bandwidth (`comm_parallel`, ...).
    pub cores: u32,
    pub bandwidth: &'static str,
    pub expected: f64,
    pub new: f64,
    /// `100 * |new - expected| / expected`.
    pub drift_percent: f64,
    /// The drift limit of that bandwidth, percent: the placement's worst point is the one
    /// farthest beyond (or least within) its own bandwidth's limit.
    pub limit_percent: f64,
    /// The fleet's common drift at that point, percent, which `drift_percent` is measured
    /// beyond (`check --fleet` with a pooled spread, [`pooled`]); absent otherwise: the drift
    /// is from `expected` itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) fleet_shift_percent: Option<f64>,
}

impl PlacementDrift {
    /// Whether this placement moved beyond its limit.
    pub fn drifted(&self) -> bool {
        self.drift_percent > self.limit_percent
    }

    /// How far toward (below 1) or past (above 1) its limit this drift went: what picks a
    /// placement's worst point and the placement the verdict turns on.
    fn share_of_limit(&self) -> f64 {
        self.drift_percent / self.limit_percent
    }
}

/// The comparison of two models over every placement both can predict and every core count of
/// the expected model's socket.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Drift {
    pub changed_params: Vec<ParamChange>,
    pub placements: Vec<PlacementDrift>,
    /// The largest drift over all placements, percent.
    pub max_drift_percent: f64,
}

impl Drift {
    /// The limit of the placement that went furthest toward or past its own limit (the one
    /// the verdict turns on), `otherwise` when no placement was compared: what `check` and
    /// each node of `check --fleet` report as the limit.
    pub(crate) fn deciding_limit(&self, otherwise: f64) -> f64 {
        self.placements
            .iter()
            .max_by(|a, b| a.share_of_limit().total_cmp(&b.share_of_limit()))
            .map_or(otherwise, |p| p.limit_percent)
    }
}

fn relative(expected: f64, new: f64) -> f64 {
    if expected == 0.0 {
        100.0 * (new - expected).abs()
    } else {
        100.0 * (new - expected).abs() / expected.abs()
    }
}

/// Every parameter whose relative change exceeds `noise_percent`.
fn changed_params(expected: &Model, new: &Model, noise_percent: f64) -> Vec<ParamChange> {
    let sides = [
        ("local", Some(&expected.local), Some(&new.local)),
        ("remote", expected.remote.as_ref(), new.remote.as_ref()),
    ];
    let mut out = Vec::new();
    for (side, e, n) in sides {
        let (Some(e), Some(n)) = (e, n) else { continue };
        // The law's own parameters (the cpu-copy variant's kappa), when both sides share it.
        let same_law = e.law.variant() == n.law.variant();
        let law = e
            .law
            .params()
            .zip(n.law.values())
            .filter(|_| same_law)
            .map(|((lp, ev), nv)| (lp.name, ev, nv));
        let named = e
            .named()
            .into_iter()
            .zip(n.named())
            .map(|((name, ev), (_, nv))| (name, ev, nv))
            .chain(law);
        for (name, ev, nv) in named {
            let change = relative(ev, nv);
            if change > noise_percent {
                out.push(ParamChange {
                    field: format!("{side}.{name}"),
                    expected: ev,
                    new: nv,
                    change_percent: change,
                });
            }
        }
    }
    out
}

/// The smallest default drift limit, percent: below it two runs of a quiet machine differ by
/// the plateau rule's own steps (a maximum read one core count apart).
pub(crate) const MIN_DRIFT_LIMIT_PERCENT: f64 = 2.0;

/// The drift limit the measurements' own noise allows, percent: twice the largest tie
/// tolerance the refit used on any curve of any side. A tie tolerance is
/// `max(1 %, 2 x the median relative standard error of the curve's points)` (the tie rule of
/// `calibrate`), so the limit is four standard errors of a measured point, enough that two runs
/// of an unchanged machine agree, and a point's noise is what decides, not a fixed percentage.
fn noise_limit_percent(fits: &[&SideFit]) -> f64 {
    fits.iter()
        .flat_map(|f| {
            let t = &f.tolerance;
            [t.comp_alone, t.total_parallel, t.comm_parallel]
        })
        .filter(|t| t.is_finite())
        .map(|t| 200.0 * t)
        .fold(MIN_DRIFT_LIMIT_PERCENT, f64::max)
}

/// Compares `new` with `expected` over the placements both can predict and the core counts
/// of the expected machine's socket (capped at the new one's), each bandwidth against its own
/// limit (`limits`, percent, in [`crate::dataset::QUANTITIES`] order). Parameters that moved
/// by more than the smallest limit are listed.
pub fn compare(expected: &Model, new: &Model, limits: [f64; 4]) -> Drift {
    compare_by(expected, new, &|_, q| (limits[q], 0.0), limits)
}

/// [`compare`] with each prediction's limit and reference shift from `rule`: given the
/// prediction's place `(comp_numa, comm_numa, cores)` and bandwidth index, the limit
/// (percent) and the log shift of the expected prediction it is measured from (0: the
/// expected prediction itself; `check --fleet` takes the fleet's common drift out,
/// [`pooled`]). `listed` are the limits that list a changed parameter.
pub(crate) fn compare_by(
    expected: &Model,
    new: &Model,
    rule: &dyn Fn(pooled::Key, usize) -> (f64, f64),
    listed: [f64; 4],
) -> Drift {
    let noise_percent = Limits::from(listed).smallest();
    let cores: Vec<u32> = (1..=expected
        .machine
        .cores_per_socket
        .min(new.machine.cores_per_socket))
        .collect();
    let placements: Vec<_> = model::all_placements(expected)
        .into_iter()
        .filter(|p| p.comp_numa.max(p.comm_numa) < new.predictable_nodes())
        .collect();
    // Both models passed validation and the placements and cores fit both machines.
    let (Ok(e), Ok(n)) = (
        model::predict(expected, &placements, &cores),
        model::predict(new, &placements, &cores),
    ) else {
        return Drift {
            changed_params: changed_params(expected, new, noise_percent),
            placements: Vec::new(),
            max_drift_percent: f64::INFINITY,
        };
    };
    let placements: Vec<PlacementDrift> = e
        .iter()
        .zip(&n)
        .filter_map(|(pe, pn)| {
            pe.points
                .iter()
                .zip(&pn.points)
                .flat_map(|(a, b)| {
                    [
                        ("comp_alone", a.comp_alone, b.comp_alone),
                        ("comm_alone", a.comm_alone, b.comm_alone),
                        ("comp_parallel", a.comp_parallel, b.comp_parallel),
                        ("comm_parallel", a.comm_parallel, b.comm_parallel),
                    ]
                    .into_iter()
                    .enumerate()
                    .map(|(q, (bw, x, y))| {
                        let (limit, shift) = rule((pe.comp_numa, pe.comm_numa, a.cores), q);
                        (a.cores, bw, x, y, limit, shift)
                    })
                })
                .map(
                    |(cores, bandwidth, expected, new, limit, shift)| PlacementDrift {
                        comp_numa: pe.comp_numa,
                        comm_numa: pe.comm_numa,
                        cores,
                        bandwidth,
                        expected,
                        new,
                        drift_percent: relative(expected * shift.exp(), new),
                        limit_percent: limit,
                        fleet_shift_percent: (shift != 0.0).then(|| 100.0 * shift.exp_m1()),
                    },
                )
                .max_by(|a, b| a.share_of_limit().total_cmp(&b.share_of_limit()))
        })
        .collect();
    let max_drift_percent = placements
        .iter()
        .map(|p| p.drift_percent)
        .fold(0.0, f64::max);
    Drift {
        changed_params: changed_params(expected, new, noise_percent),
        placements,
        max_drift_percent,
    }
}

/// The options new measurements are refitted with to be compared with `expected`: `opts` (the
/// topology the user gave), with the expected model's machine name, its variant (the paper's
/// or cpu-copy: like is compared with like), and its local side only when it has no remote
/// one, so that both models describe the same sides of the same machine.
pub fn refit_options(expected: &Model, opts: &Options) -> Options {
    Options {
        name: Some(expected.machine.name.clone()),
        local_only: expected.remote.is_none(),
        model: Some(expected.variant),
        ..opts.clone()
    }
}

/// A note when the MPI stack the measurements crossed (`mpi.stack` of their traces) is not
/// the one the expected model was calibrated over (`expected`, from its
/// `calibration.inputs[].stack`): a site's MPI update, or a node whose library fell back to
/// TCP, moves communications by itself. Silent when either side does not say.
pub fn stack_note(expected: &[String], data: &[crate::dataset::Input]) -> Option<String> {
    let mut now: Vec<&str> = data.iter().filter_map(|i| i.stack.as_deref()).collect();
    now.sort_unstable();
    now.dedup();
    if expected.is_empty() || now.is_empty() || now.iter().eq(expected.iter()) {
        return None;
    }
    let list = |v: &[&str]| {
        v.iter()
            .map(|s| format!("`{}`", crate::error::escape(s)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let was: Vec<&str> = expected.iter().map(String::as_str).collect();
    Some(format!(
        "the MPI stack changed: the expected model was calibrated over {}, these measurements \
         crossed {}; that alone moves communications (a site's MPI update, or a library that \
         fell back to TCP: see mpi.stack in the traces, and OMPI_MCA_pml, UCX_TLS or \
         FI_PROVIDER to choose one)",
        list(&was),
        list(&now)
    ))
}

/// A note when the measurements' transport would choose another model than the expected
/// one's (the law `calibrate` keeps unless another predicts held-out core counts clearly
/// better, `crate::calibrate::variant`; `check` fits no other law to learn that): they are
/// refitted as the expected model is, and a transport that changed is a cause of drift in
/// itself.
pub fn variant_note(expected: &Model, data: &[crate::dataset::Input]) -> Option<String> {
    let (would, why) = crate::calibrate::variant::choose(data, None);
    (would != expected.variant).then(|| {
        format!(
            "the expected model is the {} model, and these measurements' transport points to \
             the {} model ({why}); they are refitted as the {} model for the comparison: \
             if the transport changed since the expected model was made, that alone moves \
             communications in parallel",
            expected.variant.name(),
            would.name(),
            expected.variant.name()
        )
    })
}

/// The guards `check` and `check --fleet` hold `expected` (named `source`, calibrated from
/// measurements of the simulated machine `origin`, `None` for real ones) to before comparing
/// it with `data`: measurements of the same origin ([`crate::dataset::same_origin_as_model`]:
/// a simulated machine is never compared with a real one) and of its machine
/// (`crate::evaluate::check_machine`: the placements must mean the same NUMA nodes). Either
/// refusal is bad input (exit 2); compared anyway, a paper model against a one-node machine
/// read as a 147 % drift, as if the machine had changed.
pub fn guard(
    expected: &Model,
    source: &str,
    origin: Option<&str>,
    data: &[crate::dataset::Input],
) -> crate::error::Result<()> {
    crate::dataset::same_origin_as_model(
        source,
        origin,
        data.iter()
            .map(|i| (i.source.as_str(), crate::dataset::simulated(i))),
    )?;
    crate::evaluate::check_machine(expected, source, data)
}

/// Each bandwidth's drift limit, percent, as the reports show them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Limits {
    pub(crate) comp_alone: f64,
    pub(crate) comm_alone: f64,
    pub(crate) comp_parallel: f64,
    pub(crate) comm_parallel: f64,
}

impl From<[f64; 4]> for Limits {
    fn from(l: [f64; 4]) -> Self {
        Limits {
            comp_alone: l[0],
            comm_alone: l[1],
            comp_parallel: l[2],
            comm_parallel: l[3],
        }
    }
}

impl Limits {
    /// The smallest of the four: the limit a parameter's move is listed beyond ([`compare`]).
    pub fn smallest(&self) -> f64 {
        [
            self.comp_alone,
            self.comm_alone,
            self.comp_parallel,
            self.comm_parallel,
        ]
        .into_iter()
        .fold(f64::INFINITY, f64::min)
    }
}

impl std::fmt::Display for Limits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "computations {:.1} % alone, {:.1} % in parallel; communications {:.1} % alone, \
             {:.1} % in parallel",
            self.comp_alone, self.comp_parallel, self.comm_alone, self.comm_parallel
        )
    }
}

/// The outcome of the drift rule: the limits applied, where they came from, and the
/// comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    /// The drift limit of the placement that came nearest to (or went farthest past) its
    /// own, percent: the one the verdict turns on.
    pub limit_percent: f64,
    /// Each bandwidth's limit, percent, in [`crate::dataset::QUANTITIES`] order.
    pub limits_percent: [f64; 4],
    /// What set the limits: `--tolerance`, or the noise (within the runs, and between runs
    /// as measured or as assumed).
    pub limit_source: &'static str,
    pub drift: Drift,
}

impl Judgement {
    /// Whether a placement's predictions moved beyond their bandwidth's limit: the check
    /// fails.
    pub fn drifted(&self) -> bool {
        self.drift.placements.iter().any(PlacementDrift::drifted)
            || !self.drift.max_drift_percent.is_finite()
    }
}

/// How many standard deviations of two models' difference a drift may reach before it
/// fails: 3, since a drift is the largest over every core count and bandwidth of a
/// placement (a few dozen predictions, strongly correlated along a curve).
pub(crate) const DRIFT_SIGMAS: f64 = 3.0;

/// How many measured points a prediction of a fitted curve rests on, for the share of the
/// noise between runs that averages out of it (the point's own; the run's level does not):
/// a curve's segment is fitted to the points around it, a handful on a sweep of every core
/// count. 4 counts few of them, so the limit errs wide.
pub(crate) const POINTS_PER_PREDICTION: f64 = 4.0;

/// The drift limit of each bandwidth from the noise between runs, percent: `DRIFT_SIGMAS`
/// standard deviations of the difference of two models, each fitted to `runs` runs, each run
/// moving a prediction by `sqrt(run^2 + point^2 / POINTS_PER_PREDICTION)`, plus the levels of
/// the two days (each model's campaign draws its own: [`crate::simulate::RunNoise::day`]). `new` and
/// `expected` are the spreads the two calibrations measured; the one missing takes the
/// other's, and with neither the noise model learned from a real 16-core node's runs
/// ([`crate::simulate::RunNoise::REAL_16_CORE`]).
pub(crate) fn run_limits_percent(
    new: Option<&RunSpread>,
    expected: Option<&RunSpread>,
) -> ([f64; 4], &'static str) {
    let learned = learned_spread();
    let (source, measured) = match (new, expected) {
        (Some(n), _) => ("the new runs' spread", n),
        (None, Some(e)) => ("the saved model's runs' spread", e),
        (None, None) => ("a real node's spread between runs, assumed", &learned),
    };
    let runs = |s: Option<&RunSpread>| f64::from(s.map_or(1, |s| s.runs.max(1)));
    let (r_new, r_exp) = (runs(new), runs(expected));
    let day = crate::simulate::RunNoise::REAL_16_CORE.day;
    let limits = std::array::from_fn(|q| {
        let s = measured.streams()[q];
        let per_run = s.run.powi(2) + s.point.powi(2) / POINTS_PER_PREDICTION;
        let days = 2.0 * day[q % 2].powi(2);
        100.0 * DRIFT_SIGMAS * (per_run * (1.0 / r_new + 1.0 / r_exp) + days).sqrt()
    });
    (limits, source)
}

/// The noise between runs of the model learned from the real node, as a spread: the run's
/// level, and the rest of a point's at the last core (communications in parallel their
/// widest).
fn learned_spread() -> RunSpread {
    let n = crate::simulate::RunNoise::REAL_16_CORE;
    let spread = |q: usize| {
        let s = q % 2;
        let loaded = if q == 3 { n.loaded } else { 0.0 };
        Spread {
            run: n.run[s],
            point: (n.point[s].powi(2) + n.phase[s].powi(2) + loaded.powi(2)).sqrt(),
        }
    };
    RunSpread {
        runs: 1,
        comp_alone: spread(0),
        comm_alone: spread(1),
        comp_parallel: spread(2),
        comm_parallel: spread(3),
    }
}

/// The drift rule of `check` and `check --fleet`: `fitted` (new measurements refitted with
/// [`refit_options`]) compared with `expected` ([`compare`]) under each bandwidth's drift
/// limit: `tolerance` percent when the user gave one, else the larger of what the noise
/// within the runs allows (twice the largest tie tolerance of the refit) and what the noise
/// between runs and days allows (`run_limits_percent`, from `expected_spread`, the saved
/// model's, and the refit's own). Parameters that moved by more than the smallest limit are
/// listed.
pub fn judge(
    expected: &Model,
    expected_spread: Option<&RunSpread>,
    fitted: &CalibratedModel,
    tolerance: Option<f64>,
) -> Judgement {
    let (limits, limit_source) = match tolerance {
        Some(t) => ([t; 4], "--tolerance"),
        None => {
            let c = &fitted.calibration;
            let fits: Vec<&SideFit> = std::iter::once(&c.local).chain(c.remote.as_ref()).collect();
            let within = noise_limit_percent(&fits);
            let (between, source) = run_limits_percent(c.run_spread.as_ref(), expected_spread);
            (between.map(|b| b.max(within)), source)
        }
    };
    let drift = compare(expected, &fitted.model, limits);
    let limit_percent = drift.deciding_limit(limits.iter().copied().fold(0.0, f64::max));
    Judgement {
        limit_percent,
        limits_percent: limits,
        limit_source,
        drift,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::model_file;

    #[test]
    fn a_changed_mpi_stack_is_named_as_a_cause() {
        let row = crate::trace::TidyRow {
            comp_numa: 0,
            comm_numa: 0,
            cores: 1,
            comp_alone: 1.0,
            comm_alone: 1.0,
            comp_parallel: 1.0,
            comm_parallel: 1.0,
        };
        let input = |stack: Option<&str>| crate::dataset::Input {
            stack: stack.map(str::to_string),
            ..crate::dataset::Input::from_rows(&[row], "t.json")
        };
        let ucx = vec!["Open MPI pml ucx".to_string()];
        let note = stack_note(&ucx, &[input(Some("Open MPI pml ob1 (btl self,tcp)"))]).unwrap();
        assert!(
            note.contains("calibrated over `Open MPI pml ucx`")
                && note.contains("crossed `Open MPI pml ob1 (btl self,tcp)`"),
            "{note}"
        );
        // The same stack, or a side that does not say: nothing to name.
        assert_eq!(stack_note(&ucx, &[input(Some("Open MPI pml ucx"))]), None);
        assert_eq!(stack_note(&ucx, &[input(None)]), None);
        assert_eq!(stack_note(&[], &[input(Some("Open MPI pml ucx"))]), None);
    }

    #[test]
    fn a_model_does_not_drift_from_itself() {
        let m = model_file::load("paper:henri").unwrap();
        let d = compare(&m, &m, [0.0; 4]);
        assert!(d.changed_params.is_empty());
        assert_eq!(d.max_drift_percent, 0.0);
        assert_eq!(d.placements.len(), 4);
    }

    #[test]
    fn a_changed_parameter_is_named_and_its_drift_measured() {
        let m = model_file::load("paper:henri").unwrap();
        let mut n = m.clone();
        n.local.b_seq_comm *= 0.9;
        let d = compare(&m, &n, [1.0; 4]);
        assert_eq!(d.changed_params.len(), 1);
        assert_eq!(d.changed_params[0].field, "local.b_seq_comm");
        assert!((d.changed_params[0].change_percent - 10.0).abs() < 1e-9);
        // comm_alone of local placements is b_seq_comm: 10 % off.
        assert!((d.max_drift_percent - 10.0).abs() < 1e-6, "{d:?}");
        let worst = d
            .placements
            .iter()
            .find(|p| (p.comp_numa, p.comm_numa) == (0, 0))
            .unwrap();
        assert!(worst.bandwidth.starts_with("comm"));
    }

    #[test]
    fn noise_below_the_threshold_is_not_listed() {
        let m = model_file::load("paper:dahu").unwrap();
        let mut n = m.clone();
        n.local.t_par_max *= 1.001;
        assert!(compare(&m, &n, [0.5; 4]).changed_params.is_empty());
        assert_eq!(compare(&m, &n, [0.01; 4]).changed_params.len(), 1);
    }

    /// The recorded trace of the CI machine, refitted as `check` refits it against `expected`.
    fn refit(expected: &Model) -> CalibratedModel {
        let data = crate::io::inputs::read_all(&["../tests/data/traces/vm-local.json"]).unwrap();
        let opts = refit_options(expected, &Options::default());
        crate::calibrate::calibrate(&data, &opts).unwrap().0
    }

    #[test]
    fn the_refit_describes_the_expected_machine_and_sides() {
        let mut m = model_file::load("paper:henri").unwrap();
        let o = refit_options(&m, &Options::default());
        assert_eq!((o.name.as_deref(), o.local_only), (Some("henri"), false));
        m.remote = None;
        assert!(refit_options(&m, &Options::default()).local_only);
    }

    #[test]
    fn the_limit_is_the_noise_unless_a_tolerance_is_given_and_drift_beyond_it_fails() {
        let mut expected = model_file::load("../tests/data/expected/vm-local.model.json").unwrap();
        let fitted = refit(&expected);
        let same = judge(&fitted.model, None, &fitted, None);
        assert_eq!(
            same.limit_source,
            "a real node's spread between runs, assumed"
        );
        assert!(same.limit_percent >= MIN_DRIFT_LIMIT_PERCENT, "{same:?}");
        assert!(!same.drifted(), "{same:?}");
        // 10 % less bandwidth for communications moves comm_alone by 10 %.
        expected.local.b_seq_comm *= 0.9;
        let moved = judge(&expected, None, &fitted, Some(5.0));
        assert_eq!(
            (moved.limit_percent, moved.limit_source),
            (5.0, "--tolerance")
        );
        assert!(moved.drifted(), "{moved:?}");
        assert!(moved
            .drift
            .changed_params
            .iter()
            .any(|c| c.field == "local.b_seq_comm"));
        assert!(!judge(&expected, None, &fitted, Some(20.0)).drifted());
    }

    #[test]
    fn the_limits_follow_the_noise_between_runs_and_more_runs_narrow_them() {
        let spread = |run: f64, point: f64, runs: u32| {
            let s = Spread { run, point };
            RunSpread {
                runs,
                comp_alone: s,
                comm_alone: s,
                comp_parallel: s,
                comm_parallel: s,
            }
        };
        let (three, src) = run_limits_percent(Some(&spread(0.02, 0.04, 3)), None);
        assert_eq!(src, "the new runs' spread");
        // 3 x sqrt((0.02^2 + 0.04^2 / 4) (1/3 + 1)... the saved model's runs unknown: one.
        let day = crate::simulate::RunNoise::REAL_16_CORE.day;
        let want = 300.0
            * ((0.02f64.powi(2) + 0.04f64.powi(2) / 4.0) * (1.0 / 3.0 + 1.0)
                + 2.0 * day[0].powi(2))
            .sqrt();
        assert!((three[0] - want).abs() < 1e-9, "{three:?} {want}");
        // Both models of three runs: narrower; noisier runs: wider; communications carry
        // a larger day's level than computations.
        let both = run_limits_percent(Some(&spread(0.02, 0.04, 3)), Some(&spread(0.02, 0.04, 3))).0;
        assert!(both[0] < three[0]);
        let noisy = run_limits_percent(Some(&spread(0.08, 0.04, 3)), None).0;
        assert!(noisy[0] > three[0]);
        assert!(three[1] > three[0]);
        // Nothing measured: the learned node's, communications in parallel the widest.
        let (assumed, src) = run_limits_percent(None, None);
        assert!(src.ends_with("assumed"));
        assert!(
            assumed[3] > assumed[1] && assumed[1] > assumed[0],
            "{assumed:?}"
        );
    }

    #[test]
    fn each_bandwidth_is_held_to_its_own_limit() {
        let m = model_file::load("paper:henri").unwrap();
        let mut n = m.clone();
        n.local.b_seq_comm *= 1.10;
        // Communications 10 % off: within a 12 % limit of theirs, beyond a 5 % one even
        // where computations' is wide.
        let pass = compare(&m, &n, [5.0, 12.0, 5.0, 12.0]);
        assert!(
            !pass.placements.iter().any(PlacementDrift::drifted),
            "{pass:?}"
        );
        let fail = compare(&m, &n, [50.0, 5.0, 50.0, 5.0]);
        assert!(
            fail.placements.iter().any(PlacementDrift::drifted),
            "{fail:?}"
        );
    }
}
