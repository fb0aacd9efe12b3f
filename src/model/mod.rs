//! The contention model of Denis, Jeannot and Swartvagher (RR-9451, 2022), as pure functions
//! of typed parameters: no I/O, no threads, nothing measured here.
//!
//! - [`params`]: the ten parameters of section 3.1 per side, the machine, validation.
//! - [`constraints`]: the rules of the model's meaning a parameter set must also meet.
//! - [`bandwidth`]: equations 1-6, one parameter set over core counts (Algorithms 1-2).
//! - [`placement`]: equations 7-8, every placement of the data on the NUMA nodes (Algorithms 3-4).
//! - [`paper`]: the paper's Appendix B tables, built into the binary.

pub mod bandwidth;
pub mod constraints;
pub mod paper;
pub mod params;
pub mod placement;

pub use params::{Machine, Model, Params, Problem, SCHEMA_VERSION};
pub use placement::{all_placements, predict, Placement, PlacementPrediction, Point, PredictError};
