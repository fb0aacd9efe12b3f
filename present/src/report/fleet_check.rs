//! The report of `check --fleet` ([`FleetCheck`]) as a [`Report`]: the rule's origin (the
//! fleet's pooled spread, where it has one), one block per node with its verdict, largest
//! drift and the parameters that moved; CSV of one row per node; JSON
//! the [`FleetCheck`] as it is.

use crate::check::fleet::{FleetCheck, FLEET_CHECK_SCHEMA_VERSION};
use crate::error::escape_line;
use crate::report::{indented, Report};
use std::fmt::Write;

/// Goes out through `crate::report::emit`; no notes: the failures end the command's
/// error message (exit 1).
impl Report for FleetCheck {
    const SCHEMA_VERSION: u32 = FLEET_CHECK_SCHEMA_VERSION;

    /// One block per node: its verdict, largest drift and the parameters that moved.
    fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "# {}", self.header.tool.summary());
        if let Some(s) = &self.simulated {
            let _ = writeln!(
                out,
                "# SIMULATED fleets, not measurements of real nodes: {}",
                escape_line(s)
            );
        }
        let _ = writeln!(
            out,
            "check of the fleet in {} against the saved fleet {}, node by node",
            escape_line(&self.new),
            escape_line(&self.saved)
        );
        if let Some(p) = &self.pooled {
            let _ = writeln!(
                out,
                "drift limits from the fleet's spread between runs, pooled over {} nodes \
                 measured twice in either survey{}",
                p.nodes_measured_twice,
                if p.fleet_shift_taken_out {
                    format!(
                        "; each node's drift measured beyond the fleet's common drift (the \
                         median of {} nodes)",
                        p.nodes_compared
                    )
                } else {
                    String::new()
                }
            );
        }
        for n in &self.nodes {
            let _ = write!(out, "\n{}: {}", escape_line(&n.host), n.verdict.words());
            match (&n.drift, n.drift_limit_percent) {
                (Some(d), Some(l)) => {
                    let _ = writeln!(
                        out,
                        ": prediction drift max {:.2} % (limit {l:.2} %, {})",
                        d.max_drift_percent,
                        n.drift_limit_source.unwrap_or("")
                    );
                    for c in &d.changed_params {
                        let _ = writeln!(
                            out,
                            "  {:<18} {:>10.3} -> {:>10.3}  ({:.1} %)",
                            c.field, c.expected, c.new, c.change_percent
                        );
                    }
                }
                _ => {
                    let _ = writeln!(out);
                }
            }
            if let Some(e) = &n.error {
                let _ = writeln!(out, "  {}", indented(e, "  "));
            }
        }
        let _ = writeln!(out, "\nresult: {}", if self.pass { "PASS" } else { "FAIL" });
        for f in &self.failures {
            let _ = writeln!(out, "  {}", indented(f, "  "));
        }
        out
    }

    /// One row per node: `host,verdict,max_drift_percent,limit_percent,pass,simulated`
    /// (`simulated`: the simulated fleet's description, empty for real nodes).
    fn csv(&self) -> Option<String> {
        let mut w = ::csv::Writer::from_writer(Vec::new());
        w.write_record([
            "host",
            "verdict",
            "max_drift_percent",
            "limit_percent",
            "pass",
            "simulated",
        ])
        .expect("in-memory CSV");
        let simulated = self.simulated.clone().unwrap_or_default();
        for n in &self.nodes {
            let num = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
            w.write_record([
                n.host.clone(),
                serde_json::to_value(n.verdict)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default(),
                num(n.drift.as_ref().map(|d| d.max_drift_percent)),
                num(n.drift_limit_percent),
                (!n.verdict.fails()).to_string(),
                simulated.clone(),
            ])
            .expect("in-memory CSV");
        }
        Some(String::from_utf8(w.into_inner().expect("in-memory CSV")).expect("CSV of UTF-8"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::fleet::{NodeCheck, Verdict};
    use crate::report::{render, Format};

    /// A saved report's host names and a node's error are any text: in the table each stays
    /// on its own line (a host `x\nresult: PASS` printed a second verdict), and no format
    /// prints a control character raw.
    #[test]
    fn hosts_and_errors_cannot_drive_the_terminal_or_forge_the_verdict() {
        let node = |host: &str, verdict, error: Option<&str>| NodeCheck {
            host: host.into(),
            verdict,
            drift_limit_percent: None,
            drift_limit_source: None,
            drift: None,
            error: error.map(str::to_string),
        };
        let check = FleetCheck {
            header: crate::header::Header::new(FLEET_CHECK_SCHEMA_VERSION),
            units: crate::units::UNITS,
            saved: "saved".into(),
            new: "new".into(),
            nodes: vec![
                node("evil\nresult: PASS", Verdict::MissingInNew, None),
                node(
                    "n2\u{1b}[31m",
                    Verdict::NotCalibrated,
                    Some("no traces\nresult: PASS\u{9b}2J"),
                ),
            ],
            failures: vec!["evil\nresult: PASS: FAIL".into()],
            pooled: None,
            fleet_moved: None,
            pass: false,
            simulated: None,
        };
        for format in [Format::Table, Format::Csv, Format::Json] {
            let text = render(&check, format).unwrap();
            let raw = text
                .chars()
                .find(|&c| crate::error::needs_escape(c) && c != '\n');
            assert_eq!(raw, None, "{format:?}:\n{text}");
        }
        let table = render(&check, Format::Table).unwrap();
        let verdicts: Vec<&str> = table.lines().filter(|l| l.starts_with("result:")).collect();
        assert_eq!(verdicts, ["result: FAIL"], "{table}");
    }
}
