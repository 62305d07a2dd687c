/* Layers of detection, segmentation and training graphs that oneDNN has not (the CPU backend
 * benchmarks them in plain C, runtime/plain_nn.h): RoiAlign, MaxUnpool and the losses
 * NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss; Det; and two whose output size
 * depends on the data (runtime/plain_select.h): NonMaxSuppression and Compress. */
#include <string.h>

#include "ops.h"

/* RoiAlign: [regions, C, output_height, output_width] */
static void infer_roi_align(struct infer_ctx *c)
{
    const struct ir_type *x = op_in(c, 0), *rois = op_in(c, 1);
    struct ir_dim *d = op_out(c, 0, op_in_dtype(c, 0), 4);
    if (x && x->rank != 4) {
        op_fail(c, "RoiAlign needs a map [N, C, H, W], not rank %d", x->rank);
        return;
    }
    d[0] = rois && rois->rank == 2 ? rois->dims[0] : dim_unknown();
    d[1] = x ? x->dims[1] : dim_unknown();
    d[2] = dim_of(op_attr_i(c, "output_height", 1));
    d[3] = dim_of(op_attr_i(c, "output_width", 1));
}

/* the mode, the samples per bin, the scale and the coordinate transformation (opset 16's
 * default half_pixel; before it, no offset: output_half_pixel) */
static void canon_roi_align(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    const struct ir_attr *a = ir_node_attr(c->n, "mode");
    canon_set_s(attrs, "mode", a && a->type == IR_ATTR_STRING ? a->u.s.data : "avg");
    a = ir_node_attr(c->n, "coordinate_transformation_mode");
    canon_set_s(attrs, "coordinate_transformation_mode",
                a && a->type == IR_ATTR_STRING ? a->u.s.data : c->opset >= 16 ? "half_pixel" : "output_half_pixel");
    canon_default_i(c, attrs, "output_height", 1);
    canon_default_i(c, attrs, "output_width", 1);
    canon_default_i(c, attrs, "sampling_ratio", 0);
    canon_default_f(c, attrs, "spatial_scale", 1.0);
    const struct ir_type *x = canon_in(c, 0), *y = canon_out(c, 0);
    bz_buf_printf(name, "roialign_r%lld_", (long long)y->dims[0].value);
    canon_name_dims(name, x);
}

/* MaxUnpool: output_shape when given (a constant), else (in - 1) * stride - pads + kernel */
static void infer_max_unpool(struct infer_ctx *c)
{
    int nsp;
    const struct ir_type *x = op_spatial_input(c, &nsp);
    if (!x)
        return;
    const int64_t *ks, *sv, *pv;
    int nk = op_attr_ints(c, "kernel_shape", &ks), ns = op_attr_ints(c, "strides", &sv);
    int np = op_attr_ints(c, "pads", &pv);
    if (nk != nsp) {
        op_fail(c, "kernel_shape must have %d values", nsp);
        return;
    }
    struct ir_dim *d = op_out(c, 0, x->dtype, x->rank);
    if (op_in_value(c, 2)) {
        int64_t n;
        const int64_t *shape = op_in_ints(c, 2, &n);
        for (int k = 0; shape && n == x->rank && k < x->rank; k++)
            d[k] = dim_of(shape[k]);
        return;
    }
    d[0] = x->dims[0];
    d[1] = x->dims[1];
    for (int i = 0; i < nsp; i++)
        if (dim_known(x->dims[2 + i]))
            d[2 + i] = dim_of((x->dims[2 + i].value - 1) * (ns > i ? sv[i] : 1) -
                              (np == 2 * nsp ? pv[i] + pv[i + nsp] : 0) + ks[i]);
}

static void canon_max_unpool(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    const struct ir_type *x = canon_in(c, 0);
    int nsp = x->rank - 2;
    int64_t k[8], s[8], d[8], p[16];
    canon_pool_window(c, attrs, x, k, s, d, p);
    json_object_del(attrs, "dilations");
    bz_buf_printf(name, "maxunpool%dd_", nsp);
    canon_name_dims(name, x);
    bz_buf_puts(name, "_to_");
    canon_name_dims(name, canon_out(c, 0));
}

/* the losses: per element [N, D...] with reduction none, else a scalar; SCE's second output
 * the log-probabilities, the input's shape */
static void infer_loss(struct infer_ctx *c)
{
    const struct ir_type *x = op_in(c, 0), *t = op_in(c, 1);
    int dtype = op_in_dtype(c, 0);
    if (!strcmp(op_attr_s(c, "reduction", "mean"), "none")) {
        if (t) {
            struct ir_type ty = *t;
            ty.dtype = dtype;
            op_out_type(c, 0, &ty);
        } else {
            op_out_dtype_only(c, 0, dtype);
        }
    } else {
        op_out(c, 0, dtype, 0);
    }
    if (c->n->n_outputs > 1 && c->n->outputs[1]) {
        if (x)
            op_out_type(c, 1, x);
        else
            op_out_dtype_only(c, 1, dtype);
    }
}

static void canon_loss(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    const struct ir_attr *a = ir_node_attr(c->n, "reduction");
    canon_set_s(attrs, "reduction", a && a->type == IR_ATTR_STRING ? a->u.s.data : "mean");
    a = ir_node_attr(c->n, "ignore_index");
    if (a && a->type == IR_ATTR_INT)
        canon_set_i(attrs, "ignore_index", a->u.i);
    canon_set_i(attrs, "log_prob", c->n->n_outputs > 1 && c->n->outputs[1] != NULL);
    bz_buf_puts(name, !strcmp(c->n->op_type, "NegativeLogLikelihoodLoss") ? "nllloss_" : "sceloss_");
    canon_name_dims(name, canon_in(c, 0));
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
    const struct ir_type *x = op_in(c, 0);
    int dtype = op_in_dtype(c, 0);
    if (!x) {
        op_out_dtype_only(c, 0, dtype);
        return;
    }
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

/* TfIdfVectorizer: float [max(ngram_indexes) + 1], or [B, that] for a batch of rows */
static void infer_tfidf(struct infer_ctx *c)
{
    const struct ir_type *x = op_in(c, 0);
    const int64_t *ix;
    int n = op_attr_ints(c, "ngram_indexes", &ix);
    int64_t size = 0;
    for (int k = 0; k < n; k++)
        size = ix[k] + 1 > size ? ix[k] + 1 : size;
    if (!x) {
        op_out_dtype_only(c, 0, IR_DTYPE_FLOAT);
        return;
    }
    if (x->rank < 1 || x->rank > 2) {
        op_fail(c, "TfIdfVectorizer needs [N] or [B, N], not rank %d", x->rank);
        return;
    }
    struct ir_dim *d = op_out(c, 0, IR_DTYPE_FLOAT, x->rank);
    if (x->rank == 2)
        d[0] = x->dims[0];
    d[x->rank - 1] = dim_of(size);
}

/* Det: [..., M, M] -> [...] */
static void infer_det(struct infer_ctx *c)
{
    const struct ir_type *x = op_in(c, 0);
    int dtype = op_in_dtype(c, 0);
    if (!x) {
        op_out_dtype_only(c, 0, dtype);
        return;
    }
    if (x->rank < 2) {
        op_fail(c, "Det needs square matrices [..., M, M], not rank %d", x->rank);
        return;
    }
    struct ir_dim *d = op_out(c, 0, dtype, x->rank - 2);
    for (int k = 0; k < x->rank - 2; k++)
        d[k] = x->dims[k];
}

const struct op_def ops_nn[] = {
    {"RoiAlign", infer_roi_align, 0, canon_roi_align},
    {"MaxUnpool", infer_max_unpool, 0, canon_max_unpool},
    {"NegativeLogLikelihoodLoss", infer_loss, 0, canon_loss},
    {"SoftmaxCrossEntropyLoss", infer_loss, 0, canon_loss},
    {"Det", infer_det, 0, NULL},
    {"NonMaxSuppression", infer_nms, OP_DATA_SIZED, canon_nms},
    {"Compress", infer_compress, OP_DATA_SIZED, canon_compress},
    {"Unique", infer_unique, OP_DATA_SIZED, canon_unique},
    {"TfIdfVectorizer", infer_tfidf, 0, NULL},
    {NULL, NULL, 0, NULL},
};
