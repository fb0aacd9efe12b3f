//! One module per subcommand: each turns parsed arguments into calls of the library and
//! writes the result. The binary's `main` only dispatches here.

pub mod advise;
pub mod calibrate;
pub mod check;
pub mod docs;
pub mod evaluate;
pub mod measure;
pub mod network;
pub mod overlap;
pub mod plot;
pub mod predict;
pub mod sensitivity;
pub mod survey;

/// `--format` as the report writer takes it ([`crate::report::emit`]).
impl From<crate::cli::Format> for crate::report::Format {
    fn from(f: crate::cli::Format) -> Self {
        match f {
            crate::cli::Format::Table => Self::Table,
            crate::cli::Format::Json => Self::Json,
            crate::cli::Format::Csv => Self::Csv,
        }
    }
}

/// `--format` of the commands without CSV (`overlap`, `advise`, `network`).
impl From<crate::cli::TableOrJson> for crate::report::Format {
    fn from(f: crate::cli::TableOrJson) -> Self {
        match f {
            crate::cli::TableOrJson::Table => Self::Table,
            crate::cli::TableOrJson::Json => Self::Json,
        }
    }
}
