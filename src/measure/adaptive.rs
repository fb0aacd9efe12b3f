//! The adaptive sweep (`measure --adaptive`): instead of every core count of the socket,
//! measure the ends and a coarse grid, fit the model (the global fit of `calibrate`) with its
//! bootstrap, then measure next the core count where the bootstrap's refitted models disagree
//! most, until every predicted bandwidth is pinned down within `--precision` or the
//! `--budget` is spent.
//!
//! Why it works: the model of one placement is two flat or straight pieces per curve joined
//! at the breakpoints `N_par^max` and `N_seq^max` (equations 1-6, section 3.2). Between
//! measured points the straight pieces are known; where a breakpoint may lie, the refits
//! place it differently and their predictions part. Measuring where they part most is
//! uncertainty sampling (Lewis and Gale, "A sequential algorithm for training text
//! classifiers", SIGIR 1994), with the bootstrap's refits as the committee (Seung, Opper and
//! Sompolinsky, "Query by committee", COLT 1992): it places points near the breakpoints and
//! leaves the flat stretches alone.
//!
//! The decisions are pure functions of a fit ([`Fitted`]); [`fit`] gets one from a trace
//! through the calibration API.

use crate::calibrate::{self, Method, Options};
use crate::dataset::Input;
use crate::error::{Error, Result};
use crate::model::bandwidth::curve;
use crate::model::Params;
use crate::trace::Trace;
use std::time::Duration;

/// What `--adaptive` is asked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdaptiveOptions {
    /// Stop once every predicted bandwidth's 95 % interval is within this relative
    /// half-width (`--precision 1` is 0.01).
    pub precision: f64,
    /// Stop before a point would take the measuring time past this (`--budget`).
    pub budget: Option<Duration>,
}

/// Bootstrap resamples of each fit: enough for the 2.5 and 97.5 percentiles of the refits'
/// predictions to settle to a few tenths of their width, few enough to refit in well under a
/// second per step.
pub(crate) const RESAMPLES: u32 = 40;

/// Points of the first grid, the ends included.
const GRID: u32 = 5;

/// The first points: both ends of the socket and a coarse grid between them, [`GRID`] in
/// all (every core count on a socket that small).
pub(crate) fn initial_points(cores_per_socket: u32) -> Vec<u32> {
    let cps = cores_per_socket.max(1);
    let k = GRID.min(cps);
    let mut v: Vec<u32> = (0..k)
        .map(|i| {
            if k == 1 {
                1
            } else {
                1 + ((cps - 1) as f64 * f64::from(i) / f64::from(k - 1)).round() as u32
            }
        })
        .collect();
    v.dedup();
    v
}

/// One side's fit and its bootstrap refits.
#[derive(Debug, Clone)]
pub(crate) struct Fitted {
    pub(crate) params: Params,
    pub(crate) refits: Vec<Params>,
    pub(crate) cores_per_socket: u32,
}

/// Fits the parameter set this trace's placement calibrates (a sample placement of section
/// 4.1.2: both data on one node), with [`RESAMPLES`] bootstrap refits seeded by `seed`.
///
/// The trace is fitted as the local side of a model (`calibrate --local-only`): which side
/// it is does not matter to where the curve is uncertain.
pub(crate) fn fit(trace: &Trace, seed: u64) -> Result<Fitted> {
    let mut t = trace.clone();
    t.config.comp_numa = 0;
    t.config.comm_numa = 0;
    let input = Input::from_trace(&t, "the adaptive sweep's trace")?;
    let opts = Options {
        numa_per_socket: Some(t.machine.numa_per_socket),
        numa_nodes: Some(t.machine.numa_nodes.len() as u32),
        cores_per_socket: Some(t.machine.cores_per_socket),
        local_only: true,
        method: Method::Fit,
        bootstrap: RESAMPLES,
        seed,
        ..Options::default()
    };
    let (calibrated, _notes) = calibrate::calibrate(&[input], &opts)?;
    let refits = calibrated
        .uncertainty
        .map(|u| u.replicates.iter().map(|r| r.local).collect())
        .unwrap_or_default();
    Ok(Fitted {
        params: calibrated.model.local,
        refits,
        cores_per_socket: t.machine.cores_per_socket,
    })
}

/// How much the refits disagree at one core count: the largest relative half-width of the
/// 95 % range of their predictions, over the bandwidths the placement measures, and which.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Spread {
    pub(crate) cores: u32,
    pub(crate) half_width: f64,
    pub(crate) quantity: &'static str,
}

/// One bandwidth of a point of a curve.
type Bandwidth = fn(&crate::model::bandwidth::CurvePoint) -> f64;
/// One parameter of a set.
type Parameter = fn(&Params) -> f64;

/// The refits' disagreement at every core count of the socket (equations 3, 4 and 6 of each
/// refit).
pub(crate) fn spreads(f: &Fitted) -> Vec<Spread> {
    let cps = f.cores_per_socket;
    let curves: Vec<_> = f.refits.iter().map(|p| curve(p, cps)).collect();
    let center = curve(&f.params, cps);
    (0..cps as usize)
        .map(|i| {
            let pick: [(&'static str, Bandwidth); 3] = [
                ("comp_alone", |c| c.comp_alone),
                ("comp_parallel", |c| c.comp_parallel),
                ("comm_parallel", |c| c.comm_parallel),
            ];
            let (quantity, half_width) = pick
                .iter()
                .map(|(name, get)| {
                    let mut v: Vec<f64> = curves.iter().map(|c| get(&c[i])).collect();
                    v.sort_by(f64::total_cmp);
                    let lo = crate::stats::quantile(&v, 0.025);
                    let hi = crate::stats::quantile(&v, 0.975);
                    let mid = get(&center[i]).abs().max(f64::MIN_POSITIVE);
                    (
                        *name,
                        if v.is_empty() {
                            0.0
                        } else {
                            (hi - lo) / 2.0 / mid
                        },
                    )
                })
                .fold(("", f64::MIN), |a, b| if b.1 > a.1 { b } else { a });
            Spread {
                cores: i as u32 + 1,
                half_width,
                quantity,
            }
        })
        .collect()
}

/// What to do next.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Decision {
    /// Measure this core count, for this reason.
    Measure { cores: u32, why: String },
    /// The campaign is over, for this reason.
    Done(String),
}

/// The next core count: the unmeasured one where the refits disagree most, or done when even
/// there they agree within `precision` (measuring it could not narrow anything beyond it),
/// or when every core count is measured.
pub(crate) fn decide(f: &Fitted, measured: &[u32], precision: f64) -> Decision {
    let all = spreads(f);
    let worst =
        all.iter()
            .filter(|s| !measured.contains(&s.cores))
            .fold(None::<Spread>, |best, s| match best {
                Some(b) if b.half_width >= s.half_width => Some(b),
                _ => Some(*s),
            });
    match worst {
        None => Decision::Done("every core count of the socket is measured".into()),
        Some(s) if s.half_width <= precision => Decision::Done(format!(
            "every predicted bandwidth is within +-{:.2}% (95% of the refits) where nothing is \
             measured, at most +-{:.2}% at {} cores; --precision is +-{:.2}%",
            100.0 * s.half_width,
            100.0 * s.half_width,
            s.cores,
            100.0 * precision
        )),
        Some(s) => Decision::Measure {
            cores: s.cores,
            why: format!(
                "the refits disagree most there: {} +-{:.2}% (95% of {} refits)",
                s.quantity,
                100.0 * s.half_width,
                f.refits.len()
            ),
        },
    }
}

/// What is still uncertain, for the progress line: the breakpoints as core ranges, and the
/// parameters whose 95 % range is widest relative to their value.
pub(crate) fn uncertain(f: &Fitted) -> String {
    if f.refits.is_empty() {
        return "no bootstrap refits".into();
    }
    let range = |get: Parameter| {
        let mut v: Vec<f64> = f.refits.iter().map(get).collect();
        v.sort_by(f64::total_cmp);
        (
            crate::stats::quantile(&v, 0.025),
            crate::stats::quantile(&v, 0.975),
        )
    };
    let cores = |name: &str, get: Parameter| {
        let (lo, hi) = range(get);
        if hi.round() > lo.round() {
            format!("{name} {:.0}..{:.0}", lo.round(), hi.round())
        } else {
            format!("{name} {:.0}", lo.round())
        }
    };
    let mut words = vec![
        cores("n_par_max", |p| f64::from(p.n_par_max)),
        cores("n_seq_max", |p| f64::from(p.n_seq_max)),
    ];
    let bandwidths: [(&str, Parameter); 4] = [
        ("t_par_max", |p| p.t_par_max),
        ("t_seq_max", |p| p.t_seq_max),
        ("alpha", |p| p.alpha),
        ("b_seq_comp", |p| p.b_seq_comp),
    ];
    for (name, get) in bandwidths {
        let (lo, hi) = range(get);
        let mid = get(&f.params).abs().max(f64::MIN_POSITIVE);
        words.push(format!("{name} +-{:.1}%", 50.0 * (hi - lo) / mid));
    }
    words.join(", ")
}

/// Refuses `--adaptive` where it cannot apply: a placement that is no sample placement (the
/// fit of one side needs both data on one node).
pub(crate) fn check_placement(comp_numa: u32, comm_numa: u32) -> Result<()> {
    if comp_numa != comm_numa {
        return Err(Error::Input(format!(
            "--adaptive --numa {comp_numa},{comm_numa}: the adaptive sweep fits the parameter \
             set of a sample placement, both data on one node (`--numa 0,0`, or `M,M` with M \
             the first node of another socket); measure {comp_numa},{comm_numa} with a full \
             sweep"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_points_are_the_ends_and_a_coarse_grid() {
        assert_eq!(initial_points(18), [1, 5, 10, 14, 18]);
        assert_eq!(initial_points(64), [1, 17, 33, 48, 64]);
        assert_eq!(initial_points(3), [1, 2, 3]);
        assert_eq!(initial_points(1), [1]);
    }

    fn henri() -> Params {
        crate::model::paper::model("henri").local
    }

    /// Refits that agree everywhere but on where `T(n)` starts falling by 800 MB/s per core:
    /// `n_par_max` 10 or 14.
    fn fitted(measured_everywhere: bool) -> Fitted {
        let p = Params {
            delta_l: 800.0,
            ..henri()
        };
        let moved = |n| Params { n_par_max: n, ..p };
        let refits = if measured_everywhere {
            vec![p; 20]
        } else {
            (0..20)
                .map(|i| moved(if i % 2 == 0 { 10 } else { 14 }))
                .collect()
        };
        Fitted {
            params: p,
            refits,
            cores_per_socket: 18,
        }
    }

    #[test]
    fn the_next_point_is_where_the_refits_disagree_and_done_when_they_agree() {
        let f = fitted(false);
        let measured = initial_points(18);
        let Decision::Measure { cores, why } = decide(&f, &measured, 0.01) else {
            panic!("nothing to measure")
        };
        // Between the two breakpoints the refits part; outside they agree.
        assert!(
            (11..=17).contains(&cores) && !measured.contains(&cores),
            "{cores}"
        );
        assert!(why.contains("refits disagree most"), "{why}");
        assert!(
            uncertain(&f).contains("n_par_max 10..14"),
            "{}",
            uncertain(&f)
        );

        let agree = fitted(true);
        let Decision::Done(why) = decide(&agree, &measured, 0.01) else {
            panic!("refits that agree leave nothing to measure")
        };
        assert!(why.contains("within"), "{why}");
        let all: Vec<u32> = (1..=18).collect();
        assert!(matches!(decide(&f, &all, 0.0), Decision::Done(w) if w.contains("every core")));
    }

    #[test]
    fn only_sample_placements_are_adaptive() {
        assert!(check_placement(1, 1).is_ok());
        let e = check_placement(0, 1).unwrap_err().to_string();
        assert!(
            e.contains("--numa 0,1") && e.contains("both data on one node"),
            "{e}"
        );
    }
}
