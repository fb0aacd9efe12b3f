//! The choices a measurement is asked to make of its communication stream (the engine that
//! moves its bytes, the pattern of an MPI stream), as plain types
//! (the computing kernel is [`crate::kernels::ComputeKernel`], the launcher
//! [`crate::mpi::flavour::Launcher`]). All three are the library's own types, so that a
//! measurement can be driven without the command line; with the `cli` feature they are also
//! the values of `measure --kernel`, `--pattern` and `--launcher` (their doc comments are the
//! help text).

/// `measure --pattern`: the communication patterns of Langguth et al.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum CommPattern {
    /// Rank 1 sends to rank 0, back to back.
    Pong,
    /// Ranks 0 and 1 send to each other at the same time.
    Pingpong,
    /// Each rank sends to the next and receives from the previous.
    Ring,
}

impl CommPattern {
    /// The name on the command line and in the trace.
    pub(crate) fn name(self) -> &'static str {
        match self {
            CommPattern::Pong => "pong",
            CommPattern::Pingpong => "pingpong",
            CommPattern::Ring => "ring",
        }
    }
}

/// `measure --engine`: what moves the communication stream's bytes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Engine {
    /// An MPI job: rank 1 sends, rank 0's communication thread receives (the paper's
    /// benchmark, section 4.1.1).
    #[default]
    Mpi,
    /// No MPI job: the copy thread has a GPU's copy engines move the bytes between pinned
    /// host memory and the GPU ([`crate::gpu`]).
    Gpu(GpuStream),
}

/// The GPU copies of `--engine gpu`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuStream {
    /// `--gpu N`: the N-th GPU in PCI bus order (`nvidia-smi`'s numbering); `--gpu all`:
    /// every GPU of the node at once.
    pub gpus: crate::trace::GpuChoice,
    /// `--direction`: which way the copies go (with `both`, the first way).
    pub direction: crate::trace::CopyDirection,
    /// `--direction both`: after the sweep of `direction`, the same sweep the other way,
    /// into a trace of its own (each direction is a law of its own to fit: the copy engine
    /// writes host memory one way and reads it the other).
    pub both: bool,
    /// Replay a GPU node's recorded bandwidths instead of driving a GPU (a test seam: the
    /// probe output of [`crate::gpu::replay`]); the trace records it.
    pub replay: Option<std::path::PathBuf>,
}

impl GpuStream {
    /// The sweeps asked, one way each: `direction`, then with `both` the other way.
    pub fn each_way(&self) -> Vec<GpuStream> {
        let one = |direction| GpuStream {
            direction,
            both: false,
            ..self.clone()
        };
        let mut ways = vec![one(self.direction)];
        if self.both {
            ways.push(one(self.direction.other()));
        }
        ways
    }
}

impl Engine {
    /// The GPU copies asked, if any.
    pub fn gpu(&self) -> Option<&GpuStream> {
        match self {
            Engine::Mpi => None,
            Engine::Gpu(g) => Some(g),
        }
    }
}

#[cfg(test)]
mod ways {
    use crate::measure::choices::GpuStream;
    use crate::trace::CopyDirection::{DeviceToHost, HostToDevice};

    #[test]
    fn both_ways_are_the_asked_one_then_the_other_each_one_way() {
        let g = GpuStream {
            gpus: crate::trace::GpuChoice::One(2),
            direction: DeviceToHost,
            both: true,
            replay: None,
        };
        let ways = g.each_way();
        let directions: Vec<_> = ways.iter().map(|w| w.direction).collect();
        assert_eq!(directions, [DeviceToHost, HostToDevice]);
        assert!(ways
            .iter()
            .all(|w| !w.both && w.gpus == crate::trace::GpuChoice::One(2)));
        let one = GpuStream { both: false, ..g };
        assert_eq!(one.each_way(), std::slice::from_ref(&one));
    }
}

#[cfg(all(test, feature = "cli"))]
mod tests {
    use crate::kernels::ComputeKernel;
    use crate::measure::choices::*;
    use clap::ValueEnum;

    #[test]
    fn the_names_are_the_command_line_values() {
        for k in ComputeKernel::value_variants() {
            assert_eq!(k.to_possible_value().unwrap().get_name(), k.name());
        }
        for p in CommPattern::value_variants() {
            assert_eq!(p.to_possible_value().unwrap().get_name(), p.name());
        }
    }
}
