//! From bandwidths to the time of one overlapped step: the performance model of Langguth, Cai
//! and Sourouri ("Memory Bandwidth Contention: Communication vs Computation Tradeoffs in
//! Supercomputers with Multicore Architectures", ICPADS 2018), as pure functions. No I/O.
//!
//! - `time`: section IV, the total time `T_tot` of a step whose memory-bound computation
//!   (`T_M`, loss `L_M`) overlaps its communication (`T_N`, loss `L_N`).
//! - `hetero`: section VI, the same step when a share `w` of the computation runs on
//!   accelerators, and the `w` that balances CPU and accelerators.
//! - `advise`: the contention model's bandwidths (Denis et al.) turned into
//!   `T_M`, `T_N`, the loss ratios and `T_tot` for every placement and core count, ranked.
//!
//! Times are in any one unit (the paper uses milliseconds; `advise` uses seconds): the model
//! is linear in them, so every result comes out in the unit of its inputs.

pub(crate) mod advise;
pub(crate) mod hetero;
pub(crate) mod time;

pub use advise::{advise, Candidate};
pub use hetero::{Balance, Hetero, Split};
pub use time::{OverlapError, Step, StepTimes};
