//! The report of `contention network` and its table, laid out like Figure 3 of Martinasso
//! and Méhaut: per step, each communication with its penalty, the bytes it has left and the
//! time; communications finished earlier show `-` and their end time. [`NetworkReport`] is a
//! [`Report`]: that table, and its fields as JSON.

use crate::network::Step;
use crate::report::Report;
use serde::Serialize;
use std::fmt::Write;

/// The receive cap taken from the memory contention model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemoryCap {
    /// The model file as the user named it.
    pub model: String,
    pub cores: u32,
    /// `COMP,COMM`.
    pub placement: String,
    /// Predicted communication bandwidth while the cores compute, MB/s.
    pub comm_parallel: f64,
    /// `comm_parallel` over the link bandwidth: what a node can receive, as a fraction of it.
    pub receive_fraction: f64,
}

/// One communication's predicted times (seconds).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CommunicationEnd {
    pub id: String,
    pub src: String,
    pub dst: String,
    pub bytes: f64,
    pub start: f64,
    pub end: f64,
    /// `end - start`: `T_i` of equation 1.
    pub time: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NetworkReport {
    #[serde(flatten)]
    pub header: crate::header::Header,
    /// What the numbers are in ([`crate::units::UNITS`]).
    pub units: crate::units::Units,
    /// The graph file as the user named it.
    pub graph: String,
    /// `infiniband`, `fair` or the penalty file.
    pub penalties: String,
    /// Seconds per byte of a communication alone.
    pub alpha: f64,
    /// `1 / alpha` in MB/s.
    pub link_bandwidth: f64,
    pub memory_cap: Option<MemoryCap>,
    pub steps: Vec<Step>,
    pub communications: Vec<CommunicationEnd>,
    /// With `--run`: each communication measured for real with MPI.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured: Option<Vec<Measured>>,
}

/// One communication of a `--run`: measured times (seconds, from its start to the end of
/// its receive) beside the prediction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Measured {
    pub id: String,
    /// Where its sending and receiving ranks ran (MPI processor names).
    pub src_host: String,
    pub dst_host: String,
    pub times: Vec<f64>,
    pub median: f64,
    /// `time` of [`CommunicationEnd`].
    pub predicted: f64,
    /// `median / predicted`.
    pub ratio: f64,
}

impl Report for NetworkReport {
    const SCHEMA_VERSION: u32 = 1;

    fn table(&self) -> String {
        table(self)
    }
}

/// The header, the steps, the communications and, after `--run`, the measured times.
fn table(r: &NetworkReport) -> String {
    let mut out = String::new();
    header(&mut out, r);
    steps(&mut out, r);
    communications(&mut out, r);
    if let Some(measured) = &r.measured {
        measured_times(&mut out, measured);
    }
    out
}

/// The graph, its link and penalties, and the receive cap of the memory model.
fn header(out: &mut String, r: &NetworkReport) {
    let _ = writeln!(
        out,
        "graph {}  alpha {:.4e} s/B ({:.1} MB/s)  penalties {}",
        r.graph, r.alpha, r.link_bandwidth, r.penalties
    );
    if let Some(c) = &r.memory_cap {
        let _ = writeln!(
            out,
            "receive cap {:.1} MB/s ({:.1} % of the link): model {}, {} cores, placement {}",
            c.comm_parallel,
            c.receive_fraction * 100.0,
            c.model,
            c.cores,
            c.placement
        );
    }
}

/// Each step of the solver (section 3.2): the active communications with their penalty and
/// the bytes left at the step's end, then those already finished.
fn steps(out: &mut String, r: &NetworkReport) {
    let _ = writeln!(
        out,
        "\n{:>4}  {:<12} {:>8} {:>16} {:>12}",
        "step", "com", "penalty", "remaining [B]", "time [s]"
    );
    let mut finished: Vec<(&str, f64)> = Vec::new();
    for (k, step) in r.steps.iter().enumerate() {
        for e in &step.active {
            let _ = writeln!(
                out,
                "{:>4}  {:<12} {:>8.3} {:>16.0} {:>12.7}",
                k + 1,
                e.id,
                e.penalty,
                e.remaining_bytes,
                step.end
            );
        }
        for (id, end) in &finished {
            let _ = writeln!(
                out,
                "{:>4}  {:<12} {:>8} {:>16} {:>12.7}",
                k + 1,
                id,
                "-",
                0,
                end
            );
        }
        finished.extend(
            step.active
                .iter()
                .filter(|e| e.remaining_bytes == 0.0)
                .map(|e| (e.id.as_str(), step.end)),
        );
    }
}

/// Each communication's predicted start, end and time.
fn communications(out: &mut String, r: &NetworkReport) {
    let _ = writeln!(
        out,
        "\n{:<12} {:<8} {:<8} {:>14} {:>12} {:>12} {:>12}",
        "com", "src", "dst", "bytes", "start [s]", "end [s]", "time [s]"
    );
    for c in &r.communications {
        let _ = writeln!(
            out,
            "{:<12} {:<8} {:<8} {:>14.0} {:>12.7} {:>12.7} {:>12.7}",
            c.id, c.src, c.dst, c.bytes, c.start, c.end, c.time
        );
    }
}

/// The times measured with MPI (`--run`) beside the predicted ones.
fn measured_times(out: &mut String, measured: &[Measured]) {
    let runs = measured.first().map_or(0, |m| m.times.len());
    let _ = writeln!(
        out,
        "\nmeasured with MPI (median of {runs} runs)\n{:<12} {:<24} {:>14} {:>14} {:>8}",
        "com", "hosts", "predicted [s]", "measured [s]", "ratio"
    );
    for m in measured {
        let _ = writeln!(
            out,
            "{:<12} {:<24} {:>14.7} {:>14.7} {:>8.3}",
            m.id,
            format!("{}->{}", m.src_host, m.dst_host),
            m.predicted,
            m.median,
            m.ratio
        );
    }
}
