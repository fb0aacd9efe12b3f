//! Throughput of `predict`: a synthetic 2-socket machine with 8 NUMA nodes and 64 cores per
//! socket, every placement (64) at every core count (64). Target: under 1 ms.

#[path = "../tests/common/mod.rs"]
mod common;

use contention::model;
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let m = common::synthetic_64c();
    let placements = model::all_placements(&m);
    let cores: Vec<u32> = (1..=64).collect();
    assert_eq!(placements.len(), 64);
    c.bench_function("predict 64 placements x 64 core counts", |b| {
        b.iter(|| model::predict(black_box(&m), black_box(&placements), black_box(&cores)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
