//! A measured point as one line of text: the line `measure` logs after each point, and after
//! a run the points combined across runs; `show` prints the same lines again from a saved
//! trace. One function for both, so the log and `show` cannot drift apart.

use crate::runs;
use crate::trace::{Phase, Trace, TracePoint, MIN_ROUNDS};

/// One line for the log after a point: each median with its 95% interval as a relative
/// half-width (`?` when too few rounds gave none), the loss ratios of Langguth et al. (alone
/// over parallel bandwidth, the L_M and L_N of `contention overlap`), and after them the
/// phases that ended wider than the target `stable_within` (relative, 0.05 = +-5 %), each
/// with its width, so that the line says by how much.
pub fn point_line(p: &TracePoint, stable_within: f64) -> String {
    let (ca, cp) = (p.comp_alone.summary.median, p.comp_parallel.summary.median);
    let (ma, mp) = (p.comm_alone.summary.median, p.comm_parallel.summary.median);
    let phases = [
        ("computations alone", &p.comp_alone),
        ("computations in parallel", &p.comp_parallel),
        ("communications alone", &p.comm_alone),
        ("communications in parallel", &p.comm_parallel),
    ];
    let unstable: Vec<String> = phases
        .iter()
        .filter(|(_, ph)| ph.unstable)
        .map(|(name, ph)| match ph.ci95 {
            Some(_) => format!("{name} {}", half_width(ph)),
            None => format!("{name} (fewer than {MIN_ROUNDS} rounds)"),
        })
        .collect();
    let flag = if unstable.is_empty() {
        String::new()
    } else {
        format!(
            " UNSTABLE (wider than +-{:.1}%): {}",
            100.0 * stable_within,
            unstable.join(", ")
        )
    };
    format!(
        "{:>3} cores: computations {ca:>9.1} {} MB/s alone, {cp:>9.1} {} in parallel (L_M \
         {:.2}); communications {ma:>8.1} {} MB/s alone, {mp:>8.1} {} in parallel (L_N \
         {:.2}){flag}",
        p.cores,
        half_width(&p.comp_alone),
        half_width(&p.comp_parallel),
        ca / cp,
        half_width(&p.comm_alone),
        half_width(&p.comm_parallel),
        ma / mp
    )
}

/// The closing lines of a run of a trace of runs: every core count measured so far, its
/// phases combined across the runs ([`runs::combine`]), with what their `+-` means.
pub fn runs_summary(trace: &Trace) -> String {
    let mut out = format!(
        "measure: across {} run(s) ({}):\n",
        trace.runs.len(),
        runs::interval_scope(trace.runs.len() as u32)
    );
    for p in &trace.points {
        out += &point_line(p, trace.config.stable_within);
        out.push('\n');
    }
    out
}

/// `+-0.4%`: the phase's 95% interval as a relative half-width, `+-?` without one.
fn half_width(p: &Phase) -> String {
    match p.ci95 {
        Some((lo, hi)) if p.summary.median > 0.0 => {
            format!("+-{:.1}%", 50.0 * (hi - lo) / p.summary.median)
        }
        _ => "+-?".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_line_shows_intervals_and_flags_unstable_phases() {
        let p = TracePoint {
            cores: 4,
            comp_alone: Phase::of_median(1000.0, Some((990.0, 1010.0)), false),
            comm_alone: Phase::of_median(500.0, None, true),
            comp_parallel: Phase::of_median(800.0, Some((780.0, 820.0)), false),
            comm_parallel: Phase::of_median(400.0, Some((396.0, 404.0)), false),
            ran_on: Vec::new(),
        };
        let line = point_line(&p, 0.05);
        assert!(line.contains("1000.0 +-1.0% MB/s alone"), "{line}");
        assert!(line.contains("800.0 +-2.5% in parallel"), "{line}");
        assert!(line.contains("500.0 +-? MB/s alone"), "{line}");
        assert!(
            line.ends_with(
                "UNSTABLE (wider than +-5.0%): communications alone (fewer than 30 rounds)"
            ),
            "{line}"
        );
        let stable = TracePoint {
            comm_alone: Phase::of_median(500.0, Some((495.0, 505.0)), false),
            ..p.clone()
        };
        assert!(!point_line(&stable, 0.05).contains("UNSTABLE"));
        // An unstable phase says by how much.
        let wide = TracePoint {
            comp_parallel: Phase::of_median(800.0, Some((700.0, 900.0)), true),
            ..stable
        };
        assert!(
            point_line(&wide, 0.05)
                .ends_with("UNSTABLE (wider than +-5.0%): computations in parallel +-12.5%"),
            "{}",
            point_line(&wide, 0.05)
        );
    }
}
