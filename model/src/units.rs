//! The units of the tool's numbers: byte sizes as users type them (`64MiB`, `64M`, `1GiB`,
//! `512k`, `1048576`) and as people read them (`64 MiB`), durations as people read them
//! (`12 min 5 s`), and `Units`, the block
//! that spells out every number's unit in each JSON the tool writes (reports, and the model
//! file's `calibration`); the range a bandwidth in MB/s may take ([`MIN_BANDWIDTH`],
//! [`MAX_BANDWIDTH`]).

use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// Smallest bandwidth a model may hold, in MB/s (1 kB/s): smaller ones are typing errors, and
/// subnormal values (`1e-320`) make divisions overflow downstream.
pub const MIN_BANDWIDTH: f64 = 1e-3;
/// Largest bandwidth a model may hold, in MB/s (10^12 MB/s, an exabyte per second): beyond it `n *
/// B_seq^comp` and the network solver's arithmetic leave the finite numbers.
pub const MAX_BANDWIDTH: f64 = 1e12;

/// `95 s`, `12 min 5 s`, `2 h 3 min`: a measuring time as a person reads it.
pub fn human_seconds(s: f64) -> String {
    let s = s.max(0.0).round() as u64;
    match s {
        0..=119 => format!("{s} s"),
        120..=7199 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, s % 3600 / 60),
    }
}

/// A byte count as people read it: `1.5 GiB`, `64 MiB`, `512 KiB`.
pub fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if v.fract() == 0.0 {
        format!("{v:.0} {}", UNITS[u])
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// A number as a user would type it, for an error that names it: `1e308`, not 309 digits
/// (scientific notation from a million on; `NaN` and `inf` as they are).
pub fn short_number(v: f64) -> String {
    // Plain notation beyond these prints hundreds of digits (`1e308`, `5e-324`).
    if v.abs() >= 1e6 || (v != 0.0 && v.abs() < 1e-4) {
        format!("{v:e}")
    } else {
        v.to_string()
    }
}

/// `v` rounded up to two significant digits (`0.2833` -> `0.29`, `1234` -> `1300`): a limit
/// to suggest, which must not fall below the value it was computed as. A relative margin of
/// 1e-12 keeps a value already on the grid (`0.3`, whose product with 100 is
/// 30.000000000000004) from being pushed to the next step.
pub fn round_up(v: f64) -> f64 {
    if !(v.is_finite() && v > 0.0) {
        return v;
    }
    let scale = 10f64.powi(1 - v.log10().floor() as i32);
    (v * scale * (1.0 - 1e-12)).ceil() / scale
}

/// The units of a report's numbers, spelled out in every JSON report (and in the model file's
/// `calibration`) so that a script never has to guess whether a size is binary or a
/// bandwidth decimal: one struct, so every report says it the same way.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Units {
    pub(crate) bandwidth: &'static str,
    pub(crate) bytes: &'static str,
    pub(crate) time: &'static str,
    pub(crate) percent: &'static str,
    pub(crate) loss: &'static str,
}

/// The units of every report but `overlap`'s.
pub const UNITS: Units = Units {
    bandwidth: "MB/s (10^6 B/s)",
    bytes: "B",
    time: "s",
    percent: "keys ending in _percent: percent (100 = all)",
    loss: "comp_loss, comm_loss: ratio alone / parallel bandwidth (1 = no loss)",
};

/// `overlap` takes its times from the user, in any unit, and answers in the same one.
pub const UNITS_OF_INPUT_TIMES: Units = Units {
    time: "the unit of the inputs",
    ..UNITS
};

impl Default for Units {
    /// [`UNITS`]: what a model file read back says, whatever it held (the block describes,
    /// it does not configure).
    fn default() -> Self {
        UNITS
    }
}

/// A size in bytes. Suffixes are binary (`k`/`KiB` = 1024), as buffer sizes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ByteSize(pub u64);

impl FromStr for ByteSize {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        if t.starts_with('-') {
            return Err(format!(
                "`{s}`: a size cannot be negative; write e.g. 64MiB, 512k, 1G or a byte count"
            ));
        }
        let split = t
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(t.len());
        let (num, unit) = t.split_at(split);
        let shift = match unit.trim().to_ascii_lowercase().as_str() {
            "" | "b" => 0,
            "k" | "kb" | "kib" => 10,
            "m" | "mb" | "mib" => 20,
            "g" | "gb" | "gib" => 30,
            _ => {
                return Err(format!(
                    "`{s}`: unknown unit `{}`; write e.g. 64MiB, 512k, 1G or a byte count",
                    unit.trim()
                ))
            }
        };
        let value: f64 = num.parse().map_err(|_| {
            format!("`{s}` is not a size; write e.g. 64MiB, 512k, 1G or a byte count")
        })?;
        let bytes = value * (1u64 << shift) as f64;
        if !(bytes >= 1.0 && bytes < 2f64.powi(62)) {
            return Err(format!(
                "`{s}`: a size must be at least 1 byte and below 4 EiB"
            ));
        }
        Ok(ByteSize(bytes.round() as u64))
    }
}

impl fmt::Display for ByteSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        for (shift, unit) in [(30, "GiB"), (20, "MiB"), (10, "KiB")] {
            if b >= 1 << shift && b.is_multiple_of(1 << shift) {
                return write!(f, "{}{unit}", b >> shift);
            }
        }
        write!(f, "{b}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 46, item 9: `5e-324` printed with 324 digits, `1e308` with 309.
    #[test]
    fn numbers_in_messages_stay_short() {
        assert_eq!(short_number(1e308), "1e308");
        assert_eq!(short_number(5e-324), "5e-324");
        assert_eq!(short_number(0.05), "0.05");
        assert_eq!(short_number(0.0), "0");
        assert_eq!(short_number(-2.0), "-2");
        assert!(short_number(-1.234_567e-300).len() < 30);
    }

    #[test]
    fn a_suggested_limit_is_rounded_up_never_down() {
        assert_eq!(round_up(0.3), 0.3);
        assert_eq!(round_up(0.2833), 0.29);
        assert_eq!(round_up(0.5100001), 0.52);
        assert_eq!(round_up(1234.0), 1300.0);
        assert_eq!(round_up(7.0), 7.0);
    }

    #[test]
    fn parses_units_and_round_trips() {
        for (s, b) in [
            ("64MiB", 64 << 20),
            ("64M", 64 << 20),
            ("1g", 1 << 30),
            ("512k", 512 << 10),
            ("1000", 1000),
            ("1.5GiB", 3 << 29),
        ] {
            assert_eq!(s.parse::<ByteSize>(), Ok(ByteSize(b)), "{s}");
        }
        assert_eq!(ByteSize(64 << 20).to_string(), "64MiB");
        assert_eq!(ByteSize(1000).to_string(), "1000");
        assert!("0"
            .parse::<ByteSize>()
            .unwrap_err()
            .contains("at least 1 byte"));
        assert!("-5".parse::<ByteSize>().unwrap_err().contains("negative"));
        assert!("12 parsecs"
            .parse::<ByteSize>()
            .unwrap_err()
            .contains("unknown unit"));
        assert!("x".parse::<ByteSize>().is_err());
    }
}
