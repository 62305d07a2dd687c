/* Layers whose output size depends on the data (runtime/plain_select.h): NonZero, Compress,
 * Unique and NonMaxSuppression. gen benchmarks each writing into the largest output its inputs
 * allow (OP_DATA_SIZED: those dims -1 in the key), on data of its own. */
#include <math.h>
#include <string.h>

#include "../plan.h"
#include "ops.h"

static void infer_nonzero(struct infer_ctx *c)
{
    const struct ir_type *t = op_in(c, 0);
    struct ir_dim *d = op_out(c, 0, IR_DTYPE_INT64, 2);
    if (t)
        d[0] = dim_of(t->rank);
}

/* NonMaxSuppression: int64 [selected, 3], the count known only when it runs */
static void infer_nms(struct infer_ctx *c)
{
    struct ir_dim *d = op_out(c, 0, IR_DTYPE_INT64, 2);
    d[1] = dim_of(3);
}

/* the boxes per class (default 0: none), the IoU threshold (default 0), the score threshold
 * (none by default) and the box format */
static void canon_nms(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    static const double zero = 0;
    canon_const_scalar(c, attrs, "max_output_boxes_per_class", 2, true, &zero);
    canon_const_scalar(c, attrs, "iou_threshold", 3, false, &zero);
    canon_const_scalar(c, attrs, "score_threshold", 4, false, NULL);
    canon_default_i(c, attrs, "center_point_box", 0);
    bz_buf_puts(name, "nms_");
    canon_name_dims(name, canon_in(c, 1));
}

/* Compress: the input with the axis (or, without one, the flattened input) as long as the
 * count of true conditions, known only when it runs */
static void infer_compress(struct infer_ctx *c)
{
    const struct ir_type *x = op_in(c, 0);
    int dtype = op_in_dtype(c, 0);
    const struct ir_attr *a = ir_node_attr(c->n, "axis");
    if (!a) {
        op_out(c, 0, dtype, 1);
        return;
    }
    if (!x) {
        op_out_dtype_only(c, 0, dtype);
        return;
    }
    int axis = op_axis(c, op_attr_i(c, "axis", 0), x->rank);
    if (axis < 0)
        return;
    struct ir_dim *d = op_out(c, 0, dtype, x->rank);
    for (int k = 0; k < x->rank; k++)
        d[k] = k == axis ? dim_unknown() : x->dims[k];
}

static void canon_compress(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    const struct ir_attr *a = ir_node_attr(c->n, "axis");
    const struct ir_type *x = canon_in(c, 0);
    if (a && a->type == IR_ATTR_INT)
        canon_set_i(attrs, "axis", a->u.i < 0 ? a->u.i + x->rank : a->u.i);
    bz_buf_puts(name, "compress_");
    canon_name_dims(name, x);
}

/* Unique: Y the unique slices along axis (flattened: elements), the first indices and the
 * counts as many as the unique ones (known only when it runs), the inverse one per slice */
static void infer_unique(struct infer_ctx *c)
{
    const struct ir_type *x = op_in_known(c, 0);
    if (!x)
        return;
    int dtype = x->dtype;
    const struct ir_attr *a = ir_node_attr(c->n, "axis");
    int axis = a ? op_axis(c, op_attr_i(c, "axis", 0), x->rank) : -1;
    if (a && axis < 0)
        return;
    struct ir_dim slices = dim_of(1);
    if (axis < 0) {
        op_out(c, 0, dtype, 1);
        for (int k = 0; k < x->rank; k++)
            slices = dim_mul(slices, x->dims[k]);
    } else {
        struct ir_dim *d = op_out(c, 0, dtype, x->rank);
        for (int k = 0; k < x->rank; k++)
            d[k] = k == axis ? dim_unknown() : x->dims[k];
        slices = x->dims[axis];
    }
    for (int i = 1; i < 4 && i < c->n->n_outputs; i++)
        if (c->n->outputs[i])
            op_out(c, i, IR_DTYPE_INT64, 1)[0] = i == 2 ? slices : dim_unknown();
}

static void canon_unique(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    const struct ir_attr *a = ir_node_attr(c->n, "axis");
    const struct ir_type *x = canon_in(c, 0);
    if (a && a->type == IR_ATTR_INT)
        canon_set_i(attrs, "axis", a->u.i < 0 ? a->u.i + x->rank : a->u.i);
    canon_default_i(c, attrs, "sorted", 1);
    bz_buf_puts(name, "unique_");
    canon_name_dims(name, x);
}

/* ---- backends: plain C (runtime/plain_select.h): the output as large as the inputs allow
 * (what it holds depends on the data) ---- */

static int nonzero_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (plan_pl_start(d, PL_NONZERO, PL_IDENTITY, -1, op))
        return -1;
    const struct pl_tensor *x = &op->in[0];
    if (x->nd < 1 || op->out.dtype != PL_INT64)
        return -1;
    op->out.nd = 2;
    op->out.d[0] = x->nd;
    op->out.d[1] = pl_count(x);
    return 0;
}

/* the axis of Compress and Unique: -1 (flattened) when the key has none, else its value */
static int select_axis(const struct layer_desc *d, const struct pl_tensor *x, int *axis)
{
    *axis = -1;
    if (!desc_present(d, DA_axis))
        return 0;
    if (!desc_known(d, DA_axis) || d->a.axis < 0 || d->a.axis >= x->nd)
        return -1;
    *axis = (int)d->a.axis;
    return 0;
}

static int compress_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (plan_pl_start(d, PL_COMPRESS, PL_IDENTITY, -1, op))
        return -1;
    const struct pl_tensor *x = &op->in[0];
    int64_t n = pl_count(x), nc = pl_count(&op->in[1]);
    if (op->in[1].dtype != PL_BOOL || op->in[1].nd != 1 || op->out.dtype != x->dtype || select_axis(d, x, &op->axis))
        return -1;
    op->out = *x;
    if (op->axis < 0) {
        op->out.nd = 1;
        op->out.d[0] = nc < n ? nc : n;
    } else {
        op->out.d[op->axis] = nc < x->d[op->axis] ? nc : x->d[op->axis];
    }
    return 0;
}

/* the slices along axis (else the elements); as many unique as slices */
static int unique_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (plan_pl_start(d, PL_UNIQUE, PL_IDENTITY, -1, op))
        return -1;
    const struct pl_tensor *x = &op->in[0];
    op->flag = d->a.sorted != 0;
    if (op->out.dtype != x->dtype || x->nd < 1 || select_axis(d, x, &op->axis))
        return -1;
    op->out = *x;
    if (op->axis < 0) {
        op->out.nd = 1;
        op->out.d[0] = pl_count(x);
    }
    return 0;
}

/* NonMaxSuppression: boxes [B, N, 4], scores [B, C, N]; the limits from the key */
static int nms_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (plan_pl_start(d, PL_NMS, PL_IDENTITY, -1, op))
        return -1;
    const struct pl_tensor *x = &op->in[0], *sc = &op->in[1];
    bool score = desc_present(d, DA_score_threshold);
    if (!desc_present(d, DA_max_output_boxes_per_class) || !desc_known(d, DA_max_output_boxes_per_class) ||
        !desc_present(d, DA_iou_threshold) || !desc_known(d, DA_iou_threshold) ||
        (score && !desc_known(d, DA_score_threshold)) || x->nd != 3 || x->d[2] != 4 || sc->nd != 3 ||
        sc->d[0] != x->d[0] || sc->d[2] != x->d[1] || !pl_is_float(x->dtype) || !pl_is_float(sc->dtype) ||
        d->a.max_output_boxes_per_class < 0)
        return -1;
    op->k = d->a.max_output_boxes_per_class;
    op->alpha = (float)d->a.iou_threshold;
    op->nn.has_score = score;
    op->beta = score ? (float)d->a.score_threshold : 0;
    op->flag = d->a.center_point_box != 0;
    op->out.nd = 2;
    op->out.d[0] = sc->d[0] * sc->d[1] * (op->k < sc->d[2] ? op->k : sc->d[2]);
    op->out.d[1] = 3;
    return 0;
}

PLAIN_PLANS(nonzero_plans, nonzero_plain, "plain C");
PLAIN_PLANS(compress_plans, compress_plain, "plain C");
PLAIN_PLANS(unique_plans, unique_plain, "plain C");
PLAIN_PLANS(nms_plans, nms_plain, "plain C");

static const struct op_attr compress_attrs[] = {ATTR(axis, 0), ATTR_END};
static const struct op_attr unique_attrs[] = {ATTR(axis, 0), ATTR(sorted, 1), ATTR_END};
static const struct op_attr nms_attrs[] = {ATTR(max_output_boxes_per_class, 0), ATTR(iou_threshold, 0),
                                           ATTR(score_threshold, 0), ATTR(center_point_box, 0), ATTR_END};

const struct op_def ops_select[] = {
    {"NonZero", infer_nonzero, OP_DATA_SIZED, NULL, NULL, &nonzero_plans, {0}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 9, 0)},
    {"Compress", infer_compress, OP_DATA_SIZED, canon_compress, compress_attrs, &compress_plans, {0}, .schema = OP_SCHEMA(2, 2, 1, 1, 0x3, 9, 0)},
    {"Unique", infer_unique, OP_DATA_SIZED, canon_unique, unique_attrs, &unique_plans, {0}, .schema = OP_SCHEMA(1, 1, 1, 4, 0x1, 11, 0)},
    {"NonMaxSuppression", infer_nms, OP_DATA_SIZED, canon_nms, nms_attrs, &nms_plans, {0}, .schema = OP_SCHEMA(2, 5, 1, 1, 0x3, 10, 0)},
    {0},
};
