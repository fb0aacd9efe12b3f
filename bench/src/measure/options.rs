//! What one measurement is asked to do, as plain values, and the checks that refuse values
//! that cannot give a meaningful measurement before anything runs.
//!
//! `contention measure` and `contention survey` build a [`MeasureOptions`] from their
//! arguments (`cli::MeasureArgs::measure_options`) and check it; a program using the
//! library builds one directly. The session ([`crate::measure::session`]) takes only this type, never the command line.

use crate::cores::CoreList;
use crate::error::{Error, Result};
use crate::kernels::ComputeKernel;
use crate::measure::adaptive::{AdaptiveOptions, MIN_BUDGET_SECONDS, SHORT_BUDGET};
use crate::measure::choices::{CommPattern, Engine};
use crate::measure::sweep::sizing::{CACHE_FACTOR, MAX_MESSAGE_BUFFERS};
use crate::survey::manifest;
use crate::units::ByteSize;
use std::path::PathBuf;

/// Below this, buffers may be served by caches and the kernel would not measure memory.
pub(crate) const MIN_BUFFER: u64 = 1 << 20;
/// MPI counts are 32-bit signed integers.
pub(crate) const MAX_MESSAGE: u64 = i32::MAX as u64;
/// The ranks a ring may have (`--ranks`).
pub(crate) const RING_RANKS: std::ops::RangeInclusive<u32> = 3..=1024;

/// One measurement of section 4.1.1: the placement, the sweep, the workloads and how long
/// each phase is sampled. Field by field the options of `contention measure` (its `--help`
/// says what each means); [`Default`] gives that command's defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasureOptions {
    /// NUMA node (hwloc logical index) of the computation data (`--numa COMP,_`).
    pub comp_numa: u32,
    /// NUMA node of the communication data (`--numa _,COMM`).
    pub comm_numa: u32,
    /// Computing-core counts to sweep; `None`: every core the communication thread leaves
    /// free on the first socket.
    pub cores: Option<CoreList>,
    /// Core (hwloc logical index) of the communication thread; `None`: chosen by the plan.
    pub comm_core: Option<u32>,
    /// Let the communication thread share the last computing core.
    pub shared_comm_core: bool,
    pub kernel: ComputeKernel,
    /// What moves the communication stream's bytes: an MPI job, or a GPU's copy engines.
    pub engine: Engine,
    pub pattern: CommPattern,
    /// Ranks of a ring (ignored by the two-rank patterns).
    pub ranks: u32,
    /// Bytes of each received message.
    pub message_size: ByteSize,
    /// Bytes each computing core writes per pass; `None`: sized for the machine.
    pub buffer_size: Option<ByteSize>,
    /// Message buffers the communication stream receives into in turn; `None`: sized for
    /// the machine's cache (`crate::measure::sweep::sizing::message_ring`).
    pub message_buffers: Option<u32>,
    /// Longest sampling of one phase, seconds.
    pub max_phase: f64,
    /// Stopping rule: the median's 95 % interval within this many percent.
    pub stable_within: f64,
    /// Seconds without progress before the run is ended as stalled.
    pub timeout: f64,
    /// Host of each rank (rank 0, measured, first); `None`: every rank on this host.
    pub hosts: Option<Vec<String>>,
    /// Trace file; `None`: this host's results directory.
    pub output: Option<PathBuf>,
    /// Continue the trace in `output`.
    pub resume: bool,
    /// Overwrite an existing trace.
    pub force: bool,
    /// Do not bind threads or memory.
    pub no_bind: bool,
    /// `--adaptive`: choose the core counts one by one instead of sweeping `cores`
    /// ([`crate::measure::adaptive`]); `None`: the full sweep.
    pub adaptive: Option<AdaptiveOptions>,
    /// Runs of the sweep, each a separate MPI launch (`--runs`, [`crate::runs`]).
    pub runs: u32,
    /// Seed of the runs' shuffled orders (and of a simulated machine's noise).
    pub seed: u64,
    /// The flags among [`RESUMED_FROM_TRACE`] that the command line left at their default
    /// (and `--runs` when not given):
    /// `--resume` takes their values from the trace instead (`Self::keeping`). Empty when
    /// not built from a command line (every value then counts as given).
    pub defaulted: Vec<&'static str>,
}

/// The options that say how a trace's points were measured and that `--resume` takes from
/// the trace when the command line does not give them, so that `contention measure --resume
/// -o t.json` continues a trace as it was started, and the trace's `config` stays true of
/// every point. A value given that differs is refused (`--max-phase` and `--stable-within`
/// only once the trace has points: before, nothing was measured otherwise). `--timeout` only
/// says when a stalled run ends, so one given is used and recorded.
pub const RESUMED_FROM_TRACE: [&str; 4] = [
    "--message-size",
    "--max-phase",
    "--stable-within",
    "--timeout",
];

impl Default for MeasureOptions {
    /// The paper's local experiment: both data on node 0, non-temporal stores, rank 1 sending
    /// 64 MiB messages (the defaults of `contention measure`).
    fn default() -> Self {
        MeasureOptions {
            comp_numa: 0,
            comm_numa: 0,
            cores: None,
            comm_core: None,
            shared_comm_core: false,
            kernel: ComputeKernel::NtStore,
            engine: Engine::Mpi,
            pattern: CommPattern::Pong,
            ranks: 3,
            message_size: ByteSize(64 << 20),
            buffer_size: None,
            message_buffers: None,
            max_phase: 1.5,
            stable_within: 5.0,
            timeout: 60.0,
            hosts: None,
            output: None,
            resume: false,
            force: false,
            no_bind: false,
            adaptive: None,
            runs: crate::runs::DEFAULT_RUNS,
            seed: 1,
            defaulted: Vec::new(),
        }
    }
}

impl MeasureOptions {
    /// These options for resuming the trace measured with `c`: each of
    /// [`RESUMED_FROM_TRACE`] that the command line did not give takes the trace's value,
    /// and so do the core counts (`--cores`) but in an adaptive sweep.
    pub(crate) fn keeping(&self, c: &crate::trace::MeasureConfig) -> MeasureOptions {
        let mut a = self.clone();
        for flag in &self.defaulted {
            match *flag {
                "--message-size" => a.message_size = ByteSize(c.message_size_bytes),
                "--max-phase" => a.max_phase = c.max_phase_seconds,
                "--stable-within" => a.stable_within = 100.0 * c.stable_within,
                "--timeout" => a.timeout = c.timeout_seconds,
                // A resume continues the runs the trace asks for unless --runs is given (the
                // default of three would add runs to a trace of one or two).
                "--runs" => a.runs = c.runs.max(1),
                _ => {}
            }
        }
        // The trace's core counts too, as its --max-phase: without --cores a resume took
        // the default sweep of every free core and added it to a trace of `--cores 1..8`
        // (issue 46). An adaptive sweep chooses its own counts and keeps its candidates.
        if self.cores.is_none() && self.adaptive.is_none() && !c.cores.is_empty() {
            a.cores = Some(crate::cores::CoreList::from_counts(&c.cores));
        }
        a
    }

    /// Refuses option values that cannot give a meaningful measurement, before anything runs;
    /// the message names the option, its value and the range it must be in.
    pub fn check(&self) -> Result<()> {
        let bad = |m: String| Err(Error::Input(m));
        self.check_sizes()?;
        for (name, v, lo, hi) in [
            ("--max-phase", self.max_phase, 0.05, 3600.0),
            ("--timeout", self.timeout, 1.0, 86_400.0),
            ("--stable-within", self.stable_within, 0.01, 100.0),
        ] {
            if !(v.is_finite() && v >= lo && v <= hi) {
                let v = crate::units::short_number(v);
                return bad(format!("{name} {v}: must be between {lo} and {hi}"));
            }
        }
        // A sample lasts max_phase / (TARGET_ROUNDS + 2); the stall watch sees progress only
        // when one ends, so a sample as long as --timeout is a certain stall, said as one
        // after a minute's wait ("is rank 1 alive?") instead of as the options it follows from.
        let sample = crate::measure::sweep::sizing::sample_seconds(self.max_phase);
        if sample >= self.timeout {
            return bad(format!(
                "--max-phase {}: each sample would last {sample:.0} s, and --timeout {} \
                 declares a phase stalled when no sample ends for that long; lower --max-phase \
                 or raise --timeout above {sample:.0}",
                self.max_phase, self.timeout
            ));
        }
        self.check_job()?;
        self.check_engine()?;
        if let Some(a) = &self.adaptive {
            self.check_adaptive(a)?;
        }
        Ok(())
    }

    /// The message, buffer and ring sizes.
    fn check_sizes(&self) -> Result<()> {
        let bad = |m: String| Err(Error::Input(m));
        if self.message_size.0 > MAX_MESSAGE {
            return bad(if self.engine == Engine::Mpi {
                format!(
                    "--message-size {}: MPI counts are 32-bit, so a message is at most 2GiB-1 \
                     bytes; the paper uses 64MiB",
                    self.message_size
                )
            } else {
                format!(
                    "--message-size {}: a copy is at most 2GiB-1 bytes here (one limit for \
                     both engines, so their traces compare); 64MiB by default",
                    self.message_size
                )
            });
        }
        if let Some(b) = self.buffer_size {
            if b.0 < MIN_BUFFER {
                return bad(format!(
                    "--buffer-size {b}: buffers under 1MiB can stay in cache and would not \
                     measure memory; use at least 1MiB (by default it is sized from the \
                     last-level cache)"
                ));
            }
        }
        if let Some(n) = self.message_buffers {
            if !(1..=MAX_MESSAGE_BUFFERS).contains(&n) {
                return bad(format!(
                    "--message-buffers {n}: give 1 to {MAX_MESSAGE_BUFFERS} (by default as many \
                     as make {}x the last-level cache)",
                    CACHE_FACTOR
                ));
            }
        }
        Ok(())
    }

    /// The runs, and the ranks and hosts of the job.
    fn check_job(&self) -> Result<()> {
        let bad = |m: String| Err(Error::Input(m));
        if !(1..=crate::runs::MAX_RUNS).contains(&self.runs) {
            return bad(format!(
                "--runs {}: give 1 to {} (each run is a whole sweep)",
                self.runs,
                crate::runs::MAX_RUNS
            ));
        }
        if self.runs > 1 && self.adaptive.is_some() {
            return bad(format!(
                "--runs {} with --adaptive: an adaptive sweep chooses its points from the \
                 ones measured, one run; drop --runs, or --adaptive and give --cores",
                self.runs
            ));
        }
        // The command line refuses these while parsing; a program may not.
        if self.pattern == CommPattern::Ring && !RING_RANKS.contains(&self.ranks) {
            return bad(format!(
                "--ranks {}: a ring has {} to {} ranks",
                self.ranks,
                RING_RANKS.start(),
                RING_RANKS.end()
            ));
        }
        if let Some(h) = &self.hosts {
            if h.len() != self.job_ranks() as usize || h.iter().any(|x| x.trim().is_empty()) {
                return bad(format!(
                    "--hosts {}: give one host name per rank, {} here (`A,B`: rank 0, \
                     measured, on A)",
                    h.join(","),
                    self.job_ranks()
                ));
            }
        }
        Ok(())
    }

    /// What the GPU engine cannot do: it is one process with one copy stream, so it has no
    /// ranks, hosts or pattern to exchange.
    fn check_engine(&self) -> Result<()> {
        if self.engine == Engine::Mpi {
            return Ok(());
        }
        if let Some(g) = self
            .engine
            .gpu()
            .filter(|g| g.both && self.output.is_some())
        {
            return Err(Error::Input(format!(
                "--direction both with --output: the two traces, one each way, are named \
                 after their direction in the results directory (`...-gpu{0}-d2h.json`, \
                 `...-gpu{0}-h2d.json`); drop --output, or measure one way at a time with -o",
                g.gpus
            )));
        }
        let refused = if self.hosts.is_some() {
            Some("--hosts (the GPU's copies stay inside this node)")
        } else if self.pattern != CommPattern::Pong {
            Some("--pattern pingpong|ring (one copy stream, one way: --direction)")
        } else {
            None
        };
        match refused {
            Some(what) => Err(Error::Input(format!(
                "--engine gpu with {what}: drop it, or measure MPI messages with --engine mpi"
            ))),
            None => Ok(()),
        }
    }

    /// `--adaptive`'s own checks: a precision in (0, 100] percent, a budget of at least
    /// [`MIN_BUDGET_SECONDS`] (the command line refuses a shorter one while parsing; a program
    /// may not), no `--cores`, a sample placement.
    fn check_adaptive(&self, a: &AdaptiveOptions) -> Result<()> {
        let p = 100.0 * a.precision;
        if !(p.is_finite() && p > 0.0 && p <= 100.0) {
            return Err(Error::Input(format!(
                "--precision {}: give a percentage in (0, 100], e.g. `--precision 1`",
                crate::units::short_number(p)
            )));
        }
        if let Some(b) = a.budget.filter(|b| b.as_secs_f64() < MIN_BUDGET_SECONDS) {
            return Err(Error::Input(format!(
                "--budget {:e} s: {SHORT_BUDGET}",
                b.as_secs_f64()
            )));
        }
        if self.cores.is_some() {
            return Err(Error::Input(
                "--adaptive --cores: the adaptive sweep chooses its core counts; \
                 drop --cores (or drop --adaptive to measure those)"
                    .into(),
            ));
        }
        crate::measure::adaptive::check_placement(self.comp_numa, self.comm_numa)
    }

    /// MPI ranks of the job: the ring's size, else 2.
    pub fn job_ranks(&self) -> u32 {
        if self.pattern == CommPattern::Ring {
            self.ranks
        } else {
            2
        }
    }

    /// The options that decide what a trace measures, by the flag a user writes for each
    /// (`--max-phase` -> `0.2`; `(default)` where left out; with GPU copies, `--engine` ->
    /// `gpu --gpu 0 --direction d2h`, absent for MPI): what a survey records in its
    /// manifest and compares between its jobs. The one place these flag names are spelt for
    /// that: every field is named below, so a new option does not build until it is said
    /// here whether it changes what is measured. Output and launch options (`-o`, `--hosts`,
    /// `--resume`, `--force`) and those a survey sets itself (`--ranks`, `--runs`, `--seed`)
    /// are not among them.
    pub fn measured_flags(&self) -> std::collections::BTreeMap<String, String> {
        let MeasureOptions {
            comp_numa,
            comm_numa,
            cores,
            comm_core,
            shared_comm_core,
            kernel,
            pattern,
            engine,
            message_size,
            buffer_size,
            message_buffers,
            max_phase,
            stable_within,
            timeout,
            no_bind,
            adaptive,
            ranks: _,
            runs: _,
            seed: _,
            hosts: _,
            output: _,
            resume: _,
            force: _,
            defaulted: _,
        } = self;
        let opt = |v: Option<String>| v.unwrap_or_else(|| "(default)".into());
        [
            ("--numa", format!("{comp_numa},{comm_numa}")),
            ("--cores", opt(cores.as_ref().map(ToString::to_string))),
            ("--comm-core", opt(comm_core.map(|c| c.to_string()))),
            ("--shared-comm-core", shared_comm_core.to_string()),
            ("--kernel", kernel.name().to_string()),
            ("--pattern", pattern.name().to_string()),
            ("--message-size", message_size.to_string()),
            ("--buffer-size", opt(buffer_size.map(|b| b.to_string()))),
            (
                "--message-buffers",
                opt(message_buffers.map(|n| n.to_string())),
            ),
            ("--max-phase", max_phase.to_string()),
            ("--stable-within", stable_within.to_string()),
            ("--timeout", timeout.to_string()),
            ("--no-bind", no_bind.to_string()),
            // Absent from older manifests, which then read as the default (a full sweep).
            (
                "--adaptive",
                opt(adaptive.map(|d| {
                    let budget = d
                        .budget
                        .map_or(String::new(), |b| format!(" --budget {}s", b.as_secs_f64()));
                    format!("--precision {}{budget}", 100.0 * d.precision)
                })),
            ),
        ]
        .into_iter()
        // The engine only for GPU copies: an MPI survey's manifest is as it always was.
        .chain(engine.gpu().map(|g| (manifest::ENGINE_FLAG, gpu_flags(g))))
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }

    /// The trace path: `output`, or this host's results directory
    /// (`contention-results/HOST/trace-numaC-M-KERNEL-PATTERN.json`, see `crate::results`).
    pub(crate) fn trace_path(&self, host: &str) -> PathBuf {
        self.output.clone().unwrap_or_else(|| {
            // A GPU's copies are their stream's name: `nt-store-gpu0-d2h`.
            let stream = match self.engine.gpu() {
                Some(g) => format!("gpu{}-{}", g.gpus, g.direction.short()),
                None => self.pattern.name().to_string(),
            };
            let variant = crate::results::variant(self.kernel.name(), &stream, self.job_ranks());
            crate::results::host_dir(host).join(crate::results::trace_name(
                self.comp_numa,
                self.comm_numa,
                &variant,
            ))
        })
    }
}

/// The GPU copies `g` as a survey's manifest records them under `--engine`: what its
/// nodes are measured with, compared between its jobs (and which tells the survey that each
/// node is measured alone, [`manifest::Manifest::nodes_alone`]).
fn gpu_flags(g: &crate::measure::choices::GpuStream) -> String {
    let replay = g.replay.as_ref().map(|f| f.display().to_string());
    format!(
        "{} {}",
        manifest::GPU_ENGINE,
        crate::trace::gpu_flags(g.gpus, g.direction, replay.as_deref())
    )
}

#[cfg(test)]
mod tests {
    use crate::measure::options::*;

    fn refused(o: MeasureOptions) -> String {
        match o.check() {
            Err(e) if e.exit_code() == crate::error::EXIT_INPUT => {
                assert_eq!(e.exit_code(), 2);
                e.to_string()
            }
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn the_defaults_pass_and_name_the_paper_variant() {
        let o = MeasureOptions::default();
        o.check().unwrap();
        assert_eq!(o.job_ranks(), 2);
        assert!(o
            .trace_path("h")
            .ends_with("h/trace-numa0-0-nt-store-pong.json"));
        let ring = MeasureOptions {
            pattern: CommPattern::Ring,
            ranks: 4,
            kernel: ComputeKernel::Triad,
            comp_numa: 1,
            comm_numa: 2,
            ..MeasureOptions::default()
        };
        assert_eq!(ring.job_ranks(), 4);
        assert!(ring
            .trace_path("h")
            .ends_with("h/trace-numa1-2-triad-ring4.json"));
        let named = MeasureOptions {
            output: Some("x.json".into()),
            ..MeasureOptions::default()
        };
        assert_eq!(named.trace_path("h"), PathBuf::from("x.json"));
    }

    #[test]
    fn a_huge_precision_is_named_short() {
        let at = |precision| MeasureOptions {
            adaptive: Some(crate::measure::adaptive::AdaptiveOptions {
                precision,
                budget: None,
                design: &crate::measure::adaptive::Unasked,
            }),
            runs: 1,
            ..MeasureOptions::default()
        };
        let m = refused(at(1e10));
        assert!(m.starts_with("--precision 1e12: give a percentage"), "{m}");
        let m = refused(at(-0.01));
        assert!(m.starts_with("--precision -1: give a percentage"), "{m}");
        // A program may give a budget the command line would refuse.
        let m = refused(MeasureOptions {
            adaptive: Some(crate::measure::adaptive::AdaptiveOptions {
                precision: 0.01,
                budget: Some(std::time::Duration::from_nanos(1)),
                design: &crate::measure::adaptive::Unasked,
            }),
            runs: 1,
            ..MeasureOptions::default()
        });
        assert!(
            m.starts_with("--budget 1e-9 s:") && m.contains("at least 1 s"),
            "{m}"
        );
    }

    /// The refusal reads as one sentence (its source line once held a run of spaces).
    #[test]
    fn runs_with_an_adaptive_sweep_are_refused_in_one_sentence() {
        let m = refused(MeasureOptions {
            runs: 3,
            adaptive: Some(crate::measure::adaptive::AdaptiveOptions {
                precision: 0.05,
                budget: None,
                design: &crate::measure::adaptive::Unasked,
            }),
            ..MeasureOptions::default()
        });
        assert!(m.starts_with("--runs 3 with --adaptive:"), "{m}");
        assert!(!m.contains("  "), "{m}");
    }

    #[test]
    fn each_bad_value_is_named() {
        let d = MeasureOptions::default;
        let m = refused(MeasureOptions {
            message_size: ByteSize(MAX_MESSAGE + 1),
            ..d()
        });
        assert!(
            m.starts_with("--message-size 2GiB") && m.contains("32-bit"),
            "{m}"
        );
        let m = refused(MeasureOptions {
            buffer_size: Some(ByteSize(4096)),
            ..d()
        });
        assert!(
            m.starts_with("--buffer-size 4KiB") && m.contains("at least 1MiB"),
            "{m}"
        );
        let m = refused(MeasureOptions {
            max_phase: 0.01,
            ..d()
        });
        assert_eq!(m, "--max-phase 0.01: must be between 0.05 and 3600");
        let m = refused(MeasureOptions {
            timeout: f64::NAN,
            ..d()
        });
        assert_eq!(m, "--timeout NaN: must be between 1 and 86400");
        let m = refused(MeasureOptions {
            stable_within: 101.0,
            ..d()
        });
        assert_eq!(m, "--stable-within 101: must be between 0.01 and 100");
        let m = refused(MeasureOptions {
            max_phase: 3600.0,
            ..d()
        });
        assert!(
            m.starts_with("--max-phase 3600: each sample would last 86 s, and --timeout 60"),
            "{m}"
        );
        MeasureOptions {
            max_phase: 3600.0,
            timeout: 90.0,
            ..d()
        }
        .check()
        .unwrap();
        let m = refused(MeasureOptions {
            pattern: CommPattern::Ring,
            ranks: 2,
            ..d()
        });
        assert_eq!(m, "--ranks 2: a ring has 3 to 1024 ranks");
        let m = refused(MeasureOptions {
            hosts: Some(vec!["a".into()]),
            ..d()
        });
        assert!(
            m.starts_with("--hosts a: give one host name per rank, 2 here"),
            "{m}"
        );
        let m = refused(MeasureOptions {
            hosts: Some(vec!["a".into(), " ".into()]),
            ..d()
        });
        assert!(
            m.starts_with("--hosts a, : give one host name per rank"),
            "{m}"
        );
        // The two-rank patterns ignore --ranks.
        MeasureOptions {
            ranks: 0,
            hosts: Some(vec!["a".into(), "b".into()]),
            ..d()
        }
        .check()
        .unwrap();
    }
}
