//! Axis scales and tick positions: round steps (1, 2, 2.5, 5 x 10^k), side-by-side axes that
//! share their grid lines, core-count ticks that fit.

/// A y axis from `bottom` to `top` with a tick every `step` (MB/s).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    pub bottom: f64,
    pub(crate) top: f64,
    pub(crate) step: f64,
}

impl Scale {
    pub(crate) fn ticks(&self) -> Vec<f64> {
        let n = ((self.top - self.bottom) / self.step).round() as usize;
        (0..=n)
            .map(|i| self.bottom + i as f64 * self.step)
            .collect()
    }

    pub(crate) fn range(&self) -> (f64, f64) {
        (self.bottom, self.top)
    }
}

/// A scale spanning `lo..hi` with some margin and about five intervals, not forced to start at
/// 0: for judging the spread of samples, where a 0-based axis would flatten it.
pub(crate) fn span_scale(lo: f64, hi: f64) -> Scale {
    let (lo, hi) = if hi > lo {
        (lo, hi)
    } else {
        (lo - 1.0, lo + 1.0)
    };
    let pad = (hi - lo) * 0.05;
    let step = nice_step((hi - lo + 2.0 * pad) / 5.0);
    let bottom = (((lo - pad) / step).floor() * step).max(0.0);
    let top = ((hi + pad) / step).ceil() * step;
    Scale { bottom, top, step }
}

/// The smallest of 1, 2, 2.5, 5 x 10^k at least `raw`.
fn nice_step(raw: f64) -> f64 {
    if !(raw > 0.0 && raw.is_finite()) {
        return 1.0;
    }
    let magnitude = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|&s| s >= raw * (1.0 - 1e-9))
        .unwrap_or(10.0 * magnitude)
}

/// Scales for axes drawn side by side (left and right axes of one panel) with the same number
/// of intervals, so one set of grid lines serves both. Each axis starts at 0 (a bandwidth
/// axis that does not start at 0 exaggerates small losses) and leaves 5 % headroom above its
/// largest value; the interval count (4 to 6) is the one that wastes least height.
pub(crate) fn aligned_scales(maxima: &[f64]) -> Vec<Scale> {
    let best = (4..=6)
        .map(|n| {
            let scales: Vec<Scale> = maxima
                .iter()
                .map(|&m| {
                    let step = nice_step(m.max(1.0) * 1.05 / f64::from(n));
                    Scale {
                        bottom: 0.0,
                        top: step * f64::from(n),
                        step,
                    }
                })
                .collect();
            let waste: f64 = scales
                .iter()
                .zip(maxima)
                .map(|(s, &m)| s.top / m.max(1.0))
                .sum();
            (waste, scales)
        })
        .min_by(|a, b| a.0.total_cmp(&b.0));
    best.map(|(_, s)| s).unwrap_or_default()
}

/// Core-count ticks: multiples of a step chosen so at most `max_ticks` labels fit.
pub(crate) fn core_ticks(max_cores: u32, max_ticks: u32) -> Vec<f64> {
    let step = [1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64, 128]
        .into_iter()
        .find(|&s| max_cores / s <= max_ticks)
        .unwrap_or(max_cores.max(1));
    (1..=max_cores / step)
        .map(|i| f64::from(i * step))
        .collect()
}

/// Tick label of a bandwidth axis: whole MB/s.
pub(crate) fn mbps_label(v: f64) -> String {
    format!("{v:.0}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_steps() {
        assert_eq!(nice_step(2400.0), 2500.0);
        assert_eq!(nice_step(9200.0), 10000.0);
        assert_eq!(nice_step(1.0), 1.0);
        assert_eq!(nice_step(0.03), 0.05);
        assert_eq!(nice_step(0.0), 1.0);
    }

    #[test]
    fn aligned_scales_share_the_interval_count_and_cover_the_data() {
        let s = aligned_scales(&[11450.4, 43655.6]);
        assert_eq!(s.len(), 2);
        let n0 = (s[0].top / s[0].step).round();
        let n1 = (s[1].top / s[1].step).round();
        assert_eq!(n0, n1);
        assert!((4.0..=6.0).contains(&n0));
        assert!(
            s[0].top >= 11450.4 * 1.05 && s[1].top >= 43655.6 * 1.05,
            "{s:?}"
        );
        // Not absurdly loose either: under twice the data.
        assert!(
            s[0].top < 2.0 * 11450.4 && s[1].top < 2.0 * 43655.6,
            "{s:?}"
        );
        assert_eq!(s[0].ticks().first(), Some(&0.0));
        assert_eq!(s[0].ticks().last(), Some(&s[0].top));
    }

    #[test]
    fn span_scales_cover_the_values_without_starting_at_zero() {
        let s = span_scale(10800.0, 11600.0);
        assert!(s.bottom <= 10800.0 && s.bottom > 9000.0, "{s:?}");
        assert!(s.top >= 11600.0 && s.top < 13000.0, "{s:?}");
        let n = s.ticks().len();
        assert!((4..=9).contains(&n), "{s:?}");
        let flat = span_scale(5.0, 5.0);
        assert!(flat.bottom < 5.0 && flat.top > 5.0);
        assert_eq!(span_scale(0.5, 100.0).bottom, 0.0);
    }

    #[test]
    fn core_ticks_fit_and_are_multiples_of_a_step() {
        assert_eq!(core_ticks(18, 7), vec![3.0, 6.0, 9.0, 12.0, 15.0, 18.0]);
        assert_eq!(core_ticks(4, 7), vec![1.0, 2.0, 3.0, 4.0]);
        assert_eq!(
            core_ticks(64, 8),
            (1..=8).map(|i| f64::from(i * 8)).collect::<Vec<_>>()
        );
        assert!(core_ticks(1, 7) == vec![1.0]);
    }
}
