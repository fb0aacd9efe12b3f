//! Penalty coefficients `rho >= 1` of the communications of one contention graph step
//! (section 3.3): a communication alone moves a byte in `alpha` seconds, with penalty `rho` in
//! `alpha * rho` (equation 1). A step is treated as a static-synchronous graph: its penalties
//! depend only on its shape, not on sizes or history.

use super::Communication;
use std::collections::{BTreeMap, HashMap};
use std::fmt;

/// Why a model cannot give a step's penalties (an explicit file that does not fit the graph).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PenaltyError(pub String);

impl fmt::Display for PenaltyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Gives the penalties of a step's active communications.
pub trait PenaltyModel {
    /// The penalty of each of `active` (same order), the communications of step `step`
    /// (0-based) of the dynamic graph.
    fn penalties(&self, step: usize, active: &[&Communication]) -> Result<Vec<f64>, PenaltyError>;
}

/// Which edge of a step each edge's in- and out-neighbourhoods hold, with the degrees of
/// section 4.2 (parallel edges counted, as the paper's multigraphs allow).
struct Degrees<'a> {
    edges: Vec<(&'a str, &'a str)>,
    out_deg: HashMap<&'a str, usize>,
    in_deg: HashMap<&'a str, usize>,
}

impl<'a> Degrees<'a> {
    fn new(edges: Vec<(&'a str, &'a str)>) -> Self {
        let (mut out_deg, mut in_deg) = (HashMap::new(), HashMap::new());
        for &(s, d) in &edges {
            *out_deg.entry(s).or_insert(0) += 1;
            *in_deg.entry(d).or_insert(0) += 1;
        }
        Degrees {
            edges,
            out_deg,
            in_deg,
        }
    }

    /// `delta+(v)`.
    fn out(&self, v: &str) -> usize {
        self.out_deg.get(v).copied().unwrap_or(0)
    }

    /// `delta-(v)`.
    fn inn(&self, v: &str) -> usize {
        self.in_deg.get(v).copied().unwrap_or(0)
    }

    /// `E+(e)`: the edges leaving the source of edge `e` (`e` included).
    fn out_edges(&self, e: usize) -> impl Iterator<Item = usize> + '_ {
        let s = self.edges[e].0;
        (0..self.edges.len()).filter(move |&j| self.edges[j].0 == s)
    }

    /// `E⋈(e)`: the edges into the destination of `e` from another source.
    fn rival_edges(&self, e: usize) -> impl Iterator<Item = usize> + '_ {
        let (s, d) = self.edges[e];
        (0..self.edges.len()).filter(move |&j| self.edges[j].1 == d && self.edges[j].0 != s)
    }
}

/// The InfiniBand model of section 4.2, equation 4:
/// `rho(e) = max over e' in E+(e) of delta+(s) + k(e')`, for `e = (s, d)`, with
///
/// - (a) `k(e) = 0` when the receiver is not contended: no other source sends to `d`, or
///   `delta-(d) <= delta+(s)` and every other source `s'` sending to `d` has
///   `delta+(s') = delta+(s)`;
/// - (b) `k(e) = 1 / (max rho(e') - 1)` over `e'` in `E⋈(e)`, when `delta+(s) = 1` (the
///   communication takes what the most penalized rival leaves of the receiving card);
/// - (c) otherwise `k(e) = sum over e' in E+(e), e'' = (s'', d'') in E⋈(e') of
///   1 / delta+(s'')`.
///
/// Reading of the text, checked against the worked values of Figure 2 (see the tests):
/// the second disjunct of (a), "`delta-(d') = 0`", cannot hold literally for a destination
/// of an edge; we read it as "no rival edge into the destination" (`E⋈(e)` empty), which is
/// what gives edge `(a, d)` of the third graph its `delta+(a) = 3` term. Item (c) sums over
/// all of `E+(e)`, which the text's `2 / delta+(d)` for the edges of node `a` confirms.
///
/// Item (b) refers to the penalties of its rivals; when every rival is itself an item-(b)
/// edge (several single-communication senders to one node), the text's recursion is
/// circular. We then use the fair share of the receiving card, `rho = delta-(d)`, which is
/// also the fixed point of item (b) for two such senders (`rho = 1 + 1/(rho - 1)` gives 2).
/// The paper models a step as one connected graph; the formula is local to each node's
/// neighbourhood, so we apply it to each connected part of a step alike.
#[derive(Debug, Clone, Copy, Default)]
pub struct InfiniBand;

impl InfiniBand {
    /// The penalty of each edge `(source, destination)` of one step.
    pub(crate) fn edge_penalties(edges: &[(&str, &str)]) -> Vec<f64> {
        let g = Degrees::new(edges.to_vec());
        let n = edges.len();
        let dplus = |e: usize| g.out(g.edges[e].0) as f64;
        let case_a = |e: usize| {
            let (s, d) = g.edges[e];
            let mut rivals = g.rival_edges(e).peekable();
            rivals.peek().is_none()
                || (g.inn(d) <= g.out(s) && rivals.all(|r| g.out(g.edges[r].0) == g.out(s)))
        };
        let case_b = |e: usize| !case_a(e) && g.out(g.edges[e].0) == 1;
        let k_c = |e: usize| -> f64 {
            g.out_edges(e)
                .flat_map(|e1| g.rival_edges(e1))
                .map(|e2| 1.0 / dplus(e2))
                .sum()
        };
        // k of the edges under items (a) and (c); item (b) edges are resolved after.
        let k: Vec<Option<f64>> = (0..n)
            .map(|e| {
                if case_a(e) {
                    Some(0.0)
                } else if case_b(e) {
                    None
                } else {
                    Some(k_c(e))
                }
            })
            .collect();
        let mut rho: Vec<Option<f64>> = (0..n)
            .map(|e| {
                g.out_edges(e)
                    .map(|e1| k[e1].map(|k1| dplus(e) + k1))
                    .try_fold(f64::MIN, |m, r| r.map(|r| m.max(r)))
            })
            .collect();
        for e in 0..n {
            if rho[e].is_none() {
                let worst = g
                    .rival_edges(e)
                    .filter_map(|r| rho[r].filter(|_| !case_b(r)))
                    .fold(f64::NAN, f64::max);
                rho[e] = Some(if worst.is_finite() && worst > 1.0 {
                    1.0 + 1.0 / (worst - 1.0)
                } else {
                    g.inn(g.edges[e].1) as f64
                });
            }
        }
        rho.into_iter()
            .map(|r| r.expect("every edge resolved"))
            .collect()
    }
}

impl PenaltyModel for InfiniBand {
    fn penalties(&self, _: usize, active: &[&Communication]) -> Result<Vec<f64>, PenaltyError> {
        let edges: Vec<_> = active
            .iter()
            .map(|c| (c.src.as_str(), c.dst.as_str()))
            .collect();
        Ok(Self::edge_penalties(&edges))
    }
}

/// Max-min fair sharing, the fluid model of network simulators: each node can send at the
/// link bandwidth and receive at `receive_capacity` times it (1 unless the memory model caps
/// it); rates are raised together until a node's send or receive capacity is full, the
/// communications through it are frozen, and so on (progressive filling). A rate `r` (as a
/// fraction of the link bandwidth) is the penalty `1 / r`.
#[derive(Debug, Clone, Copy)]
pub struct FairShare {
    pub receive_capacity: f64,
}

impl Default for FairShare {
    fn default() -> Self {
        FairShare {
            receive_capacity: 1.0,
        }
    }
}

impl FairShare {
    /// The max-min fair rate of each edge, as a fraction of the link bandwidth.
    pub(crate) fn rates(&self, edges: &[(&str, &str)]) -> Vec<f64> {
        // Resources: (is_receive, node) with their capacity and the edges through them.
        let mut resources: BTreeMap<(bool, &str), (f64, Vec<usize>)> = BTreeMap::new();
        for (i, &(s, d)) in edges.iter().enumerate() {
            resources
                .entry((false, s))
                .or_insert((1.0, vec![]))
                .1
                .push(i);
            resources
                .entry((true, d))
                .or_insert((self.receive_capacity, vec![]))
                .1
                .push(i);
        }
        let mut rate: Vec<Option<f64>> = vec![None; edges.len()];
        while rate.iter().any(Option::is_none) {
            let share = |(cap, es): &(f64, Vec<usize>)| {
                let used: f64 = es.iter().filter_map(|&e| rate[e]).sum();
                let free = es.iter().filter(|&&e| rate[e].is_none()).count();
                (free > 0).then(|| (cap - used).max(0.0) / free as f64)
            };
            let (bottleneck, fill) = resources
                .values()
                .filter_map(|r| share(r).map(|s| (r, s)))
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .expect("an edge without a rate has a resource");
            for &e in &bottleneck.1 {
                rate[e].get_or_insert(fill);
            }
        }
        rate.into_iter().map(|r| r.unwrap_or(0.0)).collect()
    }
}

impl PenaltyModel for FairShare {
    fn penalties(&self, _: usize, active: &[&Communication]) -> Result<Vec<f64>, PenaltyError> {
        let edges: Vec<_> = active
            .iter()
            .map(|c| (c.src.as_str(), c.dst.as_str()))
            .collect();
        self.rates(&edges)
            .into_iter()
            .zip(active)
            .map(|(r, c)| {
                if r > 0.0 {
                    Ok(1.0 / r)
                } else {
                    Err(PenaltyError(format!(
                        "communication `{}` gets no bandwidth: node `{}` has no receive capacity",
                        c.id, c.dst
                    )))
                }
            })
            .collect()
    }
}

/// Penalties given step by step, e.g. measured (section 3.3) or printed in the paper
/// (Figure 3): `steps[s]` maps the id of each communication active in step `s` to its
/// penalty.
#[derive(Debug, Clone, PartialEq)]
pub struct Explicit {
    pub steps: Vec<BTreeMap<String, f64>>,
}

impl Explicit {
    /// Refuses steps beyond the `used` steps of the solution: a file that does not fit the
    /// graph exactly was written for another graph.
    pub fn check_all_used(&self, used: usize) -> Result<(), PenaltyError> {
        if self.steps.len() > used {
            return Err(PenaltyError(format!(
                "steps[{used}]: the file gives {} steps, the graph has {used}; remove the extra \
                 steps",
                self.steps.len()
            )));
        }
        Ok(())
    }
}

impl PenaltyModel for Explicit {
    fn penalties(&self, step: usize, active: &[&Communication]) -> Result<Vec<f64>, PenaltyError> {
        let ids = || {
            active
                .iter()
                .map(|c| c.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let given = self.steps.get(step).ok_or_else(|| {
            PenaltyError(format!(
                "steps[{step}] is missing: the graph has a step {} with communications {}, \
                 the file gives {} step(s)",
                step + 1,
                ids(),
                self.steps.len()
            ))
        })?;
        if let Some(extra) = given.keys().find(|k| !active.iter().any(|c| &c.id == *k)) {
            return Err(PenaltyError(format!(
                "steps[{step}].{extra}: `{extra}` is not active in this step (active: {})",
                ids()
            )));
        }
        active
            .iter()
            .map(|c| match given.get(&c.id) {
                Some(&p) if p.is_finite() && p >= 1.0 => Ok(p),
                Some(&p) => Err(PenaltyError(format!(
                    "steps[{step}].{}: a penalty is at least 1, not {p}",
                    c.id
                ))),
                None => Err(PenaltyError(format!(
                    "steps[{step}].{}: missing; communication `{}` is active in this step \
                     (active: {})",
                    c.id,
                    c.id,
                    ids()
                ))),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ib(edges: &[(&str, &str)]) -> Vec<f64> {
        InfiniBand::edge_penalties(edges)
    }

    fn close(got: &[f64], want: &[f64]) {
        assert_eq!(got.len(), want.len(), "{got:?}");
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-9, "got {got:?}, want {want:?}");
        }
    }

    /// Figure 2, first graph: node a sends to b, c and d; 3 each.
    #[test]
    fn figure_2_one_node_sending_to_three() {
        close(&ib(&[("a", "b"), ("a", "c"), ("a", "d")]), &[3.0, 3.0, 3.0]);
    }

    /// Figure 2, second graph. The text gives no values, only that `k` is nullified for
    /// `(b, a)` and `(c, a)` because `delta-(a) = delta+(b) = delta+(c)`: so b and c each send
    /// two communications. We use b and c each sending to a and to d; every penalty is then
    /// `delta+ = 2`.
    #[test]
    fn figure_2_second_graph_k_nullified() {
        close(
            &ib(&[("b", "a"), ("b", "d"), ("c", "a"), ("c", "d")]),
            &[2.0, 2.0, 2.0, 2.0],
        );
    }

    /// Figure 2, third graph: a sends to b, c, d; d sends to b and c. 4 for a's edges,
    /// 2 + 2/3 = 2.66 for d's.
    #[test]
    fn figure_2_third_graph() {
        let p = ib(&[("a", "b"), ("a", "c"), ("a", "d"), ("d", "b"), ("d", "c")]);
        close(&p, &[4.0, 4.0, 4.0, 8.0 / 3.0, 8.0 / 3.0]);
        assert_eq!(format!("{:.2}", p[3]), "2.67");
    }

    /// Figure 2, fourth graph: a sends to b and c, d to b, e to c. 4 for a's edges by item
    /// (c), 1 + 1/(4 - 1) = 1.33 for d's and e's by item (b).
    #[test]
    fn figure_2_fourth_graph() {
        close(
            &ib(&[("a", "b"), ("a", "c"), ("d", "b"), ("e", "c")]),
            &[4.0, 4.0, 4.0 / 3.0, 4.0 / 3.0],
        );
    }

    #[test]
    fn single_senders_to_one_node_share_it() {
        close(&ib(&[("b", "a"), ("c", "a")]), &[2.0, 2.0]);
        close(&ib(&[("b", "a"), ("c", "a"), ("d", "a")]), &[3.0, 3.0, 3.0]);
        close(&ib(&[("a", "b")]), &[1.0]);
    }

    #[test]
    fn fair_share_is_max_min() {
        let f = FairShare::default();
        // a -> b, a -> c, d -> b: a's card halves, b's receive has 1/2 left for d.
        close(
            &f.rates(&[("a", "b"), ("a", "c"), ("d", "b")]),
            &[0.5, 0.5, 0.5],
        );
        // Three senders into one node and one of them also sending elsewhere.
        close(
            &f.rates(&[("a", "x"), ("b", "x"), ("c", "x"), ("c", "y")]),
            &[1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0, 2.0 / 3.0],
        );
        let capped = FairShare {
            receive_capacity: 0.5,
        };
        close(&capped.rates(&[("a", "x"), ("b", "y")]), &[0.5, 0.5]);
    }

    #[test]
    fn explicit_refuses_what_does_not_fit() {
        let c = |id: &str| Communication {
            id: id.into(),
            src: "n0".into(),
            dst: "n1".into(),
            bytes: 1.0,
            start: 0.0,
        };
        let (a, b) = (c("a"), c("b"));
        let m = Explicit {
            steps: vec![BTreeMap::from([
                ("a".to_string(), 2.0),
                ("b".to_string(), 0.5),
            ])],
        };
        let err = m.penalties(0, &[&a, &b]).unwrap_err().0;
        assert!(
            err.starts_with("steps[0].b: a penalty is at least 1"),
            "{err}"
        );
        let err = m.penalties(0, &[&a]).unwrap_err().0;
        assert!(err.starts_with("steps[0].b: `b` is not active"), "{err}");
        let err = m.penalties(1, &[&a]).unwrap_err().0;
        assert!(err.starts_with("steps[1] is missing"), "{err}");
        let ok = Explicit {
            steps: vec![BTreeMap::from([("a".to_string(), 2.0)])],
        };
        assert_eq!(ok.penalties(0, &[&a]).unwrap(), vec![2.0]);
        assert!(ok
            .penalties(0, &[&a, &b])
            .unwrap_err()
            .0
            .contains("missing"));
    }
}
