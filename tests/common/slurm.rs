//! A real Slurm cluster for a test (`tests/vm/slurm.sh`: slurmctld, one slurmd per node, a
//! private munged, every node a network and UTS namespace): made by [`Cluster::up`], its
//! commands run on its login node, and removed when the [`Cluster`] is dropped, also when the
//! test fails (the daemons' last log lines are printed first).

use super::gate;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const SCRIPT: &str = "tests/vm/slurm.sh";

/// The commands the cluster and its tests need: the script's, Slurm's daemons and clients,
/// munge, and Open MPI's launcher. `.ci/setup-tests` checks each of them (`tests/setup.rs`).
pub const TOOLS: [&str; 17] = [
    "ip",
    "nsenter",
    "unshare",
    "runuser",
    "slurmctld",
    "slurmd",
    "srun",
    "salloc",
    "sbatch",
    "scancel",
    "squeue",
    "scontrol",
    "sinfo",
    "munged",
    "munge",
    "unmunge",
    "mpirun",
];

/// Whether a Slurm cluster can run here (root and the commands it needs); otherwise skip, or
/// fail in CI.
pub fn runnable(test: &str) -> bool {
    gate::decide(test, gate::missing(&TOOLS))
}

/// A cluster of `nodes` nodes, `NAME-1` to `NAME-N`, and a login node `NAME-login`.
pub struct Cluster {
    pub name: String,
    pub nodes: usize,
}

impl Cluster {
    /// Makes a cluster for `test` (`tag`: a letter of its own among the module's tests).
    /// `None` (skipped, saying why) where clusters cannot run here, or where the script could
    /// not make one outside CI.
    pub fn up(test: &str, tag: char, nodes: usize) -> Option<Cluster> {
        if !runnable(test) {
            return None;
        }
        let name = format!("u{}{tag}", std::process::id() % 100_000);
        let t0 = Instant::now();
        let o = Command::new("bash")
            .args([SCRIPT, "up", &name, &nodes.to_string()])
            .stdin(Stdio::null())
            .output()
            .expect("bash runs");
        if o.status.code() == Some(3) {
            let why = String::from_utf8_lossy(&o.stderr).trim().to_string();
            gate::decide(
                test,
                Some(format!("the Slurm cluster could not be made: {why}")),
            );
            return None;
        }
        assert!(
            o.status.success(),
            "slurm.sh up: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        gate::say(&format!(
            "slurm: cluster of {nodes} node(s) up in {:.1} s",
            t0.elapsed().as_secs_f64()
        ));
        Some(Cluster { name, nodes })
    }

    /// Node `i` (1-based).
    pub fn node(&self, i: usize) -> String {
        format!("{}-{i}", self.name)
    }

    /// A command run on the login node (where users run salloc and sbatch).
    pub fn login(&self, args: &[&str]) -> Command {
        let mut c = Command::new("bash");
        c.args([SCRIPT, "login", &self.name])
            .args(args)
            .stdin(Stdio::null());
        c
    }

    /// Runs `args` on the login node and waits for it.
    pub fn run(&self, args: &[&str]) -> Output {
        self.login(args).output().expect("bash runs")
    }

    /// `sbatch --parsable ARGS` on the login node: the job's id.
    pub fn sbatch(&self, args: &[&str]) -> String {
        let o = self
            .login(&[&["sbatch", "--parsable"][..], args].concat())
            .output()
            .unwrap();
        assert!(o.status.success(), "sbatch: {}", super::run::text(&o));
        String::from_utf8_lossy(&o.stdout).trim().to_string()
    }

    /// Waits (at most `limit`) until job `job` has ended; its final state.
    pub fn wait_job(&self, job: &str, limit: Duration) -> String {
        let o = Command::new("bash")
            .args([
                SCRIPT,
                "wait",
                &self.name,
                job,
                &limit.as_secs().to_string(),
            ])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_ne!(
            o.status.code(),
            Some(124),
            "job {job} still runs after {limit:?}"
        );
        String::from_utf8_lossy(&o.stdout).trim().to_string()
    }

    /// The processes named `comm` (as /proc/PID/comm says) in any of the cluster's nodes.
    pub fn processes(&self, comm: &str) -> Vec<String> {
        (1..=self.nodes)
            .flat_map(|i| super::hosts::processes_in(&self.node(i), comm))
            .collect()
    }

    /// `sbatch -N NODES` of the tool (`BIN ARGS`, as `--wrap`), its output to `log`, with
    /// `CONTENTION_RESULTS=results` when given: the job's id.
    pub fn sbatch_tool(
        &self,
        nodes: usize,
        log: &std::path::Path,
        results: Option<&std::path::Path>,
        bin: &str,
        args: &[&str],
    ) -> String {
        let export = match results {
            Some(r) => format!("ALL,CONTENTION_RESULTS={}", r.display()),
            None => "ALL".into(),
        };
        // No argument of the tests holds a space or a quote: joined, it is a shell line.
        let wrap: Vec<&str> = std::iter::once(bin).chain(args.iter().copied()).collect();
        self.sbatch(&[
            "-N",
            &nodes.to_string(),
            "-o",
            log.to_str().unwrap(),
            "--export",
            &export,
            "--wrap",
            &wrap.join(" "),
        ])
    }

    /// The last lines of every daemon's log.
    pub fn logs(&self) -> String {
        let dir = format!("/tmp/contention-slurm-{}/log", self.name);
        let mut out = String::new();
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
            let lines: Vec<&str> = text.lines().collect();
            out += &format!("--- {}\n", entry.path().display());
            for l in &lines[lines.len().saturating_sub(15)..] {
                out += &format!("{l}\n");
            }
        }
        out
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if std::thread::panicking() {
            gate::say(&format!("slurm: the daemons' logs:\n{}", self.logs()));
        }
        let o = Command::new("bash")
            .args([SCRIPT, "down", &self.name])
            .stdin(Stdio::null())
            .output();
        if let Ok(o) = o {
            if !o.status.success() {
                gate::say(&format!(
                    "slurm: down {}: {}",
                    self.name,
                    String::from_utf8_lossy(&o.stderr)
                ));
            }
        }
    }
}
