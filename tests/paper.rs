//! Pins the model to the paper: its nine machines (Appendix B) predict sensibly, and the
//! behaviour section 4.2 describes shows.

use contention::io::model_file;
use contention::model::{self, paper, Model, PlacementPrediction};

fn load(name: &str) -> Model {
    model_file::load(&format!("paper:{name}")).expect("paper model loads")
}

fn predict_all(m: &Model) -> Vec<PlacementPrediction> {
    let cores: Vec<u32> = (1..=m.machine.cores_per_socket).collect();
    model::predict(m, &model::all_placements(m), &cores).expect("prediction")
}

#[test]
fn every_paper_machine_predicts_every_placement_and_core_count() {
    for name in paper::names() {
        let m = load(name);
        let all = predict_all(&m);
        assert_eq!(all.len() as u32, m.machine.numa_nodes.pow(2), "{name}");
        for p in &all {
            assert_eq!(p.points.len() as u32, m.machine.cores_per_socket);
            for pt in &p.points {
                for v in [
                    pt.comp_alone,
                    pt.comm_alone,
                    pt.comp_parallel,
                    pt.comm_parallel,
                ] {
                    assert!(v.is_finite() && v > 0.0, "{name} {p:?}");
                }
            }
        }
    }
}

#[test]
fn henri_local_communications_start_to_fall_at_14_cores() {
    // Section 4.2: "the model predicts a decrease starting with 14 computing cores".
    let all = predict_all(&load("henri"));
    let local = all
        .iter()
        .find(|p| p.comp_numa == 0 && p.comm_numa == 0)
        .unwrap();
    let first_fall = local
        .points
        .iter()
        .find(|pt| pt.comm_parallel < pt.comm_alone)
        .map(|pt| pt.cores);
    assert_eq!(first_fall, Some(14));
}

#[test]
fn computations_are_unhurt_when_the_data_are_on_different_nodes() {
    // Equation 8: only a shared node puts computations in contention.
    for name in paper::names() {
        for p in predict_all(&load(name)) {
            if p.comp_numa != p.comm_numa {
                assert!(p.points.iter().all(|pt| pt.comp_parallel == pt.comp_alone));
            }
        }
    }
}

#[test]
fn henri_subnuma_has_16_placements() {
    let all = predict_all(&load("henri-subnuma"));
    assert_eq!(all.len(), 16);
    let mut pairs: Vec<_> = all.iter().map(|p| (p.comp_numa, p.comm_numa)).collect();
    pairs.sort_unstable();
    pairs.dedup();
    assert_eq!(pairs.len(), 16);
}

#[test]
fn calibration_placements_reproduce_their_own_model() {
    // Placement (0,0) is M_local itself and (#m,#m) is M_remote itself (section 3.3).
    let m = load("henri-subnuma");
    let all = predict_all(&m);
    let curve_local = model::bandwidth::curve(&m.local, 18);
    let curve_remote = model::bandwidth::curve(m.remote.as_ref().unwrap(), 18);
    for (node, curve) in [(0, &curve_local), (2, &curve_remote)] {
        let p = all
            .iter()
            .find(|p| p.comp_numa == node && p.comm_numa == node)
            .unwrap();
        for (pt, c) in p.points.iter().zip(curve) {
            assert_eq!(pt.comp_parallel, c.comp_parallel);
            assert_eq!(pt.comm_parallel, c.comm_parallel);
            assert_eq!(pt.comp_alone, c.comp_alone);
        }
    }
}
