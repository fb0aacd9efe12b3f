//! The driver of a survey, run from a shell inside the allocation (or beside `--hosts`):
//! plans the job, writes the manifest, starts the one MPI job and watches its rounds.
//!
//! A round that overruns its time limit (see [`super::plan::round_timeout`]) is taken as a
//! node that hangs: the job is stopped (SIGTERM, the ranks save what they finished, then
//! SIGKILL), and the round's unfinished nodes are recorded failed. A job that ends early for
//! any other reason (a node killed: Open MPI then aborts every rank; Ctrl-C; the
//! allocation's time limit) is recorded the same way. Rounds already written stay as they
//! are, and `--resume` starts a new job over the nodes left.

use super::manifest::{self, Manifest, Status};
use super::plan;
use crate::cli::{CommPattern, Launcher, MeasureArgs};
use crate::error::{Error, Result};
use crate::measure::{launch, progress, session, signals, topology};
use std::ffi::OsString;
use std::path::Path;
use std::time::{Duration, Instant};

const SYSFS: &str = "/sys/devices/system";

/// `contention survey`, from a shell or (as one of the job's ranks) under the launcher.
pub fn run(args: &MeasureArgs) -> Result<()> {
    refuse_measure_only(args)?;
    // `measure`'s checks, but for its `--hosts` (two, one per rank): a survey takes any
    // number, checked by the pairing.
    session::check_values(&MeasureArgs {
        hosts: None,
        ..args.clone()
    })?;
    let path = Manifest::path(&crate::results::root());
    if launch::under_launcher(|k| std::env::var(k).ok()) && !args.dry_run {
        return crate::measure::survey::run(args, &path);
    }
    let (hosts, launcher) = hosts(args)?;
    plan::check_hosts(&hosts).map_err(Error::Input)?;
    let options = manifest::options_of(args);
    let mut m = if args.resume {
        let m = Manifest::read(&path)?;
        m.check_options(&options, &path)?;
        if args.hosts.is_some() && m.hosts != hosts {
            return Err(Error::Input(format!(
                "--resume: `{}` surveys {}, not {}; resume without --hosts (or with the same \
                 ones), or start a new survey with --force",
                path.display(),
                m.hosts.join(","),
                hosts.join(",")
            )));
        }
        m
    } else {
        if path.exists() && !args.force && !args.dry_run {
            return Err(Error::Input(format!(
                "`{}` exists: a survey was started here; pass --resume to continue it, \
                 --force to start a new one (its traces are overwritten), or set {} to \
                 another directory",
                path.display(),
                crate::results::ROOT_ENV
            )));
        }
        if !args.force && !args.dry_run {
            refuse_old_traces(args, &hosts)?;
        }
        plan::new_manifest(&hosts, options)
    };
    let sweep = sweep_estimate(args)?;
    let (job_hosts, rounds) =
        plan::plan_job(&m, plan::round_timeout(sweep)).map_err(Error::Input)?;
    if rounds.is_empty() {
        eprintln!(
            "survey: every node of `{}` is done already; nothing to measure",
            path.display()
        );
        return Ok(());
    }
    let exe = std::env::current_exe()
        .map_err(|e| Error::Failed(format!("cannot find own binary: {e}")))?;
    // The ranks get the same arguments (the dry run shows the line it would run).
    let argv: Vec<OsString> = std::env::args_os()
        .skip(1)
        .filter(|a| a != "--dry-run")
        .collect();
    let slurm = launch::Slurm::detect(|k| std::env::var(k).ok(), launch::srun_version);
    let cmd = plan::command_line(
        launcher,
        &job_hosts,
        launch::is_root(),
        &slurm,
        std::env::var_os(crate::results::ROOT_ENV).is_some(),
        &exe,
        &argv,
    );
    m.job += 1;
    m.job_hosts = job_hosts;
    m.rounds = rounds;
    m.command = cmd
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    if args.dry_run {
        print!("{}", plan::describe(&m, sweep, &m.command.join(" ")));
        return Ok(());
    }
    crate::results::ensure_parent(&path)?;
    m.save(&path)?;
    let quiet = args.quiet;
    if !quiet {
        eprint!("{}", plan::describe(&m, sweep, &m.command.join(" ")));
    }
    let started = Instant::now();
    let ended = watch(&cmd, launcher, &m, &path, quiet)?;
    let mut m = Manifest::read(&path)?;
    if let Some(why) = &ended {
        m.record_cut(why);
        m.save(&path)?;
    }
    let done: Vec<&str> = host_list(&m, Status::Done);
    let failed: Vec<String> = m
        .nodes
        .iter()
        .filter(|n| n.status == Status::Failed)
        .map(|n| format!("{} ({})", n.host, n.error.as_deref().unwrap_or("no reason")))
        .collect();
    let pending = host_list(&m, Status::Pending);
    if !quiet {
        eprintln!(
            "survey: {} of {} node(s) done in {:.0} s; manifest {}",
            done.len(),
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
    if failed.is_empty() && pending.is_empty() {
        return Ok(());
    }
    Err(Error::Failed(format!(
        "{} node(s) failed: {}{}; `contention survey --resume` measures the nodes left in a \
         new job (the failed ones continue their traces)",
        failed.len(),
        failed.join("; "),
        if pending.is_empty() {
            String::new()
        } else {
            format!("; not reached: {}", pending.join(","))
        }
    )))
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
fn refuse_old_traces(args: &MeasureArgs, hosts: &[String]) -> Result<()> {
    let old: Vec<String> = hosts
        .iter()
        .map(|h| session::output_path(args, h))
        .filter(|p| p.exists())
        .map(|p| format!("`{}`", p.display()))
        .collect();
    if old.is_empty() {
        return Ok(());
    }
    Err(Error::Input(format!(
        "traces of this experiment exist already: {}; pass --force to measure these nodes \
         again (overwriting them), or set {} to another directory",
        old.join(", "),
        crate::results::ROOT_ENV
    )))
}

/// What makes no sense for a survey, refused by name.
fn refuse_measure_only(args: &MeasureArgs) -> Result<()> {
    let bad = |what: &str| {
        Err(Error::Input(format!(
            "survey: {what} does not apply to a survey (each node's trace goes to \
             $CONTENTION_RESULTS/HOST/, one pair of ranks per measurement); use `contention \
             measure` for it"
        )))
    };
    if args.output.is_some() {
        return bad("-o/--output");
    }
    if args.graph.is_some() {
        return bad("--graph");
    }
    if args.pattern == CommPattern::Ring || session::ranks(args) != 2 {
        return bad("--pattern ring (a ring of --ranks)");
    }
    Ok(())
}

/// `--hosts` (with `--launcher`), else every node of the Slurm job (with srun).
fn hosts(args: &MeasureArgs) -> Result<(Vec<String>, Launcher)> {
    if let Some(h) = &args.hosts {
        return Ok((h.clone(), args.launcher));
    }
    plan::allocation_hosts(|k| std::env::var(k).ok(), launch::expand_nodelist)
        .map(|h| (h, Launcher::Srun))
        .ok_or_else(|| {
            Error::Input(
                "survey: which nodes? Run it inside a Slurm allocation (salloc or sbatch: \
                 every node of the job, started with srun) or name them: --hosts \
                 n01,n02,n03,n04 (started with mpirun)"
                    .into(),
            )
        })
}

/// `measure`'s estimate of one sweep on this node (taken as typical of the others).
fn sweep_estimate(args: &MeasureArgs) -> Result<f64> {
    let topo = match &args.topology {
        Some(xml) => topology::load_xml(xml)?,
        None => topology::load_this_machine()?,
    };
    let layout = topology::layout(&topo);
    let sysfs = if args.topology.is_some() {
        Path::new("/nonexistent")
    } else {
        Path::new(SYSFS)
    };
    let resolved = session::resolve(args, &layout, sysfs)?;
    let (sweep, touch) = session::estimated_seconds(&resolved.config);
    Ok(sweep + touch)
}

/// Starts the job and waits for it, stopping it when a round overruns its limit. Returns
/// why the job ended early (`None` when it ended with status 0).
fn watch(
    cmd: &[OsString],
    launcher: Launcher,
    m: &Manifest,
    path: &Path,
    quiet: bool,
) -> Result<Option<String>> {
    let hostfile = match launcher {
        Launcher::Srun => {
            let p = std::env::temp_dir().join(format!("contention-survey-{}", std::process::id()));
            std::fs::write(&p, launch::srun_hostfile(&m.job_hosts))
                .map_err(|e| Error::io("write", &p, e))?;
            Some(p)
        }
        Launcher::Mpirun => None,
    };
    let env: Vec<(&str, &Path)> = hostfile
        .as_deref()
        .map(|p| ("SLURM_HOSTFILE", p))
        .into_iter()
        .collect();
    let mode = progress::Mode::from_env_or_terminal(None, quiet);
    let _ = signals::install();
    let child = launch::spawn(cmd, mode.name(), &env);
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            if let Some(p) = &hostfile {
                let _ = std::fs::remove_file(p);
            }
            return Err(e);
        }
    };
    let mut round = Some(0);
    let mut round_start = Instant::now();
    let code = loop {
        if let Some(status) = child
            .try_wait()
            .map_err(|e| Error::Failed(format!("cannot wait for the MPI job: {e}")))?
        {
            break launch::exit_code(status);
        }
        std::thread::sleep(Duration::from_millis(500));
        // Rank 0 rewrites the manifest after every round; a torn read is impossible (it
        // is renamed into place), a missing one is retried next time.
        if let Ok(now) = Manifest::read(path) {
            let current = now.current_round();
            if current != round {
                round = current;
                round_start = Instant::now();
            }
        }
        let Some(r) = round else { continue };
        let limit = m.rounds.get(r).map_or(f64::INFINITY, |r| r.timeout_s);
        if round_start.elapsed().as_secs_f64() > limit {
            eprintln!(
                "survey: round {} has run for more than its limit of {limit:.0} s; stopping \
                 the job",
                r + 1
            );
            let code = launch::stop(&mut child, Duration::from_secs(10))?;
            if let Some(p) = &hostfile {
                let _ = std::fs::remove_file(p);
            }
            return Ok(Some(format!(
                "round {} overran its time limit of {limit:.0} s (the job was stopped, status \
                 {code}): this node or its sender hung",
                r + 1
            )));
        }
    };
    if let Some(p) = &hostfile {
        let _ = std::fs::remove_file(p);
    }
    Ok((code != 0).then(|| {
        if signals::interrupted() {
            "interrupted (Ctrl-C or SIGTERM) during this round".to_string()
        } else {
            format!(
                "the MPI job ended with status {code} during this round: this node or its \
                 sender was killed or failed (the launcher's message is above)"
            )
        }
    }))
}
