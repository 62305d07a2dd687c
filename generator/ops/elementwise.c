/* Element-wise operators: unary maths and activations, binary with broadcasting, comparisons,
 * Where, Cast, Clip; small known values are folded (shape arithmetic). */
#include <math.h>
#include <string.h>

#include "../plan.h"
#include "ops.h"

static double eval_unary(const char *op, double x, const struct infer_ctx *c)
{
    if (!strcmp(op, "Neg")) return -x;
    if (!strcmp(op, "Abs")) return fabs(x);
    if (!strcmp(op, "Sqrt")) return sqrt(x);
    if (!strcmp(op, "Exp")) return exp(x);
    if (!strcmp(op, "Log")) return log(x);
    if (!strcmp(op, "Reciprocal")) return 1.0 / x;
    if (!strcmp(op, "Floor")) return floor(x);
    if (!strcmp(op, "Ceil")) return ceil(x);
    if (!strcmp(op, "Round")) return nearbyint(x);
    if (!strcmp(op, "Relu")) return x > 0 ? x : 0;
    if (!strcmp(op, "Sigmoid")) return 1.0 / (1.0 + exp(-x));
    if (!strcmp(op, "Tanh")) return tanh(x);
    if (!strcmp(op, "Not")) return x == 0;
    if (!strcmp(op, "Sign")) return (x > 0) - (x < 0);
    if (!strcmp(op, "Erf")) return erf(x);
    if (!strcmp(op, "Identity")) return x;
    (void)c;
    return NAN;
}

/* Same shape and type as the input; folds small known inputs. */
void infer_unary_fold(struct infer_ctx *c)
{
    infer_same_as_input(c);
    const struct ir_tensor *x = op_in_val(c, 0);
    if (!tensor_foldable(x) || isnan(eval_unary(c->n->op_type, 1.0, c)))
        return;
    if (!strcmp(c->n->op_type, "Identity") && x) {
        op_out_val(c, 0, (struct ir_tensor *)x);
        return;
    }
    struct ir_tensor *t = op_tensor_new(c, x->dtype, x->rank, x->dims);
    for (int64_t k = 0; k < x->nelem; k++)
        tensor_set_f(t, k, dtype_is_int(x->dtype) && strcmp(c->n->op_type, "Not") != 0
                               ? (double)(int64_t)eval_unary(c->n->op_type, (double)tensor_get_i(x, k), c)
                               : eval_unary(c->n->op_type, tensor_get_f(x, k), c));
    op_out_val(c, 0, t);
}

/* Output 0 like input 0, output 1 (if any) a BOOL mask of the same shape (Dropout). */
static void infer_dropout(struct infer_ctx *c)
{
    infer_unary_fold(c);
    const struct ir_type *t = op_in(c, 0);
    if (c->n->n_outputs > 1 && t) {
        /* opset < 10 gave the mask the input's type; it is BOOL since */
        struct ir_dim *d = op_out(c, 1, c->opset < 10 ? t->dtype : IR_DTYPE_BOOL, t->rank);
        memcpy(d, t->dims, (size_t)t->rank * sizeof(*d));
    }
}


/* ---- binary and variadic ---- */

static double eval_binary(const char *op, double a, double b, bool is_int)
{
    if (!strcmp(op, "Add") || !strcmp(op, "Sum")) return a + b;
    if (!strcmp(op, "Sub")) return a - b;
    if (!strcmp(op, "Mul")) return a * b;
    if (!strcmp(op, "Div")) {
        if (!is_int)
            return a / b;
        return b == 0 ? 0 : (double)((int64_t)a / (int64_t)b);
    }
    if (!strcmp(op, "Pow")) return pow(a, b);
    if (!strcmp(op, "Max")) return a > b ? a : b;
    if (!strcmp(op, "Min")) return a < b ? a : b;
    if (!strcmp(op, "Mod")) return is_int && b != 0 ? (double)((int64_t)a % (int64_t)b) : fmod(a, b);
    if (!strcmp(op, "Equal")) return a == b;
    if (!strcmp(op, "Less")) return a < b;
    if (!strcmp(op, "Greater")) return a > b;
    if (!strcmp(op, "LessOrEqual")) return a <= b;
    if (!strcmp(op, "GreaterOrEqual")) return a >= b;
    if (!strcmp(op, "And")) return (a != 0) && (b != 0);
    if (!strcmp(op, "Or")) return (a != 0) || (b != 0);
    if (!strcmp(op, "Xor")) return (a != 0) != (b != 0);
    return NAN;
}

/* Index into a broadcast input for output element k. */
static int64_t bcast_index(const struct ir_tensor *in, const struct ir_type *out, int64_t k)
{
    int64_t idx = 0, stride = 1;
    int off = out->rank - in->rank;
    for (int a = out->rank - 1; a >= 0; a--) {
        int64_t n = out->dims[a].value;
        int64_t pos = k % n;
        k /= n;
        if (a >= off) {
            int64_t d = in->dims[a - off];
            if (d != 1)
                idx += pos * stride;
            stride *= d;
        }
    }
    return idx;
}

static void fold_nary(struct infer_ctx *c, int n_in, int out_dtype)
{
    const struct ir_value *ov = c->n->outputs[0];
    if (!ov || ov->type.rank < 0)
        return;
    for (int a = 0; a < ov->type.rank; a++)
        if (!dim_known(ov->type.dims[a]))
            return;
    const struct ir_tensor *in[8];
    for (int i = 0; i < n_in; i++) {
        in[i] = op_in_val(c, i);
        if (!tensor_foldable(in[i]))
            return;
    }
    int64_t dims[16];
    if (ov->type.rank > 16)
        return;
    for (int a = 0; a < ov->type.rank; a++)
        dims[a] = ov->type.dims[a].value;
    struct ir_tensor *t = op_tensor_new(c, out_dtype, ov->type.rank, dims);
    if (!t->data_kept)
        return;
    bool is_int = dtype_is_int(in[0]->dtype);
    const char *op = c->n->op_type;
    for (int64_t k = 0; k < t->nelem; k++) {
        double acc = 0;
        if (!strcmp(op, "Where")) {
            bool cond = tensor_get_i(in[0], bcast_index(in[0], &ov->type, k)) != 0;
            const struct ir_tensor *src = cond ? in[1] : in[2];
            acc = tensor_get_f(src, bcast_index(src, &ov->type, k));
            if (dtype_is_int(src->dtype))
                acc = (double)tensor_get_i(src, bcast_index(src, &ov->type, k));
        } else {
            for (int i = 0; i < n_in; i++) {
                double x = is_int ? (double)tensor_get_i(in[i], bcast_index(in[i], &ov->type, k))
                                  : tensor_get_f(in[i], bcast_index(in[i], &ov->type, k));
                acc = i == 0 ? x : eval_binary(op, acc, x, is_int);
            }
            if (!strcmp(op, "Mean"))
                acc /= n_in;
        }
        tensor_set_f(t, k, acc);
    }
    op_out_val(c, 0, t);
}

static void infer_binary_like(struct infer_ctx *c, int out_dtype)
{
    int n = op_nin(c) > 8 ? 8 : op_nin(c);
    int idx[8];
    for (int i = 0; i < n; i++)
        idx[i] = i;
    if (c->opset < 7 && ir_node_attr(c->n, "broadcast")) {
        /* before opset 7, B broadcasts onto A: the result has A's shape */
        const struct ir_type *a = op_in(c, 0);
        if (a)
            op_out_type(c, 0, a);
        else
            op_out_dtype_only(c, 0, out_dtype);
        if (a)
            c->n->outputs[0]->type.dtype = out_dtype;
        return;
    }
    if (c->opset < 7 && op_in(c, 0) && n == 2) {
        op_out_type(c, 0, op_in(c, 0));
        c->n->outputs[0]->type.dtype = out_dtype;
        return;
    }
    if (op_broadcast(c, idx, n, out_dtype, 0))
        fold_nary(c, n, out_dtype);
}

static void infer_arith(struct infer_ctx *c)
{
    infer_binary_like(c, op_in_dtype(c, 0));
}

static void infer_compare(struct infer_ctx *c)
{
    infer_binary_like(c, IR_DTYPE_BOOL);
}

static void infer_where(struct infer_ctx *c)
{
    int idx[3] = {0, 1, 2};
    if (op_broadcast(c, idx, 3, op_in_dtype(c, 1), 0))
        fold_nary(c, 3, op_in_dtype(c, 1));
}

/* PRelu: the slope broadcasts onto X, the result has X's shape */
static void infer_prelu(struct infer_ctx *c)
{
    infer_same_as_input(c);
}

static void infer_cast(struct infer_ctx *c)
{
    int to = (int)op_attr_i(c, "to", 0);
    if (c->opset < 6) {
        /* opset 1 gave 'to' as a string */
        const char *s = op_attr_s(c, "to", NULL);
        for (int k = 1; s && k < IR_DTYPE_COUNT; k++)
            if (ir_dtype_name(k) && !strcmp(ir_dtype_name(k), s))
                to = k;
    }
    infer_shape_as_input(c, to);
    if (!op_in(c, 0))
        return;
    const struct ir_tensor *x = op_in_val(c, 0);
    if (tensor_foldable(x) && (dtype_is_int(to) || dtype_is_float(to))) {
        struct ir_tensor *y = op_tensor_new(c, to, x->rank, x->dims);
        if (!y->data_kept)
            return;
        for (int64_t k = 0; k < x->nelem; k++)
            tensor_set_f(y, k, dtype_is_int(x->dtype) ? (double)tensor_get_i(x, k) : tensor_get_f(x, k));
        op_out_val(c, 0, y);
    }
}

static void infer_castlike(struct infer_ctx *c)
{
    const struct ir_type *t = op_in(c, 0);
    int to = op_in_dtype(c, 1);
    if (!t) {
        op_out_dtype_only(c, 0, to);
        return;
    }
    struct ir_dim *d = op_out(c, 0, to, t->rank);
    memcpy(d, t->dims, (size_t)t->rank * sizeof(*d));
}

/* Activations whose attributes default: the key holds the values in effect. */
static void canon_activation(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    const char *op = c->n->op_type;
    if (!strcmp(op, "LeakyRelu"))
        canon_default_f(c, attrs, "alpha", 0.01);
    else if (!strcmp(op, "Elu") || !strcmp(op, "Celu") || !strcmp(op, "ThresholdedRelu"))
        canon_default_f(c, attrs, "alpha", 1.0);
    else if (!strcmp(op, "Selu")) {
        canon_default_f(c, attrs, "alpha", 1.67326319217681884765625);
        canon_default_f(c, attrs, "gamma", 1.05070102214813232421875);
    } else if (!strcmp(op, "HardSigmoid")) {
        canon_default_f(c, attrs, "alpha", 0.2);
        canon_default_f(c, attrs, "beta", 0.5);
    } else if (!strcmp(op, "Gelu")) {
        canon_set_s(attrs, "approximate", ir_node_attr(c->n, "approximate") ? ir_node_attr(c->n, "approximate")->u.s.data : "none");
    } else if (!strcmp(op, "Clip")) {
        /* bounds: attributes before opset 11, inputs since */
        double lo = ir_node_attr_float(c->n, "min", -3.4028234663852886e38f);
        double hi = ir_node_attr_float(c->n, "max", 3.4028234663852886e38f);
        for (int i = 1; i < 3 && i < c->n->n_inputs; i++) {
            const struct ir_value *v = c->n->inputs[i];
            if (v && v->val && v->val->data_kept && v->val->nelem == 1) {
                if (i == 1)
                    lo = tensor_get_f(v->val, 0);
                else
                    hi = tensor_get_f(v->val, 0);
            }
        }
        canon_set_f(attrs, "min", lo);
        canon_set_f(attrs, "max", hi);
    }
    for (const char *p = op; *p; p++)
        bz_buf_putc(name, (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p));
    bz_buf_putc(name, '_');
    canon_name_dims(name, canon_in(c, 0));
}

/* ---- backends ---- */

/* variant bits of the unary family (ELT_ALPHA: the alpha attribute is the function's) and of
 * the binary family */
enum { ELT_ALPHA = 1 };
enum { BIN_NARY = 1, BIN_MEAN = 2, BIN_SUB = 4 };

static const struct op_plans unary_plans;

int plan_eltwise_dnnl(const struct layer_desc *d, float *alpha, float *beta)
{
    const struct op_ids *id = d->def ? &d->def->ids : NULL;
    *alpha = *beta = 0;
    if (!id || d->def->plans != &unary_plans || !id->dnnl)
        return 0;
    *alpha = id->dnnl_alpha;
    *beta = id->dnnl_beta;
    if (id->variant & ELT_ALPHA)
        *alpha = (float)d->a.alpha; /* the operator's own alpha (LeakyRelu, Elu, Swish) */
    switch (id->dnnl) {
    case dnnl_eltwise_gelu_erf:
        return !strcmp(d->a.approximate, "tanh") ? dnnl_eltwise_gelu_tanh : dnnl_eltwise_gelu_erf;
    case dnnl_eltwise_clip_v2:
        *alpha = (float)d->a.min;
        *beta = (float)d->a.max;
        return dnnl_eltwise_clip_v2;
    default:
        return id->dnnl;
    }
}

/* oneDNN's eltwise ALG (0: none) with ALPHA and BETA on the layer's one input, filled as FILL
 * says (plan_arg's) */
static int eltwise_dnnl(const struct layer_desc *d, int which, int alg, float alpha, float beta, int fill,
                        struct cpu_plan *p)
{
    if (which || !alg || plan_dnnl_start(d, p))
        return -1;
    p->flops = (double)plan_bd_count(&p->op.dst);
    p->layouts = BD_LAYOUT_COUNT;
    p->op.family = BD_ELTWISE;
    p->op.alg = p->algs[0] = alg;
    p->op.alpha = alpha;
    p->op.beta = beta;
    plan_arg(p, "DNNL_ARG_SRC", 0, fill);
    plan_arg(p, "DNNL_ARG_DST", 1, 0);
    return 0;
}

static int unary_dnnl(const struct layer_desc *d, int which, struct cpu_plan *p)
{
    float alpha, beta;
    int alg = plan_eltwise_dnnl(d, &alpha, &beta);
    return eltwise_dnnl(d, which, alg, alpha, beta, d->def->ids.dnnl_fill, p);
}

static int unary_plain(const struct layer_desc *d, struct pl_op *op)
{
    const struct op_ids *id = &d->def->ids;
    if (id->pl_kind == PLAN_NO_PL || plan_pl_start(d, id->pl_kind, id->pl_fn, -1, op))
        return -1;
    if (id->variant & ELT_ALPHA)
        op->alpha = (float)d->a.alpha;
    switch (op->fn) {
    case PL_GELU:
        if (!strcmp(d->a.approximate, "tanh"))
            op->fn = PL_GELU_TANH; /* the tanh approximation is another function */
        return !strcmp(d->a.approximate, "none") || op->fn == PL_GELU_TANH ? 0 : -1;
    case PL_CLIP:
        /* the bounds as gen knows them (attributes, or constant inputs folded into them) */
        if (d->nin > 1 && !desc_present(d, DA_min) && !desc_present(d, DA_max))
            return -1;
        op->alpha = desc_present(d, DA_min) ? (float)d->a.min : -3.4e38f;
        op->beta = desc_present(d, DA_max) ? (float)d->a.max : 3.4e38f;
        return 0;
    case PL_ISINF:
        op->flag = (d->a.detect_positive != 0) | (d->a.detect_negative != 0) << 1;
        return 0;
    case PL_SHRINK:
        op->alpha = (float)d->a.bias;
        op->beta = (float)d->a.lambd;
        return 0;
    case PL_HARDSIGMOID:
        op->alpha = (float)d->a.alpha;
        op->beta = (float)d->a.beta;
        return 0;
    case PL_SELU:
        op->alpha = (float)d->a.alpha;
        op->beta = (float)d->a.gamma;
        return 0;
    default:
        return 0;
    }
}

/* an activation cuDNN has: its mode and coefficient */
static int unary_cudnn(const struct layer_desc *d, struct cu_plan *p)
{
    plan_cu_single(p);
    const char *mode = d->def->ids.cudnn;
    if (!mode || plan_cu_tensor(desc_in(d, 0), &p->x) || plan_cu_tensor(desc_out(d, 0), &p->y) || p->x.nd > 5)
        return -1;
    if (!strcmp(mode, "CUDNN_ACTIVATION_CLIPPED_RELU")) {
        /* Relu6 and friends: a Clip from 0 */
        if (!desc_clip_from_zero(d))
            return -1;
        p->coef = d->a.max;
    } else if (!strcmp(mode, "CUDNN_ACTIVATION_ELU")) {
        p->coef = d->a.alpha;
    }
    p->mode = mode;
    p->family = CU_ACT;
    p->what = "cudnnActivationForward";
    p->elems = (double)(plan_cu_count(&p->x) + plan_cu_count(&p->y));
    p->flops = (double)plan_cu_count(&p->y);
    return 0;
}

/* A kernel of ours, beside cuDNN's activation where there is one (on the H100 of 2026-11-26
 * PyTorch's own element-wise kernels ran ResNet-50's Relus faster than cuDNN's activation):
 * the plain C function, and Relu, which has none, as a Clip from 0 (NaN passes through) */
static int unary_kernel(const struct layer_desc *d, struct cu_kernel *k)
{
    memset(k, 0, sizeof(*k));
    if (unary_plain(d, &k->pl) != 0) {
        if (strcmp(d->def->name, "Relu") != 0 || plan_pl_start(d, PL_UNARY, PL_CLIP, -1, &k->pl) != 0)
            return -1;
        k->pl.alpha = 0.0f;
        k->pl.beta = 3.4e38f;
    }
    k->kind = CK_PLAIN;
    k->what = d->op;
    plan_ck_finish(k);
    return 0;
}

static const struct op_plans unary_plans = {unary_dnnl, unary_plain, unary_cudnn, unary_kernel, NULL,
    PLAN_BY_IDS | PLAN_KERNEL_TOO, .how = {"oneDNN eltwise", "plain C", "cuDNN activation", "kernel of ours"}};

/* Binary ops as oneDNN's binary primitive: the broadcast operand second */
static int binary_dnnl(const struct layer_desc *d, int which, struct cpu_plan *p)
{
    struct bd_tensor a, b, y;
    memset(p, 0, sizeof(*p));
    int alg = d->def->ids.dnnl;
    if (which || !alg || d->nin != 2 || plan_bd_tensor(desc_in(d, 0), &a) || plan_bd_tensor(desc_in(d, 1), &b) ||
        plan_bd_tensor(desc_out(d, 0), &y))
        return -1;
    bool commutes = alg != dnnl_binary_sub && alg != dnnl_binary_div;
    /* oneDNN broadcasts the second source only: the first must have the output's shape */
    bool a_full = a.nd == y.nd && !memcmp(a.d, y.d, sizeof(dnnl_dim_t) * (size_t)y.nd);
    bool b_full = b.nd == y.nd && !memcmp(b.d, y.d, sizeof(dnnl_dim_t) * (size_t)y.nd);
    if (!a_full) {
        if (!b_full || !commutes)
            return -1;
        struct bd_tensor t = a;
        a = b;
        b = t;
    }
    int pad = y.nd - b.nd;
    for (int k = b.nd - 1; k >= 0; k--)
        b.d[k + pad] = b.d[k];
    for (int k = 0; k < pad; k++)
        b.d[k] = 1;
    b.nd = y.nd;
    struct bd_op *op = &p->op;
    p->layouts = BD_LAYOUT_COUNT;
    op->family = BD_BINARY;
    op->src = a;
    op->src1 = b;
    op->dst = y;
    op->alg = alg;
    p->algs[0] = alg;
    p->n_algs = 1;
    plan_arg(p, "DNNL_ARG_SRC_0", 0, 0);
    plan_arg(p, "DNNL_ARG_SRC_1", 0, 0);
    plan_arg(p, "DNNL_ARG_DST", 1, 0);
    p->flops = (double)plan_bd_count(&y);
    p->bytes = 4.0 * (double)(plan_bd_count(&a) + plan_bd_count(&b) + plan_bd_count(&y));
    return 0;
}

/* Binary ops in plain C: where oneDNN has none, and beside oneDNN's where one operand is a
 * single value (PLAN_PLAIN_SCALAR): oneDNN 2.6's binary primitive broadcasts a scalar slowly on
 * small tensors (a detector's box decoding, [1, 4420, 2] times a constant: 20 to 32 us on the
 * AVX-512 machine of docs/results/cpu/README.md, the same product of two such tensors 2.2 us),
 * which frameworks run as a plain loop */
static int binary_plain(const struct layer_desc *d, struct pl_op *op)
{
    /* Sum, Min, Max and Mean take one to PL_MAX_IN inputs here (a fold; Mean divides), the
     * others two; one input is a copy */
    const struct op_ids *id = &d->def->ids;
    int n = d->nin;
    if (id->pl_kind == PLAN_NO_PL || n < 1 || n > PL_MAX_IN || (n != 2 && !(id->variant & BIN_NARY)))
        return -1;
    if (plan_pl_start(d, n == 1 ? PL_CAST : id->pl_kind, id->pl_fn, n, op))
        return -1;
    op->flag = (id->variant & BIN_MEAN) && n > 1;
    if (op->kind == PL_STR_CAST)
        return plan_pl_string(d, op);
    if (op->fn == PL_MOD) {
        op->flag = d->a.fmod != 0;
        if (!op->flag && pl_is_float(op->out.dtype))
            return -1; /* ONNX wants fmod 1 for floating point */
    }
    if (op->fn == PL_BITSHIFT) {
        if (!pl_is_unsigned(op->out.dtype) || op->out.dtype == PL_BOOL)
            return -1; /* ONNX shifts unsigned integers only */
        op->flag = !strcmp(d->a.direction, "RIGHT");
    }
    return 0;
}

/* b broadcast to y's rank, right-aligned: every dim equal or 1 */
static bool broadcasts_to(const struct cu_tensor *b, const struct cu_tensor *y)
{
    if (b->nd > y->nd)
        return false;
    for (int k = 0; k < b->nd; k++) {
        int64_t v = b->d[b->nd - 1 - k];
        if (v != 1 && v != y->d[y->nd - 1 - k])
            return false;
    }
    return true;
}

static bool cu_same_shape(const struct cu_tensor *a, const struct cu_tensor *b)
{
    return a->nd == b->nd && !memcmp(a->d, b->d, sizeof(a->d[0]) * (size_t)a->nd);
}

/* cudnnOpTensor: the first operand has the output's shape, the second broadcasts (swapped when
 * the op commutes) */
static int binary_cudnn(const struct layer_desc *d, struct cu_plan *p)
{
    plan_cu_single(p);
    const struct op_ids *id = &d->def->ids;
    struct cu_tensor b;
    if (!id->cudnn || plan_cu_tensor(desc_in(d, 0), &p->x) || plan_cu_tensor(desc_out(d, 0), &p->y) || p->x.nd > 5)
        return -1;
    if (d->nin != 2 || plan_cu_tensor(desc_in(d, 1), &b) || b.nd > 5 || p->y.nd > 5)
        return -1;
    bool sub = (id->variant & BIN_SUB) != 0;
    p->elems = (double)(plan_cu_count(&p->x) + plan_cu_count(&p->y));
    if (!cu_same_shape(&p->x, &p->y)) {
        if (!cu_same_shape(&b, &p->y) || sub || !broadcasts_to(&p->x, &p->y))
            return -1;
        struct cu_tensor t = p->x;
        p->x = b;
        b = t;
    } else if (!broadcasts_to(&b, &p->y)) {
        return -1;
    }
    int pad = p->y.nd - b.nd;
    for (int k = b.nd - 1; k >= 0; k--)
        b.d[k + pad] = b.d[k];
    for (int k = 0; k < pad; k++)
        b.d[k] = 1;
    b.nd = p->y.nd;
    p->x2 = b;
    p->family = CU_OPTENSOR;
    p->what = "cudnnOpTensor";
    p->mode = id->cudnn;
    p->alpha = sub ? -1 : 1;
    p->elems += (double)plan_cu_count(&b);
    p->flops = (double)plan_cu_count(&p->y);
    return 0;
}

static const struct op_plans binary_plans = {binary_dnnl, binary_plain, binary_cudnn, NULL, NULL,
    PLAN_KERNEL_TOO | PLAN_BY_IDS | PLAN_PLAIN_SCALAR,
    .how = {"oneDNN binary (the broadcast operand second)",
            "plain C (Sum, Min, Max: up to 8 inputs; beside oneDNN's where an operand is one value)", "cuDNN op tensor",
            "kernel of ours (two inputs)"}};
static const struct op_plans binary_plain_plans = {NULL, binary_plain, NULL, NULL, NULL, PLAN_BY_IDS,
    .how = {NULL, "plain C", NULL, "kernel of ours"}};
PLAIN_PLANS(mean_plans, binary_plain, "plain C (up to 8 inputs)");

/* Pow. Its exponent is a constant scalar in most models (a decomposed LayerNorm's square,
 * the tanh GELU's cube), and frameworks run it as that power of one input: ONNX Runtime
 * squares and cubes by products. Its canonicaliser puts the value in the key (`exponent`:
 * the layer is x^e, `pow_SHAPE_eE`); the plans then benchmark one input: oneDNN's eltwise
 * square for e = 2, sqrt for 0.5, else pow (alpha 1, beta e: oneDNN 2.6 calls powf per element
 * for a cube, 3.3 ms for GPT-2's [1, 128, 3072] where ONNX Runtime takes 0.14), and beside it
 * plain C's PL_POWS, which squares and cubes by products; a Pow of two tensors stays a binary
 * operation, in plain C alone. */
static void canon_pow(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    canon_name_op(c, name);
    const struct ir_tensor *e = canon_const_input(c, 1);
    const struct ir_type *x = canon_in(c, 0), *y = canon_in(c, 1);
    /* the output is x's shape: a finite scalar exponent, or one of a rank x has */
    double v = e && e->nelem == 1 ? (double)(float)tensor_get_f(e, 0) : NAN;
    if (isfinite(v) && x && y && y->rank <= x->rank) {
        canon_set_f(attrs, "exponent", v);
        char s[32];
        snprintf(s, sizeof(s), "%g", v);
        bz_buf_puts(name, "_e");
        for (const char *p = s; *p; p++)
            if (*p != '+')
                bz_buf_putc(name, *p == '.' ? 'p' : *p == '-' ? 'm' : *p);
    } else if (y) {
        bz_buf_puts(name, c->n->inputs[1]->is_const ? "_c" : "_");
        canon_name_dims(name, y);
    }
}

/* the constant exponent E of a Pow the canonicaliser put in the key */
static bool pow_exponent(const struct layer_desc *d, double *e)
{
    *e = d->a.exponent;
    return desc_present(d, DA_exponent) && desc_known(d, DA_exponent);
}

static int pow_dnnl(const struct layer_desc *d, int which, struct cpu_plan *p)
{
    double e;
    if (!pow_exponent(d, &e))
        return -1;
    int alg = e == 2 ? dnnl_eltwise_square : e == 0.5 ? dnnl_eltwise_sqrt : dnnl_eltwise_pow;
    /* positive inputs for a fraction or a negative power, as plain C's */
    return eltwise_dnnl(d, which, alg, 1.0f, (float)e, pl_pow_positive((float)e), p);
}

static int pow_plain(const struct layer_desc *d, struct pl_op *op)
{
    double e;
    if (!pow_exponent(d, &e))
        return binary_plain(d, op);
    if (plan_pl_start(d, PL_UNARY, PL_POWS, 1, op))
        return -1;
    op->alpha = (float)e;
    return 0;
}

static const struct op_plans pow_plans = {pow_dnnl, pow_plain, NULL, NULL, NULL, PLAN_PLAIN_TOO,
    .how = {"oneDNN eltwise square, sqrt or pow (a constant scalar exponent)", "plain C", NULL, "kernel of ours"}};

/* PRelu: oneDNN's primitive, the slope broadcast to the input's rank; plain C beside it (and
 * for an f32 layer in bf16 and f16 too, which oneDNN takes in neither without AVX-512): oneDNN
 * 2.6 runs a PRelu of a few hundred elements by its reference implementation here, 14.2 us
 * for gtcrn's [1, 16, 1, 33] (docs/results/cpu/epyc-avx2.md) */
static int prelu_dnnl(const struct layer_desc *d, int which, struct cpu_plan *p)
{
    struct bd_tensor slope;
    struct bd_op *op = &p->op;
    if (which || plan_dnnl_start(d, p) || plan_bd_tensor(desc_in(d, 1), &slope) || slope.nd > op->src.nd)
        return -1;
    int nd = op->src.nd;
    p->flops = (double)plan_bd_count(&op->dst);
    op->wei.nd = nd;
    for (int k = 0; k < nd; k++)
        op->wei.d[k] = k < nd - slope.nd ? 1 : slope.d[k - (nd - slope.nd)];
    op->family = BD_PRELU;
    p->layouts = BD_LAYOUT_COUNT;
    plan_arg(p, "DNNL_ARG_SRC", 0, 0);
    plan_arg(p, "DNNL_ARG_WEIGHTS", 0, 0);
    plan_arg(p, "DNNL_ARG_DST", 1, 0);
    return 0;
}

static const struct op_plans prelu_plans = {prelu_dnnl, binary_plain, NULL, NULL, NULL,
    PLAN_PLAIN_TOO | PLAN_PLAIN_TYPES, .how = {"oneDNN PReLU", "plain C", NULL, NULL}};

/* Where and Cast: plain C (a cast with a string on one side is a string kind) */
static int select_cast_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (plan_pl_start(d, d->def->ids.pl_kind, PL_IDENTITY, -1, op))
        return -1;
    return op->kind == PL_STR_CAST ? plan_pl_string(d, op) : 0;
}

static const struct op_plans select_cast_plans = {NULL, select_cast_plain, NULL, NULL, NULL, 0,
    .how = {NULL, "plain C (strings: the string kinds)", NULL, "kernel of ours (numbers)"}};

static const struct op_attr alpha_001[] = {ATTR(alpha, 0.01), ATTR_END};
static const struct op_attr alpha_1[] = {ATTR(alpha, 1.0), ATTR_END};
static const struct op_attr selu_attrs[] = {ATTR(alpha, 1.67326319217681884765625),
                                            ATTR(gamma, 1.05070102214813232421875), ATTR_END};
static const struct op_attr hardsigmoid_attrs[] = {ATTR(alpha, 0.2), ATTR(beta, 0.5), ATTR_END};
static const struct op_attr gelu_attrs[] = {ATTR_S(approximate, "none"), ATTR_END};
static const struct op_attr clip_attrs[] = {ATTR(min, -3.4e38), ATTR(max, 3.4e38), ATTR_END};
static const struct op_attr shrink_attrs[] = {ATTR(bias, 0.0), ATTR(lambd, 0.5), ATTR_END};
static const struct op_attr isinf_attrs[] = {ATTR(detect_positive, 1), ATTR(detect_negative, 1), ATTR_END};
static const struct op_attr mod_attrs[] = {ATTR(fmod, 0), ATTR_END};
static const struct op_attr bitshift_attrs[] = {ATTR_S(direction, ""), ATTR_END};
static const struct op_attr pow_attrs[] = {ATTR(exponent, 1.0), ATTR_END}; /* the key's (canon_pow), not ONNX's */

/* One line per operator: name, shape inference, key, attributes; then for the unary ones
 * oneDNN's eltwise algorithm (alpha, beta, 1: positive inputs), the plain C function, cuDNN's
 * activation mode; for the binary ones oneDNN's binary algorithm, the plain function, cuDNN's
 * op-tensor mode and the family's variant bits */
#define UNARY(name, infer, canon, attrs, dnnl, alpha, beta, fill, fn, cudnn, sch) \
    {#name, infer, 0, canon, attrs, &unary_plans, {dnnl, alpha, beta, fill, PL_UNARY, fn, cudnn, 0}, .schema = sch},
/* the same, its alpha attribute the function's parameter */
#define UNARY_ALPHA(name, infer, canon, attrs, dnnl, fn, cudnn, sch) \
    {#name, infer, 0, canon, attrs, &unary_plans, {dnnl, 0, 0, 0, PL_UNARY, fn, cudnn, ELT_ALPHA}, .schema = sch},
#define UNARY_ONLY(name, infer, canon, attrs, dnnl, alpha, beta, fill, cudnn, sch) \
    {#name, infer, 0, canon, attrs, &unary_plans, {dnnl, alpha, beta, fill, PLAN_NO_PL, 0, cudnn, 0}, .schema = sch},
#define UNARY_ONLY_ALPHA(name, infer, canon, attrs, dnnl, cudnn, sch) \
    {#name, infer, 0, canon, attrs, &unary_plans, {dnnl, 0, 0, 0, PLAN_NO_PL, 0, cudnn, ELT_ALPHA}, .schema = sch},
#define BINARY(name, infer, attrs, dnnl, fn, cudnn, variant, sch) \
    {#name, infer, 0, NULL, attrs, &binary_plans, {dnnl, 0, 0, 0, PL_BINARY, fn, cudnn, variant}, .schema = sch},
#define BINARY_PLAIN(name, infer, attrs, fn, sch) \
    {#name, infer, 0, NULL, attrs, &binary_plain_plans, {0, 0, 0, 0, PL_BINARY, fn, NULL, 0}, .schema = sch},

const struct op_def ops_elementwise[] = {
    UNARY_ONLY(Relu, infer_unary_fold, NULL, NULL, dnnl_eltwise_relu, 0, 0, 0, "CUDNN_ACTIVATION_RELU", OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0))
    UNARY_ALPHA(LeakyRelu, infer_same_as_input, canon_activation, alpha_001, dnnl_eltwise_relu, PL_LEAKYRELU, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0))
    UNARY_ONLY_ALPHA(Elu, infer_same_as_input, canon_activation, alpha_1, dnnl_eltwise_elu, "CUDNN_ACTIVATION_ELU", OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0))
    UNARY(Selu, infer_same_as_input, canon_activation, selu_attrs, 0, 0, 0, 0, PL_SELU, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0))
    UNARY_ALPHA(Celu, infer_same_as_input, canon_activation, alpha_1, 0, PL_CELU, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 12, 0))
    UNARY(Sigmoid, infer_unary_fold, NULL, NULL, dnnl_eltwise_logistic, 0, 0, 0, PL_SIGMOID, "CUDNN_ACTIVATION_SIGMOID", OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0))
    UNARY(HardSigmoid, infer_same_as_input, canon_activation, hardsigmoid_attrs, 0, 0, 0, 0, PL_HARDSIGMOID, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0))
    UNARY(HardSwish, infer_same_as_input, NULL, NULL, dnnl_eltwise_hardswish, 0, 0, 0, PL_HARDSWISH, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 14, 0))
    UNARY(Tanh, infer_unary_fold, NULL, NULL, dnnl_eltwise_tanh, 0, 0, 0, PL_TANH, "CUDNN_ACTIVATION_TANH", OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0))
    UNARY(Softplus, infer_same_as_input, NULL, NULL, dnnl_eltwise_soft_relu, 0, 0, 0, PL_SOFTPLUS, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0))
    UNARY(Softsign, infer_same_as_input, NULL, NULL, 0, 0, 0, 0, PL_SOFTSIGN, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0))
    UNARY(Gelu, infer_same_as_input, canon_activation, gelu_attrs, dnnl_eltwise_gelu_erf, 0, 0, 0, PL_GELU, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 20, 0))
    UNARY_ALPHA(Swish, infer_same_as_input, canon_attr_defaults, alpha_1, dnnl_eltwise_swish, PL_SWISH, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 24, 0))
    UNARY_ONLY(Mish, infer_same_as_input, NULL, NULL, dnnl_eltwise_mish, 0, 0, 0, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 18, 0))
    UNARY_ALPHA(ThresholdedRelu, infer_same_as_input, canon_activation, alpha_1, 0, PL_THRESHOLDED_RELU, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 10, 0))
    UNARY(Erf, infer_unary_fold, NULL, NULL, 0, 0, 0, 0, PL_ERF, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 9, 0))
    UNARY(Sqrt, infer_unary_fold, NULL, NULL, dnnl_eltwise_sqrt, 0, 0, 1, PL_SQRT, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0))
    UNARY(Exp, infer_unary_fold, NULL, NULL, dnnl_eltwise_exp, 0, 0, 0, PL_EXP, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0))
    UNARY(Log, infer_unary_fold, NULL, NULL, dnnl_eltwise_log, 0, 0, 1, PL_LOG, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0))
    UNARY(Neg, infer_unary_fold, NULL, NULL, dnnl_eltwise_linear, -1, 0, 0, PL_NEG, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0))
    UNARY(Abs, infer_unary_fold, NULL, NULL, dnnl_eltwise_abs, 0, 0, 0, PL_ABS, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0))
    UNARY(Reciprocal, infer_unary_fold, NULL, NULL, dnnl_eltwise_pow, 1, -1, 1, PL_RECIPROCAL, NULL, /* 1 * x^-1 */
          OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0))
    UNARY(Floor, infer_unary_fold, NULL, NULL, 0, 0, 0, 0, PL_FLOOR, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0))
    UNARY(Ceil, infer_unary_fold, NULL, NULL, 0, 0, 0, 0, PL_CEIL, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0))
    UNARY(Round, infer_unary_fold, NULL, NULL, dnnl_eltwise_round, 0, 0, 0, PL_ROUND, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 11, 0))
    UNARY(Sign, infer_unary_fold, NULL, NULL, 0, 0, 0, 0, PL_SIGN, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 9, 0))
    UNARY(Not, infer_unary_fold, NULL, NULL, 0, 0, 0, 0, PL_NOT, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0))
    UNARY(Sin, infer_same_as_input, NULL, NULL, 0, 0, 0, 0, PL_SIN, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 7, 0))
    UNARY(Cos, infer_same_as_input, NULL, NULL, 0, 0, 0, 0, PL_COS, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 7, 0))
    UNARY(Tan, infer_same_as_input, NULL, NULL, 0, 0, 0, 0, PL_TAN, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 7, 0))
    UNARY(Asin, infer_same_as_input, NULL, NULL, 0, 0, 0, 0, PL_ASIN, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 7, 0))
    UNARY(Acos, infer_same_as_input, NULL, NULL, 0, 0, 0, 0, PL_ACOS, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 7, 0))
    UNARY(Atan, infer_same_as_input, NULL, NULL, 0, 0, 0, 0, PL_ATAN, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 7, 0))
    UNARY(Sinh, infer_same_as_input, NULL, NULL, 0, 0, 0, 0, PL_SINH, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 9, 0))
    UNARY(Cosh, infer_same_as_input, NULL, NULL, 0, 0, 0, 0, PL_COSH, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 9, 0))
    UNARY(Asinh, infer_same_as_input, NULL, NULL, 0, 0, 0, 0, PL_ASINH, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 9, 0))
    UNARY(Acosh, infer_same_as_input, NULL, NULL, 0, 0, 0, 0, PL_ACOSH, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 9, 0))
    UNARY(Atanh, infer_same_as_input, NULL, NULL, 0, 0, 0, 0, PL_ATANH, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 9, 0))
    {"BitwiseNot", infer_same_as_input, 0, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 18, 0)},
    UNARY(Clip, infer_same_as_input, canon_activation, clip_attrs, dnnl_eltwise_clip_v2, 0, 0, 0, PL_CLIP,
          "CUDNN_ACTIVATION_CLIPPED_RELU", OP_SCHEMA(1, 3, 1, 1, 0x1, 1, 0))
    UNARY(Shrink, infer_same_as_input, NULL, shrink_attrs, 0, 0, 0, 0, PL_SHRINK, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 9, 0))
    UNARY(IsNaN, infer_bool_unary, NULL, NULL, 0, 0, 0, 0, PL_ISNAN, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 9, 0))
    UNARY(IsInf, infer_bool_unary, NULL, isinf_attrs, 0, 0, 0, 0, PL_ISINF, NULL, OP_SCHEMA(1, 1, 1, 1, 0x1, 10, 0))
    {"PRelu", infer_prelu, 0, NULL, NULL, &prelu_plans, {0, 0, 0, 0, PL_BINARY, PL_PRELU, NULL, 0}, .schema = OP_SCHEMA(2, 2, 1, 1, 0x3, 1, 0)},
    BINARY(Add, infer_arith, NULL, dnnl_binary_add, PL_ADD, "CUDNN_OP_TENSOR_ADD", 0, OP_SCHEMA(2, 2, 1, 1, 0x3, 1, 0))
    BINARY(Sub, infer_arith, NULL, dnnl_binary_sub, PL_SUB, "CUDNN_OP_TENSOR_ADD", BIN_SUB, OP_SCHEMA(2, 2, 1, 1, 0x3, 1, 0))
    BINARY(Mul, infer_arith, NULL, dnnl_binary_mul, PL_MUL, "CUDNN_OP_TENSOR_MUL", 0, OP_SCHEMA(2, 2, 1, 1, 0x3, 1, 0))
    BINARY(Div, infer_arith, NULL, dnnl_binary_div, PL_DIV, NULL, 0, OP_SCHEMA(2, 2, 1, 1, 0x3, 1, 0))
    {"Pow", infer_arith, 0, canon_pow, pow_attrs, &pow_plans, {0, 0, 0, 0, PL_BINARY, PL_POW, NULL, 0},
     .schema = OP_SCHEMA(2, 2, 1, 1, 0x3, 1, 0)},
    BINARY(Max, infer_arith, NULL, dnnl_binary_max, PL_MAX, "CUDNN_OP_TENSOR_MAX", BIN_NARY, OP_SCHEMA(1, 255, 1, 1, 0x0, 1, 0))
    BINARY(Min, infer_arith, NULL, dnnl_binary_min, PL_MIN, "CUDNN_OP_TENSOR_MIN", BIN_NARY, OP_SCHEMA(1, 255, 1, 1, 0x0, 1, 0))
    BINARY(Sum, infer_arith, NULL, dnnl_binary_add, PL_ADD, "CUDNN_OP_TENSOR_ADD", BIN_NARY, OP_SCHEMA(1, 255, 1, 1, 0x0, 1, 0))
    {"Mean", infer_arith, 0, NULL, NULL, &mean_plans, {0, 0, 0, 0, PL_BINARY, PL_ADD, NULL, BIN_NARY | BIN_MEAN}, .schema = OP_SCHEMA(1, 255, 1, 1, 0x0, 1, 0)},
    BINARY_PLAIN(Mod, infer_arith, mod_attrs, PL_MOD, OP_SCHEMA(2, 2, 1, 1, 0x3, 10, 0))
    BINARY_PLAIN(BitShift, infer_arith, bitshift_attrs, PL_BITSHIFT, OP_SCHEMA(2, 2, 1, 1, 0x3, 11, 0))
    {"BitwiseAnd", infer_arith, 0, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(2, 2, 1, 1, 0x3, 18, 0)},
    {"BitwiseOr", infer_arith, 0, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(2, 2, 1, 1, 0x3, 18, 0)},
    {"BitwiseXor", infer_arith, 0, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(2, 2, 1, 1, 0x3, 18, 0)},
    BINARY_PLAIN(And, infer_compare, NULL, PL_AND, OP_SCHEMA(2, 2, 1, 1, 0x3, 1, 0))
    BINARY_PLAIN(Or, infer_compare, NULL, PL_OR, OP_SCHEMA(2, 2, 1, 1, 0x3, 1, 0))
    BINARY_PLAIN(Xor, infer_compare, NULL, PL_XOR, OP_SCHEMA(2, 2, 1, 1, 0x3, 1, 0))
    BINARY_PLAIN(Equal, infer_compare, NULL, PL_EQUAL, OP_SCHEMA(2, 2, 1, 1, 0x3, 1, 0))
    BINARY_PLAIN(Less, infer_compare, NULL, PL_LESS, OP_SCHEMA(2, 2, 1, 1, 0x3, 1, 0))
    BINARY_PLAIN(Greater, infer_compare, NULL, PL_GREATER, OP_SCHEMA(2, 2, 1, 1, 0x3, 1, 0))
    BINARY_PLAIN(LessOrEqual, infer_compare, NULL, PL_LESS_EQUAL, OP_SCHEMA(2, 2, 1, 1, 0x3, 12, 0))
    BINARY_PLAIN(GreaterOrEqual, infer_compare, NULL, PL_GREATER_EQUAL, OP_SCHEMA(2, 2, 1, 1, 0x3, 12, 0))
    {"Where", infer_where, 0, NULL, NULL, &select_cast_plans, {0, 0, 0, 0, PL_WHERE, PL_IDENTITY, NULL, 0}, .schema = OP_SCHEMA(3, 3, 1, 1, 0x7, 9, 0)},
    {"Cast", infer_cast, 0, NULL, NULL, &select_cast_plans, {0, 0, 0, 0, PL_CAST, PL_IDENTITY, NULL, 0}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0)},
    {"CastLike", infer_castlike, 0, NULL, NULL, &select_cast_plans, {0, 0, 0, 0, PL_CAST, PL_IDENTITY, NULL, 0}, .schema = OP_SCHEMA(2, 2, 1, 1, 0x3, 15, 0)},
    {"Identity", infer_unary_fold, OP_FREE, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 1, 0)},
    {"Dropout", infer_dropout, OP_FREE, NULL, NULL, NULL, {0}, .schema = OP_SCHEMA(1, 3, 1, 2, 0x1, 1, 0)},
    {0},
};
