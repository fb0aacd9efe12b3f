//! Equations 7 and 8 (section 3.3; Algorithms 3 and 4 of Appendix A): which parameter set
//! predicts each stream for a placement of the computation data on node `m_comp` and the
//! communication data on node `m_comm`.

use super::bandwidth::curve;
use super::params::{Model, Params};
use super::total::CurvePoint;
use serde::Serialize;
use std::fmt;

/// Where the data of each stream lives, as hwloc logical NUMA indices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Placement {
    pub comp_numa: u32,
    pub comm_numa: u32,
}

impl Placement {
    /// Both streams' data on one node: the case where contention bites (section 4.2).
    pub fn shares_node(&self) -> bool {
        self.comp_numa == self.comm_numa
    }
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.comp_numa, self.comm_numa)
    }
}

/// Which parameter set a stream's prediction came from, reported so users can see why two
/// placements predict the same numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    Local,
    Remote,
    /// `M_local` with `B_seq^comm` of `M_remote`: equation 7, second case.
    LocalWithRemoteComm,
}

/// One point of a placement's prediction (MB/s), the fields of the prediction JSON
/// (docs/formats.md, "Prediction"); the JSON adds the loss ratios `Point::comp_loss`, `Point::comm_loss`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(into = "PointJson")]
pub struct Point {
    pub cores: u32,
    pub comp_alone: f64,
    pub comm_alone: f64,
    pub comp_parallel: f64,
    pub comm_parallel: f64,
}

/// The loss ratio `alone / parallel`: how many times slower a stream runs beside the other
/// (`L_M`, `L_N` of Langguth et al., the input of `contention overlap`); 1 means no loss, and
/// below 1 the stream gains. 1 when nothing runs in parallel (a zero bandwidth).
pub(crate) fn loss_ratio(alone: f64, parallel: f64) -> f64 {
    if parallel > 0.0 {
        alone / parallel
    } else {
        1.0
    }
}

impl Point {
    /// Computations' loss ratio, `comp_alone / comp_parallel`.
    pub fn comp_loss(&self) -> f64 {
        loss_ratio(self.comp_alone, self.comp_parallel)
    }

    /// Communications' loss ratio, `comm_alone / comm_parallel`.
    pub fn comm_loss(&self) -> f64 {
        loss_ratio(self.comm_alone, self.comm_parallel)
    }
}

/// A point as the prediction JSON writes it: the four bandwidths and both loss ratios.
#[derive(Serialize)]
struct PointJson {
    cores: u32,
    comp_alone: f64,
    comm_alone: f64,
    comp_parallel: f64,
    comm_parallel: f64,
    comp_loss: f64,
    comm_loss: f64,
}

impl From<Point> for PointJson {
    fn from(p: Point) -> Self {
        PointJson {
            cores: p.cores,
            comp_alone: p.comp_alone,
            comm_alone: p.comm_alone,
            comp_parallel: p.comp_parallel,
            comm_parallel: p.comm_parallel,
            comp_loss: p.comp_loss(),
            comm_loss: p.comm_loss(),
        }
    }
}

/// A placement's prediction for the requested core counts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlacementPrediction {
    pub comp_numa: u32,
    pub comm_numa: u32,
    /// Both data on one node (marked in the table: that is where contention bites).
    pub shared_node: bool,
    pub comp_model: Source,
    pub comm_model: Source,
    pub points: Vec<Point>,
}

/// Why a prediction cannot be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PredictError {
    /// A NUMA node the machine does not have.
    NoSuchNode { node: u32, numa_nodes: u32 },
    /// A node on another socket, but the model has no `remote` parameter set.
    NoRemote { node: u32, numa_per_socket: u32 },
    /// More computing cores than one socket has.
    TooManyCores { cores: u32, cores_per_socket: u32 },
    /// More predictions than `MAX_PREDICTIONS` in one call.
    TooMuchWork { placements: usize, cores: usize },
    /// `predict --intervals`: more refitted predictions than `MAX_INTERVAL_PREDICTIONS`.
    TooMuchIntervalWork {
        placements: usize,
        cores: usize,
        replicates: usize,
    },
}

/// The most placement-and-core-count predictions one call makes (about a million, a few
/// hundred MiB of report): a model of 1024 NUMA nodes and 4096 cores per socket would
/// otherwise ask for 4 billion and run out of memory. The paper's largest machine needs 288.
pub(crate) const MAX_PREDICTIONS: usize = 1 << 20;

/// The most predictions `predict --intervals` makes from the bootstrap's refits at once
/// (rows x refits, 4,194,304: about 250 MB held while the intervals are drawn): each row's
/// interval is drawn from every refit's prediction of it, so the refits, not the rows, are
/// the work. [`MAX_PREDICTIONS`] alone let a model of 1024 NUMA nodes predict a million rows
/// 200 times over (3 GB of memory, 1 GB of output). 200 refits leave 20,971 rows, 70 times
/// the paper's largest machine.
pub(crate) const MAX_INTERVAL_PREDICTIONS: usize = 1 << 22;

/// Refuses, before anything is computed, intervals for `placements` x `cores` rows from
/// `replicates` refits past `MAX_INTERVAL_PREDICTIONS`.
pub fn check_interval_work(
    placements: usize,
    cores: usize,
    replicates: usize,
) -> Result<(), PredictError> {
    let work = placements.saturating_mul(cores).saturating_mul(replicates);
    if work > MAX_INTERVAL_PREDICTIONS {
        return Err(PredictError::TooMuchIntervalWork {
            placements,
            cores,
            replicates,
        });
    }
    Ok(())
}

impl fmt::Display for PredictError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PredictError::NoSuchNode { node, numa_nodes } => write!(
                f,
                "NUMA node {node} does not exist: the model's machine has nodes 0..{}",
                numa_nodes - 1
            ),
            PredictError::NoRemote {
                node,
                numa_per_socket,
            } => write!(
                f,
                "NUMA node {node} is on another socket, but the model has no `remote` parameters: \
                 only nodes 0..{} (the first socket) can be predicted; calibrate with a trace \
                 measured with both data on node {numa_per_socket} to add them",
                numa_per_socket - 1
            ),
            PredictError::TooManyCores {
                cores,
                cores_per_socket,
            } => write!(
                f,
                "{cores} computing cores is beyond the {cores_per_socket} cores of one socket: \
                 the model covers the computing cores of the first socket (section 2.2); use \
                 --ncores 1..{cores_per_socket}"
            ),
            PredictError::TooMuchWork { placements, cores } => write!(
                f,
                "{placements} placements x {cores} core counts is {} predictions, more than the \
                 {MAX_PREDICTIONS} this tool makes at once; pick one placement (--placement \
                 COMP,COMM) or fewer core counts (--ncores)",
                placements.saturating_mul(cores)
            ),
            PredictError::TooMuchIntervalWork {
                placements,
                cores,
                replicates,
            } => write!(
                f,
                "--intervals: {placements} placements x {cores} core counts, each predicted \
                 by the model file's {replicates} bootstrap refits, is {} predictions, more \
                 than the {MAX_INTERVAL_PREDICTIONS} this tool makes at once for intervals; \
                 pick one placement (--placement COMP,COMM) or fewer core counts (--ncores), \
                 or leave out --intervals",
                placements.saturating_mul(cores).saturating_mul(replicates)
            ),
        }
    }
}

impl std::error::Error for PredictError {}

/// The three curves a model can need, computed once for all placements.
struct Curves {
    local: Vec<CurvePoint>,
    remote: Option<Vec<CurvePoint>>,
    local_with_remote_comm: Option<Vec<CurvePoint>>,
}

impl Curves {
    fn new(model: &Model, max_cores: u32) -> Self {
        let remote = model.remote.as_ref();
        Curves {
            local: curve(&model.local, max_cores),
            remote: remote.map(|r| curve(r, max_cores)),
            local_with_remote_comm: remote.map(|r| {
                let p = Params {
                    b_seq_comm: r.b_seq_comm,
                    ..model.local
                };
                curve(&p, max_cores)
            }),
        }
    }

    fn get(&self, source: Source) -> &[CurvePoint] {
        let curve = match source {
            Source::Local => Some(&self.local),
            Source::Remote => self.remote.as_ref(),
            Source::LocalWithRemoteComm => self.local_with_remote_comm.as_ref(),
        };
        // `check_node` refused every remote node before a curve is asked for, so a remote
        // parameter set exists whenever a remote source is selected.
        curve.map(Vec::as_slice).unwrap_or(&self.local)
    }
}

/// Equation 7: the parameter set for communications.
fn comm_source(model: &Model, p: Placement) -> Source {
    if !model.is_local(p.comp_numa) && p.shares_node() {
        Source::Remote
    } else if !model.is_local(p.comm_numa) {
        Source::LocalWithRemoteComm
    } else {
        Source::Local
    }
}

/// Equation 8: the parameter set for computations (whether it is the parallel or the alone
/// bandwidth depends on [`Placement::shares_node`]).
fn comp_source(model: &Model, p: Placement) -> Source {
    if model.is_local(p.comp_numa) {
        Source::Local
    } else {
        Source::Remote
    }
}

fn check_node(model: &Model, node: u32) -> Result<(), PredictError> {
    let m = &model.machine;
    if node >= m.numa_nodes {
        Err(PredictError::NoSuchNode {
            node,
            numa_nodes: m.numa_nodes,
        })
    } else if node >= model.predictable_nodes() {
        Err(PredictError::NoRemote {
            node,
            numa_per_socket: m.numa_per_socket,
        })
    } else {
        Ok(())
    }
}

/// Every placement a model can predict, in the paper's figure order: communication node
/// by row, computation node by column. Without `remote`, the first socket's nodes only.
pub fn all_placements(model: &Model) -> Vec<Placement> {
    let nodes = model.predictable_nodes();
    (0..nodes)
        .flat_map(|comm_numa| {
            (0..nodes).map(move |comp_numa| Placement {
                comp_numa,
                comm_numa,
            })
        })
        .collect()
}

/// Predicts each placement at each core count (ascending, each in `1..=cores_per_socket`).
///
/// The model must have passed [`Model::problems`]; this function does no I/O.
pub fn predict(
    model: &Model,
    placements: &[Placement],
    cores: &[u32],
) -> Result<Vec<PlacementPrediction>, PredictError> {
    let cores_per_socket = model.machine.cores_per_socket;
    if let Some(&n) = cores.iter().find(|&&n| n == 0 || n > cores_per_socket) {
        return Err(PredictError::TooManyCores {
            cores: n,
            cores_per_socket,
        });
    }
    if placements.len().saturating_mul(cores.len()) > MAX_PREDICTIONS {
        return Err(PredictError::TooMuchWork {
            placements: placements.len(),
            cores: cores.len(),
        });
    }
    for p in placements {
        check_node(model, p.comp_numa)?;
        check_node(model, p.comm_numa)?;
    }
    let max = cores.iter().copied().max().unwrap_or(0);
    let curves = Curves::new(model, max);
    let b_seq_comm = |node: u32| match (&model.remote, model.is_local(node)) {
        (Some(r), false) => r.b_seq_comm,
        _ => model.local.b_seq_comm,
    };
    Ok(placements
        .iter()
        .map(|&p| {
            let (comp_model, comm_model) = (comp_source(model, p), comm_source(model, p));
            let (comp, comm) = (curves.get(comp_model), curves.get(comm_model));
            let comm_alone = b_seq_comm(p.comm_numa);
            let points = cores
                .iter()
                .map(|&n| {
                    let (c, m) = (&comp[n as usize - 1], &comm[n as usize - 1]);
                    Point {
                        cores: n,
                        comp_alone: c.comp_alone,
                        comm_alone,
                        comp_parallel: if p.shares_node() {
                            c.comp_parallel
                        } else {
                            c.comp_alone
                        },
                        comm_parallel: m.comm_parallel,
                    }
                })
                .collect();
            PlacementPrediction {
                comp_numa: p.comp_numa,
                comm_numa: p.comm_numa,
                shared_node: p.shares_node(),
                comp_model,
                comm_model,
                points,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Machine;

    fn params(b_seq_comm: f64, t: f64) -> Params {
        Params {
            n_par_max: 4,
            t_par_max: t,
            n_seq_max: 6,
            t_seq_max: t * 0.95,
            t_par_max2: t * 0.98,
            alpha: 0.8,
            delta_l: 10.0,
            delta_r: 5.0,
            b_seq_comp: t / 5.0,
            b_seq_comm,
            law: crate::Law::Paper,
        }
    }

    fn subnuma() -> Model {
        Model {
            schema_version: 1,
            machine: Machine {
                name: "synthetic".into(),
                numa_nodes: 4,
                numa_per_socket: 2,
                cores_per_socket: 8,
            },
            variant: crate::Variant::Paper,
            local: params(10000.0, 40000.0),
            remote: Some(params(7000.0, 15000.0)),
        }
    }

    #[test]
    fn sources_follow_equations_7_and_8() {
        let m = subnuma();
        let src = |c, k| {
            let p = Placement {
                comp_numa: c,
                comm_numa: k,
            };
            (comp_source(&m, p), comm_source(&m, p))
        };
        use Source::*;
        assert_eq!(src(0, 0), (Local, Local));
        assert_eq!(src(0, 1), (Local, Local));
        assert_eq!(src(1, 2), (Local, LocalWithRemoteComm));
        assert_eq!(src(2, 2), (Remote, Remote));
        assert_eq!(src(2, 3), (Remote, LocalWithRemoteComm));
        assert_eq!(src(3, 0), (Remote, Local));
    }

    #[test]
    fn comm_alone_is_b_seq_comm_of_the_comm_nodes_side() {
        let m = subnuma();
        let all = predict(&m, &all_placements(&m), &[1, 8]).unwrap();
        assert_eq!(all.len(), 16);
        for pp in &all {
            let expected = if pp.comm_numa < 2 { 10000.0 } else { 7000.0 };
            assert!(pp.points.iter().all(|pt| pt.comm_alone == expected));
        }
    }

    #[test]
    fn refuses_missing_nodes_remote_and_cores() {
        let mut m = subnuma();
        let one = |c, k| {
            [Placement {
                comp_numa: c,
                comm_numa: k,
            }]
        };
        assert_eq!(
            predict(&m, &one(0, 4), &[1]),
            Err(PredictError::NoSuchNode {
                node: 4,
                numa_nodes: 4
            })
        );
        assert_eq!(
            predict(&m, &one(0, 0), &[9]),
            Err(PredictError::TooManyCores {
                cores: 9,
                cores_per_socket: 8
            })
        );
        m.remote = None;
        assert_eq!(all_placements(&m).len(), 4);
        let err = predict(&m, &one(2, 0), &[1]).unwrap_err();
        assert!(err.to_string().contains("no `remote`"), "{err}");
    }
}
