/* Element-wise operators: unary maths and activations, binary with broadcasting, comparisons,
 * Where, Cast, Clip; small known values are folded (shape arithmetic). */
#include <math.h>
#include <string.h>

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

void infer_bool_unary(struct infer_ctx *c)
{
    const struct ir_type *t = op_in(c, 0);
    if (!t) {
        op_out_dtype_only(c, 0, IR_DTYPE_BOOL);
        return;
    }
    struct ir_dim *d = op_out(c, 0, IR_DTYPE_BOOL, t->rank);
    memcpy(d, t->dims, (size_t)t->rank * sizeof(*d));
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

#define ELEMENTWISE_OPS(X)                                                                         \
    X(Relu, infer_unary_fold, NULL) X(LeakyRelu, infer_same_as_input, canon_activation) X(Elu, infer_same_as_input, canon_activation)         \
    X(Selu, infer_same_as_input, canon_activation) X(Celu, infer_same_as_input, canon_activation) X(Sigmoid, infer_unary_fold, NULL)          \
    X(HardSigmoid, infer_same_as_input, canon_activation) X(HardSwish, infer_same_as_input, NULL) X(Tanh, infer_unary_fold, NULL) \
    X(Softplus, infer_same_as_input, NULL) X(Softsign, infer_same_as_input, NULL) X(Gelu, infer_same_as_input, canon_activation) \
    X(Mish, infer_same_as_input, NULL) X(ThresholdedRelu, infer_same_as_input, canon_activation)                            \
    X(Erf, infer_unary_fold, NULL) X(Sqrt, infer_unary_fold, NULL) X(Exp, infer_unary_fold, NULL)                      \
    X(Log, infer_unary_fold, NULL) X(Neg, infer_unary_fold, NULL) X(Abs, infer_unary_fold, NULL)                       \
    X(Reciprocal, infer_unary_fold, NULL) X(Floor, infer_unary_fold, NULL) X(Ceil, infer_unary_fold, NULL)             \
    X(Round, infer_unary_fold, NULL) X(Sign, infer_unary_fold, NULL) X(Not, infer_unary_fold, NULL)                    \
    X(Sin, infer_same_as_input, NULL) X(Cos, infer_same_as_input, NULL) X(Tan, infer_same_as_input, NULL)             \
    X(Asin, infer_same_as_input, NULL) X(Acos, infer_same_as_input, NULL) X(Atan, infer_same_as_input, NULL)          \
    X(Sinh, infer_same_as_input, NULL) X(Cosh, infer_same_as_input, NULL) X(Asinh, infer_same_as_input, NULL)         \
    X(Acosh, infer_same_as_input, NULL) X(Atanh, infer_same_as_input, NULL) X(BitwiseNot, infer_same_as_input, NULL)  \
    X(Clip, infer_same_as_input, canon_activation) X(Shrink, infer_same_as_input, NULL)       \
    X(IsNaN, infer_bool_unary, NULL) X(IsInf, infer_bool_unary, NULL)                                           \
    X(PRelu, infer_prelu, NULL) X(Add, infer_arith, NULL) X(Sub, infer_arith, NULL) X(Mul, infer_arith, NULL)               \
    X(Div, infer_arith, NULL) X(Pow, infer_arith, NULL) X(Max, infer_arith, NULL) X(Min, infer_arith, NULL)                 \
    X(Sum, infer_arith, NULL) X(Mean, infer_arith, NULL) X(Mod, infer_arith, NULL) X(BitShift, infer_arith, NULL)           \
    X(BitwiseAnd, infer_arith, NULL) X(BitwiseOr, infer_arith, NULL) X(BitwiseXor, infer_arith, NULL)                 \
    X(And, infer_compare, NULL) X(Or, infer_compare, NULL) X(Xor, infer_compare, NULL) X(Equal, infer_compare, NULL)        \
    X(Less, infer_compare, NULL) X(Greater, infer_compare, NULL) X(LessOrEqual, infer_compare, NULL)                  \
    X(GreaterOrEqual, infer_compare, NULL) X(Where, infer_where, NULL) X(Cast, infer_cast, NULL)                      \
    X(CastLike, infer_castlike, NULL)

#define AS_DEF(name, fn, canon) {#name, fn, 0, canon},
const struct op_def ops_elementwise[] = {
    ELEMENTWISE_OPS(AS_DEF)
    {"Identity", infer_unary_fold, OP_FREE, NULL},
    {"Dropout", infer_dropout, OP_FREE, NULL},
    {NULL, NULL, 0, NULL},
};

