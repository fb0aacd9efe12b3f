//! Every report type's JSON carries `schema_version`, equal to its [`Report::SCHEMA_VERSION`]:
//! one test per type, on a small report of that type (those of `evaluate`, `sensitivity` and
//! `calibrate` sit beside their writers' tests, which build one already; those of `predict`
//! and `advise` beside the commands that build them).

use super::{json_of, Report};
use crate::io::model_file;
use crate::model::Model;
use crate::units::{UNITS, UNITS_OF_INPUT_TIMES};

fn henri() -> Model {
    model_file::load("paper:henri").unwrap()
}

#[test]
fn overlap_json_has_schema_version() {
    use crate::report::overlap::{Bound, OverlapReport};
    let step = crate::overlap::Step::new(1.0, 2.0, 1.5, 1.25).unwrap();
    let times = step.times();
    let r = OverlapReport {
        header: crate::header::Header::new(OverlapReport::SCHEMA_VERSION),
        units: UNITS_OF_INPUT_TIMES,
        step,
        bound: Bound::of(&times),
        times,
        heterogeneous: None,
    };
    assert_eq!(json_of(&r)["bound"], "comm");
}

#[test]
fn network_json_has_schema_version() {
    use crate::report::network::NetworkReport;
    let r = NetworkReport {
        header: crate::header::Header::new(NetworkReport::SCHEMA_VERSION),
        units: UNITS,
        graph: "g.json".into(),
        penalties: "infiniband".into(),
        alpha: 1e-10,
        link_bandwidth: 1e4,
        memory_cap: None,
        steps: Vec::new(),
        communications: Vec::new(),
        measured: None,
    };
    assert_eq!(json_of(&r)["graph"], "g.json");
}

#[test]
fn check_json_has_schema_version() {
    use crate::report::check::CheckReport;
    let m = henri();
    let r = CheckReport {
        header: crate::header::Header::new(CheckReport::SCHEMA_VERSION),
        about: crate::header::About::of(&m, "paper:henri"),
        inputs: vec!["t.json".into()],
        drift_limit_percent: 5.0,
        drift_limits_percent: [5.0; 4].into(),
        drift_limit_source: "--tolerance",
        max_mape_percent: None,
        drift: crate::check::compare(&m, &m, [5.0; 4]),
        comm_mape_percent: Some(1.0),
        comp_mape_percent: Some(2.0),
        failures: Vec::new(),
        pass: true,
    };
    assert_eq!(json_of(&r)["pass"], true);
}
