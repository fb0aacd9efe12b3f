//! `contention overlap`: Langguth et al.'s time of one overlapped step (section IV) and, with
//! accelerators, the balancing share (section VI).

use crate::cli::OverlapArgs;
use crate::error::{Error, Result};
use crate::overlap::{Hetero, OverlapError, Step};
use crate::report::overlap::{Bound, HeteroReport, OverlapReport};
use crate::report::{self, Report};

fn input(flag: &str, e: OverlapError) -> Error {
    Error::Input(format!("{flag}: {e}"))
}

/// The report for the parsed arguments, refusing values outside the model.
pub(crate) fn build_report(args: &OverlapArgs) -> Result<OverlapReport> {
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
    let t = &times;
    // Every number of the accelerator part too (serde_json writes a non-finite one as null).
    let heterogeneous_finite = heterogeneous.as_ref().is_none_or(|h| {
        let split = h.at_share.as_ref().map(serde_json::to_value);
        [Some(serde_json::to_value(h.balance)), split]
            .into_iter()
            .flatten()
            .all(|v| v.is_ok_and(|v| no_null(&v)))
    });
    if ![
        t.contended_comp_time,
        t.contended_comm_time,
        t.total_time,
        t.no_overlap_time,
        t.no_contention_time,
    ]
    .iter()
    .all(|v| v.is_finite())
        || !heterogeneous_finite
    {
        return Err(Error::Input(format!(
            "--comp-time {} --comm-time {} --comp-loss {} --comm-loss {}: the step's times \
             overflow the numbers the tool computes with (T_M * L_M = {}, T_N * L_N = {}); \
             give the times in a larger unit",
            crate::units::short_number(args.comp_time),
            crate::units::short_number(args.comm_time),
            crate::units::short_number(args.comp_loss),
            crate::units::short_number(args.comm_loss),
            t.contended_comp_time,
            t.contended_comm_time
        )));
    }
    Ok(OverlapReport {
        units: crate::units::UNITS_OF_INPUT_TIMES,
        header: crate::header::Header::new(OverlapReport::SCHEMA_VERSION),
        step,
        times,
        bound: Bound::of(&times),
        heterogeneous,
    })
}

/// Whether a JSON value holds no `null` (what a non-finite number serializes to).
fn no_null(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::Null => false,
        serde_json::Value::Array(a) => a.iter().all(no_null),
        serde_json::Value::Object(o) => o.values().all(no_null),
        _ => true,
    }
}

pub fn run(args: &OverlapArgs) -> Result<()> {
    let report = build_report(args)?;
    report::emit(&report, args.format.into(), None)
}
