//! `survey.json`: what a survey planned, what finished, what failed and why. Written
//! atomically (write, then rename) before the job starts and after every round, so a job cut
//! by a dead node, a time limit or Ctrl-C leaves an exact record, and `survey --resume`
//! starts from it.

use super::error::SurveyError;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub const SCHEMA_VERSION: u32 = 1;

/// The manifest's option that records a GPU survey's engine (`gpu --gpu 0 --direction
/// d2h`); an MPI survey's manifest has none.
pub const ENGINE_FLAG: &str = "--engine";

/// How the value under [`ENGINE_FLAG`] starts for GPU copies.
pub const GPU_ENGINE: &str = "gpu";

/// The file name, in the results directory (`$CONTENTION_RESULTS`, beside the host
/// directories that hold the traces).
pub(crate) const FILE_NAME: &str = "survey.json";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub schema_version: u32,
    /// Every node of the survey, in the order given (`--hosts`, or Slurm's node list).
    pub hosts: Vec<String>,
    /// `measure`'s options every node is measured with, by option name (`--resume` refuses
    /// other ones).
    pub options: BTreeMap<String, String>,
    /// How an odd count is paired (absent for an even count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub odd_count: Option<String>,
    /// The latest MPI job: 1 for the first, one more for every `--resume`.
    pub job: u32,
    /// Its hosts in rank order (rank `i` on `job_hosts[i]`): the nodes left to measure and
    /// their senders.
    pub job_hosts: Vec<String>,
    /// Its launcher command line.
    pub command: Vec<String>,
    /// Its rounds, in order.
    pub rounds: Vec<Round>,
    /// One entry per host, in the order of `hosts`.
    pub nodes: Vec<NodeStatus>,
    /// Why the latest job stopped before its first round (two names of one node, old
    /// traces), as its rank 0 said it: the driver ends the survey with it (exit 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    /// A simulated fleet's machine and draws (`survey --simulate`), absent for a real
    /// survey: the fleet report built from this manifest says simulated everywhere, and
    /// takes only simulated traces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simulated: Option<String>,
    /// `--runs auto`: the nodes (as given) chosen, once every node had its first run, to be
    /// measured a second time (`super::second`); empty when none was, absent until the
    /// choice is made. Recorded so that a survey cut in its second stage resumes those nodes
    /// and never chooses again from a report that has some of their second runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub second_runs: Option<Vec<String>>,
    pub started_at: String,
    pub updated_at: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Round {
    pub pairs: Vec<HostPair>,
    /// Which of a node's runs the round measures (`survey --runs 2`: 1 or 2; absent, and 1,
    /// in a survey of one run and in manifests older than the field).
    #[serde(default = "first_run", skip_serializing_if = "is_first_run")]
    pub run: u32,
    /// After this long (from the round's start) the job is stopped and the round's
    /// unfinished nodes are recorded failed: twice `measure`'s estimate plus start-up.
    pub timeout_s: f64,
}

fn first_run() -> u32 {
    1
}

fn is_first_run(run: &u32) -> bool {
    *run == 1
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// `measured` receives from `sender` while it computes (a GPU survey's node is measured
/// alone, its copies its stream: `sender` is `measured` then, [`Manifest::nodes_alone`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostPair {
    pub measured: String,
    pub sender: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Done,
    Failed,
    Pending,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeStatus {
    /// The name the survey was given (`--hosts`, or Slurm's node list).
    pub host: String,
    /// The host name the node reports, learnt by the job before round 1: the directory of
    /// its traces (`ROOT/HOST/`). Absent until a job has run on it (and in manifests older
    /// than the field): the given name is used then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported_host: Option<String>,
    pub status: Status,
    /// Job and round (1-based) of the last attempt, and the node that sent to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sender: Option<String>,
    /// Why the last attempt failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The trace (JSON) and samples (CSV) written for this node, finished or partial.
    #[serde(default)]
    pub traces: Vec<PathBuf>,
    /// Runs finished so far, in a survey that measures each node more than once (`--runs
    /// 2`): the node stays pending between its runs. Absent when 0 (see
    /// [`NodeStatus::runs_finished`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub runs_done: u32,
}

impl NodeStatus {
    pub fn pending(host: &str) -> Self {
        NodeStatus {
            host: host.to_string(),
            reported_host: None,
            status: Status::Pending,
            job: None,
            round: None,
            sender: None,
            error: None,
            traces: Vec::new(),
            runs_done: 0,
        }
    }

    /// How many of its runs the node has finished: a node done in a survey of one run (or in
    /// a manifest older than `runs_done`) has finished its one.
    pub fn runs_finished(&self) -> u32 {
        if self.status == Status::Done {
            self.runs_done.max(1)
        } else {
            self.runs_done
        }
    }

    /// Whether the node still waits for its run `run` in this job: pending, with fewer runs
    /// finished.
    pub fn waits_for(&self, run: u32) -> bool {
        self.status == Status::Pending && self.runs_finished() < run
    }

    /// The name of the node's results directory (`ROOT/HOST/`): the host name it reported,
    /// else the given one (see `super::identity`).
    pub fn results_name(&self) -> &str {
        self.reported_host.as_deref().unwrap_or(&self.host)
    }
}

/// The options that differ, one phrase each (`--max-phase: 0.2 in the manifest, 1.5 now`).
pub fn differences(
    saved: &BTreeMap<String, String>,
    now: &BTreeMap<String, String>,
) -> Vec<String> {
    let keys: std::collections::BTreeSet<&String> = saved.keys().chain(now.keys()).collect();
    // An option a manifest from an older version does not list was at its default then.
    let default = "(default)".to_string();
    let value = |m: &'_ BTreeMap<String, String>, k: &String| m.get(k).cloned();
    keys.into_iter()
        .filter(|k| {
            value(saved, k).unwrap_or(default.clone()) != value(now, k).unwrap_or(default.clone())
        })
        .map(|k| {
            let show = |v: Option<&String>| v.map_or("(absent)".to_string(), Clone::clone);
            format!(
                "{k}: {} in the manifest, {} now",
                show(saved.get(k)),
                show(now.get(k))
            )
        })
        .collect()
}

impl Manifest {
    pub fn path(results: &Path) -> PathBuf {
        results.join(FILE_NAME)
    }

    /// The manifest of the survey `asked` (`--resume`, `--report-only`) goes on with; a
    /// missing one is refused with the fix.
    pub fn read_for(path: &Path, asked: &'static str) -> Result<Self> {
        if !path.exists() {
            return Err(SurveyError::NoManifest {
                path: path.to_path_buf(),
                asked,
            }
            .into());
        }
        Self::read(path)
    }

    pub fn read(path: &Path) -> Result<Self> {
        let text = crate::io::read::text(path, "survey manifest")?;
        let m: Manifest = serde_json::from_str(&text).map_err(|e| SurveyError::BadManifest {
            path: path.to_path_buf(),
            why: format!("is not a survey manifest ({e})"),
        })?;
        if let Some(why) = m.inconsistency() {
            return Err(SurveyError::BadManifest {
                path: path.to_path_buf(),
                why,
            }
            .into());
        }
        if m.schema_version != SCHEMA_VERSION {
            return Err(SurveyError::BadManifest {
                path: path.to_path_buf(),
                why: format!(
                    "has schema_version {}, this contention reads {SCHEMA_VERSION}",
                    m.schema_version
                ),
            }
            .into());
        }
        Ok(m)
    }

    /// What makes this manifest unusable although it parsed: `nodes` must list `hosts`, one
    /// entry each, in the same order (the plan indexes one by the other), and name each node
    /// once (`--hosts a,a` is refused; a manifest that repeats a host, edited or written by
    /// hand, was reported as two nodes). Two given names of one node (one reported host) are
    /// the job's refusal to make (`super::identity::refusal`), recorded in the manifest it
    /// writes, not an inconsistency. A manifest must list a node.
    /// `None` when sound.
    pub fn inconsistency(&self) -> Option<String> {
        // A survey has two nodes or more; one with none reported "a fleet of 0 node(s)",
        // exit 0 (issue 46, F12).
        if self.hosts.is_empty() && self.nodes.is_empty() {
            return Some(
                "lists no node (`hosts` and `nodes` are empty): it was edited or cut".into(),
            );
        }
        if let Some(why) = self.mismatch() {
            return Some(why);
        }
        if let Some(host) = repeated(self.hosts.iter().map(String::as_str)) {
            return Some(format!(
                "names the host `{host}` twice: each node is surveyed once (`--hosts \
                 {host},{host}` is refused), so it was edited"
            ));
        }
        let again = self.second_runs.as_deref().unwrap_or_default();
        let hosts: std::collections::HashSet<&str> =
            self.hosts.iter().map(String::as_str).collect();
        if let Some(host) = again.iter().find(|h| !hosts.contains(h.as_str())) {
            return Some(format!(
                "chose `{}` for a second run, which is none of its hosts: it was edited; \
                 start a new survey with --force",
                crate::error::clip(host)
            ));
        }
        let host = repeated(again.iter().map(String::as_str))?;
        Some(format!(
            "chose `{host}` twice for a second run (each node is measured again at most \
             once): it was edited; start a new survey with --force"
        ))
    }

    /// `nodes` not listing `hosts` one to one, in order.
    fn mismatch(&self) -> Option<String> {
        if self.nodes.len() != self.hosts.len() {
            return Some(format!(
                "lists {} host(s) but {} node status(es): it was edited or cut; start a new \
                 survey with --force",
                self.hosts.len(),
                self.nodes.len()
            ));
        }
        let i = (0..self.hosts.len()).find(|&i| self.nodes[i].host != self.hosts[i])?;
        Some(format!(
            "names host {} `{}` in `hosts` but `{}` in `nodes`: it was edited; start a new \
             survey with --force",
            i + 1,
            self.hosts[i],
            self.nodes[i].host
        ))
    }

    /// Makes the nodes that failed in an earlier job pending again, for the new job that
    /// measures them: the driver then times their round like any other, and a new failure
    /// is recorded with the new job's message. What the old attempt left (`job`, `traces`)
    /// is kept: a node tried before continues its trace.
    pub fn reopen_failed(&mut self) {
        for n in self.nodes.iter_mut().filter(|n| n.status == Status::Failed) {
            n.status = Status::Pending;
            n.error = None;
        }
    }

    /// Writes the manifest atomically, `updated_at` set to now.
    pub fn save(&mut self, path: &Path) -> Result<()> {
        self.updated_at = crate::timestamp::now();
        let mut text = serde_json::to_string_pretty(self)
            .map_err(|e| Error::Failed(format!("cannot encode the survey manifest: {e}")))?;
        text.push('\n');
        crate::io::atomic::write(path, text.as_bytes())
    }

    pub fn node_mut(&mut self, host: &str) -> Option<&mut NodeStatus> {
        self.nodes.iter_mut().find(|n| n.host == host)
    }

    /// Refuses to resume with other measurement options, naming each difference.
    pub fn check_options(&self, now: &BTreeMap<String, String>, path: &Path) -> Result<()> {
        let diff = differences(&self.options, now);
        if diff.is_empty() {
            return Ok(());
        }
        Err(SurveyError::OtherOptions {
            path: path.to_path_buf(),
            differences: diff,
        }
        .into())
    }

    /// Records the end of a job that stopped before its last round (a node killed, a
    /// timeout, Ctrl-C): the nodes of the job still pending in the first unfinished round
    /// are failed with `why`; later rounds stay pending. Finished nodes are kept as they are.
    pub fn record_cut(&mut self, why: &str) {
        let job = self.job;
        let Some(round) = self.current_round() else {
            return;
        };
        let Round { pairs, run, .. } = self.rounds[round].clone();
        for p in pairs {
            if let Some(n) = self.node_mut(&p.measured) {
                if n.waits_for(run) {
                    n.status = Status::Failed;
                    n.job = Some(job);
                    n.round = Some(round + 1);
                    n.sender = Some(p.sender.clone());
                    n.error = Some(run_error(run, why));
                }
            }
        }
    }

    /// The first round not finished yet (0-based), from the nodes' status: what the driver
    /// watches to apply each round's timeout. A round of second runs is unfinished while a
    /// node of it still waits for its second run.
    pub fn current_round(&self) -> Option<usize> {
        self.rounds.iter().position(|r| {
            r.pairs.iter().any(|p| {
                self.nodes
                    .iter()
                    .any(|n| n.host == p.measured && n.waits_for(r.run))
            })
        })
    }

    /// Whether each node is measured alone (`survey --engine gpu`: a node's own GPU copies
    /// are its communication stream, no sender needed): its rounds measure nodes side by side
    /// and each pair names the node twice.
    pub fn nodes_alone(&self) -> bool {
        self.options
            .get(ENGINE_FLAG)
            .is_some_and(|e| e.split_whitespace().next() == Some(GPU_ENGINE))
    }

    /// The most runs per node this survey measures, as far as it is decided (`--runs`,
    /// recorded among its options unless 1): 2 for `--runs 2`, and for `--runs auto` once
    /// its second stage has chosen some nodes ([`Manifest::second_runs`]); else 1.
    pub fn runs_asked(&self) -> u32 {
        match self.options.get("--runs").map(String::as_str) {
            Some(AUTO) if self.second_runs.as_ref().is_some_and(|s| !s.is_empty()) => 2,
            Some(AUTO) => 1,
            Some(r) => r.parse().unwrap_or(1),
            None => 1,
        }
    }

    /// Whether the survey was asked `--runs auto`: a second stage after every node's first
    /// run (`super::second`).
    pub fn runs_auto(&self) -> bool {
        self.options.get("--runs").map(String::as_str) == Some(AUTO)
    }

    /// The most runs a node of this survey may be measured, decided or not: 2 with `--runs
    /// auto` before its choice too. What the traces a new survey refuses to overwrite are
    /// looked for in (a second run's `run2/` among them).
    pub fn runs_possible(&self) -> u32 {
        if self.runs_auto() {
            2
        } else {
            self.runs_asked()
        }
    }

    /// Whether every node has finished its first run: what `--runs auto`'s second stage
    /// waits for (the band of the first runs' report needs the whole fleet).
    pub fn first_runs_done(&self) -> bool {
        self.nodes.iter().all(|n| n.runs_finished() >= 1)
    }

    /// Records `--runs auto`'s choice: the nodes of `again` (host names as given, unknown
    /// ones ignored) wait for their second run, pending between their runs as in a survey of
    /// `--runs 2`, so that the same rounds, timeouts, cuts and `--resume` apply to them.
    /// Recorded in the order of the hosts.
    pub fn choose_second(&mut self, again: &[String]) {
        let wanted: std::collections::HashSet<&str> = again.iter().map(String::as_str).collect();
        let mut chosen = Vec::new();
        for n in self
            .nodes
            .iter_mut()
            .filter(|n| wanted.contains(n.host.as_str()))
        {
            n.runs_done = n.runs_finished().max(1);
            n.status = Status::Pending;
            n.error = None;
            chosen.push(n.host.clone());
        }
        self.second_runs = Some(chosen);
    }
}

/// `--runs auto` as the manifest's options record it.
pub const AUTO: &str = "auto";

/// A node's error in its run `run`: as it is for a first run, naming the run after.
pub fn run_error(run: u32, why: &str) -> String {
    if run <= 1 {
        why.to_string()
    } else {
        format!("run {run}: {why}")
    }
}

/// The first name of `names` met a second time, in one pass (a survey of 10,000 nodes
/// checks its list as fast as one of four).
pub fn repeated<'a>(names: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let mut seen = std::collections::HashSet::new();
    names
        .into_iter()
        .find(|n| !seen.insert(*n))
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resuming_where_no_survey_ran_says_what_to_run() {
        let path = Path::new("/nonexistent-contention-results/survey.json");
        let e = Manifest::read_for(path, "--resume").unwrap_err();
        assert_eq!(e.exit_code(), crate::error::EXIT_INPUT);
        let msg = e.to_string();
        assert!(
            msg.starts_with(
                "--resume: no survey manifest at `/nonexistent-contention-results/survey.json`"
            ),
            "{msg}"
        );
        assert!(msg.contains("run `contention survey` first"), "{msg}");
    }

    fn sample() -> Manifest {
        let pair = |m: &str, s: &str| HostPair {
            measured: m.into(),
            sender: s.into(),
        };
        Manifest {
            schema_version: SCHEMA_VERSION,
            hosts: vec!["a".into(), "b".into(), "c".into()],
            options: [("--numa".to_string(), "0,0".to_string())].into(),
            odd_count: Some("3 nodes".into()),
            job: 1,
            job_hosts: vec!["a".into(), "b".into(), "c".into()],
            command: vec!["mpirun".into()],
            rounds: vec![
                Round {
                    pairs: vec![pair("a", "b")],
                    run: 1,
                    timeout_s: 10.0,
                },
                Round {
                    pairs: vec![pair("b", "a")],
                    run: 1,
                    timeout_s: 10.0,
                },
                Round {
                    pairs: vec![pair("c", "a")],
                    run: 1,
                    timeout_s: 10.0,
                },
            ],
            nodes: ["a", "b", "c"].map(NodeStatus::pending).to_vec(),
            refused: None,
            simulated: None,
            second_runs: None,
            started_at: "t".into(),
            updated_at: "t".into(),
        }
    }

    #[test]
    fn a_cut_job_fails_only_the_round_it_was_in() {
        let mut m = sample();
        m.nodes[0].status = Status::Done;
        assert_eq!(m.current_round(), Some(1));
        m.record_cut("the MPI job ended with status 137");
        assert_eq!(m.nodes[0].status, Status::Done);
        assert_eq!(m.nodes[1].status, Status::Failed);
        assert_eq!(m.nodes[1].sender.as_deref(), Some("a"));
        assert_eq!(m.nodes[1].round, Some(2));
        assert!(m.nodes[1].error.as_deref().unwrap().contains("137"));
        assert_eq!(m.nodes[2].status, Status::Pending);
    }

    #[test]
    fn a_cut_in_the_second_runs_fails_the_node_waiting_for_it_naming_the_run() {
        let mut m = sample();
        m.options.insert("--runs".into(), "2".into());
        assert_eq!(m.runs_asked(), 2);
        // Run 2's rounds after run 1's: a and b finished run 1 (pending between runs).
        m.rounds.truncate(2);
        let second: Vec<Round> = m
            .rounds
            .iter()
            .rev()
            .map(|r| Round {
                run: 2,
                ..r.clone()
            })
            .collect();
        m.rounds.extend(second);
        m.nodes.truncate(2);
        m.hosts.truncate(2);
        for n in &mut m.nodes {
            n.runs_done = 1;
        }
        // Both run-1 rounds are finished though a and b are pending: round 3 (b's run 2) is
        // the current one.
        assert_eq!(m.current_round(), Some(2));
        m.record_cut("the MPI job ended with status 137");
        assert_eq!(m.nodes[1].status, Status::Failed);
        assert_eq!(
            m.nodes[1].error.as_deref(),
            Some("run 2: the MPI job ended with status 137")
        );
        assert_eq!(m.nodes[1].round, Some(3));
        assert_eq!(
            (m.nodes[0].status, m.nodes[0].runs_finished()),
            (Status::Pending, 1)
        );
        assert_eq!(m.current_round(), Some(3));
        // An old manifest's done node, without `runs_done`, finished its one run.
        let old: NodeStatus = serde_json::from_str(r#"{"host":"a","status":"done"}"#).unwrap();
        assert_eq!(old.runs_finished(), 1);
        assert!(!old.waits_for(1));
    }

    /// `--runs auto` asks one run of every node until its second stage chooses some; a
    /// choice naming a host the survey does not have, or one twice, is an edit refused.
    #[test]
    fn auto_asks_a_second_run_only_of_the_nodes_chosen() {
        let mut m = sample();
        m.options.insert("--runs".into(), AUTO.into());
        assert_eq!(
            (m.runs_asked(), m.runs_possible(), m.runs_auto()),
            (1, 2, true)
        );
        m.second_runs = Some(Vec::new());
        assert_eq!(m.runs_asked(), 1, "none chosen");
        for n in &mut m.nodes {
            n.status = Status::Done;
        }
        m.choose_second(&["c".into(), "a".into(), "zz".into()]);
        assert_eq!(m.second_runs, Some(vec!["a".into(), "c".into()]));
        assert_eq!(m.runs_asked(), 2);
        assert_eq!(m.inconsistency(), None);
        let waiting: Vec<bool> = m.nodes.iter().map(|n| n.waits_for(2)).collect();
        assert_eq!(waiting, [true, false, true]);
        assert!(m.first_runs_done(), "a chosen node keeps its first run");
        m.second_runs = Some(vec!["a".into(), "x\u{1b}y".into()]);
        let why = m.inconsistency().unwrap();
        assert!(
            why.contains("chose `x") && why.contains("none of its hosts"),
            "{why}"
        );
        assert!(!why.contains('\u{1b}'), "{why}");
        m.second_runs = Some(vec!["a".into(), "a".into()]);
        assert!(m.inconsistency().unwrap().contains("`a` twice"));
        // `--runs 1` and 2 as before.
        m.options.insert("--runs".into(), "2".into());
        assert_eq!(
            (m.runs_asked(), m.runs_possible(), m.runs_auto()),
            (2, 2, false)
        );
        m.options.remove("--runs");
        assert_eq!((m.runs_asked(), m.runs_possible()), (1, 1));
    }

    #[test]
    fn a_manifest_whose_nodes_do_not_match_its_hosts_is_refused_naming_the_file() {
        let dir = std::env::temp_dir().join(format!("contention-short-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = Manifest::path(&dir);
        let mut m = sample();
        m.nodes.truncate(1);
        m.save(&path).unwrap();
        let e = Manifest::read(&path).unwrap_err();
        assert_eq!(e.exit_code(), crate::error::EXIT_INPUT);
        let msg = e.to_string();
        assert!(msg.contains(&path.display().to_string()), "{msg}");
        assert!(msg.contains("3 host(s) but 1 node status(es)"), "{msg}");
        let mut m = sample();
        m.nodes.swap(0, 1);
        m.save(&path).unwrap();
        let msg = Manifest::read(&path).unwrap_err().to_string();
        assert!(
            msg.contains("host 1 `a` in `hosts` but `b` in `nodes`"),
            "{msg}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn saved_atomically_and_read_back() {
        let dir = std::env::temp_dir().join(format!("contention-manifest-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = Manifest::path(&dir);
        let mut m = sample();
        m.save(&path).unwrap();
        let back = Manifest::read(&path).unwrap();
        assert_eq!(back, m);
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(json["nodes"][0]["status"], "pending");
        std::fs::write(&path, "{\"schema_version\": 9}").unwrap();
        assert!(Manifest::read(&path)
            .unwrap_err()
            .to_string()
            .contains("--force"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn other_options_are_named() {
        let m = sample();
        let mut now = m.options.clone();
        assert!(m.check_options(&now, Path::new("s.json")).is_ok());
        now.insert("--numa".into(), "1,1".into());
        now.insert("--max-phase".into(), "0.2".into());
        let e = m
            .check_options(&now, Path::new("s.json"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("--numa: 0,0 in the manifest, 1,1 now"), "{e}");
        assert!(
            e.contains("--max-phase: (absent) in the manifest, 0.2 now"),
            "{e}"
        );
        assert_eq!(
            m.check_options(&now, Path::new("s.json"))
                .unwrap_err()
                .exit_code(),
            2
        );
    }
}
