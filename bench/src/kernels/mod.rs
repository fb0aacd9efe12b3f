//! The compute kernels, shared by `measure` and `sensitivity`: which one a computing thread
//! runs ([`ComputeKernel`]), the store instructions of the node's CPU that the non-temporal
//! kernel uses ([`stores`]), and what a thread does per iteration ([`workload`]).

pub mod stores;
pub mod workload;

/// `measure --kernel`: what each computing thread does per iteration (section 4.1.1 uses
/// non-temporal stores; STREAM's copy and triad read as well as write).
///
/// The one list of the streaming kernels: `sensitivity --builtin` runs some of them too
/// (`sensitivity::builtin::Builtin`), through the same loops (`workload`). A new kernel
/// is a variant here, its loop and byte count in `workload`, and its `--builtin` help
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
    pub(crate) fn name(self) -> &'static str {
        match self {
            ComputeKernel::NtStore => "nt-store",
            ComputeKernel::Copy => "copy",
            ComputeKernel::Triad => "triad",
        }
    }
}
