//! `contention calibrate`: read the measurements, fit both sides of the model, tell the user
//! what was used and how well it fits, write the model file.

use crate::calibrate::{self, Options};
use crate::cli::{CalibrateArgs, CsvTopology};
use crate::error::Result;
use crate::io::inputs;
use crate::report;

pub fn run(args: &CalibrateArgs) -> Result<()> {
    // Before the inputs are read and fitted (issue 46, N8: `--bootstrap 2000 -o nodir/m.json`
    // fitted for 10 s, then could not write).
    crate::io::atomic::check_option("-o", args.output.as_deref())?;
    let defaulted = args.inputs.is_empty();
    let paths = crate::results::inputs_or_default(&args.inputs)?;
    crate::io::atomic::check_not_input(
        "-o",
        args.output.as_deref(),
        paths.iter().map(|p| p.as_path()),
    )?;
    let inputs = inputs::read_all(&paths)?;
    let opts = Options {
        name: args.name.clone(),
        tolerance: args.tolerance,
        local_only: args.local_only,
        method: args.method.into(),
        bootstrap: args.bootstrap,
        seed: args.seed,
        model: args.model.map(Into::into),
        ..options(&args.topology)
    };
    // The notes are also the model file's `calibration.notes`, which the report prints.
    let (calibrated, _notes) = calibrate::calibrate(&inputs, &opts)?;
    // With this host's traces, the model goes beside them, where the other commands look.
    let out = match &args.output {
        None if defaulted => Some(crate::results::model_path()),
        o => o.clone(),
    };
    report::emit_with_summary(&calibrated, out.as_deref())?;
    if let Some(path) = &out {
        eprintln!("wrote {}", crate::error::shown_path(path));
    }
    Ok(())
}

/// Calibration options with what the command line says of a CSV's machine, dated now.
pub(crate) fn options(topology: &CsvTopology) -> Options {
    Options {
        numa_per_socket: topology.numa_per_socket,
        numa_nodes: topology.numa_nodes,
        cores_per_socket: topology.cores_per_socket,
        date: crate::timestamp::now(),
        ..Options::default()
    }
}
