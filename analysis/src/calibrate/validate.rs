//! How far the fit can be trusted: leave-one-placement-out validation (fit without a
//! placement, predict it: the question the paper's Table 2 answers for the placements that
//! were not calibrated on), and the parameters the data cannot pin down.

use super::fit::{self, Effort, Group, Side};
use super::Bandwidths;
use crate::dataset::COMM_PARALLEL;
use crate::model::uncertainty::open_above;
use crate::model::{Interval, Model, ParamKind, Params, Placement, Uncertainty};
use crate::stats;
use serde::{Deserialize, Serialize};
use std::borrow::Borrow;

/// Leave-one-placement-out error of every placement that was not a sample placement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CrossValidation {
    pub placements: Vec<HeldOut>,
    /// Mean over the held-out placements of their MAPE in parallel (computations and
    /// communications), predicted without them and with them.
    pub held_out_parallel_mape_percent: f64,
    pub in_sample_parallel_mape_percent: f64,
}

/// One placement left out of the fit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeldOut {
    pub placement: String,
    /// Its MAPE per phase when the fit did not see it.
    pub held_out_mape_percent: Bandwidths,
    /// Its MAPE per phase when the fit saw it.
    pub in_sample_mape_percent: Bandwidths,
}

/// The sample placements of section 4.1.2 (`0,0` and `m,m`): the rules start from them, so
/// they are never left out.
fn is_sample(model: &Model, p: Placement) -> bool {
    p.shares_node() && (p.comp_numa == 0 || p.comp_numa == model.machine.numa_per_socket)
}

/// MAPE per phase of `predicted` against the groups' medians (NaN for a phase with none).
pub(super) fn mape<G: Borrow<Group>>(groups: &[G], predicted: &[f64]) -> Bandwidths {
    let mut pairs: [Vec<(f64, f64)>; 4] = Default::default();
    for (g, &p) in groups.iter().zip(predicted) {
        let g = g.borrow();
        pairs[g.quantity].push((g.median, p));
    }
    pairs.map(|p| stats::mape(p).unwrap_or(f64::NAN)).into()
}

/// The error in parallel: the mean of the computations' and the communications' MAPE.
pub(super) fn parallel(b: &Bandwidths) -> f64 {
    (b.comp_parallel + b.comm_parallel) / 2.0
}

/// Fits `start` without each non-sample placement in turn and predicts it; `None` with fewer
/// than three placements measured.
pub(crate) fn leave_one_placement_out(
    start: &Model,
    fitted: &Model,
    groups: &[Group],
) -> Option<CrossValidation> {
    let mut placements: Vec<Placement> = groups.iter().map(|g| g.placement).collect();
    placements.dedup();
    if placements.len() < 3 {
        return None;
    }
    let effort = Effort::full(start.machine.cores_per_socket);
    let mut out = Vec::new();
    for &left in placements.iter().filter(|&&p| !is_sample(start, p)) {
        let (kept, held): (Vec<&Group>, Vec<&Group>) =
            groups.iter().partition(|g| g.placement != left);
        let unseen = fit::predict_unseen(start, &kept, &held, effort);
        let held_keys: Vec<fit::Key> = held.iter().map(|g| g.key()).collect();
        out.push(HeldOut {
            placement: left.to_string(),
            held_out_mape_percent: mape(&held, &unseen),
            in_sample_mape_percent: mape(&held, &fit::predictions_at(fitted, &held_keys)),
        });
    }
    if out.is_empty() {
        return None;
    }
    let mean = |f: &dyn Fn(&HeldOut) -> f64| out.iter().map(f).sum::<f64>() / out.len() as f64;
    Some(CrossValidation {
        held_out_parallel_mape_percent: mean(&|h| parallel(&h.held_out_mape_percent)),
        in_sample_parallel_mape_percent: mean(&|h| parallel(&h.in_sample_mape_percent)),
        placements: out,
    })
}

/// Leave-one-placement-out validation of the measurements in `inputs` for `evaluate`: the
/// global fit from the paper's rules on the sample placements (read with `tolerance`, as
/// `calibrate --tolerance` reads them, and repaired as `calibrate` repairs them:
/// `rules::feasible`), without each other placement in turn, against `model`'s error there
/// (in sample only when `model` was calibrated on these inputs, which the caller knows). Else why it cannot be computed, in words for the report: fewer than three
/// placements measured, a sample placement missing or unreadable by the rules.
pub fn of_inputs(
    model: &Model,
    inputs: &[crate::dataset::Input],
    tolerance: Option<f64>,
) -> Result<CrossValidation, String> {
    let nodes = model.predictable_nodes();
    let cps = model.machine.cores_per_socket;
    let groups: Vec<Group> = fit::groups(inputs, |p| p.comp_numa < nodes && p.comm_numa < nodes)
        .into_iter()
        .filter(|g| g.cores <= cps)
        .collect();
    let mut placements: Vec<Placement> = groups.iter().map(|g| g.placement).collect();
    placements.dedup();
    if placements.len() < 3 {
        return Err(format!(
            "{} placement(s) measured that the model predicts; leaving one out needs 3 or more \
             (the two sample placements and another)",
            placements.len()
        ));
    }
    let sweeps = crate::dataset::sweeps(inputs);
    let rules = |node: u32| -> Result<Params, String> {
        let placement = Placement {
            comp_numa: node,
            comm_numa: node,
        };
        let s = sweeps
            .iter()
            .find(|s| s.placement == placement)
            .ok_or_else(|| {
                format!("no measurement of sample placement {placement}, which the fit starts from")
            })?;
        let (mut p, _) = super::rules::extract(s, tolerance)
            .map_err(|e| format!("the paper's rules cannot read placement {placement}: {e}"))?;
        super::rules::feasible(&mut p, cps);
        // The model's law starts where calibrate starts it.
        p.law = super::variant::law_start(model.variant, Some(s), &p);
        Ok(p)
    };
    let local = rules(0)?;
    let remote = match model.remote {
        Some(_) => Some(rules(model.machine.numa_per_socket)?),
        None => None,
    };
    let start = Model {
        local,
        remote,
        ..model.clone()
    };
    let problems: Vec<String> = start.problems().iter().map(|p| p.to_string()).collect();
    if !problems.is_empty() {
        return Err(format!(
            "the paper's rules on the sample placements break the model's rules even after \
             calibrate's repair ({}); try --tolerance",
            problems.join("; ")
        ));
    }
    leave_one_placement_out(&start, model, &groups).ok_or_else(|| {
        "every measured placement is a sample placement: none is left to hold out".to_string()
    })
}

/// The parameters of `model` that `groups` cannot pin down, each with why: a linear piece
/// with no measured core count on it, an `alpha` no contended point measures, and, from the
/// intervals (the bootstrap's joined with the breakpoints' profile, `super::profile`), a
/// breakpoint that could be anywhere over three or more cores or a parameter whose interval
/// is wider than a fifth of its value.
pub(crate) fn unidentified(
    model: &Model,
    groups: &[Group],
    u: Option<&Uncertainty>,
) -> Vec<String> {
    let mut out = Vec::new();
    let mut cores: Vec<u32> = groups.iter().map(|g| g.cores).collect();
    cores.sort_unstable();
    cores.dedup();
    for side in [Side::Local, Side::Remote] {
        let Some(p) = side.params(model) else {
            continue;
        };
        let name = side.name();
        if p.n_seq_max > p.n_par_max + 1
            && !cores.iter().any(|&n| n > p.n_par_max && n < p.n_seq_max)
        {
            out.push(format!(
                "{name}.delta_l: no core count measured between N_par^max ({}) and N_seq^max \
                 ({}); it only joins the two",
                p.n_par_max, p.n_seq_max
            ));
        }
        if !cores.iter().any(|&n| n > p.n_seq_max) {
            out.push(format!(
                "{name}.delta_r: no core count measured beyond N_seq^max ({})",
                p.n_seq_max
            ));
        }
        let contended = groups.iter().any(|g| {
            g.quantity == COMM_PARALLEL
                && g.placement.shares_node()
                && model.is_local(g.placement.comp_numa) == (side == Side::Local)
                && crate::model::total::required(p, g.cores)
                    >= crate::model::total::total(p, g.cores)
        });
        if !contended {
            out.push(format!(
                "{name}.alpha: no measured point where communications are squeezed to their \
                 worst share (R(n) >= T(n), equation 4)"
            ));
        }
        // With its floor at the whole bandwidth, a law of communications in parallel has
        // nothing to shape: its parameters stay where the fit started, and every resample
        // with them (a zero-width interval that says nothing).
        if p.alpha >= 1.0 - 1e-9 {
            for (lp, _) in p.law.params() {
                out.push(format!(
                    "{name}.{}: the communications never fell below their bandwidth alone \
                     (alpha = 1): the {} law's {} shapes nothing",
                    lp.name,
                    p.law.variant(),
                    lp.name
                ));
            }
        }
        let intervals = u.and_then(|u| match side {
            Side::Local => Some(&u.local),
            Side::Remote => u.remote.as_ref(),
        });
        if let Some(iv) = intervals {
            for (((field, kind), value), [lo, hi]) in Params::FIELDS
                .into_iter()
                .zip(p.values())
                .zip(iv.as_array())
            {
                if let Some(why) = too_wide(kind, value, [lo, hi]) {
                    out.push(format!("{name}.{field}: {why}"));
                }
            }
            // The law's own parameters (the cpu-copy variant's kappa), judged as a
            // bandwidth is.
            for (lp, v) in p.law.params() {
                if let Some(why) = iv
                    .get(lp.name)
                    .and_then(|r| too_wide(ParamKind::Bandwidth, v, r))
                {
                    out.push(format!("{name}.{}: {why}", lp.name));
                }
            }
        }
    }
    out
}

fn too_wide(kind: ParamKind, value: f64, [lo, hi]: Interval) -> Option<String> {
    match kind {
        // Equation 1's `T(n)` is seen only where communications are starved (`R(n) >= T(n)`),
        // so a breakpoint below those core counts, or on a piece flat within the noise, is
        // not located by any data: say which of the two a reader should look for.
        ParamKind::Cores => (hi - lo >= 3.0).then(|| {
            format!(
                "could be anywhere from {lo:.0} to {hi:.0} cores (95 % interval): the total \
                 bandwidth in parallel changes by less than the noise there, or is not seen \
                 (it shows only where communications are starved)"
            )
        }),
        // A slope may be near 0; only its effect over the socket matters, left to the user.
        ParamKind::Slope => None,
        // `T_seq^max` where equation 6 caps no measured core count (`super::bootstrap`).
        ParamKind::Bandwidth if open_above([lo, hi]) => Some(format!(
            "at least {lo:.4} (95 %), not bounded above: the computations alone reach it at no \
             measured core count (equation 6), so every higher value predicts the same"
        )),
        ParamKind::Bandwidth | ParamKind::CommShare => (value.abs() > 0.0
            && (hi - lo) > 0.2 * value.abs())
        .then(|| format!("95 % interval {lo:.4} to {hi:.4} is wider than a fifth of {value:.4}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interval_open_above_is_named_as_a_lower_bound() {
        let open = [70_000.0, crate::model::constraints::MAX_BANDWIDTH];
        let why = too_wide(ParamKind::Bandwidth, 72_000.0, open).unwrap();
        assert!(
            why.starts_with("at least 70000.0000 (95 %), not bounded above"),
            "{why}"
        );
        let closed = too_wide(ParamKind::Bandwidth, 72_000.0, [40_000.0, 90_000.0]).unwrap();
        assert!(
            closed.starts_with("95 % interval 40000.0000 to 90000.0000"),
            "{closed}"
        );
    }
    use crate::dataset::Input;
    use crate::io::model_file;
    use crate::model::all_placements;

    /// Every placement of paper machine `name` at every core, each bandwidth off by up to
    /// `noise` (seeded).
    fn noisy(name: &str, noise: f64, seed: u64) -> (Model, Input) {
        let m = model_file::load(&format!("paper:{name}")).unwrap();
        let cores: Vec<u32> = (1..=m.machine.cores_per_socket).collect();
        let mut rows = crate::trace::predicted_rows(
            &crate::model::predict(&m, &all_placements(&m), &cores).unwrap(),
        );
        let mut rng = super::super::bootstrap::SplitMix64(seed);
        for r in &mut rows {
            for v in [
                &mut r.comp_alone,
                &mut r.comm_alone,
                &mut r.comp_parallel,
                &mut r.comm_parallel,
            ] {
                *v *= 1.0 + noise * rng.symmetric();
            }
        }
        (m, Input::from_rows(&rows, "noisy.csv"))
    }

    #[test]
    fn evaluate_repairs_the_rules_as_calibrate_does_before_leaving_placements_out() {
        // occigen with 5 % noise, seeds 0 and 23: the rules' parameters of a sample placement
        // break the model's rules; calibrate repairs them (`rules::feasible`), and so must the
        // cross-validation of evaluate, instead of dropping it.
        for seed in [0, 23] {
            let (m, input) = noisy("occigen", 0.05, seed);
            let cps = m.machine.cores_per_socket;
            let sweeps = crate::dataset::sweeps(std::slice::from_ref(&input));
            let broken = sweeps
                .iter()
                .filter(|s| is_sample(&m, s.placement))
                .any(|s| {
                    let (p, _) = super::super::rules::extract(s, None).unwrap();
                    !p.problems("", cps).is_empty()
                });
            assert!(
                broken,
                "seed {seed}: the rules need no repair, the test proves nothing"
            );
            let cv = of_inputs(&m, std::slice::from_ref(&input), None);
            assert!(cv.is_ok(), "seed {seed}: {cv:?}");
        }
    }

    #[test]
    fn without_a_third_placement_evaluate_says_why() {
        let m = model_file::load("paper:henri").unwrap();
        let cores: Vec<u32> = (1..=18).collect();
        let two = [
            Placement {
                comp_numa: 0,
                comm_numa: 0,
            },
            Placement {
                comp_numa: 1,
                comm_numa: 1,
            },
        ];
        let rows = crate::trace::predicted_rows(&crate::model::predict(&m, &two, &cores).unwrap());
        let why = of_inputs(&m, &[Input::from_rows(&rows, "two.csv")], None).unwrap_err();
        assert!(why.starts_with("2 placement(s) measured"), "{why}");
        // Only off-node placements: the fit has no sample placement to start from.
        let off = [
            Placement {
                comp_numa: 0,
                comm_numa: 1,
            },
            Placement {
                comp_numa: 1,
                comm_numa: 0,
            },
            two[1],
        ];
        let rows = crate::trace::predicted_rows(&crate::model::predict(&m, &off, &cores).unwrap());
        let why = of_inputs(&m, &[Input::from_rows(&rows, "off.csv")], None).unwrap_err();
        assert!(
            why.contains("no measurement of sample placement 0,0"),
            "{why}"
        );
    }
}
