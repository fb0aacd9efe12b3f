//! `contention plot`: load the model and the measurements, draw the asked figures and write
//! each file atomically (rendered in memory, then renamed into place), listing them on
//! standard error.

use crate::cli::{FigureKind, PlotArgs};
use crate::error::{Error, IoAction, Result};
use crate::io::inputs::{self, MeasurementFile};
use crate::io::{atomic, model_file, tidy_csv};
use crate::model::{Model, Placement};
use crate::plot::data::Measurements;
use crate::plot::grid::Grid;
use crate::plot::stacked::Stacked;
use crate::plot::sweep::Sweep;
use crate::plot::{self, file_stem, Figure, ImageFormat};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub fn run(args: &PlotArgs) -> Result<()> {
    let defaulted = args.model.is_none();
    let model_arg = crate::results::model_or_default(args.model.as_deref())?;
    let model_file::Loaded {
        model,
        uncertainty,
        origin,
    } = model_file::load_all(&model_arg)?;
    let (traces, dir) = sources(args, defaulted)?;
    // A file, device or FIFO where the figures' directory goes is bad input (exit 2), said
    // before the inputs are read: it failed at `create_dir_all`, after them, as an I/O
    // error (exit 1) (issue 46).
    crate::io::atomic::check_directory(&dir, &dir, true)
        .map_err(|e| Error::Input(format!("-o: {e}")))?;
    let inputs = traces
        .iter()
        .map(|p| read_input(p, &model))
        .collect::<Result<Vec<_>>>()?;
    crate::dataset::same_origin_as_model(
        &model_arg,
        origin.as_deref(),
        inputs
            .iter()
            .map(|i| (crate::error::shown_path(&i.path), i.simulated.as_deref())),
    )?;
    for input in &inputs {
        crate::report::print_notes(&input.notes);
    }
    let figures = chosen_figures(&args.figure, &inputs)?;
    let format = ImageFormat::from(args.format);
    std::fs::create_dir_all(&dir)
        .map_err(|e| Error::io(IoAction::Create("output directory"), &dir, e))?;
    let out = Output {
        dir: &dir,
        format,
        csv: args.csv,
    };
    let measured = Measurements::from_rows(inputs.iter().flat_map(|i| &i.rows));
    let machine = file_stem(&model.machine.name);

    if figures.contains(&FigureKind::Grid) {
        let quality =
            crate::plot::data::Quality::from_traces(inputs.iter().filter_map(|i| i.trace.as_ref()));
        let mut grid = Grid::new(&model, &model_arg, &measured)?.with_quality(quality);
        if let Some(u) = &uncertainty {
            grid = grid.with_intervals(&model, u);
        }
        let name = format!("{machine}-grid");
        out.figure(&name, &grid)?;
        // Tidy CSV travels without the model: it keeps the mark of a simulated machine (the
        // measurements are of the model's origin, checked above).
        let simulated = origin.as_deref();
        out.csv(
            &format!("{name}-model"),
            &tidy_csv::marked(&grid.model_rows(), simulated),
        )?;
        if grid.has_measurements() {
            out.csv(
                &format!("{name}-measured"),
                &tidy_csv::marked(&grid.measured_rows(), simulated),
            )?;
        }
    }
    if figures.contains(&FigureKind::Stacked) {
        let source = (&model, model_arg.as_str());
        draw_stacked(&out, source, &measured, uncertainty.as_ref(), &machine)?;
    }
    if figures.contains(&FigureKind::Sweep) {
        draw_sweeps(&out, &inputs)?;
    }
    Ok(())
}

/// The measurement files and the output directory: those named, or with no model named this
/// host's own results and their `figures` directory (as `calibrate` reads them).
fn sources(args: &PlotArgs, defaulted: bool) -> Result<(Vec<PathBuf>, PathBuf)> {
    // With no model named, draw this host's own results, as `calibrate` did.
    let traces = match (defaulted, args.traces.is_empty()) {
        (true, true) => crate::results::default_traces()?,
        (false, true) => Vec::new(),
        // A directory stands for the traces in it, as for calibrate.
        (_, false) => crate::results::inputs_or_default(&args.traces)?,
    };
    let dir = match &args.output {
        Some(d) => d.clone(),
        None if defaulted => crate::results::host_dir(&crate::results::this_host()).join("figures"),
        None => PathBuf::from("."),
    };
    Ok((traces, dir))
}

/// One stacked figure per side of the model, with its intervals where it has them.
fn draw_stacked(
    out: &Output<'_>,
    (model, model_arg): (&Model, &str),
    measured: &Measurements,
    uncertainty: Option<&crate::model::Uncertainty>,
    machine: &str,
) -> Result<()> {
    for mut stacked in Stacked::all(model, model_arg, measured) {
        if let Some(u) = uncertainty {
            stacked = stacked.with_intervals(u);
        }
        let name = format!("{machine}-stacked-{}", stacked.side_name());
        out.figure(&name, &stacked)?;
        out.csv(&name, &stacked.csv())?;
    }
    Ok(())
}

/// One sweep figure per trace among the inputs (tidy CSV holds no samples).
fn draw_sweeps(out: &Output<'_>, inputs: &[MeasurementFile]) -> Result<()> {
    for (input, stem) in inputs.iter().zip(sweep_stems(inputs)) {
        if let (Some(trace), Some(stem)) = (&input.trace, stem) {
            let sweep = Sweep::new(trace, &display_name(&input.path));
            let name = format!("{stem}-sweep");
            out.figure(&name, &sweep)?;
            out.csv(&name, &sweep.csv())?;
        }
    }
    Ok(())
}

/// The figures to draw: those asked for, or all the inputs allow. Asking for sweeps without a
/// trace JSON file is refused, since it would silently draw nothing.
fn chosen_figures(asked: &[FigureKind], inputs: &[MeasurementFile]) -> Result<Vec<FigureKind>> {
    let has_trace = inputs.iter().any(|i| i.trace.is_some());
    if asked.is_empty() {
        let mut all = vec![FigureKind::Grid, FigureKind::Stacked];
        if has_trace {
            all.push(FigureKind::Sweep);
        }
        return Ok(all);
    }
    if asked.contains(&FigureKind::Sweep) && !has_trace {
        return Err(Error::Input(
            "--figure sweep draws the samples of a trace, but no trace JSON file was given; \
             pass one written by `contention measure` (tidy CSV files hold no samples)"
                .into(),
        ));
    }
    Ok(asked.to_vec())
}

/// Reads a measurement file ([`inputs::load`]) and checks that it has a point to draw and that
/// its placements and core counts fit the model's machine.
pub(crate) fn read_input(path: &Path, model: &Model) -> Result<MeasurementFile> {
    let file = inputs::load(path)?;
    let (rows, source) = (&file.rows, path.display());
    if rows.is_empty() {
        return Err(Error::Input(format!(
            "{source}: no measured core count to plot; was the measurement stopped before \
             its first point?"
        )));
    }
    // Each placement's fewest and most computing cores.
    let mut span: BTreeMap<(u32, u32), (u32, u32)> = BTreeMap::new();
    for r in rows {
        let (lo, hi) = span
            .entry((r.comp_numa, r.comm_numa))
            .or_insert((r.cores, r.cores));
        (*lo, *hi) = ((*lo).min(r.cores), (*hi).max(r.cores));
    }
    let per_socket = model.machine.cores_per_socket;
    for (&(comp_numa, comm_numa), &(fewest, cores)) in &span {
        let p = Placement {
            comp_numa,
            comm_numa,
        };
        // A point no socket of the model's machine can have (an edited trace, another
        // machine's): said of the file, not with `predict`'s `--ncores` as the fix (a point
        // at 0 cores was drawn, one beyond the socket refused with that hint).
        if let Some(n) = [fewest, cores]
            .into_iter()
            .find(|&n| n == 0 || n > per_socket)
        {
            return Err(Error::Input(format!(
                "{source}: placement {p} (comp,comm) has a point at {n} computing cores, and \
                 model `{}` covers 1..{per_socket} (the cores of one socket). Was it measured \
                 on another machine, or edited? Plot it with that machine's model.",
                model.machine.name
            )));
        }
        Grid::check_measured(model, p, cores).map_err(|e| {
            Error::Input(format!(
                "{source}: placement {p} (comp,comm) does not fit model `{}`: {e}. Was it \
                 measured on another machine? Plot it with that machine's model.",
                model.machine.name
            ))
        })?;
    }
    Ok(file)
}

/// The file name of a trace as the user will recognise it in a title.
fn display_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// File stems for the sweeps of trace inputs (`None` for CSV inputs): the trace's file stem,
/// numbered by its position on the command line when two traces share one.
fn sweep_stems(inputs: &[MeasurementFile]) -> Vec<Option<String>> {
    let stem = |i: &MeasurementFile| {
        file_stem(
            &i.path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
        )
    };
    let traces: Vec<String> = inputs
        .iter()
        .filter(|i| i.trace.is_some())
        .map(stem)
        .collect();
    inputs
        .iter()
        .enumerate()
        .map(|(n, i)| {
            i.trace.as_ref().map(|_| {
                let s = stem(i);
                if traces.iter().filter(|t| **t == s).count() > 1 {
                    format!("{s}-{}", n + 1)
                } else {
                    s
                }
            })
        })
        .collect()
}

/// Where and how figures are written.
struct Output<'a> {
    dir: &'a Path,
    format: ImageFormat,
    csv: bool,
}

impl Output<'_> {
    fn figure(&self, name: &str, figure: &impl Figure) -> Result<()> {
        let path = self.dir.join(format!("{name}.{}", self.format.extension()));
        let bytes = plot::render(figure, self.format).map_err(|err| Error::Render {
            path: Some(path.clone()),
            err: Box::new(err),
        })?;
        self.write(&path, &bytes)
    }

    fn csv(&self, name: &str, text: &str) -> Result<()> {
        if self.csv {
            self.write(&self.dir.join(format!("{name}.csv")), text.as_bytes())?;
        }
        Ok(())
    }

    fn write(&self, path: &Path, bytes: &[u8]) -> Result<()> {
        atomic::write(path, bytes)?;
        eprintln!("wrote {}", crate::error::shown_path(path));
        Ok(())
    }
}
