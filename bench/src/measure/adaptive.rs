//! What the benchmark knows of the adaptive sweep (`measure --adaptive`): what it is asked
//! ([`AdaptiveOptions`]), the rules on those options, and the two traits through which it
//! asks an experiment design which core count to measure next ([`Design`], [`NextPoint`]).
//! The design itself, which fits the model to choose, is `crate::design::adaptive`: the
//! benchmark does not import the fit.

use crate::error::{Error, Result};
use crate::trace::Trace;
use std::time::Duration;

/// What `--adaptive` is asked, and the experiment design that answers it.
#[derive(Clone, Copy)]
pub struct AdaptiveOptions {
    /// Stop once every predicted bandwidth's 95 % interval is within this relative
    /// half-width (`--precision 1` is 0.01).
    pub precision: f64,
    /// Stop before a point would take the measuring time past this (`--budget`).
    pub budget: Option<Duration>,
    /// Which point to measure next: `crate::design::adaptive::ADAPTIVE` (the command line's),
    /// or a program's own.
    pub design: &'static dyn Design,
}

// By what is asked: the design is how, not what (and a `dyn` has no equality).
impl PartialEq for AdaptiveOptions {
    fn eq(&self, other: &Self) -> bool {
        (self.precision, self.budget) == (other.precision, other.budget)
    }
}

impl std::fmt::Debug for AdaptiveOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AdaptiveOptions")
            .field("precision", &self.precision)
            .field("budget", &self.budget)
            .finish_non_exhaustive()
    }
}

/// An experiment design for `--adaptive`: starts a sweep's chooser and says in the plan how
/// it will choose. Choosing the next point is experiment design, done with the fit; the
/// benchmark only asks, through this trait, and never imports the fit.
pub trait Design: Sync {
    /// Starts the sweep over `candidates` (the core counts it may measure) on `trace`, fresh
    /// or resumed, whose `config.cores` it sets to what is measured and the first grid;
    /// returns the chooser and the line that says which points come first, if any.
    fn start(
        &self,
        trace: &mut Trace,
        options: AdaptiveOptions,
        candidates: Vec<u32>,
        seed: u64,
    ) -> (Box<dyn NextPoint>, Option<String>);

    /// The plan's lines of an adaptive sweep over `candidates`.
    fn describe(&self, options: &AdaptiveOptions, candidates: &[u32]) -> String;
}

/// An adaptive sweep under way: the one loop both the simulated and the real sweep run,
/// point after point. [`NextPoint::next`] says which core count comes next and records the
/// choice in the trace; the caller measures it and reports the time it took with
/// [`NextPoint::measured`].
pub trait NextPoint {
    /// The next core count, recorded in `trace` with why, and the line that says why; or
    /// `None` when the sweep is over, its reason recorded, and the line that says it.
    fn next(&mut self, trace: &mut Trace) -> (Option<u32>, Option<String>);

    /// The point just chosen took `took` to measure.
    fn measured(&mut self, took: Duration);
}

/// The shortest `--budget`, in seconds. The budget counts whole points, each a second or
/// more at the default `--max-phase` (three phases of 1.5 s at most, and at least 30 rounds
/// each), so a shorter one can only stop the sweep after its first grid, which
/// `--budget 1s` already asks; below it, a value such as `0.0004` or `5e-324` is a slip.
pub const MIN_BUDGET_SECONDS: f64 = 1.0;

/// Why a budget under [`MIN_BUDGET_SECONDS`] is refused, and the fix: the end of the
/// message both the command line and [`crate::measure::options::MeasureOptions::check`]
/// give.
pub const SHORT_BUDGET: &str = "a budget is at least 1 s (it counts whole points, \
     each a second or more at the default --max-phase, so a shorter one could only stop the \
     sweep after its first grid); give e.g. `90s`, `20m` or `2h`, or `1s` to measure the first \
     grid only";

/// Refuses to resume an adaptive trace (`old`, at `path`) in a run without `--adaptive`:
/// such a run measures core counts of its own (`--cores`, or every one without it) beside
/// those the sweep chose, and the trace's `adaptive` record, which lists every point with
/// why it was measured and why the sweep ended, would no longer be true of its points.
pub(crate) fn refuse_resume_without_adaptive(old: &Trace, path: &std::path::Path) -> Result<()> {
    match &old.adaptive {
        Some(_) => Err(Error::Input(format!(
            "--resume: `{}` is an adaptive sweep (its `adaptive` record lists every point it \
             measured and why), and without --adaptive this run would measure core counts \
             outside that record (--cores, or every core count without it): resume it with \
             --adaptive (a smaller --precision or a larger --budget measures more points), or \
             measure other core counts into a new trace with -o",
            crate::error::escape(&path.display().to_string())
        ))),
        None => Ok(()),
    }
}

/// Refuses `--adaptive` where it cannot apply: a placement that is no sample placement (the
/// fit of one side needs both data on one node).
pub(crate) fn check_placement(comp_numa: u32, comm_numa: u32) -> Result<()> {
    if comp_numa != comm_numa {
        return Err(Error::Input(format!(
            "--adaptive --numa {comp_numa},{comm_numa}: the adaptive sweep fits the parameter \
             set of a sample placement, both data on one node (`--numa 0,0`, or `M,M` with M \
             the first node of another socket); measure {comp_numa},{comm_numa} with a full \
             sweep"
        )));
    }
    Ok(())
}

/// A design that is never asked (for tests of the options alone, which start no sweep).
#[cfg(test)]
pub(crate) struct Unasked;

#[cfg(test)]
impl Design for Unasked {
    fn start(
        &self,
        _: &mut Trace,
        _: AdaptiveOptions,
        _: Vec<u32>,
        _: u64,
    ) -> (Box<dyn NextPoint>, Option<String>) {
        unreachable!("a test of the options started a sweep")
    }

    fn describe(&self, _: &AdaptiveOptions, _: &[u32]) -> String {
        unreachable!("a test of the options described a sweep")
    }
}
