//! The report of `contention check` (the refitted model's prediction drift and the expected
//! model's error on new measurements, with the verdict) as a [`Report`]: a table, CSV of the
//! drift per placement, and its fields as JSON for CI scripts.

use crate::check::Drift;
use crate::report::Report;
use serde::Serialize;
use std::fmt::Write;

/// The check's outcome, as JSON for CI scripts.
#[derive(Debug, Serialize)]
pub struct CheckReport {
    #[serde(flatten)]
    pub header: crate::header::Header,
    /// The expected model, its machine and the units, as in every other report.
    #[serde(flatten)]
    pub about: crate::header::About,
    pub inputs: Vec<String>,
    /// The drift limit the verdict turned on, percent (the placement nearest to or farthest
    /// past its bandwidth's limit), each bandwidth's limit, and where they came from:
    /// `--tolerance`, or the noise within and between runs.
    pub drift_limit_percent: f64,
    pub drift_limits_percent: crate::check::Limits,
    pub drift_limit_source: &'static str,
    /// The absolute error limit, percent, when `--max-mape` was given.
    pub max_mape_percent: Option<f64>,
    pub drift: Drift,
    /// MAPE (%) of the expected model on the new measurements, parallel phase.
    pub comm_mape_percent: Option<f64>,
    pub comp_mape_percent: Option<f64>,
    pub failures: Vec<String>,
    pub pass: bool,
}

impl Report for CheckReport {
    const SCHEMA_VERSION: u32 = 1;

    fn table(&self) -> String {
        table(self)
    }

    fn csv(&self) -> Option<String> {
        Some(csv(self))
    }
}

/// One row per placement: its largest drift, the limit and whether it passes.
fn csv(r: &CheckReport) -> String {
    let mut out = String::from(
        "comp_numa,comm_numa,cores,bandwidth,expected,new,drift_percent,limit_percent,pass\n",
    );
    for p in &r.drift.placements {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{}",
            p.comp_numa,
            p.comm_numa,
            p.cores,
            p.bandwidth,
            p.expected,
            p.new,
            p.drift_percent,
            p.limit_percent,
            !p.drifted()
        );
    }
    out
}

/// A parameter's value in the table: three decimals, or in scientific notation where they
/// would hide it (a hand-written 1e-300 is not 0.000).
fn param_value(v: f64) -> String {
    if v != 0.0 && !(1e-3..1e9).contains(&v.abs()) {
        format!("{v:.3e}")
    } else {
        format!("{v:.3}")
    }
}

/// A parameter's relative change: past 10,000 % (from a value near 0) only that.
fn change_percent(p: f64) -> String {
    if p.is_finite() && p <= 1e4 {
        format!("{p:.1} %")
    } else {
        "> 10000 %".into()
    }
}

fn table(r: &CheckReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {}", r.header.tool.summary());
    let _ = writeln!(
        out,
        "check of {} (machine {}) against {}",
        r.about.model,
        r.about.machine.name,
        r.inputs.join(", ")
    );
    let _ = writeln!(
        out,
        "\nprediction drift of the model refitted to the new measurements: max {:.2} % \
         (limits {}; from {})",
        r.drift.max_drift_percent,
        r.drift_limits_percent,
        if r.drift_limit_source == "--tolerance" {
            "--tolerance"
        } else {
            r.drift_limit_source
        }
    );
    for p in &r.drift.placements {
        let _ = writeln!(
            out,
            "  placement {},{}: nearest its limit at {} cores, {}: {:.1} -> {:.1} MB/s \
             ({:+.2} %, limit {:.2} %)",
            p.comp_numa,
            p.comm_numa,
            p.cores,
            p.bandwidth,
            p.expected,
            p.new,
            100.0 * (p.new - p.expected) / p.expected,
            p.limit_percent
        );
    }
    // Parameters are listed past the smallest bandwidth's limit, not the deciding one.
    let listed = r.drift_limits_percent.smallest();
    if r.drift.changed_params.is_empty() {
        let _ = writeln!(out, "parameters: none moved by more than {listed:.2} %");
    } else {
        let _ = writeln!(out, "parameters that moved by more than {listed:.2} %:");
        for c in &r.drift.changed_params {
            let _ = writeln!(
                out,
                "  {:<18} {:>10} -> {:>10}  ({})",
                c.field,
                param_value(c.expected),
                param_value(c.new),
                change_percent(c.change_percent)
            );
        }
    }
    let pct = |m: Option<f64>| m.map_or("-".to_string(), |m| format!("{m:.2} %"));
    let _ = writeln!(
        out,
        "\nerror of the expected model on the new measurements (MAPE, parallel phase): \
         communications {}, computations {} ({})",
        pct(r.comm_mape_percent),
        pct(r.comp_mape_percent),
        r.max_mape_percent.map_or(
            "reported, not judged: --max-mape sets a limit".to_string(),
            |m| format!("--max-mape {m} %")
        )
    );
    let _ = writeln!(out, "\nresult: {}", if r.pass { "PASS" } else { "FAIL" });
    for f in &r.failures {
        let _ = writeln!(out, "  {f}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::ParamChange;
    use crate::io::model_file;

    /// A hand-written model with a parameter near 0 (`check`'s table showed it as 0.000 and
    /// its change as a 300-digit percentage or `inf %`), and limits that differ by bandwidth:
    /// parameters are listed past the smallest, which the header must say.
    #[test]
    fn the_table_shows_tiny_parameters_and_the_limit_that_lists_them() {
        let m = model_file::load("paper:henri").unwrap();
        let mut drift = crate::check::compare(&m, &m, [5.0; 4]);
        drift.changed_params = vec![
            ParamChange {
                field: "local.half_load".into(),
                expected: 1e-300,
                new: 0.587,
                change_percent: 5.87e301,
            },
            ParamChange {
                field: "local.steepness".into(),
                expected: 0.0,
                new: 7.341,
                change_percent: f64::INFINITY,
            },
        ];
        let r = CheckReport {
            header: crate::header::Header::new(CheckReport::SCHEMA_VERSION),
            about: crate::header::About::of(&m, "paper:henri"),
            inputs: vec!["t.json".into()],
            drift_limit_percent: 21.22,
            drift_limits_percent: [28.8, 21.22, 15.08, 26.1].into(),
            drift_limit_source: "runs",
            max_mape_percent: None,
            drift,
            comm_mape_percent: None,
            comp_mape_percent: None,
            failures: Vec::new(),
            pass: false,
        };
        let t = table(&r);
        assert!(
            t.contains("parameters that moved by more than 15.08 %:"),
            "{t}"
        );
        assert!(
            t.contains("local.half_load    1.000e-300 ->      0.587  (> 10000 %)"),
            "{t}"
        );
        assert!(
            t.contains("local.steepness         0.000 ->      7.341  (> 10000 %)"),
            "{t}"
        );
    }
}
