//! `contention show`: a saved trace's point lines again, as `measure` printed them, each
//! block saying which interval its `+-` carries. Every trace is read through the bounded
//! reader (`crate::io::trace_file::read`) before anything is printed.

use crate::cli::ShowArgs;
use crate::error::Result;
use crate::report::show::{ShowReport, ShownTrace};
use crate::report::{self, Report};

pub fn run(args: &ShowArgs) -> Result<()> {
    crate::io::atomic::check_not_input(
        "-o",
        args.output.as_deref(),
        args.traces.iter().map(|p| p.as_path()),
    )?;
    let traces = args
        .traces
        .iter()
        .map(|p| {
            let trace = crate::io::trace_file::read(p)?;
            Ok(ShownTrace::of(&p.display().to_string(), &trace))
        })
        .collect::<Result<Vec<_>>>()?;
    let r = ShowReport {
        header: crate::header::Header::new(ShowReport::SCHEMA_VERSION),
        units: crate::units::UNITS,
        traces,
    };
    report::emit(&r, args.format.into(), args.output.as_deref())
}
