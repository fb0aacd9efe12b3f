//! From raw iteration timings to the steady-state samples of a phase (section 4.1.1: "we skip
//! performances of first and last iterations of each core, to get rid of the performance when
//! not exactly all cores are computing").
//!
//! Pure functions, so the windowing rules are tested without threads or MPI.

use crate::stats;
use crate::trace::{Phase, Sample};

/// Start and end of each iteration of one thread, seconds on the point's clock.
pub type Timings = Vec<(f64, f64)>;

/// A phase is sampled until the 95% confidence interval of its median is this tight, or
/// until its time limit; fewer rounds than this never count as stable.
pub const MIN_ROUNDS: usize = 8;

/// The steady window of one stream: from the moment every thread has finished its first
/// iteration to the moment the first thread starts its last one. `None` while some thread has
/// fewer than three iterations (nothing would be left after dropping first and last).
pub fn steady_window(threads: &[Timings]) -> Option<(f64, f64)> {
    if threads.is_empty() || threads.iter().any(|t| t.len() < 3) {
        return None;
    }
    let start = threads.iter().map(|t| t[0].1).fold(f64::MIN, f64::max);
    let end = threads
        .iter()
        .map(|t| t[t.len() - 1].0)
        .fold(f64::MAX, f64::min);
    (start < end).then_some((start, end))
}

/// Intersection of two windows (computations and communications in parallel are counted only
/// while both run).
pub fn overlap(a: (f64, f64), b: (f64, f64)) -> Option<(f64, f64)> {
    let (s, e) = (a.0.max(b.0), a.1.min(b.1));
    (s < e).then_some((s, e))
}

/// The iterations lying entirely inside `window`, as samples of `bytes` each.
pub fn samples_in(threads: &[Timings], bytes: u64, window: (f64, f64)) -> Vec<Sample> {
    threads
        .iter()
        .enumerate()
        .flat_map(|(i, t)| {
            t.iter()
                .filter(move |(s, e)| *s >= window.0 && *e <= window.1 && e > s)
                .map(move |&(start, end)| Sample {
                    thread: i as u32,
                    start,
                    end,
                    mbps: bytes as f64 / (end - start) / 1e6,
                })
        })
        .collect()
}

/// Bandwidth of the whole stream per round: the k-th kept iteration of every thread summed,
/// for as many rounds as the thread with the fewest kept iterations has. With weak scaling
/// every thread does the same work, so a round is one "everybody wrote once" step.
pub fn rounds(samples: &[Sample], threads: usize) -> Vec<f64> {
    let mut per: Vec<Vec<f64>> = vec![Vec::new(); threads];
    for s in samples {
        if let Some(v) = per.get_mut(s.thread as usize) {
            v.push(s.mbps);
        }
    }
    let n = per.iter().map(Vec::len).min().unwrap_or(0);
    (0..n).map(|k| per.iter().map(|v| v[k]).sum()).collect()
}

/// Whether a stream's estimate is good enough to stop: at least [`MIN_ROUNDS`] rounds and
/// the median's 95% interval within `tolerance` (relative half-width).
pub fn is_stable(rounds: &[f64], tolerance: f64) -> bool {
    rounds.len() >= MIN_ROUNDS && stats::relative_ci95(rounds).is_some_and(|r| r <= tolerance)
}

/// The phase record: summary of the rounds, the kept samples, and how it was sampled.
pub fn phase(samples: Vec<Sample>, threads: usize, sampling: String) -> Phase {
    let r = rounds(&samples, threads);
    Phase {
        summary: stats::summarize(&r),
        sampling,
        samples,
    }
}

/// A sentence for the trace: the window, what was kept and why sampling stopped.
pub fn describe(
    window: (f64, f64),
    rounds: &[f64],
    threads: usize,
    dropped: usize,
    stop: &str,
) -> String {
    let ci = stats::relative_ci95(rounds)
        .map_or("too few rounds for a 95% interval".to_string(), |r| {
            format!("median 95% CI +-{:.2}%", 100.0 * r)
        });
    format!(
        "steady window {:.3}..{:.3} s ({:.3} s); {} rounds of {} thread(s) kept, {} \
         iterations outside the window dropped; {}; stopped: {}",
        window.0,
        window.1,
        window.1 - window.0,
        rounds.len(),
        threads,
        dropped,
        ci,
        stop
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uniform(start: f64, dt: f64, n: usize) -> Timings {
        (0..n)
            .map(|i| (start + i as f64 * dt, start + (i + 1) as f64 * dt))
            .collect()
    }

    #[test]
    fn window_drops_first_and_last_iterations_of_every_thread() {
        let a = uniform(0.0, 1.0, 5); // 0..5
        let b = uniform(0.5, 1.0, 5); // 0.5..5.5
        let w = steady_window(&[a.clone(), b.clone()]).unwrap();
        assert_eq!(w, (1.5, 4.0));
        let s = samples_in(&[a, b], 1_000_000, w);
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
        assert!(!is_stable(&[100.0; 7], 0.01));
        assert!(is_stable(&[100.0; 8], 0.01));
        let noisy: Vec<f64> = (0..20)
            .map(|i| if i % 2 == 0 { 80.0 } else { 120.0 })
            .collect();
        assert!(!is_stable(&noisy, 0.01));
    }
}
