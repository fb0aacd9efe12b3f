//! Repeated runs of a sweep (`measure --runs R`): the order each run measures its core
//! counts in, which run a launch measures, and the points that combine the runs.
//!
//! Why runs: a phase's interval within one run (batch medians, `sweep::sampling`) says how
//! well that run knows its median, not where another run's median will be. What varies
//! between runs (where the pages land, which thread the scheduler favours, a neighbour) is
//! fixed for the length of one MPI launch, so a second run of the same command differed by
//! 3-29 % per phase median on a real 16-core node and by 11-62 % on a shared 2-core machine,
//! far beyond the within-run intervals. Repeating at the level where the variance lives and
//! reporting intervals from that level is the benchmarking literature's first lesson
//! (Kalibera and Jones, "Rigorous Benchmarking in Reasonable Time", ISMM 2013; Hoefler and
//! Belli, "Scientific Benchmarking of Parallel Computing Systems", SC15, rule 5).
//!
//! Each run measures the core counts in an order of its own, shuffled by a seeded ChaCha8
//! stream (`order`) and recorded in the trace, so that a drift over the campaign's time
//! does not pass for an effect of the core count. A trace of one run keeps the ascending
//! order and its old layout.

use crate::simulate::Rng;
use crate::stats;
use crate::trace::{Phase, Run, Trace, TracePoint};
use std::collections::BTreeMap;

/// Runs when `--runs` is not given: three, so that every `+-` the tool prints holds another
/// run's median. On a real 16-core node a phase's interval within one run held another
/// run's median in 22 % of pairs (the launch moves a phase by 3-29 %, far beyond the
/// run's own interval), the interval from three runs in 91 % at a median half-width of 20 %
/// (`crate::stats::run_interval95`: two runs give 12.7 times their spread, three 4.3);
/// three runs of the default sweep took 151 s there.
pub const DEFAULT_RUNS: u32 = 3;
/// The runs the plan suggests for an interval that holds another run: see
/// [`crate::stats::run_interval95`] for its width against the number of runs.
pub(crate) const RECOMMENDED_RUNS: u32 = DEFAULT_RUNS;
/// The most runs one trace may ask for, the trace's own bound (there, with why).
pub use crate::trace::MAX_RUNS;

/// The last word of the key of the runs' orders: apart from the simulated phases' keys (1)
/// and those of [`Rng::new`] (0), so no order shares draws with a simulated phase.
const ORDER_KEY: u64 = 2;

/// The order run `run` (from 0) measures `cores` in: a Fisher-Yates shuffle (Knuth, TAOCP
/// vol. 2, algorithm 3.4.2 P) by stream `run` of the key of `seed`, the same on every machine.
pub(crate) fn order(cores: &[u32], seed: u64, run: u32) -> Vec<u32> {
    let mut rng = Rng::keyed([seed, 0, 0, ORDER_KEY], u64::from(run));
    let mut v = cores.to_vec();
    for i in (1..v.len()).rev() {
        let j = ((rng.unit() * (i + 1) as f64) as usize).min(i);
        v.swap(i, j);
    }
    v
}

/// The core counts of `run` still to measure, in its order.
pub fn todo(run: &Run) -> Vec<u32> {
    let measured: std::collections::HashSet<u32> = run.points.iter().map(|p| p.cores).collect();
    run.order
        .iter()
        .copied()
        .filter(|n| !measured.contains(n))
        .collect()
}

/// Whether a launch of `trace` measures into its runs: when it asks for several, or already
/// holds runs (a trace whose `config.runs` was edited down to 1: measured into `points`, its
/// new points were dropped at the next save, which combines the runs).
pub fn of_runs(trace: &Trace) -> bool {
    trace.config.runs > 1 || !trace.runs.is_empty()
}

/// The index of the run a launch of `trace` measures: the first run with core counts left,
/// else a new run (started at `now`, its order from `seed`) while fewer than
/// `config.runs` exist; `None` when every run is complete. A one-run trace with points
/// (measured before `--runs`, or by `--runs 1`) becomes the first run, in the ascending
/// order it was measured in.
pub fn current(trace: &mut Trace, seed: u64, now: &str) -> Option<usize> {
    let cores = trace.config.cores.clone();
    if trace.runs.is_empty() && !trace.points.is_empty() {
        let first = Run {
            order: cores.clone(),
            seed,
            started_at: trace.started_at.clone(),
            points: std::mem::take(&mut trace.points),
        };
        trace.runs.push(first);
    }
    for (i, r) in trace.runs.iter_mut().enumerate() {
        // Core counts added on resume join each unfinished run at its end (linear: an
        // edited trace may hold millions of counts).
        let ordered: std::collections::HashSet<u32> = r.order.iter().copied().collect();
        r.order
            .extend(cores.iter().copied().filter(|n| !ordered.contains(n)));
        if !todo(r).is_empty() {
            return Some(i);
        }
    }
    let next = trace.runs.len();
    if next >= trace.config.runs as usize {
        return None;
    }
    trace.runs.push(Run {
        order: order(&cores, seed, next as u32),
        seed,
        started_at: now.to_string(),
        points: Vec::new(),
    });
    Some(next)
}

/// Whether `--resume` of `trace` has nothing to measure: every core count of `cores` in each
/// of the `runs` runs asked for (a one-run trace's points are its first run). Said before
/// anything is launched, the trace left as it is.
pub fn nothing_left(trace: &Trace, cores: &[u32], runs: u32) -> bool {
    let runs = runs.max(trace.config.runs).max(1) as usize;
    let points = trace.run_points();
    let measured = if trace.runs.is_empty() && trace.points.is_empty() {
        0
    } else {
        points.len()
    };
    measured >= runs
        && points.iter().all(|p| {
            let have: std::collections::HashSet<u32> = p.iter().map(|p| p.cores).collect();
            cores.iter().all(|n| have.contains(n))
        })
}

/// Whether every run of `trace` asked for is there and complete (a trace of runs).
pub fn complete(trace: &Trace) -> bool {
    trace.runs.len() >= trace.config.runs as usize && trace.finished_runs() == trace.runs.len()
}

/// The points of a trace of runs: per core count measured in any run, each phase's median
/// the median of the runs' medians, its summary that of the runs' medians (`count`: the
/// runs), its interval the one another run's median falls in
/// (`stats::run_interval95`; none from a single run), unstable when a run's was. Samples
/// stay in the runs.
pub fn combine(runs: &[Run]) -> Vec<TracePoint> {
    let mut by_cores: BTreeMap<u32, Vec<&TracePoint>> = BTreeMap::new();
    for p in runs.iter().flat_map(|r| &r.points) {
        by_cores.entry(p.cores).or_default().push(p);
    }
    by_cores
        .into_iter()
        .map(|(cores, points)| {
            let phase = |q: usize| {
                let phases: Vec<&Phase> = points.iter().map(|p| p.phases()[q]).collect();
                let medians: Vec<f64> = phases.iter().map(|ph| ph.summary.median).collect();
                Phase {
                    summary: stats::summarize(&medians),
                    sampling: format!(
                        "{} run(s): the median of their medians; the interval holds another \
                         run's median (95 %)",
                        medians.len()
                    ),
                    samples: Vec::new(),
                    ci95: stats::run_interval95(&medians),
                    unstable: phases.iter().any(|ph| ph.unstable),
                }
            };
            TracePoint {
                cores,
                comp_alone: phase(0),
                comm_alone: phase(1),
                comp_parallel: phase(2),
                comm_parallel: phase(3),
                ran_on: Vec::new(),
            }
        })
        .collect()
}

/// The plan's `runs` line (`--dry-run`): how many runs, what they cost in all (`sweep` and
/// `touch`: one run's seconds of measuring and of touching its buffers, at most), and what a
/// phase's `+-` will mean. `launched`: each run is an MPI job of its own (else one process
/// runs them in turn, as `measure --engine gpu` does).
pub fn plan_line(runs: u32, sweep: f64, touch: f64, launched: bool) -> String {
    if runs <= 1 {
        format!(
            "runs        1: each phase's +- is within this run only; --runs \
             {RECOMMENDED_RUNS} gives where another run's median falls, for \
             {RECOMMENDED_RUNS}x the time\n"
        )
    } else {
        let r = f64::from(runs);
        format!(
            "runs        {runs}, each {} with the core counts shuffled \
             (--seed): at most {:.0} s in all (+{:.0} s to touch the buffers), {runs}x one \
             sweep; each phase's +- is where another run's median falls (95 %)\n",
            if launched {
                "a separate launch"
            } else {
                "a sweep of its own, one after the other in this process,"
            },
            r * sweep,
            r * touch
        )
    }
}

/// The line that starts run `run` (from 0) of `runs`: the core counts it has left in the
/// order it measures them, and the seed of that order.
pub fn start_line(run: usize, runs: u32, todo: &[u32], seed: u64) -> String {
    let order: Vec<String> = todo.iter().map(u32::to_string).collect();
    format!(
        "run {} of {runs}, core counts in the order {} (seed {seed})",
        run + 1,
        order.join(",")
    )
}

/// What the `+-` of the lines of each point of a run means, said before them.
pub fn point_scope(runs: u32) -> String {
    if runs <= 1 {
        interval_scope(1)
    } else {
        "+- on each point of a run: within that run; across the runs in the lines after it".into()
    }
}

/// What a phase's `+-` in the log means: within the run only for one run, across them for
/// several.
pub fn interval_scope(runs: u32) -> String {
    if runs <= 1 {
        "+-: 95 % interval within this run only; another run may differ by more (--runs 3 \
         gives intervals across runs)"
            .into()
    } else {
        format!("+-: where another run's median falls (95 %), from the {runs} runs' medians")
    }
}

#[cfg(test)]
mod tests {
    use crate::runs::*;
    use crate::trace::Summary;

    fn point(cores: u32, median: f64) -> TracePoint {
        let phase = Phase {
            summary: Summary {
                median,
                mean: median,
                stddev: 0.0,
                min: median,
                max: median,
                count: 1,
            },
            sampling: String::new(),
            samples: Vec::new(),
            ci95: Some((median * 0.999, median * 1.001)),
            unstable: false,
        };
        TracePoint {
            cores,
            comp_alone: phase.clone(),
            comm_alone: phase.clone(),
            comp_parallel: phase.clone(),
            comm_parallel: phase,
            ran_on: Vec::new(),
        }
    }

    #[test]
    fn each_run_shuffles_the_core_counts_its_own_way_and_a_seed_draws_the_same_orders() {
        let cores: Vec<u32> = (1..=16).collect();
        let orders: Vec<Vec<u32>> = (0..5).map(|r| order(&cores, 7, r)).collect();
        for o in &orders {
            let mut sorted = o.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, cores, "a permutation: {o:?}");
        }
        assert!(orders.windows(2).all(|w| w[0] != w[1]), "{orders:?}");
        assert!(orders.iter().all(|o| *o != cores), "{orders:?}");
        assert_eq!(order(&cores, 7, 3), orders[3]);
        assert_ne!(order(&cores, 8, 3), orders[3]);
    }

    #[test]
    fn runs_combine_into_medians_of_medians_with_the_interval_of_another_run() {
        let runs: Vec<Run> = [1000.0, 1100.0, 900.0]
            .iter()
            .map(|&m| Run {
                order: vec![2, 1],
                seed: 1,
                started_at: String::new(),
                points: vec![point(1, m), point(2, 2.0 * m)],
            })
            .collect();
        let c = combine(&runs);
        assert_eq!(c.len(), 2);
        let ph = &c[0].comp_alone;
        assert_eq!((ph.summary.median, ph.summary.count), (1000.0, 3));
        let (lo, hi) = ph.ci95.unwrap();
        // Three runs 10 % apart: the interval is far wider than any run's own +-0.1 %, and
        // holds each of them.
        assert!(lo < 900.0 && hi > 1100.0, "{lo} {hi}");
        assert!(hi / lo > 1.5, "{lo} {hi}");
        assert!(ph.samples.is_empty());
        // One run alone has no interval across runs.
        assert_eq!(combine(&runs[..1])[0].comp_alone.ci95, None);
    }
}
