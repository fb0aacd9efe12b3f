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
//! `--budget` a third of that placement's full sweep, unless `no-budget`): the adaptive MAPE
//! against the truth at most 10 % (relative) above the full sweep's, in at most a third of its
//! time.
//!
//! `ADAPTIVE_BENCH_MODE=oracle` asks instead whether that goal can be reached at all by any
//! choice of core counts. The oracle knows the truth: from each full sweep's traces it keeps a
//! third of the core counts (the same ones for both placements; a point's draws depend only
//! on the seed, the placement and the core count, so these are exactly the points an adaptive
//! sweep choosing them would have measured), calibrates them as above, and compares their MAPE
//! against the truth with the full sweep's. Its designs:
//! - `even`: evenly spaced, the ends included;
//! - `bracket`: the ends and both sides of every true breakpoint (`N_par^max`, `N_par^max +
//!   1`, `N_seq^max`, `N_seq^max + 1` of each side), then evenly spread points;
//! - `search`: greedy forward selection from the ends, each step adding the core count that
//!   most lowers the mean MAPE against the truth over seeds 1 and 2 (`train`, in sample: the
//!   best this search finds knowing the noise too, a bound no sweep can reach, shown as
//!   `in-s` and deciding nothing), then the same core counts on the other seeds (`held`,
//!   when there are more than two).
//!
//! The verdict takes the best of `even`, `bracket` and `held` against the full sweep on the
//! same seeds: what a sweep that knew the truth, but not the noise of the points it has not
//! measured yet, could reach.
//! It also splits the full sweep's error: the same sweeps drawn without the per-run jitter
//! (`Noise { jitter: 0.0, ..TYPICAL }`, the level each phase's run is off by, which does not
//! average down within a phase). Its `time` column is the oracle's points' share of the full
//! sweep's measuring time (the points do not all take equally long).
//!
//! Seconds of simulated measuring time, not of this program: the simulation takes seconds
//! (the oracle's search refits the model a few thousand times per machine: minutes).

use contention::calibrate::{self, Method, Options};
use contention::dataset::Input;
use contention::io::trace_file;
use contention::measure::adaptive::AdaptiveOptions;
use contention::measure::options::MeasureOptions;
use contention::measure::simulation::{self, SimulateOptions};
use contention::model::{self, Model, Placement};
use contention::mpi::progress::Mode;
use contention::simulate::{Noise, Truth};
use contention::trace::{TidyRow, Trace};
use std::path::Path;
use std::sync::atomic::AtomicBool;

/// Measures both sample placements of `truth` with `noise`, each with a full sweep or with
/// `adaptive` (whose budget, when `full` gives each placement's full sweep time, is a third
/// of it): the traces.
fn measure(
    truth: &Truth,
    seed: u64,
    noise: Noise,
    adaptive: Option<AdaptiveOptions>,
    full: Option<&[f64]>,
    dir: &Path,
) -> Vec<Trace> {
    let m = truth.machine().numa_per_socket;
    let stop = AtomicBool::new(false);
    let sim = SimulateOptions {
        machine: truth.clone(),
        seed,
        noise,
        between: contention::simulate::RunNoise::REAL_16_CORE,
    };
    let nodes: Vec<u32> = if truth.model().remote.is_some() {
        vec![0, m]
    } else {
        vec![0]
    };
    nodes
        .iter()
        .enumerate()
        .map(|(i, &node)| {
            let out = dir.join(format!(
                "{}-{node}-{seed}-{}.json",
                truth.spec().replace(':', "-"),
                adaptive.is_some()
            ));
            let adaptive = adaptive.map(|a| AdaptiveOptions {
                budget: full.map(|f| std::time::Duration::from_secs_f64(f[i] / 3.0)),
                ..a
            });
            let o = MeasureOptions {
                comp_numa: node,
                comm_numa: node,
                output: Some(out.clone()),
                force: true,
                adaptive,
                ..MeasureOptions::default()
            };
            simulation::run(&o, &sim, Mode::Quiet, false, &stop).expect("simulated");
            trace_file::read(&out).expect("its trace")
        })
        .collect()
}

/// The global fit of both placements' traces, as `calibrate` does it.
fn fit(truth: &Truth, traces: &[Trace]) -> Model {
    try_fit(truth, traces).expect("calibrated")
}

/// [`fit`], or `None` when the points cannot be fitted (too few on a piece).
fn try_fit(truth: &Truth, traces: &[Trace]) -> Option<Model> {
    let inputs: Vec<Input> = traces
        .iter()
        .map(|t| Input::from_trace(t, "simulated").expect("a valid trace"))
        .collect();
    let machine = truth.machine();
    let opts = Options {
        numa_per_socket: Some(machine.numa_per_socket),
        numa_nodes: Some(machine.numa_nodes),
        cores_per_socket: Some(machine.cores_per_socket),
        local_only: truth.model().remote.is_none(),
        method: Method::Fit,
        ..Options::default()
    };
    calibrate::calibrate(&inputs, &opts).ok().map(|c| c.0.model)
}

/// Simulated measuring time of the traces, seconds, one per trace.
fn seconds(traces: &[Trace]) -> Vec<f64> {
    traces
        .iter()
        .filter_map(|t| t.simulation.as_ref())
        .map(|s| s.measuring_seconds)
        .collect()
}

fn points(traces: &[Trace]) -> usize {
    traces.iter().map(|t| t.points.len()).sum()
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
    let machines: Vec<Truth> = ["paper", "realistic"]
        .iter()
        .flat_map(|shape| {
            contention::model::paper::names()
                .into_iter()
                .map(move |name| Truth::parse(&format!("{shape}:{name}")).expect("a machine"))
        })
        .filter(|t| t.spec().contains(&only))
        .collect();
    let dir = tempfile::tempdir().expect("scratch directory");
    if std::env::var("ADAPTIVE_BENCH_MODE").is_ok_and(|m| m == "oracle") {
        oracle(&machines, seeds, dir.path());
    } else {
        let adaptive = AdaptiveOptions {
            precision: precision / 100.0,
            budget: None,
            design: &contention::design::adaptive::ADAPTIVE,
        };
        compare(&machines, seeds, adaptive, third, dir.path());
    }
}

/// The full sweep against `adaptive`, machine by machine.
fn compare(machines: &[Truth], seeds: u64, adaptive: AdaptiveOptions, third: bool, dir: &Path) {
    println!(
        "{seeds} seed(s), --precision {}; times are simulated measuring time (both sample \
         placements), MAPE over every placement's four bandwidths at every core count",
        100.0 * adaptive.precision
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
    for truth in machines {
        let reference = truth_rows(truth);
        let (mut f, mut a) = ([0.0; 3], [0.0; 4]);
        for seed in 1..=seeds {
            let full = measure(truth, seed, Noise::TYPICAL, None, None, dir);
            let per_placement = seconds(&full);
            let budget = third.then_some(per_placement.as_slice());
            let adapt = measure(truth, seed, Noise::TYPICAL, Some(adaptive), budget, dir);
            let full_rows = model_rows(&fit(truth, &full), truth);
            let adapt_rows = model_rows(&fit(truth, &adapt), truth);
            f[0] += per_placement.iter().sum::<f64>();
            f[1] += points(&full) as f64;
            f[2] += mape(&reference, &full_rows);
            a[0] += seconds(&adapt).iter().sum::<f64>();
            a[1] += points(&adapt) as f64;
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
    let (name, ratio) = worst.expect("machines");
    println!(
        "goal met on {met} of {total} machines; worst MAPE ratio (adaptive / full, against the \
         truth): {name}, {ratio:.2}"
    );
}

/// The traces with only the points at `cores`, as if only those had been asked.
fn keep(traces: &[Trace], cores: &[u32]) -> Vec<Trace> {
    traces
        .iter()
        .map(|t| {
            let mut t = t.clone();
            t.points.retain(|p| cores.contains(&p.cores));
            t.config.cores = cores.to_vec();
            t.adaptive = None;
            t
        })
        .collect()
}

/// Each point's share of its trace's measuring time: its last sample's end (a point's phases
/// share one clock), scaled so that a trace's shares add up to its measuring time.
fn costs(t: &Trace) -> Vec<(u32, f64)> {
    let ends: Vec<f64> = t
        .points
        .iter()
        .map(|p| {
            p.phases()
                .iter()
                .flat_map(|ph| ph.samples.iter().map(|s| s.end))
                .fold(0.0, f64::max)
        })
        .collect();
    let total: f64 = ends.iter().sum();
    let measured = t.simulation.as_ref().map_or(total, |s| s.measuring_seconds);
    t.points
        .iter()
        .zip(ends)
        .map(|(p, e)| (p.cores, e * measured / total.max(f64::MIN_POSITIVE)))
        .collect()
}

/// The share of the traces' measuring time their points at `cores` took.
fn time_share(traces: &[Trace], cores: &[u32]) -> f64 {
    let all: Vec<(u32, f64)> = traces.iter().flat_map(costs).collect();
    let kept: f64 = all
        .iter()
        .filter(|(n, _)| cores.contains(n))
        .map(|(_, c)| c)
        .sum();
    kept / all.iter().map(|(_, c)| c).sum::<f64>()
}

/// Adds core counts to `chosen` until it holds `k`, each time the one farthest from those
/// chosen (spreading the rest evenly).
fn fill(mut chosen: Vec<u32>, cps: u32, k: usize) -> Vec<u32> {
    while chosen.len() < k.min(cps as usize) {
        let gap = |n: u32| {
            chosen
                .iter()
                .map(|&c| c.abs_diff(n))
                .min()
                .unwrap_or(u32::MAX)
        };
        let next = (1..=cps)
            .filter(|n| !chosen.contains(n))
            .max_by_key(|&n| gap(n))
            .expect("a core count left");
        chosen.push(next);
    }
    chosen.sort_unstable();
    chosen
}

/// The ends and both sides of each true breakpoint, then evenly spread points: `k` in all.
fn bracket(truth: &Truth, k: usize) -> Vec<u32> {
    let cps = truth.machine().cores_per_socket;
    let model = truth.model();
    let mut chosen = vec![1, cps];
    for p in std::iter::once(&model.local).chain(model.remote.as_ref()) {
        for b in [p.n_par_max, p.n_seq_max] {
            for n in [b, b + 1] {
                if (1..=cps).contains(&n) && !chosen.contains(&n) && chosen.len() < k {
                    chosen.push(n);
                }
            }
        }
    }
    fill(chosen, cps, k)
}

/// Greedy forward selection from the ends: `k` core counts, each added because it most
/// lowered the mean MAPE against the truth of the subsets of `sweeps` (the oracle's search).
fn search(truth: &Truth, sweeps: &[Vec<Trace>], reference: &[TidyRow], k: usize) -> Vec<u32> {
    let cps = truth.machine().cores_per_socket;
    // A subset the fit cannot take scores worst.
    let score = |cores: &[u32]| {
        sweeps
            .iter()
            .map(|s| {
                try_fit(truth, &keep(s, cores))
                    .map_or(f64::INFINITY, |m| mape(reference, &model_rows(&m, truth)))
            })
            .sum::<f64>()
    };
    let mut chosen = vec![1, cps];
    while chosen.len() < k {
        let best = (2..cps)
            .filter(|n| !chosen.contains(n))
            .map(|n| {
                let mut c = chosen.clone();
                c.push(n);
                c.sort_unstable();
                (n, score(&c))
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .expect("a core count left");
        chosen.push(best.0);
        chosen.sort_unstable();
    }
    chosen
}

/// Whether any choice of a third of the core counts reaches the goal, machine by machine.
fn oracle(machines: &[Truth], seeds: u64, dir: &Path) {
    println!(
        "oracle: {seeds} seed(s); a third of the full sweep's core counts chosen knowing the \
         truth; MAPE % against the truth over every placement's four bandwidths at every core \
         count; ratio = the best design that does not know the noise (even, bracket, held) / \
         the full sweep on the same seeds; in-s = the search on the seeds it was chosen on / \
         the full sweep there (knowing the noise too: a bound no sweep reaches)"
    );
    println!(
        "{:<24} {:>4} {:>7} {:>7} | {:>7} {:>7} {:>7} {:>7} | {:>5} {:>5} | {:>5} {:>5} {:>5}",
        "machine",
        "pts",
        "full",
        "no jit",
        "even",
        "bracket",
        "train",
        "held",
        "ratio",
        "in-s",
        "time",
        "jit%",
        "goal"
    );
    let no_jitter = Noise {
        jitter: 0.0,
        ..Noise::TYPICAL
    };
    let mut reachable = 0;
    for truth in machines {
        let reference = truth_rows(truth);
        let cps = truth.machine().cores_per_socket;
        let k = (cps / 3).max(2) as usize;
        let full: Vec<Vec<Trace>> = (1..=seeds)
            .map(|s| measure(truth, s, Noise::TYPICAL, None, None, dir))
            .collect();
        let error = |cores: &[u32], seeds: &[Vec<Trace>]| {
            seeds
                .iter()
                .map(|s| mape(&reference, &model_rows(&fit(truth, &keep(s, cores)), truth)))
                .sum::<f64>()
                / seeds.len() as f64
        };
        let all: Vec<u32> = (1..=cps).collect();
        let full_mape = error(&all, &full);
        let (train, held) = full.split_at(full.len().min(2));
        let quiet: f64 = (1..=seeds)
            .map(|s| {
                let t = measure(truth, s, no_jitter, None, None, dir);
                mape(&reference, &model_rows(&fit(truth, &t), truth))
            })
            .sum::<f64>()
            / seeds as f64;
        let even_cores = contention::design::adaptive::evenly_spaced(cps, k as u32);
        let bracket_cores = bracket(truth, k);
        let searched = search(truth, train, &reference, k);
        let designs = [
            error(&even_cores, &full),
            error(&bracket_cores, &full),
            error(&searched, train),
            if held.is_empty() {
                f64::NAN
            } else {
                error(&searched, held)
            },
        ];
        // Each design against the full sweep on the same seeds. The search scored on the
        // seeds it was chosen on has fitted their noise: no sweep can choose that way, so it
        // is shown apart and decides nothing.
        let against = [
            full_mape,
            full_mape,
            error(&all, train),
            if held.is_empty() {
                f64::NAN
            } else {
                error(&all, held)
            },
        ];
        let ratios: Vec<f64> = designs.iter().zip(against).map(|(d, f)| d / f).collect();
        let in_sample = ratios[2];
        let ratio = [ratios[0], ratios[1], ratios[3]]
            .into_iter()
            .filter(|r| r.is_finite())
            .fold(f64::INFINITY, f64::min);
        let time = full.iter().map(|s| time_share(s, &searched)).sum::<f64>() / seeds as f64;
        let ok = ratio <= 1.10;
        reachable += usize::from(ok);
        println!(
            "{:<24} {:>4} {:>7.3} {:>7.3} | {:>7.3} {:>7.3} {:>7.3} {:>7.3} | {:>5.2} {:>5.2} | {:>5.2} {:>5.0} {:>5}",
            truth.spec(),
            k,
            full_mape,
            quiet,
            designs[0],
            designs[1],
            designs[2],
            designs[3],
            ratio,
            in_sample,
            time,
            100.0 * (1.0 - quiet / full_mape),
            if ok { "met" } else { "MISSED" }
        );
        println!(
            "  {:<22} even {:?}; bracket {:?}; search {:?}",
            "", even_cores, bracket_cores, searched
        );
    }
    println!(
        "an oracle that knows the truth but not the noise reaches the goal's MAPE (at most 1.10 \
         x the full sweep's) on {reachable} of {} machines; time = the searched points' share \
         of the full sweep's measuring time; jit% = the share of the full sweep's MAPE that goes away without the per-run \
         jitter",
        machines.len()
    );
}
