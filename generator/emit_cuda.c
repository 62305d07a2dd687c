/* The CUDA backend: each unique layer becomes cuDNN/cuBLAS benchmarks (one per algorithm the
 * library has for the operation and per data type: templates/cuda/lib.c.mustache, plain C
 * built by the C compiler) or, where no library call does the work, a kernel of ours
 * (templates/cuda/kernel.cu.mustache, built by nvcc).
 *
 * gen needs no CUDA toolkit for this: the operation is written as a designated initializer of
 * struct bc_lib_op (runtime/cudnn_ops.h) with the libraries' enum names, so that the C
 * compiler on the benchmark machine checks every field and value. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runtime/harness.h"
#include "../runtime/plain_ops.h"
#include "../runtime/plain_index.h"
#include "../runtime/plain_reduce.h"
#include "../runtime/plain_quant.h"
#include "../runtime/plain_sample.h"
#include "../runtime/plain_linalg.h"
#include "../runtime/plain_signal.h"
#include "../runtime/plain_string.h"
#include "../runtime/plain_nn.h"
#include "../runtime/plain_random.h"
#include "../runtime/plain_select.h"
#include "emit.h"

/* ---- the data types: storage type x math mode ---- */

struct cu_type {
    const char *stem;   /* in file names: f32, tf32, f16, f16tc, bf16 */
    const char *dtype;  /* the CSV's dtype column */
    const char *bc;     /* enum bc_dtype */
    int tensor_op;      /* Tensor Core math (TF32 for f32 storage) */
    double size;        /* bytes per element */
};

enum { CU_F32, CU_TF32, CU_F16, CU_F16TC, CU_BF16, CU_NTYPES };
static const struct cu_type cu_types[CU_NTYPES] = {
    {"f32", "f32", "BC_F32", 0, 4}, {"tf32", "tf32", "BC_F32", 1, 4}, {"f16", "f16", "BC_F16", 0, 2},
    {"f16tc", "f16", "BC_F16", 1, 2}, {"bf16", "bf16", "BC_BF16", 1, 2},
};
/* which types a family is benchmarked in: Tensor Core math only matters where there is a
 * matrix product */
#define CU_ALL_TYPES ((1u << CU_NTYPES) - 1)
#define CU_PLAIN_TYPES ((1u << CU_F32) | (1u << CU_F16) | (1u << CU_BF16))
#define CU_RNN_TYPES ((1u << CU_F32) | (1u << CU_F16) | (1u << CU_F16TC))

/* ---- an operation as gen sees it ---- */

struct cu_tensor {
    int nd;
    int64_t d[8];
};

struct cu_algo {
    const char *name;   /* the algorithm in file names and the impl column */
    const char *value;  /* its enum name in the library */
    unsigned types;     /* the types it exists in (0: the family's) */
};

struct cu_plan {
    const char *family;         /* BC_CONV, ... */
    const char *what;           /* the library call, for the header comment */
    struct cu_tensor x, w, y, x2;
    int nsp, groups;
    int pad[3], stride[3], dil[3], win[3];
    const char *mode;           /* an enum name, or NULL */
    const char *act;
    int residual;
    double coef, alpha, beta, eps;
    int lrn_n;
    int bidir, seq, batch, input, hidden;
    int64_t m, n, k, batch_count, stride_a, stride_b, stride_c;
    int ta, tb, beta_one;
    unsigned types;             /* CU_*_TYPES */
    const struct cu_algo *algos;
    int nalgos;
    bool advice;                /* also the two advice benchmarks (convolutions) */
    bool gemv;                  /* also cublasSgemv (f32, one side a vector) */
    double flops, elems;        /* elements moved (bytes = elems x type size) */
    char notes[4][160];         /* for the header comment */
    int nnotes;
};

static int tensor_of(const json_t *t, struct cu_tensor *out)
{
    memset(out, 0, sizeof(*out));
    int nd = emit_shape(t, out->d);
    if (nd < 0)
        return -1;
    out->nd = nd;
    for (int k = 0; k < nd; k++)
        if (out->d[k] < 0 || out->d[k] > INT32_MAX)
            return -1; /* cuDNN and cuBLAS take int dims */
    return 0;
}

static int64_t nelem(const struct cu_tensor *t)
{
    int64_t n = 1;
    for (int k = 0; k < t->nd; k++)
        n *= t->d[k];
    return n;
}

static bool same_shape(const struct cu_tensor *a, const struct cu_tensor *b)
{
    return a->nd == b->nd && !memcmp(a->d, b->d, sizeof(a->d[0]) * (size_t)a->nd);
}

static void ints_attr(const json_t *attrs, const char *name, int *out, int n, int dflt)
{
    const json_t *a = json_object_get(attrs, name);
    for (int k = 0; k < n; k++)
        out[k] = a && (size_t)k < json_array_size(a) ? (int)json_integer_value(json_array_get(a, (size_t)k)) : dflt;
}

static void note(struct cu_plan *p, const char *fmt, ...) BZ_PRINTF(2, 3);
static void note(struct cu_plan *p, const char *fmt, ...)
{
    if (p->nnotes == (int)BZ_ARRAY_LEN(p->notes))
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->notes[p->nnotes++], sizeof(p->notes[0]), fmt, ap);
    va_end(ap);
}

static const struct cu_algo conv_algos[] = {
    {"implicit_gemm", "CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM", 0},
    {"implicit_precomp_gemm", "CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM", 0},
    {"gemm", "CUDNN_CONVOLUTION_FWD_ALGO_GEMM", 0},
    {"direct", "CUDNN_CONVOLUTION_FWD_ALGO_DIRECT", 0},
    {"fft", "CUDNN_CONVOLUTION_FWD_ALGO_FFT", 0},
    {"fft_tiling", "CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING", 0},
    {"winograd", "CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD", 0},
    {"winograd_nonfused", "CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED", 0},
};
static const struct cu_algo deconv_algos[] = {
    {"algo0", "CUDNN_CONVOLUTION_BWD_DATA_ALGO_0", 0},
    {"algo1", "CUDNN_CONVOLUTION_BWD_DATA_ALGO_1", 0},
    {"fft", "CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT", 0},
    {"fft_tiling", "CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING", 0},
    {"winograd", "CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD", 0},
    {"winograd_nonfused", "CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED", 0},
};
static const struct cu_algo softmax_algos[] = {
    {"fast", "CUDNN_SOFTMAX_FAST", 0},
    {"accurate", "CUDNN_SOFTMAX_ACCURATE", 0},
};
static const struct cu_algo logsoftmax_algos[] = {{"log", "CUDNN_SOFTMAX_LOG", 0}};
static const struct cu_algo rnn_algos[] = {
    {"standard", "CUDNN_RNN_ALGO_STANDARD", 0},
    {"persist_static", "CUDNN_RNN_ALGO_PERSIST_STATIC", 0},
    {"persist_dynamic", "CUDNN_RNN_ALGO_PERSIST_DYNAMIC", 0},
    {"persist_static_small_h", "CUDNN_RNN_ALGO_PERSIST_STATIC_SMALL_H", 0},
};
static const struct cu_algo one_call[] = {{"cudnn", "0", 0}};

/* cublasGemmAlgo_t: the plain algorithms for math without Tensor Cores, the _TENSOR_OP ones
 * for Tensor Core math */
#define CU_NO_TC ((1u << CU_F32) | (1u << CU_F16))
#define CU_TC ((1u << CU_TF32) | (1u << CU_F16TC) | (1u << CU_BF16))
static struct cu_algo gemm_algos[1 + 24 + 1 + 16];
static char gemm_names[BZ_ARRAY_LEN(gemm_algos)][2][48];

static void init_gemm_algos(void)
{
    if (gemm_algos[0].name)
        return;
    int n = 0;
    for (int tc = 0; tc < 2; tc++) {
        int count = tc ? 16 : 24;
        for (int a = -1; a < count; a++, n++) {
            if (a < 0) {
                snprintf(gemm_names[n][0], sizeof(gemm_names[n][0]), "%s", tc ? "default_tensor_op" : "default");
                snprintf(gemm_names[n][1], sizeof(gemm_names[n][1]), "%s",
                         tc ? "CUBLAS_GEMM_DEFAULT_TENSOR_OP" : "CUBLAS_GEMM_DEFAULT");
            } else {
                snprintf(gemm_names[n][0], sizeof(gemm_names[n][0]), "algo%d%s", a, tc ? "_tensor_op" : "");
                snprintf(gemm_names[n][1], sizeof(gemm_names[n][1]), "CUBLAS_GEMM_ALGO%d%s", a, tc ? "_TENSOR_OP" : "");
            }
            gemm_algos[n] = (struct cu_algo){gemm_names[n][0], gemm_names[n][1], tc ? CU_TC : CU_NO_TC};
        }
    }
}

/* Convolution and pooling windows: cuDNN pads both sides alike. Asymmetric padding (and
 * ceil_mode) is run the way ONNX Runtime runs it: the input padded explicitly to the size
 * that gives the layer's output with the smaller pad on both sides. */
static void window_dims(struct cu_plan *p, const int *pads, const int *kernel)
{
    for (int k = 0; k < p->nsp; k++) {
        int pb = pads[k], pe = pads[k + p->nsp];
        p->pad[k] = pb < pe ? pb : pe;
        int64_t ek = (int64_t)(kernel[k] - 1) * p->dil[k] + 1;
        int64_t need = (p->y.d[2 + k] - 1) * p->stride[k] + ek - 2 * p->pad[k];
        int64_t have = p->x.d[2 + k];
        if (have < need || have > need + p->stride[k] - 1) {
            note(p, "input dim %d run as %lld (from %lld) for padding %d+%d", 2 + k, (long long)need, (long long)have,
                 pb, pe);
            p->x.d[2 + k] = need;
        }
    }
}

/* 1-D convolution and pooling as 2-D with a height of 1 (cuDNN wants at least 2 spatial dims) */
static void lift_1d(struct cu_plan *p, bool weights)
{
    struct cu_tensor *ts[3] = {&p->x, &p->y, &p->w};
    for (int i = 0; i < (weights ? 3 : 2); i++) {
        ts[i]->d[3] = ts[i]->d[2];
        ts[i]->d[2] = 1;
        ts[i]->nd = 4;
    }
    p->pad[1] = p->pad[0];
    p->stride[1] = p->stride[0];
    p->dil[1] = p->dil[0];
    p->win[1] = p->win[0];
    p->pad[0] = 0;
    p->stride[0] = p->dil[0] = p->win[0] = 1;
    p->nsp = 2;
}

static int plan_conv(const json_t *params, struct cu_plan *p, bool transposed)
{
    const json_t *attrs = json_object_get(params, "attrs");
    if (tensor_of(emit_io(params, "inputs", 0), &p->x) || tensor_of(emit_io(params, "inputs", 1), &p->w) ||
        tensor_of(emit_io(params, "outputs", 0), &p->y) || p->x.nd < 3 || p->x.nd > 5 || p->w.nd != p->x.nd)
        return -1;
    p->nsp = p->x.nd - 2;
    p->groups = (int)emit_num_attr(attrs, "group", 1);
    int pads[6], kernel[3];
    ints_attr(attrs, "strides", p->stride, p->nsp, 1);
    ints_attr(attrs, "dilations", p->dil, p->nsp, 1);
    ints_attr(attrs, "pads", pads, 2 * p->nsp, 0);
    for (int k = 0; k < p->nsp; k++)
        kernel[k] = (int)p->w.d[2 + k];
    int64_t oc = p->y.d[1], ic = p->x.d[1], kvol = 1;
    for (int k = 0; k < p->nsp; k++)
        kvol *= kernel[k];
    p->flops = 2.0 * (double)nelem(transposed ? &p->x : &p->y) * (double)(transposed ? oc / p->groups : ic / p->groups) *
               (double)kvol;
    p->elems = (double)(nelem(&p->x) + nelem(&p->w) + nelem(&p->y));
    if (!transposed) {
        /* ONNX weights [OC, IC/g, k...] are cuDNN's filter [K, C, k...] */
        window_dims(p, pads, kernel);
        p->family = "BC_CONV";
        p->what = "cudnnConvolutionForward";
        p->algos = conv_algos;
        p->nalgos = (int)BZ_ARRAY_LEN(conv_algos);
        p->advice = true;
    } else {
        /* the data gradient of the convolution from y to x: ONNX weights [IC, OC/g, k...] are
         * that convolution's filter [K, C, k...]; output_padding is in y's size */
        for (int k = 0; k < p->nsp; k++) {
            /* cuDNN pads both sides alike: the smaller pad, or the larger where the smaller
             * cannot give y's size (an odd SAME padding) */
            int pb = pads[k], pe = pads[k + p->nsp];
            int64_t ek = (int64_t)(kernel[k] - 1) * p->dil[k] + 1, need = 0;
            for (int larger = 0; larger < 2; larger++) {
                p->pad[k] = (pb < pe) != larger ? pb : pe;
                need = (p->x.d[2 + k] - 1) * p->stride[k] + ek - 2 * p->pad[k];
                if (p->y.d[2 + k] >= need && p->y.d[2 + k] <= need + p->stride[k] - 1)
                    break;
            }
            if (p->y.d[2 + k] < need || p->y.d[2 + k] > need + p->stride[k] - 1) {
                note(p, "output dim %d run as %lld (from %lld) for padding %d+%d", 2 + k, (long long)need,
                     (long long)p->y.d[2 + k], pb, pe);
                p->y.d[2 + k] = need;
            }
        }
        p->family = "BC_DECONV";
        p->what = "cudnnConvolutionBackwardData (ConvTranspose is the data gradient of a convolution)";
        p->algos = deconv_algos;
        p->nalgos = (int)BZ_ARRAY_LEN(deconv_algos);
    }
    if (p->nsp == 1)
        lift_1d(p, true);
    p->types = CU_ALL_TYPES;
    return 0;
}

static int plan_pool(const json_t *params, const char *opname, struct cu_plan *p)
{
    const json_t *attrs = json_object_get(params, "attrs");
    if (tensor_of(emit_io(params, "inputs", 0), &p->x) || tensor_of(emit_io(params, "outputs", 0), &p->y) ||
        p->x.nd < 3 || p->x.nd > 5 || json_array_size(json_object_get(params, "outputs")) > 1)
        return -1;
    p->nsp = p->x.nd - 2;
    bool global = !strncmp(opname, "Global", 6), max = strstr(opname, "Max") != NULL;
    int pads[6] = {0}, dil[3];
    ints_attr(attrs, "dilations", dil, p->nsp, 1);
    for (int k = 0; k < p->nsp; k++) {
        if (dil[k] != 1)
            return -1; /* cuDNN pooling has no dilation */
        p->dil[k] = 1;
    }
    if (global) {
        for (int k = 0; k < p->nsp; k++) {
            p->win[k] = (int)p->x.d[2 + k];
            p->stride[k] = 1;
        }
    } else {
        ints_attr(attrs, "kernel_shape", p->win, p->nsp, 1);
        ints_attr(attrs, "strides", p->stride, p->nsp, 1);
        ints_attr(attrs, "pads", pads, 2 * p->nsp, 0);
        window_dims(p, pads, p->win);
    }
    p->mode = max ? "CUDNN_POOLING_MAX"
                  : emit_num_attr(attrs, "count_include_pad", 0) ? "CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING"
                                                                 : "CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING";
    if (p->nsp == 1)
        lift_1d(p, false);
    p->family = "BC_POOL";
    p->what = "cudnnPoolingForward";
    int64_t wvol = 1;
    for (int k = 0; k < p->nsp; k++)
        wvol *= p->win[k];
    p->flops = (double)nelem(&p->y) * (double)wvol;
    p->elems = (double)(nelem(&p->x) + nelem(&p->y));
    return 0;
}

/* Gemm and MatMul as row-major C[m,n] = A[m,k] B[k,n]; batch dims of A alone fold into m (what
 * frameworks do for a MatMul with weights), batch dims on both sides (or on B alone) become a
 * strided batched GEMM. */
static int plan_gemm(const json_t *params, const char *opname, struct cu_plan *p)
{
    const json_t *attrs = json_object_get(params, "attrs");
    struct cu_tensor a, b;
    if (tensor_of(emit_io(params, "inputs", 0), &a) || tensor_of(emit_io(params, "inputs", 1), &b) ||
        tensor_of(emit_io(params, "outputs", 0), &p->y) || a.nd < 1 || b.nd < 1)
        return -1;
    if (!strcmp(opname, "Gemm")) {
        if (a.nd != 2 || b.nd != 2)
            return -1;
        p->ta = (int)emit_num_attr(attrs, "transA", 0) != 0;
        p->tb = (int)emit_num_attr(attrs, "transB", 0) != 0;
        p->m = p->ta ? a.d[1] : a.d[0];
        p->k = p->ta ? a.d[0] : a.d[1];
        p->n = p->tb ? b.d[0] : b.d[1];
        p->batch_count = 1;
        if (emit_io(params, "inputs", 2) && emit_num_attr(attrs, "beta", 1.0) != 0.0) {
            p->beta_one = 1;
            note(p, "the bias C is accumulated into the output (beta 1), as frameworks do after copying it there");
        }
    } else {
        int64_t ba = 1, bb = 1;
        p->m = a.nd == 1 ? 1 : a.d[a.nd - 2];
        p->k = a.d[a.nd - 1];
        p->n = b.nd == 1 ? 1 : b.d[b.nd - 1];
        for (int i = 0; i < a.nd - 2; i++)
            ba *= a.d[i];
        for (int i = 0; i < b.nd - 2; i++)
            bb *= b.d[i];
        if (bb == 1) {
            p->m *= ba; /* B shared by every batch: one GEMM over all rows of A */
            p->batch_count = 1;
        } else {
            /* batch dims must match one to one, or A's be absent */
            int64_t by = 1;
            for (int i = 0; i < p->y.nd - 2; i++)
                by *= p->y.d[i];
            if (!((ba == bb && ba == by) || (ba == 1 && bb == by)))
                return -1;
            p->batch_count = by;
            p->stride_a = ba == 1 ? 0 : p->m * p->k;
            p->stride_b = p->k * p->n;
            p->stride_c = p->m * p->n;
        }
    }
    if (p->m <= 0 || p->n <= 0 || p->k <= 0 || p->m > INT32_MAX || p->n > INT32_MAX || p->k > INT32_MAX)
        return -1;
    init_gemm_algos();
    p->family = "BC_GEMM";
    p->what = p->batch_count > 1 ? "cublasGemmStridedBatchedEx" : "cublasGemmEx";
    p->algos = gemm_algos;
    p->nalgos = (int)BZ_ARRAY_LEN(gemm_algos);
    p->types = CU_ALL_TYPES;
    p->gemv = (p->m == 1 || p->n == 1) && !p->ta && !p->tb && p->batch_count == 1;
    p->flops = 2.0 * (double)p->m * (double)p->n * (double)p->k * (double)p->batch_count;
    p->elems = (double)(nelem(&a) + nelem(&b) + nelem(&p->y));
    return 0;
}

static int plan_rnn(const json_t *params, const char *opname, struct cu_plan *p)
{
    const json_t *attrs = json_object_get(params, "attrs");
    struct cu_tensor w;
    if (tensor_of(emit_io(params, "inputs", 0), &p->x) || tensor_of(emit_io(params, "inputs", 1), &w) ||
        p->x.nd != 3 || emit_num_attr(attrs, "layout", 0) != 0 || json_object_get(attrs, "clip") ||
        emit_num_attr(attrs, "input_forget", 0) != 0)
        return -1;
    const json_t *acts = json_object_get(attrs, "activations");
    const char *dir = emit_str_attr(attrs, "direction", "forward");
    if (!strcmp(dir, "reverse"))
        return -1; /* cuDNN runs forward or both ways */
    p->bidir = !strcmp(dir, "bidirectional");
    p->seq = (int)p->x.d[0];
    p->batch = (int)p->x.d[1];
    p->input = (int)p->x.d[2];
    p->hidden = (int)emit_num_attr(attrs, "hidden_size", 0);
    if (p->hidden <= 0)
        return -1;
    int gates;
    if (!strcmp(opname, "LSTM")) {
        if (acts || emit_io(params, "inputs", 7))
            return -1; /* cuDNN's LSTM is sigmoid/tanh/tanh, without peepholes */
        p->mode = "CUDNN_LSTM";
        gates = 4;
    } else if (!strcmp(opname, "GRU")) {
        /* cuDNN's GRU applies the recurrent weights before the reset gate */
        if (acts || emit_num_attr(attrs, "linear_before_reset", 0) == 0)
            return -1;
        p->mode = "CUDNN_GRU";
        gates = 3;
    } else {
        const char *a = acts ? json_string_value(json_array_get(acts, 0)) : "Tanh";
        if (!a || (strcmp(a, "Tanh") && strcmp(a, "Relu")))
            return -1;
        p->mode = !strcmp(a, "Relu") ? "CUDNN_RNN_RELU" : "CUDNN_RNN_TANH";
        gates = 1;
    }
    int dirs = p->bidir ? 2 : 1;
    p->family = "BC_RNN";
    p->what = "cudnnRNNForward (inference)";
    p->algos = rnn_algos;
    p->nalgos = (int)BZ_ARRAY_LEN(rnn_algos);
    p->types = CU_RNN_TYPES;
    p->flops = 2.0 * dirs * p->seq * (double)p->batch * gates * p->hidden * (double)(p->input + p->hidden);
    p->elems = (double)nelem(&p->x) + (double)dirs * gates * p->hidden * (p->input + p->hidden + 2) +
               (double)p->seq * p->batch * p->hidden * dirs;
    return 0;
}

/* an activation cuDNN has: its mode and coefficient */
static const char *act_mode(const char *op, const json_t *attrs, double *coef)
{
    *coef = 0;
    if (!strcmp(op, "Relu"))
        return "CUDNN_ACTIVATION_RELU";
    if (!strcmp(op, "Sigmoid"))
        return "CUDNN_ACTIVATION_SIGMOID";
    if (!strcmp(op, "Tanh"))
        return "CUDNN_ACTIVATION_TANH";
    if (!strcmp(op, "Elu")) {
        *coef = emit_num_attr(attrs, "alpha", 1.0);
        return "CUDNN_ACTIVATION_ELU";
    }
    if (!strcmp(op, "Clip") && json_is_number(json_object_get(attrs, "min")) &&
        emit_num_attr(attrs, "min", -1) == 0.0 && json_is_number(json_object_get(attrs, "max"))) {
        *coef = emit_num_attr(attrs, "max", 0);
        return "CUDNN_ACTIVATION_CLIPPED_RELU"; /* Relu6 and friends */
    }
    return NULL;
}

/* b broadcast to a's rank, right-aligned: every dim equal or 1 */
static bool broadcasts_to(const struct cu_tensor *b, const struct cu_tensor *y)
{
    if (b->nd > y->nd)
        return false;
    for (int k = 0; k < b->nd; k++) {
        int64_t d = b->d[b->nd - 1 - k];
        if (d != 1 && d != y->d[y->nd - 1 - k])
            return false;
    }
    return true;
}

static void align_rank(struct cu_tensor *b, int nd)
{
    int pad = nd - b->nd;
    for (int k = b->nd - 1; k >= 0; k--)
        b->d[k + pad] = b->d[k];
    for (int k = 0; k < pad; k++)
        b->d[k] = 1;
    b->nd = nd;
}

/* the sizes of a softmax over AXIS as (outer, axis, inner, 1) */
static void softmax_view(const struct cu_tensor *x, int axis, bool coerce, struct cu_tensor *v)
{
    int64_t outer = 1, mid = 1, inner = 1;
    for (int k = 0; k < x->nd; k++) {
        if (k < axis)
            outer *= x->d[k];
        else if (k == axis || coerce)
            mid *= x->d[k];
        else
            inner *= x->d[k];
    }
    *v = (struct cu_tensor){4, {outer, mid, inner, 1}};
}

static int plan_layer(const json_t *params, struct cu_plan *p)
{
    memset(p, 0, sizeof(*p));
    p->algos = one_call;
    p->nalgos = 1;
    p->types = CU_PLAIN_TYPES;
    const char *opname = json_string_value(json_object_get(params, "op"));
    const json_t *attrs = json_object_get(params, "attrs");
    if (!opname || strcmp(json_string_value(json_object_get(params, "domain")), "") != 0)
        return -1;
    if (!strcmp(opname, "Conv"))
        return plan_conv(params, p, false);
    if (!strcmp(opname, "ConvTranspose"))
        return plan_conv(params, p, true);
    if (!strcmp(opname, "MaxPool") || !strcmp(opname, "AveragePool") || !strcmp(opname, "GlobalMaxPool") ||
        !strcmp(opname, "GlobalAveragePool"))
        return plan_pool(params, opname, p);
    if (!strcmp(opname, "Gemm") || !strcmp(opname, "MatMul"))
        return plan_gemm(params, opname, p);
    if (!strcmp(opname, "LSTM") || !strcmp(opname, "GRU") || !strcmp(opname, "RNN"))
        return plan_rnn(params, opname, p);
    if (tensor_of(emit_io(params, "inputs", 0), &p->x) || tensor_of(emit_io(params, "outputs", 0), &p->y) ||
        p->x.nd > 5)
        return -1;
    p->elems = (double)(nelem(&p->x) + nelem(&p->y));
    p->flops = (double)nelem(&p->y);
    if ((p->mode = act_mode(opname, attrs, &p->coef)) != NULL) {
        p->family = "BC_ACT";
        p->what = "cudnnActivationForward";
        return 0;
    }
    if (!strcmp(opname, "BatchNormalization")) {
        if (p->x.nd < 2 || json_array_size(json_object_get(params, "outputs")) > 1)
            return -1;
        p->family = "BC_BNORM";
        p->what = "cudnnBatchNormalizationForwardInference (spatial)";
        p->eps = emit_num_attr(attrs, "epsilon", 1e-5);
        p->flops = 2.0 * (double)nelem(&p->y);
        return 0;
    }
    if (!strcmp(opname, "LRN")) {
        p->lrn_n = (int)emit_num_attr(attrs, "size", 5);
        if (p->lrn_n < 1 || p->lrn_n > 16 || p->x.nd != 4)
            return -1;
        p->family = "BC_LRN";
        p->what = "cudnnLRNCrossChannelForward";
        p->alpha = emit_num_attr(attrs, "alpha", 1e-4);
        p->beta = emit_num_attr(attrs, "beta", 0.75);
        p->coef = emit_num_attr(attrs, "bias", 1.0);
        p->flops = (double)nelem(&p->y) * (p->lrn_n + 3);
        return 0;
    }
    if (!strcmp(opname, "Softmax") || !strcmp(opname, "LogSoftmax")) {
        int axis = (int)emit_num_attr(attrs, "axis", -1);
        if (axis < 0)
            axis += p->x.nd;
        bool coerce = emit_num_attr(attrs, "coerce_2d", 0) != 0;
        softmax_view(&p->x, axis, coerce, &p->x);
        p->y = p->x;
        p->family = "BC_SOFTMAX";
        p->what = "cudnnSoftmaxForward";
        p->mode = "CUDNN_SOFTMAX_MODE_CHANNEL";
        bool log = opname[0] == 'L';
        p->algos = log ? logsoftmax_algos : softmax_algos;
        p->nalgos = log ? 1 : 2;
        p->flops = 4.0 * (double)nelem(&p->y);
        return 0;
    }
    static const struct { const char *op, *mode; } optensor[] = {
        {"Add", "CUDNN_OP_TENSOR_ADD"}, {"Sum", "CUDNN_OP_TENSOR_ADD"}, {"Sub", "CUDNN_OP_TENSOR_ADD"},
        {"Mul", "CUDNN_OP_TENSOR_MUL"}, {"Min", "CUDNN_OP_TENSOR_MIN"}, {"Max", "CUDNN_OP_TENSOR_MAX"},
    };
    for (size_t i = 0; i < BZ_ARRAY_LEN(optensor); i++) {
        if (strcmp(opname, optensor[i].op))
            continue;
        struct cu_tensor b;
        if (json_array_size(json_object_get(params, "inputs")) != 2 || tensor_of(emit_io(params, "inputs", 1), &b) ||
            b.nd > 5 || p->y.nd > 5)
            return -1;
        /* the first operand has the output's shape, the second broadcasts (swapped when the
         * op commutes) */
        if (!same_shape(&p->x, &p->y)) {
            if (!same_shape(&b, &p->y) || !strcmp(opname, "Sub") || !broadcasts_to(&p->x, &p->y))
                return -1;
            struct cu_tensor t = p->x;
            p->x = b;
            b = t;
        } else if (!broadcasts_to(&b, &p->y)) {
            return -1;
        }
        align_rank(&b, p->y.nd);
        p->x2 = b;
        p->family = "BC_OPTENSOR";
        p->what = "cudnnOpTensor";
        p->mode = optensor[i].mode;
        p->alpha = !strcmp(opname, "Sub") ? -1 : 1;
        p->elems += (double)nelem(&b);
        return 0;
    }
    static const struct { const char *op, *mode; } reductions[] = {
        {"ReduceSum", "CUDNN_REDUCE_TENSOR_ADD"},  {"ReduceProd", "CUDNN_REDUCE_TENSOR_MUL"},
        {"ReduceMin", "CUDNN_REDUCE_TENSOR_MIN"},  {"ReduceMax", "CUDNN_REDUCE_TENSOR_MAX"},
        {"ReduceMean", "CUDNN_REDUCE_TENSOR_AVG"}, {"ReduceL1", "CUDNN_REDUCE_TENSOR_NORM1"},
        {"ReduceL2", "CUDNN_REDUCE_TENSOR_NORM2"},
    };
    for (size_t i = 0; i < BZ_ARRAY_LEN(reductions); i++) {
        if (strcmp(opname, reductions[i].op))
            continue;
        /* the output with the reduced dims kept as 1 (keepdims only changes the view) */
        p->y = p->x;
        emit_reduced_dims(attrs, p->y.d, p->x.nd);
        p->family = "BC_REDUCE";
        p->what = "cudnnReduceTensor";
        p->mode = reductions[i].mode;
        p->flops = (double)nelem(&p->x);
        return 0;
    }
    return -1;
}

/* Fusion groups cuDNN runs as one call: Conv[+BN folded][+Add residual][+Relu] through
 * cudnnConvolutionBiasActivationForward (identity or Relu; a folded BN is the bias). */
static int plan_fused(const json_t *params, struct cu_plan *p)
{
    const char *pattern = json_string_value(json_object_get(params, "pattern"));
    const json_t *members = json_object_get(params, "members");
    const json_t *first = json_array_get(members, 0);
    if (!pattern || !first || strncmp(pattern, "conv_", 5))
        return -1;
    if (plan_layer(first, p) || strcmp(p->family, "BC_CONV"))
        return -1;
    const json_t *last = emit_fused_act(params);
    p->act = "CUDNN_ACTIVATION_IDENTITY";
    if (last) {
        const char *act = json_string_value(json_object_get(last, "op"));
        if (!act || strcmp(act, "Relu"))
            return -1; /* cuDNN fuses Relu only */
        p->act = "CUDNN_ACTIVATION_RELU";
    }
    p->residual = strstr(pattern, "_add") != NULL;
    p->family = "BC_CONV_FUSED";
    p->what = "cudnnConvolutionBiasActivationForward";
    p->advice = false;
    p->elems += (double)nelem(&p->y) * (p->residual ? 1 : 0) + (double)p->y.d[1];
    return 0;
}

/* ---- rendering ---- */

static void tensor_init(struct bz_buf *b, const char *field, const struct cu_tensor *t)
{
    if (t->nd)
        emit_c_array(b, ", ", field, true, t->d, t->nd, "");
}

static void ints_init(struct bz_buf *b, const char *field, const int *v, int n)
{
    int64_t w[8];
    for (int k = 0; k < n; k++)
        w[k] = v[k];
    emit_c_array(b, ", ", field, false, w, n, "");
}

static char *op_initializer(const struct cu_plan *p, const struct cu_type *t, const char *algo, const char *mode)
{
    struct bz_buf b;
    bz_buf_init(&b);
    bz_buf_printf(&b, "{\n    .family = %s, .dt = %s, .tensor_op = %d, .algo = %s", p->family, t->bc, t->tensor_op,
                  algo);
    if (mode)
        bz_buf_printf(&b, ", .mode = %s", mode);
    struct bz_buf ts;
    bz_buf_init(&ts);
    tensor_init(&ts, "x", &p->x);
    tensor_init(&ts, "w", &p->w);
    tensor_init(&ts, "y", &p->y);
    tensor_init(&ts, "x2", &p->x2);
    if (ts.len)
        bz_buf_printf(&b, ",\n    %s", ts.data + 2);
    bz_buf_free(&ts);
    if (p->nsp) {
        bz_buf_printf(&b, ",\n    .nsp = %d", p->nsp);
        ints_init(&b, "pad", p->pad, p->nsp);
        ints_init(&b, "stride", p->stride, p->nsp);
        ints_init(&b, "dil", p->dil, p->nsp);
        if (!strcmp(p->family, "BC_POOL"))
            ints_init(&b, "win", p->win, p->nsp);
        if (p->groups > 1)
            bz_buf_printf(&b, ", .groups = %d", p->groups);
    }
    if (p->act)
        bz_buf_printf(&b, ", .act = %s, .residual = %d", p->act, p->residual);
    if (p->coef != 0 || p->alpha != 0 || p->beta != 0 || p->eps != 0)
        bz_buf_printf(&b, ",\n    .coef = %.9g, .alpha = %.9g, .beta = %.9g, .eps = %.9g", p->coef, p->alpha, p->beta,
                      p->eps);
    if (p->lrn_n)
        bz_buf_printf(&b, ", .lrn_n = %d", p->lrn_n);
    if (p->seq)
        bz_buf_printf(&b, ",\n    .bidir = %d, .seq = %d, .batch = %d, .input = %d, .hidden = %d", p->bidir, p->seq,
                      p->batch, p->input, p->hidden);
    if (p->m)
        bz_buf_printf(&b,
                      ",\n    .m = %lld, .n = %lld, .k = %lld, .batch_count = %lld, .stride_a = %lld, .stride_b = %lld, "
                      ".stride_c = %lld, .ta = %d, .tb = %d, .beta_one = %d",
                      (long long)p->m, (long long)p->n, (long long)p->k, (long long)p->batch_count,
                      (long long)p->stride_a, (long long)p->stride_b, (long long)p->stride_c, p->ta, p->tb, p->beta_one);
    bz_buf_puts(&b, ",\n}");
    return bz_buf_steal(&b);
}

static void render_lib(struct emit_ctx *e, int li, const struct cu_plan *p, int ti, const char *family,
                       const char *algo_name, const char *algo_value, const char *mode)
{
    const struct layer *l = &e->p->layers.v[li];
    const struct cu_type *t = &cu_types[ti];
    struct cu_plan q = *p;
    q.family = family;
    struct bz_buf file, title, key, what, dtc;
    bz_buf_init(&file);
    bz_buf_init(&title);
    bz_buf_init(&key);
    bz_buf_init(&what);
    bz_buf_init(&dtc);
    bz_buf_printf(&file, "%s-%s-%s", l->id, t->stem, algo_name);
    emit_comment_text(&title, l->name);
    emit_comment_text(&key, l->key);
    if (!strcmp(family, "BC_ADVICE"))
        bz_buf_printf(&what, "%s", strcmp(algo_name, "heuristic") ? "cudnnFindConvolutionForwardAlgorithmEx's measured ranking of the forward algorithms"
                                                                  : "cudnnGetConvolutionForwardAlgorithm_v7's heuristic ranking of the forward algorithms");
    else if (!strcmp(family, "BC_GEMV"))
        bz_buf_puts(&what, "cublasSgemv");
    else
        bz_buf_printf(&what, "%s, algorithm %s", p->what, algo_value);
    bz_buf_printf(&dtc, "%s, %s", t->dtype,
                  t->tensor_op ? (ti == CU_TF32 ? "TF32 Tensor Core math" : "Tensor Core math allowed")
                               : "no Tensor Cores");
    char *init = op_initializer(&q, t, algo_value, mode);
    json_t *notes = json_array();
    for (int i = 0; i < p->nnotes; i++) {
        struct bz_buf s;
        bz_buf_init(&s);
        emit_comment_text(&s, p->notes[i]);
        json_array_append_new(notes, json_string(s.data));
        bz_buf_free(&s);
    }
    char flops[64], bytes[64];
    snprintf(flops, sizeof(flops), "%.17g", p->flops);
    snprintf(bytes, sizeof(bytes), "%.17g", p->elems * t->size);
    size_t hl, cl, dl, bl, rl;
    const char *harness = emit_embedded("runtime/harness.h", &hl);
    const char *cuda = emit_embedded("runtime/cuda_bench.h", &cl);
    const char *dnn = emit_embedded("runtime/cudnn_ops.h", &dl);
    const char *ref = emit_embedded("runtime/cuda_ref.h", &rl);
    const char *blas = emit_embedded("runtime/cublas_ops.h", &bl);
    json_t *data = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:o,s:o,s:s,s:s,s:s,s:s%,s:s%,s:s%,s:s%,s:s%}", "title",
                             title.data, "layer", l->id, "layer_name", l->name, "op", l->op, "impl", algo_name, "what",
                             what.data, "dtype", t->dtype, "dtype_comment", dtc.data, "file", file.data, "key_comment",
                             key.data, "uses", emit_uses(e->p, li, 6), "notes", notes, "op_init", init, "flops", flops,
                             "bytes", bytes, "harness", harness, hl, "cuda_bench", cuda, cl, "cudnn_ops", dnn, dl,
                             "cuda_ref", ref, rl, "cublas_ops", blas, bl);
    struct bz_buf rel;
    bz_buf_init(&rel);
    bz_buf_printf(&rel, "bench/%s.c", file.data);
    if (data && emit_render(e, "templates/cuda/lib.c.mustache", data, rel.data) == 0)
        emit_add_bench(e, file.data, l, "cc_cuda");
    json_decref(data);
    free(init);
    bz_buf_free(&rel);
    bz_buf_free(&file);
    bz_buf_free(&title);
    bz_buf_free(&key);
    bz_buf_free(&what);
    bz_buf_free(&dtc);
}

static void render_plan(struct emit_ctx *e, int li, const struct cu_plan *p)
{
    for (int ti = 0; ti < CU_NTYPES; ti++) {
        if (!(p->types & (1u << ti)))
            continue;
        for (int a = 0; a < p->nalgos; a++) {
            if (p->algos[a].types && !(p->algos[a].types & (1u << ti)))
                continue;
            const char *mode = p->mode;
            render_lib(e, li, p, ti, p->family, p->algos[a].name, p->algos[a].value, mode);
        }
        if (p->advice) {
            render_lib(e, li, p, ti, "BC_ADVICE", "heuristic", "0", "0");
            render_lib(e, li, p, ti, "BC_ADVICE", "find", "0", "1");
        }
        if (p->gemv && ti == CU_F32)
            render_lib(e, li, p, ti, "BC_GEMV", "gemv", "0", NULL);
    }
}

/* ---- kernels of ours ---- */

struct cu_kernel {
    const char *kind;           /* BK_PLAIN, BK_TRANSPOSE, BK_CONCAT, BK_LAYERNORM */
    const char *what;
    struct pl_op pl;
    int perm[8];
    int axis, ncat, affine, linear;
    struct pl_tensor cat[64];
    double eps, flops, bytes;
};

static int pl_tensor_of(const json_t *t, struct pl_tensor *out)
{
    struct cu_tensor c;
    const char *n = t ? json_string_value(json_object_get(t, "dtype")) : NULL;
    if (tensor_of(t, &c) || !n || strcmp(n, "FLOAT"))
        return -1;
    out->dtype = PL_FLOAT;
    out->nd = c.nd;
    for (int k = 0; k < c.nd; k++)
        out->d[k] = c.d[k];
    return 0;
}

static double pl_bytes(const struct pl_tensor *t)
{
    double n = 1;
    for (int k = 0; k < t->nd; k++)
        n *= (double)t->d[k];
    return n * (double)pl_esize(t->dtype);
}

static int plan_kernel(const json_t *params, bool fused, struct cu_kernel *k)
{
    memset(k, 0, sizeof(*k));
    k->kind = "BK_PLAIN";
    const char *opname = json_string_value(json_object_get(params, "op"));
    const json_t *attrs = json_object_get(params, "attrs");
    if (fused) {
        /* the decomposed GELU and LayerNorm groups: one kernel from the group's input to its output */
        const char *pattern = json_string_value(json_object_get(params, "pattern"));
        const json_t *members = json_object_get(params, "members");
        const json_t *first = json_array_get(members, 0), *last = json_array_get(members, json_array_size(members) - 1);
        if (!pattern || pl_tensor_of(emit_io(first, "inputs", 0), &k->pl.in[0]) ||
            pl_tensor_of(emit_io(last, "outputs", 0), &k->pl.out))
            return -1;
        if (!strcmp(pattern, "gelu")) {
            k->pl.kind = PL_UNARY;
            k->pl.fn = PL_GELU;
            k->pl.nin = 1;
            k->what = "GELU (erf), the group's nodes in one kernel";
            k->flops = 8.0 * pl_bytes(&k->pl.out) / 4;
        } else if (!strcmp(pattern, "layernorm")) {
            k->kind = "BK_LAYERNORM";
            k->affine = json_array_size(members) >= 9;
            k->eps = 1e-5;
            k->what = "LayerNorm over the last axis, the group's nodes in one kernel";
            k->flops = 5.0 * pl_bytes(&k->pl.out) / 4;
        } else {
            return -1;
        }
        k->bytes = pl_bytes(&k->pl.in[0]) + pl_bytes(&k->pl.out);
        return 0;
    }
    if (!opname)
        return -1;
    if (!strcmp(opname, "Transpose")) {
        if (pl_tensor_of(emit_io(params, "inputs", 0), &k->pl.in[0]) ||
            pl_tensor_of(emit_io(params, "outputs", 0), &k->pl.out))
            return -1;
        const json_t *perm = json_object_get(attrs, "perm");
        int nd = k->pl.in[0].nd;
        for (int d = 0; d < nd; d++)
            k->perm[d] = perm ? (int)json_integer_value(json_array_get(perm, (size_t)d)) : nd - 1 - d;
        k->kind = "BK_TRANSPOSE";
        k->what = "Transpose";
    } else if (!strcmp(opname, "Concat")) {
        size_t n = json_array_size(json_object_get(params, "inputs"));
        if (n < 1 || n > 64 || pl_tensor_of(emit_io(params, "outputs", 0), &k->pl.out))
            return -1;
        for (size_t i = 0; i < n; i++)
            if (pl_tensor_of(emit_io(params, "inputs", i), &k->cat[i]))
                return -1;
        k->pl.in[0] = k->cat[0];
        k->ncat = (int)n;
        k->axis = (int)emit_num_attr(attrs, "axis", 0);
        if (k->axis < 0)
            k->axis += k->pl.out.nd;
        k->kind = "BK_CONCAT";
        k->what = "Concat";
    } else if (!strcmp(opname, "Resize") || !strcmp(opname, "Upsample")) {
        const char *mode = emit_str_attr(attrs, "mode", "nearest");
        if (pl_tensor_of(emit_io(params, "inputs", 0), &k->pl.in[0]) ||
            pl_tensor_of(emit_io(params, "outputs", 0), &k->pl.out) || k->pl.in[0].nd < 3 ||
            k->pl.in[0].nd != k->pl.out.nd || (strcmp(mode, "nearest") && strcmp(mode, "linear") && strcmp(mode, "bilinear")))
            return -1;
        /* the last two dims resampled; the others kept */
        for (int d = 0; d < k->pl.out.nd - 2; d++)
            if (k->pl.in[0].d[d] != k->pl.out.d[d])
                return -1;
        k->linear = strcmp(mode, "nearest") != 0;
        k->kind = "BK_RESIZE";
        k->what = k->linear ? "Resize (bilinear, half-pixel coordinates)" : "Resize (nearest, half-pixel coordinates)";
    } else if (!strcmp(opname, "LayerNormalization")) {
        if (pl_tensor_of(emit_io(params, "inputs", 0), &k->pl.in[0]) ||
            pl_tensor_of(emit_io(params, "outputs", 0), &k->pl.out))
            return -1;
        int axis = (int)emit_num_attr(attrs, "axis", -1);
        if (axis < 0)
            axis += k->pl.out.nd;
        /* normalised over dims axis..: rows of their product */
        int64_t cols = 1;
        for (int d = axis; d < k->pl.out.nd; d++)
            cols *= k->pl.out.d[d];
        k->pl.out.d[axis] = cols;
        k->pl.out.nd = axis + 1;
        k->pl.in[0] = k->pl.out;
        k->affine = 1;
        k->eps = emit_num_attr(attrs, "epsilon", 1e-5);
        k->kind = "BK_LAYERNORM";
        k->what = "LayerNormalization";
    } else {
        /* no kernel here yet for the kinds after PL_MAP (ScatterND, Split, ArgMax/ArgMin,
         * TopK), nor for a fold of three inputs or Mean */
        bool nary = k->pl.kind == PL_BINARY && (k->pl.nin != 2 || (k->pl.flag && k->pl.fn == PL_ADD));
        if (emit_plain_plan(params, &k->pl) || k->pl.kind > PL_MAP || nary)
            return -1;
        k->what = opname;
    }
    k->bytes = pl_bytes(&k->pl.out);
    for (int i = 0; i < k->pl.nin; i++)
        k->bytes += pl_bytes(&k->pl.in[i]);
    if (k->flops == 0)
        k->flops = (double)(k->bytes > 0 ? pl_bytes(&k->pl.out) / (double)pl_esize(k->pl.out.dtype) : 0);
    return 0;
}

static void pl_fields(json_t *f, const char *name, const struct pl_tensor *t)
{
    char line[400];
    int n = snprintf(line, sizeof(line), "%s = (struct pl_tensor){%d, %d, {", name, t->dtype, t->nd);
    for (int d = 0; d < t->nd && n > 0 && (size_t)n < sizeof(line); d++)
        n += snprintf(line + n, sizeof(line) - (size_t)n, "%s%lld", d ? ", " : "", (long long)t->d[d]);
    snprintf(line + n, sizeof(line) - (size_t)n, "}}");
    json_array_append_new(f, json_string(line));
}

static json_t *kernel_fields(const struct cu_kernel *k)
{
    static const char *const fns[] = {
        "PL_ERF", "PL_NEG", "PL_ABS", "PL_SQRT", "PL_EXP", "PL_LOG", "PL_FLOOR", "PL_CEIL", "PL_ROUND", "PL_SIGN",
        "PL_SIN", "PL_COS", "PL_TAN", "PL_TANH", "PL_SIGMOID", "PL_RECIPROCAL", "PL_NOT", "PL_HARDSIGMOID",
        "PL_SELU", "PL_SOFTSIGN", "PL_SOFTPLUS", "PL_ADD", "PL_SUB", "PL_MUL", "PL_DIV", "PL_POW", "PL_MAX",
        "PL_MIN", "PL_MOD", "PL_EQUAL", "PL_LESS", "PL_GREATER", "PL_LESS_EQUAL", "PL_GREATER_EQUAL", "PL_AND",
        "PL_OR", "PL_XOR", "PL_IDENTITY", "PL_GELU", "PL_PRELU", "PL_HARDSWISH", "PL_LEAKYRELU", "PL_CLIP",
        "PL_ASIN", "PL_ACOS", "PL_ATAN", "PL_SINH", "PL_COSH", "PL_ASINH", "PL_ACOSH", "PL_ATANH", "PL_ISINF",
        "PL_ISNAN", "PL_CELU", "PL_SHRINK", "PL_THRESHOLDED_RELU", "PL_BITSHIFT"};
    static const char *const kinds[] = {"PL_UNARY", "PL_BINARY", "PL_WHERE", "PL_CAST", "PL_EXPAND", "PL_GATHER", "PL_MAP"};
    static const char *const maps[] = {"PL_MAP_SLICE", "PL_MAP_PAD", "PL_MAP_TILE"};
    _Static_assert(BZ_ARRAY_LEN(fns) == PL_BITSHIFT + 1, "every pl_fn named");
    json_t *f = json_array();
    const struct pl_op *pl = &k->pl;
    char line[400];
    snprintf(line, sizeof(line), "kind = %s", k->kind);
    json_array_append_new(f, json_string(line));
    if (!strcmp(k->kind, "BK_PLAIN")) {
        snprintf(line, sizeof(line), "pl.kind = %s", kinds[pl->kind]);
        json_array_append_new(f, json_string(line));
        snprintf(line, sizeof(line), "pl.fn = %s", fns[pl->fn]);
        json_array_append_new(f, json_string(line));
        snprintf(line, sizeof(line), "pl.nin = %d", pl->nin);
        json_array_append_new(f, json_string(line));
    }
    for (int i = 0; i < pl->nin || (i == 0 && pl->in[0].nd); i++) {
        snprintf(line, sizeof(line), "pl.in[%d]", i);
        pl_fields(f, line, &pl->in[i]);
    }
    pl_fields(f, "pl.out", &pl->out);
    if (pl->axis) {
        snprintf(line, sizeof(line), "pl.axis = %d", pl->axis);
        json_array_append_new(f, json_string(line));
    }
    if (pl->alpha != 0 || pl->beta != 0) {
        snprintf(line, sizeof(line), "pl.alpha = %.9gf, op->pl.beta = %.9gf", pl->alpha, pl->beta);
        json_array_append_new(f, json_string(line));
    }
    if (pl->flag) {
        snprintf(line, sizeof(line), "pl.flag = %d", pl->flag);
        json_array_append_new(f, json_string(line));
    }
    if (pl->kind == PL_MAP) {
        snprintf(line, sizeof(line), "pl.map = %s", maps[pl->map]);
        json_array_append_new(f, json_string(line));
        for (int d = 0; d < pl->out.nd; d++) {
            snprintf(line, sizeof(line), "pl.start[%d] = %lld, op->pl.step[%d] = %lld", d, (long long)pl->start[d], d,
                     (long long)pl->step[d]);
            json_array_append_new(f, json_string(line));
        }
    }
    if (!strcmp(k->kind, "BK_TRANSPOSE"))
        for (int d = 0; d < pl->out.nd; d++) {
            snprintf(line, sizeof(line), "perm[%d] = %d", d, k->perm[d]);
            json_array_append_new(f, json_string(line));
        }
    if (!strcmp(k->kind, "BK_CONCAT")) {
        snprintf(line, sizeof(line), "axis = %d, op->ncat = %d", k->axis, k->ncat);
        json_array_append_new(f, json_string(line));
        for (int i = 0; i < k->ncat; i++) {
            snprintf(line, sizeof(line), "cat[%d]", i);
            pl_fields(f, line, &k->cat[i]);
        }
    }
    if (!strcmp(k->kind, "BK_RESIZE")) {
        snprintf(line, sizeof(line), "linear = %d", k->linear);
        json_array_append_new(f, json_string(line));
    }
    if (!strcmp(k->kind, "BK_LAYERNORM")) {
        snprintf(line, sizeof(line), "eps = %.9gf, op->affine = %d", k->eps, k->affine);
        json_array_append_new(f, json_string(line));
    }
    return f;
}

static void render_kernel(struct emit_ctx *e, int li, const struct cu_kernel *k)
{
    const struct layer *l = &e->p->layers.v[li];
    const char *dtype = layer_dtype_suffix(k->pl.out.dtype == PL_FLOAT ? 1 : k->pl.out.dtype);
    struct bz_buf file, title, key, what;
    bz_buf_init(&file);
    bz_buf_init(&title);
    bz_buf_init(&key);
    bz_buf_init(&what);
    bz_buf_printf(&file, "%s-%s-kernel", l->id, dtype);
    emit_comment_text(&title, l->name);
    emit_comment_text(&key, l->key);
    emit_comment_text(&what, k->what);
    char flops[64], bytes[64];
    snprintf(flops, sizeof(flops), "%.17g", k->flops);
    snprintf(bytes, sizeof(bytes), "%.17g", k->bytes);
    size_t hl, cl, kl;
    const char *harness = emit_embedded("runtime/harness.h", &hl);
    const char *cuda = emit_embedded("runtime/cuda_bench.h", &cl);
    const char *kern = emit_embedded("runtime/cuda_kernels.cuh", &kl);
    json_t *data = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:o,s:o,s:s,s:s,s:s%,s:s%,s:s%}", "title",
                             title.data, "layer", l->id, "layer_name", l->name, "op", l->op, "what", what.data, "dtype",
                             dtype, "file", file.data, "key_comment", key.data, "uses", emit_uses(e->p, li, 6),
                             "fields", kernel_fields(k), "flops", flops, "bytes", bytes, "harness", harness, hl,
                             "cuda_bench", cuda, cl, "cuda_kernels", kern, kl);
    if (data)
        emit_plain_headers(data, pl_family(k->pl.kind));
    struct bz_buf rel;
    bz_buf_init(&rel);
    bz_buf_printf(&rel, "bench/%s.cu", file.data);
    if (data && emit_render(e, "templates/cuda/kernel.cu.mustache", data, rel.data) == 0)
        emit_add_bench(e, file.data, l, "nvcc");
    json_decref(data);
    bz_buf_free(&rel);
    bz_buf_free(&file);
    bz_buf_free(&title);
    bz_buf_free(&key);
    bz_buf_free(&what);
}

void emit_cuda(struct emit_ctx *e)
{
    const struct layer_set *s = &e->p->layers;
    const char *ops[64];
    int counts[64], nops = 0;
    for (int li = 0; li < s->n; li++) {
        const struct layer *l = &s->v[li];
        if (e->only_layer && strcmp(l->id, e->only_layer) != 0)
            continue;
        struct cu_plan plan;
        memset(&plan, 0, sizeof(plan));
        const json_t *out0 = l->fused ? NULL : emit_io(l->params, "outputs", 0);
        const char *dtn = out0 ? json_string_value(json_object_get(out0, "dtype")) : "FLOAT";
        int ok = dtn && !strcmp(dtn, "FLOAT") ? (l->fused ? plan_fused(l->params, &plan) : plan_layer(l->params, &plan))
                                               : -1;
        if (ok == 0)
            render_plan(e, li, &plan);
        /* a kernel of ours: where no library call does the layer, and beside cuDNN's op
         * tensor for binary ops (cuDNN accepts fewer broadcasts) */
        struct cu_kernel kern;
        bool want = ok != 0 || (plan.family && !strcmp(plan.family, "BC_OPTENSOR"));
        if (want && plan_kernel(l->params, l->fused, &kern) == 0) {
            render_kernel(e, li, &kern);
            continue;
        }
        if (ok == 0)
            continue;
        if (l->fused)
            continue; /* the group's members are benchmarked one by one */
        int k;
        for (k = 0; k < nops && strcmp(ops[k], l->op); k++)
            ;
        if (k == nops && nops < 64) {
            ops[nops] = l->op;
            counts[nops++] = 0;
        }
        if (k < 64)
            counts[k]++;
    }
    for (int k = 0; k < nops; k++)
        bz_buf_printf(&e->skipped, "%s%s %d", e->skipped.len ? ", " : "", ops[k], counts[k]);
}

const char *emit_cuda_home(void)
{
    const char *h = getenv("CUDA_HOME");
    return h && *h ? h : "/usr/local/cuda";
}

bool emit_cuda_found(void)
{
    struct bz_buf p;
    bz_buf_init(&p);
    bz_buf_printf(&p, "%s/include/cuda_runtime_api.h", emit_cuda_home());
    bool found = access(p.data, R_OK) == 0;
    bz_buf_free(&p);
    return found;
}

int emit_cuda_arch_flags(const char *archs, struct bz_buf *b)
{
    int newest = 0, n = 0;
    const char *s = archs;
    while (*s) {
        char *end;
        if (strncmp(s, "sm_", 3) != 0)
            return -1;
        long v = strtol(s + 3, &end, 10);
        if (end == s + 3 || v < 10 || v > 1000 || (*end && *end != ',' && !(*end >= 'a' && *end <= 'z')))
            return -1;
        while (*end >= 'a' && *end <= 'z') /* sm_90a */
            end++;
        if (*end && *end != ',')
            return -1;
        if (b)
            bz_buf_printf(b, "%s-gencode arch=compute_%.*s,code=sm_%.*s", n ? " " : "", (int)(end - s - 3), s + 3,
                          (int)(end - s - 3), s + 3);
        if (v > newest)
            newest = (int)v;
        n++;
        s = *end ? end + 1 : end;
    }
    if (!n)
        return -1;
    if (b)
        bz_buf_printf(b, " -gencode arch=compute_%d,code=compute_%d", newest, newest);
    return 0;
}
