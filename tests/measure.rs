//! `contention measure` end to end on this machine: a real two-rank MPI run on NUMA node 0,
//! refusals before any work, Ctrl-C, resume and a stalled sender.
//!
//! Runs are small (one computing core, short phases, small buffers): they check the
//! instrument's behaviour, not the machine's speed, so nothing here asserts a bandwidth value.

use crate::common::run::{
    command, one_job, rank_pids, run_limit, start_limit, temp_dir, text, wait_exit, wait_for,
};
use contention::io::trace_file;
use contention::trace::{Phase, Trace};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A tiny run: one core, small buffers, two message buffers (the default ring would dwarf a
/// large last-level cache: gigabytes to touch for a test of behaviour).
const TINY: &[&str] = &[
    "--numa",
    "0,0",
    "--message-size",
    "4MiB",
    "--buffer-size",
    "16MiB",
    "--message-buffers",
    "2",
];

/// [`TINY`] and `extra`, on one core unless `extra` says otherwise.
fn tiny<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let cores: &[&str] = if extra.contains(&"--cores") {
        &[]
    } else {
        &["--cores", "1..1"]
    };
    // One run, the layout these tests read, unless a test asks for runs (the default's
    // three are tested with them, and in the main job).
    let runs: &[&str] = if extra.contains(&"--runs") {
        &[]
    } else {
        &["--runs", "1"]
    };
    TINY.iter()
        .chain(cores)
        .chain(runs)
        .chain(extra)
        .copied()
        .collect()
}

fn measure_cmd(out: &Path, extra: &[&str]) -> Command {
    let mut c = command();
    c.arg("measure").args(tiny(extra)).arg("-o").arg(out);
    c
}

/// How long to wait for a tiny run with `extra` to start its sweep, and to finish it: from
/// its own plan.
fn limits(extra: &[&str]) -> (Duration, Duration) {
    let args = tiny(extra);
    (start_limit(&args), run_limit(&args))
}

fn run(c: &mut Command) -> Output {
    c.output().expect("contention runs")
}

fn check_phase(name: &str, p: &Phase) {
    assert!(!p.samples.is_empty(), "{name}: no samples");
    assert!(p.summary.count > 0, "{name}");
    for v in [
        p.summary.median,
        p.summary.mean,
        p.summary.min,
        p.summary.max,
    ] {
        assert!(v.is_finite() && v > 0.0, "{name}: {:?}", p.summary);
    }
    for s in &p.samples {
        assert!(
            s.mbps.is_finite() && s.mbps > 0.0 && s.end > s.start,
            "{name}: {s:?}"
        );
    }
    assert!(
        p.sampling.contains("steady window"),
        "{name}: {}",
        p.sampling
    );
}

#[test]
fn a_real_run_on_node_0_gives_a_complete_trace() {
    let _one = one_job();
    let d = temp_dir("measure-e2e");
    let out = d.join("t.json");
    let o = run(measure_cmd(&out, &["--max-phase", "0.5"]).arg("--quiet"));
    assert!(o.status.success(), "{}", text(&o));

    let t: Trace = trace_file::read(&out).unwrap();
    assert!(t.complete);
    assert_eq!(t.config.cores, vec![1]);
    assert_eq!(t.mpi.thread_level, "Serialized");
    assert!(
        t.mpi.library_version.contains("MPI"),
        "{}",
        t.mpi.library_version
    );
    // With --cores 1 only the first computing core runs; on a 2-core machine the plan also
    // lists the communication core as a shared second one (measure shares it by itself there).
    assert!(t.plan.compute.len() == 1 || t.plan.comm_shares_core);
    assert_ne!(t.plan.compute[0].core, t.plan.comm.core);
    assert!(!t.machine.numa_nodes.is_empty() && t.machine.cores_per_socket >= 2);
    assert_eq!(t.points.len(), 1);
    let p = &t.points[0];
    check_phase("comp_alone", &p.comp_alone);
    check_phase("comm_alone", &p.comm_alone);
    check_phase("comp_parallel", &p.comp_parallel);
    check_phase("comm_parallel", &p.comm_parallel);
    // The parallel samples were taken while both streams ran: their time spans overlap.
    let span = |ph: &Phase| {
        (
            ph.samples.iter().map(|s| s.start).fold(f64::MAX, f64::min),
            ph.samples.iter().map(|s| s.end).fold(f64::MIN, f64::max),
        )
    };
    let (c, m) = (span(&p.comp_parallel), span(&p.comm_parallel));
    assert!(
        c.0 < m.1 && m.0 < c.1,
        "parallel windows do not overlap: {c:?} {m:?}"
    );
    // ... and after the alone phases, on the point's clock.
    assert!(span(&p.comp_alone).1 <= c.0 && span(&p.comm_alone).1 <= m.0);

    // The trace says what it measured: intra-node copies, where every page and thread was.
    use contention::trace::TransportKind;
    let transport = t.transport.as_ref().expect("transport recorded");
    assert_eq!(transport.kind, TransportKind::IntraNode);
    assert_eq!(transport.hosts, t.mpi.hosts);
    let node = t.plan.comp_numa_os;
    assert_eq!(t.buffers.len(), 2, "{:?}", t.buffers);
    for b in &t.buffers {
        assert_eq!(b.bound_to, Some(node), "{b:?}");
        assert_eq!(b.on_nodes.get(&node), Some(&b.pages), "{b:?}");
    }
    let sender = t.sender.as_ref().expect("rank 1 reported");
    assert!(
        !sender.ran_on.is_empty() && sender.buffer.pages > 0,
        "{sender:?}"
    );
    let ran: Vec<_> = p
        .ran_on
        .iter()
        .map(|r| (r.thread.as_str(), r.bound_to))
        .collect();
    assert_eq!(
        ran,
        [
            ("computation 0", Some(t.plan.compute[0].pu_os)),
            ("communication", Some(t.plan.comm.pu_os))
        ]
    );
    assert!(p.ran_on.iter().all(|r| r.ran_on == [r.bound_to.unwrap()]));
    assert!(t.settings.is_some());

    let csv = std::fs::read_to_string(out.with_extension("csv")).unwrap();
    let rows = contention::io::tidy_csv::parse(&csv, "t.csv").unwrap().rows;
    assert_eq!(
        rows,
        t.tidy_rows().iter().map(|r| round(*r)).collect::<Vec<_>>()
    );

    // The same file is refused without --resume or --force, before any MPI work.
    let o = run(&mut measure_cmd(&out, &[]));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("--resume"), "{}", text(&o));
    std::fs::remove_dir_all(d).unwrap();
}

/// The CSV keeps one decimal.
fn round(mut r: contention::trace::TidyRow) -> contention::trace::TidyRow {
    for v in [
        &mut r.comp_alone,
        &mut r.comm_alone,
        &mut r.comp_parallel,
        &mut r.comm_parallel,
    ] {
        *v = format!("{v:.1}").parse().unwrap();
    }
    r
}

#[test]
fn a_missing_numa_node_is_refused_naming_the_valid_ones() {
    let d = temp_dir("measure-numa");
    let o = run(command()
        .args(["measure", "--numa", "0,1", "-o"])
        .arg(d.join("t.json")));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("NUMA node 1") && err.contains("0 (P#0"),
        "{err}"
    );
    assert!(!d.join("t.json").exists());
    for (args, needle) in [
        (&["--cores", "0..3"][..], "start at 1"),
        (&["--cores", "1..64"][..], "left free"),
        (&["--message-size", "0"][..], "at least 1 byte"),
        (&["--message-size", "4GiB"][..], "32-bit"),
        (&["--buffer-size", "4k"][..], "cache"),
        (&["--max-phase", "0"][..], "--max-phase"),
        (&["--buffer-size", "1000GiB"][..], "free"),
    ] {
        let o = run(command()
            .arg("measure")
            .args(args)
            .arg("-o")
            .arg(d.join("t.json")));
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(text(&o).contains(needle), "{args:?}: {}", text(&o));
    }
    std::fs::remove_dir_all(d).unwrap();
}

#[test]
fn dry_run_plans_without_measuring() {
    let o = run(command().args([
        "measure",
        "--numa",
        "0,1",
        "--dry-run",
        "--topology",
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/topologies/24em64t-2n6c2t-pci.xml"
        ),
    ]));
    assert!(o.status.success(), "{}", text(&o));
    let plan = String::from_utf8_lossy(&o.stdout);
    assert!(plan.contains("mlx4_0"), "{plan}");
    assert!(plan.contains("cores in order: 0 (PU P#"), "{plan}");
    assert!(plan.contains("NUMA node L#1"), "{plan}");
    assert!(plan.contains("transport   intra-node"), "{plan}");
    assert!(
        plan.contains("--numa 0,0 (local) and --numa 1,1 (remote"),
        "{plan}"
    );
    // 2 sockets x 6 cores: the sender takes the last core of the second socket.
    assert!(plan.contains("sender      rank 1 on core 11"), "{plan}");
}

/// The plan of `measure --numa 0,0 --dry-run` with `extra` on the saved 16-core topology.
fn dry_16_cores(extra: &[&str]) -> String {
    let o = run(command()
        .args(["measure", "--numa", "0,0", "--dry-run", "--topology"])
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/topologies/1s16c-synthetic.xml"
        ))
        .args(extra));
    assert!(o.status.success(), "{}", text(&o));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Issue 46, N9: a plan whose trace could pass the readers' 64 MiB said nothing of it. A
/// real plan says its trace's size at most, and warns past the limit (its messages' speed
/// is unknown before they run; the writer refuses a point that would pass it).
#[test]
fn the_plan_says_how_large_its_trace_can_grow() {
    let dry = dry_16_cores;
    let plan = dry(&[]);
    assert!(
        plan.contains("trace       at most ") && plan.contains("every reader takes up to 64 MiB"),
        "{plan}"
    );
    assert!(!plan.contains("WARNING     the trace passes"), "{plan}");
    let plan = dry(&["--runs", "100"]);
    assert!(
        plan.contains("WARNING     the trace passes 64 MiB if every message comes at 50 GB/s"),
        "{plan}"
    );
}

#[test]
fn on_a_16_core_socket_the_default_sweep_leaves_the_sender_its_own_core() {
    let dry = dry_16_cores;
    // Both ranks here: computations on 0-13, the sender on 14, the communication thread on
    // 15 (sharing 15 starved the communications of a real 16-core node to 12 MB/s).
    let plan = dry(&[]);
    assert!(plan.contains("communic.   1 thread on core 15"), "{plan}");
    // Issue 37: a saved topology does not say its CPU's instruction set (this host's was
    // printed as the node's).
    assert!(
        plan.contains("(the node CPU's best non-temporal stores)"),
        "{plan}"
    );
    assert!(
        plan.contains("sender      rank 1 on core 14 (PU P#14"),
        "{plan}"
    );
    assert!(
        plan.contains("the core the default sweep keeps for it"),
        "{plan}"
    );
    assert!(
        plan.contains("sweep       14 computing-core count(s): 1..14"),
        "{plan}"
    );
    assert!(!plan.contains("WARNING     sender"), "{plan}");
    // Asked for, the kept core computes, and the plan warns that rank 1 then shares.
    let plan = dry(&["--cores", "1..15"]);
    assert!(
        plan.contains("WARNING     sender: rank 1 on core 15"),
        "{plan}"
    );
    // The sender on another host: every core but the communication thread's computes.
    let plan = dry(&["--hosts", "a,b"]);
    assert!(
        plan.contains("sweep       15 computing-core count(s): 1..15"),
        "{plan}"
    );
}

#[test]
fn inside_a_slurm_allocation_of_two_nodes_rank_1_goes_to_the_other() {
    let o = run(command()
        .args(["measure", "--dry-run", "--cores", "1", "--shared-comm-core"])
        .env("SLURM_JOB_ID", "7")
        .env("SLURM_JOB_NUM_NODES", "2")
        .env("SLURM_JOB_NODELIST", "nodeb,nodea")
        .env("SLURMD_NODENAME", "nodea"));
    assert!(o.status.success(), "{}", text(&o));
    let plan = String::from_utf8_lossy(&o.stdout);
    assert!(
        plan.contains("transport   network: rank 0 (measured) on nodea, rank 1 (sender) on nodeb"),
        "{plan}"
    );
    assert!(!plan.contains("sender      rank 1 on"), "{plan}");
}

#[test]
fn ctrl_c_keeps_a_valid_trace_that_resume_completes() {
    let _one = one_job();
    let d = temp_dir("measure-sigint");
    let out = d.join("t.json");
    // Long phases that never count as stable: the run is still measuring when interrupted.
    let long = ["--max-phase", "60", "--stable-within", "0.01", "--quiet"];
    let (started, _) = limits(&long);
    let mut child = {
        use std::os::unix::process::CommandExt;
        measure_cmd(&out, &long)
            .process_group(0)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    // The trace exists (plan, no points yet) once rank 0 has started the sweep.
    wait_for("the trace file", started, || out.exists());
    std::thread::sleep(Duration::from_millis(500));
    // Ctrl-C in a terminal signals the whole foreground process group.
    // SAFETY: kill(2) with a negative pid signals that process group; no memory involved.
    unsafe { libc::kill(-(child.id() as i32), libc::SIGINT) };
    let status = wait_exit(&mut child, Duration::from_secs(30));
    assert_eq!(status.code(), Some(130), "exit status after SIGINT");

    let t = trace_file::read(&out).expect("the trace is valid after Ctrl-C");
    assert!(!t.complete && t.points.is_empty());

    let o = run(&mut measure_cmd(
        &out,
        &["--resume", "--max-phase", "0.5", "--quiet"],
    ));
    assert!(o.status.success(), "{}", text(&o));
    let t = trace_file::read(&out).unwrap();
    assert!(t.complete);
    assert_eq!(
        t.points.iter().map(|p| p.cores).collect::<Vec<_>>(),
        vec![1]
    );
    // Resuming a complete trace measures nothing more and duplicates nothing.
    let o = run(&mut measure_cmd(&out, &["--resume", "--quiet"]));
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(trace_file::read(&out).unwrap().points.len(), 1);
    std::fs::remove_dir_all(d).unwrap();
}

#[test]
fn a_stalled_sender_ends_the_run_after_the_timeout() {
    let _one = one_job();
    let d = temp_dir("measure-stall");
    let out = d.join("t.json");
    // Computations alone stop after 1 s; the communication phase then waits for the sender.
    let args = [
        "--max-phase",
        "1",
        "--stable-within",
        "0.01",
        "--timeout",
        "3",
        "--quiet",
    ];
    let (started, whole) = limits(&args);
    let mut child = measure_cmd(&out, &args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for("the trace file", started, || out.exists());
    let senders = rank_pids(&out, 1);
    assert_eq!(senders.len(), 1, "rank 1 found");
    // SIGSTOP: the sender is alive but sends nothing, as a hung peer would.
    // SAFETY: kill(2) on a pid we found; no memory involved.
    unsafe { libc::kill(senders[0], libc::SIGSTOP) };
    let status = wait_exit(&mut child, whole);
    let mut err = String::new();
    use std::io::Read;
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(!status.success());
    assert!(err.contains("stalled"), "{err}");
    assert!(trace_file::read(&out).is_ok(), "the trace stays valid");
    for pid in senders {
        // SAFETY: as above; the sender may already be gone.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    std::fs::remove_dir_all(d).unwrap();
}

#[test]
fn a_killed_sender_ends_the_run_with_finished_points_kept() {
    let _one = one_job();
    let d = temp_dir("measure-kill");
    let out = d.join("t.json");
    // Two core counts (sharing the communication core on this small machine); the sender is
    // killed once the first point is saved.
    let args = [
        "--cores",
        "1..2",
        "--shared-comm-core",
        "--max-phase",
        "1",
        "--stable-within",
        "0.01",
        "--timeout",
        "5",
        "--quiet",
    ];
    let (_, whole) = limits(&args);
    let mut child = measure_cmd(&out, &args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for("the first point", whole, || {
        trace_file::read(&out).is_ok_and(|t| !t.points.is_empty())
    });
    let senders = rank_pids(&out, 1);
    assert_eq!(senders.len(), 1, "rank 1 found");
    // SAFETY: kill(2) on a pid we found; no memory involved.
    unsafe { libc::kill(senders[0], libc::SIGKILL) };
    let status = wait_exit(&mut child, Duration::from_secs(60));
    assert!(
        !status.success(),
        "a dead sender must not look like success"
    );
    let t = trace_file::read(&out).expect("the trace stays valid");
    assert!(!t.complete);
    assert_eq!(
        t.points.iter().map(|p| p.cores).collect::<Vec<_>>(),
        vec![1]
    );
    std::fs::remove_dir_all(d).unwrap();
}

#[test]
fn an_unwritable_output_is_refused_before_measuring() {
    let start = Instant::now();
    let o = run(&mut measure_cmd(
        Path::new("/proc/contention-test/t.json"),
        &[],
    ));
    assert!(!o.status.success());
    assert!(text(&o).contains("/proc/contention-test"), "{}", text(&o));
    assert!(
        !text(&o).contains("mpirun"),
        "refused before starting MPI: {}",
        text(&o)
    );
    assert!(start.elapsed() < Duration::from_secs(30));
}

#[test]
fn a_ring_of_three_ranks_with_the_triad_kernel_and_a_pingpong_with_copy() {
    let _one = one_job();
    let d = temp_dir("measure-patterns");
    for (pattern, kernel, ranks) in [("ring", "triad", 3), ("pingpong", "copy", 2)] {
        let out = d.join(format!("{pattern}.json"));
        let o = run(measure_cmd(
            &out,
            &[
                "--pattern",
                pattern,
                "--kernel",
                kernel,
                "--max-phase",
                "0.5",
            ],
        )
        .arg("--quiet"));
        assert!(o.status.success(), "{pattern}: {}", text(&o));
        let t = trace_file::read(&out).unwrap();
        assert_eq!(
            (
                t.config.pattern.as_str(),
                t.config.compute_kernel.as_str(),
                t.config.ranks
            ),
            (pattern, kernel, ranks)
        );
        assert_eq!(t.mpi.hosts.len(), ranks as usize);
        assert!(t.complete);
        let p = &t.points[0];
        check_phase("comp_alone", &p.comp_alone);
        check_phase("comm_alone", &p.comm_alone);
        check_phase("comp_parallel", &p.comp_parallel);
        check_phase("comm_parallel", &p.comm_parallel);
    }
    std::fs::remove_dir_all(d).unwrap();
}

/// Issue 23: `--resume` kept impossible points (999 cores, a negative median), re-saved the
/// trace as complete, and `calibrate` then refused it. They are dropped, each named, and the
/// core counts asked for measured again.
#[test]
fn resume_drops_the_points_calibrate_would_refuse() {
    let _one = one_job();
    let d = temp_dir("measure-resume-impossible");
    let out = d.join("t.json");
    let o = run(&mut measure_cmd(&out, &["--max-phase", "0.3", "--quiet"]));
    assert!(o.status.success(), "{}", text(&o));
    let mut t = trace_file::read(&out).unwrap();
    let mut beyond = t.points[0].clone();
    beyond.cores = 999;
    t.points[0].comp_alone.summary.median = -5.0;
    t.points.push(beyond);
    trace_file::write(&out, &t).unwrap();

    let o = run(&mut measure_cmd(
        &out,
        &["--resume", "--max-phase", "0.3", "--quiet"],
    ));
    assert!(o.status.success(), "{}", text(&o));
    let said = text(&o);
    assert!(said.contains("999 cores"), "{said}");
    assert!(said.contains("below 0"), "{said}");
    let t = trace_file::read(&out).unwrap();
    assert!(t.complete);
    assert_eq!(
        t.points.iter().map(|p| p.cores).collect::<Vec<_>>(),
        vec![1]
    );
    assert!(t.points[0].comp_alone.summary.median > 0.0);
    std::fs::remove_dir_all(d).unwrap();
}

/// Issue 37: `--resume` with another option was refused inside the MPI job (exit 1, the
/// launcher's banner, "continue with --resume" as the fix), and one left out (`--max-phase`)
/// took its default and rewrote the trace's `config` as if every point had been measured so.
/// Refused before the job starts now (exit 2), and what is left out is the trace's.
#[test]
fn resume_keeps_how_the_points_were_measured_and_refuses_changes_before_the_job() {
    let _one = one_job();
    let d = temp_dir("measure-resume-options");
    let out = d.join("t.json");
    let first = ["--max-phase", "0.3", "--stable-within", "7", "--quiet"];
    let o = run(&mut measure_cmd(&out, &first));
    assert!(o.status.success(), "{}", text(&o));
    let measured = trace_file::read(&out).unwrap();
    for (option, value, named) in [
        (
            "--kernel",
            "triad",
            "--kernel nt-store in the trace, triad now",
        ),
        ("--max-phase", "1", "--max-phase 0.3 in the trace, 1 now"),
        (
            "--stable-within",
            "5",
            "--stable-within 7 in the trace, 5 now",
        ),
    ] {
        let o = run(&mut measure_cmd(
            &out,
            &["--resume", option, value, "--quiet"],
        ));
        let said = text(&o);
        assert_eq!(o.status.code(), Some(2), "{option}: {said}");
        assert!(said.contains(named), "{said}");
        assert!(!said.contains("continue with --resume"), "{said}");
        assert!(
            !said.contains("MPI_ABORT") && !said.contains("Primary job"),
            "{said}"
        );
    }
    // Left out, they are the trace's: a point measured again is measured as the first was.
    let mut t = measured.clone();
    t.points.clear();
    t.complete = false;
    trace_file::write(&out, &t).unwrap();
    let o = run(&mut measure_cmd(&out, &["--resume", "--quiet"]));
    assert!(o.status.success(), "{}", text(&o));
    let resumed = trace_file::read(&out).unwrap();
    assert!(resumed.complete && resumed.points.len() == 1);
    assert_eq!(resumed.config.max_phase_seconds, 0.3);
    assert_eq!(resumed.config.stable_within, measured.config.stable_within);
    assert_eq!(resumed.config.sizing, measured.config.sizing);
    std::fs::remove_dir_all(d).unwrap();
}

/// `measure --adaptive` with [`TINY`]'s sizes and `extra`: every core count of this machine
/// is the adaptive sweep's to choose (no `--cores`).
fn adaptive_cmd(out: &Path, extra: &[&str]) -> Command {
    let mut c = command();
    c.args(["measure", "--adaptive", "--shared-comm-core"])
        .args(TINY)
        .args(extra)
        .arg("-o")
        .arg(out);
    c
}

#[test]
fn an_adaptive_run_keeps_its_choices_through_ctrl_c_and_resume() {
    let _one = one_job();
    let d = temp_dir("measure-adaptive");
    let out = d.join("t.json");
    // The plan says the sweep is adaptive and which points come first (here on recorded
    // machines of 2 x 8 and 2 x 6 cores); on a socket of 5 computing cores, that it is the
    // full sweep.
    let plan = |xml: &str| {
        let o = run(command().args([
            "measure",
            "--adaptive",
            "--dry-run",
            "--topology",
            &format!("{}/tests/data/topologies/{xml}", env!("CARGO_MANIFEST_DIR")),
        ]));
        assert!(o.status.success(), "{}", text(&o));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let eight = plan("32em64t-2n8c2t-pci-normalio.xml");
    assert!(
        eight.contains("adaptive    first 1,3,5..6,8 (the ends and a coarse grid); then"),
        "{eight}"
    );
    assert!(eight.contains("at most 8 points (1..8)"), "{eight}");
    let five = plan("24em64t-2n6c2t-pci.xml");
    assert!(
        five.contains("adaptive    the full sweep here: the first grid (the ends and a coarse grid) is already every core count, 1..5"),
        "{five}"
    );

    // Long phases that never count as stable: the first point is still measuring when
    // interrupted.
    let long = [
        "--max-phase",
        "60",
        "--stable-within",
        "0.01",
        "--quiet",
        "--shared-comm-core",
    ];
    let (started, _) = limits(&long);
    let mut child = {
        use std::os::unix::process::CommandExt;
        adaptive_cmd(&out, &long[..5])
            .process_group(0)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    wait_for("the trace file", started, || out.exists());
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: kill(2) with a negative pid signals that process group; no memory involved.
    unsafe { libc::kill(-(child.id() as i32), libc::SIGINT) };
    let status = wait_exit(&mut child, Duration::from_secs(30));
    assert_eq!(status.code(), Some(130), "exit status after SIGINT");
    let t = trace_file::read(&out).expect("the trace is valid after Ctrl-C");
    assert!(t.points.is_empty() && !t.complete);
    let log = t
        .adaptive
        .expect("the adaptive record is saved before any point");
    assert!(log.ended.is_none());

    // --resume goes on: the first grid of this machine's core counts, then whatever the fit
    // asks, each point recorded in the order measured with why.
    let o = run(&mut adaptive_cmd(&out, &["--resume", "--max-phase", "0.3"]));
    assert!(o.status.success(), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("measure: adaptive: first 1") && err.contains("(the ends and a coarse grid)"),
        "{err}"
    );
    let t = trace_file::read(&out).unwrap();
    assert!(t.complete, "every chosen point is measured");
    let log = t.adaptive.expect("an adaptive trace records its choices");
    let order: Vec<u32> = log.choices.iter().map(|c| c.cores).collect();
    let mut measured: Vec<u32> = t.points.iter().map(|p| p.cores).collect();
    assert_eq!(t.config.cores, measured);
    measured.sort_unstable();
    let mut sorted = order.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, measured, "one choice per measured point");
    assert_eq!(order[0], 1);
    assert_eq!(log.choices[0].why, "the ends and a coarse grid");
    let ended = log.ended.expect("why the sweep ended");
    assert!(ended.starts_with("done: "), "{ended}");
    assert!(
        err.contains(&format!("measure: adaptive: {ended}")),
        "{err}"
    );
    // On a socket of at most 5 computing cores the grid is every core count: the full sweep.
    if t.plan.compute.len() <= 5 {
        assert!(
            ended.contains("the adaptive sweep is the full sweep here"),
            "{ended}"
        );
    }

    // Resuming a finished sweep measures nothing more.
    let o = run(&mut adaptive_cmd(&out, &["--resume", "--quiet"]));
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(trace_file::read(&out).unwrap().points.len(), measured.len());
    std::fs::remove_dir_all(d).unwrap();
}

#[test]
fn runs_are_separate_launches_and_resume_adds_the_runs_asked_for() {
    let _one = one_job();
    let d = temp_dir("measure-runs");
    let out = d.join("t.json");
    let o = run(&mut measure_cmd(
        &out,
        &["--max-phase", "0.2", "--runs", "2"],
    ));
    assert!(o.status.success(), "{}", text(&o));
    let said = text(&o);
    // Two MPI jobs, each measuring one run, then the runs combined.
    assert_eq!(said.matches("measure: starting ").count(), 2, "{said}");
    assert!(
        said.contains("launch 2 of 2") && said.contains("across 2 run(s)"),
        "{said}"
    );
    let t: Trace = trace_file::read(&out).unwrap();
    assert!(t.complete);
    assert_eq!((t.config.runs, t.runs.len()), (2, 2));
    for r in &t.runs {
        assert_eq!(r.order, [1]);
        check_phase("a run's computations alone", &r.points[0].comp_alone);
    }
    assert_eq!(t.points[0].comp_alone.summary.count, 2);
    assert!(t.points[0].comp_alone.ci95.is_some());
    // More runs asked of the complete trace: one launch adds the third.
    let o = run(&mut measure_cmd(
        &out,
        &["--max-phase", "0.2", "--runs", "3", "--resume"],
    ));
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(
        text(&o).matches("measure: starting ").count(),
        1,
        "{}",
        text(&o)
    );
    let t: Trace = trace_file::read(&out).unwrap();
    assert!(t.complete);
    assert_eq!((t.config.runs, t.runs.len()), (3, 3));
}

/// A launcher that fails as the job shuts down, after rank 0 saved its run (CI saw Open
/// MPI's `mpirun` end with status 1 there, its daemons started by srun): the run is kept
/// and the next one starts; a launcher that fails before anything is saved still fails
/// the command.
#[test]
fn a_launch_that_fails_after_saving_its_run_keeps_it_and_the_next_run_starts() {
    let _one = one_job();
    let d = temp_dir("measure-teardown-failure");
    let real = String::from_utf8(
        Command::new("sh")
            .args(["-c", "command -v mpirun"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let fake = |dir: &str, after: &str| {
        let bin = d.join(dir);
        std::fs::create_dir(&bin).unwrap();
        let script = bin.join("mpirun");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\ncase \"$1\" in --version|-V) exec {} \"$@\";; esac\n{after}\n",
                real.trim()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
        path
    };
    let out = d.join("t.json");
    let after_saving = fake("late", &format!("{} \"$@\"; exit 1", real.trim()));
    let o =
        run(measure_cmd(&out, &["--max-phase", "0.2", "--runs", "2"]).env("PATH", &after_saving));
    let said = text(&o);
    assert!(o.status.success(), "{said}");
    assert!(
        said.contains("launch 1 of 2 ended with status 1 after its run was saved")
            && said.contains("launch 2 of 2 ended with status 1 after its run was saved")
            && said.contains("the next run starts"),
        "{said}"
    );
    let t: Trace = trace_file::read(&out).unwrap();
    assert!(t.complete);
    assert_eq!((t.config.runs, t.finished_runs()), (2, 2));
    // Failing before saving anything: the command fails with the launcher's status.
    let before = fake("early", "exit 1");
    let o = run(
        measure_cmd(&d.join("u.json"), &["--max-phase", "0.2", "--runs", "2"]).env("PATH", &before),
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        !text(&o).contains("after its run was saved"),
        "{}",
        text(&o)
    );
    std::fs::remove_dir_all(d).unwrap();
}

/// Issue 46, item 12: `--resume` of a complete trace started an MPI job (seconds), then said
/// there was nothing to measure and rewrote the trace. It says so before launching
/// anything, and leaves the file as it was.
#[test]
fn resume_of_a_complete_trace_launches_nothing_and_leaves_it_alone() {
    let _one = one_job();
    let d = temp_dir("measure-resume-complete");
    let out = d.join("t.json");
    let o = run(&mut measure_cmd(&out, &["--max-phase", "0.3", "--quiet"]));
    assert!(o.status.success(), "{}", text(&o));
    let before = std::fs::read(&out).unwrap();
    let o = run(&mut measure_cmd(&out, &["--resume"]));
    assert!(o.status.success(), "{}", text(&o));
    let said = text(&o);
    assert!(said.contains("no MPI job is started"), "{said}");
    assert!(!said.contains("measure: starting"), "{said}");
    assert_eq!(std::fs::read(&out).unwrap(), before, "{said}");
    std::fs::remove_dir_all(d).unwrap();
}

/// Issue 46, items 13 and 15: the plan of `--kernel triad` said "avx512 non-temporal
/// stores for nt-store", and its duration left out, without a word, the start of the MPI
/// job (a first run of 7 s planned took 55 s).
#[test]
fn the_plan_names_the_kernel_run_and_what_its_duration_leaves_out() {
    let plan = |kernel: &str| {
        let o = run(command().args([
            "measure",
            "--dry-run",
            "--kernel",
            kernel,
            "--topology",
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/data/topologies/24em64t-2n6c2t-pci.xml"
            ),
        ]));
        assert!(o.status.success(), "{}", text(&o));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let triad = plan("triad");
    assert!(triad.contains("running triad over its own"), "{triad}");
    assert!(triad.contains("STREAM triad"), "{triad}");
    assert!(!triad.contains("non-temporal"), "{triad}");
    assert!(plan("nt-store").contains("non-temporal stores)"));
    assert!(
        triad.contains("not counted: starting the MPI job"),
        "{triad}"
    );
}
