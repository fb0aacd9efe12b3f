//! The measurements figures draw, gathered by placement from traces and tidy CSV rows.

use crate::model::Placement;
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
    pub fn get(&self, p: Placement) -> &[TidyRow] {
        self.by_placement
            .get(&(p.comp_numa, p.comm_numa))
            .map_or(&[], Vec::as_slice)
    }

    pub fn placements(&self) -> impl Iterator<Item = Placement> + '_ {
        self.by_placement
            .keys()
            .map(|&(comp_numa, comm_numa)| Placement {
                comp_numa,
                comm_numa,
            })
    }

    /// Every aggregated row, placement by placement.
    pub fn rows(&self) -> Vec<TidyRow> {
        self.by_placement.values().flatten().copied().collect()
    }

    pub fn is_empty(&self) -> bool {
        self.by_placement.is_empty()
    }

    /// The largest measured core count (0 when empty).
    pub fn max_cores(&self) -> u32 {
        self.by_placement
            .values()
            .flatten()
            .map(|r| r.cores)
            .max()
            .unwrap_or(0)
    }
}

/// The `q`-quantile of ascending `sorted` values, interpolating linearly between order
/// statistics (Hyndman and Fan's type 7, the default of R and NumPy). NaN when empty.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        1 => sorted[0],
        n => {
            let h = q.clamp(0.0, 1.0) * (n - 1) as f64;
            let lo = h.floor() as usize;
            let hi = (lo + 1).min(n - 1);
            sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
        }
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
    fn quantiles_interpolate() {
        assert!(quantile(&[], 0.5).is_nan());
        assert_eq!(quantile(&[7.0], 0.25), 7.0);
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0], 0.5), 2.5);
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.25), 2.0);
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0], 0.25), 1.75);
        assert_eq!(quantile(&[1.0, 9.0], 1.0), 9.0);
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
        assert_eq!(m.placements().count(), 2);
        assert_eq!(m.rows().len(), 3);
        assert_eq!(m.max_cores(), 2);
        assert!(Measurements::from_rows(&[]).is_empty());
    }
}
