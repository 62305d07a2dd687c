/* The element-wise (ScatterND among them), LayerNorm, batch norm, Transpose and Concat kernels
 * of runtime/cuda_kernels.cuh in f32, f16 and bf16, run on the host through the benchmark's own path: bk_setup (its inputs, its
 * walk: flat, repeated blocks or broadcast), bk_launch (test/kernel_emu.h's fibers stand in for
 * the GPU's, a CUDA runtime of host memory below) and bk_verify_run, the --verify that a GPU
 * run holds the output to (plain C or bk_reference on the host, the same tolerance). Each case
 * runs once as is, where it must verify and take the path it names (bk_flat4 or the walk), and
 * once with one output element's exponent bit flipped on its way back to the host, where it
 * must not. Prints a line per case, "ok" or "FAIL"; exit 1 on any FAIL.
 *     g++ -std=c++20 -O1 -I/usr/local/cuda/include test/kernels_emu.cc -o kernels_emu */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define PL_KERNEL_ONLY
#define PL_FAMILIES 0u /* the core: element-wise maths, Gather, Slice */
#define BK_KINDS (BK_K_PLAIN | BK_K_TRANSPOSE | BK_K_CONCAT | BK_K_LAYERNORM | BK_K_BATCHNORM)
#define BK_EMU 1
#include "kernel_emu.h"
#include "../runtime/harness.h"
#include "../runtime/plain_ops.h"
#include "../runtime/cuda_bench.h"
#include "../runtime/cuda_kernels.cuh"

#include <initializer_list>

/* ---- a CUDA runtime of host memory: what bk_setup, bk_launch and bk_verify_run call ---- */

static int corrupt; /* flip a bit of the next device-to-host copy */

extern "C" {
cudaError_t cudaMalloc(void **p, size_t n)
{
    *p = malloc(n ? n : 1);
    return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaFree(void *p)
{
    free(p);
    return cudaSuccess;
}
cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
    memcpy(dst, src, n);
    if (kind == cudaMemcpyDeviceToHost && corrupt && n >= 4) {
        /* the exponent's top bit of a float, or of a half's or bfloat16's in the second of
         * a pair: a value far from its own */
        ((unsigned char *)dst)[(n / 2 & ~(size_t)3) + 3] ^= 0x40;
        corrupt = 0;
    }
    return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int *v, enum cudaDeviceAttr attr, int dev)
{
    (void)dev;
    *v = attr == cudaDevAttrMultiProcessorCount ? 1 : 0; /* a grid of 32 blocks: the loops stride */
    return cudaSuccess;
}
cudaError_t cudaGetLastError(void)
{
    return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t q)
{
    (void)q;
    return cudaSuccess;
}
cudaError_t cudaDriverGetVersion(int *v)
{
    *v = 0;
    return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int *v)
{
    *v = 0;
    return cudaSuccess;
}
const char *cudaGetErrorString(cudaError_t e)
{
    return e == cudaSuccess ? "no error" : "error";
}
const char *cudaGetErrorName(cudaError_t e)
{
    return e == cudaSuccess ? "cudaSuccess" : "cudaError";
}
}

/* ---- the cases ---- */

static struct pl_tensor ten(int dt, std::initializer_list<long long> dims)
{
    struct pl_tensor t;
    memset(&t, 0, sizeof(t));
    t.dtype = dt;
    for (long long d : dims)
        t.d[t.nd++] = d;
    return t;
}

static int failures;

/* an op of KIND (a zeroed bk_op, as BZ_DESCRIBE starts from) with input 0 IN and output OUT */
static struct bk_op new_op(int kind, struct pl_tensor in, struct pl_tensor out)
{
    struct bk_op op;
    memset(&op, 0, sizeof(op));
    op.kind = kind;
    op.pl.in[0] = in;
    op.pl.out = out;
    return op;
}

/* a BK_PLAIN op: plain_ops.h's PL_KIND with function FN over NIN inputs (IN the first) */
static struct bk_op plain_op(int pl_kind, int fn, int nin, struct pl_tensor in, struct pl_tensor out)
{
    struct bk_op op = new_op(BK_PLAIN, in, out);
    op.pl.kind = (enum pl_kind)pl_kind;
    op.pl.fn = (enum pl_fn)fn;
    op.pl.nin = nin;
    return op;
}

enum path { P_ANY, P_FLAT, P_WALK };

/* OP through setup and --verify: as is, then with a corrupted copy back */
static void run(const char *name, int dt, struct bk_op *op, enum path want)
{
    static const char *const tn[] = {"f32", "f16", "bf16"};
    const char *t = tn[dt == PL_FLOAT16 ? 1 : dt == PL_BFLOAT16 ? 2 : 0];
    for (int bad = 0; bad < 2; bad++) {
        struct bc_state s;
        memset(&s, 0, sizeof(s));
        s.op = op;
        struct bh_result r;
        memset(&r, 0, sizeof(r));
        enum bh_status st = bk_setup(&s, &r);
        bool flat = false;
        if (st == BH_OK) {
            struct bk_state *k = (struct bk_state *)s.family;
            flat = op->kind == BK_PLAIN && bk_flat_ok(k);
            corrupt = bad;
            st = bk_verify_run(&s, &r);
            corrupt = 0;
        }
        bk_teardown(&s);
        bool path_ok = want == P_ANY || (want == P_FLAT) == flat;
        bool ok = bad ? st == BH_WRONG : st == BH_OK && path_ok;
        printf("%s %s %s%s%s: %s\n", ok ? "ok  " : "FAIL", name, t, bad ? ", one bit flipped" : "",
               want == P_ANY ? "" : flat ? " (bk_flat4)" : " (the walk)", r.note);
        failures += !ok;
    }
}

/* an element-wise op of NIN inputs (A, and B for two) */
static void elementwise(const char *name, int dt, int fn, int nin, struct pl_tensor a, struct pl_tensor b,
                        struct pl_tensor o, enum path want)
{
    struct bk_op op = plain_op(nin == 2 ? PL_BINARY : PL_UNARY, fn, nin, a, o);
    op.pl.in[1] = b;
    run(name, dt, &op, want);
}

static void binary(const char *name, int dt, int fn, struct pl_tensor a, struct pl_tensor b, struct pl_tensor o,
                   enum path want)
{
    elementwise(name, dt, fn, 2, a, b, o, want);
}

static void unary(const char *name, int dt, int fn, struct pl_tensor a, enum path want)
{
    struct pl_tensor none;
    memset(&none, 0, sizeof(none));
    elementwise(name, dt, fn, 1, a, none, a, want);
}

static void layernorm(const char *name, int dt, long long rows, long long cols, int residual, int keep_sum)
{
    struct bk_op op = new_op(BK_LAYERNORM, ten(dt, {rows, cols}), ten(dt, {rows, cols}));
    op.affine = 1;
    op.eps = 1e-5f;
    op.residual = residual;
    op.keep_sum = keep_sum;
    run(name, dt, &op, P_ANY);
}

/* OP set up in S (and its kernel run, where LAUNCH): its state, or NULL where either failed
 * (bk_teardown(S) after either way) */
static struct bk_state *set_up(struct bk_op *op, struct bc_state *s, bool launch)
{
    memset(s, 0, sizeof(*s));
    s->op = op;
    struct bh_result r;
    memset(&r, 0, sizeof(r));
    if (bk_setup(s, &r) != BH_OK || (launch && bk_launch(s, &r) != BH_OK))
        return NULL;
    return (struct bk_state *)s->family;
}

/* one line for a check against an operator's definition, worked out in the test */
static void against_definition(const char *name, int dt, bool ok, const char *what, double worst)
{
    printf("%s %s %s: %s %.3g\n", ok ? "ok  " : "FAIL", name, dt == PL_FLOAT16 ? "f16" : dt == PL_BFLOAT16 ? "bf16" : "f32",
           what, worst);
    failures += !ok;
}

/* an RMSNorm [ROWS, COLS] (SCALED: times a row of the last dim) through setup and --verify, and
 * first bk_reference, what --verify holds the kernel to, against RMSNormalization as ONNX
 * defines it (x / sqrt(mean(x^2) + eps) x scale), worked out here in double from the same inputs */
static void rmsnorm(const char *name, int dt, long long rows, long long cols, int scaled)
{
    struct bk_op op = new_op(BK_LAYERNORM, ten(dt, {rows, cols}), ten(dt, {rows, cols}));
    op.rms = 1;
    op.affine = scaled;
    op.eps = 1e-6f;
    struct bc_state s;
    double worst = INFINITY;
    if (struct bk_state *k = set_up(&op, &s, false)) {
        worst = 0;
        struct bk_ln_row ln = {-1, 0.0, 0.0};
        for (long long row = 0; row < rows; row++) {
            double ms = 0;
            for (long long c = 0; c < cols; c++) {
                double v = pl_load(k->hin[0], dt, row * cols + c);
                ms += v * v;
            }
            for (long long i = row * cols; i < (row + 1) * cols; i++) {
                double want = pl_load(k->hin[0], dt, i) / sqrt(ms / (double)cols + (double)op.eps);
                if (scaled)
                    want *= pl_load(k->hin[1], dt, i % cols);
                worst = fmax(worst, fabs(bk_reference(&op, k->hin, i, &ln) - want) / fmax(fabs(want), 1e-30));
            }
        }
    }
    bk_teardown(&s);
    against_definition(name, dt, worst <= 1e-9, "the host reference against RMSNormalization's definition, worst relative "
                                                "difference", worst);
    run(name, dt, &op, P_ANY);
}

/* the rotary embedding by halves of X's last dim (by PAIRS: of its pairs), cos and sin of shape
 * T broadcast to X: through setup and --verify (the kernel against plain C), and first the
 * kernel's output against the definition, x cos + rotate_half(x) sin with rotate_half(x) =
 * (-x2, x1) (by pairs: rotate_pairs(x)[2i] = -x[2i + 1], [2i + 1] = x[2i]), worked out here */
static void rope(const char *name, int dt, struct pl_tensor x, struct pl_tensor t, bool pairs = false)
{
    struct bk_op op = plain_op(PL_ROPE, PL_IDENTITY, 3, x, x);
    op.pl.in[1] = t;
    op.pl.in[2] = t;
    op.pl.flag = pairs;
    struct bc_state s;
    double worst = INFINITY;
    if (struct bk_state *k = set_up(&op, &s, true)) {
        long long n = pl_count(&x), last = x.d[x.nd - 1], half = last / 2;
        worst = 0;
        for (long long i = 0; i < n; i++) {
            long long c[8], rem = i, tp = 0;
            for (int d = x.nd - 1; d >= 0; d--) {
                c[d] = rem % x.d[d];
                rem /= x.d[d];
            }
            for (int d = 0; d < t.nd; d++) /* t aligned to x's last dims, 1 where it broadcasts */
                tp = tp * t.d[d] + (t.d[d] == 1 ? 0 : c[d + x.nd - t.nd]);
            long long h = c[x.nd - 1];
            bool first = pairs ? h % 2 == 0 : h < half;
            long long other = pairs ? (first ? i + 1 : i - 1) : first ? i + half : i - half;
            double rot = first ? -pl_load(k->hin[0], dt, other) : pl_load(k->hin[0], dt, other);
            double want = pl_load(k->hin[0], dt, i) * pl_load(k->hin[1], dt, tp) + rot * pl_load(k->hin[2], dt, tp);
            double got = pl_load(k->dout, dt, i), tol = dt == PL_FLOAT ? 1e-6 : dt == PL_FLOAT16 ? 2e-3 : 1.6e-2;
            worst = fmax(worst, fabs(got - want) / (fabs(want) + 1.0) / tol);
        }
    }
    bk_teardown(&s);
    against_definition(name, dt, worst <= 1, "the kernel against the rotary embedding's definition, worst error (in "
                                             "tolerances)", worst);
    run(name, dt, &op, P_ANY);
}

/* a gated linear unit's gate, act(g) u, by its PL_GLU function FN, worked out in double */
static double glu_definition(int fn, double g, double u)
{
    double act = fn == PL_SILU_MUL ? g / (1.0 + exp(-g))
                 : fn == PL_GELU_MUL ? 0.5 * g * (1.0 + erf(g / sqrt(2.0)))
                                     : 0.5 * g * (1.0 + tanh(sqrt(2.0 / M_PI) * (g + 0.044715 * g * g * g)));
    return act * u;
}

/* A gated linear unit's gate OP (out [..., C]; SwiGLU's or GeGLU's by its function) through
 * setup and --verify (the kernel against plain C, by the path WANT), and first the kernel's
 * output against the definition (glu_definition), output element i's operands G_U(k, i, &g, &u)
 * in k's host copies */
template <typename GU>
static void glu_against(const char *name, int dt, struct bk_op *op, enum path want, const char *what, GU g_u)
{
    struct bc_state s;
    double worst = INFINITY;
    if (struct bk_state *k = set_up(op, &s, true)) {
        worst = 0;
        double tol = dt == PL_FLOAT ? 1e-6 : dt == PL_FLOAT16 ? 2e-3 : 1.6e-2;
        for (long long i = 0; i < pl_count(&op->pl.out); i++) {
            double g, u;
            g_u(k, i, &g, &u);
            double want_i = glu_definition(op->pl.fn, g, u), got = pl_load(k->dout, dt, i);
            worst = fmax(worst, fabs(got - want_i) / (fabs(want_i) + 1.0) / tol);
        }
    }
    bk_teardown(&s);
    against_definition(name, dt, worst <= 1, what, worst);
    run(name, dt, op, want);
}

/* the gate of G and U (of one shape X) by FN */
static void glu(const char *name, int dt, int fn, struct pl_tensor x)
{
    struct bk_op op = plain_op(PL_BINARY, fn, 2, x, x);
    op.pl.in[1] = x;
    glu_against(name, dt, &op, P_ANY, "the kernel against the gate's definition, worst error (in tolerances)",
                [dt](struct bk_state *k, long long i, double *g, double *u) {
                    *g = pl_load(k->hin[0], dt, i);
                    *u = pl_load(k->hin[1], dt, i);
                });
}

/* the gate by FN of one projection's halves (pl_halves: X [..., 2C], the gate its first half
 * when GATE is 1, its second when 2), by the walk */
static void glu_halves(const char *name, int dt, int fn, struct pl_tensor x, int gate)
{
    struct pl_tensor y = x;
    long long c = x.d[x.nd - 1] / 2;
    y.d[y.nd - 1] = c;
    struct bk_op op = plain_op(PL_BINARY, fn, 1, x, y);
    op.pl.flag = gate;
    glu_against(name, dt, &op, P_WALK, "the kernel against the gate of the two halves' definition, worst error (in tolerances)",
                [dt, c, gate](struct bk_state *k, long long i, double *g, double *u) {
                    long long row = i / c, col = i % c;
                    double first = pl_load(k->hin[0], dt, row * 2 * c + col);
                    double second = pl_load(k->hin[0], dt, row * 2 * c + c + col);
                    *g = gate == 1 ? first : second;
                    *u = gate == 1 ? second : first;
                });
}

/* ScatterND of UPD into DATA at the rows of IDX (HOW: 0 none, 1 add, 2 mul, 3 max, 4 min) */
static void scatter_nd(const char *name, int dt, struct pl_tensor data, struct pl_tensor idx, struct pl_tensor upd,
                       int how)
{
    struct bk_op op = plain_op(PL_SCATTER_ND, PL_IDENTITY, 3, data, data);
    op.pl.in[1] = idx;
    op.pl.in[2] = upd;
    op.pl.flag = how;
    run(name, dt, &op, P_ANY);
}

/* a batch norm of X (NCHW dims) in NCHW or channels-last */
static void batchnorm(const char *name, int dt, struct pl_tensor x, int nhwc)
{
    struct bk_op op = new_op(BK_BATCHNORM, x, x);
    op.eps = 1e-5f;
    op.nhwc = nhwc;
    run(name, dt, &op, P_ANY);
}

int main(void)
{
    static const int types[] = {PL_FLOAT, PL_FLOAT16, PL_BFLOAT16};
    for (int dt : types) {
        /* BERT's residual Add, its bias Add and its scale, the decomposed GELU's pieces */
        binary("Add [128, 768] + [128, 768]", dt, PL_ADD, ten(dt, {128, 768}), ten(dt, {128, 768}),
               ten(dt, {128, 768}), P_FLAT);
        binary("Add [32, 3072] + bias [3072]", dt, PL_ADD, ten(dt, {32, 3072}), ten(dt, {3072}), ten(dt, {32, 3072}),
               P_FLAT);
        binary("Mul [1, 32, 3072] * [1]", dt, PL_MUL, ten(dt, {1, 32, 3072}), ten(dt, {1}), ten(dt, {1, 32, 3072}),
               P_FLAT);
        unary("Gelu [4, 1000]", dt, PL_GELU, ten(dt, {4, 1000}), P_FLAT);
        unary("Erf [3, 333]", dt, PL_ERF, ten(dt, {3, 333}), P_WALK); /* 999 elements: no quads */
        {
            /* Relu, as gen writes its kernel: a Clip from 0 */
            struct bk_op op = plain_op(PL_UNARY, PL_CLIP, 1, ten(dt, {1, 64, 12, 12}), ten(dt, {1, 64, 12, 12}));
            op.pl.alpha = 0.0f;
            op.pl.beta = 3.4e38f;
            run("Relu [1, 64, 12, 12] (a Clip from 0)", dt, &op, P_FLAT);
        }
        {
            /* Pow by a constant, as gen writes it: GPT-2's cube (by products), a fraction
             * (powf, positive inputs) */
            static const struct {
                float e;
                const char *name;
            } pows[] = {{3.0f, "Pow [1, 32, 3072] ^ 3"}, {2.5f, "Pow [7, 111] ^ 2.5"}};
            for (const auto &p : pows) {
                long long rows = p.e == 3.0f ? 32 : 7, cols = p.e == 3.0f ? 3072 : 111;
                struct bk_op op = plain_op(PL_UNARY, PL_POWS, 1, ten(dt, {rows, cols}), ten(dt, {rows, cols}));
                op.pl.alpha = p.e;
                run(p.name, dt, &op, p.e == 3.0f ? P_FLAT : P_WALK);
            }
        }
        binary("Div [64, 33] / [64, 1]", dt, PL_DIV, ten(dt, {64, 33}), ten(dt, {64, 1}), ten(dt, {64, 33}), P_WALK);
        binary("Sub [3, 5, 7] - [7]", dt, PL_SUB, ten(dt, {3, 5, 7}), ten(dt, {7}), ten(dt, {3, 5, 7}), P_WALK);
        {
            struct bk_op op = plain_op(PL_GATHER, PL_IDENTITY, 2, ten(dt, {50, 64}), ten(dt, {2, 10, 64}));
            op.pl.in[1] = ten(PL_INT64, {2, 10});
            run("Gather rows of [50, 64] by [2, 10]", dt, &op, P_ANY);
        }
        {
            struct bk_op op = plain_op(PL_MAP, PL_IDENTITY, 1, ten(dt, {8, 20}), ten(dt, {8, 5}));
            op.pl.map = PL_MAP_SLICE;
            op.pl.start[1] = 2;
            op.pl.step[0] = 1;
            op.pl.step[1] = 3;
            run("Slice [8, 20] -> [8, 5] from 2 by 3", dt, &op, P_ANY);
        }
        /* the shared models' (gtcrn's): whole planes, and single elements (q = rank) */
        scatter_nd("ScatterND [3, 1, 1, 16] at [1, 1]", dt, ten(dt, {3, 1, 1, 16}), ten(PL_INT64, {1, 1}),
                   ten(dt, {1, 1, 1, 16}), 0);
        scatter_nd("ScatterND [1, 16, 16, 33] at [1, 16, 2, 33, 4]", dt, ten(dt, {1, 16, 16, 33}),
                   ten(PL_INT64, {1, 16, 2, 33, 4}), ten(dt, {1, 16, 2, 33}), 0);
        static const char *const reduced[] = {"ScatterND [6, 5] at [4, 1], add", "ScatterND [6, 5] at [4, 1], mul",
                                              "ScatterND [6, 5] at [4, 1], max", "ScatterND [6, 5] at [4, 1], min"};
        for (int how = 1; how <= 4 && dt == PL_FLOAT; how++) /* reductions: f32 only */
            scatter_nd(reduced[how - 1], dt, ten(dt, {6, 5}), ten(PL_INT64, {4, 1}), ten(dt, {4, 5}), how);
        layernorm("LayerNorm [8, 768]", dt, 8, 768, 0, 0);
        layernorm("LayerNorm of x + residual + bias [8, 768], the sum kept", dt, 8, 768, 2, 1);
        layernorm("LayerNorm of x + residual [6, 100]", dt, 6, 100, 1, 0);
        /* 8 columns a thread at most in registers: 8200 of them read again for each pass */
        layernorm("LayerNorm of x + residual + bias [2, 8200], the sum kept", dt, 2, 8200, 2, 1);
        layernorm("LayerNorm [3, 1000]", dt, 3, 1000, 0, 0); /* 4 columns a thread, a tail */
        rope("rotary embedding [2, 3, 5, 8], tables [1, 1, 5, 8]", dt, ten(dt, {2, 3, 5, 8}), ten(dt, {1, 1, 5, 8}));
        rope("rotary embedding [1, 4, 2, 4], tables [1, 4, 1, 4]", dt, ten(dt, {1, 4, 2, 4}), ten(dt, {1, 4, 1, 4}));
        rope("rotary embedding [1, 2, 3, 6], tables in full (flat)", dt, ten(dt, {1, 2, 3, 6}), ten(dt, {1, 2, 3, 6}));
        glu("SwiGLU gate [4, 1376]", dt, PL_SILU_MUL, ten(dt, {4, 1376}));
        glu_halves("SwiGLU gate of one projection's halves [2, 3, 2x44], the gate first", dt, PL_SILU_MUL,
                   ten(dt, {2, 3, 88}), 1);
        glu_halves("SwiGLU gate of one projection's halves [5, 2x16], the gate second", dt, PL_SILU_MUL, ten(dt, {5, 32}), 2);
        glu("GeGLU gate (erf) [4, 1376]", dt, PL_GELU_MUL, ten(dt, {4, 1376}));
        glu("GeGLU gate (tanh) [3, 130]", dt, PL_GELU_TANH_MUL, ten(dt, {3, 130}));
        glu_halves("GeGLU gate (erf) of one projection's halves [2, 3, 2x44], the gate second", dt, PL_GELU_MUL,
                   ten(dt, {2, 3, 88}), 2);
        glu_halves("GeGLU gate (tanh) of one projection's halves [5, 2x16], the gate first", dt, PL_GELU_TANH_MUL,
                   ten(dt, {5, 32}), 1);
        rope("rotary embedding by pairs [2, 3, 5, 8], tables [1, 1, 5, 8]", dt, ten(dt, {2, 3, 5, 8}),
             ten(dt, {1, 1, 5, 8}), true);
        rope("rotary embedding by pairs [1, 2, 3, 6], tables in full (flat)", dt, ten(dt, {1, 2, 3, 6}),
             ten(dt, {1, 2, 3, 6}), true);
        rmsnorm("RMSNorm [4, 4096], scaled", dt, 4, 4096, 1); /* a Llama's rows: 4 a thread */
        rmsnorm("RMSNorm [5, 100]", dt, 5, 100, 0);
        rmsnorm("RMSNorm [2, 9000], scaled", dt, 2, 9000, 1); /* read again for each pass */
        /* four elements a thread: a quad in one channel (NCHW, spatial size % 4 == 0) or in
         * four (channels-last, C % 4 == 0); else one */
        batchnorm("BatchNormalization [1, 16, 8, 8] NCHW, quads", dt, ten(dt, {1, 16, 8, 8}), 0);
        batchnorm("BatchNormalization [2, 8, 5, 7] NCHW", dt, ten(dt, {2, 8, 5, 7}), 0);
        batchnorm("BatchNormalization [1, 16, 7, 7] NHWC, quads", dt, ten(dt, {1, 16, 7, 7}), 1);
        batchnorm("BatchNormalization [2, 6, 5, 3] NHWC", dt, ten(dt, {2, 6, 5, 3}), 1);
        batchnorm("BatchNormalization [4, 10]", dt, ten(dt, {4, 10}), 0);
        {
            struct bk_op op = new_op(BK_TRANSPOSE, ten(dt, {2, 3, 5, 7}), ten(dt, {2, 5, 7, 3}));
            const int perm[4] = {0, 2, 3, 1};
            memcpy(op.perm, perm, sizeof(perm));
            run("Transpose [2, 3, 5, 7] to NHWC", dt, &op, P_ANY);
        }
        {
            struct bk_op op = new_op(BK_CONCAT, ten(dt, {2, 3, 4}), ten(dt, {2, 9, 4}));
            op.axis = 1;
            op.ncat = 3;
            op.cat[0] = ten(dt, {2, 3, 4});
            op.cat[1] = ten(dt, {2, 5, 4});
            op.cat[2] = ten(dt, {2, 1, 4});
            run("Concat [2, 3|5|1, 4] along 1", dt, &op, P_ANY);
        }
    }
    printf("%s\n", failures ? "kernels_emu: FAILED" : "kernels_emu: all cases verified");
    return failures ? 1 : 0;
}
