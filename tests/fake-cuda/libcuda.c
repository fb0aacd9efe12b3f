/*
 * A fake NVIDIA driver (libcuda.so.1) for the tests of `measure --engine gpu` on machines
 * without a GPU (tests/gpu.rs builds it with `cc -shared -fPIC`). It implements the calls the
 * engine makes, holding it to the rules the real driver enforces, so that a mistake the real
 * driver would refuse fails here too:
 *   - a context must be current on the calling thread (cuCtxSetCurrent) for any allocation,
 *     stream or copy, and a stream's own for its copies, waits and queries (one thread
 *     driving several GPUs switches): CUDA_ERROR_INVALID_CONTEXT (201) otherwise;
 *   - a copy's host side must lie in pinned memory (cuMemHostRegister, cuMemAllocHost):
 *     CUDA_ERROR_INVALID_VALUE (1) otherwise;
 *   - unregistering what was not registered: CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED (713);
 *     host memory still registered at exit is said on standard error.
 * Device memory is host memory; a copy is a memcpy. Its GPUs report PCI bus ids out of
 * CUDA's order (device 0 on bus 3b, device 1 on bus 1b), written as the real driver writes
 * them ("00000000:3B:00.0").
 *
 * Environment: FAKE_CUDA_DEVICES (default 1), FAKE_CUDA_INIT (cuInit's result: 34 the
 * toolkit's stub, 100 no device), FAKE_CUDA_HANG (set: once host memory has been registered,
 * as the sweep's buffer is, every stream synchronisation blocks for ever and every query
 * says not ready, as a GPU that hung after the warm-up; `warm-up`: every one, the warm-up's
 * first), FAKE_CUDA_HANG_DEV (d: as FAKE_CUDA_HANG, for the streams of CUDA device d only,
 * as one GPU of several that hung), FAKE_CUDA_FAIL_COPY (N: the N-th copy once host memory
 * has been registered is refused with CUDA_ERROR_LAUNCH_FAILED, 719, as a GPU that faults
 * mid-sweep). Built with -DFAKE_CUDA_LACK_SYNC, it lacks cuStreamSynchronize.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;

enum { OK = 0, INVALID_VALUE = 1, INVALID_DEVICE = 101, INVALID_CONTEXT = 201,
       NOT_READY = 600, NOT_REGISTERED = 713, LAUNCH_FAILED = 719, MAX_DEVICES = 8, MAX_PINNED = 256 };

static int env_int(const char *name, int fallback) {
    const char *v = getenv(name);
    return v ? atoi(v) : fallback;
}

static int devices(void) { return env_int("FAKE_CUDA_DEVICES", 1); }

static __thread void *current;
static char contexts[MAX_DEVICES];
static struct { char *start; size_t bytes; } pinned[MAX_PINNED];
static int npinned;
static int registered_ever;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static CUresult pin(void *p, size_t n) {
    pthread_mutex_lock(&lock);
    CUresult r = INVALID_VALUE;
    if (npinned < MAX_PINNED) {
        pinned[npinned].start = p;
        pinned[npinned].bytes = n;
        npinned++;
        r = OK;
    }
    pthread_mutex_unlock(&lock);
    return r;
}

static CUresult unpin(void *p) {
    pthread_mutex_lock(&lock);
    CUresult r = NOT_REGISTERED;
    for (int i = 0; i < npinned; i++)
        if (pinned[i].start == p) {
            pinned[i] = pinned[--npinned];
            r = OK;
            break;
        }
    pthread_mutex_unlock(&lock);
    return r;
}

static int is_pinned(const void *p, size_t n) {
    const char *c = p;
    int found = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < npinned && !found; i++)
        found = c >= pinned[i].start && c + n <= pinned[i].start + pinned[i].bytes;
    pthread_mutex_unlock(&lock);
    return found;
}

__attribute__((destructor)) static void at_exit(void) {
    if (npinned)
        fprintf(stderr, "fake libcuda: %d host buffer(s) still registered at exit\n", npinned);
}

CUresult cuInit(unsigned flags) { return flags ? INVALID_VALUE : env_int("FAKE_CUDA_INIT", OK); }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return OK; }
CUresult cuDeviceGetCount(int *n) { *n = devices(); return OK; }

CUresult cuDeviceGet(CUdevice *d, int ordinal) {
    if (ordinal < 0 || ordinal >= devices() || ordinal >= MAX_DEVICES) return INVALID_DEVICE;
    *d = ordinal;
    return OK;
}

CUresult cuDeviceGetPCIBusId(char *id, int len, CUdevice d) {
    snprintf(id, len, "00000000:%02X:00.0", d == 0 ? 0x3b : 0x1b + 0x10 * (d - 1));
    return OK;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
    snprintf(name, len, "Fake H200 %d", d);
    return OK;
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d) { (void)d; *bytes = (size_t)141 << 30; return OK; }

CUresult cuGetErrorString(CUresult e, const char **text) {
    (void)e;
    *text = "refused by the fake driver";
    return OK;
}

CUresult cuDevicePrimaryCtxRetain(void **ctx, CUdevice d) { *ctx = &contexts[d]; return OK; }
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) { (void)d; return OK; }
CUresult cuCtxSetCurrent(void *ctx) { current = ctx; return OK; }

CUresult cuMemAllocHost_v2(void **p, size_t n) {
    if (!current) return INVALID_CONTEXT;
    *p = malloc(n);
    return pin(*p, n);
}

CUresult cuMemFreeHost(void *p) {
    CUresult r = unpin(p);
    free(p);
    return r;
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
    if (!current) return INVALID_CONTEXT;
    *p = (CUdeviceptr)malloc(n);
    return OK;
}

CUresult cuMemFree_v2(CUdeviceptr p) { free((void *)p); return OK; }

CUresult cuMemsetD8_v2(CUdeviceptr p, unsigned char v, size_t n) {
    if (!current) return INVALID_CONTEXT;
    memset((void *)p, v, n);
    return OK;
}

CUresult cuMemHostRegister_v2(void *p, size_t n, unsigned flags) {
    (void)flags;
    if (!current) return INVALID_CONTEXT;
    registered_ever = 1;
    return pin(p, n);
}

CUresult cuMemHostUnregister(void *p) { return unpin(p); }

/* A stream is the context it was created in. */
static int in_context(void *stream) { return current && *(void **)stream == current; }

/* Whether this copy is the one FAKE_CUDA_FAIL_COPY says to refuse. */
static int failing(void) {
    static int copies;
    if (!registered_ever) return 0;
    pthread_mutex_lock(&lock);
    int n = ++copies;
    pthread_mutex_unlock(&lock);
    return n == env_int("FAKE_CUDA_FAIL_COPY", 0);
}

/* Whether `stream` hangs: every one (FAKE_CUDA_HANG), or those of one device. */
static int hung(void *stream) {
    const char *hang = getenv("FAKE_CUDA_HANG");
    const char *dev = getenv("FAKE_CUDA_HANG_DEV");
    if (dev && registered_ever && *(void **)stream == &contexts[atoi(dev) % MAX_DEVICES])
        return 1;
    return hang && (registered_ever || strcmp(hang, "warm-up") == 0);
}

CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, void *stream) {
    if (!in_context(stream)) return INVALID_CONTEXT;
    if (failing()) return LAUNCH_FAILED;
    if (!is_pinned(dst, n)) return INVALID_VALUE;
    memcpy(dst, (void *)src, n);
    return OK;
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, void *stream) {
    if (!in_context(stream)) return INVALID_CONTEXT;
    if (failing()) return LAUNCH_FAILED;
    if (!is_pinned(src, n)) return INVALID_VALUE;
    memcpy((void *)dst, src, n);
    return OK;
}

CUresult cuStreamCreate(void **stream, unsigned flags) {
    (void)flags;
    if (!current) return INVALID_CONTEXT;
    *stream = malloc(sizeof(void *));
    *(void **)*stream = current;
    return OK;
}

CUresult cuStreamQuery(void *stream) {
    if (!in_context(stream)) return INVALID_CONTEXT;
    return hung(stream) ? NOT_READY : OK;
}

CUresult cuStreamDestroy_v2(void *stream) { free(stream); return OK; }

#ifndef FAKE_CUDA_LACK_SYNC
CUresult cuStreamSynchronize(void *stream) {
    if (hung(stream))
        for (;;) pause();
    return in_context(stream) ? OK : INVALID_CONTEXT;
}
#endif
