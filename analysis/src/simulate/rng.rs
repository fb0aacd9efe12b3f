//! The seeded random numbers of a simulated machine: ChaCha8 (Bernstein, "ChaCha, a variant
//! of Salsa20", 2008, as `rand_chacha` implements it) and normal deviates by the Box-Muller
//! transform (Box and Muller, "A note on the generation of random normal deviates", Annals
//! of Mathematical Statistics 29(2), 1958).
//!
//! Each part of a campaign (a phase of a point, a stream of a phase, the adaptive sweep's
//! refits) draws from a generator of its own, chosen by a key and a stream number rather than
//! by tags XOR-ed into one seed: with `seed ^ tag`, seed 1's computations in parallel drew
//! exactly seed 3's computations alone (1 ^ 3 = 3 ^ 1), and seed 1 at 4 cores seed 257 at 5.
//! A ChaCha key with its 2^64 streams gives each part numbers of its own whatever the seed,
//! and `rand_chacha` keeps a key's and stream's output the same from one version to the next
//! (it is the cipher's keystream), so a seed draws the same trace everywhere.

use rand_chacha::rand_core::{Rng as _, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A seeded, portable generator: the same key and stream draw the same numbers everywhere.
#[derive(Debug, Clone)]
pub struct Rng(ChaCha8Rng);

impl Rng {
    /// The generator of `seed`: stream 0 of the key `[seed, 0, 0, 0]`.
    pub fn new(seed: u64) -> Rng {
        Rng::keyed([seed, 0, 0, 0], 0)
    }

    /// Stream `stream` of the key made of the four words of `key`: distinct keys, or one key
    /// with distinct streams, draw independent numbers.
    pub fn keyed(key: [u64; 4], stream: u64) -> Rng {
        let mut bytes = [0u8; 32];
        for (chunk, word) in bytes.chunks_exact_mut(8).zip(key) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        let mut r = ChaCha8Rng::from_seed(bytes);
        r.set_stream(stream);
        Rng(r)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in [0, 1).
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A standard normal deviate (Box-Muller, one of the pair).
    pub fn normal(&mut self) -> f64 {
        // 1 - unit() is in (0, 1]: its logarithm is finite.
        let u = 1.0 - self.unit();
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    /// An independent generator for one part of a campaign (a phase, a stream), so that the
    /// numbers one part draws do not depend on how many another drew: stream `salt` of a key
    /// drawn from this generator.
    pub fn fork(&mut self, salt: u64) -> Rng {
        let key = [
            self.next_u64(),
            self.next_u64(),
            self.next_u64(),
            self.next_u64(),
        ];
        Rng::keyed(key, salt)
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
        let mut streams: Vec<u64> = (0..4)
            .map(|s| Rng::keyed([7, 0, 0, 0], s).next_u64())
            .collect();
        streams.dedup();
        assert_eq!(streams.len(), 4, "one key's streams differ");
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
