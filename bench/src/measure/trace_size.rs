//! How large a trace a plan writes, said before anything runs: every reader (`show`,
//! `calibrate`, `measure --resume`) refuses a file past
//! [`MAX_INPUT_BYTES`](crate::io::read::MAX_INPUT_BYTES), so the plan says how large its
//! trace can grow, and a simulated plan whose trace could pass the limit is refused up front
//! (issue 46, N9: `--simulate paper:henri --runs 100 --cores 1..18 --max-phase 0.05` passed
//! 64 MiB after about ten runs, every later point saved where nothing could read it).
//!
//! The size is an upper bound on the samples the sweep's rules keep, times the bytes of one
//! sample as the trace writes it, under the premise of the plan's "at most" duration
//! ([`crate::measure::session::estimated_seconds`]): computing samples reach
//! [`MIN_ROUNDS`] rounds within `--max-phase` (sizing makes them do so on any core down to
//! `sizing::SLOWEST_CORE_BANDWIDTH`), so only the communications stretch a phase.
//!
//! For a point of `n` computing cores, with `s` the seconds of a computing sample
//! (`--max-phase / 42`), `p` `--max-phase`, `L` the watch's look (20 ms) and `t` the seconds
//! of one communication sample (one message on a real node; at least a sixteenth of `s` on a
//! simulated one):
//!
//! ```text
//! phase(t)      = p + L                      when p / t >= 32 (the messages fill the phase)
//!               = min(32 t, 4 p) + L         else (it runs on until they are 32, at most 4 p)
//! samples(n, t) = n (p + L) / s + n          computations alone
//!               + n phase(t) / s + n         computations in parallel
//!               + 2 (phase(t) / t + 1)       communications alone and in parallel
//! bytes         = 64 KiB + 128 B x cores of the plan
//!               + runs x sum over n of (8 KiB + 224 B x max over t of samples(n, t))
//!               + 4 KiB x core counts        (the points combining the runs, without samples)
//! ```
//!
//! `t` ranges from a message at the fastest a link or a copy moves it
//! ([`FASTEST_MESSAGES`], 50 GB/s; on a simulated machine its own bandwidths, 1.5 times
//! faster and slower than the model's for the noise) to a message that never ends (a real
//! network may be as slow as it likes). The maximum over `t` is at the range's ends or at
//! the bends of `phase(t)` (`t = p/32`, `t = p/8`), where it is evaluated.
//!
//! Measured (`--simulate`, pretty JSON as the trace is written): 200 bytes per sample on
//! average, 174 in a one-run trace, whose samples sit two levels less deep; 4.3-5.3 KiB per
//! run's point without its samples; 2.0 KiB per combined point; 17 KiB of the rest for 18
//! cores. The constants are above each: a sample's four fields are at most 224 bytes at a
//! run's depth (a number is at most 24 characters, a thread index 10). Against the traces it
//! bounds: simulated henri, `--runs 2 --cores 1..18 --max-phase 0.05`, 12.3 MiB written,
//! 18.9 MiB estimated; billy's default sweep (32 cores, 3 runs), 25.3 MiB written, 48.3 MiB
//! estimated: a simulated plan past the limit is refused ([`check`]).
//!
//! A real node's messages may come at any speed up to [`FASTEST_MESSAGES`], so its bound is
//! much looser: the real 16-core node's default sweep of 14 cores and 3 runs
//! (`tests/data/real-16core`) wrote 4.6 MiB, bounded by 26.6 MiB (its phases stopped at
//! their stable medians; the bound holds for a network slow enough to stretch every parallel
//! phase to its cap, or fast enough to fill every phase with messages), and the messages of
//! a 2-core virtual machine's shared-memory copies (2-9 GB/s) are counted as if they came at
//! 50 GB/s. Refused on that bound, a real plan of 27 contiguous core counts and 3 runs would
//! be, and the test machines' plans of 1 MiB messages and 2-6 s phases. So a real plan shows the
//! bound and warns past the limit ([`plan_line`]), and the trace's writer refuses to save a
//! point that would pass it (`io::trace_file::write`): the run stops with every point before
//! it readable.

use crate::measure::sweep::rules::LOOK;
use crate::measure::sweep::sampling::{MIN_ROUNDS, PHASE_STRETCH};
use crate::trace::MeasureConfig;

/// Bytes/s of the fastest message: faster than 400 Gb/s InfiniBand NDR (50 GB/s) and than a
/// shared-memory copy by one core (6-20 GB/s measured on the nodes the tool was tried on).
pub(crate) const FASTEST_MESSAGES: f64 = 50e9;

/// Bytes of one sample in the trace, at most (see the module documentation).
const SAMPLE_BYTES: f64 = 224.0;
/// Bytes of one run's point without its samples: summaries, sampling notes, intervals.
const POINT_BYTES: f64 = 8192.0;
/// Bytes of one point that combines the runs (no samples).
const COMBINED_POINT_BYTES: f64 = 4096.0;
/// Bytes of the rest: the machine, its settings, the MPI stack, the configuration.
const FIXED_BYTES: f64 = 65536.0;
/// Bytes of the plan per core slot.
const SLOT_BYTES: f64 = 128.0;

/// How fast the communication samples of one core count's point come, in seconds of one
/// sample: at least `shortest`, at most `longest` (`None`: any longer).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SampleSeconds {
    pub(crate) shortest: f64,
    pub(crate) longest: Option<f64>,
}

impl SampleSeconds {
    /// A real node's: one message a sample, at most at [`FASTEST_MESSAGES`], as slow as
    /// the network may be.
    pub(crate) fn real(message_bytes: u64) -> SampleSeconds {
        SampleSeconds {
            shortest: message_bytes as f64 / FASTEST_MESSAGES,
            longest: None,
        }
    }

    /// A GPU's copies: one copy a sample, or several in one of at least
    /// [`crate::gpu::MIN_COPY_SAMPLE`], whatever the link's speed.
    pub(crate) fn gpu_copies(message_bytes: u64) -> SampleSeconds {
        SampleSeconds {
            shortest: crate::gpu::MIN_COPY_SAMPLE.max(Self::real(message_bytes).shortest),
            longest: None,
        }
    }
}

/// Samples of one `n`-core point at most, when a communication sample lasts `t` seconds.
fn point_samples(c: &MeasureConfig, n: u32, t: f64) -> f64 {
    let p = c.max_phase_seconds;
    let look = LOOK.as_secs_f64();
    let s = sample_seconds(c);
    let full = f64::from(MIN_ROUNDS as u32 + 2);
    let phase = if p / t >= full {
        p + look
    } else {
        (full * t).min(f64::from(PHASE_STRETCH) * p) + look
    };
    let n = f64::from(n);
    n * ((p + look) / s + 1.0) + n * (phase / s + 1.0) + 2.0 * (phase / t + 1.0)
}

/// Seconds of a computing sample: the configuration's, or what sizing gives `--max-phase`.
fn sample_seconds(c: &MeasureConfig) -> f64 {
    c.sizing.as_ref().map_or_else(
        || crate::measure::sweep::sizing::sample_seconds(c.max_phase_seconds),
        |z| z.sample_seconds,
    )
}

/// [`point_samples`] at its largest over the communication samples `speed` allows.
fn most_samples(c: &MeasureConfig, n: u32, speed: SampleSeconds) -> f64 {
    let p = c.max_phase_seconds;
    let full = f64::from(MIN_ROUNDS as u32 + 2);
    let lo = speed.shortest.max(f64::MIN_POSITIVE);
    let hi = speed.longest.unwrap_or(f64::INFINITY).max(lo);
    // Past `4p / 32` the phase is at its cap and fewer messages only lower the count: the
    // range's end beyond it is counted there.
    let bends = [lo, p / full, f64::from(PHASE_STRETCH) * p / full, hi];
    bends
        .into_iter()
        .filter(|t| t.is_finite() && (lo..=hi).contains(t))
        .map(|t| point_samples(c, n, t))
        .fold(0.0, f64::max)
}

/// A plan's bytes, split as the relation adds them: what every trace holds, and each core
/// count's point in one run.
struct Parts {
    fixed: f64,
    points: Vec<f64>,
}

impl Parts {
    fn of(c: &MeasureConfig, slots: usize, speed: &dyn Fn(u32) -> SampleSeconds) -> Parts {
        Parts {
            fixed: FIXED_BYTES + SLOT_BYTES * slots as f64,
            points: c
                .cores
                .iter()
                .map(|&n| POINT_BYTES + SAMPLE_BYTES * most_samples(c, n, speed(n)))
                .collect(),
        }
    }

    /// Bytes of `runs` runs of the first `k` core counts.
    fn bytes(&self, runs: u32, per_run: f64, k: usize) -> f64 {
        let combined = if runs > 1 {
            COMBINED_POINT_BYTES * k as f64
        } else {
            0.0
        };
        self.fixed + f64::from(runs.max(1)) * per_run + combined
    }
}

/// Bytes of the trace of `c` at most, its communication samples as fast as `speed(n)`
/// allows at `n` cores; `slots`: the plan's core slots.
pub(crate) fn estimate(
    c: &MeasureConfig,
    slots: usize,
    speed: &dyn Fn(u32) -> SampleSeconds,
) -> u64 {
    let parts = Parts::of(c, slots, speed);
    let per_run = parts.points.iter().sum();
    parts.bytes(c.runs, per_run, c.cores.len()).ceil() as u64
}

/// The plan's line on the trace's size, and a warning when it could pass what the readers
/// take (a real node's plan: see the module documentation; a simulated one is refused).
pub(crate) fn plan_line(bytes: u64) -> String {
    let limit = crate::io::read::MAX_INPUT_BYTES;
    let mut line = format!(
        "trace       at most {} (runs x core counts x samples per phase); every reader takes \
         up to {}\n",
        crate::units::human_bytes(bytes),
        crate::units::human_bytes(limit)
    );
    if bytes > limit {
        line += &format!(
            "WARNING     the trace passes {} if every message comes at {:.0} GB/s or every \
             parallel phase runs to its cap; a point that would pass it is not saved (the run \
             stops there): fewer --runs or --cores, a larger --message-size or a shorter \
             --max-phase keep it within\n",
            crate::units::human_bytes(limit),
            FASTEST_MESSAGES / 1e9
        );
    }
    line
}

/// Refuses (exit 2) a plan whose trace could pass what the readers take, naming the
/// options it follows from and what would fit: fewer runs, or fewer core counts. Linear in
/// the core counts, whatever the runs (an edited trace asked for 4,000,000,000).
pub(crate) fn check(
    c: &MeasureConfig,
    slots: usize,
    speed: &dyn Fn(u32) -> SampleSeconds,
) -> crate::Result<()> {
    let limit = crate::io::read::MAX_INPUT_BYTES as f64;
    let parts = Parts::of(c, slots, speed);
    let mut prefix = vec![0.0];
    for p in &parts.points {
        prefix.push(prefix[prefix.len() - 1] + p);
    }
    let all = c.cores.len();
    let bytes = parts.bytes(c.runs, prefix[all], all);
    if bytes <= limit {
        return Ok(());
    }
    // The most runs below those asked that fit: one, or as many as the limit leaves room
    // for beside the combined points.
    let runs_fit = if c.runs <= 1 || parts.bytes(1, prefix[all], all) > limit {
        None
    } else {
        let room = limit - parts.bytes(2, 0.0, all);
        let most = (room / prefix[all]).floor().min(f64::from(c.runs - 1));
        Some(if most >= 2.0 { most as u32 } else { 1 })
    };
    let most_cores = |runs: u32| {
        (1..=all)
            .rev()
            .find(|&k| parts.bytes(runs, prefix[k], k) <= limit)
    };
    let cores_fit = most_cores(c.runs).filter(|&k| k < all);
    let one_run = most_cores(1);
    let mut fits = Vec::new();
    if let Some(r) = runs_fit {
        fits.push(format!("--runs {r}"));
    }
    if let Some(k) = cores_fit {
        fits.push(format!(
            "--cores {} with --runs {}",
            crate::cores::CoreList::from_counts(&c.cores[..k]),
            c.runs
        ));
    }
    let fix = if let (true, Some(k)) = (fits.is_empty(), one_run) {
        format!(
            "--cores {} with --runs 1 would fit; measure the rest in other traces (-o)",
            crate::cores::CoreList::from_counts(&c.cores[..k])
        )
    } else if fits.is_empty() {
        format!(
            "even one run of one core count could pass it, each of its {} messages being a \
             sample: raise --message-size",
            crate::units::human_bytes(c.message_size_bytes)
        )
    } else {
        format!(
            "{} would fit; measure the rest in another trace (-o)",
            fits.join(", or ")
        )
    };
    Err(crate::Error::Input(format!(
        "--runs {} x {} core count(s) (--cores {}) x up to {:.0} samples per phase and thread \
         at --max-phase {}: the trace could reach {}, past the {} every reader (show, \
         calibrate, measure --resume) takes; {fix}",
        c.runs,
        c.cores.len(),
        crate::cores::CoreList::from_counts(&c.cores),
        most_thread_samples(c),
        c.max_phase_seconds,
        crate::units::human_bytes(bytes.ceil() as u64),
        crate::units::human_bytes(crate::io::read::MAX_INPUT_BYTES),
    )))
}

/// Computing samples one thread keeps in a phase at most (a phase stretched to its cap).
fn most_thread_samples(c: &MeasureConfig) -> f64 {
    let p = c.max_phase_seconds;
    (f64::from(PHASE_STRETCH) * p + LOOK.as_secs_f64()) / sample_seconds(c) + 1.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The real traces of `tests/data/real-16core` are within the bound of their own
    /// configuration and plan, at a real node's speeds.
    #[test]
    fn real_traces_are_within_the_bound_of_their_plan() {
        let root =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/real-16core");
        for name in ["trace-13cores-shm.json", "trace-default-14cores-3runs.json"] {
            let path = root.join(name);
            let t = crate::io::trace_file::read(&path).unwrap();
            let written = std::fs::metadata(&path).unwrap().len();
            let bound = estimate(
                &t.config,
                crate::measure::session::trace_slots(&t.plan),
                &|_| SampleSeconds::real(t.config.message_size_bytes),
            );
            assert!(written <= bound, "{name}: {written} > {bound}");
        }
    }

    /// The relation's two regimes: messages that fill a phase (the parallel phase ends at
    /// `--max-phase`, many communication samples) and messages too slow for it (the phase
    /// runs on to its cap, many computing samples); the bound takes the larger.
    #[test]
    fn the_bound_takes_the_larger_of_fast_and_slow_messages() {
        let t = crate::io::trace_file::read(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../tests/data/real-16core/trace-default-14cores-3runs.json"),
        )
        .unwrap();
        let c = t.config;
        let p = c.max_phase_seconds;
        let fast = point_samples(&c, 14, 1e-3);
        let slow = point_samples(&c, 14, p);
        // Fast: 1.52 s of messages of 1 ms, twice; computations 43.6 samples a thread, twice.
        let per_thread = (p + 0.02) / sample_seconds(&c) + 1.0;
        assert!((fast - (28.0 * per_thread + 2.0 * (1520.0 + 1.0))).abs() < 1.0);
        // Slow: the parallel phase at its cap, 4 x 1.5 s + a look; 32 messages' worth at most.
        let capped = (4.0 * p + 0.02) / sample_seconds(&c) + 1.0;
        assert!((slow - (14.0 * (per_thread + capped) + 2.0 * (6.02 / p + 1.0))).abs() < 1.0);
        let speed = SampleSeconds {
            shortest: 1e-3,
            longest: None,
        };
        // Here 1 ms messages give the most: 1,520 of them a phase.
        assert!(fast > slow);
        assert_eq!(most_samples(&c, 14, speed), fast);
        // Messages of 0.2 s at the fastest: the phase at its cap, 31 messages a phase.
        let slow_only = SampleSeconds {
            shortest: 0.2,
            longest: None,
        };
        assert_eq!(most_samples(&c, 14, slow_only), point_samples(&c, 14, 0.2));
        assert!(point_samples(&c, 14, 0.2) > slow);
        // Bounded to fast messages only, the slow regime is not counted.
        let only_fast = SampleSeconds {
            shortest: 1e-3,
            longest: Some(1e-3),
        };
        assert_eq!(most_samples(&c, 14, only_fast), fast);
        // More runs, more core counts: more bytes; the limit refused, naming what fits.
        let real = |_| SampleSeconds::real(c.message_size_bytes);
        let one = MeasureConfig {
            runs: 1,
            ..c.clone()
        };
        assert!(estimate(&one, 16, &real) < estimate(&c, 16, &real));
        let many = MeasureConfig {
            runs: 100,
            ..c.clone()
        };
        let e = check(&many, 16, &real).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        let e = e.to_string();
        assert!(
            e.contains("--runs 100 x 14 core count(s) (--cores 1..14)"),
            "{e}"
        );
        assert!(
            e.contains("--runs 7, or --cores 1 with --runs 100 would fit"),
            "{e}"
        );
        assert!(check(&c, 16, &real).is_ok());
    }
}
