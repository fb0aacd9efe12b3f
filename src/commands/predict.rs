//! `contention predict`: load a model, predict the asked placements and core counts, write
//! the report in the asked format.

use crate::calibrate::bands;
use crate::cli::{PlacementArg, PredictArgs};
use crate::cores::CoreList;
use crate::error::{Error, Result};
use crate::io::model_file;
use crate::model::{self, Model, Placement};
use crate::report::{self, PredictReport, Report};

pub fn run(args: &PredictArgs) -> Result<()> {
    let model_arg = crate::results::model_or_default(args.model.as_deref())?;
    let model_file::Loaded {
        model, uncertainty, ..
    } = model_file::load_all(&model_arg)?;
    let mut report = build_report(&model, &model_arg, args.ncores.as_ref(), args.placement)?;
    if args.intervals {
        let u = uncertainty.ok_or_else(|| {
            Error::Input(format!(
                "--intervals: {model_arg} has no bootstrap intervals (no `uncertainty` object); \
                 calibrate with --bootstrap 200 to add them"
            ))
        })?;
        let placements: Vec<Placement> = report
            .placements
            .iter()
            .map(|p| Placement {
                comp_numa: p.comp_numa,
                comm_numa: p.comm_numa,
            })
            .collect();
        let cores: Vec<u32> = report
            .placements
            .first()
            .map(|p| p.points.iter().map(|pt| pt.cores).collect())
            .unwrap_or_default();
        report.intervals = Some(bands::intervals(&model.machine, &u, &placements, &cores));
        report.breakpoints = Some(bands::breakpoints(&u));
    }
    report::emit(&report, args.format.into(), args.output.as_deref())
}

/// The report for `model`, its core counts defaulting to every core of one socket.
pub fn build_report(
    model: &Model,
    source: &str,
    cores: Option<&CoreList>,
    placement: PlacementArg,
) -> Result<PredictReport> {
    let cores_per_socket = model.machine.cores_per_socket;
    let cores = cores
        .cloned()
        .unwrap_or_else(|| CoreList::up_to(cores_per_socket));
    cores
        .check_max(
            cores_per_socket,
            &format!(
                "the cores per socket of machine `{}` in {source}",
                model.machine.name
            ),
        )
        .map_err(|e| Error::Input(format!("--ncores {cores}: {e}")))?;
    let mut notes = Vec::new();
    let placements = match placement {
        PlacementArg::One(pair) => vec![Placement {
            comp_numa: pair.comp,
            comm_numa: pair.comm,
        }],
        PlacementArg::All => {
            if model.remote.is_none() && model.machine.numa_nodes > model.machine.numa_per_socket {
                notes.push(format!(
                    "the model has no `remote` parameters: only the {} placements on the first \
                     socket's NUMA nodes (0..{}) are predicted, not the {} of the whole machine",
                    model.predictable_nodes().pow(2),
                    model.machine.numa_per_socket - 1,
                    model.machine.numa_nodes.pow(2)
                ));
            }
            model::all_placements(model)
        }
    };
    let placements = model::predict(model, &placements, cores.counts())?;
    Ok(PredictReport {
        header: crate::header::Header::new(PredictReport::SCHEMA_VERSION),
        about: crate::header::About::of(model, source),
        notes,
        placements,
        intervals: None,
        breakpoints: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::json_of;

    #[test]
    fn predict_json_has_schema_version() {
        let henri = model_file::load("paper:henri").unwrap();
        let cores = "1,2".parse::<CoreList>().unwrap();
        let r = build_report(&henri, "paper:henri", Some(&cores), PlacementArg::All).unwrap();
        assert_eq!(json_of(&r)["model"], "paper:henri");
    }
}
