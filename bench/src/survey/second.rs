//! `--runs auto`'s second stage, one path for a real survey ([`super::job`]) and a simulated
//! one ([`super::simulated`]): once every node has its first run, the first runs' report (a
//! band two thirds as wide) names the nodes measured again ([`crate::fleet::second`], through
//! the caller's `ChooseSecond`), the manifest records them ([`Manifest::choose_second`]:
//! pending between their runs, as in a survey of `--runs 2`) and `plan::second_runs`
//! pairs them into rounds. A real survey measures those rounds in a second MPI job, a
//! simulated one draws them; either way each second run's trace goes to the node's `run2/`
//! and the fleet report confirms or clears each outlier with it.
//!
//! Why a second job rather than more rounds of the first: the choice needs every node's
//! first run calibrated, which the driver does (the fleet report's own calibration) where the
//! results are read, not a rank; and a survey cut in its second stage is resumed by a new
//! job anyway, planned from the manifest alone. The second job holds only the chosen nodes
//! and their senders; its start (seconds) is in the plan's duration.

use super::manifest::{Manifest, Round};
use super::plan;
use crate::error::{Error, IoAction, Result};
use std::path::Path;

/// What `--runs auto` asks after the first runs: the nodes to measure again, by host name as
/// given, from the report of the first runs in the results root (`commands::survey` builds
/// it as the final one is built, with [`crate::fleet::second::choose`]).
pub(crate) type ChooseSecond<'a> = &'a dyn Fn(&Path, &Manifest) -> Result<Vec<String>>;

/// Whether the survey of `m` is due its second stage now: `--runs auto`, no choice made yet,
/// and every node's first run done (a survey whose first stage lost nodes reports them, and
/// its `--resume` measures them first).
pub(crate) fn due(m: &Manifest) -> bool {
    m.runs_auto() && m.second_runs.is_none() && m.first_runs_done()
}

/// Chooses the nodes of `m` (its results in `root`) to measure again with `choose`, records
/// the choice in `m` (the caller saves it) and returns their rounds, each stopped after
/// `round_timeout_s`.
pub(crate) fn start(
    m: &mut Manifest,
    root: &Path,
    choose: ChooseSecond<'_>,
    round_timeout_s: f64,
) -> Result<Vec<Round>> {
    // The report names each node by the host name it reported (where its traces are); the
    // manifest by the name it was given.
    let given: std::collections::HashMap<&str, &str> = m
        .nodes
        .iter()
        .map(|n| (n.results_name(), n.host.as_str()))
        .collect();
    let again: Vec<String> = choose(root, m)?
        .iter()
        .filter_map(|name| given.get(name.as_str()).map(|h| h.to_string()))
        .collect();
    m.choose_second(&again);
    let chosen = m.second_runs.clone().unwrap_or_default();
    Ok(plan::second_runs(m, &chosen, round_timeout_s)?)
}

/// Removes the second run that an earlier survey left beside `first_trace` (a node's first
/// run's trace: the same name in its `run2/`, and its samples' CSV) when a new one starts
/// over it (`--force`): a node measured once by this survey would otherwise be judged with
/// another survey's second run (a fleet of identical nodes then named a node whose "second
/// run" was measured for another fleet).
pub(crate) fn forget_second_run(first_trace: &Path) -> Result<()> {
    let (Some(dir), Some(name)) = (first_trace.parent(), first_trace.file_name()) else {
        return Ok(());
    };
    let stale = crate::results::run_dir(dir, 2).join(name);
    for file in [crate::measure::session::csv_path(&stale), stale] {
        match std::fs::remove_file(&file) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(Error::io(
                    IoAction::Write("stale second-run trace"),
                    &file,
                    e,
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(runs: &str, n: usize) -> Manifest {
        let hosts: Vec<String> = (1..=n).map(|i| format!("n{i}")).collect();
        let options = [("--runs".to_string(), runs.to_string())].into();
        plan::new_manifest(&hosts, options)
    }

    /// The second stage waits for every node's first run, is made once, and its rounds are
    /// those the plan of a resume makes from the recorded choice.
    #[test]
    fn the_second_stage_comes_once_after_every_first_run_and_resumes_alike() {
        let mut m = manifest("auto", 5);
        assert!(!due(&m), "no first run yet");
        for n in &mut m.nodes[..4] {
            n.status = crate::survey::manifest::Status::Done;
        }
        assert!(!due(&m), "n5 has no first run");
        m.nodes[4].status = crate::survey::manifest::Status::Done;
        assert!(due(&m));
        assert_eq!(m.runs_asked(), 1);
        // The report names n4 by the host name it reported.
        m.nodes[3].reported_host = Some("node-4".into());
        let choose = |_: &Path, _: &Manifest| Ok(vec!["node-4".into(), "n1".into(), "zz".into()]);
        let rounds = start(&mut m, Path::new("/nonexistent"), &choose, 10.0).unwrap();
        assert!(!due(&m), "chosen once");
        assert_eq!(m.second_runs, Some(vec!["n1".into(), "n4".into()]));
        assert_eq!(m.runs_asked(), 2);
        let waiting: Vec<&str> = m
            .nodes
            .iter()
            .filter(|n| n.waits_for(2))
            .map(|n| n.host.as_str())
            .collect();
        assert_eq!(waiting, ["n1", "n4"]);
        assert!(rounds.iter().all(|r| r.run == 2), "{rounds:?}");
        // A resume of it (nothing measured yet) plans the same rounds, over those nodes only.
        let (job_hosts, planned) = plan::plan_job(&m, 10.0).unwrap();
        assert_eq!(planned, rounds);
        assert_eq!(job_hosts, ["n1", "n4"]);
        // A fleet where nothing is chosen plans nothing more.
        let mut none = manifest("auto", 2);
        for n in &mut none.nodes {
            n.status = crate::survey::manifest::Status::Done;
        }
        let nobody = |_: &Path, _: &Manifest| Ok(Vec::new());
        assert!(start(&mut none, Path::new("/x"), &nobody, 1.0)
            .unwrap()
            .is_empty());
        assert_eq!((none.runs_asked(), due(&none)), (1, false));
        assert!(plan::plan_job(&none, 1.0).unwrap().1.is_empty());
        // `--runs 1` and `2` have no second stage.
        for runs in ["1", "2"] {
            let mut m = manifest(runs, 2);
            for n in &mut m.nodes {
                n.status = crate::survey::manifest::Status::Done;
            }
            assert!(!due(&m), "{runs}");
        }
    }

    #[test]
    fn a_stale_second_run_is_forgotten_and_a_missing_one_is_no_error() {
        let dir = std::env::temp_dir().join(format!("contention-second-{}", std::process::id()));
        let run2 = dir.join("run2");
        std::fs::create_dir_all(&run2).unwrap();
        let first = dir.join("trace-x.json");
        std::fs::write(run2.join("trace-x.json"), "{}").unwrap();
        std::fs::write(run2.join("trace-x.csv"), "").unwrap();
        std::fs::write(run2.join("other.json"), "{}").unwrap();
        forget_second_run(&first).unwrap();
        assert!(!run2.join("trace-x.json").exists());
        assert!(!run2.join("trace-x.csv").exists());
        assert!(run2.join("other.json").exists(), "only this survey's trace");
        forget_second_run(&first).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
