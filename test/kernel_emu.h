/* Host stand-ins for the CUDA device features runtime/cuda_kernels.cuh's kernels use, so that
 * their device code runs on a machine without a GPU (test/attention_emu.cc, test/kernels_emu.cc;
 * g++, C++20). A block runs as BLOCK fibers (ucontext) on the calling thread, one per CUDA
 * thread, each with its own stack and threadIdx, switched only at barriers:
 *   - __syncthreads and __syncwarp are barriers of the block's and the warp's fibers (a fiber
 *     that returns drops out of both, as an exited GPU thread does); where every live fiber
 *     waits and none can go on (a barrier some thread never reaches), the emulator says so and
 *     aborts, where a GPU would hang;
 *   - between two barriers the fibers run one after another, in thread order in one block and
 *     in reverse order in the next (and in the next launch of a one-block grid): a read of what
 *     another thread writes with no barrier between sees the old value in one of the two
 *     orders, whichever of the two threads comes first;
 *   - the shuffles pass values through a per-warp array between two warp barriers;
 *   - cp.async (__pipeline_memcpy_async) copies nothing until a __pipeline_wait_prior retires
 *     its commit group, so a kernel that reads a tile before waiting for it reads stale data
 *     here as it could on a GPU;
 *   - WMMA fragments hold their whole tile in every lane: load reads it all, mma computes it
 *     in float (TF32 operands as __float_to_tf32 rounded them), store writes every 32nd
 *     element from each lane (a warp's store, spread over its lanes as on a GPU).
 * Blocks run one after another. Included before cuda_kernels.cuh (BK_EMU defined), which then
 * leaves out <mma.h> and <cuda_pipeline.h>; its launches run through emu_launch. (The first
 * version ran a real thread per CUDA thread: kernels_emu.cc took 60 s on 2 cores, most of it
 * in the kernel waking 1024 threads at each barrier.) */
#ifndef BENANZA_KERNEL_EMU_H
#define BENANZA_KERNEL_EMU_H

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include <sys/mman.h>
#include <ucontext.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h> /* before the macros below: it declares nothing by their names then */
#include <vector_types.h>

/* EMU_STACK: each fiber's stack (a GPU thread's locals, a WMMA fragment here a whole tile
 * of floats), with a guard page below it: an overflow faults instead of writing into the next */
enum { EMU_MAX_THREADS = 1024, EMU_SMEM = 232448, EMU_STACK = 512 << 10, EMU_GUARD = 4096 };

/* a barrier: the fibers it waits for this phase (expect), those there so far (arrived), and
 * the range of fibers that can wait at it [lo, hi) */
struct emu_bar {
    int expect, arrived, lo, hi;
};

struct emu_block {
    dim3 dim, idx, grid;
    emu_bar all;
    emu_bar warps[EMU_MAX_THREADS / 32];
    float shfl[EMU_MAX_THREADS / 32][32];
};

struct emu_copy {
    void *dst;
    const void *src;
    size_t n;
};

struct emu_thread {
    emu_block *blk;
    uint3 tid;
    int flat;
    std::vector<std::vector<emu_copy>> groups; /* committed cp.async groups, oldest first */
    std::vector<emu_copy> open;                /* copies not yet committed */
    ucontext_t ctx;
    emu_bar *waits; /* the barrier it waits at; null: it can run (or it is done) */
    bool done;
};

/* the launch in progress: its fibers, the scheduler's context they switch back to */
struct emu_sched {
    ucontext_t main;
    emu_thread *threads;
    const std::function<void()> *body;
    unsigned char *stacks; /* EMU_MAX_THREADS x (EMU_GUARD + EMU_STACK), made once */
    unsigned long launches;
};
inline emu_sched emu_s;
inline emu_thread *emu_self;
alignas(128) inline unsigned char bk_smem[EMU_SMEM];

#define __launch_bounds__(...)
#define threadIdx (emu_self->tid)
#define blockIdx (emu_self->blk->idx)
#define blockDim (emu_self->blk->dim)
#define gridDim (emu_self->blk->grid)

/* the phase is complete: every fiber waiting at B may run again */
inline void emu_release(emu_bar &b)
{
    b.arrived = 0;
    for (int t = b.lo; t < b.hi; t++)
        if (emu_s.threads[t].waits == &b)
            emu_s.threads[t].waits = nullptr;
}

/* the calling fiber waits at B until the phase's last one arrives (who goes on at once) */
inline void emu_arrive(emu_bar &b)
{
    if (++b.arrived == b.expect) {
        emu_release(b);
        return;
    }
    emu_thread *me = emu_self;
    me->waits = &b;
    swapcontext(&me->ctx, &emu_s.main);
}

/* a fiber that returns: one fewer to wait for, in this phase and after it */
inline void emu_drop(emu_bar &b)
{
    if (--b.expect > 0 && b.arrived == b.expect)
        emu_release(b);
}

inline void __syncthreads() { emu_arrive(emu_self->blk->all); }
inline void __syncwarp(unsigned = 0xffffffffu) { emu_arrive(emu_self->blk->warps[emu_self->flat / 32]); }
[[noreturn]] inline void __trap() { abort(); }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
/* the atomics (one fiber runs at a time: a plain read-modify-write is atomic here) and the
 * bit casts */
inline float atomicAdd(float *p, float v)
{
    float old = *p;
    *p = old + v;
    return old;
}
inline unsigned atomicCAS(unsigned *p, unsigned expect, unsigned desired)
{
    unsigned old = *p;
    if (old == expect)
        *p = desired;
    return old; /* what was there: the expected value where the exchange happened */
}
inline float __uint_as_float(unsigned u)
{
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}
inline unsigned __float_as_uint(float f)
{
    unsigned u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

inline float emu_shfl(float v, int from)
{
    float *slot = emu_self->blk->shfl[emu_self->flat / 32];
    slot[emu_self->flat % 32] = v;
    __syncwarp();
    float r = slot[from & 31];
    __syncwarp();
    return r;
}
inline float __shfl_xor_sync(unsigned, float v, int mask) { return emu_shfl(v, (emu_self->flat % 32) ^ mask); }
inline float __shfl_sync(unsigned, float v, int lane) { return emu_shfl(v, lane); }

inline void __pipeline_memcpy_async(void *dst, const void *src, size_t n, size_t = 0)
{
    emu_self->open.push_back({dst, src, n});
}
inline void __pipeline_commit()
{
    emu_self->groups.push_back(std::move(emu_self->open));
    emu_self->open.clear();
}
inline void __pipeline_wait_prior(size_t keep)
{
    auto &g = emu_self->groups;
    while (g.size() > keep) {
        for (const emu_copy &c : g.front())
            memcpy(c.dst, c.src, c.n);
        g.erase(g.begin());
    }
}

namespace nvcuda {
namespace wmma {
struct row_major {};
struct col_major {};
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
namespace precision {
struct tf32 {};
} // namespace precision
enum layout_t { mem_row_major, mem_col_major };

/* cvt.rna.tf32.f32: 10 mantissa bits, rounded to nearest, ties away from zero */
inline float __float_to_tf32(float x)
{
    if (!std::isfinite(x))
        return x;
    uint32_t u;
    memcpy(&u, &x, 4);
    u = (u + 0x1000u) & 0xffffe000u;
    memcpy(&x, &u, 4);
    return x;
}

template <typename Use, int M, int N, int K> struct emu_shape;
template <int M, int N, int K> struct emu_shape<matrix_a, M, N, K> {
    static constexpr int rows = M, cols = K;
};
template <int M, int N, int K> struct emu_shape<matrix_b, M, N, K> {
    static constexpr int rows = K, cols = N;
};
template <int M, int N, int K> struct emu_shape<accumulator, M, N, K> {
    static constexpr int rows = M, cols = N;
};

template <typename Use, int M, int N, int K, typename T, typename Layout = void> struct fragment {
    static constexpr int rows = emu_shape<Use, M, N, K>::rows, cols = emu_shape<Use, M, N, K>::cols;
    static constexpr int num_elements = rows * cols;
    float x[rows * cols]; /* row-major, every lane the whole tile */
};

inline float emu_f(float v) { return v; }
inline float emu_f(__half v) { return __half2float(v); }
inline float emu_f(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename F, typename P> inline void emu_load(F &f, const P *p, unsigned ldm, bool colmajor)
{
    for (int r = 0; r < F::rows; r++)
        for (int c = 0; c < F::cols; c++)
            f.x[r * F::cols + c] = emu_f(colmajor ? p[c * ldm + r] : p[r * ldm + c]);
}

template <typename Use, int M, int N, int K, typename T, typename L, typename P>
inline void load_matrix_sync(fragment<Use, M, N, K, T, L> &f, const P *p, unsigned ldm)
{
    emu_load(f, p, ldm, std::is_same<L, col_major>::value);
}

template <int M, int N, int K, typename T>
inline void load_matrix_sync(fragment<accumulator, M, N, K, T> &f, const float *p, unsigned ldm, layout_t l)
{
    emu_load(f, p, ldm, l == mem_col_major);
}

template <int M, int N, int K, typename T>
inline void store_matrix_sync(float *p, const fragment<accumulator, M, N, K, T> &f, unsigned ldm, layout_t l)
{
    typedef fragment<accumulator, M, N, K, T> F;
    for (int e = emu_self->flat % 32; e < F::num_elements; e += 32) {
        int r = e / F::cols, c = e % F::cols;
        p[l == mem_col_major ? c * ldm + r : r * ldm + c] = f.x[e];
    }
}

template <int M, int N, int K, typename T> inline void fill_fragment(fragment<accumulator, M, N, K, T> &f, float v)
{
    for (float &e : f.x)
        e = v;
}

template <int M, int N, int K, typename T, typename TA, typename LA, typename TB, typename LB>
inline void mma_sync(fragment<accumulator, M, N, K, T> &d, const fragment<matrix_a, M, N, K, TA, LA> &a,
                     const fragment<matrix_b, M, N, K, TB, LB> &b, const fragment<accumulator, M, N, K, T> &c)
{
    float out[M * N];
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float s = c.x[i * N + j];
            for (int k = 0; k < K; k++)
                s += a.x[i * K + k] * b.x[k * N + j];
            out[i * N + j] = s;
        }
    memcpy(d.x, out, sizeof(out));
}
} // namespace wmma
} // namespace nvcuda

/* a fiber's life: BODY, the cp.async copies it left (what a GPU would finish anyway), then out
 * of its barriers; returning resumes the scheduler (uc_link) */
inline void emu_entry()
{
    emu_thread *me = emu_self;
    (*emu_s.body)();
    if (!me->open.empty() || !me->groups.empty())
        __pipeline_wait_prior(0);
    emu_drop(me->blk->warps[me->flat / 32]);
    emu_drop(me->blk->all);
    me->done = true;
}

/* getcontext and swapcontext return twice, which would make the launch's loop variables
 * suspect to the compiler: they are called from these two, not from emu_launch */
[[gnu::noinline]] inline void emu_make(emu_thread &me, unsigned char *stack)
{
    getcontext(&me.ctx);
    me.ctx.uc_stack.ss_sp = stack;
    me.ctx.uc_stack.ss_size = EMU_STACK;
    me.ctx.uc_link = &emu_s.main;
    makecontext(&me.ctx, emu_entry, 0);
}

/* runs ME until it waits at a barrier or returns */
[[gnu::noinline]] inline void emu_run(emu_thread &me)
{
    emu_self = &me;
    swapcontext(&emu_s.main, &me.ctx);
    emu_self = nullptr;
}

/* Runs BODY for every thread of every block of GRID x BLOCK: a block's threads as fibers, the
 * blocks one after the other, shared memory filled with NaNs before each (a read of what no
 * thread wrote shows). */
inline void emu_launch(dim3 grid, dim3 block, const std::function<void()> &body)
{
    const int nt = (int)(block.x * block.y * block.z);
    if (nt > EMU_MAX_THREADS || nt % 32)
        abort();
    const size_t slot = EMU_GUARD + EMU_STACK;
    if (!emu_s.stacks) {
        void *m = mmap(nullptr, slot * EMU_MAX_THREADS, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                       -1, 0);
        if (m == MAP_FAILED) {
            perror("kernel_emu: the fibers' stacks");
            abort();
        }
        emu_s.stacks = (unsigned char *)m;
        for (int t = 0; t < EMU_MAX_THREADS; t++)
            mprotect(emu_s.stacks + slot * t, EMU_GUARD, PROT_NONE);
    }
    std::vector<emu_thread> ts((size_t)nt);
    emu_block blk;
    blk.dim = block;
    blk.grid = grid;
    emu_s.threads = ts.data();
    emu_s.body = &body;
    const unsigned long launch = emu_s.launches++;
    unsigned long linear = 0;
    for (unsigned z = 0; z < grid.z; z++)
        for (unsigned y = 0; y < grid.y; y++)
            for (unsigned x = 0; x < grid.x; x++, linear++) {
                blk.idx = dim3(x, y, z);
                blk.all = emu_bar{nt, 0, 0, nt};
                for (int w = 0; w < nt / 32; w++)
                    blk.warps[w] = emu_bar{32, 0, 32 * w, 32 * w + 32};
                for (int t = 0; t < nt; t++) {
                    emu_thread &me = ts[(size_t)t];
                    me.blk = &blk;
                    me.flat = t;
                    me.tid = make_uint3((unsigned)t % block.x, (unsigned)t / block.x % block.y,
                                        (unsigned)t / (block.x * block.y));
                    me.groups.clear();
                    me.open.clear();
                    me.waits = nullptr;
                    me.done = false;
                    emu_make(me, emu_s.stacks + slot * t + EMU_GUARD);
                }
                memset(bk_smem, 0xff, sizeof(bk_smem));
                const bool reverse = (launch + linear) & 1;
                for (int live = nt; live > 0;) {
                    bool ran = false;
                    for (int k = 0; k < nt; k++) {
                        emu_thread &me = ts[(size_t)(reverse ? nt - 1 - k : k)];
                        if (me.done || me.waits)
                            continue;
                        emu_run(me);
                        ran = true;
                        live -= me.done;
                    }
                    if (!ran) {
                        fprintf(stderr, "kernel_emu: block (%u, %u, %u): %d threads wait at barriers that the others never reach\n",
                                x, y, z, live);
                        abort();
                    }
                }
            }
    emu_s.threads = nullptr;
    emu_s.body = nullptr;
}

/* runtime/cuda_kernels.cuh's launches (BK_LAUNCH(kern, grid, block, smem, stream)(args)) as
 * emu_launch calls; a block's static arrays (BK_SHARED) are static: the blocks run one after
 * another */
template <typename F> struct emu_launcher {
    dim3 grid, block;
    F kern;
    template <typename... A> void operator()(A... args) const
    {
        emu_launch(grid, block, [&] { kern(args...); });
    }
};
template <typename F> emu_launcher<F> emu_launch_of(dim3 grid, dim3 block, F kern)
{
    return emu_launcher<F>{grid, block, kern};
}
#define BK_LAUNCH(kern, grid, block, smem, q)                                                     \
    ((void)(smem), (void)(q), emu_launch_of(dim3(grid), dim3(block), [&](auto... xs) { kern(xs...); }))
#define BK_SHARED static

#endif
