//! The GPU engine's copies alone against the reference probe's plain loop, each way.
//!
//! `cargo bench --bench gpu_copy [-- GPU [MIB [COPIES]]]` on a node with an NVIDIA GPU and its
//! driver: rounds of `COPIES` copies (default 150) of `MIB` MiB (64) between the GPU `GPU`
//! (0, PCI bus order) and host memory, device to host then host to device, alternating the
//! engine of `measure --engine gpu` (the tool's own buffer, pinned by `cuMemHostRegister`)
//! and the plain loop of the reference probe (`cuMemAllocHost`, what `cudaMallocHost`
//! gives), both `cuMemcpyAsync` then synchronise over a ring of 4 slots. Prints each round
//! and the ratio of the medians. Target: the engine at >= 97 % of the plain loop. Without a
//! driver it says so and exits 0 (CI has no GPU).

use contention::gpu::{copies_alone, HostMemory};
use contention::trace::CopyDirection;

const ROUNDS: usize = 3;
const SLOTS: usize = 4;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let arg = |i: usize, default: usize| {
        std::env::args()
            .skip(1)
            .filter(|a| a != "--bench")
            .nth(i)
            .map_or(default, |a| a.parse().expect("a whole number"))
    };
    let (gpu, mib, copies) = (arg(0, 0) as u32, arg(1, 64), arg(2, 150));
    let bytes = mib << 20;
    println!("GPU {gpu}: {copies} copies of {mib} MiB per round, {ROUNDS} rounds each way");
    for direction in [CopyDirection::DeviceToHost, CopyDirection::HostToDevice] {
        let (mut engine, mut plain) = (Vec::new(), Vec::new());
        for round in 0..ROUNDS {
            for (host, into) in [
                (HostMemory::Registered, &mut engine),
                (HostMemory::DriverPinned, &mut plain),
            ] {
                match copies_alone(gpu, direction, (bytes, SLOTS, copies), host) {
                    Ok(gbps) => {
                        println!(
                            "{:>14} round {round}: {host:?} {gbps:.2} GB/s",
                            direction.words()
                        );
                        into.push(gbps);
                    }
                    Err(e) => {
                        println!("skipped: {e}");
                        return;
                    }
                }
            }
        }
        let (e, p) = (median(engine), median(plain));
        println!(
            "{:>14}: engine {e:.2} GB/s, plain loop {p:.2} GB/s, {:.1} % (target >= 97 %)",
            direction.words(),
            100.0 * e / p
        );
    }
}
