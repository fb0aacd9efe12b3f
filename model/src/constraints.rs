//! Every rule a model file must obey before the equations may use it, and the bounds they
//! use: each value in the range of its kind ([`ParamKind`]), the machine's shape, and the rules
//! of the model's meaning beyond each value being in range: a model file that breaks them
//! would predict contention that speeds computations up or stops them entirely.
//!
//! Validation is pure: it returns every broken rule with the field it concerns, and the I/O
//! layer (the reader of model files, in the `contention` crate) adds the file name.
//!
//! Measured parameters carry noise, so a rule that compares two measured quantities allows
//! [`TOLERANCE`] (the nine models of the paper's Appendix B meet every rule with it; the worst,
//! billy's local side, predicts computations 0.4% faster in parallel than alone at 31 cores).

use super::bandwidth::curve;
use super::law::Variant;
use super::params::{Model, ParamKind, Params, SCHEMA_VERSION};
use super::total::total;
use super::uncertainty::{ParamIntervals, Uncertainty};
use crate::units::short_number;
use std::cmp::Ordering;
use std::fmt;

/// Relative slack allowed where a rule compares two measured bandwidths.
pub const TOLERANCE: f64 = 0.05;

/// The range a bandwidth may take, a property of the unit (there, with why); re-exported
/// here beside the other bounds a model is checked against.
pub use crate::units::{MAX_BANDWIDTH, MIN_BANDWIDTH};

/// Bounds no real machine reaches, so that a corrupt file (`cores_per_socket: 4294967295`)
/// is refused instead of making the tool allocate a prediction for every core count.
pub const MAX_CORES_PER_SOCKET: u32 = crate::cores::MAX_COUNT;
pub const MAX_NUMA_NODES: u32 = 1024;

/// One broken rule: the dotted field path (`local.alpha`), the value seen and the rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub field: String,
    pub value: String,
    pub rule: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.value.is_empty() {
            write!(f, "{}: {}", self.field, self.rule)
        } else {
            write!(f, "{} = {}: {}", self.field, self.value, self.rule)
        }
    }
}

fn problem(field: String, value: impl fmt::Display, rule: &str) -> Problem {
    Problem {
        field,
        value: value.to_string(),
        rule: rule.to_string(),
    }
}

impl Model {
    /// Every rule the model breaks; empty when the equations may use it.
    pub fn problems(&self) -> Vec<Problem> {
        let mut out = Vec::new();
        if self.schema_version != SCHEMA_VERSION {
            out.push(problem(
                "schema_version".into(),
                self.schema_version,
                &format!("this build reads schema version {SCHEMA_VERSION} only"),
            ));
        }
        let m = &self.machine;
        // A name with a bidi override or another invisible format control shows other text
        // than it holds wherever it is printed or drawn (`calibrate --name $'\u202egnp.'`):
        // refused as the control characters are.
        if m.name.chars().any(crate::text::needs_escape) {
            out.push(problem(
                "machine.name".into(),
                crate::text::escape(&format!("{:?}", m.name)),
                "must not hold control or invisible format characters (bidi overrides, \
                 isolates, zero widths): the name is printed to terminals and drawn in figures",
            ));
        }
        for (name, v, max) in [
            ("numa_nodes", m.numa_nodes, MAX_NUMA_NODES),
            ("numa_per_socket", m.numa_per_socket, MAX_NUMA_NODES),
            ("cores_per_socket", m.cores_per_socket, MAX_CORES_PER_SOCKET),
        ] {
            if v < 1 || v > max {
                out.push(problem(
                    format!("machine.{name}"),
                    v,
                    &format!("must be between 1 and {max}"),
                ));
            }
        }
        if m.numa_per_socket >= 1 && !m.numa_nodes.is_multiple_of(m.numa_per_socket) {
            out.push(problem(
                "machine.numa_per_socket".into(),
                m.numa_per_socket,
                &format!(
                    "must divide machine.numa_nodes ({}): every socket has the same number of NUMA nodes",
                    m.numa_nodes
                ),
            ));
        }
        for (side, p) in [
            ("local", Some(&self.local)),
            ("remote", self.remote.as_ref()),
        ] {
            if let Some(p) = p {
                out.extend(law_problems(self.variant, side, p));
            }
        }
        out.extend(self.local.problems("local", m.cores_per_socket));
        if let Some(remote) = &self.remote {
            out.extend(remote.problems("remote", m.cores_per_socket));
        }
        out
    }
}

/// A side's law must be the model's (`variant`, [`super::law`]): the parameters it holds
/// belong to that law (`kappa` to the cpu-copy variant), and that law needs each of its own
/// on every side.
fn law_problems(variant: Variant, side: &str, p: &Params) -> Vec<Problem> {
    let law = p.law.variant();
    if law == variant {
        return Vec::new();
    }
    let stray = p.law.params().map(|(lp, v)| {
        problem(
            format!("{side}.{}", lp.name),
            short_number(v),
            &format!(
                "only a model of {} has {}: add \"variant\": \"{law}\" to the file, or remove \
                 {} for {}",
                law.about(),
                lp.name,
                lp.name,
                variant.phrase()
            ),
        )
    });
    let missing = variant.params().iter().map(|lp| {
        problem(
            format!("{side}.{}", lp.name),
            "",
            &format!(
                "missing: a \"{variant}\" model needs {} on every side (its law of \
                 communications in parallel); `contention calibrate --model {variant}` fits it",
                lp.name
            ),
        )
    });
    stray.chain(missing).collect()
}

impl Params {
    /// Every rule of one parameter set broken, fields prefixed with `side` (`local`/`remote`):
    /// each value in the range of its kind, then, when they all are, the rules of the model's
    /// meaning (equations 1, 3, 4 and 6).
    pub fn problems(&self, side: &str, cores_per_socket: u32) -> Vec<Problem> {
        // Kind by kind, so that the bandwidths come first as they always have.
        let kinds = [
            ParamKind::Bandwidth,
            ParamKind::Slope,
            ParamKind::CommShare,
            ParamKind::Cores,
        ];
        let mut out: Vec<Problem> = kinds
            .iter()
            .flat_map(|&kind| {
                Params::FIELDS
                    .iter()
                    .zip(self.values())
                    .filter(move |((_, k), _)| *k == kind)
                    .filter_map(move |((name, _), v)| {
                        let rule = out_of_range(kind, v, cores_per_socket)?;
                        // `short_number`: a parameter of 1e308 printed 309 digits.
                        Some(problem(format!("{side}.{name}"), short_number(v), &rule))
                    })
            })
            .collect();
        for (lp, v) in self.law.params() {
            if !(v.is_finite() && v > lp.low && v <= lp.high) {
                out.push(problem(
                    format!("{side}.{}", lp.name),
                    short_number(v),
                    &format!(
                        "must be in ({}, {}]: {} ({} variant)",
                        lp.low,
                        lp.high,
                        lp.meaning,
                        self.law.variant()
                    ),
                ));
            }
        }
        if out.is_empty() {
            out = meaning(self, side, cores_per_socket);
        }
        out
    }
}

impl Uncertainty {
    /// Every rule the bootstrap's account breaks for `model` (which meets its own rules),
    /// fields prefixed with `uncertainty.`: each interval `[low, high]` ordered and within
    /// its parameter's range (a breakpoint's a range of whole core counts on the socket), a
    /// level in (0, 1), at least one resample and, since `predict --intervals` and `plot` draw
    /// from them, one refit per resample of which at least one meets the model's rules.
    ///
    /// The fitted value itself may lie outside its interval (a percentile interval of the
    /// refits need not hold the full fit), so that is not a rule.
    pub fn problems(&self, model: &Model) -> Vec<Problem> {
        let mut out = Vec::new();
        if !(self.level > 0.0 && self.level < 1.0) {
            out.push(problem(
                "uncertainty.level".into(),
                short_number(self.level),
                "must be in (0, 1): the intervals' coverage as a fraction (0.95 for 95 %)",
            ));
        }
        let resamples = self.resamples;
        if resamples == 0 {
            out.push(problem(
                "uncertainty.resamples".into(),
                0,
                "must be >= 1: the intervals come from the bootstrap's resamples (`contention \
                 calibrate --bootstrap N`)",
            ));
        }
        if let Some(k) = self.kept_full_fit.filter(|&k| k > resamples) {
            out.push(problem(
                "uncertainty.kept_full_fit".into(),
                k,
                &format!("must not exceed resamples ({resamples}): it counts some of them"),
            ));
        }
        out.extend(self.replicates_problem(model, resamples));
        let cores = model.machine.cores_per_socket;
        for (side, iv, params) in [
            ("local", Some(&self.local), Some(&model.local)),
            ("remote", self.remote.as_ref(), model.remote.as_ref()),
        ] {
            match (iv, params) {
                (Some(_), None) => out.push(problem(
                    format!("uncertainty.{side}"),
                    "",
                    &format!("the model has no `{side}` parameters for these intervals to bound"),
                )),
                (Some(iv), Some(p)) => {
                    for (lp, _) in p.law.params() {
                        if iv.get(lp.name).is_none() {
                            out.push(problem(
                                format!("uncertainty.{side}.{}", lp.name),
                                "",
                                &format!(
                                    "missing: a {} model's intervals bound {} too (`contention \
                                     calibrate --bootstrap N` writes it)",
                                    p.law.variant(),
                                    lp.name
                                ),
                            ));
                        }
                    }
                    out.extend(side_problems(side, iv, p, cores));
                }
                (None, _) => {}
            }
        }
        out
    }

    /// Why the refits cannot give intervals: none, not one per resample, some not of the
    /// model's variant, or none a model (`predict --intervals` would print `NaN..NaN`).
    ///
    /// A refit is evaluated as the law its parameters make (`kappa` or not,
    /// [`super::law`]): a cpu-copy model's refit without `kappa` would predict
    /// communications in parallel by the paper's equation 4, and its interval would not be
    /// the model's (issue 43, item 4: `7612.5..10048.0` for `7612.5..8915.6`). `calibrate
    /// --bootstrap` refits the model's own variant, so every refit carries `kappa` on every
    /// side exactly when the model does.
    fn replicates_problem(&self, model: &Model, resamples: u32) -> Option<Problem> {
        let n = self.replicates.len();
        let field = || "uncertainty.replicates".to_string();
        if n == 0 {
            return Some(problem(
                field(),
                "[]",
                "must hold the refitted parameter sets (`contention calibrate --bootstrap N` \
                 writes them): `predict --intervals` and `plot` draw their intervals from them",
            ));
        }
        if n != resamples as usize {
            return Some(problem(
                field(),
                format!("{n} refits"),
                &format!("must hold one refit per resample (resamples = {resamples})"),
            ));
        }
        let law = |p: Option<&Params>| p.map(|p| p.law.variant());
        let (local, remote) = (law(Some(&model.local)), law(model.remote.as_ref()));
        // The law a refit's side has where it is not the model's.
        let differs = |r: &super::Replicate| {
            let (l, rr) = (law(Some(&r.local)), law(r.remote.as_ref()));
            if l != local {
                l
            } else if remote.is_some() && rr != remote {
                Some(rr.unwrap_or_default())
            } else {
                None
            }
        };
        let other = self
            .replicates
            .iter()
            .filter(|r| differs(r).is_some())
            .count();
        if other > 0 {
            let v = model.variant;
            let seen = self.replicates.iter().find_map(differs).unwrap_or_default();
            let names = |v: Variant| {
                let names: Vec<&str> = v.params().iter().map(|p| p.name).collect();
                names.join(" and ")
            };
            let rule = if v.is_paper() {
                format!(
                    "must be of the model's variant: a refit of the paper's model has no {} \
                     (with it `predict --intervals` would evaluate it as {})",
                    names(seen),
                    seen.phrase()
                )
            } else {
                format!(
                    "must be of the model's variant: a refit of a {v} model carries {} on every \
                     side (without it `predict --intervals` would evaluate it as {}); calibrate \
                     again with `--bootstrap N`",
                    names(v),
                    seen.phrase()
                )
            };
            return Some(problem(field(), format!("{other} of {n} refits"), &rule));
        }
        let mut first = None;
        for r in &self.replicates {
            match r.model(&model.machine).problems().into_iter().next() {
                None => return None,
                Some(p) => {
                    first.get_or_insert(p);
                }
            }
        }
        let first = first.map_or_else(String::new, |p| p.to_string());
        Some(problem(
            field(),
            format!("{n} refits"),
            &format!(
                "none of the {n} refits meets the model's rules (the first: {first}), so none \
                 can give an interval"
            ),
        ))
    }
}

/// Every interval of one side (`local`/`remote`) that is not `[low, high]` with both ends in
/// the range of its parameter's kind on a socket of `cores` cores.
fn side_problems(side: &str, iv: &ParamIntervals, p: &Params, cores: u32) -> Vec<Problem> {
    // A law's parameter has no kind: its range is its own.
    let named = Params::FIELDS
        .iter()
        .zip(iv.as_array())
        .map(|(&(name, kind), v)| (name, Some(kind), v))
        .chain(iv.law().iter().map(|&(name, v)| (name, None, v)));
    let mut out = Vec::new();
    for (name, kind, [lo, hi]) in named {
        let rule = match (kind, lo.partial_cmp(&hi)) {
            (None, _) if p.law.params().all(|(lp, _)| lp.name != name) => {
                let owner = Variant::owning(name).map_or(Variant::Paper, |o| o.0);
                Some(format!(
                    "the model has no {name} (it is not a {owner} model) for this interval to \
                     bound"
                ))
            }
            (_, Some(Ordering::Greater) | None) => {
                Some("an interval is [low, high] with low <= high: swap its two ends".to_string())
            }
            (Some(kind), _) => out_of_range(kind, lo, cores)
                .or_else(|| out_of_range(kind, hi, cores))
                .or_else(|| {
                    (kind == ParamKind::Cores && (lo.fract() != 0.0 || hi.fract() != 0.0))
                        .then(|| "a breakpoint's interval is a range of whole core counts".into())
                })
                .map(|rule| format!("each end: {rule}")),
            (None, _) => Variant::owning(name).and_then(|(_, lp)| {
                (!(lo > lp.low && hi <= lp.high)).then(|| {
                    format!(
                        "each end must be in ({}, {}], as {name} itself",
                        lp.low, lp.high
                    )
                })
            }),
        };
        if let Some(rule) = rule {
            let shown = format!("[{}, {}]", short_number(lo), short_number(hi));
            out.push(problem(format!("uncertainty.{side}.{name}"), shown, &rule));
        }
    }
    out
}

impl ParamKind {
    /// The value nearest `v` that a continuous parameter of this kind may hold (an `alpha`
    /// floor of 1e-6, as the fit's): what an interval widened past the range is cut back to,
    /// so that the intervals the tool writes meet the rules it reads them with. Core counts
    /// are returned as they are: their bound is the socket's, which the caller knows.
    pub fn nearest_valid(self, v: f64) -> f64 {
        match self {
            ParamKind::Bandwidth => v.clamp(MIN_BANDWIDTH, MAX_BANDWIDTH),
            ParamKind::Slope => v.clamp(-MAX_BANDWIDTH, MAX_BANDWIDTH),
            ParamKind::CommShare => v.clamp(1e-6, 1.0),
            ParamKind::Cores => v,
        }
    }
}

/// Why `v` is out of the range of its kind on a socket of `cores` cores, `None` when in it.
fn out_of_range(kind: ParamKind, v: f64, cores: u32) -> Option<String> {
    match kind {
        ParamKind::Bandwidth if !v.is_finite() => {
            Some("a bandwidth must be a finite number (MB/s)".into())
        }
        ParamKind::Bandwidth if v <= 0.0 => Some("a bandwidth must be > 0 MB/s".into()),
        ParamKind::Bandwidth if !(MIN_BANDWIDTH..=MAX_BANDWIDTH).contains(&v) => Some(format!(
            "a bandwidth must be between {MIN_BANDWIDTH} and {MAX_BANDWIDTH:e} MB/s"
        )),
        ParamKind::Slope if !v.is_finite() || v.abs() > MAX_BANDWIDTH => Some(format!(
            "must be a finite number within ±{MAX_BANDWIDTH:e} (MB/s per core; it may be \
             negative)"
        )),
        ParamKind::CommShare if !(v > 0.0 && v <= 1.0) => Some(
            "must be in (0, 1]: it is the worst-case fraction of b_seq_comm left to \
             communications"
                .into(),
        ),
        ParamKind::Cores if v < 1.0 => Some("a core count must be >= 1".into()),
        ParamKind::Cores if v > f64::from(cores) => Some(format!(
            "must not exceed machine.cores_per_socket ({cores})"
        )),
        _ => None,
    }
}

/// Every rule of the model's meaning that `p` breaks on a socket of `cores` cores. Only
/// called on parameters whose values are each in range (finite, positive bandwidths).
fn meaning(p: &Params, side: &str, cores: u32) -> Vec<Problem> {
    // A machine beyond the bound is refused by its own rule; the curve stays bounded anyway.
    let cores = cores.min(MAX_CORES_PER_SOCKET);
    let out = peak_rules(p, side, cores);
    if !out.is_empty() {
        // The curve rules would only restate these.
        return out;
    }
    curve_rules(p, side, cores).into_iter().collect()
}

/// The rules on the parameters themselves: the peaks of equations 1 and 6, and the total
/// bandwidth `T(n)` below its peak up to the socket's last core (equation 1).
fn peak_rules(p: &Params, side: &str, cores: u32) -> Vec<Problem> {
    let mut out = Vec::new();
    let slack = 1.0 + TOLERANCE;
    let pct = TOLERANCE * 100.0;
    // Equation 1: T_par^max is the peak of T(n); T_par^max2 is T(N_seq^max), after it.
    if p.t_par_max2 > p.t_par_max * slack {
        out.push(problem(
            format!("{side}.t_par_max2"),
            p.t_par_max2,
            &format!(
                "must not exceed t_par_max ({}) by more than {pct}%: t_par_max is the peak of \
                 the total bandwidth T(n) (equation 1)",
                p.t_par_max
            ),
        ));
    }
    // Equation 6: one core alone cannot beat the peak of all cores alone.
    if p.b_seq_comp > p.t_seq_max * slack {
        out.push(problem(
            format!("{side}.b_seq_comp"),
            p.b_seq_comp,
            &format!(
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
            format!("{side}.{field}"),
            value,
            &format!(
                "makes the total bandwidth T({n}) = {:.1} exceed its peak t_par_max = {} by more \
                 than {pct}% (equation 1)",
                total(p, n),
                p.t_par_max
            ),
        ));
    }
    out
}

/// The first point of the predicted curve that breaks a rule: contention never makes
/// computations faster than alone (equations 3 and 6), and the communications' share
/// (equation 4) must leave the computations something.
fn curve_rules(p: &Params, side: &str, cores: u32) -> Option<Problem> {
    let slack = 1.0 + TOLERANCE;
    for c in curve(p, cores) {
        if c.comp_parallel > c.comp_alone * slack {
            return Some(Problem {
                field: side.to_string(),
                value: String::new(),
                rule: format!(
                    "predicts computations at {} cores faster in parallel ({:.1} MB/s, equation \
                     3) than alone ({:.1} MB/s, equation 6): check t_seq_max ({}), b_seq_comp \
                     ({}) and t_par_max2 ({})",
                    c.cores, c.comp_parallel, c.comp_alone, p.t_seq_max, p.b_seq_comp, p.t_par_max2
                ),
            });
        }
        if c.comp_parallel <= 0.0 {
            return Some(Problem {
                field: side.to_string(),
                value: String::new(),
                rule: format!(
                    "predicts no computation bandwidth at {} cores in parallel: the total T({}) = \
                     {:.1} MB/s (equation 1) does not exceed the communications' share {:.1} \
                     MB/s (alpha * b_seq_comm, equation 4); check t_par_max, delta_l, delta_r",
                    c.cores, c.cores, c.total, c.comm_parallel
                ),
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paper;
    use crate::Law;

    #[test]
    fn the_paper_models_meet_every_rule() {
        for name in paper::names() {
            let m = paper::model(name);
            assert!(m.problems().is_empty(), "{name}: {:?}", m.problems());
        }
    }

    fn henri() -> Params {
        paper::model("henri").local
    }

    fn fields(p: &Params) -> Vec<String> {
        meaning(p, "local", 18)
            .into_iter()
            .map(|p| p.field)
            .collect()
    }

    fn model_fields(m: &Model) -> Vec<String> {
        m.problems().into_iter().map(|p| p.field).collect()
    }

    #[test]
    fn each_rule_names_its_field() {
        let model = || paper::model("henri");
        let mut m = model();
        m.local.alpha = 0.0;
        m.local.b_seq_comm = -1.0;
        m.local.delta_l = -38.4; // allowed: the paper has a negative delta
        m.local.delta_r = f64::NAN;
        m.local.t_par_max = f64::INFINITY;
        m.remote.as_mut().unwrap().n_seq_max = 0;
        m.remote.as_mut().unwrap().n_par_max = 19;
        m.machine.numa_per_socket = 3;
        assert_eq!(
            model_fields(&m),
            [
                "machine.numa_per_socket",
                "local.t_par_max",
                "local.b_seq_comm",
                "local.delta_r",
                "local.alpha",
                "remote.n_par_max",
                "remote.n_seq_max",
            ]
        );
        let shown: Vec<String> = m.problems().iter().map(ToString::to_string).collect();
        assert_eq!(
            shown[1],
            "local.t_par_max = inf: a bandwidth must be a finite number (MB/s)"
        );
        assert_eq!(
            shown[5],
            "remote.n_par_max = 19: must not exceed machine.cores_per_socket (18)"
        );
        assert_eq!(shown[6], "remote.n_seq_max = 0: a core count must be >= 1");
        m = model();
        m.local.alpha = 1.0;
        assert!(m.problems().is_empty(), "alpha = 1 is allowed");
        m.local.alpha = 1.01;
        assert_eq!(model_fields(&m), ["local.alpha"]);
        m = model();
        m.schema_version = 2;
        assert_eq!(model_fields(&m), ["schema_version"]);
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
        let rules = meaning(&p, "local", 18);
        assert_eq!(rules.len(), 1, "{rules:?}");
        assert!(
            rules[0].rule.contains("no computation bandwidth"),
            "{rules:?}"
        );
        let mut p = henri();
        p.t_seq_max = 20_000.0;
        let rules = meaning(&p, "local", 18);
        assert!(rules[0].rule.contains("faster in parallel"), "{rules:?}");
    }

    #[test]
    fn kappa_and_the_variant_go_together_and_kappa_is_bounded() {
        let law = |k: Option<f64>| k.map_or(Law::Paper, |kappa| Law::CpuCopy { kappa });
        let cpu_copy = |k: Option<f64>| {
            let mut m = paper::model("henri");
            m.variant = Variant::CpuCopy;
            m.local.law = law(k);
            m.remote.as_mut().unwrap().law = law(k);
            m
        };
        assert!(cpu_copy(Some(0.3)).problems().is_empty());
        let shown =
            |m: &Model| -> Vec<String> { m.problems().iter().map(ToString::to_string).collect() };
        // A variant without its parameter, a parameter without its variant.
        let missing = shown(&cpu_copy(None));
        assert_eq!(missing.len(), 2, "{missing:?}");
        assert!(
            missing[0].starts_with("local.kappa: missing"),
            "{missing:?}"
        );
        let mut stray = paper::model("henri");
        stray.local.law = Law::CpuCopy { kappa: 0.3 };
        let stray = shown(&stray);
        assert!(
            stray[0].starts_with(
                "local.kappa = 0.3: only a model of communications that slow down steadily"
            ),
            "{stray:?}"
        );
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e4] {
            let p = shown(&cpu_copy(Some(bad)));
            assert!(
                p.iter()
                    .any(|p| p.starts_with("local.kappa") && p.contains("must be in (0, 1000]")),
                "{bad}: {p:?}"
            );
        }
    }

    /// A value out of range is named as typed, `1e308`, not in 309 digits (issue 46).
    #[test]
    fn a_huge_value_is_named_in_short_notation() {
        let mut m = paper::model("henri");
        m.variant = Variant::CpuCopy;
        m.local.law = Law::CpuCopy { kappa: 1e308 };
        m.remote.as_mut().unwrap().law = Law::CpuCopy { kappa: 0.3 };
        m.local.t_par_max = 1e308;
        let shown: Vec<String> = m.problems().iter().map(ToString::to_string).collect();
        for field in ["local.t_par_max = 1e308:", "local.kappa = 1e308:"] {
            assert!(
                shown.iter().any(|p| p.starts_with(field)),
                "{field}: {shown:?}"
            );
        }
        assert!(shown.iter().all(|p| p.len() < 300), "{shown:?}");
        let mut stray = paper::model("henri");
        stray.local.law = Law::CpuCopy { kappa: 1e308 };
        let stray: Vec<String> = stray.problems().iter().map(ToString::to_string).collect();
        assert!(
            stray[0].starts_with("local.kappa = 1e308: only"),
            "{stray:?}"
        );
    }
}
