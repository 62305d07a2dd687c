/* Plain C benchmarks of the recurrent layers, LSTM, GRU and RNN, in float, with everything ONNX
 * defines for them: both layouts, every direction, sequence_lens, initial states, peepholes, the
 * eleven activation functions with their alpha and beta, clip, input_forget and both forms of
 * GRU's reset gate. oneDNN's RNN primitives take the default activations without clip only,
 * and run a GRU in their reference implementation (on the AVX2 and the AVX-512 machines of
 * docs/results/cpu), which spends tens of microseconds on a layer of a few thousand
 * multiply-adds (a speech model's GRUs of 4 to 16 units); plain C runs them as frameworks do: the input's projection for every step first, as
 * one product, then per step the recurrent product and the gates; a bidirectional layer's two
 * directions side by side on the benchmark's threads (pl_par_run). Inlined after plain_ops.h,
 * whose setup, kernel and verification call into it for PL_RNN (op->rnn holds the layer).
 *
 * The operation: in[0..7] ONNX's inputs X, W, R, B, sequence_lens, initial_h, initial_c, P
 * (one not given: a tensor of no elements, and its bit of op->rnn.has clear); out the outputs Y,
 * Y_h and (LSTM) Y_c one after the other, each in the layout's order. Weights constant in the
 * model are transposed once, at set-up, to [input][gate unit] (as a framework packs a constant
 * weight); others inside the timed run.
 *
 * --verify computes the layer from its definition in long double: each gate of each step by
 * its own dot products over W's and R's rows as ONNX lays them out, the biases added where ONNX
 * adds them, the activations by expl and tanhl; every output element within 1e-5 of
 * 1 + |reference| (weights at the scale of their fan-in keep the recurrence contracting, so
 * rounding does not grow over the steps; a wrong gate is off by a tenth or more). */
#ifndef BENANZA_PLAIN_RNN_H
#define BENANZA_PLAIN_RNN_H

/* the layer's sizes: steps, batch, input, hidden, directions, gates */
struct pl_rnn_dims {
    int64_t T, N, C, H, D, G;
};

static inline struct pl_rnn_dims pl_rnn_dims(const struct pl_op *op)
{
    struct pl_rnn_dims z;
    const struct pl_tensor *x = &op->in[0], *rw = &op->in[2];
    z.T = x->d[op->rnn.batch_first ? 1 : 0];
    z.N = x->d[op->rnn.batch_first ? 0 : 1];
    z.C = x->d[2];
    z.D = rw->d[0];
    z.H = rw->d[2];
    z.G = op->rnn.gates;
    return z;
}

/* the activation functions of ONNX's recurrent layers (enum pl_rnn_act) at x */
static inline double pl_rnn_act_d(int a, double alpha, double beta, double x)
{
    switch (a) {
    case PL_ACT_RELU: return x > 0 ? x : 0;
    case PL_ACT_TANH: return tanh(x);
    case PL_ACT_SIGMOID: return 1 / (1 + exp(-x));
    case PL_ACT_AFFINE: return alpha * x + beta;
    case PL_ACT_LEAKYRELU: return x >= 0 ? x : alpha * x;
    case PL_ACT_THRESHOLDEDRELU: return x > alpha ? x : 0;
    case PL_ACT_SCALEDTANH: return alpha * tanh(beta * x);
    case PL_ACT_HARDSIGMOID: {
        double v = alpha * x + beta;
        return v < 0 ? 0 : v > 1 ? 1 : v;
    }
    case PL_ACT_ELU: return x >= 0 ? x : alpha * (exp(x) - 1);
    case PL_ACT_SOFTSIGN: return x / (1 + fabs(x));
    default: return log1p(exp(x)); /* PL_ACT_SOFTPLUS */
    }
}

/* sigmoid and tanh in float by pl_exp_neg (plain_ops.h), without a branch or a call, so that a
 * loop of them vectorizes: with e = e^-|x|, sigmoid(x) is 1 / (1 + e) for x >= 0 and e / (1 + e)
 * below; tanh |x| is (1 - e^-2|x|) / (1 + e^-2|x|), under 1/16 its series to x^5 (where 1 - e
 * would lose digits; the first term left out is under 2^-28 of it), with x's sign. Each within a
 * few units in the last place of libm's. */
static inline float pl_sigmoid_f(float x)
{
    uint32_t bits, ab, sb, eb;
    float a, s, es;
    memcpy(&bits, &x, 4);
    uint32_t neg = -(bits >> 31);
    ab = bits & 0x7fffffffu;
    memcpy(&a, &ab, 4);
    float e = pl_exp_neg(-a);
    s = 1.0f / (1.0f + e);
    es = e * s;
    memcpy(&sb, &s, 4);
    memcpy(&eb, &es, 4);
    sb = (sb & ~neg) | (eb & neg);
    memcpy(&s, &sb, 4);
    return s;
}

static inline float pl_tanh_f(float x)
{
    uint32_t bits, ab, tb, pb;
    float a, t, p;
    memcpy(&bits, &x, 4);
    ab = bits & 0x7fffffffu;
    memcpy(&a, &ab, 4);
    float e = pl_exp_neg(-2.0f * a), a2 = a * a;
    t = (1.0f - e) / (1.0f + e);
    p = a + a * a2 * (-1.0f / 3 + a2 * (2.0f / 15));
    uint32_t small = -(uint32_t)(a < 0.0625f);
    memcpy(&tb, &t, 4);
    memcpy(&pb, &p, 4);
    tb = (tb & ~small) | (pb & small) | (bits & 0x80000000u);
    memcpy(&t, &tb, 4);
    return t;
}

/* whether activation K's inputs are clipped (when op->rnn.clip is set): the gates' are; an
 * LSTM's h takes the cell state as it is (as ONNX Runtime runs it: the cell is no gate) */
static inline int pl_rnn_clips(const struct pl_op *op, int k)
{
    return op->rnn.clip > 0 && !(op->rnn.gates == 4 && k % 3 == 2);
}

/* activation K (direction k / nf's function k % nf of f, g[, h]) on N floats in place, after
 * clipping them to [-clip, clip] where pl_rnn_clips says */
static inline void pl_rnn_act(const struct pl_op *op, int k, float *v, int64_t n)
{
    int a = op->rnn.act[k];
    float alpha = op->rnn.alpha[k], beta = op->rnn.beta[k], c = (float)op->rnn.clip;
    if (pl_rnn_clips(op, k))
        for (int64_t i = 0; i < n; i++)
            v[i] = v[i] < -c ? -c : v[i] > c ? c : v[i];
    int64_t i = 0;
    if (a == PL_ACT_SIGMOID) {
        for (; i + 8 <= n; i += 8)
            for (int j = 0; j < 8; j++)
                v[i + j] = pl_sigmoid_f(v[i + j]);
        for (; i < n; i++)
            v[i] = pl_sigmoid_f(v[i]);
    } else if (a == PL_ACT_TANH) {
        for (; i + 8 <= n; i += 8)
            for (int j = 0; j < 8; j++)
                v[i + j] = pl_tanh_f(v[i + j]);
        for (; i < n; i++)
            v[i] = pl_tanh_f(v[i]);
    } else {
        for (; i < n; i++)
            v[i] = (float)pl_rnn_act_d(a, alpha, beta, v[i]);
    }
}

/* The product's blocks. Each sum is an array of four floats with its own loop of four: gcc's
 * -O2 vectorizes such a loop into one SSE2 instruction and then keeps the array in a register,
 * where a loop of eight (two vectors) stays a loop and its sums in memory (a 64-unit LSTM's
 * input projection: 1.5 times as long). Four rows and eight columns: eight sums in flight.
 * PL_RNN_BLOCK4(NAME, W, ATTR) defines such a block of four rows and 2W columns in arrays of W
 * floats: this SSE2 one (W 4) and the AVX2 one below (W 8) from one text, so that both sum in
 * the same order; ATTR is the function's target attribute, or nothing. */
#define PL_RNN_BLOCK4(NAME, W, ATTR)                                                                                 \
    ATTR static inline void NAME(const float *x, int64_t ldx, int64_t k, const float *w, int64_t ld, float *y,      \
                                 int64_t ldy)                                                                        \
    {                                                                                                                \
        float a0[W], b0[W], a1[W], b1[W], a2[W], b2[W], a3[W], b3[W];                                               \
        for (int q = 0; q < W; q++) {                                                                                \
            a0[q] = y[q];                                                                                            \
            b0[q] = y[W + q];                                                                                        \
            a1[q] = y[ldy + q];                                                                                      \
            b1[q] = y[ldy + W + q];                                                                                  \
            a2[q] = y[2 * ldy + q];                                                                                  \
            b2[q] = y[2 * ldy + W + q];                                                                              \
            a3[q] = y[3 * ldy + q];                                                                                  \
            b3[q] = y[3 * ldy + W + q];                                                                              \
        }                                                                                                            \
        for (int64_t c = 0; c < k; c++, w += ld) {                                                                   \
            float x0 = x[c], x1 = x[ldx + c], x2 = x[2 * ldx + c], x3 = x[3 * ldx + c];                             \
            for (int q = 0; q < W; q++) {                                                                            \
                a0[q] += x0 * w[q];                                                                                  \
                b0[q] += x0 * w[W + q];                                                                              \
                a1[q] += x1 * w[q];                                                                                  \
                b1[q] += x1 * w[W + q];                                                                              \
                a2[q] += x2 * w[q];                                                                                  \
                b2[q] += x2 * w[W + q];                                                                              \
                a3[q] += x3 * w[q];                                                                                  \
                b3[q] += x3 * w[W + q];                                                                              \
            }                                                                                                        \
        }                                                                                                            \
        for (int q = 0; q < W; q++) {                                                                                \
            y[q] = a0[q];                                                                                            \
            y[W + q] = b0[q];                                                                                        \
            y[ldy + q] = a1[q];                                                                                      \
            y[ldy + W + q] = b1[q];                                                                                  \
            y[2 * ldy + q] = a2[q];                                                                                  \
            y[2 * ldy + W + q] = b2[q];                                                                              \
            y[3 * ldy + q] = a3[q];                                                                                  \
            y[3 * ldy + W + q] = b3[q];                                                                              \
        }                                                                                                            \
    }

PL_RNN_BLOCK4(pl_rnn_block4x8, 4, )

/* one row and 32 columns: eight sums in flight */
static inline void pl_rnn_block1x32(const float *x, int64_t k, const float *w, int64_t ld, float *y)
{
    float s0[4], s1[4], s2[4], s3[4], s4[4], s5[4], s6[4], s7[4];
    for (int q = 0; q < 4; q++) {
        s0[q] = y[q];
        s1[q] = y[4 + q];
        s2[q] = y[8 + q];
        s3[q] = y[12 + q];
        s4[q] = y[16 + q];
        s5[q] = y[20 + q];
        s6[q] = y[24 + q];
        s7[q] = y[28 + q];
    }
    for (int64_t c = 0; c < k; c++, w += ld) {
        float xc = x[c];
        for (int q = 0; q < 4; q++) {
            s0[q] += xc * w[q];
            s1[q] += xc * w[4 + q];
            s2[q] += xc * w[8 + q];
            s3[q] += xc * w[12 + q];
            s4[q] += xc * w[16 + q];
            s5[q] += xc * w[20 + q];
            s6[q] += xc * w[24 + q];
            s7[q] += xc * w[28 + q];
        }
    }
    for (int q = 0; q < 4; q++) {
        y[q] = s0[q];
        y[4 + q] = s1[q];
        y[8 + q] = s2[q];
        y[12 + q] = s3[q];
        y[16 + q] = s4[q];
        y[20 + q] = s5[q];
        y[24 + q] = s6[q];
        y[28 + q] = s7[q];
    }
}

/* one row and four columns */
static inline void pl_rnn_block1x4(const float *x, int64_t k, const float *w, int64_t ld, float *y)
{
    float s0[4];
    for (int q = 0; q < 4; q++)
        s0[q] = y[q];
    for (int64_t c = 0; c < k; c++, w += ld) {
        float xc = x[c];
        for (int q = 0; q < 4; q++)
            s0[q] += xc * w[q];
    }
    for (int q = 0; q < 4; q++)
        y[q] = s0[q];
}

/* The same blocks in vectors of eight floats (AVX2), for an x86-64 CPU that has them, chosen at
 * run time (a plain file builds for the baseline instruction set): the sums in the same order,
 * multiplies and adds apart (no FMA), so the result is the SSE2 blocks' to the bit. A 64-unit
 * bidirectional LSTM over 64 steps on two threads: 362 to 562 us with the SSE2 blocks, 239 to
 * 339 with these (docs/results/cpu/README.md). */
#if defined(__GNUC__) && defined(__x86_64__)
#define PL_RNN_AVX2 1
PL_RNN_BLOCK4(pl_rnn_block4x16_avx2, 8, __attribute__((target("avx2"))))

__attribute__((target("avx2"))) static inline void pl_rnn_block1x32_avx2(const float *x, int64_t k, const float *w,
                                                                           int64_t ld, float *y)
{
    float s0[8], s1[8], s2[8], s3[8];
    for (int q = 0; q < 8; q++) {
        s0[q] = y[q];
        s1[q] = y[8 + q];
        s2[q] = y[16 + q];
        s3[q] = y[24 + q];
    }
    for (int64_t c = 0; c < k; c++, w += ld) {
        float xc = x[c];
        for (int q = 0; q < 8; q++) {
            s0[q] += xc * w[q];
            s1[q] += xc * w[8 + q];
            s2[q] += xc * w[16 + q];
            s3[q] += xc * w[24 + q];
        }
    }
    for (int q = 0; q < 8; q++) {
        y[q] = s0[q];
        y[8 + q] = s1[q];
        y[16 + q] = s2[q];
        y[24 + q] = s3[q];
    }
}
#endif

/* y[r][j] += sum_c x[r][c] wt[c][j] for ROWS rows of x (row stride LDX) and the columns
 * [j0, j1) of wt (row stride LD), y's rows LDY apart: four rows and 16 (AVX2) or eight columns
 * at a time, a row left over 32 and then 4 columns at a time, the last columns one by one (each
 * y element sums its products in c's order, whichever path takes it) */
static inline void pl_rnn_product(const float *x, int64_t ldx, int64_t rows, int64_t k, const float *wt, int64_t ld,
                                  int64_t j0, int64_t j1, float *y, int64_t ldy)
{
    int64_t r = 0;
#ifdef PL_RNN_AVX2
    int wide = __builtin_cpu_supports("avx2");
#endif
    for (; r + 4 <= rows; r += 4) {
        const float *x0 = x + r * ldx;
        float *y0 = y + r * ldy;
        int64_t j = j0;
#ifdef PL_RNN_AVX2
        for (; wide && j + 16 <= j1; j += 16)
            pl_rnn_block4x16_avx2(x0, ldx, k, wt + j, ld, y0 + j, ldy);
#endif
        for (; j + 8 <= j1; j += 8)
            pl_rnn_block4x8(x0, ldx, k, wt + j, ld, y0 + j, ldy);
        for (; j < j1; j++)
            for (int i = 0; i < 4; i++) {
                float a = y0[i * ldy + j];
                for (int64_t c = 0; c < k; c++)
                    a += x0[i * ldx + c] * wt[c * ld + j];
                y0[i * ldy + j] = a;
            }
    }
    for (; r < rows; r++) {
        const float *x0 = x + r * ldx;
        float *y0 = y + r * ldy;
        int64_t j = j0;
#ifdef PL_RNN_AVX2
        for (; wide && j + 32 <= j1; j += 32)
            pl_rnn_block1x32_avx2(x0, k, wt + j, ld, y0 + j);
#endif
        for (; j + 32 <= j1; j += 32)
            pl_rnn_block1x32(x0, k, wt + j, ld, y0 + j);
        for (; j + 4 <= j1; j += 4)
            pl_rnn_block1x4(x0, k, wt + j, ld, y0 + j);
        for (; j < j1; j++) {
            float a = y0[j];
            for (int64_t c = 0; c < k; c++)
                a += x0[c] * wt[c * ld + j];
            y0[j] = a;
        }
    }
}

/* The work space (floats): W and R transposed per direction ([D][C][GH], [D][H][GH]), then per
 * direction (pl_rnn_scratch floats each) the input's projection ([T][N][GH]), a step's gates
 * ([N][GH]), the states h and c ([N][H] each), and GRU's r (.) h ([N][H]) */
static inline int64_t pl_rnn_scratch(const struct pl_rnn_dims *z)
{
    int64_t gh = z->G * z->H;
    return z->T * z->N * gh + z->N * gh + 3 * z->N * z->H + 1;
}

static inline int64_t pl_rnn_work(const struct pl_op *op)
{
    struct pl_rnn_dims z = pl_rnn_dims(op);
    return z.D * (z.C + z.H) * z.G * z.H + z.D * pl_rnn_scratch(&z);
}

/* W [D][GH][C] -> [D][C][GH], R [D][GH][H] -> [D][H][GH] */
static inline void pl_rnn_pack(const struct pl_state *s, float *work)
{
    struct pl_rnn_dims z = pl_rnn_dims(s->op);
    int64_t gh = z.G * z.H;
    const float *w = (const float *)s->in[1], *rw = (const float *)s->in[2];
    float *wt = work, *rt = work + z.D * z.C * gh;
    for (int64_t d = 0; d < z.D; d++) {
        for (int64_t j = 0; j < gh; j++)
            for (int64_t c = 0; c < z.C; c++)
                wt[(d * z.C + c) * gh + j] = w[(d * gh + j) * z.C + c];
        for (int64_t j = 0; j < gh; j++)
            for (int64_t c = 0; c < z.H; c++)
                rt[(d * z.H + c) * gh + j] = rw[(d * gh + j) * z.H + c];
    }
}

static inline enum bh_status pl_rnn_setup(struct pl_state *s, struct bh_result *r)
{
    const struct pl_op *op = s->op;
    struct pl_rnn_dims z = pl_rnn_dims(op);
    /* weights at the scale of their fan-in (uniform in (-1, 1) / sqrt(fan-in)): the recurrence
     * contracts, the gates stay out of saturation (as the oneDNN benchmark's) */
    float *w = (float *)s->in[1], *rw = (float *)s->in[2];
    float sw = 1.0f / sqrtf((float)(z.C > 1 ? z.C : 1)), sr = 1.0f / sqrtf((float)(z.H > 1 ? z.H : 1));
    for (int64_t i = 0; i < pl_count(&op->in[1]); i++)
        w[i] *= sw;
    for (int64_t i = 0; i < pl_count(&op->in[2]); i++)
        rw[i] *= sr;
    /* sequence lengths: every second batch entry one step shorter, so that the steps past a
     * sequence's end are exercised */
    if (op->rnn.has >> 4 & 1u)
        for (int64_t n = 0; n < z.N; n++)
            ((int32_t *)s->in[4])[n] = (int32_t)(z.T > 1 ? z.T - n % 2 : z.T);
    s->work = (double *)malloc((size_t)pl_rnn_work(op) * sizeof(float));
    if (!s->work) {
        bh_note(r, "%s", "cannot allocate the work space");
        return BH_OOM;
    }
    if (op->rnn.packed)
        pl_rnn_pack(s, (float *)s->work);
    return BH_OK;
}

/* sequence n's length (T without sequence_lens) */
static inline int64_t pl_rnn_len(const struct pl_state *s, int64_t n, int64_t T)
{
    if (!(s->op->rnn.has >> 4 & 1u))
        return T;
    int64_t len = ((const int32_t *)s->in[4])[n];
    return len < 0 ? 0 : len > T ? T : len;
}

/* where Y's element (t, d, n, 0) and Y_h's (d, n, 0) are in out, per layout */
static inline int64_t pl_rnn_y_at(const struct pl_op *op, const struct pl_rnn_dims *z, int64_t t, int64_t d, int64_t n)
{
    return (op->rnn.batch_first ? ((n * z->T + t) * z->D + d) : ((t * z->D + d) * z->N + n)) * z->H;
}

static inline int64_t pl_rnn_state_at(const struct pl_op *op, const struct pl_rnn_dims *z, int64_t d, int64_t n)
{
    return (op->rnn.batch_first ? n * z->D + d : d * z->N + n) * z->H;
}

/* directions [BEGIN, END), each on its own scratch (a bidirectional layer's two on two threads) */
static inline void pl_rnn_directions(struct pl_state *s, int64_t begin, int64_t end, int tid)
{
    const struct pl_op *op = s->op;
    const struct pl_rnn *rn = &op->rnn;
    struct pl_rnn_dims z = pl_rnn_dims(op);
    int64_t T = z.T, N = z.N, C = z.C, H = z.H, G = z.G, gh = G * H;
    float *work = (float *)s->work, *y = (float *)s->out;
    const float *x = (const float *)s->in[0], *b = (const float *)s->in[3], *p = (const float *)s->in[7];
    const float *h0 = (const float *)s->in[5], *c0 = (const float *)s->in[6];
    int has_b = rn->has >> 3 & 1u, has_h0 = rn->has >> 5 & 1u, has_c0 = rn->has >> 6 & 1u, has_p = rn->has >> 7 & 1u;
    int nf = G == 4 ? 3 : G == 3 ? 2 : 1;
    int64_t ysize = T * z.D * N * H, ssize = z.D * N * H;
    (void)tid;
    for (int64_t d = begin; d < end; d++) {
        float *xw = work + z.D * (C + H) * gh + d * pl_rnn_scratch(&z), *rec = xw + T * N * gh, *hs = rec + N * gh;
        float *cs = hs + N * H, *rh = cs + N * H;
        const float *wt = work + d * C * gh, *rt = work + z.D * C * gh + d * H * gh;
        const float *wb = has_b ? b + d * 2 * gh : NULL, *rb = has_b ? wb + gh : NULL;
        int back = d == 1 || rn->reverse;
        /* the input's projection of every step: W x + Wb (+ Rb but GRU's h gate's with
         * linear_before_reset, added inside the reset) */
        for (int64_t t = 0; t < T; t++)
            for (int64_t n = 0; n < N; n++) {
                float *row = xw + (t * N + n) * gh;
                for (int64_t j = 0; j < gh; j++)
                    row[j] = has_b ? wb[j] + (G == 3 && rn->lbr && j >= 2 * H ? 0.0f : rb[j]) : 0.0f;
            }
        if (rn->batch_first)
            for (int64_t n = 0; n < N; n++)
                pl_rnn_product(x + n * T * C, C, T, C, wt, gh, 0, gh, xw + n * gh, N * gh);
        else
            pl_rnn_product(x, C, T * N, C, wt, gh, 0, gh, xw, gh);
        for (int64_t i = 0; i < N * H; i++) {
            int64_t at = pl_rnn_state_at(op, &z, d, i / H) + i % H;
            hs[i] = has_h0 ? h0[at] : 0.0f;
            cs[i] = has_c0 ? c0[at] : 0.0f;
        }
        const float *pi = has_p ? p + d * 3 * H : NULL, *po = pi ? pi + H : NULL, *pf = pi ? pi + 2 * H : NULL;
        int fa = (int)d * nf;
        int64_t most = 0;
        for (int64_t n = 0; n < N; n++)
            most = pl_rnn_len(s, n, T) > most ? pl_rnn_len(s, n, T) : most;
        /* step by step, every sequence's row at once (the recurrent product of N rows); a
         * sequence past its end computes but keeps its state */
        for (int64_t step = 0; step < most; step++) {
            for (int64_t n = 0; n < N; n++) {
                int64_t len = pl_rnn_len(s, n, T), t = back ? len - 1 - step : step;
                memcpy(rec + n * gh, xw + ((t < 0 ? 0 : t) * N + n) * gh, (size_t)gh * sizeof(float));
                if (G == 3 && rn->lbr)
                    for (int64_t j = 0; j < H; j++) /* the h gate: R h + Rb, the reset's */
                        rec[n * gh + 2 * H + j] = has_b ? rb[2 * H + j] : 0.0f;
            }
            /* R h: all gates (GRU without linear_before_reset: z and r, the h gate's after the
             * reset) */
            pl_rnn_product(hs, H, N, H, rt, gh, 0, G == 3 && !rn->lbr ? 2 * H : gh, rec, gh);
            if (G == 3 && !rn->lbr) {
                for (int64_t n = 0; n < N; n++) {
                    float *g = rec + n * gh;
                    pl_rnn_act(op, fa, g + H, H); /* r */
                    for (int64_t j = 0; j < H; j++)
                        rh[n * H + j] = g[H + j] * hs[n * H + j];
                }
                pl_rnn_product(rh, H, N, H, rt, gh, 2 * H, gh, rec, gh);
            }
            for (int64_t n = 0; n < N; n++) {
                int64_t len = pl_rnn_len(s, n, T), t = back ? len - 1 - step : step;
                float *g = rec + n * gh, *h = hs + n * H, *c = cs + n * H;
                if (step >= len)
                    continue;
                if (G == 3) {
                    float *zg = g, *rg = g + H, *hg = g + 2 * H;
                    const float *xh = xw + (t * N + n) * gh + 2 * H;
                    if (rn->lbr) {
                        pl_rnn_act(op, fa, g, 2 * H);
                        for (int64_t j = 0; j < H; j++) /* W x + Wb + r (.) (R h + Rb) */
                            hg[j] = xh[j] + rg[j] * hg[j];
                    } else {
                        pl_rnn_act(op, fa, zg, H); /* r is done */
                    }
                    pl_rnn_act(op, fa + 1, hg, H);
                    for (int64_t j = 0; j < H; j++)
                        h[j] = (1.0f - zg[j]) * hg[j] + zg[j] * h[j];
                } else if (G == 4) { /* i o f c */
                    float *ig = g, *og = g + H, *fg = g + 2 * H, *cg = g + 3 * H;
                    for (int64_t j = 0; pi && j < H; j++) {
                        ig[j] += pi[j] * c[j];
                        fg[j] += pf[j] * c[j];
                    }
                    pl_rnn_act(op, fa, ig, H);
                    if (rn->input_forget)
                        for (int64_t j = 0; j < H; j++)
                            fg[j] = 1.0f - ig[j];
                    else
                        pl_rnn_act(op, fa, fg, H);
                    pl_rnn_act(op, fa + 1, cg, H);
                    for (int64_t j = 0; j < H; j++)
                        c[j] = fg[j] * c[j] + ig[j] * cg[j];
                    for (int64_t j = 0; pi && j < H; j++)
                        og[j] += po[j] * c[j];
                    pl_rnn_act(op, fa, og, H);
                    memcpy(cg, c, (size_t)H * sizeof(float));
                    pl_rnn_act(op, fa + 2, cg, H);
                    for (int64_t j = 0; j < H; j++)
                        h[j] = og[j] * cg[j];
                } else {
                    pl_rnn_act(op, fa, g, H);
                    memcpy(h, g, (size_t)H * sizeof(float));
                }
                memcpy(y + pl_rnn_y_at(op, &z, t, d, n), h, (size_t)H * sizeof(float));
            }
        }
        for (int64_t n = 0; n < N; n++) {
            memcpy(y + ysize + pl_rnn_state_at(op, &z, d, n), hs + n * H, (size_t)H * sizeof(float));
            if (G == 4)
                memcpy(y + ysize + ssize + pl_rnn_state_at(op, &z, d, n), cs + n * H, (size_t)H * sizeof(float));
        }
    }
}

/* W and R transposed (when not constant: inside the timed run), Y zeroed, then the directions
 * split over the pool's threads */
static inline void pl_kernel_rnn(struct pl_state *s)
{
    const struct pl_op *op = s->op;
    struct pl_rnn_dims z = pl_rnn_dims(op);
    if (!op->rnn.packed)
        pl_rnn_pack(s, (float *)s->work);
    memset(s->out, 0, (size_t)(z.T * z.D * z.N * z.H) * sizeof(float)); /* steps past a sequence's end are 0 */
    pl_par_run(s, z.D, pl_rnn_directions);
}

/* activation K at x in long double, the clip first (pl_rnn_clips) */
static inline long double pl_rnn_act_ref(const struct pl_op *op, int k, long double x)
{
    long double c = op->rnn.clip, alpha = op->rnn.alpha[k], beta = op->rnn.beta[k];
    if (pl_rnn_clips(op, k))
        x = x < -c ? -c : x > c ? c : x;
    switch (op->rnn.act[k]) {
    case PL_ACT_TANH: return tanhl(x);
    case PL_ACT_SIGMOID: return 1 / (1 + expl(-x));
    case PL_ACT_SCALEDTANH: return alpha * tanhl(beta * x);
    case PL_ACT_ELU: return x >= 0 ? x : alpha * (expl(x) - 1);
    case PL_ACT_SOFTPLUS: return log1pl(expl(x));
    default: return pl_rnn_act_d(op->rnn.act[k], (double)alpha, (double)beta, (double)x);
    }
}

/* The layer from its definition, in long double: per direction, sequence and step, each gate
 * unit's pre-activation as its dot products over W's row (x) and R's row (h) and its biases */
static inline void pl_reference_rnn(const struct pl_state *s, double *want, double *mag)
{
    const struct pl_op *op = s->op;
    const struct pl_rnn *rn = &op->rnn;
    struct pl_rnn_dims z = pl_rnn_dims(op);
    int64_t T = z.T, N = z.N, C = z.C, H = z.H, G = z.G, gh = G * H;
    int64_t ysize = T * z.D * N * H, ssize = z.D * N * H, n_out = pl_count(&op->out);
    const float *x = (const float *)s->in[0], *w = (const float *)s->in[1], *rw = (const float *)s->in[2];
    const float *b = (const float *)s->in[3], *p = (const float *)s->in[7];
    int has_b = rn->has >> 3 & 1u, nf = G == 4 ? 3 : G == 3 ? 2 : 1;
    long double *h = (long double *)malloc((size_t)(4 * H + gh + 1) * sizeof(long double));
    for (int64_t i = 0; i < n_out; i++)
        want[i] = 0;
    if (!h) { /* no reference: every element far from it */
        for (int64_t i = 0; i < n_out; i++)
            want[i] = mag[i] = NAN;
        return;
    }
    long double *c = h + H, *hn = c + H, *cn = hn + H, *pre = cn + H;
    for (int64_t d = 0; d < z.D; d++)
        for (int64_t n = 0; n < N; n++) {
            int64_t len = pl_rnn_len(s, n, T), st = pl_rnn_state_at(op, &z, d, n);
            for (int64_t j = 0; j < H; j++) {
                h[j] = rn->has >> 5 & 1u ? ((const float *)s->in[5])[st + j] : 0;
                c[j] = rn->has >> 6 & 1u ? ((const float *)s->in[6])[st + j] : 0;
            }
            for (int64_t step = 0; step < len; step++) {
                int64_t t = d == 1 || rn->reverse ? len - 1 - step : step;
                const float *xt = x + (rn->batch_first ? n * T + t : t * N + n) * C;
                /* per gate unit: W x + Wb, and R h + Rb apart (GRU's reset acts between them) */
                for (int64_t j = 0; j < gh; j++) {
                    long double a = has_b ? b[d * 2 * gh + j] : 0, r = has_b ? b[d * 2 * gh + gh + j] : 0;
                    for (int64_t k = 0; k < C; k++)
                        a += (long double)w[(d * gh + j) * C + k] * xt[k];
                    pre[j] = a;
                    if (G == 3 && j >= 2 * H) { /* h gate: its recurrent part once r is known */
                        hn[j - 2 * H] = r;
                        continue;
                    }
                    for (int64_t k = 0; k < H; k++)
                        r += (long double)rw[(d * gh + j) * H + k] * h[k];
                    pre[j] += r;
                }
                int fa = (int)d * nf;
                if (G == 1) {
                    for (int64_t j = 0; j < H; j++)
                        hn[j] = pl_rnn_act_ref(op, fa, pre[j]);
                } else if (G == 3) {
                    for (int64_t j = 0; j < 2 * H; j++) /* z, r */
                        pre[j] = pl_rnn_act_ref(op, fa, pre[j]);
                    for (int64_t j = 0; j < H; j++) {
                        long double zg = pre[j], rg = pre[H + j], rec = 0;
                        const float *row = rw + (d * gh + 2 * H + j) * H;
                        for (int64_t k = 0; k < H; k++) /* R h, or R (r (.) h) */
                            rec += (long double)row[k] * (rn->lbr ? h[k] : pre[H + k] * h[k]);
                        long double hh = rn->lbr ? pl_rnn_act_ref(op, fa + 1, pre[2 * H + j] + rg * (rec + hn[j]))
                                                 : pl_rnn_act_ref(op, fa + 1, pre[2 * H + j] + rec + hn[j]);
                        cn[j] = (1 - zg) * hh + zg * h[j];
                    }
                    for (int64_t j = 0; j < H; j++)
                        hn[j] = cn[j];
                } else {
                    for (int64_t j = 0; j < H; j++) {
                        long double pi = rn->has >> 7 & 1u ? p[d * 3 * H + j] : 0;
                        long double po = rn->has >> 7 & 1u ? p[d * 3 * H + H + j] : 0;
                        long double pf = rn->has >> 7 & 1u ? p[d * 3 * H + 2 * H + j] : 0;
                        long double ig = pl_rnn_act_ref(op, fa, pre[j] + pi * c[j]);
                        long double fg = rn->input_forget ? 1 - ig : pl_rnn_act_ref(op, fa, pre[2 * H + j] + pf * c[j]);
                        long double cc = fg * c[j] + ig * pl_rnn_act_ref(op, fa + 1, pre[3 * H + j]);
                        long double og = pl_rnn_act_ref(op, fa, pre[H + j] + po * cc);
                        cn[j] = cc;
                        hn[j] = og * pl_rnn_act_ref(op, fa + 2, cc);
                    }
                    for (int64_t j = 0; j < H; j++)
                        c[j] = cn[j];
                }
                for (int64_t j = 0; j < H; j++) {
                    h[j] = hn[j];
                    want[pl_rnn_y_at(op, &z, t, d, n) + j] = (double)h[j];
                }
            }
            for (int64_t j = 0; j < H; j++) {
                want[ysize + st + j] = (double)h[j];
                if (G == 4)
                    want[ysize + ssize + st + j] = (double)c[j];
            }
        }
    free(h);
    for (int64_t i = 0; i < n_out; i++)
        mag[i] = 5 * (1 + fabs(want[i]));
}

static inline enum bh_status pl_verify_rnn(struct pl_state *s, struct bh_result *r)
{
    return pl_verify_near(s, r, pl_reference_rnn, "the layer from its definition in long double",
                          " (every output within 1e-5 of 1 + |reference|)");
}

#endif
