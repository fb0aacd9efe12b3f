//! The prediction as tidy CSV, the same columns `measure` writes and `calibrate` reads
//! (DESIGN.md, "Tidy CSV"), so predictions and measurements can be joined.

use crate::calibrate::bands::PlacementIntervals;
use crate::io::tidy_csv;
use crate::model::PlacementPrediction;
use crate::report::PredictReport;
use crate::trace::TidyRow;

pub fn render(report: &PredictReport) -> String {
    match &report.intervals {
        None => tidy_csv::to_string(&tidy_rows(&report.placements)),
        Some(iv) => with_intervals(&tidy_rows(&report.placements), iv),
    }
}

/// The tidy columns, then the 95 % interval of each bandwidth (`predict --intervals`):
/// `comp_alone_low, comp_alone_high, ...`, in the tidy columns' order.
fn with_intervals(rows: &[TidyRow], intervals: &[PlacementIntervals]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header: Vec<String> = tidy_csv::HEADER.iter().map(|h| h.to_string()).collect();
    for q in crate::dataset::QUANTITIES {
        header.push(format!("{q}_low"));
        header.push(format!("{q}_high"));
    }
    // Writing into a Vec cannot fail.
    w.write_record(&header).expect("in-memory CSV");
    let points = intervals.iter().flat_map(|p| p.points.iter());
    for (r, iv) in rows.iter().zip(points) {
        let mut rec = vec![
            r.comp_numa.to_string(),
            r.comm_numa.to_string(),
            r.cores.to_string(),
        ];
        for v in [r.comp_alone, r.comm_alone, r.comp_parallel, r.comm_parallel] {
            rec.push(format!("{v:.1}"));
        }
        for [lo, hi] in [
            iv.comp_alone,
            iv.comm_alone,
            iv.comp_parallel,
            iv.comm_parallel,
        ] {
            rec.push(format!("{lo:.1}"));
            rec.push(format!("{hi:.1}"));
        }
        w.write_record(&rec).expect("in-memory CSV");
    }
    String::from_utf8(w.into_inner().expect("in-memory CSV")).expect("CSV of ASCII")
}

/// Predictions as tidy rows, one per placement and core count: what a perfect measurement of
/// a machine the model describes exactly would give.
pub fn tidy_rows(placements: &[PlacementPrediction]) -> Vec<TidyRow> {
    placements
        .iter()
        .flat_map(|p| {
            p.points
                .iter()
                .map(|pt| TidyRow::predicted(p.comp_numa, p.comm_numa, pt))
        })
        .collect()
}
