//! The first real many-core trace (`tests/data/real-16core/trace-13cores-shm.json`: a
//! 16-core Xeon node, both ranks on it, computations on 13 cores, the sender and the
//! communication thread on a core each): what the cpu-copy variant of the model makes of it
//! against the paper's model, and what the command line says; and the real GPU copies of an
//! H200 node (`tests/data/gpu-h200`): the law `calibrate` chooses for them, and how well it
//! predicts another run.

use crate::common::run::{command, text};
use crate::common::temp_dir;
use contention::calibrate::{self, Options};
use contention::evaluate;
use contention::io::inputs;
use serde_json::Value;
use std::path::{Path, PathBuf};

const TRACE: &str = "tests/data/real-16core/trace-13cores-shm.json";

fn run(c: &mut std::process::Command) -> std::process::Output {
    c.output().expect("contention runs")
}

fn calibrated(paths: &[&Path], model: Option<contention::model::Variant>) -> Value {
    let data = inputs::read_all(paths).unwrap();
    let opts = Options {
        date: "fixed".into(),
        model,
        ..Options::default()
    };
    let (fitted, _) = calibrate::calibrate(&data, &opts).unwrap();
    serde_json::to_value(&fitted).unwrap()
}

fn mape(v: &Value, phase: &str) -> f64 {
    v[phase]
        .as_f64()
        .unwrap_or_else(|| panic!("{phase} in {v}"))
}

/// The trace with only the core counts `keep` accepts, written into `dir`.
fn subset(dir: &Path, name: &str, keep: impl Fn(u64) -> bool) -> PathBuf {
    let mut t: Value = serde_json::from_str(&std::fs::read_to_string(TRACE).unwrap()).unwrap();
    let points: Vec<Value> = t["points"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| keep(p["cores"].as_u64().unwrap()))
        .cloned()
        .collect();
    let cores: Vec<Value> = points.iter().map(|p| p["cores"].clone()).collect();
    t["points"] = Value::Array(points);
    t["config"]["cores"] = Value::Array(cores);
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string(&t).unwrap()).unwrap();
    path
}

#[test]
fn calibrate_fits_the_cpu_copy_model_to_the_intra_node_trace_where_the_paper_misses() {
    let m = calibrated(&[Path::new(TRACE)], None);
    let choice = &m["calibration"]["model"];
    assert_eq!(choice["variant"], "cpu-copy", "{choice}");
    assert!(
        choice["why"].as_str().unwrap().contains("intra-node"),
        "{choice}"
    );
    assert_eq!(m["variant"], "cpu-copy");
    assert!(m["local"]["kappa"].as_f64().unwrap() > 0.0);
    let fit = &m["calibration"]["fit"];
    let other = &fit["other_model"];
    assert_eq!(other["variant"], "paper");
    // Communications in parallel: the variant within the noise of the phases (3-6 %), the
    // paper's model a third off (it keeps them whole until the memory is full).
    let (ours, paper) = (
        mape(&fit["mape_percent"], "comm_parallel"),
        mape(&other["mape_percent"], "comm_parallel"),
    );
    assert!(ours < 8.0, "cpu-copy {ours} %");
    assert!(paper > 25.0, "paper {paper} %");
    // Computations as well as the paper's model does them.
    let comp = mape(&fit["mape_percent"], "comp_parallel");
    let comp_paper = mape(&other["mape_percent"], "comp_parallel");
    assert!(
        comp < 3.5 && comp < comp_paper + 0.5,
        "{comp} vs {comp_paper}"
    );
}

#[test]
fn a_model_of_half_the_core_counts_predicts_the_other_half() {
    let d = temp_dir("real-16core-halves");
    let odd = subset(&d, "odd.json", |n| n % 2 == 1);
    let even = subset(&d, "even.json", |n| n % 2 == 0);
    let data = inputs::read_all(&[even]).unwrap();
    let held_out = |variant| {
        let m = calibrated(&[&odd], Some(variant));
        let model = contention::io::model_file::parse(&m.to_string(), "odd").unwrap();
        let e = evaluate::evaluate(&model, "odd", &data).unwrap();
        let e = serde_json::to_value(&e).unwrap();
        mape(&e["placements"][0], "comm_parallel_mape_percent")
    };
    let (ours, paper) = (
        held_out(contention::model::Variant::CpuCopy),
        held_out(contention::model::Variant::Paper),
    );
    assert!(ours < 12.0, "cpu-copy held out {ours} %");
    assert!(paper > 2.0 * ours, "paper held out {paper} % vs {ours} %");
    std::fs::remove_dir_all(d).unwrap();
}

#[test]
fn the_command_line_names_the_model_and_the_other_one_s_error() {
    let d = temp_dir("real-16core-cli");
    let out = d.join("m.json");
    let o = run(command().args(["calibrate", TRACE, "-o"]).arg(&out));
    assert!(o.status.success(), "{}", text(&o));
    let said = text(&o);
    assert!(
        said.contains("model cpu-copy: the traces' transport is intra-node"),
        "{said}"
    );
    assert!(
        said.contains("the paper model, fitted the same way, MAPE"),
        "{said}"
    );
    assert!(said.contains(" kappa "), "{said}");
    // predict says which model it reads.
    let o = run(command()
        .args(["predict", "--ncores", "1..4", "-m"])
        .arg(&out));
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains(
            "(cpu-copy model: communications that slow down steadily as the computations load \
             the memory (copies by CPU cores))"
        ),
        "{}",
        text(&o)
    );
    // --model paper overrides: the file holds the paper's ten parameters, no variant.
    let paper = d.join("p.json");
    let o = run(command()
        .args(["calibrate", "--model", "paper", TRACE, "-o"])
        .arg(&paper));
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("model paper: chosen with --model"),
        "{}",
        text(&o)
    );
    let m: Value = serde_json::from_str(&std::fs::read_to_string(&paper).unwrap()).unwrap();
    assert!(
        m.get("variant").is_none() && m["local"].get("kappa").is_none(),
        "{m}"
    );
    std::fs::remove_dir_all(d).unwrap();
}

#[test]
fn check_refits_as_the_saved_model_and_names_a_transport_that_would_choose_another() {
    let d = temp_dir("real-16core-check");
    let (ours, paper) = (d.join("m.json"), d.join("p.json"));
    for (path, extra) in [(&ours, &[][..]), (&paper, &["--model", "paper"][..])] {
        let o = run(command()
            .arg("calibrate")
            .args(extra)
            .arg(TRACE)
            .arg("-o")
            .arg(path));
        assert!(o.status.success(), "{}", text(&o));
    }
    // Its own trace against the cpu-copy model: nothing moved.
    let o = run(command().args(["check", "-m"]).arg(&ours).arg(TRACE));
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        !text(&o).contains("would fit these measurements"),
        "{}",
        text(&o)
    );
    // Against the paper's model of the same trace: refitted as the paper's model (no drift),
    // with a note that the traces' transport would choose the variant.
    let o = run(command().args(["check", "-m"]).arg(&paper).arg(TRACE));
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains(
            "the expected model is the paper model, and these measurements' transport points \
             to the cpu-copy model"
        ),
        "{}",
        text(&o)
    );
    std::fs::remove_dir_all(d).unwrap();
}

/// Each law's held-out error as the calibrated model `m` records it.
fn held_out(m: &Value) -> Vec<(String, f64)> {
    let held = m["calibration"]["model"]["held_out"].as_array().unwrap();
    held.iter()
        .map(|h| {
            let v = h["variant"].as_str().unwrap().to_string();
            (v, h["parallel_mape_percent"].as_f64().unwrap())
        })
        .collect()
}

/// Checks that the calibrated model `m` (of `way`) records each law's held-out error, the
/// knee law's the lowest and the paper's the highest; returns the paper's.
fn knee_predicts_held_out_counts_best(m: &Value, way: &str) -> f64 {
    let held = held_out(m);
    let error = |v: &str| held.iter().find(|h| h.0 == v).unwrap().1;
    assert!(
        error("knee") < error("cpu-copy") && error("cpu-copy") < error("paper"),
        "{way}: {held:?}"
    );
    error("paper")
}

/// GPU copies measured on an H200 node by the probe (`tests/data/gpu-h200`): DMA, the
/// paper's kind of traffic, as tidy CSV that records no transport, so the transport's rule
/// alone gave the paper's law. Another law predicts the core counts its fit did not see
/// with far less error each way (the knee law host to device; the cpu-copy law device to
/// host, where the probe's nine core counts leave the knee's two parameters too few points),
/// and `calibrate` chooses it by that, printing every law's held-out error; `--model` still
/// overrides.
#[test]
fn calibrate_chooses_the_law_by_held_out_error_for_gpu_copies_and_model_overrides() {
    let d = temp_dir("gpu-h200-law");
    for way in ["d2h", "h2d"] {
        let csv = format!("tests/data/gpu-h200/{way}.csv");
        let out = d.join(format!("{way}.json"));
        let local = ["--numa-per-socket", "1", "--local-only", "-o"];
        let o = run(command().args(["calibrate", &csv]).args(local).arg(&out));
        assert!(o.status.success(), "{}", text(&o));
        let said = text(&o);
        let m: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        let held = held_out(&m);
        let (best, least) = held
            .iter()
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .cloned()
            .unwrap();
        let paper = held.iter().find(|h| h.0 == "paper").unwrap().1;
        assert!(best != "paper" && least < paper * 0.7, "{way}: {held:?}");
        assert!(
            said.contains(&format!(
                "model {best}: it predicts the core counts its fit did not see best"
            )),
            "{way}: {said}"
        );
        assert!(said.contains(&format!("paper {paper:.2} %")), "{said}");
        assert_eq!(m["variant"], best.as_str());
        // --model paper: the paper's law, no held-out comparison made.
        let o = run(command()
            .args(["calibrate", "--model", "paper", &csv])
            .args(local)
            .arg(&out));
        assert!(o.status.success(), "{}", text(&o));
        assert!(text(&o).contains("model paper: chosen with --model"));
        assert!(!text(&o).contains("held-out error"), "{}", text(&o));
    }
    std::fs::remove_dir_all(d).unwrap();
}

/// Each core count's median of the communications in parallel in the trace at `path`.
fn comm_parallel_medians(path: &str) -> Vec<(u32, f64)> {
    let t = contention::io::trace_file::read(Path::new(path)).unwrap();
    t.points
        .iter()
        .map(|p| (p.cores, p.comm_parallel.summary.median))
        .collect()
}

/// The tool's own traces of the H200 node (`tests/data/gpu-h200`, `measure --engine gpu`,
/// three runs each way) and one more run of each, measured in a process of its own minutes
/// later: `calibrate` fits the knee law to the three runs, which predicts the other run's
/// copies in parallel better than the cpu-copy law fitted to the same runs, within half a
/// point of the node's noise floor (the three runs' medians as the predictor: 8.3 % and 4.3
/// %; the knee law of one parameter it replaced missed by 9.6 % device to host), and the
/// host-to-device copies within the 5 %.
#[test]
fn the_gpu_node_s_own_traces_take_the_knee_law_which_predicts_another_run_best() {
    for (way, within) in [("d2h", None), ("h2d", Some(5.0))] {
        let three = format!("tests/data/gpu-h200/trace-gpu0-{way}-3runs.json");
        let runs = PathBuf::from(&three);
        let other = format!("tests/data/gpu-h200/trace-gpu0-{way}-another-run.json");
        let m = calibrated(&[&runs], None);
        assert_eq!(m["variant"], "knee", "{way}: {}", m["calibration"]["model"]);
        let half_load = m["local"]["half_load"].as_f64().unwrap();
        let steepness = m["local"]["steepness"].as_f64().unwrap();
        assert!(half_load > 0.3 && half_load < 0.9, "{way}: {half_load}");
        assert!(steepness > 2.0, "{way}: {steepness}");
        knee_predicts_held_out_counts_best(&m, way);
        let data = inputs::read_all(&[other.as_str()]).unwrap();
        let copies = |m: &Value| {
            let model = contention::io::model_file::parse(&m.to_string(), way).unwrap();
            let e = evaluate::evaluate(&model, way, &data).unwrap();
            let e = serde_json::to_value(&e).unwrap();
            mape(&e["placements"][0], "comm_parallel_mape_percent")
        };
        let cpu_copy = calibrated(&[&runs], Some(contention::model::Variant::CpuCopy));
        let (knee, steady) = (copies(&m), copies(&cpu_copy));
        assert!(knee < steady, "{way}: knee {knee} % vs cpu-copy {steady} %");
        let (medians, measured) = (comm_parallel_medians(&three), comm_parallel_medians(&other));
        assert_eq!(medians.len(), measured.len());
        let floor = medians
            .iter()
            .zip(&measured)
            .map(|((n, m), (k, x))| {
                assert_eq!(n, k);
                100.0 * ((m - x) / x).abs()
            })
            .sum::<f64>()
            / measured.len() as f64;
        assert!(
            knee < floor + 0.5,
            "{way}: knee {knee} % vs floor {floor} %"
        );
        if let Some(within) = within {
            assert!(knee < within, "{way}: knee {knee} %");
        }
    }
}

/// The three runs of the 16-core node's default sweep (`measure --numa 0,0 --runs 3`, both
/// ranks on the node), each calibrated alone: the knee law, a parameter more than the
/// cpu-copy law, predicts one run's held-out core counts up to a fifth better and another's
/// worse, by noise (the model of each predicts the other runs alike), so every run keeps
/// the transport's law: the verdict holds on the next run.
#[test]
fn each_run_of_the_intra_node_node_keeps_the_cpu_copy_law() {
    let d = temp_dir("mpi16-runs");
    let path = "tests/data/real-16core/trace-default-14cores-3runs.json";
    let t: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let runs = t["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3);
    let mut laws = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        let mut one = t.clone();
        let o = one.as_object_mut().unwrap();
        o.remove("runs");
        o.insert("points".into(), r["points"].clone());
        one["config"]["runs"] = 1.into();
        let file = d.join(format!("run{i}.json"));
        std::fs::write(&file, one.to_string()).unwrap();
        let m = calibrated(&[&file], None);
        let held = held_out(&m);
        laws.push((m["variant"].as_str().unwrap().to_string(), held));
    }
    // The knee law comes out ahead held out on one run at least: the margin, not the data's
    // agreement, keeps the law.
    assert!(
        laws.iter().any(|(_, held)| {
            let e = |v: &str| held.iter().find(|h| h.0 == v).unwrap().1;
            e("knee") < e("cpu-copy") * 0.85
        }),
        "{laws:?}"
    );
    assert!(laws.iter().all(|(v, _)| v == "cpu-copy"), "{laws:?}");
    std::fs::remove_dir_all(d).unwrap();
}
