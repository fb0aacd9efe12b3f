//! The prediction as a table for a person at a terminal: a header that says which machine and
//! which build, then one block per placement with aligned columns and the loss each stream
//! suffers from running beside the other.

use super::PredictReport;
use crate::model::placement::Source;
use crate::model::PlacementPrediction;
use crate::report::header;
use std::fmt::Write;

fn source_name(s: Source) -> &'static str {
    match s {
        Source::Local => "local",
        Source::Remote => "remote",
        Source::LocalWithRemoteComm => "local, remote b_seq_comm",
    }
}

pub(crate) fn render(report: &PredictReport) -> String {
    let m = &report.about.machine;
    let mut out = String::new();
    header(&mut out, &report.header, &report.about);
    let _ = writeln!(
        out,
        "# bandwidths in MB/s; loss = alone / parallel (1.00 = no loss, 2.00 = twice as slow); \
         * = both data on one NUMA node (contention)"
    );
    for note in &report.notes {
        let _ = writeln!(out, "# note: {note}");
    }
    for p in &report.placements {
        out.push('\n');
        block(&mut out, p, m.numa_per_socket);
    }
    if let Some(intervals) = &report.intervals {
        interval_blocks(
            &mut out,
            intervals,
            report.breakpoints.as_deref().unwrap_or(&[]),
        );
    }
    out
}

/// The 95 % intervals of `predict --intervals`, one block per placement.
fn interval_blocks(
    out: &mut String,
    intervals: &[crate::calibrate::bands::PlacementIntervals],
    breakpoints: &[crate::calibrate::bands::Breakpoints],
) {
    let _ = writeln!(
        out,
        "\n# 95 % intervals (bootstrap of the calibration), MB/s"
    );
    for b in breakpoints {
        let _ = writeln!(
            out,
            "# {} breakpoints: N_par^max {:.0}..{:.0} cores, N_seq^max {:.0}..{:.0} cores",
            b.side, b.n_par_max[0], b.n_par_max[1], b.n_seq_max[0], b.n_seq_max[1]
        );
    }
    for p in intervals {
        let _ = writeln!(out, "\nplacement {},{} intervals", p.comp_numa, p.comm_numa);
        let _ = writeln!(
            out,
            "  {:>5}  {:>19}  {:>19}  {:>19}  {:>19}",
            "cores", "comp_alone", "comp_parallel", "comm_alone", "comm_parallel"
        );
        for pt in &p.points {
            let f = |[lo, hi]: [f64; 2]| format!("{lo:.1}..{hi:.1}");
            let _ = writeln!(
                out,
                "  {:>5}  {:>19}  {:>19}  {:>19}  {:>19}",
                pt.cores,
                f(pt.comp_alone),
                f(pt.comp_parallel),
                f(pt.comm_alone),
                f(pt.comm_parallel)
            );
        }
    }
}

fn side(node: u32, numa_per_socket: u32) -> &'static str {
    if node < numa_per_socket {
        "first socket"
    } else {
        "remote socket"
    }
}

fn block(out: &mut String, p: &PlacementPrediction, numa_per_socket: u32) {
    let _ = writeln!(
        out,
        "placement {},{}{}  computation data on node {} ({}), communication data on node {} ({})",
        p.comp_numa,
        p.comm_numa,
        if p.shared_node { " *" } else { "" },
        p.comp_numa,
        side(p.comp_numa, numa_per_socket),
        p.comm_numa,
        side(p.comm_numa, numa_per_socket),
    );
    let _ = writeln!(
        out,
        "  model used: computations {}, communications {}",
        source_name(p.comp_model),
        source_name(p.comm_model)
    );
    let _ = writeln!(
        out,
        "  {:>5}  {:>10}  {:>13}  {:>9}  {:>10}  {:>13}  {:>9}",
        "cores",
        "comp_alone",
        "comp_parallel",
        "comp_loss",
        "comm_alone",
        "comm_parallel",
        "comm_loss"
    );
    for pt in &p.points {
        let _ = writeln!(
            out,
            "  {:>5}  {:>10.1}  {:>13.1}  {:>9.2}  {:>10.1}  {:>13.1}  {:>9.2}",
            pt.cores,
            pt.comp_alone,
            pt.comp_parallel,
            pt.comp_loss(),
            pt.comm_alone,
            pt.comm_parallel,
            pt.comm_loss(),
        );
    }
}
