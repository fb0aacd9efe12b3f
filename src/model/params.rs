//! The model's typed parameters, as the model file stores them (README, "File formats"), and
//! the rules a parameter set must obey before the equations may use it.
//!
//! Validation is pure: it returns every broken rule with the field it concerns, and the I/O
//! layer ([`crate::io::model_file`]) adds the file name.

use super::constraints::{MAX_BANDWIDTH, MIN_BANDWIDTH};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The only model-file schema this build reads and writes.
pub const SCHEMA_VERSION: u32 = 1;

/// Bounds no real machine reaches, so that a corrupt file (`cores_per_socket: 4294967295`)
/// is refused instead of making the tool allocate a prediction for every core count.
pub const MAX_CORES_PER_SOCKET: u32 = crate::cores::MAX_COUNT;
pub const MAX_NUMA_NODES: u32 = 1024;

/// What the model needs to know of the machine: how NUMA nodes group into sockets, and how
/// many computing cores one socket has (the model covers one socket's cores, section 2.2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    pub name: String,
    /// NUMA nodes of the whole machine, numbered like hwloc's logical indices.
    pub numa_nodes: u32,
    /// NUMA nodes per socket: nodes `0 .. numa_per_socket-1` are local to the computing cores
    /// (`#m` in section 3.3).
    pub numa_per_socket: u32,
    pub cores_per_socket: u32,
}

/// One instantiation of the model (`M_local` or `M_remote`), the ten parameters of section 3.1.
/// Bandwidths in MB/s (10^6 bytes/s), core counts are computing cores of the first socket.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Params {
    /// `N_par^max`: core count where computations + communications in parallel peak.
    pub n_par_max: u32,
    /// `T_par^max`: that peak total bandwidth.
    pub t_par_max: f64,
    /// `N_seq^max`: core count where computations alone peak.
    pub n_seq_max: u32,
    /// `T_seq^max`: that peak bandwidth of computations alone.
    pub t_seq_max: f64,
    /// `T_par^max2`: total bandwidth in parallel with `N_seq^max` computing cores.
    pub t_par_max2: f64,
    /// `alpha`: the worst-case share of `B_seq^comm` left to communications.
    pub alpha: f64,
    /// `delta_l`: total bandwidth lost per core between `N_par^max` and `N_seq^max`.
    pub delta_l: f64,
    /// `delta_r`: total bandwidth lost per core beyond `N_seq^max` (negative: gained).
    pub delta_r: f64,
    /// `B_seq^comp`: bandwidth of one computing core alone.
    pub b_seq_comp: f64,
    /// `B_seq^comm`: bandwidth of communications alone.
    pub b_seq_comm: f64,
}

/// A whole model file: the machine and its local and (on multi-socket machines) remote
/// parameter sets. Fields beyond these are allowed in the file and ignored here, so later
/// versions of `calibrate` can add provenance without breaking older readers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Model {
    pub schema_version: u32,
    pub machine: Machine,
    pub local: Params,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote: Option<Params>,
}

/// One broken rule: the dotted field path (`local.alpha`), the value seen and the rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub field: String,
    pub value: String,
    pub rule: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.value.is_empty() {
            write!(f, "{}: {}", self.field, self.rule)
        } else {
            write!(f, "{} = {}: {}", self.field, self.value, self.rule)
        }
    }
}

fn problem(field: String, value: impl fmt::Display, rule: &str) -> Problem {
    Problem {
        field,
        value: value.to_string(),
        rule: rule.to_string(),
    }
}

impl Params {
    /// Every rule of one parameter set broken, fields prefixed with `side` (`local`/`remote`).
    pub fn problems(&self, side: &str, cores_per_socket: u32) -> Vec<Problem> {
        let mut out = Vec::new();
        let f = |name: &str| format!("{side}.{name}");
        let bandwidths = [
            ("t_par_max", self.t_par_max),
            ("t_seq_max", self.t_seq_max),
            ("t_par_max2", self.t_par_max2),
            ("b_seq_comp", self.b_seq_comp),
            ("b_seq_comm", self.b_seq_comm),
        ];
        for (name, v) in bandwidths {
            if !v.is_finite() {
                out.push(problem(
                    f(name),
                    v,
                    "a bandwidth must be a finite number (MB/s)",
                ));
            } else if v <= 0.0 {
                out.push(problem(f(name), v, "a bandwidth must be > 0 MB/s"));
            } else if !(MIN_BANDWIDTH..=MAX_BANDWIDTH).contains(&v) {
                out.push(problem(
                    f(name),
                    v,
                    &format!(
                        "a bandwidth must be between {MIN_BANDWIDTH} and {MAX_BANDWIDTH:e} MB/s"
                    ),
                ));
            }
        }
        for (name, v) in [("delta_l", self.delta_l), ("delta_r", self.delta_r)] {
            if !v.is_finite() || v.abs() > MAX_BANDWIDTH {
                out.push(problem(
                    f(name),
                    v,
                    &format!(
                        "must be a finite number within ±{MAX_BANDWIDTH:e} (MB/s per core; it \
                         may be negative)"
                    ),
                ));
            }
        }
        if !(self.alpha > 0.0 && self.alpha <= 1.0) {
            out.push(problem(
                f("alpha"),
                self.alpha,
                "must be in (0, 1]: it is the worst-case fraction of b_seq_comm left to communications",
            ));
        }
        for (name, v) in [("n_par_max", self.n_par_max), ("n_seq_max", self.n_seq_max)] {
            if v < 1 {
                out.push(problem(f(name), v, "a core count must be >= 1"));
            } else if v > cores_per_socket {
                out.push(problem(
                    f(name),
                    v,
                    &format!("must not exceed machine.cores_per_socket ({cores_per_socket})"),
                ));
            }
        }
        if out.is_empty() {
            out = super::constraints::problems(self, side, cores_per_socket);
        }
        out
    }
}

impl Model {
    /// Every rule the model breaks; empty when the equations may use it.
    pub fn problems(&self) -> Vec<Problem> {
        let mut out = Vec::new();
        if self.schema_version != SCHEMA_VERSION {
            out.push(problem(
                "schema_version".into(),
                self.schema_version,
                &format!("this build reads schema version {SCHEMA_VERSION} only"),
            ));
        }
        let m = &self.machine;
        if m.name.chars().any(char::is_control) {
            out.push(problem(
                "machine.name".into(),
                crate::error::escape(&format!("{:?}", m.name)),
                "must not hold control characters: the name is printed to terminals",
            ));
        }
        for (name, v, max) in [
            ("numa_nodes", m.numa_nodes, MAX_NUMA_NODES),
            ("numa_per_socket", m.numa_per_socket, MAX_NUMA_NODES),
            ("cores_per_socket", m.cores_per_socket, MAX_CORES_PER_SOCKET),
        ] {
            if v < 1 || v > max {
                out.push(problem(
                    format!("machine.{name}"),
                    v,
                    &format!("must be between 1 and {max}"),
                ));
            }
        }
        if m.numa_per_socket >= 1 && !m.numa_nodes.is_multiple_of(m.numa_per_socket) {
            out.push(problem(
                "machine.numa_per_socket".into(),
                m.numa_per_socket,
                &format!(
                    "must divide machine.numa_nodes ({}): every socket has the same number of NUMA nodes",
                    m.numa_nodes
                ),
            ));
        }
        out.extend(self.local.problems("local", m.cores_per_socket));
        if let Some(remote) = &self.remote {
            out.extend(remote.problems("remote", m.cores_per_socket));
        }
        out
    }

    /// Whether a NUMA node (hwloc logical index) is on the first socket, the one whose cores
    /// compute: `m < #m` in equations 7 and 8.
    pub fn is_local(&self, numa: u32) -> bool {
        numa < self.machine.numa_per_socket
    }

    /// The NUMA nodes placements may use: all of them with a remote parameter set, the first
    /// socket's only without one.
    pub fn predictable_nodes(&self) -> u32 {
        if self.remote.is_some() {
            self.machine.numa_nodes
        } else {
            self.machine.numa_per_socket.min(self.machine.numa_nodes)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn henri_local() -> Params {
        Params {
            n_par_max: 17,
            t_par_max: 73423.0,
            n_seq_max: 18,
            t_seq_max: 72589.9,
            t_par_max2: 73387.7,
            alpha: 0.915,
            delta_l: 35.3,
            delta_r: 0.0,
            b_seq_comp: 4455.4,
            b_seq_comm: 11481.1,
        }
    }

    fn model() -> Model {
        Model {
            schema_version: 1,
            machine: Machine {
                name: "t".into(),
                numa_nodes: 2,
                numa_per_socket: 1,
                cores_per_socket: 18,
            },
            local: henri_local(),
            remote: Some(henri_local()),
        }
    }

    fn fields(m: &Model) -> Vec<String> {
        m.problems().into_iter().map(|p| p.field).collect()
    }

    #[test]
    fn a_paper_parameter_set_is_valid() {
        assert!(model().problems().is_empty());
    }

    #[test]
    fn each_rule_names_its_field() {
        let mut m = model();
        m.local.alpha = 0.0;
        m.local.b_seq_comm = -1.0;
        m.local.delta_l = -38.4; // allowed: the paper has a negative delta
        m.local.delta_r = f64::NAN;
        m.local.t_par_max = f64::INFINITY;
        m.remote.as_mut().unwrap().n_seq_max = 0;
        m.remote.as_mut().unwrap().n_par_max = 19;
        m.machine.numa_per_socket = 3;
        assert_eq!(
            fields(&m),
            [
                "machine.numa_per_socket",
                "local.t_par_max",
                "local.b_seq_comm",
                "local.delta_r",
                "local.alpha",
                "remote.n_par_max",
                "remote.n_seq_max",
            ]
        );
        m = model();
        m.local.alpha = 1.0;
        assert!(m.problems().is_empty(), "alpha = 1 is allowed");
        m.local.alpha = 1.01;
        assert_eq!(fields(&m), ["local.alpha"]);
        m = model();
        m.schema_version = 2;
        assert_eq!(fields(&m), ["schema_version"]);
    }

    #[test]
    fn locality_follows_numa_per_socket() {
        let mut m = model();
        m.machine.numa_nodes = 4;
        m.machine.numa_per_socket = 2;
        assert!(m.is_local(1) && !m.is_local(2));
        assert_eq!(m.predictable_nodes(), 4);
        m.remote = None;
        assert_eq!(m.predictable_nodes(), 2);
    }
}
