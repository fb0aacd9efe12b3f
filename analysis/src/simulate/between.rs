//! The noise between runs: how far a phase's median moves from one MPI launch of the same
//! command to the next, and from one day to the next. One model for both simulators
//! (`measure --simulate` draws it per run of a trace, `survey --simulate` per run of a
//! node), learned from the traces of a real 16-core node (a virtual machine: Intel Xeon, 1
//! socket, 1 NUMA node, Open MPI over shared memory; 3 default runs of 14 core counts on one
//! day, and a 13-core run the day before).
//!
//! The noise inside a run ([`super::Noise`]) is what a phase's interval covers; this is what
//! it does not: where the pages land and which thread the scheduler favours are fixed for a
//! launch, and a virtual machine's host load for longer. Kalibera and Jones ("Rigorous
//! Benchmarking in Reasonable Time", ISMM 2013) call these the levels of a benchmark's
//! variance; each is drawn where it lives, on a log scale (ratios, never a negative
//! bandwidth), for computations and communications apart:
//!
//! - **day**: shared by every run of one campaign (one seed: every run of a trace, every node
//!   and run of a simulated fleet). The 13-core trace of the day before sat 2.4 % higher on
//!   computations and 6.6 % on communications alone than the three runs of the next day;
//! - **run**: shared by every core count and phase of one launch (a two-way analysis of the
//!   three runs' log medians: 1.8 % computations, 3.5 % communications);
//! - **point**: shared by the phases alone and in parallel of one core count in one run
//!   (measured back to back, same pages): 2 % and 4 %;
//! - **phase**: each phase's own: 2.5 % and 3 %;
//! - **loaded**: communications in parallel scatter more as cores are added (their medians
//!   moved by 1-5 % between runs at 1-5 cores, 8-29 % at 6-14): an own part growing
//!   linearly with the core count to 10 % at the last;
//! - **tail**: now and then a phase runs slow for its whole length (computations alone at 4
//!   cores 17 % below the other two runs; communications in parallel at 6 and 7 cores 29 %
//!   and 23 %): 4 % of phases, slowed by `exp(-|N(0, 0.15)|)`.
//!
//! Drawn with these, three simulated runs of 14 core counts of `paper:henri` show the real
//! node's statistics (`tests/simulate.rs` holds the table to it, within the scatter of three
//! runs): see docs/methodology.md, "The noise model".
//!
//! Pure: no I/O; every draw is keyed by the campaign's seed, the unit measured (a node, a
//! placement) and the run.

use super::rng::Rng;

/// The sizes of the levels, relative standard deviations on the log scale, computations
/// then communications.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunNoise {
    /// Shared by every run of one campaign (a day).
    pub(crate) day: [f64; 2],
    /// Shared by every core count and phase of one run.
    pub(crate) run: [f64; 2],
    /// Shared by the phases alone and in parallel of one core count of one run.
    pub(crate) point: [f64; 2],
    /// Each phase's own.
    pub(crate) phase: [f64; 2],
    /// Communications in parallel's own part at the last core (linear from 0 at one core).
    pub(crate) loaded: f64,
    /// The share of phases that run slow for their whole length.
    pub(crate) tail_rate: f64,
    /// How slow: `exp(-|N(0, tail_sigma)|)`.
    pub(crate) tail_sigma: f64,
}

/// Which campaign, unit and run a draw belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunKey {
    /// The campaign's seed: one day.
    pub seed: u64,
    /// What is measured: a node of a fleet, or a placement of a trace.
    pub unit: u64,
    /// The run (launch), from 0 or 1 as the caller counts: only distinct values matter.
    pub run: u64,
}

/// The last word of the keys of this module's draws, "between" in ASCII: apart from every
/// other draw of the simulation (phases 1, orders 2, fleets' own words).
const KEY: u64 = 0x0062_6574_7765_656e;

impl RunNoise {
    /// No noise between runs: every run draws only the noise within it.
    pub const NONE: RunNoise = RunNoise {
        day: [0.0; 2],
        run: [0.0; 2],
        point: [0.0; 2],
        phase: [0.0; 2],
        loaded: 0.0,
        tail_rate: 0.0,
        tail_sigma: 0.0,
    };

    /// The real 16-core node's (see the module's documentation for each number's source).
    pub const REAL_16_CORE: RunNoise = RunNoise {
        day: [0.025, 0.05],
        run: [0.018, 0.04],
        point: [0.02, 0.03],
        phase: [0.025, 0.04],
        loaded: 0.14,
        tail_rate: 0.05,
        tail_sigma: 0.15,
    };

    /// The factors of the four phases of the point at `cores` (of `max` computing cores) in
    /// run `key`: computations alone, communications alone, computations in parallel,
    /// communications in parallel, each to multiply the phase's true bandwidth by. Runs
    /// of one key draw the same factors; the day's and the run's levels are shared by every
    /// core count, the point's by its two phases of a stream.
    pub fn factors(&self, key: RunKey, cores: u32, max: u32) -> [f64; 4] {
        let mut day = Rng::keyed([key.seed, 0, 0, KEY], 0);
        let mut run = Rng::keyed([key.seed, key.unit, key.run, KEY], 1);
        let mut point = Rng::keyed([key.seed, key.unit, key.run, KEY], 2 + u64::from(cores));
        let day = [day.normal(), day.normal()];
        let run = [run.normal(), run.normal()];
        let shared = [point.normal(), point.normal()];
        let load = load(cores, max);
        std::array::from_fn(|phase| {
            // 0, 2: computations; 1, 3: communications.
            let s = phase % 2;
            let mut log = self.day[s] * day[s]
                + self.run[s] * run[s]
                + self.point[s] * shared[s]
                + self.phase[s] * point.normal();
            if phase == 3 {
                log += self.loaded * load * point.normal();
            }
            let (u, slow) = (point.unit(), point.normal());
            if u < self.tail_rate {
                log -= (self.tail_sigma * slow).abs();
            }
            log.exp()
        })
    }

    /// The standard deviation of a phase's log median from one run to the next on one day
    /// (run, point and phase levels, without the tail), for stream `phase` (0..4 as
    /// [`RunNoise::factors`]) at `cores` of `max`.
    pub fn sigma(&self, phase: usize, cores: u32, max: u32) -> f64 {
        let s = phase % 2;
        let loaded = if phase == 3 {
            self.loaded * load(cores, max)
        } else {
            0.0
        };
        (self.run[s].powi(2) + self.point[s].powi(2) + self.phase[s].powi(2) + loaded.powi(2))
            .sqrt()
    }
}

/// How loaded a point is, 0 at one computing core to 1 at `max`: the share of the loaded
/// part of communications in parallel it carries.
fn load(cores: u32, max: u32) -> f64 {
    if max > 1 {
        f64::from(cores.saturating_sub(1).min(max - 1)) / f64::from(max - 1)
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(seed: u64, unit: u64, run: u64) -> RunKey {
        RunKey { seed, unit, run }
    }

    fn sd(v: &[f64]) -> f64 {
        let m = v.iter().sum::<f64>() / v.len() as f64;
        (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() - 1) as f64).sqrt()
    }

    #[test]
    fn no_noise_draws_ones_and_a_key_draws_the_same_factors() {
        assert_eq!(RunNoise::NONE.factors(key(1, 2, 3), 4, 18), [1.0; 4]);
        let n = RunNoise::REAL_16_CORE;
        assert_eq!(
            n.factors(key(1, 2, 3), 4, 18),
            n.factors(key(1, 2, 3), 4, 18)
        );
        assert_ne!(
            n.factors(key(1, 2, 3), 4, 18),
            n.factors(key(1, 2, 4), 4, 18)
        );
    }

    #[test]
    fn the_levels_have_their_sizes_and_the_run_is_shared_by_its_core_counts() {
        let n = RunNoise {
            tail_rate: 0.0,
            ..RunNoise::REAL_16_CORE
        };
        // Over 2000 runs of one day: the spread of one phase is the run's, point's and
        // phase's together; the difference of two core counts of one run loses the run's.
        let logs = |phase: usize, cores: u32| -> Vec<f64> {
            (0..2000)
                .map(|r| n.factors(key(7, 1, r), cores, 14)[phase].ln())
                .collect()
        };
        for (phase, cores) in [(0, 1), (1, 1), (2, 9), (3, 14)] {
            let got = sd(&logs(phase, cores));
            let want = n.sigma(phase, cores, 14);
            assert!(
                (got / want - 1.0).abs() < 0.08,
                "{phase}@{cores}: {got} vs {want}"
            );
        }
        let (a, b) = (logs(1, 3), logs(1, 5));
        let d: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x - y).collect();
        let own = (2.0 * (n.point[1].powi(2) + n.phase[1].powi(2))).sqrt();
        assert!((sd(&d) / own - 1.0).abs() < 0.08, "{} vs {own}", sd(&d));
        // Alone and in parallel at one core count share the point's level.
        let (alone, par) = (logs(0, 4), logs(2, 4));
        let d: Vec<f64> = alone.iter().zip(&par).map(|(x, y)| x - y).collect();
        let own = 2f64.sqrt() * n.phase[0];
        assert!((sd(&d) / own - 1.0).abs() < 0.08, "{} vs {own}", sd(&d));
        // The day is shared by every run of a seed: the mean over runs moves with the seed.
        let day_means: Vec<f64> = (0..300)
            .map(|seed| n.factors(key(seed, 1, 0), 1, 14)[1].ln())
            .collect();
        let total = (n.sigma(1, 1, 14).powi(2) + n.day[1].powi(2)).sqrt();
        assert!((sd(&day_means) / total - 1.0).abs() < 0.12);
    }

    #[test]
    fn slow_phases_are_the_tails_share_and_only_ever_slower() {
        let only_tail = RunNoise {
            tail_rate: 0.04,
            tail_sigma: 0.15,
            ..RunNoise::NONE
        };
        let f: Vec<f64> = (0..5000)
            .flat_map(|r| only_tail.factors(key(3, 0, r), 2, 14))
            .collect();
        assert!(f.iter().all(|&x| x <= 1.0));
        let slow = f.iter().filter(|&&x| x < 1.0).count() as f64 / f.len() as f64;
        assert!((0.035..0.045).contains(&slow), "{slow}");
    }
}
