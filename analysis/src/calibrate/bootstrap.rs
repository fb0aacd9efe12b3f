//! Uncertainty of the fit by the bootstrap over samples (Efron and Tibshirani, "An
//! Introduction to the Bootstrap", 1993, chapters 6 and 13): each resample draws every group's
//! samples again with replacement, takes their median, and refits from the full fit
//! (`super::fit::Effort::refit`, whose breakpoint search reaches as far as the full fit's);
//! the 2.5 and 97.5 percentiles of the refitted values are the 95 % interval of each
//! parameter (`T_seq^max`'s one-sided, open above, when the refits only bound it from below:
//! `t_seq_max_interval`), and the refitted models, kept in the model file, give the
//! interval of any predicted bandwidth (`predict --intervals`).
//!
//! **Blocks.** A trace phase's samples are not independent: those of one round share the
//! machine's state and consecutive rounds are correlated. Resampling them one by one would
//! give intervals too narrow by the correlation; so a trace group is resampled by whole
//! batches of consecutive rounds (the non-overlapping block bootstrap, Carlstein, "The use of
//! subseries values for estimating the variance of a general statistic from a stationary
//! sequence", Annals of Statistics 14(3), 1986; Kuensch, "The jackknife and the bootstrap for
//! general stationary observations", same volume), the batches the benchmark's stopping rule
//! reads its interval from (`crate::dataset::Batches`). CSV repetitions are separate runs,
//! each its own block.
//!
//! **Whole runs.** With several runs (`measure --runs R`, or traces of one machine given
//! together) the data are a hierarchy: launches, then each launch's points and phases, then
//! their batches. A launch's page placement and scheduling set a level shared by every core
//! count and phase it measures, the largest part of the noise between runs. So the units
//! resampled first are whole launches, drawn once per resample for every group (Davison and
//! Hinkley, "Bootstrap Methods and their Application", 1997, section 3.8; Field and Welsh,
//! "Bootstrapping clustered data", JRSS B 69(3), 2007): run `k` of every group is the same
//! launch, keyed by its index in its input, not by its position in the group; a group that
//! lacks a drawn launch (a run stopped short) draws one of its own runs in its place, so that
//! each group still draws its runs uniformly. Then each drawn run's batches are resampled, as
//! above, and the resample's deviation is the mean logarithm of the drawn runs' medians less
//! that of the group's own runs (`run_shift`: the statistic Hesterberg's widening is made
//! for), added to the group's median. Drawn group by group, the runs of one core count moved apart from those of the
//! next, and a parameter fitted across core counts averaged the run levels away: its
//! interval came out too narrow (issue 43, item 2).
//!
//! **On the log scale.** A group's resampled median is moved from its median by a widening
//! factor (below), on logarithms: `exp(ln m + w (ln drawn - ln m))`, as
//! `crate::stats::run_interval95` computes a run interval. Bandwidths vary by ratios, and a
//! linear stretch by `w` = 9.2 (two runs) of a run 22 % below the median drew negative
//! bandwidths (issue 43, item 1); on logarithms no draw is <= 0.
//!
//! **Correlation between batches.** Batches of `sqrt(rounds)` rounds (about 8 of 60) are
//! too short to hold all of the rounds' correlation: the bootstrap of independent blocks
//! drops the covariance between neighbouring batches, and with rounds as correlated as
//! AR(1) 0.7 it keeps about 70 % of the median's variance (the block bootstrap's variance is
//! biased low by a term of order `1 / block length`: Kuensch 1989, section 3; Lahiri,
//! "Resampling Methods for Dependent Data", 2003, chapter 5). Longer blocks would leave too
//! few to resample (Politis and White, "Automatic block-length selection for the dependent
//! bootstrap", Econometric Reviews 23(1), 2004, put the length near `2 x` the integrated
//! autocorrelation time, some 11 rounds here, and more for the variance to be whole). So
//! the batches stay, and what they miss is put back: the lag-1 correlation `rho` of
//! consecutive batch medians, pooled over every trace group (each group's relative
//! deviations from its own mean), corrected for the bias of a short series' estimate
//! (Marriott and Pope, "Bias in the estimation of autocorrelations", Biometrika 41, 1954:
//! `E[rho_hat] = rho - (1 + 3 rho) / m` for `m` batches), gives the factor `(1 + rho) / (1 -
//! rho)` by which the variance of a mean of batches exceeds the sum of their variances when
//! they follow an AR(1) (the integrated autocorrelation time of the batch series); each
//! resampled trace median is moved from the group's median by `sqrt` of that factor times
//! its resampled deviation, and by Hesterberg's expanded-percentile factor for a spread read
//! from so few batches (`widening`). Uncorrelated batches give `rho` near 0; CSV
//! repetitions are separate runs and are never widened.
//!
//! **Independent samples, fast.** Where every block is one sample, drawing thousands of
//! samples per group per resample would dominate the cost, so the median of a resample is
//! drawn directly: the `k`-th smallest of `n` values drawn with replacement from sorted `x` is
//! at most `x_(j)` exactly when at least `k` draws are at most `x_(j)`, so `P(rank <= j) =
//! P(Binomial(n, j/n) >= k)`; one uniform number and a binary search over that table give the
//! resample's median (the lower one, `k = ceil(n/2)`, for even `n`). Small groups (CSV
//! repetitions) are resampled directly.
//!
//! **No silent replacement.** A refit starts from the full fit and keeps it when it finds
//! nothing better on the resample ([`super::fit::fit`]); how many did is counted and reported
//! beside the intervals, since many such resamples make the intervals narrower than the data.
//!
//! Seeded ([`SplitMix64`]): the same data and seed give the same intervals on every machine.

use super::fit::{self, Effort, Group};
use crate::model::{Interval, Model, ParamIntervals, ParamKind, Params};
use crate::stats::quantile;
use std::collections::HashMap;

/// The interval's level, as a fraction.
pub(crate) const LEVEL: f64 = 0.95;

/// The most resamples `calibrate --bootstrap` takes: 50 times the 200 that are plenty for a
/// 95 % interval. Every resample stores its refitted parameters in the model file, under 1.5
/// kB even for two sides of the cpu-copy variant at the widest numbers (about 0.85 kB for
/// a real one), so 10,000 keep the file under 15 MB, well below the 64 MiB every reader
/// takes (`io::read::MAX_INPUT_BYTES`);
/// 82,000 wrote 69 MB that `predict` then refused, after 7 minutes of refits.
pub const MAX_RESAMPLES: u32 = 10_000;
/// Groups this small are resampled directly.
const DIRECT: usize = 32;
/// The largest batch correlation the widening believes: beyond it the factor grows without
/// bound while the estimate from a few batches means little.
const MAX_BATCH_CORRELATION: f64 = 0.8;

/// The bootstrap's generator: small, seeded and portable, which is all a bootstrap needs.
pub use crate::stats::SplitMix64;

impl SplitMix64 {
    /// Uniform in [-1, 1): multiplicative noise for synthetic sweeps (tests, benches).
    pub fn symmetric(&mut self) -> f64 {
        2.0 * self.unit() - 1.0
    }

    /// Uniform in `0..n` (`n > 0`).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        ((self.unit() * n as f64) as usize).min(n - 1)
    }
}

/// `P(rank of the resample's median <= j)` for `j = 1..=n` (index `j - 1`).
fn median_rank_cdf(n: usize) -> Vec<f64> {
    let k = n.div_ceil(2);
    // ln C(n, i) for i = 0..=n.
    let mut ln_choose = vec![0.0; n + 1];
    for i in 1..=n {
        ln_choose[i] = ln_choose[i - 1] + ((n - i + 1) as f64 / i as f64).ln();
    }
    let mut running = 0.0f64;
    (1..=n)
        .map(|j| {
            if j == n {
                return 1.0;
            }
            let p = j as f64 / n as f64;
            let (lp, lq) = (p.ln(), (1.0 - p).ln());
            let tail = (k..=n)
                .map(|i| (ln_choose[i] + i as f64 * lp + (n - i) as f64 * lq).exp())
                .sum::<f64>()
                .min(1.0);
            // Rounding must not make the distribution decrease.
            running = running.max(tail);
            running
        })
        .collect()
}

/// Draws the medians of one resample of every group.
struct Resampler {
    tables: HashMap<usize, Vec<f64>>,
    /// Per phase ([`crate::dataset::QUANTITIES`]), how far a trace group's resampled median
    /// is moved from its median per unit of its resampled deviation, on the log scale
    /// ([`widening`], [`stretch`]).
    widening: [f64; 4],
    /// How many launches the groups of runs come from ([`Group::launches`]): each resample
    /// draws that many, once, for all of them ([`LaunchDraw`]); 0 without groups of runs.
    launches: usize,
}

/// One resample's draw of whole launches, shared by every group of runs: a launch (a run of
/// `measure --runs`) sets the page placement and the scheduling of every core count and
/// phase it measures, so its level is common to all of them, and the resample must keep
/// that (Davison and Hinkley, "Bootstrap Methods and their Application", 1997, section 3.8:
/// with data in a hierarchy, resample the units at the top, whole; Field and Welsh,
/// "Bootstrapping clustered data", JRSS B 69(3), 2007). Groups resampled one by one drew
/// every core count's runs apart, so a parameter fitted across core counts (`b_seq_comp`,
/// `t_par_max`) averaged the run levels away and its interval came out too narrow.
struct LaunchDraw {
    /// Per launch, the launch drawn in its place (uniform, with replacement).
    picks: Vec<usize>,
    /// Per launch, a uniform number in [0, 1): where a group lacks the launch drawn (a run
    /// stopped short of its core count), which of the group's own runs stands in, so that
    /// each group still draws its own runs uniformly.
    spare: Vec<f64>,
}

/// `centre` moved `w` times as far as `drawn` is from it, on the log scale: `exp(ln centre +
/// w (ln drawn - ln centre))`. Bandwidths vary by ratios between runs and batches (a slower
/// page placement, a busier neighbour), and a stretch on the linear scale reaches zero and
/// below once `w` times a deviation passes the centre: with two runs 22 % apart (12977 and
/// 9486 MB/s) and Hesterberg's factor of 9.2 for two runs, a draw of -4769 MB/s (issue 43,
/// item 1). On logarithms, as [`crate::stats::run_interval95`] computes a run interval,
/// every draw stays above zero and the widening is the same to first order for small
/// deviations. A value that is not a positive bandwidth (none passes the inputs' checks)
/// is returned unstretched.
fn stretch(centre: f64, drawn: f64, w: f64) -> f64 {
    if centre > 0.0 && drawn > 0.0 {
        centre * (drawn / centre).powf(w)
    } else {
        drawn
    }
}

/// The factor by which a trace group's resampled deviations are stretched, per phase: `sqrt(m
/// / (m - 1)) t_(m-1) / z` for a median resampled from only `m` batches (about 8), Hesterberg's
/// expanded percentile interval ("What teachers should know about the bootstrap", The
/// American Statistician 69(4), 2015, section 4: the bootstrap's variance is the plug-in
/// one, `(m - 1) / m` of the unbiased, and a variance read from `m` blocks calls for
/// Student's quantile with `m - 1` degrees of freedom rather than the normal one), times
/// `sqrt((1 + rho) / (1 - rho))` for the correlation between batches ([`batch_correlation`]).
/// CSV repetitions are not stretched: their groups are resampled directly, and the coverage
/// bench measures their intervals holding the truth without it.
/// Pooled per phase because phases differ in how much of their batches' noise is the rounds'
/// correlated part: a phase of `n` threads averages `n` samples' own noise in every round,
/// a communication phase only one. 1 for a phase with no trace group.
fn widening(groups: &[Group]) -> [f64; 4] {
    std::array::from_fn(|q| {
        let phase: Vec<&Group> = groups.iter().filter(|g| g.quantity == q).collect();
        match batch_correlation(&phase) {
            Some((rho, m)) => {
                (m / (m - 1.0) * (1.0 + rho) / (1.0 - rho)).sqrt() * t_over_z(m - 1.0)
            }
            None => 1.0,
        }
    })
}

/// The factor by which a group of `r` runs' resampled deviations are stretched: Hesterberg's
/// expanded percentile (as [`widening`] for batches) with the runs as the units,
/// `sqrt(r / (r - 1)) t_(r-1) / z`: 9.2 for two runs, 2.7 for three, 1.6 for five. Runs are independent
/// launches, so no correlation term; and it replaces the batches' widening, since the runs'
/// spread holds the batches' and more.
fn run_widening(r: usize) -> f64 {
    let r = r as f64;
    (r / (r - 1.0)).sqrt() * t_over_z(r - 1.0)
}

/// How far the drawn runs' medians `drawn` lie from the group's runs, on the log scale: the
/// mean log of the drawn minus the mean log of the runs' own medians; `None` where a median
/// is not a positive bandwidth (then the group's median of the drawn is stretched instead).
///
/// Why a mean of logarithms, where the group's value is the median of its runs: the widening
/// of [`run_widening`] (Hesterberg's) corrects the bootstrap distribution of a mean, and
/// that of a median of 2 to 5 drawn runs is a few order statistics of them (of three runs,
/// the drawn median is always one of the three: Hall and Martin, "Exact convergence rate of
/// bootstrap quantile variance estimator", Probability Theory and Related Fields 80, 1988,
/// on how slowly a median's bootstrap settles). Stretched, the median's percentile interval
/// held the truth in 91.5 % of simulated groups of three runs and 97.6 % of five (3,000
/// groups each, normal run levels); the mean of the logarithms in 94.8 % and 92.9 %, as
/// [`crate::stats::run_interval95`] reads runs. With two runs both are the mean. The value
/// the fit must predict stays the median of the runs: only the resample's spread is the
/// mean's.
fn run_shift(g: &Group, drawn: &[f64]) -> Option<f64> {
    let mean_log = |values: &mut dyn Iterator<Item = f64>| {
        let (mut sum, mut n) = (0.0, 0usize);
        for v in values {
            if !(v.is_finite() && v > 0.0) {
                return None;
            }
            sum += v.ln();
            n += 1;
        }
        (n > 0).then(|| sum / n as f64)
    };
    let own = mean_log(
        &mut g
            .runs
            .iter()
            .map(|run| super::fit::pooled_median(&g.blocks[run.clone()]).unwrap_or(f64::NAN)),
    )?;
    let shift = mean_log(&mut drawn.iter().copied())? - own;
    (shift.is_finite() && g.median > 0.0).then_some(shift)
}

/// Student's 97.5 % quantile with `nu` degrees of freedom over the normal one (1.96)
/// ([`crate::stats::student_t975`]).
fn t_over_z(nu: f64) -> f64 {
    crate::stats::student_t975(nu) / 1.959_963_984_540_054
}

/// The lag-1 correlation of consecutive batch medians (each group's relative deviations from
/// its own mean), averaged over the groups resampled in batches of several samples,
/// bias-corrected (Marriott and Pope, 1954) and kept in `[0, MAX_BATCH_CORRELATION]`, with
/// the mean number of batches; `None` without at least two such groups of five batches or
/// more.
fn batch_correlation(groups: &[&Group]) -> Option<(f64, f64)> {
    let (mut sum, mut batches, mut used) = (0.0, 0usize, 0usize);
    for g in groups {
        // A group of runs is widened by its runs ([`run_widening`]); its batches' series
        // would run across the runs' boundaries.
        if g.of_runs()
            || g.blocks.len() < 5
            || g.blocks.iter().all(|b| b.len() <= 1)
            || g.median <= 0.0
        {
            continue;
        }
        let d: Vec<f64> = g
            .blocks
            .iter()
            .filter_map(|b| crate::stats::median(b))
            .map(|m| m / g.median - 1.0)
            .collect();
        let mean = d.iter().sum::<f64>() / d.len() as f64;
        let d: Vec<f64> = d.iter().map(|x| x - mean).collect();
        let den = d.iter().map(|x| x * x).sum::<f64>();
        if den <= 0.0 {
            continue;
        }
        sum += d.windows(2).map(|w| w[0] * w[1]).sum::<f64>() / den;
        batches += d.len();
        used += 1;
    }
    if used < 2 {
        return None;
    }
    let m = batches as f64 / used as f64;
    let rho = (m * sum / used as f64 + 1.0) / (m - 3.0);
    Some((rho.clamp(0.0, MAX_BATCH_CORRELATION), m))
}

impl Resampler {
    fn new(groups: &[Group]) -> Resampler {
        let mut tables = HashMap::new();
        for g in groups {
            let n = g.sorted.len();
            if n > DIRECT {
                tables.entry(n).or_insert_with(|| median_rank_cdf(n));
            }
        }
        let launches = groups
            .iter()
            .filter(|g| g.of_runs())
            .flat_map(|g| g.launches.iter().map(|l| l + 1))
            .max()
            .unwrap_or(0);
        Resampler {
            tables,
            widening: widening(groups),
            launches,
        }
    }

    /// The medians of one resample of `groups`: the launches drawn first, once for all of
    /// them, then each group's samples.
    fn draw(&self, groups: &[Group], rng: &mut SplitMix64) -> Vec<f64> {
        let n = self.launches;
        let launches = LaunchDraw {
            picks: (0..n).map(|_| rng.below(n)).collect(),
            spare: (0..n).map(|_| rng.unit()).collect(),
        };
        groups
            .iter()
            .map(|g| self.median(g, &launches, rng))
            .collect()
    }

    fn median(&self, g: &Group, launches: &LaunchDraw, rng: &mut SplitMix64) -> f64 {
        if g.of_runs() {
            // Runs first, each the run of the launch drawn in its launch's place, then the
            // batches of each run drawn: the mean log of the drawn runs' medians, against
            // the runs' own ([`run_shift`]).
            let r = g.runs.len();
            let mut medians: Vec<f64> = Vec::with_capacity(r);
            for &launch in &g.launches {
                let own = |u: f64| ((u * r as f64) as usize).min(r - 1);
                let at = match (launches.picks.get(launch), launches.spare.get(launch)) {
                    (Some(&drawn), Some(&u)) => g
                        .launches
                        .iter()
                        .position(|&l| l == drawn)
                        .unwrap_or_else(|| own(u)),
                    _ => rng.below(r),
                };
                let run = g.runs[at].clone();
                let mut draw: Vec<f64> = Vec::new();
                for _ in run.clone() {
                    draw.extend_from_slice(&g.blocks[run.start + rng.below(run.len())]);
                }
                medians.extend(crate::stats::median_in_place(&mut draw));
            }
            if let Some(shift) = run_shift(g, &medians) {
                return g.median * (run_widening(r) * shift).exp();
            }
            let drawn = crate::stats::median_in_place(&mut medians).unwrap_or(g.median);
            return stretch(g.median, drawn, run_widening(r));
        }
        if g.blocks.iter().any(|b| b.len() > 1) {
            // Whole batches of rounds, as many as the group has.
            let mut draw: Vec<f64> = Vec::with_capacity(g.sorted.len());
            for _ in 0..g.blocks.len() {
                draw.extend_from_slice(&g.blocks[rng.below(g.blocks.len())]);
            }
            let drawn = crate::stats::median_in_place(&mut draw).unwrap_or(g.median);
            return stretch(g.median, drawn, self.widening[g.quantity]);
        }
        let n = g.sorted.len();
        match self.tables.get(&n) {
            Some(cdf) => {
                let u = rng.unit();
                let j = cdf.partition_point(|&c| c < u).min(n - 1);
                g.sorted[j]
            }
            None => {
                let mut draw: Vec<f64> = (0..n).map(|_| g.sorted[rng.below(n)]).collect();
                crate::stats::median_in_place(&mut draw).unwrap_or(g.median)
            }
        }
    }
}

/// The refits of a bootstrap.
#[derive(Debug, Clone, PartialEq)]
pub struct Replicates {
    /// One refitted model per resample.
    pub(crate) models: Vec<Model>,
    /// How many refits found nothing better on their resample than the full fit they started
    /// from, and so are the full fit itself.
    pub(crate) kept_full_fit: u32,
}

/// `resamples` refits of `fitted` (the full fit of `groups`), seeded by `seed`.
///
/// The resamples are drawn one after the other from one generator, then refitted in parallel
/// (rayon's pool: all cores, or `RAYON_NUM_THREADS`): each refit is a pure function of its
/// resample, so the replicates are the same, in the same order, whatever the number of
/// threads. The refits are nearly all of the time (200 take seconds to minutes).
pub fn replicates(fitted: &Model, groups: &[Group], resamples: u32, seed: u64) -> Replicates {
    use rayon::prelude::*;
    let sampler = Resampler::new(groups);
    let mut rng = SplitMix64(seed);
    let keys = fit::keys(groups);
    let effort = Effort::refit(fitted.machine.cores_per_socket);
    let drawn: Vec<Vec<f64>> = (0..resamples)
        .map(|_| sampler.draw(groups, &mut rng))
        .collect();
    let refits: Vec<fit::Fitted> = drawn
        .par_iter()
        .map(|medians| fit::fit(fitted, &keys, medians, effort))
        .collect();
    Replicates {
        kept_full_fit: refits.iter().map(|r| u32::from(r.kept_start)).sum(),
        models: refits.into_iter().map(|r| r.model).collect(),
    }
}

/// The percentile interval of `values` at [`LEVEL`] (linear interpolation between order
/// statistics); `None` when empty.
pub(crate) fn percentile_interval(values: &[f64]) -> Option<Interval> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_unstable_by(f64::total_cmp);
    let tail = (1.0 - LEVEL) / 2.0;
    Some([quantile(&v, tail), quantile(&v, 1.0 - tail)])
}

/// The interval of each parameter over the parameter sets `sets` of a socket of `cores`
/// cores; `None` when empty (or a parameter has no finite value). A breakpoint's interval is
/// a range of core counts: its percentiles widened to the whole cores around them, so that
/// `14..18` means every core count from 14 to 18 and an interval is never narrower than the
/// counts the refits chose. `T_seq^max`'s is open above when the refits only bound it from
/// below ([`t_seq_max_interval`]).
pub(crate) fn intervals(sets: &[Params], cores: u32) -> Option<ParamIntervals> {
    let values: Vec<[f64; Params::COUNT]> = sets.iter().map(Params::values).collect();
    let mut out = [[0.0; 2]; Params::COUNT];
    for (i, slot) in out.iter_mut().enumerate() {
        let [lo, hi] = percentile_interval(&values.iter().map(|v| v[i]).collect::<Vec<_>>())?;
        *slot = match Params::FIELDS[i].1 {
            ParamKind::Cores => [lo.floor(), hi.ceil()],
            _ => [lo, hi],
        };
    }
    if let Some(open) = t_seq_max_interval(sets, cores) {
        out[Params::T_SEQ_MAX] = open;
    }
    // The law's own parameters (the cpu-copy variant's kappa), when every set is of one law.
    let variant = sets.first()?.law.variant();
    let mut law = Vec::new();
    if sets.iter().all(|p| p.law.variant() == variant) {
        for (i, lp) in variant.params().iter().enumerate() {
            let values: Vec<f64> = sets.iter().map(|p| p.law.values()[i]).collect();
            law.push((lp.name, percentile_interval(&values)?));
        }
    }
    Some(ParamIntervals::new(out, law))
}

/// Whether `p`'s `T_seq^max` is only a lower bound on a socket of `cores` cores: equation 6
/// caps the computations' bandwidth at no core count (it is not below its least value with
/// the same predictions, [`crate::model::bandwidth::least_t_seq_max`]), so every
/// higher value predicts the same bandwidths. The fit then names that least value
/// (`super::fit`), a bound the truth lies above.
fn t_seq_max_open(p: &Params, cores: u32) -> bool {
    p.t_seq_max >= crate::model::bandwidth::least_t_seq_max(p, cores) * (1.0 - 1e-9)
}

/// `T_seq^max`'s interval when more than the upper tail's share (2.5 %) of the refits `sets`
/// only bound it from below ([`t_seq_max_open`]): the upper percentile of values some of
/// which are lower bounds is not known (a right-censored sample), so the interval is the
/// one-sided 95 % bound, from the 5th percentile up, its upper end open
/// ([`crate::model::uncertainty::open_above`]); `None` otherwise (the percentile interval
/// stands).
///
/// Why: henri's `T_seq^max` lies within 1 % of `T(n)` at its socket's last cores (72,590
/// against 73,388 MB/s), so where a trace's runs come out a little low, no core count
/// reaches it, and a third of the refits sat at that edge; the two-sided interval's upper
/// end then lay below the truth in 21 of 200 simulated traces of three runs (coverage 88 %,
/// `cargo bench --bench coverage`, issue 43). The censored values are lower bounds of the
/// refits' own, so the 5th percentile of them is conservative.
fn t_seq_max_interval(sets: &[Params], cores: u32) -> Option<Interval> {
    let open = sets.iter().filter(|p| t_seq_max_open(p, cores)).count();
    if (open as f64) <= (1.0 - LEVEL) / 2.0 * sets.len() as f64 {
        return None;
    }
    let mut v: Vec<f64> = sets
        .iter()
        .map(|p| p.t_seq_max)
        .filter(|x| x.is_finite())
        .collect();
    v.sort_unstable_by(f64::total_cmp);
    (!v.is_empty()).then(|| {
        [
            quantile(&v, 1.0 - LEVEL),
            crate::model::constraints::MAX_BANDWIDTH,
        ]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_rank_table_is_a_distribution_symmetric_about_the_middle() {
        let cdf = median_rank_cdf(101);
        assert!(cdf.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(cdf[100], 1.0);
        // Odd n: the median's rank is symmetric, P(rank <= 50) = P(rank >= 52).
        assert!(
            (cdf[49] - (1.0 - cdf[50])).abs() < 1e-9,
            "{} {}",
            cdf[49],
            cdf[50]
        );
    }

    #[test]
    fn the_drawn_median_has_the_spread_of_a_resampled_one() {
        // 201 values 0..200: compare the drawn medians' spread with direct resampling.
        let g = Group {
            placement: crate::model::Placement {
                comp_numa: 0,
                comm_numa: 0,
            },
            cores: 1,
            quantity: 0,
            sorted: (0..201).map(f64::from).collect(),
            blocks: (0..201).map(|v| vec![f64::from(v)]).collect(),
            runs: std::iter::once(0..201).collect(),
            launches: vec![0],
            median: 100.0,
        };
        let sampler = Resampler::new(std::slice::from_ref(&g));
        let mut rng = SplitMix64(7);
        let fast: Vec<f64> = (0..4000)
            .map(|_| sampler.draw(std::slice::from_ref(&g), &mut rng)[0])
            .collect();
        let slow: Vec<f64> = (0..4000)
            .map(|_| {
                let mut d: Vec<f64> = (0..201).map(|_| g.sorted[rng.below(201)]).collect();
                crate::stats::median_in_place(&mut d).unwrap()
            })
            .collect();
        let sd = |v: &[f64]| {
            let m = v.iter().sum::<f64>() / v.len() as f64;
            (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / v.len() as f64).sqrt()
        };
        let (a, b) = (sd(&fast), sd(&slow));
        assert!((a / b - 1.0).abs() < 0.1, "{a} vs {b}");
        let mean = fast.iter().sum::<f64>() / fast.len() as f64;
        assert!((mean - 100.0).abs() < 1.0, "{mean}");
    }

    #[test]
    fn correlated_batches_are_resampled_whole_and_widen_the_spread() {
        // 200 samples: 10 batches of 20 rounds, each batch at its own level (a disturbance
        // lasting several rounds), 2 % apart. Resampled as batches, the median swings with
        // the levels drawn; the same values resampled one by one hardly move it.
        let blocks: Vec<Vec<f64>> = (0..10)
            .map(|b| {
                (0..20)
                    .map(|j| 100.0 + 2.0 * (f64::from(b) - 4.5) + 0.01 * f64::from(j))
                    .collect()
            })
            .collect();
        let mut sorted = blocks.concat();
        sorted.sort_by(f64::total_cmp);
        let group = |blocks: Vec<Vec<f64>>| Group {
            placement: crate::model::Placement {
                comp_numa: 0,
                comm_numa: 0,
            },
            cores: 1,
            quantity: 0,
            sorted: sorted.clone(),
            runs: std::iter::once(0..blocks.len()).collect(),
            launches: vec![0],
            blocks,
            median: 100.0,
        };
        let batched = group(blocks);
        let single = group(sorted.iter().map(|&v| vec![v]).collect());
        let sampler = Resampler::new(&[batched.clone(), single.clone()]);
        let mut rng = SplitMix64(5);
        let spread = |g: &Group, rng: &mut SplitMix64| {
            let v: Vec<f64> = (0..2000)
                .map(|_| sampler.draw(std::slice::from_ref(g), rng)[0])
                .collect();
            let m = v.iter().sum::<f64>() / v.len() as f64;
            (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / v.len() as f64).sqrt()
        };
        let (b, s) = (spread(&batched, &mut rng), spread(&single, &mut rng));
        assert!(b > 2.0 * s, "batches {b} vs samples {s}");
    }

    /// 20 groups of one phase, each 60 rounds of an AR(1) series with coefficient `phi`
    /// (seeded), cut into 7 batches as a trace's phase is.
    fn ar1_groups(phi: f64, seed: u64) -> Vec<Group> {
        let mut rng = SplitMix64(seed);
        (0..20u32)
            .map(|cores| {
                let mut x = 0.0f64;
                let rounds: Vec<f64> = (0..60)
                    .map(|_| {
                        // A sum of uniforms: near normal, unit variance.
                        let e: f64 = (0..12).map(|_| rng.unit()).sum::<f64>() - 6.0;
                        x = phi * x + (1.0 - phi * phi).sqrt() * e;
                        1000.0 * (1.0 + 0.01 * x)
                    })
                    .collect();
                let b = crate::stats::batch_count(rounds.len());
                let blocks: Vec<Vec<f64>> = (0..b)
                    .map(|i| rounds[i * 60 / b..(i + 1) * 60 / b].to_vec())
                    .collect();
                let mut sorted = rounds.clone();
                sorted.sort_by(f64::total_cmp);
                Group {
                    placement: crate::model::Placement {
                        comp_numa: 0,
                        comm_numa: 0,
                    },
                    cores: cores + 1,
                    quantity: 0,
                    median: crate::stats::median(&sorted).unwrap(),
                    sorted,
                    runs: std::iter::once(0..blocks.len()).collect(),
                    launches: vec![0],
                    blocks,
                }
            })
            .collect()
    }

    #[test]
    fn correlated_rounds_widen_the_resampled_medians_and_independent_ones_hardly() {
        // Rounds as correlated as the simulated machine's (AR(1) 0.7): batches of about 8
        // rounds are correlated with their neighbours, and the widening must see it.
        // Independent rounds: only the expanded percentile's sqrt(m / (m - 1)) t_(m-1) / z,
        // 1.35 for 7 batches (up to the estimate's noise).
        let correlated = widening(&ar1_groups(0.7, 3))[0];
        let independent = widening(&ar1_groups(0.0, 3))[0];
        assert!(correlated > 1.2, "AR(1) 0.7: widening {correlated}");
        assert!(
            (1.2..1.5).contains(&independent),
            "independent rounds: widening {independent}"
        );
        assert!(
            correlated > 1.2 * independent,
            "{correlated} vs {independent}"
        );
        // Phases with no trace group (CSV repetitions) are never widened.
        let csv: Vec<Group> = ar1_groups(0.7, 3)
            .into_iter()
            .map(|g| Group {
                blocks: g.sorted.iter().map(|&v| vec![v]).collect(),
                ..g
            })
            .collect();
        assert_eq!(widening(&csv), [1.0; 4]);
    }

    #[test]
    fn students_quantile_is_the_tables() {
        // t_(0.975) for 4, 6 and 30 degrees of freedom: 2.776, 2.447, 2.042.
        for (nu, t) in [(4.0, 2.776), (6.0, 2.447), (30.0, 2.042)] {
            let got = t_over_z(nu) * 1.959_964;
            assert!((got / t - 1.0).abs() < 3e-3, "nu {nu}: {got} vs {t}");
        }
    }

    #[test]
    fn a_t_seq_max_the_refits_bound_from_below_only_has_an_interval_open_above() {
        let henri = crate::model::paper::model("henri").local;
        let least = crate::model::bandwidth::least_t_seq_max(&henri, 18);
        // henri's cap binds at 17 and 18 cores, within 1 % of T(n).
        assert!(!t_seq_max_open(&henri, 18) && henri.t_seq_max > 0.98 * least);
        let at = |t: f64| Params {
            t_seq_max: t,
            ..henri
        };
        assert!(t_seq_max_open(&at(least), 18) && t_seq_max_open(&at(1.1 * least), 18));
        // 100 refits below the edge, spread by 1 MB/s steps.
        let below: Vec<Params> = (0..100)
            .map(|i| at(least - 1000.0 + f64::from(i)))
            .collect();
        let closed = intervals(&below, 18).unwrap().as_array()[Params::T_SEQ_MAX];
        assert!(!crate::model::uncertainty::open_above(closed), "{closed:?}");
        assert!(closed[1] < least, "{closed:?}");
        // Two of them (2 %) at the edge: still the two-sided percentile interval.
        let mut two = below.clone();
        two[0] = at(least);
        two[1] = at(least);
        let iv = intervals(&two, 18).unwrap().as_array()[Params::T_SEQ_MAX];
        assert!(!crate::model::uncertainty::open_above(iv), "{iv:?}");
        // Ten at the edge: their upper percentile is not known, so the interval is one-sided,
        // from the 5th percentile of every refit.
        let mut ten = below.clone();
        for p in ten.iter_mut().take(10) {
            *p = at(least);
        }
        let [lo, hi] = intervals(&ten, 18).unwrap().as_array()[Params::T_SEQ_MAX];
        assert_eq!(hi, crate::model::constraints::MAX_BANDWIDTH);
        let mut v: Vec<f64> = ten.iter().map(|p| p.t_seq_max).collect();
        v.sort_unstable_by(f64::total_cmp);
        assert_eq!(lo, quantile(&v, 1.0 - LEVEL));
        // The other parameters keep their percentile intervals.
        let plain = intervals(&below, 18).unwrap().as_array();
        let opened = intervals(&ten, 18).unwrap().as_array();
        assert_eq!(plain[Params::B_SEQ_COMP], opened[Params::B_SEQ_COMP]);
    }

    #[test]
    fn percentile_intervals_interpolate() {
        let v: Vec<f64> = (0..=100).map(f64::from).collect();
        let [lo, hi] = percentile_interval(&v).unwrap();
        assert!(
            (lo - 2.5).abs() < 1e-9 && (hi - 97.5).abs() < 1e-9,
            "{lo} {hi}"
        );
        assert_eq!(percentile_interval(&[]), None);
    }

    #[test]
    fn runs_are_resampled_before_their_batches_and_their_spread_makes_the_interval() {
        // Three runs of 8 batches each, at levels 10 % apart, each run steady (+-0.1 %): three
        // independent launches, whatever the number of batches.
        let level = [900.0, 1000.0, 1100.0];
        let blocks: Vec<Vec<f64>> = level
            .iter()
            .flat_map(|&l| {
                (0..8).map(move |b| vec![l + 0.1 * f64::from(b), l - 0.1 * f64::from(b)])
            })
            .collect();
        let mut sorted = blocks.concat();
        sorted.sort_by(f64::total_cmp);
        let group = |runs: Vec<std::ops::Range<usize>>| Group {
            placement: crate::model::Placement {
                comp_numa: 0,
                comm_numa: 0,
            },
            cores: 1,
            quantity: 0,
            sorted: sorted.clone(),
            blocks: blocks.clone(),
            launches: (0..runs.len()).collect(),
            runs,
            median: 1000.0,
        };
        let runs = group(vec![0..8, 8..16, 16..24]);
        let one = group(std::iter::once(0..24).collect());
        assert!(runs.of_runs() && !one.of_runs());
        let interval = |g: &Group| {
            let sampler = Resampler::new(std::slice::from_ref(g));
            let mut rng = SplitMix64(3);
            let v: Vec<f64> = (0..2000)
                .map(|_| sampler.draw(std::slice::from_ref(g), &mut rng)[0])
                .collect();
            percentile_interval(&v).unwrap()
        };
        let [lo, hi] = interval(&runs);
        // Every run's level inside, as a run-level interval from three runs must hold.
        assert!(lo < 900.0 && hi > 1100.0, "runs: {lo} {hi}");
        // The same batches pooled as one run's: 24 batches drawn as if independent, where
        // only 3 runs are, give an interval under half as wide.
        let [lo1, hi1] = interval(&one);
        assert!(
            hi - lo > 2.0 * (hi1 - lo1),
            "runs {lo}..{hi}, one run {lo1}..{hi1}"
        );
    }

    /// A group of one phase at `cores` whose runs (one per launch of `launches`) each hold 8
    /// batches of 2 samples steady around `levels[k]`.
    fn runs_group(cores: u32, levels: &[f64], launches: Vec<usize>) -> Group {
        let blocks: Vec<Vec<f64>> = levels
            .iter()
            .flat_map(|&l| {
                (0..8).map(move |b| {
                    let d = 1e-4 * f64::from(b);
                    vec![l * (1.0 + d), l * (1.0 - d)]
                })
            })
            .collect();
        let mut sorted = blocks.concat();
        sorted.sort_by(f64::total_cmp);
        Group {
            placement: crate::model::Placement {
                comp_numa: 0,
                comm_numa: 0,
            },
            cores,
            quantity: 1,
            sorted,
            runs: (0..levels.len()).map(|k| 8 * k..8 * (k + 1)).collect(),
            launches,
            blocks,
            median: crate::stats::median(levels).unwrap(),
        }
    }

    /// Issue 43, item 1: stretched on the linear scale, two runs 22 % apart (7 cores'
    /// communications alone in `measure --simulate paper:henri --runs 2`) drew -4769 MB/s
    /// in a quarter of the resamples; and batches far apart, stretched by a large batch
    /// widening, went below zero too.
    #[test]
    fn no_resample_draws_a_bandwidth_at_or_below_zero() {
        let g = runs_group(7, &[12977.0, 9486.0], vec![0, 1]);
        assert!(g.of_runs());
        let sampler = Resampler::new(std::slice::from_ref(&g));
        let mut rng = SplitMix64(43);
        let draws: Vec<f64> = (0..20_000)
            .map(|_| sampler.draw(std::slice::from_ref(&g), &mut rng)[0])
            .collect();
        let lowest = draws.iter().copied().fold(f64::INFINITY, f64::min);
        assert!(lowest > 0.0, "two runs: a draw of {lowest} MB/s");
        // Still as wide as two runs ask: the interval reaches well beyond both.
        let [lo, hi] = percentile_interval(&draws).unwrap();
        assert!(lo < 9486.0 / 2.0 && hi > 2.0 * 12977.0, "{lo} {hi}");

        // One run of 8 batches from 400 to 1600 MB/s, widened by 5 (the batch widening
        // reaches 4.8 at 5 batches as correlated as it believes).
        let blocks: Vec<Vec<f64>> = (0..8)
            .map(|b| vec![400.0 + 1200.0 * f64::from(b) / 7.0; 2])
            .collect();
        let mut sorted = blocks.concat();
        sorted.sort_by(f64::total_cmp);
        let g = Group {
            runs: std::iter::once(0..8).collect(),
            launches: vec![0],
            median: crate::stats::median(&sorted).unwrap(),
            sorted,
            blocks,
            ..runs_group(1, &[1.0], vec![0])
        };
        let sampler = Resampler {
            widening: [5.0; 4],
            ..Resampler::new(std::slice::from_ref(&g))
        };
        let lowest = (0..20_000)
            .map(|_| sampler.draw(std::slice::from_ref(&g), &mut rng)[0])
            .fold(f64::INFINITY, f64::min);
        assert!(lowest > 0.0, "batches: a draw of {lowest} MB/s");
    }

    /// Pearson's correlation of `a` and `b`.
    fn correlation(a: &[f64], b: &[f64]) -> f64 {
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        let (ma, mb) = (mean(a), mean(b));
        let cov: f64 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
        let var = |v: &[f64], m: f64| v.iter().map(|x| (x - m).powi(2)).sum::<f64>();
        cov / (var(a, ma) * var(b, mb)).sqrt()
    }

    /// Issue 43, item 2: a launch's level is shared by every core count it measures, so the
    /// resampled medians of two groups of the same runs move together; drawn group by group
    /// they were independent.
    #[test]
    fn groups_of_the_same_launches_are_resampled_together() {
        let a = runs_group(1, &[900.0, 1000.0, 1100.0], vec![0, 1, 2]);
        let b = runs_group(2, &[1800.0, 2000.0, 2200.0], vec![0, 1, 2]);
        // A run stopped before this core count: launches 0 and 1 only.
        let c = runs_group(3, &[2700.0, 3000.0], vec![0, 1]);
        let medians = |groups: &[Group]| {
            let sampler = Resampler::new(groups);
            let mut rng = SplitMix64(9);
            let draws: Vec<Vec<f64>> = (0..4000).map(|_| sampler.draw(groups, &mut rng)).collect();
            (0..groups.len())
                .map(|i| draws.iter().map(|d| d[i]).collect::<Vec<f64>>())
                .collect::<Vec<_>>()
        };
        let m = medians(&[a.clone(), b.clone(), c.clone()]);
        let ab = correlation(&m[0], &m[1]);
        assert!(ab > 0.95, "shared launches: correlation {ab}");
        // The incomplete group follows the launches it has, and draws its own runs alike.
        let ac = correlation(&m[0], &m[2]);
        assert!(ac > 0.2, "incomplete run: correlation {ac}");
        // Both of its runs drawn as often: as often both low as both high.
        let share = |keep: &dyn Fn(f64) -> bool| {
            m[2].iter().filter(|&&v| keep(v)).count() as f64 / m[2].len() as f64
        };
        let (low, high) = (
            share(&|v| v < 0.99 * c.median),
            share(&|v| v > 1.01 * c.median),
        );
        assert!(
            (low - 0.25).abs() < 0.03 && (high - 0.25).abs() < 0.03,
            "{low} {high}"
        );
        // Launches of their own (three other launches per group): independent.
        let apart = |g: &Group, at: usize| Group {
            launches: g.launches.iter().map(|l| l + 3 * at).collect(),
            ..g.clone()
        };
        let m = medians(&[apart(&a, 0), apart(&b, 1)]);
        let ab = correlation(&m[0], &m[1]);
        assert!(ab.abs() < 0.1, "separate launches: correlation {ab}");
    }

    /// henri's local side on one socket of 18 cores, every core count and phase in 3 runs
    /// whose levels are shared by every core count (up to 0.3 % per point), 8 batches of 2
    /// samples a run: the groups of `fit::groups`, and the truth to refit from.
    fn shared_run_groups() -> (Model, Vec<Group>) {
        let paper = crate::model::paper::model("henri");
        let truth = Model {
            machine: crate::model::Machine {
                numa_nodes: 1,
                ..paper.machine.clone()
            },
            remote: None,
            ..paper
        };
        let placement = crate::model::Placement {
            comp_numa: 0,
            comm_numa: 0,
        };
        let cores: Vec<u32> = (1..=18).collect();
        let rows = crate::trace::predicted_rows(
            &crate::model::predict(&truth, &[placement], &cores).unwrap(),
        );
        // Per run, per phase: the launch's level.
        let levels = [
            [0.96, 0.97, 0.95, 0.94],
            [1.0, 1.0, 1.0, 1.0],
            [1.04, 1.03, 1.05, 1.06],
        ];
        let mut rng = SplitMix64(17);
        let mut groups = Vec::new();
        for r in &rows {
            let bw = [r.comp_alone, r.comm_alone, r.comp_parallel, r.comm_parallel];
            for q in 0..4 {
                let runs: Vec<f64> = levels
                    .iter()
                    .map(|l| bw[q] * l[q] * (1.0 + 0.003 * rng.symmetric()))
                    .collect();
                groups.push(Group {
                    quantity: q,
                    ..runs_group(r.cores, &runs, vec![0, 1, 2])
                });
            }
        }
        (truth, groups)
    }

    /// Issue 43, item 2: a parameter fitted across core counts (`b_seq_comp` from
    /// computations alone at every count below the plateau, `b_seq_comm` from communications
    /// alone at every count) reads the run levels of all of them at once; resampled core
    /// count by core count, the levels averaged away and its interval came out narrower than
    /// the runs' spread.
    #[test]
    fn whole_launches_widen_the_interval_of_a_parameter_fitted_across_core_counts() {
        let (truth, groups) = shared_run_groups();
        let width = |groups: &[Group]| {
            let sets: Vec<Params> = replicates(&truth, groups, 60, 5)
                .models
                .iter()
                .map(|m| m.local)
                .collect();
            let iv = intervals(&sets, 18).unwrap();
            let w = |name: &str| {
                let [lo, hi] = iv.get(name).unwrap();
                (hi - lo)
                    / truth
                        .local
                        .named()
                        .iter()
                        .find(|(n, _)| *n == name)
                        .unwrap()
                        .1
            };
            (w("b_seq_comp"), w("b_seq_comm"))
        };
        let (comp, comm) = width(&groups);
        let apart: Vec<Group> = groups
            .iter()
            .enumerate()
            .map(|(i, g)| Group {
                launches: g.launches.iter().map(|l| l + 3 * i).collect(),
                ..g.clone()
            })
            .collect();
        let (comp_apart, comm_apart) = width(&apart);
        // The runs' levels 4 % either side, widened for three runs: some 25 % of the value
        // wide, where 18 core counts drawn apart average them to under a third of that.
        assert!(
            comp > 2.0 * comp_apart && comm > 2.0 * comm_apart,
            "b_seq_comp {comp} vs {comp_apart} apart, b_seq_comm {comm} vs {comm_apart} apart"
        );
    }

    /// The run-level interval of one group holds the truth in about 95 % of groups of three
    /// runs whose levels scatter log-normally: the drawn runs' spread read as a mean's, which
    /// Hesterberg's factor corrects ([`run_shift`]); read as their median's it held it in
    /// about 91.5 %.
    #[test]
    fn the_interval_of_three_runs_holds_the_truth_in_95_percent() {
        let mut rng = crate::simulate::Rng::new(3);
        let mut boot = SplitMix64(4);
        let trials = 1000;
        let mut held = 0;
        for _ in 0..trials {
            let levels: Vec<f64> = (0..3)
                .map(|_| 1000.0 * (0.05 * rng.normal()).exp())
                .collect();
            let g = runs_group(1, &levels, vec![0, 1, 2]);
            let sampler = Resampler::new(std::slice::from_ref(&g));
            let draws: Vec<f64> = (0..300)
                .map(|_| sampler.draw(std::slice::from_ref(&g), &mut boot)[0])
                .collect();
            let [lo, hi] = percentile_interval(&draws).unwrap();
            held += usize::from(lo <= 1000.0 && 1000.0 <= hi);
        }
        let share = held as f64 / f64::from(trials);
        assert!((0.93..=0.97).contains(&share), "{share}");
    }

    /// Issue 46, F9: the bound on `--bootstrap` keeps the model file below the readers'
    /// limit, at the widest numbers and with both sides of the cpu-copy variant.
    #[test]
    fn the_most_resamples_keep_a_model_file_readable() {
        fn widest(v: &mut serde_json::Value) {
            match v {
                serde_json::Value::Number(n) if n.is_u64() => *v = u32::MAX.into(),
                serde_json::Value::Number(_) => *v = (-f64::MAX).into(),
                serde_json::Value::Object(o) => o.values_mut().for_each(widest),
                serde_json::Value::Array(a) => a.iter_mut().for_each(widest),
                _ => {}
            }
        }
        let m = crate::io::model_file::load("paper:henri").unwrap();
        let mut side = m.local;
        side.law = crate::model::Law::CpuCopy { kappa: 0.5 };
        let replicate = crate::model::uncertainty::Replicate {
            local: side,
            remote: Some(side),
        };
        let mut v = serde_json::to_value(replicate).unwrap();
        widest(&mut v);
        let text = serde_json::to_string_pretty(&v).unwrap();
        // In the file each line sits three levels (6 spaces) deeper than here.
        let one = text.len() + text.lines().count() * 8;
        assert!(one < 1500, "{one} bytes a resample");
        let file = one * MAX_RESAMPLES as usize;
        assert!(
            (file as u64) < crate::io::read::MAX_INPUT_BYTES / 4,
            "{file} bytes"
        );
    }
}
