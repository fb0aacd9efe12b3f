//! The rules a parameter set must meet for the model to mean what the paper says, beyond each
//! value being in range ([`super::params`]): a model file that breaks them would predict
//! contention that speeds computations up or stops them entirely.
//!
//! Measured parameters carry noise, so a rule that compares two measured quantities allows
//! [`TOLERANCE`] (the nine models of the paper's Appendix B meet every rule with it; the worst,
//! billy's local side, predicts computations 0.4% faster in parallel than alone at 31 cores).

use super::bandwidth::{curve, total};
use super::params::{Params, Problem};

/// Relative slack allowed where a rule compares two measured bandwidths.
pub const TOLERANCE: f64 = 0.05;

/// Smallest bandwidth a model may hold (1 kB/s): smaller ones are typing errors, and
/// subnormal values (`1e-320`) make divisions overflow downstream.
pub const MIN_BANDWIDTH: f64 = 1e-3;
/// Largest bandwidth a model may hold (10^12 MB/s, an exabyte per second): beyond it `n *
/// B_seq^comp` and the network solver's arithmetic leave the finite numbers.
pub const MAX_BANDWIDTH: f64 = 1e12;

fn problem(side: &str, field: &str, value: f64, rule: String) -> Problem {
    Problem {
        field: format!("{side}.{field}"),
        value: value.to_string(),
        rule,
    }
}

/// Every rule of the model's meaning that `p` breaks on a socket of `cores` cores. Only
/// called on parameters whose values are each in range (finite, positive bandwidths).
pub fn problems(p: &Params, side: &str, cores: u32) -> Vec<Problem> {
    // A machine beyond the bound is refused by its own rule; the curve stays bounded anyway.
    let cores = cores.min(super::params::MAX_CORES_PER_SOCKET);
    let mut out = Vec::new();
    let slack = 1.0 + TOLERANCE;
    let pct = TOLERANCE * 100.0;
    // Equation 1: T_par^max is the peak of T(n); T_par^max2 is T(N_seq^max), after it.
    if p.t_par_max2 > p.t_par_max * slack {
        out.push(problem(
            side,
            "t_par_max2",
            p.t_par_max2,
            format!(
                "must not exceed t_par_max ({}) by more than {pct}%: t_par_max is the peak of \
                 the total bandwidth T(n) (equation 1)",
                p.t_par_max
            ),
        ));
    }
    // Equation 6: one core alone cannot beat the peak of all cores alone.
    if p.b_seq_comp > p.t_seq_max * slack {
        out.push(problem(
            side,
            "b_seq_comp",
            p.b_seq_comp,
            format!(
                "must not exceed t_seq_max ({}): one core alone cannot beat the peak of all \
                 cores alone (equation 6)",
                p.t_seq_max
            ),
        ));
    }
    // Equation 1 again: between N_par^max and the socket's last core T(n) must stay below its
    // peak, which a negative delta_l (or a steep negative delta_r) would break.
    if let Some(n) = (1..=cores).find(|&n| total(p, n) > p.t_par_max * slack) {
        let field = if n <= p.n_seq_max {
            "delta_l"
        } else {
            "delta_r"
        };
        let value = if n <= p.n_seq_max {
            p.delta_l
        } else {
            p.delta_r
        };
        out.push(problem(
            side,
            field,
            value,
            format!(
                "makes the total bandwidth T({n}) = {:.1} exceed its peak t_par_max = {} by more \
                 than {pct}% (equation 1)",
                total(p, n),
                p.t_par_max
            ),
        ));
    }
    if !out.is_empty() {
        // The curve rules below would only restate these.
        return out;
    }
    // Equations 3 and 6: contention never makes computations faster than alone, and the
    // communications' share (equation 4) must leave the computations something.
    for c in curve(p, cores) {
        if c.comp_parallel > c.comp_alone * slack {
            out.push(Problem {
                field: side.to_string(),
                value: String::new(),
                rule: format!(
                    "predicts computations at {} cores faster in parallel ({:.1} MB/s, equation \
                     3) than alone ({:.1} MB/s, equation 6): check t_seq_max ({}), b_seq_comp \
                     ({}) and t_par_max2 ({})",
                    c.cores, c.comp_parallel, c.comp_alone, p.t_seq_max, p.b_seq_comp, p.t_par_max2
                ),
            });
            break;
        }
        if c.comp_parallel <= 0.0 {
            out.push(Problem {
                field: side.to_string(),
                value: String::new(),
                rule: format!(
                    "predicts no computation bandwidth at {} cores in parallel: the total T({}) = \
                     {:.1} MB/s (equation 1) does not exceed the communications' share {:.1} \
                     MB/s (alpha * b_seq_comm, equation 4); check t_par_max, delta_l, delta_r",
                    c.cores, c.cores, c.total, c.comm_parallel
                ),
            });
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::paper;

    #[test]
    fn the_paper_models_meet_every_rule() {
        for name in paper::names() {
            let m = crate::io::model_file::load(&format!("paper:{name}")).unwrap();
            assert!(m.problems().is_empty(), "{name}: {:?}", m.problems());
        }
    }

    fn henri() -> Params {
        crate::io::model_file::load("paper:henri").unwrap().local
    }

    fn fields(p: &Params) -> Vec<String> {
        problems(p, "local", 18)
            .into_iter()
            .map(|p| p.field)
            .collect()
    }

    /// The examples: each was accepted and predicted nonsense.
    #[test]
    fn nonsense_is_refused_naming_the_rule() {
        let mut p = henri();
        p.t_par_max2 = 1e6;
        assert_eq!(fields(&p), ["local.t_par_max2"]);
        let mut p = henri();
        p.t_seq_max = 1.0;
        assert_eq!(fields(&p), ["local.b_seq_comp"]);
        let mut p = henri();
        p.delta_l = -1e5;
        p.n_par_max = 10;
        assert_eq!(fields(&p), ["local.delta_l"]);
        let mut p = henri();
        p.t_par_max = 100.0;
        assert_eq!(fields(&p), ["local.t_par_max2"]);
        let mut p = henri();
        (p.t_par_max, p.t_par_max2) = (10_000.0, 10_000.0);
        let rules = problems(&p, "local", 18);
        assert_eq!(rules.len(), 1, "{rules:?}");
        assert!(
            rules[0].rule.contains("no computation bandwidth"),
            "{rules:?}"
        );
        let mut p = henri();
        p.t_seq_max = 20_000.0;
        let rules = problems(&p, "local", 18);
        assert!(rules[0].rule.contains("faster in parallel"), "{rules:?}");
    }
}
