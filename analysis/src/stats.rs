//! Robust statistics for noisy bandwidth measurements: medians rather than means, because a
//! single disturbed iteration (a page fault, an interrupt, a late message) must not move a
//! summary, and the median absolute deviation as the matching measure of spread; summaries of
//! a phase and a distribution-free confidence interval of the median, which decides when a
//! phase has been sampled enough; and the quantiles that box plots and bootstrap intervals are
//! read from; and the seeded generator that the bootstrap and the simulated machines draw from.

use crate::trace::Summary;

/// `1 / Phi^-1(3/4)`: scales the median absolute deviation to the standard deviation of a
/// normal distribution (Rousseeuw and Croux, "Alternatives to the Median Absolute Deviation",
/// JASA 88(424), 1993).
pub(crate) const MAD_TO_SIGMA: f64 = 1.4826;

/// `sqrt(pi / 2)`: the standard error of the median of `n` normal values is this times
/// `sigma / sqrt(n)` for large `n` (the median's asymptotic relative efficiency is `2 / pi`;
/// Kenney and Keeping, "Mathematics of Statistics", 1962, section 13.13).
pub(crate) const MEDIAN_SE_FACTOR: f64 = 1.2533;

/// The median of `values` (the mean of the two middle ones for an even count), reordering them
/// in place; `None` when empty. Runs in linear time (selection, not sorting), which matters
/// for traces with thousands of samples per phase.
pub(crate) fn median_in_place(values: &mut [f64]) -> Option<f64> {
    let n = values.len();
    if n == 0 {
        return None;
    }
    let mid = n / 2;
    let (lower, &mut upper_mid, _) = values.select_nth_unstable_by(mid, f64::total_cmp);
    if n % 2 == 1 {
        return Some(upper_mid);
    }
    let lower_mid = lower.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some((lower_mid + upper_mid) / 2.0)
}

/// How many batches of consecutive rounds a stream of `rounds` rounds is cut into when the
/// rounds are correlated: `sqrt(rounds)`, 4 to 20, and never batches of fewer than two rounds
/// (at least one batch). Non-overlapping batch means (Schmeiser, "Batch size effects in the
/// analysis of simulation output", Operations Research 30(3), 1982): the benchmark's stopping
/// rule reads the interval of a phase's median from these batches, and the calibration's
/// bootstrap resamples them whole, so that both see the same correlation.
pub fn batch_count(rounds: usize) -> usize {
    ((rounds as f64).sqrt() as usize)
        .clamp(4, 20)
        .min(rounds / 2)
        .max(1)
}

/// The median of `values`, leaving them untouched.
pub fn median(values: &[f64]) -> Option<f64> {
    median_in_place(&mut values.to_vec())
}

/// The relative standard error of the median of `values`: the robust spread
/// (`MAD_TO_SIGMA * MAD`) divided by the median, times `MEDIAN_SE_FACTOR / sqrt(n)`.
///
/// `None` with fewer than two values or a median that is not > 0: nothing can be said of the
/// spread then. Reorders `values`.
pub(crate) fn relative_se_of_median(values: &mut [f64]) -> Option<f64> {
    let n = values.len();
    if n < 2 {
        return None;
    }
    let med = median_in_place(values)?;
    if !(med > 0.0 && med.is_finite()) {
        return None;
    }
    for v in values.iter_mut() {
        *v = (*v - med).abs();
    }
    let mad = median_in_place(values)?;
    let sigma = MAD_TO_SIGMA * mad / med;
    Some(MEDIAN_SE_FACTOR * sigma / (n as f64).sqrt())
}

/// Mean absolute percentage error, `100 / n * sum |a - p| / a` (the paper's section 4.2), of
/// `(measured, predicted)` pairs; `None` for no pairs.
pub(crate) fn mape(pairs: impl IntoIterator<Item = (f64, f64)>) -> Option<f64> {
    let (sum, n) = pairs.into_iter().fold((0.0, 0usize), |(s, n), (a, p)| {
        (s + ((a - p) / a).abs(), n + 1)
    });
    (n > 0).then(|| 100.0 * sum / n as f64)
}

/// Median, mean, sample standard deviation, extremes and count (NaN statistics when empty).
pub fn summarize(values: &[f64]) -> Summary {
    let mut v = values.to_vec();
    let n = v.len();
    let mean = if n == 0 {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / n as f64
    };
    let stddev = if n < 2 {
        0.0
    } else {
        (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
    };
    Summary {
        median: median_in_place(&mut v).unwrap_or(f64::NAN),
        mean,
        stddev,
        min: v.iter().copied().fold(f64::NAN, f64::min),
        max: v.iter().copied().fold(f64::NAN, f64::max),
        count: n as u64,
    }
}

/// Approximate 95% confidence interval of the median from order statistics (no assumption
/// on the distribution): ranks `n/2 -+ 1.96 sqrt(n)/2` (Conover, *Practical Nonparametric
/// Statistics*, 3rd ed., section 3.2). `None` below 6 values, where the interval would be
/// the whole range.
pub(crate) fn median_ci95(values: &[f64]) -> Option<(f64, f64)> {
    let n = values.len();
    if n < 6 {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let half = 1.96 * (n as f64).sqrt() / 2.0;
    let lo = ((n as f64 / 2.0 - half).floor().max(0.0)) as usize;
    let hi = ((n as f64 / 2.0 + half).ceil() as usize).min(n - 1);
    Some((v[lo], v[hi]))
}

/// Student's 97.5 % quantile with `nu` degrees of freedom: the tables for 1 to 5 (where the
/// expansion below is off by 1 % to 60 %), else the Cornish-Fisher expansion in `1 / nu`
/// (Abramowitz and Stegun, 26.7.5; within 0.1 % of the tables from `nu = 6`).
pub(crate) fn student_t975(nu: f64) -> f64 {
    const TABLE: [f64; 5] = [12.706, 4.303, 3.182, 2.776, 2.571];
    let nu = nu.max(1.0);
    if nu.fract() == 0.0 && nu <= 5.0 {
        return TABLE[nu as usize - 1];
    }
    let z: f64 = 1.959_963_984_540_054;
    let (z3, z5, z7) = (z.powi(3), z.powi(5), z.powi(7));
    z + (z3 + z) / (4.0 * nu)
        + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * nu * nu)
        + (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / (384.0 * nu.powi(3))
}

/// The 95 % interval another run's value falls in, from the values of `R >= 2` runs (a
/// phase's median in each): Student's prediction interval on the logarithms,
/// `exp(mean +- t_(R-1) s sqrt(1 + 1/R))` (Hahn and Meeker, *Statistical Intervals*, 1991,
/// section 4.7; Geisser, *Predictive Inference*, 1993, chapter 2). Why this one for `R = 2..5`:
/// a new run's median scatters by the whole run-to-run spread, not by the spread of a mean,
/// so a confidence interval of the mean (`t s / sqrt(R)`) holds it in about 68 % of runs at
/// `R = 5`, and the range of the runs (min to max) in `(R - 1) / (R + 1)`: 33 % at `R = 2`,
/// 67 % at `R = 5`. The prediction interval holds it in 95 % for every `R` when the runs'
/// logarithms are normal, and it widens as it must when few runs are known (`t_1 = 12.7`).
/// Logarithms, because run-to-run changes are ratios (a slower page placement, a busier
/// neighbour) and the interval of a bandwidth must stay above zero. `None` with fewer than
/// two values or one that is not a positive bandwidth.
pub(crate) fn run_interval95(values: &[f64]) -> Option<(f64, f64)> {
    let r = values.len();
    if r < 2 || values.iter().any(|v| !(v.is_finite() && *v > 0.0)) {
        return None;
    }
    let logs: Vec<f64> = values.iter().map(|v| v.ln()).collect();
    let n = r as f64;
    let mean = logs.iter().sum::<f64>() / n;
    let s = (logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let half = student_t975(n - 1.0) * s * (1.0 + 1.0 / n).sqrt();
    Some(((mean - half).exp(), (mean + half).exp()))
}

/// The `q`-quantile of ascending `sorted` values, interpolating linearly between order
/// statistics (Hyndman and Fan's type 7, the default of R and NumPy); `q` is clamped to
/// `0..=1`. NaN when empty. An order statistic hit exactly is returned as it is.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        1 => sorted[0],
        n => {
            let h = q.clamp(0.0, 1.0) * (n - 1) as f64;
            let lo = h.floor() as usize;
            let frac = h - lo as f64;
            if frac == 0.0 {
                sorted[lo]
            } else {
                // frac > 0 means h < n - 1, so lo + 1 is in range.
                sorted[lo] + frac * (sorted[lo + 1] - sorted[lo])
            }
        }
    }
}

/// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
/// OOPSLA 2014): small, seeded and portable, so the same seed draws the same numbers on every
/// machine (the bootstrap's resamples; a simulated machine's samples use
/// [`crate::simulate::Rng`], whose parts never share draws).
#[derive(Debug, Clone)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Student's t quantile 0.975 for 1..=20 degrees of freedom.
const T975: [f64; 20] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
];

/// For 4 to 20 batch medians, what turns the root mean square of their deviations from their
/// median, the largest left out (divided by `b - 2`), into an unbiased estimate of their
/// standard deviation when they are normal: the reciprocal of its mean, from 400,000
/// simulated sets of each size (`numpy`, seed 12345; 1.677 at 4 batches, 1.132 at 20).
const TRIMMED_SPREAD_FACTOR: [f64; 17] = [
    1.677, 1.491, 1.415, 1.335, 1.305, 1.262, 1.245, 1.218, 1.206, 1.188, 1.180, 1.166, 1.160,
    1.150, 1.145, 1.136, 1.132,
];

/// 95% confidence interval of the median of `rounds`, treating consecutive rounds as
/// correlated: a memory controller's refresh, a page-table walk or a neighbour's burst slows
/// several rounds in a row, and an interval that assumes independent rounds is then too
/// narrow and stops a phase too early.
///
/// Non-overlapping batch means (Schmeiser, "Batch size effects in the analysis of simulation
/// output", Operations Research 30(3), 1982; Law, *Simulation Modeling and Analysis*, 5th ed.,
/// section 9.5.3), with batch medians for robustness: the rounds are cut into `b = sqrt(n)`
/// batches (4 to 20, [`batch_count`]; the oldest leftover rounds dropped), and the
/// half-width is `t(b-1) * s / sqrt(b)`. The spread `s` of the batch medians is their root
/// mean square deviation from their own median leaving out the one farthest from it, times
/// `TRIMMED_SPREAD_FACTOR`, which makes it unbiased for normal batch medians. The interval
/// is the wider of that one, centred on the median, and the distribution-free
/// order-statistic interval of `median_ci95`, which still catches a spread that
/// batches average away (rounds alternating fast and slow).
///
/// Why one batch is left out: the phase reports the median of its rounds, which a dip of a
/// few rounds hardly moves, while the standard deviation of the batch medians is pulled by
/// the one batch caught in such a dip. On a real 16-core node (computations alone at 12
/// cores: five batch medians within 156-163 GB/s and one at 111 GB/s, where the host held
/// every thread back for 0.15 s) the standard deviation gave +-13.5 % around a median that
/// such dips move by under 1 %; leaving that batch out gives +-1.8 %. Two slow batches of
/// five (a change of regime, which does move the median) still widen it. Over simulated
/// rounds (1,500 draws each of 30, 40 and 60 rounds; coverage of the true median by the 95 %
/// interval, then the same with the plain standard deviation): independent noise 98.3-98.9 %
/// and 98.4-98.9 %; AR(1) rounds of correlation 0.5, 94.2-94.9 % and 94.5-95.0 %, of 0.8,
/// 84.3-87.9 % and 84.1-87.3 % (both short: 30-60 such rounds hold few independent ones);
/// episodes of 3-5 rounds at 65 % speed, 15 % of the time, 96.3-97.1 % and 97.3-98.1 %,
/// with intervals 1.6 to 1.8 times narrower.
///
/// `None` below `min_rounds` rounds (the sweep's `MIN_ROUNDS`), and below 8 rounds whatever
/// `min_rounds` says: [`batch_count`] never makes batches of one round, so 4 to 7 rounds
/// make only 2 or 3 batches, and the spread of so few, one of them left out, is no spread
/// (the factor's table starts at 4 batches; issue 43, item 5).
///
/// The rounds are bandwidths, never below 0, and so is the interval's lower end: a spread
/// as wide as the median (rounds alternating fast and nearly stopped) put `median - half`
/// below 0, an interval every reader of the trace refuses (issue 46, N7).
pub fn batch_median_interval(rounds: &[f64], min_rounds: usize) -> Option<(f64, f64)> {
    let n = rounds.len();
    let b = batch_count(n);
    if n < min_rounds.max(4) || b < 4 {
        return None;
    }
    let mid = median(rounds)?;
    let (os_lo, os_hi) = median_ci95(rounds)?;
    let m = n / b;
    let medians: Vec<f64> = rounds[n - b * m..]
        .chunks_exact(m)
        .filter_map(median)
        .collect();
    let centre = median(&medians)?;
    let mut deviations: Vec<f64> = medians.iter().map(|x| (x - centre).abs()).collect();
    deviations.sort_unstable_by(f64::total_cmp);
    deviations.pop();
    let square_sum: f64 = deviations.iter().map(|d| d * d).sum();
    let spread = TRIMMED_SPREAD_FACTOR[b - 4] * (square_sum / (b - 2) as f64).sqrt();
    let half = T975[b - 2] * spread / (b as f64).sqrt();
    Some((os_lo.min(mid - half).max(0.0), os_hi.max(mid + half)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Half-width of [`median_ci95`] relative to the median.
    fn relative_ci95(values: &[f64]) -> Option<f64> {
        let (lo, hi) = median_ci95(values)?;
        let m = median(values)?;
        (m > 0.0).then(|| (hi - lo) / 2.0 / m)
    }

    #[test]
    fn summary_of_known_values() {
        let s = summarize(&[4.0, 1.0, 3.0, 2.0]);
        assert_eq!(
            (s.median, s.mean, s.min, s.max, s.count),
            (2.5, 2.5, 1.0, 4.0, 4)
        );
        assert!((s.stddev - (5.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert!(summarize(&[]).median.is_nan());
    }

    #[test]
    fn median_interval_narrows_with_more_stable_samples() {
        assert_eq!(median_ci95(&[1.0; 5]), None);
        let noisy: Vec<f64> = (0..10).map(|i| 100.0 + f64::from(i % 5) * 4.0).collect();
        let steady: Vec<f64> = (0..100).map(|i| 100.0 + f64::from(i % 5) * 0.4).collect();
        let (a, b) = (
            relative_ci95(&noisy).unwrap(),
            relative_ci95(&steady).unwrap(),
        );
        assert!(a > 0.01 && b < 0.01, "{a} {b}");
        let (lo, hi) = median_ci95(&steady).unwrap();
        let m = median(&steady).unwrap();
        assert!(lo <= m && m <= hi);
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[7.0]), Some(7.0));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn relative_se_follows_spread_and_count() {
        // Values 99, 100, 101: MAD = 1, sigma = 1.4826 % of 100.
        let se = relative_se_of_median(&mut [99.0, 100.0, 101.0]).unwrap();
        assert!((se - 1.2533 * 0.014826 / 3f64.sqrt()).abs() < 1e-12, "{se}");
        // Four times as many values with the same spread: half the error.
        let mut many: Vec<f64> = (0..12).map(|i| [99.0, 100.0, 101.0][i % 3]).collect();
        let se4 = relative_se_of_median(&mut many).unwrap();
        assert!((se4 - se / 2.0).abs() < 1e-12, "{se4}");
        assert_eq!(relative_se_of_median(&mut [5.0]), None);
        assert_eq!(relative_se_of_median(&mut [0.0, 0.0]), None);
        // One wild value barely moves it: 0.83 %, where the standard deviation of these
        // values (4.5e5, 4470 times the median) would say nothing sensible.
        let wild = relative_se_of_median(&mut [99.0, 100.0, 101.0, 100.0, 1e6]).unwrap();
        assert!(wild < 0.01, "{wild}");
    }

    #[test]
    fn mape_is_the_papers_formula() {
        // |100 - 90| / 100 = 10 %, |200 - 210| / 200 = 5 %: mean 7.5 %.
        let m = mape([(100.0, 90.0), (200.0, 210.0)]).unwrap();
        assert!((m - 7.5).abs() < 1e-12);
        assert_eq!(mape(std::iter::empty()), None);
    }

    #[test]
    fn quantiles_interpolate() {
        assert!(quantile(&[], 0.5).is_nan());
        assert_eq!(quantile(&[7.0], 0.25), 7.0);
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0], 0.5), 2.5);
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.25), 2.0);
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0], 0.25), 1.75);
        assert_eq!(quantile(&[1.0, 9.0], 1.0), 9.0);
        assert_eq!(quantile(&[1.0, 9.0], 7.0), 9.0);
        // An exact order statistic is not interpolated with an infinite neighbour.
        assert_eq!(quantile(&[1.0, 2.0, f64::INFINITY], 0.5), 2.0);
    }

    #[test]
    fn students_quantile_is_the_tables_for_few_runs() {
        for (nu, t) in [
            (1.0, 12.706),
            (2.0, 4.303),
            (4.0, 2.776),
            (6.0, 2.447),
            (30.0, 2.042),
        ] {
            let got = student_t975(nu);
            assert!((got / t - 1.0).abs() < 1e-3, "nu {nu}: {got} vs {t}");
        }
    }

    #[test]
    fn the_run_interval_holds_another_run_in_95_percent_for_two_to_five_runs() {
        // Runs whose medians scatter log-normally by 10 %: for each R, 4000 draws of R runs
        // and one more; the interval of the R must hold the next in 95 % (+- 1 %).
        let mut rng = crate::simulate::Rng::new(11);
        for r in 2..=5usize {
            let mut held = 0;
            for _ in 0..4000 {
                let v: Vec<f64> = (0..=r)
                    .map(|_| 1000.0 * (0.1 * rng.normal()).exp())
                    .collect();
                let (lo, hi) = run_interval95(&v[..r]).unwrap();
                held += usize::from(lo <= v[r] && v[r] <= hi);
            }
            let share = held as f64 / 4000.0;
            assert!((0.94..=0.96).contains(&share), "R = {r}: {share}");
        }
        assert_eq!(run_interval95(&[1000.0]), None);
        assert_eq!(run_interval95(&[1000.0, 0.0]), None);
    }

    /// Issue 43, item 5: 4 to 7 rounds make 2 or 3 batches ([`batch_count`] never makes
    /// batches of one round), and the spread factor's table starts at 4 batches: the
    /// interval indexed it at `b - 4` and panicked, where it is documented to give `None`.
    #[test]
    fn too_few_rounds_for_four_batches_give_no_interval_and_never_panic() {
        for n in 4..=7usize {
            let rounds: Vec<f64> = (0..n).map(|i| 1000.0 + i as f64).collect();
            assert!(batch_count(n) < 4, "{n} rounds");
            assert_eq!(batch_median_interval(&rounds, 4), None, "{n} rounds");
            assert_eq!(batch_median_interval(&rounds, 0), None, "{n} rounds");
        }
        // Eight rounds make four batches of two: an interval, around the median.
        let rounds: Vec<f64> = (0..8).map(|i| 1000.0 + f64::from(i)).collect();
        let (lo, hi) = batch_median_interval(&rounds, 4).unwrap();
        assert!(lo < 1003.5 && 1003.5 < hi, "{lo} {hi}");
    }

    /// Issue 46, N7: batches of rounds nearly stopped beside fast ones spread their medians
    /// by more than the median itself, and the interval's lower end fell below 0 MB/s, an
    /// interval every reader of the trace refuses. A bandwidth's interval starts at 0.
    #[test]
    fn a_median_interval_of_bandwidths_never_goes_below_zero() {
        let rounds: Vec<f64> = (0..16).map(|i| if i < 8 { 1.0 } else { 100.0 }).collect();
        let (lo, hi) = batch_median_interval(&rounds, 4).unwrap();
        let mid = median(&rounds).unwrap();
        assert!(lo == 0.0 && mid <= hi, "{lo} {hi}");
    }
}
