//! Network contention between concurrent communications: the dynamic contention graphs of
//! Martinasso and Méhaut, "A Contention-Aware Performance Model for HPC-Based Networks: A Case
//! Study of the InfiniBand Network" (Euro-Par 2011).
//!
//! - [`Graph`]: the communications (section 3.1: nodes are cluster nodes, edges are
//!   communications; parallel edges allowed, self-loops not) and the link's `alpha`.
//! - `solver`: the sequence of linear models of section 3.2 (equations 1-3), [`solver::solve`].
//! - `penalty`: the penalty coefficients of each step: the InfiniBand model of section 4.2
//!   (equation 4), max-min fair sharing, or explicit values.
//!
//! Pure: no I/O. Files are read by `io::graph_file`.

pub(crate) mod penalty;
pub(crate) mod solver;

use serde::{Deserialize, Serialize};
use std::collections::HashSet;

pub use penalty::{Explicit, FairShare, InfiniBand, PenaltyError, PenaltyModel};
pub use solver::Step;
pub use solver::{solve, Solution, StepEntry};

/// One communication: an edge of the contention graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Communication {
    /// Name shown in the output (the paper's Figure 3 uses `a`..`f`).
    pub id: String,
    /// Sending cluster node.
    pub src: String,
    /// Receiving cluster node.
    pub dst: String,
    /// Message size in bytes (`m_i` of equation 2).
    pub bytes: f64,
    /// When the communication starts, in seconds.
    #[serde(default)]
    pub start: f64,
}

/// A dynamic contention graph (section 3.1) with the network's `alpha`, the inverse of the
/// bandwidth of a communication alone (seconds per byte, equation 1).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Graph {
    pub alpha: f64,
    pub communications: Vec<Communication>,
}

/// A rule of the graph that a value breaks, naming the field (`communications[2].dst`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphProblem {
    pub(crate) field: String,
    pub(crate) rule: String,
}

impl std::fmt::Display for GraphProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.rule)
    }
}

/// Bounds of a graph's values: `alpha` for links from 1 B/s to 10^18 B/s, at most 10^18
/// bytes (an exabyte) per communication, start times within 10^9 s (32 years): every time the
/// solver computes then stays finite, and near 10^9 s a double still resolves 10^-7 s.
pub const MIN_ALPHA: f64 = 1e-18;
pub const MAX_ALPHA: f64 = 1.0;
pub(crate) const MAX_BYTES: f64 = 1e18;
pub(crate) const MAX_START: f64 = 1e9;

impl Graph {
    /// Every rule the graph breaks: `alpha` positive, at least one communication, ids unique
    /// and non-empty, sizes positive, start times non-negative, no self-loop (section 3.1:
    /// communications inside a node are not modelled).
    ///
    /// Values are bounded, not only positive: a subnormal `alpha` or `bytes` (`5e-324`) made
    /// the solver's steps too small to move time forward.
    pub fn problems(&self) -> Vec<GraphProblem> {
        let mut out = Vec::new();
        if let Some(rule) = alpha_problem(self.alpha) {
            out.push(GraphProblem {
                field: "alpha".into(),
                rule,
            });
        }
        if self.communications.is_empty() {
            out.push(GraphProblem {
                field: "communications".into(),
                rule: "must hold at least one communication".into(),
            });
        }
        let mut ids = HashSet::new();
        for (i, c) in self.communications.iter().enumerate() {
            let repeated = !c.id.trim().is_empty() && !ids.insert(c.id.as_str());
            out.extend(
                c.problems(repeated)
                    .into_iter()
                    .map(|(f, rule)| GraphProblem {
                        field: format!("communications[{i}].{f}"),
                        rule,
                    }),
            );
        }
        out
    }
}

/// Why `alpha` (seconds per byte of the link) is refused, `None` when it is valid.
fn alpha_problem(alpha: f64) -> Option<String> {
    if !(alpha.is_finite() && alpha > 0.0) {
        Some(format!(
            "must be a positive number of seconds per byte, not {alpha}"
        ))
    } else if !(MIN_ALPHA..=MAX_ALPHA).contains(&alpha) {
        Some(format!(
            "{alpha} s/B is outside {MIN_ALPHA:e}..{MAX_ALPHA:e} s/B (a link between 1 B/s \
             and 10^18 B/s)"
        ))
    } else {
        None
    }
}

impl Communication {
    /// The rules one communication breaks, as (field, rule), in the order of its fields;
    /// `repeated` when an earlier communication has its id.
    fn problems(&self, repeated: bool) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if self.id.trim().is_empty() {
            out.push(("id", "must not be empty".to_string()));
        } else if repeated {
            out.push((
                "id",
                format!("`{}` is used by an earlier communication", self.id),
            ));
        }
        if self.src == self.dst {
            out.push((
                "dst",
                format!(
                    "is the source node `{}`: communications inside a node are not modelled",
                    self.src
                ),
            ));
        }
        if !(self.bytes.is_finite() && self.bytes > 0.0) {
            out.push((
                "bytes",
                format!("must be a positive size, not {}", self.bytes),
            ));
        } else if !(1.0..=MAX_BYTES).contains(&self.bytes) {
            out.push((
                "bytes",
                format!("{} is outside 1..{MAX_BYTES:e} bytes", self.bytes),
            ));
        }
        if !(self.start.is_finite() && self.start >= 0.0) {
            out.push((
                "start",
                format!("must be a time in seconds >= 0, not {}", self.start),
            ));
        } else if self.start > MAX_START {
            out.push((
                "start",
                format!(
                    "{} s is beyond {MAX_START:e} s: so far from 0 that a transfer's time \
                     would be lost to rounding; shift the start times",
                    self.start
                ),
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn comm(id: &str, src: &str, dst: &str, bytes: f64, start: f64) -> Communication {
        Communication {
            id: id.into(),
            src: src.into(),
            dst: dst.into(),
            bytes,
            start,
        }
    }

    #[test]
    fn problems_name_the_field() {
        let g = Graph {
            alpha: 0.0,
            communications: vec![
                comm("a", "n0", "n1", 1.0, 0.0),
                comm("a", "n1", "n1", -1.0, -2.0),
            ],
        };
        let p: Vec<String> = g.problems().iter().map(|p| p.to_string()).collect();
        assert_eq!(p.len(), 5, "{p:?}");
        assert!(p[0].starts_with("alpha:"));
        assert!(p[1].starts_with("communications[1].id: `a` is used"));
        assert!(p[2].starts_with("communications[1].dst: is the source node `n1`"));
        assert!(p[3].starts_with("communications[1].bytes"));
        assert!(p[4].starts_with("communications[1].start"));
        let ok = Graph {
            alpha: 1e-9,
            communications: vec![comm("a", "n0", "n1", 1.0, 0.0)],
        };
        assert!(ok.problems().is_empty());
    }
}
