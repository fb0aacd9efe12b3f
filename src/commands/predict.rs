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
    crate::io::atomic::check_not_input(
        "-o",
        args.output.as_deref(),
        [std::path::Path::new(&model_arg)],
    )?;
    let model_file::Loaded {
        model, uncertainty, ..
    } = model_file::load_all(&model_arg)?;
    let uncertainty = match (args.intervals, uncertainty) {
        (false, _) => None,
        (true, Some(u)) => Some(u),
        (true, None) => {
            return Err(Error::Input(format!(
                "--intervals: {model_arg} has no bootstrap intervals (no `uncertainty` object); \
                 calibrate with --bootstrap 200 to add them"
            )))
        }
    };
    let refits = uncertainty.as_ref().map_or(0, |u| u.replicates.len());
    let mut report = report_with_refits(
        &model,
        &model_arg,
        args.ncores.as_ref(),
        args.placement,
        refits,
    )?;
    if let Some(u) = uncertainty {
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
    report_with_refits(model, source, cores, placement, 0)
}

/// [`build_report`] for a report whose intervals come from `refits` bootstrap refits (0:
/// none): the rows times the refits are bounded
/// ([`check_interval_work`](model::check_interval_work)) before anything is predicted.
fn report_with_refits(
    model: &Model,
    source: &str,
    cores: Option<&CoreList>,
    placement: PlacementArg,
    refits: usize,
) -> Result<PredictReport> {
    let cores_per_socket = model.machine.cores_per_socket;
    let asked = cores
        .cloned()
        .unwrap_or_else(|| CoreList::up_to(cores_per_socket));
    let mut notes = Vec::new();
    // The counts the socket has are predicted, the others left out and named (the design
    // card's `--ncores 1..18` on a 16-core node's model was refused, exit 2); only a list
    // with none of them is refused.
    let (within, beyond): (Vec<u32>, Vec<u32>) =
        asked.counts().iter().partition(|&&n| n <= cores_per_socket);
    if within.is_empty() {
        asked
            .check_max(
                cores_per_socket,
                &format!(
                    "the cores per socket of machine `{}` in {source}",
                    model.machine.name
                ),
            )
            .map_err(|e| Error::Input(format!("--ncores {asked}: {e}")))?;
    }
    if !beyond.is_empty() {
        notes.push(format!(
            "--ncores {asked}: {} left out, beyond the {cores_per_socket} cores per socket of \
             machine `{}` in {source}; predicted {}",
            CoreList::from_counts(&beyond),
            model.machine.name,
            CoreList::from_counts(&within)
        ));
    }
    let cores = CoreList::from_counts(&within);
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
    if refits > 0 {
        model::check_interval_work(placements.len(), cores.counts().len(), refits)?;
    }
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

    /// Issue 46, item 11: the design card's `--ncores 1..18` on a 16-core node's model was
    /// refused (exit 2): the counts the socket has are predicted, the others named.
    #[test]
    fn counts_beyond_the_socket_are_left_out_and_named() {
        let mut m = model_file::load("paper:henri").unwrap();
        m.machine.cores_per_socket = 16;
        let cores = "1..18".parse::<CoreList>().unwrap();
        let r = build_report(&m, "m.json", Some(&cores), PlacementArg::All).unwrap();
        let counts: Vec<u32> = r.placements[0].points.iter().map(|p| p.cores).collect();
        assert_eq!(counts, (1..=16).collect::<Vec<_>>());
        assert!(
            r.notes.iter().any(|n| n.contains("17..18 left out")
                && n.contains("16 cores per socket")
                && n.contains("predicted 1..16")),
            "{:?}",
            r.notes
        );
        let none = "17,18".parse::<CoreList>().unwrap();
        let e = build_report(&m, "m.json", Some(&none), PlacementArg::All).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("use counts in 1..16"), "{e}");
    }
}
