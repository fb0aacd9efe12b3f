//! Property tests of the model over valid parameter sets: whatever the parameters, the
//! predicted bandwidths are physical.

use contention::model::placement::Source;
use contention::model::{self, Law, Machine, Model, Params, Variant};
use proptest::prelude::*;

fn params(cores: u32) -> impl Strategy<Value = Params> {
    (
        (1..=cores, 1..=cores),
        (1000.0..200_000.0f64, 1000.0..200_000.0f64, 0.5..=1.0f64),
        (0.01..=1.0f64, 0.0..5000.0f64, -1000.0..5000.0f64),
        (100.0..20_000.0f64, 100.0..30_000.0f64),
    )
        .prop_map(
            |(
                (n_par_max, n_seq_max),
                (t_par_max, t_seq_max, t_par_max2_share),
                (alpha, delta_l, delta_r),
                (b_seq_comp, b_seq_comm),
            )| Params {
                n_par_max,
                t_par_max,
                n_seq_max,
                // The model's constraints (`model::constraints`): T_par^max is the peak of
                // T(n), one core alone cannot beat all cores alone.
                t_seq_max: t_seq_max.max(b_seq_comp),
                t_par_max2: t_par_max * t_par_max2_share,
                alpha,
                delta_l,
                delta_r,
                b_seq_comp,
                b_seq_comm,
                law: Law::Paper,
            },
        )
}

fn models() -> impl Strategy<Value = Model> {
    (1u32..=64, 1u32..=4, 1u32..=3)
        .prop_flat_map(|(cores, per_socket, sockets)| {
            (
                Just((cores, per_socket, sockets)),
                params(cores),
                proptest::option::of(params(cores)),
                // The cpu-copy variant's kappa, for half the models.
                proptest::option::of((1e-3f64..100.0, 1e-3f64..100.0)),
            )
        })
        .prop_map(
            |((cores, per_socket, sockets), local, remote, kappa)| Model {
                schema_version: 1,
                machine: Machine {
                    name: "prop".into(),
                    numa_nodes: per_socket * sockets,
                    numa_per_socket: per_socket,
                    cores_per_socket: cores,
                },
                variant: if kappa.is_some() {
                    Variant::CpuCopy
                } else {
                    Variant::Paper
                },
                local: Params {
                    law: kappa.map_or(Law::Paper, |k| Law::CpuCopy { kappa: k.0 }),
                    ..local
                },
                remote: remote.map(|r| Params {
                    law: kappa.map_or(Law::Paper, |k| Law::CpuCopy { kappa: k.1 }),
                    ..r
                }),
            },
        )
}

proptest! {
    #[test]
    fn predictions_are_physical(m in models()) {
        // The generator meets the simple rules; the rules on the whole curve (no speed-up,
        // no stall) are checked by validation, and only valid models are predicted. Half the
        // models are of the cpu-copy variant.
        prop_assume!(m.problems().is_empty());
        let cores: Vec<u32> = (1..=m.machine.cores_per_socket).collect();
        let all = model::predict(&m, &model::all_placements(&m), &cores).unwrap();
        for p in &all {
            let comp_params = match p.comp_model {
                Source::Remote => m.remote.as_ref().unwrap(),
                _ => &m.local,
            };
            for pt in &p.points {
                for v in [pt.comp_alone, pt.comm_alone, pt.comp_parallel, pt.comm_parallel] {
                    prop_assert!(v.is_finite() && v >= 0.0, "{:?}", pt);
                }
                prop_assert!(pt.comm_parallel <= pt.comm_alone * (1.0 + 1e-12), "{:?}", pt);
                let wanted = f64::from(pt.cores) * comp_params.b_seq_comp;
                prop_assert!(pt.comp_parallel <= wanted * (1.0 + 1e-12), "{:?} > {}", pt, wanted);
                // What validation guarantees: contention never speeds computations up.
                let slack = 1.0 + model::constraints::TOLERANCE;
                prop_assert!(pt.comp_parallel <= pt.comp_alone * slack + 1e-9, "{:?}", pt);
            }
        }
    }
}
