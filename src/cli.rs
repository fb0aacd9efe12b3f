//! The command line: argument structs only, no behaviour.
//!
//! `contention man` and `contention completions` generate the man pages and shell completions
//! from these definitions, so they never drift from `--help`.

use crate::cores::CoreList;
pub(crate) use crate::kernels::ComputeKernel;
use crate::measure::adaptive::{AdaptiveOptions, MIN_BUDGET_SECONDS, SHORT_BUDGET};
pub(crate) use crate::measure::choices::CommPattern;
use crate::measure::options::MeasureOptions;
pub(crate) use crate::mpi::flavour::Launcher;
use crate::sensitivity::builtin::Builtin;
use crate::units::ByteSize;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::str::FromStr;

const ABOUT: &str = "Measure, model and predict memory contention between MPI communications and \
memory-bound computations on one node.";

const LONG_ABOUT: &str = "\
Measure, model and predict memory contention between MPI communications and memory-bound \
computations on one node.

When a node computes on memory-bound data while it receives large MPI messages, both streams \
share the memory controllers and links. `contention` implements the model of Denis, Jeannot and \
Swartvagher (\"Modeling Memory Contention between Communications and Computations in \
Distributed HPC Systems\", RR-9451, 2022): from two measured placements it predicts the \
bandwidth left to computations and to communications for every number of computing cores and \
every placement of their data on the NUMA nodes.

All bandwidths are MB/s (10^6 bytes per second). NUMA nodes are hwloc logical indices \
(`lstopo` numbering): nodes 0..k-1 belong to the first socket, whose cores compute.";

const EXAMPLES: &str = "\
The intended workflow, in any directory (results go to ./contention-results/HOST/):
    contention measure --numa 0,0       # the benchmark: trace of the local placement
    contention measure --numa 1,1       # on a two-socket machine: the remote one too
    contention calibrate                # fit the model to this host's traces, save model.json
    contention predict --ncores 1..18   # bandwidths for every placement and core count
    contention evaluate                 # the model's error on the traces (Table 2)
    contention plot                     # the paper's figures, in contention-results/HOST/figures/
    contention show TRACE.json          # a trace's point lines again, as measure printed them
    contention check                    # CI: does a new measurement still match the model?

Without measuring, one of the paper's machines:
    contention predict --model paper:henri --ncores 1..18

Each command's --help explains its options and output. Sizes are binary (64MiB = 64 x 2^20 \
bytes), bandwidths decimal (MB/s = 10^6 bytes/s). Exit status: 0 success, 1 failure (a check \
that fails, an I/O or system error), 2 bad input (the message names it and the fix).";

#[derive(Debug, Parser)]
#[command(
    name = "contention",
    version,
    about = ABOUT,
    long_about = LONG_ABOUT,
    after_help = EXAMPLES,
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// The command line as parsed, with what only the matches know: which of `measure`'s
    /// options were left at their default, which `--resume` then takes from the trace.
    pub fn from_matches(matches: &clap::ArgMatches) -> Result<Cli, clap::Error> {
        use clap::FromArgMatches;
        let mut cli = Cli::from_arg_matches(matches)?;
        if let (Command::Measure(args), Some(("measure", m))) =
            (&mut cli.command, matches.subcommand())
        {
            args.defaulted = crate::measure::options::RESUMED_FROM_TRACE
                .into_iter()
                .filter(|flag| {
                    let id = flag.trim_start_matches("--").replace('-', "_");
                    m.value_source(&id) == Some(clap::parser::ValueSource::DefaultValue)
                })
                .collect();
            // `--runs` has no clap default (it depends on --adaptive): not given, a resume
            // keeps the trace's.
            if m.value_source("runs").is_none() {
                args.defaulted.push("--runs");
            }
        }
        Ok(cli)
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Measure computation and communication bandwidths, alone and in parallel, for every
    /// number of computing cores (an MPI job of two ranks, or a GPU's copies).
    #[command(long_about = MEASURE_ABOUT, after_help = MEASURE_EXAMPLES)]
    Measure(MeasureArgs),
    /// Measure every node of a Slurm allocation (or of --hosts) in an MPI job, in rounds of
    /// pairs: each node measured by `measure`'s sweep, fed by another node (again where the
    /// first runs' report needs it: --runs).
    #[command(
        long_about = SURVEY_ABOUT,
        after_help = SURVEY_EXAMPLES,
        mut_arg("hosts", |a| a
            .value_name("A,B,C,...")
            .help("The nodes to survey (one rank per node in this order). Default: every \
                   node of the Slurm job")),
        mut_arg("launcher", |a| a.help("How to start the job: auto picks the MPI library's \
            own launcher (Open MPI's mpirun, MPICH's mpiexec); inside a Slurm allocation \
            mpirun for Open MPI and srun for MPICH")),
        mut_arg("resume", |a| a.help("Continue the survey in $CONTENTION_RESULTS/survey.json: \
            a new job over its failed and pending nodes, with the same options")),
        mut_arg("force", |a| a.help("Start a new survey over an existing survey.json, \
            overwriting the nodes' traces")),
        mut_arg("dry_run", |a| a.help("Print the rounds, pairs, estimated duration and \
            launcher line, and exit without measuring")),
        mut_arg("output", |a| a.help("Write the fleet report to FILE (atomically) instead of \
            standard output (each node's trace goes to $CONTENTION_RESULTS/HOST/)")),
        mut_arg("graph", |a| a.hide(true)),
        mut_arg("ranks", |a| a.hide(true)),
        mut_arg("simulate", |a| a.help("Survey a simulated fleet instead of real nodes: \
            --nodes N nodes of this machine (`paper:NAME` or `realistic:NAME`, as `measure \
            --simulate`), differing by the noise between runs that a real 16-core node shows \
            (a phase's median 3.7 % apart for computations, 6-16 % for communications, from \
            one run to the next), some degraded with --slow. Rounds, manifest, calibration, \
            report and figure as a real survey, all under \
            $CONTENTION_RESULTS/simulated-survey/ and marked simulated")),
        mut_arg("seed", |a| a.help("Seed of the simulated fleet's draws (--simulate): the \
            same seed draws the same fleet")),
        // `measure --runs` repeats launches on one node; a survey's runs are rounds.
        mut_arg("runs", |a| a.help("How many times each node is measured, each run in a \
            different round: `auto` (the default) measures every node once, then again the \
            nodes outside the first report's band and a sample of the others (at least 4, \
            5 % of the fleet), at most half the fleet: a node is named only when both its runs \
            are outside, and the band is never narrower than the sample's noise between runs \
            (at most 1.5x the node time of one run per node; the plan says how long). `1`: \
            one run per node, whose band knows only the noise within each run (on simulated \
            identical fleets of 16 nodes it named 2-9 nodes in most fleets). `2`: every node \
            twice, twice the node time")
            .value_parser(crate::survey::parse_runs)
            .default_value("auto")),
    )]
    Survey(SurveyArgs),
    /// Fit the model's parameters to measurements (traces of `contention measure`, or tidy
    /// CSV) and write the model file.
    #[command(long_about = CALIBRATE_ABOUT, after_help = CALIBRATE_EXAMPLES)]
    Calibrate(CalibrateArgs),
    /// Predict computation and communication bandwidths from a model file, for every
    /// placement of their data on the NUMA nodes.
    #[command(long_about = PREDICT_ABOUT, after_help = PREDICT_EXAMPLES)]
    Predict(PredictArgs),
    /// Compare a model's predictions with measurements: the error per stream, on the
    /// calibration placements and the others (the paper's Table 2).
    #[command(long_about = EVALUATE_ABOUT, after_help = EVALUATE_EXAMPLES)]
    Evaluate(EvaluateArgs),
    /// Draw the paper's figures (placement grid, stacked view, sweep) from a model file and
    /// measurements, as SVG or PNG.
    #[command(long_about = PLOT_ABOUT, after_help = PLOT_EXAMPLES)]
    Plot(PlotArgs),
    /// Reprint a saved trace's point lines as `measure` printed them, run by run and combined,
    /// each block saying which interval its +- carries.
    #[command(long_about = SHOW_ABOUT, after_help = SHOW_EXAMPLES)]
    Show(ShowArgs),
    /// Check new measurements against an expected model: fails when the model fitted to them
    /// drifts beyond a tolerance, or when the expected model's error on them is too large.
    #[command(long_about = CHECK_ABOUT, after_help = CHECK_EXAMPLES)]
    Check(CheckArgs),
    /// The time of one step whose computation overlaps its communication under memory
    /// contention (Langguth et al. 2018), and the accelerator share that balances CPU and
    /// accelerators.
    #[command(long_about = OVERLAP_ABOUT, after_help = OVERLAP_EXAMPLES)]
    Overlap(OverlapArgs),
    /// The fastest core count and placement for a step of given computation and
    /// communication bytes, from a model file, and how much slower the naive one is.
    #[command(long_about = ADVISE_ABOUT, after_help = ADVISE_EXAMPLES)]
    Advise(AdviseArgs),
    /// Predict the times of concurrent communications contending in the network (contention
    /// graphs of Martinasso and Méhaut), optionally capped by memory contention.
    #[command(long_about = NETWORK_ABOUT, after_help = NETWORK_EXAMPLES)]
    Network(NetworkArgs),
    /// How much a command suffers when its memory bandwidth shrinks: its figure of merit at
    /// each bandwidth level, and the levels where it falls below 90/75/50% of its best.
    #[command(long_about = SENSITIVITY_ABOUT, after_help = SENSITIVITY_EXAMPLES)]
    Sensitivity(SensitivityArgs),
    /// Print the shell completion script for SHELL to standard output, generated from the same
    /// definition as --help.
    #[command(after_help = COMPLETIONS_EXAMPLES)]
    Completions(CompletionsArgs),
    /// Write the man pages (contention.1 and one contention-COMMAND.1 per subcommand) into DIR,
    /// generated from the same definition as --help.
    #[command(after_help = MAN_EXAMPLES)]
    Man(ManArgs),
}

const MEASURE_ABOUT: &str = "\
Measure computation and communication bandwidths, alone and in parallel, for every number of \
computing cores: the benchmark of section 4.1.1 of the paper.

It is an MPI job of two ranks. Rank 0 is the measured node: N computing threads, each pinned \
to its own physical core of the first socket, write their own buffer (bound to NUMA node COMP) \
with non-temporal stores; one communication thread, pinned to a core no computing thread uses, \
receives messages from rank 1 into a buffer bound to NUMA node COMM. For each N: computations \
alone, communications alone, both in parallel. Only steady state counts: each thread's first \
and last iterations are dropped, and the parallel phase counts only while both streams run. A \
phase stops when the median's 95% confidence interval is within --stable-within (once it has \
run half of --max-phase, so that it sees the slow swings of the machine), or at --max-phase \
once it holds 30 rounds (one message is one round: a phase short of them runs on, up to 4 \
times --max-phase). A phase that ends wider than --stable-within is flagged UNSTABLE, with its \
width.

On one host the sender (rank 1) copies every message too: with 4 or more cores on the \
computing socket the default sweep keeps it a core of its own (the plan says which). A run \
whose communications alone are starved stops at the first point with the cause and the fix.

Started from a shell, it launches itself with `mpirun -np 2` on this host (or on --hosts); \
under mpirun or srun it runs as it is. Use --dry-run first to check the pinning.

With --engine gpu there is no MPI job: the communication thread is a copy thread beside the \
GPU, and the communications are the copies its copy engines make over PCIe between the GPU \
and the buffer on node COMM (pinned for their DMA), one copy one sample, device to host or \
host to device (--direction); --gpu all copies with every GPU of the node at once. The \
NVIDIA driver is found when the run starts; the trace records the GPU, its link and the \
driver.

The trace (JSON: machine, exact binding, MPI library, build, configuration, per-iteration \
samples and summaries) and a tidy CSV beside it are rewritten after every point, atomically: \
a killed run keeps every finished point, and --resume continues it. Bandwidths are MB/s.";

const MEASURE_EXAMPLES: &str = "\
Examples:
  Check what would run where, on this machine or a saved topology:
    contention measure --numa 0,0 --dry-run
    contention measure --numa 0,1 --dry-run --topology node.xml
  Local placement, then the remote one: both data on the first node of the second socket,
  node 1 with one NUMA node per socket, node 2 with two (sub-NUMA clustering: --numa 1,1
  would then be the first socket's second node); --dry-run prints the node calibrate needs:
    contention measure --numa 0,0 -o local.json
    contention measure --numa 1,1 -o remote.json     # 1 NUMA node per socket
    contention measure --numa 2,2 -o remote.json     # 2 NUMA nodes per socket
  Two nodes, rank 0 measured on node1:
    contention measure --numa 0,0 --hosts node1,node2
  A GPU's copies against the computations, each way (GPU 0, data on node 0):
    contention measure --engine gpu --numa 0,0
    contention measure --engine gpu --numa 0,0 --direction h2d
    contention measure --engine gpu --numa 0,0 --gpu all   # every GPU at once
  Continue a run stopped by Ctrl-C:
    contention measure --numa 0,0 -o local.json --resume";

const PREDICT_ABOUT: &str = "\
Predict computation and communication bandwidths from a model file (equations 1-8 of the paper).

For each placement (COMP,COMM: the NUMA node holding the computation data, the one holding the \
received messages) and each number of computing cores, four bandwidths in MB/s:
  comp_alone     computations with no communication (equation 6)
  comm_alone     communications with no computation (B_seq^comm)
  comp_parallel  computations while messages arrive (equation 8)
  comm_parallel  communications while the cores compute (equation 7)

Placements with both data on one NUMA node are where contention bites; the table marks them \
with `*`. The model covers the computing cores of the first socket, so core counts go from 1 \
to the model's cores_per_socket.

The model file is JSON, as written by `contention calibrate` or typed by hand:
  {\"schema_version\": 1,
   \"machine\": {\"name\": \"henri\", \"numa_nodes\": 2, \"numa_per_socket\": 1, \"cores_per_socket\": 18},
   \"local\":  {\"n_par_max\": 17, \"t_par_max\": 73423.0, \"n_seq_max\": 18, \"t_seq_max\": 72589.9,
              \"t_par_max2\": 73387.7, \"alpha\": 0.915, \"delta_l\": 35.3, \"delta_r\": 0.0,
              \"b_seq_comp\": 4455.4, \"b_seq_comm\": 11481.1},
   \"remote\": {...the same ten fields, measured with both data on the second socket...}}
Without `remote` (one socket) only the first socket's placements can be predicted.";

const PREDICT_EXAMPLES: &str = "\
Examples:
  contention predict --model paper:henri
  contention predict --model model.json --ncores 1..18 --placement 0,0
  contention predict --model model.json --ncores 1,2,4,8 --format csv -o pred.csv
  contention predict --model paper:henri-subnuma --format json | jq '.placements | length'

Built-in models (the paper's Appendix B): paper:billy, paper:bora, paper:dahu, paper:diablo,
paper:grvingt, paper:henri, paper:henri-subnuma, paper:occigen, paper:pyxis.";

#[derive(Debug, Args)]
pub struct PredictArgs {
    /// Model file (JSON, from `contention calibrate` or by hand), or `paper:NAME` for one of
    /// the paper's machines.
    /// Default: this host's saved model, contention-results/HOST/model.json.
    #[arg(long, short = 'm', value_name = "FILE")]
    pub(crate) model: Option<String>,

    /// Computing-core counts: `A..B` (inclusive), `N`, or `1,2,4,8`. Default: 1 to the
    /// model's cores_per_socket.
    #[arg(long, short = 'n', value_name = "A..B")]
    pub(crate) ncores: Option<CoreList>,

    /// Which placement to predict: `COMP,COMM` (NUMA nodes of the computation data and of the
    /// communication data), or `all` for every ordered pair.
    #[arg(long, short = 'p', value_name = "COMP,COMM|all", default_value = "all")]
    pub(crate) placement: PlacementArg,

    /// Output format: a table for people, JSON or tidy CSV for tools.
    #[arg(long, short = 'f', value_enum, default_value_t = Format::Table)]
    pub(crate) format: Format,

    /// Write the output to FILE (atomically) instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,

    /// Add the 95 % interval of every bandwidth, from the bootstrap stored in the model file
    /// (`calibrate --bootstrap N`): JSON `intervals`, CSV `*_low`/`*_high` columns, table lines.
    /// Every refit predicts every row: at most 4194304 such predictions (rows x refits), else
    /// narrow with --placement or --ncores.
    #[arg(long)]
    pub(crate) intervals: bool,
}

const SURVEY_ABOUT: &str = "\
Measure every node of a Slurm allocation (inside salloc or sbatch: the job's nodes) or of \
--hosts A,B,C,... (started with mpirun) in an MPI job of one rank per node. The job runs in \
rounds of disjoint pairs: in each pair one node is measured exactly as `contention measure` \
measures it (same options, same trace, same binding checks) while its partner sends it the \
messages; no node is measured and sending in the same round, and every node is measured \
once. An even count takes two rounds; an odd count a third, in which the last node is \
measured alone with the first node (measured in round 1) as its sender. With --runs auto (the \
default), once every node has its run, the first runs' report chooses the nodes measured \
again (at most half), in a second job of those nodes and their senders; each second trace \
goes to $CONTENTION_RESULTS/HOST/run2/.

Each node's trace lands in $CONTENTION_RESULTS/HOST/ (default ./contention-results/HOST/, \
which must be on a file system every node shares), and the manifest \
$CONTENTION_RESULTS/survey.json records the rounds, the options and every node's status \
(done, failed with the error, pending) after every round. A node that dies, or a round that \
overruns twice its estimated time plus a minute, ends the job with everything finished kept; \
--resume \
starts a new job over the nodes left, with the same options. One node cannot be surveyed \
(a sender needs another node): run `contention measure` there. What no node could be \
calibrated from is refused before anything runs: one core count, a placement other than 0,0.

When the job ends, every measured node is calibrated (its model.json beside its traces) and \
the fleet report is printed: for each parameter the median across nodes, the spread and the \
nodes outside the band of --outlier-k robust standard deviations, with the machine facts \
that differ on them; the figure fleet.svg goes to the results directory (--figure DIR). \
--report-only rebuilds the report from an existing survey without measuring. A survey that \
lost nodes reports the others, then exits 1 naming the lost ones.

With --engine gpu (GPU nodes) no node sends to another: each is measured alone against its \
own GPU's copies (--gpu, --direction d2h or h2d), all in one round, and the machine facts \
compare the nodes' GPUs: a node whose link trained below the fleet's (Gen4 or x8 where the \
others run Gen5 x16) is named, and one whose copies run slow lies outside the band.

--graph and rings (--pattern ring) do not apply to a survey; -o names the report's file.";

const SURVEY_EXAMPLES: &str = "\
Examples:
  Inside a Slurm allocation, every node of the job:
    salloc -N 8 --exclusive
    contention survey --dry-run          # rounds, pairs, duration, srun line
    contention survey
  With mpirun over named hosts:
    contention survey --hosts n01,n02,n03,n04
  Continue after a lost node or the job's time limit:
    contention survey --resume
  The fleet report again, as JSON, without measuring:
    contention survey --report-only --format json -o fleet.json
  GPU nodes, each against its GPU 0's device-to-host copies:
    contention survey --engine gpu
  A simulated fleet of 16 nodes, each measured twice, node7's memory at 0.9x:
    contention survey --simulate paper:henri --nodes 16 --runs 2 --slow node7=mem:0.9";

/// `contention survey`: `measure`'s options, applied to every node, and the fleet report's.
#[derive(Debug, Args)]
pub struct SurveyArgs {
    #[command(flatten)]
    pub(crate) measure: MeasureArgs,

    /// Fleet report format: a table for people, JSON or tidy CSV for tools.
    #[arg(long, short = 'f', value_enum, default_value_t = Format::Table)]
    pub(crate) format: Format,

    /// Directory of the fleet's figure (fleet.svg or fleet.png). Default: the results
    /// directory ($CONTENTION_RESULTS).
    #[arg(long, value_name = "DIR")]
    pub(crate) figure: Option<PathBuf>,

    /// Image format of the fleet's figure.
    #[arg(long, value_enum, default_value_t = PlotFormat::Svg)]
    pub(crate) figure_format: PlotFormat,

    /// Width of the outlier band, in robust standard deviations (median absolute deviations
    /// x 1.4826): a node whose parameter lies further from the fleet's median is named.
    #[arg(long, value_name = "K", default_value_t = 3.0)]
    pub(crate) outlier_k: f64,

    /// With --simulate: how many nodes the simulated fleet has (named node1 .. nodeN).
    #[arg(long, value_name = "N", requires = "simulate", default_value_t = 16)]
    pub(crate) nodes: usize,

    /// With --simulate: the nodes degraded on purpose, `NODE=mem:FACTOR` (its computations'
    /// memory bandwidth times FACTOR) or `NODE=comm:FACTOR` (its communications'),
    /// comma-separated: `--slow node7=mem:0.9,node3=comm:0.8`.
    #[arg(long, value_name = "NODE=KIND:F,...", requires = "simulate")]
    pub(crate) slow: Option<String>,

    /// How each node is calibrated (as `calibrate --method`): `fit` (the default) or
    /// `paper`, the paper's rules, about 15 times faster per node: for fleets of thousands
    /// of nodes.
    #[arg(long, value_enum, default_value_t = CalibrationMethod::Fit)]
    pub(crate) method: CalibrationMethod,

    /// Rebuild the fleet report from the results directory and its survey.json, measuring
    /// nothing.
    #[arg(long, conflicts_with_all = ["resume", "force", "dry_run"])]
    pub(crate) report_only: bool,
}

#[derive(Debug, Clone, Args)]
pub struct MeasureArgs {
    /// NUMA nodes of the computation data and of the communication data, `COMP,COMM`
    /// (hwloc logical indices, as `lstopo` numbers them).
    #[arg(long, value_name = "COMP,COMM", default_value = "0,0")]
    pub(crate) numa: NumaPair,

    /// Computing-core counts to sweep: `A..B`, `N` or `1,2,4,8`. Default: every core of the
    /// first socket the communication thread leaves free.
    #[arg(long, value_name = "A..B")]
    pub(crate) cores: Option<CoreList>,

    /// Core (hwloc logical index) of the communication thread. Default: beside the network
    /// card if hwloc sees one, else the first core of the second socket, else the last core.
    #[arg(long, value_name = "CORE")]
    pub(crate) comm_core: Option<u32>,

    /// Let the communication thread share its core with the last computing thread, on
    /// machines with too few cores for a sweep otherwise (a 2-core CI runner). The largest core
    /// count is then disturbed by the sharing; the trace and the plan say so.
    #[arg(long)]
    pub(crate) shared_comm_core: bool,

    /// What each computing thread does per iteration: `nt-store` (the paper's non-temporal
    /// memset), or STREAM's `copy` and `triad`, which read as well as write (bytes counted as
    /// STREAM does).
    #[arg(long, value_enum, default_value_t = ComputeKernel::NtStore)]
    pub(crate) kernel: ComputeKernel,

    /// Communication pattern (Langguth et al.): `pong` (rank 1 sends, the paper's), `pingpong`
    /// (ranks 0 and 1 send to each other at once), `ring` (every rank sends to the next and
    /// receives from the previous; --ranks ranks). The measured bandwidth is what rank 0
    /// receives.
    #[arg(long, value_enum, default_value_t = CommPattern::Pong)]
    pub(crate) pattern: CommPattern,

    /// What moves the communication stream's bytes. `mpi`: an MPI job, rank 1 sending
    /// messages that a communication thread of rank 0 receives (the paper's benchmark).
    /// `gpu`: no MPI job; a copy thread has a GPU's copy engines move the bytes by DMA over
    /// PCIe between the GPU and the communication buffer (pinned host memory on the COMM
    /// node of --numa), one copy one sample: how much a GPU's staging copies and the
    /// computations slow each other down. Needs the NVIDIA driver (libcuda), found at run
    /// time; --gpu and --direction say which GPU and which way.
    #[arg(long, value_enum, default_value_t = EngineName::Mpi, conflicts_with = "graph")]
    pub(crate) engine: EngineName,

    /// With --engine gpu: the GPU, by its rank in PCI bus order as nvidia-smi numbers them
    /// (default 0). The copy thread runs on a core of the GPU's socket. `all`: every GPU of
    /// the node at once as one stream (4 or 8 copy engines writing into host memory), the
    /// one copy thread keeping each GPU busy; the trace lists them all.
    #[arg(long, value_name = "N|all", conflicts_with = "graph", value_parser = parse_gpu)]
    pub(crate) gpu: Option<crate::trace::GpuChoice>,

    /// With --engine gpu: which way the copies go. `d2h` (the default): device to host, the
    /// copy engine writes host memory as a network card writes a received message; `h2d`:
    /// host to device, it reads host memory; `both`: the sweep one way, then the other, each
    /// into its own trace (calibrate them apart: each way is a law of its own).
    #[arg(long, value_enum, conflicts_with = "graph")]
    pub(crate) direction: Option<DirectionName>,

    /// With --engine gpu: replay the copy bandwidths a GPU node recorded (the reference
    /// probe's output) instead of driving a GPU: for tests on machines without one. The
    /// trace says it was replayed.
    #[arg(
        long,
        value_name = "PROBE_OUTPUT",
        hide = true,
        conflicts_with = "graph"
    )]
    pub(crate) gpu_replay: Option<PathBuf>,

    /// Number of ranks of a ring (at least 3; --hosts then names one host per rank).
    #[arg(long, value_name = "N", default_value_t = 3,
          value_parser = clap::value_parser!(u32).range(3..=1024))]
    pub(crate) ranks: u32,

    /// Size of each received message (or GPU copy), in binary units: 64MiB, 64M and 64MB all mean 64 x 2^20 bytes (a bare number is
    /// bytes). The paper's "messages of 64 MB" are this default, 64 MiB.
    // allow_hyphen_values: so that `-5` reaches the parser, which says why it is refused.
    #[arg(
        long,
        value_name = "SIZE",
        default_value = "64MiB",
        allow_hyphen_values = true
    )]
    pub(crate) message_size: ByteSize,

    /// Bytes of each computing core's own buffer (weak scaling), in binary units: 64MiB, 64M
    /// and 64MB all mean 64 x 2^20 bytes. Default: the working set of all computing cores
    /// together at the largest point is 4 times the last-level cache of their socket(s)
    /// (STREAM's rule; with --kernel copy or triad each core's alone is), at least 64MiB, less
    /// if the NUMA node's free memory cannot hold it (the plan then says so). The threads
    /// write it in chunks and are timed per chunk, so its size does not change how many
    /// samples a phase gets. --dry-run shows it; --resume keeps the trace's.
    #[arg(long, value_name = "SIZE", allow_hyphen_values = true)]
    pub(crate) buffer_size: Option<ByteSize>,

    /// Message buffers the communication stream receives into in turn (and rank 1, on this
    /// host, sends from): one buffer received again and again would stay in a large
    /// last-level cache. Default: as many as make 4 times the cache of the communication
    /// core's socket, within free memory; --resume keeps the trace's. 1 reuses one buffer.
    #[arg(long, value_name = "N")]
    pub(crate) message_buffers: Option<u32>,

    /// Longest time one phase is sampled, in seconds, if it does not become stable sooner;
    /// a phase that holds fewer than 30 rounds by then (30 messages, for a slow network)
    /// runs on until it does, up to 4 times this.
    #[arg(long, value_name = "SECONDS", default_value_t = 1.5)]
    pub(crate) max_phase: f64,

    /// A phase stops once the 95% confidence interval of its median is within this many
    /// percent (and it has run half of --max-phase); one that ends wider is flagged
    /// UNSTABLE, with its width. 5 %: 34 of the 52 phases of a real 16-core node met it within
    /// 1.5 s (1 %: none), and it is finer than the model's own error on the paper's machines
    /// (3.24 % on average).
    #[arg(long, value_name = "PERCENT", default_value_t = 5.0)]
    pub(crate) stable_within: f64,

    /// Seconds without any completed iteration or message before the run is ended as stalled
    /// (e.g. the sender died); finished points are kept.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub(crate) timeout: f64,

    /// Hosts, `A,B`: rank 0 (measured) on A, rank 1 (sender) on B (a ring: one host per
    /// rank). Default: every rank on this host.
    #[arg(long, value_name = "A,B", value_delimiter = ',', num_args = 1, value_parser = parse_host)]
    pub(crate) hosts: Option<Vec<String>>,

    /// How to start the ranks when not already under a launcher (--dry-run shows the line).
    #[arg(long, value_enum, default_value_t = Launcher::Auto)]
    pub(crate) launcher: Launcher,

    /// Trace file (JSON); the tidy CSV is written beside it with the extension `.csv`.
    /// Default: contention-results/HOST/trace-numaCOMP-COMM-KERNEL-PATTERN.json, where
    /// `calibrate` looks for it ($CONTENTION_RESULTS replaces contention-results).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,

    /// Continue the trace in --output: measure only the core counts it lacks. What the
    /// trace's points were measured with is kept: its buffer size and message ring, and
    /// --cores, --message-size, --max-phase, --stable-within and --timeout unless given
    /// (--cores given adds its counts); any other option given that differs from the trace
    /// is refused before the job starts. A point every reader would refuse is dropped, named,
    /// and measured again.
    #[arg(long)]
    pub(crate) resume: bool,

    /// Overwrite an existing trace file, and a file where its tidy CSV goes.
    #[arg(long, conflicts_with = "resume")]
    pub(crate) force: bool,

    /// Do not bind threads or memory (containers, restricted cpusets); recorded in the trace,
    /// whose placement is then only what was asked.
    #[arg(long)]
    pub(crate) no_bind: bool,

    /// Print the plan (cores, nodes, sizes, sweep, estimated time) and exit without measuring.
    #[arg(long)]
    pub(crate) dry_run: bool,

    /// With --dry-run: plan for the machine of this hwloc XML file (`lstopo node.xml`).
    #[arg(long, value_name = "FILE.xml", requires = "dry_run")]
    pub(crate) topology: Option<PathBuf>,

    /// No progress output.
    #[arg(long, short = 'q')]
    pub(crate) quiet: bool,

    /// Measure a simulated machine instead of this one: `paper:NAME` (exactly the paper's
    /// model of a machine of its Table 1: henri, dahu, ...) or `realistic:NAME` (that machine
    /// with soft knees and a slow decline the model cannot follow). No MPI and no binding:
    /// every phase is drawn with noise on a simulated clock, under the same stop rules as a
    /// real run, in seconds; the closing line says how long a real node would take. The
    /// trace is marked simulated: calibrate, evaluate, check and survey never mix it with
    /// real measurements.
    #[arg(long, value_name = "MACHINE")]
    pub(crate) simulate: Option<String>,

    /// Seed of the simulated machine's noise (--simulate) and of the order each run measures
    /// its core counts in (--runs): the same seed draws the same trace and the same orders.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub(crate) seed: u64,

    /// Repeat the sweep R times, each run a separate MPI launch with the core counts in a
    /// shuffled order of its own (seeded by --seed, recorded in the trace): what varies from
    /// one run to the next (where the pages land, which thread the scheduler favours) is
    /// fixed within a launch, so only runs tell how far another run's median will be. With
    /// R >= 2 each phase's +- is the 95 % interval another run's median falls in (Student's
    /// prediction interval on the runs' medians); with 1 it is within the run only, and held
    /// another run's median in 22 % of a real 16-core node's phases (3 runs: 91 %). R times
    /// the time of one sweep (--dry-run shows it). --resume continues the run it stopped in.
    /// Default: 3 (1 with --adaptive, which chooses its points within one run).
    #[arg(long, value_name = "R",
          value_parser = clap::value_parser!(u32).range(1..=i64::from(crate::runs::MAX_RUNS)))]
    pub(crate) runs: Option<u32>,

    /// Choose the core counts instead of sweeping them all: the ends and a coarse grid
    /// first, then, after each fit (the global fit, refitted on perturbed points), the core
    /// count whose measurement would most narrow the refitted models' disagreement over the
    /// whole socket, until --precision or --budget; each choice and what is still uncertain
    /// is said on standard error. A sample placement only (both data
    /// on one node); --resume continues it. On a real machine rank 0 chooses each point
    /// within the same MPI job; `survey --adaptive` does so on every node.
    #[arg(long, conflicts_with = "cores")]
    pub(crate) adaptive: bool,

    /// With --adaptive: stop once every predicted bandwidth's 95% interval (from the
    /// refits of perturbed points) is within this many percent where nothing is measured.
    #[arg(
        long,
        value_name = "PERCENT",
        default_value_t = 1.0,
        requires = "adaptive"
    )]
    pub(crate) precision: f64,

    /// With --adaptive: stop before the next point would take the measuring time (a resumed
    /// trace's points included) past this: `90s`, `20m`, `2h`, or seconds; at least 1 s. The
    /// first grid is measured whatever the budget.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, requires = "adaptive")]
    pub(crate) budget: Option<std::time::Duration>,

    /// Run a contention graph for real instead (one MPI rank per communication end) and
    /// compare each communication's time with the prediction: the same as
    /// `contention network GRAPH --run`, with InfiniBand penalties and 5 repetitions.
    #[arg(long, value_name = "GRAPH.json")]
    pub(crate) graph: Option<PathBuf>,

    /// Which of [`crate::measure::options::RESUMED_FROM_TRACE`] the command line left at
    /// their default (filled by [`Cli::from_matches`]).
    #[arg(skip)]
    pub(crate) defaulted: Vec<&'static str>,
}

/// `--budget`: `90s`, `20m`, `2h`, or a number of seconds; finite, at least
/// the adaptive sweep's `MIN_BUDGET_SECONDS` (1 s: a shorter one is a slip) and under
/// 1e9 seconds (what `Duration::from_secs_f64` and the simulated clock take without overflow).
/// The unit is the trailing letters only, so an exponent (`1e3s`) stays part of the number.
fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    let t = text.trim();
    let number = t.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = match &t[number.len()..] {
        "" => "s",
        u => u,
    };
    let scale = match unit {
        "s" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => return Err(format!("`{text}`: the unit is s, m or h (`20m`)")),
    };
    match number.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v * scale < MIN_BUDGET_SECONDS => Err(format!(
            "`{text}` is {:e} seconds: {SHORT_BUDGET}",
            v * scale
        )),
        Ok(v) if v.is_finite() && v > 0.0 && v * scale < 1e9 => {
            Ok(std::time::Duration::from_secs_f64(v * scale))
        }
        Ok(v) if v.is_finite() && v > 0.0 => Err(format!(
            "`{text}` is {:e} seconds, more than the 1e9 (about 31 years) a budget may be; \
             give a duration such as `90s`, `20m` or `2h`",
            v * scale
        )),
        _ => Err(format!(
            "`{text}`: give a positive duration such as `90s`, `20m` or `2h`"
        )),
    }
}

impl MeasureArgs {
    /// The measurement these arguments ask for, unchecked: `measure` checks it
    /// ([`MeasureOptions::check`]), and so does `survey` after taking out what it reads
    /// otherwise (`--hosts`, `-o`).
    pub(crate) fn measure_options(&self) -> MeasureOptions {
        MeasureOptions {
            comp_numa: self.numa.comp,
            comm_numa: self.numa.comm,
            cores: self.cores.clone(),
            comm_core: self.comm_core,
            shared_comm_core: self.shared_comm_core,
            kernel: self.kernel,
            engine: self.engine(),
            pattern: self.pattern,
            ranks: self.ranks,
            message_size: self.message_size,
            buffer_size: self.buffer_size,
            message_buffers: self.message_buffers,
            max_phase: self.max_phase,
            stable_within: self.stable_within,
            timeout: self.timeout,
            hosts: self.hosts.clone(),
            output: self.output.clone(),
            resume: self.resume,
            force: self.force,
            no_bind: self.no_bind,
            adaptive: self.adaptive.then_some(AdaptiveOptions {
                precision: self.precision / 100.0,
                budget: self.budget,
                design: &crate::design::adaptive::ADAPTIVE,
            }),
            runs: self.runs_asked(),
            seed: self.seed,
            defaulted: self.defaulted.clone(),
        }
    }

    /// `--engine` with `--gpu`, `--direction` and `--gpu-replay`: refused apart by
    /// [`MeasureArgs::check_engine`].
    fn engine(&self) -> crate::measure::choices::Engine {
        use crate::measure::choices::{Engine, GpuStream};
        match self.engine {
            EngineName::Mpi => Engine::Mpi,
            EngineName::Gpu => Engine::Gpu(GpuStream {
                gpus: self.gpu.unwrap_or(crate::trace::GpuChoice::One(0)),
                direction: match self.direction {
                    Some(DirectionName::H2d) => crate::trace::CopyDirection::HostToDevice,
                    _ => crate::trace::CopyDirection::DeviceToHost,
                },
                both: self.direction == Some(DirectionName::Both),
                replay: self.gpu_replay.clone(),
            }),
        }
    }

    /// The GPU's options without `--engine gpu` would be ignored: refused, naming the fix.
    pub(crate) fn check_engine(&self) -> crate::error::Result<()> {
        let given = [
            ("--gpu", self.gpu.is_some()),
            ("--direction", self.direction.is_some()),
            ("--gpu-replay", self.gpu_replay.is_some()),
        ];
        match given.iter().find(|(_, g)| *g) {
            Some((flag, _)) if self.engine == EngineName::Mpi => {
                Err(crate::error::Error::Input(format!(
                    "{flag} is for GPU copies: add --engine gpu (the default engine, mpi, \
                     measures MPI messages)"
                )))
            }
            // A replay is one GPU's recording, and drives none.
            _ if self.gpu == Some(crate::trace::GpuChoice::All) && self.gpu_replay.is_some() => {
                Err(crate::error::Error::Input(
                    "--gpu all with --gpu-replay: a replay holds one GPU's recorded copies \
                     and drives no GPU; replay with --gpu 0"
                        .into(),
                ))
            }
            // No MPI job is started: a launcher asked for would be ignored.
            _ if self.engine == EngineName::Gpu
                && self.launcher != crate::mpi::launch::Launcher::Auto =>
            {
                Err(crate::error::Error::Input(
                    "--engine gpu with --launcher: the GPU's copies run in this one process, \
                     no MPI job is started; drop --launcher"
                        .into(),
                ))
            }
            _ => Ok(()),
        }
    }

    /// `--runs` as given, else the default: [`crate::runs::DEFAULT_RUNS`], one with
    /// `--adaptive` (whose sweep chooses its points from one run's).
    pub(crate) fn runs_asked(&self) -> u32 {
        match self.runs {
            Some(r) => r,
            None if self.adaptive => 1,
            None => crate::runs::DEFAULT_RUNS,
        }
    }

    /// `measure --graph GRAPH` as the command it stands for: `network GRAPH --run` with
    /// InfiniBand penalties, 5 repetitions and a table, the launcher and `-o` passed on.
    /// `None` without `--graph`.
    pub fn as_network_run(&self) -> Option<NetworkArgs> {
        Some(NetworkArgs {
            graph: self.graph.clone()?,
            penalties: PenaltiesArg::InfiniBand,
            format: TableOrJson::Table,
            memory_model: None,
            cores: None,
            placement: None,
            run: true,
            repeat: 5,
            launcher: self.launcher,
            hosts: None,
            output: self.output.clone(),
        })
    }
}

/// `COMP,COMM` NUMA node pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NumaPair {
    pub(crate) comp: u32,
    pub(crate) comm: u32,
}

impl FromStr for NumaPair {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || {
            format!(
                "`{s}` is not a NUMA pair; write COMP,COMM with two hwloc logical node \
                 numbers, e.g. `0,0` (both local) or `0,1`"
            )
        };
        let (c, m) = s.split_once(',').ok_or_else(bad)?;
        Ok(NumaPair {
            comp: c.trim().parse().map_err(|_| bad())?,
            comm: m.trim().parse().map_err(|_| bad())?,
        })
    }
}

const PLOT_ABOUT: &str = "\
Draw the paper's figures from a model file and, optionally, measurements.

Figures (each one file in DIR, named after the machine or the trace):
  grid     Figures 3-11: one panel per placement, the communication data's NUMA node by row and
           the computation data's by column. Network bandwidth on the left axis (blue),
           computation memory bandwidth on the right (orange), against the number of computing
           cores; measured alone (circles) and in parallel (down triangles), the model as lines
           (solid: in parallel, dashed: alone). From traces: error bars are the 95% interval
           of each median, a red ring marks a phase stopped by --max-phase before stability. The placements that calibrated the model have a
           bold title and a thick frame; grey bands show the cores of each NUMA node of the
           first socket when it has several. Without measurements: predictions only.
             -> MACHINE-grid.svg
  stacked  Figure 2, for the local model and the remote one if present: computations and
           communications in parallel stacked, computations alone over them, and the model's
           key points B_seq^comp, T_seq^max, T_par^max, T_par^max2 labelled. The areas are the
           measurements of the calibration placement when given, else the model.
             -> MACHINE-stacked-local.svg, MACHINE-stacked-remote.svg
  sweep    One per trace JSON: each phase's samples as box plots per core count (computations
           per core and iteration, communications per message) to judge noise and outliers.
             -> TRACE-sweep.svg

Measurements are trace JSON files written by `contention measure` or tidy CSV files
(comp_numa,comm_numa,cores,comp_alone,comm_alone,comp_parallel,comm_parallel; repeated rows are
aggregated by median): .json is a trace and .csv a tidy CSV; any other name (or -) is told
from its content. All bandwidths are MB/s.

The font (DejaVu Sans) is built into the binary: figures render the same on a headless node
with no fonts installed. PNG files are 300 dpi, laid out for 6-8 pt text at that size.
With --csv, the plotted series are written beside each figure (MACHINE-grid-model.csv and
MACHINE-grid-measured.csv are tidy CSV) for those who plot elsewhere. Written files are listed
on standard error.";

const PLOT_EXAMPLES: &str = "\
Examples:
  The model alone (predictions), as SVG in the current directory:
    contention plot --model paper:henri-subnuma

  Measurements against a calibrated model, PNG for slides, with the data as CSV:
    contention plot --model model.json trace-0-0.json trace-2-2.json -o figures --format png --csv

  Only the grid, from a CSV made with another tool:
    contention plot --model model.json measurements.csv --figure grid";

const SHOW_ABOUT: &str = "\
Reprint the point lines of saved traces (of `contention measure`) as the measurement printed \
them: per core count, each phase's median bandwidth with its +- and the loss ratios L_M and \
L_N, UNSTABLE where a phase ended wider than --stable-within.

The lines are made from what the file holds (each phase's stored 95 % interval), not \
recomputed from the samples. Each block opens with what its +- carries: for a trace of one \
run, the interval of the median within that run (another run of the same command may differ \
by more); for a trace of `measure --runs R`, each run's lines (within that run), then the runs \
combined, whose +- is where another run's median falls.";

const SHOW_EXAMPLES: &str = "\
Examples:
  contention show contention-results/node1/trace-numa0-0-nt-store-pong.json
  contention show runs.json --format json | jq '.traces[0].blocks[-1].lines'
  contention show a.json b.json";

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Trace files of `contention measure` (JSON), shown in the order given.
    #[arg(value_name = "TRACE", required = true)]
    pub(crate) traces: Vec<PathBuf>,

    /// Output format: the lines as `measure` printed them, or JSON (no CSV: the tidy CSV
    /// `measure` writes beside each trace holds its medians).
    #[arg(long, short = 'f', value_enum, default_value_t = Format::Table)]
    pub(crate) format: Format,

    /// Write the output to FILE (atomically) instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct PlotArgs {
    /// Model file (JSON, from `contention calibrate` or by hand), or `paper:NAME` for one of
    /// the paper's machines.
    /// Default: this host's saved model, contention-results/HOST/model.json.
    #[arg(long, short = 'm', value_name = "FILE")]
    pub(crate) model: Option<String>,

    /// Measurements to draw: trace JSON files (from `contention measure`) or tidy CSV files.
    /// Default, when --model is not given either: this host's traces.
    #[arg(value_name = "TRACE")]
    pub(crate) traces: Vec<PathBuf>,

    /// Directory the figures are written to (created if missing). Default: the current
    /// directory, or contention-results/HOST/figures/ when --model is not given.
    #[arg(long, short = 'o', value_name = "DIR")]
    pub(crate) output: Option<PathBuf>,

    /// Image format.
    #[arg(long, short = 'f', value_enum, default_value_t = PlotFormat::Svg)]
    pub(crate) format: PlotFormat,

    /// Which figures to draw (comma-separated or repeated). Default: all that the inputs
    /// allow (sweeps need trace JSON files).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "FIGURE")]
    pub(crate) figure: Vec<FigureKind>,

    /// Also write the plotted series as CSV beside each figure.
    #[arg(long)]
    pub(crate) csv: bool,
}

/// `--gpu N`: a GPU's rank; `all`: every GPU at once.
fn parse_gpu(s: &str) -> Result<crate::trace::GpuChoice, String> {
    match s.trim() {
        "all" => Ok(crate::trace::GpuChoice::All),
        n => n.parse().map(crate::trace::GpuChoice::One).map_err(|_| {
            format!(
                "`{}`: a GPU's rank in PCI bus order, as nvidia-smi numbers them (0, 1, ...), \
                 or `all`",
                crate::error::escape(n)
            )
        }),
    }
}

/// `measure --engine`: what moves the communication stream's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum EngineName {
    /// An MPI job: rank 1 sends, rank 0 receives.
    Mpi,
    /// A GPU's copy engines, no MPI job.
    Gpu,
}

/// `measure --direction`: which way a GPU's copies go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum DirectionName {
    /// Device to host: the copy engine writes host memory.
    D2h,
    /// Host to device: it reads host memory.
    H2d,
    /// Device to host, then host to device: two sweeps, two traces.
    Both,
}

/// The image format of `plot`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum PlotFormat {
    /// Vector graphics; text stays text.
    Svg,
    /// 300 dpi bitmap.
    Png,
}

/// The one mapping from the command line's format to the figures'.
impl From<PlotFormat> for crate::plot::ImageFormat {
    fn from(f: PlotFormat) -> Self {
        match f {
            PlotFormat::Svg => crate::plot::ImageFormat::Svg,
            PlotFormat::Png => crate::plot::ImageFormat::Png,
        }
    }
}

/// The figures `plot` can draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum FigureKind {
    /// The placement grid (Figures 3-11).
    Grid,
    /// The stacked view with the model's key points (Figure 2).
    Stacked,
    /// One trace's samples per phase and core count.
    Sweep,
}

/// How a report is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// Aligned columns, one block per placement, for a terminal.
    Table,
    /// JSON, with machine and tool provenance (docs/formats.md).
    Json,
    /// CSV for tools, one row per point (the command's --help lists the columns).
    Csv,
}

/// `--format` as the report writer takes it ([`crate::report::emit`]).
impl From<Format> for crate::report::Format {
    fn from(f: Format) -> Self {
        match f {
            Format::Table => Self::Table,
            Format::Json => Self::Json,
            Format::Csv => Self::Csv,
        }
    }
}

/// `--placement`: every placement, or one `COMP,COMM` pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlacementArg {
    All,
    One(NumaPair),
}

impl FromStr for PlacementArg {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.trim().eq_ignore_ascii_case("all") {
            return Ok(PlacementArg::All);
        }
        s.parse()
            .map(PlacementArg::One)
            .map_err(|e| format!("{e}, or `all`"))
    }
}

const CALIBRATE_ABOUT: &str = "\
Fit the model's parameters to measurements (section 3.1 of the paper) and write the model file.

Inputs are traces written by `contention measure` (JSON) or tidy CSV files with the columns
  comp_numa,comm_numa,cores,comp_alone,comm_alone,comp_parallel,comm_parallel
(bandwidths in MB/s; repeated rows of one placement and core count are repetitions, aggregated \
by median), so measurements from other benchmarks can be used. The kind is told by the \
extension (.json, .csv), else by the content.

The paper's rules (section 4.1.2, `--method paper`) read the parameters off two sample \
placements: both data on NUMA node 0 gives the `local` parameters, both data on node N (N = \
NUMA nodes per socket, the first node of the second socket) the `remote` ones. A single-socket \
machine gives `local` only. The default, `--method fit`, starts from those rules and fits \
every sample of every placement given (robust loss of relative errors, breakpoints searched \
around the rules), never ending worse than the rules on the data; it reports both, the \
parameters the data cannot pin down and, with 3 or more placements, the error on each \
placement left out of the fit. `--bootstrap 200` adds 95 % intervals (predict --intervals).

Each placement's sweep must include 1 computing core and at least one other count; counts \
above N_seq^max may be skipped except the last one. Maxima (T_seq^max, T_par^max) and the \
minimum of comm_parallel (alpha) are read so that noise cannot move them: the core counts whose \
value is within a tolerance of the extreme, from the first one on while they follow each other \
in the sweep, form a plateau; the plateau's median is the value, its first core count is \
N_seq^max (where computations alone stop scaling) and its last is N_par^max (equation 1 holds \
T_par^max up to N_par^max). The tolerance is 1 %, or twice the median relative standard error \
of the points where the traces' samples (or repeated rows) show more noise; --tolerance sets it.

The model file (JSON) holds the fields `contention predict` reads (schema_version, machine, \
local, remote) and a `calibration` record: the inputs, the measured machine, the date, the tie \
rule and, per side, the residuals (measured - predicted, MB/s) and their error. Which \
placements were used and the parameters are also printed on standard error.";

const CALIBRATE_EXAMPLES: &str = "\
Examples:
  From two traces of a two-socket machine:
    contention calibrate local.json remote.json -o model.json

  From a CSV of another benchmark (one NUMA node per socket, 18 cores per socket):
    contention calibrate sweep.csv --numa-per-socket 1 --cores-per-socket 18 --name henri -o henri.json

  Then:
    contention predict --model model.json
    contention evaluate --model model.json *.json";

#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// Measurement files: traces of `contention measure` (JSON) or tidy CSV; together they
    /// must hold placement 0,0 and, on a multi-socket machine, N,N (N = NUMA nodes per socket).
    /// Default: this host's traces in contention-results/HOST/ (the paper's variant if several).
    #[arg(value_name = "TRACE")]
    pub(crate) inputs: Vec<PathBuf>,

    /// Write the model file to FILE (atomically). Default: with no TRACE given,
    /// contention-results/HOST/model.json, where the other commands look for it; else
    /// standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,

    #[command(flatten)]
    pub(crate) topology: CsvTopology,

    /// Machine name in the model file. Default: the traces' host name, or the CSV file's name.
    #[arg(long, value_name = "NAME", value_parser = parse_name)]
    pub(crate) name: Option<String>,

    /// Relative tolerance, in percent, within which values tie with a maximum or minimum.
    /// Default: 1 %, or 2 standard errors of the points where the samples show more noise.
    #[arg(long, value_name = "PERCENT", value_parser = parse_percent)]
    pub(crate) tolerance: Option<f64>,

    /// On a multi-socket machine, calibrate `local` only (no N,N placement needed); the
    /// model then predicts the first socket's placements only.
    #[arg(long)]
    pub(crate) local_only: bool,

    /// `fit`: a robust fit of every sample of every measured placement, started from the
    /// paper's rules and never worse than them on the data. `paper`: the paper's rules
    /// (section 3.1) on the two sample placements only.
    #[arg(long, value_enum, default_value_t = CalibrationMethod::Fit)]
    pub(crate) method: CalibrationMethod,

    /// Bootstrap resamples for 95 % intervals of every parameter, stored in the model file
    /// for `predict --intervals` and `plot` (200 is plenty; 0: none); a breakpoint's interval
    /// also holds every core count the fit's loss does not reject (its profile, with the
    /// plateau T_par^max no higher than the largest total measured), and the other
    /// parameters' what the fit takes there. At most 10000: each resample's refit is
    /// stored in the model file, which must stay readable (under the readers' 64 MiB).
    /// With --method fit only: refused (exit 2) with --method paper, whose rules are not
    /// refitted.
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = parse_bootstrap)]
    pub(crate) bootstrap: u32,

    /// Seed of the bootstrap: the same data and seed give the same intervals.
    #[arg(long, value_name = "SEED", default_value_t = 1)]
    pub(crate) seed: u64,

    /// Which contention model to fit. `paper`: the paper's, for messages a network card
    /// writes into memory (communications keep their bandwidth until the memory is full,
    /// then drop to alpha). `cpu-copy`: its variant for messages CPU cores copy, as between
    /// two ranks of one host (communications lose bandwidth as the computations load the
    /// memory, by the memory's loaded latency: one more parameter per side, kappa). `knee`:
    /// its variant for copies by DMA beside the computations, as a GPU's copy engines make
    /// (communications keep their bandwidth at a light load and fall steeply past a knee:
    /// two more parameters per side, half_load and steepness). Default (--method fit, 8 or more
    /// core counts): the law that best predicts the core counts its fit did not see, the
    /// traces' transport breaking near-ties (intra-node: cpu-copy; GPU copies: knee;
    /// network, CSV or older traces: paper); the report shows each law's error.
    #[arg(long, value_enum, value_name = "MODEL")]
    pub(crate) model: Option<ModelVariant>,
}

/// Which model `calibrate` fits (`--model`): any law the model knows
/// ([`crate::model::Variant::ALL`]), by its name, with its one-line help.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ModelVariant(pub(crate) crate::model::Variant);

impl ModelVariant {
    const ALL: [ModelVariant; crate::model::Variant::ALL.len()] = {
        let mut all =
            [ModelVariant(crate::model::Variant::Paper); crate::model::Variant::ALL.len()];
        let mut i = 0;
        while i < all.len() {
            all[i] = ModelVariant(crate::model::Variant::ALL[i]);
            i += 1;
        }
        all
    };
}

impl ValueEnum for ModelVariant {
    fn value_variants<'a>() -> &'a [Self] {
        &Self::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.0.name()).help(self.0.help()))
    }
}

impl From<ModelVariant> for crate::model::Variant {
    fn from(v: ModelVariant) -> Self {
        v.0
    }
}

/// How `calibrate` reads the parameters (`--method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CalibrationMethod {
    /// Global robust fit of every measured placement, started from the paper's rules.
    Fit,
    /// The paper's rules on the two sample placements.
    Paper,
}

impl From<CalibrationMethod> for crate::calibrate::Method {
    fn from(m: CalibrationMethod) -> Self {
        match m {
            CalibrationMethod::Fit => crate::calibrate::Method::Fit,
            CalibrationMethod::Paper => crate::calibrate::Method::Paper,
        }
    }
}

const CHECK_ABOUT: &str = "\
Check new measurements against an expected model, for regression tests of a machine (or of the \
tool) in CI.

The measurements are calibrated as `contention calibrate` would, and the fitted model is \
compared with the expected one by what both predict, for every placement and every core \
count: the check fails when any predicted bandwidth moves by more than the drift limit. The \
parameters that moved are listed, to say why.

The drift limit is judged against the measurements' own noise: twice the largest tie \
tolerance of the refitted sides (each max(1 %, 2 x the median relative standard error of a \
curve's points, from the traces' samples)), so a noisy machine is not failed for its noise and \
a quiet one is held to its precision. --tolerance PERCENT sets a fixed limit instead. \
--max-mape PERCENT also fails the check when the expected model's error on the measurements \
(MAPE, parallel phase, as the paper's Table 2) is larger: an absolute limit, off by default \
because the model's own error on a machine is a property of the machine, not a regression.

With no --model and no TRACE, this host's saved model and traces are checked \
(contention-results/HOST/). Formats: `table`; `json` (schema_version, tool, machine, inputs, \
limits, drift with the parameters that moved and each placement's largest drift, MAPE, \
failures, pass); `csv`, one row per placement: \
comp_numa,comm_numa,cores,bandwidth,expected,new,drift_percent,limit_percent,pass.

Exit status: 0 pass, 1 fail (the report says why), 2 bad input.";

const CHECK_EXAMPLES: &str = "\
Examples:
  This host's traces against this host's saved model (after measure and calibrate):
    contention check
  The project's saved traces of its CI machine against the model calibrated from them:
    contention check --model tests/data/expected/vm-local.model.json tests/data/traces/
  A fixed drift limit and an absolute error limit, as JSON for a CI script:
    contention check --model expected.json new.json --tolerance 3 --max-mape 8 --format json
  A new survey of a fleet against a saved one, node by node:
    contention check --fleet saved-results/ new-results/";

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The expected model file (from `contention calibrate`, kept with the CI job).
    /// Default: this host's saved model, contention-results/HOST/model.json.
    #[arg(long, short = 'm', value_name = "FILE")]
    pub(crate) model: Option<String>,

    /// New measurements: traces of `contention measure` or tidy CSV; a directory stands for
    /// its traces. Default: this host's traces in contention-results/HOST/ (the paper's variant
    /// if several).
    #[arg(value_name = "TRACE")]
    pub(crate) inputs: Vec<PathBuf>,

    /// Largest change, in percent, of any predicted bandwidth between the expected model and
    /// the one fitted to the new measurements. Default: from the measurements' noise (twice
    /// the largest tie tolerance of the refit, at least 2 %).
    #[arg(long, value_name = "PERCENT")]
    pub(crate) tolerance: Option<f64>,

    /// Also fail when the expected model's prediction error (MAPE, percent, parallel phase)
    /// on the new measurements exceeds this, for communications or computations. Default:
    /// reported, not judged.
    #[arg(long, value_name = "PERCENT")]
    pub(crate) max_mape: Option<f64>,

    /// Check a fleet, node by node: SAVED is a saved fleet (a results directory with
    /// HOST/model.json, or a fleet report's JSON), and the one TRACE a results directory of a
    /// new survey (default: $CONTENTION_RESULTS, else ./contention-results). A node saved but
    /// not measured anew fails; a new node is listed.
    #[arg(long, value_name = "SAVED", conflicts_with_all = ["model", "max_mape"])]
    pub(crate) fleet: Option<PathBuf>,

    #[command(flatten)]
    pub(crate) topology: CsvTopology,

    /// Output format of the report.
    #[arg(long, short = 'f', value_enum, default_value_t = Format::Table)]
    pub(crate) format: Format,

    /// Write the report to FILE (atomically) instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,
}

/// What a tidy CSV does not say about the machine (traces carry it).
#[derive(Debug, Args)]
pub(crate) struct CsvTopology {
    /// NUMA nodes per socket, for CSV input (traces carry it). Placement N,N calibrates
    /// `remote`.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub(crate) numa_per_socket: Option<u32>,

    /// NUMA nodes of the whole machine (at most 1024), for CSV input. Default: the highest
    /// node in the placements, rounded up to whole sockets.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub(crate) numa_nodes: Option<u32>,

    /// Physical cores of one socket (at most 4096), for CSV input. Default: the largest core
    /// count measured.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub(crate) cores_per_socket: Option<u32>,
}

/// `--tolerance`: a percentage in [0, 50), returned as a fraction.
/// One entry of `--hosts`. Each host gets a directory of the results root named after it, so
/// what cannot be a host name is refused here, before anything runs: an empty entry (`a,,b`),
/// `.` and `..` (the root and its parent), and names with `/`, `\\`, white space, control
/// characters or invisible format ones (a bidi override shows another name than the one
/// measured: [`crate::error::needs_escape`]).
fn parse_host(s: &str) -> Result<String, String> {
    let odd = |c: char| c == '/' || c == '\\' || c.is_whitespace() || crate::error::needs_escape(c);
    if s.is_empty() || s == "." || s == ".." || s.chars().any(odd) {
        return Err(
            "not a host name (an empty entry, `.`, `..`, or a name with `/`, `\\`, \
                    white space, control or invisible format characters); give host names or \
                    addresses separated by commas, e.g. node1,node2"
                .into(),
        );
    }
    Ok(s.to_string())
}

/// `calibrate --name`: a machine name the model file may hold (`Model::problems` refuses
/// the same in any model file read), refused here, before the inputs are read and fitted:
/// one with a control character, or an invisible format one that shows other text than it
/// holds wherever the name is printed or drawn (`$'\u202egnp.'` reads `.png`).
fn parse_name(s: &str) -> Result<String, String> {
    match s.chars().find(|&c| crate::error::needs_escape(c)) {
        Some(c) => Err(format!(
            "{} holds {}, a control or invisible format character (bidi overrides, isolates, \
             zero widths are refused like control characters: the name is printed to \
             terminals and drawn in figures); give a name of visible characters",
            crate::error::clip(s),
            c.escape_unicode()
        )),
        None => Ok(s.to_string()),
    }
}

/// `--bootstrap`: a whole number of resamples up to
/// [`MAX_RESAMPLES`](crate::calibrate::bootstrap::MAX_RESAMPLES), whose refits the model file
/// stores (82,000 wrote a 69 MB file that `predict` refused, after 7 minutes).
fn parse_bootstrap(s: &str) -> Result<u32, String> {
    let max = crate::calibrate::bootstrap::MAX_RESAMPLES;
    let t = s.trim();
    let digits = !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    match t.parse::<u64>() {
        Ok(n) if n <= u64::from(max) => Ok(n as u32),
        _ if digits => Err(format!(
            "{} resamples is more than the {max} a model file holds: each resample's refit is \
             stored in it, and a larger file is past the 64 MiB the readers take (200 are \
             plenty for 95 % intervals); give at most {max}",
            crate::error::clip(t)
        )),
        _ => Err(format!(
            "`{}` is not a number of resamples; give a whole number from 0 (none) to {max}, \
             e.g. 200",
            crate::error::clip(s)
        )),
    }
}

fn parse_percent(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .trim_end_matches('%')
        .parse()
        .map_err(|_| format!("`{s}` is not a percentage; write e.g. `1` or `0.5` (percent)"))?;
    if (0.0..50.0).contains(&v) {
        Ok(v / 100.0)
    } else {
        Err(format!(
            "`{}` % is outside [0, 50): the tolerance is how far below a maximum a value may be \
             and still tie with it, typically 0.5 to 5 %",
            s.trim().trim_end_matches('%')
        ))
    }
}

const EVALUATE_ABOUT: &str = "\
Compare a model's predictions with measurements: the mean absolute percentage error
  MAPE = 100 % / n * sum |measured - predicted| / measured
for communications and for computations, on the placements the model was calibrated on \
(\"samples\": 0,0 and N,N with N the NUMA nodes per socket), on the others (\"non-samples\") \
and on all: the layout of the paper's Table 2 (section 4.2), plus their average.

The Table 2 figures count the bandwidths measured in parallel (comp_parallel, comm_parallel: \
both streams running together) at every measured placement and core count. The same figures \
for each stream alone (comp_alone, comm_alone) follow, labelled, with the error per placement.

Inputs are traces of `contention measure` or tidy CSV (see `contention calibrate --help`), of \
any placements; repeated rows are aggregated by median. The topology is the model's.

With 3 or more placements measured, the leave-one-placement-out error follows: the global fit \
of these measurements without each non-sample placement, predicting it, beside this model's \
error there; else a line says why not. The fits start from the paper's rules on the sample \
placements (--tolerance as for calibrate).

Formats: `table` for people; `json` with the same figures (n_samples and n_non_samples are the \
point counts; null where no point counts); `csv` with one row per point compared:
  comp_numa,comm_numa,cores,sample,phase,stream,measured,predicted,ape_percent
(phase is parallel or alone, stream comp or comm, bandwidths MB/s, ape_percent the absolute \
percentage error of that point).";

const EVALUATE_EXAMPLES: &str = "\
Examples:
  contention evaluate --model model.json local.json remote.json cross-*.json
  contention evaluate --model paper:henri henri-all-placements.csv --format json
  contention evaluate -m model.json sweep.csv --format csv -o errors.csv";

#[derive(Debug, Args)]
pub struct EvaluateArgs {
    /// Model file (JSON, from `contention calibrate` or by hand), or `paper:NAME`.
    /// Default: this host's saved model, contention-results/HOST/model.json.
    #[arg(long, short = 'm', value_name = "FILE")]
    pub(crate) model: Option<String>,

    /// Measurement files: traces of `contention measure` (JSON) or tidy CSV, any placements.
    /// Default: this host's traces in contention-results/HOST/ (the paper's variant if several).
    #[arg(value_name = "TRACE")]
    pub(crate) inputs: Vec<PathBuf>,

    /// Output format: Table 2 for people, JSON, or CSV of every point compared.
    #[arg(long, short = 'f', value_enum, default_value_t = Format::Table)]
    pub(crate) format: Format,

    /// Write the output to FILE (atomically) instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,

    /// Tie tolerance, in percent, of the paper's rules that start the leave-one-placement-out
    /// fits, as `calibrate --tolerance` (default: 1 %, or 2 standard errors of the points).
    #[arg(long, value_name = "PERCENT", value_parser = parse_percent)]
    pub(crate) tolerance: Option<f64>,
}

const NETWORK_ABOUT: &str = "\
Predict the times of concurrent communications from a contention graph: the model of \
Martinasso and Méhaut (Euro-Par 2011, sections 3 and 4).

The graph file (JSON) lists communications (id, source node, destination node, size in bytes, \
start time in seconds) and the link: `alpha`, seconds per byte of a communication alone, or \
`bandwidth` in MB/s:
  {\"alpha\": 5.105e-10,
   \"communications\": [{\"id\": \"a\", \"src\": \"n0\", \"dst\": \"n1\", \"bytes\": 20971520, \"start\": 0},
                      {\"id\": \"b\", \"src\": \"n0\", \"dst\": \"n2\", \"bytes\": 20971520}]}

Step by step (section 3.2): the communications started and not finished form a contention \
graph; each gets a penalty rho >= 1 and moves 1/(alpha rho) bytes per second until the next \
one starts or the first one ends. Every step is printed (active communications, penalty, bytes \
remaining, end time), as in the paper's Figure 3, then each communication's end time.

Penalties (--penalties):
  infiniband  equation 4 of section 4.2, from the shape of each step's graph
  fair        max-min fair sharing of each node's send and receive bandwidth
  FILE        explicit penalties per step, JSON: {\"steps\": [{\"a\": 3.5, \"b\": 3.5}, ...]},
              one object per step with the penalty of each active communication

With --memory-model, --cores and --placement, each node receives at most the communication \
bandwidth that the memory contention model predicts (comm_parallel, as `contention predict` \
prints it) while N cores compute: network and memory contention together.

With --run the graph is also run for real: an MPI job of one rank per communication end, \
started with mpirun (or srun) on this host; each communication's time from its start to the \
end of its receive, the median of --repeat runs, is printed beside the prediction. With \
--hosts each graph node runs on a host of its own (mpirun's sequential mapper puts every rank \
on the host of its end), so the messages cross the network instead of this host's memory.";

const NETWORK_EXAMPLES: &str = "\
Examples:
  contention network graph.json
  contention network graph.json --penalties fair --format json
  contention network graph.json --penalties measured-penalties.json
  contention network graph.json --memory-model paper:henri --cores 16 --placement 0,0
  Run it with MPI on this host (one rank per communication end) and compare:
    contention network graph.json --run --repeat 10
  Run it across the cluster, graph nodes n1..n3 on three hosts:
    contention network graph.json --run --hosts n1=node1,n2=node2,n3=node3";

#[derive(Debug, Args)]
pub struct NetworkArgs {
    /// Contention graph file (JSON: alpha or bandwidth, communications).
    #[arg(value_name = "GRAPH")]
    pub(crate) graph: PathBuf,

    /// Penalty model: `infiniband`, `fair`, or a JSON file of penalties per step.
    #[arg(
        long,
        value_name = "infiniband|fair|FILE",
        default_value = "infiniband"
    )]
    pub(crate) penalties: PenaltiesArg,

    /// Output format: the steps as a table for people, or JSON.
    #[arg(long, short = 'f', value_enum, default_value_t = TableOrJson::Table)]
    pub(crate) format: TableOrJson,

    /// Memory contention model (file or `paper:NAME`) capping what each node receives.
    #[arg(long, value_name = "FILE", requires_all = ["cores", "placement"])]
    pub(crate) memory_model: Option<String>,

    /// Computing cores on each receiving node, for --memory-model.
    #[arg(long, value_name = "N", requires = "memory_model",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) cores: Option<u32>,

    /// `COMP,COMM` NUMA nodes of the computation and communication data, for --memory-model.
    #[arg(long, value_name = "COMP,COMM", requires = "memory_model")]
    pub(crate) placement: Option<NumaPair>,

    /// Run the graph for real: an MPI job of one rank per communication end (rank 2i sends
    /// communication i, rank 2i+1 receives it), started with the launcher on this host, and
    /// compare each communication's measured time with the prediction.
    #[arg(long)]
    pub(crate) run: bool,

    /// Timed repetitions of --run (after one warm-up); the median is compared.
    #[arg(long, value_name = "N", default_value_t = 5, requires = "run",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) repeat: u32,

    /// MPI launcher for --run.
    #[arg(long, value_enum, default_value_t = Launcher::Auto, requires = "run")]
    pub(crate) launcher: Launcher,

    /// Hosts of the graph's nodes for --run, `NODE=HOST,...` (every node of the graph once;
    /// several nodes may share a host). Without it every rank runs on this host.
    #[arg(
        long,
        value_name = "NODE=HOST,...",
        value_delimiter = ',',
        requires = "run"
    )]
    pub(crate) hosts: Option<Vec<String>>,

    /// Write the output to FILE (atomically) instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,
}

const OVERLAP_ABOUT: &str = "\
The time of one step whose memory-bound computation overlaps its communication, under memory \
bandwidth contention: the model of Langguth, Cai and Sourouri (ICPADS 2018), section IV.

Alone, the computation takes T_M and the communication T_N. Side by side both slow down by \
their loss ratios L_M and L_N (uncontended over contended performance, at least 1), so they \
would take T^C_M = T_M L_M and T^C_N = T_N L_N; when the first ends, the other runs at full \
speed again:
  T_tot = min(T^C_M, T^C_N) + max((T^C_M - T^C_N) / L_M, (T^C_N - T^C_M) / L_N)
Reported beside it: T_M + T_N (no overlap) and max(T_M, T_N) (overlap without contention).

Times may be in any unit (the paper uses milliseconds), the same for both: every time \
reported is in that unit. Loss ratios come from `contention evaluate`/`predict` (alone / \
parallel bandwidth) or from the paper (e.g. L_N = 2.2, L_M = 1.72 on Cartesius).

With --accel-perf (section VI) the computation can be split: a share W runs on accelerators \
of performance P_A, 1 - W on the CPU, which also drives the communication. --comp-time is \
then the whole computation on the CPU (W = 0) and --accel-perf is P_A / P_M, the \
accelerators' performance as a multiple of the CPU's uncontended one. The step takes the \
longer of the accelerators (T_M W / (P_A / P_M)) and the CPU's contended step; the share that \
makes them equal is searched for, and when the communication alone outlasts the accelerators \
doing everything, no share in [0, 1] balances and W = 1 is reported as the best.";

const OVERLAP_EXAMPLES: &str = "\
Examples:
  The paper's section VI example (milliseconds): T_tot = 1.46 ms, T^C_N = 1.1 ms
    contention overlap --comp-time 1 --comm-time 0.5 --comp-loss 1.72 --comm-loss 2.2

  Table II, 4 nodes (losses = T^C / T), as JSON for a script:
    contention overlap --comp-time 124.58 --comm-time 0.86 --comp-loss 1.104 \\
      --comm-loss 2.279 --format json

  CPU + GPUs 5x as fast together; whole work 6 ms on the CPU; 5/6 of it on the GPUs:
    contention overlap --comp-time 6 --comm-time 0.5 --comp-loss 1.72 --comm-loss 2.2 \\
      --accel-perf 5 --accel-share 0.8333";

/// How `overlap` and `advise` write their report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TableOrJson {
    /// Aligned text for a terminal.
    Table,
    /// JSON for scripts.
    Json,
}

/// `--format` of the commands without CSV (`overlap`, `advise`, `network`).
impl From<TableOrJson> for crate::report::Format {
    fn from(f: TableOrJson) -> Self {
        match f {
            TableOrJson::Table => Self::Table,
            TableOrJson::Json => Self::Json,
        }
    }
}

#[derive(Debug, Args)]
pub struct OverlapArgs {
    /// T_M: the computation alone, uncontended (any time unit, the same as --comm-time).
    #[arg(long, value_name = "TM", allow_negative_numbers = true)]
    pub(crate) comp_time: f64,

    /// T_N: the communication alone, uncontended (the unit of --comp-time).
    #[arg(long, value_name = "TN", allow_negative_numbers = true)]
    pub(crate) comm_time: f64,

    /// L_M >= 1: the computation's loss ratio, uncontended over contended performance.
    #[arg(long, value_name = "LM", allow_negative_numbers = true)]
    pub(crate) comp_loss: f64,

    /// L_N >= 1: the communication's loss ratio, uncontended over contended performance.
    #[arg(long, value_name = "LN", allow_negative_numbers = true)]
    pub(crate) comm_loss: f64,

    /// P_A / P_M: accelerators' performance as a multiple of the CPU's (section VI). Then
    /// --comp-time is the whole computation on the CPU, and the balancing share is searched.
    #[arg(long, value_name = "PA", allow_negative_numbers = true)]
    pub(crate) accel_perf: Option<f64>,

    /// W in [0, 1]: the share of the computation on the accelerators (needs --accel-perf).
    #[arg(
        long,
        value_name = "W",
        requires = "accel_perf",
        allow_negative_numbers = true
    )]
    pub(crate) accel_share: Option<f64>,

    /// Output format: a table for people, JSON for scripts.
    #[arg(long, short = 'f', value_enum, default_value_t = TableOrJson::Table)]
    pub(crate) format: TableOrJson,
}

const ADVISE_ABOUT: &str = "\
The fastest number of computing cores and placement of the data for one step of an overlapped \
code: the contention model's bandwidths (Denis et al.) fed to the time model of Langguth et \
al. (see `contention overlap --help`).

The step computes on --comp-bytes (W_M) and receives --comm-bytes (W_N). For every placement \
(COMP,COMM NUMA nodes) and core count, from the predicted bandwidths in MB/s (10^6 bytes/s):
  T_M = W_M / comp_alone        T_N = W_N / comm_alone          (seconds)
  L_M = comp_alone / comp_parallel    L_N = comm_alone / comm_parallel
  T_tot from the overlap model.
The configurations are ranked by T_tot (ties go to fewer cores) and compared with the naive \
one: every core of the socket, both data on NUMA node 0. The model predicts memory-bound \
computations that stream W_M bytes at the predicted bandwidth: more cores move the same bytes \
faster but slow the communication down more.";

const ADVISE_EXAMPLES: &str = "\
Examples:
  A step that streams 1 GiB and receives 64 MiB on the paper's henri machine:
    contention advise --model paper:henri --comp-bytes 1GiB --comm-bytes 64MiB

  Only 8 to 18 cores, every candidate as JSON for a script:
    contention advise --model model.json --comp-bytes 512M --comm-bytes 256M \\
      --ncores 8..18 --format json | jq '.best'

Sizes take binary suffixes (k/KiB, M/MiB, G/GiB) or a byte count.";

#[derive(Debug, Args)]
pub struct AdviseArgs {
    /// Model file (JSON, from `contention calibrate` or by hand), or `paper:NAME` for one of
    /// the paper's machines.
    /// Default: this host's saved model, contention-results/HOST/model.json.
    #[arg(long, short = 'm', value_name = "FILE")]
    pub(crate) model: Option<String>,

    /// W_M: bytes the computation streams per step (e.g. 1GiB, 512M, 1048576), in binary units: 64MiB, 64M and 64MB all mean 64 x 2^20 bytes;
    /// bandwidths are decimal, MB/s = 10^6 bytes/s.
    #[arg(long, value_name = "WM")]
    pub(crate) comp_bytes: ByteSize,

    /// W_N: bytes received per step (e.g. 64MiB), in binary units: 64MiB, 64M and 64MB all mean 64 x 2^20 bytes.
    #[arg(long, value_name = "WN")]
    pub(crate) comm_bytes: ByteSize,

    /// Computing-core counts to consider: `A..B` (inclusive), `N`, or `1,2,4,8`. Default: 1
    /// to the model's cores_per_socket.
    #[arg(long, short = 'n', value_name = "A..B")]
    pub(crate) ncores: Option<CoreList>,

    /// How many of the fastest configurations the table lists (JSON lists all).
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub(crate) top: usize,

    /// Output format: a table for people, JSON for scripts.
    #[arg(long, short = 'f', value_enum, default_value_t = TableOrJson::Table)]
    pub(crate) format: TableOrJson,

    /// Write the output to FILE (atomically) instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,
}

/// `--penalties`: a built-in model or a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PenaltiesArg {
    InfiniBand,
    Fair,
    File(PathBuf),
}

impl FromStr for PenaltiesArg {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "" => Err("give `infiniband`, `fair` or a penalty file".into()),
            "infiniband" => Ok(PenaltiesArg::InfiniBand),
            "fair" => Ok(PenaltiesArg::Fair),
            path => Ok(PenaltiesArg::File(PathBuf::from(path))),
        }
    }
}

const SENSITIVITY_ABOUT: &str = "\
How much a command suffers when its memory bandwidth shrinks (Foyer and Goglin, \"Using \
Bandwidth Throttling to Quantify Application Sensitivity to Heterogeneous Memory\", MCHPC'21).

The command runs --repeat times at each level of available bandwidth; its figure of merit (FOM) \
is read from its standard output (the last number it prints, or the first number after \
--fom-after TEXT) and the median is kept. The report gives the curve and, as in the paper's \
Table I, the highest level at which the FOM is below 90%, 75% and 50% of its best (interpolated \
linearly to the next level up as well), or `not reached`. Higher thresholds mean a more \
bandwidth-sensitive code.

Backends:
  resctrl  throttles with a Linux resctrl group (root; Intel RDT MBA in percent, AMD PQoS on its \
           1..2048 scale, read from the root schemata). The group is removed afterwards, also \
           after an error or Ctrl-C.
  bandit   for machines without resctrl: store threads on the cores the command does not use \
           steal bandwidth at increasing loads, and the level is the measured share of the \
           peak store bandwidth left. Stealing is not throttling: it also raises memory \
           latency, so latency-bound codes look more sensitive than under resctrl.";

const SENSITIVITY_EXAMPLES: &str = "\
Examples:
  Calibrate on this machine without root, the two ends of the paper's Table I:
    contention sensitivity --backend bandit --builtin triad
    contention sensitivity --backend bandit --builtin pointer-chase
  STREAM under resctrl throttling (as root), its triad rate as the FOM, with a plot:
    contention sensitivity --levels 10,20,30,40,50,60,70,80,90,100 --fom-after Triad: \\
        --plot stream.svg -- ./stream_c.exe
  A run time as the FOM, JSON for a script:
    contention sensitivity --lower-is-better --format json -- ./app --input big.dat";

#[derive(Debug, Args)]
pub struct SensitivityArgs {
    /// The command to measure and its arguments, after `--`.
    #[arg(last = true, value_name = "CMD", required_unless_present = "builtin")]
    pub(crate) command: Vec<String>,

    /// Run a built-in kernel instead of a command, to calibrate the method.
    #[arg(long, value_enum, conflicts_with = "command")]
    pub(crate) builtin: Option<Builtin>,

    /// Bytes the built-in kernel works on, in binary units: 64MiB, 64M and 64MB all mean 64 x 2^20 bytes; make it much
    /// larger than the last-level cache.
    #[arg(long, value_name = "SIZE", default_value = "256MiB")]
    pub(crate) size: ByteSize,

    /// How bandwidth is taken away.
    #[arg(long, value_enum, default_value_t = SensitivityBackend::Resctrl)]
    pub(crate) backend: SensitivityBackend,

    /// resctrl levels (percent on Intel, the vendor's scale on AMD), comma-separated.
    #[arg(
        long,
        value_name = "L,L,...",
        value_delimiter = ',',
        default_value = "10,20,30,40,50,60,70,80,90,100"
    )]
    pub(crate) levels: Vec<f64>,

    /// Where resctrl is mounted.
    #[arg(long, value_name = "DIR", default_value = "/sys/fs/resctrl")]
    pub(crate) resctrl_root: PathBuf,

    /// Bandit: loads from no thread to every bandit core, in this many steps.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub(crate) bandit_steps: u32,

    /// Bandit: bytes each store thread writes over and over, in binary units: 64MiB, 64M and 64MB all mean 64 x 2^20 bytes.
    #[arg(long, value_name = "SIZE", default_value = "512MiB")]
    pub(crate) bandit_buffer: ByteSize,

    /// PUs (OS indices, as `taskset` numbers them) the command runs on, comma-separated.
    /// Default: unpinned under resctrl; the first half of the allowed PUs under bandit, which
    /// takes the rest.
    #[arg(long, value_name = "P,P,...", value_delimiter = ',')]
    pub(crate) command_cores: Option<Vec<u32>>,

    /// Runs per level; the median FOM is kept.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub(crate) repeat: u32,

    /// The FOM is the first number after the last occurrence of TEXT in the command's output.
    #[arg(long, value_name = "TEXT", conflicts_with = "fom_regex")]
    pub(crate) fom_after: Option<String>,

    /// The FOM is the last match of this regular expression in the command's output (its
    /// first capture group if it has one), e.g. `Triad:\s+([0-9.]+)`.
    #[arg(long, value_name = "REGEX")]
    pub(crate) fom_regex: Option<String>,

    /// The FOM is a time or a cost: lower is better.
    #[arg(long)]
    pub(crate) lower_is_better: bool,

    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = Format::Table)]
    pub(crate) format: Format,

    /// Write the output to FILE (atomically) instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,

    /// Also draw the curve to FILE (`.svg` or `.png`).
    #[arg(long, value_name = "FILE")]
    pub(crate) plot: Option<PathBuf>,

    /// No progress output.
    #[arg(long, short = 'q')]
    pub(crate) quiet: bool,
}

/// How `sensitivity` takes bandwidth away.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SensitivityBackend {
    /// Linux resctrl memory bandwidth allocation (root).
    Resctrl,
    /// Store threads stealing bandwidth on the other cores.
    Bandit,
}

const COMPLETIONS_EXAMPLES: &str = "\
Examples:
  Install for every user (root):
    contention completions bash > /usr/share/bash-completion/completions/contention
    contention completions zsh > /usr/local/share/zsh/site-functions/_contention
    contention completions fish > /usr/share/fish/vendor_completions.d/contention.fish
  For this bash session only:
    source <(contention completions bash)";

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_name = "SHELL")]
    pub(crate) shell: clap_complete::Shell,
}

const MAN_EXAMPLES: &str = "\
Examples:
  Install for every user (root), then `man contention-measure`:
    contention man /usr/local/share/man/man1
  For one user without root:
    contention man ~/.local/share/man/man1";

#[derive(Debug, Args)]
pub struct ManArgs {
    /// The directory to write the pages into, created if absent; pages already there are
    /// replaced atomically.
    #[arg(value_name = "DIR")]
    pub(crate) dir: PathBuf,
}

#[cfg(test)]
mod tests {
    use super::parse_duration;
    use std::time::Duration;

    #[test]
    fn a_budget_reads_its_unit_from_the_trailing_letters_and_names_what_is_wrong() {
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("1.5m"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("1e2s"), Ok(Duration::from_secs(100)));
        assert_eq!(parse_duration("1e2"), Ok(Duration::from_secs(100)));
        // An exponent is part of the number, not a unit: too long, said as such.
        let e = parse_duration("1e30s").unwrap_err();
        assert!(e.contains("more than the 1e9"), "{e}");
        let e = parse_duration("9999999999999h").unwrap_err();
        assert!(e.contains("more than the 1e9"), "{e}");
        assert!(parse_duration("20x").unwrap_err().contains("the unit is"));
        assert!(parse_duration("0").unwrap_err().contains("positive"));
        assert!(parse_duration("-5s").unwrap_err().contains("positive"));
        // Positive but shorter than any point: refused, naming the minimum.
        for tiny in ["5e-324s", "1e-9", "0.0004", "0.5s"] {
            let e = parse_duration(tiny).unwrap_err();
            assert!(
                e.starts_with(&format!("`{tiny}` is ")) && e.contains("at least 1 s"),
                "{e}"
            );
        }
        assert_eq!(parse_duration("1s"), Ok(Duration::from_secs(1)));
    }

    /// Issue 46, N5: a host name is refused for a bidi override or another invisible
    /// format character as for a control character; letters of any script are host names.
    #[test]
    fn a_host_name_with_a_control_or_format_character_is_refused() {
        for bad in [
            "\u{202e}gnp.",
            "a\u{2066}b",
            "a\u{200f}",
            "a\u{feff}",
            "a\u{1}",
            "a\u{9b}",
        ] {
            let e = super::parse_host(bad).unwrap_err();
            assert!(e.contains("invisible format"), "{bad:?}: {e}");
        }
        for good in ["node1", "10.0.0.1", "n\u{153}ud-\u{e9}t\u{e9}"] {
            assert_eq!(super::parse_host(good).as_deref(), Ok(good));
        }
    }

    #[test]
    fn a_tolerance_out_of_range_is_named_as_written() {
        let e = super::parse_percent("1e300").unwrap_err();
        assert!(e.starts_with("`1e300` % is outside [0, 50)"), "{e}");
        assert!(super::parse_percent("nan").unwrap_err().contains("`nan` %"));
        assert_eq!(super::parse_percent("2%"), Ok(0.02));
    }
}
