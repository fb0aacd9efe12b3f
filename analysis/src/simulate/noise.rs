//! How a simulated machine's measurements scatter around its truth, drawn round by round as a
//! phase runs: what the sweep's stop rules (section 4.1.1: each phase sampled until its median
//! is stable) must cope with on a real node.
//!
//! Three layers, all multiplicative on a log scale so a bandwidth never turns negative and
//! the median of a long phase is the truth times the run's level:
//! - per run: each phase's level is off by a few tenths of a percent to a percent (frequency,
//!   page placement, what the neighbours do), the same for all its samples: what makes two
//!   runs of one point disagree beyond their intervals;
//! - per round: a factor shared by every thread of a round, an AR(1) process (Box, Jenkins
//!   and Reinsel, *Time Series Analysis*, 4th ed., section 3.2.4), because a memory
//!   controller's refresh or a neighbour's burst slows several rounds in a row: this is why
//!   the sweep's interval uses batch medians (`stats::batch_median_interval`);
//! - per sample: each thread's own scatter, and now and then a slow sample (an interrupt, a
//!   page-table walk), the heavy lower tail real traces show.

use super::rng::Rng;

/// The sizes of the three layers. Relative standard deviations on the log scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Noise {
    /// Of one sample of one thread.
    pub sample: f64,
    /// Of a whole phase's level (per run).
    pub jitter: f64,
    /// Of the factor all threads of a round share (stationary standard deviation).
    pub rounds: f64,
    /// The AR(1) coefficient linking a round's shared factor to the previous round's, in
    /// `[0, 1)`: 0 for independent rounds.
    pub correlation: f64,
    /// Probability that a sample is slowed, and by up to what share.
    pub outlier_rate: f64,
    pub outlier_slowdown: f64,
}

impl Noise {
    /// No noise: every sample is the truth.
    pub const NONE: Noise = Noise {
        sample: 0.0,
        jitter: 0.0,
        rounds: 0.0,
        correlation: 0.0,
        outlier_rate: 0.0,
        outlier_slowdown: 0.0,
    };

    /// Noise of the size the traces of real nodes show within a run: samples within a few
    /// percent, phases a few tenths of a percent apart, rounds correlated over a handful of
    /// neighbours, one sample in a hundred up to 30 % slow. What moves from one run to the
    /// next is [`super::RunNoise`]'s.
    pub const TYPICAL: Noise = Noise {
        sample: 0.02,
        jitter: 0.004,
        rounds: 0.015,
        correlation: 0.7,
        outlier_rate: 0.01,
        outlier_slowdown: 0.3,
    };
}

impl Noise {
    /// The noise of a communication stream: one thread whose every message is a sample, so
    /// no average over threads calms it, and whose rounds a real node's traces show 1.5-2.5
    /// times as wide as a computation's (within-run half-widths of the 16-core node: 1.5 %
    /// alone, 2.5 % in parallel, against 1.3-1.6 % for computations): the rounds' shared
    /// part is `MESSAGE_ROUNDS` times the computations'.
    pub fn messages(self) -> Noise {
        Noise {
            rounds: self.rounds * MESSAGE_ROUNDS,
            ..self
        }
    }
}

/// How much wider the rounds of a communication stream scatter than a computation's
/// ([`Noise::messages`]).
pub(crate) const MESSAGE_ROUNDS: f64 = 2.5;

impl Default for Noise {
    fn default() -> Self {
        Noise::TYPICAL
    }
}

/// One stream of one phase (a run): its rounds drawn one after the other, so a simulated
/// phase can run as long as its stop rule wants.
#[derive(Debug, Clone)]
pub struct Stream {
    /// True bandwidth of one thread, MB/s.
    per_thread: f64,
    threads: usize,
    noise: Noise,
    /// This run's level (log scale).
    level: f64,
    /// The last round's shared factor (log scale).
    shared: f64,
    rng: Rng,
}

impl Stream {
    /// A run of a stream whose threads together truly move `bandwidth` MB/s, shared equally
    /// by `threads` threads (weak scaling: every thread does the same work).
    pub fn new(bandwidth: f64, threads: usize, noise: Noise, mut rng: Rng) -> Stream {
        let level = noise.jitter * rng.normal();
        // Start the AR(1) process in its stationary distribution.
        let shared = noise.rounds * rng.normal();
        Stream {
            per_thread: bandwidth / threads.max(1) as f64,
            threads: threads.max(1),
            noise,
            level,
            shared,
            rng,
        }
    }

    /// The next round: each thread's bandwidth, MB/s.
    pub fn next_round(&mut self) -> Vec<f64> {
        let n = self.noise;
        let phi = n.correlation.clamp(0.0, 0.999);
        self.shared = phi * self.shared + (1.0 - phi * phi).sqrt() * n.rounds * self.rng.normal();
        let common = self.level + self.shared;
        (0..self.threads)
            .map(|_| {
                let mut f = (common + n.sample * self.rng.normal()).exp();
                if self.rng.unit() < n.outlier_rate {
                    f *= 1.0 - n.outlier_slowdown * self.rng.unit();
                }
                self.per_thread * f
            })
            .collect()
    }

    /// The next `rounds` rounds, each the sum over threads (the stream's bandwidth, MB/s).
    pub(crate) fn round_totals(&mut self, rounds: usize) -> Vec<f64> {
        (0..rounds)
            .map(|_| self.next_round().iter().sum())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::median;

    #[test]
    fn without_noise_every_round_is_the_truth_shared_by_the_threads() {
        let mut s = Stream::new(1200.0, 3, Noise::NONE, Rng::new(1));
        for _ in 0..5 {
            assert_eq!(s.next_round(), vec![400.0; 3]);
        }
    }

    #[test]
    fn a_long_phase_has_the_truth_as_median_within_the_runs_jitter() {
        let mut off = Vec::new();
        for seed in 0..40 {
            let mut s = Stream::new(1000.0, 4, Noise::TYPICAL, Rng::new(seed));
            let m = median(&s.round_totals(2000)).unwrap();
            off.push(m / 1000.0 - 1.0);
        }
        // Outliers pull the median down a little; the runs scatter by about the jitter.
        let mid = median(&off).unwrap();
        assert!(mid.abs() < 0.004, "{off:?}");
        assert!(
            off.iter().any(|&o| o.abs() > 0.001),
            "no jitter between runs"
        );
        assert!(off.iter().all(|&o| o.abs() < 0.03), "{off:?}");
    }

    #[test]
    fn neighbouring_rounds_are_correlated_and_samples_have_a_slow_tail() {
        let noise = Noise {
            sample: 0.0,
            outlier_rate: 0.0,
            ..Noise::TYPICAL
        };
        let x = Stream::new(100.0, 1, noise, Rng::new(3)).round_totals(5000);
        let mean = x.iter().sum::<f64>() / x.len() as f64;
        let d: Vec<f64> = x.iter().map(|v| v - mean).collect();
        let lag1 =
            d.windows(2).map(|w| w[0] * w[1]).sum::<f64>() / d.iter().map(|v| v * v).sum::<f64>();
        assert!((lag1 - 0.7).abs() < 0.05, "lag-1 autocorrelation {lag1}");

        let slow = Noise {
            outlier_rate: 0.05,
            outlier_slowdown: 0.3,
            ..Noise::NONE
        };
        let y = Stream::new(100.0, 1, slow, Rng::new(4)).round_totals(2000);
        assert!(y.iter().all(|&v| v <= 100.0));
        let n = y.iter().filter(|&&v| v < 99.0).count();
        assert!((60..=140).contains(&n), "{n} slow samples of 2000 at 5 %");
    }
}
