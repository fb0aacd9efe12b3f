//! `measure --engine gpu`: the sweep with a GPU's copies as the communication stream, in
//! this one process (no MPI job, no sender): the driver loaded and the GPU described (its
//! link read while it copies), the copy thread planned near the GPU, and the session of an
//! MPI measurement run with the copies where rank 1's messages were ([`Rank0`] with
//! [`CommStream::Copies`]): the same phases, stop rules, runs, resume, progress, trace and
//! CSV. `--runs R` runs the sweep R times in turn, each run resuming the trace as an MPI
//! relaunch does.

use crate::error::{Error, Result};
use crate::gpu::replay::{Recorded, ReplayOpener};
use crate::gpu::{cuda, link, OpenCopies};
use crate::machine::layout::Layout;
use crate::machine::settings;
use crate::measure::choices::GpuStream;
use crate::measure::options::MeasureOptions;
use crate::measure::session::{self, Rank0};
use crate::measure::sweep::run::CommStream;
use crate::mpi::progress;
use crate::trace::{GpuChoice, GpuCopies, GpuDevice, MpiInfo, Transport, TransportKind};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// What the trace says of the MPI library when there is no MPI job.
const NO_MPI: &str = "none: GPU copies, no MPI job";

/// The engine that makes `g`'s copies and the devices as the trace records them (one, or
/// every GPU of `--gpu all` in PCI bus order): the driver's GPUs, or a replay of recorded
/// bandwidths (which drives no GPU and says so). Each GPU is described while warm-up copies
/// run ([`cuda::Driver::describe`]): a GPU that hangs there ends the command after `timeout`
/// seconds, and Ctrl-C at once ([`watched`]).
fn engine(
    g: &GpuStream,
    timeout: f64,
    interrupted: &AtomicBool,
) -> Result<(Box<dyn OpenCopies>, Vec<GpuDevice>)> {
    if let Some(path) = &g.replay {
        let recorded = Recorded::read(path, g.direction).map_err(Error::Input)?;
        let device = GpuDevice {
            index: match g.gpus {
                GpuChoice::One(i) => i,
                GpuChoice::All => 0,
            },
            name: "replayed: no GPU driven".into(),
            pci_bus_id: "none".into(),
            memory_bytes: 0,
            cuda_version: "none".into(),
            driver_version: None,
            link: None,
            numa_nodes: Vec::new(),
            socket: None,
        };
        return Ok((Box::new(ReplayOpener(recorded)), vec![device]));
    }
    let driver = cuda::load()?;
    let direction = g.direction;
    let indices: Vec<u32> = match g.gpus {
        GpuChoice::One(i) => vec![i],
        GpuChoice::All => (0..driver.count()).collect(),
    };
    let mut devices = Vec::new();
    for index in indices {
        let describing = driver.clone();
        devices.push(watched(index, timeout, interrupted, move || {
            describing.describe(
                index,
                direction,
                Path::new(link::PCI_DEVICES),
                Path::new(link::NVIDIA_MODULE_VERSION),
            )
        })?);
    }
    let opener: Box<dyn OpenCopies> = match g.gpus {
        GpuChoice::One(i) => Box::new(driver.copies(i, direction)?),
        GpuChoice::All => Box::new(driver.every_copies(direction)),
    };
    Ok((opener, devices))
}

/// `work` (the GPU's warm-up) on a thread of its own, waited for at most `timeout` seconds
/// and until Ctrl-C: a copy that never completes blocks its thread inside the driver for
/// good, and the command must still end (the sweep's own copies have the stall rule and
/// `--timeout` for that; these come before it). The blocked thread is left to the process's
/// exit.
fn watched<T: Send + 'static>(
    gpu: u32,
    timeout: f64,
    interrupted: &AtomicBool,
    work: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(work());
    });
    let started = std::time::Instant::now();
    loop {
        match rx.recv_timeout(std::time::Duration::from_millis(100)) {
            Ok(result) => return result,
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Err(Error::Failed(format!(
                    "GPU {gpu}: the warm-up ended without an answer"
                )))
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
        }
        if interrupted.load(Ordering::Relaxed) {
            return Err(Error::Interrupted(format!(
                "interrupted during GPU {gpu}'s warm-up copies: nothing was measured"
            )));
        }
        if started.elapsed().as_secs_f64() > timeout {
            return Err(Error::Failed(format!(
                "GPU {gpu}: its warm-up copies did not complete within {timeout} s (is the \
                 GPU answering? nvidia-smi says; see --timeout); nothing was measured"
            )));
        }
    }
}

/// `device` with where hwloc saw it (its NUMA nodes and socket), and a warning when the GPU
/// the plan put the copy thread near is another one than the driver's.
fn located(mut device: GpuDevice, layout: &Layout) -> (GpuDevice, Option<String>) {
    let planned = layout.gpus.get(device.index as usize);
    let warning = match planned {
        Some(p) if p.pci_bus_id != device.pci_bus_id && device.pci_bus_id != "none" => {
            Some(format!(
                "hwloc's GPU {} is {}, the driver's is {}: the copy thread's core follows \
                 hwloc's; check with nvidia-smi and pass --comm-core to choose",
                device.index,
                crate::error::escape_line(&p.pci_bus_id),
                crate::error::escape_line(&device.pci_bus_id)
            ))
        }
        _ => None,
    };
    if let Some(p) = layout
        .gpus
        .iter()
        .find(|p| p.pci_bus_id == device.pci_bus_id)
        .or(planned.filter(|_| device.pci_bus_id == "none"))
    {
        device.numa_nodes = p.numa_nodes.clone();
        device.socket = p.socket;
    }
    (device, warning)
}

/// What to say when `--gpu all`'s `gpus` GPUs copy over a ring of fewer `slots` (given by
/// `--message-buffers`, or planned for the GPUs hwloc saw where the driver sees more): some
/// copy the same slot at once, as no application would.
fn shared_slots(g: &GpuStream, gpus: usize, slots: u32) -> Option<String> {
    (g.gpus == GpuChoice::All && (slots as usize) < gpus).then(|| {
        format!(
            "{gpus} GPUs copy over a ring of {slots} slot(s): some copy the same slot at \
             once; --message-buffers {gpus} (or more) gives each its own"
        )
    })
}

/// The driver's names of `devices` given to the same GPUs in `layout` (by bus id), which
/// the trace's machine lists: hwloc's PCI database may know a new GPU by its id alone (an
/// H200 is `NVIDIA device 2335` there). A replay drives no GPU and names none.
fn named(layout: &mut Layout, devices: &[GpuDevice]) {
    for gpu in &mut layout.gpus {
        if let Some(d) = devices.iter().find(|d| d.pci_bus_id == gpu.pci_bus_id) {
            gpu.name.clone_from(&d.name);
        }
    }
}

/// Measures with the GPU copies `options.engine` asks for: each way asked (`--direction
/// both`: device to host, then host to device, each into its own trace), every run of
/// `--runs`, one after the other. An error or Ctrl-C in the first way stops there.
pub(crate) fn measure(
    options: &MeasureOptions,
    quiet: bool,
    interrupted: &'static std::sync::atomic::AtomicBool,
) -> Result<()> {
    let Some(asked) = options.engine.gpu() else {
        return Err(Error::Failed(
            "internal error: not a GPU measurement".into(),
        ));
    };
    let mode = progress::Mode::from_env_or_terminal(None, quiet);
    let ways = asked.each_way();
    let each = each_way_options(options, &ways)?;
    for (i, (g, options)) in ways.iter().zip(each).enumerate() {
        if ways.len() > 1 && mode != progress::Mode::Quiet {
            eprintln!(
                "measure: copies {} ({} of {} ways, each into its own trace)",
                g.direction.words(),
                i + 1,
                ways.len()
            );
        }
        one_way(options, g, mode, i == 0, interrupted)?;
    }
    Ok(())
}

/// `options` for each of `ways`, checked before anything is measured (the second way's
/// trace refused after the first way's sweep lost that sweep's time): each way's trace may
/// be written, and a replay holds each way's copies (read here when there are two ways).
/// With `--resume` and both ways, each continues its trace where it has one and starts it
/// where not (a first way cut short before its trace was written, a second not begun); at
/// least one must exist.
fn each_way_options(options: &MeasureOptions, ways: &[GpuStream]) -> Result<Vec<MeasureOptions>> {
    let host = crate::results::this_host();
    let mut each: Vec<MeasureOptions> = ways
        .iter()
        .map(|g| MeasureOptions {
            engine: crate::measure::choices::Engine::Gpu(g.clone()),
            ..options.clone()
        })
        .collect();
    let exists: Vec<bool> = each.iter().map(|o| o.trace_path(&host).exists()).collect();
    if options.resume && each.len() > 1 && exists.contains(&true) {
        for (o, exists) in each.iter_mut().zip(exists) {
            o.resume = exists;
        }
    }
    for (o, g) in each.iter().zip(ways) {
        let path = o.trace_path(&host);
        // A way that --resume starts afresh, over a CSV left without its trace: --force,
        // the fix for a new trace, is refused with --resume.
        let csv = session::csv_path(&path);
        if options.resume && !o.resume && csv.exists() {
            return Err(Error::Input(format!(
                "`{}` exists without its trace `{}`, which --resume would start here; remove \
                 the CSV (or move it aside) and run again",
                crate::error::shown_path(&csv),
                crate::error::shown_path(&path)
            )));
        }
        session::check_output(o, &path)?;
        // One way's replay is read once, when its engine opens (standard input cannot be
        // read twice).
        if let Some(path) = g.replay.as_ref().filter(|_| ways.len() > 1) {
            Recorded::read(path, g.direction).map_err(Error::Input)?;
        }
    }
    Ok(each)
}

/// Every run of `--runs` of the copies of `g`, one way, one after the other; `first_way`:
/// the first way `--direction` asks, which says the whole plan (the others their GPU lines
/// only: the rest is the same).
fn one_way(
    mut options: MeasureOptions,
    g: &GpuStream,
    mode: progress::Mode,
    first_way: bool,
    interrupted: &'static std::sync::atomic::AtomicBool,
) -> Result<()> {
    let (opener, devices) = engine(g, options.timeout, interrupted)?;
    let mut say_plan = true;
    let mut before = None;
    loop {
        let path = one_run(
            &options,
            g,
            opener.as_ref(),
            &devices,
            (mode, say_plan, first_way),
            interrupted,
        )?;
        // The plan is said once, before the first run.
        say_plan = false;
        // Done when every run is saved, or when a run added none (nothing left that this
        // process can measure: never a loop without end), or the trace cannot be read.
        match crate::measure::job::runs_saved(&path) {
            Some((done, asked)) if done < asked && Some(done) != before => before = Some(done),
            _ => return Ok(()),
        }
        // The next run continues the trace this one saved, as an MPI relaunch does.
        options.resume = true;
        options.force = false;
    }
}

/// One run of the sweep into the trace, which it returns the path of; `say_plan`: the plan
/// on standard error first (unless quiet; the whole plan on the first way, else its GPU
/// lines).
fn one_run(
    options: &MeasureOptions,
    g: &GpuStream,
    opener: &dyn OpenCopies,
    devices: &[GpuDevice],
    (mode, say_plan, first_way): (progress::Mode, bool, bool),
    interrupted: &'static std::sync::atomic::AtomicBool,
) -> Result<std::path::PathBuf> {
    let session::Placed {
        topology,
        mut layout,
        resolved,
        trace,
    } = session::place(options, None, true, false)?;
    session::check_output(options, &trace)?;
    let (devices, warnings): (Vec<GpuDevice>, Vec<Option<String>>) =
        devices.iter().map(|d| located(d.clone(), &layout)).unzip();
    named(&mut layout, &devices);
    let settings = settings::read_settings(Path::new("/"), Some(layout.numa_per_socket()));
    let transport = Transport {
        kind: TransportKind::GpuCopy,
        hosts: vec![layout.hostname.clone()],
    };
    if mode != progress::Mode::Quiet && say_plan {
        if first_way {
            crate::measure::describe::say_plan(&layout, &resolved, &transport, &settings);
        }
        for (device, warning) in devices.iter().zip(&warnings) {
            eprint!("{}", describe_device(device, g, options.comm_numa));
            if let Some(w) = warning {
                eprintln!("WARNING     {w}");
            }
        }
        if let Some(w) = shared_slots(g, devices.len(), resolved.sizing().message_buffers) {
            eprintln!("WARNING     {w}");
        }
    }
    let copies = GpuCopies {
        direction: g.direction,
        device: devices[0].clone(),
        devices: match g.gpus {
            GpuChoice::One(_) => Vec::new(),
            GpuChoice::All => devices,
        },
        replayed_from: g.replay.as_ref().map(|p| p.display().to_string()),
    };
    // The same command resumes: with the other way still to measure, `--direction both`
    // continues this trace and starts that one.
    let again = session::same_command_again();
    let r0 = Rank0 {
        options,
        topology: &topology,
        layout: &layout,
        resolved,
        mpi: MpiInfo {
            library_version: NO_MPI.into(),
            thread_level: "none".into(),
            hosts: vec![layout.hostname.clone()],
            library: None,
            launcher: None,
            stack: None,
        },
        transport,
        sender: None,
        settings: Some(settings),
        progress: mode,
        interrupted,
        stream: CommStream::Copies(opener),
        gpu: Some(copies.clone()),
        again: again.clone(),
    };
    session::ended(r0.run(), mode, &again)?;
    Ok(trace)
}

/// `--dry-run --engine gpu`: the plan on this machine or the one of an hwloc XML (which
/// must hold the GPU), with the GPU it would drive and the command that runs it; nothing is
/// loaded, not even the CUDA driver.
pub(crate) fn dry_run(options: &MeasureOptions, xml: Option<&Path>) -> Result<()> {
    let Some(g) = options.engine.gpu() else {
        return Err(Error::Failed(
            "internal error: not a GPU measurement".into(),
        ));
    };
    let session::Placed {
        layout, resolved, ..
    } = session::place(options, xml, true, false)?;
    // The GPUs the plan copies with, as hwloc sees them: one, or every one of `--gpu all`.
    let planned: Vec<(usize, &crate::machine::layout::Gpu)> = match g.gpus {
        GpuChoice::One(i) => layout
            .gpus
            .get(i as usize)
            .map(|p| (i as usize, p))
            .into_iter()
            .collect(),
        GpuChoice::All => layout.gpus.iter().enumerate().collect(),
    };
    if xml.is_some() && planned.is_empty() {
        let fix = "save the node's topology with its PCI devices (`lstopo --whole-io \
                   FILE.xml` there)";
        return Err(Error::Input(match layout.gpus.len() {
            0 => format!(
                "--gpu {}: the topology file holds no NVIDIA GPU; {fix}",
                g.gpus
            ),
            n => format!(
                "--gpu {}: the topology file has {n} NVIDIA GPU(s) (--gpu 0 to {}, or all); \
                 plan for one of them, or {fix}",
                g.gpus,
                n - 1
            ),
        }));
    }
    // A replay's file is read now, as the run would: a bad one is refused here too.
    let engine = match &g.replay {
        Some(path) => {
            Recorded::read(path, g.direction).map_err(Error::Input)?;
            format!(
                "replaying the copies recorded in {} (no GPU driven)",
                crate::error::escape_line(&path.display().to_string())
            )
        }
        None => "through the CUDA driver (libcuda, found when the run starts)".into(),
    };
    let transport = Transport {
        kind: TransportKind::GpuCopy,
        hosts: vec![layout.hostname.clone()],
    };
    let settings = xml
        .is_none()
        .then(|| settings::read_settings(Path::new("/"), Some(layout.numa_per_socket())));
    let (exe, argv) = crate::mpi::launch::own_command()?;
    let mut line = vec![exe.into_os_string()];
    line.extend(crate::mpi::driver::without_dry_run(argv));
    let each: Vec<String> = planned
        .iter()
        .map(|(i, p)| {
            format!(
                "GPU {i} {} ({}), near socket {}",
                p.name,
                p.pci_bus_id,
                p.socket.map_or("?".into(), |s| s.to_string())
            )
        })
        .collect();
    let device = match (g.gpus, &each[..]) {
        (GpuChoice::One(i), []) => {
            format!("GPU {i} (hwloc sees no NVIDIA GPU here; the driver will say which it is)")
        }
        (GpuChoice::One(_), each) => each.join(""),
        (GpuChoice::All, []) => {
            "every GPU (hwloc sees no NVIDIA GPU here; the driver will say which)".into()
        }
        (GpuChoice::All, each) => format!("every GPU at once, {}: {}", each.len(), each.join("; ")),
    };
    // The buffer's node against the GPUs': beside one of them, nothing to say.
    let near: Option<Vec<u32>> = (!planned.is_empty()).then(|| {
        planned
            .iter()
            .flat_map(|(_, p)| p.numa_nodes.iter().copied())
            .collect()
    });
    // The machine's names come from hwloc (or a topology file): escaped for the terminal.
    print!(
        "{}",
        crate::error::escape(&format!(
            "{}engine      {device}; copies {}, {engine}; no MPI job\n{}command     {}\n",
            crate::measure::describe::describe_plan(
                &layout,
                &resolved,
                &transport,
                settings.as_ref()
            ),
            ways(g),
            across(near.as_deref(), options.comm_numa),
            crate::mpi::launch::shown(&line)
        ))
    );
    Ok(())
}

/// Which way the copies go, in the plan's words: `--direction both` is two sweeps.
fn ways(g: &GpuStream) -> String {
    if g.both {
        format!(
            "{}, then {} (a sweep each way, each into its own trace: twice the duration \
             and runs above)",
            g.direction.words(),
            g.direction.other().words()
        )
    } else {
        g.direction.words().into()
    }
}

/// The plan's note when the pinned buffer is not on a NUMA node beside the GPU (`nodes`,
/// logical; unknown or empty: nothing to say): the copies then cross between the sockets.
fn across(nodes: Option<&[u32]>, comm_numa: u32) -> String {
    match nodes {
        Some(n) if !n.is_empty() && !n.contains(&comm_numa) => {
            let beside: Vec<String> = n.iter().map(u32::to_string).collect();
            format!(
                "note        the pinned buffer is on NUMA node {comm_numa}, the GPU beside \
                 node(s) {}: every copy crosses between the sockets (--numa _,{} puts the \
                 buffer beside it; both placements are worth measuring)\n",
                beside.join(","),
                beside[0]
            )
        }
        _ => String::new(),
    }
}

/// The plan's lines on the GPU: which one, its link and driver, which way the copies go
/// (the names the driver gives on one line, escaped).
pub(crate) fn describe_device(d: &GpuDevice, g: &GpuStream, comm_numa: u32) -> String {
    let link = d
        .link
        .as_ref()
        .map_or("link not read".into(), crate::trace::PcieLink::describe);
    let mut out = format!(
        "gpu         GPU {} {} ({}), {}, CUDA {}{}; copies {}\n{}",
        d.index,
        crate::error::escape_line(&d.name),
        crate::error::escape_line(&d.pci_bus_id),
        link,
        crate::error::escape_line(&d.cuda_version),
        d.driver_version.as_ref().map_or(String::new(), |v| format!(
            ", driver {}",
            crate::error::escape_line(v)
        )),
        g.direction.words(),
        across(Some(&d.numa_nodes), comm_numa)
    );
    if let Some(l) = d.link.filter(crate::trace::PcieLink::below_best) {
        out += &format!(
            "WARNING     the GPU's link trained below its best ({}): the copies are capped \
             near {:.0} GB/s; reseat the card or check its slot and BIOS settings\n",
            l.describe(),
            l.raw_gbps()
        );
    }
    if let Some(from) = &g.replay {
        out += &format!(
            "WARNING     replaying the copies recorded in {}: no GPU is driven; the trace \
             says so and measures this machine's computations only\n",
            crate::error::escape_line(&from.display().to_string())
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 24em64t node's layout, whose three GPUs hwloc names by their ids alone.
    fn node() -> Layout {
        let p = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/data/topologies/24em64t-2n6c2t-pci.xml");
        crate::machine::topology::layout(&crate::machine::topology::load_xml(&p).unwrap())
    }

    fn device(index: u32, bus: &str, name: &str) -> GpuDevice {
        GpuDevice {
            index,
            name: name.into(),
            pci_bus_id: bus.into(),
            memory_bytes: 0,
            cuda_version: "13.0".into(),
            driver_version: None,
            link: None,
            numa_nodes: Vec::new(),
            socket: None,
        }
    }

    #[test]
    fn the_driver_names_the_gpus_it_drove_in_the_trace_s_machine() {
        let mut layout = node();
        assert_eq!(layout.gpus[1].name, "NVIDIA device 06d2");
        let (d, warning) = located(device(1, "0000:11:00.0", "Tesla M10"), &layout);
        assert_eq!(
            (d.numa_nodes.as_slice(), d.socket, warning),
            (&[1][..], Some(1), None)
        );
        named(&mut layout, &[d]);
        let names: Vec<&str> = layout.gpus.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(
            names,
            ["NVIDIA device 06d2", "Tesla M10", "NVIDIA device 06d2"]
        );
        assert_eq!(layout.machine_info().gpus[1].name, "Tesla M10");
        // The driver's GPU 1 on another bus than hwloc's: said, and located by its bus.
        let (d, warning) = located(device(1, "0000:06:00.0", "Tesla M10"), &node());
        assert_eq!(d.socket, Some(0));
        assert!(warning
            .unwrap()
            .contains("hwloc's GPU 1 is 0000:11:00.0, the driver's is 0000:06:00.0"));
    }
}
