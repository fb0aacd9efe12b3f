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
    if r.drift.changed_params.is_empty() {
        let _ = writeln!(
            out,
            "parameters: none moved by more than {:.2} %",
            r.drift_limit_percent
        );
    } else {
        let _ = writeln!(
            out,
            "parameters that moved by more than {:.2} %:",
            r.drift_limit_percent
        );
        for c in &r.drift.changed_params {
            let _ = writeln!(
                out,
                "  {:<18} {:>10.3} -> {:>10.3}  ({:.1} %)",
                c.field, c.expected, c.new, c.change_percent
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
