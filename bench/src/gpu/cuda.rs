//! The real copy engine: the CUDA driver API (`libcuda`, which the NVIDIA driver installs),
//! loaded when `--engine gpu` first needs it through cudarc's dynamic loading, so the binary
//! builds, tests and runs where no CUDA is installed, and says what is missing where none is
//! ([`load`], exit 2).
//!
//! The communication buffer stays the tool's own, bound to the asked NUMA node and its
//! pages verified there like an MPI buffer (`crate::machine::memory`); the copy thread then
//! pins it for the GPU's DMA (`cuMemHostRegister`) and copies slot by slot between it and a
//! device buffer of the same size, `cuMemcpyAsync` then `cuStreamSynchronize`: one copy, one
//! sample, what the reference probe's `cudaMemcpyAsync` loop does. With `--gpu all` the
//! copy thread drives every GPU (`Spread`): the buffer registered once for all, each GPU
//! given the next slot as soon as its copy completes, each stream used with its context
//! current.
//!
//! Every call into the driver is an `unsafe` FFI call: each block is one call, and its
//! `// SAFETY:` line says why its pointers are valid.

use crate::gpu::{link, Copier, CopyEngine, CopyLanes, OpenCopies};
use crate::trace::{CopyDirection, GpuDevice};
use cudarc::driver::sys;
use std::ffi::{c_char, c_void, CStr};
use std::ops::Range;
use std::path::Path;

/// The driver, loaded and initialised (`cuInit`).
#[derive(Clone)]
pub(crate) struct Driver {
    /// CUDA's ordinals of the GPUs in PCI bus order: `--gpu N` is `ordinals[N]`.
    ordinals: Vec<(String, sys::CUdevice)>,
}

/// Why the driver cannot be used, as the user reads it: what is missing and where the tool
/// looked.
fn missing(what: &str) -> crate::Error {
    crate::Error::Input(format!("--engine gpu: {what}"))
}

/// A driver call's result as an error naming the call.
fn check(r: sys::CUresult, call: &str) -> Result<(), String> {
    if r == sys::CUresult::CUDA_SUCCESS {
        return Ok(());
    }
    let mut text: *const c_char = std::ptr::null();
    // SAFETY: `text` is a valid place for the driver to write a pointer to a static string.
    let described = unsafe { sys::cuGetErrorString(r, &mut text) };
    let said = if described == sys::CUresult::CUDA_SUCCESS && !text.is_null() {
        // SAFETY: the driver returned a NUL-terminated static string.
        unsafe { CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned()
    } else {
        String::new()
    };
    Err(format!("{call} failed: {r:?} {said}")
        .trim_end()
        .to_string())
}

/// Loads `libcuda` and initialises it, or says what is missing: no library (with the names
/// tried and where the dynamic loader looks), or a library that sees no GPU. Never panics:
/// cudarc's loader panics at the first call when the library is absent, so its presence is
/// asked first.
pub(crate) fn load() -> crate::Result<Driver> {
    let mut names = cudarc::get_lib_name_candidates("cuda");
    let mut seen = std::collections::BTreeSet::new();
    names.retain(|n| seen.insert(n.clone()));
    // SAFETY: only tries to open the library by its candidate names (dlopen), calling nothing.
    if !unsafe { sys::is_culib_present() } {
        let ld_path = std::env::var("LD_LIBRARY_PATH").unwrap_or_default();
        return Err(missing(&format!(
            "no CUDA driver library on this machine: looked for {} through the dynamic \
             loader (LD_LIBRARY_PATH={}, /etc/ld.so.cache, /lib, /usr/lib){}; install the \
             NVIDIA driver, or add the directory that holds libcuda.so.1 to LD_LIBRARY_PATH",
            names.join(", "),
            if ld_path.is_empty() {
                "unset".into()
            } else {
                crate::error::escape_line(&ld_path)
            },
            unloadable(&names)
        )));
    }
    // SAFETY: the library is present (checked above): this opens it, calling nothing.
    let lib = unsafe { sys::culib() };
    let lacking: Vec<&str> = SYMBOLS
        .iter()
        // SAFETY: looks a symbol up (dlsym) without calling it.
        .filter(|s| unsafe { lib.get::<unsafe extern "C" fn()>(s.as_bytes()) }.is_err())
        .copied()
        .collect();
    if !lacking.is_empty() {
        return Err(missing(&format!(
            "the CUDA driver library found lacks {} of the calls the engine makes ({}): not \
             NVIDIA's libcuda, or a driver older than CUDA 11; update the NVIDIA driver",
            lacking.len(),
            lacking.join(", ")
        )));
    }
    // SAFETY: plain call, flags must be 0.
    let init = unsafe { sys::cuInit(0) };
    if init == sys::CUresult::CUDA_ERROR_STUB_LIBRARY {
        let stubs: Vec<String> = std::env::var("LD_LIBRARY_PATH")
            .unwrap_or_default()
            .split(':')
            .filter(|d| d.contains("stubs"))
            .map(crate::error::escape_line)
            .collect();
        return Err(missing(&format!(
            "the libcuda loaded is the CUDA toolkit's stub, made for linking, not running \
             ({}): take the toolkit's `stubs` directory out of LD_LIBRARY_PATH so that the \
             driver's libcuda.so.1 is found",
            if stubs.is_empty() {
                "found before the driver's".to_string()
            } else {
                format!("LD_LIBRARY_PATH holds {}", stubs.join(", "))
            }
        )));
    }
    check(init, "cuInit").map_err(|e| {
        missing(&format!(
            "the CUDA driver library is here but cannot be used ({e}): no GPU, or the \
             driver's kernel module is not loaded (nvidia-smi says which)"
        ))
    })?;
    let mut count = 0;
    // SAFETY: `count` is a valid place for an int.
    let r = unsafe { sys::cuDeviceGetCount(&mut count) };
    check(r, "cuDeviceGetCount").map_err(|e| missing(&e))?;
    let mut ordinals = Vec::new();
    for ordinal in 0..count {
        let mut dev: sys::CUdevice = 0;
        // SAFETY: `dev` is a valid place for a device handle; the ordinal is below the count.
        let r = unsafe { sys::cuDeviceGet(&mut dev, ordinal) };
        check(r, "cuDeviceGet").map_err(|e| missing(&e))?;
        ordinals.push((bus_id(dev).map_err(|e| missing(&e))?, dev));
    }
    if ordinals.is_empty() {
        return Err(missing("the CUDA driver sees no GPU (cuDeviceGetCount: 0)"));
    }
    ordinals.sort();
    Ok(Driver { ordinals })
}

/// Every driver call the engine makes: looked up before the first one, since cudarc panics
/// at a call whose symbol the library lacks.
const SYMBOLS: [&str; 24] = [
    "cuInit",
    "cuDeviceGetCount",
    "cuDeviceGet",
    "cuDeviceGetPCIBusId",
    "cuDeviceGetName",
    "cuDeviceTotalMem_v2",
    "cuDriverGetVersion",
    "cuGetErrorString",
    "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxRelease_v2",
    "cuCtxSetCurrent",
    "cuMemAllocHost_v2",
    "cuMemFreeHost",
    "cuMemAlloc_v2",
    "cuMemFree_v2",
    "cuMemsetD8_v2",
    "cuMemHostRegister_v2",
    "cuMemHostUnregister",
    "cuMemcpyDtoHAsync_v2",
    "cuMemcpyHtoDAsync_v2",
    "cuStreamCreate",
    "cuStreamSynchronize",
    "cuStreamQuery",
    "cuStreamDestroy_v2",
];

/// What the dynamic loader said of the candidate libraries that exist but did not load (a
/// corrupt file, another architecture's), as `; LIB: why` parts of the message; empty when
/// none exists.
fn unloadable(names: &[String]) -> String {
    names
        .iter()
        .filter_map(|n| {
            // SAFETY: opens the library (dlopen), running its initialisers as any load
            // does, and closes it; nothing of it is called.
            match unsafe { libloading::Library::new(n) } {
                Ok(_) => None,
                Err(e) => {
                    // libloading says "dlopen failed", and dlerror's words in its source.
                    let why =
                        std::iter::successors(Some(&e as &dyn std::error::Error), |e| e.source())
                            .map(ToString::to_string)
                            .collect::<Vec<_>>()
                            .join(": ");
                    (!why.contains("No such file")).then(|| {
                        format!(
                            "; {n} is there but did not load: {}",
                            crate::error::escape_line(&why)
                        )
                    })
                }
            }
        })
        .collect()
}

/// A GPU's PCI bus id as sysfs and hwloc write it ([`link::normal_bus_id`]).
fn bus_id(dev: sys::CUdevice) -> Result<String, String> {
    let mut buf = [0 as c_char; 32];
    // SAFETY: `buf` holds 32 bytes and its length is passed; the driver NUL-terminates.
    let r = unsafe { sys::cuDeviceGetPCIBusId(buf.as_mut_ptr(), 32, dev) };
    check(r, "cuDeviceGetPCIBusId")?;
    // SAFETY: NUL-terminated within `buf` (zeroed, and written by the driver).
    let id = unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy();
    Ok(link::normal_bus_id(&id))
}

/// The driver's CUDA version (`cuDriverGetVersion`: 13000 is `13.0`).
fn cuda_version() -> Result<String, String> {
    let mut v = 0;
    // SAFETY: `v` is a valid place for an int.
    let r = unsafe { sys::cuDriverGetVersion(&mut v) };
    check(r, "cuDriverGetVersion")?;
    Ok(format!("{}.{}", v / 1000, (v % 1000) / 10))
}

/// The primary context of `dev`, retained and made current on this thread: a CUDA context
/// is current per thread, so the copy thread makes it current itself.
fn enter(dev: sys::CUdevice) -> Result<sys::CUcontext, String> {
    let mut ctx: sys::CUcontext = std::ptr::null_mut();
    // SAFETY: `ctx` is a valid place for a context handle; `dev` came from cuDeviceGet.
    let r = unsafe { sys::cuDevicePrimaryCtxRetain(&mut ctx, dev) };
    check(r, "cuDevicePrimaryCtxRetain")?;
    switch(ctx)?;
    Ok(ctx)
}

/// Makes `ctx` (a primary context [`enter`] retained) current on this thread: a stream is
/// used with its own context current, so one thread driving several GPUs switches.
fn switch(ctx: sys::CUcontext) -> Result<(), String> {
    // SAFETY: `ctx` is a primary context retained by `enter` and not yet released.
    check(unsafe { sys::cuCtxSetCurrent(ctx) }, "cuCtxSetCurrent")
}

/// Releases what [`enter`] retained.
fn leave(dev: sys::CUdevice) {
    // SAFETY: releases the primary context this thread retained; a failure leaves it to the
    // driver's clean-up at exit.
    let _ = unsafe { sys::cuDevicePrimaryCtxRelease_v2(dev) };
}

/// Bytes held on the GPU and pinned on the host for the warm-up copies of [`Driver::describe`].
const WARM_UP_BYTES: usize = 64 << 20;
/// Warm-up copies: enough to bring an idle link up to speed before it is read.
const WARM_UP_COPIES: usize = 16;

impl Driver {
    /// The `index`-th GPU (PCI bus order), or an error naming the GPUs there are.
    fn device(&self, index: u32) -> crate::Result<&(String, sys::CUdevice)> {
        self.ordinals.get(index as usize).ok_or_else(|| {
            crate::Error::Input(format!(
                "--gpu {index}: this node has {} GPU(s), {} (PCI bus order, as nvidia-smi \
                 numbers them)",
                self.ordinals.len(),
                self.ordinals
                    .iter()
                    .enumerate()
                    .map(|(i, (b, _))| format!("{i}: {b}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
    }

    /// The `index`-th GPU as the trace records it: the driver's name, memory and CUDA
    /// version, and sysfs's link and driver version. The link is read while warm-up copies
    /// run `direction`'s way (an idle GPU trains its link down), which also proves the GPU
    /// copies before the sweep starts.
    pub(crate) fn describe(
        &self,
        index: u32,
        direction: CopyDirection,
        sysfs_pci: &Path,
        module_version: &Path,
    ) -> crate::Result<GpuDevice> {
        let (bus, dev) = self.device(index)?.clone();
        let failed = |e: String| crate::Error::Failed(format!("GPU {index} ({bus}): {e}"));
        let mut name = [0 as c_char; 256];
        // SAFETY: `name` holds 256 bytes and its length is passed; the driver NUL-terminates.
        let r = unsafe { sys::cuDeviceGetName(name.as_mut_ptr(), 256, dev) };
        check(r, "cuDeviceGetName").map_err(failed)?;
        // SAFETY: NUL-terminated within `name`.
        let name = unsafe { CStr::from_ptr(name.as_ptr()) }
            .to_string_lossy()
            .into_owned();
        let mut memory = 0usize;
        // SAFETY: `memory` is a valid place for a size.
        let r = unsafe { sys::cuDeviceTotalMem_v2(&mut memory, dev) };
        check(r, "cuDeviceTotalMem").map_err(failed)?;
        enter(dev).map_err(failed)?;
        let link = warm_up(direction, dev, || link::read_link(sysfs_pci, &bus));
        Ok(GpuDevice {
            index,
            name,
            pci_bus_id: bus.clone(),
            memory_bytes: memory as u64,
            cuda_version: cuda_version().map_err(failed)?,
            driver_version: link::driver_version(module_version),
            link: link.map_err(failed)?,
            numa_nodes: Vec::new(),
            socket: None,
        })
    }

    /// The opener of the `index`-th GPU's copies, for the copy thread.
    pub(crate) fn copies(&self, index: u32, direction: CopyDirection) -> crate::Result<Copies> {
        let (bus, dev) = self.device(index)?.clone();
        Ok(Copies {
            dev,
            bus,
            direction,
        })
    }

    /// How many GPUs the driver sees (`--gpu all` copies on each).
    pub(crate) fn count(&self) -> u32 {
        self.ordinals.len() as u32
    }

    /// The opener of every GPU's copies at once (`--gpu all`), for the copy thread.
    pub(crate) fn every_copies(&self, direction: CopyDirection) -> Every {
        Every {
            gpus: self.ordinals.clone(),
            direction,
        }
    }
}

/// [`WARM_UP_COPIES`] copies `direction`'s way between scratch buffers on `dev`, whose
/// context [`enter`] made current on this thread (released here, with the buffers), `read`
/// called while they run: the plain loop's buffers ([`Pinned`]), its copies queued at once.
fn warm_up<T>(
    direction: CopyDirection,
    dev: sys::CUdevice,
    read: impl FnOnce() -> T,
) -> Result<T, String> {
    let mut scratch = Pinned::new(direction, WARM_UP_BYTES, dev)?;
    for _ in 0..WARM_UP_COPIES {
        scratch
            .device
            .queue(scratch.host.cast(), 0..WARM_UP_BYTES)?;
    }
    // The copies queued, the first ones running: the link is up to speed by now.
    std::thread::sleep(std::time::Duration::from_millis(5));
    let value = read();
    scratch.device.synchronize()?;
    Ok(value)
}

/// One asynchronous copy of `bytes` between `host` and `device` on `stream`.
///
/// # Safety
/// `host` and `device` must each hold `bytes` bytes, `host` pinned or registered, in the
/// current context, and stay valid until the stream is synchronised.
unsafe fn copy_async(
    direction: CopyDirection,
    host: *mut c_void,
    device: sys::CUdeviceptr,
    bytes: usize,
    stream: sys::CUstream,
) -> sys::CUresult {
    match direction {
        // SAFETY: the caller's contract.
        CopyDirection::DeviceToHost => unsafe {
            sys::cuMemcpyDtoHAsync_v2(host, device, bytes, stream)
        },
        // SAFETY: the caller's contract.
        CopyDirection::HostToDevice => unsafe {
            sys::cuMemcpyHtoDAsync_v2(device, host, bytes, stream)
        },
    }
}

/// Opens a GPU's copies on the copy thread ([`OpenCopies`]).
pub(crate) struct Copies {
    dev: sys::CUdevice,
    bus: String,
    direction: CopyDirection,
}

impl OpenCopies for Copies {
    fn open<'b>(&self, host: &'b mut [u8]) -> Result<Copier<'b>, String> {
        let failed = |e: String| format!("GPU {}: {e}", self.bus);
        enter(self.dev).map_err(failed)?;
        Ok(Copier::Serial(Box::new(
            Engine::new(self.direction, host, self.dev).map_err(failed)?,
        )))
    }
}

/// The device side of a copy stream: a device buffer, a stream of its own, and the context
/// retained by [`enter`] on the thread that copies; all released when dropped.
struct Device {
    buffer: sys::CUdeviceptr,
    bytes: usize,
    stream: sys::CUstream,
    dev: sys::CUdevice,
    direction: CopyDirection,
}

impl Device {
    /// A device buffer of `bytes` and a stream on `dev`, whose context [`enter`] made current
    /// on this thread (released with them).
    fn new(direction: CopyDirection, bytes: usize, dev: sys::CUdevice) -> Result<Self, String> {
        let mut d = Device {
            buffer: 0,
            bytes,
            stream: std::ptr::null_mut(),
            dev,
            direction,
        };
        // SAFETY: `d.buffer` is a valid place for the allocation's address.
        let r = unsafe { sys::cuMemAlloc_v2(&mut d.buffer, bytes) };
        check(r, "cuMemAlloc (a device buffer as large as the host one)")?;
        // SAFETY: the device buffer holds `bytes` bytes.
        let r = unsafe { sys::cuMemsetD8_v2(d.buffer, 1, bytes) };
        check(r, "cuMemsetD8")?;
        // SAFETY: `d.stream` is a valid place for a stream handle; 1 is
        // CU_STREAM_NON_BLOCKING.
        let r = unsafe { sys::cuStreamCreate(&mut d.stream, 1) };
        check(r, "cuStreamCreate")?;
        Ok(d)
    }

    /// Queues the copy of the bytes `slot` between `host` (pinned, at least as large as the
    /// device buffer) and the same bytes of the device buffer, without waiting for it.
    fn queue(&mut self, host: *mut u8, slot: Range<usize>) -> Result<(), String> {
        let slot = slot.start.min(self.bytes)..slot.end.min(self.bytes);
        // SAFETY: `slot` lies within the device buffer (clamped above) and, by the caller's
        // contract, within the pinned host buffer, which outlives the device side; both are
        // released only after the stream is synchronised (`synchronize`, or `drop`).
        let r = unsafe {
            copy_async(
                self.direction,
                host.add(slot.start).cast(),
                self.buffer + slot.start as u64,
                slot.len(),
                self.stream,
            )
        };
        check(r, "cuMemcpyAsync")
    }

    /// Waits for every copy queued on the stream.
    fn synchronize(&mut self) -> Result<(), String> {
        // SAFETY: the stream was created in `new` and not destroyed.
        let r = unsafe { sys::cuStreamSynchronize(self.stream) };
        check(r, "cuStreamSynchronize")
    }

    /// Whether every copy queued on the stream has completed, without waiting.
    fn idle(&mut self) -> Result<bool, String> {
        // SAFETY: the stream was created in `new` and not destroyed.
        let r = unsafe { sys::cuStreamQuery(self.stream) };
        if r == sys::CUresult::CUDA_ERROR_NOT_READY {
            return Ok(false);
        }
        check(r, "cuStreamQuery").map(|()| true)
    }

    /// Copies the bytes `slot` (as [`Device::queue`]) and waits for the copy to complete.
    fn copy(&mut self, host: *mut u8, slot: Range<usize>) -> Result<(), String> {
        self.queue(host, slot)?;
        self.synchronize()
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        // SAFETY: each releases what `new` created (null or 0 when it failed before), after
        // the copies still queued (a failure between `queue` and `synchronize`) completed.
        unsafe {
            if !self.stream.is_null() {
                let _ = sys::cuStreamSynchronize(self.stream);
                let _ = sys::cuStreamDestroy_v2(self.stream);
            }
            if self.buffer != 0 {
                let _ = sys::cuMemFree_v2(self.buffer);
            }
        }
        leave(self.dev);
    }
}

/// The copies of one sweep: the tool's own host buffer registered (pinned) for DMA, and a
/// device side of its size; the buffer unregistered when dropped (before the device side,
/// whose context it was registered in).
struct Engine<'b> {
    host: &'b mut [u8],
    device: Device,
}

impl<'b> Engine<'b> {
    fn new(
        direction: CopyDirection,
        host: &'b mut [u8],
        dev: sys::CUdevice,
    ) -> Result<Self, String> {
        let bytes = host.len();
        // First: on failure it releases itself, the context `enter` retained included.
        let device = Device::new(direction, bytes, dev)?;
        // SAFETY: `host` is a live allocation of `bytes` bytes that outlives the engine,
        // which unregisters it when dropped.
        let r = unsafe { sys::cuMemHostRegister_v2(host.as_mut_ptr().cast(), bytes, 0) };
        check(r, "cuMemHostRegister (pinning the communication buffer)")?;
        Ok(Engine { host, device })
    }
}

impl CopyEngine for Engine<'_> {
    fn copy(&mut self, slot: Range<usize>) -> Result<(), String> {
        // The host buffer is the device buffer's size, pinned in `new`.
        self.device.copy(self.host.as_mut_ptr(), slot)
    }
}

impl Drop for Engine<'_> {
    fn drop(&mut self) {
        let _ = self.device.synchronize();
        // SAFETY: unregisters the buffer `new` registered, its copies completed (above).
        let _ = unsafe { sys::cuMemHostUnregister(self.host.as_mut_ptr().cast()) };
    }
}

/// Opens every GPU's copies at once on the copy thread (`--gpu all`, [`OpenCopies`]).
pub(crate) struct Every {
    /// The GPUs in PCI bus order, as [`Driver`] holds them.
    gpus: Vec<(String, sys::CUdevice)>,
    direction: CopyDirection,
}

impl OpenCopies for Every {
    fn open<'b>(&self, host: &'b mut [u8]) -> Result<Copier<'b>, String> {
        Ok(Copier::Lanes(Box::new(Spread::new(
            self.direction,
            host,
            &self.gpus,
        )?)))
    }

    fn lanes(&self) -> usize {
        self.gpus.len()
    }
}

/// One GPU of [`Spread`]: its primary context, its device side, and its name in errors
/// (`GPU 2 (0000:3b:00.0)`).
struct Lane {
    ctx: sys::CUcontext,
    device: Device,
    name: String,
}

impl Lane {
    /// `e`, a driver call's error on this GPU, naming it: one of several failed.
    fn failed(&self, e: String) -> String {
        format!("{}: {e}", self.name)
    }
}

impl Drop for Lane {
    fn drop(&mut self) {
        // The device side is released next (a field is dropped after its owner's `drop`),
        // with its own context current, as it was created.
        let _ = switch(self.ctx);
    }
}

/// `CU_MEMHOSTREGISTER_PORTABLE`: host memory registered in one context is pinned for every
/// context, so that each GPU's copy engine may reach it.
const PORTABLE: u32 = 1;

/// The copies of every GPU at once, driven from one thread (`--gpu all`,
/// `crate::gpu::stream_lanes`): the tool's host buffer registered once for all of them, a
/// device side on each, each GPU's stream used with its own context current.
struct Spread<'b> {
    host: &'b mut [u8],
    lanes: Vec<Lane>,
}

impl<'b> Spread<'b> {
    fn new(
        direction: CopyDirection,
        host: &'b mut [u8],
        gpus: &[(String, sys::CUdevice)],
    ) -> Result<Self, String> {
        let bytes = host.len();
        let mut lanes = Vec::new();
        for (index, (bus, dev)) in gpus.iter().enumerate() {
            let name = format!("GPU {index} ({bus})");
            let failed = |e: String| format!("{name}: {e}");
            let ctx = enter(*dev).map_err(failed)?;
            // On failure it releases itself, and the lanes opened before release theirs.
            let device = Device::new(direction, bytes, *dev).map_err(failed)?;
            lanes.push(Lane { ctx, device, name });
        }
        let Some(first) = lanes.first() else {
            return Err("no GPU to copy with".into());
        };
        switch(first.ctx)?;
        // SAFETY: `host` is a live allocation of `bytes` bytes that outlives the engine,
        // which unregisters it when dropped (before the lanes, whose contexts it is pinned
        // for).
        let r = unsafe { sys::cuMemHostRegister_v2(host.as_mut_ptr().cast(), bytes, PORTABLE) };
        check(
            r,
            "cuMemHostRegister (pinning the communication buffer for every GPU)",
        )?;
        Ok(Spread { host, lanes })
    }
}

impl CopyLanes for Spread<'_> {
    fn lanes(&self) -> usize {
        self.lanes.len()
    }

    fn queue(&mut self, lane: usize, slot: Range<usize>) -> Result<(), String> {
        let host = self.host.as_mut_ptr();
        let lane = &mut self.lanes[lane];
        switch(lane.ctx)
            // The host buffer is each device buffer's size, pinned for every GPU.
            .and_then(|()| lane.device.queue(host, slot))
            .map_err(|e| lane.failed(e))
    }

    fn done(&mut self, lane: usize) -> Result<bool, String> {
        let lane = &mut self.lanes[lane];
        switch(lane.ctx)
            .and_then(|()| lane.device.idle())
            .map_err(|e| lane.failed(e))
    }

    fn drain(&mut self) -> Result<(), String> {
        for lane in &mut self.lanes {
            switch(lane.ctx)
                .and_then(|()| lane.device.synchronize())
                .map_err(|e| lane.failed(e))?;
        }
        Ok(())
    }
}

impl Drop for Spread<'_> {
    fn drop(&mut self) {
        let _ = self.drain();
        if let Some(first) = self.lanes.first() {
            let _ = switch(first.ctx);
        }
        // SAFETY: unregisters the buffer `new` registered, every copy completed (above).
        let _ = unsafe { sys::cuMemHostUnregister(self.host.as_mut_ptr().cast()) };
    }
}

/// Where the host side of the copies lives, for the bench that holds the engine to the
/// reference probe's loop (`benches/gpu_copy.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostMemory {
    /// The tool's own buffer pinned by `cuMemHostRegister`, copied by the engine of
    /// `measure --engine gpu`.
    Registered,
    /// A buffer the driver allocates pinned (`cuMemAllocHost`, what `cudaMallocHost` does):
    /// the probe's plain `cudaMemcpyAsync` loop.
    DriverPinned,
}

/// The bandwidth (GB/s, 10^9 B/s) of `copies` copies alone of `bytes` each, `direction`'s
/// way, on the `index`-th GPU (PCI bus order), over a ring of `slots` such slots in `host`
/// memory: the engine's copy loop, or the plain loop on driver-pinned memory, timed from
/// the first copy's start to the last one's end.
pub fn copies_alone(
    index: u32,
    direction: CopyDirection,
    (bytes, slots, copies): (usize, usize, usize),
    host: HostMemory,
) -> crate::Result<f64> {
    let driver = load()?;
    let (bus, dev) = driver.device(index)?.clone();
    let failed = |e: String| crate::Error::Failed(format!("GPU {index} ({bus}): {e}"));
    let ring = bytes * slots.max(1);
    let mut own = Vec::new();
    let mut engine: Box<dyn CopyEngine> = match host {
        HostMemory::Registered => {
            // Touched, as the tool touches its buffers before timing.
            own = vec![1u8; ring];
            match driver
                .copies(index, direction)?
                .open(&mut own)
                .map_err(failed)?
            {
                Copier::Serial(engine) => engine,
                Copier::Lanes(_) => unreachable!("one GPU's copies are serial"),
            }
        }
        HostMemory::DriverPinned => {
            enter(dev).map_err(failed)?;
            Box::new(Pinned::new(direction, ring, dev).map_err(failed)?)
        }
    };
    let mut slots = crate::measure::sweep::comm::Slots::new(ring, bytes);
    // One copy first: the first touches of a fresh buffer and a link waking from idle.
    engine.copy(slots.next_slot()).map_err(failed)?;
    let start = std::time::Instant::now();
    for _ in 0..copies {
        engine.copy(slots.next_slot()).map_err(failed)?;
    }
    let seconds = start.elapsed().as_secs_f64();
    drop(engine);
    drop(own);
    Ok((copies * bytes) as f64 / seconds / 1e9)
}

/// The plain loop's copies: a driver-pinned host buffer and a device side of its size, as the
/// reference probe copies; the host buffer freed when dropped.
struct Pinned {
    host: *mut c_void,
    device: Device,
}

impl Pinned {
    fn new(direction: CopyDirection, bytes: usize, dev: sys::CUdevice) -> Result<Self, String> {
        let device = Device::new(direction, bytes, dev)?;
        let mut host: *mut c_void = std::ptr::null_mut();
        // SAFETY: `host` is a valid place for the pinned allocation's address.
        let r = unsafe { sys::cuMemAllocHost_v2(&mut host, bytes) };
        check(r, "cuMemAllocHost")?;
        // SAFETY: the allocation above holds `bytes` bytes.
        unsafe { std::ptr::write_bytes(host.cast::<u8>(), 1, bytes) };
        Ok(Pinned { host, device })
    }
}

impl CopyEngine for Pinned {
    fn copy(&mut self, slot: Range<usize>) -> Result<(), String> {
        // The host buffer is the device buffer's size, pinned by the driver.
        self.device.copy(self.host.cast(), slot)
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        let _ = self.device.synchronize();
        // SAFETY: frees the allocation `new` made, its copies completed (above).
        let _ = unsafe { sys::cuMemFreeHost(self.host) };
    }
}
