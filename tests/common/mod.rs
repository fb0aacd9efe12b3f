//! The one helper set of the integration tests (`tests/tests.rs`), shared with the benches:
//! running the binary and its processes ([`run`]), whether the virtual-machine tests run here
//! ([`gate`]), namespace hosts ([`hosts`]), the MPICH build ([`mpich`]), a Slurm cluster
//! ([`slurm`]), a tiny deterministic PRNG (no `rand` dependency), a large synthetic machine,
//! and synthetic measurements and traces built from a model's predictions.
// The benches use a subset.
#![allow(dead_code)]

pub mod gate;
pub mod hosts;
pub mod mpich;
pub mod run;
pub mod slurm;

// What most tests call, by its short name (the benches call none of it).
#[allow(unused_imports)]
pub use run::{contention, stderr, stdout, temp_dir};

use contention::model::{self, Machine, Model, Params, Placement};
use contention::provenance::Provenance;
use contention::trace::{
    self, CoreSlot, MachineInfo, MeasureConfig, MpiInfo, NicInfo, NumaNodeInfo, Phase, Plan,
    Sample, Summary, TidyRow, Trace, TracePoint, TRACE_SCHEMA_VERSION,
};

/// One side of [`synthetic_64c`]: bandwidths scaled by `scale`.
fn synthetic_params(scale: f64) -> Params {
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
        law: contention::model::Law::Paper,
    }
}

/// A large machine for the benches: 2 sockets of 64 cores and 4 NUMA nodes each.
pub fn synthetic_64c() -> Model {
    Model {
        schema_version: 1,
        machine: Machine {
            name: "synthetic-8numa-64c".into(),
            numa_nodes: 8,
            numa_per_socket: 4,
            cores_per_socket: 64,
        },
        variant: contention::model::Variant::Paper,
        local: synthetic_params(1.0),
        remote: Some(synthetic_params(0.45)),
    }
}

/// The library's seeded generator (SplitMix64), so tests and the bootstrap share one.
pub use contention::calibrate::bootstrap::SplitMix64;

pub fn placement(comp_numa: u32, comm_numa: u32) -> Placement {
    Placement {
        comp_numa,
        comm_numa,
    }
}

/// The model's predictions of `placement` at `cores`, as tidy rows (noise-free measurements).
pub fn predicted_rows(m: &Model, placement: Placement, cores: &[u32]) -> Vec<TidyRow> {
    trace::predicted_rows(&model::predict(m, &[placement], cores).expect("predictable"))
}

/// Every placement at every core count of one socket: the model's whole sweep.
pub fn everything(m: &Model) -> Vec<TidyRow> {
    let cores: Vec<u32> = (1..=m.machine.cores_per_socket).collect();
    trace::predicted_rows(&model::predict(m, &model::all_placements(m), &cores).unwrap())
}

/// MAPE (%) of `predicted` against `reference`, over all four bandwidths of every row.
pub fn mape(reference: &[TidyRow], predicted: &[TidyRow]) -> f64 {
    contention::evaluate::rows_mape(reference, predicted).unwrap()
}

/// Multiplies each of the four bandwidths of each row by `1 + rel * u`, `u` uniform in
/// [-1, 1): every measurement off by at most `rel`.
pub fn add_noise(rows: &mut [TidyRow], rel: f64, rng: &mut SplitMix64) {
    for r in rows {
        for v in [
            &mut r.comp_alone,
            &mut r.comm_alone,
            &mut r.comp_parallel,
            &mut r.comm_parallel,
        ] {
            *v *= 1.0 + rel * rng.symmetric();
        }
    }
}

/// A plausible two-socket machine as `measure` describes it.
pub fn machine(host: &str, cores_per_socket: u32, numa_per_socket: u32) -> MachineInfo {
    let sockets = 2;
    MachineInfo {
        hostname: host.into(),
        cpu_model: "Intel(R) Xeon(R) Gold 6140 CPU @ 2.30GHz".into(),
        sockets,
        cores_per_socket,
        pus_per_core: 2,
        numa_per_socket,
        numa_nodes: (0..sockets * numa_per_socket)
            .map(|i| NumaNodeInfo {
                logical_index: i,
                os_index: i,
                socket: Some(i / numa_per_socket),
                memory_bytes: 48 << 30,
            })
            .collect(),
        nics: vec![NicInfo {
            name: "mlx5_0".into(),
            numa_nodes: vec![0],
            socket: Some(0),
        }],
        gpus: Vec::new(),
        hwloc_version: "2.9.0".into(),
        simulated: None,
    }
}

/// A phase whose summary median is `value` and whose `samples` samples (per thread for
/// computations: `value / threads` each) spread by `rel_spread` (uniform).
pub fn phase(
    value: f64,
    threads: u32,
    samples: usize,
    rel_spread: f64,
    rng: &mut SplitMix64,
) -> Phase {
    let per_thread = value / f64::from(threads);
    let samples: Vec<Sample> = (0..samples)
        .map(|i| {
            let start = i as f64 * 0.01;
            Sample {
                thread: i as u32 % threads,
                start,
                end: start + 0.01,
                mbps: per_thread * (1.0 + rel_spread * rng.symmetric()),
            }
        })
        .collect();
    let n = samples.len().max(1) as f64;
    let mean = samples.iter().map(|s| s.mbps).sum::<f64>() / n * f64::from(threads);
    let var = samples
        .iter()
        .map(|s| (s.mbps * f64::from(threads) - mean).powi(2))
        .sum::<f64>()
        / n;
    Phase {
        summary: Summary {
            median: value,
            mean,
            stddev: var.sqrt(),
            // Of rounds, as `measure` summarizes them (the whole stream: every thread),
            // holding the median.
            min: samples
                .iter()
                .map(|s| s.mbps * f64::from(threads))
                .fold(value, f64::min),
            max: samples
                .iter()
                .map(|s| s.mbps * f64::from(threads))
                .fold(value, f64::max),
            count: samples.len() as u64,
        },
        sampling: format!(
            "{} samples in {:.2} s, first and last iteration of each thread discarded",
            samples.len(),
            n * 0.01
        ),
        samples,
        ci95: None,
        unstable: false,
    }
}

/// A complete trace of one placement's sweep (`rows`, all of that placement), measured on
/// `machine`, with `samples` samples per phase spread by `rel_spread`.
pub fn trace(
    machine: MachineInfo,
    rows: &[TidyRow],
    samples: usize,
    rel_spread: f64,
    rng: &mut SplitMix64,
) -> Trace {
    let (comp_numa, comm_numa) = (rows[0].comp_numa, rows[0].comm_numa);
    let cores: Vec<u32> = rows.iter().map(|r| r.cores).collect();
    let max_cores = cores.iter().copied().max().unwrap_or(1);
    let points = rows
        .iter()
        .map(|r| TracePoint {
            cores: r.cores,
            comp_alone: phase(r.comp_alone, r.cores, samples, rel_spread, rng),
            comm_alone: phase(r.comm_alone, 1, samples, rel_spread, rng),
            comp_parallel: phase(r.comp_parallel, r.cores, samples, rel_spread, rng),
            comm_parallel: phase(r.comm_parallel, 1, samples, rel_spread, rng),
            ran_on: Vec::new(),
        })
        .collect();
    let comm_core = machine.cores_per_socket - 1;
    Trace {
        schema_version: TRACE_SCHEMA_VERSION,
        tool: Provenance::current(),
        mpi: MpiInfo {
            library_version: "Open MPI v4.1.4".into(),
            thread_level: "MPI_THREAD_MULTIPLE".into(),
            hosts: vec![machine.hostname.clone(), "peer".into()],
            library: Some("Open MPI 4.1.4".into()),
            launcher: Some("Open MPI mpirun".into()),
            stack: None,
        },
        config: MeasureConfig {
            comp_numa,
            comm_numa,
            cores,
            message_size_bytes: 64 << 20,
            buffer_bytes_per_core: 1 << 30,
            max_phase_seconds: 2.0,
            stable_within: 0.01,
            timeout_seconds: 60.0,
            kernel: "avx512".into(),
            compute_kernel: "nt-store".into(),
            pattern: "pong".into(),
            ranks: 2,
            bind: true,
            runs: 1,
            sizing: None,
        },
        plan: Plan {
            compute: (0..max_cores)
                .map(|c| CoreSlot {
                    core: c,
                    pu_os: c,
                    socket: 0,
                })
                .collect(),
            comm: CoreSlot {
                core: comm_core,
                pu_os: comm_core,
                socket: 0,
            },
            comm_reason: "last core of socket 0, next to mlx5_0".into(),
            comm_shares_core: false,
            comp_numa_os: comp_numa,
            comm_numa_os: comm_numa,
        },
        machine,
        started_at: "2026-01-01T00:00:00Z".into(),
        updated_at: "2026-01-01T00:10:00Z".into(),
        complete: true,
        points,
        runs: Vec::new(),
        transport: None,
        sender: None,
        settings: None,
        buffers: Vec::new(),
        simulation: None,
        adaptive: None,
        gpu: None,
    }
}
