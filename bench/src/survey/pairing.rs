//! The survey's rounds: which node is measured, and which node sends to it, at each step.
//!
//! The paper's benchmark (section 2.2) measures one node whose rank receives large messages
//! from a rank on another node while it computes. Surveying N nodes in one job means N such
//! measurements; running them one after the other would take N times a sweep, so they run in
//! rounds of disjoint pairs (measured node, sender node). Within a round no node is both
//! measured and sending: a sender's own memory traffic would disturb the node it sits on if
//! that node were measured at the same time.
//!
//! With N = 2k nodes, round 1 measures nodes `0..k` (node `i` fed by node `i + k`) and round
//! 2 measures nodes `k..2k` (fed by node `i - k`): two rounds, every node busy in both. With
//! N = 2k + 1 the same two rounds leave the last node unmeasured; a third round measures it
//! alone, with node 0 (already measured in round 1) as its sender. One node is refused: a
//! sender needs another node, and measuring a node against itself is `contention measure`
//! without `--hosts`.
//!
//! A survey of GPU nodes (`--engine gpu`) needs no sender: each node's own GPU copies are
//! its communication stream, so every node is measured at once, alone (`alone`; `plan`
//! chooses).

use super::error::SurveyError;
use serde::{Deserialize, Serialize};

/// One measurement of a round: `measured` receives from `sender` while it computes. Both are
/// indices into the survey's host list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Pair {
    pub(crate) measured: usize,
    pub(crate) sender: usize,
}

/// The rounds for `n` nodes (see the module documentation), or why there are none.
pub(crate) fn rounds(n: usize) -> Result<Vec<Vec<Pair>>, SurveyError> {
    if n < 2 {
        return Err(SurveyError::TooFewNodes { got: n });
    }
    let k = n / 2;
    let mut out: Vec<Vec<Pair>> = vec![
        (0..k)
            .map(|i| Pair {
                measured: i,
                sender: i + k,
            })
            .collect(),
        (0..k)
            .map(|i| Pair {
                measured: i + k,
                sender: i,
            })
            .collect(),
    ];
    if n % 2 == 1 {
        out.push(vec![Pair {
            measured: n - 1,
            sender: 0,
        }]);
    }
    Ok(out)
}

/// The rounds that measure only `todo` (indices into a host list of `n`, e.g. the nodes a
/// `--resume` has left), each fed by another node of the list: the nodes to measure are
/// paired among themselves as [`rounds`] pairs a fresh survey; a single node left gets the
/// first other node of the list as its sender, in a round of its own.
pub(crate) fn rounds_for(n: usize, todo: &[usize]) -> Result<Vec<Vec<Pair>>, SurveyError> {
    if n < 2 {
        return rounds(n);
    }
    match todo {
        [] => Ok(Vec::new()),
        [only] => {
            let sender = (0..n)
                .find(|i| i != only)
                .ok_or(SurveyError::TooFewNodes { got: n })?;
            Ok(vec![vec![Pair {
                measured: *only,
                sender,
            }]])
        }
        _ => Ok(rounds(todo.len())?
            .into_iter()
            .map(|round| {
                round
                    .into_iter()
                    .map(|p| Pair {
                        measured: todo[p.measured],
                        sender: todo[p.sender],
                    })
                    .collect()
            })
            .collect()),
    }
}

/// The round of a survey whose nodes are measured alone (`survey --engine gpu`: each node's
/// own GPU copies are its communication stream): every node of `todo` at once, in one round,
/// each its own "sender" (no other node takes part, so none disturbs another; nodes on one
/// machine are still split into rounds of their own by `crate::survey::identity`).
pub(crate) fn alone(todo: &[usize]) -> Vec<Vec<Pair>> {
    if todo.is_empty() {
        return Vec::new();
    }
    vec![todo
        .iter()
        .map(|&i| Pair {
            measured: i,
            sender: i,
        })
        .collect()]
}

/// The rounds that measure `todo` of `n` nodes: [`alone`] when `nodes_alone`, else
/// [`rounds_for`].
pub(crate) fn plan(
    n: usize,
    todo: &[usize],
    nodes_alone: bool,
) -> Result<Vec<Vec<Pair>>, SurveyError> {
    if nodes_alone {
        Ok(alone(todo))
    } else {
        rounds_for(n, todo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rules every plan must keep: each node of `todo` measured exactly once, pairs of
    /// a round disjoint (no node in two pairs, so never measured and sending at once), every
    /// sender another node of the list.
    fn check(n: usize, todo: &[usize], plan: &[Vec<Pair>]) {
        let mut measured = vec![0; n];
        for round in plan {
            assert!(!round.is_empty(), "{n}: empty round");
            let mut busy = vec![false; n];
            for p in round {
                assert!(p.measured < n && p.sender < n, "{n}: {p:?} out of range");
                assert_ne!(p.measured, p.sender, "{n}: a node sends to itself");
                for node in [p.measured, p.sender] {
                    assert!(!busy[node], "{n}: node {node} twice in one round {round:?}");
                    busy[node] = true;
                }
                measured[p.measured] += 1;
            }
        }
        for (node, count) in measured.iter().enumerate() {
            let want = usize::from(todo.contains(&node));
            assert_eq!(*count, want, "{n}: node {node} measured {count} time(s)");
        }
    }

    #[test]
    fn nodes_measured_alone_are_one_round_each_its_own_sender() {
        assert!(alone(&[]).is_empty());
        let plan = plan(5, &[1, 3, 4], true).unwrap();
        let pairs: Vec<(usize, usize)> = plan[0].iter().map(|p| (p.measured, p.sender)).collect();
        assert_eq!((plan.len(), pairs), (1, vec![(1, 1), (3, 3), (4, 4)]));
    }

    #[test]
    fn small_counts_by_hand() {
        let p = |m, s| Pair {
            measured: m,
            sender: s,
        };
        assert_eq!(rounds(2).unwrap(), vec![vec![p(0, 1)], vec![p(1, 0)]]);
        assert_eq!(
            rounds(5).unwrap(),
            vec![
                vec![p(0, 2), p(1, 3)],
                vec![p(2, 0), p(3, 1)],
                vec![p(4, 0)]
            ]
        );
    }

    #[test]
    fn one_node_is_refused_with_the_reason() {
        for n in [0, 1] {
            let e = rounds(n).unwrap_err().to_string();
            assert!(
                e.contains("at least 2 nodes") && e.contains("contention measure"),
                "{e}"
            );
        }
        assert!(rounds_for(1, &[0])
            .unwrap_err()
            .to_string()
            .contains("at least 2 nodes"));
    }

    #[test]
    fn a_resume_of_one_node_borrows_a_sender() {
        let plan = rounds_for(4, &[2]).unwrap();
        assert_eq!(
            plan,
            vec![vec![Pair {
                measured: 2,
                sender: 0
            }]]
        );
        check(4, &[2], &plan);
        assert!(rounds_for(4, &[]).unwrap().is_empty());
    }

    proptest::proptest! {
        #[test]
        fn every_node_measured_once_never_measured_and_sending_together(n in 1usize..=64) {
            match rounds(n) {
                Ok(plan) => {
                    let all: Vec<usize> = (0..n).collect();
                    check(n, &all, &plan);
                    // Two rounds for an even count, three for an odd one: the fewest, as a
                    // round measures at most n / 2 nodes.
                    proptest::prop_assert_eq!(plan.len(), if n % 2 == 0 { 2 } else { 3 });
                }
                Err(e) => {
                    let refused = matches!(e, SurveyError::TooFewNodes { got } if got == n);
                    proptest::prop_assert!(n < 2 && refused);
                }
            }
        }

        #[test]
        fn a_resume_measures_exactly_what_is_left(
            n in 2usize..=64,
            keep in proptest::collection::vec(proptest::bool::ANY, 64),
        ) {
            let todo: Vec<usize> = (0..n).filter(|&i| keep[i]).collect();
            let plan = rounds_for(n, &todo).unwrap();
            check(n, &todo, &plan);
        }
    }
}
