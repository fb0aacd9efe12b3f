//! `contention measure`: its arguments checked into the job's options; the job (the plan, the
//! launches, each rank's side, a simulated machine) is the benchmark's
//! (`crate::measure::job`).

use crate::cli::MeasureArgs;
use crate::error::Result;
use crate::measure::job::{self, JobOptions};
use crate::measure::simulation::{self, SimulateOptions};
use crate::mpi::launch;
use crate::simulate::Truth;

/// The one place `measure`'s arguments are checked (beyond what clap parses): the values
/// that cannot give a meaningful measurement are refused here, naming the option.
pub(crate) fn options(a: &MeasureArgs) -> Result<JobOptions> {
    a.check_engine()?;
    let measure = a.measure_options();
    measure.check()?;
    let simulate = match &a.simulate {
        Some(spec) => {
            let machine = Truth::parse(spec)?;
            refuse_launch_options(a, &machine.spec())?;
            Some(SimulateOptions {
                machine,
                seed: a.seed,
                noise: crate::simulate::Noise::TYPICAL,
                between: crate::simulate::RunNoise::REAL_16_CORE,
            })
        }
        None => None,
    };
    Ok(JobOptions {
        simulate,
        measure,
        launcher: a.launcher,
        dry_run: a.dry_run,
        topology: a.topology.clone(),
        quiet: a.quiet,
    })
}

/// Refuses, with `--simulate SPEC`, the options of a job on this machine that a simulated
/// one has no use for (they were silently ignored): how to launch MPI and which topology to
/// plan for. The measurement's own are refused by the simulation (`--hosts`, `--kernel`...).
fn refuse_launch_options(a: &MeasureArgs, spec: &str) -> Result<()> {
    if a.engine != crate::cli::EngineName::Mpi {
        return Err(simulation::not_simulated(
            spec,
            "--engine gpu",
            "a simulated machine's communications are drawn from its model, not copied by a GPU",
        ));
    }
    if a.launcher != launch::Launcher::Auto {
        return Err(simulation::not_simulated(
            spec,
            "--launcher",
            "no MPI job is started: every phase is drawn on a simulated clock",
        ));
    }
    if a.topology.is_some() {
        return Err(simulation::not_simulated(
            spec,
            "--topology",
            "the simulated machine's cores and NUMA nodes are its model's",
        ));
    }
    Ok(())
}

pub fn run(args: &MeasureArgs) -> Result<()> {
    job::run(&options(args)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::options::MeasureOptions;
    use clap::Parser;
    use std::path::PathBuf;

    fn args(extra: &[&str]) -> MeasureArgs {
        let cli =
            crate::cli::Cli::try_parse_from(["contention", "measure"].iter().chain(extra)).unwrap();
        let crate::cli::Command::Measure(a) = cli.command else {
            unreachable!()
        };
        a
    }

    fn refused(extra: &[&str]) -> String {
        match options(&args(extra)) {
            Err(e) if e.exit_code() == crate::error::EXIT_INPUT => {
                assert_eq!(e.exit_code(), 2);
                e.to_string()
            }
            Err(e) => panic!("not an input error: {e}"),
            Ok(o) => panic!("{extra:?} accepted as {o:?}"),
        }
    }

    #[test]
    fn the_command_line_defaults_are_the_library_defaults() {
        let o = options(&args(&[])).unwrap();
        assert_eq!(o.measure, MeasureOptions::default());
        assert_eq!(o.launcher, launch::Launcher::Auto);
        assert!(!o.dry_run && !o.quiet && o.topology.is_none());
    }

    #[test]
    fn every_argument_reaches_the_options() {
        let o = options(&args(&[
            "--numa",
            "1,2",
            "--cores",
            "1..3",
            "--comm-core",
            "5",
            "--shared-comm-core",
            "--kernel",
            "triad",
            "--pattern",
            "ring",
            "--ranks",
            "4",
            "--message-size",
            "8MiB",
            "--buffer-size",
            "32MiB",
            "--max-phase",
            "0.5",
            "--stable-within",
            "2",
            "--timeout",
            "10",
            "--hosts",
            "a,b,c,d",
            "--launcher",
            "srun",
            "-o",
            "t.json",
            "--resume",
            "--no-bind",
            "--dry-run",
            "--topology",
            "m.xml",
            "--quiet",
        ]))
        .unwrap();
        let m = &o.measure;
        assert_eq!((m.comp_numa, m.comm_numa), (1, 2));
        assert_eq!(m.cores.as_ref().unwrap().counts(), &[1, 2, 3]);
        assert_eq!(m.comm_core, Some(5));
        assert!(m.shared_comm_core && m.resume && m.no_bind && !m.force);
        assert_eq!(m.kernel, crate::kernels::ComputeKernel::Triad);
        assert_eq!(m.pattern, crate::measure::choices::CommPattern::Ring);
        assert_eq!((m.ranks, m.job_ranks()), (4, 4));
        assert_eq!(m.message_size.0, 8 << 20);
        assert_eq!(m.buffer_size.unwrap().0, 32 << 20);
        assert_eq!((m.max_phase, m.stable_within, m.timeout), (0.5, 2.0, 10.0));
        assert_eq!(m.hosts.as_ref().unwrap().join(","), "a,b,c,d");
        assert_eq!(m.output, Some(PathBuf::from("t.json")));
        assert_eq!(o.launcher, launch::Launcher::Srun);
        assert!(o.dry_run && o.quiet);
        assert_eq!(o.topology, Some(PathBuf::from("m.xml")));
    }

    #[test]
    fn from_args_names_the_bad_value() {
        assert_eq!(
            refused(&["--max-phase", "0.01"]),
            "--max-phase 0.01: must be between 0.05 and 3600"
        );
        assert_eq!(
            refused(&["--timeout", "inf"]),
            "--timeout inf: must be between 1 and 86400"
        );
        let m = refused(&["--message-size", "3GiB"]);
        assert!(
            m.starts_with("--message-size 3GiB: MPI counts are 32-bit"),
            "{m}"
        );
        let m = refused(&["--buffer-size", "64k"]);
        assert!(m.starts_with("--buffer-size 64KiB:"), "{m}");
        let m = refused(&["--pattern", "ring", "--hosts", "a,b"]);
        assert!(
            m.starts_with("--hosts a,b: give one host name per rank, 3 here"),
            "{m}"
        );
    }
}
