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
    let inputs = inputs::read_all(&crate::results::inputs_or_default(&args.inputs)?)?;
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
            eprintln!("{}", report::evaluate::cross_validation_line(&cv));
            e.cross_validation = Some(cv);
        }
        Err(why) => {
            eprintln!("{}", report::evaluate::no_cross_validation_line(&why));
            e.cross_validation_unavailable = Some(why);
        }
    }
    report::emit(&e, args.format.into(), args.output.as_deref())
}
