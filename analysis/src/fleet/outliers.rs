//! The robust band that names a node's parameter as an outlier of its fleet.
//!
//! The centre is the median across nodes and the scale the median absolute deviation (MAD),
//! so that one or two broken nodes do not move the band that judges them, as a mean and a
//! standard deviation would (Hampel's identifier; Rousseeuw and Croux, "Alternatives to the
//! Median Absolute Deviation", JASA 88(424), 1993). `1.4826 x MAD` estimates the standard
//! deviation of normal data, so `k = 3` flags what would be three standard deviations off.
//!
//! A MAD of 0 is common on a fleet: identical nodes give the same `N_seq^max`, and a
//! plateau's median (the calibration's tie rule) often gives the very same bandwidth. A band
//! of width 0 would then call every last-digit difference an outlier, so the scale never goes
//! below a floor the caller gives (a fraction of the median, and for core counts one core):
//! differences below the measurement noise are not told apart.

use serde::Serialize;

use crate::stats::MAD_TO_SIGMA;

/// The band of one parameter across the fleet.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Band {
    pub median: f64,
    /// Median absolute deviation from `median`.
    pub mad: f64,
    pub min: f64,
    pub max: f64,
    /// The scale used: `max(1.4826 x MAD, floor)`.
    pub(crate) sigma: f64,
    /// True when the floor, not the MAD, set the scale (a MAD of 0, or below the noise).
    pub(crate) floored: bool,
    /// `k x sigma`: a value farther than this from the median is an outlier.
    pub(crate) half_width: f64,
    pub low: f64,
    pub high: f64,
}

impl Band {
    /// Whether `x` lies outside the band, `|x - median| > k x sigma`, widened to
    /// `node_half_width` when that is wider: `k` times the node's own noise between runs,
    /// which a fleet's spread must not be narrower than (0 for none).
    pub(crate) fn outside(&self, x: f64, node_half_width: f64) -> bool {
        (x - self.median).abs() > self.half_width.max(node_half_width)
    }

    /// How far `x` lies from the median, in units of `sigma` (signed).
    pub fn score(&self, x: f64) -> f64 {
        (x - self.median) / self.sigma
    }
}

/// The band of `values` with `k` scales on either side of the median, the scale being at
/// least `floor` (> 0). `None` for no finite value. With one value the band is the floor
/// around it; with two the median is their mean and each lies `MAD` from it, inside any band
/// with `k >= 1 / 1.4826`: two nodes cannot say which of them is off.
pub(crate) fn band(values: &[f64], k: f64, floor: f64) -> Option<Band> {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    let median = crate::stats::median(&finite)?;
    let deviations: Vec<f64> = finite.iter().map(|v| (v - median).abs()).collect();
    let mad = crate::stats::median(&deviations)?;
    let from_mad = MAD_TO_SIGMA * mad;
    let floor = if floor.is_finite() && floor > 0.0 {
        floor
    } else {
        f64::MIN_POSITIVE
    };
    let (sigma, floored) = if from_mad >= floor {
        (from_mad, false)
    } else {
        (floor, true)
    };
    let half_width = k * sigma;
    Some(Band {
        median,
        mad,
        min: finite.iter().copied().fold(f64::INFINITY, f64::min),
        max: finite.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        sigma,
        floored,
        half_width,
        low: median - half_width,
        high: median + half_width,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_data_gives_the_textbook_median_and_mad() {
        // Median 10; deviations 2,1,0,1,40 -> MAD 1; sigma 1.4826; band 10 +- 4.4478.
        let b = band(&[8.0, 9.0, 10.0, 11.0, 50.0], 3.0, 1e-9).unwrap();
        assert_eq!(b.median, 10.0);
        assert_eq!(b.mad, 1.0);
        assert!(!b.floored);
        assert!((b.half_width - 3.0 * 1.4826).abs() < 1e-12);
        assert_eq!((b.min, b.max), (8.0, 50.0));
        assert!(b.outside(50.0, 0.0));
        assert!(!b.outside(8.0, 0.0) && !b.outside(11.0, 0.0));
        // Just outside and just inside k = 3.
        assert!(b.outside(10.0 + 4.45, 0.0) && !b.outside(10.0 - 4.44, 0.0));
        assert!((b.score(50.0) - 40.0 / 1.4826).abs() < 1e-9);
        // A smaller k narrows the band: 8 is 1.35 sigma off, 11 is 0.67.
        let tight = band(&[8.0, 9.0, 10.0, 11.0, 50.0], 1.0, 1e-9).unwrap();
        assert!(tight.outside(8.0, 0.0) && !tight.outside(11.0, 0.0));
    }

    #[test]
    fn a_zero_mad_falls_back_to_the_floor() {
        let v = [100.0, 100.0, 100.0, 100.0, 103.5];
        let b = band(&v, 3.0, 1.0).unwrap();
        assert_eq!(b.mad, 0.0);
        assert!(b.floored);
        assert_eq!(b.sigma, 1.0);
        assert!(b.outside(103.5, 0.0), "3.5 > 3 x floor");
        assert!(!b.outside(102.9, 0.0));
        // Without a usable floor the band is not empty of meaning: equal values stay in.
        let b = band(&[5.0, 5.0, 5.0], 3.0, 0.0).unwrap();
        assert!(!b.outside(5.0, 0.0));
    }

    #[test]
    fn one_node_is_its_own_median_and_never_an_outlier() {
        let b = band(&[42.0], 3.0, 0.42).unwrap();
        assert_eq!((b.median, b.mad, b.min, b.max), (42.0, 0.0, 42.0, 42.0));
        assert!(b.floored && !b.outside(42.0, 0.0));
        assert!(band(&[], 3.0, 1.0).is_none());
        assert!(band(&[f64::NAN], 3.0, 1.0).is_none());
    }

    #[test]
    fn two_nodes_cannot_name_which_one_is_off() {
        for (a, b) in [(1.0, 2.0), (100.0, 1000.0), (-5.0, 7.0)] {
            let band = band(&[a, b], 3.0, 1e-6).unwrap();
            assert_eq!(band.median, (a + b) / 2.0);
            assert!(
                !band.outside(a, 0.0) && !band.outside(b, 0.0),
                "{a} {b}: {band:?}"
            );
        }
    }
}
