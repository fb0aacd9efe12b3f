//! `survey --simulate MACHINE --nodes N`: the survey's whole path on a fleet of simulated
//! nodes (see [`crate::simulate::fleet`] for how they differ), where no allocation of that
//! size is at hand: the same pairing into rounds, the same manifest recorded after every
//! round, then (in `commands::survey`) the same per-node calibration, band, report and
//! figure, and `check --fleet` on the result.
//!
//! Nothing of it mixes with real results: the fleet lives in a directory of its own under
//! the results root ([`crate::results::SIMULATED_SURVEY`]), its manifest carries `simulated`, every node's trace carries
//! both marks of a simulated trace (`machine.simulated`, `simulation`), and the fleet report
//! built from it says simulated and takes no real trace.

use super::error::SurveyError;
use super::manifest::{self, Manifest, Status};
use super::plan;
use crate::error::Result;
use crate::io::trace_file;
use crate::measure::options::MeasureOptions;
use crate::measure::simulation::{self, SimulateOptions};
use crate::results::{run_dir, SIMULATED_SURVEY as DIR};
use crate::simulate::fleet::{self, Degradation};
use crate::simulate::RunNoise;
use crate::simulate::{Noise, Truth};
use std::collections::HashMap;
use std::path::PathBuf;

/// The most nodes a simulated fleet may have: ten times the 10,000 nodes its whole path is
/// measured at (214 MB and about a minute there, linear in the nodes), above the largest
/// clusters surveyed in one run (CEA's `mpi_stream` checks more than 8,000); a larger count
/// is a typo that would otherwise ask for terabytes.
pub const MAX_NODES: usize = 100_000;

/// What `survey --simulate` is asked.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulatedFleet {
    pub machine: Truth,
    pub nodes: usize,
    /// `--slow`, parsed: the degraded nodes.
    pub slow: Vec<(String, Degradation)>,
    /// As given (`--slow`), for the manifest.
    pub slow_spec: String,
    pub seed: u64,
    /// Runs per node (`--runs`), each in its own round.
    pub runs: u32,
    pub run_noise: RunNoise,
}

/// The names of a fleet of `n` nodes: `node1` .. `nodeN`.
pub fn node_names(n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("node{i}")).collect()
}

/// The manifest's line on what was simulated: machine, seed, nodes degraded, noise.
fn describe_fleet(f: &SimulatedFleet) -> String {
    format!(
        "{} x {}, seed {}, {} per node, noise between runs of a real 16-core node \
         ({:.1} % computations, {:.0}-{:.0} % communications); slow: {}",
        f.nodes,
        f.machine.spec(),
        f.seed,
        if f.runs == super::AUTO_RUNS {
            "runs auto: one run, a second where a verdict needs it,".to_string()
        } else {
            format!("{} run(s)", f.runs)
        },
        100.0 * f.run_noise.sigma(0, 1, 2),
        100.0 * f.run_noise.sigma(1, 1, 2),
        100.0 * f.run_noise.sigma(3, 2, 2),
        if f.slow_spec.is_empty() {
            "none"
        } else {
            &f.slow_spec
        }
    )
}

/// The simulated fleet's manifest before its rounds: `measure`'s options and the fleet's
/// own, and what was simulated.
fn new_manifest(f: &SimulatedFleet, o: &MeasureOptions, hosts: &[String]) -> Manifest {
    let mut options = o.measured_flags();
    options.insert("--simulate".into(), f.machine.spec());
    options.insert("--seed".into(), f.seed.to_string());
    options.insert("--slow".into(), f.slow_spec.clone());
    options.insert(
        "--runs".into(),
        if f.runs == super::AUTO_RUNS {
            "auto".into()
        } else {
            f.runs.to_string()
        },
    );
    let mut m = plan::new_manifest(hosts, options);
    m.simulated = Some(describe_fleet(f));
    m
}

/// The trace of the measured node of `pair` (index `i` among the hosts) in its run `run`:
/// drawn from the fleet's machine, degraded where `--slow` says, with the noise between runs
/// seeded by the fleet's seed, the node and the run.
fn node_trace(
    f: &SimulatedFleet,
    (layout, sim): (&simulation::Layout, &SimulateOptions),
    pair: &manifest::HostPair,
    (i, run): (usize, u32),
    degraded: Option<Degradation>,
) -> Result<crate::trace::Trace> {
    let points = fleet::draw_run(
        &f.machine,
        layout.placement,
        &layout.config.cores,
        degraded.unwrap_or_default(),
        f.run_noise,
        Noise::TYPICAL,
        (f.seed, i as u64 + 1, u64::from(run)),
    )
    .map_err(|e| crate::Error::Failed(format!("simulated node {}: {e}", pair.measured)))?;
    let mut trace = simulation::fresh_trace(layout, sim);
    trace.machine.hostname = pair.measured.clone();
    trace.mpi.hosts = vec![pair.measured.clone(), pair.sender.clone()];
    trace.points = points;
    trace.complete = true;
    Ok(trace)
}

/// Runs the simulated survey: returns the manifest's path, or `None` for a dry run (whose
/// plan is printed). With `--runs auto` every node is drawn once, then `choose` names the
/// nodes drawn a second time ([`crate::fleet::second`]).
pub fn run(
    f: &SimulatedFleet,
    o: &MeasureOptions,
    (dry_run, quiet): (bool, bool),
    choose: super::second::ChooseSecond<'_>,
) -> Result<Option<PathBuf>> {
    let sim = SimulateOptions {
        machine: f.machine.clone(),
        seed: f.seed,
        noise: Noise::TYPICAL,
        between: f.run_noise,
    };
    let layout = simulation::layout(o, &sim)?;
    let root = crate::results::root().join(DIR);
    let path = Manifest::path(&root);
    let hosts = node_names(f.nodes);
    let mut m = new_manifest(f, o, &hosts);
    let (sweep, touch) = crate::measure::session::estimated_seconds(&layout.config);
    // The real survey's rounds, second runs included (`plan::plan_job`).
    let (_, rounds) = plan::plan_job(&m, plan::round_timeout(sweep + touch))?;
    m.job = 1;
    m.job_hosts = hosts.clone();
    m.command = std::env::args().collect();
    m.rounds = rounds.clone();
    if dry_run {
        print!(
            "{}",
            crate::error::escape(&format!(
                "simulated   {}\n{}",
                describe_fleet(f),
                plan::describe(&m, sweep + touch, None, "none (simulated)", "none")
            ))
        );
        return Ok(None);
    }
    if path.exists() && !o.force {
        return Err(SurveyError::ManifestExists { path }.into());
    }
    crate::results::ensure_parent(&path)?;
    m.save(&path)?;
    // Each node's trace, in its directory and its `run2/`.
    let name = crate::results::trace_name(
        layout.config.comp_numa,
        layout.config.comm_numa,
        crate::results::PAPER_VARIANT,
    );
    forget_second_runs(&root, &hosts, &name)?;
    let drawn = Drawn {
        name: &name,
        fleet: f,
        layout: &layout,
        sim: &sim,
        root: &root,
        path: &path,
    };
    drawn.rounds(&mut m, &rounds, 0)?;
    let mut count = rounds.len();
    if super::second::due(&m) {
        let second =
            super::second::start(&mut m, &root, choose, plan::round_timeout(sweep + touch))?;
        m.rounds.extend(second.iter().cloned());
        drawn.rounds(&mut m, &second, count)?;
        count += second.len();
    }
    if !quiet {
        eprintln!(
            "survey: {} simulated node(s) drawn in {count} round(s); manifest {}",
            f.nodes,
            crate::error::shown_path(&path)
        );
    }
    Ok(Some(path))
}

/// Removes the second-run traces an earlier simulated survey left in `root` (`--force`):
/// with `--runs auto` only some nodes are drawn twice ([`super::second::forget_second_run`]).
fn forget_second_runs(root: &std::path::Path, hosts: &[String], name: &str) -> Result<()> {
    hosts
        .iter()
        .try_for_each(|host| super::second::forget_second_run(&root.join(host).join(name)))
}

/// What drawing a simulated fleet's rounds needs.
struct Drawn<'a> {
    /// The trace's file name in a node's directories.
    name: &'a str,
    fleet: &'a SimulatedFleet,
    layout: &'a simulation::Layout,
    sim: &'a SimulateOptions,
    root: &'a std::path::Path,
    path: &'a std::path::Path,
}

impl Drawn<'_> {
    /// Draws every pair of `rounds` (numbered from `first + 1`) into its node's trace and
    /// records it in the manifest, saved after each round.
    fn rounds(&self, m: &mut Manifest, rounds: &[manifest::Round], first: usize) -> Result<()> {
        let f = self.fleet;
        let slow: HashMap<&str, Degradation> =
            f.slow.iter().map(|(n, d)| (n.as_str(), *d)).collect();
        let index: HashMap<String, usize> = m.hosts.iter().cloned().zip(0..).collect();
        for (r, round) in rounds.iter().enumerate() {
            let run = &round.run;
            for pair in &round.pairs {
                let i = index[&pair.measured];
                let degraded = slow.get(pair.measured.as_str()).copied();
                let trace = node_trace(f, (self.layout, self.sim), pair, (i, *run), degraded)?;
                let file = run_dir(&self.root.join(&pair.measured), *run).join(self.name);
                crate::results::ensure_parent(&file)?;
                trace_file::write(&file, &trace)?;
                let n = &mut m.nodes[i];
                // Done once its last run is; each run adds its trace.
                if f.runs != 1 {
                    n.runs_done = *run;
                }
                n.status = Status::Done;
                n.job = Some(1);
                n.round.get_or_insert(first + r + 1);
                n.sender.get_or_insert_with(|| pair.sender.clone());
                n.traces.push(file);
            }
            if f.runs == 2 {
                // With --runs 2 a node is done once both runs are.
                for n in m.nodes.iter_mut().filter(|n| n.runs_done < 2) {
                    n.status = Status::Pending;
                }
            }
            m.save(self.path)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_node_is_measured_once_per_run_and_its_runs_fall_in_different_rounds() {
        for n in [2, 3, 5, 16] {
            let options = [("--runs".to_string(), "2".to_string())].into();
            let m = plan::new_manifest(&node_names(n), options);
            let (_, r) = plan::plan_job(&m, 10.0).unwrap();
            for host in node_names(n) {
                let at: Vec<(u32, usize)> = r
                    .iter()
                    .enumerate()
                    .filter(|(_, round)| round.pairs.iter().any(|p| p.measured == host))
                    .map(|(i, round)| (round.run, i))
                    .collect();
                assert_eq!(at.len(), 2, "{n} nodes, {host}: {at:?}");
                assert_eq!((at[0].0, at[1].0), (1, 2), "{host}: {at:?}");
                assert_ne!(at[0].1, at[1].1);
            }
        }
    }
}
