/* Kernels of ours for the layers no cuDNN/cuBLAS call computes: element-wise maths and
 * comparisons with broadcasting, Where, Cast, Expand, Gather, Slice/Pad/Tile (struct pl_op of
 * plain_ops.h describes them), Transpose, Concat, LayerNormalization, LeakyRelu, Resize (f32,
 * f16, bf16; NCHW or channels-last) and fused attention (flash attention; f32, f16, bf16).
 *
 * Written for bandwidth: one thread per output element in grid-stride loops (consecutive
 * threads write consecutive outputs: coalesced stores), float4 loads and stores where a
 * float tensor is walked flat, one warp-reduced row per block for LayerNorm. --verify runs the
 * kernel once and compares its output with plain C on the host (plain_ops.h's kernel for
 * the plain ops, a loop here for the others). Needs harness.h, plain_ops.h and cuda_bench.h
 * before it; compiled by nvcc (CUDA C++). */
#ifndef BENANZA_CUDA_KERNELS_CUH
#define BENANZA_CUDA_KERNELS_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#ifndef BK_EMU /* test/kernel_emu.h stands in for them on a host without a GPU */
#include <cuda_pipeline.h>
#include <mma.h>
#endif

/* BK_EMPTY: a kernel that does nothing (gen --calibrate: the launch floor, what one launch
 * costs when launches run back to back) */
enum bk_kind { BK_PLAIN, BK_TRANSPOSE, BK_CONCAT, BK_LAYERNORM, BK_RESIZE, BK_EMPTY, BK_ATTENTION, BK_BATCHNORM };
enum { BK_MAX_CAT = 64, BK_THREADS = 256 };

/* What a file compiles: gen defines BK_KINDS (bit 1 << enum bk_kind) and BK_TYPES (the float
 * types of the templated kernels) as its layer needs, so that nvcc compiles one kernel, not
 * all fifteen (device code is compiled whether launched or not). Left undefined: all. */
#define BK_K_PLAIN 0x01u
#define BK_K_TRANSPOSE 0x02u
#define BK_K_CONCAT 0x04u
#define BK_K_LAYERNORM 0x08u
#define BK_K_RESIZE 0x10u
#define BK_K_EMPTY 0x20u
#define BK_K_ATTENTION 0x40u
#define BK_K_BATCHNORM 0x80u
#define BK_T_F32 0x1u
#define BK_T_F16 0x2u
#define BK_T_BF16 0x4u
#define BK_T_TF32 0x8u /* f32 data on TF32 Tensor Cores (attention's tf32 benchmarks) */
#ifndef BK_KINDS
#define BK_KINDS 0xffu
#endif
#ifndef BK_TYPES
#define BK_TYPES 0xfu
#endif
/* and so the one kind of a generated file (BK_KINDS a single bit): the host code's tests of the
 * operation's kind are constants, and the other kinds' setup and reference code is not
 * compiled either (the host compile is most of a kernel benchmark's build). bk_setup refuses
 * an operation of another kind. A file of a plain kernel also defines PL_KIND (plain_ops.h). */
#if BK_KINDS == BK_K_PLAIN
#define BK_ONE_KIND BK_PLAIN
#elif BK_KINDS == BK_K_TRANSPOSE
#define BK_ONE_KIND BK_TRANSPOSE
#elif BK_KINDS == BK_K_CONCAT
#define BK_ONE_KIND BK_CONCAT
#elif BK_KINDS == BK_K_LAYERNORM
#define BK_ONE_KIND BK_LAYERNORM
#elif BK_KINDS == BK_K_RESIZE
#define BK_ONE_KIND BK_RESIZE
#elif BK_KINDS == BK_K_EMPTY
#define BK_ONE_KIND BK_EMPTY
#elif BK_KINDS == BK_K_ATTENTION
#define BK_ONE_KIND BK_ATTENTION
#elif BK_KINDS == BK_K_BATCHNORM
#define BK_ONE_KIND BK_BATCHNORM
#endif
#ifdef BK_ONE_KIND
#define BK_KIND_OF(op) ((void)(op), BK_ONE_KIND)
#else
#define BK_KIND_OF(op) ((op)->kind)
#endif
/* and the function of a plain unary or binary kernel (enum pl_fn): the kernels' switch over
 * every function folds to that one case. Left undefined: the op's own, chosen at run time. */
#ifdef BK_FN
#define BK_OP_FN(fn) (BK_FN)
#else
#define BK_OP_FN(fn) (fn)
#endif
/* and of the attention kernels: 0x1 bk_attention_tc and bk_attention_rows (the kernel files),
 * 0x2 bk_attention_split (the kernel_split files) */
#ifndef BK_ATTS
#define BK_ATTS 0x3u
#endif
/* a block's own array (test/kernel_emu.h, which runs blocks one after another, makes it static) */
#ifndef BK_SHARED
#define BK_SHARED __shared__
#endif
/* a kernel's launch, its arguments after it: BK_LAUNCH(kern, grid, block, smem, stream)(args);
 * test/kernel_emu.h runs it on the host */
#ifndef BK_LAUNCH
#define BK_LAUNCH(kern, grid, block, smem, q) kern<<<(grid), (block), (smem), (q)>>>
#endif

struct bk_op {
    int kind;
    struct pl_op pl;          /* BK_PLAIN: the whole operation; for all: in[0] (input) and out */
    int perm[8];              /* BK_TRANSPOSE: output dim k is input dim perm[k] */
    int axis, ncat;           /* BK_CONCAT: the inputs are cat[0..ncat) */
    struct pl_tensor cat[BK_MAX_CAT];
    float eps;                /* LayerNorm's and BatchNormalization's epsilon */
    int affine;               /* LayerNorm: scale and shift (inputs 1 and 2; RMSNorm: the scale) */
    int rms;                  /* LayerNorm as RMSNorm: no mean taken out, x / sqrt(mean(x^2) + eps)
                                 [x scale]; no shift, no residual */
    int residual;             /* LayerNorm of x + input 3 (a tensor like x) [+ input 4, a bias of
                                 the last dim when 2]: a residual sum's LayerNorm (with affine) */
    int keep_sum;             /* and that sum written out too (a pre-LN transformer's residual
                                 stream: SkipLayerNormalization's fourth output) */
    int linear;               /* BK_RESIZE: bilinear (else nearest, rounded as pl.rs.nearest says;
                                 pl.rs also holds the coordinate transformation and scales) */
    int nhwc;                 /* BK_RESIZE, BK_BATCHNORM: input and output channels-last ([N, H, W,
                                 C] in memory; pl's dims stay NCHW's) */
    /* BK_ATTENTION: softmax(Q K^T scale [+ mask]) V of gen's attention group (its struct
     * desc_attention): dims, each operand's element strides along (batch, head, row, col) in
     * its buffer of *_elems elements (K's rows are keys; the mask's along the scores), the
     * mask (0 none, 1 added, 2 a bool selecting FILL where it equals fill_when); the data
     * type is pl.out's (Q, K, V, O and an added mask) */
    long long ab, ah, asq, askv, ad, adv;
    long long aq[4], ak[4], av[4], ao[4], am[4];
    long long aq_elems, ak_elems, av_elems, am_elems;
    long long arep;           /* query heads per K and V head (grouped-query attention): query
                                 head h reads K and V head h / arep; 0 or 1: one each */
    int amask, afill_when;
    float ascale, afill;
    int tf32;                 /* BK_ATTENTION in f32: on TF32 Tensor Cores (bk_attention_tc<float>),
                                 the tf32 benchmark; unsupported where that kernel cannot run */
    int asplit;               /* BK_ATTENTION by bk_attention_split (the kernel_split benchmarks) */
};

/* What a kernel needs, by value (kernel parameters live in constant memory). */
struct bk_args {
    int nd;
    long long n;                   /* output elements */
    long long od[8];               /* output dims */
    long long st[3][8];            /* per input, per output dim: element strides (0: broadcast) */
    long long start[8], step[8];   /* PL_MAP */
    const void *in[3];
    void *out;
    int fn, kind, map, flat;
    int periodic;                  /* bk_flat4's inputs: full, scalar or repeating (per) */
    long long per[2];              /* per input: 0 full, else element i reads element i % per */
    int mode;                      /* PL_MAP_PAD: 0 the constant alpha, 1 reflect, 2 edge, 3 wrap;
                                      PL_ROPE: 1 by pairs */
    int idt[3], odt;
    float alpha, beta;
};

__device__ __forceinline__ float bk_load(const void *p, int dt, long long i)
{
    switch (dt) {
    case PL_FLOAT: return ((const float *)p)[i];
    case PL_INT64: return (float)((const long long *)p)[i];
    case PL_INT32: return (float)((const int *)p)[i];
    case PL_INT8: return (float)((const signed char *)p)[i];
    case PL_DOUBLE: return (float)((const double *)p)[i];
    case PL_INT16: return (float)((const short *)p)[i];
    case PL_UINT16: return (float)((const unsigned short *)p)[i];
    case PL_UINT32: return (float)((const unsigned *)p)[i];
    case PL_UINT64: return (float)((const unsigned long long *)p)[i];
    case PL_FLOAT16: return __half2float(((const __half *)p)[i]);
    case PL_BFLOAT16: return __bfloat162float(((const __nv_bfloat16 *)p)[i]);
    default: return (float)((const unsigned char *)p)[i];
    }
}

__device__ __forceinline__ void bk_store(void *p, int dt, long long i, float v)
{
    switch (dt) {
    case PL_FLOAT: ((float *)p)[i] = v; break;
    case PL_INT64: ((long long *)p)[i] = (long long)v; break;
    case PL_INT32: ((int *)p)[i] = (int)v; break;
    case PL_INT8: ((signed char *)p)[i] = (signed char)v; break;
    case PL_DOUBLE: ((double *)p)[i] = v; break;
    case PL_BOOL: ((unsigned char *)p)[i] = v != 0.0f; break;
    /* integers through 64 bits: unsigned ones wrap, as ONNX's do */
    case PL_INT16: ((short *)p)[i] = (short)(long long)v; break;
    case PL_UINT16: ((unsigned short *)p)[i] = (unsigned short)(long long)v; break;
    case PL_UINT32: ((unsigned *)p)[i] = (unsigned)(long long)v; break;
    case PL_UINT64: ((unsigned long long *)p)[i] = (unsigned long long)(long long)v; break;
    case PL_FLOAT16: ((__half *)p)[i] = __float2half_rn(v); break;
    case PL_BFLOAT16: ((__nv_bfloat16 *)p)[i] = __float2bfloat16_rn(v); break;
    default: ((unsigned char *)p)[i] = (unsigned char)(long long)v; break;
    }
}

/* an element of the typed kernels as float (on the device and on the host), and a float rounded
 * to T (to nearest even), their store */
__host__ __device__ __forceinline__ float bk_f(float x) { return x; }
__host__ __device__ __forceinline__ float bk_f(__half x) { return __half2float(x); }
__host__ __device__ __forceinline__ float bk_f(__nv_bfloat16 x) { return __bfloat162float(x); }
template <typename T> __device__ __forceinline__ T bk_t(float v);
template <> __device__ __forceinline__ float bk_t<float>(float v) { return v; }
template <> __device__ __forceinline__ __half bk_t<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 bk_t<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

__device__ __forceinline__ float bk_apply(int fn, float a, float b, float alpha, float beta, int odt)
{
    switch (fn) {
    case PL_ERF: return erff(a);
    case PL_NEG: return -a;
    case PL_ABS: return fabsf(a);
    case PL_SQRT: return sqrtf(a);
    case PL_EXP: return expf(a);
    case PL_LOG: return logf(a);
    case PL_FLOOR: return floorf(a);
    case PL_CEIL: return ceilf(a);
    case PL_ROUND: return rintf(a);
    case PL_SIGN: return (float)((a > 0) - (a < 0));
    case PL_SIN: return sinf(a);
    case PL_COS: return cosf(a);
    case PL_TAN: return tanf(a);
    case PL_TANH: return tanhf(a);
    case PL_SIGMOID: return 1.0f / (1.0f + expf(-a));
    case PL_RECIPROCAL: return 1.0f / a;
    case PL_NOT: return a == 0.0f;
    case PL_HARDSIGMOID: return fmaxf(0.0f, fminf(1.0f, alpha * a + beta));
    case PL_SELU: return beta * (a > 0 ? a : alpha * (expf(a) - 1.0f));
    case PL_SOFTSIGN: return a / (1.0f + fabsf(a));
    case PL_SOFTPLUS: return log1pf(expf(a));
    case PL_ADD: return a + b;
    case PL_SUB: return a - b;
    case PL_MUL: return a * b;
    case PL_DIV: return odt == PL_FLOAT || odt == PL_DOUBLE || odt == PL_FLOAT16 || odt == PL_BFLOAT16 ? a / b
                                                                                          : (b != 0 ? truncf(a / b) : 0.0f);
    case PL_POW: return powf(a, b);
    case PL_MAX: return fmaxf(a, b);
    case PL_MIN: return fminf(a, b);
    case PL_MOD: return b == 0 ? 0.0f : alpha != 0 ? fmodf(a, b) : a - floorf(a / b) * b; /* alpha: fmod */
    case PL_EQUAL: return a == b;
    case PL_LESS: return a < b;
    case PL_GREATER: return a > b;
    case PL_LESS_EQUAL: return a <= b;
    case PL_GREATER_EQUAL: return a >= b;
    case PL_AND: return (a != 0) && (b != 0);
    case PL_OR: return (a != 0) || (b != 0);
    case PL_XOR: return (a != 0) != (b != 0);
    case PL_GELU: return 0.5f * a * (1.0f + erff(a * 0.70710678118654752f));
    case PL_PRELU: return a < 0 ? a * b : a;
    case PL_SILU_MUL: return a / (1.0f + expf(-a)) * b;
    case PL_GELU_MUL: return 0.5f * a * (1.0f + erff(a * 0.70710678118654752f)) * b;
    case PL_GELU_TANH_MUL: return 0.5f * a * (1.0f + tanhf(0.7978845608028654f * (a + 0.044715f * a * a * a))) * b;
    case PL_HARDSWISH: return a * fmaxf(0.0f, fminf(1.0f, a / 6.0f + 0.5f));
    case PL_LEAKYRELU: return a < 0 ? alpha * a : a;
    case PL_CLIP: return a < alpha ? alpha : a > beta ? beta : a;
    case PL_ASIN: return asinf(a);
    case PL_ACOS: return acosf(a);
    case PL_ATAN: return atanf(a);
    case PL_SINH: return sinhf(a);
    case PL_COSH: return coshf(a);
    case PL_ASINH: return asinhf(a);
    case PL_ACOSH: return acoshf(a);
    case PL_ATANH: return atanhf(a);
    case PL_ISINF: /* alpha: 1 detect_positive + 2 detect_negative */
        return isinf(a) && ((a > 0 && ((int)alpha & 1)) || (a < 0 && ((int)alpha & 2)));
    case PL_ISNAN: return isnan(a);
    case PL_CELU: return a > 0 ? a : alpha * expm1f(a / alpha);
    case PL_SHRINK: return a < -beta ? a + alpha : a > beta ? a - alpha : 0.0f;
    case PL_THRESHOLDED_RELU: return a > alpha ? a : 0.0f;
    case PL_BITSHIFT: { /* alpha: 1 shifts right */
        unsigned long long x = (unsigned long long)a, n = (unsigned long long)b;
        return n >= 64 ? 0.0f : (float)(alpha != 0 ? x >> n : x << n);
    }
#define PLM(fn) fn##f
#define PLC(x) x##f
#define PL_ALPHA alpha
#define PL_MATH_CASE(fn, expr) case fn: return (expr);
    PL_UNARY_MATHS(PL_MATH_CASE)
#undef PL_MATH_CASE
#undef PL_ALPHA
#undef PLC
#undef PLM
    default: return a;
    }
}

/* The broadcast walk of N inputs with as few dimensions as it can take (host; the element-wise
 * kernels' setup): dimensions of size 1 go, and a dimension merges into the next one where
 * every input steps through both as through one (its stride is the next one's times the next
 * one's size; a broadcast input has 0 in both). The output's row-major order stays, so each
 * output element reads the same input elements (test/kernel_ref_check.cu). [1, 128, 3072] plus
 * a [3072] bias becomes [128, 3072]; a same-shape or scalar operand leaves one dimension. */
static inline void bk_coalesce(bk_args *a, int nin)
{
    int nd = 0;
    for (int d = 0; d < a->nd; d++) {
        if (a->od[d] == 1)
            continue;
        int merge = nd > 0;
        for (int j = 0; j < nin && merge; j++)
            merge = a->st[j][nd - 1] == a->st[j][d] * a->od[d];
        if (merge) {
            a->od[nd - 1] *= a->od[d];
            for (int j = 0; j < nin; j++)
                a->st[j][nd - 1] = a->st[j][d];
            continue;
        }
        a->od[nd] = a->od[d];
        for (int j = 0; j < nin; j++)
            a->st[j][nd] = a->st[j][d];
        nd++;
    }
    if (nd == 0) { /* every dimension of size 1: one element */
        a->od[0] = 1;
        for (int j = 0; j < nin; j++)
            a->st[j][0] = 0;
        nd = 1;
    }
    a->nd = nd;
}

/* After bk_coalesce: whether each of the first NIN inputs (at most 2) is the output's shape, a
 * scalar, or a block repeated along the output (a bias along the last dims), so that output
 * element I reads element I % per of it (per 0: I itself; per 1: the scalar). Sets a->per and
 * returns 1, or returns 0 where an input is broadcast otherwise (a column, a middle dim).
 * Host (bk_setup; test/kernel_ref_check.cu). */
static inline int bk_periods(bk_args *a, int nin)
{
    if (nin > 2 || a->nd > 2)
        return 0;
    for (int j = 0; j < nin; j++) {
        long long inner = a->od[a->nd - 1], si = a->st[j][a->nd - 1], so = a->nd == 2 ? a->st[j][0] : 0;
        if (si == 1 && (a->nd == 1 || so == inner))
            a->per[j] = 0;
        else if (si == 0 && so == 0)
            a->per[j] = 1;
        else if (a->nd == 2 && si == 1 && so == 0)
            a->per[j] = inner;
        else
            return 0;
    }
    return 1;
}

/* a bk_periods block that float4 loads can walk: none, a scalar, or whole float4s */
static inline int bk_per4(long long per)
{
    return per <= 1 || per % 4 == 0;
}

/* The input elements output element I reads (not PL_MAP): I's coordinates in the output dims
 * times each input's strides (0 for the inputs an op lacks: its args start zeroed); in 32 bits where the output has fewer than 2^32 elements (a 64-bit
 * division costs several times a 32-bit one). Host and device (test/kernel_ref_check.cu). */
__host__ __device__ __forceinline__ void bk_positions(const bk_args *a, long long i, long long pos[3])
{
    pos[0] = pos[1] = pos[2] = 0;
    if (a->n <= 0xffffffffLL) {
        unsigned rem = (unsigned)i;
        for (int k = a->nd - 1; k >= 0; k--) {
            unsigned dk = (unsigned)a->od[k], c = rem % dk;
            rem /= dk;
            pos[0] += (long long)c * a->st[0][k];
            pos[1] += (long long)c * a->st[1][k];
            pos[2] += (long long)c * a->st[2][k];
        }
        return;
    }
    long long rem = i;
    for (int k = a->nd - 1; k >= 0; k--) {
        long long c = rem % a->od[k];
        rem /= a->od[k];
        pos[0] += c * a->st[0][k];
        pos[1] += c * a->st[1][k];
        pos[2] += c * a->st[2][k];
    }
}

/* Four elements of an input at output quad I4, as floats: the same four, the scalar four
 * times, or those of the repeated block (PER a multiple of 4; 32-bit division where the
 * block's quads allow). One load: 16 bytes (float4) for floats, 8 for the 16-bit types. */
template <typename T> __device__ __forceinline__ float4 bk_ld4(const T *p, long long per, long long i4)
{
    if (per == 1) {
        float v = bk_f(p[0]);
        return make_float4(v, v, v, v);
    }
    long long q = per / 4, j = per == 0 ? i4 : i4 < 0xffffffffLL ? (long long)((unsigned)i4 % (unsigned)q) : i4 % q;
    if constexpr (sizeof(T) == 4) {
        return ((const float4 *)p)[j];
    } else {
        uint2 u = ((const uint2 *)p)[j];
        T h[4];
        memcpy((void *)h, &u, sizeof(u));
        return make_float4(bk_f(h[0]), bk_f(h[1]), bk_f(h[2]), bk_f(h[3]));
    }
}

/* the four results of quad I4 rounded to T, one store */
template <typename T> __device__ __forceinline__ void bk_st4(T *p, long long i4, float4 v)
{
    if constexpr (sizeof(T) == 4) {
        ((float4 *)p)[i4] = v;
    } else {
        T h[4] = {bk_t<T>(v.x), bk_t<T>(v.y), bk_t<T>(v.z), bk_t<T>(v.w)};
        uint2 u;
        memcpy(&u, (const void *)h, sizeof(u));
        ((uint2 *)p)[i4] = u;
    }
}

#if BK_KINDS & BK_K_PLAIN
/* Element-wise with broadcasting (unary, binary, Where, Cast, Expand, the rotary embedding), Slice/Pad/Tile */
__global__ void bk_elementwise(const bk_args a)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < a.n; i += (long long)gridDim.x * blockDim.x) {
        long long pos[3] = {i, i, i};
        int outside = 0;
        if (a.kind == PL_MAP) { /* never flat */
            pos[0] = 0;
            long long rem = i;
            for (int k = a.nd - 1; k >= 0; k--) {
                long long c = rem % a.od[k];
                rem /= a.od[k];
                long long dk = a.st[1][k]; /* the input's dim */
                long long src = a.map == PL_MAP_TILE ? c % dk : a.start[k] + a.step[k] * c;
                if (a.map == PL_MAP_PAD && a.mode && (src < 0 || src >= dk))
                    src = a.mode == 1   ? (src < 0 ? -src : 2 * (dk - 1) - src)
                          : a.mode == 2 ? (src < 0 ? 0 : dk - 1)
                                        : (src % dk + dk) % dk;
                if (src < 0 || src >= dk)
                    outside = 1;
                pos[0] += src * a.st[0][k];
            }
        } else if (!a.flat) {
            bk_positions(&a, i, pos);
        }
        float v;
        if (a.kind == PL_MAP)
            v = outside ? a.alpha : bk_load(a.in[0], a.idt[0], pos[0]);
        else if (a.kind == PL_WHERE)
            v = bk_load(a.in[0], a.idt[0], pos[0]) != 0.0f ? bk_load(a.in[1], a.idt[1], pos[1])
                                                           : bk_load(a.in[2], a.idt[2], pos[2]);
        else if (a.kind == PL_ROPE) {
            /* x cos + rotate_half(x) sin: the other half's element of x, negated in the first
             * half; by pairs (mode 1) the pair's other, negated at the even place (the dims
             * are not coalesced: the last is the rotated one) */
            long long last = a.od[a.nd - 1], half = last / 2, h = i % last, step = a.flat ? 1 : a.st[0][a.nd - 1];
            long long by = a.mode ? (h % 2 == 0 ? 1 : -1) : (h < half ? half : -half);
            float o = bk_load(a.in[0], a.idt[0], pos[0] + by * step);
            v = bk_load(a.in[0], a.idt[0], pos[0]) * bk_load(a.in[1], a.idt[1], pos[1]) +
                (by > 0 ? -o : o) * bk_load(a.in[2], a.idt[2], pos[2]);
        }
        else if (a.kind == PL_BINARY)
            v = bk_apply(BK_OP_FN(a.fn), bk_load(a.in[0], a.idt[0], pos[0]), bk_load(a.in[1], a.idt[1], pos[1]), a.alpha,
                         a.beta, a.odt);
        else if (a.kind == PL_UNARY)
            v = bk_apply(BK_OP_FN(a.fn), bk_load(a.in[0], a.idt[0], pos[0]), 0.0f, a.alpha, a.beta, a.odt);
        else
            v = bk_load(a.in[0], a.idt[0], pos[0]);
        bk_store(a.out, a.odt, i, v);
    }
}

/* element I of Y is element SRC of X, elements of ES bytes (the copies: Gather, Split) */
__device__ __forceinline__ void bk_copy(void *y, long long i, const void *x, long long src, int es)
{
    if (es == 4)
        ((unsigned *)y)[i] = ((const unsigned *)x)[src];
    else if (es == 8)
        ((unsigned long long *)y)[i] = ((const unsigned long long *)x)[src];
    else if (es == 2)
        ((unsigned short *)y)[i] = ((const unsigned short *)x)[src];
    else
        ((unsigned char *)y)[i] = ((const unsigned char *)x)[src];
}

/* Split along an axis (PL_SPLIT): the output buffer holds the pieces one after the other, piece
 * k being [outer, off[k+1] - off[k], inner] of the input [outer, dim, inner]; elements of ES bytes */
struct bk_split_args {
    const void *x;
    void *y;
    long long outer, dim, inner;
    long long off[33]; /* prefix sums of the pieces' sizes (pl_op holds up to 32 pieces) */
    int n, es;
};

/* the input element output element I copies (host and device: test/kernel_ref_check.cu) */
__host__ __device__ static inline long long bk_split_src(const bk_split_args *a, long long i)
{
    int k = 0;
    while (k + 1 < a->n && i >= a->outer * a->off[k + 1] * a->inner)
        k++;
    long long len = a->off[k + 1] - a->off[k], j = i - a->outer * a->off[k] * a->inner;
    return ((j / (a->inner * len)) * a->dim + a->off[k] + (j / a->inner) % len) * a->inner + j % a->inner;
}

__global__ void bk_split(const bk_split_args a)
{
    long long total = a.outer * a.dim * a.inner;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x) {
        bk_copy(a.y, i, a.x, bk_split_src(&a, i), a.es);
    }
}

/* ScatterND (PL_SCATTER_ND): the output a copy of the data (bk_copy_all), then each index
 * row's slice of the updates written at the row's offset, or reduced into it (how: 1 add, 2
 * mul, 3 max, 4 min; f32 only, atomically, as rows may name an element twice); a row whose
 * index lies outside the data writes nothing */
struct bk_scatter_args {
    const void *upd;
    const long long *idx;
    void *y;
    long long rows, slice;             /* index rows, and the elements of each row's slice */
    long long dims[8], stride[8];      /* data's first q dims, and their element strides */
    int q, es, how;
};

__global__ void bk_copy_all(void *y, const void *x, long long n, int es)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        bk_copy(y, i, x, i, es);
}

__device__ __forceinline__ void bk_scatter_reduce(float *p, float v, int how)
{
    if (how == 1) {
        atomicAdd(p, v);
        return;
    }
    unsigned *u = (unsigned *)p, old = *u, was;
    do {
        was = old;
        float cur = __uint_as_float(was), next = how == 2 ? cur * v : how == 3 ? (v > cur ? v : cur) : (v < cur ? v : cur);
        old = atomicCAS(u, was, __float_as_uint(next));
    } while (old != was);
}

__global__ void bk_scatter_nd(const bk_scatter_args a)
{
    long long n = a.rows * a.slice;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        long long row = i / a.slice, off = i % a.slice;
        int inside = 1;
        for (int k = 0; k < a.q; k++) {
            long long c = a.idx[row * a.q + k];
            c = c < 0 ? c + a.dims[k] : c;
            inside &= c >= 0 && c < a.dims[k];
            off += c * a.stride[k];
        }
        if (!inside)
            continue;
        if (a.how)
            bk_scatter_reduce((float *)a.y + off, ((const float *)a.upd)[i], a.how);
        else
            bk_copy(a.y, off, a.upd, i, a.es);
    }
}

/* The flat path: four elements per thread, one vector load per operand and one store (n % 4
 * == 0, aligned buffers, every operand of the output's float type T); an operand may be a
 * scalar or a block repeated along the output (bk_periods). The broadcast walk took 4.6 us for
 * x * c over BERT's [128, 3072] on an H100, where this path took 2.7 us for a same-shape Add of
 * twice the elements. */
template <typename T> __global__ void bk_flat4(const bk_args a)
{
    const T *x = (const T *)a.in[0], *y = (const T *)a.in[1];
    T *o = (T *)a.out;
    const int fn = BK_OP_FN(a.fn);
    long long n4 = a.n / 4;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4; i += (long long)gridDim.x * blockDim.x) {
        float4 u = bk_ld4(x, a.per[0], i), w = a.kind == PL_BINARY ? bk_ld4(y, a.per[1], i) : u, r;
        r.x = bk_apply(fn, u.x, w.x, a.alpha, a.beta, PL_FLOAT);
        r.y = bk_apply(fn, u.y, w.y, a.alpha, a.beta, PL_FLOAT);
        r.z = bk_apply(fn, u.z, w.z, a.alpha, a.beta, PL_FLOAT);
        r.w = bk_apply(fn, u.w, w.w, a.alpha, a.beta, PL_FLOAT);
        bk_st4(o, i, r);
    }
}

/* Gather along an axis: [outer, dim, inner] -> [outer, nidx, inner] */
__global__ void bk_gather(const void *x, const long long *idx, void *y, long long outer, long long dim, long long nidx,
                          long long inner, int es)
{
    long long n = outer * nidx * inner;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        long long in = i % inner, q = (i / inner) % nidx, o = i / (inner * nidx);
        long long j = idx[q];
        if (j < 0)
            j += dim;
        bk_copy(y, i, x, (o * dim + j) * inner + in, es);
    }
}

#endif

#if BK_KINDS & BK_K_TRANSPOSE
/* Transpose: output coordinates to the input offset through the permuted input strides (the
 * walk coalesced: dimensions that stay neighbours in the input merge); a copy of T's elements */
template <typename T> __global__ void bk_transpose(const T *x, T *y, bk_args a)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < a.n; i += (long long)gridDim.x * blockDim.x) {
        long long pos[3];
        bk_positions(&a, i, pos);
        y[i] = x[pos[0]];
    }
}
#endif

/* Concat of up to BK_MAX_CAT inputs along an axis: [outer, sum(axis_i), inner] */
struct bk_cat_args {
    const void *in[BK_MAX_CAT];   /* T's elements (bk_concat<T>) */
    long long off[BK_MAX_CAT + 1]; /* prefix sums of the inputs' axis sizes */
    int n;
    long long outer, inner, total;
};

#if BK_KINDS & BK_K_CONCAT
template <typename T> __global__ void bk_concat(T *y, const bk_cat_args a)
{
    long long n = a.outer * a.total * a.inner;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        long long in = i % a.inner, c = (i / a.inner) % a.total, o = i / (a.inner * a.total);
        int k = 0;
        while (k + 1 < a.n && c >= a.off[k + 1])
            k++;
        long long len = a.off[k + 1] - a.off[k];
        y[i] = ((const T *)a.in[k])[(o * len + (c - a.off[k])) * a.inner + in];
    }
}
#endif

#if BK_KINDS & BK_K_LAYERNORM
/* LayerNorm over the last `cols` elements of each row: one block per row, warp shuffles then
 * shared memory for the mean and the variance */
__device__ __forceinline__ float bk_block_sum(float v, float *shared)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0)
        shared[warp] = v;
    __syncthreads();
    v = threadIdx.x < (blockDim.x + 31) / 32 ? shared[threadIdx.x] : 0.0f;
    if (warp == 0)
        for (int o = 16; o > 0; o >>= 1)
            v += __shfl_xor_sync(0xffffffffu, v, o);
    if (threadIdx.x == 0)
        shared[0] = v;
    __syncthreads();
    v = shared[0];
    __syncthreads();
    return v;
}

/* a residual LayerNorm's element C of the row: x + res [+ bias] in float, rounded to T as the
 * model's own Add stores it (bk_layernorm and bk_layernorm_reg) */
template <typename T> __device__ __forceinline__ T bk_ln_add(const T *x, const T *res, const T *bias, long long c)
{
    float v = bk_f(x[c]) + bk_f(res[c]);
    if (bias) /* not + 0.0f without one: -0 + 0 is +0, and --verify compares bits */
        v += bk_f(bias[c]);
    return bk_t<T>(v);
}

/* element C's output from its value V and the row's statistics, scaled and shifted where the
 * LayerNorm has them (an RMSNorm: scaled only, its mean 0) */
template <typename T>
__device__ __forceinline__ T bk_ln_out(float v, float mean, float rstd, const T *scale, const T *shift, long long c)
{
    float a = (v - mean) * rstd;
    return bk_t<T>(!scale ? a : shift ? a * bk_f(scale[c]) + bk_f(shift[c]) : a * bk_f(scale[c]));
}

/* with RES, the row is x + res [+ bias]: the first pass writes the sum into the output row,
 * which the next passes read (each thread its own elements). T is the storage type (float,
 * __half, __nv_bfloat16) of every tensor, the scale and shift rows too; sums and statistics in
 * float. The sum is stored in T before the statistics read it, as the model's own Add would
 * store it. */
template <typename T>
__global__ void bk_layernorm(const T *x, const T *scale, const T *shift, const T *res, const T *bias, T *y, T *sum,
                             long long cols, float eps, int rms)
{
    BK_SHARED float shared[32];
    T *out = y + blockIdx.x * cols;
    const T *row = x + blockIdx.x * cols;
    float s = 0.0f;
    if (res) {
        /* the sum goes where the next two passes read it: the output row, or the sum's own
         * row when it is an output too */
        const T *r = res + blockIdx.x * cols;
        T *keep = sum ? sum + blockIdx.x * cols : out;
        for (long long c = threadIdx.x; c < cols; c += blockDim.x) {
            T t = bk_ln_add(row, r, bias, c);
            keep[c] = t;
            s += bk_f(t);
        }
        row = keep;
    } else if (!rms) {
        for (long long c = threadIdx.x; c < cols; c += blockDim.x)
            s += bk_f(row[c]);
    }
    /* an RMSNorm's statistic is the mean square: the same pass with the mean 0 */
    float mean = rms ? 0.0f : bk_block_sum(s, shared) / (float)cols;
    float q = 0.0f;
    for (long long c = threadIdx.x; c < cols; c += blockDim.x) {
        float d = bk_f(row[c]) - mean;
        q += d * d;
    }
    float rstd = rsqrtf(bk_block_sum(q, shared) / (float)cols + eps);
    for (long long c = threadIdx.x; c < cols; c += blockDim.x)
        out[c] = bk_ln_out(bk_f(row[c]), mean, rstd, scale, shift, c);
}

/* The same LayerNorm with the row in registers: thread t holds columns t, t + blockDim.x, ...
 * (PER of them, cols <= PER * blockDim.x), so x (and the residual) are read once and no pass
 * reads the row back; the same sums in the same order as bk_layernorm, so the same results */
template <typename T, int PER>
__global__ void bk_layernorm_reg(const T *x, const T *scale, const T *shift, const T *res, const T *bias, T *y,
                                 T *sum, long long cols, float eps, int rms)
{
    BK_SHARED float shared[32];
    T *out = y + blockIdx.x * cols;
    const T *row = x + blockIdx.x * cols;
    float v[PER];
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < PER; j++) {
        long long c = threadIdx.x + (long long)j * blockDim.x;
        v[j] = 0.0f;
        if (c >= cols)
            continue;
        if (res) {
            T t = bk_ln_add(row, res + blockIdx.x * cols, bias, c);
            (sum ? sum + blockIdx.x * cols : out)[c] = t;
            v[j] = bk_f(t);
        } else {
            v[j] = bk_f(row[c]);
        }
        s += v[j];
    }
    float mean = rms ? 0.0f : bk_block_sum(s, shared) / (float)cols;
    float q = 0.0f;
#pragma unroll
    for (int j = 0; j < PER; j++)
        if (threadIdx.x + (long long)j * blockDim.x < cols) {
            float d = v[j] - mean;
            q += d * d;
        }
    float rstd = rsqrtf(bk_block_sum(q, shared) / (float)cols + eps);
#pragma unroll
    for (int j = 0; j < PER; j++) {
        long long c = threadIdx.x + (long long)j * blockDim.x;
        if (c < cols)
            out[c] = bk_ln_out(v[j], mean, rstd, scale, shift, c);
    }
}
#endif

/* Resize over the last two dims, as ONNX defines it for nearest and linear: the source
 * coordinate of output index o from its coordinate transformation (enum pl_coord, at the
 * layer's scale, output over input), clamped to the input; nearest rounds it by its mode (enum
 * pl_nearest), linear blends the two neighbours in each dim. IMG is one plane's first
 * element, CS the distance between neighbours in a row (1 in NCHW, C in NHWC). T is the element
 * type (float, __half, __nv_bfloat16): read as float, blended in float; the caller rounds the
 * result to T. */
struct bk_rs {
    float sh, sw;       /* the scales of H and W */
    int coord, nearest; /* enum pl_coord (not tf_crop_and_resize), enum pl_nearest */
};

__host__ __device__ inline float bk_resize_src(long long o, long long in, long long out, float scale, int coord)
{
    float y = (float)o, len = scale * (float)in;
    float x = coord == PL_COORD_ALIGN_CORNERS       ? (len == 1 ? 0 : y * (float)(in - 1) / (len - 1))
              : coord == PL_COORD_ASYMMETRIC         ? y / scale
              : coord == PL_COORD_PYTORCH_HALF_PIXEL ? (len == 1 ? -0.5f : (y + 0.5f) / scale - 0.5f)
              : coord == PL_COORD_HALF_PIXEL_SYMMETRIC
                  ? (float)in / 2 * (1 - (float)out / len) + (y + 0.5f) / scale - 0.5f
                  : (y + 0.5f) / scale - 0.5f;
    return x < 0 ? 0 : x > (float)(in - 1) ? (float)(in - 1) : x;
}

__host__ __device__ inline long long bk_resize_round(float x, int nearest)
{
    return (long long)(nearest == PL_NEAREST_ROUND_PREFER_CEIL ? floorf(x + 0.5f)
                       : nearest == PL_NEAREST_FLOOR           ? floorf(x)
                       : nearest == PL_NEAREST_CEIL            ? ceilf(x)
                                                               : ceilf(x - 0.5f));
}

template <typename T>
__host__ __device__ inline float bk_resize_at(const T *img, long long ih, long long iw, long long oh, long long ow,
                                              long long y, long long x, int linear, long long cs, bk_rs rs)
{
    float sy = bk_resize_src(y, ih, oh, rs.sh, rs.coord), sx = bk_resize_src(x, iw, ow, rs.sw, rs.coord);
    if (!linear)
        return bk_f(img[(bk_resize_round(sy, rs.nearest) * iw + bk_resize_round(sx, rs.nearest)) * cs]);
    long long y0 = (long long)sy, x0 = (long long)sx, y1 = y0 + 1 < ih ? y0 + 1 : y0, x1 = x0 + 1 < iw ? x0 + 1 : x0;
    float fy = sy - (float)y0, fx = sx - (float)x0;
    float top = bk_f(img[(y0 * iw + x0) * cs]) * (1 - fx) + bk_f(img[(y0 * iw + x1) * cs]) * fx;
    float bot = bk_f(img[(y1 * iw + x0) * cs]) * (1 - fx) + bk_f(img[(y1 * iw + x1) * cs]) * fx;
    return top * (1 - fy) + bot * fy;
}

/* output element I's value: in NCHW order I walks the planes (n, c) and their rows; channels-last
 * it walks [N, OH, OW, C], and its plane (n, c) starts at n * IH * IW * C + c */
template <typename T>
__host__ __device__ inline float bk_resize_elem(const T *x, long long i, long long c, long long ih, long long iw,
                                                long long oh, long long ow, int linear, int nhwc, bk_rs rs)
{
    if (nhwc) {
        long long ch = i % c, r = i / c, n = r / (oh * ow);
        r %= oh * ow;
        return bk_resize_at(x + n * ih * iw * c + ch, ih, iw, oh, ow, r / ow, r % ow, linear, c, rs);
    }
    long long p = i / (oh * ow), r = i % (oh * ow);
    return bk_resize_at(x + p * ih * iw, ih, iw, oh, ow, r / ow, r % ow, linear, 1, rs);
}

template <typename T>
__global__ void bk_resize(const T *x, T *y, long long planes, long long c, long long ih, long long iw, long long oh,
                          long long ow, int linear, int nhwc, bk_rs rs)
{
    long long n = planes * oh * ow;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        y[i] = bk_t<T>(bk_resize_elem(x, i, c, ih, iw, oh, ow, linear, nhwc, rs));
}

#if BK_KINDS & BK_K_BATCHNORM
/* BatchNormalization at inference: element e of channel c is (x - mean[c]) / sqrt(var[c] + eps)
 * * scale[c] + shift[c], computed as x * a + b with a = scale / sqrt(var + eps) and b = shift -
 * mean * a (float parameters, as cuDNN takes them; x and y in T). */
struct bk_bn {
    const float *scale, *shift, *mean, *var;
    long long n, c, inner; /* elements, channels, the spatial size */
    int nhwc, vec;         /* channels-last; four elements a thread */
    float eps;
};

/* element E's channel: (E / inner) % C in NCHW, E % C channels-last (32-bit below 2^32
 * elements, as bk_positions) */
__device__ __forceinline__ long long bk_bn_chan(const bk_bn &p, long long e)
{
    if (p.n <= 0xffffffffLL)
        return p.nhwc ? (unsigned)e % (unsigned)p.c : (unsigned)e / (unsigned)p.inner % (unsigned)p.c;
    return p.nhwc ? e % p.c : e / p.inner % p.c;
}

/* channel C's factors a and b */
__device__ __forceinline__ float2 bk_bn_ab(const bk_bn &p, long long c)
{
    float a = p.scale[c] * rsqrtf(p.var[c] + p.eps);
    return make_float2(a, p.shift[c] - p.mean[c] * a);
}

/* VEC: four elements a thread in one vector load, where a quad never straddles what the four
 * need: in NCHW one channel (inner % 4 == 0), channels-last four in a row (C % 4 == 0) */
template <typename T> __global__ void bk_batchnorm(const T *x, T *y, const bk_bn p)
{
    const long long step = (long long)gridDim.x * blockDim.x;
    if (p.vec) {
        for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < p.n / 4; i += step) {
            long long ch = bk_bn_chan(p, 4 * i);
            float4 v = bk_ld4(x, 0, i);
            float2 f0 = bk_bn_ab(p, ch), f1 = f0, f2 = f0, f3 = f0;
            if (p.nhwc) {
                f1 = bk_bn_ab(p, ch + 1);
                f2 = bk_bn_ab(p, ch + 2);
                f3 = bk_bn_ab(p, ch + 3);
            }
            bk_st4(y, i, make_float4(v.x * f0.x + f0.y, v.y * f1.x + f1.y, v.z * f2.x + f2.y, v.w * f3.x + f3.y));
        }
        return;
    }
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < p.n; i += step) {
        float2 f = bk_bn_ab(p, bk_bn_chan(p, i));
        y[i] = bk_t<T>(bk_f(x[i]) * f.x + f.y);
    }
}
#endif

#if BK_KINDS & BK_K_EMPTY
__global__ void bk_empty(void)
{
}
#endif


/* ---- fused attention (flash attention): one pass over the keys with an online softmax ---- */

enum { BK_ATT_MAXD = 256, BK_ATT_BQ = 64, BK_ATT_BK = 64, BK_ATT_WARPS = 4 };

struct bk_att {
    long long b, h, sq, skv, d, dv;
    long long rep; /* query heads per K and V head */
    long long q[4], k[4], v[4], o[4], m[4];
    int mask, fill_when;
    float scale, fill;
};

/* the scaled score of query i and key j with the mask applied */
template <typename T>
__device__ __forceinline__ float bk_att_score(const bk_att &a, const void *mask, long long b, long long h, long long i,
                                              long long j, float dot)
{
    float s = dot * a.scale;
    if (!a.mask)
        return s;
    long long at = b * a.m[0] + h * a.m[1] + i * a.m[2] + j * a.m[3];
    if (a.mask == 1)
        return s + bk_f(((const T *)mask)[at]);
    return (((const unsigned char *)mask)[at] != 0) == (a.fill_when != 0) ? a.fill : s;
}

__device__ __forceinline__ float bk_warp_max(float v)
{
    for (int o = 16; o > 0; o >>= 1)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

__device__ __forceinline__ float bk_warp_sum(float v)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

/* The shared memory of bk_attention_rows for head sizes D and DV: each warp's query row, then a
 * tile of 32 keys (rows padded by one float: a lane per key then reads its row without bank
 * conflicts) and the tile's 32 value rows, all float */
__host__ __device__ inline size_t bk_att_rows_smem(long long d, long long dv)
{
    return ((size_t)BK_ATT_WARPS * d + 32 * (size_t)(d + 1) + 32 * (size_t)dv) * 4;
}

/* ROWS x COLS of a matrix (row stride RS, column stride CS, in elements) into float shared
 * memory DST (leading dimension LD), by the block's NT threads: consecutive threads on
 * consecutive elements of the global side (along a row where CS is 1, else down a column),
 * eight loads in flight before their stores, where one at a time each waited on the last */
template <typename T>
__device__ __forceinline__ void bk_rows_tile(float *dst, int ld, const T *src, long long rs, long long cs, int rows,
                                             int cols, int tid, int nt)
{
    const bool cfast = cs == 1;
    const int total = rows * cols;
    for (int e0 = tid; e0 < total; e0 += 8 * nt) {
        float v[8];
#pragma unroll
        for (int u = 0; u < 8; u++) {
            int e = e0 + u * nt, r = cfast ? e / cols : e % rows, c = cfast ? e - r * cols : e / rows;
            v[u] = e < total ? bk_f(src[r * rs + (long long)c * cs]) : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < 8; u++) {
            int e = e0 + u * nt, r = cfast ? e / cols : e % rows, c = cfast ? e - r * cols : e / rows;
            if (e < total)
                dst[r * ld + c] = v[u];
        }
    }
}

/* Any type, any head size up to BK_ATT_MAXD: a warp per query row, the block's 4 rows (of one
 * batch and head) sharing each tile of 32 keys and its 32 value rows, which the block first
 * copies to shared memory (bk_rows_tile). Each lane takes one key's dot product (four partial
 * sums, for the pipeline), then each lane adds its columns of the 32 value rows; the running
 * maximum and sum rescale the accumulator as each tile comes in. A tile all masked to -inf
 * leaves the state as it is (no inf - inf). The first version read K straight from global
 * memory, a lane a key: every load of the dot product waited on 32 scattered rows (110 us for
 * BERT-base's 12 heads of 128 x 64 in f32 on an H200, against 27 us for the group's eight
 * separate kernels). The second copied K to shared memory but still read V from global memory,
 * one value row after another in the P V loop: 65.8 us on an H100, against 15.6 us for
 * PyTorch's kernels. */
template <typename T>
__global__ void __launch_bounds__(BK_ATT_WARPS * 32) bk_attention_rows(const T *q, const T *k, const T *v,
                                                                      const void *mask, T *o, const bk_att a)
{
    extern __shared__ __align__(128) unsigned char bk_smem[];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, tid = threadIdx.x, D = (int)a.d, DV = (int)a.dv;
    float *qrow = (float *)bk_smem + warp * D, *ks = (float *)bk_smem + BK_ATT_WARPS * D, *vs = ks + 32 * (D + 1);
    const long long i = (long long)blockIdx.x * BK_ATT_WARPS + warp, h = blockIdx.y, b = blockIdx.z;
    const bool live = i < a.sq; /* a row past the end still helps copy the tiles */
    const T *kb = k + b * a.k[0] + h / a.rep * a.k[1], *vb = v + b * a.v[0] + h / a.rep * a.v[1];
    if (live) {
        const T *qp = q + b * a.q[0] + h * a.q[1] + i * a.q[2];
        for (int d = lane; d < D; d += 32)
            qrow[d] = bk_f(qp[d * a.q[3]]);
    }
    float acc[BK_ATT_MAXD / 32], m = -INFINITY, l = 0.0f;
#pragma unroll
    for (int c = 0; c < BK_ATT_MAXD / 32; c++)
        acc[c] = 0.0f;
    for (long long j0 = 0; j0 < a.skv; j0 += 32) {
        const int n = a.skv - j0 < 32 ? (int)(a.skv - j0) : 32;
        __syncthreads(); /* the last tile is read by every warp; qrow is written */
        bk_rows_tile(ks, D + 1, kb + j0 * a.k[2], a.k[2], a.k[3], n, D, tid, BK_ATT_WARPS * 32);
        bk_rows_tile(vs, DV, vb + j0 * a.v[2], a.v[2], a.v[3], n, DV, tid, BK_ATT_WARPS * 32);
        __syncthreads();
        if (!live)
            continue;
        float s = -INFINITY;
        if (lane < n) {
            const float *kr = ks + lane * (D + 1);
            float d0 = 0.0f, d1 = 0.0f, d2 = 0.0f, d3 = 0.0f;
            int d = 0;
            for (; d + 4 <= D; d += 4) {
                d0 += qrow[d] * kr[d];
                d1 += qrow[d + 1] * kr[d + 1];
                d2 += qrow[d + 2] * kr[d + 2];
                d3 += qrow[d + 3] * kr[d + 3];
            }
            for (; d < D; d++)
                d0 += qrow[d] * kr[d];
            s = bk_att_score<T>(a, mask, b, h, i, j0 + lane, (d0 + d1) + (d2 + d3));
        }
        float mnew = fmaxf(m, bk_warp_max(s)), base = mnew == -INFINITY ? 0.0f : mnew;
        float p = expf(s - base), alpha = expf(m - base);
        l = l * alpha + bk_warp_sum(p);
        m = mnew;
#pragma unroll
        for (int c = 0; c < BK_ATT_MAXD / 32; c++)
            acc[c] *= alpha;
#pragma unroll 4
        for (int t = 0; t < n; t++) {
            float pt = __shfl_sync(0xffffffffu, p, t);
            const float *vr = vs + t * DV;
#pragma unroll
            for (int c = 0; c < BK_ATT_MAXD / 32; c++) {
                int d = lane + 32 * c;
                if (d < DV)
                    acc[c] += pt * vr[d];
            }
        }
    }
    if (!live)
        return;
    T *op = o + b * a.o[0] + h * a.o[1] + i * a.o[2];
#pragma unroll
    for (int c = 0; c < BK_ATT_MAXD / 32; c++) {
        int d = lane + 32 * c;
        if (d < DV)
            op[(long long)d * a.o[3]] = bk_t<T>(acc[c] / l);
    }
}

/* The shared memory of bk_attention_tc for head sizes D and DV: the Q, K and V tiles (rows
 * padded by 8 elements), per warp its scores (float), probabilities (T) and output rows
 * (float), and per row the running maximum, sum and this tile's rescale factor. Every part a
 * multiple of 32 bytes, as WMMA's loads and stores want. */
__host__ __device__ inline size_t bk_att_smem(long long d, long long dv, size_t es)
{
    return (size_t)BK_ATT_BQ * (d + 8) * es + (size_t)BK_ATT_BK * (d + 8) * es + (size_t)BK_ATT_BK * (dv + 8) * es +
           (size_t)BK_ATT_BQ * (BK_ATT_BK + 4) * 4 + (size_t)BK_ATT_BQ * (BK_ATT_BK + 8) * es +
           (size_t)BK_ATT_BQ * (dv + 4) * 4 + 3 * BK_ATT_BQ * 4;
}

/* Rows [0, ROWS) of a matrix (row stride RS, column stride CS, in elements; the rows from
 * VALID on read as zeros) into shared memory DST (leading dimension LD), COLS columns, by the
 * block's NT threads. Where the columns are contiguous and every row starts on 16 bytes, in
 * 16-byte pieces, four loaded before any is stored: the loads of a tile are in flight
 * together, where element by element each waited on the last (a block of 4 warps, alone on
 * its SM for BERT's 24 blocks, has nothing else to hide that latency behind). Host code too:
 * test/kernel_ref_check.cu runs every thread's share of it, one thread after the other. */
template <typename T>
__host__ __device__ __forceinline__ void bk_tile_load(T *dst, int ld, const T *src, long long rs, long long cs, int rows, int valid,
                                             int cols, int tid, int nt)
{
    constexpr int V = 16 / (int)sizeof(T);
    if (cs == 1 && cols % V == 0 && rs % V == 0 && ld % V == 0 && ((size_t)src & 15) == 0 && ((size_t)dst & 15) == 0) {
        const int per = cols / V, total = rows * per;
        for (int e0 = tid; e0 < total; e0 += 4 * nt) {
            uint4 buf[4];
#pragma unroll
            for (int u = 0; u < 4; u++) {
                int e = e0 + u * nt, r = e / per;
                buf[u] = e < total && r < valid ? *(const uint4 *)(src + r * rs + (long long)(e - r * per) * V)
                                                : make_uint4(0u, 0u, 0u, 0u);
            }
#pragma unroll
            for (int u = 0; u < 4; u++) {
                int e = e0 + u * nt, r = e / per;
                if (e < total)
                    *(uint4 *)(dst + r * ld + (e - r * per) * V) = buf[u];
            }
        }
        return;
    }
    for (int e = tid; e < rows * cols; e += nt) {
        int r = e / cols, c = e - r * cols;
        dst[r * ld + c] = r < valid ? src[r * rs + c * cs] : T(0.0f);
    }
}

/* WMMA's operand type and K step for storage type T: f16 and bf16 16x16x16; float (the tf32
 * benchmarks: f32 data, TF32 Tensor Cores) 16x16x8, each element rounded to TF32 once loaded */
template <typename T> struct bk_wmma {
    typedef T frag;
    static constexpr int kstep = 16;
};
/* (mma.h declares TF32 for sm_80 and later only, under a macro of its own that it undefines
 * at its end; compiled for an older GPU, the float body is never instantiated:
 * bk_attention_tc traps there) */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
template <> struct bk_wmma<float> {
    typedef nvcuda::wmma::precision::tf32 frag;
    static constexpr int kstep = 8;
};
#endif

template <typename T, typename F> __device__ __forceinline__ void bk_wmma_round(F &f)
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    if constexpr (sizeof(T) == 4)
        for (int t = 0; t < f.num_elements; t++)
            f.x[t] = nvcuda::wmma::__float_to_tf32(f.x[t]);
#else
    (void)f;
#endif
}

/* One warp's 16 x 16 scores, Q (16 x D, row stride LDQ) times 16 keys' rows KW, into S (row
 * stride LDS): on Tensor Cores, or for float on CUDA cores, each lane a 2 x 4 block */
template <typename T, bool TC>
__device__ __forceinline__ void bk_att_scores(float *S, int lds, const T *Q, const T *Kw, int ldq, int D, int lane)
{
    if constexpr (TC) {
        using namespace nvcuda;
        typedef typename bk_wmma<T>::frag F;
        constexpr int KS = bk_wmma<T>::kstep;
        wmma::fragment<wmma::accumulator, 16, 16, KS, float> acc;
        wmma::fill_fragment(acc, 0.0f);
        for (int kk = 0; kk < D; kk += KS) {
            wmma::fragment<wmma::matrix_a, 16, 16, KS, F, wmma::row_major> fa;
            wmma::fragment<wmma::matrix_b, 16, 16, KS, F, wmma::col_major> fb;
            wmma::load_matrix_sync(fa, Q + kk, ldq);
            wmma::load_matrix_sync(fb, Kw + kk, ldq);
            bk_wmma_round<T>(fa);
            bk_wmma_round<T>(fb);
            wmma::mma_sync(acc, fa, fb, acc);
        }
        wmma::store_matrix_sync(S, acc, lds, wmma::mem_row_major);
    } else {
        /* rows 2rp and 2rp+1, keys kq + 4c: a quarter warp's 16-byte loads fall in distinct banks */
        const int rp = lane >> 2, kq = lane & 3;
        const float *qa = (const float *)Q + 2 * rp * ldq, *qb = qa + ldq, *kr = (const float *)Kw + kq * ldq;
        float s0[4] = {0.0f, 0.0f, 0.0f, 0.0f}, s1[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        for (int d = 0; d < D; d += 4) {
            float4 x0 = *(const float4 *)(qa + d), x1 = *(const float4 *)(qb + d);
#pragma unroll
            for (int c = 0; c < 4; c++) {
                float4 y = *(const float4 *)(kr + 4 * c * ldq + d);
                s0[c] += x0.x * y.x + x0.y * y.y + x0.z * y.z + x0.w * y.w;
                s1[c] += x1.x * y.x + x1.y * y.y + x1.z * y.z + x1.w * y.w;
            }
        }
#pragma unroll
        for (int c = 0; c < 4; c++) {
            S[2 * rp * lds + kq + 4 * c] = s0[c];
            S[(2 * rp + 1) * lds + kq + 4 * c] = s1[c];
        }
    }
}

/* The online softmax of one warp's 16 rows over 2 x HALF keys, two lanes a row, HALF keys each:
 * the scores S (row stride LDS; query I0 + r, key J0 + c) scaled and masked, the probabilities
 * into P (row stride LDP) rounded to T, each row's running maximum M and sum L updated and its
 * rescale factor for the output rows put in AL. Queries and keys past the end score -inf. */
template <typename T, int HALF>
__device__ __forceinline__ void bk_att_softmax(const bk_att &a, const void *mask, long long b, long long h, long long i0,
                                               long long j0, const float *S, int lds, T *P, int ldp, float *M, float *L,
                                               float *AL, int lane)
{
    const int r = lane >> 1, half = lane & 1;
    const long long i = i0 + r;
    float sv[HALF], mx = -INFINITY;
#pragma unroll
    for (int c = 0; c < HALF; c++) {
        const int col = half * HALF + c;
        const long long j = j0 + col;
        sv[c] = j < a.skv && i < a.sq ? bk_att_score<T>(a, mask, b, h, i, j, S[r * lds + col]) : -INFINITY;
        mx = fmaxf(mx, sv[c]);
    }
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
    float mold = M[r], mnew = fmaxf(mold, mx), base = mnew == -INFINITY ? 0.0f : mnew, sum = 0.0f;
#pragma unroll
    for (int c = 0; c < HALF; c++) {
        float p = expf(sv[c] - base);
        sum += p;
        P[r * ldp + half * HALF + c] = bk_t<T>(p);
    }
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    float alpha = expf(mold - base);
    __syncwarp(); /* every lane has read M[r] */
    if (!half) {
        M[r] = mnew;
        L[r] = L[r] * alpha + sum;
        AL[r] = alpha;
    }
}

/* One warp's output rows O (16 x DV, row stride LDO) rescaled by ALPHA (a factor per row) and
 * then added P (16 x KEYS, row stride LDP) times the KEYS value rows VW (row stride LDV): on
 * Tensor Cores (bk_attention_tc, bk_attention_split) or, for float, on CUDA cores, each lane a
 * 4-row block of outputs (bk_attention_split: KEYS is BK_SPL_KW) */
template <typename T, bool TC>
__device__ __forceinline__ void bk_att_pv(float *O, int ldo, const float *alpha, const T *P, int ldp, const T *Vw, int ldv,
                                          int DV, int keys, int lane)
{
    if constexpr (TC) {
        using namespace nvcuda;
        typedef typename bk_wmma<T>::frag F;
        constexpr int KS = bk_wmma<T>::kstep;
        for (int e = lane; e < 16 * DV; e += 32) {
            int r = e / DV, c = e - r * DV;
            O[r * ldo + c] *= alpha[r];
        }
        __syncwarp();
        for (int n = 0; n < DV; n += 16) {
            wmma::fragment<wmma::accumulator, 16, 16, KS, float> acc;
            wmma::load_matrix_sync(acc, O + n, ldo, wmma::mem_row_major);
            for (int kk = 0; kk < keys; kk += KS) {
                wmma::fragment<wmma::matrix_a, 16, 16, KS, F, wmma::row_major> fa;
                wmma::fragment<wmma::matrix_b, 16, 16, KS, F, wmma::row_major> fb;
                wmma::load_matrix_sync(fa, P + kk, ldp);
                wmma::load_matrix_sync(fb, Vw + kk * ldv + n, ldv);
                bk_wmma_round<T>(fa);
                bk_wmma_round<T>(fb);
                wmma::mma_sync(acc, fa, fb, acc);
            }
            wmma::store_matrix_sync(O + n, acc, ldo, wmma::mem_row_major);
        }
    } else {
        /* rows 4rg to 4rg+3, columns cg + 8u (a warp's lanes on consecutive columns) */
        const int rg = lane >> 3, cg = lane & 7, nu = DV / 8;
        const float *p = (const float *)P, *vw = (const float *)Vw;
        float acc[4][16];
#pragma unroll
        for (int i = 0; i < 4; i++) {
            float al = alpha[4 * rg + i];
#pragma unroll
            for (int u = 0; u < 16; u++)
                acc[i][u] = u < nu ? O[(4 * rg + i) * ldo + cg + 8 * u] * al : 0.0f;
        }
#pragma unroll 4
        for (int t = 0; t < keys; t++) {
            float pt[4];
#pragma unroll
            for (int i = 0; i < 4; i++)
                pt[i] = p[(4 * rg + i) * ldp + t];
#pragma unroll
            for (int u = 0; u < 16; u++)
                if (u < nu) {
                    float x = vw[t * ldv + cg + 8 * u];
#pragma unroll
                    for (int i = 0; i < 4; i++)
                        acc[i][u] += pt[i] * x;
                }
        }
#pragma unroll
        for (int i = 0; i < 4; i++)
#pragma unroll
            for (int u = 0; u < 16; u++)
                if (u < nu)
                    O[(4 * rg + i) * ldo + cg + 8 * u] = acc[i][u];
    }
}

/* f16, bf16 and TF32 on Tensor Cores (WMMA 16x16x16, and 16x16x8 for TF32; float
 * accumulators), head sizes multiples of 16 up to 128: a block of 4 warps takes 64 queries of
 * one (batch, head); for each tile of 64 keys the warps compute their 16 rows of scores
 * S = Q K^T, update the online softmax row by row (two lanes a row), round the probabilities to
 * T (to TF32 for float) and add P V to their output rows, which stay in shared memory between
 * tiles so that each row can be rescaled. */
template <typename T>
__device__ void bk_attention_tc_body(const T *q, const T *k, const T *v, const void *mask, T *o, const bk_att &a)
{
    extern __shared__ __align__(128) unsigned char bk_smem[];
    const int D = (int)a.d, DV = (int)a.dv, ldq = D + 8, ldv = DV + 8, lds = BK_ATT_BK + 4, ldp = BK_ATT_BK + 8,
              ldo = DV + 4;
    T *Qs = (T *)bk_smem, *Ks = Qs + BK_ATT_BQ * ldq, *Vs = Ks + BK_ATT_BK * ldq;
    float *S = (float *)(Vs + BK_ATT_BK * ldv);
    T *P = (T *)(S + BK_ATT_BQ * lds);
    float *O = (float *)(P + BK_ATT_BQ * ldp), *rm = O + BK_ATT_BQ * ldo, *rl = rm + BK_ATT_BQ, *ra = rl + BK_ATT_BQ;
    int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, tid = threadIdx.x, nt = blockDim.x;
    long long q0 = (long long)blockIdx.x * BK_ATT_BQ, h = blockIdx.y, b = blockIdx.z;
    bk_tile_load(Qs, ldq, q + b * a.q[0] + h * a.q[1] + q0 * a.q[2], a.q[2], a.q[3], BK_ATT_BQ,
                 a.sq - q0 < BK_ATT_BQ ? (int)(a.sq - q0) : BK_ATT_BQ, D, tid, nt);
    for (int e = tid; e < BK_ATT_BQ * ldo; e += nt)
        O[e] = 0.0f;
    for (int r = tid; r < BK_ATT_BQ; r += nt) {
        rm[r] = -INFINITY;
        rl[r] = 0.0f;
    }
    float *Sw = S + warp * 16 * lds, *Ow = O + warp * 16 * ldo;
    T *Pw = P + warp * 16 * ldp;
    const T *Qw = Qs + warp * 16 * ldq;
    for (long long j0 = 0; j0 < a.skv; j0 += BK_ATT_BK) {
        __syncthreads(); /* the last tile's K and V are read by every warp */
        const int keys = a.skv - j0 < BK_ATT_BK ? (int)(a.skv - j0) : BK_ATT_BK;
        bk_tile_load(Ks, ldq, k + b * a.k[0] + h / a.rep * a.k[1] + j0 * a.k[2], a.k[2], a.k[3], BK_ATT_BK, keys, D, tid, nt);
        bk_tile_load(Vs, ldv, v + b * a.v[0] + h / a.rep * a.v[1] + j0 * a.v[2], a.v[2], a.v[3], BK_ATT_BK, keys, DV, tid, nt);
        __syncthreads();
        /* this warp's 16 rows of scores, 16 keys at a time */
        for (int n = 0; n < BK_ATT_BK / 16; n++)
            bk_att_scores<T, true>(Sw + n * 16, lds, Qw, Ks + n * 16 * ldq, ldq, D, lane);
        __syncwarp();
        /* the online softmax: two lanes per row, 32 keys each */
        bk_att_softmax<T, BK_ATT_BK / 2>(a, mask, b, h, q0 + warp * 16, j0, Sw, lds, Pw, ldp, rm + warp * 16, rl + warp * 16,
                                         ra + warp * 16, lane);
        __syncwarp();
        /* O = O * alpha + P V */
        bk_att_pv<T, true>(Ow, ldo, ra + warp * 16, Pw, ldp, Vs, ldv, DV, BK_ATT_BK, lane);
        __syncwarp();
    }
    for (int e = lane; e < 16 * DV; e += 32) {
        int r = e / DV, c = e % DV, row = warp * 16 + r;
        long long i = q0 + row;
        if (i < a.sq)
            o[b * a.o[0] + h * a.o[1] + i * a.o[2] + c * a.o[3]] = bk_t<T>(Ow[r * ldo + c] / rl[row]);
    }
}

/* bf16 and TF32 WMMA need sm_80, f16 sm_70: built for an older GPU the kernel traps (bk_setup
 * picks bk_attention_rows there, or for TF32 reports no such kernel) */
template <typename T> struct bk_tc_arch {
    static constexpr int min = 700;
};
template <> struct bk_tc_arch<__nv_bfloat16> {
    static constexpr int min = 800;
};
template <> struct bk_tc_arch<float> {
    static constexpr int min = 800;
};

template <typename T>
__global__ void __launch_bounds__(BK_ATT_WARPS * 32) bk_attention_tc(const T *q, const T *k, const T *v,
                                                                    const void *mask, T *o, const bk_att a)
{
#if defined(__CUDA_ARCH__)
    if constexpr (__CUDA_ARCH__ >= bk_tc_arch<T>::min)
        bk_attention_tc_body<T>(q, k, v, mask, o, a);
    else
        __trap();
#endif
}

/* ---- flash attention with the keys split across the block's warps ----
 *
 * bk_attention_tc gives each warp 16 queries and all the keys: for BERT-base (12 heads of 128
 * queries) that is 24 blocks on an H100's 132 SMs, each warp walking the whole key sequence
 * alone, each tile's loads waited on before any work (34.0 us in TF32, 21.5 us in f16, where
 * cuDNN's fused attention takes 5.3 us). Here a block takes 16 queries (96 blocks for BERT)
 * and its 4 warps split every tile of 64 keys, 16 each: a warp keeps its own running maximum,
 * sum and output rows over its keys, and the block merges the four at the end (the same
 * rescaling the online softmax does tile by tile). The next tile's K and V are copied to shared
 * memory asynchronously (cp.async, sm_80 and later) while this one is worked on. The scores and
 * P V are on Tensor Cores (WMMA; f16, bf16, TF32) or, for f32, on CUDA cores, each lane a 2 x 4
 * block of scores and a 4-row block of outputs. Head sizes multiples of 16 up to 128. */
enum { BK_SPL_BQ = 16, BK_SPL_KW = BK_ATT_BK / BK_ATT_WARPS };

/* A warp's share of bk_attention_split's shared memory: its scores (float), probabilities
 * (T) and output rows (float), and per row its running maximum, sum and rescale factor */
__host__ __device__ inline size_t bk_split_warp_smem(long long dv, size_t es)
{
    return (size_t)16 * (BK_SPL_KW + 4) * 4 + (size_t)16 * (BK_SPL_KW + 8) * es + (size_t)16 * (dv + 4) * 4 + 3 * 16 * 4;
}

/* Where warp W's share starts in BASE, and its parts (head size DV, storage type T) */
template <typename T> struct bk_split_share {
    float *s; /* 16 x (BK_SPL_KW + 4) scores */
    T *p;     /* 16 x (BK_SPL_KW + 8) probabilities */
    float *o; /* 16 x (DV + 4) output rows */
    float *m, *l, *a;
};

template <typename T> __device__ __forceinline__ bk_split_share<T> bk_split_at(unsigned char *base, int w, int dv)
{
    bk_split_share<T> sh;
    sh.s = (float *)(base + (size_t)w * bk_split_warp_smem(dv, sizeof(T)));
    sh.p = (T *)(sh.s + 16 * (BK_SPL_KW + 4));
    sh.o = (float *)(sh.p + 16 * (BK_SPL_KW + 8));
    sh.m = sh.o + 16 * (dv + 4);
    sh.l = sh.m + 16;
    sh.a = sh.l + 16;
    return sh;
}

/* The whole: the Q tile, two buffers each of K and V tiles (rows padded by 8 elements), the
 * warps' shares; every part a multiple of 32 bytes (WMMA's alignment) for head sizes that are
 * multiples of 16 */
__host__ __device__ inline size_t bk_att_split_smem(long long d, long long dv, size_t es)
{
    return (size_t)BK_SPL_BQ * (d + 8) * es + 2 * (size_t)BK_ATT_BK * ((d + 8) + (dv + 8)) * es +
           BK_ATT_WARPS * bk_split_warp_smem(dv, es);
}

/* bk_tile_load's tile, its 16-byte pieces copied asynchronously (the caller commits and waits);
 * the rows from VALID on are zeroed by plain stores (a key past the end must meet a zero value
 * row: its probability is 0, and 0 times a stale NaN would not be). Other layouts copy
 * synchronously. */
template <typename T>
__device__ __forceinline__ void bk_tile_async(T *dst, int ld, const T *src, long long rs, long long cs, int rows, int valid,
                                              int cols, int tid, int nt)
{
    constexpr int V = 16 / (int)sizeof(T);
    if (!(cs == 1 && cols % V == 0 && rs % V == 0 && ld % V == 0 && ((size_t)src & 15) == 0 && ((size_t)dst & 15) == 0)) {
        bk_tile_load(dst, ld, src, rs, cs, rows, valid, cols, tid, nt);
        return;
    }
    const int per = cols / V, total = rows * per;
    for (int e = tid; e < total; e += nt) {
        int r = e / per, c = (e - r * per) * V;
        if (r < valid)
            __pipeline_memcpy_async(dst + r * ld + c, src + r * rs + c, 16);
        else
            *(uint4 *)(dst + r * ld + c) = make_uint4(0u, 0u, 0u, 0u);
    }
}

template <typename T, bool TC>
__device__ void bk_attention_split_body(const T *q, const T *k, const T *v, const void *mask, T *o, const bk_att &a)
{
    extern __shared__ __align__(128) unsigned char bk_smem[];
    const int D = (int)a.d, DV = (int)a.dv, ldq = D + 8, ldv = DV + 8, lds = BK_SPL_KW + 4, ldo = DV + 4;
    const int ldp = TC ? BK_SPL_KW + 8 : BK_SPL_KW + 1; /* CUDA cores: rows 4 apart in distinct banks */
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, tid = threadIdx.x, nt = blockDim.x;
    T *Qs = (T *)bk_smem, *Kb = Qs + BK_SPL_BQ * ldq, *Vb = Kb + 2 * BK_ATT_BK * ldq;
    unsigned char *shares = (unsigned char *)(Vb + 2 * BK_ATT_BK * ldv);
    const bk_split_share<T> my = bk_split_at<T>(shares, warp, DV);
    float *Sw = my.s, *Ow = my.o, *wm = my.m, *wl = my.l, *wa = my.a;
    T *Pw = my.p;
    const long long q0 = (long long)blockIdx.x * BK_SPL_BQ, h = blockIdx.y, b = blockIdx.z;
    const T *kb = k + b * a.k[0] + h / a.rep * a.k[1], *vb = v + b * a.v[0] + h / a.rep * a.v[1];
    const int tiles = (int)((a.skv + BK_ATT_BK - 1) / BK_ATT_BK);
    bk_tile_async(Qs, ldq, q + b * a.q[0] + h * a.q[1] + q0 * a.q[2], a.q[2], a.q[3], BK_SPL_BQ,
                  a.sq - q0 < BK_SPL_BQ ? (int)(a.sq - q0) : BK_SPL_BQ, D, tid, nt);
    for (int e = lane; e < 16 * ldo; e += 32)
        Ow[e] = 0.0f;
    if (lane < 16) {
        wm[lane] = -INFINITY;
        wl[lane] = 0.0f;
    }
    for (int t = 0; t <= tiles; t++) {
        /* tile t lands in buffer t & 1 while tile t - 1 is worked on */
        if (t < tiles) {
            const long long j0 = (long long)t * BK_ATT_BK;
            const int keys = a.skv - j0 < BK_ATT_BK ? (int)(a.skv - j0) : BK_ATT_BK;
            bk_tile_async(Kb + (t & 1) * BK_ATT_BK * ldq, ldq, kb + j0 * a.k[2], a.k[2], a.k[3], BK_ATT_BK, keys, D, tid, nt);
            bk_tile_async(Vb + (t & 1) * BK_ATT_BK * ldv, ldv, vb + j0 * a.v[2], a.v[2], a.v[3], BK_ATT_BK, keys, DV, tid, nt);
            __pipeline_commit();
        }
        if (t == 0)
            continue;
        if (t < tiles)
            __pipeline_wait_prior(1);
        else
            __pipeline_wait_prior(0);
        __syncthreads();
        const int u = t - 1;
        const long long kw = (long long)u * BK_ATT_BK + BK_SPL_KW * warp; /* this warp's first key */
        if (kw < a.skv) {
            const T *Kw = Kb + (u & 1) * BK_ATT_BK * ldq + BK_SPL_KW * warp * ldq;
            const T *Vw = Vb + (u & 1) * BK_ATT_BK * ldv + BK_SPL_KW * warp * ldv;
            bk_att_scores<T, TC>(Sw, lds, Qs, Kw, ldq, D, lane);
            __syncwarp();
            /* the online softmax over the warp's 16 keys: two lanes a row, 8 keys each */
            bk_att_softmax<T, BK_SPL_KW / 2>(a, mask, b, h, q0, kw, Sw, lds, Pw, ldp, wm, wl, wa, lane);
            __syncwarp();
            bk_att_pv<T, TC>(Ow, ldo, wa, Pw, ldp, Vw, ldv, DV, BK_SPL_KW, lane);
        }
        __syncthreads(); /* buffer u & 1 is free for tile t + 1 */
    }
    if (tiles == 0) { /* no keys: only Q's copy to wait for, in a group of its own */
        __pipeline_commit();
        __pipeline_wait_prior(0);
        __syncthreads();
    }
    /* merge the warps' rows: each scaled by exp(its maximum - the overall one) */
    for (int e = tid; e < BK_SPL_BQ * DV; e += nt) {
        const int r = e / DV, c = e - r * DV;
        const long long i = q0 + r;
        if (i >= a.sq)
            continue;
        float mw[BK_ATT_WARPS], mx = -INFINITY;
#pragma unroll
        for (int w = 0; w < BK_ATT_WARPS; w++) {
            mw[w] = bk_split_at<T>(shares, w, DV).m[r];
            mx = fmaxf(mx, mw[w]);
        }
        const float base = mx == -INFINITY ? 0.0f : mx;
        float l = 0.0f, acc = 0.0f;
#pragma unroll
        for (int w = 0; w < BK_ATT_WARPS; w++) {
            const bk_split_share<T> sh = bk_split_at<T>(shares, w, DV);
            const float f = expf(mw[w] - base);
            l += sh.l[r] * f;
            acc += sh.o[r * ldo + c] * f;
        }
        o[b * a.o[0] + h * a.o[1] + i * a.o[2] + c * a.o[3]] = bk_t<T>(acc / l);
    }
}

/* TC: on Tensor Cores (f16, bf16; float is TF32), where the GPU has them (else it traps: bk_setup
 * reports the benchmark unsupported there); else f32 on CUDA cores */
template <typename T, bool TC>
__global__ void __launch_bounds__(BK_ATT_WARPS * 32) bk_attention_split(const T *q, const T *k, const T *v,
                                                                       const void *mask, T *o, const bk_att a)
{
#if defined(__CUDA_ARCH__)
    if constexpr (!TC || __CUDA_ARCH__ >= bk_tc_arch<T>::min)
        bk_attention_split_body<T, TC>(q, k, v, mask, o, a);
    else
        __trap();
#endif
}

/* One query row's outputs (all dv of them) into OUT: the scores in double, the softmax, P V */
template <typename T>
static void bk_att_ref_row(const struct bk_op *op, void *const *in, long long b, long long h, long long i, double *s,
                           double *out)
{
    const T *q = (const T *)in[0], *k = (const T *)in[1], *v = (const T *)in[2];
    const long long rep = op->arep > 1 ? op->arep : 1; /* K and V head h / rep */
    double mx = -INFINITY;
    for (long long j = 0; j < op->askv; j++) {
        double dot = 0;
        for (long long d = 0; d < op->ad; d++)
            dot += (double)bk_f(q[b * op->aq[0] + h * op->aq[1] + i * op->aq[2] + d * op->aq[3]]) *
                   (double)bk_f(k[b * op->ak[0] + h / rep * op->ak[1] + j * op->ak[2] + d * op->ak[3]]);
        double x = dot * op->ascale;
        long long at = b * op->am[0] + h * op->am[1] + i * op->am[2] + j * op->am[3];
        if (op->amask == 1)
            x += bk_f(((const T *)in[3])[at]);
        else if (op->amask == 2 && (((const unsigned char *)in[3])[at] != 0) == (op->afill_when != 0))
            x = op->afill;
        s[j] = x;
        mx = x > mx ? x : mx;
    }
    double sum = 0;
    for (long long j = 0; j < op->askv; j++) {
        s[j] = exp(s[j] - mx);
        sum += s[j];
    }
    for (long long c = 0; c < op->adv; c++) {
        double acc = 0;
        for (long long j = 0; j < op->askv; j++)
            acc += s[j] * (double)bk_f(v[b * op->av[0] + h / rep * op->av[1] + j * op->av[2] + c * op->av[3]]);
        out[c] = acc / sum;
    }
}

/* ---- the benchmark ---- */

struct bk_state {
    const struct bk_op *op;
    void *din[BK_MAX_CAT], *dout;        /* device buffers */
    void *dsum;                          /* BK_LAYERNORM's kept residual sum (keep_sum) */
    void *hin[BK_MAX_CAT];               /* host copies of the inputs (for --verify) */
    int nin;
    bk_args args;
    bk_cat_args cat;
#if BK_KINDS & BK_K_PLAIN
    bk_split_args split;                 /* BK_PLAIN's PL_SPLIT */
    bk_scatter_args scatter;             /* BK_PLAIN's PL_SCATTER_ND */
#endif
    long long rows, cols;
    int grid;
    bk_att att;                          /* BK_ATTENTION */
    int att_tc;                          /* on Tensor Cores (bk_attention_tc, or bk_attention_split's WMMA) */
    int att_split;                       /* bk_attention_split (op->asplit) */
    size_t att_smem;
};

static int bk_grid(struct bc_state *s, long long n)
{
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, s->dev);
    long long blocks = (n + BK_THREADS - 1) / BK_THREADS, cap = (long long)(sms > 0 ? sms : 80) * 32;
    return (int)(blocks < 1 ? 1 : blocks > cap ? cap : blocks);
}

/* BK_RESIZE: the coordinate transformation of the layer (pl.rs: its mode, rounding, scales) */
static bk_rs bk_resize_rs(const struct bk_op *op)
{
    const struct pl_op *pl = &op->pl;
    int nd = pl->out.nd;
    bk_rs rs = {(float)pl->rs.scale[nd - 2], (float)pl->rs.scale[nd - 1], pl->rs.coord, pl->rs.nearest};
    return rs;
}

/* the kernel's inputs: described by the op; filled on the host like plain_ops.h does */
static const struct pl_tensor *bk_input(const struct bk_op *op, int i)
{
    if (BK_KIND_OF(op) == BK_CONCAT)
        return &op->cat[i];
    return &op->pl.in[i];
}

static enum bh_status bk_upload(struct bc_state *s, struct bk_state *k, int i, const struct pl_tensor *t, int fill,
                                struct bh_result *r)
{
    long long n = pl_count(t);
    size_t bytes = (size_t)(n ? n : 1) * pl_esize(t->dtype);
    k->hin[i] = malloc(bytes);
    if (!k->hin[i]) {
        bh_note(r, "out of host memory");
        return BH_OOM;
    }
    unsigned seed = 12345u + 7919u * (unsigned)i;
    for (long long e = 0; e < n; e++) {
        double v = (double)bc_rand(&seed);
        if (fill == BC_FILL_INDEX) {
            long long dim = k->op->pl.in[0].d[k->op->pl.axis];
            v = (double)(long long)(v * (double)dim) - (e % 3 == 0 ? (double)dim : 0); /* negative ones too */
        } else if (t->dtype == PL_BOOL) {
            v = v < 0.5;
        } else if (!pl_is_float(t->dtype)) {
            /* as plain_ops.h: [-8, 8), unsigned types [0, 16), no zero divisor, [1, 16) positive */
            int unsig = pl_is_unsigned(t->dtype), div = k->op->pl.fn == PL_DIV || k->op->pl.fn == PL_MOD;
            v = fill == BC_FILL_POSITIVE ? (double)(long long)(v * 15) + 1
                                         : (double)(long long)(v * 16) - (unsig ? 0 : 8) + (div ? (unsig ? 1 : 17) : 0);
            if (k->op->pl.fn == PL_POW && i == 1 && !pl_is_float(k->op->pl.in[0].dtype))
                v = fabs(v); /* an integer to a negative power is no integer */
        } else {
            v = fill == BC_FILL_POSITIVE ? 0.5 + v : 2 * v - 1;
        }
        pl_store(k->hin[i], t->dtype, e, v);
    }
    BC_CUDA(r, cudaMalloc(&k->din[i], bytes));
    BC_CUDA(r, cudaMemcpy(k->din[i], k->hin[i], bytes, cudaMemcpyHostToDevice));
    (void)s;
    return BH_OK;
}

/* The attention kernel bk_att_setup chose for storage type T (NULL where this file does not
 * compile it): its address serves both cudaFuncSetAttribute and cudaLaunchKernel */
template <typename T> static const void *bk_att_kernel(const struct bk_state *k)
{
    constexpr bool half = sizeof(T) == 2, tc = half || (BK_TYPES & BK_T_TF32), cuda = half || (BK_TYPES & BK_T_F32);
    constexpr bool split = BK_ATTS & 0x2u, whole = BK_ATTS & 0x1u;
    if constexpr (split)
        if (k->att_split) {
            if constexpr (tc)
                if (k->att_tc)
                    return (const void *)bk_attention_split<T, true>;
            if constexpr (!half && cuda)
                if (!k->att_tc)
                    return (const void *)bk_attention_split<T, false>;
        }
    if constexpr (whole)
        if (!k->att_split) {
            if constexpr (tc)
                if (k->att_tc)
                    return (const void *)bk_attention_tc<T>;
            if constexpr (cuda)
                if (!k->att_tc)
                    return (const void *)bk_attention_rows<T>;
        }
    return NULL;
}

static const void *bk_att_fn(const struct bk_state *k)
{
    switch (k->op->pl.out.dtype) {
#if (BK_KINDS & BK_K_ATTENTION) && (BK_TYPES & (BK_T_F32 | BK_T_TF32))
    case PL_FLOAT:
        return bk_att_kernel<float>(k);
#endif
#if (BK_KINDS & BK_K_ATTENTION) && (BK_TYPES & BK_T_F16)
    case PL_FLOAT16:
        return bk_att_kernel<__half>(k);
#endif
#if (BK_KINDS & BK_K_ATTENTION) && (BK_TYPES & BK_T_BF16)
    case PL_BFLOAT16:
        return bk_att_kernel<__nv_bfloat16>(k);
#endif
    default:
        (void)k;
        return NULL;
    }
}

/* the kernels' view of an attention op */
static bk_att bk_att_of(const struct bk_op *op)
{
    bk_att a;
    a.b = op->ab, a.h = op->ah, a.sq = op->asq, a.skv = op->askv, a.d = op->ad, a.dv = op->adv;
    a.rep = op->arep > 1 ? op->arep : 1;
    for (int d = 0; d < 4; d++) {
        a.q[d] = op->aq[d];
        a.k[d] = op->ak[d];
        a.v[d] = op->av[d];
        a.o[d] = op->ao[d];
        a.m[d] = op->am[d];
    }
    a.mask = op->amask;
    a.fill_when = op->afill_when;
    a.scale = op->ascale;
    a.fill = op->afill;
    return a;
}

/* BK_ATTENTION: Q, K, V (and the mask) as flat buffers of the sizes gen recorded, filled like
 * the other inputs; the output in the layout the strides give. Tensor Cores for f16 and bf16
 * where the head sizes are multiples of 16 up to 128 and the GPU has them and the shared
 * memory; else the row kernel. */
static enum bh_status bk_att_setup(struct bc_state *s, struct bk_state *k, struct bh_result *r)
{
    const struct bk_op *op = k->op;
    int dt = op->pl.out.dtype;
    if (dt != PL_FLOAT && dt != PL_FLOAT16 && dt != PL_BFLOAT16) {
        bh_note(r, "attention in data type %d: no kernel (a gen bug)", dt);
        return BH_ERROR;
    }
    if (op->ad > BK_ATT_MAXD || op->adv > BK_ATT_MAXD) {
        bh_note(r, "head sizes %lld and %lld: the attention kernels take up to %d", op->ad, op->adv, BK_ATT_MAXD);
        return BH_UNSUPPORTED;
    }
    long long elems[4] = {op->aq_elems, op->ak_elems, op->av_elems, op->am_elems};
    k->nin = op->amask ? 4 : 3;
    enum bh_status st;
    for (int i = 0; i < k->nin; i++) {
        struct pl_tensor t = {i == 3 && op->amask == 2 ? PL_BOOL : dt, 1, {elems[i]}};
        if ((st = bk_upload(s, k, i, &t, BC_FILL_UNIFORM, r)) != BH_OK)
            return st;
    }
    long long n = pl_count(&op->pl.out);
    BC_CUDA(r, cudaMalloc(&k->dout, (size_t)(n ? n : 1) * pl_esize(dt)));
    k->att = bk_att_of(op);
    bk_att *a = &k->att;
    if (a->h > 65535 || a->b > 65535) {
        bh_note(r, "%lld heads x %lld batch: more than a grid's y and z dims hold", a->h, a->b);
        return BH_UNSUPPORTED;
    }
    int major = 0, minor = 0, optin = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, s->dev);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, s->dev);
    cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, s->dev);
    int cc = major * 100 + minor * 10;
    size_t smem = bk_att_smem(a->d, a->dv, pl_esize(dt));
    bool shapes = a->d % 16 == 0 && a->dv % 16 == 0 && a->d <= 128 && a->dv <= 128;
    bool arch = dt == PL_FLOAT16    ? cc >= bk_tc_arch<__half>::min
                : dt == PL_BFLOAT16 ? cc >= bk_tc_arch<__nv_bfloat16>::min
                                    : op->tf32 && cc >= bk_tc_arch<float>::min;
    if (op->asplit) {
        /* this file is bk_attention_split's: where it cannot run, unsupported (the kernel file
         * beside it has the others) */
        bool tc = dt != PL_FLOAT || op->tf32;
        smem = bk_att_split_smem(a->d, a->dv, pl_esize(dt));
        const char *why = !shapes      ? "head sizes not multiples of 16 up to 128"
                          : tc && !arch ? (dt == PL_FLOAT16 ? "f16 Tensor Cores need compute capability 7.0"
                                                            : "bf16 and TF32 Tensor Cores need compute capability 8.0")
                          : smem > (size_t)optin ? "more shared memory than a block may have"
                                                 : NULL;
        if (why) {
            bh_note(r, "no bk_attention_split here: %s", why);
            return BH_UNSUPPORTED;
        }
        k->att_split = 1;
        k->att_tc = tc;
        if (tc)
            snprintf(r->math, sizeof(r->math), "%s", "tensor_op");
        bh_note(r, "bk_attention_split: %d queries a block, its %d warps %d keys each of every %d-key tile, %s, %zu bytes of shared memory",
                BK_SPL_BQ, BK_ATT_WARPS, BK_SPL_KW, BK_ATT_BK,
                !tc ? "CUDA cores" : dt == PL_FLOAT ? "WMMA 16x16x8 TF32" : "WMMA 16x16x16", smem);
    } else {
        k->att_tc = (dt != PL_FLOAT || op->tf32) && shapes && arch && smem <= (size_t)optin;
        if (op->tf32 && !k->att_tc) {
            bh_note(r, "no TF32 attention kernel here: %s", dt != PL_FLOAT ? "not f32 data (a gen bug)"
                        : !shapes ? "head sizes not multiples of 16 up to 128"
                        : !arch   ? "TF32 Tensor Cores need compute capability 8.0"
                                  : "more shared memory than a block may have");
            return dt != PL_FLOAT ? BH_ERROR : BH_UNSUPPORTED;
        }
        if (k->att_tc) {
            snprintf(r->math, sizeof(r->math), "%s", "tensor_op");
            bh_note(r, "bk_attention_tc: WMMA 16x16x%d%s, %d queries x %d keys a tile, %zu bytes of shared memory",
                    dt == PL_FLOAT ? 8 : 16, dt == PL_FLOAT ? " TF32" : "", BK_ATT_BQ, BK_ATT_BK, smem);
        } else {
            smem = bk_att_rows_smem(a->d, a->dv);
            if (smem > (size_t)optin) {
                bh_note(r, "head sizes %lld and %lld: %zu bytes of shared memory, more than a block may have (%d)", a->d,
                        a->dv, smem, optin);
                return BH_UNSUPPORTED;
            }
            bh_note(r, "bk_attention_rows: a warp per query row, 32 keys and values a tile in shared memory (%zu bytes)%s",
                    smem, dt == PL_FLOAT ? "" : shapes ? " (no Tensor Cores of this type here)"
                                                     : " (head sizes not multiples of 16 up to 128)");
        }
    }
    k->att_smem = smem;
    const void *fn = bk_att_fn(k);
    if (!fn) {
        bh_note(r, "this file does not compile the attention kernel it needs (BK_TYPES 0x%x, BK_ATTS 0x%x): a gen bug",
                (unsigned)BK_TYPES, (unsigned)BK_ATTS);
        return BH_ERROR;
    }
    /* beyond the 48 KB a block gets without asking */
    BC_CUDA(r, cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    return BH_OK;
}

static enum bh_status bk_not_compiled(struct bh_result *r, int kind, int dtype);

static enum bh_status bk_setup(struct bc_state *s, struct bh_result *r)
{
    const struct bk_op *op = (const struct bk_op *)s->op;
    struct bk_state *k = (struct bk_state *)calloc(1, sizeof(*k));
    if (!k) {
        bh_note(r, "out of host memory");
        return BH_OOM;
    }
    s->family = k;
    k->op = op;
    bc_lib(r, "benanza CUDA kernels");
    const struct pl_op *pl = &op->pl;
    /* a kind this file's host code was not compiled for (BK_KIND_OF, pl_kind_compiled) */
    if (BK_KIND_OF(op) != op->kind || (op->kind == BK_PLAIN && !pl_kind_compiled(pl)))
        return bk_not_compiled(r, op->kind, pl->out.dtype);
    if (BK_KIND_OF(op) == BK_ATTENTION)
        return bk_att_setup(s, k, r);
#ifdef BK_FN
    if (BK_KIND_OF(op) == BK_PLAIN && (PL_KIND_OF(pl) == PL_UNARY || PL_KIND_OF(pl) == PL_BINARY) && pl->fn != BK_FN) {
        bh_note(r, "function %d is not the one compiled into this file (BK_FN %d): a gen bug", pl->fn, (int)BK_FN);
        return BH_ERROR;
    }
#endif
    k->nin = BK_KIND_OF(op) == BK_CONCAT ? op->ncat
             : BK_KIND_OF(op) == BK_LAYERNORM ? (!op->affine ? 1 : op->rms ? 2 : 3 + op->residual)
             : BK_KIND_OF(op) == BK_PLAIN ? pl->nin : BK_KIND_OF(op) == BK_BATCHNORM ? 5 : BK_KIND_OF(op) == BK_EMPTY ? 0 : 1;
    enum bh_status st;
    for (int i = 0; i < k->nin; i++) {
        int fill = BK_KIND_OF(op) == BK_PLAIN && PL_KIND_OF(pl) == PL_GATHER && i == 1 ? BC_FILL_INDEX
                   : (BK_KIND_OF(op) == BK_PLAIN && pl_positive_domain(pl)) ||
                             (BK_KIND_OF(op) == BK_BATCHNORM && i == 4)
                       ? BC_FILL_POSITIVE : BC_FILL_UNIFORM;
        const struct pl_tensor *t = bk_input(op, i);
        struct pl_tensor vec = {pl->out.dtype, 1, {pl->out.d[pl->out.nd - 1]}};
        if (BK_KIND_OF(op) == BK_LAYERNORM && i > 0)
            t = i == 3 ? &pl->in[0] : &vec; /* the residual is like x; scale, shift, bias rows of y's type */
        struct pl_tensor chan = {PL_FLOAT, 1, {pl->out.d[1]}};
        if (BK_KIND_OF(op) == BK_BATCHNORM && i > 0)
            t = &chan; /* scale, B, mean, var: f32 rows of the channels (var positive) */
        if ((st = bk_upload(s, k, i, t, fill, r)) != BH_OK)
            return st;
        if (BK_KIND_OF(op) == BK_PLAIN && PL_KIND_OF(pl) == PL_SCATTER_ND && i == 1) {
            /* distinct valid rows, as the plain C benchmark's */
            pl_scatter_nd_rows(pl, (int64_t *)k->hin[1]);
            BC_CUDA(r, cudaMemcpy(k->din[1], k->hin[1], (size_t)pl_count(t) * sizeof(int64_t), cudaMemcpyHostToDevice));
        }
    }
    long long n = pl_count(&pl->out);
    BC_CUDA(r, cudaMalloc(&k->dout, (size_t)(n ? n : 1) * pl_esize(pl->out.dtype)));
    k->grid = bk_grid(s, n);
    bk_args *a = &k->args;
    a->nd = pl->out.nd;
    a->n = n;
    for (int d = 0; d < a->nd; d++)
        a->od[d] = pl->out.d[d];
    a->out = k->dout;
    a->odt = pl->out.dtype;
    a->fn = pl->fn;
    a->kind = PL_KIND_OF(pl);
    a->map = pl->map;
    a->mode = PL_KIND_OF(pl) == PL_MAP || PL_KIND_OF(pl) == PL_ROPE ? pl->flag : 0;
    a->alpha = pl->fn == PL_MOD || pl->fn == PL_ISINF || pl->fn == PL_BITSHIFT ? (float)pl->flag : pl->alpha;
    a->beta = pl->beta;
    for (int i = 0; i < 3 && i < k->nin; i++) {
        a->in[i] = k->din[i];
        a->idt[i] = bk_input(op, i)->dtype;
    }
    if (BK_KIND_OF(op) == BK_PLAIN && PL_KIND_OF(pl) == PL_MAP) {
        /* input strides in st[0], the input's dims in st[1] */
        long long acc = 1;
        for (int d = a->nd - 1; d >= 0; d--) {
            a->st[0][d] = acc;
            a->st[1][d] = pl->in[0].d[d];
            acc *= pl->in[0].d[d];
            a->start[d] = pl->start[d];
            a->step[d] = pl->step[d];
        }
#if BK_KINDS & BK_K_PLAIN
    } else if (BK_KIND_OF(op) == BK_PLAIN && PL_KIND_OF(pl) == PL_SPLIT) {
        bk_split_args *sp = &k->split;
        int64_t outer, dim, inner;
        pl_axis_split(&pl->in[0], pl->axis, &outer, &dim, &inner);
        sp->x = k->din[0];
        sp->y = k->dout;
        sp->outer = outer;
        sp->dim = dim;
        sp->inner = inner;
        sp->n = pl->nsplit;
        sp->es = (int)pl_esize(pl->in[0].dtype);
        for (int j = 0; j < pl->nsplit; j++)
            sp->off[j + 1] = sp->off[j] + pl->split[j];
    } else if (BK_KIND_OF(op) == BK_PLAIN && PL_KIND_OF(pl) == PL_SCATTER_ND) {
        bk_scatter_args *sc = &k->scatter;
        const struct pl_tensor *x = &pl->in[0], *ix = &pl->in[1];
        sc->upd = k->din[2];
        sc->idx = (const long long *)k->din[1];
        sc->y = k->dout;
        sc->q = (int)ix->d[ix->nd - 1];
        sc->rows = pl_count(ix) / sc->q;
        sc->slice = 1;
        for (int d = sc->q; d < x->nd; d++)
            sc->slice *= x->d[d];
        for (long long d = sc->q - 1, acc = sc->slice; d >= 0; d--) {
            sc->dims[d] = x->d[d];
            sc->stride[d] = acc;
            acc *= x->d[d];
        }
        sc->es = (int)pl_esize(x->dtype);
        sc->how = pl->flag;
#endif
    } else if (BK_KIND_OF(op) == BK_PLAIN && PL_KIND_OF(pl) != PL_GATHER) {
        a->flat = 1;
        for (int i = 0; i < pl->nin; i++) {
            int64_t st8[8];
            pl_bcast_strides(&pl->in[i], &pl->out, st8);
            for (int d = 0; d < a->nd; d++)
                a->st[i][d] = st8[d];
            a->flat &= pl_count(&pl->in[i]) == n;
        }
        if (pl_halves(pl)) {
            /* the gate and the up halves of the one input, both at its strides (never flat:
             * the input is twice the output) */
            int64_t gate, up;
            pl_halves_at(pl, &gate, &up);
            size_t es = pl_esize(pl->in[0].dtype);
            a->in[0] = (const char *)k->din[0] + gate * (int64_t)es;
            a->in[1] = (const char *)k->din[0] + up * (int64_t)es;
            a->idt[1] = pl->in[0].dtype;
            for (int d = 0; d < a->nd; d++)
                a->st[1][d] = a->st[0][d];
        }
        if (!a->flat && PL_KIND_OF(pl) != PL_ROPE) { /* PL_ROPE: its last dim must stay the rotated one */
            int nops = pl_operands(pl);
            bk_coalesce(a, nops < 3 ? nops : 3);
            a->periodic = bk_periods(a, nops);
        }
    } else if (BK_KIND_OF(op) == BK_TRANSPOSE) {
        /* output dim d reads input dim perm[d]: its stride in the input */
        long long istr[8], acc = 1;
        for (int d = pl->in[0].nd - 1; d >= 0; d--) {
            istr[d] = acc;
            acc *= pl->in[0].d[d];
        }
        for (int d = 0; d < a->nd; d++)
            a->st[0][d] = istr[op->perm[d]];
        bk_coalesce(a, 1);
    } else if (BK_KIND_OF(op) == BK_CONCAT) {
        bk_cat_args *c = &k->cat;
        c->n = op->ncat;
        c->outer = c->inner = 1;
        for (int d = 0; d < op->axis; d++)
            c->outer *= pl->out.d[d];
        for (int d = op->axis + 1; d < pl->out.nd; d++)
            c->inner *= pl->out.d[d];
        for (int i = 0; i < op->ncat; i++) {
            c->in[i] = k->din[i];
            c->off[i + 1] = c->off[i] + op->cat[i].d[op->axis];
        }
        c->total = c->off[op->ncat];
    } else if (BK_KIND_OF(op) == BK_LAYERNORM) {
        k->cols = pl->out.d[pl->out.nd - 1];
        k->rows = n / (k->cols ? k->cols : 1);
        if (op->residual && op->keep_sum)
            BC_CUDA(r, cudaMalloc(&k->dsum, (size_t)(n ? n : 1) * pl_esize(pl->out.dtype)));
    }
    return BH_OK;
}

/* a kind or type this file's BK_KINDS and BK_TYPES leave out: gen wrote a wrong file */
static enum bh_status bk_not_compiled(struct bh_result *r, int kind, int dtype)
{
    bh_note(r, "kernel kind %d in data type %d is not compiled into this file (BK_KINDS 0x%02x, BK_TYPES 0x%x): a gen bug",
            kind, dtype, (unsigned)BK_KINDS, (unsigned)BK_TYPES);
    return BH_ERROR;
}

/* F(a T) for the float type DT where this file compiles it (BK_TYPES): T is float, __half or
 * __nv_bfloat16; false where the file leaves DT out */
template <typename F> static bool bk_typed(int dt, F &&f)
{
    switch (dt) {
#if BK_TYPES & (BK_T_F32 | BK_T_TF32)
    case PL_FLOAT: f(0.0f); return true;
#endif
#if BK_TYPES & BK_T_F16
    case PL_FLOAT16: f(__half()); return true;
#endif
#if BK_TYPES & BK_T_BF16
    case PL_BFLOAT16: f(__nv_bfloat16()); return true;
#endif
    default: return false;
    }
}

/* BK_PLAIN's flat path (bk_flat4): walked flat or by bk_periods' blocks of whole quads, n % 4
 * == 0, every operand of the output's float type (a unary or binary op) */
static bool bk_flat_ok(const struct bk_state *k)
{
    const struct pl_op *pl = &k->op->pl;
    int dt = pl->out.dtype;
    if (!(k->args.flat || (k->args.periodic && bk_per4(k->args.per[0]) && bk_per4(k->args.per[1]))) ||
        k->args.n % 4 != 0 || (dt != PL_FLOAT && dt != PL_FLOAT16 && dt != PL_BFLOAT16) || pl->in[0].dtype != dt ||
        pl_halves(pl))
        return false;
    return PL_KIND_OF(pl) == PL_UNARY || (PL_KIND_OF(pl) == PL_BINARY && pl->in[1].dtype == dt);
}

static enum bh_status bk_launch(struct bc_state *s, struct bh_result *r)
{
    struct bk_state *k = (struct bk_state *)s->family;
    const struct bk_op *op = k->op;
    const struct pl_op *pl = &op->pl;
    cudaStream_t q = s->stream;
    const int dt = pl->out.dtype;
    switch (op->kind) {
#if BK_KINDS & BK_K_PLAIN
    case BK_PLAIN:
        if (PL_KIND_OF(pl) == PL_GATHER) {
            long long outer = 1, inner = 1, dim = pl->in[0].d[pl->axis];
            for (int d = 0; d < pl->axis; d++)
                outer *= pl->in[0].d[d];
            for (int d = pl->axis + 1; d < pl->in[0].nd; d++)
                inner *= pl->in[0].d[d];
            BK_LAUNCH(bk_gather, k->grid, BK_THREADS, 0, q)
            (k->din[0], (const long long *)k->din[1], k->dout, outer, dim, pl_count(&pl->in[1]),
             inner, (int)pl_esize(pl->in[0].dtype));
        } else if (PL_KIND_OF(pl) == PL_SPLIT) {
            BK_LAUNCH(bk_split, k->grid, BK_THREADS, 0, q)(k->split);
        } else if (PL_KIND_OF(pl) == PL_SCATTER_ND) {
            const bk_scatter_args &sc = k->scatter;
            BK_LAUNCH(bk_copy_all, k->grid, BK_THREADS, 0, q)(k->dout, k->din[0], k->args.n, sc.es);
            BK_LAUNCH(bk_scatter_nd, bk_grid(s, sc.rows * sc.slice), BK_THREADS, 0, q)(sc);
        } else if (bk_flat_ok(k)) {
            int grid = bk_grid(s, k->args.n / 4);
            if (!bk_typed(dt, [&](auto z) {
                    BK_LAUNCH(bk_flat4<decltype(z)>, grid, BK_THREADS, 0, q)(k->args);
                }))
                return bk_not_compiled(r, op->kind, dt);
        } else {
            BK_LAUNCH(bk_elementwise, k->grid, BK_THREADS, 0, q)(k->args);
        }
        break;
#endif
#if BK_KINDS & BK_K_TRANSPOSE
    case BK_TRANSPOSE:
        if (!bk_typed(dt, [&](auto z) {
                using T = decltype(z);
                BK_LAUNCH(bk_transpose<T>, k->grid, BK_THREADS, 0, q)
                ((const T *)k->din[0], (T *)k->dout, k->args);
            }))
            return bk_not_compiled(r, op->kind, dt);
        break;
#endif
#if BK_KINDS & BK_K_CONCAT
    case BK_CONCAT:
        if (!bk_typed(dt, [&](auto z) {
                using T = decltype(z);
                BK_LAUNCH(bk_concat<T>, k->grid, BK_THREADS, 0, q)((T *)k->dout, k->cat);
            }))
            return bk_not_compiled(r, op->kind, dt);
        break;
#endif
#if BK_KINDS & BK_K_RESIZE
    case BK_RESIZE: {
        const struct pl_tensor *i = &pl->in[0], *o = &pl->out;
        long long ih = i->d[i->nd - 2], iw = i->d[i->nd - 1], oh = o->d[o->nd - 2],
                  ow = o->d[o->nd - 1];
        long long c = o->nd >= 3 ? o->d[o->nd - 3] : 1;
        long long planes = pl_count(o) / (oh * ow);
        bk_rs rs = bk_resize_rs(op);
        if (!bk_typed(dt, [&](auto z) {
                using T = decltype(z);
                BK_LAUNCH(bk_resize<T>, k->grid, BK_THREADS, 0, q)
                ((const T *)k->din[0], (T *)k->dout, planes, c, ih, iw, oh, ow, op->linear,
                 op->nhwc, rs);
            }))
            return bk_not_compiled(r, op->kind, dt);
        break;
    }
#endif
#if BK_KINDS & BK_K_EMPTY
    case BK_EMPTY:
        BK_LAUNCH(bk_empty, 1, 32, 0, q)();
        break;
#endif
#if BK_KINDS & BK_K_LAYERNORM
    case BK_LAYERNORM: {
        /* a row a block; the row in registers where it fits 8 elements a thread (BERT's 768
         * columns: 3 each of 256 threads), else read again for each pass */
        int threads = k->cols >= 1024 ? 1024 : k->cols >= 256 ? 256 : 128;
        int per = (int)((k->cols + threads - 1) / threads);
        if (!bk_typed(dt, [&](auto z) {
                using T = decltype(z);
                const T *x = (const T *)k->din[0], *sc = k->nin > 1 ? (const T *)k->din[1] : NULL,
                        *sh = k->nin > 2 ? (const T *)k->din[2] : NULL;
                const T *res = k->nin > 3 ? (const T *)k->din[3] : NULL, *bias = k->nin > 4 ? (const T *)k->din[4] : NULL;
                T *y = (T *)k->dout, *sum = (T *)k->dsum;
                unsigned rows = (unsigned)k->rows;
                switch (per) {
#define BK_LN_REG(P)                                                                                   \
    case P: {                                                                                          \
        auto kern = bk_layernorm_reg<T, P>;                                                            \
        BK_LAUNCH(kern, rows, threads, 0, q)(x, sc, sh, res, bias, y, sum, k->cols, op->eps, op->rms); \
        break;                                                                                         \
    }
                    BK_LN_REG(1) BK_LN_REG(2) BK_LN_REG(3) BK_LN_REG(4) BK_LN_REG(5) BK_LN_REG(6) BK_LN_REG(7)
                    BK_LN_REG(8)
#undef BK_LN_REG
                default:
                    BK_LAUNCH(bk_layernorm<T>, rows, threads, 0, q)(x, sc, sh, res, bias, y, sum, k->cols, op->eps,
                                                                    op->rms);
                }
            }))
            return bk_not_compiled(r, op->kind, dt);
        break;
    }
#endif
#if BK_KINDS & BK_K_BATCHNORM
    case BK_BATCHNORM: {
        bk_bn p = {(const float *)k->din[1], (const float *)k->din[2], (const float *)k->din[3], (const float *)k->din[4],
                   pl_count(&pl->out), pl->out.d[1], 1, op->nhwc, 0, op->eps};
        for (int d = 2; d < pl->out.nd; d++)
            p.inner *= pl->out.d[d];
        p.vec = p.n % 4 == 0 && (op->nhwc ? p.c % 4 == 0 : p.inner % 4 == 0);
        int grid = bk_grid(s, p.vec ? p.n / 4 : p.n);
        if (!bk_typed(dt, [&](auto z) {
                using T = decltype(z);
                BK_LAUNCH(bk_batchnorm<T>, grid, BK_THREADS, 0, q)((const T *)k->din[0], (T *)k->dout, p);
            }))
            return bk_not_compiled(r, op->kind, dt);
        break;
    }
#endif
#if BK_KINDS & BK_K_ATTENTION
    case BK_ATTENTION: {
        /* the grid: a block per 64 queries (bk_attention_tc), 16 (bk_attention_split) or 4
         * (bk_attention_rows: a warp a query), for each head and batch */
        const bk_att &a = k->att;
        const long long per = k->att_split ? (long long)BK_SPL_BQ : k->att_tc ? (long long)BK_ATT_BQ : (long long)BK_ATT_WARPS;
        dim3 grid((unsigned)((a.sq + per - 1) / per), (unsigned)a.h, (unsigned)a.b);
        const void *fn = bk_att_fn(k), *m = k->nin > 3 ? k->din[3] : NULL;
        if (!fn)
            return bk_not_compiled(r, op->kind, dt);
        void *args[] = {&k->din[0], &k->din[1], &k->din[2], (void *)&m, &k->dout, (void *)&a};
        BC_CUDA(r, cudaLaunchKernel(fn, grid, dim3(BK_ATT_WARPS * 32), args, k->att_smem, q));
        break;
    }
#endif
    default:
        return bk_not_compiled(r, op->kind, dt);
    }
    BC_CUDA(r, cudaGetLastError());
    return BH_OK;
}

/* BK_LAYERNORM's residual sum at element I, as bk_layernorm stores it: x + residual [+ bias]
 * added in float, in that order, and rounded to the output's type (bits: --verify compares the
 * kept sum exactly) */
static float bk_ln_sum(const struct bk_op *op, void *const *in, long long i)
{
    int dt = op->pl.out.dtype;
    long long cols = op->pl.out.d[op->pl.out.nd - 1];
    float v = (float)pl_load(in[0], dt, i) + (float)pl_load(in[3], dt, i);
    if (op->residual == 2)
        v += (float)pl_load(in[4], dt, i % cols);
    return dt == PL_FLOAT16 ? pl_f16_to_f32(pl_f32_to_f16(v)) : dt == PL_BFLOAT16 ? pl_bf16_to_f32(pl_f32_to_bf16(v)) : v;
}

/* the value BK_LAYERNORM normalises at element I: x, or the residual sum */
static double bk_ln_x(const struct bk_op *op, void *const *in, long long i)
{
    return op->residual ? (double)bk_ln_sum(op, in, i) : pl_load(in[0], op->pl.out.dtype, i);
}

/* BK_LAYERNORM's statistics of one row on the host, in double: its mean and sqrt(variance +
 * eps). bk_reference keeps the last row's here, for the next element of the same row: each is
 * worked out once a row, not once an element (which made --verify of a [128, 768] LayerNorm
 * 150 million loads). A caller passes one, its row -1, per operation and inputs. */
struct bk_ln_row {
    long long row;
    double mean, sd;
};

/* The host's answer for the kernels plain_ops.h does not describe; LN: a LayerNorm's last row */
static double bk_reference(const struct bk_op *op, void *const *in, long long i, struct bk_ln_row *ln)
{
    const struct pl_op *pl = &op->pl;
    const struct pl_tensor *o = &pl->out;
    long long coord[8], rem = i;
    for (int d = o->nd - 1; d >= 0; d--) {
        coord[d] = rem % o->d[d];
        rem /= o->d[d];
    }
    if (BK_KIND_OF(op) == BK_TRANSPOSE) {
        long long src = 0, icoord[8];
        for (int d = 0; d < o->nd; d++)
            icoord[op->perm[d]] = coord[d];
        for (int d = 0; d < pl->in[0].nd; d++)
            src = src * pl->in[0].d[d] + icoord[d];
        return pl_load(in[0], o->dtype, src);
    }
    if (BK_KIND_OF(op) == BK_RESIZE) {
        /* the same sampling rule, in plain C on the host */
        const struct pl_tensor *t = &pl->in[0];
        long long ih = t->d[t->nd - 2], iw = t->d[t->nd - 1], oh = o->d[o->nd - 2], ow = o->d[o->nd - 1];
        long long c = o->nd >= 3 ? o->d[o->nd - 3] : 1;
        bk_rs rs = bk_resize_rs(op);
        if (o->dtype == PL_FLOAT16)
            return bk_resize_elem((const __half *)in[0], i, c, ih, iw, oh, ow, op->linear, op->nhwc, rs);
        if (o->dtype == PL_BFLOAT16)
            return bk_resize_elem((const __nv_bfloat16 *)in[0], i, c, ih, iw, oh, ow, op->linear, op->nhwc, rs);
        return bk_resize_elem((const float *)in[0], i, c, ih, iw, oh, ow, op->linear, op->nhwc, rs);
    }
    if (BK_KIND_OF(op) == BK_CONCAT) {
        long long c = coord[op->axis];
        int k = 0;
        while (c >= op->cat[k].d[op->axis]) {
            c -= op->cat[k].d[op->axis];
            k++;
        }
        long long src = 0;
        for (int d = 0; d < o->nd; d++)
            src = src * op->cat[k].d[d] + (d == op->axis ? c : coord[d]);
        return pl_load(in[k], o->dtype, src);
    }
    if (BK_KIND_OF(op) == BK_BATCHNORM) {
        /* in double from the model's statistics: (x - mean) / sqrt(var + eps) * scale + B */
        long long c = o->d[1], inner = 1;
        for (int d = 2; d < o->nd; d++)
            inner *= o->d[d];
        long long ch = op->nhwc ? i % c : (i / inner) % c;
        const float *scale = (const float *)in[1], *shift = (const float *)in[2], *mean = (const float *)in[3],
                    *var = (const float *)in[4];
        return (pl_load(in[0], o->dtype, i) - mean[ch]) / sqrt((double)var[ch] + op->eps) * scale[ch] + shift[ch];
    }
    /* LayerNorm: the row's statistics in double, of x or of the residual sum as the kernel
     * stores it (bk_ln_sum); an RMSNorm's mean is 0, its variance the mean square */
    long long cols = o->d[o->nd - 1], row = i / cols;
    if (ln->row != row) {
        double mean = 0, var = 0;
        for (long long c = 0; c < cols && !op->rms; c++)
            mean += bk_ln_x(op, in, row * cols + c);
        mean /= (double)cols;
        for (long long c = 0; c < cols; c++) {
            double d = bk_ln_x(op, in, row * cols + c) - mean;
            var += d * d;
        }
        var /= (double)cols;
        ln->row = row;
        ln->mean = mean;
        ln->sd = sqrt(var + op->eps);
    }
    double v = (bk_ln_x(op, in, i) - ln->mean) / ln->sd;
    if (op->affine)
        v = v * pl_load(in[1], o->dtype, i % cols) + (op->rms ? 0.0 : pl_load(in[2], o->dtype, i % cols));
    return v;
}

/* BK_ATTENTION's answer on the host, in double, stored in the output's type at its strides */
static enum bh_status bk_att_reference(const struct bk_op *op, void *const *in, void *want)
{
    double *s = (double *)malloc((size_t)op->askv * sizeof(double)), *row = (double *)malloc((size_t)op->adv * sizeof(double));
    if (!s || !row) {
        free(s);
        free(row);
        return BH_OOM;
    }
    int dt = op->pl.out.dtype;
    for (long long b = 0; b < op->ab; b++)
        for (long long h = 0; h < op->ah; h++)
            for (long long i = 0; i < op->asq; i++) {
                if (dt == PL_FLOAT)
                    bk_att_ref_row<float>(op, in, b, h, i, s, row);
                else if (dt == PL_FLOAT16)
                    bk_att_ref_row<__half>(op, in, b, h, i, s, row);
                else
                    bk_att_ref_row<__nv_bfloat16>(op, in, b, h, i, s, row);
                for (long long c = 0; c < op->adv; c++)
                    pl_store(want, dt, b * op->ao[0] + h * op->ao[1] + i * op->ao[2] + c * op->ao[3], row[c]);
            }
    free(s);
    free(row);
    return BH_OK;
}

/* How far an attention kernel's output may be from bk_att_reference's (relative to 1 + |want|):
 * sums over the keys in another order; on Tensor Cores the probabilities are rounded to the
 * type before P V (a step of 2^-11 or 2^-8 each); in TF32 Q, K, V and the probabilities are
 * each rounded to 10 mantissa bits (2^-11): a numpy model of that rounding (rna, as
 * cvt.rna.tf32.f32) for BERT's and three other shapes, uniform [-1, 1) data, errs by at most
 * 8.7e-5, and 1e-3 is one TF32 step of the output */
static double bk_att_tol(const struct bk_op *op)
{
    int dt = op->pl.out.dtype;
    return dt == PL_FLOAT16 ? 2e-3 : dt == PL_BFLOAT16 ? 1.5e-2 : op->tf32 ? 1e-3 : 1e-4;
}

/* One run on the device, the same inputs through plain C on the host, every element compared:
 * exact for copies and integer results, within a few float roundings for maths. */
static enum bh_status bk_verify_run(void *state, struct bh_result *r)
{
    struct bc_state *s = (struct bc_state *)state;
    struct bk_state *k = (struct bk_state *)s->family;
    const struct bk_op *op = k->op;
    const struct pl_op *pl = &op->pl;
    enum bh_status st = bk_launch(s, r);
    if (st != BH_OK)
        return st;
    if (BK_KIND_OF(op) == BK_EMPTY) {
        BC_CUDA(r, cudaStreamSynchronize(s->stream));
        bh_note(r, "an empty kernel: nothing to verify but that it launches");
        return BH_OK;
    }
    BC_CUDA(r, cudaStreamSynchronize(s->stream));
    long long n = pl_count(&pl->out);
    size_t es = pl_esize(pl->out.dtype), bytes = (size_t)(n ? n : 1) * es;
    void *got = malloc(bytes), *want = malloc(bytes);
    if (!got || !want) {
        free(got);
        free(want);
        bh_note(r, "out of host memory");
        return BH_OOM;
    }
    cudaError_t e = cudaMemcpy(got, k->dout, bytes, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        free(got);
        free(want);
        BC_CUDA(r, e);
    }
    if (BK_KIND_OF(op) == BK_PLAIN) {
        struct pl_state ps;
        memset(&ps, 0, sizeof(ps));
        ps.op = pl;
        for (int i = 0; i < pl->nin; i++) {
            ps.in[i] = k->hin[i];
            if (pl_elementwise(pl))
                pl_bcast_strides(&pl->in[i], &pl->out, ps.strides[i]);
        }
        pl_halves_strides(pl, ps.strides);
        ps.out = want;
        ps.flat = pl_elementwise(pl);
        for (int i = 0; i < pl->nin && ps.flat; i++)
            ps.flat = pl_count(&pl->in[i]) == n;
        pl_kernel(&ps);
    } else if (BK_KIND_OF(op) == BK_ATTENTION) {
        if (bk_att_reference(op, k->hin, want) != BH_OK) {
            free(got);
            free(want);
            bh_note(r, "out of host memory");
            return BH_OOM;
        }
    } else {
        struct bk_ln_row ln = {-1, 0.0, 0.0};
        for (long long i = 0; i < n; i++)
            pl_store(want, pl->out.dtype, i, bk_reference(op, k->hin, i, &ln));
    }
    double worst = 0;
    int maths = (BK_KIND_OF(op) == BK_PLAIN && (PL_KIND_OF(pl) == PL_UNARY || PL_KIND_OF(pl) == PL_BINARY || PL_KIND_OF(pl) == PL_ROPE)) ||
                BK_KIND_OF(op) == BK_LAYERNORM ||
                BK_KIND_OF(op) == BK_RESIZE || BK_KIND_OF(op) == BK_ATTENTION || BK_KIND_OF(op) == BK_BATCHNORM;
    for (long long i = 0; i < n; i++) {
        double g = pl_load(got, pl->out.dtype, i), w = pl_load(want, pl->out.dtype, i);
        double d = g == w ? 0.0 : fabs(g - w) / (maths ? 1.0 + fabs(w) : 1.0); /* g == w: the same infinity too */
        if (d != d && w == w)
            d = INFINITY;
        if (d > worst)
            worst = d;
    }
    /* the kept residual sum: the same float additions on the host, so the same bits */
    long long sum_bad = 0;
    if (k->dsum) {
        e = cudaMemcpy(got, k->dsum, bytes, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) {
            free(got);
            free(want);
            BC_CUDA(r, e);
        }
        for (long long i = 0; i < n; i++) {
            double want_sum = bk_ln_sum(op, k->hin, i), got_sum = pl_load(got, pl->out.dtype, i);
            sum_bad += memcmp(&want_sum, &got_sum, sizeof(want_sum)) != 0;
        }
    }
    free(got);
    free(want);
    if (sum_bad) {
        bh_note(r, "the kept residual sum differs from x + residual%s on the host in %lld of %lld elements",
                op->residual == 2 ? " + bias" : "", sum_bad, n);
        return BH_WRONG;
    }
    /* float maths in the kernel, double on the host: a relative 1e-5 in f32; in the 16-bit
     * floats the two roundings of the same value may differ by a step (2^-10 and 2^-7) */
    double tol = !maths ? 0 : pl->out.dtype == PL_FLOAT ? 1e-5 : pl->out.dtype == PL_FLOAT16 ? 1e-3
                            : pl->out.dtype == PL_BFLOAT16 ? 8e-3 : 0;
    if (BK_KIND_OF(op) == BK_ATTENTION)
        tol = bk_att_tol(op);
    if (worst > tol) {
        bh_note(r, "output differs from plain C on the host: max error %.3g (tolerance %.3g)", worst, tol);
        return BH_WRONG;
    }
    bh_note(r, "verified against plain C on the host: max error %.3g (tolerance %.3g)%s", worst, tol,
            k->dsum ? "; the kept sum bit for bit" : "");
    return BH_OK;
}

/* The verification run under the GPU lock (run_all -j): its launch and copies would otherwise
 * land inside another benchmark's timed samples. The host reference runs under it too: a few
 * milliseconds for these kernels. */
static enum bh_status bk_verify(void *state, struct bh_result *r)
{
    if (bh_gpu_lock(r) != 0)
        return BH_ERROR;
    enum bh_status st = bk_verify_run(state, r);
    bh_gpu_unlock();
    return st;
}

static void bk_teardown(struct bc_state *s)
{
    struct bk_state *k = (struct bk_state *)s->family;
    if (!k)
        return;
    for (int i = 0; i < k->nin; i++) {
        if (k->din[i])
            cudaFree(k->din[i]);
        free(k->hin[i]);
    }
    if (k->dout)
        cudaFree(k->dout);
    if (k->dsum)
        cudaFree(k->dsum);
    free(k);
    s->family = NULL;
}

#endif
