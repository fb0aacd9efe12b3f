//! The choices a measurement is asked to make, as plain enums: the computing kernel, the
//! communication pattern and the MPI launcher. They are the library's own types, so that the
//! measurement can be driven without the command line; with the `cli` feature they are also
//! the values of `measure --kernel`, `--pattern` and `--launcher` (their doc comments are the
//! help text). The file depends on nothing else in the crate: the build script reads it with
//! the command-line definition.

/// `measure --kernel`: what each computing thread does per iteration (section 4.1.1 uses
/// non-temporal stores; STREAM's copy and triad read as well as write).
///
/// The one list of the streaming kernels: `sensitivity --builtin` runs some of them too
/// (`sensitivity::builtin::Builtin`), through the same loops (`sweep::workload`). A new kernel
/// is a variant here, its loop and byte count in `sweep::workload`, and its `--builtin` help
/// in `sensitivity::builtin`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum ComputeKernel {
    /// Non-temporal stores (AVX-512, AVX2 or SSE2).
    NtStore,
    /// `a[i] = b[i]`.
    Copy,
    /// `a[i] = b[i] + s * c[i]`.
    Triad,
}

impl ComputeKernel {
    /// The name on the command line, in trace file names and in the trace's
    /// `compute_kernel` variant.
    pub fn name(self) -> &'static str {
        match self {
            ComputeKernel::NtStore => "nt-store",
            ComputeKernel::Copy => "copy",
            ComputeKernel::Triad => "triad",
        }
    }
}

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
    pub fn name(self) -> &'static str {
        match self {
            CommPattern::Pong => "pong",
            CommPattern::Pingpong => "pingpong",
            CommPattern::Ring => "ring",
        }
    }
}

/// How `measure` starts its ranks from a shell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Launcher {
    /// The MPI library's own launcher; inside a Slurm allocation, mpirun for Open MPI and
    /// srun for MPICH.
    Auto,
    /// The MPI library's own launcher: Open MPI's mpirun, MPICH's mpiexec (Hydra).
    #[cfg_attr(feature = "cli", value(alias = "mpiexec"))]
    Mpirun,
    /// srun (Slurm), with the MPI plugin the library needs (--mpi).
    Srun,
}

#[cfg(all(test, feature = "cli"))]
mod tests {
    use super::*;
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
