//! `contention survey`: see [`crate::survey`].

use crate::cli::SurveyArgs;
use crate::error::Result;

pub fn run(args: &SurveyArgs) -> Result<()> {
    crate::survey::job::run(&args.measure)
}
