//! The report of `contention sensitivity` (Foyer and Goglin, MCHPC'21) as data: the curve of
//! a figure of merit against the bandwidth left ([`SensitivityReport`], [`Point`]) and its
//! metric ([`threshold`]). Here, below the benchmark that measures it and the reports and
//! figures that show it, so that both name it and neither names the other.

pub mod threshold;

use serde::Serialize;

/// One level of the curve.
#[derive(Debug, Clone, Serialize)]
pub struct Point {
    /// Bandwidth available: the resctrl level, or (bandit) the measured percent of the peak
    /// store bandwidth left, median over the repetitions.
    pub level: f64,
    /// What was set: `MB=50`, or `bandit load 1.50 cores`.
    pub setting: String,
    /// The median FOM of the repetitions.
    pub fom: f64,
    /// `fom` relative to the best (see [`threshold::relative`]).
    pub relative: f64,
    /// The FOM of every repetition, in the order run (`fom` is their median).
    pub foms: Vec<f64>,
    /// Bandit: the store bandwidth the bandit took (MB/s, median); `_mb_per_s` like the
    /// trace's samples, as `mbps` could be read as megabits.
    pub stolen_mb_per_s: Option<f64>,
}

/// Version of the sensitivity report's JSON layout.
pub const SCHEMA_VERSION: u32 = 1;

/// The curve and its thresholds, with what produced them.
#[derive(Debug, Clone, Serialize)]
pub struct SensitivityReport {
    #[serde(flatten)]
    pub header: crate::header::Header,
    /// What the numbers are in ([`crate::units::UNITS`]).
    pub units: crate::units::Units,
    pub backend: &'static str,
    /// What `level` means for this backend.
    pub level_meaning: String,
    pub workload: String,
    /// The FOM's unit when known (built-in kernels).
    pub unit: Option<String>,
    pub lower_is_better: bool,
    pub repeat: u32,
    /// Bandit: the machine's peak store bandwidth, MB/s, that levels are percent of.
    pub peak_mb_per_s: Option<f64>,
    pub points: Vec<Point>,
    pub thresholds: Vec<threshold::Threshold>,
    pub notes: Vec<String>,
}
