//! `contention-model`: the contention model of Denis, Jeannot and Swartvagher (RR-9451,
//! 2022) and the laws around it, as pure functions of typed parameters: no I/O, no threads,
//! nothing measured here. A crate of its own so that the compiler holds that rule: its only
//! dependencies are serde and serde_json, and nothing of the `contention` crate above it
//! (traces, calibration, the benchmark, MPI) can be named here.
//!
//! - `params`: the ten parameters of section 3.1 per side, their one list of names, the
//!   machine; [`law`]: the law of communications in parallel as a type, one arm per law
//!   with its own parameters.
//! - [`constraints`]: every rule a model must meet: ranges, the machine's shape, the model's
//!   meaning, and the rules of the intervals a model file may hold.
//! - [`total`]: equations 1-2, what the memory gives and what the cores ask (Algorithm 1);
//!   [`bandwidth`]: equations 3-6, one parameter set over core counts (Algorithm 2).
//! - [`cpu_copy`]: the variant for communications done by CPU cores (copies between two
//!   ranks of one host): equation 4 replaced by a loaded-latency law; [`knee`]: the
//!   variant for copies by DMA beside the computations (a GPU's copy engines): equation 4
//!   replaced by a law that keeps them whole at a light load and falls steeply near saturation.
//! - [`placement`]: equations 7-8, every placement of the data on the NUMA nodes (Algorithms 3-4).
//! - [`uncertainty`]: the bootstrap's intervals and refitted parameter sets a model file may
//!   hold.
//! - [`paper`]: the paper's Appendix B tables, built into the binary.
//! - [`network`]: Martinasso and Méhaut's contention between concurrent communications in
//!   the network (section 3.2 of theirs).
//! - [`units`]: the units of every number: byte sizes as typed, the `units` block of the
//!   JSON; [`cores`]: core-count lists as users type them (`1..4,8`); [`text`]: text read
//!   from files made safe to print.

pub mod bandwidth;
pub mod constraints;
pub mod cpu_copy;
pub mod knee;
pub mod law;
pub mod paper;
pub(crate) mod params;
pub mod placement;
pub mod total;
pub mod uncertainty;

pub mod cores;
pub mod network;
pub mod text;
pub mod units;

pub use constraints::Problem;
pub use law::{Law, LawParam, LawValues, Variant};
pub use params::SCHEMA_VERSION;
pub use params::{Machine, Model, ParamKind, Params};
pub use placement::check_interval_work;
pub use placement::{all_placements, Placement, PlacementPrediction, PredictError};
pub use placement::{predict, Point};
pub use uncertainty::{Interval, ParamIntervals, Replicate, Uncertainty};
