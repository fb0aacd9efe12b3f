//! The prediction as tidy CSV, the same columns `measure` writes and `calibrate` reads
//! (docs/formats.md, "Tidy CSV"), so predictions and measurements can be joined.

use super::PredictReport;
use crate::calibrate::bands::PointIntervals;
use crate::io::tidy_csv;

/// The tidy columns, then the loss ratios `comp_loss,comm_loss` (alone / parallel) and, with
/// `predict --intervals`, the 95 % interval of each bandwidth (`comp_alone_low,
/// comp_alone_high, ...`, in the tidy columns' order); tidy CSV readers ignore extra columns.
pub(crate) fn render(report: &PredictReport) -> String {
    let rows = crate::trace::predicted_rows(&report.placements);
    let losses: Vec<(f64, f64)> = report
        .placements
        .iter()
        .flat_map(|p| p.points.iter().map(|pt| (pt.comp_loss(), pt.comm_loss())))
        .collect();
    let intervals: Vec<&PointIntervals> = report
        .intervals
        .iter()
        .flat_map(|iv| iv.iter().flat_map(|p| p.points.iter()))
        .collect();
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header: Vec<String> = tidy_csv::HEADER.iter().map(|h| h.to_string()).collect();
    header.push("comp_loss".into());
    header.push("comm_loss".into());
    if !intervals.is_empty() {
        for q in crate::dataset::QUANTITIES {
            header.push(format!("{q}_low"));
            header.push(format!("{q}_high"));
        }
    }
    // Writing into a Vec cannot fail.
    w.write_record(&header).expect("in-memory CSV");
    for (i, (r, (comp_loss, comm_loss))) in rows.iter().zip(losses).enumerate() {
        let mut rec = vec![
            r.comp_numa.to_string(),
            r.comm_numa.to_string(),
            r.cores.to_string(),
        ];
        for v in [r.comp_alone, r.comm_alone, r.comp_parallel, r.comm_parallel] {
            rec.push(format!("{v:.1}"));
        }
        rec.push(format!("{comp_loss:.4}"));
        rec.push(format!("{comm_loss:.4}"));
        if let Some(iv) = intervals.get(i) {
            for [lo, hi] in [
                iv.comp_alone,
                iv.comm_alone,
                iv.comp_parallel,
                iv.comm_parallel,
            ] {
                rec.push(format!("{lo:.1}"));
                rec.push(format!("{hi:.1}"));
            }
        }
        w.write_record(&rec).expect("in-memory CSV");
    }
    String::from_utf8(w.into_inner().expect("in-memory CSV")).expect("CSV of ASCII")
}
