//! The store instruction sets of the computation kernel: a non-temporal `memset` (sections
//! 4.1.1 and 2.3 of the paper).
//!
//! Non-temporal stores write to memory without allocating cache lines, so every byte the
//! kernel writes crosses the memory bus exactly once and the last-level cache plays no part,
//! which is what the model assumes. The widest store the CPU supports is picked at run time:
//! the intrinsics only reach full speed inside a function compiled for their feature
//! (`#[target_feature]`), where they are inlined into the loop (14 GB/s outside,
//! 36 GB/s inside on the development machine).

use std::mem::MaybeUninit;

/// A store instruction set for the non-temporal kernel, widest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreSet {
    /// 64-byte `vmovntdq` (`_mm512_stream_si512`).
    Avx512,
    /// 32-byte `vmovntdq` (`_mm256_stream_si256`).
    Avx2,
    /// 16-byte `movntdq` (`_mm_stream_si128`).
    Sse2,
    /// Plain volatile stores, for architectures without a kernel here (e.g. aarch64). They go
    /// through the cache: the measured bandwidth then includes read-for-ownership traffic and
    /// is not the paper's non-temporal memset. The trace records it.
    Portable,
}

impl StoreSet {
    /// The widest instruction set this CPU supports.
    pub fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            if is_x86_feature_detected!("avx512f") {
                return StoreSet::Avx512;
            }
            if is_x86_feature_detected!("avx2") {
                return StoreSet::Avx2;
            }
            // SSE2 is part of the x86-64 baseline.
            StoreSet::Sse2
        }
        #[cfg(not(target_arch = "x86_64"))]
        StoreSet::Portable
    }

    /// Every kernel this CPU supports, widest first (for the tests).
    #[cfg(test)]
    pub(crate) fn supported() -> Vec<StoreSet> {
        let mut all = vec![StoreSet::Portable];
        #[cfg(target_arch = "x86_64")]
        {
            all.insert(0, StoreSet::Sse2);
            if is_x86_feature_detected!("avx2") {
                all.insert(0, StoreSet::Avx2);
            }
            if is_x86_feature_detected!("avx512f") {
                all.insert(0, StoreSet::Avx512);
            }
        }
        all
    }

    pub fn name(self) -> &'static str {
        match self {
            StoreSet::Avx512 => "avx512",
            StoreSet::Avx2 => "avx2",
            StoreSet::Sse2 => "sse2",
            StoreSet::Portable => "portable",
        }
    }

    /// Whether this CPU can run the kernel. A `StoreSet` is a plain value anyone can name, so
    /// [`StoreSet::fill`] checks this before it runs wide instructions (a cached feature test:
    /// one load per pass over a buffer of megabytes).
    pub(crate) fn runs_here(self) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            StoreSet::Avx512 => is_x86_feature_detected!("avx512f"),
            #[cfg(target_arch = "x86_64")]
            StoreSet::Avx2 => is_x86_feature_detected!("avx2"),
            #[cfg(not(target_arch = "x86_64"))]
            StoreSet::Avx512 | StoreSet::Avx2 | StoreSet::Sse2 => false,
            _ => true,
        }
    }

    /// Fills `buf` with `value`, bypassing the cache where the kernel can. Bytes past the
    /// largest multiple of 64 are left alone: buffers are page-sized multiples in practice,
    /// and the bandwidth is computed from the bytes actually written ([`StoreSet::written`]).
    ///
    /// # Panics
    /// When the CPU lacks the kernel's instructions (`StoreSet::runs_here`): running them
    /// would be undefined behaviour, and falling back silently would record a kernel that did
    /// not run. [`StoreSet::detect`] never gives such a kernel.
    pub fn fill(self, buf: &mut [MaybeUninit<u8>], value: u8) {
        assert!(
            self.runs_here(),
            "the {} kernel needs instructions this CPU lacks; use StoreSet::detect()",
            self.name()
        );
        let len = Self::written(buf.len());
        let ptr = buf.as_mut_ptr().cast::<u8>();
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `runs_here` (asserted above) confirmed AVX-512F on this CPU;
            // `ptr .. ptr+len` is inside `buf`, which we borrow mutably.
            StoreSet::Avx512 => unsafe { x86::stream_avx512(ptr, len, value) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above, with AVX2.
            StoreSet::Avx2 => unsafe { x86::stream_avx2(ptr, len, value) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: SSE2 is baseline on x86-64; the range is inside `buf`.
            StoreSet::Sse2 => unsafe { x86::stream_sse2(ptr, len, value) },
            _ => portable(buf, len, value),
        }
    }

    /// Bytes one [`StoreSet::fill`] of a `len`-byte buffer writes.
    pub fn written(len: usize) -> usize {
        len & !63
    }
}

fn portable(buf: &mut [MaybeUninit<u8>], len: usize, value: u8) {
    for b in &mut buf[..len] {
        b.write(value);
    }
    // Keep the compiler from eliding stores it can prove are dead.
    std::hint::black_box(buf);
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// Streams `len` bytes (a multiple of 64) from `ptr`, whose alignment may be anything:
    /// the unaligned head is written with regular stores up to the first 64-byte boundary.
    ///
    /// # Safety
    /// The CPU supports AVX-512F; `ptr .. ptr + len` is writable.
    #[target_feature(enable = "avx512f")]
    pub(crate) unsafe fn stream_avx512(ptr: *mut u8, len: usize, value: u8) {
        let v = _mm512_set1_epi8(value as i8);
        let (head, body) = split_aligned(ptr, len, 64);
        // SAFETY: caller guarantees the range; `head` bytes precede `body`.
        unsafe {
            std::ptr::write_bytes(ptr, value, head);
            let mut p = ptr.add(head);
            let end = p.add(body);
            while p < end {
                _mm512_stream_si512(p.cast(), v);
                p = p.add(64);
            }
            std::ptr::write_bytes(end, value, len - head - body);
            _mm_sfence();
        }
    }

    /// # Safety
    /// The CPU supports AVX2; `ptr .. ptr + len` is writable.
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn stream_avx2(ptr: *mut u8, len: usize, value: u8) {
        let v = _mm256_set1_epi8(value as i8);
        let (head, body) = split_aligned(ptr, len, 32);
        // SAFETY: caller guarantees the range.
        unsafe {
            std::ptr::write_bytes(ptr, value, head);
            let mut p = ptr.add(head);
            let end = p.add(body);
            while p < end {
                _mm256_stream_si256(p.cast(), v);
                _mm256_stream_si256(p.add(32).cast(), v);
                p = p.add(64);
            }
            std::ptr::write_bytes(end, value, len - head - body);
            _mm_sfence();
        }
    }

    /// # Safety
    /// `ptr .. ptr + len` is writable.
    #[target_feature(enable = "sse2")]
    pub(crate) unsafe fn stream_sse2(ptr: *mut u8, len: usize, value: u8) {
        let v = _mm_set1_epi8(value as i8);
        let (head, body) = split_aligned(ptr, len, 16);
        // SAFETY: caller guarantees the range.
        unsafe {
            std::ptr::write_bytes(ptr, value, head);
            let mut p = ptr.add(head);
            let end = p.add(body);
            while p < end {
                _mm_stream_si128(p.cast(), v);
                _mm_stream_si128(p.add(16).cast(), v);
                _mm_stream_si128(p.add(32).cast(), v);
                _mm_stream_si128(p.add(48).cast(), v);
                p = p.add(64);
            }
            std::ptr::write_bytes(end, value, len - head - body);
            _mm_sfence();
        }
    }

    /// Bytes before the first `align`-byte boundary, and the 64-byte-multiple body after it.
    fn split_aligned(ptr: *mut u8, len: usize, align: usize) -> (usize, usize) {
        let head = ptr.align_offset(align).min(len);
        (head, (len - head) & !63)
    }
}

#[cfg(test)]
mod tests {
    use crate::kernels::stores::*;

    #[test]
    fn every_supported_kernel_fills_exactly_the_written_bytes() {
        for k in StoreSet::supported() {
            // Misaligned start and odd length exercise head, body and tail.
            let mut raw = vec![MaybeUninit::new(0u8); 4096 + 3];
            let buf = &mut raw[3..];
            let n = buf.len();
            k.fill(buf, 0xA5);
            let written = StoreSet::written(n);
            // SAFETY: every byte of `raw` was initialised by `vec!`.
            let bytes: Vec<u8> = raw.iter().map(|b| unsafe { b.assume_init() }).collect();
            assert!(
                bytes[..3].iter().all(|&b| b == 0),
                "{k:?} wrote before the buffer"
            );
            assert!(bytes[3..3 + written].iter().all(|&b| b == 0xA5), "{k:?}");
            assert!(
                bytes[3 + written..].iter().all(|&b| b == 0),
                "{k:?} wrote past `written`"
            );
        }
    }

    #[test]
    fn a_kernel_the_cpu_lacks_panics_instead_of_running() {
        for k in [
            StoreSet::Avx512,
            StoreSet::Avx2,
            StoreSet::Sse2,
            StoreSet::Portable,
        ] {
            let supported = StoreSet::supported().contains(&k);
            assert_eq!(k.runs_here(), supported, "{k:?}");
            let mut buf = vec![MaybeUninit::new(0u8); 256];
            let ran =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| k.fill(&mut buf, 1)))
                    .is_ok();
            assert_eq!(ran, supported, "{k:?}");
        }
    }

    #[test]
    fn detect_is_among_supported() {
        assert_eq!(StoreSet::supported()[0], StoreSet::detect());
    }
}
