//! `contention check` of a fleet: a new survey's results compared with a saved fleet, node by
//! node. Each node's new measurements are calibrated (nothing is written) and judged against
//! that node's saved model: where the two surveys measured at least `pooled::MIN_PAIRS`
//! nodes twice (`survey --runs auto`, the default, or `--runs 2`), by its drift beyond the
//! fleet's common drift against the fleet's spread between runs pooled over those nodes
//! (`pooled`), and the common drift against two days' levels; otherwise by the rule
//! `check` applies to one machine ([`super::judge`]): the drift of what both predict, within a
//! limit from the noise or `--tolerance` (which always sets the limit).
//!
//! The saved fleet is a results directory (`ROOT/HOST/model.json`, as a survey leaves it) or a
//! fleet report's JSON (`nodes[].model`). A node saved but absent from the new results fails
//! the check (it was expected and is not measured); a node only in the new results is listed
//! and does not fail it (nothing to compare with).

use super::{pooled, Drift};
use crate::error::{Error, Result};
use crate::fleet::{hosts_in, NodeStatus};
use crate::io::model_file;
use crate::model::Model;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Version of the fleet check's JSON layout.
pub const FLEET_CHECK_SCHEMA_VERSION: u32 = 1;

/// How one node came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Pass,
    /// Its predictions drifted beyond the limit.
    Fail,
    /// Saved, but not in the new results: fails the check.
    MissingInNew,
    /// New, with no saved model: listed, does not fail.
    MissingInSaved,
    /// Its new measurements could not be calibrated: fails the check.
    NotCalibrated,
}

impl Verdict {
    pub fn fails(self) -> bool {
        matches!(
            self,
            Verdict::Fail | Verdict::MissingInNew | Verdict::NotCalibrated
        )
    }

    /// The verdict as the table and the failures say it.
    pub fn words(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::MissingInNew => "FAIL, saved but not in the new results",
            Verdict::MissingInSaved => "new, no saved model to compare with",
            Verdict::NotCalibrated => "FAIL, its new measurements could not be calibrated",
        }
    }
}

/// One node's comparison.
#[derive(Debug, Clone, Serialize)]
pub struct NodeCheck {
    pub host: String,
    pub verdict: Verdict,
    /// The drift limit applied, percent, and where it came from: `noise` or `--tolerance`.
    pub drift_limit_percent: Option<f64>,
    pub drift_limit_source: Option<&'static str>,
    pub drift: Option<Drift>,
    /// Why it could not be compared.
    pub error: Option<String>,
}

impl NodeCheck {
    /// `host` with `verdict` and nothing compared yet: no drift, no limit, no error.
    fn blank(host: &str, verdict: Verdict) -> Self {
        NodeCheck {
            host: host.to_string(),
            verdict,
            drift_limit_percent: None,
            drift_limit_source: None,
            drift: None,
            error: None,
        }
    }
}

/// The fleet check's outcome.
#[derive(Debug, Clone, Serialize)]
pub struct FleetCheck {
    #[serde(flatten)]
    pub header: crate::header::Header,
    pub units: crate::units::Units,
    /// A simulated fleet's description (both fleets simulated: `survey --simulate`);
    /// absent for real nodes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub simulated: Option<String>,
    /// The saved fleet and the new results, as named.
    pub saved: String,
    pub new: String,
    pub nodes: Vec<NodeCheck>,
    /// The fleet's rule, where the surveys measured enough nodes twice (`pooled`); absent:
    /// each node is judged by the rule of one machine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pooled: Option<Pooled>,
    /// Where the fleet as a whole moved beyond two days' levels (a failure).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fleet_moved: Option<pooled::FleetShift>,
    pub failures: Vec<String>,
    pub pass: bool,
}

/// What the fleet's rule rested on, as the report says it.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Pooled {
    /// Runs pairs pooled: nodes measured twice in the saved survey and in the new one.
    pub nodes_measured_twice: usize,
    /// Nodes whose median drift is the fleet's shift.
    pub nodes_compared: usize,
    /// Whether the shift was taken out of each node's drift (enough nodes compared).
    pub fleet_shift_taken_out: bool,
}

/// A saved fleet report, read for its models only (the rest may change between versions).
#[derive(Deserialize)]
struct SavedReport {
    /// Checked against [`crate::fleet::FLEET_SCHEMA_VERSION`]: a report of another layout
    /// may mean other things by the same fields (absent: a report from before it was
    /// written, read as version 1).
    #[serde(default)]
    schema_version: Option<u64>,
    nodes: Vec<SavedNode>,
}

/// A saved fleet report's origin: `simulated` where it is a simulated fleet's, and how its
/// nodes were calibrated (absent from older reports: the default fit).
#[derive(Deserialize)]
struct SavedOrigin {
    #[serde(default)]
    simulated: Option<String>,
    #[serde(default)]
    calibration_method: Option<crate::calibrate::Method>,
}

/// A saved fleet as `check --fleet` reads it: a results directory, or a fleet report's JSON
/// read once (10,000 nodes write about 70 MB), with its origin and method parsed once, for
/// every step of the check.
enum Saved<'a> {
    Dir(&'a Path),
    Report {
        path: &'a Path,
        text: String,
        /// `None` where the text is no fleet report ([`saved_models`] then says so).
        origin: Option<SavedOrigin>,
    },
}

impl<'a> Saved<'a> {
    fn open(path: &'a Path) -> Result<Self> {
        if path.is_dir() {
            return Ok(Saved::Dir(path));
        }
        let text =
            crate::io::read::text_up_to(path, "saved fleet", crate::io::read::MAX_FLEET_BYTES)?;
        let origin = serde_json::from_str(&text).ok();
        Ok(Saved::Report { path, text, origin })
    }
}

/// How a saved fleet's nodes were calibrated: its report's `calibration_method`, or a
/// saved directory's first `HOST/model.json`'s `calibration.method`; `None` where neither
/// says (the default fit).
fn saved_method(saved: &Saved) -> Option<crate::calibrate::Method> {
    match saved {
        Saved::Dir(dir) => {
            let host = hosts_in(dir).ok()?.into_iter().next()?;
            let path = dir.join(&host.host).join(crate::results::MODEL_FILE);
            // The bounded reader: a FIFO here blocked for ever, `/dev/zero` read without end.
            // Its errors are [`saved_models`]' to report.
            let text = crate::io::read::text(&path, "saved model file").ok()?;
            let v: serde_json::Value = serde_json::from_str(&text).ok()?;
            serde_json::from_value(v["calibration"]["method"].clone()).ok()
        }
        Saved::Report { origin, .. } => origin.as_ref()?.calibration_method,
    }
}

/// The simulated fleet a results root holds (its `survey.json` says so, as `survey
/// --simulate` writes it), `None` for a real fleet or a root without a manifest.
pub(crate) fn simulated_root(root: &Path) -> Result<Option<String>> {
    let path = crate::survey::manifest::Manifest::path(root);
    if !path.is_file() {
        return Ok(None);
    }
    Ok(crate::survey::manifest::Manifest::read(&path)?.simulated)
}

/// The saved fleet's origin: a directory's manifest, a report's `simulated`.
fn saved_simulated(saved: &Saved) -> Result<Option<String>> {
    match saved {
        Saved::Dir(dir) => simulated_root(dir),
        Saved::Report { origin, .. } => Ok(origin.as_ref().and_then(|o| o.simulated.clone())),
    }
}

/// Refuses to compare a simulated fleet with a real one, either way: a drift between them
/// would say nothing of either (exit 2).
fn same_origin(saved: &Saved, path: &Path, new: &Path) -> Result<Option<String>> {
    let (was, now) = (saved_simulated(saved)?, simulated_root(new)?);
    let word = |s: &Option<String>| if s.is_some() { "a simulated" } else { "a real" };
    if was.is_some() != now.is_some() {
        return Err(Error::Input(format!(
            "--fleet {}: {} fleet, but {} holds {} fleet; a simulated fleet (`survey \
             --simulate`) is only compared with another simulated one, a real one with a real \
             one: name a saved fleet of the same origin",
            crate::error::shown_path(path),
            word(&was),
            crate::error::shown_path(new),
            word(&now)
        )));
    }
    Ok(now)
}

#[derive(Deserialize)]
struct SavedNode {
    host: String,
    #[serde(default)]
    model: Option<serde_json::Value>,
    /// The simulated machine of a simulated fleet's node (absent: real, or an older report).
    #[serde(default)]
    origin: Option<String>,
    /// The model of its second run, where the survey measured it twice.
    #[serde(default)]
    other_run: Option<serde_json::Value>,
}

/// A saved node's model, with where it was read (for errors) and the simulated machine its
/// calibration's measurements came from (`None`: real ones), for [`super::guard`].
pub(crate) struct SavedModel {
    pub(crate) model: Model,
    pub(crate) source: String,
    pub(crate) origin: Option<String>,
    /// The model of the node's second run in the saved survey, where it was measured twice
    /// (a report's `other_run`; a directory's `HOST/run2/` is fitted by [`check`]).
    pub(crate) second: Option<Model>,
}

/// The saved models by host. A host whose model cannot be read is an error naming it: the
/// reference of a check must be sound; so is a report that lists one host twice (which of
/// its models is the reference?).
fn saved_models(saved: &Saved) -> Result<BTreeMap<String, SavedModel>> {
    let mut out = BTreeMap::new();
    let (saved, text) = match saved {
        Saved::Dir(dir) => (*dir, None),
        Saved::Report { path, text, .. } => (*path, Some(text)),
    };
    let Some(text) = text else {
        for n in hosts_in(saved)? {
            let path = saved.join(&n.host).join(crate::results::MODEL_FILE);
            // Anything at the path is read, through the bounded reader: a FIFO, device or
            // directory as `model.json` is refused (exit 2), not taken for a node without a
            // model (which passed the check). A dangling link is no model either.
            if std::fs::symlink_metadata(&path).is_ok() {
                let source = path.display().to_string();
                let l = model_file::load_all(&source)?;
                out.insert(
                    n.host,
                    SavedModel {
                        model: l.model,
                        source,
                        origin: l.origin,
                        second: None,
                    },
                );
            }
        }
        if out.is_empty() {
            return Err(Error::Input(format!(
                "`{}` holds no HOST/model.json: a saved fleet is a results directory whose \
                 hosts were calibrated (as `contention survey` leaves it) or a fleet report's \
                 JSON",
                crate::error::shown_path(saved)
            )));
        }
        return Ok(out);
    };
    let report: SavedReport = serde_json::from_str(text).map_err(|e| {
        Error::Input(format!(
            "{}: not a fleet report ({e}); a saved fleet is a fleet report's JSON or a \
             results directory with HOST/model.json",
            crate::error::shown_path(saved)
        ))
    })?;
    if let Some(v) = report
        .schema_version
        .filter(|v| *v != u64::from(crate::fleet::FLEET_SCHEMA_VERSION))
    {
        return Err(Error::Input(format!(
            "{}: fleet report schema_version {v} is not supported; this build reads version \
             {}: save the fleet report again with this build (`contention survey \
             --report-only`)",
            crate::error::shown_path(saved),
            crate::fleet::FLEET_SCHEMA_VERSION
        )));
    }
    if let Some(host) =
        crate::survey::manifest::repeated(report.nodes.iter().map(|n| n.host.as_str()))
    {
        return Err(Error::Input(format!(
            "{}: the saved fleet lists the host `{}` twice; a fleet report names each node \
             once, so it was edited: keep one entry of `{0}` (or save the report again)",
            crate::error::shown_path(saved),
            crate::error::escape_line(&host)
        )));
    }
    for n in report.nodes {
        if let Some(m) = n.model.filter(|m| !m.is_null()) {
            let source = format!("{} (node {})", saved.display(), n.host);
            let l = model_file::parse_all(&m.to_string(), &source)?;
            // A second run's model that does not read only leaves the node out of the pooled
            // spread: the node's own reference is sound.
            let second = n
                .other_run
                .filter(|m| !m.is_null())
                .and_then(|m| model_file::parse_all(&m.to_string(), &source).ok())
                .map(|l| l.model);
            out.insert(
                n.host,
                SavedModel {
                    model: l.model,
                    source,
                    origin: l.origin.or(n.origin),
                    second,
                },
            );
        }
    }
    if out.is_empty() {
        return Err(Error::Input(format!(
            "nothing was compared: `{}` holds no node with a model (a survey manifest, or a \
             fleet report whose calibrations all failed); a saved fleet is a fleet report's \
             JSON whose nodes were calibrated, or a results directory with HOST/model.json",
            crate::error::shown_path(saved)
        )));
    }
    Ok(out)
}

/// Why the check compared nothing, if it did not: no node has both a saved model and new
/// measurements. A check that compared nothing must not pass (it used to print PASS).
fn nothing_compared(nodes: &[NodeCheck]) -> Option<String> {
    if nodes
        .iter()
        .any(|n| matches!(n.verdict, Verdict::Pass | Verdict::Fail))
    {
        return None;
    }
    let with = |v: Verdict| -> Vec<&str> {
        nodes
            .iter()
            .filter(|n| n.verdict == v)
            .map(|n| n.host.as_str())
            .collect()
    };
    // Each list bounded as an error line's (the first ten, then a count): 34,000 saved
    // nodes made it one line of 261 KB on standard output. The nodes' blocks above it name
    // every one.
    let listed = |v: Verdict| crate::error::first_of(&with(v), ", ");
    Some(format!(
        "nothing was compared: no node has both a saved model and new measurements that \
         calibrate (saved only: [{}]; new only: [{}]; not calibrated: [{}]); name the saved \
         fleet of these nodes",
        listed(Verdict::MissingInNew),
        listed(Verdict::MissingInSaved),
        listed(Verdict::NotCalibrated)
    ))
}

/// A node's new measurements refitted against its saved model, ready to judge.
struct Refit<'a> {
    host: &'a str,
    saved: &'a SavedModel,
    fitted: crate::calibrate::CalibratedModel,
    /// The refit of its second run, where the new survey measured it twice.
    second: Option<Model>,
}

/// One node of the new fleet, refitted against its saved model (none: missing in the saved
/// fleet), or the verdict that says why it cannot be compared. `Err` only for the wrong
/// reference (exit 2): a saved model of another machine or origin; a node that does not
/// calibrate is a verdict.
fn refit_node<'a>(
    host: &'a str,
    saved: Option<&'a SavedModel>,
    new: &Path,
    simulated: bool,
    opts: &crate::calibrate::Options,
) -> Result<std::result::Result<Refit<'a>, NodeCheck>> {
    let blank = |verdict| NodeCheck::blank(host, verdict);
    let Some(saved) = saved else {
        return Ok(Err(blank(Verdict::MissingInSaved)));
    };
    let model = &saved.model;
    let dir = new.join(host);
    // `check`'s guards first: a saved model of another machine or origin is the wrong
    // reference (exit 2), not a node that drifted.
    let opts = super::refit_options(model, opts);
    let fitted = match crate::fleet::calibrate::read(&dir, simulated) {
        Err(e) => Err(e),
        Ok(t) => {
            super::guard(model, &saved.source, saved.origin.as_deref(), &t.inputs)?;
            crate::fleet::calibrate::fit_traces(&dir, t, &opts)
        }
    };
    Ok(match fitted {
        Err(e) => Err(NodeCheck {
            error: Some(e.to_string()),
            ..blank(Verdict::NotCalibrated)
        }),
        Ok(c) => Ok(Refit {
            host,
            saved,
            fitted: c.calibrated,
            second: second_run(&dir, simulated, &opts),
        }),
    })
}

/// The refit of the second run of the node whose results are in `dir` (`HOST/run2/`, where
/// a survey measured it twice); `None` where there is none or it does not calibrate (the
/// node then only stays out of the pooled spread).
fn second_run(dir: &Path, simulated: bool, opts: &crate::calibrate::Options) -> Option<Model> {
    let run2 = crate::results::run_dir(dir, 2);
    if !run2.is_dir() {
        return None;
    }
    let t = crate::fleet::calibrate::read(&run2, simulated).ok()?;
    let c = crate::fleet::calibrate::fit_traces(&run2, t, opts).ok()?;
    Some(c.calibrated.model)
}

/// The fleet's rule ([`pooled::FleetRule`]) from the nodes measured twice in either survey
/// (`saved_dir`: the saved fleet's results directory, whose `HOST/run2/` are refitted; a
/// saved report carries its second runs' models) and the compared nodes' drifts; `None`
/// with too few nodes measured twice.
fn fleet_rule(
    refits: &[Refit],
    saved_dir: Option<&Path>,
    simulated: bool,
    opts: &crate::calibrate::Options,
) -> Option<pooled::FleetRule> {
    let logs = pooled::log_predictions;
    let mut pairs = Vec::new();
    let mut drifts = Vec::new();
    for r in refits {
        let (Some(saved), Some(new)) = (logs(&r.saved.model), logs(&r.fitted.model)) else {
            continue;
        };
        let drift: pooled::Curves = new
            .iter()
            .filter_map(|(k, n)| {
                let s = saved.get(k)?;
                Some((*k, std::array::from_fn(|q| n[q] - s[q])))
            })
            .collect();
        drifts.push(drift);
        if let Some(second) = r.second.as_ref().and_then(logs) {
            pairs.push((new, second));
        }
        let saved_second = match saved_dir {
            Some(dir) => second_run(
                &dir.join(r.host),
                simulated,
                &super::refit_options(&r.saved.model, opts),
            ),
            None => r.saved.second.clone(),
        };
        if let Some(second) = saved_second.as_ref().and_then(logs) {
            pairs.push((saved, second));
        }
    }
    pooled::FleetRule::new(&pairs, &drifts)
}

/// Where the drift limits of a node on the fleet's rule come from, as its report says.
pub(crate) const POOLED_SOURCE: &str =
    "the fleet's spread between runs, pooled over its nodes measured twice";

/// The verdict of one refitted node: the fleet's `rule` where there is one and no
/// `tolerance` ([`pooled`]: its drift beyond the fleet's shift, against the pooled spread),
/// else the rule of one machine ([`super::judge`]).
fn judge_node(r: &Refit, rule: Option<&pooled::FleetRule>, tolerance: Option<f64>) -> NodeCheck {
    let model = &r.saved.model;
    let one = super::judge(model, None, &r.fitted, tolerance);
    let (drift, limit, source) = match rule.filter(|_| tolerance.is_none()) {
        None => (one.drift, one.limit_percent, one.limit_source),
        Some(rule) => {
            let at = |key: pooled::Key, q: usize| match rule.rules.get(&key) {
                Some(p) => (
                    p[q].limit_percent,
                    if rule.shifted() { p[q].shift } else { 0.0 },
                ),
                None => (one.limits_percent[q], 0.0),
            };
            let drift = super::compare_by(model, &r.fitted.model, &at, one.limits_percent);
            let limit = drift.deciding_limit(one.limit_percent);
            (drift, limit, POOLED_SOURCE)
        }
    };
    let drifted = drift.placements.iter().any(super::PlacementDrift::drifted)
        || !drift.max_drift_percent.is_finite();
    NodeCheck {
        drift_limit_percent: Some(limit),
        drift_limit_source: Some(source),
        drift: Some(drift),
        ..NodeCheck::blank(
            r.host,
            if drifted {
                Verdict::Fail
            } else {
                Verdict::Pass
            },
        )
    }
}

/// One line per failing node, for the table and the error.
fn failures(nodes: &[NodeCheck]) -> Vec<String> {
    nodes
        .iter()
        .filter(|n| n.verdict.fails())
        .map(|n| {
            // A saved report's host is any text: one line, in the table and the error.
            let host = crate::error::escape_line(&n.host);
            match (&n.drift, n.drift_limit_percent) {
                (Some(d), Some(l)) => format!(
                    "{host}: predictions moved by up to {:.2} % (limit {l:.2} %)",
                    d.max_drift_percent
                ),
                _ => format!("{host}: {}", n.verdict.words()),
            }
        })
        .collect()
}

/// Compares the fleet of results directory `new` with the `saved` one. `tolerance` fixes
/// the drift limit (percent) instead of the noise; `opts` are the calibration's options.
pub fn check(
    saved: &Path,
    new: &Path,
    tolerance: Option<f64>,
    opts: &crate::calibrate::Options,
) -> Result<FleetCheck> {
    let fleet = Saved::open(saved)?;
    // The saved fleet read first: a file that is no fleet report, or a directory of no
    // models, was called "a real fleet" and refused for its origin (issue 46).
    let expected = saved_models(&fleet)?;
    let simulated = same_origin(&fleet, saved, new)?;
    // Refitted as the saved models were fitted: the paper's rules and the fit read the
    // same points differently, which would pass for a drift.
    let opts = &crate::calibrate::Options {
        method: saved_method(&fleet).unwrap_or(opts.method),
        ..opts.clone()
    };
    let new_hosts = hosts_in(new)?;
    let mut nodes = Vec::new();
    let mut refits = Vec::new();
    for n in new_hosts.iter().filter(|n| n.status == NodeStatus::Done) {
        let saved = expected.get(&n.host);
        match refit_node(&n.host, saved, new, simulated.is_some(), opts)? {
            Ok(r) => refits.push(r),
            Err(verdict) => nodes.push(verdict),
        }
    }
    let saved_dir = match fleet {
        Saved::Dir(dir) => Some(dir),
        Saved::Report { .. } => None,
    };
    let rule = fleet_rule(&refits, saved_dir, simulated.is_some(), opts);
    nodes.extend(
        refits
            .iter()
            .map(|r| judge_node(r, rule.as_ref(), tolerance)),
    );
    for host in expected.keys() {
        if !new_hosts.iter().any(|n| &n.host == host) {
            nodes.push(NodeCheck::blank(host, Verdict::MissingInNew));
        }
    }
    nodes.sort_by(|a, b| a.host.cmp(&b.host));
    let mut failures = failures(&nodes);
    failures.extend(nothing_compared(&nodes));
    let pooled = rule.as_ref().filter(|_| tolerance.is_none());
    let fleet_moved = pooled.and_then(pooled::FleetRule::fleet_moved);
    failures.extend(fleet_moved.as_ref().map(|m| {
        format!(
            "the whole fleet moved: {} of placement {},{} at {} cores by {:+.2} % (limit {:.2} \
             %: two days' levels of a real node, assumed, and the pooled spread); an MPI or \
             firmware update, or a site-wide load, moves every node alike",
            m.bandwidth, m.comp_numa, m.comm_numa, m.cores, m.shift_percent, m.limit_percent
        )
    }));
    Ok(FleetCheck {
        header: crate::header::Header::new(FLEET_CHECK_SCHEMA_VERSION),
        units: crate::units::UNITS,
        simulated,
        saved: saved.display().to_string(),
        new: new.display().to_string(),
        pass: failures.is_empty(),
        pooled: pooled.map(|r| Pooled {
            nodes_measured_twice: r.pairs,
            nodes_compared: r.nodes,
            fleet_shift_taken_out: r.shifted(),
        }),
        fleet_moved,
        nodes,
        failures,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 46, lesser finding: the line of a check that compared nothing listed every
    /// node, one line of 261 KB for 34,000 saved nodes. Each list names the first ten and
    /// counts the rest.
    #[test]
    fn nothing_compared_names_the_first_nodes_and_counts_the_rest() {
        let mut nodes: Vec<NodeCheck> = (0..34_000)
            .map(|i| NodeCheck::blank(&format!("saved{i:05}"), Verdict::MissingInNew))
            .collect();
        nodes.push(NodeCheck::blank("new1", Verdict::MissingInSaved));
        let line = nothing_compared(&nodes).expect("nothing compared");
        assert!(line.len() < 1_000, "{} bytes: {line}", line.len());
        assert!(
            line.contains("saved only: [saved00000, saved00001, ")
                && line.contains("saved00009, and 33990 more]"),
            "{line}"
        );
        assert!(line.contains("new only: [new1]"), "{line}");
        assert!(line.contains("not calibrated: []"), "{line}");
    }

    #[test]
    fn a_saved_fleet_report_of_ten_thousand_nodes_is_read() {
        // 10,000 nodes write about 70 MB of report, past the 64 MiB of other inputs: one
        // node's model padded with white space to 65 MiB stands for it.
        let model = crate::io::model_file::load("paper:henri").unwrap();
        let node = serde_json::json!({"host": "n1", "model": model}).to_string();
        let mut text = format!("{{\"nodes\": [{node}]");
        text.push_str(&" ".repeat((65 << 20) - text.len()));
        text.push('}');
        let dir = std::env::temp_dir().join(format!("contention-fleet-big-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("fleet.json");
        std::fs::write(&path, text).unwrap();
        let saved = Saved::open(&path).and_then(|s| saved_models(&s));
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(saved.unwrap().len(), 1);
    }
}
