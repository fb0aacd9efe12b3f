//! `contention evaluate`: the model's error against measurements, as the paper's Table 2.

use crate::calibrate;
use crate::cli::EvaluateArgs;
use crate::error::Result;
use crate::evaluate;
use crate::io::{inputs, model_file};
use crate::report;

pub fn run(args: &EvaluateArgs) -> Result<()> {
    let model_arg = crate::results::model_or_default(args.model.as_deref())?;
    let model_file::Loaded { model, origin, .. } = model_file::load_all(&model_arg)?;
    let paths = crate::results::inputs_or_default(&args.inputs)?;
    crate::io::atomic::check_not_input(
        "-o",
        args.output.as_deref(),
        paths
            .iter()
            .map(|p| p.as_path())
            .chain([std::path::Path::new(&model_arg)]),
    )?;
    let inputs = inputs::read_all(&paths)?;
    crate::dataset::same_origin_as_model(
        &model_arg,
        origin.as_deref(),
        inputs
            .iter()
            .map(|i| (i.source.as_str(), crate::dataset::simulated(i))),
    )?;
    let mut e = evaluate::evaluate(&model, &model_arg, &inputs)?;
    match calibrate::validate::of_inputs(&model, &inputs, args.tolerance) {
        Ok(cv) => {
            let in_sample = calibrated_on(&model_file::input_paths(&model_arg), &paths);
            eprintln!(
                "{}",
                report::evaluate::cross_validation_line(&cv, in_sample)
            );
            e.cross_validation = Some(cv);
            e.cross_validation_in_sample = Some(in_sample);
        }
        Err(why) => {
            eprintln!("{}", report::evaluate::no_cross_validation_line(&why));
            e.cross_validation_unavailable = Some(why);
        }
    }
    report::emit(&e, args.format.into(), args.output.as_deref())
}

/// Whether the model was calibrated on every file evaluated (`calibration` names each among
/// its inputs, the same file by its canonical path): then its error at a held-out placement
/// is in sample. A built-in or hand-typed model never is.
fn calibrated_on(model_inputs: &[String], evaluated: &[std::path::PathBuf]) -> bool {
    let canonical = |p: &std::path::Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.into());
    let fitted: Vec<std::path::PathBuf> = model_inputs
        .iter()
        .map(|p| canonical(std::path::Path::new(p)))
        .collect();
    !evaluated.is_empty() && evaluated.iter().all(|p| fitted.contains(&canonical(p)))
}
