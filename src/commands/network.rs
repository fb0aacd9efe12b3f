//! `contention network`: load a contention graph, pick the penalty model, solve the steps
//! (section 3.2 of Martinasso and Méhaut), optionally cap each receiving node at the
//! communication bandwidth the memory contention model predicts, write the report.

use crate::cli::{NetworkArgs, PenaltiesArg, TableOrJson};
use crate::error::{Error, Result};
use crate::io::{graph_file, model_file};
use crate::model::{self, Placement};
use crate::mpi::launch;
#[cfg(feature = "mpi")]
use crate::mpi::{driver, graph_job};
use crate::network::{self, Explicit, FairShare, Graph, InfiniBand, PenaltyModel};
#[cfg(feature = "mpi")]
use crate::report::network::Measured;
use crate::report::network::{CommunicationEnd, MemoryCap, NetworkReport};
use crate::report::{self, Report};
#[cfg(feature = "mpi")]
use crate::stats;
use std::path::PathBuf;

/// `contention network`'s options, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub graph: PathBuf,
    pub penalties: PenaltiesArg,
    pub format: TableOrJson,
    /// Cap each receiving node at the memory contention model's prediction.
    pub memory: Option<MemoryRequest>,
    /// Run the graph for real under the launcher.
    pub run: bool,
    /// Timed repetitions of `run`.
    pub repeat: u32,
    pub launcher: launch::Launcher,
    /// `NODE=HOST` of each graph node for `run`.
    pub hosts: Option<Vec<String>>,
    pub output: Option<PathBuf>,
}

/// `--memory-model FILE --cores N --placement COMP,COMM`: the prediction that caps what
/// each node receives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryRequest {
    /// Model file or `paper:NAME`.
    pub model: String,
    pub cores: u32,
    pub comp_numa: u32,
    pub comm_numa: u32,
}

impl Options {
    /// The one place `network`'s arguments are checked beyond what clap parses.
    pub fn from_args(a: &NetworkArgs) -> Result<Options> {
        let memory = match (&a.memory_model, a.cores, a.placement) {
            (Some(model), Some(cores), Some(p)) => Some(MemoryRequest {
                model: model.clone(),
                cores,
                comp_numa: p.comp,
                comm_numa: p.comm,
            }),
            (None, None, None) => None,
            // clap requires the three together; a caller that did not is told which.
            _ => {
                return Err(Error::Input(
                    "--memory-model, --cores and --placement go together: give all three or \
                     none"
                        .into(),
                ))
            }
        };
        if a.repeat == 0 {
            return Err(Error::Input(
                "--repeat 0: give at least 1 timed repetition".into(),
            ));
        }
        Ok(Options {
            graph: a.graph.clone(),
            penalties: a.penalties.clone(),
            format: a.format,
            memory,
            run: a.run,
            repeat: a.repeat,
            launcher: a.launcher,
            hosts: a.hosts.clone(),
            output: a.output.clone(),
        })
    }
}

pub fn run(args: &NetworkArgs) -> Result<()> {
    run_options(&Options::from_args(args)?)
}

/// Runs `contention network` with checked options.
pub fn run_options(args: &Options) -> Result<()> {
    let graph = graph_file::load_graph(&args.graph)?;
    #[cfg(not(feature = "mpi"))]
    if args.run {
        return Err(crate::mpi::built_without_mpi("network --run", false));
    }
    #[cfg(feature = "mpi")]
    if args.run && driver::in_job() {
        return as_rank(args, &graph);
    }
    let memory_cap = match &args.memory {
        Some(m) => Some(memory_cap(&graph, m)?),
        None => None,
    };
    let fraction = memory_cap.as_ref().map(|c| c.receive_fraction);
    let report = build_report(&graph, args, memory_cap)?;
    if args.run {
        // The prediction above refused bad input before starting MPI, and the report's file
        // is checked before the job measures (issue 46, N8); the job prints it.
        crate::io::atomic::check_option("-o", args.output.as_deref())?;
        #[cfg(feature = "mpi")]
        return graph_job::launch(&graph, args.hosts.as_deref(), args.launcher);
    }
    if let Some(f) = fraction.filter(|&f| f >= 1.0) {
        report::print_notes(&[format!(
            "the memory model predicts {:.0} % of the link bandwidth or more: memory \
             contention does not slow these receivers",
            f * 100.0
        )]);
    }
    report::emit(&report, args.format.into(), args.output.as_deref())
}

#[cfg(feature = "mpi")]
/// Under the launcher: every rank runs its end of the graph (the benchmark's
/// `mpi::graph_job`); rank 0 predicts, compares and writes the report.
fn as_rank(args: &Options, graph: &Graph) -> Result<()> {
    let Some(times) = graph_job::as_rank(graph, &args.graph, args.repeat, args.hosts.as_deref())?
    else {
        return Ok(());
    };
    let memory_cap = match &args.memory {
        Some(m) => Some(memory_cap(graph, m)?),
        None => None,
    };
    let mut report = build_report(graph, args, memory_cap)?;
    report.measured = Some(
        report
            .communications
            .iter()
            .zip(times.times)
            .zip(times.hosts)
            .map(|((c, t), (src_host, dst_host))| {
                let median = stats::median(&t).unwrap_or(f64::NAN);
                Measured {
                    id: c.id.clone(),
                    src_host,
                    dst_host,
                    times: t,
                    median,
                    predicted: c.time,
                    ratio: median / c.time,
                }
            })
            .collect(),
    );
    report::emit(&report, args.format.into(), args.output.as_deref())
}

/// The receive cap from the memory contention model: `comm_parallel` (MB/s) with `cores`
/// computing cores and the data placed on `comp`, `comm`, as a fraction of the link's
/// bandwidth `1 / alpha`.
fn memory_cap(graph: &Graph, request: &MemoryRequest) -> Result<MemoryCap> {
    let MemoryRequest {
        model: spec,
        cores,
        comp_numa,
        comm_numa,
    } = request;
    let model = model_file::load(spec)?;
    let placement = Placement {
        comp_numa: *comp_numa,
        comm_numa: *comm_numa,
    };
    let prediction = model::predict(&model, &[placement], &[*cores])?;
    let comm_parallel = prediction[0].points[0].comm_parallel;
    let link = link_mbps(graph.alpha);
    Ok(MemoryCap {
        model: spec.to_string(),
        cores: *cores,
        placement: placement.to_string(),
        comm_parallel,
        receive_fraction: comm_parallel / link,
    })
}

/// MB/s (10^6 bytes per second) of a link whose `alpha` is in seconds per byte.
fn link_mbps(alpha: f64) -> f64 {
    1e-6 / alpha
}

/// The penalty model `--penalties` names, its name in the report, and a file's explicit
/// steps: a file must fit the graph exactly, no step missing (the solver says so) and none
/// left over.
type Penalties = (Box<dyn PenaltyModel>, String, Option<Explicit>);

/// The [`Penalties`] of `--penalties` (`receive_cap`: the memory cap on receives, for the
/// fair model).
fn penalty_model(args: &Options, receive_cap: Option<f64>) -> Result<Penalties> {
    Ok(match &args.penalties {
        PenaltiesArg::InfiniBand => (Box::new(InfiniBand), "infiniband".into(), None),
        PenaltiesArg::Fair => (
            Box::new(FairShare {
                receive_capacity: receive_cap.unwrap_or(1.0),
            }),
            "fair".into(),
            None,
        ),
        PenaltiesArg::File(path) => {
            let explicit = graph_file::load_penalties(path)?;
            let steps = Some(explicit.clone());
            (Box::new(explicit), path.display().to_string(), steps)
        }
    })
}

fn build_report(
    graph: &Graph,
    args: &Options,
    memory_cap: Option<MemoryCap>,
) -> Result<NetworkReport> {
    let receive_cap = memory_cap.as_ref().map(|c| c.receive_fraction);
    let (model, name, file_steps) = penalty_model(args, receive_cap)?;
    let solution = network::solve(graph, model.as_ref(), receive_cap).map_err(|e| {
        Error::Input(format!(
            "penalties `{name}` do not fit graph `{}`: {e}",
            args.graph.display()
        ))
    })?;
    if let Some(explicit) = &file_steps {
        explicit.check_all_used(solution.steps.len()).map_err(|e| {
            Error::Input(format!(
                "penalties `{name}` do not fit graph `{}`: {e}",
                args.graph.display()
            ))
        })?;
    }
    if let Some((c, end)) = graph
        .communications
        .iter()
        .zip(&solution.ends)
        .find(|(c, end)| !(end.is_finite() && **end > c.start))
    {
        return Err(Error::Input(format!(
            "graph `{}`: communication `{}` ({} bytes from {} s) gets no finite, positive \
             time (end {end} s); its bytes, start or the link's alpha are beyond what can be \
             computed",
            args.graph.display(),
            c.id,
            c.bytes,
            c.start
        )));
    }
    let communications = graph
        .communications
        .iter()
        .zip(&solution.ends)
        .map(|(c, &end)| CommunicationEnd {
            id: c.id.clone(),
            src: c.src.clone(),
            dst: c.dst.clone(),
            bytes: c.bytes,
            start: c.start,
            end,
            time: end - c.start,
        })
        .collect();
    Ok(NetworkReport {
        units: crate::units::UNITS,
        header: crate::header::Header::new(NetworkReport::SCHEMA_VERSION),
        graph: args.graph.display().to_string(),
        penalties: name,
        alpha: graph.alpha,
        link_bandwidth: link_mbps(graph.alpha),
        memory_cap,
        steps: solution.steps,
        communications,
        measured: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn args(extra: &[&str]) -> NetworkArgs {
        let cli = crate::cli::Cli::try_parse_from(
            ["contention", "network", "g.json"].iter().chain(extra),
        )
        .unwrap();
        let crate::cli::Command::Network(a) = cli.command else {
            unreachable!()
        };
        a
    }

    #[test]
    fn the_memory_model_options_become_one_request() {
        let o = Options::from_args(&args(&[
            "--memory-model",
            "paper:henri",
            "--cores",
            "16",
            "--placement",
            "0,1",
        ]))
        .unwrap();
        assert_eq!(
            o.memory,
            Some(MemoryRequest {
                model: "paper:henri".into(),
                cores: 16,
                comp_numa: 0,
                comm_numa: 1,
            })
        );
        assert!(Options::from_args(&args(&[])).unwrap().memory.is_none());
    }

    #[test]
    fn from_args_refuses_what_clap_would_and_names_it() {
        // Built by a caller rather than parsed: clap's own checks did not run.
        let mut a = args(&[]);
        a.memory_model = Some("paper:henri".into());
        let e = Options::from_args(&a).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e
            .to_string()
            .contains("--memory-model, --cores and --placement"));
        let mut a = args(&["--run"]);
        a.repeat = 0;
        let e = Options::from_args(&a).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().starts_with("--repeat 0:"), "{e}");
    }

    #[test]
    fn measure_graph_is_network_run_with_its_defaults() {
        let parsed = Options::from_args(&args(&["--run", "-o", "r.txt"])).unwrap();
        let cli = crate::cli::Cli::try_parse_from([
            "contention",
            "measure",
            "--graph",
            "g.json",
            "-o",
            "r.txt",
        ])
        .unwrap();
        let crate::cli::Command::Measure(m) = cli.command else {
            unreachable!()
        };
        let built = Options::from_args(&m.as_network_run().unwrap()).unwrap();
        assert_eq!(parsed, built);
    }
}
