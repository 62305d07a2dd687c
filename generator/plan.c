/* The helpers operators' plan hooks share: a layer description's tensors as each backend's. */
#include "plan.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ops/ops.h"

int plan_layer_dtype(const struct layer_desc *d)
{
    for (int i = 0; d->pattern == FUSE_NONE && i < d->nout; i++)
        if (d->out[i].dtype)
            return d->out[i].dtype;
    return IR_DTYPE_FLOAT;
}

void plan_arg(struct cpu_plan *p, const char *name, int output, int fill)
{
    BZ_ASSERT(p->nargs < (int)BZ_ARRAY_LEN(p->args));
    p->args[p->nargs].arg = name;
    p->args[p->nargs].output = output;
    p->args[p->nargs].fill = fill;
    p->nargs++;
}

int plan_dnnl_start(const struct layer_desc *d, struct cpu_plan *p)
{
    memset(p, 0, sizeof(*p));
    if (plan_bd_tensor(desc_in(d, 0), &p->op.src) || plan_bd_tensor(desc_out(d, 0), &p->op.dst))
        return -1;
    p->n_algs = 1;
    p->bytes = 4.0 * (double)(plan_bd_count(&p->op.src) + plan_bd_count(&p->op.dst));
    return 0;
}

int plan_bd_tensor(const struct desc_tensor *t, struct bd_tensor *out)
{
    memset(out, 0, sizeof(*out));
    if (!t || !t->dtype || t->rank < 0)
        return -1;
    out->nd = t->rank;
    for (int k = 0; k < t->rank; k++)
        out->d[k] = t->d[k];
    return 0;
}

int64_t plan_bd_count(const struct bd_tensor *t)
{
    int64_t n = 1;
    for (int k = 0; k < t->nd; k++)
        if (__builtin_mul_overflow(n, t->d[k], &n))
            return INT64_MAX; /* shape inference keeps tensors far below this */
    return n;
}

dnnl_data_type_t plan_bd_quant(const struct desc_tensor *t)
{
    if (!t)
        return 0;
    return t->dtype == IR_DTYPE_UINT8 ? dnnl_u8 : t->dtype == IR_DTYPE_INT8 ? dnnl_s8 : t->dtype == IR_DTYPE_INT32 ? dnnl_s32 : 0;
}

void plan_bd_flatten(struct bd_tensor *t, int axis)
{
    int64_t a = 1, b = 1;
    for (int k = 0; k < t->nd; k++) {
        if (k < axis)
            a *= t->d[k];
        else
            b *= t->d[k];
    }
    t->nd = 2;
    t->d[0] = a;
    t->d[1] = b;
}

/* runtime/plain_ops.h's element types for ONNX's */
static int pl_dtype(int onnx)
{
    switch (onnx) {
    case IR_DTYPE_FLOAT: return PL_FLOAT;
    case IR_DTYPE_DOUBLE: return PL_DOUBLE;
    case IR_DTYPE_INT64: return PL_INT64;
    case IR_DTYPE_INT32: return PL_INT32;
    case IR_DTYPE_INT16: return PL_INT16;
    case IR_DTYPE_INT8: return PL_INT8;
    case IR_DTYPE_UINT8: return PL_UINT8;
    case IR_DTYPE_UINT16: return PL_UINT16;
    case IR_DTYPE_UINT32: return PL_UINT32;
    case IR_DTYPE_UINT64: return PL_UINT64;
    case IR_DTYPE_BOOL: return PL_BOOL;
    case IR_DTYPE_FLOAT16: return PL_FLOAT16;
    case IR_DTYPE_BFLOAT16: return PL_BFLOAT16;
    case IR_DTYPE_STRING: return PL_STRING;
    default: return 0;
    }
}

int plan_pl_tensor(const struct desc_tensor *t, struct pl_tensor *out)
{
    if (!t || !t->dtype || t->rank < 0 || !(out->dtype = pl_dtype(t->dtype)))
        return -1;
    out->nd = t->rank;
    for (int k = 0; k < t->rank; k++)
        out->d[k] = t->d[k];
    return 0;
}

void plan_ints(const struct desc_ints *l, int64_t *out, int n, int64_t dflt)
{
    for (int k = 0; k < n; k++)
        out[k] = k < l->n ? l->v[k] : dflt;
}

void plan_int32s(const struct desc_ints *l, int *out, int n, int dflt)
{
    for (int k = 0; k < n; k++) {
        int64_t v = k < l->n ? l->v[k] : dflt;
        out[k] = v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : (int)v; /* no wrap to a small value */
    }
}

bool plan_pl_same(const struct pl_tensor *a, const struct pl_tensor *b)
{
    return a->nd == b->nd && !memcmp(a->d, b->d, sizeof(a->d[0]) * (size_t)a->nd);
}

int plan_axis(int64_t axis, int rank)
{
    if (axis < 0)
        axis += rank;
    return axis >= 0 && axis < rank ? (int)axis : -1;
}

int plan_pl_start(const struct layer_desc *d, int kind, int fn, int nin, struct pl_op *op)
{
    /* data inputs per kind (Expand's shape and CumSum's axis are data for gen, not for the kernel) */
    static const signed char nins[] = {
        [PL_UNARY] = 1, [PL_BINARY] = 2, [PL_WHERE] = 3, [PL_CAST] = 1, [PL_EXPAND] = 1, [PL_GATHER] = 2,
        [PL_MAP] = 1, [PL_SCATTER_ND] = 3, [PL_SPLIT] = 1, [PL_ARG] = 1, [PL_TOPK] = 1,
        [PL_GATHER_ELEMENTS] = 2, [PL_SCATTER_ELEMENTS] = 3, [PL_GATHER_ND] = 2, [PL_CUMSUM] = 1, [PL_TRILU] = 1,
        [PL_ONEHOT] = 3, [PL_REVERSE_SEQUENCE] = 2, [PL_EYELIKE] = 1, [PL_RANGE] = 3, [PL_REDUCE] = 1,
        [PL_MVN] = 1, [PL_HARDMAX] = 1, [PL_QUANTIZE] = 3, [PL_DEQUANTIZE] = 3, [PL_DYNQUANT] = 1,
        [PL_RESIZE] = 1, [PL_GRID_SAMPLE] = 2, [PL_EINSUM] = 1, [PL_DFT] = 1, [PL_STFT] = 1, [PL_WINDOW] = 0,
        [PL_DET] = 1, [PL_ROI_ALIGN] = 3, [PL_MAX_UNPOOL] = 2, [PL_LOSS] = 2, [PL_RANDOM] = 0,
        [PL_NONZERO] = 1, [PL_COMPRESS] = 2, [PL_NMS] = 2, [PL_UNIQUE] = 1, [PL_OPTIMIZER] = 0,
        [PL_TFIDF] = 1, [PL_STR_CAST] = 1, [PL_STR_NORMALIZE] = 1, [PL_STR_CONCAT] = 2, [PL_STR_SPLIT] = 1,
        [PL_STR_REGEX] = 1, [PL_ROPE] = 3, [PL_SOFTMAX] = 1, [PL_RNN] = 8, [PL_DECONV_TILES] = 2,
    };
    _Static_assert(BZ_ARRAY_LEN(nins) == PL_DECONV_TILES + 1, "inputs of every kind");
    memset(op, 0, sizeof(*op));
    if (kind < 0 || kind > PL_DECONV_TILES || plan_pl_tensor(desc_out(d, 0), &op->out))
        return -1;
    op->kind = kind;
    op->fn = fn;
    op->nin = nin >= 0 ? nin : nins[kind];
    if (op->nin > PL_MAX_IN)
        return -1;
    for (int i = 0; i < op->nin; i++)
        if (plan_pl_tensor(desc_in(d, i), &op->in[i]))
            return -1;
    bool strings = op->out.dtype == PL_STRING;
    for (int i = 0; i < op->nin; i++)
        strings = strings || op->in[i].dtype == PL_STRING;
    if (strings && op->kind == PL_CAST)
        op->kind = PL_STR_CAST;
    if (strings && !pl_kind_string(op->kind) && op->kind != PL_TFIDF) /* TfIdfVectorizer: string tokens */
        return -1;
    return 0;
}

static const char *const cu_family_names[CU_FAMILY_COUNT] = {
    "BC_CONV", "BC_CONV_FUSED", "BC_ADVICE", "BC_DECONV", "BC_POOL", "BC_ACT", "BC_SOFTMAX",
    "BC_BNORM", "BC_LRN", "BC_OPTENSOR", "BC_REDUCE", "BC_RNN", "BC_GEMM", "BC_GEMV", "BC_COPY", "BC_LT", "BC_ENGINE",
    "BC_RELAYOUT", "BC_SDPA",
};

const char *cu_family_name(enum cu_family f)
{
    return (unsigned)f < CU_FAMILY_COUNT ? cu_family_names[f] : "?";
}

int plan_cu_tensor(const struct desc_tensor *t, struct cu_tensor *out)
{
    memset(out, 0, sizeof(*out));
    if (!t || !t->dtype || t->rank < 0)
        return -1;
    out->nd = t->rank;
    for (int k = 0; k < t->rank; k++) {
        out->d[k] = t->d[k];
        if (out->d[k] < 0 || out->d[k] > INT32_MAX)
            return -1; /* cuDNN and cuBLAS take int dims */
    }
    return 0;
}

void plan_cu_window(struct cu_plan *p, const int *pads, const int *kernel)
{
    for (int k = 0; k < p->nsp; k++) {
        int pb = pads[k], pe = pads[k + p->nsp];
        p->pad[k] = pb < pe ? pb : pe;
        int64_t ek = (int64_t)(kernel[k] - 1) * p->dil[k] + 1;
        int64_t need = (p->y.d[2 + k] - 1) * p->stride[k] + ek - 2 * p->pad[k];
        int64_t have = p->x.d[2 + k];
        if (have < need || have > need + p->stride[k] - 1) {
            plan_cu_note(p, "input dim %d run as %lld (from %lld) for padding %d+%d", 2 + k, (long long)need,
                         (long long)have, pb, pe);
            p->x.d[2 + k] = need;
        }
    }
}

void plan_cu_lift_1d(struct cu_plan *p, bool weights)
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

int64_t plan_cu_count(const struct cu_tensor *t)
{
    int64_t n = 1;
    for (int k = 0; k < t->nd; k++)
        n *= t->d[k];
    return n;
}

void plan_cu_note(struct cu_plan *p, const char *fmt, ...)
{
    if (p->nnotes == (int)BZ_ARRAY_LEN(p->notes))
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->notes[p->nnotes++], sizeof(p->notes[0]), fmt, ap);
    va_end(ap);
}

void plan_cu_single(struct cu_plan *p)
{
    static const struct cu_algo one_call[] = {{"cudnn", "0", 0}};
    memset(p, 0, sizeof(*p));
    p->algos = one_call;
    p->nalgos = 1;
    p->types = CU_PLAIN_TYPES;
}

int plan_ck_tensor(const struct desc_tensor *t, struct pl_tensor *out)
{
    struct cu_tensor c;
    if (plan_cu_tensor(t, &c) || t->dtype != IR_DTYPE_FLOAT)
        return -1;
    out->dtype = PL_FLOAT;
    out->nd = c.nd;
    for (int k = 0; k < c.nd; k++)
        out->d[k] = c.d[k];
    return 0;
}

int plan_ck_tensor_float(const struct desc_tensor *t, struct pl_tensor *out)
{
    struct desc_tensor f = *t;
    int dt = t->dtype == IR_DTYPE_FLOAT16 ? PL_FLOAT16 : t->dtype == IR_DTYPE_BFLOAT16 ? PL_BFLOAT16 : PL_FLOAT;
    if (dt != PL_FLOAT)
        f.dtype = IR_DTYPE_FLOAT;
    if (plan_ck_tensor(&f, out))
        return -1;
    out->dtype = dt;
    return 0;
}

double plan_glu_flops(int fn)
{
    return fn == PL_SILU_MUL ? 5.0 : 9.0;
}

double plan_pl_bytes(const struct pl_tensor *t)
{
    double n = 1;
    for (int k = 0; k < t->nd; k++)
        n *= (double)t->d[k];
    return n * (double)pl_esize(t->dtype);
}

double plan_pl_read_bytes(const struct pl_op *op, int i)
{
    double all = plan_pl_bytes(&op->in[i]);
    bool picks = op->kind == PL_GATHER || op->kind == PL_GATHER_ELEMENTS || op->kind == PL_GATHER_ND ||
                 op->kind == PL_MAP;
    if (i != 0 || !picks)
        return all;
    double out = (double)pl_count(&op->out) * (double)pl_esize(op->in[0].dtype);
    return out < all ? out : all;
}

void plan_ck_finish(struct cu_kernel *k)
{
    k->bytes = plan_pl_bytes(&k->pl.out);
    if (k->kind == CK_CONCAT) {
        for (int i = 0; i < k->ncat; i++)
            k->bytes += plan_pl_bytes(&k->cat[i]);
    } else if (k->pl.nin == 0 && k->pl.in[0].nd) {
        /* the kernels of their own (Transpose, LayerNorm, Resize): their one input, and a
         * LayerNorm's scale and shift rows (an RMSNorm's scale row) */
        k->bytes += plan_pl_bytes(&k->pl.in[0]);
        if (k->kind == CK_LAYERNORM && k->affine)
            k->bytes += (k->rms ? 1.0 : 2.0) * (double)k->pl.out.d[k->pl.out.nd - 1] * (double)pl_esize(k->pl.out.dtype);
    }
    for (int i = 0; i < k->pl.nin; i++)
        k->bytes += plan_pl_read_bytes(&k->pl, i);
    if (k->flops == 0)
        k->flops = (double)(k->bytes > 0 ? plan_pl_bytes(&k->pl.out) / (double)pl_esize(k->pl.out.dtype) : 0);
}

void plan_how(const struct op_def *d, const char *how[4])
{
    const struct op_plans *p = d->plans;
    for (int i = 0; i < 4; i++)
        how[i] = p ? p->how[i] : NULL;
    if (!p || !(p->flags & PLAN_BY_IDS))
        return;
    if (!d->ids.dnnl)
        how[0] = NULL;
    if (d->ids.pl_kind == PLAN_NO_PL) {
        how[1] = NULL;
        if (strcmp(d->name, "Relu") != 0) /* Relu's kernel is a Clip from 0 (elementwise.c) */
            how[3] = NULL;
    }
    if (!d->ids.cudnn)
        how[2] = NULL;
}

static const char *const pl_kind_names[] = {
    "PL_UNARY", "PL_BINARY", "PL_WHERE", "PL_CAST", "PL_EXPAND", "PL_GATHER", "PL_MAP", "PL_SCATTER_ND", "PL_SPLIT",
    "PL_ARG", "PL_TOPK", "PL_GATHER_ELEMENTS", "PL_SCATTER_ELEMENTS", "PL_GATHER_ND", "PL_CUMSUM", "PL_TRILU",
    "PL_ONEHOT", "PL_REVERSE_SEQUENCE", "PL_EYELIKE", "PL_RANGE", "PL_REDUCE", "PL_MVN", "PL_HARDMAX", "PL_QUANTIZE",
    "PL_DEQUANTIZE", "PL_DYNQUANT", "PL_RESIZE", "PL_GRID_SAMPLE", "PL_EINSUM", "PL_DFT", "PL_STFT", "PL_WINDOW",
    "PL_DET", "PL_ROI_ALIGN", "PL_MAX_UNPOOL", "PL_LOSS", "PL_RANDOM", "PL_NONZERO", "PL_COMPRESS", "PL_NMS",
    "PL_UNIQUE", "PL_OPTIMIZER", "PL_TFIDF", "PL_STR_CAST", "PL_STR_NORMALIZE", "PL_STR_CONCAT", "PL_STR_SPLIT",
    "PL_STR_REGEX", "PL_ROPE", "PL_SOFTMAX", "PL_RNN", "PL_DECONV_TILES",
};
_Static_assert(BZ_ARRAY_LEN(pl_kind_names) == PL_DECONV_TILES + 1, "a name per pl_kind");

static const char *const pl_fn_names[] = {
    "PL_ERF", "PL_NEG", "PL_ABS", "PL_SQRT", "PL_EXP", "PL_LOG", "PL_FLOOR", "PL_CEIL", "PL_ROUND", "PL_SIGN",
    "PL_SIN", "PL_COS", "PL_TAN", "PL_TANH", "PL_SIGMOID", "PL_RECIPROCAL", "PL_NOT", "PL_HARDSIGMOID", "PL_SELU",
    "PL_SOFTSIGN", "PL_SOFTPLUS", "PL_ADD", "PL_SUB", "PL_MUL", "PL_DIV", "PL_POW", "PL_MAX", "PL_MIN", "PL_MOD",
    "PL_EQUAL", "PL_LESS", "PL_GREATER", "PL_LESS_EQUAL", "PL_GREATER_EQUAL", "PL_AND", "PL_OR", "PL_XOR",
    "PL_IDENTITY", "PL_GELU", "PL_PRELU", "PL_HARDSWISH", "PL_LEAKYRELU", "PL_CLIP", "PL_SILU_MUL", "PL_GELU_MUL",
    "PL_GELU_TANH_MUL", "PL_ASIN", "PL_ACOS", "PL_ATAN",
    "PL_SINH", "PL_COSH", "PL_ASINH", "PL_ACOSH", "PL_ATANH", "PL_ISINF", "PL_ISNAN", "PL_CELU", "PL_SHRINK",
    "PL_THRESHOLDED_RELU", "PL_BITSHIFT", "PL_MEAN", "PL_LOGSUM", "PL_LOGSUMEXP", "PL_SUMSQUARE", "PL_L1", "PL_L2",
#define PL_MATH_NAME(fn, expr) #fn,
    PL_UNARY_MATHS(PL_MATH_NAME)
#undef PL_MATH_NAME
};
_Static_assert(BZ_ARRAY_LEN(pl_fn_names) == PL_FN_COUNT, "a name per pl_fn");

const char *plan_pl_kind_name(int kind)
{
    return kind >= 0 && kind < (int)BZ_ARRAY_LEN(pl_kind_names) ? pl_kind_names[kind] : "0";
}

const char *plan_pl_fn_name(int fn)
{
    return fn >= 0 && fn < (int)BZ_ARRAY_LEN(pl_fn_names) ? pl_fn_names[fn] : "0";
}

const char *plan_pl_coord_name(int coord)
{
    static const char *const names[] = {"PL_COORD_HALF_PIXEL", "PL_COORD_HALF_PIXEL_SYMMETRIC",
                                        "PL_COORD_PYTORCH_HALF_PIXEL", "PL_COORD_ALIGN_CORNERS",
                                        "PL_COORD_ASYMMETRIC", "PL_COORD_TF_CROP_AND_RESIZE"};
    return coord >= 0 && coord < (int)BZ_ARRAY_LEN(names) ? names[coord] : "0";
}

const char *plan_pl_nearest_name(int nearest)
{
    static const char *const names[] = {"PL_NEAREST_ROUND_PREFER_FLOOR", "PL_NEAREST_ROUND_PREFER_CEIL",
                                        "PL_NEAREST_FLOOR", "PL_NEAREST_CEIL"};
    return nearest >= 0 && nearest < (int)BZ_ARRAY_LEN(names) ? names[nearest] : "0";
}

const char *plan_pl_dtype_name(int dtype)
{
    switch (dtype) {
    case PL_FLOAT: return "PL_FLOAT";
    case PL_UINT8: return "PL_UINT8";
    case PL_INT8: return "PL_INT8";
    case PL_UINT16: return "PL_UINT16";
    case PL_INT16: return "PL_INT16";
    case PL_INT32: return "PL_INT32";
    case PL_INT64: return "PL_INT64";
    case PL_STRING: return "PL_STRING";
    case PL_BOOL: return "PL_BOOL";
    case PL_FLOAT16: return "PL_FLOAT16";
    case PL_DOUBLE: return "PL_DOUBLE";
    case PL_UINT32: return "PL_UINT32";
    case PL_UINT64: return "PL_UINT64";
    case PL_BFLOAT16: return "PL_BFLOAT16";
    default: return "0";
    }
}

void plan_pl_tensor_init(struct bz_buf *b, const struct pl_tensor *t)
{
    bz_buf_printf(b, "{%s, %d, {", plan_pl_dtype_name(t->dtype), t->nd);
    for (int k = 0; k < t->nd; k++)
        bz_buf_printf(b, "%s%lld", k ? ", " : "", (long long)t->d[k]);
    bz_buf_puts(b, "}}");
}
