//! Time to model: full sweeps against adaptive ones (`measure --adaptive`) on simulated
//! machines: the nine machines of the paper exactly (`paper:NAME`) and the same machines with
//! soft knees and a slow decline the model cannot follow (`realistic:NAME`).
//!
//! `cargo bench --bench adaptive [-- SEEDS [PRECISION [no-budget]]]` (3 seeds, `--precision
//! 1`; `ADAPTIVE_BENCH_ONLY=paper:` keeps the machines whose name holds that text). Per
//! machine, both sample placements (0,0 and M,M) are measured with each sweep and calibrated
//! together (the global fit); the table gives, averaged over the seeds: the simulated
//! measuring time and the points of each sweep, the MAPE of every placement's four bandwidths
//! at every core count against the truth, the adaptive model's MAPE against the full sweep's
//! model, and whether the goal holds (the adaptive sweep of each placement gets
//! `--budget` a third of that placement's full sweep, unless `no-budget`): the adaptive MAPE against the truth at most 10 %
//! (relative) above the full sweep's, in at most a third of its time.
//!
//! Seconds of simulated measuring time, not of this program: the simulation takes seconds.

use contention::calibrate::{self, Method, Options};
use contention::dataset::Input;
use contention::io::trace_file;
use contention::measure::adaptive::AdaptiveOptions;
use contention::measure::options::MeasureOptions;
use contention::measure::simulation::{self, SimulateOptions};
use contention::measure::sweep::progress::Mode;
use contention::model::{self, Model, Placement};
use contention::simulate::Truth;
use contention::trace::{TidyRow, Trace};
use std::path::Path;
use std::sync::atomic::AtomicBool;

/// One sweep of both sample placements: its traces' measuring time, points and model.
struct Sweep {
    seconds: f64,
    points: usize,
    model: Model,
}

/// Measures both sample placements of `truth`, each with a full sweep or with `adaptive`
/// (whose budget, when `third` is set, is a third of `full`'s time for that placement).
fn measure(
    truth: &Truth,
    seed: u64,
    adaptive: Option<AdaptiveOptions>,
    full: Option<&[f64]>,
    dir: &Path,
) -> (Sweep, Vec<f64>) {
    let m = truth.machine().numa_per_socket;
    let stop = AtomicBool::new(false);
    let sim = SimulateOptions {
        machine: truth.clone(),
        seed,
    };
    let remote = truth.model().remote.is_some();
    let nodes: Vec<u32> = if remote { vec![0, m] } else { vec![0] };
    let traces: Vec<Trace> = nodes
        .iter()
        .enumerate()
        .map(|(i, &node)| {
            let out = dir.join(format!(
                "{}-{node}-{seed}-{}.json",
                truth.spec().replace(':', "-"),
                adaptive.is_some()
            ));
            let o = MeasureOptions {
                comp_numa: node,
                comm_numa: node,
                output: Some(out.clone()),
                force: true,
                ..MeasureOptions::default()
            };
            let adaptive = adaptive.map(|a| AdaptiveOptions {
                budget: full.map(|f| std::time::Duration::from_secs_f64(f[i] / 3.0)),
                ..a
            });
            simulation::run(
                &MeasureOptions {
                    adaptive,
                    ..o.clone()
                },
                &sim,
                Mode::Quiet,
                false,
                &stop,
            )
            .expect("simulated");
            trace_file::read(&out).expect("its trace")
        })
        .collect();
    let inputs: Vec<Input> = traces
        .iter()
        .map(|t| Input::from_trace(t, "simulated").expect("a valid trace"))
        .collect();
    let machine = truth.machine();
    let opts = Options {
        numa_per_socket: Some(machine.numa_per_socket),
        numa_nodes: Some(machine.numa_nodes),
        cores_per_socket: Some(machine.cores_per_socket),
        local_only: !remote,
        method: Method::Fit,
        ..Options::default()
    };
    let (calibrated, _) = calibrate::calibrate(&inputs, &opts).expect("calibrated");
    let seconds: Vec<f64> = traces
        .iter()
        .filter_map(|t| t.simulation.as_ref())
        .map(|s| s.measuring_seconds)
        .collect();
    let sweep = Sweep {
        seconds: seconds.iter().sum(),
        points: traces.iter().map(|t| t.points.len()).sum(),
        model: calibrated.model,
    };
    (sweep, seconds)
}

/// Every placement of the truth at every core count of the socket, as rows.
fn truth_rows(truth: &Truth) -> Vec<TidyRow> {
    let cores: Vec<u32> = (1..=truth.machine().cores_per_socket).collect();
    truth
        .placements()
        .iter()
        .flat_map(|&p: &Placement| {
            truth
                .points(p, &cores)
                .expect("the truth")
                .into_iter()
                .map(move |pt| TidyRow {
                    comp_numa: p.comp_numa,
                    comm_numa: p.comm_numa,
                    cores: pt.cores,
                    comp_alone: pt.comp_alone,
                    comm_alone: pt.comm_alone,
                    comp_parallel: pt.comp_parallel,
                    comm_parallel: pt.comm_parallel,
                })
        })
        .collect()
}

/// A model's rows at the same placements and core counts.
fn model_rows(m: &Model, truth: &Truth) -> Vec<TidyRow> {
    let cores: Vec<u32> = (1..=truth.machine().cores_per_socket).collect();
    contention::trace::predicted_rows(
        &model::predict(m, &truth.placements(), &cores).expect("predicted"),
    )
}

fn mape(reference: &[TidyRow], predicted: &[TidyRow]) -> f64 {
    contention::evaluate::rows_mape(reference, predicted).unwrap()
}

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let seeds: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(3);
    let precision: f64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1.0);
    let third = args.next().is_none_or(|a| a != "no-budget");
    let only = std::env::var("ADAPTIVE_BENCH_ONLY").unwrap_or_default();
    let adaptive = AdaptiveOptions {
        precision: precision / 100.0,
        budget: None,
    };
    let dir = tempfile::tempdir().expect("scratch directory");
    println!(
        "{seeds} seed(s), --precision {precision}; times are simulated measuring time (both \
         sample placements), MAPE over every placement's four bandwidths at every core count"
    );
    println!(
        "{:<24} {:>8} {:>5} {:>8} | {:>8} {:>5} {:>8} {:>8} | {:>6} {:>6} {:>5}",
        "machine",
        "full s",
        "pts",
        "MAPE %",
        "adapt s",
        "pts",
        "MAPE %",
        "vs full",
        "time",
        "MAPE",
        "goal"
    );
    let (mut met, mut total) = (0, 0);
    let mut worst: Option<(String, f64)> = None;
    for shape in ["paper", "realistic"] {
        for name in contention::model::paper::names() {
            let truth = Truth::parse(&format!("{shape}:{name}")).expect("a machine");
            if !truth.spec().contains(&only) {
                continue;
            }
            let reference = truth_rows(&truth);
            let (mut f, mut a) = ([0.0; 3], [0.0; 4]);
            for seed in 1..=seeds {
                let (full, per_placement) = measure(&truth, seed, None, None, dir.path());
                let budget = third.then_some(per_placement.as_slice());
                let (adapt, _) = measure(&truth, seed, Some(adaptive), budget, dir.path());
                let full_rows = model_rows(&full.model, &truth);
                let adapt_rows = model_rows(&adapt.model, &truth);
                f[0] += full.seconds;
                f[1] += full.points as f64;
                f[2] += mape(&reference, &full_rows);
                a[0] += adapt.seconds;
                a[1] += adapt.points as f64;
                a[2] += mape(&reference, &adapt_rows);
                a[3] += mape(&full_rows, &adapt_rows);
            }
            let k = seeds as f64;
            let (f, a) = (f.map(|x| x / k), a.map(|x| x / k));
            let time_ratio = a[0] / f[0];
            let mape_ratio = a[2] / f[2];
            let ok = time_ratio <= 1.0 / 3.0 && mape_ratio <= 1.10;
            total += 1;
            met += usize::from(ok);
            if worst.as_ref().is_none_or(|(_, r)| mape_ratio > *r) {
                worst = Some((truth.spec(), mape_ratio));
            }
            println!(
                "{:<24} {:>8.0} {:>5.1} {:>8.3} | {:>8.0} {:>5.1} {:>8.3} {:>8.3} | {:>6.2} {:>6.2} {:>5}",
                truth.spec(),
                f[0],
                f[1],
                f[2],
                a[0],
                a[1],
                a[2],
                a[3],
                time_ratio,
                mape_ratio,
                if ok { "met" } else { "MISSED" }
            );
        }
    }
    let (name, ratio) = worst.expect("machines");
    println!(
        "goal met on {met} of {total} machines; worst MAPE ratio (adaptive / full, against the \
         truth): {name}, {ratio:.2}"
    );
}
