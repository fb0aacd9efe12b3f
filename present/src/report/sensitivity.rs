//! The report of `contention sensitivity` as a [`Report`]: a table for people, JSON (the
//! [`SensitivityReport`] as it is) or CSV (one row per level:
//! `level,setting,fom,relative,stolen_mb_per_s,runs`).

use crate::report::Report;
use crate::sensitivity::threshold::Threshold;
use crate::sensitivity::SensitivityReport;
use std::fmt::Write;

impl Report for SensitivityReport {
    const SCHEMA_VERSION: u32 = crate::sensitivity::SCHEMA_VERSION;

    /// None apart: the notes qualify the thresholds, so they close the table (and are in the
    /// JSON) rather than go to standard error.
    fn notes(&self) -> &[String] {
        &[]
    }

    fn table(&self) -> String {
        table(self)
    }

    fn csv(&self) -> Option<String> {
        Some(csv(self))
    }
}

fn threshold_text(t: &Threshold) -> String {
    match (t.level, t.interpolated) {
        (Some(l), Some(i)) if (l - i).abs() > 0.05 => format!("{l:.1} (interpolated {i:.1})"),
        (Some(l), _) => format!("{l:.1}"),
        _ => "not reached".into(),
    }
}

fn table(r: &SensitivityReport) -> String {
    let mut s = String::new();
    let unit = r.unit.as_deref().unwrap_or("as printed");
    let better = if r.lower_is_better { "lower" } else { "higher" };
    let _ = writeln!(s, "Bandwidth sensitivity of {}", r.workload);
    let _ = writeln!(s, "level: {}", r.level_meaning);
    if let Some(p) = r.peak_mb_per_s {
        let _ = writeln!(s, "peak store bandwidth: {p:.0} MB/s");
    }
    let _ = writeln!(
        s,
        "FOM: {unit}, {better} is better, median of {} runs\n",
        r.repeat
    );
    let _ = writeln!(
        s,
        "{:>7}  {:<26} {:>14} {:>9} {:>12}",
        "level", "setting", "FOM", "relative", "stolen MB/s"
    );
    for p in &r.points {
        let stolen = p.stolen_mb_per_s.map_or("-".into(), |v| format!("{v:.0}"));
        let _ = writeln!(
            s,
            "{:>7.1}  {:<26} {:>14.6} {:>8.1}% {:>12}",
            p.level,
            p.setting,
            p.fom,
            100.0 * p.relative,
            stolen
        );
    }
    let _ = writeln!(
        s,
        "\nThresholds (Foyer & Goglin, Table I): the highest level where the FOM is below"
    );
    for t in &r.thresholds {
        let _ = writeln!(
            s,
            "  {:>3.0}% of its best: {}",
            100.0 * t.fraction,
            threshold_text(t)
        );
    }
    for n in &r.notes {
        let _ = writeln!(s, "\nnote: {n}");
    }
    s
}

fn csv(r: &SensitivityReport) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let _ = w.write_record([
        "level",
        "setting",
        "fom",
        "relative",
        "stolen_mb_per_s",
        "runs",
    ]);
    for p in &r.points {
        let runs: Vec<String> = p.foms.iter().map(f64::to_string).collect();
        let _ = w.write_record([
            p.level.to_string(),
            p.setting.clone(),
            p.fom.to_string(),
            p.relative.to_string(),
            p.stolen_mb_per_s.map_or(String::new(), |v| v.to_string()),
            runs.join(" "),
        ]);
    }
    String::from_utf8(w.into_inner().expect("writing to memory cannot fail")).expect("CSV of UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sensitivity::{threshold, Point};

    fn report() -> SensitivityReport {
        let points: Vec<Point> = [(50.0, 5.0), (100.0, 10.0)]
            .iter()
            .map(|&(level, fom)| Point {
                level,
                setting: format!("MB={level}"),
                fom,
                relative: fom / 10.0,
                foms: vec![fom],
                stolen_mb_per_s: None,
            })
            .collect();
        let curve: Vec<(f64, f64)> = points.iter().map(|p| (p.level, p.fom)).collect();
        SensitivityReport {
            header: crate::header::Header::new(SensitivityReport::SCHEMA_VERSION),
            units: crate::units::UNITS,
            backend: "resctrl",
            level_meaning: "percent".into(),
            workload: "x".into(),
            unit: None,
            lower_is_better: false,
            repeat: 1,
            peak_mb_per_s: None,
            thresholds: threshold::thresholds(&curve, false, &threshold::FRACTIONS),
            points,
            notes: vec!["n".into()],
        }
    }

    #[test]
    fn formats_carry_the_curve_and_thresholds() {
        let r = report();
        let t = table(&r);
        assert!(t.contains(" 50% of its best: not reached"), "{t}");
        assert!(
            t.contains(" 90% of its best: 50.0 (interpolated 90.0)"),
            "{t}"
        );
        let j = crate::report::json_of(&r);
        assert_eq!(j["points"].as_array().unwrap().len(), 2);
        assert_eq!(j["thresholds"][2]["level"], 50.0);
        assert!(j["thresholds"][0]["level"].is_null());
        let c = csv(&r);
        assert_eq!(
            c.lines().next().unwrap(),
            "level,setting,fom,relative,stolen_mb_per_s,runs"
        );
        assert_eq!(c.lines().nth(2).unwrap(), "100,MB=100,10,1,,10");
    }

    #[test]
    fn json_has_schema_version() {
        assert_eq!(crate::report::json_of(&report())["backend"], "resctrl");
    }
}
