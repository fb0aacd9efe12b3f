//! The command line: argument structs only, no behaviour.
//!
//! `build.rs` compiles this file (with `cores.rs`, its only dependency in the crate) to write
//! the man page and shell completions, so it must stay free of other crate imports.

use crate::cores::CoreList;
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
Examples:
  Predict every placement on the paper's `henri` machine, 1 to 18 computing cores:
    contention predict --model paper:henri --ncores 1..18

  Only the local placement, as JSON for a script:
    contention predict --model model.json --placement 0,0 --format json -o pred.json";

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

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Predict computation and communication bandwidths from a model file, for every
    /// placement of their data on the NUMA nodes.
    #[command(long_about = PREDICT_ABOUT, after_help = PREDICT_EXAMPLES)]
    Predict(PredictArgs),

    /// Draw the paper's figures (placement grid, stacked view, sweep) from a model file and
    /// measurements, as SVG or PNG.
    #[command(long_about = PLOT_ABOUT, after_help = PLOT_EXAMPLES)]
    Plot(PlotArgs),
}

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
    #[arg(long, short = 'm', value_name = "FILE")]
    pub model: String,

    /// Computing-core counts: `A..B` (inclusive), `N`, or `1,2,4,8`. Default: 1 to the
    /// model's cores_per_socket.
    #[arg(long, short = 'n', value_name = "A..B")]
    pub ncores: Option<CoreList>,

    /// Which placement to predict: `COMP,COMM` (NUMA nodes of the computation data and of the
    /// communication data), or `all` for every ordered pair.
    #[arg(long, short = 'p', value_name = "COMP,COMM|all", default_value = "all")]
    pub placement: PlacementArg,

    /// Output format: a table for people, JSON or tidy CSV for tools.
    #[arg(long, short = 'f', value_enum, default_value_t = Format::Table)]
    pub format: Format,

    /// Write the output to FILE (atomically) instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

const PLOT_ABOUT: &str = "\
Draw the paper's figures from a model file and, optionally, measurements.

Figures (each one file in DIR, named after the machine or the trace):
  grid     Figures 3-11: one panel per placement, the communication data's NUMA node by row and
           the computation data's by column. Network bandwidth on the left axis (blue),
           computation memory bandwidth on the right (orange), against the number of computing
           cores; measured alone (circles) and in parallel (down triangles), the model as lines
           (solid: in parallel, dashed: alone). The placements that calibrated the model have a
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
aggregated by median). The kind is told from the content. All bandwidths are MB/s.

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

#[derive(Debug, Args)]
pub struct PlotArgs {
    /// Model file (JSON, from `contention calibrate` or by hand), or `paper:NAME` for one of
    /// the paper's machines.
    #[arg(long, short = 'm', value_name = "FILE")]
    pub model: String,

    /// Measurements to draw: trace JSON files (from `contention measure`) or tidy CSV files.
    #[arg(value_name = "TRACE")]
    pub traces: Vec<PathBuf>,

    /// Directory the figures are written to (created if missing).
    #[arg(long, short = 'o', value_name = "DIR", default_value = ".")]
    pub output: PathBuf,

    /// Image format.
    #[arg(long, short = 'f', value_enum, default_value_t = PlotFormat::Svg)]
    pub format: PlotFormat,

    /// Which figures to draw (comma-separated or repeated). Default: all that the inputs
    /// allow (sweeps need trace JSON files).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "FIGURE")]
    pub figure: Vec<FigureKind>,

    /// Also write the plotted series as CSV beside each figure.
    #[arg(long)]
    pub csv: bool,
}

/// The image format of `plot`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PlotFormat {
    /// Vector graphics; text stays text.
    Svg,
    /// 300 dpi bitmap.
    Png,
}

/// The figures `plot` can draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FigureKind {
    /// The placement grid (Figures 3-11).
    Grid,
    /// The stacked view with the model's key points (Figure 2).
    Stacked,
    /// One trace's samples per phase and core count.
    Sweep,
}

/// How a report is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Aligned columns, one block per placement, for a terminal.
    Table,
    /// The JSON of DESIGN.md, with machine and tool provenance.
    Json,
    /// Tidy CSV: comp_numa,comm_numa,cores,comp_alone,comm_alone,comp_parallel,comm_parallel.
    Csv,
}

/// `--placement`: every placement, or one `COMP,COMM` pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlacementArg {
    All,
    One { comp_numa: u32, comm_numa: u32 },
}

impl FromStr for PlacementArg {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.trim().eq_ignore_ascii_case("all") {
            return Ok(PlacementArg::All);
        }
        let bad = || {
            format!(
                "`{s}` is not a placement; write COMP,COMM with two NUMA node numbers \
                 (e.g. `0,0`, `0,1`) or `all`"
            )
        };
        let (c, m) = s.split_once(',').ok_or_else(bad)?;
        let comp_numa = c.trim().parse().map_err(|_| bad())?;
        let comm_numa = m.trim().parse().map_err(|_| bad())?;
        Ok(PlacementArg::One {
            comp_numa,
            comm_numa,
        })
    }
}
