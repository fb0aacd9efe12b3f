//! The seeded random numbers of a simulated machine: SplitMix64 (Steele, Lea and Flood, "Fast
//! splittable pseudorandom number generators", OOPSLA 2014) and normal deviates by the
//! Box-Muller transform (Box and Muller, "A note on the generation of random normal deviates",
//! Annals of Mathematical Statistics 29(2), 1958).
//!
//! The generator is the one the bootstrap uses ([`crate::stats::SplitMix64`]), wrapped to add
//! normal deviates and independent forks.

use crate::stats::SplitMix64;

/// A small, seeded, portable generator: the same seed draws the same machine everywhere.
#[derive(Debug, Clone)]
pub struct Rng(SplitMix64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(SplitMix64(seed))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        self.0.unit()
    }

    /// A standard normal deviate (Box-Muller, one of the pair).
    pub fn normal(&mut self) -> f64 {
        // 1 - unit() is in (0, 1]: its logarithm is finite.
        let u = 1.0 - self.unit();
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    /// An independent generator for one part of a campaign (a phase, a stream), so that the
    /// numbers one part draws do not depend on how many another drew.
    pub fn fork(&mut self, salt: u64) -> Rng {
        Rng::new(self.next_u64() ^ salt.wrapping_mul(0xD6E8_FEB8_6659_FD93))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_draws_the_same_numbers() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
        assert_ne!(Rng::new(7).next_u64(), Rng::new(8).next_u64());
    }

    #[test]
    fn normal_deviates_have_mean_0_and_variance_1() {
        let mut r = Rng::new(42);
        let n = 20_000;
        let x: Vec<f64> = (0..n).map(|_| r.normal()).collect();
        let mean = x.iter().sum::<f64>() / n as f64;
        let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        assert!(mean.abs() < 0.03, "{mean}");
        assert!((var - 1.0).abs() < 0.05, "{var}");
    }
}
