/* benanza CUDA benchmark runtime: the device, checked CUDA calls, buffers of random data, the
 * GPU's own timing of the work, CUPTI's kernel records as a cross-check, and the generic part
 * of every benchmark (bc_setup / bc_measure / bc_teardown).
 *
 * Inlined after harness.h into every generated CUDA benchmark (.c files built by the C
 * compiler, .cu files built by nvcc: the code is C that also compiles as C++). What the
 * benchmark times is its family's code: cudnn_ops.h, cublas_ops.h or a kernel of ours, each
 * providing setup / launch / teardown for the operation the generated file describes. No
 * GPU: the row says `nodevice` and the exit status is 3.
 *
 * Timing (docs/formats.md, method column). A sample is N launches queued behind a blocking
 * kernel, a one-thread kernel that spins on a flag in host-mapped memory until the host has
 * enqueued them all: the launches then run back to back and two events around them give the
 * GPU's time, never the host's enqueue time (the technique of NVIDIA's nvbench). The kernel is
 * PTX loaded through the driver API, so that library benchmarks stay plain C. It gives up
 * after a timeout (a library call that synchronises, or a full launch queue, would otherwise
 * deadlock): the benchmark then replays the N launches from a CUDA graph instead, and says
 * so. --cold times one launch after an L2 flush, also released from behind the blocking
 * kernel. */
#ifndef BENANZA_CUDA_BENCH_H
#define BENANZA_CUDA_BENCH_H

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#if defined(__has_include)
#if __has_include(<cupti_activity.h>)
#include <cupti_activity.h>
#define BC_HAVE_CUPTI 1
#endif
#endif

/* BC_F8: fp8 e4m3 (1 sign, 4 exponent bits biased by 7, 3 mantissa bits; no infinity, one NaN
 * per sign; at most 448), the operands of cuBLASLt's fp8 GEMMs */
enum bc_dtype { BC_F32, BC_F16, BC_BF16, BC_I64, BC_I32, BC_U8, BC_F8 };
static const size_t bc_dtype_size[] = {4, 2, 2, 8, 4, 1, 1};

enum { BC_MAX_ND = 8, BC_MAX_BUFS = 12 };

struct bc_tensor {
    int nd;
    long long d[BC_MAX_ND];
};

static inline long long bc_numel(const struct bc_tensor *t)
{
    long long n = 1;
    for (int k = 0; k < t->nd; k++)
        n *= t->d[k];
    return n;
}

/* How a buffer is filled before timing. */
enum bc_fill {
    BC_FILL_UNIFORM = 0, /* [-1, 1) */
    BC_FILL_POSITIVE,    /* [0.5, 1.5): variances, logarithms, square roots */
    BC_FILL_INDEX,       /* integers in [0, fill_max): gather indices */
    BC_FILL_ZERO,        /* outputs and workspaces */
};

struct bc_buf {
    void *p;
    size_t bytes;
    int dtype;           /* enum bc_dtype */
    int fill;            /* enum bc_fill */
    long long fill_max;  /* BC_FILL_INDEX */
};

/* How a row's time was taken (the method column). */
enum bc_method { BC_M_BLOCKING, BC_M_GRAPH, BC_M_GRAPH_HOST, BC_M_EVENTS, BC_M_COLD, BC_M_COLD_EVENTS, BC_M_COUNT };
static const char *const bc_method_names[BC_M_COUNT] = {"blocking", "graph", "graph-host", "events", "cold",
                                                        "cold-events"};

/* The blocking kernel: bc_block(flag, timed_out, timeout_ns) returns once *flag is non-zero,
 * or sets *timed_out after timeout_ns of the GPU's global timer. PTX of an old ISA version, so
 * that every driver since CUDA 10 compiles it for its GPU. */
static const char bc_block_ptx[] =
    ".version 6.0\n"
    ".target sm_50\n"
    ".address_size 64\n"
    ".visible .entry bc_block(.param .u64 bc_flag, .param .u64 bc_timed_out, .param .u64 bc_timeout_ns)\n"
    "{\n"
    "    .reg .pred %p<3>;\n"
    "    .reg .b32 %r<3>;\n"
    "    .reg .b64 %rd<8>;\n"
    "    ld.param.u64 %rd1, [bc_flag];\n"
    "    ld.param.u64 %rd2, [bc_timed_out];\n"
    "    ld.param.u64 %rd3, [bc_timeout_ns];\n"
    "    mov.u64 %rd4, %globaltimer;\n"
    "SPIN:\n"
    "    ld.volatile.u32 %r1, [%rd1];\n"
    "    setp.ne.u32 %p1, %r1, 0;\n"
    "    @%p1 bra DONE;\n"
    "    mov.u64 %rd5, %globaltimer;\n"
    "    sub.u64 %rd6, %rd5, %rd4;\n"
    "    setp.lt.u64 %p2, %rd6, %rd3;\n"
    "    @%p2 bra SPIN;\n"
    "    mov.u32 %r2, 1;\n"
    "    st.volatile.u32 [%rd2], %r2;\n"
    "DONE:\n"
    "    ret;\n"
    "}\n";

/* Limits of a steady-state sample: the GPU time it aims at, the launches one sample may queue
 * behind the blocking kernel (below the driver's launch-queue depth, counting the kernels
 * each launch makes), the host time its enqueueing may take, and the blocking kernel's
 * timeout. */
enum { BC_SAMPLE_TARGET_US = 500, BC_QUEUE_BUDGET = 480, BC_MAX_BATCH = 1000 };
static const double bc_enqueue_budget_us = 250e3;
static const unsigned long long bc_block_timeout_ns = 2000000000ull;

typedef CUresult (*bc_pfn_module_load_data)(CUmodule *, const void *);
typedef CUresult (*bc_pfn_module_get_function)(CUfunction *, CUmodule, const char *);
typedef CUresult (*bc_pfn_module_unload)(CUmodule);
typedef CUresult (*bc_pfn_launch_kernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                         unsigned, CUstream, void **, void **);

/* CUPTI's activity API, loaded at run time: a machine without libcupti still times (the row
 * says why kernel_us is empty). */
enum { BC_MAX_KNAMES = 4 };
struct bc_cupti {
    void *lib;
    int ready;
    char why[160];           /* why not ready */
#ifdef BC_HAVE_CUPTI
    CUptiResult (*enable)(CUpti_ActivityKind);
    CUptiResult (*disable)(CUpti_ActivityKind);
    CUptiResult (*flush_all)(uint32_t);
    CUptiResult (*next_record)(uint8_t *, size_t, CUpti_Activity **);
    CUptiResult (*register_cb)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
#endif
    /* what the last collection found */
    long long records, dropped;
    long long copies;        /* of the records, the memsets and copies (no kernel to ncu) */
    double sum_ns;           /* summed duration of the kernels, memsets and copies */
    unsigned long long first_ns, last_ns;
    char names[BC_MAX_KNAMES][112];
    int nnames;
    size_t skip_memset_bytes; /* --cold: the flush, not the work */
};

struct bc_state;
typedef enum bh_status (*bc_setup_fn)(struct bc_state *s, struct bh_result *r);
typedef enum bh_status (*bc_launch_fn)(struct bc_state *s, struct bh_result *r);
typedef void (*bc_teardown_fn)(struct bc_state *s);

struct bc_state {
    const void *op;          /* the family's op description (generated) */
    bc_setup_fn setup;       /* descriptors, buffers (bc_alloc), workspace */
    bc_launch_fn launch;     /* enqueue one iteration on s->stream */
    bc_teardown_fn teardown;
    void *family;            /* the family's own state */
    const struct bh_opts *opts;
    int dev;
    cudaStream_t stream;
    cudaEvent_t ev0, ev1;
    struct bc_buf buf[BC_MAX_BUFS];
    int nbuf;
    void *ws;                /* workspace */
    size_t ws_bytes;
    void *flush;             /* --cold: written before each launch to evict L2 */
    size_t flush_bytes;
    cudaGraph_t graph;       /* the graph methods: a sample's launches captured once */
    cudaGraphExec_t graph_exec;
    int graph_n;
    int l2_bytes;
    /* the blocking kernel */
    CUmodule block_mod;
    CUfunction block_fn;
    bc_pfn_launch_kernel launch_kernel;
    bc_pfn_module_unload module_unload;
    volatile unsigned *flag, *timed_out; /* host-mapped */
    unsigned *dflag, *dtimed_out;        /* the same, as the device sees them */
    char block_why[160];                 /* why there is no blocking kernel */
    struct bc_cupti cupti;
};

/* A failed CUDA runtime call: the call and its message in the note; out of memory is `oom`,
 * no device (or no driver) `nodevice`, anything else `error`. */
static inline enum bh_status bc_cuda_status(cudaError_t e)
{
    if (e == cudaErrorMemoryAllocation)
        return BH_OOM;
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || e == cudaErrorInitializationError)
        return BH_NODEVICE;
    return BH_ERROR;
}

#define BC_CUDA(r, call)                                                                            \
    do {                                                                                            \
        cudaError_t bc_e_ = (call);                                                                 \
        if (bc_e_ != cudaSuccess) {                                                                 \
            bh_note((r), "%s failed: %s (%s)", #call, cudaGetErrorString(bc_e_), cudaGetErrorName(bc_e_)); \
            return bc_cuda_status(bc_e_);                                                           \
        }                                                                                           \
    } while (0)

/* Deterministic values, the same on every machine. */
static inline float bc_rand(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (float)(*s >> 8) / 16777216.0f;
}

/* IEEE half and bfloat16 from float, rounding to nearest even (finite inputs in range). */
static inline unsigned short bc_f2h(float f)
{
    unsigned x;
    memcpy(&x, &f, 4);
    unsigned sign = (x >> 16) & 0x8000u;
    int e = (int)((x >> 23) & 0xff) - 127 + 15;
    unsigned m = x & 0x7fffffu;
    if (e >= 31)
        return (unsigned short)(sign | 0x7c00u);
    if (e <= 0) {
        if (e < -10)
            return (unsigned short)sign;
        m |= 0x800000u;
        int shift = 14 - e;
        unsigned h = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1)))
            h++;
        return (unsigned short)(sign | h);
    }
    unsigned h = ((unsigned)e << 10) | (m >> 13), rem = m & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
        h++;
    return (unsigned short)(sign | h);
}

/* fp8 e4m3 from float, rounding to nearest even, saturating at +-448 (what frameworks' casts do) */
static inline unsigned char bc_f2e4m3(float f)
{
    unsigned char sign = signbit(f) ? 0x80 : 0;
    double a = fabs((double)f);
    if (a != a)
        return 0x7f;
    if (a >= 448)
        return (unsigned char)(sign | 0x7e);
    int e;
    frexp(a, &e); /* a = m 2^e, m in [0.5, 1): a = (2m) 2^(e-1) */
    int x = e - 1;
    if (a == 0 || x < -6) { /* subnormal: a = q 2^-9, q = 0..7 */
        long q = lrint(a * 512.0);
        return (unsigned char)(sign | (q >= 8 ? 0x08 : (unsigned char)q));
    }
    long q = lrint((a / ldexp(1.0, x) - 1.0) * 8.0); /* the mantissa's 3 bits, 8 carries over */
    if (q == 8) {
        q = 0;
        x++;
    }
    int biased = x + 7;
    if (biased > 15 || (biased == 15 && q == 7))
        return (unsigned char)(sign | 0x7e);
    return (unsigned char)(sign | (biased << 3) | (int)q);
}

/* the value of an fp8 e4m3 code */
static inline double bc_e4m3_value(unsigned char b)
{
    int biased = (b >> 3) & 15, m = b & 7;
    double v = biased == 15 && m == 7 ? NAN : biased == 0 ? ldexp((double)m, -9) : ldexp((double)(8 + m), biased - 10);
    return b & 0x80 ? -v : v;
}

static inline unsigned short bc_f2bf(float f)
{
    unsigned x;
    memcpy(&x, &f, 4);
    x += 0x7fffu + ((x >> 16) & 1u);
    return (unsigned short)(x >> 16);
}

static inline enum bh_status bc_fill_buffer(struct bc_state *s, struct bc_buf *b, unsigned seed, struct bh_result *r)
{
    if (b->fill == BC_FILL_ZERO) {
        BC_CUDA(r, cudaMemset(b->p, 0, b->bytes));
        return BH_OK;
    }
    size_t n = b->bytes / bc_dtype_size[b->dtype];
    void *h = malloc(b->bytes);
    if (!h) {
        bh_note(r, "out of host memory for %zu bytes", b->bytes);
        return BH_OOM;
    }
    for (size_t i = 0; i < n; i++) {
        float u = bc_rand(&seed);
        float v = b->fill == BC_FILL_POSITIVE ? 0.5f + u : 2.0f * u - 1.0f;
        long long idx = b->fill_max > 0 ? (long long)(u * (float)b->fill_max) % b->fill_max : 0;
        switch (b->dtype) {
        case BC_F32: ((float *)h)[i] = v; break;
        case BC_F16: ((unsigned short *)h)[i] = bc_f2h(v); break;
        case BC_BF16: ((unsigned short *)h)[i] = bc_f2bf(v); break;
        case BC_F8: ((unsigned char *)h)[i] = bc_f2e4m3(v); break;
        case BC_I64: ((long long *)h)[i] = b->fill == BC_FILL_INDEX ? idx : (long long)(v * 8); break;
        case BC_I32: ((int *)h)[i] = b->fill == BC_FILL_INDEX ? (int)idx : (int)(v * 8); break;
        default: ((unsigned char *)h)[i] = (unsigned char)(u < 0.5f); break;
        }
    }
    cudaError_t e = cudaMemcpy(b->p, h, b->bytes, cudaMemcpyHostToDevice);
    free(h);
    BC_CUDA(r, e);
    (void)s;
    return BH_OK;
}

/* A device buffer of n elements, allocated and filled at once: *out is its pointer. */
static inline enum bh_status bc_buffer(struct bc_state *s, struct bh_result *r, long long n, int dtype, int fill,
                                       long long fill_max, void **out)
{
    if (s->nbuf == BC_MAX_BUFS) {
        bh_note(r, "more than %d buffers (a gen bug)", BC_MAX_BUFS);
        return BH_ERROR;
    }
    struct bc_buf *b = &s->buf[s->nbuf++];
    b->bytes = (size_t)(n > 0 ? n : 1) * bc_dtype_size[dtype];
    b->dtype = dtype;
    b->fill = fill;
    b->fill_max = fill_max;
    b->p = NULL;
    BC_CUDA(r, cudaMalloc(&b->p, b->bytes));
    *out = b->p;
    return bc_fill_buffer(s, b, 12345u + 7919u * (unsigned)s->nbuf, r);
}

/* The device columns: name, compute capability, SMs; clocks and library versions in lib. */
static inline enum bh_status bc_device(struct bc_state *s, struct bh_result *r)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    snprintf(r->device, sizeof(r->device), "none");
    if (e != cudaSuccess || n == 0) {
        bh_note(r, "no CUDA device: cudaGetDeviceCount: %s", e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
        return BH_NODEVICE;
    }
    s->dev = 0; /* the first visible one: choose with CUDA_VISIBLE_DEVICES */
    BC_CUDA(r, cudaSetDevice(s->dev));
    struct cudaDeviceProp p;
    BC_CUDA(r, cudaGetDeviceProperties(&p, s->dev));
    int clock_khz = 0, mem_khz = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, s->dev);
    cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, s->dev);
    snprintf(r->device, sizeof(r->device), "%.*s", (int)sizeof(r->device) - 1, p.name);
    snprintf(r->cc, sizeof(r->cc), "%d.%d", p.major, p.minor);
    snprintf(r->sms, sizeof(r->sms), "%d", p.multiProcessorCount);
    snprintf(r->tags + strlen(r->tags), sizeof(r->tags) - strlen(r->tags), "%ssm_mhz=%d; mem_mhz=%d",
             *r->tags ? "; " : "", clock_khz / 1000, mem_khz / 1000);
    s->l2_bytes = p.l2CacheSize;
    return BH_OK;
}

/* The lib column: one string for every benchmark of a backend on a machine, so that the
 * aggregator sees them as one target: LIBS (the libraries' versions, or "benanza CUDA
 * kernels") then the CUDA runtime and driver. */
static inline void bc_lib(struct bh_result *r, const char *libs)
{
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    snprintf(r->lib, sizeof(r->lib), "%.96s, CUDA %d.%d, driver %d.%d", libs, runtime / 1000, (runtime % 1000) / 10,
             driver / 1000, (driver % 1000) / 10);
}

/* ---- the blocking kernel ---- */

static inline void *bc_driver_symbol(const char *name)
{
    void *fn = NULL;
#if CUDART_VERSION >= 12050
    enum cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
        fn = NULL;
#elif CUDART_VERSION >= 12000
    enum cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPoint(name, &fn, cudaEnableDefault, &q) != cudaSuccess || q != cudaDriverEntryPointSuccess)
        fn = NULL;
#else
    if (cudaGetDriverEntryPoint(name, &fn, cudaEnableDefault) != cudaSuccess)
        fn = NULL;
#endif
    return fn;
}

/* Loads the blocking kernel and its flags. A failure is no error: the benchmark then times
 * with graphs alone and the row says why (s->block_why). */
static inline enum bh_status bc_block_init(struct bc_state *s, struct bh_result *r)
{
    bc_pfn_module_load_data load = (bc_pfn_module_load_data)bc_driver_symbol("cuModuleLoadData");
    bc_pfn_module_get_function get = (bc_pfn_module_get_function)bc_driver_symbol("cuModuleGetFunction");
    s->module_unload = (bc_pfn_module_unload)bc_driver_symbol("cuModuleUnload");
    s->launch_kernel = (bc_pfn_launch_kernel)bc_driver_symbol("cuLaunchKernel");
    if (!load || !get || !s->module_unload || !s->launch_kernel) {
        snprintf(s->block_why, sizeof(s->block_why), "the driver API entry points are not available");
        return BH_OK;
    }
    CUresult e = load(&s->block_mod, bc_block_ptx);
    if (e != CUDA_SUCCESS) {
        s->block_mod = NULL;
        snprintf(s->block_why, sizeof(s->block_why), "cuModuleLoadData of the blocking kernel failed (CUresult %d)",
                 (int)e);
        return BH_OK;
    }
    if ((e = get(&s->block_fn, s->block_mod, "bc_block")) != CUDA_SUCCESS) {
        s->block_fn = NULL;
        snprintf(s->block_why, sizeof(s->block_why), "cuModuleGetFunction(bc_block) failed (CUresult %d)", (int)e);
        return BH_OK;
    }
    void *h = NULL, *d = NULL;
    BC_CUDA(r, cudaHostAlloc(&h, 2 * sizeof(unsigned), cudaHostAllocMapped));
    s->flag = (volatile unsigned *)h;
    s->timed_out = s->flag + 1;
    s->flag[0] = 0;
    s->flag[1] = 0;
    BC_CUDA(r, cudaHostGetDevicePointer(&d, h, 0));
    s->dflag = (unsigned *)d;
    s->dtimed_out = s->dflag + 1;
    return BH_OK;
}

static inline cudaError_t bc_block_launch(struct bc_state *s)
{
    *s->flag = 0;
    *s->timed_out = 0;
    __sync_synchronize();
    unsigned long long timeout = bc_block_timeout_ns;
    void *args[3] = {&s->dflag, &s->dtimed_out, &timeout};
    CUresult e = s->launch_kernel(s->block_fn, 1, 1, 1, 1, 1, 1, 0, (CUstream)s->stream, args, NULL);
    return e == CUDA_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure;
}

static inline void bc_block_release(struct bc_state *s)
{
    __sync_synchronize();
    *s->flag = 1;
    __sync_synchronize();
}

/* ---- CUPTI ---- */

#ifdef BC_HAVE_CUPTI
static struct bc_cupti *bc_cupti_cur; /* the collection the buffer callbacks fill */

static void CUPTIAPI bc_cupti_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *size = 4u << 20;
    *buffer = (uint8_t *)aligned_alloc(8, *size);
    *max_records = 0;
}

/* a kernel name as the user knows it: demangled where the C++ runtime is loaded (cuDNN and
 * cuBLAS bring it), without its parameter list */
static void bc_kernel_name(const char *mangled, char *out, size_t n)
{
    typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
    demangle_fn dm = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
    int status = -1;
    char *d = dm && mangled ? dm(mangled, NULL, NULL, &status) : NULL;
    const char *src = status == 0 && d ? d : mangled ? mangled : "?";
    size_t k = 0;
    int depth = 0;
    for (const char *p = src; *p && k + 1 < n; p++) {
        if (*p == '<')
            depth++;
        else if (*p == '>')
            depth--;
        else if (*p == '(' && depth <= 0 && p != src)
            break;
        /* the note is a CSV field of `; `-separated facts, and names are joined by | */
        out[k++] = *p == ';' || *p == '|' ? ':' : *p;
    }
    out[k] = '\0';
    free(d);
}

static void CUPTIAPI bc_cupti_buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                              size_t valid)
{
    (void)ctx;
    (void)stream;
    (void)size;
    struct bc_cupti *c = bc_cupti_cur;
    CUpti_Activity *rec = NULL;
    while (c && valid > 0 && c->next_record(buffer, valid, &rec) == CUPTI_SUCCESS) {
        unsigned long long start = 0, end = 0;
        const char *name = NULL;
        if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || rec->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
            const CUpti_ActivityKernel4 *k = (const CUpti_ActivityKernel4 *)rec;
            if (k->name && !strcmp(k->name, "bc_block"))
                continue;
            start = k->start;
            end = k->end;
            name = k->name;
        } else if (rec->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
            const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)rec;
            if (c->skip_memset_bytes && m->bytes == c->skip_memset_bytes)
                continue;
            start = m->start;
            end = m->end;
            name = "[memset]";
        } else if (rec->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
            start = ((const CUpti_ActivityMemset4 *)rec)->start; /* the same offsets in both records */
            end = ((const CUpti_ActivityMemset4 *)rec)->end;
            name = "[memcpy]";
        } else {
            continue;
        }
        if (start == 0 || end < start) {
            c->dropped++;
            continue;
        }
        c->records++;
        c->copies += rec->kind == CUPTI_ACTIVITY_KIND_MEMSET || rec->kind == CUPTI_ACTIVITY_KIND_MEMCPY;
        c->sum_ns += (double)(end - start);
        if (!c->first_ns || start < c->first_ns)
            c->first_ns = start;
        if (end > c->last_ns)
            c->last_ns = end;
        char nm[sizeof(c->names[0])];
        bc_kernel_name(name, nm, sizeof(nm));
        int seen = 0;
        for (int i = 0; i < c->nnames && !seen; i++)
            seen = !strcmp(c->names[i], nm);
        if (!seen && c->nnames < BC_MAX_KNAMES)
            memcpy(c->names[c->nnames++], nm, sizeof(nm));
    }
    free(buffer);
}
#endif

static inline void bc_cupti_init(struct bc_cupti *c, int wanted)
{
    memset(c, 0, sizeof(*c));
    if (!wanted) {
        snprintf(c->why, sizeof(c->why), "--no-cupti");
        return;
    }
#ifndef BC_HAVE_CUPTI
    snprintf(c->why, sizeof(c->why), "built without cupti_activity.h");
#else
    const char *names[] = {getenv("BENANZA_CUPTI"), "libcupti.so", "libcupti.so.13", "libcupti.so.12", "libcupti.so.11.8"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !c->lib; i++)
        if (names[i] && *names[i])
            c->lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!c->lib) {
        snprintf(c->why, sizeof(c->why), "libcupti not found (set BENANZA_CUPTI to its path)");
        return;
    }
    *(void **)&c->enable = dlsym(c->lib, "cuptiActivityEnable");
    *(void **)&c->disable = dlsym(c->lib, "cuptiActivityDisable");
    *(void **)&c->flush_all = dlsym(c->lib, "cuptiActivityFlushAll");
    *(void **)&c->next_record = dlsym(c->lib, "cuptiActivityGetNextRecord");
    *(void **)&c->register_cb = dlsym(c->lib, "cuptiActivityRegisterCallbacks");
    if (!c->enable || !c->disable || !c->flush_all || !c->next_record || !c->register_cb) {
        snprintf(c->why, sizeof(c->why), "libcupti lacks the activity API");
        return;
    }
    CUptiResult e = c->register_cb(bc_cupti_buffer_requested, bc_cupti_buffer_completed);
    /* once enabled and flushed here, outside the GPU lock: CUPTI's start-up is not timed */
    if (e == CUPTI_SUCCESS)
        e = c->enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (e != CUPTI_SUCCESS) {
        snprintf(c->why, sizeof(c->why), "CUPTI refused to collect kernel records (CUptiResult %d)", (int)e);
        return;
    }
    c->disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    bc_cupti_cur = c;
    c->flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    bc_cupti_cur = NULL;
    c->ready = 1;
#endif
}

static inline void bc_cupti_start(struct bc_cupti *c)
{
#ifdef BC_HAVE_CUPTI
    c->records = c->dropped = c->copies = 0;
    c->sum_ns = 0;
    c->first_ns = c->last_ns = 0;
    c->nnames = 0;
    bc_cupti_cur = c;
    c->enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    c->enable(CUPTI_ACTIVITY_KIND_MEMSET);
    c->enable(CUPTI_ACTIVITY_KIND_MEMCPY);
#else
    (void)c;
#endif
}

static inline void bc_cupti_stop(struct bc_cupti *c)
{
#ifdef BC_HAVE_CUPTI
    c->disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    c->disable(CUPTI_ACTIVITY_KIND_MEMSET);
    c->disable(CUPTI_ACTIVITY_KIND_MEMCPY);
    c->flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    bc_cupti_cur = NULL;
#else
    (void)c;
#endif
}

/* ---- one sample ---- */

/* Builds the graph the graph methods replay: n launches, captured once. */
static inline enum bh_status bc_graph_build(struct bc_state *s, int n, struct bh_result *r)
{
    if (s->graph_exec && s->graph_n == n)
        return BH_OK;
    if (s->graph_exec)
        cudaGraphExecDestroy(s->graph_exec);
    if (s->graph)
        cudaGraphDestroy(s->graph);
    s->graph_exec = NULL;
    s->graph = NULL;
    BC_CUDA(r, cudaStreamBeginCapture(s->stream, cudaStreamCaptureModeThreadLocal));
    enum bh_status ls = BH_OK;
    for (int i = 0; i < n && ls == BH_OK; i++)
        ls = s->launch(s, r);
    cudaGraph_t g = NULL;
    cudaError_t ce = cudaStreamEndCapture(s->stream, &g);
    if (ls != BH_OK) {
        if (g)
            cudaGraphDestroy(g);
        return ls;
    }
    BC_CUDA(r, ce);
    s->graph = g;
    BC_CUDA(r, cudaGraphInstantiate(&s->graph_exec, s->graph, 0));
    s->graph_n = n;
    return BH_OK;
}

/* One sample of n launches by a method: the GPU's time per launch in microseconds; -1 after
 * a failure (r says what), -2 when the blocking kernel gave up (the sample is worthless).
 * *host_us, when given, gets the host's time to enqueue the launches. */
static inline double bc_sample(struct bc_state *s, struct bh_result *r, int method, int n, double *host_us)
{
    int blocked = method == BC_M_BLOCKING || method == BC_M_GRAPH || method == BC_M_COLD;
    int graph = method == BC_M_GRAPH || method == BC_M_GRAPH_HOST;
    int cold = method == BC_M_COLD || method == BC_M_COLD_EVENTS;
    cudaError_t e = cudaSuccess;
    enum bh_status st = BH_OK;
    float ms = 0;
    double h0 = 0;
    if (blocked && (e = bc_block_launch(s)) != cudaSuccess)
        goto cuda_failed;
    if (cold && (e = cudaMemsetAsync(s->flush, 0, s->flush_bytes, s->stream)) != cudaSuccess)
        goto release;
    if ((e = cudaEventRecord(s->ev0, s->stream)) != cudaSuccess)
        goto release;
    h0 = bh_now_us();
    if (graph) {
        e = cudaGraphLaunch(s->graph_exec, s->stream);
    } else {
        for (int i = 0; i < n && st == BH_OK; i++)
            st = s->launch(s, r);
    }
    if (host_us)
        *host_us = bh_now_us() - h0;
    if (e == cudaSuccess && st == BH_OK)
        e = cudaEventRecord(s->ev1, s->stream);
release:
    if (blocked)
        bc_block_release(s);
    if (st != BH_OK) {
        cudaStreamSynchronize(s->stream);
        r->status = st;
        return -1;
    }
    if (e != cudaSuccess)
        goto cuda_failed;
    if ((e = cudaEventSynchronize(s->ev1)) != cudaSuccess || (e = cudaEventElapsedTime(&ms, s->ev0, s->ev1)) != cudaSuccess)
        goto cuda_failed;
    if (blocked && *s->timed_out)
        return -2;
    return (double)ms * 1e3 / n;
cuda_failed:
    bh_note(r, "timed sample: %s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
    r->status = bc_cuda_status(e);
    return -1;
}

/* The method to fall back to when the blocking kernel is missing or gave up */
static inline int bc_method_fallback(int method)
{
    return method == BC_M_BLOCKING || method == BC_M_GRAPH ? BC_M_GRAPH_HOST
           : method == BC_M_COLD                           ? BC_M_COLD_EVENTS
                                                           : method;
}

/* ---- bh_bench callbacks ---- */
static inline enum bh_status bc_setup(void *state, const struct bh_opts *o, struct bh_result *r)
{
    struct bc_state *s = (struct bc_state *)state;
    s->opts = o;
    enum bh_status st = bc_device(s, r);
    if (st != BH_OK)
        return st;
    BC_CUDA(r, cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
    BC_CUDA(r, cudaEventCreate(&s->ev0));
    BC_CUDA(r, cudaEventCreate(&s->ev1));
    st = s->setup(s, r);
    if (st != BH_OK)
        return st;
    if (o->cold) {
        /* twice the L2: a write of it before a launch leaves none of the inputs cached */
        s->flush_bytes = (size_t)(s->l2_bytes > 0 ? s->l2_bytes : 64 << 20) * 2;
        BC_CUDA(r, cudaMalloc(&s->flush, s->flush_bytes));
    }
    if (!o->events && (st = bc_block_init(s, r)) != BH_OK)
        return st;
    bc_cupti_init(&s->cupti, !o->no_cupti);
    s->cupti.skip_memset_bytes = s->flush_bytes;
    BC_CUDA(r, cudaDeviceSynchronize());
    return BH_OK;
}

/* One launch between two events (the events method, and the warm-up) */
static inline double bc_run(void *state, struct bh_result *r)
{
    return bc_sample((struct bc_state *)state, r, BC_M_EVENTS, 1, NULL);
}

/* NAME=COUNT/N in the row's note: a whole number where it is one, else two decimals */
static inline void bc_tag_per_launch(struct bh_result *r, const char *name, long long count, int n)
{
    double per = (double)count / n;
    if (per == (double)(long long)per)
        bh_tag(r, "%s=%lld", name, (long long)per);
    else
        bh_tag(r, "%s=%.2f", name, per);
}

/* Warm-up, the choice of method and batch, the samples, then one more sample under CUPTI.
 * The batch N aims at BC_SAMPLE_TARGET_US of GPU time per sample, within the launch queue
 * (BC_QUEUE_BUDGET launches, counting the kernels a launch makes) and the host time the
 * blocking kernel waits for (bc_enqueue_budget_us). */
static inline void bc_measure(void *state, const struct bh_opts *o, struct bh_result *r)
{
    struct bc_state *s = (struct bc_state *)state;
    int method = o->events ? BC_M_EVENTS : o->cold ? BC_M_COLD : o->graph ? BC_M_GRAPH : BC_M_BLOCKING;
    if (method != BC_M_EVENTS && !s->block_fn) {
        method = bc_method_fallback(method);
        bh_tag(r, "blocking_kernel=none (%s)", s->block_why);
    }
    /* warm-up (at least one launch: libraries load their kernels lazily), then the host's
     * enqueue time of a launch */
    int warm = o->warmup > 0 ? o->warmup : 1;
    double host_us = 0, gpu_us = -1;
    for (int i = 0; i < warm; i++) {
        double h = 0, us = bc_sample(s, r, BC_M_EVENTS, 1, &h);
        if (us == -1)
            return;
        host_us = i == 0 || h < host_us ? h : host_us;
        gpu_us = us;
        if (us >= o->max_ms * 1e2)
            break;
    }
    int kpl = 4; /* kernels per launch until CUPTI says */
    int n = 1;
    if (method != BC_M_EVENTS && method != BC_M_COLD && method != BC_M_COLD_EVENTS) {
        /* a probe of four launches gives the GPU's time (and CUPTI the kernels per launch) */
        int probe_method = method == BC_M_GRAPH_HOST || !s->block_fn ? BC_M_EVENTS : BC_M_BLOCKING;
        int probe_n = probe_method == BC_M_EVENTS ? 1 : 4;
        if (s->cupti.ready)
            bc_cupti_start(&s->cupti);
        double us = bc_sample(s, r, probe_method, probe_n, NULL);
        if (s->cupti.ready) {
            bc_cupti_stop(&s->cupti);
            if (s->cupti.records > 0)
                kpl = (int)((s->cupti.records + probe_n - 1) / probe_n);
        }
        if (us == -1)
            return;
        if (us == -2) {
            bh_tag(r, "blocking_kernel=timed out after %.0f s in the probe", bc_block_timeout_ns * 1e-9);
            method = bc_method_fallback(method);
        } else {
            gpu_us = us;
        }
        double want = gpu_us > 0 ? (double)BC_SAMPLE_TARGET_US / gpu_us : (double)BC_MAX_BATCH;
        double cap = (double)BC_QUEUE_BUDGET / (kpl > 0 ? kpl : 1);
        if (method == BC_M_BLOCKING && host_us > 0 && bc_enqueue_budget_us / host_us < cap)
            cap = bc_enqueue_budget_us / host_us;
        if (cap > (double)BC_MAX_BATCH)
            cap = (double)BC_MAX_BATCH;
        n = want < 1 ? 1 : want > cap ? (int)cap : (int)ceil(want);
        if (n < 1)
            n = 1;
    }
    /* the samples: a blocking kernel that gives up changes the method and starts them again */
    double total = 0;
    for (;;) {
        if ((method == BC_M_GRAPH || method == BC_M_GRAPH_HOST)) {
            enum bh_status gs = bc_graph_build(s, n, r);
            if (gs != BH_OK) {
                /* not capturable: one launch per event pair is what is left */
                bh_tag(r, "graph=not capturable (%s)", r->note);
                r->note[0] = '\0';
                r->status = BH_OK;
                method = BC_M_EVENTS;
                n = 1;
            }
        }
        double us = bc_sample(s, r, method, n, NULL);
        if (us == -1)
            return;
        if (us == -2) {
            bh_tag(r, "blocking_kernel=timed out after %.0f s (%s, %d launches)", bc_block_timeout_ns * 1e-9,
                   bc_method_names[method], n);
            method = bc_method_fallback(method);
            r->n_times = 0;
            total = 0;
            continue;
        }
        if (bh_sample(r, us) != 0)
            return;
        total += us * n;
        if ((r->n_times >= o->min_iters && total >= o->min_ms * 1e3) || total >= o->max_ms * 1e3 ||
            r->n_times >= o->max_iters)
            break;
    }
    snprintf(r->method, sizeof(r->method), "%s", bc_method_names[method]);
    if (n > 1)
        bh_tag(r, "batch=%d", n);
    /* the cross-check: one more sample of the same kind, with CUPTI collecting its records */
    if (!s->cupti.ready) {
        bh_tag(r, "cupti=none (%s)", s->cupti.why);
        return;
    }
    bc_cupti_start(&s->cupti);
    double us = bc_sample(s, r, method, n, NULL);
    bc_cupti_stop(&s->cupti);
    if (us == -1)
        return;
    struct bc_cupti *c = &s->cupti;
    if (us < 0 || c->records == 0) {
        bh_tag(r, "cupti=no records%s", us < 0 ? " (the blocking kernel gave up)" : "");
        return;
    }
    r->kernel_us = c->sum_ns * 1e-3 / n;
    bc_tag_per_launch(r, "kernels", c->records, n);
    /* of those, the memsets and copies: Nsight Compute's records are the kernels alone */
    if (c->copies)
        bc_tag_per_launch(r, "copies", c->copies, n);
    char names[BC_MAX_KNAMES * 112 + 8] = "";
    size_t len = 0;
    for (int i = 0; i < c->nnames; i++)
        len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s", i ? "|" : "", c->names[i]);
    bh_tag(r, "kernel_names=%s", names);
    /* the events' time beside the kernels': the gaps between kernels (negative: overlap) */
    bh_tag(r, "cupti_events_us=%.3f; cupti_span_us=%.3f", us, (double)(c->last_ns - c->first_ns) * 1e-3 / n);
    if (c->dropped)
        bh_tag(r, "cupti_incomplete=%lld", c->dropped);
}

static inline void bc_teardown(void *state)
{
    struct bc_state *s = (struct bc_state *)state;
    if (s->teardown)
        s->teardown(s);
    if (s->graph_exec)
        cudaGraphExecDestroy(s->graph_exec);
    if (s->graph)
        cudaGraphDestroy(s->graph);
    for (int i = 0; i < s->nbuf; i++)
        if (s->buf[i].p)
            cudaFree(s->buf[i].p);
    if (s->ws)
        cudaFree(s->ws);
    if (s->flush)
        cudaFree(s->flush);
    if (s->flag)
        cudaFreeHost((void *)s->flag);
    if (s->block_mod && s->module_unload)
        s->module_unload(s->block_mod);
    if (s->ev0)
        cudaEventDestroy(s->ev0);
    if (s->ev1)
        cudaEventDestroy(s->ev1);
    if (s->stream)
        cudaStreamDestroy(s->stream);
}

/* A workspace of the size the library asked for; its size goes into the row. */
static inline enum bh_status bc_workspace(struct bc_state *s, size_t bytes, struct bh_result *r)
{
    r->workspace_bytes = (double)bytes;
    if (bytes > s->ws_bytes) {
        if (s->ws)
            cudaFree(s->ws);
        s->ws = NULL;
        s->ws_bytes = 0;
        BC_CUDA(r, cudaMalloc(&s->ws, bytes));
        s->ws_bytes = bytes;
    }
    return BH_OK;
}

#endif
