//! Throughput of `calibrate` on large traces: a synthetic 64-core socket (the `predict`
//! bench's machine) measured at every core count, 1000 samples per phase, for both
//! calibration placements (2 traces x 64 points x 4 phases x 1000 samples). Target: under
//! 50 ms.
//!
//! The global fit (issue 14): 16 placements (computation and communication data on nodes 0,
//! 1, 4 and 5) x 64 core counts x 1000 samples per phase, fitted from the rules' start in
//! under 1 s, and 200 bootstrap resamples of it in under 10 s.
//!
//! Three more figures: reading the samples' spread and the summaries into sweeps
//! (`Input::from_trace`), the whole pure calibration from in-memory traces, and the same from
//! the JSON text (what `contention calibrate` does after reading the files).

#[path = "../tests/common/mod.rs"]
mod common;

use common::{machine, placement, predicted_rows, synthetic_64c, trace, SplitMix64};
use contention::calibrate::{bootstrap, calibrate, fit, Method, Options};
use contention::dataset::Input;
use contention::io::trace_file;
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let m = synthetic_64c();
    let cores: Vec<u32> = (1..=64).collect();
    let mut rng = SplitMix64(1);
    // Both data on node 0 (local), then on node 4, the first of the second socket (remote).
    let traces: Vec<_> = [0, 4]
        .into_iter()
        .map(|node| {
            let rows = predicted_rows(&m, placement(node, node), &cores);
            trace(machine("bench", 64, 4), &rows, 1000, 0.05, &mut rng)
        })
        .collect();
    assert!(traces
        .iter()
        .all(|t| t.points.len() == 64 && t.points[0].comp_alone.samples.len() == 1000));
    let texts: Vec<String> = traces
        .iter()
        .map(|t| serde_json::to_string(t).unwrap())
        .collect();
    let opts = Options::default();

    c.bench_function("read 2 traces x 64 points x 4 phases x 1000 samples", |b| {
        b.iter(|| {
            black_box(&traces)
                .iter()
                .map(|t| Input::from_trace(t, "bench.json").unwrap())
                .collect::<Vec<_>>()
        })
    });
    c.bench_function("calibrate 2 traces x 64 points x 1000 samples", |b| {
        b.iter(|| {
            let inputs: Vec<Input> = black_box(&traces)
                .iter()
                .map(|t| Input::from_trace(t, "bench.json").unwrap())
                .collect();
            calibrate(&inputs, &opts).unwrap()
        })
    });
    let mut group = c.benchmark_group("with JSON parsing");
    group.sample_size(10);
    group.bench_function(
        "parse + calibrate 2 traces x 64 points x 1000 samples",
        |b| {
            b.iter(|| {
                let inputs: Vec<Input> = black_box(&texts)
                    .iter()
                    .map(|t| {
                        Input::from_trace(
                            &trace_file::parse(t, "bench.json").unwrap(),
                            "bench.json",
                        )
                        .unwrap()
                    })
                    .collect();
                calibrate(&inputs, &opts).unwrap()
            })
        },
    );
    group.finish();

    // The global fit over 16 placements.
    let nodes = [0, 1, 4, 5];
    let inputs: Vec<Input> = nodes
        .iter()
        .flat_map(|&comp| nodes.iter().map(move |&comm| (comp, comm)))
        .map(|(comp, comm)| {
            let rows = predicted_rows(&m, placement(comp, comm), &cores);
            let t = trace(machine("bench", 64, 4), &rows, 1000, 0.05, &mut rng);
            Input::from_trace(&t, "bench.json").unwrap()
        })
        .collect();
    let paper = Options {
        method: Method::Paper,
        ..Options::default()
    };
    let start = calibrate(&inputs, &paper).unwrap().0.model;
    let groups = fit::groups(&inputs, |_| true);
    assert_eq!(groups.len(), 16 * 64 * 4);
    assert!(groups.iter().all(|g| g.sorted.len() == 1000));
    let medians: Vec<f64> = groups.iter().map(|g| g.median).collect();
    let fitted = fit::fit(&start, &fit::keys(&groups), &medians, fit::Effort::full(64)).model;
    let mut group = c.benchmark_group("global fit");
    group.sample_size(10);
    group.bench_function(
        "fit 16 placements x 64 cores x 1000 samples per phase",
        |b| {
            b.iter(|| {
                let groups = fit::groups(black_box(&inputs), |_| true);
                let medians: Vec<f64> = groups.iter().map(|g| g.median).collect();
                fit::fit(&start, &fit::keys(&groups), &medians, fit::Effort::full(64))
            })
        },
    );
    group.bench_function("bootstrap 200 resamples of that fit", |b| {
        b.iter(|| bootstrap::replicates(black_box(&fitted), &groups, 200, 1))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
