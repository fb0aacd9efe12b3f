//! The prediction as tidy CSV, the same columns `measure` writes and `calibrate` reads
//! (DESIGN.md, "Tidy CSV"), so predictions and measurements can be joined.

use crate::report::PredictReport;

/// The tidy CSV header, shared with the measurement CSV.
pub const HEADER: [&str; 7] = [
    "comp_numa",
    "comm_numa",
    "cores",
    "comp_alone",
    "comm_alone",
    "comp_parallel",
    "comm_parallel",
];

pub fn render(report: &PredictReport) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    // Writing into a Vec cannot fail.
    w.write_record(HEADER).expect("in-memory CSV");
    for p in &report.placements {
        for pt in &p.points {
            w.write_record([
                p.comp_numa.to_string(),
                p.comm_numa.to_string(),
                pt.cores.to_string(),
                format!("{:.1}", pt.comp_alone),
                format!("{:.1}", pt.comm_alone),
                format!("{:.1}", pt.comp_parallel),
                format!("{:.1}", pt.comm_parallel),
            ])
            .expect("in-memory CSV");
        }
    }
    String::from_utf8(w.into_inner().expect("in-memory CSV")).expect("CSV of ASCII is UTF-8")
}
