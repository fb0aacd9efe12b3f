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
use crate::model::Machine;
use crate::provenance::Provenance;
use serde::Serialize;
use std::fmt::Write;

/// Version of the check report's JSON layout.
pub const CHECK_SCHEMA_VERSION: u32 = 1;

/// The check's outcome, as JSON for CI scripts.
#[derive(Debug, Serialize)]
struct CheckReport {
    schema_version: u32,
    tool: Provenance,
    /// The expected model as named (`paper:NAME`, or a path).
    model: String,
    /// The machine the expected model describes, as in every other report.
    machine: Machine,
    /// What the numbers are in, as in every other report.
    units: export::json::Units,
    inputs: Vec<String>,
    /// The drift limit applied, percent, and where it came from: `noise` or `--tolerance`.
    drift_limit_percent: f64,
    drift_limit_source: &'static str,
    /// The absolute error limit, percent, when `--max-mape` was given.
    max_mape_percent: Option<f64>,
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
        if let Some(v) = v.filter(|v| !(v.is_finite() && *v > 0.0 && *v <= 100.0)) {
            return Err(Error::Input(format!(
                "{name} {v}: must be a percentage in (0, 100], e.g. `{name} 5`; beyond 100 % \
                 the check could not fail"
            )));
        }
    }
    if let Some(saved) = &args.fleet {
        return fleet(args, saved);
    }
    let model_arg = crate::results::model_or_default(args.model.as_deref())?;
    let input_paths = crate::results::inputs_or_default(&args.inputs)?;
    let expected = model_file::load(&model_arg)?;
    let data = inputs::read_all(&input_paths)?;
    let opts = Options {
        name: Some(expected.machine.name.clone()),
        local_only: expected.remote.is_none(),
        ..super::calibrate::options(&args.topology)
    };
    let (fitted, notes) = calibrate::calibrate(&data, &opts)?;
    for note in notes {
        eprintln!("note: {note}");
    }
    let (limit, source) = match args.tolerance {
        Some(t) => (t, "--tolerance"),
        None => {
            let c = &fitted.calibration;
            let fits: Vec<_> = std::iter::once(&c.local).chain(c.remote.as_ref()).collect();
            (check::noise_limit_percent(&fits), "noise")
        }
    };
    let drift = check::compare(&expected, &fitted.model, limit);
    let eval = evaluate::evaluate(&expected, &model_arg, &data)?;
    let (comm, comp) = (
        eval.parallel.comm.all_percent,
        eval.parallel.comp.all_percent,
    );
    let mut failures = Vec::new();
    if drift.max_drift_percent > limit {
        failures.push(format!(
            "the refitted model's predictions moved by up to {:.2} % (limit {limit:.2} %, from \
             {source})",
            drift.max_drift_percent
        ));
    }
    if let Some(max) = args.max_mape {
        for (stream, mape) in [("communications", comm), ("computations", comp)] {
            if let Some(m) = mape.filter(|m| *m > max) {
                failures.push(format!(
                    "the expected model's error on {stream} is {m:.2} % (--max-mape {max} %)"
                ));
            }
        }
    }
    let report = CheckReport {
        schema_version: CHECK_SCHEMA_VERSION,
        tool: Provenance::current(),
        model: model_arg.clone(),
        machine: expected.machine.clone(),
        units: export::json::UNITS,
        inputs: input_paths
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
        drift_limit_percent: limit,
        drift_limit_source: source,
        max_mape_percent: args.max_mape,
        drift,
        comm_mape_percent: comm,
        comp_mape_percent: comp,
        pass: failures.is_empty(),
        failures,
    };
    let text = match args.format {
        Format::Json => export::json::render(&report),
        Format::Csv => csv(&report),
        Format::Table => table(&report),
    };
    output::emit(args.output.as_deref(), &text)?;
    if report.pass {
        Ok(())
    } else {
        Err(Error::Failed(format!(
            "check failed: {}",
            report.failures.join("; ")
        )))
    }
}

/// `check --fleet SAVED [ROOT]`: every node of the new results compared with its saved model.
fn fleet(args: &CheckArgs, saved: &std::path::Path) -> Result<()> {
    let new = match args.inputs.as_slice() {
        [] => crate::results::root(),
        [dir] if dir.is_dir() => dir.clone(),
        _ => {
            return Err(Error::Input(
                "--fleet compares one results directory (ROOT/HOST/trace-*.json) with the saved                  fleet; name that one directory, or none for $CONTENTION_RESULTS"
                    .into(),
            ))
        }
    };
    let report = crate::fleet::check::check(
        saved,
        &new,
        args.tolerance,
        &super::calibrate::options(&args.topology),
    )?;
    let text = match args.format {
        Format::Json => export::json::render(&report),
        Format::Csv => report.csv(),
        Format::Table => report.table(),
    };
    output::emit(args.output.as_deref(), &text)?;
    if report.pass {
        Ok(())
    } else {
        Err(Error::Failed(format!(
            "check failed: {}",
            report.failures.join("; ")
        )))
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
            r.drift_limit_percent,
            p.drift_percent <= r.drift_limit_percent
        );
    }
    out
}

fn table(r: &CheckReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {}", r.tool.summary());
    let _ = writeln!(
        out,
        "check of {} (machine {}) against {}",
        r.model,
        r.machine.name,
        r.inputs.join(", ")
    );
    let _ = writeln!(
        out,
        "\nprediction drift of the model refitted to the new measurements: max {:.2} % \
         (limit {:.2} %, {})",
        r.drift.max_drift_percent,
        r.drift_limit_percent,
        if r.drift_limit_source == "noise" {
            "from the measurements' noise"
        } else {
            "--tolerance"
        }
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
