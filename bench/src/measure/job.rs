//! `measure` as a job, driven by plain options (no command line): on a simulated machine,
//! or on this node, where it is an MPI job of its own ranks. From a shell it plans the job
//! (`--dry-run`) or starts it under the launcher its MPI library needs, once per run of
//! `--runs` (the relaunch), and reads what each launch's end means for the trace; started by
//! the launcher, each rank takes its side (rank 0 measures, [`rank0`]; the others send,
//! [`sender`]). The command line only checks its arguments into [`JobOptions`].

use crate::error::{Error, Result};
use crate::machine::settings;
use crate::measure::options::MeasureOptions;
use crate::measure::session;
use crate::measure::simulation::{self, SimulateOptions};
#[cfg(feature = "mpi")]
use crate::measure::{rank0, sender};
use crate::mpi::progress;
#[cfg(feature = "mpi")]
use crate::mpi::world::{self, Threading};
use crate::mpi::{driver, launch, signals};
use std::path::{Path, PathBuf};

/// A measurement and how to run it: the options `measure` checks its arguments into.
#[derive(Debug, Clone, PartialEq)]
pub struct JobOptions {
    pub measure: MeasureOptions,
    /// How to start the ranks from a shell.
    pub launcher: launch::Launcher,
    /// Print the plan and exit.
    pub dry_run: bool,
    /// With `dry_run`: plan for the machine of this hwloc XML file.
    pub topology: Option<PathBuf>,
    /// No progress output.
    pub quiet: bool,
    /// `--simulate`: a simulated machine instead of this one.
    pub simulate: Option<SimulateOptions>,
}

/// Runs `measure` with checked options: on the simulated machine they name, or on this
/// node (as rank 0 or 1 inside the job, or as the plan, or as the job's launches).
pub fn run(options: &JobOptions) -> Result<()> {
    if let Some(sim) = &options.simulate {
        let mode = progress::Mode::from_env_or_terminal(None, options.quiet);
        let interrupted = signals::install();
        return simulation::run(&options.measure, sim, mode, options.dry_run, interrupted);
    }
    real_node(options)
}

/// `measure` on this node: rank 0 or 1 inside the job, else the plan or the job's launch.
#[cfg(feature = "mpi")]
fn real_node(options: &JobOptions) -> Result<()> {
    if options.measure.engine.gpu().is_some() {
        if options.dry_run {
            return crate::measure::gpu_job::dry_run(&options.measure, options.topology.as_deref());
        }
        return crate::measure::gpu_job::measure(
            &options.measure,
            options.quiet,
            signals::install(),
        );
    }
    if driver::in_job() && !options.dry_run {
        return as_rank(options);
    }
    let hosts = hosts(options);
    if options.dry_run {
        return dry_run(options, hosts.as_deref());
    }
    launch_job(options, hosts.as_deref())
}

#[cfg(not(feature = "mpi"))]
fn real_node(_: &JobOptions) -> Result<()> {
    Err(crate::mpi::built_without_mpi(
        "measure on this node (its plan included)",
        true,
    ))
}

/// `--hosts`, or inside a Slurm allocation of two or more nodes, this node and another one
/// (two ranks only: a ring names its hosts).
fn hosts(args: &JobOptions) -> Option<Vec<String>> {
    if args.measure.hosts.is_some() || args.measure.job_ranks() != 2 {
        return args.measure.hosts.clone();
    }
    let var = |k: &str| std::env::var(k).ok();
    let Some(hosts) = launch::slurm_hosts(var, launch::expand_nodelist) else {
        if let (Some(node), false) = (launch::slurm_single_node(var), args.quiet) {
            eprintln!(
                "measure: this Slurm job has one node ({node}): both ranks run on it and the \
                 messages do not cross the network; to measure across it, ask for two nodes \
                 (`salloc -N 2 --exclusive`, `sbatch -N 2 --exclusive`)"
            );
        }
        return None;
    };
    if !args.quiet {
        eprintln!(
            "measure: inside a Slurm allocation of several nodes: rank 0 (measured) on {}, \
             rank 1 (sender) on {}, so messages cross the network (--hosts chooses others)",
            hosts[0], hosts[1]
        );
    }
    Some(hosts)
}

#[cfg(feature = "mpi")]
fn dry_run(args: &JobOptions, hosts: Option<&[String]>) -> Result<()> {
    let session::Placed {
        layout, resolved, ..
    } = session::place(
        &args.measure,
        args.topology.as_deref(),
        true,
        hosts.is_none(),
    )?;
    let launch_text = planned_launch(args, hosts);
    let hosts = hosts.map_or_else(|| vec![layout.hostname.clone()], <[String]>::to_vec);
    let settings = args
        .topology
        .is_none()
        .then(|| settings::read_settings(Path::new("/"), Some(layout.numa_per_socket())));
    // The machine's names come from hwloc (or a topology file): escaped for the terminal.
    print!(
        "{}",
        crate::error::escape(&crate::measure::describe::describe_plan(
            &layout,
            &resolved,
            &session::transport(&hosts),
            settings.as_ref()
        ))
    );
    print!("{}", crate::error::escape(&launch_text));
    Ok(())
}

/// The shape of `measure`'s job: its ranks, on `hosts` or all on one host.
fn shape<'a>(args: &JobOptions, hosts: Option<&'a [String]>) -> launch::Shape<'a> {
    launch::Shape {
        ranks: args.measure.job_ranks() as usize,
        rank_hosts: hosts,
        as_root: launch::is_root(),
        // Rank 0 may run elsewhere and find the results directory by it.
        forward: &[crate::results::ROOT_ENV],
    }
}

#[cfg(feature = "mpi")]
/// The plan's lines on the launch: the library, the launcher chosen and why, its command
/// line (or why none can start the job).
fn planned_launch(args: &JobOptions, hosts: Option<&[String]>) -> String {
    let library = world::library();
    let mut out = format!(
        "mpi         {} (the library this binary is built against)\n\
         stack       {}\n",
        library.name,
        crate::mpi::stack::planned(&library.name)
    );
    let planned = driver::plan_own(args.launcher, &shape(args, hosts), true);
    match planned {
        Ok((choice, line)) => {
            out += &format!("launcher    {}\n", choice.why);
            out += &format!("command     {}\n", line.shown());
        }
        Err(e) => out += &format!("launcher    none can start the job: {e}\n"),
    }
    out
}

#[cfg(feature = "mpi")]
/// From a shell: check what can be checked here, then start the job under the launcher.
fn launch_job(args: &JobOptions, hosts: Option<&[String]>) -> Result<()> {
    let var = |k: &str| std::env::var(k).ok();
    // Run from a login node inside a one-node allocation, rank 0 runs on that node.
    let elsewhere =
        launch::slurm_single_node(var).is_some_and(|n| var("SLURMD_NODENAME") != Some(n));
    let shape = shape(args, hosts);
    // Bad requests are refused before MPI starts.
    let trace_here = session::check_before_launch(
        &args.measure,
        hosts.is_none() && !elsewhere,
        hosts.is_none(),
    )?;
    let mode = progress::Mode::from_env_or_terminal(None, args.quiet);
    if let Some(here) = trace_here.as_ref().filter(|h| h.nothing_left) {
        if mode != progress::Mode::Quiet {
            eprintln!(
                "measure: {} already holds every asked core count and run; nothing to \
                 measure, so no MPI job is started and the trace is left as it is",
                crate::error::shown_path(&here.trace)
            );
        }
        return Ok(());
    }
    let trace_here = trace_here.map(|h| h.trace);
    let mut launches = launches(args, trace_here.as_deref());
    // Where this host can look at what a launch saved (rank 0 may write it on another node
    // of a shared file system, or this path may not be that file at all: then nothing
    // counts as saved, and a failed launch fails the command as before).
    let watched = trace_here.clone().or_else(|| args.measure.output.clone());
    let (mut started, mut extra) = (0, 0);
    // The runs the trace here holds, and asks for, as the last launch left it (read once a
    // launch: it is the next launch's "before").
    let mut saved = watched.as_deref().and_then(runs_saved);
    loop {
        if started == launches {
            // A launch can complete an earlier run instead of adding one: `--resume` measures
            // again, in its own run, a point every reader would refuse (a phase disturbed on
            // a loaded machine). The runs asked for are then not all there (seen: 2 of 3, the
            // command ending with status 0): launch again, at most as many more times as
            // runs were asked, so that a machine that keeps spoiling points ends.
            match saved {
                Some((done, asked)) if done < asked && extra < asked => {
                    extra += 1;
                    launches += 1;
                    if mode != progress::Mode::Quiet {
                        eprintln!(
                            "measure: the trace holds {done} of its {asked} runs (a launch \
                             measured again a refused point of an earlier run): one more launch"
                        );
                    }
                }
                _ => break,
            }
        }
        let this = started;
        started += 1;
        // The first launch starts (or resumes) the trace; each later one adds the next run.
        let (choice, line) = if this == 0 {
            driver::plan_own(args.launcher, &shape, false)?
        } else {
            driver::plan_next_run(args.launcher, &shape)?
        };
        if mode != progress::Mode::Quiet {
            if launches > 1 {
                eprintln!(
                    "measure: launch {} of {} (one run each, --runs {})",
                    this + 1,
                    launches,
                    args.measure.runs
                );
            }
            eprintln!("measure: launcher: {}", choice.why);
            eprintln!("measure: starting {}", line.shown());
        }
        let before = saved.map(|(done, _)| done);
        // Ctrl-C, SIGTERM and SIGHUP to this process are forwarded to the job; this
        // process waits for it to save and exit.
        let ended = driver::run(&line, mode, driver::Signals::Forward)?;
        saved = watched.as_deref().and_then(runs_saved);
        let after = saved.map(|(done, _)| done);
        if ended_after_saving(&ended, before, after) {
            if mode != progress::Mode::Quiet {
                eprintln!(
                    "measure: warning: launch {} of {launches} ended with status {} after its \
                     run was saved in {} (the failure came as the job shut down; the \
                     launcher's message, if any, is above): its points are kept{}",
                    this + 1,
                    ended.code,
                    crate::error::shown_path(watched.as_deref().unwrap_or(Path::new("-o"))),
                    if this + 1 < launches {
                        ", and the next run starts"
                    } else {
                        ""
                    }
                );
            }
            continue;
        }
        job_ended(args, ended)?;
    }
    Ok(())
}

/// How many complete runs the trace at `path` holds and how many it asks for
/// (`config.runs`, at least 1), when this host can read it: where the runs of one process
/// (`--engine gpu`) stop.
pub(crate) fn runs_saved(path: &Path) -> Option<(u32, u32)> {
    resumable(path)
        .ok()
        .map(|t| (runs_done(&t), t.config.runs.max(1)))
}

/// The trace at `path` as `--resume` continues it: without the points it drops to measure
/// again.
fn resumable(path: &Path) -> Result<crate::trace::Trace> {
    let t = crate::io::trace_file::read_to_resume(path)?;
    let cores_per_socket = t.machine.cores_per_socket;
    Ok(crate::measure::session::without_refused(t, cores_per_socket, path).0)
}

/// A trace's complete runs; a complete trace of one run that predates `runs[]` is one.
fn runs_done(t: &crate::trace::Trace) -> u32 {
    if t.runs.is_empty() {
        u32::from(t.complete)
    } else {
        t.finished_runs() as u32
    }
}

/// Whether a launch that failed (not interrupted) had saved its run first: the trace holds
/// one more complete run than before it started. Rank 0 writes a run's last point only once
/// it has measured it, and reports its own errors before that; a status that comes after
/// (a daemon of the launcher killed in the job's teardown, a rank's `MPI_Finalize` failing)
/// takes nothing from the data, and ending the command there would lose the runs after it.
fn ended_after_saving(ended: &driver::Ended, before: Option<u32>, after: Option<u32>) -> bool {
    let failed = ended.code != 0 && !ended.interrupted && ended.code != 130;
    failed && after.is_some_and(|a| a > before.unwrap_or(0))
}

/// How many MPI launches `measure` starts: one per run of `--runs`, less the runs a resumed
/// trace (readable here, `trace_here`) already completed; at least one, which says when
/// there is nothing left to measure.
fn launches(args: &JobOptions, trace_here: Option<&Path>) -> u32 {
    let o = &args.measure;
    let asked = o.runs;
    let Some(path) = trace_here.filter(|_| o.resume) else {
        return asked;
    };
    match resumable(path) {
        Ok(t) => {
            let runs = t.config.runs.max(o.keeping(&t.config).runs);
            // A complete trace of one run is the first run of more.
            runs.saturating_sub(runs_done(&t)).max(1)
        }
        Err(_) => asked,
    }
}

/// The end of one launch: its exit status as this command's.
fn job_ended(args: &JobOptions, ended: driver::Ended) -> Result<()> {
    let code = ended.code;
    let trace = args
        .measure
        .output
        .as_ref()
        .map_or_else(|| "the trace".to_string(), |p| format!("`{}`", p.display()));
    match code {
        0 => Ok(()),
        _ if ended.interrupted || code == 130 => Err(Error::Interrupted(format!(
            "interrupted: finished points are saved in {trace}; continue with --resume"
        ))),
        // Rank 0 reported its own error (bad input, a stalled peer) with its exit status.
        1 | 2 => Err(Error::Reported(code)),
        // A rank killed (the launcher reports 128 + signal, or its own failure status).
        c => Err(Error::Failed(format!(
            "the MPI job ended with status {c}: a rank was killed or failed (the launcher's \
             message is above); finished points are saved in {trace}; continue with --resume"
        ))),
    }
}

#[cfg(feature = "mpi")]
/// Under the launcher: rank 0 measures, the other ranks send (and receive, in an exchange).
fn as_rank(args: &JobOptions) -> Result<()> {
    let interrupted = signals::install();
    let o = &args.measure;
    let want = o.job_ranks() as usize;
    let job = world::join(Threading::Serialized, want, |got, own| {
        Error::Input(format!(
            "measure --pattern {} needs exactly {want} MPI ranks, got {got}; start it without \
             a launcher (it starts itself) or with `{own}`",
            o.pattern.name()
        ))
    })?;
    let name = job.host();
    let Some(hosts) = job.gather_hosts(&name) else {
        sender::serve_rank(&job.world, &name, o.message_size.0 as usize, o.pattern);
        return Ok(());
    };
    rank0::measure(o, args.quiet, job.info(hosts), interrupted, &job.world)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_launch_that_fails_after_saving_its_run_keeps_it() {
        let ended = |code, interrupted| driver::Ended { code, interrupted };
        // Teardown failures after the run was written: kept, the next run goes on.
        assert!(ended_after_saving(&ended(1, false), Some(1), Some(2)));
        assert!(ended_after_saving(&ended(137, false), None, Some(1)));
        // Nothing new saved, a success, or an interruption: the status decides as before.
        assert!(!ended_after_saving(&ended(1, false), Some(1), Some(1)));
        assert!(!ended_after_saving(&ended(1, false), Some(2), None));
        assert!(!ended_after_saving(&ended(1, false), None, None));
        assert!(!ended_after_saving(&ended(0, false), Some(1), Some(2)));
        assert!(!ended_after_saving(&ended(130, false), Some(1), Some(2)));
        assert!(!ended_after_saving(&ended(1, true), Some(1), Some(2)));
    }
}
