//! `measure --engine gpu` where CI can run it: no GPU, no CUDA. The driver's absence said
//! and exit 2; the options it refuses; the plan from hwloc files that hold GPUs; the whole
//! path (copy thread, sweep, trace, CSV, resume, calibrate) on copies replayed from the H200
//! node's recorded bandwidths (`tests/data/gpu-h200/probe-output.txt`); and the engine's own
//! driver calls against a fake driver (`tests/fake-cuda/libcuda.c`) that refuses what the
//! real one refuses. Nothing here asserts a bandwidth: the copies are this machine's.

use crate::common::run::{command, contention, one_job, stderr, stdout, temp_dir, text};
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn probe() -> String {
    data("gpu-h200/probe-output.txt").display().to_string()
}

fn topology(name: &str) -> String {
    data("topologies").join(name).display().to_string()
}

/// Whether this machine has the CUDA driver library (a GPU node): the no-driver test then
/// has nothing to check.
fn has_libcuda() -> bool {
    let cache = std::process::Command::new("ldconfig")
        .arg("-p")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains("libcuda.so"))
        .unwrap_or(false);
    cache || std::env::var_os("LD_LIBRARY_PATH").is_some()
}

#[test]
fn without_a_driver_the_gpu_engine_exits_2_naming_what_it_looked_for() {
    if has_libcuda() {
        eprintln!("skipped: this machine has libcuda (or LD_LIBRARY_PATH set)");
        return;
    }
    let dir = temp_dir("gpu-no-driver");
    let out = dir.join("t.json");
    let o = command()
        .args(["measure", "--engine", "gpu", "--cores", "1", "-o"])
        .arg(&out)
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let e = stderr(&o);
    for said in [
        "--engine gpu: no CUDA driver library",
        "libcuda.so.1",
        "LD_LIBRARY_PATH=unset",
        "install the NVIDIA driver",
    ] {
        assert!(e.contains(said), "{said:?} not in {e}");
    }
    assert!(!e.contains("panicked"), "{e}");
    // None of the names is on this machine: none "is there".
    assert!(!e.contains("is there but did not load"), "{e}");
    assert!(!out.exists(), "no trace without a GPU");
}

#[test]
fn options_of_the_other_engine_are_refused_naming_the_fix() {
    for (args, said) in [
        (
            &["measure", "--gpu", "1"][..],
            "--gpu is for GPU copies: add --engine gpu",
        ),
        (
            &["measure", "--direction", "h2d"],
            "--direction is for GPU copies",
        ),
        (
            &["measure", "--engine", "gpu", "--hosts", "a,b"],
            "--engine gpu with --hosts",
        ),
        (
            &["measure", "--engine", "gpu", "--pattern", "ring"],
            "--engine gpu with --pattern",
        ),
        (
            &["measure", "--engine", "gpu", "--simulate", "paper:henri"],
            "--engine gpu",
        ),
        (
            &[
                "measure",
                "--engine",
                "gpu",
                "--gpu",
                "all",
                "--gpu-replay",
                "probe.txt",
            ],
            "--gpu all with --gpu-replay: a replay holds one GPU's recorded copies",
        ),
        (
            &["measure", "--engine", "gpu", "--gpu", "first"],
            "`first`: a GPU's rank in PCI bus order, as nvidia-smi numbers them (0, 1, ...), \
             or `all`",
        ),
        (
            &["survey", "--engine", "gpu", "--direction", "both"],
            "survey --direction both: a survey compares one trace per node",
        ),
        (
            &[
                "survey",
                "--engine",
                "gpu",
                "--simulate",
                "paper:henri",
                "--nodes",
                "4",
            ],
            "--engine gpu is not simulated",
        ),
    ] {
        let o = contention(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(stderr(&o).contains(said), "{args:?}: {}", text(&o));
    }
}

#[test]
fn a_survey_of_gpu_nodes_plans_every_node_alone_in_one_round() {
    let o = contention(&["survey", "--engine", "gpu", "--hosts", "a,b,c", "--dry-run"]);
    assert!(o.status.success(), "{}", text(&o));
    let plan = text(&o);
    assert!(
        plan.contains("round 1     measured alone, each against its own GPU's copies: a, b, c\n"),
        "{plan}"
    );
    assert!(!plan.contains("round 2"), "{plan}");
    assert!(!plan.contains("pairing "), "{plan}");
}

#[test]
fn the_dry_run_puts_the_copy_thread_beside_the_gpu_of_an_hwloc_file() {
    // 24em64t: GPUs 0000:06:00.0 (package 0), 0000:11:00.0 and 0000:14:00.0 (package 1);
    // the InfiniBand card on package 0.
    let xml = topology("24em64t-2n6c2t-pci.xml");
    let plan = |gpu: &str| {
        contention(&[
            "measure",
            "--engine",
            "gpu",
            "--gpu",
            gpu,
            "--direction",
            "h2d",
            "--dry-run",
            "--topology",
            &xml,
        ])
    };
    let o = plan("1");
    assert!(o.status.success(), "{}", text(&o));
    let s = stdout(&o);
    for said in [
        "gpu         1: 0000:11:00.0",
        "transport   GPU copies on mirage004",
        "copies      1 thread on core 6 (PU P#1, socket 1): first core of socket 1, the socket \
         of GPU 1 (0000:11:00.0)",
        "between the GPU(s) and NUMA node L#0",
        "engine      GPU 1 ",
        "copies host to device",
        "no MPI job",
        "not counted: loading the CUDA driver",
    ] {
        assert!(s.contains(said), "{said:?} not in {s}");
    }
    // Neither an MPI launch nor a sender: one process.
    assert!(!s.contains("mpirun") && !s.contains("sender "), "{s}");
    // The buffer on node 0, the GPU beside node 1: said.
    assert!(
        s.contains("note        the pinned buffer is on NUMA node 0, the GPU beside node(s) 1"),
        "{s}"
    );
    let command = s
        .lines()
        .find(|l| l.starts_with("command"))
        .expect("command");
    assert!(
        command.ends_with("measure --engine gpu --gpu 1 --direction h2d"),
        "{command}"
    );
    let o = plan("0");
    assert!(
        stdout(&o).contains("last core of socket 0, the socket of GPU 0 (0000:06:00.0)"),
        "{}",
        text(&o)
    );
    let o = plan("3");
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        stderr(&o)
            .contains("--gpu 3: the topology file has 3 NVIDIA GPU(s) (--gpu 0 to 2, or all)"),
        "{}",
        text(&o)
    );
    // Every GPU at once: all three named, the copy thread beside the first.
    let o = plan("all");
    let s = stdout(&o);
    for said in [
        "engine      every GPU at once, 3: GPU 0 NVIDIA device 06d2 (0000:06:00.0), near socket \
         0; GPU 1 NVIDIA device 06d2 (0000:11:00.0), near socket 1; GPU 2 ",
        // A slot of the ring for each GPU (the cache rule alone asks one of 64 MiB here).
        "in turn over 3 buffer(s)",
        "last core of socket 0, the socket of GPU 0 (0000:06:00.0)",
        "measure --engine gpu --gpu all --direction h2d\n",
    ] {
        assert!(s.contains(said), "{said:?} not in {}", text(&o));
    }
    // The buffer on node 0 is beside GPU 0: no note.
    assert!(!s.contains("note        the pinned buffer"), "{s}");
    let o = contention(&[
        "measure",
        "--engine",
        "gpu",
        "--dry-run",
        "--topology",
        &topology("16em64t-4s2c2t.xml"),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        stderr(&o).contains("--gpu 0: the topology file holds no NVIDIA GPU; save the node's"),
        "{}",
        text(&o)
    );
}

/// A replayed sweep of `extra` into `out`.
fn replayed(out: &Path, extra: &[&str]) -> std::process::Output {
    replay_command(extra)
        .arg("-o")
        .arg(out)
        .output()
        .expect("runs")
}

/// `measure` replaying the probe's copies over two short core counts, with `extra`.
fn replay_command(extra: &[&str]) -> std::process::Command {
    let mut c = command();
    c.args(["measure", "--engine", "gpu", "--gpu-replay", &probe()])
        .args([
            "--cores",
            "1..2",
            "--max-phase",
            "0.2",
            "--buffer-size",
            "8MiB",
        ])
        .args(["--message-buffers", "2", "--runs", "1"])
        .args(extra);
    c
}

/// The trace of `stream` (`gpu0-d2h`) in the results directory `root` of this host.
fn results_trace(root: &Path, stream: &str) -> PathBuf {
    root.join(contention::results::this_host())
        .join(format!("trace-numa0-0-nt-store-{stream}.json"))
}

#[test]
fn both_directions_sweep_one_way_then_the_other_each_into_its_own_trace() {
    let _job = one_job();
    let dir = temp_dir("gpu-both");
    let o = replay_command(&["--direction", "both"])
        .env("CONTENTION_RESULTS", &dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let e = stderr(&o);
    assert!(e.contains("copies device to host (1 of 2 ways"), "{e}");
    assert!(e.contains("copies host to device (2 of 2 ways"), "{e}");
    // The plan once, the GPU's lines each way.
    assert_eq!(e.matches("\nsweep ").count(), 1, "{e}");
    assert_eq!(e.matches("\ngpu ").count(), 2, "{e}");
    for (stream, direction) in [
        ("gpu0-d2h", contention::trace::CopyDirection::DeviceToHost),
        ("gpu0-h2d", contention::trace::CopyDirection::HostToDevice),
    ] {
        let path = results_trace(&dir, stream);
        let t: contention::trace::Trace =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(t.gpu.as_ref().map(|g| g.direction), Some(direction));
        assert!(t.complete, "{}", path.display());
    }
    // Resumed with nothing left, both traces stay as they are (their record of the
    // buffers' pages included).
    let before: Vec<Vec<u8>> = ["gpu0-d2h", "gpu0-h2d"]
        .map(|s| std::fs::read(results_trace(&dir, s)).unwrap())
        .to_vec();
    let o = replay_command(&["--direction", "both", "--resume"])
        .env("CONTENTION_RESULTS", &dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(
        stderr(&o)
            .matches("already holds every asked core count")
            .count(),
        2,
        "{}",
        text(&o)
    );
    let after: Vec<Vec<u8>> = ["gpu0-d2h", "gpu0-h2d"]
        .map(|s| std::fs::read(results_trace(&dir, s)).unwrap())
        .to_vec();
    assert!(
        before == after,
        "a trace with nothing to measure was rewritten"
    );
    // One file named for two traces: refused before anything runs.
    let out = dir.join("t.json");
    let o = replayed(&out, &["--direction", "both"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        stderr(&o).contains("--direction both with --output: the two traces"),
        "{}",
        text(&o)
    );
    assert!(!out.exists());
}

#[test]
fn replayed_gpu_copies_go_through_the_sweep_into_a_trace_that_calibrates() {
    let _job = one_job();
    let dir = temp_dir("gpu-replay");
    let out = dir.join("t.json");
    let o = replayed(&out, &[]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        stderr(&o).contains("replaying the copies recorded in"),
        "{}",
        text(&o)
    );
    let t: contention::trace::Trace =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(
        t.transport.as_ref().map(|t| t.kind),
        Some(contention::trace::TransportKind::GpuCopy)
    );
    let gpu = t.gpu.as_ref().expect("the GPU record");
    assert_eq!(
        gpu.direction,
        contention::trace::CopyDirection::DeviceToHost
    );
    assert!(gpu
        .replayed_from
        .as_deref()
        .is_some_and(|f| f.ends_with("probe-output.txt")));
    assert!(t.mpi.library_version.starts_with("none"), "{:?}", t.mpi);
    assert!(t.sender.is_none());
    // The pinned buffer's pages, checked on the asked node like an MPI buffer's.
    assert!(
        t.buffers
            .iter()
            .any(|b| b.buffer == "communication (GPU copies, device to host)"),
        "{:?}",
        t.buffers
    );
    assert!(t.complete);
    assert_eq!(t.points.len(), 2);
    for p in &t.points {
        for phase in [&p.comm_alone, &p.comm_parallel] {
            assert!(!phase.samples.is_empty(), "{} cores", p.cores);
            assert!(phase.summary.median > 0.0);
        }
    }
    assert!(dir.join("t.csv").exists());

    // The model: the knee law (held-out error, GPU copies on near-ties), the replay said in
    // a note.
    let model = dir.join("m.json");
    let o = command()
        .arg("calibrate")
        .arg(&out)
        .arg("-o")
        .arg(&model)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let e = stderr(&o);
    assert!(e.contains("the traces' transport is GPU copies"), "{e}");
    assert!(e.contains("its GPU copies were replayed from"), "{e}");
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    assert_eq!(m["variant"], "knee", "{m}");

    // `show` says what the trace measured.
    let o = command().arg("show").arg(&out).output().unwrap();
    assert!(
        stdout(&o).contains(", GPU 0's copies device to host, replayed from "),
        "{}",
        text(&o)
    );
    // Its transport and its GPU record go together: one without the other was edited.
    let mut edited: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    edited.as_object_mut().unwrap().remove("gpu");
    let edited_path = dir.join("edited.json");
    std::fs::write(&edited_path, edited.to_string()).unwrap();
    let o = command()
        .arg("calibrate")
        .arg(&edited_path)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        stderr(&o).contains("transport.kind is gpu-copy and it has no gpu record"),
        "{}",
        text(&o)
    );

    // Copies one way and the other are two streams: never pooled into one model.
    let other = dir.join("h.json");
    let o = replayed(&other, &["--direction", "h2d"]);
    assert!(o.status.success(), "{}", text(&o));
    let o = command()
        .arg("calibrate")
        .args([&out, &other])
        .arg("-o")
        .arg(dir.join("both.json"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        stderr(&o).contains("measured GPU copies device to host and")
            && stderr(&o).contains("one model describes one communication stream"),
        "{}",
        text(&o)
    );

    // A resume is the same GPU and direction, or refused.
    let o = replayed(&out, &["--direction", "h2d", "--resume"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let e = stderr(&o);
    let probe = probe();
    assert!(
        e.contains(&format!(
            "holds GPU 0's copies device to host (replayed from {probe}), and this run \
             measures GPU 0's copies host to device (replayed from {probe}): give the \
             trace's options (`--engine gpu --gpu 0 --direction d2h --gpu-replay "
        )),
        "{e}"
    );
    // And an MPI resume of it, refused before any MPI job starts.
    let o = command()
        .args(["measure", "--resume", "--runs", "1", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        stderr(&o).contains("and this run measures MPI messages"),
        "{}",
        text(&o)
    );
    assert!(!stderr(&o).contains("mpirun"), "{}", text(&o));
}

#[test]
fn a_gpu_trace_is_named_for_its_gpu_and_direction() {
    let _job = one_job();
    let results = temp_dir("gpu-results");
    let o = command()
        .env("CONTENTION_RESULTS", &results)
        .args(["measure", "--engine", "gpu", "--gpu-replay", &probe()])
        .args(["--direction", "h2d", "--cores", "1", "--max-phase", "0.1"])
        .args([
            "--buffer-size",
            "8MiB",
            "--message-buffers",
            "1",
            "--runs",
            "1",
            "-q",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let names: Vec<String> = std::fs::read_dir(&results)
        .unwrap()
        .flat_map(|host| std::fs::read_dir(host.unwrap().path()).unwrap())
        .map(|f| f.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names
            .iter()
            .any(|n| n == "trace-numa0-0-nt-store-gpu0-h2d.json"),
        "{names:?}"
    );
}

/// The fake driver of `tests/fake-cuda/libcuda.c`, built once into a directory of its own
/// (`lacking`: without `cuStreamSynchronize`): the directory for `LD_LIBRARY_PATH`.
fn fake_driver(lacking: bool) -> PathBuf {
    let name = if lacking {
        "fake-cuda-lacking"
    } else {
        "fake-cuda"
    };
    static BUILT: std::sync::Mutex<Vec<(bool, PathBuf)>> = std::sync::Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, dir)) = built.iter().find(|(l, _)| *l == lacking) {
        return dir.clone();
    }
    let dir = temp_dir(name);
    let mut cc = std::process::Command::new("cc");
    cc.args(["-shared", "-fPIC", "-O1", "-o"])
        .arg(dir.join("libcuda.so.1"))
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake-cuda/libcuda.c"));
    if lacking {
        cc.arg("-DFAKE_CUDA_LACK_SYNC");
    }
    let o = cc.output().expect("a C compiler (cc), as the build needs");
    assert!(o.status.success(), "{}", text(&o));
    built.push((lacking, dir.clone()));
    dir
}

/// `measure --engine gpu` with the fake driver, `env` set, and `extra` options, into `out`
/// (`None`: the results directory).
fn with_fake_driver(
    out: Option<&Path>,
    lacking: bool,
    env: &[(&str, &str)],
    extra: &[&str],
) -> std::process::Command {
    let mut c = command();
    c.env("LD_LIBRARY_PATH", fake_driver(lacking))
        .envs(env.iter().copied())
        .args(["measure", "--engine", "gpu", "--max-phase", "0.2"])
        .args([
            "--message-size",
            "8MiB",
            "--message-buffers",
            "2",
            "--runs",
            "1",
        ])
        .args(extra);
    if let Some(out) = out {
        c.arg("-o").arg(out);
    }
    c
}

#[test]
fn a_fake_driver_drives_the_real_engine_through_a_sweep() {
    let _job = one_job();
    let dir = temp_dir("gpu-fake-driver");
    // Two GPUs whose CUDA order is not the PCI order: --gpu 0 is CUDA's device 1, on bus 1b.
    for (direction, words) in [("d2h", "device to host"), ("h2d", "host to device")] {
        let out = dir.join(format!("{direction}.json"));
        let o = with_fake_driver(
            Some(&out),
            false,
            &[("FAKE_CUDA_DEVICES", "2")],
            &["--cores", "1..2", "--direction", direction],
        )
        .output()
        .unwrap();
        // The fake refuses a copy from memory not pinned, or with no context current on the
        // copy thread, and says at exit what was left pinned.
        assert!(o.status.success(), "{direction}: {}", text(&o));
        let e = stderr(&o);
        assert!(!e.contains("still registered"), "{e}");
        assert!(
            e.contains(&format!(
                "gpu         GPU 0 Fake H200 1 (0000:1b:00.0), link not read, CUDA 13.0; \
                 copies {words}"
            )),
            "{e}"
        );
        let t: contention::trace::Trace =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        let gpu = t.gpu.as_ref().expect("the GPU record");
        assert_eq!(gpu.device.pci_bus_id, "0000:1b:00.0");
        assert_eq!(gpu.device.name, "Fake H200 1");
        assert_eq!(gpu.device.cuda_version, "13.0");
        assert_eq!(gpu.device.memory_bytes, 141 << 30);
        assert!(gpu.replayed_from.is_none());
        assert!(t.complete && t.points.len() == 2, "{:?}", t.points.len());
        assert!(t.points.iter().all(|p| !p.comm_parallel.samples.is_empty()));
    }
}

#[test]
fn every_gpu_at_once_copies_from_one_thread_into_one_trace_that_lists_them() {
    let _job = one_job();
    let results = temp_dir("gpu-all");
    let root = results.to_str().unwrap();
    // Three GPUs, CUDA's order not the PCI order: 0 on bus 1b, 1 on 2b, 2 on 3b. The fake
    // refuses a copy, query or wait on a stream whose context is not current: one thread
    // drives the three, switching between them.
    let o = with_fake_driver(
        None,
        false,
        &[("FAKE_CUDA_DEVICES", "3"), ("CONTENTION_RESULTS", root)],
        &["--gpu", "all", "--cores", "1..2"],
    )
    .output()
    .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let e = stderr(&o);
    assert!(!e.contains("still registered"), "{e}");
    // --message-buffers 2 for three GPUs: said.
    assert!(
        e.contains("WARNING     3 GPUs copy over a ring of 2 slot(s): some copy the same slot"),
        "{e}"
    );
    for (i, name, bus) in [(0, 1, "1b"), (1, 2, "2b"), (2, 0, "3b")] {
        let line = format!("gpu         GPU {i} Fake H200 {name} (0000:{bus}:00.0), link not read");
        assert!(e.contains(&line), "{line}: {e}");
    }
    let t: contention::trace::Trace = serde_json::from_str(
        &std::fs::read_to_string(results_trace(&results, "gpuall-d2h")).unwrap(),
    )
    .unwrap();
    let gpu = t.gpu.as_ref().expect("the GPU record");
    let buses: Vec<&str> = gpu.devices.iter().map(|d| &d.pci_bus_id[5..7]).collect();
    assert_eq!(buses, ["1b", "2b", "3b"]);
    assert!(gpu
        .devices
        .iter()
        .enumerate()
        .all(|(i, d)| d.index == i as u32));
    assert_eq!(gpu.device, gpu.devices[0]);
    assert_eq!(gpu.words(), "the 3 GPUs' copies device to host");
    assert!(
        gpu.options().contains("--gpu all --direction d2h"),
        "{}",
        gpu.options()
    );
    assert!(t.complete && t.points.len() == 2, "{:?}", t.points.len());
    // Each GPU's copies are samples of their own, a round the three together.
    for p in &t.points {
        for phase in [&p.comm_alone, &p.comm_parallel] {
            let gpus: std::collections::BTreeSet<u32> =
                phase.samples.iter().map(|s| s.thread).collect();
            assert_eq!(gpus, [0, 1, 2].into(), "{}", phase.sampling);
            assert!(
                phase.sampling.contains("of 3 GPU(s) kept"),
                "{}",
                phase.sampling
            );
        }
    }
}

#[test]
fn a_copy_the_driver_refuses_mid_sweep_ends_the_run_with_the_driver_s_words() {
    let _job = one_job();
    let dir = temp_dir("gpu-fault");
    let out = dir.join("t.json");
    // The first copy of the sweep faults: no sample comes, which the watch alone would call
    // a stall after --timeout.
    let o = with_fake_driver(
        Some(&out),
        false,
        &[("FAKE_CUDA_FAIL_COPY", "1")],
        &["--cores", "1..2", "--timeout", "30"],
    )
    .output()
    .unwrap();
    assert!(!o.status.success(), "{}", text(&o));
    let e = stderr(&o);
    assert!(
        e.contains("cuMemcpyAsync failed: CUDA_ERROR_LAUNCH_FAILED"),
        "{e}"
    );
    assert!(
        !e.contains("stalled") && !e.contains("still registered"),
        "{e}"
    );
    // One GPU of several: named.
    let o = with_fake_driver(
        Some(&dir.join("all.json")),
        false,
        &[("FAKE_CUDA_FAIL_COPY", "1"), ("FAKE_CUDA_DEVICES", "2")],
        &["--gpu", "all", "--cores", "1", "--timeout", "30"],
    )
    .output()
    .unwrap();
    assert!(
        stderr(&o).contains("GPU 0 (0000:1b:00.0): cuMemcpyAsync failed: CUDA_ERROR_LAUNCH_FAILED"),
        "{}",
        text(&o)
    );
}

#[test]
fn one_hung_gpu_among_three_ends_the_run_as_stalled_naming_it() {
    // CUDA's device 2 is on bus 2b, the second in PCI order: GPU 1. The other two copy on,
    // which hid it: the run never ended.
    let (status, e) = hung_gpu(
        "gpu-one-hung",
        &[("FAKE_CUDA_DEVICES", "3"), ("FAKE_CUDA_HANG_DEV", "2")],
        &["--gpu", "all", "--timeout", "3"],
        false,
    );
    assert_eq!(status.code(), Some(1), "{e}");
    assert!(
        e.contains("nothing completed by the copies of GPU 1 (of 3 copying) for 3 s"),
        "{e}"
    );
}

#[test]
fn a_gpu_all_trace_resumes_only_with_the_same_gpus() {
    let _job = one_job();
    let out = temp_dir("gpu-all-resume").join("t.json");
    let run = |gpus: &str, extra: &[&str]| {
        let mut args = vec!["--gpu", "all", "--cores", "1..2"];
        args.extend(extra);
        with_fake_driver(Some(&out), false, &[("FAKE_CUDA_DEVICES", gpus)], &args)
            .output()
            .unwrap()
    };
    // Two GPUs measure the first point; Ctrl-C is not needed: --cores 1 then 1..2.
    let o = with_fake_driver(
        Some(&out),
        false,
        &[("FAKE_CUDA_DEVICES", "2")],
        &["--gpu", "all", "--cores", "1"],
    )
    .output()
    .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let o = run("3", &["--resume"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        stderr(&o).contains(
            "GPU bus ids 0000:1b:00.0,0000:3b:00.0 in the trace, \
             0000:1b:00.0,0000:2b:00.0,0000:3b:00.0 now"
        ),
        "{}",
        text(&o)
    );
    let o = run("2", &["--resume"]);
    assert!(o.status.success(), "{}", text(&o));
}

#[test]
fn what_the_driver_cannot_do_is_said_with_exit_2() {
    let dir = temp_dir("gpu-fake-refusals");
    let out = dir.join("t.json");
    for (lacking, env, extra, said) in [
        (
            false,
            &[("FAKE_CUDA_DEVICES", "2")][..],
            &["--gpu", "2"][..],
            "--gpu 2: this node has 2 GPU(s), 0: 0000:1b:00.0, 1: 0000:3b:00.0 (PCI bus order",
        ),
        (
            false,
            &[("FAKE_CUDA_INIT", "34")],
            &[],
            "the libcuda loaded is the CUDA toolkit's stub",
        ),
        (
            false,
            &[("FAKE_CUDA_INIT", "100")],
            &[],
            "cannot be used (cuInit failed: CUDA_ERROR_NO_DEVICE",
        ),
        (
            false,
            &[("FAKE_CUDA_DEVICES", "0")],
            &[],
            "the CUDA driver sees no GPU",
        ),
        (
            true,
            &[],
            &[],
            "lacks 1 of the calls the engine makes (cuStreamSynchronize)",
        ),
    ] {
        let o = with_fake_driver(Some(&out), lacking, env, extra)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{env:?} {extra:?}: {}", text(&o));
        assert!(stderr(&o).contains(said), "{env:?} {extra:?}: {}", text(&o));
        assert!(!stderr(&o).contains("panicked"), "{}", text(&o));
    }
}

/// A run of one core count with the fake driver's hang `env` (FAKE_CUDA_HANG: every copy of
/// the sweep hangs, the warm-up before it does not) and `extra` options, `--timeout` among
/// them, interrupted by Ctrl-C once its trace is saved when `ctrl_c`: how it ended and its
/// standard error.
fn hung_gpu(
    name: &str,
    env: &[(&str, &str)],
    extra: &[&str],
    ctrl_c: bool,
) -> (std::process::ExitStatus, String) {
    let _job = one_job();
    let out = temp_dir(name).join("t.json");
    let mut args = vec!["--cores", "1"];
    args.extend(extra);
    let mut child = with_fake_driver(Some(&out), false, env, &args)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    if ctrl_c {
        crate::common::run::wait_for("the trace", std::time::Duration::from_secs(60), || {
            out.exists()
        });
        std::thread::sleep(std::time::Duration::from_secs(1));
        // SAFETY: signals a child of this test, alive until waited for below.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    }
    let status = crate::common::run::wait_exit(&mut child, std::time::Duration::from_secs(120));
    let mut e = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut e).unwrap();
    (status, e)
}

#[test]
fn ctrl_c_ends_a_run_whose_copy_never_returns() {
    // The first phase with copies never ends; Ctrl-C then ends the run within --timeout,
    // saved points kept.
    let (status, e) = hung_gpu(
        "gpu-fake-hang",
        &[("FAKE_CUDA_HANG", "1")],
        &["--timeout", "5"],
        true,
    );
    assert_eq!(status.code(), Some(130), "{e}");
    assert!(
        e.contains("the communication stream did not stop within 5 s"),
        "{e}"
    );
}

#[test]
fn a_hung_gpu_ends_the_run_as_stalled_naming_the_gpu() {
    let (status, e) = hung_gpu(
        "gpu-fake-stall",
        &[("FAKE_CUDA_HANG", "1")],
        &["--timeout", "3"],
        false,
    );
    assert_eq!(status.code(), Some(1), "{e}");
    assert!(
        e.contains("nothing completed by the GPU's copies for 3 s (is the GPU answering?"),
        "{e}"
    );
    // The resume it offers is the same command: the engine's options and the trace's -o.
    let again = resume_offered(&e);
    assert!(again.contains(" --engine gpu "), "{again}");
    assert!(again.contains(" --timeout 3 "), "{again}");
    assert!(
        again.contains(" -o ") && again.ends_with(" --resume"),
        "{again}"
    );
    assert!(!e.contains("rank 1"), "{e}");
}

#[test]
fn both_ways_are_checked_before_either_is_measured() {
    let _job = one_job();
    let dir = temp_dir("gpu-both-checked");
    let run = |extra: &[&str]| {
        replay_command(extra)
            .env("CONTENTION_RESULTS", &dir)
            .output()
            .unwrap()
    };
    let o = run(&["--direction", "h2d"]);
    assert!(o.status.success(), "{}", text(&o));
    // The second way's trace is there: refused before the first way is measured.
    let o = run(&["--direction", "both"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        stderr(&o).contains("-h2d.json` exists; pass --resume"),
        "{}",
        text(&o)
    );
    assert!(!results_trace(&dir, "gpu0-d2h").exists());
    // Resumed, the way without a trace starts one, the other is continued (here: done).
    let o = run(&["--direction", "both", "--resume"]);
    assert!(o.status.success(), "{}", text(&o));
    let t: contention::trace::Trace =
        serde_json::from_str(&std::fs::read_to_string(results_trace(&dir, "gpu0-d2h")).unwrap())
            .unwrap();
    assert!(t.complete);
    // A CSV left without its trace: the fix named is one --resume takes (not --force).
    std::fs::remove_file(results_trace(&dir, "gpu0-h2d")).unwrap();
    let o = run(&["--direction", "both", "--resume"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        stderr(&o).contains("-h2d.csv` exists without its trace"),
        "{}",
        text(&o)
    );
}

#[test]
fn a_first_way_cut_short_is_continued_by_both_ways_again() {
    // The device-to-host sweep stalls: the other way is never started, and the resume the
    // error gives repeats --direction both (which resumes one trace and starts the other),
    // with no -o (which both refuses).
    let _job = one_job();
    let dir = temp_dir("gpu-both-stall");
    let root = dir.to_str().unwrap();
    let o = with_fake_driver(
        None,
        false,
        &[("FAKE_CUDA_HANG", "1"), ("CONTENTION_RESULTS", root)],
        &["--cores", "1", "--timeout", "3", "--direction", "both"],
    )
    .output()
    .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let e = stderr(&o);
    assert!(!e.contains("2 of 2 ways"), "{e}");
    assert!(!results_trace(&dir, "gpu0-h2d").exists());
    // Pasted into a shell (the GPU answering again), it continues the first trace with its
    // own settings and measures the second with the same ones.
    let again = resume_offered(&e);
    assert!(again.contains(" --direction both "), "{again}");
    let o = std::process::Command::new("bash")
        .args(["-c", &again])
        .env("LD_LIBRARY_PATH", fake_driver(false))
        .env("CONTENTION_RESULTS", root)
        .output()
        .unwrap();
    assert!(o.status.success(), "{again}: {}", text(&o));
    for stream in ["gpu0-d2h", "gpu0-h2d"] {
        let t: contention::trace::Trace =
            serde_json::from_str(&std::fs::read_to_string(results_trace(&dir, stream)).unwrap())
                .unwrap();
        assert!(t.complete, "{stream}");
        assert_eq!(
            (t.config.max_phase_seconds, t.config.timeout_seconds),
            (0.2, 3.0),
            "{stream}"
        );
    }
}

/// The command a cut run says continues it (`continue with --resume (the same command
/// again: CMD)`).
fn resume_offered(stderr: &str) -> String {
    stderr
        .split("continue with --resume (the same command again: ")
        .nth(1)
        .and_then(|rest| rest.split(")\n").next())
        .unwrap_or_else(|| panic!("no resume offered: {stderr}"))
        .to_string()
}

#[test]
fn a_gpu_that_hangs_in_its_warm_up_ends_the_command_within_timeout() {
    // The copies that read the link never complete: before the sweep, so no stall rule; the
    // command still ends, after --timeout, saying what hung and with no trace.
    let _job = one_job();
    let out = temp_dir("gpu-warm-up-hang").join("t.json");
    let mut child = with_fake_driver(
        Some(&out),
        false,
        &[("FAKE_CUDA_HANG", "warm-up")],
        &["--cores", "1", "--timeout", "2"],
    )
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    let status = crate::common::run::wait_exit(&mut child, std::time::Duration::from_secs(60));
    let mut e = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut e).unwrap();
    assert_eq!(status.code(), Some(1), "{e}");
    assert!(
        e.contains("GPU 0: its warm-up copies did not complete within 2 s"),
        "{e}"
    );
    assert!(!out.exists());
}
