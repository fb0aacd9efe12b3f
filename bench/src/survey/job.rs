//! The driver of a survey, run from a shell inside the allocation (or beside `--hosts`):
//! plans the job, writes the manifest, starts the one MPI job and watches its rounds.
//!
//! A round that overruns its time limit (see `super::plan::round_timeout`) is taken as a
//! node that hangs: the job is stopped (SIGTERM, the ranks save what they finished, then
//! SIGKILL), and the round's unfinished nodes are recorded failed. A job that ends early for
//! any other reason (a node killed: Open MPI then aborts every rank; Ctrl-C; the
//! allocation's time limit) is recorded the same way. Rounds already written stay as they
//! are, and `--resume` starts a new job over the nodes left.

use super::error::SurveyError;
use super::identity;
use super::manifest::{Manifest, Status};
use super::{plan, SurveyOptions};
use crate::error::{Error, IoAction, Result};
use crate::measure::choices::CommPattern;
use crate::measure::options::MeasureOptions;
use crate::measure::session;
use crate::mpi::progress;
use crate::mpi::{driver, launch, signals};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[cfg(feature = "mpi")]
/// `contention survey`, from a shell or (as one of the job's ranks) under the launcher.
/// Returns the manifest's path when this process drove the job (or found every node done),
/// `None` for a rank of the job and for a dry run. Nodes that failed are recorded in the
/// manifest, not returned as an error ([`failure`] says which): the caller reports the
/// others first.
///
/// With `--runs auto`, once every node has its first run, `choose` names the nodes measured
/// again, in a second job ([`super::second`]); a `--resume` finishes whichever stage was cut.
pub fn run(o: &SurveyOptions, choose: super::second::ChooseSecond<'_>) -> Result<Option<PathBuf>> {
    refuse_measure_only(o)?;
    let root = crate::results::root();
    let path = Manifest::path(&root);
    if driver::in_job() && !o.dry_run {
        crate::survey::ranks::run(&o.measure, &path)?;
        return Ok(None);
    }
    let hosts = hosts(o)?;
    plan::check_hosts(&hosts)?;
    if o.measure.hosts.is_some() {
        // Slurm names each node once; a list typed by the user may name one twice.
        if let Some(e) = identity::same_address(&hosts, identity::resolve) {
            return Err(e.into());
        }
    }
    let mut m = manifest_to_run(o, &path, hosts)?;
    let (sweep, adaptive) = sweep_estimate(o)?;
    let timeout = plan::round_timeout(sweep);
    let mut jobs = 0;
    loop {
        if super::second::due(&m) && !o.dry_run {
            let again = super::second::start(&mut m, &root, choose, timeout)?;
            m.save(&path)?;
            if !o.quiet {
                eprintln!(
                    "survey: --runs auto: {} of {} node(s) measured again (outside the first \
                     runs' band, or in the sample): {}",
                    m.second_runs.as_ref().map_or(0, Vec::len),
                    m.hosts.len(),
                    crate::error::clip(&m.second_runs.clone().unwrap_or_default().join(", "))
                );
            }
            if again.is_empty() {
                return Ok(Some(path));
            }
        }
        let (job_hosts, rounds) = plan::plan_job(&m, timeout)?;
        if rounds.is_empty() {
            if jobs == 0 {
                eprintln!(
                    "survey: every node of `{}` is done already; nothing to measure",
                    path.display()
                );
            }
            return Ok(Some(path));
        }
        // The same choice of launcher as `measure`'s, for one rank per node; the ranks get
        // the same arguments (the dry run shows the line it would run).
        let (choice, line) = driver::plan_own(
            o.launcher,
            &plan::shape(&job_hosts, launch::is_root()),
            true,
        )?;
        m.job += 1;
        m.job_hosts = job_hosts;
        m.rounds = rounds;
        m.command = line
            .argv
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        let described = crate::error::escape(&plan::describe(
            &m,
            sweep,
            adaptive.as_deref(),
            &choice.why,
            &line.shown(),
        ));
        if o.dry_run {
            print!("{described}");
            return Ok(None);
        }
        crate::results::ensure_parent(&path)?;
        m.save(&path)?;
        if !o.quiet {
            eprint!("{described}");
        }
        run_watched(&line, &m, &path, o)?;
        jobs += 1;
        m = Manifest::read(&path)?;
        // A job cut in its first stage leaves nodes without their first run: reported,
        // then `--resume` (which then makes the second stage).
        if !super::second::due(&m) {
            return Ok(Some(path));
        }
    }
}

/// [`run`] in a build without the `mpi` feature: a survey of real nodes is an MPI job.
#[cfg(not(feature = "mpi"))]
pub fn run(_: &SurveyOptions, _: super::second::ChooseSecond<'_>) -> Result<Option<PathBuf>> {
    Err(crate::mpi::built_without_mpi(
        "survey of real nodes (its plan included)",
        true,
    ))
}

/// Runs the job of manifest `m` (saved at `path`) on `line` and watches its rounds; then
/// records a job cut short, and says how many nodes are done. `Err` when the job was
/// refused before round 1 or interrupted: both leave the manifest saying what finished.
fn run_watched(line: &launch::JobLine, m: &Manifest, path: &Path, o: &SurveyOptions) -> Result<()> {
    let quiet = o.quiet;
    let started = Instant::now();
    let ended = watch(line, m, path, quiet)?;
    let mut m = Manifest::read(path)?;
    if let Some(why) = m.refused.take() {
        // A later job of the survey (a resume, or `--runs auto`'s second stage) keeps it.
        let kept = o.measure.resume || m.job > 1;
        return Err(forget_refused_job(m, path, kept, why));
    }
    if let Some(why) = &ended {
        m.record_cut(why);
        m.save(path)?;
    }
    if !quiet {
        eprintln!(
            "survey: {} of {} node(s) done in {:.0} s; manifest {}",
            host_list(&m, Status::Done).len(),
            m.hosts.len(),
            started.elapsed().as_secs_f64(),
            path.display()
        );
    }
    if signals::interrupted() {
        return Err(Error::Interrupted(format!(
            "interrupted: finished nodes are recorded in {}; continue with `contention \
             survey --resume`",
            path.display()
        )));
    }
    Ok(())
}

/// The manifest this run continues (`--resume`: the saved one, checked against the options
/// and hosts given now) or starts (refusing to overwrite a manifest or old traces without
/// `--force`).
fn manifest_to_run(o: &SurveyOptions, path: &Path, hosts: Vec<String>) -> Result<Manifest> {
    let args = &o.measure;
    let mut options = args.measured_flags();
    // Recorded unless 1, so that a survey of one run keeps its manifest as it was.
    match o.runs {
        1 => {}
        super::AUTO_RUNS => {
            options.insert("--runs".into(), super::manifest::AUTO.into());
        }
        runs => {
            options.insert("--runs".into(), runs.to_string());
        }
    }
    if args.resume {
        let mut m = Manifest::read_for(path, "--resume")?;
        m.check_options(&options, path)?;
        if args.hosts.is_some() && m.hosts != hosts {
            return Err(SurveyError::OtherHosts {
                path: path.to_path_buf(),
                saved: m.hosts,
                now: hosts,
            }
            .into());
        }
        m.reopen_failed();
        return Ok(m);
    }
    if path.exists() && !args.force && !o.dry_run {
        return Err(SurveyError::ManifestExists {
            path: path.to_path_buf(),
        }
        .into());
    }
    let m = plan::new_manifest(&hosts, options);
    if !args.force && !o.dry_run {
        refuse_old_traces(args, &hosts, m.runs_possible())?;
    }
    Ok(m)
}

/// The error of a job whose rank 0 refused to start round 1 (two names of one node, old
/// traces: [`super::identity::refusal`]). Nothing was measured: a new survey's manifest is
/// removed, so that the same command with the fix starts afresh; a resumed one is kept as
/// it was, the reason cleared.
fn forget_refused_job(mut m: Manifest, path: &Path, resumed: bool, why: String) -> Error {
    let kept = if resumed {
        m.save(path)
    } else {
        std::fs::remove_file(path)
            .map_err(|e| Error::io(IoAction::Write("survey manifest"), path, e))
    };
    match kept {
        Ok(()) => SurveyError::JobRefused { why }.into(),
        Err(e) => e,
    }
}

/// The nodes of `m` that failed or were not reached, as the error a survey ends with after
/// reporting the others; `None` when every node is done.
pub fn failure(m: &Manifest) -> Option<SurveyError> {
    let failed: Vec<(String, String)> = m
        .nodes
        .iter()
        .filter(|n| n.status == Status::Failed)
        .map(|n| {
            (
                n.host.clone(),
                n.error.clone().unwrap_or_else(|| "no reason".into()),
            )
        })
        .collect();
    let pending: Vec<String> = host_list(m, Status::Pending)
        .into_iter()
        .map(str::to_string)
        .collect();
    (!failed.is_empty() || !pending.is_empty())
        .then_some(SurveyError::NodesFailed { failed, pending })
}

fn host_list(m: &Manifest, status: Status) -> Vec<&str> {
    m.nodes
        .iter()
        .filter(|n| n.status == status)
        .map(|n| n.host.as_str())
        .collect()
}

/// Refuses to start a new survey over traces already in the results directory (an earlier
/// `measure` or survey): each node would stop at its own, one by one, after the job started.
/// A second run's (in `run2/`) counts where this survey may measure one (`runs`: 2): an
/// earlier survey's would be taken for this one's.
fn refuse_old_traces(args: &MeasureOptions, hosts: &[String], runs: u32) -> Result<()> {
    let traces: Vec<PathBuf> = hosts
        .iter()
        .flat_map(|h| {
            let first = args.trace_path(h);
            (1..=runs).map(move |run| match (first.parent(), first.file_name()) {
                (Some(dir), Some(name)) => crate::results::run_dir(dir, run).join(name),
                _ => first.clone(),
            })
        })
        .filter(|p| p.exists())
        .collect();
    if traces.is_empty() {
        return Ok(());
    }
    Err(SurveyError::OldTraces { traces }.into())
}

/// What makes no sense for a survey, refused by name (`--graph` is refused by the command).
fn refuse_measure_only(o: &SurveyOptions) -> Result<()> {
    let option = if o.measure.output.is_some() {
        "-o/--output"
    } else if o.measure.pattern == CommPattern::Ring || o.measure.job_ranks() != 2 {
        "--pattern ring (a ring of --ranks)"
    } else {
        return Ok(());
    };
    Err(SurveyError::NotForSurvey { option }.into())
}

/// `--hosts`, else every node of the Slurm job: at least two (a sender needs another node),
/// or a message that says what to ask Slurm for.
fn hosts(o: &SurveyOptions) -> Result<Vec<String>> {
    if let Some(h) = &o.measure.hosts {
        return Ok(h.clone());
    }
    let var = |k: &str| std::env::var(k).ok();
    let hosts = plan::allocation_hosts(var, launch::expand_nodelist).ok_or(SurveyError::NoHosts)?;
    if let [node] = hosts.as_slice() {
        return Err(SurveyError::OneNodeJob {
            job: var("SLURM_JOB_ID").unwrap_or_default(),
            node: node.clone(),
        }
        .into());
    }
    Ok(hosts)
}

#[cfg(feature = "mpi")]
/// `measure`'s estimate of one sweep on this node (taken as typical of the others) and, with
/// `--adaptive`, the plan's line on how each node's sweep chooses its core counts (the
/// estimate stays the full sweep's, which an adaptive sweep of the same counts never
/// exceeds).
fn sweep_estimate(o: &SurveyOptions) -> Result<(f64, Option<String>)> {
    // Each node's sender is another node.
    let placed = session::place(&o.measure, o.topology.as_deref(), false, false)?;
    let config = &placed.resolved.config;
    let (sweep, touch) = session::estimated_seconds(config);
    let adaptive = o
        .measure
        .adaptive
        .map(|a| a.design.describe(&a, &config.cores));
    Ok((sweep + touch, adaptive))
}

/// How long the job may take to end once every round is recorded (`MPI_Finalize` of every
/// rank, the launcher's teardown: seconds).
const FINALIZE_GRACE: Duration = Duration::from_secs(30);

/// Starts the job and waits for it, stopping it when a round overruns its limit, or when it
/// does not end after its last round (see [`FINALIZE_GRACE`]). Returns
/// why the job ended early (`None` when it ended with status 0).
fn watch(line: &launch::JobLine, m: &Manifest, path: &Path, quiet: bool) -> Result<Option<String>> {
    let mode = progress::Mode::from_env_or_terminal(None, quiet);
    let mut job = driver::start(line, mode, driver::Signals::Forward)?;
    let mut clock = RoundClock::new(m, Instant::now());
    let ended = loop {
        if let Some(ended) = driver::try_wait(&mut job)? {
            break ended;
        }
        std::thread::sleep(Duration::from_millis(500));
        // Rank 0 rewrites the manifest after every round; a torn read is impossible (it
        // is renamed into place), a missing one is retried next time.
        if let Ok(now) = Manifest::read(path) {
            clock.observe(&now, Instant::now());
        }
        if clock.round.is_none() {
            // Every round recorded: the job has only to end. An MPI library can hang in its
            // own finalization (MPICH 4.0.2 over UCX's TCP transport did, every rank inside
            // `MPI_Finalize`): past a grace period it is stopped, its results kept.
            if clock.since.elapsed() > FINALIZE_GRACE {
                let code = launch::stop(&mut job, Duration::from_secs(10))?;
                eprintln!(
                    "survey: every round is recorded, but the MPI job did not end within {} s \
                     of its last round (its library hung while finishing); it was stopped \
                     (status {code}), the results are complete",
                    FINALIZE_GRACE.as_secs()
                );
                return Ok(None);
            }
            continue;
        }
        if let Some((r, limit)) = clock.overran(Instant::now()) {
            eprintln!(
                "survey: round {} has run for more than its limit of {limit:.0} s; stopping \
                 the job",
                r + 1
            );
            let code = launch::stop(&mut job, Duration::from_secs(10))?;
            return Ok(Some(format!(
                "round {} overran its time limit of {limit:.0} s (the job was stopped, status \
                 {code}): this node or its sender hung",
                r + 1
            )));
        }
    };
    let code = ended.code;
    Ok((code != 0).then(|| {
        if ended.interrupted {
            "interrupted (Ctrl-C or SIGTERM) during this round".to_string()
        } else {
            format!(
                "the MPI job ended with status {code} during this round: this node or its \
                 sender was killed or failed (the launcher's message is above)"
            )
        }
    }))
}

/// The round the driver times: which one is under way (0-based; `None` once every round is
/// recorded), since when, and its time limit. The limit is read from the manifest as rank 0
/// last wrote it, which holds the rounds the job runs: before round 1 the job splits the
/// planned rounds of nodes that share a machine into more ([`identity::separate`]), and the
/// plan has no entry for the added ones (looked up there, they had no limit, and a node that
/// hung in one was never stopped).
struct RoundClock {
    round: Option<usize>,
    since: Instant,
    limit: f64,
}

impl RoundClock {
    /// The clock at the job's start (`at`): round 1 of `planned` under way.
    fn new(planned: &Manifest, at: Instant) -> Self {
        RoundClock {
            round: Some(0),
            since: at,
            limit: round_limit(planned, 0),
        }
    }

    /// Takes in the manifest as rank 0 last wrote it (`now`, read at `at`): a new round
    /// restarts the clock with that round's limit, from `now`.
    fn observe(&mut self, now: &Manifest, at: Instant) {
        let current = now.current_round();
        if current != self.round {
            self.round = current;
            self.since = at;
            self.limit = current.map_or(f64::INFINITY, |r| round_limit(now, r));
        }
    }

    /// The round under way and its limit when it has run past that limit at `at`.
    fn overran(&self, at: Instant) -> Option<(usize, f64)> {
        let r = self.round?;
        (at.saturating_duration_since(self.since).as_secs_f64() > self.limit)
            .then_some((r, self.limit))
    }
}

/// Round `r`'s limit in `m` (`r` is one of `m`'s rounds: [`Manifest::current_round`]).
fn round_limit(m: &Manifest, r: usize) -> f64 {
    m.rounds.get(r).map_or(f64::INFINITY, |r| r.timeout_s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::survey::identity::{self, Identity};
    use crate::survey::manifest::Status;

    /// The rounds that `identity::separate` adds (nodes of one kernel) are timed like the
    /// planned ones: the limit is read from the manifest the job runs, not from the plan.
    #[test]
    fn a_round_added_by_the_one_kernel_split_has_a_time_limit() {
        let hosts: Vec<String> = ["a", "b", "c", "d"].map(String::from).to_vec();
        let mut planned = crate::survey::plan::new_manifest(&hosts, Default::default());
        planned.rounds = crate::survey::plan::plan_job(&planned, 60.0).unwrap().1;
        assert_eq!(planned.rounds.len(), 2);
        // Rank 0 learns that the four names are one kernel and splits the rounds (4).
        let mut running = planned.clone();
        let ids: Vec<Identity> = hosts
            .iter()
            .map(|h| Identity {
                given: h.clone(),
                reported: h.clone(),
                old_trace: None,
                machine: Some("k1".into()),
            })
            .collect();
        identity::separate(&mut running, &ids);
        assert_eq!(running.rounds.len(), 4);
        let t0 = Instant::now();
        let mut clock = RoundClock::new(&planned, t0);
        // Rounds 1 to 3 recorded: round 4, which the plan did not have, is under way.
        for n in running.nodes.iter_mut().take(3) {
            n.status = Status::Done;
        }
        let started = t0 + Duration::from_secs(300);
        clock.observe(&running, started);
        assert_eq!(clock.round, Some(3));
        assert_eq!(clock.overran(started + Duration::from_secs(59)), None);
        assert_eq!(
            clock.overran(started + Duration::from_secs(61)),
            Some((3, 60.0)),
            "a hung node in an added round must be stopped"
        );
        // Every round recorded: nothing to time.
        running.nodes[3].status = Status::Done;
        clock.observe(&running, started);
        assert_eq!(clock.overran(started + Duration::from_secs(1000)), None);
    }
}
