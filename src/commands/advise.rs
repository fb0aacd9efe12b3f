//! `contention advise`: every placement and core count of a model, turned into the time of
//! one overlapped step (Langguth et al.), ranked, against the naive configuration.

use crate::cli::AdviseArgs;
use crate::cores::CoreList;
use crate::error::{Error, Result};
use crate::io::model_file;
use crate::model::{self, Model, Placement, Point};
use crate::overlap;
use crate::report::advise::AdviseReport;
use crate::report::{self, Report};

pub fn run(args: &AdviseArgs) -> Result<()> {
    let model_arg = crate::results::model_or_default(args.model.as_deref())?;
    crate::io::atomic::check_not_input(
        "-o",
        args.output.as_deref(),
        [std::path::Path::new(&model_arg)],
    )?;
    let model = model_file::load(&model_arg)?;
    let report = build_report(
        &model,
        &model_arg,
        args.ncores.as_ref(),
        args.comp_bytes.0,
        args.comm_bytes.0,
    )?
    .with_top(args.top);
    report::emit(&report, args.format.into(), args.output.as_deref())
}

/// The ranking for a step of `comp_bytes` and `comm_bytes` on `model`, over every placement
/// the model predicts and the core counts `cores` (default: all of one socket).
pub(crate) fn build_report(
    model: &Model,
    source: &str,
    cores: Option<&CoreList>,
    comp_bytes: u64,
    comm_bytes: u64,
) -> Result<AdviseReport> {
    let all = model.machine.cores_per_socket;
    let cores = asked_cores(model, source, cores)?;
    let mut notes = Vec::new();
    if model.remote.is_none() && model.machine.numa_nodes > model.machine.numa_per_socket {
        notes.push(
            "the model has no `remote` parameters: only placements on the first socket's \
             NUMA nodes are evaluated"
                .to_string(),
        );
    }
    let predictions = model::predict(model, &model::all_placements(model), cores.counts())?;
    let naive_point = naive_point(model, source)?;
    if !cores.counts().contains(&all) {
        notes.push(format!(
            "the naive configuration ({all} cores, placement 0,0) is outside --ncores {cores}: \
             it is shown for comparison but was not ranked"
        ));
    }
    let ranking = overlap::advise(
        &predictions,
        &naive_point,
        comp_bytes as f64,
        comm_bytes as f64,
    )
    .ok_or_else(|| {
        Error::Input(format!(
            "{source}: the model predicts no bandwidth above 0 for these core counts, so no \
             time can be computed"
        ))
    })?;
    let gains = ranking
        .ranked
        .iter()
        .filter(|c| c.no_predicted_loss)
        .count();
    if gains > 0 {
        notes.push(format!(
            "for {gains} configuration(s) the model predicts a stream at least as fast beside \
             the other as alone; its loss ratio is taken as 1"
        ));
    }
    Ok(AdviseReport {
        header: crate::header::Header::new(AdviseReport::SCHEMA_VERSION),
        about: crate::header::About::of(model, source),
        comp_bytes,
        comm_bytes,
        notes,
        best: *ranking.best(),
        naive: ranking.naive,
        naive_slowdown: ranking.naive_slowdown(),
        candidates: ranking.ranked,
        table_rows: usize::MAX,
    })
}

/// The core counts to rank: `cores`, or every count of one socket, refused beyond it.
fn asked_cores(model: &Model, source: &str, cores: Option<&CoreList>) -> Result<CoreList> {
    let all = model.machine.cores_per_socket;
    let cores = cores.cloned().unwrap_or_else(|| CoreList::up_to(all));
    cores
        .check_max(
            all,
            &format!(
                "the cores per socket of machine `{}` in {source}",
                model.machine.name
            ),
        )
        .map_err(|e| Error::Input(format!("--ncores {cores}: {e}")))?;
    Ok(cores)
}

/// The naive configuration's prediction: every core of the socket, both data on node 0.
fn naive_point(model: &Model, source: &str) -> Result<Point> {
    let naive_placement = Placement {
        comp_numa: 0,
        comm_numa: 0,
    };
    model::predict(model, &[naive_placement], &[model.machine.cores_per_socket])?
        .first()
        .and_then(|p| p.points.first())
        .copied()
        .ok_or_else(|| Error::Input(format!("{source}: no prediction for placement 0,0")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::json_of;

    #[test]
    fn advise_json_has_schema_version() {
        let henri = model_file::load("paper:henri").unwrap();
        let r = build_report(&henri, "paper:henri", None, 1 << 30, 1 << 26)
            .unwrap()
            .with_top(3);
        let j = json_of(&r);
        // `--top` shortens the table only.
        assert_eq!(
            j["candidates"].as_array().unwrap().len(),
            r.candidates.len()
        );
        assert!(j.get("table_rows").is_none(), "{j}");
    }
}
