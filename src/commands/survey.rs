//! `contention survey`: see `crate::survey`. Turns the arguments into `SurveyOptions`
//! (with `measure`'s own checks), runs the survey, then builds the fleet report
//! ([`crate::fleet`]) over the manifest's nodes and writes it like every other report.

use crate::cli::{MeasureArgs, PlotFormat, SurveyArgs};
use crate::commands::measure;
use crate::error::Result;
use crate::fleet::{self, FleetOptions, NodeOutcome, NodeStatus};
use crate::plot::ImageFormat;
use crate::report;
use crate::survey::error::SurveyError;
use crate::survey::manifest::{self, Manifest};
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
    /// `--outlier-k`: the band's width in robust standard deviations (> 0).
    pub outlier_k: f64,
}

/// The one place a survey's arguments are checked: `measure`'s checks (through its
/// `Options::from_args`), but for `--hosts`, which a survey takes in any number (the pairing
/// checks them), `-o`, which names the report's file (each node's trace goes to its results
/// directory), and `--graph`, which does not apply; and `--outlier-k` (> 0).
pub(crate) fn options(a: &SurveyArgs) -> Result<(SurveyOptions, ReportOptions)> {
    let m = &a.measure;
    if m.graph.is_some() {
        return Err(SurveyError::NotForSurvey { option: "--graph" }.into());
    }
    if !(a.outlier_k.is_finite() && a.outlier_k > 0.0) {
        return Err(SurveyError::OutlierK { k: a.outlier_k }.into());
    }
    let checked = measure::Options::from_args(&MeasureArgs {
        hosts: None,
        output: None,
        ..m.clone()
    })?;
    let mut measure = checked.measure;
    measure.hosts = m.hosts.clone();
    let survey = SurveyOptions {
        measure,
        launcher: checked.launcher,
        dry_run: checked.dry_run,
        topology: checked.topology,
        quiet: checked.quiet,
    };
    let report = ReportOptions {
        format: a.format.into(),
        output: m.output.clone(),
        figure: a.figure.clone(),
        figure_format: match a.figure_format {
            PlotFormat::Svg => ImageFormat::Svg,
            PlotFormat::Png => ImageFormat::Png,
        },
        outlier_k: a.outlier_k,
    };
    Ok((survey, report))
}

pub fn run(args: &SurveyArgs) -> Result<()> {
    let (survey, out) = options(args)?;
    let path = if args.report_only {
        Manifest::path(&crate::results::root())
    } else {
        match crate::survey::job::run(&survey)? {
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
    match (crate::survey::job::failure(&m), reported) {
        (None, reported) => reported,
        // Lost nodes decide the exit status; a report that could not be made is said first.
        (Some(lost), reported) => {
            if let Err(e) = reported {
                eprintln!("survey: no fleet report: {e}");
            }
            Err(lost.into())
        }
    }
}

/// What the fleet report takes from the manifest: each node's status and why it failed.
pub(crate) fn outcomes(m: &Manifest) -> Vec<NodeOutcome> {
    m.nodes
        .iter()
        .map(|n| NodeOutcome {
            host: n.host.clone(),
            status: match n.status {
                manifest::Status::Done => NodeStatus::Done,
                manifest::Status::Failed => NodeStatus::Failed,
                manifest::Status::Pending => NodeStatus::Pending,
            },
            detail: n.error.clone(),
        })
        .collect()
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
/// emits the report.
fn fleet_report(m: &Manifest, path: &Path, out: &ReportOptions, quiet: bool) -> Result<()> {
    let root = path.parent().unwrap_or(Path::new("."));
    let opts = FleetOptions {
        k: out.outlier_k,
        ..FleetOptions::default()
    };
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
    report::emit(&r, out.format, out.output.as_deref())
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
    fn outlier_k_must_be_positive_naming_the_value() {
        for k in ["0", "-2", "NaN", "inf"] {
            let e = options(&args(&[&format!("--outlier-k={k}")])).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{k}: {e}");
            assert!(
                e.to_string()
                    .contains(&format!("--outlier-k {}", k.parse::<f64>().unwrap())),
                "{e}"
            );
        }
        let (_, r) = options(&args(&["--outlier-k", "2.5"])).unwrap();
        assert_eq!(r.outlier_k, 2.5);
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
        let o = outcomes(&m);
        assert_eq!(
            o.iter().map(|n| n.status).collect::<Vec<_>>(),
            [NodeStatus::Done, NodeStatus::Failed, NodeStatus::Pending]
        );
        assert_eq!(o[1].detail.as_deref(), Some("killed"));
    }
}
