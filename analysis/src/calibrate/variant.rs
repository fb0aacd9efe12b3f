//! Which variant of the model `calibrate` fits, and where the cpu-copy variant's fit starts.
//!
//! The paper's model (section 3) describes messages a network card writes into memory; its
//! cpu-copy variant ([`crate::model::cpu_copy`]) messages that CPU cores copy, as between two
//! ranks of one host. A trace records which it measured (`transport`), so the variant follows
//! from the inputs unless `--model` says otherwise: intra-node traces get the cpu-copy
//! variant, network traces the paper's, and inputs that do not say (tidy CSV, traces older
//! than the record) the paper's, as before the variant existed.

use crate::dataset::{Input, Sweep, COMM_PARALLEL};
use crate::model::{Law, Model, Params, Variant};
use crate::stats;
use crate::trace::TransportKind;

/// The variant to fit and why, in words for the user: `asked` (`--model`) when given, else
/// from the inputs' transport.
pub(crate) fn choose(inputs: &[Input], asked: Option<Variant>) -> (Variant, String) {
    if let Some(v) = asked {
        return (v, "chosen with --model".into());
    }
    let kinds: Vec<Option<TransportKind>> = inputs.iter().map(|i| i.transport).collect();
    let all = |k: TransportKind| kinds.iter().all(|&t| t == Some(k));
    if !kinds.is_empty() && all(TransportKind::IntraNode) {
        (
            Variant::CpuCopy,
            "the traces' transport is intra-node: both ranks on one host, every message a \
             copy made by CPU cores, whose bandwidth falls as the computations load the \
             memory (--model paper fits the paper's model instead)"
                .into(),
        )
    } else if !kinds.is_empty() && all(TransportKind::Network) {
        (
            Variant::Paper,
            "the traces' transport is the network: messages written by a network card's DMA, \
             the paper's case (--model cpu-copy fits the variant for copies instead)"
                .into(),
        )
    } else if kinds.iter().any(Option::is_some) {
        (
            Variant::Paper,
            "the inputs mix transports (or some do not record theirs): the paper's model; \
             calibrate intra-node and network traces apart, or choose with --model"
                .into(),
        )
    } else {
        (
            Variant::Paper,
            "the inputs do not record their transport (tidy CSV, or traces from before it was \
             recorded): the paper's model; --model cpu-copy if both ranks shared one host"
                .into(),
        )
    }
}

/// `model` (the paper's rules) as a start for `variant`: each side gets the law's own
/// parameters ([`law_start`]), from its sample sweep where there is one.
pub(crate) fn start(
    model: &Model,
    variant: Variant,
    local: &Sweep,
    remote: Option<&Sweep>,
) -> Model {
    let with = |p: &Params, sweep: Option<&Sweep>| Params {
        law: law_start(variant, sweep, p),
        ..*p
    };
    Model {
        variant,
        local: with(&model.local, Some(local)),
        remote: model.remote.as_ref().map(|r| with(r, remote)),
        ..model.clone()
    }
}

/// Where the fit of `variant`'s law starts, given the rules' other parameters `p`: the
/// cpu-copy variant's `kappa` read from the points of `sweep` ([`kappa_start`]), any other
/// law's parameters at their start ([`crate::model::LawParam::start`]).
pub(crate) fn law_start(variant: Variant, sweep: Option<&Sweep>, p: &Params) -> Law {
    match (variant, sweep) {
        (Variant::CpuCopy, Some(s)) => Law::CpuCopy {
            kappa: kappa_start(s, p),
        },
        _ => variant.start(),
    }
}

/// `kappa` as the measured points of `sweep` say, given the rules' other parameters `p`:
/// the median over the points between no contention and the floor of the `kappa` that puts
/// the law through them (`share = (1 - u) / (1 - u + kappa u)`, so `kappa = (1 - u)(1 -
/// share) / (u share)`), with the load `u = n B_seq^comp / T_par^max`; the law's start
/// ([`crate::model::LawParam::start`]) when no point lies there. The fit moves it from there.
pub(crate) fn kappa_start(sweep: &Sweep, p: &Params) -> f64 {
    let solved: Vec<f64> = sweep
        .points
        .iter()
        .filter_map(|pt| {
            let u = f64::from(pt.cores) * p.b_seq_comp / p.t_par_max;
            let share = pt.bw[COMM_PARALLEL] / p.b_seq_comm;
            let between = u > 0.0 && u < 0.95 && share > p.alpha + 0.02 && share < 0.98;
            between.then(|| (1.0 - u) * (1.0 - share) / (u * share))
        })
        .collect();
    stats::median(&solved)
        .filter(|k| k.is_finite() && *k > 0.0)
        .unwrap_or_else(kappa_default)
        .clamp(1e-3, 100.0)
}

/// The cpu-copy variant's start for `kappa` where the points say nothing.
fn kappa_default() -> f64 {
    Variant::CpuCopy.start().values()[0]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::SweepPoint;
    use crate::model::Placement;

    fn input(transport: Option<TransportKind>) -> Input {
        let rows = [crate::trace::TidyRow {
            comp_numa: 0,
            comm_numa: 0,
            cores: 1,
            comp_alone: 1.0,
            comm_alone: 1.0,
            comp_parallel: 1.0,
            comm_parallel: 1.0,
        }];
        Input {
            transport,
            ..Input::from_rows(&rows, "x")
        }
    }

    #[test]
    fn the_variant_follows_the_traces_transport_unless_asked() {
        let intra = input(Some(TransportKind::IntraNode));
        let net = input(Some(TransportKind::Network));
        let csv = input(None);
        let pick = |inputs: &[Input], asked| choose(inputs, asked).0;
        assert_eq!(
            pick(&[intra.clone(), intra.clone()], None),
            Variant::CpuCopy
        );
        assert_eq!(pick(std::slice::from_ref(&net), None), Variant::Paper);
        assert_eq!(pick(std::slice::from_ref(&csv), None), Variant::Paper);
        assert_eq!(pick(&[intra.clone(), net.clone()], None), Variant::Paper);
        assert_eq!(pick(&[intra.clone(), csv.clone()], None), Variant::Paper);
        assert_eq!(
            pick(std::slice::from_ref(&intra), Some(Variant::Paper)),
            Variant::Paper
        );
        assert_eq!(
            pick(std::slice::from_ref(&csv), Some(Variant::CpuCopy)),
            Variant::CpuCopy
        );
        let (_, why) = choose(&[intra], None);
        assert!(
            why.contains("intra-node") && why.contains("--model paper"),
            "{why}"
        );
        let (_, why) = choose(&[csv], None);
        assert!(why.contains("do not record their transport"), "{why}");
    }

    #[test]
    fn kappa_starts_where_the_law_meets_the_points_between_no_contention_and_the_floor() {
        let p = Params {
            n_par_max: 8,
            t_par_max: 100_000.0,
            n_seq_max: 8,
            t_seq_max: 100_000.0,
            t_par_max2: 100_000.0,
            alpha: 0.2,
            delta_l: 0.0,
            delta_r: 0.0,
            b_seq_comp: 10_000.0,
            b_seq_comm: 5_000.0,
            law: Law::Paper,
        };
        let law = |n: u32| crate::model::cpu_copy::share(f64::from(n) * 0.1, 0.3, 0.2);
        let sweep = Sweep {
            placement: Placement {
                comp_numa: 0,
                comm_numa: 0,
            },
            sources: vec![],
            points: (1..=10)
                .map(|n| SweepPoint {
                    cores: n,
                    bw: [0.0, 5_000.0, 0.0, 5_000.0 * law(n)],
                    rel_se: [None; 4],
                    repetitions: 1,
                })
                .collect(),
        };
        assert!((kappa_start(&sweep, &p) - 0.3).abs() < 1e-9);
        // No point between: the default.
        let flat = Sweep {
            points: sweep.points[..0].to_vec(),
            ..sweep
        };
        assert_eq!(kappa_start(&flat, &p), 1.0);
    }
}
