//! One node of a fleet: `calibrate` on its results directory, exactly as `contention
//! calibrate` does there with no file named (the same trace selection, the same fit,
//! `HOST/model.json` written beside the traces), plus what the fleet report needs of it: its
//! machine facts and its measured local sweep.

use super::facts::Facts;
use super::noise::SideNoise;
use crate::calibrate::{self, CalibratedModel, Options};
use crate::dataset::Input;
use crate::error::Result;
use crate::io::{atomic, trace_file};
use crate::trace::{TidyRow, Trace};
use std::path::{Path, PathBuf};

/// A calibrated node.
#[derive(Debug, Clone)]
pub(crate) struct NodeCalibration {
    pub(crate) calibrated: CalibratedModel,
    /// The traces used.
    pub(crate) traces: Vec<PathBuf>,
    /// Where the model goes: `dir/model.json`.
    pub(crate) model_path: PathBuf,
    pub(crate) facts: Facts,
    /// The medians of the local placement (both data on node 0), for the fleet's figure.
    pub(crate) local_measured: Vec<TidyRow>,
    /// The measurement noise of the points of each side (`local`: communication data on the
    /// computing socket; `remote`: on another), for the node's own half-widths
    /// ([`super::noise`]).
    pub(crate) local_noise: SideNoise,
    pub(crate) remote_noise: SideNoise,
}

/// Calibrates the node whose results are in `dir` and writes `dir/model.json`, as
/// `contention calibrate` there would. The options are `calibrate`'s; `simulated`: the node
/// belongs to a simulated fleet (see [`fit`]).
pub(crate) fn node(dir: &Path, opts: &Options, simulated: bool) -> Result<NodeCalibration> {
    let c = fit(dir, opts, simulated)?;
    atomic::write(
        &c.model_path,
        crate::io::output::pretty_json(&c.calibrated).as_bytes(),
    )?;
    Ok(c)
}

/// Calibrates the node whose results are in `dir`, writing nothing (`check` of a fleet
/// compares without replacing the saved models). A real fleet's node (`simulated` false)
/// takes no simulated trace, and a simulated fleet's no real one: the two never mix.
pub(crate) fn fit(dir: &Path, opts: &Options, simulated: bool) -> Result<NodeCalibration> {
    fit_traces(dir, read(dir, simulated)?, opts)
}

/// A node's traces, read and checked for a fit: what `check` of a fleet holds against the
/// saved model's guards before fitting them.
pub(crate) struct NodeTraces {
    traces: Vec<Trace>,
    paths: Vec<PathBuf>,
    /// The traces as the fit reads them.
    pub(crate) inputs: Vec<Input>,
}

/// The traces of the node whose results are in `dir` (`calibrate`'s selection), refusing a
/// simulated one in a real fleet and a real one in a simulated fleet (`simulated`).
pub(crate) fn read(dir: &Path, simulated: bool) -> Result<NodeTraces> {
    let (_variant, paths, _others) = crate::results::traces_in(dir)?;
    let traces: Vec<Trace> = paths
        .iter()
        .map(|p| trace_file::read(p))
        .collect::<Result<_>>()?;
    // A fleet compares real nodes: a simulated trace in a node's directory (copied there, or
    // measured with --simulate into the results) must never stand for the node.
    for (t, p) in traces.iter().zip(&paths) {
        let origin = trace_file::simulated(t, &crate::error::shown_path(p))?;
        if simulated && origin.is_none() {
            return Err(crate::Error::Input(format!(
                "{}: a real trace in a simulated fleet: a simulated fleet's nodes are drawn by \
                 `survey --simulate`, never measured; move it out of {}",
                crate::error::shown_path(p),
                crate::error::shown_path(dir)
            )));
        }
        if let (false, Some(s)) = (simulated, origin) {
            return Err(crate::Error::Input(format!(
                "{}: a simulated trace ({}), not a measurement of this node: a fleet compares \
                 real nodes; move it out of {} and measure the node",
                crate::error::shown_path(p),
                crate::error::escape(&s.machine),
                crate::error::shown_path(dir)
            )));
        }
    }
    let inputs: Vec<Input> = traces
        .iter()
        .zip(&paths)
        .map(|(t, p)| Input::from_trace(t, &p.display().to_string()))
        .collect::<std::result::Result<_, _>>()?;
    Ok(NodeTraces {
        traces,
        paths,
        inputs,
    })
}

/// Calibrates the node whose results are in `dir` from its traces `t` ([`read`]), writing
/// nothing.
pub(crate) fn fit_traces(dir: &Path, t: NodeTraces, opts: &Options) -> Result<NodeCalibration> {
    let NodeTraces {
        traces,
        paths,
        inputs,
    } = t;
    // A survey measures one placement per node (`--numa`, 0,0 by default): on a node of
    // several sockets nothing then says what the `remote` side does (it is calibrated on
    // the first node of the second socket, section 4.1.2), so the fleet compares the local
    // side (`calibrate --local-only`) rather than fail every node.
    let second_socket = traces[0].machine.numa_per_socket;
    let measured_remote = traces
        .iter()
        .any(|t| (t.config.comp_numa, t.config.comm_numa) == (second_socket, second_socket));
    let local_only = Options {
        local_only: opts.local_only || !measured_remote,
        // One law for every node, so that their parameters compare: the one the transport
        // gives, not each node's own choice by held-out error.
        transport_law: true,
        ..opts.clone()
    };
    let (calibrated, _notes) = calibrate::calibrate(&inputs, &local_only)?;
    let model_path = dir.join(crate::results::MODEL_FILE);
    // Every trace of a node describes the same machine (calibrate refused otherwise); the
    // settings are those of the first trace that recorded them.
    let first = &traces[0];
    let settings = traces.iter().find_map(|t| t.settings.as_ref());
    let local_measured = traces
        .iter()
        .filter(|t| (t.config.comp_numa, t.config.comm_numa) == (0, 0))
        .flat_map(Trace::tidy_rows)
        .collect();
    let model = &calibrated.model;
    let side_points = |local: bool| {
        traces
            .iter()
            .filter(move |t| model.is_local(t.config.comm_numa) == local)
            .flat_map(|t| &t.points)
    };
    let local_noise = SideNoise::of_points(side_points(true));
    let remote_noise = SideNoise::of_points(side_points(false));
    Ok(NodeCalibration {
        local_noise,
        remote_noise,
        calibrated,
        traces: paths,
        model_path,
        facts: Facts::new(
            &first.machine,
            settings,
            first.mpi.stack.as_ref(),
            first.gpu.as_ref(),
        ),
        local_measured,
    })
}
