/* Host checks of two kernels of ours (runtime/cuda_kernels.cuh) against outside answers:
 *   - Split: bk_split_src, the input element each output element of bk_split copies, against the
 *     plain C Split of runtime/plain_ops.h (what --verify holds the kernel to, itself held to
 *     onnx.reference by the e2e tests), for pieces of equal and unequal sizes along every axis
 *     of 1- to 4-D inputs;
 *   - LayerNorm: bk_reference, what --verify holds bk_layernorm to, for a plain LayerNorm and a
 *     residual sum's (x + residual, and + a bias: the add_layernorm fusion group), against
 *     oneDNN's layer normalization of the same sum (forward inference, scale and shift);
 *   - the element-wise kernels' broadcast walk: bk_coalesce (fewer dimensions) and bk_positions
 *     (32- and 64-bit) against the walk over every dimension, for bias, Where, scalar and
 *     middle broadcasts; and bk_transpose's walk the same way;
 *   - bk_tile_load, the attention kernel's copy of a Q, K or V tile to shared memory, every
 *     thread's share run in turn, against element-by-element indexing: the 16-byte path (BERT's
 *     head-split rows, f32 and f16, a last tile of fewer rows) and the element path (a
 *     transposed operand, a misaligned start, a row length not a multiple of 16 bytes).
 * Built by nvcc (host code only; no GPU) and linked with oneDNN; prints one line per case, "ok"
 * or "FAIL", and exits 1 on a failure.
 *     nvcc -std=c++17 test/kernel_ref_check.cu -o kernel_ref_check -ldl -ldnnl */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define PL_KERNEL_ONLY
#define PL_FAMILIES 0u /* the core: PL_SPLIT */
#define BK_KINDS (BK_K_PLAIN | BK_K_LAYERNORM)
#define BK_TYPES 0x1u /* f32: the cases' type (the device code of the others is not compiled) */
#include <oneapi/dnnl/dnnl.h>
#include "../runtime/harness.h"
#include "../runtime/plain_ops.h"
#include "../runtime/cuda_bench.h"
#include "../runtime/cuda_kernels.cuh"

#include <vector>

/* bk_tile_load of ROWS x COLS (VALID of them read) from a buffer with row stride RS and column
 * stride CS, starting OFF elements in, into a tile of leading dimension LD: every element the
 * source's (or 0 past VALID), the padding untouched */
template <typename T>
static int check_tile(const char *what, int rows, int valid, int cols, long long rs, long long cs, long long off, int ld)
{
    long long span = off + (rows - 1) * rs + (cols - 1) * cs + 1;
    std::vector<T> src((size_t)span);
    for (long long e = 0; e < span; e++)
        src[(size_t)e] = (T)(float)((e * 37 % 1999) - 999);
    const T sentinel = (T)12345.0f;
    std::vector<T> dst((size_t)rows * ld, sentinel);
    /* 16-byte aligned, as cudaMalloc's buffers are */
    T *base = (T *)aligned_alloc(64, (size_t)span * sizeof(T) + 64);
    memcpy(base, src.data(), (size_t)span * sizeof(T));
    const int nt = 128;
    for (int tid = 0; tid < nt; tid++)
        bk_tile_load(dst.data(), ld, base + off, rs, cs, rows, valid, cols, tid, nt);
    int bad = 0;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < ld; c++) {
            float want = c >= cols ? (float)sentinel : r < valid ? (float)src[(size_t)(off + r * rs + c * cs)] : 0.0f;
            bad += (float)dst[(size_t)r * ld + c] != want;
        }
    free(base);
    printf("%s bk_tile_load %s: %d x %d (%d read) of %d misplaced\n", bad ? "FAIL" : "ok", what, rows, cols, valid,
           bad);
    return bad != 0;
}

static int check(int nd, const long long *dims, int axis, int n, const long long *sizes)
{
    struct pl_op op;
    memset(&op, 0, sizeof(op));
    op.kind = PL_SPLIT;
    op.fn = PL_IDENTITY;
    op.nin = 1;
    op.in[0].dtype = PL_FLOAT;
    op.in[0].nd = nd;
    long long count = 1;
    for (int d = 0; d < nd; d++) {
        op.in[0].d[d] = dims[d];
        count *= dims[d];
    }
    op.out = op.in[0];
    op.axis = axis;
    op.nsplit = n;
    for (int j = 0; j < n; j++)
        op.split[j] = sizes[j];
    /* the input holds each element's own index: the plain C output says which one it copied */
    float *x = (float *)malloc((size_t)count * sizeof(float)), *want = (float *)malloc((size_t)count * sizeof(float));
    for (long long i = 0; i < count; i++)
        x[i] = (float)i;
    struct pl_state ps;
    memset(&ps, 0, sizeof(ps));
    ps.op = &op;
    ps.in[0] = x;
    ps.out = want;
    pl_kernel(&ps);
    bk_split_args a;
    memset(&a, 0, sizeof(a));
    int64_t outer, dim, inner;
    pl_axis_split(&op.in[0], axis, &outer, &dim, &inner);
    a.outer = outer;
    a.dim = dim;
    a.inner = inner;
    a.n = n;
    for (int j = 0; j < n; j++)
        a.off[j + 1] = a.off[j] + sizes[j];
    long long bad = 0;
    for (long long i = 0; i < count; i++)
        bad += (float)bk_split_src(&a, i) != want[i];
    printf("%s split of %lld elements along axis %d of %d into %d: %lld of them differ\n", bad ? "FAIL" : "ok  ", count,
           axis, nd, n, bad);
    free(x);
    free(want);
    return bad != 0;
}

/* LayerNorm over the last COLS of ROWS x COLS: bk_reference (RESIDUAL 0, 1, 2) against oneDNN on
 * x [+ r [+ bias]] summed in float, as the kernel sums */
static int check_layernorm(long long rows, long long cols, int residual)
{
    long long n = rows * cols;
    std::vector<float> x(n), r(n), bias(cols), g(cols), b(cols), sum(n), want(n);
    unsigned seed = 12345u + (unsigned)(rows * 7 + cols + residual);
    auto rnd = [&seed]() {
        seed = seed * 1664525u + 1013904223u;
        return (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
    };
    for (long long i = 0; i < n; i++) {
        x[i] = 3.0f * rnd() + 0.5f;
        r[i] = rnd();
    }
    for (long long c = 0; c < cols; c++) {
        bias[c] = rnd();
        g[c] = 1.0f + 0.5f * rnd();
        b[c] = rnd();
    }
    for (long long i = 0; i < n; i++)
        sum[i] = residual ? x[i] + r[i] + (residual == 2 ? bias[i % cols] : 0.0f) : x[i];
    /* oneDNN */
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    dnnl_memory_desc_t md, vmd;
    dnnl_dims_t dims = {rows, cols}, vdims = {cols};
    dnnl_layer_normalization_desc_t desc;
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t prim;
    dnnl_memory_t msrc, mdst, mscale, mshift;
    int ok = dnnl_engine_create(&eng, dnnl_cpu, 0) == dnnl_success && dnnl_stream_create(&strm, eng, dnnl_stream_default_flags) == dnnl_success &&
             dnnl_memory_desc_init_by_tag(&md, 2, dims, dnnl_f32, dnnl_ab) == dnnl_success &&
             dnnl_memory_desc_init_by_tag(&vmd, 1, vdims, dnnl_f32, dnnl_a) == dnnl_success &&
             dnnl_layer_normalization_forward_desc_init(&desc, dnnl_forward_inference, &md, NULL, 1e-5f,
                                                        dnnl_use_scale | dnnl_use_shift) == dnnl_success &&
             dnnl_primitive_desc_create(&pd, &desc, NULL, eng, NULL) == dnnl_success &&
             dnnl_primitive_create(&prim, pd) == dnnl_success &&
             dnnl_memory_create(&msrc, &md, eng, sum.data()) == dnnl_success &&
             dnnl_memory_create(&mdst, &md, eng, want.data()) == dnnl_success &&
             dnnl_memory_create(&mscale, &vmd, eng, g.data()) == dnnl_success &&
             dnnl_memory_create(&mshift, &vmd, eng, b.data()) == dnnl_success;
    if (ok) {
        dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, msrc}, {DNNL_ARG_DST, mdst}, {DNNL_ARG_SCALE, mscale}, {DNNL_ARG_SHIFT, mshift}};
        ok = dnnl_primitive_execute(prim, strm, 4, args) == dnnl_success && dnnl_stream_wait(strm) == dnnl_success;
    }
    if (!ok) {
        printf("FAIL layernorm %lldx%lld residual %d: oneDNN refused it\n", rows, cols, residual);
        return 1;
    }
    /* bk_reference: the kernel's inputs in its order (x, scale, shift, residual, bias) */
    struct bk_op op;
    memset(&op, 0, sizeof(op));
    op.kind = BK_LAYERNORM;
    op.pl.out.dtype = PL_FLOAT;
    op.pl.out.nd = 2;
    op.pl.out.d[0] = rows;
    op.pl.out.d[1] = cols;
    op.pl.in[0] = op.pl.out;
    op.eps = 1e-5f;
    op.affine = 1;
    op.residual = residual;
    void *in[5] = {x.data(), g.data(), b.data(), r.data(), bias.data()};
    double worst = 0;
    struct bk_ln_row ln = {-1, 0.0, 0.0};
    for (long long i = 0; i < n; i++) {
        double d = fabs(bk_reference(&op, in, i, &ln) - (double)want[i]) / (1.0 + fabs((double)want[i]));
        worst = d > worst ? d : worst;
    }
    bool good = worst <= 1e-5;
    printf("%s layernorm %lldx%lld, %s: max error against oneDNN %.3g\n", good ? "ok  " : "FAIL", rows, cols,
           residual == 2 ? "x + residual + bias" : residual ? "x + residual" : "x", worst);
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_destroy(msrc);
    dnnl_memory_destroy(mdst);
    dnnl_memory_destroy(mscale);
    dnnl_memory_destroy(mshift);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return !good;
}

/* The broadcast walk: bk_coalesce's fewer dimensions and bk_positions (32- and 64-bit) give each
 * output element the input elements the uncoalesced walk gives it (every element of OUT's
 * dims, NIN inputs of dims IN), in at most WANT_ND dimensions */
static int check_broadcast(int nd, const long long *out, int nin, const int *ind, const long long (*in)[8], int want_nd,
                           int want_periodic)
{
    struct pl_tensor o;
    memset(&o, 0, sizeof(o));
    o.dtype = PL_FLOAT;
    o.nd = nd;
    long long n = 1;
    for (int d = 0; d < nd; d++)
        n *= (o.d[d] = out[d]);
    bk_args a;
    memset(&a, 0, sizeof(a));
    a.nd = nd;
    a.n = n;
    for (int d = 0; d < nd; d++)
        a.od[d] = out[d];
    for (int j = 0; j < nin; j++) {
        struct pl_tensor t;
        memset(&t, 0, sizeof(t));
        t.dtype = PL_FLOAT;
        t.nd = ind[j];
        for (int d = 0; d < ind[j]; d++)
            t.d[d] = in[j][d];
        int64_t st[8];
        pl_bcast_strides(&t, &o, st);
        for (int d = 0; d < nd; d++)
            a.st[j][d] = st[d];
    }
    bk_args c = a, wide;
    bk_coalesce(&c, nin);
    bk_args pc = c;
    int periodic = bk_periods(&pc, nin);
    wide = c;
    wide.n = 1LL << 40; /* the 64-bit walk over the same elements */
    long long bad = 0;
    for (long long i = 0; i < n; i++) {
        long long want[3] = {0, 0, 0}, rem = i, got[3], got64[3];
        for (int k = nd - 1; k >= 0; k--) {
            long long x = rem % a.od[k];
            rem /= a.od[k];
            for (int j = 0; j < nin; j++)
                want[j] += x * a.st[j][k];
        }
        bk_positions(&c, i, got);
        bk_positions(&wide, i, got64);
        for (int j = 0; j < nin; j++) {
            bad += got[j] != want[j] || got64[j] != want[j];
            /* bk_flat4's reading of a repeated block: element i % per */
            if (periodic)
                bad += (pc.per[j] == 0 ? i : i % pc.per[j]) != want[j];
        }
    }
    int ok = bad == 0 && c.nd <= want_nd && periodic == want_periodic;
    printf("%s broadcast walk of %lld elements, %d inputs: %d dims -> %d (at most %d), %s, %lld positions differ\n",
           ok ? "ok  " : "FAIL", n, nin, nd, c.nd, want_nd, periodic ? "flat with repeated blocks" : "walked", bad);
    return !ok;
}

/* bk_transpose's walk: the permuted strides as bk_setup makes them, coalesced, against the walk
 * over every dimension (each output element's input element) */
static int check_transpose(int nd, const long long *in, const int *perm, int want_nd)
{
    bk_args a;
    memset(&a, 0, sizeof(a));
    long long istr[8], acc = 1;
    for (int d = nd - 1; d >= 0; d--) {
        istr[d] = acc;
        acc *= in[d];
    }
    a.nd = nd;
    a.n = acc;
    for (int d = 0; d < nd; d++) {
        a.od[d] = in[perm[d]];
        a.st[0][d] = istr[perm[d]];
    }
    bk_args c = a;
    bk_coalesce(&c, 1);
    long long bad = 0;
    for (long long i = 0; i < a.n; i++) {
        long long rem = i, want = 0, got[3];
        for (int k = nd - 1; k >= 0; k--) {
            want += (rem % a.od[k]) * a.st[0][k];
            rem /= a.od[k];
        }
        bk_positions(&c, i, got);
        bad += got[0] != want;
    }
    int ok = bad == 0 && c.nd <= want_nd;
    printf("%s transpose walk of %lld elements: %d dims -> %d (at most %d), %lld positions differ\n", ok ? "ok  " : "FAIL",
           a.n, nd, c.nd, want_nd, bad);
    return !ok;
}

int main(void)
{
    int bad = 0;
    {
        /* BERT's heads out and back, a channels-last change, and one whose last two dims stay
         * together */
        static const long long t1[] = {1, 128, 12, 64}, t2[] = {1, 12, 128, 64}, t3[] = {2, 8, 5, 7}, t4[] = {3, 4, 5, 6};
        static const int p1[] = {0, 2, 1, 3}, p2[] = {0, 2, 3, 1}, p3[] = {0, 2, 3, 1}, p4[] = {1, 0, 2, 3};
        bad |= check_transpose(4, t1, p1, 3);
        bad |= check_transpose(4, t2, p2, 3);
        bad |= check_transpose(4, t3, p3, 3);
        bad |= check_transpose(4, t4, p4, 3);
    }
    {
        /* a bias along the last dim; Where's three operands; a scalar; all ones; a broadcast in
         * the middle; size-1 dims between broadcast ones */
        static const long long o1[] = {1, 128, 3072}, i1[][8] = {{1, 128, 3072}, {3072}};
        static const int n1[] = {3, 1};
        bad |= check_broadcast(3, o1, 2, n1, i1, 2, 1);
        static const long long o2[] = {2, 3, 4, 5}, i2[][8] = {{2, 1, 4, 1}, {1, 3, 1, 5}, {5}};
        static const int n2[] = {4, 4, 1};
        bad |= check_broadcast(4, o2, 3, n2, i2, 4, 0);
        static const long long o3[] = {7}, i3[][8] = {{7}, {1}};
        static const int n3[] = {1, 0};
        bad |= check_broadcast(1, o3, 2, n3, i3, 1, 1);
        static const long long o4[] = {1, 1, 1}, i4[][8] = {{1, 1, 1}};
        static const int n4[] = {3};
        bad |= check_broadcast(3, o4, 1, n4, i4, 1, 1);
        static const long long o5[] = {4, 1, 6, 5}, i5[][8] = {{4, 1, 6, 5}, {1, 1, 6, 5}};
        static const int n5[] = {4, 4};
        bad |= check_broadcast(4, o5, 2, n5, i5, 2, 1);
        static const long long o6[] = {3, 4, 5, 6}, i6[][8] = {{3, 4, 5, 6}, {3, 1, 5, 1}};
        static const int n6[] = {4, 4};
        bad |= check_broadcast(4, o6, 2, n6, i6, 4, 0);
        static const long long o7[] = {2, 3, 4}, i7[][8] = {{2, 3, 4}, {2, 3, 4}};
        static const int n7[] = {3, 3};
        bad |= check_broadcast(3, o7, 2, n7, i7, 1, 1);
        /* bk_flat4's blocks: a scalar first operand (c / x), and a column, which it leaves to the walk */
        static const long long o8[] = {128, 3072}, i8[][8] = {{1}, {128, 3072}};
        static const int n8[] = {1, 2};
        bad |= check_broadcast(2, o8, 2, n8, i8, 1, 1);
        static const long long o9[] = {128, 64}, i9[][8] = {{128, 64}, {128, 1}};
        static const int n9[] = {2, 2};
        bad |= check_broadcast(2, o9, 2, n9, i9, 2, 0);
    }
    /* BERT's K tile (rows 768 apart, head 3's columns), the last of 197 keys (ViT), f16 */
    bad |= check_tile<float>("f32 head-split rows", 64, 64, 64, 768, 1, 3 * 64, 72);
    bad |= check_tile<float>("f32 last tile", 64, 5, 64, 768, 1, 192 * 768, 68);
    bad |= check_tile<__half>("f16 head-split rows", 64, 64, 64, 768, 1, 64, 72);
    bad |= check_tile<__half>("f16 last tile", 64, 33, 128, 384, 1, 0, 136);
    /* no 16-byte pieces: columns strided (K^T read as given), a start off 16 bytes, 20 columns */
    bad |= check_tile<float>("f32 strided columns", 64, 64, 64, 1, 128, 0, 72);
    bad |= check_tile<float>("f32 misaligned start", 64, 50, 64, 64, 1, 3, 72);
    bad |= check_tile<__half>("f16 20 columns", 64, 64, 20, 20, 1, 0, 24);
    for (int residual = 0; residual <= 2; residual++) {
        bad |= check_layernorm(5, 768, residual);
        bad |= check_layernorm(3, 37, residual);
    }
    static const long long d1[] = {12}, d3[] = {2, 9, 5}, d4[] = {3, 4, 6, 8};
    static const long long s3[] = {4, 4, 4}, s12[] = {5, 7}, s9[] = {2, 3, 4}, s2[] = {1, 1}, s1[] = {9};
    bad |= check(1, d1, 0, 3, s3);
    bad |= check(1, d1, 0, 2, s12);
    bad |= check(3, d3, 1, 3, s9);
    bad |= check(3, d3, 1, 1, s1);
    bad |= check(3, d3, 0, 2, s2);
    static const long long s5[] = {2, 3}, s6[] = {1, 2, 3}, s8[] = {3, 5}, s4[] = {1, 1, 1, 1};
    bad |= check(3, d3, 2, 2, s5);
    bad |= check(4, d4, 2, 3, s6);
    bad |= check(4, d4, 3, 2, s8);
    bad |= check(4, d4, 1, 4, s4);
    return bad;
}
