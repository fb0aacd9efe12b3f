//! Throughput of `predict`: a synthetic 2-socket machine with 8 NUMA nodes and 64 cores per
//! socket, every placement (64) at every core count (64). Target: under 1 ms.

use contention::model::{self, Machine, Model, Params};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn params(scale: f64) -> Params {
    Params {
        n_par_max: 40,
        t_par_max: 180_000.0 * scale,
        n_seq_max: 48,
        t_seq_max: 170_000.0 * scale,
        t_par_max2: 175_000.0 * scale,
        alpha: 0.8,
        delta_l: 150.0,
        delta_r: 300.0,
        b_seq_comp: 4000.0 * scale,
        b_seq_comm: 20_000.0,
    }
}

fn bench(c: &mut Criterion) {
    let m = Model {
        schema_version: 1,
        machine: Machine {
            name: "synthetic-8numa-64c".into(),
            numa_nodes: 8,
            numa_per_socket: 4,
            cores_per_socket: 64,
        },
        local: params(1.0),
        remote: Some(params(0.45)),
    };
    let placements = model::all_placements(&m);
    let cores: Vec<u32> = (1..=64).collect();
    assert_eq!(placements.len(), 64);
    c.bench_function("predict 64 placements x 64 core counts", |b| {
        b.iter(|| model::predict(black_box(&m), black_box(&placements), black_box(&cores)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
