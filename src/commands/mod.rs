//! One module per subcommand: each turns parsed arguments into calls of the library and
//! writes the result. The binary's `main` only dispatches here.

pub mod calibrate;
pub mod evaluate;
pub mod measure;
pub mod plot;
pub mod predict;
pub mod sensitivity;
