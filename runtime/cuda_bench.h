/* benanza CUDA benchmark runtime: the device, checked CUDA calls, buffers of random data,
 * CUDA-event timing (optionally with L2 flushed or the work captured in a CUDA graph), and
 * the generic part of every benchmark (bc_setup / bc_run / bc_teardown).
 *
 * Inlined after harness.h into every generated CUDA benchmark (.c files built by the C
 * compiler, .cu files built by nvcc: the code is C that also compiles as C++). What the
 * benchmark times is its family's code: cudnn_ops.h, cublas_ops.h or a kernel of ours, each
 * providing bc_family_setup / bc_family_launch / bc_family_teardown for the struct bc_op the
 * generated file describes. No GPU: the row says `nodevice` and the exit status is 3. */
#ifndef BENANZA_CUDA_BENCH_H
#define BENANZA_CUDA_BENCH_H

#include <cuda_runtime_api.h>

enum bc_dtype { BC_F32, BC_F16, BC_BF16, BC_I64, BC_I32, BC_U8 };
static const size_t bc_dtype_size[] = {4, 2, 2, 8, 4, 1};

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
    void *flush;             /* --cold: written between iterations to evict L2 */
    size_t flush_bytes;
    cudaGraph_t graph;       /* --graph */
    cudaGraphExec_t graph_exec;
    int l2_bytes;
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
    snprintf(r->lib, sizeof(r->lib), "%s, CUDA %d.%d, driver %d.%d", libs, runtime / 1000, (runtime % 1000) / 10,
             driver / 1000, (driver % 1000) / 10);
}

/* bh_bench callbacks */
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
        /* twice the L2: a write of it between iterations leaves none of the inputs cached */
        s->flush_bytes = (size_t)(s->l2_bytes > 0 ? s->l2_bytes : 64 << 20) * 2;
        BC_CUDA(r, cudaMalloc(&s->flush, s->flush_bytes));
    }
    BC_CUDA(r, cudaDeviceSynchronize());
    if (o->graph) {
        /* the iteration captured once and replayed: no launch overhead in the time */
        BC_CUDA(r, cudaStreamBeginCapture(s->stream, cudaStreamCaptureModeThreadLocal));
        enum bh_status ls = s->launch(s, r);
        cudaGraph_t g = NULL;
        cudaError_t ce = cudaStreamEndCapture(s->stream, &g);
        if (ls != BH_OK)
            return ls;
        BC_CUDA(r, ce);
        s->graph = g;
        BC_CUDA(r, cudaGraphInstantiate(&s->graph_exec, s->graph, 0));
    }
    return BH_OK;
}

static inline double bc_run(void *state, struct bh_result *r)
{
    struct bc_state *s = (struct bc_state *)state;
    cudaError_t e;
    float ms = 0;
    if (s->flush && (e = cudaMemsetAsync(s->flush, 0, s->flush_bytes, s->stream)) != cudaSuccess)
        goto cuda_failed;
    if ((e = cudaEventRecord(s->ev0, s->stream)) != cudaSuccess)
        goto cuda_failed;
    if (s->graph_exec) {
        if ((e = cudaGraphLaunch(s->graph_exec, s->stream)) != cudaSuccess)
            goto cuda_failed;
    } else {
        enum bh_status st = s->launch(s, r);
        if (st != BH_OK) {
            r->status = st;
            return -1;
        }
    }
    if ((e = cudaEventRecord(s->ev1, s->stream)) != cudaSuccess || (e = cudaEventSynchronize(s->ev1)) != cudaSuccess)
        goto cuda_failed;
    if ((e = cudaEventElapsedTime(&ms, s->ev0, s->ev1)) != cudaSuccess)
        goto cuda_failed;
    return (double)ms * 1e3;
cuda_failed:
    bh_note(r, "timed iteration: %s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
    r->status = bc_cuda_status(e);
    return -1;
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
