//! Experiment design: which measurement to make next, decided with the fit. It sits beside
//! `calibrate`, whose fit it uses, and `measure` asks it through the traits of
//! `crate::measure::adaptive` without importing it.
//!
//! - [`adaptive`]: the adaptive sweep (`measure --adaptive`): the first grid, then the core
//!   count whose measurement would most narrow the refitted models' disagreement.

pub mod adaptive;
