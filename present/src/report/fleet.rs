//! The fleet report (`survey`, `survey --report-only`) as a [`Report`]: the fleet, one line
//! per parameter, the outlying nodes with the facts that differ on them, the nodes without a
//! model; CSV of every node's parameters against the band; JSON the [`FleetReport`] as it is.

use crate::error::escape_line;
use crate::fleet::{value, FleetReport, NodeReport, NodeStatus, NotNamed, FLEET_SCHEMA_VERSION};
use crate::model::{ParamKind, Params};
use crate::report::{indented, Report};
use std::fmt::Write;

/// A parameter's value as the table prints it: core counts whole, `alpha` to 3 places,
/// bandwidths and slopes to 0.1 MB/s ([`ParamKind::decimals`]).
fn show(parameter: &str, v: f64) -> String {
    let decimals = Params::kind_of(parameter).map_or(1, ParamKind::decimals);
    format!("{v:.decimals$}")
}

/// The sections of the fleet report's table, in the order `table` writes them: a trait of
/// this file's, as the report's type is the analysis crate's.
trait Sections {
    fn write_header(&self, out: &mut String);
    fn write_parameters(&self, out: &mut String);
    fn write_outliers(&self, out: &mut String);
    fn write_within_noise(&self, out: &mut String);
    fn write_differing_machines(&self, out: &mut String);
    fn write_without_model(&self, out: &mut String);
}

impl Sections for FleetReport {
    /// The tool, the fleet's counts, the band rule and the notes.
    fn write_header(&self, out: &mut String) {
        let _ = writeln!(out, "# {}", self.header.tool.summary());
        if let Some(s) = &self.simulated {
            let _ = writeln!(
                out,
                "# SIMULATED fleet, not measurements of real nodes: {}",
                escape_line(s)
            );
        }
        let count = |s: NodeStatus| self.nodes.iter().filter(|n| n.status == s).count();
        let _ = writeln!(
            out,
            "# fleet of {} node(s) in {}: {} calibrated, {} failed, {} pending",
            self.nodes.len(),
            self.root,
            self.nodes.iter().filter(|n| n.calibrated).count(),
            count(NodeStatus::Failed) + self.nodes.iter().filter(|n| n.error.is_some()).count(),
            count(NodeStatus::Pending)
        );
        let _ = writeln!(
            out,
            "# bandwidths and delta in MB/s; band: {}",
            self.band_rule
        );
        for note in &self.notes {
            let _ = writeln!(out, "# note: {note}");
        }
    }

    /// One line per parameter: its band across the fleet and the nodes outside it.
    fn write_parameters(&self, out: &mut String) {
        let _ = writeln!(
            out,
            "\n{:<18} {:>5} {:>10} {:>9} {:>10} {:>10}  outside the band",
            "parameter", "nodes", "median", "MAD", "min", "max"
        );
        for p in &self.parameters {
            let b = &p.band;
            let outside = if p.outliers.is_empty() {
                "-".to_string()
            } else {
                escape_line(&p.outliers.join(", "))
            };
            let _ = writeln!(
                out,
                "{:<18} {:>5} {:>10} {:>9} {:>10} {:>10}  {}",
                p.parameter,
                p.nodes,
                show(&p.parameter, b.median),
                show(&p.parameter, b.mad),
                show(&p.parameter, b.min),
                show(&p.parameter, b.max),
                outside
            );
        }
    }

    /// Each outlying node with its outlying parameters and the facts that differ on it.
    fn write_outliers(&self, out: &mut String) {
        let flagged: Vec<&NodeReport> = self
            .nodes
            .iter()
            .filter(|n| !n.outlier_parameters.is_empty())
            .collect();
        if flagged.is_empty() {
            let _ = writeln!(out, "\noutliers: none");
        } else {
            let _ = writeln!(out, "\noutliers:");
        }
        for n in &flagged {
            let _ = writeln!(
                out,
                "  {}: (noise between runs: {})",
                named(n),
                n.run_noise_source.words()
            );
            for o in self.outliers.iter().filter(|o| o.host == n.host) {
                let _ = writeln!(
                    out,
                    "    {:<18} {:>10} (median {}, {:+.1} %, {:+.1} sigma)",
                    o.parameter,
                    show(&o.parameter, o.value),
                    show(&o.parameter, o.median),
                    o.deviation_percent,
                    o.score
                );
            }
            write_facts(out, n, "    ");
        }
    }

    /// Values outside the band that the node's own noise explains: no outliers.
    fn write_within_noise(&self, out: &mut String) {
        if !self.within_noise.is_empty() {
            let _ = writeln!(
                out,
                "\noutside the band but within its own noise, predicting the same at the median, \
                 or not in its second run (not outliers: the node's measurement cannot tell it \
                 from the median):"
            );
        }
        for o in &self.within_noise {
            let why = match o.not_named {
                Some(NotNamed::SecondRun { value, half_width }) => format!(
                    "its second run, {}, is not outside the band on the same side (median \
                     +-{})",
                    show(&o.parameter, value),
                    show(&o.parameter, half_width)
                ),
                Some(NotNamed::SameCurve {
                    shift_percent,
                    limit_percent,
                }) => format!(
                    "at the fleet's median it predicts the same bandwidths (within \
                     {shift_percent:.2} %, under the plateau's band of {limit_percent:.2} %): \
                     the curve is flat where it moved"
                ),
                Some(NotNamed::NoSecondRun) => {
                    "not measured a second time (the second runs reached half the fleet): one \
                     run cannot confirm it"
                        .to_string()
                }
                Some(NotNamed::SecondRunFailed) => {
                    "its second run could not be calibrated: one run cannot confirm it".to_string()
                }
                _ => format!(
                    "within its own noise (+-{})",
                    show(&o.parameter, o.own_noise)
                ),
            };
            let _ = writeln!(
                out,
                "  {:<8} {:<18} {:>10} (median {}, {:+.1} %): {why}",
                escape_line(&o.host),
                o.parameter,
                show(&o.parameter, o.value),
                show(&o.parameter, o.median),
                o.deviation_percent,
            );
        }
    }

    /// Nodes within the band whose machine differs from the fleet's.
    fn write_differing_machines(&self, out: &mut String) {
        let others: Vec<&NodeReport> = self
            .nodes
            .iter()
            .filter(|n| n.outlier_parameters.is_empty() && !n.differing_facts.is_empty())
            .collect();
        if !others.is_empty() {
            let _ = writeln!(
                out,
                "\nnodes within the band whose machine differs from the fleet's:"
            );
            for n in others {
                let _ = writeln!(out, "  {}:", escape_line(&n.host));
                write_facts(out, n, "    ");
            }
        }
    }

    /// Nodes without a model, each with why.
    fn write_without_model(&self, out: &mut String) {
        let missing: Vec<&NodeReport> = self.nodes.iter().filter(|n| !n.calibrated).collect();
        if !missing.is_empty() {
            let _ = writeln!(out, "\nnodes without a model:");
            for n in missing {
                let why = match (&n.error, n.status) {
                    (Some(e), _) => format!("calibration failed: {e}"),
                    (None, s) => match &n.detail {
                        Some(d) => format!("{}: {d}", s.name()),
                        None => s.name().to_string(),
                    },
                };
                let _ = writeln!(out, "  {}: {}", named(n), indented(&why, "    "));
            }
        }
    }
}

impl Report for FleetReport {
    const SCHEMA_VERSION: u32 = FLEET_SCHEMA_VERSION;

    /// What the user should read beside the figures (also in the JSON's `notes`).
    fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The report for a person: the fleet, one line per parameter, then the outlying nodes
    /// with the facts that differ on them, then the nodes without a model.
    fn table(&self) -> String {
        let mut out = String::new();
        self.write_header(&mut out);
        self.write_parameters(&mut out);
        self.write_outliers(&mut out);
        self.write_within_noise(&mut out);
        self.write_differing_machines(&mut out);
        self.write_without_model(&mut out);
        out
    }

    /// Tidy CSV: one row per calibrated node and parameter, with the band and whether the
    /// node lies outside it.
    fn csv(&self) -> Option<String> {
        let mut w = ::csv::Writer::from_writer(Vec::new());
        // Writing into a Vec cannot fail.
        w.write_record([
            "host",
            "side",
            "parameter",
            "value",
            "median",
            "mad",
            "min",
            "max",
            "low",
            "high",
            "own_noise",
            "outlier",
            "simulated",
        ])
        .expect("in-memory CSV");
        for p in &self.parameters {
            let (side_name, name) = p.parameter.split_once('.').expect("side.name");
            for n in &self.nodes {
                let Some(v) = n.model.as_ref().and_then(|m| value(m, &p.parameter)) else {
                    continue;
                };
                let b = &p.band;
                w.write_record([
                    n.host.clone(),
                    side_name.to_string(),
                    name.to_string(),
                    v.to_string(),
                    b.median.to_string(),
                    b.mad.to_string(),
                    b.min.to_string(),
                    b.max.to_string(),
                    b.low.to_string(),
                    b.high.to_string(),
                    n.own_noise
                        .get(&p.parameter)
                        .map_or(String::new(), ToString::to_string),
                    p.outliers.contains(&n.host).to_string(),
                    self.simulated.clone().unwrap_or_default(),
                ])
                .expect("in-memory CSV");
            }
        }
        Some(String::from_utf8(w.into_inner().expect("in-memory CSV")).expect("CSV of UTF-8"))
    }
}

/// A node as the table names it: its host name, and the name the survey was given for it
/// when that differs (`node-1 (given as 10.0.0.1)`), each on one line whatever
/// `survey.json` says ([`escape_line`]).
fn named(n: &NodeReport) -> String {
    match &n.given {
        Some(g) => format!("{} (given as {})", escape_line(&n.host), escape_line(g)),
        None => escape_line(&n.host),
    }
}

fn write_facts(out: &mut String, n: &NodeReport, indent: &str) {
    if n.differing_facts.is_empty() {
        let _ = writeln!(
            out,
            "{indent}machine facts: the same as the fleet's (look at the traces' samples: \
             `contention plot` of this node)"
        );
        return;
    }
    let _ = writeln!(out, "{indent}machine facts that differ from the fleet's:");
    for d in &n.differing_facts {
        let _ = writeln!(
            out,
            "{indent}  {:<22} {} (fleet: {})",
            d.fact,
            // A trace's facts are any text (`mpi.stack.summary`): one line each.
            escape_line(&d.node),
            escape_line(&d.fleet)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::{build, testing::node, FleetOptions};
    use crate::report::{render, Format};
    use std::path::Path;

    #[test]
    fn csv_has_one_row_per_node_and_parameter_of_both_sides() {
        let nodes = vec![
            node("a", |_| {}),
            node("b", |_| {}),
            node("c", |_| {}),
            node("d", |m| m.local.b_seq_comp *= 0.8),
            node("e", |m| m.remote.as_mut().unwrap().b_seq_comm *= 0.9),
        ];
        let r = build(Path::new("r"), nodes, &FleetOptions::default());
        let csv = r.csv().unwrap();
        assert_eq!(csv.lines().count(), 1 + 5 * 20, "{csv}");
        let row = |host: &str, name: &str| {
            csv.lines()
                .find(|l| l.starts_with(&format!("{host},{name},")))
                .unwrap_or_else(|| panic!("{host} {name} missing:\n{csv}"))
                .to_string()
        };
        assert!(row("d", "local,b_seq_comp").ends_with(",true,"));
        assert!(row("e", "remote,b_seq_comm").ends_with(",true,"));
        assert!(row("a", "local,delta_r").ends_with(",false,"));
    }

    /// Host names and a node's error come from `survey.json` or the traces (any text): in
    /// the table each stays on its own line, and no format prints a control character raw.
    #[test]
    fn hosts_and_errors_read_from_files_cannot_drive_the_terminal_or_forge_lines() {
        let mut lost = node("evil\nFORGED-HOST", |_| {});
        lost.calibrated = false;
        lost.model = None;
        lost.error = Some("boom\nFORGED-ERROR \u{1b}[2J".into());
        let nodes = vec![
            node("a\u{1b}[31m", |_| {}),
            node("b", |_| {}),
            node("c\u{9b}2J", |_| {}),
            lost,
        ];
        let r = build(Path::new("r"), nodes, &FleetOptions::default());
        for format in [Format::Table, Format::Csv, Format::Json] {
            let text = render(&r, format).unwrap();
            let raw = text
                .chars()
                .find(|&c| crate::error::needs_escape(c) && c != '\n');
            assert_eq!(raw, None, "{format:?}:\n{text}");
        }
        let table = render(&r, Format::Table).unwrap();
        assert!(!table.lines().any(|l| l.starts_with("FORGED")), "{table}");
        assert!(table.contains("boom"), "{table}");
    }

    /// Issue 46, item 6: a trace's `mpi.stack.summary` holding `\nFAKE` printed a line of its
    /// own among the machine facts, and the manifest's `simulated` split the header.
    #[test]
    fn machine_facts_and_the_simulated_header_stay_on_their_lines() {
        let odd = |host: &str, stack: &str| {
            let mut n = node(host, |_| {});
            n.facts = Some(crate::fleet::facts::Facts {
                mpi_stack: stack.into(),
                ..Default::default()
            });
            n
        };
        let nodes = vec![
            odd("a", "ob1"),
            odd("b", "ob1"),
            odd("c", "ob1"),
            odd("d", "ob1\nFAKE fact"),
        ];
        let opts = FleetOptions {
            simulated: Some("paper:henri\nFAKE header".into()),
            ..FleetOptions::default()
        };
        let r = build(Path::new("r"), nodes, &opts);
        let table = render(&r, Format::Table).unwrap();
        assert!(table.contains("FAKE fact"), "{table}");
        assert!(!table.lines().any(|l| l.starts_with("FAKE")), "{table}");
    }

    #[test]
    fn a_slope_that_changes_no_prediction_says_so() {
        // henri's delta_r acts beyond N_seq^max, its last core: 500 MB/s per core there is
        // outside the band and changes nothing the node predicts.
        let nodes = vec![
            node("a", |_| {}),
            node("b", |_| {}),
            node("c", |_| {}),
            node("d", |m| m.local.delta_r = 500.0),
        ];
        let r = build(Path::new("r"), nodes, &FleetOptions::default());
        let table = render(&r, Format::Table).unwrap();
        let line = table
            .lines()
            .find(|l| l.contains("local.delta_r") && l.contains("median"))
            .unwrap_or_else(|| panic!("{table}"));
        assert!(
            line.contains("at the fleet's median it predicts the same bandwidths (within 0.00 %"),
            "{line}"
        );
        let json = render(&r, Format::Json).unwrap();
        assert!(json.contains("\"why\": \"same_curve\""), "{json}");
    }
}
