//! One identity per node. A survey's hosts are named by the user (`--hosts`: addresses,
//! short names, aliases) or by Slurm, but each node writes its traces under the host name it
//! reports itself (`$CONTENTION_RESULTS/HOST/`, [`crate::results::this_host`]). The job
//! learns every rank's reported name before round 1 and the manifest keeps both; every later
//! step that looks for a node's results (the fleet report, `--report-only`, `check --fleet`
//! over the results directory) uses the reported one.
//!
//! Two given names that turn out to be one node (an address and its host name) are refused
//! before anything is measured, as are traces already under a reported name of a new survey
//! (the driver, which knows only the given names, checks those first).

use super::error::SurveyError;
use super::manifest::Manifest;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// What one rank of the job says of itself before round 1.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    /// The name the survey gave its node (`job_hosts[rank]`).
    pub given: String,
    /// The host name the node reports: where its traces go.
    pub reported: String,
    /// This survey's trace already in `ROOT/reported/`, if any.
    pub old_trace: Option<PathBuf>,
}

/// Why the job must stop before round 1, `None` to go on: two given names reporting the same
/// host (always), traces already there (for a new survey, `fresh`: not `--resume`, not
/// `--force`).
pub fn refusal(ids: &[Identity], fresh: bool) -> Option<SurveyError> {
    for (i, id) in ids.iter().enumerate() {
        if let Some(first) = ids[..i].iter().find(|o| o.reported == id.reported) {
            return Some(SurveyError::SameNode {
                first: first.given.clone(),
                second: id.given.clone(),
                host: id.reported.clone(),
            });
        }
    }
    let traces: Vec<PathBuf> = ids.iter().filter_map(|i| i.old_trace.clone()).collect();
    (fresh && !traces.is_empty()).then_some(SurveyError::OldTraces { traces })
}

/// Records each node's reported name in `m` (by its given name).
pub fn record(m: &mut Manifest, ids: &[Identity]) {
    for id in ids {
        if let Some(n) = m.node_mut(&id.given) {
            n.reported_host = Some(id.reported.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(given: &str, reported: &str, old: Option<&str>) -> Identity {
        Identity {
            given: given.into(),
            reported: reported.into(),
            old_trace: old.map(PathBuf::from),
        }
    }

    #[test]
    fn two_names_of_one_node_are_refused_naming_both_and_the_host() {
        let ids = [
            id("10.0.0.1", "node-1", None),
            id("10.0.0.2", "node-2", None),
            id("node-1.cluster", "node-1", None),
        ];
        let e = refusal(&ids, false).unwrap();
        assert_eq!(e.exit_code(), 2);
        let msg = e.to_string();
        assert!(
            msg.contains("`10.0.0.1` and `node-1.cluster` are the same node")
                && msg.contains("`node-1`"),
            "{msg}"
        );
        assert!(refusal(&ids[..2], true).is_none());
    }

    #[test]
    fn old_traces_under_the_reported_names_stop_a_new_survey_only() {
        let ids = [
            id("10.0.0.1", "node-1", Some("/r/node-1/trace.json")),
            id("10.0.0.2", "node-2", None),
        ];
        let msg = refusal(&ids, true).unwrap().to_string();
        assert!(msg.contains("`/r/node-1/trace.json`"), "{msg}");
        assert!(refusal(&ids, false).is_none(), "--resume, --force");
    }

    #[test]
    fn the_manifest_keeps_both_names_and_the_results_go_by_the_reported_one() {
        let mut m = crate::survey::plan::new_manifest(
            &["10.0.0.1".into(), "10.0.0.2".into()],
            Default::default(),
        );
        record(&mut m, &[id("10.0.0.2", "node-2", None)]);
        assert_eq!(m.nodes[1].host, "10.0.0.2");
        assert_eq!(m.nodes[1].results_name(), "node-2");
        assert_eq!(m.nodes[0].results_name(), "10.0.0.1", "not learnt yet");
        let json = serde_json::to_value(&m).unwrap();
        assert_eq!(json["nodes"][1]["reported_host"], "node-2");
        assert!(json["nodes"][0].get("reported_host").is_none());
    }
}
