/* Index and scan operators: GatherElements, GatherND, the scatters, OneHot, Trilu, CumSum,
 * ReverseSequence, EyeLike, Range: shapes, keys and their plain C benchmarks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../plan.h"
#include "ops.h"

/* output like input 1 in shape, input 0 in type (GatherElements) */
static void infer_gather_elements(struct infer_ctx *c)
{
    const struct ir_type *ix = op_in(c, 1);
    if (!ix) {
        op_out_dtype_only(c, 0, op_in_dtype(c, 0));
        return;
    }
    op_out_dims(c, 0, op_in_dtype(c, 0), ix->dims, ix->rank);
}

static void infer_gather_nd(struct infer_ctx *c)
{
    const struct ir_type *t = op_in(c, 0), *ix = op_in(c, 1);
    if (!t || !ix || ix->rank < 1 || !dim_known(ix->dims[ix->rank - 1])) {
        op_out_dtype_only(c, 0, op_in_dtype(c, 0));
        return;
    }
    int b = (int)op_attr_i(c, "batch_dims", 0);
    int64_t last = ix->dims[ix->rank - 1].value;
    int r = ix->rank - 1 + t->rank - (int)last - b;
    if (r < 0) {
        op_fail(c, "indices do not fit the data");
        return;
    }
    struct ir_dim *d = op_out(c, 0, t->dtype, r);
    int j = 0;
    for (int k = 0; k < ix->rank - 1; k++)
        d[j++] = ix->dims[k];
    for (int k = b + (int)last; k < t->rank; k++)
        d[j++] = t->dims[k];
}

static void infer_range(struct infer_ctx *c)
{
    int dtype = op_in_dtype(c, 0);
    const struct ir_tensor *s = op_in_val(c, 0), *l = op_in_val(c, 1), *dl = op_in_val(c, 2);
    if (!s || !l || !dl) {
        op_out(c, 0, dtype, 1);
        return;
    }
    double start = tensor_get_f(s, 0), limit = tensor_get_f(l, 0), delta = tensor_get_f(dl, 0);
    if (delta == 0) {
        op_fail(c, "Range with delta 0");
        return;
    }
    double cnt = ceil((limit - start) / delta);
    int64_t n = cnt > 0 ? (int64_t)cnt : 0;
    int64_t dims[1] = {n};
    struct ir_tensor *t = op_tensor_new(c, dtype, 1, dims);
    if (t->data_kept) {
        for (int64_t k = 0; k < n; k++)
            tensor_set_f(t, k, start + (double)k * delta);
        op_out_val(c, 0, t);
    } else {
        op_out(c, 0, dtype, 1)[0] = dim_of(n);
    }
}

static void infer_onehot(struct infer_ctx *c)
{
    const struct ir_type *ix = op_in(c, 0);
    if (!ix) {
        op_out_dtype_only(c, 0, op_in_dtype(c, 2));
        return;
    }
    int r = ix->rank + 1;
    int axis = op_axis(c, op_attr_i(c, "axis", -1), r);
    if (axis < 0)
        return;
    const struct ir_tensor *depth = op_in_val(c, 1);
    struct ir_dim *d = op_out(c, 0, op_in_dtype(c, 2), r);
    for (int k = 0, j = 0; k < r; k++)
        d[k] = k == axis ? (depth ? dim_of((int64_t)tensor_get_f(depth, 0)) : dim_unknown()) : ix->dims[j++];
}

/* CumSum: the axis input (positive), exclusive and reverse with their defaults */
static void canon_cumsum(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    const struct ir_tensor *a = canon_const_input(c, 1);
    const struct ir_type *x = canon_in(c, 0);
    if (a && a->nelem == 1) {
        int64_t axis = tensor_get_i(a, 0);
        canon_set_i(attrs, "axis", axis < 0 ? axis + x->rank : axis);
    } else {
        json_object_set_new(attrs, "axis", json_null());
    }
    canon_default_i(c, attrs, "exclusive", 0);
    canon_default_i(c, attrs, "reverse", 0);
    canon_name_op(c, name);
}

/* Trilu: the diagonal k (input 1, default 0) and upper (default 1) */
static void canon_trilu(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    const struct ir_tensor *k = canon_const_input(c, 1);
    if (k && k->nelem == 1)
        canon_set_i(attrs, "k", tensor_get_i(k, 0));
    else if (c->n->n_inputs > 1 && c->n->inputs[1])
        json_object_set_new(attrs, "k", json_null());
    else
        canon_set_i(attrs, "k", 0);
    canon_default_i(c, attrs, "upper", 1);
    canon_name_op(c, name);
}

/* ---- backends: plain C (runtime/plain_index.h; ScatterND in plain_ops.h) ---- */

/* a reduction's index in the kernels' order (none, add, mul, max, min), or -1 */
static int reduction_index(const char *red)
{
    static const char *const how[] = {"none", "add", "mul", "max", "min"};
    for (int j = 0; j < 5; j++)
        if (!strcmp(red, how[j]))
            return j;
    return -1;
}

/* GatherElements, ScatterElements (and the old Scatter): along an axis, the indices no larger
 * than the data but along it */
static int elements_plain(const struct layer_desc *d, struct pl_op *op)
{
    int kind = d->def->ids.pl_kind;
    if (plan_pl_start(d, kind, PL_IDENTITY, -1, op))
        return -1;
    const struct pl_tensor *x = &op->in[0], *y = &op->out, *ix = &op->in[1];
    if ((op->axis = plan_axis(d->a.axis, x->nd)) < 0 || ix->nd != x->nd)
        return -1;
    for (int k = 0; k < x->nd; k++)
        if (ix->d[k] > x->d[k] && k != op->axis)
            return -1;
    if (kind == PL_GATHER_ELEMENTS ? !plan_pl_same(y, ix) || y->dtype != x->dtype
                                   : !plan_pl_same(&op->in[2], ix) || !plan_pl_same(y, x) || op->in[2].dtype != x->dtype)
        return -1;
    if (kind == PL_SCATTER_ELEMENTS && (op->flag = reduction_index(d->a.reduction)) < 0)
        return -1;
    op->in[1].dtype = PL_INT64; /* int32 indices are benchmarked as int64 */
    return 0;
}

static int gather_nd_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (plan_pl_start(d, PL_GATHER_ND, PL_IDENTITY, -1, op))
        return -1;
    const struct pl_tensor *x = &op->in[0], *y = &op->out, *ix = &op->in[1];
    int64_t b = d->a.batch_dims;
    int q = ix->nd ? (int)ix->d[ix->nd - 1] : 0;
    if (ix->nd < 1 || q < 1 || b < 0 || b + q > x->nd || b >= ix->nd || y->nd != ix->nd - 1 + x->nd - (int)b - q ||
        y->dtype != x->dtype)
        return -1;
    for (int k = 0; k < b; k++)
        if (ix->d[k] != x->d[k])
            return -1;
    for (int k = 0; k < y->nd; k++)
        if (y->d[k] != (k < ix->nd - 1 ? ix->d[k] : x->d[k - (ix->nd - 1) + b + q]))
            return -1;
    op->k = b;
    op->in[1].dtype = PL_INT64;
    return 0;
}

/* ScatterND: indices [..., q] (q <= rank of data), updates = indices[:-1] + data[q:]; the
 * reduction of every index row naming an element */
static int scatter_nd_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (plan_pl_start(d, PL_SCATTER_ND, PL_IDENTITY, -1, op))
        return -1;
    const struct pl_tensor *x = &op->in[0], *ix = &op->in[1], *u = &op->in[2];
    if ((op->flag = reduction_index(d->a.reduction)) < 0 || ix->nd < 1 || ix->d[ix->nd - 1] < 1 ||
        ix->d[ix->nd - 1] > x->nd || op->out.nd != x->nd)
        return -1;
    int q = (int)ix->d[ix->nd - 1];
    if (u->nd != ix->nd - 1 + x->nd - q)
        return -1;
    for (int k = 0; k < u->nd; k++)
        if (u->d[k] != (k < ix->nd - 1 ? ix->d[k] : x->d[k - (ix->nd - 1) + q]))
            return -1; /* shapes that do not fit together (the kernel would read past them) */
    op->in[1].dtype = PL_INT64; /* int32 indices are benchmarked as int64 */
    return 0;
}

/* CumSum: the axis is an input, its value in the key when gen knew it */
static int cumsum_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (plan_pl_start(d, PL_CUMSUM, PL_ADD, -1, op) || !desc_present(d, DA_axis) || !desc_known(d, DA_axis) ||
        (op->axis = plan_axis(d->a.axis, op->in[0].nd)) < 0 || !plan_pl_same(&op->out, &op->in[0]))
        return -1;
    op->flag = (d->a.exclusive != 0) | (d->a.reverse != 0) << 1;
    return 0;
}

static int trilu_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (plan_pl_start(d, PL_TRILU, PL_IDENTITY, -1, op) || op->in[0].nd < 2 || !plan_pl_same(&op->out, &op->in[0]) ||
        (desc_present(d, DA_k) && !desc_known(d, DA_k)))
        return -1;
    op->k = d->a.k;
    op->flag = d->a.upper != 0;
    return 0;
}

static int onehot_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (plan_pl_start(d, PL_ONEHOT, PL_IDENTITY, -1, op))
        return -1;
    const struct pl_tensor *x = &op->in[0], *y = &op->out;
    if ((op->axis = plan_axis(d->a.axis, y->nd)) < 0 || y->nd != x->nd + 1 || pl_count(&op->in[1]) != 1 ||
        pl_count(&op->in[2]) != 2 || y->dtype != op->in[2].dtype)
        return -1;
    for (int k = 0, j = 0; k < y->nd; k++)
        if (k != op->axis && y->d[k] != x->d[j++])
            return -1;
    return 0;
}

static int reverse_sequence_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (plan_pl_start(d, PL_REVERSE_SEQUENCE, PL_IDENTITY, -1, op))
        return -1;
    const struct pl_tensor *x = &op->in[0];
    int t = plan_axis(d->a.time_axis, x->nd), b = plan_axis(d->a.batch_axis, x->nd);
    if (t < 0 || b < 0 || t == b || !plan_pl_same(&op->out, x) || pl_count(&op->in[1]) != x->d[b])
        return -1;
    op->axis = t;
    op->k = b;
    op->in[1].dtype = PL_INT64;
    return 0;
}

static int eyelike_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (plan_pl_start(d, PL_EYELIKE, PL_IDENTITY, -1, op) || op->in[0].nd != 2 || !plan_pl_same(&op->out, &op->in[0]))
        return -1;
    op->k = d->a.k;
    return 0;
}

static int range_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (plan_pl_start(d, PL_RANGE, PL_IDENTITY, -1, op))
        return -1;
    return op->out.nd != 1 || pl_count(&op->in[0]) != 1 || pl_count(&op->in[1]) != 1 || pl_count(&op->in[2]) != 1 ||
                   op->in[0].dtype != op->out.dtype
               ? -1
               : 0;
}

PLAIN_PLANS(elements_plans, elements_plain, "plain C");
PLAIN_PLANS(gather_nd_plans, gather_nd_plain, "plain C");
static const struct op_plans scatter_nd_plans = {.plain = scatter_nd_plain,
    .how = {NULL, "plain C", NULL, "kernel of ours (a copy, then the updates scattered; a reduction in f32)"}};
PLAIN_PLANS(cumsum_plans, cumsum_plain, "plain C (a known axis)");
PLAIN_PLANS(trilu_plans, trilu_plain, "plain C (a known k)");
PLAIN_PLANS(onehot_plans, onehot_plain, "plain C");
PLAIN_PLANS(reverse_sequence_plans, reverse_sequence_plain, "plain C");
PLAIN_PLANS(eyelike_plans, eyelike_plain, "plain C");
PLAIN_PLANS(range_plans, range_plain, "plain C");

static const struct op_attr gather_elements_attrs[] = {ATTR(axis, 0), ATTR_END};
static const struct op_attr scatter_elements_attrs[] = {ATTR(axis, 0), ATTR_S(reduction, "none"), ATTR_END};
static const struct op_attr gather_nd_attrs[] = {ATTR(batch_dims, 0), ATTR_END};
static const struct op_attr scatter_nd_attrs[] = {ATTR_S(reduction, "none"), ATTR_END};
static const struct op_attr cumsum_attrs[] = {ATTR(axis, 0), ATTR(exclusive, 0), ATTR(reverse, 0), ATTR_END};
static const struct op_attr trilu_attrs[] = {ATTR(k, 0), ATTR(upper, 1), ATTR_END};
static const struct op_attr onehot_attrs[] = {ATTR(axis, -1), ATTR_END};
static const struct op_attr reverse_sequence_attrs[] = {ATTR(time_axis, 0), ATTR(batch_axis, 1), ATTR_END};
static const struct op_attr eyelike_attrs[] = {ATTR(k, 0), ATTR_END};

const struct op_def ops_index[] = {
    {"GatherElements", infer_gather_elements, 0, NULL, gather_elements_attrs, &elements_plans, {.pl_kind = PL_GATHER_ELEMENTS}, .schema = OP_SCHEMA(2, 2, 1, 1, 0x3, 11, 0)},
    {"GatherND", infer_gather_nd, 0, NULL, gather_nd_attrs, &gather_nd_plans, {0}, .schema = OP_SCHEMA(2, 2, 1, 1, 0x3, 11, 0)},
    {"ScatterND", infer_same_as_input, 0, NULL, scatter_nd_attrs, &scatter_nd_plans, {0}, .schema = OP_SCHEMA(3, 3, 1, 1, 0x7, 11, 0)},
    {"ScatterElements", infer_same_as_input, 0, NULL, scatter_elements_attrs, &elements_plans, {.pl_kind = PL_SCATTER_ELEMENTS}, .schema = OP_SCHEMA(3, 3, 1, 1, 0x7, 11, 0)},
    {"Scatter", infer_same_as_input, 0, NULL, scatter_elements_attrs, &elements_plans, {.pl_kind = PL_SCATTER_ELEMENTS}, .schema = OP_SCHEMA(3, 3, 1, 1, 0x7, 9, 10)},
    {"Range", infer_range, 0, NULL, NULL, &range_plans, {0}, .schema = OP_SCHEMA(3, 3, 1, 1, 0x7, 11, 0)},
    {"OneHot", infer_onehot, 0, NULL, onehot_attrs, &onehot_plans, {0}, .schema = OP_SCHEMA(3, 3, 1, 1, 0x7, 9, 0)},
    {"Trilu", infer_same_as_input, 0, canon_trilu, trilu_attrs, &trilu_plans, {0}, .schema = OP_SCHEMA(1, 2, 1, 1, 0x1, 14, 0)},
    {"CumSum", infer_same_as_input, 0, canon_cumsum, cumsum_attrs, &cumsum_plans, {0}, .schema = OP_SCHEMA(2, 2, 1, 1, 0x3, 11, 0)},
    {"ReverseSequence", infer_same_as_input, 0, NULL, reverse_sequence_attrs, &reverse_sequence_plans, {0}, .schema = OP_SCHEMA(2, 2, 1, 1, 0x3, 10, 0)},
    {"EyeLike", infer_like_with_dtype, 0, NULL, eyelike_attrs, &eyelike_plans, {0}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 9, 0)},
    {0},
};
