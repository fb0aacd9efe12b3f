//! `contention survey`: see `crate::survey`. Turns the arguments into `SurveyOptions`
//! (with `measure`'s own checks), runs the survey, then builds the fleet report
//! ([`crate::fleet`]) over the manifest's nodes and writes it like every other report.

use crate::cli::{MeasureArgs, SurveyArgs};
use crate::error::Result;
use crate::fleet::{self, FleetOptions, NodeOutcome, NodeStatus};
use crate::plot::ImageFormat;
use crate::report;
use crate::survey::error::SurveyError;
use crate::survey::manifest::{self, Manifest};
use crate::survey::simulated::{self, SimulatedFleet};
use crate::survey::SurveyOptions;
use std::path::{Path, PathBuf};

/// How the fleet report goes out: the report's format and file, the figure's directory and
/// format, and the band's width.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ReportOptions {
    pub format: report::Format,
    /// `-o FILE`; `None`: standard output.
    pub output: Option<PathBuf>,
    /// `--figure DIR`; `None`: the results directory.
    pub figure: Option<PathBuf>,
    pub figure_format: ImageFormat,
    /// `--outlier-k`: the band's width in robust standard deviations (`[0.1, 100]`:
    /// [`fleet::valid_k`]).
    pub outlier_k: f64,
    /// `--method`: how each node is calibrated.
    pub method: crate::calibrate::Method,
}

/// The one place a survey's arguments are checked: `measure`'s checks (the same
/// [`MeasureOptions::check`](crate::measure::options::MeasureOptions::check)), but for `--hosts`, which a survey takes in any number (the pairing
/// checks them), `-o`, which names the report's file (each node's trace goes to its results
/// directory), and `--graph`, which does not apply; and `--outlier-k` (in `[0.1, 100]`).
pub(crate) fn options(a: &SurveyArgs) -> Result<(SurveyOptions, ReportOptions)> {
    let m = &a.measure;
    m.check_engine()?;
    if m.graph.is_some() {
        return Err(SurveyError::NotForSurvey { option: "--graph" }.into());
    }
    let runs = m.runs.unwrap_or(crate::survey::AUTO_RUNS);
    if runs > 2 {
        return Err(crate::Error::Input(format!(
            "--runs {runs}: a node is measured once or twice (auto, 1 or 2)"
        )));
    }
    if !fleet::valid_k(a.outlier_k) {
        return Err(SurveyError::OutlierK {
            k: a.outlier_k,
            max: fleet::MAX_K,
        }
        .into());
    }
    if m.direction == Some(crate::cli::DirectionName::Both) {
        return Err(crate::error::Error::Input(
            "survey --direction both: a survey compares one trace per node; survey one way \
             (d2h, the default, or h2d), then the other with a second survey in another \
             results directory (CONTENTION_RESULTS)"
                .into(),
        ));
    }
    let mut measure = MeasureArgs {
        hosts: None,
        output: None,
        ..m.clone()
    }
    .measure_options();
    // `--runs` is the survey's (rounds that measure each node again), not a node's own
    // repeated launches: each node's measure is one run.
    measure.runs = 1;
    measure.check()?;
    calibratable(&measure)?;
    measure.hosts = m.hosts.clone();
    let simulated = m
        .simulate
        .as_deref()
        .map(|spec| simulated_fleet(a, spec))
        .transpose()?;
    let survey = SurveyOptions {
        measure,
        launcher: m.launcher,
        dry_run: m.dry_run,
        topology: m.topology.clone(),
        quiet: m.quiet,
        runs,
        simulated,
    };
    let report = ReportOptions {
        format: a.format.into(),
        output: m.output.clone(),
        figure: a.figure.clone(),
        figure_format: a.figure_format.into(),
        outlier_k: a.outlier_k,
        method: a.method.into(),
    };
    Ok((survey, report))
}

/// Refuses what no node's calibration could use, before anything runs (it drew or measured
/// every node, then failed every calibration, exit 1; on a cluster, after spending the
/// allocation): a placement other than `0,0`, the local one the report's parameters are
/// calibrated on, and one core count (the parameters are read off a curve), for a real
/// survey as for a simulated one.
fn calibratable(m: &crate::measure::options::MeasureOptions) -> Result<()> {
    if let Some(list) = m.cores.as_ref().filter(|l| l.counts().len() < 2) {
        return Err(crate::Error::Input(format!(
            "--cores {}: a survey calibrates each node from its curve over the core counts, \
             and one core count gives no curve; give two or more (e.g. --cores 1..4), or \
             leave --cores out for every core count",
            crate::error::clip(&list.to_string())
        )));
    }
    if (m.comp_numa, m.comm_numa) != (0, 0) {
        return Err(crate::Error::Input(format!(
            "--numa {},{}: a survey calibrates each node's local parameters, measured at \
             placement 0,0; leave --numa out (or give --numa 0,0), and compare other \
             placements with `contention measure` on one node",
            m.comp_numa, m.comm_numa
        )));
    }
    Ok(())
}

/// The simulated fleet `--simulate SPEC` asks for: at least two nodes (a sender needs
/// another), the slow ones among them. Its nodes measure every core count: an adaptive
/// sweep is refused rather than silently ignored (the plan said "no --adaptive").
fn simulated_fleet(a: &SurveyArgs, spec: &str) -> Result<SimulatedFleet> {
    if a.measure.engine != crate::cli::EngineName::Mpi {
        return Err(crate::measure::simulation::not_simulated(
            spec,
            "--engine gpu",
            "a simulated node's communications are drawn from its model, not copied by a GPU",
        ));
    }
    if a.measure.adaptive {
        return Err(crate::Error::Input(
            "--adaptive with --simulate: a simulated fleet's nodes measure every core count; \
             drop --adaptive (or give --cores to sweep fewer)"
                .into(),
        ));
    }
    // Drawn whole by one command, a simulated survey leaves nothing to continue: `--resume`
    // drew a new fleet where none was, and over a saved one was refused with "pass
    // --resume" (issue 46).
    if a.measure.resume {
        return Err(crate::Error::Input(
            "--resume with --simulate: a simulated survey is drawn whole by one command, so \
             none is left to continue; report the saved one with --report-only, or draw it \
             again with --force (the same --seed draws the same fleet)"
                .into(),
        ));
    }
    if a.nodes > simulated::MAX_NODES {
        return Err(crate::Error::Input(format!(
            "--nodes {}: a simulated fleet has at most {} nodes (10,000 take about a minute \
             and 214 MB); give fewer",
            a.nodes,
            simulated::MAX_NODES
        )));
    }
    if a.nodes < 2 {
        return Err(crate::Error::Input(format!(
            "--nodes {}: a survey needs at least 2 nodes (each node's sender is another), \
             e.g. --nodes 16",
            a.nodes
        )));
    }
    let names = simulated::node_names(a.nodes);
    let slow_spec = a.slow.clone().unwrap_or_default();
    Ok(SimulatedFleet {
        machine: crate::simulate::Truth::parse(spec)?,
        nodes: a.nodes,
        slow: crate::simulate::fleet::parse_slow(&slow_spec, &names)?,
        slow_spec,
        seed: a.measure.seed,
        runs: a.measure.runs.unwrap_or(crate::survey::AUTO_RUNS),
        run_noise: crate::simulate::RunNoise::REAL_16_CORE,
    })
}

pub fn run(args: &SurveyArgs) -> Result<()> {
    let (survey, out) = options(args)?;
    let root = match &survey.simulated {
        Some(_) => crate::results::root().join(crate::results::SIMULATED_SURVEY),
        None => crate::results::root(),
    };
    // `--runs auto`'s choice after the first runs, the same for a real fleet and a simulated
    // one: the first runs' report with a narrower band, its suspects and a sample.
    let choose = |root: &Path, m: &Manifest| -> Result<Vec<String>> {
        let screen = FleetOptions {
            k: out.outlier_k * fleet::second::SCREEN_K,
            ..fleet_options(m, &out)
        };
        let first = fleet::report(root, &outcomes(m), &screen)?;
        Ok(fleet::second::choose(&first, survey.measure.seed))
    };
    // The report's outputs are checked before any round, not after every node is measured
    // (the ranks of a real survey's job write no report).
    if !crate::mpi::driver::in_job() {
        outputs_usable(&root, &out)?;
    }
    let path = if args.report_only {
        Manifest::path(&root)
    } else if let Some(f) = &survey.simulated {
        match simulated::run(f, &survey.measure, (survey.dry_run, survey.quiet), &choose)? {
            Some(path) => path,
            None => return Ok(()),
        }
    } else {
        match crate::survey::job::run(&survey, &choose)? {
            Some(path) => path,
            // A rank of the job, or a dry run: no report.
            None => return Ok(()),
        }
    };
    let m = if args.report_only {
        Manifest::read_for(&path, "--report-only")?
    } else {
        Manifest::read(&path)?
    };
    let reported = fleet_report(&m, &path, &out, survey.quiet);
    if !survey.quiet {
        eprintln!("{}", summary(&m, reported.as_ref().ok()));
    }
    match (crate::survey::job::failure(&m), reported) {
        (None, Ok(r)) => not_calibrated(&r).map_or(Ok(()), |e| Err(e.into())),
        (None, Err(e)) => Err(e),
        // Lost nodes decide the exit status; a report that could not be made is said first.
        (Some(lost), reported) => {
            if let Err(e) = reported {
                eprintln!(
                    "survey: no fleet report: {}",
                    crate::error::escape(&e.to_string())
                );
            }
            Err(lost.into())
        }
    }
}

/// The survey's last line: how many nodes were measured, calibrated and reported, so that a
/// survey that compared less than it measured says so in one place.
fn summary(m: &Manifest, report: Option<&fleet::FleetReport>) -> String {
    let measured = m
        .nodes
        .iter()
        .filter(|n| n.status == manifest::Status::Done)
        .count();
    let calibrated = report.map_or(0, |r| r.nodes.iter().filter(|n| n.calibrated).count());
    let reported = report.map_or(0, |r| r.nodes.len());
    format!(
        "survey: {measured} of {} node(s) measured, {calibrated} calibrated, {reported} \
         reported{}",
        m.nodes.len(),
        if report.is_none() {
            " (no fleet report)"
        } else {
            ""
        }
    )
}

/// The error of a survey whose measured nodes were not all calibrated (exit 1), `None` when
/// every measured node has a model.
fn not_calibrated(r: &fleet::FleetReport) -> Option<SurveyError> {
    let done = r.nodes.iter().filter(|n| n.status == NodeStatus::Done);
    let uncalibrated: Vec<(String, String)> = done
        .clone()
        .filter(|n| !n.calibrated)
        .map(|n| {
            let why = n.error.clone().unwrap_or_else(|| "no model".into());
            (n.host.clone(), why)
        })
        .collect();
    (!uncalibrated.is_empty()).then(|| SurveyError::NotCalibrated {
        measured: done.count(),
        uncalibrated,
    })
}

/// What the fleet report takes from the manifest: each node by the host name it reported
/// (where its traces are) and the name it was given, its status and why it failed.
pub fn outcomes(m: &Manifest) -> Vec<NodeOutcome> {
    m.nodes
        .iter()
        .map(|n| NodeOutcome {
            host: n.results_name().to_string(),
            given: (n.results_name() != n.host).then(|| n.host.clone()),
            status: match n.status {
                manifest::Status::Done => NodeStatus::Done,
                manifest::Status::Failed => NodeStatus::Failed,
                manifest::Status::Pending => NodeStatus::Pending,
            },
            detail: n.error.clone(),
        })
        .collect()
}

/// Refuses, before any round (issue 46, F8 and N8: they were found bad after every node was
/// measured), report outputs that cannot be made, creating nothing: `-o` that exists and is
/// not a regular file (a directory, `/dev/null`, a FIFO) or whose directory is missing, not
/// a directory or not writable ([`crate::io::atomic::check_writable`]), and a figure
/// directory (`--figure DIR`, else the results directory `root`) that is not a directory or
/// whose nearest existing ancestor is not one, or that holds a `fleet.svg` (`.png`) that is
/// not a file, and `-o` naming the survey's manifest, its figure or a file below the results
/// directory, where the nodes' files are. Bad input (exit 2), naming the path and the option.
fn outputs_usable(root: &Path, out: &ReportOptions) -> Result<()> {
    use crate::io::atomic;
    atomic::check_option("-o", out.output.as_deref())?;
    let (dir, option) = match out.figure.as_deref() {
        Some(d) => (d, "--figure".to_string()),
        None => (
            root,
            format!(
                "the results directory (${}, where the figure goes without --figure)",
                crate::results::ROOT_ENV
            ),
        ),
    };
    let figure = dir.join(format!("fleet.{}", out.figure_format.extension()));
    // The survey's own files: a report written over the manifest lost the survey (its
    // `--resume` and `--report-only` refused it after), exit 0 (issue 46).
    let own = [
        (Manifest::path(root), "manifest"),
        (figure.clone(), "fleet figure"),
    ];
    if let Some(o) = out.output.as_deref() {
        if let Some((path, what)) = own.iter().find(|(p, _)| atomic::same_place(o, p)) {
            return Err(crate::Error::Input(format!(
                "-o {}: it is the survey's {what} `{}`, which the report would replace; name \
                 a file elsewhere (or `-` for standard output)",
                crate::error::shown_path(o),
                crate::error::shown_path(path)
            )));
        }
        // Below the results directory are the nodes' own files (`HOST/model.json`,
        // `HOST/run2/...`): a report there replaced one of them.
        let root_dir = std::fs::canonicalize(root).ok();
        if let (Some(d), Some(r)) = (atomic::canonical_directory(o), root_dir) {
            if d != r && d.starts_with(&r) {
                return Err(crate::Error::Input(format!(
                    "-o {}: it is inside the survey's results directory `{}`, among its \
                     nodes' files, which the report would replace; name a file elsewhere \
                     (or `-` for standard output)",
                    crate::error::shown_path(o),
                    crate::error::shown_path(root)
                )));
            }
        }
    }
    atomic::check_directory(dir, dir, true)
        .and_then(|()| atomic::check_target(&figure))
        .map_err(|e| crate::Error::Input(format!("{option}: {e}")))
}

/// Refuses, before any node's model is written, outputs that cannot be made: the figure's
/// directory `dir` (created here) and the figure and `-o` files when they are not regular
/// files. A report that failed on them used to leave every `model.json` rewritten.
fn check_outputs(dir: &Path, out: &ReportOptions) -> Result<()> {
    let figure = dir.join(format!("fleet.{}", out.figure_format.extension()));
    crate::results::ensure_parent(&figure)?;
    crate::io::atomic::check_target(&figure)?;
    if let Some(o) = &out.output {
        crate::io::atomic::check_target(o)?;
    }
    Ok(())
}

/// Calibrates every measured node of the survey in `path`'s directory, writes the figure and
/// emits the report, which it returns.
/// The fleet report's options for the survey of `m`.
fn fleet_options(m: &Manifest, out: &ReportOptions) -> FleetOptions {
    let defaults = FleetOptions::default();
    FleetOptions {
        k: out.outlier_k,
        simulated: m.simulated.clone(),
        calibration: crate::calibrate::Options {
            method: out.method,
            ..defaults.calibration.clone()
        },
        ..defaults
    }
}

fn fleet_report(
    m: &Manifest,
    path: &Path,
    out: &ReportOptions,
    quiet: bool,
) -> Result<fleet::FleetReport> {
    let root = path.parent().unwrap_or(Path::new("."));
    let opts = fleet_options(m, out);
    let dir = out.figure.as_deref().unwrap_or(root);
    check_outputs(dir, out)?;
    let r = fleet::report(root, &outcomes(m), &opts)?;
    let figure = crate::plot::fleet::write_figure(&r, dir, out.figure_format)?;
    if !quiet {
        eprintln!(
            "survey: fleet figure written to {}",
            crate::error::shown_path(&figure)
        );
    }
    report::emit(&r, out.format, out.output.as_deref())?;
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn args(extra: &[&str]) -> SurveyArgs {
        let cli =
            crate::cli::Cli::try_parse_from(["contention", "survey"].iter().chain(extra)).unwrap();
        let crate::cli::Command::Survey(a) = cli.command else {
            unreachable!()
        };
        a
    }

    /// Issue 46, item 7: one core count, or a placement other than 0,0, drew (or measured)
    /// every node and failed every calibration, exit 1: refused before anything runs, for a
    /// real survey as for a simulated one.
    #[test]
    fn what_no_calibration_can_use_is_refused_before_the_survey() {
        for (extra, says) in [
            (&["--cores", "1"][..], "--cores 1: a survey"),
            (&["--cores", "3,3"][..], "--cores 3: a survey"),
            (&["--numa", "1,1"][..], "--numa 1,1: a survey"),
            (&["--numa", "0,1"][..], "--numa 0,1: a survey"),
        ] {
            let real: &[&str] = &["--hosts", "a,b"];
            for sim in [
                &["--simulate", "paper:henri", "--nodes", "2"][..],
                &[],
                real,
            ] {
                let all: Vec<&str> = sim.iter().chain(extra).copied().collect();
                let e = options(&args(&all)).unwrap_err();
                assert_eq!(e.exit_code(), 2, "{all:?}: {e}");
                assert!(e.to_string().starts_with(says), "{all:?}: {e}");
            }
        }
        assert!(options(&args(&["--cores", "1,4"])).is_ok());
        assert!(options(&args(&["--hosts", "a,b", "--cores", "1..2"])).is_ok());
    }

    /// `--nodes 99999999999` asked for 2.4 TB and aborted (exit 134).
    #[test]
    fn a_simulated_fleet_of_absurd_size_is_refused_naming_the_count() {
        let Err(e) = options(&args(&[
            "--simulate",
            "paper:henri",
            "--nodes",
            "99999999999",
        ])) else {
            panic!("99999999999 nodes accepted");
        };
        assert!(
            e.to_string()
                .starts_with("--nodes 99999999999: a simulated fleet has at most 100000"),
            "{e}"
        );
        assert!(options(&args(&["--simulate", "paper:henri", "--nodes", "100000"])).is_ok());
    }

    #[test]
    fn a_survey_measures_each_node_once_or_twice_in_its_rounds_never_in_one_launch() {
        for given in [&["--hosts", "a,b"][..], &["--simulate", "paper:henri"]] {
            let words = [&["contention", "survey"][..], given, &["--runs", "3"]].concat();
            let Err(e) = crate::cli::Cli::try_parse_from(words) else {
                panic!("--runs 3 accepted by a survey {given:?}");
            };
            assert!(e.to_string().contains("`auto` (once,"), "{e}");
            let (s, _) = options(&args(given)).unwrap();
            assert_eq!(
                (s.measure.runs, s.runs),
                (1, crate::survey::AUTO_RUNS),
                "{given:?}"
            );
            // A node's own measure is one run whatever the survey's rounds.
            let (s, _) = options(&args(&[given, &["--runs", "2"]].concat())).unwrap();
            assert_eq!((s.measure.runs, s.runs), (1, 2), "{given:?}");
        }
        let (s, _) = options(&args(&["--simulate", "paper:henri", "--runs", "2"])).unwrap();
        assert_eq!(s.simulated.unwrap().runs, 2);
    }

    #[test]
    fn every_flag_a_survey_compares_is_a_flag_of_measure() {
        use clap::CommandFactory;
        let cli = crate::cli::Cli::command();
        let measure = cli.find_subcommand("measure").unwrap();
        let longs: Vec<String> = measure
            .get_arguments()
            .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
            .collect();
        let (s, _) = options(&args(&["--hosts", "a,b", "--max-phase", "0.2"])).unwrap();
        let flags = s.measure.measured_flags();
        assert_eq!(flags["--max-phase"], "0.2");
        for flag in flags.keys() {
            assert!(
                longs.contains(flag),
                "{flag} is no flag of measure: {longs:?}"
            );
        }
    }

    #[test]
    fn hosts_any_number_and_o_names_the_report() {
        let (s, r) = options(&args(&["--hosts", "a,b,c,d,e", "-o", "fleet.json"])).unwrap();
        assert_eq!(s.measure.hosts.as_ref().unwrap().len(), 5);
        assert_eq!(s.measure.output, None);
        assert_eq!(r.output, Some(PathBuf::from("fleet.json")));
        assert_eq!((r.outlier_k, r.format), (3.0, report::Format::Table));
        assert_eq!(r.figure_format, ImageFormat::Svg);
    }

    #[test]
    fn adaptive_reaches_every_node_and_the_manifest() {
        let (s, _) = options(&args(&[
            "--adaptive",
            "--precision",
            "2",
            "--budget",
            "20m",
        ]))
        .unwrap();
        let a = s
            .measure
            .adaptive
            .expect("--adaptive reaches each node's measurement");
        assert_eq!(a.precision, 0.02);
        assert_eq!(a.budget, Some(std::time::Duration::from_secs(1200)));
        let saved = s.measure.measured_flags();
        assert_eq!(saved["--adaptive"], "--precision 2 --budget 1200s");
        // A full sweep's manifest (or an older one, without the key) differs from it.
        let (full, _) = options(&args(&[])).unwrap();
        let before = full.measure.measured_flags();
        assert_eq!(before["--adaptive"], "(default)");
        let d = crate::survey::manifest::differences(&before, &saved);
        assert_eq!(d.len(), 1, "{d:?}");
        // What measure refuses, a survey refuses too.
        let e = options(&args(&["--adaptive", "--numa", "0,1"])).unwrap_err();
        assert!(e.to_string().contains("both data on one node"), "{e}");
    }

    #[test]
    fn outlier_k_must_be_in_its_range_naming_the_value() {
        // 1e30 aborted the report (the figure's ticks: 34 GB), 1e25 drew a 62 MB figure.
        for k in [
            "0", "-2", "NaN", "inf", "1e30", "1e25", "101", "5e-324", "0.05",
        ] {
            let e = options(&args(&[&format!("--outlier-k={k}")])).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{k}: {e}");
            let msg = e.to_string();
            assert!(msg.contains(&format!("--outlier-k {k}")), "{msg}");
            assert!(msg.contains("[0.1, 100]"), "{msg}");
        }
        for k in [2.5, 100.0] {
            let (_, r) = options(&args(&["--outlier-k", &k.to_string()])).unwrap();
            assert_eq!(r.outlier_k, k);
        }
    }

    #[test]
    fn a_survey_that_calibrated_fewer_nodes_than_it_measured_fails_and_says_how_many() {
        let mut m = crate::survey::plan::new_manifest(
            &["a".into(), "b".into(), "c".into()],
            Default::default(),
        );
        for n in m.nodes.iter_mut() {
            n.status = manifest::Status::Done;
        }
        let mut lost = crate::fleet::testing::node("b", |_| {});
        lost.calibrated = false;
        lost.model = None;
        lost.error = Some("no traces in ROOT/b".into());
        let nodes = vec![
            crate::fleet::testing::node("a", |_| {}),
            lost,
            crate::fleet::testing::node("c", |_| {}),
        ];
        let r = fleet::build(Path::new("r"), nodes, &FleetOptions::default());
        assert_eq!(
            summary(&m, Some(&r)),
            "survey: 3 of 3 node(s) measured, 2 calibrated, 3 reported"
        );
        let e = not_calibrated(&r).unwrap();
        assert_eq!(e.exit_code(), 1);
        assert!(e.to_string().contains("b (no traces in ROOT/b)"), "{e}");
        assert_eq!(
            summary(&m, None),
            "survey: 3 of 3 node(s) measured, 0 calibrated, 0 reported (no fleet report)"
        );
        let all = fleet::build(
            Path::new("r"),
            vec![crate::fleet::testing::node("a", |_| {})],
            &FleetOptions::default(),
        );
        assert!(not_calibrated(&all).is_none());
        // Nothing calibrated at all is the same failure.
        let mut none = crate::fleet::testing::node("a", |_| {});
        none.calibrated = false;
        let r = fleet::build(Path::new("r"), vec![none], &FleetOptions::default());
        assert!(not_calibrated(&r).is_some());
    }

    #[test]
    fn the_manifest_statuses_map_to_the_fleet_report() {
        let mut m = crate::survey::plan::new_manifest(
            &["a".into(), "b".into(), "c".into()],
            Default::default(),
        );
        m.nodes[0].status = manifest::Status::Done;
        m.nodes[1].status = manifest::Status::Failed;
        m.nodes[1].error = Some("killed".into());
        m.nodes[0].reported_host = Some("node-a".into());
        let o = outcomes(&m);
        assert_eq!(
            (o[0].host.as_str(), o[0].given.as_deref()),
            ("node-a", Some("a")),
            "the results go by the reported name"
        );
        assert_eq!((o[1].host.as_str(), o[1].given.as_deref()), ("b", None));
        assert_eq!(
            o.iter().map(|n| n.status).collect::<Vec<_>>(),
            [NodeStatus::Done, NodeStatus::Failed, NodeStatus::Pending]
        );
        assert_eq!(o[1].detail.as_deref(), Some("killed"));
    }
}
