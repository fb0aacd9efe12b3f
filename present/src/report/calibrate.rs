//! What `calibrate` tells the user, as the [`Report`] of the model file it writes
//! ([`CalibratedModel`]): its table says which placement and files each side came from, its
//! parameters and how well they fit, and with `--method fit` the global fit against the
//! paper's rules, the bootstrap intervals and the cross-validation; its JSON is the model file
//! other commands read. The table is for the person and goes to standard error, the JSON to
//! the file ([`super::emit_with_summary`]).

use super::Report;
use crate::calibrate::validate::CrossValidation;
use crate::calibrate::{Bandwidths, CalibratedModel, FitReport, SideFit};
use crate::model::uncertainty::open_above;
use crate::model::{ParamKind, Params, Uncertainty};
use std::fmt::Write;

impl Report for CalibratedModel {
    /// The model file's layout version (docs/formats.md, "Model file").
    const SCHEMA_VERSION: u32 = crate::model::SCHEMA_VERSION;

    /// What calibration noticed in the inputs, as recorded in the file's `calibration`.
    fn notes(&self) -> &[String] {
        &self.calibration.notes
    }

    fn table(&self) -> String {
        let mut out = String::new();
        let m = &self.model;
        let _ = writeln!(
            out,
            "machine {}: {} NUMA node(s), {} per socket, {} cores per socket",
            m.machine.name,
            m.machine.numa_nodes,
            m.machine.numa_per_socket,
            m.machine.cores_per_socket
        );
        let c = &self.calibration;
        if let Some(choice) = &c.model {
            let _ = writeln!(out, "model {}: {}", choice.variant.name(), choice.why);
            if !choice.held_out.is_empty() {
                let each: Vec<String> = choice
                    .held_out
                    .iter()
                    .map(|h| format!("{} {:.2} %", h.variant, h.parallel_mape_percent))
                    .collect();
                let _ = writeln!(
                    out,
                    "  held-out error (each law fitted without a quarter of the core counts at \
                     a time, MAPE of the bandwidths in parallel there): {}",
                    each.join(", ")
                );
            }
        }
        side_lines(&mut out, "local", &m.local, &c.local);
        if let (Some(p), Some(fit)) = (&m.remote, &c.remote) {
            side_lines(&mut out, "remote", p, fit);
        }
        if let Some(f) = &c.fit {
            fit_lines(&mut out, f, self.uncertainty.as_ref());
        }
        out
    }
}

/// The global fit against the paper's rules, the intervals and the cross-validation.
fn fit_lines(out: &mut String, f: &FitReport, u: Option<&Uncertainty>) {
    let _ = writeln!(
        out,
        "fit (method fit): {} measured bandwidths of placements {}, noise {:.2} %",
        f.groups,
        f.placements.join(" "),
        f.noise_percent
    );
    let mut line = |name: &str, e: &Bandwidths| {
        let _ = writeln!(
            out,
            "  {name} MAPE over every fitted placement: comp_parallel {:.2} %, comm_parallel \
             {:.2} %, comp_alone {:.2} %, comm_alone {:.2} %",
            e.comp_parallel, e.comm_parallel, e.comp_alone, e.comm_alone
        );
    };
    line("fit  ", &f.mape_percent);
    line("rules", &f.paper_mape_percent);
    if let Some(o) = &f.other_model {
        let _ = writeln!(
            out,
            "  the {} model, fitted the same way, MAPE: comp_parallel {:.2} %, comm_parallel \
             {:.2} %, comp_alone {:.2} %, comm_alone {:.2} % (robust loss {:.1})",
            o.variant.name(),
            o.mape_percent.comp_parallel,
            o.mape_percent.comm_parallel,
            o.mape_percent.comp_alone,
            o.mape_percent.comm_alone,
            o.loss
        );
    }
    let _ = writeln!(
        out,
        "  robust loss: fit {:.1}, paper's rules {:.1}{}; predictions differ by {:.2} %",
        f.loss,
        f.paper_loss,
        if f.kept_paper { " (rules kept)" } else { "" },
        f.disagreement_percent
    );
    let _ = writeln!(out, "  paper's rules, local: {}", describe(&f.paper_local));
    if let Some(r) = &f.paper_remote {
        let _ = writeln!(out, "  paper's rules, remote: {}", describe(r));
    }
    if let Some(u) = u {
        interval_lines(out, u);
    }
    for u in &f.unidentified {
        let _ = writeln!(out, "  not pinned down: {u}");
    }
    if let Some(cv) = &f.cross_validation {
        cross_validation_lines(out, cv);
    }
}

/// The bootstrap's 95 % interval of each parameter, a line per side.
fn interval_lines(out: &mut String, u: &Uncertainty) {
    let _ = writeln!(
        out,
        "  95 % intervals ({} bootstrap resamples, seed {}{}):",
        u.resamples,
        u.seed,
        kept_full_fit(u)
    );
    for (side, iv) in [("local", Some(&u.local)), ("remote", u.remote.as_ref())] {
        if let Some(iv) = iv {
            let mut parts: Vec<String> = Params::FIELDS
                .iter()
                .zip(iv.as_array())
                .map(|(&(name, kind), [lo, hi])| match kind {
                    ParamKind::Cores => format!("{name} {lo:.0}..{hi:.0} cores"),
                    _ if open_above([lo, hi]) => format!("{name} >= {lo:.4} (open above)"),
                    _ => format!("{name} [{lo:.4}, {hi:.4}]"),
                })
                .collect();
            parts.extend(
                iv.law()
                    .iter()
                    .map(|(name, [lo, hi])| format!("{name} [{lo:.4}, {hi:.4}]")),
            );
            let _ = writeln!(out, "    {side}: {}", parts.join(" "));
        }
    }
}

/// Leave-one-placement-out: held-out against in-sample error, overall and per placement.
fn cross_validation_lines(out: &mut String, cv: &CrossValidation) {
    let _ = writeln!(
        out,
        "  leave-one-placement-out, MAPE in parallel: {:.2} % held out vs {:.2} % in \
         sample",
        cv.held_out_parallel_mape_percent, cv.in_sample_parallel_mape_percent
    );
    for h in &cv.placements {
        let _ = writeln!(
            out,
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

/// How many refits kept the full fit, as a clause after the resamples (nothing for files
/// that did not count them).
fn kept_full_fit(u: &Uncertainty) -> String {
    match u.kept_full_fit {
        Some(k) => format!("; {k} found nothing better than the full fit and kept it"),
        None => String::new(),
    }
}

/// Which placement and files a side came from, its parameters, and its fit.
fn side_lines(out: &mut String, side: &str, p: &Params, fit: &SideFit) {
    let cores: Vec<String> = fit.cores.iter().map(u32::to_string).collect();
    let _ = writeln!(
        out,
        "{side}: placement {},{} from {} (cores {})",
        fit.comp_numa,
        fit.comm_numa,
        fit.sources.join(", "),
        cores.join(",")
    );
    let _ = writeln!(out, "  {}", describe(p));
    let e = &fit.mape_percent;
    let _ = writeln!(
        out,
        "  fit on its own sweep, MAPE: comp_parallel {:.2} %, comm_parallel {:.2} %, \
         comp_alone {:.2} %, comm_alone {:.2} %",
        e.comp_parallel, e.comm_parallel, e.comp_alone, e.comm_alone,
    );
    let t = &fit.tolerance;
    let _ = writeln!(
        out,
        "  tie tolerance: comp_alone {:.2} %, total in parallel {:.2} %, comm_parallel {:.2} %",
        t.comp_alone * 100.0,
        t.total_parallel * 100.0,
        t.comm_parallel * 100.0
    );
}

/// The parameters of a side on one line (`name value ...`), for the user's terminal, each
/// with the decimals of its kind; the law's own (the cpu-copy variant's `kappa`) last.
fn describe(p: &Params) -> String {
    let mut parts: Vec<String> = Params::FIELDS
        .iter()
        .zip(p.values())
        .map(|((name, kind), v)| format!("{name} {v:.*}", kind.decimals()))
        .collect();
    parts.extend(
        p.law
            .params()
            .map(|(lp, v)| format!("{} {v:.*}", lp.name, lp.decimals)),
    );
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibrate::{calibrate, Options};
    use crate::dataset::Input;
    use crate::io::model_file;
    use crate::model::{self, all_placements};
    use crate::report::{json_of, render, Format};

    #[test]
    fn a_side_is_described_with_the_decimals_of_each_kind() {
        let p = model_file::load("paper:henri").unwrap().local;
        assert_eq!(
            describe(&p),
            "n_par_max 17 t_par_max 73423.0 n_seq_max 18 t_seq_max 72589.9 t_par_max2 73387.7 \
             alpha 0.915 delta_l 35.3 delta_r 0.0 b_seq_comp 4455.4 b_seq_comm 11481.1"
        );
    }

    #[test]
    fn an_interval_open_above_reads_as_a_lower_bound() {
        let p = model_file::load("paper:henri").unwrap().local;
        let mut iv = crate::model::ParamIntervals::point(&p).as_array();
        iv[Params::T_SEQ_MAX] = [71_834.25, crate::model::constraints::MAX_BANDWIDTH];
        iv[Params::B_SEQ_COMP] = [4_400.0, 4_500.0];
        let u = Uncertainty {
            method: "bootstrap".into(),
            resamples: 2,
            kept_full_fit: None,
            seed: 1,
            level: 0.95,
            local: crate::model::ParamIntervals::new(iv, vec![]),
            remote: None,
            replicates: Vec::new(),
        };
        let mut out = String::new();
        interval_lines(&mut out, &u);
        assert!(
            out.contains(" t_seq_max >= 71834.2500 (open above) "),
            "{out}"
        );
        assert!(out.contains(" b_seq_comp [4400.0000, 4500.0000] "), "{out}");
        assert!(!out.contains("1000000000000"), "{out}");
    }

    /// `paper:henri`'s predictions of every placement, calibrated back.
    fn henri_calibrated() -> CalibratedModel {
        let m = model_file::load("paper:henri").unwrap();
        let cores: Vec<u32> = (1..=18).collect();
        let rows =
            crate::trace::predicted_rows(&model::predict(&m, &all_placements(&m), &cores).unwrap());
        let opts = Options {
            numa_per_socket: Some(1),
            name: Some("henri".into()),
            ..Options::default()
        };
        calibrate(&[Input::from_rows(&rows, "henri.csv")], &opts)
            .unwrap()
            .0
    }

    #[test]
    fn the_table_says_where_each_side_came_from_and_the_json_is_the_model_file() {
        let c = henri_calibrated();
        let t = c.table();
        for needle in [
            "machine henri: 2 NUMA node(s), 1 per socket, 18 cores per socket\n",
            "local: placement 0,0 from henri.csv (cores 1,2,3,",
            "remote: placement 1,1 from henri.csv",
            "  fit on its own sweep, MAPE: comp_parallel ",
            "fit (method fit): ",
            "  paper's rules, local: n_par_max ",
        ] {
            assert!(t.contains(needle), "{needle:?} missing:\n{t}");
        }
        assert_eq!(c.notes(), c.calibration.notes.as_slice());
        // The JSON is the model file, which reads back as the model calibrated.
        let json = render(&c, Format::Json).unwrap();
        assert_eq!(json, crate::io::output::pretty_json(&c));
        assert_eq!(model_file::parse(&json, "m.json").unwrap(), c.model);
        assert_eq!(json_of(&c)["machine"]["name"], "henri");
    }

    /// What a fit leaves open (`FitReport::unidentified`, which the calibration's notes name
    /// too) is named in the table, one line each.
    #[test]
    fn the_table_names_what_the_data_cannot_pin_down() {
        let mut c = henri_calibrated();
        let fit = c.calibration.fit.as_mut().unwrap();
        fit.unidentified = vec!["delta_l".into(), "alpha".into()];
        let t = c.table();
        for u in ["delta_l", "alpha"] {
            assert!(
                t.contains(&format!("  not pinned down: {u}\n")),
                "{u}:\n{t}"
            );
        }
    }

    #[test]
    fn emit_with_summary_writes_the_model_file_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("model.json");
        let c = henri_calibrated();
        crate::report::emit_with_summary(&c, Some(&path)).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            render(&c, Format::Json).unwrap()
        );
    }
}
