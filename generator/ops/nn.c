/* Layers of detection, segmentation and training graphs that oneDNN has not (the CPU backend
 * benchmarks them in plain C, runtime/plain_nn.h): RoiAlign, MaxUnpool and the losses
 * NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss; and Det. */
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
    const struct ir_attr *a = ir_node_attr(c->n, "kernel_shape");
    for (int i = 0; i < nsp && i < 8; i++)
        k[i] = a && a->type == IR_ATTR_INTS && (int)a->count > i ? a->u.ints[i] : 1;
    canon_window(c, attrs, x, k, nsp, s, d, p);
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
    {NULL, NULL, 0, NULL},
};
