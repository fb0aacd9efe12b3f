//! `contention overlap` and `contention advise` end to end: the paper's figures through the
//! binary, the JSON scripts rely on, and errors that name the bad value (exit 2).

use crate::common::{contention, stderr, stdout};
use serde_json::Value;

fn json(args: &[&str]) -> Value {
    let o = contention(args);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn r2(x: &Value) -> f64 {
    (x.as_f64().unwrap() * 100.0).round() / 100.0
}

#[test]
fn overlap_reproduces_the_section_vi_example_as_json() {
    let v = json(&[
        "overlap",
        "--comp-time",
        "1",
        "--comm-time",
        "0.5",
        "--comp-loss",
        "1.72",
        "--comm-loss",
        "2.2",
        "--format",
        "json",
    ]);
    assert_eq!(r2(&v["contended_comm_time"]), 1.1);
    assert_eq!(r2(&v["contended_comp_time"]), 1.72);
    assert_eq!(r2(&v["total_time"]), 1.46);
    assert_eq!(v["no_overlap_time"].as_f64(), Some(1.5));
    assert_eq!(v["no_contention_time"].as_f64(), Some(1.0));
    for (k, x) in [
        ("comp_time", 1.0),
        ("comm_time", 0.5),
        ("comp_loss", 1.72),
        ("comm_loss", 2.2),
    ] {
        assert_eq!(v[k].as_f64(), Some(x), "{k}");
    }
    assert_eq!(v["bound"], "comp");
    assert!(v["heterogeneous"].is_null());
}

#[test]
fn overlap_table_reproduces_table_ii_first_row() {
    // 4 nodes: T_M 124.58, T^C_M 137.54, T_N 0.86, T^C_N 1.96 -> T_tot 124.76 ms.
    let o = contention(&[
        "overlap",
        "--comp-time",
        "124.58",
        "--comm-time",
        "0.86",
        "--comp-loss",
        &(137.54f64 / 124.58).to_string(),
        "--comm-loss",
        &(1.96f64 / 0.86).to_string(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("T_tot               124.76"), "{out}");
    assert!(out.contains("the computation ends the step"), "{out}");
}

#[test]
fn overlap_with_accelerators_finds_the_balancing_share() {
    // Section VI: whole computation 6 ms on the CPU, GPUs 5x faster, 5/6 on the GPUs.
    let v = json(&[
        "overlap",
        "--comp-time",
        "6",
        "--comm-time",
        "0.5",
        "--comp-loss",
        "1.72",
        "--comm-loss",
        "2.2",
        "--accel-perf",
        "5",
        "--accel-share",
        &(5.0f64 / 6.0).to_string(),
        "--format",
        "json",
    ]);
    let h = &v["heterogeneous"];
    assert_eq!(r2(&h["at_share"]["total_time"]), 1.46);
    assert_eq!(h["balance"]["kind"], "balanced");
    let b = &h["balance"]["split"];
    assert!(b["idle_time"].as_f64().unwrap() < 1e-9);
    assert!(b["total_time"].as_f64().unwrap() < 1.1);
}

#[test]
fn overlap_says_when_no_share_balances() {
    let o = contention(&[
        "overlap",
        "--comp-time",
        "6",
        "--comm-time",
        "0.5",
        "--comp-loss",
        "1.72",
        "--comm-loss",
        "2.2",
        "--accel-perf",
        "20",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("no share in [0, 1] balances"), "{out}");
    assert!(out.contains("w = 1.0000"), "{out}");
}

#[test]
fn overlap_refuses_values_outside_the_model() {
    for (args, needle) in [
        (["--comp-time", "0", "--comm-loss", "2"], "--comp-time"),
        (["--comp-time", "1", "--comm-loss", "0.5"], "--comm-loss"),
        (["--comp-time", "-1", "--comm-loss", "2"], "--comp-time"),
    ] {
        let mut a = vec!["overlap", "--comm-time", "1", "--comp-loss", "1.5"];
        a.extend(args);
        let o = contention(&a);
        assert_eq!(o.status.code(), Some(2), "{a:?}");
        let err = stderr(&o);
        assert!(err.contains(needle), "{a:?}: {err}");
    }
    let o = contention(&[
        "overlap",
        "--comp-time",
        "1",
        "--comm-time",
        "1",
        "--comp-loss",
        "1",
        "--comm-loss",
        "1",
        "--accel-perf",
        "2",
        "--accel-share",
        "1.5",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("[0, 1]"), "{}", stderr(&o));
    // --accel-share needs --accel-perf.
    let o = contention(&[
        "overlap",
        "--comp-time",
        "1",
        "--comm-time",
        "1",
        "--comp-loss",
        "1",
        "--comm-loss",
        "1",
        "--accel-share",
        "0.5",
    ]);
    assert_eq!(o.status.code(), Some(2));
}

fn advise_henri(extra: &[&str]) -> Value {
    let mut a = vec![
        "advise",
        "--model",
        "paper:henri",
        "--comp-bytes",
        "1GiB",
        "--comm-bytes",
        "64MiB",
        "--format",
        "json",
    ];
    a.extend(extra);
    json(&a)
}

#[test]
fn advise_recommends_the_fastest_of_all_evaluated() {
    let v = advise_henri(&[]);
    let all = v["candidates"].as_array().unwrap();
    assert_eq!(all.len(), 4 * 18);
    let min = all
        .iter()
        .map(|c| c["total_time"].as_f64().unwrap())
        .fold(f64::INFINITY, f64::min);
    assert_eq!(v["best"]["total_time"].as_f64(), Some(min));
    assert_eq!(v["best"], all[0]);
    let naive = &v["naive"];
    assert_eq!(
        (
            naive["cores"].as_u64(),
            naive["comp_numa"].as_u64(),
            naive["comm_numa"].as_u64()
        ),
        (Some(18), Some(0), Some(0))
    );
    let slowdown = naive["total_time"].as_f64().unwrap() / min;
    assert!((v["naive_slowdown"].as_f64().unwrap() - slowdown).abs() < 1e-12);
    assert!(slowdown >= 1.0);
    assert_eq!(v["units"]["time"], "s");
    assert_eq!(v["comp_bytes"].as_u64(), Some(1 << 30));
    // T_M is W_M over the predicted bandwidth (MB/s) of that configuration.
    let b = &v["best"];
    assert!(b["comp_time"].as_f64().unwrap() > 0.0 && b["comp_loss"].as_f64().unwrap() >= 1.0);
}

#[test]
fn advise_restricted_cores_are_respected_and_the_naive_is_noted() {
    let v = advise_henri(&["--ncores", "2..6"]);
    let all = v["candidates"].as_array().unwrap();
    assert_eq!(all.len(), 4 * 5);
    assert!(all
        .iter()
        .all(|c| (2..=6).contains(&c["cores"].as_u64().unwrap())));
    assert_eq!(v["naive"]["cores"].as_u64(), Some(18));
    assert!(v["notes"][0].as_str().unwrap().contains("not ranked"));
}

#[test]
fn advise_table_names_units_best_and_naive() {
    let o = contention(&[
        "advise",
        "-m",
        "paper:henri",
        "--comp-bytes",
        "1GiB",
        "--comm-bytes",
        "64MiB",
        "--top",
        "3",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("machine henri"), "{out}");
    assert!(out.contains("times in ms"), "{out}");
    assert!(
        out.contains("\nbest: ") && out.contains("slower than the best"),
        "{out}"
    );
    // 3 ranked rows, then the naive one.
    let ranked = out
        .lines()
        .filter(|l| {
            l.split_whitespace()
                .next()
                .is_some_and(|t| t.parse::<u32>().is_ok())
        })
        .count();
    assert_eq!(ranked, 3, "{out}");
    assert!(
        out.lines().any(|l| l.trim_start().starts_with("naive ")),
        "{out}"
    );
}

#[test]
fn advise_refuses_bad_sizes_and_core_counts() {
    let o = contention(&[
        "advise",
        "-m",
        "paper:henri",
        "--comp-bytes",
        "1 parsec",
        "--comm-bytes",
        "1M",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--comp-bytes"), "{}", stderr(&o));
    let o = contention(&[
        "advise",
        "-m",
        "paper:henri",
        "--comp-bytes",
        "1G",
        "--comm-bytes",
        "1M",
        "--ncores",
        "1..40",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--ncores"), "{}", stderr(&o));
}
