//! Built-in kernels to run as the measured command, to calibrate the method on a machine:
//! the project's non-temporal store stream and STREAM's triad (bandwidth-bound), and a random
//! cyclic pointer chase (latency-bound), the two ends of the paper's Table I.

use crate::kernels::workload::Workload;
use crate::kernels::ComputeKernel;
use std::time::Instant;

/// A built-in kernel (`sensitivity --builtin`) and its figure of merit: one of `measure`'s
/// streams, run by the same loop, or a pointer chase, which only `sensitivity` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    /// A kernel of `measure --kernel` over one buffer; FOM: MB/s, bytes counted as `measure`
    /// counts them (best of the passes, as STREAM reports).
    Stream(ComputeKernel),
    /// One dependent load after another through a random single cycle of 128-byte nodes (a
    /// node per two cache lines, as in the paper's pointer chase); FOM: million accesses per
    /// second.
    PointerChase,
}

/// `sensitivity --builtin`'s values (the binary's `cli` feature): the built-in kernels, named
/// and described by [`Builtin`] itself.
#[cfg(feature = "cli")]
impl clap::ValueEnum for Builtin {
    fn value_variants<'a>() -> &'a [Self] {
        &Builtin::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.name()).help(self.help()))
    }
}

impl Builtin {
    /// The values of `--builtin`, in the order `--help` lists them: the calibration kernels of
    /// the paper's Table I, a bandwidth-bound stream (the project's and STREAM's) and a
    /// latency-bound chase.
    pub(crate) const ALL: [Builtin; 3] = [
        Builtin::Stream(ComputeKernel::NtStore),
        Builtin::Stream(ComputeKernel::Triad),
        Builtin::PointerChase,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Builtin::Stream(k) => k.name(),
            Builtin::PointerChase => "pointer-chase",
        }
    }

    /// The help text of its `--builtin` value.
    pub(crate) fn help(self) -> &'static str {
        match self {
            Builtin::Stream(ComputeKernel::NtStore) => {
                "The non-temporal store stream of `measure`; FOM in MB/s"
            }
            Builtin::Stream(ComputeKernel::Copy) => "STREAM copy; FOM in MB/s",
            Builtin::Stream(ComputeKernel::Triad) => "STREAM triad; FOM in MB/s",
            Builtin::PointerChase => {
                "Random cyclic pointer chase; FOM in million accesses per second"
            }
        }
    }

    pub(crate) fn unit(self) -> &'static str {
        match self {
            Builtin::Stream(_) => "MB/s",
            Builtin::PointerChase => "Maccesses/s",
        }
    }
}

/// Words (usize) per pointer-chase node: 128 bytes.
const NODE_WORDS: usize = 128 / std::mem::size_of::<usize>();

/// Passes of a stream per run; its FOM is the best.
const PASSES: u8 = 3;

/// A kernel with its data allocated and touched, ready to be timed repeatedly.
pub(crate) enum Prepared {
    Stream { buffer: Vec<u8>, workload: Workload },
    PointerChase { nodes: Vec<usize>, steps: u64 },
}

impl Prepared {
    /// Allocates about `bytes` in all (the stream's buffer, or the chased nodes) and fills
    /// them, so page faults stay out of the timings.
    pub(crate) fn new(kind: Builtin, bytes: usize) -> Prepared {
        match kind {
            Builtin::Stream(kernel) => Prepared::Stream {
                buffer: vec![0; bytes.max(64)],
                workload: Workload::detect(kernel),
            },
            Builtin::PointerChase => {
                let n = (bytes / (NODE_WORDS * std::mem::size_of::<usize>())).max(2);
                Prepared::PointerChase {
                    nodes: cycle(n, 0x9E37_79B9_7F4A_7C15),
                    steps: 4_000_000,
                }
            }
        }
    }

    /// Runs the kernel once and returns its figure of merit.
    pub(crate) fn run(&mut self) -> f64 {
        match self {
            Prepared::Stream { buffer, workload } => {
                let mut best = 0.0f64;
                for pass in 0..PASSES {
                    let t = Instant::now();
                    workload.run(buffer, pass);
                    let secs = t.elapsed().as_secs_f64();
                    best = best.max(workload.bytes_per_pass(buffer.len()) as f64 / secs / 1e6);
                }
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
    fn every_builtin_reports_a_positive_rate() {
        for kind in Builtin::ALL {
            let mut k = Prepared::new(kind, 1 << 20);
            let fom = k.run();
            assert!(fom.is_finite() && fom > 0.0, "{kind:?}: {fom}");
        }
    }
}
