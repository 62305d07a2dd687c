/* Host references of the cuDNN and cuBLAS families: what each library call computes, in plain C
 * accumulating in double, for --verify of every library benchmark, and the tolerance each
 * result is held to.
 *
 * Needs struct bc_lib_op (cudnn_ops.h) and cuDNN's enum names; no CUDA call. The benchmark
 * copies the inputs the device used back to the host (struct br_io, converted to double),
 * runs the call once, and compares its output element by element with these functions'
 * (bc_lib_verify in cublas_ops.h). The unit tests hold these functions against oneDNN's
 * reference implementations, the CPU backend's, on the same inputs (test/cuda_ref_check.c).
 *
 * Tolerances (docs/formats.md): an output element passes when
 *     |got - ref| <= out * |ref| + (prod + K * acc) * mag [+ fn * |ref|]
 * with `out` the rounding of the output type (2 units: f32 2^-23, f16 2^-10, bf16 2^-7),
 * `prod` the rounding of the inputs to TF32 where Tensor Core math is allowed on f32 data
 * (2^-10), `acc` float accumulation (2^-24 per term of a reduction of length K), `mag` the sum
 * of the absolute values of the terms that made the element, and `fn` the error of the
 * float transcendental functions (2^-20). FFT and Winograd algorithms transform whole tiles:
 * their `mag` is the largest over the output, with 8 units of the data type more. */
#ifndef BENANZA_CUDA_REF_H
#define BENANZA_CUDA_REF_H

#include <math.h>

/* Host copies of a library benchmark's tensors, in double (NULL: not used by the family) */
struct br_io {
    double *x, *w, *x2, *b, *z, *y0;     /* y0: the output buffer before the call (beta 1) */
    double *scale, *shift, *mean, *var;  /* batch norm */
    double *hx, *cx;                     /* RNN initial states [dirs, batch, hidden] */
    /* RNN weights per direction and cuDNN linear layer (LSTM 0-3 input, 4-7 recurrent:
     * gates i f c o; GRU 0-2 and 3-5: gates r z h; RNN 0 and 1), row-major [hidden, cols] */
    const double *rw[2][8], *rb[2][8];
    long long rw_ld[2][8];               /* the row stride of each matrix */
};

enum { BR_MAX_CHECK_WORK = 50000000 }; /* multiply-adds checked in full; beyond, a sample */

static const double br_acc = 5.9604644775390625e-08; /* 2^-24 */
#define BR_FN 9.5367431640625e-07 /* 2^-20 */

static inline double br_out_unit(int dt)
{
    /* fp8 GEMMs write bfloat16 */
    return dt == BC_F16 ? 9.765625e-04 : dt == BC_BF16 || dt == BC_F8 ? 7.8125e-03 : 1.1920928955078125e-07;
}

/* The absolute error of storing a result in the output type where its values are subnormal:
 * one step of f16's subnormals (2^-24). Below 2^-14 an f16 output's relative step is no longer
 * 2^-10: 1.2540e-5, rounded to its nearest f16, is 210 steps of 2^-24 = 1.2517e-5, an error of
 * 0.18% (the H200 run of 2026-11-26: 15 f16 BatchNormalization and Mul rows "wrong" so). bf16
 * and f32 keep f32's exponent range: their subnormal steps (2^-133, 2^-149) are below any
 * tolerance here. */
static inline double br_out_floor(int dt)
{
    return dt == BC_F16 ? br_acc : 0.0;
}

/* the rounding of the inputs before they are multiplied */
static inline double br_prod_unit(const struct bc_lib_op *op)
{
    return op->dt == BC_F32 && op->tensor_op ? 9.765625e-04 : 0.0;
}

/* tensor dims, nd and element count */
static inline long long br_count(const struct bc_tensor *t)
{
    long long n = 1;
    for (int k = 0; k < t->nd; k++)
        n *= t->d[k];
    return n;
}

/* the coordinates of flat index i in t (row-major) */
static inline void br_coords(const struct bc_tensor *t, long long i, long long *c)
{
    for (int k = t->nd - 1; k >= 0; k--) {
        c[k] = i % t->d[k];
        i /= t->d[k];
    }
}

static inline double br_sigmoid(double v)
{
    return 1.0 / (1.0 + exp(-v));
}

static inline double br_act(int mode, double coef, double v);

/* ---- convolution, its fused form, and its data gradient (ConvTranspose) ---- */

/* the number of terms summed into one output element */
static inline long long br_conv_terms(const struct bc_lib_op *op)
{
    long long k = op->w.d[1];
    for (int s = 0; s < op->nsp; s++)
        k *= op->w.d[2 + s];
    return k;
}

#if BC_FAMILIES & (BC_FAM_CONV | BC_FAM_CONV_FUSED)
/* y[n, k, o...] = sum over c in k's group and r... of x[n, c, o*stride - pad + r*dil] w[k, c', r];
 * fused: act(that + bias[k] + z) */
static inline double br_conv_at(const struct bc_lib_op *op, const struct br_io *io, long long i, double *mag)
{
    long long yc[BC_MAX_ND];
    br_coords(&op->y, i, yc);
    int nsp = op->nsp;
    long long cg = op->w.d[1], kpg = op->y.d[1] / (op->groups > 1 ? op->groups : 1);
    long long n = yc[0], k = yc[1], g = k / kpg;
    long long rcount = 1;
    for (int s = 0; s < nsp; s++)
        rcount *= op->w.d[2 + s];
    double acc = 0, m = 0;
    for (long long c = 0; c < cg; c++) {
        long long cin = g * cg + c;
        for (long long rr = 0; rr < rcount; rr++) {
            long long rem = rr, xoff = n * op->x.d[1] + cin, woff = k * cg + c;
            int inside = 1;
            long long r[3] = {0, 0, 0};
            for (int s = nsp - 1; s >= 0; s--) {
                r[s] = rem % op->w.d[2 + s];
                rem /= op->w.d[2 + s];
            }
            for (int s = 0; s < nsp; s++) {
                long long pos = yc[2 + s] * op->stride[s] - op->pad[s] + r[s] * op->dil[s];
                if (pos < 0 || pos >= op->x.d[2 + s])
                    inside = 0;
                xoff = xoff * op->x.d[2 + s] + pos;
                woff = woff * op->w.d[2 + s] + r[s];
            }
            if (!inside)
                continue;
            double t = io->x[xoff] * io->w[woff];
            acc += t;
            m += fabs(t);
        }
    }
    if (BC_IS(op, BC_CONV_FUSED)) {
        acc += io->b[k];
        m += fabs(io->b[k]);
        if (op->residual) {
            acc += io->z[i];
            m += fabs(io->z[i]);
        }
        if (op->act == CUDNN_ACTIVATION_SWISH)
            acc *= br_sigmoid(acc); /* |acc sigmoid(acc)| <= |acc|: the magnitude stays a bound */
        else if (op->act != CUDNN_ACTIVATION_IDENTITY)
            acc = br_act(op->act, op->coef, acc); /* relu, relu clipped at coef, sigmoid, tanh */
    }
    *mag = m;
    return acc;
}

#endif

#if BC_FAMILIES & BC_FAM_DECONV
/* ConvTranspose as cuDNN's backward data: x is the gradient side dy [N, K, out...], w the
 * filter [K, C/g, r...], y the data side dx [N, C, in...]:
 * dx[n, c, i] = sum over k in c's group and r with i = o*stride - pad + r*dil of dy[n, k, o] w[k, c', r] */
static inline double br_deconv_at(const struct bc_lib_op *op, const struct br_io *io, long long i, double *mag)
{
    long long yc[BC_MAX_ND];
    br_coords(&op->y, i, yc);
    int nsp = op->nsp, G = op->groups > 1 ? op->groups : 1;
    long long cg = op->w.d[1], kpg = op->w.d[0] / G;
    long long n = yc[0], c = yc[1], g = c / cg, cc = c % cg;
    long long rcount = 1;
    for (int s = 0; s < nsp; s++)
        rcount *= op->w.d[2 + s];
    double acc = 0, m = 0;
    for (long long kk = 0; kk < kpg; kk++) {
        long long k = g * kpg + kk;
        for (long long rr = 0; rr < rcount; rr++) {
            long long rem = rr, r[3] = {0, 0, 0}, xoff = n * op->x.d[1] + k, woff = k * cg + cc;
            int ok = 1;
            for (int s = nsp - 1; s >= 0; s--) {
                r[s] = rem % op->w.d[2 + s];
                rem /= op->w.d[2 + s];
            }
            for (int s = 0; s < nsp && ok; s++) {
                long long num = yc[2 + s] + op->pad[s] - r[s] * op->dil[s];
                if (num < 0 || num % op->stride[s])
                    ok = 0;
                long long o = num / op->stride[s];
                if (o >= op->x.d[2 + s])
                    ok = 0;
                xoff = xoff * op->x.d[2 + s] + o;
                woff = woff * op->w.d[2 + s] + r[s];
            }
            if (!ok)
                continue;
            double t = io->x[xoff] * io->w[woff];
            acc += t;
            m += fabs(t);
        }
    }
    *mag = m;
    return acc;
}

#endif

/* ---- GEMM (row-major C[m,n] = op(A)[m,k] op(B)[k,n], batched by strides) and GEMV ---- */

/* where output element I (batch, row, column in order) is in the output buffer, at its batch
 * stride and leading dim (packed where those are 0), as cuBLAS writes it */
static inline long long br_gemm_pos(const struct bc_lib_op *op, long long i)
{
    long long mn = op->m * op->n, bt = i / mn, rem = i % mn;
    return bt * (op->stride_c ? op->stride_c : mn) + rem / op->n * (op->ldc ? op->ldc : op->n) + rem % op->n;
}

#if BC_FAMILIES & (BC_FAM_GEMM | BC_FAM_GEMV | BC_FAM_LT)
/* output element I (as br_gemm_pos counts them): alpha A B (+ C), in double */
static inline double br_gemm_at(const struct bc_lib_op *op, const struct br_io *io, long long i, double *mag)
{
    long long M = op->m, N = op->n, K = op->k;
    long long bt = i / (M * N), rem = i % (M * N), mi = rem / N, ni = rem % N;
    long long lda = op->lda ? op->lda : op->ta ? M : K, ldb = op->ldb ? op->ldb : op->tb ? K : N;
    const double *a = io->x + bt * op->stride_a, *b = io->w + bt * op->stride_b;
    double acc = 0, m = 0, alpha = op->gemm_alpha != 0 ? op->gemm_alpha : 1.0;
    for (long long kk = 0; kk < K; kk++) {
        double av = op->ta ? a[kk * lda + mi] : a[mi * lda + kk];
        double bv = op->tb ? b[ni * ldb + kk] : b[kk * ldb + ni];
        double t = av * bv;
        acc += t;
        m += fabs(t);
    }
    acc *= alpha;
    m *= fabs(alpha);
    if (op->beta_one) {
        long long at = br_gemm_pos(op, i);
        acc += io->y0[at];
        m += fabs(io->y0[at]);
    }
    *mag = m;
    return acc;
}

#endif

/* A channels-last buffer (N, spatial..., C in memory) of the logical tensor T, reordered in
 * place to N, C, spatial: the host references index NCHW */
static inline int br_nhwc_to_nchw(double *v, const struct bc_tensor *t)
{
    long long n = t->d[0], c = t->d[1], sp = 1;
    for (int k = 2; k < t->nd; k++)
        sp *= t->d[k];
    long long all = n * c * sp;
    double *tmp = (double *)malloc(sizeof(double) * (size_t)(all > 0 ? all : 1));
    if (!tmp)
        return -1;
    for (long long b = 0; b < n; b++)
        for (long long s = 0; s < sp; s++)
            for (long long ch = 0; ch < c; ch++)
                tmp[(b * c + ch) * sp + s] = v[(b * sp + s) * c + ch];
    memcpy(v, tmp, sizeof(double) * (size_t)all);
    free(tmp);
    return 0;
}

#if BC_FAMILIES & BC_FAM_LT
/* cuBLASLt: the GEMM, then its epilogue: the bias along n, then Relu or GELU (cuBLASLt's is
 * the tanh approximation, as PyTorch's approximate="tanh") */
static inline double br_lt_at(const struct bc_lib_op *op, const struct br_io *io, long long i, double *mag)
{
    double v = br_gemm_at(op, io, i, mag);
    int e = op->epilogue;
    if (e == CUBLASLT_EPILOGUE_BIAS || e == CUBLASLT_EPILOGUE_RELU_BIAS || e == CUBLASLT_EPILOGUE_GELU_BIAS) {
        double b = io->b[i % op->n];
        v += b;
        *mag += fabs(b);
    }
    if (e == CUBLASLT_EPILOGUE_RELU || e == CUBLASLT_EPILOGUE_RELU_BIAS)
        v = v > 0 ? v : 0;
    if (e == CUBLASLT_EPILOGUE_GELU || e == CUBLASLT_EPILOGUE_GELU_BIAS)
        v = 0.5 * v * (1.0 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
    return v;
}

#endif

/* ---- pooling, activations, softmax, batch norm, LRN, op tensor, reductions ---- */

#if BC_FAMILIES & BC_FAM_POOL
static inline double br_pool_at(const struct bc_lib_op *op, const struct br_io *io, long long i, double *mag)
{
    long long yc[BC_MAX_ND];
    br_coords(&op->y, i, yc);
    int nsp = op->nsp;
    long long wcount = 1;
    for (int s = 0; s < nsp; s++)
        wcount *= op->win[s];
    int max = op->mode == CUDNN_POOLING_MAX || op->mode == CUDNN_POOLING_MAX_DETERMINISTIC;
    double acc = max ? -INFINITY : 0, m = 0;
    long long inside = 0;
    for (long long rr = 0; rr < wcount; rr++) {
        long long rem = rr, r[3] = {0, 0, 0}, off = yc[0] * op->x.d[1] + yc[1];
        int ok = 1;
        for (int s = nsp - 1; s >= 0; s--) {
            r[s] = rem % op->win[s];
            rem /= op->win[s];
        }
        for (int s = 0; s < nsp; s++) {
            long long pos = yc[2 + s] * op->stride[s] - op->pad[s] + r[s];
            if (pos < 0 || pos >= op->x.d[2 + s])
                ok = 0;
            off = off * op->x.d[2 + s] + pos;
        }
        if (!ok)
            continue;
        inside++;
        double v = io->x[off];
        if (max)
            acc = v > acc ? v : acc;
        else
            acc += v;
        m += fabs(v);
    }
    if (!max) {
        double div = op->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING ? (double)wcount : (double)inside;
        acc = div > 0 ? acc / div : 0;
        m = div > 0 ? m / div : 0;
    } else {
        m = fabs(acc);
    }
    *mag = m;
    return acc;
}

#endif

static inline double br_act(int mode, double coef, double v)
{
    switch (mode) {
    case CUDNN_ACTIVATION_SIGMOID: return br_sigmoid(v);
    case CUDNN_ACTIVATION_RELU: return v > 0 ? v : 0;
    case CUDNN_ACTIVATION_TANH: return tanh(v);
    case CUDNN_ACTIVATION_CLIPPED_RELU: return v < 0 ? 0 : v > coef ? coef : v;
    case CUDNN_ACTIVATION_ELU: return v > 0 ? v : coef * (exp(v) - 1);
    case CUDNN_ACTIVATION_SWISH: return v * br_sigmoid(coef * v);
    default: return v;
    }
}

/* the value of x2 (broadcast to y's dims) at y's flat index i */
static inline double br_bcast(const struct bc_tensor *y, const struct bc_tensor *b, const double *v, long long i)
{
    long long c[BC_MAX_ND], off = 0;
    br_coords(y, i, c);
    for (int k = 0; k < y->nd; k++)
        off = off * b->d[k] + (b->d[k] == 1 ? 0 : c[k]);
    return v[off];
}

#if BC_FAMILIES & (BC_FAM_COPY | BC_FAM_ACT | BC_FAM_BNORM | BC_FAM_LRN | BC_FAM_OPTENSOR | BC_FAM_SOFTMAX | BC_FAM_REDUCE)
/* The whole output of the element-wise-like families into ref[] and each element's magnitude
 * into mag[]; softmax and reductions work by rows. -1: OP's family is not one this file has
 * the reference of (a gen bug) */
static inline int br_small_all(const struct bc_lib_op *op, const struct br_io *io, double *ref, double *mag)
{
    long long ny = br_count(&op->y);
    (void)ny; /* not every family's case reads it */
    switch (op->family) {
#if BC_FAMILIES & BC_FAM_COPY
    case BC_COPY:
        for (long long i = 0; i < ny; i++) {
            ref[i] = io->x[i];
            mag[i] = 0; /* a copy is exact */
        }
        return 0;
#endif
#if BC_FAMILIES & BC_FAM_ACT
    case BC_ACT:
        for (long long i = 0; i < ny; i++) {
            ref[i] = br_act(op->mode, op->coef, io->x[i]);
            mag[i] = fabs(ref[i]) + fabs(io->x[i]);
        }
        return 0;
#endif
#if BC_FAMILIES & BC_FAM_BNORM
    case BC_BNORM: {
        long long c = op->x.d[1], inner = ny / (op->x.d[0] * c);
        for (long long i = 0; i < ny; i++) {
            long long ch = (i / inner) % c;
            double sd = sqrt(io->var[ch] + op->eps), s = io->scale[ch] / sd;
            ref[i] = s * (io->x[i] - io->mean[ch]) + io->shift[ch];
            mag[i] = fabs(s * io->x[i]) + fabs(s * io->mean[ch]) + fabs(io->shift[ch]);
        }
        return 0;
    }
#endif
#if BC_FAMILIES & BC_FAM_LRN
    case BC_LRN: {
        long long C = op->x.d[1], inner = ny / (op->x.d[0] * C);
        long long lo = (op->lrn_n - 1) / 2, hi = op->lrn_n / 2; /* ONNX's window (the same for odd sizes) */
        for (long long i = 0; i < ny; i++) {
            long long ch = (i / inner) % C, base = i - ch * inner;
            double sq = 0;
            for (long long j = ch - lo; j <= ch + hi; j++)
                if (j >= 0 && j < C)
                    sq += io->x[base + j * inner] * io->x[base + j * inner];
            ref[i] = io->x[i] / pow(op->coef + op->alpha / op->lrn_n * sq, op->beta);
            mag[i] = fabs(ref[i]) * (1 + op->beta) * (double)op->lrn_n;
        }
        return 0;
    }
#endif
#if BC_FAMILIES & BC_FAM_OPTENSOR
    case BC_OPTENSOR:
        for (long long i = 0; i < ny; i++) {
            double a = io->x[i], b = (op->alpha < 0 ? -1 : 1) * br_bcast(&op->y, &op->x2, io->x2, i);
            ref[i] = op->mode == CUDNN_OP_TENSOR_ADD   ? a + b
                     : op->mode == CUDNN_OP_TENSOR_MUL ? a * b
                     : op->mode == CUDNN_OP_TENSOR_MIN ? (a < b ? a : b)
                                                       : (a > b ? a : b);
            mag[i] = fabs(a) + fabs(b);
        }
        return 0;
#endif
#if BC_FAMILIES & BC_FAM_SOFTMAX
    case BC_SOFTMAX: {
        /* over dim 1 of the (outer, mid, inner, 1) view */
        long long outer = op->x.d[0], mid = op->x.d[1], inner = op->x.d[2] * (op->x.nd > 3 ? op->x.d[3] : 1);
        for (long long o = 0; o < outer; o++)
            for (long long in = 0; in < inner; in++) {
                const double *x = io->x + o * mid * inner + in;
                double mx = -INFINITY, sum = 0;
                for (long long j = 0; j < mid; j++)
                    mx = x[j * inner] > mx ? x[j * inner] : mx;
                for (long long j = 0; j < mid; j++)
                    sum += exp(x[j * inner] - mx);
                for (long long j = 0; j < mid; j++) {
                    long long at = o * mid * inner + j * inner + in;
                    double d = x[j * inner] - mx;
                    if (op->algo == CUDNN_SOFTMAX_LOG) {
                        ref[at] = d - log(sum);
                        mag[at] = fabs(d) + fabs(log(sum)) + (double)mid * fabs(ref[at]);
                    } else {
                        ref[at] = exp(d) / sum;
                        mag[at] = (double)mid * ref[at];
                    }
                }
            }
        return 0;
    }
#endif
#if BC_FAMILIES & BC_FAM_REDUCE
    case BC_REDUCE: {
        /* every x element goes to the y element with its reduced coordinates set to 0 */
        long long nx = br_count(&op->x), c[BC_MAX_ND];
        long long terms = nx / (ny ? ny : 1);
        int mode = op->mode;
        for (long long i = 0; i < ny; i++) {
            ref[i] = mode == CUDNN_REDUCE_TENSOR_MUL ? 1.0
                     : mode == CUDNN_REDUCE_TENSOR_MIN ? INFINITY
                     : mode == CUDNN_REDUCE_TENSOR_MAX ? -INFINITY
                                                       : 0.0;
            mag[i] = 0;
        }
        for (long long i = 0; i < nx; i++) {
            br_coords(&op->x, i, c);
            long long at = 0;
            for (int k = 0; k < op->x.nd; k++)
                at = at * op->y.d[k] + (op->y.d[k] == 1 ? 0 : c[k]);
            double v = io->x[i];
            switch (mode) {
            case CUDNN_REDUCE_TENSOR_MUL: ref[at] *= v; break;
            case CUDNN_REDUCE_TENSOR_MIN: ref[at] = v < ref[at] ? v : ref[at]; break;
            case CUDNN_REDUCE_TENSOR_MAX: ref[at] = v > ref[at] ? v : ref[at]; break;
            case CUDNN_REDUCE_TENSOR_AMAX: ref[at] = fabs(v) > ref[at] ? fabs(v) : ref[at]; break;
            case CUDNN_REDUCE_TENSOR_NORM1: ref[at] += fabs(v); break;
            case CUDNN_REDUCE_TENSOR_NORM2: ref[at] += v * v; break;
            default: ref[at] += v; break; /* ADD, AVG */
            }
            mag[at] += fabs(v);
        }
        for (long long i = 0; i < ny; i++) {
            if (mode == CUDNN_REDUCE_TENSOR_AVG) {
                ref[i] /= (double)terms;
                mag[i] /= (double)terms;
            } else if (mode == CUDNN_REDUCE_TENSOR_NORM2) {
                ref[i] = sqrt(ref[i]);
                mag[i] = fabs(ref[i]);
            } else if (mode == CUDNN_REDUCE_TENSOR_MUL || mode == CUDNN_REDUCE_TENSOR_MIN ||
                       mode == CUDNN_REDUCE_TENSOR_MAX || mode == CUDNN_REDUCE_TENSOR_AMAX) {
                mag[i] = fabs(ref[i]);
            }
        }
        return 0;
    }
#endif
    default:
        return -1;
    }
}
#endif

#if BC_FAMILIES & BC_FAM_RNN
/* ---- recurrent layers ---- */

/* gate activations of one step, the cuDNN way: LSTM i f c o, GRU r z h (the recurrent part
 * of h scaled by r after its bias: linear_before_reset), RNN one */
static inline void br_rnn(const struct bc_lib_op *op, const struct br_io *io, double *y, double *hy, double *cy)
{
    int dirs = op->bidir ? 2 : 1, H = op->hidden, I = op->input, B = op->batch, T = op->seq;
    int gates = op->mode == CUDNN_LSTM ? 4 : op->mode == CUDNN_GRU ? 3 : 1;
    double *h = (double *)calloc((size_t)H, sizeof(double)), *c = (double *)calloc((size_t)H, sizeof(double));
    double *a = (double *)calloc((size_t)gates * H, sizeof(double)), *rr = (double *)calloc((size_t)gates * H, sizeof(double));
    if (!h || !c || !a || !rr)
        goto out;
    for (int d = 0; d < dirs; d++)
        for (int b = 0; b < B; b++) {
            for (int j = 0; j < H; j++) {
                h[j] = io->hx[((long long)d * B + b) * H + j];
                c[j] = io->cx ? io->cx[((long long)d * B + b) * H + j] : 0;
            }
            for (int step = 0; step < T; step++) {
                int t = d == 0 ? step : T - 1 - step;
                const double *x = io->x + ((long long)t * B + b) * I;
                for (int g = 0; g < gates; g++) {
                    const double *W = io->rw[d][g], *R = io->rw[d][gates + g];
                    const double *bw = io->rb[d][g], *br = io->rb[d][gates + g];
                    for (int j = 0; j < H; j++) {
                        double s = bw[j], q = br[j];
                        for (int k = 0; k < I; k++)
                            s += W[j * io->rw_ld[d][g] + k] * x[k];
                        for (int k = 0; k < H; k++)
                            q += R[j * io->rw_ld[d][gates + g] + k] * h[k];
                        a[g * H + j] = s;
                        rr[g * H + j] = q;
                    }
                }
                for (int j = 0; j < H; j++) {
                    if (op->mode == CUDNN_LSTM) {
                        double ig = br_sigmoid(a[j] + rr[j]), fg = br_sigmoid(a[H + j] + rr[H + j]);
                        double cg = tanh(a[2 * H + j] + rr[2 * H + j]), og = br_sigmoid(a[3 * H + j] + rr[3 * H + j]);
                        c[j] = fg * c[j] + ig * cg;
                        h[j] = og * tanh(c[j]);
                    } else if (op->mode == CUDNN_GRU) {
                        double rg = br_sigmoid(a[j] + rr[j]), zg = br_sigmoid(a[H + j] + rr[H + j]);
                        double ng = tanh(a[2 * H + j] + rg * rr[2 * H + j]);
                        h[j] = (1 - zg) * ng + zg * h[j];
                    } else {
                        double v = a[j] + rr[j];
                        h[j] = op->mode == CUDNN_RNN_RELU ? (v > 0 ? v : 0) : tanh(v);
                    }
                }
                for (int j = 0; j < H; j++)
                    y[((long long)t * B + b) * H * dirs + (long long)d * H + j] = h[j];
            }
            for (int j = 0; j < H; j++) {
                hy[((long long)d * B + b) * H + j] = h[j];
                if (cy)
                    cy[((long long)d * B + b) * H + j] = c[j];
            }
        }
out:
    free(h);
    free(c);
    free(a);
    free(rr);
}

#endif

/* ---- the comparison ---- */

struct br_check {
    long long checked, total, bad, first_bad;
    double first_got, first_want;
    double max_abs, max_rel, worst_ratio; /* worst |got - ref| / tolerance */
};

/* One element: got against ref with tolerance tol */
static inline void br_check_one(struct br_check *c, long long i, double got, double ref, double tol)
{
    double err = fabs(got - ref);
    if (got != got && ref == ref)
        err = INFINITY;
    if (got != got && ref != ref)
        err = 0;
    c->checked++;
    if (err > c->max_abs)
        c->max_abs = err;
    if (fabs(ref) > 1e-30 && err / fabs(ref) > c->max_rel)
        c->max_rel = err / fabs(ref);
    double ratio = tol > 0 ? err / tol : (err > 0 ? INFINITY : 0);
    if (ratio > c->worst_ratio)
        c->worst_ratio = ratio;
    if (!(err <= tol)) {
        if (c->bad == 0) {
            c->first_bad = i;
            c->first_got = got;
            c->first_want = ref;
        }
        c->bad++;
    }
}

/* Which algorithms transform whole tiles (FFT, Winograd): their error scales with the tile */
static inline int br_transform_algo(const struct bc_lib_op *op)
{
    if (BC_IS(op, BC_CONV) || BC_IS(op, BC_CONV_FUSED))
        return op->algo == CUDNN_CONVOLUTION_FWD_ALGO_FFT || op->algo == CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING ||
               op->algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD ||
               op->algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
    if (BC_IS(op, BC_DECONV))
        return op->algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT || op->algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING ||
               op->algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD ||
               op->algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED;
    return 0;
}

/* The reduction length behind one output element */
static inline long long br_terms(const struct bc_lib_op *op)
{
    switch (op->family) {
    case BC_CONV:
    case BC_CONV_FUSED:
    case BC_DECONV:
        return br_conv_terms(op) + 2;
    case BC_GEMM:
    case BC_GEMV:
        return op->k + 1;
    case BC_LT:
        return op->k + 3; /* the bias, and the activation's own rounding */
    case BC_POOL: {
        long long w = 1;
        for (int s = 0; s < op->nsp; s++)
            w *= op->win[s];
        return w;
    }
    case BC_SOFTMAX:
        return op->x.d[1];
    case BC_REDUCE:
        return br_count(&op->x) / (br_count(&op->y) ? br_count(&op->y) : 1);
    case BC_LRN:
        return op->lrn_n;
    case BC_BNORM:
        return 4; /* a subtraction, a product, a sum, and the rounding of scale / sqrt(var + eps) */
    default:
        return 1;
    }
}

#if BC_FAMILIES & BC_FAM_SDPA
/* BC_SDPA: every output element against softmax(Q K^T scale [+ mask]) V in double (Q in x,
 * K in w, V in x2, the mask in b; query head h reads K's and V's head h / rep). cuDNN's
 * attention engines keep the scores in float and round the probabilities to the type before
 * P V: each term of the output may be off by a rounding of p_j |v_j|, and the output by its
 * own. Outputs beyond BR_MAX_CHECK_WORK terms are sampled
 * by query rows. */
static inline struct br_check br_sdpa_compare(const struct bc_lib_op *op, const struct br_io *io, const double *got)
{
    const struct bc_att *a = &op->att;
    struct br_check c;
    memset(&c, 0, sizeof(c));
    c.total = a->b * a->h * a->sq * a->dv;
    double *s = (double *)malloc(sizeof(double) * (size_t)(a->skv > 0 ? a->skv : 1));
    if (!s) {
        c.total = -1;
        return c;
    }
    double u = br_out_unit(op->dt);
    long long rows = a->b * a->h * a->sq, per_row = a->skv * (a->d + a->dv);
    long long budget = BR_MAX_CHECK_WORK / (per_row > 0 ? per_row : 1);
    long long step = rows <= budget || budget < 1 ? 1 : rows / budget + 1;
    for (long long row = 0; row < rows; row += step) {
        long long i = row % a->sq, hb = row / a->sq, h = hb % a->h, b = hb / a->h;
        long long hk = a->rep > 1 ? h / a->rep : h; /* K's and V's head (grouped-query attention) */
        double mx = -INFINITY, sum = 0;
        for (long long j = 0; j < a->skv; j++) {
            double dot = 0;
            for (long long e = 0; e < a->d; e++)
                dot += io->x[b * a->q[0] + h * a->q[1] + i * a->q[2] + e * a->q[3]] *
                       io->w[b * a->k[0] + hk * a->k[1] + j * a->k[2] + e * a->k[3]];
            double x = dot * a->scale;
            if (a->mask)
                x += io->b[b * a->m[0] + h * a->m[1] + i * a->m[2] + j * a->m[3]];
            s[j] = x;
            mx = x > mx ? x : mx;
        }
        for (long long j = 0; j < a->skv; j++) {
            s[j] = exp(s[j] - mx);
            sum += s[j];
        }
        for (long long e = 0; e < a->dv; e++) {
            double acc = 0, mag = 0;
            for (long long j = 0; j < a->skv; j++) {
                double vv = io->x2[b * a->v[0] + hk * a->v[1] + j * a->v[2] + e * a->v[3]];
                acc += s[j] * vv;
                mag += s[j] * fabs(vv);
            }
            double ref = acc / sum;
            mag /= sum;
            double tol = u * fabs(ref) + br_out_floor(op->dt) + (u + 64.0 * br_acc) * mag + 1e-6 * (mag > 0 ? mag : 1);
            long long at = b * a->o[0] + h * a->o[1] + i * a->o[2] + e * a->o[3];
            br_check_one(&c, at, got[at], ref, tol);
        }
    }
    free(s);
    return c;
}

#endif

/* One output element of the families checked element by element, and into MAG its magnitude
 * (-1: OP's family is not one this file has the reference of, a gen bug) */
static inline double br_elem_at(const struct bc_lib_op *op, const struct br_io *io, long long i, double *mag)
{
#if BC_FAMILIES & BC_FAM_DECONV
    if (BC_IS(op, BC_DECONV))
        return br_deconv_at(op, io, i, mag);
#endif
#if BC_FAMILIES & (BC_FAM_GEMM | BC_FAM_GEMV)
    if (BC_IS(op, BC_GEMM) || BC_IS(op, BC_GEMV))
        return br_gemm_at(op, io, i, mag);
#endif
#if BC_FAMILIES & BC_FAM_LT
    if (BC_IS(op, BC_LT))
        return br_lt_at(op, io, i, mag);
#endif
#if BC_FAMILIES & BC_FAM_POOL
    if (BC_IS(op, BC_POOL))
        return br_pool_at(op, io, i, mag);
#endif
#if BC_FAMILIES & (BC_FAM_CONV | BC_FAM_CONV_FUSED)
    if (BC_IS(op, BC_CONV) || BC_IS(op, BC_CONV_FUSED))
        return br_conv_at(op, io, i, mag);
#endif
    (void)op;
    (void)io;
    (void)i;
    *mag = -1;
    return 0;
}

/* Compares the device's output (got, the family's y) with the reference; the RNN's hy is
 * compared too (got_h). Returns the check; outputs larger than BR_MAX_CHECK_WORK terms are
 * sampled (the first and last 512 elements and an even stride between). */
static inline struct br_check br_compare(const struct bc_lib_op *op, const struct br_io *io, const double *got,
                                         const double *got_h)
{
    (void)got_h; /* the RNN's */
#if BC_FAMILIES & BC_FAM_SDPA
    if (BC_IS(op, BC_SDPA))
        return br_sdpa_compare(op, io, got);
#endif
    struct br_check c;
    memset(&c, 0, sizeof(c));
    long long ny = BC_IS(op, BC_RNN) ? (long long)op->seq * op->batch * op->hidden * (op->bidir ? 2 : 1)
                   : BC_IS(op, BC_GEMM) || BC_IS(op, BC_GEMV) || BC_IS(op, BC_LT)
                       ? op->m * op->n * (op->batch_count > 1 ? op->batch_count : 1)
                       : br_count(&op->y);
    c.total = ny;
    double out = br_out_unit(op->dt), prod = br_prod_unit(op), tiny = br_out_floor(op->dt);
    long long K = br_terms(op);
    /* fp8 tensor cores add the products in a narrower accumulator than float (about 14 bits
     * kept between the promotions to float) */
    double acc_term = prod + (double)K * (op->dt == BC_F8 ? 6.103515625e-05 : br_acc);
    int tile = br_transform_algo(op);
    if (tile)
        acc_term += 8 * br_out_unit(op->dt) + 64 * br_acc;
    int per_elem = BC_IS(op, BC_CONV) || BC_IS(op, BC_CONV_FUSED) || BC_IS(op, BC_DECONV) ||
                   BC_IS(op, BC_GEMM) || BC_IS(op, BC_GEMV) || BC_IS(op, BC_LT) || BC_IS(op, BC_POOL);
    if (per_elem) {
        long long budget = BR_MAX_CHECK_WORK / (K > 0 ? K : 1);
        long long step = ny <= budget || budget < 1024 ? 1 : (ny - 1024) / (budget - 1024) + 1;
        double maxmag = 0;
        double *refs = NULL, *mags = NULL;
        long long *idx = NULL, cnt = 0, cap = ny < budget ? ny : budget + 2048;
        refs = (double *)malloc(sizeof(double) * (size_t)cap);
        mags = (double *)malloc(sizeof(double) * (size_t)cap);
        idx = (long long *)malloc(sizeof(long long) * (size_t)cap);
        if (!refs || !mags || !idx) {
            free(refs);
            free(mags);
            free(idx);
            c.total = -1;
            return c;
        }
        for (long long i = 0; i < ny && cnt < cap;) {
            double m = 0, v = br_elem_at(op, io, i, &m);
            if (m < 0) {
                cnt = 0;
                c.total = -2;
                break;
            }
            refs[cnt] = v;
            mags[cnt] = m;
            idx[cnt++] = BC_IS(op, BC_GEMM) || BC_IS(op, BC_LT) ? br_gemm_pos(op, i) : i;
            if (m > maxmag)
                maxmag = m;
            long long next = i + ((i < 512 || i >= ny - 512) ? 1 : step);
            i = i < ny - 512 && next > ny - 512 ? ny - 512 : next;
        }
        for (long long j = 0; j < cnt; j++) {
            double tol = out * fabs(refs[j]) + tiny + acc_term * (tile ? maxmag : mags[j]);
            br_check_one(&c, idx[j], got[idx[j]], refs[j], tol);
        }
        free(refs);
        free(mags);
        free(idx);
        return c;
    }
#if BC_FAMILIES & BC_FAM_RNN
    if (BC_IS(op, BC_RNN)) {
        int dirs = op->bidir ? 2 : 1;
        long long nh = (long long)dirs * op->batch * op->hidden;
        double *ref = (double *)malloc(sizeof(double) * (size_t)ny), *rh = (double *)malloc(sizeof(double) * (size_t)nh);
        if (!ref || !rh) {
            free(ref);
            free(rh);
            c.total = -1;
            return c;
        }
        br_rnn(op, io, ref, rh, NULL);
        /* states bounded by 1: an absolute tolerance, growing with the steps an error
         * travels through */
        double step_err = out + prod + (double)(op->input + op->hidden + 2) * br_acc + BR_FN;
        double tol = out + 2.0 * (1.0 + sqrt((double)op->seq)) * step_err;
        for (long long i = 0; i < ny; i++)
            br_check_one(&c, i, got[i], ref[i], tol);
        for (long long i = 0; got_h && i < nh; i++)
            br_check_one(&c, ny + i, got_h[i], rh[i], tol);
        c.total = ny + (got_h ? nh : 0);
        free(ref);
        free(rh);
        return c;
    }
#endif
#if BC_FAMILIES & (BC_FAM_COPY | BC_FAM_ACT | BC_FAM_BNORM | BC_FAM_LRN | BC_FAM_OPTENSOR | BC_FAM_SOFTMAX | BC_FAM_REDUCE)
    double *ref = (double *)malloc(sizeof(double) * (size_t)ny), *mag = (double *)malloc(sizeof(double) * (size_t)ny);
    if (!ref || !mag) {
        free(ref);
        free(mag);
        c.total = -1;
        return c;
    }
    if (br_small_all(op, io, ref, mag) < 0) {
        free(ref);
        free(mag);
        c.total = -2;
        return c;
    }
    int fn = (BC_IS(op, BC_ACT) && op->mode != CUDNN_ACTIVATION_RELU && op->mode != CUDNN_ACTIVATION_CLIPPED_RELU &&
              op->mode != CUDNN_ACTIVATION_IDENTITY) ||
             BC_IS(op, BC_SOFTMAX) || BC_IS(op, BC_LRN) ||
             (BC_IS(op, BC_REDUCE) && op->mode == CUDNN_REDUCE_TENSOR_NORM2);
    for (long long i = 0; i < ny; i++) {
        double tol = BC_IS(op, BC_COPY) ? 0
                                        : out * fabs(ref[i]) + tiny + acc_term * mag[i] +
                                              (fn ? BR_FN * (fabs(ref[i]) + mag[i]) : 0) + 1e-30;
        br_check_one(&c, i, got[i], ref[i], tol);
    }
    free(ref);
    free(mag);
    return c;
#else
    c.total = -2; /* no reference for this family here (a gen bug) */
    return c;
#endif
}

#endif
