//! How big the buffers are and how finely they are timed, from the machine at hand: pure
//! functions of the cache sizes, the core counts, the free memory and `--max-phase`, so the
//! rules are tested on machines this one is not (hwloc XML dumps, synthetic topologies with
//! 256 MiB or 1 GiB of last-level cache per socket).
//!
//! Two independent questions, which an earlier rule ("16 times the machine's cache per core,
//! one sample per pass") answered together, badly on big-cache machines:
//!
//! - **How much data** (`computing`, `message_ring`): enough that the last-level cache
//!   cannot hold it, so what is measured is memory (section 2.3 of the paper: the model
//!   ignores the cache and the benchmark makes the streams bypass it). The rule is STREAM's
//!   (McCalpin: each array at least 4 times the sum of the last-level caches), applied to
//!   what can hold the data: the working set of the computing threads together against the
//!   last-level cache of the socket(s) they run on, the communication ring against the cache
//!   of the communication thread's socket. `CACHE_FACTOR` says why 4 is enough here.
//! - **How finely it is timed** (`sample_seconds`, `chunk_bytes`): a computing thread
//!   walks its buffer in chunks and closes a sample at the first chunk boundary after
//!   `sample_seconds`, so a phase gets about `TARGET_ROUNDS` samples per thread within
//!   `--max-phase` whatever the buffer size, and at least `crate::measure::sweep::sampling::MIN_ROUNDS`
//!   even on the slowest core this is sized for.

use crate::units::human_bytes;

/// The working set must be this many times the last-level cache it could live in.
///
/// STREAM's rule (each array at least 4 times the sum of the last-level caches). Measured on
/// the development machine, an Intel Xeon guest of 2 cores whose hwloc reports a 480 MiB L3
/// (`cargo bench --bench cache_step`, quiet machine; MB/s at 1 thread by total working set):
///
/// ```text
/// working set   32M    64M   128M   256M   512M    1G     2G     4G
/// nt-store    23671  23646  25055  25043  22744  22819  22898  24733
/// copy        28826  20863  13635  13015  13203  12539  12689  12988
/// triad       29109  26176  16240  14769  14690  14655  14445  14589
/// ```
///
/// Non-temporal stores show no cache step at any size (they bypass it, as section 2.3 of the
/// paper wants); copy and triad step down between 64 and 256 MiB (at 2 threads too), half the
/// 480 MiB hwloc reports at most (a guest shares its host's cache). Any factor of 1 or more
/// clears that step here; 4 keeps STREAM's margin for machines whose whole cache is theirs and
/// whose replacement policy keeps part of a working set a little larger than the cache. Its
/// cost is memory: 4 x 480 MiB per rule here.
pub(crate) const CACHE_FACTOR: u64 = 4;

/// The most message buffers of a ring (`--message-buffers`, and what [`message_ring`]
/// picks): 4 GiB of 1 MiB messages.
pub(crate) const MAX_MESSAGE_BUFFERS: u32 = 4096;

/// Never less than this per computing core: below it a pass is a handful of chunks and page
/// or TLB effects of the first touch dominate.
pub(crate) const MIN_BUFFER_PER_CORE: u64 = 64 << 20;

/// Rounds a phase aims for within `--max-phase` (sampling's [`MIN_ROUNDS`] plus a margin for
/// samples that end late at a chunk boundary on a slow core).
///
/// [`MIN_ROUNDS`]: crate::measure::sweep::sampling::MIN_ROUNDS
pub(crate) const TARGET_ROUNDS: usize = 40;

/// Per-core bandwidth, bytes/s, of the slowest core the chunks are sized for: a loaded
/// 128-core socket writing to the other socket's memory while the communication stream
/// competes (a 2-socket AMD EPYC of 128 cores per socket reaches about 100 GB/s across
/// sockets with every core writing: 0.8 GB/s per core; contention with the communication
/// stream takes a further fraction). The paper's slowest, bora remote at 18 cores, is
/// 1.8 GB/s per core.
pub(crate) const SLOWEST_CORE_BANDWIDTH: f64 = 0.5e9;

/// A chunk takes at most this fraction of a sample on the slowest core, so a sample ends at
/// most a quarter of its length late and a phase keeps at least
/// `(TARGET_ROUNDS + 2) / 1.25 - 2` rounds.
pub(crate) const CHUNK_FRACTION: f64 = 0.25;

/// The smallest chunk: the clock read and the stop-flag check once per chunk (28 ns on the
/// development machine, `cargo bench --bench cache_step`) are then a thousandth of its time
/// at 40 GB/s, and 0.016 % of a default 4 MiB chunk at 24 GB/s.
pub(crate) const MIN_CHUNK: u64 = 1 << 20;

/// Bytes/s at which fresh pages are touched (first-touch page faults, zeroing), for the
/// estimates that time limits come from: 2.4 GB/s on the development machine when quiet
/// (`cargo bench --bench cache_step` prints it), down to 0.3-0.7 GB/s while compilers load
/// both its cores. Estimates err long, the tests triple them.
pub(crate) const TOUCH_BANDWIDTH: f64 = 1.0e9;

const MIB: u64 = 1 << 20;

/// Rounds `b` down to whole MiB (at least one).
fn whole_mib(b: u64) -> u64 {
    (b & !(MIB - 1)).max(MIB)
}

/// Seconds of one computing sample: `--max-phase` shared by [`TARGET_ROUNDS`] rounds and the
/// first and last iteration that are dropped (section 4.1.1).
pub(crate) fn sample_seconds(max_phase: f64) -> f64 {
    max_phase / (TARGET_ROUNDS + 2) as f64
}

/// Bytes of one chunk: [`CHUNK_FRACTION`] of a sample at [`SLOWEST_CORE_BANDWIDTH`], whole
/// MiB, between [`MIN_CHUNK`] and the buffer.
pub(crate) fn chunk_bytes(max_phase: f64, buffer: u64) -> u64 {
    let want = (sample_seconds(max_phase) * CHUNK_FRACTION * SLOWEST_CORE_BANDWIDTH) as u64;
    whole_mib(want.max(MIN_CHUNK)).min(buffer.max(1))
}

/// The fewest rounds a phase running for `max_phase` keeps on a core writing `bandwidth`
/// bytes/s in chunks of `chunk` bytes: each sample lasts at most a sample plus a chunk, and
/// the first and last are dropped. Only the tests check the sizing against it.
#[cfg(test)]
pub(crate) fn rounds_at(max_phase: f64, chunk: u64, bandwidth: f64) -> usize {
    let longest = sample_seconds(max_phase) + chunk as f64 / bandwidth;
    ((max_phase / longest).floor() as usize).saturating_sub(2)
}

/// Whether the computing streams bypass the cache by design (non-temporal stores): then a
/// working set below the rule at small core counts does not bias them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CacheUse {
    /// Non-temporal stores (the paper's kernel).
    Bypass,
    /// Ordinary loads and stores (STREAM's copy and triad).
    Temporal,
}

/// The computing buffers as sized.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Computing {
    /// Bytes per computing core.
    pub(crate) buffer: u64,
    /// Bytes the cache rule asked for per core, before the memory cap.
    pub(crate) wanted: u64,
    /// The smallest core count whose working set meets the rule (`None`: none does).
    pub(crate) first_meeting_rule: Option<u32>,
}

/// Sizes the computing buffers for a sweep up to `max_threads` threads on cores under `llc`
/// bytes of last-level cache (0: unknown), within `room` bytes of free memory (`None`:
/// unknown).
///
/// With non-temporal stores the rule binds the largest point (its working set is what the
/// socket's cache would see together); smaller points work on less but their stores bypass
/// the cache. With temporal kernels every point must meet it alone, so each buffer is the
/// whole rule, memory permitting.
pub(crate) fn computing(
    use_: CacheUse,
    llc: u64,
    max_threads: u32,
    room: Option<u64>,
) -> Computing {
    let n = u64::from(max_threads.max(1));
    let rule = CACHE_FACTOR * llc;
    let per_core = match use_ {
        CacheUse::Bypass => rule.div_ceil(n),
        CacheUse::Temporal => rule,
    };
    // Rounded up: rounding down could leave the working set just short of the rule.
    let wanted = per_core.max(MIN_BUFFER_PER_CORE).div_ceil(MIB) * MIB;
    let buffer = match room {
        Some(r) => whole_mib((r / n).min(wanted)),
        None => wanted,
    };
    Computing {
        buffer,
        wanted,
        first_meeting_rule: first_meeting(rule, buffer, max_threads),
    }
}

/// The smallest core count up to `max` whose `n * buffer` reaches `rule`.
pub(crate) fn first_meeting(rule: u64, buffer: u64, max: u32) -> Option<u32> {
    let n = rule.div_ceil(buffer.max(1)).max(1);
    (n <= u64::from(max)).then_some(n as u32)
}

/// How many `message`-byte buffers the communication stream cycles through so that together
/// they reach the cache rule against `llc` bytes (the communication thread's socket), within
/// `room` bytes for the ring: a message received again and again into one buffer would be
/// written to the cache, not to memory, once the cache can hold it.
pub(crate) fn message_ring(message: u64, llc: u64, room: Option<u64>) -> u32 {
    let want = (CACHE_FACTOR * llc).div_ceil(message.max(1)).max(1);
    let fits = room.map_or(want, |r| (r / message.max(1)).max(1));
    want.min(fits).min(u64::from(MAX_MESSAGE_BUFFERS)) as u32
}

/// The warnings of a sizing, for the plan and the trace: where the cache rule is missed.
pub(crate) fn warnings(
    c: &Computing,
    llc_comp: u64,
    user_buffer: bool,
    max_threads: u32,
    message: u64,
    ring: u32,
    llc_comm: u64,
) -> Vec<String> {
    let mut out = Vec::new();
    let rule = CACHE_FACTOR * llc_comp;
    let top = c.buffer * u64::from(max_threads.max(1));
    if llc_comp > 0 && top < rule {
        out.push(format!(
            "the computing working set ({} at {max_threads} core(s)) is {:.1} times the {} of \
             last-level cache of its socket(s), short of the {CACHE_FACTOR} times that keeps the \
             cache out of the measurement{}",
            human_bytes(top),
            top as f64 / llc_comp as f64,
            human_bytes(llc_comp),
            if user_buffer {
                " (--buffer-size)".to_string()
            } else {
                format!(
                    ": free memory allows {} per core where {} was wanted",
                    human_bytes(c.buffer),
                    human_bytes(c.wanted)
                )
            }
        ));
    }
    let ring_bytes = message * u64::from(ring);
    if llc_comm > 0 && ring_bytes < CACHE_FACTOR * llc_comm {
        out.push(format!(
            "the {ring} message buffer(s) ({}) are {:.1} times the {} of last-level cache of \
             the communication core's socket, short of {CACHE_FACTOR} times: received data may \
             partly stay in the cache (more --message-buffers, memory permitting)",
            human_bytes(ring_bytes),
            ring_bytes as f64 / llc_comm as f64,
            human_bytes(llc_comm)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::measure::sweep::sampling::MIN_ROUNDS;
    use crate::measure::sweep::sizing::*;

    const GIB: u64 = 1 << 30;

    #[test]
    fn a_big_cache_sizes_the_working_set_not_each_core() {
        // This machine kind: 480 MiB of L3, 2 cores, ~3.8 GB free on its node.
        let c = computing(CacheUse::Bypass, 480 * MIB, 2, Some(3_400 * MIB));
        assert_eq!(c.buffer, 960 * MIB);
        assert_eq!(c.first_meeting_rule, Some(2));
        // A 128-core socket with 1 GiB of L3: 32 MiB per core would do, the floor gives 64.
        let c = computing(CacheUse::Bypass, GIB, 128, None);
        assert_eq!(c.buffer, MIN_BUFFER_PER_CORE);
        assert_eq!(c.first_meeting_rule, Some(64));
        // 256 MiB per socket, 64 cores: the floor again, every point from 16 cores meets it.
        let c = computing(CacheUse::Bypass, 256 * MIB, 64, None);
        assert_eq!((c.buffer, c.first_meeting_rule), (64 * MIB, Some(16)));
    }

    #[test]
    fn temporal_kernels_need_the_whole_rule_per_core_and_memory_caps_it() {
        let c = computing(CacheUse::Temporal, 480 * MIB, 2, None);
        assert_eq!(c.buffer, 4 * 480 * MIB);
        assert_eq!(c.first_meeting_rule, Some(1));
        let capped = computing(CacheUse::Temporal, 480 * MIB, 2, Some(2 * GIB));
        assert_eq!(capped.buffer, GIB);
        assert_eq!(capped.wanted, 4 * 480 * MIB);
        assert_eq!(capped.first_meeting_rule, Some(2));
        // Together the two meet the rule: no warning, the plan says the 1-core point is short.
        assert!(warnings(&capped, 480 * MIB, false, 2, 64 * MIB, 30, 480 * MIB).is_empty());
        let tight = computing(CacheUse::Temporal, 480 * MIB, 2, Some(GIB));
        let w = warnings(&tight, 480 * MIB, false, 2, 64 * MIB, 30, 480 * MIB);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].contains("free memory allows 512 MiB per core"),
            "{}",
            w[0]
        );
    }

    #[test]
    fn unknown_caches_fall_back_to_the_floor() {
        let c = computing(CacheUse::Bypass, 0, 18, None);
        assert_eq!(c.buffer, MIN_BUFFER_PER_CORE);
        assert_eq!(message_ring(64 * MIB, 0, None), 1);
    }

    #[test]
    fn every_phase_gets_enough_rounds_on_the_slowest_core() {
        for max_phase in [0.5, 1.5, 3.0, 10.0] {
            let chunk = chunk_bytes(max_phase, 64 * MIB);
            assert!(chunk >= MIN_CHUNK && chunk.is_multiple_of(MIB));
            for bw in [SLOWEST_CORE_BANDWIDTH, 2e9, 20e9, 60e9] {
                let r = rounds_at(max_phase, chunk, bw);
                assert!(r >= MIN_ROUNDS, "{max_phase} s at {bw}: {r} rounds");
                assert!(r <= TARGET_ROUNDS, "{max_phase} s at {bw}: {r} rounds");
            }
        }
        // The default phase: chunks of a few MiB, samples of about 36 ms.
        assert_eq!(chunk_bytes(1.5, GIB), 4 * MIB);
        assert!((sample_seconds(1.5) - 1.5 / 42.0).abs() < 1e-12);
        // A buffer smaller than a chunk is one chunk.
        assert_eq!(chunk_bytes(10.0, 2 * MIB), 2 * MIB);
    }

    #[test]
    fn the_message_ring_dwarfs_the_cache_within_its_room() {
        assert_eq!(message_ring(64 * MIB, 480 * MIB, None), 30);
        assert_eq!(message_ring(64 * MIB, 32 * MIB, None), 2);
        assert_eq!(message_ring(GIB, 32 * MIB, None), 1);
        assert_eq!(message_ring(64 * MIB, 480 * MIB, Some(640 * MIB)), 10);
        assert_eq!(message_ring(64 * MIB, 480 * MIB, Some(MIB)), 1);
        // Tiny messages: no more slots than `--message-buffers` accepts.
        assert_eq!(message_ring(4096, GIB, None), MAX_MESSAGE_BUFFERS);
    }

    #[test]
    fn a_missed_rule_is_named_with_its_fix() {
        let c = computing(CacheUse::Bypass, 32 * MIB, 2, None);
        assert!(warnings(&c, 32 * MIB, false, 2, 64 * MIB, 2, 32 * MIB).is_empty());
        let ring = warnings(&c, 32 * MIB, false, 2, 64 * MIB, 1, 32 * MIB);
        assert_eq!(ring.len(), 1, "{ring:?}");
        assert!(ring[0].contains("--message-buffers"), "{ring:?}");
        let given = computing(CacheUse::Bypass, 32 * MIB, 2, Some(16 * MIB));
        let w = warnings(&given, 32 * MIB, true, 2, 64 * MIB, 2, 32 * MIB);
        assert!(w[0].contains("(--buffer-size)"), "{w:?}");
    }
}
