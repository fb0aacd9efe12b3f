//! `contention evaluate`: the model's error against measurements, as the paper's Table 2.

use crate::calibrate;
use crate::cli::{EvaluateArgs, Format};
use crate::error::Result;
use crate::evaluate;
use crate::export::{evaluation, json};
use crate::io::{inputs, model_file, output};

pub fn run(args: &EvaluateArgs) -> Result<()> {
    let model = model_file::load(&args.model)?;
    let inputs = inputs::read_all(&args.inputs)?;
    let mut e = evaluate::evaluate(&model, &args.model, &inputs)?;
    e.cross_validation = calibrate::validate::of_inputs(&model, &inputs);
    if let Some(cv) = &e.cross_validation {
        eprintln!(
            "leave-one-placement-out (global fit without each non-sample placement), MAPE in \
             parallel: {:.2} % held out, {:.2} % for this model in sample",
            cv.held_out_parallel_mape_percent, cv.in_sample_parallel_mape_percent
        );
    }
    for note in &e.notes {
        eprintln!("note: {note}");
    }
    let text = match args.format {
        Format::Table => evaluation::table(&e),
        Format::Json => json::render(&e),
        Format::Csv => evaluation::csv(&e),
    };
    output::emit(args.output.as_deref(), &text)
}
