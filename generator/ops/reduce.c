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

const struct op_def ops_reduce[] = {
    {"ReduceMean", infer_reduce, 0},
    {"ReduceSum", infer_reduce, 0},
    {"ReduceMax", infer_reduce, 0},
    {"ReduceMin", infer_reduce, 0},
    {"ReduceProd", infer_reduce, 0},
    {"ReduceL1", infer_reduce, 0},
    {"ReduceL2", infer_reduce, 0},
    {"ReduceLogSum", infer_reduce, 0},
    {"ReduceLogSumExp", infer_reduce, 0},
    {"ReduceSumSquare", infer_reduce, 0},
    {"ArgMax", infer_argmax, 0},
    {"ArgMin", infer_argmax, 0},
    {"TopK", infer_topk, 0},
    {"Softmax", infer_same_as_input, 0},
    {"LogSoftmax", infer_same_as_input, 0},
    {"Hardmax", infer_same_as_input, 0},
    {NULL, NULL, 0},
};
