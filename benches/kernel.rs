//! The computation kernel against likwid-bench's `store_mem_avx512` (the HPC reference for a
//! non-temporal store stream), at the same thread counts and working set.
//!
//! `cargo bench --bench kernel [-- GiB]`: for 1..=cores threads, each pinned to its own core,
//! the working set (default 2 GiB, split between the threads, as likwid's `-w N:2GB:T`) is
//! written again and again for about 2 s, and the aggregate bandwidth is compared with
//! `likwid-bench -t store_mem_avx512 -w N:2GB:T` when likwid is installed (`apt-get install
//! likwid`). Target: the kernel at >= 97% of likwid-bench.

use contention::measure::kernel::Kernel;
use contention::measure::memory;
use hwlocality::cpu::binding::CpuBindingFlags;
use hwlocality::cpu::cpuset::CpuSet;
use hwlocality::object::types::ObjectType;
use hwlocality::Topology;
use std::process::Command;
use std::time::{Duration, Instant};

fn kernel_mbps(topology: &Topology, threads: usize, total: usize, kernel: Kernel) -> f64 {
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
                        passes as f64 * Kernel::written(buf.len()) as f64,
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

fn likwid_mbps(threads: usize, gib: usize) -> Option<f64> {
    let out = Command::new("likwid-bench")
        .args([
            "-t",
            "store_mem_avx512",
            "-w",
            &format!("N:{gib}GB:{threads}"),
        ])
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("MByte/s:")?.trim().parse().ok())
}

fn main() {
    // `cargo bench` passes `--bench`; a number is the working set in GiB.
    let gib: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(2);
    let topology = Topology::new().expect("topology");
    let cores = topology.objects_with_type(ObjectType::Core).count();
    let kernel = Kernel::detect();
    println!(
        "kernel {} vs likwid-bench store_mem_avx512, working set {gib} GiB",
        kernel.name()
    );
    println!("threads  contention MB/s  likwid MB/s  ratio");
    for t in 1..=cores {
        let ours = kernel_mbps(&topology, t, gib << 30, kernel);
        match likwid_mbps(t, gib) {
            Some(l) => println!(
                "{t:>7}  {ours:>15.0}  {l:>11.0}  {:>5.1}%",
                100.0 * ours / l
            ),
            None => {
                println!("{t:>7}  {ours:>15.0}  (likwid-bench not found: apt-get install likwid)")
            }
        }
    }
}
