//! Measurements that cannot be: a phase whose statistics contradict each other, or a point
//! where contention made a stream faster than alone. `calibrate`, `evaluate` and `check`
//! refuse them, naming the file and the point, instead of fitting the model to them.

use crate::model::constraints::MAX_BANDWIDTH;
use crate::trace::Phase;
use crate::units::short_number;

/// How much faster than alone a stream may be measured while sharing the memory system
/// before the point is refused: contention only slows (the paper's premise, section 2), so
/// a stream 10x faster in parallel is a corrupt or mislabelled measurement (the example that
/// prompted the rule was 50x).
pub(crate) const MAX_SPEEDUP: f64 = 10.0;

/// Beyond this speed-up a point is kept but noted: a noisy or oversubscribed machine can
/// measure a stream alone slower than it is, but rarely by this much.
pub(crate) const NOTE_SPEEDUP: f64 = 1.5;

/// Why a phase's statistics are impossible, if they are.
pub(crate) fn phase(p: &Phase) -> Option<String> {
    let s = &p.summary;
    let nums = [
        ("median", s.median),
        ("mean", s.mean),
        ("stddev", s.stddev),
        ("min", s.min),
        ("max", s.max),
    ];
    if let Some((name, v)) = nums.iter().find(|(_, v)| v.is_finite() && *v < 0.0) {
        return Some(format!(
            "{name} is {}, below 0: a bandwidth cannot be negative",
            short_number(*v)
        ));
    }
    if let Some((name, v)) = nums
        .iter()
        .find(|(_, v)| v.is_finite() && *v > MAX_BANDWIDTH)
    {
        return Some(format!(
            "{name} is {} MB/s, beyond any memory ({MAX_BANDWIDTH:e} MB/s)",
            short_number(*v)
        ));
    }
    // A count of 0 with a median of 0 is a phase missing, which the reader names as such.
    if s.count == 0 && s.median > 0.0 {
        return Some(format!(
            "count is 0 but the median is {}: a median needs samples",
            short_number(s.median)
        ));
    }
    // A count of 0 has no rounds to bound: its median, 0, is said missing by the reader.
    if let Some(why) = (s.count > 0).then(|| bounds(p)).flatten() {
        return Some(why);
    }
    // A sample's times are seconds since its point started (one clock for the point's
    // phases), so none starts before 0: a start of -1e308 s was shown and fitted.
    if let Some((i, x)) = p.samples.iter().enumerate().find(|(_, x)| {
        !(x.mbps >= 0.0
            && x.mbps <= MAX_BANDWIDTH
            && x.start >= 0.0
            && x.end >= x.start
            && x.end.is_finite())
    }) {
        return Some(format!(
            "samples[{i}] is impossible ({} MB/s from {} s to {} s): a sample's bandwidth is \
             0 to {MAX_BANDWIDTH:e} MB/s, it starts at 0 s or later (the start of its point) \
             and it ends after it starts",
            short_number(x.mbps),
            short_number(x.start),
            short_number(x.end)
        ));
    }
    None
}

/// Why a phase's summary and interval contradict its rounds' extremes, if they do.
fn bounds(p: &Phase) -> Option<String> {
    let s = &p.summary;
    if s.min > s.max {
        return Some(format!(
            "min {} is above max {}",
            short_number(s.min),
            short_number(s.max)
        ));
    }
    // The summary is of the phase's rounds (each the whole stream's bandwidth, all threads
    // together), so its median and mean lie within its extremes; the slack is the rounding
    // of a mean. A median 50x the max passed every reader and moved the fit (issue 46).
    let slack = 1e-9 * s.max.abs();
    for (name, v) in [("median", s.median), ("mean", s.mean)] {
        if v < s.min - slack || v > s.max + slack {
            return Some(format!(
                "{name} {} is outside [min, max] = [{}, {}]: a summary of rounds holds its \
                 {name} within its extremes",
                short_number(v),
                short_number(s.min),
                short_number(s.max)
            ));
        }
    }
    // The median's interval holds the median (both the within-run interval of batch
    // medians and the across-run one are built around it) and is a bandwidth's, from 0
    // (`crate::stats::batch_median_interval` never goes below; the across-run one is a
    // logarithm's, above 0): an interval upside down, of 1e308 MB/s or from -5 MB/s was
    // printed as `+--136.0%`, `+-inf%` or `+-50.5%`.
    if let Some((lo, hi)) = p.ci95 {
        if lo < 0.0 {
            return Some(format!(
                "ci95 [{}, {}] starts below 0 MB/s: the interval of a bandwidth starts at 0 \
                 or above",
                short_number(lo),
                short_number(hi)
            ));
        }
        if !(lo.is_finite() && hi.is_finite() && lo <= s.median && s.median <= hi)
            || hi > MAX_BANDWIDTH
        {
            return Some(format!(
                "ci95 [{}, {}] does not hold the median {} within 0 to {MAX_BANDWIDTH:e} MB/s: \
                 the median's 95 % interval is around it",
                short_number(lo),
                short_number(hi),
                short_number(s.median)
            ));
        }
    }
    None
}

/// Why a bandwidth alone and the same in parallel are impossible together (`what` names the
/// stream: "computations"), if they are.
pub(crate) fn speedup(what: &str, alone: f64, parallel: f64) -> Option<String> {
    (parallel > alone * MAX_SPEEDUP).then(|| {
        format!(
            "{what} are {}x faster in parallel ({} MB/s) than alone ({} MB/s); contention \
             only slows a stream, so beyond {MAX_SPEEDUP}x the measurement is wrong (columns \
             swapped, or another machine's data?)",
            match parallel / alone {
                r if r < 1e6 => format!("{r:.1}"),
                r => short_number(r),
            },
            short_number(parallel),
            short_number(alone)
        )
    })
}

/// A note when a stream is faster in parallel than alone by more than [`NOTE_SPEEDUP`].
pub(crate) fn suspicious(what: &str, alone: f64, parallel: f64) -> Option<String> {
    (parallel > alone * NOTE_SPEEDUP).then(|| {
        format!(
            "{what} {:.1}x faster in parallel than alone: the alone phase was probably \
             disturbed; measure this point again",
            parallel / alone
        )
    })
}

/// Why a bandwidth is beyond any machine, if it is.
pub(crate) fn too_high(v: f64) -> Option<String> {
    (v > MAX_BANDWIDTH).then(|| {
        format!(
            "{} MB/s is beyond any memory system ({MAX_BANDWIDTH:e} MB/s)",
            short_number(v)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Sample, Summary};

    fn phase_of(s: Summary) -> Phase {
        Phase {
            summary: s,
            sampling: String::new(),
            samples: Vec::new(),
            ci95: None,
            unstable: false,
        }
    }

    fn ok() -> Summary {
        Summary {
            median: 10.0,
            mean: 10.0,
            stddev: 1.0,
            min: 8.0,
            max: 12.0,
            count: 5,
        }
    }

    #[test]
    fn contradictory_statistics_are_named() {
        assert_eq!(phase(&phase_of(ok())), None);
        type Edit = fn(&mut Summary);
        let cases: [(Edit, &str); 7] = [
            (|s| s.count = 0, "count is 0"),
            (|s| s.min = 20.0, "min 20 is above max 12"),
            (|s| s.stddev = -1.0, "stddev is -1"),
            (|s| s.median = 1e300, "beyond any memory"),
            (
                |s| s.median = 600.0,
                "median 600 is outside [min, max] = [8, 12]",
            ),
            (|s| s.median = 7.0, "median 7 is outside"),
            (|s| s.mean = 13.0, "mean 13 is outside"),
        ];
        for (edit, want) in cases {
            let mut s = ok();
            edit(&mut s);
            let why = phase(&phase_of(s)).unwrap();
            assert!(why.contains(want), "{why}");
        }
        // The interval must hold the median and be a bandwidth's.
        for (ci, ok) in [
            ((9.0, 11.0), true),
            ((0.0, 11.0), true),
            ((-1.0, 11.0), false),
            ((-1e308, 11.0), false),
            ((11.0, 9.0), false),
            ((10.5, 11.0), false),
            ((-5.0, 1e308), false),
        ] {
            let mut p = phase_of(self::tests::ok());
            p.ci95 = Some(ci);
            assert_eq!(phase(&p).is_none(), ok, "{ci:?}: {:?}", phase(&p));
        }
        let mut p = phase_of(ok());
        p.samples.push(Sample {
            thread: 0,
            start: 0.0,
            end: 1.0,
            mbps: -5.0,
        });
        assert!(phase(&p).unwrap().starts_with("samples[0]"));
        // Times are seconds since the point started: none starts before it.
        for (start, end, ok) in [
            (0.0, 1.0, true),
            (-1.0, 1.0, false),
            (-1e308, 1.0, false),
            (1.0, f64::INFINITY, false),
            (2.0, 1.0, false),
        ] {
            let mut p = phase_of(self::tests::ok());
            p.samples.push(Sample {
                thread: 0,
                start,
                end,
                mbps: 5.0,
            });
            assert_eq!(phase(&p).is_none(), ok, "{start}..{end}: {:?}", phase(&p));
        }
    }

    #[test]
    fn speedups_beyond_noise_are_refused() {
        assert_eq!(speedup("computations", 100.0, 104.0), None);
        assert_eq!(speedup("computations", 100.0, 900.0), None);
        assert!(suspicious("computations", 100.0, 200.0).is_some());
        let why = speedup("computations", 100.0, 5000.0).unwrap();
        assert!(why.contains("50.0x"), "{why}");
    }
}
