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
