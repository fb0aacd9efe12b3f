//! The measurements figures draw, gathered by placement from traces and tidy CSV rows.

use crate::model::Placement;
use crate::stats::quantile;
use crate::trace::TidyRow;
use std::collections::BTreeMap;

/// Measured bandwidths by placement: one row per core count, ascending, each field the median
/// of the repetitions given for that placement and core count (the tidy CSV's rule: repeated
/// rows are repetitions, aggregated by median).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Measurements {
    /// Keyed by (comp_numa, comm_numa).
    by_placement: BTreeMap<(u32, u32), Vec<TidyRow>>,
}

impl Measurements {
    pub fn from_rows<'a>(rows: impl IntoIterator<Item = &'a TidyRow>) -> Self {
        let mut groups: BTreeMap<(u32, u32), BTreeMap<u32, Vec<&TidyRow>>> = BTreeMap::new();
        for r in rows {
            groups
                .entry((r.comp_numa, r.comm_numa))
                .or_default()
                .entry(r.cores)
                .or_default()
                .push(r);
        }
        let by_placement = groups
            .into_iter()
            .map(|(key, by_cores)| {
                let rows = by_cores
                    .into_iter()
                    .map(|(cores, reps)| {
                        let med = |f: fn(&TidyRow) -> f64| {
                            let mut v: Vec<f64> = reps.iter().map(|r| f(r)).collect();
                            v.sort_by(f64::total_cmp);
                            quantile(&v, 0.5)
                        };
                        TidyRow {
                            comp_numa: key.0,
                            comm_numa: key.1,
                            cores,
                            comp_alone: med(|r| r.comp_alone),
                            comm_alone: med(|r| r.comm_alone),
                            comp_parallel: med(|r| r.comp_parallel),
                            comm_parallel: med(|r| r.comm_parallel),
                        }
                    })
                    .collect();
                (key, rows)
            })
            .collect();
        Measurements { by_placement }
    }

    /// The rows of one placement (empty when it was not measured).
    pub(crate) fn get(&self, p: Placement) -> &[TidyRow] {
        self.by_placement
            .get(&(p.comp_numa, p.comm_numa))
            .map_or(&[], Vec::as_slice)
    }

    /// Every aggregated row, placement by placement.
    pub fn rows(&self) -> Vec<TidyRow> {
        self.by_placement.values().flatten().copied().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(comp: u32, comm: u32, cores: u32, v: f64) -> TidyRow {
        TidyRow {
            comp_numa: comp,
            comm_numa: comm,
            cores,
            comp_alone: v,
            comm_alone: 2.0 * v,
            comp_parallel: 3.0 * v,
            comm_parallel: 4.0 * v,
        }
    }

    #[test]
    fn repetitions_are_aggregated_by_median_per_field() {
        let rows = [
            row(0, 0, 2, 10.0),
            row(0, 0, 1, 5.0),
            row(0, 0, 2, 30.0),
            row(0, 0, 2, 11.0),
            row(1, 0, 1, 8.0),
        ];
        let m = Measurements::from_rows(&rows);
        let p00 = m.get(Placement {
            comp_numa: 0,
            comm_numa: 0,
        });
        assert_eq!(p00, &[row(0, 0, 1, 5.0), row(0, 0, 2, 11.0)]);
        let p10 = Placement {
            comp_numa: 1,
            comm_numa: 0,
        };
        assert_eq!(m.get(p10), &[row(1, 0, 1, 8.0)]);
        assert!(m
            .get(Placement {
                comp_numa: 0,
                comm_numa: 1
            })
            .is_empty());
        assert_eq!(m.by_placement.len(), 2);
        assert_eq!(m.rows().len(), 3);
        assert_eq!(m.rows().iter().map(|r| r.cores).max(), Some(2));
        assert!(Measurements::from_rows(&[]).by_placement.is_empty());
    }
}

/// How sure a measured median is: the 95% confidence interval of its median, relative, and
/// whether sampling stopped at its time limit before reaching the asked stability. Read from
/// each phase's sampling note in a trace (`... median 95% CI +-0.56%; stopped: ...`); a trace
/// phase's explicit `unstable` field, where present, decides instead. Tidy CSV carries
/// neither, so its points have no interval.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct PhaseQuality {
    /// Half-width of the median's 95% interval over the median.
    pub(crate) rel_ci95: Option<f64>,
    pub(crate) unstable: bool,
}

impl PhaseQuality {
    /// From a phase of a trace: its `ci95` and `unstable` fields when `measure` recorded
    /// them (an interval of the median from batch medians, section 4.1.1's steady window),
    /// else what older traces wrote in the sampling note.
    pub(crate) fn from_phase(phase: &crate::trace::Phase) -> Self {
        let median = phase.summary.median;
        match phase.ci95 {
            Some((lo, hi)) if median.is_finite() && median > 0.0 && hi >= lo => PhaseQuality {
                rel_ci95: Some((hi - lo) / 2.0 / median).filter(|v| v.is_finite()),
                unstable: phase.unstable,
            },
            _ => Self::from_note(&phase.sampling, phase.unstable.then_some(true)),
        }
    }

    /// From a phase's sampling note and, if the trace has one, its `unstable` flag.
    pub(crate) fn from_note(note: &str, unstable: Option<bool>) -> Self {
        let rel_ci95 = note
            .split("median 95% CI +-")
            .nth(1)
            .and_then(|rest| rest.split('%').next())
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v >= 0.0)
            .map(|v| v / 100.0);
        let stopped = note.split("stopped: ").nth(1).unwrap_or("");
        PhaseQuality {
            rel_ci95,
            unstable: unstable.unwrap_or(stopped.contains("reached before")),
        }
    }
}

/// The quality of each measured point of the traces given: `(comp_numa, comm_numa, cores)` to
/// `[comp_alone, comm_alone, comp_parallel, comm_parallel]`. With several traces of one point
/// the widest interval is kept, and a point is unstable if any phase was.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Quality {
    by_point: BTreeMap<(u32, u32, u32), [PhaseQuality; 4]>,
}

impl Quality {
    pub fn from_traces<'a>(traces: impl IntoIterator<Item = &'a crate::trace::Trace>) -> Self {
        let mut by_point: BTreeMap<(u32, u32, u32), [PhaseQuality; 4]> = BTreeMap::new();
        for t in traces {
            for p in &t.points {
                let key = (t.config.comp_numa, t.config.comm_numa, p.cores);
                let phases = p.phases();
                let entry = by_point.entry(key).or_default();
                for (q, ph) in entry.iter_mut().zip(phases) {
                    let new = PhaseQuality::from_phase(ph);
                    q.rel_ci95 = match (q.rel_ci95, new.rel_ci95) {
                        (Some(a), Some(b)) => Some(a.max(b)),
                        (a, b) => a.or(b),
                    };
                    q.unstable |= new.unstable;
                }
            }
        }
        Quality { by_point }
    }

    /// The quality of one point's four phases, in tidy column order.
    pub(crate) fn get(&self, comp_numa: u32, comm_numa: u32, cores: u32) -> [PhaseQuality; 4] {
        self.by_point
            .get(&(comp_numa, comm_numa, cores))
            .copied()
            .unwrap_or_default()
    }

    pub(crate) fn any_unstable(&self) -> bool {
        self.by_point.values().flatten().any(|q| q.unstable)
    }

    pub(crate) fn any_interval(&self) -> bool {
        self.by_point
            .values()
            .flatten()
            .any(|q| q.rel_ci95.is_some())
    }
}

#[cfg(test)]
mod quality_tests {
    use super::*;

    #[test]
    fn the_sampling_note_gives_the_interval_and_the_stop_reason() {
        let stable = "steady window 0.004..0.083 s (0.079 s); 32 rounds of 1 thread(s) kept, 2 \
            iterations outside the window dropped; median 95% CI +-0.56%; stopped: stable \
            within +-1.0% after 0.08 s";
        let q = PhaseQuality::from_note(stable, None);
        assert!((q.rel_ci95.unwrap() - 0.0056).abs() < 1e-12);
        assert!(!q.unstable);
        let limit = "...; median 95% CI +-7.53%; stopped: phase limit of 0.5 s reached before \
            +-1.0% stability";
        let q = PhaseQuality::from_note(limit, None);
        assert!((q.rel_ci95.unwrap() - 0.0753).abs() < 1e-12);
        assert!(q.unstable);
        // An explicit flag wins; too few rounds give no interval.
        let few = "...; too few rounds for a 95% interval; stopped: phase limit reached before";
        assert_eq!(
            PhaseQuality::from_note(few, Some(false)),
            PhaseQuality {
                rel_ci95: None,
                unstable: false
            }
        );
    }

    #[test]
    fn a_phase_with_recorded_fields_uses_them_over_the_note() {
        let phase = crate::trace::Phase {
            summary: crate::trace::Summary {
                median: 1000.0,
                mean: 1000.0,
                stddev: 10.0,
                min: 900.0,
                max: 1100.0,
                count: 40,
            },
            sampling: "median 95% CI +-9.00%; stopped: stable".into(),
            samples: Vec::new(),
            ci95: Some((980.0, 1040.0)),
            unstable: true,
        };
        let q = PhaseQuality::from_phase(&phase);
        assert!((q.rel_ci95.unwrap() - 0.03).abs() < 1e-12);
        assert!(q.unstable);
        // An older trace (no ci95) falls back on its note.
        let old = crate::trace::Phase {
            ci95: None,
            unstable: false,
            ..phase
        };
        let q = PhaseQuality::from_phase(&old);
        assert!((q.rel_ci95.unwrap() - 0.09).abs() < 1e-12);
        assert!(!q.unstable);
    }

    #[test]
    fn the_saved_trace_has_intervals_and_an_unstable_phase() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/data/traces/vm-local.json"
        );
        let t = crate::io::trace_file::read(std::path::Path::new(path)).unwrap();
        let q = Quality::from_traces([&t]);
        assert!(q.any_interval());
        // Its comm_parallel phase at 1 core stopped at the 0.5 s limit (+-7.53 %).
        let p = q.get(0, 0, 1);
        assert!(p[3].unstable && (p[3].rel_ci95.unwrap() - 0.0753).abs() < 1e-12);
        assert!(!p[0].unstable);
        assert_eq!(q.get(5, 5, 1), [PhaseQuality::default(); 4]);
    }
}
