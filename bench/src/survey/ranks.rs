//! The ranks of `contention survey`'s MPI job: one rank per node, rank `i` on the manifest's
//! `job_hosts[i]`. For each round of the manifest, `MPI_Comm_split` gives every pair its own
//! two-rank communicator (the measured node's rank first), on which the measured rank runs
//! `measure`'s rank 0 and the sender `measure`'s rank 1, unchanged: same plan, same sweep, same
//! binding checks, same trace in `$CONTENTION_RESULTS/HOST/`; a GPU node, measured alone, runs
//! `measure --engine gpu` in its rank. Nodes in no pair that round wait. After the round every
//! rank tells world rank 0 how its measurement ended, and rank 0 writes the manifest
//! (atomically) before the next round starts.
//!
//! A rank that dies takes the job with it (Open MPI aborts every rank when one is lost): the
//! rounds already recorded stay, and the driver records the cut round (see
//! `crate::survey::job`).

use crate::error::{Error, Result};
use crate::measure::options::MeasureOptions;
use crate::measure::{rank0, sender};
use crate::mpi::world::{self, Threading, World};
use crate::mpi::{signals, wire};
use crate::survey::error::SurveyError;
use crate::survey::identity::{self, Identity};
use crate::survey::manifest::{Manifest, Round, Status};
use ::mpi::collective::{CommunicatorCollectives, Root};
use ::mpi::topology::{Color, Communicator, Key};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// How one measured node's round ended, sent to world rank 0.
#[derive(Debug, Serialize, Deserialize)]
struct Outcome {
    host: String,
    error: Option<String>,
    traces: Vec<PathBuf>,
}

const TAG_OUTCOME: i32 = 40;
const TAG_IDENTITY: i32 = 41;

/// Runs this rank's part of the survey in `manifest_path` (read by world rank 0 and sent to
/// the others, so only rank 0's node needs to see the file).
pub(crate) fn run(args: &MeasureOptions, manifest_path: &Path) -> Result<()> {
    let interrupted = signals::install();
    let mpi_job = world::init(Threading::Serialized)?;
    let world = &mpi_job.world;
    let me = world.rank();
    let mut manifest = share_manifest(world, manifest_path)?;
    if world.size() as usize != manifest.job_hosts.len() {
        return Err(SurveyError::WrongRanks {
            ranks: world.size() as usize,
            hosts: manifest.job_hosts.len(),
        }
        .into());
    }
    let host = manifest.job_hosts[me as usize].clone();
    if !learn_identities(world, &mut manifest, manifest_path, args, &host)? {
        return Ok(());
    }
    let name = ::mpi::environment::processor_name().unwrap_or_else(|_| host.clone());
    for (r, round) in manifest.rounds.clone().iter().enumerate() {
        // Colour: the pair's index; key: 0 for the measured node, so it is rank 0 there.
        let role = round.pairs.iter().enumerate().find_map(|(i, p)| {
            if p.measured == host {
                Some((i, 0))
            } else if p.sender == host {
                Some((i, 1))
            } else {
                None
            }
        });
        let color = role.map_or_else(Color::undefined, |(i, _)| Color::with_value(i as i32));
        let key: Key = role.map_or(0, |(_, k)| k);
        let pair = world.split_by_color_with_key(color, key);
        let outcome = match (role, &pair) {
            (Some((i, 0)), Some(comm)) => {
                let node = Node {
                    args: node_args(args, &manifest, &host, round.run),
                    host: &host,
                    name: &name,
                    sender: &round.pairs[i].sender,
                };
                Some(node.measure(&mpi_job, interrupted, comm))
            }
            (Some(_), Some(comm)) => {
                world::gather_hosts(comm, &name);
                sender::serve_rank(comm, &name, args.message_size.0 as usize, args.pattern);
                None
            }
            _ => None,
        };
        drop(pair);
        let mut stop = u8::from(signals::interrupted());
        if let Some(outcomes) = collect(world, outcome) {
            record_round(&mut manifest, round, r, outcomes.into_iter().flatten());
            manifest.save(manifest_path)?;
            eprintln!(
                "survey: round {}/{} finished ({}); manifest {}",
                r + 1,
                manifest.rounds.len(),
                round_statuses(&manifest, round),
                manifest_path.display()
            );
        }
        // Ctrl-C anywhere stops the survey after this round, everything finished saved.
        let mut any = stop;
        world.all_reduce_into(&stop, &mut any, ::mpi::collective::SystemOperation::max());
        stop = any;
        if stop != 0 {
            return Err(Error::Interrupted(format!(
                "interrupted after round {}: finished nodes are recorded in {}; continue \
                 with `contention survey --resume`",
                r + 1,
                manifest_path.display()
            )));
        }
    }
    Ok(())
}

/// Every rank's outcome of a round, gathered on world rank 0 (`None` from senders and idle
/// nodes); the other ranks send theirs and get `None`.
fn collect(world: &World, outcome: Option<Outcome>) -> Option<Vec<Option<Outcome>>> {
    let bytes = serde_json::to_vec(&outcome).unwrap_or_else(|_| b"null".to_vec());
    if world.rank() != 0 {
        wire::send(&world.process_at_rank(0), TAG_OUTCOME, &bytes);
        return None;
    }
    let mut outcomes = vec![outcome];
    for other in 1..world.size() {
        let b = wire::receive::<u8>(&world.process_at_rank(other), TAG_OUTCOME);
        outcomes.push(serde_json::from_slice(&b).unwrap_or(None));
    }
    Some(outcomes)
}

/// The manifest, read by world rank 0 and broadcast to every rank (a length, then the text).
fn share_manifest(world: &World, manifest_path: &Path) -> Result<Manifest> {
    let me = world.rank();
    let root = world.process_at_rank(0);
    let mut text = if me == 0 {
        // The bounded reader, as every input: the manifest may have been replaced since the
        // survey read it before the job.
        crate::io::read::text(manifest_path, "survey manifest")?.into_bytes()
    } else {
        Vec::new()
    };
    let mut len = text.len() as u64;
    root.broadcast_into(&mut len);
    text.resize(len as usize, 0);
    root.broadcast_into(&mut text[..]);
    serde_json::from_slice(&text).map_err(|e| {
        Error::Failed(format!(
            "rank {me}: unreadable survey manifest from rank 0 ({e})"
        ))
    })
}

/// A measured node of one round: its `measure` options, its host as the manifest names it,
/// its processor name, and the node that sends to it.
struct Node<'a> {
    args: MeasureOptions,
    host: &'a str,
    name: &'a str,
    sender: &'a str,
}

impl Node<'_> {
    /// Runs `measure`'s rank 0 on the pair's communicator (with GPU copies, `measure
    /// --engine gpu` in this rank, alone on its communicator) and says how it ended.
    fn measure(
        &self,
        mpi_job: &world::Job,
        interrupted: &'static AtomicBool,
        comm: &World,
    ) -> Outcome {
        let (host, sender) = (self.host, self.sender);
        // Each node's sweep runs quietly: with many nodes measured at once their
        // plans and points would interleave on the job's one standard error; each
        // node's outcome gets one line instead, and everything else is in its trace.
        let result = if self.args.engine.gpu().is_some() {
            crate::measure::gpu_job::measure(&self.args, true, interrupted)
        } else {
            let hosts = world::gather_hosts(comm, self.name).unwrap_or_default();
            rank0::measure(&self.args, true, mpi_job.info(hosts), interrupted, comm)
        };
        let trace = self.args.trace_path(&crate::results::this_host());
        let traces = [trace.clone(), crate::measure::session::csv_path(&trace)]
            .into_iter()
            .filter(|p| p.exists())
            .collect();
        let error = result.err().map(|e| e.to_string());
        let by = if sender == host {
            "its GPU's copies".to_string()
        } else {
            format!("sender {sender}")
        };
        match &error {
            None => eprintln!("survey: {host} measured ({by}): {}", trace.display()),
            Some(e) => eprintln!("survey: {host} FAILED ({by}): {e}"),
        }
        Outcome {
            host: host.to_string(),
            error,
            traces,
        }
    }
}

/// Records the measured nodes' outcomes of round `r` (0-based) in the manifest.
fn record_round(
    manifest: &mut Manifest,
    round: &Round,
    r: usize,
    outcomes: impl Iterator<Item = Outcome>,
) {
    let job = manifest.job;
    let asked = manifest.runs_asked();
    for o in outcomes {
        let sender = round
            .pairs
            .iter()
            .find(|p| p.measured == o.host)
            .map(|p| p.sender.clone());
        if let Some(n) = manifest.node_mut(&o.host) {
            n.status = match &o.error {
                Some(_) => Status::Failed,
                // Between its runs a node stays pending.
                None if round.run < asked => Status::Pending,
                None => Status::Done,
            };
            if o.error.is_none() && asked > 1 {
                n.runs_done = round.run;
            }
            n.error = o
                .error
                .map(|e| crate::survey::manifest::run_error(round.run, &e));
            // Each run's traces are kept: a second run's join the first's.
            if round.run <= 1 {
                n.traces.clear();
            } else {
                n.traces.retain(|t| !o.traces.contains(t));
            }
            n.traces.extend(o.traces);
            n.job = Some(job);
            n.round = Some(r + 1);
            n.sender = sender;
        }
    }
}

/// Each measured node of `round` with its status, for the round's log line (a survey of
/// two runs says which run the round measured).
fn round_statuses(manifest: &Manifest, round: &Round) -> String {
    let run = if manifest.runs_asked() > 1 {
        format!("run {} of {}: ", round.run, manifest.runs_asked())
    } else {
        String::new()
    };
    run + &round
        .pairs
        .iter()
        .map(|p| {
            let status = manifest
                .nodes
                .iter()
                .find(|n| n.host == p.measured)
                .map_or("?", |n| match n.status {
                    Status::Failed => "FAILED",
                    _ if !n.waits_for(round.run) => "done",
                    _ => "pending",
                });
            format!("{} {status}", p.measured)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Before round 1: every rank tells world rank 0 the host name its node reports (where its
/// traces go) and whether this survey's trace is there already; rank 0 records the names in
/// the manifest and decides whether the job goes on ([`identity::refusal`]), which every
/// rank learns. `false`: stop now, the reason saved in the manifest for the driver.
fn learn_identities(
    world: &world::World,
    manifest: &mut Manifest,
    path: &Path,
    args: &MeasureOptions,
    host: &str,
) -> Result<bool> {
    let reported = crate::results::this_host();
    // The survey's first job (a resume, or `--runs auto`'s second stage, continues it).
    let first_job = manifest.job <= 1 && !args.resume;
    // Any run's trace left by an earlier survey counts (a second run's is in `run2/`, which
    // `--runs auto` may write too).
    let old_trace = (1..=manifest.runs_possible())
        .map(|run| node_args(args, manifest, host, run).trace_path(&reported))
        .find(|t| t.exists());
    if first_job && args.force {
        // Over an earlier survey, a second run this one does not measure would be read as
        // its own: gone, as `--force` overwrites the rest.
        // Every rank must still report (rank 0 waits for each): a failure is said, not fatal.
        let first = node_args(args, manifest, host, 1).trace_path(&reported);
        if let Err(e) = super::second::forget_second_run(&first) {
            eprintln!("survey: warning: {}", crate::error::escape(&e.to_string()));
        }
    }
    let me = Identity {
        given: host.to_string(),
        reported,
        old_trace,
        machine: identity::this_machine(),
    };
    let root = world.process_at_rank(0);
    let mut go = 1u8;
    if world.rank() == 0 {
        let mut ids = vec![me];
        for other in 1..world.size() {
            let b = wire::receive::<u8>(&world.process_at_rank(other), TAG_IDENTITY);
            // A rank of this same binary always sends one; were it unreadable, its node
            // keeps its given name.
            ids.extend(serde_json::from_slice::<Identity>(&b).ok());
        }
        identity::record(manifest, &ids);
        if let Some(why) = identity::refusal(&ids, first_job && !args.force) {
            manifest.refused = Some(why.to_string());
            go = 0;
        }
        let separated = identity::separate(manifest, &ids);
        if !separated.shared.is_empty() {
            eprintln!(
                "survey: {} share one machine (one kernel's boot id): their pairs are measured \
                 one round at a time, {} round(s) in all",
                crate::error::escape(&separated.shared.join(", ")),
                manifest.rounds.len()
            );
        }
        if let Some(w) = separated.warning() {
            eprintln!("survey: warning: {}", crate::error::escape(&w));
        }
        manifest.save(path)?;
    } else {
        let bytes = serde_json::to_vec(&me).unwrap_or_default();
        wire::send(&root, TAG_IDENTITY, &bytes);
    }
    root.broadcast_into(&mut go);
    if go == 1 {
        // The rounds may have been split: every rank runs rank 0's.
        *manifest = share_manifest(world, path)?;
    }
    Ok(go == 1)
}

/// `measure`'s options for the node `host` in its run `run`: as given, except that a node
/// whose earlier attempt at this run left a trace continues it (`--resume`) rather than
/// stopping at it, and that a second run writes its trace in the node's `run2/` (where the
/// fleet report looks for it, [`crate::results::run_dir`]).
fn node_args(args: &MeasureOptions, manifest: &Manifest, host: &str, run: u32) -> MeasureOptions {
    let mut a = args.clone();
    // The pair's two ranks are the job: the survey's host list is not this measurement's.
    a.hosts = None;
    let first = a.trace_path(&crate::results::this_host());
    if run > 1 {
        let name = first.file_name().map(PathBuf::from).unwrap_or_default();
        let dir = first.parent().map(Path::to_path_buf).unwrap_or_default();
        a.output = Some(crate::results::run_dir(&dir, run).join(name));
    }
    // A node tried by an earlier job (pending again for this one) continues its trace.
    let tried = manifest
        .nodes
        .iter()
        .any(|n| n.host == host && n.waits_for(run) && n.job.is_some_and(|j| j < manifest.job));
    let trace = a.trace_path(&crate::results::this_host());
    a.resume = tried && !a.force && trace.exists();
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::survey::manifest::HostPair;

    #[test]
    fn a_node_stays_pending_between_its_runs_and_keeps_both_runs_traces() {
        let options = [("--runs".to_string(), "2".to_string())].into();
        let mut m = crate::survey::plan::new_manifest(&["a".into(), "b".into()], options);
        m.job = 1;
        let round = |run| Round {
            pairs: vec![HostPair {
                measured: "a".into(),
                sender: "b".into(),
            }],
            run,
            timeout_s: 10.0,
        };
        let outcome = |trace: &str, error: Option<&str>| Outcome {
            host: "a".into(),
            error: error.map(str::to_string),
            traces: vec![PathBuf::from(trace)],
        };
        record_round(
            &mut m,
            &round(1),
            0,
            [outcome("a/t.json", None)].into_iter(),
        );
        let a = &m.nodes[0];
        assert_eq!((a.status, a.runs_done), (Status::Pending, 1));
        assert!(!a.waits_for(1) && a.waits_for(2));
        assert_eq!(round_statuses(&m, &round(1)), "run 1 of 2: a done");
        record_round(
            &mut m,
            &round(2),
            3,
            [outcome("a/run2/t.json", Some("lost"))].into_iter(),
        );
        let a = &m.nodes[0];
        assert_eq!((a.status, a.runs_done), (Status::Failed, 1));
        assert_eq!(a.error.as_deref(), Some("run 2: lost"));
        m.reopen_failed();
        record_round(
            &mut m,
            &round(2),
            3,
            [outcome("a/run2/t.json", None)].into_iter(),
        );
        let a = &m.nodes[0];
        assert_eq!(
            (a.status, a.runs_done, a.error.as_deref()),
            (Status::Done, 2, None)
        );
        assert_eq!(
            a.traces,
            [PathBuf::from("a/t.json"), PathBuf::from("a/run2/t.json")]
        );
        assert_eq!(round_statuses(&m, &round(2)), "run 2 of 2: a done");
    }
}
