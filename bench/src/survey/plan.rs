//! A survey's plan before anything runs: which nodes (`--hosts` or the Slurm job's), the
//! rounds of pairs ([`super::pairing`]), each round's time limit from `measure`'s own
//! estimate, and the shape of the one MPI job, which `measure`'s launcher choice turns into
//! a command line ([`crate::mpi::launch::plan_launch`]). `--dry-run` prints it; the
//! driver writes it into the manifest and runs it.

use super::error::SurveyError;
use super::manifest::{HostPair, Manifest, NodeStatus, Round, Status};
use super::pairing;
use crate::mpi::launch;

/// Seconds added to every round's estimate: MPI start-up, topology discovery, touching the
/// buffers and writing traces, which the sweep estimate leaves out.
const ROUND_SLACK_S: f64 = 60.0;

/// The time an MPI job takes to start on every node, for the dry run's total.
const JOB_START_S: f64 = 30.0;

/// A round's time limit: twice `measure`'s estimate of one sweep (the estimate is an upper
/// bound on a healthy node; twice it leaves room for a slow but live one) plus start-up.
pub(crate) fn round_timeout(sweep_estimate_s: f64) -> f64 {
    (2.0 * sweep_estimate_s + ROUND_SLACK_S).ceil()
}

/// The nodes of the Slurm job around this process, this node first (its rank 0 writes the
/// manifest where this process reads it): `SLURM_JOB_NODELIST` expanded (`scontrol show
/// hostnames` through `expand`). `None` outside a job.
pub(crate) fn allocation_hosts(
    var: impl Fn(&str) -> Option<String>,
    expand: impl FnOnce(&str) -> Option<Vec<String>>,
) -> Option<Vec<String>> {
    var("SLURM_JOB_ID")?;
    let mut list = expand(&var("SLURM_JOB_NODELIST").or_else(|| var("SLURM_NODELIST"))?)?;
    if let Some(here) = var("SLURMD_NODENAME") {
        if let Some(i) = list.iter().position(|h| *h == here) {
            list[..=i].rotate_right(1);
        }
    }
    Some(list)
}

/// Refuses a host list with a repeated name: each node is measured once, by one rank.
pub(crate) fn check_hosts(hosts: &[String]) -> Result<(), SurveyError> {
    match super::manifest::repeated(hosts.iter().map(String::as_str)) {
        Some(host) => Err(SurveyError::RepeatedHost { host }),
        None => Ok(()),
    }
}

/// The job that measures the nodes of `manifest` not done yet: its hosts in rank order (the
/// nodes left and the senders they need, in the order of `manifest.hosts`) and its rounds.
///
/// A survey of two runs (`--runs 2`) measures each node again after every node's first run:
/// the second runs' rounds are the first ones in reverse order, so a node's two runs fall in
/// different rounds (one of round 1 is measured again in the last round) with other
/// neighbours in time: what the noise between runs is made of. A node cut in its second run
/// is measured again in the second runs' rounds only.
pub fn plan_job(
    manifest: &Manifest,
    round_timeout_s: f64,
) -> Result<(Vec<String>, Vec<Round>), SurveyError> {
    let n = manifest.hosts.len();
    let mut used = vec![false; n];
    let mut rounds = Vec::new();
    for run in 1..=manifest.runs_asked() {
        // A node with no status (a manifest cut short) is not done: `Manifest::read`
        // refuses such a manifest, this keeps the plan total on any value.
        let todo: Vec<usize> = (0..n)
            .filter(|&i| {
                manifest
                    .nodes
                    .get(i)
                    .is_none_or(|s| s.status != Status::Done && s.runs_finished() < run)
            })
            .collect();
        let mut these = pairing::plan(n, &todo, manifest.nodes_alone())?;
        if run % 2 == 0 {
            these.reverse();
        }
        for pairs in these {
            for p in &pairs {
                used[p.measured] = true;
                used[p.sender] = true;
            }
            rounds.push(round(manifest, pairs, run, round_timeout_s));
        }
    }
    let job_hosts = (0..n)
        .filter(|&i| used[i])
        .map(|i| manifest.hosts[i].clone())
        .collect();
    Ok((job_hosts, rounds))
}

/// The rounds of the second runs of `again` (host names) after every node's first run
/// (`--runs auto`): the nodes, in the order of the manifest's hosts, paired among themselves
/// and in reverse order as the second runs of `--runs 2` are, each fed by a sender on
/// another node. The same rounds as [`plan_job`] plans once the choice is recorded
/// ([`Manifest::choose_second`]): a resume of a cut second stage pairs its nodes alike.
pub(crate) fn second_runs(
    manifest: &Manifest,
    again: &[String],
    round_timeout_s: f64,
) -> Result<Vec<Round>, SurveyError> {
    let again: std::collections::HashSet<&str> = again.iter().map(String::as_str).collect();
    let todo: Vec<usize> = (0..manifest.hosts.len())
        .filter(|&i| again.contains(manifest.hosts[i].as_str()))
        .collect();
    if todo.is_empty() {
        return Ok(Vec::new());
    }
    let mut rounds = pairing::plan(manifest.hosts.len(), &todo, manifest.nodes_alone())?;
    rounds.reverse();
    Ok(rounds
        .into_iter()
        .map(|pairs| round(manifest, pairs, 2, round_timeout_s))
        .collect())
}

/// The most rounds `--runs auto`'s second stage can take on a fleet of `n` nodes: those of
/// the most nodes it may choose ([`crate::fleet::second::most_chosen`]) or one fewer (an
/// odd count takes a third round), for the plan's duration before the choice is made.
pub(crate) fn second_rounds_at_most(n: usize, nodes_alone: bool) -> usize {
    let cap = crate::fleet::second::most_chosen(n);
    [cap, cap.saturating_sub(1)]
        .into_iter()
        .filter(|&k| k > 0 && n >= 2)
        .filter_map(|k| {
            pairing::plan(n, &(0..k).collect::<Vec<_>>(), nodes_alone)
                .ok()
                .map(|r| r.len())
        })
        .max()
        .unwrap_or(0)
}

/// The round of `pairs` (indices into the manifest's hosts) in run `run`.
fn round(manifest: &Manifest, pairs: Vec<pairing::Pair>, run: u32, timeout_s: f64) -> Round {
    Round {
        pairs: pairs
            .into_iter()
            .map(|p| HostPair {
                measured: manifest.hosts[p.measured].clone(),
                sender: manifest.hosts[p.sender].clone(),
            })
            .collect(),
        run,
        timeout_s,
    }
}

/// A new manifest for `hosts`, every node pending (rounds and job filled by `plan_job`).
pub fn new_manifest(
    hosts: &[String],
    options: std::collections::BTreeMap<String, String>,
) -> Manifest {
    let now = crate::timestamp::now();
    let mut m = Manifest {
        schema_version: super::manifest::SCHEMA_VERSION,
        hosts: hosts.to_vec(),
        options,
        odd_count: None,
        job: 0,
        job_hosts: Vec::new(),
        command: Vec::new(),
        rounds: Vec::new(),
        nodes: hosts.iter().map(|h| NodeStatus::pending(h)).collect(),
        refused: None,
        simulated: None,
        second_runs: None,
        started_at: now.clone(),
        updated_at: now,
    };
    // Nodes measured alone are not paired.
    if !m.nodes_alone() {
        m.odd_count = odd_note(hosts);
    }
    m
}

/// How the last node of an odd count is paired, with the hosts' names.
pub(crate) fn odd_note(hosts: &[String]) -> Option<String> {
    let n = hosts.len();
    (n >= 3 && n % 2 == 1).then(|| {
        format!(
            "{n} nodes (odd): rounds 1 and 2 measure {} nodes each; the last node, {}, is \
             measured alone in round 3, fed by {} (the first node, measured in round 1)",
            n / 2,
            hosts[n - 1],
            hosts[0]
        )
    })
}

/// The survey's job: one rank per host of `job_hosts`, rank `i` on `job_hosts[i]` (each
/// launcher's dialect keeps that order: see [`launch::job_line`]), the results directory
/// passed to remote ranks (`CONTENTION_RESULTS`: Open MPI's mpirun forwards no other
/// variable; Hydra and srun pass the whole environment).
pub(crate) fn shape(job_hosts: &[String], as_root: bool) -> launch::Shape<'_> {
    launch::Shape {
        ranks: job_hosts.len(),
        rank_hosts: Some(job_hosts),
        as_root,
        forward: &[crate::results::ROOT_ENV],
    }
}

/// What the job does with nodes that share a kernel, as the dry run says it.
const KERNELS: &str = "kernels     nodes that turn out to share a kernel (the same boot id: \
    containers or network namespaces of one machine) disturb each other's pairs: the job, \
    which learns this before round 1, measures their pairs in rounds of their own, added to \
    those above (each as long), and names in a warning every pair whose sender runs on its \
    measured node's own machine\n";

/// [`KERNELS`] for nodes measured alone (GPU copies).
const KERNELS_ALONE: &str = "kernels     nodes that turn out to share a kernel (the same \
    boot id: containers or network namespaces of one machine) share its memory and GPUs: the \
    job, which learns this before round 1, measures them in rounds of their own, added to \
    those above (each as long)\n";

/// The plan as `--dry-run` prints it: nodes, rounds with their pairs, what happens to nodes
/// that share a kernel, how each node's sweep chooses its core counts (`adaptive`: the line
/// of `measure`'s plan, when `--adaptive` is on), the duration, the launcher chosen and why,
/// and its line.
pub(crate) fn describe(
    m: &Manifest,
    sweep_estimate_s: f64,
    adaptive: Option<&str>,
    launcher: &str,
    line: &str,
) -> String {
    let done = m.nodes.iter().filter(|n| n.status == Status::Done).count();
    let mut out = format!(
        "survey      {} node(s): {}{}\n",
        m.hosts.len(),
        m.hosts.join(","),
        if done > 0 {
            format!(
                " ({done} done already; this job measures the {} left)",
                m.hosts.len() - done
            )
        } else {
            String::new()
        }
    );
    if let Some(note) = &m.odd_count {
        out += &format!("pairing     {note}\n");
    }
    let alone = m.nodes_alone();
    for (i, r) in m.rounds.iter().enumerate() {
        let pairs: Vec<String> = r
            .pairs
            .iter()
            .map(|p| {
                if alone {
                    p.measured.clone()
                } else {
                    format!("{} <- {}", p.measured, p.sender)
                }
            })
            .collect();
        let run = if r.run > 1 {
            format!(" (run {})", r.run)
        } else {
            String::new()
        };
        let what = if alone {
            "measured alone, each against its own GPU's copies"
        } else {
            "measured <- sender"
        };
        out += &format!("round {:<5} {what}: {}{run}\n", i + 1, pairs.join(", "));
    }
    let n = m.hosts.len();
    // `--runs auto` before its choice: the second stage's rounds are not planned yet, and
    // the duration counts the most it can take.
    let mut second_stage = 0;
    match (m.runs_auto(), &m.second_runs) {
        (true, None) => {
            second_stage = second_rounds_at_most(n, alone);
            out += &format!(
                "runs        auto: every node once (the rounds above), then the nodes outside \
                 the first report's band and a sample of the others again (at least {} and {} \
                 % of the fleet, at most half: {} of {n} node(s)), in a second job of at most \
                 {second_stage} round(s) planned then; a node is named only when its second \
                 run confirms it: at most 1.5x the node time of one run per node, where --runs \
                 2 takes 2x\n",
                crate::fleet::second::MIN_SAMPLE,
                100.0 * crate::fleet::second::SAMPLE_SHARE,
                crate::fleet::second::most_chosen(n),
            );
        }
        (true, Some(again)) => {
            out += &format!(
                "runs        auto: every node measured once; {} of {n} node(s) chosen from the \
                 first runs' report (those outside its band, and a sample) are measured again \
                 in the rounds marked (run 2)\n",
                again.len()
            );
        }
        (false, _) if m.runs_asked() > 1 => {
            out += &format!(
                "runs        {}: every node is measured again after every node's first run, in \
                 the rounds marked (run 2): the first rounds in reverse order, so a node's two \
                 runs fall in different rounds; the fleet report then knows the noise between \
                 runs (twice the time of one run)\n",
                m.runs_asked()
            );
        }
        _ => {}
    }
    // Which names are one machine is learnt by the job's ranks, before round 1; the plan can
    // only say what will then happen (`super::identity`). A simulated fleet has no kernels.
    if m.simulated.is_none() {
        out += if alone { KERNELS_ALONE } else { KERNELS };
    }
    match adaptive {
        Some(a) => out += &a.replacen("adaptive    ", "adaptive    on every node: ", 1),
        None => out += "sweep       every node measures every core count (no --adaptive)\n",
    }
    let rounds = m.rounds.len() as f64;
    let limit = m.rounds.first().map_or(0.0, |r| r.timeout_s);
    // A simulated fleet is drawn in seconds; its plan says what the real nodes would take.
    let real = if m.simulated.is_some() {
        "simulated in seconds; on real nodes "
    } else {
        ""
    };
    let second = if second_stage > 0 {
        format!(
            ", and for the second stage (--runs auto) at most {second_stage} round(s) more and \
             a second job's start: at most about {:.0} s in all",
            (rounds + second_stage as f64) * sweep_estimate_s + 2.0 * JOB_START_S
        )
    } else {
        String::new()
    };
    out += &format!(
        "duration    {real}at most about {:.0} s: {} round(s) x {:.0} s (measure's estimate of \
         one full sweep on this node) + {:.0} s to start the job{second}; a round is stopped \
         after {:.0} s\n",
        rounds * sweep_estimate_s + JOB_START_S,
        m.rounds.len(),
        sweep_estimate_s,
        JOB_START_S,
        limit
    );
    out += &format!("launcher    {launcher}\n");
    out += &format!("command     {line}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::flavour::{vars, Dialect, Starter};
    use std::ffi::OsString;
    use std::path::Path;

    fn strings(v: &[OsString]) -> Vec<String> {
        v.iter().map(|s| s.to_string_lossy().into_owned()).collect()
    }

    fn hosts(names: &[&str]) -> Vec<String> {
        names.iter().map(|h| h.to_string()).collect()
    }

    #[test]
    fn every_node_of_the_slurm_job_this_one_first() {
        let env = [
            ("SLURM_JOB_ID", "42"),
            ("SLURM_JOB_NODELIST", "n[07-10]"),
            ("SLURMD_NODENAME", "n09"),
        ];
        let expand = |l: &str| {
            assert_eq!(l, "n[07-10]");
            Some(hosts(&["n07", "n08", "n09", "n10"]))
        };
        assert_eq!(
            allocation_hosts(vars(&env), expand),
            Some(hosts(&["n09", "n07", "n08", "n10"]))
        );
        // A node list without SLURM_JOB_ID is no allocation.
        assert_eq!(
            allocation_hosts(vars(&[("SLURM_JOB_NODELIST", "a,b")]), |_| unreachable!()),
            None
        );
        assert!(check_hosts(&hosts(&["a", "b", "a"]))
            .unwrap_err()
            .to_string()
            .contains("`a` is named twice"));
    }

    fn line(starter: &Starter, slurm: &launch::Slurm, job_hosts: &[String]) -> Vec<String> {
        let args = ["survey", "--cores=1..2"].map(OsString::from);
        let env = vars(&[("CONTENTION_RESULTS", "/scratch/r")]);
        strings(
            &launch::job_line(
                starter,
                slurm,
                &shape(job_hosts, true),
                env,
                Path::new("/usr/bin/contention"),
                &args,
            )
            .argv,
        )
    }

    #[test]
    fn the_srun_line_is_one_task_per_node_in_rank_order() {
        let slurm = launch::Slurm::detect(vars(&[("SLURM_JOB_ID", "42")]), || {
            Some("slurm 23.02.7".into())
        });
        let l = line(
            &Starter::Srun {
                mpi: Some("pmi2".into()),
            },
            &slurm,
            &hosts(&["n09", "n07", "n08", "n10"]),
        );
        assert_eq!(
            l,
            [
                "srun",
                "--whole",
                "--ntasks=4",
                "--cpu-bind=none",
                "--mpi=pmi2",
                "--nodes=4",
                "--ntasks-per-node=1",
                "--nodelist=n09,n07,n08,n10",
                "--distribution=arbitrary",
                "/usr/bin/contention",
                "survey",
                "--cores=1..2"
            ]
        );
    }

    #[test]
    fn the_mpirun_line_puts_one_rank_per_host_and_passes_the_results_directory() {
        let open_mpi = Starter::Own {
            program: "mpirun".into(),
            dialect: Dialect::OpenMpi,
        };
        let l = line(
            &open_mpi,
            &launch::Slurm::default(),
            &hosts(&["a", "b", "c", "d", "e"]),
        );
        assert_eq!(
            l[..12],
            [
                "mpirun",
                "-np",
                "5",
                "--bind-to",
                "none",
                "--allow-run-as-root",
                "--host",
                "a,b,c,d,e",
                "--map-by",
                "node",
                "-x",
                "CONTENTION_RESULTS",
            ]
        );
        let hydra = Starter::Own {
            program: "mpiexec".into(),
            dialect: Dialect::Hydra,
        };
        let l = line(&hydra, &launch::Slurm::default(), &hosts(&["a", "b", "c"]));
        assert_eq!(
            l[..7],
            ["mpiexec", "-n", "3", "-bind-to", "none", "-hosts", "a,b,c"]
        );
    }

    #[test]
    fn a_resume_runs_only_the_nodes_left_and_their_senders() {
        let h = hosts(&["a", "b", "c", "d", "e"]);
        let mut m = new_manifest(&h, Default::default());
        assert!(m.odd_count.as_deref().unwrap().contains("the last node, e"));
        let (job, rounds) = plan_job(&m, 100.0).unwrap();
        assert_eq!(job, h);
        assert_eq!(rounds.len(), 3);
        for i in [0, 1, 3, 4] {
            m.nodes[i].status = Status::Done;
        }
        let (job, rounds) = plan_job(&m, 100.0).unwrap();
        assert_eq!(job, hosts(&["a", "c"]));
        assert_eq!(
            rounds,
            vec![Round {
                pairs: vec![HostPair {
                    measured: "c".into(),
                    sender: "a".into()
                }],
                run: 1,
                timeout_s: 100.0
            }]
        );
        m.rounds = rounds;
        let text = describe(&m, 10.0, None, "`mpirun`, Open MPI's mpirun", "mpirun ...");
        assert!(text.contains("4 done already"), "{text}");
        assert!(
            text.contains("measures their pairs in rounds of their own"),
            "{text}"
        );
        assert!(text.contains("every core count (no --adaptive)"), "{text}");
        let a = crate::measure::adaptive::AdaptiveOptions {
            precision: 0.02,
            budget: None,
            design: &crate::design::adaptive::ADAPTIVE,
        };
        let line = crate::design::adaptive::describe(&a, &(1..=18).collect::<Vec<u32>>());
        let adaptive = describe(&m, 10.0, Some(&line), "`mpirun`", "mpirun ...");
        assert!(
            adaptive.contains("adaptive    on every node: first 1,5,10,14,18"),
            "{adaptive}"
        );
        assert!(
            text.contains("round 1     measured <- sender: c <- a"),
            "{text}"
        );
        assert!(text.contains("command     mpirun ..."), "{text}");
        assert!(
            text.contains("launcher    `mpirun`, Open MPI's mpirun"),
            "{text}"
        );
        assert_eq!(round_timeout(10.0), 80.0);
    }

    /// (run, measured) of every pair of `rounds`, in order.
    fn runs_of(rounds: &[Round]) -> Vec<(u32, String)> {
        rounds
            .iter()
            .flat_map(|r| r.pairs.iter().map(|p| (r.run, p.measured.clone())))
            .collect()
    }

    #[test]
    fn two_runs_measure_every_node_again_in_reverse_and_a_resume_only_what_is_left() {
        let options = [("--runs".to_string(), "2".to_string())].into();
        let mut m = new_manifest(&hosts(&["a", "b", "c", "d"]), options);
        let (job_hosts, rounds) = plan_job(&m, 10.0).unwrap();
        assert_eq!(job_hosts, hosts(&["a", "b", "c", "d"]));
        let first: Vec<String> = rounds[..2]
            .iter()
            .flat_map(|r| r.pairs.iter().map(|p| p.measured.clone()))
            .collect();
        // Run 2: the same rounds, last first.
        let mut again = rounds[..2].to_vec();
        again.reverse();
        for (r2, r1) in rounds[2..].iter().zip(&again) {
            assert_eq!((r2.run, &r2.pairs), (2, &r1.pairs));
        }
        assert_eq!(first, hosts(&["a", "b", "c", "d"]));
        assert!(rounds[..2].iter().all(|r| r.run == 1));
        // Cut in run 2: a and b finished both runs, c its first, d none.
        for (i, done) in [2, 2, 1, 0].into_iter().enumerate() {
            m.nodes[i].runs_done = done;
        }
        m.nodes[0].status = Status::Done;
        m.nodes[1].status = Status::Done;
        m.nodes[3].status = Status::Failed;
        m.reopen_failed();
        let (_, rounds) = plan_job(&m, 10.0).unwrap();
        let mut measured = runs_of(&rounds);
        measured.sort();
        assert_eq!(
            measured,
            [(1, "d".into()), (2, "c".into()), (2, "d".into())],
            "{rounds:?}"
        );
        // A survey of one run plans no second runs, and a manifest older than `runs_done`
        // counts a done node's run.
        let mut one = new_manifest(&hosts(&["a", "b"]), Default::default());
        one.nodes[0].status = Status::Done;
        let (_, rounds) = plan_job(&one, 10.0).unwrap();
        assert_eq!(runs_of(&rounds), [(1, "b".into())]);
        let text = serde_json::to_string(&rounds[0]).unwrap();
        assert!(!text.contains("run"), "{text}");
    }

    #[test]
    fn the_dry_run_marks_the_second_runs_rounds_and_says_why() {
        let options = [("--runs".to_string(), "2".to_string())].into();
        let mut m = new_manifest(&hosts(&["a", "b"]), options);
        m.rounds = plan_job(&m, 10.0).unwrap().1;
        let text = describe(&m, 5.0, None, "why", "line");
        assert!(
            text.contains("round 3     measured <- sender: b <- a (run 2)\n"),
            "{text}"
        );
        assert!(
            text.contains("runs        2: every node is measured again"),
            "{text}"
        );
        assert!(text.contains("4 round(s) x 5 s"), "{text}");
        m.options.clear();
        m.rounds = plan_job(&m, 10.0).unwrap().1;
        let text = describe(&m, 5.0, None, "why", "line");
        assert!(
            !text.contains("run 2") && !text.contains("\nruns "),
            "{text}"
        );
    }

    /// `--runs auto`'s plan says what the second stage may cost before the choice (its
    /// rounds are planned then), and which nodes it measures once chosen.
    #[test]
    fn the_auto_plan_counts_the_second_stage_and_then_names_it() {
        let options = [("--runs".to_string(), "auto".to_string())].into();
        let mut m = new_manifest(&hosts(&["a", "b", "c", "d", "e", "f", "g", "h"]), options);
        m.rounds = plan_job(&m, 10.0).unwrap().1;
        assert_eq!(m.rounds.len(), 2, "first runs only: {:?}", m.rounds);
        let text = describe(&m, 5.0, None, "why", "line");
        assert!(
            text.contains("at most half: 4 of 8 node(s)), in a second job of at most 3 round(s)"),
            "{text}"
        );
        // 2 rounds x 5 s + 30 s; with the second stage (3 nodes chosen of the 4 it may take:
        // three rounds) 5 rounds and two job starts.
        assert!(text.contains("at most about 40 s: 2 round(s)"), "{text}");
        assert!(
            text.contains("at most 3 round(s) more and a second job's start: at most about 85 s"),
            "{text}"
        );
        // Chosen: the plan of the second job names how many, with its rounds marked.
        for n in &mut m.nodes {
            n.status = Status::Done;
        }
        m.choose_second(&hosts(&["b", "g", "e"]));
        let (job_hosts, rounds) = plan_job(&m, 10.0).unwrap();
        assert_eq!(job_hosts, hosts(&["b", "e", "g"]));
        m.rounds = rounds;
        let text = describe(&m, 5.0, None, "why", "line");
        assert!(
            text.contains("runs        auto: every node measured once; 3 of 8 node(s) chosen"),
            "{text}"
        );
        assert!(text.contains("(run 2)\n"), "{text}");
        assert!(!text.contains("second stage (--runs auto)"), "{text}");
        // The most rounds a second stage can take: one node alone, two in two rounds, an
        // odd count in three.
        assert_eq!(
            [2, 3, 4, 6, 7, 16, 10_000].map(|n| second_rounds_at_most(n, false)),
            [1, 1, 2, 3, 3, 3, 3]
        );
        // Nodes measured alone (GPU copies): one round, however many.
        assert_eq!(
            [2, 3, 16, 10_000].map(|n| second_rounds_at_most(n, true)),
            [1; 4]
        );
    }

    /// A simulated fleet has no kernels to share and starts no job: its dry run says nothing
    /// of shared kernels, and that the durations are those of real nodes.
    #[test]
    fn a_simulated_fleets_dry_run_speaks_of_no_kernels_and_of_real_nodes_durations() {
        let mut m = new_manifest(&hosts(&["a", "b"]), Default::default());
        m.rounds = plan_job(&m, 10.0).unwrap().1;
        let real = describe(&m, 5.0, None, "why", "line");
        assert!(real.contains("\nkernels     nodes that turn out"), "{real}");
        assert!(real.contains("\nduration    at most about"), "{real}");
        m.simulated = Some("2 x paper:henri".into());
        let simulated = describe(&m, 5.0, None, "none (simulated)", "none");
        assert!(!simulated.contains("kernel"), "{simulated}");
        assert!(
            simulated.contains("\nduration    simulated in seconds; on real nodes at most"),
            "{simulated}"
        );
    }

    /// The plan does not index past the nodes a manifest has (one cut short is refused by
    /// `Manifest::read`; the plan stays total on any value).
    #[test]
    fn a_manifest_cut_short_still_plans() {
        let mut m = new_manifest(&["a".into(), "b".into(), "c".into()], Default::default());
        m.nodes.truncate(1);
        assert!(plan_job(&m, 10.0).is_ok());
    }

    /// `--hosts a,a` is refused; a manifest naming one node twice (edited, or written by
    /// hand) was reported as two nodes, and 10^4 copies of one name took 57 s to report.
    #[test]
    fn a_manifest_naming_one_node_twice_is_refused() {
        let dir = std::env::temp_dir().join(format!("contention-twice-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = Manifest::path(&dir);
        let mut m = new_manifest(&["vm".into(), "vm".into()], Default::default());
        m.save(&path).unwrap();
        let e = Manifest::read_for(&path, "--report-only").unwrap_err();
        assert_eq!(e.exit_code(), crate::error::EXIT_INPUT);
        let msg = e.to_string();
        assert!(msg.contains("`vm` twice"), "{msg}");
        // Many distinct nodes are one each.
        let many: Vec<String> = (0..10_000).map(|i| format!("n{i:05}")).collect();
        let mut m = new_manifest(&many, Default::default());
        assert_eq!(m.inconsistency(), None);
        m.hosts[9_999] = "n00017".into();
        m.nodes[9_999].host = "n00017".into();
        assert!(m.inconsistency().unwrap().contains("`n00017` twice"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    proptest::proptest! {
        /// Any mix of done, failed and pending nodes from an earlier job, resumed: the new
        /// job measures every node not done exactly once, times every round, and a cut in
        /// any round fails that round's nodes with the new message, nothing else.
        #[test]
        fn a_resume_measures_what_is_left_and_a_cut_names_the_new_failure(
            statuses in proptest::collection::vec(0u8..3, 2..12),
            cut in 0usize..3,
        ) {
            let hosts: Vec<String> = (0..statuses.len()).map(|i| format!("n{i}")).collect();
            let mut m = new_manifest(&hosts, Default::default());
            m.job = 1;
            for (n, s) in m.nodes.iter_mut().zip(&statuses) {
                n.job = Some(1);
                match s {
                    0 => n.status = Status::Done,
                    1 => {
                        n.status = Status::Failed;
                        n.error = Some("old failure".into());
                    }
                    _ => n.job = None,
                }
            }
            // Every node not done: the failed ones reopened, the pending ones.
            let left: Vec<String> = m
                .nodes
                .iter()
                .filter(|n| n.status != Status::Done)
                .map(|n| n.host.clone())
                .collect();
            m.reopen_failed();
            let (job_hosts, rounds) = plan_job(&m, 10.0).unwrap();
            m.job = 2;
            m.job_hosts = job_hosts;
            m.rounds = rounds;
            let measured: Vec<String> = m
                .rounds
                .iter()
                .flat_map(|r| r.pairs.iter().map(|p| p.measured.clone()))
                .collect();
            let mut sorted = measured.clone();
            sorted.sort();
            sorted.dedup();
            proptest::prop_assert_eq!(sorted.len(), measured.len(), "measured once");
            let mut want = left.clone();
            want.sort();
            proptest::prop_assert_eq!(sorted, want);
            if m.rounds.is_empty() {
                proptest::prop_assert_eq!(m.current_round(), None);
                return Ok(());
            }
            // Rounds before the cut finish; the cut round is the one the driver times.
            let cut = cut % m.rounds.len();
            let finished: Vec<String> = m.rounds[..cut]
                .iter()
                .flat_map(|r| r.pairs.iter().map(|p| p.measured.clone()))
                .collect();
            for host in finished {
                let n = m.node_mut(&host).unwrap();
                n.status = Status::Done;
                n.error = None;
            }
            proptest::prop_assert_eq!(m.current_round(), Some(cut));
            m.record_cut("new failure");
            for (i, r) in m.rounds.iter().enumerate() {
                for p in &r.pairs {
                    let n = m.nodes.iter().find(|n| n.host == p.measured).unwrap();
                    let want = match i.cmp(&cut) {
                        std::cmp::Ordering::Less => Status::Done,
                        std::cmp::Ordering::Equal => Status::Failed,
                        std::cmp::Ordering::Greater => Status::Pending,
                    };
                    proptest::prop_assert_eq!(n.status, want, "{} in round {}", &n.host, i + 1);
                    if i == cut {
                        proptest::prop_assert_eq!(n.error.as_deref(), Some("new failure"));
                        proptest::prop_assert_eq!((n.job, n.round), (Some(2), Some(cut + 1)));
                    }
                }
            }
            proptest::prop_assert!(m.nodes.iter().all(|n| n.error.as_deref() != Some("old failure")));
        }
    }
}
