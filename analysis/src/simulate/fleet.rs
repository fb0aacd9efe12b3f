//! A simulated fleet (`survey --simulate MACHINE --nodes N`): N nodes of one simulated
//! machine that differ only by the noise between runs, some of them degraded on purpose,
//! so the fleet report's band can be judged against a known answer at any scale.
//!
//! What makes two runs of one command disagree is not the noise inside a run (the sweep's
//! intervals cover that) but the state each launch finds: page placement, which cores the
//! scheduler favours, the neighbours; and a fleet shares the day's. Both are
//! [`RunNoise`]'s, the model `measure --simulate` draws too: each node is a unit of it, each
//! of its runs a run, the fleet's seed the day.
//!
//! A degraded node ([`Degradation`]) has its computations' bandwidth (memory) or its
//! communications' scaled by a factor, in every placement and core count.
//!
//! Pure: no I/O; every draw is keyed by the fleet's seed, the node and the run.

use super::between::{RunKey, RunNoise};
use super::noise::{Noise, Stream};
use super::rng::Rng;
use super::truth::Truth;
use crate::error::{Error, Result};
use crate::model::Placement;
use crate::trace::{Phase, TracePoint};

/// How one node differs from the machine it simulates: factors on its bandwidths (1: as
/// the machine).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Degradation {
    /// On every computation bandwidth (the memory's).
    pub(crate) memory: f64,
    /// On every communication bandwidth.
    pub(crate) communications: f64,
}

impl Default for Degradation {
    fn default() -> Self {
        Degradation {
            memory: 1.0,
            communications: 1.0,
        }
    }
}

/// The range of a `--slow` factor: a node at 1 % of the machine's bandwidth to ten times
/// it. Below, a factor such as `5e-324` made parameters of about 300 digits.
pub(crate) const SLOW_FACTORS: std::ops::RangeInclusive<f64> = 0.01..=10.0;

/// `--slow NODE=KIND:FACTOR,...` parsed: the nodes degraded and how, in the order given.
/// `KIND` is `mem` (computations' bandwidth) or `comm` (communications'); `FACTOR` in
/// `SLOW_FACTORS`. A node may be named once per kind (a factor of 1 too). A control
/// character is refused: the spec is printed in the fleet report's header. `nodes` are the fleet's node names, which
/// the names given must be among.
pub fn parse_slow(spec: &str, nodes: &[String]) -> Result<Vec<(String, Degradation)>> {
    let bad = |what: String| {
        Error::Input(format!(
            "--slow {}: {what}; write NODE=mem:FACTOR or NODE=comm:FACTOR, comma-separated, \
             e.g. --slow node7=mem:0.9,node3=comm:0.8",
            crate::error::clip(spec)
        ))
    };
    if spec.chars().any(char::is_control) {
        return Err(bad("it holds a control character (a newline?)".into()));
    }
    let mut out: Vec<(String, Degradation)> = Vec::new();
    let mut named = std::collections::HashSet::new();
    for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (node, rest) = item
            .split_once('=')
            .ok_or_else(|| bad(format!("`{}` has no `=`", crate::error::escape(item))))?;
        let (kind, factor) = rest.split_once(':').ok_or_else(|| {
            bad(format!(
                "`{}` names no kind (mem or comm)",
                crate::error::escape(item)
            ))
        })?;
        let f: f64 = factor
            .trim()
            .parse()
            .ok()
            .filter(|f: &f64| SLOW_FACTORS.contains(f))
            .ok_or_else(|| {
                bad(format!(
                    "factor `{}` is not a number in [{}, {}]",
                    crate::error::clip(factor.trim()),
                    SLOW_FACTORS.start(),
                    SLOW_FACTORS.end()
                ))
            })?;
        let node = node.trim();
        if !nodes.iter().any(|n| n == node) {
            return Err(bad(format!(
                "`{}` is not a node of this fleet ({} .. {})",
                crate::error::escape(node),
                nodes.first().map_or("", String::as_str),
                nodes.last().map_or("", String::as_str)
            )));
        }
        let i = match out.iter().position(|(n, _)| n == node) {
            Some(i) => i,
            None => {
                out.push((node.to_string(), Degradation::default()));
                out.len() - 1
            }
        };
        let slot = match kind.trim() {
            "mem" => &mut out[i].1.memory,
            "comm" => &mut out[i].1.communications,
            other => {
                return Err(bad(format!(
                    "kind `{}` is neither mem nor comm",
                    crate::error::escape(other)
                )))
            }
        };
        if !named.insert((node.to_string(), kind.trim().to_string())) {
            return Err(bad(format!(
                "{} is named twice for {}",
                crate::error::escape(node),
                kind.trim()
            )));
        }
        *slot = f;
    }
    Ok(out)
}

/// Rounds drawn per phase: what a phase of about a second keeps on a real node.
pub(crate) const ROUNDS: usize = 30;

/// One run of one node of a simulated fleet: its points at `cores`, drawn from `truth`
/// degraded by `d`, with the run's level and each point's drawn from `run_noise` and each
/// phase's rounds from `noise`. Keyed by `(seed, node, run)`: the same three draw the same
/// points. The phases keep no samples (only their summaries and intervals): a fleet of
/// 10,000 nodes fits on a disk.
#[allow(clippy::too_many_arguments)]
pub fn draw_run(
    truth: &Truth,
    placement: Placement,
    cores: &[u32],
    d: Degradation,
    run_noise: RunNoise,
    noise: Noise,
    (seed, node, run): (u64, u64, u64),
) -> std::result::Result<Vec<TracePoint>, crate::model::PredictError> {
    // "fleet" in ASCII: keys apart from every other draw of the simulation.
    let key = [seed, node, run, 0x0066_6c65_6574];
    let max = cores.iter().copied().max().unwrap_or(1);
    let within = Noise {
        jitter: 0.0,
        ..noise
    };
    let run_key = RunKey {
        seed,
        unit: node,
        run,
    };
    cores
        .iter()
        .map(|&n| {
            let exact = truth.point(placement, n)?;
            let mut rng = Rng::keyed(key, u64::from(n) + 1);
            let factors = run_noise.factors(run_key, n, max);
            let bandwidths = [
                exact.comp_alone * d.memory,
                exact.comm_alone * d.communications,
                exact.comp_parallel * d.memory,
                exact.comm_parallel * d.communications,
            ];
            let threads = [n as usize, 1, n as usize, 1];
            let phases: Vec<Phase> = (0..4)
                .map(|s| {
                    let at = bandwidths[s] * factors[s];
                    let noise = if s % 2 == 1 {
                        within.messages()
                    } else {
                        within
                    };
                    let mut stream = Stream::new(at, threads[s], noise, rng.fork(s as u64));
                    phase(&stream.round_totals(ROUNDS))
                })
                .collect();
            let [comp_alone, comm_alone, comp_parallel, comm_parallel]: [Phase; 4] =
                phases.try_into().expect("four phases");
            Ok(TracePoint {
                cores: n,
                comp_alone,
                comm_alone,
                comp_parallel,
                comm_parallel,
                ran_on: Vec::new(),
            })
        })
        .collect()
}

/// A phase of `rounds` (each the stream's bandwidth), as a trace records it: the summary,
/// the interval of the median (batch medians, as a real sweep computes it), no samples.
fn phase(rounds: &[f64]) -> Phase {
    Phase {
        summary: crate::stats::summarize(rounds),
        sampling: format!(
            "simulated fleet node: {} rounds drawn, samples not kept",
            rounds.len()
        ),
        samples: Vec::new(),
        ci95: crate::stats::batch_median_interval(rounds, 4),
        unstable: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize) -> Vec<String> {
        (1..=n).map(|i| format!("node{i}")).collect()
    }

    #[test]
    fn slow_names_nodes_kinds_and_factors_and_refuses_the_rest_by_name() {
        let nodes = names(8);
        let s = parse_slow("node7=mem:0.9, node3=comm:0.8,node7=comm:0.5", &nodes).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].0, "node7");
        assert_eq!(
            s[0].1,
            Degradation {
                memory: 0.9,
                communications: 0.5
            }
        );
        assert_eq!(s[1].1.communications, 0.8);
        for (bad, says) in [
            ("node9=mem:0.9", "`node9` is not a node"),
            ("node1:0.9", "no `=`"),
            ("node1=0.9", "names no kind"),
            ("node1=disk:0.9", "kind `disk`"),
            ("node1=mem:0", "factor `0`"),
            ("node1=mem:NaN", "factor `NaN`"),
            ("node1=mem:0.9,node1=mem:0.8", "named twice"),
            // Issue 46: the check fired only when the first factor was not 1, a factor as
            // small as the smallest double passed, and a newline split the report's header.
            ("node1=mem:1,node1=mem:0.5", "named twice"),
            ("node1=mem:5e-324", "not a number in [0.01, 10]"),
            ("node1=mem:0.009", "not a number in [0.01, 10]"),
            ("node1=mem:0.5,\n  ,node7=mem:0.9", "control character"),
        ] {
            let e = parse_slow(bad, &nodes).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{bad}");
            assert!(e.to_string().contains(says), "{bad}: {e}");
            assert!(e.to_string().contains("node7=mem:0.9"), "the fix: {e}");
            assert!(!e.to_string().contains('\n'), "{e:?}");
        }
        let factor = "0.".to_string() + &"0".repeat(1000) + "1";
        let e = parse_slow(&format!("node1=mem:{factor}"), &nodes).unwrap_err();
        assert!(e.to_string().contains("..."), "{e}");
    }

    #[test]
    fn runs_differ_by_the_run_noise_and_a_degraded_node_by_its_factor() {
        let truth = Truth::parse("paper:henri").unwrap();
        let at = Placement {
            comp_numa: 0,
            comm_numa: 0,
        };
        let cores = [1, 9, 18];
        let draw = |d, rn, node, run| {
            draw_run(&truth, at, &cores, d, rn, Noise::TYPICAL, (1, node, run)).unwrap()
        };
        let same = Degradation::default();
        assert_eq!(
            draw(same, RunNoise::REAL_16_CORE, 1, 1),
            draw(same, RunNoise::REAL_16_CORE, 1, 1)
        );
        // Over many runs of one node, computations alone at one core scatter by the model's
        // sigma (3.7 %), and its tail.
        let one_core: Vec<f64> = (0..200)
            .map(|run| {
                draw(same, RunNoise::REAL_16_CORE, 1, run)[0]
                    .comp_alone
                    .summary
                    .median
            })
            .collect();
        let logs: Vec<f64> = one_core.iter().map(|x| x.ln()).collect();
        let mean = logs.iter().sum::<f64>() / logs.len() as f64;
        let sd = (logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 199.0).sqrt();
        let want = RunNoise::REAL_16_CORE.sigma(0, 1, 18);
        assert!(
            (sd / want - 1.0).abs() < 0.25,
            "run-to-run sd {sd}, model {want}"
        );
        // Without run noise, within the run's own; a node at 0.8x memory is 20 %
        // lower on computations and unchanged on communications.
        let quiet = draw(same, RunNoise::NONE, 1, 1);
        let slow = draw(
            Degradation {
                memory: 0.8,
                communications: 1.0,
            },
            RunNoise::NONE,
            1,
            1,
        );
        let exact = truth.point(at, 1).unwrap();
        let m = |p: &Phase| p.summary.median;
        // 30 rounds correlated as a real phase's: their median within 3 of its standard
        // errors (0.7 %) of the truth.
        assert!((m(&quiet[0].comp_alone) / exact.comp_alone - 1.0).abs() < 0.021);
        assert!((m(&slow[0].comp_alone) / m(&quiet[0].comp_alone) - 0.8).abs() < 0.01);
        assert!((m(&slow[0].comm_alone) / m(&quiet[0].comm_alone) - 1.0).abs() < 0.01);
        assert!(quiet[0].comp_alone.ci95.is_some() && quiet[0].comp_alone.samples.is_empty());
    }
}
