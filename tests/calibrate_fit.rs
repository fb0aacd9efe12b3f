//! The global fit (`calibrate --method fit`, issue 14) on noisy synthetic sweeps of the nine
//! paper machines (Appendix B): how close its predictions come to the noise-free truth, with
//! only the two sample placements or with all of them; that it is never worse than the
//! paper's rules on the same data; sparse sweeps; outlying samples; and whether its bootstrap
//! intervals cover the truth as often as they claim.
//!
//! "1 % noise" is each measurement multiplied by `1 + u / 100`, `u` uniform in [-1, 1), as in
//! `calibrate_roundtrip.rs`; "3 repetitions" are three such noisy copies of every row. The
//! error is the MAPE over every bandwidth of every placement and core count 1..cores_per_socket
//! against the paper model that generated the data.

use crate::common::{add_noise, everything, mape, placement, predicted_rows, SplitMix64};
use contention::calibrate::{calibrate, CalibratedModel, Method, Options};
use contention::dataset::Input;
use contention::io::model_file;
use contention::model::{self, paper, Model};
use contention::trace::TidyRow;

fn load(name: &str) -> Model {
    model_file::load(&format!("paper:{name}")).unwrap()
}

/// The measured core counts: all, or the paper's shortcut (section 4.1.2): every count up to
/// just past both maxima of either side, then the last.
fn cores(m: &Model, sparse: bool) -> Vec<u32> {
    let cps = m.machine.cores_per_socket;
    if !sparse {
        return (1..=cps).collect();
    }
    let r = m.remote.unwrap();
    let k = (m.local.n_seq_max.max(m.local.n_par_max))
        .max(r.n_seq_max.max(r.n_par_max))
        .saturating_add(1)
        .min(cps);
    let mut c: Vec<u32> = (1..=k).collect();
    if k < cps {
        c.push(cps);
    }
    c
}

/// `reps` noisy repetitions of the placements' sweeps.
fn noisy(m: &Model, all: bool, sparse: bool, reps: usize, rng: &mut SplitMix64) -> Vec<TidyRow> {
    let mm = m.machine.numa_per_socket;
    let placements = if all {
        model::all_placements(m)
    } else {
        vec![placement(0, 0), placement(mm, mm)]
    };
    let c = cores(m, sparse);
    let exact: Vec<TidyRow> = placements
        .iter()
        .flat_map(|&p| predicted_rows(m, p, &c))
        .collect();
    let mut rows = Vec::new();
    for _ in 0..reps {
        let mut r = exact.clone();
        add_noise(&mut r, 0.01, rng);
        rows.extend(r);
    }
    rows
}

fn opts(m: &Model, method: Method) -> Options {
    Options {
        numa_per_socket: Some(m.machine.numa_per_socket),
        numa_nodes: Some(m.machine.numa_nodes),
        cores_per_socket: Some(m.machine.cores_per_socket),
        method,
        ..Options::default()
    }
}

fn run(rows: &[TidyRow], o: &Options) -> CalibratedModel {
    calibrate(&[Input::from_rows(rows, "synthetic.csv")], o)
        .unwrap()
        .0
}

/// Worst machine's mean MAPE (over `seeds`) of the fit and of the rules against the truth.
fn accuracy(all: bool, sparse: bool, seeds: u64) -> (f64, f64) {
    let (mut worst_fit, mut worst_paper) = (0.0f64, 0.0f64);
    for name in paper::names() {
        let m = load(name);
        let truth = everything(&m);
        let (mut fit, mut rules) = (0.0, 0.0);
        for seed in 0..seeds {
            let rows = noisy(&m, all, sparse, 3, &mut SplitMix64(0x14_0000 + seed));
            let f = run(&rows, &opts(&m, Method::Fit));
            let p = run(&rows, &opts(&m, Method::Paper));
            let (ef, ep) = (
                mape(&truth, &everything(&f.model)),
                mape(&truth, &everything(&p.model)),
            );
            // The fit keeps the rules when it does not beat them, so `loss <= paper_loss`
            // always holds; on noisy data the rules are never the optimum, and a fit that
            // works must beat them outright.
            let report = f.calibration.fit.as_ref().unwrap();
            assert!(
                report.loss < report.paper_loss,
                "{name} seed {seed}: the fit did not beat the rules on the data ({} vs {})",
                report.loss,
                report.paper_loss
            );
            fit += ef;
            rules += ep;
        }
        let (fit, rules) = (fit / seeds as f64, rules / seeds as f64);
        eprintln!(
            "{name:14} all={all:5} sparse={sparse:5}: MAPE vs truth, fit {fit:.3} %, paper \
             rules {rules:.3} %"
        );
        worst_fit = worst_fit.max(fit);
        worst_paper = worst_paper.max(rules);
    }
    (worst_fit, worst_paper)
}

#[test]
fn with_the_two_sample_placements_the_fit_is_within_0_30_percent_of_the_truth() {
    let (fit, rules) = accuracy(false, false, 3);
    eprintln!("worst machine: fit {fit:.3} %, rules {rules:.3} %");
    assert!(fit <= 0.30, "{fit:.3} %");
}

#[test]
fn with_every_placement_the_fit_is_within_0_20_percent_of_the_truth() {
    let (fit, rules) = accuracy(true, false, 2);
    eprintln!("worst machine: fit {fit:.3} %, rules {rules:.3} %");
    assert!(fit <= 0.20, "{fit:.3} %");
}

#[test]
fn a_plateau_flat_to_its_end_is_found_whatever_the_rules_start() {
    // henri-subnuma's remote side: the total is flat to 11 cores, then drops. With this noise
    // draw the rules put `N_par^max` low on the plateau, and a search from there alone
    // ended at 2 cores, 0.325 % off the truth over every placement
    // (`benches/steadiness.rs`, seed 13); the second start, from the middle of the socket,
    // finds the plateau's end.
    let m = load("henri-subnuma");
    let rows = noisy(&m, true, false, 3, &mut SplitMix64(0x24_0000 + 13));
    let f = run(&rows, &opts(&m, Method::Fit));
    let remote = f.model.remote.unwrap();
    assert!(
        (10..=12).contains(&remote.n_par_max),
        "remote N_par^max {} (truth 11)",
        remote.n_par_max
    );
    let error = mape(&everything(&m), &everything(&f.model));
    assert!(error <= 0.20, "{error:.3} % off the truth");
}

#[test]
fn sparse_sweeps_the_papers_shortcut_fit_too() {
    // Beyond the maxima only the last core count is measured, so `delta_r` rests on one noisy
    // point and is extrapolated over the skipped counts: looser than full sweeps (henri-subnuma
    // worst, 0.44 % with this seed), and still better than the rules.
    let (fit, rules) = accuracy(false, true, 1);
    eprintln!("worst machine: fit {fit:.3} %, rules {rules:.3} %");
    assert!(fit <= 0.50, "{fit:.3} %");
    assert!(fit < rules, "fit {fit:.3} % vs rules {rules:.3} %");
}

#[test]
fn outlying_samples_do_not_pull_the_fit() {
    // 5 % of the samples (one in twenty rows' bandwidths) 30 % low: a disturbed run.
    for name in ["henri", "dahu", "occigen"] {
        let m = load(name);
        let truth = everything(&m);
        let mut rng = SplitMix64(0x0075);
        let mut rows = noisy(&m, true, false, 3, &mut rng);
        let mut hit = 0;
        for r in rows.iter_mut() {
            for v in [
                &mut r.comp_alone,
                &mut r.comm_alone,
                &mut r.comp_parallel,
                &mut r.comm_parallel,
            ] {
                if rng.unit() < 0.05 {
                    *v *= 0.7;
                    hit += 1;
                }
            }
        }
        assert!(hit > 0);
        let f = run(&rows, &opts(&m, Method::Fit));
        let e = mape(&truth, &everything(&f.model));
        let p = mape(
            &truth,
            &everything(&run(&rows, &opts(&m, Method::Paper)).model),
        );
        eprintln!("{name}: 5 % outliers, MAPE vs truth fit {e:.3} %, rules {p:.3} %");
        assert!(e <= 0.30, "{name}: {e:.3} %");
        assert!(e <= p, "{name}: fit {e:.3} % vs rules {p:.3} %");
    }
}

/// Coverage of the bootstrap's 95 % intervals over `trials` seeded noisy sweeps of henri's
/// local side (a one-socket machine: every placement is 0,0), for the parameters the data
/// determines well: `B_seq^comp`, `B_seq^comm`, `T_par^max` and `alpha`.
fn coverage(trials: u64, resamples: u32, reps: usize) -> f64 {
    let paper = load("henri");
    let m = Model {
        machine: contention::model::Machine {
            numa_nodes: 1,
            ..paper.machine.clone()
        },
        remote: None,
        ..paper
    };
    let (mut covered, mut total) = (0, 0);
    for t in 0..trials {
        let mut rng = SplitMix64(0xC0FE_0000 + t);
        let exact = predicted_rows(&m, placement(0, 0), &cores(&paper, false));
        let mut rows = Vec::new();
        for _ in 0..reps {
            let mut r = exact.clone();
            add_noise(&mut r, 0.01, &mut rng);
            rows.extend(r);
        }
        let o = Options {
            bootstrap: resamples,
            seed: t,
            ..opts(&m, Method::Fit)
        };
        let f = run(&rows, &o);
        let iv = f.uncertainty.unwrap().local;
        let truth = m.local.named();
        for name in ["b_seq_comp", "b_seq_comm", "t_par_max", "alpha"] {
            let [lo, hi] = iv.get(name).unwrap();
            let truth = truth.iter().find(|(n, _)| *n == name).unwrap().1;
            total += 1;
            if lo <= truth && truth <= hi {
                covered += 1;
            }
        }
    }
    covered as f64 / total as f64
}

#[test]
fn bootstrap_intervals_cover_the_truth_about_95_percent_of_the_time() {
    // 30 trials x 4 parameters: at 95 % true coverage, fewer than 85 % covered has a
    // probability below 1 %; at 70 %, more than 85 % below 1 % too.
    let c = coverage(30, 40, 5);
    eprintln!("coverage {:.1} %", 100.0 * c);
    assert!(c >= 0.85, "coverage {:.1} %", 100.0 * c);
}

#[test]
#[ignore = "minutes in a debug build: cargo test --release --test integration calibrate_fit:: -- --ignored"]
fn bootstrap_coverage_over_many_trials() {
    let c = coverage(200, 200, 5);
    eprintln!("coverage {:.1} %", 100.0 * c);
    assert!((0.90..=0.99).contains(&c), "coverage {:.1} %", 100.0 * c);
}
