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
/// is a variant here (in `ComputeKernel::ALL`, with its name and, for a STREAM loop, the
/// loop the dry-run plan prints), its loop and byte count in `workload`, and its
/// `--builtin` help in `sensitivity::builtin`.
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
    /// Every kernel.
    pub(crate) const ALL: [ComputeKernel; 3] = [
        ComputeKernel::NtStore,
        ComputeKernel::Copy,
        ComputeKernel::Triad,
    ];

    /// The kernel a trace's `compute_kernel` names, if any.
    pub(crate) fn named(name: &str) -> Option<ComputeKernel> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    /// STREAM's loop, for the kernels that are one (plain loads and stores); `None` for the
    /// non-temporal stores, which the plan names by their instructions instead.
    pub(crate) fn stream_loop(self) -> Option<&'static str> {
        match self {
            ComputeKernel::NtStore => None,
            ComputeKernel::Copy => Some("a[i] = b[i]"),
            ComputeKernel::Triad => Some("a[i] = b[i] + s * c[i]"),
        }
    }

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

#[cfg(test)]
mod tests {
    use super::ComputeKernel;

    /// Traces name their kernel, and the plan reads it back by that name: every kernel is in
    /// the list, once, and (with the command line) the list is `--kernel`'s.
    #[test]
    fn every_kernel_is_listed_and_found_by_its_name() {
        for k in ComputeKernel::ALL {
            assert_eq!(ComputeKernel::named(k.name()), Some(k));
        }
        assert_eq!(ComputeKernel::named("nope"), None);
        #[cfg(feature = "cli")]
        assert_eq!(
            <ComputeKernel as clap::ValueEnum>::value_variants(),
            &ComputeKernel::ALL
        );
    }
}
