//! A copy engine that replays a GPU node's recorded bandwidths: the seam through which the
//! whole GPU path (plan, copy thread, sweep, trace, CSV, calibration) runs and is tested on
//! a machine with no GPU and no CUDA. Its input is the output of the reference probe
//! (`gpu-copy-probe.cu`, run on an H200 node: `tests/data/gpu-h200/probe-output.txt`): one
//! line per phase, `cores mode computations_GBps copies_GBps`, modes `comp`, `d2h`, `h2d`,
//! `comp+d2h`, `comp+h2d`, every repetition of the sweep one after the other.
//!
//! Each copy lasts its bytes over a recorded bandwidth: copies alone those of the direction's
//! alone phases, copies beside `n` computing cores those recorded beside `n` (the nearest
//! count below when `n` was not recorded), taking the repetitions in turn so that the
//! samples vary as the node's did. Only the copies are replayed: the computations are this
//! machine's. A replayed trace records its source (`gpu.replayed_from`) and is never a
//! measurement of a GPU.

use crate::gpu::{Copier, CopyEngine, OpenCopies};
use crate::trace::CopyDirection;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;
use std::time::{Duration, Instant};

/// The modes of the probe's lines.
const MODES: [&str; 5] = ["comp", "d2h", "h2d", "comp+d2h", "comp+h2d"];

/// The copy bandwidths a replay takes, GB/s: from a slow PCIe Gen1 x1 lane's 0.001 to ten
/// times a Grace Hopper's 450 GB/s NVLink-C2C. Outside, a copy would last longer than a run
/// or shorter than the clock can time.
const PLAUSIBLE_GBPS: std::ops::RangeInclusive<f64> = 0.001..=5000.0;

/// The recorded copy bandwidths of one direction, GB/s (10^9 B/s).
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// Copies alone, every phase of every repetition.
    pub alone: Vec<f64>,
    /// Copies beside `n` computing cores, by `n`.
    pub beside: BTreeMap<u32, Vec<f64>>,
}

impl Recorded {
    /// Reads the probe's output at `path` for `direction`; the error names the file and the
    /// line it could not read.
    pub fn read(path: &Path, direction: CopyDirection) -> Result<Recorded, String> {
        let text = crate::io::read::text(path, "GPU probe output").map_err(|e| e.to_string())?;
        Recorded::parse(&text, direction).map_err(|e| {
            format!(
                "{}: {e}",
                crate::error::escape_line(&path.display().to_string())
            )
        })
    }

    /// The probe's output `text`, for `direction`.
    pub fn parse(text: &str, direction: CopyDirection) -> Result<Recorded, String> {
        let (alone_mode, beside_mode) = match direction {
            CopyDirection::DeviceToHost => ("d2h", "comp+d2h"),
            CopyDirection::HostToDevice => ("h2d", "comp+h2d"),
        };
        let mut recorded = Recorded {
            alone: Vec::new(),
            beside: BTreeMap::new(),
        };
        for (i, line) in text.lines().enumerate() {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // Blank lines and the header (`n mode comp_GBps dma_GBps`); every other line
            // is a phase, or the file is not the probe's.
            if fields.is_empty() || (i == 0 && fields.first() == Some(&"n")) {
                continue;
            }
            let bad = |what: &str| {
                format!(
                    "line {}: {what}; each line is `cores mode computations_GBps \
                     copies_GBps` (modes comp, d2h, h2d, comp+d2h, comp+h2d), as the \
                     reference probe prints it",
                    i + 1
                )
            };
            let [n, mode, _, copies] = fields[..] else {
                return Err(bad(&format!("{} fields, not 4", fields.len())));
            };
            let n: u32 = n
                .parse()
                .map_err(|_| bad(&format!("core count {:?}", crate::error::clip(n))))?;
            if !MODES.contains(&mode) {
                return Err(bad(&format!("mode {:?}", crate::error::clip(mode))));
            }
            if mode != alone_mode && mode != beside_mode {
                continue;
            }
            let copies: f64 = copies
                .parse()
                .ok()
                .filter(|v: &f64| PLAUSIBLE_GBPS.contains(v))
                .ok_or_else(|| {
                    bad(&format!(
                        "copies' bandwidth {:?} GB/s, not within {} to {}",
                        crate::error::clip(copies),
                        PLAUSIBLE_GBPS.start(),
                        PLAUSIBLE_GBPS.end()
                    ))
                })?;
            if mode == alone_mode {
                recorded.alone.push(copies);
            } else {
                recorded.beside.entry(n).or_default().push(copies);
            }
        }
        if recorded.alone.is_empty() || recorded.beside.is_empty() {
            return Err(format!(
                "no `{alone_mode}` and `{beside_mode}` phases: not the probe's output for \
                 copies {}",
                direction.words()
            ));
        }
        Ok(recorded)
    }

    /// The bandwidths recorded beside `computing` cores: alone for none, else those of the
    /// nearest recorded count not above it (the smallest recorded above none).
    pub fn at(&self, computing: usize) -> &[f64] {
        if computing == 0 {
            return &self.alone;
        }
        let n = u32::try_from(computing).unwrap_or(u32::MAX);
        self.beside
            .range(..=n)
            .next_back()
            .or_else(|| self.beside.iter().next())
            .map_or(&self.alone[..], |(_, v)| &v[..])
    }
}

/// Opens [`Replay`] engines over recorded bandwidths.
#[derive(Debug, Clone)]
pub struct ReplayOpener(pub Recorded);

impl OpenCopies for ReplayOpener {
    fn open<'b>(&self, _host: &'b mut [u8]) -> Result<Copier<'b>, String> {
        Ok(Copier::Serial(Box::new(Replay {
            recorded: self.0.clone(),
            computing: 0,
            turn: 0,
            due: None,
        })))
    }
}

/// The engine: each copy ends its bytes over the next recorded bandwidth after the previous
/// one ended (a deadline, not a sleep per copy, so the replayed bandwidth does not drift with
/// the sleeps' overshoot).
#[derive(Debug)]
pub struct Replay {
    recorded: Recorded,
    computing: usize,
    turn: usize,
    due: Option<Instant>,
}

impl CopyEngine for Replay {
    fn phase(&mut self, computing: usize) {
        self.computing = computing;
        self.due = None;
    }

    fn copy(&mut self, slot: Range<usize>) -> Result<(), String> {
        let bws = self.recorded.at(self.computing);
        let gbps = bws[self.turn % bws.len()];
        self.turn += 1;
        let took = Duration::try_from_secs_f64(slot.len() as f64 / (gbps * 1e9))
            .map_err(|e| format!("a replayed copy at {gbps} GB/s: {e}"))?;
        let due = self.due.unwrap_or_else(Instant::now) + took;
        self.due = Some(due);
        std::thread::sleep(due.saturating_duration_since(Instant::now()));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROBE: &str = "n mode comp_GBps dma_GBps\n\
        0 d2h 0.00 54.80\n0 h2d 0.00 54.90\n\
        1 comp 18.10 0.00\n1 d2h 0.00 54.70\n1 comp+d2h 17.40 54.80\n1 comp+h2d 17.60 54.50\n\
        8 comp 113.70 0.00\n8 comp+d2h 133.50 22.10\n8 comp+h2d 130.00 23.30\n";

    #[test]
    fn the_probe_output_is_read_per_direction_and_core_count() {
        let d2h = Recorded::parse(PROBE, CopyDirection::DeviceToHost).unwrap();
        assert_eq!(d2h.alone, vec![54.8, 54.7]);
        assert_eq!(d2h.at(0), &[54.8, 54.7]);
        assert_eq!(d2h.at(1), &[54.8]);
        // 4 was not recorded: the nearest count below, 1; 14 takes 8's.
        assert_eq!(d2h.at(4), &[54.8]);
        assert_eq!(d2h.at(14), &[22.1]);
        let h2d = Recorded::parse(PROBE, CopyDirection::HostToDevice).unwrap();
        assert_eq!(h2d.alone, vec![54.9]);
        assert_eq!(h2d.at(8), &[23.3]);
    }

    #[test]
    fn other_files_are_refused_naming_what_is_missing() {
        let e = Recorded::parse(
            "n mode comp_GBps dma_GBps\n1 comp 18.1 0.0\n",
            CopyDirection::DeviceToHost,
        )
        .unwrap_err();
        assert!(e.contains("`d2h` and `comp+d2h`"), "{e}");
        let e = Recorded::parse("0 d2h 0.0 -3\n", CopyDirection::DeviceToHost).unwrap_err();
        assert!(
            e.contains("line 1: copies' bandwidth \"-3\" GB/s, not within"),
            "{e}"
        );
        // 1e-300 GB/s would make a copy last longer than a Duration holds.
        let e = Recorded::parse("0 d2h 0.0 1e-300\n", CopyDirection::DeviceToHost).unwrap_err();
        assert!(e.contains("line 1: copies' bandwidth"), "{e}");
        // Every line is a phase: a comment, a fifth column or an unknown mode is refused,
        // not skipped.
        for (text, said) in [
            ("0 d2h 0 54.8 # fast\n", "line 1: 6 fields, not 4"),
            (
                "0 d2h 0 54.8\n1 sideways 18.1 0\n",
                "line 2: mode \"sideways\"",
            ),
            ("x d2h 0 54.8\n", "line 1: core count \"x\""),
        ] {
            let e = Recorded::parse(text, CopyDirection::DeviceToHost).unwrap_err();
            assert!(e.contains(said), "{text:?}: {e}");
            assert!(
                e.contains("cores mode computations_GBps copies_GBps"),
                "{e}"
            );
        }
    }

    #[test]
    fn a_replayed_copy_lasts_its_bytes_over_the_recorded_bandwidth() {
        let recorded = Recorded::parse(PROBE, CopyDirection::DeviceToHost).unwrap();
        let mut host = vec![0u8; 16];
        let opener = ReplayOpener(recorded);
        let Ok(Copier::Serial(mut engine)) = opener.open(&mut host) else {
            panic!("a replay copies one copy at a time")
        };
        engine.phase(8);
        // 22.1 GB/s: 110.5 MB in 5 ms, twice.
        let t = Instant::now();
        engine.copy(0..110_500_000).unwrap();
        engine.copy(0..110_500_000).unwrap();
        let took = t.elapsed().as_secs_f64();
        assert!(took >= 0.0099, "{took}");
    }
}
