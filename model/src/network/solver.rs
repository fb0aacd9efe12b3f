//! The sequence of linear models of section 3.2 (equations 1-3), solved step by step.
//!
//! At each step the communications started and not finished form a contention graph `K_s`;
//! each gets its penalty `rho` and so moves `1 / (alpha * rho)` bytes per second. The step
//! lasts until the next communication starts or the first one finishes, whichever comes
//! first (equation 3: the time of a step is the difference of consecutive end times); the
//! bytes moved in it are `m_{i,j}` and they add up to `m_i` (equation 2). A communication's
//! time is the sum of its steps' times (equation 1).

use super::penalty::{PenaltyError, PenaltyModel};
use super::{Communication, Graph};
use serde::Serialize;
use std::collections::HashMap;

/// One communication during one step.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepEntry {
    pub id: String,
    /// Its penalty in this step, after any receive cap.
    pub penalty: f64,
    /// Bytes left to send when the step ends (0 if it finished in this step).
    pub remaining_bytes: f64,
}

/// One step `K_s` of the dynamic contention graph.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Step {
    /// When the step starts and ends, in seconds.
    pub(crate) start: f64,
    pub end: f64,
    /// The active communications, in the graph's order.
    pub active: Vec<StepEntry>,
}

/// The solution: every step, and each communication's end time (graph order).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Solution {
    pub steps: Vec<Step>,
    pub ends: Vec<f64>,
}

/// Relative slack under which a communication counts as finished: floating-point rounding
/// of `rate * time` must not leave a sliver of bytes for an extra step.
const FINISH_SLACK: f64 = 1e-9;

/// Solves `graph` with the penalties of `model`. `receive_cap`, when given, is the most a
/// node can receive, as a fraction of the link bandwidth `1 / alpha` (the memory contention
/// model's prediction, see `commands::network`): when the communications into a node would
/// receive more in total, their rates are scaled down together to the cap (their penalties
/// scaled up).
pub fn solve(
    graph: &Graph,
    model: &dyn PenaltyModel,
    receive_cap: Option<f64>,
) -> Result<Solution, PenaltyError> {
    let comms = &graph.communications;
    let mut remaining: Vec<f64> = comms.iter().map(|c| c.bytes).collect();
    let mut ends = vec![f64::NAN; comms.len()];
    let mut steps = Vec::new();
    let mut now = comms.iter().map(|c| c.start).fold(f64::INFINITY, f64::min);
    loop {
        let active: Vec<usize> = (0..comms.len())
            .filter(|&i| comms[i].start <= now && ends[i].is_nan())
            .collect();
        let next_start = comms
            .iter()
            .map(|c| c.start)
            .filter(|&s| s > now)
            .fold(f64::INFINITY, f64::min);
        if active.is_empty() {
            if next_start.is_finite() {
                now = next_start;
                continue;
            }
            break;
        }
        let actives: Vec<&Communication> = active.iter().map(|&i| &comms[i]).collect();
        let mut penalties = model.penalties(steps.len(), &actives)?;
        if let Some(cap) = receive_cap {
            cap_receivers(&actives, &mut penalties, cap);
        }
        // Bytes per second of each active communication.
        let rates: Vec<f64> = penalties.iter().map(|p| 1.0 / (graph.alpha * p)).collect();
        // The communication that finishes first ends this step exactly, whatever rounding
        // leaves of its bytes: so each step ends a communication or reaches the next start,
        // and there are at most two steps per communication.
        let (first, first_end) = active
            .iter()
            .zip(&rates)
            .map(|(&i, r)| (i, remaining[i] / r))
            .fold(
                (usize::MAX, f64::INFINITY),
                |a, b| if b.1 < a.1 { b } else { a },
            );
        let (dt, end, finishing) = if first_end < next_start - now {
            (first_end, now + first_end, Some(first))
        } else {
            (next_start - now, next_start, None)
        };
        if steps.len() > 2 * comms.len() || !end.is_finite() {
            return Err(PenaltyError(format!(
                "the step after {now} s does not end (time {end} s): the graph's values are \
                 beyond what the solver can resolve"
            )));
        }
        let mut entries = Vec::with_capacity(active.len());
        for ((&i, r), p) in active.iter().zip(&rates).zip(&penalties) {
            remaining[i] -= r * dt;
            if Some(i) == finishing || remaining[i] <= FINISH_SLACK * comms[i].bytes {
                remaining[i] = 0.0;
                ends[i] = end;
            }
            entries.push(StepEntry {
                id: comms[i].id.clone(),
                penalty: *p,
                remaining_bytes: remaining[i],
            });
        }
        steps.push(Step {
            start: now,
            end,
            active: entries,
        });
        now = end;
    }
    Ok(Solution { steps, ends })
}

/// Scales the penalties of the communications into each node so that together they
/// receive at most `cap` times the link bandwidth.
fn cap_receivers(active: &[&Communication], penalties: &mut [f64], cap: f64) {
    let mut into: HashMap<&str, f64> = HashMap::new();
    for (c, p) in active.iter().zip(penalties.iter()) {
        *into.entry(c.dst.as_str()).or_insert(0.0) += 1.0 / p;
    }
    for (c, p) in active.iter().zip(penalties.iter_mut()) {
        let total = into[c.dst.as_str()];
        if total > cap {
            *p *= total / cap;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::penalty::{Explicit, FairShare, InfiniBand};
    use super::super::tests::comm;
    use super::*;
    use std::collections::BTreeMap;

    const MIB_20: f64 = 20.0 * 1024.0 * 1024.0;

    fn within(got: f64, want: f64, rel: f64) -> bool {
        (got - want).abs() <= rel * want.abs().max(1.0)
    }

    /// Figure 3: six 20 MB (MiB: 20 x 2^20 bytes reproduces the printed numbers) communications
    /// starting together, alpha = 5.105e-10 s/B, with the penalties the figure prints (3.33 and
    /// 2.33 being 10/3 and 7/3, as the printed bytes and times show).
    #[test]
    fn figure_3_steps() {
        let graph = Graph {
            alpha: 5.105e-10,
            communications: ["a", "b", "c", "d", "e", "f"]
                .iter()
                .enumerate()
                .map(|(i, id)| comm(id, &format!("s{i}"), &format!("d{i}"), MIB_20, 0.0))
                .collect(),
        };
        let step = |pairs: &[(&str, f64)]| -> BTreeMap<String, f64> {
            pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
        };
        let model = Explicit {
            steps: vec![
                step(&[
                    ("a", 3.5),
                    ("b", 3.5),
                    ("c", 3.5),
                    ("d", 10.0 / 3.0),
                    ("e", 10.0 / 3.0),
                    ("f", 1.5),
                ]),
                step(&[
                    ("a", 3.5),
                    ("b", 3.5),
                    ("c", 3.5),
                    ("d", 7.0 / 3.0),
                    ("e", 7.0 / 3.0),
                ]),
                step(&[("a", 3.0), ("b", 3.0), ("c", 3.0)]),
            ],
        };
        let s = solve(&graph, &model, None).unwrap();
        assert_eq!(s.steps.len(), 3);
        let ends = [0.0160590, 0.0297984, 0.0363749];
        for (step, want) in s.steps.iter().zip(ends) {
            assert!(within(step.end, want, 1e-3), "{} vs {want}", step.end);
        }
        let remaining = |k: usize, id: &str| {
            s.steps[k]
                .active
                .iter()
                .find(|e| e.id == id)
                .unwrap()
                .remaining_bytes
        };
        assert!(within(remaining(0, "a"), 11_983_700.0, 1e-3));
        assert!(within(remaining(0, "d"), 11_534_300.0, 1e-3));
        assert_eq!(remaining(0, "f"), 0.0);
        assert!(within(remaining(1, "a"), 4_294_170.0, 1e-3));
        assert_eq!(remaining(1, "d"), 0.0);
        assert_eq!(remaining(2, "c"), 0.0);
        let want_ends = [
            0.0363749, 0.0363749, 0.0363749, 0.0297984, 0.0297984, 0.0160590,
        ];
        for (got, want) in s.ends.iter().zip(want_ends) {
            assert!(within(*got, want, 1e-3), "{got} vs {want}");
        }
    }

    #[test]
    fn late_start_splits_a_step_and_gaps_are_skipped() {
        // a alone for 1 s, then b shares a's source: both halve.
        let graph = Graph {
            alpha: 1.0,
            communications: vec![comm("a", "x", "y", 2.0, 0.0), comm("b", "x", "z", 1.0, 1.0)],
        };
        let s = solve(&graph, &InfiniBand, None).unwrap();
        assert_eq!(s.steps.len(), 2);
        assert_eq!(s.steps[0].end, 1.0);
        assert_eq!(s.steps[0].active[0].remaining_bytes, 1.0);
        assert_eq!(s.steps[1].active[0].penalty, 2.0);
        assert!((s.ends[0] - 3.0).abs() < 1e-12 && (s.ends[1] - 3.0).abs() < 1e-12);
        // A gap with nothing active: the next communication starts on its own time.
        let graph = Graph {
            alpha: 1.0,
            communications: vec![comm("a", "x", "y", 1.0, 0.0), comm("b", "x", "y", 1.0, 5.0)],
        };
        let s = solve(&graph, &FairShare::default(), None).unwrap();
        assert_eq!(s.ends, vec![1.0, 6.0]);
        assert_eq!(s.steps[1].start, 5.0);
    }

    #[test]
    fn receive_cap_slows_the_receivers() {
        // Two single senders into one node: fair share 1/2 each; a cap of 0.5 makes it 1/4.
        let graph = Graph {
            alpha: 1.0,
            communications: vec![comm("a", "x", "r", 1.0, 0.0), comm("b", "y", "r", 1.0, 0.0)],
        };
        let s = solve(&graph, &InfiniBand, Some(0.5)).unwrap();
        assert_eq!(s.steps[0].active[0].penalty, 4.0);
        assert_eq!(s.ends, vec![4.0, 4.0]);
        // A cap above what the node receives changes nothing.
        let s = solve(&graph, &InfiniBand, Some(1.0)).unwrap();
        assert_eq!(s.ends, vec![2.0, 2.0]);
    }
}
