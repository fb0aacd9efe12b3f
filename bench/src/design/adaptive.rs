//! The adaptive sweep (`measure --adaptive`): instead of every core count of the socket,
//! measure the ends and a coarse grid, fit the model (the global fit of `calibrate`) and refit
//! it on the points perturbed by their own scatter, then measure next the core count whose
//! measurement would most narrow the refitted models' disagreement summed over the whole
//! socket, until every
//! predicted bandwidth is pinned down within `--precision` or the `--budget` is spent.
//!
//! Why it works: the model of one placement is two flat or straight pieces per curve joined
//! at the breakpoints `N_par^max` and `N_seq^max` (equations 1-6, section 3.2). Between
//! measured points the straight pieces are known; where a breakpoint may lie, the refits
//! place it differently and their predictions part. The refits are the committee of query by
//! committee (Seung, Opper and Sompolinsky, "Query by committee", COLT 1992); a point is
//! worth what it would narrow of their disagreement everywhere, the integrated variance the
//! error against the truth averages (Cohn, "Active learning with statistical models", JAIR
//! 4, 1996), rather than the disagreement at that point alone (`gains`): it places points
//! near the breakpoints and leaves the flat stretches alone.
//!
//! What it cannot do: each phase's run is off by its own level (a few tenths of a percent)
//! and by what its correlated rounds leave, which no refit of its samples sees, so every
//! point carries an error of its own and a third of the points fits the straight pieces less
//! well than all of them. On the simulated paper machines of 16 to 18 cores a third of the
//! full sweep is 4 to 6 points, hardly more than the first grid, and on four of them no choice
//! of so few core counts, even one made knowing the truth, gets within 10 % of the full
//! sweep's error; where a third is 10 points, evenly spread ones do as well as points around
//! the breakpoints or better (`cargo bench --bench adaptive` with `ADAPTIVE_BENCH_MODE=oracle`).
//!
//! The decisions are pure functions of a fit (`Fitted`); `fit` gets one from a trace
//! through the calibration API.

use crate::calibrate::{self, Method, Options};
use crate::dataset::Input;
use crate::error::Result;
use crate::measure::adaptive::{AdaptiveOptions, Design, NextPoint};
use crate::model::bandwidth::curve;
use crate::model::Params;
use crate::trace::{AdaptiveChoice, AdaptiveLog, Trace};
use std::time::Duration;

/// The design `measure --adaptive` uses: the committee of refits below.
pub struct Adaptive;

/// The one instance, for [`AdaptiveOptions::design`].
pub static ADAPTIVE: Adaptive = Adaptive;

impl Design for Adaptive {
    fn start(
        &self,
        trace: &mut Trace,
        options: AdaptiveOptions,
        candidates: Vec<u32>,
        seed: u64,
    ) -> (Box<dyn NextPoint>, Option<String>) {
        let (chooser, line) = Chooser::start(trace, options, candidates, seed);
        (Box::new(chooser), line)
    }

    fn describe(&self, options: &AdaptiveOptions, candidates: &[u32]) -> String {
        describe(options, candidates)
    }
}

/// Refits of each fit: enough for the 2.5 and 97.5 percentiles of their predictions to
/// settle to a few tenths of their width, few enough to refit in well under a second per step.
pub(crate) const RESAMPLES: u32 = 40;

/// The fewest successful refits a precision is claimed on: below 20 values the 2.5 and
/// 97.5 percentiles are the extremes or interpolated against them (`0.025 * (20 - 1)` is
/// under one step), and with more than half of [`RESAMPLES`] failed the refits left are
/// those the perturbation did not defeat, not the fit's scatter. With fewer, [`decide`]
/// claims nothing and measures on in order.
pub(crate) const MIN_REFITS: usize = 20;

/// Points of the first grid, the ends included.
const GRID: u32 = 5;

/// The first points: both ends of the socket and a coarse grid between them, [`GRID`] in
/// all (every core count on a socket that small).
pub(crate) fn initial_points(cores_per_socket: u32) -> Vec<u32> {
    evenly_spaced(cores_per_socket, GRID)
}

/// `k` core counts of `1..=cores_per_socket` evenly spaced, both ends included (all of them
/// when the socket has `k` or fewer; `1` alone for `k` of 1 or 0).
pub fn evenly_spaced(cores_per_socket: u32, k: u32) -> Vec<u32> {
    let cps = cores_per_socket.max(1);
    let k = k.clamp(1, cps);
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

/// One side's fit and its refits ([`fit`]).
#[derive(Debug, Clone)]
pub(crate) struct Fitted {
    pub(crate) params: Params,
    pub(crate) refits: Vec<Params>,
    /// Why each refit that failed did (the perturbed points defeated the fit): said with
    /// every decision, since the refits that remain are the spread it rests on.
    pub(crate) failed: Vec<String>,
    pub(crate) cores_per_socket: u32,
    /// How far one measured point's bandwidths are off the fit, relative (root mean square
    /// of the residuals): what a new point's measurement is worth against the refits'
    /// disagreement in [`gains`].
    pub(crate) noise: f64,
}

/// Fits the parameter set this trace's placement calibrates (a sample placement of section
/// 4.1.2: both data on one node), and [`RESAMPLES`] refits of the points perturbed by their
/// own noise ([`perturbed`]), seeded by `seed`.
///
/// The trace is fitted as the local side of a model (`calibrate --local-only`): which side
/// it is does not matter to where the curve is uncertain.
///
/// Why not `calibrate`'s bootstrap: it resamples the samples within each phase, so its refits
/// see neither the level each phase's run is off by nor most of what its correlated rounds
/// leave, which is most of a point's error; refitted on points only that scattered, the
/// straight pieces look pinned down after the first grid and every point goes to the
/// breakpoints. Perturbing each point by the scatter the fit's residuals show (a
/// perturbation bootstrap: Efron and Tibshirani, *An Introduction to the Bootstrap*, 1993,
/// section 9.5) lets the refits part wherever few points hold a piece.
pub(crate) fn fit(trace: &Trace, seed: u64) -> Result<Fitted> {
    let mut t = trace.clone();
    t.config.comp_numa = 0;
    t.config.comm_numa = 0;
    // The refits need the medians only.
    for p in &mut t.points {
        for phase in p.phases_mut() {
            phase.samples.clear();
        }
    }
    let params = fit_params(&t)?;
    let noise = residual_noise(&params, &t);
    let mut rng = crate::simulate::Rng::new(seed);
    let (mut refits, mut failed) = (Vec::new(), Vec::new());
    for _ in 0..RESAMPLES {
        match fit_params(&perturbed(&t, noise, &mut rng)) {
            Ok(p) => refits.push(p),
            Err(e) => failed.push(e.to_string()),
        }
    }
    Ok(Fitted {
        params,
        refits,
        failed,
        cores_per_socket: t.machine.cores_per_socket,
        noise,
    })
}

/// The global fit of one sample placement's trace (`calibrate --local-only --method fit`),
/// of the law its transport gives: every refit of the design is of one law, so that their
/// disagreement is the data's, not a change of law between resamples.
fn fit_params(t: &Trace) -> Result<Params> {
    let input = Input::from_trace(t, "the adaptive sweep's trace")?;
    let opts = Options {
        transport_law: true,
        numa_per_socket: Some(t.machine.numa_per_socket),
        numa_nodes: Some(t.machine.numa_nodes.len() as u32),
        cores_per_socket: Some(t.machine.cores_per_socket),
        local_only: true,
        method: Method::Fit,
        ..Options::default()
    };
    Ok(calibrate::calibrate(&[input], &opts)?.0.model.local)
}

/// `t` with every phase off by a relative `noise` drawn anew (log-normal, so that
/// no bandwidth turns negative): a point as another run of it could have measured.
fn perturbed(t: &Trace, noise: f64, rng: &mut crate::simulate::Rng) -> Trace {
    let mut t = t.clone();
    for p in &mut t.points {
        for phase in p.phases_mut() {
            // The whole phase moves, as another run's level would move it: a median moved
            // alone left its extremes and interval behind, which every reader refuses.
            let f = (noise * rng.normal()).exp();
            let s = &mut phase.summary;
            for v in [
                &mut s.median,
                &mut s.mean,
                &mut s.stddev,
                &mut s.min,
                &mut s.max,
            ] {
                *v *= f;
            }
            phase.ci95 = phase.ci95.map(|(lo, hi)| (lo * f, hi * f));
            for x in &mut phase.samples {
                x.mbps *= f;
            }
        }
    }
    t
}

/// The root mean square relative residual of the trace's points against `params` (the
/// bandwidths [`spreads`] weighs), at least [`MIN_NOISE`]: a fit through every point says
/// nothing of the noise.
fn residual_noise(params: &Params, t: &Trace) -> f64 {
    let c = curve(params, t.machine.cores_per_socket);
    let mut squares = Vec::new();
    for p in &t.points {
        let Some(at) = c.get(p.cores as usize - 1) else {
            continue;
        };
        for (measured, model) in [
            (p.comp_alone.summary.median, at.comp_alone),
            (p.comp_parallel.summary.median, at.comp_parallel),
            (p.comm_parallel.summary.median, at.comm_parallel),
        ] {
            if model > 0.0 && measured.is_finite() {
                squares.push((measured / model - 1.0).powi(2));
            }
        }
    }
    let rms = (squares.iter().sum::<f64>() / squares.len().max(1) as f64).sqrt();
    rms.max(MIN_NOISE)
}

/// The smallest noise [`residual_noise`] reports: a phase's level is off by a few tenths of a
/// percent from run to run on a real node (`simulate::Noise::TYPICAL`'s jitter).
const MIN_NOISE: f64 = 0.002;

/// How much the refits disagree at one core count: the largest relative half-width of the
/// 95 % range of their predictions, over the bandwidths the placement measures, and which.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Spread {
    pub(crate) cores: u32,
    pub(crate) half_width: f64,
    pub(crate) quantity: &'static str,
}

/// One bandwidth of a point of a curve.
type Bandwidth = fn(&crate::model::total::CurvePoint) -> f64;
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

/// What measuring each core count would narrow: the expected drop of the refits' variance
/// summed over every core count of the socket and the three bandwidths of [`spreads`]
/// (relative to the fit), the integral the MAPE against the truth measures, not the variance
/// at the measured point alone. This is Cohn's criterion ("Active learning with statistical
/// models", JAIR 4, 1996: choose the query that most lowers the learner's integrated
/// variance), with the refits as the ensemble of an ensemble Kalman update (Evensen, *Data
/// Assimilation*, 2nd ed., section 9.2): a measurement `z` of the three bandwidths at `c`,
/// each off by [`Fitted::noise`], lowers the variance of every prediction `y` by
/// `Cov(y, z) (Cov(z) + noise^2 I)^-1 Cov(z, y)`. A point where the refits part but which
/// tells nothing of the others (the curve is pinned down around it) gains less than one
/// whose value moves a breakpoint, and with it a whole stretch of the curve.
///
/// One value per core count `1..=cores_per_socket`; 0 without refits.
pub(crate) fn gains(f: &Fitted) -> Vec<f64> {
    let cps = f.cores_per_socket as usize;
    let r = f.refits.len();
    if r < 2 {
        return vec![0.0; cps];
    }
    let center = curve(&f.params, f.cores_per_socket);
    let pick: [Bandwidth; 3] = [|c| c.comp_alone, |c| c.comp_parallel, |c| c.comm_parallel];
    // deviations[refit][core * 3 + quantity]: each refit's relative prediction, centred on
    // the refits' mean.
    let mut dev: Vec<Vec<f64>> = f
        .refits
        .iter()
        .map(|p| {
            let c = curve(p, f.cores_per_socket);
            (0..cps)
                .flat_map(|i| {
                    pick.iter().map({
                        let (c, center) = (&c, &center);
                        move |get| get(&c[i]) / get(&center[i]).abs().max(f64::MIN_POSITIVE)
                    })
                })
                .collect()
        })
        .collect();
    let m = 3 * cps;
    for j in 0..m {
        let mean = dev.iter().map(|d| d[j]).sum::<f64>() / r as f64;
        for d in &mut dev {
            d[j] -= mean;
        }
    }
    let scale = 1.0 / (r - 1) as f64;
    let noise2 = f.noise * f.noise;
    (0..cps)
        .map(|c| {
            let z = [3 * c, 3 * c + 1, 3 * c + 2];
            // Cov(z) + noise^2 I, and Cov(z, y) for every prediction y.
            let mut a = [[0.0; 3]; 3];
            for (i, &zi) in z.iter().enumerate() {
                for (k, &zk) in z.iter().enumerate() {
                    a[i][k] = scale * dev.iter().map(|d| d[zi] * d[zk]).sum::<f64>();
                }
                a[i][i] += noise2;
            }
            let Some(inv) = inverse3(&a) else {
                return 0.0;
            };
            (0..m)
                .map(|j| {
                    let g: [f64; 3] =
                        z.map(|zi| scale * dev.iter().map(|d| d[zi] * d[j]).sum::<f64>());
                    (0..3)
                        .map(|i| g[i] * (0..3).map(|k| inv[i][k] * g[k]).sum::<f64>())
                        .sum::<f64>()
                })
                .sum()
        })
        .collect()
}

/// The inverse of a 3 x 3 matrix by its adjugate; `None` when it is singular.
fn inverse3(a: &[[f64; 3]; 3]) -> Option<[[f64; 3]; 3]> {
    let cof = |i: usize, j: usize| {
        let (r0, r1) = ((i + 1) % 3, (i + 2) % 3);
        let (c0, c1) = ((j + 1) % 3, (j + 2) % 3);
        a[r0][c0] * a[r1][c1] - a[r0][c1] * a[r1][c0]
    };
    let det: f64 = (0..3).map(|j| a[0][j] * cof(0, j)).sum();
    if !det.is_normal() {
        return None;
    }
    let mut inv = [[0.0; 3]; 3];
    for (i, row) in inv.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            // The adjugate is the transposed cofactor matrix.
            *v = cof(j, i) / det;
        }
    }
    Some(inv)
}

/// What to do next.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Decision {
    /// Measure this core count, for this reason.
    Measure { cores: u32, why: String },
    /// The campaign is over, for this reason.
    Done(String),
}

/// The next core count: the unmeasured one whose measurement would most narrow the refits'
/// disagreement over the whole socket ([`gains`]); or done when, wherever nothing is
/// measured, the refits agree within `precision` (measuring there could not narrow anything
/// beyond it), or when every core count is measured.
pub(crate) fn decide(f: &Fitted, measured: &[u32], precision: f64) -> Decision {
    let unmeasured = |n: u32| !measured.contains(&n);
    if f.refits.len() < MIN_REFITS {
        return match (1..=f.cores_per_socket).find(|&n| unmeasured(n)) {
            None => Decision::Done("every core count of the socket is measured".into()),
            Some(cores) => Decision::Measure {
                cores,
                why: format!(
                    "the fit has only {} (fewer than the {MIN_REFITS} a 95% range needs), so \
                     the precision is not known yet: the next core count of the full sweep",
                    refits_said(f)
                ),
            },
        };
    }
    let all = spreads(f);
    let worst =
        all.iter()
            .filter(|s| unmeasured(s.cores))
            .fold(None::<Spread>, |best, s| match best {
                Some(b) if b.half_width >= s.half_width => Some(b),
                _ => Some(*s),
            });
    match worst {
        None => Decision::Done("every core count of the socket is measured".into()),
        Some(s) if s.half_width <= precision => Decision::Done(format!(
            "every predicted bandwidth is within +-{:.2}% (95% of {}) where nothing is \
             measured, at most +-{:.2}% at {} cores; --precision is +-{:.2}%",
            100.0 * s.half_width,
            refits_said(f),
            100.0 * s.half_width,
            s.cores,
            100.0 * precision
        )),
        Some(s) => {
            let gain = gains(f);
            let total: f64 = (1..=f.cores_per_socket)
                .filter(|&n| unmeasured(n))
                .map(|n| gain[n as usize - 1])
                .sum::<f64>()
                .max(f64::MIN_POSITIVE);
            // Ties (refits that agree where they could be moved) go to where
            // they disagree most.
            let best = (1..=f.cores_per_socket)
                .filter(|&n| unmeasured(n))
                .map(|n| (n, gain[n as usize - 1]))
                .fold((s.cores, gain[s.cores as usize - 1]), |b, c| {
                    if c.1 > b.1 {
                        c
                    } else {
                        b
                    }
                });
            let at = all[best.0 as usize - 1];
            Decision::Measure {
                cores: best.0,
                why: format!(
                    "measuring it narrows the refits' disagreement over the whole socket most \
                     ({:.0}% of what all unmeasured core counts would); there {} +-{:.2}% (95% \
                     of {})",
                    100.0 * best.1 / total,
                    at.quantity,
                    100.0 * at.half_width,
                    refits_said(f)
                ),
            }
        }
    }
}

/// The refits a decision rests on, for its line: `40 refits`, or with failures
/// `38 of 40 refits, 2 failed: WHY` (the first failure's reason).
fn refits_said(f: &Fitted) -> String {
    let ok = f.refits.len();
    match f.failed.first() {
        None => format!("{ok} refits"),
        Some(why) => format!(
            "{ok} of {} refits, {} failed: {why}",
            ok + f.failed.len(),
            f.failed.len()
        ),
    }
}

/// What is still uncertain, for the progress line: the breakpoints as core ranges, and the
/// parameters whose 95 % range is widest relative to their value; unknown with fewer than
/// [`MIN_REFITS`] refits.
pub(crate) fn uncertain(f: &Fitted) -> String {
    if f.refits.len() < MIN_REFITS {
        return format!("unknown, the fit has only {}", refits_said(f));
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
        cores(Params::NAMES[Params::N_PAR_MAX], |p| f64::from(p.n_par_max)),
        cores(Params::NAMES[Params::N_SEQ_MAX], |p| f64::from(p.n_seq_max)),
    ];
    let bandwidths: [(&str, Parameter); 4] = [
        (Params::NAMES[Params::T_PAR_MAX], |p| p.t_par_max),
        (Params::NAMES[Params::T_SEQ_MAX], |p| p.t_seq_max),
        (Params::NAMES[Params::ALPHA], |p| p.alpha),
        (Params::NAMES[Params::B_SEQ_COMP], |p| p.b_seq_comp),
    ];
    for (name, get) in bandwidths {
        let (lo, hi) = range(get);
        let mid = get(&f.params).abs().max(f64::MIN_POSITIVE);
        words.push(format!("{name} +-{:.1}%", 50.0 * (hi - lo) / mid));
    }
    words.join(", ")
}

/// The core counts an adaptive sweep starts with, of those it may measure (`candidates`,
/// ascending): the ends and a coarse grid of [`initial_points`], those `trace` lacks, in
/// order.
pub(crate) fn first_points(trace: &Trace, candidates: &[u32]) -> Vec<u32> {
    let max = candidates.iter().copied().max().unwrap_or(1);
    let grid: Vec<u32> = initial_points(max)
        .into_iter()
        .filter(|n| candidates.contains(n))
        .collect();
    trace.missing_cores(&grid)
}

/// What the points of `trace` took to measure, in seconds, as far as the trace tells: each
/// point's samples end no earlier than its last phase's steady window, on one clock from the
/// point's start, so their latest end is what the point took (less its last few
/// iterations); a simulated trace also records its own measuring time, and the larger is
/// taken. A point without samples counts as the plan's longest point
/// ([`crate::measure::session::point_seconds`]), not as free.
pub(crate) fn measured_seconds(trace: &Trace) -> f64 {
    let unknown = crate::measure::session::point_seconds(&trace.config);
    let from_points: f64 = trace
        .points
        .iter()
        .map(|p| {
            let end = p
                .phases()
                .iter()
                .flat_map(|phase| phase.samples.iter().map(|s| s.end))
                .filter(|e| e.is_finite())
                .fold(0.0, f64::max);
            if end > 0.0 {
                end
            } else {
                unknown
            }
        })
        .sum();
    let recorded = trace
        .simulation
        .as_ref()
        .map_or(0.0, |s| s.measuring_seconds);
    from_points.max(recorded)
}

/// Why the first points are measured, for the trace.
pub(crate) const FIRST_WHY: &str = "the ends and a coarse grid";

/// What an adaptive sweep does after its first points, from what `trace` holds: the one
/// decision both the simulated and the real sweep take. `spent` is the measuring time so far
/// (what the trace held when the sweep began, [`measured_seconds`], and each point since)
/// and `per_point` what the next point is expected to take, both against `--budget`; `fit`
/// fits the trace's points ([`fit`], or a fake in the tests). Every ending it gives says
/// whether the measuring time went past the budget, and by how much.
fn next_step(
    trace: &Trace,
    candidates: &[u32],
    a: &AdaptiveOptions,
    spent: f64,
    per_point: f64,
    fit: impl FnOnce(&Trace) -> Result<Fitted>,
) -> Decision {
    let measured: Vec<u32> = trace.points.iter().map(|p| p.cores).collect();
    let left = trace.missing_cores(candidates);
    let overrun = over_budget(a, spent);
    let Some(&next_in_order) = left.first() else {
        let why = if candidates.len() <= GRID as usize {
            format!(
                "done: every core count of the sweep is measured: {} are no more than the first \
                     grid, so the adaptive sweep is the full sweep here",
                crate::cores::CoreList::from_counts(candidates)
            )
        } else {
            "done: every core count of the sweep is measured".into()
        };
        return Decision::Done(match overrun {
            Some(o) => format!("{why}; {o}"),
            None => why,
        });
    };
    let (decision, still) = match fit(trace) {
        Ok(fitted) => {
            // Core counts outside the sweep are never chosen.
            let mut excluded = measured;
            excluded.extend((1..=fitted.cores_per_socket).filter(|n| !candidates.contains(n)));
            (
                decide(&fitted, &excluded, a.precision),
                format!("still uncertain: {}", uncertain(&fitted)),
            )
        }
        // Noisy or odd points can defeat the fit; the sweep goes on in order rather than
        // stop with a model it cannot trust.
        Err(e) => (
            Decision::Measure {
                cores: next_in_order,
                why: format!(
                    "the fit of the points so far failed ({e}): the next core count of the \
                     full sweep"
                ),
            },
            "nothing is known of the fit yet".into(),
        ),
    };
    match decision {
        // The first grid is measured whatever the budget (the fit needs it), and a point can
        // take longer than the mean: say so rather than let `done` read as within budget.
        Decision::Done(why) => Decision::Done(match overrun {
            Some(o) => format!("done: {why}; {o}"),
            None => format!("done: {why}"),
        }),
        Decision::Measure { cores, why } => match a.budget.map(|b| b.as_secs_f64()) {
            Some(b) if spent > b => Decision::Done(format!(
                "stopped: the measuring time, {}, is already past the budget of {}, by {}; \
                 {still}",
                seconds(spent),
                seconds(b),
                seconds(spent - b)
            )),
            Some(b) if spent + per_point > b => Decision::Done(format!(
                "stopped: the next point ({cores} cores, about {}) would take the measuring \
                 time, {}, past the budget of {}; {still}",
                seconds(per_point),
                seconds(spent),
                seconds(b)
            )),
            _ => Decision::Measure {
                cores,
                why: format!("{why}; {still}"),
            },
        },
    }
}

/// How far the measuring time `spent` went past `a`'s budget, for an ending line; `None`
/// within it or without one.
fn over_budget(a: &AdaptiveOptions, spent: f64) -> Option<String> {
    let b = a.budget?.as_secs_f64();
    (spent > b).then(|| {
        format!(
            "the measuring time, {}, went past the budget of {} by {}",
            seconds(spent),
            seconds(b),
            seconds(spent - b)
        )
    })
}

/// A measuring time or budget for the adaptive sweep's lines: to the tenth under 10 s, where
/// a second is much of a point (`0.7 s`, `3.5 s`, `3 s`), else as [`crate::units::human_seconds`].
fn seconds(s: f64) -> String {
    let tenths = (s * 10.0).round() / 10.0;
    if tenths < 10.0 && tenths.fract() != 0.0 {
        format!("{tenths:.1} s")
    } else {
        crate::units::human_seconds(s)
    }
}

/// Starts (or, resumed, continues) the trace's record of the adaptive sweep with what it is
/// asked now. A choice whose point was never finished (an interruption) is dropped: the
/// record lists measured points only, each once (a hand-edited trace could repeat one).
pub(crate) fn start_log(trace: &mut Trace, a: &AdaptiveOptions) {
    let measured: Vec<u32> = trace.points.iter().map(|p| p.cores).collect();
    let mut choices = trace.adaptive.take().map(|l| l.choices).unwrap_or_default();
    let mut kept = Vec::new();
    choices.retain(|c| {
        let first = measured.contains(&c.cores) && !kept.contains(&c.cores);
        kept.push(c.cores);
        first
    });
    // Points of a trace begun as a full sweep, in the order the trace keeps them.
    for n in &measured {
        if !choices.iter().any(|c| c.cores == *n) {
            choices.push(AdaptiveChoice {
                cores: *n,
                why: "measured before the adaptive sweep began".into(),
            });
        }
    }
    trace.adaptive = Some(AdaptiveLog {
        precision: a.precision,
        budget_seconds: a.budget.map(|b| b.as_secs_f64()),
        choices,
        ended: None,
    });
}

/// Records that `cores` is measured next, and why; the trace now asks for it.
pub(crate) fn log_choice(trace: &mut Trace, cores: u32, why: &str) {
    if !trace.config.cores.contains(&cores) {
        trace.config.cores.push(cores);
        trace.config.cores.sort_unstable();
    }
    if let Some(l) = trace.adaptive.as_mut() {
        l.choices.push(AdaptiveChoice {
            cores,
            why: why.into(),
        });
    }
}

/// Records why the sweep ended.
pub(crate) fn log_end(trace: &mut Trace, why: &str) {
    if let Some(l) = trace.adaptive.as_mut() {
        l.ended = Some(why.into());
    }
}

/// An adaptive sweep under way: the one loop both the simulated and the real sweep run,
/// point after point. [`Chooser::next`] says which core count comes next (the first grid,
/// then `next_step`) and records each choice in the trace; the caller measures it and
/// reports the time it took with [`Chooser::measured`].
pub(crate) struct Chooser {
    options: AdaptiveOptions,
    candidates: Vec<u32>,
    seed: u64,
    /// How the points are fitted: [`fit`], a fake in the unit tests.
    fit: fn(&Trace, u64) -> Result<Fitted>,
    first: std::collections::VecDeque<u32>,
    /// Seconds of measuring so far: what the trace held when the sweep began (a resumed
    /// trace's points count against the budget too) and each point since.
    spent: f64,
    /// The points `spent` is of.
    points: usize,
    /// What a point is expected to take before any is measured: the plan's longest.
    unknown: f64,
}

impl Chooser {
    /// Starts the sweep over `candidates` (the core counts it may measure) on `trace`,
    /// fresh or resumed, whose `config.cores` it sets to what is measured and the first grid;
    /// returns the line that says which points come first, if any.
    pub(crate) fn start(
        trace: &mut Trace,
        options: AdaptiveOptions,
        candidates: Vec<u32>,
        seed: u64,
    ) -> (Chooser, Option<String>) {
        start_log(trace, &options);
        let first = first_points(trace, &candidates);
        // The trace asks for the points measured so far and the first grid, so that it is
        // incomplete until the grid is measured; each later choice is added when chosen.
        let mut cores: Vec<u32> = trace.points.iter().map(|p| p.cores).collect();
        cores.extend(&first);
        cores.sort_unstable();
        cores.dedup();
        trace.config.cores = cores;
        let chooser = Chooser {
            options,
            candidates,
            seed,
            fit,
            first: first.into(),
            spent: measured_seconds(trace),
            points: trace.points.len(),
            unknown: crate::measure::session::point_seconds(&trace.config),
        };
        let line = chooser.first_line();
        (chooser, line)
    }

    /// What a point is expected to take: the mean of those measured, or the plan's longest
    /// before any is.
    fn per_point(&self) -> f64 {
        if self.points == 0 {
            self.unknown
        } else {
            self.spent / self.points as f64
        }
    }

    /// The line that says which points come first, if any, and, when they are expected to
    /// take the measuring time past the budget, that they are measured all the same (the fit
    /// needs them) and how far past it they may take it: said before, not only after.
    fn first_line(&self) -> Option<String> {
        if self.first.is_empty() {
            return None;
        }
        let first: Vec<u32> = self.first.iter().copied().collect();
        let mut line = format!(
            "first {} ({FIRST_WHY})",
            crate::cores::CoreList::from_counts(&first)
        );
        let Some(b) = self.options.budget.map(|b| b.as_secs_f64()) else {
            return Some(line);
        };
        let each = self.per_point();
        let expected = self.spent + each * first.len() as f64;
        let grid = "the fit needs them, so they are measured whatever the budget";
        if self.spent > b {
            line += &format!(
                "; {grid}, though the trace's measuring time, {}, is already past the budget \
                 of {}",
                seconds(self.spent),
                seconds(b)
            );
        } else if expected > b {
            let estimate = if self.points == 0 {
                format!("up to {} each, the plan's longest point", seconds(each))
            } else {
                format!("about {} each, as the trace's points", seconds(each))
            };
            line += &format!(
                "; {grid}, and they may take the measuring time to {} ({estimate}), past the \
                 budget of {}",
                seconds(expected),
                seconds(b)
            );
        }
        Some(line)
    }
}

impl NextPoint for Chooser {
    /// The next core count, recorded in `trace` with why, and the line that says why (none
    /// for a point of the first grid, said at the start); or `None` when the sweep is over,
    /// its reason recorded, and the line that says it.
    fn next(&mut self, trace: &mut Trace) -> (Option<u32>, Option<String>) {
        if let Some(n) = self.first.pop_front() {
            log_choice(trace, n, FIRST_WHY);
            return (Some(n), None);
        }
        let (fit, seed) = (self.fit, self.seed);
        let step = next_step(
            trace,
            &self.candidates,
            &self.options,
            self.spent,
            self.per_point(),
            |t| fit(t, seed),
        );
        match step {
            Decision::Measure { cores, why } => {
                log_choice(trace, cores, &why);
                (Some(cores), Some(format!("next {cores} cores: {why}")))
            }
            Decision::Done(why) => {
                log_end(trace, &why);
                (None, Some(why))
            }
        }
    }

    /// The point just chosen took `took` to measure.
    fn measured(&mut self, took: Duration) {
        self.spent += took.as_secs_f64();
        self.points += 1;
    }
}

/// The plan's lines of an adaptive sweep over `candidates` (the core counts it may measure):
/// where it starts, how it goes on, when it stops; or, when the first grid is every one of
/// them, that it is the full sweep.
pub(crate) fn describe(a: &AdaptiveOptions, candidates: &[u32]) -> String {
    let all = crate::cores::CoreList::from_counts(candidates);
    let max = candidates.iter().copied().max().unwrap_or(1);
    let first: Vec<u32> = initial_points(max)
        .into_iter()
        .filter(|n| candidates.contains(n))
        .collect();
    if first.len() == candidates.len() {
        return format!(
            "adaptive    the full sweep here: the first grid (the ends and a coarse grid) is \
             already every core count, {all}; the model needs two or three points on each side \
             of a breakpoint, so nothing is left to choose on a socket this small\n"
        );
    }
    let budget = a.budget.map_or(String::new(), |b| {
        format!(
            " or once the next point would take the measuring time (a resumed trace's points \
             included) past {} (the first grid is measured whatever the budget)",
            crate::units::human_seconds(b.as_secs_f64())
        )
    });
    format!(
        "adaptive    first {} (the ends and a coarse grid); then, after a fit with {} \
         refits of the points perturbed by their scatter, the core count whose measurement \
         would most narrow the refits' \
         disagreement summed over every core count (near the breakpoints N_par^max, \
         N_seq^max); until every predicted bandwidth is within +-{:.2}% where nothing is \
         measured{budget}; at most {} points ({all})\n",
        crate::cores::CoreList::from_counts(&first),
        RESAMPLES,
        100.0 * a.precision,
        candidates.len(),
    )
}

#[cfg(test)]
mod tests {
    use crate::design::adaptive::*;
    use crate::measure::adaptive::{check_placement, NextPoint};

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
            failed: Vec::new(),
            cores_per_socket: 18,
            noise: 0.004,
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
        assert!(why.contains("narrows the refits' disagreement"), "{why}");
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

    /// A recorded trace whose points are at `cores` (each a copy of its first point).
    fn trace_at(cores: &[u32]) -> Trace {
        let t = crate::io::trace_file::read(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../tests/data/traces/vm-local.json"),
        )
        .unwrap();
        let p = t.points[0].clone();
        Trace {
            points: cores
                .iter()
                .map(|&cores| crate::trace::TracePoint { cores, ..p.clone() })
                .collect(),
            adaptive: None,
            ..t
        }
    }

    fn options(precision: f64, budget: Option<u64>) -> AdaptiveOptions {
        AdaptiveOptions {
            precision,
            budget: budget.map(Duration::from_secs),
            design: &ADAPTIVE,
        }
    }

    /// Runs `chooser` on `trace` as a sweep does, each point taking 2 s, until it stops;
    /// returns the lines it said.
    fn drive(chooser: &mut Chooser, trace: &mut Trace) -> Vec<String> {
        let mut said = Vec::new();
        loop {
            let (next, line) = chooser.next(trace);
            said.extend(line);
            let Some(n) = next else { return said };
            assert!(trace.missing_cores(&[n]) == [n], "{n} measured twice");
            trace.points.push(trace_at(&[n]).points.remove(0));
            chooser.measured(Duration::from_secs(2));
        }
    }

    #[test]
    fn the_chooser_measures_the_first_grid_then_where_the_fit_is_unsure_and_records_why() {
        let mut t = trace_at(&[]);
        let all: Vec<u32> = (1..=18).collect();
        let (mut c, first) = Chooser::start(&mut t, options(0.01, None), all, 1);
        c.fit = |_, _| Ok(fitted(false));
        assert_eq!(
            first.as_deref(),
            Some("first 1,5,10,14,18 (the ends and a coarse grid)")
        );
        let said = drive(&mut c, &mut t);
        let log = t.adaptive.clone().unwrap();
        let order: Vec<u32> = log.choices.iter().map(|c| c.cores).collect();
        assert_eq!(order[..5], [1, 5, 10, 14, 18]);
        assert!(order.len() > 5, "{order:?}");
        // The fake's refits part between their breakpoints only.
        assert!(
            order[5..].iter().all(|n| (11..=17).contains(n)),
            "{order:?}"
        );
        assert!(
            log.choices[5]
                .why
                .contains("narrows the refits' disagreement"),
            "{log:?}"
        );
        assert!(log.choices[5]
            .why
            .contains("still uncertain: n_par_max 10..14"));
        assert!(
            said[0].starts_with(&format!("next {} cores: ", order[5])),
            "{said:?}"
        );
        let ended = log.ended.unwrap();
        assert!(
            ended.starts_with("done: ") && ended.contains("within"),
            "{ended}"
        );
        assert_eq!(said.last(), Some(&ended));
        assert_eq!(log.precision, 0.01);
    }

    #[test]
    fn a_sweep_done_past_its_budget_says_so() {
        // Five points of 2 s against a budget of 3 s; the fit is sure after them.
        let mut t = trace_at(&[]);
        let all: Vec<u32> = (1..=18).collect();
        let (mut c, _) = Chooser::start(&mut t, options(0.5, Some(3)), all, 1);
        c.fit = |_, _| Ok(fitted(true));
        drive(&mut c, &mut t);
        assert_eq!(t.points.len(), 5);
        let ended = t.adaptive.unwrap().ended.unwrap();
        assert!(ended.starts_with("done: "), "{ended}");
        assert!(
            ended.contains("the measuring time, 10 s, went past the budget of 3 s"),
            "{ended}"
        );
    }

    #[test]
    fn the_chooser_stops_at_the_budget_and_goes_on_in_order_when_the_fit_fails() {
        // Five points of 2 s: a sixth would take the time past 11 s.
        let mut t = trace_at(&[]);
        let all: Vec<u32> = (1..=18).collect();
        let (mut c, _) = Chooser::start(&mut t, options(0.01, Some(11)), all.clone(), 1);
        c.fit = |_, _| Ok(fitted(false));
        let said = drive(&mut c, &mut t);
        assert_eq!(t.points.len(), 5);
        let ended = t.adaptive.as_ref().unwrap().ended.clone().unwrap();
        assert!(ended.starts_with("stopped: the next point ("), "{ended}");
        assert!(ended.contains("past the budget of 11 s; still uncertain: n_par_max"));
        assert_eq!(said, [ended]);

        let mut t = trace_at(&[]);
        let (mut c, _) = Chooser::start(&mut t, options(0.01, None), all, 1);
        c.fit = |_, _| Err(crate::Error::Input("too few points".into()));
        drive(&mut c, &mut t);
        let log = t.adaptive.unwrap();
        let order: Vec<u32> = log.choices.iter().map(|c| c.cores).collect();
        assert_eq!(
            order,
            [1, 5, 10, 14, 18, 2, 3, 4, 6, 7, 8, 9, 11, 12, 13, 15, 16, 17]
        );
        assert!(log.choices[5]
            .why
            .contains("fit of the points so far failed (too few points)"));
        assert_eq!(
            log.ended.unwrap(),
            "done: every core count of the sweep is measured"
        );
    }

    #[test]
    fn a_resumed_record_keeps_each_measured_point_once() {
        let mut t = trace_at(&[1, 5]);
        let choice = |cores| AdaptiveChoice {
            cores,
            why: "edited".into(),
        };
        t.adaptive = Some(AdaptiveLog {
            precision: 0.01,
            budget_seconds: None,
            choices: vec![choice(5), choice(5), choice(999), choice(5)],
            ended: None,
        });
        start_log(&mut t, &options(0.01, None));
        let order: Vec<u32> = t
            .adaptive
            .unwrap()
            .choices
            .iter()
            .map(|c| c.cores)
            .collect();
        assert_eq!(order, [5, 1]);
    }

    #[test]
    fn the_chooser_keeps_to_the_sweeps_core_counts_and_says_when_it_is_the_full_sweep() {
        // A socket of 18 of which the sweep may use 12 (the communication thread has a core):
        // the grid spans 1..12 and nothing beyond 12 is chosen.
        let mut t = trace_at(&[]);
        let some: Vec<u32> = (1..=12).collect();
        let (mut c, first) = Chooser::start(&mut t, options(0.0001, None), some.clone(), 1);
        c.fit = |_, _| Ok(fitted(false));
        assert_eq!(
            first.as_deref(),
            Some("first 1,4,7,9,12 (the ends and a coarse grid)")
        );
        drive(&mut c, &mut t);
        assert!(t.points.iter().all(|p| p.cores <= 12));
        assert!(describe(&options(0.01, None), &some).contains("at most 12 points (1..12)"));

        // Two cores: the grid is the whole sweep, and the plan says so.
        let mut t = trace_at(&[]);
        let (mut c, _) = Chooser::start(&mut t, options(0.01, None), vec![1, 2], 1);
        c.fit = |_, _| panic!("nothing to fit: the grid is every point");
        drive(&mut c, &mut t);
        let ended = t.adaptive.unwrap().ended.unwrap();
        assert!(
            ended.contains("the adaptive sweep is the full sweep here"),
            "{ended}"
        );
        assert!(describe(&options(0.01, None), &[1, 2]).contains("the full sweep here"));
    }

    #[test]
    fn a_resumed_sweep_keeps_its_record_but_the_point_it_never_finished() {
        let mut t = trace_at(&[1, 18]);
        t.adaptive = Some(AdaptiveLog {
            precision: 0.02,
            budget_seconds: None,
            choices: [(18, "grid"), (1, "grid"), (10, "interrupted")]
                .iter()
                .map(|&(cores, why)| AdaptiveChoice {
                    cores,
                    why: why.into(),
                })
                .collect(),
            ended: None,
        });
        let all: Vec<u32> = (1..=18).collect();
        let (_, first) = Chooser::start(&mut t, options(0.01, None), all, 1);
        let log = t.adaptive.unwrap();
        assert_eq!(
            log.choices.iter().map(|c| c.cores).collect::<Vec<_>>(),
            [18, 1]
        );
        assert_eq!(log.precision, 0.01, "what is asked now");
        assert_eq!(
            first.as_deref(),
            Some("first 5,10,14 (the ends and a coarse grid)")
        );
    }

    #[test]
    fn a_resumed_sweep_counts_what_the_trace_already_spent_against_its_budget() {
        // The first grid is measured; each point's samples span a fraction of a second.
        let grid = [1, 5, 10, 14, 18];
        let all: Vec<u32> = (1..=18).collect();
        let mut t = trace_at(&grid);
        let took = measured_seconds(&t);
        assert!(took > 1.0, "{took}");
        let (mut c, first) = Chooser::start(&mut t, options(0.01, Some(1)), all.clone(), 1);
        assert_eq!(first, None);
        c.fit = |_, _| Ok(fitted(false));
        let (next, line) = c.next(&mut t);
        assert_eq!(next, None, "{line:?}");
        let ended = t.adaptive.unwrap().ended.unwrap();
        assert!(
            ended.starts_with("stopped: the measuring time, ")
                && ended.contains("is already past the budget of 1 s, by "),
            "{ended}"
        );

        // Points whose samples say nothing of their time are taken at the plan's estimate
        // of a point, not as free.
        let mut t = trace_at(&grid);
        for p in &mut t.points {
            for phase in p.phases_mut() {
                phase.samples.clear();
            }
        }
        let each = crate::measure::session::point_seconds(&t.config);
        let budget = (5.0 * each) as u64 - 1;
        let (mut c, _) = Chooser::start(&mut t, options(0.01, Some(budget)), all, 1);
        c.fit = |_, _| Ok(fitted(false));
        assert_eq!(c.next(&mut t).0, None);
        let ended = t.adaptive.unwrap().ended.unwrap();
        assert!(ended.contains("already past the budget"), "{ended}");
    }

    #[test]
    fn a_first_grid_past_the_budget_is_said_up_front_and_every_end_says_by_how_much() {
        let all: Vec<u32> = (1..=18).collect();
        let mut t = trace_at(&[]);
        let (mut c, first) = Chooser::start(&mut t, options(0.01, Some(3)), all, 1);
        let first = first.unwrap();
        assert!(
            first.starts_with("first 1,5,10,14,18 (the ends and a coarse grid); ")
                && first.contains("whatever the budget")
                && first.contains("past the budget of 3 s"),
            "{first}"
        );
        c.fit = |_, _| Ok(fitted(false));
        let said = drive(&mut c, &mut t);
        assert_eq!(t.points.len(), 5);
        assert!(
            said.last()
                .unwrap()
                .contains("10 s, is already past the budget of 3 s, by 7 s"),
            "{said:?}"
        );

        // A sweep that measures every core count past its budget says so too.
        let mut t = trace_at(&[]);
        let (mut c, _) = Chooser::start(&mut t, options(0.01, Some(1)), vec![1, 2], 1);
        c.fit = |_, _| panic!("nothing to fit: the grid is every point");
        drive(&mut c, &mut t);
        let ended = t.adaptive.unwrap().ended.unwrap();
        assert!(
            ended.starts_with("done: every core count")
                && ended.ends_with("; the measuring time, 4 s, went past the budget of 1 s by 3 s"),
            "{ended}"
        );
    }

    #[test]
    fn no_precision_is_claimed_without_enough_refits() {
        let measured = initial_points(18);
        for refits in [0, 1, 19] {
            let f = Fitted {
                refits: vec![henri(); refits],
                ..fitted(true)
            };
            match decide(&f, &measured, 0.01) {
                Decision::Measure { cores, why } => {
                    assert_eq!(cores, 2, "the next core count in order");
                    assert!(
                        why.contains(&format!("only {refits} refits"))
                            && why.contains("precision is not known"),
                        "{why}"
                    );
                }
                d => panic!("{refits} refits: {d:?}"),
            }
        }
        // Failed refits are counted and named, whether or not enough are left.
        let failed = |ok: usize| Fitted {
            refits: fitted(false).refits.into_iter().cycle().take(ok).collect(),
            failed: vec!["the fit diverged".into(); 40 - ok],
            ..fitted(false)
        };
        let Decision::Measure { why, .. } = decide(&failed(3), &measured, 0.01) else {
            panic!("3 refits claim nothing")
        };
        assert!(
            why.contains("only 3 of 40 refits, 37 failed: the fit diverged"),
            "{why}"
        );
        assert!(uncertain(&failed(3)).starts_with("unknown"));
        let Decision::Measure { why, .. } = decide(&failed(30), &measured, 0.01) else {
            panic!("the refits disagree")
        };
        assert!(
            why.contains("(95% of 30 of 40 refits, 10 failed: the fit diverged)"),
            "{why}"
        );
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
