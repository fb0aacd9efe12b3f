//! `contention calibrate`: read the measurements, fit both sides of the model, tell the user
//! what was used and how well it fits, write the model file.

use crate::calibrate::{self, FitReport, Options, SideFit};
use crate::cli::{CalibrateArgs, CalibrationMethod, CsvTopology};
use crate::error::Result;
use crate::io::{inputs, output};
use crate::model::Params;
use crate::model::Uncertainty;

pub fn run(args: &CalibrateArgs) -> Result<()> {
    let defaulted = args.inputs.is_empty();
    let inputs = inputs::read_all(&crate::results::inputs_or_default(&args.inputs)?)?;
    let opts = Options {
        name: args.name.clone(),
        tolerance: args.tolerance,
        local_only: args.local_only,
        method: match args.method {
            CalibrationMethod::Fit => calibrate::Method::Fit,
            CalibrationMethod::Paper => calibrate::Method::Paper,
        },
        bootstrap: args.bootstrap,
        seed: args.seed,
        ..options(&args.topology)
    };
    let (calibrated, notes) = calibrate::calibrate(&inputs, &opts)?;
    crate::report::print_notes(&notes);
    let m = &calibrated.model;
    eprintln!(
        "machine {}: {} NUMA node(s), {} per socket, {} cores per socket",
        m.machine.name, m.machine.numa_nodes, m.machine.numa_per_socket, m.machine.cores_per_socket
    );
    let c = &calibrated.calibration;
    report_side("local", &m.local, &c.local);
    if let (Some(p), Some(fit)) = (&m.remote, &c.remote) {
        report_side("remote", p, fit);
    }
    if let Some(f) = &c.fit {
        report_fit(f, calibrated.uncertainty.as_ref());
    }
    // With this host's traces, the model goes beside them, where the other commands look.
    let out = match &args.output {
        None if defaulted => Some(crate::results::model_path()),
        o => o.clone(),
    };
    output::emit(out.as_deref(), &crate::io::output::pretty_json(&calibrated))?;
    if let Some(path) = &out {
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// Calibration options with what the command line says of a CSV's machine, dated now.
pub fn options(topology: &CsvTopology) -> Options {
    Options {
        numa_per_socket: topology.numa_per_socket,
        numa_nodes: topology.numa_nodes,
        cores_per_socket: topology.cores_per_socket,
        date: crate::timestamp::now(),
        ..Options::default()
    }
}

/// The global fit against the paper's rules, the intervals and the cross-validation.
fn report_fit(f: &FitReport, u: Option<&Uncertainty>) {
    eprintln!(
        "fit (method fit): {} measured bandwidths of placements {}, noise {:.2} %",
        f.groups,
        f.placements.join(" "),
        f.noise_percent
    );
    let line = |name: &str, e: &calibrate::Bandwidths| {
        eprintln!(
            "  {name} MAPE over every fitted placement: comp_parallel {:.2} %, comm_parallel \
             {:.2} %, comp_alone {:.2} %, comm_alone {:.2} %",
            e.comp_parallel, e.comm_parallel, e.comp_alone, e.comm_alone
        )
    };
    line("fit  ", &f.mape_percent);
    line("rules", &f.paper_mape_percent);
    eprintln!(
        "  robust loss: fit {:.1}, paper's rules {:.1}{}; predictions differ by {:.2} %",
        f.loss,
        f.paper_loss,
        if f.kept_paper { " (rules kept)" } else { "" },
        f.disagreement_percent
    );
    eprintln!(
        "  paper's rules, local: {}",
        calibrate::describe(&f.paper_local)
    );
    if let Some(r) = &f.paper_remote {
        eprintln!("  paper's rules, remote: {}", calibrate::describe(r));
    }
    if let Some(u) = u {
        eprintln!(
            "  95 % intervals ({} bootstrap resamples, seed {}):",
            u.resamples, u.seed
        );
        for (side, iv) in [("local", Some(u.local)), ("remote", u.remote)] {
            if let Some(iv) = iv {
                let parts: Vec<String> = Params::NAMES
                    .iter()
                    .zip(iv.as_array())
                    .map(|(name, [lo, hi])| format!("{name} [{lo:.4}, {hi:.4}]"))
                    .collect();
                eprintln!("    {side}: {}", parts.join(" "));
            }
        }
    }
    for u in &f.unidentified {
        eprintln!("  not pinned down: {u}");
    }
    if let Some(cv) = &f.cross_validation {
        eprintln!(
            "  leave-one-placement-out, MAPE in parallel: {:.2} % held out vs {:.2} % in sample",
            cv.held_out_parallel_mape_percent, cv.in_sample_parallel_mape_percent
        );
        for h in &cv.placements {
            eprintln!(
                "    {}: held out comp_parallel {:.2} % comm_parallel {:.2} %; in sample \
                 {:.2} % {:.2} %",
                h.placement,
                h.held_out_mape_percent.comp_parallel,
                h.held_out_mape_percent.comm_parallel,
                h.in_sample_mape_percent.comp_parallel,
                h.in_sample_mape_percent.comm_parallel
            );
        }
    }
}

/// Which placement and files a side came from, its parameters, and its fit.
fn report_side(side: &str, p: &Params, fit: &SideFit) {
    let cores: Vec<String> = fit.cores.iter().map(u32::to_string).collect();
    eprintln!(
        "{side}: placement {},{} from {} (cores {})",
        fit.comp_numa,
        fit.comm_numa,
        fit.sources.join(", "),
        cores.join(",")
    );
    eprintln!("  {}", calibrate::describe(p));
    let e = &fit.mape_percent;
    eprintln!(
        "  fit on its own sweep, MAPE: comp_parallel {:.2} %, comm_parallel {:.2} %, \
         comp_alone {:.2} %, comm_alone {:.2} %",
        e.comp_parallel, e.comm_parallel, e.comp_alone, e.comm_alone,
    );
    let t = &fit.tolerance;
    eprintln!(
        "  tie tolerance: comp_alone {:.2} %, total in parallel {:.2} %, comm_parallel {:.2} %",
        t.comp_alone * 100.0,
        t.total_parallel * 100.0,
        t.comm_parallel * 100.0
    );
}
