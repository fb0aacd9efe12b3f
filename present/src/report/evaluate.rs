//! The report of `evaluate` ([`EvaluateReport`]) as a [`Report`]: a table for people, laid
//! out like the paper's Table 2, and CSV of every point compared.

use crate::calibrate::validate::CrossValidation;
use crate::evaluate::{EvaluateReport, Mape, PhaseErrors};
use crate::report::Report;
use std::fmt::Write;

impl Report for EvaluateReport {
    const SCHEMA_VERSION: u32 = crate::evaluate::SCHEMA_VERSION;

    fn notes(&self) -> &[String] {
        &self.notes
    }

    fn table(&self) -> String {
        table(self)
    }

    fn csv(&self) -> Option<String> {
        Some(csv(self))
    }
}

/// Columns of `evaluate --format csv`, one row per measured bandwidth.
pub(crate) const CSV_HEADER: [&str; 9] = [
    "comp_numa",
    "comm_numa",
    "cores",
    "sample",
    "phase",
    "stream",
    "measured",
    "predicted",
    "ape_percent",
];

fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), |v| format!("{v:.2} %"))
}

fn mape_cells(m: &Mape) -> [String; 3] {
    [
        pct(m.samples_percent),
        pct(m.non_samples_percent),
        pct(m.all_percent),
    ]
}

fn phase_block(out: &mut String, title: &str, e: &PhaseErrors) {
    let _ = writeln!(out, "{title}");
    let _ = writeln!(
        out,
        "  {:<8}  {:>35}  {:>35}",
        "", "Communications", "Computations"
    );
    let _ = writeln!(
        out,
        "  {:<8}  {:>11} {:>11} {:>11}  {:>11} {:>11} {:>11}  {:>9}",
        "", "samples", "non-samples", "all", "samples", "non-samples", "all", "Average"
    );
    let [cs, cn, ca] = mape_cells(&e.comm);
    let [ps, pn, pa] = mape_cells(&e.comp);
    let _ = writeln!(
        out,
        "  {:<8}  {cs:>11} {cn:>11} {ca:>11}  {ps:>11} {pn:>11} {pa:>11}  {:>9}",
        "MAPE",
        pct(e.average_percent)
    );
    let (c, p) = (&e.comm, &e.comp);
    let _ = writeln!(
        out,
        "  {:<8}  {:>11} {:>11} {:>11}  {:>11} {:>11} {:>11}",
        "points",
        c.n_samples,
        c.n_non_samples,
        c.n_samples + c.n_non_samples,
        p.n_samples,
        p.n_non_samples,
        p.n_samples + p.n_non_samples
    );
}

fn table(e: &EvaluateReport) -> String {
    let mut out = String::new();
    super::header(&mut out, &e.header, &e.about);
    let _ = writeln!(out, "# measurements: {}", e.inputs.join(", "));
    let _ = writeln!(
        out,
        "# error: MAPE = 100 % / n * sum |measured - predicted| / measured (section 4.2)"
    );
    let _ = writeln!(
        out,
        "# samples: placements {} (calibrated on); non-samples: every other placement",
        e.sample_placements.join(" and ")
    );
    for note in &e.notes {
        let _ = writeln!(out, "# note: {note}");
    }
    out.push('\n');
    phase_block(
        &mut out,
        "Parallel phase: computations and communications together (the paper's Table 2)",
        &e.parallel,
    );
    out.push('\n');
    phase_block(
        &mut out,
        "Alone phase: each stream without the other (not in Table 2)",
        &e.alone,
    );
    out.push('\n');
    let _ = writeln!(out, "Per placement (MAPE; * = sample):");
    let _ = writeln!(
        out,
        "  {:<10} {:>6}  {:>13} {:>13}  {:>10} {:>10}",
        "placement", "points", "comm_parallel", "comp_parallel", "comm_alone", "comp_alone"
    );
    for p in &e.placements {
        let name = format!(
            "{},{}{}",
            p.comp_numa,
            p.comm_numa,
            if p.sample { " *" } else { "" }
        );
        let _ = writeln!(
            out,
            "  {name:<10} {:>6}  {:>13} {:>13}  {:>10} {:>10}",
            p.cores.len(),
            pct(Some(p.comm_parallel_mape_percent)),
            pct(Some(p.comp_parallel_mape_percent)),
            pct(Some(p.comm_alone_mape_percent)),
            pct(Some(p.comp_alone_mape_percent)),
        );
    }
    out.push('\n');
    match (&e.cross_validation, &e.cross_validation_unavailable) {
        (Some(cv), _) => {
            let in_sample = e.cross_validation_in_sample == Some(true);
            let _ = writeln!(out, "{}:", cross_validation_line(cv, in_sample));
            for h in &cv.placements {
                let _ = writeln!(
                    out,
                    "  {:<10} held out comp_parallel {:>8} comm_parallel {:>8}; {} {:>8} {:>8}",
                    h.placement,
                    pct(Some(h.held_out_mape_percent.comp_parallel)),
                    pct(Some(h.held_out_mape_percent.comm_parallel)),
                    if in_sample { "in sample" } else { "this model" },
                    pct(Some(h.in_sample_mape_percent.comp_parallel)),
                    pct(Some(h.in_sample_mape_percent.comm_parallel)),
                );
            }
        }
        (None, Some(why)) => {
            let _ = writeln!(out, "{}", no_cross_validation_line(why));
        }
        (None, None) => {}
    }
    let _ = writeln!(out, "\nPoints counted: {}.", e.points_counted);
    out
}

/// Every point compared, long format: one row per placement, core count, phase and stream,
/// bandwidths in MB/s with one decimal, the absolute percentage error with four.
fn csv(e: &EvaluateReport) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    // Writing into a Vec cannot fail.
    w.write_record(CSV_HEADER).expect("in-memory CSV");
    for p in &e.points {
        w.write_record([
            p.comp_numa.to_string(),
            p.comm_numa.to_string(),
            p.cores.to_string(),
            p.sample.to_string(),
            p.phase.name().to_string(),
            p.stream.name().to_string(),
            format!("{:.1}", p.measured),
            format!("{:.1}", p.predicted),
            format!("{:.4}", p.ape_percent),
        ])
        .expect("in-memory CSV");
    }
    String::from_utf8(w.into_inner().expect("in-memory CSV")).expect("ASCII is UTF-8")
}

/// Why `evaluate` has no leave-one-placement-out error, one line for standard error and the
/// table.
pub fn no_cross_validation_line(why: &str) -> String {
    format!("leave-one-placement-out: not computed: {why}")
}

/// The leave-one-placement-out error, one line that `evaluate` prints on standard error
/// whatever the format, before the report: what each figure is. The held-out one is the
/// global fit of these measurements (from the paper's rules) refitted without each
/// placement, not the model evaluated; the model's own error there is in sample only when
/// it was calibrated on these files (`in_sample`).
pub fn cross_validation_line(cv: &CrossValidation, in_sample: bool) -> String {
    let model = if in_sample {
        "in sample (its calibration read these files)"
    } else {
        "(not in sample: the model file records no calibration on these files)"
    };
    format!(
        "leave-one-placement-out (the global fit of these measurements without each \
         non-sample placement), MAPE in parallel: {:.2} % held out, {:.2} % for this model \
         {model}",
        cv.held_out_parallel_mape_percent, cv.in_sample_parallel_mape_percent
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::Input;
    use crate::evaluate::evaluate;
    use crate::io::model_file;
    use crate::model::{self, all_placements};
    use crate::trace::predicted_rows;

    fn report() -> EvaluateReport {
        let m = model_file::load("paper:henri").unwrap();
        let mut rows =
            predicted_rows(&model::predict(&m, &all_placements(&m), &[1, 2, 18]).unwrap());
        rows[0].comm_parallel *= 2.0; // placement 0,0 at 1 core: 50 % off
        evaluate(&m, "paper:henri", &[Input::from_rows(&rows, "m.csv")]).unwrap()
    }

    #[test]
    fn table_has_table_2_layout_and_says_what_counts() {
        let t = table(&report());
        for needle in [
            "machine henri",
            "Table 2",
            "non-samples",
            "Average",
            "samples: placements 0,0 and 1,1",
            "0,0 *",
            "Points counted:",
            "not in Table 2",
            "measurements: m.csv",
        ] {
            assert!(t.contains(needle), "{needle} missing:\n{t}");
        }
        // 1 point of 6 sample points is 50 % off.
        assert!(t.contains("8.33 %"), "{t}");
    }

    #[test]
    fn csv_has_one_row_per_point_phase_and_stream() {
        let text = csv(&report());
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(CSV_HEADER.join(",").as_str()));
        let rows: Vec<&str> = lines.collect();
        assert_eq!(rows.len(), 4 * 3 * 4);
        assert!(
            rows.iter()
                .any(|r| r.starts_with("0,0,1,true,parallel,comm,") && r.ends_with(",50.0000")),
            "{text}"
        );
    }

    #[test]
    fn json_has_schema_version() {
        assert_eq!(crate::report::json_of(&report())["inputs"][0], "m.csv");
    }
}
