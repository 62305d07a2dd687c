/* Host stand-ins for the CUDA device features runtime/cuda_kernels.cuh's attention kernels use,
 * so that their device code runs on a machine without a GPU (test/attention_emu.cc; g++,
 * C++20). A block runs as BLOCK real threads, one per CUDA thread, each with its own
 * threadIdx:
 *   - __syncthreads and __syncwarp are barriers of the block's and the warp's threads (a
 *     thread that returns drops out of both, as an exited GPU thread does);
 *   - the shuffles pass values through a per-warp array between two warp barriers;
 *   - cp.async (__pipeline_memcpy_async) copies nothing until a __pipeline_wait_prior retires
 *     its commit group, so a kernel that reads a tile before waiting for it reads stale data
 *     here as it could on a GPU;
 *   - WMMA fragments hold their whole tile in every lane: load reads it all, mma computes it
 *     in float (TF32 operands as __float_to_tf32 rounded them), store writes every 32nd
 *     element from each lane (a warp's store, spread over its lanes as on a GPU).
 * Blocks run one after another. Included before cuda_kernels.cuh (BK_EMU defined), which then
 * leaves out <mma.h> and <cuda_pipeline.h>; its launches run through emu_launch. */
#ifndef BENANZA_KERNEL_EMU_H
#define BENANZA_KERNEL_EMU_H

#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h> /* before the macros below: it declares nothing by their names then */
#include <vector_types.h>

enum { EMU_MAX_THREADS = 1024, EMU_SMEM = 232448 };

struct emu_block {
    dim3 dim, idx, grid;
    std::barrier<> *all;
    std::vector<std::unique_ptr<std::barrier<>>> warps;
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
};

inline thread_local emu_thread *emu_self;
alignas(128) inline unsigned char bk_smem[EMU_SMEM];

#define __launch_bounds__(...)
#define threadIdx (emu_self->tid)
#define blockIdx (emu_self->blk->idx)
#define blockDim (emu_self->blk->dim)
#define gridDim (emu_self->blk->grid)

inline std::barrier<> &emu_warp_barrier() { return *emu_self->blk->warps[emu_self->flat / 32]; }

inline void __syncthreads() { emu_self->blk->all->arrive_and_wait(); }
inline void __syncwarp(unsigned = 0xffffffffu) { emu_warp_barrier().arrive_and_wait(); }
[[noreturn]] inline void __trap() { abort(); }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
/* the atomics (threads of a block run at once here) and the bit casts */
inline float atomicAdd(float *p, float v) { return std::atomic_ref<float>(*p).fetch_add(v); }
inline unsigned atomicCAS(unsigned *p, unsigned expect, unsigned desired)
{
    std::atomic_ref<unsigned>(*p).compare_exchange_strong(expect, desired);
    return expect; /* what was there: the expected value where the exchange happened */
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

/* Runs BODY for every thread of every block of GRID x BLOCK: a block's threads together, the
 * blocks one after the other, shared memory zeroed before each. The launch starts its BLOCK
 * threads once and hands them one block after another between two barriers (a thread started per
 * CUDA thread and block made kernels_emu.cc's run 74 s instead of 58 s); each block
 * gets barriers of its own, since a thread that returns early drops out of them. */
inline void emu_launch(dim3 grid, dim3 block, const std::function<void()> &body)
{
    const int nt = (int)(block.x * block.y * block.z);
    if (nt > EMU_MAX_THREADS || nt % 32)
        abort();
    emu_block blk;
    blk.dim = block;
    blk.grid = grid;
    std::unique_ptr<std::barrier<>> all;
    std::barrier<> start(nt + 1), done(nt + 1);
    bool quit = false; /* written before start's phase completes, read after: ordered by it */
    std::vector<std::thread> ts;
    for (int t = 0; t < nt; t++)
        ts.emplace_back([&, t] {
            for (;;) {
                start.arrive_and_wait();
                if (quit)
                    return;
                emu_thread me;
                me.blk = &blk;
                me.flat = t;
                me.tid = make_uint3((unsigned)t % block.x, (unsigned)t / block.x % block.y,
                                    (unsigned)t / (block.x * block.y));
                emu_self = &me;
                body();
                if (!me.open.empty() || !me.groups.empty())
                    __pipeline_wait_prior(0); /* what a GPU would finish anyway */
                blk.warps[t / 32]->arrive_and_drop();
                blk.all->arrive_and_drop();
                emu_self = nullptr;
                done.arrive_and_wait();
            }
        });
    for (unsigned z = 0; z < grid.z; z++)
        for (unsigned y = 0; y < grid.y; y++)
            for (unsigned x = 0; x < grid.x; x++) {
                blk.idx = dim3(x, y, z);
                all.reset(new std::barrier<>(nt));
                blk.all = all.get();
                blk.warps.clear();
                for (int w = 0; w < nt / 32; w++)
                    blk.warps.emplace_back(new std::barrier<>(32));
                memset(bk_smem, 0xff, sizeof(bk_smem)); /* NaNs: a read of what no thread wrote shows */
                start.arrive_and_wait();
                done.arrive_and_wait();
            }
    quit = true;
    start.arrive_and_wait();
    for (std::thread &t : ts)
        t.join();
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
