//! The computation kernel against likwid-bench's non-temporal store kernel of the same
//! instruction set (the HPC reference for a non-temporal store stream): `store_mem_avx512`,
//! `store_mem_avx` or `store_mem_sse` for the AVX-512, AVX2 and SSE2 kernels (likwid's "avx"
//! kernels use 256-bit stores, as the AVX2 one here), at the same thread counts and working
//! set.
//!
//! `cargo bench --bench kernel [-- GiB]`: for 1..=cores threads, each pinned to its own core,
//! the working set (default 2 GiB, split between the threads, as likwid's `-w N:2GB:T`) is
//! written again and again for about 2 s, and the aggregate bandwidth is compared with
//! `likwid-bench -t store_mem_<isa> -w N:2GB:T`. Target: the kernel at >= 97% of likwid-bench.
//!
//! Needs likwid (Debian: `apt-get install likwid`; not installed by `.ci/setup`, which does
//! not run benchmarks). likwid-bench reads hardware counters through `/dev/cpu/*/msr` only
//! for `likwid-perfctr`; the stream benchmarks run as any user.

use contention::kernels::stores::StoreSet;
use contention::machine::memory;
use hwlocality::cpu::binding::CpuBindingFlags;
use hwlocality::cpu::cpuset::CpuSet;
use hwlocality::object::types::ObjectType;
use hwlocality::Topology;
use std::process::Command;
use std::time::{Duration, Instant};

fn kernel_mbps(topology: &Topology, threads: usize, total: usize, kernel: StoreSet) -> f64 {
    let pus: Vec<usize> = topology
        .objects_with_type(ObjectType::Core)
        .filter_map(|c| c.normal_children().find_map(|pu| pu.os_index()))
        .take(threads)
        .collect();
    let per = total / threads;
    let node = topology
        .objects_with_type(ObjectType::NUMANode)
        .next()
        .and_then(|n| n.os_index())
        .map(|o| o as u32);
    let mut buffers: Vec<_> = (0..threads)
        .map(|_| memory::allocate(topology, per, node).expect("buffer"))
        .collect();
    let bytes: f64 = std::thread::scope(|s| {
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
                    kernel.fill(buf, 1); // warm-up pass
                    let start = Instant::now();
                    let mut passes = 0u32;
                    while start.elapsed() < Duration::from_secs(2) {
                        kernel.fill(buf, passes as u8);
                        passes += 1;
                    }
                    (
                        passes as f64 * StoreSet::written(buf.len()) as f64,
                        start.elapsed(),
                    )
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                let (b, t) = h.join().expect("thread");
                b / t.as_secs_f64()
            })
            .sum()
    });
    bytes / 1e6
}

/// The likwid-bench test with the stores of `kernel`.
fn likwid_test(kernel: StoreSet) -> &'static str {
    match kernel {
        StoreSet::Avx512 => "store_mem_avx512",
        StoreSet::Avx2 => "store_mem_avx",
        StoreSet::Sse2 => "store_mem_sse",
        StoreSet::Portable => "store_mem",
    }
}

/// likwid-bench's bandwidth, or why there is none.
fn likwid_mbps(test: &str, threads: usize, gib: usize) -> Result<f64, String> {
    let out = Command::new("likwid-bench")
        .args(["-t", test, "-w", &format!("N:{gib}GB:{threads}")])
        .output()
        .map_err(|e| format!("likwid-bench not found ({e}): apt-get install likwid"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("MByte/s:")?.trim().parse().ok())
        .ok_or_else(|| {
            format!(
                "likwid-bench -t {test} gave no bandwidth (exit {:?}): {}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .chain(stdout.lines())
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("")
            )
        })
}

fn main() {
    // `cargo bench` passes `--bench`; a number is the working set in GiB.
    let gib: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(2);
    let topology = Topology::new().expect("topology");
    let cores = topology.objects_with_type(ObjectType::Core).count();
    let kernel = StoreSet::detect();
    let test = likwid_test(kernel);
    println!(
        "kernel {} vs likwid-bench {test}, working set {gib} GiB",
        kernel.name()
    );
    println!("threads  contention MB/s  likwid MB/s  ratio");
    for t in 1..=cores {
        let ours = kernel_mbps(&topology, t, gib << 30, kernel);
        match likwid_mbps(test, t, gib) {
            Ok(l) => println!(
                "{t:>7}  {ours:>15.0}  {l:>11.0}  {:>5.1}%",
                100.0 * ours / l
            ),
            Err(why) => println!("{t:>7}  {ours:>15.0}  ({why})"),
        }
    }
}
