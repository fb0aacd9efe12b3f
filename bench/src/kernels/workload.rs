//! What each computing thread does per iteration: the paper's non-temporal memset (section
//! 4.1.1), or, as Langguth, Cai and Sourouri ask in their future work, kernels that read as well
//! as write: STREAM's copy and triad (McCalpin, "Memory Bandwidth and Machine Balance", 1995).
//!
//! Copy and triad use ordinary stores, as STREAM does, and count bytes as STREAM does: 16 per
//! copied element, 24 per triad element. Their write-allocate reads are real memory traffic
//! that this count leaves out, as STREAM's does, so their bandwidths are not comparable with
//! the non-temporal memset's.
//!
//! Copy is written element by element with volatile stores: a plain `copy_from_slice` calls
//! the C library's `memcpy`, which switches to non-temporal stores above a size threshold
//! (glibc: a fraction of the last-level cache), and the "ordinary stores" above would then
//! silently be the memset's kind of traffic for large buffers and not for small ones.

//!
//! These loops are the only ones: `sensitivity --builtin nt-store` and `--builtin triad` run
//! them too, so both commands stress memory the same way.

use crate::kernels::stores::StoreSet;
use crate::kernels::ComputeKernel;
use std::mem::MaybeUninit;

/// A computing kernel ([`ComputeKernel`], `measure --kernel`) ready to run on this CPU: for
/// non-temporal stores, with the widest store instructions the CPU has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Workload {
    pub(crate) kernel: ComputeKernel,
    /// The instructions of [`ComputeKernel::NtStore`] (the others use ordinary stores).
    pub(crate) stores: StoreSet,
}

impl Workload {
    /// `kernel` with the widest non-temporal stores this CPU has.
    pub(crate) fn detect(kernel: ComputeKernel) -> Workload {
        Workload::with(kernel, StoreSet::detect())
    }

    /// `kernel` with the given non-temporal stores (benchmarks compare them).
    pub fn with(kernel: ComputeKernel, stores: StoreSet) -> Workload {
        Workload { kernel, stores }
    }

    /// Whether the stream bypasses the cache by design: non-temporal stores wider than the
    /// portable fallback.
    pub(crate) fn bypasses_cache(self) -> bool {
        self.kernel == ComputeKernel::NtStore && self.stores != StoreSet::Portable
    }

    /// The name recorded in the trace: `nt-store`, `copy`, `triad`.
    pub fn name(self) -> &'static str {
        self.kernel.name()
    }

    /// Bytes one [`Workload::run`] over a `len`-byte buffer moves.
    pub fn bytes_per_pass(self, len: usize) -> usize {
        let f = std::mem::size_of::<f64>();
        match self.kernel {
            ComputeKernel::NtStore => StoreSet::written(len),
            ComputeKernel::Copy => 2 * f * (len / f / 2),
            ComputeKernel::Triad => 3 * f * (len / f / 3),
        }
    }

    /// One pass over `buf`; `pass` varies what is written so no pass can be skipped.
    pub fn run(self, buf: &mut [u8], pass: u8) {
        match self.kernel {
            ComputeKernel::NtStore => {
                // SAFETY: `[u8]` and `[MaybeUninit<u8>]` have the same layout, and `fill` only
                // writes initialised bytes, so `buf` stays initialised.
                let raw = unsafe { &mut *(buf as *mut [u8] as *mut [MaybeUninit<u8>]) };
                self.stores.fill(raw, pass);
            }
            ComputeKernel::Copy | ComputeKernel::Triad => {
                // SAFETY: every 8 initialised bytes are a valid f64; `align_to_mut` gives the
                // aligned middle of the buffer.
                let (_, f, _) = unsafe { buf.align_to_mut::<f64>() };
                let s = f64::from(pass);
                if self.kernel == ComputeKernel::Copy {
                    let h = f.len() / 2;
                    let (a, b) = f.split_at_mut(h);
                    b[0] = s; // make every pass write something new
                    copy_with_plain_stores(a, &b[..h]);
                } else {
                    let n = f.len() / 3;
                    let (a, rest) = f.split_at_mut(n);
                    let (b, c) = rest.split_at(n);
                    for ((a, b), c) in a.iter_mut().zip(b).zip(&c[..n]) {
                        *a = b + s * c;
                    }
                }
                std::hint::black_box(&*f);
            }
        }
    }
}

/// `dst = src` with one ordinary (temporal) store per element: volatile stores cannot be
/// merged into a `memcpy` call (LLVM's loop-idiom pass would otherwise do it), so the traffic
/// is STREAM's copy whatever the size.
fn copy_with_plain_stores(dst: &mut [f64], src: &[f64]) {
    for (d, &s) in dst.iter_mut().zip(src) {
        // SAFETY: `d` is a valid, aligned, exclusively borrowed f64.
        unsafe { std::ptr::write_volatile(d, s) };
    }
}

#[cfg(test)]
mod tests {
    use crate::kernels::workload::*;

    #[test]
    fn each_workload_computes_what_it_says() {
        let mut buf = vec![0u8; 6 * 8 * 64];
        let f = |buf: &mut [u8]| -> Vec<f64> {
            buf.chunks_exact(8)
                .map(|c| f64::from_ne_bytes(c.try_into().unwrap()))
                .collect()
        };
        // Triad: b = 1, c = 2 in their thirds; a = b + pass * c.
        let n = buf.len() / 8 / 3;
        for (i, c) in buf.chunks_exact_mut(8).enumerate() {
            let v: f64 = if i < n {
                0.0
            } else if i < 2 * n {
                1.0
            } else {
                2.0
            };
            c.copy_from_slice(&v.to_ne_bytes());
        }
        Workload::detect(ComputeKernel::Triad).run(&mut buf, 3);
        assert!(f(&mut buf)[..n].iter().all(|&a| a == 7.0));
        // Copy: the first half becomes the second.
        Workload::detect(ComputeKernel::Copy).run(&mut buf, 5);
        let v = f(&mut buf);
        let h = v.len() / 2;
        assert_eq!(v[..h], v[h..]);
        assert_eq!(v[h], 5.0);
        // Non-temporal stores fill every byte.
        Workload::detect(ComputeKernel::NtStore).run(&mut buf, 0xA5);
        assert!(buf.iter().all(|&b| b == 0xA5));
    }

    #[test]
    fn bytes_are_counted_as_stream_does() {
        let len = 1 << 20;
        let w = |k| Workload::with(k, StoreSet::Sse2);
        assert_eq!(w(ComputeKernel::Copy).bytes_per_pass(len), len);
        assert_eq!(
            w(ComputeKernel::Triad).bytes_per_pass(3 * 8 * 1000),
            3 * 8 * 1000
        );
        assert_eq!(w(ComputeKernel::NtStore).bytes_per_pass(100), 64);
    }
}
