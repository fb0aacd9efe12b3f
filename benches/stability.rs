//! Do `measure`'s intervals mean what they say? Runs `contention measure --numa 0,0` with its
//! defaults N times, one after the other, and compares what each run claims (the 95 %
//! interval of each phase's median) with what the runs do (the spread of their medians).
//!
//! `cargo bench --bench stability [-- N] [-- -- EXTRA MEASURE OPTIONS]` (N defaults to 5). Per
//! core count and phase it prints: samples per phase (min and median over the runs), how many
//! runs ended the phase stable, the runs' medians (min..max and their spread relative to the
//! median of medians), the median claimed half-width, and how many of the N x (N-1) pairs
//! of runs have one run's interval covering the other's median. Then the whole run's figures:
//! phases stable, samples per phase (min, median), and the time a default run takes.
//!
//! Run it on a quiet machine: another process loading the cores or the memory widens the
//! spread between runs, and that is what it measures.

use contention::io::trace_file;
use contention::stats;
use contention::trace::Phase;
use std::collections::BTreeMap;
use std::process::Command;
use std::time::Instant;

const PHASES: [&str; 4] = ["comp_alone", "comm_alone", "comp_parallel", "comm_parallel"];

fn phase<'a>(p: &'a contention::trace::TracePoint, name: &str) -> &'a Phase {
    match name {
        "comp_alone" => &p.comp_alone,
        "comm_alone" => &p.comm_alone,
        "comp_parallel" => &p.comp_parallel,
        _ => &p.comm_parallel,
    }
}

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let runs: usize = args
        .by_ref()
        .take_while(|a| a != "--")
        .find_map(|a| a.parse().ok())
        .unwrap_or(5);
    let extra: Vec<String> = args.collect();
    let dir = tempfile::tempdir().expect("scratch directory");
    let bin = env!("CARGO_BIN_EXE_contention");
    // (cores, phase) -> per run: (samples, stable, median, claimed interval)
    type Run = (usize, bool, f64, Option<(f64, f64)>);
    let mut seen: BTreeMap<(u32, &str), Vec<Run>> = BTreeMap::new();
    let mut seconds = Vec::new();
    for r in 0..runs {
        let out = dir.path().join(format!("run{r}.json"));
        let start = Instant::now();
        let status = Command::new(bin)
            .args(["measure", "--numa", "0,0", "--quiet", "-o"])
            .arg(&out)
            .args(&extra)
            .env("CONTENTION_RESULTS", dir.path())
            .status()
            .expect("contention runs");
        seconds.push(start.elapsed().as_secs_f64());
        assert!(status.success(), "run {r}: {status}");
        let t = trace_file::read(&out).expect("trace");
        for p in &t.points {
            for name in PHASES {
                let ph = phase(p, name);
                seen.entry((p.cores, name)).or_default().push((
                    ph.samples.len(),
                    !ph.unstable,
                    ph.summary.median,
                    ph.ci95,
                ));
            }
        }
        eprintln!("run {}/{runs}: {:.1} s", r + 1, seconds[r]);
    }
    println!(
        "{runs} runs of `contention measure --numa 0,0 {}`",
        extra.join(" ")
    );
    println!(
        "cores  phase            samples(min,med)  stable  medians MB/s (min..max)  spread  claimed +-  covered pairs"
    );
    let (mut all_samples, mut stable, mut total) = (Vec::new(), 0, 0);
    for ((cores, name), r) in &seen {
        let samples: Vec<f64> = r.iter().map(|x| x.0 as f64).collect();
        all_samples.extend(&samples);
        let s = r.iter().filter(|x| x.1).count();
        stable += s;
        total += r.len();
        let medians: Vec<f64> = r.iter().map(|x| x.2).collect();
        let mid = stats::median(&medians).unwrap_or(f64::NAN);
        let (lo, hi) = medians
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), &m| (a.min(m), b.max(m)));
        let claimed: Vec<f64> = r
            .iter()
            .filter_map(|x| x.3.map(|(l, h)| (h - l) / 2.0 / x.2))
            .collect();
        let covered = r
            .iter()
            .enumerate()
            .flat_map(|(i, a)| r.iter().enumerate().map(move |(j, b)| (i, a, j, b)))
            .filter(|(i, _, j, _)| i != j)
            .filter(|(_, a, _, b)| a.3.is_some_and(|(l, h)| l <= b.2 && b.2 <= h))
            .count();
        println!(
            "{cores:>5}  {name:<15}  {:>5.0},{:>5.0}      {s}/{}     {lo:>9.1}..{hi:<9.1}     {:>5.1}%  {:>8}  {covered}/{}",
            samples.iter().copied().fold(f64::MAX, f64::min),
            stats::median(&samples).unwrap_or(f64::NAN),
            r.len(),
            100.0 * (hi - lo) / mid,
            stats::median(&claimed).map_or("?".to_string(), |c| format!("{:.1}%", 100.0 * c)),
            r.len() * (r.len() - 1)
        );
    }
    println!(
        "phases stable {stable}/{total}; samples per phase min {:.0}, median {:.0}; a run took {:.1} s (median)",
        all_samples.iter().copied().fold(f64::MAX, f64::min),
        stats::median(&all_samples).unwrap_or(f64::NAN),
        stats::median(&seconds).unwrap_or(f64::NAN)
    );
}
