//! `contention sensitivity`: turn the arguments into a sweep, run it, write the report and
//! the optional figure.

use crate::cli::{SensitivityArgs, SensitivityBackend};
use crate::error::{Error, Result};
use crate::io::atomic;
use crate::plot::{self, ImageFormat};
use crate::report;
use crate::sensitivity::{self, fom, Backend, Options, Workload};

pub fn run(args: &SensitivityArgs) -> Result<()> {
    // Before the sweep (minutes of the workload), not after it (issue 46, N8).
    atomic::check_option("-o", args.output.as_deref())?;
    atomic::check_option("--plot", args.plot.as_deref())?;
    let workload = match args.builtin {
        Some(b) => Workload::Builtin {
            kind: b,
            bytes: usize::try_from(args.size.0)
                .map_err(|_| Error::Input(format!("--size {} is too large", args.size)))?,
        },
        None => Workload::Command(args.command.clone()),
    };
    let backend = match args.backend {
        SensitivityBackend::Resctrl => Backend::Resctrl {
            root: args.resctrl_root.clone(),
            levels: args.levels.clone(),
        },
        SensitivityBackend::Bandit => Backend::Bandit {
            steps: args.bandit_steps,
            buffer_bytes: usize::try_from(args.bandit_buffer.0).map_err(|_| {
                Error::Input(format!(
                    "--bandit-buffer {} is too large",
                    args.bandit_buffer
                ))
            })?,
        },
    };
    let plot_format = args.plot.as_deref().map(image_format).transpose()?;
    let opts = Options {
        workload,
        fom: match (&args.fom_after, &args.fom_regex) {
            (_, Some(re)) => fom::Rule::Regex(regex::Regex::new(re).map_err(|e| {
                Error::Input(format!(
                    "--fom-regex `{re}` is not a regular expression: {e}"
                ))
            })?),
            (Some(text), None) => fom::Rule::After(text.clone()),
            (None, None) => fom::Rule::Last,
        },
        lower_is_better: args.lower_is_better,
        repeat: args.repeat,
        command_cores: args.command_cores.clone(),
        quiet: args.quiet,
    };
    let report = sensitivity::run(&backend, &opts)?;
    report::emit(&report, args.format.into(), args.output.as_deref())?;
    if let (Some(path), Some(format)) = (&args.plot, plot_format) {
        let figure = plot::sensitivity::Curve::new(&report);
        let bytes = plot::render(&figure, format)?;
        atomic::write(path, &bytes)?;
    }
    Ok(())
}

/// The image format from the extension of `--plot`, refused before any measurement.
fn image_format(path: &std::path::Path) -> Result<ImageFormat> {
    ImageFormat::of_path(path).ok_or_else(|| {
        Error::Input(format!(
            "--plot {}: name the figure .svg or .png",
            path.display()
        ))
    })
}
