//! `contention evaluate`: the model's error against measurements, as the paper's Table 2.

use crate::calibrate;
use crate::cli::EvaluateArgs;
use crate::error::Result;
use crate::evaluate;
use crate::io::{inputs, model_file};
use crate::report;

pub fn run(args: &EvaluateArgs) -> Result<()> {
    let model_arg = crate::results::model_or_default(args.model.as_deref())?;
    let model = model_file::load(&model_arg)?;
    let inputs = inputs::read_all(&crate::results::inputs_or_default(&args.inputs)?)?;
    let mut e = evaluate::evaluate(&model, &model_arg, &inputs)?;
    e.cross_validation = calibrate::validate::of_inputs(&model, &inputs);
    if let Some(cv) = &e.cross_validation {
        eprintln!("{}", report::evaluate::cross_validation_line(cv));
    }
    report::emit(&e, args.format.into(), args.output.as_deref())
}
