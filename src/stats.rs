//! Small statistics used on measurements: summaries and a distribution-free confidence
//! interval of the median, which decides when a phase has been sampled enough.

use crate::trace::Summary;

/// Median of `values` (mean of the two middle ones for an even count); NaN when empty.
pub fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    median_sorted(&v)
}

fn median_sorted(v: &[f64]) -> f64 {
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Median, mean, sample standard deviation, extremes and count.
pub fn summarize(values: &[f64]) -> Summary {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
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
        median: median_sorted(&v),
        mean,
        stddev,
        min: v.first().copied().unwrap_or(f64::NAN),
        max: v.last().copied().unwrap_or(f64::NAN),
        count: n as u64,
    }
}

/// Approximate 95% confidence interval of the median from order statistics (no assumption
/// on the distribution): ranks `n/2 -+ 1.96 sqrt(n)/2` (Conover, *Practical Nonparametric
/// Statistics*, 3rd ed., section 3.2). `None` below 6 values, where the interval would be
/// the whole range.
pub fn median_ci95(values: &[f64]) -> Option<(f64, f64)> {
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

/// Half-width of [`median_ci95`] relative to the median, or `None` when there are too few
/// values to say.
pub fn relative_ci95(values: &[f64]) -> Option<f64> {
    let (lo, hi) = median_ci95(values)?;
    let m = median(values);
    (m > 0.0).then(|| (hi - lo) / 2.0 / m)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(lo <= median(&steady) && median(&steady) <= hi);
    }
}
