//! One module per subcommand: each turns parsed arguments into calls of the library and
//! writes the result. The binary's `main` only dispatches here.
//!
//! - [`measure`], [`survey`], [`network`] (with `--run`) and [`sensitivity`]: the commands that
//!   run something on the machine.
//! - [`calibrate`], [`evaluate`], [`check`], [`plot`], [`show`]: the commands that read
//!   measurements.
//! - [`predict`], [`advise`], [`overlap`], [`network`]: the commands that compute from a model.
//! - [`docs`]: `completions` and `man`, generated from the same definition as `--help`.

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
pub mod show;
pub mod survey;
