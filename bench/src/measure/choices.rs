//! The choice a measurement is asked to make of its communication pattern, as a plain enum
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
