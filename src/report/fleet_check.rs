//! The report of `check --fleet` ([`FleetCheck`]) as a [`Report`]: one block per node with
//! its verdict, largest drift and the parameters that moved; CSV of one row per node; JSON
//! the [`FleetCheck`] as it is.

use crate::check::fleet::{FleetCheck, FLEET_CHECK_SCHEMA_VERSION};
use crate::report::Report;
use std::fmt::Write;

/// Goes out through [`crate::report::emit`]; no notes: the failures end the command's
/// error message (exit 1).
impl Report for FleetCheck {
    const SCHEMA_VERSION: u32 = FLEET_CHECK_SCHEMA_VERSION;

    /// One block per node: its verdict, largest drift and the parameters that moved.
    fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "# {}", self.tool.summary());
        if let Some(s) = &self.simulated {
            let _ = writeln!(
                out,
                "# SIMULATED fleets, not measurements of real nodes: {}",
                crate::error::escape(s)
            );
        }
        let _ = writeln!(
            out,
            "check of the fleet in {} against the saved fleet {}, node by node",
            self.new, self.saved
        );
        for n in &self.nodes {
            let _ = write!(out, "\n{}: {}", n.host, n.verdict.words());
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
                let _ = writeln!(out, "  {e}");
            }
        }
        let _ = writeln!(out, "\nresult: {}", if self.pass { "PASS" } else { "FAIL" });
        for f in &self.failures {
            let _ = writeln!(out, "  {f}");
        }
        out
    }

    /// One row per node: `host,verdict,max_drift_percent,limit_percent,pass,simulated`
    /// (`simulated`: the simulated fleet's description, empty for real nodes).
    fn csv(&self) -> Option<String> {
        let mut out = String::from("host,verdict,max_drift_percent,limit_percent,pass,simulated\n");
        let simulated = self.simulated.clone().unwrap_or_default();
        for n in &self.nodes {
            let num = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
            let _ = writeln!(
                out,
                "{},{},{},{},{},{}",
                n.host,
                serde_json::to_value(n.verdict)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default(),
                num(n.drift.as_ref().map(|d| d.max_drift_percent)),
                num(n.drift_limit_percent),
                !n.verdict.fails(),
                csv_field(&simulated)
            );
        }
        Some(out)
    }
}

/// A CSV field: quoted when it holds a comma, a quote or a line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
