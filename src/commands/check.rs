//! `contention check`: refit the model to new measurements and compare it with the expected
//! one (prediction drift), and measure the expected model's error on them; fail (exit 1) when
//! either goes beyond its limit.

use crate::calibrate;
use crate::check;
use crate::cli::CheckArgs;
use crate::error::{Error, Result};
use crate::evaluate;
use crate::io::{inputs, model_file};
use crate::report::check::CheckReport;
use crate::report::{self, Report};

pub fn run(args: &CheckArgs) -> Result<()> {
    for (name, v) in [
        ("--tolerance", args.tolerance),
        ("--max-mape", args.max_mape),
    ] {
        if let Some(v) = v.filter(|v| !(v.is_finite() && *v > 0.0 && *v <= 100.0)) {
            let v = crate::units::short_number(v);
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
    crate::io::atomic::check_not_input(
        "-o",
        args.output.as_deref(),
        input_paths
            .iter()
            .map(|p| p.as_path())
            .chain([std::path::Path::new(&model_arg)]),
    )?;
    let model_file::Loaded {
        model: expected,
        origin,
        ..
    } = model_file::load_all(&model_arg)?;
    let data = inputs::read_all(&input_paths)?;
    check::guard(&expected, &model_arg, origin.as_deref(), &data)?;
    let opts = check::refit_options(&expected, &super::calibrate::options(&args.topology));
    let (fitted, mut notes) = calibrate::calibrate(&data, &opts)?;
    notes.extend(check::variant_note(&expected, &data));
    notes.extend(check::stack_note(
        &model_file::input_stacks(&model_arg),
        &data,
    ));
    report::print_notes(&notes);
    let saved_spread = model_file::run_spread(&model_arg)?;
    let judged = check::judge(&expected, saved_spread.as_ref(), &fitted, args.tolerance);
    let eval = evaluate::evaluate(&expected, &model_arg, &data)?;
    let (comm, comp) = (
        eval.parallel.comm.all_percent,
        eval.parallel.comp.all_percent,
    );
    let mut failures = Vec::new();
    if judged.drifted() {
        failures.push(format!(
            "the refitted model's predictions moved by up to {:.2} % (limit {:.2} %, from {})",
            judged.drift.max_drift_percent, judged.limit_percent, judged.limit_source
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
        header: crate::header::Header::new(CheckReport::SCHEMA_VERSION),
        about: crate::header::About::of(&expected, &model_arg),
        inputs: input_paths
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
        drift_limit_percent: judged.limit_percent,
        drift_limits_percent: judged.limits_percent.into(),
        drift_limit_source: judged.limit_source,
        max_mape_percent: args.max_mape,
        drift: judged.drift,
        comm_mape_percent: comm,
        comp_mape_percent: comp,
        pass: failures.is_empty(),
        failures,
    };
    report::emit(&report, args.format.into(), args.output.as_deref())?;
    verdict(report.pass, &report.failures)
}

/// The command's end once its report is out: exit 0 when the check passed, else 1 with the
/// failures, the first ten of them on the error line (a fleet of 200,000 nodes wrote an
/// 11 MB line): the report lists them all.
fn verdict(pass: bool, failures: &[String]) -> Result<()> {
    if pass {
        return Ok(());
    }
    let rest = if failures.len() > crate::error::LISTED {
        " (the report lists every failure)"
    } else {
        ""
    };
    Err(Error::Failed(format!(
        "check failed: {}{rest}",
        crate::error::first_of(failures, "; ")
    )))
}

/// `check --fleet SAVED [ROOT]`: every node of the new results compared with its saved model.
fn fleet(args: &CheckArgs, saved: &std::path::Path) -> Result<()> {
    let new =
        match args.inputs.as_slice() {
            [] => crate::results::root(),
            [dir] if dir.is_dir() => dir.clone(),
            _ => return Err(Error::Input(
                "--fleet compares one results directory (ROOT/HOST/trace-*.json) with the saved \
                 fleet; name that one directory, or none for $CONTENTION_RESULTS"
                    .into(),
            )),
        };
    crate::io::atomic::check_not_input("-o", args.output.as_deref(), [saved])?;
    let report = check::fleet::check(
        saved,
        &new,
        args.tolerance,
        &super::calibrate::options(&args.topology),
    )?;
    report::emit(&report, args.format.into(), args.output.as_deref())?;
    verdict(report.pass, &report.failures)
}
