//! From raw iteration timings to the steady-state samples of a phase (section 4.1.1: "we skip
//! performances of first and last iterations of each core, to get rid of the performance when
//! not exactly all cores are computing").
//!
//! Pure functions, so the windowing rules are tested without threads or MPI.

use crate::stats;
use crate::trace::{Phase, Sample};

/// One timed iteration of one thread: a computing sample (the chunks of its buffer written
/// since the last one, see [`crate::measure::sweep::sizing`]) or one message.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    /// Start and end, seconds on the point's clock.
    pub(crate) start: f64,
    pub end: f64,
    /// Bytes moved in between.
    pub(crate) bytes: u64,
}

/// The iterations of one thread, in order.
pub(crate) type Timings = Vec<Span>;

/// Fewer rounds than this never count as stable: the trace's rule (there, with why).
pub(crate) use crate::trace::MIN_ROUNDS;

/// A phase whose running streams still hold fewer than [`MIN_ROUNDS`] rounds at `--max-phase`
/// goes on, up to this many times `--max-phase`, until each holds them. Computing samples are
/// sized to give about [`crate::measure::sweep::sizing::TARGET_ROUNDS`] rounds within `--max-phase` whatever
/// the machine, but one message is one sample: 64 MiB messages at 1.3 GB/s fill only 30 in
/// 1.5 s, and at 2 cores shared with the sender they got 19. Four times the limit holds 30
/// messages down to a quarter of the bandwidth `--max-phase` needs, which the plan prints;
/// below that the phase ends at the cap, unstable, and says so.
pub(crate) const PHASE_STRETCH: u32 = 4;

/// The steady window of one stream: from the moment every thread has finished its first
/// iteration to the moment the first thread starts its last one. `None` while some thread has
/// fewer than three iterations (nothing would be left after dropping first and last).
pub(crate) fn steady_window(threads: &[Timings]) -> Option<(f64, f64)> {
    if threads.is_empty() || threads.iter().any(|t| t.len() < 3) {
        return None;
    }
    let start = threads.iter().map(|t| t[0].end).fold(f64::MIN, f64::max);
    let end = threads
        .iter()
        .map(|t| t[t.len() - 1].start)
        .fold(f64::MAX, f64::min);
    (start < end).then_some((start, end))
}

/// Intersection of two windows (computations and communications in parallel are counted only
/// while both run).
pub(crate) fn overlap(a: (f64, f64), b: (f64, f64)) -> Option<(f64, f64)> {
    let (s, e) = (a.0.max(b.0), a.1.min(b.1));
    (s < e).then_some((s, e))
}

/// The iterations lying entirely inside `window`, as samples.
pub(crate) fn samples_in(threads: &[Timings], window: (f64, f64)) -> Vec<Sample> {
    threads
        .iter()
        .enumerate()
        .flat_map(|(i, t)| {
            t.iter()
                .filter(move |s| s.start >= window.0 && s.end <= window.1 && s.end > s.start)
                .map(move |s| Sample {
                    thread: i as u32,
                    start: s.start,
                    end: s.end,
                    mbps: s.bytes as f64 / (s.end - s.start) / 1e6,
                })
        })
        .collect()
}

/// Bandwidth of the whole stream per round: the k-th kept iteration of every thread summed,
/// for as many rounds as the thread with the fewest kept iterations has. With weak scaling
/// every thread does the same work, so a round is one "everybody wrote once" step.
pub(crate) fn rounds(samples: &[Sample], threads: usize) -> Vec<f64> {
    let mut per: Vec<Vec<f64>> = vec![Vec::new(); threads];
    for s in samples {
        if let Some(v) = per.get_mut(s.thread as usize) {
            v.push(s.mbps);
        }
    }
    let n = per.iter().map(Vec::len).min().unwrap_or(0);
    (0..n).map(|k| per.iter().map(|v| v[k]).sum()).collect()
}

/// 95% confidence interval of the median of `rounds` ([`stats::batch_median_interval`]):
/// `None` below [`MIN_ROUNDS`] rounds.
pub(crate) fn median_interval(rounds: &[f64]) -> Option<(f64, f64)> {
    stats::batch_median_interval(rounds, MIN_ROUNDS)
}

/// Half-width of [`median_interval`] relative to the median.
pub(crate) fn relative_half_width(rounds: &[f64]) -> Option<f64> {
    let (lo, hi) = median_interval(rounds)?;
    let m = stats::median(rounds)?;
    (m > 0.0).then(|| (hi - lo) / 2.0 / m)
}

/// Whether a stream's estimate is good enough to stop: at least [`MIN_ROUNDS`] rounds and
/// the median's 95% interval ([`median_interval`]) within `tolerance` (relative half-width).
pub(crate) fn is_stable(rounds: &[f64], tolerance: f64) -> bool {
    rounds.len() >= MIN_ROUNDS && relative_half_width(rounds).is_some_and(|r| r <= tolerance)
}

/// The phase record: summary of the rounds, their interval, the kept samples, how it was
/// sampled, and whether it met the stopping rule of `tolerance` (else it is flagged
/// unstable, whatever the reason it stopped).
pub(crate) fn phase(
    samples: Vec<Sample>,
    threads: usize,
    sampling: String,
    tolerance: f64,
) -> Phase {
    let r = rounds(&samples, threads);
    Phase {
        summary: stats::summarize(&r),
        ci95: median_interval(&r),
        unstable: !is_stable(&r, tolerance),
        sampling,
        samples,
    }
}

/// A sentence for the trace: the window, what was kept (rounds of `lanes.0` threads, or GPUs
/// as `lanes.1` says) and why sampling stopped.
pub(crate) fn describe(
    window: (f64, f64),
    rounds: &[f64],
    lanes: (usize, &str),
    dropped: usize,
    stop: &str,
) -> String {
    let ci = relative_half_width(rounds).map_or(
        format!("fewer than {MIN_ROUNDS} rounds: no 95% interval, unstable"),
        |r| format!("median 95% CI +-{:.2}% (batch medians)", 100.0 * r),
    );
    format!(
        "steady window {:.3}..{:.3} s ({:.3} s); {} rounds of {} {} kept, {} \
         iterations outside the window dropped; {}; stopped: {}",
        window.0,
        window.1,
        window.1 - window.0,
        rounds.len(),
        lanes.0,
        lanes.1,
        dropped,
        ci,
        stop
    )
}

#[cfg(test)]
mod tests {
    use crate::measure::sweep::sampling::*;

    fn uniform(start: f64, dt: f64, n: usize) -> Timings {
        (0..n)
            .map(|i| Span {
                start: start + i as f64 * dt,
                end: start + (i + 1) as f64 * dt,
                bytes: 1_000_000,
            })
            .collect()
    }

    #[test]
    fn window_drops_first_and_last_iterations_of_every_thread() {
        let a = uniform(0.0, 1.0, 5); // 0..5
        let b = uniform(0.5, 1.0, 5); // 0.5..5.5
        let w = steady_window(&[a.clone(), b.clone()]).unwrap();
        assert_eq!(w, (1.5, 4.0));
        let s = samples_in(&[a, b], w);
        // a: [2,3],[3,4]; b: [1.5,2.5],[2.5,3.5]
        assert_eq!(s.len(), 4);
        assert!(s.iter().all(|x| x.start >= 1.5 && x.end <= 4.0));
        assert!(s.iter().all(|x| (x.mbps - 1.0).abs() < 1e-12));
        assert_eq!(rounds(&s, 2), vec![2.0, 2.0]);
    }

    #[test]
    fn too_few_iterations_give_no_window() {
        assert_eq!(steady_window(&[uniform(0.0, 1.0, 2)]), None);
        assert_eq!(steady_window(&[]), None);
        assert_eq!(overlap((0.0, 1.0), (2.0, 3.0)), None);
        assert_eq!(overlap((0.0, 2.0), (1.0, 3.0)), Some((1.0, 2.0)));
    }

    #[test]
    fn stability_needs_enough_tight_rounds() {
        assert!(!is_stable(&[100.0; MIN_ROUNDS - 1], 0.01));
        assert!(is_stable(&[100.0; MIN_ROUNDS], 0.01));
        let noisy: Vec<f64> = (0..2 * MIN_ROUNDS)
            .map(|i| if i % 2 == 0 { 80.0 } else { 120.0 })
            .collect();
        assert!(!is_stable(&noisy, 0.01));
    }

    #[test]
    fn correlated_rounds_widen_the_interval() {
        // The same 32 values, once shuffled (independent-looking), once as four slow then
        // fast runs of 8 (correlated): batch medians must widen the second interval.
        let slow_fast = |i: usize| {
            if (i / 4).is_multiple_of(2) {
                98.0
            } else {
                102.0
            }
        };
        let interleaved: Vec<f64> = (0..32).map(|i| slow_fast(i * 4 % 32 + i / 8)).collect();
        let runs: Vec<f64> = (0..32).map(|i| slow_fast(i / 2)).collect();
        let mut a = interleaved.clone();
        let mut b = runs.clone();
        a.sort_by(f64::total_cmp);
        b.sort_by(f64::total_cmp);
        assert_eq!(a, b, "same values");
        let wi = relative_half_width(&interleaved).unwrap();
        let wr = relative_half_width(&runs).unwrap();
        assert!(wr > wi, "runs {wr} vs interleaved {wi}");
        let (lo, hi) = median_interval(&runs).unwrap();
        assert!(lo < 100.0 && hi > 100.0);
        assert_eq!(median_interval(&[100.0; MIN_ROUNDS - 1]), None);
    }

    #[test]
    fn a_dip_within_one_batch_leaves_the_interval_of_the_median_narrow() {
        // The 12-core computations alone of a real 16-core node (GB/s, in order): a 0.15 s
        // dip of the host in the second batch, around it 156-166.
        let rounds = [
            160.0, 161.0, 163.0, 163.0, 162.0, 163.0, 165.0, 165.0, 112.0, 106.0, 110.0, 103.0,
            156.0, 162.0, 135.0, 161.0, 102.0, 156.0, 166.0, 164.0, 165.0, 163.0, 163.0, 163.0,
            163.0, 164.0, 162.0, 162.0, 163.0, 162.0, 166.0, 162.0, 160.0, 162.0, 161.0, 161.0,
            162.0, 162.0,
        ];
        let w = relative_half_width(&rounds).unwrap();
        assert!(w < 0.03, "{w}");
        // Two slow batches of six are a change of regime, not a dip: wide.
        let mut regime = rounds;
        for r in &mut regime[26..38] {
            *r -= 40.0;
        }
        let w = relative_half_width(&regime).unwrap();
        assert!(w > 0.1, "{w}");
    }

    /// The real 16-core node's trace (`tests/data/real-16core/trace-13cores-shm.json`),
    /// judged again from its samples: how many of its 52 phases meet `target`.
    fn real_trace_meeting(target: f64) -> (usize, usize) {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/data/real-16core/trace-13cores-shm.json"
        );
        let trace: crate::trace::Trace =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut met = 0;
        let mut all = 0;
        for p in &trace.points {
            let phases = [
                (&p.comp_alone, p.cores as usize),
                (&p.comm_alone, 1),
                (&p.comp_parallel, p.cores as usize),
                (&p.comm_parallel, 1),
            ];
            for (ph, threads) in phases {
                all += 1;
                met += usize::from(is_stable(&rounds(&ph.samples, threads), target));
            }
        }
        (met, all)
    }

    #[test]
    fn most_phases_of_the_real_16_core_trace_meet_the_default_target() {
        // Recorded at +-1 %, where 1 phase of 52 met it (none, judged with this interval);
        // at the default +-5 % (and 7.5 and 10 %), judged with this interval: 34, 40 and 44
        // of 52 (with the standard deviation of the batch medians: 21, 32 and 39). What keeps the others out is the host's
        // common swing of every computing thread every 0.4-0.5 s (16-21 GB/s a thread), which
        // a 1.5 s phase sees three times.
        let (met, all) = real_trace_meeting(0.05);
        assert_eq!(all, 52);
        assert!(met >= 30, "{met} of {all}");
        assert!(real_trace_meeting(0.01).0 <= 1);
    }

    #[test]
    fn a_phase_short_of_rounds_is_flagged_unstable() {
        let samples = |n: usize| -> Vec<Sample> {
            (0..n)
                .map(|i| Sample {
                    thread: 0,
                    start: i as f64,
                    end: i as f64 + 1.0,
                    mbps: 100.0,
                })
                .collect()
        };
        let short = phase(samples(MIN_ROUNDS - 1), 1, String::new(), 0.01);
        assert!(short.unstable && short.ci95.is_none());
        let enough = phase(samples(MIN_ROUNDS), 1, String::new(), 0.01);
        assert!(!enough.unstable);
        assert_eq!(enough.ci95, Some((100.0, 100.0)));
    }
}
