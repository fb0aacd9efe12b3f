//! `contention overlap`: Langguth et al.'s time of one overlapped step (section IV) and, with
//! accelerators, the balancing share (section VI).

use crate::cli::{OverlapArgs, TableOrJson};
use crate::error::{Error, Result};
use crate::export::json;
use crate::export::overlap::{table, Bound, HeteroReport, OverlapReport, OVERLAP_SCHEMA_VERSION};
use crate::io::output;
use crate::overlap::{Hetero, OverlapError, Step};
use crate::provenance::Provenance;

fn input(flag: &str, e: OverlapError) -> Error {
    Error::Input(format!("{flag}: {e}"))
}

/// The report for the parsed arguments, refusing values outside the model.
pub fn build_report(args: &OverlapArgs) -> Result<OverlapReport> {
    let step = Step::new(
        args.comp_time,
        args.comm_time,
        args.comp_loss,
        args.comm_loss,
    )
    .map_err(|e| {
        let flag = match &e {
            OverlapError::Time { name: "T_M", .. } => "--comp-time",
            OverlapError::Time { .. } => "--comm-time",
            OverlapError::Loss { name: "L_M", .. } => "--comp-loss",
            _ => "--comm-loss",
        };
        input(flag, e)
    })?;
    let heterogeneous = match args.accel_perf {
        None => None,
        Some(r) => {
            let h = Hetero::new(step, r).map_err(|e| input("--accel-perf", e))?;
            let at_share = args
                .accel_share
                .map(|w| h.split(w))
                .transpose()
                .map_err(|e| input("--accel-share", e))?;
            Some(HeteroReport {
                accel_perf: r,
                at_share,
                balance: h.balance(),
            })
        }
    };
    let times = step.times();
    Ok(OverlapReport {
        schema_version: OVERLAP_SCHEMA_VERSION,
        tool: Provenance::current(),
        step,
        times,
        bound: Bound::of(&times),
        heterogeneous,
    })
}

pub fn run(args: &OverlapArgs) -> Result<()> {
    let report = build_report(args)?;
    let text = match args.format {
        TableOrJson::Table => table(&report),
        TableOrJson::Json => json::render(&report),
    };
    output::emit(None, &text)
}
