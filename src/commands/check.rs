//! `contention check`: refit the model to new measurements and compare it with the expected
//! one (prediction drift), and measure the expected model's error on them; fail (exit 1) when
//! either goes beyond its limit.

use crate::calibrate::{self, Options};
use crate::check::{self, Drift};
use crate::cli::{CheckArgs, Format};
use crate::error::{Error, Result};
use crate::evaluate;
use crate::export;
use crate::io::{inputs, model_file, output};
use crate::provenance::Provenance;
use serde::Serialize;
use std::fmt::Write;

/// The check's outcome, as JSON for CI scripts.
#[derive(Debug, Serialize)]
struct CheckReport {
    tool: Provenance,
    expected_model: String,
    machine: String,
    inputs: Vec<String>,
    tolerance_percent: f64,
    max_mape_percent: f64,
    drift: Drift,
    /// MAPE (%) of the expected model on the new measurements, parallel phase.
    comm_mape_percent: Option<f64>,
    comp_mape_percent: Option<f64>,
    failures: Vec<String>,
    pass: bool,
}

pub fn run(args: &CheckArgs) -> Result<()> {
    for (name, v) in [
        ("--tolerance", args.tolerance),
        ("--max-mape", args.max_mape),
    ] {
        if !(v.is_finite() && v > 0.0 && v <= 100.0) {
            return Err(Error::Input(format!(
                "{name} {v}: must be a percentage in (0, 100]; beyond 100 % the check could \
                 not fail"
            )));
        }
    }
    let expected = model_file::load(&args.model)?;
    let data = inputs::read_all(&args.inputs)?;
    let opts = Options {
        name: Some(expected.machine.name.clone()),
        local_only: expected.remote.is_none(),
        ..super::calibrate::options(&args.topology)
    };
    let (fitted, notes) = calibrate::calibrate(&data, &opts)?;
    for note in notes {
        eprintln!("note: {note}");
    }
    let drift = check::compare(&expected, &fitted.model, args.tolerance);
    let eval = evaluate::evaluate(&expected, &args.model, &data)?;
    let (comm, comp) = (
        eval.parallel.communications.all,
        eval.parallel.computations.all,
    );
    let mut failures = Vec::new();
    if drift.max_drift_percent > args.tolerance {
        failures.push(format!(
            "the refitted model's predictions moved by up to {:.2} % (tolerance {} %)",
            drift.max_drift_percent, args.tolerance
        ));
    }
    for (stream, mape) in [("communications", comm), ("computations", comp)] {
        if let Some(m) = mape.filter(|m| *m > args.max_mape) {
            failures.push(format!(
                "the expected model's error on {stream} is {m:.2} % (limit {} %)",
                args.max_mape
            ));
        }
    }
    let report = CheckReport {
        tool: Provenance::current(),
        expected_model: args.model.clone(),
        machine: expected.machine.name.clone(),
        inputs: args
            .inputs
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
        tolerance_percent: args.tolerance,
        max_mape_percent: args.max_mape,
        drift,
        comm_mape_percent: comm,
        comp_mape_percent: comp,
        pass: failures.is_empty(),
        failures,
    };
    let text = match args.format {
        Format::Json => export::json::render(&report),
        Format::Table | Format::Csv => table(&report),
    };
    output::emit(None, &text)?;
    if report.pass {
        Ok(())
    } else {
        Err(Error::Failed(format!(
            "check failed: {}",
            report.failures.join("; ")
        )))
    }
}

fn table(r: &CheckReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {}", r.tool.summary());
    let _ = writeln!(
        out,
        "check of {} (machine {}) against {}",
        r.expected_model,
        r.machine,
        r.inputs.join(", ")
    );
    let _ = writeln!(
        out,
        "\nprediction drift of the model refitted to the new measurements: max {:.2} % \
         (tolerance {} %)",
        r.drift.max_drift_percent, r.tolerance_percent
    );
    for p in &r.drift.placements {
        let _ = writeln!(
            out,
            "  placement {},{}: largest at {} cores, {}: {:.1} -> {:.1} MB/s ({:+.2} %)",
            p.comp_numa,
            p.comm_numa,
            p.cores,
            p.bandwidth,
            p.expected,
            p.new,
            100.0 * (p.new - p.expected) / p.expected
        );
    }
    if r.drift.changed_params.is_empty() {
        let _ = writeln!(
            out,
            "parameters: none moved by more than {} %",
            r.tolerance_percent
        );
    } else {
        let _ = writeln!(
            out,
            "parameters that moved by more than {} %:",
            r.tolerance_percent
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
         communications {}, computations {} (limit {} %)",
        pct(r.comm_mape_percent),
        pct(r.comp_mape_percent),
        r.max_mape_percent
    );
    let _ = writeln!(out, "\nresult: {}", if r.pass { "PASS" } else { "FAIL" });
    for f in &r.failures {
        let _ = writeln!(out, "  {f}");
    }
    out
}
