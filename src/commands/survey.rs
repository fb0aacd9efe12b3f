//! `contention survey`: see [`crate::survey`]. Turns the arguments into [`SurveyOptions`]
//! (with `measure`'s own checks) and runs the survey.

use crate::cli::{MeasureArgs, SurveyArgs};
use crate::commands::measure;
use crate::error::Result;
use crate::survey::error::SurveyError;
use crate::survey::SurveyOptions;

/// The one place a survey's arguments are checked: `measure`'s checks (through its
/// `Options::from_args`), but for `--hosts`, which a survey takes in any number (the pairing
/// checks them), and `--graph`, which does not apply.
pub fn options(a: &SurveyArgs) -> Result<SurveyOptions> {
    let m = &a.measure;
    if m.graph.is_some() {
        return Err(SurveyError::NotForSurvey { option: "--graph" }.into());
    }
    let checked = measure::Options::from_args(&MeasureArgs {
        hosts: None,
        ..m.clone()
    })?;
    let mut measure = checked.measure;
    measure.hosts = m.hosts.clone();
    Ok(SurveyOptions {
        measure,
        launcher: checked.launcher,
        dry_run: checked.dry_run,
        topology: checked.topology,
        quiet: checked.quiet,
    })
}

pub fn run(args: &SurveyArgs) -> Result<()> {
    let o = options(args)?;
    let Some(path) = crate::survey::job::run(&o)? else {
        return Ok(());
    };
    let m = crate::survey::manifest::Manifest::read(&path)?;
    match crate::survey::job::failure(&m) {
        None => Ok(()),
        Some(e) => Err(e.into()),
    }
}
