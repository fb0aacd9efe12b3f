//! Built-in kernels to run as the measured command, to calibrate the method on a machine:
//! the project's non-temporal store stream and STREAM's triad (bandwidth-bound), and a random
//! cyclic pointer chase (latency-bound), the two ends of the paper's Table I.

use crate::measure::sweep::kernel::Kernel;
use std::time::Instant;

/// A built-in kernel and its figure of merit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The non-temporal memset of `measure` ([`crate::measure::sweep::kernel::Kernel`]) over one
    /// buffer; FOM: MB/s written (best of the passes).
    NtStore,
    /// `a[i] = b[i] + s * c[i]` over three f64 arrays; FOM: MB/s, counting 24 bytes per
    /// element as STREAM does (best of the passes, as STREAM reports).
    Triad,
    /// One dependent load after another through a random single cycle of 128-byte nodes (a
    /// node per two cache lines, as in the paper's pointer chase); FOM: million accesses per
    /// second.
    PointerChase,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::NtStore => "nt-store",
            Kind::Triad => "triad",
            Kind::PointerChase => "pointer-chase",
        }
    }

    pub fn unit(self) -> &'static str {
        match self {
            Kind::NtStore | Kind::Triad => "MB/s",
            Kind::PointerChase => "Maccesses/s",
        }
    }
}

/// Words (usize) per pointer-chase node: 128 bytes.
const NODE_WORDS: usize = 128 / std::mem::size_of::<usize>();

/// A kernel with its data allocated and touched, ready to be timed repeatedly.
pub enum Prepared {
    NtStore {
        buffer: Vec<std::mem::MaybeUninit<u8>>,
        kernel: Kernel,
        passes: u32,
    },
    Triad {
        a: Vec<f64>,
        b: Vec<f64>,
        c: Vec<f64>,
        passes: u32,
    },
    PointerChase {
        nodes: Vec<usize>,
        steps: u64,
    },
}

impl Prepared {
    /// Allocates about `bytes` in all (the three triad arrays, or the chased nodes) and fills
    /// them, so page faults stay out of the timings.
    pub fn new(kind: Kind, bytes: usize) -> Prepared {
        match kind {
            Kind::NtStore => Prepared::NtStore {
                buffer: vec![std::mem::MaybeUninit::new(0); bytes.max(64)],
                kernel: Kernel::detect(),
                passes: 3,
            },
            Kind::Triad => {
                let n = (bytes / 24).max(1);
                Prepared::Triad {
                    a: vec![0.0; n],
                    b: vec![1.0; n],
                    c: vec![2.0; n],
                    passes: 3,
                }
            }
            Kind::PointerChase => {
                let n = (bytes / (NODE_WORDS * std::mem::size_of::<usize>())).max(2);
                Prepared::PointerChase {
                    nodes: cycle(n, 0x9E37_79B9_7F4A_7C15),
                    steps: 4_000_000,
                }
            }
        }
    }

    /// Runs the kernel once and returns its figure of merit.
    pub fn run(&mut self) -> f64 {
        match self {
            Prepared::NtStore {
                buffer,
                kernel,
                passes,
            } => {
                let mut best = 0.0f64;
                for pass in 0..*passes {
                    let t = Instant::now();
                    kernel.fill(buffer, pass as u8);
                    let secs = t.elapsed().as_secs_f64();
                    best = best.max(Kernel::written(buffer.len()) as f64 / secs / 1e6);
                }
                best
            }
            Prepared::Triad { a, b, c, passes } => {
                let mut best = 0.0f64;
                for _ in 0..*passes {
                    let t = Instant::now();
                    triad(a, b, c, 3.0);
                    let secs = t.elapsed().as_secs_f64();
                    best = best.max((24 * a.len()) as f64 / secs / 1e6);
                }
                std::hint::black_box(&a);
                best
            }
            Prepared::PointerChase { nodes, steps } => {
                let t = Instant::now();
                let end = chase(nodes, *steps);
                let secs = t.elapsed().as_secs_f64();
                std::hint::black_box(end);
                *steps as f64 / secs / 1e6
            }
        }
    }
}

fn triad(a: &mut [f64], b: &[f64], c: &[f64], s: f64) {
    for ((a, b), c) in a.iter_mut().zip(b).zip(c) {
        *a = b + s * c;
    }
}

/// Follows `steps` links from node 0; returns where it ended (so the loop cannot be elided).
fn chase(nodes: &[usize], steps: u64) -> usize {
    let mut at = 0;
    for _ in 0..steps {
        at = nodes[at];
    }
    at
}

/// `n` nodes of [`NODE_WORDS`] words whose first word is the index (in words) of the next
/// node, forming one random cycle through all of them (Sattolo's algorithm), so a chase visits
/// every node before it repeats and the hardware prefetchers cannot guess the next address.
fn cycle(n: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut state = seed | 1;
    for i in (1..n).rev() {
        // xorshift64*: enough randomness for a permutation, no dependency.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        let r = state.wrapping_mul(0x2545_F491_4F6C_DD1D);
        let j = (r % i as u64) as usize; // j < i: Sattolo, a single cycle
        order.swap(i, j);
    }
    let mut nodes = vec![0usize; n * NODE_WORDS];
    for i in 0..n {
        nodes[i * NODE_WORDS] = order[i] * NODE_WORDS;
    }
    nodes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chase_is_one_cycle_through_every_node() {
        let n = 1000;
        let nodes = cycle(n, 42);
        let mut seen = vec![false; n];
        let mut at = 0;
        for _ in 0..n {
            assert_eq!(at % NODE_WORDS, 0);
            assert!(
                !seen[at / NODE_WORDS],
                "node visited twice before the cycle closed"
            );
            seen[at / NODE_WORDS] = true;
            at = nodes[at];
        }
        assert_eq!(at, 0, "the cycle closes after n steps");
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn triad_computes_and_kernels_report_positive_rates() {
        let mut a = vec![0.0; 4];
        triad(&mut a, &[1.0; 4], &[2.0; 4], 3.0);
        assert_eq!(a, vec![7.0; 4]);
        for kind in [Kind::NtStore, Kind::Triad, Kind::PointerChase] {
            let mut k = Prepared::new(kind, 1 << 20);
            let fom = k.run();
            assert!(fom.is_finite() && fom > 0.0, "{kind:?}: {fom}");
        }
    }
}
