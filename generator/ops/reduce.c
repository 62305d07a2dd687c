/* Reductions, softmax-like ops, ArgMax/ArgMin and TopK. */
#include <string.h>

#include "ops.h"

static void reduce_to(struct infer_ctx *c, int dtype, const int64_t *axes, int na, bool keep, int out)
{
    const struct ir_type *x = op_in(c, 0);
    bool red[64] = {0};
    if (!x || x->rank > 64)
        return;
    if (na < 0) {
        for (int k = 0; k < x->rank; k++)
            red[k] = true;
    }
    for (int k = 0; k < na; k++) {
        int a = op_axis(c, axes[k], x->rank);
        if (a < 0)
            return;
        red[a] = true;
    }
    struct ir_dim d[64];
    int r = 0;
    for (int k = 0; k < x->rank; k++) {
        if (!red[k])
            d[r++] = x->dims[k];
        else if (keep)
            d[r++] = dim_of(1);
    }
    struct ir_dim *o = op_out(c, out, dtype, r);
    memcpy(o, d, (size_t)r * sizeof(*d));
}

static void infer_reduce(struct infer_ctx *c)
{
    const struct ir_type *x = op_in(c, 0);
    int dtype = op_in_dtype(c, 0);
    if (!x) {
        op_out_dtype_only(c, 0, dtype);
        return;
    }
    bool keep = op_attr_i(c, "keepdims", 1) != 0;
    /* axes became an input: ReduceSum at opset 13, the others at 18 */
    int since = !strcmp(c->n->op_type, "ReduceSum") ? 13 : 18;
    const int64_t *axes = NULL;
    int na;
    if (c->opset < since) {
        na = op_attr_ints(c, "axes", &axes);
    } else if (op_in_value(c, 1)) {
        int64_t n;
        axes = op_in_ints(c, 1, &n);
        if (!axes) {
            if (keep)
                op_out(c, 0, dtype, x->rank);
            else
                op_out_dtype_only(c, 0, dtype);
            return;
        }
        na = (int)n;
        if (na == 0)
            na = -1;
    } else {
        na = -1;
    }
    if (na < 0 && c->opset >= since && op_attr_i(c, "noop_with_empty_axes", 0)) {
        infer_same_as_input(c);
        return;
    }
    reduce_to(c, dtype, axes, na, keep, 0);
}

static void infer_argmax(struct infer_ctx *c)
{
    const struct ir_type *x = op_in(c, 0);
    if (!x) {
        op_out_dtype_only(c, 0, IR_DTYPE_INT64);
        return;
    }
    int64_t axis = op_attr_i(c, "axis", 0);
    reduce_to(c, IR_DTYPE_INT64, &axis, 1, op_attr_i(c, "keepdims", 1) != 0, 0);
}

static void infer_topk(struct infer_ctx *c)
{
    const struct ir_type *x = op_in(c, 0);
    if (!x) {
        op_out_dtype_only(c, 0, op_in_dtype(c, 0));
        op_out_dtype_only(c, 1, IR_DTYPE_INT64);
        return;
    }
    int axis = op_axis(c, op_attr_i(c, "axis", -1), x->rank);
    if (axis < 0)
        return;
    struct ir_dim k = dim_unknown();
    if (c->opset < 10) {
        k = dim_of(op_attr_i(c, "k", 0));
    } else {
        int64_t n;
        const int64_t *kv = op_in_ints(c, 1, &n);
        if (kv && n == 1)
            k = dim_of(kv[0]);
    }
    for (int o = 0; o < 2; o++) {
        struct ir_dim *d = op_out(c, o, o ? IR_DTYPE_INT64 : x->dtype, x->rank);
        for (int a = 0; a < x->rank; a++)
            d[a] = a == axis ? k : x->dims[a];
    }
}

/* Softmax before opset 13 flattens to 2-D at axis (default 1); since 13 it works along one
 * axis (default -1): the key records which, so the two never share a benchmark. */
static void canon_softmax(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    const struct ir_type *x = canon_in(c, 0);
    bool old = c->opset < 13;
    int64_t axis = ir_node_attr_int(c->n, "axis", old ? 1 : -1);
    if (axis < 0)
        axis += x->rank;
    canon_set_i(attrs, "axis", axis);
    canon_set_i(attrs, "coerce_2d", old);
    const char *op = !strcmp(c->n->op_type, "LogSoftmax") ? "logsoftmax" : !strcmp(c->n->op_type, "Hardmax") ? "hardmax" : "softmax";
    bz_buf_printf(name, "%s_axis%lld%s_", op, (long long)axis, old ? "_2d" : "");
    canon_name_dims(name, x);
}

/* Reductions: the reduced axes, positive and sorted, whichever way the opset gave them. */
static void canon_reduce(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    const struct ir_type *x = canon_in(c, 0), *y = canon_out(c, 0);
    bool keep = ir_node_attr_int(c->n, "keepdims", 1) != 0;
    int64_t axes[64];
    int n = 0;
    /* the reduced axes are where the output lost or shrank a dim */
    if (keep && y->rank == x->rank) {
        for (int k = 0; k < x->rank && n < 64; k++)
            if (y->dims[k].value == 1 && x->dims[k].value != 1)
                axes[n++] = k;
    }
    const struct ir_attr *a = ir_node_attr(c->n, "axes");
    if (!(keep && y->rank == x->rank) || (a && a->type == IR_ATTR_INTS)) {
        n = 0;
        if (a && a->type == IR_ATTR_INTS) {
            for (size_t k = 0; k < a->count && n < 64; k++)
                axes[n++] = a->u.ints[k] < 0 ? a->u.ints[k] + x->rank : a->u.ints[k];
        } else if (c->n->n_inputs > 1 && c->n->inputs[1] && c->n->inputs[1]->val && c->n->inputs[1]->val->data_kept) {
            const struct ir_tensor *t = c->n->inputs[1]->val;
            for (int64_t k = 0; k < t->nelem && n < 64; k++) {
                int64_t v = tensor_get_i(t, k);
                axes[n++] = v < 0 ? v + x->rank : v;
            }
        }
        if (n == 0)
            for (int k = 0; k < x->rank && n < 64; k++)
                axes[n++] = k;
    }
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && axes[j - 1] > axes[j]; j--) {
            int64_t t = axes[j];
            axes[j] = axes[j - 1];
            axes[j - 1] = t;
        }
    canon_set_ints(attrs, "axes", axes, n);
    canon_set_i(attrs, "keepdims", keep);
    json_object_del(attrs, "noop_with_empty_axes");
    const char *op = c->n->op_type;
    for (const char *p = op; *p; p++)
        bz_buf_putc(name, (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p));
    bz_buf_putc(name, '_');
    canon_name_dims(name, x);
    canon_name_list(name, "ax", axes, n);
}

const struct op_def ops_reduce[] = {
    {"ReduceMean", infer_reduce, 0, canon_reduce},
    {"ReduceSum", infer_reduce, 0, canon_reduce},
    {"ReduceMax", infer_reduce, 0, canon_reduce},
    {"ReduceMin", infer_reduce, 0, canon_reduce},
    {"ReduceProd", infer_reduce, 0, canon_reduce},
    {"ReduceL1", infer_reduce, 0, canon_reduce},
    {"ReduceL2", infer_reduce, 0, canon_reduce},
    {"ReduceLogSum", infer_reduce, 0, canon_reduce},
    {"ReduceLogSumExp", infer_reduce, 0, canon_reduce},
    {"ReduceSumSquare", infer_reduce, 0, canon_reduce},
    {"ArgMax", infer_argmax, 0, NULL},
    {"ArgMin", infer_argmax, 0, NULL},
    {"TopK", infer_topk, 0, NULL},
    {"Softmax", infer_same_as_input, 0, canon_softmax},
    {"LogSoftmax", infer_same_as_input, 0, canon_softmax},
    {"Hardmax", infer_same_as_input, 0, canon_softmax},
    {NULL, NULL, 0, NULL},
};
