//! Where the last-level cache stops answering: the computing kernels' bandwidth against the
//! total working set of their threads, from well below the cache to well above it, so the
//! factor of `measure`'s cache rule (`contention::measure::sweep::sizing::CACHE_FACTOR`) is a
//! measurement of this machine, not a belief. A working set the cache partly holds shows as a
//! bandwidth step when the size shrinks; the rule must put every default point on the flat
//! part above the step. It also times what `measure` pays besides the kernel: touching fresh
//! pages (the sizing's `TOUCH_BANDWIDTH`) and one look at the clock per chunk.
//!
//! `cargo bench --bench cache_step [-- MAX_GIB]`: for nt-store, copy and triad, at 1 thread
//! and at every core (each pinned to its own core), total working sets from 1/16 of the
//! last-level cache up to MAX_GIB (default: 8 times the cache, at least 4 GiB, within half
//! the free memory), each written for about 0.6 s after a first untimed pass. Prints MB/s per
//! size and the ratio to the largest size's.

use contention::kernels::stores::StoreSet;
use contention::kernels::workload::Workload;
use contention::kernels::ComputeKernel;
use contention::machine::memory;
use hwlocality::cpu::binding::CpuBindingFlags;
use hwlocality::cpu::cpuset::CpuSet;
use hwlocality::object::attributes::ObjectAttributes;
use hwlocality::object::types::ObjectType;
use hwlocality::Topology;
use std::time::{Duration, Instant};

const MIB: usize = 1 << 20;

/// Aggregate MB/s of `threads` pinned threads, each writing its own `total / threads` bytes
/// with `workload` in chunks of `chunk` bytes, looking at the clock after each chunk as
/// `measure` does.
fn mbps(
    topology: &Topology,
    workload: Workload,
    threads: usize,
    total: usize,
    chunk: usize,
) -> f64 {
    let pus: Vec<usize> = topology
        .objects_with_type(ObjectType::Core)
        .filter_map(|c| c.normal_children().find_map(|pu| pu.os_index()))
        .take(threads)
        .collect();
    let node = topology
        .objects_with_type(ObjectType::NUMANode)
        .next()
        .and_then(|n| n.os_index())
        .map(|o| o as u32);
    let per = total / threads;
    let mut buffers: Vec<_> = (0..threads)
        .map(|_| memory::allocate(topology, per, node).expect("buffer"))
        .collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = buffers
            .iter_mut()
            .zip(&pus)
            .map(|(buf, &pu)| {
                s.spawn(move || {
                    let mut set = CpuSet::new();
                    set.set(pu);
                    topology
                        .bind_cpu(&set, CpuBindingFlags::THREAD)
                        .expect("bind");
                    let buf = memory::as_bytes(buf);
                    for c in buf.chunks_mut(chunk) {
                        workload.run(c, 0);
                    }
                    let (start, mut bytes, mut pass) = (Instant::now(), 0usize, 1u8);
                    let mut looks = 0.0;
                    while start.elapsed() < Duration::from_millis(600) {
                        for c in buf.chunks_mut(chunk) {
                            workload.run(c, pass);
                            bytes += workload.bytes_per_pass(c.len());
                            looks += start.elapsed().as_secs_f64();
                        }
                        pass = pass.wrapping_add(1);
                    }
                    std::hint::black_box(looks);
                    bytes as f64 / start.elapsed().as_secs_f64()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("thread"))
            .sum::<f64>()
            / 1e6
    })
}

/// Bytes of every L3 (else L2) of the machine.
fn llc(topology: &Topology) -> usize {
    let total = |t| {
        topology
            .objects_with_type(t)
            .filter_map(|c| match c.attributes() {
                Some(ObjectAttributes::Cache(a)) => a.size().map(|s| s.get() as usize),
                _ => None,
            })
            .sum::<usize>()
    };
    match total(ObjectType::L3Cache) {
        0 => total(ObjectType::L2Cache),
        l3 => l3,
    }
}

/// Free bytes of the first NUMA node, from sysfs.
fn free() -> Option<usize> {
    memory::node_free_bytes(std::path::Path::new("/sys/devices/system"), 0).map(|b| b as usize)
}

fn main() {
    let topology = Topology::new().expect("topology");
    let cores = topology.objects_with_type(ObjectType::Core).count();
    let llc = llc(&topology).max(MIB);
    let max: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse::<usize>().ok())
        .map(|g| g << 30)
        .unwrap_or_else(|| {
            (8 * llc)
                .max(4 << 30)
                .min(free().map_or(usize::MAX, |f| f / 2))
        });
    let kernel = StoreSet::detect();
    println!(
        "last-level cache {} MiB, {cores} core(s), kernel {}; MB/s by total working set",
        llc / MIB,
        kernel.name()
    );

    // Touching fresh pages, as `measure` does before timing: allocate, fault in, free.
    let len = (1usize << 30).min(max);
    let start = Instant::now();
    let b = memory::allocate(&topology, len, None).expect("buffer");
    let touch = len as f64 / start.elapsed().as_secs_f64() / 1e6;
    drop(b);
    println!(
        "touching fresh pages: {touch:.0} MB/s (1 thread, {} MiB)",
        len / MIB
    );

    let mut sizes = Vec::new();
    let mut s = (llc / 16).max(MIB).next_power_of_two();
    while s < max {
        sizes.push(s);
        s *= 2;
    }
    sizes.push(max);
    let chunk = 4 * MIB;
    for workload in [
        ComputeKernel::NtStore,
        ComputeKernel::Copy,
        ComputeKernel::Triad,
    ]
    .map(|k| Workload::with(k, kernel))
    {
        for threads in [1, cores] {
            let rows: Vec<(usize, f64)> = sizes
                .iter()
                .map(|&size| (size, mbps(&topology, workload, threads, size, chunk)))
                .collect();
            let last = rows.last().map_or(1.0, |r| r.1);
            println!("\n{} at {threads} thread(s):", workload.name());
            println!("  working set   x LLC      MB/s   / largest");
            for (size, bw) in rows {
                println!(
                    "  {:>8} MiB  {:>6.2}  {bw:>8.0}  {:>8.2}",
                    size / MIB,
                    size as f64 / llc as f64,
                    bw / last
                );
            }
            if cores == 1 {
                break;
            }
        }
    }
    // What `measure` adds per chunk: one look at the clock and at the stop flag. Timed
    // directly (a comparison of two bandwidths would drown it in their noise), then set
    // against the chunks a second takes at the fastest bandwidth seen above.
    let looks = 1_000_000;
    let start = Instant::now();
    let mut sum = 0.0;
    for _ in 0..looks {
        sum += start.elapsed().as_secs_f64();
    }
    std::hint::black_box(sum);
    let per_look = start.elapsed().as_secs_f64() / f64::from(looks);
    let fastest = mbps(
        &topology,
        Workload::with(ComputeKernel::NtStore, kernel),
        1,
        max,
        chunk,
    ) * 1e6;
    println!(
        "\none look at the clock: {:.0} ns; at {:.0} MB/s in {} MiB chunks that is {:.4}% of the time",
        per_look * 1e9,
        fastest / 1e6,
        chunk / MIB,
        100.0 * per_look * fastest / chunk as f64
    );
}
