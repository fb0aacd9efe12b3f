//! The communication thread against a plain MPI receive loop of the same message size.
//!
//! `cargo bench --bench comm [-- MiB]` starts itself as two ranks on this host (as `measure`
//! does, with the MPI library's own launcher): first a plain loop, rank 1 sending 64 MiB messages back to back and rank 0's main
//! thread receiving them; then `measure`'s protocol, rank 0 receiving in its communication
//! thread with the stop/end handshake. Both report the median per-message bandwidth and the
//! aggregate, and the MPI stack they crossed (forced by the library's variables:
//! `benches/transports.sh` runs it over every stack). Target: the communication thread at
//! >= 95% of the plain loop.

use contention::measure::sweep::comm::{self, Pattern};
use contention::mpi::progress;
use contention::mpi::{driver, launch};
use contention::stats;
use mpi::environment::Threading;
use mpi::point_to_point::{Destination, Source};
use mpi::topology::{Communicator, SimpleCommunicator};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const MESSAGES: usize = 150;

fn main() {
    let args: Vec<_> = std::env::args_os().skip(1).collect();
    if !launch::under_launcher(|k| std::env::var(k).ok()) {
        let exe = std::env::current_exe().expect("own path");
        let shape = launch::Shape {
            ranks: 2,
            rank_hosts: None,
            as_root: launch::is_root(),
            forward: &[],
        };
        let library = contention::mpi::world::library();
        let (_, line) = launch::plan_launch(launch::Launcher::Auto, &library, &shape, &exe, &args)
            .expect("a launcher for this MPI library");
        let ended = driver::run(&line, progress::Mode::Quiet, driver::Signals::Default)
            .expect("the launcher starts");
        std::process::exit(ended.code);
    }
    let mib: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(64);
    let size = mib << 20;
    let (universe, _) = mpi::initialize_with_threading(Threading::Serialized).expect("MPI");
    let world = universe.world();
    let mut buf = vec![0u8; size];
    if world.rank() == 1 {
        for _ in 0..MESSAGES {
            world.process_at_rank(0).send(&buf[..]);
        }
        comm::serve(&world, Pattern::Pong, size, &buf, &mut []);
        return;
    }
    // Plain loop: main thread, back-to-back receives.
    let rank1 = world.process_at_rank(1);
    let mut ends = Vec::with_capacity(MESSAGES);
    let start = Instant::now();
    for _ in 0..MESSAGES {
        rank1.receive_into(&mut buf[..]);
        ends.push(start.elapsed().as_secs_f64());
    }
    let plain = per_message(&ends, size);
    let plain_total = (MESSAGES - 1) as f64 * size as f64 / (ends[MESSAGES - 1] - ends[0]) / 1e6;

    // measure's protocol, in a thread of its own.
    let stop = AtomicBool::new(false);
    let timings = Mutex::new(Vec::new());
    let t0 = Instant::now();
    std::thread::scope(|s| {
        s.spawn(|| {
            let world = SimpleCommunicator::world();
            comm::receive(
                &world,
                Pattern::Pong,
                size,
                &mut buf,
                &[],
                &stop,
                &timings,
                t0,
            );
        });
        while comm::lock(&timings).len() < MESSAGES {
            std::thread::sleep(Duration::from_millis(5));
        }
        stop.store(true, Ordering::Relaxed);
    });
    let t = comm::lock(&timings).clone();
    let ends: Vec<f64> = t.iter().map(|s| s.end).collect();
    let thread = per_message(&ends, size);
    let thread_total =
        (ends.len() - 1) as f64 * size as f64 / (ends[ends.len() - 1] - ends[0]) / 1e6;
    comm::shutdown(&world);
    let library = contention::mpi::world::library();
    let stack = contention::mpi::stack::this_process(&library.version);
    println!("{mib} MiB messages, {MESSAGES} each, two ranks on this host");
    println!("stack: {}", contention::mpi::stack::describe(&stack));
    println!("                       median MB/s   aggregate MB/s");
    println!("plain receive loop     {plain:>11.0}   {plain_total:>14.0}");
    println!("communication thread   {thread:>11.0}   {thread_total:>14.0}");
    println!(
        "ratio                  {:>10.1}%   {:>13.1}%",
        100.0 * thread / plain,
        100.0 * thread_total / plain_total
    );
}

/// Median bandwidth between consecutive completions, dropping the first message.
fn per_message(ends: &[f64], size: usize) -> f64 {
    let bw: Vec<f64> = ends
        .windows(2)
        .map(|w| size as f64 / (w[1] - w[0]) / 1e6)
        .collect();
    stats::median(&bw).unwrap_or(f64::NAN)
}
